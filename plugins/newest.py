"""``newest``: the default VictimSelector — kill the most recently launched
tasks first, never more from a pool than its allowance.

Hadoop 1.x ``FairScheduler.preemptTasks``: running tasks of pools that are
over their share, sorted by start time, newest first (least work lost),
skipping a pool once taking one more would leave it below its fair share.
Ties keep the candidates' order (Java's stable sort).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from corescheduler.core.model import Task
from corescheduler.hookspecs import hookimpl


class NewestFirst:
    """Most recently started tasks first."""

    @hookimpl
    def cs_select_victims(self, candidates: Sequence[Task], count: int, allowance: Mapping[str, int]) -> list[Task]:
        left = dict(allowance)
        ordered = sorted(candidates, key=lambda t: -(t.start_time or 0.0))
        victims: list[Task] = []
        for task in ordered:
            if len(victims) >= count:
                break
            pool = task.job.pool
            if left.get(pool, 0) > 0:
                victims.append(task)
                left[pool] -= 1
        return victims
