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
The caller here is the connection (the client's address and port): a client that reads
now and then (a job's status polled while it runs) goes before readers that never stop,
so it waits for the read in progress only.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import heapq
import itertools
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

__all__ = ["DECAY", "MAX_CALLERS", "PERIOD", "ReadGate", "ReadTurns", "Turn", "caller", "is_read", "off_turn"]

#: the costs decay by this factor every PERIOD seconds (Hadoop's decay-scheduler.decay-factor
#: and period-ms defaults: 0.5 and 5,000 ms)
DECAY = 0.5
PERIOD = 5.0
#: callers whose costs are kept at most (the cheapest are forgotten first: they start again at 0)
MAX_CALLERS = 10_000
_FORGET = 1e-6  # a cost this small is forgotten
#: the page's session cookie (``corescheduler.service.api.COOKIE``; named here, not imported: the API imports this)
SESSION_COOKIE = b"corescheduler_session"

Key = tuple[Any, ...]


def is_read(scope: dict[str, Any]) -> bool:
    """A read of jobs, their tasks and results, or the ``/scheduler`` page (what reads the ledger)."""
    if scope.get("method") not in ("GET", "HEAD"):
        return False
    path = scope.get("path", "")
    return path == "/scheduler" or path == "/api/v1/jobs" or path.startswith("/api/v1/jobs/")


class ReadTurns:
    """Who reads next: one read at a time, the caller with the least recent read time first."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        #: a read holds the turn
        self.busy = False
        #: (caller's cost when it asked, order of asking, its wake-up) for reads waiting
        self._waiting: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        #: each caller's recent read time (seconds, decayed)
        self.costs: dict[Key, float] = {}
        self._decayed = clock()
        #: reads admitted so far, and how many of them waited for a turn
        self.admitted = 0
        self.waited = 0

    @property
    def waiting(self) -> int:
        """Reads waiting for their turn now."""
        return sum(1 for _, _, f in self._waiting if not f.done())

    async def enter(self, key: Key) -> None:
        """Returns when ``key``'s read has the turn; :meth:`leave` gives it back."""
        self.admitted += 1
        if not self.busy and not self._waiting:
            self.busy = True
            return
        self.waited += 1
        wake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (self.costs.get(key, 0.0), next(self._order), wake))
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
        while self._waiting:
            _, _, wake = heapq.heappop(self._waiting)
            if not wake.done():  # a read whose client went away while it waited is skipped
                self.busy = True
                wake.set_result(None)
                return

    def _charge(self, key: Key, seconds: float) -> None:
        now = self.clock()
        periods = int((now - self._decayed) / PERIOD)
        if periods:
            self._decayed += periods * PERIOD
            factor = DECAY ** periods
            self.costs = {k: c * factor for k, c in self.costs.items() if c * factor > _FORGET}
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


def caller(scope: dict[str, Any]) -> Key:
    """Whose read cost a request adds to: the credential it presents (a digest of its
    ``Authorization`` header or its cookies, never the secret itself), so that a tenant's reads
    share one cost however many connections it opens; without one, its connection (client
    host and port).  The credential is not checked here (the handler does): a forged one
    only buys a read that is refused at once."""
    headers = scope.get("headers") or ()
    for name, value in headers:  # the credential the API reads, whatever comes before it
        if name == b"authorization":
            scheme, _, token = value.strip().partition(b" ")
            if scheme.lower() == b"bearer":  # as the API reads it: "bearer  T " is T's too
                value = b"Bearer " + token.strip()
            return ("credential", hashlib.sha256(name + b"\0" + value).hexdigest()[:32])
    for name, value in headers:  # the page's: its session cookie alone, not the other cookies sent
        if name == b"cookie":
            for part in value.split(b";"):
                key, _, sid = part.strip().partition(b"=")
                if key == SESSION_COOKIE and sid:
                    return ("credential", hashlib.sha256(b"cookie\0" + sid).hexdigest()[:32])
    client = scope.get("client")
    return tuple(client) if client else ("-",)


class ReadGate:
    """ASGI middleware: the reads ``reads`` names (:func:`is_read`) take turns through
    ``turns``; every other request passes untouched.  A read holds its turn until its
    response starts (or it fails), except while it waits in :func:`off_turn`."""

    def __init__(self, app: Any, turns: ReadTurns, reads: Callable[[dict[str, Any]], bool] = is_read) -> None:
        self.app = app
        self.turns = turns
        self.reads = reads

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not self.reads(scope):
            await self.app(scope, receive, send)
            return
        turn = Turn(self.turns, caller(scope))
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
