"""Statistics of a ``compare`` over several seeds: per config, the mean of each
metric with a Student-t confidence interval, and the paired difference
against the first config with its interval (docs/experiments.md).

Seeds pair the runs: run *s* of every config has the same workload sample,
replica placement and heartbeat phases, so the difference of two configs is
taken seed by seed and its interval comes from the spread of those
differences (a paired t interval), which is much narrower than comparing two
independent intervals when the seed moves both configs alike.  A difference
whose interval contains 0 is *within noise*.

The t quantile is computed here (the regularized incomplete beta function by
its continued fraction, Numerical Recipes §6.4, inverted by bisection), so
the package needs no scipy; tests check it against published table values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

#: the confidence level of every interval
CONFIDENCE = 0.95

#: (key in metrics["summary"], label, kind): the measures summarised across seeds;
#: kind "pct" is a fraction shown in percent (differences in percentage points)
MEASURES: tuple[tuple[str, str, str], ...] = (
    ("finished_jobs", "jobs finished", "int"),
    ("makespan", "makespan (s)", "num"),
    ("mean_response_time", "mean response (s)", "num"),
    ("p95_response_time", "p95 response (s)", "num"),
    ("node_locality", "node locality", "pct"),
    ("rack_locality", "rack locality", "pct"),
    ("utilization", "utilisation", "pct"),
    ("memory_utilization", "memory in use", "pct"),
    ("vcores_utilization", "vcores in use", "pct"),
    ("preempted_tasks", "preempted tasks", "int"),
    ("wasted_seconds", "wasted slot-s", "num"),
)
#: the labels of resource-mode runs, whose tasks are containers, not MR1 slots
RESOURCE_LABELS = {"preempted tasks": "preempted containers", "wasted slot-s": "wasted container-s"}


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), 0 ≤ x ≤ 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_ppf(q: float, df: float) -> float:
    """The ``q`` quantile of Student's t with ``df`` degrees of freedom (0 < q < 1)."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"quantile {q} is not between 0 and 1")
    if df <= 0:
        raise ValueError(f"degrees of freedom {df} must be positive")
    if q < 0.5:
        return -t_ppf(1.0 - q, df)
    if q == 0.5:
        return 0.0
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < q:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def interval(values: Sequence[float], confidence: float = CONFIDENCE) -> dict[str, Any]:
    """Mean and two-sided Student-t confidence interval of ``values``:
    ``{"n", "mean", "sd", "half_width", "low", "high"}`` (sd with n − 1; the
    interval is ``None`` for fewer than two values)."""
    n = len(values)
    if n == 0:
        return {"n": 0, "mean": None, "sd": None, "half_width": None, "low": None, "high": None}
    m = math.fsum(values) / n
    if n < 2:
        return {"n": 1, "mean": m, "sd": None, "half_width": None, "low": None, "high": None}
    sd = math.sqrt(math.fsum((v - m) ** 2 for v in values) / (n - 1))
    half = t_ppf(0.5 + confidence / 2.0, n - 1) * sd / math.sqrt(n)
    return {"n": n, "mean": m, "sd": sd, "half_width": half, "low": m - half, "high": m + half}


def paired_difference(values: Sequence[float], baseline: Sequence[float],
                      confidence: float = CONFIDENCE) -> dict[str, Any]:
    """The paired difference ``values[i] − baseline[i]`` (same seed): its mean and interval
    as :func:`interval`, and ``within_noise``: the interval contains 0 (``None`` when
    there is no interval)."""
    if len(values) != len(baseline):
        raise ValueError("paired samples differ in length")
    out = interval([v - b for v, b in zip(values, baseline)], confidence)
    out["within_noise"] = None if out["half_width"] is None else out["low"] <= 0.0 <= out["high"]
    return out


def compare_statistics(configs: Sequence[str], seeds: Sequence[int],
                       metrics: Mapping[tuple[str, int], Mapping[str, Any]],
                       confidence: float = CONFIDENCE) -> dict[str, Any]:
    """The statistics of a compare: ``metrics[(config label, seed)]`` is a run's
    ``metrics.json``.  For every measure of :data:`MEASURES` that all runs report:
    per config the values by seed and their :func:`interval`; per config after the
    first, the :func:`paired_difference` against the first."""
    out: dict[str, Any] = {"confidence": confidence, "seeds": list(seeds), "baseline": configs[0], "measures": {}}
    resources = any("cluster_resources" in m.get("summary", {}) for m in metrics.values())
    for key, label, kind in MEASURES:
        label = RESOURCE_LABELS.get(label, label) if resources else label
        table = {c: [metrics[(c, s)].get("summary", {}).get(key) for s in seeds] for c in configs}
        if any(v is None for values in table.values() for v in values):
            continue
        per_config = {c: {"values": [float(v) for v in table[c]], **interval([float(v) for v in table[c]],
                                                                              confidence)}
                      for c in configs}
        base = per_config[configs[0]]["values"]
        diffs = {c: paired_difference(per_config[c]["values"], base, confidence) for c in configs[1:]}
        out["measures"][key] = {"label": label, "kind": kind, "configs": per_config, "differences": diffs}
    return out


def _places(value: float, places: int) -> int:
    """``places`` decimals, or enough for two significant digits where ``places`` would show a
    value that is not 0 as 0 (a difference of 0.004 is not "+0.00", nor its interval "± 0.00")."""
    if value and abs(value) < 0.5 * 10 ** -places:
        return min(12, math.floor(-math.log10(abs(value))) + 2)
    return places


def _num(value: float, kind: str, diff: bool = False) -> str:
    if kind == "pct":
        shown = 100 * value
        return f"{shown:+.{_places(shown, 1)}f}" if diff else f"{shown:.1f}%"
    sign = "+" if diff else ""
    return f"{value:{sign},.1f}" if abs(value) >= 100 else f"{value:{sign}.{_places(value, 2)}f}"


def format_interval(stat: Mapping[str, Any], kind: str, diff: bool = False) -> str:
    """``mean ± half-width`` as the tables print it (percentages in percent; differences
    signed, percentages then in points, and ``(noise)`` when within noise)."""
    if stat.get("mean") is None:
        return "–"
    if diff and stat["mean"] == 0 and not stat.get("sd"):
        return "0 (identical)"
    text = _num(stat["mean"], kind, diff)
    if stat.get("half_width") is not None:
        half = 100 * stat["half_width"] if kind == "pct" else stat["half_width"]
        text += f" ± {half:,.1f}" if abs(half) >= 100 else f" ± {half:.{_places(half, 2)}f}"
        if kind == "pct" and diff:
            text += " pp"
    if diff and stat.get("within_noise"):
        text += " (noise)"
    return text


def statistics_rows(stats: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The columns and rows of the across-seeds table: a row per measure; per config
    its mean ± half-width, then per config after the first its difference from the first."""
    measures = stats["measures"]
    if not measures:
        return ["measure"], []
    first = next(iter(measures.values()))
    configs = list(first["configs"])
    base = stats["baseline"]
    columns = ["measure", *configs, *(f"{c} − {base}" for c in configs[1:])]
    rows = []
    for m in measures.values():
        rows.append([m["label"], *(format_interval(m["configs"][c], m["kind"]) for c in configs),
                     *(format_interval(m["differences"][c], m["kind"], diff=True) for c in configs[1:])])
    return columns, rows


__all__ = [
    "CONFIDENCE",
    "MEASURES",
    "RESOURCE_LABELS",
    "betainc",
    "compare_statistics",
    "format_interval",
    "interval",
    "paired_difference",
    "statistics_rows",
    "t_cdf",
    "t_ppf",
]
