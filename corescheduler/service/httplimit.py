"""A request's head (its request line and headers) bounded, as Hadoop's web server bounds it.

uvicorn's C parser (httptools) takes a head of any size: an 8 MB ``Authorization``
header was read whole and answered, and a larger one would have taken the service's
memory, every tenant's.  Hadoop's ``HttpServer2`` gives Jetty a request-header buffer of
``hadoop.http.max.request.header.size`` (65,536 bytes); a head past it is refused with
``431 Request Header Fields Too Large``.  :func:`http_protocol` is uvicorn's ``http``
protocol with that bound: the head is counted as it arrives, and past
:data:`MAX_HEAD` bytes the request is answered 431 and its connection closed, before
the application sees it.
"""

from __future__ import annotations

import json
from typing import Any

#: the most bytes a request's head may have (``hadoop.http.max.request.header.size``)
MAX_HEAD = 65536

_IDLE, _HEAD, _BODY = 0, 1, 2


def http_protocol() -> Any:
    """uvicorn's httptools protocol bounded to :data:`MAX_HEAD` bytes of head; without
    httptools, ``"h11"`` (h11 bounds a head itself, to 16 KB)."""
    global _PROTOCOL
    if _PROTOCOL is not None:
        return _PROTOCOL
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        return "h11"

    class BoundedHead(HttpToolsProtocol):  # type: ignore[misc]
        """Counts each request's head: exactly, from the parser's request line and headers
        (a head that ends in the read that takes it past the bound); and, while a head is
        unfinished, by the bytes read (one that never ends, or whose one header is huge —
        the parser keeps a header whole until it ends)."""

        _stage = _IDLE
        _head = 0  # the head's bytes the parser has handed over (request line, whole headers)
        _read = 0  # the bytes read while the head is unfinished
        _over = False

        def _count(self, n: int) -> None:
            self._head += n
            if self._head > MAX_HEAD:
                self._over = True
                raise ValueError("the request's head is too large")  # the parser stops: send_400_response

        def on_message_begin(self) -> None:
            self._stage, self._head, self._read = _HEAD, 0, 0
            super().on_message_begin()

        def on_url(self, url: bytes) -> None:
            self._count(len(url) + 16)  # with the method and the version
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._count(len(name) + len(value) + 4)
            super().on_header(name, value)

        def on_headers_complete(self) -> None:
            self._stage = _BODY
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._stage = _IDLE
            super().on_message_complete()

        def data_received(self, data: bytes) -> None:
            began = self._stage == _HEAD
            super().data_received(data)
            if self._stage != _HEAD or self.transport.is_closing():
                return
            # a head begun in this read: its bytes are at least what the parser handed over
            self._read = self._read + len(data) if began else self._head
            if self._read > MAX_HEAD:
                self._over = True
                self.send_400_response("")

        def send_400_response(self, msg: str) -> None:
            if not self._over:
                super().send_400_response(msg)
                return
            self._stage = _IDLE
            body = json.dumps({"error": f"the request's line and headers are over {MAX_HEAD} bytes",
                               "field": "headers"}).encode()
            self.transport.write(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
                                 b"content-type: application/json\r\ncontent-length: "
                                 + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body)
            self.transport.close()

    _PROTOCOL = BoundedHead
    return BoundedHead


_PROTOCOL: Any = None
