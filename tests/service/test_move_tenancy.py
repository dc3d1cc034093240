"""SPEC §8b: moving jobs between queues in ``serve`` under ``yarn_capacity`` (resource mode).
A tenant never moves another tenant's job, nor moves its own job into a queue it may not
submit to (``ClientRMService.moveApplicationAcrossQueues``: the caller's submit access to the
target queue); an admin may; a refused move changes nothing, and the plugin's counts follow
an accepted one."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.service.conftest import capacity_file, yarn_capacity_tenants

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.slow


FILE = capacity_file(**{
    "root.queues": "a,b,c", "root.a.capacity": "40", "root.b.capacity": "40", "root.c.capacity": "20",
    "root.acl_submit_applications": " ", "root.acl_administer_queue": " ",
    "root.a.acl_submit_applications": "alice", "root.b.acl_submit_applications": "bob",
    "root.b.acl_administer_queue": "bob", "root.c.acl_submit_applications": "alice,bob",
})


def test_a_tenant_moves_only_its_jobs_and_only_into_its_queues(live_service, tmp_path: Path) -> None:
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
    admin = {"Authorization": "Bearer admin-token-1"}
    sleep = {"task_resources": "128 mb, 1 vcores", "maps": [{"command": ["sleep", "30"]}] * 2}
    policy = live.service.scheduler.plugins.share_policy("yarn_capacity").policy

    def pool(c: httpx.Client, job: str) -> str:
        return str(c.get(f"/api/v1/jobs/{job}", headers=admin).json()["pool"])

    with httpx.Client(base_url=live.url, timeout=30) as c:
        r = c.post("/api/v1/jobs", json={**sleep, "queue": "a"}, headers=alice)
        assert r.status_code == 201, r.text
        mine = r.json()["id"]
        r = c.post("/api/v1/jobs", json={**sleep, "queue": "b"}, headers=bob)
        assert r.status_code == 201, r.text
        his = r.json()["id"]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(live.service.scheduler.ledger.running) < 2:
            time.sleep(0.1)
        # bob may not move alice's job, anywhere
        assert c.put(f"/api/v1/jobs/{mine}/pool", json={"pool": "b"}, headers=bob).status_code == 403
        assert c.put(f"/api/v1/jobs/{mine}/pool", json={"pool": "c"}, headers=bob).status_code == 403
        # alice may not move her job into bob's queue: 403, nothing moved, nothing stored
        r = c.put(f"/api/v1/jobs/{mine}/pool", json={"pool": "b"}, headers=alice)
        assert r.status_code == 403, r.text
        assert "root.b" in r.json()["error"] and "alice" in r.json()["error"]
        r = c.put(f"/api/v1/jobs/{mine}/pool", json={"pool": "root.b"}, headers=alice)
        assert r.status_code == 403, r.text
        assert pool(c, mine) == "root.a" and live.service.scheduler.jobs[mine].queue == "root.a"
        assert (policy._apps["root.a"], policy._apps["root.b"]) == (1, 1)
        # nor bob his into hers
        assert c.put(f"/api/v1/jobs/{his}/pool", json={"pool": "a"}, headers=bob).status_code == 403
        assert pool(c, his) == "root.b"
        # a refused move by the scheduler's rules: 400, nothing moved
        r = c.put(f"/api/v1/jobs/{mine}/pool", json={"pool": "nowhere"}, headers=alice)
        assert r.status_code == 400 and "doesn't exist" in r.json()["error"]
        # into a queue she may use: moved, her running containers' use with it
        r = c.put(f"/api/v1/jobs/{mine}/pool", json={"pool": "c"}, headers=alice)
        assert r.status_code == 200, r.text
        assert r.json()["pool"] == "root.c" and pool(c, mine) == "root.c"
        assert (policy._apps["root.a"], policy._apps["root.c"]) == (0, 1)
        used = policy._user_used["root.c"]["alice"]
        assert used.memory > 0 and policy._user_used["root.a"]["alice"].memory == 0
        # an admin may move it anywhere, even into bob's queue; bob, who administers root.b,
        # may then act on it there, but not move it into alice's queue
        assert c.put(f"/api/v1/jobs/{mine}/pool", json={"pool": "b"}, headers=admin).status_code == 200
        assert pool(c, mine) == "root.b"
        assert c.put(f"/api/v1/jobs/{mine}/pool", json={"pool": "a"}, headers=bob).status_code == 403
        assert pool(c, mine) == "root.b"
        assert c.delete(f"/api/v1/jobs/{mine}", headers=alice).status_code == 200
        assert c.delete(f"/api/v1/jobs/{his}", headers=bob).status_code == 200
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and live.service.scheduler.ledger.running:
            time.sleep(0.1)
        assert not live.service.scheduler.ledger.running
        assert all(not r.any_positive() for users in policy._user_used.values() for r in users.values())
        assert not any(policy._apps.values())


def test_an_admins_move_outlives_a_restart(live_service, tmp_path: Path) -> None:
    """SPEC §8 durability: a job an admin moved into a queue its owner may not submit to is
    restored there after a restart (placed as submitted, then moved again), not failed by the
    target's submit ACL."""
    path = tmp_path / "capacity-scheduler.xml"
    path.write_text(FILE)
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    config, tokens, alice, admin = yarn_capacity_tenants(path)
    sleep = {"task_resources": "128 mb, 1 vcores", "maps": [{"command": ["sleep", "30"]}]}
    live = live_service(config, tokens=tokens, state=str(state))
    with httpx.Client(base_url=live.url, timeout=30) as c:
        job = c.post("/api/v1/jobs", json={**sleep, "queue": "a"}, headers=alice).json()["id"]
        assert c.put(f"/api/v1/jobs/{job}/pool", json={"pool": "b"}, headers=admin).status_code == 200
    live.stop()
    again = live_service(config, tokens=tokens, state=str(state))
    with httpx.Client(base_url=again.url, timeout=30) as c:
        r = c.get(f"/api/v1/jobs/{job}", headers=admin).json()
        assert r["state"] in ("accepted", "running") and r["pool"] == "root.b", r
        assert again.service.scheduler.jobs[job].queue == "root.b"
        assert c.delete(f"/api/v1/jobs/{job}", headers=admin).status_code == 200


def test_a_move_the_ledger_cannot_record_changes_nothing(live_service, tmp_path: Path) -> None:
    """A move whose commit fails (a full disk) is a 503 and nothing moved.  The move used to be
    made first and undone by a move back, which the queues' rules may refuse once the first
    move has changed them: here the waiting app of queue a ran in the moved app's place, so the
    move back broke a's maxRunningApps of 1 — a 500, the scheduler in b, the ledger in a."""
    import sqlite3

    path = tmp_path / "fair.xml"
    path.write_text('<allocations><queue name="a"><maxRunningApps>1</maxRunningApps></queue>'
                    '<queue name="b"/></allocations>')
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1},
                         "scheduler": {"mode": "resources", "allocation_file": str(path)},
                         "service": {"tick": 0.1, "workers": 1}}, state=str(tmp_path / "state"))
    sleep = {"task_resources": "128 mb, 1 vcores", "maps": [{"command": ["sleep", "30"]}]}
    sched = live.service.scheduler
    store = live.service.store
    with httpx.Client(base_url=live.url, timeout=30) as c:
        first = c.post("/api/v1/jobs", json={**sleep, "queue": "a"}).json()["id"]
        second = c.post("/api/v1/jobs", json={**sleep, "queue": "a"}).json()["id"]
        assert [sched.jobs[j].runnable for j in (first, second)] == [True, False]
        real = store._execute

        def execute(sql: str, args: tuple = ()) -> object:
            if sql == "COMMIT":
                raise sqlite3.OperationalError("database or disk is full")
            return real(sql, args)

        store._execute = execute
        try:
            r = c.put(f"/api/v1/jobs/{first}/pool", json={"pool": "b"})
        finally:
            store._execute = real
        assert r.status_code == 503, r.text
        assert [(sched.jobs[j].queue, sched.jobs[j].runnable) for j in (first, second)] == [
            ("root.a", True), ("root.a", False)]
        assert c.get(f"/api/v1/jobs/{first}").json()["pool"] == "root.a"
        r = c.put(f"/api/v1/jobs/{first}/pool", json={"pool": "b"})  # the ledger writes again: it moves
        assert r.status_code == 200 and r.json()["pool"] == "root.b", r.text
        assert [(sched.jobs[j].queue, sched.jobs[j].runnable) for j in (first, second)] == [
            ("root.b", True), ("root.a", True)]


def test_a_job_placed_by_a_mapping_and_moved_by_an_admin_outlives_a_restart(live_service, tmp_path: Path) -> None:
    """alice names no queue (a queue mapping places her job in a); an admin moves it to b, where
    alice may not submit.  After a restart the job is placed by the mapping again and moved to
    b again, as Hadoop's recovery runs no submit ACL (it was failed: "could not be restored")."""
    path = tmp_path / "capacity-scheduler.xml"
    path.write_text(capacity_file(**{
        "root.queues": "a,b", "root.a.capacity": "50", "root.b.capacity": "50",
        "root.acl_submit_applications": " ", "root.acl_administer_queue": " ",
        "root.a.acl_submit_applications": "alice", "root.b.acl_submit_applications": "bob",
        "queue-mappings": "u:alice:a"}))
    config, tokens, alice, admin = yarn_capacity_tenants(path)
    live = live_service(config, tokens=tokens, state=str(tmp_path / "state"))
    with httpx.Client(base_url=live.url, timeout=30) as c:
        r = c.post("/api/v1/jobs", json={"task_resources": "128 mb, 1 vcores",
                                         "maps": [{"command": ["sleep", "30"]}]}, headers=alice)
        assert r.status_code == 201 and r.json()["pool"] == "root.a", r.text
        job = r.json()["id"]
        r = c.put(f"/api/v1/jobs/{job}/pool", json={"pool": "b"}, headers=admin)
        assert r.status_code == 200 and r.json()["pool"] == "root.b", r.text
    live.stop()
    again = live_service(config, tokens=tokens, state=str(tmp_path / "state"))
    with httpx.Client(base_url=again.url, timeout=30) as c:
        row = c.get(f"/api/v1/jobs/{job}", headers=admin).json()
        assert row["state"] in ("accepted", "running") and row["pool"] == "root.b", row
