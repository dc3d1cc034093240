"""Tasks for smoke tests and benchmarks of the live service (``"call": "corescheduler.service.probe:…"``)."""

from __future__ import annotations

import time


def stamp_sleep(seconds: float) -> float:
    """Sleep ``seconds`` and return when the task started (wall clock): grant latency probes."""
    started = time.time()
    time.sleep(seconds)
    return started


def output(n_bytes: int, seconds: float = 0.0) -> bytes:
    """A map's output of ``n_bytes`` bytes, after ``seconds``."""
    time.sleep(seconds)
    return b"x" * int(n_bytes)


def total_size(inputs: list[object], seconds: float = 0.0) -> int:
    """A reduce: the bytes (``len``) of every map result it was handed, summed."""
    time.sleep(seconds)
    return sum(len(x) for x in inputs)  # type: ignore[arg-type]
