"""Data locality in the live service: a map's ``input_nodes`` names a worker (or its host);
delay scheduling (the default task selector) runs it there."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.slow


def test_maps_run_on_the_worker_holding_their_input(live_service) -> None:
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 2, "reduce_slots": 1},
                         "service": {"tick": 0.1, "workers": 2}})
    with httpx.Client(base_url=live.url, timeout=30) as c:
        workers = sorted(n["name"] for n in c.get("/api/v1/nodes").json()["nodes"])
        assert len(workers) == 2
        target = workers[1]
        job = c.post("/api/v1/jobs", json={"maps": [{"command": ["sleep", "0.3"], "input_nodes": [target]}] * 4})
        job_id = job.json()["id"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and c.get(f"/api/v1/jobs/{job_id}").json()["state"] != "finished":
            time.sleep(0.1)
        assert c.get(f"/api/v1/jobs/{job_id}").json()["state"] == "finished"
        nodes = {t["node"] for t in live.service.store.tasks(job_id)}
        assert nodes == {target}, nodes
