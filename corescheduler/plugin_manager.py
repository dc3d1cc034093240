"""Finding, loading and validating plugins (find → load → validate, as flake8).

* **find**: entry points in the ``corescheduler`` group, from every installed
  distribution, sorted by name; the built-ins are the ``corescheduler``
  distribution's own entry points and take exactly the same path.  With
  ``CORESCHEDULER_DISABLE_PLUGIN_AUTOLOAD=1`` only the built-ins are found.
* **load**: a plugin is imported only when the config uses it; names in
  ``[scheduler] blocked_plugins`` are never imported.  The entry point names a
  class (instantiated with the plugin's ``[plugins.NAME]`` table), a factory
  function (called with it) or a module/object (used as is; no settings).
* **validate**: each instance is registered with pluggy against
  :mod:`corescheduler.hookspecs` and ``check_pending()`` rejects misspelled
  hooks; each selected plugin must implement its extension point's hook.

The order of plugins at an extension point is the config's order.  Hooks are
called through small callers built here (not pluggy's broadcast), which pass
each implementation only the arguments it names.  Any exception a plugin
raises becomes one :class:`~corescheduler.errors.PluginExecutionError` such as
``running TaskSelector plugin 'delay' (corescheduler[delay]): …``: the
scheduler's public methods hand what they catch to :meth:`PluginSet.blame`,
which finds the plugin by the outermost hook implementation on the
traceback.  So the hot path (millions of hook calls in a simulated day) pays
for no per-call ``try`` frame, only the failing call pays.
"""

from __future__ import annotations

import functools
import importlib.metadata as md
import inspect
import operator
import os
import re
from collections.abc import Callable, Iterable, Mapping
from types import CodeType, FunctionType, ModuleType
from typing import Any, cast

import pluggy
from attrs import field, frozen

from corescheduler import hookspecs, share_policy_shim
from corescheduler.config import Config
from corescheduler.core.framework import EngineConfig, SharePolicyCallers
from corescheduler.core.hook_answers import Who, refuse
from corescheduler.core.policy import OPTIONAL, SharePolicy, calculators
from corescheduler.errors import (
    ConfigError,
    PluginError,
    PluginExecutionError,
    PluginLoadError,
    SettingsError,
)
from corescheduler.settings import closest_name

GROUP = "corescheduler"
BUILTIN_DIST = "corescheduler"
DISABLE_AUTOLOAD_ENV = "CORESCHEDULER_DISABLE_PLUGIN_AUTOLOAD"
IMPL_ATTR = f"{hookspecs.PROJECT}_impl"

#: Config key of each extension point (for messages).
POINT_KEYS = {
    "PoolResolver": "pool_resolver",
    "WeightAdjuster": "weight_adjusters",
    "LoadManager": "load_manager",
    "TaskSelector": "task_selector",
    "SharePolicy": "share_policy",
    "VictimSelector": "victim_selector",
    "Listener": "listeners",
}
#: The hook a plugin must implement to serve at an extension point.
REQUIRED_HOOK = {
    "PoolResolver": "cs_resolve_pool",
    "WeightAdjuster": "cs_adjust_weight",
    "LoadManager": "cs_can_assign",
    "TaskSelector": "cs_select_task",
    "SharePolicy": "cs_share_policy",
    "VictimSelector": "cs_select_victims",
}


#: The extension point each hook belongs to (notifications: "Listener").
HOOK_POINT = {hook: point for point, hooks in hookspecs.EXTENSION_POINTS.items() for hook in hooks}
HOOK_POINT.update({hook: "Listener" for hook in hookspecs.NOTIFICATION_HOOKS})
HOOK_POINT.update({hook: "SharePolicy" for hook in share_policy_shim.OLD_HOOKS})  # deprecated
#: the methods of a share policy the engine calls (whose errors name the policy's plugin)
POLICY_METHODS = ("order_key", "compute_shares", *OPTIONAL, "allows_child")


@frozen
class PluginInfo:
    """A discovered plugin: its entry-point name, distribution and target."""

    name: str
    dist: str
    version: str
    value: str
    entry_point: Any = None

    @property
    def origin(self) -> str:
        """``dist[entry]``, how messages name the plugin."""
        return f"{self.dist}[{self.name}]"

    @property
    def builtin(self) -> bool:
        return self.dist == BUILTIN_DIST


def autoload_disabled() -> bool:
    return os.environ.get(DISABLE_AUTOLOAD_ENV, "").strip().lower() not in ("", "0", "false", "no")


@functools.lru_cache(maxsize=4)
def _discover(builtins_only: bool) -> tuple[dict[str, PluginInfo], dict[str, list[PluginInfo]]]:
    found: dict[str, PluginInfo] = {}
    clashes: dict[str, list[PluginInfo]] = {}
    eps = sorted(md.entry_points(group=GROUP), key=lambda ep: (ep.name, _dist_name(ep)))
    for ep in eps:
        dist = _dist_name(ep)
        if builtins_only and dist != BUILTIN_DIST:
            continue
        info = PluginInfo(ep.name, dist, _dist_version(ep), ep.value, ep)
        if ep.name in found and found[ep.name].dist != dist:
            # a name is one plugin: a clash makes it unusable (ensure(), docs/hooks.md),
            # built-in or not; it is listed under the built-in's metadata, if one is in it
            clashes.setdefault(ep.name, [found[ep.name]]).append(info)
            if info.builtin:
                found[ep.name] = info
            continue
        found.setdefault(ep.name, info)
    return found, clashes


def name_clash(name: str, builtins_only: bool | None = None) -> PluginLoadError | None:
    """The error for plugin ``name`` if several distributions register it, else None."""
    if builtins_only is None:
        builtins_only = autoload_disabled()
    clash = _discover(builtins_only)[1].get(name)
    if not clash:
        return None
    dists = ", ".join(i.origin for i in clash)
    return PluginLoadError(
        f"plugin name {name!r} is registered by several distributions: {dists}; "
        "a name must be one plugin: uninstall all but one of them"
    )


def _in_process_clash(name: str, target: Any, info: PluginInfo) -> PluginLoadError | None:
    """The error for an in-process plugin (the harness's ``plugins=``) named like the
    installed plugin ``info``, else None: the same rule as two distributions (a name is
    one plugin), except that handing in the installed entry point's own target (a
    package testing itself after ``pip install -e``) is the same plugin, not a clash."""
    try:
        installed = load_plugin(info)
    except PluginLoadError:
        installed = None
    if installed is not None and installed is target:
        return None
    return PluginLoadError(
        f"plugin name {name!r} is registered twice: installed as {info.origin} and handed in "
        f"as <in-process>[{name}]; a name must be one plugin: give the in-process one another name"
    )


def _dist_name(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    return dist.metadata["Name"] if dist is not None else "?"


def _dist_version(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    return dist.version if dist is not None else "?"


def find_plugins(builtins_only: bool | None = None) -> dict[str, PluginInfo]:
    """Every discoverable plugin by name, sorted (metadata only, nothing imported)."""
    if builtins_only is None:
        builtins_only = autoload_disabled()
    return dict(_discover(builtins_only)[0])


def refresh() -> None:
    """Forget cached discovery (after installing a distribution in-process)."""
    _discover.cache_clear()
    md.distributions.cache_clear() if hasattr(md.distributions, "cache_clear") else None


def load_plugin(info: PluginInfo) -> Any:
    """Import the entry point's target; failures name ``dist[entry]``."""
    try:
        return info.entry_point.load()
    except (Exception, SystemExit) as exc:  # a module that calls sys.exit() on import too
        raise PluginLoadError(
            f"plugin {info.origin}: cannot load {info.value!r}: {type(exc).__name__}: {exc}"
        ) from exc


def hooks_of(obj: Any) -> list[str]:
    """The hook names a plugin object, class or module implements."""
    names = []
    for attr in dir(obj):
        if attr.startswith("cs_"):
            fn = getattr(obj, attr, None)
            if fn is not None and getattr(fn, IMPL_ATTR, None) is not None:
                names.append(attr)
    return names


def points_of(hooks: Iterable[str]) -> list[str]:
    """Extension points served by a set of hook names."""
    hooks = set(hooks)
    points = [p for p, required in REQUIRED_HOOK.items() if required in hooks]
    if "cs_compute_shares" in hooks and "SharePolicy" not in points:  # the deprecated hooks (shim)
        points.append("SharePolicy")
    if hooks & set(hookspecs.NOTIFICATION_HOOKS) and not points:
        points.append("Listener")
    return points


@frozen
class PluginContext:
    """What a plugin may know besides its own settings: its name, the whole
    (read-only) config, e.g. ``context.config.cluster.heartbeat_interval``,
    and ``context.heartbeat_interval()``: the seconds between a node's
    heartbeats now (Hadoop's ``JobTracker.getNextHeartbeatInterval``, which
    grows with the cluster when ``[cluster] heartbeats_per_second`` is set).
    Handed as a second constructor argument to plugins whose constructor takes two."""

    name: str
    config: Config
    heartbeat_interval: Callable[[], float] = field(default=None, eq=False)

    def __attrs_post_init__(self) -> None:
        if self.heartbeat_interval is None:
            cluster = self.config.cluster
            nodes = cluster.racks * cluster.nodes_per_rack
            object.__setattr__(self, "heartbeat_interval", lambda: cluster.next_heartbeat_interval(nodes))


def _instantiate(target: Any, settings: Mapping[str, Any], name: str, context: PluginContext) -> Any:
    if inspect.isclass(target) or inspect.isfunction(target):
        try:
            params = inspect.signature(target).parameters
        except (TypeError, ValueError):  # pragma: no cover - builtins
            params = {}
        positional = [
            p for p in params.values() if p.name != "self" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        if len(positional) >= 2:
            return target(dict(settings), context)
        if positional:
            return target(dict(settings))
        if settings:
            raise SettingsError(None, "this plugin takes no settings", plugin=name)
        return target()
    if settings:
        raise SettingsError(None, "this plugin takes no settings", plugin=name)
    return target


def _adapt(impl: Any, spec_args: tuple[str, ...]) -> Callable[..., Any]:
    """Call ``impl`` with the spec's positional arguments, passing only those it names."""
    fn = impl.function
    names = tuple(impl.argnames)
    if names == spec_args:
        return fn
    index = [spec_args.index(n) for n in names]
    if not index:
        return lambda *args: fn()
    if len(index) == 1:
        (i,) = index
        return lambda *args: fn(args[i])
    pick = operator.itemgetter(*index)  # hot path: no per-call list
    return lambda *args: fn(*pick(args))


def _same_definer(obj: Any, first: str, second: str) -> bool:
    """Whether the class that defines ``first`` for ``obj`` also defines ``second`` (or
    ``obj`` is not an instance of a class: a module's functions stand together)."""
    if obj is None or isinstance(obj, ModuleType):
        return True

    def definer(attr: str) -> type | None:
        for klass in type(obj).__mro__:
            if attr in vars(klass):
                return klass
        return None

    return definer(first) is definer(second)


def _code_of(fn: Any) -> CodeType | None:
    """The code object that identifies a hook implementation on a traceback, or
    None when it cannot: a callable object or a compiled function (no plain
    Python function), or a decorated one (``__wrapped__``: a decorator's
    wrapper code is shared by every function it wraps)."""
    fn = getattr(fn, "__func__", fn)
    if type(fn) is not FunctionType or hasattr(fn, "__wrapped__"):
        return None
    return fn.__code__


def _guard(point: str, name: str, origin: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """A caller that wraps errors itself: for implementations without a code
    object (callable objects), which :meth:`PluginSet.blame` cannot find."""
    def call(*args: Any) -> Any:
        try:
            return fn(*args)
        except BaseException as exc:  # sys.exit() or a plugin's BaseException in a hook is a plugin error too
            if isinstance(exc, (PluginError, KeyboardInterrupt)):
                raise
            raise PluginExecutionError(point, name, origin, exc) from exc

    call.__wrapped__ = fn  # type: ignore[attr-defined]
    return call


def _overrides(policy: SharePolicy, method: str) -> bool:
    """Whether ``policy`` has its own ``method`` (not the base class's default)."""
    implemented = getattr(policy, "implemented", None)
    if isinstance(implemented, (set, frozenset)):  # the shim's adapter: what the plugin had
        return method in implemented
    return getattr(type(policy), method, None) is not getattr(SharePolicy, method)


class PluginSet:
    """The plugins one scheduler uses: instantiated, registered with pluggy,
    validated, with callers for every extension point in config order."""

    def __init__(
        self,
        config: Config,
        extra: Mapping[str, Any] | None = None,
        heartbeat_interval: Callable[[], float] | None = None,
    ) -> None:
        """``heartbeat_interval``: the scheduler's current heartbeat interval
        for :class:`PluginContext` (default: from the config's ``[cluster]``)."""
        self.config = config
        self._heartbeat_interval = heartbeat_interval
        self.blocked = set(config.scheduler.blocked_plugins)
        self.available = find_plugins()
        self.extra = dict(extra or {})
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.pm.add_hookspecs(share_policy_shim.OldShareHooks)  # deprecated, for one release
        #: the calculators of the engine's quantities, by measure (``[scheduler] mode``)
        mode = getattr(config.scheduler, "mode", "slots")
        self.calculators = calculators(mode if mode in ("slots", "resources") else "slots")
        for name in self.blocked:
            self.pm.set_blocked(name)
        self.instances: dict[str, Any] = {}
        self.origins: dict[str, str] = {}
        self._impls: dict[str, dict[str, Callable[..., Any]]] = {}
        #: hook implementation code -> (extension point, plugin, origin), for blame()
        self._owners: dict[CodeType, tuple[str, str, str]] = {}
        self._policies: dict[str, SharePolicyCallers] = {}

        sc = config.scheduler
        self.resolvers = [self._caller("PoolResolver", n, "pool_resolver") for n in sc.pool_resolver]
        #: the resolvers' names, in the order of :attr:`resolvers`
        self.resolver_names: list[str] = list(sc.pool_resolver)
        self.known_pools = [
            fn for n in sc.pool_resolver if (fn := self.optional("PoolResolver", n, "cs_known_pools")) is not None
        ]
        #: the names of the resolvers that implement ``cs_known_pools``, in the order of :attr:`known_pools`
        self.known_pool_names = [n for n in sc.pool_resolver if "cs_known_pools" in self._impls[n]]
        self.weight_adjusters = [self._caller("WeightAdjuster", n, "weight_adjusters") for n in sc.weight_adjusters]
        #: the adjusters' names, in the order of :attr:`weight_adjusters`
        self.weight_adjuster_names: list[str] = list(sc.weight_adjusters)
        self.can_assign = self._caller("LoadManager", sc.load_manager, "load_manager")
        self.can_launch = self.optional("LoadManager", sc.load_manager, "cs_can_launch")
        self.fits = self.optional("LoadManager", sc.load_manager, "cs_fits")
        self.can_compute = self.optional("LoadManager", sc.load_manager, "cs_can_compute")
        self.node_capacity = self.optional("LoadManager", sc.load_manager, "cs_node_capacity")
        self.select_task = self._caller("TaskSelector", sc.task_selector, "task_selector")
        #: the TaskSelector's cs_select_hint, or None
        self.select_hint = self.optional("TaskSelector", sc.task_selector, "cs_select_hint")
        #: the TaskSelector's cs_select_ask (resource mode: which of an app's asks), or None
        self.select_ask = self.optional("TaskSelector", sc.task_selector, "cs_select_ask")
        self.select_victims = self._caller("VictimSelector", sc.victim_selector, "victim_selector")
        self.root_policy = self.share_policy(sc.share_policy, key="share_policy")
        for name in sc.listeners:
            self.ensure(name, "Listener", "listeners")
        self._build_notifications()

    # ------------------------------------------------------------------ answers
    def who(self, point: str, name: str) -> Who:
        """The plugin ``name`` at ``point`` as :mod:`corescheduler.core.hook_answers` names it."""
        return point, name, self.origins.get(name, f"<unknown>[{name}]")

    # ------------------------------------------------------------------ loading
    def _where(self, key: str) -> str:
        return self.config.locate("scheduler", key)

    def ensure(self, name: str, point: str, key: str | None = None) -> Any:
        """Load, instantiate and register plugin ``name`` if not done yet."""
        if name in self.instances:
            return self.instances[name]
        where = self._where(key) if key else (self.config.source or "<config>")
        label = f"[scheduler] {key}" if key else point
        if name in self.blocked:
            raise ConfigError(f"{where}: {label}: plugin {name!r} is blocked by [scheduler] blocked_plugins")
        if name in self.extra:
            target, origin = self.extra[name], f"<in-process>[{name}]"
            clash = _in_process_clash(name, target, self.available[name]) if name in self.available else None
            if clash is not None:
                raise clash
        elif name in self.available:
            info = self.available[name]
            clash = name_clash(name)
            if clash is not None:
                raise clash
            target, origin = load_plugin(info), info.origin
        else:
            known = sorted(set(self.available) | set(self.extra))
            note = f" ({DISABLE_AUTOLOAD_ENV} is set: built-ins only)" if autoload_disabled() else ""
            close = closest_name(name, known)
            hint = f" (did you mean {close!r}?)" if close else ""
            raise ConfigError(
                f"{where}: {label}: unknown plugin {name!r}{hint}; available: {', '.join(known) or '(none)'}{note}"
            )
        settings = self.config.plugin_settings(name)
        try:
            obj = _instantiate(target, settings, name, PluginContext(name, self.config, self._heartbeat_interval))
        except SettingsError as exc:
            table_loc = self.config.locate("plugins", name)
            if table_loc == (self.config.source or "<config>"):
                table_loc = self.config.locate(f"plugins.{name}", None)
            problems = []
            for key, message in exc.items:
                loc = self._locate_setting(name, key) if key else table_loc
                loc = loc if ":" in loc.rsplit("/", 1)[-1] else table_loc
                problems.append(f"{loc}: [plugins.{name}] {key + ': ' if key else ''}{message}")
            raise ConfigError(problems) from exc
        except ConfigError as exc:
            loc = self.config.locate("plugins", name)
            raise ConfigError([f"{loc}: {p}" for p in exc.problems]) from exc
        except (Exception, SystemExit) as exc:
            raise PluginLoadError(f"plugin {origin}: failed to start: {type(exc).__name__}: {exc}") from exc
        removed = [hook for hook in hooks_of(obj) if hook in hookspecs.REMOVED_HOOKS]
        if removed:
            raise PluginLoadError(
                f"plugin {origin}: implements {', '.join(removed)}, removed from corescheduler's hooks "
                f"(docs/hooks.md, \"Hints\"); instead: "
                + "; ".join(f"{hook} -> {hookspecs.REMOVED_HOOKS[hook]}" for hook in removed)
            )
        try:
            self.pm.register(obj, name=name)
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:
            if self.pm.is_registered(obj):
                self.pm.unregister(obj)
            raise PluginLoadError(f"plugin {origin}: {self._validation_message(exc)}") from exc
        self.instances[name] = obj
        self.origins[name] = origin
        impls: dict[str, Callable[..., Any]] = {}
        for hook_name in hooks_of(obj):
            hook = getattr(self.pm.hook, hook_name)
            for impl in hook.get_hookimpls():
                if impl.plugin_name == name:
                    fn = _adapt(impl, tuple(hook.spec.argnames))
                    hook_point = HOOK_POINT.get(hook_name, point)
                    code = _code_of(impl.function)
                    owner = (hook_point, name, origin)
                    if code is None or self._owners.setdefault(code, owner) != owner:
                        # not identifiable on a traceback, or the same code already serves
                        # another plugin or extension point: this one wraps its own errors
                        impls[hook_name] = _guard(hook_point, name, origin, fn)
                    else:
                        impls[hook_name] = fn
        self._impls[name] = impls
        return obj

    def blame(self, exc: BaseException) -> PluginExecutionError | None:
        """The :class:`PluginExecutionError` for ``exc`` if a plugin's hook
        implementation is on its traceback (the outermost one is blamed: the
        hook the core called), else None (the core's own error)."""
        if isinstance(exc, PluginExecutionError):
            return None
        owners = self._owners
        tb = exc.__traceback__
        while tb is not None:
            owner = owners.get(tb.tb_frame.f_code)
            if owner is not None:  # one plugin and extension point per code object (see ensure())
                return PluginExecutionError(*owner, exc)
            tb = tb.tb_next
        return None

    def _locate_setting(self, name: str, key: str) -> str:
        """``FILE:LINE`` of a plugin setting; ``rules[1]`` is found at ``rules``,
        ``queues.q1.capacity`` in ``[plugins.NAME.queues.q1]`` (or its header)."""
        parts = re.split(r"\[\d+\]", key)[0].split(".")
        for cut in range(len(parts) - 1, -1, -1):
            table = ".".join(["plugins", name, *parts[:cut]])
            found = self.config.locate(table, parts[cut])
            if found != (self.config.source or "<config>"):
                return found
            found = self.config.locate(".".join([table, parts[cut]]), None)
            if found != (self.config.source or "<config>"):
                return found
        return self.config.locate("plugins", name)

    def optional(self, point: str, name: str, hook: str) -> Callable[..., Any] | None:
        """The caller of ``hook`` on plugin ``name``, or None if it lacks it."""
        self.ensure(name, point)
        return self._impls[name].get(hook)

    def _caller(self, point: str, name: str, key: str) -> Callable[..., Any]:
        self.ensure(name, point, key)
        required = REQUIRED_HOOK[point]
        fn = self._impls[name].get(required)
        if fn is None:
            has = ", ".join(sorted(self._impls[name])) or "no hooks"
            raise ConfigError(
                f"{self._where(key)}: [scheduler] {key}: plugin {name!r} ({self.origins[name]}) "
                f"is not a {point}: it does not implement {required} (it has {has})"
            )
        return fn

    def _validation_message(self, exc: pluggy.PluginValidationError) -> str:
        """pluggy's refusal, an unknown hook's without the object's repr and with the
        closest hook name (a misspelt ``cs_adjust_wieght``: docs/plugin-authors.md)."""
        text = str(exc)
        unknown = re.match(r"unknown hook '([^']+)' in plugin ", text)
        if unknown is None:
            return text
        hook = unknown.group(1)
        # declared hooks only: pluggy has already made a caller without a spec for the unknown one
        known = [n for n in dir(self.pm.hook)
                 if n.startswith("cs_") and getattr(self.pm.hook, n).spec is not None]
        near = closest_name(hook, known)
        hint = f" (did you mean {near!r}?)" if near else ""
        return f"unknown hook {hook!r}{hint}: no such hook is declared in corescheduler.hookspecs (docs/hooks.md)"

    def share_policy(self, name: str, key: str | None = None) -> SharePolicyCallers:
        """The share policy of plugin ``name``, ready to call (loaded and initialized on
        first use, e.g. when an allocation file names a pool's ``schedulingMode``)."""
        cached = self._policies.get(name)
        if cached is not None:
            return cached
        fresh = name not in self.instances
        self.ensure(name, "SharePolicy", key)
        impls = self._impls[name]
        origin = self.origins[name]
        who = self.who("SharePolicy", name)
        if "cs_share_policy" in impls:
            try:
                policy = impls["cs_share_policy"]()
            except BaseException as exc:
                if isinstance(exc, (PluginError, KeyboardInterrupt)):
                    raise
                raise PluginExecutionError(*who, exc) from exc
            if not isinstance(policy, SharePolicy):
                raise refuse(who, "cs_share_policy", policy, "a corescheduler.SharePolicy instance")
        elif "cs_compute_shares" in impls or "cs_order_key" in impls:
            old = [h for h in share_policy_shim.OLD_HOOKS if h in impls]
            missing = [h for h in ("cs_compute_shares", "cs_order_key") if h not in impls]
            if missing:
                raise ConfigError(
                    f"share policy {name!r} ({origin}) implements the deprecated {', '.join(old)} but not "
                    f"{', '.join(missing)}; a SharePolicy plugin implements cs_share_policy() returning a "
                    "corescheduler.SharePolicy (docs/plugin-authors.md)"
                )
            share_policy_shim.warn(name, origin, old)
            policy = share_policy_shim.HookSharePolicy({h: impls[h] for h in old}, self.config.scheduler.mode)
        else:
            where = f"{self._where(key)}: [scheduler] {key}: plugin" if key else "share policy"
            has = ", ".join(sorted(impls)) or "no hooks"
            raise ConfigError(
                f"{where} {name!r} ({origin}) is not a SharePolicy: it does not implement cs_share_policy "
                f"(it has {has}); a SharePolicy plugin returns a corescheduler.SharePolicy from it"
            )
        try:
            policy.initialize(self.calculators)
        except BaseException as exc:
            if isinstance(exc, (PluginError, KeyboardInterrupt)):
                raise
            raise PluginExecutionError(*who, exc) from exc
        calls = {m: self._policy_method(name, origin, policy, m) for m in POLICY_METHODS
                 if m in ("order_key", "compute_shares") or _overrides(policy, m)}
        many = calls.get("compute_shares_many")
        if many is not None and not _same_definer(policy, "compute_shares", "compute_shares_many"):
            many = None  # a subclass changed compute_shares only: its inherited batch would bypass it
        callers = SharePolicyCallers(
            name, calls["compute_shares"], calls["order_key"], calls.get("plan_preemption"),
            calls.get("admit_job"), calls.get("next_kind"), many, policy, calls.get("preemption_hint"),
        )
        self._policies[name] = callers
        if fresh and hasattr(self, "_notify"):
            self._build_notifications()
        return callers

    def _policy_method(self, name: str, origin: str, policy: SharePolicy, method: str) -> Callable[..., Any]:
        """``policy.method`` as the engine calls it: the bound method itself when its code
        identifies the plugin on a traceback (:meth:`blame`), else wrapped to name it."""
        fn = getattr(policy, method)
        if getattr(type(policy), method, None) is getattr(SharePolicy, method):
            return fn  # the base class's default: what it calls is the plugin's own
        owner = ("SharePolicy", name, origin)
        code = _code_of(fn)
        if code is None or self._owners.setdefault(code, owner) != owner:
            return _guard("SharePolicy", name, origin, fn)
        return fn  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ notifications
    def _build_notifications(self) -> None:
        self._notify: dict[str, list[Callable[..., Any]]] = {h: [] for h in hookspecs.NOTIFICATION_HOOKS}
        for name in self.instances:
            for hook, fn in self._impls[name].items():
                if hook in self._notify:
                    self._notify[hook].append(fn)

    def quiet_heartbeats(self) -> Callable[..., Any] | None:
        """The TaskSelector's ``cs_select_hint`` if a heartbeat's outcome may be known
        without running it: it implements that hook and no other plugin in use listens to
        heartbeats (``cs_heartbeat_start``/``cs_heartbeat_end``); else None."""
        selector = self.config.scheduler.task_selector
        fn = self.select_hint
        if fn is None:
            return None
        for name in self.instances:
            impls = self._impls[name]
            if name != selector and ("cs_heartbeat_start" in impls or "cs_heartbeat_end" in impls):
                return None
        return fn

    def empty_nodes_take_tasks(self) -> bool:
        """Does the LoadManager declare ``empty_nodes_take_tasks = True`` (docs/hooks.md,
        ``cs_can_assign``): a node that runs no task of a kind may take one while any waits?"""
        return getattr(self.instances[self.config.scheduler.load_manager], "empty_nodes_take_tasks", False) is True

    def preemption_hint(self) -> Callable[..., Any] | None:
        """The root SharePolicy's ``preemption_hint`` method, or None when it keeps the
        base class's (no hint)."""
        return self.share_policy(self.config.scheduler.share_policy).preemption_hint

    def listeners(self, hook: str) -> list[Callable[..., Any]]:
        """Callers of a notification hook on every plugin in use, config order."""
        return self._notify[hook]

    def describe(self) -> list[dict[str, Any]]:
        """The plugins in use: name, origin, hooks."""
        return [
            {"name": n, "origin": self.origins[n], "hooks": sorted(self._impls[n])} for n in self.instances
        ]


def describe_available(builtins_only: bool | None = None, blocked: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Every discoverable plugin with its hooks and extension points (imports
    each, except blocked ones); a plugin that fails to import is listed with
    its error instead of hooks."""
    blocked = set(blocked)
    rows = []
    for name, info in find_plugins(builtins_only).items():
        row: dict[str, Any] = {
            "name": name,
            "dist": info.dist,
            "version": info.version,
            "value": info.value,
            "builtin": info.builtin,
        }
        clash = name_clash(name, builtins_only)
        if name in blocked:
            row.update(hooks=[], points=[], error="blocked")
        elif clash is not None:
            row.update(hooks=[], points=[], error=str(clash))
        else:
            try:
                hooks = hooks_of(load_plugin(info))
                row.update(hooks=hooks, points=points_of(hooks), error=None)
            except PluginLoadError as exc:
                row.update(hooks=[], points=[], error=str(exc))
        rows.append(row)
    return rows


def default_plugin_set(
    config: EngineConfig, extra: Mapping[str, Any] | None, heartbeat_interval: Callable[[], float]
) -> PluginSet:
    """The plugins of a :class:`~corescheduler.core.scheduler.Scheduler` built without
    ``plugins=``: a :class:`PluginSet` of ``config`` (a :class:`~corescheduler.config.Config`);
    ``corescheduler/__init__.py`` hands it to the core
    (:func:`~corescheduler.core.framework.provide_plugin_set`)."""
    return PluginSet(cast(Config, config), extra, heartbeat_interval=heartbeat_interval)
