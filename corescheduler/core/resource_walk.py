"""What resource mode answers to a simulator's reads of the heartbeat walk: there is none.

The slot engine keeps what its last heartbeat walked, so that a simulator can skip
heartbeats whose outcome is known and park nodes no job wants
(:mod:`~corescheduler.core.slot_walk`).  The resource engine keeps no such walk: every
heartbeat runs (a simulator beats every node with room while some app asks,
``has_requests``), nothing is parked, and no slot is counted.  These are its answers to the
same questions (:class:`~corescheduler.core.engine.Engine`), each the one that makes a
caller run every heartbeat.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType

from corescheduler.core.model import MAP, REDUCE, Job, Node, Pool, PreemptionPlan
from corescheduler.core.resource_base import EngineState

__all__ = ["NoWalk"]

_NO_POOLS: Mapping[str, Pool] = MappingProxyType({})
_NO_TASKS: Mapping[str, int] = MappingProxyType({MAP: 0, REDUCE: 0})


class NoWalk(EngineState):
    """Resource mode's answers to the walk's questions (the module's docstring)."""

    #: ignored (no reach is tracked: nothing is parked)
    track_reach = False

    @property
    def pools(self) -> Mapping[str, Pool]:
        """No MR1 pool (the queues are :attr:`tree`'s)."""
        return _NO_POOLS

    def pending_work(self, kind: str) -> int:
        """0: no slot is counted."""
        return 0

    @property
    def pending_tasks(self) -> Mapping[str, int]:
        """0 of each kind: no slot is counted (``has_requests`` says whether an app asks)."""
        return _NO_TASKS

    def skip_quiet_heartbeat(self, node_name: str, now: float) -> bool:
        """False: every heartbeat runs."""
        return False

    @property
    def can_park(self) -> bool:
        """False: no node is parked."""
        return False

    @property
    def walk_version(self) -> int:
        """0: no walk is kept."""
        return 0

    @property
    def walk_settled(self) -> bool:
        """False: no walk is kept."""
        return False

    @property
    def has_reach_changes(self) -> bool:
        """False: no reach is tracked."""
        return False

    def walk_state(self) -> tuple[int, bool, bool]:
        """``(0, False, False)``."""
        return 0, False, False

    def take_reach_changes(self) -> dict[str, str]:
        """None: no reach is tracked."""
        return {}

    def map_walk(self) -> list[Job]:
        """None: no walk is kept."""
        return []

    def wants_idle_heartbeat(self) -> bool:
        """False: a heartbeat that is not run is not needed by any hint."""
        return False

    def idle_heartbeat(self, node: Node, now: float) -> None:
        """``cs_heartbeat_start`` and no more."""
        for fn in self.owner.plugins.listeners("cs_heartbeat_start"):
            fn(node, now)

    def preemption_plan(self, kind: str, now: float) -> PreemptionPlan:
        """Nothing: resource mode plans preemption per starved app (``preempt_tasks``)."""
        return PreemptionPlan(count=0)

    def preemption_hint(self, now: float) -> float:
        """``-inf``: resource mode's preemption (its reclaim deadlines) is not foreseen."""
        return -math.inf
