"""SPEC §6b through the harness: requests as YARN has them (sizes, places, priorities),
asks added or cancelled while an app runs, a waiting app killed, apps submitted already
ended, and a running container marked as the AM — each with the Hadoop test it ports
(issue 28, item 4)."""

from __future__ import annotations

import pytest

from corescheduler.errors import SchedulerStateError
from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness

#: ``FairSchedulerTestBase.createConfiguration``: minimum 0 MB, increment 1024 MB, maximum
#: 10240 MB (vcores: YARN's defaults, 1, 1 and 4)
TEST_BASE = {"minimum_allocation": "0 mb, 1 vcores", "increment_allocation": "1024 mb, 1 vcores",
             "maximum_allocation": "10240 mb, 4 vcores"}


def harness(xml: str = "<allocations/>", racks: int = 1, nodes: int = 1, node: str = "8192 mb, 8 vcores",
            **scheduler) -> ClusterHarness:
    return ClusterHarness(racks=racks, nodes_per_rack=nodes, node_resources=node, allocations=xml,
                          config={"scheduler": {"mode": "resources", **scheduler}, "cluster": dict(TEST_BASE)})


def live(h: ClusterHarness, app) -> int:
    """``getLiveContainers().size()``: the app's running containers, its AM included."""
    return h.running(app)


def _queue(h: ClusterHarness, name: str) -> tuple[int, int]:
    q = h.shares()["queues"][name]
    return q["runnable_apps"], q["waiting_apps"]


# --------------------------------------------------------------------------- demand and places
def test_queue_demand_is_the_sum_of_outstanding_asks() -> None:
    """``TestFairScheduler.testQueueDemandCalculation``: queue1's app asks one container of
    2 × the increment; queue2's apps ask one of 2 × (at a node, locality not relaxed) and two
    of 1 × (at a node, relaxed).  Demand: 2048 MB and 2048 + 2048 MB."""
    h = harness(racks=1, nodes=2)
    minimum = 1024  # FairSchedulerConfiguration.DEFAULT_RM_SCHEDULER_INCREMENT_ALLOCATION_MB
    a11 = h.submit_app(queue="root.queue1", user="user1",
                       requests=[{"resources": f"{2 * minimum} mb, 1 vcores", "count": 1, "locations": ["*"]}])
    a21 = h.submit_app(queue="root.queue2", user="user1", requests=[  # "foo" and ANY, not relaxed
        {"resources": f"{2 * minimum} mb, 1 vcores", "count": 1, "locations": ["foo"], "relax_locality": False}])
    a22 = h.submit_app(queue="root.queue2", user="user1", requests=[  # "bar" and ANY, relaxed
        {"resources": f"{minimum} mb, 1 vcores", "count": 2, "locations": ["bar", "*"], "priority": 2}])
    h.update()
    assert h.demand("root.queue1")["memory"] == 2 * minimum
    assert h.demand("root.queue2")["memory"] == 2 * minimum + 2 * minimum
    assert [h.demand(a)["memory"] for a in (a11, a21, a22)] == [2048, 2048, 2048]


def test_an_app_whose_asks_differ_in_size_place_and_priority() -> None:
    """``FSAppAttempt.assignContainer``: asks by priority (a smaller number first); for each,
    node-local, then rack-local, then off-switch when locality is relaxed; an ask that does
    not relax locality runs only where it names (``relaxLocality``); a 1500 MB ask takes
    2048 (``SchedulerUtils.normalizeRequest``)."""
    h = harness(racks=2, nodes=2)
    app = h.submit_app(queue="a", user="u", requests=[
        {"resources": "1500 mb, 1 vcores", "count": 1, "priority": 3},
        {"resources": "1024 mb, 2 vcores", "count": 2, "locations": ["/r01"], "relax_locality": False, "priority": 1},
        {"resources": "4096 mb, 1 vcores", "count": 1, "locations": ["n0000"], "priority": 2},
    ])
    assert h.demand(app) == {"memory": 2048 + 2 * 1024 + 4096, "vcores": 1 + 4 + 1}
    first = h.heartbeat("n0000")  # rack r00: priority 1 may not run here; priority 2 is node-local
    assert [(a.resources.memory, a.locality) for a in first] == [(4096, "node")]
    second = h.heartbeat("n0001")  # priority 1 still not here; 2 is done; 3 runs anywhere
    assert [(a.resources, a.locality) for a in second] == [(Resources(2048, 1), None)]
    assert h.heartbeat("n0001") == []  # only the r01 ask is left
    got = h.heartbeat("n0002") + h.heartbeat("n0003")
    assert [(a.node, a.resources, a.locality) for a in got] == [
        ("n0002", Resources(1024, 2), "rack"), ("n0003", Resources(1024, 2), "rack")]
    assert h.demand(app)["memory"] == 2048 + 2 * 1024 + 4096  # all running now


def test_bad_requests_are_refused_with_one_clear_error_and_nothing_submitted() -> None:
    h = harness(racks=1, nodes=2)
    cases = [
        ([{"resources": "1024 mb, 1 vcores", "count": -1}], r"requests\[0\]: count must be a whole number"),
        ([{"count": 1}], r"requests\[0\]: 'resources' is required"),
        ([{"resources": "1024 mb, 1 vcores", "where": ["n0000"]}], r"requests\[0\]: unknown key 'where'"),
        ([{"resources": "1024 mb, 1 vcores"}, {"resources": "1024 mb, 1 vcores", "locations": "n0000"}],
         r"requests\[1\]: locations must be a list"),
        ([{"resources": "1024 mb, 1 vcores", "relax_locality": "no"}], r"relax_locality must be true or false"),
        ([{"resources": "lots"}], r"requests\[0\]: resources:"),
    ]
    for requests, message in cases:
        with pytest.raises(ValueError, match=message):
            h.submit_app(queue="a", requests=requests)
    with pytest.raises(SchedulerStateError, match="names no node or rack"):
        h.submit_app(queue="a", requests=[{"resources": "1024 mb, 1 vcores", "locations": ["*"],
                                           "relax_locality": False}])
    with pytest.raises(ValueError, match="not both"):
        h.submit_app(queue="a", tasks=1, requests=[{"resources": "1024 mb, 1 vcores"}])
    assert h.scheduler.jobs == {}


def test_a_place_the_cluster_does_not_have_is_taken_as_yarn_takes_it() -> None:
    """YARN takes any resource name: an ask bound to a host that has not joined waits for
    it; a relaxed one runs elsewhere at once."""
    h = harness(racks=1, nodes=1)
    bound = h.submit_app(queue="a", user="u", requests=[
        {"resources": "1024 mb, 1 vcores", "locations": ["n0009"], "relax_locality": False}])
    loose = h.submit_app(queue="b", user="u", requests=[{"resources": "1024 mb, 1 vcores", "locations": ["/r09"]}])
    got = h.heartbeat("n0000") + h.heartbeat("n0000")
    assert [a.job for a in got] == [loose.id]
    h.add_node("n0009", rack="r09", resources="2048 mb, 2 vcores")
    assert [(a.job, a.locality) for a in h.heartbeat("n0009")] == [(bound.id, "node")]


# --------------------------------------------------------------------------- asks added later
def test_a_running_app_asks_for_more_while_its_user_is_at_the_limit() -> None:
    """``TestFairScheduler.testUserMaxRunningApps``: user1 may run one app; its second app
    waits, yet the first one's new ask (``createSchedulingRequestExistingApplication``) is
    served."""
    xml = "<allocations><user name='user1'><maxRunningApps>1</maxRunningApps></user></allocations>"
    h = harness(xml)
    ask = {"resources": "1024 mb, 1 vcores", "count": 1, "priority": 1}
    app1 = h.submit_app(queue="queue1", user="user1", requests=[ask])
    h.update()
    h.heartbeat("n0000")
    assert live(h, app1) == 1
    app2 = h.submit_app(queue="queue1", user="user1", requests=[ask])
    h.update()
    h.heartbeat("n0000")
    assert live(h, app2) == 0 and not h.job(app2).runnable
    added = h.add_requests(app1, [ask])  # the ask had 0 outstanding: now 1
    assert len(added) == 1 and h.demand(app1)["memory"] == 2048
    h.heartbeat("n0000")
    assert live(h, app1) == 2


def test_count_sets_an_asks_outstanding_containers_and_zero_cancels_it() -> None:
    """``AppSchedulingInfo.updateResourceRequests``: a request replaces its ask's
    ``numContainers``; lowering it withdraws pending containers (demand falls), 0 cancels
    them all; an app left with nothing to run ends."""
    h = harness()
    ask = {"resources": "1024 mb, 1 vcores", "count": 4}
    app = h.submit_app(queue="a", user="u", requests=[ask])
    h.heartbeat("n0000")
    assert h.demand(app)["memory"] == 4096
    h.add_requests(app, [{**ask, "count": 1}])  # 3 pending → 1
    assert h.demand(app)["memory"] == 2048
    assert sorted(t.state for t in h.job(app).tasks["task"]) == ["killed", "killed", "pending", "running"]
    h.add_requests(app, [{**ask, "count": 3}])  # 1 pending → 3: two new containers
    assert h.demand(app)["memory"] == 4096 and len(h.job(app).tasks["task"]) == 6
    h.add_requests(app, [{**ask, "count": 0}])
    assert h.demand(app)["memory"] == 1024 and h.job(app).pending["task"] == 0
    (running,) = [t for t in h.job(app).tasks["task"] if t.state == "running"]
    h.finish(running)
    assert h.job(app).state == "finished"
    with pytest.raises(SchedulerStateError, match="has ended"):
        h.add_requests(app, [ask])
    with pytest.raises(ValueError, match=r"requests\[1\] repeats requests\[0\]"):
        h.add_requests(h.submit_app(queue="a", tasks=1), [ask, {**ask, "count": 2}])


def test_a_cancelled_ask_with_nothing_running_ends_its_app() -> None:
    h = harness(xml="<allocations><queue name='a'><maxRunningApps>1</maxRunningApps></queue></allocations>")
    ask = {"resources": "2048 mb, 1 vcores", "count": 2, "locations": ["n0000"]}
    first = h.submit_app(queue="a", user="u", requests=[ask])
    second = h.submit_app(queue="a", user="u", tasks=1)
    assert not h.job(second).runnable
    h.add_requests(first, [{**ask, "count": 0}])
    assert h.job(first).state == "finished" and h.job(second).runnable


# --------------------------------------------------------------------------- killing a waiting app
def test_max_running_apps_in_hierarchical_queues_and_a_waiting_app_killed() -> None:
    """``TestFairScheduler.testMaxRunningAppsHierarchicalQueues``: queue1 runs 3, its sub3 1.
    When app 2 (sub3) ends, app 4 (sub2) runs because it came first; app 5 (sub3) is then
    killed while it waits, and leaves no trace: when app 4 ends, nothing is made runnable in
    its place."""
    xml = """<allocations><queue name="queue1"><maxRunningApps>3</maxRunningApps>
      <queue name="sub1"/><queue name="sub2"/><queue name="sub3"><maxRunningApps>1</maxRunningApps></queue>
    </queue></allocations>"""
    h = harness(xml)

    def submit(queue: str):
        app = h.submit_app(queue=queue, user="user1", resources="1024 mb, 1 vcores")
        h.clock_only(10)
        return app

    a1 = submit("queue1.sub1")
    assert h.job(a1).runnable and _queue(h, "root.queue1.sub1") == (1, 0)
    a2 = submit("queue1.sub3")
    assert h.job(a2).runnable and _queue(h, "root.queue1.sub3") == (1, 0)
    a3 = submit("queue1.sub2")
    assert h.job(a3).runnable and _queue(h, "root.queue1.sub2") == (1, 0)
    a4 = submit("queue1.sub2")  # over queue1's limit
    assert not h.job(a4).runnable and _queue(h, "root.queue1.sub2") == (1, 1)
    a5 = submit("queue1.sub3")  # over sub3's limit
    assert not h.job(a5).runnable and _queue(h, "root.queue1.sub3") == (1, 1)

    h.scheduler.end_job(a2.id, h.clock, state="finished")  # AppAttemptRemoved, FINISHED
    assert h.job(a4).runnable and _queue(h, "root.queue1.sub2") == (2, 0)
    assert not h.job(a5).runnable and _queue(h, "root.queue1.sub3") == (0, 1)

    assert h.kill_app(a5) == []  # AppAttemptRemoved, KILLED, of an app that never ran
    assert h.job(a5).state == "killed"
    assert h.scheduler._rs.user_waiting.get("user1", []) == []  # usersNonRunnableApps
    assert _queue(h, "root.queue1.sub3") == (0, 0)
    h.scheduler.end_job(a4.id, h.clock, state="finished")
    assert _queue(h, "root.queue1.sub2") == (1, 0) and _queue(h, "root.queue1.sub3") == (0, 0)


def test_killing_a_running_app_stops_its_containers() -> None:
    h = harness()
    app = h.submit_app(queue="a", user="u", tasks=3, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    stopped = h.kill_app(app)
    assert len(stopped) == 2 and h.job(app).state == "killed"
    assert h.scheduler.node("n0000").used == Resources(0, 0)


# --------------------------------------------------------------------------- apps already ended
@pytest.mark.parametrize("state", ["FINISHED", "FAILED", "KILLED"])
def test_apps_submitted_already_ended_are_ignored(state: str) -> None:
    """MR1 ``TestFairScheduler.testNonRunningJobsAreIgnored`` in resource mode: an app that
    has ended gets nothing, after an update too, and holds no running-app slot."""
    h = harness("<allocations><queue name='a'><maxRunningApps>1</maxRunningApps></queue></allocations>")
    ended = h.submit_app(queue="a", user="u", tasks=10, resources="1024 mb, 1 vcores", state=state)
    assert h.job(ended).state == {"FINISHED": "finished", "FAILED": "failed", "KILLED": "killed"}[state]
    assert h.heartbeat("n0000") == []
    h.advance(100)
    assert h.heartbeat("n0000") == []
    app = h.submit_app(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores")
    assert h.job(app).runnable
    assert [a.job for a in h.heartbeat("n0000")] == [app.id]
    with pytest.raises(ValueError, match="state must be one of"):
        h.submit_app(queue="a", state="PAUSED")


def test_mr1_jobs_submitted_already_ended_are_ignored() -> None:
    """MR1 ``TestFairScheduler.testNonRunningJobsAreIgnored``: jobs SUCCEEDED, FAILED and
    KILLED with 10 maps and 10 reduces each: no task is assigned, before or after an update."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, map_slots=2, reduce_slots=2)
    for state in ("SUCCEEDED", "FAILED", "KILLED"):
        h.submit(maps=10, reduces=10, state=state)
    assert h.heartbeat("n0000") == []
    h.advance(100)
    assert h.heartbeat("n0000") == []


# --------------------------------------------------------------------------- AM containers
PREEMPTION = """<allocations>
  <queue name="preemptable">
    <fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>
    <fairSharePreemptionTimeout>0</fairSharePreemptionTimeout>
    <queue name="child-1"/><queue name="child-2"/>
  </queue>
</allocations>"""


def test_preemption_selects_non_am_containers() -> None:
    """``TestFairSchedulerPreemption.testPreemptionSelectNonAMContainer`` (fair-share
    preemption): a greedy app holds both 4 GB nodes with eight 1 GB containers, two of each
    node's marked as AMs; an app asking four 2 GB containers in the sibling queue is starved
    for half the cluster.  Preemption takes the two non-AM containers of each node, so the
    starved app's two containers land on different nodes."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="4096 mb, 12 vcores", allocations=PREEMPTION,
                       config={"scheduler": {"mode": "resources", "preemption": True,
                                             "preemption_utilization_threshold": 0.0},
                               "cluster": dict(TEST_BASE)})
    greedy = h.submit_app(queue="root.preemptable.child-1", user="default", tasks=8, resources="1024 mb, 1 vcores")
    h.update()
    for node in ("n0000", "n0001"):
        for _ in range(4):
            h.heartbeat(node)
    assert live(h, greedy) == 8
    ams = []
    for node in ("n0000", "n0001"):  # setNumAMContainersPerNode(2): here the newest two, those
        on_node = sorted(h.scheduler.node(node).tasks.values(), key=lambda t: t.launch_seq)
        ams += [h.mark_am(t) for t in on_node[2:]]  # preemption would otherwise take first
    starving = h.submit_app(queue="root.preemptable.child-2", user="default", tasks=4,
                            resources="2048 mb, 2 vcores")
    killed = h.advance(1)
    assert len(killed) == 4 and not any(t.is_am for t in killed)
    assert sorted(t.node or "" for t in ams) == ["n0000", "n0000", "n0001", "n0001"]  # the AMs still run
    assert live(h, greedy) == 4
    for node in ("n0000", "n0001"):
        for _ in range(4):
            h.heartbeat(node)
    placed = [t.node for t in h.job(starving).tasks["task"] if t.state == "running"]
    assert len(placed) == 2 and placed[0] != placed[1]


def test_a_marked_am_counts_against_max_am_share_and_ends_with_its_app() -> None:
    """``FSLeafQueue.canRunAppAM``: the leaf's AM usage includes a container marked as the
    AM, so another app's AM waits until the marked one's app ends."""
    xml = "<allocations><queue name='q'><maxAMShare>0.5</maxAMShare></queue></allocations>"
    h = harness(xml, node="4096 mb, 4 vcores")
    first = h.submit_app(queue="q", user="u", tasks=2, resources="2048 mb, 1 vcores")
    h.heartbeat("n0000")
    (am,) = [t for t in h.job(first).tasks["task"] if t.state == "running"]
    h.mark_am(am)
    with pytest.raises(SchedulerStateError, match="already an AM container"):
        h.mark_am(am)
    second = h.submit_app(queue="q", user="v", tasks=1, resources="1024 mb, 1 vcores",
                          am_resources="1024 mb, 1 vcores")
    for _ in range(3):
        h.heartbeat("n0000")
    assert live(h, second) == 0  # 2048 (marked AM) + 1024 > 0.5 × 4096
    (other,) = [t for t in h.job(first).tasks["task"] if t.state == "running" and not t.is_am]
    h.finish(other)  # its last container: the app ends, and its AM with it
    assert h.job(first).state == "finished" and am.state == "complete"
    h.heartbeat("n0000")
    assert live(h, second) == 1  # now the second app's AM runs


def test_a_second_marked_container_killed_asks_again_as_a_plain_one() -> None:
    h = harness(node="8192 mb, 8 vcores")
    app = h.submit_app(queue="q", user="u", tasks=3, resources="1024 mb, 1 vcores")
    for _ in range(3):
        h.heartbeat("n0000")
    first, second, third = sorted(h.job(app).tasks["task"], key=lambda t: t.launch_seq)
    h.mark_am(first)
    h.mark_am(second)
    leaf = h.scheduler._rs.tree.get("root.q")
    assert leaf.am_usage == Resources(2048, 2)
    h.kill(second)
    assert not second.is_am and second.state == "pending" and leaf.am_usage == Resources(1024, 1)
    assert first.state == "running" and third.state == "running"  # the app's AM still runs
    h.heartbeat("n0000")
    assert second.state == "running"
    h.finish(second)
    h.finish(third)
    assert h.job(app).state == "finished" and first.state == "complete"
    assert h.scheduler.node("n0000").used == Resources(0, 0) and leaf.am_usage == Resources(0, 0)


def test_preemption_for_an_ask_bound_to_a_node_frees_room_there() -> None:
    """``FSPreemptionThread.identifyContainersToPreempt`` looks only at the nodes a request
    that does not relax locality may run on: the starved app's ask names n0001, so the
    containers taken for it are n0001's, and it runs there."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="4096 mb, 12 vcores", allocations=PREEMPTION,
                       config={"scheduler": {"mode": "resources", "preemption": True,
                                             "preemption_utilization_threshold": 0.0},
                               "cluster": dict(TEST_BASE)})
    greedy = h.submit_app(queue="root.preemptable.child-1", user="default", tasks=8, resources="1024 mb, 1 vcores")
    h.update()
    for node in ("n0001", "n0000"):
        for _ in range(4):
            h.heartbeat(node)
    assert live(h, greedy) == 8
    starving = h.submit_app(queue="root.preemptable.child-2", user="default", requests=[
        {"resources": "2048 mb, 2 vcores", "count": 1, "locations": ["n0001"], "relax_locality": False}])
    killed = h.advance(1)
    where = [e["node"] for e in h.events if e["type"] == "task_preempt"]
    assert len(killed) == 2 and where == ["n0001", "n0001"]
    got = h.heartbeat("n0000") + h.heartbeat("n0001")
    assert [(a.job, a.node) for a in got if a.job == starving.id] == [(starving.id, "n0001")]
