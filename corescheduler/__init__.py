"""corescheduler: a multi-tenant cluster job scheduler core with pluggy hooks.

Public entry points: :func:`compute_fair_shares` (the fair-share maths),
:class:`SharePolicy` (the base class of share policies, :mod:`corescheduler.core.policy`),
:class:`corescheduler.core.scheduler.Scheduler`, :class:`corescheduler.config.Config`,
:class:`corescheduler.core.allocations.Allocations`, the hook specs in
:mod:`corescheduler.hookspecs` and the test harness in
:mod:`corescheduler.testing`.
"""

from corescheduler import compiled
from corescheduler.core.fairshare import compute_fair_shares
from corescheduler.core.framework import provide_plugin_set
from corescheduler.core.policy import SharePolicy
from corescheduler.hookspecs import hookimpl
from corescheduler.plugin_manager import default_plugin_set

# the core's Scheduler builds its plugins, when given none, with the framework's plugin
# manager: the core names it only through the protocols of corescheduler.core.framework
provide_plugin_set(default_plugin_set)

compiled.warn_if_stale()  # a compiled editable install whose .py was edited since

__version__ = "0.1.0"

__all__ = ["SharePolicy", "__version__", "compute_fair_shares", "hookimpl"]
