"""``yarn_capacity``'s TaskSelector: Hadoop 3.3 ``CapacityScheduler`` locality, delay counted
in missed scheduling opportunities, and its per-heartbeat assignment limits.

A mixin of :class:`corescheduler_plugins.yarn_capacity.YarnCapacityScheduler` (it reads the
capacity file in force, ``self.conf``), so ``task_selector = "yarn_capacity"`` — the default
with ``share_policy = "yarn_capacity"`` — selects it.

* **Asks** (:meth:`cs_select_ask`; ``RegularContainerAllocator.assignContainers``): an app's
  asks are served by priority; the asks of one priority are one scheduler key.  Each time the
  app is offered a node at a priority with pending containers that fit its queue's headroom
  (else nothing is counted: ``preCheckForNodeCandidateSet`` → ``checkHeadroom``,
  ``QUEUE_SKIPPED``; :meth:`_queue_skips`), the key counts one *scheduling
  opportunity* (``RegularContainerAllocator.tryAllocateOnNode`` →
  ``SchedulerApplicationAttempt.addSchedulingOpportunity``), then
  (``RegularContainerAllocator.assignContainersOnNode``, ``canAssign``):

  - **node-local** — a pending container naming the node: always;
  - **rack-local** — one that may run on the node's rack: once the opportunities exceed
    min(cluster nodes, ``node-locality-delay``) (``getActualNodeLocalityDelay``); a rack
    that no ask may relax to (``relax_locality`` false: ``AppSchedulingInfo.canDelayTo``)
    skips the priority, and the opportunity is taken back
    (``subtractSchedulingOpportunity``: "don't count skipped nodes");
  - **off-switch** — at once when the priority names no place (``uniqLocationAsks == 1``);
    with ``rack-locality-additional-delay`` ≥ 0 once the opportunities exceed
    min(cluster nodes, node delay + additional delay) (``getActualRackLocalityDelay``);
    otherwise once they exceed min(cluster nodes, outstanding containers × locality wait
    factor), the factor min((unique locations − 1) ÷ cluster nodes, 1) in Java floats
    (``getLocalityWaitFactor``; ``LeafQueue``'s ``localityWaitFactor``).  An ask that may
    not relax (``relax_locality`` false) skips the priority.  A priority whose off-switch
    container may not run yet skips the whole app (``APP_SKIPPED``): lower priorities wait.

  A container larger than the node skips its level (``assignContainer``:
  ``LOCALITY_SKIPPED``).  A node-local container resets the key's opportunities, a
  rack-local one too unless ``rack-locality-full-reset`` is false; an off-switch one does
  not (``RegularContainerAllocator.doAllocation`` → ``resetSchedulingOpportunities``).
  Rack-local prefers an ask naming the rack, off-switch one naming no place, as Hadoop's
  rack and ANY requests are drawn before a host's.
* **MR jobs** (:meth:`cs_select_task`): a job's maps with input locations are one scheduler
  key (``RMContainerAllocator.PRIORITY_MAP``) under the same rules, with ``cs_select_task``'s
  ``nodes`` (:meth:`_select_map`); maps without any, reduces and apps whose containers name
  no place are never delayed (``uniqLocationAsks == 1``).  The engine asks a job's reduces
  once all its maps are scheduled (resource mode's model of the MR AM,
  ``RMContainerAllocator.scheduleReduces``): maps waiting for their delay hold them back.
* **Counts** live per app and priority and go when the app ends (``cs_job_removed`` →
  :meth:`forget_opportunities`), as Hadoop keeps them on the app attempt.
* **Heartbeat** (:meth:`heartbeat_limits`; ``CapacityScheduler.allocateContainersToNode``,
  ``canAllocateMore``): a node heartbeat assigns containers until nothing more is assigned,
  one is reserved, ``per-node-heartbeat.maximum-container-assignments`` (100) were assigned
  (one when ``per-node-heartbeat.multiple-assignments-enabled`` is false) or
  ``per-node-heartbeat.maximum-offswitch-assignments`` (1) were off-switch.

:meth:`scheduling_opportunities` and :meth:`reset_scheduling_opportunities` are Hadoop's
``getSchedulingOpportunities`` / ``resetSchedulingOpportunities`` for tests and tools.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from corescheduler_plugins._mr_requests import MR_MAP_PRIORITY

from corescheduler.core.javamath import java_float
from corescheduler.core.model import MAP, OFF_RACK, Job, Node, Task
from corescheduler.core.policy import HeartbeatLimits
from corescheduler.hookspecs import hookimpl
from corescheduler.resources import Resources

#: ``CapacitySchedulerConfiguration``'s defaults (Hadoop 3.3), in force without a capacity file
#: (the reader, ``corescheduler.formats.capacity_scheduler_xml``, has the same)
DEFAULT_NODE_LOCALITY_DELAY = 40
DEFAULT_RACK_LOCALITY_ADDITIONAL_DELAY = -1
DEFAULT_MAX_ASSIGN_PER_HEARTBEAT = 100
DEFAULT_OFFSWITCH_PER_HEARTBEAT = 1


#: Hadoop's limits without a capacity file (``CapacitySchedulerConfiguration`` defaults)
_DEFAULT_LIMITS = HeartbeatLimits(DEFAULT_MAX_ASSIGN_PER_HEARTBEAT, DEFAULT_OFFSWITCH_PER_HEARTBEAT)


def _fits_node(size: Resources, capacity: Resources | None, dominant: bool) -> bool:
    """``RegularContainerAllocator.assignContainer``'s ``Resources.lessThanOrEqual(rc, cluster,
    capability, node.getTotalResource())``: every type under ``DominantResourceCalculator``,
    memory alone under ``DefaultResourceCalculator``."""
    if capacity is None:
        return False
    return size.fits_in(capacity) if dominant else size.memory <= capacity.memory


def _fits_task(task: Task, capacity: Resources | None, dominant: bool) -> bool:
    """:func:`_fits_node` for a map's container (no size, or a node of no known capacity: as fitting)."""
    size = task.resources
    return size is None or capacity is None or _fits_node(size, capacity, dominant)


class CapacityLocality:
    """Missed scheduling opportunities per (app, priority) and the locality rule they feed;
    mixed into the ``yarn_capacity`` plugin (``self.conf``: its capacity file or None)."""

    conf: Any
    _live: dict[str, Any]  # path -> the engine's live queue (the plugin's compute_shares)
    _minimum: Resources | None  # [cluster] minimum_allocation
    _dominant: bool  # the file's resource-calculator is the DominantResourceCalculator
    #: app id -> priority (scheduler key) -> missed opportunities; an app's entry goes when it
    #: ends (:meth:`forget_opportunities`), as Hadoop's counts live on its app attempt
    _cs_missed: dict[str, dict[int, int]] | None = None

    # ------------------------------------------------------------------ Hadoop's accessors
    def scheduling_opportunities(self, job: Job | str, priority: int = 0) -> int:
        """``SchedulerApplicationAttempt.getSchedulingOpportunities(schedulerKey)``."""
        job_id = job if isinstance(job, str) else job.id
        return (self._cs_missed or {}).get(job_id, {}).get(priority, 0)

    def reset_scheduling_opportunities(self, job: Job | str, priority: int = 0) -> None:
        """``SchedulerApplicationAttempt.resetSchedulingOpportunities(schedulerKey)``."""
        job_id = job if isinstance(job, str) else job.id
        counts = (self._cs_missed or {}).get(job_id)
        if counts is not None:
            counts.pop(priority, None)

    def forget_opportunities(self, job: Job) -> None:
        """The app ended (``cs_job_removed``): its counts go with its attempt
        (``SchedulerApplicationAttempt``'s ``schedulingOpportunities``)."""
        if self._cs_missed is not None:
            self._cs_missed.pop(job.id, None)

    def _counts(self, job: Job) -> dict[int, int]:
        """The app's missed opportunities by priority (made when it is first counted)."""
        missed = self._cs_missed
        if missed is None:
            missed = self._cs_missed = {}
        counts = missed.get(job.id)
        if counts is None:
            counts = missed[job.id] = {}
        return counts

    # ------------------------------------------------------------------ TaskSelector
    @hookimpl
    def cs_select_task(self, job: Job, node: Node, kind: str, nodes: int) -> Task | None:
        """An MR job's maps under the locality delay (:meth:`_select_map`); its reduces, and
        the containers of an app that names no place, at once (``uniqLocationAsks == 1``)."""
        if kind != MAP:  # (asked for reduces once every map is scheduled: the engine's MR AM model)
            return job.pending_task(kind)
        if not job.has_locality:
            return job.pending_map(node, OFF_RACK)
        return self._select_map(job, node, nodes)

    def _select_map(self, job: Job, node: Node, nodes: int) -> Task | None:
        """A map of an MR job with input locations, as the Capacity Scheduler serves the MR
        AM's requests (``RMContainerAllocator``: every map asks its hosts, their racks and
        ANY at one priority, ``PRIORITY_MAP`` 20 — one scheduler key, whose missed
        opportunities :meth:`scheduling_opportunities` reads) and the AM gives a container
        to a map (``assignMapsWithLocality``: one on the container's host, else its rack,
        else any).  A map killed while running is asked again at ``PRIORITY_FAST_FAIL_MAP``
        with ANY alone (``createContainerRequestEventForFailedContainer``): it runs first, at
        once.  Otherwise, unless the queue's headroom refuses the map (:meth:`_queue_skips`:
        not counted), the key counts one opportunity (``addSchedulingOpportunity``) and
        ``RegularContainerAllocator.canAssign`` decides: node-local always, rack-local past
        min(nodes, ``node-locality-delay``), off-switch as :meth:`_off_switch_allowed`
        (the outstanding asks: the job's pending maps, ``getOutstandingAsksCount`` of ANY;
        the unique locations: the hosts and racks of its pending maps, and ANY).  Node-local
        resets the opportunities, rack-local unless ``rack-locality-full-reset`` is false;
        off-switch does not (``doAllocation``).  A map larger than the node skips its level
        (``LOCALITY_SKIPPED``)."""
        task = job.pending_failed_map()
        if task is not None:
            return task
        node_delay, rack_extra, full_reset = self._delays()
        local = job.pending_map_on_node(node.name)
        probe = local if local is not None else job.pending_map(node, OFF_RACK)
        if probe is None or self._queue_skips(job, probe.resources):
            return None  # nothing pending; or QUEUE_SKIPPED (checkHeadroom): not counted
        counts = self._counts(job)
        key = MR_MAP_PRIORITY
        missed = counts.get(key, 0) + 1  # tryAllocateOnNode: addSchedulingOpportunity
        counts[key] = missed
        capacity = node.capacity
        dominant = self._dominant
        if local is not None and _fits_task(local, capacity, dominant):  # assignNodeLocalContainers: always
            del counts[key]  # doAllocation: resetSchedulingOpportunities
            return local
        task = job.pending_map_on_rack(node.rack)
        # canAssign RACK_LOCAL
        if task is not None and min(nodes, node_delay) < missed and _fits_task(task, capacity, dominant):
            if full_reset:
                del counts[key]
            return task
        if not self._map_off_switch_allowed(job, missed, nodes, node_delay, rack_extra):
            return None  # APP_SKIPPED
        # the AM's choice for the container: host, rack, any (``probe``: nothing has changed since)
        return probe if _fits_task(probe, capacity, dominant) else None

    @staticmethod
    def _map_off_switch_allowed(job: Job, missed: int, nodes: int, node_delay: int, rack_extra: int) -> bool:
        """:meth:`_off_switch_allowed` for an MR job's map key: the places come from its pending
        maps' input locations, counted only when the cheaper bounds do not decide."""
        if nodes <= 0:
            return False
        required = job.pending[MAP]  # getOutstandingAsksCount: ANY's containers
        if job.unlocated_pending >= required:
            return True  # no pending map names a place: uniqLocationAsks == 1
        if rack_extra > -1:
            return missed > min(nodes, node_delay + rack_extra)  # getActualRackLocalityDelay
        if missed > nodes:
            return True
        if min(float(nodes), float(required)) < missed:  # the wait factor is at most 1
            return True
        unique = len(job.pending_map_nodes()) + len(job.pending_map_racks()) + 1  # getUniqueLocationAsks
        factor = min(java_float(java_float(float(unique - 1)) / java_float(nodes)), 1.0)  # getLocalityWaitFactor
        return min(float(nodes), java_float(java_float(float(required)) * factor)) < missed

    def _delays(self) -> tuple[int, int, bool]:
        """``node-locality-delay``, ``rack-locality-additional-delay`` and
        ``rack-locality-full-reset`` of the file in force (Hadoop's defaults without one)."""
        conf = self.conf
        if conf is None:
            return DEFAULT_NODE_LOCALITY_DELAY, DEFAULT_RACK_LOCALITY_ADDITIONAL_DELAY, True
        return conf.node_locality_delay, conf.rack_locality_additional_delay, conf.rack_locality_full_reset

    @hookimpl
    def cs_select_ask(self, job: Job, node: Node, asks: Sequence[Any], nodes: int) -> Task | None:
        """``RegularContainerAllocator.assignContainers`` for one app on one node (see the module
        docstring)."""
        node_delay, rack_extra, full_reset = self._delays()
        counts: dict[int, int] | None = None
        capacity = node.capacity
        # the node's total fits the ask by the calculator (assignContainer's
        # Resources.lessThanOrEqual(rc, cluster, capability, totalResource)): memory alone under
        # DefaultResourceCalculator (the engine then checks the node as fits_by_memory says)
        dominant = self._dominant
        name, rack = node.name, node.rack
        i, n = 0, len(asks)
        while i < n:  # application.getSchedulerKeys(): one priority at a time
            priority = asks[i].priority
            j = i + 1
            while j < n and asks[j].priority == priority:
                j += 1
            pending = [(a, t) for a in asks[i:j] if (t := a.first_pending()) is not None]
            i = j
            if not pending:
                continue  # preCheckForNodeCandidateSet: nothing outstanding at this priority
            if self._queue_skips(job, pending[0][0].size):
                # checkHeadroom: QUEUE_SKIPPED before addSchedulingOpportunity (not counted); the
                # container goes to the engine, which finds it past the queues' maximums and asks
                # the policy (SharePolicy.queue_headroom): the leaf's turn ends, its headroom held back
                return pending[0][1]
            if counts is None:
                counts = self._counts(job)
            key = priority
            missed = counts.get(key, 0) + 1  # tryAllocateOnNode: addSchedulingOpportunity
            counts[key] = missed
            # node-local: assignNodeLocalContainers (canAssign NODE_LOCAL: always)
            for a, t in pending:
                if name in a.nodes and _fits_node(a.size, capacity, dominant):
                    del counts[key]  # doAllocation: resetSchedulingOpportunities
                    return t
            # rack-local: the rack's request has containers, and it may delay to the rack
            on_rack = [(a, t) for a, t in pending if rack in a.racks or rack in a.node_racks]
            if on_rack:
                relaxed = [(a, t) for a, t in on_rack if rack in a.racks or a.relax]
                if not relaxed:  # canDelayTo(rack) false: PRIORITY_SKIPPED
                    counts[key] = missed - 1  # subtractSchedulingOpportunity
                    continue
                if min(nodes, node_delay) < missed:  # canAssign RACK_LOCAL
                    relaxed.sort(key=lambda at: rack not in at[0].racks)  # the rack's own request first
                    for a, t in relaxed:
                        if _fits_node(a.size, capacity, dominant):
                            if full_reset:
                                del counts[key]
                            return t
            # off-switch: canDelayTo(ANY), then canAssign OFF_SWITCH
            anywhere = [(a, t) for a, t in pending if a.relax]
            if not anywhere:
                counts[key] = missed - 1  # PRIORITY_SKIPPED
                continue
            if not self._off_switch_allowed(pending, missed, nodes, node_delay, rack_extra):
                return None  # APP_SKIPPED: lower priorities wait too
            anywhere.sort(key=lambda at: bool(at[0].nodes or at[0].racks))  # ANY's own request first
            for a, t in anywhere:
                if _fits_node(a.size, capacity, dominant):
                    return t  # off-switch: opportunities are not reset
            return None  # LOCALITY_SKIPPED at off-switch: APP_SKIPPED
        return None

    @staticmethod
    def _off_switch_allowed(pending: list[tuple[Any, Task]], missed: int, nodes: int, node_delay: int,
                            rack_extra: int) -> bool:
        """``RegularContainerAllocator.canAssign`` for ``NodeType.OFF_SWITCH`` (no reservation)."""
        if nodes <= 0:
            return False
        places: set[str] = set()
        for a, _ in pending:
            places.update(a.nodes)
            places.update(a.racks)
            places.update(a.node_racks)
        unique = len(places) + 1  # getUniqueLocationAsks: hosts and racks with containers, and ANY
        if unique == 1:
            return True
        if rack_extra > -1:
            return missed > min(nodes, node_delay + rack_extra)  # getActualRackLocalityDelay
        if missed > nodes:
            return True  # the delay is capped by the cluster's size
        required = sum(a.pending_count() for a, _ in pending)  # getOutstandingAsksCount(schedulerKey)
        factor = min(java_float(java_float(max(unique - 1, 0)) / java_float(nodes)), 1.0)  # getLocalityWaitFactor
        return min(float(nodes), java_float(java_float(float(required)) * factor)) < missed

    def _queue_skips(self, job: Job, size: Any) -> bool:
        """``RegularContainerAllocator.preCheckForNodeCandidateSet`` → ``checkHeadroom``: a
        container of ``size`` past the headroom of the app's leaf or a parent (their maximum
        capacities, as the engine then checks them: the live queue's ``fits_max_shares``) is
        ``QUEUE_SKIPPED`` before ``tryAllocateOnNode`` counts a scheduling opportunity — so
        a queue at its maximum neither counts nor resets its apps' opportunities."""
        if size is None:
            return False
        q = self._live.get(job.queue or job.pool)  # the leaf's live queue (seen in compute_shares)
        if q is None:
            return False
        # (by memory alone under DefaultResourceCalculator, as the engine checks: fits_by_memory)
        return not (q.fits_max_shares(size) if self._dominant else q.fits_max_memory(size))

    # ------------------------------------------------------------------ heartbeat
    def heartbeat_limits(self) -> HeartbeatLimits:
        """``CapacityScheduler.canAllocateMore``'s limits from the capacity file, and the
        least a node must have free to be offered at all: the minimum allocation, by the
        file's resource calculator (``allocateContainerOnSingleNode``:
        ``computeAvailableContainers(unallocated, minimumAllocation) <= 0`` skips the node;
        ``DefaultResourceCalculator`` counts memory alone)."""
        conf = self.conf
        minimum = self._minimum
        least = None
        if isinstance(minimum, Resources) and minimum.any_positive():
            least = minimum if self._dominant else Resources(minimum.memory, 0)
        if conf is None:
            return _DEFAULT_LIMITS._replace(min_free=least)
        containers = conf.max_assign_per_heartbeat if conf.multiple_assignments else 1
        return HeartbeatLimits(containers if containers != 0 else 1, conf.offswitch_per_heartbeat, least)
