"""SWIM traces (tab-separated: id, submit, gap, input, shuffle, output bytes):
maps and reduces derived from the bytes by :class:`WorkloadSettings`."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Iterator
from typing import IO, Any

from corescheduler.core.model import JobSpec, TaskSpec
from corescheduler.core.shuffle import ShuffleSpec
from corescheduler.errors import WorkloadError
from corescheduler.formats.workloads.problems import _Problems, _TaskCache
from corescheduler.formats.workloads.workload import (
    MIN_DURATION,
    WorkloadSettings,
    _amount,
    _Tally,
    job_tasks_problem,
)

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


def swim_counts(
    input_bytes: float, shuffle_bytes: float, output_bytes: float, settings: WorkloadSettings
) -> tuple[int, int]:
    """How many maps and reduces :func:`swim_tasks` gives a SWIM job (no tasks built)."""
    s = settings
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
    return n_maps, n_reduces


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
    n_maps, n_reduces = swim_counts(input_bytes, shuffle_bytes, output_bytes, settings)
    map_seconds = s.task_overhead + (input_bytes / n_maps) / s.map_rate
    if n_reduces == 0:  # a map-only job: the maps write the output
        map_seconds += (output_bytes / n_maps) / s.reduce_rate
    map_spec = cache.get(max(MIN_DURATION, round(map_seconds, 3)))
    if n_reduces == 0:
        return (map_spec,) * n_maps, ()
    compute = (output_bytes / n_reduces) / s.reduce_rate
    if s.shuffle == "network":  # the copy phase is the network model's: the duration is the rest
        return (map_spec,) * n_maps, (cache.get(max(MIN_DURATION, round(s.task_overhead + compute, 3))),) * n_reduces
    copy = (shuffle_bytes / n_reduces) / s.shuffle_rate
    duration = max(MIN_DURATION, round(s.task_overhead + copy + compute, 3))
    reduce_spec = cache.get(duration, (), min(round(copy, 3), duration))
    return (map_spec,) * n_maps, (reduce_spec,) * n_reduces


#: characters read at a time from a SWIM trace
_CHUNK = 1 << 20


def _non_space(block: str, pos: int) -> int:
    """Index of the first non-whitespace character of ``block`` at or after
    ``pos``, or -1.  Blank runs are skipped by ``str.lstrip`` on windows that
    double in size (C speed; a regex search is ten times slower there)."""
    n, width = len(block), 64
    while pos < n:
        if not block[pos].isspace():
            return pos
        window = block[pos : pos + width]
        rest = window.lstrip()
        if rest:
            return pos + len(window) - len(rest)
        pos += len(window)
        width = min(2 * width, _CHUNK)
    return -1


#: the line breaks of str.splitlines other than \n and \r\n
_OTHER_BREAKS = re.compile("\r(?!\n)|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _text_lines(fh: IO[str]) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of every non-blank line of a text stream, read
    :data:`_CHUNK` characters at a time: memory holds one chunk, not the file,
    and runs of blank lines are skipped at C speed, not line by line."""
    lineno = 1
    parts: list[str] = []  # a line longer than a chunk, so far
    while True:
        chunk = fh.read(_CHUNK)
        if not chunk:
            for piece in "".join(parts).splitlines():
                if piece.strip():
                    yield lineno, piece
                lineno += 1
            return
        cut = chunk.rfind("\n") + 1
        if cut == 0:
            parts.append(chunk)
            continue
        if parts:
            parts.append(chunk[:cut])
            block = "".join(parts)
            parts = []
        else:
            block = chunk[:cut]
        if cut < len(chunk):
            parts.append(chunk[cut:])
        if _OTHER_BREAKS.search(block) is not None:
            # a line break other than \n and \r\n (\x0c, \r, \x85, \u2028…): str.splitlines'
            # lines, as the whole-file reader split them (rare; the block costs a Python loop)
            for piece in block.splitlines():
                if piece.strip():
                    yield lineno, piece
                lineno += 1
            continue
        pos = 0  # the start of a line of block (which ends with a newline)
        while (i := _non_space(block, pos)) >= 0:
            start = max(pos, block.rfind("\n", pos, i) + 1)
            end = block.find("\n", i)
            lineno += block.count("\n", pos, start)
            yield lineno, block[start:end]
            lineno += 1
            pos = end + 1
        lineno += block.count("\n", pos)


def _load_swim(
    lines: Iterable[tuple[int, str]], source: str, settings: WorkloadSettings, rng: random.Random
) -> list[JobSpec]:
    """The jobs of a SWIM trace given as ``(line number, line)`` pairs (blank lines may be left out)."""
    problems = _Problems(source)
    rows: list[tuple[str, float, float, float, float, str | None]] = []
    first_line: dict[str, int] = {}
    tally = _Tally()
    for lineno, line in lines:
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
            n_maps, n_reduces = swim_counts(values[2], values[3], values[4], settings)
            problem = job_tasks_problem(n_maps + n_reduces)
            if problem is not None:
                problems.add(lineno, f"job {jid!r}: {_amount(n_maps)} maps and {_amount(n_reduces)} reduces from its "
                             f"bytes (block_size {settings.block_size:,}): {problem}; [simulation] max_maps caps maps")
                continue
            problem = tally.take(1, n_maps + n_reduces)
            if problem is not None:
                problems.add(lineno, problem)
                break
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
                shuffle=ShuffleSpec(bytes=shuffle_bytes, skew=settings.shuffle_skew)
                if reduces and settings.shuffle == "network" else None,
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
