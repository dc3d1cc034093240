"""experiments/yarn_capacity_vs_fair.py on a tiny slice: the configs say what the doc
says, every case runs to the end, and the tables and plot come out whole.

The numbers are the experiment's, not the test's: only structure and sanity
are asserted (every job finishes, utilisation within [0, 1], preemptions
accounted to queues)."""

from __future__ import annotations

import importlib.util
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from paths import DATA, REPO

SLICE = DATA / "workloads" / "fb2009-first-400.tsv"  # the FB-2009 day's first 400 jobs
HOURS = 0.5  # the jobs of its first half hour (about 40)


def _experiment() -> ModuleType:
    path = REPO / "experiments" / "yarn_capacity_vs_fair.py"
    spec = importlib.util.spec_from_file_location("yarn_capacity_vs_fair", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def exp() -> ModuleType:
    return _experiment()


@pytest.fixture(scope="module")
def runs(exp: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    out = tmp_path_factory.mktemp("ycap")
    return {case: exp.run_case(case, HOURS, out, SLICE) for case in exp.CASES}


def _capacity_props(path: Path) -> dict[str, str]:
    root = ET.parse(path).getroot()
    return {p.findtext("name", ""): p.findtext("value", "") for p in root.iter("property")}


def test_shares_are_the_same_in_every_config(exp: ModuleType) -> None:
    """FS weights equal CS capacities; the caps are what the doc says."""
    fs = ET.parse(exp.CONFIGS / "ycap_fs.xml").getroot()
    weights = {q.get("name"): float(q.findtext("weight", "")) for q in fs.iter("queue")}
    assert weights == {"pool0": 40.0, "pool1": 40.0, "pool2": 20.0}
    maxima = {"cs_fifo": (100, 100, 100), "cs_fair": (100, 100, 100), "cs_ulf1": (100, 100, 100),
              "cs_cap": (60, 60, 40), "cs_hard": (40, 40, 20)}
    for name, caps in maxima.items():
        props = _capacity_props(exp.CONFIGS / f"ycap_{name}.xml")
        assert props["yarn.scheduler.capacity.root.queues"] == "pool0,pool1,pool2"
        for queue, cap in zip(("pool0", "pool1", "pool2"), caps):
            key = f"yarn.scheduler.capacity.root.{queue}"
            assert float(props[f"{key}.capacity"]) == weights[queue]
            assert float(props[f"{key}.maximum-capacity"]) == cap
            if name == "cs_ulf1":  # Hadoop's default factor, 1
                assert f"{key}.user-limit-factor" not in props
            else:  # one user may use the queue's maximum, as under FS
                assert float(props[f"{key}.user-limit-factor"]) * weights[queue] >= cap
            assert props.get(f"{key}.ordering-policy", "fifo") == ("fifo" if name == "cs_fifo" else "fair")
    cluster = None
    for config in {c for c, _ in exp.CASES.values()}:
        data = tomllib.loads((exp.CONFIGS / config).read_text())
        assert data["scheduler"]["preemption"] is True
        assert data["scheduler"]["mode"] == "resources"
        assert data["simulation"]["pools"] == 3
        cluster = cluster or data["cluster"]
        assert data["cluster"] == cluster  # the same cluster everywhere


def test_every_case_runs_the_slice_to_the_end(exp: ModuleType, runs: dict[str, dict[str, Any]]) -> None:
    submitted = sum(1 for line in SLICE.read_text().splitlines() if float(line.split("\t")[1]) < HOURS * 3600)
    assert submitted > 10
    for case, run in runs.items():
        s = run["summary"]
        counts = (s["jobs"], s["finished_jobs"], s["unfinished_jobs"], s["rejected_jobs"])
        assert counts == (submitted, submitted, 0, 0), case
        assert 0.0 < s["utilization"] <= 1.0, case
        assert exp.busy_utilization(run) is None  # the slice ends before the busy hours
        assert all(0 <= exp.peak_share(run, q) <= 1 for q in exp.QUEUES), case
        assert len(run["jobs"]) == submitted
        assert {j["queue"] for j in run["jobs"]} == set(exp.QUEUES), case
        assert all(j["response"] is not None and j["response"] > 0 for j in run["jobs"]), case
        assert sum(q["preempted"] for q in run["queues"].values()) == s["preempted_tasks"], case
        assert all(q["memory_seconds"] >= 0 for q in run["queues"].values())
        for queue, series in run["timeline"]["memory"].items():
            assert all(0 <= m <= run["cluster_memory"] for m in series), (case, queue)


def test_tables_and_plot(exp: ModuleType, runs: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    overview = exp.overview_table(runs).splitlines()
    assert len(overview) == 2 + len(exp.CASES)
    assert len(exp.queue_table(runs).splitlines()) == 2 + len(exp.QUEUES) * len(exp.CASES)
    header = exp.bin_table(runs).splitlines()[0]
    assert all(label in header for _, label in exp.CASES.values())
    assert exp.queue_bin_table(runs).count("`root.pool") >= len(exp.QUEUES)
    plot = tmp_path / "plot.png"
    exp.plot(runs, plot)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_size_bins_cover_every_map_count(exp: ModuleType) -> None:
    assert [exp.size_bin(n) for n in (1, 2, 3, 20, 21, 150, 151, 1500, 1501, 56262)] == [
        "1–2 maps", "1–2 maps", "3–20", "3–20", "21–150", "21–150", "151–1500", "151–1500", ">1500", ">1500"]
    assert exp._p95([float(i) for i in range(1, 101)]) == 95.0
