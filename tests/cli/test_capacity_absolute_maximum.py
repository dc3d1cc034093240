"""Absolute maximum capacities (``maximum-capacity`` = ``[memory=…,vcores=…]``, Hadoop 3.3): a
wrong result that exited 0.  The file's vector reached the engine keyed ``memory`` (the JSON
shape) where the resource type is ``memory-mb``, so every such queue's memory maximum was 0:
a leaf refused every app ("zero amount of resource … maximum queue resources <memory:0, …>"),
and a parent's leaves never ran (the run stalled, ``jobs finished 0``).  ``queues`` showed
that parent at a 0 % maximum, and a child of an absolute parent at a 200 % maximum of it
(its maximum over the parent's guarantee, where ``ParentQueue.deriveCapacityFromAbsolute
Configurations`` divides by the parent's effective maximum)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from cli_helpers import run
from paths import DATA

from corescheduler.formats.allocation_file import load_allocations
from corescheduler.resources import Resources

HERE = DATA / "yarn_capacity" / "absolute-maximum"
CLUSTER = Resources(memory=16384, vcores=16)


def test_the_engine_gets_each_absolute_maximum_whole() -> None:
    queues = load_allocations(HERE / "capacity-scheduler.xml").queue_config().queues
    assert queues["root.a"].max_resources.resolve(CLUSTER) == Resources(memory=12288, vcores=12)
    assert queues["root.b"].max_resources.resolve(CLUSTER) == Resources(memory=8192, vcores=8)


def test_queues_shows_the_effective_maxima() -> None:
    result = run("queues", "--config", str(HERE / "cs.toml"), "--json")
    assert result.exit_code == 0, result.output
    rows = {r["path"]: r for r in json.loads(result.stdout)}
    assert rows["root.a"]["maximum_capacity"] == pytest.approx(0.75)
    assert rows["root.a"]["absolute_maximum_capacity"] == pytest.approx(0.75)
    # a1 has no maximum of its own: its parent's (getOrInheritMaxResource), 100 % of a's
    assert rows["root.a.a1"]["maximum_capacity"] == pytest.approx(1.0)
    assert rows["root.a.a1"]["absolute_maximum_capacity"] == pytest.approx(0.75)
    assert rows["root.b"]["absolute_maximum_capacity"] == pytest.approx(0.5)


def test_simulate_runs_every_job_within_the_maxima(tmp_path: Path) -> None:
    """a1 alone first: it grows to a's maximum (12288 MB), not the cluster; b, joining at 30 s,
    gets the rest and then, once a1's containers end, no more than its own 8192 MB."""
    out = tmp_path / "out"
    result = run("simulate", "--config", str(HERE / "cs.toml"), "--workload", str(HERE / "workload.json"),
                 "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "metrics.json").read_text())["summary"]
    assert (summary["finished_jobs"], summary["rejected_jobs"], summary["unfinished_jobs"]) == (2, 0, 0)
    queue_of = {}
    running: dict[str, tuple[str, int]] = {}
    use: Counter[str] = Counter()
    peak: Counter[str] = Counter()
    for line in (out / "events.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e["type"] == "job_submit":
            queue_of[e["job"]] = e["pool"]
        elif e["type"] == "task_start":
            q = queue_of[e["job"]]
            running[e["task"]] = (q, e["resources"]["memory"])
            use[q] += e["resources"]["memory"]
            peak[q] = max(peak[q], use[q])
        elif e["type"] == "task_finish":
            q, memory = running.pop(e["task"])
            use[q] -= memory
    assert peak == {"root.a.a1": 12288, "root.b": 8192}
