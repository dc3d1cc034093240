"""``size_based``: a WeightAdjuster that weights a job by its size.

Hadoop 1.x fair scheduler ``mapred.fairscheduler.sizebasedweight``
(``FairScheduler.getJobWeight``): the weight is ``log2(1 + runnable tasks)``,
computed as ``Math.log1p(tasks) / Math.log(2)``, times the priority factor,
where the runnable tasks of a kind are the job's demand for that kind (running
plus pending tasks; reduces count only once reduce slow start lets them run).
A job with no runnable tasks of a kind gets weight 0 for that kind.

Here the base weight handed to the first adjuster is already the priority
factor, so ``weight_adjusters = ["size_based"]`` gives Hadoop's
``log2(1 + demand) × priority`` exactly; adjusters after it (such as
``new_job_booster``) multiply that, as Hadoop's ``weightadjuster`` does.

No settings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from corescheduler.core.model import Job
from corescheduler.hookspecs import hookimpl
from corescheduler.settings import Settings

_LN2 = math.log(2.0)


def size_weight(tasks: int) -> float:
    """``log2(1 + tasks)`` as Hadoop computes it (``Math.log1p(tasks) / Math.log(2)``); 0 for no tasks."""
    if tasks <= 0:
        return 0.0
    return math.log1p(tasks) / _LN2


class SizeBasedWeight:
    """Weight × log2(1 + the job's demand for the kind)."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        Settings(settings, plugin="size_based").finish()  # no settings: any key is an error

    @hookimpl
    def cs_adjust_weight(self, job: Job, kind: str, weight: float) -> float:
        return weight * size_weight(job.sched[kind].demand)
