"""More of Hadoop 3.3's Capacity Scheduler unit tests through the public harness (see
test_yarn_capacity_leaf_queue.py for the conventions: the ``TestLeafQueue`` fixture as
tests/data/yarn_capacity/test-leaf-queue.xml, one ``assignContainers`` call is one heartbeat
giving at most one container, a setter is a reload of the file with that value).
"""

from __future__ import annotations

from test_yarn_capacity_leaf_queue import CONFIG, FIXTURE, ONE_A_CALL, used, with_globals, with_values
from test_yarn_capacity_scheduler_rm import setup_queue_configuration

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
    nodes, minimum-user-limit-percent 0
    (``setUserLimit(0)``), user-limit-factor −1 (Hadoop's 1 is set after the queue computed its
    per-user application limit; from a file, 0 % × 1 would refuse every app, as in Hadoop, and
    −1 caps the limit at the queue's maximum, 24 GB, as 1 × its 24 GB guarantee does).  user_0's app_9 takes 10 GB
    (5 × 1 GB on node_0, 5 on node_1).  Three users' apps then ask 4 GB on host_0 (1) and
    anywhere (10 in all; delayed by locality on node_1: min(4 nodes, 10 × (3 − 1) ÷ 4) missed
    opportunities): each user's limit is ⌈(10 GB + 1 GB) ÷ 3⌉ → 4 GB; with a fourth
    user's app 3 GB (⌈11 GB ÷ 4⌉ → 3 GB); nothing is allocated meanwhile."""
    xml = ("<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in (
            ("root.queues", "a"), ("root.a.capacity", "100"), ("root.a.maximum-capacity", "100"),
            ("root.a.minimum-user-limit-percent", "0"), ("root.a.user-limit-factor", "-1"))) + "</configuration>")
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


def rm_harness(allocations: str, nodes: int, node: str) -> ClusterHarness:
    """An RM of ``nodes`` ``MockNM``s (``TestCapacityScheduler``'s RM-level tests: the
    scheduler's defaults, several containers a heartbeat)."""
    return ClusterHarness(racks=1, nodes_per_rack=nodes, node_resources=node, config=CONFIG,
                          allocations=allocations)


def run_until(h: ClusterHarness, done: object, node: str = "n0000", most: int = 50) -> None:
    """``waitContainerAllocated``: heartbeats of ``node`` until ``done()`` (at most ``most``)."""
    for _ in range(most):
        if done():  # type: ignore[operator]
            return
        h.heartbeat(node)
    assert done(), "not allocated"  # type: ignore[operator]


def running(app: object) -> int:
    return sum(1 for t in app.tasks["task"] if t.state == "running")  # type: ignore[attr-defined]


def test_hierarchy_queues_current_limits() -> None:
    """``TestCapacityScheduler.testHierarchyQueuesCurrentLimits``: ``setupQueueConfiguration``
    (a 10.5 % (a1 30, a2 70), b 89.5 % (b1 79.2, b2 0.8, b3 20), leaves' user-limit-factor
    100) on one 100 GB node.  app1 in b1 (1 GB AM, one 1 GB container): its headroom is b1's
    user limit, 100 GB × 0.895 × 0.792 rounded up to 71 GB, less its 2 GB: 69 GB.  app2 in
    b2 takes 41 GB (AM and 5 × 8 GB), app1 one more 1 GB: 100 − 41 − 3 = 56 GB.  app3 in a1
    takes 25 GB (AM and 3 × 8 GB), app1 one more: 100 − 41 − 4 − 25 = 30 GB (b1's current
    limit: what its parents leave it, ``ParentQueue.getResourceLimitsOfChild``)."""
    h = rm_harness(setup_queue_configuration(), nodes=1, node="102400 mb, 200 vcores")
    one = "1024 mb, 1 vcores"

    def headroom(app: object) -> int:
        h.update()
        return int(h.shares()["jobs"][app.id]["headroom"].memory)  # type: ignore[attr-defined]

    app1 = h.submit_app(queue="b1", user="user", am_resources=one, requests=[{"resources": one}])
    run_until(h, lambda: running(app1) == 1)
    assert used(h, "root.b.b1") == 2 * GB
    assert headroom(app1) == 69 * GB
    app2 = h.submit_app(queue="b2", user="user", am_resources=one,
                        requests=[{"resources": "8192 mb, 1 vcores", "count": 5}])
    run_until(h, lambda: running(app2) == 5)
    h.add_requests(app1, [{"resources": one}])
    run_until(h, lambda: running(app1) == 2)
    assert (used(h, "root.b.b2"), used(h, "root.b.b1")) == (41 * GB, 3 * GB)
    assert headroom(app1) == 56 * GB
    app3 = h.submit_app(queue="a1", user="user", am_resources=one,
                        requests=[{"resources": "8192 mb, 1 vcores", "count": 3}])
    run_until(h, lambda: running(app3) == 3)
    h.add_requests(app1, [{"resources": one}])
    run_until(h, lambda: running(app1) == 3)
    assert (used(h, "root.a.a1"), used(h, "root.b.b1")) == (25 * GB, 4 * GB)
    assert headroom(app1) == 30 * GB


def test_parent_queue_max_caps_are_respected() -> None:
    """``TestCapacityScheduler.testParentQueueMaxCapsAreRespected``: a 50 % (maximum 50 %:
    12 GB of one 24 GB node) with a1 and a2 (50 % each, user-limit-factor 100), b 50 %.
    app1 in a1 uses 9 GB (1 GB AM, 2 × 4 GB); app2 in a2 runs its 2 GB AM (a at 11 GB), and
    its 2 GB container is never allocated: it would take a past its maximum."""
    allocations = ("<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in (
            ("root.queues", "a,b"), ("root.a.capacity", "50"), ("root.a.maximum-capacity", "50"),
            ("root.b.capacity", "50"), ("root.a.queues", "a1,a2"), ("root.a.a1.capacity", "50"),
            ("root.a.a1.user-limit-factor", "100"), ("root.a.a2.capacity", "50"),
            ("root.a.a2.user-limit-factor", "100"))) + "</configuration>")
    h = rm_harness(allocations, nodes=1, node="24576 mb, 24 vcores")
    app1 = h.submit_app(queue="a1", user="user", am_resources="1024 mb, 1 vcores",
                        requests=[{"resources": "4096 mb, 1 vcores", "count": 2}])
    run_until(h, lambda: running(app1) == 2)
    app2 = h.submit_app(queue="a2", user="user", am_resources="2048 mb, 1 vcores",
                        requests=[{"resources": "2048 mb, 1 vcores"}])
    run_until(h, lambda: app2.am_running)
    assert (used(h, "root.a.a1"), used(h, "root.a.a2"), used(h, "root.a")) == (9 * GB, 2 * GB, 11 * GB)
    for _ in range(20):
        h.heartbeat("n0000")
    assert running(app2) == 0 and used(h, "root.a") == 11 * GB


def test_am_used_resource() -> None:
    """``TestCapacityScheduler.testAMUsedResource``: an AM asking 50 MB, below the 1 GB minimum
    allocation, is normalized to it: its queue (a1 of ``setupQueueConfiguration``) and its
    user count 1 GB of AM use."""
    h = rm_harness(setup_queue_configuration(), nodes=1, node="4096 mb, 4 vcores")
    app = h.submit_app(queue="a1", user="user_0", am_resources="50 mb, 1 vcores",
                       requests=[{"resources": "1024 mb, 1 vcores"}])
    run_until(h, lambda: app.am_running)
    h.update()
    assert h.shares()["queues"]["root.a.a1"]["am_used"].memory == 1 * GB
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    assert int(cs._user_am["root.a.a1"]["user_0"].memory) == 1 * GB


def multiple_queues(*more: tuple[str, str]) -> str:
    """``TestUtils.getConfigurationWithMultipleQueues``: root.a 10 %, b 20 %, c 70 %, each of
    maximum 100 % and user-limit-factor 100; ``more`` properties after them."""
    props = [("root.queues", "a,b,c")]
    for name, capacity in (("a", "10"), ("b", "20"), ("c", "70")):
        props += [(f"root.{name}.capacity", capacity), (f"root.{name}.maximum-capacity", "100"),
                  (f"root.{name}.user-limit-factor", "100")]
    props += list(more)
    return ("<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in props)
        + "</configuration>")


def live(app: object) -> int:
    """``getLiveContainers().size()``: the app's running containers, its AM's included."""
    return running(app) + (1 if app.am_running else 0)  # type: ignore[attr-defined]


def launch(h: ClusterHarness, queue: str, user: str, am: str, node: str = "n0000") -> object:
    """``MockRM.launchAndRegisterAM``: an app whose AM runs on ``node`` (heartbeats of it) and
    which asks for nothing it can get yet: its placeholder (a container only on a node the
    cluster does not have) keeps it alive until :func:`ask` (``am.allocate``) cancels it."""
    app = h.submit_app(queue=queue, user=user, am_resources=am, requests=[PLACEHOLDER])
    run_until(h, lambda: app.am_running, node=node)
    return app


#: an ask no node can serve (``relax_locality`` false on a node the cluster does not have)
PLACEHOLDER = {"resources": "1024 mb, 1 vcores", "count": 1, "priority": 99, "locations": ["nosuch"],
               "relax_locality": False}


def ask(h: ClusterHarness, app: object, resources: str, count: int, **more: object) -> None:
    """``am.allocate("*", size, count)``; the app's placeholder (:func:`launch`) goes."""
    h.add_requests(app, [{"resources": resources, "count": count, **more},  # type: ignore[arg-type]
                         {**PLACEHOLDER, "count": 0}])


def test_queue_priority_ordering() -> None:
    """``TestContainerAllocation.testQueuePriorityOrdering``: root orders its children by
    ``priority-utilization``, a (10 %, maximum 20 %) priority 3, b (20 %) 2, c (70 %) 1, on one
    100 GB node; an app in each (2 GB AMs) asks 10 × 5 GB, one container a heartbeat.  a gets
    two (12 GB: at its guarantee), then b four (22 GB), then c ten (52 GB), then — all three
    over their guarantees — a one (17 GB, then at its maximum) and b one, by priority."""
    h = rm_harness(multiple_queues(("root.ordering-policy", "priority-utilization"),
                                   ("root.a.maximum-capacity", "20"), ("root.c.priority", "1"),
                                   ("root.b.priority", "2"), ("root.a.priority", "3")),
                   nodes=1, node="102400 mb, 200 vcores")
    apps = [launch(h, q, "user", "2048 mb, 1 vcores") for q in ("a", "b", "c")]
    for app in apps:
        ask(h, app, "5120 mb, 1 vcores", 10)

    def beat(times: int = 1) -> tuple[int, ...]:
        for _ in range(times):
            h.heartbeat("n0000")
        return tuple(live(a) for a in apps)

    assert beat() == (2, 1, 1)
    assert beat() == (3, 1, 1)
    assert beat() == (3, 2, 1)
    assert beat(3) == (3, 5, 1)
    assert beat(10) == (3, 5, 11)
    assert beat(20) == (4, 6, 11)


def test_continuous_reservation_looking_when_used_equals_max() -> None:
    """``TestContainerAllocation.testContinuousReservationLookingWhenUsedEqualsMax``: the
    multiple queues with a's maximum 10 % (10 GB of nm1 10 GB + nm2 90 GB); app1 in a (2 GB AM)
    and app2 in b (1 GB AM) on nm1; app1 asks 2 × 4 GB.  Two nm1 heartbeats: one 4 GB runs, the
    other is reserved (a at 10 GB, its maximum, reservation included).  An nm2 heartbeat
    runs it there and unreserves nm1 (``reservations-continue-look-all-nodes``)."""
    h = ClusterHarness(racks=0, nodes_per_rack=0, config=CONFIG,
                       allocations=multiple_queues(("root.a.maximum-capacity", "10")))
    h.add_node("n0000", "r00", resources="10240 mb, 10 vcores")
    h.add_node("n0001", "r00", resources="92160 mb, 90 vcores")
    app1 = launch(h, "a", "user", "2048 mb, 1 vcores")
    launch(h, "b", "user", "1024 mb, 1 vcores")
    ask(h, app1, "4096 mb, 1 vcores", 2)
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    nodes = h.scheduler.cluster.nodes
    assert live(app1) == 2 and nodes["n0000"].reserved is not None
    h.heartbeat("n0001")
    assert live(app1) == 3 and nodes["n0000"].reserved is None


def test_user_limit_allocation_multiple_containers() -> None:
    """``TestContainerAllocation.testUserLimitAllocationMultipleContainers``: the multiple
    queues, c's minimum-user-limit-percent 50, ``maximum-container-assignments`` −1, one
    1000 GB node h1; user1's and user2's apps in c (2 GB AMs) ask 1000 × 5 GB on h1.  One
    heartbeat fills the node, the two users taking turns by the user limit: app1 101
    containers (AM included), app2 100."""
    h = rm_harness(multiple_queues(("per-node-heartbeat.maximum-container-assignments", "-1"),
                                   ("root.c.minimum-user-limit-percent", "50")),
                   nodes=1, node="1024000 mb, 2000 vcores")
    app1 = launch(h, "c", "user1", "2048 mb, 1 vcores")
    app2 = launch(h, "c", "user2", "2048 mb, 1 vcores")
    for app in (app1, app2):
        ask(h, app, "5120 mb, 1 vcores", 1000, locations=["n0000"])
    h.heartbeat("n0000")
    assert (live(app1), live(app2)) == (101, 100)


def test_allocation_cannot_be_blocked_when_former_queue_reached_its_limit() -> None:
    """``TestContainerAllocation.testAllocationCannotBeBlockedWhenFormerQueueReachedItsLimit``:
    the multiple queues with c (70 %) split into c1 (10 %, maximum 10 %) and c2 (90 %),
    ``DominantResourceCalculator``, two 10 GB, 10-vcore nodes; app1 in c1 and app2 in b run
    1 GB AMs on nm1 and ask one 2 GB container each.  c is served before b (less used) but c1
    is at its maximum: one nm1 heartbeat still gives app2 its container."""
    h = rm_harness(multiple_queues(("root.c.queues", "c1,c2"), ("root.c.c1.capacity", "10"),
                                   ("root.c.c1.maximum-capacity", "10"), ("root.c.c2.capacity", "90"),
                                   ("resource-calculator",
                                    "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator")),
                   nodes=2, node="10240 mb, 10 vcores")
    app1 = launch(h, "c1", "user", "1024 mb, 1 vcores")
    app2 = launch(h, "b", "user", "1024 mb, 1 vcores")
    ask(h, app1, "2048 mb, 1 vcores", 1)
    ask(h, app2, "2048 mb, 1 vcores", 1)
    h.heartbeat("n0000")
    assert (live(app1), live(app2)) == (1, 2)


def test_active_users_with_only_pending_apps() -> None:
    """``TestContainerAllocation.testActiveUsersWithOnlyPendingApps``: default (100 %) with
    maximum-am-resource-percent 0.2 on one 8 GB node; u1 and u2 run 1 GB AMs and ask 50 × 1 GB,
    u3's and u4's apps wait for their AMs (the AM limit).  Ten heartbeats: four active users
    (``UsersManager.getNumActiveUsers``), two of them with only pending apps."""
    h = rm_harness("<configuration><property><name>yarn.scheduler.capacity.root.queues</name><value>default"
                   "</value></property><property><name>yarn.scheduler.capacity.root.default.capacity</name>"
                   "<value>100</value></property><property><name>yarn.scheduler.capacity.root.default."
                   "maximum-am-resource-percent</name><value>0.2</value></property></configuration>",
                   nodes=1, node="8192 mb, 8 vcores")
    one = "1024 mb, 1 vcores"
    apps = [launch(h, "default", u, one) for u in ("u1", "u2")]
    apps += [h.submit_app(queue="default", user=u, am_resources=one, requests=[{"resources": one, "count": 50}])
             for u in ("u3", "u4")]
    for app in apps[:2]:
        ask(h, app, one, 50)
    for _ in range(10):
        h.heartbeat("n0000")
    assert [a.am_running for a in apps] == [True, True, False, False]
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    assert cs._active(cs._live["root.default"])[0] == 4


def xml_of(props: dict[str, str]) -> str:
    return "<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in props.items()
    ) + "</configuration>"


DRF = "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"


def test_head_room_calculation_with_drc() -> None:
    """``TestCapacityScheduler.testHeadRoomCalculationWithDRC``: ``DominantResourceCalculator``,
    root.default with user-limit-factor 0.8, two nodes of 10 GB and 10 vcores.  user1's app1
    runs 10 GB, 1 vcore: headroom 20 × 0.8 − 10 = 6 GB and 16 − 1 = 15 vcores.  user2's app2
    runs 1 GB, 1 vcore: its user limit leaves 15 GB, 15 vcores, the queue 20 − 11 = 9 GB: 9 GB
    and 15 vcores."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="10240 mb, 10 vcores",
                       config={**CONFIG, "cluster": {"maximum_allocation": "10240 mb, 10 vcores"}},
                       allocations=xml_of({"resource-calculator": DRF, "root.queues": "default",
                                           "root.default.capacity": "100", "root.default.user-limit-factor": "0.8"}))
    app1 = h.submit(queue="default", user="user1", tasks=1, resources="10240 mb, 1 vcores")

    def headroom(app: object) -> tuple[int, int]:
        h.update()
        r = h.shares()["jobs"][app.id]["headroom"]  # type: ignore[attr-defined]
        return int(r.memory), int(r.vcores)

    h.heartbeat("n0000")
    h.heartbeat("n0001")
    assert headroom(app1) == (6 * GB, 15)
    app2 = h.submit(queue="default", user="user2", tasks=1, resources="1024 mb, 1 vcores")  # asks only now
    h.heartbeat("n0000")
    h.heartbeat("n0001")
    assert used(h, app2.id) == 1 * GB
    assert headroom(app2) == (9 * GB, 15)


def test_am_limit_double() -> None:
    """``TestCapacityScheduler.testAMLimitDouble``: ``DominantResourceCalculator``, minimum
    allocation 512 MB and 1 vcore, four 10 GB, 10-vcore nodes: root.default's AM limit is
    0.1 of 40 GB and 40 vcores, normalized up: 4096 MB, 4 vcores."""
    h = ClusterHarness(racks=1, nodes_per_rack=4, node_resources="10240 mb, 10 vcores",
                       config={**CONFIG, "cluster": {"minimum_allocation": "512 mb, 1 vcores"}},
                       allocations=xml_of({"resource-calculator": DRF, "root.queues": "default",
                                           "root.default.capacity": "100"}))
    h.update()
    limit = h.shares()["queues"]["root.default"]["am_limit"]
    assert (int(limit.memory), int(limit.vcores)) == (4096, 4)


def test_app_attempt_locality_statistics() -> None:
    """``TestCapacityScheduler.testAppAttemptLocalityStatistics``: the multiple queues, one
    200 GB node h1; an app in a (AM off-switch) asks at priority 1 for two 1 GB containers,
    one on h1 and one on its rack.  The first heartbeat runs the h1 one NODE_LOCAL (the rack
    one waits: one missed opportunity is not past min(1 node, node-locality-delay 40)); the
    second runs the other RACK_LOCAL."""
    h = rm_harness(multiple_queues(), nodes=1, node="204800 mb, 200 vcores")
    app = launch(h, "a", "user", "1024 mb, 1 vcores")
    h.add_requests(app, [{"resources": "1024 mb, 1 vcores", "locations": ["n0000"], "priority": 1},
                         {"resources": "1024 mb, 1 vcores", "locations": ["/r00"], "priority": 1},
                         {**PLACEHOLDER, "count": 0}])
    assert [a.locality for a in h.heartbeat("n0000")] == ["node"]
    assert [a.locality for a in h.heartbeat("n0000")] == ["rack"]


def test_priority_with_pending_applications() -> None:
    """``TestApplicationPriority.testPriorityWithPendingApplications``: cluster maximum priority
    (here 2: the names' scale, ``VERY_LOW`` −2 … ``VERY_HIGH`` 2), one 8 GB node, root.default's
    AM limit 0.1 × 8 GB normalized up to 1 GB.  app1 (Hadoop's 5; here ``VERY_LOW``) runs its
    AM and 7 × 1 GB; app2 (7; ``HIGH``), app3 (8; ``VERY_HIGH``) and app4 (6; ``NORMAL``, 0)
    wait for the AM limit.  app1 killed, app3 — the highest priority pending — starts its AM:
    1 GB used, 7 GB free (``FifoOrderingPolicyForPendingApps``)."""
    h = rm_harness(xml_of({"root.queues": "default", "root.default.capacity": "100"}).replace(
        "</configuration>", "<property><name>yarn.cluster.max-application-priority</name><value>2</value>"
                            "</property></configuration>"), nodes=1, node="8192 mb, 8 vcores")
    one = "1024 mb, 1 vcores"
    app1 = h.submit(queue="default", user="user", tasks=7, resources=one, am_resources=one, priority="VERY_LOW")
    for _ in range(8):
        h.heartbeat("n0000")
    node = h.scheduler.cluster.nodes["n0000"]
    assert (live(app1), int(node.used.memory)) == (8, 8 * GB)
    apps = {p: h.submit(queue="default", user="user", tasks=1, resources=one, am_resources=one, priority=p)
            for p in ("HIGH", "VERY_HIGH", "NORMAL")}
    h.kill_app(app1)
    h.heartbeat("n0000")
    assert [a.am_running for a in apps.values()] == [False, True, False]
    assert int(node.used.memory) == 1 * GB


def test_size_based_weight_not_affect_app_activation() -> None:
    """``TestFairOrderingPolicy.testSizeBasedWeightNotAffectAppActivation``: root.default
    ordered ``fair`` with ``fair.enable-size-based-weight``, maximum-am-resource-percent 0.1 on
    one 10 GB node (an AM limit of 1 GB); four apps of 1 GB AMs: one runs, three wait, and a
    heartbeat starts no more."""
    h = rm_harness(xml_of({"root.queues": "default", "root.default.capacity": "100",
                           "root.default.ordering-policy": "fair",
                           "root.default.ordering-policy.fair.enable-size-based-weight": "true",
                           "root.default.maximum-am-resource-percent": "0.1"}), nodes=1, node="10240 mb, 10 vcores")
    one = "1024 mb, 1 vcores"
    apps = [h.submit(queue="default", user="user", tasks=1, resources=one, am_resources=one) for _ in range(4)]
    h.heartbeat("n0000")
    assert sum(a.am_running for a in apps) == 1
    h.heartbeat("n0000")
    assert sum(a.am_running for a in apps) == 1


#: MockRM's scheduler: Hadoop's shipped capacity-scheduler.xml (root.default, 100 %)
DEFAULT_ONLY = xml_of({"root.queues": "default", "root.default.capacity": "100"})


def reserved_on_n0000(h: ClusterHarness) -> tuple[object, object, int, int, int]:
    """Two 8 GB nodes; app1 and app2 (1 GB AMs on nm1) ask 4 GB each; two nm1 heartbeats: app1's
    runs, app2's is reserved (``TestContainerAllocation``'s common start).  Returns the apps,
    nm1's unallocated memory, root's use (reservation included) and its reservation."""
    app1 = launch(h, "default", "user", "1024 mb, 1 vcores")
    app2 = launch(h, "default", "user", "1024 mb, 1 vcores")
    ask(h, app1, "4096 mb, 1 vcores", 1)
    ask(h, app2, "4096 mb, 1 vcores", 1)
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    return (app1, app2, *root_state(h))


def cancel(h: ClusterHarness, app: object) -> None:
    """``am.allocate("*", 4 * GB, 0)``: the app's 4 GB ask cancelled; it lives on (its AM runs)
    by its placeholder (:func:`launch`)."""
    h.add_requests(app, [{"resources": "4096 mb, 1 vcores", "count": 0}, PLACEHOLDER])  # type: ignore[arg-type]


def root_state(h: ClusterHarness) -> tuple[int, int, int]:
    h.update()
    node = h.scheduler.cluster.nodes["n0000"]
    root = h.shares()["queues"]["root"]
    return (int(node.capacity.memory - node.used.memory) // GB, int(root["used"].memory) // GB,
            int(root["reserved"].memory) // GB)


def test_excess_reservation_will_be_unreserved() -> None:
    """``TestContainerAllocation.testExcessReservationWillBeUnreserved``: after app2's 4 GB is
    reserved on nm1 (2 GB left; root uses 10 GB, 4 reserved), app2 cancels its ask: the next
    nm1 heartbeat drops the reservation (6 GB used, none reserved)."""
    h = rm_harness(DEFAULT_ONLY, nodes=2, node="8192 mb, 8 vcores")
    app1, app2, *state = reserved_on_n0000(h)
    assert (live(app1), live(app2), *state) == (2, 1, 2, 10, 4)
    assert h.scheduler.cluster.nodes["n0000"].reserved is not None
    cancel(h, app2)
    h.heartbeat("n0000")
    assert root_state(h) == (2, 6, 0)
    assert h.scheduler.cluster.nodes["n0000"].reserved is None


def test_allocation_for_reserved_container() -> None:
    """``TestContainerAllocation.testAllocationForReservedContainer``: after app2's 4 GB is
    reserved on nm1, app1's 4 GB container is killed and its ask cancelled: the next nm1
    heartbeat runs app2's reserved container there (app1 1 container, app2 2; 2 GB left, 6 GB
    used, nothing reserved)."""
    h = rm_harness(DEFAULT_ONLY, nodes=2, node="8192 mb, 8 vcores")
    app1, app2, *state = reserved_on_n0000(h)
    assert (live(app1), live(app2), *state) == (2, 1, 2, 10, 4)
    for task in [t for t in h.scheduler._running_tasks.values() if t.job is app1 and not t.is_am]:
        h.kill(task)  # markContainerForKillable
    cancel(h, app1)
    h.heartbeat("n0000")
    assert (live(app1), live(app2), *root_state(h)) == (1, 2, 2, 6, 0)
    assert h.scheduler.cluster.nodes["n0000"].reserved is None


def test_reserved_container_metrics_on_decommisioned_node() -> None:
    """``TestContainerAllocation.testReservedContainerMetricsOnDecommisionedNode``: after app2's
    4 GB is reserved on nm1, nm1 is removed: both apps lose their containers there (their AMs
    and app1's 4 GB) and the reservation goes: root uses and reserves nothing."""
    h = rm_harness(DEFAULT_ONLY, nodes=2, node="8192 mb, 8 vcores")
    app1, app2, *state = reserved_on_n0000(h)
    assert (live(app1), live(app2), *state) == (2, 1, 2, 10, 4)
    h.remove_node("n0000")
    h.update()
    root = h.shares()["queues"]["root"]
    assert (live(app1), live(app2)) == (0, 0)
    assert (int(root["used"].memory), int(root["reserved"].memory)) == (0, 0)


def test_assign_multiple_offswitch_containers() -> None:
    """``TestContainerAllocation.testAssignMultipleOffswitchContainers``: one 80 GB node; an app
    (1 GB AM) asks 5 × 1 GB anywhere: a heartbeat gives one (off-switch, the default limit of
    1); with ``per-node-heartbeat.maximum-offswitch-assignments`` 3 (a reload) the next gives
    three: 5 containers with the AM."""
    h = rm_harness(DEFAULT_ONLY, nodes=1, node="81920 mb, 80 vcores")
    app = launch(h, "default", "user", "1024 mb, 1 vcores")
    ask(h, app, "1024 mb, 1 vcores", 5)
    h.heartbeat("n0000")
    assert live(app) == 2
    h.set_allocations(DEFAULT_ONLY.replace("</configuration>", "<property><name>yarn.scheduler.capacity.per-node-"
                                           "heartbeat.maximum-offswitch-assignments</name><value>3</value></property>"
                                           "</configuration>"))
    h.heartbeat("n0000")
    assert live(app) == 5
