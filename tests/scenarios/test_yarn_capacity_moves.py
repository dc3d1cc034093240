"""Moving a live app between leaf queues under YARN's Capacity Scheduler
(``CapacityScheduler.preValidateMoveApplication`` and ``moveApplication``).  Hadoop 3.3's
``TestCapacityScheduler`` cases (``TestCapacitySchedulerApps`` in later versions):
``testMoveAppBasic``, ``testMoveAppSameParent``, ``testMoveAppForMoveToQueueWithFreeCap``,
``testMoveAppQueueMetricsCheck``, ``testMoveAppViolateQueueState`` and the single app of
``testMoveAllApps``, on ``setupQueueConfiguration``'s queues: root.a 10.5 % (a1 30 %, a2
70 %), root.b 89.5 % (b1 79.2 %, b2 0.8 %, b3 20 %), every leaf's user-limit-factor 100.

Hadoop's apps come with a 1 GB AM container (``MockRM.submitApp``); the ``Application``
helper's apps of the RM-level cases run none, and neither do these ports."""

from __future__ import annotations

from typing import Any

import pytest

from corescheduler.errors import SchedulerStateError
from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness

GB = 1024
A_CAPACITY, B_CAPACITY = 10.5, 89.5
A1_CAPACITY, A2_CAPACITY = 30.0, 70.0
B1_CAPACITY, B2_CAPACITY, B3_CAPACITY = 79.2, 0.8, 20.0
LEAVES = ("root.a.a1", "root.a.a2", "root.b.b1", "root.b.b2", "root.b.b3")


def xml(*props: tuple[str, str]) -> str:
    body = "".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                   for k, v in props)
    return f"<configuration>{body}</configuration>"


def setup_queue_configuration(*extra: tuple[str, str]) -> str:
    """``TestCapacityScheduler.setupQueueConfiguration`` (``CapacitySchedulerQueueHelpers``)."""
    props = [("root.queues", "a,b"), ("root.a.capacity", f"{A_CAPACITY:g}"), ("root.b.capacity", f"{B_CAPACITY:g}"),
             ("root.a.queues", "a1,a2"), ("root.a.a1.capacity", f"{A1_CAPACITY:g}"),
             ("root.a.a2.capacity", f"{A2_CAPACITY:g}"), ("root.b.queues", "b1,b2,b3"),
             ("root.b.b1.capacity", f"{B1_CAPACITY:g}"), ("root.b.b2.capacity", f"{B2_CAPACITY:g}"),
             ("root.b.b3.capacity", f"{B3_CAPACITY:g}")]
    props += [(f"{leaf.removeprefix('root.')}.user-limit-factor", "100") for leaf in LEAVES]
    props = [(k if k.startswith("root") else f"root.{k}", v) for k, v in props]
    return xml(*props, *extra)


def harness(*extra: tuple[str, str], hosts: dict[str, int] | None = None) -> ClusterHarness:
    """The queues on one 8 GB node that never heartbeats (``setUpMove``'s apps stay pending),
    or on ``hosts`` (name -> GB, 4 vcores each)."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=setup_queue_configuration(*extra))
    if hosts:
        for name, gb in hosts.items():
            h.add_node(name, resources=f"{gb * GB} mb, 4 vcores")
        h.remove_node("n0000")
    return h


def apps_in(h: ClusterHarness, name: str) -> list[str]:
    """``getAppsInQueue``: the apps of a queue and the queues below it."""
    return sorted(j.id for j in h.scheduler.jobs.values()
                  if j.queue == name or str(j.queue).startswith(name + "."))


def policy(h: ClusterHarness) -> Any:
    return h.scheduler.plugins.share_policy("yarn_capacity").policy


def state(h: ClusterHarness) -> dict[str, Any]:
    p = policy(h)
    return {"shares": h.shares(), "queues": {j.id: (j.queue, j.runnable) for j in h.scheduler.jobs.values()},
            "apps": dict(p._apps), "users": {k: dict(v) for k, v in p._users.items()},
            "use": {k: dict(v) for k, v in p._user_used.items()}}


def test_move_app_basic() -> None:
    """``testMoveAppBasic``: user_0's app in a1 (no heartbeat: it stays pending) moves to b1 — it is
    in b1 and b (and root), no longer in a1 or a; still one app pending."""
    h = harness()
    app = h.submit_app(queue="a1", user="user_0", resources=f"{GB} mb, 1 vcores")
    assert h.queue_of(app) == "root.a.a1"
    assert apps_in(h, "root.a.a1") == apps_in(h, "root.a") == apps_in(h, "root") == [app.id]
    assert apps_in(h, "root.b.b1") == apps_in(h, "root.b") == []
    h.move(app, "b1")
    assert h.queue_of(app) == "root.b.b1"
    assert apps_in(h, "root.b.b1") == apps_in(h, "root.b") == apps_in(h, "root") == [app.id]
    assert apps_in(h, "root.a.a1") == apps_in(h, "root.a") == []
    assert not h.scheduler.ledger.running_of(app) and app.state in ("waiting", "running")  # pending: nothing allocated
    p = policy(h)
    assert (p._apps["root.a.a1"], p._apps["root.b.b1"]) == (0, 1)
    assert "user_0" not in p._users.get("root.a.a1", {}) and p._users["root.b.b1"]["user_0"] == 1


def test_move_app_same_parent() -> None:
    """``testMoveAppSameParent``: a1 to a2, under the same parent: root and a keep the app."""
    h = harness()
    app = h.submit_app(queue="a1", user="user_0", resources=f"{GB} mb, 1 vcores")
    h.move(app, "a2")
    assert apps_in(h, "root") == apps_in(h, "root.a") == apps_in(h, "root.a.a2") == [app.id]
    assert apps_in(h, "root.a.a1") == []
    assert h.queue_of(app) == "root.a.a2"


def test_move_all_apps_single_app() -> None:
    """``testMoveAllApps``' one app (``moveAllApps("a1", "b1")`` moves each app of a1): it is
    in b1, b and root, no longer in a1 or a."""
    h = harness()
    app = h.submit_app(queue="a1", user="user_0", resources=f"{GB} mb, 1 vcores")
    for job in [j for j in h.scheduler.jobs.values() if j.queue == "root.a.a1"]:
        h.move(job, "b1")
    assert apps_in(h, "root.b.b1") == apps_in(h, "root.b") == apps_in(h, "root") == [app.id]
    assert apps_in(h, "root.a.a1") == apps_in(h, "root.a") == []


def test_move_to_an_unknown_or_parent_queue_is_refused() -> None:
    """``getAndCheckLeafQueue`` (``testMoveAllAppsInvalidDestination``): an unknown queue and a
    parent are refused, naming the app, the queue and the rule; the app stays in a1."""
    h = harness()
    app = h.submit_app(queue="a1", user="user_0", resources=f"{GB} mb, 1 vcores")
    before = state(h)
    with pytest.raises(SchedulerStateError, match=rf"cannot move {app.id} to queue DOES_NOT_EXIST: The specified "
                                                  "Queue: DOES_NOT_EXIST doesn't exist"):
        h.move(app, "DOES_NOT_EXIST")
    with pytest.raises(SchedulerStateError, match=rf"cannot move {app.id} to queue b: The specified Queue: root.b "
                                                  "is not a Leaf Queue"):
        h.move(app, "b")
    assert state(h) == before and apps_in(h, "root.a.a1") == [app.id]


def test_move_app_for_move_to_queue_with_free_cap() -> None:
    """``testMoveAppForMoveToQueueWithFreeCap``: host_0 4 GB and host_1 2 GB.  app0 (user_0,
    a1) and app1 (user_1, b2) each get a 1 GB container on host_0; app0 moves from a1 (10.5 %
    × 30 %) to b1 (89.5 % × 79.2 %); then app0 asks 2 GB on host_0/host_1 and app1 2 GB
    anywhere (priority 0): host_0's heartbeat gives b1's app0 its 2 GB (b1 is the less used
    of b's leaves), host_1's gives app1 its.  Both apps use 3 GB, host_0 4 GB and host_1 2 GB.
    (The nodes have 4 vcores, not 1: the engine enforces every resource of a node, where
    Hadoop's ``DefaultResourceCalculator`` looks at memory alone.)"""
    h = harness(hosts={"host_0": 4, "host_1": 2})
    app0 = h.submit_app(queue="a1", user="user_0", requests=[
        {"resources": f"{GB} mb, 1 vcores", "locations": ["host_0", "host_1"], "priority": 1}])
    app1 = h.submit_app(queue="b2", user="user_1", requests=[
        {"resources": f"{GB} mb, 1 vcores", "locations": ["host_0", "host_1"], "priority": 1}])
    h.heartbeat("host_0")
    assert h.heartbeat("host_1") == []
    assert (app0.usage.memory, app1.usage.memory) == (GB, GB)
    node0, node1 = h.cluster.nodes["host_0"], h.cluster.nodes["host_1"]
    assert (node0.used.memory, node1.used.memory) == (2 * GB, 0)

    h.move(app0, "b1")
    queues = h.shares()["queues"]
    assert (queues["root.a.a1"]["used"].memory, queues["root.b.b1"]["used"].memory) == (0, GB)
    assert queues["root.a"]["used"].memory == 0 and queues["root.b"]["used"].memory == 2 * GB
    h.add_requests(app1, [{"resources": f"{2 * GB} mb, 1 vcores", "priority": 0}])
    h.add_requests(app0, [{"resources": f"{2 * GB} mb, 1 vcores", "locations": ["host_0", "host_1"],
                           "priority": 0}])
    h.heartbeat("host_0")
    h.heartbeat("host_1")
    assert (app0.usage.memory, app1.usage.memory) == (3 * GB, 3 * GB)
    assert (node0.used.memory, node1.used.memory) == (4 * GB, 2 * GB)
    queues = h.shares()["queues"]
    assert (queues["root.b.b1"]["used"].memory, queues["root.b.b2"]["used"].memory) == (3 * GB, 3 * GB)
    assert queues["root.a"]["used"].memory == 0


def test_move_app_queue_metrics_check() -> None:
    """``testMoveAppQueueMetricsCheck``: app0 (user_0, a1) runs a 3 GB container, app1
    (user_1, b2) a 1 GB one; app0 moves to a2.  a1 had one app, 3 GB and 1 vcore used, one
    container, one user using 3 GB; after the move a1 has none of them and a2 has them all
    (a has its one app, root its two); the user limit and headroom follow the user's use in
    a2.  (Hadoop's queue metrics' user list drops user_0 from a1; here the user's use in a1
    reads 0.)"""
    h = harness(hosts={"host_0": 5, "host_1": 5})
    app0 = h.submit_app(queue="a1", user="user_0", requests=[
        {"resources": f"{3 * GB} mb, 1 vcores", "locations": ["host_0", "host_1"], "priority": 1}])
    app1 = h.submit_app(queue="b2", user="user_1", requests=[
        {"resources": f"{GB} mb, 1 vcores", "locations": ["host_0", "host_1"], "priority": 1}])
    h.heartbeat("host_0")
    h.heartbeat("host_1")
    queues = h.shares()["queues"]
    assert queues["root.a.a1"]["used"] == Resources(3 * GB, 1)
    assert queues["root.a.a2"]["used"].memory == 0
    p = policy(h)
    assert p._user_used["root.a.a1"]["user_0"].memory == 3 * GB
    assert (p._apps["root.a.a1"], p._apps["root.a.a2"]) == (1, 0)

    h.move(app0, "a2")
    queues = h.shares()["queues"]
    assert (queues["root.a.a1"]["used"].memory, queues["root.a.a1"]["used"].vcores) == (0, 0)
    assert (queues["root.a.a2"]["used"].memory, queues["root.a.a2"]["used"].vcores) == (3 * GB, 1)
    assert queues["root.a"]["used"].memory == 3 * GB and queues["root"]["usage"]["memory"] == 4 * GB
    assert apps_in(h, "root.a.a1") == [] and apps_in(h, "root.a") == [app0.id]
    assert apps_in(h, "root") == sorted([app0.id, app1.id])
    engine = h.scheduler.resource_engine
    containers = {q: sum(1 for t in h.scheduler.ledger.running.values() if t.job.queue == q)
                  for q in ("root.a.a1", "root.a.a2")}
    assert containers == {"root.a.a1": 0, "root.a.a2": 1}
    assert engine.tree.queues["root.a.a2"].runnable_apps == [app0]
    assert (p._apps["root.a.a1"], p._apps["root.a.a2"]) == (0, 1)
    assert p._user_used["root.a.a1"]["user_0"].memory == 0
    assert (p._user_used["root.a.a2"]["user_0"].memory, p._user_used["root.a.a2"]["user_0"].vcores) == (3 * GB, 1)
    assert p.user_used(app0).memory == 3 * GB
    # the containers keep running: app0 3 GB, app1 1 GB, on host_0
    assert (app0.usage.memory, app1.usage.memory) == (3 * GB, GB)
    assert (h.cluster.nodes["host_0"].used.memory, h.cluster.nodes["host_1"].used.memory) == (4 * GB, 0)
    # and end in a2
    for task in h.scheduler.ledger.running_of(app0):
        h.finish(task)
    assert p._user_used["root.a.a2"]["user_0"].memory == 0
    assert h.shares()["queues"]["root.a.a2"]["used"].memory == 0


def test_move_app_violate_queue_state() -> None:
    """``testMoveAppViolateQueueState``: root.b is STOPPED; app0 (user_0, a1) runs a 3 GB
    container on host_0 (6 GB); its move to b1 is refused (``ParentQueue
    .validateSubmitApplication``: a STOPPED parent accepts nothing); nothing changes."""
    h = harness(("root.b.state", "STOPPED"), hosts={"host_0": 6})
    app0 = h.submit_app(queue="a1", user="user_0", requests=[
        {"resources": f"{3 * GB} mb, 1 vcores", "locations": ["host_0"], "priority": 1}])
    h.heartbeat("host_0")
    assert app0.usage.memory == 3 * GB and h.cluster.nodes["host_0"].used.memory == 3 * GB
    before = state(h)
    with pytest.raises(SchedulerStateError, match=rf"cannot move {app0.id} to queue b1: The parent queue root.b "
                                                  r"of root.b.b1 is STOPPED"):
        h.move(app0, "b1")
    assert state(h) == before


def test_a_stopped_leaf_or_a_full_one_refuses() -> None:
    """``LeafQueue.validateSubmitApplication``: a STOPPED leaf, a leaf at its
    maximum-applications and a user at its maximum applications there refuse the move."""
    h = harness(("root.a.a2.state", "STOPPED"), ("root.b.b3.maximum-applications", "1"),
                ("root.b.b2.maximum-applications", "4"), ("root.b.b2.minimum-user-limit-percent", "25"),
                ("root.b.b2.user-limit-factor", "1"))
    app = h.submit_app(queue="a1", user="u", resources=f"{GB} mb, 1 vcores")
    h.submit_app(queue="b3", user="v", resources=f"{GB} mb, 1 vcores")
    h.submit_app(queue="b2", user="u", resources=f"{GB} mb, 1 vcores")
    before = state(h)
    with pytest.raises(SchedulerStateError, match=r"Queue root.a.a2 is STOPPED. Cannot accept submission"):
        h.move(app, "a2")
    with pytest.raises(SchedulerStateError, match=r"Queue root.b.b3 already has 1 applications, cannot accept "
                                                  rf"submission of application: {app.id}"):
        h.move(app, "b3")
    with pytest.raises(SchedulerStateError, match=r"Queue root.b.b2 already has 1 applications from user u"):
        h.move(app, "root.b.b2")
    assert state(h) == before


def test_moving_to_its_own_queue_moves_nothing() -> None:
    """Its own leaf by short name or path: nothing moves, even at the leaf's limit."""
    h = harness(("root.a.a1.maximum-applications", "1"))
    app = h.submit_app(queue="a1", user="u", resources=f"{GB} mb, 1 vcores")
    before = state(h)
    h.move(app, "a1")
    h.move(app, "root.a.a1")
    assert state(h) == before


def test_am_use_moves_with_the_app() -> None:
    """``moveApplication``: the AM container's use leaves the old leaf's AM use and the user's
    AM use there, and joins the new leaf's."""
    h = harness()
    app = h.submit_app(queue="a1", user="u", resources=f"{GB} mb, 1 vcores", am_resources=f"{GB} mb, 1 vcores")
    h.heartbeat("n0000")
    assert app.am_running
    p = policy(h)
    assert h.shares()["queues"]["root.a.a1"]["am_used"].memory == GB
    h.move(app, "b1")
    queues = h.shares()["queues"]
    assert queues["root.a.a1"]["am_used"].memory == 0 and queues["root.b.b1"]["am_used"].memory == GB
    assert p._user_am["root.a.a1"]["u"].memory == 0 and p._user_am["root.b.b1"]["u"].memory == GB
    h.kill_app(app)
    queues = h.shares()["queues"]
    assert queues["root.b.b1"]["am_used"].memory == 0 and queues["root.b.b1"]["used"].memory == 0
    assert p._user_am["root.b.b1"]["u"].memory == 0
    assert not any(p._apps.values())


def test_a_runnable_app_moved_into_a_leaf_at_max_parallel_apps_waits() -> None:
    """``CapacityScheduler.moveApplication`` → ``LeafQueue.submitApplicationAttempt``: the
    target's ``CSMaxRunningAppsEnforcer`` decides the moved app's runnability — into b1 at its
    ``max-parallel-apps`` the app waits there (its running container keeps running, counted in
    b1); a1's waiting app runs now that a1 has room; once b1's own app ends the moved one runs
    again (the Capacity Scheduler has no move refusal for it, unlike the fair scheduler's
    ``maxRunningApps``)."""
    h = harness(("root.a.a1.max-parallel-apps", "1"), ("root.b.b1.max-parallel-apps", "1"),
                hosts={"host_0": 8})
    resident = h.submit_app(queue="b1", user="v", resources=f"{GB} mb, 1 vcores")
    app = h.submit_app(queue="a1", user="u", tasks=2, resources=f"{GB} mb, 1 vcores")
    queued = h.submit_app(queue="a1", user="w", resources=f"{GB} mb, 1 vcores")
    for _ in range(3):  # one off-switch container a heartbeat
        h.heartbeat("host_0")
    assert app.runnable and not queued.runnable and app.usage.memory > 0
    used = app.usage
    h.move(app, "b1")
    tree = h.scheduler.resource_engine.tree
    assert h.queue_of(app) == "root.b.b1" and not app.runnable and app in tree.queues["root.b.b1"].waiting_apps
    assert queued.runnable and queued in tree.queues["root.a.a1"].runnable_apps
    assert tree.queues["root.b.b1"].sched.running == used + resident.usage
    assert tree.queues["root.b.b1"].num_runnable == 1 and tree.root.num_runnable == 2
    for task in h.scheduler.ledger.running_of(resident):
        h.finish(task)
    assert resident.is_finished and app.runnable and app in tree.queues["root.b.b1"].runnable_apps


@pytest.mark.parametrize("answer", [5, "root.a", "root.nowhere"])
def test_a_policy_answer_that_is_no_leaf_names_the_policy(answer: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``SharePolicy.move_target`` must answer a live leaf's path, a Rejection or None: any
    other answer is a PluginAnswerError naming the plugin and the method; nothing moves."""
    from corescheduler.errors import PluginAnswerError

    h = harness()
    app = h.submit_app(queue="a1", user="u", resources=f"{GB} mb, 1 vcores")
    monkeypatch.setattr(policy(h), "move_target", lambda job, source, target: answer)
    before = state(h)
    with pytest.raises(PluginAnswerError, match=r"yarn_capacity.*move_target"):
        h.move(app, "b1")
    assert state(h) == before
