"""Issue 26 item 6 on the live service: one-off pools are forgotten once idle (``/pools``,
``/metrics`` and the page stay bounded), and in resource mode a zero ask is normalized to
the minimum allocation, so a worker never runs more tasks than its threads."""

from __future__ import annotations

import time

import pytest

from tests.service.conftest import wait_for

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.slow


def most_tasks_on_a_worker(c: httpx.Client, sched: object, job_id: str) -> int:
    """The most tasks any worker ran at once until ``job_id`` finished (bounded: 90 s)."""
    most = 0
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        most = max(most, max(len(n.tasks) for n in sched.cluster.nodes.values()))  # type: ignore[attr-defined]
        if c.get(f"/api/v1/jobs/{job_id}").json()["state"] == "finished":
            break
        time.sleep(0.02)
    assert c.get(f"/api/v1/jobs/{job_id}").json()["state"] == "finished"
    return most


def test_one_off_pools_are_gone_once_idle(live_service, shared_dir) -> None:
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 2, "reduce_slots": 1},
                         "service": {"tick": 0.05, "workers": 1, "isolation": "process"}})
    gate = shared_dir / "go"
    # two tasks hold both slots until the gate opens (bounded: 60 s), so the one-off jobs are all
    # still there when the pools are counted, however slowly this machine posts them
    hold = f"for i in $(seq 600); do [ -e {gate} ] && exit 0; sleep 0.1; done"
    with httpx.Client(base_url=live.url, timeout=30) as c:
        held = c.post("/api/v1/jobs", json={"maps": [{"command": ["sh", "-c", hold]}] * 2}).json()["id"]
        assert wait_for(lambda: c.get(f"/api/v1/jobs/{held}").json().get("running", {}).get("map") == 2, 30)
        ids = [c.post("/api/v1/jobs", json={"pool": f"oneoff{i}", "maps": [{"call": "math:factorial",
                                                                              "args": [3]}]}).json()["id"]
               for i in range(100)]
        assert len(c.get("/api/v1/pools").json()["pools"]) > 50  # while they have jobs
        gate.touch()
        assert wait_for(lambda: all(j["state"] == "finished" for j in c.get("/api/v1/jobs").json()["jobs"]), 120)
        assert wait_for(lambda: [p["name"] for p in c.get("/api/v1/pools").json()["pools"]] == ["default"], 30), \
            [p["name"] for p in c.get("/api/v1/pools").json()["pools"]]
        metrics = c.get("/metrics").text
        page = c.get("/scheduler").text
        assert "oneoff" not in metrics and 'pool="default"' in metrics
        assert "oneoff" not in page.split("<h2>Running Jobs</h2>")[0]  # the pools table and the chart
        assert len(metrics) < 20_000
        # the jobs themselves are still there, with the pool they ran in
        assert c.get(f"/api/v1/jobs/{ids[42]}").json()["pool"] == "oneoff42"


def test_zero_asks_never_run_more_tasks_on_a_worker_than_its_threads(live_service) -> None:
    live = live_service({"scheduler": {"mode": "resources"},
                         "cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.05, "workers": 1, "threads": 2}})
    sched = live.service.scheduler
    with httpx.Client(base_url=live.url, timeout=30) as c:
        nodes = wait_for(lambda: c.get("/api/v1/nodes").json()["nodes"], 30)
        assert [n["threads"] for n in nodes] == [2]
        job = c.post("/api/v1/jobs", json={"task_resources": "0 mb, 0 vcores",
                                           "maps": [{"command": ["sleep", "0.3"]}] * 8}).json()
        assert job["state"] in ("accepted", "running")
        most = most_tasks_on_a_worker(c, sched, job["id"])
        assert 1 <= most <= 2
        assert all(n["used"] == {"memory": 0, "vcores": 0} for n in c.get("/api/v1/nodes").json()["nodes"])


def test_the_service_refuses_a_minimum_allocation_of_no_vcores() -> None:
    from corescheduler.config import Config
    from corescheduler.service.service import Service, ServiceError

    with pytest.raises(ServiceError, match="at least 1 vcores"):
        Service(Config.from_dict({"scheduler": {"mode": "resources"},
                                  "cluster": {"minimum_allocation": "0 mb, 0 vcores"}}))


def test_yarn_capacity_never_runs_more_tasks_on_a_worker_than_its_threads(live_service, tmp_path) -> None:
    """Under ``DefaultResourceCalculator`` YARN's Capacity Scheduler fits a container by its
    memory alone (``fits_by_memory``: the simulator overcommits vcores, as Hadoop does); the
    live service still enforces every resource of a worker (``Scheduler(strict_fit=True)``)."""
    from tests.service.conftest import capacity_file

    path = tmp_path / "capacity-scheduler.xml"
    path.write_text(capacity_file(**{"root.queues": "default", "root.default.capacity": "100"}))
    live = live_service({"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                       "allocation_file": str(path)},
                         "cluster": {"racks": 1, "nodes_per_rack": 1},
                         "service": {"tick": 0.05, "workers": 1, "threads": 2}})
    sched = live.service.scheduler
    with httpx.Client(base_url=live.url, timeout=30) as c:
        nodes = wait_for(lambda: c.get("/api/v1/nodes").json()["nodes"], 30)
        assert [n["threads"] for n in nodes] == [2]
        job = c.post("/api/v1/jobs", json={"task_resources": "1024 mb, 1 vcores",
                                           "maps": [{"command": ["sleep", "0.3"]}] * 6}).json()
        assert job["state"] in ("accepted", "running"), job
        most = most_tasks_on_a_worker(c, sched, job["id"])
        assert 1 <= most <= 2
