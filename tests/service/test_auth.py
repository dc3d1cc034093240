"""Auth (SPEC §8): 401 without a valid token on a mutating request, 403 for a non-admin acting
on someone else's job or on the scheduling mode; the user is the token's; the tokens file is
checked with the file named."""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

from corescheduler.errors import ConfigError  # noqa: E402
from corescheduler.service.api import load_tokens  # noqa: E402

pytestmark = pytest.mark.slow

TOKENS = """
[tokens."alice-secret-1"]
user = "alice"
groups = ["eng"]

[tokens."bob-secret-22"]
user = "bob"

[tokens."root-secret-333"]
user = "ops"
admin = true
"""


def test_tokens_and_ownership(live_service, tmp_path) -> None:
    path = tmp_path / "tokens.toml"
    path.write_text(TOKENS)
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.2}}, tokens=load_tokens(path))
    alice = {"Authorization": "Bearer alice-secret-1"}
    bob = {"Authorization": "Bearer bob-secret-22"}
    ops = {"Authorization": "Bearer root-secret-333"}
    job = {"maps": [{"command": ["sleep", "30"]}]}
    with httpx.Client(base_url=live.url, timeout=30) as c:
        r = c.post("/api/v1/jobs", json=job)
        assert r.status_code == 401 and r.json()["field"] == "Authorization"
        r = c.post("/api/v1/jobs", json=job, headers={"Authorization": "Bearer nope-nope-nope"})
        assert r.status_code == 401 and "unknown token" in r.json()["error"]
        assert len(c.get("/api/v1/jobs").json()["jobs"]) == 0  # nothing stored
        mine = c.post("/api/v1/jobs", json=job, headers=alice).json()
        assert mine["user"] == "alice"
        assert c.post("/api/v1/jobs", json={**job, "user": "bob"}, headers=alice).status_code == 400
        r = c.delete(f"/api/v1/jobs/{mine['id']}", headers=bob)
        assert r.status_code == 403 and "belongs to alice" in r.json()["error"]
        r = c.put(f"/api/v1/jobs/{mine['id']}/pool", json={"pool": "other"}, headers=bob)
        assert r.status_code == 403
        r = c.put("/api/v1/admin/scheduling-mode", json={"pool": "alice", "mode": "fifo"}, headers=alice)
        assert r.status_code == 403
        r = c.put("/api/v1/admin/scheduling-mode", json={"pool": "alice", "mode": "fifo"}, headers=ops)
        assert r.status_code == 200
        assert c.delete(f"/api/v1/jobs/{mine['id']}").status_code == 401
        r = c.put(f"/api/v1/jobs/{mine['id']}/priority", json={"priority": "HIGH"}, headers=ops)
        assert r.status_code == 200 and r.json()["priority"] == "HIGH"
        r = c.delete(f"/api/v1/jobs/{mine['id']}", headers=alice)
        assert r.status_code == 200 and r.json()["state"] == "killed"
        assert c.get(f"/api/v1/jobs/{mine['id']}").status_code == 200  # reading is open


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tokens.\"short\"]\nuser = \"a\"\n", "at least 8 characters"),
        ("[tokens.\"long-enough\"]\nname = \"a\"\n", "expected user"),
        ("[tokens.\"long-enough\"]\nuser = \"a\"\nadmin = \"yes\"\n", "admin: expected true or false"),
        ("[other]\n", "expected only"),
        ("tokens = [", "not valid TOML"),
    ],
)
def test_a_bad_tokens_file_is_named(tmp_path, text, message) -> None:
    path = tmp_path / "tokens.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_tokens(path)
    assert str(path) in str(info.value)
