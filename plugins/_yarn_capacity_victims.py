"""YARN's Capacity Scheduler (``yarn_capacity``): the preemption monitor on the live queue tree
(``ProportionalCapacityPreemptionPolicy.editSchedule`` through
:mod:`corescheduler_plugins._yarn_capacity_preemption`), as a mixin of
:class:`corescheduler_plugins.yarn_capacity.YarnCapacityScheduler` (moved from that module
unchanged)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from corescheduler.core.hints import Hint
from corescheduler.core.javamath import java_float
from corescheduler.core.model import RESOURCES
from corescheduler.errors import AllocationError, ConfigError
from corescheduler.resources import Resources

_ZERO = Resources()


class CapacityVictims:
    """Which containers the Capacity Scheduler's preemption monitor kills now."""

    conf: Any
    _cluster: Any
    _minimum: Any
    _dominant: bool
    _users: dict[str, Any]
    _order: dict[str, int]

    if TYPE_CHECKING:  # the policy's
        def app_priority(self, job: Any) -> int: ...  # CapacityAppPriorities'

        def _consumed(self, queue: Any) -> Resources: ...

        def _less(self, a: Resources, b: Resources) -> bool: ...

        def _ratio(self, used: Resources, guaranteed: Resources | None,
                   cluster: Resources | None) -> float: ...

        def _bounded_limit(self, by_users: Resources, current: Resources, queue_capacity: Resources,
                           queue: Any, leaf: Any) -> Resources: ...

    # ------------------------------------------------------------------ preemption
    def choose_victims(self, root: Any, running: Mapping[str, Any], now: float) -> list[Any] | None:
        """``ProportionalCapacityPreemptionPolicy.editSchedule`` on the live tree: the containers
        to kill now (``corescheduler_plugins._yarn_capacity_preemption``, which keeps the
        marked-since times between rounds)."""
        monitor = self._monitor()
        if monitor is None:
            return []
        from corescheduler_plugins._yarn_capacity_preemption import ContainerView, QueueView

        by_leaf: dict[str, list[Any]] = {}
        for task in running.values():
            by_leaf.setdefault(str(task.job.queue), []).append(task)
        tasks = {t.id: t for t in running.values()}

        def view(q: Any, disabled: bool, intra: bool) -> Any:
            spec = self.conf.queues.get(q.name) if self.conf is not None else None
            # isQueueHierarchyPreemptionDisabled: the queue's own disable_preemption when set (false
            # re-enables a queue under a disabled parent), else its parent's
            own_off = spec.disable_preemption if spec is not None else None
            off = disabled if own_off is None else bool(own_off)
            # isIntraQueueHierarchyPreemptionDisabled: the queue's own switch, else its parent's
            own = spec.intra_queue_disable_preemption if spec is not None else None
            intra_off = intra if own is None else bool(own)
            s = q.sched
            used = s.running
            maximum = s.max_share.componentwise_min(self._cluster) if self._cluster.names else s.max_share
            pending = self._pending_for_preemption(q) if q.is_leaf else (s.demand - used).componentwise_max(_ZERO)
            place = self._preemption_places(q.name, by_leaf.get(q.name, ())) if q.is_leaf else {}
            containers = [
                ContainerView(id=t.id, app_id=t.job.id, app_order=place[t.job.id],
                              resources=t.resources or Resources(), is_am=bool(t.is_am))
                for t in by_leaf.get(q.name, ())
            ] if q.is_leaf else []
            apps, limits = self._apps_for_preemption(q) if q.is_leaf else ([], {})
            return QueueView(path=q.name, guaranteed=s.fair_share or Resources(), maximum=maximum, used=used,
                             pending=pending, preemption_disabled=off,
                             children=[view(c, off, intra_off) for c in q.children.values()], containers=containers,
                             apps=apps, user_limits=limits, minimum_allocation=minimum,
                             # getIntraQueuePreemptionDisabled: its hierarchy's switch or disable_preemption
                             intra_queue_disabled=intra_off or off,
                             max_am_capacity=self._am_capacity(q) if q.is_leaf else Resources(),
                             # the leaf's ordering-policy (TAFairOrderingComparator under fair)
                             ordering_policy="fair" if q.name in fair_leaves else "fifo",
                             # relativePriority (ProportionalCapacityPreemptionPolicy.cloneQueues)
                             priority=self._ordering[q.name][1] if q.name in self._ordering else 0)

        minimum = self._minimum if isinstance(self._minimum, Resources) else Resources()
        fair_leaves = self._fair_leaves  # type: ignore[attr-defined]
        chosen = monitor.select(view(root, False, False), self._cluster, now)
        self._marked = list(chosen.marked)
        return [tasks[i] for i in chosen.kill if i in tasks]

    def preemption_hint(self, pools: Sequence[Any], kind: str, now: float) -> Hint:
        """When the monitor's next round falls: Hadoop's ``SchedulingMonitor`` invokes
        ``ProportionalCapacityPreemptionPolicy.editSchedule`` every
        ``yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval`` (3 s by
        default), at a fixed rate; until then no round can preempt anything.  Without a
        capacity file there is no monitor: never."""
        monitor = self._monitor()
        return Hint(until=math.inf if monitor is None else monitor.next_round())

    def _preemption_places(self, leaf: str, tasks: Any) -> dict[str, int]:
        """Each running app's place in the leaf's ordering policy, the last preempted from
        first (``AbstractComparatorOrderingPolicy.getPreemptionIterator``: the policy's order,
        descending): under ``fifo`` by priority, then submission (``FifoOrderingPolicy``:
        ``PriorityComparator``, then ``FifoComparator``); under ``fair`` by the memory the app
        uses (``FairOrderingPolicy.FairComparator``: ``getCachedUsed``, divided by
        log2(1 + demand) with ``fair.enable-size-based-weight``), then submission, so the app
        using the most is preempted from first."""
        jobs = {t.job.id: t.job for t in tasks}
        sized = self._fair_leaves.get(leaf)  # type: ignore[attr-defined]

        def key(job: Any) -> tuple[float, int]:
            if sized is None:  # the higher effective priority first
                return (-self.app_priority(job), self._order.get(job.id, 0))
            s = job.sched[RESOURCES]
            usage = float(s.running.get("memory"))
            if sized:  # FairOrderingPolicy.getMagnitude, as order_key computes it
                demand = s.demand.get("memory")
                weight = math.log1p(demand) / math.log(2) if demand > 0 else 1.0
                usage = usage / weight if weight > 0 else usage
            return (usage, self._order.get(job.id, 0))
        return {job.id: n for n, job in enumerate(sorted(jobs.values(), key=key))}

    def _apps_for_preemption(self, leaf: Any) -> tuple[list[Any], dict[str, Resources]]:
        """The leaf's apps as the intra-queue selector sees them (``TempAppPerPartition``:
        user, priority, submission order, all of its pending asks) and each user's limit
        (``LeafQueue.getResourceLimitForAllUsers``; a user without one is left out: the
        queue's maximum)."""
        from corescheduler_plugins._yarn_capacity_preemption import AppView

        apps: list[Any] = []
        limits: dict[str, Resources] = {}
        # getAllApplications: the running apps and those not yet activated
        for job in [*leaf.runnable_apps, *leaf.waiting_apps]:
            js = job.sched[RESOURCES]
            user = str(job.user)
            # the effective application priority (a larger number is higher)
            apps.append(AppView(id=job.id, user=user, order=self._order.get(job.id, 0),
                                pending=(js.demand - job.usage).componentwise_max(_ZERO),
                                priority=self.app_priority(job)))
            if user not in limits and self.conf is not None:
                limit = self._limit_for_all_users(leaf, job.user)
                if limit is not None:
                    limits[user] = limit
        return apps, limits

    def _limit_for_all_users(self, leaf: Any, user: Any) -> Resources | None:
        """``LeafQueue.getResourceLimitForAllUsers`` → ``UsersManager.computeUserLimit(…,
        activeUser = false)``: the current capacity (not the active users' use + the minimum
        allocation) divided by the weights of *all* the leaf's users (those with an app in it:
        ``allUsersTimesWeights``, a Java float sum; ``Resources.divideAndCeil``), the rest as
        the active users' limit (:meth:`_bounded_limit`), then × ``user``'s weight rounded down
        to the minimum allocation (``getComputedResourceLimitForAllUsers``).  None: not a
        queue of the file."""
        spec = self.conf.queues.get(leaf.name) if self.conf is not None else None
        if spec is None:
            return None
        weights = spec.user_weights
        required = self._minimum if isinstance(self._minimum, Resources) else Resources()
        guaranteed = leaf.sched.fair_share if leaf.sched.fair_share is not None else Resources()
        queue_capacity = guaranteed.componentwise_max(required) if not self._dominant else \
            (guaranteed if self._ratio(guaranteed, required, self._cluster) >= 1.0 else required)
        consumed = self._consumed(leaf)
        current = queue_capacity if self._less(consumed, queue_capacity) else consumed + required
        summed = 0.0
        for name in sorted(self._users.get(leaf.name, {}), key=str):
            summed = java_float(summed + java_float(weights.get(name, 1.0)))
        by_users = Resources.of({n: (math.ceil(java_float(java_float(float(v)) / summed)) if summed else 0)
                                 for n, v in current.items()})
        limit = self._bounded_limit(by_users, current, queue_capacity, leaf, spec)
        weight = java_float(weights.get(user, 1.0))
        if weight == 1.0:
            return limit
        values = {}
        for n, v in limit.items():  # Resources.multiplyAndNormalizeDown
            amount = int(v * weight)
            unit = required.get(n) if n in required.names else 0
            values[n] = (amount // unit) * unit if unit > 0 else amount
        return Resources.of(values)

    def _pending_for_preemption(self, leaf: Any) -> Resources:
        """``LeafQueue.getTotalPendingResourcesConsideringUserLimit``: the pending asks of the
        leaf's active apps, in its order, each at most what its user may still get (the user
        limit less the user's use, its reservations counted as ``User.getUsed`` counts them,
        spent app by app); without a capacity file, the leaf's whole pending."""
        if self.conf is None or self.conf.queues.get(leaf.name) is None:
            return (leaf.sched.demand - leaf.sched.running).componentwise_max(_ZERO)
        headroom: dict[str, Resources | None] = {}
        total = _ZERO
        for js in leaf.order:
            job = js.owner
            if job.user not in headroom:
                limit = self.user_limit(job)
                used = self.user_used(job) + leaf.reserved_by_user.get(job.user, _ZERO)
                headroom[job.user] = None if limit is None else (limit - used).componentwise_max(_ZERO)
            pending = (js.demand - job.usage).componentwise_max(_ZERO)
            room = headroom[job.user]
            if room is not None:
                pending = pending.componentwise_min(room)
                headroom[job.user] = room - pending
            total = total + pending
        return total

    def _monitor(self) -> Any:
        """The preemption computation (``ProportionalCapacityPreemption``), made once per file."""
        if self._preemption is None and self.conf is not None:
            self._preemption = self._new_monitor(self.conf)
        return self._preemption

    @staticmethod
    def _new_monitor(conf: Any) -> Any:
        """A monitor for the file ``conf``; ``AllocationError`` for a bad preemption value."""
        from corescheduler_plugins._yarn_capacity_preemption import (
            PreemptionSettings,
            ProportionalCapacityPreemption,
        )
        try:  # Hadoop reads them as the policy is initialized (updateConfigIfNeeded)
            settings = PreemptionSettings.from_properties(conf.properties)
        except ConfigError as err:  # PreemptionConfigError: names the key, and so the line
            line = getattr(conf, "lines", {}).get(getattr(err, "key", None))
            raise AllocationError(str(err), conf.source, line=line) from None
        return ProportionalCapacityPreemption(settings, dominant=bool(conf.dominant))
