"""Heartbeat planning: which node beats when, for the simulator's engine.

Hadoop's TaskTrackers beat every ``heartbeat_interval`` at their own phase, plus an
out-of-band heartbeat when a task ends (docs/simulator.md, "Heartbeats").  Most of those
heartbeats can be known without running them; this module decides which ones the engine
(:class:`~corescheduler.sim.simulator.Simulation`, which runs the heartbeats it plans:
``_beat``) puts on its heap, through the scheduler's public API only (what it reads per
tick or heartbeat it asks of the scheduler's engine, ``Scheduler.engine``, directly: the
same calls of the :class:`~corescheduler.core.engine.Engine` protocol, one call each; the
regimes below that skip or park heartbeats are slot mode's, and call the engine through a
reference typed as the :class:`~corescheduler.core.slot_engine.SlotEngine` it then is,
``_slot``, which compiled code calls natively):

* **idle nodes** — a node with no free slot of a kind with pending work
  (``Scheduler.pending_work``) stops beating and waits in an idle set per kind; a *wheel*
  visits the idle nodes of a kind in phase order, one at its own next tick, while that
  kind has pending work;
* **idle heartbeats** — a skipped heartbeat the TaskSelector's hint needs
  (``Scheduler.wants_idle_heartbeat``: ``NOT_OFFERED``) is delivered as
  ``Scheduler.idle_heartbeat`` at the first tick of an idle node;
* **quiet heartbeats** — counted, not run (``Scheduler.skip_quiet_heartbeat``, in the
  engine's ``_beat``);
* **parking** — a node that runs no map and that every job refused stops beating until
  a job's map reach (``Scheduler.map_reach``, from the hints) comes to include it; the walk
  is read from ``Scheduler.walk_state`` (``walk_version``, ``walk_settled``, reach changes
  pending) and ``take_reach_changes``;
* resource mode: every node with room beats while some app asks (``_resting``).

:class:`HeartbeatPlanner` is the engine's base class (one object: the heap and the nodes'
states are the engine's own, and the hot path pays no indirection).
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Sequence
from typing import Any

from mypy_extensions import mypyc_attr

from corescheduler.core.engine import Engine
from corescheduler.core.model import KINDS, LOCALITY_RANK, MAP, OFF_RACK, REDUCE, Node
from corescheduler.core.scheduler import Scheduler
from corescheduler.core.slot_engine import SlotEngine

# event kinds on the heap, most frequent first
HEARTBEAT = 0  # payload: the node's state
FINISH = 1  # (task, attempt)
COPY_END = 2  # (task, attempt, compute seconds)
WHEEL = 3  # (node state, kind): a heartbeat of an idle node woken for pending work of kind
UPDATE = 4
SUBMIT = 5
IDLE_BEAT = 6  # (node state, generation): a skipped heartbeat the TaskSelector needs (idle_heartbeat)
FETCHED = 7  # (task, attempt, compute seconds, shuffle row): a reduce fetched its input over the network model
REACH = 8  # generation: a job's map reach may widen now (its hint's until)

#: added to the sequence number of heartbeat events (HEARTBEAT, WHEEL, IDLE_BEAT), so
#: that at one instant task ends, updates and submissions come before heartbeats
#: whatever order they were pushed in: the order of one instant's events is then the
#: same whether idle heartbeats are skipped or not
_BEAT_SEQ = 1 << 62


def _near(idle: list[int], position: int) -> Sequence[int]:
    """The ranks of ``idle`` (sorted, read cyclically) just before, at and
    after where ``position`` would go; all of them when there are at most two."""
    n = len(idle)
    if n <= 2:
        return idle
    i = bisect.bisect_left(idle, position)
    return idle[(i - 1) % n], idle[i % n], idle[(i + 1) % n]


def _near_only(idle: list[int], members: set[int], other: set[int], position: int) -> Sequence[int]:
    """:func:`_near` among the ranks of ``idle`` (whose set is ``members``)
    that are not in ``other``: a scan from the position where they are dense,
    a sorted copy (set difference, at C speed) where they are few."""
    n = len(idle)
    rest = members - other
    size = len(rest)
    if size <= 2 or size * 4 < n:
        return _near(sorted(rest), position)
    b = bisect.bisect_left(idle, position)
    j = b - 1
    while idle[j] in other:  # more than two are not: j stays ≥ -n
        j -= 1
    before = idle[j]
    j = b
    while idle[j - n if j >= n else j] in other:
        j += 1
    at = idle[j - n if j >= n else j]
    j += 1
    while idle[j - n if j >= n else j] in other:
        j += 1
    return before, at, idle[j - n if j >= n else j]


class _NodeState:
    """The engine's view of one node's heartbeats."""

    __slots__ = ("armed", "capacity", "last_beat", "name", "node", "phase", "rank", "refused")

    def __init__(self, node: Node, phase: float, capacity: dict[str, int]) -> None:
        self.node = node
        self.capacity = capacity  # most tasks per kind at once (LoadManager cs_node_capacity)
        self.name = node.name
        self.phase = phase
        self.rank = 0  # position in heartbeat-phase order
        self.armed = False  # a periodic heartbeat of this node is on the heap
        self.last_beat = -1.0  # when it last heartbeat (a periodic tick then is merged into that one)
        self.refused = -1.0  # when it last beat and every job walked refused it (nothing launched)

    def has_free_slot(self) -> bool:
        running = self.node.running
        capacity = self.capacity
        return running[MAP] < capacity[MAP] or running[REDUCE] < capacity[REDUCE]


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py); the engine subclasses it
class HeartbeatPlanner:
    """The engine's heartbeat planning (the module's docstring).  The engine sets every
    attribute declared here in its ``__init__`` and defines :meth:`_beat`."""

    scheduler: Scheduler
    #: the scheduler's engine (``scheduler.engine``): what is read per tick or heartbeat is
    #: asked of it directly, one call, not through the scheduler
    _engine: Engine
    #: the same engine when it is the slot engine, else None (resource mode): every regime
    #: that skips or parks heartbeats is slot mode's, and reads it through this reference,
    #: typed, so that compiled code calls it natively (through the protocol it could not)
    _slot: SlotEngine | None
    heartbeat_interval: float
    _heap: list[tuple[float, int, int, Any]]
    _seq: int
    _next_job: int
    _jobs: tuple[Any, ...]
    _by_phase: list[_NodeState]
    _phases: list[float]
    _states: dict[str, _NodeState]
    _nodes_by_rack: dict[str, list[str]]
    _resource_mode: bool
    _resting: set[_NodeState]  # resource mode: nodes waiting for requests
    _skip_idle: bool
    _idle: dict[str, list[int]]  # sorted phase ranks of idle nodes
    _idle_set: dict[str, set[int]]
    _wheel: dict[str, bool]
    _wheel_due: dict[str, float]  # when the node a wheel armed ticks
    #: the pending IDLE_BEAT: (time, generation[, node rank]); a newer generation voids older events
    _idle_beat: tuple[Any, ...] | None
    _idle_gen: int
    _park: bool
    _reach: dict[str, int]  # job -> rank of its map reach at the last look
    _reach_seen: tuple[int, bool, bool] | None
    _reach_settled: bool  # the walk as of _reach_seen has been walked whole
    _relook: dict[str, None]  # jobs to look at again once a heartbeat walks every job (in order)
    _reach_due: float
    _reach_gen: int
    _any_reach: bool  # some walked job takes maps anywhere: the map wheel turns
    _busy_idle: set[int]  # ranks idle in maps that run a map (never parked)
    _idle_ronly: list[int]  # ranks idle in reduces and not in maps, sorted
    _plan_later: bool  # a node became idle in reduces only: plan again after this event
    _candidates: int  # changes whenever the nodes an IDLE_BEAT may be planned for, or a wheel, change
    _plan_key: tuple[bool, bool, bool, int] | None

    def _beat(self, ns: _NodeState, t: float) -> None:
        """One heartbeat of the node (the engine's: it launches what the scheduler assigns)."""
        raise NotImplementedError

    def _push(self, t: float, kind: int, payload: Any) -> None:
        self._seq += 1
        seq = self._seq + _BEAT_SEQ if kind in (HEARTBEAT, WHEEL, IDLE_BEAT) else self._seq
        heapq.heappush(self._heap, (t, seq, kind, payload))

    def _next_tick(self, ns: _NodeState, t: float) -> float:
        """The node's first periodic heartbeat strictly after ``t``."""
        h = self.heartbeat_interval
        k = math.floor((t - ns.phase) / h) + 1
        tick = ns.phase + k * h
        if tick <= t:
            tick = ns.phase + (k + 1) * h
        return tick

    def _tick_from(self, ns: _NodeState, t: float) -> float:
        """The node's first periodic heartbeat at or after ``t``: ``t`` itself
        if the node ticks exactly then and has not beaten yet (events at one
        instant come before its heartbeats, so the tick still sees what they
        changed), else :meth:`_next_tick`."""
        h = self.heartbeat_interval
        phase = ns.phase
        k = math.floor((t - phase) / h)
        tick = phase + k * h
        fresh = ns.last_beat != t
        if tick == t and fresh:
            return t
        tick = phase + (k + 1) * h  # _next_tick, sharing the division
        if tick > t:
            return tick
        return t if tick == t and fresh else phase + (k + 2) * h

    def _useful(self, ns: _NodeState) -> bool:
        """Could a heartbeat of the node assign anything now?  (With
        ``skip_idle_heartbeats`` off: has it a free slot while jobs are in the
        system or still to come? — it beats then.)"""
        running = ns.node.running
        slots = ns.capacity
        if self._resource_mode:  # room for some container while some app has a request to offer
            return self.scheduler.engine.has_requests() and ns.node.available.any_positive()
        if not self._skip_idle:
            return (running[MAP] < slots[MAP] or running[REDUCE] < slots[REDUCE]) and (
                bool(self.scheduler.jobs) or self._next_job < len(self._jobs)
            )
        slot = self._slot
        assert slot is not None  # skipping idle heartbeats is slot mode's
        return (running[MAP] < slots[MAP] and slot.pending_work(MAP) > 0) or (
            running[REDUCE] < slots[REDUCE] and slot.pending_work(REDUCE) > 0
        )

    def _idle_add(self, kind: str, rank: int, t: float) -> None:
        if self._park:
            self._candidates += 1
            ronly = self._idle_ronly
            if kind == MAP:
                if self._by_phase[rank].node.running[MAP]:
                    self._busy_idle.add(rank)
                else:
                    self._busy_idle.discard(rank)
                if rank in self._idle_set[REDUCE]:  # idle in both now
                    i = bisect.bisect_left(ronly, rank)
                    if i < len(ronly) and ronly[i] == rank:
                        del ronly[i]
            elif rank not in self._idle_set[REDUCE] and rank not in self._idle_set[MAP]:
                bisect.insort(ronly, rank)
        if rank not in self._idle_set[kind]:
            self._idle_set[kind].add(rank)
            idle = self._idle[kind]
            if not idle or rank > idle[-1]:
                idle.append(rank)
            else:
                bisect.insort(idle, rank)
            due = self._idle_beat
            if self._park:  # planned once at the end of the event (_park_update)
                self._plan_later = True
            elif due is not None:  # an idle heartbeat is wanted: this node may tick before the one chosen
                tick = self._tick_from(self._by_phase[rank], t)
                if tick < due[0]:
                    self._push_idle_beat(self._by_phase[rank], tick)

    # ------------------------------------------------------------------ skipped heartbeats
    def _after_beat(self, t: float) -> None:
        """After a heartbeat at ``t``: if the TaskSelector wants the next heartbeat
        even if it can assign nothing (``Scheduler.wants_idle_heartbeat``), make
        sure an IDLE_BEAT is due at the first tick after ``t`` of a node that is
        idle with a free slot (armed nodes beat at their own ticks anyway)."""
        if self._park:
            self._plan_later = True  # planned once at the end of the event (_park_update)
            return
        slot = self._slot
        assert slot is not None  # idle heartbeats are planned in slot mode only
        if not slot.wants_idle_heartbeat():
            self._idle_beat = None
            return
        due = self._idle_beat
        if due is not None and t < due[0]:
            # still the first idle tick after t, or (inf) still none: a node that goes
            # idle pushes its own if earlier, and so does a wheel that stops
            return
        best = self._first_idle_tick(t)
        if best is None:
            self._idle_beat = (math.inf, self._idle_gen)  # wanted, but no idle node yet
            return
        self._push_idle_beat(self._by_phase[best[1]], best[0])

    def _plan_idle(self, t: float, maps_pending: bool, settled: bool) -> None:
        """Parking: make sure an IDLE_BEAT is due at the first tick after ``t`` that matters:
        while the TaskSelector wants one (jobs skipped wait for their credit), of a node whose
        heartbeat would walk no job (idle with no free map slot, or nothing pending for maps);
        while the last heartbeat did not walk every job (or the walk changed since), of a
        parked node, whose heartbeat would walk them all.  ``maps_pending`` and ``settled``:
        the scheduler's ``pending_work(MAP) > 0`` and ``walk_settled``, as :meth:`_park_update`
        read them (its looks change neither)."""
        slot = self._slot
        assert slot is not None  # parking is slot mode's
        want_v0 = slot.wants_idle_heartbeat()
        want_walk = maps_pending and not settled and bool(self._idle[MAP])
        if not (want_v0 or want_walk):
            self._idle_beat = None
            return
        due = self._idle_beat
        key = (want_v0, want_walk, maps_pending, self._candidates)
        if due is not None and key == self._plan_key and t < due[0] and len(due) > 2:
            return  # nothing the plan was made of has changed, and its tick is still to come
        self._plan_key = key
        best = self._first_idle_tick(t, want_v0, want_walk, maps_pending)
        if best is None:
            self._idle_beat = (math.inf, self._idle_gen)
            return
        if due is not None and due[0] == best[0] and due[0] > t and len(due) > 2 and due[2] == best[1]:
            return  # already planned
        self._push_idle_beat(self._by_phase[best[1]], best[0])

    def _first_idle_tick(
        self, t: float, want_v0: bool = True, want_walk: bool = False, maps_pending: bool = False
    ) -> tuple[float, int] | None:
        """``(tick, rank)`` of the first tick after ``t`` of a node that is idle
        with a free slot and that no wheel will tick then, or None.

        A wheel visits the idle nodes of its kind in phase order, each at its
        first tick after the one before, starting after the node it has armed
        (due at ``_wheel_due``), and an idle node stays idle until it is armed:
        so a node idle in a kind whose wheel turns is ticked anyway if its tick
        comes after that wheel's.  Among nodes covered from the same time, ticks
        grow in phase order from ``t``'s position and so does being covered: the
        first such node is the only candidate (with the ones either side of the
        position, which ``t % interval`` may round past).  The nodes of the kind
        whose wheel ticks first are all covered from its tick, those idle in both
        kinds included; the other kind's are searched only among the nodes idle
        in it alone."""
        best: tuple[float, int] | None = None
        position = bisect.bisect_right(self._phases, t % self.heartbeat_interval)
        by_phase = self._by_phase
        tick_from = self._tick_from
        wheel = self._wheel
        idle_map, idle_reduce = self._idle[MAP], self._idle[REDUCE]
        groups: Any
        if self._park and maps_pending:
            # the nodes idle in maps are parked (their heartbeat walks every job); those idle
            # in reduces only walk none.  A turning wheel covers its kind's nodes after its tick.
            groups = []
            if want_v0:
                due = self._wheel_due[REDUCE] if wheel[REDUCE] else math.inf
                groups.append((_near(self._idle_ronly, position), due))
            if want_walk:
                groups.append((_near(idle_map, position), self._wheel_due[MAP] if wheel[MAP] else math.inf))
        elif not (wheel[MAP] or wheel[REDUCE]):  # nothing covered: the idle lists as they are
            groups = (_near(idle_map, position), math.inf), (_near(idle_reduce, position), math.inf)
        else:  # by the kinds a node is idle in
            # a node idle in both kinds is covered from the earlier of the two wheels'
            # ticks: with the kind whose wheel ticks first, it is searched among that
            # kind's whole list; the other kind's list is searched only for the
            # nodes idle in that kind alone
            in_map, in_reduce = self._idle_set[MAP], self._idle_set[REDUCE]
            map_due = self._wheel_due[MAP] if wheel[MAP] else math.inf
            reduce_due = self._wheel_due[REDUCE] if wheel[REDUCE] else math.inf
            if map_due <= reduce_due:
                groups = (
                    (_near(idle_map, position), map_due),
                    (_near_only(idle_reduce, in_reduce, in_map, position), reduce_due),
                )
            else:
                groups = (
                    (_near(idle_reduce, position), reduce_due),
                    (_near_only(idle_map, in_map, in_reduce, position), map_due),
                )
        for ranks, due in groups:
            for rank in ranks:
                tick = tick_from(by_phase[rank], t)
                if tick <= due and (best is None or tick < best[0]):
                    best = (tick, rank)
        return best

    def _push_idle_beat(self, ns: _NodeState, tick: float) -> None:
        self._idle_gen += 1
        self._idle_beat = (tick, self._idle_gen, ns.rank)
        self._push(tick, IDLE_BEAT, (ns, self._idle_gen))

    def _idle_heartbeat(self, ns: _NodeState, t: float) -> None:
        """A heartbeat that can assign nothing, delivered because the TaskSelector wants it."""
        ns.last_beat = t
        self.scheduler.idle_heartbeat(ns.name, t)
        self._after_beat(t)

    def _on_idle_beat(self, ns: _NodeState, generation: int, t: float) -> None:
        due = self._idle_beat
        if due is None or due[1] != generation:
            return  # replaced by a later plan, or no longer wanted
        self._idle_beat = None
        if ns.armed or ns.last_beat == t or not ns.has_free_slot():
            if ns.armed and ns.has_free_slot():  # its own periodic heartbeat is due now and will do
                self._idle_beat = (t, generation)
            else:
                self._after_beat(t)
            return
        if self._useful(ns):  # the wheel has not reached it: beat as the wheel would
            self._idle_remove(MAP, ns.rank)
            self._idle_remove(REDUCE, ns.rank)
            self._tick(ns, t)
        elif self._slot is not None and self._slot.wants_idle_heartbeat():
            self._idle_heartbeat(ns, t)

    def _idle_remove(self, kind: str, rank: int) -> None:
        if self._park:
            self._candidates += 1
            ronly = self._idle_ronly
            if kind == MAP:
                self._busy_idle.discard(rank)
                if rank in self._idle_set[MAP] and rank in self._idle_set[REDUCE]:  # idle in reduces only now
                    bisect.insort(ronly, rank)
                    self._plan_later = True  # it may tick before the heartbeat planned
            elif rank in self._idle_set[REDUCE] and rank not in self._idle_set[MAP]:
                i = bisect.bisect_left(ronly, rank)
                if i < len(ronly) and ronly[i] == rank:
                    del ronly[i]
        if rank in self._idle_set[kind]:
            self._idle_set[kind].discard(rank)
            idle = self._idle[kind]
            del idle[bisect.bisect_left(idle, rank)]

    def _arm(self, ns: _NodeState, t: float, wheel: str | None = None, tick: float | None = None) -> None:
        """Put the node's next periodic heartbeat (at ``tick``, default its
        first at or after ``t``) on the heap."""
        ns.armed = True
        self._idle_remove(MAP, ns.rank)
        self._idle_remove(REDUCE, ns.rank)
        if tick is None:
            tick = self._tick_from(ns, t)
        self._seq += 1
        if wheel is None:
            heapq.heappush(self._heap, (tick, self._seq + _BEAT_SEQ, HEARTBEAT, ns))
        else:
            heapq.heappush(self._heap, (tick, self._seq + _BEAT_SEQ, WHEEL, (ns, wheel)))

    def _tick(self, ns: _NodeState, t: float) -> None:
        """A periodic heartbeat of the node: beat if it could assign, then keep
        beating while useful, else wait idle.  A tick at the instant of the
        node's own out-of-band heartbeat is merged into that one; a tick that
        can assign nothing still reaches the TaskSelector if it wants it."""
        ns.armed = False
        if not self._skip_idle:
            if ns.last_beat != t and self._useful(ns):
                self._beat(ns, t)
            if self._useful(ns):
                ns.armed = True
                self._push(self._next_tick(ns, t), HEARTBEAT, ns)
            elif self._resource_mode:
                self._resting.add(ns)
            return
        # _useful and has_free_slot inlined: this runs for every tick of the run
        running = ns.node.running
        slots = ns.capacity
        slot = self._slot
        assert slot is not None  # skipping idle heartbeats is slot mode's
        map_free = running[MAP] < slots[MAP]
        reduce_free = running[REDUCE] < slots[REDUCE]
        useful = (map_free and slot.pending_work(MAP) > 0) or (reduce_free and slot.pending_work(REDUCE) > 0)
        if ns.last_beat != t:
            if useful:
                self._beat(ns, t)
                useful = (running[MAP] < slots[MAP] and slot.pending_work(MAP) > 0) or (
                    running[REDUCE] < slots[REDUCE] and slot.pending_work(REDUCE) > 0
                )
            elif self._idle_beat is not None and (map_free or reduce_free):
                if slot.wants_idle_heartbeat():
                    self._idle_heartbeat(ns, t)  # changes no slot and no pending work
        if useful and ns.refused == t and self._park and self._parkable(ns):
            useful = False  # parked: no job wants it, it rests until one does
        if useful:
            ns.armed = True
            h = self.heartbeat_interval
            k = math.floor((t - ns.phase) / h) + 1  # _next_tick
            tick = ns.phase + k * h
            if tick <= t:
                tick = ns.phase + (k + 1) * h
            self._seq += 1
            heapq.heappush(self._heap, (tick, self._seq + _BEAT_SEQ, HEARTBEAT, ns))
            return
        rank = ns.rank  # _rest
        if running[MAP] < slots[MAP]:
            self._idle_add(MAP, rank, t)
        else:
            self._idle_remove(MAP, rank)
        if running[REDUCE] < slots[REDUCE]:
            self._idle_add(REDUCE, rank, t)
        else:
            self._idle_remove(REDUCE, rank)

    def _rest(self, ns: _NodeState, t: float) -> None:
        """The node stops its periodic heartbeats: idle per kind where it has a free slot."""
        if self._resource_mode:
            self._resting.add(ns)  # it beats again when some app has a request (_wake) or a container ends
            return
        if not self._skip_idle:
            return  # it beats again once a slot frees (_settle)
        running = ns.node.running
        rank = ns.rank
        for kind in KINDS:
            if running[kind] < ns.capacity[kind]:
                self._idle_add(kind, rank, t)
            else:
                self._idle_remove(kind, rank)

    def _settle(self, ns: _NodeState, t: float) -> None:
        """After the node's state changed: keep beating if useful, else wait idle (parked, if
        it has just beaten and no job wanted it)."""
        if ns.armed:
            return
        if self._useful(ns) and not (ns.refused == t and self._park and self._parkable(ns)):
            self._arm(ns, t)
            return
        self._rest(ns, t)

    def _parkable(self, ns: _NodeState) -> bool:
        """May the node, refused by every job on its heartbeat just now, stop beating?  It runs
        no map (so it can take one while maps are pending: ``empty_nodes_take_tasks``) and can take
        no reduce (none free, or none pending): only a job's reach can make it useful again."""
        running = ns.node.running
        slot = self._slot
        assert slot is not None  # parking is slot mode's
        return running[MAP] == 0 and (running[REDUCE] >= ns.capacity[REDUCE] or slot.pending_work(REDUCE) <= 0)

    def _wake(self, t: float) -> None:
        """Start the idle-node wheel of each kind that has pending work (resource mode: arm the
        resting nodes once some app has a request)."""
        if self._resource_mode:
            if self._resting and self.scheduler.engine.has_requests():
                resting, self._resting = self._resting, set()
                for ns in sorted(resting, key=lambda n: n.rank):
                    if not ns.armed:
                        self._settle(ns, t)
            return
        if self._park:
            self._park_update(t)
        slot = self._slot
        for kind in KINDS:
            # (nodes are idle per kind only while idle heartbeats are skipped: slot mode)
            if not self._wheel[kind] and self._idle[kind] and slot is not None and slot.pending_work(kind) > 0:
                if kind == MAP and self._park and not self._any_reach:
                    continue  # the nodes idle in maps are parked: jobs wake those they want
                self._start_wheel(kind, t)

    def _start_wheel(self, kind: str, t: float) -> None:
        position = bisect.bisect_right(self._phases, t % self.heartbeat_interval)
        before = self._by_phase[position - 1]  # (the last one if position is 0)
        if self._tick_from(before, t) == t:  # a node ticking right now starts the wheel
            position = before.rank
        self._turn_wheel(kind, position, t)

    # ------------------------------------------------------------------ parking
    def _park_update(self, t: float, force: bool = False, plan: bool = True) -> None:
        """Parking, after anything happened at ``t``: wake the parked nodes that some job's map
        reach now includes (``cs_map_reach``), beat the nodes idle in maps that run a map
        (they are never parked), and plan the heartbeat of a parked node that must walk the
        jobs again (:meth:`_plan_idle`)."""
        if not self._park:
            return
        sched = self._slot
        assert sched is not None  # parking is slot mode's
        if not sched.can_park:  # a pool whose policy admits jobs appeared: beat as without parking
            self._park = sched.track_reach = False
            self._idle_beat = None
            self._after_beat(t)
            self._wake(t)  # the map wheel visits the nodes that were parked
            return
        maps_pending = sched.pending_work(MAP) > 0
        # every walked job is looked at again when the walk changes, and once more when a
        # heartbeat first walks it (their runs of skips start: cs_map_reach's until)
        version, settled, reach_changes = sched.walk_state()
        key = (version, settled or self._reach_settled, maps_pending)
        changed = sched.take_reach_changes() if reach_changes else None
        if force or key != self._reach_seen or t >= self._reach_due:
            self._reach_settled = settled if key[0] != (self._reach_seen or (None,))[0] else key[1]
            self._refresh_reach(t, maps_pending, key)
        elif maps_pending and (changed or (settled and self._relook)):
            if settled and self._relook:  # looked at while their runs of skips had ended
                changed = {**(changed or {}), **dict.fromkeys(self._relook, OFF_RACK)}  # look again
                self._relook = {}
            reach = self._reach
            jobs = self.scheduler.jobs
            for job_id, where in changed.items():  # type: ignore[union-attr]
                old = reach.get(job_id)
                job = jobs.get(job_id)
                # a launch no wider than the reach known leaves the level no wider (its wait
                # starts again: the timer set before, now early, looks again when due)
                if old is not None and job is not None and LOCALITY_RANK.get(where, 2) > old:
                    self._look(job, old, t, maps_pending)
        if maps_pending and self._busy_idle:
            for rank in sorted(self._busy_idle):
                self._arm(self._by_phase[rank], t)
        if plan or self._plan_later:
            self._plan_later = False
            self._plan_idle(t, maps_pending, settled)

    def _look(self, job: Any, old: int, t: float, maps_pending: bool) -> None:
        """Look at one walked job's reach: wake the parked nodes it widened to."""
        sched = self._slot
        assert sched is not None  # parking is slot mode's
        rank, until = self._reach_of(job, t)
        self._reach[job.id] = rank
        if not sched.walk_settled:
            self._relook[job.id] = None  # its wait may start running at the next whole walk
        if rank == 2:
            self._any_reach = True
            if maps_pending and not self._wheel[MAP] and self._idle[MAP]:
                self._start_wheel(MAP, t)
        elif maps_pending and (rank > old or old == 2):
            # wider, or narrower than anywhere: while it reached anywhere the map wheel, not a
            # refusal, stood for it at the parked nodes, and the wheel may stop now
            self._wake_reach(job, rank, t)
        if until < self._reach_due:
            self._set_reach_due(until, t)

    def _reach_of(self, job: Any, t: float) -> tuple[int, float]:
        """``cs_map_reach`` as (rank of its level, until); unknown: anywhere, for ever
        (``Scheduler.map_reach`` has checked the level and made ``until`` a float)."""
        answer = self.scheduler.map_reach(job, t)
        if answer is None:
            return 2, math.inf
        return LOCALITY_RANK[answer[0]], answer[1]

    def _set_reach_due(self, due: float, t: float) -> None:
        self._reach_due = due
        if due < math.inf:
            self._reach_gen += 1
            self._push(max(due, t), REACH, self._reach_gen)

    def _refresh_reach(self, t: float, maps_pending: bool, key: tuple[int, bool, bool]) -> None:
        sched = self._slot
        assert sched is not None  # parking is slot mode's
        woke_before = self._reach_seen is not None and self._reach_seen[2]
        self._reach_seen = key
        old = self._reach if woke_before else {}
        new: dict[str, int] = {}
        any_reach = False
        due = math.inf
        for job in sched.map_walk():
            rank, until = self._reach_of(job, t)
            new[job.id] = rank
            if rank == 2:
                any_reach = True
            elif until < due:
                due = until
            was = old.get(job.id, -1)
            if maps_pending and rank < 2 and (rank > was or was == 2):  # (narrower than anywhere: _look)
                self._wake_reach(job, rank, t)
        self._reach = new
        self._relook = {} if sched.walk_settled else dict.fromkeys(new)
        self._any_reach = any_reach
        if due != self._reach_due:
            self._set_reach_due(due, t)
        if any_reach and maps_pending and not self._wheel[MAP] and self._idle[MAP]:
            self._start_wheel(MAP, t)

    def _wake_reach(self, job: Any, rank: int, t: float) -> None:
        """Beat the parked nodes where ``job`` would take a map: those holding its pending maps'
        input (and, rack-local, every node of their racks)."""
        names = job.pending_map_nodes()
        if rank == 1:
            by_rack = self._nodes_by_rack
            names = [name for rack in job.pending_map_racks() for name in by_rack.get(rack, ())] + names
        in_map = self._idle_set[MAP]
        states = self._states
        for name in names:
            ns = states.get(name)
            if ns is not None and ns.rank in in_map:
                self._arm(ns, t)

    def _turn_wheel(self, kind: str, position: int, t: float) -> None:
        """Arm the first idle node of ``kind`` at phase rank ≥ ``position`` (cyclically)."""
        idle = self._idle[kind]
        slot = self._slot
        if (
            not idle
            or slot is None
            or slot.pending_work(kind) <= 0
            or (kind == MAP and self._park and not self._any_reach)
        ):
            self._wheel[kind] = False
            self._candidates += 1
            due = self._idle_beat
            if self._park:
                self._plan_later = True
            elif due is not None:  # an idle heartbeat is wanted: the nodes it covered are not now
                best = self._first_idle_tick(t)
                if best is not None and (best[0] < due[0] or due[0] <= t):
                    self._push_idle_beat(self._by_phase[best[1]], best[0])
            return
        i = bisect.bisect_left(idle, position)
        rank = idle[i] if i < len(idle) else idle[0]
        self._wheel[kind] = True
        ns = self._by_phase[rank]
        tick = self._wheel_due[kind] = self._tick_from(ns, t)
        self._candidates += 1
        self._arm(ns, t, kind, tick)


__all__ = ["HeartbeatPlanner"]
