"""The scheduler: the one object callers use, over the engine it picks once.

:class:`Scheduler` owns the clock, the jobs, the cluster's nodes and the task ledger
(:class:`~corescheduler.core.task_ledger.TaskLedger`), checks every call (the clock ticked,
the job, task or node exists) and names plugin errors; what a call does to pools or queues
is its engine's (:class:`~corescheduler.core.engine.Engine`), picked at construction:

* slot mode (the default): :class:`~corescheduler.core.slot_engine.SlotEngine`, the Hadoop
  1.x Fair Scheduler's update, heartbeat and preemption on MR1 pools and slots;
* resource mode (``[scheduler] mode = "resources"``):
  :class:`~corescheduler.core.resource_scheduler.ResourceScheduler`, the YARN Fair
  Scheduler's on the queue tree and resource vectors.

The same class serves the test harness, the simulator and the live service;
the caller owns the clock and passes ``now`` (seconds) to every call.  A heartbeat or an
update is one call into the engine: the hot loops are the engine's own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mypy_extensions import mypyc_attr

from corescheduler.core import hook_answers as answers
from corescheduler.core.allocations import Allocations
from corescheduler.core.blame import chained as _chained
from corescheduler.core.blame import plugin_errors as _plugin_errors
from corescheduler.core.engine import Engine
from corescheduler.core.framework import EngineConfig, Plugins, plugin_set
from corescheduler.core.hints import Hint, widens_at
from corescheduler.core.model import (
    COMPLETE,
    KINDS,
    MAP,
    PENDING,
    PRIORITY_RANK,
    REDUCE,
    RUNNING,
    TASK,
    Assignment,
    Cluster,
    Job,
    JobSpec,
    Node,
    Pool,
    PreemptionPlan,
    Rejection,
    Task,
    check_priority,
)
from corescheduler.core.resource_scheduler import ResourceScheduler
from corescheduler.core.resources import Resources
from corescheduler.core.slot_engine import SlotEngine
from corescheduler.core.slot_pools import DEFAULT_POOL
from corescheduler.core.task_ledger import TaskLedger
from corescheduler.errors import CoreSchedulerError, SchedulerStateError


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
    :param extra_plugins: in-process plugins by name (classes or objects), selectable in
        ``config`` like installed ones (tests, notebooks).
    :param on_event: called with each event dict (SPEC §5 ``events.jsonl``).
    :param history: keep finished jobs (:attr:`finished`, with their tasks) and preempted
        tasks (:attr:`killed`); a long simulation turns it off so that memory holds only the
        jobs in the system: a finished job lets go of its tasks once the ``cs_job_removed``
        listeners have seen it (:meth:`Job._drop_tasks`), freed at once, not by the collector.
    :param reuse_quiet_updates: when nothing changed since the last update (no submission,
        launch, finish, kill or admin action, the weight adjusters' weights the same), keep
        the runnability, shares and order it computed; starvation times and ``cs_update``
        still advance.  Exact while share policies are functions of the schedulables they
        are given (their hooks get no clock).  The simulator's (slot mode): most of its 0.5 s
        update ticks fall between events.
    :param strict_fit: resource mode: a container fits a node only where every type of its
        ask fits, even under a policy that ``fits_by_memory`` (the live service's workers).
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
        strict_fit: bool = False,
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
        self.strict_fit = strict_fit
        self.now = 0.0
        self.allocations = Allocations.empty()
        self.jobs: dict[str, Job] = {}  # submitted and not finished, submission order
        self.finished: dict[str, Job] = {}
        #: preempted tasks (the ledger's list)
        self.killed: list[Task] = self.ledger.killed
        #: with ``preemption_only_log``: the tasks preemption would have killed
        self.would_preempt: list[Task] = []
        #: the running tasks by id (the ledger's, read-only here)
        self._running_tasks: dict[str, Task] = self.ledger.running
        self.root_policy = self.plugins.root_policy
        self._rack_of = cluster.rack_of
        self._job_seq = 0
        self._last_preempt_check = -math.inf
        self._last_update = -math.inf
        #: the nodes removed (and not added again): a heartbeat of one assigns nothing
        self._removed_nodes: set[str] = set()
        #: the TaskSelector's cs_select_hint (select_hint, map_reach), else None
        self._any_hint = self.plugins.select_hint
        self.resource_mode = self.settings.mode == "resources"
        #: the engine, picked once
        self._engine: Engine = self._start_engine(allocations or Allocations.empty())
        #: resource mode's engine, else None
        self._rs: ResourceScheduler | None = self._engine if isinstance(self._engine, ResourceScheduler) else None

    @_plugin_errors
    def _start_engine(self, allocations: Allocations) -> Engine:
        """The engine of ``[scheduler] mode``, with ``allocations`` in force (checked first)."""
        engine_type: Any = ResourceScheduler if self.resource_mode else SlotEngine
        engine_type.check_allocations(self.plugins, self.settings, allocations)
        known = self._known_pools(allocations)  # before anything changes: a bad answer keeps the old state
        self.allocations = allocations
        engine: Engine = engine_type(self, known)
        return engine

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

    @property
    def engine(self) -> Engine:
        """The engine picked at construction: the slot engine or the resource engine."""
        return self._engine

    @property
    def resource_engine(self) -> ResourceScheduler | None:
        """Resource mode's engine (its queue tree, cluster total), or ``None`` in slot mode."""
        return self._rs

    @property
    def pools(self) -> Mapping[str, Pool]:
        """Slot mode's pools by name (resource mode: none; its queues are the engine's tree)."""
        return self._engine.pools

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

    # ================================================================== nodes
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
        except SchedulerStateError:  # it refused the node: the cluster is as before (a removed name stays removed)
            del self.cluster.nodes[name]
            self._rack_of.pop(name, None)
            raise
        self._removed_nodes.discard(name)
        return node

    def remove_node(self, name: str, now: float | None = None) -> list[Task]:
        """A node leaves the cluster: its running tasks are lost and run again; returns them."""
        now = self._tick(now)
        node = self.node(name)
        lost = self._engine.node_leaving(node, now)
        del self.cluster.nodes[name]
        self._removed_nodes.add(name)
        self._rack_of.pop(name, None)
        self._engine.nodes_changed()
        return lost

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

    # ================================================================== allocations
    @_plugin_errors
    def set_allocations(self, allocations: Allocations, update: bool = True) -> None:
        """Put new allocations in force.

        Every share policy the file names (``schedulingMode``; in resource mode each queue's
        ``schedulingPolicy``) is loaded first; if one is unknown the error is raised and the
        previous allocations stay in force.
        """
        engine = self._engine
        engine.check_allocations(self.plugins, self.settings, allocations)
        known = self._known_pools(allocations)  # before anything changes: a bad answer keeps the old state
        previous = self.allocations
        self.allocations = allocations
        try:
            engine.reconfigure(known)
        except Exception:
            # a policy refused the file (SharePolicy.configure raised): the previous allocations
            # go back in force, every policy configured with them again (the last good file stays)
            self.allocations = previous
            engine.reconfigure(self._known_pools(previous))
            raise
        if update:
            self.update(self.now)

    def rejected(self, reason: str, access: bool = False) -> JobRejectedError:
        """The error for a submission that is refused (placement, queue type; ``access``: an ACL)."""
        return AccessDeniedError(reason) if access else JobRejectedError(reason)

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
        for fn in self.plugins.listeners("cs_job_added"):
            fn(job, now)
        if update:
            self.update(now)
        else:
            self._finish_empty(now)
        return job

    def _resolve_pool(self, spec: JobSpec) -> str:
        queues = self._engine.live_queues()
        plugins = self.plugins
        for resolve, name in zip(plugins.resolvers, plugins.resolver_names):
            answer = resolve(spec, self.allocations, queues)
            if answer is None:
                continue
            answer = answers.pool_name(plugins.who("PoolResolver", name), answer)
            if isinstance(answer, Rejection):
                raise self.rejected(f"job rejected by pool placement: {answer.reason}", access=answer.access)
            return answer
        return DEFAULT_POOL

    @_plugin_errors
    def move_target(self, job_id: str, pool_name: str, *, user: str | None = None,
                    groups: Sequence[str] = ()) -> str | None:
        """Where :meth:`move` would move the job (its pool or leaf queue), or None when it is
        there already; a refusal raises as :meth:`move` does.  Changes nothing: a caller that
        must record a move before making it (``serve``'s ledger) asks this first."""
        job = self.job(job_id)
        if not isinstance(pool_name, str):
            raise SchedulerStateError(f"cannot move {job_id}: the target pool or queue must be a name, "
                                      f"got {pool_name!r}")
        return self._engine.move_target(job, pool_name, (user, tuple(groups)) if user is not None else None)

    @_plugin_errors
    def move(self, job_id: str, pool_name: str, now: float | None = None, *, user: str | None = None,
             groups: Sequence[str] = ()) -> None:
        """Admin action: move a job (and its running tasks' accounting) to another pool or leaf
        queue (YARN's ``moveApplicationAcrossQueues``).  A refusal raises SchedulerStateError
        naming the job, the target and the rule, and changes nothing.  With ``user`` (and its
        ``groups``), the caller must be allowed to submit to the target queue where submission
        checks ACLs (``ClientRMService.moveApplicationAcrossQueues``): else AccessDeniedError."""
        now = self._tick(now)
        target = self.move_target(job_id, pool_name, user=user, groups=groups)
        if target is None:
            return
        job = self.job(job_id)
        engine = self._engine
        source = job.queue or job.pool
        engine.move_job(job, target, now)
        listeners = self.plugins.listeners("cs_job_moved")
        if listeners:
            running = self.ledger.running_of(job)
            for fn in listeners:
                fn(job, source, running, now)
        self.update(now)

    @_plugin_errors
    def set_priority(self, job_id: str, priority: str, now: float | None = None, *, user: str | None = None,
                     groups: Sequence[str] = ()) -> None:
        """Admin action: change a job's priority.  With ``user`` (and its ``groups``), the caller's
        rights are checked by the policy (the Capacity Scheduler's ``acl_application_max_priority``,
        ``ClientRMService.updateApplicationPriority``): AccessDeniedError, nothing changed."""
        now = self._tick(now)
        job = self.job(job_id)
        try:
            name = check_priority(priority)
        except ValueError as exc:
            raise _chained(SchedulerStateError(str(exc)), None) from None
        self._engine.priority_allowed(job, name, (user, tuple(groups)) if user is not None else None)
        job._priority = name
        for js in job.sched.values():  # each kind's, or the resource engine's one
            js.priority = PRIORITY_RANK[job.priority]
        self._engine.job_changed(job)
        self.update(now)

    # ================================================================== update and heartbeat
    @_plugin_errors
    def update(self, now: float | None = None) -> None:
        """Recompute runnability, demands, weights, shares and order (Hadoop's ``update()``;
        resource mode: YARN's ``FairScheduler.update``), then ``cs_update``."""
        now = self._tick(now)
        self._last_update = now
        self._engine.update(now)

    @_plugin_errors
    def heartbeat(self, node_name: str, now: float | None = None) -> list[Assignment]:
        """Assign tasks to ``node_name`` (Hadoop ``assignTasks``; resource mode: YARN's
        ``attemptScheduling``); returns the assignments in launch order (empty when none; a
        removed node's: YARN ``FairScheduler.attemptScheduling`` skips it)."""
        now = self._tick(now)
        node = self.cluster.nodes.get(node_name)
        if node is None:
            if node_name in self._removed_nodes:
                return []
            node = self.node(node_name)  # the error
        return self._engine.heartbeat(node, now)

    @_plugin_errors
    def idle_heartbeat(self, node_name: str, now: float | None = None) -> None:
        """A heartbeat of ``node_name`` the caller knows can assign nothing (no free slot of a
        kind with pending work, or nothing pending): ``cs_heartbeat_start`` and no search, for
        a simulator that skips them but delivers those a plugin needs (:meth:`wants_idle_heartbeat`)."""
        now = self._tick(now)
        if node_name in self._removed_nodes and node_name not in self.cluster.nodes:
            return
        self._engine.idle_heartbeat(self.node(node_name), now)

    # ================================================================== what a simulator reads
    # (the engine's; a simulator that calls one of these per heartbeat or tick binds the
    # engine's own method once instead: ``scheduler.engine``)
    def skip_quiet_heartbeat(self, node_name: str, now: float) -> bool:
        """If a heartbeat of ``node_name`` at ``now`` would assign and change nothing, count it
        as done (the clock moves to ``now``) and return True; else change nothing and return
        False.  Slot mode only (:meth:`~corescheduler.core.slot_walk.SlotWalk.skip_quiet_heartbeat`)."""
        return self._engine.skip_quiet_heartbeat(node_name, now)

    def pending_work(self, kind: str) -> int:
        """An upper bound on the tasks of ``kind`` a heartbeat could launch now: 0, none until
        an update, a kill or a finish (the simulator skips heartbeats then).  Slot mode (else 0)."""
        return self._engine.pending_work(kind)

    @property
    def pending_tasks(self) -> Mapping[str, int]:
        """Slot mode: the tasks of each kind waiting in runnable jobs, as the last update
        counted them and launches, finishes and kills since moved them (read-only)."""
        return self._engine.pending_tasks

    def work_running(self) -> bool:
        """Does a task run (in resource mode: a container other than an application master)?"""
        return self._engine.running_work()

    @property
    def can_park(self) -> bool:
        """Can a simulator stop beating nodes that no job wants?  Slot mode, the TaskSelector
        answers ``cs_select_hint`` (and is the only plugin listening to heartbeats), the
        LoadManager declares ``empty_nodes_take_tasks`` and has no ``cs_can_launch``, and no
        pool's share policy admits jobs (``cs_admit_job``: a refusal that may end unseen)."""
        return self._engine.can_park

    @property
    def track_reach(self) -> bool:
        """Keep the jobs whose map reach may have widened (:meth:`take_reach_changes`): a
        simulator that parks nodes turns it on."""
        return self._engine.track_reach

    @track_reach.setter
    def track_reach(self, on: bool) -> None:
        self._engine.track_reach = on

    @property
    def walk_version(self) -> int:
        """A number that changes whenever the jobs a heartbeat walks for maps may have changed
        (a job enters or leaves its pool's map order, a pool reaches or leaves its cap, an
        update changed the order)."""
        return self._engine.walk_version

    @property
    def walk_settled(self) -> bool:
        """Did the last heartbeat walk every job for maps and launch nothing, with the walk
        unchanged since (so the TaskSelector saw every walked job skipped: the premise of
        :meth:`skip_quiet_heartbeat` and of the hints' levels)?"""
        return self._engine.walk_settled

    @property
    def has_reach_changes(self) -> bool:
        """Are there reach changes to take (:meth:`take_reach_changes`)?"""
        return self._engine.has_reach_changes

    def walk_state(self) -> tuple[int, bool, bool]:
        """``(walk_version, walk_settled, has_reach_changes)`` in one call: for a simulator that
        reads the three after every event."""
        return self._engine.walk_state()

    def take_reach_changes(self) -> dict[str, str]:
        """The jobs whose map reach may have widened since the last call, each with the widest
        locality that may have widened it (a map launched at it, or ``"off"`` for a map
        pending again), in the order they changed; and forget them."""
        return self._engine.take_reach_changes()

    def map_walk(self) -> list[Job]:
        """The jobs a heartbeat that finds no map walks: those in the map orders of the
        pools below their cap, in order."""
        return self._engine.map_walk()

    def wants_idle_heartbeat(self) -> bool:
        """Would a heartbeat that offers no job a slot change the TaskSelector's answers now?
        True when the hint of a job the last heartbeat skipped names ``NOT_OFFERED`` (or
        there is none): the simulator then delivers the next heartbeat it would skip as
        :meth:`idle_heartbeat` instead."""
        return self._engine.wants_idle_heartbeat()

    def preemption_hint(self, now: float) -> float:
        """Until when no preemption check can find anything, as the root share policy's
        ``preemption_hint`` says for every kind (the cluster as it is now, only the clock
        and the starvation times the updates move changing): the earliest ``until`` of the
        kinds; ``-inf`` without the hook or a hint (resource mode: ``-inf``)."""
        return self._engine.preemption_hint(now)

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

    @property
    def last_preempt_check(self) -> float:
        """When :meth:`preempt` last ran its check (``-inf`` before the first)."""
        return self._last_preempt_check

    def preempt_checked(self, at: float) -> None:
        """Record a preemption check at ``at`` that found nothing to do (a simulator that
        skips updates in which nothing can change moves the clock as they would have)."""
        self._last_preempt_check = at

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
        for fn in self.plugins.listeners("cs_task_phase"):
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
        for fn in self.plugins.listeners("cs_job_removed"):
            fn(job, now)
        if not self.history:
            job._drop_tasks()
        if update:
            self.update(now)

    @_plugin_errors
    def kill(self, task_id: str, now: float | None = None, reason: str = "preempted") -> Task:
        """Kill a running task; it becomes pending again (its work is lost)."""
        now = self._tick(now)
        task = self.task(task_id)
        self._engine.kill_task(task, now, reason)
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
        if job.map_outputs is not None:
            job.map_outputs.forget(task.index)
        self._engine.output_lost(task, was_schedulable)
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
        ended = []
        for task in running:
            if task.is_am:
                continue  # released with the app (the engine's job_removed)
            node_name = task.node
            self._engine.give_back(task, ledger.release(task))
            ledger.end(task, node_name, now, f"job {state}")
            ended.append((task, node_name))
        for task, node_name in ended:  # the plugins hear of them once all are released
            ledger.left(task, node_name, now)
        self._finish_job(job, now, state=state, reason=reason)
        return running

    # ================================================================== preemption
    @_plugin_errors
    def preemption_plan(self, kind: str, now: float | None = None) -> PreemptionPlan:
        """What the root share policy would preempt for ``kind`` now (no kill); slot mode
        (resource mode plans per app: nothing here)."""
        now = self._tick(now)
        return self._engine.preemption_plan(kind, now)

    def tasks_to_preempt(self, pool: str, now: float | None = None) -> dict[str, int]:
        """Per kind, the tasks ``pool`` is owed by preemption now (Hadoop ``tasksToPreempt``)."""
        return {kind: int(self.preemption_plan(kind, now).needs.get(pool, 0)) for kind in KINDS}

    @_plugin_errors
    def preempt(self, now: float | None = None, force: bool = False) -> list[Task]:
        """Preempt tasks if preemption is on and the policy asks for it (at most every
        ``preemption_interval``, or as a root policy's own monitor paces itself:
        ``Engine.preemption_due``; unless ``force``)."""
        now = self._tick(now)
        if not self.settings.preemption:
            return []
        if not force and not self._engine.preemption_due(now, self._last_preempt_check):
            return []
        self._last_preempt_check = now
        return self._engine.preempt_tasks(now)

    # ================================================================== hook answers (hook_answers)
    def _weight(self, adjust: Any, result: Any) -> float:
        """A WeightAdjuster's answer that is not a plain float in range: checked (and named)."""
        plugins = self.plugins
        name = plugins.weight_adjuster_names[plugins.weight_adjusters.index(adjust)]
        return answers.weight(plugins.who("WeightAdjuster", name), result)

    def _who(self, point: str) -> answers.Who:
        """The plugin configured at ``point`` (LoadManager, TaskSelector, VictimSelector)."""
        s = self.settings
        name = {"LoadManager": s.load_manager, "TaskSelector": s.task_selector,
                "VictimSelector": s.victim_selector}[point]
        return self.plugins.who(point, name)

    def _check_selected(self, task: Any, job: Job, kind: str) -> Task:
        """The TaskSelector's answer, if it is a pending task of ``kind`` of ``job``."""
        if isinstance(task, Task) and task.job is job and task.kind == kind and task._state == PENDING:
            return task
        return answers.selected_task(self._who("TaskSelector"), task, job, kind)

    # ================================================================== reports
    def shares(self) -> dict[str, Any]:
        """``{"pools": {name: {"map": x, "reduce": y}}, "jobs": {id: {...}}}``
        (``None`` where not applicable, e.g. jobs in a FIFO pool); in resource mode
        ``{"queues": {name: {"fair", "steady", "usage", "demand"}}, "jobs": {...}}``."""
        return self._engine.shares_report()

    def snapshot(self) -> dict[str, Any]:
        """A JSON-able view of pools and jobs: shares, demands, running, weights."""
        return {"time": self.now, **self._engine.snapshot_report()}


__all__ = ["DEFAULT_POOL", "CoreSchedulerError", "JobRejectedError", "Scheduler"]
