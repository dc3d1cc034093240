"""``copy_compute_split``: admit a reduce's copy and compute phases separately (LoadManager).

Zaharia, Borthakur, Sen Sarma, Elmeleegy, Shenker and Stoica, "Job
Scheduling for Multi-User MapReduce Clusters", UC Berkeley tech report
UCB/EECS-2009-55, §5 ("copy-compute splitting").  A reduce task first copies
(shuffles) the map outputs — network-bound, and unable to finish before the
job's last map — then computes.  With one reduce slot per task for its whole
life, a long job's reduces sit in the slots while they wait for its maps
("reduce-slot hoarding"), and small jobs cannot get a reduce slot.

With this load manager:

* a reduce is *launched* into a copy slot: a node takes a new reduce while
  fewer than ``copy_slots`` of its reduces are copying (default: twice its
  reduce slots), and copying holds no reduce slot;
* a reduce whose copy is complete (the job's maps are done and its own copy
  time is over) starts *computing* only when the node has a free reduce slot
  (``node.computing < node.slots["reduce"]``); otherwise it waits, still
  counted as copying, and is asked again when a reduce on the node ends;
* maps are admitted on free map slots, as with ``slots``.

So a node runs at most ``copy_slots + reduce slots`` reduces, of which at
most ``reduce slots`` compute at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corescheduler.core.model import MAP, REDUCE, ClusterLoad, Node, Task
from corescheduler.hookspecs import hookimpl
from corescheduler.settings import Settings


class CopyComputeSplit:
    """Copy slots for shuffling reduces, reduce slots for computing ones."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        s = Settings(settings, plugin="copy_compute_split")
        self.copy_slots: int | None = s.number("copy_slots", None, minimum=0, integer=True)
        self.copy_slots_per_reduce_slot = float(
            s.number("copy_slots_per_reduce_slot", 2.0, minimum=0)
        )
        s.finish()

    def copy_slots_of(self, node: Node) -> int:
        """Copy slots of ``node``: ``copy_slots`` if set, else per reduce slot."""
        if self.copy_slots is not None:
            return self.copy_slots
        return int(self.copy_slots_per_reduce_slot * node.slots[REDUCE])

    @hookimpl
    def cs_can_assign(self, node: Node, kind: str, load: ClusterLoad) -> bool:
        if kind == MAP:
            return node.running[MAP] < node.slots[MAP]
        copying = node.running[REDUCE] - node.computing
        return copying < self.copy_slots_of(node)

    @hookimpl
    def cs_can_compute(self, task: Task, node: Node) -> bool:
        return node.computing < node.slots[REDUCE]

    @hookimpl
    def cs_node_capacity(self, node: Node, kind: str) -> int:
        if kind == MAP:
            return node.slots[MAP]
        return self.copy_slots_of(node) + node.slots[REDUCE]
