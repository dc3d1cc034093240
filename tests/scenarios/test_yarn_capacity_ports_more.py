"""More of Hadoop 3.3's Capacity Scheduler unit tests through the public harness (see
test_yarn_capacity_leaf_queue.py for the conventions: the ``TestLeafQueue`` fixture as
tests/data/yarn_capacity/test-leaf-queue.xml, one ``assignContainers`` call is one heartbeat
giving at most one container, a setter is a reload of the file with that value).
"""

from __future__ import annotations

from test_yarn_capacity_leaf_queue import CONFIG, FIXTURE, ONE_A_CALL, used, with_globals, with_values

from corescheduler.testing import ClusterHarness

GB = 1024


def harness(xml: str, nodes: int, node: str = "8192 mb, 16 vcores") -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=nodes, node_resources=node, config=CONFIG,
                          allocations=with_globals(xml, **ONE_A_CALL))


def test_decimal_user_limits() -> None:
    """``TestLeafQueue.testDecimalUserLimits``: queue a (maximum 100 %), minimum-user-limit-percent
    50.1, user-limit-factor 2, two 8 GB nodes; user_0's app_0 asks 2 × 3 GB, user_1's app_1
    2 × 1 GB.  app_0 3 GB; app_0 again (the 50.1 % limit is not reached): 6 GB; then app_1
    1 GB on node_1: 7 GB.  user_0 then asks nothing more: one active user."""
    h = harness(with_values(FIXTURE, a__maximum_capacity="100", a__minimum_user_limit_percent="50.1",
                            a__user_limit_factor="2"), nodes=2)
    app_0 = h.submit(queue="a", user="user_0", tasks=2, resources="3072 mb, 1 vcores")
    app_1 = h.submit(queue="a", user="user_1", tasks=2, resources="1024 mb, 1 vcores")
    steps = []
    for node in ("n0000", "n0000", "n0001"):
        h.heartbeat(node)
        steps.append((used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)))
    assert steps == [(3 * GB, 3 * GB, 0), (6 * GB, 6 * GB, 0), (7 * GB, 6 * GB, 1 * GB)]
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    queue = h.scheduler.queues["root.newroot.a"] if hasattr(h.scheduler, "queues") else None
    del queue, cs


def test_disabled_user_limit_factor() -> None:
    """``TestLeafQueue.testDisabledUserLimitFactor``: queue a (maximum 100 %), user-limit-factor 1,
    minimum-user-limit-percent 50, two 8 GB nodes; user0's app0 asks 2 × 3 GB, user1's app1
    2 × 1 GB.  app0 3 GB; app1 1 GB (user0 is over its limit); with user-limit-factor −1
    (disabled: the queue's maximum) app0 gets its second 3 GB on node1: 7 GB."""
    xml = with_values(FIXTURE, a__maximum_capacity="100", a__minimum_user_limit_percent="50",
                      a__user_limit_factor="1")
    h = harness(xml, nodes=2)
    app0 = h.submit(queue="a", user="user0", tasks=2, resources="3072 mb, 1 vcores")
    app1 = h.submit(queue="a", user="user1", tasks=2, resources="1024 mb, 1 vcores")

    def step(node: str) -> tuple[int, int, int]:
        h.heartbeat(node)
        return used(h, "root.newroot.a"), used(h, app0.id), used(h, app1.id)

    assert step("n0000") == (3 * GB, 3 * GB, 0)
    assert step("n0000") == (4 * GB, 3 * GB, 1 * GB)
    h.set_allocations(with_globals(with_values(xml, a__user_limit_factor="-1"), **ONE_A_CALL))
    assert step("n0001") == (7 * GB, 6 * GB, 1 * GB)


def test_user_limit_cache_active_users_changed() -> None:
    """``TestLeafQueue.testUserLimitCacheActiveUsersChanged``: one queue a (100 %) on four 6 GB
    nodes, minimum-user-limit-percent 1 (Hadoop sets 0 with ``setUserLimit``; the file takes a percent in (0, 100]: the limits of these steps are the same), user-limit-factor 1.  user_0's app_9 takes 10 GB
    (5 × 1 GB on node_0, 5 on node_1).  Three users' apps then ask 4 GB on host_0 (1) and
    anywhere (10 in all; delayed by locality on node_1: min(4 nodes, 10 × (3 − 1) ÷ 4) missed
    opportunities): each user's limit is ⌈(10 GB + 1 GB) ÷ 3⌉ → 4 GB; with a fourth
    user's app 3 GB (⌈11 GB ÷ 4⌉ → 3 GB); nothing is allocated meanwhile."""
    xml = ("<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in (
            ("root.queues", "a"), ("root.a.capacity", "100"), ("root.a.maximum-capacity", "100"),
            ("root.a.minimum-user-limit-percent", "1"), ("root.a.user-limit-factor", "1"))) + "</configuration>")
    h = harness(xml, nodes=4, node="6144 mb, 16 vcores")
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    app_9 = h.submit_app(queue="a", user="user_0", requests=[
        {"resources": "1024 mb, 1 vcores", "count": 5, "locations": ["n0000"], "priority": 1}])
    for _ in range(5):
        h.heartbeat("n0000")
    h.add_requests(app_9, [{"resources": "1024 mb, 1 vcores", "count": 5, "locations": ["n0001"], "priority": 1}])
    for _ in range(5):
        h.heartbeat("n0001")
    assert used(h, "root.a") == 10 * GB and used(h, app_9.id) == 10 * GB
    asks = [{"resources": "4096 mb, 1 vcores", "count": 1, "locations": ["n0000"], "priority": 1},
            {"resources": "4096 mb, 1 vcores", "count": 9, "priority": 1}]  # host_0 1, rack 1, ANY 10
    apps = [h.submit_app(queue="a", user=user, requests=asks) for user in ("user_0", "user_1", "user_2")]
    h.heartbeat("n0001")
    assert used(h, "root.a") == 10 * GB
    assert [int(cs.user_limit(a).memory) for a in apps] == [4 * GB] * 3
    apps.append(h.submit_app(queue="a", user="user_3", requests=asks))
    h.heartbeat("n0001")
    assert used(h, "root.a") == 10 * GB
    assert [int(cs.user_limit(a).memory) for a in apps] == [3 * GB] * 4
