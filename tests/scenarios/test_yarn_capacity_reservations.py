"""Reservations of the Capacity Scheduler: Hadoop's ``TestLeafQueue.testReservation``
(Hadoop 3.3, ``.../scheduler/capacity/TestLeafQueue.java``) through the public harness, with
its ``setupQueueConfiguration`` as a capacity-scheduler.xml
(tests/data/yarn_capacity/test-leaf-queue.xml); one ``assignContainers`` call is one heartbeat
of the node giving one container.
"""

from __future__ import annotations

from test_yarn_capacity_leaf_queue import FIXTURE, harness, used, with_values

GB = 1024


def test_reservation() -> None:
    """``TestLeafQueue.testReservation``: queue a (8.5 %, maximum 100 %) on two 4 GB nodes;
    user_0's app_0 asks for 2 × 1 GB, user_1's app_1 for 4 GB.  On node_0: app_0 1 GB, then
    2 GB; then app_1's 4 GB does not fit and is reserved there (a uses 6 GB, 4 GB of it
    reserved; the node has 2 GB allocated); one of app_0's containers done, the reservation
    stays (5 GB); the other done, it is fulfilled: a uses 4 GB, all app_1's, nothing
    reserved."""
    h = harness(with_values(FIXTURE, a__maximum_capacity="100"), nodes=2, node="4096 mb, 16 vcores")
    app_0 = h.submit(queue="a", user="user_0", tasks=2, resources="1024 mb, 1 vcores")
    app_1 = h.submit(queue="a", user="user_1", tasks=1, resources="4096 mb, 1 vcores")

    def state() -> tuple[int, int, int, int]:
        h.update()
        q = h.shares()["queues"]["root.newroot.a"]
        return int(q["used"].memory), used(h, app_0.id), used(h, app_1.id), int(q["reserved"].memory)

    h.heartbeat("n0000")
    assert state() == (1 * GB, 1 * GB, 0, 0)
    h.heartbeat("n0000")
    assert state() == (2 * GB, 2 * GB, 0, 0)
    h.heartbeat("n0000")  # "Now, reservation should kick in for app_1"
    assert state() == (6 * GB, 2 * GB, 0, 4 * GB)
    live = [t for t in h.scheduler._running_tasks.values() if t.job is app_0]
    h.finish(live[0])  # "Now free 1 container from app_0 i.e. 1G"
    h.heartbeat("n0000")
    assert state() == (5 * GB, 1 * GB, 0, 4 * GB)
    h.finish(live[1])  # "Now finish another container from app_0 and fulfill the reservation"
    h.heartbeat("n0000")
    assert state() == (4 * GB, 0, 4 * GB, 0)


def test_a_full_node_is_not_reserved() -> None:
    """``CapacityScheduler.allocateOrReserveNewContainers``: a node without a minimum
    allocation (1 GB) free is not scheduled on, so nothing reserves it: with node_0's 4 GB all
    used by app_0, app_1's 2 GB container reserves nothing there and runs on node_1."""
    h = harness(with_values(FIXTURE, a__maximum_capacity="100", a__user_limit_factor="100"), nodes=2,
                node="4096 mb, 16 vcores")
    app_0 = h.submit(queue="a", user="user_0", tasks=4, resources="1024 mb, 1 vcores")
    for _ in range(4):
        h.heartbeat("n0000")
    assert used(h, app_0.id) == 4 * GB
    app_1 = h.submit(queue="a", user="user_1", tasks=1, resources="2048 mb, 1 vcores")
    assert h.heartbeat("n0000") == []
    h.update()
    assert h.shares()["queues"]["root.newroot.a"]["reserved"].memory == 0
    h.heartbeat("n0001")
    assert used(h, app_1.id) == 2 * GB


def test_an_app_reserves_no_more_nodes_than_it_has_containers_outstanding() -> None:
    """``FiCaSchedulerApp.shouldAllocOrReserveNewContainer``: app_1, asking for one 3 GB
    container, reserves node_0 (1 GB of 4 GB used by app_0) but not node_1 too (also 1 GB
    used): one outstanding container, one reservation."""
    h = harness(with_values(FIXTURE, a__maximum_capacity="100", a__user_limit_factor="100"), nodes=2,
                node="4096 mb, 16 vcores")
    h.submit(queue="a", user="user_0", tasks=2, resources="2048 mb, 1 vcores")
    h.heartbeat("n0000")
    h.heartbeat("n0001")
    app_1 = h.submit(queue="a", user="user_1", tasks=1, resources="3072 mb, 1 vcores")
    h.heartbeat("n0000")
    h.heartbeat("n0001")
    h.update()
    assert h.shares()["queues"]["root.newroot.a"]["reserved"].memory == 3 * GB
    assert used(h, app_1.id) == 0
