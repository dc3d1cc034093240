"""The simulation engine: determinism, conservation, preemption, heartbeat economy."""

from __future__ import annotations

import random
from collections import defaultdict

import attrs
import pytest
from paths import EXAMPLES, SHARED

from corescheduler.config import Config
from corescheduler.core.model import JobSpec, TaskSpec
from corescheduler.errors import ConfigError
from corescheduler.formats.allocation_file import parse_allocations
from corescheduler.formats.workloads import Workload, load_workload
from corescheduler.sim.simulator import Simulation, SimulationOptions


def workload(jobs: list[JobSpec]) -> Workload:
    return Workload(jobs=tuple(sorted(jobs, key=lambda j: (j.submit, j.id))), source="<test>", name="test")


def random_workload(seed: int = 3, jobs: int = 25, nodes: int = 16) -> Workload:
    """Jobs of 1–40 maps (some with input on named nodes, some without) and 0–4 reduces."""
    rng = random.Random(seed)
    names = [f"n{i:04d}" for i in range(nodes)]
    specs = []
    t = 0.0
    for j in range(jobs):
        t += rng.expovariate(1 / 8.0)
        maps = []
        for _ in range(rng.choice([1, 2, 5, 12, 40])):
            located = rng.random() < 0.5
            maps.append(TaskSpec(round(rng.uniform(2, 20), 3), tuple(rng.sample(names, 3)) if located else ()))
        reduces = [
            TaskSpec(round(rng.uniform(5, 30), 3), copy_duration=None if rng.random() < 0.5 else 2.0)
            for _ in range(rng.choice([0, 0, 1, 4]))
        ]
        specs.append(
            JobSpec(maps=maps, reduces=reduces, user=f"u{j % 4}", pool=f"p{j % 3}", id=f"j{j:02d}", submit=round(t, 3))
        )
    return workload(specs)


def small_config(**scheduler: object) -> Config:
    return Config.from_dict(
        {
            "scheduler": {"assign_multiple": True, **scheduler},
            "cluster": {"racks": 2, "nodes_per_rack": 8, "map_slots": 2, "reduce_slots": 1},
            "simulation": {"phase_events": True},
        }
    )


def run(config: Config, wl: Workload, seed: int = 0, **kwargs: object):
    return Simulation(config, wl, seed, **kwargs).run()


# --------------------------------------------------------------------------- determinism


def test_same_seed_same_bytes_different_seed_different(tmp_path) -> None:
    wl = random_workload()
    config = small_config(task_selector="delay")
    paths = []
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        result = run(config, wl, seed, out_dir=tmp_path / name)
        paths.append(result.events_path.read_bytes())
        assert (tmp_path / name / "metrics.json").is_file()
    assert paths[0] == paths[1]
    assert paths[0] != paths[2]


def test_events_in_memory_without_out_dir() -> None:
    result = run(small_config(), random_workload(jobs=5))
    assert result.events_path is None
    assert result.event_list is not None and len(result.event_list) == result.events
    assert result.metrics["summary"]["finished_jobs"] == 5


# --------------------------------------------------------------------------- conservation


def check_conservation(events: list[dict], wl: Workload, config: Config) -> dict[str, int]:
    """Replay ``events`` and check the engine's invariants; returns event counts by type."""
    slots = {"map": config.cluster.map_slots, "reduce": config.cluster.reduce_slots}
    running: dict[tuple[str, str], int] = defaultdict(int)
    starts: dict[str, int] = defaultdict(int)
    ends: dict[str, int] = defaultdict(int)
    preempts: dict[str, int] = defaultdict(int)
    on_node: dict[str, tuple[str, str]] = {}
    last_map: dict[str, float] = {}
    last_task: dict[str, float] = {}
    finished_jobs: dict[str, float] = {}
    phase: dict[str, float] = {}
    counts: dict[str, int] = defaultdict(int)
    previous = -1.0
    for e in events:
        counts[e["type"]] += 1
        assert e["time"] >= previous, "events are ordered by time"
        previous = e["time"]
        if e["type"] == "task_start":
            key = (e["node"], e["kind"])
            running[key] += 1
            assert running[key] <= slots[e["kind"]], f"{e['node']} runs more {e['kind']}s than its slots"
            assert e["task"] not in on_node, "a task runs once at a time"
            on_node[e["task"]] = key
            starts[e["task"]] += 1
            assert ("locality" in e) == (e["kind"] == "map")
        elif e["type"] in ("task_finish", "task_preempt"):
            assert on_node.pop(e["task"]) == (e["node"], e["kind"])
            running[(e["node"], e["kind"])] -= 1
            if e["type"] == "task_finish":
                ends[e["task"]] += 1
                last_task[e["job"]] = e["time"]
                if e["kind"] == "map":
                    last_map[e["job"]] = e["time"]
                else:
                    assert e["time"] >= last_map.get(e["job"], 0.0), "a reduce finishes after the job's last map"
            else:
                preempts[e["task"]] += 1
        elif e["type"] == "task_phase":
            phase[e["task"]] = e["time"]
            assert e["time"] >= last_map.get(e["job"], 0.0) or e["job"] not in last_map
        elif e["type"] == "job_finish":
            finished_jobs[e["job"]] = e["time"]
    assert not on_node, "every started task ended"
    for spec in wl.jobs:
        assert spec.id in finished_jobs, f"{spec.id} finished"
        assert finished_jobs[spec.id] >= last_task.get(spec.id, 0.0), "a job finishes after all its tasks"
        for kind, letter, tasks in (("map", "m", spec.maps), ("reduce", "r", spec.reduces)):
            for i in range(len(tasks)):
                tid = f"{spec.id}_{letter}_{i:06d}"
                assert ends[tid] == 1, f"{tid} finished exactly once"
                assert starts[tid] == ends[tid] + preempts[tid], f"{tid}: starts = finishes + preemptions"
                if kind == "reduce":
                    assert tid in phase, "every reduce went through its copy phase"
    return counts


@pytest.mark.parametrize("selector", ["locality", "delay"])
def test_conservation(selector: str) -> None:
    wl = random_workload()
    config = small_config(task_selector=selector)
    result = run(config, wl)
    counts = check_conservation(result.event_list, wl, config)
    assert counts["job_submit"] == counts["job_start"] == counts["job_finish"] == len(wl.jobs)
    s = result.metrics["summary"]
    assert s["finished_jobs"] == len(wl.jobs) and s["unfinished_jobs"] == 0
    assert s["tasks"] == sum(len(j.maps) + len(j.reduces) for j in wl.jobs)


def test_reduce_copy_waits_for_last_map_then_computes() -> None:
    # one long map; the reduce starts at once (slow start 0) and copies 1 s,
    # but cannot compute before the map ends at 100 s; then computes 9 s.
    spec = JobSpec(
        maps=[TaskSpec(100.0, ("n0000",))],
        reduces=[TaskSpec(10.0, copy_duration=1.0)],
        id="j",
        submit=0.0,
    )
    config = attrs.evolve(small_config(reduce_slowstart=0.0), simulation={"phase_events": True})
    result = run(config, workload([spec]))
    ev = {(e["type"], e.get("kind")): e for e in result.event_list}
    map_end = ev[("task_finish", "map")]["time"]
    assert ev[("task_phase", "reduce")]["time"] == map_end
    assert ev[("task_finish", "reduce")]["time"] == pytest.approx(map_end + 9.0)


def test_reduce_default_copy_fraction() -> None:
    spec = JobSpec(maps=[TaskSpec(1.0, ("n0000",))], reduces=[TaskSpec(30.0)], id="j", submit=0.0)
    config = Config.from_dict({"simulation": {"phase_events": True, "copy_fraction": 0.5}})
    result = run(config, workload([spec]))
    ev = {(e["type"], e.get("kind")): e for e in result.event_list}
    start = ev[("task_start", "reduce")]["time"]
    assert ev[("task_phase", "reduce")]["time"] == pytest.approx(max(start + 15.0, ev[("task_finish", "map")]["time"]))
    assert ev[("task_finish", "reduce")]["time"] == pytest.approx(ev[("task_phase", "reduce")]["time"] + 15.0)


def test_replicas_placed_for_maps_without_input() -> None:
    wl = workload([JobSpec(maps=[TaskSpec(5.0)] * 30, id="j", submit=0.0)])
    result = run(small_config(), wl)
    locality = result.metrics["jobs"][0]["locality"]
    assert sum(locality.values()) == 30
    assert locality["node"] > 0  # replicas exist, so some maps found local input


# --------------------------------------------------------------------------- preemption

ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <pool name="prod"><minMaps>8</minMaps><minSharePreemptionTimeout>5</minSharePreemptionTimeout></pool>
  <pool name="batch"/>
</allocations>
"""


def test_preemption_kills_and_reruns() -> None:
    config = Config.from_dict(
        {
            "scheduler": {"preemption": True, "preemption_interval": 1.0, "assign_multiple": True},
            "cluster": {"racks": 1, "nodes_per_rack": 4, "map_slots": 2, "reduce_slots": 1},
        }
    )
    batch = JobSpec(maps=[TaskSpec(60.0)] * 40, pool="batch", user="b", id="batch", submit=0.0)
    prod = JobSpec(maps=[TaskSpec(10.0)] * 8, pool="prod", user="p", id="prod", submit=20.0)
    wl = workload([batch, prod])
    allocations = parse_allocations(ALLOCATIONS, "<test>")
    result = run(config, wl, allocations=allocations)
    counts = check_conservation(result.event_list, wl, config)
    assert counts["task_preempt"] > 0
    killed = {e["task"] for e in result.event_list if e["type"] == "task_preempt"}
    assert all(t.startswith("batch_m_") for t in killed)
    s = result.metrics["summary"]
    assert s["preempted_tasks"] == counts["task_preempt"]
    assert s["wasted_seconds"] > 0
    # prod got its minimum share within the timeout plus a preemption interval and a heartbeat
    prod_starts = sorted(e["time"] for e in result.event_list if e["type"] == "task_start" and e["job"] == "prod")
    assert len(prod_starts) == 8 and prod_starts[-1] <= 20.0 + 5.0 + 1.0 + 3.0 + 1.0


# --------------------------------------------------------------------------- heartbeat economy


def test_no_heartbeats_without_pending_work() -> None:
    # one map of 10,000 s on 100 nodes: a handful of events, not 100 nodes × 3,333 heartbeats
    config = Config.from_dict({"cluster": {"racks": 10, "nodes_per_rack": 10}})
    wl = workload([JobSpec(maps=[TaskSpec(10_000.0)], id="j", submit=0.0)])
    result = run(config, wl)
    assert result.metrics["summary"]["finished_jobs"] == 1
    update_ticks = 10_000 / config.scheduler.update_interval
    assert result.engine_events < update_ticks + 200


def test_full_nodes_do_not_heartbeat() -> None:
    # 2 nodes × 1 map slot, 2 long maps and a queue behind them: while both
    # nodes are full there is pending work but no heartbeat can assign it.
    config = Config.from_dict({"cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 1, "reduce_slots": 0}})
    wl = workload([JobSpec(maps=[TaskSpec(3000.0)] * 6, id="j", submit=0.0)])
    result = run(config, wl)
    assert result.metrics["summary"]["finished_jobs"] == 1
    assert result.engine_events < 9000 / config.scheduler.update_interval + 100


def test_heartbeats_per_second_spaces_heartbeats() -> None:
    config = Config.from_dict(
        {"cluster": {"racks": 10, "nodes_per_rack": 30}, "simulation": {"heartbeats_per_second": 100}}
    )
    sim = Simulation(config, workload([JobSpec(maps=[TaskSpec(1.0)], id="j", submit=0.0)]))
    assert sim.heartbeat_interval == 3.0  # 300 nodes / 100 per second = 3 s, Hadoop's minimum
    config = attrs.evolve(config, cluster=attrs.evolve(config.cluster, racks=50))
    assert Simulation(config, workload([])).heartbeat_interval == 15.0


def test_quiet_updates_reuse_gives_identical_events() -> None:
    wl = load_workload("builtin:facebook", seed=1)
    wl = Workload(jobs=wl.jobs[:30], source=wl.source, name=wl.name)
    base = Config.from_file(EXAMPLES / "corescheduler.toml")
    outs = []
    for reuse in (True, False):
        config = attrs.evolve(base, simulation={"reuse_quiet_updates": reuse})
        outs.append(run(config, wl, 2).event_list)
    assert outs[0] == outs[1]
    assert any(e["type"] == "task_preempt" for e in outs[0]) or len(outs[0]) > 1000


# --------------------------------------------------------------------------- ends and errors


def test_stalled_run_stops_and_reports_unfinished() -> None:
    config = Config.from_dict(
        {"cluster": {"racks": 1, "nodes_per_rack": 2, "reduce_slots": 0}, "simulation": {"stall_timeout": 60}}
    )
    wl = workload([JobSpec(maps=[TaskSpec(5.0)], reduces=[TaskSpec(5.0)], id="j", submit=0.0)])
    result = run(config, wl)
    assert result.metrics["summary"]["unfinished_jobs"] == 1
    assert result.metrics["unfinished"] == ["j"]
    assert result.sim_time < 200


def test_simulation_settings_are_checked() -> None:
    config = Config.from_toml("[simulation]\ncopy_fraction = 2\nbogus = 1\nblock_size = 1024\n", source="c.toml")
    with pytest.raises(ConfigError) as info:
        SimulationOptions.from_config(config)
    message = str(info.value)
    assert "c.toml:2: [simulation] copy_fraction: must be ≤ 1" in message
    assert "c.toml:3: [simulation] bogus: unknown setting" in message
    assert "block_size" not in message.split("expected")[0]  # the workload's keys are known


def test_update_interval_from_simulation_table() -> None:
    config = Config.from_dict({"scheduler": {"update_interval": 0.5}, "simulation": {"update_interval": 5.0}})
    assert SimulationOptions.from_config(config).update_interval == 5.0
    assert SimulationOptions.from_config(Config()).update_interval == 0.5


def test_rejected_job_is_counted_not_fatal() -> None:
    config = Config.from_dict({"scheduler": {"pool_resolver": "rules"}, "plugins": {"rules": {"rules": ["reject"]}}})
    try:
        sim = Simulation(config, workload([JobSpec(maps=[TaskSpec(1.0)], id="j", submit=0.0)]))
    except ConfigError:
        pytest.skip("the rules plugin takes other settings")
    result = sim.run()
    assert result.metrics["summary"]["rejected_jobs"] == 1


@pytest.mark.slow
def test_swim_slice_conservation() -> None:
    trace = SHARED / "workloads" / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"
    if not trace.is_file():
        pytest.skip("SWIM traces not present")
    config = Config.from_dict(
        {
            "scheduler": {"task_selector": "delay", "assign_multiple": True, "preemption": True},
            "cluster": {"racks": 5, "nodes_per_rack": 20},
            "simulation": {"phase_events": True},
        }
    )
    nodes = {f"n{i:04d}": f"r{i // 20:02d}" for i in range(100)}
    wl = load_workload(trace, config=config, seed=0, nodes=nodes)
    wl = Workload(jobs=tuple(j for j in wl.jobs[:300] if len(j.maps) <= 400), source=wl.source, name=wl.name)
    result = run(config, wl)
    check_conservation(result.event_list, wl, config)


def test_copy_compute_split_holds_reduces_in_copy_until_a_slot_frees() -> None:
    # A long job's reduces start copying at once and wait for its last map.  With
    # the default load manager they hold both reduce slots meanwhile and the small
    # job's reduce waits behind them; with copy_compute_split they only hold copy
    # slots, and the small job computes in a free reduce slot.
    long = JobSpec(maps=[TaskSpec(50.0)] * 4, reduces=[TaskSpec(20.0, copy_duration=1.0)] * 2, id="long", submit=0.0)
    small = JobSpec(maps=[TaskSpec(5.0)], reduces=[TaskSpec(5.0, copy_duration=1.0)], id="small", submit=10.0)
    wl = workload([long, small])
    finish = {}
    for load_manager in ("slots", "copy_compute_split"):
        config = Config.from_dict(
            {
                "scheduler": {"load_manager": load_manager, "assign_multiple": True, "reduce_slowstart": 0.0},
                "cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 3, "reduce_slots": 1},
                "simulation": {"phase_events": True},
            }
        )
        result = run(config, wl)
        events = result.event_list
        computing: dict[str, int] = defaultdict(int)
        running: dict[str, int] = defaultdict(int)
        phase_of: dict[str, str] = {}
        for e in events:
            if e.get("kind") != "reduce":
                continue
            if e["type"] == "task_start":
                running[e["node"]] += 1
                assert running[e["node"]] <= 2 + 1  # copy slots (2 per reduce slot) + reduce slots
            elif e["type"] == "task_phase":
                computing[e["node"]] += 1
                phase_of[e["task"]] = e["node"]
                assert computing[e["node"]] <= 1, "at most one computing reduce per reduce slot"
            elif e["type"] in ("task_finish", "task_preempt"):
                running[e["node"]] -= 1
                if e["task"] in phase_of:
                    computing[phase_of.pop(e["task"])] -= 1
        assert result.metrics["summary"]["finished_jobs"] == 2
        finish[load_manager] = next(e["time"] for e in events if e["type"] == "job_finish" and e["job"] == "small")
    assert finish["copy_compute_split"] < 30.0 < 50.0 < finish["slots"]


def test_reduce_utilization_counts_what_holds_a_reduce_slot() -> None:
    # Four reduces copy for ~50 s waiting for a long map, then compute 10 s each,
    # on 2 reduce slots.  Under copy_compute_split copying holds no reduce slot:
    # the reduce slot-seconds are the compute phases only (never above 100 %).
    long = JobSpec(maps=[TaskSpec(50.0)], reduces=[TaskSpec(11.0, copy_duration=1.0)] * 4, id="j", submit=0.0)
    summaries = {}
    for load_manager in ("slots", "copy_compute_split"):
        config = Config.from_dict(
            {
                "scheduler": {"load_manager": load_manager, "assign_multiple": True, "reduce_slowstart": 0.0},
                "cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 2},
                "simulation": {"sample_interval": 1.0},
            }
        )
        result = run(config, workload([long]))
        summaries[load_manager] = (result.metrics["summary"], result.metrics["timeline"])
    split, split_timeline = summaries["copy_compute_split"]
    assert split["slot_seconds_reduce"] == pytest.approx(4 * 10.0)
    assert split["reduce_copy_seconds"] > 4 * 49.0
    assert 0 < split["reduce_utilization"] <= 1.0
    assert max(split_timeline["utilization"]["reduce"]) <= 1.0
    plain, _ = summaries["slots"]
    assert plain["slot_seconds_reduce"] > 2 * 50.0  # the first two reduces hold their slots while copying


# --------------------------------------------------------------------------- memory


def test_run_restores_the_garbage_collector_state() -> None:
    import gc

    assert gc.isenabled() and gc.get_freeze_count() == 0
    run(small_config(task_selector="delay"), random_workload(jobs=5))
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    gc.disable()
    try:
        run(small_config(), random_workload(jobs=5))
        assert not gc.isenabled()  # a caller's choice is kept
    finally:
        gc.enable()


def test_finished_jobs_are_freed_by_reference_counting() -> None:
    """Without history a finished job drops its tasks once the listeners have
    seen it, so the job <-> task cycle does not wait for the cyclic collector
    (which the run pauses): its tasks are freed by reference counting."""
    import gc

    from corescheduler.core.model import Task
    from corescheduler.hookspecs import hookimpl

    seen: list[tuple[str, int]] = []  # (job id, tasks it had)

    class Watch:
        @hookimpl
        def cs_job_removed(self, job) -> None:
            assert job.tasks["map"]  # listeners still see the tasks
            seen.append((job.id, len(job.tasks["map"]) + len(job.tasks["reduce"])))

    config = small_config(listeners=["watch"])
    gc.disable()
    try:
        run(config, random_workload(jobs=6), extra_plugins={"watch": Watch})
        assert len(seen) == 6
        # no weak references here: a compiled build's tasks take none; the collector's
        # list of live objects tells the same (it is off, so whatever is gone went by
        # reference counting)
        ids = {job_id for job_id, _ in seen}
        alive = [o for o in gc.get_objects() if isinstance(o, Task) and o.job.id in ids]
        assert alive == []
    finally:
        gc.enable()


def test_event_lines_are_exactly_compact_json_dumps() -> None:
    import json
    import math

    from corescheduler.sim.simulator import _line_encoder

    encode = _line_encoder()
    event = {"time": 1.5, "type": 'q"uote\n', "job": "é☃", "none": None, "flag": True, "big": 1e300, "n": 3,
             "list": [1, 2.0], "nan": math.nan, "inf": -math.inf}
    assert encode(event) == json.dumps(event, separators=(",", ":"), ensure_ascii=False)
    with pytest.raises(TypeError, match="not JSON serializable"):
        encode({"x": object()})


# --------------------------------------------------------------------------- remote reads


@pytest.mark.parametrize(("off_rack", "expected_off"), [(None, 10.0), (3.0, 30.0)])
def test_off_rack_maps_run_slower_by_the_configured_factor(off_rack, expected_off) -> None:
    # Two maps with input on n0000, one map slot on each of two nodes in two racks:
    # one map runs node-local on n0000, the other off-rack on n0001.
    job = JobSpec(maps=[TaskSpec(10.0, ("n0000",))] * 2, id="j", submit=0.0)
    simulation = {} if off_rack is None else {"off_rack_map_slowdown": off_rack}
    config = Config.from_dict(
        {
            "scheduler": {"task_selector": "locality"},
            "cluster": {"racks": 2, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
            "simulation": simulation,
        }
    )
    result = run(config, workload([job]))
    starts = {e["task"]: e for e in result.event_list if e["type"] == "task_start"}
    ran = {starts[e["task"]]["locality"]: e["time"] - starts[e["task"]]["time"]
           for e in result.event_list if e["type"] == "task_finish"}
    assert ran == {"node": 10.0, "off": expected_off}


def test_map_slowdown_must_be_positive() -> None:
    config = Config.from_dict({"simulation": {"rack_local_map_slowdown": 0}})
    with pytest.raises(ConfigError, match=r"\[simulation\] rack_local_map_slowdown: .*> 0"):
        SimulationOptions.from_config(config)


def test_an_update_interval_that_is_no_binary_fraction_does_not_stall_the_clock():
    """(floor(t / 0.3) + 1) * 0.3 == t for t = 9.299999999999999: the next
    update was pushed at the current time, for ever (found by a fuzzer)."""
    import signal

    config = Config.from_toml("[scheduler]\nupdate_interval = 0.3\n[cluster]\nracks = 1\nnodes_per_rack = 1\n", "x")
    wl = workload([JobSpec(maps=[TaskSpec(30.0, ("n0000",))], id="j", submit=0.0)])

    def hang(*_):
        raise TimeoutError("the simulation did not end")

    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(20)
    try:
        result = Simulation(config, wl, 0).run()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert result.metrics["summary"]["jobs"] == 1


def test_numpy_durations_run_as_python_numbers_and_a_text_duration_is_a_workload_error() -> None:
    """Durations are read as given in either build (the compiled one checks annotations):
    numpy numbers simulate exactly as the same Python numbers, and a duration that is not
    a number is one WorkloadError naming the job, not a TypeError."""
    np = pytest.importorskip("numpy")
    from corescheduler.errors import WorkloadError

    def spec(durations, copy) -> JobSpec:
        return JobSpec(maps=[TaskSpec(d) for d in durations], reduces=[TaskSpec(durations[0], copy_duration=copy)],
                       id="j0", submit=0.0)

    config = small_config()
    plain = run(config, workload([spec([3, 4, 5], 1)])).event_list
    numpy = run(config, workload([spec(list(np.array([3, 4, 5])), np.int64(1))])).event_list
    assert numpy == plain
    with pytest.raises(WorkloadError, match=r"job j0: a task has duration '5'"):
        run(config, workload([spec([3, 4, "5"], None)]))
