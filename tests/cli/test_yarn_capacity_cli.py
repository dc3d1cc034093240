"""``check``, ``queues`` and ``simulate`` with YARN's Capacity Scheduler (issue 29 item 4;
SPEC §9's ``queues --json`` keys)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import run
from paths import EXAMPLES

KEYS = {"path", "capacity", "maximum_capacity", "absolute_capacity", "absolute_maximum_capacity",
        "absolute_used_capacity", "used_capacity", "user_limit_factor", "minimum_user_limit_percent", "state",
        "ordering_policy"}


def test_queues_json_lists_the_capacity_tree() -> None:
    result = run("queues", "--config", str(EXAMPLES / "yarn-capacity.toml"), "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["path"] for r in rows] == [
        "root", "root.engineering", "root.engineering.builds", "root.engineering.tests", "root.analytics",
        "root.analytics.etl", "root.analytics.adhoc", "root.default"]
    assert all(set(r) == KEYS for r in rows)
    builds = next(r for r in rows if r["path"] == "root.engineering.builds")
    assert builds["capacity"] == pytest.approx(0.6) and builds["absolute_capacity"] == pytest.approx(0.3)
    assert builds["absolute_maximum_capacity"] == pytest.approx(0.8) and builds["used_capacity"] == 0
    adhoc = next(r for r in rows if r["path"] == "root.analytics.adhoc")
    assert (adhoc["ordering_policy"], adhoc["minimum_user_limit_percent"], adhoc["user_limit_factor"]) == \
        ("fair", 50, 3)
    table = run("queues", "--config", str(EXAMPLES / "yarn-capacity.toml"))
    assert table.exit_code == 0 and "    builds" in table.stdout and "30.0%" in table.stdout


def test_check_names_file_line_key_and_expectation(tmp_path: Path) -> None:
    bad = tmp_path / "cs.xml"
    bad.write_text(
        "<configuration>\n"
        "<property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>\n"
        "<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>30</value></property>\n"
        "<property><name>yarn.scheduler.capacity.root.b.capacity</name><value>60</value></property>\n"
        "</configuration>\n")
    result = run("check", str(bad))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{bad}:3: yarn.scheduler.capacity.root.*.capacity: expected the capacities of root's children (a 30, b 60) to "
        "sum to 100, got 90 (Hadoop ParentQueue.setChildQueues)"]
    assert "Traceback" not in result.output


def test_simulate_runs_the_example(tmp_path: Path) -> None:
    for name in ("yarn-capacity.toml", "yarn-capacity-scheduler.xml", "yarn-workload.json"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    result = run("simulate", "--config", str(tmp_path / "yarn-capacity.toml"), "--workload",
                 str(tmp_path / "yarn-workload.json"), "--out", str(tmp_path / "out"), "--strict")
    assert result.exit_code == 0, result.output
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert (metrics["summary"]["finished_jobs"], metrics["summary"]["rejected_jobs"]) == (60, 0)
    assert sorted(metrics["pools"]) == ["root.analytics.adhoc", "root.analytics.etl", "root.engineering.builds",
                                        "root.engineering.tests"]
