"""A weight adjuster that cannot change anything is reported (issue 30 item 6): job weights only
divide a pool's share among its jobs, so with never two running jobs in one pool they do nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run

from corescheduler.sim.metrics import metrics_from_events

CONFIG = """
[scheduler]
weight_adjusters = [{adjusters}]

[cluster]
racks = 1
nodes_per_rack = 4
"""
NOTE = "weight adjusters (new_job_booster) could not change any decision: no pool ever held two running jobs"


def _workload(pools: list[str], gap: float) -> dict:
    return {"jobs": [{"id": f"j{i}", "submit": i * gap, "user": "u", "pool": pool,
                      "map_count": 6, "map_duration": 8.0, "reduce_count": 1, "reduce_duration": 5.0}
                     for i, pool in enumerate(pools)]}


@pytest.fixture
def setup(tmp_path: Path) -> Path:
    (tmp_path / "boost.toml").write_text(CONFIG.format(adjusters='"new_job_booster"'))
    (tmp_path / "plain.toml").write_text(CONFIG.format(adjusters=""))
    (tmp_path / "own.json").write_text(json.dumps(_workload([f"p{i}" for i in range(6)], 2.0)))  # a pool per job
    (tmp_path / "shared.json").write_text(json.dumps(_workload(["a", "a", "b", "b", "a", "b"], 2.0)))
    (tmp_path / "apart.json").write_text(json.dumps(_workload(["a"] * 4, 200.0)))  # one pool, one job at a time
    return tmp_path


def _simulate(setup: Path, config: str, workload: str):
    result = run("simulate", "--config", str(setup / config), "--workload", str(setup / workload),
                 "--out", str(setup / "out"))
    assert result.exit_code == 0, result.output
    return result.stdout, json.loads((setup / "out" / "metrics.json").read_text())


def test_a_pool_per_job_makes_the_adjuster_a_no_op_and_it_is_said(setup) -> None:
    out, metrics = _simulate(setup, "boost.toml", "own.json")
    assert NOTE in " ".join(out.split())
    assert "SharePolicy" in out and "docs/plugin-authors.md" in out
    assert metrics["summary"]["max_jobs_in_a_pool"] == 1
    assert {p["max_concurrent_jobs"] for p in metrics["pools"].values()} == {1}
    assert "could not change any decision" in (setup / "out" / "report.html").read_text()


def test_one_pool_one_job_at_a_time_is_a_no_op_too(setup) -> None:
    out, metrics = _simulate(setup, "boost.toml", "apart.json")
    assert metrics["summary"]["max_jobs_in_a_pool"] == 1 and metrics["pools"]["a"]["jobs"] == 4
    assert NOTE in " ".join(out.split())


def test_no_note_when_two_jobs_shared_a_pool(setup) -> None:
    out, metrics = _simulate(setup, "boost.toml", "shared.json")
    assert metrics["summary"]["max_jobs_in_a_pool"] >= 2
    assert metrics["pools"]["a"]["max_concurrent_jobs"] >= 2
    assert "could not change any decision" not in out
    assert "could not change any decision" not in (setup / "out" / "report.html").read_text()


def test_no_note_without_weight_adjusters(setup) -> None:
    out, _ = _simulate(setup, "plain.toml", "own.json")
    assert "could not change any decision" not in out


def test_compare_names_the_runs(setup) -> None:
    result = run("compare", "--config", str(setup / "plain.toml"), "--config", str(setup / "boost.toml"),
                 "--workload", str(setup / "own.json"), "--out", str(setup / "cmp"), "-j", "1")
    assert result.exit_code == 0, result.output
    # "in run boost," (the walk-through read "in corescheduler the weight adjusters" as the product)
    assert "note: in run boost, the weight adjusters could not change any decision" in result.stdout


def test_peak_is_counted_from_the_job_events() -> None:
    events = [
        {"time": 0.0, "type": "job_submit", "job": "x", "pool": "a"},
        {"time": 0.0, "type": "job_start", "job": "x", "pool": "a"},
        {"time": 1.0, "type": "job_submit", "job": "y", "pool": "a"},
        {"time": 1.0, "type": "job_start", "job": "y", "pool": "a"},
        {"time": 2.0, "type": "job_finish", "job": "x", "pool": "a"},
        {"time": 3.0, "type": "job_submit", "job": "z", "pool": "b"},
        {"time": 3.0, "type": "job_start", "job": "z", "pool": "b"},
        {"time": 4.0, "type": "job_finish", "job": "y", "pool": "a"},
        {"time": 5.0, "type": "job_finish", "job": "z", "pool": "b"},
    ]
    m = metrics_from_events(events, {"map": 1, "reduce": 1})
    assert m["summary"]["max_jobs_in_a_pool"] == 2
    assert m["pools"]["a"]["max_concurrent_jobs"] == 2 and m["pools"]["b"]["max_concurrent_jobs"] == 1
    apart = [e for e in events if e["job"] != "y"]
    assert metrics_from_events(apart, {"map": 1, "reduce": 1})["summary"]["max_jobs_in_a_pool"] == 1
