"""The measures of the engines' quantities: Hadoop's ``ResourceCalculator``, and the
comparators and share searches that the built-in policies compute through them.

Slot mode (Hadoop 1) has one resource type per slot kind, so every measure is the
number itself; resource mode (YARN) measures Resources by memory only
(``DefaultResourceCalculator``) or by their dominant share of the cluster
(``DominantResourceCalculator``).  A share policy picks the measure it shares by
(:attr:`corescheduler.core.policy.SharePolicy.measure`, YARN's
``getResourceCalculator``); the engine supplies the calculator for its quantities.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, cast

from corescheduler.core.fairshare import shares_from_columns, yarn_fair_shares_many
from corescheduler.core.model import Schedulable
from corescheduler.core.resources import MEMORY, VCORES, Resources


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
    a schedulable with no demand after those with some (``compareDemand`` reads the
    demand's memory only: 0 MB and some vcores is no demand); then those below
    ``min(min share, demand)`` first, the furthest below first (usage /
    max(min share, 1)); then usage / weight (weight 0: after every positive
    weight, by usage); ties by start time, then name."""
    usage = s.running.memory
    demand = s.demand.memory
    no_demand = 1 if demand == 0 else 0
    min_share = min(s.min_share.memory, demand)
    if usage < min_share:
        return (no_demand, 0, usage / max(min_share, 1), 0.0, s.start_time, s.name)
    weight = s.weight
    if weight > 0:
        return (no_demand, 1, 0, usage / weight, s.start_time, s.name)
    return (no_demand, 1, 1, float(usage), s.start_time, s.name)



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


def drf_order_key(s: Schedulable[Resources, Any]) -> tuple[Any, ...]:
    """YARN's DRF comparator as a sort key (see the module docstring)."""
    cluster = cast(Resources, s.cluster)  # resource mode's schedulables hold the cluster's total
    usage = s.running
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


# --------------------------------------------------------------------------- calculators

#: a policy that shares by the engine's primary measure: slots, or memory (YARN ``fair``)
PRIMARY = "primary"
#: a policy that shares by the dominant share of the cluster (YARN ``drf``)
DOMINANT = "dominant"
MEASURES: tuple[str, str] = (PRIMARY, DOMINANT)

#: the Hadoop line whose rules an engine follows: slot mode Hadoop 1 (MRv1), resource mode YARN
HADOOP1 = "hadoop1"
YARN = "yarn"

#: a share group: the schedulables one parent divides, and what it divides
Group = tuple[Sequence[Schedulable], Any]


class Calculator:
    """How one engine's quantities are measured and shared (Hadoop's ``ResourceCalculator``).

    A share policy holds the calculator of its measure (:attr:`SharePolicy.calc
    <corescheduler.core.policy.SharePolicy.calc>`) and computes through it, so the same
    policy code runs on slots and on Resources.  Where Hadoop 1 and YARN define a
    behaviour differently (the fair comparator, what a FIFO queue's apps get), the
    calculator carries the engine's own version: it is the engine's lineage as much as
    its arithmetic.
    """

    #: the engine's quantity is a plain number (slot mode) or Resources
    name = "?"
    #: the Hadoop line the engine follows (:data:`HADOOP1` or :data:`YARN`): a policy ported
    #: from both lines whose rules differ beyond arithmetic (capacity's user limits count
    #: tasks in Hadoop 1, memory and the request's size in YARN) picks each line's rule by it
    lineage = "?"
    #: a zero quantity
    zero: Any = 0
    #: the fair comparator as a sort key (Hadoop 1 ``FairShareComparator`` on slots; YARN's
    #: ``FairSharePolicy.FairShareComparator`` on memory; YARN's DRF comparator)
    fair_order_key: Callable[[Schedulable], tuple[Any, ...]] = staticmethod(fair_order_key)

    def measure(self, amount: Any, cluster: Any = None) -> float:
        """The number this calculator compares ``amount`` by."""
        raise NotImplementedError

    def less_than(self, cluster: Any, a: Any, b: Any) -> bool:
        """``Resources.lessThan(calculator, cluster, a, b)``."""
        return self.measure(a, cluster) < self.measure(b, cluster)

    def of_measure(self, value: float) -> Any:
        """A quantity whose measure is ``value`` (a share computed on the measure)."""
        raise NotImplementedError

    def fair_shares(self, schedulables: Sequence[Schedulable], total: Any, steady: bool) -> list[Any]:
        """Weighted max-min fair shares of ``total`` (minimum shares, caps by demand and
        maximum share): Hadoop 1's ``computeFairShares`` on slots, YARN's
        ``ComputeFairShares`` on the measure's resource types."""
        raise NotImplementedError

    def fair_shares_many(self, groups: Sequence[Group], steady: bool) -> list[list[Any]]:
        """:meth:`fair_shares` of many groups (numpy in lockstep where it pays)."""
        return [self.fair_shares(scheds, total, steady) for scheds, total in groups]

    def in_order_shares(self, schedulables: Sequence[Schedulable], total: Any) -> list[Any]:
        """The shares of schedulables served strictly in order (a FIFO queue's apps):
        Hadoop 1 gives them none (shown n/a); YARN's ``FifoPolicy.computeShares`` gives
        the earliest the whole share (the others keep stale values in YARN; none here)."""
        return [None] * len(schedulables)


class SlotCalculator(Calculator):
    """Slot mode: one resource type per slot kind, every measure is the number itself
    (so DRF is fair sharing there, as in Hadoop 1, which had no DRF)."""

    name = "slots"
    lineage = HADOOP1
    zero = 0
    fair_order_key = staticmethod(fair_order_key)

    def measure(self, amount: Any, cluster: Any = None) -> float:
        return amount  # type: ignore[no-any-return]

    def less_than(self, cluster: Any, a: Any, b: Any) -> bool:
        return a < b  # type: ignore[no-any-return]

    def of_measure(self, value: float) -> Any:
        return value

    def fair_shares(self, schedulables: Sequence[Schedulable], total: Any, steady: bool) -> list[Any]:
        return shares_from_columns(
            [s.weight for s in schedulables],
            [s.min_share for s in schedulables],
            [min(s.demand, s.max_share) for s in schedulables],
            total,
        )


class DefaultResourceCalculator(Calculator):
    """Resource mode, memory only (YARN ``DefaultResourceCalculator``; ``fair``, ``fifo``)."""

    name = "memory"
    lineage = YARN
    zero = Resources()
    fair_order_key = staticmethod(yarn_fair_order_key)
    types: tuple[str, ...] | None = (MEMORY,)

    def measure(self, amount: Any, cluster: Any = None) -> float:
        return amount.memory  # type: ignore[no-any-return]

    def less_than(self, cluster: Any, a: Any, b: Any) -> bool:
        return a.memory < b.memory  # type: ignore[no-any-return]

    def of_measure(self, value: float) -> Any:
        return Resources._make(int(value + 1e-9), 0)

    def fair_shares(self, schedulables: Sequence[Schedulable], total: Any, steady: bool) -> list[Any]:
        return resource_shares_many([(schedulables, total)], steady, self.types)[0]

    def fair_shares_many(self, groups: Sequence[Group], steady: bool) -> list[list[Any]]:
        return resource_shares_many(groups, steady, self.types)

    def in_order_shares(self, schedulables: Sequence[Schedulable], total: Any) -> list[Any]:
        if not schedulables:
            return []
        first = min(range(len(schedulables)), key=lambda i: schedulables[i].start_time)
        return [total if i == first else None for i in range(len(schedulables))]


class DominantResourceCalculator(DefaultResourceCalculator):
    """Resource mode, every type, by the dominant share of the cluster (YARN
    ``DominantResourceCalculator``; ``drf``)."""

    name = "dominant"
    fair_order_key = staticmethod(drf_order_key)
    types = None  # every type of each group's total

    def measure(self, amount: Any, cluster: Any = None) -> float:
        return amount.dominant_share(cluster)  # type: ignore[no-any-return]

    def less_than(self, cluster: Any, a: Any, b: Any) -> bool:
        return a.dominant_share(cluster) < b.dominant_share(cluster)  # type: ignore[no-any-return]

    def fair_shares(self, schedulables: Sequence[Schedulable], total: Any, steady: bool) -> list[Any]:
        return resource_shares(schedulables, total, steady, total.names)


SLOTS = SlotCalculator()
MEMORY_CALCULATOR = DefaultResourceCalculator()
DOMINANT_CALCULATOR = DominantResourceCalculator()
#: each engine's calculators by measure (slot mode: one for both)
ENGINE_CALCULATORS: dict[str, dict[str, Calculator]] = {
    "slots": {PRIMARY: SLOTS, DOMINANT: SLOTS},
    "resources": {PRIMARY: MEMORY_CALCULATOR, DOMINANT: DOMINANT_CALCULATOR},
}
