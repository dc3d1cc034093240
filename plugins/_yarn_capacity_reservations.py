"""Reservations under the Capacity Scheduler (Hadoop 3.3): a mixin of the ``yarn_capacity``
share policy answering the engine's two reservation questions (``SharePolicy.reservable`` and
``SharePolicy.unreserve_for``).

* Whether an app reserves a node for a container that does not fit it
  (``FiCaSchedulerApp.shouldAllocOrReserveNewContainer``), and not past the leaf's current
  limit or the user's limit with the reservations counted (``canAssignToThisQueue``,
  ``canAssignToUser``).
* With ``reservations-continue-look-all-nodes``, which reservation an app gives back to take
  a container on another node (``RegularContainerAllocator.assignContainer``,
  ``FiCaSchedulerApp.getNodeIdToUnreserve``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from corescheduler.core.model import Job
from corescheduler.resources import Resources

__all__ = ["CapacityReservations"]


class CapacityReservations:
    """The reservation answers of :class:`~corescheduler_plugins.yarn_capacity.YarnCapacityScheduler`
    (its ``conf``, ``_minimum``, ``_dominant``, ``user_limit``, ``user_used``, ``_less`` and
    ``current_limit`` are the policy's)."""

    if TYPE_CHECKING:
        conf: Any
        _minimum: Resources | None
        _dominant: bool

        def user_limit(self, job: Job) -> Resources | None: ...

        def user_used(self, job: Job) -> Resources: ...

        def _less(self, a: Resources, b: Resources) -> bool: ...

        def current_limit(self, queue: Any, held_back: Mapping[Any, Resources] | None = None) -> Resources: ...

    def reservable(self, leaf: Any, job: Job, size: Resources, node: Any, held: int) -> bool | None:
        """``FiCaSchedulerApp.shouldAllocOrReserveNewContainer``: an app reserves a node for a
        container that does not fit it while its outstanding containers outnumber the nodes
        it holds reserved (``(starvation + requiredContainers) - reservedContainers > 0``;
        the re-reservation starvation term is 0 here, and every priority counts together).
        No fair-share condition, threshold or node cap (the fair scheduler's).  A node without
        a minimum allocation free is not scheduled on at all
        (``CapacityScheduler.allocateOrReserveNewContainers``: ``computeAvailableContainers``
        ≤ 0), so it is not reserved."""
        step = self._minimum
        if step is not None and node.capacity is not None:
            free = node.capacity - node.used
            if self._dominant:
                if any(free.get(n) < v for n, v in step.items() if v > 0):
                    return False
            elif free.memory < step.memory:
                return False
        pending = job.pending
        required = sum(pending.values()) if pending else 0
        if required - held <= 0:
            return False
        # canAssignToThisQueue and canAssignToUser with the reservations: a reservation that would
        # pass the leaf's current limit, or of a user beyond its limit with its reservations, is
        # not made (RegularContainerAllocator.assignContainer: needToUnreserve)
        return self._excess(leaf, size) is None and self._user_excess(leaf, job) is None

    def unreserve_for(self, leaf: Any, job: Job, size: Resources, node: Any, priority: int, pending: int,
                      reserved: Mapping[str, tuple[int, Resources]]) -> str | bool | None:
        """``RegularContainerAllocator.assignContainer`` with ``reservations-continue-look-all-nodes``
        (Hadoop's default) for a new container on a node the app has not reserved.  A reserved
        container counts in its queue's use (``LeafQueue.allocateResource``), so the container
        must fit the leaf's current limit with the leaf's reservations
        (``AbstractCSQueue.canAssignToThisQueue``: ``capability - headroom``); and an app that
        should not allocate or reserve one more container at this priority
        (``FiCaSchedulerApp.shouldAllocOrReserveNewContainer``: its outstanding containers there
        no more than its reservations — the container reserved elsewhere is the one it gets
        here) must give back one of the same size.  Either way it unreserves the first of its
        containers at this priority on another node at least that large
        (``FiCaSchedulerApp.getNodeIdToUnreserve``); without one, nothing here
        (``LOCALITY_SKIPPED``).  With continue-looking off, an app that should not allocate
        more skips the priority (``preCheckForNodeCandidateSet``) and a leaf at its limit with
        its reservations takes nothing.

        A user whose use with its reservations is over its user limit
        (``LeafQueue.canAssignToUser``: ``greaterThan(user.getUsed(), limit)``) gets nothing
        here, unless continue-looking is on and its use less the app's reservations fits the
        limit (``lessThanOrEqual(used − getCurrentReservation(), limit)``): then the app must
        give back a reservation of at least ``used − limit`` (``setAmountNeededUnreserve``), or
        of the leaf's excess when that is larger (``RegularContainerAllocator.assignContainer``:
        ``Resources.max(rc, cluster, capability − headroom, getAmountNeededUnreserve())``).  The
        check runs only for a user holding reservations in the leaf: without any, the use
        :meth:`admit_job` compared with the limit is the whole of it."""
        same = [(name, held) for name, (p, held) in reserved.items() if p == priority]
        excess = self._excess(leaf, size)
        user = self._user_unreserve(leaf, job, reserved) if job.user in leaf.reserved_by_user else None
        if self.conf is not None and not self.conf.continue_looking:
            if user is not None:
                return False  # canAssignToUser: over the user limit, the reservations counted
            if same and pending - len(same) <= 0:
                return False  # PRIORITY_SKIPPED
            return False if self._excess(leaf, Resources()) is not None else None
        if user is False:
            return False  # canAssignToUser: over the limit even without the app's reservations
        if user is not None and (excess is None or self._less(excess, user)):
            excess = user  # Resources.max(rc, cluster, capability − headroom, amountNeededUnreserve)
        if excess is None:
            if not same or pending - len(same) > 0:
                return None
            excess = size  # "unreserve one the same size we are asking for"
        for name, held in same:
            if excess.fits_in(held) if self._dominant else excess.memory <= held.memory:  # Resources.fitsIn
                return name
        return False

    def queue_headroom(self, leaf: Any, job: Job, size: Resources, reserved: Resources,
                       held_back: Mapping[Any, Resources]) -> Resources | None:
        """``RegularContainerAllocator.checkHeadroom`` (with ``AbstractCSQueue.canAssignToThisQueue``
        before it), asked by the engine when ``job``'s container of ``size`` does not fit the
        node or its queues' maximums, or when queues offered before hold headroom back.  The
        leaf's limit is its current limit with the parents' limits less what they hold back
        (``getNetLimit``); its headroom that limit less its use (its reservations counted).  A
        leaf at or past its limit takes nothing (``canAssignToThisQueue``; unless the app's own
        reservations, with ``reservations-continue-look-all-nodes``, bring it back under): the
        leaf's turn ends, nothing held back.  A leaf whose headroom, with the app's
        reservations (which it could unreserve, with continue-looking), is less than ``size``
        (``Resources.greaterThanOrEqual`` by the calculator) is skipped for its queue limit
        (``QUEUE_SKIPPED``): its headroom, at least 0 (``Resources.max(rc, cluster, headroom,
        none)``), is held back by its ancestors (``ParentQueue.assignContainersToChildQueues``,
        ``addBlockedHeadroom``).  None: it has the headroom; a leaf the file does not name, too."""
        if self.conf is None or self.conf.queues.get(leaf.name) is None:
            return None
        limit = self.current_limit(leaf, held_back)
        used = leaf.sched.running + leaf.reserved
        unreservable = reserved if self.conf.continue_looking else Resources()
        if not self._less(used, limit) and not (
                unreservable.any_positive() and self._less(used - unreservable, limit)):
            return Resources()  # canAssignToThisQueue: false (the leaf's NULL_ASSIGNMENT)
        headroom = limit - used
        if not self._less(headroom + unreservable, size):
            return None  # checkHeadroom: greaterThanOrEqual(headroom + could-be-unreserved, required)
        return Resources() if self._less(headroom, Resources()) else headroom

    def _user_unreserve(self, leaf: Any, job: Job, reserved: Mapping[str, tuple[int, Resources]]
                        ) -> Resources | bool | None:
        """``LeafQueue.canAssignToUser`` (Hadoop 3.3) for ``job``, whose user holds reservations
        in ``leaf``: None when the user's use with its reservations is within its user limit;
        the amount to unreserve first (``amountNeededUnreserve``: used − limit) when it is not
        but its use less the app's reservations (``getCurrentReservation``: ``reserved``, the
        app's reservations on the other nodes — the node being scheduled is not one, or the
        heartbeat would serve that reservation) is; False (the app gets nothing) otherwise."""
        limit = self.user_limit(job)
        used = self.user_used(job) + leaf.reserved_by_user[job.user]
        if limit is None or not self._less(limit, used):  # Resources.greaterThan(used, limit)
            return None
        mine = Resources()
        for _, held in reserved.values():
            mine = mine + held
        # not Resources.lessThanOrEqual(rc, cluster, used − getCurrentReservation(), limit)
        return False if self._less(limit, used - mine) else used - limit

    def _user_excess(self, leaf: Any, job: Job) -> Resources | None:
        """How far ``job``'s user's use with its reservations in the leaf passes its user limit
        (None: not beyond it; ``LeafQueue.canAssignToUser``: ``user.getUsed() > limit``, the
        reservations counted as ``LeafQueue.allocateResource`` counts them)."""
        reserved = leaf.reserved_by_user.get(job.user)
        if reserved is None:
            return None
        limit = self.user_limit(job)
        used = self.user_used(job) + reserved
        if limit is None or not self._less(limit, used):
            return None
        return used - limit

    def _excess(self, leaf: Any, size: Resources) -> Resources | None:
        """How far the leaf's use, its reservations and ``size`` pass its current limit
        (None: they fit; ``Resources.isAnyMajorResourceAboveZero``)."""
        over = leaf.sched.running + leaf.reserved + size - self.current_limit(leaf)
        excess = Resources.of({n: max(0, v) for n, v in over.items()})
        return excess if self._less(Resources(), excess) else None
