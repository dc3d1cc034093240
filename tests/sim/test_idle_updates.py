"""Idle time costs nothing (issue 15): while no task is pending the simulator skips the periodic
updates up to the last one before the next event, and the run is the same run —
``events.jsonl`` byte for byte that of a run that performs every update."""

from __future__ import annotations

import functools
import json
import random

import pytest

from corescheduler.config import Config
from corescheduler.core.model import JobSpec, TaskSpec
from corescheduler.formats.allocation_file import parse_allocations
from corescheduler.formats.workloads import Workload
from corescheduler.sim.simulator import Simulation


def _case(seed: int) -> tuple[str, str, list[JobSpec]]:
    """A small cluster with preemption, booster and timeouts, and jobs with long idle spans:
    long tasks, long gaps between submissions, whole and fractional times."""
    rng = random.Random(seed)
    update = rng.choice([0.5, 0.25, 0.3, 1.0, 0.7])
    lines = [
        "[scheduler]",
        f"preemption = {str(rng.random() < 0.7).lower()}",
        f"preemption_interval = {rng.choice([1.0, 5.0, 15.0, 7.3])}",
        f"update_interval = {update}",
        f'task_selector = "{rng.choice(["delay", "locality"])}"',
        f"assign_multiple = {str(rng.random() < 0.5).lower()}",
        f"reduce_slowstart = {rng.choice([0.05, 1.0])}",
        "weight_adjusters = " + rng.choice(["[]", '["new_job_booster"]']),
        "[plugins.new_job_booster]", f"duration = {rng.choice([5.0, 60.0, 300.0])}",
        "[cluster]", f"racks = {rng.choice([1, 2])}", f"nodes_per_rack = {rng.choice([1, 2, 3])}",
        f"map_slots = {rng.choice([1, 2])}", "reduce_slots = 1", f"heartbeat_interval = {rng.choice([3.0, 1.0, 0.7])}",
        "replication = 1",
        "[simulation]", "skip_idle_updates = SKIP", "stall_timeout = 600",
    ]  # fmt: skip
    alloc = "<allocations>"
    for pool in ("p0", "p1"):
        parts = [f"<minMaps>{rng.randint(0, 2)}</minMaps>"]
        if rng.random() < 0.6:
            parts.append(f"<minSharePreemptionTimeout>{rng.choice([1, 5, 30])}</minSharePreemptionTimeout>")
        alloc += f"<pool name='{pool}'>{''.join(parts)}</pool>"
    alloc += f"<fairSharePreemptionTimeout>{rng.choice([2, 20, 100])}</fairSharePreemptionTimeout></allocations>"
    integer = rng.random() < 0.5
    specs, submit = [], 0.0
    for j in range(rng.randint(3, 12)):
        submit += float(rng.choice([0, 1, 5, 200, 1000])) if integer else rng.choice([0.0, 2.7, 333.3])

        def duration() -> float:
            d = rng.choice([1, 3, 10, 500, 2000])
            return float(d) if integer else d * rng.uniform(0.5, 1.5)

        specs.append(JobSpec(maps=[TaskSpec(duration()) for _ in range(rng.randint(1, 5))],
                             reduces=[TaskSpec(duration()) for _ in range(rng.randint(0, 2))],
                             id=f"j{j:02d}", submit=submit, pool=rng.choice(["p0", "p1"]), user=f"u{j % 3}"))
    return "\n".join(lines) + "\n", alloc, specs


@functools.lru_cache(maxsize=64)
def _run(seed: int, skip: bool) -> tuple[list[str], int]:
    text, alloc, specs = _case(seed)
    config = Config.from_toml(text.replace("SKIP", str(skip).lower()), "<test>")
    wl = Workload(specs, source="<test>", name="idle")
    result = Simulation(config, wl, seed, allocations=parse_allocations(alloc, "<test>")).run()
    return [json.dumps(e, separators=(",", ":")) for e in result.event_list], result.engine_events


@pytest.mark.parametrize("seed", range(30))
def test_skipping_idle_updates_changes_nothing(seed: int) -> None:
    skipped, skipped_events = _run(seed, True)
    every, every_events = _run(seed, False)
    assert skipped == every
    assert skipped_events <= every_events


def test_idle_spans_are_skipped_at_all() -> None:
    fewer = [_run(seed, True)[1] < _run(seed, False)[1] for seed in range(10)]
    assert sum(fewer) >= 5


def _long_tasks(config: Config, durations: list[float]) -> tuple[int, dict]:
    wl = Workload([JobSpec(maps=[TaskSpec(d) for d in durations], id="long", submit=0.0, user="u")],
                  source="<test>", name="long")
    result = Simulation(config, wl, 0).run()
    return result.engine_events, result.metrics


def test_a_billion_second_task_costs_a_handful_of_events() -> None:
    """Three maps of 10⁶ s and two of 1 s; and one of 10⁹ s: a few dozen events each, not one
    per update tick (2 million and 2 billion of them)."""
    config = Config.from_toml("[scheduler]\npreemption = true\n[cluster]\nracks = 1\nnodes_per_rack = 3\n", "<t>")
    events, metrics = _long_tasks(config, [1e6, 1e6, 1e6, 1.0, 1.0])
    assert events < 200 and metrics["summary"]["finished_jobs"] == 1
    events, metrics = _long_tasks(config, [1e9])
    assert events < 200 and metrics["summary"]["makespan"] == pytest.approx(1e9, rel=1e-6)
    assert len(metrics["timeline"]["time"]) <= 1001
    events, metrics = _long_tasks(config, [1e300, 1.0])  # a typo away: it ends, too
    assert events < 200 and metrics["summary"]["makespan"] == pytest.approx(1e300)
