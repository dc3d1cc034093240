"""Reads take turns on the event loop (issue 26 item 5): one read of the ledger's data at a
time, the connection with the least recent read time first; every other request passes at
once, so a ``/healthz``, a submit or a scheduling step waits behind one read at most."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from corescheduler.service.gate import DECAY, MAX_CALLERS, PERIOD, ReadGate, ReadTurns, caller, is_read, off_turn


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class App:
    """An ASGI app whose reads wait for their ``release`` event (per path) before answering."""

    def __init__(self) -> None:
        self.inside: list[str] = []
        self.most_inside = 0
        self.reads_inside = 0
        self.release: dict[str, asyncio.Event] = {}
        self.done: list[str] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope["path"]
        self.inside.append(path)
        self.reads_inside += is_read(scope)
        self.most_inside = max(self.most_inside, self.reads_inside)
        try:
            if path in self.release:
                await self.release[path].wait()
            if path.endswith("/fail"):
                raise RuntimeError("the handler fails")
            await send({"type": "http.response.start", "status": 200, "headers": []})
        finally:
            self.inside.remove(path)
            self.reads_inside -= is_read(scope)
        await send({"type": "http.response.body", "body": b"{}"})
        self.done.append(path)


def _scope(path: str, port: int, method: str = "GET") -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "client": ("127.0.0.1", port)}


async def _noop_receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b""}


async def _sink(message: dict[str, Any]) -> None:
    return None


def _call(gate: ReadGate, path: str, port: int, method: str = "GET") -> asyncio.Task[None]:
    return asyncio.ensure_future(gate(_scope(path, port, method), _noop_receive, _sink))


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


@pytest.mark.parametrize(("method", "path", "read"), [
    ("GET", "/api/v1/jobs", True), ("GET", "/api/v1/jobs/job_0001", True), ("HEAD", "/api/v1/jobs/x/tasks", True),
    ("GET", "/api/v1/jobs/job_0001/result", True), ("GET", "/scheduler", True),
    ("POST", "/api/v1/jobs", False), ("DELETE", "/api/v1/jobs/job_0001", False), ("GET", "/healthz", False),
    ("GET", "/metrics", False), ("GET", "/api/v1/pools", False), ("GET", "/api/v1/jobsx", False),
    ("POST", "/scheduler/login", False), ("GET", "/api/v1/openapi.json", False),
])
def test_what_takes_turns_is_what_reads_the_ledger(method: str, path: str, read: bool) -> None:
    assert is_read({"method": method, "path": path}) is read


def test_one_read_at_a_time_and_the_rest_pass_at_once() -> None:
    async def run() -> None:
        app = App()
        gate = ReadGate(app, ReadTurns())
        app.release = {f"/api/v1/jobs/j{i}": asyncio.Event() for i in range(4)}
        reads = [_call(gate, f"/api/v1/jobs/j{i}", 5000 + i) for i in range(4)]
        await _settle()
        assert app.inside == ["/api/v1/jobs/j0"] and gate.turns.waiting == 3
        # a health check, a submit and a cheap memory read pass while the reads wait
        for path, method in (("/healthz", "GET"), ("/api/v1/jobs", "POST"), ("/api/v1/pools", "GET")):
            await asyncio.wait_for(_call(gate, path, 6000, method), 10)
        assert app.done == ["/healthz", "/api/v1/jobs", "/api/v1/pools"]
        for i in range(4):
            app.release[f"/api/v1/jobs/j{i}"].set()
        await asyncio.wait_for(asyncio.gather(*reads), 10)
        assert app.most_inside == 1 and gate.turns.admitted == 4 and gate.turns.waited == 3
        assert not gate.turns.busy and gate.turns.waiting == 0

    asyncio.run(run())


def test_the_caller_that_read_least_goes_first() -> None:
    async def run() -> None:
        clock = Clock()
        app = App()
        gate = ReadGate(app, ReadTurns(clock=clock))
        hold = "/api/v1/jobs/big"
        app.release = {hold: asyncio.Event()}
        first = _call(gate, hold, 5000)  # the heavy reader holds the turn for 2 s
        await _settle()
        clock.now += 2.0
        app.release[hold].set()
        await asyncio.wait_for(first, 10)
        assert gate.turns.costs[("127.0.0.1", 5000)] == pytest.approx(2.0)
        app.release = {hold: asyncio.Event()}
        blocker = _call(gate, hold, 5001)  # another reader holds the turn now
        await _settle()
        heavy = [_call(gate, f"/api/v1/jobs/{i}/tasks", 5000) for i in range(3)]  # asked first
        await _settle()
        light = _call(gate, "/api/v1/jobs/small", 7000)  # asked last, never read before
        await _settle()
        app.release[hold].set()
        await asyncio.wait_for(asyncio.gather(blocker, light, *heavy), 10)
        order = [p for p in app.done if p != hold]
        assert order[0] == "/api/v1/jobs/small", order
        assert order[1:] == [f"/api/v1/jobs/{i}/tasks" for i in range(3)]  # the same cost: in order

    asyncio.run(run())


def test_a_read_gives_its_turn_back_when_its_answer_starts_not_when_it_is_sent() -> None:
    async def run() -> None:
        gate_open = asyncio.Event()
        started: list[str] = []

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            started.append(scope["path"])
            await send({"type": "http.response.start", "status": 200, "headers": []})
            if scope["path"] == "/api/v1/jobs/slow-to-send":
                await gate_open.wait()  # a large body still going out
            await send({"type": "http.response.body", "body": b"{}"})

        gate = ReadGate(app, ReadTurns())
        slow = _call(gate, "/api/v1/jobs/slow-to-send", 5000)
        await _settle()
        await asyncio.wait_for(_call(gate, "/api/v1/jobs/next", 5001), 10)
        assert started == ["/api/v1/jobs/slow-to-send", "/api/v1/jobs/next"]
        gate_open.set()
        await asyncio.wait_for(slow, 10)

    asyncio.run(run())


def test_a_failed_read_and_a_client_gone_give_the_turn_back() -> None:
    async def run() -> None:
        app = App()
        gate = ReadGate(app, ReadTurns())
        app.release = {"/api/v1/jobs/a/fail": asyncio.Event(), "/api/v1/jobs/b": asyncio.Event()}
        failing = _call(gate, "/api/v1/jobs/a/fail", 5000)
        await _settle()
        gone = _call(gate, "/api/v1/jobs/gone", 5001)  # waits, then its client goes away
        waiting = _call(gate, "/api/v1/jobs/b", 5002)
        await _settle()
        gone.cancel()
        await _settle()
        app.release["/api/v1/jobs/a/fail"].set()
        with pytest.raises(RuntimeError):
            await asyncio.wait_for(failing, 10)
        await _settle()
        assert app.inside == ["/api/v1/jobs/b"]  # the turn went past the cancelled read
        # a read given the turn and cancelled before it ran passes the turn on
        after = _call(gate, "/api/v1/jobs/c", 5003)
        await _settle()
        app.release["/api/v1/jobs/b"].set()
        await asyncio.wait_for(asyncio.gather(waiting, after), 10)
        assert "/api/v1/jobs/gone" not in app.done and not gate.turns.busy

    asyncio.run(run())


def test_a_read_granted_then_cancelled_passes_the_turn_on() -> None:
    async def run() -> None:
        turns = ReadTurns()
        await turns.enter(("a",))
        second = asyncio.ensure_future(turns.enter(("b",)))
        third = asyncio.ensure_future(turns.enter(("c",)))
        await _settle()
        turns.leave(("a",), 0.0)  # b is given the turn ...
        second.cancel()  # ... and its client goes away before it runs
        await _settle()
        assert third.done() and turns.busy
        turns.leave(("c",), 0.0)
        assert not turns.busy

    asyncio.run(run())


def test_a_read_waiting_for_a_reading_thread_gives_its_turn_back_meanwhile() -> None:
    async def run() -> None:
        thread_done = asyncio.Event()
        order: list[str] = []

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            path = scope["path"]
            order.append(f"start {path}")
            if path == "/api/v1/jobs/counting":
                async with off_turn():  # as Service.read does around its reading thread
                    await thread_done.wait()
                order.append("counting has its turn again")
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"{}"})

        turns = ReadTurns()
        gate = ReadGate(app, turns)
        counting = _call(gate, "/api/v1/jobs/counting", 5000)
        await _settle()
        assert not turns.busy  # waiting off the loop: no turn held
        await asyncio.wait_for(_call(gate, "/api/v1/jobs/other", 5001), 10)
        hold = asyncio.ensure_future(turns.enter(("holder",)))  # another read holds the turn ...
        await _settle()
        thread_done.set()
        await _settle()
        assert order[-1] == "start /api/v1/jobs/other"  # ... so the counting read waits for it
        turns.leave(("holder",), 0.0)
        await asyncio.wait_for(counting, 10)
        assert hold.done() and order == ["start /api/v1/jobs/counting", "start /api/v1/jobs/other",
                                         "counting has its turn again"]
        async with off_turn():  # outside a read: nothing to give back
            assert not turns.busy

    asyncio.run(run())


def test_costs_decay_and_stay_bounded() -> None:
    clock = Clock()
    turns = ReadTurns(clock=clock)
    turns._charge(("a",), 1.0)
    clock.now += PERIOD
    turns._charge(("b",), 1.0)
    assert turns.costs[("a",)] == pytest.approx(DECAY) and turns.costs[("b",)] == 1.0
    clock.now += 100 * PERIOD
    turns._charge(("c",), 0.5)
    assert set(turns.costs) == {("c",)}  # the others decayed to nothing: forgotten
    for i in range(MAX_CALLERS + 1):
        turns._charge((i,), 1.0 + i)
    assert len(turns.costs) <= MAX_CALLERS and (MAX_CALLERS,) in turns.costs  # the heaviest are kept


def test_a_tenants_connections_share_one_cost() -> None:
    """Costs count by the credential a request presents, not by its connection: a tenant
    that opens a fresh connection for every read does not start at cost 0 each time (and so
    cannot go first among waiting reads for ever); a request without one counts by its
    connection."""
    token = [(b"authorization", b"Bearer alice-token")]
    one = {**_scope("/api/v1/jobs/1", 5000), "headers": token}
    two = {**_scope("/api/v1/jobs/2", 5001), "headers": token}
    other = {**_scope("/api/v1/jobs/3", 5002), "headers": [(b"authorization", b"Bearer bob-token")]}
    assert caller(one) == caller(two) != caller(other)
    assert b"alice-token" not in repr(caller(one)).encode()
    assert caller(_scope("/api/v1/jobs/1", 5000)) == ("127.0.0.1", 5000)
    assert caller(_scope("/api/v1/jobs/1", 5000)) != caller(_scope("/api/v1/jobs/1", 5001))


def test_a_tenant_cannot_mint_fresh_costs_with_what_the_api_ignores() -> None:
    """Review: what the API does not read (another cookie sent before the token, the case and
    spacing of "Bearer") does not make a new caller — else a tenant with one token sends a new
    junk cookie with every read and goes first among waiting reads for ever."""
    token = {**_scope("/api/v1/jobs/1", 5000), "headers": [(b"authorization", b"Bearer alice-token")]}
    for headers in ([(b"cookie", b"junk=1"), (b"authorization", b"Bearer alice-token")],
                    [(b"cookie", b"junk=2"), (b"authorization", b"Bearer alice-token")],
                    [(b"authorization", b"bearer   alice-token")],
                    [(b"authorization", b"BEARER alice-token ")]):
        assert caller({**_scope("/api/v1/jobs/2", 5001), "headers": headers}) == caller(token), headers
    page = [(b"cookie", b"junk=1; corescheduler_session=abc")]
    again = [(b"cookie", b"corescheduler_session=abc; other=2")]
    assert caller({**_scope("/scheduler", 5000), "headers": page}) == \
        caller({**_scope("/scheduler", 5001), "headers": again})


@pytest.mark.xfail(strict=True, reason="an anonymous read counts by its connection (host and port): an anonymous "
                   "reader opening a fresh connection per read starts at cost 0 every time and goes first among "
                   "waiting reads (public_read = 'summary' lets it read without a token); fix: count anonymous "
                   "reads by the client host (test_the_caller_that_read_least_goes_first then needs two hosts)")
def test_an_anonymous_readers_connections_share_one_cost() -> None:
    assert caller(_scope("/api/v1/jobs/1", 5000)) == caller(_scope("/api/v1/jobs/1", 5001))
