"""Hadoop 3.3's RM-level ``TestCapacityScheduler`` (``.../scheduler/capacity/TestCapacityScheduler.java``)
cases expressible through the harness: the queue capacities its ``setupQueueConfiguration``
gives, before and after ``refreshQueues`` (``testRefreshQueues``,
``testRefreshQueuesWithNewQueue``, ``checkQueueCapacities``), and ``maximum-capacity``'s
default (``testMaximumCapacitySetup``).  The queues: root.a 10.5 % (a1 30 %, a2 70 %) and
root.b 89.5 % (b1 79.2 %, b2 0.8 %, b3 20 %), every leaf's user-limit-factor 100."""

from __future__ import annotations

import pytest

from corescheduler.formats.allocation_file import parse_allocations
from corescheduler.testing import ClusterHarness

A_CAPACITY, B_CAPACITY = 10.5, 89.5
A1_CAPACITY, A2_CAPACITY = 30.0, 70.0
B1_CAPACITY, B2_CAPACITY, B3_CAPACITY = 79.2, 0.8, 20.0
EPSILON = 1e-5  # checkQueueCapacity's


def xml(*props: tuple[str, str]) -> str:
    body = "".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                   for k, v in props)
    return f"<configuration>{body}</configuration>"


def setup_queue_configuration(a: float = A_CAPACITY, b: float = B_CAPACITY, b3: float = B3_CAPACITY,
                              b4: float | None = None) -> str:
    """``TestCapacityScheduler.setupQueueConfiguration`` (with ``b4`` as
    ``testRefreshQueuesWithNewQueue`` adds it)."""
    props = [("root.queues", "a,b"), ("root.a.capacity", f"{a:g}"), ("root.b.capacity", f"{b:g}"),
             ("root.a.queues", "a1,a2"), ("root.a.a1.capacity", f"{A1_CAPACITY:g}"),
             ("root.a.a2.capacity", f"{A2_CAPACITY:g}"),
             ("root.b.queues", "b1,b2,b3" + (",b4" if b4 is not None else "")),
             ("root.b.b1.capacity", f"{B1_CAPACITY:g}"), ("root.b.b2.capacity", f"{B2_CAPACITY:g}"),
             ("root.b.b3.capacity", f"{b3:g}")]
    if b4 is not None:
        props.append(("root.b.b4.capacity", f"{b4:g}"))
    leaves = ["a.a1", "a.a2", "b.b1", "b.b2", "b.b3"] + (["b.b4"] if b4 is not None else [])
    props += [(f"root.{leaf}.user-limit-factor", "100") for leaf in leaves]
    return xml(*props)


def harness() -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                          config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                                "pool_resolver": "yarn_capacity"}},
                          allocations=setup_queue_configuration())


def check_queue_capacities(h: ClusterHarness, capacity_a: float, capacity_b: float,
                           b3: float = B3_CAPACITY) -> None:
    """``checkQueueCapacities``: each queue's capacity, absolute capacity, maximum capacity and
    absolute maximum capacity (1 and 1: no maximum-capacity is set)."""
    h.update()
    queues = h.shares()["queues"]
    cap_a, cap_b = capacity_a / 100, capacity_b / 100
    expected = {
        "root.a": (cap_a, cap_a), "root.b": (cap_b, cap_b),
        "root.a.a1": (A1_CAPACITY / 100, A1_CAPACITY / 100 * cap_a),
        "root.a.a2": (A2_CAPACITY / 100, A2_CAPACITY / 100 * cap_a),
        "root.b.b1": (B1_CAPACITY / 100, B1_CAPACITY / 100 * cap_b),
        "root.b.b2": (B2_CAPACITY / 100, B2_CAPACITY / 100 * cap_b),
        "root.b.b3": (b3 / 100, b3 / 100 * cap_b),
    }
    for name, (capacity, absolute) in expected.items():
        q = queues[name]
        assert q["capacity"] == pytest.approx(capacity, abs=EPSILON), name
        assert q["absolute_capacity"] == pytest.approx(absolute, abs=EPSILON), name
        assert q["maximum_capacity"] == pytest.approx(1.0, abs=EPSILON), name
        assert q["absolute_maximum_capacity"] == pytest.approx(1.0, abs=EPSILON), name


def test_maximum_capacity_setup() -> None:
    """``testMaximumCapacitySetup``: ``maximum-capacity`` unset is 100 % (``MAXIMUM_CAPACITY_VALUE``),
    50 is 50 %, −1 is 100 % again (a at 50 %, so that 50 is not below its capacity)."""
    def maximum(value: str | None) -> float:
        props = [("root.queues", "a,b"), ("root.a.capacity", "50"), ("root.b.capacity", "50")]
        if value is not None:
            props.append(("root.a.maximum-capacity", value))
        return parse_allocations(xml(*props)).policy_config.queues["root.a"].maximum_capacity

    assert maximum(None) == pytest.approx(1.0)
    assert maximum("50") == pytest.approx(0.5)
    assert maximum("-1") == pytest.approx(1.0)


def test_refresh_queues() -> None:
    """``testRefreshQueues``: the capacities of ``setupQueueConfiguration``, then a and b at 80
    and 20 after ``reinitialize`` (a reload)."""
    h = harness()
    check_queue_capacities(h, A_CAPACITY, B_CAPACITY)
    h.set_allocations(setup_queue_configuration(a=80, b=20))
    check_queue_capacities(h, 80, 20)


def test_refresh_queues_with_new_queue() -> None:
    """``testRefreshQueuesWithNewQueue``: a reload that also adds b4 (10 %, b3 down to 10 %)
    under b: the capacities follow, and b4 is b's child."""
    h = harness()
    check_queue_capacities(h, A_CAPACITY, B_CAPACITY)
    h.set_allocations(setup_queue_configuration(a=80, b=20, b3=B3_CAPACITY - 10, b4=10))
    check_queue_capacities(h, 80, 20, b3=B3_CAPACITY - 10)
    tree = h.scheduler.resource_engine.tree
    assert tree.queues["root.b.b4"].parent is tree.queues["root.b"]
    b4 = h.shares()["queues"]["root.b.b4"]
    assert b4["capacity"] == pytest.approx(0.1, abs=EPSILON)
    assert b4["absolute_capacity"] == pytest.approx(0.1 * 0.2, abs=EPSILON)


def test_app_reservation_with_dominant_resource_calculator() -> None:
    """``testAppReservationWithDominantResourceCalculator``: under ``DominantResourceCalculator``
    a node with memory free but no vcore left is not scheduled on, so not reserved
    (``allocateContainerOnSingleNode``: ``computeAvailableContainers`` ≤ 0).  n0000 has
    10 GB and 1 vcore, n0001 and n0002 10 GB and 4 vcores each; the app's 1 GB AM takes
    n0000's vcore; its container (1 GB, 1 vcore, on n0000 or n0001) gets nothing on n0000,
    no reservation, and runs on n0001."""
    dominant = xml(("resource-calculator", "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"),
                   ("root.queues", "default"), ("root.default.capacity", "100"))
    h = ClusterHarness(racks=1, nodes_per_rack=3, node_resources="10240 mb, 4 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=dominant)
    h.remove_node("n0000")
    h.add_node("n0000", "r00", resources="10240 mb, 1 vcores")
    app = h.submit_app(user="u", am_resources="1024 mb, 1 vcores",
                       requests=[{"resources": "1024 mb, 1 vcores", "locations": ["n0000", "n0001"]}])
    got = h.heartbeat("n0000")
    assert [a.resources.memory for a in got] == [1024] and app.am_running  # the AM alone
    node = h.cluster.nodes["n0000"]
    assert (int(node.used.memory), int(node.capacity.memory - node.used.memory)) == (1024, 9216)
    assert h.heartbeat("n0000") == []
    assert node.reserved is None
    got = h.heartbeat("n0001")
    assert [(a.job, a.node, a.locality) for a in got] == [(app.id, "n0001", "node")]
    assert all(n.reserved is None for n in h.cluster.nodes.values())
