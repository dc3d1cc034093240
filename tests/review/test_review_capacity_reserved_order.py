"""Review (session 16): a queue's reservations count in its used capacity when its parent
orders its children.

Hadoop books a reserved container into the queue's use (``LeafQueue.apply`` →
``allocateResource`` for a new allocation *or reservation*, and ``ParentQueue.apply`` up the
tree), and ``CSQueueUtils.updateUsedCapacity`` derives the used capacity that
``PriorityUtilizationQueueOrderingPolicy`` sorts by from that use.  Session 15 counted
reservations in a queue's limits and headroom, but ``yarn_capacity``'s order key still divided
the running containers alone, so a queue holding a large reservation was offered nodes as if
it were nearly empty."""

from __future__ import annotations

from corescheduler.testing import ClusterHarness


def _prop(k: str, v: str) -> str:
    return f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"


XML = ("<configuration>" + _prop("root.queues", "a,b") + _prop("root.a.capacity", "50")
       + _prop("root.b.capacity", "50") + _prop("root.a.maximum-capacity", "100")
       + _prop("root.b.maximum-capacity", "100") + _prop("root.a.user-limit-factor", "2")
       + _prop("root.b.user-limit-factor", "2")
       + _prop("per-node-heartbeat.maximum-container-assignments", "1") + "</configuration>")


def test_a_queue_holding_a_reservation_is_offered_a_node_after_a_less_used_one() -> None:
    """Two 8 GB nodes; a and b 50 % each (maximum 100 %).  On n0 a runs 2 × 1 GB and b 4 × 1 GB;
    a's second app asks for 6 GB and reserves n0 (2 GB free).  a's use is 2 + 6 = 8 GB of its
    8 GB guarantee (used capacity 1.0), b's 4 GB (0.5).  n1 then heartbeats with apps of both
    queues waiting: Hadoop offers it to b first, and b's app gets 1 GB.  (Without the
    reservation in a's use, a looked 0.25 used and its 6 GB app took n1.)"""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 16 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}}, allocations=XML)
    h.submit(queue="a", user="ua", tasks=2, resources="1024 mb, 1 vcores")
    for _ in range(2):
        h.heartbeat("n0000")
    h.submit(queue="b", user="ub", tasks=4, resources="1024 mb, 1 vcores")
    for _ in range(4):
        h.heartbeat("n0000")
    h.submit(queue="a", user="ua2", tasks=1, resources="6144 mb, 1 vcores")
    assert h.heartbeat("n0000") == []  # reserved
    assert h.shares()["queues"]["root.a"]["reserved"]["memory"] == 6144
    h.submit(queue="a", user="ua", tasks=4, resources="1024 mb, 1 vcores")
    late_b = h.submit(queue="b", user="ub2", tasks=4, resources="1024 mb, 1 vcores")
    got = h.heartbeat("n0001")
    assert [(x.job, x.resources.memory) for x in got] == [(late_b.id, 1024)]
