"""The scheduling model: cluster, nodes, jobs, tasks, pools and schedulables.

Frozen attrs values describe what is submitted (:class:`JobSpec`,
:class:`TaskSpec`) and what hooks return (:class:`PreemptionPlan`,
:class:`Rejection`, :class:`Assignment`); they are defined in
:mod:`corescheduler.core.values` and re-exported here.  Plain slotted classes
hold the few mutable aggregates (:class:`Job`, :class:`Task`, :class:`Node`,
:class:`Pool`, :class:`Schedulable`, :class:`Cluster`): plain so that the
compiled build (``corescheduler.compiled``) makes them native classes, whose
attributes compiled code reads directly.  :class:`Schedulable`, the view share
policies read, is defined in :mod:`corescheduler.core.schedulable` and re-exported here.

Plugins receive these objects through hooks and may read every public
attribute and call every public method that does not start with ``_``; only
the scheduler changes them.  Slot kinds are ``"map"`` and ``"reduce"`` (a
task's need is one slot of its kind; resource vectors come with YARN-era
scheduling).
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar, cast

from corescheduler.core.javamath import ceil_float_times
from corescheduler.core.resources import Resources
from corescheduler.core.schedulable import Schedulable, _fields_repr
from corescheduler.core.shuffle import MapOutputs, ShuffleSpec
from corescheduler.core.values import (
    PRIORITIES,
    PRIORITY_RANK,
    PRIORITY_WEIGHT,
    Assignment,
    ClusterLoad,
    JobSpec,
    PreemptionPlan,
    Rejection,
    TaskSpec,
    check_priority,
)

MAP = "map"
REDUCE = "reduce"
KINDS: tuple[str, str] = (MAP, REDUCE)
#: A container of resource mode (YARN): a task that is neither map nor reduce.
TASK = "task"
#: Every task kind a job may have (slot mode schedules maps and reduces; resource mode all three).
ALL_KINDS: tuple[str, str, str] = (MAP, REDUCE, TASK)
#: The one "kind" of resource mode's shares and orders: a resource vector for every task.
RESOURCES = "resources"
_KIND_LETTER = {MAP: "m", REDUCE: "r", TASK: "t"}

NODE_LOCAL = "node"
RACK_LOCAL = "rack"
OFF_RACK = "off"
#: Locality levels in order of preference (delay scheduling's NODE, RACK, ANY).
LOCALITY_LEVELS: tuple[str, str, str] = (NODE_LOCAL, RACK_LOCAL, OFF_RACK)
#: how far each locality level reaches: node < rack < off
LOCALITY_RANK: dict[str, int] = {level: rank for rank, level in enumerate(LOCALITY_LEVELS)}

PENDING = "pending"
RUNNING = "running"
COMPLETE = "complete"
#: a task whose job was killed or failed while it ran
KILLED = "killed"


# --------------------------------------------------------------------------- mutable state


#: the fields Node's repr shows
_NODE_REPR = (
    "name", "rack", "slots", "running", "computing", "capacity", "used",
)
#: the fields Task's repr shows
_TASK_REPR = (
    "id", "kind", "index", "locations", "racks", "duration", "state", "node", "start_time", "attempts",
    "launch_seq", "phase", "resources", "is_am", "failures",
)
#: the fields Job's repr shows
_JOB_REPR = (
    "id", "pool", "user", "priority", "submit_time", "state", "runnable", "initialized", "pending", "running",
    "complete", "reduce_slowstart", "slowstart_maps", "start_time", "finish_time", "first_launch",
    "has_locality", "all_maps_located", "unlocated_pending", "usage", "am_running", "queue",
)


class Node:
    """A worker (Hadoop TaskTracker / YARN NodeManager) with slots per kind.

    ``computing``: reduces on this node in their compute phase (the rest of
    ``running["reduce"]`` copy).  Resource mode: ``capacity`` is what the node offers (YARN
    NodeManager capability) and ``used`` what its containers use; ``reserved`` the task
    of the app holding a reservation on this node; ``preempted_for`` the apps that
    containers preempted on this node were freed for, with how much."""

    __slots__ = (
        "_running",
        "_running_view",
        "capacity",
        "computing",
        "name",
        "preempted_for",
        "rack",
        "reserved",
        "slots",
        "tasks",
        "used",
    )

    def __init__(
        self,
        name: str,
        rack: str,
        slots: dict[str, int],
        running: dict[str, int] | None = None,
        tasks: dict[str, Task] | None = None,
        computing: int = 0,
        capacity: Resources | None = None,
        used: Resources | None = None,
        reserved: Task | None = None,
        preempted_for: list[tuple[Job, Resources]] | None = None,
    ) -> None:
        self.name = name
        self.rack = rack
        self.slots = slots
        #: the scheduler's count; plugins read :attr:`running`, a read-only view of it
        self._running: dict[str, int] = {MAP: 0, REDUCE: 0} if running is None else running
        self._running_view: Mapping[str, int] = MappingProxyType(self._running)
        self.tasks: dict[str, Task] = {} if tasks is None else tasks
        self.computing = computing
        self.capacity = capacity
        self.used: Resources = Resources() if used is None else used
        self.reserved = reserved
        self.preempted_for = preempted_for

    def __repr__(self) -> str:
        return _fields_repr(self, "Node", _NODE_REPR)

    @property
    def available(self) -> Resources:
        """Resource mode: capacity not used by running containers (YARN ``getUnallocatedResource``)."""
        return (self.capacity or Resources()) - self.used

    @property
    def running(self) -> Mapping[str, int]:
        """Tasks of each kind running on the node, a read-only view: only the scheduler
        counts them (a plugin that writes it fails, named, instead of corrupting the run)."""
        return self._running_view

    def free(self, kind: str) -> int:
        return self.slots[kind] - self._running[kind]


class Task:
    """One task of a job (one attempt at a time).

    ``duration``: seconds (for simulation) as given, an int, a float or None.
    ``phase``: a running reduce's phase, ``"copy"`` (shuffle) then ``"compute"``; None
    otherwise.  ``resources``: resource mode, the container's size; ``is_am``: this task's
    container is the application master.  ``failures``: attempts that failed (raised), as
    opposed to killed (``Scheduler.fail``)."""

    __slots__ = (
        "_node",
        "_state",
        "attempts",
        "duration",
        "failures",
        "id",
        "index",
        "is_am",
        "job",
        "kind",
        "launch_seq",
        "locations",
        "phase",
        "racks",
        "resources",
        "start_time",
    )

    def __init__(
        self,
        id: str,
        job: Job,
        kind: str,
        index: int,
        locations: tuple[str, ...] = (),
        racks: frozenset[str] = frozenset(),
        duration: Any = None,
        state: str = PENDING,
        node: str | None = None,
        start_time: float | None = None,
        attempts: int = 0,
        launch_seq: int = 0,
        phase: str | None = None,
        resources: Resources | None = None,
        is_am: bool = False,
        failures: int = 0,
    ) -> None:
        self.id = id
        self.job = job
        self.kind = kind
        self.index = index
        self.locations = locations
        self.racks = racks
        self.duration = duration
        self._state = state
        self._node = node
        self.start_time = start_time
        self.attempts = attempts
        self.launch_seq = launch_seq
        self.phase = phase
        self.resources = resources
        self.is_am = is_am
        self.failures = failures

    def __repr__(self) -> str:
        return _fields_repr(self, "Task", _TASK_REPR)

    @property
    def state(self) -> str:
        """``pending``, ``running`` or ``complete``, read-only: the scheduler launches, kills
        and finishes tasks (a plugin that writes it fails, named, instead of corrupting the run)."""
        return self._state

    @property
    def node(self) -> str | None:
        """The node a running task runs on, read-only (as :attr:`state`)."""
        return self._node

    def locality(self, node: Node) -> str:
        """``node``, ``rack`` or ``off`` for running this task on ``node``."""
        if node.name in self.locations:
            return NODE_LOCAL
        if node.rack in self.racks:
            return RACK_LOCAL
        return OFF_RACK


_NO_RACKS: frozenset[str] = frozenset()
_ENDED = frozenset({"finished", "killed", "failed"})


def _task_id(job_id: str, kind: str, index: int) -> str:
    return f"{job_id}_{_KIND_LETTER[kind]}_{index:06d}"


class Job:
    """A submitted job and its tasks.

    A job is *runnable* when the user and pool running-job limits admit it;
    its tasks are created (*initialised*) the first time it is runnable, as
    Hadoop's fair scheduler initialises jobs lazily.

    ``state``: waiting, then running, then finished (or killed or failed).
    ``slowstart_maps``: completed maps before reduces are demanded, Hadoop's
    ``completedMapsForReduceSlowstart = (int) Math.ceil(slowstart * numMapTasks)`` in Java
    float arithmetic (0.3 of 50 maps is 16), set from ``reduce_slowstart``.
    ``first_launch``: when its first task launched (Hadoop: the job is RUNNING, not
    waiting).  ``has_locality``: some map has input locations; ``all_maps_located``: every
    map has.  ``unlocated_pending``: pending maps with no input location (Hadoop's
    ``nonLocalMaps``, which empties as they launch: delay scheduling waits again once it is
    empty).  Resource mode: ``usage`` is what its running containers use, ``am_running``
    whether its application master's container runs, ``queue`` the queue's resolved full
    name (``root.a.b``).  ``map_outputs``: where its finished maps' outputs are (kept by
    ``Scheduler.finish``; None until a map of a job with reduces finishes), what a reduce
    TaskSelector reads to place reduces near their input.
    """

    __slots__ = (
        "_failed_maps",
        "_heaps",
        "_id",
        "_located_maps",
        "_node_heaps",
        "_pending_resources",
        "_pool",
        "_priority",
        "_rack_heaps",
        "all_maps_located",
        "am_running",
        "complete",
        "finish_time",
        "first_launch",
        "has_locality",
        "initialized",
        "map_outputs",
        "pending",
        "queue",
        "reduce_slowstart",
        "runnable",
        "running",
        "sched",
        "slowstart_maps",
        "spec",
        "start_time",
        "state",
        "submit_time",
        "tasks",
        "unlocated_pending",
        "usage",
        "user",
    )

    def __init__(
        self,
        id: str,
        spec: JobSpec,
        pool: str,
        user: str | None,
        priority: str,
        submit_time: Any,
        state: str = "waiting",
        runnable: bool = False,
        initialized: bool = False,
        reduce_slowstart: Any = 0.0,
        start_time: Any = None,
        finish_time: Any = None,
        first_launch: Any = None,
        queue: str | None = None,
    ) -> None:
        self._id = id
        self.spec = spec
        self._pool = pool
        self.user = user
        self._priority = priority
        self.submit_time = submit_time
        self.state = state
        self.runnable = runnable
        self.initialized = initialized
        self.tasks: dict[str, list[Task]] = {MAP: [], REDUCE: []}
        self.sched: dict[str, Schedulable] = {}
        self.pending: dict[str, int] = {MAP: 0, REDUCE: 0}
        self.running: dict[str, int] = {MAP: 0, REDUCE: 0}
        self.complete: dict[str, int] = {MAP: 0, REDUCE: 0}
        self.reduce_slowstart = reduce_slowstart
        self.slowstart_maps: int = ceil_float_times(reduce_slowstart, len(spec.maps))
        self.start_time = start_time
        self.finish_time = finish_time
        self.first_launch = first_launch
        self.has_locality = False
        self.all_maps_located = False
        self.unlocated_pending = 0
        self._heaps: dict[str, list[int]] = {MAP: [], REDUCE: []}
        self.usage = Resources()
        self.am_running = False
        self.queue = queue
        #: resource mode: what its pending tasks ask for, per kind
        self._pending_resources: dict[str, Resources] = {}
        #: maps killed while running and pending again (Hadoop's ``failedMaps``), lowest index first
        self._failed_maps: list[int] = []
        #: maps with input locations, in a job where some have none (else ``_heaps``' own order serves)
        self._located_maps: list[int] | None = None
        self._node_heaps: dict[str, list[int]] = {}
        self._rack_heaps: dict[str, list[int]] = {}
        self.map_outputs: MapOutputs | None = None
        if spec.tasks:  # resource mode's plain containers: a third kind, only where there are some
            for counts in (self.pending, self.running, self.complete):
                counts[TASK] = 0
            self.tasks[TASK] = []
            self._heaps[TASK] = []
        for kind in KINDS:
            self.sched[kind] = Schedulable(
                name=id,
                kind=kind,
                owner=self,
                start_time=submit_time,
                priority=PRIORITY_RANK[priority],
            )

    def __repr__(self) -> str:
        return _fields_repr(self, "Job", _JOB_REPR)

    @property
    def pool(self) -> str:
        """The pool (resource mode: leaf queue) the job is in, read-only: the scheduler
        places and moves jobs (a plugin that writes it fails, named, instead of
        corrupting the run)."""
        return self._pool

    @property
    def id(self) -> str:
        """The job's id, read-only (as :attr:`pool`)."""
        return self._id

    @property
    def priority(self) -> str:
        """``VERY_HIGH`` … ``VERY_LOW``, read-only: the scheduler changes it
        (``Scheduler.set_priority``), as :attr:`pool`."""
        return self._priority

    # ------------------------------------------------------------------ queries
    @property
    def num_maps(self) -> int:
        return len(self.spec.maps)

    @property
    def num_reduces(self) -> int:
        return len(self.spec.reduces)

    def task_count(self, kind: str) -> int:
        return len(self.spec.maps) if kind == MAP else len(self.spec.reduces) if kind == REDUCE else len(
            self.spec.tasks
        )

    @property
    def all_done(self) -> bool:
        """Every task of every kind completed."""
        complete = self.complete
        return (
            complete[MAP] == len(self.spec.maps)
            and complete[REDUCE] == len(self.spec.reduces)
            and complete.get(TASK, 0) == len(self.spec.tasks)
        )

    @property
    def reduces_schedulable(self) -> bool:
        """Hadoop's ``JobInProgress.scheduleReduces()``: at least
        :attr:`slowstart_maps` maps are done (reduce slow start)."""
        return self.complete[MAP] >= self.slowstart_maps

    @property
    def is_finished(self) -> bool:
        """The job has ended: finished, or killed or failed (:meth:`Scheduler.end_job`)."""
        return self.state in _ENDED

    def demand(self, kind: str) -> int:
        """Slots wanted now: running plus pending tasks (Hadoop's JobSchedulable
        demand); 0 when not runnable, and 0 for reduces before slow start."""
        if not self.runnable or not self.initialized:
            return 0
        if kind == REDUCE and not self.reduces_schedulable:
            return 0
        return self.running[kind] + self.pending[kind]

    def _first(self, heap: list[int] | None, kind: str) -> Task | None:
        if not heap:
            return None
        tasks = self.tasks[kind]
        while heap:
            task = tasks[heap[0]]
            if task._state == PENDING:
                return task
            heapq.heappop(heap)
        return None

    def pending_task(self, kind: str) -> Task | None:
        """The lowest-index pending task of ``kind`` (None if none, or reduces
        before slow start)."""
        if kind == REDUCE and not self.reduces_schedulable:
            return None
        return self._first(self._heaps[kind], kind)

    def pending_tasks(self, kind: str) -> list[Task]:
        """Every pending task of ``kind``, lowest index first (none for reduces before slow
        start).  O(tasks of the kind): for selectors that choose among all of them."""
        if kind == REDUCE and not self.reduces_schedulable:
            return []
        return [t for t in self.tasks[kind] if t._state == PENDING]

    def pending_map_on_node(self, node: str) -> Task | None:
        """The lowest-index pending map with input on ``node``."""
        return self._first(self._node_heaps.get(node), MAP)

    def pending_map_on_rack(self, rack: str) -> Task | None:
        """The lowest-index pending map with input on ``rack``."""
        return self._first(self._rack_heaps.get(rack), MAP)

    def pending_map_nodes(self) -> list[str]:
        """The nodes holding the input of some pending map (where ``pending_map_on_node``
        finds one)."""
        first = self._first
        return [node for node, heap in self._node_heaps.items() if heap and first(heap, MAP) is not None]

    def pending_map_racks(self) -> list[str]:
        """The racks holding the input of some pending map."""
        first = self._first
        return [rack for rack, heap in self._rack_heaps.items() if heap and first(heap, MAP) is not None]

    def pending_failed_map(self) -> Task | None:
        """The lowest-index map that was killed while running and is pending
        again (Hadoop's ``failedMaps``), or None."""
        return self._first(self._failed_maps, MAP) if self._failed_maps else None

    def pending_map(self, node: Node, level: str = OFF_RACK) -> Task | None:
        """The map Hadoop's ``JobInProgress.findNewMapTask`` gives ``node``
        when the job may launch maps no worse than locality ``level``:

        0. a map that was killed while running and is pending again, whatever
           its locality and ``level`` (``failedMaps``: killed work is re-run
           first, "fail early");
        1. a node-local map, then (``level`` rack or off) a rack-local one;
        2. (``level`` off) a map whose input is on other racks, then
           (``nonLocalMaps``) one with no input location at all.

        Lowest index first within each step.  Hadoop walks the other racks in
        the order of a hash set; the lowest index over all of them is the
        deterministic stand-in."""
        if self._failed_maps:
            task = self._first(self._failed_maps, MAP)
            if task is not None:
                return task
        task = self.pending_map_on_node(node.name)
        if task is not None or level == NODE_LOCAL:
            return task
        task = self.pending_map_on_rack(node.rack)
        if task is not None or level == RACK_LOCAL:
            return task
        if self._located_maps:
            task = self._first(self._located_maps, MAP)
            if task is not None:
                return task
        return self.pending_task(MAP)

    # ------------------------------------------------------------------ core-only mutation
    def _initialize(self, rack_of: Mapping[str, str]) -> None:
        """Create the tasks (Hadoop's job initialisation).

        The hot part of a simulated day (millions of maps): tasks are created
        in index order, so appending each index to its node and rack lists
        keeps every list a valid heap without ``heappush``.
        """
        if self.initialized:
            return
        self.initialized = True
        rack = rack_of.get
        node_heaps, rack_heaps = self._node_heaps, self._rack_heaps
        unlocated = 0
        default_size = self.spec.task_resources
        for kind, specs in ((MAP, self.spec.maps), (REDUCE, self.spec.reduces), (TASK, self.spec.tasks)):
            if not specs:
                continue
            tasks = self.tasks[kind]
            prefix = f"{self.id}_{_KIND_LETTER[kind]}_"
            for index, ts in enumerate(specs):
                locations = tuple(ts.input_nodes) if kind == MAP else ()
                racks: frozenset[str]
                if locations:
                    found = frozenset(map(rack, locations))
                    # a node the cluster does not know holds no rack
                    racks = frozenset(r for r in found if r is not None) if None in found else cast(
                        "frozenset[str]", found)
                else:
                    racks = _NO_RACKS
                    if kind == MAP:
                        unlocated += 1
                # read as Any: compiled code would check the value against TaskSpec's annotation
                # (float | None), and a duration is kept as given (an int, a numpy number)
                duration: Any = cast(Any, ts).duration
                task = Task(f"{prefix}{index:06d}", self, kind, index, locations, racks, duration)
                size = ts.resources if ts.resources is not None else default_size
                if size is not None:
                    task.resources = size
                tasks.append(task)
                for n in locations:
                    heap = node_heaps.get(n)
                    if heap is None:
                        node_heaps[n] = [index]
                    elif heap[-1] != index:
                        heap.append(index)
                for r in racks:
                    heap = rack_heaps.get(r)
                    if heap is None:
                        rack_heaps[r] = [index]
                    else:
                        heap.append(index)
            self.pending[kind] = len(tasks)
            self._heaps[kind] = list(range(len(tasks)))
        self.has_locality = any(t.locations for t in self.tasks[MAP])
        self.all_maps_located = all(t.locations for t in self.tasks[MAP])
        if self.has_locality and not self.all_maps_located:
            self._located_maps = [t.index for t in self.tasks[MAP] if t.locations]
        self.unlocated_pending = unlocated

    def _drop_tasks(self) -> None:
        """Let go of the tasks and their indexes (a finished job the scheduler
        keeps no history of): a task refers to its job and the job to its
        tasks, a reference cycle only the cyclic garbage collector would free."""
        self.tasks = {k: [] for k in self.tasks}
        self._heaps = {k: [] for k in self._heaps}
        self._node_heaps = {}
        self._rack_heaps = {}
        self._failed_maps = []
        self._located_maps = None

    def _index_pending(self, task: Task, push_all: bool = False) -> None:
        """Index a task that is pending again (killed while running): in every
        list it can be found through, and (a map) among the failed maps."""
        if push_all:
            heapq.heappush(self._heaps[task.kind], task.index)
            if task.kind == MAP:
                heapq.heappush(self._failed_maps, task.index)
                if self._located_maps is not None and task.locations:
                    heapq.heappush(self._located_maps, task.index)
        for n in task.locations:
            heapq.heappush(self._node_heaps.setdefault(n, []), task.index)
        for r in task.racks:
            heapq.heappush(self._rack_heaps.setdefault(r, []), task.index)


class Pool:
    """A pool (queue) of jobs, with its allocation ``spec`` (an
    ``allocations.PoolSpec``) and one :class:`Schedulable` per kind."""

    #: what :attr:`Schedulable.is_pool` reads of a schedulable's owner
    IS_POOL: ClassVar[bool] = True

    __slots__ = ("jobs", "name", "policy", "sched", "spec")

    def __init__(self, name: str, spec: Any, policy: str = "fair") -> None:
        self.name = name
        self.spec = spec
        self.policy = policy
        self.jobs: dict[str, Job] = {}
        self.sched: dict[str, Schedulable] = {
            kind: Schedulable(name=name, kind=kind, owner=self, start_time=0.0) for kind in KINDS
        }

    def __repr__(self) -> str:
        return f"Pool(name={self.name!r}, policy={self.policy!r})"

    def runnable_jobs(self) -> list[Job]:
        return [j for j in self.jobs.values() if j.runnable]


class Cluster:
    """Nodes and racks.  Nodes are ``n0000, n0001, …`` filled rack by rack,
    racks ``r00, r01, …`` (SPEC §5)."""

    __slots__ = ("nodes",)

    def __init__(self, nodes: dict[str, Node] | None = None) -> None:
        self.nodes: dict[str, Node] = {} if nodes is None else nodes

    def __repr__(self) -> str:
        return f"Cluster(nodes={self.nodes!r})"

    @classmethod
    def build(cls, racks: int, nodes_per_rack: int, map_slots: int, reduce_slots: int) -> Cluster:
        nodes: dict[str, Node] = {}
        for r in range(racks):
            for k in range(nodes_per_rack):
                name = f"n{r * nodes_per_rack + k:04d}"
                nodes[name] = Node(name=name, rack=f"r{r:02d}", slots={MAP: map_slots, REDUCE: reduce_slots})
        return cls(nodes=nodes)

    def add_node(self, name: str, rack: str, map_slots: int, reduce_slots: int) -> Node:
        node = Node(name=name, rack=rack, slots={MAP: map_slots, REDUCE: reduce_slots})
        self.nodes[name] = node
        return node

    def total_slots(self, kind: str) -> int:
        return sum(n.slots[kind] for n in self.nodes.values())

    @property
    def rack_of(self) -> dict[str, str]:
        return {n.name: n.rack for n in self.nodes.values()}

    @property
    def racks(self) -> list[str]:
        return sorted({n.rack for n in self.nodes.values()})


def schedulables(items: Sequence[Job | Pool], kind: str) -> list[Schedulable]:
    """The :class:`Schedulable` of each job or pool for ``kind``."""
    return [item.sched[kind] for item in items]


__all__ = [
    "ALL_KINDS",
    "COMPLETE",
    "KILLED",
    "KINDS",
    "LOCALITY_LEVELS",
    "LOCALITY_RANK",
    "MAP",
    "NODE_LOCAL",
    "OFF_RACK",
    "PENDING",
    "PRIORITIES",
    "PRIORITY_RANK",
    "PRIORITY_WEIGHT",
    "RACK_LOCAL",
    "REDUCE",
    "RESOURCES",
    "RUNNING",
    "TASK",
    "Assignment",
    "Cluster",
    "ClusterLoad",
    "Job",
    "JobSpec",
    "MapOutputs",
    "Node",
    "Pool",
    "PreemptionPlan",
    "Rejection",
    "Resources",
    "Schedulable",
    "ShuffleSpec",
    "Task",
    "TaskSpec",
    "check_priority",
    "schedulables",
]
