"""Resource mode: the YARN Fair Scheduler's cycle on the queue tree.

The :class:`~corescheduler.core.scheduler.Scheduler` runs this engine when
``[scheduler] mode = "resources"``: the same public calls (submit, heartbeat,
finish, kill, update), the same plugins and hooks, the same events; tasks ask
for resource vectors instead of one slot of their kind, and queues nest.
Slot mode has its own engine (:class:`~corescheduler.core.slot_engine.SlotEngine`):
a heartbeat there walks a flat list of pools in one pass per kind, the path the
simulator runs millions of times.

What happens here, with the YARN trunk class and method it follows:

* **Submission** (``FairScheduler.addApplication``): the PoolResolver's queue
  (YARN's placement rules, the ``rules`` plugin) must be a leaf or creatable
  (``QueueManager.getLeafQueue``: "<q> is not a leaf queue"); the user must
  have submit or administer access there or above (``aclSubmitApps``,
  ``aclAdministerApps``); the app is runnable if its user and every queue up
  to root are under their ``maxRunningApps`` (``MaxRunningAppsEnforcer
  .canAppBeRunnable``), else it waits.  Its tasks are known at once.
* **Update** (``FairScheduler.update``): demands bottom-up — an app's usage
  plus its pending asks (its AM container first), a queue's the sum of its
  apps' or children's, capped by its max share (``updateDemand``); then fair
  shares top-down, each parent's policy dividing its share among its children
  and each leaf's among its runnable apps (``recomputeShares``; only active
  queues — with runnable apps — get one), and steady shares when the tree or
  the cluster changed (``recomputeSteadyShares``).
* **Heartbeat** (``FairScheduler.attemptScheduling``): a node reserved for an
  app serves that app first (``assignReservedContainer``) and, if the
  reservation is still valid, nothing else (under a root policy with
  ``heartbeat_limits``, YARN's Capacity Scheduler, nothing else while it is still
  reserved: once fulfilled the heartbeat goes on); otherwise containers are assigned
  from the root down — children in their parent policy's order, apps in
  their leaf's, skipping a queue at or over its max share
  (``assignContainerPreCheck``) and a request that would take a queue or an
  ancestor over it (``fitsInMaxShare``) — one per heartbeat, or more with
  ``assign_multiple`` (``dynamic_max_assign``: until half of what the node
  had free is handed out; ``max_assign``).  A request that does not fit
  reserves the node if the app is below its fair share and the request is at
  least ``reservation_threshold`` (``isReservable``), and the app holds fewer
  reservations than ``reservable_nodes`` of the cluster (or of the rack)
  allows (``reservationExceedsThreshold``).  An app with an AM size runs its
  AM first, and only while the leaf's ``maxAMShare`` of its fair share (or,
  where that is 0, of min(available, max share)) can hold it
  (``FSLeafQueue.canRunAppAM``, ``computeMaxAMResource``).  An MR job asks as
  MapReduce's AM does (``RMContainerAllocator``): its reduces once every map is
  scheduled (``scheduleReduces``), so a map the TaskSelector declines (a locality
  wait: the job is ``cs_heartbeat_end``'s ``skipped``) gets the job no reduce.
* **Completion** (``removeApplicationAttempt``): when an app ends, waiting
  apps become runnable in start-time order across the queues the end freed
  (``MaxRunningAppsEnforcer.updateRunnabilityOnAppRemoval``), and dynamic
  queues left empty are removed (``removeEmptyDynamicQueues``).

The engine is one class put together from a class per concept, each in its own module
(:mod:`~corescheduler.core.resource_base` lists them): submission and the running-app
limits, demands and shares, AM limits and reservations, preemption.  This module holds
the cycle itself: nodes, the update, the heartbeat, completion and reports.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from corescheduler.core import hook_answers as answers
from corescheduler.core.blame import chained
from corescheduler.core.model import (
    ALL_KINDS,
    MAP,
    PENDING,
    REDUCE,
    RESOURCES,
    RUNNING,
    TASK,
    Assignment,
    Job,
    Node,
    Rejection,
    Task,
)
from corescheduler.core.policy import HeartbeatLimits, SharePolicy
from corescheduler.core.queue_tree import NO_RESERVATION, Queue, QueueTree
from corescheduler.core.resource_asks import AppAsks, YarnAsks
from corescheduler.core.resource_base import AM, BLOCKED, NONE, RESERVED, _Reserved
from corescheduler.core.resource_moves import AppMoves
from corescheduler.core.resource_preemption import STARVATION_RECHECK_WAIT, Preemption
from corescheduler.core.resource_reservations import AMLimitsAndReservations
from corescheduler.core.resource_shares import ShareUpdate
from corescheduler.core.resource_walk import NoWalk
from corescheduler.core.resources import Resources
from corescheduler.errors import AllocationError, CoreSchedulerError, SchedulerStateError

if TYPE_CHECKING:
    from corescheduler.core.allocations import Allocations
    from corescheduler.core.engine import EngineOwner
    from corescheduler.core.framework import Plugins, SchedulerSettings

__all__ = ["AM", "STARVATION_RECHECK_WAIT", "ResourceScheduler"]

#: a leaf's ``admit_until`` when its policy is asked per app (``SharePolicy.admit_job``)
_PER_APP: Any = object()
#: a leaf's ``admit_until`` when its amount is ``admit_memory`` and ``admit_vcores`` alone
_AMOUNTS: Any = object()


class ResourceScheduler(AppMoves, ShareUpdate, AMLimitsAndReservations, Preemption, YarnAsks, NoWalk):
    """The resource-mode engine of one :class:`~corescheduler.core.scheduler.Scheduler`
    (:class:`~corescheduler.core.engine.Engine`; its owner is an
    :class:`~corescheduler.core.engine.EngineOwner`).  Task attempts launch and end through
    the owner's :class:`~corescheduler.core.task_ledger.TaskLedger`; this engine accounts for
    their resources and keeps the queues' orders."""

    def __init__(self, owner: EngineOwner, known: list[str]) -> None:
        self.owner = owner
        self.ledger = owner.ledger
        self.settings = owner.settings
        default = owner.config.cluster.node_resources
        for node in owner.cluster.nodes.values():
            if node.capacity is None:
                node.capacity = default
        self.cluster_total = self._cluster_total()
        self.tree = QueueTree(owner.allocations.queue_config(), self.cluster_total,
                              fallback_policy=owner.settings.share_policy,
                              known=known, child_allowed=self._child_allowed)
        self._configure_policies()
        self.user_runnable: dict[Any, int] = {}
        self.user_waiting: dict[Any, list[Job]] = {}
        #: app id -> node name -> rack, of the nodes the app holds reservations on
        self.reservations: dict[str, dict[str, str]] = {}
        self._held_back = {}
        #: node name -> the leaf whose ``reserved`` (and its ancestors') counts the node's reservation
        self.reserved_leaf: dict[str, Queue] = {}
        self.am_tasks: dict[str, Task] = {}
        #: app id -> its asks, for apps whose asks have places or priorities (SPEC §6b)
        self.app_asks: dict[str, AppAsks] = {}
        self._steady_dirty = True
        # (an engine has at most 30 instance attributes: CPython 3.11 keeps up to 30 in a
        # class's shared keys, and past them every ``self.x`` of the engine is a dict lookup —
        # tests/core/test_engine_attributes.py)
        self._levels_state: tuple[int, list[list[Queue]], list[Any]] = (-1, [], [])
        self._threshold = self.settings.reservation_threshold
        self._key_fns: dict[str, Any] = {}
        self._admit_fns: dict[str, Any] = {}
        #: the leaves whose ``admit_until`` is set (``SharePolicy.admit_leaf``): cleared together
        self._admit_leaves: set[Queue] = set()
        #: app id -> when preemption last ran for it (``waitTimeBeforeNextStarvationCheck``)
        self._preempted_at: dict[str, float] = {}
        #: apps with no containers: they finish as soon as they may run
        self.empty_runnable: list[Job] = []
        #: preemption: per leaf the last update it was not starved for its min share; per app for its fair share
        self._at_min_share: dict[str, float] = {}
        self._at_fair_share: dict[str, float] = {}
        #: app id -> what it is starved for now (fair-share plus min-share starvation)
        self.starvation: dict[str, Resources] = {}
        self._starvation_time = -math.inf
        #: the jobs whose map the TaskSelector declined on this heartbeat (``cs_heartbeat_end``'s
        #: ``skipped``), one entry a decline, in order
        self._declined: list[Job] = []

    # ================================================================== cluster
    def _cluster_total(self) -> Resources:
        total = Resources()
        for node in self.owner.cluster.nodes.values():
            if node.capacity is not None:
                total = total + node.capacity
        return total

    def node_added(self, node: Node, resources: Resources | None) -> None:
        """A node joins offering ``resources`` (default ``[cluster] node_resources``); a
        negative amount is refused (SchedulerStateError: the caller takes the node back)."""
        if resources is not None and any(v < 0 for _, v in resources.items()):
            raise SchedulerStateError(f"node {node.name!r}: negative resources {resources}")
        node.capacity = resources if resources is not None else self.owner.config.cluster.node_resources
        self.nodes_changed()

    def nodes_changed(self) -> None:
        """A node joined or left: the cluster's total, percentages and steady shares change."""
        self.cluster_total = self._cluster_total()
        self.tree.set_cluster(self.cluster_total)
        for job in self.owner.jobs.values():
            job.sched[RESOURCES].cluster = self.cluster_total
        self._steady_dirty = True
        if self._admit_leaves:
            self._forget_admissions()

    @staticmethod
    def check_allocations(plugins: Plugins, settings: SchedulerSettings, allocations: Allocations) -> None:
        """Every policy the queue tree names (``schedulingPolicy``) must load: else the error,
        before anything changes."""
        queues = allocations.queue_config()
        for _, spec in queues.walk():
            policy = queues.scheduling_policy(spec.name, settings.share_policy)
            try:
                plugins.share_policy(policy)
            except CoreSchedulerError as exc:
                raise chained(AllocationError(
                    f"queue {spec.name!r} schedulingPolicy {policy!r}: {exc}", allocations.source or "<allocations>",
                    spec.line,
                ), exc) from exc

    def reconfigure(self, known: list[str]) -> None:
        """New allocations are in force (the owner's; ``known``: the leaves the PoolResolvers
        configure themselves)."""
        self.tree.reconfigure(self.owner.allocations.queue_config(), self.cluster_total, known=known)
        self._configure_policies()
        self._steady_dirty = True
        self._key_fns.clear()
        self._admit_fns.clear()
        self._forget_admissions()
        self._rebuild_orders()  # policies may have changed: no order may mix two policies' keys
        self._release_waiting(list(self.tree.walk()), math.inf, now=self.owner.now)  # updateRunnabilityOnReload

    def _configure_policies(self) -> None:
        """Hand the allocations in force to every queue's policy (``SharePolicy.configure``),
        then read the root policy's :meth:`~corescheduler.core.policy.SharePolicy.heartbeat_limits`."""
        for name in dict.fromkeys(q.policy for q in self.tree.walk()):
            self.owner.plugins.share_policy(name).policy.configure(self.owner.allocations)
        root = self.owner.plugins.share_policy(self.tree.root.policy)
        limits = root.policy.heartbeat_limits()
        if limits is not None and not (isinstance(limits, HeartbeatLimits) and all(
                type(v) is int and (v >= 1 or v == -1) for v in (limits.containers, limits.off_switch))
                and (limits.min_free is None or (type(limits.min_free) is Resources
                                                 and all(v >= 0 for _, v in limits.min_free.items())))):
            raise answers.refuse(self.owner.plugins.who("SharePolicy", self.tree.root.policy), "heartbeat_limits",
                                    limits, "None or a HeartbeatLimits of whole numbers ≥ 1 or -1 "
                                    "and a min_free of None or Resources of amounts ≥ 0")
        #: the root policy's rule for a heartbeat's assignments, or None (``[scheduler] assign_multiple``'s)
        self._heartbeat_limits: HeartbeatLimits | None = limits
        #: a container fits a node by its memory alone (the root policy's ``fits_by_memory``)
        self._fit_memory_only = bool(root.policy.fits_by_memory()) and not self.owner.strict_fit
        #: some queue's policy has ``queue_headroom`` (:meth:`_queue_limit`)
        self._queue_limits = any(
            type(self.owner.plugins.share_policy(name).policy).queue_headroom is not SharePolicy.queue_headroom
            for name in dict.fromkeys(q.policy for q in self.tree.walk()))
        #: its ``min_free``'s types named above zero, (name, amount); None: no such rule.  Only
        #: those are asked (``computeAvailableContainers`` skips a type whose minimum is 0, and
        #: the DefaultResourceCalculator's divides memory alone): a node overcommitted in another
        #: type (a LoadManager's ``cs_fits``) is still offered
        self._min_free: tuple[int, int, tuple[tuple[str, int], ...]] | None = None
        least = limits.min_free if limits is not None else None
        if least is not None and least.any_positive():  # (memory, vcores, the other types named above 0)
            self._min_free = (least.memory, least.vcores, tuple((n, v) for n, v in least.extras if v > 0))

    def live_queues(self) -> Mapping[str, str]:
        """Every queue now, full name → ``"leaf"`` or ``"parent"`` (for the PoolResolvers; a read-only view)."""
        return MappingProxyType(self.tree.kinds)

    # ================================================================== update
    def update(self, now: float) -> None:
        """Apps with no container end; demands, then fair shares top-down (and steady shares
        if needed); then ``cs_update`` (with no MR1 pool)."""
        self.owner._finish_empty(now)
        self._update(now)
        for fn in self.owner.plugins.listeners("cs_update"):
            fn([], now)

    def _update(self, now: float) -> None:
        removed = self.tree.remove_empty_dynamic()
        if removed:
            self._steady_dirty = True
        if self.tree.pending_changes and any(
            q is None or q.is_empty() for q in map(self.tree.get, self.tree.pending_changes)
        ):  # QueueManager.removePendingIncompatibleQueues: a queue whose type changed, now empty
            self.tree.reconfigure(self.tree.config, self.cluster_total)
            self._steady_dirty = True
            self._rebuild_orders()
        if self._steady_dirty:
            self._steady()
            self._steady_dirty = False
        self._demand(now)
        root = self.tree.root
        root.sched.fair_share = self.cluster_total
        root.sched.active = root.num_runnable > 0
        self._shares()
        if self._admit_leaves:
            self._forget_admissions()
        self._rebuild_orders()
        if self.settings.preemption:
            self._update_starvation(now)

    # ================================================================== heartbeat
    def heartbeat(self, node: Node, now: float) -> list[Assignment]:
        """``FairScheduler.attemptScheduling`` on one node, with ``cs_heartbeat_start`` and
        ``cs_heartbeat_end``."""
        listeners = self.owner.plugins.listeners
        for fn in listeners("cs_heartbeat_start"):
            fn(node, now)
        declined = self._declined
        if declined:  # (left by a heartbeat a plugin's error ended)
            declined.clear()
        given = self._attempt_scheduling(node, now)
        ends = listeners("cs_heartbeat_end")
        if not ends:
            if declined:
                declined.clear()
            return given
        skipped = self._skipped(given) if declined else []
        for fn in ends:
            fn(node, given, skipped, now)
        return given

    def _skipped(self, given: list[Assignment]) -> list[Job]:
        """``cs_heartbeat_end``'s ``skipped``: the jobs offered a container on this heartbeat
        whose map the TaskSelector declined and that launched no map (Hadoop's "skipped at
        last heartbeat", as slot mode's), each once, in the order they were offered."""
        launched = {a.job for a in given if a.kind == MAP}
        out = list({job.id: job for job in self._declined if job.id not in launched}.values())
        self._declined.clear()
        return out

    def _attempt_scheduling(self, node: Node, now: float) -> list[Assignment]:
        out: list[Assignment] = []
        held = self._held_back
        if held:  # (what queue_headroom held back lasts one assignment from root: none is under way)
            held.clear()
        wanted = node.preempted_for
        if wanted:  # FairScheduler.assignPreemptedContainers: what was freed here is for those apps
            node.preempted_for = None
            for job, amount in wanted:
                leaf = self.tree.queues.get(job.queue or "")
                if leaf is None or not job.runnable or job.is_finished:
                    continue
                while amount.any_positive():
                    result = self._assign_app(leaf, job, node, now, out)
                    if result is None or result is RESERVED or result is BLOCKED:
                        break
                    amount = amount - result
        reserved = node.reserved
        limits = self._heartbeat_limits
        if reserved is not None and self._serve_reservation(node, reserved, now, out):
            if limits is None or node.reserved is not None:
                return out  # FairScheduler.attemptScheduling: a valid reservation, nothing else
            # CapacityScheduler.allocateContainerOnSingleNode: once the reservation is fulfilled
            # the node is scheduled on as any other (allocateOrReserveNewContainers), and the
            # heartbeat's limits count from there (the fulfilled container is not counted)
        if limits is not None:  # the root policy's own rule (SharePolicy.heartbeat_limits)
            # assign until nothing more is assigned, a node is reserved, ``containers`` have been
            # assigned or ``off_switch`` containers ran off the places they ask for (or ask for
            # none) — YARN's CapacityScheduler.allocateContainersToNode / canAllocateMore (inline:
            # every heartbeat under such a policy runs it)
            most, most_off = limits.containers, limits.off_switch
            least = self._min_free
            count = off = 0
            root = self.tree.root
            while True:
                if least is not None:  # allocateContainerOnSingleNode: no minimum allocation free, no queue offered
                    capacity = node.capacity
                    if capacity is None:
                        return out
                    used = node.used
                    memory, vcores, extras = least  # (a 0 is not asked: the type is not named)
                    if (0 < memory and capacity.memory - used.memory < memory) or (
                            0 < vcores and capacity.vcores - used.vcores < vcores) or (
                            extras and any(capacity.get(n) - used.get(n) < v for n, v in extras)):
                        return out
                if held:  # ParentQueue's blockedHeadroom lasts one root assignContainers
                    held.clear()
                result = self._assign_queue(root, node, now, out)
                if result is None or result is RESERVED:
                    return out
                count += 1
                if out[-1].locality not in ("node", "rack"):
                    off += 1
                    if 0 <= most_off <= off:
                        return out
                if 0 <= most <= count:
                    return out
        settings = self.settings
        if held:  # (held back by the assignments above: preempted_for's)
            held.clear()
        if not settings.assign_multiple:  # YARN's default: one container a heartbeat
            self._assign_queue(self.tree.root, node, now, out)
            return out
        start_free = node.available.multiply_and_round_down(0.5)  # shouldContinueAssigning
        assigned = NONE
        count = 0
        while node.reserved is None:
            if held:  # each assignment from root holds back afresh (SharePolicy.queue_headroom)
                held.clear()
            result = self._assign_queue(self.tree.root, node, now, out)
            if result is None or result is RESERVED:
                break
            count += 1
            assigned = assigned + result
            if settings.dynamic_max_assign:
                if not assigned.fits_in(start_free):
                    break
            elif 0 < settings.max_assign <= count:
                break
        return out

    def _assign_queue(self, q: Queue, node: Node, now: float, out: list[Assignment]) -> Resources | _Reserved | None:
        """``FSParentQueue`` / ``FSLeafQueue.assignContainer``."""
        qs = q.sched
        if node.reserved is not None or not (qs.running.memory <= qs.max_share.memory if self._fit_memory_only
                                             else qs.running.fits_in(qs.max_share)):
            return None
        if q.is_leaf:
            admit = self._admit_fn(q)
            if admit is None:
                for js in q.order:
                    result = self._assign_app(q, js.owner, node, now, out)
                    if result is not None:
                        return None if result is BLOCKED else result
                return None
            until = q.admit_until
            if until is not _PER_APP:  # the policy may admit every app up to an amount of use (admit_leaf)
                running = q.sched.running
                if until is None or running.memory > q.admit_memory or running.vcores > q.admit_vcores or (
                        running.extras and (until is _AMOUNTS or not running.fits_in(until))):
                    until = self._admit_leaf(q, now)  # none yet, or passed: ask (again)
                if until is not _PER_APP:
                    for js in q.order._items:  # (KeyedOrder.__iter__'s list, without its call)
                        result = self._assign_app(q, js.owner, node, now, out)
                        if result is not None:
                            return None if result is BLOCKED else result
                    return None
            return self._assign_per_app(q, admit, node, now, out)
        for s in q.order:
            result = self._assign_queue(s.owner, node, now, out)
            if result is not None:
                return result
        return None

    def _assign_per_app(self, q: Queue, admit: Any, node: Node, now: float,
                        out: list[Assignment]) -> Resources | _Reserved | None:
        """A leaf's apps in order, each as its policy's ``admit_job`` answers (its own function:
        the frame of :meth:`_assign_queue`, one per tree level on every heartbeat, keeps few locals)."""
        deferred: list[Job] | None = None  # cs_admit_job: False = after the others (a user over its limit)
        for js in q.order._items[:]:  # a copy: the policy's answer may move apps (KeyedOrder's list itself)
            job = js.owner
            verdict = admit(job, RESOURCES, now)
            if verdict is not None and verdict is not True:
                if verdict is not False and not isinstance(verdict, Rejection):
                    verdict = answers.admit(self.owner.plugins.who("SharePolicy", q.policy), verdict)
                if verdict is False:
                    if deferred is None:
                        deferred = []
                    deferred.append(job)
                    continue
                if verdict is not True:  # a Rejection
                    continue
            result = self._assign_app(q, job, node, now, out)
            if result is not None:
                return None if result is BLOCKED else result
        if deferred is not None:
            for job in deferred:
                result = self._assign_app(q, job, node, now, out)
                if result is not None:
                    return None if result is BLOCKED else result
        return None

    def _admit_leaf(self, q: Queue, now: float) -> Any:
        """The leaf's policy's :meth:`~corescheduler.core.policy.SharePolicy.admit_leaf` for
        ``q`` now, kept as ``q.admit_until`` (``_PER_APP`` when it has no amount, or its
        amount is already passed) until :meth:`_forget_admissions` or a container of ``q``
        ends."""
        policy = self.owner.plugins.share_policy(q.policy).policy
        until: Any = None
        if type(policy).admit_leaf is not SharePolicy.admit_leaf:
            until = policy.admit_leaf(q, now)
            if until is not None and type(until) is not Resources:
                raise answers.refuse(self.owner.plugins.who("SharePolicy", q.policy), "admit_leaf", until,
                                     "None or Resources")
        if until is None or not q.sched.running.fits_in(until):
            until = _PER_APP
        self._admit_leaves.add(q)
        if until is not _PER_APP:
            # kept as amounts, the answer itself only with extra resource types: a heartbeat after
            # an update makes no object that outlives it (no garbage for the collector to count)
            q.admit_memory = until.memory
            q.admit_vcores = until.vcores
            until = until if until.extras else _AMOUNTS
        q.admit_until = until
        return until

    def _forget_admissions(self) -> None:
        """Every leaf's ``admit_until`` is asked again (an update, a reload, the nodes changed)."""
        for q in self._admit_leaves:
            q.admit_until = None
        self._admit_leaves.clear()

    def _has_pending(self, job: Job) -> bool:
        if job.id in self.am_tasks and not job.am_running:
            return True
        pending = job.pending
        return bool(pending[MAP] or (pending[REDUCE] and job.reduces_schedulable) or pending.get(TASK, 0))

    def _choose(self, job: Job, node: Node, now: float, am: Task | bool | None = False) -> Task | None:
        """The request to serve: the AM first; then the TaskSelector's map, reduce or task
        (``am``: the app's AM task or None, when the caller has looked it up).

        An MR job's AM (YARN's ``RMContainerAllocator``) asks its reduces once every map is
        scheduled: ``scheduleReduces`` past the slow start (``reduces_schedulable``) asks them
        all when ``scheduledMaps == 0`` (``scheduleAllReduces``); its ramp-up while maps are
        pending (``maxReduceRampupLimit``) is not modelled.  A selector always gives a pending
        map when it may, so a job reaches its reduces with maps pending only when the selector
        declined its map on this node (delay scheduling waiting for locality): then no reduce
        is asked, only the job's plain containers."""
        if am is False:
            am = self.am_tasks.get(job.id)
        if am is not None and not job.am_running:
            return am if am.state == PENDING else None
        select = self.owner.plugins.select_task
        nodes = -1  # the cluster's nodes, counted when a selector is first asked
        declined = False  # the selector declined the job's map here
        for kind in ALL_KINDS:
            if not job.pending.get(kind):
                continue
            if kind == REDUCE and (declined or not job.reduces_schedulable):
                continue
            if kind == TASK and self.app_asks:
                apps = self.app_asks.get(job.id)
                if apps is not None:  # asks with places or priorities: YARN's order, or the selector's cs_select_ask
                    choose = self.owner.plugins.select_ask
                    if choose is None:
                        return self._choose_ask(apps, node)
                    task = choose(job, node, apps.asks, len(self.owner.cluster.nodes), now)
                    if task is not None and (type(task) is not Task or task.job is not job or task.kind != TASK
                                             or task.state != PENDING):
                        return answers.selected_task(self.owner._who("TaskSelector"), task, job, TASK, "cs_select_ask")
                    return task
            if nodes < 0:
                nodes = len(self.owner.cluster.nodes)
            task = select(job, node, kind, now, nodes)
            if task is not None:
                if type(task) is not Task or task.job is not job or task.kind != kind or task.state != PENDING:
                    return self.owner._check_selected(task, job, kind)
                return task
            if kind == MAP:  # the selector declined the job's maps here, maps still pending:
                # its AM has asked no reduce yet (RMContainerAllocator.scheduleReduces:
                # scheduledMaps == 0 -> scheduleAllReduces), so on to its plain containers
                declined = True
                self._declined.append(job)  # skipped (cs_heartbeat_end)
        return None

    def _assign_app(self, leaf: Queue, job: Job, node: Node, now: float, out: list[Assignment]) -> Any:
        """``FSAppAttempt.assignContainer``: allocate the chosen request, or reserve the node."""
        am = self.am_tasks.get(job.id)
        if am is not None and not job.am_running and not self._can_run_am(leaf, am.resources, job):  # type: ignore[arg-type]
            return None  # isOverAMShareLimit
        task = self._choose(job, node, now, am)
        if task is None:
            return None
        size = task.resources
        if size is None:
            size = self._size(task)  # the error
        capacity = node.capacity
        memory_only = self._fit_memory_only  # (the root policy's fits_by_memory)
        if capacity is None or not (size.memory <= capacity.memory if memory_only else size.fits_in(capacity)):
            return None  # hasContainerForNode: never on this node
        if not (leaf.fits_max_memory(size) if memory_only else leaf.fits_max_shares(size)):
            # over a max share; the policy's queue_headroom (the Capacity Scheduler's checkHeadroom)
            return BLOCKED if self._queue_limits and self._queue_limit(leaf, job, size) else None
        held_back = self._held_back
        if held_back:  # a queue skipped before in this assignment: the others' room is less
            if self._queue_limit(leaf, job, size):
                return BLOCKED
        fits = self.owner.plugins.fits
        answer = fits(node, task, size) if fits is not None else None
        if answer is None:
            answer = (node.used.memory + size.memory <= capacity.memory if memory_only
                      else node.used.fits_with(size, capacity))
        elif answer is not True and answer is not False:
            answer = answers.flag(self.owner._who("LoadManager"), "cs_fits", answer)
        limited = self._queue_limits and not held_back  # (held back: asked above)
        if answer:
            reservations = self.reservations
            if reservations:  # (none on any node: nothing to give back, the common case)
                if limited and not self._fits_with_reserved(leaf, size) and self._queue_limit(leaf, job, size):
                    return BLOCKED  # a reservation counts in its queues' use: their headroom may lack
                held = reservations.get(job.id)  # reservations elsewhere, or in the leaf: the policy's unreserve_for
                elsewhere = held is not None and (len(held) > 1 or node.name not in held)
                if (elsewhere or leaf.reserved is not NO_RESERVATION) \
                        and not self._unreserve_elsewhere(leaf, job, task, size, node):
                    return None
            self._allocate(leaf, job, task, node, size, now, out)
            return size
        if limited and not self._fits_with_reserved(leaf, size) and self._queue_limit(leaf, job, size):
            return BLOCKED  # preCheckForNodeCandidateSet's checkHeadroom, before reserving
        if self._reservable(job, leaf, size, node) and self._reserve(job, task, node):
            self.ledger.emit({"time": now, "type": "node_reserved", "job": job.id, "task": task.id,
                              "node": node.name, "resources": size.as_dict()})
            return RESERVED
        return None

    def _allocate(
        self, leaf: Queue, job: Job, task: Task, node: Node, size: Resources, now: float, out: list[Assignment]
    ) -> None:
        ledger = self.ledger
        kind = task.kind
        locality = task.locality(node) if kind == MAP or task.locations or task.racks else None
        ledger.launch(task, node, now, locality, size)  # running, and its task_start
        node._running[kind] = node._running.get(kind, 0) + 1
        node.used = node.used + size
        job.usage = job.usage + size
        q: Queue | None = leaf
        while q is not None:
            q.sched.running = q.sched.running + size
            q = q.parent
        if task.is_am:
            job.am_running = True
            leaf.am_usage = leaf.am_usage + size
        else:
            job.pending[kind] -= 1
            job._pending_resources[kind] = job._pending_resources[kind] - size
            job.running[kind] += 1
            if job.unlocated_pending and kind == MAP and not task.locations:
                job.unlocated_pending -= 1
        self._reposition(job, leaf)
        ledger.started(task, node, locality, now)
        out.append(Assignment(job.id, task.id, kind, node.name, locality, now, size))

    # ================================================================== completion
    def give_back(self, task: Task, node: Node | None) -> None:
        """A container the ledger released (finished or killed) gives back its resources:
        to ``node`` (None: the node has left), its app and every queue up to root."""
        size = task.resources or NONE
        if node is not None:
            node.used = node.used - size
            node._running[task.kind] = node._running.get(task.kind, 1) - 1
        job = task.job
        job.usage = job.usage - size
        leaf = self.tree.queues.get(job.queue or "")
        if leaf is not None:
            leaf.admit_until = None  # SharePolicy.admit_leaf's answer holds while the leaf's use only grows
        q: Queue | None = leaf
        while q is not None:
            q.sched.running = q.sched.running - size
            q = q.parent
        if task.is_am:
            if self.am_tasks.get(job.id, task) is task:  # (not another container marked as an AM)
                job.am_running = False
            if leaf is not None:
                leaf.am_usage = leaf.am_usage - size
        else:
            job.running[task.kind] -= 1

    def finish_task(self, task: Task, now: float, output_bytes: float | None) -> bool:
        """A running container completed; True when its app has no task left (its AM then
        ends with it: :meth:`job_removed`)."""
        if task.is_am:
            raise SchedulerStateError(f"task {task.id} is not running (an AM ends with its app)")
        ledger = self.ledger
        node_name = task.node
        node = ledger.release(task)
        self.give_back(task, node)
        ledger.complete(task, node, output_bytes)
        ledger.finished(task, node_name, node, now)
        job = task.job
        if job.all_done or (self.app_asks and self._app_done(job)):
            return True
        self.changed(job)
        return False

    def kill_task(self, task: Task, now: float, reason: str) -> None:
        """A running container is killed: it asks again (an AM's kill fails its app attempt:
        YARN kills the attempt's containers, and a new attempt starts with a new AM)."""
        ledger = self.ledger
        if task.id not in ledger.running or task.state != RUNNING:
            raise SchedulerStateError(f"task {task.id} is not running")
        if task.is_am and self.am_tasks.get(task.job.id) is not task:
            self._unmark_am(task, now)  # a container marked as an AM besides the app's own: it asks again as it was
        if task.is_am:
            for other in [t for t in ledger.running.values() if t.job is task.job and not t.is_am]:
                self.kill_task(other, now, reason="application attempt failed")
        node_name = task.node
        self.give_back(task, ledger.release(task))
        ledger.requeue(task)
        self.requeue(task)
        ledger.preempted(task, node_name, now, reason)

    def output_lost(self, task: Task, was_schedulable: bool) -> None:
        """A finished map is pending again (its output was lost): it asks again."""
        self.requeue(task)

    def job_changed(self, job: Job) -> None:
        """An admin action changed ``job`` (its priority): the next update reads it."""

    def next_empty(self) -> Job | None:
        """The next runnable app with no container at all (it ends at once), or None."""
        return self.empty_runnable.pop(0) if self.empty_runnable else None

    def drop_empty(self) -> list[str]:
        """Remove the dynamic queues left empty now; their names."""
        gone = self.tree.remove_empty_dynamic()
        if gone:
            self._steady_dirty = True
        return gone

    def requeue(self, task: Task) -> None:
        """A killed task asks again: its resources are pending once more."""
        job = task.job
        if not task.is_am:
            job._pending_resources[task.kind] = job._pending_resources[task.kind] + (task.resources or NONE)
            if self.app_asks and job.id in self.app_asks:
                self.app_asks[job.id].requeued(task)
        self._reposition(job)

    def changed(self, job: Job) -> None:
        """The app's state changed outside the engine (a task completed): re-place it in the orders."""
        if not job.is_finished:
            self._reposition(job)

    def job_removed(self, job: Job, now: float) -> None:
        """The app ended (every task done, or killed): its AM ends too (``task_finish``, and
        ``cs_task_finished`` as its start was told by ``cs_task_started``: a plugin counting
        use sees the AM's container leave) and the app leaves its queue; waiting apps may run."""
        apps = self.app_asks.pop(job.id, None)
        am = self.am_tasks.pop(job.id, None)
        ams = [am] if am is not None else []
        if apps is not None:
            ams += [t for t in apps.marked if t is not am]
        for am in ams:
            if am.state != RUNNING:
                continue
            ledger = self.ledger
            node_name = am.node
            node = ledger.release(am)
            self.give_back(am, node)
            ledger.complete(am, node)
            ledger.finished(am, node_name, node, now)
        self._remove_app(job, now)

    def node_leaving(self, node: Node, now: float) -> list[Task]:
        """A node leaves: its reservation is dropped and its containers are lost (they run again)."""
        self._unreserve(node)
        on_node = list(node.tasks.values())
        for task in on_node:
            if task.state == RUNNING and task.id in self.ledger.running:  # (an AM's end took its app's)
                self.owner.kill(task.id, now, reason="node lost")
        return on_node

    def running_work(self) -> bool:
        """The scheduler's ``work_running``: a container other than an AM runs (an AM runs
        until its app ends, so it is no sign of progress)."""
        return any(not task.is_am for task in self.ledger.running.values())

    def has_requests(self) -> bool:
        """Has some app a request to offer?"""
        return bool(self.tree.root.order)

    # ================================================================== reports
    def snapshot_report(self) -> dict[str, Any]:
        """The scheduler's ``snapshot()`` (without its time): :meth:`shares_report`."""
        return self.shares_report()

    def _reserved_by_queue(self) -> dict[str, Resources]:
        """What the reservations on nodes hold, by queue (each leaf and its ancestors)."""
        out: dict[str, Resources] = {}
        for node in self.owner.cluster.nodes.values():
            task = node.reserved
            leaf = self.tree.queues.get(task.job.queue or "") if task is not None else None
            if leaf is None or task.resources is None:
                continue
            for q in (leaf, *leaf.ancestors()):
                out[q.name] = out.get(q.name, NONE) + task.resources
        return out

    def shares_report(self) -> dict[str, Any]:
        """SPEC §7's ``shares()``: every queue's fair and steady share, usage and demand; every app's."""
        queues = {}
        policies = self.owner.plugins.share_policy
        reporting = {name for name in dict.fromkeys(q.policy for q in self.tree.walk())
                     if type(policies(name).policy).queue_report is not SharePolicy.queue_report}
        reserved = self._reserved_by_queue() if reporting else {}
        for q in self.tree.walk():
            s = q.sched
            queues[q.name] = {
                "fair": (s.fair_share or NONE).as_dict(),
                "steady": (s.steady_share or NONE).as_dict(),
                "usage": s.running.as_dict(),
                "demand": s.demand.as_dict(),
                "leaf": q.is_leaf,
                "runnable_apps": len(q.runnable_apps) if q.is_leaf else q.num_runnable,
                "waiting_apps": len(q.waiting_apps),
            }
            if q.policy in reporting:  # SharePolicy.queue_report: the policy's own keys
                queues[q.name].update(policies(q.policy).policy.queue_report(q, reserved.get(q.name, NONE)) or {})
        jobs = {}
        for job in self.owner.jobs.values():
            js = job.sched.get(RESOURCES)
            if js is None:
                continue
            jobs[job.id] = {
                "queue": job.queue,
                "runnable": job.runnable,
                "fair": js.fair_share.as_dict() if js.fair_share is not None else None,
                "usage": job.usage.as_dict(),
                "demand": js.demand.as_dict(),
            }
            leaf = self.tree.queues.get(job.queue or "")
            if leaf is not None and leaf.policy in reporting:
                jobs[job.id].update(policies(leaf.policy).policy.job_report(job) or {})
        out: dict[str, Any] = {"queues": queues, "jobs": jobs}
        root_policy = policies(self.tree.root.policy).policy
        if type(root_policy).report is not SharePolicy.report:  # SharePolicy.report: the policy's own keys
            out.update(root_policy.report() or {})
        return out
