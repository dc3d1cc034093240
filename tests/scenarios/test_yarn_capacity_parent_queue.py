"""YARN Capacity Scheduler worked cases of Hadoop's ``TestParentQueue`` (Hadoop 3.3,
``hadoop-yarn-server-resourcemanager/.../scheduler/capacity/TestParentQueue.java``) through
the public harness.

Hadoop's tests stub each child's ``assignContainers`` to hand out a given amount; here the
children hold apps asking for containers of those sizes (one app per container, in the
order Hadoop's stubs allocate them), and a heartbeat gives one container, so the parent's
choice is ``PriorityUtilizationQueueOrderingPolicy``'s: the child with the least used
capacity (used ÷ guaranteed) first.
"""

from __future__ import annotations

import pytest

from corescheduler.testing import ClusterHarness

GB = 1024
CONFIG = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}}


def xml(*props: tuple[str, str]) -> str:
    body = "\n".join(f"  <property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                     for k, v in props)
    return f"<configuration>\n{body}\n</configuration>"


def queue(h: ClusterHarness, path: str) -> dict:
    return h.shares()["queues"][path]


def verify_queue_metrics(h: ClusterHarness, path: str, memory: int, cluster_memory: int) -> None:
    """``TestParentQueue.verifyQueueMetrics``: absolute used capacity = memory ÷ cluster,
    used capacity = memory ÷ (cluster × absolute capacity)."""
    q = queue(h, path)
    assert q["used"].memory == memory
    assert q["absolute_used_capacity"] == pytest.approx(memory / cluster_memory, abs=1e-4)
    assert q["used_capacity"] == pytest.approx(memory / (cluster_memory * q["absolute_capacity"]), abs=1e-4)


def test_single_level_queues() -> None:
    """``TestParentQueue.testSingleLevelQueues``: root.a 30 %, root.b 70 % on two 10 GB nodes
    (a's guarantee 6 GB, b's 14 GB).  b alone asks first and gets 1 GB; then a (0/6 < 1/14)
    gets 2 GB; b (1/14 < 2/6) 1 GB; b (2/14 < 2/6) 2 GB; b (4/14 < 2/6) 4 GB; a (2/6 < 8/14)
    1 GB and again (3/6 < 8/14) 1 GB; b (8/14 < 4/6) 1 GB: a 4 GB, b 9 GB, as Hadoop's test
    ends (its stubs force the order of the middle steps; the totals are the parent's rule)."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="10240 mb, 16 vcores", config=CONFIG,
                       allocations=xml(("root.queues", "a,b"), ("root.a.capacity", "30"),
                                       ("root.b.capacity", "70"), ("root.a.user-limit-factor", "10"),
                                       ("root.b.user-limit-factor", "10")))
    cluster = 20 * GB
    for size in (1, 1, 2, 4, 1):
        h.submit(queue="b", tasks=1, resources=f"{size * GB} mb, 1 vcores")
    h.heartbeat("n0000")
    verify_queue_metrics(h, "root.a", 0, cluster)
    verify_queue_metrics(h, "root.b", 1 * GB, cluster)
    for size in (2, 1, 1):
        h.submit(queue="a", tasks=1, resources=f"{size * GB} mb, 1 vcores")
    expected = [(2, 1), (2, 2), (2, 4), (2, 8), (3, 8), (4, 8), (4, 9)]
    got = []
    for step in range(len(expected)):
        h.heartbeat("n0001" if step % 2 == 0 else "n0000")
        got.append((queue(h, "root.a")["used"].memory // GB, queue(h, "root.b")["used"].memory // GB))
    assert got == expected
    verify_queue_metrics(h, "root.a", 4 * GB, cluster)
    verify_queue_metrics(h, "root.b", 9 * GB, cluster)


def test_single_level_queues_precision() -> None:
    """``TestParentQueue.testSingleLevelQueuesPrecision``: 30 + 70.5 is refused, 30 + 70 and
    30 + 70.005 (under the 0.05 % PRECISION) are accepted."""
    from corescheduler.errors import AllocationError
    from corescheduler.formats.allocation_file import parse_allocations

    def parse(b: str) -> None:
        parse_allocations(xml(("root.queues", "a,b"), ("root.a.capacity", "30"), ("root.b.capacity", b)))

    with pytest.raises(AllocationError, match=r"to sum to 100, got 100\.5"):
        parse("70.5")
    parse("70")
    parse("70.005")


def used_gb(h: ClusterHarness, *paths: str) -> tuple[int, ...]:
    return tuple(queue(h, p)["used"].memory // GB for p in paths)


def test_multi_level_queues() -> None:
    """``TestParentQueue.testMultiLevelQueues``: root.a 10 % (a1, a2 50 % each), b 50 % (b1 10,
    b2 20, b3 70 %), c 19.5 % (c1 → c11 → c111 → c1111, 100 % each), d 20.5 % on three 10 GB
    nodes.  c (in c1111) gets 1 GB on node_0; then b2 4 GB on node_1 (A = 0/3, B = 0/15,
    C = 1/6, D = 0/6: b first, the larger capacity among the idle); then on node_0 a1 1 GB,
    c 2 GB and b3 2 GB in that order (a 0/3 first, then c 1/5.85 before b 4/15, then b);
    with a's maximum-capacity 10 % (3 GB), a2 2 GB, b 2 GB and c 1 GB on node_2, and a1's
    1 GB is not allocated (it would take a past its maximum): a 3 GB, b 8 GB, c 4 GB.

    Hadoop stubs each child's ``assignContainers``; here each stubbed container is an app of
    that size in that leaf (submitted when Hadoop's step stubs it).  The containers name no
    place, so each is off-switch and a heartbeat gives one (Hadoop's b hands out b1's and
    b3's 1 GB in one call of its last round: here two heartbeats)."""
    props = [("root.queues", "a,b,c,d"), ("root.a.capacity", "10"), ("root.b.capacity", "50"),
             ("root.c.capacity", "19.5"), ("root.d.capacity", "20.5"), ("root.a.queues", "a1,a2"),
             ("root.a.a1.capacity", "50"), ("root.a.a2.capacity", "50"), ("root.b.queues", "b1,b2,b3"),
             ("root.b.b1.capacity", "10"), ("root.b.b2.capacity", "20"), ("root.b.b3.capacity", "70"),
             ("root.c.queues", "c1"), ("root.c.c1.capacity", "100"), ("root.c.c1.queues", "c11"),
             ("root.c.c1.c11.capacity", "100"), ("root.c.c1.c11.queues", "c111"),
             ("root.c.c1.c11.c111.capacity", "100"), ("root.c.c1.c11.c111.queues", "c1111"),
             ("root.c.c1.c11.c111.c1111.capacity", "100"), ("user-limit-factor", "10")]
    h = ClusterHarness(racks=1, nodes_per_rack=3, node_resources="10240 mb, 16 vcores", config=CONFIG,
                       allocations=xml(*props))
    cluster = 30 * GB
    queues = ("root.a", "root.b", "root.c", "root.d")

    def app(leaf: str, gb: int) -> None:
        h.submit(queue=leaf, user=f"user_{leaf}", tasks=1, resources=f"{gb * GB} mb, 1 vcores")

    app("c1111", 1)
    h.heartbeat("n0000")
    assert used_gb(h, *queues) == (0, 0, 1, 0)
    app("b2", 4)
    h.heartbeat("n0001")
    assert used_gb(h, *queues) == (0, 4, 1, 0)
    for leaf, gb in (("a1", 1), ("c1111", 2), ("b3", 2)):
        app(leaf, gb)
    steps = []
    for _ in range(3):
        (got,) = h.heartbeat("n0000")
        steps.append(h.queue_of(got.job))
    assert steps == ["root.a.a1", "root.c.c1.c11.c111.c1111", "root.b.b3"]
    for path, gb in zip(queues, (1, 6, 3, 0)):
        verify_queue_metrics(h, path, gb * GB, cluster)
    h.set_allocations(xml(*props, ("root.a.maximum-capacity", "10")))  # ((ParentQueue)a).setMaxCapacity(.1f)
    for leaf, gb in (("a1", 1), ("a2", 2), ("b3", 1), ("b1", 1), ("c1111", 1)):
        app(leaf, gb)
    steps = [h.queue_of(a.job) for _ in range(5) for a in h.heartbeat("n0002")]
    assert steps == ["root.a.a2", "root.b.b1", "root.b.b3", "root.c.c1.c11.c111.c1111"]
    for path, gb in zip(queues, (3, 8, 4, 0)):
        verify_queue_metrics(h, path, gb * GB, cluster)


def test_off_switch_scheduling() -> None:
    """``TestParentQueue.testOffSwitchScheduling``: root.a 30 %, root.b 70 % on two 10 GB nodes
    (one rack).  b returns 1 GB OFF_SWITCH on node_0.  On node_1 a (0/6 < 1/14) gets 2 GB
    RACK_LOCAL, and since that is not off-switch the same heartbeat goes on and b (1/14 <
    2/6) gets 1 GB OFF_SWITCH: a 2 GB, b 2 GB.  On node_0 b (2/14 < 2/6) gets 2 GB
    OFF_SWITCH, and although a has a NODE_LOCAL 1 GB there, the heartbeat ends: at most one
    off-switch container a heartbeat (``per-node-heartbeat.maximum-offswitch-assignments``,
    ``CapacityScheduler.canAllocateMore``): a 2 GB, b 4 GB.  Beyond Hadoop's steps: the next
    heartbeat of node_0 gives a its node-local container.

    Hadoop 3.3's test drives ``root.assignContainers`` once per container with stubs that
    answer a locality type; here the node heartbeat runs ``CapacityScheduler``'s loop over
    real asks: a's 2 GB ask names node_0 (node-locality-delay 0, so it runs rack-local on
    node_1 at once) and its 1 GB ask names node_0; b's name no place (off-switch)."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="10240 mb, 16 vcores", config=CONFIG,
                       allocations=xml(("root.queues", "a,b"), ("root.a.capacity", "30"), ("root.b.capacity", "70"),
                                       ("user-limit-factor", "10"), ("node-locality-delay", "0")))
    cluster = 20 * GB
    for gb in (1, 1, 2):
        h.submit(queue="b", user="user_b", tasks=1, resources=f"{gb * GB} mb, 1 vcores")

    def beat(node: str) -> list[tuple[str, str | None]]:
        return [(h.queue_of(a.job) or "", a.locality if a.locality in ("node", "rack") else "off")
                for a in h.heartbeat(node)]

    assert beat("n0000") == [("root.b", "off")]
    verify_queue_metrics(h, "root.a", 0, cluster)
    verify_queue_metrics(h, "root.b", 1 * GB, cluster)
    for gb in (2, 1):
        h.submit_app(queue="a", user="user_a", requests=[{"resources": f"{gb * GB} mb, 1 vcores",
                                                         "locations": ["n0000"]}])
    assert beat("n0001") == [("root.a", "rack"), ("root.b", "off")]
    verify_queue_metrics(h, "root.a", 2 * GB, cluster)
    verify_queue_metrics(h, "root.b", 2 * GB, cluster)
    assert beat("n0000") == [("root.b", "off")]
    verify_queue_metrics(h, "root.a", 2 * GB, cluster)
    verify_queue_metrics(h, "root.b", 4 * GB, cluster)
    assert beat("n0000") == [("root.a", "node")]


def test_per_node_heartbeat_limits() -> None:
    """``CapacityScheduler.canAllocateMore``'s keys: containers that name no place are
    off-switch, so a heartbeat gives ``maximum-offswitch-assignments`` of them (default 1);
    node-local ones go on up to ``maximum-container-assignments`` (default 100), or one when
    ``multiple-assignments-enabled`` is false."""
    def run(*props: tuple[str, str], located: bool) -> int:
        h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 16 vcores", config=CONFIG,
                           allocations=xml(("root.queues", "a"), ("root.a.capacity", "100"), *props))
        where = {"locations": ["n0000"]} if located else {}
        h.submit_app(queue="a", user="u", requests=[{"resources": "1024 mb, 1 vcores", "count": 8, **where}])
        return len(h.heartbeat("n0000"))

    assert run(located=False) == 1
    assert run(("per-node-heartbeat.maximum-offswitch-assignments", "3"), located=False) == 3
    assert run(located=True) == 8
    assert run(("per-node-heartbeat.maximum-container-assignments", "5"), located=True) == 5
    assert run(("per-node-heartbeat.multiple-assignments-enabled", "false"), located=True) == 1
