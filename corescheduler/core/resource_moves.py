"""Resource mode: an admin moves a live app to another leaf queue (YARN's
``moveApplicationAcrossQueues``).  Part of
:class:`~corescheduler.core.resource_scheduler.ResourceScheduler`
(:mod:`~corescheduler.core.resource_base`).

Two steps, as YARN's ``RMAppManager`` runs them: :meth:`AppMoves.move_target` checks
(``preValidateMoveApplication``; nothing changes), :meth:`AppMoves.move_job` moves.

* **The rules** are the root queue's policy's when it has some
  (:meth:`~corescheduler.core.policy.SharePolicy.move_target`: the Capacity Scheduler's
  ``CapacityScheduler.preValidateMoveApplication``), else the fair scheduler's
  (``FairScheduler.moveApplication``): the target is an existing leaf
  (``QueueManager.getLeafQueue(name, false)``: no queue is created); a runnable app may not
  take the target or an ancestor below the two queues' lowest common ancestor to its
  ``maxRunningApps``, nor, with what the app uses now, past its ``maxResources``
  (``verifyMoveDoesNotViolateConstraints``).  With a caller, it must be allowed to submit to
  the target (``ClientRMService.moveApplicationAcrossQueues``).
* **The move** (``FairScheduler.executeMove``, ``CapacityScheduler.moveApplication``): the
  app's live containers detach from the old leaf and its ancestors and attach to the new
  ones (their use, and the AM's in the leaves' AM use), the app keeps its runnable state —
  a waiting app runs if the new leaf's limits allow (``canAppBeRunnable``), a runnable one
  waits only where a policy's rules let it into a leaf at its limit (the Capacity
  Scheduler's ``max-parallel-apps``) — and the old leaf's freed limits let waiting apps
  run (``updateRunnabilityOnAppRemoval``).  The app's reservations on nodes are dropped
  (its next heartbeat may reserve again, for its new queue).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from corescheduler.core import hook_answers as answers
from corescheduler.core.model import RESOURCES, RUNNING, Job, Rejection
from corescheduler.core.queue_tree import Queue, valid_queue_name
from corescheduler.core.queues import full_queue_name
from corescheduler.core.resource_apps import AppAdmission
from corescheduler.core.resource_base import NONE, app_user
from corescheduler.errors import SchedulerStateError

__all__ = ["AppMoves"]


def common_ancestor(a: Queue, b: Queue) -> Queue | None:
    """``FairScheduler.findLowestCommonAncestorQueue``: the deepest queue above (or at) both."""
    above = {id(q) for q in (a, *a.ancestors())}
    q: Queue | None = b
    while q is not None and id(q) not in above:
        q = q.parent
    return q


class AppMoves(AppAdmission):
    """Moving a live app between leaf queues."""

    def priority_allowed(self, job: Job, priority: str, caller: tuple[str, Sequence[str]] | None = None) -> None:
        """The root policy's :meth:`~corescheduler.core.policy.SharePolicy.set_priority`: a
        Rejection is an AccessDeniedError (``ClientRMService.updateApplicationPriority``'s
        AccessControlException); nothing changes then."""
        if job.is_finished:
            return
        root_policy = self.tree.root.policy
        answer = self.owner.plugins.share_policy(root_policy).policy.set_priority(job, priority, caller)
        if isinstance(answer, Rejection):
            raise self.owner.rejected(answer.reason, access=True)
        if answer is not None:
            raise answers.refuse(self.owner.plugins.who("SharePolicy", root_policy), "set_priority", answer,
                                 "a Rejection or None")

    def move_target(self, job: Job, pool_name: str, caller: tuple[str, Sequence[str]] | None = None) -> str | None:
        """The leaf ``job`` moves to, every rule checked (SchedulerStateError naming the app,
        the target and the rule; AccessDeniedError when ``caller`` may not submit there);
        None when there is nothing to move (``pool_name`` is its queue).  An app that has ended
        is refused: ``FairScheduler.moveApplication`` ("is stopped and can't be moved", YARN-7139)
        and ``ClientRMService.moveApplicationAcrossQueues`` ("App in FINISHED state cannot be
        moved")."""
        if job.is_finished:
            raise SchedulerStateError(f"cannot move {job.id}: Application {job.id} is stopped and can't be moved!")
        source = self.tree.queues.get(job.queue or "")
        if source is None:  # pragma: no cover - a live app is in its leaf
            raise SchedulerStateError(f"job {job.id} has no leaf queue {job.queue!r}")
        root_policy = self.tree.root.policy
        policy = self.owner.plugins.share_policy(root_policy).policy
        answer = policy.move_target(job, source, pool_name)
        if answer is None:
            target = self._fair_target(job, source, pool_name)
        elif isinstance(answer, Rejection):
            raise SchedulerStateError(f"cannot move {job.id} to queue {pool_name}: {answer.reason}")
        else:
            found = self.tree.queues.get(answer) if isinstance(answer, str) else None
            if found is None or not found.is_leaf:
                raise answers.refuse(self.owner.plugins.who("SharePolicy", root_policy), "move_target", answer,
                                     "the path of a live leaf queue, a Rejection or None")
            target = found
        if target is source:
            return None
        if caller is not None and not self.tree.config.can_submit(target.name, caller[0], caller[1]):
            # ClientRMService.moveApplicationAcrossQueues: the caller's submit access to the target
            raise self.owner.rejected(f"User {caller[0]} does not have permissions to submit {job.id} to target "
                                      f"queue {target.name}", access=True)
        return target.name

    def _fair_target(self, job: Job, source: Queue, pool_name: str) -> Queue:
        """``FairScheduler.moveApplication``'s rules: the target leaf, or SchedulerStateError."""
        name = full_queue_name(pool_name)
        target = self.tree.queues.get(name) if valid_queue_name(name) is None else None
        if target is None or not target.is_leaf:
            raise SchedulerStateError(f"cannot move {job.id}: target queue {pool_name} not found or is not a leaf "
                                      "queue")
        if target is source or not job.runnable:
            return target
        # verifyMoveDoesNotViolateConstraints: below the lowest common ancestor, whose counts the
        # move does not change
        top = common_ancestor(source, target)
        consumption = job.usage
        cur: Queue | None = target
        while cur is not None and cur is not top:
            if cur.num_runnable >= cur.max_running_apps:
                raise SchedulerStateError(
                    f"Moving app {job.id} to queue {target.name} would violate queue maxRunningApps constraints on "
                    f"queue {cur.name} (maxRunningApps {cur.max_running_apps}, {cur.num_runnable} running)")
            s = cur.sched
            if not s.running.fits_with(consumption, s.max_share):
                raise SchedulerStateError(
                    f"Moving app {job.id} to queue {target.name} would violate queue maxShare constraints on queue "
                    f"{cur.name} (it uses {s.running}, the app {consumption}, maxResources {s.max_share})")
            cur = cur.parent
        return target

    def move_job(self, job: Job, target: str, now: float) -> None:
        """``FairScheduler.executeMove`` / ``CapacityScheduler.moveApplication``: ``job`` leaves
        its leaf for ``target`` (:meth:`move_target`'s answer) with its live containers."""
        source = self.tree.queues[job.queue or ""]
        new = self.tree.queues[target]
        self._unreserve_all(job)  # type: ignore[attr-defined]  # its reservations count in its old queues
        was_runnable = job.runnable and job in source.runnable_apps
        top = common_ancestor(source, new)
        if was_runnable:  # stays runnable unless a queue below the common ancestor is full
            now_runnable = True
            q: Queue | None = new
            while q is not None and q is not top:
                if q.num_runnable >= q.max_running_apps:
                    now_runnable = False
                q = q.parent
        else:
            now_runnable = self._can_be_runnable(new, job)
        user = app_user(job)
        js = job.sched[RESOURCES]
        # out of the old leaf
        if js._ordered:
            source.order.remove(js)
            js._ordered = False
        if was_runnable:
            at = source.runnable_apps.index(job)
            del source.runnable_apps[at]
            del source.app_scheds[at]
            q = source
            while q is not None:
                q.num_runnable -= 1
                q = q.parent
        else:
            if job in source.waiting_apps:
                source.waiting_apps.remove(job)
            if now_runnable:
                waiting = self.user_waiting.get(user)
                if waiting is not None and job in waiting:
                    waiting.remove(job)
        # its live containers detach (LeafQueue.detachContainer) and attach (attachContainer)
        used = job.usage
        am_used = NONE
        for task in self.ledger.running_of(job):
            if task.is_am and task.resources is not None and task.state == RUNNING:
                am_used = am_used + task.resources
        q = source
        while q is not None:
            q.sched.running = q.sched.running - used
            q = q.parent
        q = new
        while q is not None:
            q.sched.running = q.sched.running + used
            q = q.parent
        source.am_usage = source.am_usage - am_used
        new.am_usage = new.am_usage + am_used
        source.admit_until = None  # SharePolicy.admit_leaf's answers are asked again
        new.admit_until = None
        job._pool = new.name
        job.queue = new.name
        # into the new leaf
        if was_runnable and now_runnable:
            new.runnable_apps.append(job)
            new.app_scheds.append(js)
            q = new
            while q is not None:
                q.num_runnable += 1
                q = q.parent
        elif now_runnable:
            self._make_runnable(new, job, now)
        else:
            if was_runnable:  # untrackRunnableApp: it waits in its new leaf
                job.runnable = False
                count = self.user_runnable.get(user, 0) - 1
                if count > 0:
                    self.user_runnable[user] = count
                else:
                    self.user_runnable.pop(user, None)
                self.user_waiting.setdefault(user, []).append(job)
                self.user_waiting[user].sort(key=_submitted)
            starts = [j.submit_time for j in new.waiting_apps]
            new.waiting_apps.insert(bisect.bisect_right(starts, job.submit_time), job)
        self._steady_dirty = True
        self._reposition(job, new)  # type: ignore[attr-defined]
        if was_runnable:
            self._runnability_on_removal(source, user, now)


def _submitted(job: Job) -> Any:
    return job.submit_time
