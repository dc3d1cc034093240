"""``locality``: greedy locality, never waiting (a TaskSelector) — or, with ``[scheduler]
locality_threshold_node`` and ``locality_threshold_rack`` both ≥ 0, YARN's fair scheduler's
delay scheduling by scheduling opportunities (:mod:`corescheduler_plugins._fair_locality`).

Greedy: for a map, Hadoop's ``JobInProgress.findNewMapTask`` order: a map killed
while running (``failedMaps``), else the lowest-index pending map with input
on the node, else on the node's rack, else on another rack, else one with no
input location (``nonLocalMaps``).  For a reduce: the lowest-index pending
reduce (reduces have no locality).  Hadoop 1.x's fair scheduler always runs
delay scheduling (``delay``, the default); this is its behaviour with zero
waits, and Hadoop's capacity scheduler's.  An app's asks (resource mode) are left to
the engine (YARN's ``FSAppAttempt.assignContainer`` with the thresholds at -1).

With the thresholds set, constructing ``GreedyLocality`` gives a
:class:`~corescheduler_plugins._fair_locality.FairLocality` instead, so that
with them off — YARN's default — the plugin is exactly the greedy one: no hook more, no
work more on a heartbeat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corescheduler.core.model import MAP, OFF_RACK, Job, Node, Task
from corescheduler.errors import SettingsError
from corescheduler.hookspecs import hookimpl


class GreedyLocality:
    """Best locality available now, never waiting."""

    def __new__(cls, settings: Mapping[str, Any] | None = None, context: Any = None) -> Any:
        if settings:
            raise SettingsError(None, "this plugin takes no settings")
        if cls is GreedyLocality and context is not None:  # (a subclass is its own)
            sc = context.config.scheduler
            node = getattr(sc, "locality_threshold_node", -1.0)
            rack = getattr(sc, "locality_threshold_rack", -1.0)
            if node >= 0 and rack >= 0:  # getAllowedLocalityLevel: either one negative = no delay
                from corescheduler_plugins._fair_locality import FairLocality
                return FairLocality(context=context)  # (not a GreedyLocality: no __init__ of ours)
        return super().__new__(cls)

    def __init__(self, settings: Mapping[str, Any] | None = None, context: Any = None) -> None:
        pass

    @hookimpl
    def cs_select_task(self, job: Job, node: Node, kind: str) -> Task | None:
        if kind == MAP:
            return job.pending_map(node, OFF_RACK)
        return job.pending_task(kind)
