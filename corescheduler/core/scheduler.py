"""The scheduler core: the update cycle, heartbeat assignment and preemption.

Semantics are the Hadoop 1.x Fair Scheduler's (the "Schedulable" rewrite,
``src/contrib/fairscheduler``, ``FairScheduler.java``); every policy decision
is a hook (:mod:`corescheduler.hookspecs`), so this module holds only the
mechanism:

* :meth:`Scheduler.update` — Hadoop's ``update()``: which jobs may run under
  the user and pool running-job limits (priority, then submit time, then id),
  lazy initialisation, demands, weights (priority × WeightAdjuster chain),
  pool and job fair shares (SharePolicy), the assignment order, and the
  starvation times that preemption and delay scheduling read.
* :meth:`Scheduler.heartbeat` — Hadoop's ``assignTasks()``: alternate maps
  and reduces by what the node runs, pools in SharePolicy order, jobs in their
  pool's order, LoadManager and TaskSelector deciding; one task a heartbeat,
  or several with ``assign_multiple``.
* :meth:`Scheduler.preempt` — Hadoop's ``preemptTasksIfNecessary()``: the
  root SharePolicy plans, the VictimSelector chooses; killed tasks become
  pending again.

Pools and the jobs inside each pool are kept sorted by their policy's order
key (:class:`~corescheduler.core.order.KeyedOrder`) and re-positioned when one
changes, instead of Hadoop's full sort on every assignment; the order holds
only jobs with a task a heartbeat could launch, and only pools holding such
jobs, so a heartbeat never walks idle pools or jobs whose tasks all run.

The same class serves the test harness, the simulator and the live service;
the caller owns the clock and passes ``now`` (seconds) to every call.

This module is long on purpose: it is the hot path (a heartbeat, a launch, a
finish and an update are all here, and the simulator calls them millions of
times a run).  The heartbeat loop keeps its work inline and reads attributes
into locals; splitting it into helpers or mixins in other modules cost
measurable time per assignment (``benchmarks/bench_heartbeat.py``).  The
parts a reader wants on their own live elsewhere: the model
(:mod:`corescheduler.core.model`), the maths (:mod:`~corescheduler.core.fairshare`),
the orderings (:mod:`~corescheduler.core.order`) and every policy (plugins).
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from mypy_extensions import mypyc_attr

from corescheduler.core import hook_answers as answers
from corescheduler.core.allocations import Allocations
from corescheduler.core.engine import Engine
from corescheduler.core.framework import EngineConfig, Plugins, SharePolicyCallers, plugin_set
from corescheduler.core.hints import NOT_OFFERED, SKIPPED_AGAIN, Hint, widens_at
from corescheduler.core.model import (
    COMPLETE,
    KINDS,
    LOCALITY_RANK,
    MAP,
    OFF_RACK,
    PENDING,
    PRIORITY_RANK,
    PRIORITY_WEIGHT,
    REDUCE,
    RUNNING,
    TASK,
    Assignment,
    Cluster,
    ClusterLoad,
    Job,
    JobSpec,
    Node,
    Pool,
    PreemptionPlan,
    Rejection,
    Schedulable,
    Task,
    check_priority,
)
from corescheduler.core.order import KeyedOrder, UnorderedKey, has_nan
from corescheduler.core.resource_scheduler import ResourceScheduler
from corescheduler.core.resources import Resources
from corescheduler.core.task_ledger import TaskLedger
from corescheduler.errors import AllocationError, CoreSchedulerError, SchedulerStateError

DEFAULT_POOL = "default"
log = logging.getLogger("corescheduler.core.scheduler")
_M = TypeVar("_M", bound=Callable[..., Any])
_E = TypeVar("_E", bound=BaseException)


def _offerable(job: Job, kind: str) -> bool:
    """Whether a heartbeat could launch a task of ``kind`` of ``job``: it is
    runnable, has a pending task of that kind, and for reduces slow start is
    reached.  Only such jobs are in the heartbeat order (and only pools with
    such jobs), so a heartbeat never walks jobs or pools with nothing to run."""
    return job.runnable and job.pending[kind] > 0 and (kind == MAP or job.reduces_schedulable)


def _chained(error: _E, cause: BaseException | None) -> _E:
    """``error`` with ``cause`` as its ``__cause__`` (and its context suppressed), as
    ``raise error from cause`` does: set by hand because mypyc, which compiles this module
    in the compiled build (setup.py), drops a raise statement's ``from``."""
    error.__cause__ = cause
    return error


def _plugin_errors(method: _M) -> _M:
    """Turn an exception a plugin raised inside a public method into one
    :class:`~corescheduler.errors.PluginExecutionError` naming the plugin and
    its extension point (:meth:`PluginSet.blame`); the core's own errors pass.
    ``SystemExit`` from a hook (``sys.exit(3)``), ``GeneratorExit`` or a plugin's own
    ``BaseException`` subclass is such an exception too: a plugin does not end the
    program; ``KeyboardInterrupt`` passes."""

    @functools.wraps(method)
    def wrapper(self: Scheduler, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except BaseException as exc:  # all but Ctrl-C: SystemExit, GeneratorExit, a plugin's own
            if isinstance(exc, KeyboardInterrupt):
                raise
            blamed = self.plugins.blame(exc)
            if blamed is None:
                raise
            raise _chained(blamed, exc) from exc

    return wrapper  # type: ignore[return-value]


class JobRejectedError(SchedulerStateError):
    """A PoolResolver rejected the job."""


class AccessDeniedError(JobRejectedError):
    """The queue's ACLs refuse the submitting user (``aclSubmitApps`` / ``aclAdministerApps``)."""


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py), a user may still subclass it
class Scheduler:
    """One scheduler over one cluster.

    :param config: the parsed ``corescheduler.toml``.
    :param cluster: the nodes.
    :param allocations: the allocation file in force (default: empty).
    :param plugins: a ready plugin set (:class:`~corescheduler.core.framework.Plugins`: a
        :class:`~corescheduler.plugin_manager.PluginSet`; default: built from ``config``).
    :param extra_plugins: in-process plugins by name (classes or objects),
        selectable in ``config`` like installed ones (tests, notebooks).
    :param on_event: called with each event dict (SPEC §5 ``events.jsonl``).
    :param history: keep finished jobs (:attr:`finished`, with their tasks)
        and preempted tasks (:attr:`killed`); a long simulation turns it off
        so that memory holds only the jobs in the system.  Without history a
        finished job lets go of its tasks once the ``cs_job_removed``
        listeners have seen it (:meth:`Job._drop_tasks`), so the memory is
        freed at once rather than by the cyclic garbage collector.
    :param reuse_quiet_updates: when nothing changed since the last update
        (no submission, launch, finish, kill or admin action, and the weight
        adjusters gave the same weights), keep the runnability, shares and
        order that update computed instead of recomputing them; starvation
        times and ``cs_update`` still advance.  Exact as long as share
        policies are functions of the schedulables they are given (their
        hooks get no clock).  The simulator turns it on: most of its 0.5 s
        update ticks fall between events.
    """

    def __init__(
        self,
        config: EngineConfig,
        cluster: Cluster,
        allocations: Allocations | None = None,
        *,
        plugins: Plugins | None = None,
        extra_plugins: Mapping[str, Any] | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        history: bool = True,
        reuse_quiet_updates: bool = False,
    ) -> None:
        self.config = config
        self.settings = config.scheduler
        self.cluster = cluster
        if plugins is None:
            plugins = plugin_set(config, extra_plugins, self.heartbeat_interval)
        self.plugins = plugins
        #: every task attempt's launch and end, and their events (both engines)
        self.ledger = TaskLedger(cluster.nodes, plugins.listeners, on_event, history,
                                 config.cluster.network_distances)
        self.reuse_quiet_updates = reuse_quiet_updates
        self._changes_seen = -1  # the ledger's launches and releases as of the last update
        self.now = 0.0
        self.allocations = Allocations.empty()
        self.pools: dict[str, Pool] = {}
        self.jobs: dict[str, Job] = {}  # submitted and not finished, submission order
        self.finished: dict[str, Job] = {}
        #: preempted tasks (the ledger's list)
        self.killed: list[Task] = self.ledger.killed
        #: with ``preemption_only_log``: the tasks preemption would have killed
        self.would_preempt: list[Task] = []
        #: the running tasks by id (the ledger's, read-only here)
        self._running_tasks: dict[str, Task] = self.ledger.running
        self._pool_order: dict[str, KeyedOrder] = {k: KeyedOrder() for k in KINDS}
        self._job_order: dict[str, dict[str, KeyedOrder]] = {}
        self._pool_policy: dict[str, SharePolicyCallers] = {}
        self.root_policy = self.plugins.root_policy
        self._load = {
            k: ClusterLoad(kind=k, runnable=0, running=0, total_slots=cluster.total_slots(k), nodes=len(cluster.nodes))
            for k in KINDS
        }
        self._rack_of = cluster.rack_of
        # pending tasks a heartbeat could pick: of runnable jobs, reduces past slow start
        self._pending_work = {MAP: 0, REDUCE: 0}
        self._job_seq = 0
        self._last_preempt_check = -math.inf
        self._last_update = -math.inf
        self._dirty = True
        #: a failed heartbeat takes its launches back: order-key errors then are not raised again
        self._taking_back = False
        #: changes whenever the set of jobs a heartbeat walks for maps may change (a job
        #: enters or leaves its pool's map order, a pool reaches or leaves its cap, an update)
        #: some pool's share policy admits jobs (cs_admit_job; set by _configure_pool): no parking
        self._admitting = False
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
        self._notify = self.plugins.listeners
        #: the TaskSelector's cs_select_hint when a heartbeat that skips the same jobs as the
        #: one before changes nothing for every other plugin that listens to heartbeats
        #: (skip_quiet_heartbeat, parking), else None
        self._hint = self.plugins.quiet_heartbeats()
        #: the TaskSelector's cs_select_hint (wants_idle_heartbeat), else None
        self._any_hint = self.plugins.select_hint
        #: the LoadManager's ``empty_nodes_take_tasks`` declaration (its plugin is fixed)
        self._empty_take: bool = self.plugins.empty_nodes_take_tasks()
        #: bumped by every heartbeat, update and lost output: with ``_changes`` (launches and
        #: releases), the hints asked since the last bump hold (``_hints``, ``_wants``)
        self._hint_epoch = 0
        #: job id -> (hint, the time before which it holds), as of ``_hints_key``
        self._hints: dict[str, tuple[Any, float]] = {}
        self._hints_key = (-1, -1)
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
        #: resource mode's engine (``[scheduler] mode = "resources"``), else None
        self._rs: ResourceScheduler | None = None
        self.resource_mode = self.settings.mode == "resources"
        if self.resource_mode:
            default = config.cluster.node_resources
            for node in cluster.nodes.values():
                if node.capacity is None:
                    node.capacity = default
        self.set_allocations(allocations or Allocations.empty(), update=False)
        #: the engine, picked once: the resource engine, or this object as the slot engine
        self._engine: Engine = self
        if self.resource_mode:
            self._rs = ResourceScheduler(self)
            self._engine = self._rs

    @property
    def on_event(self) -> Callable[[dict[str, Any]], None] | None:
        """Called with each event dict (SPEC §5 ``events.jsonl``); the ledger writes them."""
        return self.ledger.on_event

    @on_event.setter
    def on_event(self, fn: Callable[[dict[str, Any]], None] | None) -> None:
        self.ledger.on_event = fn

    @property
    def history(self) -> bool:
        """Keep finished jobs and preempted tasks (the constructor's ``history``)."""
        return self.ledger.history

    @history.setter
    def history(self, keep: bool) -> None:
        self.ledger.history = keep

    # ================================================================== helpers
    def _emit(self, event: dict[str, Any]) -> None:
        self.ledger.emit(event)

    def _tick(self, now: float | None) -> float:
        if now is None:
            return self.now
        if not math.isfinite(now):
            raise SchedulerStateError(f"the clock must be a finite number of seconds, got {float(now)}")
        if now < self.now:
            raise SchedulerStateError(f"clock went backwards: {float(now)} < {self.now}")
        self.now = float(now)
        return self.now

    def heartbeat_interval(self) -> float:
        """Seconds between a node's heartbeats on this cluster now (Hadoop 1.x
        ``JobTracker.getNextHeartbeatInterval``:
        :meth:`~corescheduler.config.ClusterConfig.next_heartbeat_interval`)."""
        return self.config.cluster.next_heartbeat_interval(len(self.cluster.nodes))

    def add_node(
        self, name: str, rack: str, map_slots: int = 0, reduce_slots: int = 0, resources: Resources | None = None
    ) -> Node:
        """A node joins the cluster (its slots count from the next update); in
        resource mode it offers ``resources`` (default ``[cluster] node_resources``)."""
        if name in self.cluster.nodes:
            raise SchedulerStateError(f"node {name!r} already exists")
        node = self.cluster.add_node(name, rack, map_slots, reduce_slots)
        self._rack_of[name] = rack
        try:
            self._engine.node_added(node, resources)
        except SchedulerStateError:  # it refused the node: the cluster is as before
            del self.cluster.nodes[name]
            self._rack_of.pop(name, None)
            raise
        return node

    def node(self, name: str) -> Node:
        try:
            return self.cluster.nodes[name]
        except KeyError:
            raise _chained(SchedulerStateError(f"unknown node {name!r}"), None) from None

    def job(self, job_id: str) -> Job:
        job = self.jobs.get(job_id) or self.finished.get(job_id)
        if job is None:
            raise SchedulerStateError(f"unknown job {job_id!r}")
        return job

    def task(self, task_id: str) -> Task:
        task = self._running_tasks.get(task_id)
        if task is not None:
            return task
        job_id, _, rest = task_id.rpartition("_")
        job_id, _, kind_letter = job_id.rpartition("_")
        job = self.jobs.get(job_id) or self.finished.get(job_id)
        if job is not None and kind_letter in ("m", "r", "t") and rest.isdigit():
            tasks = job.tasks.get({"m": MAP, "r": REDUCE, "t": TASK}[kind_letter], [])
            index = int(rest)
            if index < len(tasks):
                return tasks[index]
        raise SchedulerStateError(f"unknown task {task_id!r}")

    def _pool(self, name: str) -> Pool:
        pool = self.pools.get(name)
        if pool is None:
            pool = Pool(name=name, spec=self.allocations.pool(name))
            self.pools[name] = pool
            self._job_order[name] = {k: KeyedOrder() for k in KINDS}
            self._configure_pool(pool)
            for kind in KINDS:
                ps = pool.sched[kind]
                ps.last_time_at_min_share = self.now
                ps.last_time_at_half_fair_share = self.now
                ps._key = self._order_key(self.root_policy, ps)
        return pool

    def remove_empty_pools(self) -> list[str]:
        """Forget the pools placement created that are empty: not in the allocations, not a
        PoolResolver's known pool, not the default pool, with no job and nothing running; their
        names.  YARN removes such dynamic queues (``QueueManager.removeEmptyDynamicQueues``, an
        ``FSQueue`` whose ``isDynamic()`` and that has no apps); in resource mode the queue
        tree does so at every update.  MR1's ``PoolManager`` never forgot a pool, so the
        simulator does not call this; the live service does, which keeps ``/metrics`` and its
        page bounded however many one-off pools its users name."""
        return self._engine.drop_empty()

    def _finish_empty(self, now: float) -> None:
        """Jobs with no task end as soon as they may run (the engine says which)."""
        engine = self._engine
        job = engine.next_empty()
        while job is not None:
            if not job.is_finished and job.id in self.jobs:
                self._finish_job(job, now, update=False)
            job = engine.next_empty()

    # ------------------------------------------------------------------ the slot engine (Engine)
    def node_added(self, node: Node, resources: Resources | None) -> None:
        """The slot engine: a node's slots count from the next update."""
        for kind in KINDS:
            self._load[kind].total_slots += node.slots[kind]
            self._load[kind].nodes += 1
        self._dirty = True

    def node_leaving(self, node: Node, now: float) -> list[Task]:
        """The slot engine: a node leaves, its running tasks run again; them."""
        lost = [self.kill(task.id, now, reason="node lost") for task in list(node.tasks.values())]
        for kind in KINDS:
            self._load[kind].total_slots -= node.slots[kind]
            self._load[kind].nodes -= 1
        return lost

    def nodes_changed(self) -> None:
        """The slot engine: nothing (the cluster's slots are counted as nodes come and go)."""

    def next_empty(self) -> Job | None:
        """The slot engine: None (a job with no task ends when its update admits it)."""
        return None

    def live_queues(self) -> Mapping[str, str]:
        """The slot engine: no queue tree (a PoolResolver names any pool)."""
        return {}

    def drop_empty(self) -> list[str]:
        """The slot engine's :meth:`remove_empty_pools`."""
        keep = {DEFAULT_POOL, *self.allocations.pool_names(), *self._known_pools(self.allocations)}
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

    def _configure_pool(self, pool: Pool) -> None:
        spec = self.allocations.pool(pool.name)
        pool.spec = spec
        pool.policy = self.allocations.pool_policy(pool.name, self.root_policy.name)
        self._pool_policy[pool.name] = self.plugins.share_policy(pool.policy)
        if self._pool_policy[pool.name].admit_job is not None:
            self._admitting = True  # a job's refusal may end with no change a parked node sees
        for kind in KINDS:
            ps = pool.sched[kind]
            ps.weight = spec.weight
            ps.min_share = float(spec.min_share(kind))
            ps.max_share = spec.max_share(kind)
            ps.min_share_timeout = self.allocations.min_share_preemption_timeout(pool.name)
            ps.fair_share_timeout = self.allocations.fair_share_preemption_timeout

    # ================================================================== allocations
    @_plugin_errors
    def set_allocations(self, allocations: Allocations, update: bool = True) -> None:
        """Put new allocations in force.

        Every share policy the file names (``schedulingMode``) is loaded first;
        if one is unknown the error is raised and the previous allocations
        stay in force.
        """
        if self.resource_mode:
            self._set_queue_allocations(allocations, update)
            return
        root = self.root_policy.name
        needed: dict[str, str | None] = {
            allocations.default_pool_scheduling_mode if allocations.default_mode_given else root: None
        }
        for name in allocations.pool_names():
            needed.setdefault(allocations.pool_policy(name, root), name)
        for mode, pool in needed.items():
            try:
                self.plugins.share_policy(mode)  # raises before anything changes
            except CoreSchedulerError as exc:
                spec = allocations.pools.get(pool) if pool else None
                what = f"pool {pool!r} schedulingMode {mode!r}" if pool else f"defaultPoolSchedulingMode {mode!r}"
                raise _chained(AllocationError(f"{what}: {exc}", allocations.source or "<allocations>",
                                               spec.line if spec else None), exc) from exc
        known = self._known_pools(allocations)  # before anything changes: a bad answer keeps the old state
        self.allocations = allocations
        for name in (*allocations.pool_names(), *known):
            self._pool(name)
        self._pool(DEFAULT_POOL)
        for configured in self.pools.values():
            self._configure_pool(configured)
        self._dirty = True
        if update:
            self.update(self.now)

    def _set_queue_allocations(self, allocations: Allocations, update: bool) -> None:
        """Resource mode: every policy the queue tree names must load, then the tree is re-read."""
        queues = allocations.queue_config()
        for _, spec in queues.walk():
            policy = queues.scheduling_policy(spec.name, self.settings.share_policy)
            try:
                self.plugins.share_policy(policy)
            except CoreSchedulerError as exc:
                raise _chained(AllocationError(
                    f"queue {spec.name!r} schedulingPolicy {policy!r}: {exc}", allocations.source or "<allocations>",
                    spec.line,
                ), exc) from exc
        self._known_pools(allocations)  # a bad answer raises before anything changes
        self.allocations = allocations
        if self._rs is not None:
            self._rs.reconfigure()
            if update:
                self.update(self.now)

    def rejected(self, reason: str, access: bool = False) -> JobRejectedError:
        """The error for a submission that is refused (placement, queue type; ``access``: an ACL)."""
        return AccessDeniedError(reason) if access else JobRejectedError(reason)

    def remove_node(self, name: str, now: float | None = None) -> list[Task]:
        """A node leaves the cluster: its running tasks are lost and run again; returns them."""
        now = self._tick(now)
        node = self.node(name)
        lost = self._engine.node_leaving(node, now)
        del self.cluster.nodes[name]
        self._rack_of.pop(name, None)
        self._engine.nodes_changed()
        self._dirty = True
        return lost

    def _known_pools(self, allocations: Allocations) -> list[str]:
        """The pools the PoolResolvers configure themselves (``cs_known_pools``)."""
        names: list[str] = []
        plugins = self.plugins
        for known, name in zip(plugins.known_pools, plugins.known_pool_names):
            answer = known(allocations)
            if answer is not None:
                names.extend(answers.pool_names(plugins.who("PoolResolver", name), answer))
        return names

    # ================================================================== jobs
    @_plugin_errors
    def submit(self, spec: JobSpec, now: float | None = None, *, update: bool = True) -> Job:
        """Submit a job: place it in a pool (PoolResolver), then update.

        ``update=False`` leaves the update to the caller (a simulator
        submitting many jobs at one instant runs one update after them).
        """
        now = self._tick(now)
        job_id = spec.id or f"job_{self._job_seq + 1:04d}"  # the number is used only if the job is accepted
        if job_id in self.jobs or job_id in self.finished:
            raise SchedulerStateError(f"job id {job_id!r} already exists")
        for kind, specs in (("map", spec.maps), ("reduce", spec.reduces)):  # a task's: the engine's spec_problem
            for i, ts in enumerate(specs):
                for n in ts.input_nodes:
                    if n not in self._rack_of:
                        raise SchedulerStateError(f"job {job_id} {kind} {i}: unknown node {n!r} in input_nodes")
        problem = self._engine.spec_problem(spec)
        if problem is not None:
            raise SchedulerStateError(f"job {job_id}: {problem}")
        if spec.shuffle is not None:
            problem = spec.shuffle.problem(len(spec.maps), len(spec.reduces))
            if problem is None and not spec.reduces:
                problem = "it has no reduces, so nothing is shuffled"
            if problem is not None:
                raise SchedulerStateError(f"job {job_id}: shuffle: {problem}")
        pool_name = self._resolve_pool(spec)
        job = Job(
            id=job_id,
            spec=spec,
            pool=pool_name,
            user=spec.user,
            priority=spec.priority,
            submit_time=now if spec.submit is None else float(spec.submit),
            reduce_slowstart=self.settings.reduce_slowstart,
        )
        self._engine.place_job(job, now)  # placement checks: raises JobRejectedError; admitted below
        self._job_seq += 1
        self.jobs[job_id] = job
        self._emit({"time": now, "type": "job_submit", "job": job_id, "pool": job.pool, "user": job.user})
        self._engine.admit_job(job, now)  # after job_submit: it may write job_start (SPEC §5)
        for fn in self._notify("cs_job_added"):
            fn(job, now)
        self._dirty = True
        self._hint_epoch += 1
        if update:
            self.update(now)
        else:
            self._finish_empty(now)
        return job

    def spec_problem(self, spec: JobSpec) -> str | None:
        """The slot engine: maps and reduces only."""
        if spec.tasks:
            return "plain tasks (not maps or reduces) need [scheduler] mode = \"resources\""
        return None

    def place_job(self, job: Job, now: float) -> None:
        """The slot engine: the job joins the pool placement named."""
        self._pool(job.pool).jobs[job.id] = job

    def admit_job(self, job: Job, now: float) -> None:
        """The slot engine: nothing (the next update admits jobs under the running-job limits)."""

    def _resolve_pool(self, spec: JobSpec) -> str:
        queues = self._engine.live_queues()
        plugins = self.plugins
        for resolve, name in zip(plugins.resolvers, plugins.resolver_names):
            answer = resolve(spec, self.allocations, queues)
            if answer is None:
                continue
            answer = answers.pool_name(plugins.who("PoolResolver", name), answer)
            if isinstance(answer, Rejection):
                raise JobRejectedError(f"job rejected by pool placement: {answer.reason}")
            return answer
        return DEFAULT_POOL

    @_plugin_errors
    def move(self, job_id: str, pool_name: str, now: float | None = None) -> None:
        """Admin action: move a job (and its running tasks' accounting) to another pool."""
        now = self._tick(now)
        job = self.job(job_id)
        if self._engine.move_job(job, pool_name):
            self.update(now)

    def move_job(self, job: Job, pool_name: str) -> bool:
        """The slot engine: ``job`` and its running tasks' counts leave its pool for ``pool_name``;
        False when there is nothing to move (it has ended, or is in that pool)."""
        if job.is_finished or job.pool == pool_name:
            return False
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
        return True

    @_plugin_errors
    def set_priority(self, job_id: str, priority: str, now: float | None = None) -> None:
        """Admin action: change a job's priority."""
        now = self._tick(now)
        job = self.job(job_id)
        try:
            job._priority = check_priority(priority)
        except ValueError as exc:
            raise _chained(SchedulerStateError(str(exc)), None) from None
        for js in job.sched.values():  # each kind's, or the resource engine's one
            js.priority = PRIORITY_RANK[job.priority]
        self._dirty = True
        self.update(now)

    # ================================================================== update
    @_plugin_errors
    def update(self, now: float | None = None) -> None:
        """Recompute runnability, demands, weights, shares and order (Hadoop's ``update()``)."""
        now = self._tick(now)
        self._last_update = now
        self._hint_epoch += 1
        if self._rs is not None:
            self._finish_empty(now)
            self._rs.update(now)
            for fn in self._notify("cs_update"):
                fn([], now)
            return
        quiet = self.reuse_quiet_updates and not self._dirty and self.ledger.changes == self._changes_seen
        self._dirty = True  # until this update has succeeded
        if not quiet:
            self._update_runnability(now)
        adjusters = self.plugins.weight_adjusters
        pending = {MAP: 0, REDUCE: 0}
        for job in self.jobs.values():
            runnable = job.runnable
            if runnable:
                pending[MAP] += job.pending[MAP]
                if job.pending[REDUCE] and job.reduces_schedulable:
                    pending[REDUCE] += job.pending[REDUCE]
            for kind in KINDS:
                js = job.sched[kind]
                demand = job.demand(kind)
                if quiet and (demand != js.demand or js.running != job.running[kind]):
                    quiet = False
                js.demand = demand
                js.running = job.running[kind]
                if runnable:
                    weight = PRIORITY_WEIGHT[job.priority]
                    for adjust in adjusters:
                        result = adjust(job, kind, weight, now)
                        if result is not None:
                            if type(result) is float and 0.0 <= result <= answers.MAX_FLOAT:
                                weight = result
                            else:
                                weight = self._weight(adjust, result)
                else:
                    weight = 1.0
                if quiet and weight != js.weight:
                    quiet = False
                js.weight = weight
        self._pending_work = pending
        if not quiet:
            walked = {id(job) for job in self.map_walk()} if self._hint is not None else None
            for kind in KINDS:
                self._update_shares(kind)
            if walked is None or walked != {id(job) for job in self.map_walk()}:
                self._map_version += 1  # the jobs a heartbeat walks for maps changed
        if self.settings.preemption:  # Hadoop: if (preemptionEnabled) updatePreemptionVariables()
            for kind in KINDS:
                self._update_starvation([p.sched[kind] for p in self.pools.values()], now)
        self._dirty = False
        self._changes_seen = self.ledger.changes
        for fn in self._notify("cs_update"):
            fn(list(self.pools.values()), now)

    def _update_runnability(self, now: float) -> None:
        """Hadoop ``updateRunnability()``: walk jobs by priority, start time and
        id, admitting each while its user and pool are under their limits."""
        allocs = self.allocations
        user_count: dict[Any, int] = {}
        pool_count: dict[str, int] = {}
        user_limit: dict[Any, float] = {}
        pool_limit: dict[str, float] = {}
        order = sorted(self.jobs.values(), key=lambda j: (PRIORITY_RANK[j.priority], j.submit_time, j.id))
        newly_done = []
        for job in order:
            user, pool = job.user, job._pool
            u = user_count.get(user, 0)
            p = pool_count.get(pool, 0)
            ulim = user_limit.get(user)
            if ulim is None:
                ulim = user_limit[user] = allocs.user_max_jobs(user) if user is not None else math.inf
            plim = pool_limit.get(pool)
            if plim is None:
                plim = pool_limit[pool] = allocs.pool_max_jobs(pool)
            if u < ulim and p < plim:
                user_count[job.user] = u + 1
                pool_count[job._pool] = p + 1
                job.runnable = True
                if not job.initialized:
                    job._initialize(self._rack_of)
                    job.state = "running"
                    job.start_time = now
                    self._emit({"time": now, "type": "job_start", "job": job.id, "pool": job.pool})
                    if not job.tasks[MAP] and not job.tasks[REDUCE]:
                        newly_done.append(job)
            else:
                job.runnable = False
        for job in newly_done:
            self._finish_job(job, now, update=False)

    def _update_shares(self, kind: str) -> None:
        pools = list(self.pools.values())
        pool_scheds = [p.sched[kind] for p in pools]
        demand_total = 0
        for pool in pools:
            ps = pool.sched[kind]
            demand = 0
            running = 0
            for job in pool.jobs.values():
                js = job.sched[kind]
                demand += js.demand
                running += js.running
            ps.demand = min(demand, int(ps.max_share)) if ps.max_share != math.inf else demand
            ps.running = running
            demand_total += ps.demand
        self._load[kind].runnable = demand_total
        root = self.root_policy
        shares = answers.slot_shares(self.plugins.who("SharePolicy", root.name), "compute_shares",
                                     root.compute_shares(pool_scheds, float(self._load[kind].total_slots), False),
                                     len(pool_scheds))
        for ps, share in zip(pool_scheds, shares):
            ps.fair_share = share
        # jobs inside each pool, by the pool's own policy (schedulingMode)
        for pool in pools:
            ps = pool.sched[kind]
            policy = self._pool_policy[pool.name]
            job_scheds = [j.sched[kind] for j in pool.jobs.values()]
            if not job_scheds:
                continue  # its job order is already empty (jobs leave it as they finish or move)
            shares = answers.slot_shares(self.plugins.who("SharePolicy", policy.name), "compute_shares",
                                         policy.compute_shares(job_scheds, float(ps.fair_share or 0.0), False),
                                         len(job_scheds))
            for js, share in zip(job_scheds, shares):
                js.fair_share = share
            runnable = [js for js in job_scheds if _offerable(js.owner, kind)]
            keys = [policy.order_key(js) for js in runnable]  # before touching the order
            for key in keys:
                if key is None or has_nan(key):
                    raise self._key_error(policy, None, key)
            order = self._job_order[pool.name][kind]
            for js in order:
                js._ordered = False
            order.clear()
            for js, key in zip(runnable, keys):
                js._key = key
                js._ordered = True
            self._sorted(order, runnable, policy)
        keys = [root.order_key(ps) for ps in pool_scheds]
        for key in keys:
            if key is None or has_nan(key):
                raise self._key_error(root, None, key)
        order = self._pool_order[kind]
        order.clear()
        offering = []
        for ps, key in zip(pool_scheds, keys):
            ps._key = key
            ps._ordered = bool(self._job_order[ps.name][kind])
            if ps._ordered:
                offering.append(ps)
        self._sorted(order, offering, root)

    @staticmethod
    def _update_starvation(pool_scheds: list[Schedulable], now: float) -> None:
        """Starvation bookkeeping (Hadoop ``FairScheduler.updatePreemptionVariables``).

        As in Hadoop, :meth:`update` runs it only with ``[scheduler] preemption``
        on; without preemption ``last_time_at_min_share`` and
        ``last_time_at_half_fair_share`` keep the pool's creation time, so a
        pool counts as starved (:meth:`Schedulable.starved_for`) once a
        preemption timeout has passed since it was created — which is what
        ends delay scheduling for it in Hadoop (``getAllowedLocalityLevel``);
        the ``delay`` plugin's ``starvation`` setting offers measured times
        instead."""
        for ps in pool_scheds:
            if ps.running >= min(ps.min_share, ps.demand):
                ps.last_time_at_min_share = now
            if ps.running >= math.floor(min((ps.fair_share or 0.0) / 2.0, ps.demand)):
                ps.last_time_at_half_fair_share = now

    # ------------------------------------------------------------------ hook answers (hook_answers)
    def _weight(self, adjust: Any, result: Any) -> float:
        """A WeightAdjuster's answer that is not a plain float in range: checked (and named)."""
        plugins = self.plugins
        name = plugins.weight_adjuster_names[plugins.weight_adjusters.index(adjust)]
        return answers.weight(plugins.who("WeightAdjuster", name), result)

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
            return _chained(answers.incomparable(who, exc), exc)
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

    def _who(self, point: str) -> answers.Who:
        """The plugin configured at ``point`` (LoadManager, TaskSelector, VictimSelector)."""
        s = self.settings
        name = {"LoadManager": s.load_manager, "TaskSelector": s.task_selector,
                "VictimSelector": s.victim_selector}[point]
        return self.plugins.who(point, name)

    # ================================================================== heartbeat
    @_plugin_errors
    def heartbeat(self, node_name: str, now: float | None = None) -> list[Assignment]:
        """Assign tasks to ``node_name`` (Hadoop ``assignTasks``); returns the
        assignments in launch order (empty when none)."""
        now = self._tick(now)
        node = self.node(node_name)
        self._hint_epoch += 1
        self._passed = []
        for fn in self._notify("cs_heartbeat_start"):
            fn(node, now)
        if self._rs is not None:
            given = self._rs.heartbeat(node, now)
            for fn in self._notify("cs_heartbeat_end"):
                fn(node, given, [], now)
            return given
        multiple = self.settings.assign_multiple
        next_kind = self.root_policy.next_kind
        can_launch = self.plugins.can_launch
        select = self.plugins.select_task
        assigned = {MAP: 0, REDUCE: 0}
        rejected = {MAP: False, REDUCE: False}
        visited: dict[str, Job] = {}
        launched_map: set[str] = set()
        out: list[Assignment] = []
        launched: list[Task] = []
        task: Task | None = None
        walked_all = False  # the map side walked every job and none had a map for this node
        try:
            while True:
                for kind in KINDS:
                    if not rejected[kind] and not self._may_assign(node, kind, assigned[kind]):
                        rejected[kind] = True
                if (rejected[MAP] and rejected[REDUCE]) or (not multiple and out):
                    break
                if rejected[MAP]:
                    kind = REDUCE
                elif rejected[REDUCE]:
                    kind = MAP
                else:
                    chosen = next_kind(node) if next_kind is not None else None
                    if chosen is None:
                        kind = MAP if node._running[MAP] <= node._running[REDUCE] else REDUCE
                    elif chosen == MAP or chosen == REDUCE:
                        kind = chosen
                    else:
                        kind = answers.next_kind(self.plugins.who("SharePolicy", self.root_policy.name), chosen)
                task = None
                is_map = kind == MAP
                for ps in self._pool_order[kind]:
                    job_order = self._job_order[ps.name][kind]
                    if ps.running >= ps.max_share or not job_order:
                        continue
                    admit = self._pool_policy[ps.name].admit_job
                    deferred: list[Job] = []
                    for js in job_order:  # only jobs with a task to offer (_offerable)
                        job = js.owner
                        if is_map:
                            visited[job.id] = job
                        if admit is not None:
                            verdict = admit(job, kind, now)
                            if verdict is not None and verdict is not True:
                                if verdict is not False and not isinstance(verdict, Rejection):
                                    verdict = answers.admit(
                                        self.plugins.who("SharePolicy", self._pool_policy[ps.name].name), verdict)
                                if verdict is False:
                                    deferred.append(job)
                                    continue
                                if verdict is not True:  # a Rejection: a hard "no" on this heartbeat
                                    continue
                        # _offer, inlined: this is the innermost loop of a simulated day
                        if can_launch is not None:
                            verdict = can_launch(node, job, kind)
                            if verdict is False:
                                continue
                            if verdict is not None and verdict is not True and not answers.flag(
                                self._who("LoadManager"), "cs_can_launch", verdict
                            ):
                                continue
                        chosen = select(job, node, kind, now)
                        if chosen is not None:
                            task = self._check_selected(chosen, job, kind)
                            break
                    if task is None:
                        for job in deferred:  # second pass: jobs the pool's policy deferred
                            task = self._offer(job, node, kind, now, can_launch, select)
                            if task is not None:
                                break
                    if task is not None:
                        break
                if task is None:
                    rejected[kind] = True
                    if is_map:
                        walked_all = True
                    continue
                locality = task.locality(node) if kind == MAP else None
                self._launch(task, node, now, locality)
                launched.append(task)
                assigned[kind] += 1
                if kind == MAP:
                    launched_map.add(task.job.id)
                out.append(Assignment(task.job.id, task.id, kind, node.name, locality, now))
        except BaseException as exc:
            # a plugin failed mid-heartbeat (any exception but Ctrl-C: SystemExit, GeneratorExit,
            # a plugin's own BaseException too): take back this heartbeat's launches (the one
            # being launched too), so no task is left running that the caller never heard of;
            # the next update rebuilds the order whatever state it is in
            self._dirty = True
            if isinstance(exc, KeyboardInterrupt):
                raise
            if task is not None and task.state == RUNNING and task not in launched:
                launched.append(task)
            self._taking_back = True
            try:
                for started in reversed(launched):
                    if started.state == RUNNING and started.id in self._running_tasks:
                        try:
                            self.kill(started.id, now, reason="heartbeat failed")
                        except Exception:  # the failing plugin again: keep its first error
                            log.exception("taking back %s after a failed heartbeat", started.id)
            finally:
                self._taking_back = False
            raise
        self._quiet_at = self._map_version if walked_all and not out else -1
        if visited or out:
            skipped = [j for jid, j in visited.items() if jid not in launched_map]
            self._passed = skipped
            for fn in self._notify("cs_heartbeat_end"):
                fn(node, out, skipped, now)
        return out

    def _may_assign(self, node: Node, kind: str, assigned: int) -> bool:
        """May a heartbeat of ``node`` that has assigned ``assigned`` tasks of ``kind`` so far
        try one more?  Not past the kind's assignment cap, not when the cluster runs what
        its runnable jobs demand (Hadoop stops a kind at runningMaps == runnableMaps, not
        >=: after a reload lowers a pool's maxMaps below what it runs, the cluster's capped
        demand is below what runs and the other pools still get tasks), and only if the
        LoadManager's ``cs_can_assign`` allows (None: the node's free slots decide).  The
        one precondition :meth:`heartbeat` and :meth:`skip_quiet_heartbeat` share."""
        ld = self._load[kind]
        if assigned >= self._assign_caps[kind] or ld.running == ld.runnable:
            return False
        ok = self.plugins.can_assign(node, kind, ld)
        if ok is None:
            return node._running[kind] < node.slots[kind]
        if ok is True or ok is False:
            return ok
        return answers.flag(self._who("LoadManager"), "cs_can_assign", ok) is True

    @_plugin_errors
    def skip_quiet_heartbeat(self, node_name: str, now: float) -> bool:
        """If a heartbeat of ``node_name`` at ``now`` would assign nothing and change nothing,
        count it as done (the clock moves to ``now``) and return True; else change nothing and
        return False (the caller then runs :meth:`heartbeat`).

        For a simulator that beats every node with a free slot, as Hadoop's TaskTrackers ask
        for work, but need not run heartbeats whose outcome is known.  Such a heartbeat is
        one where the last heartbeat walked every job for maps and launched nothing (so the
        TaskSelector saw all of them skipped), no job has joined or left those walked since,
        this node can take no reduce (none pending, or the LoadManager says no), and either
        it can take no map while no job would be walked, or the TaskSelector's hint for
        each of those jobs (``cs_select_hint``, without ``SKIPPED_AGAIN``) says it would
        give none here.  The TaskSelector must implement ``cs_select_hint`` and be the only
        plugin listening to heartbeats; else this always returns False.  Slot mode only."""
        if self._hint is None or self._quiet_at != self._map_version or self._rs is not None:
            return False
        node = self.cluster.nodes[node_name]
        if self.pending_work(REDUCE) > 0 and self._may_assign(node, REDUCE, 0):
            return False
        open_ = self._may_assign(node, MAP, 0)
        job_order = self._job_order
        for ps in self._pool_order[MAP]:
            order = job_order[ps.name][MAP]
            if ps.running >= ps.max_share or not order:
                continue
            if not open_:
                return False  # a heartbeat that walks no job would end the walked jobs' waits
            for js in order:
                job = js.owner
                hint = self._held_hint(job, now)
                if hint is None or SKIPPED_AGAIN in hint.events or job.pending_map(node, hint.level) is not None:
                    return False
        self._tick(now)
        return True

    def _held_hint(self, job: Job, now: float) -> Hint | None:
        """The TaskSelector's hint for ``job``'s maps at ``now``: one asked since the last
        heartbeat, update, launch or release if it still holds at ``now``, else asked now."""
        epoch, changes = self._hint_epoch, self.ledger.changes
        hints = self._hints
        job_id = job.id
        if self._hints_key[0] != epoch or self._hints_key[1] != changes:
            hints.clear()
            self._hints_key = (epoch, changes)
        else:
            held = hints.get(job_id)
            if held is not None and now < held[1]:
                return held[0]  # type: ignore[no-any-return]
        hint = self._select_hint(job, MAP, now)
        if hint is None:
            return None
        until = hint.until
        # it holds before until, give or take the rounding of a float computation
        hints[job_id] = (hint, until - 4097.0 * math.ulp(until) if until < math.inf else math.inf)
        return hint

    @_plugin_errors
    def select_hint(self, job: Job, kind: str, now: float) -> Hint | None:
        """The TaskSelector's ``cs_select_hint`` for ``job`` at ``now`` (None without it)."""
        return self._select_hint(job, kind, now)

    def _select_hint(self, job: Job, kind: str, now: float) -> Hint | None:
        """:meth:`select_hint` without the error wrapper, for methods that have one."""
        fn = self._any_hint
        if fn is None:
            return None
        hint = fn(job, kind, now)
        if hint is None or type(hint) is Hint:
            return hint
        return answers.hint(self._who("TaskSelector"), "cs_select_hint", hint)

    @property
    def can_park(self) -> bool:
        """Can a simulator stop beating nodes that no job wants?  Slot mode, the TaskSelector
        answers ``cs_select_hint`` (and is the only plugin listening to heartbeats), the
        LoadManager declares ``empty_nodes_take_tasks`` and has no ``cs_can_launch``, and no
        pool's share policy admits jobs (``cs_admit_job``: a refusal that may end unseen)."""
        return (
            self._rs is None
            and self._hint is not None
            and self._empty_take
            and self.plugins.can_launch is None
            and not self._admitting
        )

    @property
    def walk_version(self) -> int:
        """A number that changes whenever the jobs a heartbeat walks for maps may have changed
        (a job enters or leaves its pool's map order, a pool reaches or leaves its cap, an
        update changed the order)."""
        return self._map_version

    @property
    def walk_settled(self) -> bool:
        """Did the last heartbeat walk every job for maps and launch nothing, with the walk
        unchanged since (so the TaskSelector saw every walked job skipped: the premise of
        :meth:`skip_quiet_heartbeat` and of the hints' levels)?"""
        return self._quiet_at == self._map_version

    @property
    def has_reach_changes(self) -> bool:
        """Are there reach changes to take (:meth:`take_reach_changes`)?"""
        return bool(self._reach_changed)

    def walk_state(self) -> tuple[int, bool, bool]:
        """``(walk_version, walk_settled, has_reach_changes)`` in one call: for a simulator that
        reads the three after every event."""
        version = self._map_version
        return version, self._quiet_at == version, bool(self._reach_changed)

    def take_reach_changes(self) -> dict[str, str]:
        """The jobs whose map reach may have widened since the last call, each with the widest
        locality that may have widened it (a map launched at it, or ``"off"`` for a map
        pending again), in the order they changed; and forget them."""
        changed, self._reach_changed = self._reach_changed, {}
        return changed

    def map_walk(self) -> list[Job]:
        """The jobs a heartbeat that finds no map walks: those in the map orders of the
        pools below their cap, in order."""
        job_order = self._job_order
        return [
            js.owner
            for ps in self._pool_order[MAP]
            if ps.running < ps.max_share
            for js in job_order[ps.name][MAP]
        ]

    @_plugin_errors
    def map_reach(self, job: Job, now: float) -> tuple[str, float] | None:
        """Where ``job`` takes a map on heartbeats from ``now`` on that follow one on which
        every job walked was skipped: ``(level, until)`` from the TaskSelector's hint, with
        ``until`` the exact first float at which the level is wider (``math.inf``: never
        with time alone); None without a hint."""
        hint = self._select_hint(job, MAP, now)
        if hint is None:
            return None
        if hint.until == math.inf:
            return hint.level, math.inf
        return hint.level, widens_at(lambda t: self._select_hint(job, MAP, t), hint.level, hint.until, now)

    @_plugin_errors
    def preemption_hint(self, now: float) -> float:
        """Until when no preemption check can find anything, as the root share policy's
        ``preemption_hint`` says for every kind (the cluster as it is now, only the clock
        and the starvation times the updates move changing): the earliest ``until`` of the
        kinds; ``-inf`` without the hook or a hint."""
        fn = self.plugins.preemption_hint()
        if fn is None:
            return -math.inf
        until = math.inf
        for kind in KINDS:
            hint = fn([p.sched[kind] for p in self.pools.values()], kind, now)
            if hint is None:
                return -math.inf
            if type(hint) is not Hint:
                hint = answers.hint(self.plugins.who("SharePolicy", self.root_policy.name), "preemption_hint", hint)
            until = min(until, hint.until)
        return until

    def wants_idle_heartbeat(self) -> bool:
        """Would a heartbeat that offers no job a slot change the TaskSelector's answers now?
        True when the hint of a job the last heartbeat skipped names ``NOT_OFFERED`` (or
        there is none): the simulator then delivers the next heartbeat it would skip as
        :meth:`idle_heartbeat` instead.  Cheap: asked once between heartbeats and updates
        (the answer is kept until the next of those, launch or release; the hints it asks
        are :meth:`skip_quiet_heartbeat`'s too)."""
        wants = self._wants
        epoch, changes = self._hint_epoch, self.ledger.changes
        if wants[0][0] == epoch and wants[0][1] == changes:
            return wants[1]
        if not self._passed or self._any_hint is None:  # no job to ask
            self._wants = ((epoch, changes), False)
            return False
        return self._wants_idle()

    @_plugin_errors
    def _wants_idle(self) -> bool:
        """:meth:`wants_idle_heartbeat` asked again (the hints of the jobs passed)."""
        key = (self._hint_epoch, self.ledger.changes)
        answer = False
        if self._any_hint is not None:
            jobs = self.jobs
            now = self.now
            for job in self._passed:
                if jobs.get(job.id) is job:
                    hint = self._held_hint(job, now)
                    if hint is None or NOT_OFFERED in hint.events:
                        answer = True
                        break
        self._wants = (key, answer)
        return answer

    @_plugin_errors
    def idle_heartbeat(self, node_name: str, now: float | None = None) -> None:
        """A heartbeat of ``node_name`` that the caller knows can assign
        nothing (no free slot of a kind with pending work, or nothing pending):
        what :meth:`heartbeat` would do then — ``cs_heartbeat_start`` and no
        more — without the search.  For a simulator that skips such heartbeats
        but must deliver those a plugin needs (:meth:`wants_idle_heartbeat`)."""
        now = self._tick(now)
        node = self.node(node_name)
        self._quiet_at = -1
        self._hint_epoch += 1
        self._passed = []
        for fn in self._notify("cs_heartbeat_start"):
            fn(node, now)

    def _offer(self, job: Job, node: Node, kind: str, now: float, can_launch: Any, select: Any) -> Task | None:
        """Ask the LoadManager, then the TaskSelector, for a task of ``job`` on ``node``."""
        if can_launch is not None:
            verdict = can_launch(node, job, kind)
            if verdict is not None and verdict is not True and not answers.flag(
                self._who("LoadManager"), "cs_can_launch", verdict
            ):
                return None
        chosen = select(job, node, kind, now)
        return self._check_selected(chosen, job, kind) if chosen is not None else None

    def _check_selected(self, task: Any, job: Job, kind: str) -> Task:
        """The TaskSelector's answer, if it is a pending task of ``kind`` of ``job``."""
        if isinstance(task, Task) and task.job is job and task.kind == kind and task._state == PENDING:
            return task
        return answers.selected_task(self._who("TaskSelector"), task, job, kind)

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
        task a heartbeat could launch (:func:`_offerable`); else out of it."""
        js = job.sched[kind]
        order = self._job_order[job._pool][kind]
        was = js._ordered
        if was:
            order.remove(js)
            js._ordered = False  # until it is back in (a failing order key leaves it out, flagged so)
        js.running += delta
        if _offerable(job, kind):
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

    def _launch(self, task: Task, node: Node, now: float, locality: str | None) -> None:
        ledger = self.ledger
        ledger.launch(task, node, now, locality)  # running, and its task_start
        job = task.job
        kind = task.kind
        node._running[kind] += 1
        job.pending[kind] -= 1
        if job.unlocated_pending and kind == MAP and not task.locations:
            job.unlocated_pending -= 1
        if kind == MAP and self.track_reach:  # its job's level is this launch's: wider, maybe
            changed = self._reach_changed
            widest = changed.get(job.id)
            where = locality or OFF_RACK
            if widest is None or LOCALITY_RANK[where] > LOCALITY_RANK[widest]:
                changed[job.id] = where
        if kind == MAP or job.reduces_schedulable:
            self._pending_work[kind] -= 1
        self._job_running(job, kind, +1)
        ledger.started(task, node, locality, now)

    def _release(self, task: Task) -> Node:
        """The ledger releases the running ``task``; its slot is given back."""
        node = self.ledger.release(task)
        if node is None:  # pragma: no cover - remove_node kills a node's tasks before it goes
            raise SchedulerStateError(f"task {task.id} runs on no known node")
        self.give_back(task, node)
        return node

    # ------------------------------------------------------------------ the slot engine (Engine)
    def give_back(self, task: Task, node: Node | None) -> None:
        """The slot engine's side of a release: the task's slot on ``node`` and its job's
        and pool's running counts (:class:`~corescheduler.core.engine.Engine`)."""
        if node is not None:
            node._running[task.kind] -= 1
        self._job_running(task.job, task.kind, -1)

    def finish_task(self, task: Task, now: float, output_bytes: float | None) -> bool:
        """The slot engine's finish of a running ``task``; True when its job has no task left
        (:class:`~corescheduler.core.engine.Engine`)."""
        ledger = self.ledger
        node = ledger.release(task)  # _release and give_back, inlined: once per task of a run
        if node is None:  # pragma: no cover - remove_node kills a node's tasks before it goes
            raise SchedulerStateError(f"task {task.id} runs on no known node")
        job = task.job
        node._running[task.kind] -= 1
        self._job_running(job, task.kind, -1)
        ledger.complete(task, node, output_bytes)
        if task.kind == MAP and job.runnable and job.complete[MAP] == job.slowstart_maps:
            self._pending_work[REDUCE] += job.pending[REDUCE]  # reduce slow start reached
            if job.pending[REDUCE]:
                self._job_running(job, REDUCE, 0)  # its reduces may be offered now
        ledger.finished(task, node.name, node, now)
        return job.complete[MAP] == job.num_maps and job.complete[REDUCE] == job.num_reduces

    def output_lost(self, task: Task, was_schedulable: bool) -> None:
        """The slot engine: a finished map is pending again (``was_schedulable``: its job's
        reduces were past slow start before)."""
        job = task.job
        if job.runnable:
            self._pending_work[MAP] += 1
            self._load[MAP].runnable += 1  # one more map demanded, before the next update counts it
            if was_schedulable and not job.reduces_schedulable:  # its pending reduces wait for slow start again
                self._pending_work[REDUCE] -= job.pending[REDUCE]
            if not job.sched[MAP]._ordered:
                self._job_running(job, MAP, 0)  # it has a map to offer again

    def job_removed(self, job: Job, now: float) -> None:
        """The slot engine's end of a job: out of its pool and the orders
        (:class:`~corescheduler.core.engine.Engine`)."""
        pool = self.pools[job._pool]
        self._map_version += 1
        for kind in KINDS:
            js = job.sched[kind]
            if js._ordered:
                self._job_order[job._pool][kind].remove(js)
                js._ordered = False
                self._reposition(pool.sched[kind], 0)
            job.sched[kind].demand = 0
            job.sched[kind].fair_share = 0.0
        del pool.jobs[job.id]

    def kill_task(self, task: Task, now: float, reason: str) -> None:
        """The slot engine's kill of a running ``task``: pending again, its work lost
        (:class:`~corescheduler.core.engine.Engine`)."""
        ledger = self.ledger
        node = self._release(task)
        ledger.requeue(task)
        job = task.job
        if job.runnable and (task.kind == MAP or job.reduces_schedulable):
            self._pending_work[task.kind] += 1
            if not job.sched[task.kind]._ordered:
                self._job_running(job, task.kind, 0)  # it has a task to offer again
        ledger.preempted(task, node.name, now, reason)

    @property
    def engine(self) -> Engine:
        """The engine picked at construction: the resource engine, or the slot engine."""
        return self._engine

    @property
    def resource_engine(self) -> ResourceScheduler | None:
        """Resource mode's engine (its queue tree, cluster total), or ``None`` in slot mode."""
        return self._rs

    @property
    def pending_tasks(self) -> Mapping[str, int]:
        """Slot mode: the tasks of each kind waiting in runnable jobs, as the last update
        counted them and launches, finishes and kills since moved them (read-only)."""
        return self._pending_work

    @property
    def last_preempt_check(self) -> float:
        """When :meth:`preempt` last ran its check (``-inf`` before the first)."""
        return self._last_preempt_check

    def preempt_checked(self, at: float) -> None:
        """Record a preemption check at ``at`` that found nothing to do (a simulator that
        skips updates in which nothing can change moves the clock as they would have)."""
        self._last_preempt_check = at

    def work_running(self) -> bool:
        """Does a task run (in resource mode: a container other than an application master)?"""
        return self._engine.running_work()

    def running_work(self) -> bool:
        """The slot engine's :meth:`work_running`: a slot of either kind is taken."""
        load = self._load
        return any(load[k].running for k in KINDS)

    def has_requests(self) -> bool:
        """The slot engine: has some job a task pending?"""
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

    # ================================================================== reduce phases
    @_plugin_errors
    def try_start_compute(self, task_id: str, now: float | None = None) -> bool:
        """A running reduce has copied all its input: start its compute phase if
        the LoadManager allows (``cs_can_compute``); ``False`` = it waits (ask
        again when a reduce on its node ends)."""
        now = self._tick(now)
        task = self.task(task_id)
        if task.state != RUNNING or task.kind != REDUCE or task.phase != "copy":
            raise SchedulerStateError(f"task {task_id} is not a reduce in its copy phase")
        node = self.cluster.nodes[task.node]  # type: ignore[index]
        can = self.plugins.can_compute
        if can is not None:
            answer = can(task, node)
            if answer is not None and answer is not True and not answers.flag(
                self._who("LoadManager"), "cs_can_compute", answer
            ):
                return False
        task.phase = "compute"
        node.computing += 1
        for fn in self._notify("cs_task_phase"):
            fn(task, node, "compute", now)
        return True

    @_plugin_errors
    def node_capacity(self, node: Node | str, kind: str) -> int:
        """The most tasks of ``kind`` the node can run at once (``cs_node_capacity``,
        default its slots)."""
        if isinstance(node, str):
            node = self.node(node)
        fn = self.plugins.node_capacity
        if fn is not None:
            value = fn(node, kind)
            if value is not None:
                return answers.node_capacity(self._who("LoadManager"), value)
        return node.slots[kind]

    # ================================================================== task lifecycle
    @_plugin_errors
    def finish(self, task_id: str, now: float | None = None, output_bytes: float | None = None) -> Task:
        """A running task completed: free its slot; the job finishes with its last task.

        A finished map of a job with reduces leaves its output on its node
        (``job.map_outputs``, what a reduce TaskSelector reads); ``output_bytes`` is its
        size when the caller measured it (else the job's ``shuffle`` description gives it).
        """
        now = self._tick(now)
        task = self.task(task_id)
        if self._engine.finish_task(task, now, output_bytes):
            self._finish_job(task.job, now)
        return task

    def _finish_job(self, job: Job, now: float, update: bool = True, state: str = "finished", reason: str = "") -> None:
        job.state = state
        job.finish_time = now
        job.runnable = False
        self._engine.job_removed(job, now)
        del self.jobs[job.id]
        if self.history:
            self.finished[job.id] = job
        if state == "finished":
            self._emit({"time": now, "type": "job_finish", "job": job.id, "pool": job.pool})
        else:
            self._emit({"time": now, "type": "job_end", "job": job.id, "pool": job.pool, "state": state,
                        "reason": reason})
        for fn in self._notify("cs_job_removed"):
            fn(job, now)
        if not self.history:
            job._drop_tasks()
        self._dirty = True
        if update:
            self.update(now)

    @_plugin_errors
    def kill(self, task_id: str, now: float | None = None, reason: str = "preempted") -> Task:
        """Kill a running task; it becomes pending again (its work is lost)."""
        now = self._tick(now)
        task = self.task(task_id)
        self._engine.kill_task(task, now, reason)
        if self.track_reach:  # a map pending again: the job takes it anywhere
            self._reach_changed[task.job.id] = OFF_RACK
        return task

    @_plugin_errors
    def lose_output(self, task_id: str, now: float | None = None, reason: str = "map output lost") -> Task:
        """A finished map's output is gone (it lived on a node that was lost) while its job
        still has reduces to run: the map is pending again and runs again, and
        ``job.map_outputs`` forgets it.  Hadoop 1.x ``JobTracker.lostTaskTracker`` does this
        for the completed maps of running jobs whose reduces are not all done
        (``JobInProgress.failedTask`` on a complete map, "Lost task tracker").  Its reduces
        stop being offered if the job falls back below its reduce slow start.  Emits
        ``task_lost``."""
        now = self._tick(now)
        task = self.task(task_id)
        job = task.job
        if task.kind != MAP or task.state != COMPLETE:
            raise SchedulerStateError(f"task {task_id} is not a finished map")
        if job.is_finished or not job.spec.reduces:
            raise SchedulerStateError(f"job {job.id} has no reduce left to read its maps' outputs")
        was_schedulable = job.reduces_schedulable
        node = task.node
        self.ledger.lost(task)  # pending again
        if self.track_reach:  # a map pending again: the job takes it anywhere
            self._reach_changed[job.id] = OFF_RACK
        self._hint_epoch += 1  # a map pending again: the hints asked before may not hold
        if job.map_outputs is not None:
            job.map_outputs.forget(task.index)
        self._engine.output_lost(task, was_schedulable)
        self._dirty = True
        self._emit({"time": now, "type": "task_lost", "job": job.id, "task": task.id, "kind": MAP, "node": node,
                    "reason": reason})
        return task

    @_plugin_errors
    def fail(self, task_id: str, now: float | None = None, reason: str = "failed") -> Task:
        """A running task's attempt failed (it raised, or its process died): free its slot and
        count the failure; the task is pending again, to be retried.  Hadoop's
        ``JobInProgress.failedTask``: it is the caller that fails the job once a task has
        failed ``mapred.map.max.attempts`` times (:meth:`end_job` with ``state="failed"``)."""
        task = self.kill(task_id, now, reason=reason)
        self.ledger.failed(task)  # not a preemption
        return task

    @_plugin_errors
    def end_job(self, job_id: str, now: float | None = None, state: str = "killed", reason: str = "") -> list[Task]:
        """Kill a job (a user or an admin asked) or fail it (a task used up its attempts):
        its running tasks stop and it leaves its pool (Hadoop ``JobInProgress.kill`` /
        ``fail``).  Returns the tasks that were running, for the caller to stop on the
        engine.  ``state`` is the job's final state, ``"killed"`` or ``"failed"``, or
        ``"finished"``: its caller says it is done (YARN: the AM unregistered, and the app's
        remaining containers are killed)."""
        if state not in ("killed", "failed", "finished"):
            raise SchedulerStateError(f"end_job: state must be 'killed' or 'failed' (or 'finished'), got {state!r}")
        now = self._tick(now)
        job = self.job(job_id)
        if job.is_finished:
            raise SchedulerStateError(f"job {job_id} has already ended ({job.state})")
        ledger = self.ledger
        running = ledger.running_of(job)
        running.sort(key=lambda t: t.is_am)  # an AM last: its end takes the app with it
        for task in running:
            if task.is_am:
                continue  # released with the app (the engine's job_removed)
            node_name = task.node
            self._engine.give_back(task, ledger.release(task))
            ledger.end(task, node_name, now, f"job {state}")
        self._finish_job(job, now, state=state, reason=reason)
        return running

    # ================================================================== preemption
    @_plugin_errors
    def preemption_plan(self, kind: str, now: float | None = None) -> PreemptionPlan:
        """What the root share policy would preempt for ``kind`` now (no kill)."""
        now = self._tick(now)
        plan_fn = self.root_policy.plan_preemption
        if plan_fn is None:
            return PreemptionPlan(count=0)
        plan = plan_fn([p.sched[kind] for p in self.pools.values()], kind, now)
        if plan is None:
            return PreemptionPlan(count=0)
        return answers.preemption_plan(self.plugins.who("SharePolicy", self.root_policy.name), plan)

    def tasks_to_preempt(self, pool: str, now: float | None = None) -> dict[str, int]:
        """Per kind, the tasks ``pool`` is owed by preemption now (Hadoop ``tasksToPreempt``)."""
        return {kind: int(self.preemption_plan(kind, now).needs.get(pool, 0)) for kind in KINDS}

    @_plugin_errors
    def preempt(self, now: float | None = None, force: bool = False) -> list[Task]:
        """Preempt tasks if preemption is on and the policy asks for it
        (at most every ``preemption_interval`` unless ``force``)."""
        now = self._tick(now)
        if not self.settings.preemption:
            return []
        if not force and now - self._last_preempt_check < self.settings.preemption_interval:
            return []
        self._last_preempt_check = now
        return self._engine.preempt_tasks(now)

    def preempt_tasks(self, now: float) -> list[Task]:
        """The slot engine: per kind, the root share policy's plan, its victims killed."""
        killed: list[Task] = []
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
                    who = self._who("VictimSelector")
                    chosen = answers.chosen_victims(who, answers.victims(who, chosen), candidates, plan.count)
                victims = self._checked_victims(chosen or [], candidates, plan)
            if self.settings.preemption_only_log:
                for task in victims:
                    log.info("would preempt %s on %s (preemption_only_log)", task.id, task.node)
                self.would_preempt.extend(victims)
                continue
            for task in victims:
                if task.state == RUNNING and task.kind == kind:
                    killed.append(self.kill(task.id, now))
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

    # ================================================================== reports
    def shares(self) -> dict[str, Any]:
        """``{"pools": {name: {"map": x, "reduce": y}}, "jobs": {id: {...}}}``
        (``None`` where not applicable, e.g. jobs in a FIFO pool); in resource mode
        ``{"queues": {name: {"fair", "steady", "usage", "demand"}}, "jobs": {...}}``."""
        return self._engine.shares_report()

    def shares_report(self) -> dict[str, Any]:
        """The slot engine's :meth:`shares`."""
        return {
            "pools": {name: {k: p.sched[k].fair_share for k in KINDS} for name, p in self.pools.items()},
            "jobs": {jid: {k: j.sched[k].fair_share for k in KINDS} for jid, j in self.jobs.items()},
        }

    def snapshot(self) -> dict[str, Any]:
        """A JSON-able view of pools and jobs: shares, demands, running, weights."""
        return {"time": self.now, **self._engine.snapshot_report()}

    def snapshot_report(self) -> dict[str, Any]:
        """The slot engine's :meth:`snapshot` (without its time)."""
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


__all__ = ["DEFAULT_POOL", "CoreSchedulerError", "JobRejectedError", "Scheduler"]
