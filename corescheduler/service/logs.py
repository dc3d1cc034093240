"""Structured logs for ``corescheduler serve --log-json``: one JSON object a line
(``time``, ``level``, ``logger``, ``message``, and ``exception`` when there is one)."""

from __future__ import annotations

import json
import logging
import time


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry)


#: uvicorn's own lines around a stop: the service says "stopping" and "stopped" instead
_UVICORN_STOP = ("Shutting down", "Waiting for application shutdown.", "Application shutdown complete.",
                 "Finished server process")


class QuietStop(logging.Filter):
    """Drops uvicorn's four lines around a stop (the service logs one "stopping" and one
    "stopped" line) and the tracebacks of connections Dask finds closed while it stops (a
    closed comm is how a stop looks to it, not an error)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("uvicorn") and record.levelno <= logging.INFO:
            message = record.getMessage()
            if any(message.startswith(m) for m in _UVICORN_STOP):
                return False
        if record.exc_info and record.exc_info[0] is not None and record.levelno < logging.ERROR:
            if record.exc_info[0].__name__ in ("CommClosedError", "StreamClosedError"):
                return False
        return True


def configure(json_lines: bool, level: int = logging.INFO, dask_level: int = logging.WARNING) -> dict:
    """The logging config for uvicorn and the service (``log_config`` of ``uvicorn.run``):
    one handler and one format for every line, Dask's included (``distributed`` logs its
    warnings and errors; its own handler is replaced, so no line comes twice)."""
    formatter = {"()": "corescheduler.service.logs.JsonFormatter"} if json_lines else {
        "format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    loggers = {name: {"handlers": ["default"], "level": level, "propagate": False}
               for name in ("corescheduler", "uvicorn", "uvicorn.error", "uvicorn.access")}
    loggers["distributed"] = {"handlers": ["default"], "level": dask_level, "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": formatter},
        "filters": {"quiet_stop": {"()": "corescheduler.service.logs.QuietStop"}},
        "handlers": {"default": {"class": "logging.StreamHandler", "formatter": "default",
                                 "stream": "ext://sys.stderr", "filters": ["quiet_stop"]}},
        "loggers": loggers,
    }
