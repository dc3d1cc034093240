"""The access log carries no client-controlled text (SPEC §8b: no token in a log line): a
token pasted anywhere in a path or query is never logged, since a line holds only the
method, the route's template, the status, the latency and the client's address."""

from __future__ import annotations

import logging
import secrets

import pytest

from corescheduler.service.accesslog import line

httpx = pytest.importorskip("httpx")
pytest.importorskip("distributed")

from corescheduler.service.tokens import Principal  # noqa: E402


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def _shapes(token: str) -> list[str]:
    """The review's paths that the old redaction logged in full, and a few more."""
    return [f"/api/v1/jobs/{token}.json", f"/scheduler?t:{token}", f"/api/v1/jobs/x{token}",
            f"/scheduler?q=Bearer%20{token}", f"/api/v1/jobs?tok={token}%", f"/{token}:x",
            f"/api/v1/jobs/{token}", f"/scheduler?token={token}", f"/%20{token}%0A"]


def test_a_line_is_the_method_the_template_the_status_and_the_client() -> None:
    class Route:
        path = "/api/v1/jobs/{job_id}"

    scope = {"method": "GET", "route": Route(), "client": ("127.0.0.1", 5000), "path": "/api/v1/jobs/SECRET"}
    assert line(scope, 404, 0.0123) == '127.0.0.1:5000 "GET /api/v1/jobs/{job_id}" 404 12.3 ms'
    scope = {"method": "SECRET-METHOD", "client": None, "path": "/SECRET"}
    assert line(scope, 404, 0) == '- "OTHER (no route)" 404 0.0 ms'


@pytest.mark.slow
def test_the_access_log_holds_no_token_whatever_the_path(live_service) -> None:
    token = secrets.token_urlsafe(32)
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1}}, tokens={token: Principal("ops", admin=True)})
    capture = _Capture()
    watched = [logging.getLogger(n) for n in ("uvicorn.access", "uvicorn.error", "uvicorn", "corescheduler")]
    old_levels = [lg.level for lg in watched]
    for lg in watched:
        lg.addHandler(capture)
        lg.setLevel(logging.INFO)
    try:
        with httpx.Client(base_url=live.url, timeout=30) as c:
            for path in _shapes(token):
                c.get(path)
                c.get(path, headers={"Authorization": f"Bearer {token}"})
            assert c.get("/api/v1/jobs", headers={"Authorization": f"Bearer {token}"}).status_code == 200
        live.stop()
    finally:
        for lg, level in zip(watched, old_levels, strict=True):
            lg.removeHandler(capture)
            lg.setLevel(level)
    text = "\n".join(capture.lines)
    assert '"GET /api/v1/jobs/{job_id}" 404' in text and '"GET (no route)" 404' in text, text
    assert '"GET /api/v1/jobs" 200' in text and '"GET /scheduler"' in text, text
    assert token not in text and token[:12] not in text, text
    assert "Bearer" not in text and "tok=" not in text and "%20" not in text, text
