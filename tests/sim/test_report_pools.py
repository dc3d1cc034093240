"""report.html's "Response time by pool": the pools with the most jobs by name, the rest as
one "other" line, readable beside each other (issue 30 item 5)."""

from __future__ import annotations

import re

from corescheduler.sim.report import MIN_CDF_JOBS, _cdf_pool_groups, render_report


def _metrics(pools: dict[str, int]) -> dict:
    jobs = []
    for name, n in pools.items():
        jobs += [{"id": f"{name}-{i}", "pool": name, "size_bin": "1", "response_time": 10.0 + 3 * i + len(name)}
                 for i in range(n)]
    jobs.append({"id": "unfinished", "pool": "ghost", "size_bin": "1", "response_time": None})
    used = {name: {"slot_seconds_map": 1000.0 / (1 + i), "slot_seconds_reduce": 0.0}
            for i, name in enumerate(reversed(list(pools)))}  # slot-seconds rank the pools the other way round
    timeline = {"time": [0.0, 1.0], "utilization": {"map": [0.5, 0.5], "reduce": [0.1, 0.1]}}
    return {"summary": {}, "jobs": jobs, "pools": used, "bins": {"1": {}}, "timeline": timeline}


def _cdf_svg(page: str) -> str:
    return re.search(r'<figure data-plot="cdf-pool">(<svg.*?</svg>)', page, re.S).group(1)


MIX = {"etl": 40, "adhoc": 20, "reports": 10, **{f"team{i}": 6 for i in range(8)},
       **{f"solo{i}": 1 for i in range(30)}}


def test_top_pools_by_jobs_and_the_rest_as_other() -> None:
    shown, other = _cdf_pool_groups([("run", _metrics(MIX))])
    assert shown[:3] == ["etl", "adhoc", "reports"] and len(shown) == 7
    assert all(MIX[name] >= MIN_CDF_JOBS for name in shown)
    assert other == set(MIX) - set(shown) and "solo0" in other
    svg = _cdf_svg(render_report([("run", _metrics(MIX))]))
    assert "etl (40 jobs)" in svg and "adhoc (20 jobs)" in svg and "reports (10 jobs)" in svg
    assert "other 34 pools (54 jobs)" in svg
    assert "solo" not in svg and "ghost" not in svg  # one-job pools never get a line of their own


def test_a_pool_per_job_is_one_line_for_all_pools() -> None:
    svg = _cdf_svg(render_report([("run", _metrics({f"pool{i:02d}": 1 for i in range(100)}))]))
    assert "all 100 pools (100 jobs)" in svg and "pool07" not in svg and "other" not in svg


def test_few_big_pools_are_all_shown() -> None:
    shown, other = _cdf_pool_groups([("run", _metrics({"a": 8, "b": 5}))])
    assert shown == ["a", "b"] and other == set()


def test_compare_panels_use_the_same_groups() -> None:
    runs = [("x", _metrics(MIX)), ("y", _metrics(MIX))]
    shown, other = _cdf_pool_groups(runs)
    assert shown[:3] == ["etl", "adhoc", "reports"] and "solo3" in other
    svg = _cdf_svg(render_report(runs))
    assert ">etl<" in svg and "other 34 pools" in svg and "solo" not in svg
