"""Resource mode: an app's submission — its queue, its requests normalized and checked —
and YARN's running-app limits (``FairScheduler.addApplication``,
``SchedulerUtils.normalizeRequest``, ``MaxRunningAppsEnforcer``).  Part of
:class:`~corescheduler.core.resource_scheduler.ResourceScheduler`
(:mod:`~corescheduler.core.resource_base`)."""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable
from typing import Any

from corescheduler.core.model import (
    PRIORITY_RANK,
    PRIORITY_WEIGHT,
    RESOURCES,
    Job,
    JobSpec,
    Schedulable,
    Task,
)
from corescheduler.core.queue_tree import Queue, valid_queue_name
from corescheduler.core.queues import full_queue_name
from corescheduler.core.resource_base import AM, NONE, EngineState, app_user
from corescheduler.core.resources import Resources, normalize
from corescheduler.errors import SchedulerStateError


class AppAdmission(EngineState):
    """Submission and the running-app limits: an app placed in its leaf, runnable or
    waiting, and waiting apps made runnable as others end."""

    def spec_problem(self, spec: JobSpec) -> str | None:
        """What the engine cannot run in ``spec``, or None: a task asking a negative amount,
        or a plain task naming a node or rack the cluster does not have (SPEC §6b)."""
        if any(v < 0 for ts in (*spec.maps, *spec.reduces, *spec.tasks) if ts.resources is not None
               for _, v in ts.resources.items()):
            return "a task asks for a negative amount of a resource"
        if spec.tasks and self._needs_asks(spec):  # type: ignore[attr-defined]
            return self._locations_problem(spec)  # type: ignore[attr-defined,no-any-return]
        return None

    def place_job(self, job: Job, now: float) -> None:
        """Place ``job`` (its ``pool`` is the PoolResolver's answer) and admit it."""
        owner = self.owner
        name = full_queue_name(job.pool)
        problem = valid_queue_name(name)
        if problem is not None:
            raise owner.rejected(f"{problem}")
        leaf = self.tree.leaf(name, create=True)
        if leaf is None:
            raise owner.rejected(f"{name} is not a leaf queue")
        config = self.tree.config
        if not config.can_submit(leaf.name, job.user, job.spec.groups):
            self.tree.remove_empty_dynamic()
            raise owner.rejected(f"User {job.user} does not have permission to submit {job.id} to queue {leaf.name}",
                                 access=True)
        am = job.spec.am_resources
        problem = self._size_problem(job, leaf)
        if problem is not None:
            self.tree.remove_empty_dynamic()
            raise owner.rejected(problem)
        job._pool = leaf.name
        job.queue = leaf.name
        maximum = leaf.sched.max_share
        spec = job.spec
        sizes = [("AM", am)] if am is not None else []
        sizes += [("task", ts.resources or spec.task_resources) for ts in (*spec.maps, *spec.reduces, *spec.tasks)]
        if not owner.plugins.share_policy(leaf.policy).policy.refuses_zero_maximum:
            sizes = []  # (the Capacity Scheduler's: an empty cluster, or a queue of maximum 0, takes the app)
        for what, size in sizes:
            # FairScheduler.addApplication for the AM; here for every request (beyond YARN, where
            # a task asking for a type the queue has none of waits forever)
            zero = [n for n, v in size.items() if v > 0 and maximum.get(n) == 0] if size is not None else []
            if zero:
                self.tree.remove_empty_dynamic()
                raise owner.rejected(
                    f"Cannot submit application {job.id} to queue {leaf.name} because it has zero amount of "
                    f"resource for a requested resource! Invalid requested {what} resources: {', '.join(zero)}, "
                    f"maximum queue resources: {maximum}"
                )
        s = Schedulable(
            name=job.id, kind=RESOURCES, owner=job, weight=PRIORITY_WEIGHT[job.priority], min_share=NONE,
            priority=PRIORITY_RANK[job.priority],
            max_share=Resources.unbounded(self.cluster_total.names), demand=NONE, running=NONE,
            fair_share=NONE, start_time=job.submit_time,
        )
        s.cluster = self.cluster_total
        s.steady_share = NONE
        job.sched[RESOURCES] = s
        job._initialize(owner._rack_of)
        default = self.settings.task_resources
        sized: dict[Resources, Resources] = {}  # ask -> normalized (a job has few distinct sizes)
        for kind, tasks in job.tasks.items():
            total = NONE
            for task in tasks:
                ask = task.resources if task.resources is not None else default  # neither the task nor the job
                normal = sized.get(ask)
                if normal is None:
                    normal = sized[ask] = self._normalize(ask)
                task.resources = normal
                total = total + normal
            job._pending_resources[kind] = total
        if spec.tasks and self._needs_asks(spec):  # type: ignore[attr-defined]
            self._group_asks(job)  # type: ignore[attr-defined]  # asks with places or priorities
        if am is not None:
            am_task = Task(f"{job.id}_am_000000", job, AM, 0)
            am_task.resources = self._normalize(am)
            am_task.is_am = True
            self.am_tasks[job.id] = am_task

    def admit_job(self, job: Job, now: float) -> None:
        """Make the app :meth:`place_job` placed runnable, or let it wait for the running-app
        limits (``MaxRunningAppsEnforcer``).  Separate from :meth:`place_job` so that the
        caller writes the app's ``job_submit`` before the ``job_start`` this may write
        (SPEC §5: a job's ``job_submit`` comes before anything else of it)."""
        leaf = self.tree.queues.get(job.queue or "")
        if leaf is None:  # pragma: no cover - submit placed it in this leaf
            raise SchedulerStateError(f"job {job.id} has no leaf queue {job.queue!r}")
        if self._can_be_runnable(leaf, job):
            self._make_runnable(leaf, job, now)
        else:
            leaf.waiting_apps.append(job)
            self.user_waiting.setdefault(app_user(job), []).append(job)
        self._steady_dirty = True

    def _normalize(self, ask: Resources) -> Resources:
        """``SchedulerUtils.normalizeRequest``: the ask as the root queue's policy sizes it
        (``SharePolicy.normalize``), else rounded up to the increment, between the minimum and
        the maximum allocation (``[cluster]``; SPEC §6b)."""
        c = self.owner.config.cluster
        sized = self.owner.plugins.share_policy(self.tree.root.policy).policy.normalize(
            ask, c.minimum_allocation, c.maximum_allocation, c.increment_allocation)
        if sized is not None:
            return sized
        return normalize(ask, c.minimum_allocation, c.maximum_allocation, c.increment_allocation)

    def _size_problem(self, job: Job, leaf: Queue) -> str | None:
        """Why a request of the app is refused, or None: a negative amount, or more than the queue's
        ``maxContainerAllocation`` (YARN ``SchedulerUtils.normalizeAndValidateRequest`` against
        ``FairScheduler.getMaximumResourceCapability(queue)``)."""
        spec = job.spec
        sizes = {ts.resources for ts in (*spec.maps, *spec.reduces, *spec.tasks)}
        if None in sizes:
            sizes.discard(None)
            sizes.add(spec.task_resources or self.settings.task_resources)
        labelled = [("AM", spec.am_resources)] if spec.am_resources is not None else []
        labelled += [("task", s) for s in sizes]
        limit = self.tree.config.max_container_allocation(leaf.name)
        maximum = self.owner.config.cluster.maximum_allocation
        for what, size in labelled:  # (a request larger than every node waits for one, as in YARN)
            if any(v < 0 for _, v in size.items()):
                return f"job {job.id}: its {what} container {size} asks for a negative amount"
            over = [n for n, v in size.items() if n in maximum.names and v > maximum.get(n)]
            if over:  # SchedulerUtils.validateResourceRequest: above the maximum allocation
                return (f"Invalid resource request! Cannot allocate containers as requested resource is greater "
                        f"than maximum allowed allocation. Requested resource type=[{over[0]}], Requested "
                        f"resource={size}, maximum allowed allocation={maximum} (job {job.id}'s {what} container; "
                        "[cluster] maximum_allocation)")
            if limit is not None and not size.fits_in(limit):
                return (f"Cannot submit {job.id} to queue {leaf.name}: its {what} container {size} is larger "
                        f"than the queue's maxContainerAllocation {limit}")
        return None

    @staticmethod
    def _size(task: Task) -> Resources:
        if task.resources is None:
            raise SchedulerStateError(
                f"task {task.id} has no resources: in resource mode every task needs a size "
                "(its own \"resources\" or the job's \"task_resources\")"
            )
        return task.resources

    def _can_be_runnable(self, leaf: Queue, job: Job) -> bool:
        """``MaxRunningAppsEnforcer.canAppBeRunnable``: the user and every queue up to root under their limits."""
        config = self.tree.config
        user = app_user(job)
        if self.user_runnable.get(user, 0) >= config.user_max_running_apps(user):
            return False
        q: Queue | None = leaf
        while q is not None:
            if q.num_runnable >= q.max_running_apps:
                return False
            q = q.parent
        return True

    def _make_runnable(self, leaf: Queue, job: Job, now: float) -> None:
        """``trackRunnableApp`` and ``FSLeafQueue.addApp(app, true)``."""
        leaf.runnable_apps.append(job)
        leaf.app_scheds.append(job.sched[RESOURCES])
        q: Queue | None = leaf
        while q is not None:
            q.num_runnable += 1
            q = q.parent
        user = app_user(job)
        self.user_runnable[user] = self.user_runnable.get(user, 0) + 1
        job.runnable = True
        if job.state == "waiting":
            job.state = "running"
            job.start_time = now
            job.initialized = True
            self.ledger.emit({"time": now, "type": "job_start", "job": job.id, "pool": job.pool})
            spec = job.spec
            if not spec.maps and not spec.reduces and not spec.tasks:
                self.empty_runnable.append(job)  # nothing to run (not even its AM): it ends at once
        self._reposition(job)

    def _release_waiting(self, queues: Iterable[Queue], limit: float, user: Any = None, *, now: float) -> int:
        """Make waiting apps runnable, oldest first across ``queues``' waiting lists (and the
        user's), up to ``limit`` of them (``MaxRunningAppsEnforcer.updateAppsRunnability``)."""
        lists: list[list[Job]] = [q.waiting_apps for q in queues if q.is_leaf and q.waiting_apps]
        if user is not None and self.user_waiting.get(user):
            lists.append(self.user_waiting[user])
        if not lists:
            return 0
        limit = min(limit, len(lists)) if math.isfinite(limit) else limit
        heap = [(lst[0].submit_time, i, 0) for i, lst in enumerate(lists) if lst]
        heapq.heapify(heap)
        made: list[Job] = []
        previous = None
        while heap and len(made) < limit:
            _, i, pos = heapq.heappop(heap)
            lst = lists[i]
            job = lst[pos]
            if pos + 1 < len(lst):
                heapq.heappush(heap, (lst[pos + 1].submit_time, i, pos + 1))
            if job is previous or job.runnable or job.is_finished:
                continue
            previous = job
            leaf = self.tree.queues.get(job.queue or "")
            if leaf is None or not self._can_be_runnable(leaf, job):
                continue
            self._make_runnable(leaf, job, now)
            made.append(job)
        for job in made:
            leaf = self.tree.queues.get(job.queue or "")
            if leaf is not None and job in leaf.waiting_apps:
                leaf.waiting_apps.remove(job)
            waiting = self.user_waiting.get(app_user(job))
            if waiting is not None and job in waiting:
                waiting.remove(job)
        return len(made)

    def _remove_app(self, job: Job, now: float) -> None:
        """``FairScheduler.removeApplicationAttempt``: out of its queue; waiting apps may run."""
        leaf = self.tree.queues.get(job.queue or "")
        if leaf is None:
            return
        self._unreserve_all(job)
        if job in leaf.waiting_apps:
            leaf.waiting_apps.remove(job)
            waiting = self.user_waiting.get(app_user(job))
            if waiting is not None and job in waiting:
                waiting.remove(job)
            return
        if job not in leaf.runnable_apps:
            return
        at = leaf.runnable_apps.index(job)
        del leaf.runnable_apps[at]
        del leaf.app_scheds[at]
        self._reposition(job)  # out of the orders
        q: Queue | None = leaf
        while q is not None:
            q.num_runnable -= 1
            q = q.parent
        user = app_user(job)
        count = self.user_runnable.get(user, 0) - 1
        if count > 0:
            self.user_runnable[user] = count
        else:
            self.user_runnable.pop(user, None)
        self._runnability_on_removal(leaf, user, now)

    def _runnability_on_removal(self, leaf: Queue, user: Any, now: float) -> None:
        """``MaxRunningAppsEnforcer.updateRunnabilityOnAppRemoval``: a runnable app of ``user``
        left ``leaf`` (it ended, or moved away); waiting apps the freed limits allow run."""
        # the highest queue that was at its limit frees its subtree
        highest = None
        q: Queue | None = leaf
        while q is not None:
            if q.num_runnable == q.max_running_apps - 1:
                highest = q
            q = q.parent
        queues = list(self._gather(highest)) if highest is not None else []
        config = self.tree.config
        user_freed = self.user_runnable.get(user, 0) == config.user_max_running_apps(user) - 1
        lists = len([q for q in queues if q.is_leaf and q.waiting_apps]) + (
            1 if user_freed and self.user_waiting.get(user) else 0
        )
        if lists:
            self._release_waiting(queues, lists, user if user_freed else None, now=now)

    def _gather(self, top: Queue) -> Iterable[Queue]:
        """``gatherPossiblyRunnableAppLists``: queues under ``top`` (itself included) below their limit."""
        if top.num_runnable >= top.max_running_apps:
            return
        yield top
        for child in top.children.values():
            yield from self._gather(child)
