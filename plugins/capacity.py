"""``capacity``: queues with guaranteed capacities, as Hadoop's Capacity Scheduler.

The SharePolicy (and optional PoolResolver) of HADOOP-3445, shipped as
Hadoop's ``CapacityTaskScheduler`` (``src/contrib/capacity-scheduler``,
0.19 with reclaim, 0.20 with maximum capacity).  A job's pool is its queue.
Everything is done separately for maps and for reduces, each kind with its own
slots and, optionally, its own capacities.

* **Guarantee** — a queue's guaranteed capacity for a kind is
  ``(int) (capacity% × cluster slots / 100)`` slots in Java ``float``
  arithmetic (``updateQSIObjects``; 2.6 % of 1,500 is 38); its maximum, if
  set, likewise.  A queue whose guarantee is 0 gets no task of that kind.
* **Allocated capacity** (:func:`cs_compute_shares`, the pools' shares) — a
  queue that cannot use its guarantee (running plus waiting tasks below it)
  lends the rest to the queues with waiting work, in the ratio of their
  guarantees (HADOOP-3445: "distribute capacity in the ratio of each Org's
  guaranteed capacity"), never past a queue's maximum capacity or demand:
  weighted max-min with weight = min share = guarantee, cap =
  ``min(demand, maximum)`` (what :func:`corescheduler.compute_fair_shares`
  computes, solved exactly: :func:`allocate`).
  Pools that are not configured queues have guarantee 0 and are lent nothing.
* **Order** (:func:`cs_order_key`) — a free slot goes to the queue with the
  lowest ``running / guarantee`` (Hadoop 0.19's ``QueueComparator``), ties by
  name; queues with no guarantee come after, and queues at their maximum
  capacity last.  Inside a queue, running jobs (a task launched) before
  waiting ones (0.19 ``getTaskFromQueue``), each by priority when the queue
  ``supports_priority`` (else priority is ignored), then submit time, then
  name (``JobQueuesManager``).
* **Map or reduce** (:func:`cs_next_kind`) — reduces first only when the node
  has more free reduce slots than free map slots (``assignTasks``).
* **User limits** (:func:`cs_admit_job`) — Hadoop's ``isUserOverLimit``: the
  queue's current capacity is its guarantee while it runs below it, else what
  it runs plus the slot on offer; with N users with jobs in the queue, a
  user's limit is ``max(ceil(capacity / N), ceil(minimum_user_limit_percent ×
  capacity / 100))`` and a user running at least that many is *deferred*: its
  jobs get the slot only if no job of a user under the limit takes it
  (``getTaskFromQueue``'s second pass).  Nothing is ever killed for a user
  limit.  ``user_limit_factor`` (YARN's meaning) also defers a user who would
  go past ``factor × guarantee``.
* **Reclaim** (:func:`cs_plan_preemption`, with ``[scheduler] preemption``) —
  Hadoop 0.19's ``reclaimCapacity``: while some queue runs over its
  guarantee, a queue below its guarantee with waiting tasks files a reclaim
  request for ``min(guarantee − running − already requested, waiting −
  already requested)`` slots with its own timer (``reclaim_time``).  Each
  task the queue launches pays one slot off its oldest request; a request
  paid off in time kills nothing.  When a request's timer expires, what is
  still owed (at most what the queue still lacks of its guarantee, less the
  slots standing free) is killed by ``killTasks``: from each queue over its
  guarantee ``round(over × owed / total over)`` tasks, never taking it below
  its guarantee, most over-capacity queue first, its jobs newest first, and
  within a job the most recently started tasks first.

The rules, the settings and the Hadoop sources are in ``docs/plugins/capacity.md``.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import define, field
from corescheduler_plugins._capacity_config import (  # noqa: F401 (re-exported)
    DEFAULT_MIN_USER_LIMIT_PERCENT,
    DEFAULT_QUEUE,
    DEFAULT_RECLAIM_TIME,
    NAME,
    QUEUE_KEYS,
    UNSET,
    CapacityConfig,
    QueueConfig,
    read_config,
    slots_for_one,
    slots_of,
    zero_guarantee_warnings,
)

from corescheduler.core.calculator import YARN
from corescheduler.core.javamath import java_round
from corescheduler.core.model import (
    KINDS,
    MAP,
    REDUCE,
    RUNNING,
    Job,
    JobSpec,
    Node,
    Pool,
    PreemptionPlan,
    Rejection,
    Schedulable,
    Task,
)
from corescheduler.core.policy import PRIMARY, SharePolicy, calculators
from corescheduler.hookspecs import hookimpl

#: What :func:`CapacityScheduler.cs_admit_job` answers for a job whose user is
#: at its limit: ``False`` defers the job to the pool's second pass, which is
#: Hadoop's user limit exactly.  Hard caps (``user_limit_factor``, a queue at
#: its ``maximum_capacity``) answer a :class:`Rejection` instead.
DEFER = False
_EPS = 1e-9
#: 0.19 ``CapacityTaskScheduler.HEARTBEATS_LEFT_BEFORE_KILLING``
HEARTBEATS_LEFT_BEFORE_KILLING = 3


# ============================================================================ runtime state


@define(eq=False)
class Reclaim:
    """One reclaim request (Hadoop 0.19 ``ReclaimedResource``): ``amount``
    slots asked for at ``created``, ``left`` of them still owed; tasks are
    killed for what is still owed once it is :meth:`due`; ``deadline`` is its
    ``whenToExpire`` (created + reclaim time)."""

    queue: str
    kind: str
    amount: int
    left: int
    created: float
    deadline: float
    #: ``whenToKill``: created + max(0, reclaim time - 3 heartbeat intervals)
    #: (``HEARTBEATS_LEFT_BEFORE_KILLING``); the deadline without a reclaim interval
    kill_at: float = 0.0

    def due(self, now: float, interval: float | None) -> bool:
        """Whether tasks are killed for it now: 0.19 ``reclaimCapacity``'s ``whenToKill <
        currentTime + RECLAIM_CAPACITY_INTERVAL`` with a reclaim interval (the kill comes before
        the next run of the reclaim thread would be too late); without one, once the deadline
        has passed."""
        if interval is None:
            return self.deadline <= now
        return self.kill_at < now + interval


@define(eq=False)
class _KindState:
    """Per slot kind: capacities in slots and the reclaim requests."""

    slots: float = -1.0
    guarantee: dict[str, int] = field(factory=dict)
    maximum: dict[str, float] = field(factory=dict)
    #: requests still owed, oldest first (Hadoop ``reclaimList``)
    waiting: dict[str, deque[Reclaim]] = field(factory=dict)
    #: requests paid off, kept until their deadline (Hadoop ``reclaimExpireList``)
    settled: dict[str, deque[Reclaim]] = field(factory=dict)
    #: slots asked for by the requests of both lists (Hadoop ``numReclaimedResources``)
    reclaimed: dict[str, int] = field(factory=dict)


def allocate(guarantees: Sequence[float], caps: Sequence[float], capacity: float) -> list[float]:
    """Allocated capacities: weighted max-min fairness with weight = minimum
    share = guarantee and ``caps`` (demand, maximum capacity), solved exactly.

    This is :func:`corescheduler.compute_fair_shares` for these items: with
    weight and minimum share both ``g``, an item's share for a ratio R is
    ``min(g × max(R, 1), cap)``, so water-filling in order of ``cap / g``
    finds R exactly (the bisection would give 40.0000012 for 40).  Items with
    no guarantee get nothing; the guarantees add up to at most ``capacity``.
    """
    shares = [0.0] * len(guarantees)
    target = min(capacity, sum(c for g, c in zip(guarantees, caps) if g > 0))
    live = sorted((i for i, g in enumerate(guarantees) if g > 0), key=lambda i: caps[i] / guarantees[i])
    left = target
    weight = float(sum(guarantees[i] for i in live))
    for n, i in enumerate(live):
        g, cap = guarantees[i], caps[i]
        if cap * weight <= g * left:  # saturates before the rest: it gets its cap
            shares[i] = float(cap)
            left -= cap
            weight -= g
        else:  # every item from here on shares what is left in the ratio of guarantees
            for j in live[n:]:
                shares[j] = max(float(min(guarantees[j], caps[j])), guarantees[j] * left / weight)
            break
    return shares


class CapacityScheduler(SharePolicy):
    """Guaranteed queue capacities, lending, reclaim and user limits.

    :param settings: the ``[plugins.capacity]`` table (see :func:`read_config`).
    :param context: the plugin context; its config's source locates
        ``config_file`` and its ``[scheduler] preemption`` turns reclaim on.
    """

    def __init__(self, settings: Mapping[str, Any] | None = None, context: Any = None) -> None:
        config = getattr(context, "config", None)
        base = None
        source = getattr(config, "source", None)
        if source and not source.startswith("<"):
            base = Path(source).parent
        scheduler = getattr(config, "scheduler", None)
        self.config = read_config(settings, base, getattr(scheduler, "mode", "slots"))
        self.preemption = bool(getattr(scheduler, "preemption", True))
        # the engine's calculator of the primary measure (slots; memory), also when capacity
        # serves only as a PoolResolver (initialize() is called for a share policy only)
        self.calc = calculators(getattr(scheduler, "mode", "slots"))[PRIMARY]
        self._mem_by_user: dict[str, Counter[Any]] = {}  # queue -> user -> memory of running containers
        self._queue_mem: Counter[str] = Counter()  # queue -> memory of running containers
        self._kinds: dict[str, _KindState] = {k: _KindState() for k in KINDS}  # + "resources" on first use
        self._pools: dict[str, Pool] = {}
        self._jobs_by_user: dict[str, Counter[Any]] = {}
        self._user_running: dict[tuple[str, str], Counter[Any]] = {}
        self._cluster = getattr(config, "cluster", None)
        #: ``getNextHeartbeatInterval()`` of the configured cluster, for a request's ``whenToKill``
        cluster = self._cluster
        self._heartbeat = cluster.next_heartbeat_interval(cluster.nodes) if cluster is not None else 3.0
        #: the guarantees divide the cluster's slots only as the root share policy
        self._root_policy = getattr(scheduler, "share_policy", None) == NAME

    def settings_warnings(self, nodes: int | None = None) -> list[str]:
        """What ``check``, ``simulate`` and ``serve`` print as warnings about these settings
        (an optional plugin method, see docs/plugin-authors.md): what the ``config_file``
        reader took as Hadoop takes it, and, in slot mode with capacity the root share policy,
        each queue that gets no slot of a kind on a cluster of ``nodes`` nodes (default:
        ``[cluster]``'s) with ``[cluster]``'s slots per node (:func:`zero_guarantee_warnings`)."""
        warnings = list(self.config.warnings)
        cluster = self._cluster
        if self.calc.lineage != YARN and cluster is not None and self._root_policy:
            count = cluster.nodes if nodes is None else nodes
            per_node = {MAP: cluster.map_slots, REDUCE: cluster.reduce_slots}
            warnings += zero_guarantee_warnings(self.config, count, per_node)
        return warnings

    # ------------------------------------------------------------------ queries (reports, tests)
    def guarantee(self, queue: str, kind: str) -> int:
        """The queue's guaranteed capacity in slots of ``kind`` (0 if unconfigured)."""
        return self._state(kind).guarantee.get(queue, 0)

    def maximum(self, queue: str, kind: str) -> float:
        """The queue's maximum capacity in slots of ``kind`` (``inf`` if none)."""
        return self._state(kind).maximum.get(queue, math.inf)

    def reclaims(self, kind: str) -> list[Reclaim]:
        """The reclaim requests still owed for ``kind``, oldest first per queue."""
        return [r for q in sorted(self._kinds[kind].waiting) for r in self._kinds[kind].waiting[q]]

    def user_limit(self, queue: str, kind: str) -> int | None:
        """Tasks of ``kind`` a user may run in ``queue`` before being deferred
        (Hadoop ``isUserOverLimit``), or None if the queue has no pool yet."""
        pool = self._pools.get(queue)
        if pool is None:
            return None
        return self._limit(queue, pool.sched[kind], kind)

    # ------------------------------------------------------------------ capacities
    @property
    def _yarn(self) -> bool:
        """User limits and reclaim by YARN's rules (``LeafQueue``: memory, the request's size;
        reclaim is the engine's preemption) rather than Hadoop 1's (tasks, ``reclaimCapacity``)."""
        return self.calc.lineage == YARN

    def _state(self, kind: str) -> _KindState:
        st = self._kinds.get(kind)
        if st is None:
            st = self._kinds[kind] = _KindState()
        return st

    def _capacities(self, kind: str, slots: float) -> _KindState:
        st = self._state(kind)
        if slots != st.slots:  # Hadoop recomputes capacities when the cluster's slots change
            st.slots = slots
            st.guarantee = {name: slots_of(q.capacity(kind), slots) for name, q in self.config.queues.items()}
            st.maximum = {
                name: float(slots_of(q.maximum_capacity, slots))
                for name, q in self.config.queues.items()
                if q.maximum_capacity is not None
            }
        return st

    def _guarantee_of(self, queue: str, sched: Schedulable, kind: str) -> int:
        g = self._state(kind).guarantee.get(queue)
        if g is None:  # capacity is only this pool's policy (root is another): use the pool's share
            share = sched.fair_share
            g = math.floor(self.calc.measure(share) + _EPS) if share else 0
        return g

    # ------------------------------------------------------------------ PoolResolver
    @hookimpl
    def cs_resolve_pool(self, job: JobSpec) -> str | Rejection:
        """The job's queue: the one it names, ``default`` when it names none;
        an unknown queue is rejected (Hadoop rejects submission to a queue
        that does not exist)."""
        requested = job.property("queue.name")
        queues = self.config.queues
        if not requested:
            if DEFAULT_QUEUE in queues:
                return DEFAULT_QUEUE
            return Rejection(f"[plugins.capacity]: the job names no queue and there is no {DEFAULT_QUEUE!r} queue; "
                             f"configured queues: {', '.join(queues)}")
        if requested in queues:
            return str(requested)
        return Rejection(f"[plugins.capacity]: queue {requested!r} does not exist; "
                         f"configured queues: {', '.join(queues)}")

    @hookimpl
    def cs_known_pools(self) -> list[str]:
        """Every configured queue exists from the start (shown by ``shares`` and
        the simulator's timeline before its first job), as in Hadoop, where the
        queues come from the configuration."""
        return list(self.config.queues)

    # ------------------------------------------------------------------ SharePolicy
    @hookimpl
    def cs_share_policy(self) -> SharePolicy:
        return self

    def compute_shares(self, schedulables: Sequence[Schedulable], total: Any, steady: bool) -> list[Any]:
        """The queues' allocated capacities (:func:`allocate`) in the primary measure (slots of
        the kind; memory); apps in a queue are served in order, with no share of their own."""
        if not schedulables:
            return []
        if isinstance(schedulables[0].owner, Job):
            return [None] * len(schedulables)  # jobs in a queue are served in order; no share of their own
        measure = self.calc.measure
        amount = measure(total)
        st = self._capacities(schedulables[0].kind, amount)
        queues = [self._queue(s.name) for s in schedulables]
        guarantees = [float(st.guarantee.get(q, 0)) for q in queues]
        caps = [
            float(min(measure(s.max_share), st.maximum.get(q, math.inf),
                      math.inf if steady else measure(s.demand) if s.active else 0.0))
            for s, q in zip(schedulables, queues)
        ]
        return list(map(self.calc.of_measure, allocate(guarantees, caps, float(amount))))

    def order_key(self, s: Schedulable) -> tuple[Any, ...]:
        owner = s.owner
        if isinstance(owner, Job):
            # 0.19 getTaskFromQueue: the queue's running jobs (a task launched) before
            # its waiting ones, each by priority (if the queue supports it) then start
            queue = self.config.queues.get(self._queue(owner.pool))
            priority = s.priority if queue is not None and queue.supports_priority else 0
            return (0 if owner.first_launch is not None else 1, priority, s.start_time, s.name)
        # 0.19 QueueComparator: running / guaranteed capacity, lowest first
        name = self._queue(s.name)
        guarantee = self._guarantee_of(name, s, s.kind)
        running = self.calc.measure(s.running)
        if running >= self._state(s.kind).maximum.get(name, math.inf):
            tier = 2
        elif guarantee > 0:
            tier = 0
        else:
            tier = 1
        return (tier, running / guarantee if guarantee > 0 else float(running), s.name)

    def next_kind(self, node: Node) -> str:
        """0.19/0.20 ``CapacityTaskScheduler.assignTasks``: reduces first only
        when the node has more free reduce slots than free map slots."""
        free_map = node.slots[MAP] - node.running[MAP]
        free_reduce = node.slots[REDUCE] - node.running[REDUCE]
        return REDUCE if free_reduce > free_map else MAP

    def _limit(self, queue: str, sched: Schedulable, kind: str) -> int:
        g = self._guarantee_of(queue, sched, kind)
        running = sched.running
        current = g if running < g else running + 1
        users = len(self._jobs_by_user.get(queue) or ()) or 1
        conf = self.config.queues.get(queue)
        percent = conf.minimum_user_limit_percent if conf is not None else DEFAULT_MIN_USER_LIMIT_PERCENT
        return max(math.ceil(current / users), math.ceil(percent * current / 100.0 - _EPS))

    def admit_job(self, job: Job, kind: str, now: float) -> bool | Rejection | None:
        if self._yarn:
            return self._admit_resources(job, kind)
        pool = self._pools.get(job.pool)
        if pool is None:
            return None
        sched = pool.sched[kind]
        if self._kinds[kind].guarantee.get(job.pool, 1) <= 0:  # 0.19: guaranteedCapacity <= 0 -> no task
            return Rejection(f"queue {job.pool!r} has no guaranteed capacity of {kind} slots")
        if sched.running >= self.maximum(job.pool, kind):
            return Rejection(f"queue {job.pool!r} is at its maximum capacity")
        mine = self._user_running.get((job.pool, kind), {}).get(job.user, 0)
        conf = self.config.queues.get(job.pool)
        if conf is not None and conf.user_limit_factor is not None:
            if mine + 1 > conf.user_limit_factor * self._guarantee_of(job.pool, sched, kind) + _EPS:
                return Rejection(f"user {job.user!r} is at user_limit_factor × the queue's capacity")
        if mine >= self._limit(job.pool, sched, kind):
            return DEFER
        return None

    # ------------------------------------------------------------------ reclaim
    def _check(self, kind: str, now: float) -> None:
        """Hadoop 0.19 ``reclaimCapacity`` minus the kill: retire and expire
        requests, and file new ones."""
        st = self._kinds[kind]
        if st.slots < 0:
            return  # not the root policy (or before the first update)
        interval = self.config.reclaim_interval
        scheds = {name: pool.sched[kind] for name, pool in self._pools.items()}
        someone_over = any(s.running > st.guarantee.get(name, 0) for name, s in scheds.items())
        for name, queue in self.config.queues.items():
            g = st.guarantee[name]
            if g <= 0:
                continue
            s = scheds.get(name)
            running = s.running if s is not None else 0
            waiting_tasks = max(0, s.demand - s.running) if s is not None else 0
            lacking = max(0, min(g - running, waiting_tasks))
            owed = st.waiting.get(name)
            if owed and lacking == 0:  # expired requests of a queue that lacks nothing any more kill nothing
                while owed and owed[0].due(now, interval):
                    st.settled.setdefault(name, deque()).append(owed.popleft())
            settled = st.settled.get(name)
            while settled and settled[0].deadline <= now:
                st.reclaimed[name] -= settled.popleft().amount
            if not someone_over or running >= g:
                continue
            asked = st.reclaimed.get(name, 0)
            if running + asked < g and waiting_tasks - asked > 0:
                amount = min(g - running - asked, waiting_tasks - asked)
                if interval is None:
                    kill_at = now + queue.reclaim_time
                else:  # CapacityTaskScheduler.reclaimCapacity: whenToKill, never before now
                    kill_at = now + max(0.0, queue.reclaim_time - HEARTBEATS_LEFT_BEFORE_KILLING * self._heartbeat)
                st.waiting.setdefault(name, deque()).append(
                    Reclaim(name, kind, amount, amount, now, now + queue.reclaim_time, kill_at)
                )
                st.reclaimed[name] = asked + amount

    def plan_preemption(self, pools: Sequence[Schedulable], kind: str, now: float) -> PreemptionPlan:
        st = self._kinds[kind]
        for s in pools:
            self._pools.setdefault(s.name, s.owner)
        self._check(kind, now)
        needs: dict[str, int] = {}
        for name, owed in st.waiting.items():
            due = sum(r.left for r in owed if r.due(now, self.config.reclaim_interval))
            if due:
                pool = self._pools.get(name)
                s = pool.sched[kind] if pool is not None else None
                g = st.guarantee.get(name, 0)
                lacking = max(0, min(g - s.running, s.demand - s.running)) if s is not None else 0
                if min(due, lacking):
                    needs[name] = min(due, lacking)
        free = max(0, int(st.slots) - sum(s.running for s in pools))
        count = sum(needs.values()) - free
        if count <= 0:
            return PreemptionPlan(count=0, needs=needs)
        victims = self._victims(pools, kind, count)
        return PreemptionPlan(count=len(victims), victims=tuple(victims), needs=needs)

    def _victims(self, pools: Sequence[Schedulable], kind: str, count: int) -> list[Task]:
        """Hadoop ``killTasks``: from each queue over its guarantee, in
        proportion to how far over it is (``Math.round``); then
        ``killTasksFromQueue``: jobs last-to-first, newest tasks first."""
        st = self._kinds[kind]
        over = {s.name: s.running - st.guarantee.get(s.name, 0) for s in pools}
        over = {name: n for name, n in over.items() if n > 0}
        if not over:
            return []
        total = sum(over.values())
        count = min(count, total)
        take = {name: min(n, java_round(n * count / total)) for name, n in over.items()}
        by_pool = {s.name: s for s in pools}

        def most_over(name: str) -> tuple[float, str]:
            g = st.guarantee.get(name, 0)
            return (-(over[name] / g) if g > 0 else -math.inf, name)

        order = sorted(over, key=most_over)
        short = count - sum(take.values())
        while short > 0:  # Hadoop's rounding can fall short; take the rest from the queues most over
            for name in order:
                if short > 0 and take[name] < over[name]:
                    take[name] += 1
                    short -= 1
        victims: list[Task] = []
        for name in order:
            pool = by_pool[name].owner
            wanted = take[name]
            jobs = sorted(pool.jobs.values(), key=lambda j: self.order_key(j.sched[kind]), reverse=True)
            for job in jobs:
                if wanted <= 0:
                    break
                running = [t for t in job.tasks[kind] if t.state == RUNNING]
                running.sort(key=lambda t: t.launch_seq, reverse=True)
                chosen = running[:wanted]
                victims.extend(chosen)
                wanted -= len(chosen)
        return victims

    # ------------------------------------------------------------------ YARN's user limits
    def _queue(self, name: str) -> str:
        """A queue's configured name: itself, or ``root.NAME`` → ``NAME`` (YARN's full names)."""
        if name in self.config.queues or not name.startswith("root."):
            return name
        return name[5:]

    def _admit_resources(self, job: Job, kind: str) -> bool | Rejection | None:
        """YARN ``LeafQueue.computeUserLimit`` / ``canAssignToUser`` in memory: the queue's current
        capacity is its guarantee while it uses less, else what it uses plus the request; a user's
        limit is max(⌈current / active users⌉, ⌈minimum_user_limit_percent × current / 100⌉), at most
        ``user_limit_factor`` × the guarantee; a user at or over it waits for the others."""
        queue = self._queue(job.pool)
        st = self._state(kind)
        if st.slots <= 0:
            return None
        conf = self.config.queues.get(queue)
        if conf is None:
            return None
        guarantee = st.guarantee.get(queue, 0)
        used = self._queue_mem.get(queue, 0)
        if guarantee <= 0:
            return Rejection(f"queue {queue!r} has no guaranteed capacity")
        if used >= st.maximum.get(queue, math.inf):
            return Rejection(f"queue {queue!r} is at its maximum capacity")
        size = job.spec.task_resources
        if size is None:
            sizes = [ts.resources for ts in (*job.spec.tasks, *job.spec.maps) if ts.resources is not None]
            size = sizes[0] if sizes else None
        required = size.memory if size is not None else 0
        current = guarantee if used < guarantee else used + required
        users = len(self._jobs_by_user.get(queue) or ()) or 1
        limit = max(math.ceil(current / users), math.ceil(conf.minimum_user_limit_percent * current / 100.0 - _EPS))
        if conf.user_limit_factor is not None:
            limit = min(limit, int(conf.user_limit_factor * guarantee))
        mine = self._mem_by_user.get(queue, {}).get(job.user, 0)
        if mine >= limit:
            return DEFER
        return None

    # ------------------------------------------------------------------ notifications
    @hookimpl
    def cs_job_added(self, job: Job) -> None:
        self._jobs_by_user.setdefault(self._queue(job.pool), Counter())[job.user] += 1

    @hookimpl
    def cs_job_removed(self, job: Job) -> None:
        users = self._jobs_by_user.get(self._queue(job.pool))
        if users is not None and users.get(job.user, 0) > 0:
            users[job.user] -= 1
            if users[job.user] <= 0:
                del users[job.user]

    @hookimpl
    def cs_job_moved(self, job: Job, source: str, tasks: Sequence[Task]) -> None:
        """An admin moved ``job`` (resource mode: its app count and its running containers'
        memory follow it to its new queue, as YARN's ``detachContainer`` / ``attachContainer``;
        slot mode: the update that follows recounts)."""
        if not self._yarn:
            return
        old, new = self._queue(str(source)), self._queue(job.pool)
        users = self._jobs_by_user.get(old)
        if users is not None and users.get(job.user, 0) > 0:
            users[job.user] -= 1
            if users[job.user] <= 0:
                del users[job.user]
        self._jobs_by_user.setdefault(new, Counter())[job.user] += 1
        memory = sum(t.resources.memory for t in tasks if t.resources is not None)
        self._mem_by_user.setdefault(old, Counter())[job.user] -= memory
        self._mem_by_user.setdefault(new, Counter())[job.user] += memory
        self._queue_mem[old] -= memory
        self._queue_mem[new] += memory

    @hookimpl
    def cs_update(self, pools: Sequence[Pool], now: float) -> None:
        if self._yarn:
            return  # counts are kept by the notifications; reclaim is the scheduler's YARN preemption
        self._pools = {p.name: p for p in pools}
        jobs_by_user: dict[str, Counter[Any]] = {}
        user_running: dict[tuple[str, str], Counter[Any]] = {}
        for pool in pools:
            if not pool.jobs:
                continue
            users: Counter[Any] = Counter()
            running = {MAP: Counter(), REDUCE: Counter()}
            for job in pool.jobs.values():
                users[job.user] += 1
                for kind in KINDS:
                    if job.running[kind]:
                        running[kind][job.user] += job.running[kind]
            jobs_by_user[pool.name] = users
            for kind in KINDS:
                user_running[(pool.name, kind)] = running[kind]
        self._jobs_by_user = jobs_by_user
        self._user_running = user_running
        if self.preemption and self.config.reclaim_interval is None:
            # with a reclaim interval, requests are filed by the reclaim thread's runs alone (the
            # preemption checks), as 0.19's reclaimCapacity files them: their timers start there
            for kind in KINDS:
                self._check(kind, now)

    def _count(self, task: Task, delta: int) -> None:
        job = task.job
        if self._yarn:
            memory = (task.resources.memory if task.resources is not None else 0) * delta
            queue = self._queue(job.pool)
            self._mem_by_user.setdefault(queue, Counter())[job.user] += memory
            self._queue_mem[queue] += memory
            return
        counts = self._user_running.setdefault((job.pool, task.kind), Counter())
        counts[job.user] += delta

    @hookimpl
    def cs_task_started(self, task: Task) -> None:
        self._count(task, +1)
        if self._yarn:
            return
        st = self._kinds[task.kind]
        owed = st.waiting.get(task.job.pool)
        if owed:  # Hadoop updateReclaimedResources: the oldest request gets one slot back
            first = owed[0]
            first.left -= 1
            if first.left <= 0:
                st.settled.setdefault(first.queue, deque()).append(owed.popleft())

    @hookimpl
    def cs_task_finished(self, task: Task) -> None:
        self._count(task, -1)

    @hookimpl
    def cs_task_preempted(self, task: Task) -> None:
        self._count(task, -1)
