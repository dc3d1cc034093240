"""More of Hadoop 3.3's preemption tests, ported to the policy's public API.

The same way as ``test_yarn_capacity_preemption.py``: a Hadoop case's queue tree becomes
a :class:`QueueView` tree, its apps :class:`ContainerView` lists, and Hadoop's count of
``MARK_CONTAINER_FOR_PREEMPTION`` events per app is the containers one round marks.

* ``TestProportionalCapacityPreemptionPolicy``: the cases with reservations
  (``testHierarchicalWithReserved``, ``testHierarchicalLarge3LevelsWithReserved``,
  ``testPreemptionNotHappenForSingleReservedQueue``), ``testContainerOrdering`` and
  ``testRefreshPreemptionProperties``.
* ``TestPreemptionForQueueWithPriorities`` (``ProportionalCapacityPreemptionPolicyMockFramework``
  cases: ``root(=[guaranteed max used pending]){priority=…}``, apps
  ``(priority,resource,host,expression,#repeat,reserved)`` with the first container the
  AM): every case but ``testPriorityPreemptionForBalanceBetweenSatisfiedQueues``
  (``preemption-to-balance-queue-after-satisfied``), which is in
  ``test_yarn_capacity_preemption_mockframework.py``.  The mock
  framework's parents order by ``priority-utilization``, so a queue's ``priority`` is its
  relative priority.
"""

from __future__ import annotations

import math

import pytest
from corescheduler_plugins._yarn_capacity_preemption import (
    PREFIX,
    ContainerView,
    PreemptionSettings,
    ProportionalCapacityPreemption,
    QueueView,
)

from corescheduler.resources import Resources

# TestProportionalCapacityPreemptionPolicy.setup / ProportionalCapacityPreemptionPolicyMockFramework.setup:
# wait 10 s, interval 3 s, the whole excess in one round
SETUP = {
    PREFIX + "max_wait_before_kill": "10000",
    PREFIX + "monitoring_interval": "3000",
    PREFIX + "total_preemption_per_round": "1.0f",
    PREFIX + "natural_termination_factor": "1.0f",
}


def _round(root: QueueView, cluster: Resources, dominant: bool = False):
    p = ProportionalCapacityPreemption(PreemptionSettings.from_properties(SETUP), dominant=dominant)
    return p.select(root, cluster, 0.0)


def _per_app(ids: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for cid in ids:
        app = cid.split("_")[0]
        out[app] = out.get(app, 0) + 1
    return out


# ---------------------------------------------------------------------------- mockNested with reserved
def nested(abs_, max_cap, used, pending, reserved, apps, gran, subqueues) -> tuple[QueueView, Resources]:
    """``TestProportionalCapacityPreemptionPolicy.mockNested`` (DefaultResourceCalculator): every
    amount ``<v, v>``; the cluster is the sum of the leaf guarantees; each app of a leaf holds
    ceil(used / apps) in containers of the granularity, apps numbered across the tree; a leaf's
    ``reserved`` is its ``ResourceUsage`` reserved."""
    cluster_mem = sum(a for a, s in zip(abs_, subqueues, strict=True) if s == 0)
    counter = [0]

    def make(i: int, path: str, index: list[int]) -> QueueView:
        view = QueueView(path=path, guaranteed=Resources(abs_[i], abs_[i]), maximum=Resources(max_cap[i], max_cap[i]),
                         used=Resources(used[i], used[i]), pending=Resources(pending[i], pending[i]),
                         reserved=Resources(reserved[i], reserved[i]))
        for _ in range(subqueues[i]):
            j = index[0] = index[0] + 1
            view.children.append(make(j, f"{path}.queue{chr(ord('A') + j - 1)}", index))
        if subqueues[i] == 0:
            for _ in range(apps[i]):
                app = counter[0]
                counter[0] += 1
                share = -(-used[i] // apps[i])  # Resources.divideAndCeil
                for k in range(-(-share // gran[i]) if share > 0 else 0):
                    view.containers.append(ContainerView(f"app{app}_c{k}", f"app{app}", app,
                                                         Resources(gran[i], gran[i])))
        return view

    return make(0, "root", [0]), Resources(cluster_mem, cluster_mem)


HIERARCHICAL_WITH_RESERVED = (
    [200, 100, 50, 50, 100, 10, 90], [200] * 7, [200, 110, 60, 50, 90, 90, 0], [10, 0, 0, 0, 10, 0, 10],
    [40, 25, 15, 10, 15, 15, 0], [4, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1], [2, 2, 0, 0, 2, 0, 0],
)


def test_hierarchical_with_reserved():
    """testHierarchicalWithReserved: capacity taken from queueB (appA), not queueE, with
    reservations everywhere."""
    root, cluster = nested(*HIERARCHICAL_WITH_RESERVED)
    assert _per_app(_round(root, cluster).marked) == {"app0": 10}


def test_hierarchical_large_3_levels_with_reserved():
    """testHierarchicalLarge3LevelsWithReserved: 9 from appC (queueE), limited by its
    parent A's extra."""
    q = (
        [400, 200, 60, 140, 100, 40, 100, 70, 30, 100, 10, 90], [400] * 12,
        [400, 210, 60, 150, 100, 50, 100, 50, 50, 90, 10, 80], [10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10],
        [50, 30, 20, 10, 5, 5, 0, 0, 0, 10, 10, 0], [7, 3, 1, 2, 1, 1, 2, 1, 1, 2, 1, 1],
        [-1, -1, 1, -1, 1, 1, -1, 1, 1, -1, 1, 1], [3, 2, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0],
    )
    root, cluster = nested(*q)
    assert _per_app(_round(root, cluster).marked) == {"app2": 9}


def test_preemption_not_happen_for_single_reserved_queue():
    """testPreemptionNotHappenForSingleReservedQueue: reserved > pending and one demanding
    queue: nothing is preempted, and queueA's ideal stays what it uses."""
    q = (
        [100, 40, 40, 20], [100, 100, 100, 100], [100, 70, 0, 0], [10, 30, 0, 0],
        [0, 50, 0, 0], [1, 1, 0, 0], [-1, 1, 1, 1], [3, 0, 0, 0],
    )
    root, cluster = nested(*q)
    rnd = _round(root, cluster)
    assert rnd.marked == [] and rnd.kill == []
    assert rnd.ideal["root.queueA"].memory == 70


def test_reserved_ask_does_not_preempt_for_itself():
    """``TempQueuePerPartition.offer`` under ``FifoCandidatesSelector``: "if an
    under-utilized queue has used = reserved = 20", the reserved ask is not offered again,
    so nothing is preempted for it; without the reservation the same pending is."""
    def tree(reserved: int) -> tuple[QueueView, Resources]:
        return nested([100, 50, 50], [100, 100, 100], [100, 20, 80], [20, 20, 0], [0, reserved, 0],
                      [2, 1, 1], [-1, 1, 1], [2, 0, 0])
    root, cluster = tree(20)
    rnd = _round(root, cluster)
    assert rnd.marked == [] and rnd.ideal["root.queueA"].memory == 20
    root, cluster = tree(0)
    assert _per_app(_round(root, cluster).marked) == {"app1": 20}
    # a reservation larger than the pending leaves nothing to offer, never less than 0
    root, cluster = tree(35)
    assert _round(root, cluster).ideal["root.queueA"].memory == 20


# ---------------------------------------------------------------------------- container order
def test_container_ordering():
    """testContainerOrdering (``FifoCandidatesSelector.sortContainers``): the lowest priority
    (largest number) first, then the latest allocated.  Hadoop's ids 1–5 with priorities
    2, 2, 3, 1, 3 sort 5, 3, 2, 1, 4; a queue owing 4 gives the first four, owing 2 the
    first two."""
    prio = {1: 2, 2: 2, 3: 3, 4: 1, 5: 3}

    def marked(a_guaranteed: int, b_pending: int) -> list[str]:
        mine = [ContainerView(f"app_c{i}", "app", 0, Resources(1, 1), priority=prio[i]) for i in range(1, 6)]
        theirs = [ContainerView(f"b_c{i}", "b", 1, Resources(1, 1)) for i in range(5)]
        a = QueueView("root.a", Resources(a_guaranteed, a_guaranteed), Resources(10, 10), Resources(5, 5),
                      containers=mine)
        b = QueueView("root.b", Resources(10 - a_guaranteed, 10 - a_guaranteed), Resources(10, 10),
                      Resources(5, 5), pending=Resources(b_pending, b_pending), containers=theirs)
        root = QueueView("root", Resources(10, 10), Resources(10, 10), Resources(10, 10), children=[a, b])
        return _round(root, Resources(10, 10)).marked

    assert marked(1, 4) == ["app_c5", "app_c3", "app_c2", "app_c1"]
    assert marked(3, 2) == ["app_c5", "app_c3"]


# ---------------------------------------------------------------------------- settings
def test_refresh_preemption_properties():
    """testRefreshPreemptionProperties: Hadoop's defaults (``DEFAULT_PREEMPTION_MONITORING_INTERVAL``
    3000 ms, ``DEFAULT_PREEMPTION_OBSERVE_ONLY`` false), and a changed configuration read
    anew (5000 ms, observe only)."""
    s = PreemptionSettings.from_properties({})
    assert s.monitoring_interval == 3.0 and s.observe_only is False
    new = PreemptionSettings.from_properties({PREFIX + "monitoring_interval": "5000", PREFIX + "observe_only": "true"})
    assert new.monitoring_interval == 5.0 and new.observe_only is True


# ---------------------------------------------------------------------------- queue priorities
def _leaf(path, g, mx, used, pend, prio, app=None, n=0, size=None, disabled=False):
    """``-a(=[g mx used pend]){priority=p}`` with ``a\\t(1,size,n1,,n,false)``: ``n``
    containers of ``size`` for app ``app``, the first its AM."""
    size = size if size is not None else Resources(1, 0)
    order = int(app[3:]) if app else 0
    containers = [ContainerView(f"{app}_c{k}", app, order, size, is_am=k == 0) for k in range(n)]
    return QueueView(path, g, mx, used, pend, preemption_disabled=disabled, containers=containers, priority=prio)


def _mem(v: int) -> Resources:
    return Resources(v, 0)


def _flat(rows, apps, disabled=()):
    """A root of 100 over leaves ``(name, guaranteed, max, used, pending, priority)``."""
    leaves = []
    for name, g, mx, used, pend, prio in rows:
        app, n = apps.get(name, (None, 0))
        leaves.append(_leaf(f"root.{name}", _mem(g), _mem(mx), _mem(used), _mem(pend), prio, app, n,
                            disabled=name in disabled))
    root = QueueView("root", _mem(100), _mem(100), _mem(100), children=leaves)
    return _per_app(_round(root, _mem(100)).marked)


def test_preemption_for_highest_priority_underutilized_queue():
    """testPreemptionForHighestPriorityUnderutilizedQueue: 10 from app1, 15 from app2."""
    counts = _flat([("a", 30, 100, 40, 50, 1), ("b", 30, 100, 59, 50, 2), ("c", 40, 100, 1, 25, 2)],
                   {"a": ("app1", 40), "b": ("app2", 59), "c": ("app3", 1)})
    assert counts == {"app1": 10, "app2": 15}


def test_preemption_for_lowest_priority_underutilized_queue():
    """testPreemptionForLowestPriorityUnderutilizedQueue: the less utilized queue first,
    whatever its priority: 10 from app1, 15 from app2."""
    counts = _flat([("a", 30, 100, 40, 50, 1), ("b", 30, 100, 59, 50, 2), ("c", 40, 100, 1, 25, 0)],
                   {"a": ("app1", 40), "b": ("app2", 59), "c": ("app3", 1)})
    assert counts == {"app1": 10, "app2": 15}


def test_preemption_wont_happen_between_satisfied_queues():
    """testPreemptionWontHappenBetweenSatisfiedQueues: nothing, whatever the priorities."""
    counts = _flat([("a", 30, 100, 0, 0, 1), ("b", 30, 100, 40, 50, 1), ("c", 40, 100, 60, 25, 2)],
                   {"b": ("app1", 40), "c": ("app2", 60)})
    assert counts == {}


BUCKETS = [("a", 10, 100, 35, 50, 1), ("b", 15, 100, 25, 50, 1), ("c", 20, 100, 39, 50, 2),
           ("d", 25, 100, 0, 0, 2), ("e", 30, 100, 1, 99, 2)]
BUCKET_APPS = {"a": ("app1", 35), "b": ("app2", 25), "c": ("app3", 39), "e": ("app4", 1)}


def test_preemption_for_multiple_queues_in_the_same_priority_buckets():
    """testPreemptionForMultipleQueuesInTheSamePriorityBuckets: 23 from app1, 6 from app2."""
    assert _flat(BUCKETS, BUCKET_APPS) == {"app1": 23, "app2": 6}


def test_preemption_for_priority_and_disable_preemption():
    """testPreemptionForPriorityAndDisablePreemption: a protected: 9 from app2 and 19 from
    app3 although c has the higher priority."""
    assert _flat(BUCKETS, BUCKET_APPS, disabled={"a"}) == {"app2": 9, "app3": 19}


def test_priorities_change_the_outcome():
    """The same trees with every priority 0 (a ``utilization`` parent) come out otherwise:
    the priorities are what the ported numbers rest on."""
    flat = [(n, g, mx, u, p, 0) for n, g, mx, u, p, _ in BUCKETS]
    assert _flat(flat, BUCKET_APPS) != {"app1": 23, "app2": 6}
    even = _flat([("a", 30, 100, 40, 50, 0), ("b", 30, 100, 59, 50, 0), ("c", 40, 100, 1, 25, 0)],
                 {"a": ("app1", 40), "b": ("app2", 59), "c": ("app3", 1)})
    assert even != {"app1": 10, "app2": 15} and sum(even.values()) == 25


def test_priority_preemption_for_hierarchical_of_queues():
    """testPriorityPreemptionForHierarchicalOfQueues: b2 (priority 2) gives less than b1:
    6 from app1, 1 from app2, 13 from app3, 10 from app4."""
    a = QueueView("root.a", _mem(29), _mem(100), _mem(40), _mem(50), priority=1, children=[
        _leaf("root.a.a1", _mem(12), _mem(100), _mem(20), _mem(50), 1, "app1", 20),
        _leaf("root.a.a2", _mem(17), _mem(100), _mem(20), _mem(50), 1, "app2", 20)])
    b = QueueView("root.b", _mem(31), _mem(100), _mem(59), _mem(50), priority=1, children=[
        _leaf("root.b.b1", _mem(16), _mem(100), _mem(30), _mem(50), 1, "app3", 30),
        _leaf("root.b.b2", _mem(15), _mem(100), _mem(29), _mem(50), 2, "app4", 29)])
    c = _leaf("root.c", _mem(40), _mem(100), _mem(1), _mem(30), 1, "app5", 1)
    root = QueueView("root", _mem(100), _mem(100), _mem(100), children=[a, b, c])
    assert _per_app(_round(root, _mem(100)).marked) == {"app1": 6, "app2": 1, "app3": 13, "app4": 10}


def test_priority_preemption_with_mandatory_resource_for_hierarchical_of_queues():
    """testPriorityPreemptionWithMandatoryResourceForHierarchicalOfQueues (DRF): 3 from app1,
    2 from app4, none from app2 or app3."""
    R = Resources
    a = QueueView("root.a", R(50, 100), R(100, 200), R(20, 40), R(60, 100), priority=1, children=[
        _leaf("root.a.a1", R(10, 20), R(100, 200), R(10, 30), R(30, 20), 1, "app1", 10, R(1, 4)),
        _leaf("root.a.a2", R(40, 80), R(100, 200), R(10, 10), R(30, 80), 1, "app2", 10, R(1, 1))])
    b = QueueView("root.b", R(50, 100), R(100, 200), R(80, 160), R(40, 100), priority=1, children=[
        _leaf("root.b.b1", R(20, 40), R(100, 200), R(20, 40), R(20, 70), 2, "app3", 10, R(3, 4)),
        _leaf("root.b.b2", R(30, 60), R(100, 200), R(60, 120), R(20, 30), 1, "app4", 3, R(20, 40))])
    root = QueueView("root", R(100, 200), R(100, 200), R(100, 200), children=[a, b])
    assert _per_app(_round(root, R(100, 200), dominant=True).marked) == {"app1": 3, "app4": 2}


def _r3(m: int, v: int, g: int = 0) -> Resources:
    return Resources(m, v, {"res1": g})


def test_priority_preemption_with_multiple_resource():
    """testPriorityPreemptionWithMultipleResource (DRF, a third type): a2 (priority 2) keeps
    everything, what a1 gives satisfies b: 7 from app1."""
    a = QueueView("root.a", _r3(50, 60, 3), _r3(100, 100, 10), _r3(80, 90, 10), _r3(30, 20, 4), priority=1,
                  children=[
                      _leaf("root.a.a1", _r3(20, 15, 3), _r3(100, 50, 10), _r3(60, 50, 10), _r3(0, 0), 1,
                            "app1", 10, _r3(6, 5, 1)),
                      _leaf("root.a.a2", _r3(30, 45), _r3(100, 50, 10), _r3(20, 40), _r3(30, 20, 4), 2,
                            "app2", 10, _r3(2, 4))])
    b = _leaf("root.b", _r3(50, 40, 7), _r3(100, 100, 10), _r3(20, 10), _r3(30, 10, 2), 1, "app3", 10, _r3(2, 1))
    root = QueueView("root", _r3(100, 100, 10), _r3(100, 100, 10), _r3(100, 100, 10), children=[a, b])
    assert _per_app(_round(root, _r3(100, 100, 10), dominant=True).marked) == {"app1": 7}


def test_3_resource_types_inter_queue_preemption_with_priorities():
    """TestPreemptionForQueueWithPriorities.test3ResourceTypesInterQueuePreemption: c
    (priority 2) asks <1,1,1> of a cluster whose res1 a and b hold: app1 gives one
    container (Hadoop asserts app1 only; b owes the same res1 and gives one too)."""
    root = QueueView("root", _r3(30, 18, 6), _r3(30, 18, 6), _r3(12, 12, 6), children=[
        _leaf("root.a", _r3(10, 6, 2), _r3(10, 6, 2), _r3(6, 6, 3), _r3(0, 0), 1, "app1", 3, _r3(2, 2, 1)),
        _leaf("root.b", _r3(10, 6, 2), _r3(10, 6, 2), _r3(6, 6, 3), _r3(0, 0), 1, "app2", 3, _r3(2, 2, 1)),
        _leaf("root.c", _r3(10, 6, 2), _r3(10, 6, 2), _r3(0, 0), _r3(1, 1, 1), 2)])
    rnd = _round(root, _r3(30, 18, 6), dominant=True)
    assert _per_app(rnd.marked)["app1"] == 1
    assert rnd.to_preempt["root.a"] == _r3(0, 0, 1) == rnd.to_preempt["root.b"]


def test_over_guarantee_queues_keep_by_priority():
    """``TQComparator`` when two queues are both at or over their guarantee: the higher
    priority is offered first and keeps what it uses; without priorities the two give back
    alike."""
    def counts(p1: int, p2: int) -> dict[str, int]:
        rows = [("a", 80, 100, 40, 10, 0), ("d1", 10, 100, 30, 0, p1), ("d2", 10, 100, 30, 0, p2)]
        return _flat(rows, {"a": ("app1", 40), "d1": ("app2", 30), "d2": ("app3", 30)})
    assert counts(0, 0) == {"app2": 5, "app3": 5}
    assert counts(1, 0) == {"app3": 10}
    assert counts(0, 1) == {"app2": 10}


@pytest.mark.parametrize("prio", [-3, 0, 7])
def test_same_priority_is_utilization(prio):
    """Equal priorities, whatever their value, order by utilization alone."""
    rows = [("a", 30, 100, 40, 50, prio), ("b", 30, 100, 59, 50, prio), ("c", 40, 100, 1, 25, prio)]
    base = [(n, g, mx, u, p, 0) for n, g, mx, u, p, _ in rows]
    apps = {"a": ("app1", 40), "b": ("app2", 59), "c": ("app3", 1)}
    assert _flat(rows, apps) == _flat(base, apps)
    assert math.isfinite(sum(_flat(rows, apps).values()))


# ---------------------------------------------------------------------------- the live tree
def _xml(p1: int, p2: int, policy: str = "priority-utilization") -> str:
    c, p = "yarn.scheduler.capacity.", PREFIX

    def prop(name: str, value: str) -> str:
        return f"<property><name>{name}</name><value>{value}</value></property>"
    per_queue = "".join(prop(f"{c}root.{q}.maximum-capacity", "100") + prop(f"{c}root.{q}.user-limit-factor", "100")
                        for q in ("a", "d1", "d2"))
    return ("<configuration>" + prop(c + "root.queues", "a,d1,d2") + prop(c + "root.ordering-policy", policy)
            + prop(c + "root.a.capacity", "80") + prop(c + "root.d1.capacity", "10")
            + prop(c + "root.d2.capacity", "10") + per_queue
            + prop(c + "root.d1.priority", str(p1)) + prop(c + "root.d2.priority", str(p2))
            + prop(p + "natural_termination_factor", "1") + prop(p + "total_preemption_per_round", "1")
            + prop(p + "max_ignored_over_capacity", "0") + "</configuration>")


@pytest.mark.parametrize(("p1", "p2", "policy", "expected"), [
    (0, 0, "priority-utilization", {"root.d1": 5, "root.d2": 5}),
    (1, 0, "priority-utilization", {"root.d2": 10}),
    (0, 1, "priority-utilization", {"root.d1": 10}),
    (1, 0, "utilization", {"root.d1": 5, "root.d2": 5}),  # priorities not respected
])
def test_live_tree_passes_relative_priorities(p1, p2, policy, expected):
    """The yarn_capacity policy hands the monitor each queue's priority when its parent's
    ordering policy is ``priority-utilization`` (``cloneQueues``' ``relativePriority``):
    of d1 and d2, both 3x over their 10 % guarantee, the higher priority keeps its
    containers when a (80 %) asks for 10 more."""
    from collections import Counter

    from corescheduler.testing import ClusterHarness

    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True}}
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="102400 mb, 100 vcores", config=config,
                       allocations=_xml(p1, p2, policy))
    d1 = h.submit(queue="d1", user="u", tasks=30, resources="1024 mb, 1 vcores")
    d2 = h.submit(queue="d2", user="v", tasks=30, resources="1024 mb, 1 vcores")
    for _ in range(60):
        h.heartbeat("n0000")
    a = h.submit(queue="a", user="w", tasks=50, resources="1024 mb, 1 vcores")
    for _ in range(60):
        h.heartbeat("n0000")
    assert (h.running(d1), h.running(d2), h.running(a)) == (30, 30, 40)
    h.update()
    assert h.preempt() == []
    marked = h.shares()["preemption"]["marked"]
    assert dict(Counter(h.task(t).job.queue for t in marked)) == expected


DEFAULT_RC = "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator"
DOMINANT_RC = "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"


def _vcore_xml(rc: str, observe_only: str | None = None) -> str:
    c, p = "yarn.scheduler.capacity.", PREFIX

    def prop(name: str, value: str) -> str:
        return f"<property><name>{name}</name><value>{value}</value></property>"
    per_queue = "".join(prop(f"{c}root.{q}.maximum-capacity", "100") + prop(f"{c}root.{q}.user-limit-factor", "100")
                        for q in ("a", "b"))
    observe = prop(p + "observe_only", observe_only) if observe_only is not None else ""
    return ("<configuration>" + prop(c + "root.queues", "a,b") + prop(c + "resource-calculator", rc)
            + prop(c + "root.a.capacity", "50") + prop(c + "root.b.capacity", "50") + per_queue
            + prop(p + "natural_termination_factor", "1") + prop(p + "total_preemption_per_round", "1")
            + observe + "</configuration>")


def _vcore_bound(rc: str):
    """a holds every vcore of the cluster but half its memory; b asks for 10 vcores.  Under
    ``DefaultResourceCalculator`` vcores do not bind the scheduler (``computeAvailableContainers``
    counts memory alone): b's 10 containers run, the node's vcores overcommitted."""
    from corescheduler.testing import ClusterHarness

    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True}}
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="102400 mb, 100 vcores", config=config,
                       allocations=_vcore_xml(rc))
    a = h.submit(queue="a", user="u", tasks=50, resources="1024 mb, 2 vcores")
    for _ in range(60):
        h.heartbeat("n0000")
    b = h.submit(queue="b", user="v", tasks=10, resources="1024 mb, 1 vcores")
    for _ in range(20):
        h.heartbeat("n0000")
    assert (h.running(a), h.running(b)) == ((50, 10) if rc == DEFAULT_RC else (50, 0))
    h.update()
    return h


@pytest.mark.parametrize(("rc", "count"), [(DEFAULT_RC, 0), (DOMINANT_RC, 5)])
def test_policy_uses_the_schedulers_resource_calculator(rc, count):
    """testPolicyInitializeAfterSchedulerInitialized: the monitor compares with the scheduler's
    resource calculator.  a is at its memory guarantee but holds every vcore: memory only
    (DefaultResourceCalculator) nothing is over (and b runs, vcores not binding); by dominant
    share a gives b 5 containers of 2 vcores (testPreemptionWithVCoreResource on the live tree)."""
    h = _vcore_bound(rc)
    h.preempt()
    assert len(h.shares()["preemption"]["marked"]) == count


def test_refresh_preemption_properties_on_reload():
    """testRefreshPreemptionProperties on the live tree: a reloaded file's observe_only applies
    from the next round.  The policy itself lives on (Hadoop's test refreshes the same
    policy object; ``SchedulingMonitorManager`` keeps a running policy through
    ``refreshQueues``), so its marks do too: observing only neither kills nor forgets them
    (``containerBasedPreemptOrKill`` returns first), and once it is off again the round kills
    the containers marked at t = 0, their wait long over."""
    h = _vcore_bound(DOMINANT_RC)
    h.preempt()
    marked = sorted(h.shares()["preemption"]["marked"])
    assert len(marked) == 5
    h.set_allocations(_vcore_xml(DOMINANT_RC, observe_only="true"))
    assert h.preempt() == [] and h.shares()["preemption"]["marked"] == []
    assert h.advance(20) == []  # observing only: nothing is ever killed
    h.set_allocations(_vcore_xml(DOMINANT_RC, observe_only="false"))
    assert sorted(t.id for t in h.preempt()) == marked


@pytest.mark.parametrize(("key", "value"), [
    ("natural_termination_factor", "lots"), ("monitoring_interval", "0"), ("observe_only", "yes"),
    ("total_preemption_per_round", "-0.5"), ("max_wait_before_kill", "15s"),
])
def test_bad_preemption_value_refuses_the_file_when_loaded(key, value):
    """A bad monitor value is refused as the file loads, naming the file and the key — not
    at the first preemption round; a reload with it keeps the last good file and its marks."""
    from corescheduler.errors import AllocationError
    from corescheduler.testing import ClusterHarness

    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True}}
    bad = _vcore_xml(DOMINANT_RC).replace(
        "</configuration>", f"<property><name>{PREFIX}{key}</name><value>{value}</value></property></configuration>")
    with pytest.raises(AllocationError) as err:
        ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=config,
                       allocations=bad)
    assert PREFIX + key in str(err.value) and "\n" not in str(err.value)
    h = _vcore_bound(DOMINANT_RC)
    h.preempt()
    before = h.shares()["preemption"]["marked"]
    assert len(before) == 5
    assert h.advance(10) == []
    with pytest.raises(AllocationError, match=PREFIX + key):
        h.set_allocations(bad)
    h.preempt()  # the last good file, its monitor and its marks (of t = 0) stay in force
    assert h.shares()["preemption"]["marked"] == before
    assert sorted(t.id for t in h.advance(6)) == sorted(before)  # 16 s after the first mark


# ---------------------------------------------------------------------------- the keys of the file
def test_preemption_keys_unread_here_are_warned():
    """``yarn.resourcemanager.monitor.capacity.preemption.*``: the keys the monitor reads
    pass silently (conservative DRF, balance after satisfied and intra-queue preemption among
    them since they are built); Hadoop's reserved-container selector is warned as not
    simulated unless switched off; a near miss names the key meant.  (They were all ignored
    without a word.)"""
    from corescheduler.formats.allocation_file import parse_allocations

    def prop(name: str, value: str) -> str:
        return f"<property><name>{name}</name><value>{value}</value></property>"
    text = ("<configuration>" + prop("yarn.scheduler.capacity.root.queues", "a")
            + prop("yarn.scheduler.capacity.root.a.capacity", "100")
            + prop(PREFIX + "observe_only", "false") + prop(PREFIX + "monitoring_interval", "3000")
            + prop(PREFIX + "max_wait_before_kill", "15000") + prop(PREFIX + "total_preemption_per_round", "0.1")
            + prop(PREFIX + "max_ignored_over_capacity", "0.1") + prop(PREFIX + "natural_termination_factor", "0.2")
            + prop(PREFIX + "intra-queue-preemption.enabled", "false")
            + prop(PREFIX + "select_based_on_reserved_containers", " FALSE ")
            + prop(PREFIX + "intra-queue-preemption.enabled", "true")
            + prop(PREFIX + "conservative-drf", "true")
            + prop(PREFIX + "preemption-to-balance-queue-after-satisfied.enabled", "true")
            + prop(PREFIX + "preemption-to-balance-queue-after-satisfied.max-wait-before-kill", "60000")
            + prop(PREFIX + "select_based_on_reserved_containers", "true")
            + prop(PREFIX + "natural_termination_facter", "0.5")
            + prop(PREFIX + "colour", "red") + "</configuration>")
    warnings = [w.split(": ", 1)[1] for w in parse_allocations(text, "p.xml").warnings]
    assert warnings == [
        # the two keys defined twice: the last definition wins, and says so (session 17)
        PREFIX + "intra-queue-preemption.enabled is defined again (line 1): this definition, 'true', replaces 'false'",
        PREFIX + "select_based_on_reserved_containers is defined again (line 1): this definition, 'true', "
        "replaces 'FALSE'",
        PREFIX + "select_based_on_reserved_containers: not simulated (the reserved-container selector does not "
        "run); ignored",
        PREFIX + f"natural_termination_facter: unknown preemption key (did you mean "
                 f"'{PREFIX}natural_termination_factor'?); ignored",
        PREFIX + "colour: unknown preemption key; ignored",
    ]


def test_am_allowance_is_truncated_not_rounded_up():
    """``FifoCandidatesSelector``: ``maxAMCapacityForThisQueue = Resources.multiply(effective
    capacity, maximum-am-resource-percent)``, truncated.  a (15 % of 10 GB: 1536 MB, AM
    percent 0.9: 1382 MB) owes 9 of its 10 containers, two of them AMs of 1024 MB: the 8
    others go, then the latest app's AM, as 2048 MB of AMs is over 1382 MB.  (Rounded up to
    the minimum allocation, 2048 MB, both AMs were kept.)"""
    from corescheduler.testing import ClusterHarness

    c = "yarn.scheduler.capacity."

    def prop(name: str, value: str) -> str:
        return f"<property><name>{name}</name><value>{value}</value></property>"
    xml = ("<configuration>" + prop(c + "root.queues", "a,b") + prop(c + "root.a.capacity", "15")
           + prop(c + "root.b.capacity", "85") + prop(c + "root.a.maximum-capacity", "100")
           + prop(c + "root.a.user-limit-factor", "100") + prop(c + "root.a.maximum-am-resource-percent", "0.9")
           + prop(PREFIX + "natural_termination_factor", "1") + prop(PREFIX + "total_preemption_per_round", "1")
           + "</configuration>")
    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True}}
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores", config=config,
                       allocations=xml)
    ams = []
    for _ in range(2):
        app = h.submit(queue="a", user="u", tasks=5, resources="1024 mb, 1 vcores")
        got = []
        for _ in range(6):
            got += h.heartbeat("n0000")
        assert h.running(app) == 5
        ams.append(h.mark_am(got[0]).id)
    h.submit(queue="b", user="v", tasks=10, resources="1024 mb, 1 vcores")
    h.update()
    h.preempt()
    marked = h.shares()["preemption"]["marked"]
    assert len(marked) == 9 and ams[1] in marked and ams[0] not in marked


@pytest.mark.parametrize(("ulf", "count"), [("0.5", 3), ("1", 5), ("2", 5)])
def test_pending_considering_user_limit(ulf, count):
    """``LeafQueue.getTotalPendingResourcesConsideringUserLimit``: what a leaf asks for counts
    only up to what its users may still get.  b (50 %) has one user with two apps asking for
    20 containers; with user-limit-factor 0.5 the user may have 2560 MB, so a gives back 3
    containers of 1024 MB (2560 to obtain), not 5; with 1 or 2, b's guarantee bounds it: 5."""
    from corescheduler.testing import ClusterHarness

    c = "yarn.scheduler.capacity."

    def prop(name: str, value: str) -> str:
        return f"<property><name>{name}</name><value>{value}</value></property>"
    xml = ("<configuration>" + prop(c + "root.queues", "a,b") + prop(c + "root.a.capacity", "50")
           + prop(c + "root.b.capacity", "50") + prop(c + "root.a.maximum-capacity", "100")
           + prop(c + "root.a.user-limit-factor", "100") + prop(c + "root.b.user-limit-factor", ulf)
           + prop(PREFIX + "natural_termination_factor", "1") + prop(PREFIX + "total_preemption_per_round", "1")
           + "</configuration>")
    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True}}
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores", config=config,
                       allocations=xml)
    a = h.submit(queue="a", user="u", tasks=10, resources="1024 mb, 1 vcores")
    for _ in range(12):
        h.heartbeat("n0000")
    assert h.running(a) == 10
    for _ in range(2):
        h.submit(queue="b", user="v", tasks=10, resources="1024 mb, 1 vcores")
    h.update()
    h.preempt()
    assert len(h.shares()["preemption"]["marked"]) == count
