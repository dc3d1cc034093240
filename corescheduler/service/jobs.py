"""The live service's job format (SPEC §8): JSON in, a checked :class:`JobRequest` out.

A job names its ``pool`` (or ``queue``), ``priority``, an optional ``name`` and
its ``maps``: each either a Python call ``{"call": "package.module:function",
"args": [...], "kwargs": {...}}`` or a command ``{"command": ["argv", ...]}``,
with optional ``input_nodes`` (workers or hosts holding its input: delay
scheduling prefers them).  Optional ``reduces`` have the same shape; each is
called with the list of every map's result as its first argument (a command
gets them as JSON on its standard input).  In resource mode a task may give
``resources`` (``"2048 mb, 1 vcores"``) and the job ``task_resources``.  A job's
``timeout`` (seconds, > 0) bounds each attempt of its tasks.

The user is the token's, never the job's.  Every problem is reported as a
:class:`JobFormatError` naming the field (``maps[2].call``) and what was
expected; nothing is stored for a job that has one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from attrs import field, frozen

from corescheduler.core.model import PRIORITY_WEIGHT, JobSpec, TaskSpec
from corescheduler.errors import CoreSchedulerError, ResourceParseError
from corescheduler.resources import Resources, parse_resources

#: the keys a job may have (``user`` is accepted only to say it comes from the token)
JOB_KEYS = ("name", "pool", "queue", "priority", "maps", "reduces", "task_resources", "properties", "timeout")
TASK_KEYS = ("call", "args", "kwargs", "command", "input_nodes", "resources", "env", "cwd")
_CALL = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
#: the most tasks one job may have (a request this large is a mistake, not a job)
MAX_TASKS = 100_000
#: how deep a call's args and kwargs may nest
MAX_DEPTH = 64
#: the longest time limit an attempt may have (a year, in seconds): beyond it, none was meant
MAX_TIMEOUT = 366 * 24 * 3600.0
#: the longest job, pool or queue name, input node or property name
MAX_NAME = 200
#: the job properties that name its pool (:meth:`JobSpec.property`: Hadoop's ``queue.name``)
POOL_PROPERTIES = ("queue.name", "mapred.job.queue.name", "pool")
#: the job properties that name its user and group: the token's, never the job's (Hadoop's
#: JobTracker set a job conf's ``user.name`` to the submitting user, and ``group.name`` to its
#: primary group, MAPREDUCE-2457, for the fair scheduler's ``poolnameproperty``)
USER_PROPERTIES = ("user.name", "user", "group.name")
#: a lone UTF-16 surrogate: valid in JSON text ("\ud800"), not storable as UTF-8 (SQLite, responses)
_SURROGATE = re.compile(r"[\ud800-\udfff]")
#: what a name (job, pool, queue, input node) may not hold: control characters, NUL included
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: Unicode's bidirectional controls (embeddings, overrides, isolates, marks): in a pool name they
#: make the page, the CLI's table and the logs show another name than the one stored
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: a percent-encoded octet ("%00", "%2e"): a name is sent as itself, never URL-encoded
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")


class JobFormatError(CoreSchedulerError):
    """A submitted job is malformed: ``field`` names where, the message what was expected."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@frozen
class TaskRequest:
    """One map or reduce as submitted: what to run on the worker."""

    call: str | None = None
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(factory=dict)
    command: tuple[str, ...] | None = None
    input_nodes: tuple[str, ...] = ()
    resources: Resources | None = None
    env: Mapping[str, str] = field(factory=dict)
    cwd: str | None = None

    def payload(self) -> dict[str, Any]:
        """What the worker-side runner gets (plain data, no service objects)."""
        if self.command is not None:
            return {"command": list(self.command), "env": dict(self.env), "cwd": self.cwd}
        return {"call": self.call, "args": list(self.args), "kwargs": dict(self.kwargs),
                "env": dict(self.env), "cwd": self.cwd}


@frozen
class JobRequest:
    """A checked job, before the scheduler places it."""

    name: str
    pool: str | None
    priority: str
    maps: tuple[TaskRequest, ...]
    reduces: tuple[TaskRequest, ...] = ()
    task_resources: Resources | None = None
    properties: Mapping[str, Any] = field(factory=dict)
    #: seconds each attempt may run (None: the service's ``task_timeout``)
    timeout: float | None = None
    #: the job exactly as submitted (what the store keeps, to rebuild it after a restart)
    document: Mapping[str, Any] = field(factory=dict)

    def spec(self, user: str | None, groups: Sequence[str], job_id: str | None, nodes: Mapping[str, str]) -> JobSpec:
        """The core's :class:`JobSpec`; ``nodes`` maps a worker address, name or host to the
        scheduler's node names (input nodes it does not know are dropped: no preference)."""

        def task(t: TaskRequest) -> TaskSpec:
            located = tuple(dict.fromkeys(n for name in t.input_nodes for n in _nodes_for(name, nodes)))
            return TaskSpec(input_nodes=located, resources=t.resources)

        return JobSpec(
            maps=[task(t) for t in self.maps],
            reduces=[task(t) for t in self.reduces],
            user=user,
            pool=self.pool,
            priority=self.priority,
            properties={**{k: v for k, v in self.properties.items() if k not in USER_PROPERTIES},
                        **({"group.name": groups[0]} if groups else {}), "mapred.job.name": self.name},
            groups=tuple(groups),
            id=job_id,
            task_resources=self.task_resources,
        )


def _nodes_for(name: str, nodes: Mapping[str, str]) -> list[str]:
    found = nodes.get(name)
    if found is not None:
        return [found]
    return [node for key, node in nodes.items() if key.startswith(f"host:{name}")]


def check_name(value: Any, field: str, what: str = "a name") -> str:
    """A pool, queue or job name as the ledger stores it: a string of at most ``MAX_NAME``
    characters with no control character (NUL included), no bidirectional control and no
    lone surrogate; else a :class:`JobFormatError` naming ``field``."""
    if not isinstance(value, str):
        raise JobFormatError(f"expected {what} (a string), got {_kind(value)}", field)
    if len(value) > MAX_NAME:
        raise JobFormatError(f"expected {what} of at most {MAX_NAME} characters, got {len(value)}", field)
    if _SURROGATE.search(value):
        raise JobFormatError(f"{what} holds a lone UTF-16 surrogate (not valid Unicode text)", field)
    if _CONTROL.search(value):
        raise JobFormatError(f"{what} holds a control character (NUL, newline, ...)", field)
    if m := _BIDI.search(value):  # in a terminal's table it turns the rest of the line (user, pool) around
        raise JobFormatError(f"{what} may not hold a bidirectional control character (U+{ord(m.group(0)):04X})",
                             field)
    return value


def check_pool(value: Any, field: str) -> str:
    """A pool (queue) name: :func:`check_name`, then what YARN's ``QueueManager.isQueueNameValid``
    refuses — an empty part between dots (``a..b``, ``.a``, ``a.``) or a part with white space
    around it (``a. b``; ``FairSchedulerUtilities.trimQueueName``) — after the name's own outer
    white space is trimmed; and what makes a name shown differ from the name stored: a
    bidirectional control character (:func:`check_name`), an invisible format character, a
    percent-encoded octet (``%00``).  Returns the name as given."""
    from corescheduler.core.queues import trim_queue_name

    check_name(value, field, "a pool name")
    name = value.strip()
    if not name:
        raise JobFormatError("expected a pool name (a non-empty string)", field)
    invisible = next((ch for ch in value if unicodedata.category(ch) == "Cf"), None)
    if invisible is not None:  # zero-width space or joiner, soft hyphen, BOM, tag: "bob\u200b" shows as "bob"
        raise JobFormatError(f"a pool name may not hold an invisible format character (U+{ord(invisible):04X}): "
                             "it would show as another pool's name", field)
    if m := _PERCENT.search(value):
        raise JobFormatError(f"a pool name may not hold a percent-encoded octet ({m.group(0)!r}): send the "
                             "name itself", field)
    for offset, part in enumerate(name.split(".")):
        if not part:
            raise JobFormatError(f"a pool name may not have an empty part between dots (part {offset} of "
                                 f"{name!r}): YARN's queue names are dot-separated", field)
        if part != trim_queue_name(part):
            raise JobFormatError(f"a pool name's part may not begin or end with white space (part {offset} "
                                 f"of {name!r})", field)
    return value


def unstorable(value: Any) -> bool:
    """Whether any string in ``value`` (keys included, at any depth) holds a lone surrogate."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if _SURROGATE.search(v):
                return True
        elif isinstance(v, Mapping):
            for k, item in v.items():
                if isinstance(k, str) and _SURROGATE.search(k):
                    return True
                stack.append(item)
        elif isinstance(v, list | tuple):
            stack.extend(v)
    return False


def _check_storable(doc: Mapping[str, Any]) -> None:
    """Every string of the document is Unicode text (no lone surrogate); the first that is
    not is a 400 naming its field (``maps[0].args``)."""
    for key, value in doc.items():
        if isinstance(key, str) and _SURROGATE.search(key):
            raise JobFormatError("a field name holds a lone UTF-16 surrogate", "body")
        if key in ("maps", "reduces") and isinstance(value, list):
            for i, task in enumerate(value):
                if isinstance(task, Mapping):
                    for k, v in task.items():
                        if unstorable(k) or unstorable(v):
                            raise JobFormatError("a string holds a lone UTF-16 surrogate (not valid Unicode text)",
                                                 f"{key}[{i}].{k}" if not unstorable(k) else f"{key}[{i}]")
                elif unstorable(task):
                    raise JobFormatError("a string holds a lone UTF-16 surrogate", f"{key}[{i}]")
        elif unstorable(value):
            raise JobFormatError("a string holds a lone UTF-16 surrogate (not valid Unicode text)", key)


def parse_job(doc: Any) -> JobRequest:
    """Check a submitted job document; raises :class:`JobFormatError` on the first problem."""
    if not isinstance(doc, Mapping):
        raise JobFormatError(f"a job must be a JSON object, got {_kind(doc)}", None)
    _check_storable(doc)
    if "user" in doc:
        raise JobFormatError("the user comes from the token; do not give one", "user")
    unknown = [k for k in doc if k not in JOB_KEYS]
    if unknown:
        raise JobFormatError(f"unknown field {unknown[0]!r}; a job has {', '.join(JOB_KEYS)}", unknown[0])
    name = check_name(doc.get("name", ""), "name", "a job name")
    pool = doc.get("pool", doc.get("queue"))
    where = "pool" if "pool" in doc else "queue"
    if "pool" in doc and "queue" in doc and doc["pool"] != doc["queue"]:
        raise JobFormatError("give pool or queue, not two different ones", "queue")
    if pool is not None:
        check_pool(pool, where)
    priority = doc.get("priority", "NORMAL")
    if not isinstance(priority, str) or priority.upper() not in PRIORITY_WEIGHT:
        raise JobFormatError(f"expected one of {', '.join(PRIORITY_WEIGHT)}", "priority")
    maps = _tasks(doc.get("maps"), "maps", required=True)
    reduces = _tasks(doc.get("reduces", []), "reduces", required=False)
    if len(maps) + len(reduces) > MAX_TASKS:
        raise JobFormatError(f"at most {MAX_TASKS} tasks a job", "maps")
    task_resources = None
    if doc.get("task_resources") is not None:
        task_resources = _resources(doc["task_resources"], "task_resources")
    properties = doc.get("properties", {})
    if not isinstance(properties, Mapping) or not all(isinstance(k, str) for k in properties):
        raise JobFormatError("expected an object of job properties", "properties")
    if _depth(properties) > MAX_DEPTH:  # as a call's args: the ledger's writer and reader recurse
        raise JobFormatError(f"nested more than {MAX_DEPTH} deep", "properties")
    timeout = doc.get("timeout")
    if timeout is not None:
        timeout = check_timeout(timeout)
        if timeout is None:
            raise JobFormatError(f"expected seconds each attempt may run, a number > 0 and at most {MAX_TIMEOUT:.0f}",
                                 "timeout")
    for key in properties:
        check_name(key, "properties", "a property name")
        if key in POOL_PROPERTIES:  # names the pool as the pool field does: the same checks
            check_pool(properties[key], f"properties.{key}")
    return JobRequest(
        timeout=timeout,
        name=name or "job", pool=pool.strip() if isinstance(pool, str) else None, priority=priority.upper(),
        maps=tuple(maps), reduces=tuple(reduces), task_resources=task_resources, properties=dict(properties),
        document=dict(doc),
    )


def check_timeout(value: Any) -> float | None:
    """``value`` as seconds each attempt may run, or None if it is not a number in
    (0, :data:`MAX_TIMEOUT`]."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not (0 < value <= MAX_TIMEOUT):
        return None
    return float(value)


def _tasks(value: Any, where: str, required: bool) -> list[TaskRequest]:
    if not isinstance(value, list):
        raise JobFormatError(f"expected a list of tasks, got {_kind(value)}", where)
    if required and not value:
        raise JobFormatError("a job needs at least one map", where)
    return [_task(t, f"{where}[{i}]") for i, t in enumerate(value)]


def _task(doc: Any, where: str) -> TaskRequest:
    if not isinstance(doc, Mapping):
        raise JobFormatError(f"expected an object with \"call\" or \"command\", got {_kind(doc)}", where)
    unknown = [k for k in doc if k not in TASK_KEYS]
    if unknown:
        raise JobFormatError(f"unknown field {unknown[0]!r}; a task has {', '.join(TASK_KEYS)}",
                             f"{where}.{unknown[0]}")
    if ("call" in doc) == ("command" in doc):
        raise JobFormatError("give exactly one of \"call\" or \"command\"", where)
    call = command = None
    if "call" in doc:
        call = doc["call"]
        if not isinstance(call, str) or len(call) > 1000 or not _CALL.match(call):
            raise JobFormatError("expected \"package.module:function\"", f"{where}.call")
        for key in ("args", "kwargs"):
            if key in doc and not isinstance(doc[key], list if key == "args" else Mapping):
                raise JobFormatError(f"expected a JSON {'array' if key == 'args' else 'object'}", f"{where}.{key}")
        for key in ("args", "kwargs"):
            if key in doc and _depth(doc[key]) > MAX_DEPTH:
                raise JobFormatError(f"nested more than {MAX_DEPTH} deep", f"{where}.{key}")
    else:
        command = doc["command"]
        if not isinstance(command, list) or not command or not all(isinstance(a, str) for a in command):
            raise JobFormatError("expected a non-empty list of strings (argv)", f"{where}.command")
        if any("\0" in a for a in command):
            raise JobFormatError("an argument contains a NUL character", f"{where}.command")
        for key in ("args", "kwargs"):
            if key in doc:
                raise JobFormatError("a command takes no args or kwargs (put them in its argv)", f"{where}.{key}")
    nodes = doc.get("input_nodes", [])
    if not isinstance(nodes, list) or not all(isinstance(n, str) and n for n in nodes):
        raise JobFormatError("expected a list of worker addresses or host names", f"{where}.input_nodes")
    for n in nodes:
        check_name(n, f"{where}.input_nodes", "a worker address or host name")
    env = doc.get("env", {})
    if not isinstance(env, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise JobFormatError("expected an object of strings", f"{where}.env")
    for k, v in env.items():
        if not k or "=" in k or "\0" in k or "\0" in v:
            raise JobFormatError(f"{k!r}: a variable name is non-empty without '=' or NUL, and a value has no NUL",
                                 f"{where}.env")
    cwd = doc.get("cwd")
    if cwd is not None and (not isinstance(cwd, str) or not cwd or "\0" in cwd):
        raise JobFormatError("expected a directory path", f"{where}.cwd")
    resources = _resources(doc["resources"], f"{where}.resources") if doc.get("resources") is not None else None
    return TaskRequest(
        call=call, args=tuple(doc.get("args", ())), kwargs=dict(doc.get("kwargs", {})),
        command=tuple(command) if command is not None else None, input_nodes=tuple(nodes),
        resources=resources, env=dict(env), cwd=cwd,
    )


def _resources(value: Any, where: str) -> Resources:
    if not isinstance(value, str):
        raise JobFormatError("expected a resource string such as \"2048 mb, 1 vcores\"", where)
    try:
        return parse_resources(value)
    except ResourceParseError as exc:
        raise JobFormatError(str(exc), where) from None


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__
    )


def _depth(value: Any, limit: int = MAX_DEPTH + 1) -> int:
    """How deep ``value`` nests (lists and objects), counted up to ``limit``."""
    depth = 0
    level = [value]
    while level and depth < limit:
        depth += 1
        nxt = []
        for v in level:
            if isinstance(v, Mapping):
                nxt.extend(v.values())
            elif isinstance(v, list | tuple):
                nxt.extend(v)
        level = nxt
    return depth - 1 if not level else depth
