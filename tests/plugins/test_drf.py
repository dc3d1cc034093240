"""The ``drf`` policy: YARN's DRF comparator (../shared/scenarios/yarn.md S41, from
``TestDominantResourceFairnessPolicy``) and per-type shares."""

from __future__ import annotations

import pytest
from corescheduler_plugins.drf import DominantResourceFairness, drf_order_key

from corescheduler.core.model import RESOURCES, Schedulable
from corescheduler.core.policy import calculators
from corescheduler.resources import Resources as R


def sched(usage: R, cluster: R, weight: float = 1.0, minimum: R | None = None, name: str = "s") -> Schedulable:
    s = Schedulable(name=name, kind=RESOURCES, owner=None, weight=weight, min_share=minimum or R(),
                    running=usage, start_time=0.0)
    s.cluster = cluster
    return s


@pytest.mark.parametrize(
    ("cluster", "s1", "s2", "first"),
    [
        pytest.param(R(8000, 4), dict(usage=R(1000, 1)), dict(usage=R(2000, 1)), True, id="testSameDominantResource"),
        pytest.param(R(8000, 8), dict(usage=R(4000, 3)), dict(usage=R(2000, 5)), True,
                     id="testDifferentDominantResource"),
        pytest.param(R(8000, 8), dict(usage=R(2000, 5), minimum=R(0, 6)), dict(usage=R(4000, 3)), True,
                     id="testOneIsNeedy"),
        pytest.param(R(8000, 100), dict(usage=R(2000, 5)), dict(usage=R(4000, 3)), True, id="testBothAreNeedy-a"),
        pytest.param(R(8000, 100), dict(usage=R(2000, 5), minimum=R(3000, 6)),
                     dict(usage=R(4000, 3), minimum=R(5000, 4)), True, id="testBothAreNeedy-b"),
        pytest.param(R(8000, 8), dict(usage=R(3000, 1), weight=2), dict(usage=R(2000, 1)), True,
                     id="testEvenWeightsSameDominantResource-1"),
        pytest.param(R(8000, 8), dict(usage=R(1000, 3), weight=2), dict(usage=R(1000, 2)), True,
                     id="testEvenWeightsSameDominantResource-2"),
        pytest.param(R(8000, 8), dict(usage=R(1000, 3), weight=2), dict(usage=R(2000, 1)), True,
                     id="testEvenWeightsDifferentDominantResource-1"),
        pytest.param(R(8000, 8), dict(usage=R(3000, 1), weight=2), dict(usage=R(1000, 2)), True,
                     id="testEvenWeightsDifferentDominantResource-2"),
        pytest.param(R(4000, 5), dict(usage=R(2000, 1)), dict(usage=R(1000, 2)), False,
                     id="testCompareSchedulablesWithClusterResourceChanges-small"),
        pytest.param(R(8000, 6), dict(usage=R(2000, 1)), dict(usage=R(1000, 2)), True,
                     id="testCompareSchedulablesWithClusterResourceChanges-large"),
    ],
)
def test_s41_drf_comparator(cluster: R, s1: dict, s2: dict, first: bool) -> None:
    """``DominantResourceFairnessComparator``: < 0 means s1 is served first."""
    a = drf_order_key(sched(cluster=cluster, name="a", **s1))
    b = drf_order_key(sched(cluster=cluster, name="b", **s2))
    assert (a < b) is first


def test_drf_computes_every_resource_type() -> None:
    """``DominantResourceFairnessPolicy.computeShares``: each type on its own (fair: memory only)."""
    cluster = R(8192, 8)
    scheds = [sched(R(), cluster, name=n) for n in "ab"]
    for s in scheds:
        s.max_share = R.unbounded()
        s.demand = R(8192, 8)
    policy = DominantResourceFairness()
    policy.initialize(calculators("resources"))
    shares = policy.compute_shares(scheds, cluster, False)
    assert shares == [R(4096, 4), R(4096, 4)]
