"""Hostile review (session 17) of ``serve``: what a hostile or careless tenant, or a ledger that
fails for a moment, did to the service before these fixes (SPEC §8, §8b: no request breaks the
service or makes it disagree with its ledger; a tenant reaches only its own jobs)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.slow

ENDED = ("finished", "failed", "killed")


def _wait_state(c: Any, job_id: str, states: tuple[str, ...], timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    job = c.get(f"/api/v1/jobs/{job_id}").json()
    for _ in range(int(timeout / 0.05) + 1):
        if job.get("state") in states or time.monotonic() > deadline:
            break
        time.sleep(0.05)
        job = c.get(f"/api/v1/jobs/{job_id}").json()
    return job


def _ledger(state: Path, job_id: str) -> tuple[str, str | None]:
    db = sqlite3.connect(str(state / "state.db"))
    try:
        row = db.execute("SELECT state, error FROM jobs WHERE id = ?", (job_id,)).fetchone()
    finally:
        db.close()
    return row


def test_a_job_end_the_ledger_could_not_write_for_a_moment_is_written_once_it_can(live_service, tmp_path) -> None:
    """A transient ledger failure (a full disk, a lock) when a job ends — it finished, or its task
    used up its attempts — was lost for good: the scheduler had ended the job, the ledger kept it
    ``running`` (its kill a 409 "has already ended (running)", its result never readable) until a
    restart.  The end is kept with the deferred task changes and written by the next flush."""
    state = tmp_path / "state"
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.05, "max_attempts": 1}}, state=str(state))
    store = live.service.store
    real = store._execute
    failing = {"on": True, "refused": 0}

    def execute(sql: str, args: Any = ()) -> Any:
        if failing["on"] and sql.startswith("UPDATE jobs SET state = ?, ended"):
            failing["refused"] += 1
            raise sqlite3.OperationalError("database or disk is full")
        return real(sql, args)

    store._execute = execute
    sched = live.service.scheduler
    with httpx.Client(base_url=live.url, timeout=30) as c:
        ids = []
        for command, end in ((["true"], "finished"), (["false"], "failed")):
            failing.update(on=True, refused=0)
            job = c.post("/api/v1/jobs", json={"maps": [{"command": command}]}).json()["id"]
            ids.append(job)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and (job in sched.jobs or not failing["refused"]):
                time.sleep(0.05)
            assert job not in sched.jobs and failing["refused"], failing  # the scheduler let it go
            failing["on"] = False
            ended = _wait_state(c, job, ENDED)
            assert ended["state"] == end, ended
            if end == "finished":
                assert c.get(f"/api/v1/jobs/{job}/result").json()["result"] is not None
            else:
                assert "failed 1 times" in ended["error"], ended
        done, failed = ids
    assert _ledger(state, done)[0] == "finished"
    assert _ledger(state, failed)[0] == "failed"
    assert not live.service.jobs  # nothing of theirs is kept in memory


def test_a_pool_named_by_a_job_property_is_checked_as_the_pool_field_is(live_service, tmp_path) -> None:
    """A job's ``properties`` name its pool as Hadoop's job conf does (``queue.name``, the
    ``property`` resolver's ``pool_name_property``), and that name skipped every check of the
    ``pool`` field: a control character, a bidirectional override (the page and the logs show
    another name than the one stored), an empty part, 10,000 characters.  And ``user.name`` in
    the properties claimed another user's name for the placement; the user is the token's
    (Hadoop's JobTracker sets a job's ``user.name`` to the submitting user)."""
    from corescheduler.service.api import Principal

    tokens = {"alice-token-1": Principal("alice"), "bob-token-1": Principal("bob")}
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1}}, tokens=tokens)
    alice = {"Authorization": "Bearer alice-token-1"}
    task = {"command": ["sleep", "30"]}
    with httpx.Client(base_url=live.url, timeout=30, headers=alice) as c:
        for name in ("evil\u202eemag", "a\nb", "a..b", "q" * 10_000, "%2e%2e", " "):
            for key in ("queue.name", "mapred.job.queue.name", "pool"):
                r = c.post("/api/v1/jobs", json={"properties": {key: name}, "maps": [task]})
                assert r.status_code == 400, (key, name[:20], r.status_code, r.text[:200])
                assert r.json()["field"] == f"properties.{key}", r.text[:200]
        assert c.get("/api/v1/jobs").json()["jobs"] == []
        assert not any(p["name"].startswith(("evil", "a", "q", "%")) for p in c.get("/api/v1/pools").json()["pools"])
        # claiming bob's name: placed by the token's user all the same
        r = c.post("/api/v1/jobs", json={"properties": {"user.name": "bob"}, "maps": [task]})
        assert r.status_code == 201, r.text
        assert r.json()["pool"] == "alice" and r.json()["user"] == "alice"
        # a good name in a property still names the pool
        r = c.post("/api/v1/jobs", json={"properties": {"queue.name": "batch"}, "maps": [task]})
        assert r.status_code == 201 and r.json()["pool"] == "batch", r.text
        for job in c.get("/api/v1/jobs").json()["jobs"]:
            assert c.delete(f"/api/v1/jobs/{job['id']}").status_code == 200


def test_a_pool_read_from_a_configured_job_property_is_checked(live_service) -> None:
    """``[plugins.property] pool_name_property`` may name any job property: the pool the
    placement read from it is checked as the pool field is — refused (400, nothing stored, no
    pool left behind) when it could not be one."""
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "plugins": {"property": {"pool_name_property": ["team", "user.name"]}},
                         "service": {"tick": 0.1}})
    task = {"command": ["sleep", "30"]}
    with httpx.Client(base_url=live.url, timeout=30) as c:
        for name in ("evil\u202eemag", "a..b", "q" * 300, "%2e"):
            r = c.post("/api/v1/jobs", json={"properties": {"team": name}, "maps": [task]})
            assert r.status_code == 400 and r.json()["field"] == "properties", (name[:20], r.text[:200])
        assert c.get("/api/v1/jobs").json()["jobs"] == []
        assert not live.service.scheduler.jobs
        r = c.post("/api/v1/jobs", json={"properties": {"team": "data"}, "maps": [task]})
        assert r.status_code == 201 and r.json()["pool"] == "data", r.text
        assert c.delete(f"/api/v1/jobs/{r.json()['id']}").status_code == 200


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


def test_a_queue_admin_acts_on_a_job_only_while_it_is_in_their_queue(live_service, tmp_path) -> None:
    """carol administers root.teams (``aclAdministerApps``).  Her kill, move or priority change
    of alice's job was allowed by where the job was when the request arrived, and carried out
    once the service's lock came free — after alice's own move (queued ahead of it) had taken
    the job out of carol's queue: carol killed a job in a queue she has no right to.  The right
    is checked again, under the lock, against where the job is then (YARN checks the caller's
    ``ApplicationAccessType.MODIFY_APP`` on the application as it is:
    ``ClientRMService.forceKillApplication`` / ``QueueACLsManager.checkAccess``)."""
    import asyncio
    import concurrent.futures

    from corescheduler.service.api import Principal

    alloc = tmp_path / "fair-scheduler.xml"
    alloc.write_text(ALLOCATIONS)
    tokens = {"alice-token-1": Principal("alice"), "carol-token-1": Principal("carol")}
    live = live_service({"scheduler": {"mode": "resources", "allocation_file": str(alloc)},
                         "cluster": {"racks": 1, "nodes_per_rack": 1},
                         "service": {"tick": 0.1}}, tokens=tokens)
    alice = {"Authorization": "Bearer alice-token-1"}
    carol = {"Authorization": "Bearer carol-token-1"}
    service = live.service
    loop = service._loop_task.get_loop()
    lock = service._lock

    async def take() -> None:
        await lock.acquire()

    def waiting() -> int:
        return len(lock._waiters or ())

    with httpx.Client(base_url=live.url, timeout=30) as c, concurrent.futures.ThreadPoolExecutor(2) as pool:
        for action in ("kill", "move", "priority"):
            r = c.post("/api/v1/jobs", headers=alice, json={"queue": "root.teams.a",
                                                            "maps": [{"command": ["sleep", "30"]}]})
            assert r.status_code == 201, r.text
            job = r.json()["id"]
            asyncio.run_coroutine_threadsafe(take(), loop).result(10)  # the loop's turns wait too
            try:
                hers = pool.submit(c.put, f"/api/v1/jobs/{job}/pool", json={"pool": "root.other"}, headers=alice)
                deadline = time.monotonic() + 10
                while waiting() < 1 and time.monotonic() < deadline:
                    time.sleep(0.01)
                if action == "kill":
                    theirs = pool.submit(c.delete, f"/api/v1/jobs/{job}", headers=carol)
                elif action == "move":
                    theirs = pool.submit(c.put, f"/api/v1/jobs/{job}/pool", json={"pool": "root.teams.a"},
                                         headers=carol)
                else:
                    theirs = pool.submit(c.put, f"/api/v1/jobs/{job}/priority", json={"priority": "VERY_HIGH"},
                                         headers=carol)
                while waiting() < 2 and time.monotonic() < deadline:
                    time.sleep(0.01)
                assert waiting() >= 2
            finally:
                loop.call_soon_threadsafe(lock.release)
            assert hers.result(30).status_code == 200
            r = theirs.result(30)
            assert r.status_code == 403, (action, r.status_code, r.text)
            now = c.get(f"/api/v1/jobs/{job}", headers=alice).json()
            assert (now["state"], now["pool"], now["priority"]) == ("accepted", "root.other", "NORMAL") or \
                (now["state"], now["pool"], now["priority"]) == ("running", "root.other", "NORMAL"), now
            assert c.delete(f"/api/v1/jobs/{job}", headers=alice).status_code == 200


def test_a_job_document_with_nan_is_refused_not_echoed_as_invalid_json(live_service) -> None:
    """Python's JSON reader takes ``NaN`` and ``Infinity``, which are not JSON (RFC 8259): a
    job whose arguments held one was accepted, stored, and its ``GET /jobs/{id}`` answered with
    a body a strict JSON reader refuses (a browser's ``JSON.parse``, Go's, jq) — an admin's or
    a queue administrator's client broke on a tenant's job.  The body is refused: a 400 naming it."""
    import json

    def strict(text: str) -> Any:
        def refuse(name: str) -> Any:
            raise ValueError(f"{name} is not JSON")

        return json.loads(text, parse_constant=refuse)

    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1}})
    with httpx.Client(base_url=live.url, timeout=30, headers={"Content-Type": "application/json"}) as c:
        for constant in ("NaN", "Infinity", "-Infinity"):
            body = '{"maps": [{"call": "math:isnan", "args": [' + constant + ']}]}'
            r = c.post("/api/v1/jobs", content=body.encode())
            assert r.status_code == 400 and r.json()["field"] == "body", (constant, r.status_code, r.text[:200])
            assert constant in r.json()["error"]
        assert c.get("/api/v1/jobs").json()["jobs"] == []
        r = c.post("/api/v1/jobs", content=b'{"maps": [{"call": "math:isnan", "args": [1.5e300]}]}')
        assert r.status_code == 201, r.text
        strict(c.get(f"/api/v1/jobs/{r.json()['id']}").text)


@pytest.mark.parametrize("pool", ["bob\u200b", "\ufeffbob", "b\u00adob", "bo\u2060b", "bob\U000e0041", "b\u200dob"])
def test_a_pool_name_with_an_invisible_character_is_refused(pool: str) -> None:
    """A zero-width space, joiner, word joiner, soft hyphen, byte-order mark or tag character
    (Unicode's format characters, as the bidirectional controls already refused) makes a pool
    created in ``serve`` show as another's — "bob\\u200b" is "bob" on the page, in the CLI's
    table and in the logs, with one tenant's jobs in it."""
    from corescheduler.service.jobs import JobFormatError, check_pool, parse_job

    with pytest.raises(JobFormatError) as exc:
        check_pool(pool, "pool")
    assert "invisible" in exc.value.message and "U+" in exc.value.message
    for key in ("pool", "queue"):
        with pytest.raises(JobFormatError):
            parse_job({key: pool, "maps": [{"command": ["true"]}]})
    with pytest.raises(JobFormatError) as exc:
        parse_job({"properties": {"queue.name": pool}, "maps": [{"command": ["true"]}]})
    assert exc.value.field == "properties.queue.name"
    assert check_pool("ünïcode.日本", "pool") == "ünïcode.日本"  # letters of any script stay names


def test_a_job_whose_results_total_past_the_bound_fails_instead_of_filling_the_service(live_service) -> None:
    """A map-only job's results come back to the service, which kept each whole (its pickle
    bytes too, up to ``max_result_bytes`` = 64 MB a task) until the job ended: one job of a
    hundred maps each returning 60 MB filled the service's memory, for every tenant.  A job's
    results may total ``[service] max_job_result_bytes`` (their JSON text); past it the job fails,
    saying so; below it the result is whole."""
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 2, "reduce_slots": 1},
                         "service": {"tick": 0.05, "max_job_result_bytes": 5000}})
    big = {"call": "operator:mul", "args": ["x", 2000]}  # a 2,002-byte JSON text
    with httpx.Client(base_url=live.url, timeout=30) as c:
        under = c.post("/api/v1/jobs", json={"maps": [big] * 2}).json()["id"]
        over = c.post("/api/v1/jobs", json={"maps": [big] * 4}).json()["id"]
        reduced = c.post("/api/v1/jobs", json={"maps": [big] * 4, "reduces": [
            {"call": "builtins:len"}]}).json()["id"]  # maps' results stay on the workers: not counted
        done = _wait_state(c, under, ENDED)
        assert done["state"] == "finished", done
        assert c.get(f"/api/v1/jobs/{under}/result").json()["result"] == ["x" * 2000] * 2
        failed = _wait_state(c, over, ENDED)
        assert failed["state"] == "failed" and "max_job_result_bytes" in failed["error"], failed
        assert _wait_state(c, reduced, ENDED)["state"] == "finished"
        assert c.get(f"/api/v1/jobs/{reduced}/result").json()["result"] == [4]
        assert c.get("/healthz").status_code == 200
    assert not live.service.jobs and not live.service.grants


def test_max_job_result_bytes_is_a_setting() -> None:
    from corescheduler.config import Config
    from corescheduler.service.settings import ServiceError, ServiceSettings

    assert ServiceSettings.from_config(Config.from_dict({})).max_job_result_bytes == 256 << 20
    assert ServiceSettings.from_config(Config.from_dict({"service": {"max_job_result_bytes": 10}})
                                       ).max_job_result_bytes == 10
    for bad in (0, -1, 1.5, "1 MB", True):
        with pytest.raises(ServiceError, match="max_job_result_bytes"):
            ServiceSettings.from_config(Config.from_dict({"service": {"max_job_result_bytes": bad}}))


def test_a_jobs_group_name_property_is_the_tokens_group(live_service) -> None:
    """With ``pool_name_property = "group.name"`` (the Hadoop fair scheduler's common
    ``poolnameproperty``), a job's own ``group.name`` property put it in any group's pool; Hadoop's
    JobTracker set it to the submitter's primary group (MAPREDUCE-2457): here the token's first."""
    from corescheduler.service.api import Principal

    tokens = {"alice-token-1": Principal("alice", groups=("eng", "ops")), "bob-token-1": Principal("bob")}
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "plugins": {"property": {"pool_name_property": ["group.name", "user.name"]}},
                         "service": {"tick": 0.1}}, tokens=tokens)
    task = {"command": ["sleep", "30"]}
    with httpx.Client(base_url=live.url, timeout=30) as c:
        for token, pool in (("alice-token-1", "eng"), ("bob-token-1", "bob")):
            headers = {"Authorization": f"Bearer {token}"}
            r = c.post("/api/v1/jobs", json={"properties": {"group.name": "finance"}, "maps": [task]}, headers=headers)
            assert r.status_code == 201 and r.json()["pool"] == pool, r.text
            assert c.delete(f"/api/v1/jobs/{r.json()['id']}", headers=headers).status_code == 200
