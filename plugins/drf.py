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

from collections.abc import Sequence
from typing import Any

from corescheduler_plugins.fair import FairSharePolicy, fair_order_key, resource_shares, resource_shares_many

from corescheduler.core.calculator import drf_order_key
from corescheduler.core.model import RESOURCES, Schedulable
from corescheduler.hookspecs import hookimpl


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
