"""The Capacity Scheduler's preemption policy against Hadoop's own cases.

Each ``test_*`` ported from ``TestProportionalCapacityPreemptionPolicy`` (Hadoop
3.3) names its method and keeps its matrix: rows are the absolute guarantee,
maximum capacity, used, pending, reserved, number of apps, container size
("granularity") and number of child queues, one column per queue in the
tree's pre-order (``mockNested``).  ``build`` reproduces the test's mock tree:
every amount is ``<v memory, v vcores>``, the cluster is the sum of the leaf
guarantees (``leafAbsCapacities``), each app of a leaf holds ``ceil(used /
apps)`` in containers of the granularity, numbered across the tree from
left to right (appA, appB, …), with the first container an AM when asked
(``setAMContainer``).  Hadoop counts ``MARK_CONTAINER_FOR_PREEMPTION`` events
per app; here that is the containers a round marks.

The cases with reservations, testContainerOrdering,
testPolicyInitializeAfterSchedulerInitialized and testRefreshPreemptionProperties are in
``test_yarn_capacity_preemption_hadoop_more.py``.  Not ported: testLeafQueueNameExtraction
(no dynamic, childless parent queues here); testHierarchicalLarge3Levels keeps its count,
not its assertions on internal fields.
"""

from __future__ import annotations

import math

import pytest
from corescheduler_plugins._yarn_capacity_preemption import (
    PREFIX,
    ContainerView,
    PreemptionConfigError,
    PreemptionSettings,
    ProportionalCapacityPreemption,
    QueueView,
    java_parse_double,
    queue_preemption_disabled,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from corescheduler.core.javamath import java_float, java_long
from corescheduler.errors import ConfigError
from corescheduler.resources import Resources

# TestProportionalCapacityPreemptionPolicy.setup: wait 10 s, interval 3 s, and "ideal"
# preemption (the whole excess in one round)
SETUP = {
    PREFIX + "max_wait_before_kill": "10000",
    PREFIX + "monitoring_interval": "3000",
    PREFIX + "total_preemption_per_round": "1.0f",
    PREFIX + "natural_termination_factor": "1.0f",
}
# appF shares appE's id in Hadoop's test (ApplicationId.newInstance(TS, 4) twice)
APP_INDEX = {"appA": 0, "appB": 1, "appC": 2, "appD": 3, "appE": 4, "appF": 4}


def _res(v: int | tuple[int, int]) -> Resources:
    return Resources(*v) if isinstance(v, tuple) else Resources(v, v)


def _ceil_div(r: Resources, n: int, dominant: bool) -> Resources:
    """``Resources.divideAndCeil``: memory only under DefaultResourceCalculator."""
    if not dominant:
        m = -(-r.memory // n)
        return Resources(m, 1 if m > 0 else 0)
    return Resources(-(-r.memory // n), -(-r.vcores // n))


def build(abs_, max_cap, used, pending, apps, gran, subqueues, *, disabled=None, am=False, am_percent=0.0,
          dominant=False):
    """The tree of ``mockNested``/``mockLeafQueue``/``mockApp`` and the cluster."""
    disabled = disabled or {}
    cluster = Resources.total(_res(a) for a, s in zip(abs_, subqueues, strict=True) if s == 0)
    counter = [0]

    def fits_less(a: Resources, b: Resources) -> bool:  # Resources.lessThan(rc, cluster, a, b)
        if not dominant:
            return a.memory < b.memory
        sa = sorted((a.memory / cluster.memory, a.vcores / cluster.vcores), reverse=True)
        sb = sorted((b.memory / cluster.memory, b.vcores / cluster.vcores), reverse=True)
        return sa < sb

    def make(i: int, path: str, parent_disabled: bool, index: list[int]) -> QueueView:
        flag = disabled.get(path, parent_disabled)  # mockPreemptionStatus: inherited unless set
        view = QueueView(path=path, guaranteed=_res(abs_[i]), maximum=_res(max_cap[i]), used=_res(used[i]),
                         pending=_res(pending[i]), preemption_disabled=flag)
        for _ in range(subqueues[i]):
            j = index[0] = index[0] + 1
            view.children.append(make(j, f"{path}.queue{chr(ord('A') + j - 1)}", flag, index))
        if subqueues[i] == 0:
            view.pending = _res(pending[i])
            unit = _res(gran[i])
            # maxAMCapacityForThisQueue: the queue's effective capacity × AM percent (a float)
            pct = java_float(am_percent)
            view.max_am_capacity = Resources(java_long(view.guaranteed.memory * pct),
                                             java_long(view.guaranteed.vcores * pct))
            for _ in range(apps[i]):
                app = counter[0]
                counter[0] += 1
                per_app = _ceil_div(view.used, apps[i], dominant)
                got = Resources()
                k = 0
                while fits_less(got, per_app):
                    view.containers.append(ContainerView(id=f"app{app}_c{k}", app_id=f"app{app}", app_order=app,
                                                         resources=unit, is_am=am and k == 0))
                    got = got + unit
                    k += 1
        return view

    return make(0, "root", disabled.get("root", False), [0]), cluster


def policy(**extra: str) -> ProportionalCapacityPreemption:
    props = dict(SETUP)
    props.update({PREFIX + k: v for k, v in extra.items()})
    return ProportionalCapacityPreemption(PreemptionSettings.from_properties(props))


def per_app(ids: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for cid in ids:
        app = cid.split("_")[0]
        out[app] = out.get(app, 0) + 1
    return out


def marked(qdata, *, disabled=None, am=False, am_percent=0.0, dominant=False, **extra) -> dict[str, int]:
    """Containers marked per Hadoop app name (appA…) in one round at time 0."""
    root, cluster = build(*qdata, disabled=disabled, am=am, am_percent=am_percent, dominant=dominant)
    props = dict(SETUP)
    props.update({PREFIX + k: v for k, v in extra.items()})
    p = ProportionalCapacityPreemption(PreemptionSettings.from_properties(props), dominant=dominant)
    rnd = p.select(root, cluster, 0.0)
    assert rnd.kill == []
    counts = per_app(rnd.marked)
    return {name: counts.get(f"app{i}", 0) for name, i in APP_INDEX.items()}


def matrix(rows):
    """Hadoop's rows (abs, maxCap, used, pending, reserved, apps, gran, subqueues) without
    ``reserved``, which the snapshot does not carry (every ported case has none)."""
    abs_, max_cap, used, pending, reserved, apps, gran, subqueues = rows
    assert not any(reserved)
    return abs_, max_cap, used, pending, apps, gran, subqueues


Q_DATA_FOR_IGNORE = matrix([
    [100, 40, 40, 20], [100, 100, 100, 100], [100, 0, 60, 40], [0, 0, 0, 0],
    [0, 0, 0, 0], [3, 1, 1, 1], [-1, 1, 1, 1], [3, 0, 0, 0],
])
CYCLE = matrix([
    [100, 40, 40, 20], [100, 100, 100, 100], [100, 0, 60, 40], [10, 10, 0, 0],
    [0, 0, 0, 0], [3, 1, 1, 1], [-1, 1, 1, 1], [3, 0, 0, 0],
])
IMBALANCE = matrix([
    [100, 40, 40, 20], [100, 100, 100, 100], [100, 55, 45, 0], [20, 10, 10, 0],
    [0, 0, 0, 0], [2, 1, 1, 0], [-1, 1, 1, 0], [3, 0, 0, 0],
])
HIERARCHICAL = matrix([
    [200, 100, 50, 50, 100, 10, 90], [200] * 7, [200, 110, 60, 50, 90, 90, 0], [10, 0, 0, 0, 10, 0, 10],
    [0] * 7, [4, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1], [2, 2, 0, 0, 2, 0, 0],
])
BROAD = matrix([
    [1000, 350, 150, 200, 400, 200, 200, 250, 100, 150], [1000] * 10,
    [1000, 400, 200, 200, 400, 250, 150, 200, 150, 50], [50, 0, 0, 0, 50, 0, 50, 0, 0, 0], [0] * 10,
    [6, 2, 1, 1, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1, -1, 1, 1], [3, 2, 0, 0, 2, 0, 0, 2, 0, 0],
])
INHERIT = matrix([
    [1000, 500, 200, 200, 100, 500, 200, 200, 100], [1000] * 9, [1000, 700, 0, 350, 350, 300, 0, 200, 100],
    [200, 0, 0, 0, 0, 200, 200, 0, 0], [0] * 9, [5, 2, 0, 1, 1, 3, 1, 1, 1],
    [-1, -1, 1, 1, 1, -1, 1, 1, 1], [2, 3, 0, 0, 0, 3, 0, 0, 0],
])
AM_CASE = matrix([
    [100, 10, 90], [100, 100, 100], [100, 100, 0], [70, 20, 90], [0, 0, 0], [5, 4, 1], [-1, 5, 5], [2, 0, 0],
])


def test_ignore():
    """testIgnore: don't correct imbalances without demand."""
    assert sum(marked(Q_DATA_FOR_IGNORE).values()) == 0


def test_proportional_preemption():
    """testProportionalPreemption: A will preempt guaranteed-allocated (10 from appA)."""
    q = matrix([
        [100, 10, 40, 20, 30], [100] * 5, [100, 30, 60, 10, 0], [45, 20, 5, 20, 0],
        [0] * 5, [3, 1, 1, 1, 0], [-1, 1, 1, 1, 1], [4, 0, 0, 0, 0],
    ])
    assert marked(q)["appA"] == 10


def test_max_cap():
    """testMaxCap: despite the imbalance, since B is at maxCap, do not correct."""
    q = matrix([
        [100, 40, 40, 20], [100, 100, 45, 100], [100, 55, 45, 0], [20, 10, 10, 0],
        [0, 0, 0, 0], [2, 1, 1, 0], [-1, 1, 1, 0], [3, 0, 0, 0],
    ])
    assert marked(q)["appA"] == 0


def test_preempt_cycle():
    """testPreemptCycle: all of A's pending is preempted from the other queues (10 from appC)."""
    assert marked(CYCLE)["appC"] == 10


def test_expire_kill():
    """testExpireKill: marked at 0, re-asked at 5 s without new marks, killed after 10 s."""
    root, cluster = build(*CYCLE)
    p = policy()
    first = p.select(root, cluster, 0.0)
    assert per_app(first.marked) == {"app2": 10} and first.kill == []
    again = p.select(root, cluster, 5.0)
    assert sorted(again.marked) == sorted(first.marked) and again.kill == []
    assert set(p.marked_since().values()) == {0.0}  # no new marks: the timers are the first round's
    late = p.select(root, cluster, 10.001)
    assert sorted(late.kill) == sorted(first.marked) and late.marked == []
    assert p.marked_since() == {}


def test_kill_exactly_at_the_wait():
    """``preemptionCandidates.get(c) + maxWaitTime <= currentTime``: the boundary kills."""
    root, cluster = build(*CYCLE)
    p = policy()
    p.select(root, cluster, 0.0)
    assert len(p.select(root, cluster, 10.0).kill) == 10


def test_dead_zone():
    """testDeadzone: ignore 10% overcapacity to avoid jitter."""
    q = matrix([
        [100, 40, 40, 20], [100, 100, 100, 100], [100, 39, 43, 21], [10, 10, 0, 0],
        [0, 0, 0, 0], [3, 1, 1, 1], [-1, 1, 1, 1], [3, 0, 0, 0],
    ])
    assert sum(marked(q, max_ignored_over_capacity="0.1f").values()) == 0


def test_per_queue_disable_preemption():
    """testPerQueueDisablePreemption: B not preemptable → all from C; preemptable → 4 and 6."""
    q = matrix([
        [100, 55, 25, 20], [100, 100, 100, 100], [100, 0, 54, 46], [10, 10, 0, 0],
        [0, 0, 0, 0], [3, 1, 1, 1], [-1, 1, 1, 1], [3, 0, 0, 0],
    ])
    off = marked(q, disabled={"root.queueB": True})
    assert off["appC"] == 10 and off["appB"] == 0
    on = marked(q, disabled={"root.queueB": False})
    assert on["appB"] == 4 and on["appC"] == 6


def test_per_queue_disable_preemption_hierarchical():
    """testPerQueueDisablePreemptionHierarchical: from queueB (its parent A is over
    capacity) not queueE; with queueB disabled, from queueE."""
    assert marked(HIERARCHICAL)["appA"] == 10
    off = marked(HIERARCHICAL, disabled={"root.queueA.queueB": True})
    assert off["appA"] == 0 and off["appC"] == 10


def test_per_queue_disable_preemption_broad_hierarchical():
    """testPerQueueDisablePreemptionBroadHierarchical: 27 from appA and 23 from appC; with
    queueB disabled 50 from appC; with queueB and queueE disabled the request starves."""
    both = marked(BROAD)
    assert both["appA"] == 27 and both["appC"] == 23
    one = marked(BROAD, disabled={"root.queueA.queueB": True})
    assert one["appC"] == 50 and one["appA"] == 0
    two = marked(BROAD, disabled={"root.queueA.queueB": True, "root.queueD.queueE": True})
    assert all(two[a] == 0 for a in ("appA", "appB", "appC", "appE", "appF"))


def test_per_queue_disable_preemption_inherit_parent():
    """testPerQueueDisablePreemptionInheritParent: 17 from appA, 183 from appB; with
    queueA disabled (and so its children) queueF's request starves."""
    both = marked(INHERIT)
    assert both["appA"] == 17 and both["appB"] == 183
    off = marked(INHERIT, disabled={"root.queueA": True})
    assert all(off[a] == 0 for a in ("appA", "appB", "appD", "appE"))


def test_per_queue_preemption_not_all_untouchable():
    """testPerQueuePreemptionNotAllUntouchable: queueC untouchable, queueD gives 100."""
    q = matrix([
        [2000, 1000, 800, 100, 100, 1000, 500, 300, 200], [2000] * 9,
        [2000, 1300, 300, 800, 200, 700, 500, 0, 200], [300, 0, 0, 0, 0, 300, 0, 300, 0], [0] * 9,
        [6, 3, 1, 1, 1, 3, 1, 1, 1], [-1, -1, 1, 1, 1, -1, 1, 1, 1], [2, 3, 0, 0, 0, 3, 0, 0, 0],
    ])
    assert marked(q, disabled={"root.queueA.queueC": True})["appC"] == 100


def test_per_queue_disable_preemption_root_disables_all():
    """testPerQueueDisablePreemptionRootDisablesAll: all non-preemptable, the request starves."""
    q = matrix([
        [1000, 500, 250, 250, 250, 100, 150, 250, 100, 150], [1000] * 10,
        [1000, 20, 0, 20, 490, 240, 250, 490, 240, 250], [200, 200, 200, 0, 0, 0, 0, 0, 0, 0], [0] * 10,
        [6, 2, 1, 1, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1, -1, 1, 1], [3, 2, 0, 0, 2, 0, 0, 2, 0, 0],
    ])
    assert sum(marked(q, disabled={"root": True}).values()) == 0
    assert sum(marked(q).values()) > 0  # the same tree preempts when allowed


def test_per_queue_disable_preemption_over_abs_max_capacity():
    """testPerQueueDisablePreemptionOverAbsMaxCapacity: queueE over its maximum but not
    preemptable (inherited from queueD): appC keeps everything."""
    q = matrix([
        [1000, 725, 360, 365, 275, 17, 258], [1000, 1000, 1000, 1000, 550, 109, 1000],
        [1000, 741, 396, 345, 259, 110, 149], [40, 20, 0, 20, 20, 20, 0], [0] * 7,
        [4, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1], [2, 2, 0, 0, 2, 0, 0],
    ])
    assert marked(q, disabled={"root.queueD": True})["appC"] == 0


def test_over_capacity_imbalance():
    """testOverCapacityImbalance: will not preempt for over-capacity queues."""
    assert marked(IMBALANCE)["appA"] == 0


def test_natural_termination():
    """testNaturalTermination: ignore 10% imbalance between over-capacity queues."""
    assert sum(marked(IMBALANCE, natural_termination_factor="0.1").values()) == 0


def test_observe_only():
    """testObserveOnly: even a severe imbalance marks and kills nothing, but is computed."""
    q = matrix([
        [100, 40, 40, 20], [100, 100, 100, 100], [100, 90, 10, 0], [80, 10, 20, 50],
        [0, 0, 0, 0], [2, 1, 1, 0], [-1, 1, 1, 0], [3, 0, 0, 0],
    ])
    assert sum(marked(q, observe_only="true").values()) == 0
    root, cluster = build(*q)
    p = ProportionalCapacityPreemption(PreemptionSettings.from_properties({**SETUP, PREFIX + "observe_only": "true"}))
    rnd = p.select(root, cluster, 0.0)
    assert rnd.to_preempt["root.queueA"].memory > 0 and p.marked_since() == {}
    assert sum(marked(q).values()) > 0  # and the same tree preempts when not observing


def test_hierarchical():
    """testHierarchical: from queueB (appA), not queueE despite E being far over its guarantee."""
    assert marked(HIERARCHICAL)["appA"] == 10


def test_zero_guar():
    """testZeroGuar: nothing from appA."""
    q = matrix([
        [200, 100, 0, 99, 100, 10, 90], [200] * 7, [170, 80, 60, 20, 90, 90, 0], [10, 0, 0, 0, 10, 0, 10],
        [0] * 7, [4, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1], [2, 2, 0, 0, 2, 0, 0],
    ])
    assert marked(q)["appA"] == 0


def test_zero_guar_over_cap():
    """testZeroGuarOverCap: zero-guarantee queues are always satisfied; no preemption."""
    q = matrix([
        [200, 100, 0, 100, 0, 100, 100], [200] * 7, [170, 170, 60, 20, 90, 0, 0],
        [85, 50, 30, 10, 10, 20, 20], [0] * 7, [4, 3, 1, 1, 1, 1, 1], [-1, -1, 1, 1, 1, -1, 1],
        [2, 3, 0, 0, 0, 1, 0],
    ])
    counts = marked(q)
    assert all(counts[a] == 0 for a in ("appA", "appB", "appC", "appD"))


def test_hierarchical_large():
    """testHierarchicalLarge: 9 from appA and 6 from appE (Hadoop's rounding)."""
    q = matrix([
        [400, 200, 60, 140, 100, 70, 30, 100, 10, 90], [400] * 10,
        [400, 210, 70, 140, 100, 50, 50, 90, 90, 0], [15, 0, 0, 0, 0, 0, 0, 0, 0, 15], [0] * 10,
        [6, 2, 1, 1, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1, -1, 1, 1], [3, 2, 0, 0, 2, 0, 0, 2, 0, 0],
    ])
    counts = marked(q)
    assert counts["appA"] == 9 and counts["appE"] == 6


def test_hierarchical_large_3_levels():
    """testHierarchicalLarge3Levels: 9 from appC (queueE), limited by its parent A's extra."""
    q = matrix([
        [400, 200, 60, 140, 100, 40, 100, 70, 30, 100, 10, 90], [400] * 12,
        [400, 210, 60, 150, 100, 50, 100, 50, 50, 90, 10, 80], [10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10],
        [0] * 12, [7, 3, 1, 2, 1, 1, 2, 1, 1, 2, 1, 1], [-1, -1, 1, -1, 1, 1, -1, 1, 1, -1, 1, 1],
        [3, 2, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0],
    ])
    assert marked(q)["appC"] == 9


def test_skip_am_container():
    """testSkipAMContainer: AMs skipped: 24 each from appD and appC, then 2 from appB."""
    q = matrix([
        [100, 50, 50], [100, 100, 100], [100, 100, 0], [70, 20, 50], [0, 0, 0], [5, 4, 1], [-1, 1, 1], [2, 0, 0],
    ])
    root, cluster = build(*q, am=True)
    rnd = policy().select(root, cluster, 0.0)
    counts = per_app(rnd.marked)
    assert counts == {"app3": 24, "app2": 24, "app1": 2}
    ams = {c.id for leaf in root.children for c in leaf.containers if c.is_am}
    assert not ams & set(rnd.marked)


def test_preempt_skipped_am_containers():
    """testPreemptSkippedAMContainers: all 5 of appD and appC including AMs, 4 of appB and appA."""
    counts = marked(AM_CASE, am=True)
    assert (counts["appD"], counts["appC"], counts["appB"], counts["appA"]) == (5, 5, 4, 4)


def test_am_resource_percent_for_skipped_am_containers():
    """testAMResourcePercentForSkippedAMContainers: AM allowance 5 of 20 AM resources:
    the AMs of appD and appC go, appB's and appA's stay."""
    root, cluster = build(*AM_CASE, am=True, am_percent=0.5)
    assert root.children[0].max_am_capacity.memory == 5
    counts = marked(AM_CASE, am=True, am_percent=0.5)
    assert (counts["appD"], counts["appC"], counts["appB"], counts["appA"]) == (5, 5, 4, 4)
    rnd = policy().select(root, cluster, 0.0)
    assert {"app3_c0", "app2_c0"} <= set(rnd.marked) and not {"app1_c0", "app0_c0"} & set(rnd.marked)


def test_am_allowance_keeps_ams():
    """With an allowance covering every AM (``maxAMCapacityForThisQueue`` ≥ skipped AMs),
    no AM is taken even though the queue still owes resources."""
    root, cluster = build(*AM_CASE, am=True)
    root.children[0].max_am_capacity = Resources(20, 20)  # the four AMs of 5
    rnd = policy().select(root, cluster, 0.0)
    assert not any(cid.endswith("_c0") for cid in rnd.marked)
    assert per_app(rnd.marked) == {"app3": 4, "app2": 4, "app1": 4, "app0": 4}


def test_preemption_with_vcore_resource():
    """testPreemptionWithVCoreResource: DominantResourceCalculator; 4 containers from appA."""
    qdata = (
        [(100, 100), (50, 50), (50, 50)], [100, 100, 100], [(10, 100), (10, 100), (0, 0)],
        [(70, 20), (70, 20), (10, 100)], [5, 1, 1], [(-1, -1), (1, 10), (1, 10)], [2, 0, 0],
    )
    assert marked(qdata, dominant=True)["appA"] == 4


# ---------------------------------------------------------------------------- the round's numbers
def test_ideal_and_to_preempt_of_preempt_cycle():
    """The ideal assignment of testPreemptCycle: A gets its 10 of pending, C gives back 10."""
    root, cluster = build(*CYCLE)
    rnd = policy().select(root, cluster, 0.0)
    assert rnd.ideal["root"] == Resources(100, 0)
    assert rnd.ideal["root.queueA"].memory == 10
    assert rnd.ideal["root.queueB"].memory == 60
    assert rnd.ideal["root.queueC"].memory == 30
    assert rnd.to_preempt["root.queueC"].memory == 10 and rnd.to_preempt["root"].memory == 10
    assert rnd.to_preempt["root.queueB"].memory == 0


def test_defaults_pace_preemption():
    """Hadoop's defaults: 20% of the excess per round (natural termination), and at most
    10% of the cluster per round."""
    root, cluster = build(*CYCLE)
    rnd = ProportionalCapacityPreemption(PreemptionSettings()).select(root, cluster, 0.0)
    assert len(rnd.marked) == 2  # 10 × 0.2
    big = matrix([
        [100, 50, 50], [100, 100, 100], [100, 100, 0], [100, 0, 100], [0, 0, 0], [1, 1, 0], [-1, 1, 1], [2, 0, 0],
    ])
    root, cluster = build(*big)
    rnd = ProportionalCapacityPreemption(PreemptionSettings(natural_termination_factor=1.0)).select(root, cluster, 0)
    assert len(rnd.marked) == 10  # 50 owed, 10% of 100 allowed


def test_unselected_mark_ages_out():
    """A mark not renewed is forgotten after twice the wait
    (``cleanupStaledPreemptionCandidates``); a container selected again within that keeps
    its first mark and is killed on time."""
    root, cluster = build(*CYCLE)
    quiet, _ = build(*Q_DATA_FOR_IGNORE)
    p = policy()
    p.select(root, cluster, 0.0)
    assert p.select(quiet, cluster, 3.0).marked == []
    assert len(p.marked_since()) == 10  # kept: 0 + 20 ≥ 3
    assert len(p.select(root, cluster, 12.0).kill) == 10
    p2 = policy()
    p2.select(root, cluster, 0.0)
    p2.select(quiet, cluster, 21.0)
    assert p2.marked_since() == {}
    assert p2.select(root, cluster, 22.0).kill == []


# ---------------------------------------------------------------------------- settings
def test_settings_from_properties():
    s = PreemptionSettings.from_properties({
        PREFIX + "total_preemption_per_round": "0.5f",
        PREFIX + "natural_termination_factor": "+1",
        PREFIX + "max_ignored_over_capacity": "1e-1",
        PREFIX + "max_wait_before_kill": " 20000 ",
        PREFIX + "monitoring_interval": "0x3e8",
        PREFIX + "observe_only": "TRUE",
        "yarn.scheduler.capacity.root.queues": "a,b",
    })
    assert s == PreemptionSettings(0.5, 1.0, 0.1, 20.0, 1.0, True)
    assert PreemptionSettings.from_properties({}) == PreemptionSettings()
    # Configuration.getFloat holds a float: 0.1f, not 0.1
    assert PreemptionSettings.from_properties({PREFIX + "total_preemption_per_round": "0.1"}) \
        .total_preemption_per_round == pytest.approx(0.10000000149011612, abs=0)


@pytest.mark.parametrize(("key", "value"), [
    ("total_preemption_per_round", "ten percent"),
    ("total_preemption_per_round", "inf"),
    ("natural_termination_factor", "1_0"),
    ("natural_termination_factor", "-0.1"),
    ("max_ignored_over_capacity", "NaN"),
    ("max_wait_before_kill", "1.5"),
    ("max_wait_before_kill", "-1"),
    ("monitoring_interval", "3s"),
    ("monitoring_interval", "0"),
    ("monitoring_interval", "\u0663000"),
    ("observe_only", "yes"),
])
def test_bad_setting_names_the_key(key, value):
    """One error naming the key and what was expected (a zero interval: Hadoop's monitor
    cannot run at a period of 0 either)."""
    with pytest.raises(PreemptionConfigError) as err:
        PreemptionSettings.from_properties({PREFIX + key: value})
    assert err.value.key == PREFIX + key and PREFIX + key in str(err.value)
    assert isinstance(err.value, ConfigError) and "\n" not in str(err.value)


@pytest.mark.parametrize(("text", "value"), [
    ("0.5f", 0.5), ("+1", 1.0), ("1e3", 1000.0), (".5", 0.5), ("5.", 5.0), ("2D", 2.0), ("0x1.8p1", 3.0),
    ("-Infinity", -math.inf), (" 7 ", 7.0),
])
def test_java_parse_double(text, value):
    assert java_parse_double(text) == value


@pytest.mark.parametrize("text", ["", "inf", "nan", "1_0", "1e", "0x1.8", "f", "1.0ff", "Infinityf", "\u0661"])
def test_java_parse_double_refuses(text):
    with pytest.raises(ValueError):
        java_parse_double(text)


def test_duplicate_container_refused():
    c = ContainerView("c1", "a1", 0, Resources(1, 1))
    leaf = QueueView("root.a", Resources(10, 10), Resources(10, 10), Resources(2, 2), containers=[c, c])
    root = QueueView("root", Resources(10, 10), Resources(10, 10), Resources(2, 2), children=[leaf])
    with pytest.raises(ValueError, match="c1"):
        policy().select(root, Resources(10, 10), 0.0)


# ---------------------------------------------------------------------------- properties
@st.composite
def trees(draw):
    """Two levels of queues with percent guarantees summing to the cluster, random use."""
    cluster_mem = draw(st.integers(10, 400))
    n_parents = draw(st.integers(1, 3))
    parents = []
    weights = [draw(st.integers(0, 5)) for _ in range(n_parents)]
    if not any(weights):
        weights[0] = 1
    total_w = sum(weights)
    app = 0
    free = cluster_mem
    for pi, w in enumerate(weights):
        pg = cluster_mem * w // total_w
        n_leaves = draw(st.integers(1, 3))
        lw = [draw(st.integers(0, 5)) for _ in range(n_leaves)]
        if not any(lw):
            lw[0] = 1
        leaves = []
        for li, x in enumerate(lw):
            g = pg * x // sum(lw)
            size = draw(st.integers(1, 8))
            k = draw(st.integers(0, max(0, free // size)))
            containers = []
            for j in range(k):
                a = app + (j % 2)
                containers.append(ContainerView(f"q{pi}{li}c{j}", f"a{a}", a, Resources(size, 1),
                                                is_am=j < 2 and draw(st.booleans())))
            app += 2
            used = Resources(size * k, k)
            free -= size * k
            maximum = Resources(draw(st.integers(g, cluster_mem)), cluster_mem)
            leaves.append(QueueView(f"root.p{pi}.l{li}", Resources(g, g), maximum, used,
                                    pending=Resources(draw(st.integers(0, cluster_mem)), 1),
                                    preemption_disabled=draw(st.booleans()), containers=containers))
        used = Resources.total(q.used for q in leaves)
        parents.append(QueueView(f"root.p{pi}", Resources(pg, pg), Resources(cluster_mem, cluster_mem), used,
                                 children=leaves))
    cluster = Resources(cluster_mem, cluster_mem)
    root = QueueView("root", cluster, cluster, Resources.total(p.used for p in parents), children=parents)
    return root, cluster


def _over(used: Resources, guaranteed: Resources, cluster: Resources, dominant: bool) -> bool:
    """``Resources.greaterThan(rc, cluster, used, guaranteed)`` of the calculator."""
    if not dominant:
        return used.memory > guaranteed.memory
    def shares(r):
        return sorted((r.memory / cluster.memory, r.vcores / cluster.vcores), reverse=True)
    return shares(used) > shares(guaranteed)


@settings(max_examples=150, deadline=None)
@given(trees(), st.floats(0.01, 1.0), st.floats(0.01, 1.0), st.sampled_from([0.0, 0.1, 0.5]), st.booleans())
def test_properties(tree, per_round, natural, ignored, dominant):
    """Never from a leaf at or below its guarantee or with preemption disabled; never more
    than total_preemption_per_round of the cluster in one round; never a container twice."""
    root, cluster = tree
    s = PreemptionSettings(total_preemption_per_round=per_round, natural_termination_factor=natural,
                           max_ignored_over_capacity=ignored)
    rnd = ProportionalCapacityPreemption(s, dominant=dominant).select(root, cluster, 0.0)
    chosen = set(rnd.marked)
    assert len(chosen) == len(rnd.marked)
    taken = taken_vcores = 0
    for parent in root.children:
        for leaf in parent.children:
            mine = [c for c in leaf.containers if c.id in chosen]
            if not _over(leaf.used, leaf.guaranteed, cluster, dominant) or leaf.preemption_disabled:
                assert not mine, leaf.path
            taken += sum(c.resources.memory for c in mine)
            taken_vcores += sum(c.resources.vcores for c in mine)
            # (under DRF a protected leaf's untouchable excess can be negative in one type, as in
            # Hadoop's updatePreemptableExtras, and its ideal with it)
            assert dominant or rnd.ideal[leaf.path].memory >= 0
    # initializeRootIdealWithGuarangeed
    assert rnd.ideal["root"] == (root.guaranteed if dominant else Resources(root.guaranteed.memory))
    assert taken <= int(cluster.memory * s.total_preemption_per_round)
    if dominant:  # fitsIn(container, totalPreemptionAllowed) checks every type under DRF
        assert taken_vcores <= int(cluster.vcores * s.total_preemption_per_round)


# ---------------------------------------------------------------------------- InterQueueWithDRF
# (TestProportionalCapacityPreemptionPolicyInterQueueWithDRF, the mock framework's string cases)
def _mock_leaf(path, guaranteed, maximum, used, pending, app=None, repeat=0, size=None, order=0):
    """A leaf as ``ProportionalCapacityPreemptionPolicyMockFramework`` builds it: ``repeat``
    containers of ``size`` for one app, the first its AM."""
    containers = [ContainerView(f"{app}_c{k}", app, order, size, is_am=k == 0) for k in range(repeat)]
    return QueueView(path, guaranteed, maximum, used, pending, containers=containers)


def _drf_round(children, cluster, used, natural="1.0", rounds=None):
    root = QueueView("root", cluster, cluster, used, children=children)
    props = {**SETUP, PREFIX + "natural_termination_factor": natural}
    rnd = ProportionalCapacityPreemption(PreemptionSettings.from_properties(props), dominant=True).select(
        root, cluster, 0.0)
    if rounds is not None:
        rounds.append(rnd)
    return per_app(rnd.marked)


def test_inter_queue_preemption_with_multiple_resource():
    """testInterQueuePreemptionWithMultipleResource: b gives <10,20> to a: 5 of app2's <2,4>."""
    R = Resources
    counts = _drf_round([
        _mock_leaf("root.a", R(50, 100), R(100, 200), R(40, 80), R(30, 70), "app1", 20, R(2, 4), 1),
        _mock_leaf("root.b", R(50, 100), R(100, 200), R(60, 120), R(40, 50), "app2", 30, R(2, 4), 2),
    ], R(100, 200), R(100, 200))
    assert counts == {"app2": 5}


def test_inter_queue_preemption_with_natural_termination_factor():
    """testInterQueuePreemptionWithNaturalTerminationFactor: b asks for <2,1> of a cluster
    a fills; with the factor 0.2 one container is still taken (rounded up)."""
    R = Resources
    counts = _drf_round([
        _mock_leaf("root.a", R(50, 25), R(100, 50), R(50, 50), R(0, 0), "app1", 50, R(2, 1), 1),
        _mock_leaf("root.b", R(50, 25), R(50, 25), R(0, 0), R(2, 1)),
    ], R(100, 50), R(50, 50), natural="0.2f")
    assert counts == {"app1": 1}


def test_3_resource_types_inter_queue_preemption():
    """test3ResourceTypesInterQueuePreemption: a third resource type (res1, like a GPU); c's
    ask is met from b (app2), not a."""
    def R(m, v, g):
        return Resources(m, v, {"res1": g})
    counts = _drf_round([
        _mock_leaf("root.a", R(10, 7, 2), R(10, 6, 3), R(6, 6, 3), R(0, 0, 0), "app1", 3, R(2, 2, 1), 1),
        _mock_leaf("root.b", R(10, 6, 2), R(10, 6, 3), R(6, 6, 3), R(0, 0, 0), "app2", 3, R(2, 2, 1), 2),
        _mock_leaf("root.c", R(10, 5, 2), R(10, 6, 2), R(0, 0, 0), R(1, 1, 1)),
    ], R(30, 18, 6), R(12, 12, 6), rounds=(rounds := []))
    assert counts == {"app2": 1}
    # b owes one res1 (Hadoop's <-4, 0, 1>: what it owes nothing of shows as 0)
    assert rounds[0].to_preempt["root.b"] == R(0, 0, 1) == rounds[0].to_preempt["root"]
    assert rounds[0].ideal["root.c"] == R(1, 1, 1)


def test_bad_time_refused_and_forget():
    root, cluster = build(*CYCLE)
    p = policy()
    with pytest.raises(ValueError, match="finite"):
        p.select(root, cluster, math.nan)
    assert p.marked_since() == {}  # nothing half-stored
    first = p.select(root, cluster, 0.0)
    p.forget(first.marked[:3])
    late = p.select(root, cluster, 10.0)
    assert sorted(late.kill) == sorted(first.marked[3:])
    assert sorted(late.marked) == sorted(first.marked[:3])  # marked afresh


def test_queue_preemption_disabled_inherits():
    """``isQueueHierarchyPreemptionDisabled``: set on the queue, else the parent's (root: false),
    as ``mockPreemptionStatus`` resolves the flags of the ported cases."""
    props = {"yarn.scheduler.capacity.root.a.disable_preemption": "true",
             "yarn.scheduler.capacity.root.a.b.disable_preemption": " FALSE "}
    assert queue_preemption_disabled(props, "root", None) is False
    a = queue_preemption_disabled(props, "root.a", False)
    assert a is True
    assert queue_preemption_disabled(props, "root.a.c", a) is True
    assert queue_preemption_disabled(props, "root.a.b", a) is False
    with pytest.raises(PreemptionConfigError, match=r"root\.x\.disable_preemption"):
        queue_preemption_disabled({"yarn.scheduler.capacity.root.x.disable_preemption": "ja"}, "root.x", False)
