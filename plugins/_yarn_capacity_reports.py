"""What the ``yarn_capacity`` share policy reports (SPEC §9): a mixin answering
``SharePolicy.queue_report``, ``job_report`` and ``report`` — a queue's capacities as Hadoop's
``QueueCapacities`` holds them, an app's headroom and usage percentages, the preemption
monitor's marked containers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from corescheduler.core.model import Job
from corescheduler.resources import Resources

__all__ = ["CapacityReports"]


class CapacityReports:
    """The reports of :class:`~corescheduler_plugins.yarn_capacity.YarnCapacityScheduler` (its
    ``conf``, ``_cluster``, ``_live``, ``_marked``, ``_apps``, ``_ratio``, ``am_limit`` and
    ``headroom`` are the policy's)."""

    if TYPE_CHECKING:
        conf: Any
        _cluster: Resources
        _live: dict[str, Any]
        _marked: Any
        _apps: Any  # leaf -> apps placed (a Counter)

        def _ratio(self, used: Resources, guaranteed: Resources | None, cluster: Resources | None) -> float: ...

        def am_limit(self, queue: Any) -> Resources: ...

        def headroom(self, job: Job) -> Resources | None: ...

        def app_priority(self, job: Job) -> int: ...

    def queue_report(self, queue: Any, reserved: Resources) -> dict[str, Any] | None:
        """SPEC §9's keys of a queue (Hadoop ``QueueCapacities`` / ``CSQueueUtils.updateQueueStatistics``):
        fractions of the parent and of the cluster, and the guarantee, maximum, used
        (reserved included), reserved, AM limit and AM use as Resources."""
        q = self.conf.queues.get(queue.name) if self.conf is not None else None
        if q is None:
            return None
        s = queue.sched
        cluster = self._cluster
        guaranteed = s.fair_share if s.fair_share is not None else Resources()
        maximum = self._effective_maximum(queue, cluster)
        used = s.running + reserved
        parent = queue.parent.sched.fair_share if queue.parent is not None else None
        absolute = q.capacity_resources is not None
        # ParentQueue.deriveCapacityFromAbsoluteConfigurations: capacity = effective minimum ÷ the
        # parent's effective minimum; maximum capacity = effective maximum ÷ the parent's
        # effective maximum (not its minimum: a child as large as its parent is at 100 %)
        parent_max = self._effective_maximum(queue.parent, cluster) if queue.parent is not None else None
        report: dict[str, Any] = {
            "capacity": self._ratio(guaranteed, parent, cluster) if absolute and parent is not None else q.capacity,
            "maximum_capacity": q.maximum_capacity if not absolute else self._ratio(maximum, parent_max, cluster),
            "absolute_capacity": self._ratio(guaranteed, cluster, cluster) if absolute else q.absolute_capacity,
            "absolute_maximum_capacity": (self._ratio(maximum, cluster, cluster) if absolute
                                          else q.absolute_maximum_capacity),
            "absolute_used_capacity": self._ratio(used, cluster, cluster),
            "used_capacity": self._ratio(used, guaranteed, cluster),
            "user_limit_factor": q.user_limit_factor,
            "minimum_user_limit_percent": q.minimum_user_limit_percent,
            "state": self._reported_state(q),
            "ordering_policy": q.ordering_policy,
            # CSMaxRunningAppsEnforcer's queue limit (None: none) and the users' weights (leaves)
            "max_parallel_apps": self.conf.queue_max_parallel_apps(queue.name) if self.conf is not None else None,
            "user_weights": dict(q.user_weights) if q.is_leaf else {},
            "guaranteed": guaranteed,
            "maximum": maximum,
            "used": used,
            "reserved": reserved,
        }
        if q.is_leaf and self.conf is not None:
            report["am_limit"] = self.am_limit(queue)
            report["am_used"] = queue.am_usage
        return report

    @staticmethod
    def _effective_maximum(queue: Any, cluster: Resources) -> Resources:
        """The most the queue may use: its max share and every ancestor's, each type the least
        of them (the engine's ``Queue.fits_max_shares`` holds each to all), within the cluster
        — ``AbstractCSQueue.getOrInheritMaxResource``'s effective maximum resource."""
        maximum = queue.sched.max_share
        up = queue.parent
        while up is not None:
            maximum = maximum.componentwise_min(up.sched.max_share)
            up = up.parent
        return maximum.componentwise_min(cluster) if cluster.names else maximum

    def _reported_state(self, q: Any) -> str:
        """``CSQueue.getState``: its own state, else its parent's (``initializeQueueState``); a
        STOPPED queue still holding apps (its own or its children's) is DRAINING until they end
        (``stopQueue``, ``appFinished``)."""
        state = q.effective_state
        if state == "STOPPED":
            prefix = q.path + "."
            if any(n > 0 and (leaf == q.path or leaf.startswith(prefix)) for leaf, n in self._apps.items()):
                return "DRAINING"
        return str(state)

    def job_report(self, job: Job) -> dict[str, Any] | None:
        """An app's headroom and ``SchedulerApplicationAttempt.getResourceUsageReport``'s
        percentages: its use as a percent of its queue's absolute capacity of the cluster
        (``queue_usage_percentage``; 0 for a queue of no capacity) and of the cluster
        (``cluster_usage_percentage``), by the scheduler's calculator (memory, or the dominant
        share)."""
        # the effective application priority (_yarn_capacity_priorities), as Hadoop's app report
        report: dict[str, Any] = {"headroom": self.headroom(job), "application_priority": self.app_priority(job)}
        path = str(job.queue or job.pool)  # its leaf
        q = self.conf.queues.get(path) if self.conf is not None else None
        queue = self._live.get(path)
        cluster = self._cluster
        if q is not None and queue is not None and cluster.any_positive():
            share = self._ratio(job.usage, cluster, cluster)
            absolute = q.absolute_capacity if q.capacity_resources is None else \
                self._ratio(queue.sched.fair_share or Resources(), cluster, cluster)
            report["queue_usage_percentage"] = share / absolute * 100 if absolute > 0 else 0.0
            report["cluster_usage_percentage"] = share * 100
        return report

    def report(self) -> dict[str, Any]:
        return {"preemption": {"marked": list(self._marked)}}
