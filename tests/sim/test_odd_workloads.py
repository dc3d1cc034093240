"""Simulator correctness under odd workloads (issue 25): jobs after idle gaps, maps with
their own sizes, the order of a job's events in resource mode, tasks far longer than the
update interval, and clusters where nothing can ever run.  The workloads are files under
``tests/data/issue25``."""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import DATA, EXAMPLES

from corescheduler.config import Config
from corescheduler.core.model import JobSpec, TaskSpec
from corescheduler.formats.workloads import Workload, load_workload
from corescheduler.hookspecs import hookimpl
from corescheduler.resources import Resources
from corescheduler.sim.simulator import Simulation

FILES = DATA / "issue25"


def _config(name: str, **simulation: Any) -> Config:
    text = (FILES / name).read_text()
    if simulation:  # added to (or replacing keys of) the file's [simulation]
        text = "".join(line for line in text.splitlines(keepends=True) if line.split(" =")[0] not in simulation)
        if "[simulation]" not in text:
            text += "\n[simulation]\n"
        text += "".join(f"{k} = {json.dumps(v) if not isinstance(v, float) else repr(v)}\n"
                        for k, v in simulation.items())
    return Config.from_toml(text, str(FILES / name))


def _run(config: Config, workload: str | Workload, seed: int = 0) -> Any:
    if isinstance(workload, str):
        workload = load_workload(FILES / workload, config=config, seed=seed)
    return Simulation(config, workload, seed).run()


def _lines(result: Any) -> list[str]:
    return [json.dumps(e, separators=(",", ":")) for e in result.event_list]


# ---------------------------------------------------------------- item 1: a job after an idle gap
@pytest.mark.parametrize("config", ["locality-slots.toml", "resources.toml"])
@pytest.mark.parametrize("workload", ["late-job.json", "late-job-1e6.json", "late-job-alone.json", "late-job.tsv",
                                      "late-job-sls.json"])
def test_a_job_submitted_after_an_idle_gap_runs(config: str, workload: str) -> None:
    """The stall timer counted the idle gap before the job as its wait: the first update after
    the submission gave up before the first heartbeat (exit 0, the job unfinished)."""
    result = _run(_config(config), workload)
    summary = result.metrics["summary"]
    assert summary["unfinished_jobs"] == 0 and summary["finished_jobs"] == summary["jobs"]
    late = [e["type"] for e in result.event_list if e.get("job") == "late" and e["type"] != "task_finish"]
    assert late[:2] == ["job_submit", "job_start"] and "task_start" in late and late[-1] == "job_finish"


def test_the_stall_timer_still_gives_up_on_a_job_that_cannot_run() -> None:
    """A job that can never run (its pool runs no job) stops the run stall_timeout after its
    submission, not after the last task before it; the every-update reference stops at the
    same tick, with the same events."""
    from corescheduler.formats.allocation_file import parse_allocations

    alloc = "<allocations><pool name='capped'><maxRunningJobs>0</maxRunningJobs></pool></allocations>"
    jobs = [JobSpec(maps=[TaskSpec(10.0)], id="early", submit=0.0, user="a"),
            JobSpec(maps=[TaskSpec(10.0)], id="never", submit=4000.0, user="a", pool="capped")]
    ends = []
    for skip in (True, False):
        config = _config("locality-slots.toml", stall_timeout=100.0, skip_idle_updates=skip,
                         skip_idle_heartbeats=skip)
        sim = Simulation(config, Workload(jobs, source="<t>", name="t"), 0,
                         allocations=parse_allocations(alloc, "<t>"))
        result = sim.run()
        assert sim.stalled and result.metrics["unfinished"] == ["never"]
        ends.append((result.sim_time, _lines(result)))
    assert ends[0] == ends[1]
    assert 4100.0 < ends[0][0] <= 4101.0


# ---------------------------------------------------------------- item 2: a map's own size
@pytest.mark.parametrize("workload", ["map-resources.json", "map-resources-sls.json"])
def test_a_map_runs_at_its_own_size_with_or_without_input_nodes(workload: str) -> None:
    result = _run(_config("resources.toml"), workload)
    sizes = [e["resources"] for e in result.event_list if e["type"] == "task_start" and e["kind"] == "map"]
    want = {"memory": 4096, "vcores": 3} if workload.endswith("resources.json") else {"memory": 2048, "vcores": 2}
    assert sizes == [want, want]


def test_placing_replicas_keeps_every_field_of_a_map() -> None:
    """The simulator rebuilds a map without input nodes to place replicas: every other field of
    TaskSpec survives (a field added later is checked too)."""
    values = {"duration": 7.0, "copy_duration": 2.0, "resources": Resources.of({"memory": 4096, "vcores": 3}),
              "relax_locality": False, "priority": 3}
    unknown = {f.name for f in attrs.fields(TaskSpec)} - set(values) - {"input_nodes"}
    assert not unknown, f"give the new TaskSpec field(s) {unknown} a value here"
    config = _config("resources.toml")
    sim = Simulation(config, Workload([], source="<t>", name="t"), 0)
    spec = JobSpec(maps=[TaskSpec(**values)], id="j", submit=0.0)
    (placed,) = sim._prepare(spec).maps
    assert placed.input_nodes
    assert {name: getattr(placed, name) for name in values} == values


# ---------------------------------------------------------------- item 3: job_submit first
def _first_of_each_job(events: list[dict[str, Any]]) -> dict[str, str]:
    first: dict[str, str] = {}
    for e in events:
        if "job" in e:
            first.setdefault(e["job"], e["type"])
    return first


@pytest.mark.parametrize("config", ["locality-slots.toml", "resources.toml"])
def test_a_jobs_submit_event_comes_before_anything_else_of_it(config: str, tmp_path) -> None:
    cfg = _config(config)
    workload = load_workload(FILES / "late-job-sls.json", config=cfg)
    Simulation(cfg, workload, 0, out_dir=tmp_path).run()
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert set(_first_of_each_job(events).values()) == {"job_submit"}


def test_the_harness_writes_job_submit_first_in_resource_mode() -> None:
    from corescheduler.testing import ClusterHarness

    h = ClusterHarness(racks=1, nodes_per_rack=2, config='[scheduler]\nmode = "resources"\n',
                       node_resources="4096 mb, 4 vcores")
    h.submit_app(tasks=2, resources="1024 mb, 1 vcores")
    assert set(_first_of_each_job(h.events).values()) == {"job_submit"}
    assert [e["type"] for e in h.events][:2] == ["job_submit", "job_start"]


# ---------------------------------------------------------------- item 6: long tasks
class _CountUpdates:
    def __init__(self) -> None:
        self.updates = 0

    @hookimpl
    def cs_update(self, pools: Any, now: float) -> None:
        self.updates += 1


def _long_maps(duration: float, mode: str) -> tuple[int, int, dict[str, Any]]:
    """20 maps of ``duration`` on 8 slots (8 containers of 1024 MB): engine events, updates, summary."""
    counter = _CountUpdates()
    if mode == "slots":
        text = "[scheduler]\nlisteners = [\"count\"]\n[cluster]\nracks = 1\nnodes_per_rack = 4\nmap_slots = 2\n"
    else:
        text = ("[scheduler]\nmode = \"resources\"\nlisteners = [\"count\"]\n[cluster]\nracks = 1\n"
                "nodes_per_rack = 4\nnode_resources = \"2048 mb, 2 vcores\"\n")
    wl = Workload([JobSpec(maps=[TaskSpec(duration) for _ in range(20)], id="long", submit=0.0, user="u")],
                  source="<t>", name="long")
    result = Simulation(Config.from_toml(text, "<t>"), wl, 0, extra_plugins={"count": counter}).run()
    return result.engine_events, counter.updates, result.metrics["summary"]


@pytest.mark.parametrize("mode", ["slots", "resources"])
def test_long_tasks_cost_events_not_simulated_time(mode: str) -> None:
    """With more tasks than slots an update ran every 0.5 s while no slot could free: 20 maps of
    10⁹ s cost as many engine events and updates as 20 maps of 10 s."""
    short_events, short_updates, summary = _long_maps(10.0, mode)
    assert summary["finished_jobs"] == 1
    for duration in (1e5, 1e9, 1e17):  # 1e17: beyond 2**53 half-second ticks (the clock stuck at 1e16)
        events, updates, summary = _long_maps(duration, mode)
        assert summary["finished_jobs"] == 1 and summary["makespan"] >= 3 * duration
        assert events <= short_events and updates <= short_updates


def _example_config(**replace: str) -> str:
    """The bundled example config (fair, preemption, new_job_booster, delay, cap_based)
    shrunk to 1 rack of 4 nodes of 2 map slots, its allocation file by its full path;
    ``replace`` sets more ``key = value`` lines (a key of the file replaced)."""
    text = (EXAMPLES / "corescheduler.toml").read_text()
    lines = {"racks": "1", "nodes_per_rack": "4",
             "allocation_file": json.dumps(str(EXAMPLES / "allocations.xml")), **replace}
    out = []
    for line in text.splitlines():
        key = line.split(" =")[0].strip()
        out.append(f"{key} = {lines[key]}" if key in lines and " =" in line else line)
    return "\n".join(out) + "\n"


def _long_maps_preempting(duration: float) -> tuple[int, int, dict[str, Any]]:
    """:func:`_long_maps` under the example config (preemption on): 20 maps on 8 slots."""
    counter = _CountUpdates()
    text = _example_config().replace("[scheduler]\n", "[scheduler]\nlisteners = [\"count\"]\n", 1)
    config = Config.from_toml(text, str(EXAMPLES / "corescheduler.toml"))
    assert config.scheduler.preemption
    wl = Workload([JobSpec(maps=[TaskSpec(duration) for _ in range(20)], id="long", submit=0.0, user="u")],
                  source="<t>", name="long")
    result = Simulation(config, wl, 0, extra_plugins={"count": counter}).run()
    return result.engine_events, counter.updates, result.metrics["summary"]


def test_long_tasks_cost_events_not_simulated_time_with_preemption_on() -> None:
    """Preemption on (the example config): updates still ran every 0.5 s while tasks waited,
    since a check between could kill for a starved pool — 20 maps of 10⁹ s never ended.  No
    pool can be starved here (the one running pool is at its share), so they cost as many
    engine events and updates as 20 maps of 10 s."""
    short_events, short_updates, summary = _long_maps_preempting(10.0)
    assert summary["finished_jobs"] == 1
    counts = []
    for duration in (1e5, 1e9, 1e17):
        events, updates, summary = _long_maps_preempting(duration)
        assert summary["finished_jobs"] == 1 and summary["makespan"] >= 3 * duration
        # one event more at most: the delay plugin's look at the pool's starvation timeout
        # (300 s after the last update before it), which 10-s maps finish before
        assert events <= short_events + 1 and updates <= short_updates
        counts.append((events, updates))
    assert counts[0] == counts[1]  # 10⁴ times longer, not one event or update more


# ---------------------------------------------------------------- item 7: nothing can ever run
@pytest.mark.parametrize("workload", ["late-job.json", "late-job-sls.json"])
def test_no_slots_and_no_stall_timeout_ends_with_the_jobs_unfinished(workload: str) -> None:
    result = _run(_config("no-slots.toml"), workload)
    assert result.metrics["unfinished"] == ["early", "late"] and result.engine_events < 20


def test_an_update_interval_beyond_the_run_means_no_periodic_updates() -> None:
    result = _run(_config("no-slots.toml", update_interval=1e300), "late-job.json")
    assert result.metrics["unfinished"] == ["early", "late"]
    result = _run(_config("locality-slots.toml", update_interval=1e300), "late-job.json")
    assert result.metrics["summary"]["finished_jobs"] == 2


def test_a_finite_stall_timeout_with_no_slots_stops_where_the_reference_stops() -> None:
    runs = [
        _run(_config("no-slots.toml", stall_timeout=100.0, skip_idle_updates=skip, skip_idle_heartbeats=skip),
             "late-job.json")
        for skip in (True, False)
    ]
    assert _lines(runs[0]) == _lines(runs[1]) and runs[0].metrics == runs[1].metrics
    assert runs[0].sim_time == runs[1].sim_time == 4100.5
    assert runs[0].engine_events < 10 < runs[1].engine_events


# ---------------------------------------------------------------- property: against the reference
#: The reference beats every node with a free slot at every tick and runs every update, so its
#: cost follows simulated time: the cases are scaled down to match (a stall timer of 200 s,
#: gaps and tasks up to 1,000 s), keeping what matters here — gaps longer than the stall
#: timer and tasks far longer than the update and heartbeat intervals.
def _case_config(mode: str, selector: str, racks: int, nodes: int, reference: bool) -> Config:
    skip = str(not reference).lower()
    if mode == "slots":
        head = f'[scheduler]\ntask_selector = "{selector}"\n[cluster]\nmap_slots = 2\nreduce_slots = 1\n'
    else:
        head = '[scheduler]\nmode = "resources"\n[cluster]\nnode_resources = "3072 mb, 3 vcores"\n'
    return Config.from_toml(
        head + f"racks = {racks}\nnodes_per_rack = {nodes}\nheartbeat_interval = 3.0\nreplication = 1\n"
        f"[simulation]\nstall_timeout = 200\nupdate_interval = 1.0\nskip_idle_heartbeats = {skip}\n"
        f"skip_idle_updates = {skip}\n",
        "<property>",
    )


_durations = st.sampled_from([1.0, 2.5, 10.0, 300.0, 1000.0])
_job = st.tuples(
    st.sampled_from([0.0, 0.7, 5.0, 201.0, 250.0, 1000.0]),  # the gap after the job before
    st.lists(_durations, min_size=1, max_size=4),  # maps
    st.lists(_durations, max_size=2),  # reduces
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    jobs=st.lists(_job, min_size=1, max_size=4),
    mode=st.sampled_from(["slots", "resources"]),
    selector=st.sampled_from(["locality", "delay"]),
    racks=st.integers(1, 2),
    nodes=st.integers(1, 2),
    seed=st.integers(0, 3),
)
def test_random_idle_gaps_and_long_tasks_finish_as_the_reference_does(
    jobs: list[tuple[float, list[float], list[float]]], mode: str, selector: str, racks: int, nodes: int, seed: int
) -> None:
    """Every job finishes (each can run), and the events are the reference's, byte for byte."""
    specs, submit = [], 0.0
    for i, (gap, maps, reduces) in enumerate(jobs):
        submit += gap
        specs.append(JobSpec(maps=[TaskSpec(d) for d in maps], reduces=[TaskSpec(d) for d in reduces],
                             id=f"j{i}", submit=submit, user=f"u{i % 2}"))
    fast, ref = (
        Simulation(_case_config(mode, selector, racks, nodes, reference), Workload(specs, source="<p>", name="p"),
                   seed).run()
        for reference in (False, True)
    )
    assert fast.metrics["summary"]["unfinished_jobs"] == 0 and fast.metrics["summary"]["finished_jobs"] == len(specs)
    assert _lines(fast) == _lines(ref)
    assert fast.engine_events <= ref.engine_events


# ---------------------------------------------------------------- property: preemption on, against the reference
def _preempt_config(selector: str, booster: bool, nodes: int, reference: bool) -> Config:
    """Preemption on, two pools with min shares and timeouts (``preempt-allocations.xml``):
    checks every 5 s, so that the skipped updates between events meet starvation."""
    skip = str(not reference).lower()
    adjusters = '["new_job_booster"]' if booster else "[]"
    return Config.from_toml(
        f'[scheduler]\nallocation_file = "preempt-allocations.xml"\ntask_selector = "{selector}"\n'
        f"weight_adjusters = {adjusters}\npreemption = true\npreemption_interval = 5.0\n"
        f"update_interval = 1.0\n[plugins.new_job_booster]\nduration = 30.0\n"
        f"[cluster]\nracks = 1\nnodes_per_rack = {nodes}\nmap_slots = 2\nreduce_slots = 1\n"
        f"heartbeat_interval = 3.0\nreplication = 1\n"
        f"[simulation]\nstall_timeout = 200\nskip_idle_heartbeats = {skip}\nskip_idle_updates = {skip}\n",
        str(FILES / "preempt.toml"),
    )


def _preempt_pair(jobs: list[tuple[float, str, list[float], list[float]]], selector: str, booster: bool,
                  nodes: int, seed: int) -> tuple[Any, Any]:
    specs, submit = [], 0.0
    for i, (gap, pool, maps, reduces) in enumerate(jobs):
        submit += gap
        specs.append(JobSpec(maps=[TaskSpec(d) for d in maps], reduces=[TaskSpec(d) for d in reduces],
                             id=f"j{i}", submit=submit, user=f"u{i % 2}", pool=pool))
    fast, ref = (
        Simulation(_preempt_config(selector, booster, nodes, reference), Workload(specs, source="<p>", name="p"),
                   seed).run()
        for reference in (False, True)
    )
    return fast, ref


def test_preemption_after_skipped_updates_is_the_references() -> None:
    """Pool b fills the cluster with long maps; pool a comes later and is starved: its
    min-share timeout passes while no task can launch, and the check kills for it at the tick
    the reference kills at (the skip stops where a pool can first be starved)."""
    jobs = [(0.0, "b", [500.0] * 8, []), (7.0, "a", [100.0] * 4, [50.0]), (3.0, "b", [1000.0] * 2, [])]
    for selector in ("locality", "delay"):
        for booster in (False, True):
            fast, ref = _preempt_pair(jobs, selector, booster, 2, 0)
            assert any(e["type"] == "task_preempt" for e in ref.event_list)
            assert _lines(fast) == _lines(ref)
            assert fast.metrics["summary"]["finished_jobs"] == 3
            assert fast.engine_events < ref.engine_events


_preempt_job = st.tuples(
    st.sampled_from([0.0, 0.7, 5.0, 30.0, 250.0]),  # the gap after the job before
    st.sampled_from(["a", "b", "default"]),
    st.lists(st.sampled_from([1.0, 10.0, 90.0, 300.0, 1000.0]), min_size=1, max_size=6),  # maps
    st.lists(st.sampled_from([5.0, 300.0]), max_size=2),  # reduces
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    jobs=st.lists(_preempt_job, min_size=1, max_size=4),
    selector=st.sampled_from(["locality", "delay"]),
    booster=st.booleans(),
    nodes=st.integers(1, 3),
    seed=st.integers(0, 3),
)
def test_random_workloads_with_preemption_on_are_the_references(
    jobs: list[tuple[float, str, list[float], list[float]]], selector: str, booster: bool, nodes: int, seed: int
) -> None:
    """Preemption on: the events are the every-update reference's, byte for byte, preempted
    tasks included, and the skips cost no more engine events than the reference."""
    fast, ref = _preempt_pair(jobs, selector, booster, nodes, seed)
    assert _lines(fast) == _lines(ref)
    assert fast.metrics["summary"]["finished_jobs"] == len(jobs)
    assert fast.engine_events <= ref.engine_events
