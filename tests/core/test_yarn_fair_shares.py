"""YARN's fair-share maths in whole units (``ComputeFairShares``), cases from
``TestComputeFairShares`` (../shared/scenarios/yarn.md §A)."""

from __future__ import annotations

import math
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corescheduler.core.fairshare import LONG_MAX, java_long, yarn_fair_shares, yarn_fair_shares_many

INF = LONG_MAX


@pytest.mark.parametrize(
    ("weights", "mins", "maxes", "total", "expected"),
    [
        pytest.param([1] * 4, [0] * 4, [INF] * 4, 40, [10, 10, 10, 10], id="S1-testEqualSharing"),
        pytest.param([1] * 4, [0] * 4, [100, 50, 11, 3], 40, [13, 13, 11, 3], id="S2-testLowMaxShares"),
        pytest.param([1] * 4, [20, 18, 0, 2], [INF] * 4, 40, [20, 18, 0, 2], id="S3-testMinShares"),
        pytest.param([2, 1, 1, 0.5], [0] * 4, [INF] * 4, 45, [20, 10, 10, 5], id="S4-testWeightedSharing"),
        pytest.param([2, 1, 1, 0.5], [0] * 4, [10, 11, 30, 20], 45, [10, 11, 16, 8], id="S5-withMaxShares"),
        pytest.param([2, 1, 1, 0.5], [20, 0, 5, 15], [INF] * 4, 45, [20, 5, 5, 15], id="S6-withMinShares"),
        pytest.param([1] * 4, [0] * 4, [INF] * 4, 40_000_000, [10_000_000] * 4, id="S7-testLargeShares"),
        pytest.param([], [], [], 40, [], id="S8-testEmptyList"),
        pytest.param([1] * 3, [0] * 3, [INF] * 3, 10240, [3414] * 3, id="S11-three-queues-truncated-upper-bracket"),
    ],
)
def test_compute_fair_shares_cases(weights, mins, maxes, total, expected) -> None:
    """``ComputeFairShares.computeSharesInternal`` on one resource type."""
    assert yarn_fair_shares(weights, mins, maxes, total) == expected


def test_s9_cpu_dimension_is_computed_the_same_way() -> None:
    """``TestComputeFairShares.testCPU``: vcores with min shares 20, 0, 5, 15 and
    weights 2, 1, 1, 0.5 on 45 vcores give 20, 5, 5, 15 (the search is per type)."""
    assert yarn_fair_shares([2.0, 1.0, 1.0, 0.5], [20, 0, 5, 15], [INF] * 4, 45) == [20, 5, 5, 15]


def test_s10_huge_min_shares_terminate() -> None:
    """``testResourceUsedWithWeightToResourceRatio``: min shares of 2^31-1 on a
    cluster of 2^31-1 must not overflow or double forever (``safeAdd``)."""
    started = time.monotonic()
    shares = yarn_fair_shares([1, 1], [2**31 - 1] * 2, [INF, INF], 2**31 - 1)
    assert time.monotonic() - started < 10
    assert shares == [2**31 - 1, 2**31 - 1]


def test_fixed_shares_inactive_zero_max_and_zero_weight() -> None:
    """``getFairShareIfFixed``: max share 0 → 0; inactive (instantaneous) → 0;
    weight 0 → its min share; they are taken off the total first."""
    active = [True, True, True, False, True]
    shares = yarn_fair_shares([1, 1, 0, 1, 1], [0, 0, 7, 0, 0], [INF, 0, INF, INF, INF], 107, active=active)
    assert shares == [50, 0, 7, 0, 50]
    # steady shares ignore activity
    assert yarn_fair_shares([1, 1], [0, 0], [INF, INF], 100, active=None) == [50, 50]


def test_java_long_cast() -> None:
    assert java_long(3.99) == 3 and java_long(-3.99) == -3
    assert java_long(float("nan")) == 0
    assert java_long(1e300) == LONG_MAX and java_long(float(LONG_MAX)) == LONG_MAX
    assert java_long(-1e300) == -(2**63)


# --------------------------------------------------------------------------- many groups at once
_AMOUNTS = st.one_of(
    st.integers(0, 60_000), st.sampled_from([0, 1024, 2**50, 2**52, LONG_MAX]), st.integers(0, 2**62)
)
_WEIGHTS = st.one_of(st.sampled_from([0.0, 0.5, 1.0, 2.5, 1e-7, 1e30, 3.5e38, 1e-46]),
                     st.floats(0, 50, allow_nan=False), st.floats(0, 1e300, allow_nan=False))


@st.composite
def _groups(draw):
    groups = draw(st.lists(st.tuples(
        st.lists(st.tuples(_WEIGHTS, _AMOUNTS, _AMOUNTS, st.booleans()), min_size=1, max_size=9),
        st.one_of(st.integers(0, 10**7), st.sampled_from([0, 7, 10240, 2**55])),
    ), min_size=1, max_size=40))
    return groups


@given(_groups(), st.booleans())
@settings(max_examples=150, deadline=None)
def test_many_groups_give_each_group_s_own_answer(groups, steady) -> None:
    """``yarn_fair_shares_many`` (a tree level in numpy) equals ``yarn_fair_shares`` group by
    group: the same search, the same truncation, the same fallback for huge amounts."""
    weights = [w for items, _ in groups for w, _, _, _ in items]
    mins = [lo if i % 3 == 0 else 0 for i, (_, lo, _, _) in enumerate(it for items, _ in groups for it in items)]
    maxes = [hi for items, _ in groups for _, _, hi, _ in items]
    active = None if steady else [a for items, _ in groups for _, _, _, a in items]
    sizes = [len(items) for items, _ in groups]
    totals = [total for _, total in groups]
    expected, start = [], 0
    for size, total in zip(sizes, totals):
        end = start + size
        expected += yarn_fair_shares(
            weights[start:end], mins[start:end], maxes[start:end], total, None if active is None else active[start:end]
        )
        start = end
    assert yarn_fair_shares_many(weights, mins, maxes, active, sizes, totals) == expected


def test_many_groups_on_a_level_of_equal_queues() -> None:
    """1,000 parents of three equal queues on 10240 MB each: YARN's 3414 everywhere (the
    upper bracket), computed in one call."""
    n = 1000
    out = yarn_fair_shares_many([1.0] * 3 * n, [0] * 3 * n, [INF] * 3 * n, [True] * 3 * n, [3] * n, [10240] * n)
    assert out == [3414] * 3 * n


def test_a_huge_weight_under_an_unbounded_max_saturates_as_java_does() -> None:
    """(long) of a share of 2**63 or more is Long.MAX_VALUE in Java; numpy would wrap to
    Long.MIN_VALUE (found in review: weight 1e30, no max share, 64 groups).  A finite huge
    weight is now rescaled first (below); an infinite one (a float beyond its range) still
    gives a share of 2**63 or more."""
    n = 64
    out = yarn_fair_shares_many([math.inf] * n, [0] * n, [INF] * n, [True] * n, [1] * n, [10] * n)
    assert out == yarn_fair_shares([math.inf], [0], [INF], 10) * n == [INF] * n
    out = yarn_fair_shares_many([1e30] * n, [0] * n, [INF] * n, [True] * n, [1] * n, [10] * n)
    assert out == yarn_fair_shares([1e30], [0], [INF], 10) * n == [10] * n


def test_huge_weights_are_rescaled_keeping_ratios_and_the_total():
    """Not Hadoop's: its 25-step search hands a weight of 1e20 more than the total; the
    weights are divided by one common factor first, so ratios hold and shares fit."""
    assert yarn_fair_shares([2e6, 4e6], [0, 0], [LONG_MAX] * 2, 30) == [10, 20]
    assert yarn_fair_shares([1e38, 1.0], [0, 0], [LONG_MAX] * 2, 819200) == [819200, 0]
    assert sum(yarn_fair_shares([1e20, 1e20, 1.0], [0] * 3, [LONG_MAX] * 3, 819200)) <= 819202
    many = yarn_fair_shares_many([2e6, 4e6] * 40, [0] * 80, [LONG_MAX] * 80, None, [2] * 40, [30] * 40)
    assert many == [10, 20] * 40
