"""A reserved node's heartbeat under the Capacity Scheduler (Hadoop 3.3
``CapacityScheduler.allocateContainerOnSingleNode``): the reserved app is served first; while
the node stays reserved nothing else is allocated ("Do not schedule if there are any
reservations to fulfill on the node"); once the reservation is fulfilled the heartbeat goes
on (``allocateOrReserveNewContainers``), and the fulfilled container counts against neither
``maximum-container-assignments`` nor ``maximum-offswitch-assignments`` (the assignment
``allocateContainersToNode`` counts is the new one).  The fair scheduler's
``attemptScheduling`` gives the node nothing else after a valid reservation."""

from __future__ import annotations

from corescheduler.testing import ClusterHarness

GB = 1024
XML = ("<configuration>"
       "<property><name>yarn.scheduler.capacity.root.queues</name><value>a</value></property>"
       "<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>100</value></property>"
       "</configuration>")


def used(h: ClusterHarness, job: object) -> int:
    return int(job.usage.memory)  # type: ignore[attr-defined]


def test_after_a_fulfilled_reservation_the_heartbeat_goes_on() -> None:
    """app_0 runs two 3 GB containers on n0000 (8 GB; the queue has both nodes, 16 GB);
    app_1's 4 GB reserves it (2 GB free) and app_2's 1 GB containers get nothing there
    meanwhile.  One of app_0's containers ends:
    the next heartbeat fulfils app_1's reservation (4 GB) and then gives app_2 the 1 GB left —
    one off-switch container, the fulfilled one not counted."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=XML)
    app_0 = h.submit(queue="a", user="u0", tasks=2, resources="3072 mb, 1 vcores")
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    assert used(h, app_0) == 6 * GB
    app_1 = h.submit(queue="a", user="u1", tasks=1, resources="4096 mb, 1 vcores")
    app_2 = h.submit(queue="a", user="u2", tasks=4, resources="1024 mb, 1 vcores")
    assert h.heartbeat("n0000") == []
    assert h.cluster.nodes["n0000"].reserved is not None
    assert h.heartbeat("n0000") == []  # reserved for app_1: nothing for app_2
    assert used(h, app_2) == 0
    h.finish(next(t for t in h.scheduler.ledger.running.values() if t.job is app_0))
    got = h.heartbeat("n0000")
    assert [(a.job, a.resources.memory) for a in got] == [(app_1.id, 4 * GB), (app_2.id, GB)]
    assert h.cluster.nodes["n0000"].reserved is None


def test_the_fair_scheduler_gives_nothing_else_after_a_fulfilled_reservation() -> None:
    """``FairScheduler.attemptScheduling``: a valid reservation (``assignReservedContainer``
    true) ends the heartbeat, fulfilled or not (``assign_multiple`` on)."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "assign_multiple": True}})
    app_0 = h.submit(pool="q", user="u0", tasks=2, resources="3072 mb, 1 vcores")
    h.heartbeat("n0000")
    assert used(h, app_0) == 6 * GB
    app_1 = h.submit(pool="q", user="u1", tasks=1, resources="4096 mb, 1 vcores")
    app_2 = h.submit(pool="q", user="u2", tasks=4, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    assert h.cluster.nodes["n0000"].reserved is not None
    h.finish(next(t for t in h.scheduler.ledger.running.values() if t.job is app_0))
    got = h.heartbeat("n0000")
    assert [a.job for a in got] == [app_1.id]
    assert used(h, app_2) == 0
