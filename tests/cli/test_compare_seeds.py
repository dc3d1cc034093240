"""``compare`` over several seeds (issue 30 item 7): per config the mean and 95 % interval of each
measure, the paired difference from the first config, ``--seeds N``, and the report's intervals.
The numbers are recomputed here with numpy from each run's own metrics.json."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run

WORKLOAD = {
    "jobs": [
        {"id": f"j{i}", "submit": i * 3.0, "user": f"u{i % 3}", "pool": f"p{i % 2}",
         "map_count": 1 + 4 * i, "map_duration": 6.0, "reduce_count": i % 3, "reduce_duration": 10.0}
        for i in range(12)
    ]
}
CONFIG = """
[scheduler]
task_selector = "{selector}"
assign_multiple = {multiple}

[cluster]
racks = 2
nodes_per_rack = 4
"""
#: t(0.975, 2), the published table's 4.303 to more places
T_975_DF2 = 4.302653


@pytest.fixture
def setup(tmp_path: Path) -> Path:
    (tmp_path / "w.json").write_text(json.dumps(WORKLOAD), encoding="utf-8")
    (tmp_path / "greedy.toml").write_text(CONFIG.format(selector="locality", multiple="true"))
    (tmp_path / "delay.toml").write_text(CONFIG.format(selector="delay", multiple="true"))
    return tmp_path


def _compare(setup: Path, *extra: str):
    return run("compare", "--config", str(setup / "greedy.toml"), "--config", str(setup / "delay.toml"),
               "--workload", str(setup / "w.json"), "--out", str(setup / "cmp"), "-j", "1", *extra)


def test_seeds_shorthand_gives_intervals_and_paired_differences(setup) -> None:
    result = _compare(setup, "--seeds", "3")
    assert result.exit_code == 0, result.output
    out = setup / "cmp"
    data = json.loads((out / "compare.json").read_text())
    assert data["seeds"] == [0, 1, 2]
    assert sorted(data["runs"]) == sorted(f"{c}-seed{s}" for c in ("greedy", "delay") for s in range(3))
    stats = data["statistics"]
    assert stats["baseline"] == "greedy" and stats["confidence"] == 0.95

    def values(config: str, key: str) -> np.ndarray:
        return np.array([json.loads((out / f"{config}-seed{s}" / "metrics.json").read_text())["summary"][key]
                         for s in range(3)], dtype=float)

    for key in ("mean_response_time", "makespan", "node_locality", "utilization"):
        m = stats["measures"][key]
        for config in ("greedy", "delay"):
            v = values(config, key)
            assert m["configs"][config]["values"] == pytest.approx(v.tolist())
            assert m["configs"][config]["mean"] == pytest.approx(v.mean())
            assert m["configs"][config]["half_width"] == pytest.approx(T_975_DF2 * v.std(ddof=1) / math.sqrt(3),
                                                                       rel=1e-5, abs=1e-12)
        d = values("delay", key) - values("greedy", key)
        diff = m["differences"]["delay"]
        half = T_975_DF2 * d.std(ddof=1) / math.sqrt(3)
        assert diff["mean"] == pytest.approx(d.mean())
        assert diff["half_width"] == pytest.approx(half, rel=1e-5, abs=1e-12)
        assert diff["within_noise"] == bool(d.mean() - half <= 0 <= d.mean() + half)

    lines = result.stdout.splitlines()
    assert "seeds 0..2: 6 runs" in lines[0] and "mean ± 95% CI half-width over 3 seeds" in lines[0]
    assert lines[1].split() == ["measure", "greedy", "delay", "delay", "−", "greedy"]
    row = next(line for line in lines if line.startswith("mean response (s)"))
    m = stats["measures"]["mean_response_time"]
    assert f"{m['configs']['greedy']['mean']:.2f} ± {m['configs']['greedy']['half_width']:.2f}" in row
    assert "greedy is the baseline" in result.stdout and "(noise)" in result.stdout
    assert not any(line.startswith("bin ") for line in lines)  # one row per measure, not per config×seed

    page = (out / "report.html").read_text()
    assert '<h2 id="across-seeds">Across seeds</h2>' in page
    assert 'data-plot="intervals"' in page and 'data-plot="differences"' in page
    assert "Student t, 2 degrees of freedom" in page and 'class="n noise"' in page


def test_seed_given_several_times_is_the_same_as_seeds(setup) -> None:
    result = _compare(setup, "--seed", "0", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)["statistics"]
    again = _compare(setup, "--seeds", "2", "--json")
    assert json.loads(again.stdout)["statistics"] == stats


def test_one_seed_has_no_statistics_and_seed_with_seeds_is_bad_usage(setup) -> None:
    result = _compare(setup, "--seeds", "1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert "statistics" not in data and list(data["runs"]) == ["greedy", "delay"]
    assert 'id="across-seeds"' not in (setup / "cmp" / "report.html").read_text()
    bad = _compare(setup, "--seed", "1", "--seeds", "3")
    assert bad.exit_code == 2 and "give --seed or --seeds, not both" in bad.output
    assert _compare(setup, "--seeds", "0").exit_code == 2
