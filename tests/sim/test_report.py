"""report.html: self-contained, every plot present, single and compared runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from corescheduler.config import Config
from corescheduler.core.model import JobSpec, TaskSpec
from corescheduler.formats.workloads import Workload
from corescheduler.sim.report import PLOTS, render_report, summary_rows
from corescheduler.sim.simulator import Simulation

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXTERNAL = re.compile(r"https?://|//cdn|<script[^>]*\bsrc\s*=|<link[^>]*\bhref\s*=|@import|url\(\s*['\"]?(?!#)", re.I)


@pytest.fixture(scope="module")
def metrics() -> dict:
    jobs = tuple(
        JobSpec(
            maps=[TaskSpec(5.0 + i % 7)] * (1 + i * 3),
            reduces=[TaskSpec(8.0)] * (i % 3),
            pool=f"pool{i % 11}",
            user=f"u{i % 4}",
            id=f"j{i:02d}",
            submit=float(i * 4),
        )
        for i in range(30)
    )
    config = Config.from_dict({"cluster": {"racks": 2, "nodes_per_rack": 5}})
    return Simulation(config, Workload(jobs=jobs, source="<test>", name="test")).run().metrics


def assert_self_contained(page: str) -> None:
    assert not EXTERNAL.search(page), EXTERNAL.search(page).group(0)
    assert "<script" not in page.lower()


def test_single_run_report(metrics) -> None:
    page = render_report([("run", metrics)], title="t", notes=["a note"])
    assert_self_contained(page)
    for name, heading in PLOTS:
        match = re.search(rf'<figure data-plot="{name}"><svg[^>]*>.*?</svg>', page, re.S)
        assert match, f"plot {name} missing"
        assert heading in page
        assert "<path" in match.group(0) or "<use" in match.group(0)
    assert "other pools" in page  # 11 pools: the quietest are folded together
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")


def test_report_ids_are_unique(metrics) -> None:
    page = render_report([("a", metrics), ("b", metrics)])
    ids = re.findall(r'\bid="([^"]+)"', page)
    referenced = set(re.findall(r"url\(#([^)]+)\)", page)) | set(re.findall(r'href="#([^"]+)"', page))
    duplicated = {i for i in ids if ids.count(i) > 1}
    assert not (duplicated - referenced), sorted(duplicated)[:5]


def test_compare_report_overlays_runs(metrics) -> None:
    page = render_report([("first", metrics), ("second", metrics)])
    assert_self_contained(page)
    for name, _ in PLOTS:
        assert f'data-plot="{name}"' in page
    assert page.count(">first<") >= 2 and page.count(">second<") >= 2  # table header and legends


def test_summary_rows_side_by_side(metrics) -> None:
    rows = summary_rows([("a", metrics), ("b", metrics)])
    assert all(len(r) == 3 for r in rows)
    labels = [r[0] for r in rows]
    assert {"makespan (s)", "mean response (s)", "node locality", "utilisation", "preempted tasks"} <= set(labels)
    assert any(label.startswith("bin 1: mean response") for label in labels)


def test_a_resource_run_in_which_every_job_is_rejected_renders_without_warnings(recwarn) -> None:
    """Every job to a queue the file lacks: no queue ever runs a task, so the dominant-share
    plot has no line; the report used to print matplotlib's "No artists with labels" warning."""
    jobs = tuple(JobSpec(maps=[TaskSpec(5.0)], pool="nosuch", id=f"j{i}", submit=float(i)) for i in range(3))
    config = Config.from_dict(
        {
            "scheduler": {
                "mode": "resources",
                "share_policy": "yarn_capacity",
                "allocation_file": str(EXAMPLES / "yarn-capacity-scheduler.xml"),
            },
            "cluster": {"racks": 1, "nodes_per_rack": 2, "node_resources": "4096 mb, 4 vcores"},
        }
    )
    m = Simulation(config, Workload(jobs=jobs, source="<test>", name="test")).run().metrics
    assert m["summary"]["rejected_jobs"] == 3
    page = render_report([("run", m)])
    assert_self_contained(page)
    assert not [w for w in recwarn.list if "legend" in str(w.message) or "artists" in str(w.message)]
