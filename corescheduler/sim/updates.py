"""Updates the simulator's engine need not run: the periodic ``Scheduler.update`` ticks
between events at which nothing can change (docs/simulator.md, "Idle time costs nothing").

While no task is pending, or none can launch before the next event (no node waits with a
free slot of a kind with pending work: the heartbeat planner's idle sets), the updates
until the next event would each record what the last of them records: the engine runs
only the last one, and moves the preemption check's clock as those updates would have
moved it.  With preemption on the skip stops at the root share policy's preemption hint
(``Scheduler.preemption_hint``: ``SharePolicy.preemption_hint``).  When nothing but updates is left
to happen, the run ends at the tick the stall timer fires at, or at once.

:class:`UpdateSkipping` is the engine's base class (after
:class:`~corescheduler.sim.heartbeats.HeartbeatPlanner`, whose idle sets it reads).
"""

from __future__ import annotations

import math
from typing import Any

from mypy_extensions import mypyc_attr

from corescheduler.core.model import MAP, REDUCE
from corescheduler.sim.heartbeats import REACH, UPDATE, HeartbeatPlanner


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py); the engine subclasses it
class UpdateSkipping(HeartbeatPlanner):
    """The engine's update skipping (the module's docstring).  The engine sets every
    attribute declared here in its ``__init__``."""

    options: Any  # the engine's SimulationOptions
    _skip_updates: bool
    _update_armed: bool
    _last_activity: float
    stalled: bool

    def _arm_update(self, t: float) -> None:
        if not self._update_armed and self.scheduler.jobs:
            interval = self.options.update_interval
            self._update_armed = True
            k = math.floor(t / interval) + 1
            at = k * interval
            if at <= t:  # t / interval rounded down a whole step (t = 9.299999999999999, 0.3)
                k += 1
                at = k * interval
                if at <= t:  # beyond 2**53 ticks they are no longer distinct floats: the next float
                    at = math.nextafter(t, math.inf)
            if at == math.inf:  # update_interval = inf: no periodic updates (submissions still update)
                return
            if self._skip_updates and self._heap:
                at = self._quiet_until(k, interval, at)
            self._push(at, UPDATE, None)

    def _quiet_until(self, k: int, interval: float, at: float) -> float:
        """The next update's time when it would be tick ``k``: if no task is pending, the last
        tick before the next event instead.  Nothing can change in the updates between:
        no task can launch, no pool can be starved (demand is what runs), and what an update
        records (starvation times, a plugin's view of the pools) is recorded again by the
        update that runs.  The preemption check's clock is moved as those updates would
        have moved it (:meth:`_skip_preempt_checks`), so later checks fall on the same ticks.
        ``at`` is tick ``k``'s time, or the next float where the ticks are no longer distinct
        floats (recomputing ``k * interval`` there gave the current time again: a clock stuck
        from about 10**16 s)."""
        slot = self._slot
        # some task pending (slot mode: the engine's pending_tasks, one call)
        pending = slot is not None and slot.has_requests()
        if self._resource_mode:
            if not self._blocked():
                return at
        elif pending and not self._blocked():
            return at
        nxt = self._heap[0][0]
        sched = self.scheduler
        if sched.settings.preemption and pending:
            if self._heap[0][2] == REACH and not self._idle[MAP]:
                # a REACH only wakes parked nodes, and none is: the starvation times it was
                # planned from move with every update (at its share, a pool's timer runs on),
                # so it would end every span a timeout after its start
                nxt = min((e[0] for e in self._heap if e[2] != REACH), default=math.inf)
            nxt = min(nxt, self._starves_at())  # a check from then on may kill: updates tick again
            if nxt <= at:
                return at
        last = math.floor(nxt / interval)
        for _ in range(3):
            if last * interval < nxt:
                break
            last -= 1
        else:  # ticks no longer distinct floats (a task of 1e300 s): update right after that event
            return max(at, nxt)
        if last <= k:
            return at
        if self.scheduler.settings.preemption:
            last = self._skip_preempt_checks(k, last, interval)
        return last * interval

    def _blocked(self) -> bool:
        """Tasks are pending, but none can launch before the next event, whatever the updates
        in between compute (issue 25: a long task no longer costs an update every tick).  No
        node waits with a free slot of a kind a heartbeat could launch
        (:meth:`~corescheduler.core.scheduler.Scheduler.pending_work`): a node that has one
        and beats has its heartbeat on the heap, which is then the next event.  Updates between
        events then only repeat what the last of them records.  With preemption on (slot
        mode), a check between could kill for a pool starved meanwhile: the skip stops
        before the first time one can be (:meth:`_starves_at`); resource mode's preemption
        (its reclaim deadlines) is not foreseen, so its updates tick."""
        sched = self.scheduler
        if sched.settings.preemption and self._resource_mode:  # its preemption (reclaim) is not foreseen
            return False
        if self._resource_mode:  # a resting node with room beats again once an app asks (_wake)
            return not (sched.engine.has_requests()
                        and any(ns.node.available.any_positive() for ns in self._resting))
        idle = self._idle
        slot = self._slot
        if slot is None:  # (slot mode and resource mode are the two engines)
            return False
        return not (idle[MAP] and slot.pending_work(MAP) > 0) and not (idle[REDUCE] and slot.pending_work(REDUCE) > 0)

    def _starves_at(self) -> float:
        """Preemption on, tasks pending and none can launch before the next event (slot mode):
        until when the updates between would each record what the last one did, and every
        preemption check among them would find nothing to do.  What they read is frozen but
        for the clock (running, demand, min shares and timeouts change only at events), so a
        pool's starvation times either move with every update (it is at its share:
        ``SlotPools._update_starvation``, Hadoop ``updatePreemptionVariables``) or stay, and
        it is starved (``Schedulable.starved_for``) once its timeout has passed since: the
        first such time is the answer: the root share policy's preemption hint
        (``SharePolicy.preemption_hint``; ``fair``'s: :func:`corescheduler.core.hints.until_starved`);
        without one, ``-inf`` (the updates tick)."""
        return self.scheduler.preemption_hint(self.scheduler.now)

    def _skip_preempt_checks(self, first: int, end: int, interval: float) -> int:
        """Ticks ``first`` … ``end - 1`` are skipped: set the scheduler's last preemption check
        to the last of them a check would have run at (``now - last >= preemption_interval``,
        ``Scheduler.preempt``).  Closed form when the ticks are exact binary fractions, check
        by check otherwise (at most 100,000 checks a jump: the returned tick, maybe before
        ``end``, is where this jump stops)."""
        sched = self.scheduler
        period = sched.settings.preemption_interval
        done = sched.last_preempt_check

        def due(j: int, since: float) -> bool:
            return not (j * interval - since < period)

        j = first
        if done != -math.inf:
            j = max(first, math.ceil((done + period) / interval) - 1)
            while not due(j, done):
                j += 1
        if j >= end:
            return end  # no check in the skipped ticks
        step = math.ceil(period / interval)
        # ticks k × interval are exact when the interval is a binary fraction (0.5, 0.25, 1):
        # then the checks are `step` ticks apart (beyond 2**53 s nothing is exact, in either mode)
        exact = (interval * 2**30).is_integer() and step * interval >= period and (step - 1) * interval < period
        if exact:  # every check `step` ticks after the one before
            done_tick = j + (end - 1 - j) // step * step
        else:
            done_tick, checks = j, 0
            while checks < 100_000:
                nxt = done_tick + max(step - 1, 1)
                while not due(nxt, done_tick * interval):
                    nxt += 1
                if nxt >= end:
                    break
                done_tick, checks = nxt, checks + 1
            else:
                end = done_tick + 1  # stop the jump here; the next update arms the next one
        sched.preempt_checked(done_tick * interval)
        return end

    def _tasks_running(self) -> bool:
        """Does a task run (the stall timer waits while one does)?  Resource mode: a container
        other than an AM (the slot counts do not see containers; an AM runs until its app
        ends, so it is no sign of progress)."""
        return self.scheduler.work_running()

    def _only_updates(self, t: float) -> None:
        """After the update at ``t``, nothing but the next update is on the heap: no task will
        end, no job come, no heartbeat happen (nodes that beat have theirs on the heap), so
        the updates to come change nothing a heartbeat would see (issue 25: jobs no node can
        run, a stall_timeout of inf, used to tick for ever).  With nothing running, only the
        stall timer can end the run: its update is moved to the tick the timer fires at,
        which the updates in between would have reached (same result, no cost per tick).
        Tasks running with no end to come (reduces the LoadManager holds, waiting for each
        other), or a stall timer that never fires: the run ends now, its jobs unfinished.
        With preemption on and tasks running a check may still kill one: the updates go on,
        as without this."""
        sched = self.scheduler
        if sched.settings.preemption and sched.ledger.running:
            return
        stall = self.options.stall_timeout
        if not self._tasks_running() and math.isfinite(stall):
            interval = self.options.update_interval
            due = self._last_activity + stall  # the timer fires at the first update after this
            k = math.floor(due / interval) + 1
            at = k * interval
            if at <= due:
                at = (k + 1) * interval
                if at <= due:  # ticks no longer distinct floats
                    at = math.nextafter(due, math.inf)
            nxt = self._heap[0][0]
            if at > nxt:
                self._heap[0] = (at, self._heap[0][1], UPDATE, None)  # the only event: still a heap
            return
        self.stalled = True


__all__ = ["UpdateSkipping"]
