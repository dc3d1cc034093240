"""Still more of Hadoop 3.3's YARN fair-scheduler unit tests, ported to the harness:
``TestSchedulingPolicy``, ``TestQueuePlacementPolicy``, ``TestAllocationFileLoaderService``,
``TestQueueManager`` and ``TestFairScheduler``.  Each test names the Hadoop class and method it
ports; the numbers are Hadoop's.  The fixture is :func:`test_yarn_fair_ported.harness`
(``FairSchedulerTestBase.createConfiguration``)."""

from __future__ import annotations

import itertools

import pytest
from test_yarn_fair_ported import fair, harness, leaves, simple_groups, usage
from test_yarn_fair_ported_scheduler import am_app, am_usage

from corescheduler.core.calculator import yarn_fair_order_key
from corescheduler.core.model import RESOURCES
from corescheduler.core.schedulable import Schedulable
from corescheduler.errors import AllocationError, ConfigError, SchedulerStateError
from corescheduler.resources import Resources as R
from corescheduler.testing import ClusterHarness, SubmissionRejected


# --------------------------------------------------------------------------- TestSchedulingPolicy
def _signum(x: float) -> int:
    return (x > 0) - (x < 0)


def java_fair_share_compare(s1: Schedulable, s2: Schedulable) -> int:
    """Hadoop 3.3's ``FairSharePolicy.FairShareComparator.compare``, step by step:
    ``compareDemand`` (memory only), ``compareMinShareUsage``, ``compareFairShareUsage``, start
    time, name."""
    d1, d2 = s1.demand.memory, s2.demand.memory
    if d1 == 0 and d2 > 0:
        return 1
    if d2 == 0 and d1 > 0:
        return -1
    u1, u2 = s1.running.memory, s2.running.memory
    m1, m2 = min(s1.min_share.memory, d1), min(s2.min_share.memory, d2)
    needy1, needy2 = u1 < m1, u2 < m2
    if needy1 and not needy2:
        return -1
    if needy2 and not needy1:
        return 1
    if needy1 and needy2:
        res = _signum(u1 / max(m1, 1) - u2 / max(m2, 1))
    else:
        w1, w2 = s1.weight, s2.weight
        if w1 > 0 and w2 > 0:
            r1, r2 = u1 / w1, u2 / w2
        elif w1 == w2:
            r1, r2 = float(u1), float(u2)
        else:
            r1, r2 = -w1, -w2
        res = _signum(r1 - r2)
    if res == 0:
        res = _signum(s1.start_time - s2.start_time)
    if res == 0:
        res = (s1.name > s2.name) - (s1.name < s2.name)
    return res


def _mock_schedulable(demand: R, name: str, start: float, used: R, weight: float) -> Schedulable:
    """``TestSchedulingPolicy.FairShareComparatorTester.MockSchedulable``: min share (0, 1)."""
    s = Schedulable(name=name, kind=RESOURCES, owner=None, weight=weight, min_share=R(0, 1), running=used,
                    start_time=start)
    s.demand = demand
    return s


def test_fair_share_comparator_agrees_with_hadoop() -> None:
    """``TestSchedulingPolicy.testFairShareComparatorTransitivity``: Hadoop's data collections
    (demand (0, 0) or (4, 1); names A, B, C; start 1, 2, 3; usage (0, 1), (2, 1), (4, 1);
    weights 0, 1, 2), plus a demand of (0 MB, 1 vcore), which ``compareDemand`` counts as no
    demand (it reads memory only).  A sort key is transitive by construction, so the port
    checks what transitivity protects: every pair is ordered as Hadoop's comparator orders it."""
    scheds = [_mock_schedulable(d, n, t, u, w)
              for d in (R(0, 0), R(4, 1), R(0, 1)) for n in "ABC" for t in (1.0, 2.0, 3.0)
              for u in (R(0, 1), R(2, 1), R(4, 1)) for w in (0.0, 1.0, 2.0)]
    keys = [yarn_fair_order_key(s) for s in scheds]
    wrong = []
    for (a, ka), (b, kb) in itertools.combinations(zip(scheds, keys, strict=True), 2):
        java = java_fair_share_compare(a, b)
        ours = (ka > kb) - (ka < kb)
        if java != ours and len(wrong) < 5:
            wrong.append((a.name, a.demand, a.running, a.weight, b.name, b.demand, b.running, b.weight, java, ours))
    assert wrong == []
