"""Odd inputs of issue 25: counts and sizes beyond the documented bounds are one
error before anything is built (item 5); lone surrogates and nesting too deep
to decode are one error at load, not a traceback after the run (item 7); line
formats are streamed and JSON costs memory in proportion to the file (item 8);
allocation-file weights beyond a Java float or absurdly large (taken whole, their
shares within the cluster and in their ratios), and a TOML
config with a UTF-8 BOM (item 12)."""

from __future__ import annotations

import io
import json
import math
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paths
import pytest
from cli_helpers import assert_user_error, run
from hypothesis import given, settings
from hypothesis import strategies as st

from corescheduler.config import MAX_CLUSTER_NODES, Config
from corescheduler.errors import ConfigError, WorkloadError
from corescheduler.formats.allocation_file import load_allocations
from corescheduler.formats.state import Snapshot, StateError, load_state
from corescheduler.formats.workloads import load_workload, swim
from corescheduler.formats.workloads.workload import MAX_JOB_TASKS, MAX_WORKLOAD_JOBS, MAX_WORKLOAD_TASKS

DATA = paths.DATA / "inputs"

#: a refused input may allocate a little (the file, messages), never its counts
LIGHT = 8 * 2**20


def peak_bytes(action: Callable[[], Any]) -> tuple[int, Any]:
    """Peak traced allocation while running ``action`` (its result or exception)."""
    tracemalloc.start()
    try:
        try:
            outcome: Any = action()
        except Exception as exc:  # returned for the test to check
            outcome = exc
        return tracemalloc.get_traced_memory()[1], outcome
    finally:
        tracemalloc.stop()


def refused(spec: Path | str, **kwargs: Any) -> WorkloadError:
    peak, outcome = peak_bytes(lambda: load_workload(spec, **kwargs))
    assert isinstance(outcome, WorkloadError), outcome
    assert peak < LIGHT, f"refusing {spec} allocated {peak:,} bytes"
    return outcome


# --------------------------------------------------------------------------- item 5: bounds


def test_bounds_are_documented_and_fit_the_measured_costs():
    # ~0.75 KB a runtime task, ~2.2 KB a simulated node (docs/workloads.md, docs/configuration.md)
    assert MAX_JOB_TASKS * 750 <= 8 * 2**30
    assert MAX_WORKLOAD_TASKS * 750 <= 16 * 2**30
    assert MAX_CLUSTER_NODES * 2200 <= 4 * 2**30
    assert MAX_WORKLOAD_TASKS >= 2 * 8_681_226  # FB-2010 twice over
    docs = (paths.DOCS / "workloads.md").read_text(encoding="utf-8")
    for name in ("MAX_JOB_TASKS", "MAX_WORKLOAD_TASKS", "MAX_WORKLOAD_JOBS", "MAX_CLUSTER_NODES"):
        assert name in docs


def test_sls_job_count_beyond_the_bound_is_refused_before_building():
    err = refused(DATA / "sls-job-count-huge.json")
    assert err.line == 1
    assert err.message.startswith(
        "SLS job 'flood': job.count 100,000,000,000: the workload would have at least 100,000,000,000 jobs; "
        f"at most {MAX_WORKLOAD_JOBS:,} (MAX_WORKLOAD_JOBS"
    )


def test_sls_container_count_beyond_the_bound_is_refused_before_building():
    err = refused(DATA / "sls-container-count-huge.json")
    assert err.line == 4
    assert "SLS job 'wide': job.tasks[1]: count: 100,000,000,001 tasks in one job; at most 10,000,000" in str(err)


def test_json_map_count_beyond_the_bound_is_refused_before_building():
    err = refused(DATA / "json-map-count-huge.json")
    assert err.line == 3
    assert err.message.startswith("job 'huge'.map_count: 100,000,000,000 tasks in one job; at most 10,000,000")


def test_json_counts_add_up_per_job(tmp_path):
    half = MAX_JOB_TASKS // 2 + 1
    path = tmp_path / "two-halves.json"
    path.write_text(json.dumps({"jobs": [{"id": "j", "submit": 0, "user": "u", "map_count": half, "map_duration": 1,
                                          "reduce_count": half, "reduce_duration": 1}]}))
    err = refused(path)
    assert err.message.startswith(f"job 'j'.map_count: {2 * half:,} tasks in one job; at most {MAX_JOB_TASKS:,}")


def test_workload_task_total_is_bounded(tmp_path, monkeypatch):
    # the bound itself is 2e7 tasks; the same check with a smaller bound stays light
    from corescheduler.formats.workloads import workload

    monkeypatch.setattr(workload, "MAX_WORKLOAD_TASKS", 1000)
    jobs = [{"id": f"j{i}", "submit": i, "user": "u", "map_count": 300, "map_duration": 1} for i in range(5)]
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"jobs": jobs}))
    err = refused(path)
    assert err.message.startswith("job 'j3': the workload would have at least 1,200 tasks; at most 1,000")
    assert err.line == 1 and len(err.problems) == 1


def test_swim_bytes_that_derive_too_many_maps_are_refused():
    err = refused(DATA / "swim-input-bytes-huge.tsv")
    assert err.line == 2
    assert err.message.startswith("job 'job1': 7.45e+21 maps and 0 reduces from its bytes")
    assert "at most 10,000,000 (MAX_JOB_TASKS" in str(err)
    # capped by [simulation] max_maps the same trace loads
    config = Config.from_toml("[simulation]\nmax_maps = 100\n")
    w = load_workload(DATA / "swim-input-bytes-huge.tsv", config=config)
    assert [len(j.maps) for j in w] == [1, 100]


def test_swim_job_count_is_bounded(tmp_path, monkeypatch):
    from corescheduler.formats.workloads import workload

    monkeypatch.setattr(workload, "MAX_WORKLOAD_JOBS", 3)
    path = tmp_path / "t.tsv"
    path.write_text("".join(f"job{i}\t{i}\t0\t1000\t0\t0\n" for i in range(10)))
    err = refused(path)
    assert err.line == 4 and "the workload would have at least 4 jobs; at most 3" in str(err)


def test_snapshot_counts_are_bounded_before_tasks_are_built():
    state = load_state(DATA / "state-maps-huge.json")
    peak, outcome = peak_bytes(lambda: Snapshot.from_mapping(state, "s.json"))
    assert isinstance(outcome, StateError) and peak < LIGHT
    assert str(outcome) == (
        "s.json: jobs[1]: maps + reduces = 100,000,000,000 tasks in one job; at most 10,000,000 (MAX_JOB_TASKS)"
    )


def test_snapshot_cluster_and_huge_numbers_are_errors():
    result = run("shares", "--state", str(DATA / "state-cluster-huge.json"))
    assert_user_error(result, "cluster: racks × nodes_per_rack = 10,000,000,000 nodes; at most 1,000,000")
    bad = Snapshot.from_mapping
    with pytest.raises(StateError, match=r"cluster.map_slots: expected an integer below 2\*\*63, got 1e\+400"):
        bad({"cluster": {"map_slots": 10**400}, "jobs": [{"maps": 1}]})
    with pytest.raises(StateError, match=r"pools.p.weight: expected a non-negative number, got 1e\+400"):
        bad({"pools": {"p": {"weight": 10**400}}, "jobs": [{"maps": 1}]})


def test_check_refuses_a_cluster_beyond_the_bound():
    path = DATA / "cluster-nodes-huge.toml"
    result = run("check", str(path))
    assert result.exit_code == 1
    assert f"{path}:3: [cluster] nodes_per_rack: racks × nodes_per_rack = 10,000,000,000 nodes; at most 1,000,000" \
        in result.output
    with pytest.raises(ConfigError, match="MAX_CLUSTER_NODES"):
        Config.from_file(path)
    assert Config.from_toml(f"[cluster]\nracks = 1\nnodes_per_rack = {MAX_CLUSTER_NODES}\n").cluster.nodes == (
        MAX_CLUSTER_NODES)


# --------------------------------------------------------------------------- item 7: surrogates, nesting


def test_lone_surrogates_are_refused_at_load_naming_the_job_and_field():
    err = refused(DATA / "surrogate-job-id.json")
    text = str(err)
    assert err.message.startswith("jobs[1].id: the string holds a lone surrogate \\ud800")
    assert "surrogate-job-id.json:4: job 'j3'.user: the string holds a lone surrogate \\udc00" in text
    assert "surrogate-job-id.json:5: job 'j3'.properties.\"k\\ud800\": the key holds a lone surrogate" in text
    assert err.line == 3 and len(err.problems) == 3  # the valid pair of job 'fine' is no problem
    text.encode("utf-8")  # the message itself is printable


def test_lone_surrogate_in_sls_and_through_the_cli(tmp_path):
    err = refused(DATA / "surrogate-sls.json")
    assert err.message.startswith("SLS job 's1': job.queue.name: the string holds a lone surrogate \\ud800")
    result = run("simulate", "--workload", str(DATA / "surrogate-job-id.json"), "--out", str(tmp_path / "o"))
    assert_user_error(result, "surrogate-job-id.json:3: jobs[1].id: the string holds a lone surrogate")
    assert not (tmp_path / "o").exists()  # refused before the run


def test_lone_surrogate_in_a_snapshot():
    result = run("shares", "--state", str(DATA / "state-surrogate.json"))
    assert_user_error(result, "jobs[1].pool: the string holds a lone surrogate \\udbff")


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_deep_nesting_in_workload_json_is_one_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"jobs": [\n{"id": "a", "submit": 0, "user": "u", "map_count": 1, "map_duration": 1,\n'
                    f' "properties": {{"x": {nested(5000)}}}}}]}}\n')
    err = refused(path)
    assert err.line == 3 and err.message.startswith("JSON nested 5,004 levels deep, too deep to read")
    sls = tmp_path / "deep-sls.json"
    sls.write_text(f'{{"job.start.ms": 0, "job.tasks": [{{"duration.ms": 5}}]}}\n{nested(5000)}\n')
    assert refused(sls).line == 2


def test_deep_nesting_and_long_numbers_in_a_snapshot(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"jobs": [{"id": "a", "maps": 1,\n "properties": {"x": ' + nested(5000) + "}}]}")
    with pytest.raises(StateError, match=r"deep.json:2: JSON nested 5,004 levels deep"):
        load_state(path)
    long = tmp_path / "long.json"
    long.write_text('{"jobs": [{"id": "a",\n "maps": 1' + "0" * 5000 + "}]}")
    result = run("shares", "--state", str(long))
    assert_user_error(result, "long.json:2: invalid JSON: a number too long to read")


def test_moderate_nesting_in_properties_still_loads(tmp_path):
    path = tmp_path / "ok.json"
    path.write_text(json.dumps({"jobs": [{"id": "a", "submit": 0, "user": "u", "map_count": 1, "map_duration": 1,
                                          "properties": {"x": [[[[{"y": [1]}]]]]}}]}))
    assert load_workload(path).jobs[0].property("x") == [[[[{"y": [1]}]]]]


# --------------------------------------------------------------------------- item 8: big files


def reference_lines(text: str) -> list[tuple[int, str]]:
    return [(n, line) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["", " ", "\t", "a", "b\tc", " x ", "\n", "\n\n", "long" * 5]), max_size=40),
       st.integers(min_value=1, max_value=9))
def test_text_lines_match_a_plain_split(pieces, chunk):
    text = "".join(pieces)
    original = swim._CHUNK
    swim._CHUNK = chunk  # every chunk boundary: inside lines, blank runs, newlines
    try:
        got = list(swim._text_lines(io.StringIO(text)))
    finally:
        swim._CHUNK = original
    assert got == reference_lines(text)


def test_blank_lines_are_streamed_not_held(tmp_path):
    path = tmp_path / "blank.tsv"
    with path.open("w") as fh:
        for _ in range(20):
            fh.write("\n" * 1_000_000)
        fh.write("job0\t0\t0\t1000\t0\t0\n")
        fh.write(" \t \n" * 500_000)
    peak, w = peak_bytes(lambda: load_workload(path))
    assert [j.id for j in w] == ["job0"]
    assert peak < 6 * 2**20, f"a 22 MB trace of blank lines took {peak:,} bytes"  # a chunk or two, not the file
    blank = tmp_path / "only-blank"  # no extension: the format is sniffed a chunk at a time
    blank.write_text("\n" * 3_000_000)
    peak, err = peak_bytes(lambda: load_workload(blank))
    assert isinstance(err, WorkloadError) and err.message == "the SWIM trace has no jobs"
    assert peak < 6 * 2**20


def test_swim_line_numbers_survive_chunking(tmp_path, monkeypatch):
    monkeypatch.setattr(swim, "_CHUNK", 5)
    path = tmp_path / "t.tsv"
    path.write_text("\n\njob0\t0\t0\t1000\t0\t0\n\n \njob1\t1\t1\t1000\t0\n")
    with pytest.raises(WorkloadError) as info:
        load_workload(path)
    assert info.value.line == 6 and "got 5" in str(info.value)


def test_json_memory_is_proportional_to_the_file(tmp_path):
    path = tmp_path / "padded.json"
    job = {"id": "a", "submit": 0, "user": "u", "map_count": 1, "map_duration": 1}
    path.write_text('{"jobs": [' + json.dumps(job) + " " * 10_000_000 + "]}")
    peak, w = peak_bytes(lambda: load_workload(path))
    assert len(w) == 1
    assert peak < 3 * path.stat().st_size  # the text once (plus the bytes read), never a copy per line


def test_sls_objects_are_decoded_one_at_a_time(tmp_path):
    path = tmp_path / "trace.json"
    with path.open("w") as fh:
        for i in range(1500):
            tasks = [{"container.host": f"/default-rack/n{k:04d}", "container.start.ms": 0,
                      "container.end.ms": 10_000 + k, "container.priority": 20, "container.type": "map"}
                     for k in range(20)]
            fh.write(json.dumps({"job.start.ms": i, "job.id": f"job_{i}", "job.tasks": tasks}, indent=2) + "\n")
    peak, w = peak_bytes(lambda: load_workload(path))
    assert len(w) == 1500 and sum(w.task_counts()) == 30_000
    # the text while it is read, not every decoded container beside it (3.3 × before)
    assert peak < 2.4 * path.stat().st_size


def test_workload_json_jobs_are_decoded_one_at_a_time(tmp_path):
    path = tmp_path / "tasks.json"
    jobs = []
    for i in range(1000):
        maps = [{"duration": 10 + k, "input_nodes": [f"n{(i + k) % 100:04d}"]} for k in range(20)]
        jobs.append(json.dumps({"id": f"j{i}", "submit": i, "user": "u", "maps": maps}))
    path.write_text('{"name": "lists", "jobs": [\n' + ",\n".join(jobs) + "\n]}\n")
    peak, w = peak_bytes(lambda: load_workload(path, nodes=[f"n{k:04d}" for k in range(100)]))
    assert (w.name, len(w), sum(w.task_counts())) == ("lists", 1000, 20_000)
    assert peak < 2.5 * path.stat().st_size  # about 8 × before: every task object decoded at once


@pytest.mark.parametrize(("text", "line", "message"), [
    ('{"jobs": [\n{"id": "a", "submit": 0, "user": "u", "map_count": 1, "map_duration": 1},\n{"id": }]}', 3,
     "invalid JSON: Expecting value"),
    ('{"jobs": [\n{"id": "a", "submit": 0, "user": "u", "map_count": 1, "map_duration": 1}],\n"jobs": []}', 3,
     "duplicate key 'jobs' in a JSON object"),
    ('{"jobs": [{"id": "a", "submit": 0, "user": "u", "map_count": 1, "map_duration": 1}]}\n{"jobs": []}', 2,
     'expected one workload object {"jobs": [...]}; more JSON follows it'),
    ('{"jobs": [{"id": "a", "submit": -1, "user": "u", "map_count": 1, "map_duration": 1}],\n "nmae": "x"}', 1,
     "job 'a'.submit: expected a number of seconds ≥ 0, got -1"),
])
def test_streamed_workload_json_errors(tmp_path, text, line, message):
    path = tmp_path / "w.json"
    path.write_text(text)
    with pytest.raises(WorkloadError) as info:
        load_workload(path)
    assert info.value.line == line and info.value.message.startswith(message), info.value


def test_truncated_gzip_is_one_error(tmp_path):
    import gzip

    data = gzip.compress(b"job0\t0\t0\t1000\t0\t0\n" * 1000)
    path = tmp_path / "t.tsv.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(WorkloadError, match="cannot read workload"):
        load_workload(path)


# --------------------------------------------------------------------------- item 12: weights, BOM


def queues_json(tmp_path: Path, allocation: Path) -> dict[str, Any]:
    config = tmp_path / "c.toml"
    config.write_text(f"[scheduler]\nallocation_file = {json.dumps(str(allocation))}\n")
    result = run("queues", "--config", str(config), "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_yarn_weight_beyond_a_java_float_is_an_error():
    path = DATA / "yarn-weight-beyond-float.xml"
    result = run("check", str(path))
    assert result.exit_code == 1
    assert (f'{path}:3: <weight> in queue "root.a" must be a number a Java float holds (at most 3.4e38; '
            "YARN reads a larger weight as Infinity), got '1e39'") in result.output


@pytest.mark.parametrize("name", ["yarn-weight-huge.xml", "mr1-weight-huge.xml"])
def test_huge_weights_are_taken_whole_and_keep_steady_shares_within_the_cluster(tmp_path, name):
    path = DATA / name
    allocations = load_allocations(path)
    assert not any("<weight>" in w for w in allocations.warnings), allocations.warnings
    doc = queues_json(tmp_path, path)
    memory = doc["cluster"]["memory"]
    shares = {q["name"]: q["steady_fair_share"]["memory"] for q in doc["queues"]}
    assert all(isinstance(s, int) and 0 <= s <= memory for s in shares.values()), shares
    assert shares["root.a"] == memory  # 1e20 (1e39) against 1: all but a negligible part
    assert {q["name"]: q["weight"] for q in doc["queues"]}["root.a"] in (1e20, 1e39)


def test_huge_yarn_weights_keep_their_ratios(tmp_path):
    """2e6 : 4e6 divide as 1 : 2 (a cap at 1e6 once made them equal)."""
    path = tmp_path / "ratio.xml"
    path.write_text("<allocations>\n  <queue name=\"a\"><weight>2e6</weight></queue>\n"
                    "  <queue name=\"b\"><weight>4e6</weight></queue>\n</allocations>\n")
    doc = queues_json(tmp_path, path)
    shares = {q["name"]: q["steady_fair_share"]["memory"] for q in doc["queues"]}
    assert abs(shares["root.b"] - 2 * shares["root.a"]) <= 1, shares
    assert shares["root.a"] + shares["root.b"] + shares["root.default"] <= doc["cluster"]["memory"] + 2


def test_float_max_as_java_prints_it_is_a_yarn_weight(tmp_path):
    path = tmp_path / "max.xml"
    path.write_text("<allocations>\n  <queue name=\"a\"><weight>3.4028235e38</weight></queue>\n"
                    "  <queue name=\"b\"><weight>1</weight></queue>\n</allocations>\n")
    assert not load_allocations(path).warnings
    doc = queues_json(tmp_path, path)
    shares = {q["name"]: q["steady_fair_share"]["memory"] for q in doc["queues"]}
    assert shares["root.a"] == doc["cluster"]["memory"] and shares["root.b"] == 0


def test_huge_mr1_weights_keep_their_ratios_in_slot_shares(tmp_path):
    allocation = tmp_path / "wt.xml"
    allocation.write_text("<allocations>\n  <pool name=\"a\"><weight>2e6</weight></pool>\n"
                          "  <pool name=\"b\"><weight>4e6</weight></pool>\n</allocations>\n")
    config = tmp_path / "wt.toml"
    config.write_text(f"[scheduler]\nallocation_file = {json.dumps(str(allocation))}\n")
    state = tmp_path / "st.json"
    state.write_text(json.dumps({"cluster": {"map_slots": 30, "reduce_slots": 3}, "jobs": [
        {"id": "x", "maps": 100, "pool": "a"}, {"id": "y", "maps": 100, "pool": "b"}]}))
    result = run("shares", "--config", str(config), "--state", str(state), "--json")
    assert result.exit_code == 0, result.output
    pools = json.loads(result.stdout)["pools"]
    assert pools["a"]["map"] == pytest.approx(10.0) and pools["b"]["map"] == pytest.approx(20.0)


def test_a_toml_config_with_a_bom_is_read():
    config = Config.from_file(DATA / "bom.toml")
    assert (config.cluster.racks, config.cluster.nodes_per_rack) == (2, 3)
    result = run("check", str(DATA / "bom.toml"))
    assert result.exit_code == 0, result.output
    assert not math.isnan(config.cluster.heartbeat_interval)
