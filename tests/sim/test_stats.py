"""The across-seeds statistics of ``compare`` (issue 30 item 7): the t quantile against
published table values, intervals and paired differences against numpy on known numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from corescheduler.sim.stats import (
    betainc,
    compare_statistics,
    format_interval,
    interval,
    paired_difference,
    statistics_rows,
    t_cdf,
    t_ppf,
)

#: Student t critical values, two-sided 95 % and 99 % (one-sided 0.975 and 0.995), from the
#: published table (NIST/SEMATECH e-Handbook of Statistical Methods, §1.3.6.7.2)
T_TABLE = {
    1: (12.706, 63.657), 2: (4.303, 9.925), 3: (3.182, 5.841), 4: (2.776, 4.604), 5: (2.571, 4.032),
    9: (2.262, 3.250), 10: (2.228, 3.169), 20: (2.086, 2.845), 29: (2.045, 2.756), 30: (2.042, 2.750),
    100: (1.984, 2.626),
}


@pytest.mark.parametrize("df", sorted(T_TABLE))
def test_t_quantiles_match_the_published_table(df) -> None:
    q975, q995 = T_TABLE[df]
    assert round(t_ppf(0.975, df), 3) == q975
    assert round(t_ppf(0.995, df), 3) == q995
    assert t_ppf(0.025, df) == pytest.approx(-t_ppf(0.975, df))
    assert t_cdf(t_ppf(0.975, df), df) == pytest.approx(0.975, abs=1e-12)


def test_t_tends_to_the_normal_and_cdf_known_points() -> None:
    assert t_ppf(0.975, 1e7) == pytest.approx(1.959964, abs=1e-5)
    assert t_cdf(0.0, 3) == 0.5
    assert t_cdf(1.0, 1) == pytest.approx(0.75)  # Cauchy: 1/2 + atan(1)/pi
    assert t_cdf(2.0, 2) == pytest.approx(0.5 + 1 / math.sqrt(6))  # df 2 closed form: 1/2 + t/(2 sqrt(t²+2))
    assert betainc(3.0, 3.0, 0.5) == pytest.approx(0.5)
    assert betainc(2.0, 5.0, 0.3) == pytest.approx(1 - betainc(5.0, 2.0, 0.7))
    with pytest.raises(ValueError):
        t_ppf(1.0, 3)


def test_interval_matches_numpy_on_known_numbers() -> None:
    values = [12.1, 11.4, 13.0, 12.6, 11.9]
    out = interval(values)
    arr = np.array(values)
    sd = float(arr.std(ddof=1))
    assert out["n"] == 5
    assert out["mean"] == pytest.approx(float(arr.mean())) and out["mean"] == pytest.approx(12.2)
    assert out["sd"] == pytest.approx(sd)
    assert out["half_width"] == pytest.approx(2.776445 * sd / math.sqrt(5), rel=1e-6)
    assert out["half_width"] == pytest.approx(0.7704, abs=1e-4)  # 2.776445 × sqrt(1.54 / 4) / √5
    assert (out["low"], out["high"]) == pytest.approx((12.2 - out["half_width"], 12.2 + out["half_width"]))
    single = interval([3.0])
    assert single["mean"] == 3.0 and single["half_width"] is None
    assert interval([])["mean"] is None


def test_paired_difference_and_noise() -> None:
    base = [10.0, 12.0, 11.0, 13.0]
    better = [8.0, 10.5, 9.0, 11.2]  # about 2 lower for every seed
    d = paired_difference(better, base)
    diffs = np.array(better) - np.array(base)
    assert d["mean"] == pytest.approx(float(diffs.mean()))
    assert d["half_width"] == pytest.approx(3.182446 * float(diffs.std(ddof=1)) / 2, rel=1e-6)
    assert d["within_noise"] is False and d["high"] < 0
    # an unpaired view of the same numbers would call it noise: the seeds move both configs alike
    assert interval(better)["high"] > interval(base)["low"]
    noisy = paired_difference([10.5, 11.5, 11.2, 12.6], base)
    assert noisy["within_noise"] is True and noisy["low"] < 0 < noisy["high"]
    assert paired_difference([1.0], [2.0])["within_noise"] is None
    with pytest.raises(ValueError):
        paired_difference([1.0, 2.0], [1.0])


def _metrics(mean_response: float, locality: float | None) -> dict:
    return {"summary": {"mean_response_time": mean_response, "node_locality": locality, "finished_jobs": 4}}


def test_compare_statistics_per_config_and_against_the_first() -> None:
    a = [50.0, 52.0, 51.0]
    b = [45.0, 48.0, 46.5]
    runs = {("a", s): _metrics(a[s], 0.5 + 0.1 * s) for s in range(3)}
    runs |= {("b", s): _metrics(b[s], None) for s in range(3)}
    stats = compare_statistics(["a", "b"], [0, 1, 2], runs)
    assert stats["baseline"] == "a" and stats["seeds"] == [0, 1, 2] and stats["confidence"] == 0.95
    assert "node_locality" not in stats["measures"]  # b does not report it
    m = stats["measures"]["mean_response_time"]
    assert m["configs"]["a"]["values"] == a and m["configs"]["b"]["mean"] == pytest.approx(np.mean(b))
    assert m["configs"]["b"]["half_width"] == pytest.approx(4.302653 * np.std(b, ddof=1) / math.sqrt(3), rel=1e-6)
    d = m["differences"]["b"]
    assert d["mean"] == pytest.approx(np.mean(np.array(b) - np.array(a)))
    assert d["within_noise"] is False
    assert stats["measures"]["finished_jobs"]["differences"]["b"]["within_noise"] is True
    columns, rows = statistics_rows(stats)
    assert columns == ["measure", "a", "b", "b − a"]
    row = {r[0]: r[1:] for r in rows}
    assert row["mean response (s)"][0] == "51.00 ± 2.48"
    assert row["mean response (s)"][2].startswith("-4.50 ± ") and "(noise)" not in row["mean response (s)"][2]
    assert row["jobs finished"][2] == "0 (identical)"


def test_format_interval_percent_and_noise() -> None:
    assert format_interval({"mean": 0.853, "half_width": 0.0123}, "pct") == "85.3% ± 1.23"
    assert format_interval({"mean": 0.01, "half_width": 0.02, "within_noise": True, "sd": 0.01}, "pct",
                           diff=True) == "+1.0 ± 2.00 pp (noise)"
    assert format_interval({"mean": None}, "num") == "–"
    assert format_interval({"mean": 1234.5, "half_width": None}, "num") == "1,234.5"


def test_a_small_difference_is_not_shown_as_zero() -> None:
    """The walk-through's `utilisation +0.0 ± 0.00 pp` beside no "(noise)": read as "no
    difference, yet significant"; a value that is not 0 keeps two significant digits."""
    assert format_interval({"mean": 0.00004, "half_width": 0.00002, "sd": 0.00001}, "pct",
                           diff=True) == "+0.0040 ± 0.0020 pp"
    assert format_interval({"mean": -0.004, "half_width": 0.0031, "sd": 0.001}, "num", diff=True) == "-0.0040 ± 0.0031"
    assert format_interval({"mean": 0.18, "half_width": 0.18}, "num", diff=True) == "+0.18 ± 0.18"
    assert format_interval({"mean": 0.0, "half_width": 0.0, "sd": 0.0}, "num", diff=True) == "0 (identical)"
