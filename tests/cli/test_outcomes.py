"""Jobs that never ran are results, shown with their reasons (issue 30 item 1, SPEC §4, §5):
a queue capped at ``0 mb, 0 vcores``, a queue too small for the job's tasks, and a placement
policy that rejects unknown queues."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import run
from paths import DATA

from corescheduler.sim.report import not_run, render_report

REJECTS = DATA / "rejects"
ZERO_QUEUE = "zero amount of resource for a requested resource"
REJECT_RULE = "rejected by the queue placement policy's reject rule"


@pytest.fixture
def setup(tmp_path: Path) -> Path:
    for f in REJECTS.iterdir():
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def _simulate(setup: Path, *extra: str):
    return run("simulate", "--config", str(setup / "zero-queue.toml"), "--workload", str(setup / "workload.json"),
               "--out", str(setup / "out"), *extra)


def test_rejected_and_stalled_jobs_are_printed_with_reasons_and_exit_0(setup) -> None:
    result = _simulate(setup)
    assert result.exit_code == 0, result.output
    out = result.stdout
    rows = {line.split("  ")[0]: line.split()[-1] for line in out.splitlines() if line.startswith("jobs ")}
    assert rows["jobs finished"] == "1" and rows["jobs rejected"] == "2" and rows["jobs unfinished"] == "1"
    assert "jobs that did not run to the end: 2 rejected, 1 did not finish" in out
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert "c1 rejected:" in lines["c1"] and ZERO_QUEUE in lines["c1"] and "<memory:0, vCores:0>" in lines["c1"]
    assert "x1 rejected:" in lines["x1"] and REJECT_RULE in lines["x1"]
    assert "t1 (pool root.tiny) unfinished:" in lines["t1"] and "stall_timeout (120 s)" in lines["t1"]
    assert "a1" not in lines
    assert result.stderr == ""


def test_job_rejected_events_carry_the_reason(setup) -> None:
    assert _simulate(setup).exit_code == 0
    events = [json.loads(line) for line in (setup / "out" / "events.jsonl").read_text().splitlines()]
    rejected = [e for e in events if e["type"] == "job_rejected"]
    assert [(e["job"], e["pool"], e["user"]) for e in rejected] == [("c1", "capped", "u"), ("x1", "nowhere", "u")]
    assert ZERO_QUEUE in rejected[0]["reason"] and REJECT_RULE in rejected[1]["reason"]
    assert rejected[0]["time"] == 1.0 and rejected[1]["time"] == 2.0
    assert not any(e.get("job") in ("c1", "x1") for e in events if e["type"] != "job_rejected")
    times = [e["time"] for e in events]
    assert times == sorted(times)
    metrics = json.loads((setup / "out" / "metrics.json").read_text())
    assert set(metrics["rejected"]) == {"c1", "x1"} and metrics["unfinished"] == ["t1"]
    assert {j["id"] for j in metrics["jobs"]} == {"a1", "t1"}


def test_metrics_rebuilt_from_events_keep_the_rejections(setup) -> None:
    from corescheduler.sim.metrics import metrics_from_events

    assert _simulate(setup).exit_code == 0
    events = [json.loads(line) for line in (setup / "out" / "events.jsonl").read_text().splitlines()]
    rebuilt = metrics_from_events(events, {"map": 0, "reduce": 0})
    assert set(rebuilt["rejected"]) == {"c1", "x1"} and rebuilt["summary"]["rejected_jobs"] == 2


def test_report_lists_each_job_with_its_reason(setup) -> None:
    assert _simulate(setup).exit_code == 0
    page = (setup / "out" / "report.html").read_text()
    assert '<h2 id="not-run">Jobs rejected or unfinished</h2>' in page
    section = page[page.index('id="not-run"'):page.index('data-plot="cdf-pool"')]
    assert "2 rejected, 1 unfinished" in section
    for job, outcome in (("c1", "rejected"), ("x1", "rejected"), ("t1", "unfinished")):
        assert f"<td>{job}</td>" in section and outcome in section
    assert ZERO_QUEUE in section and "&lt;memory:0, vCores:0&gt;" in section
    assert "reject rule" in section and "stall_timeout" in section


def test_report_has_no_section_when_every_job_finished() -> None:
    metrics = {"summary": {"finished_jobs": 1}, "jobs": [], "pools": {}, "bins": {}, "timeline": {}}
    assert not_run(metrics) == []
    assert 'id="not-run"' not in render_report([("a", metrics)])


@pytest.mark.parametrize("as_json", [False, True])
def test_strict_exits_1_when_a_job_did_not_run(setup, as_json) -> None:
    result = _simulate(setup, "--strict", *(["--json"] if as_json else []))
    assert result.exit_code == 1, result.output
    assert result.stderr.strip() == "strict: not every job ran to the end (zero-queue: 2 rejected, 1 did not finish)"
    assert (setup / "out" / "report.html").is_file()  # the results are written all the same
    if as_json:
        assert json.loads(result.stdout)["rejected_jobs"] == 2


def test_strict_exits_0_when_every_job_finished(setup) -> None:
    workload = json.loads((setup / "workload.json").read_text())
    workload["jobs"] = [j for j in workload["jobs"] if j["id"] == "a1"]
    (setup / "workload.json").write_text(json.dumps(workload))
    result = _simulate(setup, "--strict")
    assert result.exit_code == 0, result.output
    assert "did not run" not in result.stdout


def test_compare_prints_each_run_and_strict_applies(setup) -> None:
    (setup / "open.xml").write_text('<allocations><queue name="capped"/><queue name="tiny"/><queue name="open"/>'
                                    "</allocations>")
    (setup / "open.toml").write_text((setup / "zero-queue.toml").read_text().replace("zero-queue.xml", "open.xml"))
    args = ["compare", "--config", str(setup / "open.toml"), "--config", str(setup / "zero-queue.toml"),
            "--workload", str(setup / "workload.json"), "--out", str(setup / "cmp"), "-j", "1"]
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert "zero-queue: jobs that did not run to the end: 2 rejected, 1 did not finish" in result.stdout
    assert "open: jobs that did not run" not in result.stdout
    strict = run(*args, "--strict")
    assert strict.exit_code == 1
    assert "zero-queue: 2 rejected, 1 did not finish" in strict.stderr and "open:" not in strict.stderr
    page = (setup / "cmp" / "report.html").read_text()
    assert "<td>zero-queue</td><td>c1</td>" in page
