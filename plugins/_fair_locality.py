"""``locality`` with YARN's fair-scheduler delay scheduling: Hadoop 3.3 ``FSAppAttempt``'s
locality delay counted in scheduling opportunities (``yarn.scheduler.fair.locality.threshold.node``
/ ``.rack``: ``[scheduler] locality_threshold_node`` / ``locality_threshold_rack``).

:class:`~corescheduler_plugins.locality.GreedyLocality` gives this selector when both thresholds
are ≥ 0 (``getAllowedLocalityLevel``: either one negative — the default, -1 — is no delay).

* **Scheduler keys**: an app's asks of one priority are one key (YARN's ``SchedulerRequestKey``);
  an MR job's maps with input locations are one key (the MR AM asks every map's hosts, racks and
  ANY at ``RMContainerAllocator.PRIORITY_MAP``); a map killed while running is asked again with
  ANY alone (``PRIORITY_FAST_FAIL_MAP``) and runs at once, as do reduces and maps or asks that
  name no place (``hasNodeOrRackLocalRequests`` false).
* **Opportunities** (``FSAppAttempt.assignContainer``): each time an app is offered a node, each
  key, in priority order, with a pending container that may run there and fits the node's
  capability (``hasContainerForNode``) counts one (``addSchedulingOpportunity``), then its
  allowed level is read (:meth:`allowed_locality_level`, ``getAllowedLocalityLevel``): a key
  starts at node-local; once its opportunities exceed ``nodes × threshold`` (the node threshold
  at node-local, the rack one at rack-local; thresholds above 1 are 1) it moves one level out
  and its count starts again (``resetSchedulingOpportunities``).  A node-local container runs
  always; a rack-local one once the key is allowed rack-local; an off-switch one once it is
  allowed off-switch; otherwise the next key is tried.
* **Allocation** (``FSAppAttempt.allocate``): a container started more local than its key's
  allowed level brings the level back to that locality (``resetAllowedLocalityLevel``); the
  opportunities are not reset there (Hadoop resets them only when the level moves out).
* **Counts** live per app and key and go when the app ends (``cs_job_removed``).

Continuous scheduling's time-based delay (``getAllowedLocalityLevelByTime``, deprecated in
Hadoop 3.3) is not modelled.  The thresholds are read as YARN reads them, Java ``float`` s
(``Configuration.getFloat``): 0.6 is 0.60000002384…, so 10 nodes wait past 6 opportunities.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from corescheduler_plugins._mr_requests import MR_MAP_PRIORITY, fits_capability

from corescheduler.core.javamath import java_float
from corescheduler.core.model import MAP, NODE_LOCAL, OFF_RACK, RACK_LOCAL, TASK, Job, Node, Task
from corescheduler.hookspecs import hookimpl

#: ``RMContainerAllocator.PRIORITY_MAP``: the scheduler key of an MR job's map requests
MR_MAP_KEY = MR_MAP_PRIORITY
#: the allowed levels, most local first (YARN's ``NodeType``)
LEVELS = (NODE_LOCAL, RACK_LOCAL, OFF_RACK)
_NODE, _RACK, _OFF = 0, 1, 2
_RANK = {NODE_LOCAL: _NODE, RACK_LOCAL: _RACK, OFF_RACK: _OFF}


class FairLocality:
    """Delay scheduling by missed scheduling opportunities per (app, scheduler key)."""

    def __init__(self, settings: Mapping[str, Any] | None = None, context: Any = None, *,
                 node_threshold: float | None = None, rack_threshold: float | None = None) -> None:
        if context is not None:
            sc = context.config.scheduler
            node_threshold, rack_threshold = sc.locality_threshold_node, sc.locality_threshold_rack
            # FairScheduler.initScheduler: getFloat (a Java float), held as a double
            node_threshold, rack_threshold = java_float(node_threshold), java_float(rack_threshold)
        #: the thresholds as given (``FairScheduler.getNodeLocalityThreshold`` / ``Rack``)
        self.node_threshold = -1.0 if node_threshold is None else float(node_threshold)
        self.rack_threshold = -1.0 if rack_threshold is None else float(rack_threshold)
        #: app id -> key -> missed opportunities / allowed level (an index into LEVELS)
        self._missed: dict[str, dict[int, int]] = {}
        self._allowed: dict[str, dict[int, int]] = {}

    # ------------------------------------------------------------------ Hadoop's accessors
    def scheduling_opportunities(self, job: Job | str, key: int = 0) -> int:
        """``SchedulerApplicationAttempt.getSchedulingOpportunities(schedulerKey)``."""
        return self._missed.get(_id(job), {}).get(key, 0)

    def add_scheduling_opportunity(self, job: Job | str, key: int = 0) -> None:
        """``SchedulerApplicationAttempt.addSchedulingOpportunity(schedulerKey)``."""
        counts = self._missed.setdefault(_id(job), {})
        counts[key] = counts.get(key, 0) + 1

    def reset_scheduling_opportunities(self, job: Job | str, key: int = 0) -> None:
        """``SchedulerApplicationAttempt.resetSchedulingOpportunities(schedulerKey)``."""
        counts = self._missed.get(_id(job))
        if counts is not None:
            counts.pop(key, None)

    def locality_level(self, job: Job | str, key: int = 0) -> str | None:
        """The key's allowed level as kept (``allowedLocalityLevel.get``: None before its first
        look), changing nothing."""
        level = self._allowed.get(_id(job), {}).get(key)
        return None if level is None else LEVELS[level]

    def reset_allowed_locality_level(self, job: Job | str, key: int, level: str) -> None:
        """``FSAppAttempt.resetAllowedLocalityLevel``: the key's allowed level is ``level``."""
        self._allowed.setdefault(_id(job), {})[key] = _RANK[level]

    def allowed_locality_level(self, job: Job | str, key: int, nodes: int,
                               node_threshold: float | None = None, rack_threshold: float | None = None) -> str:
        """``FSAppAttempt.getAllowedLocalityLevel(schedulerKey, numNodes, nodeLocalityThreshold,
        rackLocalityThreshold)`` (the plugin's thresholds unless given): ``node``, ``rack`` or
        ``off``; moves the key's level out, and starts its count again, past the threshold."""
        node_t = self.node_threshold if node_threshold is None else node_threshold
        rack_t = self.rack_threshold if rack_threshold is None else rack_threshold
        return LEVELS[self._allowed_level(_id(job), key, nodes, node_t, rack_t)]

    def _allowed_level(self, job_id: str, key: int, nodes: int, node_t: float, rack_t: float) -> int:
        node_t = min(node_t, 1.0)  # upper limit on threshold
        rack_t = min(rack_t, 1.0)
        if node_t < 0.0 or rack_t < 0.0:
            return _OFF  # delay scheduling not in use
        levels = self._allowed.get(job_id)
        if levels is None:
            levels = self._allowed[job_id] = {}
        allowed = levels.get(key)
        if allowed is None:  # the default level is node-local
            levels[key] = _NODE
            return _NODE
        if allowed == _OFF:
            return _OFF
        threshold = node_t if allowed == _NODE else rack_t
        missed = self._missed.get(job_id, {}).get(key, 0)
        if missed > nodes * threshold:  # relax once past the threshold (a double product)
            allowed += 1
            levels[key] = allowed
            self.reset_scheduling_opportunities(job_id, key)
        return allowed

    # ------------------------------------------------------------------ TaskSelector
    @hookimpl
    def cs_select_task(self, job: Job, node: Node, kind: str, nodes: int) -> Task | None:
        """An MR job's map under the delay (its maps with input locations are one key); its
        reduces, a map killed while running and the maps of a job with no input location at once."""
        if kind != MAP:
            return job.pending_task(kind)
        task = job.pending_failed_map()  # PRIORITY_FAST_FAIL_MAP, ANY alone
        if task is not None or not job.has_locality:
            return task if task is not None else job.pending_map(node, OFF_RACK)
        local = job.pending_map_on_node(node.name)
        rack = job.pending_map_on_rack(node.rack) if local is None else None
        probe = local or rack or job.pending_map(node, OFF_RACK)
        if probe is None or not fits_capability(probe, node.capacity):
            return None  # hasContainerForNode: nothing pending, or too big for the node: not counted
        job_id = job.id
        self.add_scheduling_opportunity(job_id, MR_MAP_KEY)
        allowed = self._allowed_level(job_id, MR_MAP_KEY, nodes, self.node_threshold, self.rack_threshold)
        if local is not None:
            return local  # NODE_LOCAL: always
        if rack is not None:
            return rack if allowed >= _RACK else None
        if allowed == _OFF or job.unlocated_pending >= job.pending[MAP]:
            return probe  # OFF_SWITCH: allowed, or no pending map names a place
        return None

    @hookimpl
    def cs_select_ask(self, job: Job, node: Node, asks: Sequence[Any], nodes: int) -> Task | None:
        """``FSAppAttempt.assignContainer(node, reserved=false)`` for one app on one node."""
        capacity = node.capacity
        job_id = job.id
        i, n = 0, len(asks)
        while i < n:  # getSchedulerKeys(): one priority at a time
            key = asks[i].priority
            j = i + 1
            while j < n and asks[j].priority == key:
                j += 1
            group = asks[i:j]
            i = j
            local = near = far = None
            places = False
            for a in group:
                t = a.first_pending()
                if t is None:
                    continue
                if a.nodes or a.racks:
                    places = True
                if capacity is None or not a.size.fits_in(capacity):
                    continue  # hasContainerForNode: never on this node
                level = a.allows(node)
                if level == NODE_LOCAL:
                    local = local or t
                elif level == RACK_LOCAL:
                    near = near or t
                elif level == OFF_RACK:
                    far = far or t
            if local is None and near is None and far is None:
                continue  # hasContainerForNode false: not counted
            self.add_scheduling_opportunity(job_id, key)
            allowed = self._allowed_level(job_id, key, nodes, self.node_threshold, self.rack_threshold)
            if local is not None:
                return local  # NODE_LOCAL: always
            if near is not None and allowed >= _RACK:
                return near
            if far is not None and (allowed == _OFF or not places):
                return far  # OFF_SWITCH: allowed, or the key names no place
        return None

    # ------------------------------------------------------------------ notifications
    @hookimpl
    def cs_task_started(self, task: Task, node: Node, locality: str | None) -> None:
        """``FSAppAttempt.allocate``: a container more local than its key's allowed level
        brings the level back to its locality (``resetAllowedLocalityLevel``)."""
        if locality is None or locality == OFF_RACK:
            return
        job = task.job
        levels = self._allowed.get(job.id)
        if levels is None:
            return
        key = _key_of(task)
        if key is None:
            return
        allowed = levels.get(key)
        rank = _RANK[locality]
        if allowed is not None and allowed > rank:
            levels[key] = rank

    @hookimpl
    def cs_job_removed(self, job: Job) -> None:
        """The app ended: its counts and levels go with its attempt."""
        self._missed.pop(job.id, None)
        self._allowed.pop(job.id, None)


def _id(job: Job | str) -> str:
    return job if isinstance(job, str) else job.id


def _key_of(task: Task) -> int | None:
    """The scheduler key a started container was asked at: an MR map's, or its ask's priority."""
    if task.kind == MAP:
        return MR_MAP_KEY
    if task.kind != TASK:
        return None
    specs = task.job.spec.tasks
    if task.index >= len(specs):
        return 0
    priority = specs[task.index].priority
    return priority if priority is not None else 0
