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
  ``FairShareComparator`` (:func:`yarn_fair_order_key`).
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
from typing import Any

from corescheduler.core.calculator import fair_order_key, resource_shares, resource_shares_many, yarn_fair_order_key
from corescheduler.core.fairshare import shares_from_columns
from corescheduler.core.model import RESOURCES, PreemptionPlan, Schedulable
from corescheduler.hookspecs import hookimpl
from corescheduler.resources import MEMORY


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


class FairSharePolicy:
    """Weighted max-min fair sharing with minimum shares."""

    @hookimpl
    def cs_compute_shares(
        self, schedulables: Sequence[Schedulable], capacity: Any, kind: str, steady: bool
    ) -> list[Any]:
        if kind == RESOURCES:
            return resource_shares(schedulables, capacity, steady, (MEMORY,))
        return shares_from_columns(
            [s.weight for s in schedulables],
            [s.min_share for s in schedulables],
            [min(s.demand, s.max_share) for s in schedulables],
            capacity,
        )

    @hookimpl
    def cs_compute_shares_many(
        self, groups: Sequence[tuple[Sequence[Schedulable], Any]], kind: str, steady: bool
    ) -> list[list[Any]] | None:
        if kind != RESOURCES:
            return None
        return resource_shares_many(groups, steady, (MEMORY,))

    @hookimpl
    def cs_order_key(self, schedulable: Schedulable) -> tuple[Any, ...]:
        if schedulable.kind == RESOURCES:
            return yarn_fair_order_key(schedulable)
        return fair_order_key(schedulable)

    @hookimpl
    def cs_plan_preemption(self, pools: Sequence[Schedulable], kind: str, now: float) -> PreemptionPlan:
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

    #: a hint to the simulator: the plan asks for nothing while no pool is starved
    #: (``Schedulable.starved_for``), and the pools' shares follow only their weights, min
    #: and max shares and demands, not the clock; so updates may be skipped until a pool
    #: can be starved (``Simulation._starves_at``; issue 27 is to make such hints general)
    cs_plan_preemption.preempts_for_starved_only = True  # type: ignore[attr-defined]
