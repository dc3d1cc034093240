"""Typed, validated reading of a TOML table: the config's own tables and each
plugin's ``[plugins.NAME]`` settings.

A plugin validates its settings in its constructor::

    from corescheduler.settings import Settings

    class DelayScheduling:
        def __init__(self, settings):
            s = Settings(settings, plugin="delay")
            self.node_delay = s.number("node_locality_delay", 5.0, minimum=0)
            s.finish()          # unknown keys and all problems -> one SettingsError

Every problem is collected, and :meth:`Settings.finish` raises them together
as a :class:`~corescheduler.errors.SettingsError` (or
:class:`~corescheduler.errors.ConfigError`), each naming the table and key and
saying what was expected.  The plugin manager adds the file and line.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping
from typing import Any

from corescheduler.errors import ConfigError, SettingsError

_MISSING = object()


#: the most characters of a value a message shows
_SHOW_LIMIT = 60
#: TOML's integers are 64-bit ("if an integer cannot be represented losslessly, an
#: error must be thrown"); tomllib reads any size, so Settings refuses the rest
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _show(value: Any) -> str:
    """``value`` as a message shows it: TOML's spelling of booleans, strings quoted,
    long (or deeply nested) values cut to their first characters."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and value.bit_length() > 4 * _SHOW_LIMIT:  # str() of a huge int is slow
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    if isinstance(value, list | dict):
        text = _shallow(value, _SHOW_LIMIT + 1)
    else:
        text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= _SHOW_LIMIT else text[: _SHOW_LIMIT - 1] + "…"


def _shallow(value: Any, limit: int) -> str:
    """The start (about ``limit`` characters) of a list's or table's text, written
    without recursion: a value nested thousands deep cannot exhaust the stack."""
    out: list[str] = []
    size = 0
    stack: list[Any] = [value]
    while stack and size < limit:
        item = stack.pop()
        if isinstance(item, _Text):
            piece = item.text
        elif isinstance(item, list):
            piece = "["
            stack.append(_Text("]"))
            for i, v in enumerate(reversed(item)):
                stack.append(v)
                if i < len(item) - 1:
                    stack.append(_Text(", "))
        elif isinstance(item, dict):
            piece = "{"
            stack.append(_Text("}"))
            pairs = list(item.items())
            for i, (k, v) in enumerate(reversed(pairs)):
                stack.append(v)
                stack.append(_Text(f"{k} = "))
                if i < len(pairs) - 1:
                    stack.append(_Text(", "))
        else:
            piece = _show(item)
        out.append(piece)
        size += len(piece)
    return "".join(out)


class _Text:
    """Literal text inside :func:`_shallow`'s work stack (not a value)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class Settings:
    """Reader over one TOML table that records problems instead of failing fast.

    ``where`` names the table in messages (``[scheduler]``); with ``plugin``
    set it is ``[plugins.<plugin>]`` and problems become
    :class:`~corescheduler.errors.SettingsError` with the key.
    """

    def __init__(self, table: Mapping[str, Any] | None, *, plugin: str | None = None, where: str | None = None):
        if table is None:
            table = {}
        self.plugin = plugin
        self.where = where or (f"[plugins.{plugin}]" if plugin else "settings")
        self.problems: list[tuple[str | None, str]] = []
        if not isinstance(table, Mapping):
            self.problems.append((None, f"expected a table, got {_show(table)}"))
            table = {}
        self.table = table
        self._used: set[str] = set()

    # ------------------------------------------------------------------ recording
    def problem(self, key: str | None, message: str) -> None:
        """Record a problem with ``key`` (``None`` = the whole table)."""
        self.problems.append((key, message))

    def _get(self, key: str) -> Any:
        self._used.add(key)
        return self.table.get(key, _MISSING)

    # ------------------------------------------------------------------ readers
    def number(
        self,
        key: str,
        default: float | None,
        *,
        minimum: float | None = None,
        maximum: float | None = None,
        exclusive_minimum: bool = False,
        integer: bool = False,
        finite: bool = True,
    ) -> Any:
        """A number (int or float; ``integer=True`` demands a whole number).

        ``inf`` and ``-inf`` are refused unless ``finite=False`` (for a setting
        where infinity means something, such as "wait forever"); ``nan`` always is."""
        value = self._get(key)
        if value is _MISSING:
            return default
        kind = "a whole number" if integer else "a number"
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.problem(key, f"expected {kind}, got {_show(value)}")
            return default
        if integer and (isinstance(value, float) and not value.is_integer()):
            self.problem(key, f"expected {kind}, got {_show(value)}")
            return default
        if isinstance(value, float) and math.isnan(value):
            self.problem(key, f"expected {kind}, got nan")
            return default
        if (isinstance(value, int) or (integer and math.isfinite(value))) and not INT64_MIN <= value <= INT64_MAX:
            # a whole-number float (1e30) is held to the same bound as the integer it stands for
            self.problem(key, f"expected {kind} that fits in 64 bits (as TOML's integers), got {_show(value)}")
            return default
        if finite and isinstance(value, float) and math.isinf(value):
            self.problem(key, f"expected a finite number, got {_show(value)}")
            return default
        if minimum is not None:
            if exclusive_minimum and not value > minimum:
                self.problem(key, f"must be > {minimum:g}, got {_show(value)}")
                return default
            if not exclusive_minimum and value < minimum:
                self.problem(key, f"must be ≥ {minimum:g}, got {_show(value)}")
                return default
        if maximum is not None and value > maximum:
            self.problem(key, f"must be ≤ {maximum:g}, got {_show(value)}")
            return default
        return int(value) if integer else value

    def boolean(self, key: str, default: bool) -> bool:
        value = self._get(key)
        if value is _MISSING:
            return default
        if not isinstance(value, bool):
            self.problem(key, f"expected true or false, got {_show(value)}")
            return default
        return value

    def string(self, key: str, default: str | None, *, choices: Iterable[str] | None = None) -> Any:
        value = self._get(key)
        if value is _MISSING:
            return default
        if not isinstance(value, str) or not value:
            self.problem(key, f"expected a non-empty string, got {_show(value)}")
            return default
        if choices is not None:
            allowed = list(choices)
            if value not in allowed:
                self.problem(key, f"expected one of {', '.join(map(repr, allowed))}, got {_show(value)}")
                return default
        return value

    def names(self, key: str, default: Iterable[str]) -> tuple[str, ...]:
        """A name or a list of names (strings)."""
        value = self._get(key)
        if value is _MISSING:
            return tuple(default)
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.problem(key, f"expected a name or a list of names, got {_show(value)}")
            return tuple(default)
        return tuple(value)

    def numbers(self, key: str, default: tuple[float, ...], *, count: int, minimum: float | None = None,
                ascending: bool = False, example: str = "") -> tuple[float, ...]:
        """A list of ``count`` finite numbers (each ≥ ``minimum``; not decreasing with
        ``ascending``)."""
        value = self._get(key)
        if value is _MISSING:
            return default
        ok = (isinstance(value, list) and len(value) == count
              and all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                      and (minimum is None or v >= minimum) for v in value)
              and (not ascending or all(a <= b for a, b in itertools.pairwise(value))))
        if not ok:
            bound = f", each ≥ {minimum:g}" if minimum is not None else ""
            order = " and not decreasing" if ascending else ""
            self.problem(key, f"expected a list of {count} numbers{bound}{order}{example}, got {_show(value)}")
            return default
        return tuple(float(v) for v in value)

    def table_(self, key: str) -> Mapping[str, Any]:
        """A sub-table (``{}`` when absent)."""
        value = self._get(key)
        if value is _MISSING:
            return {}
        if not isinstance(value, Mapping):
            self.problem(key, f"expected a table, got {_show(value)}")
            return {}
        return value

    def ignore(self, *keys: str) -> None:
        """Mark keys as known without reading them."""
        self._used.update(keys)

    # ------------------------------------------------------------------ finishing
    def unknown_keys(self) -> list[str]:
        return [k for k in self.table if k not in self._used]

    def messages(self) -> list[str]:
        """Every problem as ``"<where> <key>: <message>"``, unknown keys included."""
        out = []
        for key in self.unknown_keys():
            self.problems.append((key, unknown_setting(key, self._used)))
            self._used.add(key)
        for key, message in self.problems:
            out.append(f"{self.where} {key}: {message}" if key else f"{self.where}: {message}")
        return out

    def finish(self) -> None:
        """Raise every recorded problem (and unknown keys) at once, if any."""
        if self.unknown_keys() or self.problems:
            msgs = self.messages()
            if self.plugin is not None:
                key, message = self.problems[0]
                raise SettingsError(key, message, plugin=self.plugin, items=self.problems)
            raise ConfigError(msgs)


def closest_name(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to ``name`` when one is close enough to be a typo of it, else None."""
    import difflib

    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.7)
    return close[0] if close else None


def unknown_setting(key: str, known: Iterable[str]) -> str:
    """``"unknown setting"``, with the closest known key when one is close (a typo)."""
    close = closest_name(key, known)
    return f"unknown setting; did you mean {close!r}?" if close else "unknown setting"
