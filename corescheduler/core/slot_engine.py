"""The slot engine: MR1's update cycle and heartbeat assignment in slots.

Semantics are the Hadoop 1.x Fair Scheduler's (the "Schedulable" rewrite,
``src/contrib/fairscheduler``, ``FairScheduler.java``); every policy decision is a hook
(:mod:`corescheduler.hookspecs`), so this module holds only the mechanism:

* :meth:`SlotEngine.update` — Hadoop's ``update()``: which jobs may run under
  the user and pool running-job limits (priority, then submit time, then id),
  lazy initialisation, demands, weights (priority × WeightAdjuster chain),
  pool and job fair shares (SharePolicy), the assignment order, and the
  starvation times that preemption and delay scheduling read.
* :meth:`SlotEngine.heartbeat` — Hadoop's ``assignTasks()``: alternate maps
  and reduces by what the node runs, pools in SharePolicy order, jobs in their
  pool's order, LoadManager and TaskSelector deciding; one task a heartbeat,
  or several with ``assign_multiple``.
* launch, finish, kill and a lost map output, in slots: the task ledger
  (:class:`~corescheduler.core.task_ledger.TaskLedger`) changes the attempt, this engine
  its node's slots, its job's and pool's counts and the orders.

Pools and the jobs inside each pool are kept sorted by their policy's order key and
re-positioned when one changes (:mod:`~corescheduler.core.slot_pools`, with preemption
and the reports), instead of Hadoop's full sort on every assignment; the order holds only
jobs with a task a heartbeat could launch, and only pools holding such jobs, so a heartbeat
never walks idle pools or jobs whose tasks all run.  What a simulator reads of the walk
is :mod:`~corescheduler.core.slot_walk`.

The :class:`~corescheduler.core.scheduler.Scheduler` runs this engine in slot mode (the
default); callers use the scheduler (:class:`~corescheduler.core.engine.Engine` is what it
asks of this class).  The heartbeat loop keeps its work inline and reads attributes into
locals: it is the innermost loop of a simulated day.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from corescheduler.core import hook_answers as answers
from corescheduler.core.model import (
    KINDS,
    LOCALITY_RANK,
    MAP,
    OFF_RACK,
    PENDING,
    PRIORITY_RANK,
    PRIORITY_WEIGHT,
    REDUCE,
    RUNNING,
    Assignment,
    Job,
    Node,
    Rejection,
    Task,
)
from corescheduler.core.order import has_nan
from corescheduler.core.slot_pools import offerable
from corescheduler.core.slot_walk import SlotWalk
from corescheduler.errors import SchedulerStateError

__all__ = ["SlotEngine"]

log = logging.getLogger("corescheduler.core.scheduler")


class SlotEngine(SlotWalk):
    """The slot-mode engine of one :class:`~corescheduler.core.scheduler.Scheduler`
    (:class:`~corescheduler.core.engine.Engine`; its owner is an
    :class:`~corescheduler.core.engine.EngineOwner`).  Task attempts launch and end through
    the owner's :class:`~corescheduler.core.task_ledger.TaskLedger`; this engine accounts for
    their slots and keeps the pools' orders."""

    # ================================================================== update
    def update(self, now: float) -> None:
        """Recompute runnability, demands, weights, shares and order (Hadoop's ``update()``);
        then ``cs_update``."""
        self._hint_epoch += 1
        quiet = self.owner.reuse_quiet_updates and not self._dirty and self.ledger.changes == self._changes_seen
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
                                weight = self.owner._weight(adjust, result)
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
        for fn in self.plugins.listeners("cs_update"):
            fn(list(self.pools.values()), now)

    def _update_runnability(self, now: float) -> None:
        """Hadoop ``updateRunnability()``: walk jobs by priority, start time and
        id, admitting each while its user and pool are under their limits."""
        allocs = self.owner.allocations
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
                    self.ledger.emit({"time": now, "type": "job_start", "job": job.id, "pool": job.pool})
                    if not job.tasks[MAP] and not job.tasks[REDUCE]:
                        newly_done.append(job)
            else:
                job.runnable = False
        for job in newly_done:
            self.owner._finish_job(job, now, update=False)

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
            runnable = [js for js in job_scheds if offerable(js.owner, kind)]
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

    # ================================================================== heartbeat
    def heartbeat(self, node: Node, now: float) -> list[Assignment]:
        """Assign tasks to ``node`` (Hadoop ``assignTasks``), with ``cs_heartbeat_start`` and
        ``cs_heartbeat_end``; the assignments in launch order (empty when none)."""
        self._hint_epoch += 1
        self._passed = []
        for fn in self.plugins.listeners("cs_heartbeat_start"):
            fn(node, now)
        multiple = self.settings.assign_multiple
        next_kind = self.root_policy.next_kind
        can_launch = self.plugins.can_launch
        select = self.plugins.select_task
        nodes = len(self.owner.cluster.nodes)  # cs_select_task's ``nodes``
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
                    for js in job_order:  # only jobs with a task to offer (offerable)
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
                                self.owner._who("LoadManager"), "cs_can_launch", verdict
                            ):
                                continue
                        chosen = select(job, node, kind, now, nodes)
                        if chosen is not None:
                            task = self._check_selected(chosen, job, kind)
                            break
                    if task is None:
                        for job in deferred:  # second pass: jobs the pool's policy deferred
                            task = self._offer(job, node, kind, now, can_launch, select, nodes)
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
                            self.owner.kill(started.id, now, reason="heartbeat failed")
                        except Exception:  # the failing plugin again: keep its first error
                            log.exception("taking back %s after a failed heartbeat", started.id)
            finally:
                self._taking_back = False
            raise
        self._quiet_at = self._map_version if walked_all and not out else -1
        if visited or out:
            skipped = [j for jid, j in visited.items() if jid not in launched_map]
            self._passed = skipped
            for fn in self.plugins.listeners("cs_heartbeat_end"):
                fn(node, out, skipped, now)
        return out

    def _offer(self, job: Job, node: Node, kind: str, now: float, can_launch: Any, select: Any,
               nodes: int) -> Task | None:
        """Ask the LoadManager, then the TaskSelector, for a task of ``job`` on ``node``."""
        if can_launch is not None:
            verdict = can_launch(node, job, kind)
            if verdict is not None and verdict is not True and not answers.flag(
                self.owner._who("LoadManager"), "cs_can_launch", verdict
            ):
                return None
        chosen = select(job, node, kind, now, nodes)
        return self._check_selected(chosen, job, kind) if chosen is not None else None

    def _check_selected(self, task: Any, job: Job, kind: str) -> Task:
        """The TaskSelector's answer, if it is a pending task of ``kind`` of ``job``."""
        if isinstance(task, Task) and task.job is job and task.kind == kind and task._state == PENDING:
            return task
        return self.owner._check_selected(task, job, kind)

    # ================================================================== task attempts
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

    def give_back(self, task: Task, node: Node | None) -> None:
        """A release's slot side: the task's slot on ``node`` and its job's and pool's running
        counts."""
        if node is not None:
            node._running[task.kind] -= 1
        self._job_running(task.job, task.kind, -1)

    def finish_task(self, task: Task, now: float, output_bytes: float | None) -> bool:
        """The running ``task`` completed; True when its job has no task left."""
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

    def kill_task(self, task: Task, now: float, reason: str) -> None:
        """Kill the running ``task``: pending again, its work lost."""
        ledger = self.ledger
        node = self._release(task)
        ledger.requeue(task)
        job = task.job
        if job.runnable and (task.kind == MAP or job.reduces_schedulable):
            self._pending_work[task.kind] += 1
            if not job.sched[task.kind]._ordered:
                self._job_running(job, task.kind, 0)  # it has a task to offer again
        ledger.preempted(task, node.name, now, reason)
        if self.track_reach:  # a map pending again: the job takes it anywhere
            self._reach_changed[job.id] = OFF_RACK

    def output_lost(self, task: Task, was_schedulable: bool) -> None:
        """A finished map is pending again (``was_schedulable``: its job's reduces were past
        slow start before); the hints asked before may not hold."""
        job = task.job
        if self.track_reach:  # a map pending again: the job takes it anywhere
            self._reach_changed[job.id] = OFF_RACK
        self._hint_epoch += 1
        if job.runnable:
            self._pending_work[MAP] += 1
            self._load[MAP].runnable += 1  # one more map demanded, before the next update counts it
            if was_schedulable and not job.reduces_schedulable:  # its pending reduces wait for slow start again
                self._pending_work[REDUCE] -= job.pending[REDUCE]
            if not job.sched[MAP]._ordered:
                self._job_running(job, MAP, 0)  # it has a map to offer again
        self._dirty = True

    def job_removed(self, job: Job, now: float) -> None:
        """The end of a job: out of its pool and the orders."""
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
        self._dirty = True
