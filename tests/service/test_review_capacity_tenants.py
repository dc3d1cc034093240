"""Review (session 15): two tenants under ``yarn_capacity`` in ``serve`` — queue ACLs
(``acl_submit_applications`` / ``acl_administer_queue``, Hadoop's ``CapacitySchedulerConfiguration.getAcl``:
root ``*`` unless set, the others nobody, an ancestor's ACL counts) against tenants, a queue
mapping that places one tenant's app into another's queue, and the plugin's counts once the
jobs are killed or done."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.service.conftest import capacity_file

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.slow


FILE = capacity_file(**{
    "root.queues": "a,b", "root.a.capacity": "50", "root.b.capacity": "50",
    "root.acl_submit_applications": " ", "root.acl_administer_queue": " ",
    "root.a.acl_submit_applications": "alice", "root.b.acl_submit_applications": "bob",
    "root.b.acl_administer_queue": "bob",
    # alice's apps that name no queue go to bob's queue: her submit ACL there is checked
    "queue-mappings": "u:alice:b",
})


def test_tenants_under_capacity_acls_and_mappings(live_service, tmp_path: Path) -> None:
    from corescheduler.service.api import Principal

    path = tmp_path / "capacity-scheduler.xml"
    path.write_text(FILE)
    tokens = {"alice-token-1": Principal("alice"), "bob-token-1": Principal("bob"),
              "admin-token-1": Principal("root", admin=True)}
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1},
                         "scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                       "allocation_file": str(path)},
                         "service": {"tick": 0.1, "workers": 1}}, tokens=tokens)
    alice = {"Authorization": "Bearer alice-token-1"}
    bob = {"Authorization": "Bearer bob-token-1"}
    sleep = {"task_resources": "128 mb, 1 vcores", "maps": [{"command": ["sleep", "30"]}] * 2}
    with httpx.Client(base_url=live.url, timeout=30) as c:
        # the mapping puts alice's app in root.b, where only bob may submit: refused, nothing stored
        r = c.post("/api/v1/jobs", json=sleep, headers=alice)
        assert r.status_code == 403, r.text
        assert "root.b" in r.json()["error"]
        # naming a queue she may not use: refused
        assert c.post("/api/v1/jobs", json={**sleep, "queue": "b"}, headers=alice).status_code == 403
        assert c.get("/api/v1/jobs", headers=alice).json()["jobs"] == []
        # her own queue
        r = c.post("/api/v1/jobs", json={**sleep, "queue": "a"}, headers=alice)
        assert r.status_code == 201, r.text
        mine = r.json()["id"]
        assert r.json()["pool"] == "root.a"
        r = c.post("/api/v1/jobs", json={**sleep, "queue": "b"}, headers=bob)
        assert r.status_code == 201, r.text
        his = r.json()["id"]
        # bob administers root.b, not root.a: he may not kill, move or read alice's job
        assert c.delete(f"/api/v1/jobs/{mine}", headers=bob).status_code == 403
        assert c.get(f"/api/v1/jobs/{mine}/result", headers=bob).status_code == 403
        assert c.delete(f"/api/v1/jobs/{his}", headers=alice).status_code == 403
        policy = live.service.scheduler.plugins.share_policy("yarn_capacity").policy
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and sum(1 for t in live.service.scheduler.ledger.running.values()) < 2:
            time.sleep(0.1)
        assert c.delete(f"/api/v1/jobs/{mine}", headers=alice).status_code == 200
        assert c.delete(f"/api/v1/jobs/{his}", headers=bob).status_code == 200
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and live.service.scheduler.ledger.running:
            time.sleep(0.1)
        assert not live.service.scheduler.ledger.running
        # the plugin's counts follow: nothing used, no app placed
        assert all(not r.any_positive() for users in policy._user_used.values() for r in users.values())
        assert not any(policy._apps.values())
