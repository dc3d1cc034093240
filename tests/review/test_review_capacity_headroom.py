"""Review: ``LeafQueue.getHeadroom`` takes the queue's *current* limit — what its parent leaves
it (``ParentQueue.getResourceLimitsOfChild``), at most its maximum — not its maximum alone."""

from __future__ import annotations

from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness


def xml(props: list[tuple[str, str]]) -> str:
    body = "".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                   for k, v in props)
    return f"<configuration>{body}</configuration>"


def test_a_siblings_use_under_a_capped_parent_lowers_the_headroom() -> None:
    """root.p (50 %, maximum 50 % of 16 GB: 8 GB) has x and y (half each); y uses 6 GB, so x's
    current limit is 8 − 6 = 2 GB: u0's headroom in x is 2 GB (it was 4 GB, its user limit,
    from x's maximum of 8 GB) although the cluster has 10 GB free."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=xml([("root.queues", "p,q"), ("root.p.capacity", "50"), ("root.q.capacity", "50"),
                                        ("root.p.maximum-capacity", "50"), ("root.p.queues", "x,y"),
                                        ("root.p.x.capacity", "50"), ("root.p.y.capacity", "50"),
                                        ("root.p.y.user-limit-factor", "4")]))
    y = h.submit_app(queue="y", user="u1", tasks=6, resources="1024 mb, 1 vcores")
    for _ in range(6):
        for node in sorted(h.cluster.nodes):
            h.heartbeat(node)
    assert y.usage == Resources(6144, 6)
    x = h.submit_app(queue="x", user="u0", tasks=1, resources="1024 mb, 1 vcores")
    policy = h.scheduler.plugins.share_policy("yarn_capacity").policy
    assert policy.user_limit(x) == Resources(4096, 4)
    assert policy.headroom(x) == Resources(2048, 2)
