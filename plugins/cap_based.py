"""``cap_based``: a LoadManager that spreads tasks evenly over the nodes.

Hadoop 1.x fair scheduler ``CapBasedLoadManager`` (the default
``mapred.fairscheduler.loadmanager``): a node may run at most

    cap = (int) ceil(localMaxTasks * min(1.0, maxDiff + totalRunnable / totalSlots))

tasks of a kind, where ``localMaxTasks`` is the node's slots of that kind,
``totalRunnable`` the tasks of that kind that runnable jobs demand (running
plus pending) and ``totalSlots`` the cluster's slots of that kind.  When the
cluster is used below capacity, tasks are spread uniformly over the nodes
instead of clumping on whichever nodes heartbeat first; at full load the cap
is the node's slot count.  A node takes one more task while it runs fewer
than its cap (``canAssignMap`` / ``canAssignReduce``); tasks already assigned
on this heartbeat count as running.

Setting (``[plugins.cap_based]``): ``max_diff`` — Hadoop's
``mapred.fairscheduler.load.max.diff``, the load fraction a node may run above
the cluster average (≥ 0, default 0.0).  As in Hadoop (``conf.getFloat``) it
is held in single precision, so a cap that lands exactly on a whole number
can round up by one: with ``max_diff = 0.2``, 10 runnable tasks on 50 slots
give a 5-slot node a cap of 3, as Hadoop's ``TestCapBasedLoadManager``
asserts, not 2.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from corescheduler.core.javamath import java_float
from corescheduler.core.model import ClusterLoad, Node
from corescheduler.hookspecs import hookimpl
from corescheduler.settings import Settings


def _cap(total_runnable: int, local_max: int, total_slots: int, max_diff: float) -> int:
    if total_slots <= 0:  # Java: x/0 is +Infinity (cap = local max), 0/0 is NaN (cap 0)
        return local_max if total_runnable > 0 else 0
    load = max_diff + total_runnable / total_slots
    return math.ceil(local_max * min(1.0, load))


def get_cap(total_runnable: int, local_max: int, total_slots: int, max_diff: float = 0.0) -> int:
    """How many tasks of a kind a node with ``local_max`` slots may run
    (Hadoop ``CapBasedLoadManager.getCap``; ``max_diff`` is rounded to single
    precision as Hadoop's config holds it)."""
    return _cap(total_runnable, local_max, total_slots, java_float(max_diff))


def can_assign(running: int, local_max: int, total_runnable: int, total_slots: int, max_diff: float = 0.0) -> bool:
    """May a node running ``running`` tasks of a kind take one more
    (Hadoop ``canAssignMap`` / ``canAssignReduce``)?"""
    return running < get_cap(total_runnable, local_max, total_slots, max_diff)


class CapBasedLoadManager:
    """Cap each node at its share of the cluster's current load."""

    #: a node running no task of a kind takes one while any is demanded: with a slot and
    #: ``load.runnable > load.running`` ≥ 0 the cap, ``ceil(slots × min(1, max_diff +
    #: runnable / total slots))``, is at least 1 (docs/hooks.md, ``cs_can_assign``)
    empty_nodes_take_tasks = True

    def __init__(self, settings: Mapping[str, Any]) -> None:
        s = Settings(settings, plugin="cap_based")
        self.max_diff = float(s.number("max_diff", 0.0, minimum=0))
        s.finish()
        self._max_diff = java_float(self.max_diff)

    def cap(self, node: Node, kind: str, load: ClusterLoad) -> int:
        """The cap of ``node`` for ``kind`` under ``load``."""
        return _cap(load.runnable, node.slots[kind], load.total_slots, self._max_diff)

    @hookimpl
    def cs_can_assign(self, node: Node, kind: str, load: ClusterLoad) -> bool:
        return node.running[kind] < self.cap(node, kind, load)
