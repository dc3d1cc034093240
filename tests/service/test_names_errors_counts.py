"""Review items of issue 26: pool names a queue cannot have are refused (400 naming the
field), errors are kept bounded and say they were cut, and a job that fails for a task
counts that task failed, not killed."""

from __future__ import annotations

import pytest

from corescheduler.service.jobs import JobFormatError, check_pool, parse_job
from corescheduler.service.store import MAX_ERROR, Store, bounded_error
from tests.service.conftest import wait_for

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

#: names YARN's QueueManager.isQueueNameValid refuses, and names that show differently than stored
BAD_POOLS = ["a..b", ".a", "a.", "a. b", "a .b", ".", "a\u202eb", "\u2066x\u2069", "x\u200f", "team%00", "a%2e%2eb"]
GOOD_POOLS = ["a", "a.b", "root.eng.etl", " spaced ", "a b", "a/b", "100%", "50% off", "ünïcode"]


def _job(pool: str, key: str = "pool") -> dict:
    return {key: pool, "maps": [{"command": ["true"]}]}


@pytest.mark.parametrize("pool", BAD_POOLS)
def test_a_pool_name_a_queue_cannot_have_is_refused_naming_the_field(pool: str) -> None:
    for key in ("pool", "queue"):
        with pytest.raises(JobFormatError) as exc:
            parse_job(_job(pool, key))
        assert exc.value.field == key, exc.value.message


@pytest.mark.parametrize("pool", GOOD_POOLS)
def test_a_pool_name_yarn_takes_is_accepted(pool: str) -> None:
    assert parse_job(_job(pool)).pool == pool.strip()
    assert check_pool(pool, "pool") == pool


def test_the_refusals_say_what_is_wrong() -> None:
    def why(pool: str) -> str:
        with pytest.raises(JobFormatError) as exc:
            check_pool(pool, "pool")
        return exc.value.message

    assert "empty part" in why("a..b") and "white space" in why("a. b")
    assert "U+202E" in why("a\u202eb") and "'%00'" in why("team%00")


def test_errors_are_kept_bounded_and_say_they_were_cut(tmp_path) -> None:
    assert bounded_error("short") == "short" and bounded_error(None) is None
    long = "x" * (MAX_ERROR + 6000)
    cut = bounded_error(long)
    assert cut is not None and cut.startswith("x" * MAX_ERROR) and cut.endswith("… [cut: 6000 more characters]")
    store = Store(tmp_path / "state")
    try:
        store.add_job("job_0001", 1, "alice", [], {"maps": []}, "j", "default", "NORMAL", 2, 0)
        store.task_ended("job_0001", "map", 0, "pending", error=long, failed=True)
        store.flush()
        task = store.tasks("job_0001")[0]
        assert task["error"] == cut
        store.job_ended("job_0001", "failed", error="map 0 failed 4 times; last error: " + long)
        error = store.job("job_0001")["error"]
        assert len(error) < MAX_ERROR + 40 and error.endswith("more characters]")
    finally:
        store.close()


def _config() -> dict:
    return {"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 2, "reduce_slots": 1},
            "service": {"tick": 0.05, "workers": 1, "isolation": "process", "max_attempts": 1}}


@pytest.mark.slow
def test_bad_pool_names_are_400_through_the_api_and_a_failed_map_counts_as_failed(live_service) -> None:
    live = live_service(_config())
    with httpx.Client(base_url=live.url, timeout=30) as c:
        for pool in ("a..b", "x\u202ey", "team%00"):
            r = c.post("/api/v1/jobs", json=_job(pool))
            assert r.status_code == 400 and r.json()["field"] == "pool", r.text
            r = c.put("/api/v1/admin/scheduling-mode", json={"pool": pool, "mode": "fifo"})
            assert r.status_code == 400 and r.json()["field"] == "pool", r.text
        job = c.post("/api/v1/jobs", json={"pool": "team", "maps": [{"command": ["false"]},
                                                                    {"command": ["sleep", "30"]}]})
        assert job.status_code == 201, job.text
        job_id = job.json()["id"]
        r = c.put(f"/api/v1/jobs/{job_id}/pool", json={"pool": "a..b"})
        assert r.status_code == 400 and r.json()["field"] == "pool", r.text
        pools = c.get("/api/v1/pools")
        assert pools.status_code == 200
        assert not {"a..b", "x\u202ey", "team%00"} & {p["name"] for p in pools.json()["pools"]}

        assert wait_for(lambda: c.get(f"/api/v1/jobs/{job_id}").json()["state"] == "failed", 60)
        maps = c.get(f"/api/v1/jobs/{job_id}").json()["maps"]
        assert maps["failed"] == 1 and maps["killed"] == 1 and maps["total"] == 2, maps
        states = {t["index"]: t["state"] for t in c.get(f"/api/v1/jobs/{job_id}/tasks").json()["tasks"]}
        assert states == {0: "failed", 1: "killed"}, states
        listed = [j for j in c.get("/api/v1/jobs").json()["jobs"] if j["id"] == job_id]
        assert listed and listed[0]["maps"]["failed"] == 1
