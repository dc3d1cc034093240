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

from corescheduler.core.fairshare import shares_from_columns, yarn_fair_shares_many
from corescheduler.core.hints import Hint, until_starved
from corescheduler.core.model import RESOURCES, PreemptionPlan, Schedulable
from corescheduler.hookspecs import hookimpl
from corescheduler.resources import MEMORY, VCORES, Resources


def fair_order_key(s: Schedulable) -> tuple[int, float, float, str]:
    """Sort key equivalent to Hadoop's ``FairShareComparator``.

    A schedulable of weight 0 that is not below its minimum share comes after
    every one of positive weight (ratio ∞).  Hadoop divides by the weight:
    ``running / 0.0`` is ∞ when it runs something and NaN when it runs
    nothing; NaN ties on the ratio with every non-needy schedulable
    (``(int) Math.signum(NaN)`` is 0) and the comparator goes on to start time
    and name, so Hadoop may serve it first (two pools, its name first) and,
    with more pools, orders inconsistently.  Deliberate deviation
    (docs/plugins/fair.md): both cases are ∞, so a weight-0 pool is served only
    after the pools of positive weight (among themselves by start time and
    name).
    """
    min_share = min(s.min_share, s.demand)
    running = s.running
    if running < min_share:
        return (0, running / max(min_share, 1.0), s.start_time, s.name)
    weight = s.weight
    return (1, running / weight if weight > 0 else math.inf, s.start_time, s.name)


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


def resource_shares(
    schedulables: Sequence[Schedulable], total: Resources, steady: bool, types: Sequence[str]
) -> list[Resources]:
    """YARN ``ComputeFairShares`` for each of ``types`` in turn (``yarn_fair_shares``):
    fair computes memory only (``FairSharePolicy.computeShares``), DRF every type;
    a type not computed is 0.  Instantaneous shares count active schedulables only.
    One group of :func:`resource_shares_many`."""
    return resource_shares_many([(schedulables, total)], steady, types)[0]


def resource_shares_many(
    groups: Sequence[tuple[Sequence[Schedulable], Resources]], steady: bool, types: Sequence[str] | None
) -> list[list[Resources]]:
    """:func:`resource_shares` for many groups (``cs_compute_shares_many``): each type's
    column computed for every group at once by ``yarn_fair_shares_many``.  ``types``
    None: every type of each group's total (DRF)."""
    flat = [s for scheds, _ in groups for s in scheds]
    sizes = [len(scheds) for scheds, _ in groups]
    weights = [s.weight for s in flat]
    active = None if steady else [s.active for s in flat]
    if types is None:
        names: list[str] = []
        for _, total in groups:
            for name in total.names:
                if name not in names:
                    names.append(name)
        types = names
    columns: dict[str, list[int]] = {}
    for rtype in types:
        if rtype == MEMORY:
            mins = [s.min_share.memory for s in flat]
            maxes = [s.max_share.memory for s in flat]
            totals = [total.memory for _, total in groups]
        elif rtype == VCORES:
            mins = [s.min_share.vcores for s in flat]
            maxes = [s.max_share.vcores for s in flat]
            totals = [total.vcores for _, total in groups]
        else:
            mins = [s.min_share.get(rtype) for s in flat]
            maxes = [s.max_share.get(rtype) for s in flat]
            totals = [total.get(rtype) for _, total in groups]
        columns[rtype] = yarn_fair_shares_many(weights, mins, maxes, active, sizes, totals)
    zeros = [0] * len(flat)
    memory = columns.get(MEMORY, zeros)
    vcores = columns.get(VCORES, zeros)
    if all(not total.extras for _, total in groups):
        # equal shares are one (immutable) object: a level's shares take few distinct values
        if VCORES in columns:
            pairs = list(zip(memory, vcores))
            made = {p: Resources._make(*p) for p in set(pairs)}
            shares = list(map(made.__getitem__, pairs))
        else:
            made_m = {m: Resources._make(m, 0) for m in set(memory)}
            shares = list(map(made_m.__getitem__, memory))
    else:
        shares = []
        i = 0
        for scheds, total in groups:
            extras = [name for name, _ in total.extras]
            for _ in range(len(scheds)):
                extra = tuple((e, columns[e][i] if e in columns else 0) for e in extras)
                shares.append(Resources._make(memory[i], vcores[i], extra))
                i += 1
    out: list[list[Resources]] = []
    start = 0
    for size in sizes:
        out.append(shares[start:start + size])
        start += size
    return out


def yarn_fair_order_key(s: Schedulable) -> tuple[Any, ...]:
    """YARN ``FairSharePolicy.FairShareComparator`` (memory only) as a sort key:
    a schedulable with no demand after those with some; then those below
    ``min(min share, demand)`` first, the furthest below first (usage /
    max(min share, 1)); then usage / weight (weight 0: after every positive
    weight, by usage); ties by start time, then name."""
    usage = s.running.memory
    demand = s.demand
    no_demand = 1 if demand.is_none() else 0
    min_share = min(s.min_share.memory, demand.memory)
    if usage < min_share:
        return (no_demand, 0, usage / max(min_share, 1), 0.0, s.start_time, s.name)
    weight = s.weight
    if weight > 0:
        return (no_demand, 1, 0, usage / weight, s.start_time, s.name)
    return (no_demand, 1, 1, float(usage), s.start_time, s.name)


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

    @hookimpl
    def cs_preemption_hint(self, pools: Sequence[Schedulable]) -> Hint:
        """The plan above asks only for starved pools: nothing before one can be starved."""
        return until_starved(pools)
