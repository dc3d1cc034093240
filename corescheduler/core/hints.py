"""Hints: how long a plugin's answer stays what it is (Kubernetes' QueueingHint, for this engine).

A plugin may say, next to its answer, until when and until which cluster events that
answer cannot change: :class:`Hint`.  The engine does the rest — the simulator counts
heartbeats whose outcome is known instead of running them, stops beating nodes no job
wants (*parking*) and skips updates in which no preemption check can find anything.  A
plugin that gives no hint is exact, just slower: every heartbeat and update runs.

Two hooks give one (:mod:`corescheduler.hookspecs`):

* the TaskSelector's ``cs_select_hint(job, kind, now)``: where ``cs_select_task`` gives
  the job a task (``level``: on a node where ``job.pending_map(node, level)`` finds one),
  until ``until`` or one of ``events``;
* the root SharePolicy's ``preemption_hint(pools, kind, now)``: ``plan_preemption``
  finds nothing to do at checks before ``until`` (:func:`until_starved` is the fair
  scheduler's).

The engine always asks again after what changes the cluster — an update, a task
launched, finished or killed, a job submitted or removed — and at ``until``; ``events``
names what else can change the answer: :data:`SKIPPED_AGAIN` and :data:`NOT_OFFERED`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from attrs import frozen

from corescheduler.core.model import LOCALITY_RANK, OFF_RACK

#: a heartbeat on which the job is offered the slot and skipped again (it gives no task, and
#: the jobs skipped are those the heartbeat before skipped) can change the answer: the engine
#: then runs every such heartbeat instead of counting it
SKIPPED_AGAIN = "skipped_again"
#: a heartbeat that does not offer the job a slot (it can assign nothing, or stops before the
#: job's turn) can change the answer: the engine then delivers such heartbeats
#: (``cs_heartbeat_start`` only) instead of skipping them.  Delay scheduling: a run of skips
#: ends at a heartbeat that passes the job by.
NOT_OFFERED = "not_offered"
#: every event a hint may name
EVENTS = frozenset({SKIPPED_AGAIN, NOT_OFFERED})


_set = object.__setattr__


@frozen(init=False)
class Hint:
    """A plugin's answer holds from ``now`` until ``until`` or one of ``events``.

    :param level: a TaskSelector's hint only: on a heartbeat in that span,
        ``cs_select_task`` gives the job a task on a node exactly when
        ``job.pending_map(node, level)`` finds one (``"node"``, ``"rack"`` or ``"off"``;
        for a kind without locality, ``"off"``: whenever the job has a pending task).
        A SharePolicy's preemption hint leaves it ``"off"``.
    :param until: the first time the answer may change with time alone (``math.inf``:
        never).  Floating-point rounding is fine: the engine finds the exact instant
        within 4096 units in the last place around it, and asks again there.
    :param events: what else, besides the engine's own events, can change the answer
        before ``until``: some of :data:`EVENTS`.  The default is all of them (safe:
        the engine runs those heartbeats); name fewer to let it skip more.

    Each field is checked when a hint is made (a ``ValueError`` names it); made in one
    call, as a TaskSelector makes one for a job after every heartbeat.
    """

    level: str
    until: float
    events: frozenset[str]

    def __init__(self, level: str = OFF_RACK, until: float = math.inf, events: Iterable[str] = EVENTS) -> None:
        if level not in LOCALITY_RANK:
            raise ValueError(f"level {level!r}; expected 'node', 'rack' or 'off'")
        if type(until) is not float:
            until = float(until)
        if until != until:
            raise ValueError("until is NaN; expected a time or math.inf")
        named = events if type(events) is frozenset else frozenset(events)
        if not named <= EVENTS:
            raise ValueError(f"unknown hint events {sorted(named - EVENTS)}; expected some of {sorted(EVENTS)}")
        _set(self, "level", level)
        _set(self, "until", until)
        _set(self, "events", named)


def widens_at(ask: Callable[[float], Hint | None], level: str, near: float, now: float) -> float:
    """The first time after ``now`` at which ``ask(t)`` (a TaskSelector's hint at ``t``) has
    a level wider than ``level``, or none: the exact float instant, searched around
    ``near`` — a hint's ``until``, computed in floating point by the plugin and so off by a
    few units in the last place — by doubling steps out to 2**12 ulps either side and
    bisecting (a level only widens with time).  If the level is still ``level`` 2**12 ulps
    after ``near``, the search goes on from the hint asked there (a few times; then that
    time, early: the caller asks again then).  ``math.inf`` if the hint asked there says
    the level never widens."""
    rank = LOCALITY_RANK[level]

    def wider(t: float) -> bool:
        hint = ask(t)
        return hint is None or LOCALITY_RANK[hint.level] > rank

    for _ in range(8):
        if near <= now:
            near = math.nextafter(now, math.inf)
        ulp = math.ulp(near)
        if wider(near):  # the boundary is at or below near: find a time below it that is not wider
            hi, step = near, ulp
            lo = near - step
            while lo > now and wider(lo):
                if step > ulp * 4096:
                    return lo  # wider this far below: early, never late
                hi, step = lo, step * 2
                lo = near - step
            lo = max(lo, now)
        else:  # the boundary is above near: find a time above it that is wider
            lo, step = near, ulp
            hi = near + step
            found = True
            while not wider(hi):
                if step > ulp * 4096:
                    found = False
                    break
                lo, step = hi, step * 2
                hi = near + step
            if not found:  # not a boundary: ask the hint from there
                again = ask(hi)
                if again is None or again.level != level:
                    return hi
                if again.until == math.inf:
                    return math.inf
                near, now = again.until, hi
                continue
        while True:  # lo is not wider, hi is: bisect to adjacent floats
            mid = lo + (hi - lo) / 2
            if mid <= lo or mid >= hi:
                return hi
            if wider(mid):
                hi = mid
            else:
                lo = mid
    return now


def _expiry(since: float, timeout: float) -> float:
    """The last float before ``since + timeout`` (a check then finds ``now - since >
    timeout`` false whatever the rounding); ``inf`` with no timeout."""
    if timeout == math.inf or since == -math.inf:
        return math.inf if timeout == math.inf else -math.inf
    return math.nextafter(since + timeout, -math.inf)


def until_starved(pools: Sequence[Any]) -> Hint:
    """The preemption hint of a plan that asks for tasks only for starved pools (Hadoop
    ``FairScheduler.tasksToPreempt``: a pool below its min share for
    ``minSharePreemptionTimeout``, or below half its fair share for
    ``fairSharePreemptionTimeout``; :meth:`Schedulable.starved_for
    <corescheduler.core.model.Schedulable.starved_for>`), for the pools as they are now.

    Until something changes the cluster, the pools' running counts, demands, shares and
    timeouts stay, and each update either moves a pool's starvation times to its clock (the
    pool is at that share: ``SlotPools._update_starvation``) or leaves them: so no pool is
    starved before the first of the pools' timeouts since those times — the answer's
    ``until`` (a float below it: early is safe)."""
    until = math.inf
    for ps in pools:
        running, demand = ps.running, ps.demand
        if running < min(ps.min_share, demand):  # its min-share time stays: starved after the timeout
            until = min(until, _expiry(ps.last_time_at_min_share, ps.min_share_timeout))
        if running < math.floor(min((ps.fair_share or 0.0) / 2.0, demand)):
            until = min(until, _expiry(ps.last_time_at_half_fair_share, ps.fair_share_timeout))
    return Hint(until=until, events=())


__all__ = ["EVENTS", "NOT_OFFERED", "SKIPPED_AGAIN", "Hint", "until_starved", "widens_at"]
