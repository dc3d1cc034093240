"""Heartbeat-level scenarios of shared/scenarios/mr1-heartbeat.md (Hadoop 1.x
TestFairScheduler), run through the public harness.  Tracker ttK is node
n000(K-1); times are seconds (Hadoop's milliseconds / 1000)."""

from __future__ import annotations

import pytest
from scenario_helpers import F1, hb_seq, share, tasks


def test_s10_two_small_jobs():
    h = F1()
    j1 = h.submit(2, 1)
    assert h.demand(j1) == {"map": 2, "reduce": 1}
    assert share(h, j1) == (2.0, 1.0)
    h.advance(0.1)
    j2 = h.submit(1, 2)
    assert share(h, j1) == (2.0, 1.0) and share(h, j2) == (1.0, 2.0)
    assert hb_seq(h, "n0000", 4) == ["job_0001_m_000000", "job_0001_r_000000", "job_0002_m_000000", "job_0002_r_000000"]
    assert hb_seq(h, "n0001", 3) == ["job_0001_m_000001", "job_0002_r_000001", None]
    assert h.running(j1) == {"map": 2, "reduce": 1} and h.running(j2) == {"map": 1, "reduce": 2}
    assert h.demand(j1) == {"map": 2, "reduce": 1} and h.demand(j2) == {"map": 1, "reduce": 2}


@pytest.mark.parametrize("multiple", [False, True])
def test_s12_two_large_jobs_alternate(multiple):
    h = F1(assign_multiple=multiple)
    j1 = h.submit(10, 10)
    assert share(h, j1) == (4.0, 4.0)
    h.advance(0.1)
    j2 = h.submit(10, 10)
    assert share(h, j1) == (2.0, 2.0) and share(h, j2) == (2.0, 2.0)

    def beat(node):
        if multiple:
            return tasks(h.heartbeat(node))
        return hb_seq(h, node, 4)

    first = beat("n0000")
    assert first == ["job_0001_m_000000", "job_0001_r_000000", "job_0002_m_000000", "job_0002_r_000000"]
    second = beat("n0001")
    assert second == ["job_0001_m_000001", "job_0001_r_000001", "job_0002_m_000001", "job_0002_r_000001"]
    assert h.heartbeat("n0000") == [] and h.heartbeat("n0001") == []
    assert h.running(j1) == {"map": 2, "reduce": 2} and h.demand(j2) == {"map": 10, "reduce": 10}
    for t in first + second:
        h.finish(t)
    h.advance(0.2)
    assert h.running(j1) == {"map": 0, "reduce": 0}
    assert beat("n0000") == ["job_0001_m_000002", "job_0001_r_000002", "job_0002_m_000002", "job_0002_r_000002"]
    assert beat("n0001") == ["job_0001_m_000003", "job_0001_r_000003", "job_0002_m_000003", "job_0002_r_000003"]
    for j in (j1, j2):
        assert h.running(j) == {"map": 2, "reduce": 2}
        assert h.demand(j) == {"map": 8, "reduce": 8}
        assert share(h, j) == (2.0, 2.0)


POOLS_AB = """<allocations>
  <pool name="poolA"><minMaps>1</minMaps><minReduces>2</minReduces></pool>
  <pool name="poolB"><minMaps>2</minMaps><minReduces>1</minReduces></pool>
</allocations>"""


def test_s14_pool_min_shares_come_first():
    h = F1(allocations=POOLS_AB)
    j1 = h.submit(10, 10)
    assert share(h, j1) == (4.0, 4.0)
    h.advance(0.2)
    j2 = h.submit(10, 10, pool="poolA")
    h.advance(0.1)
    j3 = h.submit(10, 10, pool="poolB")
    pools = h.scheduler.pools
    assert {n: (p.sched["map"].min_share, p.sched["reduce"].min_share) for n, p in pools.items()} == {
        "default": (0, 0), "poolA": (1, 2), "poolB": (2, 1)}
    assert share(h, j1) == (1.0, 1.0) and share(h, j2) == (1.0, 2.0) and share(h, j3) == (2.0, 1.0)
    h.advance(0.1)
    assert hb_seq(h, "n0000", 4) == ["job_0002_m_000000", "job_0002_r_000000", "job_0003_m_000000", "job_0003_r_000000"]
    assert hb_seq(h, "n0001", 4) == ["job_0003_m_000001", "job_0002_r_000001", "job_0001_m_000000", "job_0001_r_000000"]


def test_s17_pool_running_job_limit():
    h = F1(allocations='<allocations><pool name="default"><maxRunningJobs>2</maxRunningJobs></pool></allocations>')
    jobs = []
    for i in range(4):
        jobs.append(h.submit(10, 10))
        if i < 3:
            h.advance(0.01)
    j1, j2, j3, j4 = jobs
    assert [j.initialized for j in jobs] == [True, True, False, False]
    assert share(h, j1) == (2.0, 2.0) and share(h, j2) == (2.0, 2.0)
    assert share(h, j3) == (0.0, 0.0) and share(h, j4) == (0.0, 0.0)
    assert hb_seq(h, "n0000", 4) == ["job_0001_m_000000", "job_0001_r_000000", "job_0002_m_000000", "job_0002_r_000000"]
    h.advance(0.1)
    assert hb_seq(h, "n0001", 4) == ["job_0001_m_000001", "job_0001_r_000001", "job_0002_m_000001", "job_0002_r_000001"]


def test_user_running_job_limit_and_release():
    h = F1(allocations='<allocations><user name="alice"><maxRunningJobs>1</maxRunningJobs></user></allocations>')
    a1 = h.submit(1, 0, user="alice")
    h.advance(0.01)
    a2 = h.submit(1, 0, user="alice")
    b1 = h.submit(1, 0, user="bob")
    assert (a1.runnable, a2.runnable, b1.runnable) == (True, False, True)
    t = h.heartbeat("n0000")
    h.finish(t[0])
    assert a2.runnable  # a1 finished, so alice's next job may run
    assert h.scheduler.job(a1.id).is_finished


def test_s23_pool_max_maps_reduces():
    h = F1(allocations="""<allocations><pool name="poolLimited">
        <weight>1.0</weight><maxMaps>2</maxMaps><maxReduces>1</maxReduces></pool></allocations>""")
    j1 = h.submit(10, 5, pool="poolLimited")
    h.advance(0.01)
    j2 = h.submit(10, 5)
    assert hb_seq(h, "n0000", 4) == ["job_0002_m_000000", "job_0002_r_000000", "job_0001_m_000000", "job_0001_r_000000"]
    assert hb_seq(h, "n0001", 4) == ["job_0002_m_000001", "job_0002_r_000001", "job_0001_m_000001", "job_0002_r_000002"]
    assert h.running("poolLimited") == {"map": 2, "reduce": 1}
    assert h.running("default") == {"map": 2, "reduce": 3}
    assert h.running(j1) == {"map": 2, "reduce": 1} and h.running(j2) == {"map": 2, "reduce": 3}


def _submit_4(h, pools, priorities=None, sizes=None):
    jobs = []
    for i, pool in enumerate(pools):
        size = sizes[i] if sizes else (10, 10)
        jobs.append(h.submit(*size, pool=pool, priority=(priorities or {}).get(i, "NORMAL")))
        h.advance(0.01)
    return jobs


def test_s25_fifo_pool():
    h = F1(allocations='<allocations><pool name="default"><schedulingMode>fifo</schedulingMode></pool></allocations>')
    jobs = _submit_4(h, [None] * 4, priorities={2: "HIGH"}, sizes=[(1, 1), (3, 3), (1, 1), (3, 3)])
    assert hb_seq(h, "n0000", 4) == ["job_0003_m_000000", "job_0003_r_000000", "job_0001_m_000000", "job_0001_r_000000"]
    assert hb_seq(h, "n0001", 4) == ["job_0002_m_000000", "job_0002_r_000000", "job_0002_m_000001", "job_0002_r_000001"]
    assert h.shares()["jobs"][jobs[0].id] == {"map": None, "reduce": None}


def test_s25_multiple_fifo_pools():
    h = F1(allocations="<allocations><defaultPoolSchedulingMode>fifo</defaultPoolSchedulingMode></allocations>")
    _submit_4(h, ["poolA", "poolA", "poolB", "poolB"])
    assert hb_seq(h, "n0000", 4) == ["job_0001_m_000000", "job_0001_r_000000", "job_0003_m_000000", "job_0003_r_000000"]
    assert hb_seq(h, "n0001", 4) == ["job_0001_m_000001", "job_0001_r_000001", "job_0003_m_000001", "job_0003_r_000001"]


def test_s25_fifo_and_fair_pools():
    h = F1(allocations="""<allocations><defaultPoolSchedulingMode>fifo</defaultPoolSchedulingMode>
        <pool name="poolB"><schedulingMode>fair</schedulingMode></pool></allocations>""")
    _submit_4(h, ["poolA", "poolA", "poolB", "poolB"])
    assert hb_seq(h, "n0000", 4) == ["job_0001_m_000000", "job_0001_r_000000", "job_0003_m_000000", "job_0003_r_000000"]
    assert hb_seq(h, "n0001", 4) == ["job_0001_m_000001", "job_0001_r_000001", "job_0004_m_000000", "job_0004_r_000000"]


def test_s26_min_share_preemption():
    h = F1(preemption=True, allocations="""<allocations><pool name="poolA">
        <minMaps>2</minMaps><minReduces>1</minReduces><minSharePreemptionTimeout>60</minSharePreemptionTimeout>
        </pool></allocations>""")
    j1 = h.submit(10, 10)
    assert hb_seq(h, "n0000", 4) == ["job_0001_m_000000", "job_0001_r_000000", "job_0001_m_000001", "job_0001_r_000001"]
    h.advance(0.1)
    assert hb_seq(h, "n0001", 4) == ["job_0001_m_000002", "job_0001_r_000002", "job_0001_m_000003", "job_0001_r_000003"]
    h.advance(10.0)
    h.submit(10, 10, pool="poolA")
    assert h.advance(10.0) == []
    assert h.tasks_to_preempt("poolA") == {"map": 0, "reduce": 0}
    assert h.advance(49.0) == []
    assert h.tasks_to_preempt("poolA") == {"map": 0, "reduce": 0}
    before = h.tasks_to_preempt  # the count at the moment the timeout is crossed
    h.clock_only(2.0)
    assert before("poolA") == {"map": 2, "reduce": 1}
    killed = h.advance(0.0)
    assert sorted(t.id for t in killed if t.kind == "map") == ["job_0001_m_000002", "job_0001_m_000003"]
    reduces = [t.id for t in killed if t.kind == "reduce"]
    assert len(reduces) == 1 and reduces[0] in ("job_0001_r_000002", "job_0001_r_000003")
    assert h.running(j1) == {"map": 2, "reduce": 3}
    assert [t.id for t in h.killed] == [t.id for t in killed]
    assert hb_seq(h, "n0001", 3) == ["job_0002_m_000000", "job_0002_m_000001", "job_0002_r_000000"]
    assert hb_seq(h, "n0000", 1) == [None]
    assert hb_seq(h, "n0001", 1) == [None]


def test_s28_fair_share_preemption():
    h = F1(nodes=4, preemption=True, allocations="""<allocations>
        <pool name="pool1"/><pool name="pool2"/><pool name="pool3"/>
        <fairSharePreemptionTimeout>60</fairSharePreemptionTimeout></allocations>""")
    j1 = h.submit(6, 6, pool="pool1")
    h.advance(0.1)
    assert hb_seq(h, "n0000", 4) == ["job_0001_m_000000", "job_0001_r_000000", "job_0001_m_000001", "job_0001_r_000001"]
    h.advance(0.1)
    assert hb_seq(h, "n0001", 4) == ["job_0001_m_000002", "job_0001_r_000002", "job_0001_m_000003", "job_0001_r_000003"]
    h.advance(0.1)
    assert hb_seq(h, "n0002", 4) == ["job_0001_m_000004", "job_0001_r_000004", "job_0001_m_000005", "job_0001_r_000005"]
    h.advance(0.1)
    h.submit(10, 10, pool="pool2")
    h.advance(0.1)
    assert hb_seq(h, "n0003", 4) == ["job_0002_m_000000", "job_0002_r_000000", "job_0002_m_000001", "job_0002_r_000001"]
    h.submit(10, 10, pool="pool3")
    for name in ("pool1", "pool2", "pool3"):
        assert h.shares()["pools"][name]["map"] == pytest.approx(8 / 3, abs=0.01)
    assert h.advance(59.0) == []
    assert h.tasks_to_preempt("pool2") == {"map": 0, "reduce": 0}
    assert h.tasks_to_preempt("pool3") == {"map": 0, "reduce": 0}
    h.clock_only(2.0)
    assert h.tasks_to_preempt("pool2") == {"map": 0, "reduce": 0}
    assert h.tasks_to_preempt("pool3") == {"map": 2, "reduce": 2}
    killed = h.advance(0.0)
    assert sorted(t.id for t in killed) == ["job_0001_m_000004", "job_0001_m_000005",
                                            "job_0001_r_000004", "job_0001_r_000005"]
    assert h.running(j1) == {"map": 4, "reduce": 4}
    assert hb_seq(h, "n0002", 4) == ["job_0003_m_000000", "job_0003_r_000000", "job_0003_m_000001", "job_0003_r_000001"]
    for node in ("n0000", "n0001", "n0002", "n0003"):
        assert h.heartbeat(node) == []


def test_no_preemption_when_disabled():
    h = F1(preemption=False, allocations="""<allocations><pool name="poolA"><minMaps>2</minMaps>
        <minSharePreemptionTimeout>1</minSharePreemptionTimeout></pool></allocations>""")
    h.submit(10, 0)
    h.heartbeat("n0000"), h.heartbeat("n0000"), h.heartbeat("n0001"), h.heartbeat("n0001")
    h.submit(5, 0, pool="poolA")
    assert h.advance(100.0) == [] and h.killed == []


def test_s5_job_weights_from_priority():
    h = F1()
    weights = {}
    for prio in ("VERY_HIGH", "HIGH", "NORMAL", "LOW", "VERY_LOW"):
        job = h.submit(3, 0, priority=prio)
        weights[prio] = job.sched["map"].weight
    assert weights == {"VERY_HIGH": 4.0, "HIGH": 2.0, "NORMAL": 1.0, "LOW": 0.5, "VERY_LOW": 0.25}


def test_move_and_set_priority():
    h = F1()
    j1 = h.submit(10, 0, pool="a")
    j2 = h.submit(10, 0, pool="a")
    h.heartbeat("n0000")
    h.move(j1, "b")
    assert h.job(j1).pool == "b"
    assert h.running("b") == {"map": 1, "reduce": 0} and h.running("a") == {"map": 0, "reduce": 0}
    shares = h.shares()["pools"]
    assert shares["a"]["map"] == 2.0 and shares["b"]["map"] == 2.0
    h.set_priority(j2, "HIGH")
    assert h.job(j2).sched["map"].weight == 2.0
