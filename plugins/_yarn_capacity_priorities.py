"""Application priorities of the ``yarn_capacity`` plugin (Hadoop 3.3), a mixin of
:class:`~corescheduler_plugins.yarn_capacity.YarnCapacityScheduler`.

An app here names one of MR1's priorities; YARN's is an integer, higher first.  The mapping
(:data:`YARN_PRIORITY`): ``VERY_LOW`` −2, ``LOW`` −1, ``HIGH`` 1, ``VERY_HIGH`` 2, and ``NORMAL`` —
what a job that names no priority has — is an app that asks none: it takes the default of its
user's ``acl_application_max_priority`` group, else its leaf's ``default-application-priority``
(0 unless set).  MR's client sends ``VERY_LOW`` 1 … ``VERY_HIGH`` 5 and 0 for none
(``TypeConverter.toYarnApplicationPriority``); centred on Hadoop's default of 0 instead, a
cluster that raises ``yarn.cluster.max-application-priority`` to 2 has all five levels, and at
its default of 0 the lower ones keep their order below the rest.

The effective priority (``CapacityScheduler.checkAndGetApplicationPriority``) is resolved when
the app is placed (:meth:`CapacityAppPriorities.priority_refusal`, from ``cs_resolve_pool``,
and :meth:`note_priority`, from ``cs_job_added``) and when an admin action changes it
(:meth:`set_priority`), never per heartbeat: the asked (or default) priority, at most the
cluster's maximum (silently, as Hadoop caps it), then checked against the leaf's priority ACL
with the submitting user (at submission) or the caller (on a change, as
``ClientRMService.updateApplicationPriority`` checks the caller): a priority no group of the
ACL allows the user is refused (Hadoop's ``AccessControlException``: AccessDeniedError, a 403
in ``serve``).  The leaf's fifo order, the preemption iterator and the intra-queue priority
selector read :meth:`app_priority`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from corescheduler.core.model import RESOURCES, Job, Rejection

#: MR1 priority names -> YARN application priorities (None: asks none, the default applies)
YARN_PRIORITY: dict[str, int | None] = {"VERY_LOW": -2, "LOW": -1, "NORMAL": None, "HIGH": 1, "VERY_HIGH": 2}


def allowed(groups: Sequence[Any], user: str | None, user_groups: Sequence[str], priority: int) -> bool:
    """``AppPriorityACLsManager.checkAccess``: no ACL on the queue allows all; else some group
    listing the user (or one of its groups) allows ``priority`` (at most its ``max_priority``)."""
    if not groups:
        return True
    return any(g.acl.allows(user, user_groups) and priority <= g.max_priority for g in groups)


def user_default(groups: Sequence[Any], user: str | None, user_groups: Sequence[str]) -> int | None:
    """``AppPriorityACLsManager.getDefaultPriority``: the default of the last group (in the sorted
    order, the lowest ``max_priority``) listing the user; None when none does."""
    found: int | None = None
    hit = False
    for g in groups:
        if g.acl.allows(user, user_groups):
            found, hit = g.default_priority, True
    return found if hit else None


class CapacityAppPriorities:
    """The effective application priority of each live app (see the module docstring)."""

    if TYPE_CHECKING:
        conf: Any
        _app_priority: dict[str, int]
        _app_keys: dict[Any, tuple[int, float, str]]

    def app_priority(self, job: Job) -> int:
        """The app's effective YARN priority (0 before it is placed, or without a file)."""
        return self._app_priority.get(job.id, 0)

    def effective_priority(self, path: str, name: str, user: str | None, groups: Sequence[str]) -> int:
        """``checkAndGetApplicationPriority`` before its ACL check: the asked priority, or (none
        asked) the user's ACL default, else the leaf's default; at most the cluster's maximum."""
        conf = self.conf
        asked = YARN_PRIORITY.get(name)
        if conf is None:  # Hadoop's default configuration: the cluster maximum is 0
            return min(asked if asked is not None else 0, 0)
        prio = conf.priorities
        if asked is None:
            acl = prio.acls.get(path)
            asked = user_default(acl, user, groups) if acl else None
            if asked is None:
                asked = prio.queue_default.get(path, 0)
        return min(asked, prio.cluster_max)

    def _acl_refusal(self, path: str, priority: int, user: str | None, groups: Sequence[str],
                     app: str) -> Rejection | None:
        """``AppPriorityACLsManager.checkAccess``, in Hadoop's words."""
        conf = self.conf
        acl = conf.priorities.acls.get(path) if conf is not None else None
        if not acl or allowed(acl, user, groups, priority):
            return None
        best = max((g.max_priority for g in acl if g.acl.allows(user, groups)), default=None)
        allows = f"its highest in {path} is {best}" if best is not None else f"no group of {path}'s lists it"
        return Rejection(f"User {user} does not have permission to submit/update {app} for priority {priority} "
                         f"(acl_application_max_priority: {allows})", access=True)

    def priority_refusal(self, job: Any, path: str) -> Rejection | None:
        """At submission (``cs_resolve_pool``): the submitting user's right to the app's
        effective priority in the leaf ``path``."""
        groups = tuple(job.groups or ())
        effective = self.effective_priority(path, str(job.priority).upper(), job.user, groups)
        return self._acl_refusal(path, effective, job.user, groups,
                                 str(job.id) if job.id is not None else "the application")  # (none yet)

    def note_priority(self, job: Job) -> None:
        """The placed app's effective priority (``cs_job_added``; a move keeps it, as
        ``CapacityScheduler.moveApplication`` keeps the app's priority)."""
        path = str(job.queue or job.pool)
        self._app_priority[job.id] = self.effective_priority(path, job.priority, job.user,
                                                             tuple(job.spec.groups or ()))
        self._app_keys.pop(job.sched.get(RESOURCES), None)  # order_key's, with the priority before

    def set_priority(self, job: Job, priority: str, caller: tuple[str, Sequence[str]] | None) -> Rejection | None:
        """``CapacityScheduler.updateApplicationPriority``: the new priority capped at the
        cluster's maximum, then the caller's right to it under the leaf's priority ACL (None:
        the system, unchecked); the effective priority is noted when allowed."""
        path = str(job.queue or job.pool)
        effective = self.effective_priority(path, priority, job.user, tuple(job.spec.groups or ()))
        if caller is not None:
            user, groups = caller
            refusal = self._acl_refusal(path, effective, user, tuple(groups), job.id)
            if refusal is not None:
                return refusal
        self._app_priority[job.id] = effective
        self._app_keys.pop(job.sched.get(RESOURCES), None)  # order_key's, with the priority before
        return None
