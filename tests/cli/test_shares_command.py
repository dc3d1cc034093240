"""``corescheduler shares`` and :mod:`corescheduler.formats.state`: fair shares for a
snapshot, computed by the scheduler itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run

from corescheduler import compute_fair_shares
from corescheduler.config import Config
from corescheduler.errors import CoreSchedulerError
from corescheduler.formats.allocation_file import parse_allocations
from corescheduler.formats.state import (
    Snapshot,
    StateError,
    evaluate_snapshot,
    load_state,
    shares_for_snapshot,
)
from corescheduler.testing import ClusterHarness


@pytest.fixture
def write(tmp_path: Path):
    def write(name: str, content: Any) -> Path:
        path = tmp_path / name
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
        return path

    return write


def table(stdout: str) -> dict[str, list[str]]:
    """Plain table rows by their first cell (job rows keep their indent)."""
    lines = stdout.splitlines()
    assert lines[0].split() == [
        "pool",
        "/",
        "job",
        "map",
        "share",
        "reduce",
        "share",
        "map",
        "demand",
        "reduce",
        "demand",
    ]
    rows = {}
    for line in lines[1:]:
        cells = line.split()
        key = ("  " if line.startswith("  ") else "") + cells[0]
        rows[key] = cells[-4:]
    return rows


def pools_snapshot(demands, capacity, **pool_settings) -> dict[str, Any]:
    """One job per pool p0, p1, ... with the given map demands."""
    return {
        "cluster": {"map_slots": capacity, "reduce_slots": 0},
        "pools": {f"p{i}": settings for i, settings in pool_settings.get("pools", {}).items()},
        "jobs": [{"id": f"j{i}", "pool": f"p{i}", "maps": d} for i, d in enumerate(demands)],
    }


# --------------------------------------------------------------------------- Hadoop cases

# Hadoop 1.x TestComputeFairShares, run through the scheduler: one pool per
# schedulable, pool settings from the snapshot.
HADOOP_CASES = {
    # testEqualSharing: 4 pools on 40 slots, demands 100, 50, 30, 20 -> 10 each
    "equal": ([100, 50, 30, 20], 40, {}, [10, 10, 10, 10]),
    # testLowDemands: small demands are met, the rest split what is left
    "low_demands": ([100, 50, 11, 3], 40, {}, [13, 13, 11, 3]),
    # testWeightedSharing: weights 2, 1, 1, 0.5
    "weighted": ([100, 100, 100, 100], 45, {0: {"weight": 2.0}, 3: {"weight": 0.5}}, [20, 10, 10, 5]),
    # a pool with a minimum share gets it first; the others split the rest
    "min_share": ([100, 50, 30, 20], 40, {1: {"min_maps": 20}}, [20 / 3, 20, 20 / 3, 20 / 3]),
    # testMinSharesAndWeights-like: a minimum below the weighted share changes nothing
    "small_min_share": ([100, 50, 30, 20], 40, {0: {"min_maps": 5}}, [10, 10, 10, 10]),
    # a cap (maxMaps) below the share frees slots for the others
    "max_share": ([100, 100, 100], 30, {0: {"max_maps": 4}}, [4, 13, 13]),
}


@pytest.mark.parametrize("case", list(HADOOP_CASES))
def test_hadoop_cases(case):
    demands, capacity, pools, expected = HADOOP_CASES[case]
    state = pools_snapshot(demands, capacity, pools=pools)
    result = shares_for_snapshot(Config(), state, "state.json")
    got = [result["pools"][f"p{i}"]["map"] for i in range(len(demands))]
    assert got == pytest.approx(expected, abs=0.01)
    for i, share in enumerate(got):  # a job alone in its pool gets the pool's share
        assert result["jobs"][f"j{i}"]["map"] == share
    assert result["pools"]["default"] == {"map": 0.0, "reduce": 0.0}
    # the very same maths as the library function
    items = [
        {
            "weight": pools.get(i, {}).get("weight", 1.0),
            "min_share": pools.get(i, {}).get("min_maps", 0),
            "demand": d,
            "max_share": pools.get(i, {}).get("max_maps"),
        }
        for i, d in enumerate(demands)
    ]
    assert got == compute_fair_shares([{"weight": 1, "min_share": 0, "demand": 0}, *items], capacity)[1:]


def test_command_equal_sharing_table_and_json(write):
    state = write("state.json", pools_snapshot([100, 50, 30, 20], 40))
    result = run("shares", "--state", str(state))
    assert result.exit_code == 0, result.output
    rows = table(result.stdout)
    assert list(rows) == ["default", "p0", "  j0", "p1", "  j1", "p2", "  j2", "p3", "  j3"]
    assert rows["p0"] == ["10", "0", "100", "0"]
    assert rows["  j3"] == ["10", "0", "20", "0"]

    result = run("shares", "--state", str(state), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"pools", "jobs"}
    assert data["pools"]["p2"] == {"map": 10.0, "reduce": 0.0}
    assert data["jobs"] == {f"j{i}": {"map": 10.0, "reduce": 0.0} for i in range(4)}


ALLOC_XML = """\
<?xml version="1.0"?>
<allocations>
  <pool name="prod">
    <minMaps>20</minMaps>
    <minReduces>5</minReduces>
  </pool>
  <pool name="batch">
    <schedulingMode>fifo</schedulingMode>
  </pool>
</allocations>
"""


def test_command_with_allocation_file_min_share_and_fifo(write):
    write("alloc.xml", ALLOC_XML)
    config = write("corescheduler.toml", '[scheduler]\nallocation_file = "alloc.xml"\n')
    state = write(
        "state.json",
        {
            "cluster": {"map_slots": 40, "reduce_slots": 20},
            "jobs": [
                {"id": "a1", "pool": "adhoc", "maps": 100, "reduces": 10},
                {"id": "p1", "pool": "prod", "maps": 50, "reduces": 5, "running_maps": 10},
                {"id": "b1", "pool": "batch", "maps": 30},
                {"id": "b2", "pool": "batch", "maps": 30, "submit": 1.0},
            ],
        },
    )
    result = run("shares", "--config", str(config), "--state", str(state))
    assert result.exit_code == 0, result.output
    rows = table(result.stdout)
    assert list(rows) == ["default", "prod", "  p1", "batch", "  b1", "  b2", "adhoc", "  a1"]
    assert rows["prod"] == ["20", "5", "50", "5"]
    assert rows["batch"] == ["10", "0", "60", "0"]
    assert rows["  b1"] == ["n/a", "n/a", "30", "0"]  # jobs in a fifo pool have no fair share
    assert rows["adhoc"] == ["10", "10", "100", "10"]

    data = json.loads(run("shares", "--config", str(config), "--state", str(state), "--json").stdout)
    assert data["pools"]["prod"] == {"map": 20.0, "reduce": 5.0}
    assert data["jobs"]["b2"] == {"map": None, "reduce": None}
    assert data["jobs"]["a1"]["map"] == pytest.approx(10.0)


def test_snapshot_pools_override_the_allocation_file(write):
    write("alloc.xml", ALLOC_XML)
    config = Config.from_file(write("c.toml", '[scheduler]\nallocation_file = "alloc.xml"\n'))
    state = {
        "cluster": {"map_slots": 40},
        "pools": [{"name": "prod", "min_maps": 0, "weight": 3}, {"name": "batch", "scheduling_mode": "FAIR"}],
        "jobs": [
            {"id": "p", "pool": "prod", "maps": 100},
            {"id": "b", "pool": "batch", "maps": 100},
        ],
    }
    scheduler = evaluate_snapshot(config, state, "state.json")
    spec = scheduler.allocations.pools["prod"]
    assert (spec.min_maps, spec.min_reduces, spec.weight) == (0, 5, 3.0)  # unset fields kept from the file
    shares = scheduler.shares()
    assert shares["pools"]["prod"]["map"] == pytest.approx(30.0)
    assert shares["jobs"]["b"]["map"] == pytest.approx(10.0)  # batch is fair now


def test_priority_weights_jobs_inside_a_pool():
    state = {
        "cluster": {"map_slots": 30},
        "jobs": [
            {"id": "low", "pool": "a", "maps": 100},
            {"id": "high", "pool": "a", "maps": 100, "priority": "high"},
        ],
    }
    jobs = shares_for_snapshot(Config(), state)["jobs"]
    assert jobs["low"]["map"] == pytest.approx(10.0, abs=0.01)
    assert jobs["high"]["map"] == pytest.approx(20.0, abs=0.01)


def test_running_job_limit_leaves_jobs_waiting(write):
    write("alloc.xml", '<allocations><pool name="a"><maxRunningJobs>1</maxRunningJobs></pool></allocations>')
    config = write("c.toml", '[scheduler]\nallocation_file = "alloc.xml"\n')
    state = write(
        "state.json",
        {
            "cluster": {"map_slots": 10},
            "jobs": [{"id": "first", "pool": "a", "maps": 50}, {"id": "second", "pool": "a", "maps": 50, "submit": 2}],
        },
    )
    result = run("shares", "--config", str(config), "--state", str(state))
    assert result.exit_code == 0, result.output
    assert "  second (waiting)" in result.stdout
    rows = table(result.stdout)
    assert rows["  first"] == ["10", "0", "50", "0"]
    assert rows["  second"] == ["0", "0", "0", "0"]


def test_pool_resolver_places_jobs_without_a_pool():
    state = {"cluster": {"map_slots": 8}, "jobs": [{"id": "j", "user": "alice", "maps": 3}, {"id": "k", "maps": 3}]}
    result = shares_for_snapshot(Config(), state)
    assert result["pools"]["alice"]["map"] == 3.0  # property resolver: queue.name, then user.name
    assert result["pools"]["default"]["map"] == 3.0


def test_cluster_per_node_shape_and_config_default():
    per_node = {"cluster": {"racks": 2, "nodes_per_rack": 5, "map_slots": 2}, "jobs": [{"maps": 100}]}
    assert shares_for_snapshot(Config(), per_node)["jobs"]["job_0001"]["map"] == pytest.approx(20.0)
    # no "cluster": the config's [cluster] (10 x 10 nodes, 2 map slots and 1 reduce slot each)
    no_cluster = {"jobs": [{"maps": 1000, "reduces": 1000}]}
    assert shares_for_snapshot(Config(), no_cluster)["jobs"]["job_0001"] == pytest.approx(
        {"map": 200.0, "reduce": 100.0}
    )


def test_same_answer_as_the_harness():
    """The snapshot path and a live scheduler driven by the harness agree."""
    xml = '<allocations><pool name="a"><minMaps>3</minMaps><weight>2</weight></pool></allocations>'
    h = ClusterHarness(racks=1, nodes_per_rack=1, map_slots=12, reduce_slots=6, allocations=xml)
    h.submit(maps=10, reduces=4, pool="a")
    h.submit(maps=2, reduces=9, pool="b", priority="HIGH")
    h.submit(maps=7, reduces=1, pool="a", priority="LOW")
    state = {
        "cluster": {"map_slots": 12, "reduce_slots": 6},
        "jobs": [
            {"pool": "a", "maps": 10, "reduces": 4},
            {"pool": "b", "maps": 2, "reduces": 9, "priority": "HIGH"},
            {"pool": "a", "maps": 7, "reduces": 1, "priority": "LOW"},
        ],
    }
    allocations = parse_allocations(xml)
    scheduler = evaluate_snapshot(Config(), state, allocations=allocations)
    assert scheduler.shares() == h.shares()


def test_time_drives_weight_adjusters_through_the_scheduler():
    scheduler = evaluate_snapshot(Config(), {"time": 30, "jobs": [{"maps": 1, "submit": 4}]})
    assert scheduler.now == 30.0
    assert scheduler.job("job_0001").submit_time == 4.0


# --------------------------------------------------------------------------- bad snapshots


@pytest.mark.parametrize(
    ("state", "message"),
    [
        (
            {"jobs": [{"id": "a", "maps": 1}] * 3 + [{"id": "d", "maps": -1}]},
            "jobs[3].maps: expected a non-negative integer, got -1",
        ),
        ({"jobs": [{"maps": 1.5}]}, "jobs[0].maps: expected a non-negative integer, got 1.5"),
        ({"jobs": [{"maps": True}]}, "jobs[0].maps: expected a non-negative integer, got true"),
        ({"jobs": [{"maps": 2, "priority": "urgent"}]}, "jobs[0].priority: expected one of VERY_HIGH"),
        ({"jobs": [{"maps": 2, "running_maps": 3}]}, "jobs[0].running_maps: expected at most maps (2)"),
        ({"jobs": [{"maps": 2, "submit": -1}]}, "jobs[0].submit: expected a non-negative number, got -1"),
        ({"jobs": [{"maps": 2, "pool": ""}]}, 'jobs[0].pool: expected a non-empty string or null, got ""'),
        ({"jobs": [{"maps": 2, "mpas": 3}]}, "jobs[0].mpas: unknown field"),
        ({"jobs": [{"id": "x", "maps": 1}, {"id": "x", "maps": 1}]}, "jobs[1].id: duplicate job id 'x'"),
        ({"jobs": [{"maps": 0}]}, "jobs[0]: a job needs maps or reduces above 0"),
        ({"jobs": [7]}, "jobs[0]: expected a job object, got 7"),
        ({"jobs": {"j": {}}}, "jobs: expected an array of jobs, got an object"),
        ({"cluster": {"map_slots": -40}}, "cluster.map_slots: expected a non-negative integer, got -40"),
        ({"cluster": {"racks": 0, "map_slots": 1}}, "cluster.racks: expected at least 1, got 0"),
        ({"cluster": 40}, "cluster: expected an object"),
        ({"pools": {"a": {"weight": "heavy"}}}, 'pools.a.weight: expected a non-negative number, got "heavy"'),
        ({"pools": {"my pool": {"min_maps": -1}}}, 'pools["my pool"].min_maps: expected a non-negative integer'),
        ({"pools": [{"weight": 1}]}, "pools[0]: missing field name"),
        ({"pools": [{"name": "a"}, {"name": "a"}]}, "pools[1]: pool 'a' given more than once"),
        ({"pools": {"a": {"scheduling_mode": "lottery"}}}, "pools.a.scheduling_mode: expected 'fair' or 'fifo'"),
        ({"pools": {"a": {"minMaps": 3}}}, "pools.a.minMaps: unknown field; expected one of weight, min_maps"),
        ({"time": 1, "jobs": [{"maps": 1, "submit": 5}]}, "time: expected a time no earlier than the latest"),
        ({"jbos": []}, "jbos: unknown field; expected one of time, cluster, pools, jobs"),
        ([1, 2], "expected a JSON object"),
    ],
)
def test_bad_snapshot_fields(write, state, message):
    with pytest.raises(StateError) as exc:
        Snapshot.from_mapping(state, "state.json")
    assert str(exc.value).startswith("state.json: ")
    assert message in str(exc.value)
    assert isinstance(exc.value, CoreSchedulerError)

    path = write("state.json", state)
    result = run("shares", "--state", str(path))
    assert result.exit_code == 1
    assert not result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"error: {path}: ")
    assert message in lines[0]
    assert "Traceback" not in result.output


def test_every_problem_is_reported_on_one_line(write):
    path = write("state.json", {"cluster": {"map_slots": -1}, "jobs": [{"maps": -1}, {"maps": 1, "user": 3}]})
    result = run("shares", "--state", str(path))
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    for fragment in ("cluster.map_slots", "jobs[0].maps", "jobs[1].user"):
        assert f"{path}: {fragment}: " in line


def test_invalid_json_names_the_line(write):
    path = write("state.json", '{"jobs": [\n  {"maps": 1,}\n]}')
    result = run("shares", "--state", str(path))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {path}:2: invalid JSON")
    assert "Traceback" not in result.output


def test_missing_state_file(tmp_path):
    result = run("shares", "--state", str(tmp_path / "nope.json"))
    assert result.exit_code == 1
    assert "nope.json: cannot read snapshot" in result.stderr
    with pytest.raises(StateError):
        load_state(tmp_path / "nope.json")


def test_bad_config_and_allocation_file_are_user_errors(write):
    state = write("state.json", {"jobs": [{"maps": 1}]})
    bad_config = write("bad.toml", "[scheduler]\nshare_policy = 'nope'\n")
    result = run("shares", "--config", str(bad_config), "--state", str(state))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {bad_config}:2:") and "unknown plugin 'nope'" in result.stderr

    write("alloc.xml", "<allocations>\n<pool name='a'><weight>x</weight></pool></allocations>")
    config = write("c.toml", '[scheduler]\nallocation_file = "alloc.xml"\n')
    result = run("shares", "--config", str(config), "--state", str(state))
    assert result.exit_code == 1
    assert "alloc.xml:2:" in result.stderr and len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.output


def test_state_is_required():
    result = run("shares")
    assert result.exit_code == 2
