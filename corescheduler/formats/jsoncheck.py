"""What Python's JSON decoder leaves for the reader to check: nesting too deep
to decode (a ``RecursionError``), and lone UTF-16 surrogates.

A JSON string may hold ``"\\ud800"``: an escape for half of a surrogate pair
with no other half.  The decoder gives a Python ``str`` holding that code
point, which no UTF-8 file or terminal can take, so a job id like that would
fail only when it is written, after a whole simulation.  The readers refuse
such strings where they enter, naming the field.  A valid pair
(``"\\ud83d\\ude00"``) decodes to one character and is fine.

Both checks cost nothing on ordinary input: :func:`may_hold_surrogates` is one
C-level scan of the text for a ``\\uD8..``–``\\uDF..`` escape, and the nesting
scan runs only after the decoder has failed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

#: a JSON escape of a UTF-16 surrogate (U+D800–U+DFFF), paired or not
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
#: a surrogate code point left in a decoded string: one without its pair
_SURROGATE = re.compile("[\ud800-\udfff]")
#: a JSON string, or a bracket outside strings
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')

#: a JSON path: top-level value index, then object keys and array indices
Path = tuple[Any, ...]


_LONG_NUMBER = re.compile(r"\d{4000,}")


def long_number(text: str) -> int:
    """Where the first number too long for Python's int conversion (over 4,300
    digits: the decoder's ``ValueError``) starts in ``text``, or 0."""
    m = _LONG_NUMBER.search(text)
    return 0 if m is None else m.start()


def may_hold_surrogates(text: str) -> bool:
    """Whether ``text`` (JSON) has a surrogate escape at all (a quick filter)."""
    return _SURROGATE_ESCAPE.search(text) is not None


def lone_surrogate(s: str) -> str | None:
    """The first lone surrogate of ``s`` as an escape (``\\ud800``), or None."""
    m = _SURROGATE.search(s)
    return None if m is None else f"\\u{ord(m.group()):04x}"


def lone_surrogates(value: Any, path: Path = ()) -> Iterator[tuple[Path, bool, str]]:
    """``(path, is_key, escape)`` for every string in ``value`` (decoded JSON)
    holding a lone surrogate, in document order; ``is_key``: the last step of
    ``path`` is an object key that holds it.  Iterative: any nesting depth."""
    stack: list[tuple[Any, Path]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            bad = lone_surrogate(item)
            if bad is not None:
                yield where, False, bad
        elif isinstance(item, dict):
            children = []
            for key, child in item.items():
                bad = lone_surrogate(key) if isinstance(key, str) else None
                if bad is not None:
                    yield (*where, key), True, bad
                children.append((child, (*where, key)))
            stack.extend(reversed(children))
        elif isinstance(item, list):
            stack.extend((child, (*where, i)) for i, child in reversed(list(enumerate(item))))


def deepest(text: str) -> tuple[int, int]:
    """``(depth, position)``: the deepest nesting of brackets in JSON text and
    where it is first reached (for the message after a ``RecursionError``)."""
    depth = best = where = 0
    for m in _TOKEN.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > best:
                best, where = depth, m.start()
        elif c in "]}":
            depth -= 1
    return best, where


def render_path(steps: Path) -> str:
    """``properties.x[2]``: keys joined by dots, indices in brackets; a key
    with a surrogate or odd characters is shown as JSON (escaped)."""
    out = ""
    for step in steps:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            key = str(step)
            if lone_surrogate(key) is not None or not key or any(c in key for c in ' "[]'):
                key = ascii_json(key)
            out += f".{key}" if out else key
    return out


def ascii_json(s: str) -> str:
    """``s`` as a JSON string with every non-ASCII character escaped (a lone
    surrogate included): safe to print anywhere."""
    return '"' + s.encode("ascii", "backslashreplace").decode("ascii").replace('"', '\\"') + '"'
