"""``slots``: a LoadManager that fills each node — a node takes a task while
it has a free slot of that kind (the TaskTracker's
``mapred.tasktracker.{map,reduce}.tasks.maximum``).  Not Hadoop 1.x's default,
which is ``CapBasedLoadManager`` (``cap_based``, our default too); Hadoop's
capacity scheduler has no load manager and behaves like this one."""

from __future__ import annotations

from corescheduler.core.model import ClusterLoad, Node
from corescheduler.hookspecs import hookimpl


class SlotLoadManager:
    """Allow a task of a kind while the node runs fewer than its slots."""

    #: a node running no task of a kind takes one whenever it has a slot of it (docs/hooks.md)
    empty_nodes_take_tasks = True

    @hookimpl
    def cs_can_assign(self, node: Node, kind: str, load: ClusterLoad) -> bool:
        return node.running[kind] < node.slots[kind]
