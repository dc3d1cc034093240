"""Acceptance (issue 13): two pools on a real Dask cluster.  Running tasks per pool follow the
fair shares; short jobs finish long before the long one; a pool under its min share past its
timeout preempts, the preempted tasks' processes really end, and the tasks run again."""

from __future__ import annotations

import os
import statistics
import time

import pytest

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.slow

ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <pool name="batch"/>
  <pool name="interactive">
    <minMaps>2</minMaps>
    <minSharePreemptionTimeout>1</minSharePreemptionTimeout>
  </pool>
</allocations>
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split(")")[-1].split()[0] != "Z"


def _config(tmp_path, preemption: bool) -> dict:
    alloc = tmp_path / "pools.xml"
    alloc.write_text(ALLOCATIONS)
    return {"scheduler": {"allocation_file": str(alloc), "task_selector": "locality", "preemption": preemption,
                          "preemption_interval": 0.5, "update_interval": 0.2},
            "cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 2, "reduce_slots": 1},
            "service": {"tick": 0.1, "workers": 2}}


def test_running_tasks_follow_fair_shares_and_short_jobs_finish_first(live_service, tmp_path) -> None:
    live = live_service(_config(tmp_path, preemption=False))
    with httpx.Client(base_url=live.url, timeout=30) as c:
        long = c.post("/api/v1/jobs", json={"pool": "batch", "name": "long",
                                            "maps": [{"command": ["sleep", "0.8"]}] * 60}).json()
        time.sleep(1.0)
        shorts = [c.post("/api/v1/jobs", json={"pool": "interactive", "name": f"short{i}",
                                               "maps": [{"command": ["sleep", "0.3"]}] * 2}).json()
                  for i in range(6)]
        gaps: dict[str, list[float]] = {"batch": [], "interactive": []}
        deadline = time.monotonic() + 60
        short_done_at = None
        while time.monotonic() < deadline:
            states = [c.get(f"/api/v1/jobs/{s['id']}").json()["state"] for s in shorts]
            if short_done_at is None and all(s == "finished" for s in states):
                short_done_at = time.monotonic()
            pools = {p["name"]: p for p in c.get("/api/v1/pools").json()["pools"]}
            if short_done_at is None and all(pools[n]["map"]["demand"] > pools[n]["map"]["running"]
                                             for n in gaps if n in pools):
                for name in gaps:  # both pools want more than they run: shares are contested
                    gaps[name].append(abs(pools[name]["map"]["running"] - pools[name]["map"]["fair_share"]))
            if c.get(f"/api/v1/jobs/{long['id']}").json()["state"] == "finished":
                break
            time.sleep(0.1)
        long_done_at = time.monotonic()
        assert short_done_at is not None, "the short jobs did not finish"
        assert long_done_at - short_done_at > 5, "the short jobs should finish long before the long one"
        assert all(gaps.values()), gaps
        for name, values in gaps.items():  # within one task of the fair share, as a rule
            assert statistics.median(values) <= 1.0, (name, values)


def test_min_share_preemption_really_stops_the_tasks_and_they_run_again(live_service, tmp_path, shared_dir) -> None:
    live = live_service(_config(tmp_path, preemption=True))
    marks = shared_dir
    script = f"read -r p _ < /proc/self/stat; echo $p >> {marks}/$(date +%s%N); exec sleep 4"  # the host's pid
    with httpx.Client(base_url=live.url, timeout=30) as c:
        long = c.post("/api/v1/jobs", json={"pool": "batch", "maps": [{"command": ["sh", "-c", script]}] * 4}).json()
        for _ in range(100):
            if len(list(marks.iterdir())) == 4:
                break
            time.sleep(0.1)
        first = {int(p.read_text()) for p in marks.iterdir()}
        assert len(first) == 4 and all(_alive(pid) for pid in first)
        short = c.post("/api/v1/jobs", json={"pool": "interactive", "maps": [{"command": ["true"]}] * 2}).json()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if c.get(f"/api/v1/jobs/{short['id']}").json()["state"] == "finished":
                break
            time.sleep(0.1)
        assert c.get(f"/api/v1/jobs/{short['id']}").json()["state"] == "finished"
        waited = time.monotonic() - (deadline - 30)
        assert waited < 3.9, "the interactive job should not wait for the batch tasks to end"
        dead = [pid for pid in first if not _alive(pid)]
        assert len(dead) >= 2, "preempted tasks' processes must be gone"
        job = c.get(f"/api/v1/jobs/{long['id']}").json()
        for _ in range(200):
            job = c.get(f"/api/v1/jobs/{long['id']}").json()
            if job["state"] == "finished":
                break
            time.sleep(0.1)
        assert job["state"] == "finished"
        assert len(list(marks.iterdir())) >= 6, "the preempted tasks ran again"
        metrics = c.get("/metrics").text
        assert "corescheduler_preemptions 2.0" in metrics or "corescheduler_preemptions 3.0" in metrics
