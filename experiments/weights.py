"""Experiment: the new-job boost and size-based weights on the Facebook benchmark.

``corescheduler compare`` runs ``builtin:facebook`` under fair sharing with
the weight adjusters ``new_job_booster`` (factor 3 for 300 s) and
``size_based`` (weight x log2(1 + runnable tasks)) off and on, seeds 0 and 1,
on the 100-node cluster of the bundled example.  Weight adjusters set *job*
weights, which divide a pool's share among its jobs; ``builtin:facebook``
gives every job its own pool, where they change nothing (a control run shows
it).  The four compared configs therefore put every job in one fair pool
(``pool_resolver = "rules"`` with a single ``default`` rule).

Run from the repository root::

    .venv/bin/python experiments/weights.py

It prints the tables, writes ``docs/experiments/weights.png`` and replaces the
text between ``<!-- weights:begin -->`` and ``<!-- weights:end -->`` in
``docs/experiments.md`` (adding the section if missing).  Runs are in
``experiments/out/weights/``.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from _shared import replace_section, run_all  # experiments/_shared.py

REPO = Path(__file__).resolve().parent.parent
CONFIGS = REPO / "experiments" / "configs"
OUT = REPO / "experiments" / "out" / "weights"
PLOT = REPO / "docs" / "experiments" / "weights.png"
DOC = REPO / "docs" / "experiments.md"
HEADING = "## New-job boost and size-based weight"
BEGIN, END = "<!-- weights:begin -->", "<!-- weights:end -->"
SEEDS = (0, 1)  # full tables
MORE_SEEDS = tuple(range(2, 6))  # overall mean response only, to see whether the two seeds are typical
#: label -> config file (experiments/configs/NAME.toml); the first four are compared.
RUNS = {
    "fair": "weights_fair",
    "boost": "weights_boost",
    "size": "weights_size",
    "size+boost": "weights_size_boost",
    "pool per job": "fair_greedy",
    "pool per job, size+boost": "weights_perjob_size_boost",
}
MAIN = ("fair", "boost", "size", "size+boost")
REDUCE_BINS = ("3-20", "21-60", "61-150")  # small jobs with reduces


def compare(seed: int) -> dict[str, Any]:
    labels = list(RUNS) if seed in SEEDS else list(MAIN)
    out = OUT / f"seed{seed}"
    cmd = [sys.executable, "-m", "corescheduler", "compare", "--workload", "builtin:facebook",
           "--seed", str(seed), "--out", str(out), "--json"]
    for label in labels:
        cmd += ["--config", str(CONFIGS / f"{RUNS[label]}.toml")]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    runs = json.loads((out / "compare.json").read_text())["runs"]
    result = {label: runs[RUNS[label]] for label in labels}
    if seed in SEEDS:
        for label in MAIN:
            result[label]["reduce_wait"] = reduce_wait(out / RUNS[label])
    return result


def reduce_wait(run_dir: Path) -> dict[str, float]:
    """For jobs of REDUCE_BINS: mean seconds from submission to the last map's end and
    to the first reduce launch; and the submission times of the >1500-map jobs."""
    jobs = json.loads((run_dir / "metrics.json").read_text())["jobs"]
    bins = {j["id"]: j["size_bin"] for j in jobs}
    submit: dict[str, float] = {}
    maps_done: dict[str, float] = {}
    first: dict[str, float] = {}
    with open(run_dir / "events.jsonl") as f:
        for line in f:
            e = json.loads(line)
            job = e.get("job")
            if e["type"] == "job_submit":
                submit[job] = e["time"]
            elif bins[job] not in REDUCE_BINS:
                continue
            elif e["type"] == "task_finish" and e["kind"] == "map":
                maps_done[job] = e["time"]
            elif e["type"] == "task_start" and e["kind"] == "reduce":
                first.setdefault(job, e["time"])
    return {"maps": sum(maps_done[j] - submit[j] for j in first) / len(first),
            "reduce": sum(first[j] - submit[j] for j in first) / len(first),
            "giants": sorted(j["submit"] for j in jobs if j["size_bin"] == ">1500")}


def table(res: dict[str, Any]) -> str:
    rows = ["| bin (maps) | jobs | " + " | ".join(f"{label} (s)" for label in MAIN) + " |",
            "|---|---|" + "---|" * len(MAIN)]
    for b, fb in res["fair"]["bins"].items():
        rows.append(f"| {b} | {fb['jobs']} | "
                    + " | ".join(f"{res[label]['bins'][b]['mean_response_time']:.1f}" for label in MAIN) + " |")
    for key, name in (("mean_response_time", "**all, mean**"), ("p95_response_time", "all, p95"),
                      ("makespan", "makespan")):
        rows.append(f"| {name} | | " + " | ".join(f"{res[label]['summary'][key]:.1f}" for label in MAIN) + " |")
    for key, name in (("maps", "jobs of 3–150 maps: last map done"), ("reduce", "jobs of 3–150 maps: first reduce")):
        rows.append(f"| {name} | | " + " | ".join(f"{res[label]['reduce_wait'][key]:.1f}" for label in MAIN) + " |")
    return "\n".join(rows)


def seed_table(results: dict[int, dict[str, Any]]) -> str:
    rows = ["| seed | " + " | ".join(f"{label} (s)" for label in MAIN) + " |", "|---|" + "---|" * len(MAIN)]
    for seed, res in results.items():
        rows.append(f"| {seed} | " + " | ".join(f"{res[label]['summary']['mean_response_time']:.1f}"
                                                for label in MAIN) + " |")
    rows.append("| **median** | " + " | ".join(f"{median(results, label):.1f}" for label in MAIN) + " |")
    rows.append("| better than fair | | " + " | ".join(f"{wins(results, label)} of {len(results)} seeds"
                                                         for label in MAIN[1:]) + " |")
    return "\n".join(rows)


def median(results: dict[int, dict[str, Any]], label: str) -> float:
    return statistics.median(r[label]["summary"]["mean_response_time"] for r in results.values())


def wins(results: dict[int, dict[str, Any]], label: str) -> int:
    return sum(r[label]["summary"]["mean_response_time"] < r["fair"]["summary"]["mean_response_time"]
               for r in results.values())


def plot(results: dict[int, dict[str, Any]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(SEEDS), figsize=(12, 4.2), sharey=True)
    width = 0.8 / len(MAIN)
    for ax, seed in zip(axes, SEEDS):
        res = results[seed]
        bins = list(res["fair"]["bins"])
        for i, label in enumerate(MAIN):
            ax.bar([x + (i - (len(MAIN) - 1) / 2) * width for x in range(len(bins))],
                   [res[label]["bins"][b]["mean_response_time"] for b in bins], width, label=label)
        ax.set_xticks(range(len(bins)), bins, rotation=30)
        ax.set_yscale("log")
        ax.set_xlabel("job size (maps)")
        ax.set_title(f"seed {seed}")
        ax.grid(alpha=0.3, axis="y")
    axes[0].set_ylabel("mean response time (s)")
    axes[0].legend(fontsize=8)
    fig.suptitle("builtin:facebook in one fair pool: weight adjusters off and on")
    fig.tight_layout()
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(PLOT, dpi=110)


def same_sign(results: dict[int, dict[str, Any]]) -> bool:
    def better(r: dict[str, Any], label: str) -> bool:
        return r[label]["summary"]["mean_response_time"] < r["fair"]["summary"]["mean_response_time"]

    return all(better(r, "boost") == better(r, "size+boost") for r in results.values())


def change(res: dict[str, Any], label: str, key: str = "mean_response_time", b: str | None = None) -> str:
    base = res["fair"]["summary"][key] if b is None else res["fair"]["bins"][b][key]
    new = res[label]["summary"][key] if b is None else res[label]["bins"][b][key]
    return f"{100 * (new / base - 1):+.0f} %"


def section(results: dict[int, dict[str, Any]]) -> str:
    def per_seed(fn: Any) -> str:
        return ", ".join(f"{fn(results[s])} (seed {s})" for s in SEEDS)

    control = all(results[s]["pool per job"]["summary"] == results[s]["pool per job, size+boost"]["summary"]
                  for s in SEEDS)
    small_moves = max(abs(r[label]["bins"][b]["mean_response_time"] / r["fair"]["bins"][b]["mean_response_time"] - 1)
                      for s, r in results.items() if s in SEEDS for label in MAIN for b in ("1", "2"))
    n = len(results)

    def giants(seed: int) -> str:
        return ", ".join(f"{t:.0f}" for t in results[seed]["fair"]["reduce_wait"]["giants"]) + " s"

    parts = [
        "*Generated by `experiments/weights.py`; do not edit by hand.*",
        "",
        "`corescheduler compare` on `builtin:facebook`, seeds " + " and ".join(map(str, SEEDS)) + " in full "
        f"and the overall mean for seeds {MORE_SEEDS[0]}–{MORE_SEEDS[-1]}, fair sharing with greedy locality "
        "(`task_selector = \"locality\"`), no preemption, the bundled example's 100-node cluster (10 racks × "
        "10 nodes, 2 map + 1 reduce slots). Configs in `experiments/configs/`:",
        "",
        "* **fair** (`weights_fair.toml`): no weight adjusters — every job weighs 1.",
        "* **boost** (`weights_boost.toml`): `weight_adjusters = [\"new_job_booster\"]` with its defaults, "
        "weight × 3 for a job's first 300 s.",
        "* **size** (`weights_size.toml`): `[\"size_based\"]`, weight × log2(1 + runnable tasks) per slot "
        "kind (for maps: a 1-map job 1, a 4,800-map job about 12; for reduces: 1 for one reduce, 5.7 for 50).",
        "* **size+boost** (`weights_size_boost.toml`): `[\"size_based\", \"new_job_booster\"]`, Hadoop's "
        "order.",
        "",
        "**One pool.** Weight adjusters change *job* weights, and job weights divide a pool's share among "
        "the pool's jobs; pools are weighed by the allocation file. `builtin:facebook` asks for a pool "
        "per job, where they have nothing to divide: the control run with both adjusters and a pool per "
        "job (`weights_perjob_size_boost.toml`) gives "
        + ("exactly the same run as the plain pool-per-job config (`fair_greedy.toml`)" if control
           else "**a different run** from the plain pool-per-job config (`fair_greedy.toml`) — unexpected")
        + " — mean response time "
        + per_seed(lambda r: f"{r['pool per job']['summary']['mean_response_time']:.1f} s vs "
                   f"{r['pool per job, size+boost']['summary']['mean_response_time']:.1f} s")
        + ". The four configs above therefore place every job in one fair pool (`pool_resolver = \"rules\"`, "
        "`rules = [{name = \"default\"}]`), as Hadoop does for jobs of one user or with a single pool. "
        "Without adjusters that is the same as a pool per job (equal weights either way): the **fair** "
        "column matches the greedy column of the delay-scheduling tables above.",
        "",
        "![mean response time per job-size bin for the four configs, two seeds](experiments/weights.png)",
        "",
    ]
    for seed in SEEDS:
        parts += [f"### Seed {seed}: mean response time per job-size bin", "", table(results[seed]), "",
                  "The last two rows: mean seconds from submission to the last map's end and to the first "
                  "reduce launch, over the jobs of 3–150 maps (all have reduces).", ""]
    parts += [
        "### Mean response time over more seeds", "", seed_table(results), "",
        "### Interpretation",
        "",
        f"* **1- and 2-map jobs do not move** (at most {100 * small_moves:.1f} % between configs): their "
        "demand (1–2 maps, no reduces) is below any share they could get, so they start as soon as a map "
        "slot frees — within a second or so on this cluster — and their response time is their map's "
        "length.",
        "* **Everything else turns on reduce slots.** Jobs of 3–150 maps finish their maps within about a "
        "minute under every config, then wait far longer for their first reduce slot (the last two rows of "
        "the seed tables). The 4,800-map jobs start their 50 reduces each at 5 % slow start, and a reduce "
        "holds its slot through its copy phase until its job's last map ends — for these jobs, most of "
        "their lifetime. So each config's mean response time is mostly a matter of how many reduce slots "
        "it lets the giant jobs take while they wait for their maps, and whom a freed reduce slot goes to.",
        f"* **The new-job boost** beats fair in {wins(results, 'boost')} of {n} seeds (median "
        f"{median(results, 'fair'):.1f} s → {median(results, 'boost'):.1f} s); the two seeds in full: "
        + per_seed(lambda r: change(r, "boost")) + ". It triples a job's weight in both slot kinds for "
        "300 s, so a freed reduce slot goes to the newest jobs. When those are small, the boost does what "
        "it is for: jobs of 3–1,500 maps get reduce slots sooner and finish up to several times faster, "
        "and only the 4,800-map jobs pay (seed 0). But a 4,800-map job is new too: in its first 300 s it claims up to "
        "three times its share of freed reduce slots and then holds them for its whole map phase, long "
        "after the boost ends, and everyone else waits. Which effect wins depends largely on when the giant jobs "
        f"arrive: at {giants(SEEDS[0])} in seed {SEEDS[0]}, at {giants(SEEDS[1])} in seed {SEEDS[1]} — "
        "see the first-reduce row of each seed's table. "
        "The boost is meant to get short jobs through quickly ([new_job_booster](plugins/new_job_booster.md)); "
        "it cannot tell a short job from the first 300 s of a long one, and on this mix what a long job "
        "takes in those 300 s it keeps.",
        f"* **Size-based weight** beats fair in {wins(results, 'size')} of {n} seeds (median "
        f"{median(results, 'size'):.1f} s): it gives jobs with more runnable tasks more slots of each kind, "
        "including the giants' 50 reduces (weight 5.7 against 1 for a one-reduce job), and so more "
        "reduce slots to hold while their maps run. It shifts share toward big jobs by design; lowering "
        "mean response time is not what it is for.",
        f"* **Both** beat fair in {wins(results, 'size+boost')} of {n} seeds (median "
        f"{median(results, 'size+boost'):.1f} s) and "
        + ("move the same way as the boost alone in every seed" if same_sign(results)
           else "do not always move the same way as the boost alone") + ": the ×3 boost, not the size "
        "factor, matters most for who gets the freed reduce slots.",
        "* **What this model cannot show:** a benefit of the boost that does not hinge on reduce slots. "
        "With reduces holding slots while they copy, it is the reduce-slot rule (slow start, hoarding), "
        "not the map weights, that sets response time on `builtin:facebook`; the copy-compute split "
        "(which stops copying reduces from holding a reduce slot) is the plugin aimed at that, and the "
        "boost is worth re-measuring on top of it. The reduce counts and durations of `builtin:facebook` "
        "are our assumptions (docs/workloads.md), so this is a property of the approximated mix, not a "
        "measurement of Facebook's.",
        "",
        "Reproduce with `.venv/bin/python experiments/weights.py`; the runs' `report.html` are in "
        "`experiments/out/weights/seed*/`.",
    ]
    return "\n".join(parts)


def write_section(text: str) -> None:
    replace_section(DOC, HEADING, BEGIN, END, text)


def main() -> int:
    results = run_all(compare, SEEDS + MORE_SEEDS)
    plot(results)
    write_section(section(results))
    for seed in SEEDS:
        print(f"seed {seed}: mean response time per bin\n{table(results[seed])}\n")
    print(f"mean response time over seeds\n{seed_table(results)}\n")
    print(f"wrote {PLOT.relative_to(REPO)} and the {HEADING!r} section of {DOC.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
