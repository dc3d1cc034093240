"""More of Hadoop's YARN fair-scheduler unit tests, ported to the harness: ``TestAppRunnability``, ``TestFSLeafQueue``,
``TestSchedulingPolicy`` and ``TestQueuePlacementPolicy``
(moved from :mod:`test_yarn_fair_ported`, whose docstring has Hadoop's fixture).  Each test
names the Hadoop class and method it ports; the numbers are Hadoop's."""

from __future__ import annotations

import pytest
from test_yarn_fair_ported import GB, harness, leaves, reservations, reserved, simple_groups, usage
from test_yarn_fair_ported_preemption import MODES, PreemptionCluster
from test_yarn_fair_ported_scheduler import IDLE

from corescheduler.testing import ClusterHarness, SubmissionRejected


# --------------------------------------------------------------------------- TestAppRunnability
def test_app_addition_and_removal() -> None:
    """``TestAppRunnability.testAppAdditionAndRemoval``: an app for "user1" makes a second leaf,
    root.user1, with one runnable app; removed, the queue has none."""
    h = harness("8192 mb, 8 vcores")
    app = h.submit(queue="user1", user="user1")
    assert leaves(h) == {"root.default", "root.user1"}
    assert h.shares()["queues"]["root.user1"]["runnable_apps"] == 1
    h.kill_app(app)
    assert h.shares()["queues"].get("root.user1", {"runnable_apps": 0})["runnable_apps"] == 0


def test_preemption_variables_for_queue_created_at_run_time() -> None:
    """``TestAppRunnability.testPreemptionVariablesForQueueCreatedRuntime``: root's min-share
    timeout 10 s, fair-share timeout 15 s and threshold 0.6 are inherited by root.user1,
    created when user1 submits."""
    xml = """<allocations><queue name="root"><minSharePreemptionTimeout>10</minSharePreemptionTimeout>
      <fairSharePreemptionTimeout>15</fairSharePreemptionTimeout>
      <fairSharePreemptionThreshold>.6</fairSharePreemptionThreshold></queue></allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    app = h.submit(queue="user1", user="user1")
    assert h.queue_of(app) == "root.user1" and h.shares()["queues"]["root.user1"]["runnable_apps"] == 1
    qc = h.scheduler.allocations.queue_config()
    assert qc.min_share_preemption_timeout("root.user1") == 10
    assert qc.fair_share_preemption_timeout("root.user1") == 15
    assert abs(qc.fair_share_preemption_threshold("root.user1") - 0.6) < 0.001


def test_dont_allow_undeclared_pools() -> None:
    """``TestAppRunnability.testDontAllowUndeclaredPools``: allow-undeclared-pools false, queue
    jerry configured: (jerry, someuser) → jerry; (default, someuser) twice → default (not
    root.someuser, which may not be made); (jerry, jerry) → jerry."""
    h = harness("8192 mb, 8 vcores", '<allocations><queue name="jerry"/></allocations>',
                scheduler={"allow_undeclared_pools": False})

    def runnable(q: str) -> int:
        return h.shares()["queues"][q]["runnable_apps"]

    assert h.queue_of(h.submit(queue="jerry", user="someuser")) == "root.jerry"
    assert runnable("root.jerry") == 1
    h.submit(queue="default", user="someuser")
    assert (runnable("root.jerry"), runnable("root.default")) == (1, 1)
    h.submit(queue="default", user="someuser")
    assert (runnable("root.jerry"), runnable("root.default")) == (1, 2)
    h.submit(queue="jerry", user="jerry")
    assert (runnable("root.jerry"), runnable("root.default")) == (2, 2)
    assert "root.someuser" not in h.shares()["queues"]


def test_move_runnable_app_demand_and_usage() -> None:
    """``TestAppRunnability.testMoveRunnableApp``: an app of 3 × 1 GB in queue1 runs one on a
    1 GB node (usage 1024/1, demand 3072/3); moved to queue2, queue1 has no usage, no
    runnable app and (after an update) no demand; queue2 has them all; root one runnable app."""
    # Hadoop's test makes both leaves with getLeafQueue(…, true); here they are configured
    h = harness("1024 mb, 8 vcores", '<allocations><queue name="queue1"/><queue name="queue2"/></allocations>')
    app = h.submit(queue="queue1", user="user1", tasks=3, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    h.update()
    q = h.shares()["queues"]
    assert q["root.queue1"]["usage"] == {"memory": 1024, "vcores": 1}
    assert q["root.queue1"]["demand"] == {"memory": 3072, "vcores": 3}
    h.move(app, "queue2")
    q = h.shares()["queues"]
    assert h.queue_of(app) == "root.queue2"
    assert q["root.queue1"]["usage"] == {"memory": 0, "vcores": 0} and q["root.queue1"]["runnable_apps"] == 0
    assert q["root.queue2"]["usage"] == {"memory": 1024, "vcores": 1} and q["root.queue2"]["runnable_apps"] == 1
    assert q["root"]["runnable_apps"] == 1
    h.update()
    q = h.shares()["queues"]
    assert q["root.queue1"]["demand"] == {"memory": 0, "vcores": 0}
    assert q["root.queue2"]["demand"] == {"memory": 3072, "vcores": 3}


# --------------------------------------------------------------------------- TestFSLeafQueue
def test_leaf_queue_update_demand_is_capped_by_max_resources() -> None:
    """``TestFSLeafQueue.testUpdateDemand``: root.queue1 with maxResources 8192 MB; two apps
    each demanding 8192 MB: the queue's demand is its max share, 8192 MB
    (``FSLeafQueue.updateDemand``: componentwise min with getMaxShare)."""
    xml = '<allocations><queue name="queue1"><maxResources>8192 mb, 8 vcores</maxResources></queue></allocations>'
    h = harness("16384 mb, 16 vcores", xml)
    for _ in range(2):
        h.submit(queue="root.queue1", user="user1", tasks=8, resources="1024 mb, 1 vcores")
    h.update()
    assert h.demand("root.queue1") == {"memory": 8192, "vcores": 8}


@pytest.mark.parametrize(("test1", "runs"), [(3, True), (6, False)], ids=["ReturnsTrue", "ReturnsFalse"])
def test_can_run_app_am_with_a_custom_resource(test1: int, runs: bool) -> None:
    """``TestFSLeafQueue.testCanRunAppAMReturnsTrue`` / ``…ReturnsFalse``: resource type test1;
    queue1 max (8192 MB, 4 vc, 10 test1), maxAMShare 0.5; one node of (4096 MB, 10 vc, 25
    test1): the AM limit is (2048, 2, 5), so an AM of (2048, 2, 3 test1) runs and one of
    (2048, 2, 6 test1) does not."""
    xml = """<allocations><queue name="queue1"><maxResources>memory-mb=8192, vcores=4, test1=10</maxResources>
      <maxAMShare>0.5</maxAMShare></queue></allocations>"""
    h = harness("memory-mb=4096, vcores=10, test1=25", xml)
    app = h.submit_app(queue="root.queue1", user="user1", am_resources=f"memory-mb=2048, vcores=2, test1={test1}",
                       requests=[IDLE])
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == (1 if runs else 0)


def test_resource_usage_by_move_app() -> None:
    """``TestFairScheduler.testResourceUsageByMoveApp``: a 1 GB/4 vc node; an app in
    parent1.queue1 runs one 1 GB/2 vc container: parent1 and queue1 use 1 GB; moved to
    parent2.queue2, those two use it and parent1, queue1 nothing."""
    xml = """<allocations><queue name="parent1"><queue name="queue1"/></queue>
      <queue name="parent2"><queue name="queue2"/></queue></allocations>"""
    h = harness("1024 mb, 4 vcores", xml)
    app = h.submit(queue="parent1.queue1", user="user1", tasks=2, resources="1024 mb, 2 vcores")
    h.update()
    h.heartbeat("n0000")

    def mem(q: str) -> int:
        return h.shares()["queues"][q]["usage"]["memory"]

    assert (mem("root.parent2"), mem("root.parent2.queue2"), mem("root.parent1"), mem("root.parent1.queue1")) == \
        (0, 0, GB, GB)
    h.move(app, "parent2.queue2")
    assert (mem("root.parent2"), mem("root.parent2.queue2"), mem("root.parent1"), mem("root.parent1.queue1")) == \
        (GB, GB, 0, 0)


def test_double_removal_and_move_after_removal() -> None:
    """``TestFairScheduler.testDoubleRemoval`` / ``testMoveAfterRemoval``: an app removed
    leaves its queue; removing it again changes nothing; moving it afterwards is refused."""
    from corescheduler.errors import SchedulerStateError

    h = harness("8192 mb, 8 vcores")
    app = h.submit(queue="user1", user="user1")
    assert h.shares()["queues"]["root.user1"]["runnable_apps"] == 1
    h.kill_app(app)
    assert h.shares()["queues"].get("root.user1", {"runnable_apps": 0})["runnable_apps"] == 0
    assert h.job(app).is_finished and h.queue_of(app) == "root.user1"
    try:
        h.kill_app(app)
    except SchedulerStateError:
        pass  # an ended app: nothing to do, as YARN's stopped attempt
    assert h.queue_of(app) == "root.user1"
    with pytest.raises(SchedulerStateError, match="is stopped and can't be moved"):
        h.move(app, "default")
    assert h.queue_of(app) == "root.user1"


def test_queue_name_with_trailing_space() -> None:
    """``TestFairScheduler.testQueueNameWithTrailingSpace``: "A" accepted (a second leaf);
    "A " rejected; "B.C" accepted (a third); "A\\u00a0" rejected."""
    h = harness("8192 mb, 8 vcores")
    h.submit(queue="A", user="user1")
    assert leaves(h) == {"root.default", "root.A"}
    with pytest.raises(SubmissionRejected):
        h.submit(queue="A ", user="user1")
    h.submit(queue="B.C", user="user1")
    assert leaves(h) == {"root.default", "root.A", "root.B.C"}
    with pytest.raises(SubmissionRejected):
        h.submit(queue="A\u00a0", user="user1")
    assert leaves(h) == {"root.default", "root.A", "root.B.C"}


def test_user_as_default_queue_with_leading_trailing_space_user_name() -> None:
    """``TestFairScheduler.testUserAsDefaultQueueWithLeadingTrailingSpaceUserName``: user
    "  user1" submitting to default lands in root.user1 (``cleanName`` trims it)."""
    h = harness("8192 mb, 8 vcores", scheduler={"user_as_default_queue": True})
    app = h.submit(queue="default", user="  user1")
    assert h.queue_of(app) == "root.user1"
    assert h.shares()["queues"]["root.default"]["runnable_apps"] == 0


def test_container_allocation_with_container_id_leap() -> None:
    """``TestFairScheduler.testContainerAllocationWithContainerIdLeap`` (what the harness
    sees): reservable-nodes 0.5, two 3072 MB nodes; app1 runs 2 × 2048 (4096 MB used); app2's
    2048 MB ask reserves node 1, not node 2, and keeps it over ten rounds of heartbeats; app1
    killed, node 2's heartbeat runs app2 there."""
    h = harness("3072 mb, 10 vcores", nodes=2, scheduler={"reservable_nodes": 0.5})
    app1 = h.submit(queue="queue1", user="user1", tasks=2, resources="2048 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    h.heartbeat("n0001")
    app2 = h.submit(queue="queue1", user="user1", resources="2048 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    h.heartbeat("n0001")
    assert usage(h, "root.queue1")["memory"] == 4096
    assert reserved(h, "n0000") is not None and reserved(h, "n0000").job is app2
    assert reserved(h, "n0001") is None
    for _ in range(10):
        h.heartbeat("n0000")
        h.heartbeat("n0001")
    h.kill_app(app1)
    assert usage(h, "root.queue1")["memory"] == 0
    h.heartbeat("n0001")
    assert h.running(app2) == 1
    assert [t.node for t in h.scheduler.ledger.running.values() if t.job is app2] == ["n0001"]


def test_reservation_metrics() -> None:
    """``TestFairScheduler.testReservationMetrics``: a 4096 MB/4 vc node; an app in default
    runs 1024/1; asked for (4096, 4) more, it reserves the node: root's reserved is 4096 MB/4
    vc; the app removed, 0 again."""
    h = harness("4096 mb, 4 vcores")
    app = h.submit_app(queue="default", user="user1", requests=[{"resources": "1024 mb, 1 vcores", "priority": 1}])
    h.update()
    h.heartbeat("n0000")
    root = h.scheduler.resource_engine.tree.root
    assert not root.reserved.any_positive()
    h.add_requests(app, [{"resources": "4096 mb, 4 vcores", "priority": 1}])
    h.update()
    h.heartbeat("n0000")
    assert (root.reserved.memory, root.reserved.vcores) == (4096, 4)
    assert reservations(h, app) == 1
    h.kill_app(app)
    assert not root.reserved.any_positive()


def test_parent_queue_update_demand_is_capped_by_max_resources() -> None:
    """``TestFairScheduler.testUpdateDemand``: parent queue1 (max 8192 MB) with leaves a and b
    (max 8192 each), an app demanding 8192 in each: a's and b's demand is 8192, and so is
    queue1's (its max share, not their 16384)."""
    xml = """<allocations><queue name="queue1"><maxResources>8192 mb, 64 vcores</maxResources>
      <queue name="a"><maxResources>8192 mb, 64 vcores</maxResources></queue>
      <queue name="b"><maxResources>8192 mb, 64 vcores</maxResources></queue></queue></allocations>"""
    h = harness("32768 mb, 32 vcores", xml)
    h.submit(queue="queue1.a", user="user1", tasks=8, resources="1024 mb, 1 vcores")
    h.submit(queue="queue1.b", user="user1", tasks=8, resources="1024 mb, 1 vcores")
    h.update()
    assert h.demand("root.queue1.a")["memory"] == 8192 and h.demand("root.queue1.b")["memory"] == 8192
    assert h.demand("root.queue1")["memory"] == 8192


# --------------------------------------------------------------------------- TestSchedulingPolicy
POLICY_PACKAGE = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies."


@pytest.mark.parametrize(("text", "name"), [
    (POLICY_PACKAGE + "FairSharePolicy", "fair"), (POLICY_PACKAGE + "DominantResourceFairnessPolicy", "drf"),
    (POLICY_PACKAGE + "FifoPolicy", "fifo"), ("drf", "drf"), ("fair", "fair"), ("fifo", "fifo"), ("DRF", "drf")])
def test_parse_scheduling_policy(text: str, name: str) -> None:
    """``TestSchedulingPolicy.testParseSchedulingPolicy``: a policy by its class name (or
    canonical name: the same for these classes) or its short name, in any case."""
    xml = f"""<allocations><queue name="root"><schedulingPolicy>drf</schedulingPolicy>
      <queue name="q"><schedulingPolicy>{text}</schedulingPolicy></queue></queue></allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    assert h.scheduler.resource_engine.tree.get("root.q").policy == name


def test_default_policy_by_class_name() -> None:
    """``defaultQueueSchedulingPolicy`` goes through ``SchedulingPolicy.parse`` too: the drf
    class sets drf for every queue; FifoPolicy's class is refused as fifo is."""
    from corescheduler.errors import AllocationError

    xml = f"""<allocations><queue name="q"/>
      <defaultQueueSchedulingPolicy>{POLICY_PACKAGE}DominantResourceFairnessPolicy</defaultQueueSchedulingPolicy>
    </allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    tree = h.scheduler.resource_engine.tree
    assert tree.root.policy == "drf" and tree.get("root.q").policy == "drf"
    with pytest.raises(AllocationError, match="can't be FIFO"):
        harness("8192 mb, 8 vcores", f"<allocations><defaultQueueSchedulingPolicy>{POLICY_PACKAGE}FifoPolicy"
                                     "</defaultQueueSchedulingPolicy></allocations>")


# --------------------------------------------------------------------------- TestQueuePlacementPolicy
def placed(rules: str, queues: str = "") -> ClusterHarness:
    return harness("8192 mb, 8 vcores", f"<allocations>{queues}<queuePlacementPolicy>{rules}"
                                        "</queuePlacementPolicy></allocations>")


def place(h: ClusterHarness, queue: str, user: str, groups: list[str] | None = None) -> str | None:
    return h.queue_of(h.submit(queue=queue, user=user, groups=simple_groups(user) if groups is None else groups))


def test_default_rule_with_queue_attribute() -> None:
    """``TestQueuePlacementPolicy.testDefaultRuleWithQueueAttribute``: specified(create=false),
    default(queue=root.someDefaultQueue), that queue configured: → root.someDefaultQueue."""
    h = placed("<rule name='specified' create='false'/><rule name='default' queue='root.someDefaultQueue'/>",
               '<queue name="someDefaultQueue"/>')
    assert place(h, "default", "user1") == "root.someDefaultQueue"


def test_nested_user_queue_primary_group() -> None:
    """``TestQueuePlacementPolicy.testNestedUserQueuePrimaryGroup``: specified(create=false),
    nestedUserQueue(primaryGroup): user1 → root.user1group.user1; a configured
    root.specifiedq asked for → it; with root.user3group a configured leaf, user3 is
    refused."""
    rules = "<rule name='specified' create='false'/><rule name='nestedUserQueue'><rule name='primaryGroup'/></rule>"
    h = placed(rules, '<queue name="specifiedq"/><queue name="user3group"/>')
    assert place(h, "default", "user1") == "root.user1group.user1"
    assert place(h, "root.specifiedq", "user2") == "root.specifiedq"
    with pytest.raises(SubmissionRejected):
        place(h, "default", "user3")


def test_nested_user_queue_primary_group_no_create() -> None:
    """``TestQueuePlacementPolicy.testNestedUserQueuePrimaryGroupNoCreate``: nestedUserQueue
    (primaryGroup create=false), default: user1 → root.default; with root.user1group a
    configured parent → root.user1group.user1.  Both create=false: user2 → root.default; with
    root.user2group.user2 configured → it."""
    rules = "<rule name='nestedUserQueue'><rule name='primaryGroup' create='false'/></rule><rule name='default'/>"
    assert place(placed(rules), "default", "user1") == "root.default"
    h = placed(rules, '<queue name="user1group" type="parent"/>')
    assert place(h, "default", "user1") == "root.user1group.user1"
    rules = ("<rule name='nestedUserQueue' create='false'><rule name='primaryGroup' create='false'/></rule>"
             "<rule name='default'/>")
    assert place(placed(rules), "default", "user2") == "root.default"
    h = placed(rules, '<queue name="user2group"><queue name="user2"/></queue>')
    assert place(h, "default", "user2") == "root.user2group.user2"


def test_nested_user_queue_secondary_group() -> None:
    """``TestQueuePlacementPolicy.testNestedUserQueueSecondaryGroup``: nestedUserQueue
    (secondaryGroupExistingQueue), default: user1 → root.default; with root.user1subgroup1 a
    configured parent → root.user1subgroup1.user1."""
    rules = ("<rule name='nestedUserQueue'><rule name='secondaryGroupExistingQueue'/></rule>"
             "<rule name='default'/>")
    assert place(placed(rules), "default", "user1") == "root.default"
    h = placed(rules, '<queue name="user1subgroup1" type="parent"/>')
    assert place(h, "default", "user1") == "root.user1subgroup1.user1"


def test_nested_user_queue_specific_rule() -> None:
    """``TestQueuePlacementPolicy.testNestedUserQueueSpecificRule``: nestedUserQueue(specified
    create=false), default; parents root.parent1 and root.parent2 configured: (root.parent1,
    user1) → root.parent1.user1, (root.parent2, user2) → root.parent2.user2."""
    rules = "<rule name='nestedUserQueue'><rule name='specified' create='false'/></rule><rule name='default'/>"
    h = placed(rules, '<queue name="parent1" type="parent"/><queue name="parent2" type="parent"/>')
    assert place(h, "root.parent1", "user1") == "root.parent1.user1"
    assert place(h, "root.parent2", "user2") == "root.parent2.user2"


def test_nested_user_queue_default_rule() -> None:
    """``TestQueuePlacementPolicy.testNestedUserQueueDefaultRule``: specified(create=false),
    nestedUserQueue(default queue=root.parent): user1 → root.parent.user1 (also with
    root.parent a configured parent and create=false); with root.parent a configured leaf,
    refused."""
    rules = "<rule name='specified' create='false'/><rule name='nestedUserQueue'>" \
            "<rule name='default' queue='root.parent'/></rule>"
    assert place(placed(rules), "default", "user1") == "root.parent.user1"
    rules2 = "<rule name='specified' create='false'/><rule name='nestedUserQueue'>" \
             "<rule name='default' queue='root.parent' create='false'/></rule><rule name='default'/>"
    assert place(placed(rules2, '<queue name="parent" type="parent"/>'), "default", "user1") == "root.parent.user1"
    with pytest.raises(SubmissionRejected):
        place(placed(rules, '<queue name="parent"/>'), "default", "user1")


def test_user_contains_period() -> None:
    """``TestQueuePlacementPolicy.testUserContainsPeriod``: user first.last → root.first_dot_last."""
    h = placed("<rule name='user'/>")
    assert place(h, "default", "first.last") == "root.first_dot_last"


def test_group_contains_period() -> None:
    """``TestQueuePlacementPolicy.testGroupContainsPeriod``: primary group user1.group
    (``PeriodGroupsMapping``): nestedUserQueue(primaryGroup) → root.user1_dot_group.user1."""
    h = placed("<rule name='specified' create='false'/><rule name='nestedUserQueue'><rule name='primaryGroup'/>"
               "</rule>")
    assert place(h, "default", "user1", ["user1.group"]) == "root.user1_dot_group.user1"


def test_empty_groups_primary_group_rule() -> None:
    """``TestQueuePlacementPolicy.testEmptyGroupsPrimaryGroupRule``: primaryGroup(create=false),
    default; a user with no groups: placement fails (an error, not root.default)."""
    h = placed("<rule name='primaryGroup' create='false'/><rule name='default'/>")
    with pytest.raises(SubmissionRejected):
        place(h, "root.fake", "emptygroupuser", [])


@pytest.mark.parametrize("queue", ["A ", "A\u00a0"])
def test_specified_queue_with_spaces(queue: str) -> None:
    """``TestQueuePlacementPolicy.testSpecifiedQueueWithSpaces``: specified, default: "A " and
    "A\\u00a0" are refused (not passed on to the default rule)."""
    h = placed("<rule name='specified'/><rule name='default'/>")
    with pytest.raises(SubmissionRejected):
        place(h, queue, "user1")


def test_a_request_of_another_size_replaces_the_ask_at_its_priority_and_places() -> None:
    """``AppSchedulingInfo.updateResourceRequests``: YARN keys an app's requests by priority
    and resource name, so asking again at priority 1 for "*" with another size replaces the
    outstanding ask (its containers not yet run are cancelled); asks at another priority or
    for other places stay, and containers already running are not touched."""
    h = harness("8192 mb, 8 vcores")
    app = h.submit_app(queue="q", user="u", requests=[
        {"resources": "1024 mb, 1 vcores", "count": 3, "priority": 1},
        {"resources": "1024 mb, 1 vcores", "count": 1, "priority": 2},
        {"resources": "1024 mb, 1 vcores", "count": 1, "priority": 1, "locations": ["n0000"]}])
    h.update()
    h.heartbeat("n0000")  # one of the priority-1 containers runs
    assert h.running(app) == 1
    h.add_requests(app, [{"resources": "2048 mb, 1 vcores", "count": 2, "priority": 1}])
    # running 1 GB + two 2 GB asked + the priority-2 and node-bound 1 GB asks
    assert h.demand(app) == {"memory": 1024 + 2 * 2048 + 1024 + 1024, "vcores": 5}


def test_backwards_compatible_preemption_configuration() -> None:
    """``TestQueueManagerRealScheduler.testBackwardsCompatiblePreemptionConfiguration``:
    default min-share timeout 15 s, fair-share 30 s; queueB.queueB1's own min-share timeout
    5 s: every queue's fair-share timeout is 30 s, min-share 15 s but queueB1's 5 s; the
    file reloaded with a default fair-share timeout of 25 s, root's is 25 s."""
    xml = """<allocations><queue name="default"/><queue name="queueA"/>
      <queue name="queueB"><queue name="queueB1"><minSharePreemptionTimeout>5</minSharePreemptionTimeout></queue>
        <queue name="queueB2"/></queue><queue name="queueC"/>
      <defaultMinSharePreemptionTimeout>15</defaultMinSharePreemptionTimeout>
      <defaultFairSharePreemptionTimeout>{}</defaultFairSharePreemptionTimeout></allocations>"""
    h = harness("8192 mb, 8 vcores", xml.format(30))
    qc = h.scheduler.allocations.queue_config()
    names = ["root", "root.default", "root.queueA", "root.queueB", "root.queueB.queueB1", "root.queueB.queueB2",
             "root.queueC"]
    assert [qc.fair_share_preemption_timeout(n) for n in names] == [30] * 7
    assert [qc.min_share_preemption_timeout(n) for n in names] == [15, 15, 15, 15, 5, 15, 15]
    h.set_allocations(xml.format(25))
    assert h.scheduler.allocations.queue_config().fair_share_preemption_timeout("root") == 25


@pytest.mark.parametrize(("user", "allowed"), [
    ("queueA_user", {"queueA"}), ("queueB_user", {"queueB"}), ("common_user", {"queueA", "queueB"}),
    ("queueA_admin", {"queueA"}), ("queueB_admin", {"queueB"}), ("root_admin", {"queueA", "queueB"}),
    ("nobody", set())])
def test_queue_acls(user: str, allowed: set[str]) -> None:
    """``TestFairSchedulerQueueACLs`` (``QueueACLsTestBase.testQueueACLs``' file): root submit
    " " (nobody), administer "root_admin"; queueA submit "queueA_user,common_user", administer
    "queueA_admin"; queueB likewise.  A user may submit where it may submit or administer, on
    the queue or an ancestor."""
    xml = """<allocations><queue name="root"><aclSubmitApps> </aclSubmitApps>
      <aclAdministerApps>root_admin </aclAdministerApps>
      <queue name="queueA"><aclSubmitApps>queueA_user,common_user </aclSubmitApps>
        <aclAdministerApps>queueA_admin </aclAdministerApps></queue>
      <queue name="queueB"><aclSubmitApps>queueB_user,common_user </aclSubmitApps>
        <aclAdministerApps>queueB_admin </aclAdministerApps></queue>
    </queue></allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    for queue in ("queueA", "queueB"):
        if queue in allowed:
            assert h.queue_of(h.submit(queue=queue, user=user)) == f"root.{queue}"
        else:
            with pytest.raises(SubmissionRejected):
                h.submit(queue=queue, user=user)


@pytest.mark.parametrize("mode", list(MODES))
def test_app_not_preempted_below_fair_share(mode: str) -> None:
    """``TestFairSchedulerPreemption.testAppNotPreemptedBelowFairShare``: the greedy app holds
    both nodes with eight 1 GB containers; an app in preemptable.child-2 asks 4 × (3 GB, 3 vc):
    three of the greedy app's containers go for the first (it keeps 5), and no more, since
    the greedy app may not fall below its fair share (4 GB) for the second: the starved app
    runs 1."""
    c = PreemptionCluster(mode)
    c.take_all("root.preemptable.child-1")
    c.starving = c.h.submit(queue="root.preemptable.child-2", user="default", tasks=4, resources="3072 mb, 3 vcores")
    c.h.advance(0)  # no clock tick here in Hadoop's test: the timeouts are 0
    assert c.h.running(c.greedy) == 5
    c.assign_fully()
    assert c.h.running(c.starving) == 1


def test_hierarchical_queues_similar_parents() -> None:
    """``TestFairScheduler.testHierarchicalQueuesSimilarParents``: parent.child made (2 leaves
    with root.default); "parent" (a parent) and "parent.child.grandchild" (under a leaf) are
    refused and make nothing; parent.sister is made (3 leaves)."""
    h = harness("8192 mb, 8 vcores")
    assert h.queue_of(h.submit(queue="parent.child", user="u")) == "root.parent.child"
    assert leaves(h) == {"root.default", "root.parent.child"}
    for bad in ("parent", "parent.child.grandchild"):
        with pytest.raises(SubmissionRejected):
            h.submit(queue=bad, user="u")
        assert leaves(h) == {"root.default", "root.parent.child"}
    assert h.queue_of(h.submit(queue="parent.sister", user="u")) == "root.parent.sister"
    assert leaves(h) == {"root.default", "root.parent.child", "root.parent.sister"}


@pytest.mark.parametrize("user", ["  ", "\t"])
def test_a_user_name_of_blanks_is_rejected_not_a_plugin_error(user: str) -> None:
    """A user name that trims to nothing (``cleanName``: "") names no queue: ``assureRoot``
    leaves "" and ``QueueManager.getLeafQueue`` finds no valid node name in "root.", so YARN
    rejects the app — a rejection here too, not the rules plugin answering an empty pool name."""
    h = harness("8192 mb, 8 vcores", scheduler={"user_as_default_queue": True})
    with pytest.raises(SubmissionRejected):
        h.submit(queue="default", user=user)
