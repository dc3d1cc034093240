"""Regressions from the service review: reduces get every map's result; a refused start is a
failed attempt, not a stranded task; bodies that nest too deep, are too big or carry NUL
characters are 4xx with nothing stored; a bad pool in a move; 401 before the body is read;
one result that is not JSON does not hide the others."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.slow

NO_NULLS = ["python3", "-c", "import json, sys; d = json.load(sys.stdin); sys.exit(1 if None in d else 0)"]


def _wait(c, job_id: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    job = c.get(f"/api/v1/jobs/{job_id}").json()
    while time.monotonic() < deadline and job["state"] not in ("finished", "failed", "killed"):
        time.sleep(0.1)
        job = c.get(f"/api/v1/jobs/{job_id}").json()
    return job


def test_review_regressions(live_service, tmp_path) -> None:
    from corescheduler.service.api import Principal

    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 2, "reduce_slots": 1},
                         "scheduler": {"task_selector": "locality"}, "service": {"tick": 0.1, "workers": 2}},
                        tokens={"alice-token-1": Principal("alice", admin=True)})
    alice = {"Authorization": "Bearer alice-token-1"}
    with httpx.Client(base_url=live.url, timeout=30, headers=alice) as c:
        # a reduce starts when every map has finished, and gets every result
        maps = [{"command": ["sh", "-c", f"sleep 0.{i}; echo {i}"]} for i in range(8)]
        job = c.post("/api/v1/jobs", json={"maps": maps, "reduces": [{"command": NO_NULLS}]}).json()
        assert _wait(c, job["id"])["state"] == "finished"
        job = c.post("/api/v1/jobs", json={"maps": [{"call": "math:factorial", "args": [i]} for i in range(6)],
                                           "reduces": [{"call": "builtins:sum"}]}).json()
        assert _wait(c, job["id"])["state"] == "finished"
        assert c.get(f"/api/v1/jobs/{job['id']}/result").json()["result"] == [1 + 1 + 2 + 6 + 24 + 120]

        # results that are not JSON: each shown as its repr, the others kept
        job = c.post("/api/v1/jobs", json={"maps": [{"call": "builtins:abs", "args": [-5]},
                                                    {"call": "builtins:frozenset"},
                                                    {"call": "builtins:float", "args": ["nan"]}]}).json()
        assert _wait(c, job["id"])["state"] == "finished"
        result = c.get(f"/api/v1/jobs/{job['id']}/result").json()["result"]
        assert result[0] == 5 and result[1] == {"repr": "frozenset()", "type": "frozenset"}
        assert result[2] == {"repr": "nan", "type": "float"}

        # a start the engine refuses is a failed attempt: retried, then the job fails
        service = live.service
        real = service.backend.submit

        def refuse(attempt, payload, worker, priority=0):
            if "refuse-me" in str(payload.get("args")):
                raise RuntimeError("the engine refused it")
            return real(attempt, payload, worker, priority)

        service.backend.submit = refuse
        job = c.post("/api/v1/jobs", json={"maps": [{"call": "builtins:len", "args": ["refuse-me"]}]}).json()
        ended = _wait(c, job["id"])
        assert ended["state"] == "failed" and "could not be started" in ended["error"], ended
        service.backend.submit = real
        nodes = c.get("/api/v1/nodes").json()["nodes"]
        assert all(not n["running"] for n in nodes), "no task is left running without an attempt"

        before = len(c.get("/api/v1/jobs").json()["jobs"])
        refused = [
            (b"[" * 100_000, "body"),
            (b'{"maps": [{"call": "m:f", "args": ' + b"[" * 100 + b"]" * 100 + b"}]}", "maps[0].args"),
            (rb'{"maps": [{"command": ["echo", "a\u0000b"]}]}', "maps[0].command"),
            (b'{"maps": [{"command": ["true"], "env": {"A=B": "1"}}]}', "maps[0].env"),
            (b'{"maps": [{"command": ["true"], "resources": "1024 mb, 1 vcores"}]}', "maps[0].resources"),
        ]
        for body, field in refused:
            r = c.post("/api/v1/jobs", content=body)
            assert r.status_code == 400 and r.json()["field"] == field, (field, r.status_code, r.text[:300])
        r = c.post("/api/v1/jobs", content=b" " * (5 << 20))
        assert r.status_code == 413 and r.json()["field"] == "body"
        assert len(c.get("/api/v1/jobs").json()["jobs"]) == before

        long = c.post("/api/v1/jobs", json={"maps": [{"command": ["sleep", "30"]}]}).json()
        for pool in ["", "   ", "x" * 201]:
            r = c.put(f"/api/v1/jobs/{long['id']}/pool", json={"pool": pool})
            assert r.status_code == 400 and r.json()["field"] == "pool"
        r = c.put(f"/api/v1/jobs/{long['id']}/pool", json={"pool": 5})
        assert r.status_code == 400 and r.json()["field"] == "pool"
        r = httpx.put(f"{live.url}/api/v1/jobs/{long['id']}/pool", json={"pool": 5})
        assert r.status_code == 401  # no token: refused before the body is looked at
        r = c.put(f"/api/v1/jobs/{long['id']}/pool", json={"pool": "a/b"})
        assert r.status_code == 200 and r.json()["pool"] == "a/b"
        page = c.get("/scheduler").text
        assert "/scheduler/pools/a%2Fb/mode" in page
        assert c.delete(f"/api/v1/jobs/{long['id']}").json()["state"] == "killed"

    from corescheduler.client import Client, ServiceRequestError

    with Client(live.url, "alice-token-1") as client:  # an id is one path segment: no other path is reached
        with pytest.raises(ServiceRequestError) as info:
            client.job("../../healthz")
        assert info.value.status == 404
