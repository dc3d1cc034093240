"""Experiment: copy-compute splitting against reduce-slot hoarding.

One long job with many reduces is submitted first; a stream of small jobs
(4 maps, 1 reduce) follows while its maps run.  ``corescheduler compare``
runs the same generated workload under fair sharing with Hadoop's plain slot
rule (``experiments/configs/copy_compute_slots.toml``, ``load_manager =
"slots"``: a reduce holds its reduce slot from launch, copy phase included)
and with copy-compute splitting (``experiments/configs/copy_compute_split.toml``,
``load_manager = "copy_compute_split"``: copying reduces take copy slots,
2 per reduce slot, and only computing reduces take reduce slots), for seeds
0 and 1 (the seed draws the small jobs' arrivals and task lengths, heartbeat
phases and block placement).  It reports the small jobs' mean and p95
response time, the long job's, the speed-up, where the small jobs' time goes
(from the runs' events), and a sweep over the long job's reduce count.
Zaharia et al., UCB/EECS-2009-55 §5, report 2-10x gains for such mixes.

Run from the repository root::

    .venv/bin/python experiments/copy_compute.py

It prints the tables, writes ``docs/experiments/copy_compute.png`` and
replaces the text between ``<!-- copy-compute:begin -->`` and
``<!-- copy-compute:end -->`` in ``docs/experiments.md`` (adding the section
at the end if missing).  The generated workloads and each run's events,
metrics and report.html are in ``experiments/out/copy_compute/``.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from _shared import replace_section, run_all  # experiments/_shared.py

REPO = Path(__file__).resolve().parent.parent
CONFIGS = REPO / "experiments" / "configs"
OUT = REPO / "experiments" / "out" / "copy_compute"
PLOT = REPO / "docs" / "experiments" / "copy_compute.png"
DOC = REPO / "docs" / "experiments.md"
HEADING = "## Copy-compute split"
BEGIN, END = "<!-- copy-compute:begin -->", "<!-- copy-compute:end -->"
SEEDS = (0, 1)
RUNS = {"slots": "copy_compute_slots", "split": "copy_compute_split"}  # label -> config name

# The documented mix (the cluster is in the configs: 2 racks x 10 nodes,
# 2 map + 1 reduce slots each -> 40 map slots, 20 reduce slots, 40 copy slots).
LONG_MAPS, LONG_MAP_S = 400, 60.0
LONG_REDUCES, LONG_REDUCE_S, LONG_COPY_S = 30, 120.0, 40.0  # 1.5 x the reduce slots
SMALL_JOBS, SMALL_FIRST, SMALL_GAP = 60, 30.0, 10.0  # Poisson stream: first at 30 s, mean gap 10 s
SMALL_MAPS, SMALL_MAP_S, SMALL_REDUCE_S = 4, 10.0, 20.0  # +-20 % per task; a reduce copies 1/3 of its length
JITTER = 0.2
SWEEP = (10, 20, 30, 40, 60)  # the long job's reduce count, for the sensitivity table


# ---------------------------------------------------------------------------- workload
def workload(seed: int, long_reduces: int = LONG_REDUCES) -> dict[str, Any]:
    """The mix: the long job at t = 0, then SMALL_JOBS small jobs; a pool per job."""
    rng = random.Random(seed)
    jobs: list[dict[str, Any]] = [{
        "id": "long", "submit": 0.0, "user": "etl", "pool": "long",
        "map_count": LONG_MAPS, "map_duration": LONG_MAP_S,
        "reduce_count": long_reduces, "reduce_duration": LONG_REDUCE_S, "reduce_copy_duration": LONG_COPY_S,
    }]
    t = SMALL_FIRST
    for i in range(SMALL_JOBS):
        reduce = round(SMALL_REDUCE_S * rng.uniform(1 - JITTER, 1 + JITTER), 2)
        jobs.append({
            "id": f"small{i:02d}", "submit": round(t, 2), "user": f"user{i:02d}", "pool": f"small{i:02d}",
            "maps": [{"duration": round(SMALL_MAP_S * rng.uniform(1 - JITTER, 1 + JITTER), 2)}
                     for _ in range(SMALL_MAPS)],
            "reduces": [{"duration": reduce, "copy_duration": round(reduce / 3, 2)}],
        })
        t += rng.expovariate(1 / SMALL_GAP)
    return {"name": f"copy_compute_mix_seed{seed}_r{long_reduces}", "jobs": jobs}


def cluster() -> dict[str, int]:
    from corescheduler.config import Config

    c = Config.from_file(CONFIGS / f"{RUNS['slots']}.toml").cluster
    nodes = c.racks * c.nodes_per_rack
    return {"nodes": nodes, "map": nodes * c.map_slots, "reduce": nodes * c.reduce_slots,
            "copy": nodes * 2 * c.reduce_slots}


# ---------------------------------------------------------------------------- runs
def compare(seed: int, long_reduces: int = LONG_REDUCES) -> dict[str, Any]:
    out = OUT / (f"seed{seed}" if long_reduces == LONG_REDUCES else f"sweep/r{long_reduces}_seed{seed}")
    out.mkdir(parents=True, exist_ok=True)
    spec = workload(seed, long_reduces)
    path = out / "workload.json"
    path.write_text(json.dumps(spec, indent=1) + "\n")
    cmd = [sys.executable, "-m", "corescheduler", "compare", "--workload", str(path),
           "--seed", str(seed), "--out", str(out), "--json"]
    for name in RUNS.values():
        cmd += ["--config", str(CONFIGS / f"{name}.toml")]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=REPO)
    runs = json.loads((out / "compare.json").read_text())["runs"]
    return {label: analyse(runs[name], out / name / "events.jsonl", spec) for label, name in RUNS.items()}


def analyse(run: dict[str, Any], events_path: Path, spec: dict[str, Any]) -> dict[str, Any]:
    """Per-job response times and, from the events, where the small jobs' time went."""
    copy_s = {f"{j['id']}_r_{i:06d}": r["copy_duration"]
              for j in spec["jobs"] for i, r in enumerate(j.get("reduces", []))}
    copy_s.update({f"long_r_{i:06d}": LONG_COPY_S for i in range(spec["jobs"][0]["reduce_count"])})
    submit: dict[str, float] = {}
    finish: dict[str, float] = {}
    last_map: dict[str, float] = {}
    reduces: dict[str, dict[str, Any]] = {}  # task -> job, start, compute, finish
    with open(events_path, encoding="utf-8") as f:
        for line in f:
            e = json.loads(line)
            kind, t = e["type"], e["time"]
            if kind == "job_submit":
                submit[e["job"]] = t
            elif kind == "job_finish":
                finish[e["job"]] = t
            elif kind == "task_start" and e["kind"] == "reduce":
                reduces[e["task"]] = {"job": e["job"], "start": t, "node": e["node"]}
            elif kind == "task_phase":
                reduces[e["task"]]["compute"] = t
            elif kind == "task_finish":
                if e["kind"] == "map":
                    last_map[e["job"]] = max(last_map.get(e["job"], 0.0), t)
                else:
                    reduces[e["task"]]["finish"] = t
            elif kind == "task_preempt":
                raise RuntimeError("no preemption is configured, yet a task was preempted")
    small = [j for j in submit if j != "long"]
    rows = []
    for task, r in reduces.items():
        if r["job"] == "long":
            continue
        j = r["job"]
        ready = max(r["start"] + copy_s[task], last_map[j])  # when its copy would end with no compute wait
        rows.append({
            "job": j, "submit": submit[j], "response": finish[j] - submit[j],
            "maps_done": last_map[j] - submit[j],
            "launch_wait": max(0.0, r["start"] - last_map[j]),  # maps done, reduce not yet launched
            "compute_wait": r["compute"] - ready,  # copy done, waiting for a reduce slot to compute
            "ready": ready,
        })
    assert len(rows) == len(small)
    summary = run["summary"]
    if summary["finished_jobs"] != summary["jobs"]:
        raise RuntimeError(f"{events_path}: {summary['unfinished_jobs']} jobs never finished")
    bin_mean = run["bins"]["3-20"]["mean_response_time"]  # every small job is in the 3-20 bin
    if abs(statistics.fmean(r["response"] for r in rows) - bin_mean) > 0.01:
        raise RuntimeError(f"{events_path}: small-job mean from events disagrees with metrics ({bin_mean})")
    long_reduces = [r for r in reduces.values() if r["job"] == "long"]
    per_node: dict[str, int] = {}
    for r in long_reduces:
        per_node[r["node"]] = per_node.get(r["node"], 0) + 1
    return {
        "summary": run["summary"], "small": rows,
        "small_mean": statistics.fmean(r["response"] for r in rows),
        "small_p95": percentile([r["response"] for r in rows], 95),
        "long": finish["long"] - submit["long"], "long_last_map": last_map["long"],
        "long_reduce_start": min(r["start"] for r in long_reduces),
        "long_copy_slot_s": sum(r["compute"] - r["start"] for r in long_reduces),
        "long_nodes": len(per_node), "long_per_node": max(per_node.values()),
        "long_first_compute_end": min(r["finish"] for r in long_reduces),
        "reduces": reduces,
    }


def percentile(values: list[float], q: float) -> float:
    """Linear interpolation, numpy's default (as metrics.json)."""
    v = sorted(values)
    k = (len(v) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def occupancy(reduces: dict[str, dict[str, Any]]) -> tuple[list[float], dict[str, list[int]]]:
    """Step series of reduces running, by job class and phase."""
    changes: list[tuple[float, str, int]] = []
    for r in reduces.values():
        who = "long" if r["job"] == "long" else "small"
        changes += [(r["start"], f"{who} copying", 1), (r["compute"], f"{who} copying", -1),
                    (r["compute"], f"{who} computing", 1), (r["finish"], f"{who} computing", -1)]
    changes.sort(key=lambda c: (c[0], c[2]))
    keys = ("long copying", "long computing", "small copying", "small computing")
    count = dict.fromkeys(keys, 0)
    times: list[float] = [0.0]
    series: dict[str, list[int]] = {k: [0] for k in keys}
    for t, key, d in changes:
        count[key] += d
        times.append(t)
        for k in keys:
            series[k].append(count[k])
    return times, series


def full_hoard(res: dict[str, Any], slots: int) -> float:
    """Seconds during which the long job's copying reduces held every reduce slot (the ``slots`` run)."""
    times, series = occupancy(res["reduces"])
    total = 0.0
    for i in range(len(times) - 1):
        if series["long copying"][i] >= slots:
            total += times[i + 1] - times[i]
    return total


# ---------------------------------------------------------------------------- tables
def mean(rows: list[dict[str, Any]], key: str) -> float:
    return statistics.fmean(r[key] for r in rows)


def main_table(results: dict[int, dict[str, Any]]) -> str:
    rows = ["| seed | measure | slots | copy_compute_split | speed-up |", "|---|---|---|---|---|"]
    for seed, res in results.items():
        s, c = res["slots"], res["split"]
        for name, key in (("small jobs: mean response (s)", "small_mean"),
                          ("small jobs: p95 response (s)", "small_p95"), ("long job: response (s)", "long")):
            rows.append(f"| {seed} | {name} | {s[key]:.1f} | {c[key]:.1f} | {s[key] / c[key]:.2f}× |")
        rows.append(f"| {seed} | makespan (s) | {s['summary']['makespan']:.1f} | {c['summary']['makespan']:.1f} | |")
    return "\n".join(rows)


def mechanism_table(results: dict[int, dict[str, Any]], slots: int) -> str:
    rows = ["| seed | config | small: last map done after (s) | small: reduce launched after maps done, "
            "mean / max (s) | small: copy done, waiting for a reduce slot, mean / max (s) "
            "| long job: first reduce, last map (s) | long reduces' slot-seconds in copy phase "
            "| all reduce slots held by long copying reduces (s) |",
            "|---|---|---|---|---|---|---|---|"]
    for seed, res in results.items():
        for label, r in res.items():
            sm = r["small"]
            hoard = f"{full_hoard(r, slots):.0f}" if label == "slots" else "— (copies hold no reduce slot)"
            rows.append(
                f"| {seed} | {label} | {mean(sm, 'maps_done'):.1f} | {mean(sm, 'launch_wait'):.1f} / "
                f"{max(x['launch_wait'] for x in sm):.1f} | {mean(sm, 'compute_wait'):.1f} / "
                f"{max(x['compute_wait'] for x in sm):.1f} | {r['long_reduce_start']:.0f}, {r['long_last_map']:.0f} "
                f"| {r['long_copy_slot_s']:.0f} | {hoard} |")
    return "\n".join(rows)


def sweep_table(sweep: dict[int, dict[int, dict[str, Any]]], cl: dict[str, int]) -> str:
    head = ("| long job's reduces | "
            + " | ".join(f"seed {s}: small mean, slots → split (s) | seed {s}: speed-up" for s in SEEDS)
            + f" | long job, slots → split (s, seed {SEEDS[0]}) |")
    rows = [head, "|---|" + "---|---|" * len(SEEDS) + "---|"]
    for n, by_seed in sweep.items():
        note = []
        if n < cl["reduce"]:
            note.append("< reduce slots")
        elif n == cl["reduce"]:
            note.append("= reduce slots")
        if n >= cl["copy"]:
            note.append("≥ copy slots")
        label = f"{n}" + (f" ({', '.join(note)})" if note else "")
        if n == LONG_REDUCES:
            label += " **documented mix**"
        cells = []
        for s in SEEDS:
            a, b = by_seed[s]["slots"]["small_mean"], by_seed[s]["split"]["small_mean"]
            cells.append(f"{a:.1f} → {b:.1f} | {a / b:.2f}×")
        lng = by_seed[SEEDS[0]]
        rows.append(f"| {label} | " + " | ".join(cells)
                    + f" | {lng['slots']['long']:.0f} → {lng['split']['long']:.0f} |")
    return "\n".join(rows)


# ---------------------------------------------------------------------------- plot
def plot(results: dict[int, dict[str, Any]], sweep: dict[int, dict[int, dict[str, Any]]], cl: dict[str, int]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(13, 8.5))
    colors = {"slots": "tab:orange", "split": "tab:blue"}
    ax = axes[0][0]
    for i, seed in enumerate(SEEDS):
        for label, r in results[seed].items():
            ax.scatter([x["submit"] for x in r["small"]], [x["response"] for x in r["small"]], s=14,
                       marker="o" if i == 0 else "x", color=colors[label], alpha=0.8,
                       label=f"{label}, seed {seed}")
    r0 = results[SEEDS[0]]["slots"]
    ax.axvline(r0["long_last_map"], color="grey", linewidth=0.8)
    ax.text(r0["long_last_map"] + 5, 0.02, "long job's\nlast map\n(seed 0)", fontsize=7, color="grey",
            transform=ax.get_xaxis_transform())
    ax.set_yscale("log")
    ax.set_xlabel("small job's submit time (s)")
    ax.set_ylabel("response time (s, log)")
    ax.set_title("small jobs' response time")
    ax.legend(fontsize=7)
    stack_colors = ["tab:red", "darkred", "tab:cyan", "tab:green"]
    for ax, label in ((axes[0][1], "slots"), (axes[1][0], "split")):
        times, series = occupancy(results[SEEDS[0]][label]["reduces"])
        ax.stackplot(times, *series.values(), labels=list(series), colors=stack_colors, step="post", alpha=0.85)
        ax.axhline(cl["reduce"], color="black", linestyle="--", linewidth=0.9)
        ax.text(5, cl["reduce"] + 0.6, f"{cl['reduce']} reduce slots", fontsize=7)
        if label == "split":
            ax.axhline(cl["reduce"] + cl["copy"], color="black", linestyle=":", linewidth=0.9)
            ax.text(5, cl["reduce"] + cl["copy"] + 0.6, f"+ {cl['copy']} copy slots", fontsize=7)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("running reduces")
        name = 'load_manager = "slots"' if label == "slots" else 'load_manager = "copy_compute_split"'
        ax.set_title(f"running reduces by job and phase, {name} (seed {SEEDS[0]})", fontsize=9)
        ax.set_ylim(0, cl["reduce"] + cl["copy"] + 5)
        ax.legend(fontsize=7, loc="upper right")
    ax = axes[1][1]
    ns = list(sweep)
    for i, seed in enumerate(SEEDS):
        for label in RUNS:
            ax.plot(ns, [sweep[n][seed][label]["small_mean"] for n in ns], "-" if i == 0 else "--", marker="o",
                    color=colors[label], label=f"{label}, seed {seed}")
    ax.axvline(cl["reduce"], color="grey", linewidth=0.8)
    ax.axvline(cl["copy"], color="grey", linewidth=0.8)
    ax.text(cl["reduce"] + 0.5, 0.3, "= reduce slots", fontsize=7, color="grey", transform=ax.get_xaxis_transform())
    ax.text(cl["copy"] + 0.5, 0.3, "= copy slots", fontsize=7, color="grey", transform=ax.get_xaxis_transform())
    ax.set_yscale("log")
    ax.set_xlabel("long job's reduce count")
    ax.set_ylabel("small jobs' mean response (s, log)")
    ax.set_title("sensitivity to the long job's reduce count")
    ax.legend(fontsize=7)
    for a in axes.flat:
        a.grid(alpha=0.3)
    fig.suptitle(f"One long job ({LONG_MAPS} maps, {LONG_REDUCES} reduces) + {SMALL_JOBS} small jobs on "
                 f"{cl['nodes']} nodes: fair sharing, slots vs copy-compute split")
    fig.tight_layout()
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(PLOT, dpi=100)


# ---------------------------------------------------------------------------- doc
def section(results: dict[int, dict[str, Any]], sweep: dict[int, dict[int, dict[str, Any]]], cl: dict[str, int]) -> str:
    ups = {seed: r["slots"]["small_mean"] / r["split"]["small_mean"] for seed, r in results.items()}
    p95_ups = {seed: r["slots"]["small_p95"] / r["split"]["small_p95"] for seed, r in results.items()}
    met = all(u >= 2 for u in ups.values())
    s0, c0 = results[SEEDS[0]]["slots"], results[SEEDS[0]]["split"]
    hoard0 = full_hoard(s0, cl["reduce"])
    early = [x for x in c0["small"] if x["compute_wait"] > 1.0 and x["ready"] < c0["long_last_map"]]
    late = [x for x in c0["small"] if x["compute_wait"] > 1.0 and x["ready"] >= c0["long_last_map"]]
    free_nodes = cl["nodes"] - c0["long_nodes"]
    low = [n for n in sweep if n < cl["reduce"]]
    high = [n for n in sweep if n >= cl["copy"]]

    def sweep_ups(ns: list[int]) -> str:
        return ", ".join(f"{sweep[n][s]['slots']['small_mean'] / sweep[n][s]['split']['small_mean']:.2f}×"
                         for n in ns for s in SEEDS)

    parts = [
        "*Generated by `experiments/copy_compute.py`; do not edit by hand.*",
        "",
        "**The mix** (generated by the script from the seed; written to "
        "`experiments/out/copy_compute/seed*/workload.json`):",
        "",
        f"* **Cluster:** {cl['nodes']} nodes (2 racks × 10), 2 map + 1 reduce slots each: {cl['map']} map slots, "
        f"{cl['reduce']} reduce slots; with the split also {cl['copy']} copy slots (the default, 2 per reduce slot). "
        "3-s heartbeats, replication 3.",
        f"* **Long job** `long`, submitted at t = 0: {LONG_MAPS} maps of {LONG_MAP_S:g} s and {LONG_REDUCES} reduces "
        f"of {LONG_REDUCE_S:g} s ({LONG_COPY_S:g} s of copy, but a copy cannot end before the job's last map) — "
        f"{LONG_REDUCES / cl['reduce']:g} × the cluster's reduce slots, fewer than its copy slots. Its reduces are "
        "demanded at 5 % slow start, i.e. after its first wave of maps.",
        f"* **Small jobs:** {SMALL_JOBS} jobs, Poisson arrivals from t = {SMALL_FIRST:g} s with a mean gap of "
        f"{SMALL_GAP:g} s (so they arrive while the long job's maps run), each with {SMALL_MAPS} maps of "
        f"{SMALL_MAP_S:g} s and 1 reduce of {SMALL_REDUCE_S:g} s (a third of it copy), every task ±{JITTER:.0%} "
        "at random.",
        "* **Configs** (`experiments/configs/`), identical but for the load manager: `share_policy = \"fair\"`, "
        "a pool per job, no preemption, `assign_multiple = true`, `[simulation] phase_events = true` (to see when "
        "each reduce starts computing). **slots** (`copy_compute_slots.toml`): `load_manager = \"slots\"`, a reduce "
        "holds a reduce slot from launch to finish. **split** (`copy_compute_split.toml`): `load_manager = "
        "\"copy_compute_split\"`.",
        "",
        f"Seeds {' and '.join(map(str, SEEDS))} (the seed draws the small jobs' arrivals and task lengths, the "
        "heartbeat phases and block placement).",
        "",
        "![small-job response times, running reduces by phase under both load managers, and the reduce-count "
        "sweep](experiments/copy_compute.png)",
        "",
        "### Response times",
        "",
        main_table(results),
        "",
        "Acceptance (small jobs at least 2× faster on the documented mix): mean speed-up "
        + ", ".join(f"{u:.2f}× (seed {s})" for s, u in ups.items())
        + "; p95 speed-up " + ", ".join(f"{u:.2f}× (seed {s})" for s, u in p95_ups.items())
        + (" — **met**." if met else " — **not met**."),
        "",
        "### Where the small jobs' time goes",
        "",
        mechanism_table(results, cl["reduce"]),
        "",
        "From each run's events: a small job's maps finish soon after it arrives under both configs (fair "
        "sharing gives a 4-map job its maps at once); what differs is the reduce. \"Launched after maps done\": "
        "how long its reduce waited for a (copy) slot after its last map; \"waiting for a reduce slot\": with "
        "the split, how long its copied reduce waited for a compute slot on its node.",
        "",
        "### Sensitivity to the long job's reduce count",
        "",
        sweep_table(sweep, cl),
        "",
        "### Interpretation",
        "",
        f"* **The hoarding, under `slots`.** The long job's reduces are launched from t ≈ "
        f"{s0['long_reduce_start']:.0f} s (slow start) and each then holds a reduce slot until the job's last map "
        f"ends at t ≈ {s0['long_last_map']:.0f} s and its compute is done: in seed {SEEDS[0]} the long job's "
        f"copying reduces held **all {cl['reduce']} reduce slots for {hoard0:.0f} s**, {s0['long_copy_slot_s']:.0f} "
        "slot-seconds of copying (mostly waiting for maps). A small job arriving in that window finishes its maps "
        f"in about {mean(s0['small'], 'maps_done'):.0f} s and then waits on average "
        f"{mean(s0['small'], 'launch_wait'):.0f} s (up to {max(x['launch_wait'] for x in s0['small']):.0f} s) for "
        "a reduce slot; its response time is that wait.",
        f"* **With the split** the long job's {LONG_REDUCES} reduces copy in {LONG_REDUCES} of the {cl['copy']} "
        f"copy slots, leaving {cl['copy'] - LONG_REDUCES} copy slots and every reduce slot to the small jobs while "
        "the long job's maps run. A small job's reduce is launched at its slow start, before its own maps are "
        f"done (mean wait after its maps: {mean(c0['small'], 'launch_wait'):.1f} s), and computes as soon as "
        "they are done and its node's reduce slot is free. In seed "
        f"{SEEDS[0]} the free copy slots are on the {free_nodes} nodes without a long reduce ({2 * free_nodes} copy "
        f"slots, {free_nodes} reduce slots), so two small reduces copying on one node compute one after the other: "
        f"{len(early)} small jobs waited more than 1 s for that during the long job's map phase (mean "
        f"{statistics.fmean(x['compute_wait'] for x in early) if early else 0:.0f} s). The larger cost is at the "
        "end of the long job's map phase: its reduces then all want to compute, take the reduce slots of the "
        f"{c0['long_nodes']} nodes they copied on for {LONG_REDUCE_S - LONG_COPY_S:g} s each, twice (below), and "
        f"the small reduces that copied on those nodes wait: {len(late)} small jobs, up to "
        f"{max((x['compute_wait'] for x in late), default=0):.0f} s. That is the p95 tail of the split column.",
        f"* **The long job** is not slowed down on this mix: {s0['long']:.0f} s → {c0['long']:.0f} s in seed "
        f"{SEEDS[0]}. Under `slots` only {cl['reduce']} of its {LONG_REDUCES} reduces can copy during its map phase "
        "and the rest start copying after the first wave finishes; with the split all of them copy while the "
        f"maps run. But they are packed: the split put them {c0['long_per_node']} per node on {c0['long_nodes']} "
        f"of the {cl['nodes']} nodes (a node fills both its copy slots as soon as it heartbeats), and a reduce "
        "computes on the node where it copied, so the long job always needs two compute waves "
        f"(last map at {c0['long_last_map']:.0f} s, end at {c0['long']:.0f} s) even when it has no more reduces "
        f"than reduce slots — the sweep's long-job column: {sweep[low_or(SWEEP)][SEEDS[0]]['slots']['long']:.0f} s "
        f"→ {sweep[low_or(SWEEP)][SEEDS[0]]['split']['long']:.0f} s with {low_or(SWEEP)} reduces, "
        f"{sweep[low_or(SWEEP)][SEEDS[0]]['split']['long_nodes']} nodes used.",
        f"* **Against the paper's 2–10×:** the mean speed-up here is {', '.join(f'{u:.1f}×' for u in ups.values())} "
        f"({'within' if all(2 <= u <= 10 for u in ups.values()) else 'about'} the paper's range). Its size is "
        "set by the mix, not measured from Facebook: it is roughly (the long job's map phase left "
        "when a small job arrives) ÷ (a small job's own length), so a longer map phase or shorter "
        "small jobs would give more, and the simulator's copy phase is only a duration (no network contention "
        "between copies, which could slow the concurrent copies the split admits).",
        "* **Where the split does not help (the sweep).** "
        + (f"With fewer long reduces than reduce slots ({', '.join(map(str, low))}), there is no hoarding to "
           f"remove: speed-ups {sweep_ups(low)} (seed by seed; below 1× the split is slower). A small reduce "
           "admitted to a copy slot is pinned to that node and waits there if its one reduce slot is computing "
           "(a long reduce for 80 s, or another small reduce), where `slots` would have launched it only on a "
           "node with a free slot. "
           if low else "")
        + (f"With as many long reduces as copy slots or more ({', '.join(map(str, high))}), the long job's "
           f"copying reduces fill the copy slots instead of the reduce slots and small jobs are as stuck as under "
           f"`slots` (speed-ups {sweep_ups(high)}): `copy_compute_split` admits copies by a per-node count only, "
           "and under fair sharing without preemption nothing stops one job from taking every copy slot it "
           "can. A per-job cap on copying reduces (e.g. its fair share of the copy slots) or preempting copying "
           "reduces (cheap: they have only fetched data) would be needed for such jobs; the plugin has neither. "
           if high else "")
        + "So the documented mix, with the long job's reduces between the reduce-slot and copy-slot counts, is "
        "where the split is meant to work; the acceptance number holds for that mix, not in general.",
        "* **Reduce utilisation:** with the split a copying reduce holds a copy slot, not a reduce slot, so "
        "`reduce_utilization` in `metrics.json` counts only compute-phase seconds there (copy seconds are in "
        f"`reduce_copy_seconds`): seed {SEEDS[0]}: {s0['summary']['reduce_utilization']:.0%} under `slots` "
        f"(copies included, they hold the slot) and {c0['summary']['reduce_utilization']:.0%} under the split.",
        "",
        "Reproduce with `.venv/bin/python experiments/copy_compute.py`; the runs' `report.html` are in "
        "`experiments/out/copy_compute/seed*/`, the sweep's in `experiments/out/copy_compute/sweep/`. By hand: "
        "`corescheduler compare --config experiments/configs/copy_compute_slots.toml --config "
        "experiments/configs/copy_compute_split.toml --workload experiments/out/copy_compute/seed0/workload.json "
        "--seed 0 --out cmp`.",
    ]
    return "\n".join(parts)


def low_or(ns: tuple[int, ...]) -> int:
    """The smallest reduce count of the sweep (for the packing example)."""
    return min(ns)


def write_section(text: str) -> None:
    replace_section(DOC, HEADING, BEGIN, END, text)


def main() -> int:
    cl = cluster()
    jobs = [(seed, n) for n in SWEEP for seed in SEEDS]
    done = run_all(lambda a: compare(*a), jobs)
    results = {seed: done[(seed, LONG_REDUCES)] for seed in SEEDS}
    sweep = {n: {seed: done[(seed, n)] for seed in SEEDS} for n in SWEEP}
    plot(results, sweep, cl)
    write_section(section(results, sweep, cl))
    print(main_table(results), end="\n\n")
    print(mechanism_table(results, cl["reduce"]), end="\n\n")
    print(sweep_table(sweep, cl))
    print(f"\nwrote {PLOT.relative_to(REPO)} and the {HEADING!r} section of {DOC.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
