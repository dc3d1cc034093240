"""Tasks for smoke tests and benchmarks of the live service (``"call": "corescheduler.service.probe:…"``)."""

from __future__ import annotations

import time


def stamp_sleep(seconds: float) -> float:
    """Sleep ``seconds`` and return when the task started (wall clock): grant latency probes."""
    started = time.time()
    time.sleep(seconds)
    return started
