"""Review (session 16): intra-queue preemption takes a user's limit for *all* users.

``FifoIntraQueuePreemptionPlugin.createTempAppForResCalculation`` gives each user the limit
``LeafQueue.getResourceLimitForAllUsers`` → ``UsersManager.computeUserLimit(…, activeUser
= false)``: the resource divided is the queue's current capacity and the divisor is the
weights of *all* the queue's users (``allUsersTimesWeights``), not the active users' use +
the minimum allocation over the active users' weights (``getResourceLimitForActiveUsers``,
the limit the allocation uses).  ``yarn_capacity`` gave the intra-queue selector the
active-users limit, so a user with nothing pending (not active) was judged against a
much smaller limit and more or less was preempted than Hadoop preempts."""

from __future__ import annotations

from corescheduler_plugins._yarn_capacity_preemption import PREFIX

from corescheduler.testing import ClusterHarness

GB = 1024


def _prop(name: str, value: str) -> str:
    return f"<property><name>{name}</name><value>{value}</value></property>"


def _harness(*extra: tuple[str, str]) -> ClusterHarness:
    c = "yarn.scheduler.capacity."
    xml = ("<configuration>" + _prop(c + "root.queues", "a") + _prop(c + "root.a.capacity", "100")
           + _prop(c + "root.a.minimum-user-limit-percent", "10")
           + _prop(PREFIX + "intra-queue-preemption.enabled", "true")
           + _prop(PREFIX + "intra-queue-preemption.max-allowable-limit", "1.0")
           + _prop(PREFIX + "total_preemption_per_round", "1.0")
           + "".join(_prop(c + k, v) for k, v in extra) + "</configuration>")
    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True,
                            "preemption_interval": 0.0}}
    return ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 20 vcores", config=config,
                          allocations=xml)


def test_a_user_with_nothing_pending_keeps_what_its_all_users_limit_allows() -> None:
    """Queue a is the whole 10 GB node (minimum-user-limit-percent 10, the minimum allocation
    1 GB).  u1's app holds all 10 GB and asks for nothing more; then u2's app asks for 8 × 1 GB.

    Hadoop (``getResourceLimitForAllUsers``): consumed 10 GB is not below the 10 GB capacity,
    so the current capacity is 10 + 1 = 11 GB; two users: max(⌈11 GB ÷ 2⌉, ⌈11 GB × 10 %⌉) =
    5.5 GB, rounded up to 6 GB for each.  Ideal: u1's app (the earlier) 6 GB, u2's app
    min(10 − 6, 8, 6) = 4 GB, all of it from others; u1's app may give 10 − 6 − 1 (userlimit_first's
    minimum allocation) = 3 GB; u1 is over its limit at the same priority, by 10 − 6 = 4 ≥ 3:
    3 GB are taken — three containers, u1 staying above its 6 GB.

    The active-users limit (u2 alone active: max(⌈(0 + 1 GB) ÷ 1⌉, 1.1 GB) → 2 GB) gave u2's
    app an ideal of 2 GB and marked two."""
    h = _harness()
    u1 = h.submit(queue="a", user="u1", tasks=10, resources="1024 mb, 1 vcores")
    for _ in range(10):
        h.heartbeat("n0000")
    assert h.running(u1) == 10
    h.submit(queue="a", user="u2", tasks=8, resources="1024 mb, 1 vcores")
    h.preempt()
    marked = h.shares()["preemption"]["marked"]
    assert len(marked) == 3
    assert {h.task(t).job.id for t in marked} == {u1.id}


def test_the_all_users_limit_counts_the_users_weights() -> None:
    """The same with u1's weight 2 (≤ 100 ÷ 10): all users' weights sum to 3, so the limit is
    ⌈11 GB ÷ 3⌉ = 3755 MB (⌈11264 ÷ 3.0⌉ in floats), rounded up to 4 GB; u1's own is 4 × 2 =
    8 GB, u2's 4 GB.  Ideal: u1's app 8 GB, u2's app min(2, 8, 4) = 2 GB from others; u1's
    app may give 10 − 8 − 1 = 1 GB: one container."""
    h = _harness(("root.a.user-settings.u1.weight", "2"))
    u1 = h.submit(queue="a", user="u1", tasks=10, resources="1024 mb, 1 vcores")
    for _ in range(10):
        h.heartbeat("n0000")
    h.submit(queue="a", user="u2", tasks=8, resources="1024 mb, 1 vcores")
    h.preempt()
    marked = h.shares()["preemption"]["marked"]
    assert len(marked) == 1
    assert {h.task(t).job.id for t in marked} == {u1.id}
