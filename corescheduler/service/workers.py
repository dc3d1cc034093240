"""The engine's workers as the scheduler's nodes: they join and leave with the Dask cluster
(:meth:`Workers._sync_workers`); the map outputs a leaving worker held are lost and their maps
run again.  Mixed into :class:`~corescheduler.service.service.Service`.
"""

from __future__ import annotations

import logging
import math

from corescheduler.core.model import (
    COMPLETE,
    MAP,
    REDUCE,
    RUNNING,
)
from corescheduler.resources import Resources

log = logging.getLogger("corescheduler.service")


class Workers:
    """The nodes of a :class:`~corescheduler.service.service.Service` (mixed into it)."""

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
