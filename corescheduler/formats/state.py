"""Fair shares for a snapshot of demand: the engine of ``corescheduler shares``.

A *snapshot* is a JSON document (format in ``docs/cli.md``) that states the
cluster's capacity, optional pool settings on top of the allocation file, and
the jobs with their current demand.  :func:`shares_for_snapshot` answers
"what is every pool's and job's fair share right now?" with the scheduler's
own code path: it builds a :class:`~corescheduler.core.model.Cluster` of that
capacity and a :class:`~corescheduler.core.scheduler.Scheduler` with the config's
plugins and the merged allocations, submits the jobs at their submit times,
runs one update at the snapshot's time and returns
:meth:`Scheduler.shares() <corescheduler.core.scheduler.Scheduler.shares>`.  So
weights (priority × WeightAdjusters), running-job limits, pool placement
(PoolResolver), minimum and maximum shares and each pool's share policy
(``schedulingMode``) all apply exactly as in a live scheduler or a simulation.

Two things differ from a live scheduler, both because a snapshot states
demand directly:

* a job's ``maps``/``reduces`` are its demand (running plus pending tasks),
  so reduce slow start is taken as passed (``reduce_slowstart = 0``);
* ``running_maps``/``running_reduces`` are checked and reported but no task is
  launched: the built-in share policies (``fair``, ``fifo``) compute shares
  from weight, minimum/maximum share and demand only.

Every bad field is reported at once as a :class:`StateError` naming the file
and the JSON path, e.g. ``state.json: jobs[3].maps: expected a non-negative
integer, got -1``.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
from attrs import field, frozen

from corescheduler.config import MAX_CLUSTER_NODES, Config
from corescheduler.core.allocations import SCHEDULING_MODES, Allocations, PoolSpec
from corescheduler.core.model import PRIORITIES, PRIORITY_RANK, Cluster, JobSpec, TaskSpec
from corescheduler.core.scheduler import Scheduler
from corescheduler.errors import CoreSchedulerError, SchedulerStateError
from corescheduler.formats.allocation_file import load_allocations
from corescheduler.formats.jsoncheck import deepest, lone_surrogates, long_number, render_path
from corescheduler.formats.workloads.workload import (
    MAX_JOB_TASKS,
    MAX_WORKLOAD_JOBS,
    MAX_WORKLOAD_TASKS,
    _amount,
)
from corescheduler.wording import plural

__all__ = [
    "ClusterShape",
    "Snapshot",
    "SnapshotJob",
    "StateError",
    "evaluate_snapshot",
    "load_state",
    "shares_for_snapshot",
]

#: Top-level keys of a snapshot.
TOP_KEYS = ("time", "cluster", "pools", "jobs")
#: Keys of ``"cluster"``.
CLUSTER_KEYS = ("map_slots", "reduce_slots", "racks", "nodes_per_rack")
#: Pool settings a snapshot may give, as :class:`~corescheduler.formats.allocation_file.PoolSpec` fields.
POOL_KEYS = (
    "weight",
    "min_maps",
    "min_reduces",
    "max_maps",
    "max_reduces",
    "max_running_jobs",
    "scheduling_mode",
    "min_share_preemption_timeout",
)
#: Keys of a job.
JOB_KEYS = (
    "id",
    "pool",
    "user",
    "groups",
    "priority",
    "properties",
    "maps",
    "reduces",
    "running_maps",
    "running_reduces",
    "submit",
)


class StateError(CoreSchedulerError):
    """A snapshot (``--state`` JSON) is unreadable or has bad fields.

    ``problems`` holds every problem as ``PATH: message`` (``PATH`` a JSON
    path such as ``jobs[3].maps``, or empty for the whole file); the message
    is ``SOURCE: problem; SOURCE: problem …`` on one line.
    """

    def __init__(self, problems: str | Iterable[str], source: str = "<state>", line: int | None = None) -> None:
        if isinstance(problems, str):
            problems = [problems]
        self.problems: list[str] = list(problems)
        self.source = source
        self.line = line
        where = f"{source}:{line}" if line is not None else source
        shown = "; ".join(f"{where}: {p}" for p in self.problems[:MAX_SHOWN_PROBLEMS])
        if len(self.problems) > MAX_SHOWN_PROBLEMS:  # a wrong file gives hundreds: the first ones tell
            shown += f"; and {plural(len(self.problems) - MAX_SHOWN_PROBLEMS, 'more problem', 'more problems')}"
        super().__init__(shown)


#: problems a :class:`StateError`'s message shows (``problems`` keeps them all)
MAX_SHOWN_PROBLEMS = 20
#: fields of a workload's jobs that a snapshot's jobs do not have
_WORKLOAD_JOB_FIELDS = frozenset({"map_count", "map_duration", "reduce_count", "reduce_duration",
                                  "reduce_copy_duration", "input_nodes"})


def _looks_like_a_workload(state: Mapping[str, Any]) -> str | None:
    """A hint when ``state`` is a workload file given as a snapshot (its jobs have
    ``map_count``, ``map_duration``, … or lists of tasks): None otherwise."""
    jobs = state.get("jobs")
    if not isinstance(jobs, list):
        return None
    for job in jobs[:100]:
        if isinstance(job, Mapping) and (_WORKLOAD_JOB_FIELDS & set(job) or isinstance(job.get("maps"), list)
                                         or isinstance(job.get("reduces"), list)):
            return ("this looks like a workload (its jobs have map_count, map_duration or task lists), not a "
                    "snapshot: a snapshot gives each job's demand as maps/reduces counts (docs/cli.md, "
                    "\"Snapshot format\"); a workload goes to corescheduler simulate --workload")
    return None


# --------------------------------------------------------------------------- values


@frozen
class ClusterShape:
    """Capacity of the snapshot's cluster.

    ``racks``/``nodes_per_rack`` ``None``: ``map_slots``/``reduce_slots`` are
    cluster totals (one node holds them all).  Otherwise they are per node, as
    in the config's ``[cluster]`` table.
    """

    map_slots: int = 0
    reduce_slots: int = 0
    racks: int | None = None
    nodes_per_rack: int | None = None

    @classmethod
    def from_config(cls, config: Config) -> ClusterShape:
        c = config.cluster
        return cls(c.map_slots, c.reduce_slots, c.racks, c.nodes_per_rack)

    def build(self) -> Cluster:
        """A :class:`Cluster` with exactly this capacity (nodes ``n0000…``, racks ``r00…``)."""
        if self.racks is None and self.nodes_per_rack is None:
            cluster = Cluster()
            cluster.add_node("n0000", "r00", self.map_slots, self.reduce_slots)
            return cluster
        return Cluster.build(self.racks or 1, self.nodes_per_rack or 1, self.map_slots, self.reduce_slots)


@frozen
class SnapshotJob:
    """One job of a snapshot; ``index`` is its position in ``"jobs"``."""

    id: str
    index: int
    maps: int = 0
    reduces: int = 0
    running_maps: int = 0
    running_reduces: int = 0
    pool: str | None = None
    user: str | None = None
    groups: tuple[str, ...] = ()
    priority: str = "NORMAL"
    properties: Mapping[str, Any] = field(factory=dict)
    submit: float = 0.0

    def spec(self) -> JobSpec:
        """The :class:`JobSpec` submitted for this job (one task per slot of demand)."""
        return JobSpec(
            maps=[TaskSpec()] * self.maps,
            reduces=[TaskSpec()] * self.reduces,
            user=self.user,
            pool=self.pool,
            priority=self.priority,
            properties=dict(self.properties),
            groups=self.groups,
            id=self.id,
            submit=self.submit,
        )


@frozen
class Snapshot:
    """A validated snapshot: see :meth:`from_mapping`."""

    jobs: tuple[SnapshotJob, ...] = ()
    pools: Mapping[str, Mapping[str, Any]] = field(factory=dict)
    cluster: ClusterShape | None = None
    time: float | None = None
    source: str = "<state>"

    @classmethod
    def from_mapping(cls, state: Any, source: str = "<state>") -> Snapshot:
        """Validate a parsed snapshot; raises :class:`StateError` with every problem."""
        r = _Reader()
        if not isinstance(state, Mapping):
            raise StateError(
                f"expected a JSON object with {', '.join(repr(k) for k in TOP_KEYS)}, got {_show(state)}", source
            )
        for path, is_key, bad in lone_surrogates(state):
            what = "key" if is_key else "string"
            r.problem(render_path(path), f"the {what} holds a lone surrogate {bad} (half of a UTF-16 pair, "
                      "not a character); expected valid Unicode text")
        if r.problems:  # before any message shows the string
            raise StateError(r.problems, source)
        looks = _looks_like_a_workload(state)
        if looks:
            r.problem("", looks)
        r.unknown_keys(state, TOP_KEYS, "")
        time = None
        if state.get("time") is not None:
            time = r.number(state["time"], "time")
        cluster = r.cluster(state["cluster"]) if "cluster" in state else None
        pools = r.pools(state.get("pools"))
        jobs = r.jobs(state.get("jobs"))
        if time is not None and jobs:
            latest = max(j.submit for j in jobs)
            if time < latest:
                r.problem("time", f"expected a time no earlier than the latest job submit ({latest:g}), got {time:g}")
        if r.problems:
            raise StateError(r.problems, source)
        return cls(jobs=tuple(jobs), pools=pools, cluster=cluster, time=time, source=source)

    def allocations(self, base: Allocations) -> Allocations:
        """``base`` with this snapshot's pool settings laid over it."""
        if not self.pools:
            return base
        pools = dict(base.pools)
        for name, settings in self.pools.items():
            spec = pools.get(name)
            pools[name] = attrs.evolve(spec, **settings) if spec is not None else PoolSpec(name, **settings)
        return attrs.evolve(base, pools=pools)


# --------------------------------------------------------------------------- entry points


def load_state(path: str | os.PathLike[str]) -> Any:
    """Read a snapshot file as JSON; a syntax error names the file and line."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # a BOM is skipped, as in workload files
    except OSError as exc:
        raise StateError(f"cannot read snapshot: {exc.strerror or exc}", source) from exc
    except UnicodeDecodeError as exc:
        raise StateError(f"snapshot is not UTF-8 text ({exc.reason})", source) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise StateError(f"invalid JSON: {exc.msg} (column {exc.colno})", source, exc.lineno) from exc
    except ValueError as exc:  # an integer literal of thousands of digits
        raise StateError(f"invalid JSON: a number too long to read ({str(exc).split(';')[0]})", source,
                         text.count("\n", 0, long_number(text)) + 1) from exc
    except RecursionError as exc:
        depth, pos = deepest(text)
        raise StateError(f"JSON nested {depth:,} levels deep, too deep to read; a snapshot needs a few levels",
                         source, text.count("\n", 0, pos) + 1) from exc


def evaluate_snapshot(
    config: Config, state: Mapping[str, Any] | Snapshot, source: str = "<state>", allocations: Allocations | None = None
) -> Scheduler:
    """The scheduler after submitting the snapshot's jobs and one update at its time.

    ``allocations``: the allocation file in force; by default the config's
    ``allocation_file`` (if any) is read.  The snapshot's ``"pools"`` are laid
    over it.  Raises :class:`StateError` for a bad snapshot (or a job the
    PoolResolver rejects), :class:`~corescheduler.errors.ConfigError` /
    :class:`~corescheduler.errors.AllocationError` for a bad config or file.
    """
    snapshot = state if isinstance(state, Snapshot) else Snapshot.from_mapping(state, source)
    source = snapshot.source
    if allocations is None:
        path = config.allocation_path()
        allocations = load_allocations(path) if path is not None else Allocations.empty()
    allocations = snapshot.allocations(allocations)
    shape = snapshot.cluster if snapshot.cluster is not None else ClusterShape.from_config(config)
    # A snapshot states demand directly: reduces are wanted now, whatever slow start says.
    config = config.with_scheduler(reduce_slowstart=0.0)
    scheduler = Scheduler(config, shape.build(), allocations)
    for job in sorted(snapshot.jobs, key=lambda j: (j.submit, j.index)):
        try:
            scheduler.submit(job.spec(), now=job.submit)
        except SchedulerStateError as exc:
            raise StateError(f"jobs[{job.index}] ({job.id}): {exc}", source) from exc
    latest = max((j.submit for j in snapshot.jobs), default=0.0)
    scheduler.update(snapshot.time if snapshot.time is not None else latest)
    return scheduler


def shares_for_snapshot(config: Config, state: Mapping[str, Any], source: str = "<state>") -> dict[str, Any]:
    """Fair shares of every pool and job for a snapshot.

    Returns ``{"pools": {name: {"map": x, "reduce": y}}, "jobs": {id: {"map":
    x, "reduce": y}}}`` (``None`` where a share does not apply, as for jobs in
    a FIFO pool) — the scheduler's own :meth:`~Scheduler.shares`.
    """
    return evaluate_snapshot(config, state, source).shares()


# --------------------------------------------------------------------------- validation

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: the largest count a snapshot may give (a Java long, as in Hadoop's settings)
_MAX_COUNT = 2**63 - 1


def _show(value: Any) -> str:
    """A value as it was written in JSON (for messages)."""
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "an array"
    try:
        return json.dumps(value)
    except (TypeError, ValueError):  # not from JSON: a caller's own object
        return repr(value)


def _key(path: str, key: str) -> str:
    step = f".{key}" if _IDENT.fullmatch(key) else f"[{json.dumps(key)}]"
    return f"{path}{step}" if path else step.lstrip(".")


class _Reader:
    """Checks values one field at a time, collecting ``PATH: message`` problems."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def problem(self, path: str, message: str) -> None:
        self.problems.append(f"{path}: {message}" if path else message)

    def unknown_keys(self, obj: Mapping[str, Any], known: tuple[str, ...], path: str) -> None:
        for key in obj:
            if key not in known:
                self.problem(_key(path, str(key)), f"unknown field; expected one of {', '.join(known)}")

    # ------------------------------------------------------------------ scalars
    def count(self, value: Any, path: str, *, nullable: bool = False) -> Any:
        if value is None and nullable:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.problem(path, f"expected a non-negative integer{' or null' if nullable else ''}, got {_show(value)}")
            return 0
        if value > _MAX_COUNT:
            self.problem(path, f"expected an integer below 2**63, got {_amount(value)}")
            return 0
        return value

    def number(self, value: Any, path: str, *, nullable: bool = False) -> Any:
        if value is None and nullable:
            return None
        if (isinstance(value, bool) or not isinstance(value, int | float) or value < 0
                or (isinstance(value, int) and value > _MAX_COUNT) or not math.isfinite(value)):
            shown = _amount(value) if isinstance(value, int) and value > _MAX_COUNT else _show(value)
            self.problem(path, f"expected a non-negative number{' or null' if nullable else ''}, got {shown}")
            return 0.0
        return float(value)

    def string(self, value: Any, path: str, *, nullable: bool = False) -> Any:
        if value is None and nullable:
            return None
        if not isinstance(value, str) or not value.strip():
            self.problem(path, f"expected a non-empty string{' or null' if nullable else ''}, got {_show(value)}")
            return None
        return value

    # ------------------------------------------------------------------ sections
    def cluster(self, value: Any) -> ClusterShape | None:
        if not isinstance(value, Mapping):
            self.problem("cluster", f"expected an object with map_slots and reduce_slots, got {_show(value)}")
            return None
        self.unknown_keys(value, CLUSTER_KEYS, "cluster")
        fields = {k: self.count(value[k], f"cluster.{k}") for k in CLUSTER_KEYS if k in value}
        for k in ("racks", "nodes_per_rack"):
            if fields.get(k) == 0:
                self.problem(f"cluster.{k}", "expected at least 1, got 0")
        nodes = (fields.get("racks") or 1) * (fields.get("nodes_per_rack") or 1)
        if nodes > MAX_CLUSTER_NODES:
            self.problem("cluster", f"racks × nodes_per_rack = {_amount(nodes)} nodes; at most "
                         f"{MAX_CLUSTER_NODES:,} (MAX_CLUSTER_NODES)")
            return None
        return ClusterShape(**fields)

    def pools(self, value: Any) -> dict[str, dict[str, Any]]:
        if value is None:
            return {}
        entries: list[tuple[str, str, Any]] = []  # (name, path, settings)
        if isinstance(value, Mapping):
            for name, settings in value.items():
                entries.append((str(name), _key("pools", str(name)), settings))
        elif isinstance(value, list):
            for i, settings in enumerate(value):
                path = f"pools[{i}]"
                if not isinstance(settings, Mapping):
                    self.problem(path, f"expected an object with a name and pool settings, got {_show(settings)}")
                    continue
                if "name" not in settings:
                    self.problem(path, "missing field name")
                    continue
                name = self.string(settings["name"], f"{path}.name")
                if name is not None:
                    entries.append((name, path, {k: v for k, v in settings.items() if k != "name"}))
        else:
            self.problem("pools", f"expected an object of pool name → settings (or an array), got {_show(value)}")
            return {}
        pools: dict[str, dict[str, Any]] = {}
        first: dict[str, str] = {}
        for name, path, settings in entries:
            if name in first:
                self.problem(path, f"pool {name!r} given more than once (first at {first[name]})")
                continue
            first[name] = path
            pools[name] = self.pool(settings, path)
        return pools

    def pool(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            self.problem(path, f"expected an object of pool settings, got {_show(value)}")
            return {}
        known = (*POOL_KEYS, "name") if path.endswith("]") else POOL_KEYS
        self.unknown_keys(value, known, path)
        out: dict[str, Any] = {}
        for key in ("min_maps", "min_reduces"):
            if key in value:
                out[key] = self.count(value[key], f"{path}.{key}")
        for key in ("max_maps", "max_reduces", "max_running_jobs"):
            if key in value:
                out[key] = self.count(value[key], f"{path}.{key}", nullable=True)
        if "weight" in value:
            out["weight"] = self.number(value["weight"], f"{path}.weight")
        if "min_share_preemption_timeout" in value:
            out["min_share_preemption_timeout"] = self.number(
                value["min_share_preemption_timeout"], f"{path}.min_share_preemption_timeout", nullable=True
            )
        if "scheduling_mode" in value:
            mode = value["scheduling_mode"]
            if mode is None:
                out["scheduling_mode"] = None
            elif isinstance(mode, str) and mode.lower() in SCHEDULING_MODES:
                out["scheduling_mode"] = mode.lower()
            else:
                modes = " or ".join(repr(m) for m in SCHEDULING_MODES)
                self.problem(f"{path}.scheduling_mode", f"expected {modes}, got {_show(mode)}")
        return out

    def jobs(self, value: Any) -> list[SnapshotJob]:
        if value is None:
            return []
        if not isinstance(value, list):
            self.problem("jobs", f"expected an array of jobs, got {_show(value)}")
            return []
        if len(value) > MAX_WORKLOAD_JOBS:
            self.problem("jobs", f"{len(value):,} jobs; at most {MAX_WORKLOAD_JOBS:,} (MAX_WORKLOAD_JOBS)")
            return []
        jobs = []
        first: dict[str, int] = {}
        tasks = 0
        for i, item in enumerate(value):
            job = self.job(item, i)
            if job is None:
                continue
            tasks += job.maps + job.reduces
            if tasks > MAX_WORKLOAD_TASKS:
                self.problem(f"jobs[{i}]", f"the snapshot's jobs would have at least {_amount(tasks)} tasks; at most "
                             f"{MAX_WORKLOAD_TASKS:,} (MAX_WORKLOAD_TASKS)")
                return []
            if job.id in first:
                self.problem(f"jobs[{i}].id", f"duplicate job id {job.id!r} (first at jobs[{first[job.id]}])")
                continue
            first[job.id] = i
            jobs.append(job)
        return jobs

    def job(self, value: Any, i: int) -> SnapshotJob | None:
        path = f"jobs[{i}]"
        if not isinstance(value, Mapping):
            self.problem(path, f"expected a job object, got {_show(value)}")
            return None
        before = len(self.problems)
        self.unknown_keys(value, JOB_KEYS, path)
        job_id = self.string(value["id"], f"{path}.id") if "id" in value else f"job_{i + 1:04d}"
        counts = {k: self.count(value.get(k, 0), f"{path}.{k}") for k in ("maps", "reduces")}
        running = {k: self.count(value.get(k, 0), f"{path}.{k}") for k in ("running_maps", "running_reduces")}
        for kind in ("maps", "reduces"):
            if len(self.problems) == before and running[f"running_{kind}"] > counts[kind]:
                self.problem(
                    f"{path}.running_{kind}",
                    f"expected at most {kind} ({counts[kind]}): {kind} counts running and pending tasks, "
                    f"got {running[f'running_{kind}']}",
                )
        if len(self.problems) == before and counts["maps"] == 0 and counts["reduces"] == 0:
            self.problem(path, "a job needs maps or reduces above 0 (a job with no tasks left has finished)")
        if counts["maps"] + counts["reduces"] > MAX_JOB_TASKS:  # before any task is built
            self.problem(path, f"maps + reduces = {_amount(counts['maps'] + counts['reduces'])} tasks in one job; "
                         f"at most {MAX_JOB_TASKS:,} (MAX_JOB_TASKS)")
        pool = self.string(value.get("pool"), f"{path}.pool", nullable=True)
        user = self.string(value.get("user"), f"{path}.user", nullable=True)
        priority = value.get("priority", "NORMAL")
        if isinstance(priority, str) and priority.upper() in PRIORITY_RANK:
            priority = priority.upper()
        else:
            self.problem(f"{path}.priority", f"expected one of {', '.join(PRIORITIES)}, got {_show(priority)}")
            priority = "NORMAL"
        groups = value.get("groups", [])
        if not isinstance(groups, list) or not all(isinstance(g, str) and g for g in groups):
            self.problem(f"{path}.groups", f"expected an array of group names, got {_show(groups)}")
            groups = []
        properties = value.get("properties", {})
        if not isinstance(properties, Mapping):
            self.problem(f"{path}.properties", f"expected an object of job properties, got {_show(properties)}")
            properties = {}
        submit = self.number(value.get("submit", 0.0), f"{path}.submit")
        if len(self.problems) > before or job_id is None:
            return None
        return SnapshotJob(
            id=job_id,
            index=i,
            maps=counts["maps"],
            reduces=counts["reduces"],
            running_maps=running["running_maps"],
            running_reduces=running["running_reduces"],
            pool=pool,
            user=user,
            groups=tuple(groups),
            priority=priority,
            properties=dict(properties),
            submit=submit,
        )
