"""YARN Capacity Scheduler worked cases of Hadoop's ``TestLeafQueue`` under the
``DominantResourceCalculator`` (Hadoop 3.3, ``TestLeafQueue.setUpWithDominantResourceCalculator``)
through the public harness, with its ``setupQueueConfiguration`` as a capacity-scheduler.xml
(tests/data/yarn_capacity/test-leaf-queue.xml) and the calculator key set.

Hadoop's tests call ``LeafQueue.assignContainers`` once per step; here a step is one heartbeat
of the node (one container a heartbeat off-switch, as ``assignContainers`` gives).  A setter
(``setUserLimitFactor``, ``setMaxCapacity``) is the file with that value.
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
                          allocations=with_globals(xml, resource_calculator=DRF))


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
    containers and b's absolute used capacity (the dominant share) is above 0.95."""
    h = harness(with_values(FIXTURE, b__maximum_capacity="100", b__minimum_user_limit_percent="50",
                            b__user_limit_factor="2"), 2, "8192 mb, 100 vcores",
                maximum="16384 mb, 100 vcores")
    app0 = h.submit_app(queue="b", user="user_0", requests=[
        {"resources": "1024 mb, 40 vcores", "count": 10, "priority": 1}])
    app2 = h.submit_app(queue="b", user="user_1", requests=[
        {"resources": "2048 mb, 10 vcores", "count": 10, "priority": 1}])
    fill(h, "n0000")
    fill(h, "n0001")
    h.update()
    assert h.job(app0).usage.memory > 0, "Verify user_0 got resources"
    assert h.job(app2).usage.memory > 0, "Verify user_1 got resources"
    assert h.shares()["queues"]["root.newroot.b"]["absolute_used_capacity"] > 0.95


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
