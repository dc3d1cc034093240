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

from corescheduler.core.model import Schedulable
from corescheduler.core.policy import SharePolicy
from corescheduler.hookspecs import hookimpl


class FifoSharePolicy(SharePolicy):
    """First in, first out, by priority then submission (leaf queues only)."""

    leaf_only = True  # YARN FifoPolicy.getApplicableDepth: DEPTH_LEAF

    @hookimpl
    def cs_share_policy(self) -> SharePolicy:
        return self

    def compute_shares(self, schedulables: Sequence[Schedulable], total: Any, steady: bool) -> list[Any]:
        return self.calc.in_order_shares(schedulables, total)

    def order_key(self, s: Schedulable) -> tuple[int, float, str]:
        return (s.priority, s.start_time, s.name)
