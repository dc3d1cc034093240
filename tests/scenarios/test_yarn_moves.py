"""Moving a live app between leaf queues in resource mode under YARN's fair scheduler
(``FairScheduler.moveApplication``, ``verifyMoveDoesNotViolateConstraints``, ``executeMove``).
Hadoop 3.3's cases: ``TestAppRunnability.testMoveRunnableApp``, ``testMoveNonRunnableApp``,
``testMoveMakesAppRunnable`` (in ``TestFairScheduler`` before 3.1) and
``TestFairScheduler.testMoveWouldViolateMaxAppsConstraints``,
``testMoveWouldViolateMaxResourcesConstraints``, ``testMoveToNonexistentQueue``.  Hadoop's
tests create queue1 and queue2 on the fly (``getLeafQueue(name, true)``); here the
allocation file names them, since a move creates no queue."""

from __future__ import annotations

from typing import Any

import pytest

from corescheduler.errors import SchedulerStateError
from corescheduler.testing import ClusterHarness


def harness(node: str, queues: str = '<queue name="queue1"/><queue name="queue2"/>', nodes: int = 1,
            extra: str = "") -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=nodes, node_resources=node,
                          config={"scheduler": {"mode": "resources"}},
                          allocations=f"<allocations>{queues}{extra}</allocations>")


def queue(h: ClusterHarness, name: str) -> dict[str, Any]:
    return h.shares()["queues"][name]


def running(h: ClusterHarness, app: Any) -> list[Any]:
    return h.scheduler.ledger.running_of(app)


def state(h: ClusterHarness) -> dict[str, Any]:
    """What a refused move must leave as it was: the shares report, the apps' queues and the
    runnable counts."""
    engine = h.scheduler.resource_engine
    return {"shares": h.shares(),
            "queues": {j.id: (j.queue, j.pool, j.runnable) for j in h.scheduler.jobs.values()},
            "runnable": {q.name: (q.num_runnable, [j.id for j in q.runnable_apps], [j.id for j in q.waiting_apps])
                         for q in engine.tree.walk()},
            "users": dict(engine.user_runnable)}


def test_move_runnable_app() -> None:
    """``testMoveRunnableApp``: an app asking three 1024 MB containers runs one on a 1024 MB
    node in queue1; moved to queue2 it is runnable there and not in queue1, its container's
    use (1024 MB, 1 vcore) moves with it, and after an update its demand (3072 MB) is
    queue2's."""
    h = harness("1024 mb, 1 vcores")
    app = h.submit(queue="queue1", user="user1", tasks=3, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    assert queue(h, "root.queue1")["usage"] == {"memory": 1024, "vcores": 1}
    h.update()
    assert queue(h, "root.queue1")["demand"] == {"memory": 3072, "vcores": 3}

    h.move(app, "queue2")
    assert h.queue_of(app) == "root.queue2" and app.pool == "root.queue2"
    tree = h.scheduler.resource_engine.tree
    old, target = tree.queues["root.queue1"], tree.queues["root.queue2"]
    assert app not in old.runnable_apps and app in target.runnable_apps and app.runnable
    assert queue(h, "root.queue1")["usage"] == {"memory": 0, "vcores": 0}
    assert queue(h, "root.queue2")["usage"] == {"memory": 1024, "vcores": 1}
    assert (old.num_runnable, target.num_runnable, tree.root.num_runnable) == (0, 1, 1)
    h.update()
    assert queue(h, "root.queue1")["demand"] == {"memory": 0, "vcores": 0}
    assert queue(h, "root.queue2")["demand"] == {"memory": 3072, "vcores": 3}
    # the container keeps running, and its end gives back to queue2
    (task,) = running(h, app)
    h.finish(task)
    assert queue(h, "root.queue2")["usage"] == {"memory": 0, "vcores": 0}
    assert queue(h, "root.queue1")["usage"] == {"memory": 0, "vcores": 0}


def test_move_non_runnable_app() -> None:
    """``testMoveNonRunnableApp``: queue1 and queue2 both at maxRunningApps 0: the waiting app
    moves and still waits; nothing is runnable anywhere."""
    h = harness("1024 mb, 1 vcores", '<queue name="queue1"><maxRunningApps>0</maxRunningApps></queue>'
                                     '<queue name="queue2"><maxRunningApps>0</maxRunningApps></queue>')
    app = h.submit(queue="queue1", user="user1", tasks=3, resources="1024 mb, 1 vcores")
    tree = h.scheduler.resource_engine.tree
    assert tree.queues["root.queue1"].num_runnable == 0
    h.move(app, "queue2")
    assert h.queue_of(app) == "root.queue2" and not app.runnable and app.state == "waiting"
    assert app in tree.queues["root.queue2"].waiting_apps and not tree.queues["root.queue1"].waiting_apps
    assert (tree.queues["root.queue1"].num_runnable, tree.queues["root.queue2"].num_runnable,
            tree.root.num_runnable) == (0, 0, 0)
    assert h.heartbeat("n0000") == []


def test_move_makes_app_runnable() -> None:
    """``testMoveMakesAppRunnable``: queue1 at maxRunningApps 0 holds the app waiting; moved
    to queue2 it becomes runnable (``canAppBeRunnable``), starts, and runs a container."""
    h = harness("1024 mb, 1 vcores", '<queue name="queue1"><maxRunningApps>0</maxRunningApps></queue>'
                                     '<queue name="queue2"/>')
    events: list[dict[str, Any]] = []
    h.scheduler.ledger.on_event = events.append  # type: ignore[assignment]
    app = h.submit(queue="queue1", user="user1", tasks=3, resources="1024 mb, 1 vcores")
    tree = h.scheduler.resource_engine.tree
    assert app in tree.queues["root.queue1"].waiting_apps and not app.runnable
    h.move(app, "queue2")
    assert app not in tree.queues["root.queue1"].waiting_apps
    assert app not in tree.queues["root.queue2"].waiting_apps
    assert app in tree.queues["root.queue2"].runnable_apps and app.runnable and app.state == "running"
    assert (tree.queues["root.queue2"].num_runnable, tree.root.num_runnable) == (1, 1)
    assert [e["pool"] for e in events if e["type"] == "job_start"] == ["root.queue2"]
    assert [a.job for a in h.heartbeat("n0000")] == [app.id]


def test_move_would_violate_max_apps_constraints() -> None:
    """``testMoveWouldViolateMaxAppsConstraints``: queue2 at maxRunningApps 0 refuses the
    runnable app, naming the app, the queue and the rule; nothing changes."""
    h = harness("1024 mb, 1 vcores", '<queue name="queue1"/><queue name="queue2">'
                                     '<maxRunningApps>0</maxRunningApps></queue>')
    app = h.submit(queue="queue1", user="user1", tasks=3, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    before = state(h)
    with pytest.raises(SchedulerStateError, match=rf"Moving app {app.id} to queue root.queue2 would violate "
                                                  r"queue maxRunningApps constraints on queue root.queue2"):
        h.move(app, "queue2")
    assert state(h) == before


def test_move_would_violate_max_resources_constraints() -> None:
    """``testMoveWouldViolateMaxResourcesConstraints``: queue2's maxResources is 1024 MB, 1
    vcore; the app runs two 1024 MB containers in queue1 on a 2048 MB node: the move would
    take queue2 past its max share — refused, nothing changes."""
    h = harness("2048 mb, 2 vcores", '<queue name="queue1"/><queue name="queue2">'
                                     '<maxResources>1024 mb, 1 vcores</maxResources></queue>')
    app = h.submit(queue="queue1", user="user1", tasks=3, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    assert queue(h, "root.queue1")["usage"] == {"memory": 2048, "vcores": 2}
    before = state(h)
    with pytest.raises(SchedulerStateError, match=rf"Moving app {app.id} to queue root.queue2 would violate "
                                                  r"queue maxShare constraints on queue root.queue2"):
        h.move(app, "queue2")
    assert state(h) == before


def test_move_to_nonexistent_queue() -> None:
    """``testMoveToNonexistentQueue``: queue2 does not exist and a move creates none."""
    h = harness("1024 mb, 1 vcores", '<queue name="queue1"/>')
    app = h.submit(queue="queue1", user="user1", tasks=3, resources="1024 mb, 1 vcores")
    before = state(h)
    with pytest.raises(SchedulerStateError, match=rf"cannot move {app.id}: target queue queue2 not found or is "
                                                  "not a leaf queue"):
        h.move(app, "queue2")
    assert state(h) == before
    assert "root.queue2" not in h.scheduler.resource_engine.tree.queues


def test_move_to_a_parent_is_refused() -> None:
    """``QueueManager.getLeafQueue``: a parent is no target."""
    h = harness("1024 mb, 1 vcores", '<queue name="queue1"/><queue name="parent"><queue name="child"/></queue>')
    app = h.submit(queue="queue1", user="user1", tasks=1, resources="1024 mb, 1 vcores")
    with pytest.raises(SchedulerStateError, match="target queue parent not found or is not a leaf queue"):
        h.move(app, "parent")
    h.move(app, "parent.child")
    assert h.queue_of(app) == "root.parent.child"


def test_max_share_constraint_stops_at_the_common_ancestor() -> None:
    """``verifyMoveDoesNotViolateConstraints`` checks only the queues below the two leaves'
    lowest common ancestor: a parent at its maxResources and maxRunningApps takes a move
    between two of its children (its use and runnable count do not change)."""
    h = harness("4096 mb, 4 vcores", '<queue name="p"><maxResources>2048 mb, 2 vcores</maxResources>'
                                     '<maxRunningApps>1</maxRunningApps><queue name="a"/><queue name="b"/></queue>'
                                     '<queue name="c"><maxResources>1024 mb, 1 vcores</maxResources></queue>')
    app = h.submit(queue="p.a", user="u", tasks=3, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    assert queue(h, "root.p")["usage"] == {"memory": 2048, "vcores": 2}
    h.move(app, "p.b")
    assert queue(h, "root.p.b")["usage"] == {"memory": 2048, "vcores": 2}
    assert queue(h, "root.p.a")["usage"] == {"memory": 0, "vcores": 0}
    assert queue(h, "root.p")["usage"] == {"memory": 2048, "vcores": 2}
    with pytest.raises(SchedulerStateError, match=r"maxShare constraints on queue root\.c"):
        h.move(app, "c")


def test_am_use_moves_and_the_old_leaf_frees_a_waiting_app() -> None:
    """``executeMove``: the AM container's use moves to the new leaf's AM use
    (``FSAppAttempt.move``); the old leaf, at its maxRunningApps before, lets its waiting
    app run (``updateRunnabilityOnAppRemoval``)."""
    h = harness("8192 mb, 8 vcores", '<queue name="queue1"><maxRunningApps>1</maxRunningApps></queue>'
                                     '<queue name="queue2"/>')
    first = h.submit(queue="queue1", user="u1", tasks=2, resources="1024 mb, 1 vcores",
                     am_resources="1024 mb, 1 vcores")
    second = h.submit(queue="queue1", user="u2", tasks=1, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    assert first.am_running and not second.runnable
    engine = h.scheduler.resource_engine
    old, new = engine.tree.queues["root.queue1"], engine.tree.queues["root.queue2"]
    used = old.sched.running
    assert old.am_usage.memory == 1024
    h.move(first, "queue2")
    assert old.am_usage.memory == 0 and new.am_usage.memory == 1024
    assert new.sched.running == used and old.sched.running.memory == 0
    assert second.runnable and second in old.runnable_apps
    # the AM ends with its app, giving back to queue2
    for _ in range(4):  # its two containers run and finish
        for task in running(h, first):
            if not task.is_am:
                h.finish(task)
        if first.is_finished:
            break
        h.heartbeat("n0000")
    assert first.is_finished
    assert new.am_usage.memory == 0 and new.sched.running.memory == 0


def test_a_finished_app_or_its_own_queue_moves_nothing() -> None:
    """A move to the app's own queue changes nothing; an app that has ended is refused
    (``FairScheduler.moveApplication``: "is stopped and can't be moved"), nothing changed."""
    from corescheduler.errors import SchedulerStateError

    h = harness("1024 mb, 1 vcores")
    app = h.submit(queue="queue1", user="u", tasks=1, resources="1024 mb, 1 vcores")
    before = state(h)
    h.move(app, "queue1")
    h.move(app, "root.queue1")
    assert state(h) == before
    (a,) = h.heartbeat("n0000")
    h.finish(a.task)
    assert app.is_finished
    with pytest.raises(SchedulerStateError, match="is stopped and can't be moved"):
        h.move(app, "queue2")
    assert app.pool == "root.queue1"


def test_a_move_drops_the_apps_reservations() -> None:
    """A reservation the app holds counts in its old queues: it is dropped with the move (the
    app may reserve again, for its new queue)."""
    h = harness("2048 mb, 2 vcores")
    filler = h.submit(queue="queue1", user="u", tasks=1, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    big = h.submit(queue="queue1", user="v", tasks=1, resources="2048 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    node = h.cluster.nodes["n0000"]
    assert node.reserved is not None and node.reserved.job is big
    h.move(big, "queue2")
    assert node.reserved is None and h.queue_of(big) == "root.queue2"
    engine = h.scheduler.resource_engine
    assert engine.tree.queues["root.queue1"].reserved.memory == 0
    (task,) = running(h, filler)
    h.finish(task)
    got = h.heartbeat("n0000")
    assert [a.job for a in got] == [big.id]
    assert queue(h, "root.queue2")["usage"]["memory"] == 2048


def test_the_caller_must_be_allowed_to_submit_to_the_target() -> None:
    """``ClientRMService.moveApplicationAcrossQueues``: with a caller, the target queue's
    ``aclSubmitApps`` (or ``aclAdministerApps``) must let it in — ``Scheduler.move(user=…)``,
    as ``serve`` calls it for a tenant; without one (an admin), no ACL applies."""
    from corescheduler.core.scheduler import AccessDeniedError

    acls = ('<queue name="root"><aclSubmitApps> </aclSubmitApps><aclAdministerApps> </aclAdministerApps>'
            '<queue name="queue1"><aclSubmitApps>alice</aclSubmitApps></queue>'
            '<queue name="queue2"><aclSubmitApps>bob</aclSubmitApps></queue>'
            '<queue name="queue3"><aclAdministerApps>alice</aclAdministerApps></queue></queue>')
    h = harness("2048 mb, 2 vcores", acls)
    app = h.submit(queue="queue1", user="alice", tasks=2, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    before = state(h)
    with pytest.raises(AccessDeniedError, match=rf"User alice does not have permissions to submit {app.id} to "
                                                r"target queue root\.queue2"):
        h.scheduler.move(app.id, "queue2", h.clock, user="alice")
    assert state(h) == before
    h.scheduler.move(app.id, "queue3", h.clock, user="alice")  # administer access implies submit
    assert h.queue_of(app) == "root.queue3"
    h.scheduler.move(app.id, "queue2", h.clock)  # no caller: an admin
    assert h.queue_of(app) == "root.queue2"


@pytest.mark.parametrize("name", ["", "root", "a..b", " queue2", "root.", ".", "root.queue1.x", None, 5])
def test_a_bad_target_name_is_refused_cleanly(name: Any) -> None:
    """Any target that is no leaf's name — root, empty parts, white space, a child of a leaf,
    not a string — is one SchedulerStateError naming the app; nothing changes."""
    h = harness("1024 mb, 1 vcores")
    app = h.submit(queue="queue1", user="u", tasks=1, resources="1024 mb, 1 vcores")
    before = state(h)
    with pytest.raises(SchedulerStateError, match=app.id):
        h.move(app, name)
    assert state(h) == before
