"""A deterministic, clock-driven cluster for plugin authors' tests (SPEC §6).

:class:`ClusterHarness` drives the real :class:`~corescheduler.core.scheduler.Scheduler`
with the real plugins; only the clock and the task lifecycle are in the
test's hands::

    from corescheduler.testing import ClusterHarness

    h = ClusterHarness(racks=1, nodes_per_rack=2, map_slots=2, reduce_slots=2)
    h.advance(0.1)
    job = h.submit(maps=2, reduces=1, pool="poolA")
    tasks = h.heartbeat("n0000")
    h.finish(tasks[0])

Harness defaults follow Hadoop's own test fixture (``TestFairScheduler.setUp``)
where the config does not say otherwise: one task a heartbeat
(``assign_multiple = false``, the fixture's
``mapred.fairscheduler.assignmultiple=false``), preemption checked
on every :meth:`~ClusterHarness.advance` (``preemption_interval = 0``),
reduces demanded at once (``reduce_slowstart = 0``) and a job submitted
without a pool in ``default`` (the ``property`` resolver reads only
``queue.name``).  The rest are the scheduler's own defaults, Hadoop's
(``cap_based`` load manager, ``delay`` task selector with its waits computed
from ``[cluster] heartbeat_interval`` — Hadoop's fixture sets 5 s and 10 s
only because it has no JobTracker to compute them from — fair sharing).

Also a pytest plugin (entry point ``pytest11``): the ``cluster`` fixture is a
ready harness (1 rack × 2 nodes, 2 map and 2 reduce slots each) that is also
a factory — ``cluster(racks=2, nodes_per_rack=2, config=...)`` builds another.
"""

from __future__ import annotations

import copy
import math
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

from attrs import evolve

from corescheduler.config import Config, SchedulerConfig
from corescheduler.core.model import KINDS, Assignment, Cluster, Job, JobSpec, Task, TaskSpec
from corescheduler.core.scheduler import JobRejectedError, Scheduler
from corescheduler.core.shuffle import ShuffleSpec
from corescheduler.errors import SchedulerStateError
from corescheduler.formats.allocation_file import parse_allocations
from corescheduler.resources import Resources, parse_resources

#: What :meth:`ClusterHarness.submit` raises for an app placement, an ACL or the queue type refuses.
SubmissionRejected = JobRejectedError


def _resources(value: str | Resources) -> Resources:
    return value if isinstance(value, Resources) else parse_resources(value, missing=0)


#: the keys of a §6b request
_REQUEST_KEYS = ("resources", "count", "locations", "relax_locality", "priority")
#: ``state=`` of :meth:`ClusterHarness.submit_app` → the state the app ends in at once
_ENDED_STATES = {"FINISHED": "finished", "SUCCEEDED": "finished", "FAILED": "failed", "KILLED": "killed"}


def _requests(requests: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """SPEC §6b requests, checked: ``{"resources": R, "count": n, "locations": [...],
    "relax_locality": bool, "priority": int}`` (ValueError naming the request and key)."""
    if isinstance(requests, (str, Mapping)) or not isinstance(requests, Sequence):
        raise ValueError(f"requests must be a list of requests, got {type(requests).__name__}")
    out = []
    for i, r in enumerate(requests):
        if not isinstance(r, Mapping):
            raise ValueError(f"requests[{i}] must be a dict with {', '.join(_REQUEST_KEYS)}, got {r!r}")
        unknown = sorted(set(r) - set(_REQUEST_KEYS))
        if unknown:
            raise ValueError(f"requests[{i}]: unknown key {unknown[0]!r} (known: {', '.join(_REQUEST_KEYS)})")
        if "resources" not in r:
            raise ValueError(f"requests[{i}]: 'resources' is required (e.g. \"1024 mb, 1 vcores\")")
        if not isinstance(r["resources"], (str, Resources)):
            raise ValueError(f"requests[{i}]: resources must be a string or Resources, got {r['resources']!r}")
        count = r.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"requests[{i}]: count must be a whole number ≥ 0, got {count!r}")
        locations = r.get("locations", ())
        if isinstance(locations, str) or not isinstance(locations, Sequence) or not all(
                isinstance(x, str) and x for x in locations):
            raise ValueError(f"requests[{i}]: locations must be a list of node names, \"/rack\" names or \"*\", "
                             f"got {locations!r}")
        relax = r.get("relax_locality", True)
        if not isinstance(relax, bool):
            raise ValueError(f"requests[{i}]: relax_locality must be true or false, got {relax!r}")
        priority = r.get("priority")
        if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)):
            raise ValueError(f"requests[{i}]: priority must be a whole number, got {priority!r}")
        try:
            size = _resources(r["resources"])
        except Exception as exc:
            raise ValueError(f"requests[{i}]: resources: {exc}") from None
        out.append({"resources": size, "count": count, "locations": tuple(locations), "relax_locality": relax,
                    "priority": priority})
    return out

#: What the harness sets when the config leaves it out (Hadoop's test fixture);
#: a plugin's table is added only when that plugin is selected.
HARNESS_DEFAULTS: dict[str, dict[str, Any]] = {
    "scheduler": {"preemption_interval": 0.0, "reduce_slowstart": 0.0, "assign_multiple": False},
    "plugins": {"property": {"pool_name_property": ["queue.name"]}},
}


def _merge_defaults(data: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(dict(data))
    sched = out.setdefault("scheduler", {})
    if isinstance(sched, dict):
        for key, value in HARNESS_DEFAULTS["scheduler"].items():
            sched.setdefault(key, value)
    plugins = out.setdefault("plugins", {})
    if isinstance(plugins, dict):
        selected = _selected(sched if isinstance(sched, Mapping) else {})
        for name, table in HARNESS_DEFAULTS["plugins"].items():
            if name not in plugins and name in selected:
                plugins[name] = dict(table)
    return out


def _selected(sched: Mapping[str, Any]) -> set[str]:
    """The plugin names a ``[scheduler]`` table selects (defaults included)."""
    names: set[str] = set()
    defaults = SchedulerConfig()
    for key in ("pool_resolver", "weight_adjusters", "load_manager", "task_selector", "share_policy",
                "victim_selector", "listeners"):
        value = sched.get(key, getattr(defaults, key))
        if isinstance(value, str):
            names.add(value)
        elif isinstance(value, (list, tuple)):
            names.update(v for v in value if isinstance(v, str))
    return names


def harness_config(config: str | Mapping[str, Any] | Config | None) -> Config:
    """A :class:`Config` from TOML text, a dict or a Config, with harness defaults."""
    if isinstance(config, Config):
        return config
    if config is None:
        data: Mapping[str, Any] = {}
        text = None
    elif isinstance(config, str):
        Config.from_toml(config, source="<harness config>")  # report syntax errors with lines
        data = tomllib.loads(config)
        text = config
    else:
        data = config
        text = None
    return Config.from_dict(_merge_defaults(data), source="<harness config>", text=text)


def _id(obj: Any) -> str:
    if isinstance(obj, str):
        return obj
    if isinstance(obj, Assignment):
        return obj.task
    return obj.id


class ClusterHarness:
    """A fake-clock cluster around the real scheduler.

    :param racks, nodes_per_rack, map_slots, reduce_slots: the cluster shape;
        nodes ``n0000…`` are filled rack by rack, racks ``r00…``.
    :param config: ``corescheduler.toml`` contents (TOML text, dict or
        :class:`Config`).
    :param allocations: allocation file contents (XML text) or ``None``.
    :param plugins: in-process plugins by name (classes or objects), selectable
        in ``config`` as if installed — test a plugin before packaging it.
    """

    def __init__(
        self,
        racks: int = 1,
        nodes_per_rack: int = 2,
        map_slots: int = 2,
        reduce_slots: int = 2,
        config: str | Mapping[str, Any] | Config | None = None,
        allocations: str | None = None,
        plugins: Mapping[str, Any] | None = None,
        node_resources: str | Resources | None = None,
    ) -> None:
        self.config = harness_config(config)
        self.cluster = Cluster.build(racks, nodes_per_rack, map_slots, reduce_slots)
        if node_resources is not None:
            size = _resources(node_resources)
            for node in self.cluster.nodes.values():
                node.capacity = size
        allocs = parse_allocations(allocations, "<harness allocations>") if allocations else None
        self.events: list[dict[str, Any]] = []
        self.scheduler = Scheduler(
            self.config, self.cluster, allocs, extra_plugins=plugins, on_event=self.events.append
        )
        self.clock = 0.0

    # ------------------------------------------------------------------ clock
    def advance(self, seconds: float) -> list[Task]:
        """Move the clock, run the update, then the preemption check;
        returns the tasks preempted by this advance."""
        self._move_clock(seconds)
        self.scheduler.update(self.clock)
        return self.scheduler.preempt(self.clock)

    def _move_clock(self, seconds: float) -> None:
        seconds = float(seconds)
        if not (seconds >= 0 and math.isfinite(seconds)):
            raise SchedulerStateError(f"the clock moves forward by a finite number of seconds, got {seconds}")
        self.clock += seconds

    def clock_only(self, seconds: float) -> None:
        """Move the clock without an update (Hadoop test's ``clock.advance``)."""
        self._move_clock(seconds)

    def update(self) -> None:
        """Run one update at the current clock."""
        self.scheduler.update(self.clock)

    def preempt(self) -> list[Task]:
        """Run the preemption check now (Hadoop ``preemptTasksIfNecessary``)."""
        return self.scheduler.preempt(self.clock, force=True)

    # ------------------------------------------------------------------ jobs and tasks
    def submit(
        self,
        maps: int | None = None,
        reduces: int = 0,
        pool: str | None = None,
        user: str | None = None,
        priority: str = "NORMAL",
        map_locations: Sequence[Sequence[str]] | None = None,
        properties: Mapping[str, Any] | None = None,
        groups: Sequence[str] = (),
        map_durations: Sequence[float] | None = None,
        reduce_durations: Sequence[float] | None = None,
        *,
        queue: str | None = None,
        tasks: int | None = None,
        resources: str | Resources | None = None,
        am_resources: str | Resources | None = None,
        shuffle: ShuffleSpec | None = None,
        state: str | None = None,
    ) -> Job:
        """Submit a job of ``maps`` maps (default 1) and ``reduces`` reduces now (runs an update).

        ``state`` ``"SUCCEEDED"`` (or ``"FINISHED"``), ``"FAILED"`` or ``"KILLED"``: a job
        already ended (see :meth:`submit_app`).

        ``shuffle`` describes its map output (:class:`~corescheduler.core.shuffle.ShuffleSpec`):
        the sizes ``job.map_outputs`` reports as its maps finish.

        ``map_locations[i]`` lists the nodes holding map i's input; without it
        the job has no locality preference.

        Resource mode (SPEC §7): ``queue`` (or ``pool``), ``tasks`` containers of
        ``resources`` each (default one), ``am_resources`` for an AM container —
        see :meth:`submit_app`.  Maps and reduces of ``resources`` each may be
        asked for too.
        """
        if self.scheduler.resource_mode and maps is None and not reduces:
            return self.submit_app(
                queue=queue if queue is not None else pool, user=user, tasks=1 if tasks is None else tasks,
                resources=resources, groups=groups, am_resources=am_resources, priority=priority,
                properties=properties, state=state,
            )
        if tasks is not None or am_resources is not None:
            if not self.scheduler.resource_mode:
                raise SchedulerStateError('tasks= and am_resources= need config {"scheduler": {"mode": "resources"}}')
        maps = 1 if maps is None else maps
        if queue is not None:
            pool = queue
        size = _resources(resources) if resources is not None else None
        if map_locations is not None and len(map_locations) != maps:
            raise ValueError(f"map_locations has {len(map_locations)} entries for {maps} maps")
        map_specs = [
            TaskSpec(
                duration=map_durations[i] if map_durations else None,
                input_nodes=tuple(map_locations[i]) if map_locations is not None else (),
                resources=size,
            )
            for i in range(maps)
        ]
        reduce_specs = [
            TaskSpec(duration=reduce_durations[i] if reduce_durations else None, resources=size)
            for i in range(reduces)
        ]
        spec = JobSpec(
            tasks=[TaskSpec(resources=size) for _ in range(tasks or 0)],
            am_resources=_resources(am_resources) if am_resources is not None else None,
            maps=map_specs,
            reduces=reduce_specs,
            user=user,
            pool=pool,
            priority=priority,
            properties=dict(properties or {}),
            groups=tuple(groups),
            shuffle=shuffle,
        )
        ended = self._ended_state(state)
        if ended is not None:
            return self._submit_ended(spec, ended)
        return self.scheduler.submit(spec, self.clock)

    def submit_app(
        self,
        queue: str | None = None,
        user: str | None = None,
        tasks: int | None = None,
        resources: str | Resources | None = None,
        groups: Sequence[str] = (),
        am_resources: str | Resources | None = None,
        priority: str = "NORMAL",
        properties: Mapping[str, Any] | None = None,
        durations: Sequence[float] | None = None,
        *,
        requests: Sequence[Mapping[str, Any]] | None = None,
        state: str | None = None,
    ) -> Job:
        """Resource mode: submit an app of ``tasks`` containers of ``resources`` each
        (default one) to ``queue`` (the PoolResolver decides; a rejected app raises
        :class:`SubmissionRejected`); ``am_resources``: it also runs an AM container,
        counted against the queue's ``maxAMShare`` (none by default, as in YARN's
        unit tests).

        ``requests`` (SPEC §6b), instead of ``tasks``/``resources``: the app's asks as YARN
        has them, each ``{"resources": "1024 mb, 1 vcores", "count": 2, "locations":
        ["n0001", "/r00", "*"], "relax_locality": True, "priority": 1}`` — ``count``
        containers of that size (default 1), to run on the nodes and racks (``/rack``) it
        names first, then anywhere (``relax_locality`` false: only there; ``*`` names every
        node), asks of a smaller ``priority`` first (YARN's ``Priority``; default 0).

        ``state`` ``"FINISHED"``, ``"FAILED"`` or ``"KILLED"``: the app has already ended
        (MR1's ``JobStatus``; YARN's scheduler never hears of such an app): it ends at once,
        before any heartbeat, and the scheduler gives it nothing."""
        if requests is not None and (tasks is not None or resources is not None):
            raise ValueError("give requests= or tasks=/resources=, not both")
        tasks = 1 if tasks is None else tasks
        if tasks < 0:
            raise ValueError(f"tasks must be ≥ 0, got {tasks}")
        size = _resources(resources) if resources is not None else None
        if requests is not None:
            task_specs = [
                TaskSpec(input_nodes=r["locations"], resources=r["resources"], relax_locality=r["relax_locality"],
                         priority=r["priority"])
                for r in _requests(requests) for _ in range(r["count"])
            ]
            if durations:
                task_specs = [evolve(ts, duration=durations[i]) for i, ts in enumerate(task_specs)]
        else:
            task_specs = [TaskSpec(duration=durations[i] if durations else None, resources=size) for i in range(tasks)]
        ended = self._ended_state(state)
        spec = JobSpec(
            tasks=task_specs,
            user=user,
            pool=queue,
            priority=priority,
            properties=dict(properties or {}),
            groups=tuple(groups),
            am_resources=_resources(am_resources) if am_resources is not None else None,
        )
        if ended is None:
            return self.scheduler.submit(spec, self.clock)
        return self._submit_ended(spec, ended)

    @staticmethod
    def _ended_state(state: str | None) -> str | None:
        if state is None or state == "RUNNING":
            return None
        if not isinstance(state, str) or state.upper() not in _ENDED_STATES:
            raise ValueError(f"state must be one of RUNNING, {', '.join(_ENDED_STATES)}, got {state!r}")
        return _ENDED_STATES[state.upper()]

    def _submit_ended(self, spec: JobSpec, ended: str) -> Job:
        """MR1 ``TestFairScheduler.testNonRunningJobsAreIgnored``: a job already succeeded,
        failed or killed when it reaches the scheduler ends at once, running nothing."""
        job = self.scheduler.submit(spec, self.clock, update=False)
        self.scheduler.end_job(job.id, self.clock, state=ended, reason="submitted as ended")
        return job

    def add_requests(self, app: Job | str, requests: Sequence[Mapping[str, Any]]) -> list[Task]:
        """Resource mode (SPEC §6b): a running (or waiting) app asks again — YARN's
        ``FairScheduler.allocate``.  A request for an ask the app has (same priority, size
        once normalized, locations and ``relax_locality``) sets how many of its containers
        are outstanding, as YARN replaces a request's ``numContainers``: ``"count": 0``
        cancels the ask's pending containers.  A request of another size for the same
        priority, places and ``relax_locality`` replaces those asks (YARN keys requests by
        priority and place): their pending containers are cancelled.  Any other request adds
        an ask.  Runs an update; returns the containers added."""
        rs = self._engine()
        parsed = _requests(requests)
        seen: dict[tuple[Any, ...], int] = {}
        for i, r in enumerate(parsed):
            key = (r["resources"], r["locations"], r["relax_locality"], r["priority"])
            if key in seen:
                raise ValueError(f"requests[{i}] repeats requests[{seen[key]}]'s ask: give one count for it")
            seen[key] = i
        added = rs.add_requests(self.job(app), parsed, self.clock)
        self.scheduler.update(self.clock)
        return added

    def kill_app(self, app: Job | str) -> list[Task]:
        """Kill an app, running or still waiting to become runnable (``maxRunningApps``):
        YARN's ``AppAttemptRemovedSchedulerEvent`` with state KILLED.  Its containers stop,
        waiting apps it held back may run (an update runs); returns the containers it had
        running."""
        stopped = self.scheduler.end_job(_id(app), self.clock, state="killed", reason="killed")
        return stopped

    def mark_am(self, task: Task | Assignment | str) -> Task:
        """Resource mode (SPEC §6b): the running container ``task`` becomes its app's AM
        (YARN's tests: ``RMContainer.isAMContainer``): preemption takes it only after the
        app's other containers (``FSPreemptionThread``), its size counts against the
        queue's ``maxAMShare``, and it ends with its app.  The app must have no AM yet.  Plugins
        are told as of a container that finished as a plain one and started as the AM
        (``cs_task_finished``, then ``cs_task_started``): a share policy counting AM use by
        ``task.is_am`` (``yarn_capacity``'s user AM use) counts it."""
        found = self.task(task)
        self._engine().mark_am(found, self.clock)
        return found

    def _engine(self) -> Any:
        rs = self.scheduler.resource_engine
        if rs is None:
            raise SchedulerStateError('requests need config {"scheduler": {"mode": "resources"}}')
        return rs

    def heartbeat(self, node: str) -> list[Assignment]:
        """One heartbeat of ``node``: the assignments made (empty list for none)."""
        return self.scheduler.heartbeat(node, self.clock)

    def add_node(self, name: str, rack: str = "r00", resources: str | Resources | None = None,
                 map_slots: int = 0, reduce_slots: int = 0) -> None:
        """A node joins (resource mode: offering ``resources``, default ``[cluster] node_resources``)."""
        self.scheduler.add_node(name, rack, map_slots, reduce_slots,
                                resources=_resources(resources) if resources is not None else None)
        self.scheduler.update(self.clock)

    def remove_node(self, name: str) -> list[Task]:
        """A node leaves: its running tasks are lost (they run again elsewhere); returns them."""
        lost = self.scheduler.remove_node(name, self.clock)
        self.scheduler.update(self.clock)
        return lost

    def queue_of(self, job: Job | str) -> str | None:
        """The queue the job was placed in (resource mode: its full name, ``root.a``)."""
        found = self.job(job)
        return found.queue or found.pool

    def finish(self, task: Task | Assignment | str, output_bytes: float | None = None) -> Task:
        """The task completes and frees its slot (a map's output, of ``output_bytes`` if given,
        stays on its node: ``job.map_outputs``)."""
        return self.scheduler.finish(_id(task), self.clock, output_bytes)

    def lose_output(self, task: Task | Assignment | str) -> Task:
        """A finished map's output is lost with its node: the map runs again
        (``Scheduler.lose_output``)."""
        return self.scheduler.lose_output(_id(task), self.clock)

    def copy_done(self, task: Task | Assignment | str) -> bool:
        """A reduce finished copying its input: start computing if the
        LoadManager allows (``False``: it waits; call again later)."""
        return self.scheduler.try_start_compute(_id(task), self.clock)

    def kill(self, task: Task | Assignment | str) -> Task:
        """Kill a running task (it becomes pending again)."""
        return self.scheduler.kill(_id(task), self.clock, reason="killed")

    def job(self, job: Job | str) -> Job:
        return self.scheduler.job(_id(job))

    def task(self, task: Task | Assignment | str) -> Task:
        return self.scheduler.task(_id(task))

    # ------------------------------------------------------------------ admin
    def set_allocations(self, xml: str) -> None:
        """Replace the allocation file and reload now (no 10 s wait)."""
        self.scheduler.set_allocations(parse_allocations(xml, "<harness allocations>"))

    def move(self, job: Job | str, pool: str) -> None:
        self.scheduler.move(_id(job), pool, self.clock)

    def set_priority(self, job: Job | str, priority: str, *, user: str | None = None,
                     groups: Sequence[str] = ()) -> None:
        """An admin's priority change; with ``user`` (and ``groups``) the caller's, checked by
        the policy (AccessDeniedError when it refuses)."""
        self.scheduler.set_priority(_id(job), priority, self.clock, user=user, groups=groups)

    # ------------------------------------------------------------------ reports
    def shares(self) -> dict[str, Any]:
        """``{"pools": {name: {"map": x, "reduce": y}}, "jobs": {id: {...}}}``."""
        return self.scheduler.shares()

    @property
    def killed(self) -> list[Task]:
        """Tasks preempted so far, in order."""
        return list(self.scheduler.killed)

    def tasks_to_preempt(self, pool: str) -> dict[str, int]:
        """Per kind, how many tasks ``pool`` is owed by preemption now."""
        return self.scheduler.tasks_to_preempt(pool, self.clock)

    def running(self, what: Job | str) -> Any:
        """Running maps/reduces of a job (by object or id) or a pool (by name); in
        resource mode the number of containers a job holds now (its AM included)."""
        if self.scheduler.resource_mode:
            if isinstance(what, str) and self.scheduler.resource_engine.tree.get(what) is not None:  # type: ignore[union-attr]
                name = self.scheduler.resource_engine.tree.get(what).name  # type: ignore[union-attr]
                return sum(1 for t in self.scheduler.ledger.running.values()
                           if (t.job.queue or "") == name or (t.job.queue or "").startswith(name + "."))
            job = self.job(what)
            return sum(1 for t in self.scheduler.ledger.running.values() if t.job is job)
        if isinstance(what, str) and what in self.scheduler.pools:
            pool = self.scheduler.pools[what]
            return {k: pool.sched[k].running for k in KINDS}
        job = self.job(what)
        return dict(job.running)

    def demand(self, what: Job | str) -> dict[str, int]:
        """Demand (as of the last update) of a job or a pool (resource mode: a queue, by name;
        ``{"memory": …, "vcores": …}``)."""
        if self.scheduler.resource_mode:
            rs = self.scheduler.resource_engine
            if isinstance(what, str) and rs.tree.get(what) is not None:  # type: ignore[union-attr]
                return rs.tree.get(what).sched.demand.as_dict()  # type: ignore[union-attr]
            from corescheduler.core.model import RESOURCES

            return self.job(what).sched[RESOURCES].demand.as_dict()
        if isinstance(what, str) and what in self.scheduler.pools:
            pool = self.scheduler.pools[what]
            return {k: pool.sched[k].demand for k in KINDS}
        job = self.job(what)
        return {k: job.sched[k].demand for k in KINDS}

    def __call__(self, **kwargs: Any) -> ClusterHarness:
        """Build another harness (so the ``cluster`` fixture is also a factory)."""
        return ClusterHarness(**kwargs)


try:  # the pytest plugin part; pytest is only needed when it is used
    import pytest
except ImportError:  # pragma: no cover
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    @pytest.fixture
    def cluster() -> ClusterHarness:
        """A fresh :class:`ClusterHarness` (1 rack × 2 nodes, 2+2 slots); call it
        with keyword arguments to build one of another shape."""
        return ClusterHarness()
