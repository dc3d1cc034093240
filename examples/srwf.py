"""``srwf``: shortest remaining work first, a share policy written against the contract.

The pool (queue) and the job (app) with the least work still to start is served first:
its demand minus what it runs, in the engine's primary measure (tasks in slot mode,
memory in resource mode); ties by start time, then name.  Shares are fair shares (the
engine's weighted max-min search), so reports and preemption see the usual numbers.

It names no mode: ``self.calc`` (the engine's calculator, docs/plugin-authors.md "A share
policy") measures slots and Resources alike.  Select it with
``[scheduler] share_policy = "srwf"`` once installed under that entry-point name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from corescheduler import SharePolicy, hookimpl
from corescheduler.core.model import Schedulable


class ShortestRemainingWorkFirst(SharePolicy):
    """Least remaining work first; fair shares."""

    @hookimpl
    def cs_share_policy(self) -> SharePolicy:
        return self

    def order_key(self, s: Schedulable) -> tuple[Any, ...]:
        measure = self.calc.measure
        return (measure(s.demand) - measure(s.running), s.start_time, s.name)

    def compute_shares(self, schedulables: Sequence[Schedulable], total: Any, steady: bool) -> list[Any]:
        return self.calc.fair_shares(schedulables, total, steady)
