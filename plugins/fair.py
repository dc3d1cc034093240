"""``fair``: the fair-sharing SharePolicy of the Hadoop 1.x Fair Scheduler.

* **Shares** — weighted max-min fairness with minimum shares and caps
  (:func:`corescheduler.compute_fair_shares`, Hadoop's
  ``SchedulingAlgorithms.computeFairShares``).
* **Order** — Hadoop's ``FairShareComparator``: schedulables below their
  minimum share (``running < min(min_share, demand)``) come first, the
  furthest below (running / max(min share, 1)) first; then the lowest
  running / weight; ties by start time, then name.
* **Resource mode** — YARN's ``FairSharePolicy``: shares of memory only
  (``ComputeFairShares`` in whole MB, :func:`resource_shares`) and its
  ``FairShareComparator`` (:func:`yarn_fair_order_key`).  The policy names neither
  mode: it computes through its calculator (``self.calc``, the engine's calculator of
  the primary measure), which carries each engine's comparator and share search.
* **Preemption** — Hadoop's ``tasksToPreempt``: a pool below
  ``min(min_share, demand)`` for longer than its ``minSharePreemptionTimeout``
  is owed the difference; a pool below half its fair share for longer than
  ``fairSharePreemptionTimeout`` is owed ``min(fair share, demand)`` minus
  what it runs; the amount is the larger of the two, not their sum.  Tasks
  may be taken from a pool while it runs more than its fair share.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from corescheduler.core.calculator import (  # noqa: F401  (re-exported: their home before 0.2)
    fair_order_key,
    resource_shares,
    resource_shares_many,
    yarn_fair_order_key,
)
from corescheduler.core.hints import Hint, until_starved
from corescheduler.core.model import PreemptionPlan, Schedulable
from corescheduler.core.policy import PRIMARY, SharePolicy, WeightedFairPolicy
from corescheduler.hookspecs import hookimpl


def tasks_to_preempt(s: Schedulable, now: float) -> int:
    """Tasks a pool is owed now (Hadoop ``FairScheduler.tasksToPreempt``)."""
    due_min = due_fair = 0
    if now - s.last_time_at_min_share > s.min_share_timeout:
        target = int(min(s.min_share, s.demand))
        due_min = max(0, target - s.running)
    if now - s.last_time_at_half_fair_share > s.fair_share_timeout:
        target = int(min(s.fair_share or 0.0, s.demand))
        due_fair = max(0, target - s.running)
    return max(due_min, due_fair)


class FairSharePolicy(WeightedFairPolicy):
    """Weighted max-min fair sharing with minimum shares, by the primary measure (slots;
    memory: YARN ``FairSharePolicy``, whose calculator is ``DefaultResourceCalculator``)."""

    measure = PRIMARY

    @hookimpl
    def cs_share_policy(self) -> SharePolicy:
        return self

    def allows_child(self, child_policy: str) -> bool:
        """YARN ``FairSharePolicy.isChildPolicyAllowed``: not ``drf`` under ``fair``."""
        return child_policy != "drf"

    def plan_preemption(self, pools: Sequence[Schedulable], kind: str, now: float) -> PreemptionPlan:
        needs = {}
        allowance = {}
        for s in pools:
            need = tasks_to_preempt(s, now)
            if need:
                needs[s.name] = need
            share = s.fair_share
            if share is not None and s.running > share:
                allowance[s.name] = math.ceil(s.running - share)
        return PreemptionPlan(count=sum(needs.values()), allowance=allowance, needs=needs)

    def preemption_hint(self, pools: Sequence[Schedulable], kind: str, now: float) -> Hint:
        """The plan above asks only for starved pools: nothing before one can be starved."""
        return until_starved(pools)
