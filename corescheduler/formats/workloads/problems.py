"""Problems found in a workload file, and where: up to :data:`MAX_PROBLEMS`
of them collected into one ``FILE:LINE:`` :class:`~corescheduler.errors.WorkloadError`;
line numbers for JSON values; value checks shared by the JSON and SLS readers."""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Callable, Iterator, Sequence
from json.decoder import scanstring
from typing import Any

from corescheduler.core.model import TaskSpec
from corescheduler.errors import WorkloadError
from corescheduler.formats.jsoncheck import ascii_json, deepest, lone_surrogate, long_number
from corescheduler.wording import plural

# --------------------------------------------------------------------------- problems


#: At most this many problems are listed in one :class:`WorkloadError`.
MAX_PROBLEMS = 20


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
            text += f"; and {plural(self.count - len(found), 'more problem', 'more problems')}"
        return WorkloadError(text, self.source, first_line, problems=found)


def _show(value: Any) -> str:
    """A short rendering of a (JSON) value for messages."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    except RecursionError:  # nested deeper than the encoder goes
        text = "[…]" if isinstance(value, list) else "{…}" if isinstance(value, dict) else repr(type(value))
    if lone_surrogate(text) is not None:  # unprintable: escape it
        text = ascii_json(text)[1:-1]
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
        self._end = 0  # where the last array read element by element ended
        self._children: dict[int, list[int]] = {}  # array start -> element starts found so far

    def _ws(self, i: int) -> int:
        return _WS.match(self.text, i).end()  # type: ignore[union-attr]

    def line(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def decode(self) -> list[Any]:
        """Every top-level value; bad JSON and duplicate keys raise WorkloadError."""
        return list(self.values())

    def values(self) -> Iterator[Any]:
        """Each top-level value in turn, decoded when asked for (a reader that
        drops each value before the next holds one at a time); bad JSON and
        duplicate keys raise WorkloadError."""
        text = self.text
        i = start = self._ws(0)
        try:
            while i < len(text):
                start = i
                value, i = _STRICT.raw_decode(text, i)
                self.starts.append(start)
                i = self._ws(i)
                yield value
        except json.JSONDecodeError as exc:
            raise WorkloadError(f"invalid JSON: {exc.msg} (column {exc.colno})", self.source, exc.lineno) from exc
        except RecursionError as exc:
            depth, pos = deepest(text)
            raise WorkloadError(
                f"JSON nested {depth:,} levels deep, too deep to read; a workload needs a few levels",
                self.source, self.line(pos)) from exc
        except _DuplicateKey as exc:
            key, pos = self._find_duplicate(start)
            raise WorkloadError(f"duplicate key {key!r} in a JSON object", self.source, self.line(pos)) from exc
        except ValueError as exc:  # an integer literal of thousands of digits
            raise WorkloadError(f"invalid JSON: a number too long to read ({str(exc).split(';')[0]})",
                                self.source, self.line(long_number(text))) from exc

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

    def get(
        self, duration: float, input_nodes: tuple[str, ...] = (), copy_duration: float | None = None,
        resources: Any = None,
    ) -> TaskSpec:
        key = (duration, input_nodes, copy_duration, resources)
        spec = self._specs.get(key)
        if spec is None:
            spec = self._specs[key] = TaskSpec(
                duration=duration, input_nodes=input_nodes, copy_duration=copy_duration, resources=resources
            )
        return spec
