"""Fair scheduler and delay scheduling: where a review against Hadoop 1.x's
source found corescheduler doing something else (issue: "Fidelity").

Each test names the Hadoop method whose behaviour it pins; the Hadoop 1.x
``src/contrib/fairscheduler`` classes (``FairScheduler``, ``PoolSchedulable``,
``SchedulingAlgorithms``) and ``JobInProgress`` / ``JobTracker``.
"""

from __future__ import annotations

import pytest

from corescheduler.config import ClusterConfig, Config
from corescheduler.testing import ClusterHarness


def tasks(assignments):
    return [a.task for a in assignments]


def harness(config: str = "", allocations: str | None = None, racks: int = 2, nodes: int = 2) -> ClusterHarness:
    h = ClusterHarness(racks=racks, nodes_per_rack=nodes, map_slots=2, reduce_slots=2, config=config,
                       allocations=allocations)
    h.advance(0.1)
    return h


DELAY = """
[scheduler]
task_selector = "delay"
load_manager = "slots"
preemption = {preemption}
[plugins.delay]
node_locality_delay = 5.0
rack_locality_delay = 10.0
{extra}
"""

TIMEOUTS = """<allocations>
  <pool name="pool1"><minSharePreemptionTimeout>30</minSharePreemptionTimeout></pool>
  <fairSharePreemptionTimeout>600</fairSharePreemptionTimeout>
</allocations>"""


# --------------------------------------------------------------------------- 1. starvation times


def test_without_preemption_a_pool_is_starved_once_its_timeout_passed_since_creation():
    """``FairScheduler.update`` calls ``updatePreemptionVariables`` only ``if
    (preemptionEnabled)``; ``getAllowedLocalityLevel`` then finds the pool's
    ``lastTimeAtMinShare`` still at its creation, past ``minSharePreemptionTimeout``,
    and lets the job launch anywhere at once."""
    h = harness(DELAY.format(preemption="false", extra=""), TIMEOUTS)
    h.advance(40.0)  # pool1 was created 40 s ago; its min share (0) was never "measured"
    h.submit(1, 0, pool="pool1", map_locations=[["n0003"]])
    got = h.heartbeat("n0000")
    assert tasks(got) == ["job_0001_m_000000"] and got[0].locality == "off"
    ps = h.scheduler.pools["pool1"].sched["map"]
    assert ps.last_time_at_min_share == 0.0 and ps.last_time_at_half_fair_share == 0.0


def test_with_preemption_starvation_times_are_measured_and_delay_scheduling_waits():
    """``FairScheduler.updatePreemptionVariables`` with preemption on: pool1
    is at its (zero) min share at every update, so it is not starved and the
    job waits for locality (``getAllowedLocalityLevel`` returns NODE)."""
    h = harness(DELAY.format(preemption="true", extra=""), TIMEOUTS)
    h.advance(40.0)
    h.submit(1, 0, pool="pool1", map_locations=[["n0003"]])
    assert h.heartbeat("n0000") == []
    assert h.scheduler.pools["pool1"].sched["map"].last_time_at_min_share == pytest.approx(40.1)


def test_delay_starvation_measured_keeps_delay_scheduling_without_preemption():
    """Our deviation on request (``[plugins.delay] starvation = "measured"``):
    starvation times measured as ``updatePreemptionVariables`` would, with
    preemption off, so delay scheduling keeps working."""
    h = harness(DELAY.format(preemption="false", extra='starvation = "measured"'), TIMEOUTS)
    h.advance(40.0)
    h.submit(1, 0, pool="pool1", map_locations=[["n0003"]])
    assert h.heartbeat("n0000") == []


def test_delay_starvation_setting_is_checked():
    with pytest.raises(Exception, match=r"starvation"):
        harness(DELAY.format(preemption="false", extra='starvation = "sometimes"'))


# --------------------------------------------------------------------------- 2. killed maps


def test_a_killed_map_runs_first_and_anywhere_under_delay_scheduling():
    """``JobInProgress.failedTask`` → ``failMap`` puts a killed map in
    ``failedMaps``; ``findNewMapTask`` takes ``failedMaps`` before any cache
    lookup, whatever the locality level ``getAllowedLocalityLevel`` allows, and
    ``updateLastMapLocalityLevel`` sets the job's level from that launch."""
    h = harness(DELAY.format(preemption="false", extra=""))
    job = h.submit(2, 0, pool="pool1", map_locations=[["n0003"], ["n0003"]])
    first = h.heartbeat("n0003")
    assert tasks(first) == ["job_0001_m_000000"]
    h.kill(first[0])
    got = h.heartbeat("n0000")  # another rack; the job last launched node-local and waited 0 s
    assert tasks(got) == ["job_0001_m_000000"] and got[0].locality == "off"
    st = h.scheduler.plugins.instances["delay"].state(job.id)
    assert (st.last_level, st.waited) == ("off", 0.0)


def test_a_killed_map_comes_before_a_node_local_one():
    """``JobInProgress.findNewMapTask``: step 0 (``failedMaps``) comes before
    the node-local cache, with the greedy selector too
    (``obtainNewMapTask``)."""
    h = harness('[scheduler]\ntask_selector = "locality"\nload_manager = "slots"\n')
    h.submit(2, 0, pool="pool1", map_locations=[["n0000"], ["n0001"]])
    first = h.heartbeat("n0000")
    assert tasks(first) == ["job_0001_m_000000"]
    h.kill(first[0])
    got = h.heartbeat("n0001")
    assert tasks(got) == ["job_0001_m_000000"] and got[0].locality == "rack"
    assert tasks(h.heartbeat("n0001")) == ["job_0001_m_000001"]


def test_killed_maps_come_lowest_index_first():
    """``JobInProgress.failComparator``: most failures first, then task id; a
    preempted (killed) attempt is not a failure, so lowest index first."""
    h = harness('[scheduler]\ntask_selector = "locality"\nload_manager = "slots"\n')
    h.submit(3, 0, pool="pool1", map_locations=[["n0000"], ["n0000"], ["n0001"]])
    a = h.heartbeat("n0000")
    b = h.heartbeat("n0000")
    h.kill(b[0])
    h.kill(a[0])
    assert tasks(h.heartbeat("n0001")) == ["job_0001_m_000000"]
    assert tasks(h.heartbeat("n0001")) == ["job_0001_m_000001"]


# --------------------------------------------------------------------------- 3./4. defaults


def test_defaults_are_hadoops():
    """``FairScheduler.start``: ``assignmultiple`` true, ``CapBasedLoadManager``,
    delay scheduling always on (``JobSchedulable.assignTask``) with waits of
    min(15 s, 1.5 × the heartbeat interval) (``MAX_AUTOCOMPUTED_LOCALITY_DELAY``)."""
    sc = Config.from_dict({}).scheduler
    assert (sc.assign_multiple, sc.load_manager, sc.task_selector) == (True, "cap_based", "delay")
    assert (sc.preemption, sc.share_policy, sc.reduce_slowstart) == (False, "fair", 0.05)
    h = ClusterHarness(config={"scheduler": {"assign_multiple": True}})
    delay = h.scheduler.plugins.instances["delay"]
    assert (delay.node_delay, delay.rack_delay) == (4.5, 4.5)
    assert "cap_based" in h.scheduler.plugins.instances


def test_the_bundled_example_runs_hadoops_defaults():
    """The example config behaves as Hadoop 1.x does out of the box: the load
    manager, task selector, assign-multiple and locality delays are Hadoop's."""
    from importlib.resources import files

    text = (files("corescheduler_examples") / "corescheduler.toml").read_text(encoding="utf-8")
    sc = Config.from_toml(text, "corescheduler.toml").scheduler
    assert (sc.assign_multiple, sc.load_manager, sc.task_selector) == (True, "cap_based", "delay")
    assert "[plugins.delay]" not in text.replace("# [plugins.delay]", "")


def test_one_delay_set_means_both_are_computed(caplog):
    """``FairScheduler.start``: if either locality delay is unset, both are
    auto-computed (``autoComputeLocalityDelay``), the one set included."""
    h = ClusterHarness(config='[scheduler]\ntask_selector = "delay"\n[plugins.delay]\nnode_locality_delay = 5.0\n')
    delay = h.scheduler.plugins.instances["delay"]
    assert (delay.node_delay, delay.rack_delay) == (4.5, 4.5)
    assert "both delays are then computed" in caplog.text
    h = ClusterHarness(config='[scheduler]\ntask_selector = "delay"\n[plugins.delay]\n'
                              'node_locality_delay = 5.0\nrack_locality_delay = 7.0\n')
    delay = h.scheduler.plugins.instances["delay"]
    assert (delay.node_delay, delay.rack_delay) == (5.0, 7.0)


# --------------------------------------------------------------------------- 5. off-rack choice


def test_off_rack_maps_with_a_location_come_before_maps_with_none():
    """``JobInProgress.findNewMapTask``: after the node and rack caches, the
    caches of the other racks (``nodesAtMaxLevel``), and only then
    ``nonLocalMaps`` (maps with no input location)."""
    h = harness('[scheduler]\ntask_selector = "locality"\nload_manager = "slots"\n')
    h.submit(3, 0, pool="pool1", map_locations=[[], ["n0003"], []])
    got = h.heartbeat("n0000")  # rack r00; map 1's input is on r01
    assert tasks(got) == ["job_0001_m_000001"] and got[0].locality == "off"
    assert tasks(h.heartbeat("n0000")) == ["job_0001_m_000000"]


def test_pending_maps_with_no_location_stop_delay_scheduling_only_while_pending():
    """``FairScheduler.getAllowedLocalityLevel``: ``job.nonLocalMaps.size() > 0``
    means ANY; ``findTaskFromList`` removes a map from ``nonLocalMaps`` when it
    launches, so once they all run the job waits for locality again."""
    h = harness(DELAY.format(preemption="false", extra=""))
    job = h.submit(3, 0, pool="pool1", map_locations=[["n0003"], [], ["n0003"]])
    delay = h.scheduler.plugins.instances["delay"]
    assert job.unlocated_pending == 1 and delay.allowed_level(job, h.clock) == "off"
    # ANY: other racks' maps first, then the one with no location
    assert tasks(h.heartbeat("n0000")) == ["job_0001_m_000000"]
    assert tasks(h.heartbeat("n0000")) == ["job_0001_m_000002"]
    assert tasks(h.heartbeat("n0001")) == ["job_0001_m_000001"]
    assert job.unlocated_pending == 0
    h.kill("job_0001_m_000001")  # pending again: nonLocalMaps is not empty again
    assert job.unlocated_pending == 1
    h.heartbeat("n0001")
    assert job.unlocated_pending == 0
    delay.state(job.id).last_level = "node"  # as after a node-local launch
    assert delay.allowed_level(job, h.clock) == "node"


# --------------------------------------------------------------------------- 6. running vs runnable


def test_a_pool_lowered_below_what_it_runs_does_not_stop_the_others():
    """``FairScheduler.assignTasks`` stops a kind only when ``runningMaps ==
    runnableMaps``; ``runnableMaps`` is the pools' demands capped at maxMaps
    (``PoolSchedulable.updateDemand``), so after a reload lowers a pool's
    maxMaps below what it runs the other pools still get maps."""
    h = harness('[scheduler]\ntask_selector = "locality"\nload_manager = "slots"\nassign_multiple = true\n',
                "<allocations><pool name='a'><maxMaps>4</maxMaps></pool></allocations>")
    h.submit(4, 0, pool="a")
    assert len(h.heartbeat("n0000")) == 2 and len(h.heartbeat("n0001")) == 2
    h.set_allocations("<allocations><pool name='a'><maxMaps>1</maxMaps></pool></allocations>")
    h.submit(2, 0, pool="b")
    h.advance(0.1)
    assert h.scheduler.pending_work("map") == 2  # runnable 1 + 2 = 3, running 4: not equal
    got = h.heartbeat("n0002")
    assert tasks(got) == ["job_0002_m_000000", "job_0002_m_000001"]


# --------------------------------------------------------------------------- 7. zero weight


def test_a_weight_zero_pool_with_nothing_running_is_not_served_first():
    """``SchedulingAlgorithms.FairShareComparator``: ``runningTasks / weight``
    is NaN (0/0) or ∞ for a weight-0 pool, never below a non-needy pool's ratio."""
    h = harness('[scheduler]\ntask_selector = "locality"\nload_manager = "slots"\n',
                "<allocations><pool name='zero'><weight>0</weight></pool></allocations>")
    h.submit(4, 0, pool="p")
    assert tasks(h.heartbeat("n0000")) == ["job_0001_m_000000"]
    h.submit(4, 0, pool="zero")
    assert tasks(h.heartbeat("n0001")) == ["job_0001_m_000001"]
    assert tasks(h.heartbeat("n0002")) == ["job_0001_m_000002"]


# --------------------------------------------------------------------------- 8. slow start


def test_reduce_slow_start_is_computed_in_float():
    """``JobInProgress``: ``completedMapsForReduceSlowstart = (int)
    Math.ceil(conf.getFloat(...) * numMapTasks)`` — 0.3f × 50 is 15.000001f,
    so 16 maps must finish, not 15."""
    h = harness('[scheduler]\ntask_selector = "locality"\nload_manager = "slots"\nreduce_slowstart = 0.3\n',
                racks=10, nodes=5)
    job = h.submit(50, 1, pool="p")
    assert job.slowstart_maps == 16
    running = []
    for n in range(50):
        running += h.heartbeat(f"n{n:04d}")
    maps = [t for t in running if t.kind == "map"]
    for t in maps[:15]:
        h.finish(t)
    assert not job.reduces_schedulable and job.demand("reduce") == 0
    h.finish(maps[15])
    assert job.reduces_schedulable


# --------------------------------------------------------------------------- 9. heartbeat interval


def test_heartbeat_interval_is_whole_milliseconds_without_ceil():
    """``JobTracker.getNextHeartbeatInterval``: max(``HEARTBEAT_INTERVAL_MIN``,
    ``(int) (1000 × nodes / mapred.heartbeats.in.second)``) milliseconds."""
    cc = ClusterConfig(heartbeats_per_second=100)
    assert cc.next_heartbeat_interval(350) == 3.5
    assert cc.next_heartbeat_interval(200) == 3.0
    assert cc.next_heartbeat_interval(3001) == 30.01
    assert ClusterConfig(heartbeats_per_second=7).next_heartbeat_interval(50) == 7.142


def test_auto_delay_follows_the_heartbeat_interval():
    """``FairScheduler.update``: with ``autoComputeLocalityDelay`` the delays are
    min(15 s, 1.5 × ``getNextHeartbeatInterval()``) at every update."""
    h = ClusterHarness(racks=35, nodes_per_rack=10,
                       config='[scheduler]\ntask_selector = "delay"\n[cluster]\nheartbeats_per_second = 100\n')
    h.advance(0.5)
    delay = h.scheduler.plugins.instances["delay"]
    assert (delay.node_delay, delay.rack_delay) == (5.25, 5.25)
    assert h.scheduler.heartbeat_interval() == 3.5
    big = Config.from_dict({"cluster": {"racks": 150, "nodes_per_rack": 20, "heartbeats_per_second": 100}})
    assert big.cluster.next_heartbeat_interval(3000) == 30.0


# --------------------------------------------------------------------------- 11. MAPREDUCE-4556


def test_job_demands_keep_updating_past_the_pool_cap():
    """Deliberate deviation: Hadoop 1.2's ``PoolSchedulable.updateDemand``
    stops updating its jobs' demands once the pool's demand reaches maxMaps
    (MAPREDUCE-4556), leaving later jobs' demands stale.  Ours updates every
    job and caps only the pool's demand."""
    h = harness('[scheduler]\ntask_selector = "locality"\nload_manager = "slots"\n',
                "<allocations><pool name='a'><maxMaps>2</maxMaps></pool></allocations>")
    j1 = h.submit(5, 0, pool="a")
    j2 = h.submit(5, 0, pool="a")
    h.advance(0.1)
    assert h.demand(j1)["map"] == 5 and h.demand(j2)["map"] == 5
    assert h.demand("a")["map"] == 2


# --------------------------------------------------------------------------- 10. skipped heartbeats


def _random_workload(seed: int):
    import random

    from corescheduler.core.model import JobSpec, TaskSpec
    from corescheduler.formats.workloads import Workload

    rng = random.Random(seed)
    nodes = [f"n{i:04d}" for i in range(8)]
    specs = []
    for j in range(30):
        maps = [TaskSpec(rng.uniform(1, 20), tuple(rng.sample(nodes, 2))) for _ in range(rng.randint(1, 12))]
        reduces = [TaskSpec(rng.uniform(2, 15)) for _ in range(rng.randint(0, 3))]
        specs.append(JobSpec(maps=maps, reduces=reduces, id=f"j{j:03d}", submit=round(rng.uniform(0, 60), 3),
                             pool=f"p{j % 3}", user=f"u{j % 4}"))
    specs.sort(key=lambda s: (s.submit, s.id))
    return Workload(jobs=tuple(specs), source="<test>", name="test")


def _events(skip: bool, seed: int) -> list[str]:
    import json

    from corescheduler.sim.simulator import Simulation

    config = Config.from_toml(f"""
[scheduler]
preemption = true
preemption_interval = 5.0
[cluster]
racks = 2
nodes_per_rack = 4
map_slots = 2
reduce_slots = 1
[simulation]
skip_idle_heartbeats = {str(skip).lower()}
""", "<test>")
    result = Simulation(config, _random_workload(seed), seed).run()
    return [json.dumps(e, separators=(",", ":")) for e in result.event_list]


def test_skipping_idle_heartbeats_changes_no_decision(monkeypatch):
    """``FairScheduler.assignTasks`` begins with ``updateLocalityWaitTimes`` on
    every heartbeat of a TaskTracker with a free slot, ending the wait credit
    of the jobs skipped at the last heartbeat.  The simulator skips heartbeats
    that cannot assign anything, but delivers those delay scheduling needs
    (``cs_select_hint``'s ``NOT_OFFERED``): the events are byte for byte those of a run
    that beats every node with a free slot at every tick.  Without the idle
    heartbeats some runs differ (a skipped job keeps earning credit)."""
    seeds = range(6)
    for seed in seeds:
        assert _events(True, seed) == _events(False, seed), f"seed {seed}"
    from corescheduler_plugins.delay import DelayScheduling

    from corescheduler import hookimpl

    # delay scheduling never asks for an idle heartbeat (the plugin, not the Scheduler, is
    # patched: a compiled Scheduler's methods cannot be)
    real = DelayScheduling.cs_select_hint

    def never_idle(self, job, kind, now):  # type: ignore[no-untyped-def]
        hint = real(self, job, kind, now)
        return hint if hint is None else type(hint)(hint.level, hint.until, ())

    monkeypatch.setattr(DelayScheduling, "cs_select_hint", hookimpl(never_idle))
    assert any(_events(True, seed) != _events(False, seed) for seed in seeds)


@pytest.mark.slow
def test_the_bundled_example_gives_the_same_events_with_and_without_skipping():
    """The default ``corescheduler simulate`` run (``builtin:facebook``, delay
    scheduling, preemption), both ways."""
    import hashlib
    from importlib.resources import files

    from corescheduler.formats.workloads import load_workload
    from corescheduler.sim.simulator import Simulation, build_cluster

    digests = []
    for skip in (True, False):
        text = (files("corescheduler_examples") / "corescheduler.toml").read_text(encoding="utf-8")
        text = text.replace('allocation_file = "allocations.xml"', "")
        text += f"\n[simulation]\nskip_idle_heartbeats = {str(skip).lower()}\n"
        config = Config.from_toml(text, "corescheduler.toml")
        wl = load_workload("builtin:facebook", config=config, seed=3, nodes=list(build_cluster(config).nodes))
        events = Simulation(config, wl, 3).run().event_list
        digests.append(hashlib.sha256(repr(events).encode()).hexdigest())
    assert digests[0] == digests[1]


def _fuzz_case(seed: int) -> tuple[str, str, list]:
    """A random small cluster, configuration, allocation file and workload;
    half the cases use whole-second durations and submit times, so that
    finishes, submits and updates fall exactly on nodes' heartbeat ticks."""
    import random

    from corescheduler.core.model import JobSpec, TaskSpec

    rng = random.Random(seed)
    racks, npr = rng.choice([1, 2, 2, 3]), rng.choice([1, 2, 3, 4])
    hb = rng.choice([3.0, 3.0, 1.0, 0.5, 2.5, 0.7])
    integer = rng.random() < 0.5
    selector = rng.choice(["delay", "delay", "delay", "locality"])
    delays = rng.choice(["auto", (5.0, 10.0), (0.0, 0.0), (1.5, 0.0), (hb, hb), (2 * hb, 3 * hb)])
    lines = [
        "[scheduler]",
        f"preemption = {str(rng.random() < 0.5).lower()}",
        f"preemption_interval = {rng.choice([1.0, 5.0, 15.0])}",
        f'task_selector = "{selector}"',
        f'load_manager = "{rng.choice(["cap_based", "slots"])}"',
        f"assign_multiple = {str(rng.random() < 0.5).lower()}",
        f"reduce_slowstart = {rng.choice([0.05, 0.3, 1.0, 0.0])}",
        f"update_interval = {rng.choice([0.5, 0.5, 1.0, 0.25])}",
        "[cluster]", f"racks = {racks}", f"nodes_per_rack = {npr}",
        f"map_slots = {rng.choice([1, 2, 2, 3])}", f"reduce_slots = {rng.choice([1, 1, 2])}",
        f"heartbeat_interval = {hb}", "replication = 2",
    ]  # fmt: skip
    if selector == "delay":
        lines += ["[plugins.delay]", f'starvation = "{rng.choice(["hadoop", "measured"])}"']
        if delays != "auto":
            lines += [f"node_locality_delay = {delays[0]}", f"rack_locality_delay = {delays[1]}"]
    lines += ["[simulation]", "skip_idle_heartbeats = SKIP", "stall_timeout = 120"]
    alloc = "<allocations>"
    for pool in ("p0", "p1", "p2"):
        parts = []
        if rng.random() < 0.5:
            parts.append(f"<minMaps>{rng.randint(0, 4)}</minMaps>")
        if rng.random() < 0.3:
            parts.append(f"<minReduces>{rng.randint(0, 2)}</minReduces>")
        if rng.random() < 0.3:
            parts.append(f"<maxMaps>{rng.randint(1, 4)}</maxMaps>")
        if rng.random() < 0.3:
            parts.append(f"<weight>{rng.choice([0, 0.5, 2, 3])}</weight>")
        if rng.random() < 0.3:
            parts.append(f"<maxRunningJobs>{rng.randint(1, 3)}</maxRunningJobs>")
        if rng.random() < 0.5:
            parts.append(f"<minSharePreemptionTimeout>{rng.choice([1, 5, 10, 30])}</minSharePreemptionTimeout>")
        alloc += f"<pool name='{pool}'>{''.join(parts)}</pool>"
    if rng.random() < 0.5:
        alloc += f"<fairSharePreemptionTimeout>{rng.choice([2, 10, 20, 60])}</fairSharePreemptionTimeout>"
    alloc += "</allocations>"
    nodes = [f"n{i:04d}" for i in range(racks * npr)]
    span = rng.choice([10, 60, 200])

    def duration(lo: int, hi: int) -> float:
        return float(rng.randint(lo, hi)) if integer else rng.uniform(lo, hi)

    specs = []
    for j in range(rng.randint(5, 30)):
        maps = []
        for _ in range(rng.randint(1, 12)):
            k = rng.choice([1, 2, 2, 3]) if len(nodes) >= 3 else 1
            where = tuple(rng.sample(nodes, min(k, len(nodes)))) if rng.random() < 0.9 else ()
            maps.append(TaskSpec(duration(1, 20), where))
        reduces = [TaskSpec(duration(2, 15)) for _ in range(rng.randint(0, 3))]
        submit = float(rng.randint(0, span)) if integer else round(rng.uniform(0, span), 3)
        specs.append(JobSpec(maps=maps, reduces=reduces, id=f"j{j:03d}", submit=submit,
                             pool=rng.choice(["p0", "p1", "p2"]), user=f"u{rng.randint(0, 3)}",
                             priority=rng.choice(["NORMAL", "NORMAL", "HIGH", "LOW"])))
    specs.sort(key=lambda s: (s.submit, s.id))
    return "\n".join(lines) + "\n", alloc, specs


def _fuzz_events(seed: int, skip: bool) -> list[str]:
    import json

    from corescheduler.formats.allocation_file import parse_allocations
    from corescheduler.formats.workloads import Workload
    from corescheduler.sim.simulator import Simulation

    text, alloc, specs = _fuzz_case(seed)
    config = Config.from_toml(text.replace("SKIP", str(skip).lower()), "<fuzz>")
    workload = Workload(jobs=tuple(specs), source="<fuzz>", name="fuzz")
    result = Simulation(config, workload, seed, allocations=parse_allocations(alloc)).run()
    return [json.dumps(e, separators=(",", ":")) for e in result.event_list]


#: seeds that differed before the fixes: 0 (an idle node's tick picked on the
#: wrong side of the phase position after rounding), 12 (work appearing at the
#: exact instant of an idle node's tick, the tick lost), 128 and 178 (the wheel
#: of idle nodes starting after a node ticking right then); then more (seed 14
#: is left out: its reduces wait for ever on maps that cannot run, and the run
#: goes on until its clock is huge, with or without skipping)
FUZZ_SEEDS = [0, 12, 128, 178, *range(1, 14), *range(15, 19)]


@pytest.mark.slow
@pytest.mark.parametrize("seed", FUZZ_SEEDS)
def test_skipping_heartbeats_changes_no_decision_on_random_clusters(seed):
    """Random clusters, configurations and workloads (ties of finishes and
    ticks included): the events with skipped heartbeats are those of a run
    that beats every node with a free slot at every tick (Hadoop's
    TaskTrackers), byte for byte."""
    skip, every = _fuzz_events(seed, True), _fuzz_events(seed, False)
    first = next((i for i, (a, b) in enumerate(zip(skip, every)) if a != b), None)
    assert first is None and len(skip) == len(every), (
        f"seed {seed}: event {first}: {skip[first] if first is not None else ''} vs "
        f"{every[first] if first is not None else ''}"
    )
