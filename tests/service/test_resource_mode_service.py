"""The live service in resource mode: workers offer their memory and threads, tasks ask for
sizes, the queue's submit ACL refuses with 403 and nothing is stored."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.slow

XML = """<?xml version="1.0"?>
<allocations>
  <queue name="root">
    <aclSubmitApps> </aclSubmitApps>
    <aclAdministerApps> </aclAdministerApps>
    <queue name="prod"><aclSubmitApps>alice</aclSubmitApps></queue>
    <queue name="dev"><aclSubmitApps>*</aclSubmitApps></queue>
  </queue>
  <queuePlacementPolicy>
    <rule name="specified" create="false"/>
    <rule name="reject"/>
  </queuePlacementPolicy>
</allocations>
"""


def test_resource_mode_jobs_run_and_acls_refuse(live_service, tmp_path) -> None:
    from corescheduler.service.api import Principal

    alloc = tmp_path / "fair-scheduler.xml"
    alloc.write_text(XML)
    tokens = {"alice-token-1": Principal("alice"), "carol-token-1": Principal("carol")}
    live = live_service({"scheduler": {"mode": "resources", "allocation_file": str(alloc)},
                         "cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1, "workers": 2}}, tokens=tokens)
    alice = {"Authorization": "Bearer alice-token-1"}
    carol = {"Authorization": "Bearer carol-token-1"}
    with httpx.Client(base_url=live.url, timeout=30) as c:
        nodes = c.get("/api/v1/nodes").json()["nodes"]
        assert nodes and all(n["capacity"]["vcores"] >= 1 and n["capacity"]["memory"] > 0 for n in nodes)
        r = c.post("/api/v1/jobs", json={"queue": "root.prod", "maps": [{"command": ["true"]}]}, headers=carol)
        assert r.status_code == 403 and "does not have permission" in r.json()["error"]
        assert c.get("/api/v1/jobs").json()["jobs"] == []
        r = c.post("/api/v1/jobs", json={"queue": "root.nope", "maps": [{"command": ["true"]}]}, headers=alice)
        assert r.status_code == 400 and r.json()["field"] == "pool" and "reject" in r.json()["error"], r.text
        assert c.get("/api/v1/jobs").json()["jobs"] == []
        r = c.post("/api/v1/jobs", headers=alice, json={
            "queue": "root.prod", "task_resources": "256 mb, 1 vcores",
            "maps": [{"call": "math:factorial", "args": [4]}] * 3})
        assert r.status_code == 201, r.text
        job_id = r.json()["id"]
        assert r.json()["pool"] == "root.prod"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and c.get(f"/api/v1/jobs/{job_id}").json()["state"] != "finished":
            time.sleep(0.1)
        assert c.get(f"/api/v1/jobs/{job_id}/result", headers=alice).json()["result"] == [24, 24, 24]
        assert c.get(f"/api/v1/jobs/{job_id}/result").status_code == 401  # not anonymously (SPEC §8b)
        queues = {q["name"]: q for q in c.get("/api/v1/queues").json()["pools"]}
        assert {"root.prod", "root.dev"} <= set(queues)
        assert "corescheduler_pool_fair_share" in c.get("/metrics").text
