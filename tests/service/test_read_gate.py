"""Reads take turns on the event loop (issue 26 item 5): one read of the ledger's data at a
time, the connection with the least recent read time first; every other request passes at
once, so a ``/healthz``, a submit or a scheduling step waits behind one read at most."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from corescheduler.service.gate import (
    DECAY,
    LIGHT,
    MAX_CALLERS,
    PERIOD,
    ReadGate,
    ReadTurns,
    caller,
    is_read,
    off_turn,
)


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


def _scope(path: str, port: int, method: str = "GET", host: str | None = None) -> dict[str, Any]:
    """A request from ``host`` (by default one host per ``port``: callers count by host)."""
    return {"type": "http", "method": method, "path": path,
            "client": (host or f"10.0.{port // 256 % 256}.{port % 256}", port)}


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
        gate = ReadGate(app, ReadTurns(clock=clock, probe=False))
        hold = "/api/v1/jobs/big"
        app.release = {hold: asyncio.Event()}
        first = _call(gate, hold, 5000)  # the heavy reader holds the turn for 2 s
        await _settle()
        clock.now += 2.0
        app.release[hold].set()
        await asyncio.wait_for(first, 10)
        assert gate.turns.costs[caller(_scope(hold, 5000))] == pytest.approx(2.0)
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
    turns = ReadTurns(clock=clock, probe=False)
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
    """Costs count by the user a known credential names (``identify``), else by the client's
    host: a tenant or an anonymous reader that opens a fresh connection for every read does
    not start at cost 0 each time (and so cannot go first among waiting reads for ever)."""
    known = {b"Bearer alice-token": "alice", b"Bearer alice-second-token": "alice", b"Bearer bob-token": "bob"}

    def identify(scope: dict[str, Any]) -> str | None:
        return next((known.get(v) for n, v in scope.get("headers", ()) if n == b"authorization"), None)

    def with_header(port: int, value: bytes, host: str = "127.0.0.1") -> dict[str, Any]:
        return {**_scope("/api/v1/jobs/1", port, host=host), "headers": [(b"authorization", value)]}

    one, two = with_header(5000, b"Bearer alice-token"), with_header(5001, b"Bearer alice-second-token", "10.0.0.9")
    assert caller(one, identify) == caller(two, identify) == ("user", "alice")
    assert caller(with_header(5002, b"Bearer bob-token"), identify) == ("user", "bob")
    assert b"alice-token" not in repr(caller(one, identify)).encode()
    # anonymous, or a credential the service does not know: the host, whatever the connection
    for scope in (_scope("/api/v1/jobs/1", 5000, host="127.0.0.1"), _scope("/api/v1/jobs/1", 5003, host="127.0.0.1"),
                  with_header(5004, b"Bearer made-up"), with_header(5005, b"Bearer other-made-up")):
        assert caller(scope, identify) == ("host", "127.0.0.1")
    assert caller(with_header(5000, b"Bearer made-up", "10.0.0.7"), identify) == ("host", "10.0.0.7")
    assert caller(one) == ("host", "127.0.0.1")  # no identify: no credential is known


def test_a_hostile_anonymous_reader_cannot_start_afresh() -> None:
    """Through the service's own app (a tokens file): an anonymous reader that opens a new
    connection for each read and sends a made-up token or session cookie with it adds every
    read's cost to its host's; a valid token's reads count for its user from any host."""
    import types

    import httpx

    from corescheduler.service.api import Principal, create_app

    app = create_app(types.SimpleNamespace(), {"alice-token": Principal("alice")}, manage=False)
    turns: ReadTurns = app.state.read_turns

    async def main() -> None:
        attempts = [({}, 4000), ({"authorization": "Bearer made-up-1"}, 4001),
                    ({"authorization": "Bearer made-up-2"}, 4002), ({"cookie": "corescheduler_session=forged"}, 4003),
                    ({"cookie": "anything=else"}, 4004), ({"authorization": "Basic eDp5"}, 4005)]
        for headers, port in attempts:  # each its own connection (client port), as a hostile reader would
            transport = httpx.ASGITransport(app=app, client=("10.1.2.3", port))
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
                # limit=0 is refused before any ledger read: the read still took its turn
                r = await c.get("/api/v1/jobs/job_0001/tasks?limit=0", headers=headers)
                assert r.status_code in (400, 401)
        for host, port in (("10.1.2.3", 4010), ("10.9.9.9", 4011)):
            transport = httpx.ASGITransport(app=app, client=(host, port))
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
                r = await c.get("/api/v1/jobs/job_0001/tasks?limit=0", headers={"authorization": "Bearer alice-token"})
                assert r.status_code == 400

    asyncio.run(main())
    assert set(turns.costs) == {("host", "10.1.2.3"), ("user", "alice")}
    assert turns.admitted == 8


def test_the_gap_follows_the_loops_lateness() -> None:
    """Over the target the gap doubles (from its floor, up to its ceiling); under half of it
    the gap shortens step by step, down to none; in between it stays."""
    turns = ReadTurns(lag_target=0.002, max_gap=0.1, probe=False)
    assert turns.gap == 0.0
    for _ in range(40):
        turns.note_lag(0.02)
    assert turns.gap == 0.1 and turns.lag > 0.002
    gaps = []
    for _ in range(1000):
        turns.note_lag(0.0)
        gaps.append(turns.gap)
        if turns.gap == 0.0:
            break
    assert gaps[-1] == 0.0 and gaps == sorted(gaps, reverse=True)
    turns.gap, turns.lag = 0.05, 0.0015
    turns.note_lag(0.0015)  # between half the target and the target: kept
    assert turns.gap == 0.05


def test_the_target_is_over_the_loops_lateness_without_reads() -> None:
    """A loop late by itself (a busy machine: 10 ms without any read) does not close the
    readers out: the gap opens only when reads make it later than that by the target."""
    turns = ReadTurns(lag_target=0.002, max_gap=0.1, probe=False)
    for _ in range(200):
        turns.note_lag(0.010, reading=False)
    assert abs(turns.base_lag - 0.010) < 0.0005 and turns.gap == 0.0
    for _ in range(50):
        turns.note_lag(0.011)  # reads add 1 ms: under the target
    assert turns.gap == 0.0
    for _ in range(50):
        turns.note_lag(0.020)  # reads add 10 ms: over it
    assert turns.gap == 0.1


def test_a_heavy_callers_reads_wait_for_the_gap_a_light_callers_do_not() -> None:
    """While the gap is on, a heavy caller's next read starts no earlier than the gap after its
    last one; a light caller's read (a job's status polled now and then) starts at once."""
    heavy, light = ("host", "10.0.0.1"), ("host", "10.0.0.2")

    async def run() -> None:
        clock = Clock()
        turns = ReadTurns(clock=clock, probe=False)
        turns.costs[heavy] = 10 * LIGHT
        turns.gap = 0.05
        await asyncio.wait_for(turns.enter(heavy), 10)  # no heavy read before: at once
        clock.now += 0.001
        turns.leave(heavy, 0.001)
        second = asyncio.ensure_future(turns.enter(heavy))
        await _settle()
        assert not second.done() and turns.spaced == 1  # waits for the gap
        await asyncio.wait_for(turns.enter(light), 10)  # the light caller goes at once
        assert not second.done()
        clock.now += 0.001
        turns.leave(light, 0.001)
        await _settle()
        assert not second.done()  # the gap has not passed on the service's clock
        clock.now += 0.05
        await asyncio.wait_for(second, 10)  # the timer admits it once the gap has passed
        assert turns.busy
        turns.leave(heavy, 0.001)
        turns.gap = 0.0
        await asyncio.wait_for(turns.enter(heavy), 10)  # no gap: at once
        turns.close()

    asyncio.run(run())


def test_a_loop_running_late_opens_the_gap() -> None:
    """The probe runs while reads come and sees the loop late (here: blocked for 60 ms by a
    callback), and the gap opens."""
    import time

    async def run() -> None:
        turns = ReadTurns(max_gap=0.1)
        await turns.enter(("host", "10.0.0.1"))
        turns.leave(("host", "10.0.0.1"), 0.001)
        assert turns.gap == 0.0
        time.sleep(0.06)  # the loop blocked: the probe's timer fires late
        for _ in range(100):
            await asyncio.sleep(0.01)
            if turns.gap > 0.0:
                break
        assert turns.gap > 0.0 and turns.lag > 0.0
        turns.close()

    asyncio.run(run())


def test_a_tenant_cannot_mint_fresh_costs_with_what_the_api_ignores() -> None:
    """Review: what the API does not read (another cookie sent before the token, the case and
    spacing of "Bearer") does not make a new caller: through the service's own app, each
    such read counts for the token's user — else a tenant with one token sends a new junk
    cookie with every read and goes first among waiting reads for ever."""
    import types

    import httpx

    from corescheduler.service.api import Principal, create_app

    app = create_app(types.SimpleNamespace(), {"alice-token": Principal("alice")}, manage=False)
    turns: ReadTurns = app.state.read_turns

    async def main() -> None:
        for port, headers in enumerate(({"cookie": "junk=1", "authorization": "Bearer alice-token"},
                                        {"cookie": "junk=2", "authorization": "Bearer alice-token"},
                                        {"authorization": "bearer   alice-token"},
                                        {"authorization": "BEARER alice-token "}), start=6000):
            transport = httpx.ASGITransport(app=app, client=("10.3.3.3", port))
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
                r = await c.get("/api/v1/jobs/job_0001/tasks?limit=0", headers=headers)
                assert r.status_code in (400, 401)

    asyncio.run(main())
    assert set(turns.costs) <= {("user", "alice"), ("host", "10.3.3.3")}
    assert ("user", "alice") in turns.costs


def test_an_anonymous_readers_connections_share_one_cost() -> None:
    """Review (was a strict xfail): an anonymous read counts by its client's host, not its
    connection, so a fresh connection per read does not start at cost 0."""
    one, two = _scope("/api/v1/jobs/1", 5000, host="10.2.2.2"), _scope("/api/v1/jobs/1", 5001, host="10.2.2.2")
    assert caller(one) == caller(two)
