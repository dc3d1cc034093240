"""What the API reads of the service: a job as shown (its ledger row and task counts, with the
scheduler's live view while it holds the job), the pools, the nodes, a result.  Ledger reads
run in the service's reading threads.  Mixed into :class:`~corescheduler.service.service.Service`.

:class:`ServiceView` is that service as the page and the metrics read it: they name it, not
:class:`~corescheduler.service.service.Service`, so no import goes back from them to the
module that builds the service (which keeps the page's chart history).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from corescheduler.core.model import (
    MAP,
    REDUCE,
    Job,
)
from corescheduler.service.errors import ServiceError
from corescheduler.service.gate import off_turn

if TYPE_CHECKING:
    from corescheduler.core.scheduler import Scheduler
    from corescheduler.service.attempts import Grant
    from corescheduler.service.backend import WorkerInfo
    from corescheduler.service.settings import ServiceSettings
    from corescheduler.service.store import Store


class ServiceView(Protocol):
    """What the ``/scheduler`` page and ``/metrics`` read of a running service."""

    scheduler: Scheduler
    resource_mode: bool
    settings: ServiceSettings
    store: Store
    grants: Mapping[str, Grant]
    workers: Mapping[str, WorkerInfo]
    preemptions: int

    def healthy(self) -> tuple[bool, str]: ...

    def pools(self) -> list[dict[str, Any]]: ...

    def nodes(self) -> list[dict[str, Any]]: ...


class Views:
    """The reading side of a :class:`~corescheduler.service.service.Service` (mixed into it)."""

    # ------------------------------------------------------------------ reading
    def describe(self, job_id: str) -> dict[str, Any]:
        """A job as the API shows it (on the loop: cheap however many tasks the job has)."""
        row = self.store.job_summary(job_id)
        if row is None:
            raise ServiceError(f"no job {job_id!r}", 404, "id")
        return self.described(row, self.store.job_stats(job_id))

    async def read(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` — a ledger read — in one of the service's reading threads, off the
        event loop: a slow read never delays scheduling or another request.  An API read
        gives its turn on the loop back while it waits (:mod:`corescheduler.service.gate`)."""
        async with off_turn():
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
            tree = sched.resource_engine.tree  # type: ignore[union-attr]
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




def _counts(c: dict[str, int]) -> dict[str, int]:
    return {"total": sum(c.values()), "pending": c.get("pending", 0), "running": c.get("running", 0),
            "finished": c.get("complete", 0), "killed": c.get("killed", 0), "failed": c.get("failed", 0)}
