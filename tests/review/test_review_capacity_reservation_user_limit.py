"""Review (session 15): a reservation ``yarn_capacity`` asked for stays on its node after the
app got the container elsewhere with its user over the user limit — the node is held for an
app that may not use it, and a queue under its guarantee cannot use the node's free room.

Hadoop 3.3 counts a reservation in its user's use (``LeafQueue.allocateResource`` runs for a
reserved container too: ``UsersManager.updateUserResourceUsage``), and with
``reservationsContinueLooking`` (the default) ``LeafQueue.canAssignToUser`` lets the app
allocate elsewhere only by giving a reservation back (``amountNeededUnreserve``;
``RegularContainerAllocator.assignContainer`` → ``FiCaSchedulerApp.findNodeToUnreserve``).
Here: u0 (user limit 8 GB: root.a's guarantee) runs 5 GB on n0000 and reserves n0000 (3 GB free)
for its next 5 GB; on n0001 Hadoop allocates it and unreserves n0000 (10 GB used incl. the
reservation > 8 GB; 10 − 5 reserved ≤ 8; 2 GB to unreserve).  Then root.b's 1 GB tasks run on
n0000.  (n0000 used to stay reserved here, and root.b got nothing there.)"""

from __future__ import annotations

from corescheduler.testing import ClusterHarness


def xml(*props: tuple[str, str]) -> str:
    body = "".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                   for k, v in props)
    return f"<configuration>{body}</configuration>"


def test_a_reservation_is_given_back_when_the_app_allocates_elsewhere_over_its_user_limit() -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=xml(("root.queues", "a,b"), ("root.a.capacity", "50"),
                                       ("root.b.capacity", "50"), ("root.a.maximum-capacity", "100")))
    h.submit_app(queue="a", user="u0", tasks=3, resources="5120 mb, 1 vcores")
    first, second = sorted(h.cluster.nodes)
    assert len(h.heartbeat(first)) == 1  # 5 GB on n0000
    assert h.heartbeat(first) == [] and h.cluster.nodes[first].reserved is not None  # 3 GB free: reserved
    assert len(h.heartbeat(second)) == 1  # 5 GB on n0001: u0 at 10 GB, over its 8 GB limit
    other = h.submit_app(queue="b", user="u1", tasks=2, resources="1024 mb, 1 vcores")
    got = h.heartbeat(first)
    assert h.cluster.nodes[first].reserved is None
    assert [a for a in got if a.job == other.id], got
