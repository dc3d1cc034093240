"""``yarn_capacity``'s moves of a live app between leaf queues: a mixin of
:class:`corescheduler_plugins.yarn_capacity.YarnCapacityScheduler` (its ``conf``, ``_apps``,
``_users``, ``_users_use``, ``_user_am``, ``_started`` and ``_bounds`` are the policy's).

* **The rules** (:meth:`CapacityMoves.move_target`, the ``SharePolicy`` contract) —
  ``CapacityScheduler.preValidateMoveApplication``: the target, by path or unique leaf name
  (``CapacitySchedulerQueueManager.getAndCheckLeafQueue``), exists and is a leaf; then
  ``LeafQueue.validateSubmitApplication`` as for a submission — neither it nor a parent is
  STOPPED (``ParentQueue.validateSubmitApplication``), it holds fewer apps than its
  ``maximum-applications``, and the app's user fewer than its per-user maximum there.  The
  target's maximum capacity is no rule: the app's use may take it past it, as in Hadoop
  (preemption may then reclaim it).
* **The counts** (:meth:`CapacityMoves.cs_job_moved`) — ``CapacityScheduler.moveApplication``:
  the app leaves the old leaf's and user's app counts (``finishApplication``) and joins the
  new one's (``submitApplication``); its live containers' use leaves the user's use in the
  old leaf (``LeafQueue.detachContainer``) and joins it in the new one
  (``attachContainer``), its AM's the user's AM use.  The app keeps its place in the
  preemption order (its submission, as its application id in Hadoop).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from corescheduler.core.model import RESOURCES, Job, Rejection
from corescheduler.hookspecs import hookimpl
from corescheduler.resources import Resources

__all__ = ["CapacityMoves"]

#: without a file, Hadoop's default configuration: one queue with all of the cluster
_DEFAULT_QUEUE = "root.default"


class CapacityMoves:
    """``SharePolicy.move_target`` and the ``cs_job_moved`` notification of the Capacity
    Scheduler."""

    conf: Any
    _apps: Counter[str]
    _users: dict[str, Counter[Any]]
    _users_use: dict[str, dict[Any, Resources]]
    _user_am: dict[str, dict[Any, Resources]]
    _started: list[Any]
    _app_keys: dict[Any, Any]
    _bounds: dict[str, Any]

    if TYPE_CHECKING:  # the policy's
        def max_applications(self, conf: Any, path: str) -> int: ...

        def _fold(self, moved: Any = None, source: str = "") -> None: ...

        def _application_limits(self, conf: Any, path: str, job: Any) -> Rejection | None: ...

    def move_target(self, job: Job, source: Any, target: str) -> str | Rejection | None:
        """``CapacityScheduler.preValidateMoveApplication`` (Hadoop 3.3): the leaf's path, or the
        rule that refuses the move in Hadoop's words."""
        conf = self.conf
        if conf is None:  # Hadoop's default configuration: root.default alone
            path = _DEFAULT_QUEUE if target in ("default", _DEFAULT_QUEUE) else None
            if path is None:
                return Rejection(f"The specified Queue: {target} doesn't exist")
            return path
        path = conf.resolve(target)
        if path is None:  # getAndCheckLeafQueue
            if conf.is_ambiguous(target):
                return Rejection(f"the queue name {target} is ambiguous: name it by its full path")
            return Rejection(f"The specified Queue: {target} doesn't exist")
        if not conf.queues[path].is_leaf:
            return Rejection(f"The specified Queue: {path} is not a Leaf Queue.")
        if path == source.name:
            return path  # nothing moves
        # LeafQueue.validateSubmitApplication, then ParentQueue.validateSubmitApplication up to root
        head = path
        while head:
            if conf.queues[head].state == "STOPPED":
                if head == path:
                    return Rejection(f"Queue {path} is STOPPED. Cannot accept submission of application: {job.id}")
                return Rejection(f"The parent queue {head} of {path} is STOPPED (Queue {head} is STOPPED. "
                                 f"Cannot accept submission of application: {job.id})")
            head = head.rpartition(".")[0]
        refusal = self._application_limits(conf, path, job)
        return refusal if refusal is not None else path

    @hookimpl
    def cs_job_moved(self, job: Job, source: str, tasks: Sequence[Any]) -> None:
        """The app and its live containers leave leaf ``source`` for ``job.queue``."""
        old = str(source)
        new = str(job.queue or job.pool)
        if old == new:
            return
        self._app_keys.pop(job.sched.get(RESOURCES), None)  # its order key is the new leaf's policy's
        user = job.user
        self._apps[old] -= 1  # LeafQueue.finishApplication, submitApplication
        self._apps[new] += 1
        users = self._users.get(old)
        if users is not None:
            users[user] -= 1
            if users[user] <= 0:
                del users[user]
        self._users.setdefault(new, Counter())[user] += 1
        # detachContainer / attachContainer: the user's use and AM use move with the containers
        self._fold(job, old)  # the containers started before the move added first, to the leaf they started in
        used = Resources()
        am = Resources()
        for task in tasks:
            if task.resources is not None:
                used = used + task.resources
                if task.is_am:
                    am = am + task.resources
        before = self._users_use.setdefault(old, {})
        before[user] = before.get(user, Resources()) - used
        after = self._users_use.setdefault(new, {})
        after[user] = after.get(user, Resources()) + used
        if am.any_positive():
            ams = self._user_am.setdefault(old, {})
            ams[user] = ams.get(user, Resources()) - am
            ams = self._user_am.setdefault(new, {})
            ams[user] = ams.get(user, Resources()) + am
        self._bounds.pop(old, None)  # admit_job's bounds of both leaves are computed again
        self._bounds.pop(new, None)
