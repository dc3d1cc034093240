"""``delay``: delay scheduling (TaskSelector), as in the Hadoop 1.x fair scheduler.

Zaharia et al., "Delay Scheduling: A Simple Technique for Achieving Locality
and Fairness in Cluster Scheduling", EuroSys 2010; Hadoop 1.x
``FairScheduler.getAllowedLocalityLevel``, ``updateLocalityWaitTimes`` and
``updateLastMapLocalityLevel``.

Each job has a locality level (NODE, then RACK, then ANY), the time it has
waited for a local map, and whether it was *skipped* on the last heartbeat:

* A job whose turn comes on a heartbeat may launch only maps at or better
  than its allowed level; if it has none it is skipped (the next job gets the
  slot).
* Waiting time is credited only for heartbeats on which the job was skipped:
  at the start of each heartbeat, every job skipped on the previous one adds
  the time since that heartbeat (any node's; Hadoop keeps one clock for all).
* Allowed level: after launching a node-local map, NODE until it has waited
  ``node_locality_delay``, then RACK, then ANY after a further
  ``rack_locality_delay``; after a rack-local map, RACK until
  ``rack_locality_delay``, then ANY; after an off-rack map, ANY.
* Launching a map resets the wait to 0 and sets the level to that map's
  locality (so a node-local launch brings the job back to NODE).
* A job whose pool is starved (past its min-share or fair-share preemption
  timeout) or that has maps with no input location is not delayed.
* Reduces ignore locality.

Settings: ``node_locality_delay`` and ``rack_locality_delay`` in seconds
(Hadoop's ``mapred.fairscheduler.locality.delay.node`` / ``.rack``); both
default to min(15 s, 1.5 × the heartbeat interval of ``[cluster]``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from attrs import define

from corescheduler.hookspecs import hookimpl
from corescheduler.model import MAP, NODE_LOCAL, OFF_RACK, RACK_LOCAL, Assignment, Job, Node, Pool, Task
from corescheduler.settings import Settings


@define
class LocalityState:
    """Hadoop's per-job ``JobInfo`` locality fields."""

    last_level: str = NODE_LOCAL
    waited: float = 0.0
    skipped: bool = False


class DelayScheduling:
    """Wait a little for a local slot before running a map elsewhere."""

    def __init__(self, settings: Mapping[str, Any], context: Any = None) -> None:
        heartbeat = 3.0
        if context is not None:
            heartbeat = float(context.config.cluster.heartbeat_interval)
        default = min(15.0, 1.5 * heartbeat)
        s = Settings(settings, plugin="delay")
        self.node_delay = float(s.number("node_locality_delay", default, minimum=0))
        self.rack_delay = float(s.number("rack_locality_delay", default, minimum=0))
        s.finish()
        self.jobs: dict[str, LocalityState] = {}
        self._skipped: set[str] = set()
        self._last_heartbeat: float | None = None
        self._pools: dict[str, Pool] = {}

    # ------------------------------------------------------------------ state
    def state(self, job_id: str) -> LocalityState:
        """The locality state of a job (a new one if unseen)."""
        st = self.jobs.get(job_id)
        if st is None:
            st = self.jobs[job_id] = LocalityState()
        return st

    def allowed_level(self, job: Job, now: float) -> str:
        """Hadoop ``getAllowedLocalityLevel``."""
        if not job.all_maps_located:  # Hadoop: a job with non-local maps is never delayed
            return OFF_RACK
        st = self.jobs.get(job.id)
        if st is None:
            st = self.state(job.id)
        last, waited = st.last_level, st.waited
        if last == NODE_LOCAL:
            if waited >= self.node_delay + self.rack_delay:
                return OFF_RACK
            level = RACK_LOCAL if waited >= self.node_delay else NODE_LOCAL
        elif last == RACK_LOCAL and waited < self.rack_delay:
            level = RACK_LOCAL
        else:
            return OFF_RACK
        pool = self._pools.get(job.pool)  # a starved pool is not delayed
        if pool is not None and pool.sched[MAP].starved_for(now):
            return OFF_RACK
        return level

    # ------------------------------------------------------------------ hooks
    @hookimpl
    def cs_job_added(self, job: Job) -> None:
        self.jobs[job.id] = LocalityState()

    @hookimpl
    def cs_job_removed(self, job: Job) -> None:
        self.jobs.pop(job.id, None)
        self._skipped.discard(job.id)

    @hookimpl
    def cs_update(self, pools: Sequence[Pool]) -> None:
        self._pools = {p.name: p for p in pools}

    @hookimpl
    def cs_heartbeat_start(self, now: float) -> None:
        since = 0.0 if self._last_heartbeat is None else now - self._last_heartbeat
        self._last_heartbeat = now
        if self._skipped:
            for job_id in self._skipped:
                st = self.jobs.get(job_id)
                if st is not None:
                    st.waited += since
                    st.skipped = False
            self._skipped.clear()

    @hookimpl
    def cs_select_task(self, job: Job, node: Node, kind: str, now: float) -> Task | None:
        if kind != MAP:
            return job.pending_task(kind)
        task = job.pending_map_on_node(node.name)  # node-local is always allowed
        if task is not None:
            return task
        level = self.allowed_level(job, now)
        if level == NODE_LOCAL:
            return None
        return job.pending_map(node, level)

    @hookimpl
    def cs_task_started(self, task: Task, locality: str | None) -> None:
        if task.kind == MAP:
            st = self.state(task.job.id)
            st.last_level = locality or OFF_RACK
            st.waited = 0.0

    @hookimpl
    def cs_heartbeat_end(self, assignments: Sequence[Assignment], skipped: Sequence[Job]) -> None:
        for job in skipped:
            st = self.jobs.get(job.id)
            if st is not None:
                st.skipped = True
                self._skipped.add(job.id)
