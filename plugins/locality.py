"""``locality``: the default TaskSelector — greedy locality.

For a map: the lowest-index pending map with input on the node, else on the
node's rack, else any pending map (Hadoop's ``JobInProgress.obtainNewMapTask``
search order: node cache, rack cache, then non-local).  For a reduce: the
lowest-index pending reduce (reduces have no locality).
"""

from __future__ import annotations

from corescheduler.hookspecs import hookimpl
from corescheduler.model import MAP, OFF_RACK, Job, Node, Task


class GreedyLocality:
    """Best locality available now, never waiting."""

    @hookimpl
    def cs_select_task(self, job: Job, node: Node, kind: str) -> Task | None:
        if kind == MAP:
            return job.pending_map(node, OFF_RACK)
        return job.pending_task(kind)
