"""A third batch of Hadoop 3.3's Capacity Scheduler unit tests through the public harness
(``TestApplicationLimits``, ``TestContainerAllocation``, ``TestLeafQueue``; the conventions of
test_yarn_capacity_leaf_queue.py and test_yarn_capacity_ports_more.py: a ``MockRM`` is a
harness with the scheduler's defaults, ``launchAndRegisterAM`` is :func:`launch`,
``am.allocate`` is :func:`ask`)."""

from __future__ import annotations

import pytest
from test_yarn_capacity_leaf_queue import CONFIG, FIXTURE
from test_yarn_capacity_ports_more import DRF, ask, launch, live, xml_of

from corescheduler.testing import ClusterHarness, SubmissionRejected

GB = 1024


def reserved(h: ClusterHarness, app: object) -> list[str]:
    """``getReservedContainers``: the nodes ``app`` holds reserved."""
    return sorted(name for name, node in h.scheduler.cluster.nodes.items()
                  if node.reserved is not None and node.reserved.job is h.job(app))  # type: ignore[arg-type]


def test_am_resource_limit_with_drc_and_full_parent() -> None:
    """``TestApplicationLimits.testAMResourceLimitWithDRCAndFullParent``: under
    ``DominantResourceCalculator`` a 100 GB, 1000-vcore cluster; a 30 % (maximum-am-resource-percent
    0.3), b 70 %.  b has borrowed almost all of a's share: it uses 99 GB and 505 vcores, so a's
    current limit is <1 GB, 495 vcores> — vcores dominant, above a's guarantee by the dominant
    share, below it in memory.  a's AM limit must not fall below 0.3 × its guarantee <30 GB, 300>
    for any type: ``calculateAndGetAMResourceLimitPerPartition`` uses the guarantee when it does
    not fit (``Resources.fitsIn``, every type) in the current limit: <9 GB, 90 vcores>.  (Hadoop's
    test sets a's limit directly; here b's app takes it, with b's user-limit-factor raised so one
    user may.)"""
    allocations = xml_of({"resource-calculator": DRF, "root.queues": "a,b", "root.a.capacity": "30",
                          "root.b.capacity": "70", "root.a.maximum-am-resource-percent": "0.3",
                          "root.a.user-limit-factor": "10", "root.b.user-limit-factor": "10"})
    config = {**CONFIG, "cluster": {"maximum_allocation": "16384 mb, 32 vcores"}}
    h = ClusterHarness(racks=1, nodes_per_rack=10, node_resources="10240 mb, 100 vcores", config=config,
                       allocations=allocations)
    hog = h.submit_app(queue="b", user="user_b", requests=[
        {"resources": "1024 mb, 5 vcores", "count": 94}, {"resources": "1024 mb, 7 vcores", "count": 5}])
    for _ in range(20):
        for i in range(10):
            h.heartbeat(f"n{i:04d}")
    h.update()
    b = h.shares()["queues"]["root.b"]["usage"]
    assert (int(b["memory"]), int(b["vcores"])) == (99 * GB, 505)
    assert live(hog) == 99
    limit = h.shares()["queues"]["root.a"]["am_limit"]
    assert (int(limit.memory), int(limit.vcores)) == (9 * GB, 90)


def test_excess_reservation_than_node_manager_capacity() -> None:
    """``TestContainerAllocation.testExcessReservationThanNodeManagerCapacity``: nm1 of 2 GB and
    nm2 of 3 GB (4 vcores each); an app's 128 MB AM (normalized to 1 GB) runs on nm1; it asks
    one 2 GB container: nm1's heartbeat allocates nothing (1 GB free), nm2's allocates it (the
    reservation on nm1, if any, given up: ``RegularContainerAllocator`` unreserves to allocate)."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="2048 mb, 4 vcores", config=CONFIG,
                       allocations=xml_of({"root.queues": "default", "root.default.capacity": "100"}))
    h.add_node("n0001", resources="3072 mb, 4 vcores")
    app = launch(h, "default", "user", "128 mb, 1 vcores")
    ask(h, app, "2048 mb, 1 vcores", 1)
    h.heartbeat("n0000")
    assert live(app) == 1  # the AM only
    h.heartbeat("n0001")
    assert live(app) == 2
    assert reserved(h, app) == []
    assert int(h.scheduler.cluster.nodes["n0001"].used.memory) == 2 * GB


def test_pending_resources_considering_user_limit() -> None:
    """``TestContainerAllocation.testPendingResourcesConsideringUserLimit``: queue default
    (user-limit-factor 0.5, maximum-am-resource-percent 1) on two 8 GB nodes; u1's app1 (2 GB AM)
    and u2's app2 (4 GB AM) on nm1; app1 asks 1 × 3 GB, app2 4 × 5 GB.  nm1's heartbeat reserves
    app1's 3 GB (2 GB free).  The user limit is 8 GB: u1's headroom 8 − 2 − 3 (reserved) = 3 GB,
    u2's 8 − 4 = 4 GB, so the queue's pending considering the user limit
    (``LeafQueue.getTotalPendingResourcesConsideringUserLimit``, the preemption monitor's) is
    3 + 4 = 7 GB."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml_of({"root.queues": "default", "root.default.capacity": "100",
                                           "root.default.user-limit-factor": "0.5",
                                           "root.default.maximum-am-resource-percent": "1.0"}))
    app1 = launch(h, "default", "u1", "2048 mb, 1 vcores")
    app2 = launch(h, "default", "u2", "4096 mb, 1 vcores")
    ask(h, app1, "3072 mb, 1 vcores", 1)
    ask(h, app2, "5120 mb, 1 vcores", 4)
    h.heartbeat("n0000")
    assert reserved(h, app1) == ["n0000"] and reserved(h, app2) == []
    assert (int(h.job(app1).usage.memory), int(h.job(app2).usage.memory)) == (2 * GB, 4 * GB)  # type: ignore[arg-type]
    h.update()
    assert int(h.shares()["queues"]["root.default"]["reserved"].memory) == 3 * GB
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    leaf = h.scheduler.resource_engine.tree.queues["root.default"]
    assert int(cs._pending_for_preemption(leaf).memory) == 7 * GB


def test_inherited_queue_acls() -> None:
    """``TestLeafQueue.testInheritedQueueAcls``: root and newroot submit to nobody (" "), a and b
    to everyone ("*"), c nobody, c1 none of its own: a user may submit to a and b, not to c1
    (``AbstractCSQueue.hasAccess``: a queue's ACL or an ancestor's lets in; none does).  The test
    asks the queues' submit ACLs; a submission also passes by the administer ACL
    (``RMAppManager.createAndPopulateNewRMApp``), root's default ``*``, which the port closes so
    that the submit ACLs alone decide, as in the test."""
    closed = FIXTURE.replace("</configuration>", "<property><name>yarn.scheduler.capacity.root.acl_administer_queue"
                                                 "</name><value> </value></property></configuration>")
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 16 vcores", config=CONFIG,
                       allocations=closed)
    for queue in ("a", "b"):
        assert h.queue_of(h.submit(queue=queue, user="someone", tasks=1)) == f"root.newroot.{queue}"
    with pytest.raises(SubmissionRejected, match="c1"):
        h.submit(queue="c1", user="someone", tasks=1)
    # root's administer ACL open (the fixture as it is): administering root lets anyone submit
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 16 vcores", config=CONFIG,
                       allocations=FIXTURE)
    assert h.queue_of(h.submit(queue="c1", user="someone", tasks=1)) == "root.newroot.c.c1"
