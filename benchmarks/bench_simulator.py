"""Simulator throughput on the SWIM Facebook day-long traces.

    python benchmarks/bench_simulator.py                 # FB-2009 on 600 nodes, then FB-2010 on 3,000 nodes
    python benchmarks/bench_simulator.py fb2009          # one case
    python benchmarks/bench_simulator.py fb2009 --heartbeats-per-second 100
                                                         # Hadoop's JobTracker heartbeat spacing
    python benchmarks/bench_simulator.py fb2009 --shuffle network [--task-selector cogrs]
                                                         # the shuffle over the network model
    python benchmarks/bench_simulator.py fb2009 --peer   # also AccaSim 1.1.3 on the same trace

``--peer`` runs AccaSim 1.1.3 (PyPI; a pure-Python job-level HPC simulator: each job one rigid
block, no tasks, locality or preemption) in a venv of its own (``benchmarks/.peer-venv``,
made on first use) with FIFO and first-fit allocation, on the same trace converted to SWF:
one job per SWIM job, submitted at its SWIM time, asking for min(maps, map slots) processors
for ceil(maps / processors) × one map's duration (the SWIM derivation's map duration with
the default rates); a system of the case's nodes with ``map_slots`` cores each.  The ratio
printed is our jobs/s over AccaSim's.

Each case runs in a fresh process (so peak memory is its own) with the
bundled example's ``[scheduler]`` and ``[plugins]`` settings (fair sharing,
delay scheduling, new-job booster, assign-multiple, preemption) but not its
allocation file (its pools are the example's, and its default of 10 running
jobs per user would queue the trace's Zipf-popular users for days), on racks
of 20 nodes with 2 map + 1 reduce slots each, and writes events.jsonl and metrics.json to a
temporary folder as ``corescheduler simulate`` does.  Printed per case: wall
time (workload loading and the run), engine events (taken off the heap),
events written, events/s, peak memory (ru_maxrss), and the ratio of the
engine's events/s to a bare ``heapq`` push/pop loop of the same number of
events timed in the same process.

``compiled`` says whether the simulator's hot modules run compiled (``CORESCHEDULER_MYPYC=1
pip install .``, see setup.py) or as Python.

The traces are read from ``$CORESCHEDULER_SWIM`` or ``../shared/workloads/swim``
beside the repository.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import tomllib
from importlib.resources import as_file, files
from pathlib import Path

CASES = {
    # name: (trace file, racks, nodes per rack)
    "fb2009": ("FB-2009_samples_24_times_1hr_0.tsv", 30, 20),
    "fb2010": ("FB-2010_samples_24_times_1hr_0.tsv", 150, 20),
}


def swim_dir() -> Path:
    env = os.environ.get("CORESCHEDULER_SWIM")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "shared" / "workloads" / "swim"


def heapq_rate(n: int, seed: int = 1) -> float:
    """Events/s of a bare heap loop: pop one ``(time, seq, kind, payload)``
    event and push its successor, ``n`` times, over 1,000 pending events."""
    rng = random.Random(seed)
    heap = [(rng.random(), i, 0, None) for i in range(1000)]
    heapq.heapify(heap)
    pop, push, rand = heapq.heappop, heapq.heappush, rng.random
    seq = len(heap)
    started = time.perf_counter()
    for _ in range(n):
        t, _, kind, payload = pop(heap)
        seq += 1
        push(heap, (t + rand(), seq, kind, payload))
    return n / (time.perf_counter() - started)


def run_case(name: str, heartbeats_per_second: float, seed: int, config_file: str | None = None,
             shuffle: str | None = None, task_selector: str | None = None) -> dict[str, object]:
    from corescheduler.config import Config
    from corescheduler.formats.workloads import load_workload
    from corescheduler.sim.simulator import Simulation, build_cluster, load_allocations

    trace, racks, per_rack = CASES[name]
    with as_file(files("corescheduler_examples")) as folder:
        source = Path(config_file) if config_file else Path(folder) / "corescheduler.toml"
        data = tomllib.loads(source.read_text(encoding="utf-8"))
        data["cluster"] = {**data.get("cluster", {}), "racks": racks, "nodes_per_rack": per_rack}
        data["scheduler"].pop("allocation_file", None)
        if heartbeats_per_second:
            data.setdefault("simulation", {})["heartbeats_per_second"] = heartbeats_per_second
        if shuffle:  # [simulation] shuffle: "network" sends SWIM's shuffle bytes over the network model
            data.setdefault("simulation", {})["shuffle"] = shuffle
        if task_selector:
            data["scheduler"]["task_selector"] = task_selector
        config = Config.from_dict(data, source=str(source))
        allocations = load_allocations(config)
    started = time.perf_counter()
    nodes = {n.name: n.rack for n in build_cluster(config).nodes.values()}
    workload = load_workload(swim_dir() / trace, config=config, seed=seed, nodes=nodes)
    loaded = time.perf_counter() - started
    maps, reduces = workload.task_counts()
    with tempfile.TemporaryDirectory() as out:
        sim = Simulation(config, workload, seed, allocations=allocations, out_dir=out)
        result = sim.run()
    wall = time.perf_counter() - started
    rate = result.engine_events / result.wall_time
    bare = heapq_rate(result.engine_events)
    s = result.metrics["summary"]
    from corescheduler.compiled import compiled_modules

    return {
        "jobs_per_s": round(len(workload.jobs) / wall, 1),
        "case": name,
        "compiled": all(compiled_modules().values()),  # CORESCHEDULER_MYPYC=1 pip install (setup.py)
        "nodes": racks * per_rack,
        "heartbeat_interval": sim.heartbeat_interval,
        "jobs": len(workload.jobs),
        "maps": maps,
        "reduces": reduces,
        "load_s": round(loaded, 2),
        "run_s": round(result.wall_time, 2),
        "wall_s": round(wall, 2),
        "engine_events": result.engine_events,
        "events_written": result.events,
        "events_per_s": round(rate),
        "heapq_events_per_s": round(bare),
        "ratio_to_heapq": round(rate / bare, 4),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "sim_time_s": round(result.sim_time, 1),
        "mean_response_time": s["mean_response_time"],
        "node_locality": s["node_locality"],
        "utilization": s["utilization"],
        "preempted_tasks": s["preempted_tasks"],
    }


PEER_VENV = Path(__file__).resolve().parent / ".peer-venv"
PEER = "accasim==1.1.3"


def swim_to_swf(trace: Path, out: Path, map_slots: int) -> None:
    """The SWIM trace as SWF for a job-level simulator (conversion in the module docstring)."""
    import math

    from corescheduler.formats.workloads import WorkloadSettings

    s = WorkloadSettings()
    lines = []
    for number, line in enumerate(trace.read_text().splitlines(), start=1):
        cols = line.split("\t")
        submit, input_bytes = int(float(cols[1])), float(cols[3])
        maps = max(1, math.ceil(input_bytes / s.block_size))
        procs = min(maps, map_slots)
        map_seconds = s.task_overhead + (input_bytes / maps) / s.map_rate
        run = max(1, math.ceil(map_seconds * math.ceil(maps / procs)))
        lines.append(f"{number} {submit} -1 {run} {procs} -1 -1 {procs} {run} -1 1 1 1 -1 1 -1 -1 -1")
    out.write_text("\n".join(lines) + "\n")


def run_peer(case: str) -> float:
    """AccaSim's wall time on the case's trace (its venv made on first use)."""
    import venv

    python = PEER_VENV / "bin" / "python"
    if not python.exists():
        venv.create(PEER_VENV, with_pip=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", PEER], check=True)
    trace, racks, per_rack = CASES[case]
    with tempfile.TemporaryDirectory() as tmp:
        swf, system = Path(tmp) / "trace.swf", Path(tmp) / "system.json"
        swim_to_swf(swim_dir() / trace, swf, 2 * racks * per_rack)
        system.write_text(json.dumps({"groups": {"node": {"core": 2, "mem": 1_000_000}},
                                      "resources": {"node": racks * per_rack}}))
        out = subprocess.run([str(python), str(Path(__file__).with_name("peer_accasim.py")), str(swf), str(system),
                              str(Path(tmp) / "out")], check=True, capture_output=True, text=True).stdout
    return float(json.loads(out.strip().splitlines()[-1])["wall_s"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"of {', '.join(CASES)} (default: all)")
    parser.add_argument("--heartbeats-per-second", type=float, default=0.0,
                        help="[simulation] heartbeats_per_second (Hadoop: 100); default 0 = every 3 s")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--config", default=None,
                        help="a corescheduler.toml for [scheduler] and [plugins] (default: the bundled example)")
    parser.add_argument("--shuffle", choices=("auto", "network", "off"), default=None,
                        help='[simulation] shuffle ("network": SWIM shuffles over the network model)')
    parser.add_argument("--task-selector", default=None, help="[scheduler] task_selector (e.g. cogrs)")
    parser.add_argument("--peer", action="store_true", help="also run AccaSim 1.1.3 on the same trace")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    for case in args.cases:
        if case not in CASES:
            parser.error(f"unknown case {case!r}; expected one of {', '.join(CASES)}")
    if args.child:
        print(json.dumps(run_case(args.cases[0], args.heartbeats_per_second, args.seed, args.config,
                                  args.shuffle, args.task_selector)))
        return
    rows = []
    for case in args.cases or list(CASES):
        cmd = [sys.executable, __file__, case, "--child", "--seed", str(args.seed),
               "--heartbeats-per-second", str(args.heartbeats_per_second)]
        if args.config:
            cmd += ["--config", str(Path(args.config).resolve())]
        if args.shuffle:
            cmd += ["--shuffle", args.shuffle]
        if args.task_selector:
            cmd += ["--task-selector", args.task_selector]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        rows.append(json.loads(out.strip().splitlines()[-1]))
        print(json.dumps(rows[-1]), flush=True)
        if args.peer:
            peer = run_peer(case)
            rows[-1]["peer_wall_s"] = round(peer, 2)
            rows[-1]["peer_jobs_per_s"] = round(rows[-1]["jobs"] / peer, 1)
            rows[-1]["ratio_to_peer"] = round(rows[-1]["jobs_per_s"] / rows[-1]["peer_jobs_per_s"], 3)
            print(json.dumps({k: rows[-1][k] for k in ("case", "peer_wall_s", "peer_jobs_per_s", "ratio_to_peer")}),
                  flush=True)
    cols = ["case", "nodes", "heartbeat_interval", "jobs", "maps", "wall_s", "jobs_per_s", "engine_events",
            "events_written", "events_per_s", "ratio_to_heapq", "peak_rss_mb"]
    if args.peer:
        cols += ["peer_wall_s", "peer_jobs_per_s", "ratio_to_peer"]
    widths = [max(len(c), *(len(str(r[c])) for r in rows)) for c in cols]
    print("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    for r in rows:
        print("  ".join(str(r[c]).rjust(w) for c, w in zip(cols, widths)))


if __name__ == "__main__":
    main()
