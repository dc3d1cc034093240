"""FB-2009's first N jobs through the simulator, for deterministic counts (not timings).

    python benchmarks/count_fb2009.py 300 time      # one run (wall time printed, for reference)
    python benchmarks/count_fb2009.py 1000 prof     # cProfile: total Python calls, top functions
    valgrind --tool=callgrind python benchmarks/count_fb2009.py 300 time   # instructions
    (subtract the same command's count with N = 1: start-up)

The setup is ``bench_simulator.py fb2009``'s (the bundled example config, 30 racks × 20 nodes,
seed 0); the trace is cut to its first N lines.  On a VM whose wall times spread by tens of
percent, instruction and call counts are what compares two commits.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import tempfile
import time
import tomllib
from importlib.resources import as_file, files
from pathlib import Path

from corescheduler.config import Config
from corescheduler.formats.workloads import load_workload
from corescheduler.sim.simulator import Simulation, build_cluster, load_allocations

TRACE = Path(__file__).resolve().parents[2] / "shared" / "workloads" / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"


def main(n: int, mode: str) -> None:
    lines = TRACE.read_text(encoding="utf-8").splitlines(True)
    trace = Path(tempfile.gettempdir()) / f"fb2009-first-{n}.tsv"
    trace.write_text("".join(lines[:n]), encoding="utf-8")
    with as_file(files("corescheduler_examples")) as folder:
        source = Path(folder) / "corescheduler.toml"
        data = tomllib.loads(source.read_text(encoding="utf-8"))
        data["cluster"] = {**data.get("cluster", {}), "racks": 30, "nodes_per_rack": 20}
        data["scheduler"].pop("allocation_file", None)
        config = Config.from_dict(data, source=str(source))
        allocations = load_allocations(config)
    nodes = {node.name: node.rack for node in build_cluster(config).nodes.values()}
    workload = load_workload(trace, config=config, seed=0, nodes=nodes)
    with tempfile.TemporaryDirectory() as out:
        sim = Simulation(config, workload, 0, allocations=allocations, out_dir=out)
        if mode == "prof":
            profile = cProfile.Profile()
            profile.enable()
            result = sim.run()
            profile.disable()
            stats = pstats.Stats(profile)
            print("calls", stats.total_calls, "events", result.engine_events, result.events)
            text = io.StringIO()
            pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(25)
            print(text.getvalue()[-6000:])
        else:
            started = time.perf_counter()
            result = sim.run()
            print("run_s", round(time.perf_counter() - started, 2), result.engine_events)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "time")
