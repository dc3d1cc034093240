"""The one error hierarchy of corescheduler.

Every user-facing problem is a :class:`CoreSchedulerError` whose message
names where it is (file and line, TOML key, plugin and extension point) and
what was expected.  The CLI prints ``str(error)`` on one line and exits 1; the
original exception, where there was one, stays reachable as ``__cause__``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class CoreSchedulerError(Exception):
    """Base class: a problem a user can fix, reported without a traceback."""


class ConfigError(CoreSchedulerError):
    """A TOML configuration (``corescheduler.toml``) is malformed or invalid.

    ``problems`` holds every problem found, one line each; the message joins
    them so that all are reported at once.
    """

    def __init__(self, problems: str | Iterable[str]) -> None:
        if isinstance(problems, str):
            problems = [problems]
        self.problems: list[str] = list(problems)
        super().__init__("; ".join(self.problems))


class SettingsError(ConfigError):
    """A plugin's ``[plugins.NAME]`` settings are invalid.

    Raised by a plugin (usually through :class:`corescheduler.settings.Settings`)
    with the offending ``key`` (or several ``(key, message)`` pairs in
    ``items``); the plugin manager adds the plugin's name, file and line.
    """

    def __init__(
        self,
        key: str | None,
        message: str,
        plugin: str | None = None,
        items: Iterable[tuple[str | None, str]] | None = None,
    ) -> None:
        self.key = key
        self.message = message
        self.plugin = plugin
        self.items: list[tuple[str | None, str]] = list(items) if items is not None else [(key, message)]
        where = f"[plugins.{plugin}]" if plugin else "plugin settings"
        super().__init__([f"{where} {k}: {m}" if k else f"{where}: {m}" for k, m in self.items])


class LocatedError(CoreSchedulerError):
    """A problem at a place in a file: the message starts with ``FILE:LINE:``
    (or ``FILE:`` when there is no line, e.g. an unreadable file)."""

    default_source = "<input>"

    def __init__(
        self,
        message: str,
        source: str | None = None,
        line: int | None = None,
        problems: Iterable[tuple[int | None, str]] | None = None,
    ) -> None:
        self.source = source or self.default_source
        self.line = line
        self.message = message
        #: every problem found, as ``(line, message)`` (the message may join several)
        self.problems: list[tuple[int | None, str]] = list(problems) if problems is not None else [(line, message)]
        where = f"{self.source}:{line}" if line is not None else self.source
        super().__init__(f"{where}: {message}")


class AllocationError(LocatedError):
    """An allocation file (Hadoop XML) is malformed or has a bad value."""

    default_source = "<allocations>"


class WorkloadError(LocatedError):
    """A workload file (JSON, SWIM TSV, SLS) has a bad row or value."""

    default_source = "<workload>"


class PluginError(CoreSchedulerError):
    """Base for problems with a plugin."""


class PluginLoadError(PluginError):
    """A plugin could not be found, imported, instantiated or validated.

    The message names the plugin as ``dist[entry]``.
    """


class PluginExecutionError(PluginError):
    """A plugin raised while running a hook.

    The message reads ``running TaskSelector plugin 'delay' (dist[entry]): …``.
    """

    def __init__(self, point: str, plugin: str, origin: str, exc: BaseException) -> None:
        self.point = point
        self.plugin = plugin
        self.origin = origin
        super().__init__(f"running {point} plugin '{plugin}' ({origin}): {type(exc).__name__}: {exc}")


class SchedulerStateError(CoreSchedulerError):
    """A request names something the scheduler does not have (unknown job,
    task or node) or asks for something its state does not allow."""


class PluginAnswerError(PluginError, SchedulerStateError):
    """A plugin's hook returned an answer the scheduler cannot use (a share
    that is NaN, a weight that is a string, ``"banana"`` for a slot kind…).

    The message reads ``SharePolicy plugin 'mine' (dist[mine]): compute_shares
    returned [-5.0]; expected one finite share ≥ 0 (or None) per schedulable``.
    :mod:`corescheduler.core.hook_answers` checks every hook's answer where it enters
    the scheduler and raises this.  It is also a :class:`SchedulerStateError`,
    which is what such answers raised before they named the plugin.
    """

    def __init__(self, point: str, plugin: str, origin: str, hook: str, value: str, expected: str) -> None:
        self.point = point
        self.plugin = plugin
        self.origin = origin
        self.hook = hook
        super().__init__(f"{point} plugin '{plugin}' ({origin}): {hook} returned {value}; expected {expected}")


class ResourceParseError(CoreSchedulerError, ValueError):
    """A resource string (``"1024 mb, 2 vcores"``, ``"50%"``, ``"memory-mb=1024, vcores=2"``)
    is malformed; the message is YARN's (``FairSchedulerConfiguration.parseResourceConfigValue``:
    "Missing resource: vcores", "percentage should not be negative", "Invalid value of …")."""


class UnorderedKey(TypeError):
    """An order key (``SharePolicy.order_key``) that does not order against the keys beside it (a
    NaN, or a policy's own inconsistent ``__lt__``); ``key`` is the key."""

    def __init__(self, key: Any) -> None:
        super().__init__(f"the key {key!r} does not order against the keys beside it")
        self.key = key
