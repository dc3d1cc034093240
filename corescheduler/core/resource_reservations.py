"""Resource mode: the AM share limit (``FSLeafQueue.canRunAppAM``) and node reservations
(``FSAppAttempt.reserve``, ``FairScheduler.assignReservedContainer``).  Part of
:class:`~corescheduler.core.resource_scheduler.ResourceScheduler`
(:mod:`~corescheduler.core.resource_base`)."""

from __future__ import annotations

import math

from corescheduler.core import hook_answers as answers
from corescheduler.core.model import (
    PENDING,
    RESOURCES,
    Assignment,
    Job,
    Node,
    Task,
)
from corescheduler.core.policy import SharePolicy
from corescheduler.core.queue_tree import NO_RESERVATION, Queue
from corescheduler.core.resource_base import NONE, EngineState
from corescheduler.core.resources import Resources


class AMLimitsAndReservations(EngineState):
    """Whether an app's AM may run in its leaf, and the nodes apps hold reserved."""

    #: whether the last :meth:`_reservable` answer was the leaf policy's (then :meth:`_reserve`
    #: applies no ``reservable_nodes`` cap)
    _policy_reserves = False
    #: whether some queue's policy has :meth:`~corescheduler.core.policy.SharePolicy.queue_headroom`
    #: (read with the allocations)
    _queue_limits = False
    #: a container fits a node by its memory alone (``SharePolicy.fits_by_memory``)
    _fit_memory_only = False
    #: what each parent holds back in the assignment under way, for the children skipped so far
    #: for lack of headroom (Hadoop's ``ResourceLimits.blockedHeadroom``; emptied as root is
    #: offered the node again, as ``allocateOrReserveNewContainers`` makes new limits)
    _held_back: dict[Queue, Resources]

    def _queue_limit(self, leaf: Queue, job: Job, size: Resources) -> bool:
        """Whether ``leaf`` lacks the headroom for ``job``'s container of ``size`` (the leaf's
        policy's :meth:`~corescheduler.core.policy.SharePolicy.queue_headroom`; the Capacity
        Scheduler's ``RegularContainerAllocator.checkHeadroom``, ``QUEUE_SKIPPED``): then the
        leaf's turn ends and each of its ancestors holds back the headroom it had, so that the
        queues offered after it in this assignment do not take it
        (``ParentQueue.assignContainersToChildQueues``: ``addBlockedHeadroom``, and the next
        children's limits from ``getNetLimit``)."""
        policy = self.owner.plugins.share_policy(leaf.policy).policy
        if type(policy).queue_headroom is SharePolicy.queue_headroom:
            return False
        held = self._held_back
        mine = NONE
        for name in self.reservations.get(job.id, ()):
            task = self.owner.cluster.nodes[name].reserved
            if task is not None and task.resources is not None:
                mine = mine + task.resources
        short = policy.queue_headroom(leaf, job, size, mine, held)
        if short is None:
            return False
        if type(short) is not Resources:
            raise answers.refuse(self.owner.plugins.who("SharePolicy", leaf.policy), "queue_headroom", short,
                                 "None or Resources")
        q = leaf.parent
        while q is not None:
            before = held.get(q)
            held[q] = short if before is None else before + short
            q = q.parent
        return True

    def _can_run_am(self, leaf: Queue, am: Resources, job: Job) -> bool:
        """May ``job``'s AM ``am`` start in ``leaf``: the leaf's policy's AM limits
        (``SharePolicy.admit_am``), else the engine's, ``FSLeafQueue.canRunAppAM`` /
        ``computeMaxAMResource``."""
        verdict = self.owner.plugins.share_policy(leaf.policy).policy.admit_am(leaf, job, am)
        if verdict is not None:
            return verdict
        share = leaf.max_am_share
        if abs(share - (-1.0)) < 0.0001:
            return True
        # any other negative share: a negative limit below, which no AM fits in (as in YARN)
        fair = leaf.sched.fair_share if leaf.sched.fair_share is not None else NONE
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

    def _reservable(self, job: Job, leaf: Queue, size: Resources, node: Node) -> bool:
        """The leaf's policy's answer (``SharePolicy.reservable``), else
        ``FSAppAttempt.isReservable``: the app is starved (``isStarved``: below its fair share,
        by its queue's policy — memory for fair, the dominant share for drf — or handed some
        of its leaf's min-share starvation, which the last update put in ``starvation``) and
        the request is at least the reservation threshold."""
        verdict = self.owner.plugins.share_policy(leaf.policy).policy.reservable(
            leaf, job, size, node, len(self.reservations.get(job.id, ())))
        if verdict is not None:
            self._policy_reserves = True
            return bool(verdict)
        self._policy_reserves = False
        js = job.sched[RESOURCES]
        fair = js.fair_share if js.fair_share is not None else NONE
        calc = self.owner.plugins.share_policy(leaf.policy).calc  # the policy's getResourceCalculator
        cluster = self.cluster_total
        starved = calc.less_than(cluster, job.usage, fair) or job.id in self.starvation
        return starved and not calc.less_than(cluster, size, self._threshold)

    def _reserve(self, job: Job, task: Task, node: Node) -> bool:
        """``FSAppAttempt.reserve``: one app per node; at most ``reservable_nodes`` of the
        cluster (off-rack) or of the rack (rack-local) per app."""
        if node.reserved is not None and node.reserved.job is not job:
            return False
        if node.reserved is None:
            held = self.reservations.get(job.id, {})
            locality = task.locality(node) if task.locations or task.racks else "off"
            if locality != "node" and not self._policy_reserves:  # the policy's answer has no cap
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
        elif node.reserved is not task:
            self._count_reserved(node, -1)
        if node.reserved is not task:
            node.reserved = task
            self._count_reserved(node, 1)
        return True

    def _count_reserved(self, node: Node, sign: int) -> None:
        """Add (``sign`` 1) or take back (-1) ``node``'s reservation in its leaf's and the
        leaf's ancestors' ``reserved`` (the leaf it was counted in, when taken back)."""
        task = node.reserved
        size = task.resources if task is not None else None
        if sign > 0:
            leaf = self.tree.queues.get(task.job.queue or "") if task is not None else None
            if leaf is None or size is None:
                return
            self.reserved_leaf[node.name] = leaf
        else:
            leaf = self.reserved_leaf.pop(node.name, None)
            if leaf is None or size is None:
                return
        by_user = leaf.reserved_by_user
        user = task.job.user  # type: ignore[union-attr]
        mine = by_user.get(user, NONE) + size if sign > 0 else by_user.get(user, NONE) - size
        if mine.any_positive():
            by_user[user] = mine
        else:
            by_user.pop(user, None)
        q: Queue | None = leaf
        while q is not None:
            total = q.reserved + size if sign > 0 else q.reserved - size
            q.reserved = total if total.any_positive() else NO_RESERVATION
            q = q.parent
        self._reposition_queues(leaf)  # a policy's order key may count reservations (yarn_capacity's)

    def _unreserve(self, node: Node) -> None:
        task = node.reserved
        if task is None:
            return
        self._count_reserved(node, -1)
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

    def _scheduler_key(self, task: Task) -> int:
        """The priority of ``task``'s ask (YARN's ``SchedulerRequestKey``; 0 without asks)."""
        apps = self.app_asks.get(task.job.id) if self.app_asks else None
        found = apps.where.get(task.id) if apps is not None else None
        return found[0].priority if found is not None else 0

    def _unreserve_elsewhere(self, leaf: Queue, job: Job, task: Task, size: Resources, node: Node) -> bool:
        """``job``, holding reservations on other nodes, is about to get ``task`` on ``node``:
        the leaf's policy may have it unreserve one of them first, or get nothing here
        (``SharePolicy.unreserve_for``; the Capacity Scheduler's continue-looking rule in
        ``RegularContainerAllocator.assignContainer``).  True: allocate."""
        policy = self.owner.plugins.share_policy(leaf.policy).policy
        if type(policy).unreserve_for is SharePolicy.unreserve_for:
            return True
        nodes = self.owner.cluster.nodes
        reserved: dict[str, tuple[int, Resources]] = {}
        for name in self.reservations.get(job.id, ()):
            other = nodes.get(name)
            held = other.reserved if other is not None else None
            if name != node.name and held is not None and held.job is job and held.resources is not None:
                reserved[name] = (self._scheduler_key(held), held.resources)
        priority = self._scheduler_key(task)
        apps = self.app_asks.get(job.id) if self.app_asks else None
        if apps is not None:
            pending = sum(a.pending_count() for a in apps.asks if a.priority == priority)
        else:
            pending = job.pending.get(task.kind, 0) if not task.is_am else 1
        verdict = policy.unreserve_for(leaf, job, size, node, priority, pending, reserved)
        if verdict is None or verdict is True:
            return True
        if verdict is False:
            return False
        if type(verdict) is str and verdict in reserved:
            self._unreserve(nodes[verdict])
            return True
        raise answers.refuse(self.owner.plugins.who("SharePolicy", leaf.policy), "unreserve_for", verdict,
                             f"None, True, False or one of the nodes the app holds reserved ({', '.join(reserved)})")

    def _fits(self, size: Resources, room: Resources) -> bool:
        """``size`` fits in ``room``: by memory alone under the root policy's ``fits_by_memory``
        (``DefaultResourceCalculator.fitsIn``), else by every type."""
        return size.memory <= room.memory if self._fit_memory_only else size.fits_in(room)

    def _fits_with_reserved(self, leaf: Queue, size: Resources) -> bool:
        """``size`` fits the leaf's and every ancestor's max share with their reservations
        counted in their use (then the policy's ``queue_headroom`` has nothing to say: a cheap
        check before asking it)."""
        q: Queue | None = leaf
        while q is not None:
            s = q.sched
            held = q.reserved
            if self._fit_memory_only:
                if s.running.memory + held.memory + size.memory > s.max_share.memory:
                    return False
            elif not (s.running + held).fits_with(size, s.max_share):
                return False
            q = q.parent
        return True

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
            and self._fits(size, node.capacity)
            and (leaf.fits_max_memory(size) if self._fit_memory_only else leaf.fits_max_shares(size))
            and self._has_pending(job)
        )
        if valid and task.is_am:
            valid = not job.am_running and self._can_run_am(leaf, size, job)  # type: ignore[arg-type]
        elif valid:
            valid = task.state == PENDING or self._choose(job, node, now) is not None
        if not valid:
            self._unreserve(node)
            return False
        assert leaf is not None and size is not None
        if self._fits(size, node.available):
            if task.state != PENDING:  # the reserved task ran elsewhere: serve another of the app's
                task = self._choose(job, node, now) or task
                size = self._size(task)
            if task.state == PENDING and self._fits(size, node.available) and (
                    leaf.fits_max_memory(size) if self._fit_memory_only else leaf.fits_max_shares(size)):
                self._unreserve(node)
                self._allocate(leaf, job, task, node, size, now, out)
        return True
