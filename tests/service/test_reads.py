"""Issue 26 item 5: reads never block scheduling.  The ledger is read in the service's
reading threads through their own connections (a write in progress does not hold a read
back); job lists and a job's task list come a page at a time (``?limit=&after=``)."""

from __future__ import annotations

import threading

import pytest

from corescheduler.service.store import Store

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")


def _store_with(tmp_path, jobs: int, maps: int) -> Store:
    store = Store(tmp_path / "state")
    for i in range(1, jobs + 1):
        store.add_job(f"job_{i:04d}", i, "alice", [], {"maps": []}, f"j{i}", "default", "NORMAL", maps, 1)
    return store


def test_jobs_and_tasks_come_a_page_at_a_time(tmp_path) -> None:
    store = _store_with(tmp_path, jobs=5, maps=5)
    try:
        rows, following = store.jobs_page(2)
        assert [r["id"] for r in rows] == ["job_0005", "job_0004"] and following == "job_0004"
        assert "document" not in rows[0]
        rows, following = store.jobs_page(2, following)
        assert [r["id"] for r in rows] == ["job_0003", "job_0002"] and following == "job_0002"
        rows, following = store.jobs_page(2, following)
        assert [r["id"] for r in rows] == ["job_0001"] and following is None
        with pytest.raises(KeyError):
            store.jobs_page(2, "job_9999")
        seen, cursor = [], None
        for _ in range(10):
            rows, cursor = store.tasks_page("job_0001", 2, cursor)
            seen += [(r["kind"], r["idx"]) for r in rows]
            if cursor is None:
                break
        assert seen == [("map", i) for i in range(5)] + [("reduce", 0)]
        stats = store.job_stats("job_0001")
        assert stats["counts"] == {"map": {"pending": 5}, "reduce": {"pending": 1}} and stats["last_error"] is None
    finally:
        store.close()


def test_a_read_does_not_wait_for_a_write_in_progress(tmp_path) -> None:
    """A change holds its write transaction (and the store's lock) while it applies; a reading
    thread still reads (WAL, its own connection) — the old reads took the same lock."""
    store = _store_with(tmp_path, jobs=1, maps=3)
    try:
        out: list = []

        def apply() -> threading.Thread:
            reader = threading.Thread(target=lambda: out.append(store.job_stats("job_0001")))
            reader.start()
            reader.join(timeout=30)
            return reader

        reader = store.change(lambda w: w("UPDATE tasks SET state = 'running' WHERE job = 'job_0001'"), apply,
                              lambda _: None)
        assert not reader.is_alive()
        assert out[0]["counts"]["map"] == {"pending": 3}  # committed data only
        assert store.job_stats("job_0001")["counts"]["map"] == {"running": 3}  # the cached answer is stale
    finally:
        store.close()


def test_a_jobs_stats_are_served_again_until_a_change_touches_it(tmp_path) -> None:
    store = _store_with(tmp_path, jobs=2, maps=2)
    try:
        first = store.job_stats("job_0001")
        assert store.job_stats("job_0001") is first  # not asked of SQLite again
        store.task_started("job_0002", "map", 0, "n0")
        store.flush()
        assert store.job_stats("job_0001") is first  # another job's change
        assert store.job_stats("job_0002")["counts"]["map"] == {"pending": 1, "running": 1}
        store.task_ended("job_0001", "map", 1, "pending", error="boom", failed=True)
        store.flush()
        again = store.job_stats("job_0001")
        assert again is not first and again["failures"] == 1 and again["last_error"] == "boom"
        store.job_ended("job_0001", "killed", error="killed by alice")
        assert store.job_stats("job_0001")["counts"]["map"] == {"killed": 2}
        assert store.job_document("job_0001") == b'{"maps": []}'
    finally:
        store.close()


def test_a_request_change_keeps_the_stats_of_the_jobs_it_does_not_touch(tmp_path) -> None:
    """A submit, kill, move or priority change commits through ``Store.change``: it makes stale
    only the stats of the job it names (it made every job's stale: 8 readers of a 100k-task job
    then counted its tasks again after every submit, and the scheduler starved)."""
    store = _store_with(tmp_path, jobs=2, maps=2)
    try:
        first = store.job_stats("job_0001")
        store.change(lambda w: w("UPDATE jobs SET priority = 'HIGH' WHERE id = ?", ("job_0002",)),
                     lambda: None, lambda _: None, jobs=["job_0002"])
        assert store.job_stats("job_0001") is first
        store.change(lambda w: w("UPDATE tasks SET state = 'killed' WHERE job = ?", ("job_0001",)),
                     lambda: None, lambda _: None, jobs=["job_0001"])
        assert store.job_stats("job_0001")["counts"]["map"] == {"killed": 2}
        kept = store.job_stats("job_0001")
        store.change(lambda w: w("INSERT INTO modes (pool, mode) VALUES ('p', 'fifo')"), lambda: None,
                     lambda _: None)  # jobs not given: any job may have changed
        assert store.cached_stats("job_0001") is None and store.job_stats("job_0001") == kept
    finally:
        store.close()


def test_readers_asking_for_the_same_stats_at_once_share_one_count(tmp_path, monkeypatch) -> None:
    """Eight threads wanting a job's stats together: SQLite counts its tasks once."""
    store = _store_with(tmp_path, jobs=1, maps=50)
    try:
        counted, gate = [], threading.Event()
        real = store._count

        def slow_count(job_id: str) -> dict:
            counted.append(job_id)
            gate.wait(30)  # the others arrive while this count runs
            return real(job_id)

        monkeypatch.setattr(store, "_count", slow_count)
        out: list = []
        threads = [threading.Thread(target=lambda: out.append(store.job_stats("job_0001"))) for _ in range(8)]
        for t in threads:
            t.start()
        for _ in range(300):  # every thread is waiting for the one count (bounded: 30 s)
            if len(store._counting) == 1 and sum(t.is_alive() for t in threads) == 8 and counted:
                break
            threading.Event().wait(0.1)
        threading.Event().wait(0.2)
        gate.set()
        for t in threads:
            t.join(30)
        assert counted == ["job_0001"] and len(out) == 8 and all(o is out[0] for o in out)
        assert out[0]["counts"]["map"] == {"pending": 50} and not store._counting
        # a count started before a commit touched the job is not shared with a reader after it
        store.task_ended("job_0001", "map", 3, "pending", error="boom", failed=True)
        store.flush()
        assert store.job_stats("job_0001")["last_error"] == "boom" and counted == ["job_0001"] * 2
    finally:
        store.close()


def test_a_jobs_last_error_is_found_through_an_index(tmp_path) -> None:
    """The last task error is looked up in a partial index (tasks with an error), not by
    scanning the job's tasks."""
    store = _store_with(tmp_path, jobs=1, maps=3)
    try:
        plan = store._read("EXPLAIN QUERY PLAN SELECT error FROM tasks WHERE job = ? AND error IS NOT NULL "
                           "ORDER BY kind DESC, idx DESC LIMIT 1", ("job_0001",))
        assert any("tasks_errors" in r["detail"] for r in plan), plan
        store.task_ended("job_0001", "map", 0, "pending", error="first", failed=True)
        store.task_ended("job_0001", "map", 2, "pending", error="last", failed=True)
        store.flush()
        assert store.job_stats("job_0001")["last_error"] == "last"
    finally:
        store.close()


def test_a_store_without_a_state_directory_leaves_nothing_behind() -> None:
    store = Store(None)
    path = store._temp
    assert path is not None
    store.add_job("job_0001", 1, "alice", [], {}, "j", None, "NORMAL", 1, 0)
    assert store.job_summary("job_0001")["name"] == "j"
    store.close()
    import os

    assert not os.path.exists(path)


def _config() -> dict:
    return {"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 2, "reduce_slots": 1},
            "service": {"tick": 0.1, "workers": 1, "isolation": "process"}}


@pytest.mark.slow
def test_the_api_pages_jobs_and_tasks_and_reads_off_the_loop(live_service) -> None:
    from click.testing import CliRunner

    from corescheduler.cli import cli as main

    live = live_service(_config())
    threads: list[str] = []
    stats = live.service.store.job_stats

    def watched(job_id: str):
        threads.append(threading.current_thread().name)
        return stats(job_id)

    live.service.store.job_stats = watched  # type: ignore[method-assign]
    summary = live.service.store.job_summary

    def watched_summary(job_id: str):  # a job's row: read on the loop before (it waited for the GIL there)
        threads.append(threading.current_thread().name)
        return summary(job_id)

    live.service.store.job_summary = watched_summary  # type: ignore[method-assign]
    with httpx.Client(base_url=live.url, timeout=30) as c:
        ids = [c.post("/api/v1/jobs", json={"name": f"j{i}", "maps": [{"command": ["true"]}] * 5}).json()["id"]
               for i in range(3)]
        threads.clear()  # a change answers with its job, read on the loop once; reads never are
        first = c.get("/api/v1/jobs", params={"limit": 2}).json()
        assert [j["id"] for j in first["jobs"]] == ids[::-1][:2] and first["next"] == ids[1]
        rest = c.get("/api/v1/jobs", params={"limit": 2, "after": first["next"]}).json()
        assert [j["id"] for j in rest["jobs"]] == [ids[0]] and rest["next"] is None
        assert len(c.get("/api/v1/jobs").json()["jobs"]) == 3  # default limit 100
        for params, field in (({"after": "job_9999"}, "after"), ({"limit": 0}, "limit"),
                              ({"limit": 1001}, "limit"), ({"after": "a b"}, "after")):
            r = c.get("/api/v1/jobs", params=params)
            assert r.status_code == 400 and r.json()["field"] == field, (params, r.text)

        page = c.get(f"/api/v1/jobs/{ids[0]}/tasks", params={"limit": 2}).json()
        assert [t["id"] for t in page["tasks"]] == [f"{ids[0]}_m_000000", f"{ids[0]}_m_000001"]
        assert page["next"] == f"{ids[0]}_m_000001" and set(page["tasks"][0]) >= {"kind", "index", "state", "error"}
        seen = [t["id"] for t in page["tasks"]]
        for _ in range(5):
            if page["next"] is None:
                break
            page = c.get(f"/api/v1/jobs/{ids[0]}/tasks", params={"limit": 2, "after": page["next"]}).json()
            seen += [t["id"] for t in page["tasks"]]
        assert seen == [f"{ids[0]}_m_{i:06d}" for i in range(5)]
        bad = c.get(f"/api/v1/jobs/{ids[0]}/tasks", params={"after": f"{ids[1]}_m_000001"})
        assert bad.status_code == 400 and bad.json()["field"] == "after"
        assert c.get("/api/v1/jobs/job_9999/tasks").status_code == 404

        doc = c.get(f"/api/v1/jobs/{ids[0]}").json()
        assert doc["document"]["maps"] == [{"command": ["true"]}] * 5 and doc["maps"]["total"] == 5
        assert c.get("/api/v1/jobs/job_9999").status_code == 404
        assert c.get(f"/api/v1/jobs/{ids[0]}/result").status_code in (200, 409)
    assert threads and all(t.startswith("corescheduler-read") for t in threads), threads

    out = CliRunner().invoke(main, ["status", "--url", live.url, "--limit", "2"])
    assert out.exit_code == 0, out.output
    assert ids[2] in out.output and ids[0] not in out.output
    assert f"corescheduler status --after {ids[1]}" in out.output
    out = CliRunner().invoke(main, ["status", "--url", live.url, "--after", ids[1]])
    assert out.exit_code == 0 and ids[0] in out.output and "more:" not in out.output, out.output


def test_status_keeps_its_table_whole_whatever_the_error(monkeypatch) -> None:
    from click.testing import CliRunner

    from corescheduler.cli import cli
    from corescheduler.client import Client

    job = {"id": "job_0001", "user": "alice", "pool": "default", "state": "failed",
           "maps": {"finished": 0, "total": 1}, "reduces": {"finished": 0, "total": 0},
           "error": "task map 0 failed: Traceback (most recent call last):\n  File \"x.py\", line 1, in f\n"
                    "    raise ValueError('no')\nValueError: no\n"}
    monkeypatch.setattr(Client, "jobs_page", lambda self, *a, **k: {"jobs": [job], "next": None})
    out = CliRunner().invoke(cli, ["status", "--url", "http://127.0.0.1:9"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert len(lines) == 2 and lines[1].startswith("job_0001") and lines[1].endswith("ValueError: no"), out.output


def test_a_jobs_row_and_its_kept_answers_serve_until_a_change_touches_it(tmp_path) -> None:
    """GET /jobs/{id} and a task page of a job nothing changes come from memory (8 readers of a
    waiting 100k-task job then need no reading thread); a commit touching the job, or any job
    when it names none, drops them; an answer read while a commit touched its job is not kept."""
    store = _store_with(tmp_path, jobs=2, maps=2)
    try:
        assert store.cached_summary("job_0001") is None
        row = store.job_summary("job_0001")
        assert store.cached_summary("job_0001") is row and store.job_summary("job_0001") is row
        stamp = store.stamp()
        store.keep("job_0001", ("tasks", 100, None, True), stamp, b'{"tasks": []}')
        assert store.kept("job_0001", ("tasks", 100, None, True)) == b'{"tasks": []}'
        assert store.kept("job_0001", ("tasks", 100, None, False)) is None  # another key: another reader's view
        store.set_job("job_0002", priority="HIGH")  # another job
        assert store.cached_summary("job_0001") is row and store.kept("job_0001", ("tasks", 100, None, True))
        store.set_job("job_0001", priority="LOW")
        assert store.cached_summary("job_0001") is None and store.kept("job_0001", ("tasks", 100, None, True)) is None
        assert store.job_summary("job_0001")["priority"] == "LOW"
        store.task_started("job_0001", "map", 0, "n0")  # a deferred task change counts once flushed
        assert store.cached_summary("job_0001") is not None
        store.flush()
        assert store.cached_summary("job_0001") is None
        stale = store.stamp()
        store.job_summary("job_0001")
        store.job_ended("job_0001", "killed")  # a commit between the stamp and the keep
        store.keep("job_0001", "k", stale, b"old")
        assert store.kept("job_0001", "k") is None
        assert store.job_summary("job_0001")["state"] == "killed"
        page = store.jobs_page(1)
        assert store.cached_jobs_page(1) is page and store.cached_jobs_page(2) is None
        store.keep("job_0002", "k", store.stamp(), b"x")
        store.change(lambda w: w("INSERT INTO modes (pool, mode) VALUES ('p', 'fifo')"), lambda: None,
                     lambda _: None)  # jobs not given: any job may have changed
        assert store.kept("job_0002", "k") is None and store.cached_summary("job_0002") is None
        assert store.cached_jobs_page(1) is None  # a job list goes stale with any commit
        store.jobs_page(1)
        store.task_ended("job_0002", "map", 0, "complete")
        store.flush()
        assert store.cached_jobs_page(1) is None
    finally:
        store.close()


def test_kept_pages_answer_from_memory_and_never_cross_readers(live_service, tmp_path) -> None:
    """A task page kept for a reader who may read the whole job (with errors) is never handed to
    one who may read only its summary; the job's row kept for the ACL check goes stale with a
    kill, and the page and the job then show it."""
    from corescheduler.service.tokens import Principal

    alloc = tmp_path / "pools.xml"
    alloc.write_text("<allocations><pool name='held'><maxRunningJobs>0</maxRunningJobs></pool></allocations>")
    live = live_service({"scheduler": {"allocation_file": str(alloc)},
                         "cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1}},
                        tokens={"alice-secret-1": Principal("alice"), "bob-secret-22": Principal("bob")})
    alice, bob = {"Authorization": "Bearer alice-secret-1"}, {"Authorization": "Bearer bob-secret-22"}
    store = live.service.store
    pages: list[str] = []
    tasks_page = store.tasks_page

    def counted(job_id: str, *args):
        pages.append(job_id)
        return tasks_page(job_id, *args)

    store.tasks_page = counted  # type: ignore[method-assign]
    with httpx.Client(base_url=live.url, timeout=30) as c:
        r = c.post("/api/v1/jobs", json={"pool": "held", "maps": [{"command": ["true"]}] * 3}, headers=alice)
        assert r.status_code == 201, r.text
        job_id = r.json()["id"]
        url = f"/api/v1/jobs/{job_id}/tasks"
        first = c.get(url, headers=alice).json()
        assert [set(t) >= {"error"} for t in first["tasks"]] == [True] * 3
        assert c.get(url, headers=alice).json() == first and pages == [job_id]  # kept: no second read
        for who in (bob, {}):
            seen = c.get(url, headers=who).json()
            assert [("error" in t) for t in seen["tasks"]] == [False] * 3, seen
        assert c.get(f"/api/v1/jobs/{job_id}", headers=bob).json().get("document") is None
        assert c.get(f"/api/v1/jobs/{job_id}", headers=alice).json()["document"]["maps"][0] == {"command": ["true"]}
        assert c.delete(f"/api/v1/jobs/{job_id}", headers=bob).status_code == 403
        assert c.delete(f"/api/v1/jobs/{job_id}", headers=alice).status_code == 200
        assert {t["state"] for t in c.get(url, headers=alice).json()["tasks"]} == {"killed"}
        assert c.get(f"/api/v1/jobs/{job_id}", headers=alice).json()["state"] == "killed"
        assert c.get(f"/api/v1/jobs/{job_id}", headers={}).json()["state"] == "killed"
