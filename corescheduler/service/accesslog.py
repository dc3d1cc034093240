"""The service's access log: no client-controlled text in it (SPEC §8b: no token in a log).

The service stores only tokens' hashes, so it cannot find a token in a line to redact it:
a token pasted into a path (``/api/v1/jobs/TOKEN.json``), a query (``?q=Bearer%20TOKEN``)
or glued to other text would be logged as sent.  So a line holds only what the client does
not choose: the method (when it is a standard one), the matched route's template
(``/api/v1/jobs/{job_id}``) or ``(no route)``, the status, the latency and the client's
address — never the raw path or query.  Uvicorn's own access lines are dropped.
"""

from __future__ import annotations

import logging
import re
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

if TYPE_CHECKING:
    from corescheduler.service.tokens import TokenTable

log = logging.getLogger("corescheduler.access")

#: a piece of a log line that could be a token
_PIECE = re.compile(r"[^\s/?&=;,\"'()\[\]]{8,}")
_TOKEN_PARAM = re.compile(r"(?i)((?:access_)?token=)[^&\s\"]*")

#: methods logged by name; any other is logged as OTHER (a method is a client's text too)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"})


class DropUvicornAccess(logging.Filter):
    """On ``uvicorn.access``: drops uvicorn's lines (they carry the raw path and query)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return False


class AccessLog:
    """ASGI middleware: one line per HTTP request, after its response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.monotonic()
        status = [500]

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            log.info("%s", line(scope, status[0], time.monotonic() - start))


def line(scope: dict[str, Any], status: int, seconds: float) -> str:
    """``CLIENT "METHOD TEMPLATE" STATUS MS ms``, from what the client does not choose."""
    route = scope.get("route")
    template = getattr(route, "path", None)
    where = template if isinstance(template, str) else "(no route)"
    method = scope.get("method") if scope.get("method") in METHODS else "OTHER"
    client = scope.get("client")
    who = f"{client[0]}:{client[1]}" if client else "-"
    return f'{who} "{method} {where}" {status} {seconds * 1000:.1f} ms'


class RedactTokens(logging.Filter):
    """Takes every token out of a log record's arguments (the access log's path and query):
    a ``token=`` value, or any piece of the line that is a valid token."""

    def __init__(self, tokens: TokenTable | None) -> None:
        super().__init__()
        self.tokens = tokens

    def redact(self, text: str) -> str:
        text = _TOKEN_PARAM.sub(r"\1[redacted]", text)
        if self.tokens is None or not len(self.tokens):
            return text

        def piece(m: re.Match[str]) -> str:
            value = m.group(0)
            return "[redacted]" if self.tokens.matches(value) or self.tokens.matches(unquote(value)) else value

        return _PIECE.sub(piece, text)

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(self.redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.msg, str) and not record.args:
            record.msg = self.redact(record.msg)
        return True
