"""Workloads for the simulator: the jobs to submit, when, and their tasks.

One entry point, :func:`load_workload`, reads any of the formats of SPEC §5
into a :class:`Workload` (a sorted tuple of :class:`~corescheduler.core.model.JobSpec`):

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

One module per format — :mod:`.spec_json`, :mod:`.sls`, :mod:`.swim`,
:mod:`.facebook` — on a common base: :mod:`.workload` (the
:class:`Workload`, its size bins and :class:`WorkloadSettings`),
:mod:`.problems` (collected ``FILE:LINE`` problems, JSON positions, value
checks) and :mod:`.replicas` (HDFS-style replica placement, which the
simulator uses too for maps that have no input location).  This module
detects the format and re-exports the public names.
"""

from __future__ import annotations

import gzip
import itertools
import os
import random
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from corescheduler.config import Config
from corescheduler.core.model import JobSpec
from corescheduler.errors import WorkloadError
from corescheduler.formats.jsoncheck import lone_surrogate, lone_surrogates, may_hold_surrogates, render_path
from corescheduler.formats.workloads.facebook import BUILTINS, FACEBOOK_BINS, facebook_workload
from corescheduler.formats.workloads.problems import MAX_PROBLEMS, _JsonText, _Problems, _show
from corescheduler.formats.workloads.replicas import ReplicaPlacer, _node_racks, place_replicas
from corescheduler.formats.workloads.sls import _is_sls, _SlsJobs
from corescheduler.formats.workloads.spec_json import _load_spec_json, _stream_spec_json
from corescheduler.formats.workloads.swim import _CHUNK, _load_swim, _text_lines, swim_counts, swim_tasks
from corescheduler.formats.workloads.workload import (
    BUILTIN_PREFIX,
    SIZE_BINS,
    WORKLOAD_KEYS,
    Workload,
    WorkloadSettings,
    size_bin,
)

# --------------------------------------------------------------------------- loading


@contextmanager
def _reading(path: Path, source: str) -> Iterator[IO[str]]:
    """The workload file as UTF-8 text (a BOM skipped, ``.gz`` decompressed);
    a read or decode error while it is open is one WorkloadError."""
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8-sig") as fh:
                yield fh
        else:
            with open(path, encoding="utf-8-sig") as fh:
                yield fh
    except FileNotFoundError as exc:
        raise WorkloadError("no such workload file (expected a file path or builtin:facebook)", source) from exc
    except OSError as exc:
        raise WorkloadError(f"cannot read workload: {exc.strerror or exc}", source) from exc
    except (EOFError, zlib.error) as exc:  # a truncated or corrupt .gz
        raise WorkloadError(f"cannot read workload: {exc}", source) from exc
    except UnicodeDecodeError as exc:
        raise WorkloadError(f"workload is not UTF-8 text ({exc.reason})", source) from exc


def _format_of(path: Path, source: str) -> str:
    """``"json"`` or ``"swim"``: by extension, else by the first non-blank
    character (read a chunk at a time; the file is not kept)."""
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    suffix = suffixes[-1] if suffixes else ""
    if suffix == ".json":
        return "json"
    if suffix == ".tsv":
        return "swim"
    with _reading(path, source) as fh:
        while chunk := fh.read(_CHUNK):
            first = chunk.lstrip()[:1]
            if first:
                return "json" if first in ("{", "[") else "swim"
    return "swim"


def is_swim_trace(spec: str | os.PathLike[str]) -> bool:
    """Whether :func:`load_workload` reads ``spec`` as a SWIM trace (whose jobs get the
    ``[simulation] pools``); False for a built-in, a JSON file or one that cannot be read."""
    source = os.fspath(spec)
    if not isinstance(source, str) or source.startswith(BUILTIN_PREFIX):
        return False
    try:
        return _format_of(Path(source), source) == "swim"
    except (OSError, WorkloadError):
        return False


_NONE = object()


def _load_json(
    text: str, source: str, node_racks: Mapping[str, str] | None, default_name: str
) -> tuple[list[JobSpec], str]:
    doc = _JsonText(text, source)
    problems = _Problems(source)
    resolve = doc.locate
    check = may_hold_surrogates(text)

    def clean(value: Any, index: int) -> bool:
        """No lone surrogate in the value (each one found is a problem)."""
        if not check:
            return True
        before = problems.count
        for path, is_key, bad in lone_surrogates(value, (index,)):
            problems.add(path, _surrogate_problem(value, path, is_key, bad))
        return problems.count == before

    def clean_job(value: Any, index: int) -> bool:
        """No lone surrogate in element ``index`` of a streamed ``"jobs"`` array."""
        if not check:
            return True
        before = problems.count
        for path, is_key, bad in lone_surrogates(value, (0, "jobs", index)):
            problems.add(path, _surrogate_problem({"jobs": {index: value}}, path, is_key, bad))
        return problems.count == before

    streamed = _stream_spec_json(doc, problems, node_racks, default_name, clean_job)
    if streamed is not None:  # a workload JSON document: one job decoded at a time
        if problems:
            raise problems.error(resolve)
        return streamed
    stream = doc.values()  # SLS traces of many objects: one decoded object at a time
    first = next(stream, _NONE)
    if first is _NONE:
        raise WorkloadError('empty workload: expected {"jobs": [...]} or YARN SLS job objects', source, 1)

    second = next(stream, _NONE) if isinstance(first, dict | list) else _NONE
    if second is _NONE and isinstance(first, dict) and "jobs" in first:
        if not clean(first, 0):
            raise problems.error(resolve)
        jobs, name = _load_spec_json(first, problems, node_racks, default_name)
    else:
        shown = _show(first)
        if second is _NONE and isinstance(first, list):
            if not clean(first, 0):
                raise problems.error(resolve)
            items: Iterator[tuple[Any, tuple[Any, ...]]] = ((v, (0, i)) for i, v in enumerate(first))
        else:
            rest = itertools.chain([first], [] if second is _NONE else [second], stream)
            del first, second  # held no longer than the loop below needs them
            items = ((v, (i,)) for i, v in enumerate(rest) if clean(v, i))
        sls = _SlsJobs(problems, node_racks)
        jobs = []
        seen_sls = False
        for value, path in items:
            seen_sls = seen_sls or _is_sls(value)
            jobs.extend(sls.job(value, path))
        if not seen_sls and not (check and problems):
            raise WorkloadError(
                'expected a workload object {"jobs": [...]} or YARN SLS job objects (with "job.tasks"), '
                f"got {shown}",
                source,
                resolve((0,)),
            )
        name = default_name
        if not jobs and not problems:
            problems.add((0,), "the SLS trace has no jobs")
    if problems:
        raise problems.error(resolve)
    return jobs, name


def _surrogate_problem(top: Any, path: tuple[Any, ...], is_key: bool, bad: str) -> str:
    """``job 'j1'.user: the string holds a lone surrogate \\ud800 …``: the field named
    by its job's id when that id is clean, else by its JSON path (``top``: the
    top-level value ``path`` starts in)."""
    steps = list(path[1:])
    job: Any = None
    label, id_key, sep = "", "job.id", ": "
    if isinstance(top, dict) and "jobs" in top and len(steps) >= 2 and steps[0] == "jobs":
        job, id_key, sep = _item(top["jobs"], steps[1]), "id", "."
        label, steps = f"jobs[{steps[1]}]", steps[2:]
    elif isinstance(top, list) and steps:
        job, label, steps = _item(top, steps[0]), f"[{steps[0]}]", steps[1:]
    elif isinstance(top, dict) and _is_sls(top):
        job, label = top, f"SLS job object #{path[0] + 1}"
    jid = job.get(id_key) if isinstance(job, dict) else None
    if isinstance(jid, str | int) and not isinstance(jid, bool) and lone_surrogate(str(jid)) is None:
        label = f"job {str(jid)!r}" if id_key == "id" else f"SLS job {str(jid)!r}"
    field = render_path(steps)
    where = f"{label}{sep}{field}" if label and field else label or field or "the document"
    what = "the key" if is_key else "the string"
    return (f"{where}: {what} holds a lone surrogate {bad} (half of a UTF-16 pair, not a character); "
            "expected valid Unicode text")


def _item(items: Any, index: Any) -> Any:
    if isinstance(items, dict):  # the one element of a streamed "jobs" array
        return items.get(index)
    return items[index] if isinstance(items, list) and isinstance(index, int) and index < len(items) else None


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
        name = path.name.split(".")[0] or path.name
        if _format_of(path, source) == "json":
            with _reading(path, source) as fh:
                text = fh.read()
            jobs, name = _load_json(text, source, node_racks, name)
        else:  # line by line: memory holds the jobs, not the file
            with _reading(path, source) as fh:
                jobs = _load_swim(_text_lines(fh), source, settings, rng)
    jobs.sort(key=lambda j: (j.submit, j.id))
    # a file name that is not UTF-8 holds surrogate escapes ('\udcff' for byte 0xff): shown as
    # '\xff', so the reports and metrics the name goes into can be written
    return Workload(jobs=tuple(jobs), source=printable_path(source), name=printable_path(name))


def printable_path(text: str) -> str:
    """``text`` (a file name as the OS gave it) with bytes that are not UTF-8, and any
    other lone surrogate, written as backslash escapes (``\\xff``): safe to encode."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return os.fsencode(text).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


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
    "is_swim_trace",
    "load_workload",
    "place_replicas",
    "size_bin",
    "swim_counts",
    "swim_tasks",
]
