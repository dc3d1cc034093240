"""Reads take turns on the event loop: issue 26 item 5, reads never block scheduling.

The scheduler, the Dask scheduler of the embedded cluster and every HTTP request share
one event loop.  Readers that never pause (a dashboard polling a 100,000-task job, eight
scripts reading its tasks) would otherwise fill that loop's ready queue with reads, and a
``/healthz``, a submit or a scheduling turn would wait behind all of them.

:class:`ReadGate` lets one read of the ledger's data (``GET`` of ``/api/v1/jobs…`` and of
the ``/scheduler`` page) run at a time; every other request (health, metrics, pools,
nodes, submits, changes) passes at once.  So whatever the number of readers, any other
request or scheduling step waits behind at most one read, not behind all of them.  A read
holds its turn from its admission until its answer is ready (the response starts): the
sending of a large answer goes on while the next read runs.  While a read waits for a
ledger read in a reading thread (:func:`off_turn`, in ``Service.read``) it gives its turn
back, so readers of different jobs still share the reading threads.

Waiting reads are admitted cheapest caller first, as Hadoop's RPC ``FairCallQueue`` with
``DecayRpcScheduler`` and its ``WeightedTimeCostProvider`` does for the NameNode
(``org.apache.hadoop.ipc.DecayRpcScheduler#getPriorityLevel``: a caller's priority from its
share of the recent processing cost; the costs decay by half every 5 s, ``decayCurrentCosts``).
The caller here is the user a known credential names, else the client's host
(:func:`caller`): a client that reads now and then (a job's status polled while it runs)
goes before readers that never stop, so it waits for the read in progress only.

Heavy callers back off while reads make the loop late (:meth:`ReadTurns.note_lag`), as
``DecayRpcScheduler`` backs heavy callers off while response times are over its thresholds
(``DecayRpcScheduler#shouldBackOff``, with ``backOffByResponseTimeEnabled``; Hadoop
refuses such a call for the client to retry, here the read waits): readers that never
pause, whose clients share the service's cores, would otherwise take whatever CPU the
service frees.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import heapq
import itertools
import math
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

__all__ = ["DECAY", "LIGHT", "MAX_CALLERS", "PERIOD", "ReadGate", "ReadTurns", "Turn", "caller", "is_read", "off_turn"]

#: the costs decay by this factor every PERIOD seconds (Hadoop's decay-scheduler.decay-factor
#: and period-ms defaults: 0.5 and 5,000 ms)
DECAY = 0.5
PERIOD = 5.0
#: callers whose costs are kept at most (the cheapest are forgotten first: they start again at 0)
MAX_CALLERS = 10_000
_FORGET = 1e-6  # a cost this small is forgotten
#: a caller whose recent read time (decayed) is at most this is light: its reads never wait
#: for the gap (a job's status polled now and then)
LIGHT = 0.05
#: how much later than without reads (smoothed) the loop may run before heavy callers' reads
#: are spaced out (seconds)
LAG_TARGET = 0.002
#: the gap's floor once on, and its ceiling (seconds)
MIN_GAP = 0.002
MAX_GAP = 0.1
#: how often the probe measures the loop's lateness while reads come, its smoothing, and how
#: long without a read before it stops (seconds)
PROBE = 0.01
LAG_SMOOTHING = 0.25
#: the smoothing of the lateness measured with no read on the loop (fewer samples, slower)
BASE_SMOOTHING = 0.1
IDLE = 1.0

Key = tuple[Any, ...]


def is_read(scope: dict[str, Any]) -> bool:
    """A read of jobs, their tasks and results, or the ``/scheduler`` page (what reads the ledger)."""
    if scope.get("method") not in ("GET", "HEAD"):
        return False
    path = scope.get("path", "")
    return path == "/scheduler" or path == "/api/v1/jobs" or path.startswith("/api/v1/jobs/")


class ReadTurns:
    """Who reads next: one read at a time, the caller with the least recent read time first;
    heavy callers' reads spaced out while the loop runs late (:meth:`note_lag`)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, *, lag_target: float = LAG_TARGET,
                 max_gap: float = MAX_GAP, probe: bool = True) -> None:
        self.clock = clock
        #: measure the loop's lateness while reads come (False: only :meth:`note_lag` moves the gap)
        self.probing = probe
        #: a read holds the turn
        self.busy = False
        #: (caller's cost when it asked — raised to its cost now when it reaches the head —, order of
        #: asking, its caller, its wake-up) for reads waiting
        self._waiting: list[tuple[float, int, Key, asyncio.Future[None]]] = []
        self._order = itertools.count()
        #: each caller's recent read time (seconds, decayed)
        self.costs: dict[Key, float] = {}
        self._decayed = clock()
        #: reads admitted so far, how many of them waited for a turn, and how many waited for the gap
        self.admitted = 0
        self.waited = 0
        self.spaced = 0
        #: how much later than without reads the loop may run (seconds), and the gap's ceiling
        self.lag_target = lag_target
        self.max_gap = max_gap
        #: the loop's smoothed lateness with reads on it (seconds), as the probes saw it
        self.lag = 0.0
        #: the loop's smoothed lateness when no read was on it since the last probe (the
        #: machine's and the service's own); the target is over it
        self.base_lag = 0.0
        self._read_since_probe = False
        #: seconds a heavy caller's read waits after the last heavy read (0: none)
        self.gap = 0.0
        #: when the next heavy read may start (the clock's seconds)
        self._heavy_after = -math.inf
        self._timer: asyncio.TimerHandle | None = None
        self._probe: asyncio.TimerHandle | None = None
        self._last_read = -math.inf

    @property
    def waiting(self) -> int:
        """Reads waiting for their turn now."""
        return sum(1 for _, _, _, f in self._waiting if not f.done())

    def heavy(self, key: Key) -> bool:
        """A caller whose recent read time is over :data:`LIGHT`: its reads wait for the gap."""
        return self.costs.get(key, 0.0) > LIGHT

    async def enter(self, key: Key) -> None:
        """Returns when ``key``'s read has the turn; :meth:`leave` gives it back."""
        self.admitted += 1
        self._decay()  # whether the caller is heavy: by its cost now
        self._watch()
        if not self.busy and not self._waiting and self._may_start(key):
            self._start(key)
            return
        self.waited += 1
        wake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (self.costs.get(key, 0.0), next(self._order), key, wake))
        self._admit()
        try:
            await wake
        except asyncio.CancelledError:
            if wake.done() and not wake.cancelled():  # given the turn, then cancelled: pass it on
                self.leave(key, 0.0)
            raise

    def leave(self, key: Key, seconds: float) -> None:
        """``key``'s read, which held the turn ``seconds``, gives it back."""
        self._charge(key, seconds)
        self.busy = False
        if self.heavy(key) or self._heavy_after == math.inf:
            self._heavy_after = self.clock() + self.gap
        self._admit()

    def _may_start(self, key: Key) -> bool:
        return not self.heavy(key) or self.gap <= 0.0 or self.clock() >= self._heavy_after

    def _start(self, key: Key) -> None:
        self.busy = True
        self._read_since_probe = True
        self._last_read = self.clock()
        if self.heavy(key) and self.gap > 0.0:
            self._heavy_after = math.inf  # until this read gives the turn back (leave)

    def _admit(self) -> None:
        """The turn is free: the cheapest waiting read takes it, unless it is a heavy caller's
        and the gap since the last heavy read has not passed (then a timer admits it)."""
        if self.busy:
            return
        while self._waiting:
            _, _, key, wake = self._waiting[0]
            if wake.done():  # a read whose client went away while it waited is skipped
                heapq.heappop(self._waiting)
                continue
            cost = self.costs.get(key, 0.0)
            if cost > self._waiting[0][0]:
                # its caller read since it asked (a burst asked at cost 0 has run up a cost since):
                # its place by the cost now, or a burst would go before every later reader
                heapq.heapreplace(self._waiting, (cost, *self._waiting[0][1:]))
                continue
            if not self._may_start(key):
                self.spaced += 1
                self._wake_at(self._heavy_after)
                return
            heapq.heappop(self._waiting)
            self._start(key)
            wake.set_result(None)
            return

    def _wake_at(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        delay = max(0.0, when - self.clock()) if when != math.inf else self.max_gap
        self._timer = asyncio.get_running_loop().call_later(delay, self._timed)

    def _timed(self) -> None:
        self._timer = None
        self._admit()

    # ------------------------------------------------------------------ backing off
    def note_lag(self, lag: float, reading: bool = True) -> None:
        """A probe found the loop ``lag`` seconds late, with a read on it since the last probe
        (``reading``) or none.  Without: the lateness the machine and the service cause
        themselves (smoothed: :attr:`base_lag`).  With: the gap follows how much later reads
        make the loop — doubled while the smoothed lateness is over :attr:`base_lag` plus the
        target, shortened by :data:`MIN_GAP` while it is under half of that (heavy readers'
        rate cut by half at once, raised step by step: TCP's AIMD) — as Hadoop's
        ``DecayRpcScheduler`` backs heavy callers off while response times are over its
        thresholds (``shouldBackOff``)."""
        lag = max(0.0, lag)
        if not reading:
            self.base_lag += BASE_SMOOTHING * (lag - self.base_lag)
            return
        self.lag += LAG_SMOOTHING * (lag - self.lag)
        if self.lag > self.base_lag + self.lag_target:
            self.gap = min(self.max_gap, max(MIN_GAP, 2.0 * self.gap))
        elif self.lag < self.base_lag + self.lag_target / 2:
            self.gap = max(0.0, self.gap - MIN_GAP)

    def _watch(self) -> None:
        """While reads come, a probe every :data:`PROBE` seconds measures how
        late the loop runs its timers (a loop busy, or a process waiting for a core)."""
        if self._probe is not None or not self.probing:
            return
        loop = asyncio.get_running_loop()
        due = loop.time() + PROBE

        def probe() -> None:
            nonlocal due
            self.note_lag(loop.time() - due, self.busy or self._read_since_probe)
            self._read_since_probe = False
            if self.clock() - self._last_read > IDLE:
                self._probe = None  # no reads lately: the next read starts the probe again
                return
            due = loop.time() + PROBE
            self._probe = loop.call_at(due, probe)

        self._probe = loop.call_at(due, probe)

    def close(self) -> None:
        """Stop the probe and the timer (the loop is closing)."""
        for handle in (self._probe, self._timer):
            if handle is not None:
                handle.cancel()
        self._probe = self._timer = None

    def _decay(self) -> None:
        """The costs decayed by :data:`DECAY` for each :data:`PERIOD` passed since the last time."""
        periods = int((self.clock() - self._decayed) / PERIOD)
        if periods:
            self._decayed += periods * PERIOD
            factor = DECAY ** periods
            self.costs = {k: c * factor for k, c in self.costs.items() if c * factor > _FORGET}

    def _charge(self, key: Key, seconds: float) -> None:
        self._decay()
        self.costs[key] = self.costs.get(key, 0.0) + seconds
        if len(self.costs) > MAX_CALLERS:
            kept = heapq.nlargest(MAX_CALLERS // 2, self.costs.items(), key=lambda kv: kv[1])
            self.costs = dict(kept)


class Turn:
    """One request's turn: taken, given back while it waits off the loop, taken again."""

    def __init__(self, turns: ReadTurns, key: Key) -> None:
        self.turns = turns
        self.key = key
        self.held = False
        self._since = 0.0

    async def take(self) -> None:
        await self.turns.enter(self.key)
        self.held = True
        self._since = self.turns.clock()

    def give_back(self) -> None:
        if self.held:
            self.held = False
            self.turns.leave(self.key, self.turns.clock() - self._since)


_TURN: contextvars.ContextVar[Turn | None] = contextvars.ContextVar("corescheduler_read_turn", default=None)


@contextlib.asynccontextmanager
async def off_turn() -> AsyncIterator[None]:
    """Around a wait that does not use the loop (a ledger read in a reading thread): the
    request's read gives its turn back meanwhile, and takes one again after (in its order,
    by its caller's cost).  Outside a read's turn, nothing."""
    turn = _TURN.get()
    if turn is None or not turn.held:
        yield
        return
    turn.give_back()
    try:
        yield
    finally:
        await turn.take()


def caller(scope: dict[str, Any], identify: Callable[[dict[str, Any]], str | None] | None = None) -> Key:
    """Whose read cost a request adds to: the user a credential the service knows names
    (``identify(scope)``: a valid token or a live page session), so that a tenant's reads share
    one cost however many connections it opens; else the client's host.  Never the connection,
    nor a credential the service does not know: a reader that opens a fresh connection for
    every read, or sends a made-up token or cookie with each, would otherwise start at cost 0
    each time and go first among waiting reads for ever."""
    if identify is not None:
        user = identify(scope)
        if user is not None:
            return ("user", user)
    client = scope.get("client")
    return ("host", client[0] if client else "-")


class ReadGate:
    """ASGI middleware: the reads ``reads`` names (:func:`is_read`) take turns through
    ``turns``; every other request passes untouched.  A read holds its turn until its
    response starts (or it fails), except while it waits in :func:`off_turn`."""

    def __init__(self, app: Any, turns: ReadTurns, reads: Callable[[dict[str, Any]], bool] = is_read,
                 identify: Callable[[dict[str, Any]], str | None] | None = None) -> None:
        self.app = app
        self.turns = turns
        self.reads = reads
        #: the user a request's credential names, if the service knows it (see :func:`caller`)
        self.identify = identify

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not self.reads(scope):
            await self.app(scope, receive, send)
            return
        turn = Turn(self.turns, caller(scope, self.identify))
        await turn.take()
        token = _TURN.set(turn)

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                turn.give_back()  # the answer is made: its sending does not hold the turn
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            turn.give_back()
            _TURN.reset(token)
