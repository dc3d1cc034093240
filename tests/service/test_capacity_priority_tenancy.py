"""Tenancy (review): under ``yarn_capacity`` with intra-queue preemption in ``priority_first``
mode, a tenant raising its own app's priority must not get another tenant's containers in a
shared queue killed — unless the operator lets it, as Hadoop 3.3 does.

Hadoop caps every app's priority at ``yarn.cluster.max-application-priority`` (default 0:
``CapacityScheduler.checkAndGetApplicationPriority``), so by default all apps are equal and
the intra-queue priority selector has nothing to take; with the maximum raised, the queue's
``acl_application_max_priority`` bounds what each user may set
(``ClientRMService.updateApplicationPriority``: AccessControlException → 403 here)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.service.conftest import yarn_capacity_tenants

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.slow

MONITOR = "yarn.resourcemanager.monitor.capacity.preemption."


def capacity(extra: str = "") -> str:
    props = {
        "yarn.scheduler.capacity.root.queues": "shared",
        "yarn.scheduler.capacity.root.shared.capacity": "100",
        # a worker offers its threads as vcores (2) and its memory limit: the queue is full by vcores
        "yarn.scheduler.capacity.resource-calculator":
            "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator",
        MONITOR + "monitoring_interval": "100",
        MONITOR + "max_wait_before_kill": "0",
        MONITOR + "total_preemption_per_round": "1.0",
        MONITOR + "intra-queue-preemption.enabled": "true",
        MONITOR + "intra-queue-preemption.max-allowable-limit": "1.0",
        MONITOR + "intra-queue-preemption.preemption-order-policy": "priority_first",
    }
    body = "".join(f"<property><name>{k}</name><value>{v}</value></property>" for k, v in props.items())
    return f"<configuration>{body}{extra}</configuration>"


def prop(name: str, value: str) -> str:
    return f"<property><name>{name}</name><value>{value}</value></property>"


def test_a_tenant_raising_its_priority_kills_nothing_of_another_by_default(live_service, tmp_path: Path) -> None:
    from corescheduler.service.api import Principal

    path = tmp_path / "capacity-scheduler.xml"
    path.write_text(capacity())
    tokens = {"alice-token-1": Principal("alice"), "bob-token-1": Principal("bob"),
              "admin-token-1": Principal("root", admin=True)}
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1},
                         "scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                       "allocation_file": str(path), "preemption": True,
                                       "preemption_interval": 0.1},
                         "service": {"tick": 0.1, "workers": 1}}, tokens=tokens)
    alice = {"Authorization": "Bearer alice-token-1"}
    bob = {"Authorization": "Bearer bob-token-1"}
    admin = {"Authorization": "Bearer admin-token-1"}
    sleep = {"queue": "shared", "task_resources": "256 mb, 1 vcores", "maps": [{"command": ["sleep", "60"]}] * 2}
    scheduler = live.service.scheduler

    def hers_running() -> int:  # (the service drains scheduler.killed as it cancels the attempts)
        return sum(1 for t in scheduler.ledger.running.values() if t.job.id == hers)
    with httpx.Client(base_url=live.url, timeout=30) as c:
        r = c.post("/api/v1/jobs", json=sleep, headers=alice)
        assert r.status_code == 201, r.text
        hers = r.json()["id"]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(scheduler.ledger.running) < 2:
            time.sleep(0.1)
        assert len(scheduler.ledger.running) == 2  # alice holds the whole queue
        # bob asks VERY_HIGH at submission and again by PUT: both accepted, both capped at 0
        r = c.post("/api/v1/jobs", json={**sleep, "priority": "VERY_HIGH"}, headers=bob)
        assert r.status_code == 201, r.text
        his = r.json()["id"]
        r = c.put(f"/api/v1/jobs/{his}/priority", json={"priority": "VERY_HIGH"}, headers=bob)
        assert r.status_code == 200, r.text
        policy = scheduler.plugins.share_policy("yarn_capacity").policy
        assert policy.app_priority(scheduler.jobs[his]) == 0
        # many monitoring rounds (100 ms each, kill at once): none of alice's containers go
        time.sleep(2.0)
        assert hers_running() == 2
        assert [t.attempts for t in scheduler.jobs[hers].tasks["map"]] == [1, 1]  # none preempted and run again

        # the operator raises the cluster's maximum but grants bob only 0: his raise is refused
        path.write_text(capacity(prop("yarn.cluster.max-application-priority", "2")
                                 + prop("yarn.scheduler.capacity.root.shared.acl_application_max_priority",
                                        "[user=alice max_priority=2] [user=bob max_priority=0]")))
        assert c.post("/api/v1/admin/reload", headers=admin).status_code == 200
        r = c.put(f"/api/v1/jobs/{his}/priority", json={"priority": "HIGH"}, headers=bob)
        assert r.status_code == 403, r.text
        # so is a submission at a priority above his (AccessControlException at submit), nothing stored
        before = len(c.get("/api/v1/jobs", headers=admin).json()["jobs"])
        refused = c.post("/api/v1/jobs", json={**sleep, "priority": "HIGH"}, headers=bob)
        assert refused.status_code == 403 and "does not have permission" in refused.json()["error"], refused.text
        assert len(c.get("/api/v1/jobs", headers=admin).json()["jobs"]) == before
        assert "does not have permission" in r.json()["error"] and r.json()["field"] == "priority"
        assert c.get(f"/api/v1/jobs/{his}", headers=bob).json()["priority"] == "VERY_HIGH"  # as before
        assert policy.app_priority(scheduler.jobs[his]) == 0
        time.sleep(1.0)
        assert hers_running() == 2

        # granted max_priority 2, bob may — and then, as in Hadoop, alice's containers go
        path.write_text(capacity(prop("yarn.cluster.max-application-priority", "2")
                                 + prop("yarn.scheduler.capacity.root.shared.acl_application_max_priority",
                                        "[user=alice,bob max_priority=2]")))
        assert c.post("/api/v1/admin/reload", headers=admin).status_code == 200
        r = c.put(f"/api/v1/jobs/{his}/priority", json={"priority": "VERY_HIGH"}, headers=bob)
        assert r.status_code == 200, r.text
        assert policy.app_priority(scheduler.jobs[his]) == 2
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and hers_running() == 2:
            time.sleep(0.1)
        assert hers_running() < 2  # preempted for bob's app
        for job in (hers, his):
            assert c.delete(f"/api/v1/jobs/{job}", headers=admin).status_code == 200


def test_an_admins_priority_change_outlives_a_restart(live_service, tmp_path: Path) -> None:
    """SPEC §8 durability: a job an admin raised past what its owner's priority ACL allows is
    restored at that priority after a restart (placed as submitted, then re-prioritised
    again), not failed by the ACL."""
    path = tmp_path / "capacity-scheduler.xml"
    path.write_text(capacity(prop("yarn.cluster.max-application-priority", "2")
                             + prop("yarn.scheduler.capacity.root.shared.acl_application_max_priority",
                                    "[user=alice max_priority=0]")))
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    config, tokens, alice, admin = yarn_capacity_tenants(path)
    sleep = {"queue": "shared", "task_resources": "128 mb, 1 vcores", "maps": [{"command": ["sleep", "30"]}]}
    live = live_service(config, tokens=tokens, state=str(state))
    with httpx.Client(base_url=live.url, timeout=30) as c:
        job = c.post("/api/v1/jobs", json=sleep, headers=alice).json()["id"]
        assert c.put(f"/api/v1/jobs/{job}/priority", json={"priority": "VERY_HIGH"}, headers=alice).status_code == 403
        assert c.put(f"/api/v1/jobs/{job}/priority", json={"priority": "VERY_HIGH"}, headers=admin).status_code == 200
    live.stop()
    again = live_service(config, tokens=tokens, state=str(state))
    with httpx.Client(base_url=again.url, timeout=30) as c:
        r = c.get(f"/api/v1/jobs/{job}", headers=admin).json()
        assert r["state"] in ("accepted", "running") and r["priority"] == "VERY_HIGH", r
        policy = again.service.scheduler.plugins.share_policy("yarn_capacity").policy
        assert policy.app_priority(again.service.scheduler.jobs[job]) == 2
        assert c.delete(f"/api/v1/jobs/{job}", headers=admin).status_code == 200
