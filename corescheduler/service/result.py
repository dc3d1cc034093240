"""A task's result as the service holds it: bytes the service never unpickles.

An attempt's child (running as the task's OS account, SPEC §8b) writes its result twice:
as pickle bytes and as the JSON text the API shows (:func:`render`): the value itself when it
is JSON (no NaN or infinity), else ``{"repr": …, "type": …}`` made by the child.  The
runner, the workers, the engine and the service (root, perhaps) only carry the bytes:
unpickling them would run whatever code the task chose, as the service.  Who may unpickle
``pickled`` is the task's own kind — a reduce's child of the same job, under the same
account — and the service shows a result by ``json.loads(json)`` alone (:func:`shown`).
"""

from __future__ import annotations

import json
from typing import Any

#: what the API shows for a result that is not JSON (a set, an object, a huge integer, ...)
NOT_JSON = "<a result that is not JSON>"


class Result:
    """An attempt's result: ``pickled`` (pickle bytes, for a reduce's child only) and ``json``
    (the JSON text shown for it, or None when the child left none)."""

    __slots__ = ("json", "pickled")

    def __init__(self, pickled: bytes, json: str | None) -> None:
        self.pickled = pickled
        self.json = json

    def __reduce__(self) -> tuple[Any, ...]:
        # two plain values: unpickling a Result never runs anything of the task's
        return (Result, (bytes(self.pickled), self.json))

    def __repr__(self) -> str:
        return f"Result({len(self.pickled)} bytes pickled, {'no' if self.json is None else len(self.json)} JSON)"

    def __sizeof__(self) -> int:  # what Dask counts as the result's size
        return len(self.pickled) + (len(self.json) if self.json is not None else 0) + 64


def shown(value: Any) -> Any:
    """A result as the API shows it: its JSON value, or :data:`NOT_JSON`; never raises.
    Anything that is not a :class:`Result` (a value restored from the ledger) is itself if
    it is JSON."""
    if isinstance(value, Result):
        if value.json is None:
            return NOT_JSON
        try:  # the child may have written anything: it must be JSON the ledger can store again
            loaded = json.loads(value.json)
            json.dumps(loaded, allow_nan=False)
            return loaded
        except (ValueError, TypeError, RecursionError, MemoryError):
            return NOT_JSON
    try:
        json.dumps(value, allow_nan=False)
        return value
    except (TypeError, ValueError, RecursionError, MemoryError):
        return NOT_JSON


def render(value: Any) -> str:
    """The JSON text the API shows for ``value`` (run by the attempt's child, as the task's
    account): the value if it is JSON, else ``{"repr": …, "type": …}``; never raises."""
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError, MemoryError):
        pass
    kind = type(value).__name__
    try:
        text = repr(value)[:2000]
    except Exception:  # a huge int (ValueError), a __repr__ that raises
        text = f"<a {kind} that cannot be shown>"
    try:
        return json.dumps({"repr": text, "type": kind})
    except Exception:
        return json.dumps({"repr": NOT_JSON, "type": None})
