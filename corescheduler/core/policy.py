"""The share-policy contract: one object per policy, as Hadoop's ``SchedulingPolicy``.

A share policy orders schedulables (pools and jobs; YARN's queues and apps), divides a
parent's share among them (instantaneous and steady shares), may plan preemption, admit
jobs and choose a heartbeat's slot kind, and says which policies its children may have.
A plugin supplies it through the ``cs_share_policy`` hook
(:func:`corescheduler.hookspecs.cs_share_policy`); a plugin class may subclass
:class:`SharePolicy` and return ``self``.

The same policy runs in slot mode (Hadoop 1) and resource mode (YARN): it computes
through :attr:`SharePolicy.calc`, the engine's calculator of the measure the policy
chose (:attr:`SharePolicy.measure`: the primary measure — slots, or memory — or the
dominant share), so no policy tests the engine's mode.  The schedulables it sees are
:class:`~corescheduler.core.model.Schedulable`; :class:`SlotSchedulable` and
:class:`ResourceSchedulable` are their typed views in each mode.

Hadoop: ``SchedulingPolicy`` (``getComparator``, ``computeShares``,
``computeSteadyShares``, ``checkIfUsageOverFairShare``, ``isChildPolicyAllowed``,
``getApplicableDepth``, ``getResourceCalculator``, ``initialize``).  ``getHeadroom`` has
no counterpart: it serves YARN's allocate response to application masters, which no
engine here has.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

from corescheduler.core.calculator import DOMINANT, ENGINE_CALCULATORS, MEASURES, PRIMARY, Calculator

if TYPE_CHECKING:
    from corescheduler.core.hints import Hint
    from corescheduler.core.model import Job, Node, Pool, PreemptionPlan, Rejection, Schedulable, Task
    from corescheduler.core.queue_tree import Queue
    from corescheduler.core.resources import Resources

__all__ = [
    "DOMINANT",
    "PRIMARY",
    "Calculator",
    "HeartbeatLimits",
    "ResourceSchedulable",
    "SharePolicy",
    "SlotSchedulable",
    "WeightedFairPolicy",
    "calculators",
]


#: a schedulable as slot mode fills it (``kind`` ``"map"`` or ``"reduce"``): counts of slots
#: (ints or floats as given), owned by a job or a pool
SlotSchedulable: TypeAlias = "Schedulable[float, Job | Pool]"
#: a schedulable as resource mode fills it (``kind`` ``"resources"``): Resources, with the
#: cluster's total (``cluster``) and whether a queue is active (YARN ``FSQueue.isActive``);
#: owned by an app or a queue
ResourceSchedulable: TypeAlias = "Schedulable[Resources, Job | Queue]"


def calculators(engine: str) -> dict[str, Calculator]:
    """The calculators of an engine's quantities by measure (``engine``: ``"slots"`` or
    ``"resources"``, ``[scheduler] mode``)."""
    return ENGINE_CALCULATORS[engine]


class HeartbeatLimits(NamedTuple):
    """Resource mode: how many containers one node heartbeat may assign, as the root policy
    rules it (:meth:`SharePolicy.heartbeat_limits`); ``-1``: no limit.  The heartbeat goes on
    assigning until nothing more is assigned, a node is reserved, ``containers`` were
    assigned, or ``off_switch`` of them are off-switch: run off the nodes and racks their
    ask names, or for an ask that names none (YARN ``CapacityScheduler.canAllocateMore``:
    ``maximum-container-assignments``, ``maximum-offswitch-assignments``).  A node's
    reservation fulfilled at the start of the heartbeat does not end it, nor count
    (``CapacityScheduler.allocateContainerOnSingleNode``).  ``min_free``: the least a node
    must have unallocated, in every resource type it names above zero, to be offered to any
    queue at all — before each assignment; None: no such rule (YARN's Capacity Scheduler:
    the minimum allocation, memory alone under ``DefaultResourceCalculator``,
    ``allocateContainerOnSingleNode``'s ``computeAvailableContainers(...) <= 0``)."""

    containers: int = -1
    off_switch: int = -1
    min_free: Resources | None = None


class SharePolicy:
    """Base class of share policies; subclasses implement :meth:`order_key` and
    :meth:`compute_shares` and may override the rest.

    The engine calls :meth:`initialize` once, before any other method; a policy serves
    one scheduler.
    """

    #: the measure the policy shares by: :data:`PRIMARY` (slots; memory) or :data:`DOMINANT`
    #: (the dominant share of the cluster) — YARN's ``getResourceCalculator``
    measure: str = PRIMARY
    #: a policy only for queues without children (YARN ``getApplicableDepth`` =
    #: ``DEPTH_LEAF``, as ``fifo``)
    leaf_only: bool = False
    #: resource mode: an app asking for a resource type its leaf's maximum has none of is
    #: refused at submission (``FairScheduler.addApplication``: "zero amount of resource for a
    #: requested resource"); False: it is taken and waits (the Capacity Scheduler has no such rule)
    refuses_zero_maximum: bool = True
    #: the engine's calculator for :attr:`measure`, set by :meth:`initialize`
    calc: Calculator

    def initialize(self, calcs: dict[str, Calculator]) -> None:
        """Take the engine's calculator of :attr:`measure` (YARN ``initialize(FSContext)``)."""
        self.calc = calcs[self.measure if self.measure in MEASURES else PRIMARY]

    def configure(self, allocations: Any) -> None:
        """The allocations now in force (at start-up and after every reload), for a policy
        that reads settings of its own from the file (``Allocations.policy_config``, e.g. a
        capacity file's capacities).  The engine calls it before the shares are computed;
        raise :class:`~corescheduler.errors.AllocationError` to refuse the file."""

    def choose_victims(self, root: Queue, running: Mapping[str, Task], now: float) -> Sequence[Task] | None:
        """Resource mode, the root queue's policy: a policy that runs its own preemption monitor
        (YARN's ``SchedulingEditPolicy``, e.g. ``ProportionalCapacityPreemptionPolicy``) names
        the running containers to kill now, from the live tree under ``root`` and the running
        tasks by id.  None (the default): the engine's own preemption (the fair scheduler's
        starvation).  Called at most every ``[scheduler] preemption_interval`` while
        ``preemption`` is on; a policy that also answers :meth:`preemption_hint` is called
        instead once its hint's ``until`` has come (its monitor's own pace)."""
        return None

    def report(self) -> Mapping[str, Any] | None:
        """Resource mode, the root queue's policy: top-level keys it adds to ``shares()`` (e.g.
        its preemption monitor's state).  None: nothing to add."""
        return None

    def queue_report(self, queue: Queue, reserved: Resources) -> Mapping[str, Any] | None:
        """Resource mode: keys a policy adds to ``queue``'s entry of ``shares()`` (the
        queue's own policy answers; ``reserved``: what reservations on nodes hold for the
        apps under it).  None: nothing to add."""
        return None

    def job_report(self, job: Job) -> Mapping[str, Any] | None:
        """Resource mode: keys a policy adds to an app's entry of ``shares()`` (its leaf's
        policy answers).  None: nothing to add."""
        return None

    # ------------------------------------------------------------------ required
    def order_key(self, s: Schedulable) -> Any:
        """The sort key of ``s`` among its siblings (YARN ``getComparator``): the smallest
        key is offered a free slot (container) first.  Keys of one policy must compare with
        each other, should end with a unique tie-breaker (``s.name``), and must not be None
        or hold a NaN."""
        raise NotImplementedError(f"{type(self).__name__} does not implement order_key")

    def compute_shares(self, schedulables: Sequence[Schedulable], total: Any, steady: bool) -> Sequence[Any]:
        """One share of ``total`` per schedulable, in order (``computeShares``; ``steady``:
        ``computeSteadyShares``, every queue counts, active or not).  A share is a quantity
        of the engine (a number ≥ 0 in slot mode, Resources in resource mode) or None (not
        applicable, shown n/a).  It must depend only on the schedulables and ``total``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement compute_shares")

    # ------------------------------------------------------------------ optional
    def compute_shares_many(self, groups: Sequence[tuple[Sequence[Schedulable], Any]],
                            steady: bool) -> Sequence[Sequence[Any]]:
        """:meth:`compute_shares` for many ``(schedulables, total)`` groups at once (resource
        mode hands over a tree level's parents that share this policy); only for speed."""
        return [self.compute_shares(scheds, total, steady) for scheds, total in groups]

    def plan_preemption(self, pools: Sequence[Schedulable], kind: str, now: float) -> PreemptionPlan | None:
        """Slot mode, the root policy: which pools are owed tasks of ``kind`` now and which may
        give some (usage over share; YARN ``checkIfUsageOverFairShare``).  None: never preempts."""
        return None

    def preemption_hint(self, pools: Sequence[Schedulable], kind: str, now: float) -> Hint | None:
        """The root policy.  Slot mode: until when :meth:`plan_preemption` finds nothing to
        preempt of ``kind``, with nothing changing but the clock and the starvation times the
        updates move (a question: change nothing).  A :class:`~corescheduler.core.hints.Hint`
        whose ``until`` is the first time a check may find something (early is safe;
        :func:`corescheduler.core.hints.until_starved` for a plan that preempts only for
        starved pools); None: don't know, and engines that skip idle updates run them all
        while tasks wait.  Resource mode, a policy with its own monitor
        (:meth:`choose_victims`): when its next round falls (``pools`` the root's children,
        ``kind`` ``"task"``); the engine calls :meth:`choose_victims` at its first
        preemption check from then on, instead of every ``preemption_interval``."""
        return None

    def admit_job(self, job: Job, kind: str, now: float) -> bool | Rejection | None:
        """May ``job`` be offered a slot of ``kind`` now?  False defers it behind the jobs of
        its pool that are admitted; a Rejection skips it; True or None offers it."""
        return None

    def admit_leaf(self, leaf: Queue, now: float) -> Resources | None:
        """Resource mode, a leaf's policy that has :meth:`admit_job`; only for speed: a use of
        ``leaf`` (its ``sched.running``) up to which :meth:`admit_job` would offer (None) every
        app of ``leaf`` — those in it now and any that join it — while only containers of
        ``leaf`` start: the engine then offers its apps without asking :meth:`admit_job` per
        app, until the leaf's use passes that amount, a container of the leaf ends, the next
        update, or a change of the allocations or of the nodes (then it asks again).  None
        (the default): no such amount, :meth:`admit_job` is asked for each app until one of
        those events.  A policy that overrides it keeps the two in step: an answer here is a
        promise about :meth:`admit_job`'s."""
        return None

    def admit_am(self, leaf: Queue, job: Job, am: Resources) -> bool | None:
        """Resource mode, a leaf's policy: may ``job``'s AM container of size ``am`` start in
        ``leaf`` now (the policy's own AM limits, e.g. the Capacity Scheduler's
        ``LeafQueue.activateApplications``)?  None (the default): the engine's rule, the fair
        scheduler's ``maxAMShare`` (``FSLeafQueue.canRunAppAM``)."""
        return None

    def reservable(self, leaf: Queue, job: Job, size: Resources, node: Node, held: int) -> bool | None:
        """Resource mode, a leaf's policy: may ``job`` reserve ``node`` for a container of
        ``size`` that does not fit it now, holding reservations on ``held`` other nodes
        (the Capacity Scheduler's ``FiCaSchedulerApp.shouldAllocOrReserveNewContainer``)?  An
        answer replaces the engine's rule and its ``reservable_nodes`` cap.  None (the
        default): the engine's rule, the fair scheduler's ``FSAppAttempt.isReservable`` and
        ``reservationExceedsThreshold``."""
        return None

    def unreserve_for(self, leaf: Queue, job: Job, size: Resources, node: Node, priority: int, pending: int,
                      reserved: Mapping[str, tuple[int, Resources]]) -> str | bool | None:
        """Resource mode, a leaf's policy: ``job`` is about to get a new container of ``size``
        at ``priority`` on ``node`` (``pending``: its containers outstanding at that priority,
        this one included) while it holds reservations on other nodes (``reserved``: node name
        -> (the reserved container's priority, its size)) or its leaf's apps hold some
        (``Queue.reserved``, on the leaf and each ancestor).  The answer: a node of
        ``reserved`` to unreserve first, False to give ``job`` nothing on ``node`` now, or
        None / True (the default): allocate, keeping the reservations (the fair scheduler's
        ``FSAppAttempt.assignContainer``).  The Capacity Scheduler's
        ``RegularContainerAllocator.assignContainer`` with
        ``reservations-continue-look-all-nodes`` answers with a node (or False)."""
        return None

    def queue_headroom(self, leaf: Queue, job: Job, size: Resources, reserved: Resources,
                       held_back: Mapping[Queue, Resources]) -> Resources | None:
        """Resource mode, a leaf's policy: ``job``'s container of ``size`` in ``leaf`` cannot be
        allocated as it is (it does not fit the node, or takes a queue past its max share) or
        queues offered before it in this assignment were short of headroom (``held_back``:
        what each parent holds back for them); ``reserved``: what ``job``'s reservations on
        nodes hold.  None (the default): the leaf has the
        headroom for it (the engine goes on: reserve, or allocate).  Resources: it has not —
        the leaf's turn ends and each of its ancestors holds back that much (the leaf's
        headroom, ≥ 0) from the queues offered after it in this assignment (the Capacity
        Scheduler's ``RegularContainerAllocator.checkHeadroom`` and ``ParentQueue``'s
        ``blockedHeadroom``)."""
        return None

    def normalize(self, ask: Resources, minimum: Resources, maximum: Resources,
                  increment: Resources) -> Resources | None:
        """Resource mode, the root queue's policy: a container ask as the scheduler sizes it
        (YARN ``SchedulerUtils.normalizeRequest`` with the scheduler's calculator and
        increment), from ``[cluster]``'s minimum, maximum and increment allocations.  None
        (the default): the engine's rule, every resource type at least its minimum, rounded
        up to its increment, at most its maximum (the fair scheduler's)."""
        return None

    def move_target(self, job: Job, source: Queue, target: str) -> str | Rejection | None:
        """Resource mode, the root queue's policy: an admin moves the live ``job`` from its leaf
        ``source`` to the queue named ``target`` (as the caller wrote it).  The answer: the path
        of the leaf it moves to (``source.name`` itself when ``target`` names its own queue:
        nothing moves), having checked the policy's own rules, or a
        :class:`~corescheduler.core.model.Rejection` whose reason names the rule that refuses
        the move (nothing changes then).  Either replaces the engine's rule.  None (the
        default): the engine's rule, the fair scheduler's (``FairScheduler.moveApplication``:
        the target must be an existing leaf; a runnable app may not take the target or an
        ancestor below the queues' common ancestor past its ``maxRunningApps`` or, with the
        app's current use, past its ``maxResources``).  After the move the engine keeps the
        running-app limits (the app waits when its new leaf's limits are full) and the plugins
        are told (``cs_job_moved``); the Capacity Scheduler's
        ``CapacityScheduler.preValidateMoveApplication`` answers here."""
        return None

    def set_priority(self, job: Job, priority: str, caller: tuple[str, Sequence[str]] | None) -> Rejection | None:
        """Resource mode, the root queue's policy: the live ``job``'s priority is about to become
        ``priority`` (a checked name, ``VERY_LOW`` … ``VERY_HIGH``), asked by ``caller`` (user and
        groups; None: the system, as an undo).  A :class:`~corescheduler.core.model.Rejection`
        refuses the change (the scheduler raises AccessDeniedError with its reason; nothing
        changes); None takes it — the policy may note what the change means to it (the
        Capacity Scheduler's capped application priority), as nothing fails after this."""
        return None

    def next_kind(self, node: Node) -> str | None:
        """Slot mode, the root policy: ``"map"`` or ``"reduce"``, the kind a heartbeat tries
        first on ``node``; None: the core's rule."""
        return None

    def fits_by_memory(self) -> bool:
        """Resource mode, the root queue's policy, read after every :meth:`configure`: True when
        a container fits a node by its memory alone (YARN's ``DefaultResourceCalculator``,
        whose ``computeAvailableContainers`` and ``fitsIn`` count memory only: the Capacity
        Scheduler's default); False (the default): by every resource type."""
        return False

    def heartbeat_limits(self) -> HeartbeatLimits | None:
        """Resource mode, the root queue's policy: its own rule for how many containers a
        node heartbeat assigns (:class:`HeartbeatLimits`), read after every
        :meth:`configure`; None (the default): the engine's (``[scheduler] assign_multiple``,
        ``max_assign``, ``dynamic_max_assign``)."""
        return None

    def allows_child(self, child_policy: str) -> bool:
        """May a child queue have policy ``child_policy`` (YARN ``isChildPolicyAllowed``)?"""
        return not self.leaf_only



class WeightedFairPolicy(SharePolicy):
    """Weighted max-min fair sharing by the policy's :attr:`~SharePolicy.measure`: the
    calculator's share search (``computeFairShares`` / ``ComputeFairShares``) and its fair
    comparator.  ``fair`` (primary measure) and ``drf`` (dominant) are this with their own
    preemption and child rules.

    The engine calls the calculator's functions itself (no forwarding call per order key
    and per share on the update path), unless a subclass changes :meth:`order_key` or
    :meth:`compute_shares`."""

    def initialize(self, calcs: dict[str, Calculator]) -> None:
        super().initialize(calcs)
        cls = type(self)
        if cls.order_key is WeightedFairPolicy.order_key:
            self.order_key = self.calc.fair_order_key  # type: ignore[method-assign]
        if cls.compute_shares is WeightedFairPolicy.compute_shares:
            self.compute_shares = self.calc.fair_shares  # type: ignore[method-assign]

    def order_key(self, s: Schedulable) -> Any:
        return self.calc.fair_order_key(s)

    def compute_shares(self, schedulables: Sequence[Schedulable], total: Any, steady: bool) -> Sequence[Any]:
        return self.calc.fair_shares(schedulables, total, steady)

    def compute_shares_many(self, groups: Sequence[tuple[Sequence[Schedulable], Any]],
                            steady: bool) -> Sequence[Sequence[Any]]:
        return self.calc.fair_shares_many(groups, steady)

#: the optional methods; a policy that keeps the base class's is asked nothing there
OPTIONAL = ("compute_shares_many", "plan_preemption", "preemption_hint", "admit_job", "next_kind")
