"""A hostile tenant's review of ``serve`` (SPEC §8, §8b): what one tenant could learn of
another, or do to the service, before these fixes.  Each test is a request that was
answered wrongly; the service now gives one clear 4xx, logs no traceback, and stores
nothing for it.

The service is real (its API, scheduler and ledger) on 127.0.0.1; its engine is the API
fuzz's stand-in (attempts that never end unless killed), so nothing runs on this machine."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

from tests.service.conftest import free_port  # noqa: E402
from tests.service.test_api_fuzz import StandInEngine, _wait_attempts  # noqa: E402

pytestmark = pytest.mark.slow

ALICE = {"Authorization": "Bearer alice-token-1"}
BOB = {"Authorization": "Bearer bob-token-1"}
OPS = {"Authorization": "Bearer ops-token-1"}
CAROL = {"Authorization": "Bearer carol-token-1"}  # root.teams' aclAdministerApps in TEAMS
JSON = {"Content-Type": "application/json"}


class _Up:
    """The service on a stand-in engine, under uvicorn in a thread (stopped by the fixture)."""

    def __init__(self, config: dict[str, Any], state: Path, **options: Any) -> None:
        import uvicorn

        from corescheduler.config import Config
        from corescheduler.service.api import create_app
        from corescheduler.service.service import Service
        from corescheduler.service.tokens import Principal, TokenTable

        self.engine = StandInEngine()
        self.service = Service(Config.from_dict(config), state=str(state), backend=self.engine)  # type: ignore[arg-type]
        tokens = {"alice-token-1": Principal("alice"), "bob-token-1": Principal("bob"),
                  "carol-token-1": Principal("carol"), "ops-token-1": Principal("ops", admin=True)}
        self.app = create_app(self.service, TokenTable.from_plain(tokens))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                                    lifespan="on", **options))
        self.thread = threading.Thread(target=self.server.run, name="hostile-tenant-service", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started and time.monotonic() < deadline and self.thread.is_alive():
            time.sleep(0.05)
        if not self.server.started:
            self.stop()
            raise RuntimeError("the service did not start")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=60)


@pytest.fixture
def serve(monkeypatch, tmp_path) -> Iterator[Any]:
    from corescheduler.service import attempts as attempts_module

    monkeypatch.setattr(attempts_module, "wait_futures", _wait_attempts)
    started: list[_Up] = []

    def start(service: dict[str, Any] | None = None, **config: Any) -> _Up:
        config = {"cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 2, "reduce_slots": 1}, **config,
                  "service": {"tick": 0.1, **(service or {})}}
        up = _Up(config, tmp_path / f"state{len(started)}")
        started.append(up)
        return up

    yield start
    for up in started:
        up.stop()


def _strict(text: str) -> Any:
    """``text`` as strict JSON (RFC 8259: no NaN, no Infinity)."""
    def refuse(name: str) -> Any:
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_a_number_past_a_floats_range_is_refused_not_stored_as_infinity(serve) -> None:
    """``1e999`` is a JSON number Python reads as ``inf`` (no ``parse_constant`` is called for
    it, as for the literal ``Infinity``): the job was stored and its document answered with
    ``Infinity`` — a body no strict JSON client reads.  It is a 400 naming the number."""
    up = serve()
    task = '{"call": "math:fabs", "args": [NUMBER]}'
    with httpx.Client(base_url=up.url, timeout=30) as c:
        for body in ('{"maps": [' + task.replace("NUMBER", "1e999") + "]}",
                     '{"maps": [' + task.replace("NUMBER", "-1e400") + "]}",
                     '{"maps": [{"command": ["true"]}], "properties": {"k": 2e308}}',
                     '{"maps": [{"call": "math:fsum", "kwargs": {"x": [1, 1E+999]}}]}'):
            r = c.post("/api/v1/jobs", content=body, headers={**ALICE, **JSON})
            assert r.status_code == 400, (body, r.status_code, r.text)
            assert r.json()["field"] == "body" and "number" in r.json()["error"], r.text
        assert c.get("/api/v1/jobs", headers=OPS).json()["jobs"] == []  # nothing was stored
        # the largest finite numbers are numbers: accepted, and answered as strict JSON
        r = c.post("/api/v1/jobs", content='{"maps": [' + task.replace("NUMBER", "1.7976931348623157e308") + "]}",
                   headers={**ALICE, **JSON})
        assert r.status_code == 201, r.text
        got = c.get(f"/api/v1/jobs/{r.json()['id']}", headers=ALICE)
        assert _strict(got.text)["document"]["maps"][0]["args"] == [1.7976931348623157e308]


def test_public_read_none_shows_the_anonymous_no_pool_and_no_tenant_name(serve) -> None:
    """With ``public_read = "none"`` an anonymous reader got every pool's name from
    ``/pools``, ``/queues``, ``/metrics`` (its labels) and the page's pool table and chart —
    a job's default pool is its user's name, so each tenant's name.  Those need a token now
    (401 without); the page shows the sign-in form alone."""
    up = serve({"public_read": "none"})
    with httpx.Client(base_url=up.url, timeout=30) as c:
        for pool in (None, "zz-acquisition-of-initech"):
            r = c.post("/api/v1/jobs", json={"maps": [{"command": ["true"]}], **({"pool": pool} if pool else {})},
                       headers=ALICE)
            assert r.status_code == 201, r.text
        for _ in range(50):  # the chart has each pool's line
            if "alice" in up.service.history.samples:
                break
            time.sleep(0.1)
        secrets = ("alice", "zz-acquisition-of-initech")
        for path in ("/api/v1/pools", "/api/v1/queues", "/metrics", "/api/v1/nodes"):
            r = c.get(path)
            assert r.status_code == 401 and r.json()["field"] == "Authorization", (path, r.status_code, r.text[:300])
            assert not any(s in r.text for s in secrets), path
            r = c.get(path, headers=BOB)  # a tenant sees the pools (as YARN's queues page)
            assert r.status_code == 200, (path, r.text[:300])
        page = c.get("/scheduler")
        assert page.status_code == 200 and "id='login'" in page.text
        assert not any(s in page.text for s in secrets), page.text
        assert "alice" in c.get("/scheduler", headers=BOB).text  # a tenant's page has the pools
        assert c.get("/healthz").status_code == 200
    # the default (summary) keeps them public, as before
    up = serve()
    with httpx.Client(base_url=up.url, timeout=30) as c:
        assert c.post("/api/v1/jobs", json={"maps": [{"command": ["true"]}]}, headers=ALICE).status_code == 201
        for path in ("/api/v1/pools", "/metrics", "/api/v1/nodes", "/scheduler"):
            r = c.get(path)
            assert r.status_code == 200 and (path == "/api/v1/nodes" or "alice" in r.text), path


def test_a_refused_change_does_not_name_an_owner_the_caller_may_not_see(serve) -> None:
    """Under ``public_read = "none"`` a tenant may not learn who owns another's job, yet a
    refused kill, move or priority change said ``job job_0001 belongs to alice`` (so did the
    page's message after its form).  The refusal is still a 403, without the owner's name."""
    up = serve({"public_read": "none"})
    with httpx.Client(base_url=up.url, timeout=30) as c:
        job = c.post("/api/v1/jobs", json={"maps": [{"command": ["true"]}]}, headers=ALICE).json()["id"]
        for method, path, body in (("DELETE", f"/api/v1/jobs/{job}", None),
                                   ("PUT", f"/api/v1/jobs/{job}/pool", {"pool": "elsewhere"}),
                                   ("PUT", f"/api/v1/jobs/{job}/priority", {"priority": "HIGH"})):
            r = c.request(method, path, json=body, headers=BOB)
            assert r.status_code == 403 and r.json()["field"] == "id", (path, r.text)
            assert "alice" not in r.text, (path, r.text)
        r = c.post(f"/scheduler/jobs/{job}/kill", data={}, headers=BOB, follow_redirects=False)
        assert r.status_code == 303 and "alice" not in r.headers["location"], r.headers.get("location")
        assert c.get(f"/api/v1/jobs/{job}", headers=ALICE).json()["state"] != "killed"


def test_two_authorization_headers_are_refused(serve) -> None:
    """Two ``Authorization`` headers (two tokens) acted silently as the first; a proxy that
    checks the last would see another caller than the service.  One clear 401; nothing done."""
    up = serve()
    with httpx.Client(base_url=up.url, timeout=30) as c:
        for headers in ([("Authorization", "Bearer bob-token-1"), ("Authorization", "Bearer alice-token-1")],
                        [("Authorization", "Bearer alice-token-1"), ("authorization", "Bearer alice-token-1")]):
            r = c.post("/api/v1/jobs", json={"maps": [{"command": ["true"]}]}, headers=headers)
            assert r.status_code == 401 and r.json()["field"] == "Authorization", r.text
            assert "one" in r.json()["error"], r.text
            assert c.get("/api/v1/jobs", headers=headers).status_code == 401
        assert c.get("/api/v1/jobs", headers=OPS).json()["jobs"] == []


@pytest.mark.parametrize("name", ["invoice\u202egpj.exe", "a\u2066b", "x\u200fy", "\u061cz"])
def test_a_job_name_with_a_bidirectional_control_is_refused(name: str) -> None:
    """A job name holding a bidirectional control (``U+202E``) was stored; in ``corescheduler
    status``'s table (a terminal) it turns the rest of the line around, so a tenant's job
    showed another user and pool than its own.  Refused as in a pool name: a 400 naming it."""
    from corescheduler.service.jobs import JobFormatError, parse_job

    with pytest.raises(JobFormatError, match="bidirectional") as caught:
        parse_job({"name": name, "maps": [{"command": ["true"]}]})
    assert caught.value.field == "name"
    assert parse_job({"name": "déjà vu — 日本語", "maps": [{"command": ["true"]}]}).name == "déjà vu — 日本語"


def test_a_client_gone_before_its_body_ended_leaves_no_traceback(serve) -> None:
    """A client that sends part of a body and goes (a timeout mid-write) made each request
    log ``Exception in ASGI application`` with a ``ClientDisconnect`` traceback; nothing is
    stored for it and the log holds no traceback."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    keep = Keep(level=logging.WARNING)
    up = serve()  # (uvicorn's logging configuration is set when it starts: the handler after)
    watched = [logging.getLogger(n) for n in ("uvicorn.error", "uvicorn", "corescheduler")]
    for lg in watched:
        lg.addHandler(keep)
    try:
        with httpx.Client(base_url=up.url, timeout=30) as c:
            job = c.post("/api/v1/jobs", json={"maps": [{"command": ["true"]}]}, headers=ALICE).json()["id"]
            for method, path in (("POST", "/api/v1/jobs"), ("PUT", f"/api/v1/jobs/{job}/pool"),
                                 ("POST", "/scheduler/login"), ("PUT", "/api/v1/admin/scheduling-mode")):
                with socket.create_connection(("127.0.0.1", up.port), timeout=10) as s:
                    s.sendall(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer alice-token-1"
                              "\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n".encode()
                              + b'{"maps": [')
                    time.sleep(0.2)
            with socket.create_connection(("127.0.0.1", up.port), timeout=10) as s:  # chunked, then gone
                s.sendall(b"POST /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer alice-token-1"
                          b"\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"map\r\n")
                time.sleep(0.2)
            for _ in range(50):  # the server has seen each connection close
                if c.get("/healthz").status_code == 200 and len(c.get("/api/v1/jobs", headers=OPS).json()["jobs"]) == 1:
                    break
                time.sleep(0.1)
            assert [j["id"] for j in c.get("/api/v1/jobs", headers=OPS).json()["jobs"]] == [job]
            assert c.get(f"/api/v1/jobs/{job}", headers=ALICE).json()["pool"] == "alice"
        time.sleep(0.3)
    finally:
        for lg in watched:
            lg.removeHandler(keep)
    assert not [r for r in records if r.exc_info], [r.getMessage() for r in records]
    assert not [r for r in records if r.levelno >= logging.ERROR], [r.getMessage() for r in records]


def test_a_job_property_nested_deep_is_a_400_not_a_500(serve) -> None:
    """A job's ``properties`` were not bounded in depth as a call's ``args`` are: a body over
    256 KB (read in a thread, a shallow stack) holding a property nested ~985 deep was
    accepted by the reader, then failed to be written (``RecursionError`` encoding it on
    the loop): a 500 with a traceback.  One nested deeper than ``MAX_DEPTH`` is a 400 naming
    ``properties``; nothing is stored."""
    from corescheduler.service.jobs import MAX_DEPTH

    up = serve()
    with httpx.Client(base_url=up.url, timeout=30) as c:
        for depth, pad in ((MAX_DEPTH + 1, 0), (300, 0), (985, 300_000)):
            nested = "[" * depth + "]" * depth
            body = '{"maps": [{"command": ["true"]}], "properties": {"pad": "' + "p" * pad + '", "x": ' + nested + "}}"
            r = c.post("/api/v1/jobs", content=body, headers={**ALICE, **JSON})
            assert r.status_code == 400 and r.json()["field"] == "properties", (depth, r.status_code, r.text[:300])
            assert str(MAX_DEPTH) in r.json()["error"]
        assert c.get("/api/v1/jobs", headers=OPS).json()["jobs"] == []
        kept = {"a": {"b": ["c"]}}  # a property nested a little is kept as it was
        r = c.post("/api/v1/jobs", json={"maps": [{"command": ["true"]}], "properties": {"x": kept}}, headers=ALICE)
        assert r.status_code == 201, r.text
        assert c.get(f"/api/v1/jobs/{r.json()['id']}", headers=ALICE).json()["document"]["properties"]["x"] == kept


def test_a_ledger_row_python_cannot_decode_fails_that_job_and_the_service_starts(serve, tmp_path) -> None:
    """A ledger whose job document Python's reader cannot decode (nested past its recursion
    limit: written by an older version that bounded nothing, or by hand) stopped the
    service at start (``RecursionError`` out of the restore): no tenant could use it.  That
    job is failed, ``could not be restored``; the others are restored."""
    import sqlite3

    up = serve()
    with httpx.Client(base_url=up.url, timeout=30) as c:
        ids = [c.post("/api/v1/jobs", json={"maps": [{"command": ["true"]}]}, headers=who).json()["id"]
               for who in (ALICE, BOB)]
    up.stop()
    db = sqlite3.connect(str(tmp_path / "state0" / "state.db"))
    try:
        deep = '{"maps": [{"command": ["true"]}], "properties": {"x": ' + "[" * 5000 + "]" * 5000 + "}}"
        with db:
            db.execute("UPDATE jobs SET document = ? WHERE id = ?", (deep, ids[0]))
    finally:
        db.close()
    again = _Up({"cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 2, "reduce_slots": 1},
                 "service": {"tick": 0.1}}, tmp_path / "state0")
    try:
        with httpx.Client(base_url=again.url, timeout=30) as c:
            hostile = c.get(f"/api/v1/jobs/{ids[0]}", headers=BOB)  # (its summary: no document)
            assert hostile.status_code == 200 and hostile.json()["state"] == "failed", hostile.text[:300]
            assert "could not be restored" in again.service.store.job(ids[0])["error"]
            assert c.get(f"/api/v1/jobs/{ids[1]}", headers=BOB).json()["state"] in ("accepted", "running")
            assert list(again.service.scheduler.jobs) == [ids[1]]
    finally:
        again.stop()


TEAMS = """<?xml version="1.0"?>
<allocations>
  <queue name="root">
    <queue name="teams"><aclAdministerApps>carol</aclAdministerApps><queue name="a"/></queue>
    <queue name="other"/>
  </queue>
</allocations>
"""


def test_the_job_list_under_public_read_none_gives_no_cursor_to_anothers_job(serve, tmp_path) -> None:
    """Under ``public_read = "none"`` a tenant's job list hid the others' jobs but its ``next``
    cursor was the last row read, whoever's: ``GET /jobs?state=killed&limit=1`` answered
    ``{"jobs": [], "next": "job_0002"}`` — alice's job, and that it was killed — and paging
    on walked every hidden job of that state.  A tenant's pages (and cursors) are its own
    jobs and those of the queues it administers."""
    alloc = tmp_path / "fair-scheduler.xml"
    alloc.write_text(TEAMS)
    up = serve({"public_read": "none"}, scheduler={"mode": "resources", "allocation_file": str(alloc)})
    with httpx.Client(base_url=up.url, timeout=30) as c:
        def submit(headers: dict[str, str], queue: str) -> str:
            r = c.post("/api/v1/jobs", json={"queue": queue, "maps": [{"command": ["true"]}]}, headers=headers)
            assert r.status_code == 201, r.text
            return r.json()["id"]

        alice = [submit(ALICE, "root.teams.a"), submit(ALICE, "root.other"), submit(ALICE, "root.other")]
        assert c.delete(f"/api/v1/jobs/{alice[1]}", headers=ALICE).status_code == 200
        assert c.delete(f"/api/v1/jobs/{alice[2]}", headers=ALICE).status_code == 200
        bob = [submit(BOB, "root.other"), submit(BOB, "root.other")]
        assert c.delete(f"/api/v1/jobs/{bob[0]}", headers=BOB).status_code == 200

        def walk(headers: dict[str, str], state: str | None = None) -> tuple[list[str], list[str]]:
            seen, cursors, after = [], [], None
            for _ in range(20):
                query = {"limit": 1, **({"state": state} if state else {}), **({"after": after} if after else {})}
                page = c.get("/api/v1/jobs", params=query, headers=headers)
                assert page.status_code == 200, page.text
                seen += [j["id"] for j in page.json()["jobs"]]
                after = page.json()["next"]
                if after is None:
                    break
                cursors.append(after)
            return seen, cursors

        for state in (None, "killed", "accepted", "running"):
            seen, cursors = walk(BOB, state)
            assert set(seen) <= set(bob) and set(cursors) <= set(bob), (state, seen, cursors)
            assert set(seen) == {j for j in bob if state is None
                                 or c.get(f"/api/v1/jobs/{j}", headers=BOB).json()["state"] == state}, (state, seen)
        assert set(walk(ALICE)[0]) == set(alice)
        assert set(walk(OPS)[0]) == set(alice) | set(bob)
        assert walk(CAROL) == ([alice[0]], [])  # the queue's administrator: root.teams.a's job


def _exchange(port: int, head: bytes, body: bytes = b"") -> bytes:
    """What the service answers a raw request (its head sent in 64 KB pieces, as a client
    would), until it closes the connection or 10 s pass."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        try:
            for i in range(0, len(head), 65536):
                s.sendall(head[i:i + 65536])
            s.sendall(body)
        except OSError:  # refused mid-head: the service closed the connection
            pass
        answer = b""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and b"\r\n\r\n" not in answer:
            try:
                chunk = s.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            answer += chunk
        return answer


def test_a_request_head_past_hadoops_header_buffer_is_a_431(serve, tmp_path, monkeypatch) -> None:
    """uvicorn's C parser read a request's head of any size: an 8 MB ``Authorization`` header
    was read whole and answered (a larger one takes the service's memory, every tenant's).
    ``serve`` bounds a head as Hadoop's ``HttpServer2`` does (``hadoop.http.max.request.header.size``,
    65,536 bytes): past it, a 431 and the connection closed, before the API sees it."""
    from review.test_review_forwarded_for import serve_options

    from corescheduler.service.httplimit import MAX_HEAD

    options = serve_options(tmp_path, monkeypatch)  # what `corescheduler serve` gives uvicorn
    monkeypatch.undo()
    from corescheduler.service import attempts as attempts_module

    monkeypatch.setattr(attempts_module, "wait_futures", _wait_attempts)
    kept = {k: v for k, v in options.items() if k not in ("host", "port", "log_config", "lifespan")}
    assert "http" in kept, options
    up = _Up({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
              "service": {"tick": 0.1}}, tmp_path / "state", **kept)
    try:
        for size in (8 << 20, MAX_HEAD):
            head = b"GET /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + b"a" * size + b"\r\n\r\n"
            answer = _exchange(up.port, head)
            assert answer.startswith(b"HTTP/1.1 431 "), (size, answer[:300])
            assert b'"field": "headers"' in answer and str(MAX_HEAD).encode() in answer
        many = b"".join(b"X-Pad-%d: %s\r\n" % (i, b"v" * 100) for i in range(1000))  # 110 KB of headers
        answer = _exchange(up.port, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many + b"\r\n")
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:300]
        # a head under the bound is the API's to answer; a large body is not a head
        head = b"GET /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + b"a" * 60000 + b"\r\n\r\n"
        assert _exchange(up.port, head).startswith(b"HTTP/1.1 401 ")
        doc = json.dumps({"name": "big", "maps": [{"command": ["true"], "env": {"PAD": "p" * 600_000}}]}).encode()
        head = (b"POST /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer alice-token-1\r\n"
                b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(doc))
        assert _exchange(up.port, head, doc).startswith(b"HTTP/1.1 201 ")
        with httpx.Client(base_url=up.url, timeout=30) as c:
            assert c.get("/healthz").status_code == 200
            assert [j["name"] for j in c.get("/api/v1/jobs", headers=OPS).json()["jobs"]] == ["big"]
    finally:
        up.stop()


def test_the_page_shows_only_the_messages_it_wrote(serve) -> None:
    """``/scheduler?message=…`` showed any text in the page's own error style, on the
    service's own address: a tenant could send an admin a link reading "Your session
    expired: sign in again at http://evil.example".  A message is shown only when the
    service wrote it (its redirect after a refused form carries a signature); any other
    is ignored."""
    up = serve()
    with httpx.Client(base_url=up.url, timeout=30) as c:
        bait = "Your session expired: sign in again at http://evil.example"
        for query in ({"message": bait}, {"message": bait, "sig": "0" * 64}, {"message": bait, "sig": ""}):
            page = c.get("/scheduler", params=query)
            assert page.status_code == 200 and "evil.example" not in page.text, query
            assert "id='message'" not in page.text
        job = c.post("/api/v1/jobs", json={"maps": [{"command": ["true"]}]}, headers=ALICE).json()["id"]
        refused = c.post(f"/scheduler/jobs/{job}/kill", data={}, headers=BOB, follow_redirects=False)
        assert refused.status_code == 303
        shown = c.get(refused.headers["location"])  # the service's own message is shown
        assert "id='message'" in shown.text and "may change it" in shown.text, shown.text[:500]
        # a signature is for its own message only
        location = httpx.URL(refused.headers["location"])
        forged = c.get("/scheduler", params={"message": bait, "sig": location.params.get("sig", "")})
        assert "evil.example" not in forged.text


@pytest.mark.parametrize("terminal", [True, False])
def test_status_shows_a_tasks_error_without_its_terminal_controls(monkeypatch, terminal: bool) -> None:
    """A task's error is its own text (stderr's tail, its exception): a hostile tenant's task
    wrote terminal controls there — ``ESC [2J`` clears the screen, ``ESC ]52`` sets the
    clipboard, ``U+202E`` turns the line around — and ``corescheduler status`` printed them
    raw to the terminal of an admin (or a queue's administrator) reading the job list (rich
    keeps ESC).  A cell shows each control as its escape (``\\x1b``)."""
    from click.testing import CliRunner

    import corescheduler.cli.common as common
    from corescheduler.cli import cli
    from corescheduler.client import Client

    hostile = "boom\x1b[2J\x1b]52;c;ZWNobyBwd25lZA==\x07\u202eenilno\x9b31m"
    job = {"id": "job_0001", "user": "mallory", "pool": "default", "state": "failed",
           "maps": {"finished": 0, "total": 1}, "reduces": {"finished": 0, "total": 0}, "error": hostile}
    monkeypatch.setattr(Client, "jobs_page", lambda self, *a, **k: {"jobs": [job], "next": None})
    monkeypatch.setattr(common, "stdout_is_terminal", lambda: terminal)
    out = CliRunner().invoke(cli, ["status", "--url", "http://127.0.0.1:9"])
    assert out.exit_code == 0, out.output
    cell = out.output.replace("\x1b[1m", "").replace("\x1b[0m", "")  # (rich's own header style)
    for control in ("\x1b[2J", "\x1b]52", "\x07", "\u202e", "\x9b"):
        assert control not in cell, (control, out.output)
    assert "boom\\x1b[2J" in out.output.replace("\n", "").replace(" ", "").replace("│", ""), out.output
