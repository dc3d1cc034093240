"""The discrete-event simulator behind ``corescheduler simulate`` and ``compare``.

A heap of ``(time, seq, kind, payload)`` tuples (``seq`` a global counter, so
ties run in push order and a run is deterministic) drives the real
:class:`~corescheduler.core.scheduler.Scheduler` with the configured plugins over a
simulated Hadoop-style cluster; nothing of the scheduler is re-implemented.
Randomness (heartbeat phases, replica placement) comes from
``random.Random(seed)`` only, so identical inputs and seed give a
byte-identical ``events.jsonl``.

What happens, in simulated seconds:

* **Submissions** — jobs are submitted at their ``submit`` times; jobs of one
  instant are submitted with ``update=False`` and followed by one update.
  Only the next submission instant is on the heap, and scheduler jobs are
  created at submission (the workload keeps only its ``JobSpec`` values).
  Maps without ``input_nodes`` get HDFS-style replicas
  (:func:`corescheduler.formats.workloads.place_replicas`).
* **Updates** — ``scheduler.update`` every ``[simulation] update_interval``
  (default: the scheduler's ``update_interval``) on multiples of it, while
  jobs are in the system, each followed by ``scheduler.preempt`` (which rate
  limits itself to ``preemption_interval``).
* **Heartbeats** — Hadoop's: every node every ``[cluster]
  heartbeat_interval`` at a seeded phase, plus an out-of-band heartbeat when a
  task finishes on it.  A heartbeat that cannot assign anything — the node
  has no free slot of a kind the scheduler has pending work of
  (:meth:`~corescheduler.core.scheduler.Scheduler.pending_work`) — is skipped and
  costs no event: such a node stops its periodic heartbeats and waits in an
  *idle* set per slot kind.  When pending work of a kind appears, a *wheel*
  visits the idle nodes with a free slot of that kind in heartbeat-phase
  order, one event each at the node's own next periodic tick, and stops as
  soon as the work is gone — the same heartbeats as if every idle node had
  kept beating, minus those that could not change anything.  Nodes with free
  slots keep beating while work is pending, so delay scheduling accumulates
  its wait.
* **Tasks** — a map runs for its duration (times ``[simulation]
  rack_local_map_slowdown`` or ``off_rack_map_slowdown`` when it was launched
  rack-local or off-rack; both 1 by default).  A reduce first copies (shuffle)
  for ``copy_duration`` (default ``[simulation] copy_fraction`` = 1/3 of its
  duration, the share Hadoop's progress gives the copy phase), but the copy
  cannot end before the job's last map finishes; then it computes for the
  rest of its duration, once the LoadManager lets it
  (:meth:`~corescheduler.core.scheduler.Scheduler.try_start_compute`; a reduce
  it holds back is asked again when a reduce on its node ends).
  :meth:`Simulation._start_compute` is the one place a reduce changes phase.
  A node takes tasks of a kind up to its LoadManager's ``cs_node_capacity``
  (its slots by default; read once per node).  A preempted task loses its work; its pending
  finish is dropped lazily (events carry the attempt number) and the task
  runs again when the scheduler relaunches it.

Memory: Python's cyclic garbage collector is paused during :meth:`Simulation.run`
and run by the engine itself every 2**20 events instead; what exists before
the run (the workload: millions of task specs on a day-long trace) is
frozen out of its scans (:func:`gc.freeze`), and a finished job lets go of its
tasks (``Scheduler(history=False)``), so reference counting frees nearly
everything at once.  On the FB-2010 day the default collector's passes over
the live tasks cost about a tenth of the run.  The previous collector state
is restored when the run ends.

Events go to ``events.jsonl`` as they happen (SPEC §5; one compact JSON
object a line) and through a :class:`~corescheduler.sim.metrics.MetricsCollector`;
nothing per event is kept in memory, and finished jobs are dropped
(``Scheduler(history=False)``).

The simulator is in rooms: this module is the engine (the heap, the event loop and its
handlers: submissions, updates and the skipping of idle ones, tasks and their phases);
which node beats when is :mod:`~corescheduler.sim.heartbeats` (the engine's base class, so
the hot path pays no indirection), the shuffle over the network
:mod:`~corescheduler.sim.network`, and what is measured :mod:`~corescheduler.sim.metrics`
and :mod:`~corescheduler.sim.report`; the workloads are in
:mod:`corescheduler.formats.workloads`.
"""

from __future__ import annotations

import gc
import heapq
import json
import math
import numbers
import random
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TextIO, cast

from attrs import define, evolve, field, frozen
from mypy_extensions import mypyc_attr

from corescheduler.config import Config
from corescheduler.core.allocations import Allocations
from corescheduler.core.model import (
    KINDS,
    MAP,
    OFF_RACK,
    RACK_LOCAL,
    REDUCE,
    RUNNING,
    TASK,
    Cluster,
    JobSpec,
    Task,
    TaskSpec,
)
from corescheduler.core.resource_scheduler import AM
from corescheduler.core.scheduler import JobRejectedError, Scheduler
from corescheduler.core.slot_engine import SlotEngine
from corescheduler.errors import ConfigError, WorkloadError
from corescheduler.formats import allocation_file
from corescheduler.settings import Settings
from corescheduler.sim.heartbeats import (
    COPY_END,
    FETCHED,
    FINISH,
    HEARTBEAT,
    IDLE_BEAT,
    REACH,
    SUBMIT,
    UPDATE,
    WHEEL,
    _NodeState,
)
from corescheduler.sim.metrics import MetricsCollector
from corescheduler.sim.network import ShuffleNetwork
from corescheduler.sim.updates import UpdateSkipping

#: the engine runs the cyclic garbage collector itself when ``events & _GC_EVERY == 0``
_GC_EVERY = (1 << 20) - 1

#: ``[simulation]`` keys read here (the workload loader reads its own keys there too).
SIMULATION_KEYS = (
    "update_interval",
    "copy_fraction",
    "heartbeats_per_second",
    "sample_interval",
    "phase_events",
    "stall_timeout",
    "reuse_quiet_updates",
    "rack_local_map_slowdown",
    "off_rack_map_slowdown",
    "skip_idle_heartbeats",
    "skip_idle_updates",
)


@frozen
class SimulationOptions:
    """``[simulation]`` settings of the engine.

    ``update_interval``: seconds between periodic updates (default: the
    scheduler's ``update_interval``).  ``copy_fraction``: a reduce's copy
    phase as a fraction of its duration when its ``copy_duration`` is not set
    (default 1/3).  ``sample_interval``: seconds between timeline samples
    (default: the workload's submission span / 500, at least 1 s; doubled
    whenever more than 1,000 samples pile up).  ``phase_events``: also write
    a ``task_phase`` event when a reduce starts computing (default false).
    ``heartbeats_per_second``: the first home of ``[cluster]
    heartbeats_per_second`` (Hadoop's ``mapred.heartbeats.in.second``), still
    read here when ``[cluster]`` does not set it
    (:meth:`~corescheduler.config.ClusterConfig.next_heartbeat_interval`).  ``reuse_quiet_updates``: an
    update tick with nothing changed since the last update reuses its shares
    (``Scheduler(reuse_quiet_updates=True)``; default true; turn it off for a
    share policy that keeps a clock of its own).  ``stall_timeout``: stop
    when jobs wait but no task has run and no job has been submitted for this
    long, and nothing is left to submit (default 3600 s; their jobs are
    reported as unfinished).  ``rack_local_map_slowdown`` and ``off_rack_map_slowdown``:
    a map launched rack-local or off-rack runs for its duration times this
    factor, the cost of reading its input over the network (default 1.0: no
    cost; the trace's durations are taken as node-local ones).
    ``skip_idle_heartbeats``: skip heartbeats that cannot assign anything
    (default true); false beats every node with a free slot at every tick,
    as a real cluster does — slower, and the reference the skipping is
    tested against (same ``events.jsonl``).  ``skip_idle_updates``: while no
    task is pending (every runnable job's tasks run or are done), or none can
    launch before the next event (:meth:`Simulation._blocked`), skip the
    periodic updates up to the last one before the next event (default true;
    slot mode, and resource mode without preemption): nothing can change in
    them, so a day of idle time costs one update, not 172,800.  False runs
    every update: the reference.
    """

    update_interval: float
    copy_fraction: float = 1.0 / 3.0
    sample_interval: float | None = None
    phase_events: bool = False
    stall_timeout: float = 3600.0
    heartbeats_per_second: float = 0.0
    reuse_quiet_updates: bool = True
    rack_local_map_slowdown: float = 1.0
    off_rack_map_slowdown: float = 1.0
    skip_idle_heartbeats: bool = True
    skip_idle_updates: bool = True

    def heartbeat_interval(self, config: Config, nodes: int) -> float:
        """Seconds between a node's periodic heartbeats (Hadoop ``getNextHeartbeatInterval``)."""
        return config.cluster.next_heartbeat_interval(nodes)

    @classmethod
    def from_config(cls, config: Config) -> SimulationOptions:
        s = Settings(config.simulation, where="[simulation]")
        opts = cls(
            update_interval=float(
                s.number("update_interval", config.scheduler.update_interval, minimum=0.001)  # MIN_INTERVAL
            ),
            copy_fraction=float(s.number("copy_fraction", 1.0 / 3.0, minimum=0, maximum=1)),
            sample_interval=s.number("sample_interval", None, minimum=0.001),  # MIN_INTERVAL
            phase_events=s.boolean("phase_events", False),
            stall_timeout=float(s.number("stall_timeout", 3600.0, minimum=0, exclusive_minimum=True)),
            heartbeats_per_second=float(s.number("heartbeats_per_second", 0.0, minimum=0)),
            reuse_quiet_updates=s.boolean("reuse_quiet_updates", True),
            rack_local_map_slowdown=float(s.number("rack_local_map_slowdown", 1.0, minimum=0, exclusive_minimum=True)),
            off_rack_map_slowdown=float(s.number("off_rack_map_slowdown", 1.0, minimum=0, exclusive_minimum=True)),
            skip_idle_heartbeats=s.boolean("skip_idle_heartbeats", True),
            skip_idle_updates=s.boolean("skip_idle_updates", True),
        )
        from corescheduler.formats.workloads import WORKLOAD_KEYS

        s.ignore(*WORKLOAD_KEYS)
        for key in s.unknown_keys():
            s.problem(key, f"unknown setting; expected one of {', '.join(SIMULATION_KEYS + WORKLOAD_KEYS)}")
        if s.problems:
            raise ConfigError(
                [f"{config.locate('simulation', key)}: [simulation] {key}: {msg}" for key, msg in s.problems]
            )
        return opts


@define
class SimulationResult:
    """What :meth:`Simulation.run` returns.

    ``metrics``: the ``metrics.json`` dict.  ``events``: events written
    (lines of ``events.jsonl``).  ``engine_events``: events taken off the heap.
    ``wall_time``: seconds.  ``events_path``: the ``events.jsonl`` written, or
    ``None`` without an output folder, when ``event_list`` holds the events.
    """

    metrics: dict[str, Any]
    events: int
    engine_events: int
    wall_time: float
    sim_time: float
    events_path: Path | None = None
    metrics_path: Path | None = None
    event_list: list[dict[str, Any]] | None = field(default=None, repr=False)


def _line_encoder() -> Callable[[Any], str]:
    """Compact JSON for one event: ``json.dumps(e, separators=(",", ":"),
    ensure_ascii=False)``, byte for byte.  Built on the json module's C encoder
    once, instead of ``JSONEncoder.encode`` building it again for every one of
    the ~17 million events of a simulated FB-2010 day (1.4 µs instead of 2.4).
    Falls back to ``JSONEncoder.encode`` where the C accelerator is missing."""
    base = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - CPython always has it
        return base.encode
    encode_one = make(None, base.default, json.encoder.encode_basestring, None, ":", ",", False, False, True)
    join = "".join

    def encode(event: Any) -> str:
        return join(encode_one(event, 0))

    return encode


def build_cluster(config: Config) -> Cluster:
    """The simulated cluster of ``config``'s ``[cluster]`` table (SPEC §5 names)."""
    cc = config.cluster
    return Cluster.build(cc.racks, cc.nodes_per_rack, cc.map_slots, cc.reduce_slots)


def load_allocations(config: Config) -> Allocations | None:
    """The allocation file ``config`` names (relative to the config), or None."""
    path = config.allocation_path()
    return allocation_file.load_allocations(path) if path is not None else None


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py), a user may still subclass it
class Simulation(UpdateSkipping):
    """One simulation run of ``workload`` under ``config``.

    :param config: the ``corescheduler.toml`` (plugins, ``[cluster]``,
        ``[simulation]``).
    :param workload: a :class:`corescheduler.formats.workloads.Workload` (its ``jobs``
        sorted by submission time, durations set).
    :param seed: seeds heartbeat phases and replica placement.
    :param extra_plugins: in-process plugins by name, selectable in
        ``config`` like installed ones.
    :param allocations: the allocations in force (default: the file the
        config names, if any).
    :param out_dir: where ``events.jsonl`` and ``metrics.json`` are written;
        ``None`` keeps the events in :attr:`SimulationResult.event_list`.
    """

    def __init__(
        self,
        config: Config,
        workload: Any,
        seed: int = 0,
        *,
        extra_plugins: Mapping[str, Any] | None = None,
        allocations: Allocations | None = None,
        out_dir: str | Path | None = None,
    ) -> None:
        self.config = config
        self.workload = workload
        self.seed = seed
        self.options = SimulationOptions.from_config(config)
        self.out_dir = Path(out_dir) if out_dir is not None else None
        self.cluster = build_cluster(config)
        if allocations is None:
            allocations = load_allocations(config)
        self.scheduler = Scheduler(
            config,
            self.cluster,
            allocations,
            extra_plugins=extra_plugins,
            on_event=self._emit,
            history=False,
            reuse_quiet_updates=self.options.reuse_quiet_updates,
        )
        self._engine = self.scheduler.engine
        self._slot = self._engine if isinstance(self._engine, SlotEngine) else None
        self.heartbeat_interval = self.options.heartbeat_interval(config, len(self.cluster.nodes))
        self.replication = config.cluster.replication
        slowdown = {RACK_LOCAL: self.options.rack_local_map_slowdown, OFF_RACK: self.options.off_rack_map_slowdown}
        self._map_slowdown = {k: v for k, v in slowdown.items() if v != 1.0} or None
        master = random.Random(seed)
        phase_rng = random.Random(master.getrandbits(64))
        self._place_rng = random.Random(master.getrandbits(64))
        self._placer: Any = None
        self._nodes_by_rack = {}
        for node in self.cluster.nodes.values():
            self._nodes_by_rack.setdefault(node.rack, []).append(node.name)
        h = self.heartbeat_interval
        capacity = self.scheduler.node_capacity
        states = [
            _NodeState(node, phase_rng.random() * h, {k: capacity(node, k) for k in KINDS})
            for node in self.cluster.nodes.values()
        ]
        self._by_phase = sorted(states, key=lambda ns: (ns.phase, ns.name))
        for rank, ns in enumerate(self._by_phase):
            ns.rank = rank
        self._phases = [ns.phase for ns in self._by_phase]
        self._states = {ns.name: ns for ns in states}
        total = {k: self.cluster.total_slots(k) for k in KINDS}
        jobs = tuple(workload.jobs)
        self._jobs = jobs
        submits = [self._submit_time(j) for j in jobs]
        span = (max(submits) - min(submits)) if submits else 0.0
        self.collector = MetricsCollector(
            total,
            sample_interval=self.options.sample_interval or max(1.0, span / 500.0),
            nodes=len(self.cluster.nodes),
            copy_holds_slot=self.scheduler.plugins.can_compute is None,
            resources=self._cluster_resources(),
        )
        # engine state
        self._heap = []
        self._seq = 0
        self._next_job = 0
        self._update_armed = False
        self._idle = {MAP: [], REDUCE: []}  # sorted phase ranks of idle nodes
        self._idle_set = {MAP: set(), REDUCE: set()}
        self._wheel = {MAP: False, REDUCE: False}
        self._wheel_due = {MAP: 0.0, REDUCE: 0.0}  # when the node a wheel armed ticks
        #: resource mode: every node with room beats at every tick (skipping is by slots)
        self._resource_mode = self.scheduler.resource_mode
        self._resting = set()  # resource mode: nodes waiting for requests
        self._skip_idle = self.options.skip_idle_heartbeats and not self._resource_mode
        self._skip_updates = self.options.skip_idle_updates
        #: the pending IDLE_BEAT: (time, generation); a newer generation voids older events
        self._idle_beat = None  # (time, generation[, node rank])
        #: can the TaskSelector want an idle heartbeat at all (its cs_select_hint)?
        self._may_want_idle = self.scheduler.plugins.select_hint is not None
        #: heartbeats whose outcome is known are counted, not run (Scheduler.skip_quiet_heartbeat)
        self._quiet = (
            self._engine.skip_quiet_heartbeat
            if self._skip_idle and self.scheduler.plugins.quiet_heartbeats() is not None
            else None
        )
        #: parking (docs/simulator.md): a node that runs no map and that no job wants stops
        #: beating, in the idle map list, until a job's reach comes to include it
        self._park = self._quiet is not None and self._engine.can_park
        self._engine.track_reach = self._park
        self._reach = {}  # job -> rank of its map reach at the last look
        self._reach_seen = None
        self._reach_settled = False  # the walk as of _reach_seen has been walked whole
        self._relook = {}  # jobs to look at again once a heartbeat walks every job (in order)
        self._reach_due = math.inf
        self._reach_gen = 0
        self._any_reach = False  # some walked job takes maps anywhere: the map wheel turns
        self._busy_idle = set()  # ranks idle in maps that run a map (never parked)
        #: ranks idle in reduces and not in maps, sorted (parking: their heartbeat walks no job)
        self._idle_ronly = []
        self._plan_later = False  # a node became idle in reduces only: plan again after this event
        #: changes whenever the nodes an IDLE_BEAT may be planned for, or a wheel, change
        self._candidates = 0
        self._plan_key = None
        self._idle_gen = 0
        self._copy_wait: dict[str, list[tuple[Task, int, float]]] = {}  # job -> reduces waiting for its maps
        # the shuffle's network model (docs/simulator.md): jobs with a shuffle description
        cc = config.cluster
        from corescheduler.formats.workloads import WorkloadSettings

        self._network = WorkloadSettings.from_config(config).shuffle != "off"
        self._shuffle = ShuffleNetwork(self.cluster, cc, self._push_fetched)
        self._compute_wait: dict[str, list[tuple[Task, int, float]]] = {}  # node -> reduces the LoadManager holds
        self._last_activity = 0.0
        self._killed_nodes: list[str] = []
        self.stalled = False
        self._events = 0
        self._buffer: list[str] = []
        self._out: TextIO | None = None
        self._event_list: list[dict[str, Any]] | None = None
        self._encode = _line_encoder()
        self._ran = False

    # ================================================================== helpers
    @staticmethod
    def _submit_time(spec: JobSpec) -> float:
        return float(spec.submit) if spec.submit is not None else 0.0

    def _emit(self, event: dict[str, Any]) -> None:
        """Every event, the scheduler's and the engine's: to the file (or list) and the metrics."""
        self._events += 1
        if self._out is not None:
            buf = self._buffer
            buf.append(self._encode(event))
            if len(buf) >= 4096:
                self._flush()
        elif self._event_list is not None:
            self._event_list.append(event)
        if event["type"] == "task_preempt":
            self._killed_nodes.append(event["node"])
        self.collector.feed(event)

    def _flush(self) -> None:
        if self._buffer and self._out is not None:
            self._buffer.append("")
            self._out.write("\n".join(self._buffer))
            self._buffer.clear()

    # ================================================================== jobs
    def _prepare(self, spec: JobSpec) -> JobSpec:
        """The spec to submit: maps without input get replicas placed (seeded)."""
        if not isinstance(spec.id, str) or not spec.id:
            raise WorkloadError(f"a job submitted at {spec.submit!r} has id {spec.id!r}; expected a name",
                                getattr(self.workload, "source", "<workload>"))
        for ts in (*spec.maps, *spec.reduces, *spec.tasks):
            # read as Any: compiled code would check it against TaskSpec's annotation, and a
            # duration is kept as given (an int, a numpy number)
            duration: Any = cast(Any, ts).duration
            real = isinstance(duration, numbers.Real) and not isinstance(duration, bool)
            if not real or not (duration >= 0 and math.isfinite(duration)):
                raise WorkloadError(f"job {spec.id}: a task has duration {duration!r}; expected a number ≥ 0",
                                    getattr(self.workload, "source", "<workload>"))
        if all(ts.input_nodes for ts in spec.maps):
            return spec
        if self._placer is None:
            from corescheduler.formats.workloads import ReplicaPlacer  # place_replicas, prepared once

            self._placer = ReplicaPlacer(self._nodes_by_rack, self.replication)
        rng = self._place_rng
        place = self._placer.place
        # every field kept but the input nodes (tests/sim/test_odd_workloads.py checks that each
        # of TaskSpec's fields survives); read as Any: see above
        maps = tuple(
            ts if ts.input_nodes else TaskSpec(
                cast(Any, ts).duration, place(rng), cast(Any, ts).copy_duration, cast(Any, ts).resources,
                ts.relax_locality, ts.priority,
            )
            for ts in spec.maps
        )
        return evolve(spec, maps=maps)  # type: ignore[arg-type]  # attrs' converter types it as an Iterable

    def _submit_batch(self, t: float) -> None:
        jobs = self._jobs
        sched = self.scheduler
        i = self._next_job
        while i < len(jobs) and self._submit_time(jobs[i]) <= t:
            spec = self._prepare(jobs[i])
            job_id: str = spec.id  # type: ignore[assignment]  # _prepare checked it
            self.collector.add_job(
                job_id,
                size_bin=self.workload.size_bin(jobs[i]),
                maps=len(spec.maps),
                reduces=len(spec.reduces),
            )
            try:
                sched.submit(spec, t, update=False)
            except JobRejectedError as exc:  # SPEC §5: the reason goes to events.jsonl (and so the metrics)
                self._emit({"time": t, "type": "job_rejected", "job": job_id, "pool": spec.pool, "user": spec.user,
                            "reason": str(exc)})
            i += 1
        self._next_job = i
        # a submission starts the stall timer's wait afresh: a job that arrives after an idle
        # gap longer than stall_timeout waits for its first heartbeat, not for nothing
        self._last_activity = t
        sched.update(t)
        if i < len(jobs):
            self._push(self._submit_time(jobs[i]), SUBMIT, None)
        self._arm_update(t)

    # ================================================================== tasks
    def _beat(self, ns: _NodeState, t: float) -> None:
        """One heartbeat of the node: launch what the scheduler assigns."""
        ns.last_beat = t
        quiet = self._quiet
        if quiet is not None and quiet(ns.name, t):  # nothing to assign, nothing would change
            ns.refused = t
            if self._park:
                self._plan_later = True
            elif self._may_want_idle:
                due = self._idle_beat
                if due is None or t >= due[0] or not self._wants_idle():
                    self._after_beat(t)
            return
        sched = self.scheduler
        assignments = sched.heartbeat(ns.name, t)
        if self._park:
            slot = self._slot
            assert slot is not None  # parking is slot mode's
            if not assignments and slot.walk_settled:
                ns.refused = t  # it walked every job and none took it
            self._plan_later = True
        elif self._skip_idle and self._may_want_idle:
            due = self._idle_beat
            if due is None or t >= due[0] or not self._wants_idle():
                self._after_beat(t)  # else: still wanted and still planned after t
        if not assignments:
            return
        self._last_activity = t
        tasks = ns.node.tasks
        push = self._push
        slowdown = self._map_slowdown
        for a in assignments:
            task = tasks[a.task]
            if a.kind == MAP:
                duration: float = task.duration  # a simulated task has one
                if slowdown is not None and a.locality in slowdown:  # its input read over the network
                    duration *= slowdown[a.locality]
                push(t + duration, FINISH, (task, task.attempts))
            elif a.kind == TASK:
                push(t + task.duration, FINISH, (task, task.attempts))
            elif a.kind == AM:
                continue  # an application master runs until its app ends
            elif self._network and task.job.spec.shuffle is not None:
                self._shuffle.reduce_started(task, t)
            else:
                duration = task.duration
                copy = cast(Any, task.job.spec.reduces[task.index]).copy_duration  # as given
                if copy is None:
                    copy = duration * self.options.copy_fraction
                copy = min(max(copy, 0.0), duration)
                push(t + copy, COPY_END, (task, task.attempts, duration - copy))

    def _wants_idle(self) -> bool:
        """The slot engine's ``wants_idle_heartbeat`` (asked only where idle heartbeats are
        skipped: slot mode)."""
        slot = self._slot
        return slot is not None and slot.wants_idle_heartbeat()

    def _copy_end(self, task: Task, attempt: int, compute: float, t: float) -> None:
        """A reduce's own copy time is over: compute now if the job's maps are done, else wait for the last."""
        if task.attempts != attempt or task.state != RUNNING:
            return  # preempted meanwhile
        job = task.job
        if job.complete[MAP] >= job.num_maps:
            self._start_compute(task, attempt, compute, t)
        else:
            self._copy_wait.setdefault(job.id, []).append((task, attempt, compute))

    # ------------------------------------------------------------------ the shuffle's network model
    def _push_fetched(self, end: float, task: Task, attempt: int, row: tuple[Any, ...], t0: float) -> None:
        """The network model (:class:`~corescheduler.sim.network.ShuffleNetwork`) knows when a
        reduce has fetched its input: a FETCHED event then, then its compute phase."""
        self._push(end, FETCHED, (task, attempt, float(task.duration), row, t0))

    def _fetched(self, task: Task, attempt: int, compute: float, row: tuple[Any, ...], t0: float, t: float) -> None:
        """A reduce has its whole input: record its shuffle row, then compute."""
        if task.attempts != attempt or task.state != RUNNING:
            return  # preempted meanwhile: its fetched data is lost with it
        by, tnd, wtnd = row
        self.collector.shuffle(task.job.id, task.id, task.node, by, tnd, wtnd, t - t0)  # type: ignore[arg-type]
        self._start_compute(task, attempt, compute, t)

    def _start_compute(self, task: Task, attempt: int, compute: float, t: float) -> None:
        """The one place a reduce goes from its copy (shuffle) phase to its
        compute phase: if the LoadManager lets it (``Scheduler.try_start_compute``);
        else it waits on its node and is asked again when a reduce there ends."""
        if not self.scheduler.try_start_compute(task.id, t):
            self._compute_wait.setdefault(task.node, []).append((task, attempt, compute))  # type: ignore[arg-type]
            return
        if self.options.phase_events:
            self._emit({"time": t, "type": "task_phase", "job": task.job.id, "task": task.id, "kind": REDUCE,
                        "node": task.node, "phase": "compute"})
        self.collector.reduce_phase(task.id, t)
        self._push(t + compute, FINISH, (task, attempt))

    def _retry_compute(self, node: str, t: float) -> None:
        """A reduce on ``node`` ended: ask again for the reduces there waiting to compute, in order."""
        waiting = self._compute_wait.pop(node, None)
        if not waiting:
            return
        for task, attempt, compute in waiting:
            if task.attempts == attempt and task.state == RUNNING:  # else preempted meanwhile
                self._start_compute(task, attempt, compute, t)

    def _finish(self, task: Task, attempt: int, t: float) -> None:
        if task.attempts != attempt or task.state != RUNNING:
            return  # preempted meanwhile: its work is lost
        self._last_activity = t
        job = task.job
        ns = self._states[task.node]  # type: ignore[index]
        self.scheduler.finish(task.id, t)
        if task.kind == REDUCE and ns.name in self._compute_wait:
            self._retry_compute(ns.name, t)
        if task.kind == MAP and self._network and job.spec.shuffle is not None and job.spec.reduces:
            self._shuffle.map_done(job, task, ns.name, t)
        if task.kind == MAP and job.complete[MAP] == job.num_maps:
            for waiting, att, compute in self._copy_wait.pop(job.id, ()):
                if waiting.attempts == att and waiting.state == RUNNING:
                    self._start_compute(waiting, att, compute, t)
        elif job.is_finished:
            self._copy_wait.pop(job.id, None)
            self._shuffle.forget(job.id)
        # Hadoop's out-of-band heartbeat on task completion
        if self._useful(ns):
            self._beat(ns, t)
        elif self._idle_beat is not None and self._wants_idle():
            self._idle_heartbeat(ns, t)
        self._settle(ns, t)

    def _update(self, t: float) -> None:
        self._update_armed = False
        sched = self.scheduler
        if not sched.jobs:
            return
        sched.update(t)
        if sched.preempt(t):
            freed, self._killed_nodes = self._killed_nodes, []
            for name in freed:
                if name in self._compute_wait:
                    self._retry_compute(name, t)
                self._settle(self._states[name], t)
        if (
            self._next_job >= len(self._jobs)
            and t - self._last_activity > self.options.stall_timeout
            and not self._tasks_running()
        ):
            self.stalled = True  # nothing has run for stall_timeout and nothing more comes: give up
            return
        self._arm_update(t)

    # ================================================================== run
    def run(self, progress: Callable[[float], None] | None = None) -> SimulationResult:
        """Run to the end (every job finished); ``progress`` gets the fraction
        of jobs done now and then."""
        if self._ran:
            raise RuntimeError("a Simulation runs once; build another")
        self._ran = True
        started = time.perf_counter()
        events_path = metrics_path = None
        if self.out_dir is not None:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            events_path = self.out_dir / "events.jsonl"
            self._out = open(events_path, "w", encoding="utf-8", newline="\n")
        else:
            self._event_list = []
        collecting = gc.isenabled()
        freezing = gc.get_freeze_count() == 0  # leave a caller's own frozen objects alone
        if freezing:
            gc.collect()
            gc.freeze()  # the workload and the scheduler's set-up: never garbage during the run
        gc.disable()  # collected every _GC_EVERY events by the loop instead
        try:
            engine_events, now = self._loop(progress)
            self._flush()
        finally:
            if freezing:
                gc.unfreeze()
            if collecting:
                gc.enable()
            if self._out is not None:
                self._out.close()
                self._out = None
        metrics = self.collector.result(end=now, unfinished=list(self.scheduler.jobs))
        if self.out_dir is not None:
            metrics_path = self.out_dir / "metrics.json"
            metrics_path.write_text(json.dumps(metrics, indent=1) + "\n", encoding="utf-8")
        if progress is not None:
            progress(1.0)
        return SimulationResult(
            metrics=metrics,
            events=self._events,
            engine_events=engine_events,
            wall_time=time.perf_counter() - started,
            sim_time=now,
            events_path=events_path,
            metrics_path=metrics_path,
            event_list=self._event_list,
        )

    def _loop(self, progress: Callable[[float], None] | None) -> tuple[int, float]:
        heap = self._heap
        pop = heapq.heappop
        collector = self.collector
        states = self._states
        total_jobs = max(1, len(self._jobs))
        for ns in self._by_phase:
            self._settle(ns, 0.0)  # every node starts idle
        if self._jobs:
            self._push(self._submit_time(self._jobs[0]), SUBMIT, None)
        count = 0
        now = 0.0
        next_sample = 0.0
        park = self._park
        while heap:
            t, _, kind, payload = pop(heap)
            count += 1
            if t >= next_sample:
                next_sample = self._sample(t)
            now = t
            if kind == HEARTBEAT:
                self._tick(payload, t)
                if park:
                    self._park_update(t, plan=False)
            elif kind == FINISH:
                self._finish(payload[0], payload[1], t)
                self._wake(t)
            elif kind == WHEEL:
                ns, wheel = payload
                self._tick(ns, t)
                self._turn_wheel(wheel, ns.rank + 1 if ns.rank + 1 < len(states) else 0, t)
                if park:
                    self._park_update(t, plan=False)
            elif kind == COPY_END:
                self._copy_end(payload[0], payload[1], payload[2], t)
            elif kind == IDLE_BEAT:
                self._on_idle_beat(payload[0], payload[1], t)
                if park:
                    self._park_update(t, plan=False)
            elif kind == REACH:
                if payload == self._reach_gen:
                    self._park_update(t, force=True)
            elif kind == FETCHED:
                self._fetched(payload[0], payload[1], payload[2], payload[3], payload[4], t)
            elif kind == UPDATE:
                self._update(t)
                if self.stalled:
                    break
                self._wake(t)
                if len(heap) == 1 and self._update_armed:  # only updates are left to happen
                    self._only_updates(t)
                    if self.stalled:
                        break
            else:  # SUBMIT
                self._submit_batch(t)
                self._wake(t)
            if not count & 0x7FF:
                if progress is not None:
                    progress(collector.jobs_done / total_jobs)
                if not count & _GC_EVERY:
                    gc.collect()
        self._sample(now, final=True)
        return count, now

    def _cluster_resources(self) -> dict[str, int] | None:
        """Resource mode: the cluster's total per resource type, for the metrics."""
        rs = self.scheduler.resource_engine
        return rs.cluster_total.as_dict() if rs is not None else None

    def _sample(self, t: float, final: bool = False) -> float:
        """Record the timeline at every sample time up to ``t``; return the next sample time."""
        rs = self.scheduler.resource_engine
        if rs is not None:  # resource mode: each leaf queue's memory and vcores used, fair memory, dominant share
            total = rs.cluster_total
            queues = {}
            for q in rs.tree.leaves():
                sched: Any = q.sched  # resource mode: its running and fair share are Resources
                queues[q.name] = (sched.running.memory, sched.running.vcores,
                                  sched.fair_share.memory if sched.fair_share is not None else 0,
                                  round(sched.running.dominant_share(total), 4))
            return self.collector.sample(t, queues, final=final)
        pools = {
            name: (p.sched[MAP].running, p.sched[REDUCE].running, p.sched[MAP].fair_share or 0.0,
                   p.sched[REDUCE].fair_share or 0.0)
            for name, p in self.scheduler.pools.items()
        }
        occupied = None
        if not self.collector.copy_holds_slot:  # only computing reduces hold reduce slots
            occupied = {REDUCE: float(sum(n.computing for n in self.cluster.nodes.values()))}
        return self.collector.sample(t, pools, final=final, occupied=occupied)


__all__ = ["SIMULATION_KEYS", "Simulation", "SimulationOptions", "SimulationResult", "build_cluster"]
