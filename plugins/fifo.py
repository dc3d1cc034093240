"""``fifo``: the FIFO SharePolicy (a pool's ``schedulingMode`` fifo).

Hadoop 1.x ``SchedulingAlgorithms.FifoComparator``: jobs by priority
(VERY_HIGH first), then start time, then name.  Jobs in a FIFO pool have no
fair share (shown as n/a); the pool's slots go to the first job that can use
them.
"""

from __future__ import annotations

from collections.abc import Sequence

from corescheduler.core.model import Schedulable
from corescheduler.hookspecs import hookimpl


class FifoSharePolicy:
    """First in, first out, by priority then submission."""

    @hookimpl
    def cs_compute_shares(self, schedulables: Sequence[Schedulable]) -> list[float | None]:
        return [None] * len(schedulables)

    @hookimpl
    def cs_order_key(self, schedulable: Schedulable) -> tuple[int, float, str]:
        return (schedulable.priority, schedulable.start_time, schedulable.name)
