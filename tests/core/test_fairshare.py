"""compute_fair_shares: Hadoop's TestComputeFairShares (S1), the worked cases in
shared/scenarios/fair_shares.json, edge cases and hypothesis properties."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import DATA, SHARED

from corescheduler import compute_fair_shares
from corescheduler.core.fairshare import NUMPY_THRESHOLD

SCENARIOS = SHARED / "scenarios" / "fair_shares.json"
HERE_SCENARIOS = DATA / "fair_shares.json"


def items(*rows):
    """(demand, min_share=0, weight=1) tuples, as in TestComputeFairShares."""
    out = []
    for row in rows:
        demand, min_share, weight = (*row, 0, 1)[:3] if len(row) == 1 else (*row, 1)[:3]
        out.append({"demand": demand, "min_share": min_share, "weight": weight})
    return out


M = 10**6
S1 = [
    ("testEqualSharing", [(100,), (50,), (30,), (20,)], 40, [10, 10, 10, 10]),
    ("testLowDemands", [(100,), (50,), (11,), (3,)], 40, [13, 13, 11, 3]),
    ("testMinShares", [(100, 20), (10, 20), (10, 0), (3, 2)], 40, [20, 10, 7, 3]),
    ("testWeightedSharing", [(100, 0, 2), (50, 0, 1), (30, 0, 1), (20, 0, 0.5)], 45, [20, 10, 10, 5]),
    ("testWeightedSharingWithLowDemands", [(10, 0, 2), (11, 0, 1), (30, 0, 1), (20, 0, 0.5)], 45, [10, 11, 16, 8]),
    ("testWeightedSharingWithMinShares", [(10, 20, 2), (11, 0, 1), (30, 5, 1), (20, 15, 0.5)], 45, [10, 10, 10, 15]),
    ("testSmallShares", [(10,), (5,), (3,), (2,)], 1, [0.25] * 4),
    ("testLargeShares", [(100 * M,), (50 * M,), (30 * M,), (20 * M,)], 40 * M, [10 * M] * 4),
    ("testZeroDemand", [(100,), (50,), (30,), (0,)], 30, [10, 10, 10, 0]),
    ("testEmptyList", [], 40, []),
]


@pytest.mark.parametrize(("name", "rows", "capacity", "expected"), S1, ids=[c[0] for c in S1])
def test_hadoop_compute_fair_shares(name, rows, capacity, expected):
    shares = compute_fair_shares(items(*rows), capacity)
    assert shares == pytest.approx(expected, abs=0.01)


def _shared_cases():
    path = SCENARIOS if SCENARIOS.exists() else HERE_SCENARIOS
    return json.loads(path.read_text())["cases"]


@pytest.mark.parametrize("case", _shared_cases(), ids=lambda c: c["name"][:40])
def test_worked_cases(case):
    shares = compute_fair_shares(case["items"], case["capacity"])
    tol = case.get("tolerance", 1e-6)
    for item, share in zip(case["items"], shares):
        assert share == pytest.approx(case["expected"][item["name"]], abs=tol), item["name"]


def test_exact_when_demands_fit():
    # Hadoop's tests assert 2.0/1.0 exactly when every demand fits (TestFairScheduler.testSmallJobs)
    two = [{"weight": 1, "min_share": 0, "demand": 2}, {"weight": 1, "min_share": 0, "demand": 1}]
    assert compute_fair_shares(two, 4) == [2.0, 1.0]
    # min shares that fill the cluster exactly come out exactly (testLargeJobsWithPools)
    got = compute_fair_shares(
        [{"weight": 1, "min_share": 0, "demand": 10}, {"weight": 1, "min_share": 1, "demand": 10},
         {"weight": 1, "min_share": 2, "demand": 10}], 4)
    assert got == [1.0, 1.0, 2.0]


def test_all_weights_zero_gives_min_shares_not_nan():
    got = compute_fair_shares(
        [{"weight": 0, "min_share": 5, "demand": 10}, {"weight": 0, "min_share": 20, "demand": 8},
         {"weight": 0, "min_share": 0, "demand": 3}], 100)
    assert got == [5.0, 8.0, 0.0]
    assert not any(math.isnan(x) for x in got)


def test_max_share_caps_and_objects():
    class Item:
        def __init__(self, weight, min_share, demand, max_share=None):
            self.weight, self.min_share, self.demand, self.max_share = weight, min_share, demand, max_share

    got = compute_fair_shares([Item(1, 0, 100, 5), Item(1, 0, 100)], 40)
    assert got == pytest.approx([5, 35], abs=1e-6)


def test_huge_min_shares_terminate():
    # YARN testResourceUsedWithWeightToResourceRatio: must terminate, no overflow
    big = 2**31 - 1
    got = compute_fair_shares([{"weight": 1, "min_share": big, "demand": math.inf}] * 2, big)
    assert len(got) == 2 and all(math.isfinite(x) for x in got)


def test_bad_items_raise_value_error():
    with pytest.raises(ValueError, match="weight"):
        compute_fair_shares([{"weight": -1, "min_share": 0, "demand": 1}], 10)
    with pytest.raises(ValueError, match="demand"):
        compute_fair_shares([{"weight": 1, "min_share": 0}], 10)
    with pytest.raises(ValueError, match="capacity"):
        compute_fair_shares([{"weight": 1, "min_share": 0, "demand": 1}], -1)


def test_numpy_path_matches_python_path():
    rows = [
        {"weight": 1 + (i % 7) / 3, "min_share": i % 5, "demand": (i * 37) % 101} for i in range(NUMPY_THRESHOLD * 3)
    ]
    fast = compute_fair_shares(rows, 500)
    # the same items split below the threshold use the pure-Python path; compare via the ratio
    from corescheduler.core.fairshare import _slots_used, fair_share_ratio

    w = [r["weight"] for r in rows]
    lo = [r["min_share"] for r in rows]
    cap = [r["demand"] for r in rows]
    r = fair_share_ratio(w, lo, cap, 500)
    assert sum(fast) == pytest.approx(_slots_used(r, w, lo, cap), rel=1e-9)
    assert sum(fast) == pytest.approx(500, rel=1e-6)


item_st = st.fixed_dictionaries({
    "weight": st.one_of(st.just(0.0), st.floats(1e-3, 10)),
    "min_share": st.floats(0, 50, allow_nan=False),
    "demand": st.floats(0, 200, allow_nan=False),
    "max_share": st.one_of(st.none(), st.floats(0, 200, allow_nan=False)),
})


def cap_of(it):
    return min(it["demand"], math.inf if it["max_share"] is None else it["max_share"])


@settings(max_examples=300, deadline=None)
@given(st.lists(item_st, max_size=30), st.floats(0, 1000, allow_nan=False))
def test_property_bounds_and_sum(rows, capacity):
    shares = compute_fair_shares(rows, capacity)
    assert len(shares) == len(rows)
    for it, share in zip(rows, shares):
        cap = cap_of(it)
        assert min(it["min_share"], cap) - 1e-9 <= share <= cap + 1e-9
    total_caps = sum(cap_of(it) for it in rows)
    min_total = sum(min(it["min_share"], cap_of(it)) for it in rows)
    reachable = sum(cap_of(it) if it["weight"] > 0 else min(it["min_share"], cap_of(it)) for it in rows)
    if min_total <= capacity and reachable >= min(capacity, total_caps):
        assert sum(shares) == pytest.approx(min(capacity, total_caps), rel=1e-5, abs=1e-4)


@settings(max_examples=200, deadline=None)
@given(st.lists(item_st, min_size=1, max_size=20), st.floats(0, 500, allow_nan=False),
       st.integers(0, 19), st.floats(1.01, 4))
def test_property_more_weight_never_less_share(rows, capacity, index, factor):
    index %= len(rows)
    before = compute_fair_shares(rows, capacity)[index]
    heavier = [dict(r) for r in rows]
    heavier[index]["weight"] = rows[index]["weight"] * factor
    after = compute_fair_shares(heavier, capacity)[index]
    assert after >= before - 1e-4 * max(1.0, before)


def test_huge_weights_keep_their_ratios():
    assert compute_fair_shares([{"weight": 2e6, "demand": 100}, {"weight": 4e6, "demand": 100}], 30) == \
        pytest.approx([10.0, 20.0])
    shares = compute_fair_shares([{"weight": 1e38, "demand": 100}, {"weight": 1, "demand": 100}], 30)
    assert shares[0] == pytest.approx(30.0) and sum(shares) <= 30.0 + 1e-9
