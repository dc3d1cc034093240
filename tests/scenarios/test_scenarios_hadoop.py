"""Hadoop 1.x fair scheduler unit tests ported to the harness.

Source: ``src/contrib/fairscheduler/src/test/org/apache/hadoop/mapred/TestFairScheduler.java``
of the Hadoop 1.x line (the "Schedulable" rewrite with separate node/rack
locality delays, as in ``roengram/hadoop-release``), plus
``TestFairSchedulerPoolNames.java``.  The scenarios are restated here, not
copied; the mapping is that of shared/scenarios/mr1-heartbeat.md: tracker ttK
is node ``n000(K-1)`` (``rackR.nodeN`` is rack ``r0(R-1)``), job Jj is
``job_000j``, milliseconds become seconds, and every test starts from the F1
fixture (2 map + 2 reduce slots a node, CapBasedLoadManager with maxDiff 0,
assignMultiple off unless stated, clock at 0.1 s after start).  Where the Java
test triggers preemption by hand (``preemptTasksIfNecessary(); update()``) the
fixture sets a preemption interval far longer than the scenario, so
``advance()`` never preempts on its own and ``h.preempt(); h.update()`` is the
exact counterpart.

Already ported elsewhere (not repeated here):

* testAllocationFileParsing — tests/formats/test_allocations.py (S6)
* testSmallJobs, testLargeJobs, testLargeJobsWithAssignMultiple,
  testLargeJobsWithPools, testPoolMaxJobs, testPoolMaxMapsReduces,
  testMinSharePreemption, testFairSharePreemption, testFifoPool,
  testMultipleFifoPools, testFifoAndFairPools — tests/test_scenarios_mr1.py
* testDelaySchedulingAtNodeLevel, testDelaySchedulingAtRackLevel — tests/plugins/test_delay.py
* testCapBasedLoadManager, TestCapBasedLoadManager — tests/plugins/test_cap_based.py
* TestComputeFairShares — tests/core/test_fairshare.py

Ported here: testTaskNotAssignedWhenNoJobsArePresent, testSmallJobsWithAssignMultiple,
testJobsWithPriorities, testLargeJobsWithExcessCapacity (+ ...AndAssignMultiple),
testSmallJobInLargePool, testAssignMultipleWithUnderloadedCluster,
testMaxTasksToAssign (through heartbeats with ``map_assign_cap``), testUserMaxJobs,
testComplexJobLimits, testSizeBasedWeight, testPoolWeights, testPoolWeightsWhenNoMaps,
testPoolAssignment, testSetPoolTwice, testMinSharePreemptionWithSmallJob,
testFairSharePreemptionFromMultiplePools, testMinAndFairSharePreemption,
testNoPreemptionIfDisabled, testFairSharePreemptionWithShortTimeout,
testDelaySchedulingOffRack, and TestFairSchedulerPoolNames' three cases; and
testFairShareBoundaryPreemption of branch-1 after 1.2.1 (MAPREDUCE-5822), whose
rule is not kept: the test pins Hadoop 1.0-1.2's instead.

Skipped, because they depend on Hadoop internals the harness does not model:

* testNonRunningJobsAreIgnored — ported since, with the harness's ``state=``:
  tests/scenarios/test_harness_requests.py.
* testNoPreemptionIfOnlyLogging — ported as
  ``tests/core/test_scheduler.py::test_preemption_only_log_kills_nothing``
  (``[scheduler] preemption_only_log``).
* verifyMetrics() calls inside the ported tests — Hadoop's metrics-context
  records; only the scheduler values they mirror are checked.
* testPreemptionIsNotDelayedToNextRound — not in the Hadoop 1.x suite; it is a
  YARN FairScheduler test (containers, preemption rounds), outside this port.
* TestFairSchedulerPoolNames' MiniMRCluster / JobClient plumbing; the placement
  outcome is ported here through the ``rules`` resolver, and with Hadoop's
  ``allow.undeclared.pools = false`` and exception text through the ``property``
  resolver in tests/formats/test_pool_placement_policy.py.
"""

from __future__ import annotations

import pytest
from scenario_helpers import F1 as _F1
from scenario_helpers import hb_seq, share, tasks

from corescheduler.core.scheduler import JobRejectedError
from corescheduler.testing import ClusterHarness

# ---------------------------------------------------------------------------- fixture and helpers


def tt(k: int) -> str:
    """Hadoop tracker ttK as a harness node name."""
    return f"n{k - 1:04d}"


def F1(**kw):
    """The shared fixture with preemption checked only when a test asks."""
    return _F1(manual_preemption=True, **kw)


def m(job: int, index: int) -> str:
    return f"job_{job:04d}_m_{index:06d}"


def r(job: int, index: int) -> str:
    return f"job_{job:04d}_r_{index:06d}"






def approx_share(h, job, expected, tol):
    got = share(h, job)
    assert got == (pytest.approx(expected[0], abs=tol), pytest.approx(expected[1], abs=tol))


def both(n):
    return {"map": n, "reduce": n}


def mr(maps, reduces):
    return {"map": maps, "reduce": reduces}


def fill_two_trackers(h, job=1):
    """Hadoop's "submit job 1 and assign all slots to it": tt1 at t, tt2 100 ms later."""
    assert hb_seq(h, tt(1), 4) == [m(job, 0), r(job, 0), m(job, 1), r(job, 1)]
    h.advance(0.1)
    assert hb_seq(h, tt(2), 4) == [m(job, 2), r(job, 2), m(job, 3), r(job, 3)]


# ---------------------------------------------------------------------------- basic assignment


def test_task_not_assigned_when_no_jobs_are_present():
    """testTaskNotAssignedWhenNoJobsArePresent: an empty scheduler assigns nothing."""
    h = F1()
    assert h.heartbeat(tt(1)) == []


def test_small_jobs_with_assign_multiple():
    """testSmallJobsWithAssignMultiple: testSmallJobs (S10) with assignMultiple on; each
    tracker hands out all it can in one heartbeat, jobs alternating."""
    h = F1(assign_multiple=True)
    j1 = h.submit(2, 1)
    assert h.running(j1) == both(0)
    assert h.demand(j1) == mr(2, 1)
    assert share(h, j1) == (2.0, 1.0)
    h.advance(0.1)
    j2 = h.submit(1, 2)
    assert h.running(j1) == both(0) and h.running(j2) == both(0)
    assert h.demand(j1) == mr(2, 1) and h.demand(j2) == mr(1, 2)
    assert share(h, j1) == (2.0, 1.0) and share(h, j2) == (1.0, 2.0)
    assert tasks(h.heartbeat(tt(1))) == [m(1, 0), r(1, 0), m(2, 0), r(2, 0)]
    assert tasks(h.heartbeat(tt(2))) == [m(1, 1), r(2, 1)]
    assert h.heartbeat(tt(2)) == []
    assert h.running(j1) == mr(2, 1) and h.running(j2) == mr(1, 2)
    assert h.demand(j1) == mr(2, 1) and h.demand(j2) == mr(1, 2)


def test_jobs_with_priorities():
    """testJobsWithPriorities: on 3 trackers a HIGH job (weight 2) gets twice the share of a
    NORMAL one submitted at the same instant, and tasks go 1, 2, 2, 1, 2, 2 (ties to job 1)."""
    h = F1(nodes=3)
    j1 = h.submit(10, 10)
    j2 = h.submit(10, 10)
    h.set_priority(j2, "HIGH")  # Hadoop: job2.setPriority(HIGH); scheduler.update()
    assert h.running(j1) == both(0) and h.running(j2) == both(0)
    assert h.demand(j1) == both(10) and h.demand(j2) == both(10)
    approx_share(h, j1, (2.0, 2.0), 0.1)
    approx_share(h, j2, (4.0, 4.0), 0.1)
    h.advance(0.1)
    assert hb_seq(h, tt(1), 4) == [m(1, 0), r(1, 0), m(2, 0), r(2, 0)]
    assert hb_seq(h, tt(2), 4) == [m(2, 1), r(2, 1), m(1, 1), r(1, 1)]
    assert hb_seq(h, tt(3), 4) == [m(2, 2), r(2, 2), m(2, 3), r(2, 3)]


POOL_A_MIN_2 = """<allocations>
  <pool name="poolA"><minMaps>2</minMaps><minReduces>2</minReduces></pool>
</allocations>"""


@pytest.mark.parametrize("multiple", [False, True], ids=["single", "assign_multiple"])
def test_large_jobs_with_excess_capacity(multiple):
    """testLargeJobsWithExcessCapacity (and ...AndAssignMultiple): poolA (min 2/2) holds two
    jobs, default one; poolA's min share is served first, one task to each of its jobs, then
    the default job, whose fair share is larger, takes the rest."""
    h = F1(assign_multiple=multiple, allocations=POOL_A_MIN_2)
    j1 = h.submit(10, 10)
    assert h.running(j1) == both(0) and h.demand(j1) == both(10)
    assert share(h, j1) == (4.0, 4.0)
    h.advance(0.2)
    j2 = h.submit(10, 10, pool="poolA")
    pool_a = h.scheduler.pools["poolA"]
    assert (pool_a.sched["map"].min_share, pool_a.sched["reduce"].min_share) == (2, 2)
    assert share(h, j1) == (2.0, 2.0) and share(h, j2) == (2.0, 2.0)
    h.advance(0.1)
    j3 = h.submit(10, 10, pool="poolA")
    assert (pool_a.sched["map"].min_share, pool_a.sched["reduce"].min_share) == (2, 2)
    assert share(h, j1) == (2.0, 2.0)
    assert share(h, j2) == (1.0, 1.0) and share(h, j3) == (1.0, 1.0)
    h.advance(0.1)
    first = [m(2, 0), r(2, 0), m(3, 0), r(3, 0)]
    second = [m(1, 0), r(1, 0), m(1, 1), r(1, 1)]
    if multiple:
        assert tasks(h.heartbeat(tt(1))) == first
        assert tasks(h.heartbeat(tt(2))) == second
    else:
        assert hb_seq(h, tt(1), 4) == first
        assert hb_seq(h, tt(2), 4) == second


def test_small_job_in_large_pool():
    """testSmallJobInLargePool: a 1+1 job in a pool with min share 4/4 gets only what it
    demands (share 1/1); the other job gets 3/3 and every remaining slot."""
    h = F1(allocations="""<allocations>
      <pool name="poolA"><minMaps>4</minMaps><minReduces>4</minReduces></pool></allocations>""")
    j1 = h.submit(10, 10)
    j2 = h.submit(1, 1, pool="poolA")
    assert h.running(j1) == both(0) and h.demand(j1) == both(10)
    assert share(h, j1) == (3.0, 3.0)
    assert h.running(j2) == both(0) and h.demand(j2) == both(1)
    assert share(h, j2) == (1.0, 1.0)
    assert hb_seq(h, tt(1), 4) == [m(2, 0), r(2, 0), m(1, 0), r(1, 0)]
    assert hb_seq(h, tt(2), 4) == [m(1, 1), r(1, 1), m(1, 2), r(1, 2)]


def test_assign_multiple_with_underloaded_cluster():
    """testAssignMultipleWithUnderloadedCluster: 4 maps and 3 reduces on 4 trackers of 2+2
    slots; even with assignMultiple the cap-based load manager puts at most one map and one
    reduce on each tracker, and a second heartbeat gets nothing."""
    h = F1(nodes=4, assign_multiple=True)
    h.submit(2, 2)
    h.advance(0.1)
    h.submit(2, 1)
    assert tasks(h.heartbeat(tt(1))) == [m(1, 0), r(1, 0)]
    assert h.heartbeat(tt(1)) == []
    assert tasks(h.heartbeat(tt(2))) == [m(2, 0), r(2, 0)]
    assert h.heartbeat(tt(2)) == []
    assert tasks(h.heartbeat(tt(3))) == [m(1, 1), r(1, 1)]
    assert h.heartbeat(tt(3)) == []
    assert tasks(h.heartbeat(tt(4))) == [m(2, 1)]
    assert h.heartbeat(tt(4)) == []


@pytest.mark.parametrize(
    ("assign_multiple", "map_cap", "expected"),
    [(False, -1, 1), (True, -1, 5), (True, 10, 5), (True, 2, 2)],
    ids=["single", "no_cap", "cap_above_free_slots", "cap_2"],
)
def test_max_tasks_to_assign(assign_multiple, map_cap, expected):
    """testMaxTasksToAssign: on a tracker with 5 free map slots a heartbeat launches 1 map
    without assignMultiple; with it, all 5 (cap -1), min(cap, 5) with a cap."""
    config = f"[scheduler]\nassign_multiple = {str(assign_multiple).lower()}\nmap_assign_cap = {map_cap}\n"
    h = ClusterHarness(racks=1, nodes_per_rack=1, map_slots=5, reduce_slots=0, config=config)
    h.advance(0.1)
    h.submit(10, 0)
    got = h.heartbeat(tt(1))
    assert tasks(got) == [m(1, i) for i in range(expected)]


# ---------------------------------------------------------------------------- job limits and weights


def test_user_max_jobs():
    """testUserMaxJobs: user1 may run 1 job; of user1's two jobs only the first is runnable,
    so jobs 1, 3 and 4 share the 4 slots (1.33 each) and job 2 gets nothing."""
    h = F1(allocations='<allocations><user name="user1"><maxRunningJobs>1</maxRunningJobs></user></allocations>')
    jobs = []
    for i, user in enumerate(["user1", "user1", "user2", "user2"]):
        jobs.append(h.submit(10, 10, user=user))
        if i < 3:
            h.advance(0.01)
    j1, j2, j3, j4 = jobs
    approx_share(h, j1, (1.33, 1.33), 0.1)
    assert share(h, j2) == (0.0, 0.0)
    approx_share(h, j3, (1.33, 1.33), 0.1)
    approx_share(h, j4, (1.33, 1.33), 0.1)
    assert hb_seq(h, tt(1), 4) == [m(1, 0), r(1, 0), m(3, 0), r(3, 0)]
    h.advance(0.1)
    assert hb_seq(h, tt(2), 4) == [m(4, 0), r(4, 0), m(1, 1), r(1, 1)]


def test_complex_job_limits():
    """testComplexJobLimits: pool limit (poolA 1), per-user limits (user1 1, user2 10) and
    userMaxJobsDefault 2 together: runnable are jobs 1, 3-5, 6-7 (default pool, 1/3 slot
    each of its half) and job 9 (poolA, 2 slots); jobs 2, 8 and 10 get nothing."""
    h = F1(allocations="""<allocations>
      <pool name="poolA"><maxRunningJobs>1</maxRunningJobs></pool>
      <user name="user1"><maxRunningJobs>1</maxRunningJobs></user>
      <user name="user2"><maxRunningJobs>10</maxRunningJobs></user>
      <userMaxJobsDefault>2</userMaxJobsDefault>
    </allocations>""")
    plan = [("user1", None)] * 2 + [("user2", None)] * 3 + [("user3", None)] * 3 + [("user4", "poolA")] * 2
    jobs = []
    for user, pool in plan:
        jobs.append(h.submit(10, 10, user=user, pool=pool))
        h.advance(0.01)
    for number in (1, 3, 4, 5, 6, 7):
        approx_share(h, jobs[number - 1], (0.33, 0.33), 0.1)
    for number in (2, 8, 10):
        assert share(h, jobs[number - 1]) == (0.0, 0.0)
    approx_share(h, jobs[8], (2.0, 2.0), 0.1)


def test_size_based_weight():
    """testSizeBasedWeight: with size-based weights a job with more maps gets the larger map
    share and a job with more reduces the larger reduce share."""
    h = F1(extra='weight_adjusters = ["size_based"]')
    j1 = h.submit(2, 10)
    j2 = h.submit(20, 1)
    assert share(h, j2)[0] > share(h, j1)[0]
    assert share(h, j1)[1] > share(h, j2)[1]


POOL_WEIGHTS = """<allocations>
  <pool name="poolA"><weight>2.0</weight></pool>
  <pool name="poolB"><weight>0.5</weight></pool>
</allocations>"""


def test_pool_weights():
    """testPoolWeights: pools of weight 1 (default), 2 (poolA) and 0.5 (poolB) split 4 slots
    1.14 / 2.28 / 0.57; a second poolB job halves poolB's share between its two jobs."""
    h = F1(allocations=POOL_WEIGHTS)
    j1 = h.submit(10, 10)
    j2 = h.submit(10, 10, pool="poolA")
    j3 = h.submit(10, 10, pool="poolB")
    h.advance(0.01)
    approx_share(h, j1, (1.14, 1.14), 0.01)
    approx_share(h, j2, (2.28, 2.28), 0.01)
    approx_share(h, j3, (0.57, 0.57), 0.01)
    j4 = h.submit(10, 10, pool="poolB")
    h.advance(0.01)
    approx_share(h, j1, (1.14, 1.14), 0.01)
    approx_share(h, j2, (2.28, 2.28), 0.01)
    approx_share(h, j3, (0.28, 0.28), 0.01)
    approx_share(h, j4, (0.28, 0.28), 0.01)


def test_pool_weights_when_no_maps():
    """testPoolWeightsWhenNoMaps: poolA (weight 2) holds two reduce-only jobs, poolB (weight 1)
    one job; poolA wanting no maps leaves all 4 map slots to poolB but does not shrink
    poolA's reduce share (2.67, i.e. 1.33 per job; poolB 1.33)."""
    h = F1(allocations="""<allocations>
      <pool name="poolA"><weight>2.0</weight></pool>
      <pool name="poolB"><weight>1.0</weight></pool></allocations>""")
    j1 = h.submit(0, 10, pool="poolA")
    j2 = h.submit(0, 10, pool="poolA")
    j3 = h.submit(10, 10, pool="poolB")
    h.advance(0.01)
    approx_share(h, j1, (0.0, 1.33), 0.01)
    approx_share(h, j2, (0.0, 1.33), 0.01)
    approx_share(h, j3, (4.0, 1.33), 0.01)


# ---------------------------------------------------------------------------- pools: placement and moves

POOLS_FAIR = """<allocations>
  <pool name="default"><schedulingMode>fair</schedulingMode></pool>
  <pool name="poolA"><schedulingMode>fair</schedulingMode></pool>
</allocations>"""


def test_pool_assignment():
    """testPoolAssignment: a job without a pool goes to default; moving a job moves its demand;
    the explicit pool property (mapred.fairscheduler.pool) wins over poolnameproperty; a job
    naming its pool by poolnameproperty goes there."""
    h = F1(allocations=POOLS_FAIR,
           extra='[plugins.property]\npool_name_property = ["mapred.fairscheduler.pool", "pool"]')
    h.submit(1, 3)
    assert h.demand("default") == mr(1, 3) and h.demand("poolA") == both(0)
    j2 = h.submit(5, 7)
    assert h.demand("default") == mr(6, 10) and h.demand("poolA") == both(0)
    h.move(j2, "poolA")
    assert h.job(j2).pool == "poolA"
    assert h.demand("default") == mr(1, 3) and h.demand("poolA") == mr(5, 7)
    j3 = h.submit(11, 13, properties={"pool": "nonsense", "mapred.fairscheduler.pool": "poolA"})
    assert h.job(j3).pool == "poolA"
    assert h.demand("default") == mr(1, 3) and h.demand("poolA") == mr(16, 20)
    j4 = h.submit(17, 19, pool="poolA")
    assert h.job(j4).pool == "poolA"
    assert h.demand("default") == mr(1, 3) and h.demand("poolA") == mr(33, 39)


def test_set_pool_twice():
    """testSetPoolTwice: moving a job to another pool and back moves its demand with it each time."""
    h = F1(allocations=POOLS_FAIR)
    j1 = h.submit(1, 3)
    assert h.demand("default") == mr(1, 3) and h.demand("poolA") == both(0)
    h.move(j1, "poolA")
    assert h.job(j1).pool == "poolA"
    assert h.demand("default") == both(0) and h.demand("poolA") == mr(1, 3)
    h.move(j1, "default")
    assert h.job(j1).pool == "default"
    assert h.demand("default") == mr(1, 3) and h.demand("poolA") == both(0)


RULES_DECLARED_ONLY = """
[scheduler]
pool_resolver = "rules"
[plugins.rules]
rules = [{name = "specified", create = false}, {name = "reject"}]
"""
POOL_A_ONLY = '<allocations><pool name="poolA"><minMaps>1</minMaps><minReduces>1</minReduces></pool></allocations>'


@pytest.mark.parametrize(("pool", "accepted"), [(None, False), ("poolA", True), ("poolB", False)],
                         ids=["testDefaultPoolName", "testValidPoolName", "testInvalidPoolName"])
def test_pool_names_with_undeclared_pools_disallowed(pool, accepted):
    """TestFairSchedulerPoolNames (allow.undeclared.pools = false): only pools declared in the
    allocation file take jobs; a job for the undeclared default pool or for poolB is rejected
    at submission, a job for poolA runs there."""
    h = ClusterHarness(config=RULES_DECLARED_ONLY, allocations=POOL_A_ONLY)
    if accepted:
        job = h.submit(1, 0, pool=pool)
        assert h.job(job).pool == "poolA"
    else:
        with pytest.raises(JobRejectedError):
            h.submit(1, 0, pool=pool)
        assert h.scheduler.jobs == {}


# ---------------------------------------------------------------------------- preemption


def test_min_share_preemption_with_small_job():
    """testMinSharePreemptionWithSmallJob: poolA's min share is 3/3 but its job needs only 1 map
    and 2 reduces, so after the 60 s timeout it preempts just 1 map and 2 reduces (the newest,
    on tt2) and gets them on tt2's next heartbeats."""
    h = F1(preemption=True, allocations="""<allocations><pool name="poolA">
        <minMaps>3</minMaps><minReduces>3</minReduces><minSharePreemptionTimeout>60</minSharePreemptionTimeout>
        </pool></allocations>""")
    j1 = h.submit(10, 10)
    fill_two_trackers(h)
    h.advance(10.0)
    h.submit(1, 2, pool="poolA")
    h.advance(59.0)
    assert h.tasks_to_preempt("poolA") == both(0)
    h.advance(2.0)
    assert h.tasks_to_preempt("poolA") == mr(1, 2)
    killed = h.preempt()
    h.update()
    assert h.running(j1) == mr(3, 2)
    kmaps = [t.id for t in killed if t.kind == "map"]
    assert len(kmaps) == 1 and kmaps[0] in (m(1, 2), m(1, 3))  # a tie: both started on tt2 at t = 0.2
    assert sorted(t.id for t in killed if t.kind == "reduce") == [r(1, 2), r(1, 3)]
    assert hb_seq(h, tt(2), 3) == [r(2, 0), m(2, 0), r(2, 1)]
    assert h.heartbeat(tt(1)) == [] and h.heartbeat(tt(2)) == []


def test_fair_share_preemption_from_multiple_pools():
    """testFairSharePreemptionFromMultiplePools: on 3 trackers (6 map slots) pool1 and pool2 run
    3 maps each; pool3 (fair share 2) starves below half its share for 60 s and preempts 2 maps,
    one from each pool (the newest of each), since neither may drop below its share of 2."""
    h = F1(nodes=3, preemption=True,
           allocations="<allocations><fairSharePreemptionTimeout>60</fairSharePreemptionTimeout></allocations>")
    j1 = h.submit(12, 0, pool="pool1")
    h.advance(0.1)
    assert hb_seq(h, tt(1), 2) == [m(1, 0), m(1, 1)]
    h.advance(0.1)
    assert hb_seq(h, tt(2), 1) == [m(1, 2)]
    h.advance(0.1)
    j2 = h.submit(10, 0, pool="pool2")
    h.advance(0.1)
    assert hb_seq(h, tt(2), 1) == [m(2, 0)]
    assert hb_seq(h, tt(3), 1) == [m(2, 1)]
    h.advance(0.1)
    assert hb_seq(h, tt(3), 1) == [m(2, 2)]
    h.advance(0.1)
    h.submit(10, 0, pool="pool3")
    h.advance(59.0)
    assert h.tasks_to_preempt("pool2") == both(0)
    assert h.tasks_to_preempt("pool3") == both(0)
    h.advance(2.0)
    assert h.tasks_to_preempt("pool2") == both(0)
    assert h.tasks_to_preempt("pool3") == mr(2, 0)
    killed = h.preempt()
    h.update()
    assert sorted(t.id for t in killed) == [m(1, 2), m(2, 2)]
    assert h.running(j2)["map"] == 2 and h.running(j1)["map"] == 2
    assert hb_seq(h, tt(2), 1) == [m(3, 0)]
    assert hb_seq(h, tt(3), 1) == [m(3, 1)]
    for k in (1, 2, 3):
        assert h.heartbeat(tt(k)) == []


MIN_AND_FAIR = """<allocations>
  <pool name="poolA"><minMaps>2</minMaps><minReduces>2</minReduces>
    <minSharePreemptionTimeout>60</minSharePreemptionTimeout></pool>
  <fairSharePreemptionTimeout>60</fairSharePreemptionTimeout>
</allocations>"""


def test_min_and_fair_share_preemption():
    """testMinAndFairSharePreemption: poolA is starved of both its min share (2/2) and half its
    fair share after 60 s; it is owed the larger of the two (2/2), not their sum, and the newest
    tasks (tt2's) are killed."""
    h = F1(preemption=True, allocations=MIN_AND_FAIR)
    j1 = h.submit(10, 10)
    fill_two_trackers(h)
    h.advance(10.0)
    h.submit(10, 10, pool="poolA")
    h.advance(10.0)
    assert h.tasks_to_preempt("poolA") == both(0)
    h.advance(49.0)
    assert h.tasks_to_preempt("poolA") == both(0)
    h.advance(2.0)
    assert h.tasks_to_preempt("poolA") == both(2)
    killed = h.preempt()
    h.update()
    assert h.running(j1) == both(2)
    assert sorted(t.id for t in killed) == sorted([m(1, 2), m(1, 3), r(1, 2), r(1, 3)])
    assert hb_seq(h, tt(2), 4) == [m(2, 0), r(2, 0), m(2, 1), r(2, 1)]
    assert h.heartbeat(tt(1)) == [] and h.heartbeat(tt(2)) == []


def test_no_preemption_if_disabled():
    """testNoPreemptionIfDisabled: testMinAndFairSharePreemption with preemption off — past both
    timeouts nothing is killed and no slot frees up."""
    h = F1(preemption=False, allocations=MIN_AND_FAIR)
    j1 = h.submit(10, 10)
    fill_two_trackers(h)
    h.advance(10.0)
    h.submit(10, 10, pool="poolA")
    h.advance(61.0)
    assert h.preempt() == []
    h.update()
    assert h.killed == []
    assert h.running(j1) == both(4)
    assert h.heartbeat(tt(1)) == [] and h.heartbeat(tt(2)) == []


def test_fair_share_preemption_with_short_timeout():
    """testFairSharePreemptionWithShortTimeout: pool1 (min 2/2, 5 s timeouts) runs all 4+4 slots;
    a job lands in default, and 6 s later — with no update in between, as between Hadoop's update
    and preemption threads — default is owed 2/2 by fair-share preemption and pool1, at its min
    share, nothing; preemption then kills tt2's tasks for default's job."""
    h = F1(preemption=True, allocations="""<allocations>
      <fairSharePreemptionTimeout>5</fairSharePreemptionTimeout>
      <pool name="pool1"><minMaps>2</minMaps><minReduces>2</minReduces>
        <minSharePreemptionTimeout>5</minSharePreemptionTimeout></pool></allocations>""")
    j1 = h.submit(10, 10, pool="pool1")
    fill_two_trackers(h)
    h.advance(10.0)
    assert h.running(j1) == both(4)
    assert share(h, j1) == (4.0, 4.0)
    h.submit(10, 10, pool="default")
    h.clock_only(6.0)
    assert h.running(j1) == both(4)
    assert share(h, j1) == (2.0, 2.0)
    assert h.tasks_to_preempt("pool1") == both(0)
    assert h.tasks_to_preempt("default") == both(2)
    killed = h.preempt()
    h.update()
    assert h.running(j1) == both(2)
    assert sorted(t.id for t in killed) == sorted([m(1, 2), m(1, 3), r(1, 2), r(1, 3)])
    assert hb_seq(h, tt(2), 4) == [m(2, 0), r(2, 0), m(2, 1), r(2, 1)]
    assert h.heartbeat(tt(1)) == [] and h.heartbeat(tt(2)) == []


# ---------------------------------------------------------------------------- delay scheduling

DELAY = """task_selector = "delay"
[plugins.delay]
node_locality_delay = 5.0
rack_locality_delay = 10.0"""


def delay_state(h, job):
    st = h.scheduler.plugins.instances["delay"].state(job.id)
    return (st.last_level, st.waited, st.skipped)


def test_delay_scheduling_off_rack():
    """testDelaySchedulingOffRack: a job whose 8 maps all live on rack2.node2 waits on other
    trackers; past the node delay it would take rack-local slots only; past node + rack delay it
    runs off-rack; a rack-local launch brings it back to rack-only and a node-local one to
    node-only."""
    h = F1(racks=2, nodes=2, assign_multiple=True, extra=DELAY)
    j1 = h.submit(8, 0, pool="pool1", map_locations=[[tt(4)]] * 8)
    h.advance(0.1)
    for k in (1, 2, 3):
        assert h.heartbeat(tt(k)) == []
    h.advance(6.0)  # past the 5 s node delay: rack-local allowed, tt1/tt2 are off-rack
    assert h.heartbeat(tt(1)) == [] and h.heartbeat(tt(2)) == []
    h.advance(0.1)
    assert h.heartbeat(tt(1)) == [] and h.heartbeat(tt(2)) == []
    h.advance(0.1)
    assert h.heartbeat(tt(1)) == [] and h.heartbeat(tt(2)) == []
    level, waited, skipped = delay_state(h, j1)
    assert (level, skipped) == ("node", True) and waited == pytest.approx(6.2)
    h.advance(11.0)  # past node + rack delay: anywhere
    got = h.heartbeat(tt(1))
    assert tasks(got) == [m(1, 0), m(1, 1)] and {a.locality for a in got} == {"off"}
    assert tasks(h.heartbeat(tt(2))) == [m(1, 2), m(1, 3)]
    assert delay_state(h, j1) == ("off", 0.0, False)
    got = h.heartbeat(tt(3))
    assert tasks(got) == [m(1, 4), m(1, 5)] and {a.locality for a in got} == {"rack"}
    assert delay_state(h, j1) == ("rack", 0.0, False)
    h.finish(m(1, 1))
    h.finish(m(1, 3))
    h.advance(0.1)
    assert h.heartbeat(tt(1)) == [] and h.heartbeat(tt(2)) == []  # rack 1 is off-rack again
    h.finish(m(1, 4))
    h.advance(0.1)
    assert tasks(h.heartbeat(tt(3))) == [m(1, 6)]
    got = h.heartbeat(tt(4))
    assert tasks(got) == [m(1, 7)] and got[0].locality == "node"
    assert delay_state(h, j1) == ("node", 0.0, False)


def test_fair_share_boundary_preemption_keeps_hadoop_1_0_to_1_2():
    """testFairShareBoundaryPreemption (MAPREDUCE-5822, on branch-1 after 1.2.1 only): a pool whose fair
    share is 1 slot, running none, is starved for its fair share there and preempts that slot.  Hadoop
    1.0-1.2 (kept here, docs/concepts.md "Preemption"): ``isStarvedForFairShare`` compares running
    with ``(int) Math.floor(Math.min(fairShare / 2, demand))`` = floor(0.5) = 0, so the pool is never
    starved for its fair share and nothing is preempted; with a fair share of 2 it is (floor(1) = 1)."""
    h = F1(nodes=1, preemption=True,
           allocations="<allocations><fairSharePreemptionTimeout>60</fairSharePreemptionTimeout></allocations>")
    j1 = h.submit(10, 0, pool="pool1")
    h.advance(0.1)
    assert hb_seq(h, tt(1), 2) == [m(1, 0), m(1, 1)]
    h.advance(0.1)
    h.submit(10, 0, pool="pool2")
    h.advance(0.1)
    assert h.shares()["pools"]["pool2"]["map"] == 1.0  # two pools on 2 map slots
    h.advance(120.0)  # twice the timeout below half the fair share
    assert h.tasks_to_preempt("pool2") == both(0)  # MAPREDUCE-5822's rule: {"map": 1, ...}
    assert h.preempt() == []
    assert h.running(j1)["map"] == 2

    # the same with 2 trackers (fair share 2 each): floor(2 / 2) = 1, so pool2 is starved and preempts
    h = F1(nodes=2, preemption=True,
           allocations="<allocations><fairSharePreemptionTimeout>60</fairSharePreemptionTimeout></allocations>")
    h.submit(10, 0, pool="pool1")
    h.advance(0.1)
    assert hb_seq(h, tt(1), 2) == [m(1, 0), m(1, 1)]
    h.advance(0.1)
    assert hb_seq(h, tt(2), 2) == [m(1, 2), m(1, 3)]
    h.advance(0.1)
    h.submit(10, 0, pool="pool2")
    h.advance(0.1)
    assert h.shares()["pools"]["pool2"]["map"] == 2.0
    h.advance(61.0)
    assert h.tasks_to_preempt("pool2") == mr(2, 0)  # owed up to min(fair share, demand)
