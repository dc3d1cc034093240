"""Application priorities in a ``capacity-scheduler.xml`` (Hadoop 3.3), read for
:mod:`corescheduler.formats.capacity_scheduler_xml`.

* ``yarn.cluster.max-application-priority`` — a ``yarn-site.xml`` key in Hadoop
  (``YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY``, default 0), accepted here in the
  capacity file, the one Hadoop configuration file the simulator reads: every app's priority is
  at most this (``CapacityScheduler.getMaxClusterLevelAppPriority``).
* ``yarn.scheduler.capacity.<queue-path>.default-application-priority`` — a leaf's priority for
  an app that asks none (``CapacitySchedulerConfiguration.getDefaultApplicationPriorityConfPerQueue``,
  ``LeafQueue.getDefaultApplicationPriority``), default 0, at most the cluster maximum
  (``LeafQueue.setupQueueConfigs``: ``min(configured, maxClusterPriority)``).
* ``yarn.scheduler.capacity.<queue-path>.acl_application_max_priority`` —
  ``[user=… group=… max_priority=N default_priority=M]…`` (``AppPriorityACLConfigurationParser.
  getPriorityAcl``): per group of users and groups, the highest priority they may give their
  apps in the queue and the priority of their apps that ask none; a ``max_priority`` above the
  cluster maximum is lowered to it, a negative ``default_priority`` is 0.  As Hadoop's parser,
  the first of ``user=``/``group=`` is the users' part of the ACL and the second its groups';
  text without a ``[…]`` group (Hadoop's shipped ``*``) sets no ACL.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from attrs import field, frozen

from corescheduler.core.queues import AccessControlList

__all__ = ["CLUSTER_MAX_PRIORITY_KEY", "AppPriorities", "PriorityAcl", "read_app_priorities"]

CLUSTER_MAX_PRIORITY_KEY = "yarn.cluster.max-application-priority"
#: ``AppPriorityACLConfigurationParser.PATTERN_FOR_PRIORITY_ACL``: each ``[…]`` group
_GROUP = re.compile(r"\[([^\]]+)")
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_ACL_FORM = "[user=… group=… max_priority=N default_priority=M] groups (AppPriorityACLConfigurationParser)"


@frozen
class PriorityAcl:
    """One ``[…]`` group of ``acl_application_max_priority`` (``AppPriorityACLGroup``)."""

    acl: AccessControlList
    max_priority: int
    #: the priority of an app of these users that asks none (None: the queue's default)
    default_priority: int | None = None


@frozen
class AppPriorities:
    """What :func:`read_app_priorities` read."""

    cluster_max: int = 0
    #: leaf path -> its default application priority (leaves only; absent: 0)
    queue_default: Mapping[str, int] = field(factory=dict)
    #: queue path -> its priority ACL groups, the highest ``max_priority`` first
    #: (``AppPriorityACLsManager.addPrioirityACLs`` sorts by ``Priority.compareTo``: higher first)
    acls: Mapping[str, tuple[PriorityAcl, ...]] = field(factory=dict)


def read_app_priorities(r: Any, order: Sequence[str], children: Mapping[str, tuple[str, ...]]) -> AppPriorities:
    """Read and check the keys of the module docstring through the reader ``r`` (problems go to
    it): ``order`` lists the queue paths, ``children`` each one's children."""
    cluster_max = 0
    p = r.props.get(CLUSTER_MAX_PRIORITY_KEY)
    if p is not None:
        r.used.add(p.name)
        value = _int(p.value)
        if value is None:
            r.problems.append((p.line, f"{CLUSTER_MAX_PRIORITY_KEY}: expected a whole number (a Java int), "
                                       f"got {p.value!r}"))
        else:
            cluster_max = value
    defaults: dict[str, int] = {}
    acls: dict[str, tuple[PriorityAcl, ...]] = {}
    for path in order:
        if not children.get(path):
            d = r.number(f"{path}.default-application-priority", None, integer=True, what="a whole number")
            if d is not None:
                defaults[path] = min(int(d), cluster_max)  # LeafQueue.setupQueueConfigs
        a = r.get(f"{path}.acl_application_max_priority")
        if a is not None and a.value.strip():
            groups = _parse_acl(r, a, path, cluster_max)
            if groups:
                acls[path] = groups
    return AppPriorities(cluster_max=cluster_max, queue_default=defaults, acls=acls)


def _parse_acl(r: Any, p: Any, path: str, cluster_max: int) -> tuple[PriorityAcl, ...]:
    """``AppPriorityACLConfigurationParser.getPriorityAcl``; a malformed group is a problem
    naming the key (Hadoop fails on it with an exception of its own)."""
    key = f"{path}.acl_application_max_priority"
    out: list[PriorityAcl] = []
    for m in _GROUP.finditer(p.value):
        text = m.group(1).strip()
        if not text:
            continue
        names: list[str] = []
        maximum: int | None = None
        default: int | None = None
        for pair in text.split():
            k, sep, v = pair.partition("=")
            kind = k.strip().lower()
            if not sep or not v:
                continue  # (parsePriorityACLType is called only for key=value pairs)
            if kind in ("user", "group"):
                names.append("*" if v.strip() == "*" else v.strip())
            elif kind in ("max_priority", "default_priority"):
                number = _int(v)
                if number is None:
                    r.problem(p, key, f"a whole number for {kind} in {_ACL_FORM}")
                    return ()
                if kind == "max_priority":
                    maximum = number
                else:
                    default = max(number, 0)  # "defaultPriority < 0 ? 0"
            else:
                r.problem(p, key, f"only user, group, max_priority and default_priority in {_ACL_FORM}")
                return ()
        if not names or maximum is None:
            r.problem(p, key, f"user= or group= and max_priority= in each group of {_ACL_FORM}")
            return ()
        # createACLStringForPriority: "users groups", "*" for all
        acl_text = "*" if names[0] == "*" else " ".join(names[:2])
        out.append(PriorityAcl(AccessControlList.parse(acl_text), min(maximum, cluster_max), default))
    out.sort(key=lambda g: -g.max_priority)  # stable: the file's order among equals
    return tuple(out)


def _int(text: str) -> int | None:
    """``Integer.parseInt`` of the trimmed text (None: not a Java int)."""
    t = text.strip()
    if not re.fullmatch(r"[+-]?\d+", t):
        return None
    value = int(t)
    return value if _INT_MIN <= value <= _INT_MAX else None
