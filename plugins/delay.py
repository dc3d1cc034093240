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
  Hadoop adds whole milliseconds, so a run of consecutive skips earns exactly
  the time from its first skip to the heartbeat after its last; this plugin
  keeps that sum exact too — ``now - first skip``, one subtraction — instead
  of adding each heartbeat's gap in floating point (whose rounding would
  drift, and would depend on heartbeats that change nothing else).
* Allowed level: after launching a node-local map, NODE until it has waited
  ``node_locality_delay``, then RACK, then ANY after a further
  ``rack_locality_delay``; after a rack-local map, RACK until
  ``rack_locality_delay``, then ANY; after an off-rack map, ANY.
* Launching a map resets the wait to 0 and sets the level to that map's
  locality (so a node-local launch brings the job back to NODE).
* A map that was killed while running (preempted) is offered first, at any
  level (``JobInProgress.findNewMapTask``'s ``failedMaps``); its launch then
  sets the level as any launch does.
* A job whose pool is starved (past its min-share or fair-share preemption
  timeout) or that has pending maps with no input location (Hadoop's
  ``nonLocalMaps``) is not delayed.  With ``[scheduler] preemption`` off,
  Hadoop never refreshes a pool's starvation times, so a pool counts as
  starved once a timeout has passed since it was created: ``starvation``
  chooses between that (``"hadoop"``) and measured times (``"measured"``).
* Reduces ignore locality.

Settings: ``node_locality_delay`` and ``rack_locality_delay`` in seconds
(Hadoop's ``mapred.fairscheduler.locality.delay.node`` / ``.rack``).  If
either is unset both are computed, as ``FairScheduler.start`` does, at every
update (``FairScheduler.update``): min(15 s, 1.5 × the heartbeat interval,
Hadoop's ``JobTracker.getNextHeartbeatInterval``).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

from corescheduler.core.hints import NOT_OFFERED, Hint
from corescheduler.core.model import (
    MAP,
    NODE_LOCAL,
    OFF_RACK,
    RACK_LOCAL,
    Assignment,
    Job,
    Node,
    Pool,
    Schedulable,
    Task,
)
from corescheduler.hookspecs import hookimpl
from corescheduler.settings import Settings

log = logging.getLogger("corescheduler.plugins.delay")
#: Hadoop's ``MAX_AUTOCOMPUTED_LOCALITY_DELAY`` (15 s)
MAX_AUTO_DELAY = 15.0
#: ``starvation`` values: Hadoop's frozen times without preemption, or measured ones
STARVATION_MODES = ("hadoop", "measured")


def auto_delay(heartbeat_interval: float) -> float:
    """Hadoop's auto-computed locality delay: min(15 s, 1.5 × the heartbeat interval)."""
    return min(MAX_AUTO_DELAY, 1.5 * heartbeat_interval)


#: the hints "a task anywhere, for ever" without and with ``NOT_OFFERED`` (made once: a
#: ``Hint`` checks its fields when it is made)
_ANYWHERE = (Hint(OFF_RACK, math.inf, ()), Hint(OFF_RACK, math.inf, (NOT_OFFERED,)))
#: a hint's events for a job not passed by and passed by (made once)
_PASSED = (_ANYWHERE[0].events, _ANYWHERE[1].events)

class LocalityState:
    """Hadoop's per-job ``JobInfo`` locality fields: ``last_level`` (the locality of its last
    map launch), ``waited`` (its wait for a local map, credited up to the last heartbeat's
    start) and ``skipped`` (skipped on the last heartbeat).

    Kept as the wait credited by runs of skips that have ended (``base``) and, while the job
    is in a run, the time of the run's first skip (``since``): ``waited`` is then
    ``base + (last heartbeat - since)``, exact."""

    __slots__ = ("_owner", "base", "hint", "last_level", "since")

    def __init__(self, owner: DelayScheduling) -> None:
        self._owner = owner
        self.last_level = NODE_LOCAL
        self.base = 0.0
        self.since: float | None = None
        #: the last hint made for the job (a hint is immutable: the same answer again is it)
        self.hint: Hint | None = None

    @property
    def waited(self) -> float:
        since = self.since
        return self.base if since is None else self.base + (self._owner._credit_at - since)

    @waited.setter
    def waited(self, value: float) -> None:
        self.base = float(value)
        if self.since is not None:  # the run goes on from here
            self.since = self._owner._credit_at

    @property
    def skipped(self) -> bool:
        return self.since is not None and not self._owner._open

    def __repr__(self) -> str:
        return f"LocalityState(last_level={self.last_level!r}, waited={self.waited!r}, skipped={self.skipped!r})"


class DelayScheduling:
    """Wait a little for a local slot before running a map elsewhere."""

    #: the name its settings are read under (``[plugins.<name>]``)
    NAME = "delay"

    def __init__(self, settings: Mapping[str, Any], context: Any = None) -> None:
        self._interval = getattr(context, "heartbeat_interval", None) or (lambda: 3.0)
        default = auto_delay(float(self._interval()))
        s = Settings(settings, plugin=self.NAME)
        node = s.number("node_locality_delay", None, minimum=0, finite=False)  # inf: wait forever
        rack = s.number("rack_locality_delay", None, minimum=0, finite=False)
        self.starvation = s.string("starvation", "hadoop", choices=STARVATION_MODES)
        self._read_settings(s, default)
        s.finish()
        #: both delays computed from the heartbeat interval (FairScheduler.start:
        #: when either is unset, both are)
        self.auto = node is None or rack is None
        if self.auto and (node is not None or rack is not None):
            log.warning(
                "[plugins.%s] sets only %s: as in Hadoop, both delays are then computed from the "
                "heartbeat interval (min(15 s, 1.5 × interval)); set both to choose them",
                self.NAME,
                "node_locality_delay" if node is not None else "rack_locality_delay",
            )
        self.node_delay = default if self.auto else float(node)  # type: ignore[arg-type]
        self.rack_delay = default if self.auto else float(rack)  # type: ignore[arg-type]
        self.jobs: dict[str, LocalityState] = {}
        #: jobs skipped on the last heartbeat (each in a run of skips since ``LocalityState.since``)
        self._skipped: set[str] = set()
        #: when the last heartbeat started: the jobs in ``_skipped`` are credited up to it
        self._credit_at = 0.0
        #: a heartbeat has started and its end (``cs_heartbeat_end``) has not come yet
        self._open = False
        #: pool -> its map side, as of the last update (Hadoop's starvation test reads the map side)
        self._map_sides: dict[str, Schedulable] = {}
        #: pool -> (last time at min share, last time at half fair share), starvation = "measured"
        self._measured: dict[str, list[float]] = {}

    def _read_settings(self, s: Settings, auto: float) -> None:
        """A subclass reads its own settings here (``auto``: the auto-computed delay)."""

    # ------------------------------------------------------------------ state
    def state(self, job_id: str) -> LocalityState:
        """The locality state of a job (a new one if unseen)."""
        st = self.jobs.get(job_id)
        if st is None:
            st = self.jobs[job_id] = LocalityState(self)
        return st

    def allowed_level(self, job: Job, now: float, credit_at: float | None = None) -> str:
        """Hadoop ``getAllowedLocalityLevel`` (``credit_at``: the waits credited up to then
        instead of the last heartbeat's start)."""
        if job.unlocated_pending:  # Hadoop: job.nonLocalMaps.size() > 0, no waiting
            return OFF_RACK
        st = self.jobs.get(job.id)
        if st is None:
            st = self.state(job.id)
        last = st.last_level
        since = st.since
        if since is None:
            waited = st.base
        else:
            waited = st.base + ((self._credit_at if credit_at is None else credit_at) - since)
        if last == NODE_LOCAL:
            if waited >= self.node_delay + self.rack_delay:
                return OFF_RACK
            level = RACK_LOCAL if waited >= self.node_delay else NODE_LOCAL
        elif last == RACK_LOCAL and waited < self.rack_delay:
            level = RACK_LOCAL
        else:
            return OFF_RACK
        # Hadoop's starvation test: a starved pool is not delayed
        ps = self._map_sides.get(job.pool)
        if ps is None:
            return level
        if self.starvation == "measured":
            times = self._measured.get(job.pool)
            if times is not None:
                if now - times[0] > ps.min_share_timeout or now - times[1] > ps.fair_share_timeout:
                    return OFF_RACK
                return level
        if (
            now - ps.last_time_at_min_share > ps.min_share_timeout  # Schedulable.starved_for, inlined
            or now - ps.last_time_at_half_fair_share > ps.fair_share_timeout
        ):
            return OFF_RACK
        return level

    # ------------------------------------------------------------------ hooks
    @hookimpl
    def cs_job_added(self, job: Job) -> None:
        self.jobs[job.id] = LocalityState(self)

    @hookimpl
    def cs_job_removed(self, job: Job) -> None:
        self.jobs.pop(job.id, None)
        self._skipped.discard(job.id)

    @hookimpl
    def cs_update(self, pools: Sequence[Pool], now: float) -> None:
        self._map_sides = {p.name: p.sched[MAP] for p in pools}
        if self.auto:  # FairScheduler.update: recomputed from the current heartbeat interval
            self.node_delay = self.rack_delay = auto_delay(float(self._interval()))
        if self.starvation == "measured":
            measured = self._measured
            for pool in pools:
                ps = pool.sched[MAP]
                times = measured.get(pool.name)
                if times is None:
                    times = measured[pool.name] = [now, now]
                if ps.running >= min(ps.min_share, ps.demand):
                    times[0] = now
                if ps.running >= math.floor(min((ps.fair_share or 0.0) / 2.0, ps.demand)):
                    times[1] = now

    @hookimpl
    def cs_heartbeat_start(self, now: float) -> None:
        """Hadoop ``updateLocalityWaitTimes``: the jobs skipped on the last heartbeat are
        credited up to ``now`` (their runs go on if this heartbeat skips them again)."""
        if self._open and self._skipped:  # the last heartbeat visited no job: every run ended at it
            self._end_runs(self._skipped)
            self._skipped.clear()
        self._credit_at = now
        self._open = True

    def _end_runs(self, job_ids: Any) -> None:
        at = self._credit_at
        jobs = self.jobs
        for job_id in job_ids:
            st = jobs.get(job_id)
            if st is not None and st.since is not None:
                st.base += at - st.since
                st.since = None

    @hookimpl
    def cs_select_task(self, job: Job, node: Node, kind: str, now: float, nodes: int) -> Task | None:
        """Delay scheduling (``nodes`` is unused: naming every argument of the hook lets the
        engine call it without an adapter)."""
        if kind != MAP:
            return job.pending_task(kind)
        task = job.pending_failed_map()  # Hadoop's failedMaps: before any locality check
        if task is not None:
            return task
        task = job.pending_map_on_node(node.name)  # node-local is always allowed
        if task is not None:
            return task
        level = self.allowed_level(job, now)
        if level == NODE_LOCAL:
            return None
        return job.pending_map(node, level)

    @hookimpl
    def cs_select_hint(self, job: Job, kind: str, now: float) -> Hint:
        """Where :meth:`cs_select_task` gives ``job`` a task on heartbeats from ``now`` (each
        crediting its wait up to then, as after a heartbeat that skipped it), until its wait
        or its pool's starvation widens the level.  A heartbeat that skips the same jobs
        again changes nothing here (a run of skips is summed as ``now - first skip``); one
        that passes a job in a run of skips by ends the run (``NOT_OFFERED``)."""
        job_id = job.id
        passed = job_id in self._skipped and not self._open
        if kind != MAP or job.pending_failed_map() is not None:
            return _ANYWHERE[passed]
        if type(self).allowed_level is not DelayScheduling.allowed_level:  # a subclass's own level
            return self._hint_of(job, self.allowed_level(job, now, credit_at=now), now, passed)
        # allowed_level(job, now, credit_at=now) and _hint_of in one: asked after every heartbeat
        if job.unlocated_pending:
            return _ANYWHERE[passed]
        st = self.jobs.get(job_id)
        if st is None:
            st = self.state(job_id)
        last, since, base = st.last_level, st.since, st.base
        node_delay, rack_delay = self.node_delay, self.rack_delay
        waited = base if since is None else base + (now - since)
        until = math.inf
        if last == NODE_LOCAL:
            if waited >= node_delay + rack_delay:
                return _ANYWHERE[passed]
            level = RACK_LOCAL if waited >= node_delay else NODE_LOCAL
            if since is not None:  # in a run of skips: its wait grows
                c = since + (node_delay - base)
                if now < c < until:
                    until = c
                c = since + (node_delay + rack_delay - base)
                if now < c < until:
                    until = c
        elif last == RACK_LOCAL and waited < rack_delay:
            level = RACK_LOCAL
            if since is not None:
                c = since + (rack_delay - base)
                if now < c < until:
                    until = c
        else:
            return _ANYWHERE[passed]
        ps = self._map_sides.get(job.pool)
        if ps is not None:  # Hadoop's starvation test: a starved pool is not delayed
            times = self._measured.get(job.pool) if self.starvation == "measured" else None
            if times is not None:
                at_min, at_half = times[0], times[1]
            else:
                at_min, at_half = ps.last_time_at_min_share, ps.last_time_at_half_fair_share
            min_timeout, fair_timeout = ps.min_share_timeout, ps.fair_share_timeout
            if now - at_min > min_timeout or now - at_half > fair_timeout:
                return _ANYWHERE[passed]
            c = at_min + min_timeout
            if now < c < until:
                until = c
            c = at_half + fair_timeout
            if now < c < until:
                until = c
        events = _PASSED[passed]
        held = st.hint
        if held is not None and held.until == until and held.level == level and held.events is events:
            return held  # asked after every heartbeat, mostly the same answer: not made again
        hint = st.hint = Hint(level, until, events)
        return hint

    def _hint_of(self, job: Job, level: str, now: float, passed: bool) -> Hint:
        """The hint of ``job`` whose level at ``now`` is ``level``: until its wait or its pool's
        starvation widens it."""
        if level == OFF_RACK:
            return _ANYWHERE[passed]
        candidates = []
        st = self.jobs.get(job.id)
        if st is not None and st.since is not None:  # in a run of skips: its wait grows
            if st.last_level == NODE_LOCAL:
                candidates.append(st.since + (self.node_delay - st.base))
                candidates.append(st.since + (self.node_delay + self.rack_delay - st.base))
            else:
                candidates.append(st.since + (self.rack_delay - st.base))
        ps = self._map_sides.get(job.pool)
        if ps is not None:
            if self.starvation == "measured" and job.pool in self._measured:
                times = self._measured[job.pool]
            else:
                times = (ps.last_time_at_min_share, ps.last_time_at_half_fair_share)
            candidates.append(times[0] + ps.min_share_timeout)
            candidates.append(times[1] + ps.fair_share_timeout)
        until = math.inf
        for c in candidates:
            if now < c < until:
                until = c
        return Hint(level, until, _PASSED[passed])

    @hookimpl
    def cs_task_started(self, task: Task, locality: str | None) -> None:
        if task.kind == MAP:
            st = self.state(task.job.id)
            st.last_level = locality or OFF_RACK
            st.base = 0.0
            if st.since is not None:  # its run of skips ends with the launch
                st.since = None
                self._skipped.discard(task.job.id)

    @hookimpl
    def cs_heartbeat_end(self, assignments: Sequence[Assignment], skipped: Sequence[Job]) -> None:
        self._open = False
        old = self._skipped
        jobs = self.jobs
        if not skipped:
            if old:
                self._end_runs(old)
                old.clear()
            return
        new = {job.id for job in skipped if job.id in jobs}
        if new == old:
            return  # the same jobs skipped again: their runs go on
        self._end_runs(old - new)
        at = self._credit_at
        for job_id in new - old:
            jobs[job_id].since = at
        self._skipped = new
