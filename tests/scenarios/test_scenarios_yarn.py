"""YARN Fair Scheduler worked cases through the harness in resource mode
(../shared/scenarios/yarn.md; Hadoop's ``TestFairScheduler``,
``TestFairSchedulerFairShare``, ``TestMaxRunningAppsEnforcer``)."""

from __future__ import annotations

import pytest

from corescheduler.testing import ClusterHarness, SubmissionRejected

RESOURCES = {"scheduler": {"mode": "resources"}}


def harness(node: str, xml: str | None = None, nodes: int = 1, config: dict | None = None) -> ClusterHarness:
    cfg = {"scheduler": {"mode": "resources", **(config or {})}}
    return ClusterHarness(racks=1, nodes_per_rack=nodes, node_resources=node, config=cfg,
                          allocations=xml or "<allocations/>")


def fair(h: ClusterHarness, queue: str) -> int:
    return h.shares()["queues"][queue]["fair"]["memory"]


def steady(h: ClusterHarness, queue: str) -> int:
    return h.shares()["queues"][queue]["steady"]["memory"]


def test_s11_simple_fair_share_calculation() -> None:
    """``TestFairScheduler.testSimpleFairShareCalculation``: three leaves with apps on
    10240 MB get 3414 each (``ComputeFairShares``: truncation, upper bracket), steady too."""
    h = harness("10240 mb, 10 vcores")
    for q in ("queue1", "queue2", "root.default"):
        h.submit(queue=q, tasks=10, resources="1024 mb, 1 vcores")
    h.update()
    for q in ("root.queue1", "root.queue2", "root.default"):
        assert fair(h, q) == 3414 and steady(h, q) == 3414


def test_s18_simple_hierarchical_fair_share_calculation() -> None:
    """``testSimpleHierarchicalFairShareCalculation``: 240 MB; apps in parent.queue2,
    parent.queue3 and root.default → default 120, queue2 = queue3 = 60 (fair and steady)."""
    h = harness("240 mb, 10 vcores")
    for q in ("parent.queue2", "parent.queue3", "root.default"):
        h.submit(queue=q, tasks=10, resources="1024 mb, 1 vcores")
    h.update()
    assert fair(h, "root.default") == 120 and steady(h, "root.default") == 120
    for q in ("root.parent.queue2", "root.parent.queue3"):
        assert fair(h, q) == 60 and steady(h, q) == 60


def test_s19_fair_share_with_min_alloc() -> None:
    """``testFairShareWithMinAlloc``: 3072 MB; queueA min 1024, queueB min 2048, each
    demanding 2048 → 1024 and 2048 (root.default is inactive: 0)."""
    xml = """<allocations>
      <queue name="queueA"><minResources>1024mb,0vcores</minResources></queue>
      <queue name="queueB"><minResources>2048mb,0vcores</minResources></queue>
    </allocations>"""
    h = harness("3072 mb, 3 vcores", xml)
    h.submit(queue="queueA", tasks=2, resources="1024 mb, 1 vcores")
    h.submit(queue="queueB", tasks=2, resources="1024 mb, 1 vcores")
    h.update()
    assert fair(h, "root.queueA") == 1024 and fair(h, "root.queueB") == 2048
    assert fair(h, "root.default") == 0


HIERARCHY = """<allocations>
  <queue name="parentA"><weight>8</weight>
    <queue name="childA1"/><queue name="childA2"/><queue name="childA3"/><queue name="childA4"/>
  </queue>
  <queue name="parentB"><weight>1</weight><queue name="childB1"/><queue name="childB2"/></queue>
  <defaultQueueSchedulingPolicy>{policy}</defaultQueueSchedulingPolicy>
</allocations>"""


@pytest.mark.parametrize("policy", ["fair", "drf"])
def test_s28_fair_share_multiple_active_queues_under_different_parent(policy: str) -> None:
    """``TestFairSchedulerFairShare.testFairShareMultipleActiveQueuesUnderDifferentParent``:
    apps in childA1, childA2, childB1 and root.default on 16384 MB: childA1 = childA2 = 40 %,
    childB1 = 10 %; steady: each childA 20 %, each childB 5 % (±0.9 points, as the test)."""
    h = harness("16384 mb, 16 vcores", HIERARCHY.format(policy=policy))
    for q in ("root.parentA.childA1", "root.parentA.childA2", "root.parentB.childB1", "root.default"):
        h.submit(queue=q, tasks=4, resources="1024 mb, 1 vcores")
    h.update()
    cluster = 16384
    assert abs(fair(h, "root.parentA.childA1") / cluster * 100 - 40) < 0.9
    assert abs(fair(h, "root.parentA.childA2") / cluster * 100 - 40) < 0.9
    assert abs(fair(h, "root.parentB.childB1") / cluster * 100 - 10) < 0.9
    for child in ("childA1", "childA2", "childA3", "childA4"):
        assert abs(steady(h, f"root.parentA.{child}") / cluster - 0.2) < 0.001
    for child in ("childB1", "childB2"):
        assert abs(steady(h, f"root.parentB.{child}") / cluster - 0.05) < 0.001
    assert fair(h, "root.parentA.childA3") == 0  # inactive


def test_fs5_fair_share_resets_to_zero_when_apps_complete() -> None:
    """``testFairShareResetsToZeroWhenAppsComplete``: A1 and A2 share parentA 50/50;
    when A1's app ends A2 gets all of it and A1 none."""
    h = harness("16384 mb, 16 vcores", HIERARCHY.format(policy="fair"))
    a1 = h.submit(queue="root.parentA.childA1", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="root.parentA.childA2", tasks=4, resources="1024 mb, 1 vcores")
    h.update()
    assert fair(h, "root.parentA.childA1") == fair(h, "root.parentA.childA2") == 8192
    (t,) = [a for a in h.heartbeat("n0000") if a.job == a1.id] or [None]
    if t is None:
        (t,) = [a for a in h.heartbeat("n0000") if a.job == a1.id]
    h.finish(t)
    h.update()
    assert fair(h, "root.parentA.childA1") == 0 and fair(h, "root.parentA.childA2") == 16384


def test_f4_fair_share_is_not_capped_by_demand() -> None:
    """``testFairShareWithHighMaxResources``: weights 0.25 / 0.75 on 8 GB; A wants 1 GB,
    B 6 GB → A's share is 2048 (YARN does not cap a share by demand), B's 6144."""
    xml = """<allocations>
      <queue name="queueA"><weight>.25</weight><maxResources>1073741824 mb 1000 vcores</maxResources></queue>
      <queue name="queueB"><weight>.75</weight><maxResources>1073741824 mb 1000 vcores</maxResources></queue>
    </allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    h.submit(queue="queueA", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="queueB", tasks=6, resources="1024 mb, 1 vcores")
    h.update()
    assert fair(h, "root.queueA") == 2048 and fair(h, "root.queueB") == 6144


def test_f5_max_resources_cap_what_a_queue_runs() -> None:
    """``testFairShareWithLowMaxResources``: A max 1024 MB/1 vc (w .75), B max 3072/3 (w .25);
    A wants 2 × 1 GB, B 4 × 1 GB; after 6 heartbeats A holds 1 container, B 3, and the fair
    shares are 1024 and 3072."""
    xml = """<allocations>
      <queue name="queueA"><maxResources>1024 mb 1 vcores</maxResources><weight>.75</weight></queue>
      <queue name="queueB"><maxResources>3072 mb 3 vcores</maxResources><weight>.25</weight></queue>
    </allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    a = h.submit(queue="queueA", tasks=2, resources="1024 mb, 1 vcores")
    b = h.submit(queue="queueB", tasks=4, resources="1024 mb, 1 vcores")
    h.update()
    for _ in range(6):
        h.heartbeat("n0000")
    assert fair(h, "root.queueA") == 1024 and fair(h, "root.queueB") == 3072
    assert h.running(a) == 1 and h.running(b) == 3


def test_f7_f8_zero_weights() -> None:
    """``testFairShareWithZeroWeight``: weight 0 queues get 0; with a min share of 1 MB
    (``testFairShareWithZeroWeightNoneZeroMinRes``) they get exactly their min."""
    xml = """<allocations><queue name="queueA"><weight>0.0</weight>{m}</queue>
      <queue name="queueB"><weight>0.0</weight>{m}</queue></allocations>"""
    h = harness("8192 mb, 8 vcores", xml.format(m=""))
    h.submit(queue="queueA", tasks=2, resources="1024 mb, 1 vcores")
    h.submit(queue="queueB", tasks=6, resources="1024 mb, 1 vcores")
    h.update()
    assert fair(h, "root.queueA") == 0 and fair(h, "root.queueB") == 0
    h = harness("8192 mb, 8 vcores", xml.format(m="<minResources>1 mb 1 vcores</minResources>"))
    h.submit(queue="queueA", tasks=2, resources="1024 mb, 1 vcores")
    h.submit(queue="queueB", tasks=6, resources="1024 mb, 1 vcores")
    h.update()
    assert fair(h, "root.queueA") == 1 and fair(h, "root.queueB") == 1


def test_f14_steady_share_of_a_queue_created_at_run_time() -> None:
    """``testSteadyFairShareWithQueueCreatedRuntime``: 6144 MB: root.default's steady share is
    all of it; once user1's app creates root.user1, default and user1 have 3072 each."""
    h = harness("6144 mb, 6 vcores")
    h.update()
    assert steady(h, "root.default") == 6144
    h.submit(queue="user1", user="user1", tasks=1, resources="1024 mb, 1 vcores")
    h.update()
    assert steady(h, "root.default") == 3072 and steady(h, "root.user1") == 3072


def test_f13_steady_shares_follow_nodes_and_reloads() -> None:
    """``testSteadyFairShareWithReloadAndNodeAddRemove``: drf root, child1 and child2 (+
    default): no node → 0; a 6144 MB node → 2048 each; reload with weights 1, 2, 2 (child3
    new) → 1024 / 2048 / 2048 (default 1024); the node leaves → 0."""
    xml = """<allocations><defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
      <queue name="child1"><weight>1</weight></queue><queue name="child2"><weight>1</weight></queue>
      </allocations>"""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="6144 mb, 6 vcores",
                       config=RESOURCES, allocations=xml)
    h.remove_node("n0000")
    assert steady(h, "root.child1") == 0
    h.add_node("n0001", resources="6144 mb, 6 vcores")
    assert steady(h, "root.child1") == steady(h, "root.child2") == steady(h, "root.default") == 2048
    h.set_allocations("""<allocations><defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
      <queue name="child1"><weight>1</weight></queue><queue name="child2"><weight>2</weight></queue>
      <queue name="child3"><weight>2</weight></queue></allocations>""")
    assert steady(h, "root.child1") == 1024 and steady(h, "root.child2") == 2048
    assert steady(h, "root.child3") == 2048 and steady(h, "root.default") == 1024
    h.remove_node("n0001")
    assert steady(h, "root.child1") == 0


def test_a_parent_queue_or_a_queue_under_a_leaf_is_rejected() -> None:
    """``FairScheduler.addApplication``: "<q> is not a leaf queue" (``QueueManager.getLeafQueue``)."""
    h = harness("8192 mb, 8 vcores", "<allocations><queue name='p'><queue name='c'/></queue></allocations>")
    with pytest.raises(SubmissionRejected, match=r"root\.p is not a leaf queue"):
        h.submit(queue="root.p", tasks=1, resources="1024 mb, 1 vcores")
    with pytest.raises(SubmissionRejected, match="not a leaf queue"):
        h.submit(queue="root.p.c.grandchild", tasks=1, resources="1024 mb, 1 vcores")
    assert h.scheduler.jobs == {}


def test_acls_refuse_a_submission_with_a_clear_reason() -> None:
    """``FairScheduler.addApplication``: submit or administer access on the queue or above."""
    xml = """<allocations><queue name="root"><aclSubmitApps> </aclSubmitApps><aclAdministerApps> </aclAdministerApps>
      <queue name="prod"><aclSubmitApps>alice etl</aclSubmitApps></queue></queue></allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    h.submit(queue="prod", user="alice", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="prod", user="bob", groups=["etl"], tasks=1, resources="1024 mb, 1 vcores")
    with pytest.raises(SubmissionRejected, match="User carol does not have permission to submit"):
        h.submit(queue="prod", user="carol", tasks=1, resources="1024 mb, 1 vcores")
    assert len(h.scheduler.jobs) == 2


# --------------------------------------------------------------------------- running-app limits


def _end(h: ClusterHarness, job) -> None:
    """Run and finish every task of ``job`` (it must be runnable), so the app ends."""
    for task in [t for t in h.scheduler._running_tasks.values() if t.job.id == job.id and not t.is_am]:
        h.finish(task)
        h.update()
    for _ in range(100):
        if h.job(job).is_finished:
            return
        for node in list(h.scheduler.cluster.nodes):
            for a in h.heartbeat(node):
                if a.job == job.id:
                    h.finish(a)
                    h.update()
    raise AssertionError(f"{job.id} did not finish")


def _runnable(h: ClusterHarness, queue: str) -> tuple[int, int]:
    q = h.shares()["queues"][queue]
    return q["runnable_apps"], q["waiting_apps"]


def test_m1_remove_does_not_enable_any_app() -> None:
    """``TestMaxRunningAppsEnforcer.testRemoveDoesNotEnableAnyApp``: root 2, queue1 1, queue2 1;
    apps in queue1, queue2, queue2: the third waits, and still waits after queue1's ends."""
    xml = """<allocations><queue name="root"><maxRunningApps>2</maxRunningApps>
      <queue name="queue1"><maxRunningApps>1</maxRunningApps></queue>
      <queue name="queue2"><maxRunningApps>1</maxRunningApps></queue></queue></allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    a1 = h.submit(queue="queue1", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="queue2", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="queue2", tasks=1, resources="1024 mb, 1 vcores")
    assert _runnable(h, "root.queue1") == (1, 0) and _runnable(h, "root.queue2") == (1, 1)
    _end(h, a1)
    assert _runnable(h, "root.queue1") == (0, 0) and _runnable(h, "root.queue2") == (1, 1)


COUSINS = """<allocations><queue name="queue1"><maxRunningApps>2</maxRunningApps>
  <queue name="sub1"><queue name="leaf1"/></queue><queue name="sub2"><queue name="leaf2"/></queue>
  </queue>{extra}</allocations>"""


def test_m2_m5_removal_enables_apps_on_cousin_queues() -> None:
    """``testRemoveEnablesAppOnCousinQueue`` / ``testMultipleAppsWaitingOnCousinQueue``: queue1
    runs at most 2; apps in leaf1, leaf2, leaf2, leaf2: when leaf1's ends, one of leaf2's
    waiting apps runs (leaf2: 2 runnable, 1 waiting)."""
    h = harness("8192 mb, 8 vcores", COUSINS.format(extra=""))
    a1 = h.submit(queue="queue1.sub1.leaf1", tasks=1, resources="1024 mb, 1 vcores")
    for _ in range(3):
        h.submit(queue="queue1.sub2.leaf2", tasks=1, resources="1024 mb, 1 vcores")
    assert _runnable(h, "root.queue1.sub2.leaf2") == (1, 2)
    _end(h, a1)
    assert _runnable(h, "root.queue1.sub1.leaf1") == (0, 0)
    assert _runnable(h, "root.queue1.sub2.leaf2") == (2, 1)


def test_m3_removal_enables_one_by_queue_and_one_by_user() -> None:
    """``testRemoveEnablesOneByQueueOneByUser``: leaf1 runs at most 2, user1 at most 1; apps
    leaf1/user1, leaf1/user2, leaf1/user3, leaf2/user1: when the first ends, user3's (freed by
    the queue) and leaf2's user1 app (freed by the user limit) both run."""
    xml = """<allocations><queue name="leaf1"><maxRunningApps>2</maxRunningApps></queue><queue name="leaf2"/>
      <user name="user1"><maxRunningApps>1</maxRunningApps></user></allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    first = h.submit(queue="leaf1", user="user1", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="leaf1", user="user2", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="leaf1", user="user3", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="leaf2", user="user1", tasks=1, resources="1024 mb, 1 vcores")
    assert _runnable(h, "root.leaf1") == (2, 1) and _runnable(h, "root.leaf2") == (0, 1)
    _end(h, first)
    assert _runnable(h, "root.leaf1") == (2, 0) and _runnable(h, "root.leaf2") == (1, 0)


def test_m4_waiting_apps_are_enabled_in_start_time_order() -> None:
    """``testRemoveEnablingOrderedByStartTime``: the older waiting app (leaf2's) runs before a
    newer one in the cousin queue leaf1."""
    h = harness("8192 mb, 8 vcores", COUSINS.format(extra=""))
    a1 = h.submit(queue="queue1.sub1.leaf1", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="queue1.sub2.leaf2", tasks=1, resources="1024 mb, 1 vcores")
    old = h.submit(queue="queue1.sub2.leaf2", tasks=1, resources="1024 mb, 1 vcores")
    h.clock_only(0.02)
    new = h.submit(queue="queue1.sub1.leaf1", tasks=1, resources="1024 mb, 1 vcores")
    _end(h, a1)
    assert h.job(old).runnable and not h.job(new).runnable
    assert _runnable(h, "root.queue1.sub2.leaf2") == (2, 0) and _runnable(h, "root.queue1.sub1.leaf1") == (0, 1)


# --------------------------------------------------------------------------- AM share, reservations


def test_max_am_share_holds_back_applications_masters() -> None:
    """``FSLeafQueue.canRunAppAM``: AMs of a queue may use at most ``maxAMShare`` of its fair
    share (8192 MB × 0.5 = 4096: two 2048 MB AMs); the third app's AM waits until one ends."""
    xml = "<allocations><queue name='q'><maxAMShare>0.5</maxAMShare></queue></allocations>"
    h = harness("8192 mb, 8 vcores", xml)
    apps = [h.submit(queue="q", tasks=1, resources="1024 mb, 1 vcores", am_resources="2048 mb, 1 vcores")
            for _ in range(3)]
    h.update()
    started = [a for _ in range(6) for a in h.heartbeat("n0000")]
    ams = [a for a in started if a.kind == "am"]
    assert {a.job for a in ams} == {apps[0].id, apps[1].id}
    assert not h.job(apps[2]).am_running
    _end(h, apps[0])
    later = [a for _ in range(3) for a in h.heartbeat("n0000")]
    assert any(a.kind == "am" and a.job == apps[2].id for a in later)


def _reservation_case(reservable_nodes: float) -> tuple[ClusterHarness, object, object]:
    h = harness("4096 mb, 4 vcores", "<allocations><queue name='small'/><queue name='big'/></allocations>",
                config={"reservable_nodes": reservable_nodes})
    small = h.submit(queue="small", tasks=12, resources="1024 mb, 1 vcores")
    h.update()
    for _ in range(4):
        h.heartbeat("n0000")  # the node is full of small containers
    big = h.submit(queue="big", tasks=1, resources="3072 mb, 1 vcores")
    h.update()
    assert h.heartbeat("n0000") == []  # big's turn: it does not fit
    return h, small, big


def test_a_big_container_reserves_the_node_until_enough_is_free() -> None:
    """``FSAppAttempt.reserve`` / ``FairScheduler.attemptScheduling``: the node is reserved for
    the big app (below its fair share, request ≥ the 2048 MB threshold); freed memory is not
    given to small containers; once 3072 MB are free the big container runs."""
    h, small, big = _reservation_case(0.05)
    assert h.scheduler.cluster.nodes["n0000"].reserved is not None
    running = [t for t in h.scheduler._running_tasks.values() if t.job is small]
    for task in running[:3]:
        h.finish(task)
        h.update()
        got = h.heartbeat("n0000")
        if task is running[2]:
            assert [(a.job, a.resources.memory) for a in got] == [(big.id, 3072)]
        else:
            assert got == []  # held for the reservation
    assert h.scheduler.cluster.nodes["n0000"].reserved is None


def test_without_reservations_small_containers_take_every_freed_slot() -> None:
    """``reservable_nodes = 0``: no reservation (``reservationExceedsThreshold``): each freed
    1024 MB goes to a small container and the big one waits."""
    h, small, big = _reservation_case(0.0)
    running = [t for t in h.scheduler._running_tasks.values() if t.job is small]
    for task in running[:3]:
        h.finish(task)
        h.update()
        assert [a.job for a in h.heartbeat("n0000")] == [small.id]
    assert h.running(big) == 0


# --------------------------------------------------------------------------- placement (S36)


def _groups(user: str) -> list[str]:
    return [f"{user}group", f"{user}subgroup1", f"{user}subgroup2"]


def placed(policy: str, queues: str = "") -> ClusterHarness:
    xml = f"<allocations>{queues}<queuePlacementPolicy>{policy}</queuePlacementPolicy></allocations>"
    return harness("8192 mb, 8 vcores", xml, config={"pool_resolver": "rules"})


def place(h: ClusterHarness, requested: str, user: str) -> str:
    app = h.submit(queue=requested, user=user, groups=_groups(user), tasks=1, resources="1024 mb, 1 vcores")
    return h.queue_of(app)


def test_s36_specified_then_user() -> None:
    """``TestQueuePlacementPolicy.testSpecifiedUserPolicy``: the requested queue, else the user's."""
    h = placed('<rule name="specified"/><rule name="user"/>')
    assert place(h, "specifiedq", "someuser") == "root.specifiedq"
    assert place(h, "default", "someuser") == "root.someuser"
    assert place(h, "default", "otheruser") == "root.otheruser"


def test_s36_no_create_then_default() -> None:
    """``testNoCreate``: user(create=false) only where the queue is configured, else default."""
    h = placed('<rule name="specified"/><rule name="user" create="false"/><rule name="default"/>',
               '<queue name="someuser"/>')
    assert place(h, "default", "someuser") == "root.someuser"
    assert place(h, "specifiedq", "otheruser") == "root.specifiedq"
    assert place(h, "default", "otheruser") == "root.default"


def test_s36_reject_rule_refuses_the_app() -> None:
    """``testSpecifiedThenReject``: nothing specified → rejected."""
    h = placed('<rule name="specified"/><rule name="reject"/>')
    assert place(h, "specifiedq", "someuser") == "root.specifiedq"
    with pytest.raises(SubmissionRejected, match="reject"):
        place(h, "default", "someuser")


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ('<rule name="specified"/><rule name="user" create="false"/>',
         "Could get past last queue placement rule without assigning"),
        ('<rule name="specified"/><rule name="default"/><rule name="user"/>',
         "Rules after rule 2 in queue placement policy can never be reached"),
    ],
)
def test_s36_bad_policies_are_refused_at_load(policy: str, message: str) -> None:
    """``testTerminalRuleInMiddle`` / ``testNoCreate``'s parse errors (``QueuePlacementPolicy.fromXml``)."""
    from corescheduler.errors import AllocationError

    with pytest.raises(AllocationError, match=message):
        placed(policy)


def test_groups_and_nested_user_queues() -> None:
    """``testPrimaryGroup``, ``testSecondaryGroup`` and ``testNestedUserQueue*``: a user's
    primary group queue; the first of their groups that is a configured queue; a user queue
    under the queue a parent rule names; dots in names become ``_dot_``."""
    h = placed('<rule name="primaryGroup" create="false"/><rule name="secondaryGroupExistingQueue"/>'
               '<rule name="nestedUserQueue"><rule name="secondaryGroupExistingQueue"/></rule>'
               '<rule name="default"/>',
               '<queue name="alicegroup"/><queue name="bobsubgroup1"/>'
               '<queue name="carolsubgroup2" type="parent"/>')
    assert place(h, "default", "alice") == "root.alicegroup"
    assert place(h, "default", "bob") == "root.bobsubgroup1"
    with pytest.raises(SubmissionRejected, match=r"root\.carolsubgroup2 is not a leaf queue"):
        place(h, "default", "carol")  # the rule names a configured parent: YARN refuses at addApplication
    h = placed('<rule name="nestedUserQueue"><rule name="secondaryGroupExistingQueue"/></rule>'
               '<rule name="default"/>', '<queue name="carolsubgroup2" type="parent"/>')
    assert place(h, "default", "carol") == "root.carolsubgroup2.carol"
    h = placed('<rule name="nestedUserQueue"><rule name="secondaryGroupExistingQueue"/></rule>'
               '<rule name="default"/>', '<queue name="first.lastsubgroup1" type="parent"/>'.replace(".", "_dot_"))
    assert place(h, "default", "first.last") == "root.first_dot_lastsubgroup1.first_dot_last"


def test_yarn_default_placement_without_a_policy() -> None:
    """``QueuePlacementPolicy.fromConfiguration``: specified, then the user's queue
    (``user_as_default_queue``); with it off, ``root.default``."""
    h = harness("8192 mb, 8 vcores", config={"pool_resolver": "rules"})
    assert place(h, "default", "alice") == "root.alice"
    assert place(h, "prod", "alice") == "root.prod"
    h = harness("8192 mb, 8 vcores", config={"pool_resolver": "rules", "user_as_default_queue": False})
    assert place(h, "default", "alice") == "root.default"


# --------------------------------------------------------------------------- preemption


PREEMPT = """<allocations>
  <queue name="a"><fairSharePreemptionTimeout>10</fairSharePreemptionTimeout>{a}</queue>
  <queue name="b"><fairSharePreemptionTimeout>10</fairSharePreemptionTimeout>{b}</queue>
  <defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>
</allocations>"""


def _preempt_case(a: str = "", b: str = "") -> tuple[ClusterHarness, object, object]:
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="4096 mb, 4 vcores",
                       config={"scheduler": {"mode": "resources", "preemption": True}},
                       allocations=PREEMPT.format(a=a, b=b))
    greedy = h.submit(queue="a", tasks=8, resources="1024 mb, 1 vcores")
    h.update()
    for _ in range(4):
        h.heartbeat("n0000")
        h.heartbeat("n0001")
    late = h.submit(queue="b", tasks=8, resources="1024 mb, 1 vcores")
    return h, greedy, late


def test_fair_share_starvation_preempts_after_the_timeout() -> None:
    """``FSAppAttempt.fairShareStarvation`` and ``FSPreemptionThread``: queue b is below its
    fair share (4096 MB of 8192); after ``fairSharePreemptionTimeout`` containers of a (above
    its share) are killed — no more than takes a to its fair share — and b gets them."""
    h, greedy, late = _preempt_case()
    assert h.advance(5) == []  # not yet: the timeout is 10 s
    killed = h.advance(6)
    assert killed and all(t.job is greedy for t in killed)
    assert h.job(greedy).usage.memory >= 4096
    got = [a for n in ("n0000", "n0001") for a in h.heartbeat(n)]
    assert got and all(a.job == late.id for a in got)


def test_no_preemption_from_a_queue_that_does_not_allow_it() -> None:
    """``allowPreemptionFrom = false``: its containers are never taken (``canContainerBePreempted``)."""
    h, _, _ = _preempt_case(a="<allowPreemptionFrom>false</allowPreemptionFrom>")
    h.advance(5)
    assert h.advance(6) == []


def test_min_share_starvation_preempts_after_its_timeout() -> None:
    """``FSLeafQueue.updateStarvedAppsMinshare``: b below min(min share, demand) for longer than
    ``minSharePreemptionTimeout`` is owed the difference."""
    xml = """<allocations>
      <queue name="a"/>
      <queue name="b"><minResources>3072 mb, 3 vcores</minResources>
        <minSharePreemptionTimeout>5</minSharePreemptionTimeout></queue>
    </allocations>"""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="4096 mb, 4 vcores",
                       config={"scheduler": {"mode": "resources", "preemption": True}}, allocations=xml)
    greedy = h.submit(queue="a", tasks=8, resources="1024 mb, 1 vcores")
    h.update()
    for _ in range(4):
        h.heartbeat("n0000")
    h.submit(queue="b", tasks=8, resources="1024 mb, 1 vcores")
    assert h.advance(3) == []
    killed = h.advance(3)
    assert len(killed) == 3 and all(t.job is greedy for t in killed)


# --------------------------------------------------------------------------- review findings (regressions)


def _one_node(xml: str = "<allocations/>", **scheduler) -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores",
                          config={"scheduler": {"mode": "resources", **scheduler}}, allocations=xml)


def test_a_killed_am_is_asked_for_again_at_once() -> None:
    """A killed AM container is pending again and served by the next heartbeat."""
    h = _one_node()
    app = h.submit(queue="q", tasks=1, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    (am,) = h.heartbeat("n0000")
    h.heartbeat("n0000")
    h.kill(am)
    assert [a.kind for a in h.heartbeat("n0000")] == ["am"] and app.am_running


def test_computing_reduces_are_released_from_the_node() -> None:
    h = _one_node()
    h.submit(queue="q", maps=1, reduces=2, resources="1024 mb, 1 vcores")
    (m,) = h.heartbeat("n0000")
    h.finish(m)
    (r1,) = h.heartbeat("n0000")
    (r2,) = h.heartbeat("n0000")
    h.copy_done(r1)
    h.copy_done(r2)
    h.finish(r1)
    h.kill(r2)
    assert h.scheduler.cluster.nodes["n0000"].computing == 0


def test_fifo_leaf_serves_priority_first() -> None:
    """``FifoPolicy``'s comparator: priority, then start time."""
    h = _one_node("<allocations><queue name='q'><schedulingPolicy>fifo</schedulingPolicy></queue></allocations>")
    h.submit(queue="q", tasks=4, resources="1024 mb, 1 vcores", priority="VERY_LOW")
    h.advance(1)
    high = h.submit(queue="q", tasks=4, resources="1024 mb, 1 vcores", priority="VERY_HIGH")
    assert h.heartbeat("n0000")[0].job == high.id


def test_a_queue_whose_type_changed_while_busy_changes_once_empty() -> None:
    """``QueueManager.removePendingIncompatibleQueues``: retried until the queue is empty."""
    h = _one_node("<allocations><queue name='x'/></allocations>")
    h.submit(queue="x", tasks=1, resources="1024 mb, 1 vcores")
    (t,) = h.heartbeat("n0000")
    h.set_allocations("<allocations><queue name='x'><queue name='c'/></queue></allocations>")
    h.finish(t)
    h.advance(1)
    app = h.submit(queue="x.c", tasks=1, resources="1024 mb, 1 vcores")
    assert h.queue_of(app) == "root.x.c"


def test_nested_user_queue_passes_over_an_existing_dynamic_leaf() -> None:
    """``UserPlacementRule`` with a parent rule: a parent that is a leaf (created at run time too) passes."""
    h = _one_node(pool_resolver="rules")
    h.submit(queue="eng", user="carol", tasks=1, resources="1024 mb, 1 vcores")
    h.set_allocations("""<allocations><queuePlacementPolicy>
      <rule name="nestedUserQueue"><rule name="specified"/></rule><rule name="specified"/><rule name="default"/>
      </queuePlacementPolicy></allocations>""")
    app = h.submit(queue="eng", user="bob", tasks=1, resources="1024 mb, 1 vcores")
    assert h.queue_of(app) == "root.eng"


def test_nothing_is_created_under_a_reservation_queue() -> None:
    h = _one_node("<allocations><queue name='plan'><reservation/></queue></allocations>")
    for queue in ("plan", "plan.x"):
        with pytest.raises(SubmissionRejected, match="not a leaf queue"):
            h.submit(queue=queue, tasks=1, resources="1024 mb, 1 vcores")


def test_preemption_kills_no_more_than_the_starvation() -> None:
    """b is owed half its fair share (threshold 0.5): two containers, not three."""
    xml = """<allocations><queue name="a"/><queue name="b"/>
      <defaultFairSharePreemptionTimeout>5</defaultFairSharePreemptionTimeout></allocations>"""
    h = _one_node(xml, preemption=True)
    h.submit(queue="a", tasks=8, resources="1024 mb, 1 vcores")
    for _ in range(8):
        h.heartbeat("n0000")
    b = h.submit(queue="b", tasks=8, resources="1024 mb, 1 vcores")
    h.advance(3)
    assert len(h.advance(3)) == 2
    assert {a.job for a in h.heartbeat("n0000")} == {b.id}


def test_two_starved_apps_each_get_what_was_freed_for_them() -> None:
    xml = """<allocations><queue name="a"/><queue name="b"/><queue name="c"/>
      <defaultFairSharePreemptionTimeout>5</defaultFairSharePreemptionTimeout>
      <defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold></allocations>"""
    h = _one_node(xml, preemption=True)
    h.submit(queue="a", tasks=8, resources="1024 mb, 1 vcores")
    for _ in range(8):
        h.heartbeat("n0000")
    b = h.submit(queue="b", tasks=8, resources="1024 mb, 1 vcores")
    c = h.submit(queue="c", tasks=8, resources="1024 mb, 1 vcores")
    h.advance(3)
    assert h.advance(3)
    got = {a.job for a in h.heartbeat("n0000")}
    assert got == {b.id, c.id}


def test_a_reload_that_changes_policies_and_releases_waiting_apps() -> None:
    """Orders are rebuilt with the new policies before waiting apps become runnable."""
    x1 = """<allocations><defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
      <queue name="p"/><queue name="q"><maxRunningApps>1</maxRunningApps></queue></allocations>"""
    h = _one_node(x1)
    h.submit(queue="p", tasks=2, resources="1024 mb, 1 vcores")
    h.submit(queue="q", tasks=2, resources="1024 mb, 1 vcores")
    h.advance(5)
    waiting = h.submit(queue="q", tasks=2, resources="1024 mb, 1 vcores")
    h.set_allocations("<allocations><queue name='p'/><queue name='q'><maxRunningApps>2</maxRunningApps></queue>"
                      "</allocations>")
    assert waiting.runnable and waiting.start_time == 5.0
    assert len([a for _ in range(6) for a in h.heartbeat("n0000")]) == 6


def test_an_am_asking_for_what_the_queue_has_none_of_is_rejected() -> None:
    """``FairScheduler.addApplication``: "zero amount of resource for a requested resource"."""
    h = _one_node("<allocations><queue name='q'><maxResources>8192 mb, 0 vcores</maxResources></queue></allocations>")
    with pytest.raises(SubmissionRejected, match="zero amount of resource for a requested resource"):
        h.submit(queue="q", tasks=1, resources="1024 mb, 0 vcores", am_resources="1024 mb, 1 vcores")


def test_fair_share_starvation_starts_at_the_timeout_itself() -> None:
    """``fairShareStarvation``: starved once ``now - lastTimeAtFairShare >= timeout``."""
    xml = """<allocations><queue name="a"/><queue name="b"/>
      <defaultFairSharePreemptionTimeout>10</defaultFairSharePreemptionTimeout></allocations>"""
    h = _one_node(xml, preemption=True)
    h.submit(queue="a", tasks=8, resources="1024 mb, 1 vcores")
    for _ in range(8):
        h.heartbeat("n0000")
    h.submit(queue="b", tasks=8, resources="1024 mb, 1 vcores")
    assert len(h.advance(10)) == 2


def test_min_share_starvation_counts_every_resource() -> None:
    """``FSLeafQueue.minShareStarvation``: any resource below min(min share, demand) starves
    (here vcores: b holds its min share's memory but 1 of its 4 vcores: (0, 3) short).  The
    leaf's starvation is handed to b by ``updateStarvedAppsMinshare``: b's pending (3072, 3) is
    more than (0, 3) by the fair policy's measure (memory), so b is given (3072, 3) − (0, 3)."""
    xml = """<allocations><queue name="a"/>
      <queue name="b"><minResources>1024 mb, 4 vcores</minResources>
        <minSharePreemptionTimeout>1</minSharePreemptionTimeout></queue></allocations>"""
    # 512 MB asks kept as they are: the minimum and increment allocation at 512 MB (SPEC §6b
    # normalizes to 1024 MB by default), as Hadoop's tests set yarn.scheduler.minimum-allocation-mb
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", allocations=xml,
                       config={"scheduler": {"mode": "resources", "preemption": True},
                               "cluster": {"minimum_allocation": "512 mb, 1 vcores",
                                           "increment_allocation": "512 mb, 1 vcores"}})
    h.submit(queue="a", tasks=7, resources="512 mb, 1 vcores")
    for _ in range(7):
        h.heartbeat("n0000")
    b = h.submit(queue="b", tasks=4, resources="1024 mb, 1 vcores")
    for _ in range(4):
        h.heartbeat("n0000")
    h.advance(2)
    starved = h.scheduler._rs.starvation[b.id]
    assert (starved.memory, starved.vcores) == (3072, 0)


def test_no_second_preemption_for_the_same_app_within_the_recheck_wait() -> None:
    """``FSAppAttempt.preemptionTriggered``: after preempting for an app its starvation is not acted
    on again for ``waitTimeBeforeNextStarvationCheck`` (10 s)."""
    xml = """<allocations><queue name="a"/><queue name="b"/>
      <defaultFairSharePreemptionTimeout>5</defaultFairSharePreemptionTimeout>
      <defaultFairSharePreemptionThreshold>0.25</defaultFairSharePreemptionThreshold></allocations>"""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "preemption": True}}, allocations=xml)
    h.submit(queue="a", tasks=16, resources="1024 mb, 1 vcores")
    for _ in range(8):
        h.heartbeat("n0000")
        h.heartbeat("n0001")
    h.submit(queue="b", tasks=16, resources="1024 mb, 1 vcores")
    h.advance(3)
    assert len(h.advance(3)) == 2
    assert h.advance(1) == []


def test_max_container_allocation_refuses_larger_requests() -> None:
    xml = "<allocations><queue name='q'><maxContainerAllocation>1024 mb, 1 vcores</maxContainerAllocation></queue>" \
          "</allocations>"
    h = _one_node(xml)
    with pytest.raises(SubmissionRejected, match="maxContainerAllocation"):
        h.submit(queue="q", tasks=1, resources="4096 mb, 4 vcores")
    assert h.scheduler.jobs == {}


def test_apps_with_no_containers_end_at_once() -> None:
    h = _one_node()
    a = h.submit(queue="q", tasks=0, am_resources="1024 mb, 1 vcores")
    b = h.submit(queue="q", tasks=0)
    assert a.is_finished and b.is_finished and not a.am_running
    with pytest.raises(ValueError):
        h.submit(queue="q", tasks=-1)


def test_bad_requests_are_refused_cleanly() -> None:
    from corescheduler.errors import SchedulerStateError
    from corescheduler.resources import Resources

    h = _one_node()
    app = h.submit(queue="q", tasks=1, resources="1024 mb, 1 vcores")
    with pytest.raises(SchedulerStateError, match="target queue other not found or is not a leaf queue"):
        h.move(app, "other")
    with pytest.raises(SchedulerStateError, match="negative"):
        h.submit(queue="q", tasks=1, resources=Resources(-4096, 1))
    with pytest.raises(SchedulerStateError, match="negative"):
        h.add_node("n0009", resources=Resources(1024, -1))
    assert set(h.scheduler.cluster.nodes) == {"n0000"} and len(h.scheduler.jobs) == 1


def test_apps_without_a_user_count_against_the_default_user() -> None:
    h = _one_node("<allocations><userMaxAppsDefault>1</userMaxAppsDefault></allocations>")
    a = h.submit(queue="q", tasks=1, resources="1024 mb, 1 vcores")
    b = h.submit(queue="q", tasks=1, resources="1024 mb, 1 vcores")
    assert a.runnable and not b.runnable


def test_harness_demand_and_running_in_resource_mode() -> None:
    h = _one_node()
    app = h.submit(queue="q", tasks=4, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    assert h.demand(app) == {"memory": 4096, "vcores": 4} and h.demand("root.q") == {"memory": 4096, "vcores": 4}
    assert h.running(app) == 1 and h.running("root.q") == 1 and h.running("root") == 1


def test_killing_an_am_fails_the_attempt_and_its_containers() -> None:
    """YARN: the attempt's containers are killed with its AM; a new attempt starts with a new AM."""
    h = _one_node()
    app = h.submit(queue="q", tasks=2, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    (am,) = h.heartbeat("n0000")
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    assert h.running(app) == 3
    h.kill(am)
    assert h.running(app) == 0 and app.pending["task"] == 2
    assert [a.kind for a in h.heartbeat("n0000")] == ["am"]


def test_losing_a_node_with_an_am_and_its_containers() -> None:
    """A node leaving takes an app's AM and its containers: the attempt fails once, no error."""
    h = _one_node()
    app = h.submit(queue="q", tasks=2, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    for _ in range(3):
        h.heartbeat("n0000")
    h.add_node("n0001", resources="8192 mb, 8 vcores")
    lost = h.remove_node("n0000")
    assert {t.kind for t in lost} == {"am", "task"} and h.running(app) == 0
    assert [a.kind for a in h.heartbeat("n0001")] == ["am"]


def test_a_task_asking_for_a_type_the_queue_has_none_of_is_rejected() -> None:
    """Beyond YARN (which checks the AM only): such a task could never run."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="memory-mb=8192, vcores=8, gpu=4",
                       config={"scheduler": {"mode": "resources"}},
                       allocations="<allocations><queue name='q'><maxResources>4096 mb, 4 vcores</maxResources>"
                                   "</queue></allocations>")
    with pytest.raises(SubmissionRejected, match=r"zero amount of resource.*gpu"):
        h.submit(queue="q", tasks=1, resources="memory-mb=1024, vcores=1, gpu=1")
