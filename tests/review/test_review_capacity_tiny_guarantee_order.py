"""Review (session 16): a queue whose guarantee is below the minimum allocation is ordered by
its use over the minimum allocation.

``CSQueueUtils.updateUsedCapacity`` divides a queue's use by max(its guarantee, the minimum
allocation) ("make queueGuaranteed >= minimum_allocation to avoid divided by 0"), and
``PriorityUtilizationQueueOrderingPolicy`` sorts siblings by that used capacity.
``yarn_capacity`` divided by the guarantee alone, so a tiny queue running one container looked
many times over its guarantee and was offered nodes after queues Hadoop serves after it."""

from __future__ import annotations

from corescheduler.testing import ClusterHarness


def _prop(k: str, v: str) -> str:
    return f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"


XML = ("<configuration>" + _prop("root.queues", "x,y,z") + _prop("root.x.capacity", "2")
       + _prop("root.y.capacity", "49") + _prop("root.z.capacity", "49")
       + "".join(_prop(f"root.{q}.maximum-capacity", "100") + _prop(f"root.{q}.user-limit-factor", "2")
                 for q in "xyz")
       + _prop("per-node-heartbeat.maximum-container-assignments", "1") + "</configuration>")


def test_a_queue_below_the_minimum_allocation_is_ordered_by_it() -> None:
    """Three 8 GB nodes (24 GB), the minimum allocation 1 GB.  x's guarantee is 2 % = 491 MB, y's
    49 % = 12042 MB.  x runs 1 GB: used capacity 1024 ÷ max(491, 1024) = 1.0 (it was 2.09);
    y runs 13 GB: 1.105.  Both at or over their guarantees, the less used first: a free node
    goes to x's waiting app, not y's."""
    h = ClusterHarness(racks=1, nodes_per_rack=3, node_resources="8192 mb, 16 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}}, allocations=XML)
    x = h.submit(queue="x", user="ux", tasks=1, resources="1024 mb, 1 vcores")
    y = h.submit(queue="y", user="uy", tasks=13, resources="1024 mb, 1 vcores")
    for _ in range(10):
        for node in ("n0000", "n0001"):
            h.heartbeat(node)
    assert (h.running(x), h.running(y)) == (1, 13)
    late_x = h.submit(queue="x", user="vx", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="y", user="vy", tasks=1, resources="1024 mb, 1 vcores")
    got = h.heartbeat("n0002")
    assert [a.job for a in got] == [late_x.id]
