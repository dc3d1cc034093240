"""More of Hadoop's YARN fair-scheduler unit tests, ported to the harness: ``TestFairScheduler``'s max running
apps, assignment limits, locality and DRF, fifo and moves
(moved from :mod:`test_yarn_fair_ported`, whose docstring has Hadoop's fixture).  Each test
names the Hadoop class and method it ports; the numbers are Hadoop's."""

from __future__ import annotations

import pytest
from test_yarn_fair_ported import fair, harness, reservations, reserved

from corescheduler.testing import ClusterHarness, SubmissionRejected

QUEUE_MAX = """<allocations><queue name="root"><queue name="queue1"><maxRunningApps>{}</maxRunningApps>
  </queue></queue></allocations>"""
USER_MAX = """<allocations><queue name="root"><queue name="queue1"><maxRunningApps>10</maxRunningApps>
  </queue></queue><user name="user1"><maxRunningApps>{}</maxRunningApps></user></allocations>"""


def _four_apps(h: ClusterHarness) -> list:
    apps = []
    for _ in range(4):
        apps.append(h.submit(queue="queue1", user="user1", resources="1024 mb, 1 vcores"))
        h.update()
        h.heartbeat("n0000")
    return apps


@pytest.mark.parametrize("xml", [QUEUE_MAX, USER_MAX], ids=["queue", "user"])
def test_increase_max_running_apps_on_the_fly(xml: str) -> None:
    """``TestFairScheduler.testIncreaseQueueMaxRunningAppsOnTheFly`` /
    ``testIncreaseUserMaxRunningAppsOnTheFly`` (``testIncreaseQueueSettingOnTheFlyInternal``):
    limit 1, four apps of one container: only app 1 runs; raised to 3 and reloaded, apps 2
    and 3 run at the next heartbeats, app 4 not; app 1 removed, app 4 runs."""
    h = harness("8192 mb, 8 vcores", xml.format(1))
    a1, a2, a3, a4 = _four_apps(h)
    assert [h.running(a) for a in (a1, a2, a3, a4)] == [1, 0, 0, 0]
    h.set_allocations(xml.format(3))
    h.update()
    h.heartbeat("n0000")
    assert h.running(a2) == 1
    h.update()
    h.heartbeat("n0000")
    assert h.running(a3) == 1
    h.update()
    h.heartbeat("n0000")
    assert h.running(a4) == 0
    h.kill_app(a1)
    h.update()
    h.heartbeat("n0000")
    assert h.running(a4) == 1


@pytest.mark.parametrize("xml", [QUEUE_MAX, USER_MAX], ids=["queue", "user"])
def test_decrease_max_running_apps_on_the_fly(xml: str) -> None:
    """``TestFairScheduler.testDecreaseQueueMaxRunningAppsOnTheFly`` /
    ``testDecreaseUserMaxRunningAppsOnTheFly`` (``testDecreaseQueueSettingOnTheFlyInternal``):
    limit 3, four apps: apps 1-3 run, app 4 waits; lowered to 1: 2 and 3 keep running, 4
    waits after apps 1 and 2 end, and runs once app 3 ends too."""
    h = harness("8192 mb, 8 vcores", xml.format(3))
    a1, a2, a3, a4 = _four_apps(h)
    assert [h.running(a) for a in (a1, a2, a3, a4)] == [1, 1, 1, 0]
    h.set_allocations(xml.format(1))
    for _ in range(3):
        h.update()
        h.heartbeat("n0000")
    assert h.running(a2) == 1 and h.running(a3) == 1 and h.running(a4) == 0
    for app in (a1, a2):
        h.kill_app(app)
        h.update()
        h.heartbeat("n0000")
        assert h.running(a4) == 0
    h.kill_app(a3)
    h.update()
    h.heartbeat("n0000")
    assert h.running(a4) == 1


def test_reservation_with_multiple_priorities() -> None:
    """``TestFairScheduler.testReservationWithMultiplePriorities``: a 2048 MB/2 vc node; app1
    runs 1024/1; app2 asks 2048/2 at priority 2 and reserves the node; it then asks 2048/2
    at priority 1; app1's container ends: the heartbeat runs app2's reserved priority-2 ask,
    not the new priority-1 one."""
    h = harness("2048 mb, 2 vcores")
    app1 = h.submit_app(queue="queue", user="user", requests=[{"resources": "1024 mb, 1 vcores", "priority": 1}])
    h.update()
    (first,) = h.heartbeat("n0000")
    assert h.running(app1) == 1
    app2 = h.submit_app(queue="queue1", user="user1", requests=[{"resources": "2048 mb, 2 vcores", "priority": 2}])
    h.update()
    h.heartbeat("n0000")
    assert reservations(h, app2) == 1
    h.add_requests(app2, [{"resources": "2048 mb, 2 vcores", "priority": 1}])
    reserved_task = reserved(h, "n0000")
    h.finish(first)
    (ran,) = h.heartbeat("n0000")
    assert h.running(app2) == 1
    assert ran.task == reserved_task.id  # the priority-2 container


def test_acl_submit_application() -> None:
    """``TestFairScheduler.testAclSubmitApplication``: root's ACLs " " (nobody), queue1's
    "norealuserhasthisname": that user's app is accepted, norealuserhasthisname2's refused."""
    xml = """<allocations><queue name="root"><aclSubmitApps> </aclSubmitApps>
      <aclAdministerApps> </aclAdministerApps>
      <queue name="queue1"><aclSubmitApps>norealuserhasthisname</aclSubmitApps>
        <aclAdministerApps>norealuserhasthisname</aclAdministerApps></queue>
    </queue></allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    app1 = h.submit(queue="queue1", user="norealuserhasthisname", resources="1024 mb, 1 vcores")
    assert h.queue_of(app1) == "root.queue1"
    with pytest.raises(SubmissionRejected):
        h.submit(queue="queue1", user="norealuserhasthisname2", resources="1024 mb, 1 vcores")
    assert list(h.scheduler.jobs) == [app1.id]


def test_multiple_nodes_single_rack_request() -> None:
    """``TestFairScheduler.testMultipleNodesSingleRackRequest``: nodes 1 and 2 (1024 MB, rack
    1), node 3 on rack 2 never joins; one app asks 2 containers at nodes 1, 2, 3 and both
    racks: node 1's heartbeat runs one, node 2's the other."""
    h = harness("1024 mb, 8 vcores", nodes=2)
    app = h.submit_app(queue="queue1", user="user1", requests=[
        {"resources": "1024 mb, 1 vcores", "count": 2, "priority": 1,
         "locations": ["n0000", "n0001", "n0100", "/r00", "/r01", "*"]}])
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 1
    h.update()
    h.heartbeat("n0001")
    assert h.running(app) == 2


def test_fifo_within_queue() -> None:
    """``TestFairScheduler.testFifoWithinQueue``: queue1 fifo, a 3072 MB/3 vc node, two apps
    of 2 × 1 GB: app 1 gets the first two containers, app 2 the third."""
    xml = '<allocations><queue name="queue1"><schedulingPolicy>fifo</schedulingPolicy></queue></allocations>'
    h = harness("3072 mb, 3 vcores", xml)
    a1 = h.submit(queue="queue1", user="user1", tasks=2, resources="1024 mb, 1 vcores")
    a2 = h.submit(queue="queue1", user="user1", tasks=2, resources="1024 mb, 1 vcores")
    h.update()
    seen = []
    for _ in range(3):
        h.heartbeat("n0000")
        seen.append((h.running(a1), h.running(a2)))
    assert seen == [(1, 0), (2, 0), (2, 1)]


def _max_assign(h: ClusterHarness, value: int) -> None:
    """Hadoop's tests set ``scheduler.maxAssign`` between heartbeats; so does this."""
    from attrs import evolve

    rs = h.scheduler.resource_engine
    rs.settings = evolve(rs.settings, max_assign=value)


@pytest.mark.parametrize("size", ["1024 mb, 1 vcores", "0 mb, 1 vcores"], ids=["1GB", "zero_memory"])
def test_fixed_max_assign(size: str) -> None:
    """``TestFairScheduler.testFixedMaxAssign`` / ``testMaxAssignWithZeroMemoryContainers``:
    assignmultiple, no dynamic max assign, a 16 GB/16 vc node, an app of 8 containers
    (1024 MB or 0 MB, 1 vc each): maxAssign 2 → 2 containers; maxAssign -1 → all 8."""
    h = harness("16384 mb, 16 vcores", scheduler={"assign_multiple": True, "dynamic_max_assign": False})
    app = h.submit(queue="root.default", user="user", tasks=8, resources=size)
    _max_assign(h, 2)
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 2
    _max_assign(h, -1)
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 8


def test_dynamic_max_assign() -> None:
    """``TestFairScheduler.testDynamicMaxAssign``: assignmultiple with dynamic max assign, an
    8 GB/8 vc node, 12 × 1 GB asked: maxAssign does not matter; 5 containers (floor(8/2)
    + 1), then 2 more (floor(3/2) + 1), then 1 (the node is full)."""
    h = harness("8192 mb, 8 vcores", scheduler={"assign_multiple": True})
    app = h.submit(queue="root.default", user="user", tasks=12, resources="1024 mb, 1 vcores")
    _max_assign(h, 2)
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 5
    _max_assign(h, 4)
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 7
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 8


def test_assign_container() -> None:
    """``TestFairScheduler.testAssignContainer``: two 8 GB nodes; "fifo" (fifo policy) holds
    apps 1 and 4, fairParent.fairChild1 app 2, fairParent.fairChild2 app 3, each of 4 × 1 GB.
    After every 4 heartbeats (nodes alternating) fifo got 2 (app 1 first, then app 4) and each
    fairChild 1."""
    xml = '<allocations><queue name="fifo"><schedulingPolicy>fifo</schedulingPolicy></queue></allocations>'
    h = harness("8192 mb, 8 vcores", xml, nodes=2)
    app1 = h.submit(queue="fifo", user="user1", tasks=4, resources="1024 mb, 1 vcores")
    app2 = h.submit(queue="fairParent.fairChild1", user="user1", tasks=4, resources="1024 mb, 1 vcores")
    app3 = h.submit(queue="fairParent.fairChild2", user="user1", tasks=4, resources="1024 mb, 1 vcores")
    app4 = h.submit(queue="fifo", user="user1", tasks=4, resources="1024 mb, 1 vcores")
    h.update()
    for i in range(8):
        h.heartbeat("n0000")
        h.heartbeat("n0001")
        if (i + 1) % 2 == 0:
            if i < 4:
                assert (h.running(app1), h.running(app4)) == (i + 1, 0), i
            else:
                assert (h.running(app1), h.running(app4)) == (4, i - 3), i
            assert h.running(app2) == (i + 1) // 2 and h.running(app3) == (i + 1) // 2, i


def test_strict_locality() -> None:
    """``TestFairScheduler.testStrictLocality``: two 1024 MB nodes on one rack; an ask for node
    1 only (rack and ANY not relaxed): ten heartbeats of node 2 give nothing and reserve
    nothing; node 1's gives the container."""
    h = harness("1024 mb, 8 vcores", nodes=2)
    app = h.submit_app(queue="queue1", user="user1", requests=[
        {"resources": "1024 mb, 1 vcores", "locations": ["n0000"], "relax_locality": False, "priority": 1}])
    h.update()
    for _ in range(10):
        h.heartbeat("n0001")
        assert h.running(app) == 0 and reservations(h, app) == 0
    h.heartbeat("n0000")
    assert h.running(app) == 1


def test_cancel_strict_locality() -> None:
    """``TestFairScheduler.testCancelStrictLocality``: the same node-1-only ask; node 2 gets
    nothing in ten heartbeats; the ask cancelled and made again relaxed, node 2's next
    heartbeat runs it."""
    h = harness("1024 mb, 8 vcores", nodes=2)
    strict = {"resources": "1024 mb, 1 vcores", "locations": ["n0000"], "relax_locality": False, "priority": 1}
    app = h.submit_app(queue="queue1", user="user1", requests=[strict])
    h.update()
    for _ in range(10):
        h.heartbeat("n0001")
        assert h.running(app) == 0
    h.add_requests(app, [{**strict, "count": 0}, {"resources": "1024 mb, 1 vcores", "priority": 1}])
    h.heartbeat("n0001")
    assert h.running(app) == 1


@pytest.mark.parametrize(("place", "runs"), [(["/r01"], True), (["n0100"], True), (["/invalid"], False),
                                             (["invalid"], False)],
                         ids=["Rack", "Node", "RackInvalid", "NodeInvalid"])
def test_am_strict_locality(place: list[str], runs: bool) -> None:
    """``TestFairScheduler.testAMStrictLocality{Rack,Node,RackInvalid,NodeInvalid}``: node 1 on
    rack 1, node 2 on rack 2 (1024 MB each); an ask not relaxed past node 2's rack (or node 2
    itself): node 2's heartbeat runs it there and node 1 has nothing; asked at a rack or node
    that does not exist, nothing runs anywhere."""
    h = harness("1024 mb, 8 vcores")
    h.add_node("n0100", rack="r01", resources="1024 mb, 8 vcores")
    app = h.submit_app(queue="queue1", user="user1", requests=[
        {"resources": "1024 mb, 1 vcores", "locations": place, "relax_locality": False, "priority": 1}])
    h.update()
    h.heartbeat("n0100")
    assert h.running(app) == (1 if runs else 0)
    on = {n: sum(1 for t in h.scheduler.ledger.running.values() if t.node == n) for n in ("n0000", "n0100")}
    assert on == {"n0000": 0, "n0100": 1 if runs else 0}


def test_reservations_strict_locality() -> None:
    """``TestFairScheduler.testReservationsStrictLocality``: two 1024 MB/1 vc nodes; an ask for
    node 2 only: node 1's heartbeats neither run it nor reserve node 1."""
    h = harness("1024 mb, 1 vcores", nodes=2)
    app = h.submit_app(queue="queue1", user="user1", requests=[
        {"resources": "1024 mb, 1 vcores", "locations": ["n0001"], "relax_locality": False, "priority": 1}])
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 0
    h.heartbeat("n0000")
    assert reservations(h, app) == 0


def test_no_more_cpu_on_node() -> None:
    """``TestFairScheduler.testNoMoreCpuOnNode``: a 2048 MB/1 vc node, 2 × 1024 MB/1 vc asked:
    one runs, the second heartbeat adds none."""
    h = harness("2048 mb, 1 vcores")
    app = h.submit(queue="default", user="user1", tasks=2, resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 1
    h.heartbeat("n0000")
    assert h.running(app) == 1


def test_basic_drf_assignment() -> None:
    """``TestFairScheduler.testBasicDRFAssignment``: queue1 drf, an 8192 MB/5 vc node; app1
    2 × (2048 MB, 1 vc), app2 2 × (1024 MB, 2 vc): app1, app2, then app1 again (2048/8192 <
    2/5).  Hadoop sets queue1's policy on the live queue; a file must make root drf too
    (``isChildPolicyAllowed``), which changes nothing with one active queue."""
    xml = """<allocations><queue name="root"><schedulingPolicy>drf</schedulingPolicy>
      <queue name="queue1"><schedulingPolicy>drf</schedulingPolicy></queue></queue></allocations>"""
    h = harness("8192 mb, 5 vcores", xml)
    app1 = h.submit(queue="queue1", user="user1", tasks=2, resources="2048 mb, 1 vcores")
    app2 = h.submit(queue="queue1", user="user1", tasks=2, resources="1024 mb, 2 vcores")
    h.update()
    seen = []
    for _ in range(3):
        h.heartbeat("n0000")
        seen.append((h.running(app1), h.running(app2)))
    assert seen == [(1, 0), (1, 1), (2, 1)]


def test_basic_drf_with_queues() -> None:
    """``TestFairScheduler.testBasicDRFWithQueues``: root and queue1 drf, an 8192 MB/7 vc node;
    queue1: app1 2 × (3072, 1), app2 2 × (2048, 2); queue2: app3 2 × (1024, 2). Heartbeats
    give app1, app3, app3, app2."""
    xml = """<allocations><queue name="root"><schedulingPolicy>drf</schedulingPolicy>
      <queue name="queue1"><schedulingPolicy>drf</schedulingPolicy></queue><queue name="queue2"/>
    </queue></allocations>"""
    h = harness("8192 mb, 7 vcores", xml)
    app1 = h.submit(queue="queue1", user="user1", tasks=2, resources="3072 mb, 1 vcores")
    app2 = h.submit(queue="queue1", user="user1", tasks=2, resources="2048 mb, 2 vcores")
    app3 = h.submit(queue="queue2", user="user1", tasks=2, resources="1024 mb, 2 vcores")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app1) == 1
    h.heartbeat("n0000")
    assert h.running(app3) == 1
    h.heartbeat("n0000")
    assert h.running(app3) == 2
    h.heartbeat("n0000")
    assert h.running(app2) == 1


def test_drf_hierarchical_queues() -> None:
    """``TestFairScheduler.testDRFHierarchicalQueues``: root, queue1 and queue1.subqueue1 drf;
    a 12288 MB/12 vc node; app1 2 × (3074, 1) and app2 2 × (1024, 3) in queue1.subqueue1,
    app3 2 × (2048, 2) in queue1.subqueue2, app4 2 × (1024, 2) in queue2, started in that
    order: app1, app4, app4, app3, app3, app2, then nothing (the CPU is used up)."""
    xml = """<allocations><queue name="root"><schedulingPolicy>drf</schedulingPolicy>
      <queue name="queue1"><schedulingPolicy>drf</schedulingPolicy>
        <queue name="subqueue1"><schedulingPolicy>drf</schedulingPolicy></queue>
        <queue name="subqueue2"/></queue>
      <queue name="queue2"/>
    </queue></allocations>"""
    h = harness("12288 mb, 12 vcores", xml)
    apps = []
    for queue, size in (("queue1.subqueue1", "3074 mb, 1 vcores"), ("queue1.subqueue1", "1024 mb, 3 vcores"),
                        ("queue1.subqueue2", "2048 mb, 2 vcores"), ("queue2", "1024 mb, 2 vcores")):
        apps.append(h.submit(queue=queue, user="user1", tasks=2, resources=size))
        h.clock_only(0.003)  # so that start times differ (Hadoop's Thread.sleep(3))
    h.update()
    expected = [(1, 0, 0, 0), (1, 0, 0, 1), (1, 0, 0, 2), (1, 0, 1, 2), (1, 0, 2, 2), (1, 1, 2, 2),
                (1, 1, 2, 2)]
    for want in expected:
        h.heartbeat("n0000")
        assert tuple(h.running(a) for a in apps) == want


def test_user_and_queue_max_running_apps() -> None:
    """``TestFairScheduler.testUserAndQueueMaxRunningApps``: queue1 runs at most 2, user1 at
    most 1: app1 (queue1, user1) runs; app2 (queue2, user1) waits (user); app3 (queue1,
    user2) runs; app4 (queue1, user2) waits (queue); app1 removed: apps 2 and 4 run; a new
    app5 in queue1 waits."""
    xml = """<allocations><queue name="queue1"><maxRunningApps>2</maxRunningApps></queue>
      <user name="user1"><maxRunningApps>1</maxRunningApps></user></allocations>"""
    h = harness("8192 mb, 8 vcores", xml)

    def counts(queue: str) -> tuple[int, int]:
        q = h.shares()["queues"][queue]
        return q["runnable_apps"], q["waiting_apps"]

    a1 = h.submit(queue="queue1", user="user1")
    assert a1.runnable and counts("root.queue1") == (1, 0)
    a2 = h.submit(queue="queue2", user="user1")
    assert not a2.runnable and counts("root.queue2") == (0, 1)
    a3 = h.submit(queue="queue1", user="user2")
    assert a3.runnable and counts("root.queue1") == (2, 0)
    a4 = h.submit(queue="queue1", user="user2")
    assert not a4.runnable and counts("root.queue1") == (2, 1)
    h.kill_app(a1)
    assert a2.runnable and counts("root.queue2") == (1, 0)
    assert a4.runnable and counts("root.queue1") == (2, 0)
    a5 = h.submit(queue="queue1", user="user2")
    assert not a5.runnable and counts("root.queue1") == (2, 1)


#: an ask no node can serve: keeps an app whose AM is all Hadoop's test asks for alive (our
#: apps end when they have nothing left to run; YARN's run until their AM finishes)
IDLE = {"resources": "1024 mb, 1 vcores", "locations": ["nowhere"], "relax_locality": False}


def am_app(h: ClusterHarness, queue: str, am: str, user: str = "user1"):
    """An app whose only container to run now is its AM (``createApplicationWithAMResource``
    + an AM-priority request)."""
    return h.submit_app(queue=queue, user=user, am_resources=am, requests=[IDLE])


def am_usage(h: ClusterHarness, queue: str) -> int:
    """``FSLeafQueue.getAmResourceUsage().getMemorySize()``."""
    return h.scheduler.resource_engine.tree.get(queue).am_usage.memory


def test_queue_max_am_share() -> None:
    """``TestFairScheduler.testQueueMaxAMShare`` (up to app 5's AM running): queue1 maxAMShare
    0.2, a 20480 MB/20 vc node, root.default running 1 GB: queue1's fair share is 10240, its
    AM limit 2048. AMs of 1 GB for apps 1 and 2 run (AM usage 2048); app 3's waits; app 1
    still runs a non-AM container; app 1 removed, app 3's AM runs (2048); 2 GB AMs of apps
    4 and 5 wait; app 4 removed, app 5 still waits; apps 2 and 3 removed, app 5's AM runs
    (2048).  (Hadoop's remaining steps expire app 5's AM container and keep the app: here a
    lost AM fails its attempt, as the RM does, so they are not ported.)"""
    xml = '<allocations><queue name="queue1"><maxAMShare>0.2</maxAMShare></queue></allocations>'
    h = harness("20480 mb, 20 vcores", xml)
    h.update()
    assert fair(h, "root.queue1") == 0
    h.submit(queue="root.default", user="user1", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")

    def step() -> None:
        h.update()
        h.heartbeat("n0000")

    app1 = am_app(h, "queue1", "1024 mb, 1 vcores")
    step()
    assert h.running(app1) == 1 and am_usage(h, "root.queue1") == 1024
    app2 = am_app(h, "queue1", "1024 mb, 1 vcores")
    step()
    assert h.running(app2) == 1 and am_usage(h, "root.queue1") == 2048
    app3 = am_app(h, "queue1", "1024 mb, 1 vcores")
    step()
    assert h.running(app3) == 0 and am_usage(h, "root.queue1") == 2048
    h.add_requests(app1, [{"resources": "1024 mb, 1 vcores"}])
    step()
    assert h.running(app1) == 2 and am_usage(h, "root.queue1") == 2048
    h.update()
    h.kill_app(app1)
    h.heartbeat("n0000")
    assert h.running(app1) == 0 and h.running(app3) == 1 and am_usage(h, "root.queue1") == 2048
    app4 = am_app(h, "queue1", "2048 mb, 2 vcores")
    step()
    assert h.running(app4) == 0 and am_usage(h, "root.queue1") == 2048
    app5 = am_app(h, "queue1", "2048 mb, 2 vcores")
    step()
    assert h.running(app5) == 0 and am_usage(h, "root.queue1") == 2048
    h.kill_app(app4)
    step()
    assert h.running(app5) == 0 and am_usage(h, "root.queue1") == 2048
    h.kill_app(app2)
    h.kill_app(app3)
    step()
    assert h.running(app5) == 1 and am_usage(h, "root.queue1") == 2048
    h.add_requests(app5, [{"resources": "1024 mb, 1 vcores"}])
    step()
    assert h.running(app5) == 2 and am_usage(h, "root.queue1") == 2048
    h.kill_app(app5)
    h.update()
    assert am_usage(h, "root.queue1") == 0


def test_queue_max_am_share_normalizes_the_am() -> None:
    """``TestFairScheduler.testQueueMaxAMShare``'s last check, on its own: an AM of 1860 MB is
    counted as 2048 MB once normalized (increment 1024), so with 1024 MB of AM already
    running in a queue whose AM limit is 2048 MB it does not run."""
    xml = '<allocations><queue name="queue1"><maxAMShare>0.2</maxAMShare></queue></allocations>'
    h = harness("20480 mb, 20 vcores", xml)
    h.submit(queue="root.default", user="user1", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    app1 = am_app(h, "queue1", "1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app1) == 1
    app6 = am_app(h, "queue1", "1860 mb, 2 vcores")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app6) == 0 and am_usage(h, "root.queue1") == 1024


def test_queue_max_am_share_default() -> None:
    """``TestFairScheduler.testQueueMaxAMShareDefault``: maximum allocation 6 vcores; queue2
    maxAMShare 0.4, queue3 max 10240 MB/4 vc; an 8192 MB/10 vc node; queues 3, 4 and 5 run 1
    GB each. Queue1's 1 GB AM runs (fair share 2048, default share 0.5); queue2's does not
    (fair share 1639 × 0.4); in queue3 an AM of 1024 MB/6 vc (all the vcores left) and one
    of 1024/5 (over its max of 4) do not run."""
    xml = """<allocations><queue name="queue1"/><queue name="queue2"><maxAMShare>0.4</maxAMShare></queue>
      <queue name="queue3"><maxResources>10240 mb 4 vcores</maxResources></queue>
      <queue name="queue4"/><queue name="queue5"/>
      <defaultQueueSchedulingPolicy>fair</defaultQueueSchedulingPolicy></allocations>"""
    h = harness("8192 mb, 10 vcores", xml, cluster={"maximum_allocation": "10240 mb, 6 vcores"})
    h.update()
    for q in ("root.queue1", "root.queue2", "root.queue3", "root.queue4", "root.queue5"):
        assert fair(h, q) == 0
    for q in ("root.queue3", "root.queue4", "root.queue5"):
        h.submit(queue=q, user="user1", resources="1024 mb, 1 vcores")
        h.update()
        h.heartbeat("n0000")
    app1 = am_app(h, "queue1", "1024 mb, 1 vcores", user="test1")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app1) == 1 and am_usage(h, "root.queue1") == 1024
    app2 = am_app(h, "queue2", "1024 mb, 1 vcores", user="test1")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app2) == 0 and am_usage(h, "root.queue2") == 0
    h.kill_app(app2)
    h.update()
    app3 = am_app(h, "queue3", "1024 mb, 6 vcores", user="test1")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app3) == 0 and am_usage(h, "root.queue3") == 0
    app4 = am_app(h, "queue3", "1024 mb, 5 vcores", user="test1")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app4) == 0 and am_usage(h, "root.queue3") == 0
