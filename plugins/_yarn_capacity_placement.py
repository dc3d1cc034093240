"""``yarn_capacity``'s placement (PoolResolver) and ``refreshQueues``' checks: a mixin of
:class:`corescheduler_plugins.yarn_capacity.YarnCapacityScheduler`, which holds the state
it reads (``conf``, the capacity file in force; ``_apps``, apps placed per leaf).

* **Placement** (:meth:`CapacityPlacement.cs_resolve_pool`) — ``queue-mappings``
  (``u:``/``g:``, ``%user``, ``%primary_group``) when the app names no queue or the override
  is on; refusals as ``CapacityScheduler.addApplication``.
* **Reload** (:meth:`CapacityPlacement.cs_known_pools`) — ``refreshQueues`` as
  ``CapacitySchedulerQueueManager.validateQueueHierarchy`` refuses it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from corescheduler.core.model import JobSpec, Rejection
from corescheduler.errors import AllocationError
from corescheduler.hookspecs import hookimpl

__all__ = ["DIALECT", "CapacityPlacement", "capacity_conf"]

#: the dialect of a YARN capacity file's allocations (its ``policy_config`` is the validated
#: file: ``corescheduler.formats.capacity_scheduler_xml.CapacitySchedulerConf``)
DIALECT = "yarn_capacity"


def capacity_conf(allocations: Any) -> Any:
    """The validated capacity file of ``allocations``, or None."""
    return allocations.policy_config if getattr(allocations, "dialect", None) == DIALECT else None


class CapacityPlacement:
    """PoolResolver and reload checks of the Capacity Scheduler."""

    conf: Any
    _apps: Counter[str]
    _live: dict[str, Any]
    _cluster: Any

    def max_applications(self, conf: Any, path: str) -> int:
        """The leaf's ``maxApplications``: its own ``maximum-applications``, else the global one ×
        its absolute capacity.  A queue of absolute capacity (``[memory=…]``) has one only
        against the cluster: its effective guarantee's share of it, as
        ``ParentQueue.deriveCapacityFromAbsoluteConfigurations`` sets it (the memory share
        under ``DefaultResourceCalculator``, the dominant share under the dominant one).  Before
        the engine first computed the shares (an app submitted at start-up) that share is not
        known yet: the system-wide maximum alone applies."""
        q = conf.queues[path]
        if q.capacity_resources is None or q.maximum_applications is not None:
            return int(conf.max_applications(path))
        queue = self._live.get(path)
        guaranteed = queue.sched.fair_share if queue is not None else None
        cluster = self._cluster
        if guaranteed is None or not cluster.any_positive():
            return int(conf.maximum_applications)
        if conf.dominant:
            share = guaranteed.dominant_share(cluster)
        else:
            share = guaranteed.memory / cluster.memory if cluster.memory > 0 else 0.0
        return int(conf.maximum_applications * share)

    # ------------------------------------------------------------------ refreshQueues
    @hookimpl
    def cs_known_pools(self, allocations: Any) -> list[str] | None:
        """Asked before new allocations are put in force (nothing has changed yet): a reload is
        ``refreshQueues``, refused as ``CapacitySchedulerQueueManager.validateQueueHierarchy``
        refuses it — a queue the file drops must be STOPPED (in the running or in the new
        file), and so must a leaf the file turns into a parent; the last good file stays."""
        new = capacity_conf(allocations)
        old = self.conf
        if new is None or old is None or new is old:
            return None
        problems = []
        for path, before in old.queues.items():
            after = new.queues.get(path)
            stated = new.properties.get(f"yarn.scheduler.capacity.{path}.state", "").strip().upper()
            stopped = before.state == "STOPPED" or stated == "STOPPED"
            if after is None and not stopped:
                problems.append(f"{path} cannot be deleted from the capacity scheduler configuration, as the queue "
                                f"is not yet in stopped state. Current State : {before.state}")
            elif after is not None and before.is_leaf and not after.is_leaf and not stopped:
                problems.append(f"Can not convert the leaf queue: {path} to parent queue since it is not yet in "
                                f"stopped state. Current State : {before.state}")
            elif after is None or (before.is_leaf and not after.is_leaf):
                if self._apps.get(path, 0) > 0:
                    problems.append(f"{path} still has {self._apps[path]} applications; it cannot be removed or "
                                    "become a parent until they end")
        if problems:
            raise AllocationError("refreshQueues refused: " + "; ".join(problems), new.source)
        return None

    # ------------------------------------------------------------------ PoolResolver
    @hookimpl
    def cs_resolve_pool(self, job: JobSpec, allocations: Any, queues: Mapping[str, str]) -> str | Rejection | None:
        """``CapacityScheduler.addApplication`` after the placement rules: the app's queue is
        the one ``queue-mappings`` give (``UserGroupMappingPlacementRule``), else the one it
        names, else ``default`` (YARN's ``DEFAULT_QUEUE_NAME``, as ``RMAppManager`` sets it);
        refused past the system's ``maximum-applications`` (``isSystemAppsLimitReached``), to
        an unknown queue (a file without a leaf ``default`` refuses an app naming none), to a
        parent, to a STOPPED queue, past the leaf's ``maximum-applications``."""
        conf = capacity_conf(allocations)
        if conf is None:
            return None
        requested = job.pool or None
        groups = tuple(job.groups or ())
        mapped = None
        if requested is None or conf.mappings_override:
            for kind, who, queue in conf.queue_mappings:  # UserGroupMappingPlacementRule
                if kind == "u" and who in ("%user", job.user):
                    mapped = queue.replace("%user", str(job.user)).replace(
                        "%primary_group", groups[0] if groups else "")
                elif kind == "g" and who in groups:
                    mapped = queue
                if mapped is not None:
                    break
        name = mapped or requested or "default"
        placed = sum(self._apps.values())
        if placed >= conf.maximum_applications:  # CapacityScheduler.isSystemAppsLimitReached
            return Rejection(f"Maximum system application limit reached, cannot accept submission of application: "
                             f"{job.id} ({placed} applications; maximum-applications {conf.maximum_applications})")
        path = conf.resolve(name)
        if path is None:
            return Rejection(f"Application {job.id} submitted by user {job.user} to unknown queue: {name} "
                             f"(capacity file {conf.source})")
        leaf = conf.queues[path]
        if not leaf.is_leaf:
            return Rejection(f"Application {job.id} submitted by user : {job.user} to non-leaf queue : {path}")
        stopped = [p for p in (path, *_ancestors(path)) if conf.queues[p].state == "STOPPED"]
        if stopped:
            return Rejection(f"Queue {path} is STOPPED. Cannot accept submission of application")
        limit = self.max_applications(conf, path)
        if self._apps[path] >= limit:  # LeafQueue.validateSubmitApplication
            return Rejection(f"Queue {path} already has {self._apps[path]} applications, cannot accept "
                             f"submission of application (maximum-applications {limit})")
        return path


def _ancestors(path: str) -> list[str]:
    out = []
    head, dot, _ = path.rpartition(".")
    while dot:
        out.append(head)
        head, dot, _ = head.rpartition(".")
    return out
