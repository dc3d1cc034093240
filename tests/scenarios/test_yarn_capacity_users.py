"""YARN Capacity Scheduler worked cases of Hadoop's ``TestLeafQueue`` about several users of
one leaf (Hadoop 3.3, ``.../scheduler/capacity/TestLeafQueue.java``) through the public
harness, with its ``setupQueueConfiguration`` as a capacity-scheduler.xml
(tests/data/yarn_capacity/test-leaf-queue.xml).

As in tests/scenarios/test_yarn_capacity_leaf_queue.py: one ``assignContainers`` call is one
heartbeat of the node (one container a heartbeat off-switch), a setter is a reload of the
file, and an app of the test that asks for nothing yet is submitted when it asks.
"""

from __future__ import annotations

from test_yarn_capacity_leaf_queue import FIXTURE, harness, headroom, used, with_values

GB = 1024
ASK = "1024 mb, 1 vcores"


def finish_all(h: object, app: object) -> None:
    """``completedContainer`` for each of the app's live containers."""
    for task in [t for t in h.scheduler._running_tasks.values() if t.job is app]:  # type: ignore[attr-defined]
        h.finish(task)  # type: ignore[attr-defined]


def test_single_queue_with_multiple_users() -> None:
    """``TestLeafQueue.testSingleQueueWithMultipleUsers``: queue a (8.5 %, maximum 100 %) on one
    8 GB node; user_0's app_0 and app_1 ask for 10 × 1 GB each.  app_0 gets 1 GB, then 2 GB
    ("one container more than user-limit"); with minimum-user-limit-percent 25 nothing more.
    user_1's app_2 asks for 3 GB and user_2's app_3 for 2 × 1 GB; with user-limit-factor 10
    app_2 gets 3 GB (user_0 is over its limit of ⌈(2 + 1) GB ÷ 3⌉ = 1 GB), then app_0 1 GB
    (user_0 at its limit of (5 + 1) GB ÷ 3 = 2 GB, not above it); with maximum-capacity 50 %
    nothing; back to 100 % and factor 1, app_3 1 GB, and again 1 GB (user_2 under its limit).
    Releasing app_0's, app_2's and app_3's containers: 5 GB, 2 GB, 0."""
    xml = with_values(FIXTURE, a__maximum_capacity="100")
    h = harness(xml)
    app_0 = h.submit(queue="a", user="user_0", tasks=10, resources=ASK)
    app_1 = h.submit(queue="a", user="user_0", tasks=10, resources=ASK)

    def state(*apps: object) -> tuple[int, ...]:
        h.update()
        return (used(h, "root.newroot.a"), *(used(h, a.id) for a in apps))  # type: ignore[attr-defined]

    h.heartbeat("n0000")
    assert state(app_0, app_1) == (1 * GB, 1 * GB, 0)
    h.heartbeat("n0000")
    assert state(app_0, app_1) == (2 * GB, 2 * GB, 0)
    xml = with_values(xml, a__minimum_user_limit_percent="25")  # a.setUserLimit(25)
    h.set_allocations(xml)
    h.heartbeat("n0000")
    assert state(app_0, app_1) == (2 * GB, 2 * GB, 0)  # "Can't allocate 3rd due to user-limit"
    app_2 = h.submit(queue="a", user="user_1", tasks=1, resources="3072 mb, 1 vcores")
    app_3 = h.submit(queue="a", user="user_2", tasks=2, resources=ASK)
    xml10 = with_values(xml, a__user_limit_factor="10")  # a.setUserLimitFactor(10)
    h.set_allocations(xml10)
    h.heartbeat("n0000")
    assert state(app_0, app_1, app_2, app_3) == (5 * GB, 2 * GB, 0, 3 * GB, 0)
    h.heartbeat("n0000")
    assert state(app_0, app_1, app_2, app_3) == (6 * GB, 3 * GB, 0, 3 * GB, 0)
    h.set_allocations(with_values(xml10, a__maximum_capacity="50"))  # "Test max-capacity"
    h.heartbeat("n0000")
    assert state(app_0, app_1, app_2, app_3) == (6 * GB, 3 * GB, 0, 3 * GB, 0)
    h.set_allocations(with_values(xml, a__user_limit_factor="1"))  # "Revert max-capacity and user-limit-factor"
    h.heartbeat("n0000")
    assert state(app_0, app_1, app_2, app_3) == (7 * GB, 3 * GB, 0, 3 * GB, 1 * GB)
    h.heartbeat("n0000")
    assert state(app_0, app_1, app_2, app_3) == (8 * GB, 3 * GB, 0, 3 * GB, 2 * GB)
    finish_all(h, app_0)
    assert state(app_0, app_1, app_2, app_3) == (5 * GB, 0, 0, 3 * GB, 2 * GB)
    finish_all(h, app_2)
    assert state(app_0, app_1, app_2, app_3) == (2 * GB, 0, 0, 0, 2 * GB)
    finish_all(h, app_3)
    assert state(app_0, app_1, app_2, app_3) == (0, 0, 0, 0, 0)


def test_user_headroom_multi_app() -> None:
    """``TestLeafQueue.testUserHeadroomMultiApp``: queue a (8.5 %, maximum 100 %) on two 16 GB
    nodes (a's guarantee 2785 MB); user_0's app_0 asks for 1 GB, app_1 for 2 × 1 GB, user_1's
    app_2 for 1 GB.  app_0 gets 1 GB: headroom 2 GB for both of user_0's apps (limit 2785 MB
    rounded up to 3 GB, − 1 GB), 3 GB for user_1's; app_1 gets 1 GB: 1 GB for user_0's apps,
    still 3 GB for app_2; app_0's container completed: 2 GB for user_0 again ("headroom is the
    same for all apps for a given user + queue combo")."""
    h = harness(with_values(FIXTURE, a__maximum_capacity="100"), nodes=2, node="16384 mb, 16 vcores")
    app_0 = h.submit(queue="a", user="user_0", tasks=1, resources=ASK)
    app_1 = h.submit(queue="a", user="user_0", tasks=2, resources=ASK)
    app_2 = h.submit(queue="a", user="user_1", tasks=1, resources=ASK)
    h.heartbeat("n0000")
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (1 * GB, 1 * GB, 0)
    assert (headroom(h, app_0), headroom(h, app_1), headroom(h, app_2)) == (2 * GB, 2 * GB, 3 * GB)
    h.heartbeat("n0000")
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (2 * GB, 1 * GB, 1 * GB)
    assert (headroom(h, app_0), headroom(h, app_1), headroom(h, app_2)) == (1 * GB, 1 * GB, 3 * GB)
    finish_all(h, app_0)  # "Complete container and verify that headroom is updated, for both apps"
    assert headroom(h, app_1) == 2 * GB  # (app_0, its one container done, has ended here)


def test_compute_user_limit_and_set_headroom_fourth_case() -> None:
    """``TestLeafQueue.testComputeUserLimitAndSetHeadroom``'s fourth case, a documented
    deviation: after cases 1–3 (tests/scenarios/test_yarn_capacity_leaf_queue.py), user_0's
    app_4 asks for 6 GB and gets it on node_1: b uses 10 GB (user_0 8 GB, user_1 2 GB) and no
    app asks for more.  Hadoop's test expects headrooms of 6 GB for user_1's app_3 and 1 GB
    for app_4: a user limit of 9 GB = (8 GB + 1 GB) ÷ 1, that is user_0 still counted as
    the one active user once its ask was met.  Here a user is active while one of its apps
    asks for containers (``UsersManager.activateApplication`` / ``deactivateApplication``),
    so none is: the limit is ⌈16 GB × 80 % × 50 %⌉ rounded up to 7 GB, and the headrooms
    min(7 − 2, 16 − 10) = 5 GB and max(7 − 8, 0) = 0."""
    xml = with_values(FIXTURE, b__maximum_capacity="100")
    h = harness(xml, nodes=2)
    app_0 = h.submit(queue="b", user="user_0", tasks=1, resources="4096 mb, 1 vcores")
    h.heartbeat("n0000")
    app_2 = h.submit(queue="b", user="user_1", tasks=1, resources="4096 mb, 1 vcores")
    h.heartbeat("n0001")
    finish_all(h, app_0)
    finish_all(h, app_2)
    h.set_allocations(with_values(xml, b__minimum_user_limit_percent="50"))
    app_1 = h.submit(queue="b", user="user_0", tasks=1, resources="2048 mb, 1 vcores")
    app_3 = h.submit(queue="b", user="user_1", tasks=1, resources="2048 mb, 1 vcores")
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    assert (headroom(h, app_3), headroom(h, app_1)) == (5 * GB, 5 * GB)  # case 3, as Hadoop
    app_4 = h.submit(queue="b", user="user_0", tasks=1, resources="6144 mb, 1 vcores")
    h.heartbeat("n0001")
    assert used(h, "root.newroot.b") == 10 * GB  # "testcase3 still active - 2+2+6=10"
    assert (headroom(h, app_3), headroom(h, app_4)) == (5 * GB, 0)  # Hadoop: 6 GB and 1 GB
