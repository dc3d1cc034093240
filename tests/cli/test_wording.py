"""Counts say "1 job", never "1 jobs" (issue 30, item 5): on the console of ``simulate`` and
``compare``, in report.html's legends, in ``plugins``' shortened hook lists.  The page's own
header is checked in the browser (tests/service/test_page_browser.py)."""

from __future__ import annotations

import re
from pathlib import Path

from cli_helpers import run
from paths import DATA

from corescheduler.cli.plugins import shorten
from corescheduler.sim.report import OTHER, _group_label
from corescheduler.wording import plural

WORDING = DATA / "wording"
ONE_OFF = re.compile(r"\b1 (jobs|nodes|pools|hooks|runs|workers|slots|map slots|reduce slots)\b")


def test_plural() -> None:
    assert plural(1, "job") == "1 job" and plural(0, "job") == "0 jobs" and plural(2, "job") == "2 jobs"
    assert plural(1234, "job") == "1,234 jobs" and plural(1234, "job", grouped=False) == "1234 jobs"
    assert plural(1, "task running", "tasks running") == "1 task running"
    assert plural(3, "task running", "tasks running") == "3 tasks running"


def test_simulate_of_one_job_on_one_node_says_1_job_and_1_node(tmp_path: Path) -> None:
    result = run("simulate", "--config", str(WORDING / "one-node.toml"), "--workload", str(WORDING / "one-job.json"),
                 "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert "(1 job), seed 0, 1 node (1 map slot + 1 reduce slot)" in first, first
    assert not ONE_OFF.search(result.stdout), result.stdout
    report = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "(1 job)" in report and not ONE_OFF.search(report)


def test_compare_of_one_run_per_config_counts_runs_right(tmp_path: Path) -> None:
    for name in ("a.toml", "b.toml"):
        (tmp_path / name).write_text((WORDING / "one-node.toml").read_text())
    result = run("compare", "--config", str(tmp_path / "a.toml"), "--config", str(tmp_path / "b.toml"),
                 "--workload", str(WORDING / "one-job.json"), "--out", str(tmp_path / "c"))
    assert result.exit_code == 0, result.output
    assert "seed 0: 2 runs in " in result.stdout and not ONE_OFF.search(result.stdout), result.stdout


def test_report_labels_and_shortened_hooks() -> None:
    assert _group_label("etl", set(), ["etl"], 1) == "etl (1 job)"
    assert _group_label(OTHER, {"a"}, ["etl"], 1) == "other 1 pool (1 job)"
    assert _group_label(OTHER, {"a", "b"}, [], 3) == "all 2 pools (3 jobs)"
    assert shorten(["cs_a_rather_long_hook_name"], 5) == "1 hook"
    assert shorten(["cs_one", "cs_two", "cs_three"], 3) == "3 hooks"


def test_two_seeds_give_1_degree_of_freedom(tmp_path: Path) -> None:
    for name in ("a.toml", "b.toml"):
        (tmp_path / name).write_text((WORDING / "one-node.toml").read_text())
    result = run("compare", "--config", str(tmp_path / "a.toml"), "--config", str(tmp_path / "b.toml"),
                 "--workload", str(WORDING / "one-job.json"), "--out", str(tmp_path / "c"), "--seeds", "2")
    assert result.exit_code == 0, result.output
    page = (tmp_path / "c" / "report.html").read_text(encoding="utf-8")
    assert "Student t, 1 degree of freedom" in page and "1 degrees" not in page
