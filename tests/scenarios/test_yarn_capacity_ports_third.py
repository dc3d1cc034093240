"""A third batch of Hadoop 3.3's Capacity Scheduler unit tests through the public harness
(``TestApplicationLimits``, ``TestContainerAllocation``, ``TestLeafQueue``; the conventions of
test_yarn_capacity_leaf_queue.py and test_yarn_capacity_ports_more.py: a ``MockRM`` is a
harness with the scheduler's defaults, ``launchAndRegisterAM`` is :func:`launch`,
``am.allocate`` is :func:`ask`)."""

from __future__ import annotations

import pytest
from test_yarn_capacity_leaf_queue import CONFIG, FIXTURE, ONE_A_CALL, with_globals, with_values
from test_yarn_capacity_ports_more import DRF, PLACEHOLDER, ask, launch, live, xml_of
from test_yarn_capacity_scheduler_rm import setup_queue_configuration

from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness, SubmissionRejected

GB = 1024


def reserved(h: ClusterHarness, app: object) -> list[str]:
    """``getReservedContainers``: the nodes ``app`` holds reserved."""
    return sorted(name for name, node in h.scheduler.cluster.nodes.items()
                  if node.reserved is not None and node.reserved.job is h.job(app))  # type: ignore[arg-type]


def test_am_resource_limit_with_drc_and_full_parent() -> None:
    """``TestApplicationLimits.testAMResourceLimitWithDRCAndFullParent``: under
    ``DominantResourceCalculator`` a 100 GB, 1000-vcore cluster; a 30 % (maximum-am-resource-percent
    0.3), b 70 %.  b has borrowed almost all of a's share: it uses 99 GB and 505 vcores, so a's
    current limit is <1 GB, 495 vcores> — vcores dominant, above a's guarantee by the dominant
    share, below it in memory.  a's AM limit must not fall below 0.3 × its guarantee <30 GB, 300>
    for any type: ``calculateAndGetAMResourceLimitPerPartition`` uses the guarantee when it does
    not fit (``Resources.fitsIn``, every type) in the current limit: <9 GB, 90 vcores>.  (Hadoop's
    test sets a's limit directly; here b's app takes it, with b's user-limit-factor raised so one
    user may.)"""
    allocations = xml_of({"resource-calculator": DRF, "root.queues": "a,b", "root.a.capacity": "30",
                          "root.b.capacity": "70", "root.a.maximum-am-resource-percent": "0.3",
                          "root.a.user-limit-factor": "10", "root.b.user-limit-factor": "10"})
    config = {**CONFIG, "cluster": {"maximum_allocation": "16384 mb, 32 vcores"}}
    h = ClusterHarness(racks=1, nodes_per_rack=10, node_resources="10240 mb, 100 vcores", config=config,
                       allocations=allocations)
    hog = h.submit_app(queue="b", user="user_b", requests=[
        {"resources": "1024 mb, 5 vcores", "count": 94}, {"resources": "1024 mb, 7 vcores", "count": 5}])
    for _ in range(20):
        for i in range(10):
            h.heartbeat(f"n{i:04d}")
    h.update()
    b = h.shares()["queues"]["root.b"]["usage"]
    assert (int(b["memory"]), int(b["vcores"])) == (99 * GB, 505)
    assert live(hog) == 99
    limit = h.shares()["queues"]["root.a"]["am_limit"]
    assert (int(limit.memory), int(limit.vcores)) == (9 * GB, 90)


def test_excess_reservation_than_node_manager_capacity() -> None:
    """``TestContainerAllocation.testExcessReservationThanNodeManagerCapacity``: nm1 of 2 GB and
    nm2 of 3 GB (4 vcores each); an app's 128 MB AM (normalized to 1 GB) runs on nm1; it asks
    one 2 GB container: nm1's heartbeat allocates nothing (1 GB free), nm2's allocates it (the
    reservation on nm1, if any, given up: ``RegularContainerAllocator`` unreserves to allocate)."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="2048 mb, 4 vcores", config=CONFIG,
                       allocations=xml_of({"root.queues": "default", "root.default.capacity": "100"}))
    h.add_node("n0001", resources="3072 mb, 4 vcores")
    app = launch(h, "default", "user", "128 mb, 1 vcores")
    ask(h, app, "2048 mb, 1 vcores", 1)
    h.heartbeat("n0000")
    assert live(app) == 1  # the AM only
    h.heartbeat("n0001")
    assert live(app) == 2
    assert reserved(h, app) == []
    assert int(h.scheduler.cluster.nodes["n0001"].used.memory) == 2 * GB


def test_pending_resources_considering_user_limit() -> None:
    """``TestContainerAllocation.testPendingResourcesConsideringUserLimit``: queue default
    (user-limit-factor 0.5, maximum-am-resource-percent 1) on two 8 GB nodes; u1's app1 (2 GB AM)
    and u2's app2 (4 GB AM) on nm1; app1 asks 1 × 3 GB, app2 4 × 5 GB.  nm1's heartbeat reserves
    app1's 3 GB (2 GB free).  The user limit is 8 GB: u1's headroom 8 − 2 − 3 (reserved) = 3 GB,
    u2's 8 − 4 = 4 GB, so the queue's pending considering the user limit
    (``LeafQueue.getTotalPendingResourcesConsideringUserLimit``, the preemption monitor's) is
    3 + 4 = 7 GB."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml_of({"root.queues": "default", "root.default.capacity": "100",
                                           "root.default.user-limit-factor": "0.5",
                                           "root.default.maximum-am-resource-percent": "1.0"}))
    app1 = launch(h, "default", "u1", "2048 mb, 1 vcores")
    app2 = launch(h, "default", "u2", "4096 mb, 1 vcores")
    ask(h, app1, "3072 mb, 1 vcores", 1)
    ask(h, app2, "5120 mb, 1 vcores", 4)
    h.heartbeat("n0000")
    assert reserved(h, app1) == ["n0000"] and reserved(h, app2) == []
    assert (int(h.job(app1).usage.memory), int(h.job(app2).usage.memory)) == (2 * GB, 4 * GB)  # type: ignore[arg-type]
    h.update()
    assert int(h.shares()["queues"]["root.default"]["reserved"].memory) == 3 * GB
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    leaf = h.scheduler.resource_engine.tree.queues["root.default"]
    assert int(cs._pending_for_preemption(leaf).memory) == 7 * GB


def test_inherited_queue_acls() -> None:
    """``TestLeafQueue.testInheritedQueueAcls``: root and newroot submit to nobody (" "), a and b
    to everyone ("*"), c nobody, c1 none of its own: a user may submit to a and b, not to c1
    (``AbstractCSQueue.hasAccess``: a queue's ACL or an ancestor's lets in; none does).  The test
    asks the queues' submit ACLs; a submission also passes by the administer ACL
    (``RMAppManager.createAndPopulateNewRMApp``), root's default ``*``, which the port closes so
    that the submit ACLs alone decide, as in the test."""
    closed = FIXTURE.replace("</configuration>", "<property><name>yarn.scheduler.capacity.root.acl_administer_queue"
                                                 "</name><value> </value></property></configuration>")
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 16 vcores", config=CONFIG,
                       allocations=closed)
    for queue in ("a", "b"):
        assert h.queue_of(h.submit(queue=queue, user="someone", tasks=1)) == f"root.newroot.{queue}"
    with pytest.raises(SubmissionRejected, match="c1"):
        h.submit(queue="c1", user="someone", tasks=1)
    # root's administer ACL open (the fixture as it is): administering root lets anyone submit
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 16 vcores", config=CONFIG,
                       allocations=FIXTURE)
    assert h.queue_of(h.submit(queue="c1", user="someone", tasks=1)) == "root.newroot.c.c1"


def schedule(h: ClusterHarness, nodes: tuple[str, ...] = ("n0000", "n0001")) -> None:
    """``CapacityScheduler.schedule(cs)``: one allocation pass over every node."""
    for node in nodes:
        h.heartbeat(node)


def queue_used(h: ClusterHarness, path: str) -> int:
    """``getUsedResources().getMemorySize()`` in GB (reservations included)."""
    h.update()
    return int(h.shares()["queues"][path]["used"].memory) // GB


def one_more(h: ClusterHarness, app: object, gb: int) -> None:
    """``cs.allocate(app, [ANY, gb, 1])`` then ``schedule``: the app's ask of that size set to one
    container (YARN replaces a request's count)."""
    ask(h, app, f"{gb * GB} mb, 1 vcores", 1)
    schedule(h)


def test_cs_queue_blocked() -> None:
    """``TestCapacityScheduler.testCSQueueBlocked``: a 80 %, b 20 % (each user-limit-factor 100,
    maximum 100 %) on two 8 GB nodes.  a's app takes 2 GB, b's 13 × 1 GB (15 of 16 GB).  a then
    asks 2 GB: its headroom (its limit, 16 − 15 + 2 GB, less its use) is 1 GB, so it cannot even
    reserve (``RegularContainerAllocator.checkHeadroom``: ``QUEUE_SKIPPED``) — and root holds
    that 1 GB for it (``ParentQueue.assignContainersToChildQueues``: a child skipped for its
    queue limit adds its headroom to the parent's ``blockedHeadroom``; the next children get
    their limits from ``getNetLimit``), so b's new 1 GB ask is not served either.  Two of b's
    containers end: a gets its 2 GB (4 GB), b its 1 GB (12 GB), root 16 GB."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml_of({"root.queues": "a,b", "root.a.capacity": "80", "root.b.capacity": "20",
                                           "root.a.user-limit-factor": "100", "root.b.user-limit-factor": "100",
                                           "root.a.maximum-capacity": "100", "root.b.maximum-capacity": "100"}))
    app1 = h.submit_app(queue="a", user="user1", requests=[PLACEHOLDER])
    app2 = h.submit_app(queue="b", user="user2", requests=[PLACEHOLDER])
    one_more(h, app1, 2)
    for _ in range(13):
        one_more(h, app2, 1)
    assert (queue_used(h, "root.a"), queue_used(h, "root.b")) == (2, 13)
    one_more(h, app1, 2)
    one_more(h, app2, 1)
    assert (queue_used(h, "root.a"), queue_used(h, "root.b")) == (2, 13)  # "Check blocked Resource"
    b_containers = [t for t in app2.tasks["task"] if t.state == "running"]  # type: ignore[attr-defined]
    for task in b_containers[9:11]:  # ContainerExpiredSchedulerEvent of its containers 10 and 11
        h.finish(task)
        schedule(h)
    assert (queue_used(h, "root.a"), queue_used(h, "root.b"), queue_used(h, "root")) == (4, 12, 16)


def test_cs_reservation_with_root_unblocked() -> None:
    """``TestCapacityScheduler.testCSReservationWithRootUnblocked``
    (``setupOtherBlockedQueueConfiguration``, ``DominantResourceCalculator``): p1 50 % (maximum
    50 %) with x1 80 % and x2 20 %, p2 50 % with y1 80 % and y2 20 % (the leaves' user-limit-factor
    2), two 8 GB, 8-vcore nodes.  y1 takes 4 × 1 GB, x1 7 × 1 GB (p1 7 of its 8 GB).  x2's 2 GB
    then lacks headroom (p1 has 1 GB left): it is skipped, p1 holding that 1 GB back, so x1's
    next 1 GB is not served either (x1 stays at 7 GB) — while y1, under p2, still gets its 4 × 1 GB
    (p2 8 GB: what p1 holds back does not block root's other child).  One of x1's containers
    ends: x2 gets its 2 GB (p1 8 GB, p2 8 GB, root 16 GB)."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml_of({
                           "resource-calculator": DRF, "root.queues": "p1,p2",
                           "root.p1.capacity": "50", "root.p1.maximum-capacity": "50", "root.p2.capacity": "50",
                           "root.p2.maximum-capacity": "100", "root.p1.queues": "x1,x2", "root.p2.queues": "y1,y2",
                           "root.p1.x1.capacity": "80", "root.p1.x1.maximum-capacity": "100",
                           "root.p1.x1.user-limit-factor": "2", "root.p1.x2.capacity": "20",
                           "root.p1.x2.maximum-capacity": "100", "root.p1.x2.user-limit-factor": "2",
                           "root.p2.y1.capacity": "80", "root.p2.y1.user-limit-factor": "2",
                           "root.p2.y2.capacity": "20", "root.p2.y2.user-limit-factor": "2"}))
    app1 = h.submit_app(queue="x1", user="userX1", requests=[PLACEHOLDER])
    app2 = h.submit_app(queue="x2", user="userX2", requests=[PLACEHOLDER])
    app3 = h.submit_app(queue="y1", user="userY1", requests=[PLACEHOLDER])
    for _ in range(4):
        one_more(h, app3, 1)
    assert (queue_used(h, "root.p2.y1"), queue_used(h, "root.p2")) == (4, 4)
    for _ in range(7):
        one_more(h, app1, 1)
    assert (queue_used(h, "root.p1.x1"), queue_used(h, "root.p1")) == (7, 7)
    one_more(h, app2, 2)
    assert (queue_used(h, "root.p1.x2"), queue_used(h, "root.p1")) == (0, 7)
    one_more(h, app1, 1)  # "this assign should fail"
    assert (queue_used(h, "root.p1.x1"), queue_used(h, "root.p1")) == (7, 7)
    for _ in range(4):  # "this should get thru"
        one_more(h, app3, 1)
    assert queue_used(h, "root.p2") == 8
    second = [t for t in app1.tasks["task"] if t.state == "running"][1]  # type: ignore[attr-defined]
    h.finish(second)  # ContainerExpiredSchedulerEvent of app1's container 2
    schedule(h)
    assert [queue_used(h, q) for q in ("root.p1.x2", "root.p1", "root.p2", "root")] == [2, 8, 8, 16]


def test_dominant_resource_calculator_compares_the_next_share_on_a_tie() -> None:
    """``DominantResourceCalculator.compare`` (``compareShares``): equal dominant shares are
    told apart by the next share — <6 GB, 6 vcores> is less than <6 GB, 7 vcores> of a <16 GB,
    16 vcores> cluster (the headroom test of ``testCSReservationWithRootUnblocked`` turns on it:
    <0 GB, 1 vcore> of headroom is less than a <1 GB, 1 vcore> container)."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml_of({"resource-calculator": DRF, "root.queues": "a", "root.a.capacity": "100"}))
    h.update()
    policy = h.scheduler.plugins.share_policy("yarn_capacity").policy
    gb = 1024
    assert policy._less(Resources(6 * gb, 6), Resources(6 * gb, 7))
    assert not policy._less(Resources(6 * gb, 7), Resources(6 * gb, 6))
    assert policy._less(Resources(0, 1), Resources(1 * gb, 1))
    assert not policy._less(Resources(6 * gb, 6), Resources(6 * gb, 6))


@pytest.mark.parametrize("calculator", ["org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator", DRF])
def test_am_limit_usage(calculator: str) -> None:
    """``TestCapacityScheduler.testAMLimitUsage`` (``verifyAMLimitForLeafQueue``, under either
    calculator): ``setupQueueConfiguration`` on one 4 GB, 4-vcore node; a1's AM limit is 10 % of
    its current limit (4 GB) rounded up, <1 GB, 1 vcore>.  Two apps whose AMs are that limit plus
    1 GB and plus 2 GB (one vcore more): the first starts though it passes the limit ("allow at
    least one application to start"), the second stays pending — for the AM limit, not for room
    (it reserves no node)."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="4096 mb, 4 vcores", config=CONFIG,
                       allocations=setup_queue_configuration().replace(
                           "<configuration>", "<configuration><property><name>yarn.scheduler.capacity.resource-"
                           f"calculator</name><value>{calculator}</value></property>"))
    h.update()
    limit = h.shares()["queues"]["root.a.a1"]["am_limit"]
    assert (int(limit.memory), int(limit.vcores)) == (1 * GB, 1)
    first = h.submit_app(queue="a1", user="user_0", am_resources="2048 mb, 2 vcores", requests=[PLACEHOLDER])
    second = h.submit_app(queue="a1", user="user_0", am_resources="3072 mb, 2 vcores", requests=[PLACEHOLDER])
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    assert (h.job(first).am_running, h.job(second).am_running) == (True, False)  # type: ignore[arg-type]
    assert h.scheduler.cluster.nodes["n0000"].reserved is None


def test_application_head_room() -> None:
    """``TestCapacityScheduler.testApplicationHeadRoom``: an app in default with no node in the
    cluster has no headroom; once a <4 GB, 1 vcore> node joins, all of it is the app's
    headroom (its user limit is the whole queue)."""
    h = ClusterHarness(racks=1, nodes_per_rack=0, node_resources="4096 mb, 1 vcores", config=CONFIG,
                       allocations=xml_of({"root.queues": "default", "root.default.capacity": "100"}))
    app = h.submit_app(queue="default", user="user", requests=[PLACEHOLDER])
    h.update()
    room = h.shares()["jobs"][app.id]["headroom"]  # type: ignore[attr-defined]
    assert (int(room.memory), int(room.vcores)) == (0, 0)
    h.add_node("n0000", resources="4096 mb, 1 vcores")
    h.update()
    room = h.shares()["jobs"][app.id]["headroom"]  # type: ignore[attr-defined]
    assert (int(room.memory), int(room.vcores)) == (4 * GB, 1)


def test_container_allocation_locality_skipped() -> None:
    """``TestCapacityScheduler.testContainerAllocationLocalitySkipped`` (YARN-8528): nm1 of 4 GB,
    nm2 of 6 GB; the app's 1 GB AM runs on nm1; it asks one <5 GB, 2 vcores> container, larger
    than nm1 altogether: nm1's heartbeat neither allocates nor reserves it
    (``RegularContainerAllocator.assignContainer``: the node's total resource does not fit the
    ask, ``LOCALITY_SKIPPED``); nm2's allocates it."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="4096 mb, 4 vcores", config=CONFIG,
                       allocations=xml_of({"root.queues": "default", "root.default.capacity": "100"}))
    h.add_node("n0001", resources="6144 mb, 6 vcores")
    app = launch(h, "default", "user", "1024 mb, 1 vcores")
    ask(h, app, "5120 mb, 2 vcores", 1, priority=1)
    h.heartbeat("n0000")
    assert live(app) == 1 and reserved(h, app) == []
    h.heartbeat("n0001")
    assert live(app) == 2 and reserved(h, app) == []


def with_global(xml: str, key: str, value: str) -> str:
    return xml.replace("<configuration>", f"<configuration><property><name>yarn.scheduler.capacity.{key}</name>"
                                          f"<value>{value}</value></property>")


def task(gb: int, priority: int, *hosts: str) -> dict[str, object]:
    """``new Task(application, priority, hosts)`` of the size ``addResourceRequestSpec`` gave the
    priority: one container on the hosts (their rack, then anywhere)."""
    out: dict[str, object] = {"resources": f"{gb * GB} mb, 1 vcores", "count": 1, "priority": priority}
    if hosts:
        out["locations"] = list(hosts)
    return out


def app_used(h: ClusterHarness, app: object) -> int:
    return int(h.job(app).usage.memory) // GB  # type: ignore[arg-type]


def node_used(h: ClusterHarness, node: str) -> int:
    return int(h.scheduler.cluster.nodes[node].used.memory) // GB


def test_capacity_scheduler() -> None:
    """``TestCapacityScheduler.testCapacityScheduler``: ``setupQueueConfiguration``; host_0 of
    <4 GB, 1 vcore>, host_1 of <2 GB, 1 vcore>.  user_0's app in a1 asks 1 GB (priority 1) on
    either host, user_1's in b2 3 GB (priority 1) on either: host_0's heartbeat runs both (4 GB),
    host_1's nothing.  Then user_1's app asks 2 GB anywhere (priority 0), user_0's 2 GB on either
    host: host_0 is full; on host_1, b (3 GB of its 89.5 %) comes before a (1 GB, at its
    guarantee rounded up to the minimum allocation) and user_1's app gets it (5 GB)."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="4096 mb, 1 vcores", config=CONFIG,
                       allocations=setup_queue_configuration())
    h.add_node("n0001", resources="2048 mb, 1 vcores")
    app_0 = h.submit_app(queue="a1", user="user_0", requests=[task(1, 1, "n0000", "n0001")])
    app_1 = h.submit_app(queue="b2", user="user_1", requests=[task(3, 1, "n0000", "n0001")])
    h.heartbeat("n0000")
    h.heartbeat("n0001")
    assert (app_used(h, app_0), app_used(h, app_1), node_used(h, "n0000"), node_used(h, "n0001")) == (1, 3, 4, 0)
    h.add_requests(app_1, [task(2, 0)])
    h.add_requests(app_0, [task(2, 0, "n0000", "n0001")])
    h.heartbeat("n0000")
    h.heartbeat("n0001")
    assert (app_used(h, app_0), app_used(h, app_1)) == (1, 5)
    h.heartbeat("n0000")
    h.heartbeat("n0001")
    assert (node_used(h, "n0000"), node_used(h, "n0001")) == (4, 2)


def two_apps_on_host0(xml: str) -> tuple[ClusterHarness, object, object]:
    """``testNotAssignMultiple`` / ``testAssignMultiple``: one <10 GB, 10 vcores> node; user_0's
    app in a1 asks 1 GB (priority 0) and 2 GB (priority 1) on host_0, user_1's in b2 3 GB and
    4 GB."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores", config=CONFIG,
                       allocations=xml)
    app0 = h.submit_app(queue="a1", user="user_0", requests=[task(1, 0, "n0000"), task(2, 1, "n0000")])
    app1 = h.submit_app(queue="b2", user="user_1", requests=[task(3, 0, "n0000"), task(4, 1, "n0000")])
    return h, app0, app1


def test_not_assign_multiple() -> None:
    """``TestCapacityScheduler.testNotAssignMultiple``: with ``multiple-assignments-enabled``
    false one container a heartbeat: first user_1's 3 GB (a and b both unused: the larger
    capacity, b, first), then user_0's 1 GB (a now the less used): 4 GB."""
    h, app0, app1 = two_apps_on_host0(with_global(setup_queue_configuration(),
                                                  "per-node-heartbeat.multiple-assignments-enabled", "false"))
    h.heartbeat("n0000")
    assert (node_used(h, "n0000"), app_used(h, app0), app_used(h, app1)) == (3, 0, 3)
    h.heartbeat("n0000")
    assert (node_used(h, "n0000"), app_used(h, app0), app_used(h, app1)) == (4, 1, 3)


def test_assign_multiple() -> None:
    """``TestCapacityScheduler.testAssignMultiple``: ``maximum-container-assignments`` 2: the
    first heartbeat runs user_1's 3 GB and user_0's 1 GB (4 GB), the second user_1's 4 GB and
    user_0's 2 GB (the node full: 10 GB)."""
    xml = with_global(with_global(setup_queue_configuration(), "per-node-heartbeat.multiple-assignments-enabled",
                                  "true"), "per-node-heartbeat.maximum-container-assignments", "2")
    h, app0, app1 = two_apps_on_host0(xml)
    h.heartbeat("n0000")
    assert (node_used(h, "n0000"), app_used(h, app0), app_used(h, app1)) == (4, 1, 3)
    h.heartbeat("n0000")
    assert (node_used(h, "n0000"), app_used(h, app0), app_used(h, app1)) == (10, 3, 7)


def test_queue_maximum_allocations() -> None:
    """``TestCapacityScheduler.testQueueMaximumAllocations``: a1's ``maximum-allocation-mb`` 1024
    and ``-vcores`` 1 make its largest container <1 GB, 1 vcore>; the scheduler's stays YARN's
    default <8 GB, 4 vcores>: a1 refuses a 2 GB ask, a2 takes it."""
    xml = setup_queue_configuration().replace("</configuration>", (
        "<property><name>yarn.scheduler.capacity.root.a.a1.maximum-allocation-mb</name><value>1024</value></property>"
        "<property><name>yarn.scheduler.capacity.root.a.a1.maximum-allocation-vcores</name><value>1</value>"
        "</property></configuration>"))
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="16384 mb, 16 vcores", config=CONFIG,
                       allocations=xml)
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    assert cs.maximum_allocation(cs.conf, "root.a.a1") == (1024, 1)
    assert cs.maximum_allocation(cs.conf, "root.a.a2") == (8192, 4)
    with pytest.raises(SubmissionRejected):
        h.submit(queue="a1", user="user_0", tasks=1, resources="2048 mb, 1 vcores")
    h.submit(queue="a2", user="user_0", tasks=1, resources="2048 mb, 1 vcores")


def first_in_order(h: ClusterHarness, leaf: str) -> str:
    """``getOrderingPolicy().getAssignmentIterator().next().getId()``."""
    h.update()
    return str(next(iter(h.scheduler.resource_engine.tree.queues[leaf].order)).owner.id)


def test_allocate_reorder() -> None:
    """``TestCapacityScheduler.testAllocateReorder``, adapted: default's ordering policy ``fair``
    with size-based weight (``FairOrderingPolicy.getMagnitude``: used ÷ log2(1 + demand)), one
    4 GB node.  Hadoop's app2 exists with no ask at all (magnitude NaN, so FIFO); an app here
    lives by its asks, so both apps take 1 GB first, with one ask left each that no node serves:
equal magnitudes, FIFO, app1 first.  app2's
    ask of 2 × 1 GB alone (no heartbeat) makes it first: its demand grows, its magnitude falls
    ("allocation (resource request) alone will trigger a change in application ordering")."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="4096 mb, 4 vcores", config=CONFIG,
                       allocations=xml_of({"root.queues": "default", "root.default.capacity": "100",
                                           "root.default.ordering-policy": "fair",
                                           "root.default.ordering-policy.fair.enable-size-based-weight": "true"}))
    app1 = h.submit_app(queue="default", user="user", requests=[PLACEHOLDER])
    app2 = h.submit_app(queue="default", user="user", requests=[PLACEHOLDER])
    for app in (app1, app2):  # (each keeps its placeholder: the same demand besides)
        h.add_requests(app, [{"resources": "1024 mb, 1 vcores", "count": 1}])
        schedule(h, ("n0000",))
    assert (app_used(h, app1), app_used(h, app2)) == (1, 1)
    assert first_in_order(h, "root.default") == app1.id  # type: ignore[attr-defined]
    h.add_requests(app2, [{"resources": "1024 mb, 1 vcores", "count": 2}])
    assert first_in_order(h, "root.default") == app2.id  # type: ignore[attr-defined]


def test_queue_ordering_policy_updated_after_reinitialize() -> None:
    """``TestQueueParsing.testQueueOrderingPolicyUpdatedAfterReinitialize``
    (``setupQueueConfigurationWithoutLabels``): a reload that adds b4 (capacity 0) under b: b's
    children (those its ordering policy orders) are b1, b2, b3 and b4; b4's guarantee is 0, and
    without a ``maximum-applications`` of its own it takes no app.  (The test reads the policy's
    queue list; here a parent orders only its children with apps.)"""
    from test_yarn_capacity_config_ports import QUEUE_PARSING

    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml_of(QUEUE_PARSING))
    tree = h.scheduler.resource_engine.tree
    assert sorted(tree.queues["root.b"].children) == ["root.b.b1", "root.b.b2", "root.b.b3"]
    h.set_allocations(xml_of({**QUEUE_PARSING, "root.b.queues": "b1,b2,b3,b4", "root.b.b4.capacity": "0"}))
    tree = h.scheduler.resource_engine.tree
    b = tree.queues["root.b"]
    assert sorted(b.children) == ["root.b.b1", "root.b.b2", "root.b.b3", "root.b.b4"]
    h.update()
    assert h.shares()["queues"]["root.b.b4"]["guaranteed"].memory == 0
    with pytest.raises(SubmissionRejected, match=r"Queue root\.b\.b4 already has 0 applications"):
        h.submit(queue="b4", user="user", tasks=1)  # maximum-applications: 10000 × 0


def queue_e_harness(ulf: str = "1") -> tuple[ClusterHarness, str]:
    """``TestLeafQueue``'s queue e (1 % of one 100 GB node: 1 GB) with ``setMaxCapacity(1.0f)``
    and ``setUserLimit(1000)``, submit open to all, one container a heartbeat."""
    xml = with_values(FIXTURE, e__maximum_capacity="100", e__acl_submit_applications="*",
                      e__minimum_user_limit_percent="1000", e__user_limit_factor=ulf)
    return with_globals(xml, **ONE_A_CALL), "root.newroot.e"


def pending_considering_user_limit(h: ClusterHarness, path: str) -> int:
    """``LeafQueue.getTotalPendingResourcesConsideringUserLimit(cluster, NO_LABEL, false)`` in GB."""
    h.update()
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    return int(cs._pending_for_preemption(h.scheduler.resource_engine.tree.queues[path]).memory) // GB


def test_get_total_pending_resources_considering_user_limit_one_user() -> None:
    """``TestLeafQueue.testGetTotalPendingResourcesConsideringUserLimitOneUser``, its pending
    amounts: user_0's app_0 asks 3 × 1 GB, app_1 2 × 1 GB.  With the 1 GB user limit nothing more
    may go to user_0 once it holds 1 GB (0 pending by the limit, through the steps that give
    app_0 1 GB, its one container past the limit, then nothing); with user-limit-factor 10 (a
    10 GB cap) all 3 GB still asked are pending, then 2 GB once app_0 has its third, then 0."""
    xml, path = queue_e_harness()
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="102400 mb, 128 vcores", config=CONFIG,
                       allocations=xml)
    app_0 = h.submit(queue="e", user="user_0", tasks=3, resources="1024 mb, 1 vcores")
    app_1 = h.submit(queue="e", user="user_0", tasks=2, resources="1024 mb, 1 vcores")
    steps = []
    for _ in range(3):
        h.heartbeat("n0000")
        steps.append((app_used(h, app_0), app_used(h, app_1), pending_considering_user_limit(h, path)))
    assert steps == [(1, 0, 0), (2, 0, 0), (2, 0, 0)]
    h.set_allocations(queue_e_harness("10")[0])  # e.setUserLimitFactor(10.0f)
    assert pending_considering_user_limit(h, path) == 3
    h.heartbeat("n0000")
    assert (app_used(h, app_0), app_used(h, app_1), pending_considering_user_limit(h, path)) == (3, 0, 2)
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    assert (app_used(h, app_0), app_used(h, app_1), pending_considering_user_limit(h, path)) == (3, 2, 0)


def test_get_total_pending_resources_considering_user_limit_two_users() -> None:
    """``TestLeafQueue.testGetTotalPendingResourcesConsideringUserLimitTwoUsers``, its pending
    amounts: user_0's app_0 (1 × 1 GB) and app_1 (2 × 1 GB), user_1's app_2 (2 × 1 GB) and app_3
    (1 × 1 GB); each user's limit 1 GB: 2 GB pending at first; 1 GB (user_1's) after app_0's
    container and after app_1's one past the limit; 0 after app_2's, and after its second; with
    user-limit-factor 10, app_1's last leaves 1 GB (app_3's), app_3's then 0."""
    xml, path = queue_e_harness()
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="102400 mb, 128 vcores", config=CONFIG,
                       allocations=xml)
    apps = [h.submit(queue="e", user=user, tasks=n, resources="1024 mb, 1 vcores")
            for user, n in (("user_0", 1), ("user_0", 2), ("user_1", 2), ("user_1", 1))]
    assert pending_considering_user_limit(h, path) == 2
    steps = []
    for _ in range(5):
        h.heartbeat("n0000")
        steps.append((*(app_used(h, a) for a in apps), pending_considering_user_limit(h, path)))
    assert steps == [(1, 0, 0, 0, 1), (1, 1, 0, 0, 1), (1, 1, 1, 0, 0), (1, 1, 2, 0, 0), (1, 1, 2, 0, 0)]
    h.set_allocations(queue_e_harness("10")[0])
    h.heartbeat("n0000")
    assert (*(app_used(h, a) for a in apps), pending_considering_user_limit(h, path)) == (1, 2, 2, 0, 1)
    h.heartbeat("n0000")
    assert (*(app_used(h, a) for a in apps), pending_considering_user_limit(h, path)) == (1, 2, 2, 1, 0)


@pytest.mark.parametrize(("disabled", "preemptable"), [
    ({}, True),                                    # "should default to preemptable"
    ({"root": "true"}, False),                     # "inherited non-preemptability from root"
    ({"root": "false", "root.b": "true"}, False),  # "inherited non-preemptability from parent"
    ({"root": "false", "root.b": "true", "root.b.b2": "false"}, True),  # b2's own false wins
])
def test_preemption_disabled(disabled: dict[str, str], preemptable: bool) -> None:
    """``TestCapacityScheduler.testPreemptionDisabled``: ``disable_preemption`` is inherited from
    the parent unless the queue sets its own (``AbstractCSQueue.isQueueHierarchyPreemptionDisabled``):
    root.b.b2 is preemptable by default, not under a disabled root or b, and is again when it
    sets ``false`` itself under a disabled b.  Seen on the live tree: b2 holds a 100 GB node, a1
    asks for its guarantee; a round of the monitor marks b2's containers only when b2 is
    preemptable."""
    props = "".join(f"<property><name>yarn.scheduler.capacity.{q}.disable_preemption</name><value>{v}</value>"
                    "</property>" for q, v in disabled.items())
    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True}}
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="102400 mb, 100 vcores", config=config,
                       allocations=setup_queue_configuration().replace("</configuration>", props + "</configuration>"))
    hog = h.submit(queue="b2", user="user_b", tasks=100, resources="1024 mb, 1 vcores")
    for _ in range(100):
        h.heartbeat("n0000")
    assert h.running(hog) == 100
    h.submit(queue="a1", user="user_a", tasks=10, resources="1024 mb, 1 vcores")
    h.update()
    h.preempt()
    marked = h.shares()["preemption"]["marked"]
    assert (len(marked) > 0) == preemptable
    assert all(h.task(t).job is h.job(hog) for t in marked)
