"""The service's refusals: a :class:`ServiceError` is a request it refuses, with the HTTP
status and the field that was wrong.
"""

from __future__ import annotations

from corescheduler.errors import CoreSchedulerError


class ServiceError(CoreSchedulerError):
    """A request the service refuses: ``status`` is the HTTP status, ``field`` what was wrong."""

    def __init__(self, message: str, status: int = 400, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.field = field
