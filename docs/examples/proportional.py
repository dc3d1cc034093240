"""A proportional share policy: the example of docs/plugin-authors.md, "A share policy"
(tests/docs/test_plugin_authors_proportional.py runs it in both modes)."""

from collections.abc import Sequence
from typing import Any

from corescheduler import SharePolicy
from corescheduler.core.model import Schedulable
from corescheduler.hookspecs import hookimpl


class Proportional(SharePolicy):
    """Shares by weight alone; the least used for its weight goes first."""

    @hookimpl
    def cs_share_policy(self) -> SharePolicy:
        return self

    def order_key(self, s: Schedulable) -> tuple[Any, ...]:
        return (self.calc.measure(s.running) / s.weight if s.weight > 0 else float("inf"), s.start_time, s.name)

    def compute_shares(self, schedulables: Sequence[Schedulable], total: Any, steady: bool) -> list[Any]:
        m = self.calc.measure
        weights = sum(s.weight for s in schedulables) or 1.0
        # steady: every queue counts, active or not (YARN's steady fair share), so demand caps nothing
        return [self.calc.of_measure(m(total) * s.weight / weights if steady
                                     else min(m(total) * s.weight / weights, m(s.demand)))
                for s in schedulables]
