"""``locality``: greedy locality, never waiting (a TaskSelector).

For a map, Hadoop's ``JobInProgress.findNewMapTask`` order: a map killed
while running (``failedMaps``), else the lowest-index pending map with input
on the node, else on the node's rack, else on another rack, else one with no
input location (``nonLocalMaps``).  For a reduce: the lowest-index pending
reduce (reduces have no locality).  Hadoop 1.x's fair scheduler always runs
delay scheduling (``delay``, the default); this is its behaviour with zero
waits, and Hadoop's capacity scheduler's.
"""

from __future__ import annotations

from corescheduler.core.model import MAP, OFF_RACK, Job, Node, Task
from corescheduler.hookspecs import hookimpl


class GreedyLocality:
    """Best locality available now, never waiting."""

    @hookimpl
    def cs_select_task(self, job: Job, node: Node, kind: str) -> Task | None:
        if kind == MAP:
            return job.pending_map(node, OFF_RACK)
        return job.pending_task(kind)
