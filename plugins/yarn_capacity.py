"""``yarn_capacity``: YARN's Capacity Scheduler (Hadoop 3.3) as a SharePolicy and PoolResolver.

The queue tree, capacities and limits come from a Hadoop ``capacity-scheduler.xml`` named
by ``[scheduler] allocation_file`` (read and validated by
:mod:`corescheduler.formats.capacity_scheduler_xml`; the engine hands it over through
``SharePolicy.configure``).  Runs in ``mode = "resources"``.

* **Shares** (:meth:`compute_shares`) — a queue's share is its *guaranteed* capacity:
  its ``capacity`` fraction of its parent's guarantee (``CSQueueUtils.updateQueueStatistics``:
  absolute capacity × cluster), or its absolute ``[memory=…,vcores=…]``; its maximum
  capacity is the queue's max resources, which the engine enforces for every container
  (``AbstractCSQueue.canAssignToThisQueue``).  Apps have no share (None).
* **Queue order** (:meth:`order_key`) — a parent offers a node to its children in
  ``PriorityUtilizationQueueOrderingPolicy``'s order (:func:`queue_order_key`): queues with
  a positive absolute capacity first; the least used capacity (used ÷ guaranteed) first,
  queue priorities counting under a ``priority-utilization`` parent; ties to the larger
  configured capacity.  Memory only under ``DefaultResourceCalculator``; the dominant share
  under ``DominantResourceCalculator``.
* **App order** — a leaf's ``ordering-policy``: ``fifo`` (``FifoComparator``: higher
  effective application priority first — capped by ``yarn.cluster.max-application-priority``,
  bounded by ``acl_application_max_priority``: :mod:`corescheduler_plugins._yarn_capacity_priorities`
  — then submission) or ``fair`` (``FairOrderingPolicy``: least memory used
  first; with ``fair.enable-size-based-weight`` used ÷ log2(1 + demand)).
* **User limit** (:meth:`admit_job`) — ``UsersManager.computeUserLimit``: the queue's
  current capacity is its guarantee while it uses less, else its use plus the ask; a
  user's limit is max(⌈current ÷ active users⌉, current × minimum-user-limit-percent ÷
  100), at most ``user-limit-factor`` × the guarantee (−1: the queue's maximum), rounded up
  to the minimum allocation; a user's reserved containers count in its use; a user whose
  use is over the limit is skipped (``LeafQueue.canAssignToUser``: ``greaterThan(used,
  limit)``; the reservations' part in ``CapacityReservations.unreserve_for``).
* **Placement** (:meth:`cs_resolve_pool`) — ``queue-mappings`` as
  ``UserGroupMappingPlacementRule`` (``u:``/``g:``, ``%user``, ``%primary_group``,
  ``%secondary_group``, ``parent.leaf``) when the app names no queue or ``default``, or the
  override is on; a queue given by
  path or unique leaf name (``CapacitySchedulerQueueManager.getQueue``); refused: an unknown
  queue, a parent, a STOPPED queue (or one under a STOPPED parent), an app past the leaf's
  ``maximum-applications`` or the user's share of it (``LeafQueue.validateSubmitApplication``),
  and by the ACLs.
* **AM limit** (:meth:`admit_am`) — ``LeafQueue.activateApplications``: the AM limit
  (``calculateAndGetAMResourceLimitPerPartition``: maximum-am-resource-percent × the
  queue's current limit, or its guarantee when that is more) and the user AM limit
  (``getUserAMResourceLimitPerPartition``); a leaf with no AM running starts one anyway.
* **Normalization** (:meth:`normalize`) — ``CapacityScheduler.getNormalizedResource``: the
  minimum allocation is the increment; memory only under ``DefaultResourceCalculator``.

* **Locality and heartbeats** — the TaskSelector (``cs_select_ask``: the delay in missed
  scheduling opportunities) and ``heartbeat_limits`` (``per-node-heartbeat.*``) come from
  :mod:`corescheduler_plugins._yarn_capacity_locality`.

* **User weights** — ``user-settings.<user>.weight`` in the user limit and the user AM limit
  (:mod:`corescheduler_plugins._yarn_capacity_weights`, used only by a leaf with weights);
  ``max-parallel-apps`` are the engine's running-app limits (the reader sets them).

* **Moves** — ``CapacityScheduler.preValidateMoveApplication`` and ``moveApplication``
  (:mod:`corescheduler_plugins._yarn_capacity_moves`).

* **Limits and preemption** — a queue's current limit and its AM limits live in
  :mod:`corescheduler_plugins._yarn_capacity_limits`, the preemption monitor's round on the
  live tree in :mod:`corescheduler_plugins._yarn_capacity_victims` (mixins of this class).

What is left out (node labels, auto-created queues, …) is in ``docs/yarn-capacity.md``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from corescheduler_plugins._yarn_capacity_limits import CapacityLimits
from corescheduler_plugins._yarn_capacity_locality import CapacityLocality
from corescheduler_plugins._yarn_capacity_moves import CapacityMoves
from corescheduler_plugins._yarn_capacity_placement import CapacityPlacement, capacity_conf
from corescheduler_plugins._yarn_capacity_priorities import CapacityAppPriorities
from corescheduler_plugins._yarn_capacity_reports import CapacityReports
from corescheduler_plugins._yarn_capacity_reservations import CapacityReservations
from corescheduler_plugins._yarn_capacity_user_limit import CapacityUserLimit, _path
from corescheduler_plugins._yarn_capacity_victims import CapacityVictims
from corescheduler_plugins._yarn_capacity_weights import CapacityUserWeights

from corescheduler.core.javamath import java_float, java_long
from corescheduler.core.model import RESOURCES, Job, Rejection, Schedulable
from corescheduler.core.policy import DOMINANT, PRIMARY, Calculator, SharePolicy
from corescheduler.core.resources import MEMORY, UNBOUNDED, VCORES, normalize
from corescheduler.errors import AllocationError
from corescheduler.hookspecs import hookimpl
from corescheduler.resources import Resources

NAME = "yarn_capacity"
#: without a file, Hadoop's default configuration: one queue with all of the cluster
DEFAULT_QUEUE = "root.default"
ROOT = "root"
_ZERO = Resources()


class YarnCapacityScheduler(CapacityUserLimit, CapacityLimits, CapacityVictims, CapacityLocality, CapacityPlacement,
                            CapacityUserWeights, CapacityReservations, CapacityReports, CapacityMoves,
                            CapacityAppPriorities, SharePolicy):
    """Hadoop 3.3's ``CapacityScheduler``: guaranteed capacities, least-used-first queues,
    user limits; configured from a ``capacity-scheduler.xml``."""

    measure = PRIMARY

    def __init__(self, settings: Mapping[str, Any] | None = None, context: Any = None) -> None:
        self.conf: Any = None  # the capacity file in force (CapacitySchedulerConf), None without one
        self._calcs: dict[str, Calculator] = {}
        self._ordering: dict[str, tuple[float, int, tuple[float, ...]]] = {}  # path -> order_key's fixed parts
        self._fair_leaves: dict[str, bool] = {}
        #: a live queue's schedulable -> order_key's fixed parts (DefaultResourceCalculator), from
        #: compute_shares: (positive absolute capacity, its negation, -priority, tie-breaker)
        self._queue_keys: dict[Any, tuple[bool, bool, int, tuple[float, ...]]] = {}
        #: a FIFO-ordered app's schedulable -> its order key, fixed while its priority stays
        #: (order_key; dropped by note_priority, set_priority, configure and the app's removal)
        self._app_keys: dict[Any, tuple[int, float, str]] = {}
        self._dominant = False
        self._apps: Counter[str] = Counter()  # leaf -> apps placed (pending and running)
        self._users: dict[str, Counter[Any]] = {}  # leaf -> user -> apps
        self._users_use: dict[str, dict[Any, Resources]] = {}  # leaf -> user -> resources used (_user_used)
        #: the containers started and not yet added to their users' use (cs_task_started; _fold)
        self._started: list[Any] = []
        self._user_am: dict[str, dict[Any, Resources]] = {}  # leaf -> user -> AM containers' resources
        self._live: dict[str, Any] = {}  # path -> the engine's live queue (seen in compute_shares)
        # leaf -> (its schedulable, guarantee, maximum, used memory, a lower bound of the user limit's
        # memory, its users' use): admit_job's fast path; dropped when the file or the live queue changes
        self._bounds: dict[str, tuple[Any, Any, Any, int, int, dict[Any, Resources]]] = {}
        self._configured_sums: dict[str, Resources] = {}  # configure()
        self._ratios: dict[str, tuple[Resources, dict[str, float]]] = {}  # parent -> (its total, _min_ratios)
        self._cluster = Resources()
        self._order: dict[str, int] = {}  # app id -> submission order (preemption: latest first)
        #: app id -> its effective YARN application priority (_yarn_capacity_priorities)
        self._app_priority: dict[str, int] = {}
        self._preemption: Any = None
        self._seq = 0
        self._marked: list[str] = []
        config = getattr(context, "config", None)
        cluster = getattr(config, "cluster", None)
        self._minimum = getattr(cluster, "minimum_allocation", None)
        #: yarn.scheduler.maximum-allocation-* (a queue's maximum allocation: _yarn_capacity_placement)
        self._maximum_allocation = getattr(cluster, "maximum_allocation", None)
        #: the minimum allocation's memory: a used capacity's least denominator (order_key)
        self._minimum_memory = self._minimum.memory if isinstance(self._minimum, Resources) else 0

    @hookimpl
    def cs_share_policy(self) -> SharePolicy:
        return self

    # ------------------------------------------------------------------ contract
    def initialize(self, calcs: dict[str, Calculator]) -> None:
        super().initialize(calcs)
        self._calcs = calcs

    def configure(self, allocations: Any) -> None:
        """Take the capacity file in force; without a file, Hadoop's default configuration
        (one queue, ``root.default``, with all of the cluster)."""
        conf = capacity_conf(allocations)
        if conf is None and getattr(allocations, "source", None) is not None:
            queues = allocations.queue_config() if hasattr(allocations, "queue_config") else None
            for _, spec in queues.walk() if queues is not None else ():
                if spec.scheduling_policy == "yarn_capacity":  # one queue's policy, not the scheduler's
                    raise AllocationError(
                        f"queue {spec.name!r} schedulingPolicy \"yarn_capacity\": YARN's Capacity Scheduler runs a "
                        "whole queue tree from a capacity-scheduler.xml ([scheduler] share_policy = "
                        "\"yarn_capacity\"); it is not a policy of one queue of a fair-scheduler allocation file",
                        allocations.source, spec.line)
            raise AllocationError(
                f"[scheduler] share_policy \"yarn_capacity\" needs a YARN capacity-scheduler.xml "
                f"(yarn.scheduler.capacity.* properties); this is a {getattr(allocations, 'dialect', '?')} "
                "allocation file", allocations.source)
        if conf is not self.conf:
            # the monitor's settings come from the file, checked with it: a bad value refuses
            # the file (the last good stays) rather than failing the first preemption round
            monitor = self._new_monitor(conf) if conf is not None else None
            if monitor is not None and self._preemption is not None:
                # one policy across refreshQueues (SchedulingMonitorManager.updateSchedulingMonitors
                # starts only a policy not yet running): its marks and fixed rate go on
                monitor.carry_on(self._preemption)
            self._preemption = monitor
        self.conf = conf
        self._bounds.clear()
        self._queue_keys.clear()
        self._app_keys.clear()  # a leaf's ordering-policy may have changed
        self._dominant = bool(self.conf is not None and self.conf.dominant)
        self._ordering = self._orderings()
        #: parent -> its absolute children's configured guarantees together
        #: (ParentQueue.calculateEffectiveResourcesAndCapacity's configuredMinResources)
        self._configured_sums = {} if self.conf is None else {
            path: Resources.total(self.conf.queues[c].capacity_resources for c in q.children
                                  if self.conf.queues[c].capacity_resources is not None)
            for path, q in self.conf.queues.items()
            if any(self.conf.queues[c].capacity_resources is not None for c in q.children)}
        self._ratios.clear()
        #: leaf -> fair.enable-size-based-weight, for the leaves whose ordering-policy is fair
        self._fair_leaves = {path: q.fair_size_based_weight for path, q in self.conf.queues.items()
                             if q.ordering_policy == "fair"} if self.conf is not None else {}
        if self._calcs:  # the resource-calculator key: memory only, or the dominant share
            self.calc = self._calcs[DOMINANT if self._dominant else PRIMARY]

    def _orderings(self) -> dict[str, tuple[float, int, tuple[float, ...]]]:
        """Per queue, what its parent's queue ordering policy sorts it by beyond its use: its
        absolute capacity, its priority (0 unless the parent's policy is
        ``priority-utilization``) and its tie-breaker (the configured absolute capacity, else
        the absolute capacity, larger first) — fixed while the file is in force."""
        out: dict[str, tuple[float, int, tuple[float, ...]]] = {}
        if self.conf is None:
            return out
        for path, q in self.conf.queues.items():
            parent = self.conf.queues.get(path.rpartition(".")[0])
            respect = parent is not None and parent.ordering_policy == "priority-utilization"
            configured = q.capacity_resources
            absolute = q.absolute_capacity
            if configured is not None and configured.any_positive():
                tie = tuple(-float(v) for _, v in sorted(configured.items(), key=lambda nv: _type_order(nv[0])))
                # positive once the cluster is known (ParentQueue.deriveCapacityFromAbsoluteConfigurations):
                # ordered by used capacity, not last with the zero-capacity queues
                absolute = 1.0
            else:
                tie = (-q.absolute_capacity,)
            out[path] = (absolute, q.priority if respect else 0, tie)
        return out

    def guaranteed(self, path: str, total: Resources) -> Resources:
        """The queue's guarantee out of its parent's ``total``.  An absolute queue's
        (``[memory=…,vcores=…]``) is its configured vector, scaled down with its siblings'
        when they add up to more than ``total`` (:meth:`_min_ratios`)."""
        if self.conf is None:  # Hadoop's default configuration: root.default has all
            return total if path == DEFAULT_QUEUE else Resources()
        q = self.conf.queues.get(path)
        if q is None:
            return Resources()
        configured = q.capacity_resources
        if configured is not None:
            ratios = self._min_ratios(path.rpartition(".")[0], total)
            if not ratios:
                return configured
            # ParentQueue.getMinResourceNormalized: (long) (value * ratio), in Java floats
            return Resources.of({n: java_long(java_float(java_float(float(v)) * ratios[n])) if n in ratios else v
                                 for n, v in configured.items()})
        return total.multiply_and_round_down(q.capacity)

    def _min_ratios(self, parent: str, total: Resources) -> dict[str, float]:
        """``ParentQueue.calculateEffectiveResourcesAndCapacity``'s effective minimum ratio per
        resource type for the absolute children of ``parent``, whose effective guarantee is
        ``total`` (root's: the cluster): empty while ``total`` is not less than the children's
        configured guarantees together (``Resources.lessThan`` with the scheduler's calculator;
        root with an empty cluster neither), else ``(float) total ÷ configured`` for each type
        the children configure (``getEffectiveMinRatioPerResource``) — every type, so one the
        children ask less of than ``total`` has is scaled up, as Hadoop does."""
        cached = self._ratios.get(parent)
        if cached is not None and cached[0] == total:
            return cached[1]
        configured = self._configured_sums.get(parent)
        ratios: dict[str, float] = {}
        if configured is not None and (parent != ROOT or total.any_positive()) and self._less(total, configured):
            for n, v in total.items():
                d = configured.get(n)
                if d != 0:
                    ratios[n] = java_float(java_float(float(v)) / java_float(float(d)))
        self._ratios[parent] = (total, ratios)
        return ratios

    def compute_shares(self, schedulables: Sequence[Schedulable], total: Any, steady: bool) -> list[Any]:
        out: list[Any] = []
        for s in schedulables:
            owner = s.owner
            if isinstance(owner, Job):
                out.append(None)
            else:
                if self._live.get(owner.name) is not owner:
                    self._live[owner.name] = owner
                    self._bounds.pop(owner.name, None)  # a bound holds the queue it was computed for
                if s not in self._queue_keys and not self._dominant:
                    fixed = self._ordering.get(owner.name)
                    if fixed is not None:  # order_key's fixed parts of this live queue
                        self._queue_keys[s] = (fixed[0] > 0, fixed[0] <= 0, -fixed[1], fixed[2])
                if owner.parent is not None and owner.parent.parent is None:
                    self._cluster = total  # root's share: the cluster
                out.append(self.guaranteed(owner.name, total))
        return out

    def _ratio(self, used: Resources, guaranteed: Resources | None, cluster: Resources | None) -> float:
        """``Resources.divide(rc, cluster, used, guaranteed)``; 0 with no guarantee."""
        if guaranteed is None:
            return 0.0
        if not self._dominant:  # memory alone (the order key's case, on every container)
            g = guaranteed.memory
            return used.memory / g if g > 0 else 0.0
        if not guaranteed.any_positive():
            return 0.0
        if self._dominant and cluster is not None and cluster.any_positive():
            g = guaranteed.dominant_share(cluster)
            return used.dominant_share(cluster) / g if g > 0 else 0.0
        g = guaranteed.get("memory")
        return used.get("memory") / g if g > 0 else 0.0

    def order_key(self, s: Schedulable) -> Any:
        """An app's key in its leaf (its ordering policy), a queue's among its siblings
        (:func:`queue_order_key`).  Every container's launch asks it of the app and of each
        queue up to root: the fixed parts come from :meth:`_orderings` and
        :attr:`_fair_leaves`, and ``used`` is divided inline (:meth:`_ratio`)."""
        fixed = self._queue_keys.get(s)
        if fixed is None:
            key = self._app_keys.get(s)
            if key is not None:  # a FIFO-ordered app: its key, unchanged
                return key
        else:  # a queue of the file under DefaultResourceCalculator
            positive, zero, priority, tie = fixed
            g = s.fair_share if positive else s.cluster  # both at 0: by absolute used capacity
            gm = g.memory if g is not None else 0
            if positive and gm < self._minimum_memory:  # CSQueueUtils.updateUsedCapacity: at least the minimum
                gm = self._minimum_memory
            # the queue's use counts its reservations (LeafQueue.apply → allocateResource)
            used = (s.running.memory + s.owner.reserved.memory) / gm if gm > 0 else 0.0
            return (zero, used >= 1.0, priority, used, tie, s.name)  # queue_order_key
        owner = s.owner
        if isinstance(owner, Job):
            fair = self._fair_leaves
            if fair:
                path = owner.queue or owner.pool
                sized = fair.get(path if type(path) is str else str(path))
                if sized is not None:  # FairOrderingPolicy
                    usage = float(s.running.get("memory"))
                    if sized:
                        demand = s.demand.get("memory")
                        weight = math.log1p(demand) / math.log(2) if demand > 0 else 1.0
                        usage = usage / weight if weight > 0 else usage
                    return (usage, s.start_time, s.name)
            # FifoComparator: the higher effective application priority first (resolved when set);
            # fixed while that priority stays (its submission time and name do not change)
            key = self._app_keys[s] = (-self._app_priority.get(owner.id, 0), s.start_time, s.name)
            return key
        ordering = self._ordering.get(owner.name)
        if ordering is None:  # no file: root.default alone
            running = s.running + owner.reserved
            return (False, False, 0, self._ratio(running, s.fair_share, getattr(s, "cluster", None)), (0.0,), s.name)
        absolute, priority, tie = ordering
        reserved = owner.reserved  # counted in the queue's use (CSQueueUtils.updateUsedCapacity)
        if not self._dominant:  # _ratio's memory case, inline
            g = s.fair_share if absolute > 0 else s.cluster  # both at 0: by absolute used capacity
            gm = g.memory if g is not None else 0
            if absolute > 0 and gm < self._minimum_memory:  # CSQueueUtils.updateUsedCapacity: at least the minimum
                gm = self._minimum_memory
            used = (s.running.memory + reserved.memory) / gm if gm > 0 else 0.0
            return (absolute <= 0, used >= 1.0, -priority, used, tie, s.name)  # queue_order_key
        cluster = getattr(s, "cluster", None)
        running = s.running + reserved if reserved.any_positive() else s.running
        if absolute > 0:  # over max(guarantee, minimum allocation) (CSQueueUtils.updateUsedCapacity)
            guaranteed = s.fair_share
            step = self._minimum
            if guaranteed is not None and isinstance(step, Resources) and cluster is not None \
                    and cluster.any_positive() and guaranteed.dominant_share(cluster) < step.dominant_share(cluster):
                guaranteed = step
            used = self._ratio(running, guaranteed, cluster)
        else:  # both at 0: by absolute used capacity
            used = self._ratio(running, cluster, cluster)
        return queue_order_key(used, absolute, priority, tie, s.name)

    def admit_job(self, job: Job, kind: str, now: float) -> bool | Rejection | None:
        """``LeafQueue.canAssignToUser``: a user whose use is over the user limit waits.

        The heartbeat asks this for every app it offers a container to, and the limit moves
        with every container of the leaf (Hadoop recomputes it then:
        ``UsersManager.userLimitNeedsRecompute`` from ``updateUserResourceUsage``).  Under
        ``DefaultResourceCalculator`` the answer needs only a lower bound of the limit's memory
        that holds while the queue's guarantee and maximum stay and its use does not fall:
        min(current capacity × minimum-user-limit-percent ÷ 100, the cap), rounded up
        (:meth:`_memory_bound`; the limit is the larger of that share and the active users'
        one, and the current capacity grows with the queue's use).  A user within the bound
        is admitted without computing the limit; any other gets the exact comparison.  The use
        compared here leaves out the user's reservations: a user over the limit only with them
        is held by ``unreserve_for`` and ``reservable`` (``_yarn_capacity_reservations``)."""
        bound = self._bounds.get(job.queue or job.pool)  # (kept by the path as a str: _admit_exactly)
        if bound is not None:
            s, guaranteed, maximum, running, least, by_user = bound
            if s.fair_share is guaranteed and s.max_share is maximum and s.running.memory >= running:
                if self._started:  # (its users' use as by_user holds it, up to date)
                    self._fold()
                used = by_user.get(job.user)
                if (used.memory if used is not None else 0) <= least:
                    return None
        return self._admit_exactly(job, _path(job))

    def admit_leaf(self, leaf: Any, now: float) -> Resources | None:
        """:meth:`admit_job` for all of a leaf's apps at once, under ``DefaultResourceCalculator``:
        every user whose memory use is within the lower bound of the user limit
        (:meth:`_memory_bound`) is admitted, and while only containers of the leaf start (its
        use grows, the guarantee and maximum stay) a user's use grows by at most what the leaf's
        grows.  So while the leaf's memory use stays within what it is now + (the bound − its
        heaviest user's use) every app is admitted — a user who joins uses nothing yet.  None
        (asked per app): the dominant share, user weights (a weighted user's own limit may be
        below the bound: :meth:`_admit_exactly`), or a user over the bound.

        With ``minimum-user-limit-percent`` at 100 or more (Hadoop's default) the limit's term
        ⌈current capacity × percent ÷ 100⌉ is at least the current capacity, which is above
        the leaf's use and so above every user's: a user is over the limit only past its cap
        (queue capacity × ``user-limit-factor``, or the queue's maximum).  Every app is then
        admitted while the leaf's use stays within the cap, with no user's use read."""
        conf = self.conf
        if self._dominant or conf is None:
            return None
        path = leaf.name
        spec = conf.queues.get(path)
        if spec is None or spec.user_weights or self._live.get(path) is not leaf:
            return None
        if spec.minimum_user_limit_percent >= 100:
            cap = self._capacity_and_cap(leaf.sched, spec)[1]
            if leaf.sched.running.memory <= cap:
                return Resources.from_parts(cap, UNBOUNDED)
        least = self._memory_bound(leaf, spec)
        heaviest = 0
        by_user = self._leaf_users(path)
        if by_user:
            for used in by_user.values():
                if used.memory > heaviest:
                    heaviest = used.memory
        if heaviest > least:
            return None
        return Resources.from_parts(leaf.sched.running.memory + least - heaviest, UNBOUNDED)

    def _admit_exactly(self, job: Job, path: str) -> Rejection | None:
        """:meth:`admit_job` past the bound: the user's use against the user limit (and, under
        ``DefaultResourceCalculator``, a new bound for the leaf)."""
        conf = self.conf
        leaf = conf.queues.get(path) if conf is not None else None
        queue = self._live.get(path)
        if leaf is None or queue is None:
            return None
        by_user = self._leaf_users(path)
        if by_user is None:
            by_user = self._users_use[path] = {}
        used = by_user.get(job.user) or _ZERO
        if not self._dominant and not leaf.user_weights:  # (weighted: user_limit, below)
            s = queue.sched
            fast = self._memory_limit(queue, leaf)
            least = fast[1] if fast is not None else self._memory_bound(queue, leaf)
            self._bounds[path] = (s, s.fair_share, s.max_share, s.running.memory, least, by_user)
            if fast is not None:
                if used.memory > fast[0]:
                    limit = self._limit_amounts(queue, leaf)  # the vcores too, for the message
                    assert limit is not None
                    return Rejection(f"user {job.user} is over its user limit {Resources._make(*limit)} in {path}")
                return None
        limit = self.user_limit(job)
        if limit is None:
            return None
        over = used.get("memory") > limit.get("memory")
        if self._dominant:
            cluster = job.sched[RESOURCES].cluster
            over = used.dominant_share(cluster) > limit.dominant_share(cluster) if cluster is not None else over
        if over:
            return Rejection(f"user {job.user} is over its user limit {limit} in {path}")
        return None

    def _memory_bound(self, queue: Any, leaf: Any) -> int:
        """A lower bound of the user limit's memory under ``DefaultResourceCalculator`` for
        any active users, as long as the queue's guarantee and maximum stay and its use does
        not fall: ⌈current capacity × minimum-user-limit-percent ÷ 100⌉ capped as the limit
        is, rounded up (the terms of :meth:`_limit_amounts` without the active users', and
        without the leaf's reservations, which may go without a container ending)."""
        s = queue.sched
        rm = self._minimum_memory
        qm, cap = self._capacity_and_cap(s, leaf)
        consumed = s.running.memory
        if rm > 0:
            consumed = -(-consumed // rm) * rm
        current = qm if consumed < qm else consumed + rm
        bound = -(-int(current * leaf.minimum_user_limit_percent) // 100)
        if cap < bound:
            bound = cap
        if rm > 0:
            bound = -(-bound // rm) * rm
        return bound

    def _capacity_and_cap(self, s: Any, leaf: Any) -> tuple[int, int]:
        """The queue capacity's memory under ``DefaultResourceCalculator`` (its guarantee, at
        least the minimum allocation) and the user limit's cap (that × ``user-limit-factor``,
        or the queue's maximum for a factor of −1)."""
        guaranteed = s.fair_share
        qm = guaranteed.memory if guaranteed is not None else 0
        if qm < self._minimum_memory:
            qm = self._minimum_memory
        ulf = leaf.user_limit_factor
        return qm, (int(qm * ulf) if ulf >= 0 else s.max_share.memory)

    def normalize(self, ask: Resources, minimum: Resources, maximum: Resources,
                  increment: Resources) -> Resources | None:
        """``CapacityScheduler.getNormalizedResource`` → ``SchedulerUtils.getNormalizedResource``
        with the scheduler's calculator and the *minimum* allocation as the increment
        (``yarn.scheduler.increment-allocation-*`` is the fair scheduler's): under
        ``DefaultResourceCalculator`` memory only, at least the minimum, rounded up to it, at
        most the maximum (``DefaultResourceCalculator.normalize``); under
        ``DominantResourceCalculator`` every resource type so.  The other types of an ask under
        ``DefaultResourceCalculator`` stay as asked, at least the minimum (Hadoop makes them
        1 vcore), so that ``serve`` enforces what a task asks of a worker."""
        if self._dominant:  # every type: the engine's rule with the minimum as the increment
            return normalize(ask, minimum, maximum, minimum)
        # memory as the engine's rule (the minimum as the increment, capped at the maximum);
        # every other type at least its minimum, neither rounded nor capped
        return normalize(ask, minimum, Resources(maximum.memory, UNBOUNDED), Resources(minimum.memory))

    # ------------------------------------------------------------------ notifications
    @hookimpl
    def cs_job_added(self, job: Job) -> None:
        self.note_priority(job)
        self._seq += 1
        self._order[job.id] = self._seq
        self._apps[_path(job)] += 1
        self._users.setdefault(_path(job), Counter())[job.user] += 1
        # the user's use from its submission (UsersManager.getUserAndAddIfAbsent in LeafQueue.submitApplication),
        # its own zero: the first container replaces it (a heartbeat leaves no new object for the collector)
        used = self._user_used.get(_path(job))
        if used is None:
            used = self._user_used[_path(job)] = {}
        if job.user not in used:
            used[job.user] = Resources.from_parts(0, 0)

    @hookimpl
    def cs_job_removed(self, job: Job) -> None:
        self._order.pop(job.id, None)
        self.forget_opportunities(job)
        self._app_priority.pop(job.id, None)
        self._app_keys.pop(job.sched.get(RESOURCES), None)
        self._apps[_path(job)] -= 1
        users = self._users.get(_path(job))
        if users is not None:
            users[job.user] -= 1
            if users[job.user] <= 0:
                del users[job.user]

    def _count(self, task: Any, sign: int) -> None:
        """A container of the task's user in its leaf started (+1) or ended (−1): the user's use
        (``UsersManager.updateUserResourceUsage``)."""
        size = task.resources
        if size is None:
            return
        job = task.job
        path = job.queue or job.pool
        if type(path) is not str:
            path = str(path)
        used = self._user_used.get(path)
        if used is None:
            used = self._user_used[path] = {}
        user = job.user
        current = used.get(user, _ZERO)
        used[user] = current + size if sign > 0 else current - size

    def _count_am(self, task: Any, sign: int) -> None:
        """A user's AM use in its leaf (``User.getConsumedAMResources``)."""
        size = task.resources
        if size is None or not task.is_am:
            return
        job = task.job
        used = self._user_am.setdefault(_path(job), {})
        current = used.get(job.user, Resources())
        used[job.user] = current + size if sign > 0 else current - size

    @hookimpl
    def cs_task_started(self, task: Any, node: Any, locality: Any, now: float) -> None:
        """:meth:`_count` (+1), deferred: every container's launch calls it (and naming all of
        the hook's arguments lets the engine call it without an adapter), so it only notes the
        container; the users' use is summed when read (:meth:`_fold`, from :attr:`_user_used`
        and :meth:`_leaf_users`) — after the heartbeat, as a rule."""
        if task.is_am:
            self._count_am(task, +1)
        self._started.append(task)

    @hookimpl
    def cs_task_finished(self, task: Any) -> None:
        self._count(task, -1)
        self._count_am(task, -1)

    @hookimpl
    def cs_task_preempted(self, task: Any) -> None:
        self._count(task, -1)
        self._count_am(task, -1)


def _type_order(name: str) -> tuple[int, str]:
    """``Resource.compareTo``'s order of resource types: memory, vcores, then the others."""
    return ({MEMORY: 0, VCORES: 1}.get(name, 2), name)


def queue_order_key(used: float, absolute: float, priority: int, tie: tuple[float, ...], name: str) -> tuple[Any, ...]:
    """The sort key of a queue among its siblings, ``PriorityUtilizationQueueOrderingPolicy``'s
    ``PriorityQueueComparator.compare`` as a total order: a queue with a positive absolute
    capacity before one of 0; then, by ``compare(used1, used2, p1, p2)``, the less used first
    when the priorities are equal, and when they differ the higher priority first if both are
    under (used < 1) or both at or over their guarantee, else the one under; ties to the larger
    configured capacity (``tie``, negated), then the name.  ``used`` is the used capacity
    (used ÷ guaranteed), or the absolute used capacity for a queue of absolute capacity 0;
    ``priority`` is 0 under ``utilization`` (priorities not respected)."""
    return (absolute <= 0, used >= 1.0, -priority, used, tie, name)
