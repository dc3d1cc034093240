"""``compare``'s across-seeds statistics against scipy (issue 30's acceptance): the t quantiles
``corescheduler.sim.stats`` computes itself, each config's 95 % interval against
``scipy.stats.t.interval``, and each paired difference against ``scipy.stats.ttest_rel`` (its
interval holds 0 exactly when the paired t test's p-value is ≥ 0.05), on a case with known
seeds (0..3)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run
from test_compare_seeds import CONFIG, WORKLOAD

from corescheduler.sim.stats import t_cdf, t_ppf

scipy_stats = pytest.importorskip("scipy.stats")


@pytest.mark.parametrize("df", [1, 2, 3, 4, 7, 19, 50, 1000])
def test_t_quantiles_and_cdf_match_scipy(df) -> None:
    for q in (0.5, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999):
        assert t_ppf(q, df) == pytest.approx(scipy_stats.t.ppf(q, df), rel=1e-9, abs=1e-12)
        assert t_ppf(1 - q, df) == pytest.approx(scipy_stats.t.ppf(1 - q, df), rel=1e-9, abs=1e-12)
    for x in (-10.0, -2.5, -0.3, 0.0, 0.7, 1.96, 4.0, 30.0):
        assert t_cdf(x, df) == pytest.approx(scipy_stats.t.cdf(x, df), rel=1e-9, abs=1e-13)


def test_compare_over_four_seeds_matches_scipy(tmp_path: Path) -> None:
    (tmp_path / "w.json").write_text(json.dumps(WORKLOAD), encoding="utf-8")
    (tmp_path / "greedy.toml").write_text(CONFIG.format(selector="locality", multiple="true"))
    (tmp_path / "single.toml").write_text(CONFIG.format(selector="delay", multiple="false"))
    out = tmp_path / "cmp"
    result = run("compare", "--config", str(tmp_path / "greedy.toml"), "--config", str(tmp_path / "single.toml"),
                 "--workload", str(tmp_path / "w.json"), "--out", str(out), "-j", "1", "--seeds", "4")
    assert result.exit_code == 0, result.output
    stats = json.loads((out / "compare.json").read_text())["statistics"]

    def values(config: str, key: str) -> np.ndarray:
        return np.array([json.loads((out / f"{config}-seed{s}" / "metrics.json").read_text())["summary"][key]
                         for s in range(4)], dtype=float)

    checked = 0
    for key, m in stats["measures"].items():
        for config in ("greedy", "single"):
            v = values(config, key)
            got = m["configs"][config]
            assert got["mean"] == pytest.approx(v.mean())
            if v.std() == 0:
                assert got["half_width"] == pytest.approx(0.0, abs=1e-12)
                continue
            low, high = scipy_stats.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=scipy_stats.sem(v))
            assert got["mean"] - got["half_width"] == pytest.approx(low, rel=1e-7)
            assert got["mean"] + got["half_width"] == pytest.approx(high, rel=1e-7)
            checked += 1
        a, b = values("greedy", key), values("single", key)
        diff = m["differences"]["single"]
        assert diff["mean"] == pytest.approx((b - a).mean(), abs=1e-12)
        if np.all(b - a == (b - a)[0]):  # no spread: scipy's test is undefined
            continue
        p = scipy_stats.ttest_rel(b, a).pvalue
        assert diff["within_noise"] == (p >= 0.05), (key, p, diff)
        checked += 1
    assert checked >= 4  # the case has spread to test, not only identical runs
