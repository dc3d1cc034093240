"""The live queue tree of resource mode: YARN's ``QueueManager`` and ``FSQueue``s.

:class:`Queue` is one queue as the scheduler runs it — its children or its
apps (runnable and waiting), what it uses, its demand, its shares, as a
resource-mode :class:`~corescheduler.core.model.Schedulable` (``sched``) the
share policies read — and :class:`QueueTree` keeps them: the configured queues
of the allocation file (:class:`~corescheduler.core.queues.QueueConfig`) plus
the ones created when an app is placed in a queue that does not exist.

Rules (YARN trunk ``QueueManager``): every name is under ``root``
(``ensureRootPrefix``); each part of a name must be non-empty and have no
surrounding white space; a queue is created with its missing ancestors (as
parents) only if the deepest existing one is a parent, its policy may have
such a child (``fifo`` only on leaves; no ``drf`` under ``fair``:
``isChildPolicyAllowed``) — otherwise there is no such leaf.  Created
(*dynamic*) queues take the file-wide defaults and, directly under a parent
with ``maxChildResources``, that as their max resources; they are removed
once empty (``removeEmptyDynamicQueues``).  ``root.default`` always exists.
On reload, configured queues are created or re-configured (an empty queue
whose type changed is replaced), queues the file no longer names become
dynamic, and settings are re-read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from corescheduler.core.model import RESOURCES, Job, Schedulable
from corescheduler.core.order import KeyedOrder
from corescheduler.core.queues import ROOT, QueueConfig, full_queue_name, parent_name, trim_queue_name
from corescheduler.core.resources import Resources

__all__ = ["NO_RESERVATION", "Queue", "QueueTree", "valid_queue_name"]

#: ``Queue.reserved`` when no reservation counts there (tested with ``is``)
NO_RESERVATION = Resources()


def valid_queue_name(name: str) -> str | None:
    """None if every part of ``name`` is valid (``QueueManager.isQueueNameValid``), else why not."""
    for offset, part in enumerate(name.split(".")):
        if not part or part != trim_queue_name(part):
            return f"Illegal node name at offset {offset} for queue name {name}"
    return None


class Queue:
    """One live queue (YARN ``FSParentQueue`` / ``FSLeafQueue``)."""

    __slots__ = (
        "admit_memory",
        "admit_until",
        "admit_vcores",
        "am_usage",
        "app_scheds",
        "child_scheds",
        "children",
        "dynamic",
        "is_leaf",
        "max_am_share",
        "max_running_apps",
        "name",
        "num_runnable",
        "order",
        "parent",
        "policy",
        "reserved",
        "reserved_by_user",
        "runnable_apps",
        "sched",
        "user_apps",
        "waiting_apps",
    )

    def __init__(self, name: str, parent: Queue | None, is_leaf: bool, dynamic: bool) -> None:
        self.name = name
        self.parent = parent
        self.children: dict[str, Queue] = {}
        #: the children's schedulables, in ``children``'s order (kept by the tree)
        self.child_scheds: list[Schedulable] = []
        self.is_leaf = is_leaf
        self.dynamic = dynamic
        self.policy = "fair"
        self.sched: Schedulable[Resources, Queue] = Schedulable(
            name=name, kind=RESOURCES, owner=self, min_share=Resources(), max_share=Resources.unbounded(),
            demand=Resources(), running=Resources(), fair_share=Resources(), start_time=0.0,
        )
        self.sched.steady_share = Resources()
        self.sched.active = False
        #: leaf: runnable apps in the order they became runnable; waiting (not runnable) apps in start order
        self.runnable_apps: list[Job] = []
        #: leaf: the runnable apps' schedulables, in ``runnable_apps``' order
        self.app_scheds: list[Schedulable] = []
        self.waiting_apps: list[Job] = []
        #: runnable apps in this queue and below (a leaf: ``len(runnable_apps)``)
        self.num_runnable = 0
        #: leaf: what its apps' AM containers use (``FSLeafQueue.amResourceUsage``)
        self.am_usage = Resources()
        #: what reservations on nodes hold for apps in this queue and below (kept by the engine;
        #: ``NO_RESERVATION`` itself when nothing)
        self.reserved = NO_RESERVATION
        #: leaf: ``reserved`` by the user of the app holding each reservation
        self.reserved_by_user: dict[Any, Resources] = {}
        self.max_running_apps = 2**31 - 1
        self.max_am_share = 0.5
        #: apps placed here and not yet removed (YARN's assigned apps: keep a new queue alive)
        self.user_apps = 0
        #: the assignment order: a parent's children with something to offer, a leaf's
        #: runnable apps with pending asks, sorted by this queue's policy's order key
        self.order = KeyedOrder()
        #: leaf, the engine's: its policy's ``SharePolicy.admit_leaf`` answer in force (the use up
        #: to which every app is admitted: ``admit_memory``, ``admit_vcores`` and, with extra
        #: resource types, the answer itself), the engine's "ask per app" mark, or None (ask again)
        self.admit_until: Any = None
        self.admit_memory = 0
        self.admit_vcores = 0

    # ------------------------------------------------------------------ reading
    @property
    def usage(self) -> Resources:
        return self.sched.running

    @property
    def is_active(self) -> bool:
        """``FSQueue.isActive``: it (or a queue below it) has a runnable app."""
        return self.num_runnable > 0

    def is_empty(self) -> bool:
        """No apps here or below (``FSQueue.isEmpty``)."""
        if self.is_leaf:
            return not self.runnable_apps and not self.waiting_apps and self.user_apps == 0
        return all(c.is_empty() for c in self.children.values())

    def fits_max_shares(self, size: Resources) -> bool:
        """``FSQueue.fitsInMaxShare``: with ``size`` more, this queue and every ancestor stay
        within their max share (the Capacity Scheduler's maximum capacities)."""
        q: Queue | None = self
        while q is not None:
            s = q.sched
            if not s.running.fits_with(size, s.max_share):
                return False
            q = q.parent
        return True

    def fits_max_memory(self, size: Resources) -> bool:
        """:meth:`fits_max_shares` by memory alone (YARN's ``DefaultResourceCalculator``)."""
        q: Queue | None = self
        memory = size.memory
        while q is not None:
            s = q.sched
            if s.running.memory + memory > s.max_share.memory:
                return False
            q = q.parent
        return True

    def ancestors(self) -> Iterator[Queue]:
        q = self.parent
        while q is not None:
            yield q
            q = q.parent

    def __repr__(self) -> str:
        return f"Queue({self.name!r}, {'leaf' if self.is_leaf else 'parent'}{', dynamic' if self.dynamic else ''})"


class QueueTree:
    """The live queues of resource mode (YARN ``QueueManager``)."""

    def __init__(
        self, config: QueueConfig, cluster: Resources, fallback_policy: str | None = None, known: Iterable[str] = (),
        child_allowed: Callable[[str, str, bool], bool] | None = None,
    ) -> None:
        self.config = config
        #: may a queue of policy (arg 1) have a child (a leaf: arg 3) of policy (arg 2)?  The
        #: parent's ``SharePolicy.allows_child`` and the child's ``leaf_only``, asked by the
        #: engine (which knows the policies); None allows every pair
        self.child_allowed = child_allowed
        self.cluster = cluster
        #: the policy of a queue the allocation file gives none (the scheduler's ``share_policy``)
        self.fallback_policy = fallback_policy
        #: leaves a PoolResolver configures itself (``cs_known_pools``): they always exist
        self.known: tuple[str, ...] = tuple(known)
        self.root = Queue(ROOT, None, is_leaf=False, dynamic=False)
        self.queues: dict[str, Queue] = {ROOT: self.root}
        #: every queue's type, ``"leaf"`` or ``"parent"``, kept with ``queues`` (what placement reads)
        self.kinds: dict[str, str] = {ROOT: "parent"}
        #: configured queues whose type changed while they had apps: retried when they are empty
        self.pending_changes: list[str] = []
        #: counts changes to the tree: queues created or removed, settings (re)applied
        self.version = 0
        self.reconfigure(config)

    # ------------------------------------------------------------------ lookups
    def get(self, name: str) -> Queue | None:
        return self.queues.get(full_queue_name(name))

    def leaves(self) -> list[Queue]:
        return [q for q in self.walk() if q.is_leaf]

    def walk(self, start: Queue | None = None) -> Iterator[Queue]:
        """``start`` (default root) and every queue below it, depth first in creation order."""
        stack = [start or self.root]
        while stack:
            q = stack.pop()
            yield q
            stack.extend(reversed(list(q.children.values())))

    # ------------------------------------------------------------------ creation
    def leaf(self, name: str, create: bool = True) -> Queue | None:
        """The leaf ``name`` (``QueueManager.getLeafQueue``): created with its missing
        ancestors if ``create``; None if it is a parent or cannot be created here."""
        full = full_queue_name(name)
        q = self.queues.get(full)
        if q is not None:
            return q if q.is_leaf else None
        if not create:
            return None
        return self._create(full, leaf=True, dynamic=True)

    def _create(self, full: str, leaf: bool, dynamic: bool) -> Queue | None:
        """``QueueManager.createQueue``: None where YARN's returns null."""
        if valid_queue_name(full) is not None:
            return None
        missing = []
        current: str | None = full
        while current is not None and current not in self.queues:
            missing.append(current)
            current = parent_name(current)
        if current is None:
            return None  # not under root
        parent = self.queues[current]
        if parent.is_leaf:
            return None  # nothing can be created under a leaf
        if dynamic and any(self.config.spec(a).reservation for a in (current, *self.config.ancestors(current))):
            return None  # under a reservation (plan) queue: YARN's reservation system, not supported
        created = None
        for i, name in enumerate(reversed(missing)):
            is_leaf = leaf and i == len(missing) - 1
            policy = self.config.scheduling_policy(name, self.fallback_policy)
            if self.child_allowed is not None and not self.child_allowed(parent.policy, policy, is_leaf):
                return None
            created = Queue(name, parent, is_leaf=is_leaf, dynamic=dynamic)
            parent.children[name] = created
            parent.child_scheds.append(created.sched)
            self.version += 1
            self.queues[name] = created
            self.kinds[name] = "leaf" if is_leaf else "parent"
            self._configure(created)
            parent = created
        return created

    def reconfigure(
        self, config: QueueConfig, cluster: Resources | None = None, known: Iterable[str] | None = None
    ) -> None:
        """Put a (re)loaded allocation file in force (``QueueManager.updateAllocationConfiguration``)."""
        self.config = config
        if known is not None:
            self.known = tuple(known)
        if cluster is not None:
            self.cluster = cluster
        for q in self.queues.values():  # policies first: they decide which children may be created
            self._configure(q)
        configured = [s for _, s in config.walk() if s.name != ROOT]
        wanted = {s.name for s in configured}
        self.pending_changes = []
        for spec in configured:  # parents before children: walk() is top-down
            is_leaf = spec.is_leaf and not spec.children
            existing = self.queues.get(spec.name)
            if existing is not None and existing.is_leaf != is_leaf:
                if not existing.is_empty():
                    self.pending_changes.append(spec.name)  # YARN retries (removePendingIncompatibleQueues)
                    continue
                self._remove(existing)
                existing = None
            if existing is None:
                existing = self._create(spec.name, leaf=is_leaf, dynamic=False)
                if existing is None:
                    continue
            existing.dynamic = False
        keep = {f"{ROOT}.default", *map(full_queue_name, self.known)}
        for q in list(self.queues.values()):
            if q is not self.root and q.name not in wanted and q.name not in keep:
                q.dynamic = True
        for name in (f"{ROOT}.default", *map(full_queue_name, self.known)):
            if name not in self.queues:
                self._create(name, leaf=True, dynamic=False)
            else:
                self.queues[name].dynamic = False
        for q in self.queues.values():
            self._configure(q)
        self.version += 1

    def _configure(self, q: Queue) -> None:
        """A queue's effective settings (``AllocationConfiguration.initFSQueue``)."""
        config = self.config
        s = q.sched
        q.policy = config.scheduling_policy(q.name, self.fallback_policy)
        s.weight = config.weight(q.name)
        s.min_share = config.min_resources(q.name)
        maximum = config.max_resources(q.name, self.cluster)
        if q.dynamic and q.parent is not None and q.name not in config.queues:
            child_max = config.spec(q.parent.name).max_child_resources
            if child_max is not None:  # QueueManager.setChildResourceLimits
                maximum = child_max.resolve(self.cluster)
        s.max_share = maximum.componentwise_max(s.min_share)  # FSQueue.getMaxShare
        s.cluster = self.cluster
        q.max_running_apps = config.max_running_apps(q.name)
        q.max_am_share = config.max_am_share(q.name)

    def _remove(self, q: Queue) -> None:
        for child in list(q.children.values()):
            self._remove(child)
        if q.parent is not None:
            q.parent.children.pop(q.name, None)
            q.parent.child_scheds = [c.sched for c in q.parent.children.values()]
        self.version += 1
        self.queues.pop(q.name, None)
        self.kinds.pop(q.name, None)

    def remove_empty_dynamic(self) -> list[str]:
        """Remove dynamic queues with no apps (and dynamic parents left empty); their names."""
        removed = []
        changed = True
        while changed:
            changed = False
            for q in list(self.queues.values()):
                if q is self.root or not q.dynamic or q.children or not q.is_empty():
                    continue
                self._remove(q)
                removed.append(q.name)
                changed = True
        return removed

    def set_cluster(self, cluster: Resources) -> None:
        """The cluster's resources changed (a node joined or left): percentages re-resolve."""
        self.cluster = cluster
        for q in self.queues.values():
            self._configure(q)
        self.version += 1
