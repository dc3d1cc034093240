"""Resource mode: the YARN Fair Scheduler's cycle on the queue tree.

The :class:`~corescheduler.core.scheduler.Scheduler` runs this engine when
``[scheduler] mode = "resources"``: the same public calls (submit, heartbeat,
finish, kill, update), the same plugins and hooks, the same events; tasks ask
for resource vectors instead of one slot of their kind, and queues nest.
Slot mode keeps its own tuned loop (``Scheduler.heartbeat``): a heartbeat
there walks a flat list of pools in one pass per kind, the path the
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
  reservation is still valid, nothing else; otherwise containers are assigned
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
  (``FSLeafQueue.canRunAppAM``, ``computeMaxAMResource``).
* **Completion** (``removeApplicationAttempt``): when an app ends, waiting
  apps become runnable in start-time order across the queues the end freed
  (``MaxRunningAppsEnforcer.updateRunnabilityOnAppRemoval``), and dynamic
  queues left empty are removed (``removeEmptyDynamicQueues``).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping
from itertools import chain
from operator import attrgetter
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from corescheduler import hook_answers as answers
from corescheduler.core.model import (
    MAP,
    PENDING,
    PRIORITY_RANK,
    PRIORITY_WEIGHT,
    REDUCE,
    RESOURCES,
    RUNNING,
    TASK,
    Assignment,
    Job,
    JobSpec,
    Node,
    Rejection,
    Schedulable,
    Task,
)
from corescheduler.core.order import UnorderedKey, has_nan
from corescheduler.core.queue_tree import Queue, QueueTree, valid_queue_name
from corescheduler.core.queues import full_queue_name
from corescheduler.core.resources import UNBOUNDED, Resources, normalize
from corescheduler.errors import SchedulerStateError

if TYPE_CHECKING:
    from corescheduler.core.engine import EngineOwner

__all__ = ["AM", "ResourceScheduler"]

#: The kind of an application master's container.
AM = "am"
#: seconds after preempting for an app before its starvation is acted on again
#: (YARN's ``yarn.scheduler.fair.waitTimeBeforeNextStarvationCheck``, 10 s)
STARVATION_RECHECK_WAIT = 10.0


def _user(job: Job) -> str:
    """The app's user for the running-app limits (YARN always has one; here a job without
    a user counts as ``default``, SLS's default user)."""
    return job.user if job.user is not None else "default"
_NONE = Resources()
#: what a share policy may answer for one schedulable
_NONE_TYPE = type(None)
_SHARE_TYPES = {Resources, _NONE_TYPE}
_MEMORY = attrgetter("memory")
_VCORES = attrgetter("vcores")
_EXTRAS = attrgetter("extras")


class _Reserved:
    """What an app assignment returns when it reserved the node (YARN ``CONTAINER_RESERVED``)."""


RESERVED = _Reserved()


class ResourceScheduler:
    """The resource-mode engine of one :class:`~corescheduler.core.scheduler.Scheduler`
    (:class:`~corescheduler.core.engine.Engine`; its owner is an
    :class:`~corescheduler.core.engine.EngineOwner`).  Task attempts launch and end through
    the owner's :class:`~corescheduler.core.task_ledger.TaskLedger`; this engine accounts for
    their resources and keeps the queues' orders."""

    def __init__(self, owner: EngineOwner) -> None:
        self.owner = owner
        self.ledger = owner.ledger
        self.settings = owner.settings
        self.cluster_total = self._cluster_total()
        self.tree = QueueTree(owner.allocations.queue_config(), self.cluster_total,
                              fallback_policy=owner.settings.share_policy,
                              known=owner._known_pools(owner.allocations), child_allowed=self._child_allowed)
        self.user_runnable: dict[Any, int] = {}
        self.user_waiting: dict[Any, list[Job]] = {}
        #: app id -> node name -> rack, of the nodes the app holds reservations on
        self.reservations: dict[str, dict[str, str]] = {}
        self.am_tasks: dict[str, Task] = {}
        self._steady_dirty = True
        self._levels_cache: list[list[Queue]] = []
        self._share_plan: list[tuple[dict[str, Any], dict[str, list[Queue]]]] = []
        self._levels_version = -1
        self._threshold = self.settings.reservation_threshold
        self._key_fns: dict[str, Any] = {}
        self._admit_fns: dict[str, Any] = {}
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

    def reconfigure(self) -> None:
        """New allocations are in force."""
        self.tree.reconfigure(self.owner.allocations.queue_config(), self.cluster_total,
                              known=self.owner._known_pools(self.owner.allocations))
        self._steady_dirty = True
        self._key_fns.clear()
        self._admit_fns.clear()
        self._rebuild_orders()  # policies may have changed: no order may mix two policies' keys
        self._release_waiting(list(self.tree.walk()), math.inf, now=self.owner.now)  # updateRunnabilityOnReload

    def live_queues(self) -> Mapping[str, str]:
        """Every queue now, full name → ``"leaf"`` or ``"parent"`` (for the PoolResolvers; a read-only view)."""
        return MappingProxyType(self.tree.kinds)

    # ================================================================== submission
    @staticmethod
    def spec_problem(spec: JobSpec) -> str | None:
        """What the engine cannot run in ``spec``, or None: a task asking a negative amount."""
        if any(v < 0 for ts in (*spec.maps, *spec.reduces, *spec.tasks) if ts.resources is not None
               for _, v in ts.resources.items()):
            return "a task asks for a negative amount of a resource"
        return None

    def place_job(self, job: Job, now: float) -> None:
        """Place ``job`` (its ``pool`` is the PoolResolver's answer) and admit it."""
        owner = self.owner
        name = full_queue_name(job.pool)
        problem = valid_queue_name(name)
        if problem is not None:
            raise owner.rejected(f"{problem}")
        leaf = self.tree.leaf(name, create=True)
        if leaf is None:
            raise owner.rejected(f"{name} is not a leaf queue")
        config = self.tree.config
        if not config.can_submit(leaf.name, job.user, job.spec.groups):
            self.tree.remove_empty_dynamic()
            raise owner.rejected(f"User {job.user} does not have permission to submit {job.id} to queue {leaf.name}",
                                 access=True)
        am = job.spec.am_resources
        problem = self._size_problem(job, leaf)
        if problem is not None:
            self.tree.remove_empty_dynamic()
            raise owner.rejected(problem)
        job._pool = leaf.name
        job.queue = leaf.name
        maximum = leaf.sched.max_share
        spec = job.spec
        sizes = [("AM", am)] if am is not None else []
        sizes += [("task", ts.resources or spec.task_resources) for ts in (*spec.maps, *spec.reduces, *spec.tasks)]
        for what, size in sizes:
            # FairScheduler.addApplication for the AM; here for every request (beyond YARN, where
            # a task asking for a type the queue has none of waits forever)
            zero = [n for n, v in size.items() if v > 0 and maximum.get(n) == 0] if size is not None else []
            if zero:
                self.tree.remove_empty_dynamic()
                raise owner.rejected(
                    f"Cannot submit application {job.id} to queue {leaf.name} because it has zero amount of "
                    f"resource for a requested resource! Invalid requested {what} resources: {', '.join(zero)}, "
                    f"maximum queue resources: {maximum}"
                )
        s = Schedulable(
            name=job.id, kind=RESOURCES, owner=job, weight=PRIORITY_WEIGHT[job.priority], min_share=_NONE,
            priority=PRIORITY_RANK[job.priority],
            max_share=Resources.unbounded(self.cluster_total.names), demand=_NONE, running=_NONE,
            fair_share=_NONE, start_time=job.submit_time,
        )
        s.cluster = self.cluster_total
        s.steady_share = _NONE
        job.sched[RESOURCES] = s
        job._initialize(owner._rack_of)
        default = self.settings.task_resources
        sized: dict[Resources, Resources] = {}  # ask -> normalized (a job has few distinct sizes)
        for kind, tasks in job.tasks.items():
            total = _NONE
            for task in tasks:
                ask = task.resources if task.resources is not None else default  # neither the task nor the job
                normal = sized.get(ask)
                if normal is None:
                    normal = sized[ask] = self._normalize(ask)
                task.resources = normal
                total = total + normal
            job._pending_resources[kind] = total
        if am is not None:
            am_task = Task(f"{job.id}_am_000000", job, AM, 0)
            am_task.resources = self._normalize(am)
            am_task.is_am = True
            self.am_tasks[job.id] = am_task

    @staticmethod
    def move_job(job: Job, pool_name: str) -> bool:
        """Moving an app between queues (YARN ``FairScheduler.moveApplication``) is not
        supported yet: SchedulerStateError."""
        raise SchedulerStateError("moving an app between queues is not supported in resource mode yet")

    def admit_job(self, job: Job, now: float) -> None:
        """Make the app :meth:`place_job` placed runnable, or let it wait for the running-app
        limits (``MaxRunningAppsEnforcer``).  Separate from :meth:`place_job` so that the
        caller writes the app's ``job_submit`` before the ``job_start`` this may write
        (SPEC §5: a job's ``job_submit`` comes before anything else of it)."""
        leaf = self.tree.queues.get(job.queue or "")
        if leaf is None:  # pragma: no cover - submit placed it in this leaf
            raise SchedulerStateError(f"job {job.id} has no leaf queue {job.queue!r}")
        if self._can_be_runnable(leaf, job):
            self._make_runnable(leaf, job, now)
        else:
            leaf.waiting_apps.append(job)
            self.user_waiting.setdefault(_user(job), []).append(job)
        self._steady_dirty = True

    def _normalize(self, ask: Resources) -> Resources:
        """``SchedulerUtils.normalizeRequest``: the ask rounded up to the increment, between the
        minimum and the maximum allocation (``[cluster]``; SPEC §6b)."""
        c = self.owner.config.cluster
        return normalize(ask, c.minimum_allocation, c.maximum_allocation, c.increment_allocation)

    def _size_problem(self, job: Job, leaf: Queue) -> str | None:
        """Why a request of the app is refused, or None: a negative amount, or more than the queue's
        ``maxContainerAllocation`` (YARN ``SchedulerUtils.normalizeAndValidateRequest`` against
        ``FairScheduler.getMaximumResourceCapability(queue)``)."""
        spec = job.spec
        sizes = {ts.resources for ts in (*spec.maps, *spec.reduces, *spec.tasks)}
        if None in sizes:
            sizes.discard(None)
            sizes.add(spec.task_resources or self.settings.task_resources)
        labelled = [("AM", spec.am_resources)] if spec.am_resources is not None else []
        labelled += [("task", s) for s in sizes]
        limit = self.tree.config.max_container_allocation(leaf.name)
        maximum = self.owner.config.cluster.maximum_allocation
        for what, size in labelled:  # (a request larger than every node waits for one, as in YARN)
            if any(v < 0 for _, v in size.items()):
                return f"job {job.id}: its {what} container {size} asks for a negative amount"
            over = [n for n, v in size.items() if n in maximum.names and v > maximum.get(n)]
            if over:  # SchedulerUtils.validateResourceRequest: above the maximum allocation
                return (f"Invalid resource request! Cannot allocate containers as requested resource is greater "
                        f"than maximum allowed allocation. Requested resource type=[{over[0]}], Requested "
                        f"resource={size}, maximum allowed allocation={maximum} (job {job.id}'s {what} container; "
                        "[cluster] maximum_allocation)")
            if limit is not None and not size.fits_in(limit):
                return (f"Cannot submit {job.id} to queue {leaf.name}: its {what} container {size} is larger "
                        f"than the queue's maxContainerAllocation {limit}")
        return None

    @staticmethod
    def _size(task: Task) -> Resources:
        if task.resources is None:
            raise SchedulerStateError(
                f"task {task.id} has no resources: in resource mode every task needs a size "
                "(its own \"resources\" or the job's \"task_resources\")"
            )
        return task.resources

    def _can_be_runnable(self, leaf: Queue, job: Job) -> bool:
        """``MaxRunningAppsEnforcer.canAppBeRunnable``: the user and every queue up to root under their limits."""
        config = self.tree.config
        user = _user(job)
        if self.user_runnable.get(user, 0) >= config.user_max_running_apps(user):
            return False
        q: Queue | None = leaf
        while q is not None:
            if q.num_runnable >= q.max_running_apps:
                return False
            q = q.parent
        return True

    def _make_runnable(self, leaf: Queue, job: Job, now: float) -> None:
        """``trackRunnableApp`` and ``FSLeafQueue.addApp(app, true)``."""
        leaf.runnable_apps.append(job)
        leaf.app_scheds.append(job.sched[RESOURCES])
        q: Queue | None = leaf
        while q is not None:
            q.num_runnable += 1
            q = q.parent
        user = _user(job)
        self.user_runnable[user] = self.user_runnable.get(user, 0) + 1
        job.runnable = True
        if job.state == "waiting":
            job.state = "running"
            job.start_time = now
            job.initialized = True
            self.ledger.emit({"time": now, "type": "job_start", "job": job.id, "pool": job.pool})
            spec = job.spec
            if not spec.maps and not spec.reduces and not spec.tasks:
                self.empty_runnable.append(job)  # nothing to run (not even its AM): it ends at once
        self._reposition(job)

    def _release_waiting(self, queues: Iterable[Queue], limit: float, user: Any = None, *, now: float) -> int:
        """Make waiting apps runnable, oldest first across ``queues``' waiting lists (and the
        user's), up to ``limit`` of them (``MaxRunningAppsEnforcer.updateAppsRunnability``)."""
        lists: list[list[Job]] = [q.waiting_apps for q in queues if q.is_leaf and q.waiting_apps]
        if user is not None and self.user_waiting.get(user):
            lists.append(self.user_waiting[user])
        if not lists:
            return 0
        limit = min(limit, len(lists)) if math.isfinite(limit) else limit
        heap = [(lst[0].submit_time, i, 0) for i, lst in enumerate(lists) if lst]
        heapq.heapify(heap)
        made: list[Job] = []
        previous = None
        while heap and len(made) < limit:
            _, i, pos = heapq.heappop(heap)
            lst = lists[i]
            job = lst[pos]
            if pos + 1 < len(lst):
                heapq.heappush(heap, (lst[pos + 1].submit_time, i, pos + 1))
            if job is previous or job.runnable or job.is_finished:
                continue
            previous = job
            leaf = self.tree.queues.get(job.queue or "")
            if leaf is None or not self._can_be_runnable(leaf, job):
                continue
            self._make_runnable(leaf, job, now)
            made.append(job)
        for job in made:
            leaf = self.tree.queues.get(job.queue or "")
            if leaf is not None and job in leaf.waiting_apps:
                leaf.waiting_apps.remove(job)
            waiting = self.user_waiting.get(_user(job))
            if waiting is not None and job in waiting:
                waiting.remove(job)
        return len(made)

    def _remove_app(self, job: Job, now: float) -> None:
        """``FairScheduler.removeApplicationAttempt``: out of its queue; waiting apps may run."""
        leaf = self.tree.queues.get(job.queue or "")
        if leaf is None:
            return
        self._unreserve_all(job)
        if job in leaf.waiting_apps:
            leaf.waiting_apps.remove(job)
            waiting = self.user_waiting.get(_user(job))
            if waiting is not None and job in waiting:
                waiting.remove(job)
            return
        if job not in leaf.runnable_apps:
            return
        at = leaf.runnable_apps.index(job)
        del leaf.runnable_apps[at]
        del leaf.app_scheds[at]
        self._reposition(job)  # out of the orders
        q: Queue | None = leaf
        while q is not None:
            q.num_runnable -= 1
            q = q.parent
        user = _user(job)
        count = self.user_runnable.get(user, 0) - 1
        if count > 0:
            self.user_runnable[user] = count
        else:
            self.user_runnable.pop(user, None)
        # updateRunnabilityOnAppRemoval: the highest queue that was at its limit frees its subtree
        highest = None
        q = leaf
        while q is not None:
            if q.num_runnable == q.max_running_apps - 1:
                highest = q
            q = q.parent
        queues = list(self._gather(highest)) if highest is not None else []
        config = self.tree.config
        user_freed = self.user_runnable.get(user, 0) == config.user_max_running_apps(user) - 1
        lists = len([q for q in queues if q.is_leaf and q.waiting_apps]) + (
            1 if user_freed and self.user_waiting.get(user) else 0
        )
        if lists:
            self._release_waiting(queues, lists, user if user_freed else None, now=now)

    def _gather(self, top: Queue) -> Iterable[Queue]:
        """``gatherPossiblyRunnableAppLists``: queues under ``top`` (itself included) below their limit."""
        if top.num_runnable >= top.max_running_apps:
            return
        yield top
        for child in top.children.values():
            yield from self._gather(child)

    # ================================================================== update
    def update(self, now: float) -> None:
        """Demands, then fair shares top-down (and steady shares if needed)."""
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
        self._rebuild_orders()
        if self.settings.preemption:
            self._update_starvation(now)

    # ------------------------------------------------------------------ orders
    def _rebuild_orders(self) -> None:
        """Every queue's assignment order from scratch (after demands and shares changed),
        children before their parent.  A key equal to the one before is kept (the same
        object: fewer new objects for the garbage collector to age)."""
        has_pending = self._has_pending
        for level in reversed(self._levels()):
            for q in level:
                key = self._key_fn(q)
                q.order.clear()
                items = []
                if q.is_leaf:
                    for job in q.runnable_apps:
                        js = job.sched[RESOURCES]
                        js.running = job.usage
                        js._ordered = False
                        if has_pending(job):
                            k = key(js)
                            if k is None or has_nan(k):
                                self._bad_key(q.policy, None, k)
                            if k != js._key:
                                js._key = k
                            js._ordered = True
                            items.append(js)
                else:
                    for cs in q.child_scheds:
                        cs._ordered = False
                        if cs.owner.order:
                            k = key(cs)
                            if k is None or has_nan(k):
                                self._bad_key(q.policy, None, k)
                            if k != cs._key:
                                cs._key = k
                            cs._ordered = True
                            items.append(cs)
                if items:
                    try:
                        q.order.update(items)
                    except answers.INCOMPARABLE as exc:
                        q.order.clear()
                        for item in items:
                            item._ordered = False
                        self._bad_key(q.policy, exc)

    def _reposition(self, job: Job, leaf: Queue | None = None) -> None:
        """After the app's usage or pending asks changed: its place in its leaf's order,
        and its leaf's and every ancestor's in theirs (only these keys changed)."""
        if leaf is None:
            leaf = self.tree.queues.get(job.queue or "")
            if leaf is None:
                return
        js = job.sched.get(RESOURCES)
        if js is None:
            return
        key_fns = self._key_fns
        if js._ordered:
            leaf.order.remove(js)
            js._ordered = False
        js.running = job.usage
        if job.runnable and not job.is_finished and self._has_pending(job) and job in leaf.runnable_apps:
            key = js._key = (key_fns.get(leaf.policy) or self._key_fn(leaf))(js)
            if key is None:
                self._bad_key(leaf.policy, None, key)
            try:
                leaf.order.add(js)
            except answers.INCOMPARABLE as exc:
                self._bad_key(leaf.policy, exc)
            js._ordered = True
        q = leaf
        parent = q.parent
        while parent is not None:
            s = q.sched
            if s._ordered:
                parent.order.remove(s)
                s._ordered = False
            if q.order:
                key = s._key = (key_fns.get(parent.policy) or self._key_fn(parent))(s)
                if key is None:
                    self._bad_key(parent.policy, None, key)
                try:
                    parent.order.add(s)
                except answers.INCOMPARABLE as exc:
                    self._bad_key(parent.policy, exc)
                s._ordered = True
            q = parent
            parent = q.parent

    def _child_allowed(self, parent_policy: str, child_policy: str, child_is_leaf: bool) -> bool:
        """YARN ``isChildPolicyAllowed`` of the parent's policy, and a policy only for leaves
        (``getApplicableDepth``) only on a leaf."""
        plugins = self.owner.plugins
        if not child_is_leaf and plugins.share_policy(child_policy).policy.leaf_only:
            return False
        return plugins.share_policy(parent_policy).policy.allows_child(child_policy)  # type: ignore[no-any-return]

    def _admit_fn(self, q: Queue) -> Any:
        """The leaf's policy's ``cs_admit_job`` (None if it has none)."""
        if q.policy not in self._admit_fns:
            self._admit_fns[q.policy] = self.owner.plugins.share_policy(q.policy).admit_job
        return self._admit_fns[q.policy]

    def _bad_key(self, policy: str, exc: BaseException | None, key: Any = None) -> None:
        """Raise the error for policy ``policy``'s order key: None, a NaN (``key``), or keys
        that do not compare."""
        who = self.owner.plugins.who("SharePolicy", policy)
        if isinstance(exc, UnorderedKey) and has_nan(exc.key):  # a NaN does not order: named as one
            key = exc.key
            exc = None
        if exc is None:
            raise answers.no_key(who) if key is None else answers.nan_key(who, key)
        raise answers.incomparable(who, exc) from exc

    def _key_fn(self, q: Queue) -> Any:
        """The queue's policy's order key (``cs_order_key``), remembered per policy name."""
        fn = self._key_fns.get(q.policy)
        if fn is None:
            fn = self._key_fns[q.policy] = self.owner.plugins.share_policy(q.policy).order_key
        return fn

    def _app_demand(self, job: Job) -> Resources:
        """``FSAppAttempt.updateDemand``: usage plus pending asks (the AM's until it runs)."""
        demand = job.usage
        am = self.am_tasks.get(job.id)
        if am is not None and not job.am_running:
            return demand + am.resources  # type: ignore[operator]
        pending = job._pending_resources
        for kind, amount in pending.items():
            if kind == REDUCE and not job.reduces_schedulable:
                continue
            demand = demand + amount
        return demand

    def _demand(self, now: float) -> None:
        """``updateDemand`` bottom-up, a tree level at a time: each app's demand and weight
        (WeightAdjusters), each queue's demand the sum of its apps' or children's, capped
        at its max share.  Sums run on the amounts (the general arithmetic only for values
        with extra resource types), and a value equal to the one before keeps its object:
        a quiet update leaves nothing new for the garbage collector to age."""
        adjusters = self.owner.plugins.weight_adjusters
        am_tasks = self.am_tasks
        for level in reversed(self._levels()):
            for q in level:
                s = q.sched
                memory = vcores = 0
                extras: list[Resources] = []  # values with extra resource types, summed apart
                if q.is_leaf:
                    for job in (*q.runnable_apps, *q.waiting_apps) if q.waiting_apps else q.runnable_apps:
                        js = job.sched[RESOURCES]
                        usage = job.usage
                        before = js.demand
                        plain = not usage.extras
                        m, v = usage.memory, usage.vcores
                        am = am_tasks.get(job.id) if am_tasks else None
                        if am is not None and not job.am_running:
                            asks: Iterable[Resources] = (am.resources,)  # type: ignore[assignment]
                        elif job.reduces_schedulable:
                            asks = job._pending_resources.values()
                        else:
                            asks = [a for k, a in job._pending_resources.items() if k != REDUCE]
                        if plain:
                            for ask in asks:  # FSAppAttempt.updateDemand: usage plus pending asks
                                if ask.extras:
                                    plain = False
                                    break
                                m += ask.memory
                                v += ask.vcores
                        if plain:
                            if before is None or before.memory != m or before.vcores != v or before.extras:
                                js.demand = Resources._make(m, v)
                            memory += m
                            vcores += v
                        else:
                            demand = self._app_demand(job)
                            if demand != before:
                                js.demand = demand
                            extras.append(demand)
                        js.running = usage
                        js.active = job.runnable
                        weight = PRIORITY_WEIGHT[job.priority]
                        if adjusters:
                            for adjust in adjusters:  # chained: each answer is checked (hook_answers)
                                result = adjust(job, RESOURCES, weight, now)
                                if result is not None:
                                    if type(result) is float and 0.0 <= result <= answers.MAX_FLOAT:
                                        weight = result
                                    else:
                                        weight = self.owner._weight(adjust, result)
                        js.weight = weight
                else:
                    for c in q.child_scheds:
                        d = c.demand
                        if d.extras:
                            extras.append(d)
                        else:
                            memory += d.memory
                            vcores += d.vcores
                cap = s.max_share
                before = s.demand
                if not extras and not cap.extras:
                    if memory > cap.memory:
                        memory = cap.memory
                    if vcores > cap.vcores:
                        vcores = cap.vcores
                    if before is None or before.memory != memory or before.vcores != vcores or before.extras:
                        s.demand = Resources._make(memory, vcores)
                else:
                    total = (Resources._make(memory, vcores) + Resources.total(extras)).componentwise_min(cap)
                    if total != before:
                        s.demand = total
                s.active = q.num_runnable > 0

    def _levels(self) -> list[list[Queue]]:
        """The tree's queues a depth at a time, root first (kept while the tree stands)."""
        if self._levels_version != self.tree.version:
            levels = [[self.tree.root]]
            while True:
                below = [c for q in levels[-1] for c in q.children.values()]
                if not below:
                    break
                levels.append(below)
            plan = []
            for level in levels:  # a level's parents and leaves by policy
                parents: dict[str, list[tuple[Schedulable, list[Schedulable]]]] = {}
                leaves: dict[str, list[Queue]] = {}
                for q in level:
                    if q.is_leaf:
                        leaves.setdefault(q.policy, []).append(q)
                    elif q.children:
                        parents.setdefault(q.policy, []).append((q.sched, q.child_scheds))
                plan.append((parents, leaves))
            self._levels_cache = levels
            self._share_plan = plan
            self._levels_version = self.tree.version
        return self._levels_cache

    def _shares(self, steady: bool = False) -> None:
        """``recomputeShares`` (``steady``: ``recomputeSteadyShares``), top-down a level at a
        time: each queue's policy divides its share among its children (a leaf's: its
        runnable apps; steady shares stop at the leaves).  The parents of one level that
        share a policy go to its ``cs_compute_shares_many`` together when it has one, so
        ``fair`` and ``drf`` run YARN's search for a whole level in numpy."""
        plugins = self.owner.plugins
        self._levels()
        for parents, leaves in self._share_plan:
            batches: dict[str, list[tuple[list[Schedulable], Resources]]] = {}
            if steady:
                for name, entries in parents.items():
                    batches[name] = [(scheds, ps.steady_share or _NONE) for ps, scheds in entries]
            else:
                for name, entries in parents.items():
                    batches[name] = [(scheds, ps.fair_share or _NONE) for ps, scheds in entries]
                for name, queues in leaves.items():
                    for q in queues:
                        if q.waiting_apps:
                            for job in q.waiting_apps:
                                job.sched[RESOURCES].fair_share = _NONE
                    groups = [(q.app_scheds, q.sched.fair_share or _NONE) for q in queues if q.app_scheds]
                    if groups:
                        batches.setdefault(name, []).extend(groups)
            for name, groups in batches.items():
                policy = plugins.share_policy(name)
                results = None
                hook = "compute_shares"
                if policy.compute_shares_many is not None and len(groups) > 1:
                    results = policy.compute_shares_many(groups, steady)
                    if results is not None:
                        hook = "compute_shares_many"
                        results = answers.shares_many(plugins.who("SharePolicy", name), results, len(groups))
                if results is None:
                    results = [policy.compute_shares(sc, total, steady) for sc, total in groups]
                flat_scheds = []
                for (scheds, _), shares in zip(groups, results):
                    if type(shares) is not list or len(shares) != len(scheds):
                        answers.resource_shares(plugins.who("SharePolicy", name), hook, shares, len(scheds))
                    flat_scheds += scheds
                flat = list(chain.from_iterable(results))
                types = set(map(type, flat))
                given = [s for s in flat if s is not None] if _NONE_TYPE in types else flat
                if not types <= _SHARE_TYPES or (given and (
                    min(map(_MEMORY, given)) < 0 or min(map(_VCORES, given)) < 0 or any(map(_EXTRAS, given))
                    or max(map(_MEMORY, given)) > UNBOUNDED or max(map(_VCORES, given)) > UNBOUNDED
                )):
                    for (scheds, _), shares in zip(groups, results):  # the error, or extras that are fine
                        answers.resource_shares(plugins.who("SharePolicy", name), hook, shares, len(scheds))
                if steady:
                    for s, share in zip(flat_scheds, flat):
                        s.steady_share = share if share is not None else _NONE
                else:
                    for s, share in zip(flat_scheds, flat):
                        s.fair_share = share

    def _steady(self) -> None:
        """``recomputeSteadyShares``: every queue counts, active or not."""
        self.tree.root.sched.steady_share = self.cluster_total
        self._shares(steady=True)

    # ================================================================== heartbeat
    def heartbeat(self, node: Node, now: float) -> list[Assignment]:
        """``FairScheduler.attemptScheduling`` on one node."""
        out: list[Assignment] = []
        wanted = node.preempted_for
        if wanted:  # FairScheduler.assignPreemptedContainers: what was freed here is for those apps
            node.preempted_for = None
            for job, amount in wanted:
                leaf = self.tree.queues.get(job.queue or "")
                if leaf is None or not job.runnable or job.is_finished:
                    continue
                while amount.any_positive():
                    result = self._assign_app(leaf, job, node, now, out)
                    if result is None or result is RESERVED:
                        break
                    amount = amount - result
        reserved = node.reserved
        if reserved is not None and self._serve_reservation(node, reserved, now, out):
            return out
        settings = self.settings
        if not settings.assign_multiple:  # YARN's default: one container a heartbeat
            self._assign_queue(self.tree.root, node, now, out)
            return out
        start_free = node.available.multiply_and_round_down(0.5)  # shouldContinueAssigning
        assigned = _NONE
        count = 0
        while node.reserved is None:
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
        if node.reserved is not None or not q.sched.running.fits_in(q.sched.max_share):
            return None
        if q.is_leaf:
            admit = self._admit_fn(q)
            if admit is None:
                for js in q.order:
                    result = self._assign_app(q, js.owner, node, now, out)
                    if result is not None:
                        return result
                return None
            deferred: list[Job] = []  # cs_admit_job: False = after the others (a user over its limit)
            for js in list(q.order):
                job = js.owner
                verdict = admit(job, RESOURCES, now)
                if verdict is not None and verdict is not True:
                    if verdict is not False and not isinstance(verdict, Rejection):
                        verdict = answers.admit(self.owner.plugins.who("SharePolicy", q.policy), verdict)
                    if verdict is False:
                        deferred.append(job)
                        continue
                    if verdict is not True:  # a Rejection
                        continue
                result = self._assign_app(q, job, node, now, out)
                if result is not None:
                    return result
            for job in deferred:
                result = self._assign_app(q, job, node, now, out)
                if result is not None:
                    return result
            return None
        for s in q.order:
            result = self._assign_queue(s.owner, node, now, out)
            if result is not None:
                return result
        return None

    def _has_pending(self, job: Job) -> bool:
        if job.id in self.am_tasks and not job.am_running:
            return True
        pending = job.pending
        return bool(pending[MAP] or (pending[REDUCE] and job.reduces_schedulable) or pending.get(TASK, 0))

    def _choose(self, job: Job, node: Node, now: float, am: Task | bool | None = False) -> Task | None:
        """The request to serve: the AM first; then the TaskSelector's map, reduce or task
        (``am``: the app's AM task or None, when the caller has looked it up)."""
        if am is False:
            am = self.am_tasks.get(job.id)
        if am is not None and not job.am_running:
            return am if am.state == PENDING else None
        select = self.owner.plugins.select_task
        for kind in (MAP, REDUCE, TASK):
            if not job.pending.get(kind):
                continue
            if kind == REDUCE and not job.reduces_schedulable:
                continue
            task = select(job, node, kind, now)
            if task is not None:
                if type(task) is not Task or task.job is not job or task.kind != kind or task.state != PENDING:
                    return self.owner._check_selected(task, job, kind)
                return task
        return None

    def _fits_queues(self, q: Queue, size: Resources) -> bool:
        """``FSQueue.fitsInMaxShare``: this queue and every ancestor stay within their max share."""
        current: Queue | None = q
        while current is not None:
            s = current.sched
            if not s.running.fits_with(size, s.max_share):
                return False
            current = current.parent
        return True

    def _can_run_am(self, leaf: Queue, am: Resources) -> bool:
        """``FSLeafQueue.canRunAppAM`` / ``computeMaxAMResource``."""
        share = leaf.max_am_share
        if abs(share - (-1.0)) < 0.0001:
            return True
        if share < 0:
            return True
        fair = leaf.sched.fair_share if leaf.sched.fair_share is not None else _NONE
        available = self.cluster_total - self._allocated()
        maximum = leaf.sched.max_share
        values = {}
        for name in self.cluster_total.names:
            value = fair.get(name)
            if value == 0:
                value = min(available.get(name), maximum.get(name))
            values[name] = math.ceil(value * share)  # Resources.multiplyAndRoundUp
        limit = Resources.of(values)
        return (leaf.am_usage + am).fits_in(limit)

    def _allocated(self) -> Resources:
        return self.tree.root.sched.running

    def _assign_app(self, leaf: Queue, job: Job, node: Node, now: float, out: list[Assignment]) -> Any:
        """``FSAppAttempt.assignContainer``: allocate the chosen request, or reserve the node."""
        am = self.am_tasks.get(job.id)
        if am is not None and not job.am_running and not self._can_run_am(leaf, am.resources):  # type: ignore[arg-type]
            return None  # isOverAMShareLimit
        task = self._choose(job, node, now, am)
        if task is None:
            return None
        size = task.resources
        if size is None:
            size = self._size(task)  # the error
        if node.capacity is None or not size.fits_in(node.capacity) or not self._fits_queues(leaf, size):
            return None  # hasContainerForNode: never on this node, or over a max share
        fits = self.owner.plugins.fits
        answer = fits(node, task, size) if fits is not None else None
        if answer is None:
            answer = node.used.fits_with(size, node.capacity)
        elif answer is not True and answer is not False:
            answer = answers.flag(self.owner._who("LoadManager"), "cs_fits", answer)
        if answer:
            self._allocate(leaf, job, task, node, size, now, out)
            return size
        if self._reservable(job, leaf, size) and self._reserve(job, task, node):
            self.ledger.emit({"time": now, "type": "node_reserved", "job": job.id, "task": task.id,
                              "node": node.name, "resources": size.as_dict()})
            return RESERVED
        return None

    def _allocate(
        self, leaf: Queue, job: Job, task: Task, node: Node, size: Resources, now: float, out: list[Assignment]
    ) -> None:
        ledger = self.ledger
        kind = task.kind
        locality = task.locality(node) if kind == MAP else None
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

    # ------------------------------------------------------------------ reservations
    def _reservable(self, job: Job, leaf: Queue, size: Resources) -> bool:
        """``FSAppAttempt.isReservable``: the app is below its fair share (by its queue's
        policy: memory for fair, the dominant share for drf) and the request is at least the
        reservation threshold."""
        js = job.sched[RESOURCES]
        fair = js.fair_share if js.fair_share is not None else _NONE
        calc = self.owner.plugins.share_policy(leaf.policy).calc  # the policy's getResourceCalculator
        cluster = self.cluster_total
        return calc.less_than(cluster, job.usage, fair) and not calc.less_than(cluster, size, self._threshold)

    def _reserve(self, job: Job, task: Task, node: Node) -> bool:
        """``FSAppAttempt.reserve``: one app per node; at most ``reservable_nodes`` of the
        cluster (off-rack) or of the rack (rack-local) per app."""
        if node.reserved is not None and node.reserved.job is not job:
            return False
        if node.reserved is None:
            held = self.reservations.get(job.id, {})
            locality = task.locality(node) if task.kind == MAP and task.locations else "off"
            if locality != "node":
                nodes = self.owner.cluster.nodes.values()
                if locality == "rack":
                    existing = sum(1 for r in held.values() if r == node.rack)
                    total = sum(1 for n in nodes if n.rack == node.rack)
                else:
                    existing = len(held)
                    total = len(self.owner.cluster.nodes)
                allowed = math.ceil(total * self.settings.reservable_nodes)
                if existing >= allowed:
                    return False
            self.reservations.setdefault(job.id, {})[node.name] = node.rack
        node.reserved = task
        return True

    def _unreserve(self, node: Node) -> None:
        task = node.reserved
        if task is None:
            return
        node.reserved = None
        held = self.reservations.get(task.job.id)
        if held is not None:
            held.pop(node.name, None)
            if not held:
                del self.reservations[task.job.id]

    def _unreserve_all(self, job: Job) -> None:
        for name in list(self.reservations.get(job.id, {})):
            node = self.owner.cluster.nodes.get(name)
            if node is not None and node.reserved is not None and node.reserved.job is job:
                self._unreserve(node)
        self.reservations.pop(job.id, None)

    def _serve_reservation(self, node: Node, task: Task, now: float, out: list[Assignment]) -> bool:
        """``assignReservedContainer``: True while the reservation is valid (the node gets nothing else)."""
        job = task.job
        leaf = self.tree.queues.get(job.queue or "")
        size = task.resources
        valid = (
            leaf is not None
            and job.runnable
            and not job.is_finished
            and size is not None
            and node.capacity is not None
            and size.fits_in(node.capacity)
            and self._fits_queues(leaf, size)
            and self._has_pending(job)
        )
        if valid and task.is_am:
            valid = not job.am_running and self._can_run_am(leaf, size)  # type: ignore[arg-type]
        elif valid:
            valid = task.state == PENDING or self._choose(job, node, now) is not None
        if not valid:
            self._unreserve(node)
            return False
        assert leaf is not None and size is not None
        if size.fits_in(node.available):
            if task.state != PENDING:  # the reserved task ran elsewhere: serve another of the app's
                task = self._choose(job, node, now) or task
                size = self._size(task)
            if task.state == PENDING and size.fits_in(node.available) and self._fits_queues(leaf, size):
                self._unreserve(node)
                self._allocate(leaf, job, task, node, size, now, out)
        return True

    # ================================================================== preemption
    def _below(self, policy: str, usage: Resources, share: Resources) -> bool:
        """``isUsageBelowShare`` with the policy's calculator (``getResourceCalculator``): memory
        (fair, fifo) or dominant share (drf)."""
        return self.owner.plugins.share_policy(policy).calc.less_than(self.cluster_total, usage, share)  # type: ignore[no-any-return]

    def _update_starvation(self, now: float) -> None:
        """``FSLeafQueue.updateStarvedApps``: each app's fair-share starvation (below
        ``fairSharePreemptionThreshold`` × its fair share, capped by its demand, for longer
        than ``fairSharePreemptionTimeout``) and each leaf's min-share starvation (below
        min(min share, demand) for longer than ``minSharePreemptionTimeout``), handed to its
        apps in policy order up to what each still asks for.  Only while the cluster is used
        above ``preemption_utilization_threshold`` (YARN's cluster-utilization-threshold)."""
        self.starvation = {}
        self._starvation_time = now
        config = self.tree.config
        total = self.cluster_total
        used = self.tree.root.sched.running
        utilization = max((used.get(n) / total.get(n) for n in total.names if total.get(n) > 0), default=0.0)
        enough = utilization > self.settings.preemption_utilization_threshold
        for leaf in self.tree.leaves():
            policy = leaf.policy
            threshold = config.fair_share_preemption_threshold(leaf.name)
            fair_timeout = config.fair_share_preemption_timeout(leaf.name)
            key = self._key_fn(leaf)
            apps = sorted(leaf.runnable_apps, key=lambda j: key(j.sched[RESOURCES]))
            for job in apps:
                js = job.sched[RESOURCES]
                fair = (js.fair_share or _NONE).multiply_and_round_down(threshold)
                target = fair.componentwise_min(js.demand)
                if not self._below(policy, job.usage, target):
                    self._at_fair_share[job.id] = now
                    continue
                since = self._at_fair_share.setdefault(job.id, now)
                if enough and now - since >= fair_timeout:
                    gap = (target - job.usage).componentwise_max(_NONE)
                    if gap.any_positive():
                        self.starvation[job.id] = gap
            s = leaf.sched
            # Resources.min(calculator, …): the smaller of the two vectors by the policy's measure
            desired = s.min_share if not self._below(policy, s.demand, s.min_share) else s.demand
            if desired.fits_in(s.running):  # FSLeafQueue.minShareStarvation: nothing of it is missing
                self._at_min_share[leaf.name] = now
                continue
            since = self._at_min_share.setdefault(leaf.name, now)
            if not (enough and now - since >= config.min_share_preemption_timeout(leaf.name)):
                continue
            left = (desired - s.running).componentwise_max(_NONE)
            for job in apps:
                if not left.any_positive():
                    break
                pending = (job.sched[RESOURCES].demand - job.usage - self.starvation.get(job.id, _NONE))
                share = pending.componentwise_max(_NONE).componentwise_min(left)
                if share.any_positive():
                    self.starvation[job.id] = self.starvation.get(job.id, _NONE) + share
                    left = (left - share).componentwise_max(_NONE)

    def _preemptable(self, task: Task, chosen: dict[str, Resources]) -> bool:
        """``FSAppAttempt.canContainerBePreempted``: its queue allows it (``allowPreemptionFrom``)
        and the app stays at or above its fair share without it (and what is already chosen)."""
        job = task.job
        if job.id in self.starvation:
            return False
        leaf = self.tree.queues.get(job.queue or "")
        if leaf is None or not self.tree.config.preemptable(leaf.name):
            return False
        after = job.usage - chosen.get(job.id, _NONE) - (task.resources or _NONE)
        fair = job.sched[RESOURCES].fair_share or _NONE
        return not self._below(leaf.policy, after, fair)

    def preempt_tasks(self, now: float) -> list[Task]:
        """``FSPreemptionThread``: for each starved app, find on some node running containers
        of apps above their fair share whose release (with what the node has free) fits one
        of the app's requests — AM containers only if nothing else will do — kill them, and
        keep what they free on that node for the starved app.  Containers are killed at once
        (YARN warns them first and kills after ``waitTimeBeforeKill``, 15 s)."""
        if not self.settings.preemption:
            return []
        if self._starvation_time != now:  # an update at this instant has computed it already
            self._update_starvation(now)
        killed: list[Task] = []
        chosen: dict[str, Resources] = {}
        taken: set[str] = set()
        promised: dict[str, Resources] = {}  # node -> room already freed for a starved request
        plan: list[tuple[Node, Job, list[Task]]] = []
        for job_id, starved in list(self.starvation.items()):
            job = self.owner.jobs.get(job_id)
            if job is None:
                continue
            last = self._preempted_at.get(job_id)
            if last is not None and now - last < STARVATION_RECHECK_WAIT:
                continue  # FSAppAttempt.preemptionTriggered: give the freed room time to be used
            self._preempted_at[job_id] = now
            for size in self._starved_requests(job, starved):
                victims = self._victims_for(size, chosen, taken, promised)
                if victims is None:
                    continue
                node, tasks = victims
                promised[node.name] = promised.get(node.name, _NONE) + size
                for task in tasks:
                    taken.add(task.id)
                    chosen[task.job.id] = chosen.get(task.job.id, _NONE) + (task.resources or _NONE)
                plan.append((node, job, tasks))
        for node, job, tasks in plan:  # identified first, killed after (the counts above are of before)
            freed = _NONE
            for task in tasks:
                freed = freed + (task.resources or _NONE)
            node.preempted_for = [*(node.preempted_for or []), (job, freed)]
            for task in tasks:
                if task.state == RUNNING and task.id in self.ledger.running:  # (an AM's end took its app's)
                    killed.append(self.owner.kill(task.id, now, reason="preempted"))
        if killed:
            self.update(now)
        return killed

    def _starved_requests(self, job: Job, starved: Resources) -> list[Resources]:
        """``getStarvedResourceRequests``: the app's next requests up to its starvation (at least one)."""
        out: list[Resources] = []
        covered = _NONE
        am = self.am_tasks.get(job.id)
        pending: list[Task] = [am] if am is not None and not job.am_running and am.state == PENDING else []
        if not pending:
            for kind in (MAP, REDUCE, TASK):
                if kind == REDUCE and not job.reduces_schedulable:
                    continue
                pending.extend(t for t in job.tasks.get(kind, ()) if t.state == PENDING)
        for task in pending:
            if out and starved.fits_in(covered):  # the starvation is covered
                break
            size = task.resources or _NONE
            out.append(size)
            covered = covered + size
        return out

    def _victims_for(
        self, size: Resources, chosen: dict[str, Resources], taken: set[str], promised: dict[str, Resources]
    ) -> tuple[Node, list[Task]] | None:
        """``identifyContainersToPreempt``: the node where the fewest AM containers (then the
        fewest containers) free room for ``size``."""
        best: tuple[int, int, Node, list[Task]] | None = None
        for node in self.owner.cluster.nodes.values():
            if node.capacity is None or not size.fits_in(node.capacity):
                continue
            freed = _NONE
            for tid in taken:  # what victims chosen for earlier requests free on this node
                t = node.tasks.get(tid)
                if t is not None:
                    freed = freed + (t.resources or _NONE)
            free = node.available + freed - promised.get(node.name, _NONE)
            picked: list[Task] = []
            ams = 0
            local = dict(chosen)
            # newest containers first, AM containers last (YARN sorts by priority, AM last)
            running = sorted(
                (t for t in node.tasks.values() if t.id not in taken),
                key=lambda t: (t.is_am, -t.launch_seq),
            )
            for task in running:
                if size.fits_in(free):
                    break
                if not self._preemptable(task, local):
                    continue
                picked.append(task)
                ams += task.is_am
                local[task.job.id] = local.get(task.job.id, _NONE) + (task.resources or _NONE)
                free = free + (task.resources or _NONE)
            if not picked or not size.fits_in(free):
                continue
            candidate = (ams, len(picked), node, picked)
            if best is None or candidate[:2] < best[:2]:
                best = candidate
        return None if best is None else (best[2], best[3])

    # ================================================================== completion
    def give_back(self, task: Task, node: Node | None) -> None:
        """A container the ledger released (finished or killed) gives back its resources:
        to ``node`` (None: the node has left), its app and every queue up to root."""
        size = task.resources or _NONE
        if node is not None:
            node.used = node.used - size
            node._running[task.kind] = node._running.get(task.kind, 1) - 1
        job = task.job
        job.usage = job.usage - size
        leaf = self.tree.queues.get(job.queue or "")
        q: Queue | None = leaf
        while q is not None:
            q.sched.running = q.sched.running - size
            q = q.parent
        if task.is_am:
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
        if job.all_done:
            return True
        self.changed(job)
        return False

    def kill_task(self, task: Task, now: float, reason: str) -> None:
        """A running container is killed: it asks again (an AM's kill fails its app attempt:
        YARN kills the attempt's containers, and a new attempt starts with a new AM)."""
        ledger = self.ledger
        if task.id not in ledger.running or task.state != RUNNING:
            raise SchedulerStateError(f"task {task.id} is not running")
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
            job._pending_resources[task.kind] = job._pending_resources[task.kind] + (task.resources or _NONE)
        self._reposition(job)

    def changed(self, job: Job) -> None:
        """The app's state changed outside the engine (a task completed): re-place it in the orders."""
        if not job.is_finished:
            self._reposition(job)

    def job_removed(self, job: Job, now: float) -> None:
        """The app ended (every task done, or killed): its AM ends too (``task_finish``; no
        plugin hears of an AM) and the app leaves its queue; waiting apps may run."""
        am = self.am_tasks.pop(job.id, None)
        if am is not None and am.state == RUNNING:
            ledger = self.ledger
            node_name = am.node
            node = ledger.release(am)
            self.give_back(am, node)
            ledger.complete(am, node)
            ledger.finished(am, node_name, None, now)
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

    def shares_report(self) -> dict[str, Any]:
        """SPEC §7's ``shares()``: every queue's fair and steady share, usage and demand; every app's."""
        queues = {}
        for q in self.tree.walk():
            s = q.sched
            queues[q.name] = {
                "fair": (s.fair_share or _NONE).as_dict(),
                "steady": (s.steady_share or _NONE).as_dict(),
                "usage": s.running.as_dict(),
                "demand": s.demand.as_dict(),
                "leaf": q.is_leaf,
                "runnable_apps": len(q.runnable_apps) if q.is_leaf else q.num_runnable,
                "waiting_apps": len(q.waiting_apps),
            }
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
        return {"queues": queues, "jobs": jobs}
