"""More of Hadoop's YARN fair-scheduler unit tests, ported to the harness:
``TestFairSchedulerPreemption``, ``TestFairSchedulerFairShare`` and
``TestFSAppStarvation``
(moved from :mod:`test_yarn_fair_ported`, whose docstring has Hadoop's fixture).  Each test
names the Hadoop class and method it ports; the numbers are Hadoop's."""

from __future__ import annotations

import pytest
from test_yarn_fair_ported import GB, fair, harness, reservations, reserved
from test_yarn_fair_ported_scheduler import am_app, am_usage

from corescheduler.testing import ClusterHarness

# --------------------------------------------------------------------------- TestFairSchedulerPreemption
MODES = {"MinSharePreemption": (False, False), "MinSharePreemptionWithDRF": (False, True),
         "FairSharePreemption": (True, False), "FairSharePreemptionWithDRF": (True, True)}


def preemption_file(fairshare: bool, drf: bool) -> str:
    """``TestFairSchedulerPreemption.writeAllocFile``: preemptable (child-1, child-2),
    preemptable-sibling, nonpreemptable (allowPreemptionFrom false; child-1, child-2)."""
    params = ("<fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>"
              "<fairSharePreemptionTimeout>0</fairSharePreemptionTimeout>" if fairshare
              else "<minSharePreemptionTimeout>0</minSharePreemptionTimeout>")
    res = "" if fairshare else "<minResources>4096mb,4vcores</minResources>"
    children = f'<queue name="child-1">{res}</queue><queue name="child-2">{res}</queue>'
    return (f'<allocations><queue name="preemptable">{params}{children}</queue>'
            f'<queue name="preemptable-sibling">{params}</queue>'
            f'<queue name="nonpreemptable"><allowPreemptionFrom>false</allowPreemptionFrom>{params}{children}</queue>'
            + ("<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>" if drf else "")
            + "</allocations>")


class PreemptionCluster:
    """``TestFairSchedulerPreemption.setupCluster``: two nodes of 4 GB and 12 vcores,
    preemption on, utilization threshold 0, no wait before the kill."""

    def __init__(self, mode: str) -> None:
        fairshare, drf = MODES[mode]
        self.fairshare = fairshare
        self.h = harness("4096 mb, 12 vcores", preemption_file(fairshare, drf), nodes=2,
                         scheduler={"preemption": True, "preemption_utilization_threshold": 0.0})
        self.greedy = None
        self.starving = None

    def assign_fully(self) -> None:
        for node in ("n0000", "n0001"):
            for _ in range(4):
                self.h.heartbeat(node)

    def take_all(self, queue: str) -> None:
        self.greedy = self.h.submit(queue=queue, user="default", tasks=8, resources="1024 mb, 1 vcores")
        self.h.update()
        self.assign_fully()
        assert self.h.running(self.greedy) == 8

    def preempt_half(self, queue: str) -> None:
        self.starving = self.h.submit(queue=queue, user="default", tasks=4, resources="2048 mb, 2 vcores")
        self.h.advance(1)  # clock.tickSec(1); update; the preemption thread runs

    def verify_preemption(self, n: int) -> None:
        assert self.h.running(self.greedy) == 2 * n
        self.assign_fully()
        assert self.h.running(self.starving) == n

    def verify_no_preemption(self) -> None:
        assert self.h.running(self.greedy) == 8


@pytest.mark.parametrize("mode", list(MODES))
def test_preemption_within_same_leaf_queue(mode: str) -> None:
    """``TestFairSchedulerPreemption.testPreemptionWithinSameLeafQueue``: both apps in
    preemptable.child-1: fair-share preemption frees two 2 GB containers' worth (the greedy
    app keeps 4), min-share preemption none."""
    c = PreemptionCluster(mode)
    c.take_all("root.preemptable.child-1")
    c.preempt_half("root.preemptable.child-1")
    if c.fairshare:
        c.verify_preemption(2)
    else:
        c.verify_no_preemption()


@pytest.mark.parametrize("mode", list(MODES))
def test_preemption_between_two_sibling_leaf_queues(mode: str) -> None:
    """``TestFairSchedulerPreemption.testPreemptionBetweenTwoSiblingLeafQueues``."""
    c = PreemptionCluster(mode)
    c.take_all("root.preemptable.child-1")
    c.preempt_half("root.preemptable.child-2")
    c.verify_preemption(2)


@pytest.mark.parametrize("mode", list(MODES))
def test_preemption_between_non_sibling_queues(mode: str) -> None:
    """``TestFairSchedulerPreemption.testPreemptionBetweenNonSiblingQueues``."""
    c = PreemptionCluster(mode)
    c.take_all("root.preemptable.child-1")
    c.preempt_half("root.nonpreemptable.child-1")
    c.verify_preemption(2)


@pytest.mark.parametrize("mode", list(MODES))
def test_no_preemption_from_disallowed_queue(mode: str) -> None:
    """``TestFairSchedulerPreemption.testNoPreemptionFromDisallowedQueue``."""
    c = PreemptionCluster(mode)
    c.take_all("root.nonpreemptable.child-1")
    c.preempt_half("root.preemptable.child-1")
    c.verify_no_preemption()


@pytest.mark.parametrize("mode", ["FairSharePreemption", "FairSharePreemptionWithDRF"])
def test_preemption_between_sibling_queues_with_parent_at_fair_share(mode: str) -> None:
    """``TestFairSchedulerPreemption.testPreemptionBetweenSiblingQueuesWithParentAtFairShare``
    (fair-share modes only): child-1 takes the cluster; an app in preemptable-sibling gets
    half (greedy keeps 4); then one in preemptable.child-2 gets one container from child-1
    (greedy keeps 2)."""
    c = PreemptionCluster(mode)
    c.take_all("root.preemptable.child-1")
    c.preempt_half("root.preemptable-sibling")
    c.verify_preemption(2)
    c.preempt_half("root.preemptable.child-2")
    c.verify_preemption(1)


# --------------------------------------------------------------------------- TestFairSchedulerFairShare
FAIR_SHARE_TREE = """<allocations><queue name="root">
  <queue name="parentA"><weight>8</weight>
    <queue name="childA1"/><queue name="childA2"/><queue name="childA3"/><queue name="childA4"/></queue>
  <queue name="parentB"><weight>1</weight><queue name="childB1"/><queue name="childB2"/></queue>
</queue><defaultQueueSchedulingPolicy>{}</defaultQueueSchedulingPolicy></allocations>"""


def fair_share_cluster(mem: int, vcores: int, policy: str) -> ClusterHarness:
    """``TestFairSchedulerFairShare.createClusterWithQueuesAndOneNode``."""
    return harness(f"{mem} mb, {vcores} vcores", FAIR_SHARE_TREE.format(policy))


def verify_steady_fair_share_memory(h: ClusterHarness, capacity: int) -> None:
    """``verifySteadyFairShareMemory``: each childA 20 %, each childB 5 %, active or not."""
    for name, q in h.shares()["queues"].items():
        if name.startswith("root.parentA.") or name.startswith("root.parentB."):
            want = 0.2 if name.startswith("root.parentA.") else 0.05
            assert abs(q["steady"]["memory"] / capacity - want) < 0.001, name


def test_fair_share_no_apps_running() -> None:
    """``TestFairSchedulerFairShare.testFairShareNoAppsRunning``: every child's fair share is 0;
    the steady shares follow the weights."""
    h = fair_share_cluster(16 * GB, 0, "fair")
    h.update()
    for name, q in h.shares()["queues"].items():
        if name.startswith("root.parent") and q["leaf"]:
            assert q["fair"]["memory"] == 0
    verify_steady_fair_share_memory(h, 16 * GB)


def test_fair_share_one_app_running() -> None:
    """``TestFairSchedulerFairShare.testFairShareOneAppRunning``: childA1 alone is active: 100 %;
    childA2 0."""
    h = fair_share_cluster(16 * GB, 0, "fair")
    h.submit(queue="root.parentA.childA1", user="user1", resources="2048 mb, 1 vcores")
    h.update()
    assert abs(fair(h, "root.parentA.childA1") / (16 * GB) * 100 - 100) <= 0.1
    assert fair(h, "root.parentA.childA2") == 0
    verify_steady_fair_share_memory(h, 16 * GB)


def test_fair_share_multiple_active_queues_under_same_parent() -> None:
    """``TestFairSchedulerFairShare.testFairShareMultipleActiveQueuesUnderSameParent``: childA1-3
    active: 33 % each (± 0.9)."""
    h = fair_share_cluster(16 * GB, 0, "fair")
    for i in (1, 2, 3):
        h.submit(queue=f"root.parentA.childA{i}", user=f"user{i}", resources="2048 mb, 1 vcores")
    h.update()
    for i in (1, 2, 3):
        assert abs(fair(h, f"root.parentA.childA{i}") / (16 * GB) * 100 - 33) <= 0.9
    verify_steady_fair_share_memory(h, 16 * GB)


def test_fair_share_with_drf_multiple_active_queues_under_different_parent() -> None:
    """``TestFairSchedulerFairShare.testFairShareWithDRFMultipleActiveQueuesUnderDifferentParent``:
    drf everywhere, 16 GB and 10 vcores; apps in childA1, childA2, childB1 and root.default:
    childA1 and childA2 get 40 % of memory and of vcores, childB1 10 % of each; steady: each
    childA 20 % of both, each childB 5 % of memory and 10 % of vcores (parentB's one vcore:
    the upper bracket of ``ComputeFairShares`` gives each child 1)."""
    mem, cores = 16 * GB, 10
    h = fair_share_cluster(mem, cores, "drf")
    h.submit(queue="root.parentA.childA1", user="user1", resources="2048 mb, 1 vcores")
    h.submit(queue="root.parentA.childA2", user="user2", resources="3072 mb, 1 vcores")
    h.submit(queue="root.parentB.childB1", user="user3", resources="1024 mb, 1 vcores")
    h.submit(queue="root.default", user="user4", resources="1024 mb, 1 vcores")
    h.update()
    q = h.shares()["queues"]
    for i in (1, 2):
        share = q[f"root.parentA.childA{i}"]["fair"]
        assert abs(share["memory"] / mem * 100 - 40) <= 0.9 and abs(share["vcores"] / cores * 100 - 40) <= 0.9
    share = q["root.parentB.childB1"]["fair"]
    assert abs(share["memory"] / mem * 100 - 10) <= 0.9 and abs(share["vcores"] / cores * 100 - 10) <= 0.9
    for name, s in q.items():
        if name.startswith("root.parentA."):
            assert abs(s["steady"]["memory"] / mem - 0.2) <= 0.001 and abs(s["steady"]["vcores"] / cores - 0.2) <= 0.001
        elif name.startswith("root.parentB."):
            assert abs(s["steady"]["memory"] / mem - 0.05) <= 0.001
            assert abs(s["steady"]["vcores"] / cores - 0.1) <= 0.001, name


def test_queue_max_am_share_with_container_reservation() -> None:
    """``TestFairScheduler.testQueueMaxAMShareWithContainerReservation``: reservable-nodes 1,
    queue1 maxAMShare 0.5; nodes of 10 GB, 10 GB and 5 GB (AM limit 12800 MB).  App 3's 10 GB
    AM reserves nodes 1 and 2; app 4's 5 GB AM runs on node 3, putting app 3 over the limit:
    with app 1 gone, node 1 drops app 3's reservation and runs app 5's AM; app 6's 10 GB AM
    (over the limit) reserves nothing and app 7's runs; with apps 4 and 5 gone app 6 reserves
    nodes 1 and 2, app 8 waits behind them; app 2 gone, app 6 runs on node 2, and node 1
    drops its other reservation and runs app 8's AM."""
    xml = '<allocations><queue name="queue1"><maxAMShare>0.5</maxAMShare></queue></allocations>'
    h = harness("10240 mb, 10 vcores", xml, nodes=2, scheduler={"reservable_nodes": 1.0})
    h.add_node("n0002", resources="5120 mb, 5 vcores")
    h.update()
    n1, n2, n3 = "n0000", "n0001", "n0002"

    def submit(am: str):
        app = am_app(h, "queue1", am)
        h.update()
        return app

    app1 = submit("1024 mb, 1 vcores")
    h.heartbeat(n1)
    assert h.running(app1) == 1 and am_usage(h, "root.queue1") == 1024
    app2 = submit("1024 mb, 1 vcores")
    h.heartbeat(n2)
    assert h.running(app2) == 1 and am_usage(h, "root.queue1") == 2048
    app3 = submit("10240 mb, 1 vcores")
    h.heartbeat(n1)
    h.heartbeat(n2)
    assert h.running(app3) == 0 and reservations(h, app3) == 2 and am_usage(h, "root.queue1") == 2048
    app4 = submit("5120 mb, 1 vcores")
    h.heartbeat(n1)
    assert h.running(app4) == 0 and am_usage(h, "root.queue1") == 2048
    h.update()
    h.heartbeat(n3)
    assert h.running(app4) == 1 and am_usage(h, "root.queue1") == 7168
    h.kill_app(app1)
    assert am_usage(h, "root.queue1") == 6144
    app5 = submit("1024 mb, 1 vcores")
    h.heartbeat(n1)
    assert h.running(app5) == 1 and am_usage(h, "root.queue1") == 7168
    assert reserved(h, n1) is None or reserved(h, n1).job is not app3
    h.kill_app(app3)
    assert am_usage(h, "root.queue1") == 7168
    app6 = submit("10240 mb, 1 vcores")
    h.heartbeat(n1)
    assert h.running(app6) == 0 and reservations(h, app6) == 0 and am_usage(h, "root.queue1") == 7168
    app7 = submit("1024 mb, 1 vcores")
    h.heartbeat(n1)
    assert h.running(app7) == 1 and am_usage(h, "root.queue1") == 8192
    h.kill_app(app4)
    assert am_usage(h, "root.queue1") == 3072
    h.kill_app(app5)
    assert am_usage(h, "root.queue1") == 2048
    h.update()
    h.heartbeat(n1)
    h.heartbeat(n2)
    assert reservations(h, app6) == 2
    app8 = submit("1024 mb, 1 vcores")
    h.heartbeat(n1)
    assert h.running(app8) == 0 and am_usage(h, "root.queue1") == 2048
    h.update()
    h.heartbeat(n2)
    assert h.running(app8) == 0 and am_usage(h, "root.queue1") == 2048
    h.kill_app(app2)
    assert am_usage(h, "root.queue1") == 1024
    h.update()
    h.heartbeat(n2)
    assert h.running(app6) == 1 and am_usage(h, "root.queue1") == 11264
    h.update()
    h.heartbeat(n1)
    assert h.running(app8) == 1 and am_usage(h, "root.queue1") == 12288
    assert reservations(h, app6) == 0


# --------------------------------------------------------------------------- TestFSAppStarvation
STARVATION_QUEUES = ("no-preemption", "minshare", "fairshare.child", "drf.child")
STARVATION_FILE = """<allocations>
  <queue name="default"/>
  <queue name="no-preemption"><fairSharePreemptionThreshold>0</fairSharePreemptionThreshold></queue>
  <queue name="minshare"><fairSharePreemptionThreshold>0</fairSharePreemptionThreshold>
    <minSharePreemptionTimeout>0</minSharePreemptionTimeout><minResources>2048mb,2vcores</minResources></queue>
  <queue name="fairshare"><fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>
    <fairSharePreemptionTimeout>0</fairSharePreemptionTimeout><schedulingPolicy>fair</schedulingPolicy>
    <queue name="child"><fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>
      <fairSharePreemptionTimeout>0</fairSharePreemptionTimeout><schedulingPolicy>fair</schedulingPolicy></queue>
  </queue>
  <queue name="drf"><fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>
    <fairSharePreemptionTimeout>0</fairSharePreemptionTimeout><schedulingPolicy>drf</schedulingPolicy>
    <queue name="child"><fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>
      <fairSharePreemptionTimeout>0</fairSharePreemptionTimeout><schedulingPolicy>drf</schedulingPolicy></queue>
  </queue>
  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
</allocations>"""


def starved_cluster(preemption: bool = True, threshold: float = 0.0) -> tuple[ClusterHarness, dict[str, object]]:
    """``TestFSAppStarvation.setupClusterAndSubmitJobs``: two 4 GB/4 vc nodes filled by an app
    in root.default; an app of one 1 GB container in each of the four queues; 10 ms on,
    an update.  Returns the harness and the apps by queue."""
    h = harness("4096 mb, 4 vcores", STARVATION_FILE, nodes=2,
                scheduler={"preemption": preemption, "preemption_utilization_threshold": threshold})
    greedy = h.submit(queue="root.default", user="default", tasks=8, resources="1024 mb, 1 vcores")
    h.update()
    for node in ("n0000", "n0001"):
        for _ in range(4):
            h.heartbeat(node)
    assert h.running(greedy) == 8
    apps = {q: h.submit(queue=f"root.{q}", user="user", resources="1024 mb, 1 vcores") for q in STARVATION_QUEUES}
    h.update()
    for node in ("n0000", "n0001"):
        for _ in range(4):
            h.heartbeat(node)
    h.clock_only(0.01)
    h.update()
    return h, apps


def starved(h: ClusterHarness) -> set[str]:
    """The apps the update found starved (``FSContext.getStarvedApps``)."""
    return set(h.scheduler.resource_engine.starvation)


def test_starvation_with_preemption_enabled() -> None:
    """``TestFSAppStarvation.testPreemptionEnabled``: three starved apps, one each for the
    minshare, fairshare.child and drf.child queues; none for no-preemption."""
    h, apps = starved_cluster()
    assert starved(h) == {apps[q].id for q in ("minshare", "fairshare.child", "drf.child")}


def test_starvation_with_preemption_disabled() -> None:
    """``TestFSAppStarvation.testPreemptionDisabled``: no starved apps when preemption is off."""
    h, _ = starved_cluster(preemption=False)
    assert starved(h) == set()


def test_starvation_cluster_utilization_threshold() -> None:
    """``TestFSAppStarvation.testClusterUtilizationThreshold``: a preemption utilization
    threshold of 1.1 (``yarn.scheduler.fair.preemption.cluster-utilization-threshold``, read
    as any float): the cluster is never used above it, so no app is starved."""
    h, _ = starved_cluster(threshold=1.1)
    assert starved(h) == set()


def test_reservable_nodes_above_one_is_read_as_yarn_reads_it() -> None:
    """``FairSchedulerConfiguration.getReservableNodes`` is a plain ``getFloat``: 2.0 is taken
    (ceil(3 × 2) = 6 nodes: no cap), as the same test with 0.5 caps at 2 nodes
    (``testOffSwitchAppReservationThreshold``): here the new app reserves all three."""
    h = harness("3072 mb, 8 vcores", scheduler={"reservable_nodes": 2.0})
    h.add_node("n0001", resources="3072 mb, 8 vcores")
    h.add_node("n0002", resources="3072 mb, 8 vcores")
    for node in ("n0000", "n0001", "n0002"):
        h.submit(queue="queue1", user="user1", resources="2048 mb, 1 vcores")
        h.update()
        h.heartbeat(node)
    app = h.submit(queue="queue1", user="user1", resources="2048 mb, 1 vcores")
    for node in ("n0000", "n0001", "n0002"):
        h.update()
        h.heartbeat(node)
    assert reservations(h, app) == 3
