"""A large job is checked and prepared off the event loop (issue 26 item 5, reads and
submits never block scheduling): ``/healthz`` answers while a 20,000-task job is being
submitted, and the job is stored whole."""

from __future__ import annotations

import threading
from typing import Any

import httpx

from corescheduler.service.service import LARGE_JOB


def test_healthz_answers_while_a_large_job_is_being_prepared(live_service, tmp_path) -> None:
    alloc = tmp_path / "pools.xml"
    alloc.write_text("<allocations><pool name='big'><maxRunningJobs>0</maxRunningJobs></pool></allocations>")
    live = live_service({"scheduler": {"allocation_file": str(alloc)},
                         "cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1}})
    service = live.service
    real = service._prepare
    entered, answered = threading.Event(), threading.Event()
    seen: dict[str, Any] = {}

    def prepare(*args: Any) -> Any:
        # the prepare waits for /healthz's answer: were it on the event loop, /healthz could
        # not answer until it returned (and the test would fail on its bounded waits)
        seen["thread"] = threading.current_thread().name
        entered.set()
        seen["answered in time"] = answered.wait(60)
        return real(*args)

    service._prepare = prepare  # type: ignore[method-assign]
    tasks = 20 * LARGE_JOB
    out: dict[str, Any] = {}

    def submit() -> None:
        with httpx.Client(base_url=live.url, timeout=300) as c:
            out["response"] = c.post("/api/v1/jobs", json={"pool": "big", "maps": [{"command": ["true"]}] * tasks})

    submitter = threading.Thread(target=submit, daemon=True)
    submitter.start()
    try:
        assert entered.wait(120), "the submit never reached its preparation"
        with httpx.Client(base_url=live.url, timeout=30) as c:
            health = c.get("/healthz")
        assert health.status_code == 200 and "response" not in out  # answered before the submit returned
        answered.set()
    finally:
        answered.set()
        submitter.join(300)
    assert seen["answered in time"] and seen["thread"].startswith("corescheduler-prepare"), seen
    response = out["response"]
    assert response.status_code == 201, response.text
    job = response.json()
    assert job["maps"]["total"] == tasks and job["maps"]["pending"] == tasks
    with httpx.Client(base_url=live.url, timeout=30) as c:
        page = c.get(f"/api/v1/jobs/{job['id']}/tasks", params={"limit": 2, "after": f"{job['id']}_m_{tasks - 3:06d}"})
    assert [t["index"] for t in page.json()["tasks"]] == [tasks - 2, tasks - 1]


def test_a_large_job_refused_off_the_loop_is_a_clear_400(live_service) -> None:
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1}})
    maps: list[Any] = [{"command": ["true"]}] * (2 * LARGE_JOB)
    maps = [*maps[:-1], {"command": "not a list"}]
    with httpx.Client(base_url=live.url, timeout=120) as c:
        r = c.post("/api/v1/jobs", json={"maps": maps})
        assert r.status_code == 400, r.text
        assert r.json()["field"] == f"maps[{2 * LARGE_JOB - 1}].command"
        assert c.get("/api/v1/jobs").json()["jobs"] == []  # nothing stored
