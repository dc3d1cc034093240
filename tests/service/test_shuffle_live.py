"""The shuffle in the live service (issue 14): map results stay on the Dask workers that made
them and Dask hands them to the reduces; the core learns where each is and how big
(``job.map_outputs``), so ``cogrs`` places reduces next to them; a result lost with its worker
makes its map run again (Hadoop's lost TaskTracker).  Real processes on 127.0.0.1."""

from __future__ import annotations

import os
import signal

import pytest

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

from tests.service.conftest import wait_for  # noqa: E402

pytestmark = pytest.mark.slow

PROBE = "corescheduler.service.probe"


def _finished(c, job_id: str, timeout: float = 90) -> dict:
    wait_for(lambda: c.get(f"/api/v1/jobs/{job_id}").json()["state"] in ("finished", "failed"), timeout)
    return c.get(f"/api/v1/jobs/{job_id}").json()


def test_cogrs_runs_the_reduce_where_most_map_output_is(live_service) -> None:
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 2, "reduce_slots": 1},
                         "scheduler": {"task_selector": "cogrs"}, "plugins": {"cogrs": {"wait": 60.0}},
                         "service": {"tick": 0.1, "workers": 2}})
    with httpx.Client(base_url=live.url, timeout=30) as c:
        a, b = sorted(n["name"] for n in c.get("/api/v1/nodes").json()["nodes"])
        for heavy, light in ((a, b), (b, a)):  # whichever worker holds more, the reduce goes there
            maps = [{"call": f"{PROBE}:output", "args": [2_000_000], "input_nodes": [heavy]},
                    {"call": f"{PROBE}:output", "args": [1_000], "input_nodes": [light]},
                    {"call": f"{PROBE}:output", "args": [1_000], "input_nodes": [light]}]
            job = c.post("/api/v1/jobs", json={"maps": maps,
                                               "reduces": [{"call": f"{PROBE}:total_size"}]}).json()
            final = _finished(c, job["id"])
            assert final["state"] == "finished", final
            assert c.get(f"/api/v1/jobs/{job['id']}/result").json()["result"] == [2_002_000]
            placed = {(t["kind"], t["idx"]): t["node"] for t in live.service.store.tasks(job["id"])}
            assert placed[("map", 0)] == heavy and placed[("map", 1)] == light
            assert placed[("reduce", 0)] == heavy


def test_the_core_sees_each_map_output_where_dask_holds_it(live_service) -> None:
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 2, "reduce_slots": 1},
                         "service": {"tick": 0.1, "workers": 2}})
    with httpx.Client(base_url=live.url, timeout=30) as c:
        a, _ = sorted(n["name"] for n in c.get("/api/v1/nodes").json()["nodes"])
        maps = [{"call": f"{PROBE}:output", "args": [300_000], "input_nodes": [a]}] * 2
        job = c.post("/api/v1/jobs", json={"maps": maps,
                                           "reduces": [{"call": f"{PROBE}:total_size", "args": [3.0]}]}).json()
        sched = live.service.scheduler

        def outputs():
            j = sched.jobs.get(job["id"])
            return j.map_outputs.input_by_node(0) if j is not None and j.map_outputs is not None else {}

        seen = wait_for(lambda: sum(outputs().values()) >= 600_000, 60)
        assert seen, outputs()
        assert set(outputs()) == {a}  # both results on the worker that ran the maps
        assert all(v < 700_000 for v in outputs().values())  # sizes as Dask measures them (≈ len)
        assert _finished(c, job["id"])["state"] == "finished"
        assert c.get(f"/api/v1/jobs/{job['id']}/result").json()["result"] == [600_000]


def test_a_map_output_lost_with_its_worker_is_made_again(live_service, shared_dir) -> None:
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 2, "reduce_slots": 1},
                         "scheduler": {"task_selector": "locality"}, "service": {"tick": 0.1, "workers": 2}})
    marks = shared_dir
    with httpx.Client(base_url=live.url, timeout=30) as c:
        a, b = sorted(n["name"] for n in c.get("/api/v1/nodes").json()["nodes"])
        me = "read -r p _ < /proc/self/stat"  # the host's pid ($$ is the attempt's PID namespace's)
        # quick writes its ancestors (host pids): the worker's launcher is one of them
        quick = (f"{me}; q=$p; while [ $q -gt 1 ]; do echo $q; read -r _ _ _ q _ < /proc/$q/stat; done "
                 f"> {marks}/quick-$p.tmp; mv {marks}/quick-$p.tmp {marks}/quick-$p.pid; echo quick")
        slow = f"{me}; touch {marks}/slow-$p; sleep 4; echo slow"
        job = c.post("/api/v1/jobs", json={
            "maps": [{"command": ["sh", "-c", quick], "input_nodes": [a]},
                     {"command": ["sh", "-c", slow], "input_nodes": [b]}],
            "reduces": [{"call": "builtins:len"}]}).json()
        assert wait_for(lambda: list(marks.glob("quick-*.pid")) and list(marks.glob("slow-*")), 30)
        assert wait_for(lambda: any(t["kind"] == "map" and t["idx"] == 0 and t["state"] == "complete"
                                     for t in live.service.store.tasks(job["id"])), 30)
        ancestors = [int(x) for x in next(marks.glob("quick-*.pid")).read_text().split()]
        def cmdline(pid: int) -> bytes:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    return f.read()
            except OSError:
                return b""

        # the last ancestor that runs callproc.py: the launcher (the fork of it that made the
        # attempt's PID namespace, as root, is below it)
        launcher = [a for a in ancestors if b"callproc.py" in cmdline(a)][-1]
        with open(f"/proc/{launcher}/stat") as f:  # the launcher's parent is the worker
            worker_pid = int(f.read().rsplit(")", 1)[1].split()[1])
        os.kill(worker_pid, signal.SIGKILL)  # map 0's result dies with its worker, before the reduce ran
        final = _finished(c, job["id"])
        assert final["state"] == "finished", final
        assert c.get(f"/api/v1/jobs/{job['id']}/result").json()["result"] == [2]
        assert len(list(marks.glob("quick-*.pid"))) == 2, "map 0 ran again: its output was lost"
