"""The live service: one :class:`~corescheduler.core.scheduler.Scheduler` on a real clock,
its grants run on Dask, its ledger in SQLite.

Heartbeats come from the engine, as a TaskTracker's did in Hadoop: a task
attempt ending (its worker beats at once), a worker joining, and a periodic
tick (``[service] tick``, default 0.5 s, which also runs the update and the
preemption check).  Each assignment becomes one Dask task pinned to the
node's worker.  A killed or preempted attempt's process is killed on the
worker and the task is pending again (Hadoop re-runs it); an attempt that
fails is retried until ``[service] max_attempts`` (Hadoop's
``mapred.map.max.attempts``, 4), then its job fails with the error.  A worker
that leaves loses its attempts, which run again elsewhere.

Nodes are the Dask workers, named by address, racked by host.  Slot mode: a
worker offers ``map_slots`` and ``reduce_slots`` from its Dask resources of
those names; else the embedded cluster's workers offer ``[cluster]``'s slots
(and have that many threads), an external cluster's workers their thread
count of each.  Resource mode: its memory limit
(MB) and threads (vcores), plus its other Dask resources as extras.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import attrs

from corescheduler.config import Config
from corescheduler.core.allocations import Allocations
from corescheduler.core.model import (
    MAP,
    PRIORITY_WEIGHT,
    REDUCE,
    RUNNING,
    Assignment,
    Cluster,
    Job,
    JobSpec,
)
from corescheduler.core.scheduler import AccessDeniedError, JobRejectedError, Scheduler
from corescheduler.errors import AllocationError, CoreSchedulerError, PluginError, SchedulerStateError
from corescheduler.formats.allocation_file import AllocationFileLoader
from corescheduler.service.attempts import Attempts, Grant, LiveJob, jsonable
from corescheduler.service.backend import DaskBackend, WorkerInfo
from corescheduler.service.errors import ServiceError
from corescheduler.service.jobs import MAX_NAME, JobFormatError, check_pool, parse_job
from corescheduler.service.page import History
from corescheduler.service.settings import ServiceSettings
from corescheduler.service.store import LedgerError, Store
from corescheduler.service.views import Views
from corescheduler.service.workers import Workers

__all__ = ["READERS", "Grant", "LiveJob", "Service", "ServiceError", "ServiceSettings", "jsonable"]

#: threads reading the ledger for the API: more readers queue (SQLite runs without the GIL, but
#: each thread's Python share of a read competes with the loop)
READERS = 4
#: a job with more tasks than this is checked and prepared off the event loop (:meth:`Service.submit`)
LARGE_JOB = 1000
#: the ledger's row of a new task (``kind``: map or reduce); its arguments are (job, index)
TASK_ROW = "INSERT INTO tasks (job, kind, idx, state) VALUES (?, '{kind}', ?, 'pending')"


def _tasks_in(document: Any) -> int:
    """How many tasks a submitted document lists (0 for one that is not a job: checked later)."""
    if not isinstance(document, dict):
        return 0
    return sum(len(v) for k in ("maps", "reduces") if isinstance(v := document.get(k), list))

log = logging.getLogger("corescheduler.service")


class Service(Workers, Attempts, Views):
    """The scheduler, the engine and the ledger, driven by one asyncio loop."""

    def __init__(self, config: Config, *, dask: str | None = None, state: str | None = None,
                 backend: DaskBackend | None = None, dask_security: Any = None) -> None:
        # a reduce is handed every map's result when it starts (there is no shuffle to copy
        # map outputs as they appear), so reduces start once every map has finished: Hadoop's
        # mapred.reduce.slowstart.completed.maps = 1.0
        config = attrs.evolve(config, scheduler=attrs.evolve(config.scheduler, reduce_slowstart=1.0))
        self.config = config
        self.settings = ServiceSettings.from_config(config)
        self._loader: AllocationFileLoader | None = None
        allocations: Allocations | None = None
        path = config.allocation_path()
        if path is not None:
            self._loader = AllocationFileLoader(path)
            allocations = self._loader.current
        # every resource of a worker is enforced, whatever the root policy's calculator compares
        self.scheduler = Scheduler(config, Cluster(), allocations, history=False, strict_fit=True)
        #: the allocations without run-time mode switches (without a file: those the scheduler began with)
        self._file_allocations = self.scheduler.allocations
        self.resource_mode = self.scheduler.resource_mode
        if self.resource_mode and config.cluster.minimum_allocation.vcores < 1:
            # a worker offers its threads as vcores: an ask of no vcores would run more tasks on it
            # than it has threads
            raise ServiceError(f"[cluster] minimum_allocation {config.cluster.minimum_allocation}: the service "
                               "counts a worker's threads as its vcores, so every task needs at least 1 vcores",
                               field="minimum_allocation")
        cc = config.cluster
        #: tasks run as the [service] run_as accounts: only a root service can switch to them
        self.switch_user = self.settings.run_as is not None and os.geteuid() == 0
        worker_user = None
        if os.geteuid() == 0 and self.settings.isolation == "thread":
            # a thread-isolated task owns its worker process, and that process speaks Dask to
            # the service (get_client().run_on_scheduler runs code in this root process)
            raise ServiceError("[service] isolation = \"thread\" is refused when the service runs as root: a "
                               "thread-isolated task owns its worker process, which speaks Dask to the service "
                               "itself; use isolation = \"process\" (an attempt starts in a few milliseconds)")
        self.backend = backend or DaskBackend(  # no more worker processes than cores, unless [service] says
            dask, workers=self.settings.workers or max(1, min(cc.nodes, os.cpu_count() or 1)),
            threads=self.settings.threads or max(1, cc.map_slots + cc.reduce_slots), worker_user=worker_user,
            security=dask_security, dashboard=self.settings.dashboard,
        )
        #: the engine is a LocalCluster this service started (no --dask)
        self.embedded = dask is None and backend is None
        self.store = Store(state)
        #: the threads that read the ledger for the API (each with its own connection)
        self._read_pool = ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="corescheduler-read")
        #: the thread that checks and prepares large submitted jobs off the loop
        self._work_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="corescheduler-prepare")
        self.jobs: dict[str, LiveJob] = {}
        self.grants: dict[str, Grant] = {}  # the scheduler's task id -> its attempt on the engine
        self.workers: dict[str, WorkerInfo] = {}
        self.ended: dict[str, dict[str, Any]] = {}  # job id -> its end (state, error), while in memory
        self._t0 = time.monotonic()
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._beat: set[str] = set()  # workers to heartbeat at the next turn
        self._loop_task: asyncio.Task[None] | None = None
        self._watchers: set[asyncio.Task[None]] = set()
        self._stopping = False
        self.engine_error: str | None = None
        #: a plugin's error that stopped the last scheduler loop turn (its one line), until a turn passes
        self.plugin_error: str | None = None
        self._last_reconnect = -math.inf
        self.last_turn = 0.0
        self.preemptions = 0
        self.history = History()
        #: pool -> scheduling mode set at run time (kept across allocation reloads)
        self.mode_overrides: dict[str, str] = {}

    # ------------------------------------------------------------------ clock
    def now(self) -> float:
        """Seconds since the service started (the scheduler's clock)."""
        return time.monotonic() - self._t0

    # ------------------------------------------------------------------ life
    async def start(self) -> None:
        try:
            await self.backend.start()
        except Exception as exc:
            if self.embedded:
                raise
            # an external engine that is down: serve anyway, accept jobs, connect when it is up
            self.engine_error = f"cannot reach the Dask scheduler: {type(exc).__name__}: {exc}"
            self._last_reconnect = self.now()
            log.warning("%s; retrying", self.engine_error)
        if self.backend.up and not self.embedded:
            orphans = await self.backend.kill_orphans()
            if orphans:
                log.info("killed %d attempts left running by a previous service", orphans)
        async with self._lock:
            if self.backend.up:
                await self._sync_workers()
            modes = self.store.modes()
            if modes and not self.resource_mode:  # pools switched at run time before a restart
                self.mode_overrides = modes
                self.scheduler.set_allocations(self._with_overrides(self._base()), update=False)
            self._restore()
        self._loop_task = asyncio.create_task(self._run(), name="corescheduler-loop")

    async def stop(self) -> None:
        log.info("stopping: %d running attempts to stop, %d jobs kept for the next start",
                 len(self.grants), len(self.scheduler.jobs))
        self._stopping = True
        self._wake.set()
        if self._loop_task is not None:
            self._loop_task.cancel()
            try:
                await self._loop_task
            except (asyncio.CancelledError, Exception):
                pass
        for grant in list(self.grants.values()):
            await self.backend.kill(grant.attempt, grant.worker, grant.future)
        for task in list(self._watchers):
            task.cancel()
        await self.backend.close()
        self._read_pool.shutdown(wait=True)
        self._work_pool.shutdown(wait=True)
        self.store.close()
        log.info("stopped")

    def healthy(self) -> tuple[bool, str]:
        if not self.backend.up:
            return False, "the Dask engine is unreachable" + (f": {self.engine_error}" if self.engine_error else "")
        if self._loop_task is None or self._loop_task.done():
            return False, "the scheduler loop is not running"
        if self.now() - self.last_turn > max(10.0, 20 * self.settings.tick):
            return False, f"the scheduler loop has not turned for {self.now() - self.last_turn:.0f} s"
        if self.plugin_error is not None:
            return False, f"the scheduler loop stops on a plugin's error: {self.plugin_error}"
        return True, "ok"

    # ------------------------------------------------------------------ the loop
    async def _run(self) -> None:
        last_sync = -math.inf
        while not self._stopping:
            try:
                await asyncio.wait_for(self._wake.wait(), self.settings.tick)
            except TimeoutError:
                pass
            self._wake.clear()
            try:
                if not self.backend.up:
                    await self._engine_down()
                    if not self.backend.up:
                        continue
                    last_sync = -math.inf
                async with self._lock:
                    now = self.now()
                    if now - last_sync >= 1.0:
                        await self._sync_workers()
                        last_sync = now
                        self._forget_pools()
                    await self._turn(now)
                    self.store.flush()
                    self.history.sample(self)
                self.engine_error = None
                if self.plugin_error is not None:
                    log.warning("the scheduler loop turns again (the plugin's error is gone)")
                    self.plugin_error = None
            except PluginError as exc:  # a plugin's bad answer or exception: in /healthz, logged once
                if str(exc) != self.plugin_error:
                    self.plugin_error = str(exc)
                    log.error("scheduler loop turn failed: %s", exc)
            except Exception as exc:  # the engine unreachable: say so in /healthz, keep the jobs, retry
                self.engine_error = f"{type(exc).__name__}: {exc}"
                log.exception("scheduler loop turn failed")
            self.last_turn = self.now()

    def _forget_pools(self) -> None:
        """Pools and queues placement created, empty now, are forgotten (as YARN's dynamic
        queues): one-off pool names do not pile up in ``/pools``, ``/metrics`` or the page."""
        removed = self.scheduler.remove_empty_pools()
        if removed:
            self.history.forget(removed)
            log.debug("forgot %d empty pools: %s", len(removed), ", ".join(removed[:10]))

    async def _engine_down(self) -> None:
        """The engine is unreachable: nothing is granted; what ran there runs again once it is
        back (its futures are gone with the connection); accepted jobs wait, none is lost.
        A client that gave up is replaced every few seconds until one connects."""
        if self.engine_error is None:
            self.engine_error = "lost the connection to the Dask scheduler"
            log.warning("engine unreachable: %s", self.engine_error)
        async with self._lock:
            now = self.now()
            for task_id, grant in list(self.grants.items()):
                del self.grants[task_id]
                task = self.scheduler.task(task_id)
                if task.state == RUNNING:
                    self.scheduler.kill(task_id, now, reason="engine unreachable")
                self.store.task_ended(grant.job, grant.kind, grant.index, "pending", error="engine unreachable")
            for address in list(self.workers):  # their slots are not ours until we see them again
                del self.workers[address]
                if address in self.scheduler.cluster.nodes:
                    self.scheduler.remove_node(address, now)
            self.store.flush()
        if self.backend.gone and self.now() - self._last_reconnect >= 2.0:
            self._last_reconnect = self.now()
            if await self.backend.reconnect():
                log.info("engine reachable again")
                try:
                    await self.backend.kill_orphans()
                except Exception as exc:
                    log.info("could not clear old attempts: %s", exc)
                self.engine_error = None
        else:
            await asyncio.sleep(min(1.0, self.settings.tick))

    async def _turn(self, now: float) -> None:
        sched = self.scheduler
        loader = self._loader
        if loader is not None:
            previous = loader.current
            if loader.reload_if_necessary(time.time()):
                try:
                    self._put_in_force(loader.current, previous, update=False)
                except CoreSchedulerError as exc:  # logged; the turn goes on under the last good file
                    log.error("the scheduler refused the changed allocation file, keeping the last good "
                              "allocations: %s", exc)
        sched.update(now)
        for task in sched.preempt(now):
            self.preemptions += 1
            await self._stop(task, "preempted")
        beat = self._beat or set(sched.cluster.nodes)
        self._beat = set()
        failed: list[tuple[Assignment, Exception]] = []
        for name in list(beat):
            # a heartbeat whose outcome the task selector's hints know is counted, not run
            if name in sched.cluster.nodes and not sched.skip_quiet_heartbeat(name, now):
                for assignment in sched.heartbeat(name, now):
                    try:
                        self._grant(assignment)
                    except (sqlite3.Error, LedgerError) as exc:
                        # the ledger could not record the job's start (written before the engine
                        # gets the attempt): nothing ran, so no attempt failed — the container is
                        # given back and the task waits for a later heartbeat, the ledger as it was
                        log.error("the ledger could not be written; %s waits: %s", assignment.task, exc)
                        sched.kill(assignment.task, now, reason="the ledger could not be written")
                    except Exception as exc:  # the engine would not take it: a failed attempt
                        failed.append((assignment, exc))
        for assignment, exc in failed:
            await self._grant_failed(assignment, exc)

    def kick(self, *workers: str) -> None:
        """Heartbeat these workers (all, if none named) at the next turn."""
        if workers:
            self._beat.update(workers)
        else:
            self._beat.update(self.scheduler.cluster.nodes)
        self._wake.set()

    # ------------------------------------------------------------------ jobs
    async def submit(self, document: Any, user: str | None, groups: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
        """Accept a job: checked, placed by the scheduler, written to the ledger — then answered.

        A large job (over :data:`LARGE_JOB` tasks) is checked, and its scheduler spec and ledger
        rows built, in a thread: the event loop keeps answering (``/healthz``, reads, the
        scheduler's turns) meanwhile.  Only its placement and its ledger write (one transaction,
        the task rows in one ``executemany``) run on the loop, under the service's lock."""
        nodes = self.node_names()
        if _tasks_in(document) > LARGE_JOB:
            request, spec, rows = await asyncio.get_running_loop().run_in_executor(
                self._work_pool, self._prepare, document, user, list(groups), nodes)
        else:
            request, spec, rows = self._prepare(document, user, list(groups), nodes)
        async with self._lock:
            seq = self.store.next_seq()
            job_id = f"job_{seq:04d}"
            spec = attrs.evolve(spec, id=job_id)
            now = self.now()

            def write(w: Any) -> None:  # the job and its tasks first: nothing is placed if they cannot be stored
                for sql, args in self.store.job_statements(
                        job_id, seq, user, list(groups), dict(request.document), request.name, request.pool,
                        request.priority, 0, 0):
                    w(sql, args)
                for sql, idx in rows:
                    w(sql, [(job_id, i) for i in idx])

            def place() -> Job:  # placed now (a rejection is answered now); the loop's next turn runs the update
                try:
                    job = self.scheduler.submit(spec, now, update=False)
                    try:  # a pool a resolver read from a job property (``pool_name_property``) is
                        # checked as the pool field is: the page, logs and ledger show the name stored
                        check_pool(job.pool, "pool")
                    except JobFormatError as exc:
                        unplace(job)
                        raise ServiceError(f"the job's pool {job.pool[:MAX_NAME]!r}, named by its properties: "
                                           f"{exc.message}", 400, "properties") from None
                    return job
                except AccessDeniedError as exc:  # the queue's submit ACL
                    raise ServiceError(str(exc), 403, "pool") from None
                except JobRejectedError as exc:
                    raise ServiceError(str(exc), 400, "pool") from None
                except SchedulerStateError as exc:
                    raise ServiceError(str(exc), 400, None) from None

            def placed(w: Any, job: Job) -> None:  # where the scheduler put it
                w("UPDATE jobs SET pool = ? WHERE id = ?", (job.pool, job_id))

            def unplace(job: Job) -> None:
                self.scheduler.end_job(job_id, self.now(), state="failed", reason="could not be stored")

            self._write(write, place, unplace, placed, [job_id])
            self.jobs[job_id] = LiveJob(request, {MAP: list(range(len(request.maps))),
                                                  REDUCE: list(range(len(request.reduces)))})
            self._job_started(self.scheduler.jobs[job_id])
            self.kick()
            if len(request.maps) + len(request.reduces) <= LARGE_JOB:
                return self.describe(job_id)
        # a large job's counts are read (a scan of its tasks) in a reading thread, after the lock
        return (await self.describe_many([await self.read(self.store.job_summary, job_id)]))[0]

    def _prepare(self, document: Any, user: str | None, groups: list[str], nodes: dict[str, str],
                 ) -> tuple[Any, JobSpec, list[tuple[str, range]]]:
        """A submitted document checked (:class:`ServiceError` 400 naming the field), its
        scheduler spec (without its id) and its task rows to store (each kind's statement and
        indexes).  Touches no state of the service: it may run in a thread."""
        try:
            request = parse_job(document)
        except JobFormatError as exc:
            raise ServiceError(exc.message, 400, exc.field) from None
        except RecursionError:
            raise ServiceError("the job nests too deep", 400, None) from None
        if not self.resource_mode:
            sized = [f"{kind}[{i}].resources" for kind, tasks in (("maps", request.maps), ("reduces", request.reduces))
                     for i, t in enumerate(tasks) if t.resources is not None]
            if request.task_resources is not None:
                sized.insert(0, "task_resources")
            if sized:
                raise ServiceError("task sizes need [scheduler] mode = \"resources\"; this service schedules slots",
                                   400, sized[0])
        spec = request.spec(user, groups, None, nodes)
        rows = [(sql, range(n)) for sql, n in (
            (TASK_ROW.format(kind="map"), len(request.maps)), (TASK_ROW.format(kind="reduce"), len(request.reduces)))
            if n]
        return request, spec, rows

    def _write(self, write: Any, apply: Any, undo: Any, after: Any = None, jobs: Any = None) -> Any:
        """A request's change, ledger first (:meth:`Store.change`; ``jobs``: those whose tasks it
        changes); a ledger that cannot be written is a 503 and nothing changed."""
        try:
            return self.store.change(write, apply, undo, after, jobs)
        except LedgerError as exc:
            log.error("the ledger could not be written: %s", exc)
            raise ServiceError(f"the change could not be written to the ledger ({exc}); nothing changed",
                               503, None) from None

    def _job_started(self, job: Job) -> None:
        if job.initialized:
            self.store.job_started(job.id, job.pool)

    def _resubmit(self, spec: Any, asked: str | None, asked_priority: str | None = None) -> Job:
        """A job placed again after a restart, in the pool or queue it was in (``spec.pool``), at
        the priority it had (``spec.priority``).  One an admin moved where its owner may not
        submit (the target's ACL), or re-prioritised past what its owner may set (a queue's
        priority ACL): placed as it was submitted (``asked``, ``asked_priority``), then moved
        and re-prioritised again, as the admin's change was accepted."""
        try:
            return self.scheduler.submit(spec, self.now(), update=False)
        except AccessDeniedError:
            # (asked None: its owner named no queue and the placement rules chose one; an admin
            # may have moved it since — placed by the rules again, then moved)
            same_pool = spec.pool == asked
            if same_pool and (asked_priority is None or spec.priority == asked_priority):
                raise
        first = attrs.evolve(spec, pool=asked, priority=asked_priority or spec.priority)
        job = self.scheduler.submit(first, self.now(), update=False)
        try:
            self.scheduler.move(job.id, spec.pool, self.now())
        except SchedulerStateError as exc:  # its queue's rules refuse it now: it stays where it was placed
            log.warning("job %s stays in %s after the restart: %s", job.id, job.pool, exc)
            self.store.set_job(job.id, pool=job.pool)
        if job.priority != spec.priority:
            self.scheduler.set_priority(job.id, spec.priority, self.now())  # the system's: not checked
        return job

    def _restore(self) -> None:
        """After a restart: every accepted job that had not ended runs again, with what it
        had completed kept — except a job with reduces still to run, whose maps run again
        (their results lived in the engine's memory, gone with the old service, as a lost
        TaskTracker's map outputs were in Hadoop)."""
        count = 0
        for row in self.store.unfinished():
            try:  # a job accepted by an older version may hold what this one refuses
                request = parse_job(row["document"])
            except JobFormatError as exc:
                self.store.job_ended(row["id"], "failed", error=f"could not be restored: {exc.field}: {exc.message}")
                continue
            done = {(t["kind"], t["idx"]): t for t in row["tasks"] if t["state"] == "complete"}
            reduces_left = [i for i in range(len(request.reduces)) if (REDUCE, i) not in done]
            if reduces_left:
                maps_left = list(range(len(request.maps)))
            else:
                maps_left = [i for i in range(len(request.maps)) if (MAP, i) not in done]
            live = LiveJob(request, {MAP: maps_left, REDUCE: reduces_left})
            for (kind, idx), t in done.items():
                if t["result"] is not None:
                    (live.map_results if kind == MAP else live.reduce_results)[idx] = json.loads(t["result"])
            spec = request.spec(row["user"], row["groups"], row["id"], self.node_names())
            spec = attrs.evolve(spec, maps=[spec.maps[i] for i in maps_left],
                                reduces=[spec.reduces[i] for i in reduces_left],
                                pool=row["pool"] or spec.pool, priority=row["priority"])
            try:
                job = self._resubmit(spec, request.pool, request.priority)
            except CoreSchedulerError as exc:
                self.store.job_ended(row["id"], "failed", error=f"could not be restored: {exc}")
                continue
            self.jobs[row["id"]] = live
            for kind in (MAP, REDUCE):
                for t in row["tasks"]:
                    if t["kind"] == kind and t["state"] == "running":
                        self.store.task_ended(row["id"], kind, t["idx"], "pending", error="service restarted")
            count += 1
            if not maps_left and not reduces_left:
                self._finish(job.id)
        self.scheduler.update(self.now())
        if count:
            log.info("restored %d unfinished jobs", count)

    async def kill_job(self, job_id: str, reason: str = "killed by request",
                       allowed: Callable[[Job], None] | None = None) -> dict[str, Any]:
        """Kill a live job.  ``allowed(job)``: the caller's right to it, checked under the lock
        against the job as it is then (raises :class:`ServiceError`): a right checked before the
        lock was taken may be stale (another request moved the job meanwhile)."""
        async with self._lock:
            job = self._live(job_id)
            if allowed is not None:
                allowed(job)
            now = self.now()

            def write(w: Any) -> None:
                for sql, args in self.store.end_statements(job_id, "killed", error=reason):
                    w(sql, args)

            # the ledger's commit first: a kill cannot be undone in the scheduler
            self._write(write, lambda: None, lambda _: None, jobs=[job_id])
            stopped = self.scheduler.end_job(job_id, now, state="killed", reason=reason)
            for task in stopped:
                await self._stop_grant(task.id)
            self._forget(job_id, "killed", reason)
            self.kick()
            return self.describe(job_id)

    async def move(self, job_id: str, pool: str, user: str | None = None, groups: Sequence[str] = (),
                   allowed: Callable[[Job], None] | None = None) -> dict[str, Any]:
        """Move a live job to another pool or queue.  ``user`` (and its ``groups``): the caller,
        who must be allowed to submit to the target queue (403 otherwise); None: an admin.
        ``allowed``: as :meth:`kill_job`'s."""
        try:
            pool = check_pool(pool, "pool").strip()
        except JobFormatError as exc:
            raise ServiceError(exc.message, 400, "pool") from None
        async with self._lock:
            job = self._live(job_id)
            if allowed is not None:
                allowed(job)
            try:  # checked first, changing nothing: a move's undo would be a second move, which the
                # queues' rules may refuse once the first has changed them (maxRunningApps)
                target = self.scheduler.move_target(job_id, pool, user=user, groups=groups)
            except AccessDeniedError as exc:  # the target queue's submit ACL refuses the caller
                raise ServiceError(str(exc), 403, "pool") from None
            except SchedulerStateError as exc:
                raise ServiceError(str(exc), 400, "pool") from None
            if target is not None:
                # the ledger first, then the move, which nothing can refuse in between (the
                # loop's turns hold this lock too)
                self._write(lambda w: w("UPDATE jobs SET pool = ? WHERE id = ?", (target, job_id)),
                            lambda: None, lambda _: None, jobs=[job_id])
                self.scheduler.move(job_id, pool, self.now(), user=user, groups=groups)  # into ``target``
            self.kick()
            return self.describe(job_id)

    async def set_priority(self, job_id: str, priority: str, user: str | None = None,
                           groups: tuple[str, ...] = (), allowed: Callable[[Job], None] | None = None,
                           ) -> dict[str, Any]:
        """Change a job's priority; ``user`` (and ``groups``), the caller whose right to the new
        priority the scheduler's policy checks (the Capacity Scheduler's
        ``acl_application_max_priority``): 403 when it refuses.  None: an admin.  ``allowed``:
        as :meth:`kill_job`'s."""
        if not isinstance(priority, str) or priority.upper() not in PRIORITY_WEIGHT:
            raise ServiceError(f"expected one of {', '.join(PRIORITY_WEIGHT)}", 400, "priority")
        priority = priority.upper()
        async with self._lock:
            job = self._live(job_id)
            if allowed is not None:
                allowed(job)
            before = job.priority

            def apply() -> None:
                try:
                    self.scheduler.set_priority(job_id, priority, self.now(), user=user, groups=groups)
                except AccessDeniedError as exc:  # the queue's priority ACL refuses the caller
                    raise ServiceError(str(exc), 403, "priority") from None
                except (SchedulerStateError, ValueError) as exc:
                    raise ServiceError(str(exc), 400, "priority") from None

            self._write(lambda w: w("UPDATE jobs SET priority = ? WHERE id = ?", (priority, job_id)), apply,
                        lambda _: self.scheduler.set_priority(job_id, before, self.now()), jobs=[job_id])
            self.kick()
            return self.describe(job_id)

    async def set_mode(self, pool: str, mode: str) -> dict[str, Any]:
        """Switch a pool between fifo and fair (Hadoop's page switched the whole scheduler;
        SPEC §8 per pool).  Kept across allocation reloads until switched back."""
        if mode not in ("fifo", "fair"):
            raise ServiceError("expected \"fifo\" or \"fair\"", 400, "mode")
        try:
            check_pool(pool, "pool")
        except JobFormatError as exc:
            raise ServiceError(exc.message, 400, "pool") from None
        if self.resource_mode:
            raise ServiceError("in resource mode a queue's policy is its schedulingPolicy in the allocation file",
                               400, "mode")
        async with self._lock:
            if pool not in self.scheduler.pools and pool not in self.scheduler.allocations.pools:
                raise ServiceError(f"no pool {pool!r}", 404, "pool")
            before = dict(self.mode_overrides)

            def overrides(modes: dict[str, str]) -> None:
                self.mode_overrides = modes
                self.scheduler.set_allocations(self._with_overrides(self._base()), update=True)

            def apply() -> None:
                try:
                    overrides({**before, pool: mode})
                except CoreSchedulerError as exc:
                    overrides(before)
                    raise ServiceError(str(exc), 400, "mode") from None

            # the ledger keeps it: a restart keeps the switch (as the allocation file keeps its own)
            self._write(lambda w: w("INSERT OR REPLACE INTO modes (pool, mode) VALUES (?, ?)", (pool, mode)),
                        apply, lambda _: overrides(before), jobs=())
            self.kick()
            return {"pool": pool, "mode": mode}

    def _base(self) -> Allocations:
        """The allocations as the file says (the last good load), before run-time mode switches."""
        return self._loader.current if self._loader is not None else self._file_allocations

    def _with_overrides(self, allocations: Allocations) -> Allocations:
        if not self.mode_overrides:
            return allocations
        pools = dict(allocations.pools)
        for name, mode in self.mode_overrides.items():
            pools[name] = attrs.evolve(allocations.pool(name), scheduling_mode=mode)
        return attrs.evolve(allocations, pools=pools)

    async def reload(self) -> dict[str, Any]:
        """Reload the allocation file now (``POST /admin/reload``); a bad file keeps the last good one."""
        if self._loader is None:
            raise ServiceError("the config names no allocation file", 400, "allocation_file")
        async with self._lock:
            previous = self._loader.current
            try:
                allocations = self._loader.force_reload()
                self._put_in_force(allocations, previous, update=True)
            except CoreSchedulerError as exc:
                raise ServiceError(str(exc), 400, "allocation_file") from None
            self.kick()
            return {"reloaded": self._loader.path}

    def _put_in_force(self, allocations: Allocations, previous: Allocations, update: bool) -> None:
        """A file the loader read is put in force; one the scheduler refuses (a share policy's
        or ``refreshQueues``' check, raised as the plugin's error) leaves the loader's last good
        file ``previous`` current, as the scheduler keeps it, and is raised."""
        assert self._loader is not None
        try:
            self.scheduler.set_allocations(self._with_overrides(allocations), update=update)
        except CoreSchedulerError as exc:
            self._loader.current = previous
            self._loader.last_error = exc if isinstance(exc, AllocationError) else AllocationError(
                str(exc), self._loader.path)
            raise

    def _live(self, job_id: str) -> Job:
        job = self.scheduler.jobs.get(job_id)
        if job is None:
            row = self.store.job(job_id)
            if row is None:
                raise ServiceError(f"no job {job_id!r}", 404, "id")
            raise ServiceError(f"job {job_id} has already ended ({row['state']})", 409, "id")
        return job
