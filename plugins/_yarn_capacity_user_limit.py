"""YARN's Capacity Scheduler (``yarn_capacity``): the users' use of a leaf and the user
limit — ``UsersManager.computeUserLimit`` (the weighted and unweighted limit, active users,
``consumed``), ``User.getUsed`` and ``LeafQueue.getHeadroom`` — as a mixin of
:class:`corescheduler_plugins.yarn_capacity.YarnCapacityScheduler` (moved from that module
unchanged)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from corescheduler.core.model import Job
from corescheduler.resources import Resources


class CapacityUserLimit:
    """The users' use and the user limit of ``YarnCapacityScheduler`` (its state: ``conf``,
    the live queues, the cluster, the users' containers)."""

    conf: Any
    _cluster: Resources
    _minimum: Any
    _dominant: bool
    _live: dict[str, Any]
    _users_use: dict[str, dict[Any, Resources]]
    _started: list[Any]

    if TYPE_CHECKING:  # the policy's and its other mixins'
        def _ratio(self, used: Resources, guaranteed: Resources | None, cluster: Resources | None) -> float: ...

        def _memory_bound(self, queue: Any, leaf: Any) -> int: ...

        def _weighted_user_limit(self, queue: Any, leaf: Any, user: Any) -> Resources: ...

        def current_limit(self, queue: Any) -> Resources: ...

    # ------------------------------------------------------------------ users' use
    @property
    def _user_used(self) -> dict[str, dict[Any, Resources]]:
        """Leaf -> user -> what the user's containers in the leaf use (``UsersManager``'s
        ``User.getUsed``), up to date: the containers started since the last read are added
        now (:meth:`cs_task_started` only notes them; the heartbeat has no use for the sums
        while :meth:`admit_leaf`'s answer holds)."""
        if self._started:
            self._fold()
        return self._users_use

    def _leaf_users(self, path: str) -> dict[Any, Resources] | None:
        """:attr:`_user_used` of one leaf."""
        if self._started:
            self._fold()
        return self._users_use.get(path)

    def _fold(self, moved: Any = None, source: str = "") -> None:
        """Add the containers started since the last fold to their users' use in their leaves
        (``updateUserResourceUsage``); those of app ``moved`` to ``source``, the leaf it was
        in when they started (a move folds first: :meth:`cs_job_moved`)."""
        users_use = self._users_use
        for task in self._started:
            size = task.resources
            if size is None:
                continue
            job = task.job
            path = job.queue or job.pool
            if job is moved:
                path = source
            elif type(path) is not str:
                path = str(path)
            used = users_use.get(path)
            if used is None:
                used = users_use[path] = {}
            user = job.user
            current = used.get(user)
            used[user] = size if current is None else current + size
        self._started.clear()

    # ------------------------------------------------------------------ user limits
    def _active(self, queue: Any) -> tuple[int, Resources]:
        """The leaf's active users (apps with pending asks: ``UsersManager.activateApplication``)
        and what they use (``totalResUsageForActiveUsers``), read from the leaf's order; their
        reserved containers count (``LeafQueue.apply`` → ``allocateResource`` for a reservation)."""
        users = {js.owner.user for js in queue.order}
        used = self._user_used.get(queue.name, {})
        total = Resources.total(used[u] for u in users if u in used)
        reserved = queue.reserved_by_user
        return len(users), (total + Resources.total(reserved[u] for u in users if u in reserved) if reserved
                            else total)

    def _round_up(self, r: Resources) -> Resources:
        """``Resources.roundUp(rc, r, minimumAllocation)``."""
        step = self._minimum
        if step is None:
            return r
        return Resources.of({n: (math.ceil(v / step.get(n)) * step.get(n) if step.get(n) > 0 else v)
                             for n, v in r.items()})

    def user_limit(self, job: Job) -> Resources | None:
        """``UsersManager.computeUserLimit`` (Hadoop 3.3) for ``job``'s user, an active user, in its
        leaf (None: not a capacity queue): queue capacity = max(guarantee, minimum allocation);
        current capacity = that while the queue uses less, else its use + the minimum allocation;
        limit = max(⌈(active users' use + minimum allocation) ÷ active users⌉, current capacity ×
        minimum-user-limit-percent ÷ 100), at most queue capacity × user-limit-factor (−1: the
        queue's maximum), rounded up to the minimum allocation.  The uses count reserved
        containers (:meth:`_consumed`, :meth:`_active`)."""
        conf = self.conf
        path = _path(job)
        leaf = conf.queues.get(path) if conf is not None else None
        queue = self._live.get(path)
        if leaf is None or queue is None:
            return None
        if leaf.user_weights:  # user-settings.<user>.weight (_yarn_capacity_weights)
            return self._weighted_user_limit(queue, leaf, job.user)
        fast = self._limit_amounts(queue, leaf)
        if fast is not None:
            return Resources._make(fast[0], fast[1])
        return self._limit_resources(queue, leaf)

    def _limit_amounts(self, queue: Any, leaf: Any) -> tuple[int, int] | None:
        """:meth:`_limit_resources` on the amounts, for values of memory and vcores alone (the
        heartbeat's case; None when some value has extra resource types): the limit's memory
        and vcores.  Integer division where the general path divides floats: the same results
        for amounts below 2**53."""
        terms = self._amount_terms(queue)
        if terms is None or self._dominant:
            return None
        gm, gv, rm, rv, am, av, n = terms
        s = queue.sched
        running = s.running
        reserved = queue.reserved  # (a reserved container counts in the use: _consumed)
        consumed_m, consumed_v = running.memory + reserved.memory, running.vcores + reserved.vcores
        if rm > 0:  # _round_up
            consumed_m = -(-consumed_m // rm) * rm
        if rv > 0:
            consumed_v = -(-consumed_v // rv) * rv
        mulp = leaf.minimum_user_limit_percent
        ulf = leaf.user_limit_factor
        # DefaultResourceCalculator: memory decides (_less)
        qm, qv = (gm if gm >= rm else rm), (gv if gv >= rv else rv)  # componentwise_max
        if consumed_m < qm:
            cm, cv = qm, qv
        else:
            cm, cv = consumed_m + rm, consumed_v + rv
        if n:
            lm, lv = -(-(am + rm) // n), -(-(av + rv) // n)
        else:
            lm = lv = 0
        bm, bv = -(-int(cm * mulp) // 100), -(-int(cv * mulp) // 100)
        if lm < bm:
            lm, lv = bm, bv
        if ulf >= 0:
            capm, capv = int(qm * ulf), int(qv * ulf)
        else:
            cap = s.max_share
            if cap.extras:
                return None
            capm, capv = cap.memory, cap.vcores
        if capm < lm:
            lm, lv = capm, capv
        if rm > 0:
            lm = -(-lm // rm) * rm
        if rv > 0:
            lv = -(-lv // rv) * rv
        return lm, lv

    def _amount_terms(self, queue: Any) -> tuple[int, int, int, int, int, int, int] | None:
        """The terms :meth:`_limit_amounts` and :meth:`_memory_limit` start from: the queue's
        guarantee, the minimum allocation, what its active users use with their reservations
        (memory and vcores: :meth:`_active`) and how many they are; None when some value has
        extra resource types."""
        s = queue.sched
        guaranteed = s.fair_share
        step = self._minimum
        if s.running.extras or (guaranteed is not None and guaranteed.extras) or (step is not None and step.extras):
            return None
        gm, gv = (guaranteed.memory, guaranteed.vcores) if guaranteed is not None else (0, 0)
        rm, rv = (step.memory, step.vcores) if step is not None else (0, 0)
        users = {js.owner.user for js in queue.order}  # the active users (_active)
        am = av = 0
        # their containers' use, and their reserved containers too (_active)
        for table in (self._leaf_users(queue.name), queue.reserved_by_user):
            if table:
                for u in users:
                    r = table.get(u)
                    if r is not None:
                        if r.extras:
                            return None
                        am += r.memory
                        av += r.vcores
        return gm, gv, rm, rv, am, av, len(users)

    def _memory_limit(self, queue: Any, leaf: Any) -> tuple[int, int] | None:
        """:meth:`_limit_amounts`' memory terms alone, under ``DefaultResourceCalculator`` (where
        memory decides the admission): (the limit's memory, :meth:`_memory_bound`), or None
        where :meth:`_limit_amounts` is None."""
        terms = self._amount_terms(queue)
        if terms is None:
            return None
        gm, _, rm, _, am, _, n = terms
        s = queue.sched
        reserved = queue.reserved.memory
        consumed_m = s.running.memory + reserved  # (a reserved container counts: _consumed)
        if rm > 0:
            consumed_m = -(-consumed_m // rm) * rm
        qm = gm if gm >= rm else rm
        cm = qm if consumed_m < qm else consumed_m + rm
        lm = -(-(am + rm) // n) if n else 0
        bm = -(-int(cm * leaf.minimum_user_limit_percent) // 100)
        if lm < bm:
            lm = bm
        ulf = leaf.user_limit_factor
        if ulf >= 0:
            capm = int(qm * ulf)
        else:
            cap = s.max_share
            if cap.extras:
                return None
            capm = cap.memory
        if capm < lm:
            lm = capm
        least = capm if capm < bm else bm
        if rm > 0:
            lm = -(-lm // rm) * rm
            least = -(-least // rm) * rm
        if reserved:  # the bound without them: an unreservation lowers the use and ends no container
            return lm, self._memory_bound(queue, leaf)
        return lm, least

    def _limit_resources(self, queue: Any, leaf: Any) -> Resources:
        """:meth:`user_limit` in ``Resources`` arithmetic: any resource types."""
        required = self._minimum if self._minimum is not None else Resources()
        guaranteed = queue.sched.fair_share if queue.sched.fair_share is not None else Resources()
        queue_capacity = guaranteed.componentwise_max(required) if not self._dominant else \
            (guaranteed if self._ratio(guaranteed, required, self._cluster) >= 1.0 else required)
        consumed = self._consumed(queue)
        below = self._less(consumed, queue_capacity)
        current = queue_capacity if below else consumed + required
        users, active_used = self._active(queue)
        used = active_used + required  # Resources.divideAndCeil(rc, r, 0) is 0: no active user
        by_users = Resources.of({n: (math.ceil(v / users) if users else 0) for n, v in used.items()})
        return self._bounded_limit(by_users, current, queue_capacity, queue, leaf)

    def _bounded_limit(self, by_users: Resources, current: Resources, queue_capacity: Resources,
                       queue: Any, leaf: Any) -> Resources:
        """``UsersManager.computeUserLimit``'s end: the larger of the active users' share
        ``by_users`` and minimum-user-limit-percent of the current capacity, at most the queue's
        capacity × user-limit-factor (its maximum when the factor is −1), rounded up."""
        by_min = current.multiply_and_round_down(leaf.minimum_user_limit_percent)
        by_min = Resources.of({n: math.ceil(v / 100) for n, v in by_min.items()})
        limit = by_users if not self._less(by_users, by_min) else by_min
        if leaf.user_limit_factor >= 0:
            cap = queue_capacity.multiply_and_round_down(leaf.user_limit_factor)
        else:
            cap = queue.sched.max_share
        if self._less(cap, limit):
            limit = cap
        return self._round_up(limit)

    def _consumed(self, queue: Any) -> Resources:
        """``UsersManager.computeUserLimit``'s ``consumed``: ``multiplyAndNormalizeUp(cluster,
        getUsageRatio(), minimumAllocation)``, the usage ratio being the sum of each user's
        ``Resources.ratio(used, cluster)`` (``UsersManager.updateUsageRatio``).  Under
        ``DefaultResourceCalculator`` that is the leaf's memory use rounded up; under
        ``DominantResourceCalculator`` the sum of the users' dominant shares, which exceeds
        the leaf's own dominant share when its users are dominant in different resource
        types (``TestLeafQueue.testDRFUserLimits``).  A user's reserved containers count in
        its use (``User.getUsed``: ``LeafQueue.apply`` calls ``allocateResource`` for a
        reservation too, and ``UsersManager.updateUserResourceUsage`` moves the ratio)."""
        cluster = self._cluster
        if not (self._dominant and cluster.any_positive()):
            return self._round_up(queue.sched.running + queue.reserved)
        users = self._user_used.get(queue.name, {})
        if queue.reserved_by_user:
            users = dict(users)
            for user, held in queue.reserved_by_user.items():
                users[user] = users[user] + held if user in users else held
        ratio = sum(used.dominant_share(cluster) for used in users.values())
        step = self._minimum
        values = {}
        for n, v in cluster.items():
            amount = math.ceil(v * ratio)
            unit = step.get(n) if step is not None and n in step.names else 0
            values[n] = math.ceil(amount / unit) * unit if unit > 0 else amount
        return Resources.of(values)

    def _less(self, a: Resources, b: Resources) -> bool:
        """``Resources.lessThan(rc, cluster, a, b)``: memory, or by ``DominantResourceCalculator.compare``:
        the dominant shares, and on a tie the next ones (``compareShares``: each vector's shares of
        the cluster, largest first, compared in turn)."""
        if self._dominant and self._cluster.any_positive():
            totals = [(n, t) for n, t in self._cluster.items() if t > 0]
            first = sorted((a.get(n) / t for n, t in totals), reverse=True)
            second = sorted((b.get(n) / t for n, t in totals), reverse=True)
            return first < second
        return a.get("memory") < b.get("memory")

    def user_used(self, job: Job) -> Resources:
        return self._user_used.get(_path(job), {}).get(job.user, Resources())

    def headroom(self, job: Job) -> Resources | None:
        """``LeafQueue.getHeadroom``: min(user limit − user's use, the queue's current limit −
        queue's use), rounded down to the minimum allocation, at most what the cluster has
        free.  The current limit (:meth:`current_limit`, ``queueCurrentLimit``: what its parent
        leaves it, at most its maximum) — not the maximum alone: a sibling's use under the same
        parent lowers it."""
        limit = self.user_limit(job)
        queue = self._live.get(_path(job))
        if limit is None or queue is None:
            return None
        cluster = self._cluster
        mine = limit - self.user_used(job) - queue.reserved_by_user.get(job.user, Resources())
        room = self.current_limit(queue) - queue.sched.running - queue.reserved  # reservations count in its use
        values = {n: max(0, min(v, room.get(n))) for n, v in mine.items()}
        step = self._minimum
        if step is not None:
            values = {n: (v // step.get(n)) * step.get(n) if step.get(n) > 0 else v for n, v in values.items()}
        headroom = Resources.of(values)
        root = queue
        while root.parent is not None:
            root = root.parent
        free = cluster - root.sched.running
        return free if self._less(free, headroom) else headroom


def _path(job: Job) -> str:
    """The leaf queue's path of a placed job."""
    return str(job.queue or job.pool)
