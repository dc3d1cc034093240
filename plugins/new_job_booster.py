"""``new_job_booster``: a WeightAdjuster that boosts jobs while they are new.

Hadoop 1.x fair scheduler ``NewJobWeightBooster``
(``mapred.fairscheduler.weightadjuster = org.apache.hadoop.mapred.NewJobWeightBooster``):
a job's weight is multiplied by ``mapred.newjobweightbooster.factor``
(default 3) while its age — now minus its submission time — is strictly below
``mapred.newjobweightbooster.duration`` (default 300000 ms, here 300 s), so
short jobs get through quickly even in a busy pool.  Both slot kinds are
boosted alike.

Settings (``[plugins.new_job_booster]``): ``factor`` (> 0, default 3.0) and
``duration`` (seconds, ≥ 0, default 300.0; 0 turns the boost off).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corescheduler.core.model import Job
from corescheduler.hookspecs import hookimpl
from corescheduler.settings import Settings

#: mapred.newjobweightbooster.factor default
DEFAULT_FACTOR = 3.0
#: mapred.newjobweightbooster.duration default (5 minutes), in seconds
DEFAULT_DURATION = 300.0


class NewJobWeightBooster:
    """Weight × ``factor`` for jobs younger than ``duration`` seconds."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        s = Settings(settings, plugin="new_job_booster")
        self.factor = float(s.number("factor", DEFAULT_FACTOR, minimum=0, exclusive_minimum=True))
        self.duration = float(s.number("duration", DEFAULT_DURATION, minimum=0, finite=False))  # inf: always
        s.finish()

    def boosted(self, job: Job, now: float) -> bool:
        """True while the job's age is strictly below ``duration`` (Hadoop: ``now - start < duration``)."""
        return now - job.submit_time < self.duration

    @hookimpl
    def cs_adjust_weight(self, job: Job, weight: float, now: float) -> float | None:
        if self.boosted(job, now):
            return weight * self.factor
        return None  # keep the weight
