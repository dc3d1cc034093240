"""``cogrs``: center-of-gravity reduce placement (a TaskSelector; maps by delay scheduling).

Hammoud, Rehman, Sakr, "Center-of-Gravity Reduce Task Scheduling to Lower
MapReduce Network Traffic", IEEE CLOUD 2012.  Hadoop gives a reduce to whichever
node asks first (``JobInProgress.findNewReduceTask`` takes the first pending
reduce, with no locality), though a reduce's input -- one partition from every
map -- lies on the nodes where the maps ran, often in very unequal sizes.  CoGRS
places each reduce at its *center of gravity*: the feeding node with the least
weighted total network distance ``WTND(R) = Σᵢ ND(nᵢ, R) × wᵢ``
(:mod:`corescheduler.core.shuffle`).

On a heartbeat of node ``n``, for a job whose turn it is:

* **Maps**: delay scheduling, exactly as the ``delay`` plugin (its settings
  ``node_locality_delay``, ``rack_locality_delay``, ``starvation`` apply here).
* **Reduces**, once ``slowstart`` of the job's maps have finished (before that
  the job offers no reduce: too little of the input is known): the
  lowest-index pending reduce for which ``WTND(n) ≤ best + tolerance``, where
  ``best`` is the least WTND over the nodes holding its input so far
  (``job.map_outputs``: where each finished map ran and its partition sizes,
  kept by the core).  If none qualifies the job is skipped, and once its
  reduces have been refused for ``wait`` seconds (since the first refusal after
  its last reduce launched at its center) any node that asks gets the
  lowest-index pending reduce, as native Hadoop would, until a reduce of the job
  launches at its center again -- the bounded wait of delay scheduling, whose
  level stays ANY after an off-rack launch until a local one, applied to reduces.

Settings (``[plugins.cogrs]``): ``tolerance`` (network-distance units, ≥ 0;
default 0: the center itself, ties kept), ``wait`` (seconds; default Hadoop's auto locality delay,
min(15 s, 1.5 × the heartbeat interval)), ``slowstart`` (a fraction of the
job's maps, 0–1; default 0.05, Hadoop's ``mapred.reduce.slowstart.completed.maps``,
the point after which CoGRS schedules reduces).  The core's ``[scheduler]
reduce_slowstart`` still applies: a reduce is never offered before it.

With a shuffle described as shares (uniform or Zipf), every reduce of a job has
its input on the same nodes in the same proportions, so they share one center of
gravity; an explicit partition matrix gives each reduce its own.  Sizes are the
partitions known at the time of the decision (``MapOutputs.version`` changes
as maps finish).  See ``docs/plugins/cogrs.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from corescheduler_plugins.delay import DelayScheduling, auto_delay

from corescheduler.core.hints import Hint
from corescheduler.core.model import MAP, REDUCE, Job, Node, Task
from corescheduler.hookspecs import hookimpl
from corescheduler.settings import Settings

#: Hadoop's ``mapred.reduce.slowstart.completed.maps`` default
DEFAULT_SLOWSTART = 0.05
DEFAULT_TOLERANCE = 0.0


class CenterOfGravity(DelayScheduling):
    """Reduces at their center of gravity, maps by delay scheduling."""

    NAME = "cogrs"

    def _read_settings(self, s: Settings, auto: float) -> None:
        self.tolerance = float(s.number("tolerance", DEFAULT_TOLERANCE, minimum=0))
        wait = s.number("wait", None, minimum=0, finite=False)  # inf: wait forever
        self.auto_wait = wait is None
        self.wait = auto if wait is None else float(wait)
        self.slowstart = float(s.number("slowstart", DEFAULT_SLOWSTART, minimum=0, maximum=1))
        #: job -> when its reduces were first refused since its last reduce launched at its center
        self.refused_since: dict[str, float] = {}

    # ------------------------------------------------------------------ the choice
    def reduce_fits(self, job: Job, task: Task, node: Node) -> bool:
        """Is ``node`` within ``tolerance`` of ``task``'s center of gravity, by the input so far?"""
        outputs = job.map_outputs
        if outputs is None:
            return True  # nothing known: any node is as near as any other
        r = task.index
        return outputs.wtnd(r, node.name, node.rack) <= outputs.best_wtnd(r) + self.tolerance + 1e-12

    def select_reduce(self, job: Job, node: Node, now: float) -> Task | None:
        """The reduce of ``job`` to run on ``node``, or None (skip the job on this heartbeat)."""
        first = job.pending_task(REDUCE)
        if first is None:
            return None
        if job.complete[MAP] < math.ceil(self.slowstart * job.num_maps - 1e-9):
            return None  # too little of the input is known yet
        outputs = job.map_outputs
        if outputs is None or outputs.shares is not None:
            candidates: Sequence[Task] = (first,)  # one center of gravity for every reduce
        else:
            candidates = job.pending_tasks(REDUCE)
        for task in candidates:
            if self.reduce_fits(job, task, node):
                return task
        since = self.refused_since.setdefault(job.id, now)
        if now - since >= self.wait:
            return first  # waited long enough: as native Hadoop, the first pending reduce
        return None

    # ------------------------------------------------------------------ hooks
    @hookimpl
    def cs_select_task(self, job: Job, node: Node, kind: str, now: float, nodes: int) -> Task | None:
        if kind == REDUCE:
            return self.select_reduce(job, node, now)
        return DelayScheduling.cs_select_task(self, job, node, kind, now, nodes)

    @hookimpl
    def cs_select_hint(self, job: Job, kind: str, now: float) -> Hint | None:
        """Maps: delay scheduling's hint.  Reduces: none (where a reduce fits changes as maps
        finish, and its wait with the clock)."""
        if kind == REDUCE:
            return None
        return DelayScheduling.cs_select_hint(self, job, kind, now)

    @hookimpl
    def cs_task_started(self, task: Task, node: Node, locality: str | None) -> None:
        if task.kind == REDUCE:
            if self.reduce_fits(task.job, task, node):  # placed at its center: the job waits again
                self.refused_since.pop(task.job.id, None)
        else:
            DelayScheduling.cs_task_started(self, task, locality)

    @hookimpl
    def cs_job_removed(self, job: Job) -> None:
        DelayScheduling.cs_job_removed(self, job)
        self.refused_since.pop(job.id, None)

    @hookimpl
    def cs_update(self, pools: Sequence[Any], now: float) -> None:
        DelayScheduling.cs_update(self, pools, now)
        if self.auto_wait:  # follows the heartbeat interval, as the auto locality delays do
            self.wait = auto_delay(float(self._interval()))
