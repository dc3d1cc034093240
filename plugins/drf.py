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

from corescheduler.core.calculator import drf_order_key  # noqa: F401  (re-exported: its home before 0.2)
from corescheduler.core.policy import DOMINANT, SharePolicy, WeightedFairPolicy
from corescheduler.hookspecs import hookimpl


class DominantResourceFairness(WeightedFairPolicy):
    """Dominant resource fairness (YARN ``drf``): the fair policy's maths by the dominant
    measure (``DominantResourceCalculator``); on slots the two measures are one."""

    measure = DOMINANT

    @hookimpl
    def cs_share_policy(self) -> SharePolicy:
        return self
