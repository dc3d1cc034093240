"""``drf``: Dominant Resource Fairness, YARN's ``DominantResourceFairnessPolicy``.

* **Shares** — YARN's ``ComputeFairShares`` once for every resource type
  (memory, vcores, extras), each in whole units, with the same weights
  (``DominantResourceFairnessPolicy.computeShares``).
* **Order** — YARN's DRF comparator (``DominantResourceFairnessComparatorN``;
  with memory and vcores only it is ``…Comparator2``, which orders the same):
  a schedulable whose usage of its *dominant* resource (its largest share of
  the cluster) is below its min share of that resource is *needy* and comes
  first; two needy ones compare usage / min share resource by resource, from
  their dominant one down; others compare their shares of the cluster
  divided by their weight, dominant first, then the next largest, and so on;
  ties by start time, then name.  The dominant resource is chosen before
  weighting; unlike ``fair``, neediness is not capped by demand and there is
  no demand step.  Java's ``NaN`` comparisons (0 / 0 for weight 0 or min
  share 0) count as equal, as ``(int) Math.signum(NaN)`` does.
* **Slot mode** — with one resource per kind DRF is fair sharing: the
  ``fair`` policy's maths and order (Hadoop 1 had no DRF).

Allowed at any level; under a ``fair`` parent YARN refuses it
(``FairSharePolicy.isChildPolicyAllowed``), and so does the allocation file.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from corescheduler_plugins.fair import FairSharePolicy, fair_order_key, resource_shares, resource_shares_many

from corescheduler.core.model import RESOURCES, Schedulable
from corescheduler.hookspecs import hookimpl
from corescheduler.resources import Resources


def _ratio(value: float, over: float) -> float:
    """``value / over`` as Java floats divide: x / 0 is ±∞, 0 / 0 is NaN."""
    if over == 0:
        if value == 0:
            return math.nan
        return math.copysign(math.inf, value)
    return value / over


def _nan_last(x: float) -> float:
    """NaN ties with everything in YARN's comparator; as a key it sorts as 0 (the
    nearest stable stand-in: a NaN ratio means nothing used of nothing)."""
    return 0.0 if x != x else x


def drf_order_key(s: Schedulable) -> tuple[Any, ...]:
    """YARN's DRF comparator as a sort key (see the module docstring)."""
    cluster: Resources = s.cluster
    usage: Resources = s.running
    names = cluster.names
    shares = [_ratio(usage.get(n), cluster.get(n)) for n in names]
    # types by usage share, largest first; a tie keeps the lower index (memory first)
    order = sorted(range(len(names)), key=lambda i: (-_nan_last(shares[i]), i))
    dominant = names[order[0]]
    min_share: Resources = s.min_share
    needy = usage.get(dominant) < min_share.get(dominant)
    if needy:
        ratios = tuple(_nan_last(_ratio(usage.get(names[i]), min_share.get(names[i]))) for i in order)
        return (0, ratios, s.start_time, s.name)
    weight = s.weight
    weighted = tuple(_nan_last(_ratio(shares[i], weight)) for i in order)
    return (1, weighted, s.start_time, s.name)


class DominantResourceFairness:
    """Dominant resource fairness (YARN ``drf``)."""

    @hookimpl
    def cs_compute_shares(
        self, schedulables: Sequence[Schedulable], capacity: Any, kind: str, steady: bool
    ) -> list[Any]:
        if kind == RESOURCES:
            return resource_shares(schedulables, capacity, steady, capacity.names)
        return FairSharePolicy().cs_compute_shares(schedulables, capacity, kind, steady)

    @hookimpl
    def cs_compute_shares_many(
        self, groups: Sequence[tuple[Sequence[Schedulable], Any]], kind: str, steady: bool
    ) -> list[list[Any]] | None:
        if kind != RESOURCES:
            return None
        return resource_shares_many(groups, steady, None)

    @hookimpl
    def cs_order_key(self, schedulable: Schedulable) -> tuple[Any, ...]:
        if schedulable.kind == RESOURCES:
            return drf_order_key(schedulable)
        return fair_order_key(schedulable)
