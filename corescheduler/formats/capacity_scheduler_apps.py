"""The app and user settings of a ``capacity-scheduler.xml`` (Hadoop 3.3): running-app limits
and user weights, read for :mod:`corescheduler.formats.capacity_scheduler_xml`.

* ``yarn.scheduler.capacity.<queue-path>.max-parallel-apps``, else the global
  ``yarn.scheduler.capacity.max-parallel-apps``, else no limit — for every queue, root and
  parents included (``CapacitySchedulerConfiguration.getMaxParallelAppsForQueue``, read by
  ``AbstractCSQueue.setupQueueConfigs``);
  ``yarn.scheduler.capacity.user.<user>.max-parallel-apps``, else
  ``yarn.scheduler.capacity.user.max-parallel-apps``, else no limit
  (``getMaxParallelAppsForUser`` / ``getDefaultMaxParallelAppsPerUser``).  Apps past a limit
  are accepted and wait, not runnable (``CSMaxRunningAppsEnforcer``; the engine's running-app
  limits, SPEC §7).
* ``yarn.scheduler.capacity.<queue-path>.user-settings.<user>.weight``
  (``getAllUserWeightsForQueue``: a user name of word characters, ``\\w+``); a queue has its
  parent's weights, its own overriding them (``AbstractCSQueue.getUserWeightsFromHierarchy``);
  a leaf's weights lie in [0, 100 ÷ min(100, minimum-user-limit-percent)]
  (``LeafQueue.setupQueueConfigs``: "the number of concurrent active users").
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from attrs import field, frozen

from corescheduler.core.javamath import java_float

__all__ = ["AppLimits", "read_app_limits"]

#: ``CapacitySchedulerConfiguration.getAllUserWeightsForQueue``: ``user-settings\.\w+\.weight``
_USER_WEIGHT = re.compile(r"(\w+)\.weight", re.ASCII)  # Java's \w: [a-zA-Z_0-9]
_USER_LIMIT = re.compile(r"user\.(.+)\.max-parallel-apps")
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_PREFIX = "yarn.scheduler.capacity."
_COUNT = "a whole number (the most apps that run at once)"


@frozen
class AppLimits:
    """What :func:`read_app_limits` read: each queue's own ``max-parallel-apps``, each queue's
    effective user weights, and the global and per-user running-app limits (None: not set)."""

    queue_max_parallel_apps: Mapping[str, int] = field(factory=dict)
    user_weights: Mapping[str, Mapping[str, float]] = field(factory=dict)
    max_parallel_apps: int | None = None
    user_max_parallel_apps_default: int | None = None
    user_max_parallel_apps: Mapping[str, int] = field(factory=dict)


def read_app_limits(r: Any, order: list[str], children: Mapping[str, tuple[str, ...]],
                    user_limit_percent: Mapping[str, float]) -> AppLimits:
    """Read and check the keys of the module docstring through the reader ``r`` (problems and
    warnings go to it): ``order`` lists the queue paths parents first, ``user_limit_percent``
    each queue's minimum-user-limit-percent."""
    prefix = _PREFIX
    glob = _count(r, "max-parallel-apps")
    user_default = _count(r, "user.max-parallel-apps")
    users: dict[str, int] = {}
    for name in list(r.props):
        rest = name[len(prefix):] if name.startswith(prefix + "user.") else None
        if rest is None or rest == "user.max-parallel-apps":
            continue
        m = _USER_LIMIT.fullmatch(rest)
        if m is not None:
            value = _count(r, rest)
            if value is not None:
                users[m.group(1)] = value
    own: dict[str, int] = {}
    for path in order:
        value = _count(r, f"{path}.max-parallel-apps")
        if value is not None:
            own[path] = value
    # <queue-path>.user-settings.<rest>, found in one pass over the keys (a file may have
    # thousands of queues): the path is the longest known queue before ".user-settings."
    paths = set(order)
    declared: dict[str, dict[str, tuple[float, Any, str]]] = {}
    for name in list(r.props):
        if not name.startswith(prefix) or ".user-settings." not in name:
            continue
        rest = name[len(prefix):]
        path = None
        at = rest.find(".user-settings.")
        while at >= 0:
            if rest[:at] in paths and f"{rest[:at]}.user-settings" not in paths:  # (not a child so named)
                path = rest[:at]
            at = rest.find(".user-settings.", at + 1)
        if path is None:
            continue  # no such queue: warned as the other keys of unknown queues
        key = rest
        setting = rest[len(path) + len(".user-settings."):]
        m = _USER_WEIGHT.fullmatch(setting)
        if m is None:
            p = r.get(key)
            r.warnings.append(f"{r.source}:{p.line}: {name}: not read by Hadoop 3.3 (user-settings.<user>.weight, "
                              "the user's name of letters, digits and _ only); ignored")
            continue
        weight = r.number(key, None, what="a number (a user's weight, 0 to 100 ÷ minimum-user-limit-percent)")
        if weight is not None:
            declared.setdefault(path, {})[m.group(1)] = (java_float(weight), r.get(key), key)
    # AbstractCSQueue.getUserWeightsFromHierarchy: the parent's weights, this queue's overriding them
    effective: dict[str, dict[str, tuple[float, Any, str]]] = {}
    for path in order:
        merged = dict(effective.get(path.rpartition(".")[0], {}))
        merged.update(declared.get(path, {}))
        effective[path] = merged
    # LeafQueue.setupQueueConfigs: "Validate leaf queue's user's weights"
    reported: set[str] = set()
    for path in order:
        if children.get(path):
            continue
        limit = user_limit_percent.get(path)
        percent = min(100.0, float(limit if limit is not None else 100.0))
        top = java_float(100.0 / percent) if percent > 0 else math.inf  # Java's 100.0f / 0: Infinity
        for user, (weight, prop, key) in effective[path].items():
            if not 0.0 <= weight <= top and key not in reported:
                reported.add(key)
                r.problem(prop, key, f"user {user}'s weight from 0 to 100 / {percent:g} (= {top:g}, the number of "
                                     f"concurrent active users in {path}: Hadoop LeafQueue.setupQueueConfigs)")
    return AppLimits(
        queue_max_parallel_apps=own,
        user_weights={path: {u: w for u, (w, _p, _k) in ws.items()} for path, ws in effective.items() if ws},
        max_parallel_apps=glob, user_max_parallel_apps_default=user_default, user_max_parallel_apps=users,
    )


def _count(r: Any, key: str) -> int | None:
    """A running-app limit (``Integer.parseInt``), None when the key is not set."""
    value = r.number(key, None, _INT_MIN, _INT_MAX, integer=True, what=_COUNT)
    if value is None:
        return None
    if value < 0:
        # Hadoop takes it as it is (CapacitySchedulerConfiguration.getMaxParallelAppsForQueue /
        # getMaxParallelAppsForUser: Integer.parseInt, no check), and CSMaxRunningAppsEnforcer's
        # ``runnable >= limit`` then never lets an app run: the same as 0, said once.
        p = r.get(key)
        where = f"{r.source}:{p.line}" if p is not None and p.line is not None else r.source
        r.warnings.append(f"{where}: {_PREFIX}{key}: {int(value)} is below 0; read as 0, as Hadoop does "
                          "(no app runs there)")
        return 0
    return int(value)
