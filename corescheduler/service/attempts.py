"""Attempts on the engine: each assignment of the scheduler becomes one Dask task pinned to
its node's worker (:meth:`Attempts._grant`); its end — done, failed, killed or lost with its
worker — is recorded in the ledger and told to the scheduler (:meth:`Attempts._ended`).
Mixed into :class:`~corescheduler.service.service.Service`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from attrs import define, field

from corescheduler.core.model import (
    MAP,
    REDUCE,
    RUNNING,
    Assignment,
    Task,
)
from corescheduler.errors import SchedulerStateError
from corescheduler.service.backend import wait_futures
from corescheduler.service.jobs import JobRequest
from corescheduler.service.result import Result, shown
from corescheduler.service.runner import AttemptFailed, AttemptKilled

log = logging.getLogger("corescheduler.service")


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
    #: the JSON text of the final results received so far (``[service] max_job_result_bytes``)
    result_bytes: int = 0


class Attempts:
    """The grants of a :class:`~corescheduler.service.service.Service` (mixed into it: its
    scheduler, ledger, engine and jobs)."""

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
        await self._ended(a.task, grant, "failed", f"could not be started: {type(exc).__name__}: {exc}")

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
                                  f"the service could not record the result: {type(exc).__name__}: {exc}")
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
            else:
                # kept as shown (the JSON value), not as the attempt's Result: its pickle bytes,
                # up to max_result_bytes a task, stayed in the service's memory until the job ended
                text = len(detail.json) if isinstance(detail, Result) and detail.json is not None else 0
                detail = jsonable(detail)
                if live is not None:
                    live.result_bytes += text
                    limit = self.settings.max_job_result_bytes
                    if live.result_bytes > limit:  # a job of many large results would fill the service
                        await self._fail_job(task_id, grant, f"its results total over {limit} bytes "
                                             "([service] max_job_result_bytes): write big outputs to files")
                        return
                    (live.map_results if grant.kind == MAP else live.reduce_results)[grant.index] = detail
            self.store.task_ended(grant.job, grant.kind, grant.index, "complete", result=detail if final else None)
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
        exhausted = task.failures >= self.settings.max_attempts  # its job fails: the task is failed, not killed
        self.store.task_ended(grant.job, grant.kind, grant.index, "failed" if exhausted else "pending",
                              error=str(detail), failed=True)
        if exhausted:
            reason = (f"{grant.kind} {grant.index} failed {task.failures} times; last error: {detail}")
            await self._end_failed(grant.job, reason)

    async def _end_failed(self, job_id: str, reason: str) -> None:
        """The job fails for ``reason``: its other attempts stop, the ledger and the service let it go."""
        stopped = self.scheduler.end_job(job_id, self.now(), state="failed", reason=reason)
        for other in stopped:
            await self._stop_grant(other.id)
        self.store.job_ended(job_id, "failed", error=reason)
        self._forget(job_id, "failed", reason)

    async def _fail_job(self, task_id: str, grant: Grant, reason: str) -> None:
        """A running task's attempt is failed for ``reason``, and its job with it."""
        self.scheduler.fail(task_id, self.now(), reason=reason[:200])
        self.store.task_ended(grant.job, grant.kind, grant.index, "failed", error=reason, failed=True)
        await self._end_failed(grant.job, f"{grant.kind} {grant.index}: {reason}")

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



def jsonable(value: Any) -> Any:
    """A task's result as the API returns it: the JSON text its attempt's child made for it
    (itself, or ``{"repr": …, "type": …}``: one result that is not JSON does not hide the
    others), read with ``json.loads`` — never unpickled here; never raises."""
    return shown(value)
