"""The allocations: what an allocation file says about pools and users.

Hadoop 1.x ``PoolManager``'s state as frozen :mod:`attrs` values — each pool's
minimum and maximum map/reduce slots, weight, running-job limit, scheduling
mode and min-share preemption timeout, per-user running-job limits, and the
file-wide defaults — with the lookups the scheduler makes
(``PoolManager.getPoolMaxJobs``, ``getUserMaxJobs``, ...).  Reading the XML
file is the format layer's job: :mod:`corescheduler.formats.allocation_file`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import attrs

from corescheduler.core.queues import INT_MAX, ROOT, PlacementRuleSpec, QueueConfig, QueueSpec

__all__ = [
    "DEFAULT_POOL",
    "INF",
    "KINDS",
    "SCHEDULING_MODES",
    "Allocations",
    "PoolSpec",
    "UserSpec",
]

INF = math.inf
KINDS = ("map", "reduce")
SCHEDULING_MODES = ("fair", "fifo")
DEFAULT_POOL = "default"  # Hadoop's Pool.DEFAULT_POOL_NAME, which always exists

_NON_NEGATIVE = attrs.validators.ge(0)
_OPTIONAL_NON_NEGATIVE = attrs.validators.optional(_NON_NEGATIVE)


@attrs.frozen
class PoolSpec:
    """One ``<pool>`` of the allocation file.

    ``None`` means "not given": unlimited for ``max_maps``/``max_reduces``, and
    the file-wide default (see :class:`Allocations`) for the other optional fields.
    """

    name: str
    min_maps: int = attrs.field(default=0, validator=_NON_NEGATIVE)
    min_reduces: int = attrs.field(default=0, validator=_NON_NEGATIVE)
    max_maps: int | None = attrs.field(default=None, validator=_OPTIONAL_NON_NEGATIVE)
    max_reduces: int | None = attrs.field(default=None, validator=_OPTIONAL_NON_NEGATIVE)
    max_running_jobs: int | None = attrs.field(default=None, validator=_OPTIONAL_NON_NEGATIVE)
    weight: float = attrs.field(default=1.0, converter=float, validator=_NON_NEGATIVE)
    scheduling_mode: str | None = None
    min_share_preemption_timeout: float | None = attrs.field(default=None, validator=_OPTIONAL_NON_NEGATIVE)
    line: int | None = None

    def min_share(self, kind: str) -> int:
        """Guaranteed slots of ``kind`` ("map" or "reduce"): ``minMaps``/``minReduces``."""
        return self.min_maps if _check_kind(kind) == "map" else self.min_reduces

    def max_share(self, kind: str) -> float:
        """Slot cap of ``kind``: ``maxMaps``/``maxReduces``, ``math.inf`` when not set."""
        cap = self.max_maps if _check_kind(kind) == "map" else self.max_reduces
        return INF if cap is None else cap


@attrs.frozen
class UserSpec:
    """One ``<user name="...">``: its running-job limit (``None`` = ``userMaxJobsDefault``)."""

    name: str
    max_running_jobs: int | None = attrs.field(default=None, validator=_OPTIONAL_NON_NEGATIVE)
    line: int | None = None


@attrs.frozen
class Allocations:
    """The contents of one allocation file (Hadoop 1.x ``PoolManager`` state).

    Defaults are Hadoop's: ``Integer.MAX_VALUE`` running jobs and
    ``Long.MAX_VALUE`` timeouts, both represented as ``math.inf``; the
    default pool scheduling mode is ``"fair"``.  Times are float seconds.
    """

    pools: Mapping[str, PoolSpec] = attrs.field(converter=dict)
    users: Mapping[str, UserSpec] = attrs.field(converter=dict)
    user_max_jobs_default: float = INF
    pool_max_jobs_default: float = INF
    default_min_share_preemption_timeout: float = INF
    fair_share_preemption_timeout: float = INF
    default_pool_scheduling_mode: str = "fair"
    source: str | None = None
    #: whether the file set ``defaultPoolSchedulingMode`` (else pools without a
    #: ``schedulingMode`` follow the cluster's share policy, see :meth:`pool_policy`)
    default_mode_given: bool = False
    warnings: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    #: the queue tree of a YARN allocation file (``dialect == "yarn"``); for an MR1
    #: file :meth:`queue_config` derives one (each pool a leaf under ``root``)
    queues: QueueConfig | None = None
    #: which allocation-file dialect the file was written in: ``"mr1"``, ``"yarn"`` or
    #: ``"yarn_capacity"`` (a YARN ``capacity-scheduler.xml``)
    dialect: str = "mr1"
    #: what the file says beyond the queue tree, for the share policy that reads it (the
    #: core passes it through untouched; e.g. a capacity file's capacities and limits);
    #: policies see it through ``SharePolicy.configure``
    policy_config: object = attrs.field(default=None, eq=False)
    #: an MR1 file's ``<poolPlacementPolicy>`` (Hadoop branch-1 ``PoolPlacementPolicy``), its
    #: rules in order with their MR1 names (specified, user, primaryGroup, default, reject);
    #: None without one.  The ``property`` resolver applies it (``PoolManager.getPoolName``)
    pool_placement: tuple[PlacementRuleSpec, ...] | None = None
    #: the queue tree derived from an MR1 file, once built (see :meth:`queue_config`)
    _derived: list[QueueConfig] = attrs.field(factory=list, eq=False, repr=False)

    def pool(self, name: str) -> PoolSpec:
        """The declared spec of pool ``name``, or ``PoolSpec(name)`` with all defaults."""
        spec = self.pools.get(name)
        return spec if spec is not None else PoolSpec(name)

    def pool_names(self) -> list[str]:
        """Declared pools in file order, plus ``"default"`` (first) if not declared."""
        names = list(self.pools)
        return names if DEFAULT_POOL in self.pools else [DEFAULT_POOL, *names]

    def pool_max_jobs(self, pool: str) -> float:
        """Running-job limit of ``pool`` (``PoolManager.getPoolMaxJobs``)."""
        spec = self.pools.get(pool)  # not self.pool(pool): runs for every job on every update
        limit = spec.max_running_jobs if spec is not None else None
        return self.pool_max_jobs_default if limit is None else limit

    def user_max_jobs(self, user: str) -> float:
        """Running-job limit of ``user`` (``PoolManager.getUserMaxJobs``)."""
        spec = self.users.get(user)
        if spec is None or spec.max_running_jobs is None:
            return self.user_max_jobs_default
        return spec.max_running_jobs

    def min_share_preemption_timeout(self, pool: str) -> float:
        """Seconds ``pool`` waits below its min share before preempting."""
        timeout = self.pool(pool).min_share_preemption_timeout
        return self.default_min_share_preemption_timeout if timeout is None else timeout

    def scheduling_mode(self, pool: str) -> str:
        """How jobs inside ``pool`` share it: its ``schedulingMode`` or the default."""
        mode = self.pool(pool).scheduling_mode
        return self.default_pool_scheduling_mode if mode is None else mode

    def pool_policy(self, pool: str, cluster_policy: str = "fair") -> str:
        """The share policy dividing ``pool`` among its jobs: its ``schedulingMode``,
        else ``defaultPoolSchedulingMode``, else the cluster's ``share_policy``
        (so ``share_policy = "capacity"`` runs capacity queues inside and out)."""
        mode = self.pool(pool).scheduling_mode
        if mode is not None:
            return mode
        return self.default_pool_scheduling_mode if self.default_mode_given else cluster_policy

    def queue_config(self) -> QueueConfig:
        """The queue tree: a YARN file's own, or an MR1 file's pools as leaves of
        ``root`` (weight, running-job limit as ``maxRunningApps``, scheduling mode
        as policy, min-share preemption timeout; user limits and defaults)."""
        if self.queues is not None:
            return self.queues
        if self._derived:
            return self._derived[0]
        specs: dict[str, QueueSpec] = {}
        for name in self.pool_names():
            pool = self.pool(name)
            full = f"{ROOT}.{name}"
            limit = pool.max_running_jobs
            specs[full] = QueueSpec(
                full,
                max_running_apps=None if limit is None else limit,
                weight=pool.weight,
                scheduling_policy=pool.scheduling_mode,
                min_share_preemption_timeout=pool.min_share_preemption_timeout,
                line=pool.line,
            )
        # poolMaxJobsDefault limits each pool, not the cluster: root has no running-app limit
        specs[ROOT] = QueueSpec(ROOT, is_parent=True, children=tuple(specs), max_running_apps=INT_MAX)

        def count(value: float) -> int:
            return INT_MAX if math.isinf(value) else int(value)

        derived = QueueConfig(
            queues=specs,
            user_max_apps={u.name: u.max_running_jobs for u in self.users.values() if u.max_running_jobs is not None},
            user_max_apps_default=count(self.user_max_jobs_default),
            queue_max_apps_default=count(self.pool_max_jobs_default),
            default_min_share_preemption_timeout=self.default_min_share_preemption_timeout,
            default_fair_share_preemption_timeout=self.fair_share_preemption_timeout,
            default_queue_scheduling_policy=self.default_pool_scheduling_mode if self.default_mode_given else "fair",
            default_policy_given=self.default_mode_given,
        )
        self._derived.append(derived)
        return derived

    @classmethod
    def empty(cls) -> Allocations:
        """No pools, no users, Hadoop defaults everywhere (no allocation file)."""
        return cls(pools={}, users={})


def _check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    return kind
