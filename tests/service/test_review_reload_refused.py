"""Review: a capacity file the scheduler refuses on reload (``refreshQueues``: a RUNNING queue
deleted; or a policy's own check) is a 400 naming why on ``POST /admin/reload`` — it was a 500
with a traceback — and the file watcher logs it and keeps turning; either way the last good
file stays in force *and* in the loader (it was replaced by the refused one, the ``last good``
a later restart or mode switch would have used)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.slow


def capacity(queues: str, caps: dict[str, str]) -> str:
    props = {"root.queues": queues, **{f"root.{q}.capacity": c for q, c in caps.items()}}
    body = "".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                   for k, v in props.items())
    return f"<configuration>{body}</configuration>"


GOOD = capacity("a,b,default", {"a": "40", "b": "40", "default": "20"})
DROPS_B = capacity("a,default", {"a": "80", "default": "20"})  # b is RUNNING: refreshQueues refuses


def test_a_refused_reload_is_a_400_and_keeps_the_last_good_file(live_service, tmp_path: Path) -> None:
    from corescheduler.service.api import Principal

    path = tmp_path / "capacity-scheduler.xml"
    path.write_text(GOOD)
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1},
                         "scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                       "allocation_file": str(path)},
                         "service": {"tick": 0.1, "workers": 1}},
                        tokens={"admin-token-1": Principal("root", admin=True)})
    loader = live.service._loader
    with httpx.Client(base_url=live.url, timeout=30, headers={"Authorization": "Bearer admin-token-1"}) as c:
        path.write_text(DROPS_B)
        r = c.post("/api/v1/admin/reload")
        assert r.status_code == 400, r.text
        assert "root.b cannot be deleted" in r.json()["error"]
        assert loader.current.policy_config.resolve("b") == "root.b"
        assert c.post("/api/v1/jobs", json={"queue": "b", "maps": [{"command": ["true"]}]}).status_code == 201

        # the watcher: the same file seen changed on a turn is refused, logged, and the loop turns on
        loader.last_successful_reload = -1.0
        loader.last_attempt = -1e9
        loader.RELOAD_WAIT = 0.0
        turns = live.service.last_turn
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (loader.last_error is None or live.service.last_turn <= turns + 1):
            time.sleep(0.1)
        assert loader.last_error is not None and "root.b cannot be deleted" in str(loader.last_error)
        assert loader.current.policy_config.resolve("b") == "root.b"
        assert live.service.engine_error is None
        assert c.get("/healthz").status_code == 200
        assert c.post("/api/v1/jobs", json={"queue": "b", "maps": [{"command": ["true"]}]}).status_code == 201
