"""A hostile tenant against the live service (issue 26, SPEC §8b): credentials are out of a
task's reach, a tenant reads only its own jobs, no secret lands in a URL or a log line, and no
request — lone surrogates, NUL, over-long names, a ledger that fails — breaks the service or
makes the scheduler and the ledger disagree."""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import stat
import time
from pathlib import Path

import pytest

from tests.cli_helpers import assert_user_error, run

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

from corescheduler.service.tokens import Principal, hash_token, load_tokens  # noqa: E402

pytestmark = pytest.mark.slow

ENDED = ("finished", "failed", "killed")
#: what anyone may see of another tenant's job
SUMMARY = {"id", "name", "user", "pool", "priority", "state", "submitted", "started", "ended", "maps", "reduces"}


def _add_token(path: Path, user: str, *extra: str) -> str:
    result = run("token", "add", user, "--tokens", str(path), *extra)
    assert result.exit_code == 0, result.output
    token = result.stdout.strip()
    assert re.fullmatch(r"[A-Za-z0-9_-]{32,}", token), result.stdout
    return token


def _wait(c, job_id: str, headers: dict, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    job = c.get(f"/api/v1/jobs/{job_id}", headers=headers).json()
    while time.monotonic() < deadline and job["state"] not in ENDED:
        time.sleep(0.1)
        job = c.get(f"/api/v1/jobs/{job_id}", headers=headers).json()
    return job


def _all_answer(c, headers: dict, job_id: str | None = None) -> None:
    for path in ("/api/v1/pools", "/metrics", "/scheduler", "/api/v1/jobs", "/api/v1/nodes", "/healthz"):
        r = c.get(path, headers=headers)
        assert r.status_code == 200, (path, r.status_code, r.text[:300])
    if job_id is not None:
        assert c.get(f"/api/v1/jobs/{job_id}", headers=headers).status_code == 200


# --------------------------------------------------------------------------- tokens and files


def test_token_add_stores_only_a_hash_and_the_file_is_private(tmp_path) -> None:
    path = tmp_path / "tokens.toml"
    alice = _add_token(path, "alice", "--group", "eng", "--group", "ops")
    root = _add_token(path, "root", "--admin")
    assert alice != root
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text()
    assert alice not in text and root not in text
    assert hash_token(alice) in text and hash_token(alice).startswith("sha256:")
    table = load_tokens(path)
    assert table.warnings == []
    assert table.lookup(alice) == Principal("alice", ("eng", "ops"), False)
    assert table.lookup(root) == Principal("root", (), True)
    for guess in (hash_token(alice), hash_token(alice)[7:], alice[:-1], alice + "x", "", root.upper()):
        assert table.lookup(guess) is None, guess
    # a broken file is not appended to
    bad = tmp_path / "bad.toml"
    bad.write_text("tokens = [")
    bad.chmod(0o600)
    assert_user_error(run("token", "add", "x", "--tokens", str(bad)), str(bad), "not valid TOML")
    assert bad.read_text() == "tokens = ["
    assert_user_error(run("token", "add", "a\nb", "--tokens", str(path)), "user")


def test_a_plain_token_loads_with_a_warning_naming_its_line(tmp_path) -> None:
    path = tmp_path / "tokens.toml"
    path.write_text(f'[tokens."{hash_token("hashed-secret-1")}"]\nuser = "alice"\n\n'
                    '[tokens."plain-secret-22"]\nuser = "bob"\n')
    table = load_tokens(path)
    assert table.lookup("plain-secret-22") == Principal("bob")
    assert table.lookup("hashed-secret-1") == Principal("alice")
    assert len(table.warnings) == 1 and f"{path}:4" in table.warnings[0]
    assert "plain-secret-22" not in table.warnings[0]  # a warning never repeats the secret
    path.write_text('[tokens."sha256:abc"]\nuser = "alice"\n')
    with pytest.raises(Exception, match="64 hex"):
        load_tokens(path)


@pytest.mark.parametrize(("target", "mode"), [("tokens", 0o640), ("tokens", 0o604), ("tokens", 0o602),
                                             ("state", 0o755), ("state", 0o730)])
def test_serve_refuses_files_others_can_read(tmp_path, target, mode) -> None:
    tokens = tmp_path / "tokens.toml"
    _add_token(tokens, "alice")
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    (tokens if target == "tokens" else state).chmod(mode)
    where = tokens if target == "tokens" else state
    line = assert_user_error(run("serve", "--tokens", str(tokens), "--state", str(state), "--port", "0"),
                             str(where), "chmod")
    assert f"chmod {'600' if target == 'tokens' else '700'} {where}" in line


def test_serve_without_tokens_listens_only_on_loopback(tmp_path) -> None:
    assert_user_error(run("serve", "--host", "0.0.0.0", "--port", "0"), "--tokens", "0.0.0.0")


def test_the_ledger_is_created_private(tmp_path) -> None:
    from corescheduler.service.store import Store

    old = os.umask(0o022)
    try:
        store = Store(tmp_path / "state")
        store.close()
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "state").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "state" / "state.db").stat().st_mode) == 0o600


# --------------------------------------------------------------------------- the live service

ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <queue name="root">
    <queue name="teams">
      <aclAdministerApps>carol</aclAdministerApps>
      <queue name="a"/>
    </queue>
    <queue name="other"/>
  </queue>
</allocations>
"""


def _tenants(tmp_path: Path) -> tuple[Path, dict[str, dict[str, str]]]:
    path = tmp_path / "tokens.toml"
    users = {name: _add_token(path, name, *flags)
             for name, flags in (("alice", ()), ("bob", ()), ("carol", ()), ("ops", ("--admin",)))}
    return path, {name: {"Authorization": f"Bearer {token}"} for name, token in users.items()}


def test_a_task_hunting_for_credentials_finds_nothing_the_api_accepts(live_service, tmp_path) -> None:
    path, auth = _tenants(tmp_path)
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1}}, tokens=load_tokens(path))
    hunt = (f"echo HUNT-RAN; cat {path} 2>/dev/null; env; tr '\\0' '\\n' < /proc/{os.getpid()}/cmdline 2>/dev/null; "
            f"tr '\\0' '\\n' < /proc/{os.getpid()}/environ 2>/dev/null; true")
    with httpx.Client(base_url=live.url, timeout=30) as c:
        job = c.post("/api/v1/jobs", json={"maps": [{"command": ["sh", "-c", hunt]}]}, headers=auth["bob"]).json()
        assert _wait(c, job["id"], auth["bob"])["state"] == "finished"
        found = c.get(f"/api/v1/jobs/{job['id']}/result", headers=auth["bob"]).json()["result"][0]["stdout"]
        assert "HUNT-RAN" in found  # the hunt really ran
        words = set(re.findall(r"[^\s\"'=\[\]]{8,}", found))
        assert words
        for word in sorted(words)[:2000]:
            r = c.post("/api/v1/admin/reload", headers={"Authorization": f"Bearer {word}"})
            assert r.status_code == 401, word


def test_who_may_read_what(live_service, tmp_path) -> None:
    path, auth = _tenants(tmp_path)
    alloc = tmp_path / "fair-scheduler.xml"
    alloc.write_text(ALLOCATIONS)
    live = live_service({"scheduler": {"mode": "resources", "allocation_file": str(alloc)},
                         "cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 2, "reduce_slots": 1},
                         "service": {"tick": 0.1}}, tokens=load_tokens(path))
    secret_env = {"API_KEY": "alice-private-key"}
    with httpx.Client(base_url=live.url, timeout=30) as c:
        r = c.post("/api/v1/jobs", headers=auth["alice"], json={
            "queue": "root.teams.a", "name": "alice-job",
            "maps": [{"command": ["sh", "-c", "echo $API_KEY; echo oops >&2; exit 3"], "env": secret_env}]})
        assert r.status_code == 201, r.text
        failing = r.json()["id"]
        ok = c.post("/api/v1/jobs", headers=auth["alice"], json={
            "queue": "root.teams.a", "maps": [{"call": "math:factorial", "args": [5], "env": secret_env}]}).json()
        assert _wait(c, ok["id"], auth["alice"])["state"] == "finished"
        assert _wait(c, failing, auth["alice"])["state"] == "failed"
        for job_id in (ok["id"], failing):
            for who in ("alice", "ops", "carol"):  # the owner, an admin, the queue's aclAdministerApps
                full = c.get(f"/api/v1/jobs/{job_id}", headers=auth[who])
                assert full.status_code == 200 and full.json()["document"]["maps"][0]["env"] == secret_env
            assert c.get(f"/api/v1/jobs/{job_id}", headers=auth["alice"]).json().get("error") is not None \
                or job_id == ok["id"]
            for headers in (auth["bob"], {}):
                summary = c.get(f"/api/v1/jobs/{job_id}", headers=headers)
                assert summary.status_code == 200 and set(summary.json()) <= SUMMARY, summary.json()
                assert "alice-private-key" not in summary.text and "oops" not in summary.text
                listed = c.get("/api/v1/jobs", headers=headers)
                assert "alice-private-key" not in listed.text and "oops" not in listed.text
                assert all(set(j) <= SUMMARY for j in listed.json()["jobs"])
        for who in ("alice", "ops", "carol"):
            r = c.get(f"/api/v1/jobs/{ok['id']}/result", headers=auth[who])
            assert r.status_code == 200 and r.json()["result"] == [120], (who, r.text)
        r = c.get(f"/api/v1/jobs/{ok['id']}/result", headers=auth["bob"])
        assert r.status_code == 403 and r.json()["field"] == "id"
        assert c.get(f"/api/v1/jobs/{ok['id']}/result").status_code == 401
        assert "oops" in c.get(f"/api/v1/jobs/{failing}", headers=auth["carol"]).text
        # a queue admin may also kill the queue's jobs (YARN's ADMINISTER_QUEUE); bob may not
        long = c.post("/api/v1/jobs", headers=auth["alice"],
                      json={"queue": "root.teams.a", "maps": [{"command": ["sleep", "30"]}]}).json()
        assert c.delete(f"/api/v1/jobs/{long['id']}", headers=auth["bob"]).status_code == 403
        assert c.delete(f"/api/v1/jobs/{long['id']}", headers=auth["carol"]).status_code == 200
        page = c.get("/scheduler").text
        assert "alice-private-key" not in page and "oops" not in page

    # public_read = "none": nothing for the anonymous, only their own jobs for the others
    live.stop()
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1, "public_read": "none"}}, tokens=load_tokens(path))
    with httpx.Client(base_url=live.url, timeout=30) as c:
        mine = c.post("/api/v1/jobs", headers=auth["alice"], json={"name": "hidden-name",
                                                                   "maps": [{"command": ["sleep", "30"]}]}).json()
        assert c.get(f"/api/v1/jobs/{mine['id']}").status_code == 401
        assert c.get(f"/api/v1/jobs/{mine['id']}", headers=auth["bob"]).status_code == 403
        assert c.get("/api/v1/jobs").status_code == 401
        assert c.get("/api/v1/jobs", headers=auth["bob"]).json()["jobs"] == []
        assert [j["id"] for j in c.get("/api/v1/jobs", headers=auth["alice"]).json()["jobs"]] == [mine["id"]]
        assert "hidden-name" not in c.get("/scheduler").text
        assert c.delete(f"/api/v1/jobs/{mine['id']}", headers=auth["alice"]).status_code == 200


def test_public_read_is_checked() -> None:
    from corescheduler.config import Config
    from corescheduler.service.service import ServiceError, ServiceSettings

    with pytest.raises(ServiceError, match="public_read"):
        ServiceSettings.from_config(Config.from_dict({"service": {"public_read": "all"}}))


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def test_the_page_signs_in_with_a_form_and_no_secret_reaches_a_url_or_a_log(live_service, tmp_path) -> None:
    path, auth = _tenants(tmp_path)
    token = auth["ops"]["Authorization"][7:]
    capture = _Capture()
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1}}, tokens=load_tokens(path))
    # uvicorn has configured its loggers by now: listen to every line, the access log included
    watched = [logging.getLogger(n) for n in ("uvicorn.access", "uvicorn.error", "corescheduler", "distributed")]
    old_levels = [lg.level for lg in watched]
    for lg in watched:
        lg.addHandler(capture)
        lg.setLevel(logging.INFO)
    try:
        with httpx.Client(base_url=live.url, timeout=30, follow_redirects=False) as c:
            job = c.post("/api/v1/jobs", json={"maps": [{"command": ["sleep", "30"]}] * 2, "pool": "p1"},
                         headers=auth["alice"]).json()
            # a token in the URL is never taken (and never logged)
            r = c.get(f"/scheduler?token={token}")
            assert r.status_code == 400 and "set-cookie" not in r.headers
            c.get(f"/api/v1/jobs/{token}")
            # the sign-in form
            page = c.get("/scheduler").text
            assert "method='post' action='/scheduler/login'" in page
            csrf = re.search(r"name='csrf' value='([^']+)'", page).group(1)
            assert c.post("/scheduler/login", data={"token": "wrong-wrong-wrong", "csrf": csrf}).status_code == 303
            assert "corescheduler_session" not in c.cookies  # (the sign-in form's own cookie is there)
            r = c.post("/scheduler/login", data={"token": token, "csrf": csrf})
            assert r.status_code == 303
            cookie = r.headers["set-cookie"]
            assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
            assert token not in cookie
            page = c.get("/scheduler").text
            session_csrf = re.search(r"name='csrf' value='([^']+)'", page).group(1)
            # an action without the CSRF token (a forged form) is refused; with it, done
            r = c.post(f"/scheduler/jobs/{job['id']}/priority", data={"priority": "HIGH"})
            assert r.status_code == 303 and c.get(f"/api/v1/jobs/{job['id']}").json()["priority"] == "NORMAL"
            r = c.post(f"/scheduler/jobs/{job['id']}/priority", data={"priority": "HIGH", "csrf": session_csrf})
            assert r.status_code == 303 and c.get(f"/api/v1/jobs/{job['id']}").json()["priority"] == "HIGH"
            r = c.post("/scheduler/logout", data={"csrf": session_csrf})
            assert r.status_code == 303
            r = c.post(f"/scheduler/jobs/{job['id']}/priority", data={"priority": "LOW", "csrf": session_csrf})
            assert c.get(f"/api/v1/jobs/{job['id']}").json()["priority"] == "HIGH"
            c.delete(f"/api/v1/jobs/{job['id']}", headers=auth["ops"])
        live.stop()
    finally:
        for lg, level in zip(watched, old_levels, strict=True):
            lg.removeHandler(capture)
            lg.setLevel(level)
    text = "\n".join(capture.lines)
    assert "/scheduler" in text and "/api/v1/jobs" in text, text[-2000:]  # the access log was captured
    for secret in [a["Authorization"][7:] for a in auth.values()]:
        assert secret not in text
    assert "Bearer" not in text and "authorization" not in text.lower()


# --------------------------------------------------------------------------- bad strings, the ledger


def test_strings_that_cannot_be_stored_are_400_and_break_nothing(live_service, tmp_path) -> None:
    path, auth = _tenants(tmp_path)
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1}}, tokens=load_tokens(path))
    alice = {**auth["alice"], "Content-Type": "application/json"}

    def post(doc: object):  # ensure_ascii: a lone surrogate travels as the JSON escape \ud800
        return c.post("/api/v1/jobs", content=json.dumps(doc).encode(), headers=alice)

    task = {"command": ["sleep", "30"]}
    bad = [
        ({"pool": "\ud800", "maps": [task]}, "pool"),
        ({"queue": "a\udfffb", "maps": [task]}, "queue"),
        ({"name": "\ud800", "maps": [task]}, "name"),
        ({"pool": "a\0b", "maps": [task]}, "pool"),
        ({"name": "a\0b", "maps": [task]}, "name"),
        ({"pool": "p" * 201, "maps": [task]}, "pool"),
        ({"pool": "a\nb", "maps": [task]}, "pool"),
        ({"maps": [{"command": ["echo", "\ud800"]}]}, "maps[0].command"),
        ({"maps": [{"call": "m:f", "args": ["\udc80"]}]}, "maps[0].args"),
        ({"maps": [{"call": "m:f", "kwargs": {"\ud800": 1}}]}, "maps[0].kwargs"),
        ({"maps": [{"command": ["true"], "env": {"A": "\ud800"}}]}, "maps[0].env"),
        ({"maps": [{"command": ["true"], "input_nodes": ["\ud800"]}]}, "maps[0].input_nodes"),
        ({"maps": [{"command": ["true"], "cwd": "/tmp/\ud800"}]}, "maps[0].cwd"),
        ({"maps": [task], "properties": {"k": "\ud800"}}, "properties"),
        ({"maps": [task], "priority": "\ud800"}, "priority"),
        ({"maps": [{"call": "m" * 1000 + ":f"}]}, "maps[0].call"),
    ]
    with httpx.Client(base_url=live.url, timeout=30) as c:
        pools_before = {p["name"] for p in c.get("/api/v1/pools").json()["pools"]}
        for doc, field in bad:
            r = post(doc)
            assert r.status_code == 400 and r.json()["field"] == field, (doc, r.status_code, r.text[:300])
            _all_answer(c, auth["alice"])
        assert c.get("/api/v1/jobs", headers=auth["ops"]).json()["jobs"] == []
        assert {p["name"] for p in c.get("/api/v1/pools").json()["pools"]} == pools_before  # no pool was made
        job = post({"pool": "alpha", "maps": [task]}).json()
        for body, where, field in [
            ({"pool": "\ud800"}, "pool", "pool"), ({"pool": "x\0y"}, "pool", "pool"),
            ({"pool": "q" * 201}, "pool", "pool"), ({"priority": "\ud800"}, "priority", "priority"),
            ({"priority": "HIGH\0"}, "priority", "priority"),
        ]:
            r = c.put(f"/api/v1/jobs/{job['id']}/{where}", content=json.dumps(body).encode(), headers=alice)
            assert r.status_code == 400 and r.json()["field"] == field, (body, r.status_code, r.text[:300])
            _all_answer(c, auth["alice"], job["id"])
        r = c.put("/api/v1/admin/scheduling-mode", content=json.dumps({"pool": "\ud800", "mode": "fifo"}).encode(),
                  headers={**auth["ops"], "Content-Type": "application/json"})
        assert r.status_code == 400 and r.json()["field"] == "pool", r.text
        for path in ("/api/v1/jobs/%ED%A0%80", "/api/v1/jobs/job_%00", "/api/v1/jobs?state=%ED%A0%80",
                     "/api/v1/jobs?state=%00", "/api/v1/jobs/%ED%A0%80/result"):
            r = c.get(path, headers=auth["alice"])
            assert r.status_code in (400, 404), (path, r.status_code, r.text[:300])
        _all_answer(c, auth["alice"], job["id"])
        described = c.get(f"/api/v1/jobs/{job['id']}", headers=auth["alice"]).json()
        assert described["pool"] == "alpha" and described["priority"] == "NORMAL"
        c.delete(f"/api/v1/jobs/{job['id']}", headers=auth["alice"])


def test_a_ledger_that_fails_leaves_the_scheduler_as_it_was(live_service, tmp_path) -> None:
    path, auth = _tenants(tmp_path)
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1}}, tokens=load_tokens(path), state=str(tmp_path / "state"))
    store = live.service.store
    real = store._execute
    failing: dict[str, str] = {}

    def execute(sql: str, args: tuple = ()) -> object:
        for fragment in failing:
            if fragment in sql:
                raise sqlite3.OperationalError(failing[fragment])
        return real(sql, args)

    store._execute = execute
    sched = live.service.scheduler
    with httpx.Client(base_url=live.url, timeout=30, headers=auth["alice"]) as c:
        job = c.post("/api/v1/jobs", json={"pool": "alpha", "maps": [{"command": ["sleep", "30"]}]}).json()
        for fragments in (("UPDATE jobs", "INSERT INTO jobs"), ("COMMIT",)):  # a write fails, or the commit
            failing.clear()
            failing.update(dict.fromkeys(fragments, "disk I/O error"))
            r = c.put(f"/api/v1/jobs/{job['id']}/pool", json={"pool": "beta"})
            assert r.status_code == 503 and "ledger" in r.json()["error"], r.text
            assert sched.jobs[job["id"]].pool == "alpha"
            r = c.put(f"/api/v1/jobs/{job['id']}/priority", json={"priority": "HIGH"})
            assert r.status_code == 503, r.text
            assert sched.jobs[job["id"]].priority == "NORMAL"
            before = set(sched.jobs)
            r = c.post("/api/v1/jobs", json={"pool": "gamma", "maps": [{"command": ["true"]}]})
            assert r.status_code == 503, r.text
            assert set(sched.jobs) == before
            r = c.delete(f"/api/v1/jobs/{job['id']}")
            assert r.status_code == 503, r.text
            assert job["id"] in sched.jobs
            failing["INTO modes"] = "disk I/O error"
            r = c.put("/api/v1/admin/scheduling-mode", json={"pool": "alpha", "mode": "fifo"}, headers=auth["ops"])
            assert r.status_code == 503, r.text
            assert sched.pools["alpha"].policy == "fair"
        failing.clear()
        row = c.get(f"/api/v1/jobs/{job['id']}").json()
        assert row["pool"] == "alpha" and row["priority"] == "NORMAL" and row["state"] in ("accepted", "running")
        ledger = sqlite3.connect(str(tmp_path / "state" / "state.db"))
        (pool, priority, state), = ledger.execute("SELECT pool, priority, state FROM jobs").fetchall()
        ledger.close()
        assert (pool, priority) == ("alpha", "NORMAL")
        # read after the API answered: the same state, or the job started in between
        assert state == row["state"] or (row["state"], state) == ("accepted", "running"), (row["state"], state)
        _all_answer(c, auth["alice"], job["id"])
        assert c.put(f"/api/v1/jobs/{job['id']}/pool", json={"pool": "beta"}).json()["pool"] == "beta"
        assert sched.jobs[job["id"]].pool == "beta"
        r = c.put("/api/v1/admin/scheduling-mode", json={"pool": "beta", "mode": "fifo"}, headers=auth["ops"])
        assert r.status_code == 200 and sched.pools["beta"].policy == "fifo"
    live.stop()
    # the switch is in the ledger: a restarted service keeps it, and the job
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1}}, tokens=load_tokens(path), state=str(tmp_path / "state"))
    with httpx.Client(base_url=live.url, timeout=30, headers=auth["alice"]) as c:
        assert {p["name"]: p["policy"] for p in c.get("/api/v1/pools").json()["pools"]}["beta"] == "fifo"
        assert c.delete(f"/api/v1/jobs/{job['id']}").json()["state"] == "killed"


def test_a_stored_job_this_version_refuses_fails_at_restore_and_the_service_starts(live_service, tmp_path) -> None:
    from corescheduler.service.store import Store

    store = Store(tmp_path / "state")  # a ledger written by an older version, which took a newline in a pool
    store.add_job("job_0001", 1, "alice", [], {"pool": "a\nb", "maps": [{"command": ["true"]}]}, "old", "a\nb",
                  "NORMAL", 1, 0)
    store.close()
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1}}, state=str(tmp_path / "state"))
    with httpx.Client(base_url=live.url, timeout=30) as c:
        job = c.get("/api/v1/jobs/job_0001").json()
        assert job["state"] == "failed" and "could not be restored" in job["error"] and "pool" in job["error"]
        _all_answer(c, {})


def test_deferred_task_changes_outlive_a_commit_that_fails(tmp_path) -> None:
    """A rolled-back transaction keeps the task changes deferred before it: the next write
    records them (they were dropped, and the ledger lost e.g. a task's start for good)."""
    from corescheduler.service.store import Store

    store = Store(tmp_path / "state")
    store._execute("CREATE TABLE t (x INTEGER)")
    real = store._execute
    failing = {"on": True}

    def execute(sql: str, args: tuple = ()) -> object:
        if failing["on"] and sql == "COMMIT":
            raise sqlite3.OperationalError("disk I/O error")
        return real(sql, args)

    store._execute = execute
    store.defer("INSERT INTO t (x) VALUES (?)", (1,))
    with pytest.raises(sqlite3.OperationalError):
        store._tx([("INSERT INTO t (x) VALUES (?)", (2,))])
    with pytest.raises(sqlite3.OperationalError):
        store.flush()
    failing["on"] = False
    store.flush()
    assert [row[0] for row in real("SELECT x FROM t").fetchall()] == [1]


def test_a_ledger_that_cannot_record_a_start_fails_no_attempt(live_service, tmp_path) -> None:
    """While the ledger cannot record a job's start, its task is not started and no attempt
    counts as failed (the job failed after max_attempts turns of a full disk, and its end could
    not be written either: the scheduler and the ledger disagreed); once the ledger takes
    writes again the job runs and finishes."""
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.05}}, state=str(tmp_path / "state"))
    store = live.service.store
    real = store._execute
    failing = {"on": False, "refused": 0}

    def execute(sql: str, args: tuple = ()) -> object:
        if failing["on"] and "SET state = 'running'" in sql:
            failing["refused"] += 1
            raise sqlite3.OperationalError("disk I/O error")
        return real(sql, args)

    store._execute = execute
    failing["on"] = True
    with httpx.Client(base_url=live.url, timeout=30) as c:
        job = c.post("/api/v1/jobs", json={"maps": [{"command": ["true"]}]}).json()
        deadline = time.monotonic() + 30
        while failing["refused"] < 8 and time.monotonic() < deadline:  # twice max_attempts (4) turns
            time.sleep(0.05)
        assert failing["refused"] >= 8
        assert c.get(f"/api/v1/jobs/{job['id']}").json()["state"] == "accepted"
        failing["on"] = False
        done = _wait(c, job["id"], {})
        assert done["state"] == "finished", done
        assert done["failed_attempts"] == 0


def test_a_task_error_sqlite_cannot_store_blocks_no_later_write(tmp_path) -> None:
    """A task's error text with a lone surrogate (a thread-isolated task's own exception text)
    is stored escaped, and a deferred change that can never be stored is dropped, not kept
    ahead of every later write; reads answer while writes fail."""
    from corescheduler.service.store import LedgerError, Store, bounded_error

    assert bounded_error("caf\udce9") == "caf\\udce9"
    store = Store(tmp_path / "state")
    store._execute("CREATE TABLE t (x TEXT)")
    store.defer("INSERT INTO t (x) VALUES (?)", ("caf\udce9",))  # what no error text is any more
    with pytest.raises(UnicodeError):
        store.flush()
    store._tx([("INSERT INTO t (x) VALUES (?)", ("ok",))])  # the next write goes through
    assert [row[0] for row in store._execute("SELECT x FROM t").fetchall()] == ["ok"]
    real = store._execute
    failing = {"on": True}

    def execute(sql: str, args: tuple = ()) -> object:
        if failing["on"] and sql == "COMMIT":
            raise sqlite3.OperationalError("database or disk is full")
        return real(sql, args)

    store._execute = execute
    store.defer("INSERT INTO t (x) VALUES (?)", ("later",))
    assert store.jobs() == []  # a read answers (the pending write waits)
    with pytest.raises(LedgerError):  # a request's change: a LedgerError (the service's 503)
        store.change(lambda w: w("INSERT INTO t (x) VALUES (?)", ("req",)), lambda: None, lambda _: None)
    failing["on"] = False
    store.flush()
    assert sorted(row[0] for row in real("SELECT x FROM t").fetchall()) == ["later", "ok"]
