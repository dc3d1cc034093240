"""The scheduling model: cluster, nodes, jobs, tasks, pools and schedulables.

Frozen attrs values describe what is submitted (:class:`JobSpec`,
:class:`TaskSpec`) and what hooks return (:class:`PreemptionPlan`,
:class:`Rejection`, :class:`Assignment`); they are defined in
:mod:`corescheduler.core.values` and re-exported here.  ``@define`` classes
hold the few mutable aggregates (:class:`Job`, :class:`Task`, :class:`Node`,
:class:`Pool`, :class:`Schedulable`).

Plugins receive these objects through hooks and may read every public
attribute and call every public method that does not start with ``_``; only
the scheduler changes them.  Slot kinds are ``"map"`` and ``"reduce"`` (a
task's need is one slot of its kind; resource vectors come with YARN-era
scheduling).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from typing import Any

from attrs import define, field

from corescheduler.core.javamath import ceil_float_times
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
from corescheduler.resources import Resources

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


@define(eq=False)
class Schedulable:
    """A job's or a pool's view for one slot kind, as in Hadoop's Schedulable.

    The share policy reads ``weight``, ``min_share``, ``max_share``,
    ``demand``, ``running``, ``start_time``, ``priority`` and ``name``, and
    its fair shares are stored in ``fair_share`` (``None`` = not applicable,
    as for jobs in a FIFO pool).  ``owner`` is the :class:`Job` or
    :class:`Pool`.
    """

    name: str
    kind: str
    owner: Any = field(repr=False)
    weight: float = 1.0
    min_share: float = 0.0
    max_share: float = math.inf
    demand: int = 0
    running: int = 0
    fair_share: float | None = 0.0
    start_time: float = 0.0
    priority: int = PRIORITY_RANK["NORMAL"]
    # Starvation bookkeeping (pools): the last update at which the schedulable
    # was not starved for its min share / for half its fair share.
    last_time_at_min_share: float = 0.0
    last_time_at_half_fair_share: float = 0.0
    min_share_timeout: float = math.inf
    fair_share_timeout: float = math.inf
    _key: Any = field(default=None, repr=False)
    #: whether the scheduler holds it in a sorted order now (its key is current there)
    _ordered: bool = field(default=False, repr=False)
    #: resource mode (``kind == "resources"``): ``weight`` is a float and ``min_share``,
    #: ``max_share``, ``demand``, ``running`` (what it uses), ``fair_share`` and
    #: ``steady_share`` are :class:`~corescheduler.resources.Resources`; ``cluster`` is the
    #: whole cluster's resources (DRF's shares are of it); ``active``: a queue with
    #: runnable apps (YARN ``FSQueue.isActive``: only active queues get an instantaneous share)
    steady_share: Any = None
    active: bool = True
    cluster: Any = field(default=None, repr=False)

    @property
    def is_pool(self) -> bool:
        return isinstance(self.owner, Pool)

    def starved_for(self, now: float) -> bool:
        """True when past its min-share or fair-share preemption timeout
        (Hadoop: the pool is *starved*; delay scheduling is bypassed)."""
        return (
            now - self.last_time_at_min_share > self.min_share_timeout
            or now - self.last_time_at_half_fair_share > self.fair_share_timeout
        )


@define(eq=False)
class Node:
    """A worker (Hadoop TaskTracker / YARN NodeManager) with slots per kind."""

    name: str
    rack: str
    slots: dict[str, int]
    running: dict[str, int] = field(factory=lambda: {MAP: 0, REDUCE: 0})
    tasks: dict[str, Task] = field(factory=dict, repr=False)
    #: reduces on this node in their compute phase (the rest of ``running["reduce"]`` copy)
    computing: int = 0
    #: resource mode: what the node offers (YARN NodeManager capability) and what its containers use
    capacity: Resources | None = None
    used: Resources = field(factory=Resources)
    #: resource mode: the app holding a reservation on this node, and the task it is for
    reserved: Task | None = field(default=None, repr=False)
    #: resource mode: the apps that containers preempted on this node were freed for, with how much
    preempted_for: list[tuple[Job, Resources]] | None = field(default=None, repr=False)

    @property
    def available(self) -> Resources:
        """Resource mode: capacity not used by running containers (YARN ``getUnallocatedResource``)."""
        return (self.capacity or Resources()) - self.used

    def free(self, kind: str) -> int:
        return self.slots[kind] - self.running[kind]


@define(eq=False)
class Task:
    """One task of a job (one attempt at a time)."""

    id: str
    job: Job = field(repr=False)
    kind: str
    index: int
    locations: tuple[str, ...] = ()
    racks: frozenset[str] = frozenset()
    duration: float | None = None
    state: str = PENDING
    node: str | None = None
    start_time: float | None = None
    attempts: int = 0
    launch_seq: int = 0
    #: a running reduce's phase: ``"copy"`` (shuffle) then ``"compute"``; None otherwise
    phase: str | None = None
    #: resource mode: the container's size
    resources: Resources | None = None
    #: resource mode: this task's container is the application master
    is_am: bool = False
    #: attempts that failed (raised), as opposed to killed (``Scheduler.fail``)
    failures: int = 0

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


@define(eq=False)
class Job:
    """A submitted job and its tasks.

    A job is *runnable* when the user and pool running-job limits admit it;
    its tasks are created (*initialised*) the first time it is runnable, as
    Hadoop's fair scheduler initialises jobs lazily.
    """

    id: str
    spec: JobSpec = field(repr=False)
    pool: str
    user: str | None
    priority: str
    submit_time: float
    state: str = "waiting"  # waiting -> running -> finished
    runnable: bool = False
    initialized: bool = False
    tasks: dict[str, list[Task]] = field(factory=lambda: {MAP: [], REDUCE: []}, repr=False)
    sched: dict[str, Schedulable] = field(factory=dict, repr=False)
    pending: dict[str, int] = field(factory=lambda: {MAP: 0, REDUCE: 0})
    running: dict[str, int] = field(factory=lambda: {MAP: 0, REDUCE: 0})
    complete: dict[str, int] = field(factory=lambda: {MAP: 0, REDUCE: 0})
    reduce_slowstart: float = 0.0
    #: completed maps before reduces are demanded: Hadoop's
    #: ``completedMapsForReduceSlowstart = (int) Math.ceil(slowstart * numMapTasks)``,
    #: in Java float arithmetic (0.3 of 50 maps is 16); set from ``reduce_slowstart``
    slowstart_maps: int = field(init=False, default=0)
    start_time: float | None = None
    finish_time: float | None = None
    #: when its first task launched (Hadoop: the job is RUNNING, not waiting)
    first_launch: float | None = None
    has_locality: bool = False  # some map has input locations
    all_maps_located: bool = False  # every map has input locations
    #: pending maps with no input location (Hadoop's ``nonLocalMaps``, which
    #: empties as they launch: delay scheduling waits again once it is empty)
    unlocated_pending: int = 0
    _heaps: dict[str, list[int]] = field(factory=lambda: {MAP: [], REDUCE: []}, repr=False)
    #: resource mode: what its running containers use, and its application master's container
    usage: Resources = field(factory=Resources)
    am_running: bool = False
    #: resource mode: the queue's resolved full name (``root.a.b``)
    queue: str | None = None
    #: resource mode: what its pending tasks ask for, per kind
    _pending_resources: dict[str, Resources] = field(factory=dict, repr=False)
    #: maps killed while running and pending again (Hadoop's ``failedMaps``), lowest index first
    _failed_maps: list[int] = field(factory=list, repr=False)
    #: maps with input locations, in a job where some have none (else ``_heaps``' own order serves)
    _located_maps: list[int] | None = field(default=None, repr=False)
    _node_heaps: dict[str, list[int]] = field(factory=dict, repr=False)
    _rack_heaps: dict[str, list[int]] = field(factory=dict, repr=False)
    #: where its finished maps' outputs are (kept by ``Scheduler.finish``; None until a map of a
    #: job with reduces finishes): what a reduce TaskSelector reads to place reduces near
    #: their input
    map_outputs: MapOutputs | None = field(default=None, repr=False)

    def __attrs_post_init__(self) -> None:
        self.slowstart_maps = ceil_float_times(self.reduce_slowstart, len(self.spec.maps))
        if self.spec.tasks:  # resource mode's plain containers: a third kind, only where there are some
            for counts in (self.pending, self.running, self.complete):
                counts[TASK] = 0
            self.tasks[TASK] = []
            self._heaps[TASK] = []
        for kind in KINDS:
            self.sched[kind] = Schedulable(
                name=self.id,
                kind=kind,
                owner=self,
                start_time=self.submit_time,
                priority=PRIORITY_RANK[self.priority],
            )

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
            if task.state == PENDING:
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
        return [t for t in self.tasks[kind] if t.state == PENDING]

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
                if locations:
                    racks = frozenset(map(rack, locations))
                    if None in racks:  # a node the cluster does not know holds no rack
                        racks = racks - {None}
                else:
                    racks = _NO_RACKS
                    if kind == MAP:
                        unlocated += 1
                task = Task(f"{prefix}{index:06d}", self, kind, index, locations, racks, ts.duration)
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


@define(eq=False)
class Pool:
    """A pool (queue) of jobs, with its allocation ``spec`` and one
    :class:`Schedulable` per kind."""

    name: str
    spec: Any = field(repr=False)  # allocations.PoolSpec
    policy: str = "fair"
    jobs: dict[str, Job] = field(factory=dict, repr=False)
    sched: dict[str, Schedulable] = field(factory=dict, repr=False)

    def __attrs_post_init__(self) -> None:
        for kind in KINDS:
            self.sched[kind] = Schedulable(name=self.name, kind=kind, owner=self, start_time=0.0)

    def runnable_jobs(self) -> list[Job]:
        return [j for j in self.jobs.values() if j.runnable]


@define(eq=False)
class Cluster:
    """Nodes and racks.  Nodes are ``n0000, n0001, …`` filled rack by rack,
    racks ``r00, r01, …`` (SPEC §5)."""

    nodes: dict[str, Node] = field(factory=dict)

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
