"""``fifo``: the FIFO SharePolicy (a pool's ``schedulingMode`` fifo).

Hadoop 1.x ``SchedulingAlgorithms.FifoComparator``: jobs by priority
(VERY_HIGH first), then start time, then name.  Jobs in a FIFO pool have no
fair share (shown as n/a); the pool's slots go to the first job that can use
them.

In resource mode (YARN ``FifoPolicy``, leaf queues only) the earliest app's
share is the whole queue's and the others have none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from corescheduler.core.model import RESOURCES, Schedulable
from corescheduler.hookspecs import hookimpl


class FifoSharePolicy:
    """First in, first out, by priority then submission."""

    @hookimpl
    def cs_compute_shares(self, schedulables: Sequence[Schedulable], capacity: Any, kind: str) -> list[Any]:
        if kind == RESOURCES and schedulables:
            # YARN FifoPolicy.computeShares: the earliest app gets the whole share
            # (the others keep stale values in YARN; here they have none)
            first = min(range(len(schedulables)), key=lambda i: schedulables[i].start_time)
            return [capacity if i == first else None for i in range(len(schedulables))]
        return [None] * len(schedulables)

    @hookimpl
    def cs_order_key(self, schedulable: Schedulable) -> tuple[int, float, str]:
        return (schedulable.priority, schedulable.start_time, schedulable.name)
