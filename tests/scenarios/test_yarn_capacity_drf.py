"""YARN Capacity Scheduler worked cases of Hadoop's ``TestLeafQueue`` under the
``DominantResourceCalculator`` (Hadoop 3.3, ``TestLeafQueue.setUpWithDominantResourceCalculator``)
through the public harness, with its ``setupQueueConfiguration`` as a capacity-scheduler.xml
(tests/data/yarn_capacity/test-leaf-queue.xml) and the calculator key set.

Hadoop's tests call ``LeafQueue.assignContainers`` once per step; here a step is one heartbeat
of the node (one container a heartbeat off-switch, as ``assignContainers`` gives).  A setter
(``setUserLimitFactor``, ``setMaxCapacity``) is the file with that value.  ``setUpInternal``
turns ``reservations-continue-look-all-nodes`` off (``RESERVE_CONT_LOOK_ALL_NODES``, false), and
so does :func:`harness`.
"""

from __future__ import annotations

from test_yarn_capacity_leaf_queue import FIXTURE, with_globals, with_values

from corescheduler.testing import ClusterHarness

GB = 1024
DRF = "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"


def harness(xml: str, nodes: int, node: str, maximum: str = "16384 mb, 32 vcores") -> ClusterHarness:
    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"},
              "cluster": {"minimum_allocation": "1024 mb, 1 vcores", "maximum_allocation": maximum}}
    return ClusterHarness(racks=1, nodes_per_rack=nodes, node_resources=node, config=config,
                          allocations=with_globals(xml, resource_calculator=DRF,
                                                   reservations_continue_look_all_nodes="false"))


def fill(h: ClusterHarness, node: str, most: int = 200) -> int:
    """Heartbeats of ``node`` until one assigns nothing (the test's do … while): how many
    containers were assigned."""
    count = 0
    for _ in range(most):
        got = h.heartbeat(node)
        if not got:
            return count
        count += len(got)
    raise AssertionError(f"{node} kept assigning")


def test_headroom_check_with_drf() -> None:
    """``TestLeafQueue.testHeadroomCheckWithDRF``: queue b (80 %, maximum 99 %), user-limit-factor
    10, one node of 100 GB and 100 vcores: a 90 GB, 1-vcore container is assigned (OFF_SWITCH);
    then a 10 GB one is not, as 90 + 10 GB passes b's maximum of 99 GB (its dominant share
    would be 1.0 > 0.99)."""
    h = harness(with_values(FIXTURE, b__user_limit_factor="10"), 1, "102400 mb, 100 vcores",
                maximum="102400 mb, 100 vcores")
    app = h.submit_app(queue="b", user="user_0", requests=[
        {"resources": "92160 mb, 1 vcores", "count": 1, "priority": 1}])
    got = h.heartbeat("n0000")
    assert [a.resources.memory for a in got] == [90 * GB]  # OFF_SWITCH: the ask names no place
    h.add_requests(app, [{"resources": "10240 mb, 1 vcores", "count": 10, "priority": 1}])
    assert h.heartbeat("n0000") == []
    assert int(h.job(app).usage.memory) == 90 * GB


def test_drf_user_limits() -> None:
    """``TestLeafQueue.testDRFUserLimits``: queue b (80 %, maximum 100 %, minimum-user-limit-percent
    50, user-limit-factor 2) on two nodes of 8 GB and 100 vcores; user_0's app asks for 10 ×
    (1 GB, 40 vcores) — vcores-dominant —, user_1's for 10 × (2 GB, 10 vcores) —
    memory-dominant.  Filling node 0, then node 1, as far as they go: both users get
    containers.

    Hadoop's numbers (``UsersManager.computeUserLimit``; the cluster is (16 GB, 200 vcores), b's
    guarantee (13107 MB, 160 vcores)).  The limit starts at 50 % of the guarantee, (6554 MB, 80)
    rounded up to (7168 MB, 80): a dominant share of 0.4375.
    * Node 0: user_0 gets two containers, (2 GB, 80) = 0.4, and then reserves node 0 (20 vcores
      free) for a third.  A reservation counts in its user's use (``LeafQueue.apply`` →
      ``allocateResource``), so user_0 is at (3 GB, 120) = 0.6.
    * Node 1, user_0: over its limit, its reservation counted, and skipped
      (``LeafQueue.canAssignToUser``; continue-looking is off).
    * Node 1, user_1: four containers (8 GB, 40).  The limit follows the usage ratio, the sum of
      the users' dominant shares with the reservation counted:
      - 0.725: the limit is (7168, 80);
      - 0.85: consumed (14336, 171) is past the guarantee, current (15360, 172), limit (8192, 86)
        (Hadoop's Java floats; exactly, 170 and 171 vcores, and the same limit);
      - 0.975: the limit is (9216, 98);
      - 1.1: the limit is (10240, 111) = 0.625, and user_0 (0.6) is within it again.
    * Node 1 then has 60 vcores free but no memory.  Hadoop's test reserves it for user_0, and b
      reaches (16 GB, 200): an absolute used capacity of 1.0 (its assertion: > 0.95).  It can,
      because it calls ``LeafQueue.assignContainers`` directly.  ``CapacityScheduler``
      (``allocateContainerOnSingleNode``: ``computeAvailableContainers(unallocated,
      minimumAllocation) <= 0``) skips a node without a minimum allocation free, and so does
      the heartbeat here.  So b stays at (11 GB, 160 vcores) with the reservation: 0.8."""
    h = harness(with_values(FIXTURE, b__maximum_capacity="100", b__minimum_user_limit_percent="50",
                            b__user_limit_factor="2"), 2, "8192 mb, 100 vcores",
                maximum="16384 mb, 100 vcores")
    app0 = h.submit_app(queue="b", user="user_0", requests=[
        {"resources": "1024 mb, 40 vcores", "count": 10, "priority": 1}])
    app2 = h.submit_app(queue="b", user="user_1", requests=[
        {"resources": "2048 mb, 10 vcores", "count": 10, "priority": 1}])
    assert fill(h, "n0000") == 2
    reserved = h.cluster.nodes["n0000"].reserved
    assert reserved is not None and reserved.job.id == app0.id  # 20 vcores free for a 40-vcore ask
    assert fill(h, "n0001") == 4
    h.update()
    assert h.job(app0).usage.memory > 0, "Verify user_0 got resources"
    assert h.job(app2).usage.memory > 0, "Verify user_1 got resources"
    assert (h.job(app0).usage.memory, h.job(app0).usage.vcores) == (2 * GB, 80)  # none on node 1
    assert (h.job(app2).usage.memory, h.job(app2).usage.vcores) == (8 * GB, 40)
    assert h.cluster.nodes["n0001"].reserved is None  # no minimum allocation free: not scheduled on
    b = h.shares()["queues"]["root.newroot.b"]
    assert (b["used"].memory, b["used"].vcores) == (11 * GB, 160)  # the reservation counted
    assert abs(b["absolute_used_capacity"] - 0.8) < 1e-9  # Hadoop's test, bypassing that check: 1.0


def test_drf_usage_ratio_rounding() -> None:
    """``TestLeafQueue.testDRFUsageRatioRounding``: a tiny queue (absolute capacity 0.00001,
    maximum 100 %, minimum-user-limit-percent 50, user-limit-factor 1000000) in a cluster of
    1000 nodes of 80 GB and 100 vcores.  A (20 GB, 29 vcores) container — vcores-dominant —,
    then a (10 GB, 29 vcores) one: "Still within limits, should assign" (the user limit is
    not rounded below what the user already uses)."""
    xml = with_values(FIXTURE, e__capacity="0.001", b__capacity="80.999", e__maximum_capacity="100",
                      e__minimum_user_limit_percent="50", e__user_limit_factor="1000000",
                      e__acl_submit_applications="*", e__maximum_applications="10")
    h = harness(xml, 1000, "81920 mb, 100 vcores", maximum="81920 mb, 100 vcores")
    assert abs(h.shares()["queues"]["root.newroot.e"]["absolute_capacity"] - 0.00001) < 1e-9
    app = h.submit_app(queue="e", user="user_0", requests=[
        {"resources": "20480 mb, 29 vcores", "count": 1, "priority": 1}])
    assert [a.resources.memory for a in h.heartbeat("n0000")] == [20 * GB]
    h.add_requests(app, [{"resources": "10240 mb, 29 vcores", "count": 2, "priority": 1}])
    got = h.heartbeat("n0000")
    assert got and got[0].resources.memory > 0, "Still within limits, should assign"
