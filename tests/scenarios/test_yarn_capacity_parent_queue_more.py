"""More of Hadoop's ``TestParentQueue`` (Hadoop 3.3, ``hadoop-yarn-server-resourcemanager/.../
scheduler/capacity/TestParentQueue.java``) through the public harness, in the manner of
test_yarn_capacity_parent_queue.py: each of Hadoop's stubbed child allocations is an app of
that size in that leaf, asking where the stub's locality type says."""

from __future__ import annotations

import pytest
from test_yarn_capacity_parent_queue import verify_queue_metrics, xml

from corescheduler.testing import ClusterHarness, SubmissionRejected

GB = 1024
CONFIG = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}}

#: ``TestParentQueue.setupMultiLevelQueues``: root.a 10 % (a1, a2 50 % each), b 50 % (b1 10,
#: b2 20, b3 70 %), c 19.5 % (c1 → c11 → c111 → c1111, 100 % each), d 20.5 %
MULTI_LEVEL = [
    ("root.queues", "a,b,c,d"), ("root.a.capacity", "10"), ("root.b.capacity", "50"),
    ("root.c.capacity", "19.5"), ("root.d.capacity", "20.5"), ("root.a.queues", "a1,a2"),
    ("root.a.a1.capacity", "50"), ("root.a.a2.capacity", "50"), ("root.b.queues", "b1,b2,b3"),
    ("root.b.b1.capacity", "10"), ("root.b.b2.capacity", "20"), ("root.b.b3.capacity", "70"),
    ("root.c.queues", "c1"), ("root.c.c1.capacity", "100"), ("root.c.c1.queues", "c11"),
    ("root.c.c1.c11.capacity", "100"), ("root.c.c1.c11.queues", "c111"),
    ("root.c.c1.c11.c111.capacity", "100"), ("root.c.c1.c11.c111.queues", "c1111"),
    ("root.c.c1.c11.c111.c1111.capacity", "100"),
]


def test_off_switch_scheduling_multi_level_queues() -> None:
    """``TestParentQueue.testOffSwitchSchedulingMultiLevelQueues``: the multi-level tree on two
    10 GB nodes (b2's guarantee 2 GB, b3's 7 GB).  b3 returns 1 GB OFF_SWITCH on node_0.  On
    node_1 b2 (0/2 G < 1/7 G) gets 1 GB RACK_LOCAL, and as that is not off-switch b3 gets its
    opportunity in the same heartbeat: 1 GB OFF_SWITCH (b2 1 GB, b3 2 GB).  On node_0 b3
    (2/7 < 1/2) gets 1 GB OFF_SWITCH, and b2 — with a NODE_LOCAL 1 GB there — gets no
    opportunity: one off-switch container a heartbeat (b2 1 GB, b3 3 GB); node_0's next
    heartbeat gives b2 its node-local container (beyond Hadoop's steps)."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="10240 mb, 10 vcores", config=CONFIG,
                       allocations=xml(*MULTI_LEVEL, ("user-limit-factor", "10"), ("node-locality-delay", "0")))
    cluster = 20 * GB

    def beat(node: str) -> list[tuple[str, str]]:
        return [(h.queue_of(a.job) or "", a.locality if a.locality in ("node", "rack") else "off")
                for a in h.heartbeat(node)]

    def b2(where: str) -> None:
        h.submit_app(queue="b2", user="user_b", requests=[{"resources": "1024 mb, 1 vcores", "locations": [where]}])

    for _ in range(3):
        h.submit(queue="b3", user="user_b", tasks=1, resources="1024 mb, 1 vcores")
    assert beat("n0000") == [("root.b.b3", "off")]  # "Simulate B3 returning a container on node_0"
    verify_queue_metrics(h, "root.b.b2", 0, cluster)
    verify_queue_metrics(h, "root.b.b3", 1 * GB, cluster)
    b2("n0000")  # a container for node_0: RACK_LOCAL on node_1 (node-locality-delay 0)
    # "B2 should get the scheduling opportunity since B2=0G/2G, B3=1G/7G; also, B3 gets a
    # scheduling opportunity since B2 allocates RACK_LOCAL"
    assert beat("n0001") == [("root.b.b2", "rack"), ("root.b.b3", "off")]
    verify_queue_metrics(h, "root.b.b2", 1 * GB, cluster)
    verify_queue_metrics(h, "root.b.b3", 2 * GB, cluster)
    b2("n0000")  # NODE_LOCAL on node_0
    # "B3 should get the scheduling opportunity since B2 has 1/2G while B3 has 2/7G, However,
    # since B3 returns off-switch, B2 won't get an opportunity"
    assert beat("n0000") == [("root.b.b3", "off")]
    verify_queue_metrics(h, "root.b.b2", 1 * GB, cluster)
    verify_queue_metrics(h, "root.b.b3", 3 * GB, cluster)
    assert beat("n0000") == [("root.b.b2", "node")]


def test_queue_acl() -> None:
    """``TestParentQueue.testQueueAcl``: the multi-level tree with root's submit and administer
    ACLs closed, c administered by everyone and c11 open for submission: administering
    implies submitting (``CapacityScheduler.checkAccess``) and a queue's ACLs are its own or
    an ancestor's (``AbstractCSQueue.hasAccess``), so c1111, under c and c11, takes anyone's
    app, while a1, b3 and d — whose ACLs are unset (nobody, ``CapacitySchedulerConfiguration.
    getAcl``) under a closed root — refuse it."""
    props = [*MULTI_LEVEL, ("root.acl_submit_applications", " "), ("root.acl_administer_queue", " "),
             ("root.c.acl_administer_queue", "*"), ("root.c.c1.c11.acl_submit_applications", "*")]
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores", config=CONFIG,
                       allocations=xml(*props))
    h.submit(queue="c1111", user="anyone", tasks=1, resources="1024 mb, 1 vcores")
    for leaf in ("a1", "b3", "d"):
        with pytest.raises(SubmissionRejected):
            h.submit(queue=leaf, user="anyone", tasks=1, resources="1024 mb, 1 vcores")


def absolute_harness(nodes: int, node: str) -> ClusterHarness:
    """``TestParentQueue.setupSingleLevelQueuesWithAbsoluteResource``: root.a [6 GB, 10 vcores],
    root.b [14 GB, 22 vcores]."""
    return ClusterHarness(racks=1, nodes_per_rack=nodes, node_resources=node, config=CONFIG,
                          allocations=xml(("root.queues", "a,b"), ("root.a.capacity", "[memory=6144,vcores=10]"),
                                          ("root.b.capacity", "[memory=14336,vcores=22]")))


def guarantees(h: ClusterHarness) -> list[tuple[int, int]]:
    h.update()
    return [(int(q["guaranteed"].memory), int(q["guaranteed"].vcores))
            for q in (h.shares()["queues"]["root.a"], h.shares()["queues"]["root.b"])]


def test_absolute_resource_with_change_in_cluster_resource() -> None:
    """``TestParentQueue.testAbsoluteResourceWithChangeInClusterResource``: on two nodes of
    10 GB and 16 vcores the effective guarantees are the configured ones; with one node left
    (10 GB, 16 vcores: less than the 20 GB configured) each resource scales by the cluster
    over the configured sum (``ParentQueue.calculateEffectiveResourcesAndCapacity``: memory
    0.5, vcores 16 ÷ 32): a [3 GB, 5], b [7 GB, 11]; with that node's vcores 40, vcores scale
    by 40 ÷ 32 = 1.25: a [3 GB, 12], b [7 GB, 27] ((long) (22 × 1.25f))."""
    h = absolute_harness(2, "10240 mb, 16 vcores")
    assert guarantees(h) == [(6 * GB, 10), (14 * GB, 22)]
    h.remove_node("n0001")
    assert guarantees(h) == [(3 * GB, 5), (7 * GB, 11)]
    h.remove_node("n0000")
    h.add_node("n0002", resources="10240 mb, 40 vcores")
    assert guarantees(h) == [(3 * GB, 12), (7 * GB, 27)]


def test_derive_capacity_from_absolute_configurations() -> None:
    """``TestParentQueue.testDeriveCapacityFromAbsoluteConfigurations``: a cluster of exactly
    a's and b's configured resources (two nodes of [10 GB, 16 vcores]): a's capacity and
    absolute capacity are 6 ÷ 20, b's 14 ÷ 20, both maxima 1; a leaf takes
    maximum-applications × its share apps (10000 × 0.3 = 3000, 10000 × 0.7 = 7000)."""
    h = absolute_harness(2, "10240 mb, 16 vcores")
    h.update()
    for path, scale in (("root.a", 6 / 20), ("root.b", 14 / 20)):
        q = h.shares()["queues"][path]
        assert q["capacity"] == pytest.approx(scale, abs=1e-4)
        assert q["absolute_capacity"] == pytest.approx(scale, abs=1e-4)
        assert q["maximum_capacity"] == pytest.approx(1.0, abs=1e-4)
        assert q["absolute_maximum_capacity"] == pytest.approx(1.0, abs=1e-4)
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    assert [cs.max_applications(cs.conf, p) for p in ("root.a", "root.b")] == [3000, 7000]
