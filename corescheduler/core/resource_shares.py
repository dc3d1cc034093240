"""Resource mode's update: demands bottom-up, fair and steady shares top-down, and each
queue's assignment order (``FairScheduler.update``, ``FSQueue.updateDemand``,
``recomputeShares``).  Part of :class:`~corescheduler.core.resource_scheduler.ResourceScheduler`
(:mod:`~corescheduler.core.resource_base`)."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain
from operator import attrgetter
from typing import Any

from corescheduler.core import hook_answers as answers
from corescheduler.core.model import (
    PRIORITY_WEIGHT,
    REDUCE,
    RESOURCES,
    Job,
    Schedulable,
)
from corescheduler.core.order import UnorderedKey, has_nan
from corescheduler.core.queue_tree import Queue
from corescheduler.core.resource_base import NONE, EngineState
from corescheduler.core.resources import UNBOUNDED, Resources

#: what a share policy may answer for one schedulable
_NONE_TYPE = type(None)
_SHARE_TYPES = {Resources, _NONE_TYPE}
_MEMORY = attrgetter("memory")
_VCORES = attrgetter("vcores")
_EXTRAS = attrgetter("extras")


class ShareUpdate(EngineState):
    """Demands, shares and the orders the heartbeat walks."""

    def _rebuild_orders(self) -> None:
        """Every queue's assignment order from scratch (after demands and shares changed),
        children before their parent.  A key equal to the one before is kept (the same
        object: fewer new objects for the garbage collector to age)."""
        has_pending = self._has_pending
        for level in reversed(self._levels()):
            for q in level:
                key = self._key_fn(q)
                q.order.clear()
                items = []
                if q.is_leaf:
                    for job in q.runnable_apps:
                        js = job.sched[RESOURCES]
                        js.running = job.usage
                        js._ordered = False
                        if has_pending(job):
                            k = key(js)
                            if k is None or has_nan(k):
                                self._bad_key(q.policy, None, k)
                            if k != js._key:
                                js._key = k
                            js._ordered = True
                            items.append(js)
                else:
                    for cs in q.child_scheds:
                        cs._ordered = False
                        if cs.owner.order:
                            k = key(cs)
                            if k is None or has_nan(k):
                                self._bad_key(q.policy, None, k)
                            if k != cs._key:
                                cs._key = k
                            cs._ordered = True
                            items.append(cs)
                if items:
                    try:
                        q.order.update(items)
                    except answers.INCOMPARABLE as exc:
                        q.order.clear()
                        for item in items:
                            item._ordered = False
                        self._bad_key(q.policy, exc)

    def _reposition(self, job: Job, leaf: Queue | None = None) -> None:
        """After the app's usage or pending asks changed: its place in its leaf's order,
        and its leaf's and every ancestor's in theirs (only these keys changed)."""
        if leaf is None:
            leaf = self.tree.queues.get(job.queue or "")
            if leaf is None:
                return
        js = job.sched.get(RESOURCES)
        if js is None:
            return
        key_fns = self._key_fns
        if js._ordered:
            leaf.order.remove(js)
            js._ordered = False
        js.running = job.usage
        if job.runnable and not job.is_finished and self._has_pending(job) and job in leaf.runnable_apps:
            key = js._key = (key_fns.get(leaf.policy) or self._key_fn(leaf))(js)
            if key is None:
                self._bad_key(leaf.policy, None, key)
            try:
                leaf.order.add(js)
            except answers.INCOMPARABLE as exc:
                self._bad_key(leaf.policy, exc)
            js._ordered = True
        self._reposition_queues(leaf)

    def _reposition_queues(self, leaf: Queue) -> None:
        """The leaf's and every ancestor's place in its parent's order, anew (after an app's use
        changed, :meth:`_reposition`; or a reservation made or dropped: a policy's order key
        may count a queue's ``reserved``)."""
        key_fns = self._key_fns
        q = leaf
        parent = q.parent
        while parent is not None:
            s = q.sched
            if s._ordered:
                parent.order.remove(s)
                s._ordered = False
            if q.order:
                key = s._key = (key_fns.get(parent.policy) or self._key_fn(parent))(s)
                if key is None:
                    self._bad_key(parent.policy, None, key)
                try:
                    parent.order.add(s)
                except answers.INCOMPARABLE as exc:
                    self._bad_key(parent.policy, exc)
                s._ordered = True
            q = parent
            parent = q.parent

    def _child_allowed(self, parent_policy: str, child_policy: str, child_is_leaf: bool) -> bool:
        """YARN ``isChildPolicyAllowed`` of the parent's policy, and a policy only for leaves
        (``getApplicableDepth``) only on a leaf."""
        plugins = self.owner.plugins
        if not child_is_leaf and plugins.share_policy(child_policy).policy.leaf_only:
            return False
        return plugins.share_policy(parent_policy).policy.allows_child(child_policy)  # type: ignore[no-any-return]

    def _admit_fn(self, q: Queue) -> Any:
        """The leaf's policy's ``cs_admit_job`` (None if it has none)."""
        if q.policy not in self._admit_fns:
            self._admit_fns[q.policy] = self.owner.plugins.share_policy(q.policy).admit_job
        return self._admit_fns[q.policy]

    def _bad_key(self, policy: str, exc: BaseException | None, key: Any = None) -> None:
        """Raise the error for policy ``policy``'s order key: None, a NaN (``key``), or keys
        that do not compare."""
        who = self.owner.plugins.who("SharePolicy", policy)
        if isinstance(exc, UnorderedKey) and has_nan(exc.key):  # a NaN does not order: named as one
            key = exc.key
            exc = None
        if exc is None:
            raise answers.no_key(who) if key is None else answers.nan_key(who, key)
        raise answers.incomparable(who, exc) from exc

    def _key_fn(self, q: Queue) -> Any:
        """The queue's policy's order key (``cs_order_key``), remembered per policy name."""
        fn = self._key_fns.get(q.policy)
        if fn is None:
            fn = self._key_fns[q.policy] = self.owner.plugins.share_policy(q.policy).order_key
        return fn

    def _app_demand(self, job: Job) -> Resources:
        """``FSAppAttempt.updateDemand``: usage plus pending asks (the AM's until it runs)."""
        demand = job.usage
        am = self.am_tasks.get(job.id)
        if am is not None and not job.am_running:
            return demand + am.resources  # type: ignore[operator]
        pending = job._pending_resources
        for kind, amount in pending.items():
            if kind == REDUCE and not job.reduces_schedulable:
                continue
            demand = demand + amount
        return demand

    def _demand(self, now: float) -> None:
        """``updateDemand`` bottom-up, a tree level at a time: each app's demand and weight
        (WeightAdjusters), each queue's demand the sum of its apps' or children's, capped
        at its max share.  Sums run on the amounts (the general arithmetic only for values
        with extra resource types), and a value equal to the one before keeps its object:
        a quiet update leaves nothing new for the garbage collector to age."""
        adjusters = self.owner.plugins.weight_adjusters
        am_tasks = self.am_tasks
        for level in reversed(self._levels()):
            for q in level:
                s = q.sched
                memory = vcores = 0
                extras: list[Resources] = []  # values with extra resource types, summed apart
                if q.is_leaf:
                    for job in (*q.runnable_apps, *q.waiting_apps) if q.waiting_apps else q.runnable_apps:
                        js = job.sched[RESOURCES]
                        usage = job.usage
                        before = js.demand
                        plain = not usage.extras
                        m, v = usage.memory, usage.vcores
                        am = am_tasks.get(job.id) if am_tasks else None
                        if am is not None and not job.am_running:
                            asks: Iterable[Resources] = (am.resources,)  # type: ignore[assignment]
                        elif job.reduces_schedulable:
                            asks = job._pending_resources.values()
                        else:
                            asks = [a for k, a in job._pending_resources.items() if k != REDUCE]
                        if plain:
                            for ask in asks:  # FSAppAttempt.updateDemand: usage plus pending asks
                                if ask.extras:
                                    plain = False
                                    break
                                m += ask.memory
                                v += ask.vcores
                        if plain:
                            if before is None or before.memory != m or before.vcores != v or before.extras:
                                js.demand = Resources._make(m, v)
                            memory += m
                            vcores += v
                        else:
                            demand = self._app_demand(job)
                            if demand != before:
                                js.demand = demand
                            extras.append(demand)
                        js.running = usage
                        js.active = job.runnable
                        weight = PRIORITY_WEIGHT[job.priority]
                        if adjusters:
                            for adjust in adjusters:  # chained: each answer is checked (hook_answers)
                                result = adjust(job, RESOURCES, weight, now)
                                if result is not None:
                                    if type(result) is float and 0.0 <= result <= answers.MAX_FLOAT:
                                        weight = result
                                    else:
                                        weight = self.owner._weight(adjust, result)
                        js.weight = weight
                else:
                    for c in q.child_scheds:
                        d = c.demand
                        if d.extras:
                            extras.append(d)
                        else:
                            memory += d.memory
                            vcores += d.vcores
                cap = s.max_share
                before = s.demand
                if not extras and not cap.extras:
                    if memory > cap.memory:
                        memory = cap.memory
                    if vcores > cap.vcores:
                        vcores = cap.vcores
                    if before is None or before.memory != memory or before.vcores != vcores or before.extras:
                        s.demand = Resources._make(memory, vcores)
                else:
                    total = (Resources._make(memory, vcores) + Resources.total(extras)).componentwise_min(cap)
                    if total != before:
                        s.demand = total
                s.active = q.num_runnable > 0

    def _levels(self) -> list[list[Queue]]:
        """The tree's queues a depth at a time, root first (kept while the tree stands)."""
        return self._level_plan()[0]

    def _level_plan(self) -> tuple[list[list[Queue]], list[tuple[dict[str, Any], dict[str, list[Queue]]]]]:
        """:meth:`_levels` and, per level, its parents and its leaves by policy (the share
        plan), kept with the tree's version they were made for (one attribute: the engine's
        instance attributes stay within CPython's 30 shared keys, see ``_levels_state``)."""
        version, levels, plan = self._levels_state
        if version != self.tree.version:
            levels = [[self.tree.root]]
            while True:
                below = [c for q in levels[-1] for c in q.children.values()]
                if not below:
                    break
                levels.append(below)
            plan = []
            for level in levels:  # a level's parents and leaves by policy
                parents: dict[str, list[tuple[Schedulable, list[Schedulable]]]] = {}
                leaves: dict[str, list[Queue]] = {}
                for q in level:
                    if q.is_leaf:
                        leaves.setdefault(q.policy, []).append(q)
                    elif q.children:
                        parents.setdefault(q.policy, []).append((q.sched, q.child_scheds))
                plan.append((parents, leaves))
            self._levels_state = (self.tree.version, levels, plan)
        return levels, plan

    def _shares(self, steady: bool = False) -> None:
        """``recomputeShares`` (``steady``: ``recomputeSteadyShares``), top-down a level at a
        time: each queue's policy divides its share among its children (a leaf's: its
        runnable apps; steady shares stop at the leaves).  The parents of one level that
        share a policy go to its ``cs_compute_shares_many`` together when it has one, so
        ``fair`` and ``drf`` run YARN's search for a whole level in numpy."""
        plugins = self.owner.plugins
        for parents, leaves in self._level_plan()[1]:
            batches: dict[str, list[tuple[list[Schedulable], Resources]]] = {}
            if steady:
                for name, entries in parents.items():
                    batches[name] = [(scheds, ps.steady_share or NONE) for ps, scheds in entries]
            else:
                for name, entries in parents.items():
                    batches[name] = [(scheds, ps.fair_share or NONE) for ps, scheds in entries]
                for name, queues in leaves.items():
                    for q in queues:
                        if q.waiting_apps:
                            for job in q.waiting_apps:
                                job.sched[RESOURCES].fair_share = NONE
                    groups = [(q.app_scheds, q.sched.fair_share or NONE) for q in queues if q.app_scheds]
                    if groups:
                        batches.setdefault(name, []).extend(groups)
            for name, groups in batches.items():
                policy = plugins.share_policy(name)
                results = None
                hook = "compute_shares"
                if policy.compute_shares_many is not None and len(groups) > 1:
                    results = policy.compute_shares_many(groups, steady)
                    if results is not None:
                        hook = "compute_shares_many"
                        results = answers.shares_many(plugins.who("SharePolicy", name), results, len(groups))
                if results is None:
                    results = [policy.compute_shares(sc, total, steady) for sc, total in groups]
                flat_scheds = []
                for (scheds, _), shares in zip(groups, results):
                    if type(shares) is not list or len(shares) != len(scheds):
                        answers.resource_shares(plugins.who("SharePolicy", name), hook, shares, len(scheds))
                    flat_scheds += scheds
                flat = list(chain.from_iterable(results))
                types = set(map(type, flat))
                given = [s for s in flat if s is not None] if _NONE_TYPE in types else flat
                if not types <= _SHARE_TYPES or (given and (
                    min(map(_MEMORY, given)) < 0 or min(map(_VCORES, given)) < 0 or any(map(_EXTRAS, given))
                    or max(map(_MEMORY, given)) > UNBOUNDED or max(map(_VCORES, given)) > UNBOUNDED
                )):
                    for (scheds, _), shares in zip(groups, results):  # the error, or extras that are fine
                        answers.resource_shares(plugins.who("SharePolicy", name), hook, shares, len(scheds))
                if steady:
                    for s, share in zip(flat_scheds, flat):
                        s.steady_share = share if share is not None else NONE
                else:
                    for s, share in zip(flat_scheds, flat):
                        s.fair_share = share

    def _steady(self) -> None:
        """``recomputeSteadyShares``: every queue counts, active or not."""
        self.tree.root.sched.steady_share = self.cluster_total
        self._shares(steady=True)
