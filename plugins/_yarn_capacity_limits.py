"""YARN's Capacity Scheduler (``yarn_capacity``): a queue's current limit and its AM limits —
``LeafQueue.getCurrentLimitResource``/``getHeadroom``'s queue part, ``LeafQueue.getAMResourceLimit``,
``getUserAMResourceLimit`` and ``activateApplications``' AM checks — and the resource arithmetic
they share, as a mixin of :class:`corescheduler_plugins.yarn_capacity.YarnCapacityScheduler`
(moved from that module unchanged)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from corescheduler.core.javamath import java_float, java_long
from corescheduler.core.model import Job
from corescheduler.core.resources import MEMORY, UNBOUNDED, VCORES
from corescheduler.resources import Resources


class CapacityLimits:
    """The queue and AM limits of ``YarnCapacityScheduler`` (its state: ``conf``, the live
    queues, the cluster, the users' AM use)."""

    conf: Any
    _cluster: Any
    _live: dict[str, Any]
    _user_am: dict[str, dict[str, Resources]]
    _dominant: bool
    #: ``CapacityScheduler.addApplication`` has no rule against an app asking for a type its
    #: queue's maximum has none of (the fair scheduler's): on a cluster with no node yet an app
    #: is taken, and waits (``TestCapacityScheduler.testApplicationHeadRoom``)
    refuses_zero_maximum = False

    def _am_capacity(self, queue: Any) -> Resources:
        """The preemption monitor's AM capacity of a leaf (``FifoCandidatesSelector``'s
        ``maxAMCapacityForThisQueue = Resources.multiply(getEffectiveCapacity, getMaxAMResourcePerQueuePercent)``):
        the guarantee × maximum-am-resource-percent, each type truncated (not normalized)."""
        assert self.conf is not None
        guaranteed = queue.sched.fair_share if queue.sched.fair_share is not None else Resources()
        pct = java_float(self.conf.am_resource_percent(queue.name))  # a Java float (getFloat)
        return Resources.of({n: java_long(v * pct) for n, v in guaranteed.items()})

    def fits_by_memory(self) -> bool:
        """``SharePolicy.fits_by_memory``: under ``DefaultResourceCalculator`` (the default) a
        container fits a node by its memory alone (``computeAvailableContainers`` and
        ``Resources.fitsIn`` count memory only: a node's vcores may be overcommitted, as in
        Hadoop); under ``DominantResourceCalculator`` by every type."""
        return not self._dominant

    def _times_up(self, r: Resources, by: float, every: bool = False) -> Resources:
        """``Resources.multiplyAndNormalizeUp(rc, r, by, minimumAllocation)``: under
        ``DefaultResourceCalculator`` memory only (``createResource(memory)``: 1 vcore), under
        ``DominantResourceCalculator`` (or ``every``) each resource type."""
        step = self._minimum
        values = {}
        for n, v in r.items():
            if not (every or self._dominant) and n != MEMORY:
                continue
            unit = step.get(n) if step is not None and n in step.names else 0
            amount = min(math.ceil(v * by), UNBOUNDED)  # Java's (long) Math.ceil saturates (user-limit-factor 1e30)
            values[n] = min(math.ceil(amount / unit) * unit, UNBOUNDED) if unit > 0 else amount
        if not (every or self._dominant):
            values[VCORES] = 1 if values.get(MEMORY, 0) > 0 else 0
        return Resources.of(values)

    def _round_down(self, r: Resources) -> Resources:
        """``Resources.roundDown(rc, r, minimumAllocation)``."""
        step = self._minimum
        if step is None:
            return r
        return Resources.of({n: (v // step.get(n)) * step.get(n) if step.get(n) > 0 else v for n, v in r.items()})

    def _fits(self, small: Resources, big: Resources) -> bool:
        """``ResourceCalculator.fitsIn``: memory under ``DefaultResourceCalculator``, every
        resource type under ``DominantResourceCalculator``."""
        return small.fits_in(big) if self._dominant else small.get("memory") <= big.get("memory")

    def _min(self, a: Resources, b: Resources) -> Resources:
        """``Resources.min(rc, cluster, a, b)``: the lesser of the two, as a whole."""
        return b if self._less(b, a) else a

    def current_limit(self, queue: Any, held_back: Mapping[Any, Resources] | None = None) -> Resources:
        """The leaf's current resource limit (``LeafQueue.updateCurrentResourceLimits``, the
        ``queueCurrentLimit`` of ``QueueResourceLimitsInfo``): from the cluster at root down,
        each child's limit is its parent's limit (capped by the parent's maximum) − the
        parent's use + the child's use, rounded down to the minimum allocation
        (``ParentQueue.getResourceLimitsOfChild``); the leaf's, at most its maximum capacity
        rounded down (``getEffectiveMaxCapacityDown``).  A queue's use counts its reservations, as
        Hadoop's ``queueUsage.getUsed`` does.  ``held_back``: what parents hold back
        in the assignment under way (``ResourceLimits.getNetLimit``: the parent's limit less
        its ``blockedHeadroom``)."""
        chain = []
        q = queue
        while q is not None:
            chain.append(q)
            q = q.parent
        cluster = self._cluster
        limit = cluster
        for parent, child in zip(reversed(chain), list(reversed(chain))[1:], strict=False):
            ps = parent.sched
            limit = self._min(limit, ps.max_share.componentwise_min(cluster) if cluster.names else ps.max_share)
            if held_back:
                held = held_back.get(parent)
                if held is not None:
                    limit = limit - held
            # queueUsage.getUsed counts the reservations (LeafQueue.allocateResource): a sibling's
            # reservation takes from the child's limit
            used = ps.running if parent.reserved is child.reserved else ps.running + parent.reserved - child.reserved
            limit = self._round_down((limit - used + child.sched.running).componentwise_max(Resources()))
        s = queue.sched
        maximum = s.max_share.componentwise_min(cluster) if cluster.names else s.max_share
        return self._min(self._round_down(maximum), limit)

    def am_limit(self, queue: Any) -> Resources:
        """``LeafQueue.calculateAndGetAMResourceLimitPerPartition``: maximum-am-resource-percent ×
        the queue's current limit (:meth:`current_limit`) when its guarantee fits in it, else ×
        the guarantee ("nothing less than the queue's guarantee"), normalized up to the minimum
        allocation (``multiplyAndNormalizeUp``)."""
        assert self.conf is not None
        guaranteed = queue.sched.fair_share if queue.sched.fair_share is not None else Resources()
        current = self.current_limit(queue)
        usable = current if self._fits(guaranteed, current) else guaranteed
        return self._times_up(usable, self.conf.am_resource_percent(queue.name))

    def user_am_limit(self, queue: Any, user: Any = None) -> Resources:
        """``LeafQueue.getUserAMResourceLimitPerPartition``: the guarantee × maximum-am-resource-percent
        × max(minimum-user-limit-percent ÷ 100, 1 ÷ active users), at most 1, × user-limit-factor
        (−1: not scaled by either), normalized up, at most the queue's AM limit; with user weights, the
        share × ``user``'s weight, at most 1 (``weighted_am_share``)."""
        assert self.conf is not None
        leaf = self.conf.queues[queue.name]
        guaranteed = queue.sched.fair_share if queue.sched.fair_share is not None else Resources()
        pct = self.conf.am_resource_percent(queue.name)
        if leaf.user_limit_factor == -1:
            limit = self._times_up(guaranteed, pct)
        else:
            users = self._active(queue)[0]
            share = max(leaf.minimum_user_limit_percent / 100.0, 1.0 / max(users, 1))
            if leaf.user_weights:
                share = self.weighted_am_share(leaf, user, share)  # type: ignore[attr-defined]
            elif share > 1.0:  # Math.min(effectiveUserLimit * userWeight, 1.0f): a percent above 100
                share = 1.0
            limit = self._times_up(guaranteed, pct * share * leaf.user_limit_factor)
        return self._min(limit, self.am_limit(queue))

    def admit_am(self, leaf: Any, job: Job, am: Resources) -> bool | None:
        """``LeafQueue.activateApplications``: the AM starts if the leaf's AM use + ``am`` fits in
        its AM limit and the user's AM use + ``am`` in the user AM limit — or, either way, when
        the leaf runs no AM yet ("skipping enforcement to allow at least one application to
        start")."""
        if self.conf is None or self.conf.queues.get(leaf.name) is None:
            return None
        used = leaf.am_usage
        if not used.any_positive() or not self._less(Resources(), used):
            return True
        if not self._fits(used + am, self.am_limit(leaf)):
            return False
        mine = self._user_am.get(leaf.name, {}).get(job.user, Resources())
        return self._fits(mine + am, self.user_am_limit(leaf, job.user))
