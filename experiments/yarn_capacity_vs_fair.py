"""The same SWIM day under YARN's fair scheduler and under the Capacity Scheduler.

What an operator pays, or gains, by switching a YARN cluster from the fair
scheduler to the Capacity Scheduler with its queues sized to the same shares.

**Workload.**  The FB-2009 SWIM day (5,894 jobs, 24 hours), tasks derived
from its bytes with the loader's defaults, every container 1024 MB / 1 vcore
(`[scheduler] task_resources`).  The trace has no users or queues: the
loader draws each job's user Zipf-like from 50 users and puts user *k* in
``pool{k mod 3}`` (``[simulation] pools = 3``), so the three queues are three
tenants with different loads and similar mixes of job sizes.

**Cluster.**  16 nodes of 8 GB / 8 vcores (128 containers): the day's work
averages 43 % of it, with hours of 1.7–2.1 times its size (hours 4 and 7), so
queues compete for hours at a time and lend to each other the rest of the day.

**Configurations** (``experiments/configs/ycap_*``; shares 40 : 40 : 20 everywhere):

* ``fs`` — the fair scheduler: weights 40 / 40 / 20, ``fair`` inside each
  queue, fair-share preemption (threshold 0.5 after 15 s, checked every 3 s);
* ``cs-fifo`` — the Capacity Scheduler: capacities 40 / 40 / 20,
  ``maximum-capacity`` 100, Hadoop's default ``fifo`` ordering in each leaf;
* ``cs-fair`` — the same with ``ordering-policy = fair``;
* ``cs-ulf1`` — ``cs-fair`` with Hadoop's default ``user-limit-factor`` (1);
* ``cs-cap`` — ``cs-fair`` with ``maximum-capacity`` 60 / 60 / 40;
* ``cs-hard`` — ``cs-fair`` with ``maximum-capacity`` = capacity (no elasticity).

Every Capacity Scheduler config but ``cs-ulf1`` sets ``user-limit-factor`` so
that one user may use the queue's maximum (2.5, 2.5, 5); all run the
``ProportionalCapacityPreemptionPolicy`` with Hadoop's defaults.

Run from the repository root::

    .venv/bin/python experiments/yarn_capacity_vs_fair.py            # the full day, about 5 min on 2 quiet cores
    .venv/bin/python experiments/yarn_capacity_vs_fair.py --hours 6  # the first 6 hours only

It prints the tables, writes ``docs/experiments/yarn_capacity_vs_fair.png`` and
the section between ``<!-- yarn-capacity:begin -->`` and
``<!-- yarn-capacity:end -->`` of ``docs/experiments.md`` (only for the full
day; ``--no-doc`` never), and leaves each run's ``metrics.json`` and
``report.html`` in ``experiments/out/yarn_capacity_vs_fair/<case>/``.  The
trace is read from ``../shared/workloads/swim`` or ``$CORESCHEDULER_SWIM``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tomllib
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import attrs

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "experiments"))

from _shared import replace_section  # noqa: E402

CONFIGS = REPO / "experiments" / "configs"
OUT = REPO / "experiments" / "out" / "yarn_capacity_vs_fair"
PLOT = REPO / "docs" / "experiments" / "yarn_capacity_vs_fair.png"
DOC = REPO / "docs" / "experiments.md"
SWIM = (Path(os.environ["CORESCHEDULER_SWIM"]) if os.environ.get("CORESCHEDULER_SWIM")
        else REPO.parent / "shared" / "workloads" / "swim") / "FB-2009_samples_24_times_1hr_0.tsv"
SEED = 0
DAY_HOURS = 24.0

#: case -> (config file, label for the tables)
CASES: dict[str, tuple[str, str]] = {
    "fs": ("ycap_fs.toml", "FS"),
    "cs-fifo": ("ycap_cs_fifo.toml", "CS fifo"),
    "cs-fair": ("ycap_cs_fair.toml", "CS fair"),
    "cs-ulf1": ("ycap_cs_ulf1.toml", "CS fair, user-limit-factor 1"),
    "cs-cap": ("ycap_cs_cap.toml", "CS fair, max 60/60/40"),
    "cs-hard": ("ycap_cs_hard.toml", "CS fair, max = capacity"),
}
QUEUES = ("root.pool0", "root.pool1", "root.pool2")
#: job-size bins by map count: (label, smallest, largest)
BINS: tuple[tuple[str, int, float], ...] = (
    ("1–2 maps", 1, 2), ("3–20", 3, 20), ("21–150", 21, 150), ("151–1500", 151, 1500), (">1500", 1501, float("inf")))
#: the busiest stretch of the FB-2009 day (hours 4 to 9), for the busy-period utilisation
BUSY = (4 * 3600.0, 9 * 3600.0)


def size_bin(maps: int) -> str:
    """The label of the bin of a job of ``maps`` maps."""
    for label, low, high in BINS:
        if low <= maps <= high:
            return label
    return BINS[0][0]  # a job without maps (none in SWIM traces) counts with the smallest


def run_case(case: str, hours: float = DAY_HOURS, out: Path = OUT, swim: Path = SWIM) -> dict[str, Any]:
    """Simulate one case on the jobs submitted in the trace's first ``hours``.

    Runs in a worker process; returns the measures the tables read (per job:
    queue, maps, response time; per queue: resource-seconds and containers
    preempted from it) and leaves ``metrics.json`` and ``report.html`` in
    ``out/<case>/`` (the events are read, then deleted: 70 MB a day)."""
    from corescheduler.config import Config
    from corescheduler.formats.workloads import load_workload
    from corescheduler.sim.report import write_report
    from corescheduler.sim.simulator import Simulation

    path = CONFIGS / CASES[case][0]
    config = Config.from_dict(tomllib.loads(path.read_text()), source=str(path))
    workload = load_workload(swim, config=config, seed=SEED)
    if hours < DAY_HOURS:
        workload = attrs.evolve(workload, jobs=[j for j in workload.jobs if j.submit < hours * 3600.0])
    folder = out / case
    result = Simulation(config, workload, SEED, out_dir=folder).run()
    metrics = result.metrics
    write_report(folder / "report.html", [(case, metrics)], title=f"yarn capacity vs fair: {case}")
    job_queue = {j["id"]: j["pool"] for j in metrics["jobs"]}
    preempted: Counter[str] = Counter()
    with open(folder / "events.jsonl", encoding="utf-8") as events:
        for line in events:
            if '"task_preempt"' in line:
                event = json.loads(line)
                if event["type"] == "task_preempt":
                    preempted[job_queue[event["job"]]] += 1
    (folder / "events.jsonl").unlink()
    summary = metrics["summary"]
    cluster_memory = summary["cluster_resources"]["memory"]
    timeline = metrics["timeline"]
    return {
        "jobs": [{"queue": j["pool"], "maps": j["maps"], "response": j["response_time"]} for j in metrics["jobs"]],
        "summary": {k: summary[k] for k in ("makespan", "jobs", "finished_jobs", "unfinished_jobs", "rejected_jobs",
                                            "utilization", "preempted_tasks", "wasted_seconds")},
        "queues": {q: {"memory_seconds": p["resource_seconds"]["memory"], "preempted": preempted.get(q, 0)}
                   for q, p in metrics["pools"].items()},
        "cluster_memory": cluster_memory,
        "timeline": {"time": timeline["time"],
                     "memory": {q: timeline["pools"][q]["memory"] for q in QUEUES if q in timeline["pools"]}},
    }


# --------------------------------------------------------------------------- tables


def busy_utilization(run: dict[str, Any]) -> float | None:
    """Memory in use over the busy hours (:data:`BUSY`), as a share of the cluster:
    the mean of the timeline's samples (one every makespan / 500 s) there."""
    timeline = run["timeline"]
    samples = [sum(series[i] for series in timeline["memory"].values()) / run["cluster_memory"]
               for i, t in enumerate(timeline["time"]) if BUSY[0] <= t < BUSY[1]]
    return statistics.fmean(samples) if samples else None


def peak_share(run: dict[str, Any], queue: str) -> float:
    """The largest share of the cluster's memory the queue held in a timeline sample."""
    return max(run["timeline"]["memory"].get(queue, [0.0]), default=0.0) / run["cluster_memory"]


def _p95(values: list[float]) -> float:
    """The 95th percentile, nearest rank (as the simulator's metrics take it)."""
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


def response_stats(jobs: list[dict[str, Any]]) -> dict[str, float] | None:
    """Count, mean, median and p95 of the finished jobs' response times."""
    times = [j["response"] for j in jobs if j["response"] is not None]
    if not times:
        return None
    return {"n": len(times), "mean": statistics.fmean(times), "median": statistics.median(times), "p95": _p95(times)}


def _cell(stats: dict[str, float] | None) -> str:
    return "–" if stats is None else f"{stats['mean']:,.0f} / {stats['median']:,.0f} / {stats['p95']:,.0f}"


def overview_table(runs: dict[str, dict[str, Any]]) -> str:
    rows = ["| config | jobs finished | makespan (h) | utilisation, day | utilisation, hours 4–9 "
            "| response mean / median / p95 (s) | containers preempted | container-hours lost |",
            "|---|---|---|---|---|---|---|---|"]
    for case, run in runs.items():
        s = run["summary"]
        busy = busy_utilization(run)
        rows.append(f"| {CASES[case][1]} | {s['finished_jobs']:,} of {s['jobs']:,} | {s['makespan'] / 3600:.2f} "
                    f"| {s['utilization']:.1%} | {'–' if busy is None else f'{busy:.1%}'} "
                    f"| {_cell(response_stats(run['jobs']))} | {s['preempted_tasks']:,} "
                    f"| {s['wasted_seconds'] / 3600:,.1f} |")
    return "\n".join(rows)


def queue_table(runs: dict[str, dict[str, Any]]) -> str:
    """Per queue: its share of the memory used, the containers taken from it, its response times."""
    rows = ["| queue (share) | config | jobs | share of the memory used | largest share held "
            "| containers preempted from it | response mean / median / p95 (s) |", "|---|---|---|---|---|---|---|"]
    shares = {"root.pool0": "40 %", "root.pool1": "40 %", "root.pool2": "20 %"}
    for queue in QUEUES:
        for case, run in runs.items():
            jobs = [j for j in run["jobs"] if j["queue"] == queue]
            used = sum(q["memory_seconds"] for q in run["queues"].values())
            mine = run["queues"].get(queue, {"memory_seconds": 0.0, "preempted": 0})
            rows.append(f"| `{queue}` ({shares[queue]}) | {CASES[case][1]} | {len(jobs):,} "
                        f"| {mine['memory_seconds'] / used if used else 0:.1%} | {peak_share(run, queue):.0%} "
                        f"| {mine['preempted']:,} "
                        f"| {_cell(response_stats(jobs))} |")
    return "\n".join(rows)


def bin_table(runs: dict[str, dict[str, Any]], queue: str | None = None) -> str:
    """Mean / median / p95 response per job-size bin (of one queue, or of all), one column per config."""
    cases = list(runs)
    rows = ["| job size | jobs | " + " | ".join(CASES[c][1] for c in cases) + " |",
            "|---|---|" + "---|" * len(cases)]
    for label, _, _ in BINS:
        cells, count = [], 0
        for case in cases:
            jobs = [j for j in runs[case]["jobs"] if size_bin(j["maps"]) == label and queue in (None, j["queue"])]
            count = len(jobs)
            cells.append(_cell(response_stats(jobs)))
        if count:
            rows.append(f"| {label} | {count:,} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def queue_bin_table(runs: dict[str, dict[str, Any]]) -> str:
    """Mean response per queue and size bin, one column per config."""
    cases = list(runs)
    rows = ["| queue | job size | jobs | " + " | ".join(CASES[c][1] for c in cases) + " |",
            "|---|---|---|" + "---|" * len(cases)]
    for queue in QUEUES:
        for label, _, _ in BINS:
            cells, count = [], 0
            for case in cases:
                jobs = [j for j in runs[case]["jobs"] if j["queue"] == queue and size_bin(j["maps"]) == label]
                count = len(jobs)
                stats = response_stats(jobs)
                cells.append("–" if stats is None else f"{stats['mean']:,.0f}")
            if count:
                rows.append(f"| `{queue}` | {label} | {count:,} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


# --------------------------------------------------------------------------- plot


def plot(runs: dict[str, dict[str, Any]], path: Path = PLOT) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_bins, *ax_time) = plt.subplots(1, 3, figsize=(15, 3.8), gridspec_kw={"width_ratios": [1.3, 1, 1]})
    width = 0.8 / len(runs)
    for i, (case, run) in enumerate(runs.items()):
        means = []
        for label, _, _ in BINS:
            stats = response_stats([j for j in run["jobs"] if size_bin(j["maps"]) == label])
            means.append(stats["mean"] if stats else float("nan"))
        ax_bins.bar([b + (i - (len(runs) - 1) / 2) * width for b in range(len(BINS))], means, width,
                    label=CASES[case][1])
    ax_bins.set_yscale("log")
    ax_bins.set_xticks(range(len(BINS)), [label for label, _, _ in BINS])
    ax_bins.set_xlabel("job size (maps)")
    ax_bins.set_ylabel("mean response (s, log)")
    ax_bins.set_title("response time by job size")
    ax_bins.legend(fontsize=7)
    colors = {"root.pool0": "tab:blue", "root.pool1": "tab:orange", "root.pool2": "tab:green"}
    for ax, case in zip(ax_time, ("fs", "cs-hard")):
        run = runs.get(case)
        if run is None:
            continue
        timeline = run["timeline"]
        hours = [t / 3600 for t in timeline["time"]]
        for queue in QUEUES:
            ax.plot(hours, [100 * m / run["cluster_memory"] for m in timeline["memory"].get(queue, [])],
                    color=colors[queue], lw=0.9, label=queue)
        ax.set_title(f"{CASES[case][1]}: memory per queue", fontsize=10)
        ax.set_xlabel("hour of the day")
        ax.set_ylim(0, 105)
    ax_time[0].set_ylabel("% of the cluster")
    ax_time[-1].legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


# --------------------------------------------------------------------------- doc


def findings(runs: dict[str, dict[str, Any]]) -> str:
    """Plain-language findings, their numbers (and the direction of each comparison) taken from the runs."""

    def stat(case: str, key: str = "mean", label: str | None = None, queue: str | None = None) -> float:
        stats = response_stats([j for j in runs[case]["jobs"] if (label is None or size_bin(j["maps"]) == label)
                                and queue in (None, j["queue"])])
        return stats[key] if stats else float("nan")

    def s(case: str, key: str) -> float:
        return runs[case]["summary"][key]

    def taken(case: str, queue: str) -> int:
        return runs[case]["queues"].get(queue, {}).get("preempted", 0)

    def busy(case: str) -> str:
        value = busy_utilization(runs[case])
        return "–" if value is None else f"{value:.0%}"

    small, big, large = BINS[0][0], BINS[-2][0], BINS[-1][0]
    heavy = max(QUEUES, key=lambda q: runs["fs"]["queues"].get(q, {}).get("memory_seconds", 0.0))
    cs_total = s("cs-fair", "preempted_tasks")
    cs_heavy = taken("cs-fair", heavy) / cs_total if cs_total else 0.0
    fs_spread = ", ".join(f"`{q}` {taken('fs', q):,}" for q in QUEUES)
    fifo_big = "faster" if stat("cs-fifo", label=large) < stat("fs", label=large) else "slower"
    utilisation = "; ".join(f"{CASES[c][1]}: {s(c, 'utilization'):.1%}" for c in runs)
    makespans = [s(c, "makespan") / 3600 for c in runs]
    return f"""* **Set `ordering-policy = fair` on the leaves.** The Capacity Scheduler's default leaf order is
  `fifo`: a job waits behind every earlier job of its queue. On this day that takes the mean
  response from {stat('fs'):,.0f} s under the fair scheduler to {stat('cs-fifo'):,.0f} s (p95
  {stat('fs', 'p95'):,.0f} → {stat('cs-fifo', 'p95'):,.0f} s). The 1–2-map jobs of the busiest queue
  (`{heavy}`) wait behind its large jobs: {stat('fs', label=small, queue=heavy):,.0f} →
  {stat('cs-fifo', label=small, queue=heavy):,.0f} s on average. Only the >1500-map jobs come out
  {fifo_big} ({stat('fs', label=large):,.0f} → {stat('cs-fifo', label=large):,.0f} s). With fair ordering
  the Capacity Scheduler is close to the fair scheduler: mean {stat('cs-fair'):,.0f} s against
  {stat('fs'):,.0f} s, 1–2-map jobs {stat('cs-fair', label=small):,.1f} s against {stat('fs', label=small):,.1f} s.
* **Far fewer containers killed, and the borrower pays.** The fair scheduler killed
  {s('fs', 'preempted_tasks'):,.0f} containers ({s('fs', 'wasted_seconds') / 3600:,.1f} container-hours of
  work lost), from every queue ({fs_spread}): it preempts for any app held below half its fair
  share and may take from any app above its own. The Capacity Scheduler with elastic queues
  killed {cs_total:,.0f} ({s('cs-fair', 'wasted_seconds') / 3600:,.1f} h), {cs_heavy:.0%} of them from
  `{heavy}`, the queue that borrows: its monitor takes back only what a queue holds beyond its
  guarantee (past a 10 % dead zone), a fifth of the excess a round. The price is the borrowing
  queue's tail: `{heavy}`'s p95 response is {stat('fs', 'p95', queue=heavy):,.0f} s under the fair
  scheduler and {stat('cs-fair', 'p95', queue=heavy):,.0f} s under the Capacity Scheduler.
* **Capping `maximum-capacity` costs the large jobs, not the small ones.** At 60 / 60 / 40 % the
  151–1500-map jobs take {stat('cs-fair', label=big):,.0f} → {stat('cs-cap', label=big):,.0f} s and the
  >1500-map jobs {stat('cs-fair', label=large):,.0f} → {stat('cs-cap', label=large):,.0f} s; with no
  elasticity (maximum = capacity) {stat('cs-hard', label=big):,.0f} s and {stat('cs-hard', label=large):,.0f} s,
  and the 20 % queue's largest jobs {stat('cs-fair', label=large, queue='root.pool2'):,.0f} →
  {stat('cs-hard', label=large, queue='root.pool2'):,.0f} s. The 1–2-map jobs stay at
  {stat('cs-cap', label=small):,.0f}–{stat('cs-hard', label=small):,.0f} s. Memory in use over the busy
  hours 4–9 falls from {busy('cs-fair')} to {busy('cs-cap')} and {busy('cs-hard')}: a capped queue
  leaves the rest of the cluster idle while its own jobs wait. Caps replace preemption by
  waiting ({s('cs-cap', 'preempted_tasks'):,.0f} and {s('cs-hard', 'preempted_tasks'):,.0f} containers killed).
* **Set `user-limit-factor` too.** With Hadoop's default of 1 a user may not hold more than its
  queue's capacity, however idle the cluster, and every job is one user's: the
  >1500-map jobs take {stat('cs-ulf1', label=large):,.0f} s against {stat('cs-fair', label=large):,.0f} s, the
  151–1500-map jobs {stat('cs-ulf1', label=big):,.0f} s against {stat('cs-fair', label=big):,.0f} s, and the busy
  hours' memory in use is {busy('cs-ulf1')} against {busy('cs-fair')} — about what the 60 / 60 / 40 caps cost.
  The queues still exceed their capacities ({', '.join(f"`{q}` up to {peak_share(runs['cs-ulf1'], q):.0%}"
  for q in QUEUES)}) when several of their users are busy.
* **Do not judge by makespan or the day's utilisation.** They hardly move ({utilisation};
  makespan {min(makespans):.2f}–{max(makespans):.2f} h): the day's work is fixed and the cluster idles between
  bursts. The busy hours and the response times by size show the cost."""


def write_doc(runs: dict[str, dict[str, Any]]) -> None:
    n_jobs = runs["fs"]["summary"]["jobs"]
    text = f"""*Generated by `experiments/yarn_capacity_vs_fair.py`; do not edit by hand.*

The same SWIM day under YARN's fair scheduler and under the [Capacity Scheduler](yarn-capacity.md)
with the queues sized to the same shares, so an operator sees what switching costs.

* **Day:** the FB-2009 SWIM trace ({n_jobs:,} jobs over 24 hours, seed {SEED}), tasks derived from
  its bytes with the loader's defaults ([workloads.md](workloads.md#swim-traces-tsv)), every
  container 1024 MB / 1 vcore.
* **Queues:** the trace has no users or queues; the loader draws each job's user Zipf-like from
  50 users and puts user *k* in `pool{{k mod 3}}` (`[simulation] pools = 3`). So the three queues
  are three tenants with different loads (`pool1` has the most work, `pool0` the most jobs) and
  similar mixes of job sizes. Shares: 40 / 40 / 20 % — the fair scheduler's weights equal the
  Capacity Scheduler's capacities.
* **Cluster:** 2 racks × 8 nodes of 8 GB / 8 vcores (128 containers). The day's work averages
  43 % of it, with hours of 1.7–2.1 times its size (hours 4 and 7), so the queues compete for
  hours at a time and lend to each other the rest of the day.
* **Preemption on in both.** Fair scheduler: fair-share preemption, threshold 0.5 (Hadoop's
  default) after 15 s, checked every 3 s (`preemption_interval = 3`). Capacity Scheduler:
  `preemption = true`, the `ProportionalCapacityPreemptionPolicy` with Hadoop's defaults
  (every 3000 ms, kill 15 s after the mark, 10 % of the cluster a round, natural termination
  0.2, dead zone 0.1).
* **Configs** (`experiments/configs/ycap_*.toml` and their XML files):
  * **FS** (`ycap_fs`): weights 40 / 40 / 20, `fair` inside each queue;
  * **CS fifo** (`ycap_cs_fifo`): capacities 40 / 40 / 20, `maximum-capacity` 100, Hadoop's
    default `fifo` order inside each queue;
  * **CS fair** (`ycap_cs_fair`): the same with `ordering-policy = fair`;
  * **CS fair, user-limit-factor 1** (`ycap_cs_ulf1`): CS fair with Hadoop's default
    `user-limit-factor`;
  * **CS fair, max 60/60/40** (`ycap_cs_cap`): elasticity capped;
  * **CS fair, max = capacity** (`ycap_cs_hard`): no elasticity.

  The other Capacity Scheduler configs set `user-limit-factor` to 2.5 / 2.5 / 5 so that one user
  may use the queue's maximum, as under the fair scheduler; with Hadoop's default of 1 a user
  stops at the queue's capacity.

Response times are mean / median / p95 in seconds over the finished jobs; "containers
preempted" counts containers killed (a Capacity Scheduler container that is marked and ends
by itself within the 15 s is not counted); "container-hours lost" is the work they had done.
"Utilisation, hours 4–9" is the memory in use over the day's busiest stretch and "largest share
held" a queue's peak, both read from the run's timeline (a sample every 173 s).

{overview_table(runs)}

**By queue.** "Share of the memory used" is the queue's part of all memory-seconds used over the day.

{queue_table(runs)}

**By job size** (all queues), mean / median / p95 (s):

{bin_table(runs)}

**By queue and job size**, mean response (s):

{queue_bin_table(runs)}

![mean response by job size for each config; memory in use per queue over the day, fair scheduler \
and hard-capped Capacity Scheduler](experiments/yarn_capacity_vs_fair.png)

**What this says to an operator**

{findings(runs)}

**Limits.** One seed and one day; the simulator's Capacity Scheduler leaves out locality delay
and assigns one container per heartbeat (see [yarn-capacity.md](yarn-capacity.md#deviations-and-what-is-left-out)),
and its fair scheduler kills preempted containers at once rather than after a warning
([yarn.md](yarn.md#preemption-fspreemptionthread)). SWIM jobs have no AM containers, so the
AM limits play no part.

Reproduce with `.venv/bin/python experiments/yarn_capacity_vs_fair.py` (about 5 minutes on two
quiet cores; `--hours N` runs the first N hours only and leaves this section alone), or one pair by
hand:

```sh
corescheduler compare --config experiments/configs/ycap_fs.toml \\
    --config experiments/configs/ycap_cs_fair.toml \\
    --workload ../shared/workloads/swim/FB-2009_samples_24_times_1hr_0.tsv --seed 0 --out cmp
```"""
    replace_section(DOC, "## YARN's Capacity Scheduler against the fair scheduler", "<!-- yarn-capacity:begin -->",
                    "<!-- yarn-capacity:end -->", text)


def run_all(hours: float, out: Path, swim: Path, workers: int,
            cases: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """The cases (default: all of :data:`CASES`), in ``workers`` processes."""
    cases = list(CASES) if cases is None else cases
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(run_case, cases, [hours] * len(cases), [out] * len(cases), [swim] * len(cases)))
    return dict(zip(cases, results))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hours", type=float, default=DAY_HOURS,
                        help="simulate the jobs submitted in the first HOURS of the day (default: all 24)")
    parser.add_argument("--no-doc", action="store_true", help="print the tables only; leave the doc and plot alone")
    parser.add_argument("--cases", default=",".join(CASES),
                        help=f"simulate only these (comma-separated, of {', '.join(CASES)}) and take the others from "
                             "the last run's results.json")
    parser.add_argument("--reuse", action="store_true",
                        help="rebuild the tables, plot and doc from the last run's results.json, simulating nothing")
    args = parser.parse_args(argv)
    if not 0 < args.hours <= DAY_HOURS:
        parser.error(f"--hours: expected a number of hours in (0, {DAY_HOURS:g}], got {args.hours:g}")
    saved = OUT / f"results-{args.hours:g}h.json"
    if args.reuse:
        if not saved.exists():
            print(f"error: {saved} not found: run without --reuse first", file=sys.stderr)
            return 1
        runs = json.loads(saved.read_text())
    else:
        if not SWIM.exists():
            print(f"error: {SWIM} not found (set CORESCHEDULER_SWIM to its folder)", file=sys.stderr)
            return 1
        cases = [c.strip() for c in args.cases.split(",") if c.strip()]
        unknown = [c for c in cases if c not in CASES]
        if unknown or not cases:
            parser.error(f"--cases: expected some of {', '.join(CASES)}, got {args.cases!r}")
        previous = json.loads(saved.read_text()) if saved.exists() else {}
        missing = [c for c in CASES if c not in cases and c not in previous]
        if missing:
            parser.error(f"--cases: no earlier results for {', '.join(missing)} in {saved}: run them too")
        fresh = run_all(args.hours, OUT, SWIM, os.cpu_count() or 1, cases)
        runs = {c: fresh[c] if c in fresh else previous[c] for c in CASES}
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(json.dumps(runs))
    for table in (overview_table(runs), queue_table(runs), bin_table(runs), queue_bin_table(runs)):
        print(table, end="\n\n")
    if args.hours >= DAY_HOURS and not args.no_doc:
        print(findings(runs))
        plot(runs)
        write_doc(runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
