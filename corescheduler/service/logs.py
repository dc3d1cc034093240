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


def configure(json_lines: bool, level: int = logging.INFO) -> dict:
    """The logging config for uvicorn and the service (``log_config`` of ``uvicorn.run``)."""
    formatter = {"()": "corescheduler.service.logs.JsonFormatter"} if json_lines else {
        "format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": formatter},
        "handlers": {"default": {"class": "logging.StreamHandler", "formatter": "default",
                                 "stream": "ext://sys.stderr"}},
        "loggers": {name: {"handlers": ["default"], "level": level, "propagate": False}
                    for name in ("corescheduler", "uvicorn", "uvicorn.error", "uvicorn.access", "distributed")},
    }
