"""Workloads for the simulator: the jobs to submit, when, and their tasks.

One entry point, :func:`load_workload`, reads any of the formats of SPEC §5
into a :class:`Workload` (a sorted tuple of :class:`~corescheduler.model.JobSpec`):

* ``builtin:facebook`` — the job-size mix of the delay-scheduling paper's
  Facebook benchmark (approximate, see ``docs/workloads.md``);
* a **workload JSON** file, ``{"jobs": [...]}``;
* a **YARN SLS JSON** trace (Hadoop's ``hadoop-sls`` input: job objects with
  ``job.tasks``, often several objects one after another);
* a **SWIM** trace (tab-separated: id, submit, gap, input, shuffle, output
  bytes), tasks derived from bytes by :class:`WorkloadSettings`.

Everything random comes from ``random.Random(seed)``: the same inputs and seed
give an identical workload.  Every bad row or value is reported as a
:class:`~corescheduler.errors.WorkloadError` whose message starts with
``FILE:LINE:`` and names the field and what was expected; several problems
are reported together (up to :data:`MAX_PROBLEMS`), nothing is dropped.

HDFS-style replica placement lives here too (:class:`ReplicaPlacer`,
:func:`place_replicas`) so the simulator places the input blocks of maps that
have none with the same rule.
"""

from __future__ import annotations

import bisect
import difflib
import gzip
import json
import math
import os
import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from json.decoder import scanstring
from pathlib import Path
from typing import Any

from attrs import field, frozen

from corescheduler.config import ClusterConfig, Config
from corescheduler.errors import ConfigError, WorkloadError
from corescheduler.model import PRIORITIES, PRIORITY_RANK, JobSpec, TaskSpec
from corescheduler.settings import Settings

MiB = 2**20

#: At most this many problems are listed in one :class:`WorkloadError`.
MAX_PROBLEMS = 20

#: Tasks never last less than this (seconds); derived durations are rounded to it.
MIN_DURATION = 0.001

BUILTIN_PREFIX = "builtin:"

# --------------------------------------------------------------------------- job-size bins

#: The job-size bins of the delay-scheduling paper (Zaharia et al., EuroSys
#: 2010, Table 3), by number of maps, smallest first.  The report groups jobs
#: by these labels.
SIZE_BINS: tuple[str, ...] = ("1", "2", "3-20", "21-60", "61-150", "151-300", "301-500", "501-1500", ">1500")
_BIN_UPPER: tuple[int, ...] = (1, 2, 20, 60, 150, 300, 500, 1500)


def size_bin(maps: int) -> str:
    """The :data:`SIZE_BINS` label for a job with ``maps`` map tasks (a job
    with no maps counts as bin ``"1"``)."""
    return SIZE_BINS[bisect.bisect_left(_BIN_UPPER, max(1, maps))]


# --------------------------------------------------------------------------- values


@frozen
class Workload:
    """The jobs of a simulation, sorted by ``(submit, id)``.

    Every :class:`JobSpec` has ``id`` and ``submit`` set and every
    :class:`TaskSpec` a ``duration`` > 0.  Maps with empty ``input_nodes``
    have no replicas yet: the simulator places them (with
    :class:`ReplicaPlacer`).  Identical tasks of a job may be one shared
    :class:`TaskSpec` object.
    """

    jobs: tuple[JobSpec, ...] = field(converter=tuple)
    source: str
    name: str

    def __len__(self) -> int:
        return len(self.jobs)

    def __iter__(self) -> Iterator[JobSpec]:
        return iter(self.jobs)

    def size_bin(self, job: JobSpec) -> str:
        """The job's size bin label (one of :data:`SIZE_BINS`), by its map count."""
        return size_bin(len(job.maps))

    @property
    def bins(self) -> tuple[str, ...]:
        """All bin labels in order, smallest jobs first (:data:`SIZE_BINS`)."""
        return SIZE_BINS

    def task_counts(self) -> tuple[int, int]:
        """Total ``(maps, reduces)`` over all jobs."""
        return sum(len(j.maps) for j in self.jobs), sum(len(j.reduces) for j in self.jobs)


#: The ``[simulation]`` keys read by :class:`WorkloadSettings`; the simulator
#: owns every other key of that table.
WORKLOAD_KEYS: tuple[str, ...] = (
    "block_size",
    "map_rate",
    "shuffle_rate",
    "reduce_rate",
    "task_overhead",
    "bytes_per_reduce",
    "max_maps",
    "max_reduces",
    "pools",
    "users",
)


@frozen
class WorkloadSettings:
    """How tasks are derived from a SWIM trace's bytes, and how its jobs get
    users and pools.  Read from ``[simulation]`` (keys :data:`WORKLOAD_KEYS`);
    the defaults and formulas are in ``docs/workloads.md``.
    """

    #: bytes of input per map (the HDFS block size)
    block_size: int = 128 * MiB
    #: bytes/s one map slot reads and processes
    map_rate: float = 10.0 * MiB
    #: bytes/s one reduce copies (shuffle)
    shuffle_rate: float = 20.0 * MiB
    #: bytes/s one reduce (or a map of a map-only job) writes output
    reduce_rate: float = 10.0 * MiB
    #: seconds added to every task (JVM start, setup, commit)
    task_overhead: float = 2.0
    #: shuffle bytes per reduce (Hive's hive.exec.reducers.bytes.per.reducer)
    bytes_per_reduce: int = 1_000_000_000
    #: cap on maps per job (0 = none)
    max_maps: int = 0
    #: cap on reduces per job (0 = none; default Hive's hive.exec.reducers.max)
    max_reduces: int = 999
    #: pools pool00… (0 = leave the pool unset, the PoolResolver decides)
    pools: int = 10
    #: users user00…, drawn Zipf-like per job
    users: int = 50

    @classmethod
    def from_settings(cls, s: Settings) -> WorkloadSettings:
        """Read this class's keys from ``s`` (recording problems in it).

        The simulator can read ``[simulation]`` through one
        :class:`~corescheduler.settings.Settings`, call this, read its own
        keys and then report unknown keys and problems together.
        """
        d = cls()
        return cls(
            block_size=s.number("block_size", d.block_size, minimum=1, integer=True),
            map_rate=float(s.number("map_rate", d.map_rate, minimum=0, exclusive_minimum=True)),
            shuffle_rate=float(s.number("shuffle_rate", d.shuffle_rate, minimum=0, exclusive_minimum=True)),
            reduce_rate=float(s.number("reduce_rate", d.reduce_rate, minimum=0, exclusive_minimum=True)),
            task_overhead=float(s.number("task_overhead", d.task_overhead, minimum=0)),
            bytes_per_reduce=s.number("bytes_per_reduce", d.bytes_per_reduce, minimum=1, integer=True),
            max_maps=s.number("max_maps", d.max_maps, minimum=0, integer=True),
            max_reduces=s.number("max_reduces", d.max_reduces, minimum=0, integer=True),
            pools=s.number("pools", d.pools, minimum=0, integer=True),
            users=s.number("users", d.users, minimum=1, integer=True),
        )

    @classmethod
    def from_config(cls, config: Config | None) -> WorkloadSettings:
        """Read :data:`WORKLOAD_KEYS` from ``config.simulation``.

        Other keys of ``[simulation]`` are left alone (the simulator checks
        them).  Bad values raise :class:`~corescheduler.errors.ConfigError`
        naming the config file, line and key.
        """
        if config is None:
            return cls()
        s = Settings(config.simulation, where="[simulation]")
        value = cls.from_settings(s)
        if s.problems:
            problems = []
            for key, message in s.problems:
                label = f"[simulation] {key}" if key else "[simulation]"
                problems.append(f"{config.locate('simulation', key)}: {label}: {message}")
            raise ConfigError(problems)
        return value


# --------------------------------------------------------------------------- replica placement


class ReplicaPlacer:
    """HDFS's default block placement over a fixed set of racks and nodes.

    The first replica goes on a node chosen uniformly at random, the second on
    a random node of another rack, the third on another node of the second
    replica's rack; any further replicas on random nodes not yet used.  With
    one rack all replicas are distinct nodes of it; replication is capped at
    the number of nodes.  Build one placer and call :meth:`place` per block:
    the node lists are prepared once.
    """

    def __init__(self, nodes_by_rack: Mapping[str, Sequence[str]], replication: int = 3) -> None:
        racks = [tuple(nodes) for nodes in nodes_by_rack.values() if len(nodes)]
        self._flat: list[str] = [n for nodes in racks for n in nodes]
        if not self._flat:
            raise ValueError("no nodes to place replicas on")
        if replication < 1:
            raise ValueError(f"replication must be ≥ 1, got {replication}")
        self._start: list[int] = []  # index of each rack's first node in _flat
        self._size: list[int] = []
        self._rack_of: list[int] = []  # rack index of each node in _flat
        pos = 0
        for r, nodes in enumerate(racks):
            self._start.append(pos)
            self._size.append(len(nodes))
            self._rack_of.extend([r] * len(nodes))
            pos += len(nodes)
        self.replication = min(replication, len(self._flat))
        self.racks = len(racks)

    def place(self, rng: random.Random) -> tuple[str, ...]:
        """The nodes holding one block, first replica first."""
        flat, total = self._flat, len(self._flat)
        randrange = rng.randrange
        first = randrange(total)
        want = self.replication
        chosen = [first]
        if want >= 2 and self.racks >= 2:
            r1 = self._rack_of[first]
            size1 = self._size[r1]
            second = randrange(total - size1)  # any node off the first rack
            if second >= self._start[r1]:
                second += size1
            if want == 2:
                return (flat[first], flat[second])
            chosen.append(second)
            r2 = self._rack_of[second]
            size2 = self._size[r2]
            if size2 >= 2:
                start2 = self._start[r2]
                k = randrange(size2 - 1)  # another node of the second rack
                if start2 + k >= second:
                    k += 1
                if want == 3:  # HDFS's default: no set, no loop
                    return (flat[first], flat[second], flat[start2 + k])
                chosen.append(start2 + k)
        used = set(chosen)
        while len(chosen) < want:
            k = rng.randrange(total)
            if k not in used:
                used.add(k)
                chosen.append(k)
        return tuple(flat[k] for k in chosen)


def place_replicas(rng: random.Random, nodes_by_rack: Mapping[str, Sequence[str]], replication: int) -> tuple[str, ...]:
    """The nodes holding one block under HDFS's default placement (see
    :class:`ReplicaPlacer`; build one of those to place many blocks)."""
    return ReplicaPlacer(nodes_by_rack, replication).place(rng)


def _node_racks(nodes: Sequence[str] | Mapping[str, str] | None, cluster: ClusterConfig) -> dict[str, str] | None:
    """``node -> rack`` for the simulated cluster, or None when not given.

    A mapping is taken as ``node -> rack``; a plain sequence of names is taken
    as filled rack by rack (SPEC §5), ``nodes_per_rack`` from ``[cluster]``.
    """
    if nodes is None:
        return None
    if isinstance(nodes, Mapping):
        return {str(n): str(r) for n, r in nodes.items()}
    if isinstance(nodes, str):
        raise TypeError("nodes must be a sequence of node names, not a string")
    per = max(1, cluster.nodes_per_rack)
    return {str(n): f"r{i // per:02d}" for i, n in enumerate(nodes)}


def _by_rack(node_racks: Mapping[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for node, rack in node_racks.items():
        out.setdefault(rack, []).append(node)
    return out


# --------------------------------------------------------------------------- problems


class _Problems:
    """Collects problems (``where`` is a line number or a JSON path) and
    raises them as one WorkloadError."""

    def __init__(self, source: str, limit: int = MAX_PROBLEMS) -> None:
        self.source = source
        self.limit = limit
        self.items: list[tuple[Any, str, Any]] = []
        self.count = 0

    def __bool__(self) -> bool:
        return self.count > 0

    def add(self, where: Any, message: str, ref: Any = None) -> None:
        """Record ``message`` at ``where``; ``ref`` (a second place) is named
        as "first at line N" (for duplicates)."""
        self.count += 1
        if len(self.items) < self.limit:
            self.items.append((where, message, ref))

    def error(self, resolve: Callable[[Any], int | None] | None = None) -> WorkloadError:
        def line_of(where: Any) -> int | None:
            if where is None or isinstance(where, int):
                return where
            return resolve(where) if resolve else None

        found: list[tuple[int | None, str]] = []
        for where, message, ref in self.items:
            if ref is not None:
                ref_line = line_of(ref)
                if ref_line is not None:
                    message = f"{message} (first at line {ref_line})"
            found.append((line_of(where), message))
        first_line, first = found[0]
        parts = [first]
        for line, message in found[1:]:
            parts.append(f"{self.source}:{line}: {message}" if line is not None else f"{self.source}: {message}")
        text = "; ".join(parts)
        if self.count > len(found):
            text += f"; and {self.count - len(found)} more problem(s)"
        return WorkloadError(text, self.source, first_line, problems=found)


def _show(value: Any) -> str:
    """A short rendering of a (JSON) value for messages."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _unknown_key(key: str, known: Sequence[str], what: str) -> str:
    close = difflib.get_close_matches(key, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else f"; expected one of: {', '.join(known)}"
    return f"unknown key {key!r} in {what}{hint}"


# --------------------------------------------------------------------------- JSON positions
#
# The happy path parses with the C decoder and keeps no positions.  Problems
# are recorded against a JSON path ((value index, key or index, ...)); only
# when there are problems does :class:`_JsonText` walk the text to the few
# places named, skipping everything else with the C decoder.


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs_no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


_WS = re.compile(r"[ \t\n\r]*")
_PLAIN = json.JSONDecoder()
_STRICT = json.JSONDecoder(object_pairs_hook=_pairs_no_duplicates)


class _JsonText:
    """JSON text holding one or more values one after another (SLS traces
    are often several objects without an enclosing array)."""

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.starts: list[int] = []  # where each top-level value starts
        self._children: dict[int, list[int]] = {}  # array start -> element starts found so far

    def _ws(self, i: int) -> int:
        return _WS.match(self.text, i).end()  # type: ignore[union-attr]

    def line(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def decode(self) -> list[Any]:
        """Every top-level value; bad JSON and duplicate keys raise WorkloadError."""
        text, values = self.text, []
        i = self._ws(0)
        try:
            while i < len(text):
                start = i
                value, i = _STRICT.raw_decode(text, i)
                values.append(value)
                self.starts.append(start)
                i = self._ws(i)
        except json.JSONDecodeError as exc:
            raise WorkloadError(f"invalid JSON: {exc.msg} (column {exc.colno})", self.source, exc.lineno) from exc
        except _DuplicateKey as exc:
            key, pos = self._find_duplicate(start)
            raise WorkloadError(f"duplicate key {key!r} in a JSON object", self.source, self.line(pos)) from exc
        return values

    def _find_duplicate(self, i: int) -> tuple[str, int]:
        """The first duplicate key inside the value at ``i`` (known to hold one)."""
        text = self.text
        i = self._ws(i)
        if text[i] == "{":
            seen: set[str] = set()
            j = self._ws(i + 1)
            while text[j] != "}":
                key_pos = j
                key, j = scanstring(text, j + 1)
                if key in seen:
                    return key, key_pos
                seen.add(key)
                start = self._ws(self._ws(j) + 1)
                try:
                    _, end = _STRICT.raw_decode(text, start)
                except _DuplicateKey:
                    return self._find_duplicate(start)
                j = self._ws(end)
                if text[j] == ",":
                    j = self._ws(j + 1)
        elif text[i] == "[":
            j = self._ws(i + 1)
            while text[j] != "]":
                try:
                    _, end = _STRICT.raw_decode(text, j)
                except _DuplicateKey:
                    return self._find_duplicate(j)
                j = self._ws(end)
                if text[j] == ",":
                    j = self._ws(j + 1)
        raise AssertionError("no duplicate key found")  # pragma: no cover

    def _element(self, pos: int, index: int) -> int | None:
        """Start of element ``index`` of the array at ``pos``."""
        text = self.text
        found = self._children.get(pos)
        if found is None:
            first = self._ws(pos + 1)
            found = self._children[pos] = [] if text[first] == "]" else [first]
        while len(found) <= index:
            _, end = _PLAIN.raw_decode(text, found[-1])
            j = self._ws(end)
            if text[j] != ",":
                return None
            found.append(self._ws(j + 1))
        return found[index]

    def _member(self, pos: int, name: str) -> tuple[int, int] | None:
        """``(key start, value start)`` of member ``name`` of the object at ``pos``."""
        text = self.text
        j = self._ws(pos + 1)
        while text[j] != "}":
            key_pos = j
            key, j = scanstring(text, j + 1)
            start = self._ws(self._ws(j) + 1)
            if key == name:
                return key_pos, start
            _, end = _PLAIN.raw_decode(text, start)
            j = self._ws(end)
            if text[j] == ",":
                j = self._ws(j + 1)
        return None

    def locate(self, path: Sequence[Any]) -> int | None:
        """Line of the deepest value of ``path`` that exists (an object
        member's line is its key's)."""
        if not path or not isinstance(path[0], int) or not 0 <= path[0] < len(self.starts):
            return None
        mark = pos = self.starts[path[0]]
        for step in path[1:]:
            pos = self._ws(pos)
            c = self.text[pos]
            if c == "{" and isinstance(step, str):
                member = self._member(pos, step)
                if member is None:
                    break
                mark, pos = member
            elif c == "[" and isinstance(step, int):
                element = self._element(pos, step)
                if element is None:
                    break
                mark = pos = element
            else:
                break
        return self.line(mark)


# --------------------------------------------------------------------------- value checks


def _number(value: Any) -> float | None:
    """A finite number, or None (bools, strings, NaN are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        f = float(value)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def _count(value: Any) -> int | None:
    """A whole number ≥ 0, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    return None


class _TaskCache:
    """One TaskSpec object per distinct (duration, input_nodes, copy_duration)."""

    def __init__(self) -> None:
        self._specs: dict[tuple[Any, ...], TaskSpec] = {}

    def get(self, duration: float, input_nodes: tuple[str, ...] = (), copy_duration: float | None = None) -> TaskSpec:
        key = (duration, input_nodes, copy_duration)
        spec = self._specs.get(key)
        if spec is None:
            spec = self._specs[key] = TaskSpec(duration=duration, input_nodes=input_nodes, copy_duration=copy_duration)
        return spec


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
)
_MAP_KEYS = ("duration", "input_nodes")
_REDUCE_KEYS = ("duration", "copy_duration")


class _JobsReader:
    """What the JSON and SLS job validators share: problems, the cluster's
    nodes, shared task objects and the ids seen so far."""

    def __init__(self, problems: _Problems, node_racks: Mapping[str, str] | None) -> None:
        self.p = problems
        self.nodes = node_racks
        self.cache = _TaskCache()
        self.ids: dict[str, tuple[Any, ...]] = {}


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

        maps = self.side(obj, path, label, "map")
        reduces = self.side(obj, path, label, "reduce")
        if maps is not None and reduces is not None and not maps and not reduces:
            p.add(path, f"{label}: a job needs at least one task (maps or reduces)")
        if p.count > before:
            return None
        return JobSpec(
            maps=maps,
            reduces=reduces,
            user=user,
            pool=pool,
            priority=priority,
            properties=dict(properties),
            groups=tuple(groups),
            id=jid,
            submit=float(submit),  # type: ignore[arg-type]
        )

    def side(self, obj: dict[str, Any], path: tuple[Any, ...], label: str, kind: str) -> tuple[TaskSpec, ...] | None:
        """The maps or reduces of a job, from a task list or from counts."""
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
            if kind == "map":
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

    def task_list(self, tasks: Any, path: tuple[Any, ...], label: str, kind: str) -> tuple[TaskSpec, ...] | None:
        p = self.p
        if not isinstance(tasks, list):
            p.add(path, f"{label}: expected a list of task objects, got {_show(tasks)}")
            return None
        known = _MAP_KEYS if kind == "map" else _REDUCE_KEYS
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
            if ok:
                out.append(self.cache.get(float(duration), nodes, copy))
        return tuple(out) if ok else None


def _load_spec_json(
    doc: dict[str, Any], problems: _Problems, node_racks: Mapping[str, str] | None, default_name: str
) -> tuple[list[JobSpec], str]:
    root = (0,)
    for key in doc:
        if key not in _TOP_KEYS:
            problems.add((*root, key), _unknown_key(key, _TOP_KEYS, "the workload object"))
    name = doc.get("name", default_name)
    if not isinstance(name, str) or not name:
        problems.add((*root, "name"), f"name: expected a non-empty string, got {_show(name)}")
        name = default_name
    jobs_value = doc["jobs"]
    if not isinstance(jobs_value, list):
        problems.add((*root, "jobs"), f"jobs: expected a list of job objects, got {_show(jobs_value)}")
        return [], name
    if not jobs_value:
        problems.add((*root, "jobs"), "jobs: the workload has no jobs")
    checker = _JsonJobs(problems, node_racks)
    jobs = []
    for i, obj in enumerate(jobs_value):
        job = checker.job(obj, (*root, "jobs", i), i)
        if job is not None:
            jobs.append(job)
    return jobs, name


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


def _sls_container_fast(task: Any) -> tuple[bool, int, float, str | None] | None:
    """``(is_map, count, seconds, host)`` of a plainly well-formed SLS
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
    return kind == "map", n, ms / 1000.0, host


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
        for i, task in enumerate(tasks):
            parsed = _sls_container_fast(task)
            if parsed is None:  # something unusual: check it properly, naming every problem
                parsed = self._container(task, (*tpath, i), f"{label}: job.tasks[{i}]")
                if parsed is None:
                    ok = False
                    continue
            is_map, n, duration, host = parsed
            if is_map:
                node = host.rstrip("/").rsplit("/", 1)[-1] if host else ""
                spec = cache.get(duration, (node,) if nodes is not None and node in nodes else ())
                maps.extend([spec] * n)
            else:
                reduces.extend([cache.get(duration)] * n)
        return (tuple(maps), tuple(reduces)) if ok else None

    def _container(self, task: Any, path: tuple[Any, ...], label: str) -> tuple[bool, int, float, str | None] | None:
        """``(is_map, count, seconds, host)`` of one SLS container, or None
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
        if bad or duration is None or n is None:
            return None
        return kind.lower() == "map", n, duration, host

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


# --------------------------------------------------------------------------- SWIM TSV

_SWIM_COLUMNS = ("job id", "submit time (s)", "gap (s)", "map input bytes", "shuffle bytes", "reduce output bytes")


def _swim_number(text: str) -> float | None:
    text = text.strip()
    try:
        return float(int(text))
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _user_names(count: int, prefix: str) -> list[str]:
    width = len(str(max(count - 1, 0)))
    return [f"{prefix}{k:0{width}d}" for k in range(count)]


def swim_tasks(
    input_bytes: float,
    shuffle_bytes: float,
    output_bytes: float,
    settings: WorkloadSettings,
    cache: _TaskCache | None = None,
) -> tuple[tuple[TaskSpec, ...], tuple[TaskSpec, ...]]:
    """The maps and reduces of one SWIM job (formulas in ``docs/workloads.md``).

    All maps of a job are one shared :class:`TaskSpec`, and so are its reduces.
    """
    s = settings
    cache = cache or _TaskCache()
    if shuffle_bytes > 0:
        n_maps = max(1, math.ceil(input_bytes / s.block_size))
        # a reduce handles at most bytes_per_reduce of shuffle *or* of output
        n_reduces = math.ceil(max(shuffle_bytes, output_bytes) / s.bytes_per_reduce)
    else:
        # a map-only job: its maps also write the output, one block at most each
        n_maps = max(1, math.ceil(input_bytes / s.block_size), math.ceil(output_bytes / s.block_size))
        n_reduces = 0
    if s.max_maps:
        n_maps = min(n_maps, s.max_maps)
    if s.max_reduces:
        n_reduces = min(n_reduces, s.max_reduces)
    map_seconds = s.task_overhead + (input_bytes / n_maps) / s.map_rate
    if n_reduces == 0:  # a map-only job: the maps write the output
        map_seconds += (output_bytes / n_maps) / s.reduce_rate
    map_spec = cache.get(max(MIN_DURATION, round(map_seconds, 3)))
    if n_reduces == 0:
        return (map_spec,) * n_maps, ()
    copy = (shuffle_bytes / n_reduces) / s.shuffle_rate
    compute = (output_bytes / n_reduces) / s.reduce_rate
    duration = max(MIN_DURATION, round(s.task_overhead + copy + compute, 3))
    reduce_spec = cache.get(duration, (), min(round(copy, 3), duration))
    return (map_spec,) * n_maps, (reduce_spec,) * n_reduces


def _load_swim(text: str, source: str, settings: WorkloadSettings, rng: random.Random) -> list[JobSpec]:
    problems = _Problems(source)
    rows: list[tuple[str, float, float, float, float, str | None]] = []
    first_line: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        cols = line.split("\t")
        while cols and not cols[-1].strip():
            cols.pop()  # trailing empty columns (SWIM's withInputPaths files end in two tabs)
        if len(cols) not in (6, 7):
            hint = " (columns are separated by tabs)" if len(cols) == 1 and " " in line.strip() else ""
            problems.add(
                lineno,
                f"expected 6 tab-separated columns ({', '.join(_SWIM_COLUMNS)}) and optionally an input path, "
                f"got {len(cols)}{hint}",
            )
            continue
        jid = cols[0].strip()
        if not jid:
            problems.add(lineno, "column 1 (job id): expected a job id, got an empty field")
            continue
        values = []
        for k in range(1, 6):
            value = _swim_number(cols[k])
            if value is None or value < 0:
                problems.add(lineno, f"column {k + 1} ({_SWIM_COLUMNS[k]}): expected a number ≥ 0, got {cols[k]!r}")
                break
            values.append(value)
        else:
            if jid in first_line:
                problems.add(lineno, f"duplicate job id {jid!r}", ref=first_line[jid])
                continue
            first_line[jid] = lineno
            path = cols[6].strip() if len(cols) == 7 else None
            rows.append((jid, values[0], values[2], values[3], values[4], path))
    if problems:
        raise problems.error()
    if not rows:
        raise WorkloadError("the SWIM trace has no jobs", source, None)

    cache = _TaskCache()
    users = _user_names(settings.users, "user")
    pools = _user_names(settings.pools, "pool") if settings.pools else []
    # Zipf-like popularity: user k submits with weight 1/(k+1).
    cum: list[float] = []
    total = 0.0
    for k in range(settings.users):
        total += 1.0 / (k + 1)
        cum.append(total)
    picks = rng.choices(range(settings.users), cum_weights=cum, k=len(rows))
    jobs = []
    for (jid, submit, input_bytes, shuffle_bytes, output_bytes, input_path), k in zip(rows, picks):
        maps, reduces = swim_tasks(input_bytes, shuffle_bytes, output_bytes, settings, cache)
        properties: dict[str, Any] = {
            "swim.input_bytes": int(input_bytes),
            "swim.shuffle_bytes": int(shuffle_bytes),
            "swim.output_bytes": int(output_bytes),
        }
        if input_path:
            properties["swim.input_path"] = input_path
        jobs.append(
            JobSpec(
                maps=maps,
                reduces=reduces,
                user=users[k],
                pool=pools[k % len(pools)] if pools else None,
                properties=properties,
                id=jid,
                submit=submit,
            )
        )
    return jobs


# --------------------------------------------------------------------------- builtin:facebook

#: The delay-scheduling paper's Facebook benchmark (Zaharia et al., EuroSys
#: 2010, §5, Table 3): per bin, (maps per job, jobs, reduces per job).  Maps and
#: job counts are the paper's; the reduce counts are our assumption (see
#: docs/workloads.md).
FACEBOOK_BINS: tuple[tuple[int, int, int], ...] = (
    (1, 38, 0),
    (2, 16, 0),
    (10, 14, 1),
    (50, 8, 3),
    (100, 6, 5),
    (200, 6, 10),
    (400, 4, 20),
    (800, 4, 40),
    (4800, 4, 50),
)
#: Mean job inter-arrival time, seconds (exponential).
FACEBOOK_MEAN_INTERARRIVAL = 14.0
#: A job's mean map duration is drawn uniformly from this range (seconds) ...
FACEBOOK_MAP_SECONDS = (10.0, 20.0)
#: ... its mean reduce duration from this one ...
FACEBOOK_REDUCE_SECONDS = (30.0, 60.0)
#: ... and each task varies by this factor around its job's mean.
FACEBOOK_TASK_SPREAD = (0.8, 1.2)
#: Fraction of a reduce spent copying map output.
FACEBOOK_COPY_FRACTION = 0.5


def facebook_workload(
    rng: random.Random, node_racks: Mapping[str, str] | None = None, replication: int = 3
) -> list[JobSpec]:
    """The ``builtin:facebook`` jobs (approximate; see docs/workloads.md).

    With ``node_racks`` every map gets ``replication`` input replicas placed
    HDFS-style (:class:`ReplicaPlacer`); without, maps have no input nodes and
    the simulator places them.
    """
    sizes = [(maps, reduces) for maps, jobs, reduces in FACEBOOK_BINS for _ in range(jobs)]
    rng.shuffle(sizes)
    placer = ReplicaPlacer(_by_rack(node_racks), replication) if node_racks else None
    jobs: list[JobSpec] = []
    submit = 0.0
    width = len(str(len(sizes) - 1))
    for n, (n_maps, n_reduces) in enumerate(sizes):
        if n:
            submit += rng.expovariate(1.0 / FACEBOOK_MEAN_INTERARRIVAL)
        map_mean = rng.uniform(*FACEBOOK_MAP_SECONDS)
        reduce_mean = rng.uniform(*FACEBOOK_REDUCE_SECONDS)
        maps = []
        for _ in range(n_maps):
            duration = round(map_mean * rng.uniform(*FACEBOOK_TASK_SPREAD), 3)
            nodes = placer.place(rng) if placer else ()
            maps.append(TaskSpec(duration=duration, input_nodes=nodes))
        reduces = []
        for _ in range(n_reduces):
            duration = round(reduce_mean * rng.uniform(*FACEBOOK_TASK_SPREAD), 3)
            reduces.append(TaskSpec(duration=duration, copy_duration=round(duration * FACEBOOK_COPY_FRACTION, 3)))
        tag = f"{n:0{width}d}"
        jobs.append(
            JobSpec(
                maps=tuple(maps),
                reduces=tuple(reduces),
                user=f"user{tag}",
                pool=f"pool{tag}",
                id=f"job{tag}",
                submit=round(submit, 3),
            )
        )
    return jobs


BUILTINS: tuple[str, ...] = ("facebook",)


# --------------------------------------------------------------------------- loading


def _read_text(path: Path, source: str) -> str:
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8-sig") as fh:
                return fh.read()
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as exc:
        raise WorkloadError("no such workload file (expected a file path or builtin:facebook)", source) from exc
    except OSError as exc:
        raise WorkloadError(f"cannot read workload: {exc.strerror or exc}", source) from exc
    except UnicodeDecodeError as exc:
        raise WorkloadError(f"workload is not UTF-8 text ({exc.reason})", source) from exc


def _format_of(path: Path, text: str) -> str:
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    suffix = suffixes[-1] if suffixes else ""
    if suffix == ".json":
        return "json"
    if suffix == ".tsv":
        return "swim"
    return "json" if text.lstrip()[:1] in ("{", "[") else "swim"


def _load_json(
    text: str, source: str, node_racks: Mapping[str, str] | None, default_name: str
) -> tuple[list[JobSpec], str]:
    doc = _JsonText(text, source)
    values = doc.decode()
    if not values:
        raise WorkloadError('empty workload: expected {"jobs": [...]} or YARN SLS job objects', source, 1)
    problems = _Problems(source)
    resolve = doc.locate
    first = values[0]
    if len(values) == 1 and isinstance(first, dict) and "jobs" in first:
        jobs, name = _load_spec_json(first, problems, node_racks, default_name)
    else:
        if len(values) == 1 and isinstance(first, list):
            items = [(v, (0, i)) for i, v in enumerate(first)]
        else:
            items = [(v, (i,)) for i, v in enumerate(values)]
        if not any(_is_sls(v) for v, _ in items):
            raise WorkloadError(
                'expected a workload object {"jobs": [...]} or YARN SLS job objects (with "job.tasks"), '
                f"got {_show(first)}",
                source,
                resolve((0,)),
            )
        sls = _SlsJobs(problems, node_racks)
        jobs = [job for value, path in items for job in sls.job(value, path)]
        name = default_name
        if not jobs and not problems:
            problems.add((0,), "the SLS trace has no jobs")
    if problems:
        raise problems.error(resolve)
    return jobs, name


def load_workload(
    spec: str | os.PathLike[str],
    *,
    config: Config | None = None,
    seed: int = 0,
    nodes: Sequence[str] | Mapping[str, str] | None = None,
    settings: WorkloadSettings | None = None,
) -> Workload:
    """Read a workload: ``builtin:facebook`` or a JSON, SLS JSON or SWIM TSV file.

    The format comes from the extension (``.json``, ``.tsv``; a trailing
    ``.gz`` is decompressed) or, without one, from the content.  ``config``
    supplies ``[simulation]`` (SWIM derivation, :class:`WorkloadSettings`,
    unless ``settings`` is given) and ``[cluster]`` (replication, and racks of
    a plain node list).  ``nodes`` are the simulated cluster's node names (a
    sequence filled rack by rack, or a ``node -> rack`` mapping): workload
    JSON ``input_nodes`` must name them, SLS container hosts become input
    nodes only when they name one, and ``builtin:facebook`` places its input
    blocks on them.  Randomness comes only from ``random.Random(seed)``.

    Raises :class:`~corescheduler.errors.WorkloadError` (``FILE:LINE:
    message``) for bad input and :class:`~corescheduler.errors.ConfigError`
    for bad ``[simulation]`` values.
    """
    config = config if config is not None else Config()
    settings = settings if settings is not None else WorkloadSettings.from_config(config)
    rng = random.Random(seed)
    node_racks = _node_racks(nodes, config.cluster)
    source = os.fspath(spec)
    if isinstance(source, bytes):  # pragma: no cover - PathLike[bytes]
        source = source.decode()
    if source.startswith(BUILTIN_PREFIX):
        name = source[len(BUILTIN_PREFIX) :]
        if name == "facebook":
            jobs = facebook_workload(rng, node_racks, config.cluster.replication)
        else:
            raise WorkloadError(
                f"unknown built-in workload {name!r}; expected one of: "
                + ", ".join(BUILTIN_PREFIX + b for b in BUILTINS),
                source,
            )
    else:
        path = Path(source)
        text = _read_text(path, source)
        name = path.name.split(".")[0] or path.name
        if _format_of(path, text) == "json":
            jobs, name = _load_json(text, source, node_racks, name)
        else:
            jobs = _load_swim(text, source, settings, rng)
    jobs.sort(key=lambda j: (j.submit, j.id))
    return Workload(jobs=tuple(jobs), source=source, name=name)


__all__ = [
    "BUILTINS",
    "FACEBOOK_BINS",
    "MAX_PROBLEMS",
    "SIZE_BINS",
    "WORKLOAD_KEYS",
    "ReplicaPlacer",
    "Workload",
    "WorkloadSettings",
    "facebook_workload",
    "load_workload",
    "place_replicas",
    "size_bin",
    "swim_tasks",
]
