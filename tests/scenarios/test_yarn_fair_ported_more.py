"""Still more of Hadoop 3.3's YARN fair-scheduler unit tests, ported to the harness:
``TestSchedulingPolicy``, ``TestQueuePlacementPolicy``, ``TestAllocationFileLoaderService``,
``TestQueueManager`` and ``TestFairScheduler``.  Each test names the Hadoop class and method it
ports; the numbers are Hadoop's.  The fixture is :func:`test_yarn_fair_ported.harness`
(``FairSchedulerTestBase.createConfiguration``)."""

from __future__ import annotations

import itertools

import pytest
from test_yarn_fair_ported import harness
from test_yarn_fair_ported_scheduler import am_app, am_usage

from corescheduler.core.calculator import yarn_fair_order_key
from corescheduler.core.model import RESOURCES
from corescheduler.core.schedulable import Schedulable
from corescheduler.resources import Resources as R


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


# --------------------------------------------------------------------------- FSLeafQueue.canRunAppAM
@pytest.mark.parametrize(("element", "share", "runs"), [
    ("maxAMShare", "-1", True), ("maxAMShare", "-1.0f", True), ("maxAMShare", "-0.5", False),
    ("maxAMShare", "-2", False), ("queueMaxAMShareDefault", "-0.5", False), ("queueMaxAMShareDefault", "-1", True),
])
def test_only_a_max_am_share_of_minus_one_turns_the_am_limit_off(element: str, share: str, runs: bool) -> None:
    """``FSLeafQueue.canRunAppAM``: only a ``maxAMShare`` within 0.0001 of -1 turns the check off;
    any other negative share (``AllocationFileQueueParser.loadQueue`` keeps ``min(v, 1)``)
    gives ``computeMaxAMResource`` a negative limit (``multiplyAndRoundUp``) that no AM fits in,
    so no AM runs in the queue.  The file loads, with a warning naming the element."""
    queue = (f'<queue name="queue1"><maxAMShare>{share}</maxAMShare></queue>' if element == "maxAMShare"
             else f'<queue name="queue1"/><queueMaxAMShareDefault>{share}</queueMaxAMShareDefault>')
    h = harness("8192 mb, 8 vcores", f"<allocations>{queue}</allocations>")
    warned = [w for w in h.scheduler.allocations.warnings if element in w]
    assert bool(warned) is not runs, h.scheduler.allocations.warnings
    app = am_app(h, "queue1", "1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == (1 if runs else 0)
    assert am_usage(h, "root.queue1") == (1024 if runs else 0)


def test_queues_command_shows_off_only_for_minus_one(tmp_path) -> None:
    """``corescheduler queues``: the maxAMShare column says ``off`` for -1 only; a queue whose
    other negative share lets no AM run shows that share."""
    import re

    from cli_helpers import run

    (tmp_path / "fair.xml").write_text('<allocations><queue name="off"><maxAMShare>-1</maxAMShare></queue>'
                                       '<queue name="none"><maxAMShare>-0.5</maxAMShare></queue></allocations>',
                                       encoding="utf-8")
    config = tmp_path / "cs.toml"
    config.write_text('[scheduler]\nmode = "resources"\nallocation_file = "fair.xml"\n'
                      '[cluster]\nracks = 1\nnodes_per_rack = 1\nnode_resources = "8192 mb, 8 vcores"\n',
                      encoding="utf-8")
    result = run("queues", "--config", str(config))
    assert result.exit_code == 0, result.output
    header = re.split(r"\s{2,}", result.stdout.splitlines()[1].strip())
    rows = {cells[0]: cells for cells in (re.split(r"\s{2,}", line.strip()) for line in result.stdout.splitlines()[2:])}
    column = next(i for i, name in enumerate(header) if "AM" in name)
    assert rows["off"][column] == "off" and rows["none"][column] == "-0.5"
