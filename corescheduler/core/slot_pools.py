"""The slot engine's pools: their state, their orders, preemption and reports.

MR1's Fair Scheduler (Hadoop 1.x ``src/contrib/fairscheduler``: ``PoolManager``,
``PoolSchedulable``, ``JobSchedulable``) runs maps and reduces in slots of their kind on
each node, in a flat list of pools.  :class:`SlotPools` is the base of the slot engine
(:class:`~corescheduler.core.slot_engine.SlotEngine`): the pools and their settings from the
allocations, the assignment orders (pools and the jobs inside each pool kept sorted by
their policy's order key, :class:`~corescheduler.core.order.KeyedOrder`, and re-positioned
when one changes), the cluster's slot counts, what a heartbeat may still assign
(:meth:`SlotPools.pending_work`), preemption (Hadoop ``preemptTasksIfNecessary``) and the
reports.  :mod:`~corescheduler.core.slot_walk` adds what a simulator reads of the heartbeat
walk; :mod:`~corescheduler.core.slot_engine` the update and the heartbeat.

The engine is one object of three classes in a line (``SlotPools`` ← ``SlotWalk`` ←
``SlotEngine``): single inheritance, which mypyc compiles to direct calls.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from corescheduler.core import hook_answers as answers
from corescheduler.core.allocations import Allocations
from corescheduler.core.blame import chained
from corescheduler.core.model import (
    KINDS,
    MAP,
    REDUCE,
    RUNNING,
    ClusterLoad,
    Job,
    JobSpec,
    Node,
    Pool,
    PreemptionPlan,
    Schedulable,
    Task,
)
from corescheduler.core.order import KeyedOrder, UnorderedKey, has_nan
from corescheduler.core.resources import Resources
from corescheduler.errors import AllocationError, CoreSchedulerError

if TYPE_CHECKING:
    from corescheduler.core.engine import EngineOwner
    from corescheduler.core.framework import Plugins, SchedulerSettings, SharePolicyCallers

__all__ = ["DEFAULT_POOL", "SlotPools", "offerable"]

DEFAULT_POOL = "default"
log = logging.getLogger("corescheduler.core.scheduler")


def offerable(job: Job, kind: str) -> bool:
    """Whether a heartbeat could launch a task of ``kind`` of ``job``: it is
    runnable, has a pending task of that kind, and for reduces slow start is
    reached.  Only such jobs are in the heartbeat order (and only pools with
    such jobs), so a heartbeat never walks jobs or pools with nothing to run."""
    return job.runnable and job.pending[kind] > 0 and (kind == MAP or job.reduces_schedulable)


class SlotPools:
    """The slot engine's state, pools, orders, preemption and reports (the module's docstring).

    :param owner: the scheduler that runs it (:class:`~corescheduler.core.engine.EngineOwner`).
    :param known: the pools the PoolResolvers configure themselves (``cs_known_pools``).
    """

    def __init__(self, owner: EngineOwner, known: list[str]) -> None:
        self.owner = owner
        self.ledger = owner.ledger
        self.settings = owner.settings
        self.plugins = owner.plugins
        cluster = owner.cluster
        #: submitted jobs that have not ended (the scheduler's dict, read here)
        self.jobs = owner.jobs
        self._rack_of = owner._rack_of
        #: the running tasks by id (the ledger's, read-only here)
        self._running_tasks: dict[str, Task] = self.ledger.running
        self.pools: dict[str, Pool] = {}
        self._pool_order: dict[str, KeyedOrder] = {k: KeyedOrder() for k in KINDS}
        self._job_order: dict[str, dict[str, KeyedOrder]] = {}
        self._pool_policy: dict[str, SharePolicyCallers] = {}
        self.root_policy = self.plugins.root_policy
        self._load = {
            k: ClusterLoad(kind=k, runnable=0, running=0, total_slots=cluster.total_slots(k), nodes=len(cluster.nodes))
            for k in KINDS
        }
        # pending tasks a heartbeat could pick: of runnable jobs, reduces past slow start
        self._pending_work = {MAP: 0, REDUCE: 0}
        self._changes_seen = -1  # the ledger's launches and releases as of the last update
        self._dirty = True
        #: a failed heartbeat takes its launches back: order-key errors then are not raised again
        self._taking_back = False
        #: some pool's share policy admits jobs (cs_admit_job; set by _configure_pool): no parking
        #: changes whenever the set of jobs a heartbeat walks for maps may change (a job
        #: enters or leaves its pool's map order, a pool reaches or leaves its cap, an update)
        self._map_version = 0
        #: ``_map_version`` when the last heartbeat walked all those jobs and launched nothing
        #: (every job it walked was skipped: what the TaskSelector last saw), else -1
        self._quiet_at = -1
        s = self.settings
        #: the most tasks of each kind one heartbeat may assign (Hadoop's assignmultiple and its caps)
        self._assign_caps = {
            MAP: (s.map_assign_cap if s.map_assign_cap > 0 else math.inf) if s.assign_multiple else 1,
            REDUCE: (s.reduce_assign_cap if s.reduce_assign_cap > 0 else math.inf) if s.assign_multiple else 1,
        }
        #: the TaskSelector's cs_select_hint when a heartbeat that skips the same jobs as the
        #: one before changes nothing for every other plugin that listens to heartbeats
        #: (skip_quiet_heartbeat, parking), else None
        self._hint = self.plugins.quiet_heartbeats()
        #: the TaskSelector's cs_select_hint (wants_idle_heartbeat), else None
        self._any_hint = self.plugins.select_hint
        #: the LoadManager declares ``empty_nodes_take_tasks`` (its plugin is fixed) and no pool's
        #: share policy admits jobs (``can_park``; at most 30 instance attributes: see
        #: tests/core/test_engine_attributes.py)
        self._parkable: bool = self.plugins.empty_nodes_take_tasks()
        #: bumped by every heartbeat, update and lost output: with ``_changes`` (launches and
        #: releases), the hints asked since the last bump hold (``_hints``, ``_wants``)
        self._hint_epoch = 0
        #: ((epoch, changes) they were asked at, job id -> (hint, the time before which it holds))
        self._hints: tuple[tuple[int, int], dict[str, tuple[Any, float]]] = ((-1, -1), {})
        self._wants: tuple[tuple[int, int], bool] = ((-1, -1), False)
        #: the jobs the last heartbeat offered a map slot and that took none (its
        #: ``cs_heartbeat_end``'s ``skipped``); empty after a heartbeat that offered none
        self._passed: list[Job] = []
        #: jobs whose map reach (map_reach) may have widened since a caller last took them
        #: (take_reach_changes), with the locality that may widen it: a map of theirs launched
        #: (that launch's locality) or went back to pending (anywhere).  A change of
        #: ``_map_version`` or ``_quiet_at`` may change every walked job's reach.
        self._reach_changed: dict[str, str] = {}  # (a dict: in the order they changed)
        #: keep ``_reach_changed`` (a simulator that parks nodes turns it on and takes them)
        self.track_reach = False
        self.reconfigure(known)

    # ================================================================== allocations
    @staticmethod
    def check_allocations(plugins: Plugins, settings: SchedulerSettings, allocations: Allocations) -> None:
        """Every share policy the file names (``schedulingMode``) must load: else the error,
        before anything changes."""
        root = plugins.root_policy.name
        needed: dict[str, str | None] = {
            allocations.default_pool_scheduling_mode if allocations.default_mode_given else root: None
        }
        for name in allocations.pool_names():
            needed.setdefault(allocations.pool_policy(name, root), name)
        for mode, pool in needed.items():
            try:
                plugins.share_policy(mode)  # raises before anything changes
            except CoreSchedulerError as exc:
                spec = allocations.pools.get(pool) if pool else None
                what = f"pool {pool!r} schedulingMode {mode!r}" if pool else f"defaultPoolSchedulingMode {mode!r}"
                raise chained(AllocationError(f"{what}: {exc}", allocations.source or "<allocations>",
                                              spec.line if spec else None), exc) from exc

    def reconfigure(self, known: list[str]) -> None:
        """New allocations are in force (the owner's): every pool they or the PoolResolvers
        (``known``) name exists, and every pool takes its settings from them."""
        allocations = self.owner.allocations
        for name in (*allocations.pool_names(), *known):
            self._pool(name)
        self._pool(DEFAULT_POOL)
        for configured in self.pools.values():
            self._configure_pool(configured)
        self._dirty = True

    def _pool(self, name: str) -> Pool:
        pool = self.pools.get(name)
        if pool is None:
            now = self.owner.now
            pool = Pool(name=name, spec=self.owner.allocations.pool(name))
            self.pools[name] = pool
            self._job_order[name] = {k: KeyedOrder() for k in KINDS}
            self._configure_pool(pool)
            for kind in KINDS:
                ps = pool.sched[kind]
                ps.last_time_at_min_share = now
                ps.last_time_at_half_fair_share = now
                ps._key = self._order_key(self.root_policy, ps)
        return pool

    def _configure_pool(self, pool: Pool) -> None:
        allocations = self.owner.allocations
        spec = allocations.pool(pool.name)
        pool.spec = spec
        pool.policy = allocations.pool_policy(pool.name, self.root_policy.name)
        self._pool_policy[pool.name] = self.plugins.share_policy(pool.policy)
        if self._pool_policy[pool.name].admit_job is not None:
            self._parkable = False  # a job's refusal may end with no change a parked node sees
        for kind in KINDS:
            ps = pool.sched[kind]
            ps.weight = spec.weight
            ps.min_share = float(spec.min_share(kind))
            ps.max_share = spec.max_share(kind)
            ps.min_share_timeout = allocations.min_share_preemption_timeout(pool.name)
            ps.fair_share_timeout = allocations.fair_share_preemption_timeout

    def drop_empty(self) -> list[str]:
        """Forget the pools placement created that are empty: not in the allocations, not a
        PoolResolver's known pool, not the default pool, with no job and nothing running."""
        allocations = self.owner.allocations
        keep = {DEFAULT_POOL, *allocations.pool_names(), *self.owner._known_pools(allocations)}
        removed: list[str] = []
        for name, pool in list(self.pools.items()):
            if name in keep or pool.jobs or any(pool.sched[kind].running for kind in KINDS):
                continue
            for kind in KINDS:
                ps = pool.sched[kind]
                if ps._ordered:
                    self._pool_order[kind].remove(ps)
                    ps._ordered = False
            del self.pools[name]
            del self._job_order[name]
            self._pool_policy.pop(name, None)
            removed.append(name)
        if removed:
            self._dirty = True
        return removed

    # ================================================================== nodes
    def node_added(self, node: Node, resources: Resources | None) -> None:
        """A node's slots count from the next update."""
        for kind in KINDS:
            self._load[kind].total_slots += node.slots[kind]
            self._load[kind].nodes += 1
        self._dirty = True

    def node_leaving(self, node: Node, now: float) -> list[Task]:
        """A node leaves, its running tasks run again; them."""
        lost = [self.owner.kill(task.id, now, reason="node lost") for task in list(node.tasks.values())]
        for kind in KINDS:
            self._load[kind].total_slots -= node.slots[kind]
            self._load[kind].nodes -= 1
        return lost

    def nodes_changed(self) -> None:
        """A node has left: the next update recomputes everything (the cluster's slots are
        counted as nodes come and go)."""
        self._dirty = True

    # ================================================================== jobs
    def spec_problem(self, spec: JobSpec) -> str | None:
        """Maps and reduces only."""
        if spec.tasks:
            return "plain tasks (not maps or reduces) need [scheduler] mode = \"resources\""
        return None

    def live_queues(self) -> Mapping[str, str]:
        """No queue tree (a PoolResolver names any pool)."""
        return {}

    def place_job(self, job: Job, now: float) -> None:
        """The job joins the pool placement named."""
        self._pool(job.pool).jobs[job.id] = job

    def admit_job(self, job: Job, now: float) -> None:
        """Nothing to admit now (the next update admits jobs under the running-job limits);
        the hints asked before may not hold."""
        self._dirty = True
        self._hint_epoch += 1

    def next_empty(self) -> Job | None:
        """None (a job with no task ends when its update admits it)."""
        return None

    def job_changed(self, job: Job) -> None:
        """An admin action changed ``job`` (its priority): the next update recomputes all."""
        self._dirty = True

    def priority_allowed(self, job: Job, priority: str, caller: tuple[str, Sequence[str]] | None = None) -> None:
        """Slot mode: every priority is allowed."""

    def move_target(self, job: Job, pool_name: str, caller: tuple[str, Sequence[str]] | None = None) -> str | None:
        """``pool_name`` (created if new), or None when there is nothing to move (it has ended,
        or is in that pool).  ``caller`` is not checked: MR1 pools have no ACLs, and
        submission checks none either."""
        if job.is_finished or job.pool == pool_name:
            return None
        return pool_name

    def move_job(self, job: Job, target: str, now: float) -> None:
        """``job`` and its running tasks' counts leave its pool for ``target``."""
        pool_name = target
        self._dirty = True  # the next update rebuilds the orders even if this fails midway
        self._map_version += 1
        old = self.pools[job.pool]
        new = self._pool(pool_name)
        for kind in KINDS:
            js = job.sched[kind]
            if js._ordered:
                self._job_order[old.name][kind].remove(js)
                js._ordered = False
            self._reposition(old.sched[kind], -job.running[kind])
            self._reposition(new.sched[kind], job.running[kind])
        del old.jobs[job.id]
        new.jobs[job.id] = job
        job._pool = pool_name

    # ================================================================== what a heartbeat may do
    def running_work(self) -> bool:
        """The scheduler's ``work_running``: a slot of either kind is taken."""
        load = self._load
        return any(load[k].running for k in KINDS)

    def has_requests(self) -> bool:
        """Has some job a task pending?"""
        return bool(self._pending_work[MAP] or self._pending_work[REDUCE])

    def pending_work(self, kind: str) -> int:
        """An upper bound on the tasks of ``kind`` a heartbeat could launch now:
        0 means no heartbeat can assign one until an update, a kill or a
        finish changes the state (the simulator skips heartbeats then).  Cheap."""
        load = self._load[kind]
        free = load.runnable - load.running
        pending = self._pending_work[kind]
        if free == 0:  # the heartbeat's runningMaps == runnableMaps test
            return 0
        n = pending if free < 0 or pending < free else free  # free < 0: capped demand below what runs
        return n if n > 0 else 0

    @property
    def pending_tasks(self) -> Mapping[str, int]:
        """The tasks of each kind waiting in runnable jobs, as the last update counted them and
        launches, finishes and kills since moved them (read-only)."""
        return self._pending_work

    def _may_assign(self, node: Node, kind: str, assigned: int) -> bool:
        """May a heartbeat of ``node`` that has assigned ``assigned`` tasks of ``kind`` so far
        try one more?  Not past the kind's assignment cap, not when the cluster runs what
        its runnable jobs demand (Hadoop stops a kind at runningMaps == runnableMaps, not
        >=: after a reload lowers a pool's maxMaps below what it runs, the cluster's capped
        demand is below what runs and the other pools still get tasks), and only if the
        LoadManager's ``cs_can_assign`` allows (None: the node's free slots decide).  The
        one precondition ``heartbeat`` and ``skip_quiet_heartbeat`` share."""
        ld = self._load[kind]
        if assigned >= self._assign_caps[kind] or ld.running == ld.runnable:
            return False
        ok = self.plugins.can_assign(node, kind, ld)
        if ok is None:
            return node._running[kind] < node.slots[kind]
        if ok is True or ok is False:
            return ok
        return answers.flag(self.owner._who("LoadManager"), "cs_can_assign", ok) is True

    # ================================================================== the orders
    def _order_key(self, policy: SharePolicyCallers, s: Schedulable) -> Any:
        """``policy``'s order key for ``s``, which must not be None."""
        key = policy.order_key(s)
        if key is None or has_nan(key):
            raise self._key_error(policy, None, key)
        return key

    def _key_error(self, policy: SharePolicyCallers, exc: BaseException | None, key: Any = None) -> CoreSchedulerError:
        """The error for ``policy``'s order keys: None (``exc`` None), a NaN (``key``), or
        keys that do not compare.  The orders are rebuilt by the next update."""
        self._dirty = True
        who = self.plugins.who("SharePolicy", policy.name)
        if isinstance(exc, UnorderedKey) and has_nan(exc.key):
            key = exc.key
            exc = None
        if exc is not None:
            return chained(answers.incomparable(who, exc), exc)
        return answers.no_key(who) if key is None else answers.nan_key(who, key)

    def _sorted(self, order: KeyedOrder, items: list[Schedulable], policy: SharePolicyCallers) -> None:
        """``order.update(items)``; keys that do not compare are the policy's error."""
        try:
            order.update(items)
        except answers.INCOMPARABLE as exc:
            order.clear()
            for s in items:
                s._ordered = False
            raise self._key_error(policy, exc) from exc

    def _reposition(self, s: Schedulable, delta: int) -> None:
        """Change a pool schedulable's running count and re-sort it; the heartbeat
        order holds the pool while its own job order is not empty."""
        order = self._pool_order[s.kind]
        was = s._ordered
        if was:
            order.remove(s)
            s._ordered = False  # until it is back in (a failing order key leaves it out, flagged so)
        capped = s.running >= s.max_share
        s.running += delta
        if self._job_order[s.name][s.kind]:
            key: Any = self.root_policy.order_key(s)
            s._key = key
            if key is None:
                raise self._key_error(self.root_policy, None, key)
            try:
                order.add(s)  # a NaN key does not order against its neighbours: UnorderedKey
            except answers.INCOMPARABLE as exc:  # keys that do not compare: the policy's error
                raise self._key_error(self.root_policy, exc) from exc
            s._ordered = True
        if s.kind == MAP and (s._ordered != was or (s.running >= s.max_share) != capped):
            self._map_version += 1  # the jobs a heartbeat walks for maps may have changed

    def _place(self, job: Job, kind: str, delta: int = 0) -> None:
        """Change a job's running count by ``delta`` and put it where it belongs
        in its pool's heartbeat order: there, at its current key, while it has a
        task a heartbeat could launch (:func:`offerable`); else out of it."""
        js = job.sched[kind]
        order = self._job_order[job._pool][kind]
        was = js._ordered
        if was:
            order.remove(js)
            js._ordered = False  # until it is back in (a failing order key leaves it out, flagged so)
        js.running += delta
        if offerable(job, kind):
            policy = self._pool_policy[job._pool]
            key: Any = policy.order_key(js)
            js._key = key
            if key is None:
                raise self._key_error(policy, None, key)
            try:
                order.add(js)  # a NaN key does not order against its neighbours: UnorderedKey
            except answers.INCOMPARABLE as exc:  # keys that do not compare: the policy's error
                raise self._key_error(policy, exc) from exc
            js._ordered = True
        if kind == MAP and js._ordered != was:
            self._map_version += 1

    def _job_running(self, job: Job, kind: str, delta: int) -> None:
        job.running[kind] += delta
        self._load[kind].running += delta
        pool = self.pools[job._pool].sched[kind]
        try:
            self._place(job, kind, delta)
        except BaseException as exc:
            # the job's policy failed (its order key): the counts still change, the orders
            # are rebuilt by the next update (_key_error set _dirty); the first error is the
            # one raised, and none while a failed heartbeat takes its launches back
            self._dirty = True
            try:
                self._reposition(pool, delta)
            except Exception:
                pass
            if not self._taking_back or isinstance(exc, KeyboardInterrupt):
                raise
            return
        try:
            self._reposition(pool, delta)
        except BaseException as exc:
            self._dirty = True
            if not self._taking_back or isinstance(exc, KeyboardInterrupt):
                raise

    # ================================================================== preemption
    def preemption_plan(self, kind: str, now: float) -> PreemptionPlan:
        """What the root share policy would preempt for ``kind`` now (no kill)."""
        plan_fn = self.root_policy.plan_preemption
        if plan_fn is None:
            return PreemptionPlan(count=0)
        plan = plan_fn([p.sched[kind] for p in self.pools.values()], kind, now)
        if plan is None:
            return PreemptionPlan(count=0)
        return answers.preemption_plan(self.plugins.who("SharePolicy", self.root_policy.name), plan)

    def preemption_due(self, now: float, last: float) -> bool:
        """Every ``[scheduler] preemption_interval`` (MR1's ``preemptionInterval``)."""
        return not now - last < self.settings.preemption_interval

    def preempt_tasks(self, now: float) -> list[Task]:
        """Per kind, the root share policy's plan, its victims killed."""
        killed: list[Task] = []
        owner = self.owner
        for kind in KINDS:
            plan = self.preemption_plan(kind, now)
            if plan.count <= 0:
                continue
            if plan.victims is not None:
                victims = answers.plan_victims(self.plugins.who("SharePolicy", self.root_policy.name), plan,
                                               self._running_tasks, kind)
            else:
                candidates = sorted(
                    (t for t in self._running_tasks.values() if t.kind == kind),
                    key=lambda t: (t.job.pool, t.job.submit_time, t.job.id, t.index),
                )
                chosen = self.plugins.select_victims(candidates, plan.count, dict(plan.allowance), kind, now)
                if chosen is not None:
                    who = owner._who("VictimSelector")
                    chosen = answers.chosen_victims(who, answers.victims(who, chosen), candidates, plan.count)
                victims = self._checked_victims(chosen or [], candidates, plan)
            if self.settings.preemption_only_log:
                for task in victims:
                    log.info("would preempt %s on %s (preemption_only_log)", task.id, task.node)
                owner.would_preempt.extend(victims)
                continue
            for task in victims:
                if task.state == RUNNING and task.kind == kind:
                    killed.append(owner.kill(task.id, now))
        return killed

    @staticmethod
    def _checked_victims(chosen: Iterable[Task], candidates: list[Task], plan: PreemptionPlan) -> list[Task]:
        allowed = {id(t) for t in candidates}
        left = dict(plan.allowance)
        out: list[Task] = []
        for task in chosen:
            if len(out) >= plan.count:
                break
            if id(task) not in allowed or left.get(task.job.pool, 0) <= 0:
                continue
            left[task.job.pool] -= 1
            out.append(task)
        return out

    @staticmethod
    def _update_starvation(pool_scheds: list[Schedulable], now: float) -> None:
        """Starvation bookkeeping (Hadoop ``FairScheduler.updatePreemptionVariables``).

        As in Hadoop, the update runs it only with ``[scheduler] preemption``
        on; without preemption ``last_time_at_min_share`` and
        ``last_time_at_half_fair_share`` keep the pool's creation time, so a
        pool counts as starved (:meth:`Schedulable.starved_for`) once a
        preemption timeout has passed since it was created — which is what
        ends delay scheduling for it in Hadoop (``getAllowedLocalityLevel``);
        the ``delay`` plugin's ``starvation`` setting offers measured times
        instead."""
        for ps in pool_scheds:  # min(a, b) as `b if b < a else a`, its exact result, inline
            running, demand, least = ps.running, ps.demand, ps.min_share
            if running >= (demand if demand < least else least):
                ps.last_time_at_min_share = now
            half = (ps.fair_share or 0.0) / 2.0
            if running >= math.floor(demand if demand < half else half):
                ps.last_time_at_half_fair_share = now

    # ================================================================== reports
    def shares_report(self) -> dict[str, Any]:
        """The scheduler's ``shares()``: every pool's and job's fair share per kind."""
        return {
            "pools": {name: {k: p.sched[k].fair_share for k in KINDS} for name, p in self.pools.items()},
            "jobs": {jid: {k: j.sched[k].fair_share for k in KINDS} for jid, j in self.jobs.items()},
        }

    def snapshot_report(self) -> dict[str, Any]:
        """The scheduler's ``snapshot()`` (without its time)."""
        pools = {}
        for name, p in self.pools.items():
            pools[name] = {
                "policy": p.policy,
                **{
                    k: {
                        "fair_share": p.sched[k].fair_share,
                        "min_share": p.sched[k].min_share,
                        "demand": p.sched[k].demand,
                        "running": p.sched[k].running,
                        "weight": p.sched[k].weight,
                    }
                    for k in KINDS
                },
            }
        jobs = {}
        for jid, j in self.jobs.items():
            jobs[jid] = {
                "pool": j.pool,
                "user": j.user,
                "priority": j.priority,
                "runnable": j.runnable,
                **{
                    k: {
                        "fair_share": j.sched[k].fair_share,
                        "demand": j.sched[k].demand,
                        "running": j.running[k],
                        "weight": j.sched[k].weight,
                    }
                    for k in KINDS
                },
            }
        return {"pools": pools, "jobs": jobs}
