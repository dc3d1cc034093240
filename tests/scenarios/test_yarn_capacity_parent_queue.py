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
