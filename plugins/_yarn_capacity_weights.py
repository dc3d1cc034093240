"""User weights in the Capacity Scheduler's user limit (Hadoop 3.3,
``yarn.scheduler.capacity.<queue-path>.user-settings.<user>.weight``): a mixin of the
``yarn_capacity`` share policy, used only for a leaf whose file gives weights (the other
leaves keep the policy's unweighted paths, unchanged).

* ``UsersManager.computeUserLimit``: the active users' use plus the minimum allocation is
  divided by the *sum of the active users' weights* (``activeUsersTimesWeights``, a Java
  float) instead of their number — ``Resources.divideAndCeil(rc, resourceUsed,
  usersSummedByWeight)``: ⌈amount ÷ weights⌉ in float arithmetic, 0 when the sum is 0; the
  rest of the limit (minimum-user-limit-percent, user-limit-factor, rounded up) as unweighted.
* ``UsersManager.getComputedResourceLimitForActiveUsers``: a user's own limit is that limit ×
  the user's weight, rounded *down* to the minimum allocation
  (``Resources.multiplyAndNormalizeDown``); a user without a weight has 1.
* ``LeafQueue.getUserAMResourceLimitPerPartition``: the user AM limit's share
  max(minimum-user-limit-percent ÷ 100, 1 ÷ active users) becomes min(share × weight, 1).

The headroom (``LeafQueue.getHeadroom``) and what preemption counts a user as still able to
get (``getTotalPendingResourcesConsideringUserLimit``) follow, as both take the user's limit.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from corescheduler.core.javamath import java_float
from corescheduler.resources import Resources

__all__ = ["CapacityUserWeights"]


class CapacityUserWeights:
    """The weighted user limit of :class:`~corescheduler_plugins.yarn_capacity.YarnCapacityScheduler`
    (its ``_consumed``, ``_active``, ``_less``, ``_ratio``, ``_bounded_limit``, ``_minimum``,
    ``_dominant`` and ``_cluster`` are the policy's)."""

    _minimum: Any
    _dominant: bool
    _cluster: Resources

    if TYPE_CHECKING:  # the policy's
        def _consumed(self, queue: Any) -> Resources: ...

        def _active(self, queue: Any) -> tuple[int, Resources]: ...

        def _less(self, a: Resources, b: Resources) -> bool: ...

        def _ratio(self, used: Resources, guaranteed: Resources | None,
                   cluster: Resources | None) -> float: ...

        def _bounded_limit(self, by_users: Resources, current: Resources, queue_capacity: Resources,
                           queue: Any, leaf: Any) -> Resources: ...

    def active_weights(self, queue: Any, weights: Any) -> float:
        """``UsersManager.sumActiveUsersTimesWeights``: the active users' weights summed in
        Java floats (a user without a weight: 1)."""
        total = 0.0
        for user in sorted({js.owner.user for js in queue.order}, key=str):
            total = java_float(total + java_float(weights.get(user, 1.0)))
        return total

    def _weighted_user_limit(self, queue: Any, leaf: Any, user: Any) -> Resources:
        """``user``'s limit in ``leaf`` (whose ``user_weights`` are not empty): the queue-wide
        limit of ``UsersManager.computeUserLimit`` with the active users counted by weight,
        then × the user's weight, rounded down to the minimum allocation."""
        weights = leaf.user_weights
        required = self._minimum if self._minimum is not None else Resources()
        guaranteed = queue.sched.fair_share if queue.sched.fair_share is not None else Resources()
        queue_capacity = guaranteed.componentwise_max(required) if not self._dominant else \
            (guaranteed if self._ratio(guaranteed, required, self._cluster) >= 1.0 else required)
        consumed = self._consumed(queue)
        current = queue_capacity if self._less(consumed, queue_capacity) else consumed + required
        used = self._active(queue)[1] + required  # the active users' use, their reservations counted
        summed = self.active_weights(queue, weights)
        # Resources.divideAndCeil(rc, resourceUsed, usersSummedByWeight): (long) ceil(a / b), a float division
        by_users = Resources.of({n: (math.ceil(java_float(java_float(float(v)) / summed)) if summed else 0)
                                 for n, v in used.items()})
        limit = self._bounded_limit(by_users, current, queue_capacity, queue, leaf)
        # UsersManager.getComputedResourceLimitForActiveUsers: multiplyAndNormalizeDown(limit, weight, minimum)
        weight = java_float(weights.get(user, 1.0))
        step = self._minimum
        values = {}
        for n, v in limit.items():
            amount = int(v * weight)
            unit = step.get(n) if step is not None and n in step.names else 0
            values[n] = (amount // unit) * unit if unit > 0 else amount
        return Resources.of(values)

    def weighted_am_share(self, leaf: Any, user: Any, share: float) -> float:
        """``getUserAMResourceLimitPerPartition``: ``Math.min(effectiveUserLimit * userWeight, 1.0f)``
        for a leaf with weights (``share`` unchanged without)."""
        weights = leaf.user_weights
        if not weights or user is None:
            return share
        return min(java_float(java_float(share) * java_float(weights.get(user, 1.0))), 1.0)
