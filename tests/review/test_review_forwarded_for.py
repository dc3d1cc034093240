"""Review (session 15): ``corescheduler serve`` ran uvicorn with its defaults, which believe
``X-Forwarded-For`` from 127.0.0.1 (``proxy_headers=True``, ``forwarded_allow_ips`` 127.0.0.1)
and make it the request's client.  A local reader — and ``serve`` without ``--tokens`` listens
only on loopback, so every reader is local — could then name a fresh "host" with every read:
the read gate keys anonymous reads by the client's host, so each read started at cost 0 and
went ahead of every other reader, never backed off; and the access log (SPEC §8b: nothing in
it the client chooses) printed whatever the header said.  ``serve`` now passes
``proxy_headers=False``: the client is the connection's peer."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cli_helpers import run

httpx = pytest.importorskip("httpx")
pytest.importorskip("distributed")

CONFIG = """\
[cluster]
racks = 1
nodes_per_rack = 1
map_slots = 1
reduce_slots = 1

[service]
tick = 0.1
"""


def serve_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The keyword arguments ``corescheduler serve`` hands to ``uvicorn.run``."""
    import uvicorn

    import corescheduler.cli.serve as serve_cli
    import corescheduler.service.api as api
    import corescheduler.service.logs as logs
    import corescheduler.service.service as service_module
    from corescheduler.plugin_manager import PluginSet

    path = tmp_path / "c.toml"
    path.write_text(CONFIG)

    class FakeService:
        def __init__(self, cfg: Any, **_: object) -> None:
            self.scheduler = SimpleNamespace(allocations=None, plugins=PluginSet(cfg))
            self.backend = SimpleNamespace(n_workers=1)
            self.embedded = True

    got: dict[str, Any] = {}
    monkeypatch.setattr(service_module, "Service", FakeService)
    monkeypatch.setattr(api, "create_app", lambda *a, **k: None)
    monkeypatch.setattr(uvicorn, "run", lambda app, **k: got.update(k))
    monkeypatch.setattr(serve_cli, "_check_identity", lambda cfg: None)
    monkeypatch.setattr(logs, "configure", lambda *a, **k: None)
    monkeypatch.setenv("DASK_LOGGING", "{}")
    result = run("serve", "--config", str(path), "--port", "0")
    assert result.exit_code == 0, result.output
    return got


@pytest.mark.slow
def test_a_forwarded_for_header_names_no_caller(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn
    from service.conftest import free_port

    from corescheduler.config import Config
    from corescheduler.service.api import create_app
    from corescheduler.service.service import Service

    options = serve_options(tmp_path, monkeypatch)
    assert options.get("proxy_headers") is False
    monkeypatch.undo()
    service = Service(Config.from_toml(CONFIG))
    app = create_app(service, None)
    port = free_port()
    kept = {k: v for k, v in options.items() if k not in ("host", "port", "log_config", "lifespan")}
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on",
                                           **kept))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    lines: list[str] = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    handler = Capture()
    log = logging.getLogger("corescheduler")
    old = log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        deadline = time.monotonic() + 90
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.started
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as c:
            for i in range(5):
                r = c.get("/api/v1/jobs", headers={"X-Forwarded-For": f"203.0.113.{i}, evil-{i}"})
                assert r.status_code == 200
        hosts = {k for k in app.state.read_turns.costs}
        assert hosts <= {("host", "127.0.0.1")}, hosts
        assert not any("evil" in line or "203.0.113" in line for line in lines), lines
    finally:
        log.removeHandler(handler)
        log.setLevel(old)
        server.should_exit = True
        thread.join(timeout=60)
