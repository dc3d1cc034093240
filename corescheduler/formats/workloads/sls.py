"""YARN SLS JSON traces (Hadoop's ``hadoop-sls`` input): job objects with
``job.tasks``, often several objects one after another."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corescheduler.core.model import JobSpec, TaskSpec
from corescheduler.formats.workloads.problems import _count, _number, _Problems, _show, _unknown_key
from corescheduler.formats.workloads.spec_json import _JobsReader
from corescheduler.formats.workloads.workload import MAX_JOB_TASKS, job_tasks_problem
from corescheduler.resources import Resources

# --------------------------------------------------------------------------- YARN SLS JSON

_SLS_JOB_KEYS = (
    "am.type",
    "job.start.ms",
    "job.end.ms",
    "job.queue.name",
    "job.id",
    "job.user",
    "job.count",
    "job.tasks",
    "job.label.expression",
)
_SLS_TASK_KEYS = (
    "count",
    "container.host",
    "container.start.ms",
    "container.end.ms",
    "container.duration.ms",
    "duration.ms",
    "container.priority",
    "container.type",
    "container.execution.type",
    "container.allocation.id",
    "container.request.delay",
)
_SLS_HEADER_KEYS = ("num.nodes", "num.racks")
#: resource mode: a container's or AM's size when the trace does not give one (SLS's defaults,
#: ``yarn.sls.container.memory.mb`` / ``.vcores`` and ``yarn.sls.am.memory.mb`` / ``.vcores``: 1024 MB, 1 vcore)
SLS_DEFAULT_MEMORY = 1024
SLS_DEFAULT_VCORES = 1
_SLS_MARKERS = ("job.tasks", "am.type", "job.start.ms", "job.id", "num.nodes")


def _is_sls(value: Any) -> bool:
    return isinstance(value, dict) and any(k in value for k in _SLS_MARKERS)


def _ms(value: Any) -> float | None:
    """Milliseconds as SLS reads them: a number or a numeric string."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    return _number(value)


_MISSING = object()
_SLS_TASK_KEY_SET = frozenset(_SLS_TASK_KEYS)


_BAD = Resources(-1, -1)


def _size(memory: Any, vcores: Any, default_none: bool = True) -> Resources | None:
    """A container's size from ``container.memory`` / ``container.vcores`` (one missing: SLS's
    default for it); None when neither is given (the job's default size applies), ``_BAD`` if
    either is not a whole number ≥ 0."""
    if memory is None and vcores is None and default_none:
        return None
    memory = SLS_DEFAULT_MEMORY if memory is None else memory
    vcores = SLS_DEFAULT_VCORES if vcores is None else vcores
    for value in (memory, vcores):
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 or value != int(value):
            return _BAD
    return _SIZES.setdefault((int(memory), int(vcores)), Resources(int(memory), int(vcores)))


_SIZES: dict[tuple[int, int], Resources] = {}
_DEFAULT_SIZE = Resources(SLS_DEFAULT_MEMORY, SLS_DEFAULT_VCORES)


def _sls_container_fast(task: Any) -> tuple[bool, int, float, str | None, Resources | None] | None:
    """``(is_map, count, seconds, host, size)`` of a plainly well-formed SLS
    container (integer milliseconds, known keys), else None."""
    if type(task) is not dict:
        return None
    extra = task.keys() - _SLS_TASK_KEY_SET
    if extra and not all(k.startswith("container.") and type(task[k]) in (int, float) for k in extra):
        return None
    ms = task.get("container.duration.ms", _MISSING)
    if ms is _MISSING:
        ms = task.get("duration.ms", _MISSING)
    if ms is _MISSING:
        start, end = task.get("container.start.ms"), task.get("container.end.ms")
        if type(start) is not int or type(end) is not int:
            return None
        ms = end - start
    elif type(ms) is not int:
        return None
    if ms <= 0:
        return None
    kind = task.get("container.type", "map")
    if kind != "map" and kind != "reduce":
        return None
    n = task.get("count", 1)
    priority = task.get("container.priority", 0)
    host = task.get("container.host")
    if type(n) is not int or n < 1 or type(priority) is not int or priority < 0:
        return None
    if host is not None and type(host) is not str:
        return None
    size = _size(task.get("container.memory"), task.get("container.vcores"))
    if size is _BAD:
        return None
    return kind == "map", n, ms / 1000.0, host, size


class _SlsJobs(_JobsReader):
    """Validates YARN SLS job objects."""

    def __init__(self, problems: _Problems, node_racks: Mapping[str, str] | None) -> None:
        super().__init__(problems, node_racks)
        self.index = 0  # SLS's default job id: a zero-based count of jobs

    def job(self, obj: Any, path: tuple[Any, ...]) -> list[JobSpec]:
        p = self.p
        n = self.index
        self.index += 1
        label = f"SLS job #{n}"
        if not isinstance(obj, dict):
            p.add(path, f"{label}: expected a JSON object, got {_show(obj)}")
            return []
        if all(k in _SLS_HEADER_KEYS for k in obj):
            self.index -= 1  # a cluster header ({"num.nodes": …}); the cluster comes from [cluster]
            return []
        before = p.count
        jid = obj.get("job.id")
        if "job.id" in obj:
            if isinstance(jid, str | int) and not isinstance(jid, bool) and str(jid):
                jid = str(jid)
                label = f"SLS job {jid!r}"
            else:
                p.add((*path, "job.id"), f"{label}: job.id: expected a non-empty string, got {_show(jid)}")
                jid = None
        for key in obj:
            if key not in _SLS_JOB_KEYS and not key.startswith("am."):
                p.add((*path, key), f"{label}: {_unknown_key(key, _SLS_JOB_KEYS, 'an SLS job')}")
        am_type = obj.get("am.type", "mapreduce")
        if am_type != "mapreduce":
            p.add((*path, "am.type"), f'{label}: am.type: only "mapreduce" jobs can be simulated, got {_show(am_type)}')
        start = None
        if "job.start.ms" not in obj:
            p.add(path, f"{label}: missing job.start.ms (submit time, milliseconds ≥ 0)")
        else:
            start = _ms(obj["job.start.ms"])
            if start is None or start < 0:
                p.add(
                    (*path, "job.start.ms"),
                    f"{label}: job.start.ms: expected milliseconds ≥ 0, got {_show(obj['job.start.ms'])}",
                )
        if "job.end.ms" in obj and _ms(obj["job.end.ms"]) is None:
            p.add((*path, "job.end.ms"), f"{label}: job.end.ms: expected milliseconds, got {_show(obj['job.end.ms'])}")
        queue = obj.get("job.queue.name")
        if queue is not None and (not isinstance(queue, str) or not queue):
            p.add(
                (*path, "job.queue.name"), f"{label}: job.queue.name: expected a non-empty string, got {_show(queue)}"
            )
        user = obj.get("job.user", "default")
        if not isinstance(user, str) or not user:
            p.add((*path, "job.user"), f"{label}: job.user: expected a non-empty string, got {_show(user)}")
        count = _count(_ms(obj.get("job.count", 1)))
        if count is None or count < 1:
            p.add(
                (*path, "job.count"), f"{label}: job.count: expected a whole number ≥ 1, got {_show(obj['job.count'])}"
            )
            count = 1
        tasks = self.tasks(obj.get("job.tasks"), "job.tasks" in obj, path, label)
        if p.count > before or tasks is None or start is None:
            return []
        maps, reduces = tasks
        problem = self.tally.take(count, len(maps) + len(reduces))
        if problem is not None:
            if count > 1:
                p.add((*path, "job.count"), f"{label}: job.count {count:,}: {problem}")
            else:
                p.add(path, f"{label}: {problem}")
        if self.tally.over:
            return []
        am_size = _size(obj.get("am.memory"), obj.get("am.vcores"), default_none=False)
        if am_size is _BAD:
            p.add(path, f"{label}: am.memory / am.vcores: expected whole numbers ≥ 0 (MB, vcores), "
                        f"got {_show(obj.get('am.memory'))} / {_show(obj.get('am.vcores'))}")
            return []
        properties = {
            k: v for k, v in obj.items() if k == "job.end.ms" or k == "job.label.expression" or k.startswith("am.")
        }
        base = jid if jid is not None else f"job_{n}"
        ids = [base] if count == 1 else [f"{base}_{k}" for k in range(count)]
        out = []
        for job_id in ids:
            if job_id in self.ids:
                p.add(
                    (*path, "job.id") if "job.id" in obj else path,
                    f"{label}: duplicate job id {job_id!r}",
                    ref=self.ids[job_id],
                )
                continue
            self.ids[job_id] = path
            out.append(
                JobSpec(
                    maps=maps,
                    reduces=reduces,
                    user=user,
                    pool=queue,
                    properties=dict(properties),
                    id=job_id,
                    submit=start / 1000.0,
                    am_resources=am_size,
                    task_resources=_DEFAULT_SIZE,
                )
            )
        return out

    def tasks(
        self, tasks: Any, present: bool, path: tuple[Any, ...], label: str
    ) -> tuple[tuple[TaskSpec, ...], tuple[TaskSpec, ...]] | None:
        p = self.p
        tpath = (*path, "job.tasks")
        if not present:
            p.add(path, f"{label}: missing job.tasks (a list of containers)")
            return None
        if not isinstance(tasks, list) or not tasks:
            p.add(tpath, f"{label}: job.tasks: expected a non-empty list of container objects, got {_show(tasks)}")
            return None
        maps: list[TaskSpec] = []
        reduces: list[TaskSpec] = []
        ok = True
        cache, nodes = self.cache, self.nodes
        total = 0
        for i, task in enumerate(tasks):
            parsed = _sls_container_fast(task)
            if parsed is None:  # something unusual: check it properly, naming every problem
                parsed = self._container(task, (*tpath, i), f"{label}: job.tasks[{i}]")
                if parsed is None:
                    ok = False
                    continue
            is_map, n, duration, host, size = parsed
            total += n
            if total > MAX_JOB_TASKS:  # before the tasks are built
                p.add((*tpath, i, "count"), f"{label}: job.tasks[{i}]: count: {job_tasks_problem(total)}")
                return None
            if is_map:
                node = host.rstrip("/").rsplit("/", 1)[-1] if host else ""
                spec = cache.get(duration, (node,) if nodes is not None and node in nodes else (), None, size)
                maps.extend([spec] * n)
            else:
                reduces.extend([cache.get(duration, (), None, size)] * n)
        return (tuple(maps), tuple(reduces)) if ok else None

    def _container(
        self, task: Any, path: tuple[Any, ...], label: str
    ) -> tuple[bool, int, float, str | None, Resources | None] | None:
        """``(is_map, count, seconds, host, size)`` of one SLS container, or None
        after recording every problem with it."""
        p = self.p
        if not isinstance(task, dict):
            p.add(path, f"{label}: expected a container object, got {_show(task)}")
            return None
        bad = False
        for key in task:
            if key in _SLS_TASK_KEYS:
                continue
            if key.startswith("container.") and _ms(task[key]) is not None:
                continue  # a resource request (container.memory, container.vcores, …): not simulated
            p.add((*path, key), f"{label}: {_unknown_key(key, _SLS_TASK_KEYS, 'an SLS container')}")
            bad = True
        duration = self._duration(task, path, label)
        kind = task.get("container.type", "map")
        if not isinstance(kind, str) or kind.lower() not in ("map", "reduce"):
            p.add((*path, "container.type"), f'{label}: container.type: expected "map" or "reduce", got {_show(kind)}')
            bad = True
        n = _count(_ms(task.get("count", 1)))
        if n is None or n < 1:
            p.add((*path, "count"), f"{label}: count: expected a whole number ≥ 1, got {_show(task['count'])}")
            bad = True
        if "container.priority" in task and _count(_ms(task["container.priority"])) is None:
            p.add(
                (*path, "container.priority"),
                f"{label}: container.priority: expected a whole number ≥ 0, got {_show(task['container.priority'])}",
            )
            bad = True
        host = task.get("container.host")
        if host is not None and not isinstance(host, str):
            p.add((*path, "container.host"), f'{label}: container.host: expected "/rack/host", got {_show(host)}')
            bad = True
        size = _size(task.get("container.memory"), task.get("container.vcores"))
        if size is _BAD:
            p.add(path, f"{label}: container.memory / container.vcores: expected whole numbers ≥ 0 (MB, vcores), "
                        f"got {_show(task.get('container.memory'))} / {_show(task.get('container.vcores'))}")
            bad = True
        if bad or duration is None or n is None or size is _BAD:
            return None
        return kind.lower() == "map", n, duration, host, size

    def _duration(self, task: dict[str, Any], path: tuple[Any, ...], label: str) -> float | None:
        """Seconds, as SLS reads it: container.duration.ms, else duration.ms,
        else container.end.ms - container.start.ms."""
        p = self.p
        for key in ("container.duration.ms", "duration.ms"):
            if key in task:
                ms = _ms(task[key])
                if ms is None or ms <= 0:
                    p.add((*path, key), f"{label}: {key}: expected milliseconds > 0, got {_show(task[key])}")
                    return None
                return round(ms / 1000.0, 6)
        if "container.start.ms" in task and "container.end.ms" in task:
            start, end = _ms(task["container.start.ms"]), _ms(task["container.end.ms"])
            if start is None or end is None:
                key = "container.start.ms" if start is None else "container.end.ms"
                p.add((*path, key), f"{label}: {key}: expected milliseconds, got {_show(task[key])}")
                return None
            if end <= start:
                p.add(
                    (*path, "container.end.ms"),
                    f"{label}: container.end.ms ({end:g}) must be after container.start.ms ({start:g})",
                )
                return None
            return round((end - start) / 1000.0, 6)
        p.add(
            path, f"{label}: missing container.duration.ms (or duration.ms, or container.start.ms and container.end.ms)"
        )
        return None
