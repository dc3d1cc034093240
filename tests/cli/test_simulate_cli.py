"""``corescheduler simulate`` and ``corescheduler compare`` end to end (CliRunner)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import assert_user_error, run

from corescheduler.cli.simulate import _labels

WORKLOAD = {
    "jobs": [
        {"id": f"j{i}", "submit": i * 3.0, "user": f"u{i % 3}", "pool": f"p{i % 2}",
         "map_count": 1 + 4 * i, "map_duration": 6.0, "reduce_count": i % 3, "reduce_duration": 10.0}
        for i in range(12)
    ]
}
SMALL = """
[scheduler]
task_selector = "{selector}"
assign_multiple = true

[cluster]
racks = 2
nodes_per_rack = 4
"""




@pytest.fixture
def setup(tmp_path: Path):
    (tmp_path / "w.json").write_text(json.dumps(WORKLOAD), encoding="utf-8")
    for selector in ("locality", "delay"):
        (tmp_path / f"{selector}.toml").write_text(SMALL.format(selector=selector), encoding="utf-8")
    return tmp_path


def test_simulate_writes_outputs_and_prints_summary(setup) -> None:
    out = setup / "out"
    result = run("simulate", "--config", str(setup / "delay.toml"), "--workload", str(setup / "w.json"),
                 "--out", str(out), "--seed", "3")
    assert result.exit_code == 0, result.output
    assert {p.name for p in out.iterdir()} == {"metrics.json", "events.jsonl", "report.html"}
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["summary"]["finished_jobs"] == 12
    assert {"summary", "jobs", "pools", "bins", "timeline"} <= set(metrics)
    lines = (out / "events.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["type"] == "job_submit"
    assert "makespan (s)" in result.output and "node locality" in result.output
    assert "wrote" in result.output


def test_simulate_json_is_the_summary(setup) -> None:
    result = run("simulate", "--config", str(setup / "locality.toml"), "--workload", str(setup / "w.json"),
                 "--out", str(setup / "o"), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["jobs"] == 12 and "mean_response_time" in summary


def test_simulate_same_seed_same_events(setup) -> None:
    for name in ("a", "b"):
        args = ["simulate", "--config", str(setup / "delay.toml"), "--workload", str(setup / "w.json")]
        assert run(*args, "--out", str(setup / name), "--json").exit_code == 0
    assert (setup / "a" / "events.jsonl").read_bytes() == (setup / "b" / "events.jsonl").read_bytes()


@pytest.mark.parametrize(
    ("name", "text", "fragments"),
    [
        ("bad.json", '{"jobs": [\n {"id": "a", "submit": 0, "user": "u",\n  "maps": [{"duration": -1}]}\n]}\n',
         ["bad.json:3:", "duration"]),
        ("broken.json", '{"jobs": [\n  {"id": "a",, }\n]}\n', ["broken.json:2"]),
        ("nodes.json", '{"jobs": [{"id": "a", "submit": 0, "user": "u",\n "maps": [{"duration": 1, '
         '"input_nodes": ["n9999"]}]}]}\n', ["nodes.json:2:", "n9999"]),
        ("bad.tsv", "job0\t1\t1\t100\t0\t0\njob1\t2\t1\t-100\t0\t0\n", ["bad.tsv:2:"]),
    ],
)
def test_malformed_workload_exits_1_with_file_line(setup, name, text, fragments) -> None:
    (setup / name).write_text(text, encoding="utf-8")
    result = run("simulate", "--config", str(setup / "locality.toml"), "--workload", str(setup / name),
                 "--out", str(setup / "o"))
    assert_user_error(result, *fragments)


def test_missing_workload_and_bad_config(setup) -> None:
    assert_user_error(run("simulate", "--workload", str(setup / "none.json"), "--out", str(setup / "o")),
                      "none.json")
    (setup / "bad.toml").write_text("[simulation]\ncopy_fraction = -1\n", encoding="utf-8")
    assert_user_error(run("simulate", "--config", str(setup / "bad.toml"), "--out", str(setup / "o")),
                      "bad.toml:2", "copy_fraction")


def test_compare_end_to_end(setup) -> None:
    out = setup / "cmp"
    result = run("compare", "--config", str(setup / "locality.toml"), "--config", str(setup / "delay.toml"),
                 "--workload", str(setup / "w.json"), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert (out / "report.html").is_file() and (out / "compare.json").is_file()
    for label in ("locality", "delay"):
        assert (out / label / "metrics.json").is_file() and (out / label / "events.jsonl").is_file()
    header = next(line for line in result.output.splitlines() if line.startswith("measure"))
    assert "locality" in header and "delay" in header
    assert "bin 1: mean response (s)" in result.output
    page = (out / "report.html").read_text()
    assert "http://" not in page and "https://" not in page
    data = json.loads((out / "compare.json").read_text())
    assert list(data["runs"]) == ["locality", "delay"]


def test_compare_json_and_usage(setup) -> None:
    result = run("compare", "--config", str(setup / "delay.toml"), "--config", str(setup / "delay.toml"),
                 "--workload", str(setup / "w.json"), "--out", str(setup / "c"), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert len(data["runs"]) == 2
    first, second = data["runs"].values()
    assert first["summary"] == second["summary"]  # same config, workload and seed
    assert run("compare", "--config", str(setup / "delay.toml")).exit_code == 2


def test_labels_disambiguate() -> None:
    assert _labels(["a/x.toml", "b/y.toml"]) == ["x", "y"]
    assert _labels(["a/x.toml", "b/x.toml"]) == ["a-x", "b-x"]
    assert _labels(["x.toml", "x.toml"]) == [_labels(["x.toml", "x.toml"])[0], _labels(["x.toml", "x.toml"])[1]]
    assert len(set(_labels(["x.toml", "x.toml"]))) == 2


@pytest.mark.slow
def test_simulate_with_no_arguments(tmp_path) -> None:
    """The README's main job: the bundled example on builtin:facebook."""
    proc = subprocess.run(
        [sys.executable, "-m", "corescheduler", "simulate"], cwd=tmp_path, capture_output=True, text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "builtin:facebook (100 jobs)" in proc.stdout
    assert {p.name for p in (tmp_path / "sim-out").iterdir()} == {"metrics.json", "events.jsonl", "report.html"}


def test_compare_in_parallel_gives_what_one_at_a_time_gives(setup) -> None:
    args = ["compare", "--config", str(setup / "locality.toml"), "--config", str(setup / "delay.toml"),
            "--workload", str(setup / "w.json"), "--seed", "1", "--seed", "2"]
    serial = run(*args, "--out", str(setup / "one"), "--jobs", "1")
    parallel = run(*args, "--out", str(setup / "many"), "--jobs", "3")
    assert serial.exit_code == 0 and parallel.exit_code == 0, parallel.output
    one = json.loads((setup / "one" / "compare.json").read_text())
    many = json.loads((setup / "many" / "compare.json").read_text())
    assert one == many
    assert list(one["runs"]) == ["locality-seed1", "delay-seed1", "locality-seed2", "delay-seed2"]
    assert one["seeds"] == [1, 2] and one["runs"]["delay-seed2"]["seed"] == 2
    for label in one["runs"]:
        a = (setup / "one" / label / "events.jsonl").read_bytes()
        assert a == (setup / "many" / label / "events.jsonl").read_bytes()
    assert "(3 at once)" in parallel.output


def test_compare_reports_a_bad_workload_from_a_worker_as_a_user_error(setup) -> None:
    (setup / "bad.json").write_text('{"jobs": [{"id": "x"}]}', encoding="utf-8")
    result = run("compare", "--config", str(setup / "locality.toml"), "--config", str(setup / "delay.toml"),
                 "--workload", str(setup / "bad.json"), "--out", str(setup / "x"), "--jobs", "2")
    assert_user_error(result, "bad.json")
