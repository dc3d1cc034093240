"""``property``: the default PoolResolver — the pool is a job property.

Hadoop 1.x fair scheduler: ``mapred.fairscheduler.poolnameproperty`` names
the job-conf property holding the pool (default ``user.name``); a job without
it goes to the ``default`` pool (``PoolManager.getPoolName``).  Here the
property (or properties, tried in order) is ``pool_name_property``, default
``["queue.name", "user.name"]``: the requested pool, else the user's name.

An MR1 allocation file's ``<poolPlacementPolicy>`` (Hadoop branch-1) then decides from that
requested pool (``"default"`` when no property is set) and the user, as
``PoolManager.getPoolName`` does: :func:`assign_job_to_pool`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from corescheduler.core.allocations import DEFAULT_POOL, Allocations
from corescheduler.core.model import JobSpec, Rejection
from corescheduler.core.queues import PlacementRuleSpec
from corescheduler.hookspecs import hookimpl
from corescheduler.settings import Settings

#: ``PoolManager.getSimplePlacementRules`` with allow.undeclared.pools false
_SIMPLE_RULES = (PlacementRuleSpec("specified", create=False), PlacementRuleSpec("default", create=True))


def assign_job_to_pool(
    rules: Sequence[PlacementRuleSpec], requested: str, user: str | None, groups: Sequence[str],
    configured: Collection[str],
) -> str | None:
    """Hadoop branch-1 ``PoolPlacementPolicy.assignJobToPool``: the first rule that places the job
    (``PoolPlacementRule.assignJobToPool``: its pool if ``create`` or the file declares it, else
    the next rule); ``None`` when ``reject`` refuses it.  ``specified`` passes a request for
    ``default``; ``user`` and ``primaryGroup`` give ``default`` when there is no user or group."""
    for rule in rules:
        if rule.name == "reject":
            return None
        if rule.name == "specified":
            pool = "" if requested == DEFAULT_POOL else requested
        elif rule.name == "user":
            pool = user if user is not None else DEFAULT_POOL
        elif rule.name == "primaryGroup":
            pool = groups[0] if user is not None and groups else DEFAULT_POOL
        else:  # default
            pool = DEFAULT_POOL
        if pool and (rule.create or pool in configured):
            return pool
    return DEFAULT_POOL  # not reached: the parser requires a terminal last rule


class PropertyResolver:
    """Put a job in the pool named by its first set ``pool_name_property``."""

    def __init__(self, settings: Mapping[str, Any], context: Any = None) -> None:
        sched = getattr(getattr(context, "config", None), "scheduler", None)
        #: slot mode: Hadoop 1.x placement (``<poolPlacementPolicy>``, allow.undeclared.pools)
        self.slot_mode = getattr(sched, "mode", "slots") != "resources"
        #: ``mapred.fairscheduler.allow.undeclared.pools`` (``[scheduler] allow_undeclared_pools``)
        self.allow_undeclared = bool(getattr(sched, "allow_undeclared_pools", True))
        s = Settings(settings, plugin="property")
        self.properties = s.names("pool_name_property", ("queue.name", "user.name"))
        s.finish()

    @hookimpl
    def cs_resolve_pool(self, job: JobSpec, allocations: Allocations) -> str | Rejection | None:
        requested = None
        for name in self.properties:
            value = job.property(name)
            if value not in (None, ""):
                requested = str(value)
                break
        rules = allocations.pool_placement if allocations is not None and self.slot_mode else None
        if not rules and (self.allow_undeclared or not self.slot_mode or allocations is None):
            return requested
        declared = allocations.pools.keys()
        if not rules:  # PoolManager.getSimplePlacementRules: specified (create = allow.undeclared.pools), default
            rules = _SIMPLE_RULES
        # PoolManager.getPoolName: the requested pool (trimmed; "default" without one), then the policy
        pool = assign_job_to_pool(rules, (requested or DEFAULT_POOL).strip(), job.user, tuple(job.groups or ()),
                                  declared)
        if pool is None:
            return Rejection("the allocation file's <poolPlacementPolicy> rejected the job (its <reject/> rule)")
        if not self.allow_undeclared and pool not in declared:
            # FairScheduler.checkJobSubmission (UndeclaredPoolException)
            return Rejection(f"Pool name: '{pool}' is invalid. Add pool name to the fair scheduler allocation file. "
                             f"Valid pools are: {', '.join(sorted(declared))}")
        return pool
