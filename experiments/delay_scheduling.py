"""Experiment: delay scheduling on the delay-scheduling paper's Facebook benchmark.

``corescheduler compare`` runs ``builtin:facebook`` (docs/workloads.md) under
fair sharing with greedy locality (``experiments/configs/fair_greedy.toml``,
``task_selector = "locality"``) and with delay scheduling
(``experiments/configs/fair_delay.toml``, ``task_selector = "delay"``, node
delay 5 s, rack delay 10 s), for seeds 0 and 1, on the paper's 100-node
cluster (10 racks x 10 nodes, 2 map + 1 reduce slots each, as the bundled
example).  It reports node and rack locality and mean response time per
job-size bin, checks the issue's acceptance (small-job node locality from
below 20 % to above 75 %, no loss in mean response time) and says what the
model cannot show.

Run from the repository root::

    .venv/bin/python experiments/delay_scheduling.py

It prints the tables, writes ``docs/experiments/delay_scheduling.png`` and
replaces the text between ``<!-- delay:begin -->`` and ``<!-- delay:end -->``
in ``docs/experiments.md`` (adding the section if missing).  Each run's
events, metrics and report.html are in ``experiments/out/delay_scheduling/``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from _shared import replace_section, run_all  # experiments/_shared.py

REPO = Path(__file__).resolve().parent.parent
CONFIGS = REPO / "experiments" / "configs"
OUT = REPO / "experiments" / "out" / "delay_scheduling"
PLOT = REPO / "docs" / "experiments" / "delay_scheduling.png"
DOC = REPO / "docs" / "experiments.md"
HEADING = "## Delay scheduling"
BEGIN, END = "<!-- delay:begin -->", "<!-- delay:end -->"
SEEDS = (0, 1)  # full tables and the plot
MORE_SEEDS = tuple(range(2, 6))  # acceptance summary only, to see whether the two seeds are typical
RUNS = {"greedy": "fair_greedy", "delay": "fair_delay"}  # label -> config name
SMALL_BINS = ("1", "2")  # the "smallest jobs" of the acceptance
OUTLIER = 0.05  # a change in mean response time above this is explained separately
#: assumed (rack-local, off-rack) map slowdowns for the remote-read sensitivity runs: not measured values
SLOWDOWNS = ((1.1, 1.25), (1.25, 1.5), (1.5, 2.0))


def compare(seed: int, slowdown: tuple[float, float] | None = None) -> dict[str, Any]:
    """Greedy vs delay for one seed; with ``slowdown`` = (rack-local, off-rack)
    factors, both configs charge remote input reads (``[simulation]``)."""
    if slowdown is None:
        out = OUT / f"seed{seed}"
        configs = [CONFIGS / f"{name}.toml" for name in RUNS.values()]
    else:
        rack, off = slowdown
        out = OUT / f"remote_{rack:g}_{off:g}" / f"seed{seed}"
        out.mkdir(parents=True, exist_ok=True)
        configs = []
        for name in RUNS.values():
            path = out.parent / f"{name}.toml"
            path.write_text((CONFIGS / f"{name}.toml").read_text() + "\n[simulation]\n"
                            f"rack_local_map_slowdown = {rack}\noff_rack_map_slowdown = {off}\n")
            configs.append(path)
    cmd = [sys.executable, "-m", "corescheduler", "compare", "--workload", "builtin:facebook",
           "--seed", str(seed), "--out", str(out), "--json"]
    for path in configs:
        cmd += ["--config", str(path)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    runs = json.loads((out / "compare.json").read_text())["runs"]
    return {label: runs[name] for label, name in RUNS.items()}


def workload_facts(seed: int) -> dict[str, float]:
    """Offered load and block spread of builtin:facebook on this cluster."""
    from corescheduler.config import Config
    from corescheduler.formats.workloads import load_workload
    from corescheduler.sim.simulator import build_cluster

    config = Config.from_file(CONFIGS / "fair_greedy.toml")
    nodes = {n.name: n.rack for n in build_cluster(config).nodes.values()}
    w = load_workload("builtin:facebook", config=config, seed=seed, nodes=nodes)
    span = max(j.submit for j in w.jobs)
    map_work = sum(t.duration for j in w.jobs for t in j.maps)
    blocks: dict[str, int] = {}
    for j in w.jobs:
        for t in j.maps:
            for n in t.input_nodes:
                blocks[n] = blocks.get(n, 0) + 1
    slots = len(nodes) * config.cluster.map_slots
    return {"span": span, "load": map_work / (slots * span), "slots": slots, "nodes": len(nodes),
            "block_nodes": len(blocks), "min_blocks": min(blocks.values()), "max_blocks": max(blocks.values())}


def pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def table(res: dict[str, Any]) -> str:
    g, d = res["greedy"], res["delay"]
    rows = ["| bin (maps) | jobs | node loc. greedy | node loc. delay | rack loc. greedy | rack loc. delay "
            "| mean resp. greedy (s) | mean resp. delay (s) |",
            "|---|---|---|---|---|---|---|---|"]
    for b, gb in g["bins"].items():
        db = d["bins"][b]
        rows.append(f"| {b} | {gb['jobs']} | {pct(gb['node_locality'])} | {pct(db['node_locality'])} "
                    f"| {pct(gb['rack_locality'])} | {pct(db['rack_locality'])} "
                    f"| {gb['mean_response_time']:.1f} | {db['mean_response_time']:.1f} |")
    gs, ds = g["summary"], d["summary"]
    rows.append(f"| **all** | {gs['jobs']} | {pct(gs['node_locality'])} | {pct(ds['node_locality'])} "
                f"| {pct(gs['rack_locality'])} | {pct(ds['rack_locality'])} "
                f"| {gs['mean_response_time']:.1f} | {ds['mean_response_time']:.1f} |")
    rows.append("")
    rows.append(f"Makespan {gs['makespan']:.0f} s → {ds['makespan']:.0f} s; map-slot utilisation "
                f"{pct(gs['map_utilization'])} → {pct(ds['map_utilization'])}.")
    return "\n".join(rows)


def locality_ok(res: dict[str, Any]) -> bool:
    return all(res["greedy"]["bins"][b]["node_locality"] < 0.20 and res["delay"]["bins"][b]["node_locality"] > 0.75
               for b in SMALL_BINS)


def verdict(results: dict[int, dict[str, Any]]) -> str:
    rows = ["| seed | " + " | ".join(f"bin {b} node loc. greedy → delay" for b in SMALL_BINS)
            + " | mean response greedy → delay (s) | change | locality criterion |",
            "|---|" + "---|" * len(SMALL_BINS) + "---|---|---|"]
    for seed, res in results.items():
        g, d = res["greedy"], res["delay"]
        gm, dm = g["summary"]["mean_response_time"], d["summary"]["mean_response_time"]
        rows.append(f"| {seed} | " + " | ".join(f"{pct(g['bins'][b]['node_locality'])} → "
                                                f"{pct(d['bins'][b]['node_locality'])}" for b in SMALL_BINS)
                    + f" | {gm:.1f} → {dm:.1f} | {100 * (dm / gm - 1):+.1f} % | "
                    + ("met" if locality_ok(res) else "**not met**") + " |")
    n = len(results)
    met = sum(locality_ok(r) for r in results.values())
    no_loss = sum(r["delay"]["summary"]["mean_response_time"] <= r["greedy"]["summary"]["mean_response_time"]
                  for r in results.values())
    rows += ["", f"Small-job node locality from below 20 % to above 75 % (bins {' and '.join(SMALL_BINS)}): met in "
             f"{met} of {n} seeds. No loss in mean response time: {no_loss} of {n} seeds."]
    return "\n".join(rows)


def plot(results: dict[int, dict[str, Any]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.4))
    colors = {"greedy": "tab:orange", "delay": "tab:blue"}
    width = 0.8 / len(SEEDS)
    for i, seed in enumerate(SEEDS):
        res = results[seed]
        style = "-" if i == 0 else "--"
        for label, run in res.items():
            bins = list(run["bins"])
            ax1.plot(bins, [100 * run["bins"][b]["node_locality"] for b in bins], style, marker="o",
                     color=colors[label], label=f"{label}, seed {seed}")
        change = [100 * (res["delay"]["bins"][b]["mean_response_time"] / res["greedy"]["bins"][b]["mean_response_time"]
                         - 1) for b in bins]
        ax2.bar([x + (i - (len(SEEDS) - 1) / 2) * width for x in range(len(bins))], change, width,
                color="tab:blue", alpha=1.0 - 0.45 * i, label=f"seed {seed}")
    ax2.set_xticks(range(len(bins)), bins)
    ax2.axhline(0, color="black", linewidth=0.8)
    ax2.legend(fontsize=8)
    ax1.set_ylabel("node-local maps (%)")
    ax1.set_ylim(0, 105)
    ax2.set_ylabel("mean response time, delay vs greedy (% change)")
    for ax, title in ((ax1, "node locality per job-size bin"), (ax2, "response-time cost of delay per job-size bin")):
        ax.set_xlabel("job size (maps)")
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.tick_params(axis="x", labelrotation=30)
    ax1.legend(fontsize=8)
    fig.suptitle("builtin:facebook, 100 nodes: fair sharing, greedy locality vs delay scheduling (node delay 5 s)")
    fig.tight_layout()
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(PLOT, dpi=110)


def deltas(results: dict[int, dict[str, Any]], bins: Any, relative: bool) -> tuple[float, float]:
    """Range over seeds and ``bins`` of delay's change in mean response time (s, or fraction)."""
    values = []
    for res in results.values():
        for b in bins:
            g, d = res["greedy"]["bins"][b]["mean_response_time"], res["delay"]["bins"][b]["mean_response_time"]
            values.append((d - g) / g if relative else d - g)
    return min(values), max(values)


def remote_table(remote: dict[tuple[float, float], dict[int, dict[str, Any]]]) -> str:
    seeds = sorted(next(iter(remote.values())))
    rows = ["| rack-local × | off-rack × | mean response greedy → delay (s), per seed | delay better in | "
            f"bins {' and '.join(SMALL_BINS)} mean response greedy → delay (s, seed {seeds[0]}) |",
            "|---|---|---|---|---|"]
    for (rack, off), results in remote.items():
        pairs = [(r["greedy"]["summary"]["mean_response_time"], r["delay"]["summary"]["mean_response_time"])
                 for _, r in sorted(results.items())]
        better = sum(d < g for g, d in pairs)
        r0 = results[seeds[0]]
        small = ", ".join(f"{r0['greedy']['bins'][b]['mean_response_time']:.1f} → "
                          f"{r0['delay']['bins'][b]['mean_response_time']:.1f}" for b in SMALL_BINS)
        rows.append(f"| {rack:g} | {off:g} | " + "; ".join(f"{g:.1f} → {d:.1f}" for g, d in pairs)
                    + f" | {better} of {len(pairs)} seeds | {small} |")
    return "\n".join(rows)


def section(results: dict[int, dict[str, Any]], facts: dict[int, dict[str, float]],
            remote: dict[tuple[float, float], dict[int, dict[str, Any]]] | None = None) -> str:
    f0 = facts[SEEDS[0]]
    small_lo, small_hi = deltas(results, SMALL_BINS, relative=False)
    overall = {seed: r["delay"]["summary"]["mean_response_time"] / r["greedy"]["summary"]["mean_response_time"] - 1
               for seed, r in results.items()}
    usual = [o for o in overall.values() if o <= OUTLIER]
    outliers = [seed for seed, o in overall.items() if o > OUTLIER]
    loads = " and ".join(f"{facts[s]['load']:.2f}" for s in SEEDS)
    parts = [
        "*Generated by `experiments/delay_scheduling.py`; do not edit by hand.*",
        "",
        "`corescheduler compare` on `builtin:facebook` ([workloads.md](workloads.md#builtinfacebook): the "
        "paper's 100 jobs in nine size bins, one pool per job, approximate task durations): seeds "
        f"{' and '.join(map(str, SEEDS))} in full, seeds {MORE_SEEDS[0]}–{MORE_SEEDS[-1]} for the acceptance "
        "summary. Both configs: `share_policy = \"fair\"`, no allocation file, no "
        "weight adjusters, no preemption, `assign_multiple = true`, and the paper's 100-node cluster as the "
        "bundled example has it: 10 racks × 10 nodes, 2 map + 1 reduce slots each, replication 3, 3-s "
        "heartbeats.",
        "",
        "* **greedy** (`experiments/configs/fair_greedy.toml`): `task_selector = \"locality\"` — the job "
        "whose turn it is launches its best task for the node (node-local, else rack-local, else any) "
        "at once.",
        "* **delay** (`experiments/configs/fair_delay.toml`): `task_selector = \"delay\"` with "
        "`node_locality_delay = 5` (the issue's value) and `rack_locality_delay = 10` (SPEC's value "
        "and Hadoop's test fixture's; Hadoop's computed default is 4.5 s each here; the rack wait "
        "matters little, since 10 racks of 10 nodes make rack-local slots easy to find once the "
        "node wait expires). Both configs use `load_manager = \"slots\"` (fill each node), as "
        "measured before the defaults became Hadoop's `cap_based`. Heartbeats that can assign "
        "nothing still end a skipped job's waiting credit, as in Hadoop (docs/plugins/delay.md).",
        "",
        f"**Is the cluster busy enough?** Yes. The maps alone offer {loads} times the cluster's "
        f"{f0['slots']} map slots over the submission window (about {f0['span']:.0f} s), so the map slots "
        "are full while jobs arrive, as in the paper's loaded cluster — the situation in which a freed "
        "slot is rarely on a node holding the next job's data. Input blocks are spread HDFS-style over "
        f"all {f0['block_nodes']} of the {f0['nodes']} nodes ({f0['min_blocks']}–{f0['max_blocks']} "
        "block replicas per node with seed 0), so a 1-map job's data is on 3 of 100 nodes and greedy "
        "scheduling should find it node-local only a few percent of the time.",
        "",
        "![node locality and mean response time per job-size bin, greedy vs delay, two seeds]"
        "(experiments/delay_scheduling.png)",
        "",
    ]
    for seed in SEEDS:
        parts += [f"### Seed {seed}", "", table(results[seed]), ""]
    parts += [
        "### Against the acceptance criteria",
        "",
        verdict(results),
        "",
        "### What the model shows, and what it cannot",
        "",
        "* **Locality: the paper's shape.** Without delay, the smallest jobs get node-local maps only a "
        "few percent of the time (about 3 of 100 nodes hold a block; the freed slot is nearly random); "
        "with a 5-s node delay nearly all their maps are node-local, because on a full cluster with "
        "10–20-s maps one of 200 slots frees every fraction of a second and one of the three replica "
        "nodes comes up within the wait. The bigger a job, the more nodes hold some of its blocks, so "
        "greedy locality already does better for it, and delay's gain shrinks with size.",
        "* **Response time: no gain, a small cost.** The simulator runs a map for its `duration` "
        "wherever it is placed — it has no cost for reading input over the network. The paper's "
        "response-time and throughput gains (\"up to 2x\" throughput in its abstract) come from "
        "non-local maps of IO-heavy jobs running slower; that cannot appear here. What remains is the "
        f"price of waiting: the 1- and 2-map jobs' mean response grows by {small_lo:+.1f} to {small_hi:+.1f} s "
        "(the skipped heartbeats before a slot on a replica node comes up). Overall the mean response time "
        + (f"changes by {100 * min(usual):+.1f} to {100 * max(usual):+.1f} % in {len(usual)} of "
           f"{len(overall)} seeds" if usual else "never changes by less than 5 %")
        + (f" and by {', '.join(f'{100 * overall[s]:+.1f} % (seed {s})' for s in outliers)} in the rest (next "
           "point)" if outliers else "")
        + ". So \"no loss in mean response time\" is not met with the default model: there is a small, "
        "consistent loss. The simulator can charge remote reads (`[simulation] rack_local_map_slowdown`, "
        "`off_rack_map_slowdown`, default 1); the next section shows what that changes.",
        "* **Jobs with reduces: response time is set by reduce slots, and it is fragile.** Many jobs of "
        "3–150 maps finish their maps within a minute but then wait minutes for a reduce slot: the "
        "4,800-map jobs start their 50 reduces each at 5 % slow start, and those reduces hold most of the "
        "100 reduce slots through their copy phase until the job's last map ends (the reduce-slot "
        "hoarding that the copy-compute split addresses). Delay scheduling does not touch this, so those "
        "bins usually barely move. But the hoarding makes the runs chaotic: a shift of a few seconds in when maps "
        "end decides whether a freed reduce slot goes to a small job or to a 4,800-map job, which then "
        "keeps it for many minutes."
        + (" That is what happened in seed 4: with delay, a 100-map job's reduces ended some seconds "
           "earlier, before the next small jobs had finished their maps, so the freed reduce slots went to "
           "a 4,800-map job, and the four jobs of 10 and 50 maps submitted in the next two minutes got no "
           "reduce slot until t ≈ 2,320 s (their responses went from 130–280 s to 770–890 s)." if 4 in outliers else "")
        + " Single-seed differences in the bins with reduces are therefore not evidence for or against "
        "delay scheduling.",
        "",
        "Reproduce with `.venv/bin/python experiments/delay_scheduling.py`; the runs' `report.html` are "
        "in `experiments/out/delay_scheduling/seed*/`.",
    ]
    if remote:
        worse = [f"seed {seed} at {rack:g}/{off:g}"
                 for (rack, off), rs in remote.items() for seed, r in sorted(rs.items())
                 if r["delay"]["summary"]["mean_response_time"] >= r["greedy"]["summary"]["mean_response_time"]]
        parts += [
            "",
            "### Sensitivity: charging remote reads",
            "",
            "The same comparison with a map launched rack-local or off-rack running for its duration times "
            "a factor (both configs; `[simulation] rack_local_map_slowdown`, `off_rack_map_slowdown`). The "
            "factors are **assumptions, not measurements**: the paper reports the gains, not a per-task "
            "remote-read cost for this benchmark, and the cost depends on a job's IO share and the network. "
            f"Seeds {', '.join(map(str, sorted(next(iter(remote.values())))))}.",
            "",
            remote_table(remote),
            "",
            "Greedy runs most small jobs' maps off their data and pays the factor on them; delay pays a few "
            "seconds of waiting instead. So once a remote read costs more than that wait, delay scheduling "
            "comes out ahead on mean response time as well as locality; with the default model (factor 1) "
            "it cannot."
            + (" Exceptions: " + ", ".join(worse) + " (not examined run by run; seed 4 is the seed whose "
               "reduce-slot hoarding is explained above, the likely cause)." if worse else "")
            + " Runs in `experiments/out/delay_scheduling/remote_*/`.",
        ]
    return "\n".join(parts)


def write_section(text: str) -> None:
    replace_section(DOC, HEADING, BEGIN, END, text)


def main() -> int:
    results = run_all(compare, SEEDS + MORE_SEEDS)
    cases = [(seed, f) for f in SLOWDOWNS for seed in SEEDS + MORE_SEEDS]
    done = run_all(lambda case: compare(case[0], case[1]), cases)
    remote = {f: {seed: done[(seed, f)] for seed in SEEDS + MORE_SEEDS} for f in SLOWDOWNS}
    facts = {seed: workload_facts(seed) for seed in SEEDS}
    plot(results)
    text = section(results, facts, remote)
    write_section(text)
    for seed in SEEDS:
        print(f"seed {seed}\n{table(results[seed])}\n")
    print(verdict(results))
    print(remote_table(remote))
    print(f"\nwrote {PLOT.relative_to(REPO)} and the {HEADING!r} section of {DOC.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
