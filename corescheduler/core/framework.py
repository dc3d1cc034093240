"""The framework as the core sees it: what the engine takes from the plugin manager and the
configuration, named as protocols here so that the core imports neither.

The framework (:mod:`corescheduler.plugin_manager`, :mod:`corescheduler.config`) sits above
the core: it speaks the core's vocabulary (the model, the share-policy contract, the checks
on hook answers) and the core names only these protocols.  The engine is handed

* its settings as plain data — :class:`EngineConfig`, the ``[scheduler]`` and ``[cluster]``
  values it reads (:class:`~corescheduler.config.Config` is one);
* its plugins as callers — :class:`Plugins`, one caller per hook in config order
  (:class:`~corescheduler.plugin_manager.PluginSet` is one), and each share policy as a
  :class:`SharePolicyCallers`.

A :class:`~corescheduler.core.scheduler.Scheduler` built without ``plugins=`` gets them
from :func:`plugin_set`, which the framework provides (:func:`provide_plugin_set`, called
by ``corescheduler/__init__.py``, which Python runs before any module of the core): the
core calls the plugin manager it is given and never imports it.  Hadoop's schedulers take
their policies the same way, by name through the configuration (``SchedulingPolicy.parse``
reflects on the class), and the Kubernetes scheduler framework builds its plugins from a
registry the caller fills.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from attrs import field, frozen

from corescheduler.errors import SchedulerStateError

if TYPE_CHECKING:
    from corescheduler.core.hook_answers import Who
    from corescheduler.core.policy import SharePolicy
    from corescheduler.core.resources import Resources
    from corescheduler.errors import PluginExecutionError

__all__ = [
    "ClusterSettings",
    "EngineConfig",
    "Plugins",
    "SchedulerSettings",
    "SharePolicyCallers",
    "plugin_set",
    "provide_plugin_set",
]


class SchedulerSettings(Protocol):
    """The ``[scheduler]`` values the engine reads (:class:`~corescheduler.config.SchedulerConfig`)."""

    @property
    def mode(self) -> str: ...
    @property
    def load_manager(self) -> str: ...
    @property
    def task_selector(self) -> str: ...
    @property
    def share_policy(self) -> str: ...
    @property
    def victim_selector(self) -> str: ...
    @property
    def assign_multiple(self) -> bool: ...
    @property
    def map_assign_cap(self) -> int: ...
    @property
    def reduce_assign_cap(self) -> int: ...
    @property
    def max_assign(self) -> int: ...
    @property
    def dynamic_max_assign(self) -> bool: ...
    @property
    def reduce_slowstart(self) -> float: ...
    @property
    def preemption(self) -> bool: ...
    @property
    def preemption_interval(self) -> float: ...
    @property
    def preemption_only_log(self) -> bool: ...
    @property
    def preemption_utilization_threshold(self) -> float: ...
    @property
    def task_resources(self) -> Resources: ...
    @property
    def reservation_threshold(self) -> Resources: ...
    @property
    def reservable_nodes(self) -> float: ...


class ClusterSettings(Protocol):
    """The ``[cluster]`` values the engine reads (:class:`~corescheduler.config.ClusterConfig`)."""

    @property
    def node_resources(self) -> Resources: ...
    @property
    def minimum_allocation(self) -> Resources: ...
    @property
    def increment_allocation(self) -> Resources: ...
    @property
    def maximum_allocation(self) -> Resources: ...
    @property
    def network_distances(self) -> tuple[float, float, float]: ...

    def next_heartbeat_interval(self, nodes: int) -> float:
        """Seconds between a node's heartbeats on a cluster of ``nodes``."""
        ...


class EngineConfig(Protocol):
    """The configuration an engine runs with (:class:`~corescheduler.config.Config` is one)."""

    @property
    def scheduler(self) -> SchedulerSettings: ...
    @property
    def cluster(self) -> ClusterSettings: ...


@frozen
class SharePolicyCallers:
    """A share policy ready to call: its plugin's name, the
    :class:`~corescheduler.core.policy.SharePolicy` object, and its methods as the engine
    calls them (the optional ones None when the policy keeps the base class's default)."""

    name: str
    compute_shares: Callable[..., Any]
    order_key: Callable[..., Any]
    plan_preemption: Callable[..., Any] | None
    admit_job: Callable[..., Any] | None = None
    next_kind: Callable[..., Any] | None = None
    compute_shares_many: Callable[..., Any] | None = None
    policy: SharePolicy = field(default=None, eq=False)
    preemption_hint: Callable[..., Any] | None = None

    @property
    def calc(self) -> Any:
        """The policy's calculator (:attr:`SharePolicy.calc`)."""
        return self.policy.calc


class Plugins(Protocol):
    """The plugins one scheduler uses, as the engine calls them: for each extension point
    the callers of its hooks in config order (optional hooks None when no plugin in use
    implements them), the share policies by name, the notification listeners, and who
    answered or failed (for :mod:`~corescheduler.core.hook_answers`' errors)."""

    resolvers: list[Callable[..., Any]]
    resolver_names: list[str]
    known_pools: list[Callable[..., Any]]
    known_pool_names: list[str]
    weight_adjusters: list[Callable[..., Any]]
    weight_adjuster_names: list[str]
    can_assign: Callable[..., Any]
    can_launch: Callable[..., Any] | None
    fits: Callable[..., Any] | None
    can_compute: Callable[..., Any] | None
    node_capacity: Callable[..., Any] | None
    select_task: Callable[..., Any]
    select_hint: Callable[..., Any] | None
    select_ask: Callable[..., Any] | None
    select_victims: Callable[..., Any]
    root_policy: SharePolicyCallers

    def who(self, point: str, name: str) -> Who:
        """The plugin ``name`` at ``point``, as hook answers' errors name it."""
        ...

    def blame(self, exc: BaseException) -> PluginExecutionError | None:
        """The error naming the plugin that raised ``exc``, or None if no plugin did."""
        ...

    def share_policy(self, name: str, key: str | None = None) -> SharePolicyCallers:
        """The share policy ``name``, loaded once (``key``: the setting that names it)."""
        ...

    def listeners(self, hook: str) -> list[Callable[..., Any]]:
        """Callers of a notification hook on every plugin in use, config order."""
        ...

    def quiet_heartbeats(self) -> Callable[..., Any] | None:
        """The TaskSelector's ``cs_select_hint`` if no other plugin listens to heartbeats."""
        ...

    def empty_nodes_take_tasks(self) -> bool:
        """The LoadManager's ``empty_nodes_take_tasks`` declaration."""
        ...

    def preemption_hint(self) -> Callable[..., Any] | None:
        """The root share policy's ``preemption_hint``, or None."""
        ...


#: builds a scheduler's plugins from its configuration, its in-process plugins
#: (``extra_plugins``) and its current heartbeat interval
PluginSetFactory = Callable[[EngineConfig, "Mapping[str, Any] | None", Callable[[], float]], Plugins]

_factory: list[PluginSetFactory] = []


def provide_plugin_set(factory: PluginSetFactory) -> None:
    """Set how a scheduler given no ``plugins=`` builds them (the framework's
    :class:`~corescheduler.plugin_manager.PluginSet`; ``corescheduler/__init__.py`` sets it)."""
    _factory[:] = [factory]


def plugin_set(
    config: EngineConfig, extra: Mapping[str, Any] | None, heartbeat_interval: Callable[[], float]
) -> Plugins:
    """The plugins ``config`` selects, built by the framework's factory (:func:`provide_plugin_set`)."""
    if not _factory:
        raise SchedulerStateError("no plugin manager to build the scheduler's plugins: pass plugins= "
                                  "or import corescheduler (which provides its PluginSet)")
    return _factory[0](config, extra, heartbeat_interval)
