"""docs/workloads.md's recipe for replaying the first hours of a SWIM day: its ``awk`` line,
run as written from the repository, gives a trace that loads with the job count it states."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from paths import DOCS, REPO, SHARED

from corescheduler.formats.workloads import load_workload


def test_the_documented_cut_gives_the_stated_jobs(tmp_path: Path) -> None:
    text = (DOCS / "workloads.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(awk [^\n]+)\ncorescheduler simulate [^\n]+# (\d+) jobs\n```", text)
    assert block is not None, "the SWIM cut recipe is gone from docs/workloads.md"
    command, jobs = block.group(1), int(block.group(2))
    trace = SHARED / "workloads" / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"
    if not trace.is_file() or shutil.which("awk") is None:
        pytest.skip("SWIM traces or awk not present")
    assert "../shared/workloads/swim/" in command
    # run from the repository, as the doc's relative path reads; write the cut to tmp_path
    command = command.replace("> fb09-2h.tsv", f"> {tmp_path / 'fb09-2h.tsv'}")
    subprocess.run(["sh", "-c", command], cwd=REPO, check=True)
    workload = load_workload(tmp_path / "fb09-2h.tsv")
    assert len(workload.jobs) == jobs
    assert max(job.submit for job in workload.jobs) < 7200
