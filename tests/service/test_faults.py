"""Faults (issue 13): a worker killed mid-run — its attempts run again elsewhere and the jobs
finish; the service killed with SIGKILL mid-run and restarted on the same state — every
accepted job finishes, none twice.  Real processes on 127.0.0.1; every wait bounded."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

from tests.service.conftest import TASK_USER, free_port, wait_for  # noqa: E402

pytestmark = pytest.mark.slow


def test_a_worker_killed_mid_run_loses_no_task(live_service, shared_dir) -> None:
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 2, "reduce_slots": 1},
                         "scheduler": {"task_selector": "locality"}, "service": {"tick": 0.1, "workers": 2}})
    marks = shared_dir
    script = f"read -r p _ < /proc/self/stat; touch {marks}/$p; sleep 2; echo done"  # the host's pid
    with httpx.Client(base_url=live.url, timeout=30) as c:
        job = c.post("/api/v1/jobs", json={"maps": [{"command": ["sh", "-c", script]}] * 8}).json()
        assert wait_for(lambda: len(list(marks.iterdir())) >= 4, 30)
        before = {n["name"] for n in c.get("/api/v1/nodes").json()["nodes"]}
        # the worker process behind that address (its nanny restarts it under a new address)
        # the worker process behind that address: the parent of the launcher that forked one of
        # its attempts (the command is exec'd in the forked child)
        running = {int(p.name) for p in marks.iterdir()}
        workers = {_ppid(launcher_of(p)) for p in running if os.path.exists(f"/proc/{p}")}
        pid = sorted(workers)[0]
        os.kill(pid, signal.SIGKILL)
        done = wait_for(lambda: c.get(f"/api/v1/jobs/{job['id']}").json()["state"] == "finished", 90)
        final = c.get(f"/api/v1/jobs/{job['id']}").json()
        assert done, final
        assert final["maps"]["finished"] == 8
        assert len(list(marks.iterdir())) > 8, "the lost worker's attempts ran again"
        assert before - {n["name"] for n in c.get("/api/v1/nodes").json()["nodes"]}, "one worker left"


def launcher_of(pid: int) -> int:
    """The worker's launcher that forked attempt ``pid`` (one process between them as root:
    the one that made the attempt's PID namespace)."""
    found = None
    while pid > 1:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if b"callproc.py" in f.read():  # the launcher, or the fork of it that made the namespace
                found = pid
            elif found is not None:
                return found
        pid = _ppid(pid)
    raise AssertionError("no launcher above the attempt")


def _ppid(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().split(")")[-1].split()[1])


def test_the_service_killed_and_restarted_loses_no_job_and_runs_none_twice(tmp_path, shared_dir) -> None:
    from distributed import LocalCluster

    state = tmp_path / "state"
    outputs = shared_dir
    with LocalCluster(n_workers=2, threads_per_worker=2, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        config = tmp_path / "c.toml"
        run_as = f'run_as = "{TASK_USER}"\n' if os.geteuid() == 0 else ""  # a root serve needs it
        config.write_text(f'[scheduler]\ntask_selector = "locality"\n[service]\ntick = 0.1\n{run_as}')

        def serve() -> subprocess.Popen:
            return subprocess.Popen(
                [sys.executable, "-m", "corescheduler", "serve", "--config", str(config), "--dask",
                 cluster.scheduler_address, "--port", str(port), "--state", str(state)],
                stdout=subprocess.DEVNULL, stderr=open(tmp_path / "serve.log", "ab"))

        def up() -> bool:
            try:
                return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        proc = serve()
        try:
            assert wait_for(up, 60), (tmp_path / "serve.log").read_text()[-3000:]
            ids = []
            with httpx.Client(base_url=url, timeout=30) as c:
                for i in range(6):
                    script = f"sleep 1; echo {i} >> {outputs}/job{i}"
                    r = c.post("/api/v1/jobs", json={"name": f"j{i}", "maps": [{"command": ["sh", "-c", script]}] * 2,
                                                     "reduces": [{"call": "builtins:len"}]})
                    assert r.status_code == 201
                    ids.append(r.json()["id"])
            time.sleep(1.5)  # some running, some done, some waiting
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
            proc = serve()
            assert wait_for(up, 60), (tmp_path / "serve.log").read_text()[-3000:]
            with httpx.Client(base_url=url, timeout=30) as c:
                finished = wait_for(lambda: all(c.get(f"/api/v1/jobs/{i}").json()["state"] == "finished"
                                                 for i in ids), 120)
                states = {i: c.get(f"/api/v1/jobs/{i}").json() for i in ids}
                assert finished, states
                assert all(c.get(f"/api/v1/jobs/{i}/result").json()["result"] == [2] for i in ids)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        db = sqlite3.connect(state / "state.db")
        rows = db.execute("SELECT id, state, ended FROM jobs ORDER BY id").fetchall()
        assert [r[0] for r in rows] == ids and all(r[1] == "finished" for r in rows)
        assert json.dumps(rows)  # each job ended once: one row, one end time


def test_the_engine_unreachable_jobs_wait_and_none_is_lost(live_service, tmp_path) -> None:
    """The Dask scheduler dies: /healthz says so (503), submissions are still accepted; when a
    scheduler is back at the address, every accepted job runs and finishes."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs: list[subprocess.Popen] = []
    log = open(tmp_path / "dask.log", "ab")

    def engine() -> None:
        procs.append(subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port",
                                       str(port), "--no-dashboard"], stdout=log, stderr=log))
        procs.append(subprocess.Popen([sys.executable, "-m", "dask", "worker", address, "--nthreads", "2",
                                       "--no-dashboard", "--host", "127.0.0.1"], stdout=log, stderr=log))

    try:
        engine()
        time.sleep(3)
        live = live_service({"scheduler": {"task_selector": "locality"}, "service": {"tick": 0.1}}, dask=address)
        with httpx.Client(base_url=live.url, timeout=30) as c:
            first = c.post("/api/v1/jobs", json={"maps": [{"command": ["sleep", "2"]}] * 2}).json()
            assert wait_for(lambda: c.get(f"/api/v1/jobs/{first['id']}").json()["maps"]["running"] > 0, 30)
            for p in procs:
                p.send_signal(signal.SIGKILL)
            for p in procs:
                p.wait(30)
            procs.clear()
            assert wait_for(lambda: c.get("/healthz").status_code == 503, 30)
            assert "unreachable" in c.get("/healthz").json()["status"]
            second = c.post("/api/v1/jobs", json={"maps": [{"command": ["true"]}]})
            assert second.status_code == 201
            engine()
            ids = [first["id"], second.json()["id"]]
            done = wait_for(lambda: all(c.get(f"/api/v1/jobs/{i}").json()["state"] == "finished" for i in ids), 120)
            assert done, [c.get(f"/api/v1/jobs/{i}").json() for i in ids]
            assert wait_for(lambda: c.get("/healthz").status_code == 200, 30)
    finally:
        for p in procs:
            p.kill()
            p.wait(30)
        log.close()
