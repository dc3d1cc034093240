"""What a worker of the embedded cluster logs while the service stops (workerinit's filters)."""

from __future__ import annotations

import logging
from types import SimpleNamespace

from distributed.comm.core import CommClosedError
from distributed.core import Status

from corescheduler.service.workerinit import _QuietClose


def record(exc: BaseException | None) -> logging.LogRecord:
    info = (type(exc), exc, None) if exc is not None else None
    return logging.LogRecord("distributed.worker", logging.ERROR, __file__, 1,
                             "Failed to communicate with scheduler during heartbeat.", (), info)


def test_a_closed_connection_under_a_closing_worker_is_not_an_error_but_is_while_it_runs() -> None:
    worker = SimpleNamespace(status=Status.running)
    quiet = _QuietClose(worker)
    closed = record(CommClosedError("ConnectionPool closing."))
    assert quiet.filter(closed)  # the scheduler went away under a running worker: shown
    for status in (Status.closing, Status.closing_gracefully, Status.closed):
        worker.status = status
        assert not quiet.filter(closed)
    assert quiet.filter(record(ValueError("boom")))  # any other error while closing: shown
    assert quiet.filter(record(None))
