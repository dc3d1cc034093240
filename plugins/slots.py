"""``slots``: the default LoadManager — a node takes a task while it has a
free slot of that kind (Hadoop 1.x fair scheduler without a load manager
configured: the TaskTracker's ``mapred.tasktracker.{map,reduce}.tasks.maximum``)."""

from __future__ import annotations

from corescheduler.hookspecs import hookimpl
from corescheduler.model import ClusterLoad, Node


class SlotLoadManager:
    """Allow a task of a kind while the node runs fewer than its slots."""

    @hookimpl
    def cs_can_assign(self, node: Node, kind: str, load: ClusterLoad) -> bool:
        return node.running[kind] < node.slots[kind]
