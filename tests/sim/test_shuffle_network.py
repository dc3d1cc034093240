"""The simulator's shuffle: reduces fetch their partitions from where the maps ran, at the
``[cluster]`` bandwidths; bytes by locality, TND and WTND in metrics.json; no change at all
for workloads without shuffle data."""

from __future__ import annotations

import json
import random

import pytest

from corescheduler.config import Config
from corescheduler.core.shuffle import ShuffleSpec
from corescheduler.errors import WorkloadError
from corescheduler.formats.workloads import load_workload
from corescheduler.sim.network import _NetJob
from corescheduler.sim.simulator import Simulation

BW = {"disk_bandwidth": 100e6, "rack_bandwidth": 50e6, "core_bandwidth": 10e6}


def run(tmp_path, jobs, *, cluster=None, simulation=None, scheduler=None, seed=3):
    (tmp_path / "w.json").write_text(json.dumps({"jobs": jobs}))
    config = Config.from_dict(
        {"scheduler": {"reduce_slowstart": 1.0, **(scheduler or {})},
         "cluster": {"racks": 2, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1, **BW, **(cluster or {})},
         "simulation": {"phase_events": True, **(simulation or {})}},
        source=str(tmp_path / "c.toml"))
    workload = load_workload(tmp_path / "w.json", config=config, seed=seed)
    return Simulation(config, workload, seed).run()


def by_type(result, kind):
    return [e for e in result.event_list if e["type"] == kind]


def one_job(shuffle, **extra):
    return {"id": "j", "submit": 0, "user": "u", "maps": [{"duration": 10, "input_nodes": ["n0000"]}],
            "reduces": [{"duration": 5}], "shuffle": shuffle, **extra}


def test_a_reduce_copies_its_partition_at_the_bandwidth_of_where_it_lies(tmp_path) -> None:
    result = run(tmp_path, [one_job({"bytes": 250e6})])
    (start,) = [e for e in by_type(result, "task_start") if e["kind"] == "reduce"]
    (phase,) = by_type(result, "task_phase")
    (finish,) = [e for e in by_type(result, "task_finish") if e["kind"] == "reduce"]
    local = start["node"] == "n0000"  # the map ran on n0000 (rack r00); n0001 is the other rack
    copy = 250e6 / (BW["disk_bandwidth"] if local else BW["core_bandwidth"])
    assert phase["time"] == pytest.approx(start["time"] + copy)
    assert finish["time"] == pytest.approx(phase["time"] + 5)
    (row,) = result.metrics["jobs"][0]["shuffle"]["reduces"]
    assert row["bytes"] == ({"node": 250e6, "rack": 0, "off_rack": 0} if local
                            else {"node": 0, "rack": 0, "off_rack": 250e6})
    assert row["tnd"] == row["wtnd"] == (0 if local else 4)
    assert row["copy_seconds"] == pytest.approx(copy)
    summary = result.metrics["summary"]["shuffle"]
    assert summary["off_rack_fraction"] == (0 if local else 1) and summary["reduces"] == 1


def test_partitions_of_maps_finishing_after_the_reduce_started_queue_behind_each_other(tmp_path) -> None:
    """Slow start 0: the reduce starts before both maps end.  Map a (n0000) ends at t₁ with a
    partition taking f₁, map b (n0001) at t₂ with f₂; fetching one at a time, each no
    earlier than its map ended: end = max(t₁ + f₁ + f₂, t₂ + f₂)."""
    jobs = [{"id": "j", "submit": 0, "user": "u",
             "maps": [{"duration": 10, "input_nodes": ["n0000"]}, {"duration": 12, "input_nodes": ["n0001"]}],
             "reduces": [{"duration": 5}], "shuffle": {"partition": [[400e6], [20e6]]}}]
    result = run(tmp_path, jobs, scheduler={"reduce_slowstart": 0.0},
                 cluster={"map_slots": 1, "reduce_slots": 1})
    ends = {e["task"]: e for e in by_type(result, "task_finish")}
    starts = {e["task"]: e for e in by_type(result, "task_start")}
    r = starts["j_r_000000"]
    assert r["time"] < ends["j_m_000000"]["time"]  # it started while the maps ran
    inv = {True: 1 / BW["disk_bandwidth"], False: 1 / BW["core_bandwidth"]}
    t1, t2 = ends["j_m_000000"]["time"], ends["j_m_000001"]["time"]
    f1 = 400e6 * inv[r["node"] == "n0000"]
    f2 = 20e6 * inv[r["node"] == "n0001"]
    ordered = sorted([(t1, f1), (t2, f2)])
    end = r["time"]
    for t, f in ordered:
        end = max(end, t) + f
    (phase,) = by_type(result, "task_phase")
    assert phase["time"] == pytest.approx(end)
    assert end > max(t1, t2) + min(f1, f2)  # the queue cost something


def test_the_vectorised_fetch_is_the_same_queue(tmp_path) -> None:
    config = Config.from_dict({"cluster": {"racks": 3, "nodes_per_rack": 4, **BW}})
    (tmp_path / "x.json").write_text(json.dumps({"jobs": [one_job({"bytes": 1.0})]}))
    sim = Simulation(config, load_workload(tmp_path / "x.json", config=config), 0)
    rng = random.Random(5)

    class FakeSpec:
        maps = [None] * 200
        reduces = [None] * 7

    for matrix in (None, tuple(tuple(rng.random() * 1e8 for _ in range(7)) for _ in range(200))):
        FakeSpec.shuffle = ShuffleSpec(bytes=3e9, skew=1.1) if matrix is None else ShuffleSpec(matrix=matrix)

        class FakeJob:
            spec = FakeSpec

        nj = _NetJob(FakeJob)
        t = 0.0
        for index in rng.sample(range(200), 200):
            t += rng.random() * 2
            node = rng.randrange(12)
            nj.done(t, node, sim._shuffle._rack_ix[node], index)
        for r in range(7):
            for p0 in (0, 57, 200):
                a = sim._shuffle._fetch_python(nj, r, 5, sim._shuffle._rack_ix[5], 3.0, p0)
                b = sim._shuffle._fetch_numpy(nj, r, 5, sim._shuffle._rack_ix[5], 3.0, p0)
                assert a[0] == pytest.approx(b[0], rel=1e-12)
                assert a[1] == pytest.approx(b[1], rel=1e-12)
                assert a[2:] == pytest.approx(b[2:], rel=1e-12)


NO_SHUFFLE = [{"id": f"j{i}", "submit": i * 3, "user": f"u{i % 3}", "map_count": 6 + i, "map_duration": 7 + i,
               "reduce_count": 2, "reduce_duration": 9} for i in range(8)]


def test_a_workload_without_shuffle_data_runs_exactly_as_with_the_model_off(tmp_path) -> None:
    cluster = {"racks": 2, "nodes_per_rack": 3, "map_slots": 2, "reduce_slots": 1}
    auto = run(tmp_path, NO_SHUFFLE, cluster=cluster, scheduler={"reduce_slowstart": 0.05})
    off = run(tmp_path, NO_SHUFFLE, cluster=cluster, scheduler={"reduce_slowstart": 0.05},
              simulation={"shuffle": "off"})
    assert auto.event_list == off.event_list
    assert "shuffle" not in auto.metrics["summary"]
    # and a shuffle description under shuffle = "off" is ignored: the same run as without it
    described = [{**job, "shuffle": {"bytes": 1e9, "partition": {"zipf": 1}}} for job in NO_SHUFFLE]
    ignored = run(tmp_path, described, cluster=cluster, scheduler={"reduce_slowstart": 0.05},
                  simulation={"shuffle": "off"})
    assert ignored.event_list == off.event_list
    # with the model on, the same jobs' copies change
    modelled = run(tmp_path, described, cluster=cluster, scheduler={"reduce_slowstart": 0.05})
    assert modelled.event_list != off.event_list
    assert modelled.metrics["summary"]["shuffle"]["reduces"] == 16


def test_swim_jobs_use_the_network_only_when_asked(tmp_path) -> None:
    (tmp_path / "t.tsv").write_text("job0\t0\t0\t268435456\t2000000000\t100000000\n")
    plain = load_workload(tmp_path / "t.tsv")
    assert plain.jobs[0].shuffle is None and plain.jobs[0].reduces[0].copy_duration > 0
    config = Config.from_dict({"simulation": {"shuffle": "network", "shuffle_skew": 0.5}})
    net = load_workload(tmp_path / "t.tsv", config=config)
    job = net.jobs[0]
    assert job.shuffle.bytes == 2e9 and job.shuffle.skew == 0.5
    assert job.reduces[0].copy_duration is None
    assert job.reduces[0].duration < plain.jobs[0].reduces[0].duration  # no copy time in it


@pytest.mark.parametrize("shuffle, words", [
    ({"partition": "uniform"}, "shuffle.bytes: expected the job's map output"),
    ({"bytes": -1}, "shuffle.bytes: expected"),
    ({"bytes": 1, "partition": "zipf"}, "shuffle.partition: expected"),
    ({"bytes": 1, "partition": {"zipf": -2}}, "partition.zipf: expected a skew ≥ 0"),
    ({"partition": [[1.0], [2.0]]}, "the matrix has 2 rows; expected one per map (1)"),
    ({"partition": [[1.0, 2.0]]}, "row 0 of the matrix has 2 sizes; expected one per reduce (1)"),
    ({"partition": [["x"]]}, "shuffle.partition[0]: expected a list of bytes"),
    ({"bytes": 1, "partition": [[1.0]]}, "a matrix gives the sizes; leave bytes out"),
    ({"bytes": 1, "skew": 1}, "skew"),
    ("lots", "expected an object with bytes and partition"),
])
def test_bad_shuffle_descriptions_name_the_field(tmp_path, shuffle, words) -> None:
    (tmp_path / "w.json").write_text(json.dumps({"jobs": [one_job(shuffle)]}))
    with pytest.raises(WorkloadError) as err:
        load_workload(tmp_path / "w.json")
    assert words in str(err.value)
    assert "job 'j'" in str(err.value)


def test_a_shuffle_needs_reduces(tmp_path) -> None:
    job = {"id": "j", "submit": 0, "user": "u", "map_count": 2, "map_duration": 1, "shuffle": {"bytes": 5}}
    (tmp_path / "w.json").write_text(json.dumps({"jobs": [job]}))
    with pytest.raises(WorkloadError, match="no reduces"):
        load_workload(tmp_path / "w.json")


def test_bad_network_settings_name_the_key() -> None:
    with pytest.raises(Exception, match=r"\[cluster\] core_bandwidth: must be > 0"):
        Config.from_dict({"cluster": {"core_bandwidth": 0}})
    with pytest.raises(Exception, match=r"\[simulation\] shuffle: expected one of"):
        Simulation(Config.from_dict({"simulation": {"shuffle": "yes"}}), load_workload("builtin:facebook"), 0)


def test_the_report_shows_the_shuffle(tmp_path) -> None:
    from corescheduler.sim.report import summary_rows

    result = run(tmp_path, [one_job({"bytes": 250e6})])
    rows = {row[0]: row[1:] for row in summary_rows([("net", result.metrics)])}
    assert rows["off-rack share of shuffle"][0] in ("0.0%", "100.0%")
    assert rows["shuffle bytes node-local"][0] in ("0.25 GB", "0.00 GB")


def test_shuffle_bytes_need_maps_to_produce_them(tmp_path) -> None:
    job = {"id": "j", "submit": 0, "user": "u", "map_count": 0, "map_duration": 1, "reduce_count": 2,
           "reduce_duration": 3, "shuffle": {"bytes": 1e9}}
    (tmp_path / "w.json").write_text(json.dumps({"jobs": [job]}))
    with pytest.raises(WorkloadError, match="no maps to produce"):
        load_workload(tmp_path / "w.json")
