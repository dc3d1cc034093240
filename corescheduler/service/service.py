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
import functools
import json
import logging
import math
import os
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import attrs
from attrs import define, field

from corescheduler.config import Config
from corescheduler.core.allocations import Allocations
from corescheduler.core.model import (
    COMPLETE,
    MAP,
    PRIORITY_WEIGHT,
    REDUCE,
    RUNNING,
    Assignment,
    Cluster,
    Job,
    Task,
)
from corescheduler.core.scheduler import AccessDeniedError, JobRejectedError, Scheduler
from corescheduler.errors import CoreSchedulerError, PluginError, SchedulerStateError
from corescheduler.formats.allocation_file import AllocationFileLoader
from corescheduler.resources import Resources
from corescheduler.service.backend import DaskBackend, WorkerInfo, wait_futures
from corescheduler.service.jobs import JobFormatError, JobRequest, check_name, check_timeout, parse_job
from corescheduler.service.page import History
from corescheduler.service.result import shown
from corescheduler.service.runner import AttemptFailed, AttemptKilled
from corescheduler.service.store import LedgerError, Store

#: threads reading the ledger for the API: more readers queue (SQLite runs without the GIL, but
#: each thread's Python share of a read competes with the loop)
READERS = 4

log = logging.getLogger("corescheduler.service")


class ServiceError(CoreSchedulerError):
    """A request the service refuses: ``status`` is the HTTP status, ``field`` what was wrong."""

    def __init__(self, message: str, status: int = 400, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.field = field


@define
class Grant:
    """One attempt of a task on the engine."""

    attempt: str
    worker: str
    future: Any
    job: str
    kind: str
    index: int


@define
class LiveJob:
    """What the service keeps of a job beside the scheduler's :class:`Job`."""

    request: JobRequest
    #: the scheduler's task index -> the submitted task's index (a job restored after a
    #: restart runs only what it had not finished)
    index: dict[str, list[int]] = field(factory=dict)
    #: map results by submitted index, of a map-only job (its result) or restored from the ledger
    map_results: dict[int, Any] = field(factory=dict)
    reduce_results: dict[int, Any] = field(factory=dict)
    #: a job with reduces: its finished maps' results stay on the workers that made them;
    #: the Dask futures holding them, by submitted index (handed to the reduces, so Dask moves
    #: each result from its worker to the reduce's, never through the service)
    map_futures: dict[int, Any] = field(factory=dict)


@define
class ServiceSettings:
    """``[service]`` settings."""

    tick: float = 0.5
    max_attempts: int = 4
    workers: int | None = None
    threads: int | None = None
    #: "process": every attempt its own process (killed exactly); "thread": a Python call runs in
    #: the worker's thread (no process start: for short tasks; stopping it restarts the worker)
    isolation: str = "process"
    #: grants a worker may hold per slot: above 1, a worker gets its next tasks before its slots
    #: free, hiding the grant round trip (design/dask-backend.md: 1.5 for 50 ms tasks); the
    #: scheduler then counts backlog × slots per node
    backlog: float = 1.0
    #: the OS account tasks run as when the service runs as root: one name, or a table from
    #: tenant users to names with a "*" entry for everyone else (SPEC §8b)
    run_as: str | dict[str, str] | None = None
    #: seconds an attempt may run when its job gives no ``timeout`` (None: no limit); past it,
    #: its process group is killed and the attempt fails (Hadoop's mapreduce.task.timeout)
    task_timeout: float | None = None
    #: the embedded Dask scheduler's dashboard ("127.0.0.1:8787"); None: no dashboard
    dashboard: str | None = None
    #: the largest result (pickled) an attempt may return; past it the attempt fails
    max_result_bytes: int = 64 << 20

    def account(self, user: str | None) -> str | None:
        """The OS account ``user``'s tasks run as (when the service runs as root)."""
        if isinstance(self.run_as, dict):
            return self.run_as.get(user or "", self.run_as["*"])
        return self.run_as
    #: what anyone may read of a job that is not theirs (SPEC §8b): "summary" or "none"
    public_read: str = "summary"

    @classmethod
    def from_config(cls, config: Config, problems: list[str] | None = None) -> ServiceSettings:
        """``[service]``'s settings.  A bad one raises :class:`ServiceError` (the first); given
        ``problems``, every bad one's message is appended there instead (``check``) and the
        default kept for it."""
        def fail(message: str) -> None:
            if problems is None:
                raise ServiceError(message)
            problems.append(message)

        raw: Mapping[str, Any] = config.service
        known = {"tick", "max_attempts", "workers", "threads", "isolation", "backlog", "run_as",
                 "task_timeout", "dashboard", "public_read", "max_result_bytes"}
        for key in sorted(set(raw) - known):
            fail(f"[service] {key}: unknown setting; expected one of {', '.join(sorted(known))}")
        out = cls()
        for key in ("tick",):
            if key in raw:
                value = raw[key]
                if not isinstance(value, int | float) or isinstance(value, bool) or not (0 < value <= 60):
                    fail(f"[service] {key}: expected seconds in (0, 60], got {value!r}")
                else:
                    setattr(out, key, float(value))
        if "isolation" in raw:
            if raw["isolation"] not in ("process", "thread"):
                fail(f"[service] isolation: expected \"process\" or \"thread\", got {raw['isolation']!r}")
            else:
                out.isolation = raw["isolation"]
        if "public_read" in raw:
            if raw["public_read"] not in ("summary", "none"):
                fail("[service] public_read: expected \"summary\" or \"none\", "
                     f"got {raw['public_read']!r}")
            else:
                out.public_read = raw["public_read"]
        if "backlog" in raw:
            value = raw["backlog"]
            if not isinstance(value, int | float) or isinstance(value, bool) or not (1 <= value <= 10):
                fail(f"[service] backlog: expected a factor from 1 to 10, got {value!r}")
            else:
                out.backlog = float(value)
        if "run_as" in raw:
            try:
                out.run_as = _run_as(raw["run_as"])
            except ServiceError as exc:
                fail(str(exc))
        if "dashboard" in raw:
            value = raw["dashboard"]
            if not isinstance(value, str) or ":" not in value or not value.rpartition(":")[2].isdigit():
                fail(f"[service] dashboard: expected an address such as \"127.0.0.1:8787\", "
                     f"got {value!r}")
            else:
                out.dashboard = value
        if "task_timeout" in raw:
            timeout = check_timeout(raw["task_timeout"])
            if timeout is None:
                fail(f"[service] task_timeout: expected seconds, a number > 0, "
                     f"got {raw['task_timeout']!r}")
            else:
                out.task_timeout = timeout
        for key in ("max_attempts", "workers", "threads", "max_result_bytes"):
            if key in raw:
                value = raw[key]
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    fail(f"[service] {key}: expected a whole number ≥ 1, got {value!r}")
                else:
                    setattr(out, key, value)
        return out


def _run_as(value: Any) -> str | dict[str, str]:
    """``[service] run_as``: an OS account name, or a table user → account with a "*" entry."""
    def name(v: Any) -> bool:
        return isinstance(v, str) and bool(v) and v.strip() == v and ":" not in v and "\0" not in v

    if name(value):
        return str(value)
    if isinstance(value, Mapping) and value and all(isinstance(k, str) and name(v) for k, v in value.items()):
        if "*" not in value:
            raise ServiceError("[service] run_as: a table needs a \"*\" entry: the account of users it does not name")
        return {str(k): str(v) for k, v in value.items()}
    raise ServiceError(f"[service] run_as: expected an OS account name or a table of user = account, got {value!r}")


class Service:
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
        self.scheduler = Scheduler(config, Cluster(), allocations, history=False)
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
        if self._loader is not None and self._loader.reload_if_necessary(time.time()):
            sched.set_allocations(self._with_overrides(self._loader.current), update=False)
        sched.update(now)
        for task in sched.preempt(now):
            self.preemptions += 1
            await self._stop(task, "preempted")
        beat = self._beat or set(sched.cluster.nodes)
        self._beat = set()
        failed: list[tuple[Assignment, Exception]] = []
        for name in list(beat):
            if name in sched.cluster.nodes:
                for assignment in sched.heartbeat(name, now):
                    try:
                        self._grant(assignment)
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

    # ------------------------------------------------------------------ workers
    async def _sync_workers(self) -> None:
        try:
            live = await self.backend.workers()
        except Exception as exc:
            self.engine_error = f"{type(exc).__name__}: {exc}"
            raise
        sched = self.scheduler
        now = self.now()
        for address in [a for a in self.workers if a not in live]:
            del self.workers[address]
            if address in sched.cluster.nodes:
                lost = sched.remove_node(address, now)
                for task in lost:
                    grant = self.grants.pop(task.id, None)
                    if grant is not None:  # pinned to a worker that is gone: Dask would hold it forever
                        self.store.task_ended(grant.job, grant.kind, grant.index, "pending", error="worker lost")
                        if not grant.future.done():
                            await grant.future.cancel(reason="corescheduler: worker lost")
                log.info("worker %s left; %d attempts to run again", address, len(lost))
                await self._lost_outputs(now)
        for address, info in live.items():
            if address in self.workers:
                continue
            self.workers[address] = info
            rack = info.host or "default-rack"
            if self.resource_mode:
                extras = {k: int(v) for k, v in info.resources.items() if k not in ("map_slots", "reduce_slots")}
                memory = info.memory_limit // (1024 * 1024) if info.memory_limit else 8192
                sched.add_node(address, rack, resources=Resources(memory, info.nthreads, extras))
            else:
                if self.embedded:  # the local cluster is sized by [cluster]: its slots per node
                    default_maps, default_reduces = self.config.cluster.map_slots, self.config.cluster.reduce_slots
                else:
                    default_maps = default_reduces = info.nthreads
                backlog = self.settings.backlog
                maps = math.ceil(int(info.resources.get("map_slots", default_maps)) * backlog)
                reduces = math.ceil(int(info.resources.get("reduce_slots", default_reduces)) * backlog)
                sched.add_node(address, rack, maps, reduces)
            self._beat.add(address)
            log.info("worker %s joined (%d threads)", address, info.nthreads)

    async def _lost_outputs(self, now: float) -> None:
        """Workers left: a map result no worker holds any more is lost, and its map runs again
        (``Scheduler.lose_output``: Hadoop re-ran a lost TaskTracker's completed maps of jobs
        with reduces to run); one that survives as a copy elsewhere (a reduce fetched it) is
        recorded there.  The job's reduces that have not started executing are stopped and
        run again later: one waiting for a lost result would wait for ever.  Those executing
        have their inputs already and go on."""
        sched = self.scheduler
        executing: set[str] | None = None
        for job_id, live in list(self.jobs.items()):
            job = sched.jobs.get(job_id)
            if not live.map_futures or job is None or job.map_outputs is None:
                continue
            holders = await self.backend.holders(list(live.map_futures.values()))
            by_index = {submitted: job.tasks[MAP][k] for k, submitted in enumerate(live.index[MAP])}
            lost = []
            for i, future in list(live.map_futures.items()):
                task = by_index.get(i)
                where = [w for w in holders.get(future.key, ()) if w in sched.cluster.nodes]
                if task is None or task.state != COMPLETE:
                    continue
                if where:
                    if job.map_outputs.nodes.get(task.index) not in where:
                        job.map_outputs.move(task.index, where[0], sched.cluster.nodes[where[0]].rack)
                    continue
                del live.map_futures[i]
                sched.lose_output(task.id, now, reason="map output lost with its worker")
                self.store.task_ended(job_id, MAP, i, "pending", error="map output lost with its worker")
                lost.append(i)
            if not lost:
                continue
            if executing is None:
                executing = await self.backend.executing()
            for task in list(job.tasks[REDUCE]):
                grant = self.grants.get(task.id)
                if task.state == RUNNING and grant is not None and grant.attempt not in executing:
                    sched.kill(task.id, now, reason="a map output it reads was lost")
                    await self._stop(task, "a map output it reads was lost")
            log.info("job %s: %d map outputs lost with their worker; those maps run again", job_id, len(lost))

    def node_names(self) -> dict[str, str]:
        """Worker address, name and ``host:`` keys -> node names (for a job's input_nodes)."""
        out: dict[str, str] = {}
        for address, info in self.workers.items():
            out[address] = address
            out[info.name] = address
            out[f"host:{info.host}:{address}"] = address
        return out

    # ------------------------------------------------------------------ jobs
    async def submit(self, document: Any, user: str | None, groups: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
        """Accept a job: checked, placed by the scheduler, written to the ledger — then answered."""
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
        async with self._lock:
            seq = self.store.next_seq()
            job_id = f"job_{seq:04d}"
            spec = request.spec(user, list(groups), job_id, self.node_names())
            now = self.now()

            def write(w: Any) -> None:  # the job and its tasks first: nothing is placed if they cannot be stored
                for sql, args in self.store.job_statements(
                        job_id, seq, user, list(groups), dict(request.document), request.name, request.pool,
                        request.priority, len(request.maps), len(request.reduces)):
                    w(sql, args)

            def place() -> Job:  # placed now (a rejection is answered now); the loop's next turn runs the update
                try:
                    return self.scheduler.submit(spec, now, update=False)
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
            return self.describe(job_id)

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
                job = self.scheduler.submit(spec, self.now(), update=False)
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

    async def kill_job(self, job_id: str, reason: str = "killed by request") -> dict[str, Any]:
        async with self._lock:
            self._live(job_id)
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

    async def move(self, job_id: str, pool: str) -> dict[str, Any]:
        try:
            pool = check_name(pool, "pool", "a pool name").strip()
        except JobFormatError as exc:
            raise ServiceError(exc.message, 400, "pool") from None
        if not pool:
            raise ServiceError("expected a pool name (a non-empty string of at most 200 characters)", 400, "pool")
        async with self._lock:
            job = self._live(job_id)
            before = job.pool

            def apply() -> str:
                try:
                    self.scheduler.move(job_id, pool, self.now())
                except SchedulerStateError as exc:
                    raise ServiceError(str(exc), 400, "pool") from None
                return self.scheduler.jobs[job_id].pool

            def undo(_: Any) -> None:
                self.scheduler.move(job_id, before, self.now())

            self._write(lambda w: w("UPDATE jobs SET pool = ? WHERE id = ?", (pool, job_id)), apply, undo,
                        lambda w, placed: w("UPDATE jobs SET pool = ? WHERE id = ?", (placed, job_id)), [job_id])
            self.kick()
            return self.describe(job_id)

    async def set_priority(self, job_id: str, priority: str) -> dict[str, Any]:
        if not isinstance(priority, str) or priority.upper() not in PRIORITY_WEIGHT:
            raise ServiceError(f"expected one of {', '.join(PRIORITY_WEIGHT)}", 400, "priority")
        priority = priority.upper()
        async with self._lock:
            job = self._live(job_id)
            before = job.priority

            def apply() -> None:
                try:
                    self.scheduler.set_priority(job_id, priority, self.now())
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
            check_name(pool, "pool", "a pool name")
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
            try:
                allocations = self._loader.force_reload()
            except CoreSchedulerError as exc:
                raise ServiceError(str(exc), 400, "allocation_file") from None
            self.scheduler.set_allocations(self._with_overrides(allocations), update=True)
            self.kick()
            return {"reloaded": self._loader.path}

    def _live(self, job_id: str) -> Job:
        job = self.scheduler.jobs.get(job_id)
        if job is None:
            row = self.store.job(job_id)
            if row is None:
                raise ServiceError(f"no job {job_id!r}", 404, "id")
            raise ServiceError(f"job {job_id} has already ended ({row['state']})", 409, "id")
        return job

    # ------------------------------------------------------------------ grants
    def _grant(self, a: Assignment) -> None:
        job = self.scheduler.jobs[a.job]
        task = self.scheduler.task(a.task)
        live = self.jobs[a.job]
        self._job_started(job)
        index = live.index[a.kind][task.index]
        request = live.request
        payload = (request.maps if a.kind == MAP else request.reduces)[index].payload()
        inputs: list[Any] = []
        if a.kind == REDUCE:  # the maps' results, where they are (a value only if restored from the ledger)
            inputs = [live.map_futures.get(i, live.map_results.get(i)) for i in range(len(request.maps))]
        if self.settings.isolation != "process":
            payload = {**payload, "isolation": self.settings.isolation}
        if self.switch_user:
            payload = {**payload, "run_as": self.settings.account(job.user)}
        timeout = request.timeout if request.timeout is not None else self.settings.task_timeout
        if timeout is not None:
            payload = {**payload, "timeout": timeout}
        payload = {**payload, "max_result_bytes": self.settings.max_result_bytes}
        attempt = f"{a.job}/{a.kind}{index}/a{task.attempts}-{time.time_ns() % 10**9}"
        future = self.backend.submit(attempt, payload, a.node, priority=0, inputs=inputs)
        grant = Grant(attempt, a.node, future, a.job, a.kind, index)
        self.grants[a.task] = grant
        self.store.task_started(a.job, a.kind, index, a.node)
        watcher = asyncio.ensure_future(self._watch(a.task, grant))
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)

    async def _grant_failed(self, a: Assignment, exc: Exception) -> None:
        """An assignment the engine refused (``client.submit`` raised): the attempt failed."""
        log.warning("could not start %s on %s: %s", a.task, a.node, exc)
        live = self.jobs.get(a.job)
        task = self.scheduler.task(a.task)
        index = live.index[a.kind][task.index] if live is not None else task.index
        grant = Grant("", a.node, None, a.job, a.kind, index)
        self.grants.pop(a.task, None)
        await self._ended(a.task, grant, "failed", f"could not be started: {type(exc).__name__}: {exc}"[:2000])

    async def _watch(self, task_id: str, grant: Grant) -> None:
        live = self.jobs.get(grant.job)
        hold = grant.kind == MAP and live is not None and bool(live.request.reduces)
        try:
            if hold:  # the result stays on its worker: wait for it without fetching it
                await wait_futures([grant.future])
                if grant.future.status == "error":
                    raise await grant.future.exception()
                if grant.future.status == "cancelled":
                    raise asyncio.CancelledError
                if grant.future.status != "finished":
                    raise RuntimeError(f"the engine reports the attempt {grant.future.status}")
                size = (await self.backend.sizes([grant.future])).get(grant.future.key)
                outcome, detail = "ok", (grant.future, size)
            else:
                result = await grant.future
                outcome, detail = "ok", result
        except AttemptKilled:
            outcome, detail = "killed", None
        except AttemptFailed as exc:
            outcome, detail = "failed", str(exc)
        except asyncio.CancelledError:
            if self._stopping:
                return
            outcome, detail = "killed", None
        except Exception as exc:  # the engine lost it (worker died, KilledWorker, ...)
            outcome, detail = "lost", f"{type(exc).__name__}: {exc}"
        if self._stopping:
            return
        async with self._lock:
            if self.grants.get(task_id) is not grant:
                return  # stopped or re-granted meanwhile
            del self.grants[task_id]
            try:
                await self._ended(task_id, grant, outcome, detail)
            except Exception as exc:  # never leave the task running (its slot wedged): the attempt fails
                log.exception("recording the end of %s failed", grant.attempt)
                if outcome != "ok":
                    raise
                await self._ended(task_id, grant, "failed",
                                  f"the service could not record the result: {type(exc).__name__}: {exc}"[:2000])
            self.kick(grant.worker)

    async def _ended(self, task_id: str, grant: Grant, outcome: str, detail: Any) -> None:
        sched = self.scheduler
        now = self.now()
        try:
            task = sched.task(task_id)
        except SchedulerStateError:
            return
        if task.state != RUNNING:
            return
        live = self.jobs.get(grant.job)
        if outcome == "ok":
            final = grant.kind == REDUCE or not (live and live.request.reduces)
            size = None
            if not final:  # a map of a job with reduces: (its future, its result's size)
                future, size = detail
                if live is not None:
                    live.map_futures[grant.index] = future
                detail = None
            elif live is not None:
                (live.map_results if grant.kind == MAP else live.reduce_results)[grant.index] = detail
            self.store.task_ended(grant.job, grant.kind, grant.index, "complete",
                                  result=jsonable(detail) if final else None)
            sched.finish(task_id, now, output_bytes=size)  # where the output is: job.map_outputs
            if task.job.is_finished:
                self._finish(grant.job)
            return
        if outcome == "killed":
            # our own stops take the grant away first, so this attempt was stopped by someone else
            # (the engine lost it, e.g. its scheduler restarted): it runs again, not a failure
            sched.kill(task_id, now, reason="attempt lost by the engine")
            self.store.task_ended(grant.job, grant.kind, grant.index, "pending", error="attempt lost by the engine")
            return
        # failed, or lost by the engine: the attempt failed; retry until max_attempts
        sched.fail(task_id, now, reason=str(detail)[:200])
        self.store.task_ended(grant.job, grant.kind, grant.index, "pending", error=str(detail), failed=True)
        if task.failures >= self.settings.max_attempts:
            reason = (f"{grant.kind} {grant.index} failed {task.failures} times; last error: {detail}")
            stopped = sched.end_job(grant.job, now, state="failed", reason=reason)
            for other in stopped:
                await self._stop_grant(other.id)
            self.store.job_ended(grant.job, "failed", error=reason)
            self._forget(grant.job, "failed", reason)

    def _finish(self, job_id: str) -> None:
        live = self.jobs.get(job_id)
        result = None
        if live is not None:
            source = live.reduce_results if live.request.reduces else live.map_results
            result = [jsonable(source.get(i)) for i in range(len(live.request.reduces or live.request.maps))]
        self.store.job_ended(job_id, "finished", result=result)
        self._forget(job_id, "finished", None)

    def _forget(self, job_id: str, state: str, error: str | None) -> None:
        self.jobs.pop(job_id, None)
        self.ended[job_id] = {"state": state, "error": error}
        if len(self.ended) > 10_000:
            self.ended.pop(next(iter(self.ended)))

    async def _stop(self, task: Task, reason: str) -> None:
        """The scheduler killed ``task`` (it is pending again): stop its attempt for real."""
        grant = self.grants.get(task.id)
        if grant is not None:
            self.store.task_ended(grant.job, grant.kind, grant.index, "pending", error=reason)
        await self._stop_grant(task.id)

    async def _stop_grant(self, task_id: str) -> None:
        grant = self.grants.pop(task_id, None)
        if grant is not None:
            await self.backend.kill(grant.attempt, grant.worker, grant.future)

    # ------------------------------------------------------------------ reading
    def describe(self, job_id: str) -> dict[str, Any]:
        """A job as the API shows it (on the loop: cheap however many tasks the job has)."""
        row = self.store.job_summary(job_id)
        if row is None:
            raise ServiceError(f"no job {job_id!r}", 404, "id")
        return self.described(row, self.store.job_stats(job_id))

    async def read(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` — a ledger read — in one of the service's reading threads, off the
        event loop: a slow read never delays scheduling or another request."""
        return await asyncio.get_running_loop().run_in_executor(self._read_pool, functools.partial(fn, *args))

    async def describe_many(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``rows`` (from :meth:`Store.jobs_page` or :meth:`Store.job_summary`) described; the
        ledger's counts are read off the loop, the scheduler's view added on it."""
        store = self.store
        stats = [store.cached_stats(r["id"]) for r in rows]  # kept: no thread needed
        missing = [i for i, s in enumerate(stats) if s is None]
        if missing:
            read = await self.read(lambda: [store.job_stats(rows[i]["id"]) for i in missing])
            for i, s in zip(missing, read):
                stats[i] = s
        return [self.described(r, s) for r, s in zip(rows, stats) if s is not None]

    def described(self, row: dict[str, Any], stats: dict[str, Any]) -> dict[str, Any]:
        """A job row and its :meth:`Store.job_stats` as the API shows them, with the
        scheduler's live view (pool, priority, fair share, running) while it holds the job."""
        counts = stats["counts"]
        out: dict[str, Any] = {
            "id": row["id"], "name": row["name"], "user": row["user"], "pool": row["pool"],
            "priority": row["priority"], "state": row["state"], "submitted": row["submitted"],
            "started": row["started"], "ended": row["ended"], "error": row["error"],
            "maps": _counts(counts.get(MAP, {})), "reduces": _counts(counts.get(REDUCE, {})),
            "failed_attempts": stats["failures"],
        }
        job = self.scheduler.jobs.get(row["id"])
        if job is not None:
            out["pool"] = job.pool
            out["priority"] = job.priority
            out["fair_share"] = self._job_share(job)
            out["running"] = dict(job.running)
        if stats["last_error"] and not out["error"]:
            out["last_task_error"] = stats["last_error"]
        return out

    def _job_share(self, job: Job) -> Any:
        if self.resource_mode:
            share = job.sched.get("resources")
            return share.fair_share.as_dict() if share is not None and share.fair_share is not None else None
        return {kind: job.sched[kind].fair_share for kind in (MAP, REDUCE)}

    def pools(self) -> list[dict[str, Any]]:
        """Per pool (queue): running, demand, min share, fair share, weight, policy."""
        sched = self.scheduler
        out = []
        if self.resource_mode:
            shares = sched.shares()["queues"]
            tree = sched._rs.tree  # type: ignore[union-attr]
            for name, q in tree.queues.items():
                s = q.sched
                out.append({"name": name, "policy": q.policy, "weight": s.weight, "leaf": q.is_leaf,
                            "running": shares[name]["usage"], "demand": shares[name]["demand"],
                            "min_share": s.min_share.as_dict(), "fair_share": shares[name]["fair"],
                            "steady_share": shares[name]["steady"], "apps": len(q.runnable_apps) + len(q.waiting_apps)})
            return out
        for name, pool in sched.pools.items():
            entry: dict[str, Any] = {"name": name, "policy": pool.policy, "jobs": len(pool.jobs)}
            for kind in (MAP, REDUCE):
                s = pool.sched[kind]
                entry[kind] = {"running": s.running, "demand": s.demand, "min_share": s.min_share,
                               "fair_share": s.fair_share, "weight": s.weight}
            out.append(entry)
        return out

    def nodes(self) -> list[dict[str, Any]]:
        """Each worker: slots or resources, running tasks."""
        out = []
        for name, node in self.scheduler.cluster.nodes.items():
            info = self.workers.get(name)
            entry: dict[str, Any] = {"name": name, "host": info.host if info else None,
                                     "threads": info.nthreads if info else None, "alive": info is not None,
                                     "running": sorted(node.tasks)}
            if self.resource_mode:
                entry["capacity"] = node.capacity.as_dict() if node.capacity else None
                entry["used"] = node.used.as_dict()
            else:
                entry["slots"] = dict(node.slots)
                entry["busy"] = dict(node.running)
            out.append(entry)
        return out

    def result(self, job_id: str) -> Any:
        """A finished job's result (a ledger read: the API calls it in a reading thread)."""
        row = self.store.job_result(job_id)
        if row is None:
            raise ServiceError(f"no job {job_id!r}", 404, "id")
        if row["state"] != "finished":
            raise ServiceError(f"job {job_id} is {row['state']}: no result yet", 409, "id")
        return row["result"]


def jsonable(value: Any) -> Any:
    """A task's result as the API returns it: the JSON text its attempt's child made for it
    (itself, or ``{"repr": …, "type": …}``: one result that is not JSON does not hide the
    others), read with ``json.loads`` — never unpickled here; never raises."""
    return shown(value)


def _counts(c: dict[str, int]) -> dict[str, int]:
    return {"total": sum(c.values()), "pending": c.get("pending", 0), "running": c.get("running", 0),
            "finished": c.get("complete", 0), "killed": c.get("killed", 0)}
