"""Tests of corescheduler.formats.workloads: workload JSON, YARN SLS JSON, SWIM TSV,
builtin:facebook, their errors, and HDFS-style replica placement."""

from __future__ import annotations

import gzip
import math
import random
import re
from collections import Counter
from pathlib import Path

import paths
import pytest
from hypothesis import given
from hypothesis import strategies as st

from corescheduler.config import Config
from corescheduler.core.model import JobSpec, TaskSpec
from corescheduler.errors import ConfigError, WorkloadError
from corescheduler.formats.workloads import (
    FACEBOOK_BINS,
    MAX_PROBLEMS,
    SIZE_BINS,
    WORKLOAD_KEYS,
    ReplicaPlacer,
    Workload,
    WorkloadSettings,
    load_workload,
    place_replicas,
    size_bin,
    swim_tasks,
)
from corescheduler.resources import Resources
from corescheduler.settings import Settings

DATA = paths.DATA / "workloads"
SWIM_DIR = paths.SHARED / "workloads" / "swim"
NODES = [f"n{i:04d}" for i in range(100)]  # the default [cluster]: 10 racks × 10 nodes
MiB = 2**20


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- size bins


@pytest.mark.parametrize(
    ("maps", "label"),
    [
        (0, "1"),
        (1, "1"),
        (2, "2"),
        (3, "3-20"),
        (20, "3-20"),
        (21, "21-60"),
        (60, "21-60"),
        (61, "61-150"),
        (150, "61-150"),
        (151, "151-300"),
        (300, "151-300"),
        (301, "301-500"),
        (500, "301-500"),
        (501, "501-1500"),
        (1500, "501-1500"),
        (1501, ">1500"),
        (4800, ">1500"),
    ],
)
def test_size_bins_are_the_papers_nine(maps: int, label: str) -> None:
    assert size_bin(maps) == label
    job = JobSpec(maps=(TaskSpec(1.0),) * maps, reduces=(TaskSpec(1.0),), id="j", submit=0.0)
    assert Workload(jobs=(job,), source="x", name="x").size_bin(job) == label
    assert label in SIZE_BINS and len(SIZE_BINS) == 9


# --------------------------------------------------------------------------- workload JSON


def test_spec_json_parses_to_expected_jobs() -> None:
    w = load_workload(DATA / "spec-example.json", nodes=NODES)
    assert w.name == "spec-example" and w.source == str(DATA / "spec-example.json")
    assert [j.id for j in w.jobs] == ["j1", "j0", "j2"]  # sorted by (submit, id)
    j1, j0, j2 = w.jobs
    assert j1 == JobSpec(
        maps=(TaskSpec(12.0, ("n0001", "n0042", "n0007")), TaskSpec(8.5)),
        reduces=(TaskSpec(30.0, copy_duration=10.0),),
        user="alice",
        pool="prod",
        priority="NORMAL",
        id="j1",
        submit=0.0,
    )
    assert j0 == JobSpec(maps=(TaskSpec(1.0),), user="carol", id="j0", submit=5.0)
    assert j2 == JobSpec(
        maps=(TaskSpec(10.0),) * 3,
        reduces=(TaskSpec(40.0, copy_duration=15.0),),
        user="bob",
        priority="HIGH",
        properties={"mapred.job.name": "daily report"},
        groups=("analysts",),
        id="j2",
        submit=5.0,
    )
    # map_count jobs share one TaskSpec object: memory stays flat for huge jobs
    assert j2.maps[0] is j2.maps[1] is j2.maps[2]
    assert all(isinstance(j.submit, float) for j in w.jobs)


def test_spec_json_without_nodes_does_not_check_node_names(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "w.json",
        '{"jobs": [{"id": "a", "submit": 0, "user": "u", "maps": [{"duration": 1, "input_nodes": ["h1"]}]}]}',
    )
    assert load_workload(path).jobs[0].maps[0].input_nodes == ("h1",)


def test_priority_is_case_insensitive_and_defaults_to_normal(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "w.json",
        '{"jobs": [{"id": "a", "submit": 0, "user": "u", "priority": "very_high", "map_count": 1, "map_duration": 2},'
        ' {"id": "b", "submit": 0, "user": "u", "map_count": 1, "map_duration": 2}]}',
    )
    assert [j.priority for j in load_workload(path).jobs] == ["VERY_HIGH", "NORMAL"]


def test_file_name_is_the_workload_name(tmp_path: Path) -> None:
    path = write(
        tmp_path, "nightly.json", '{"jobs": [{"id": "a", "submit": 0, "user": "u", "maps": [{"duration": 1}]}]}'
    )
    assert load_workload(path).name == "nightly"


def test_format_is_sniffed_without_an_extension(tmp_path: Path) -> None:
    json_path = write(tmp_path, "jobs", '{"jobs": [{"id": "a", "submit": 0, "user": "u", "maps": [{"duration": 1}]}]}')
    tsv_path = write(tmp_path, "trace", "job0\t1\t1\t100\t0\t0\n")
    assert load_workload(json_path).jobs[0].id == "a"
    assert load_workload(tsv_path).jobs[0].id == "job0"


def test_gzipped_files_are_read(tmp_path: Path) -> None:
    path = tmp_path / "trace.tsv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("job0\t1\t1\t100\t0\t0\n")
    assert load_workload(path).jobs[0].id == "job0"


# --------------------------------------------------------------------------- YARN SLS JSON


def test_sls_trace_of_concatenated_objects() -> None:
    w = load_workload(DATA / "sls-jobs.json", nodes=NODES)
    assert [j.id for j in w.jobs] == ["job_1", "job_1_0", "job_1_1"]
    first = w.jobs[0]
    # container.end.ms - container.start.ms; duration.ms with count 2; the host
    # becomes an input node only when it names a node of the cluster
    assert first.maps == (TaskSpec(17.043, ("n0001",)), TaskSpec(14.928), TaskSpec(14.928))
    assert first.reduces == (TaskSpec(40.0, resources=Resources(2048, 1)),)  # container.memory, default vcores
    assert first.task_resources == Resources(1024, 1) and first.am_resources == Resources(1024, 1)  # SLS's defaults
    assert (first.user, first.pool, first.priority, first.submit) == ("default", "sls_queue_1", "NORMAL", 0.0)
    assert first.properties == {"am.type": "mapreduce", "job.end.ms": 95375}
    # job.count 2: two jobs with generated ids; default user; ms -> s
    for job in w.jobs[1:]:
        assert job.user == "default" and job.pool == "sls_queue_2" and job.submit == 105.204
        assert job.maps == (TaskSpec(22.163, ("n0001",)),) and job.reduces == ()


def test_sls_hosts_without_cluster_nodes_give_no_locality() -> None:
    w = load_workload(DATA / "sls-jobs.json")
    assert all(not t.input_nodes for j in w.jobs for t in j.maps)


def test_sls_top_level_array(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "sls.json",
        '[{"job.start.ms": 2000, "job.id": "a",\n'
        '  "job.tasks": [{"container.duration.ms": 500, "container.type": "map"}]},'
        ' {"job.start.ms": 1000, "job.id": "b", "job.tasks": [{"duration.ms": 1500}]}]',
    )
    w = load_workload(path)
    assert [(j.id, j.submit, j.maps) for j in w.jobs] == [("b", 1.0, (TaskSpec(1.5),)), ("a", 2.0, (TaskSpec(0.5),))]


# --------------------------------------------------------------------------- SWIM TSV


def test_swim_rows_derive_tasks_from_bytes() -> None:
    s = WorkloadSettings()
    w = load_workload(DATA / "swim-small.tsv", settings=s, seed=3)
    assert [j.id for j in w.jobs] == ["job0", "job1", "job2"]
    job0, job1, job2 = w.jobs
    # job0: 740,773 input bytes -> 1 map; 2,339,561 shuffle bytes -> 1 reduce
    assert job0.submit == 49.0
    assert job0.maps == (TaskSpec(round(2.0 + 740773 / (10 * MiB), 3)),)
    copy = 2339561 / (20 * MiB)
    assert job0.reduces == (TaskSpec(round(2.0 + copy + 627471 / (10 * MiB), 3), copy_duration=round(copy, 3)),)
    assert job0.properties == {"swim.input_bytes": 740773, "swim.shuffle_bytes": 2339561, "swim.output_bytes": 627471}
    # job1: an empty job still has one map (overhead only), and no reduces
    assert job1.maps == (TaskSpec(2.0),) and job1.reduces == ()
    # job2: 53 GB -> ceil(53088744165 / 128 MiB) = 396 maps, all one shared TaskSpec;
    # 1.51 GB shuffle -> 2 reduces; the 7th column is kept as a property
    assert len(job2.maps) == math.ceil(53088744165 / (128 * MiB)) == 396
    assert len({id(t) for t in job2.maps}) == 1
    assert len(job2.reduces) == 2
    assert job2.properties["swim.input_path"] == "inputPath1"
    for job in w.jobs:
        assert job.user.startswith("user") and job.pool.startswith("pool")


def test_swim_map_only_jobs_write_output_in_the_maps() -> None:
    s = WorkloadSettings(task_overhead=1.0, map_rate=100.0, reduce_rate=50.0, block_size=1000)
    maps, reduces = swim_tasks(2500, 0, 1500, s)
    assert reduces == () and len(maps) == 3
    assert maps[0].duration == round(1.0 + (2500 / 3) / 100.0 + (1500 / 3) / 50.0, 3)


def test_swim_caps_and_rates() -> None:
    s = WorkloadSettings(block_size=100, bytes_per_reduce=10, max_maps=4, max_reduces=3, task_overhead=0.5)
    maps, reduces = swim_tasks(1000, 1000, 300, s)
    assert len(maps) == 4 and len(reduces) == 3
    assert maps[0].duration == round(0.5 + 250 / s.map_rate, 3)
    copy = (1000 / 3) / s.shuffle_rate
    assert reduces[0] == TaskSpec(round(0.5 + copy + 100 / s.reduce_rate, 3), copy_duration=round(copy, 3))


def test_swim_users_are_seeded_and_pools_optional(tmp_path: Path) -> None:
    rows = "".join(f"job{i}\t{i}\t1\t100\t0\t0\n" for i in range(200))
    path = write(tmp_path, "t.tsv", rows)
    a = load_workload(path, seed=1)
    assert a == load_workload(path, seed=1)
    assert [j.user for j in a.jobs] != [j.user for j in load_workload(path, seed=2).jobs]
    counts = Counter(j.user for j in a.jobs)
    assert counts["user00"] == max(counts.values())  # Zipf-like: user00 is the most frequent
    # each user belongs to one pool: user k -> pool (k mod pools)
    assert all(int(j.pool[4:]) == int(j.user[4:]) % 10 for j in a.jobs)
    no_pools = load_workload(path, seed=1, settings=WorkloadSettings(pools=0, users=3))
    assert {j.pool for j in no_pools.jobs} == {None} and {j.user for j in no_pools.jobs} <= {"user0", "user1", "user2"}


@pytest.mark.parametrize(
    ("name", "jobs"), [("FB-2009_samples_24_times_1hr_0.tsv", 5894), ("FB-2010_samples_24_times_1hr_0.tsv", 24442)]
)
def test_real_swim_traces_load(name: str, jobs: int) -> None:
    path = SWIM_DIR / name
    if not path.exists():
        pytest.skip(f"{path} not present (../shared is not beside the checkout)")
    w = load_workload(path)
    assert len(w) == jobs
    submits = [j.submit for j in w.jobs]
    assert submits == sorted(submits)
    assert all(t.duration > 0 for j in w.jobs for t in (*j.maps[:1], *j.reduces[:1]))
    assert all(len({id(t) for t in j.maps}) == 1 for j in w.jobs)  # one TaskSpec per job shape
    assert set(w.size_bin(j) for j in w.jobs) <= set(SIZE_BINS)


# --------------------------------------------------------------------------- [simulation] settings


def test_settings_from_config_reads_only_its_keys() -> None:
    config = Config.from_toml(
        "[simulation]\nblock_size = 67_108_864\nmap_rate = 5e6\nmax_reduces = 0\nseed = 4\nheartbeat = 3\n",
        source="c.toml",
    )
    s = WorkloadSettings.from_config(config)
    assert (s.block_size, s.map_rate, s.max_reduces) == (64 * MiB, 5e6, 0)
    assert s.users == WorkloadSettings().users
    assert WorkloadSettings.from_config(None) == WorkloadSettings()


def test_settings_errors_name_file_line_and_key() -> None:
    config = Config.from_toml("[simulation]\nseed = 1\nmap_rate = 0\nusers = 1.5\n", source="c.toml")
    with pytest.raises(ConfigError) as info:
        WorkloadSettings.from_config(config)
    text = str(info.value)
    assert "c.toml:3: [simulation] map_rate: must be > 0, got 0" in text
    assert "c.toml:4: [simulation] users: expected a whole number, got 1.5" in text
    with pytest.raises(ConfigError):
        load_workload("builtin:facebook", config=config)


def test_settings_share_one_reader_with_the_simulator() -> None:
    s = Settings({"block_size": 1024, "heartbeat": 3}, where="[simulation]")
    assert WorkloadSettings.from_settings(s).block_size == 1024
    assert s.unknown_keys() == ["heartbeat"]
    assert list(WORKLOAD_KEYS) == [a.name for a in WorkloadSettings.__attrs_attrs__]


def test_swim_uses_config_settings(tmp_path: Path) -> None:
    path = write(tmp_path, "t.tsv", "job0\t0\t0\t1000\t0\t0\n")
    config = Config.from_toml("[simulation]\nblock_size = 100\ntask_overhead = 0\nmap_rate = 10\n")
    job = load_workload(path, config=config).jobs[0]
    assert len(job.maps) == 10 and job.maps[0].duration == 10.0


# --------------------------------------------------------------------------- errors

SPEC_JOB = '{"id": "a", "submit": 0, "user": "u", "maps": [{"duration": 1}]}'

# (file name, content, line, fragments the message must contain)
BAD_INPUTS = [
    ("bad-json.json", '{"jobs": [\n  {"id": "a",\n   "submit": 0,}\n]}\n', 3, ["invalid JSON"]),
    ("empty.json", "  \n", 1, ["empty workload"]),
    (
        "negative-duration.json",
        '{"jobs": [\n' + SPEC_JOB + ',\n{"id": "b", "submit": 0, "user": "u",\n "maps": [{"duration": -2.5}]}\n]}',
        4,
        ["job 'b'.maps[0].duration", "expected a number of seconds > 0", "-2.5"],
    ),
    (
        "zero-duration.json",
        '{"jobs": [\n{"id": "b", "submit": 0, "user": "u", "map_count": 2,\n "map_duration": 0}\n]}',
        3,
        ["map_duration", "> 0"],
    ),
    (
        "unknown-node.json",
        '{"jobs": [\n{"id": "b", "submit": 0, "user": "u",\n'
        ' "maps": [{"duration": 3, "input_nodes": ["n0001", "n7777"]}]}\n]}',
        3,
        ["maps[0].input_nodes", "unknown node 'n7777'", "n0000 … n0099"],
    ),
    (
        "unknown-priority.json",
        '{"jobs": [\n{"id": "b", "submit": 0, "user": "u",\n "priority": "URGENT", "maps": [{"duration": 3}]}\n]}',
        3,
        ["priority", "expected one of VERY_LOW, LOW, NORMAL, HIGH, VERY_HIGH", "URGENT"],
    ),
    (
        "duplicate-id.json",
        '{"jobs": [\n' + SPEC_JOB + ",\n" + SPEC_JOB + "\n]}",
        3,
        ["job 'a'", "duplicate job id", "first at line 2"],
    ),
    ("missing-user.json", '{"jobs": [\n{"id": "b", "submit": 0, "maps": []}\n]}', 2, ["missing user"]),
    ("missing-maps.json", '{"jobs": [\n{"id": "b", "submit": 0, "user": "u"}\n]}', 2, ["missing maps"]),
    ("no-tasks.json", '{"jobs": [\n{"id": "b", "submit": 0, "user": "u", "maps": []}\n]}', 2, ["at least one task"]),
    (
        "wrong-type.json",
        '{"jobs": [\n{"id": "b", "submit": "soon", "user": "u", "maps": [{"duration": 1}]}\n]}',
        2,
        ["submit", "expected a number of seconds ≥ 0", '"soon"'],
    ),
    (
        "typo.json",
        '{"jobs": [\n{"id": "b", "submit": 0, "user": "u",\n "maps": [{"duraton": 1}]}\n]}',
        3,
        ["unknown key 'duraton'", "did you mean 'duration'"],
    ),
    (
        "both-forms.json",
        '{"jobs": [\n{"id": "b", "submit": 0, "user": "u", "maps": [{"duration": 1}],\n "map_count": 3}\n]}',
        3,
        ["either maps", "not both"],
    ),
    (
        "copy-too-long.json",
        '{"jobs": [\n{"id": "b", "submit": 0, "user": "u", "maps": [],\n'
        ' "reduces": [{"duration": 5, "copy_duration": 6}]}\n]}',
        3,
        ["reduces[0].copy_duration", "from 0 to duration"],
    ),
    (
        "duplicate-key.json",
        '{"jobs": [\n{"id": "b", "submit": 0,\n "submit": 1, "user": "u", "maps": []}\n]}',
        3,
        ["duplicate key 'submit'"],
    ),
    ("not-a-workload.json", '\n{"jobz": []}', 2, ['expected a workload object {"jobs": [...]}']),
    ("no-jobs.json", '{"jobs": []}', 1, ["no jobs"]),
    (
        "sls-stream.json",
        '{"job.start.ms": 0, "job.tasks": [{"duration.ms": 5}]}\n{"job.start.ms": 0,\n "am.type": "stream",'
        ' "job.tasks": [{"duration.ms": 5}]}',
        3,
        ["am.type", '"mapreduce"'],
    ),
    (
        "sls-no-duration.json",
        '{"job.start.ms": 0, "job.tasks": [\n  {"container.type": "map"}]}',
        2,
        ["job.tasks[0]", "missing container.duration.ms"],
    ),
    (
        "sls-bad-type.json",
        '{"job.start.ms": 0, "job.tasks": [\n  {"duration.ms": 5,\n   "container.type": "shuffle"}]}',
        3,
        ["container.type", '"map" or "reduce"'],
    ),
    (
        "sls-typo.json",
        '{"job.start.ms": 0,\n "job.queue": "a", "job.tasks": [{"duration.ms": 5}]}',
        2,
        ["unknown key 'job.queue'", "job.queue.name"],
    ),
    (
        "wrong-columns.tsv",
        "job0\t1\t1\t100\t0\t0\njob1\t2\t1\t100\t0\n",
        2,
        ["expected 6 tab-separated columns", "got 5"],
    ),
    ("spaces.tsv", "job0 1 1 100 0 0\n", 1, ["separated by tabs"]),
    (
        "non-numeric.tsv",
        "\njob0\t1\t1\t100\t0\t0\njob1\t2\t1\tlots\t0\t0\n",
        3,
        ["column 4 (map input bytes)", "expected a number ≥ 0", "'lots'"],
    ),
    ("negative.tsv", "job0\t-5\t1\t100\t0\t0\n", 1, ["column 2 (submit time (s))", "'-5'"]),
    (
        "duplicate.tsv",
        "job0\t1\t1\t100\t0\t0\njob0\t2\t1\t100\t0\t0\n",
        2,
        ["duplicate job id 'job0'", "first at line 1"],
    ),
]


@pytest.mark.parametrize(("name", "text", "line", "fragments"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_is_reported_with_file_and_line(
    tmp_path: Path, name: str, text: str, line: int, fragments: list[str]
) -> None:
    path = write(tmp_path, name, text)
    with pytest.raises(WorkloadError) as info:
        load_workload(path, nodes=NODES)
    message = str(info.value)
    assert message.startswith(f"{path}:{line}: "), message
    for fragment in fragments:
        assert fragment in message, message
    assert info.value.line == line and info.value.source == str(path)


def test_every_problem_is_reported_together(tmp_path: Path) -> None:
    text = (
        '{"jobs": [\n'
        '{"id": "a", "submit": -1, "user": "u", "maps": [{"duration": 1}]},\n'
        '{"id": "b", "submit": 0, "user": "u", "maps": [{"duration": 0}]},\n'
        '{"id": "c", "submit": 0, "user": "u", "priority": "MEH", "maps": [{"duration": 1}]}\n'
        "]}"
    )
    path = write(tmp_path, "w.json", text)
    with pytest.raises(WorkloadError) as info:
        load_workload(path)
    message = str(info.value)
    assert re.findall(r"w\.json:(\d+): ", message) == ["2", "3", "4"]
    assert [line for line, _ in info.value.problems] == [2, 3, 4]


def test_problem_list_is_capped(tmp_path: Path) -> None:
    path = write(tmp_path, "t.tsv", "".join(f"job{i}\t{i}\t1\tx\t0\t0\n" for i in range(MAX_PROBLEMS + 7)))
    with pytest.raises(WorkloadError) as info:
        load_workload(path)
    assert len(info.value.problems) == MAX_PROBLEMS
    assert str(info.value).endswith("and 7 more problems")


def test_missing_file_and_unknown_builtin(tmp_path: Path) -> None:
    with pytest.raises(WorkloadError, match=r"nope\.json: no such workload file"):
        load_workload(tmp_path / "nope.json")
    with pytest.raises(
        WorkloadError, match=r"^builtin:google: unknown built-in workload 'google'; expected one of: builtin:facebook"
    ):
        load_workload("builtin:google")


def test_blank_lines_are_ignored_but_rows_are_not_dropped(tmp_path: Path) -> None:
    path = write(tmp_path, "t.tsv", "\n\njob0\t1\t1\t100\t0\t0\n   \njob1\t0\t1\t100\t0\t0\n\n")
    assert [j.id for j in load_workload(path).jobs] == ["job1", "job0"]


# --------------------------------------------------------------------------- builtin:facebook


def test_builtin_facebook_has_the_papers_job_mix() -> None:
    w = load_workload("builtin:facebook")
    assert len(w) == 100 and w.source == "builtin:facebook" and w.name == "facebook"
    by_maps = Counter(len(j.maps) for j in w.jobs)
    assert by_maps == {maps: jobs for maps, jobs, _ in FACEBOOK_BINS}
    assert Counter(w.size_bin(j) for j in w.jobs) == dict(zip(SIZE_BINS, (38, 16, 14, 8, 6, 6, 4, 4, 4)))
    for job in w.jobs:
        assert all(t.duration > 0 for t in (*job.maps, *job.reduces))
        assert all(t.copy_duration is not None and 0 <= t.copy_duration <= t.duration for t in job.reduces)
        assert all(t.input_nodes == () for t in job.maps)  # the simulator places them
        assert job.pool is not None and len({j.pool for j in w.jobs}) == 100  # one pool per job
    gaps = [b.submit - a.submit for a, b in zip(w.jobs, w.jobs[1:])]
    assert w.jobs[0].submit == 0.0 and 7 < sum(gaps) / len(gaps) < 28  # exponential, mean 14 s


def test_builtin_is_seeded() -> None:
    assert load_workload("builtin:facebook", seed=7) == load_workload("builtin:facebook", seed=7)
    a, b = load_workload("builtin:facebook", seed=7), load_workload("builtin:facebook", seed=8)
    assert a != b
    assert [len(j.maps) for j in a.jobs] != [len(j.maps) for j in b.jobs]


def test_builtin_places_blocks_when_nodes_are_given() -> None:
    config = Config.from_toml("[cluster]\nracks = 4\nnodes_per_rack = 5\nreplication = 3\n")
    nodes = [f"n{i:04d}" for i in range(20)]
    w = load_workload("builtin:facebook", config=config, nodes=nodes, seed=3)
    rack = {n: i // 5 for i, n in enumerate(nodes)}
    for job in w.jobs:
        for task in job.maps:
            first, second, third = task.input_nodes
            assert len(set(task.input_nodes)) == 3
            assert rack[first] != rack[second] == rack[third]
    assert w == load_workload("builtin:facebook", config=config, nodes=nodes, seed=3)


# --------------------------------------------------------------------------- replica placement

RACKS = {"r00": ["a0", "a1", "a2"], "r01": ["b0", "b1"], "r02": ["c0", "c1", "c2", "c3"]}


def test_place_replicas_one_rack_then_two_on_another() -> None:
    rng = random.Random(1)
    rack_of = {n: r for r, ns in RACKS.items() for n in ns}
    firsts = Counter()
    for _ in range(2000):
        nodes = place_replicas(rng, RACKS, 3)
        assert len(nodes) == 3 and len(set(nodes)) == 3
        assert rack_of[nodes[0]] != rack_of[nodes[1]] == rack_of[nodes[2]]
        firsts[nodes[0]] += 1
    assert set(firsts) == set(rack_of)  # every node gets first replicas


@given(
    sizes=st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=6),
    replication=st.integers(min_value=1, max_value=6),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_replica_placement_invariants(sizes: list[int], replication: int, seed: int) -> None:
    racks = {f"r{r}": [f"r{r}n{k}" for k in range(size)] for r, size in enumerate(sizes)}
    rack_of = {n: r for r, ns in racks.items() for n in ns}
    placer = ReplicaPlacer(racks, replication)
    nodes = placer.place(random.Random(seed))
    assert nodes == ReplicaPlacer(racks, replication).place(random.Random(seed))  # seeded
    assert len(nodes) == min(replication, len(rack_of)) and len(set(nodes)) == len(nodes)
    if len(nodes) >= 2 and len(racks) >= 2:
        assert rack_of[nodes[1]] != rack_of[nodes[0]]
    if len(nodes) >= 3 and len(racks) >= 2 and len(racks[rack_of[nodes[1]]]) >= 2:
        assert rack_of[nodes[2]] == rack_of[nodes[1]]


def test_placer_rejects_empty_clusters() -> None:
    with pytest.raises(ValueError):
        ReplicaPlacer({}, 3)
    with pytest.raises(ValueError):
        ReplicaPlacer({"r": ["n"]}, 0)


# --------------------------------------------------------------------------- determinism


@pytest.mark.parametrize(
    "spec", ["builtin:facebook", DATA / "swim-small.tsv", DATA / "sls-jobs.json", DATA / "spec-example.json"]
)
def test_same_inputs_and_seed_give_identical_workloads(spec: object) -> None:
    a = load_workload(spec, seed=11, nodes=NODES)  # type: ignore[arg-type]
    b = load_workload(spec, seed=11, nodes=NODES)  # type: ignore[arg-type]
    assert a == b and repr(a) == repr(b)


def test_global_random_is_untouched() -> None:
    random.seed(5)
    expected = random.random()
    random.seed(5)
    load_workload("builtin:facebook")
    load_workload(DATA / "swim-small.tsv")
    assert random.random() == expected


def test_json_workload_resources_for_resource_mode(tmp_path) -> None:
    """SPEC §7: a job's tasks may carry ``resources`` (or the job a default
    ``task_resources``), plain containers come as ``tasks`` / ``task_count``,
    an AM size as ``am_resources``; a bad string names the field."""
    import json

    from corescheduler.errors import WorkloadError
    from corescheduler.resources import Resources

    doc = {"jobs": [
        {"id": "a", "submit": 0, "user": "u", "task_resources": "2048 mb, 1 vcores",
         "am_resources": "1024 mb, 1 vcores", "task_count": 3, "task_duration": 10},
        {"id": "b", "submit": 1, "user": "u", "maps": [{"duration": 5, "resources": "1024 mb, 2 vcores"}],
         "tasks": [{"duration": 2, "resources": "vcores=1, memory-mb=512"}]},
    ]}
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    a, b = load_workload(path).jobs
    assert len(a.tasks) == 3 and a.task_resources == Resources(2048, 1) and a.am_resources == Resources(1024, 1)
    assert b.maps[0].resources == Resources(1024, 2) and b.tasks[0].resources == Resources(512, 1)
    doc["jobs"][1]["maps"][0]["resources"] = "1024"
    path.write_text(json.dumps(doc))
    with pytest.raises(WorkloadError, match=r"job 'b'\.maps\[0\]\.resources: Cannot parse resource values"):
        load_workload(path)
