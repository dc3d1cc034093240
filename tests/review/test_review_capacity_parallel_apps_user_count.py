"""Review (session 16): an app held back by ``max-parallel-apps`` does not count towards its
user's maximum applications in the queue.

Hadoop (``LeafQueue.addApplicationAttempt``): an app that is not runnable
(``CSMaxRunningAppsEnforcer``) goes to ``nonRunnableApps`` and returns *before*
``user.submitApplication()``, so ``User.getTotalApplications`` (pending + active) — what
``LeafQueue.validateSubmitApplication`` holds against ``maxApplicationsPerUser`` — leaves it
out until it becomes runnable.  ``yarn_capacity`` counted every placed app of the user, so a
user whose apps wait for a running-app slot was refused submissions Hadoop accepts."""

from __future__ import annotations

from corescheduler.testing import ClusterHarness, SubmissionRejected


def _prop(k: str, v: str) -> str:
    return f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"


XML = ("<configuration>" + _prop("root.queues", "a") + _prop("root.a.capacity", "100")
       + _prop("root.a.maximum-applications", "4") + _prop("root.a.minimum-user-limit-percent", "50")
       + _prop("user.max-parallel-apps", "1") + "</configuration>")


def test_apps_waiting_for_a_running_slot_leave_the_users_count() -> None:
    """a: maximum-applications 4, minimum-user-limit-percent 50, user-limit-factor 1: a user may
    have min(4, (int) (4 × 0.5 × 1)) = 2 applications; every user runs one app at a time.  u's
    first app runs and its others wait, not runnable: Hadoop's user count stays 1, so u's
    second, third and fourth apps are accepted (the queue's 4 is the bound) and the fifth is
    refused by the queue's maximum.  (u's third app was refused: "already has 2
    applications from user u".)"""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}}, allocations=XML)
    apps = [h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores") for _ in range(4)]
    assert [app.runnable for app in apps] == [True, False, False, False]
    try:
        h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores")
    except SubmissionRejected as err:
        assert "maximum-applications 4" in str(err)
    else:
        raise AssertionError("the queue's fifth application was accepted")


def test_a_move_leaves_the_users_waiting_apps_out_of_its_count_too() -> None:
    """``CapacityScheduler.preValidateMoveApplication`` holds the move against the target's
    ``validateSubmitApplication``, the same per-user count: u has one running and one waiting
    app in b (max-parallel-apps 1), so its count there is 1 of its 2 and u's app in a may move
    into b (it was refused: "already has 2 applications from user u")."""
    xml = ("<configuration>" + _prop("root.queues", "a,b") + _prop("root.a.capacity", "50")
           + _prop("root.b.capacity", "50") + _prop("root.b.maximum-applications", "4")
           + _prop("root.b.minimum-user-limit-percent", "50") + _prop("root.b.max-parallel-apps", "1")
           + "</configuration>")
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}}, allocations=xml)
    in_b = [h.submit(queue="b", user="u", tasks=1, resources="1024 mb, 1 vcores") for _ in range(2)]
    assert [app.runnable for app in in_b] == [True, False]
    moving = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores")
    h.move(moving, "b")
    assert h.scheduler.job(moving.id).queue == "root.b"
