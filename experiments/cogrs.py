"""Experiment: CoGRS reduce placement against native Hadoop's, with the simulator's shuffle model.

Hammoud, Rehman, Sakr, "Center-of-Gravity Reduce Task Scheduling to Lower MapReduce
Network Traffic", IEEE CLOUD 2012, measured off-rack shuffle traffic 9.6 % lower on average
on a private cloud and 38.6 % lower on Amazon EC2 than native Hadoop 0.20.2, and job times
up to 23.8 % better.  Here the same comparison runs in the simulator:

* **(a) jobs shaped like the paper's benchmarks**, each alone on two racks of 10 nodes
  (``experiments/configs/cogrs_native.toml`` vs ``cogrs.toml``), seeds 0-4:
  *Sort* (uniform partitions: every map sends each reduce the same share),
  *WordCount* (partitioning skew: a Zipf key distribution shared by all maps mixed with a
  per-split one, and map outputs of lognormal size) and *K-means* (each split's points fall
  mostly in a few clusters: Dirichlet(0.3) partitions per map); and a *busy* mix of 12 such
  jobs arriving every 15 s.
* **(b) a SWIM day**: FB-2009 (5,894 jobs, 600 nodes in 30 racks) with ``[simulation]
  shuffle = "network"``, the bundled example's scheduler settings (no allocation file), the
  task selector ``delay`` vs ``cogrs``.

Measured: shuffle bytes off-rack (and node-local), the seconds reduces spent copying, mean
job response time and the makespan.  Run from the repository root::

    .venv/bin/python experiments/cogrs.py           # (a) and (b), about 3 minutes on 2 cores
    .venv/bin/python experiments/cogrs.py --no-swim # (a) only, seconds; (b) stays as it was

It prints the tables, writes ``docs/experiments/cogrs.png`` and replaces the text between
``<!-- cogrs:begin -->`` and ``<!-- cogrs:end -->`` in ``docs/experiments.md``.  The
generated workloads and each run's metrics are in ``experiments/out/cogrs/``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tomllib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from _shared import replace_section  # experiments/_shared.py

REPO = Path(__file__).resolve().parent.parent
CONFIGS = REPO / "experiments" / "configs"
OUT = REPO / "experiments" / "out" / "cogrs"
PLOT = REPO / "docs" / "experiments" / "cogrs.png"
DOC = REPO / "docs" / "experiments.md"
HEADING = "## CoGRS: reduces at their center of gravity"
BEGIN, END = "<!-- cogrs:begin -->", "<!-- cogrs:end -->"
SEEDS = (0, 1, 2, 3, 4)
POLICIES = {"native": "cogrs_native", "cogrs": "cogrs"}
#: the sensitivity sweep: cogrs placing reduces only after this fraction of the maps finished
SLOWSTARTS = (0.5, 1.0)
MB = 1e6
BENCHMARKS = ("sort", "wordcount", "kmeans", "busy")
SWIM = (Path(os.environ["CORESCHEDULER_SWIM"]) if os.environ.get("CORESCHEDULER_SWIM")
        else REPO.parent / "shared" / "workloads" / "swim") / "FB-2009_samples_24_times_1hr_0.tsv"
#: the (b) table's rows: label -> the measure it shows
MEASURES = (
    ("off-rack shuffle (GB)", "off_rack_gb", "{:.2f}"),
    ("off-rack share of shuffle", "off_rack_fraction", "{:.1%}"),
    ("node-local shuffle (GB)", "node_gb", "{:.2f}"),
    ("mean WTND per reduce", "wtnd", "{:.3f}"),
    ("reduce copy time, total (s)", "copy_s", "{:,.0f}"),
    ("mean job response (s)", "response_s", "{:,.1f}"),
    ("makespan (s)", "makespan_s", "{:,.1f}"),
)
SWIM_HEADING = "(b) The FB-2009 SWIM day"


# ---------------------------------------------------------------------------- workloads
def zipf(n: int, s: float) -> list[float]:
    w = [1.0 / (k + 1) ** s for k in range(n)]
    total = sum(w)
    return [x / total for x in w]


def job(kind: str, job_id: str, submit: float, rng: random.Random) -> dict[str, Any]:
    """One job shaped like the paper's benchmark ``kind`` (40 maps of one 128 MB block)."""
    maps = 40
    if kind == "sort":  # output = input, spread evenly by the hash partitioner
        reduces, map_s, reduce_s = 10, 15.0, 20.0
        shuffle: dict[str, Any] = {"bytes": maps * 128 * MB, "partition": "uniform"}
    elif kind == "wordcount":  # hot words everywhere + each split's own vocabulary; outputs vary
        reduces, map_s, reduce_s = 8, 15.0, 10.0
        common = zipf(reduces, 1.0)
        matrix = []
        for _ in range(maps):
            out = 30 * MB * rng.lognormvariate(0.0, 1.0)
            local = zipf(reduces, 1.5)
            rng.shuffle(local)
            matrix.append([round(out * (0.5 * g + 0.5 * o)) for g, o in zip(common, local)])
        shuffle = {"partition": matrix}
    else:  # kmeans: a split's points fall mostly in a few clusters (one reduce per cluster)
        reduces, map_s, reduce_s = 6, 20.0, 10.0
        matrix = []
        for _ in range(maps):
            weights = [rng.gammavariate(0.3, 1.0) for _ in range(reduces)]
            total = sum(weights) or 1.0
            out = 40 * MB
            matrix.append([round(out * w / total) for w in weights])
        shuffle = {"partition": matrix}
    jitter = [round(map_s * rng.uniform(0.8, 1.2), 3) for _ in range(maps)]
    return {"id": job_id, "submit": submit, "user": f"u{job_id}", "pool": job_id,
            "maps": [{"duration": d} for d in jitter],
            "reduces": [{"duration": round(reduce_s * rng.uniform(0.8, 1.2), 3)} for _ in range(reduces)],
            "shuffle": shuffle}


def workload(bench: str, seed: int) -> Path:
    rng = random.Random(f"{bench}/{seed}")
    if bench == "busy":
        kinds = ("sort", "wordcount", "kmeans") * 4
        jobs = [job(kind, f"{kind}{i}", 15.0 * i, rng) for i, kind in enumerate(kinds)]
    else:
        jobs = [job(bench, bench, 0.0, rng)]
    path = OUT / "workloads" / f"{bench}-{seed}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"jobs": jobs}))
    return path


# ---------------------------------------------------------------------------- runs
def measures(metrics: dict[str, Any]) -> dict[str, Any]:
    s = metrics["summary"]
    sh = s["shuffle"]
    return {
        "off_rack_gb": sh["bytes"]["off_rack"] / 1e9,
        "node_gb": sh["bytes"]["node"] / 1e9,
        "total_gb": sum(sh["bytes"].values()) / 1e9,
        "off_rack_fraction": sh["off_rack_fraction"],
        "wtnd": sh["wtnd_mean"],
        "copy_s": sh["copy_seconds"],
        "response_s": s["mean_response_time"],
        "makespan_s": s["makespan"],
        "jobs": s["finished_jobs"],
    }


def run_case(case: tuple[str, str, int]) -> dict[str, Any]:
    """One simulation, in a worker process: (benchmark or "swim", policy, seed)."""
    from corescheduler.config import Config
    from corescheduler.formats.workloads import load_workload
    from corescheduler.sim.simulator import Simulation, build_cluster

    bench, policy, seed = case
    policy, _, slowstart = policy.partition("@")
    source = CONFIGS / f"{POLICIES[policy]}.toml"
    if bench == "swim":  # the bundled example's scheduler on 600 nodes, SWIM shuffles over the network
        example = REPO / "examples" / "corescheduler.toml"
        data = tomllib.loads(example.read_text())
        data["scheduler"].pop("allocation_file", None)
        data["scheduler"]["task_selector"] = "delay" if policy == "native" else "cogrs"
        data["cluster"] = {**data["cluster"], "racks": 30, "nodes_per_rack": 20}
        data.setdefault("simulation", {})["shuffle"] = "network"
        config = Config.from_dict(data, source=str(example))
        nodes = {n.name: n.rack for n in build_cluster(config).nodes.values()}
        wl = load_workload(SWIM, config=config, seed=seed, nodes=nodes)
    else:
        data = tomllib.loads(source.read_text())
        if slowstart:
            data["plugins"]["cogrs"]["slowstart"] = float(slowstart)
        config = Config.from_dict(data, source=str(source))
        wl = load_workload(workload(bench, seed), config=config, seed=seed)
    out = OUT / "runs" / f"{bench}-{policy}{slowstart and '@' + slowstart}-{seed}"
    result = Simulation(config, wl, seed, out_dir=out).run()
    (out / "events.jsonl").unlink()  # the metrics are what the tables read; events are large
    return measures(result.metrics)


def change(native: float, cogrs: float) -> str:
    if not native:
        return "–"
    return f"{100 * (cogrs - native) / native:+.1f} %"


def table(results: dict[tuple[str, str, int], dict[str, Any]], benches: tuple[str, ...],
          seeds: tuple[int, ...]) -> tuple[str, dict[str, dict[str, dict[str, float]]]]:
    """The markdown table (means over seeds) and the means themselves."""
    means: dict[str, dict[str, dict[str, float]]] = {}
    lines = ["| workload | measure | native | cogrs | change |", "|---|---|---|---|---|"]
    for bench in benches:
        means[bench] = {}
        for policy in POLICIES:
            rows = [results[(bench, policy, s)] for s in seeds]
            means[bench][policy] = {k: statistics.fmean(r[k] for r in rows) for k in rows[0]}
        n, c = means[bench]["native"], means[bench]["cogrs"]
        for label, key, fmt in MEASURES:
            lines.append(f"| {bench} | {label} | {fmt.format(n[key])} | {fmt.format(c[key])} | "
                         f"{change(n[key], c[key])} |")
    return "\n".join(lines), means


def per_seed(results: dict[tuple[str, str, int], dict[str, Any]], benches: tuple[str, ...]) -> str:
    lines = ["| workload | seed | off-rack GB native → cogrs | response s native → cogrs |", "|---|---|---|---|"]
    for bench in benches:
        for s in SEEDS:
            n, c = results[(bench, "native", s)], results[(bench, "cogrs", s)]
            lines.append(f"| {bench} | {s} | {n['off_rack_gb']:.2f} → {c['off_rack_gb']:.2f} "
                         f"({change(n['off_rack_gb'], c['off_rack_gb'])}) | {n['response_s']:.1f} → "
                         f"{c['response_s']:.1f} ({change(n['response_s'], c['response_s'])}) |")
    return "\n".join(lines)


def sweep(results: dict[tuple[str, str, int], dict[str, Any]]) -> str:
    """cogrs with a later placement point: means over seeds."""
    lines = ["| workload | cogrs slowstart | off-rack GB | copy time (s) | mean response (s) |",
             "|---|---|---|---|---|"]
    for bench in BENCHMARKS:
        for label, policy in (("native", "native"), ("0.05 (default)", "cogrs"),
                              *((f"{f:g}", f"cogrs@{f:g}") for f in SLOWSTARTS)):
            rows = [results[(bench, policy, s)] for s in SEEDS]
            lines.append(f"| {bench} | {label} | {statistics.fmean(r['off_rack_gb'] for r in rows):.2f} | "
                         f"{statistics.fmean(r['copy_s'] for r in rows):,.0f} | "
                         f"{statistics.fmean(r['response_s'] for r in rows):.1f} |")
    return "\n".join(lines)


def plot(means: dict[str, dict[str, dict[str, float]]]) -> None:
    """cogrs against native, in percent, per workload: off-rack bytes, copy time, response."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = list(means)
    measures_ = (("off_rack_gb", "off-rack shuffle bytes"), ("copy_s", "reduce copy time"),
                 ("response_s", "mean job response"))
    fig, ax = plt.subplots(figsize=(9, 3.8))
    width = 0.26
    for i, (key, label) in enumerate(measures_):
        values = [100 * (means[w]["cogrs"][key] - means[w]["native"][key]) / means[w]["native"][key]
                  for w in workloads]
        bars = ax.bar([x + (i - 1) * width for x in range(len(workloads))], values, width, label=label)
        ax.bar_label(bars, fmt="%+.1f", fontsize=7, padding=2)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(workloads)), workloads)
    ax.set_ylabel("cogrs vs native (%)")
    ax.set_title("CoGRS reduce placement against native Hadoop's (negative = better; means over seeds)",
                 fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(PLOT, dpi=110)


def previous_swim() -> tuple[list[str], dict[str, dict[str, float]]] | None:
    """(b) as docs/experiments.md has it from an earlier full run — its lines and the means its
    table shows — so that a run without the trace (or with ``--no-swim``) keeps it."""
    import re

    if not DOC.exists():
        return None
    text = DOC.read_text()
    start = text.find(SWIM_HEADING)
    if start < 0:
        return None
    lines = []
    for line in text[start:].splitlines():
        if line.startswith("![") or line.startswith(END):
            break
        lines.append(line)
    while lines and not lines[-1].strip():
        lines.pop()
    labels = {label: key for label, key, _ in MEASURES}
    means: dict[str, dict[str, float]] = {"native": {}, "cogrs": {}}
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] == "swim" and cells[1] in labels:
            for policy, cell in (("native", cells[2]), ("cogrs", cells[3])):
                number = re.sub(r"[,%]", "", cell)
                means[policy][labels[cells[1]]] = float(number) / (100 if cell.endswith("%") else 1)
    return lines, means


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-swim", action="store_true", help="skip (b), the SWIM day")
    args = parser.parse_args(argv)
    swim = not args.no_swim and SWIM.exists()
    if not args.no_swim and not swim:
        print(f"note: {SWIM} not found (set CORESCHEDULER_SWIM to its folder): (b) is not run again", file=sys.stderr)
    policies = [*POLICIES, *(f"cogrs@{f:g}" for f in SLOWSTARTS)]
    cases = [(b, p, s) for b in BENCHMARKS for p in policies for s in SEEDS]
    if swim:
        cases = [("swim", p, 0) for p in POLICIES] + cases  # the long ones first
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = dict(zip(cases, pool.map(run_case, cases)))
    bench_table, means = table(results, BENCHMARKS, SEEDS)
    seeds_table = per_seed(results, BENCHMARKS)
    text = [f"(a) Jobs shaped like the paper's benchmarks, each alone on 2 racks × 10 nodes (busy: 12 "
            f"of them, one every 15 s); means over seeds {SEEDS[0]}–{SEEDS[-1]}:", "", bench_table, "",
            "Per seed:", "", seeds_table, "",
            "cogrs placing reduces later (`[plugins.cogrs] slowstart`: the fraction of maps finished before it "
            "places a reduce), means over the seeds:", "", sweep(results)]
    if swim:
        swim_table, swim_means = table(results, ("swim",), (0,))
        means["swim"] = swim_means["swim"]
        text += ["", f"{SWIM_HEADING} (5,894 jobs; 600 nodes in 30 racks; `shuffle = \"network\"`, "
                 "uniform partitions), seed 0:", "", swim_table]
    else:
        kept = previous_swim()
        if kept is not None:  # (b) from the last full run stays, and so do its bars
            text += ["", *kept[0]]
            means["swim"] = kept[1]
            print("note: (b) kept as the last full run left it", file=sys.stderr)
    text += ["", "![native vs cogrs](experiments/cogrs.png)", "",
             "Regenerate: `.venv/bin/python experiments/cogrs.py` (tables and plot; the SWIM trace from "
             "`../shared/workloads/swim` or `$CORESCHEDULER_SWIM`; `--no-swim` reruns (a) only and keeps (b))."]
    body = "\n".join(text)
    print(body)
    plot(means)
    replace_section(DOC, HEADING, BEGIN, END, body)
    (OUT / "results.json").write_text(json.dumps({f"{b}/{p}/{s}": r for (b, p, s), r in results.items()}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
