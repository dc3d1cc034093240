"""The workload JSON format of SPEC §5: ``{"jobs": [...]}`` with explicit
maps and reduces or task counts and durations."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from corescheduler.core.model import PRIORITIES, PRIORITY_RANK, JobSpec, TaskSpec
from corescheduler.core.shuffle import ShuffleSpec
from corescheduler.errors import ResourceParseError, WorkloadError
from corescheduler.formats.workloads.problems import (
    _STRICT,
    _count,
    _JsonText,
    _number,
    _Problems,
    _show,
    _TaskCache,
    _unknown_key,
)
from corescheduler.formats.workloads.workload import MAX_JOB_TASKS, MAX_WORKLOAD_JOBS, _Tally, job_tasks_problem
from corescheduler.resources import Resources, parse_configurable

# --------------------------------------------------------------------------- workload JSON

_TOP_KEYS = ("jobs", "name")
_JOB_KEYS = (
    "id",
    "submit",
    "user",
    "pool",
    "priority",
    "properties",
    "groups",
    "maps",
    "reduces",
    "map_count",
    "map_duration",
    "reduce_count",
    "reduce_duration",
    "reduce_copy_duration",
    "tasks",
    "task_count",
    "task_duration",
    "task_resources",
    "am_resources",
    "shuffle",
    "requests",
)
_SHUFFLE_KEYS = ("bytes", "partition")
_SHUFFLE_HINT = '"uniform", {"zipf": s} with s ≥ 0, or a matrix [[bytes for each reduce] for each map]'
_MAP_KEYS = ("duration", "input_nodes", "resources")
_REDUCE_KEYS = ("duration", "copy_duration", "resources")
_TASK_KEYS = ("duration", "resources")
#: resource mode, SPEC §6b: a job's asks as YARN has them
_REQUEST_KEYS = ("resources", "count", "duration", "locations", "relax_locality", "priority")
_RESOURCE_HINT = 'a resource string like "1024 mb, 1 vcores"'


def _resource_value(p: _Problems, obj: Any, path: tuple[Any, ...], label: str) -> Resources | bool | None:
    """A task's or job's resource string: Resources, None if absent, False (reported) if bad."""
    try:
        value = parse_configurable(obj, missing=0) if isinstance(obj, str) else None
    except ResourceParseError as exc:
        p.add(path, f"{label}: {exc}")
        return False
    if value is None or value.is_percentage:
        p.add(path, f"{label}: expected {_RESOURCE_HINT} (amounts, not percentages), got {_show(obj)}")
        return False
    return value.resolve(None)


class _JobsReader:
    """What the JSON and SLS job validators share: problems, the cluster's
    nodes, shared task objects and the ids seen so far."""

    def __init__(self, problems: _Problems, node_racks: Mapping[str, str] | None) -> None:
        self.p = problems
        self.nodes = node_racks
        self.cache = _TaskCache()
        self.ids: dict[str, tuple[Any, ...]] = {}
        self.tally = _Tally()


class _JsonJobs(_JobsReader):
    """Validates the jobs of a workload JSON document."""

    def _node_hint(self) -> str:
        assert self.nodes is not None
        names = list(self.nodes)
        if len(names) <= 4:
            return ", ".join(names)
        return f"{len(names)} nodes {names[0]} … {names[-1]}"

    def job(self, obj: Any, path: tuple[Any, ...], index: int) -> JobSpec | None:
        p = self.p
        label = f"jobs[{index}]"
        if not isinstance(obj, dict):
            p.add(path, f"{label}: expected a job object, got {_show(obj)}")
            return None
        before = p.count
        jid = obj.get("id")
        if isinstance(jid, str) and jid:
            label = f"job {jid!r}"
            if jid in self.ids:
                p.add(
                    (*path, "id"), f"{label} (jobs[{index}]): duplicate job id; ids must be unique", ref=self.ids[jid]
                )
            else:
                self.ids[jid] = path
        elif "id" in obj:
            p.add((*path, "id"), f"{label}.id: expected a non-empty string, got {_show(jid)}")
        else:
            p.add(path, f"{label}: missing id (a unique string)")
        for key in obj:
            if key not in _JOB_KEYS:
                p.add((*path, key), f"{label}: {_unknown_key(key, _JOB_KEYS, 'a job')}")

        submit = None
        if "submit" not in obj:
            p.add(path, f"{label}: missing submit (seconds ≥ 0)")
        else:
            submit = _number(obj["submit"])
            if submit is None or submit < 0:
                p.add(
                    (*path, "submit"), f"{label}.submit: expected a number of seconds ≥ 0, got {_show(obj['submit'])}"
                )
        user = obj.get("user")
        if "user" not in obj:
            p.add(path, f"{label}: missing user (a non-empty string)")
        elif not isinstance(user, str) or not user:
            p.add((*path, "user"), f"{label}.user: expected a non-empty string, got {_show(user)}")
        pool = obj.get("pool")
        if pool is not None and (not isinstance(pool, str) or not pool):
            p.add((*path, "pool"), f"{label}.pool: expected a non-empty string, got {_show(pool)}")
        priority = obj.get("priority", "NORMAL")
        if not isinstance(priority, str) or priority.upper() not in PRIORITY_RANK:
            p.add(
                (*path, "priority"),
                f"{label}.priority: expected one of {', '.join(reversed(PRIORITIES))}, got {_show(priority)}",
            )
            priority = "NORMAL"
        properties = obj.get("properties", {})
        if not isinstance(properties, dict):
            p.add((*path, "properties"), f"{label}.properties: expected an object, got {_show(properties)}")
            properties = {}
        groups = obj.get("groups", [])
        if not isinstance(groups, list) or not all(isinstance(g, str) and g for g in groups):
            p.add((*path, "groups"), f"{label}.groups: expected a list of non-empty strings, got {_show(groups)}")
            groups = []

        sizes = {}
        for key in ("task_resources", "am_resources"):
            if key in obj:
                value = _resource_value(p, obj[key], (*path, key), f"{label}.{key}")
                sizes[key] = value if value is not False else None
        plain = "tasks" in obj or "task_count" in obj or "task_duration" in obj
        if self.too_many(obj, path, label):
            return None
        if "requests" in obj and plain:
            p.add((*path, "requests"), f"{label}: give either requests or tasks (or task_count), not both")
            return None
        maps = self.side(obj, path, label, "map", required=not plain and "requests" not in obj)
        reduces = self.side(obj, path, label, "reduce")
        if "requests" in obj:
            tasks = self.requests(obj["requests"], (*path, "requests"), f"{label}.requests")
        else:
            tasks = self.side(obj, path, label, "task") if plain else ()
        if maps is not None and reduces is not None and tasks is not None and not (maps or reduces or tasks):
            p.add(path, f"{label}: a job needs at least one task (maps, reduces or tasks)")
        size = len(maps or ()) + len(reduces or ()) + len(tasks or ())
        shuffle = self.shuffle(obj["shuffle"], (*path, "shuffle"), label, maps, reduces) if "shuffle" in obj else None
        if p.count > before:
            return None
        problem = self.tally.take(1, size)
        if problem is not None:
            p.add(path, f"{label}: {problem}")
        if self.tally.over:
            return None
        return JobSpec(
            shuffle=shuffle,
            maps=maps,
            reduces=reduces,
            tasks=tasks,
            task_resources=sizes.get("task_resources"),
            am_resources=sizes.get("am_resources"),
            user=user,
            pool=pool,
            priority=priority,
            properties=dict(properties),
            groups=tuple(groups),
            id=jid,
            submit=float(submit),  # type: ignore[arg-type]
        )

    def shuffle(self, obj: Any, path: tuple[Any, ...], label: str, maps: tuple[TaskSpec, ...] | None,
                reduces: tuple[TaskSpec, ...] | None) -> ShuffleSpec | None:
        """``"shuffle": {"bytes": B, "partition": "uniform" | {"zipf": s} | [[...], ...]}``."""
        p = self.p
        where = f"{label}.shuffle"
        if not isinstance(obj, dict):
            p.add(path, f"{where}: expected an object with bytes and partition, got {_show(obj)}")
            return None
        for key in obj:
            if key not in _SHUFFLE_KEYS:
                p.add((*path, key), f"{where}: {_unknown_key(key, _SHUFFLE_KEYS, 'a shuffle')}")
        if reduces is not None and not reduces:
            p.add(path, f"{where}: the job has no reduces, so nothing is shuffled; remove shuffle or add reduces")
            return None
        partition = obj.get("partition", "uniform")
        skew = 0.0
        matrix = None
        if isinstance(partition, list):
            rows = []
            for m, row in enumerate(partition):
                if not isinstance(row, list) or not all(
                    (v := _number(x)) is not None and v >= 0 for x in row
                ):
                    p.add((*path, "partition", m), f"{where}.partition[{m}]: expected a list of bytes ≥ 0 (one "
                          f"per reduce), got {_show(row)}")
                    return None
                rows.append(tuple(float(x) for x in row))
            matrix = tuple(rows)
            if "bytes" in obj:
                p.add((*path, "bytes"), f"{where}.bytes: a matrix gives the sizes; leave bytes out")
                return None
        elif partition == "uniform":
            pass
        elif isinstance(partition, dict) and set(partition) == {"zipf"}:
            value = _number(partition["zipf"])
            if value is None or value < 0:
                p.add((*path, "partition", "zipf"), f"{where}.partition.zipf: expected a skew ≥ 0, got "
                      f"{_show(partition['zipf'])}")
                return None
            skew = float(value)
        else:
            p.add((*path, "partition"), f"{where}.partition: expected {_SHUFFLE_HINT}, got {_show(partition)}")
            return None
        total = 0.0
        if matrix is None:
            value = _number(obj.get("bytes"))
            if "bytes" not in obj or value is None or value < 0:
                p.add((*path, "bytes") if "bytes" in obj else path,
                      f"{where}.bytes: expected the job's map output in bytes (a number ≥ 0), got "
                      f"{_show(obj.get('bytes')) if 'bytes' in obj else 'nothing'}")
                return None
            total = float(value)
        else:
            total = float(sum(sum(row) for row in matrix))
        spec = ShuffleSpec(bytes=total, skew=skew, matrix=matrix)
        if maps is not None and reduces is not None:
            problem = spec.problem(len(maps), len(reduces))
            if problem is not None:
                p.add((*path, "partition"), f"{where}.partition: {problem}")
                return None
        return spec

    def too_many(self, obj: dict[str, Any], path: tuple[Any, ...], label: str) -> bool:
        """Whether the job's task counts and lists add up to more than :data:`MAX_JOB_TASKS`
        (reported at the largest of them): checked before any task is built."""
        sizes = {}
        for key in ("maps", "reduces", "tasks", "map_count", "reduce_count", "task_count"):
            value = obj.get(key)
            size = len(value) if isinstance(value, list) else _count(value) if key.endswith("_count") else None
            if size:
                sizes[key] = size
        if isinstance(obj.get("requests"), list):
            size = sum(_count(r.get("count", 1)) or 0 for r in obj["requests"] if isinstance(r, dict))
            if size:
                sizes["requests"] = size
        total = sum(sizes.values())
        if total <= MAX_JOB_TASKS:
            return False
        key = max(sizes, key=sizes.__getitem__)
        self.p.add((*path, key), f"{label}.{key}: {job_tasks_problem(total)}")
        return True

    def side(
        self, obj: dict[str, Any], path: tuple[Any, ...], label: str, kind: str, required: bool = True
    ) -> tuple[TaskSpec, ...] | None:
        """The maps, reduces or (resource mode) plain tasks of a job, from a task list or from counts."""
        p = self.p
        plural = f"{kind}s"
        count_keys = [f"{kind}_count", f"{kind}_duration"] + (["reduce_copy_duration"] if kind == "reduce" else [])
        given = [k for k in count_keys if k in obj]
        if plural in obj:
            if given:
                p.add(
                    (*path, given[0]),
                    f"{label}: give either {plural} (a task list) or {kind}_count and {kind}_duration, not both",
                )
                return None
            return self.task_list(obj[plural], (*path, plural), f"{label}.{plural}", kind)
        if not given:
            if kind == "map" and required:
                p.add(path, f"{label}: missing maps (a list of tasks) or map_count and map_duration")
                return None
            return ()
        count = _count(obj.get(f"{kind}_count", 0))
        if count is None:
            p.add(
                (*path, f"{kind}_count"),
                f"{label}.{kind}_count: expected a whole number ≥ 0, got {_show(obj[f'{kind}_count'])}",
            )
            return None
        if f"{kind}_count" not in obj:
            p.add(path, f"{label}: missing {kind}_count (a whole number ≥ 0) beside {given[0]}")
            return None
        duration = None
        if f"{kind}_duration" in obj:
            duration = _number(obj[f"{kind}_duration"])
            if duration is None or duration <= 0:
                p.add(
                    (*path, f"{kind}_duration"),
                    f"{label}.{kind}_duration: expected a number of seconds > 0, got {_show(obj[f'{kind}_duration'])}",
                )
                return None
        elif count > 0:
            p.add(path, f"{label}: missing {kind}_duration (seconds > 0) for {kind}_count {count}")
            return None
        copy = None
        if kind == "reduce" and "reduce_copy_duration" in obj:
            copy = _number(obj["reduce_copy_duration"])
            if copy is None or copy < 0 or (duration is not None and copy > duration):
                p.add(
                    (*path, "reduce_copy_duration"),
                    f"{label}.reduce_copy_duration: expected a number of seconds from 0 to reduce_duration, "
                    f"got {_show(obj['reduce_copy_duration'])}",
                )
                return None
        if count == 0:
            return ()
        return (self.cache.get(float(duration), (), copy),) * count  # type: ignore[arg-type]

    def requests(self, value: Any, path: tuple[Any, ...], label: str) -> tuple[TaskSpec, ...] | None:
        """Resource mode (SPEC §6b): a job's asks, each ``count`` plain containers of one
        ``resources`` and ``duration`` for the ``locations`` it names (nodes, ``/rack``,
        ``*``), ``relax_locality`` and ``priority`` as YARN's ``ResourceRequest``."""
        p = self.p
        if not isinstance(value, list) or not value:
            p.add(path, f'{label}: expected a non-empty list of requests like {{"resources": "1024 mb, 1 vcores", '
                        f'"count": 2, "duration": 30}}, got {_show(value)}')
            return None
        racks = set(self.nodes.values()) if self.nodes is not None else None
        out: list[TaskSpec] = []
        ok = True
        for i, r in enumerate(value):
            rpath, rlabel = (*path, i), f"{label}[{i}]"
            if not isinstance(r, dict):
                p.add(rpath, f'{rlabel}: expected a request object like {{"count": 2, "duration": 30}}, got {_show(r)}')
                ok = False
                continue
            bad = False
            for key in r:
                if key not in _REQUEST_KEYS:
                    p.add((*rpath, key), f"{rlabel}: {_unknown_key(key, _REQUEST_KEYS, 'a request')}")
                    bad = True
            duration = _number(r.get("duration"))
            if duration is None or duration <= 0:
                p.add((*rpath, "duration"), f"{rlabel}.duration: expected a number of seconds > 0, "
                                            f"got {_show(r.get('duration'))}")
                bad = True
            count = _count(r.get("count", 1))
            if count is None:
                p.add((*rpath, "count"), f"{rlabel}.count: expected a whole number ≥ 0, got {_show(r['count'])}")
                bad = True
            locations = r.get("locations", [])
            if not isinstance(locations, list) or not all(isinstance(x, str) and x for x in locations):
                p.add((*rpath, "locations"), f'{rlabel}.locations: expected a list of node names, "/rack" names '
                                             f'or "*", got {_show(locations)}')
                bad = True
                locations = []
            for place in locations:
                if place == "*" or self.nodes is None:
                    continue
                if place.startswith("/"):
                    if racks is not None and place[1:] not in racks and place not in racks:
                        p.add((*rpath, "locations"), f"{rlabel}.locations: unknown rack {place!r}")
                        bad = True
                elif place not in self.nodes:
                    p.add((*rpath, "locations"),
                          f"{rlabel}.locations: unknown node {place!r}; the cluster has {self._node_hint()}")
                    bad = True
            relax = r.get("relax_locality", True)
            if not isinstance(relax, bool):
                p.add((*rpath, "relax_locality"),
                      f"{rlabel}.relax_locality: expected true or false, got {_show(relax)}")
                bad = True
            elif not relax and not [x for x in locations if x != "*"]:
                p.add((*rpath, "relax_locality"),
                      f"{rlabel}: relax_locality is false but it names no node or rack to run on")
                bad = True
            priority = r.get("priority")
            if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)):
                p.add((*rpath, "priority"), f"{rlabel}.priority: expected a whole number, got {_show(priority)}")
                bad = True
            size = None
            if "resources" in r:
                size = _resource_value(p, r["resources"], (*rpath, "resources"), f"{rlabel}.resources")
                bad = bad or size is False
            if bad:
                ok = False
                continue
            spec = TaskSpec(duration=float(duration), input_nodes=tuple(locations),  # type: ignore[arg-type]
                            resources=size or None, relax_locality=relax, priority=priority)
            out.extend([spec] * (count or 0))
        if ok and not out:
            p.add(path, f"{label}: every request has count 0: the job asks for nothing")
            return None
        return tuple(out) if ok else None

    def task_list(self, tasks: Any, path: tuple[Any, ...], label: str, kind: str) -> tuple[TaskSpec, ...] | None:
        p = self.p
        if not isinstance(tasks, list):
            p.add(path, f"{label}: expected a list of task objects, got {_show(tasks)}")
            return None
        known = _MAP_KEYS if kind == "map" else _REDUCE_KEYS if kind == "reduce" else _TASK_KEYS
        out: list[TaskSpec] = []
        ok = True
        for i, task in enumerate(tasks):
            tpath, tlabel = (*path, i), f"{label}[{i}]"
            if not isinstance(task, dict):
                p.add(tpath, f'{tlabel}: expected a task object like {{"duration": 12.0}}, got {_show(task)}')
                ok = False
                continue
            for key in task:
                if key not in known:
                    p.add((*tpath, key), f"{tlabel}: {_unknown_key(key, known, f'a {kind} task')}")
                    ok = False
            if "duration" not in task:
                p.add(tpath, f"{tlabel}: missing duration (seconds > 0)")
                ok = False
                continue
            duration = _number(task["duration"])
            if duration is None or duration <= 0:
                p.add(
                    (*tpath, "duration"),
                    f"{tlabel}.duration: expected a number of seconds > 0, got {_show(task['duration'])}",
                )
                ok = False
                continue
            nodes: tuple[str, ...] = ()
            copy = None
            if kind == "map" and "input_nodes" in task:
                nodes_value = task["input_nodes"]
                npath = (*tpath, "input_nodes")
                if not isinstance(nodes_value, list) or not all(isinstance(n, str) and n for n in nodes_value):
                    p.add(npath, f"{tlabel}.input_nodes: expected a list of node names, got {_show(nodes_value)}")
                    ok = False
                    continue
                if len(set(nodes_value)) != len(nodes_value):
                    p.add(npath, f"{tlabel}.input_nodes: a node is listed twice in {_show(nodes_value)}")
                    ok = False
                if self.nodes is not None:
                    for n in nodes_value:
                        if n not in self.nodes:
                            p.add(
                                npath, f"{tlabel}.input_nodes: unknown node {n!r}; the cluster has {self._node_hint()}"
                            )
                            ok = False
                nodes = tuple(nodes_value)
            if kind == "reduce" and "copy_duration" in task:
                copy = _number(task["copy_duration"])
                if copy is None or copy < 0 or copy > duration:
                    p.add(
                        (*tpath, "copy_duration"),
                        f"{tlabel}.copy_duration: expected a number of seconds from 0 to duration ({duration:g}), "
                        f"got {_show(task['copy_duration'])}",
                    )
                    ok = False
                    continue
            size = None
            if "resources" in task:
                size = _resource_value(p, task["resources"], (*tpath, "resources"), f"{tlabel}.resources")
                if size is False:
                    ok = False
                    continue
            if ok:
                out.append(self.cache.get(float(duration), nodes, copy, size))
        return tuple(out) if ok else None


def _load_spec_json(
    doc: dict[str, Any], problems: _Problems, node_racks: Mapping[str, str] | None, default_name: str
) -> tuple[list[JobSpec], str]:
    name = _spec_name(doc, problems, default_name)
    jobs_value = doc["jobs"]
    if not isinstance(jobs_value, list):
        problems.add((0, "jobs"), f"jobs: expected a list of job objects, got {_show(jobs_value)}")
        return [], name
    if len(jobs_value) > MAX_WORKLOAD_JOBS:
        problems.add((0, "jobs"), f"jobs: {len(jobs_value):,} jobs; at most {MAX_WORKLOAD_JOBS:,} "
                     "(MAX_WORKLOAD_JOBS, see docs/workloads.md)")
        return [], name
    return _spec_jobs(jobs_value, problems, node_racks, lambda obj, i: True), name


def _spec_name(doc: Mapping[str, Any], problems: _Problems, default_name: str) -> str:
    """The workload's name; unknown top-level keys are problems."""
    for key in doc:
        if key not in _TOP_KEYS:
            problems.add((0, key), _unknown_key(key, _TOP_KEYS, "the workload object"))
    name = doc.get("name", default_name)
    if not isinstance(name, str) or not name:
        problems.add((0, "name"), f"name: expected a non-empty string, got {_show(name)}")
        name = default_name
    return name


def _spec_jobs(
    items: Iterable[Any], problems: _Problems, node_racks: Mapping[str, str] | None,
    clean: Callable[[Any, int], bool],
) -> list[JobSpec]:
    """The jobs of ``"jobs"``, one element at a time (``clean(obj, index)``: no lone surrogate)."""
    checker = _JsonJobs(problems, node_racks)
    jobs = []
    count = 0
    for i, obj in enumerate(items):
        count += 1
        if not clean(obj, i):
            continue
        job = checker.job(obj, (0, "jobs", i), i)
        if job is not None:
            jobs.append(job)
    if not count:
        problems.add((0, "jobs"), "jobs: the workload has no jobs")
    return jobs


def _stream_spec_json(
    doc: _JsonText, problems: _Problems, node_racks: Mapping[str, str] | None, default_name: str,
    clean: Callable[[Any, int], bool],
) -> tuple[list[JobSpec], str] | None:
    """A workload JSON document read with its ``"jobs"`` array decoded one job at a time,
    each job's objects dropped once its JobSpec is built (memory: the text and the jobs,
    not every decoded task object).  None when the text is not one object with a
    ``"jobs"`` array: the caller decodes it whole.  Any syntax error (or a duplicate key)
    is raised by decoding the whole text, with the decoder's own message and line."""
    text = doc.text
    start = doc._ws(0)
    if text[start : start + 1] != "{":
        return None
    others: dict[str, Any] = {}
    jobs: list[JobSpec] | None = None
    try:
        i = doc._ws(start + 1)
        while text[i] != "}":
            key, i = scanstring(text, i + 1)
            if key in others or (key == "jobs" and jobs is not None):
                raise ValueError(key)  # a duplicate key: the whole decode names it
            i = doc._ws(i)
            if text[i] != ":":
                raise ValueError(i)
            i = doc._ws(i + 1)
            if key == "jobs" and text[i] == "[":
                if not doc.starts:
                    doc.starts.append(start)
                jobs = _spec_jobs(_array_items(doc, i), problems, node_racks, clean)
                i = doc._ws(doc._end)
            else:
                others[key], i = _STRICT.raw_decode(text, i)
                i = doc._ws(i)
            if text[i] == ",":
                i = doc._ws(i + 1)
            elif text[i] != "}":
                raise ValueError(i)
        end = doc._ws(i + 1)
    except (ValueError, IndexError, RecursionError):
        doc.decode()  # raises WorkloadError for the syntax error
        raise  # pragma: no cover - the whole text decoded after all
    if jobs is None:
        return None  # no "jobs" array: decoded whole by the caller
    if end < len(text):
        raise WorkloadError('expected one workload object {"jobs": [...]}; more JSON follows it', doc.source,
                            doc.line(end))
    name = _spec_name({**others, "jobs": None}, problems, default_name)
    return jobs, name


def _array_items(doc: _JsonText, i: int) -> Iterator[Any]:
    """The elements of the JSON array at ``i``, decoded one at a time; ``doc._end`` is
    left just past its ``]``."""
    text = doc.text
    j = doc._ws(i + 1)
    if text[j] != "]":
        while True:
            value, j = _STRICT.raw_decode(text, j)
            yield value
            j = doc._ws(j)
            if text[j] == "]":
                break
            if text[j] != ",":
                raise ValueError(j)
            j = doc._ws(j + 1)
    doc._end = j + 1
