"""``report.html``: a self-contained page of plots for one run or several.

Everything is inline — matplotlib figures (Agg backend) as SVG markup, CSS in
a ``<style>`` block, no script, font or URL from anywhere — so the file can
be mailed, archived or opened offline.  Built from ``metrics.json`` dicts
(:mod:`corescheduler.sim.metrics`) only.

Plots, each a ``<figure data-plot="…">``:

* ``cdf-pool`` — response-time CDF per pool: the pools with the most finished jobs (at
  least :data:`MIN_CDF_JOBS`), the rest as one "other N pools" line;
* ``cdf-bin`` — response-time CDF per job-size bin;
* ``running-share`` — running tasks per pool over time against its fair share;
* ``locality-bin`` — node and rack locality per job-size bin;
* ``utilization`` — slot utilisation over time, maps and reduces.

With one run, a CDF plot has a line per pool (bin); with several
(``compare``), a panel per pool (bin) with a line per run, and every other
plot overlays the runs in one colour each.  Pools beyond the busiest
:data:`MAX_POOLS` (by slot-seconds; for the CDF, by jobs) are folded into one "other
pools" entry.  With several seeds (``compare``) an "Across seeds" section plots each
measure's interval; rejected and unfinished jobs are listed with their reasons.
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from corescheduler.wording import plural

#: Plot ids in page order, with their headings.
PLOTS: tuple[tuple[str, str], ...] = (
    ("cdf-pool", "Response time by pool"),
    ("cdf-bin", "Response time by job size (maps)"),
    ("running-share", "Running tasks per pool against fair share"),
    ("locality-bin", "Locality by job size (maps)"),
    ("utilization", "Cluster utilisation"),
)
#: Pools shown one by one; the rest are folded into "other pools".
MAX_POOLS = 8
OTHER = "other pools"
_CDF_POINTS = 400

Run = tuple[str, Mapping[str, Any]]


# --------------------------------------------------------------------------- tables


def _fmt(value: Any, kind: str = "num") -> str:
    if value is None:
        return "–"
    if kind == "pct":
        return f"{100 * value:.1f}%"
    if kind == "int":
        return f"{int(value):,}"
    if kind == "bytes":
        return f"{value / 1e9:,.2f} GB"
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 100 else f"{value:.2f}"
    return str(value)


def summary_rows(runs: Sequence[Run]) -> list[list[str]]:
    """The side-by-side table: one row per measure, one column per run
    (preceded by the measure's name); per-bin rows follow the overall ones."""
    spec = [
        ("jobs finished", "finished_jobs", "int"),
        ("jobs rejected", "rejected_jobs", "int"),
        ("jobs unfinished", "unfinished_jobs", "int"),
        ("makespan (s)", "makespan", "num"),
        ("mean response (s)", "mean_response_time", "num"),
        ("p95 response (s)", "p95_response_time", "num"),
        ("node locality", "node_locality", "pct"),
        ("rack locality", "rack_locality", "pct"),
        ("utilisation", "utilization", "pct"),
        ("preempted tasks", "preempted_tasks", "int"),
        ("wasted slot-s", "wasted_seconds", "num"),
    ]
    if _resource_mode(runs):
        from corescheduler.sim.stats import RESOURCE_LABELS

        spec = [(RESOURCE_LABELS.get(label, label), key, kind) for label, key, kind in spec]
        at = spec.index(("utilisation", "utilization", "pct")) + 1
        spec[at:at] = [("memory in use", "memory_utilization", "pct"), ("vcores in use", "vcores_utilization", "pct")]
    rows = [[label, *(_fmt(m["summary"].get(key), kind) for _, m in runs)] for label, key, kind in spec]
    if any("shuffle" in m["summary"] for _, m in runs):  # the network model's shuffle (docs/simulator.md)
        for label, get, kind in (
            ("shuffle bytes node-local", lambda sh: sh["bytes"]["node"], "bytes"),
            ("shuffle bytes rack-local", lambda sh: sh["bytes"]["rack"], "bytes"),
            ("shuffle bytes off-rack", lambda sh: sh["bytes"]["off_rack"], "bytes"),
            ("off-rack share of shuffle", lambda sh: sh["off_rack_fraction"], "pct"),
            ("mean WTND per reduce", lambda sh: sh["wtnd_mean"], "num"),
            ("total TND", lambda sh: sh["tnd"], "num"),
            ("reduce copy time (s)", lambda sh: sh["copy_seconds"], "num"),
        ):
            rows.append([label, *(_fmt(get(m["summary"]["shuffle"]) if "shuffle" in m["summary"] else None, kind)
                                  for _, m in runs)])
    for name in _bins(runs):
        for label, key, kind in (
            ("mean response (s)", "mean_response_time", "num"),
            ("p95 response (s)", "p95_response_time", "num"),
            ("node locality", "node_locality", "pct"),
        ):
            rows.append(
                [f"bin {name}: {label}", *(_fmt(m.get("bins", {}).get(name, {}).get(key), kind) for _, m in runs)]
            )
    return rows


#: why a job listed in metrics.json["unfinished"] did not finish: the simulator stops a run
#: only when nothing has run for ``[simulation] stall_timeout`` and no more jobs are due
STALLED = "nothing ran for [simulation] stall_timeout and no more jobs were due: the run stopped"


def not_run(metrics: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The jobs of a run that were rejected or did not finish, each a dict of ``job``,
    ``pool``, ``outcome`` (``"rejected"`` or ``"unfinished"``) and ``reason``: the
    rejection's message from ``metrics.json["rejected"]``, or for an unfinished job
    whether it ever started and why the run stopped."""
    out: list[dict[str, Any]] = []
    for job_id, reason in (metrics.get("rejected") or {}).items():
        out.append({"job": job_id, "pool": None, "outcome": "rejected", "reason": reason})
    unfinished = metrics.get("unfinished") or []
    if unfinished:
        records = {job.get("id"): job for job in metrics.get("jobs", []) if job.get("id") in set(unfinished)}
        for job_id in unfinished:
            job = records.get(job_id, {})
            start = job.get("start")
            state = "never started" if start is None else f"started at {_fmt(float(start))} s"
            out.append({"job": job_id, "pool": job.get("pool"), "outcome": "unfinished",
                        "reason": f"{state}; {STALLED}"})
    return out


def not_run_counts(metrics: Mapping[str, Any]) -> tuple[int, int]:
    """``(rejected, unfinished)`` job counts of a run."""
    return len(metrics.get("rejected") or {}), len(metrics.get("unfinished") or [])


def _bins(runs: Sequence[Run]) -> list[str]:
    names: dict[str, None] = {}
    for _, m in runs:
        for name in m.get("bins", {}):
            names.setdefault(name, None)
    return list(names)


# --------------------------------------------------------------------------- data helpers


def _pool_ranking(runs: Sequence[Run]) -> list[str]:
    """Pools by slot-seconds used (all runs together), busiest first."""
    used: dict[str, float] = {}
    for _, m in runs:
        for name, p in m.get("pools", {}).items():
            used[name] = used.get(name, 0.0) + (p.get("slot_seconds_map") or 0) + (p.get("slot_seconds_reduce") or 0)
    return sorted(used, key=lambda n: (-used[n], n))


def _pool_groups(runs: Sequence[Run]) -> tuple[list[str], set[str]]:
    """The pools shown by name, and those folded into :data:`OTHER`."""
    ranked = _pool_ranking(runs)
    if len(ranked) <= MAX_POOLS:
        return ranked, set()
    return ranked[: MAX_POOLS - 1], set(ranked[MAX_POOLS - 1 :])


#: the fewest finished jobs a pool needs for a CDF line of its own (a one-job "CDF" is one step)
MIN_CDF_JOBS = 5


def _cdf_pool_groups(runs: Sequence[Run]) -> tuple[list[str], set[str]]:
    """The pools the response-time CDF shows by name — those with the most finished jobs (all
    runs together), at most :data:`MAX_POOLS` − 1 and each with at least :data:`MIN_CDF_JOBS` —
    and the rest, folded into :data:`OTHER`."""
    jobs: dict[str, int] = {}
    for _, m in runs:
        for job in m.get("jobs", []):
            if job.get("response_time") is not None:
                name = job.get("pool") or "default"
                jobs[name] = jobs.get(name, 0) + 1
    used = {name: i for i, name in enumerate(_pool_ranking(runs))}
    ranked = sorted(jobs, key=lambda n: (-jobs[n], used.get(n, len(used)), n))
    big = [name for name in ranked if jobs[name] >= MIN_CDF_JOBS * len(runs)]
    if len(ranked) <= MAX_POOLS and len(big) == len(ranked):
        return ranked, set()
    shown = big[: MAX_POOLS - 1]
    return shown, set(ranked) - set(shown)


def _group_label(group: str, other: set[str], shown: Sequence[str], jobs: int | None = None) -> str:
    """A CDF's legend entry or panel title: the pool, or how many pools "other" holds."""
    if group != OTHER:
        return group if jobs is None else f"{group} ({plural(jobs, 'job')})"
    what = f"{'other' if shown else 'all'} {plural(len(other), 'pool')}"
    return what if jobs is None else f"{what} ({plural(jobs, 'job')})"


def _responses(metrics: Mapping[str, Any], field: str, shown: Sequence[str], other: set[str]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {name: [] for name in shown}
    if other:
        out[OTHER] = []
    for job in metrics.get("jobs", []):
        rt = job.get("response_time")
        key = job.get(field) or ("default" if field == "pool" else "all")
        if rt is None:
            continue
        if key in out:
            out[key].append(rt)
        elif key in other:
            out[OTHER].append(rt)
    return out


def _cdf(values: Sequence[float]) -> tuple[list[float], list[float]]:
    data = sorted(values)
    n = len(data)
    if n <= _CDF_POINTS:
        return data, [(i + 1) / n for i in range(n)]
    idx = [round(i * (n - 1) / (_CDF_POINTS - 1)) for i in range(_CDF_POINTS)]
    return [data[i] for i in idx], [(i + 1) / n for i in idx]


# --------------------------------------------------------------------------- figures


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _style() -> dict[str, Any]:
    return {
        "svg.fonttype": "none",  # text stays text: smaller, selectable
        "svg.hashsalt": "corescheduler",  # deterministic ids
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.3,
    }


_ID = re.compile(r'id="([A-Za-z][\w.]*_\d+)"')


def _svg(fig: Any, index: int) -> str:
    """The figure as inline SVG markup with no URL in it (no XML prolog,
    DOCTYPE, metadata, comments or namespace URIs; HTML5 parses inline SVG
    without them) and element ids made unique per figure."""
    plt = _plt()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", text)
    text = _ID.sub(lambda m: f'id="f{index}-{m.group(1)}"', text)
    return text.strip()


def _grid(n: int) -> tuple[int, int]:
    cols = min(n, 3)
    return math.ceil(n / cols), cols


def _colors(n: int) -> list[Any]:
    plt = _plt()
    cmap = plt.get_cmap("tab10" if n <= 10 else "tab20")
    return [cmap(i % cmap.N) for i in range(n)]


def _cdf_figure(runs: Sequence[Run], field: str, shown: Sequence[str], other: set[str], title: str) -> Any:
    plt = _plt()
    groups = [*shown, *([OTHER] if other else [])]
    per_run = [(label, _responses(m, field, shown, other)) for label, m in runs]
    if len(runs) == 1:
        fig, ax = plt.subplots(figsize=(9.0, 4.2))
        data = per_run[0][1]
        log = False
        for color, group in zip(_colors(len(groups)), groups):
            values = data.get(group) or []
            if values:
                xs, ys = _cdf(values)
                if group == OTHER and field == "pool" and shown:  # the rest: dark and dashed, apart from the others
                    ax.step(xs, ys, where="post", color="0.25", lw=1.8, ls="--",
                            label=_group_label(group, other, shown, len(values)))
                else:
                    label = _group_label(group, other, shown, len(values)) if field == "pool" else \
                        f"{group} ({len(values)})"
                    ax.step(xs, ys, where="post", color=color, lw=1.8, label=label)
                log |= min(xs) > 0
        _finish_cdf(ax, log, legend=True)
        ax.set_title(title)
        fig.tight_layout()
        return fig
    rows, cols = _grid(max(1, len(groups)))
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.6 * rows), squeeze=False)
    colors = _colors(len(runs))
    for i, group in enumerate(groups):
        ax = axes[i // cols][i % cols]
        log = False
        for color, (label, data) in zip(colors, per_run):
            values = data.get(group) or []
            if values:
                xs, ys = _cdf(values)
                ax.step(xs, ys, where="post", color=color, lw=1.5, label=label)
                log |= min(xs) > 0
        ax.set_title(_group_label(group, other, shown) if field == "pool" else group, fontsize=9)
        _finish_cdf(ax, log, legend=False)
    for j in range(len(groups), rows * cols):
        axes[j // cols][j % cols].axis("off")
    _legend_runs(fig, runs)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.05, 1, 0.95))
    return fig


def _finish_cdf(ax: Any, log: bool, legend: bool) -> None:
    if log:
        from matplotlib.ticker import NullFormatter

        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("response time (s)")
    ax.set_ylabel("fraction of jobs")
    ax.set_ylim(0, 1.02)
    if legend and ax.get_legend_handles_labels()[0]:  # beside the plot, clear of the lines
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, frameon=False)


def _legend_runs(fig: Any, runs: Sequence[Run]) -> None:
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=c) for c in _colors(len(runs))]
    fig.legend(handles, [label for label, _ in runs], loc="lower center", fontsize=8, ncol=min(5, len(runs)))


def _resource_mode(runs: Sequence[Run]) -> bool:
    """Resource-mode runs report per resource type and queue (``[scheduler] mode = "resources"``)."""
    return any("cluster_resources" in m.get("summary", {}) for _, m in runs)


def _series(metrics: Mapping[str, Any], pools: Sequence[str], key: str) -> list[float]:
    timeline = metrics.get("timeline", {})
    n = len(timeline.get("time", []))
    total = [0.0] * n
    resource = {"running": ("memory",), "fair_share": ("fair_share_memory",), "dominant": ("dominant_share",)}
    for name in pools:
        p = timeline.get("pools", {}).get(name)
        if not p:
            continue
        fields = resource[key] if "memory" in p else (f"{key}_map", f"{key}_reduce")
        for field in fields:
            for i, v in enumerate(p.get(field, [])[:n]):
                total[i] += v
    return total


def _running_figure(runs: Sequence[Run], shown: Sequence[str], other: set[str]) -> Any:
    plt = _plt()
    resources = _resource_mode(runs)
    groups: list[tuple[str, list[str]]] = [(name, [name]) for name in shown]
    if other:
        groups.append((OTHER, sorted(other)))
    rows, cols = _grid(max(1, len(groups)))
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.5 * rows), squeeze=False)
    colors = _colors(len(runs))
    for i, (title, members) in enumerate(groups):
        ax = axes[i // cols][i % cols]
        for color, (_label, m) in zip(colors, runs):
            times = m.get("timeline", {}).get("time", [])
            if not times:
                continue
            ax.plot(times, _series(m, members, "running"), color=color, lw=1.1)
            ax.plot(times, _series(m, members, "fair_share"), color=color, lw=1.0, ls="--", alpha=0.8)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("MB" if resources else "tasks")
    for j in range(len(groups), rows * cols):
        axes[j // cols][j % cols].axis("off")
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color="0.3"), Line2D([], [], color="0.3", ls="--")]
    labels = ["memory used" if resources else "running (maps + reduces)",
              "share (fair, or guaranteed)" if resources else "fair share"]
    if len(runs) > 1:
        handles += [Line2D([], [], color=c) for c in colors]
        labels += [label for label, _ in runs]
    fig.legend(handles, labels, loc="lower center", fontsize=8, ncol=min(6, len(labels)))
    fig.suptitle("Memory used per queue (solid) against its share (dashed)" if resources
                 else "Running tasks per pool (solid) against fair share (dashed)")
    fig.tight_layout(rect=(0, 0.05, 1, 0.95))
    return fig


def _locality_figure(runs: Sequence[Run]) -> Any:
    plt = _plt()
    bins = _bins(runs)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), squeeze=False)
    colors = _colors(len(runs))
    width = 0.8 / max(1, len(runs))
    for ax, key, title in (
        (axes[0][0], "node_locality", "node-local maps"),
        (axes[0][1], "rack_locality", "node- or rack-local maps"),
    ):
        for r, (color, (label, m)) in enumerate(zip(colors, runs)):
            values = [(m.get("bins", {}).get(b, {}).get(key) or 0.0) * 100 for b in bins]
            xs = [i + (r - (len(runs) - 1) / 2) * width for i in range(len(bins))]
            ax.bar(xs, values, width=width, color=color, label=label)
        ax.set_xticks(range(len(bins)), bins, rotation=30)
        ax.set_xlabel("maps per job")
        ax.set_ylabel("% of map launches")
        ax.set_ylim(0, 105)
        ax.set_title(title)
    if len(runs) > 1:
        axes[0][1].legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def _dominant_figure(runs: Sequence[Run], shown: Sequence[str], other: set[str]) -> Any:
    """Resource mode: each queue's dominant share (its largest share of any resource) over time."""
    plt = _plt()
    groups: list[tuple[str, list[str]]] = [(name, [name]) for name in shown]
    if other:
        groups.append((OTHER, sorted(other)))
    fig, axes = plt.subplots(1, len(runs), figsize=(5 * len(runs), 3.4), squeeze=False)
    colors = _colors(len(groups))
    for ax, (label, m) in zip(axes[0], runs):
        times = m.get("timeline", {}).get("time", [])
        for color, (title, members) in zip(colors, groups):
            if times:
                ax.plot(times, [100 * v for v in _series(m, members, "dominant")], color=color, lw=1.1, label=title)
        ax.set_title(label if len(runs) > 1 else "dominant share per queue", fontsize=9)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("% of the cluster")
    if axes[0][-1].get_legend_handles_labels()[0]:  # no line when no queue ever ran a task
        axes[0][-1].legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig


def _utilization_figure(runs: Sequence[Run]) -> Any:
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), squeeze=False)
    colors = _colors(len(runs))
    lanes = ("memory", "vcores") if _resource_mode(runs) else ("map", "reduce")
    for ax, kind in ((axes[0][0], lanes[0]), (axes[0][1], lanes[1])):
        for color, (label, m) in zip(colors, runs):
            timeline = m.get("timeline", {})
            times = timeline.get("time", [])
            values = [100 * v for v in timeline.get("utilization", {}).get(kind, [])]
            if times:
                ax.plot(times, values[: len(times)], color=color, lw=1.1, label=label)
        ax.set_title(f"{kind} in use" if kind in ("memory", "vcores") else f"{kind} slots busy")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("%")
        ax.set_ylim(0, 105)
    if len(runs) > 1 and axes[0][1].get_legend_handles_labels()[0]:
        axes[0][1].legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig


def _interval_figures(stats: Mapping[str, Any]) -> tuple[Any, Any | None]:
    """Across seeds: each measure's mean per config with its confidence interval (the seeds' own
    values as dots), and each config's paired difference from the baseline with its interval."""
    plt = _plt()
    every = list(stats["measures"].values())
    configs = list(every[0]["configs"]) if every else []
    # a measure with one value in every run (no preemption anywhere, say) says nothing drawn
    measures = [m for m in every if len({v for c in configs for v in m["configs"][c]["values"]}) > 1] or every[:1]
    colors = _colors(len(configs))
    level = f"{100 * stats['confidence']:g}%"

    def scale(m: Mapping[str, Any]) -> float:
        return 100.0 if m["kind"] == "pct" else 1.0

    def heading(m: Mapping[str, Any], diff: bool) -> str:
        return f"{m['label']} ({'percentage points' if diff else '%'})" if m["kind"] == "pct" else m["label"]

    rows, cols = _grid(max(1, len(measures)))
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.5 * rows), squeeze=False)
    for i, m in enumerate(measures):
        ax = axes[i // cols][i % cols]
        k = scale(m)
        for x, (color, c) in enumerate(zip(colors, configs)):
            st = m["configs"][c]
            ax.scatter([x] * len(st["values"]), [k * v for v in st["values"]], color=color, alpha=0.35, s=10, lw=0)
            ax.errorbar([x], [k * st["mean"]], yerr=[[k * (st["half_width"] or 0.0)]], color=color, fmt="o",
                        capsize=5, ms=5, lw=1.6)
        ax.set_xticks(range(len(configs)), configs, rotation=20 if len(configs) > 2 else 0, fontsize=8)
        ax.set_xlim(-0.6, len(configs) - 0.4)
        ax.set_title(heading(m, False), fontsize=9)
    for j in range(len(measures), rows * cols):
        axes[j // cols][j % cols].axis("off")
    fig.suptitle(f"Mean across {len(stats['seeds'])} seeds with its {level} confidence interval (dots: each seed)")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    if len(configs) < 2:
        return fig, None
    others = configs[1:]
    rows, cols = _grid(max(1, len(measures)))
    dfig, daxes = plt.subplots(rows, cols, figsize=(3.4 * cols, (0.5 + 0.45 * len(others)) * rows + 0.6),
                               squeeze=False)
    for i, m in enumerate(measures):
        ax = daxes[i // cols][i % cols]
        k = scale(m)
        ax.axvline(0.0, color="0.4", lw=0.9)
        for y, c in enumerate(others):
            d = m["differences"][c]
            color = "0.6" if d["within_noise"] else colors[configs.index(c)]
            ax.errorbar([k * d["mean"]], [y], xerr=[[k * (d["half_width"] or 0.0)]], color=color, fmt="o",
                        capsize=4, ms=5, lw=1.6)
        ax.set_yticks(range(len(others)), others, fontsize=8)
        ax.set_ylim(-0.6, len(others) - 0.4)
        ax.set_title(heading(m, True), fontsize=9)
        ax.grid(axis="y", visible=False)
    for j in range(len(measures), rows * cols):
        daxes[j // cols][j % cols].axis("off")
    dfig.suptitle(f"Paired difference from {stats['baseline']} with its {level} interval (grey: within noise)")
    dfig.tight_layout(rect=(0, 0, 1, 0.93))
    return fig, dfig


def _statistics_section(stats: Mapping[str, Any], svgs: Mapping[str, str]) -> list[str]:
    from corescheduler.sim.stats import statistics_rows

    esc = html.escape
    columns, rows = statistics_rows(stats)
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = "".join(
        "<tr><td>" + esc(row[0]) + "</td>"
        + "".join(f'<td class="n{" noise" if "(noise)" in c else ""}">{esc(c)}</td>' for c in row[1:]) + "</tr>"
        for row in rows
    )
    level = f"{100 * stats['confidence']:g}%"
    seeds = stats["seeds"]
    parts = [
        '<h2 id="across-seeds">Across seeds</h2>',
        f'<p class="meta">Each config ran with seeds {esc(", ".join(map(str, seeds)))}. A cell is the mean over '
        f"the {len(seeds)} seeds ± the half-width of its {level} confidence interval (Student t, "
        f"{plural(len(seeds) - 1, 'degree', 'degrees')} of freedom); a difference is taken seed by seed "
        f"against {esc(stats['baseline'])} (paired) and "
        "is marked (noise) when its interval contains 0. Percentages differ in percentage points (pp).</p>",
        f'<table class="statistics"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>',
        f'<figure data-plot="intervals">{svgs["intervals"]}<figcaption>Each measure\'s mean per config with its '
        f"{level} confidence interval; the dots are the seeds' own values.</figcaption></figure>",
    ]
    if "differences" in svgs:
        parts.append(f'<figure data-plot="differences">{svgs["differences"]}<figcaption>Each config\'s paired '
                     f"difference from {esc(stats['baseline'])} with its {level} interval; grey when the interval "
                     "contains 0 (within noise).</figcaption></figure>")
    return parts


# --------------------------------------------------------------------------- page

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1100px;padding:0 1em;color:#222}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ddd}
.meta{color:#666}table{border-collapse:collapse;margin:1em 0}th,td{padding:.25em .8em;border-bottom:1px solid #eee}
th{text-align:left;background:#f6f6f6}td.n{text-align:right;font-variant-numeric:tabular-nums}td.noise{color:#888}
figure{margin:1em 0}figure svg{max-width:100%;height:auto}figcaption{color:#666;font-size:.9em}
"""


def render_report(runs: Sequence[Run], *, title: str = "corescheduler simulation", notes: Sequence[str] = (),
                  statistics: Mapping[str, Any] | None = None) -> str:
    """The report page for ``runs`` — ``(label, metrics)`` pairs — as HTML text.  ``statistics``:
    a compare's across-seeds statistics (:func:`corescheduler.sim.stats.compare_statistics`),
    shown as a table and plotted as intervals after the summary."""
    if not runs:
        raise ValueError("a report needs at least one run")
    plt = _plt()
    with plt.rc_context(_style()):
        shown, other = _pool_groups(runs)
        bins = _bins(runs)
        figures = {
            "cdf-pool": _cdf_figure(runs, "pool", *_cdf_pool_groups(runs), "Response-time CDF per pool"),
            "cdf-bin": _cdf_figure(runs, "size_bin", bins, set(), "Response-time CDF per job size (maps)"),
            "running-share": _running_figure(runs, shown, other),
            "locality-bin": _locality_figure(runs),
            "utilization": _utilization_figure(runs),
        }
        if _resource_mode(runs):
            figures["dominant-share"] = _dominant_figure(runs, shown, other)
        if statistics is not None and statistics.get("measures"):
            figures["intervals"], differences = _interval_figures(statistics)
            if differences is not None:
                figures["differences"] = differences
        svgs = {name: _svg(fig, i) for i, (name, fig) in enumerate(figures.items())}
    esc = html.escape
    labels = [label for label, _ in runs]
    head = "".join(f"<th>{esc(label)}</th>" for label in labels)
    body = "".join(
        "<tr><td>" + esc(row[0]) + "</td>" + "".join(f'<td class="n">{esc(c)}</td>' for c in row[1:]) + "</tr>"
        for row in summary_rows(runs)
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        *(f'<p class="meta">{esc(note)}</p>' for note in notes),
        '<h2 id="summary">Summary</h2>',
        f'<table class="summary"><thead><tr><th>measure</th>{head}</tr></thead><tbody>{body}</tbody></table>',
    ]
    if "intervals" in svgs:
        parts += _statistics_section(statistics or {}, svgs)
    parts += _not_run_section(runs)
    captions = {
        "cdf-pool": "Fraction of jobs finished within a response time (finish − submit): the pools with the "
                    f"most finished jobs (at least {MIN_CDF_JOBS} each) one by one, the other pools together.",
        "cdf-bin": "The same by job size (number of maps), the delay-scheduling paper's bins.",
        "running-share": "Tasks running (maps + reduces) and the pool's fair share, sampled over the run.",
        "locality-bin": "Share of map launches reading node-local input, and node- or rack-local input.",
        "utilization": "Share of map and reduce slots running a task, sampled over the run.",
        "dominant-share": "Each queue's dominant share: its largest share of the cluster's memory or vcores.",
    }
    plots: Sequence[tuple[str, str]] = PLOTS
    if _resource_mode(runs):
        captions["running-share"] = ("Memory each queue uses and its share — its fair share, or under YARN's "
                                     "Capacity Scheduler (yarn_capacity) its guaranteed capacity — sampled over "
                                     "the run.")
        captions["utilization"] = "Share of the cluster's memory and vcores in use, sampled over the run."
        plots = [(name, "Memory used per queue against its share" if name == "running-share" else heading)
                 for name, heading in PLOTS] + [("dominant-share", "Dominant shares")]
    for name, heading in plots:
        parts.append(f'<h2 id="{name}">{esc(heading)}</h2>')
        parts.append(f'<figure data-plot="{name}">{svgs[name]}<figcaption>{esc(captions[name])}</figcaption></figure>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


#: rows of the "rejected or unfinished" table shown per run (metrics.json has them all)
MAX_NOT_RUN_ROWS = 200


def _not_run_section(runs: Sequence[Run]) -> list[str]:
    """The "Jobs rejected or unfinished" section: each job with its reason, or nothing if every job finished."""
    esc = html.escape
    per_run = [(label, not_run(m)) for label, m in runs]
    if not any(rows for _, rows in per_run):
        return []
    several = len(runs) > 1
    head = ("<th>run</th>" if several else "") + "<th>job</th><th>pool</th><th>outcome</th><th>reason</th>"
    body = []
    notes = []
    for label, rows in per_run:
        for row in rows[:MAX_NOT_RUN_ROWS]:
            cells = ([label] if several else []) + [row["job"], row["pool"] or "–", row["outcome"], row["reason"]]
            body.append("<tr>" + "".join(f"<td>{esc(str(c))}</td>" for c in cells) + "</tr>")
        if len(rows) > MAX_NOT_RUN_ROWS:
            notes.append(f"{label}: {len(rows) - MAX_NOT_RUN_ROWS:,} more not shown; metrics.json lists every one "
                         "(\"rejected\", \"unfinished\").")
    counts = "; ".join(
        f"{label}: " + ", ".join(f"{n:,} {what}" for n, what in zip(not_run_counts(m), ("rejected", "unfinished")))
        for label, m in runs
    )
    return [
        '<h2 id="not-run">Jobs rejected or unfinished</h2>',
        f'<p class="meta">{esc(counts)}. A rejected job never entered the scheduler (its job_rejected '
        "event in events.jsonl carries the reason); an unfinished one was still waiting when the run stopped.</p>",
        f'<table class="not-run"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>',
        *(f'<p class="meta">{esc(note)}</p>' for note in notes),
    ]


def write_report(
    path: str | Path, runs: Sequence[Run], *, title: str = "corescheduler simulation", notes: Sequence[str] = (),
    statistics: Mapping[str, Any] | None = None,
) -> Path:
    """Write :func:`render_report` to ``path``; returns the path."""
    path = Path(path)
    # backslashreplace: a name that reached the page undecoded (a lone surrogate) is shown
    # escaped rather than failing after the whole run
    path.write_text(render_report(runs, title=title, notes=notes, statistics=statistics), encoding="utf-8",
                    errors="backslashreplace")
    return path


__all__ = ["MAX_POOLS", "PLOTS", "STALLED", "not_run", "not_run_counts", "render_report", "summary_rows",
           "write_report"]
