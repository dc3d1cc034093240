"""The live service on Dask: makespan overhead against raw Dask, grant latency, submit latency.

    python benchmarks/bench_service.py makespan   # 2,000 tasks of 50 ms: raw client.map vs the service
    python benchmarks/bench_service.py load       # 20 clients submit 500 jobs over HTTP: submit latency
    python benchmarks/bench_service.py start      # process isolation: one attempt's start, without Dask
    python benchmarks/bench_service.py readers    # 8 readers of a 100k-task job: /healthz, a 1-task job
    python benchmarks/bench_service.py            # all four

``makespan``: one local cluster (2 worker processes × 2 threads, 127.0.0.1) for
the whole run.  First raw Dask — ``client.map(time.sleep, [0.05] * 2000,
pure=False)`` and wait — then the service on the same cluster (``--dask``
mode: its own client, the fair scheduler, one job of 2,000 maps calling
``corescheduler.service.probe:stamp_sleep``), from the submission to the job's
end, for each setting of ``[service] isolation`` / ``backlog``; ideal = 2,000 ×
50 ms / 4 slots = 25 s.  Grant latency: from a task's assignment (the
scheduler's heartbeat) to its start on the worker (the task's own clock),
p50/p99; with a backlog it includes the wait for a free thread.  Process isolation is
measured at both backlogs next to thread isolation (issue 26: within 25 % of it).

``start``: the worker-side runner alone, in this process: 300 attempts one after
another of a call (``probe:stamp_sleep(0)``, forked from the warm launcher) and of a
command (``sh -c 'date +%s.%N'``); from ``run_attempt`` called to the task's first
instruction (its own clock), p50/p99, and the whole attempt (start, run, result back).

``load``: a service with its embedded cluster behind uvicorn on 127.0.0.1;
20 concurrent HTTP clients post 500 one-map jobs in all; p50/p99/max submit
latency (request sent to 201 received).

``readers`` (issue 26 item 5): ``corescheduler serve`` in its own process (embedded
cluster, 2 workers × 2 slots, state in memory) holding a 100k-map job in a pool that
runs no job (``maxRunningJobs`` 0: its tasks stay pending, so the slots stay free).
Measured from this process, without and with 8 readers in another process that loop over
``GET /jobs/{id}`` (its 100k-map document), ``GET /jobs/{id}/tasks`` and ``GET /jobs``:
``/healthz`` latency p50/p99 (100 requests each way) and a 1-task job's latency (submit to
its end seen, 10 jobs each way, one after another), p50.  Goal: less than 2×.  The two
are measured in turns, five rounds of 20 ``/healthz`` and 2 jobs each way (the readers
paused, then reading; the order swapped every round), after one job that warms the
workers: on a shared machine the other load then weighs on both sides alike.  The readers'
own client (receiving 2.3 MB documents) shares the machine's cores with the service: the
rounds run twice, the readers' client at the service's priority (as sessions 11-13 measured),
then at nice 19 (readers are on other machines in production: their client's CPU is not the
service's to share); a control follows: the same rounds with one process that only burns a
core (no request).  The readers read from 127.0.0.2, another host to the service (it counts
anonymous readers' costs by host), the measuring client from 127.0.0.1.  The big job's own
submit is timed too, with ``/healthz`` asked every 10 ms meanwhile (a large submit is
prepared off the service's event loop: those answers stay fast).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
from typing import Any

TASKS = 2000
SECONDS = 0.05
SETTINGS = [("thread", 1.0), ("process", 1.0), ("thread", 1.5), ("process", 1.5)]
#: the readers benchmark's rounds: each measures both sides, quiet and with readers
ROUNDS = 5
#: the readers' source address (the measuring client's is 127.0.0.1): another host to the service
READERS_ADDRESS = "127.0.0.2"


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def _service_run(address: str, isolation: str, backlog: float) -> tuple[float, list[float]]:
    from corescheduler.config import Config
    from corescheduler.service.service import Service

    config = Config.from_dict({"scheduler": {"task_selector": "locality"},
                               "service": {"tick": 0.05, "isolation": isolation, "backlog": backlog}})
    service = Service(config, dask=address)
    await service.start()
    try:
        grants: dict[str, float] = {}
        original = service._grant

        def timed(assignment):
            grants[assignment.task] = time.time()
            return original(assignment)

        service._grant = timed  # type: ignore[method-assign]
        started = time.perf_counter()
        job = await service.submit({"maps": [{"call": "corescheduler.service.probe:stamp_sleep",
                                               "args": [SECONDS]}] * TASKS}, "bench")
        for _ in range(1_000_000):
            if job["id"] not in service.scheduler.jobs:  # ended (a cheap test: no ledger read)
                break
            await asyncio.sleep(0.005)
        makespan = time.perf_counter() - started
        starts = service.result(job["id"])
        granted = [grants[f"{job['id']}_m_{i:06d}"] for i in range(TASKS)]
        return makespan, [s - g for s, g in zip(starts, granted)]
    finally:
        await service.stop()


def bench_makespan() -> None:
    from distributed import Client, LocalCluster, wait

    with LocalCluster(n_workers=2, threads_per_worker=2, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(lambda: None)
        t = time.perf_counter()
        futures = client.map(time.sleep, [SECONDS] * TASKS, pure=False)
        wait(futures)
        raw = time.perf_counter() - t
        del futures
        ideal = TASKS * SECONDS / 4
        print(f"makespan: {TASKS} tasks of {SECONDS * 1000:.0f} ms on 4 slots (ideal {ideal:.1f} s)")
        print(f"  raw client.map:                   {raw:6.2f} s ({(raw / ideal - 1) * 100:+.1f} % over ideal)")
        for isolation, backlog in SETTINGS:
            if isolation == "thread" and os.geteuid() == 0:  # a root service refuses it (docs/service.md)
                print(f"  service, isolation=thread  backlog={backlog}: refused as root; run this as a normal user")
                continue
            makespan, latency = asyncio.run(_service_run(cluster.scheduler_address, isolation, backlog))
            print(f"  service, isolation={isolation:7s} backlog={backlog}: {makespan:6.2f} s "
                  f"({(makespan / raw - 1) * 100:+.1f} % over raw Dask); grant to start p50 "
                  f"{statistics.median(latency) * 1000:.0f} ms, p99 {_pct(latency, 99) * 1000:.0f} ms")


def bench_start(n: int = 300) -> None:
    from corescheduler.service.runner import run_attempt

    run_attempt("warm", {"call": "corescheduler.service.probe:stamp_sleep", "args": [0]})  # the launcher starts
    for what, payload in [("call", {"call": "corescheduler.service.probe:stamp_sleep", "args": [0]}),
                          ("command", {"command": ["sh", "-c", "date +%s.%N"]})]:
        starts, totals = [], []
        for i in range(n):
            t = time.time()
            p = time.perf_counter()
            result = run_attempt(f"bench-{what}-{i}", payload)
            totals.append(time.perf_counter() - p)
            value = json.loads(result.json)  # a Result: the JSON text the child made
            started = value if what == "call" else float(value["stdout"])
            starts.append(started - t)
        print(f"start ({what:7s}): call to start p50 {statistics.median(starts) * 1000:5.1f} ms, "
              f"p99 {_pct(starts, 99) * 1000:5.1f} ms; whole attempt p50 {statistics.median(totals) * 1000:5.1f} ms")


def bench_load(clients: int = 20, jobs: int = 500) -> None:
    import threading

    import httpx
    import uvicorn

    from corescheduler.config import Config
    from corescheduler.service.api import create_app
    from corescheduler.service.service import Service

    service = Service(Config.from_dict({"cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 2,
                                                    "reduce_slots": 1}, "service": {"workers": 2, "tick": 0.1}}))
    server = uvicorn.Server(uvicorn.Config(create_app(service), host="127.0.0.1", port=8097, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(900):
        if server.started:
            break
        time.sleep(0.1)
    latencies: list[float] = []

    async def client(k: int) -> None:
        async with httpx.AsyncClient(base_url="http://127.0.0.1:8097", timeout=60) as c:
            for _ in range(jobs // clients):
                t = time.perf_counter()
                r = await c.post("/api/v1/jobs", json={"pool": f"team{k % 4}", "maps": [{"command": ["true"]}]})
                latencies.append(time.perf_counter() - t)
                assert r.status_code == 201, r.text

    try:
        t = time.perf_counter()
        asyncio.run(_gather(client, clients))
        total = time.perf_counter() - t
    finally:
        server.should_exit = True
        thread.join(60)
    print(f"load: {clients} clients, {jobs} jobs in {total:.1f} s; submit latency "
          f"p50 {statistics.median(latencies) * 1000:.1f} ms, p99 {_pct(latencies, 99) * 1000:.1f} ms, "
          f"max {max(latencies) * 1000:.1f} ms")


def _reader(url: str, job_id: str, readers: int, nice: int, stop: Any, go: Any, served: Any) -> None:
    """``readers`` concurrent readers of the big job until ``stop`` is set (another process at
    ``nice``), reading while ``go`` is set; ``served`` counts their answers."""
    import httpx

    os.nice(nice)

    async def one(k: int) -> None:
        paths = [f"/api/v1/jobs/{job_id}", f"/api/v1/jobs/{job_id}/tasks?limit=100", "/api/v1/jobs"]
        # from another loopback address than the measuring client's: readers are other hosts
        # (the service counts anonymous readers' costs by host)
        transport = httpx.AsyncHTTPTransport(local_address=READERS_ADDRESS)
        async with httpx.AsyncClient(base_url=url, timeout=120, transport=transport) as c:
            for i in range(10_000_000):
                if stop.is_set():
                    return
                if not go.is_set():  # paused: the quiet side of a round
                    await asyncio.sleep(0.005)
                    continue
                (await c.get(paths[(i + k) % len(paths)])).raise_for_status()
                served.value += 1  # one process, one event loop: no lock needed

    async def all_of() -> None:
        await asyncio.gather(*(one(k) for k in range(readers)))

    asyncio.run(all_of())


def _measure(c: Any, healthz: int = 100, jobs_n: int = 10) -> tuple[list[float], list[float]]:
    health = []
    for _ in range(healthz):
        t = time.perf_counter()
        c.get("/healthz").raise_for_status()
        health.append(time.perf_counter() - t)
    jobs = []
    for _ in range(jobs_n):
        t = time.perf_counter()
        job = c.post("/api/v1/jobs", json={"pool": "small", "maps": [{"command": ["true"]}]}).json()
        for _ in range(12_000):
            if c.get(f"/api/v1/jobs/{job['id']}").json()["state"] in ("finished", "failed", "killed"):
                break
            time.sleep(0.01)
        jobs.append(time.perf_counter() - t)
    return health, jobs


def bench_readers(tasks: int = 100_000, readers: int = 8) -> None:
    import os
    import socket
    import subprocess
    import tempfile
    from pathlib import Path

    import httpx

    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)  # the tasks' account reads nothing here but must traverse nothing either
        alloc = Path(tmp) / "pools.xml"
        alloc.write_text("<allocations><pool name='big'><maxRunningJobs>0</maxRunningJobs></pool>"
                         "<pool name='small'/></allocations>")
        run_as = f'run_as = "{os.environ.get("CORESCHEDULER_TEST_RUN_AS", "corescheduler-task")}"\n' \
            if os.geteuid() == 0 else ""
        config = Path(tmp) / "corescheduler.toml"
        config.write_text(f'[scheduler]\nallocation_file = "{alloc}"\n[cluster]\nracks = 1\nnodes_per_rack = 2\n'
                          f'map_slots = 2\nreduce_slots = 1\n[service]\nworkers = 2\ntick = 0.1\n{run_as}')
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        server = subprocess.Popen([sys.executable, "-m", "corescheduler", "serve", "--config", str(config),
                                   "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            with httpx.Client(base_url=url, timeout=300) as c:
                for _ in range(1200):
                    if server.poll() is not None:
                        raise RuntimeError(f"serve exited with {server.returncode}")
                    try:
                        if c.get("/healthz").status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    time.sleep(0.1)
                big, submit_wall, during = _submit_watched(c, url, {"pool": "big", "name": "big",
                                                                    "maps": [{"command": ["true"]}] * tasks})
                big.raise_for_status()
                _measure(c, 0, 1)  # the workers' first task (their launcher starts): in neither side
                job_id = big.json()["id"]
                plain = _rounds(c, server.pid, _reader, (url, job_id, readers, 0))
                niced = _rounds(c, server.pid, _reader, (url, job_id, readers, 19))
                control, _, _, _ = _rounds(c, server.pid, _burn, ())
        finally:
            server.terminate()
            server.wait(60)
    print(f"readers: {readers} readers of a {tasks}-task job (load average {os.getloadavg()[0]:.1f} at the end)")
    print(f"  its submit: {submit_wall:.2f} s; /healthz meanwhile (another connection, every 10 ms): "
          f"{len(during)} asked, p50 {statistics.median(during or [0]) * 1000:.1f} ms, "
          f"max {max(during or [0]) * 1000:.1f} ms")
    for title, (sides, reads, cpu_busy, wall) in (
            ("the readers' client at the service's priority (the method of sessions 11-13)", plain),
            ("the readers' client at nice 19 (readers on other machines: their CPU not the service's)", niced)):
        print(f"  {title}:")
        for k, label in enumerate(("/healthz", "1-task job")):
            quiet, busy = sides[k], sides[k + 2]
            q, b = statistics.median(quiet), statistics.median(busy)
            print(f"    {label:10s}: p50 {q * 1000:7.1f} ms quiet, {b * 1000:7.1f} ms with readers ({b / q:4.2f}×); "
                  f"p99 {_pct(quiet, 99) * 1000:7.1f} → {_pct(busy, 99) * 1000:7.1f} ms")
        server_cpu, client_cpu = cpu_busy
        print(f"    server: {reads / wall:.0f} reads/s, {server_cpu / max(reads, 1) * 1000:.2f} ms CPU per read "
              f"(the 1-task jobs' share included; {server_cpu / wall * 100:.0f} % of a core); the readers' client: "
              f"{client_cpu / max(reads, 1) * 1000:.2f} ms CPU per read ({client_cpu / wall * 100:.0f} % of a core)")
    ratios = [statistics.median(control[k + 2]) / statistics.median(control[k]) for k in (0, 1)]
    print(f"  control, one process burning a core and no reader: /healthz {ratios[0]:4.2f}×, 1-task job "
          f"{ratios[1]:4.2f}× (the machine's share of the ratios)")


def _submit_watched(c: Any, url: str, job: dict[str, Any]) -> tuple[Any, float, list[float]]:
    """``job`` submitted through ``c`` while another thread asks ``/healthz`` every 10 ms: the
    response, the submit's wall time and the latencies of the ``/healthz`` asked meanwhile."""
    import threading

    import httpx

    done, during = threading.Event(), []

    def watch() -> None:
        with httpx.Client(base_url=url, timeout=300) as h:
            for _ in range(100_000):
                if done.is_set():
                    return
                t = time.perf_counter()
                h.get("/healthz")
                during.append(time.perf_counter() - t)  # the one in flight when the submit ends too
                time.sleep(0.01)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    t = time.perf_counter()
    try:
        response = c.post("/api/v1/jobs", json=job)
    finally:
        done.set()
    wall = time.perf_counter() - t
    watcher.join(300)
    return response, wall, during


def _burn(stop: Any, go: Any, served: Any) -> None:
    """The control: no request at all, one process using a core while ``go`` is set."""
    while not stop.is_set():
        if not go.is_set():
            time.sleep(0.005)
            continue
        for _ in range(20_000):
            pass


def _rounds(c: Any, pid: int, target: Any, args: tuple[Any, ...],
            ) -> tuple[list[list[float]], int, tuple[float, float], float]:
    """``target(*args, stop, go, served)`` in another process, and ROUNDS rounds of a quiet side
    (``go`` clear) and a busy side (set), the order swapped every round: the /healthz and job
    latencies of each side (quiet health, quiet jobs, busy health, busy jobs), the answers
    counted, the server's and the other process's CPU seconds over the busy sides, their wall time."""
    import multiprocessing

    stop, go = multiprocessing.Event(), multiprocessing.Event()
    served = multiprocessing.Value("q", 0, lock=False)
    other = multiprocessing.Process(target=target, args=(*args, stop, go, served))
    other.start()
    sides: list[list[float]] = [[], [], [], []]
    cpu_busy, reads, wall, cpu_other = 0.0, 0, 0.0, 0.0
    try:
        go.set()
        time.sleep(2.0)  # the readers connected and reading
        for rnd in range(ROUNDS):
            for busy in ((False, True) if rnd % 2 else (True, False)):
                if busy:
                    go.set()
                    time.sleep(0.5)
                    cpu0, served0, t0 = _cpu(pid), served.value, time.perf_counter()
                    other0 = _cpu(other.pid)
                else:
                    go.clear()
                    time.sleep(0.5)  # the reads in flight end
                h, j = _measure(c, 100 // ROUNDS, 10 // ROUNDS)
                sides[2 * busy] += h
                sides[2 * busy + 1] += j
                if busy:
                    cpu_busy += _cpu(pid) - cpu0
                    cpu_other += _cpu(other.pid) - other0
                    reads += served.value - served0
                    wall += time.perf_counter() - t0
    finally:
        stop.set()
        other.join(120)
        if other.is_alive():
            other.terminate()
    return sides, reads, (cpu_busy, cpu_other), wall


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid`` and its threads so far (Linux)."""
    import os

    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _gather(client, clients: int) -> None:
    await asyncio.gather(*(client(k) for k in range(clients)))


if __name__ == "__main__":
    which = sys.argv[1:] or ["makespan", "load", "start", "readers"]
    if "start" in which:
        bench_start()
    if "makespan" in which:
        bench_makespan()
    if "load" in which:
        bench_load()
    if "readers" in which:
        bench_readers()
