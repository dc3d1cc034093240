"""File names that are not UTF-8 (issue 25 review): a workload or config named with
byte 0xff reaches Python as a lone surrogate ('\\udcff'); it is written escaped
(``\\xff``) into report.html and the tables instead of failing after the whole run."""

from __future__ import annotations

import json
import os
import sys

import pytest
from cli_helpers import run
from paths import DATA

from corescheduler.formats.workloads import load_workload, printable_path

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="needs a file system that takes any bytes")


def test_printable_path_escapes_bytes_and_lone_surrogates():
    assert printable_path(os.fsdecode(b"\xff.json")) == "\\xff.json"
    assert printable_path("a\ud800b") == "a\\ud800b"
    assert printable_path("plain é.json") == "plain é.json"


def test_a_workload_and_config_named_in_bytes_that_are_not_utf8_run_and_report(tmp_path):
    workload = tmp_path / os.fsdecode(b"\xff.json")
    spec = json.loads((DATA / "workloads" / "spec-example.json").read_text(encoding="utf-8"))
    workload.write_text(json.dumps({"jobs": spec["jobs"]}), encoding="utf-8")  # named by its file
    config = tmp_path / os.fsdecode(b"\xfe.toml")
    config.write_text("[cluster]\nracks = 2\nnodes_per_rack = 50\n")
    loaded = load_workload(str(workload))
    assert loaded.source.endswith("\\xff.json") and loaded.name == "\\xff"
    out = tmp_path / "out"
    result = run("simulate", "--config", str(config), "--workload", str(workload), "--out", str(out))
    assert result.exit_code == 0, result.output
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "simulation: \\xfe on \\xff" in report and "\\xff.json" in report
    json.loads((out / "metrics.json").read_text(encoding="utf-8"))
