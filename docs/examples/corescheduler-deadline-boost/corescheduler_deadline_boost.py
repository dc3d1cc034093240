"""``deadline_boost``: a corescheduler WeightAdjuster for jobs with a deadline.

A job that carries a ``deadline`` property (seconds after its submission by
which it should finish) gets a weight boost that grows linearly over the last
``horizon`` seconds before the deadline, from ×1 up to ×``max_boost`` at the
deadline (and after it).  Jobs without the property keep their weight.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from corescheduler.core.model import Job
from corescheduler.hookspecs import hookimpl
from corescheduler.settings import Settings


class DeadlineBoost:
    """Raise the weight of jobs as their deadline approaches."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        s = Settings(settings, plugin="deadline_boost")
        self.deadline_property = s.string("deadline_property", "deadline")
        self.horizon = float(s.number("horizon", 600.0, minimum=0, exclusive_minimum=True))
        self.max_boost = float(s.number("max_boost", 4.0, minimum=1))
        s.finish()  # unknown keys and bad values -> one error naming [plugins.deadline_boost]

    def deadline(self, job: Job) -> float | None:
        """The job's deadline on the scheduler clock, or None if it has none."""
        value = job.spec.property(self.deadline_property)
        try:
            seconds = float(value)  # job properties may be strings, as in a Hadoop job conf
        except (TypeError, ValueError):
            return None  # no deadline, or not a number
        return job.submit_time + seconds if math.isfinite(seconds) else None

    @hookimpl
    def cs_adjust_weight(self, job: Job, weight: float, now: float) -> float | None:
        deadline = self.deadline(job)
        if deadline is None:
            return None  # keep the weight as it is
        urgency = min(1.0, max(0.0, 1.0 - (deadline - now) / self.horizon))
        return weight * (1.0 + (self.max_boost - 1.0) * urgency)
