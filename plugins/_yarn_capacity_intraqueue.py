"""Intra-queue preemption for YARN's Capacity Scheduler: Hadoop 3.3's
``IntraQueueCandidatesSelector`` with ``FifoIntraQueuePreemptionPlugin``.

Runs after the inter-queue selectors when
``yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.enabled`` is true
(:meth:`corescheduler_plugins._yarn_capacity_preemption.ProportionalCapacityPreemption.select`).
Within each under-served leaf (``getUnderServedQueuesPerPartition``, in the order the ideal
assignment met them) used at least ``minimum-threshold`` of its guarantee:

1. **Ideal per app** (``calculateIdealAssignedResourcePerApp``): the leaf's use less what it
   gives other queues and less its AM containers is handed out from the highest-priority
   app down (of equal priorities the earlier first), each app at most its use (AMs aside) +
   pending less what is already selected from it, each user at most its user limit (less
   its AMs); what an app gets above its use it needs from the others.  In a leaf whose
   ordering policy is ``fair``, under ``userlimit_first``, the apps go in
   ``TAFairOrderingComparator``'s order instead: the least used user's first (use less AMs),
   one user's apps from the one using the least memory.
2. **What each app may give** (``calculateToBePreemptedResourcePerApp``): from the
   lowest-priority app up, its use above its ideal, less what is selected and its AMs
   (``userlimit_first``: less one minimum allocation too), within min(``max-allowable-limit``
   × guarantee less what the leaf gives other queues, the round's remaining allowance).
3. **Demand met across priorities** (``validateOutSameAppPriorityFromDemand``): from the
   highest-priority app with a need down, the lower apps' offers are taken — not from an
   app of the same user and no lower priority; under ``userlimit_first`` not from another
   user still within its limit; from another user of the same priority at most what it
   holds above its limit.
4. **Victims** (``preemptFromLeastStarvedApp``): the apps with something to give, lowest
   priority first, their lowest-priority then latest containers, AMs spared, already
   selected ones skipped; under ``userlimit_first`` an app stops at the container that would
   take its user to its limit or below (``skipContainerBasedOnIntraQueuePolicy``);
   ``intra-queue-preemption.conservative-drf`` (default true) as the cross-queue switch.

Amounts are vectors of :mod:`corescheduler_plugins._yarn_capacity_calc`.
"""

from __future__ import annotations

from functools import cmp_to_key
from typing import Any

from corescheduler_plugins._yarn_capacity_calc import Vec, _add, _Calc, _multiply, _sub, try_preempt

USERLIMIT_FIRST = "userlimit_first"


def _nonneg_sub(a: Vec, b: Vec) -> Vec:
    """``Resources.subtractFromNonNegative``: type by type, never below 0."""
    return tuple(x - y if x > y else 0 for x, y in zip(a, b, strict=True))


class _TempApp:
    """``TempAppPerPartition``."""

    __slots__ = ("actually", "am_used", "containers", "from_other", "id", "ideal", "order", "pending",
                 "priority", "selected", "to_be_preempted", "used", "user")

    def __init__(self, view: Any, containers: list[Any], calc: _Calc) -> None:
        self.id = view.id
        self.user = view.user
        self.priority = int(view.priority)
        self.order = view.order
        self.containers = containers
        used = am = calc.zero
        for c in containers:
            size = calc.vec(c.resources)
            used = _add(used, size)
            if c.is_am:  # getAMResource, unless still waiting for its AM container
                am = _add(am, size)
        self.used = used
        self.am_used = am
        self.pending = calc.vec(view.pending)
        self.ideal = self.selected = self.to_be_preempted = self.actually = self.from_other = calc.zero

    def used_deduct_am(self) -> Vec:
        return _sub(self.used, self.am_used)


class _TempUser:
    """``TempUserPerPartition``."""

    __slots__ = ("am_used", "ideal", "limit", "quota_done", "selected", "used")

    def __init__(self, used: Vec, am_used: Vec, limit: Vec, zero: Vec) -> None:
        self.used = used
        self.am_used = am_used
        self.limit = _sub(limit, am_used)  # real AM use does not count towards the user limit
        self.ideal = self.selected = zero
        self.quota_done = False

    def used_deduct_am(self) -> Vec:
        return _sub(self.used, self.am_used)

    def limit_reached(self, calc: _Calc, cluster: Vec) -> bool:  # isUserLimitReached
        return calc.gt(cluster, self.used_deduct_am(), self.limit)


class _LeafState:
    """What ``computeAppsIdealAllocation`` leaves on a ``TempQueuePerPartition``: its apps
    from the lowest priority up (``addAllApps``) and its users (``usersPerPartition``)."""

    __slots__ = ("apps", "users")

    def __init__(self) -> None:
        self.apps: list[_TempApp] = []
        self.users: dict[str, _TempUser] = {}


def select_intra_queue(calc: _Calc, root: Any, cluster: Vec, allowed: list[Vec], selected: list[str],
                       s: Any) -> list[str]:
    """``IntraQueueCandidatesSelector.selectCandidates``: the containers it selects this round,
    after ``selected`` (the earlier selectors'); ``allowed`` is the round's remaining allowance
    in a one-element box, shared with them."""
    chosen = set(selected)
    leaves = [q for q in root.served.values() if not q.children]
    states: dict[str, _LeafState] = {}
    # 1. computeIntraQueuePreemptionDemand
    for tq in leaves:
        reassignable = _sub(tq.used, tq.actually)
        if _used_capacity(calc, cluster, tq) < s.intra_queue_minimum_threshold:
            continue
        state = _compute_apps_ideal(calc, cluster, tq, chosen, allowed[0], reassignable, s)
        if state is not None:
            states[tq.path] = state
    # 2. deductPreemptableResourcesBasedSelectedCandidates: off the queue and each of its apps
    where = {c.id: (q, calc.vec(c.resources)) for q in root.walk() for c in q.containers}
    for cid in selected:
        q, size = where[cid]
        q.actually = _deducted(calc, cluster, q.actually, size)
        for app in states[q.path].apps if q.path in states else ():
            app.actually = _deducted(calc, cluster, app.actually, size)
    # 3.-7. from the most under-served leaf, the apps that give, lowest priority first
    picked: list[str] = []
    for tq in leaves:
        if tq.disabled or tq.view.intra_queue_disabled:
            continue
        state = states.get(tq.path) or _LeafState()
        demand = calc.zero
        for app in state.apps:  # getResourceDemandFromAppsPerQueue
            demand = _add(demand, app.actually)
        box: list[Any] = [demand]
        rolling: dict[str, Vec] = {}  # initializeUsageAndUserLimitForCompute
        users = {a.id: str(a.user) for a in tq.view.apps}
        for c in tq.containers:
            user = users.get(c.app_id, "")
            rolling[user] = _add(rolling.get(user, calc.zero), calc.vec(c.resources))
        for app in state.apps:  # getPreemptableApps
            if app.actually == calc.zero:
                continue
            _preempt_from_least_starved(calc, cluster, state, app, chosen, allowed, box, rolling, s, picked)
    return picked


def _used_capacity(calc: _Calc, cluster: Vec, tq: Any) -> float:
    """``QueueCapacities.getUsedCapacity``: used / guaranteed (``CSQueueUtils``), 0 without a guarantee."""
    if not calc.gt(cluster, tq.guaranteed, calc.zero):
        return 0.0
    return calc.divide(cluster, tq.used, tq.guaranteed)


def _deducted(calc: _Calc, cluster: Vec, actually: Vec, size: Vec) -> Vec:
    """``deductActuallyToBePreempted``: only while larger than the container, never below 0."""
    if calc.gt(cluster, actually, size):
        actually = _sub(actually, size)
    return calc.vmax(cluster, actually, calc.zero)


def _compute_apps_ideal(calc: _Calc, cluster: Vec, tq: Any, chosen: set[str], allowed: Vec,
                        reassignable: Vec, s: Any) -> _LeafState | None:
    """``FifoIntraQueuePreemptionPlugin.computeAppsIdealAllocation``; None for a leaf of one
    app (nothing is computed for it)."""
    view = tq.view
    by_app: dict[str, list[Any]] = {}
    for c in tq.containers:
        by_app.setdefault(c.app_id, []).append(c)
    apps = [_TempApp(a, by_app.get(a.id, []), calc) for a in view.apps]
    # 1. calculateUsedAMResourcesPerQueue: AM containers are frozen
    per_user_am: dict[str, Vec] = {}
    for app in apps:
        per_user_am[app.user] = _add(per_user_am.get(app.user, calc.zero), app.am_used)
        reassignable = _sub(reassignable, app.am_used)
    if len(apps) == 1:  # no preemption within a single app
        return None
    # 3. createTempAppForResCalculation: the users with their limits
    state = _LeafState()
    for app in apps:
        if app.user not in state.users:
            used = calc.zero
            for other in apps:
                if other.user == app.user:
                    used = _add(used, other.used)
            limit = view.user_limits.get(app.user)
            state.users[app.user] = _TempUser(used, per_user_am.get(app.user, calc.zero),
                                              tq.maximum if limit is None else calc.vec(limit), calc.zero)
    # 4. calculateIdealAssignedResourcePerApp: from the highest priority (TAPriorityComparator:
    # of equal priorities the earlier app first); under a fair leaf and userlimit_first from the
    # least used user (TAFairOrderingComparator)
    if view.ordering_policy == "fair" and s.intra_queue_order == USERLIMIT_FIRST:
        high_to_low = _fair_order(calc, cluster, apps, state)
    else:
        high_to_low = sorted(apps, key=lambda a: (-a.priority, a.order, a.id))
    for app in high_to_low:
        if calc.compare(cluster, reassignable, calc.zero) <= 0 or any(x == 0 for x in reassignable):
            continue
        user = state.users[app.user]
        for c in app.containers:  # getAlreadySelectedPreemptionCandidatesResource
            if c.id in chosen:
                size = calc.vec(c.resources)
                app.selected = _add(app.selected, size)
                user.selected = _add(user.selected, size)
        wanted = _sub(_add(app.used_deduct_am(), app.pending), app.selected)
        if not calc.lt(cluster, user.ideal, user.limit):
            continue
        app.ideal = calc.vmin(cluster, reassignable,
                              calc.vmin(cluster, wanted, _sub(user.limit, user.ideal)))
        user.ideal = _add(user.ideal, app.ideal)
        holding = _sub(app.used_deduct_am(), app.selected)
        if calc.gt(cluster, app.ideal, holding):
            app.from_other = _sub(app.ideal, holding)
        reassignable = _nonneg_sub(reassignable, app.ideal)
    # orderedApps (the reverse comparator): from the lowest priority up, the later app first
    state.apps = high_to_low[::-1]
    # 5.-6. the leaf's intra-queue limit and the round's allowance
    limit = _multiply(tq.guaranteed, s.intra_queue_max_allowable_limit)
    limit = _sub(limit, tq.actually) if calc.gt(cluster, limit, tq.actually) else calc.zero
    limit = calc.vmin(cluster, limit, allowed)
    # 7. calculateToBePreemptedResourcePerApp
    for app in state.apps:
        if calc.compare(cluster, limit, calc.zero) <= 0 or calc.compare(cluster, app.used, calc.zero) <= 0:
            continue
        give = _sub(app.used, app.ideal)
        give = _nonneg_sub(give, app.selected)
        give = _nonneg_sub(give, app.am_used)
        if s.intra_queue_order == USERLIMIT_FIRST:
            give = _nonneg_sub(give, calc.vec(view.minimum_allocation))
        app.to_be_preempted = calc.vmin(cluster, calc.vmax(cluster, give, calc.zero), limit)
        limit = _nonneg_sub(limit, app.to_be_preempted)
    # 8. validateOutSameAppPriorityFromDemand
    _validate_out_same_priority(calc, cluster, state, s.intra_queue_order)
    return state


def _fair_order(calc: _Calc, cluster: Vec, apps: list[_TempApp], state: _LeafState) -> list[_TempApp]:
    """``IntraQueueCandidatesSelector.TAFairOrderingComparator``: apps of different users by
    their users' use less AM containers (``TempUserPerPartition.getUsedDeductAM``), the less
    used first, equal uses by application id; apps of one user as the leaf's
    ``FairOrderingPolicy`` orders them (``FairComparator``: the app's memory in use, less first;
    then ``FifoComparator``: the earlier submitted)."""
    def compare(a: _TempApp, b: _TempApp) -> int:
        if a.user == b.user:
            mem_a, mem_b = a.used[0], b.used[0]  # getCachedUsed(ANY).getMemorySize()
            if mem_a != mem_b:
                return -1 if mem_a < mem_b else 1
            return -1 if (a.order, a.id) < (b.order, b.id) else (1 if (a.order, a.id) > (b.order, b.id) else 0)
        used_a = state.users[a.user].used_deduct_am()
        used_b = state.users[b.user].used_deduct_am()
        if used_a == used_b:
            return -1 if (a.order, a.id) < (b.order, b.id) else 1
        return -1 if calc.lt(cluster, used_a, used_b) else 1

    return sorted(apps, key=cmp_to_key(compare))


def _validate_out_same_priority(calc: _Calc, cluster: Vec, state: _LeafState, order: str) -> None:
    """``validateOutSameAppPriorityFromDemand``."""
    apps = state.apps
    zero = calc.zero
    for high in reversed(apps):
        if not calc.gt(cluster, high.from_other, zero):
            continue
        for low in apps:
            if not calc.gt(cluster, low.to_be_preempted, zero):
                continue
            same_user = high.user == low.user
            if same_user and low.priority >= high.priority:
                continue
            if calc.compare(cluster, low.to_be_preempted, low.actually) <= 0 or high.from_other == zero:
                continue
            user = state.users[low.user]
            if not same_user and not user.limit_reached(calc, cluster) and order == USERLIMIT_FIRST:
                continue
            need = high.from_other
            offered = _sub(low.to_be_preempted, low.actually)
            if not same_user and low.priority == high.priority and user.limit_reached(calc, cluster):
                delta = _sub(_sub(user.used_deduct_am(), user.selected), user.limit)
                if user.quota_done:
                    delta = zero
                if calc.lt(cluster, delta, offered):
                    user.quota_done = True
                    offered = delta
            if calc.gt(cluster, offered, zero):
                take = calc.vmin(cluster, need, offered)
                high.from_other = _sub(need, take)
                low.actually = _add(low.actually, take)


def _preempt_from_least_starved(calc: _Calc, cluster: Vec, state: _LeafState, app: _TempApp, chosen: set[str],
                                allowed: list[Vec], box: list[Any], rolling: dict[str, Vec], s: Any,
                                picked: list[str]) -> None:
    """``IntraQueueCandidatesSelector.preemptFromLeastStarvedApp``."""
    # sortContainers: the lowest priority (largest number) first, then the latest allocated
    ranked = sorted(enumerate(app.containers), key=lambda ic: (ic[1].priority, ic[0]), reverse=True)
    userlimit_first = s.intra_queue_order == USERLIMIT_FIRST
    for _, c in ranked:
        if box[0] is None:
            return
        if c.id in chosen or c.is_am:
            continue
        size = calc.vec(c.resources)
        user = state.users.get(app.user)
        if userlimit_first and user is not None:  # skipContainerBasedOnIntraQueuePolicy
            if calc.compare(cluster, _sub(rolling[app.user], size), _add(user.limit, user.am_used)) <= 0:
                break
        if try_preempt(calc, cluster, box, c, allowed, picked, s.intra_queue_conservative_drf):
            chosen.add(c.id)
            if userlimit_first:
                rolling[app.user] = _sub(rolling[app.user], size)


__all__ = ["select_intra_queue"]
