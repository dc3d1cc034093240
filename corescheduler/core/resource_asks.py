"""Resource mode: an app's requests as YARN has them (SPEC §6b) — asks of several sizes,
places and priorities, asks added or cancelled while the app runs, and a running
container made the app's AM.  Part of
:class:`~corescheduler.core.resource_scheduler.ResourceScheduler`
(:mod:`~corescheduler.core.resource_base`).

An app's plain tasks (kind ``task``) are its containers.  Most apps ask for them in one
place-less ask and run them in index order (the TaskSelector's ``pending_task``).  An app
whose tasks name locations, a priority or ``relax_locality = False``, or that changed its
asks (:meth:`YarnAsks.add_requests`) or marked an AM (:meth:`YarnAsks.mark_am`), has
:class:`AppAsks`: its tasks grouped into asks, each ask one (priority, size, locations,
relax-locality) as YARN's ``AppSchedulingInfo`` keys its ``ResourceRequest`` s, served as
``FSAppAttempt.assignContainer`` serves them: asks in priority order, and for each the
node-local, then rack-local, then (relaxed) off-switch request (YARN's locality thresholds
are -1 by default: no delay).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from attrs import evolve

from corescheduler.core.model import MAP, PENDING, REDUCE, RUNNING, TASK, Job, JobSpec, Node, Task
from corescheduler.core.resource_base import NONE, EngineState
from corescheduler.core.resources import Resources
from corescheduler.core.values import TaskSpec
from corescheduler.errors import SchedulerStateError

#: a location that names every node (YARN's ``ResourceRequest.ANY``)
ANY = "*"


class Ask:
    """One of an app's asks: containers of one size, at one priority, for the same places."""

    __slots__ = ("node_racks", "nodes", "pending", "priority", "racks", "relax", "seq", "size", "tasks")

    def __init__(self, priority: int, size: Resources, nodes: frozenset[str], racks: frozenset[str],
                 node_racks: frozenset[str], relax: bool, seq: int) -> None:
        self.priority = priority
        self.size = size
        #: the nodes it names, the racks it names, the racks of the nodes it names
        self.nodes = nodes
        self.racks = racks
        self.node_racks = node_racks
        #: YARN's ``relaxLocality``: may it run off the places it names
        self.relax = relax
        self.seq = seq
        #: its tasks, and a heap of the positions in it of those pending (stale entries skipped)
        self.tasks: list[Task] = []
        self.pending: list[int] = []

    def key(self) -> tuple[Any, ...]:
        return (self.priority, self.size, self.nodes, self.racks, self.relax)

    def outstanding(self) -> list[Task]:
        """Its pending tasks, lowest index first."""
        return sorted((t for t in self.tasks if t.state == PENDING), key=lambda t: t.index)

    def first_pending(self) -> Task | None:
        """Its lowest-index pending task, or None."""
        return _first(self)

    def pending_count(self) -> int:
        """How many of its tasks are pending (O(its tasks))."""
        return sum(1 for t in self.tasks if t.state == PENDING)

    def allows(self, node: Node) -> str | None:
        """The locality it would run at on ``node`` (``node``, ``rack``, ``off``), or None when
        it may not run there (``relax_locality`` off and the node not among its places)."""
        if node.name in self.nodes:
            return "node"
        if node.rack in self.racks or (self.relax and node.rack in self.node_racks):
            return "rack"
        return "off" if self.relax else None


def _first(ask: Ask) -> Task | None:
    heap = ask.pending
    tasks = ask.tasks
    while heap:
        task = tasks[heap[0]]
        if task.state == PENDING:
            return task
        heapq.heappop(heap)
    return None


class AppAsks:
    """One app's asks, in the order YARN serves them (priority, then first asked)."""

    __slots__ = ("asks", "marked", "where", "withdrawn")

    def __init__(self) -> None:
        self.asks: list[Ask] = []
        #: task id -> its ask and its position there
        self.where: dict[str, tuple[Ask, int]] = {}
        #: its tasks cancelled before they ran; its running containers marked as AMs
        #: (:meth:`YarnAsks.mark_am`)
        self.withdrawn = 0
        self.marked: list[Task] = []

    def find(self, key: tuple[Any, ...]) -> Ask | None:
        for ask in self.asks:
            if ask.key() == key:
                return ask
        return None

    def add(self, ask: Ask) -> None:
        self.asks.append(ask)
        self.asks.sort(key=lambda a: (a.priority, a.seq))

    def requeued(self, task: Task) -> None:
        """A container of the app's was killed: its ask counts it pending again
        (``FSAppAttempt.recoverResourceRequestsForContainer``)."""
        found = self.where.get(task.id)
        if found is not None:
            heapq.heappush(found[0].pending, found[1])


class YarnAsks(EngineState):
    """Per-app asks with places and priorities, asks changed while the app runs, and AMs
    marked among running containers."""

    #: app id -> its asks (only apps that need them: see the module docstring)
    app_asks: dict[str, AppAsks]

    # ------------------------------------------------------------------ submission
    @staticmethod
    def _locations_problem(spec: JobSpec) -> str | None:
        """What is wrong with the places the app's plain tasks name, or None: ``relax_locality``
        off with no node or rack named.  A node or rack the cluster does not have (yet) is
        taken, as YARN takes any resource name: such a place matches no node until one by
        that name joins."""
        for i, ts in enumerate(spec.tasks):
            if not ts.relax_locality and not [p for p in ts.input_nodes if p != ANY]:
                return f"task {i}: relax_locality is false but it names no node or rack to run on"
        return None

    @staticmethod
    def _needs_asks(spec: JobSpec) -> bool:
        return any(ts.input_nodes or not ts.relax_locality or ts.priority is not None for ts in spec.tasks)

    def _places(self, ts_places: Iterable[str], known_racks: set[str] | None = None,
                ) -> tuple[frozenset[str], frozenset[str], frozenset[str], bool]:
        """(nodes, racks, racks of the nodes, names any node) of a task's locations
        (``known_racks``: the cluster's racks, when the caller has them)."""
        nodes: set[str] = set()
        racks: set[str] = set()
        anywhere = False
        if known_racks is None:
            known_racks = {n.rack for n in self.owner.cluster.nodes.values()}
        for place in ts_places:
            if place == ANY:
                anywhere = True
            elif place.startswith("/"):
                racks.add(place if place in known_racks else place[1:])
            else:
                nodes.add(place)
        rack_of = self.owner._rack_of
        node_racks = frozenset(rack_of[n] for n in nodes if n in rack_of)
        return frozenset(nodes), frozenset(racks), node_racks, anywhere

    def _group_asks(self, job: Job) -> None:
        """Build the app's asks from its tasks (at submission: tasks are created then)."""
        apps = AppAsks()
        specs = job.spec.tasks
        memo = self._place_memo()
        for task, ts in zip(job.tasks.get(TASK, ()), specs):
            self._file_task(apps, task, ts, memo)
        self.app_asks[job.id] = apps

    def _place_memo(self) -> dict[Any, Any]:
        """A memo for :meth:`_file_task`: locations read so far, and the cluster's racks."""
        return {None: {n.rack for n in self.owner.cluster.nodes.values()}}

    def _file_task(self, apps: AppAsks, task: Task, ts: Any, memo: dict[Any, Any]) -> None:
        """File ``task`` (of spec ``ts``) under its ask (``memo``: :meth:`_place_memo`)."""
        found = memo.get(ts.input_nodes)
        if found is None:
            found = memo[ts.input_nodes] = self._places(ts.input_nodes, memo[None])
        nodes, racks, node_racks, anywhere = found
        relax = bool(ts.relax_locality) or anywhere or not (nodes or racks)
        priority = ts.priority if ts.priority is not None else 0
        size = task.resources or NONE
        key = (priority, size, nodes, racks, relax)
        ask = apps.find(key)
        if ask is None:
            ask = Ask(priority, size, nodes, racks, node_racks, relax, len(apps.asks))
            apps.add(ask)
        task.locations = tuple(sorted(nodes))
        task.racks = racks | (node_racks if relax else frozenset())
        apps.where[task.id] = (ask, len(ask.tasks))
        ask.tasks.append(task)
        heapq.heappush(ask.pending, len(ask.tasks) - 1)

    # ------------------------------------------------------------------ choosing
    def _choose_ask(self, apps: AppAsks, node: Node) -> Task | None:
        """``FSAppAttempt.assignContainer``: the first ask, by priority, with a pending
        container that fits the node and may run there."""
        capacity = node.capacity
        for ask in apps.asks:
            task = _first(ask)
            if task is None:
                continue
            if capacity is None or not ask.size.fits_in(capacity):
                continue  # hasContainerForNode: never on this node, try the next ask
            if ask.allows(node) is not None:
                return task
        return None

    def _allowed_nodes(self, job: Job, size: Resources) -> set[str] | None:
        """Where a starved request of ``job`` of ``size`` may run (None: anywhere): the
        places its ask names when it does not relax locality (``FSPreemptionThread``
        looks only there)."""
        apps = self.app_asks.get(job.id)
        if apps is None:
            return None
        for ask in apps.asks:
            if ask.size == size and not ask.relax and _first(ask) is not None:
                return {n.name for n in self.owner.cluster.nodes.values() if ask.allows(n) is not None}
        return None

    def _pending_in_order(self, job: Job) -> list[Task]:
        """The app's pending containers in the order its asks are served."""
        apps = self.app_asks[job.id]
        return [t for ask in apps.asks for t in ask.outstanding()]

    # ------------------------------------------------------------------ changes
    def _app_done(self, job: Job) -> bool:
        """Every container of the app is done: completed, cancelled, or its marked AM."""
        if job.all_done:
            return True
        apps = self.app_asks.get(job.id)
        if apps is None:
            return False
        complete = job.complete
        own = complete.get(TASK, 0) + apps.withdrawn + len(apps.marked)
        return (complete[MAP] == len(job.spec.maps) and complete[REDUCE] == len(job.spec.reduces)
                and own == len(job.tasks.get(TASK, ())))

    def add_requests(self, job: Job, requests: Sequence[Mapping[str, Any]], now: float) -> list[Task]:
        """The app asks again (YARN ``FairScheduler.allocate``): each request ``{"resources":
        Resources, "count": n, "locations": [...], "relax_locality": bool, "priority": int}``
        whose ask (priority, normalized size, places, relax-locality) the app has sets that
        ask's outstanding containers to ``n`` (YARN replaces a key's ``numContainers``:
        ``AppSchedulingInfo.updateResourceRequests``; 0 cancels it); any other adds an ask of
        ``n`` containers.  A request of another size for the priority, places and
        relax-locality of asks the app has replaces them, as YARN's request for the same
        priority and resource name does: their outstanding containers are cancelled
        (``TestFairScheduler.testReservationThresholdGatesReservations``).  Returns the
        containers added.  The app must not have ended; a bad request raises
        SchedulerStateError with nothing changed."""
        if job.is_finished or job.id not in self.owner.jobs:
            raise SchedulerStateError(f"job {job.id} has ended ({job.state}): it asks for nothing more")
        leaf = self.tree.queues.get(job.queue or "")
        if leaf is None:  # pragma: no cover - a live app is in its leaf
            raise SchedulerStateError(f"job {job.id} has no leaf queue {job.queue!r}")
        specs = []
        for r in requests:
            ts = TaskSpec(input_nodes=tuple(r.get("locations", ())), resources=r["resources"],
                          relax_locality=bool(r.get("relax_locality", True)), priority=r.get("priority"))
            specs.append((ts, int(r["count"])))
        probe = JobSpec(tasks=[ts for ts, _ in specs])
        problem = self._locations_problem(probe) or self.spec_problem(probe)  # type: ignore[attr-defined]
        if problem is None:
            fake = Job(id=job.id, spec=evolve(job.spec, tasks=probe.tasks, maps=(), reduces=(), am_resources=None),
                       pool=job.pool, user=job.user, priority=job.priority, submit_time=job.submit_time)
            problem = self._size_problem(fake, leaf)  # type: ignore[attr-defined]
        if problem is not None:
            raise SchedulerStateError(f"job {job.id}: {problem.removeprefix(f'job {job.id}: ')}")
        memo = self._place_memo()
        apps = self.app_asks.get(job.id)
        if apps is None:
            apps = AppAsks()
            for task, ts in zip(job.tasks.get(TASK, ()), job.spec.tasks):
                self._file_task(apps, task, ts, memo)
            self.app_asks[job.id] = apps
        for counts in (job.pending, job.running, job.complete):
            counts.setdefault(TASK, 0)
        tasks = job.tasks.setdefault(TASK, [])
        heap = job._heaps.setdefault(TASK, [])
        added: list[Task] = []
        new_specs: list[Any] = []
        for ts, count in specs:
            size = self._normalize(ts.resources)  # type: ignore[attr-defined]
            nodes, racks, _, anywhere = self._places(ts.input_nodes, memo[None])
            relax = ts.relax_locality or anywhere or not (nodes or racks)
            priority = ts.priority if ts.priority is not None else 0
            ask = apps.find((priority, size, nodes, racks, relax))
            if ask is None:  # YARN keys a request by priority and place: this one replaces those
                for other in apps.asks:
                    if (other.priority, other.nodes, other.racks, other.relax) == (priority, nodes, racks, relax):
                        for task in reversed(other.outstanding()):
                            self.ledger.withdraw(task)
                            job._pending_resources[TASK] = job._pending_resources.get(TASK, NONE) - other.size
                            apps.withdrawn += 1
            have = ask.outstanding() if ask is not None else []
            for task in reversed(have[count:]):  # fewer: the newest pending ones go
                self.ledger.withdraw(task)
                job._pending_resources[TASK] = job._pending_resources.get(TASK, NONE) - size
                apps.withdrawn += 1
            for _ in range(count - len(have)):
                index = len(tasks)
                task = Task(f"{job.id}_t_{index:06d}", job, TASK, index)
                task.resources = size
                tasks.append(task)
                heapq.heappush(heap, index)
                job.pending[TASK] += 1
                job._pending_resources[TASK] = job._pending_resources.get(TASK, NONE) + size
                sized = evolve(ts, resources=size)
                self._file_task(apps, task, sized, memo)
                new_specs.append(sized)
                added.append(task)
        if new_specs:
            job.spec = evolve(job.spec, tasks=(*job.spec.tasks, *new_specs))
        if self._app_done(job) and job.runnable and job not in self.empty_runnable:
            self.empty_runnable.append(job)  # nothing left to run: it ends at the next update
        self._reposition(job)  # type: ignore[attr-defined]
        return added

    def mark_am(self, task: Task, now: float = 0.0) -> None:
        """Mark the running container ``task`` as an AM container (YARN's tests:
        ``RMContainerImpl.setAMContainer(true)``): it counts against the leaf's
        ``maxAMShare``, preemption takes it only after the app's other containers
        (``FSPreemptionThread``), and it ends with its app.  The first container marked
        becomes the app's AM when it has none (killing it fails the attempt, as killing an
        AM does); a container marked besides, killed, asks again as a plain container.  The
        plugins are told (:meth:`~corescheduler.core.task_ledger.TaskLedger.recast`): it
        finished as a plain container and started as an AM, at ``now``."""
        job = task.job
        if task.state != RUNNING or task.id not in self.ledger.running:
            raise SchedulerStateError(f"task {task.id} is not running")
        if task.is_am:
            raise SchedulerStateError(f"task {task.id} is already an AM container")
        if task.kind != TASK:
            raise SchedulerStateError(f"task {task.id} is a {task.kind}: only a plain container can be the AM")
        apps = self.app_asks.get(job.id)
        if apps is None:
            self._group_asks(job)
            apps = self.app_asks[job.id]

        def change() -> None:
            leaf = self.tree.queues.get(job.queue or "")
            task.is_am = True
            apps.marked.append(task)
            if job.id not in self.am_tasks:
                self.am_tasks[job.id] = task
                job.am_running = True
            job.running[TASK] -= 1
            if leaf is not None:
                leaf.am_usage = leaf.am_usage + (task.resources or NONE)

        self.ledger.recast(task, change, now)

    def _unmark_am(self, task: Task, now: float = 0.0) -> None:
        """A container marked as an AM besides the app's own is killed: it is a plain
        container again (it asks again as one); the plugins are told so (it finished as an
        AM, started as a plain container) before its kill is told."""
        job = task.job

        def change() -> None:
            apps = self.app_asks.get(job.id)
            if apps is not None and task in apps.marked:
                apps.marked.remove(task)
            task.is_am = False
            job.running[TASK] += 1
            leaf = self.tree.queues.get(job.queue or "")
            if leaf is not None:
                leaf.am_usage = leaf.am_usage - (task.resources or NONE)

        self.ledger.recast(task, change, now)

    def _forget_asks(self, job: Job) -> None:
        self.app_asks.pop(job.id, None)
