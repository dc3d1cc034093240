"""Preemption for YARN's Capacity Scheduler: Hadoop's ``ProportionalCapacityPreemptionPolicy``.

A pure computation (no engine): the ``yarn_capacity`` plugin hands
:meth:`ProportionalCapacityPreemption.select` a snapshot of its queue tree
every ``monitoring_interval`` (:meth:`ProportionalCapacityPreemption.next_round`) and kills
what the round says.  It follows Hadoop 3.3's selector chain: ``FifoCandidatesSelector``;
when switched on, a second one that balances queues above their guarantees
(``preemption-to-balance-queue-after-satisfied``) and the intra-queue selector
(:mod:`corescheduler_plugins._yarn_capacity_intraqueue`); no reserved-container or
queue-priority selectors, no lazy preemption, no node partitions.  The default selector:

1. **Ideal assignment** (``PreemptableResourceCalculator.computeIdealAllocation``):
   top-down from the root, each parent's ideal amount is divided among its
   children by guaranteed capacity, unused capacity redistributed among the
   children that still ask, each capped by its maximum capacity, by
   used + pending, and (leaves) by max(used, guaranteed); a queue over its guarantee
   starts from min(guaranteed, used) per type plus what it holds untouchably
   (``AbstractPreemptableResourceCalculator.computeFixpointAllocation``,
   ``TempQueuePerPartition.offer``); zero-guarantee children share what is
   left evenly afterwards.  Over-capacity that a queue with preemption
   disabled holds stays its own (``TempQueuePerPartition.updatePreemptableExtras``).
   The least served queue is offered first, by ideal / guaranteed and the queues'
   relative priorities (``TQComparator``); a leaf is offered at most used + pending
   less what its reservations hold (``pendingDeductReserved``).
2. **How much to take back** (``TempQueuePerPartition.assignPreemption``): what a
   queue uses above max(ideal, min(used + pending, guaranteed)), scaled so a round
   asks for at most ``total_preemption_per_round`` of the cluster; a leaf is left
   alone while within ``max_ignored_over_capacity`` of its guarantee, and only
   ``natural_termination_factor`` of the rest is asked this round
   (``PreemptableResourceCalculator.calculateResToObtainByPartitionForLeafQueues``).
3. **Victims** (``FifoCandidatesSelector.selectCandidates``): from each leaf that
   must give back, the latest-submitted apps first, each app's lowest-priority then
   latest containers first (``sortContainers``), AM containers skipped and taken last, and only while more than the
   queue's AM allowance would remain.
4. **Marking and killing** (``ProportionalCapacityPreemptionPolicy.
   preemptOrkillSelectedContainerAfterWait``): a selected container is marked; one
   still selected ``max_wait_before_kill`` after its mark is killed; marks older than
   twice that are forgotten (``cleanupStaledPreemptionCandidates``).

Arithmetic is Hadoop's ``ResourceCalculator``'s: ``dominant=False`` is
``DefaultResourceCalculator`` (memory only: vcores in the results are 0),
``dominant=True`` ``DominantResourceCalculator`` over every resource type of the
cluster.  Truncations and roundings are Java's (``Resources.multiply`` truncates,
``multiplyAndNormalizeUp`` rounds half up by memory, up by type under DRF).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from attrs import define, field, frozen
from corescheduler_plugins._yarn_capacity_calc import (
    Vec,
    _add,
    _Calc,
    _cwmax0,
    _cwmin,
    _multiply,
    _sub,
    deduct_selected,
    try_preempt,
)
from corescheduler_plugins._yarn_capacity_preemption_settings import (
    PREFIX,
    PreemptionConfigError,
    PreemptionSettings,
    java_parse_double,
    java_parse_long,
    queue_preemption_disabled,
)

from corescheduler.core.javamath import java_float
from corescheduler.resources import Resources


# ---------------------------------------------------------------------------- input and output
@frozen
class ContainerView:
    """A running container as the policy sees it.  A leaf lists its containers in
    allocation order: within an app the later ones are preempted first (Hadoop sorts by
    container id, descending)."""

    id: str
    app_id: str
    #: the app's place in its leaf's ordering policy (priority, then submission under
    #: ``fifo``; memory used, then submission under ``fair``): the largest is preempted first
    #: (``OrderingPolicy.getPreemptionIterator``)
    app_order: int
    resources: Resources
    is_am: bool = False
    #: the container's request priority (Hadoop's ``Priority``: a larger number is a lower
    #: priority); within an app the largest goes first, then the latest allocated
    #: (``FifoCandidatesSelector.sortContainers``)
    priority: int = 0


@frozen
class AppView:
    """An app of a leaf as the intra-queue selector sees it (``TempAppPerPartition``): its
    ``user``, its ``priority`` (a larger number is a higher priority, as Hadoop's app
    priority), its ``order`` (submission: of equal priorities the earlier is served first,
    ``TAPriorityComparator``'s application id) and what it still asks for (``pending``, all
    of it: ``getTotalPendingRequestsPerPartition``).  Its use and AM use are its containers'."""

    id: str
    user: str
    order: int
    pending: Resources = field(factory=Resources)
    priority: int = 0


@define
class QueueView:
    """One queue of the tree, amounts absolute (already resolved against the cluster).

    ``preemption_disabled`` is the queue's effective flag (Hadoop's
    ``AbstractCSQueue.getPreemptionDisabled``: inherited from the parent unless set on
    the queue).  ``max_am_capacity`` is the AM resource a leaf keeps when its AM
    containers are taken (``FifoCandidatesSelector``'s ``maxAMCapacityForThisQueue``:
    the queue's effective capacity × ``maximum-am-resource-percent``, truncated); 0 lets
    every AM go when the queue still owes.  A leaf lists ``containers`` in allocation order;
    a parent's ``pending`` is ignored (the sum of its children's, as Hadoop's ``addChild``).

    ``reserved`` is what a leaf's reservations on nodes hold (Hadoop's
    ``ResourceUsage.getReserved``, counted in ``used`` as the scheduler counts it): the ideal
    assignment offers a leaf at most its used + pending - reserved
    (``TempQueuePerPartition.offer`` with ``pendingDeductReserved``).  ``priority`` is the
    queue's priority relative to its siblings: its ``priority`` when the parent's ordering
    policy is ``priority-utilization``, else 0 (``ProportionalCapacityPreemptionPolicy.cloneQueues``).

    For intra-queue preemption a leaf lists its ``apps`` (running and pending), each user's
    limit (``user_limits``: ``LeafQueue.getResourceLimitForAllUsers``; a user not listed has
    the queue's maximum), ``intra_queue_disabled`` (``getIntraQueuePreemptionDisabled``:
    its own or inherited switch, or ``preemption_disabled``), the scheduler's
    ``minimum_allocation`` (``LeafQueue.getMinimumAllocation``) and its ``ordering_policy``
    (``fifo`` or ``fair``: under ``fair`` and ``userlimit_first`` the intra-queue selector
    orders apps by their users' use, ``TAFairOrderingComparator``).
    """

    path: str
    guaranteed: Resources
    maximum: Resources
    used: Resources
    pending: Resources = field(factory=Resources)
    preemption_disabled: bool = False
    children: list[QueueView] = field(factory=list)
    containers: list[ContainerView] = field(factory=list)
    max_am_capacity: Resources = field(factory=Resources)
    reserved: Resources = field(factory=Resources)
    priority: int = 0
    apps: list[AppView] = field(factory=list)
    user_limits: dict[str, Resources] = field(factory=dict)
    intra_queue_disabled: bool = False
    minimum_allocation: Resources = field(factory=Resources)
    ordering_policy: str = "fifo"


@frozen
class PreemptionRound:
    """What one round decided."""

    #: containers to kill now: marked at least ``max_wait_before_kill`` ago and selected again
    kill: list[str]
    #: containers selected this round and waiting (newly marked or marked earlier)
    marked: list[str]
    #: the ideal assignment of every queue by path
    ideal: dict[str, Resources]
    #: what the round asks back from every queue by path (a leaf after the dead zone and the
    #: natural termination factor, a type it owes nothing of as 0; a parent the sum of its leaves)
    to_preempt: dict[str, Resources]


class _TempQueue:
    """``TempQueuePerPartition``: one queue's snapshot and the round's working values."""

    __slots__ = (
        "actually",
        "children",
        "containers",
        "disabled",
        "guaranteed",
        "ideal",
        "max_am",
        "maximum",
        "normalized",
        "path",
        "pending",
        "pending_deduct_reserved",
        "preemptable",
        "priority",
        "served",
        "to_be_preempted",
        "untouchable",
        "used",
        "view",
    )

    def __init__(self, view: QueueView, calc: _Calc, served: dict[str, _TempQueue] | None = None) -> None:
        self.path = view.path
        self.view = view
        #: the round's under-served queues in the order the ideal assignment met them
        #: (``addPartitionToUnderServedQueues``: a LinkedHashSet shared by the tree)
        self.served: dict[str, _TempQueue] = {} if served is None else served
        self.guaranteed = calc.vec(view.guaranteed)
        self.maximum = calc.vec(view.maximum)
        self.used = calc.vec(view.used)
        self.disabled = bool(view.preemption_disabled)
        self.children = [_TempQueue(c, calc, self.served) for c in view.children]
        self.containers = list(view.containers) if not self.children else []
        self.max_am = calc.vec(view.max_am_capacity)
        self.priority = int(view.priority)  # relativePriority
        # TempQueuePerPartition.addChild: a parent's pending (and pending less reservations)
        # is its children's; a leaf's pendingDeductReserved is
        # getTotalPendingResourcesConsideringUserLimit(..., deductReservedFromPending=true),
        # pending - reserved never below 0
        if self.children:
            self.pending = self.pending_deduct_reserved = calc.zero
        else:
            self.pending = calc.vec(view.pending)
            self.pending_deduct_reserved = _cwmax0(_sub(self.pending, calc.vec(view.reserved)))
        for child in self.children:
            self.pending = _add(self.pending, child.pending)
            self.pending_deduct_reserved = _add(self.pending_deduct_reserved, child.pending_deduct_reserved)
        self.ideal = calc.zero
        self.to_be_preempted = calc.zero
        self.actually = calc.zero
        self.untouchable = calc.zero
        self.preemptable = calc.zero
        self.normalized = [0.0] * len(calc.names)

    def walk(self) -> Iterable[_TempQueue]:
        yield self
        for child in self.children:
            yield from child.walk()


# ---------------------------------------------------------------------------- the policy
class ProportionalCapacityPreemption:
    """Hadoop's ``ProportionalCapacityPreemptionPolicy`` as a function of snapshots, with
    the marks kept between rounds (``preemptionCandidates``)."""

    def __init__(self, settings: PreemptionSettings, dominant: bool = False) -> None:
        self.settings = settings
        self.dominant = dominant
        #: container id → time it was first marked (``preemptionCandidates``)
        self._marked_at: dict[str, float] = {}
        #: the first round's time and the rounds since, for the fixed rate of the rounds
        self._first: float | None = None
        self._next = -math.inf

    def carry_on(self, old: ProportionalCapacityPreemption) -> None:
        """Take over ``old``'s marks and rate: the file was reloaded, and Hadoop's policy lives
        on through ``refreshQueues`` with its ``preemptionCandidates`` and its monitor's
        fixed rate (only the settings are read again, ``updateConfigIfNeeded``)."""
        self._marked_at = dict(old._marked_at)
        self._first = old._first
        self._next = old._next

    def next_round(self) -> float:
        """When the next round falls: ``SchedulingMonitor.serviceStart`` runs the policy at a
        fixed rate, every ``monitoring_interval`` from the first round (``-inf`` before it)."""
        return self._next

    def select(self, root: QueueView, cluster: Resources, now: float) -> PreemptionRound:
        """One round (``ProportionalCapacityPreemptionPolicy.editSchedule``) at time ``now``
        (seconds).  ``ValueError`` for a snapshot that names a queue or a container twice."""
        if not math.isfinite(now):
            raise ValueError(f"now must be a finite time in seconds, got {now!r}")
        names = cluster.names if self.dominant else ("memory-mb",)
        calc = _Calc(names, self.dominant)
        tree = _TempQueue(root, calc)
        _check(tree)
        cvec = calc.vec(cluster)
        s = self.settings
        # scheduleAtFixedRate(..., monitorInterval): the next round is the first tick of the
        # rate after this one (a tick missed while no check ran is not caught up)
        if self._first is None:
            self._first = now
        period = s.monitoring_interval
        ticks = max(1, math.floor((now - self._first) / period) + 1)
        while self._first + ticks * period <= now:
            ticks += 1
        self._next = self._first + ticks * period
        # containerBasedPreemptOrKill: totalPreemptionAllowed = cluster × per-round share, shared
        # by the selectors in turn; each container keeps its selector's wait before the kill
        allowed = [_multiply(cvec, s.total_preemption_per_round)]
        # FifoCandidatesSelector(this, false, false)
        _compute_ideal_allocation(calc, tree, cvec, allowed[0], s, balance=False)
        selected = _select_candidates(calc, tree, cvec, allowed, set(), s.conservative_drf)
        waits = dict.fromkeys(selected, s.max_wait_before_kill)
        if s.balance_after_satisfied:
            # FifoCandidatesSelector(this, false, true) with setMaximumKillWaitTime: the ideal
            # computed again without the leaf's max(used, guaranteed) cap, less what is selected
            # (deductPreemptableResourcesBasedSelectedCandidates), then more victims
            _compute_ideal_allocation(calc, tree, cvec, allowed[0], s, balance=True)
            deduct_selected(calc, tree, cvec, selected)
            more = _select_candidates(calc, tree, cvec, allowed, set(selected), s.conservative_drf)
            # PreemptionCandidatesSelector.getMaximumKillWaitTimeMs: its own wait when above 0
            wait = s.balance_max_wait_before_kill or s.max_wait_before_kill
            waits.update(dict.fromkeys(more, wait))
            selected = selected + more
        if s.intra_queue_enabled:  # IntraQueueCandidatesSelector, the policy's own wait
            from corescheduler_plugins._yarn_capacity_intraqueue import select_intra_queue

            more = select_intra_queue(calc, tree, cvec, allowed, selected, s)
            waits.update(dict.fromkeys(more, s.max_wait_before_kill))
            selected = selected + more
        ideal = {q.path: calc.res(q.ideal) for q in tree.walk()}
        to_preempt = {path: calc.res(v) for path, v in _leaf_sums(tree).items()}
        if s.observe_only:  # containerBasedPreemptOrKill returns before any action
            return PreemptionRound(kill=[], marked=[], ideal=ideal, to_preempt=to_preempt)
        kill: list[str] = []
        marked: list[str] = []
        # preemptOrkillSelectedContainerAfterWait
        for cid in selected:
            since = self._marked_at.get(cid)
            if since is not None and since + waits[cid] <= now:
                kill.append(cid)
                del self._marked_at[cid]
            else:
                if since is None:
                    self._marked_at[cid] = now
                marked.append(cid)
        # cleanupStaledPreemptionCandidates: marks not renewed within 2 × max_wait are forgotten
        horizon = 2 * s.max_wait_before_kill
        for cid in [c for c, t in self._marked_at.items() if t + horizon < now]:
            del self._marked_at[cid]
        return PreemptionRound(kill=kill, marked=marked, ideal=ideal, to_preempt=to_preempt)

    def marked_since(self) -> dict[str, float]:
        """The marks kept between rounds: container id → time of its mark."""
        return dict(self._marked_at)

    def forget(self, container_ids: Iterable[str]) -> None:
        """Drop the marks of containers that ended (the caller may; Hadoop lets them age out)."""
        for cid in container_ids:
            self._marked_at.pop(cid, None)


def _check(tree: _TempQueue) -> None:
    paths: set[str] = set()
    ids: set[str] = set()
    for q in tree.walk():
        if q.path in paths:
            raise ValueError(f"queue {q.path!r} appears twice in the preemption snapshot")
        paths.add(q.path)
        for c in q.containers:
            if c.id in ids:
                raise ValueError(f"container {c.id!r} appears twice in the preemption snapshot")
            ids.add(c.id)


def _leaf_sums(root: _TempQueue) -> dict[str, Vec]:
    """What each queue is asked to give back: a leaf's ``actuallyToBePreempted`` with the
    types it owes nothing of (Hadoop's negative components, under DRF) shown as 0; a parent
    the sum of its leaves."""
    out: dict[str, Vec] = {}

    def visit(q: _TempQueue) -> Vec:
        total = _cwmax0(q.actually)
        for child in q.children:
            total = _add(total, visit(child))
        out[q.path] = total
        return total

    visit(root)
    return out


# -- PreemptableResourceCalculator.computeIdealAllocation
def _compute_ideal_allocation(calc: _Calc, root: _TempQueue, cluster: Vec, allowed: Vec,
                              s: PreemptionSettings, balance: bool) -> None:
    _update_preemptable_extras(calc, root, cluster)
    root.ideal = root.guaranteed  # TempQueuePerPartition.initializeRootIdealWithGuarangeed
    _recursively_compute_ideal(calc, root, allowed, balance)
    # calculateResToObtainByPartitionForLeafQueues
    for q in root.walk():
        if q.children or q.disabled:
            continue
        if calc.gt(cluster, q.used, _multiply(q.guaranteed, 1.0 + s.max_ignored_over_capacity)):
            res = q.to_be_preempted
            if calc.gt(cluster, res, calc.zero):
                res = calc.multiply_normalize_up(res, [s.natural_termination_factor] * len(res))
            q.actually = res
        else:
            q.actually = calc.zero


def _update_preemptable_extras(calc: _Calc, q: _TempQueue, cluster: Vec) -> None:
    """``TempQueuePerPartition.updatePreemptableExtras``, children first."""
    for child in q.children:
        _update_preemptable_extras(calc, child, cluster)
    extra = _sub(q.used, q.guaranteed)
    if calc.lt(cluster, extra, calc.zero):
        extra = calc.zero
    if not q.children:
        q.untouchable, q.preemptable = (extra, calc.zero) if q.disabled else (calc.zero, extra)
        return
    children = calc.zero
    for child in q.children:
        children = _add(children, child.preemptable)
    q.untouchable = calc.zero if calc.compare(cluster, children, extra) >= 0 else _sub(extra, children)
    q.preemptable = calc.vmin(cluster, children, extra)


def _recursively_compute_ideal(calc: _Calc, q: _TempQueue, allowed: Vec, balance: bool) -> None:
    """``PreemptableResourceCalculator.recursivelyComputeIdealAssignment``."""
    if q.children:
        _compute_ideal_distribution(calc, q.children, allowed, q.ideal, balance)
        for child in q.children:
            _recursively_compute_ideal(calc, child, allowed, balance)


def _compute_ideal_distribution(calc: _Calc, queues: list[_TempQueue], allowed: Vec, tot: Vec,
                                balance: bool) -> None:
    """``PreemptableResourceCalculator.computeIdealResourceDistribution`` of one level."""
    unassigned = [tot]
    nonzero = [q for q in queues if calc.gt(tot, q.guaranteed, calc.zero)]
    zero = [q for q in queues if not calc.gt(tot, q.guaranteed, calc.zero)]
    _fixpoint(calc, tot, nonzero, unassigned, False, balance)
    if zero and calc.gt(tot, unassigned[0], calc.zero):
        _fixpoint(calc, tot, zero, unassigned, True, balance)
    needed = calc.zero
    for q in queues:
        if calc.gt(tot, q.used, q.ideal):
            needed = _add(needed, _sub(q.used, q.ideal))
    scaling = 1.0
    if calc.gt(tot, needed, allowed):
        scaling = calc.divide(tot, allowed, needed)
    for q in queues:  # TempQueuePerPartition.assignPreemption (no killable containers)
        total = _add(q.used, q.pending)
        minimum = calc.vmax(tot, calc.vmin(tot, total, q.guaranteed), q.ideal)
        if calc.gt(tot, q.used, minimum):
            q.to_be_preempted = _multiply(_sub(q.used, minimum), scaling)
        else:
            q.to_be_preempted = calc.zero


def _need_key(calc: _Calc, tot: Vec, q: _TempQueue) -> tuple[bool, int, float]:
    """``AbstractPreemptableResourceCalculator.TQComparator``: by ideal / guaranteed through
    ``PriorityUtilizationQueueOrderingPolicy.compare`` — of two queues of the same relative
    priority the less served first; of different priorities, when both are under (or both at
    or over) their guarantee the higher priority first, else the one under it.  As a sort key:
    (at or over, -priority, pct), the smallest first."""
    pct = _pct_of_guaranteed(calc, tot, q)
    return (pct >= 1.0, -q.priority, pct)


def _pct_of_guaranteed(calc: _Calc, tot: Vec, q: _TempQueue) -> float:
    """``TQComparator.getIdealPctOfGuaranteed``: ideal / guaranteed, zero guarantees last."""
    if calc.gt(tot, q.guaranteed, calc.zero):
        pct = calc.divide(tot, q.ideal, q.guaranteed)
        return math.inf if math.isnan(pct) else pct  # Double.compare puts NaN last
    return float(2**31 - 1)


def _fixpoint(calc: _Calc, tot: Vec, queues: list[_TempQueue], unassigned: list[Vec],
              ignore_guarantee: bool, balance: bool) -> None:
    """``AbstractPreemptableResourceCalculator.computeFixpointAllocation`` (Hadoop 3.3).

    ``unassigned`` is a one-element box standing for the caller's mutable ``Resource``.
    Hadoop subtracts from that object until the loop's first
    ``unassigned = Resources.componentwiseMax(unassigned, none)`` rebinds its local name to
    a copy; the caller (deciding whether zero-guarantee queues get anything) sees only the
    subtractions made before that, and so does this port.
    """
    ordered: list[_TempQueue] = []
    for q in queues:
        # over its guarantee: min(guarantee, used) plus what cannot be taken; else what it uses
        if calc.gt(tot, q.used, q.guaranteed):
            q.ideal = _add(_cwmin(q.guaranteed, q.used), q.untouchable)
        else:
            q.ideal = q.used
        unassigned[0] = _sub(unassigned[0], q.ideal)
        if calc.lt(tot, q.ideal, _add(q.used, q.pending)):
            ordered.append(q)
    local = unassigned[0]
    shared = True  # still the caller's object
    rounds = 0
    while ordered and calc.gt(tot, local, calc.zero):
        rounds += 1
        if rounds > 1_000_000:  # a guard against a loop that cannot end; Hadoop's always does
            break
        _reset_capacity(ordered, ignore_guarantee)
        keys = [_need_key(calc, tot, q) for q in ordered]
        low = min(keys)
        underserved = [q for q, k in zip(ordered, keys, strict=True) if k == low]
        rest = [(k, q) for q, k in zip(ordered, keys, strict=True) if k != low]
        ordered = [q for _, q in rest]
        # getMostUnderservedQueues: the queues taken, and the one peeked after them
        for q in underserved:
            q.served.setdefault(q.path, q)
        if rest:
            peek = min(rest, key=lambda kq: kq[0])[1]
            peek.served.setdefault(peek.path, peek)
        for_the_round = local  # dupUnassignedForTheRound
        for sub in underserved:
            if not calc.any_above_zero(local):
                break
            avail = _cwmin(calc.multiply_normalize_up(for_the_round, sub.normalized), local)
            done = _offer(calc, sub, avail, tot, balance)
            if calc.gt(tot, done, calc.zero):
                ordered.append(sub)
            local = _sub(local, done)
            if shared:
                unassigned[0] = local
                shared = False
            local = _cwmax0(local)
    # what is still in orderedByNeed is under-served too
    for q in sorted(ordered, key=lambda q: _need_key(calc, tot, q)):
        q.served.setdefault(q.path, q)


def _reset_capacity(queues: list[_TempQueue], ignore_guarantee: bool) -> None:
    """``AbstractPreemptableResourceCalculator.resetCapacity``: each queue's share of the
    active queues' guarantees, type by type (a Java float); evenly when ignoring them."""
    if ignore_guarantee:
        share = java_float(1.0 / len(queues))
        for q in queues:
            q.normalized = [share] * len(q.normalized)
        return
    active = queues[0].guaranteed
    for q in queues[1:]:
        active = _add(active, q.guaranteed)
    for q in queues:
        q.normalized = [
            java_float(java_float(float(n)) / d) if d != 0 else old
            for n, d, old in zip(q.guaranteed, active, q.normalized, strict=True)
        ]


def _offer(calc: _Calc, q: _TempQueue, avail: Vec, tot: Vec, balance: bool) -> Vec:
    """``TempQueuePerPartition.offer`` (Hadoop 3.3; ``balance``:
    ``allowQueueBalanceAfterAllSafisfied``, no leaf cap at max(used, guaranteed)):
    accept what the queue can take of ``avail``; returns what it accepted (Hadoop returns
    the rest; the caller subtracts).  Under ``FifoCandidatesSelector``
    (``considersReservedResource`` false) a queue wants used + pending less what its
    reservations hold, so a reserved ask does not preempt for itself again and again."""
    headroom = _cwmax0(_sub(q.maximum, q.ideal))
    wants = _sub(_add(q.used, q.pending_deduct_reserved), q.ideal)
    accepted = _cwmin(headroom, calc.vmin(tot, avail, wants))
    if not q.children and not balance:  # filterByMaxDeductAssigned
        room = calc.vmax(tot, _sub(calc.vmax(tot, q.used, q.guaranteed), q.ideal), calc.zero)
        accepted = calc.vmin(tot, accepted, room)
    accepted = _cwmin(_cwmax0(accepted), avail)  # never below 0 nor more than offered
    q.ideal = _add(q.ideal, accepted)
    return accepted


# -- FifoCandidatesSelector.selectCandidates
def _over_capacity_order(calc: _Calc, cluster: Vec, leaves: list[_TempQueue]) -> list[_TempQueue]:
    """Leaves from the most over capacity (used / guaranteed) down; Hadoop walks a hash set."""
    def key(q: _TempQueue) -> float:
        ratio = calc.divide(cluster, q.used, q.guaranteed)
        return math.inf if math.isnan(ratio) else ratio
    return sorted(leaves, key=key, reverse=True)


def _select_candidates(calc: _Calc, root: _TempQueue, cluster: Vec, allowed: list[Vec], already: set[str],
                       conservative: bool) -> list[str]:
    """Victims from every leaf that must give back; ``allowed`` is the round's remaining
    allowance in a one-element box (``totalPreemptionAllowed``, shared by all leaves and
    selectors); containers in ``already`` (earlier selectors') are skipped
    (``isContainerAlreadySelected``)."""
    selected: list[str] = []
    leaves = [q for q in root.walk() if not q.children and not q.disabled]
    for leaf in _over_capacity_order(calc, cluster, leaves):
        if not calc.gt(cluster, leaf.actually, calc.zero):  # getResToObtainByPartitionForLeafQueue
            continue
        box: list[Any] = [leaf.actually]
        apps: dict[str, list[ContainerView]] = {}
        for c in leaf.containers:
            apps.setdefault(c.app_id, []).append(c)
        # the ordering policy's preemption iterator: the latest apps first
        order = sorted(apps, key=lambda a: (apps[a][0].app_order, a), reverse=True)
        skipped: list[ContainerView] = []
        skipped_size = calc.zero
        for app in order:
            if box[0] is None:
                break
            # preemptFrom after sortContainers: the lowest priority (largest number) first, then
            # the latest allocated (Hadoop: the largest container id)
            ranked = sorted(enumerate(apps[app]), key=lambda ic: (ic[1].priority, ic[0]), reverse=True)
            for _, c in ranked:
                if box[0] is None:
                    break
                if c.id in already:
                    continue
                if c.is_am:  # AM containers are saved for later
                    skipped.append(c)
                    skipped_size = _add(skipped_size, calc.vec(c.resources))
                    continue
                try_preempt(calc, cluster, box, c, allowed, selected, conservative)
        # preemptAMContainers: AMs too, while more than the queue's AM allowance remains
        for c in skipped:
            if box[0] is None or calc.compare(cluster, skipped_size, leaf.max_am) <= 0:
                break
            if try_preempt(calc, cluster, box, c, allowed, selected, conservative):
                skipped_size = _sub(skipped_size, calc.vec(c.resources))
    return selected


__all__ = [
    "PREFIX",
    "AppView",
    "ContainerView",
    "PreemptionConfigError",
    "PreemptionRound",
    "PreemptionSettings",
    "ProportionalCapacityPreemption",
    "QueueView",
    "java_parse_double",
    "java_parse_long",
    "queue_preemption_disabled",
]
