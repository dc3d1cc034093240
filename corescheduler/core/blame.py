"""Plugin errors named: the wrapper of the scheduler's and its engines' public methods.

An exception a plugin raises inside a public call of the
:class:`~corescheduler.core.scheduler.Scheduler`, or of its engine where a simulator calls
the engine directly, becomes one :class:`~corescheduler.errors.PluginExecutionError` naming
the plugin and its extension point (:meth:`PluginSet.blame`); the core's own errors pass.
The wrapped object needs only a ``plugins`` attribute (a
:class:`~corescheduler.plugin_manager.PluginSet`).

Compiled in the compiled build (``corescheduler.compiled.MODULES``): the wrapper runs once
per heartbeat.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["chained", "plugin_errors"]

_M = TypeVar("_M", bound=Callable[..., Any])
_E = TypeVar("_E", bound=BaseException)


def chained(error: _E, cause: BaseException | None) -> _E:
    """``error`` with ``cause`` as its ``__cause__`` (and its context suppressed), as
    ``raise error from cause`` does: set by hand because mypyc, which compiles the core's hot
    modules in the compiled build (setup.py), drops a raise statement's ``from``."""
    error.__cause__ = cause
    return error


def plugin_errors(method: _M) -> _M:
    """Turn an exception a plugin raised inside a public method into one
    :class:`~corescheduler.errors.PluginExecutionError` naming the plugin and
    its extension point (:meth:`PluginSet.blame`); the core's own errors pass.
    ``SystemExit`` from a hook (``sys.exit(3)``), ``GeneratorExit`` or a plugin's own
    ``BaseException`` subclass is such an exception too: a plugin does not end the
    program; ``KeyboardInterrupt`` passes."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except BaseException as exc:  # all but Ctrl-C: SystemExit, GeneratorExit, a plugin's own
            if isinstance(exc, KeyboardInterrupt):
                raise
            blamed = self.plugins.blame(exc)
            if blamed is None:
                raise
            raise chained(blamed, exc) from exc

    return wrapper  # type: ignore[return-value]
