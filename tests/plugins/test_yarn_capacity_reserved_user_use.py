"""A user's reserved containers under ``yarn_capacity`` (Hadoop 3.3): they count in the user's
use, both for the user limit itself and for the check against it.

* ``LeafQueue.apply`` calls ``allocateResource`` for a reservation as for an allocation, so
  ``UsersManager.updateUserResourceUsage`` adds the reserved container to ``User.getUsed``.
  That use feeds the usage ratio (the limit's ``consumed``) and the active users' use in
  ``UsersManager.computeUserLimit``.
* ``LeafQueue.canAssignToUser`` compares that use, reservations included, with the limit.  A
  user over the limit gets nothing, unless continue-looking is on and its use less the app's
  own reservations fits: then the app must first give back a reservation of at least
  ``used − limit`` (``ResourceLimits.setAmountNeededUnreserve``, taken up by
  ``RegularContainerAllocator.assignContainer``).
"""

from __future__ import annotations

from typing import Any

from corescheduler.testing import ClusterHarness

GB = 1024
DRF = "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"


def xml(*props: tuple[str, str]) -> str:
    body = "".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                   for k, v in props)
    return f"<configuration>{body}</configuration>"


def policy(h: ClusterHarness) -> Any:
    return h.scheduler.plugins.share_policy("yarn_capacity").policy


def two_queues(*extra: tuple[str, str], node: str = "8192 mb, 8 vcores", **config: Any) -> ClusterHarness:
    """root.a and root.b, 50 % each, root.a up to 100 %, on two nodes."""
    return ClusterHarness(racks=1, nodes_per_rack=2, node_resources=node,
                          config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                                "pool_resolver": "yarn_capacity"}, **config},
                          allocations=xml(("root.queues", "a,b"), ("root.a.capacity", "50"),
                                          ("root.b.capacity", "50"), ("root.a.maximum-capacity", "100"), *extra))


def test_a_reservation_raises_the_queue_wide_user_limit_by_what_it_adds_to_the_use() -> None:
    """``DefaultResourceCalculator``: root.a's guarantee is 8 GB, user-limit-factor 2.  u0 runs
    5 GB on n0000 and reserves it for 5 GB more.  Counting the reservation, consumed is
    10 GB, past the guarantee, so the current capacity is 10 + 1 GB.  The limit is then
    max(⌈(10 + 1 GB) ÷ 1 user⌉, 11 GB × 100 %) = 11 GB, capped at 2 × 8 GB.  Without the
    reservation it would be 8 GB (the guarantee)."""
    h = two_queues(("root.a.user-limit-factor", "2"))
    job = h.submit_app(queue="a", user="u0", tasks=3, resources="5120 mb, 1 vcores")
    assert len(h.heartbeat("n0000")) == 1
    assert policy(h).user_limit(h.job(job)).memory == 8 * GB  # 5 GB used: the guarantee
    assert h.heartbeat("n0000") == [] and h.cluster.nodes["n0000"].reserved is not None
    assert policy(h).user_limit(h.job(job)).memory == 11 * GB


def test_drf_user_limits_follow_the_usage_ratio_with_the_reservation() -> None:
    """Hadoop's numbers for ``TestLeafQueue.testDRFUserLimits``, step by step.  The setup is
    queue b (80 % of (16 GB, 200 vcores) = (13107 MB, 160 vcores), maximum 100 %,
    minimum-user-limit-percent 50, user-limit-factor 2, continue-looking off).  user_0 runs two
    (1 GB, 40 vcores) containers on node 0 and reserves it for a third, so its use is
    (3 GB, 120) = 0.6.  user_1's (2 GB, 10) containers then go to node 1.  At each step the
    limit is ``computeUserLimit``'s:
    * usage ratio 0.6 + 0.125 k, with the reservation counted;
    * consumed = the cluster × the ratio, rounded up to (1 GB, 1);
    * current = the guarantee while consumed is below it, else consumed + (1 GB, 1);
    * limit = the larger (by dominant share) of ⌈(active use + (1 GB, 1)) ÷ 2⌉ and ⌈current × 50 %⌉,
      rounded up.
    Without the reservation in the use, the last limit would be (8 GB, 91) = 0.5, and user_0
    (0.6 with its reservation) would stay over it."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 100 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"},
                               "cluster": {"minimum_allocation": "1024 mb, 1 vcores",
                                           "maximum_allocation": "16384 mb, 100 vcores"}},
                       allocations=xml(("resource-calculator", DRF), ("reservations-continue-look-all-nodes", "false"),
                                       ("root.queues", "a,b"), ("root.a.capacity", "20"), ("root.b.capacity", "80"),
                                       ("root.b.maximum-capacity", "100"), ("root.b.minimum-user-limit-percent", "50"),
                                       ("root.b.user-limit-factor", "2")))
    app0 = h.submit_app(queue="b", user="user_0", requests=[
        {"resources": "1024 mb, 40 vcores", "count": 10, "priority": 1}])
    app1 = h.submit_app(queue="b", user="user_1", requests=[
        {"resources": "2048 mb, 10 vcores", "count": 10, "priority": 1}])
    p = policy(h)

    def limit() -> tuple[int, int]:
        got = p.user_limit(h.job(app0))
        assert got == p.user_limit(h.job(app1))  # one queue-wide limit (no weights)
        return got.memory, got.vcores

    assert len(h.heartbeat("n0000")) == 1 and len(h.heartbeat("n0000")) == 1
    assert limit() == (7 * GB, 80)  # 0.4: (6554, 80) rounded up
    assert h.heartbeat("n0000") == [] and h.cluster.nodes["n0000"].reserved is not None
    assert limit() == (7 * GB, 80)  # ratio 0.6: consumed (10 GB, 121) is below the guarantee
    steps = []
    for _ in range(5):
        got = h.heartbeat("n0001")
        assert all(a.job == app1.id for a in got)  # user_0 is over its limit, its reservation counted
        steps.append((len(got), limit()))
    assert steps == [(1, (7 * GB, 80)),  # ratio 0.725
                     (1, (8 * GB, 86)),  # 0.85: current (15 GB, 172) in Java floats, 171 exact: 86 either way
                     (1, (9 * GB, 98)),  # 0.975: current (17 GB, 197)
                     (1, (10 * GB, 111)),  # 1.1: current (19 GB, 222); user_0's 0.6 is within 0.625
                     (0, (10 * GB, 111))]  # node 1: no memory free, not scheduled on
    assert p._user_unreserve(p._live["root.b"], h.job(app0), {}) is None  # within it


def test_over_its_limit_with_its_reservation_a_user_gets_nothing_without_continue_looking() -> None:
    """Continue-looking off: u0 (limit 8 GB, root.a's guarantee) runs 5 GB and holds a 5 GB
    reservation on n0000, so its use is 10 GB > 8 GB.  ``canAssignToUser`` refuses it on
    n0001, where its next 5 GB would fit.  (It used to get it, the reservation not counted.)"""
    h = two_queues(("reservations-continue-look-all-nodes", "false"))
    job = h.submit_app(queue="a", user="u0", tasks=3, resources="5120 mb, 1 vcores")
    assert len(h.heartbeat("n0000")) == 1
    assert h.heartbeat("n0000") == [] and h.cluster.nodes["n0000"].reserved is not None
    assert h.heartbeat("n0001") == []
    assert h.cluster.nodes["n0000"].reserved is not None and int(h.job(job).usage.memory) == 5 * GB


def test_an_app_cannot_give_back_a_reservation_another_app_of_its_user_holds() -> None:
    """Continue-looking on: u0's app A runs 5 GB on n0000 and reserves it for 5 GB more.  u0's
    use is 10 GB, over its 8 GB limit.  On n0001 (4 GB free, root.b's 4 × 1 GB there) A's 5 GB
    does not fit, and A may not reserve more while over its limit.  u0's app B asks for 1 GB
    but holds no reservation: its use less B's reservations (10 GB) is still over the limit,
    so ``canAssignToUser`` refuses it.  Only A could unreserve."""
    h = two_queues()
    other = h.submit_app(queue="b", user="u1", tasks=4, resources="1024 mb, 1 vcores")
    for _ in range(4):
        h.heartbeat("n0001")
    assert int(h.job(other).usage.memory) == 4 * GB
    a = h.submit_app(queue="a", user="u0", tasks=3, resources="5120 mb, 1 vcores")
    assert len(h.heartbeat("n0000")) == 1
    assert h.heartbeat("n0000") == [] and h.cluster.nodes["n0000"].reserved is not None
    b = h.submit_app(queue="a", user="u0", tasks=2, resources="1024 mb, 1 vcores")
    assert policy(h).user_limit(h.job(b)).memory == 8 * GB
    assert h.heartbeat("n0001") == []
    assert h.cluster.nodes["n0001"].reserved is None
    reserved = h.cluster.nodes["n0000"].reserved
    assert reserved is not None and reserved.job.id == a.id
    assert int(h.job(b).usage.memory) == 0


def test_what_preemption_counts_a_user_as_still_able_to_get_leaves_out_its_reservations() -> None:
    """``LeafQueue.getTotalPendingResourcesConsideringUserLimit``: a user's pending counts up to
    its user limit less ``User.getUsed``, which holds its reservations.  u0 runs 5 GB and
    reserves 5 GB against an 8 GB limit: it may get nothing more (8 − 10 GB, at least 0), so
    root.a's pending for preemption is 0, not 3 GB of its 10 GB asked."""
    h = two_queues()
    h.submit_app(queue="a", user="u0", tasks=3, resources="5120 mb, 1 vcores")
    assert len(h.heartbeat("n0000")) == 1
    assert h.heartbeat("n0000") == [] and h.cluster.nodes["n0000"].reserved is not None
    p = policy(h)
    assert p._pending_for_preemption(p._live["root.a"]).memory == 0
