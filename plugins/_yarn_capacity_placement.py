"""``yarn_capacity``'s placement (PoolResolver) and ``refreshQueues``' checks: a mixin of
:class:`corescheduler_plugins.yarn_capacity.YarnCapacityScheduler`, which holds the state
it reads (``conf``, the capacity file in force; ``_apps``, apps placed per leaf).

* **Placement** (:meth:`CapacityPlacement.cs_resolve_pool`) — ``queue-mappings`` as
  ``UserGroupMappingPlacementRule`` (:func:`mapped_queue`) when the app names no queue or
  ``default``, or the override is on; refusals as ``CapacityScheduler.addApplication`` and
  ``LeafQueue.validateSubmitApplication``.
* **Reload** (:meth:`CapacityPlacement.cs_known_pools`) — ``refreshQueues`` as
  ``CapacitySchedulerQueueManager.validateQueueHierarchy`` refuses it, and a leaf's maximum
  allocation decreased (``LeafQueue.reinitialize``); a queue's maximum allocation above the
  cluster's is refused at every load (``AbstractCSQueue.setupMaximumAllocation``).
"""

from __future__ import annotations

import math
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


def _resource(values: tuple[float, float]) -> str:
    """A (memory, vcores) pair as Hadoop's ``Resource.toString``."""
    memory, vcores = (v if math.isinf(v) else int(v) for v in values)
    return f"<memory:{memory}, vCores:{vcores}>"


def capacity_conf(allocations: Any) -> Any:
    """The validated capacity file of ``allocations``, or None."""
    return allocations.policy_config if getattr(allocations, "dialect", None) == DIALECT else None


class CapacityPlacement:
    """PoolResolver and reload checks of the Capacity Scheduler."""

    conf: Any
    _apps: Counter[str]
    _users: dict[str, Counter[Any]]
    _live: dict[str, Any]
    _cluster: Any
    _maximum_allocation: Any  # [cluster] maximum_allocation (Resources), None when unknown

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
        # ParentQueue.deriveCapacityFromAbsoluteConfigurations: global-queue-max-application, when
        # set, × the share, else maximum-applications × the share
        per_queue = conf.global_queue_max_applications
        return int((per_queue if per_queue > 0 else conf.maximum_applications) * share)

    # ------------------------------------------------------------------ refreshQueues
    @hookimpl
    def cs_known_pools(self, allocations: Any) -> list[str] | None:
        """Asked before new allocations are put in force (nothing has changed yet): a reload is
        ``refreshQueues``, refused as ``CapacitySchedulerQueueManager.validateQueueHierarchy``
        refuses it — a queue the file drops must be STOPPED (in the running or in the new
        file), and so must a leaf the file turns into a parent; a leaf's maximum allocation may
        not decrease (``LeafQueue.reinitialize``); the last good file stays.  At every load
        (the first too), no queue's maximum allocation may exceed the cluster's
        (``AbstractCSQueue.setupMaximumAllocation``)."""
        new = capacity_conf(allocations)
        old = self.conf
        if new is None or new is old:
            return None
        problems = self._maximum_allocation_problems(new)
        if old is None:
            if problems:
                raise AllocationError("; ".join(problems), new.source)
            return None
        for path, before in old.queues.items():
            after = new.queues.get(path)
            stated = new.properties.get(f"yarn.scheduler.capacity.{path}.state", "").strip().upper()
            # the live queue's state: its own, else its parent's (a queue under a STOPPED parent is
            # STOPPED: AbstractCSQueue.initializeQueueState), so a stopped parent goes with its children
            stopped = before.effective_state == "STOPPED" or stated == "STOPPED"
            if after is None and not stopped:
                problems.append(f"{path} cannot be deleted from the capacity scheduler configuration, as the queue "
                                f"is not yet in stopped state. Current State : {before.effective_state}")
            elif after is not None and before.is_leaf and not after.is_leaf and not stopped:
                problems.append(f"Can not convert the leaf queue: {path} to parent queue since it is not yet in "
                                f"stopped state. Current State : {before.effective_state}")
            elif after is None or (before.is_leaf and not after.is_leaf):
                if self._apps.get(path, 0) > 0:
                    problems.append(f"{path} still has {self._apps[path]} applications; it cannot be removed or "
                                    "become a parent until they end")
            if after is not None and before.is_leaf and after.is_leaf:
                # LeafQueue.reinitialize: "don't allow the maximum allocation to be decreased in size
                # since we have already told running AM's the size"
                was, will = self.maximum_allocation(old, path), self.maximum_allocation(new, path)
                if will[0] < was[0] or will[1] < was[1]:
                    problems.append(f"Trying to reinitialize {path} the maximum allocation size can not be decreased! "
                                    f"Current setting: {_resource(was)}, trying to set it to: {_resource(will)}")
        if problems:
            raise AllocationError("refreshQueues refused: " + "; ".join(problems), new.source)
        return None

    def maximum_allocation(self, conf: Any, path: str) -> tuple[float, float]:
        """``AbstractCSQueue.setupMaximumAllocation``: the queue's largest container (memory,
        vcores) — the cluster's ``[cluster] maximum_allocation`` (YARN's
        ``yarn.scheduler.maximum-allocation-*``; no bound when unknown), then each queue from
        root down to ``path`` replacing the values it sets (``maximum-allocation-mb``,
        ``-vcores``)."""
        cluster = self._maximum_allocation
        memory = float(cluster.memory) if cluster is not None else math.inf
        vcores = float(cluster.vcores) if cluster is not None else math.inf
        parts = path.split(".")
        for i in range(1, len(parts) + 1):
            q = conf.queues[".".join(parts[:i])]
            if q.maximum_allocation_mb is not None:
                memory = q.maximum_allocation_mb
            if q.maximum_allocation_vcores is not None:
                vcores = q.maximum_allocation_vcores
        return memory, vcores

    def _maximum_allocation_problems(self, conf: Any) -> list[str]:
        """``AbstractCSQueue.setupMaximumAllocation``'s refusal: a queue's own
        ``maximum-allocation-mb`` or ``-vcores`` above the cluster's maximum allocation."""
        cluster = self._maximum_allocation
        if cluster is None:
            return []
        problems = []
        for path, q in conf.queues.items():
            if ((q.maximum_allocation_mb is not None and q.maximum_allocation_mb > cluster.memory)
                    or (q.maximum_allocation_vcores is not None and q.maximum_allocation_vcores > cluster.vcores)):
                problems.append(f"Queue maximum allocation cannot be larger than the cluster setting for queue {path} "
                                f"max allocation per queue: {_resource(self.maximum_allocation(conf, path))} "
                                f"cluster setting: {_resource((cluster.memory, cluster.vcores))} "
                                "([cluster] maximum_allocation)")
        return problems

    # ------------------------------------------------------------------ PoolResolver
    @hookimpl
    def cs_resolve_pool(self, job: JobSpec, allocations: Any, queues: Mapping[str, str]) -> str | Rejection | None:
        """``CapacityScheduler.addApplication`` after the placement rules: the app's queue is
        the one ``queue-mappings`` give (``UserGroupMappingPlacementRule``), else the one it
        names, else ``default`` (YARN's ``DEFAULT_QUEUE_NAME``, as ``RMAppManager`` sets it);
        refused past the system's ``maximum-applications`` (``isSystemAppsLimitReached``), to
        an unknown queue (a file without a leaf ``default`` refuses an app naming none), to a
        parent, to a STOPPED queue, past the leaf's ``maximum-applications`` or the user's
        maximum applications in it (``LeafQueue.validateSubmitApplication``)."""
        conf = capacity_conf(allocations)
        if conf is None:
            return None
        # RMAppManager: an app naming no queue is submitted to YarnConfiguration.DEFAULT_QUEUE_NAME
        requested = job.pool or "default"
        try:
            mapped = mapped_queue(conf, str(job.user), tuple(job.groups or ()))
        except _MappingError as exc:  # getPlacementForApp: "Failed to submit application …"
            return Rejection(f"Failed to submit application{_named(job)} submitted by user {job.user} reason: {exc}")
        # getPlacementForApp: "We have a mapping, should we use it?"
        use = mapped is not None and (requested == "default" or requested == mapped.rpartition(".")[2]
                                      or conf.mappings_override)
        name = mapped if use and mapped is not None else requested
        placed = sum(self._apps.values())
        if placed >= conf.maximum_applications:  # CapacityScheduler.isSystemAppsLimitReached
            return Rejection(f"Maximum system application limit reached, cannot accept submission of application"
                             f"{_after(job)} ({placed} applications; maximum-applications {conf.maximum_applications})")
        path = conf.resolve(name)
        if path is None:
            return Rejection(f"Application{_named(job)} submitted by user {job.user} to unknown queue: {name} "
                             f"(capacity file {conf.source})")
        leaf = conf.queues[path]
        if not leaf.is_leaf:
            return Rejection(f"Application{_named(job)} submitted by user : {job.user} to non-leaf queue : {path}")
        stopped = [p for p in (path, *_ancestors(path)) if conf.queues[p].state == "STOPPED"]
        if stopped:
            return Rejection(f"Queue {path} is STOPPED. Cannot accept submission of application{_after(job)}")
        refusal = self._application_limits(conf, path, job)
        if refusal is not None:
            return refusal
        # CapacityScheduler.checkAndGetApplicationPriority: the submitter's priority ACL
        refusal = self.priority_refusal(job, path)  # type: ignore[attr-defined]
        return refusal if refusal is not None else path

    def _application_limits(self, conf: Any, path: str, job: Any) -> Rejection | None:
        """``LeafQueue.validateSubmitApplication``'s counts, for a submission or a move into leaf
        ``path``: the leaf's ``maximum-applications``, then the user's ("Check submission limits
        for the user on this queue": ``User.getTotalApplications``, pending and active, against
        ``getMaxApplicationsPerUser``)."""
        limit = self.max_applications(conf, path)
        placed = self._apps.get(path, 0)
        if placed >= limit:
            return Rejection(f"Queue {path} already has {placed} applications, cannot accept submission of "
                             f"application{_after(job)} (maximum-applications {limit})")
        mine = self._user_applications(path, job.user)
        per_user = conf.max_applications_per_user(path, limit)
        if mine >= per_user:
            return Rejection(f"Queue {path} already has {mine} applications from user {job.user} cannot accept "
                             f"submission of application{_after(job)} (maximum applications per user {per_user}: "
                             "maximum-applications × minimum-user-limit-percent × user-limit-factor)")
        return None

    def _user_applications(self, path: str, user: str) -> int:
        """``User.getTotalApplications`` of ``user`` in leaf ``path``: its placed apps, less
        those not runnable for ``max-parallel-apps`` (``LeafQueue.addApplicationAttempt``
        returns before ``user.submitApplication()`` for them)."""
        mine = self._users.get(path, {}).get(user, 0)
        queue = self._live.get(path)
        if mine and queue is not None and queue.waiting_apps:
            mine -= sum(1 for waiting in queue.waiting_apps if waiting.user == user)
        return mine


def _named(job: Any) -> str:
    """`` ID`` of the application in Hadoop's messages, or nothing before it has one (a
    submission is placed before it is numbered: it read "Application None submitted …")."""
    return f" {job.id}" if job.id is not None else ""


def _after(job: Any) -> str:
    """``: ID`` ending Hadoop's "cannot accept submission of application: ID", or nothing."""
    return f": {job.id}" if job.id is not None else ""


def _ancestors(path: str) -> list[str]:
    out = []
    head, dot, _ = path.rpartition(".")
    while dot:
        out.append(head)
        head, dot, _ = head.rpartition(".")
    return out


class _MappingError(Exception):
    """A mapping that fails the submission (Hadoop's ``IOException`` in the placement rule)."""


def mapped_queue(conf: Any, user: str, groups: tuple[str, ...]) -> str | None:
    """``UserGroupMappingPlacementRule.getPlacementForUser`` (Hadoop 3.3): the queue path the
    first mapping whose source matches the user gives, or None.  The first matching mapping
    decides: when its queue does not exist it gives None, and the later mappings are not
    tried.  ``u:%user:…`` matches every user; ``u:<user>:…`` that user; ``g:<group>:…`` a
    user in the group.  The queue (``[parent.]leaf``): ``%user`` is the user,
    ``%primary_group`` its first group, ``%secondary_group`` the first of its other groups
    that names a queue; ``u:%user:%primary_group.%user`` (or ``%secondary_group.%user``)
    is the user's queue under its group's queue, which must exist
    (``getContextForGroupParent``, ``validateQueueMapping``).  ``_MappingError``: an
    ambiguous short name, a missing user queue under its group."""
    for kind, source, queue in conf.queue_mappings:
        parent, dot, leaf = queue.rpartition(".")
        under = parent if dot else None
        if kind == "u" and source in ("%user", user):
            if source == "%user" and leaf == "%user":
                if under in ("%primary_group", "%secondary_group"):
                    group = _primary(user, groups) if under == "%primary_group" else _secondary(conf, groups)
                    return _group_parent(conf, group, user)
                return _context(conf, under, user)
            if leaf == "%primary_group":
                primary = _primary(user, groups)
                return _context(conf, under, primary) if primary is not None else None
            if leaf == "%secondary_group":
                secondary = _secondary(conf, groups)
                return _context(conf, under, secondary) if secondary is not None else None
            return _context(conf, under, leaf)
        if kind == "g" and source in groups:
            return _context(conf, under, user if leaf == "%user" else leaf)
    return None


def _primary(user: str, groups: tuple[str, ...]) -> str | None:
    """``groups.getGroups(user).get(0)``; None for a user without groups (traces rarely carry
    them), where Hadoop's ``Groups`` fails the submission ("No groups found for user")."""
    return groups[0] if groups else None


def _secondary(conf: Any, groups: tuple[str, ...]) -> str | None:
    """``getSecondaryGroup``: the first of the user's other groups that names a queue."""
    return next((g for g in groups[1:] if conf.resolve(g) is not None), None)


def _context(conf: Any, parent: str | None, leaf: str) -> str | None:
    """``getPlacementContext``: without a parent, the queue ``leaf`` names (an ambiguous short
    name fails the submission), else None; with one, ``leaf`` under the queue ``parent``
    names when both exist (no managed parents: no auto-created queues), else None."""
    if parent is None:
        if conf.is_ambiguous(leaf):
            raise _MappingError(f"mapping contains ambiguous leaf queue reference {leaf}")
        return conf.resolve(leaf)  # getPlacementContextNoParent
    under = conf.resolve(parent)  # getPlacementContextWithParent
    if under is None:
        return None
    path = f"{under}.{leaf}"
    return path if path in conf.queues else None


def _group_parent(conf: Any, group: str | None, user: str) -> str | None:
    """``getContextForGroupParent``: the user's leaf under its group's queue; None when the
    group names no queue; ``validateQueueMapping`` fails the submission when the user has no
    leaf there."""
    if group is None:
        return None
    under = conf.resolve(group)
    if under is None:
        return None
    path = f"{under}.{user}"
    if path not in conf.queues or not conf.queues[path].is_leaf:
        raise _MappingError(f"mapping contains invalid or non-leaf queue  and no managed parent is found: {path}")
    return path
