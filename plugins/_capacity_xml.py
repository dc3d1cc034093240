"""Reading Hadoop's ``capacity-scheduler.xml`` for the ``capacity`` plugin.

The file is a Hadoop ``Configuration`` resource: ``<configuration>`` with
``<property>`` elements, each a ``<name>`` and a ``<value>`` (``<description>``
and ``<final>`` are allowed and ignored).  Queue properties are named
``mapred.capacity-scheduler.queue.<queue>.<property>``
(``CapacitySchedulerConf.toFullPropertyName``); cluster-wide defaults
``mapred.capacity-scheduler.default-<property>``.

:func:`read_capacity_xml` turns the file into the same per-queue tables as
``[plugins.capacity.queues.<queue>]`` in TOML (same keys, typed values), so
both formats go through one validation.  The line of every property is kept
so that a value the validation rejects is reported as ``FILE:LINE``.

Differences from Hadoop, on purpose: an unparsable number is an error (Hadoop's
``CapacitySchedulerConf.getFloat``/``getInt`` silently fall back to the
default), a property defined twice is an error (Hadoop keeps the last), and a
property name that is neither understood nor in :data:`IGNORED` is an error
(so a typo does not silently leave a queue at its default).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from attrs import define, field
from lxml import etree

PREFIX = "mapred.capacity-scheduler."
QUEUE_PREFIX = PREFIX + "queue."

#: Queue property -> (key of the TOML queue table, parser).
_QUEUE_PROPS: dict[str, tuple[str, str]] = {
    "capacity": ("capacity", "percent"),  # Hadoop 0.20+ (CAPACITY_PROPERTY)
    "guaranteed-capacity": ("capacity", "percent"),  # Hadoop 0.19
    "maximum-capacity": ("maximum_capacity", "max_percent"),  # MAPREDUCE-532
    "minimum-user-limit-percent": ("minimum_user_limit_percent", "int"),
    "supports-priority": ("supports_priority", "bool"),
    "user-limit-factor": ("user_limit_factor", "float"),  # Hadoop 1.x / YARN
    "reclaim-time-limit": ("reclaim_time", "float"),  # Hadoop 0.19, seconds
}
#: TOML key -> the property that sets it (for messages about a missing value).
_PROPERTY_OF = {key: prop for prop, (key, _) in reversed(_QUEUE_PROPS.items())}
#: Cluster-wide defaults (``mapred.capacity-scheduler.default-<property>``) -> queue key.
_DEFAULT_PROPS: dict[str, tuple[str, str]] = {
    "default-minimum-user-limit-percent": ("minimum_user_limit_percent", "int"),
    "default-supports-priority": ("supports_priority", "bool"),
    "default-user-limit-factor": ("user_limit_factor", "float"),
}
#: Hadoop properties with no meaning here (job initialisation, memory
#: matching, the reclaim thread's period): accepted and ignored.
IGNORED_QUEUE_PROPS = frozenset(
    {
        "subQueues",
        "maximum-initialized-jobs-per-user",
        "maximum-initialized-active-tasks",
        "maximum-initialized-active-tasks-per-user",
        "init-accept-jobs-factor",
    }
)
IGNORED = frozenset(
    {
        "reclaimCapacity.interval",  # Hadoop 0.19's reclaim thread period: [scheduler] preemption_interval here
        "default-maximum-initialized-jobs-per-user",
        "default-maximum-active-tasks-per-queue",
        "default-maximum-active-tasks-per-user",
        "default-init-accept-jobs-factor",
        "init-poll-interval",
        "init-worker-threads",
        "maximum-system-jobs",
        "task.default-pmem-percentage-in-vmem",
        "task.limit.maxpmem",
    }
)


@define
class CapacityXml:
    """What a ``capacity-scheduler.xml`` says.

    ``queues``: queue name -> the queue's table, keyed as in TOML, queues in
    file order, with the file's ``default-*`` values filled in where a queue
    does not set its own.  ``lines``: ``(queue, key)`` -> ``(line, property
    name)`` of the value.  ``queue_lines``: queue -> line of its first
    property.  ``problems``: ``"FILE:LINE: message"`` for every property that
    could not be read.
    """

    source: str
    queues: dict[str, dict[str, Any]] = field(factory=dict)
    lines: dict[tuple[str, str], tuple[int | None, str]] = field(factory=dict)
    queue_lines: dict[str, int | None] = field(factory=dict)
    problems: list[str] = field(factory=list)

    def where(self, queue: str, key: str | None = None) -> str:
        """``FILE:LINE: property`` of a queue's value (or ``FILE:LINE`` of the queue)."""
        if key is not None and (queue, key) in self.lines:
            line, prop = self.lines[(queue, key)]
        else:  # a missing value: the queue's first property
            line = self.queue_lines.get(queue)
            prop = f"{QUEUE_PREFIX}{queue}.{_PROPERTY_OF.get(key, key)}" if key else f"queue {queue!r}"
        return f"{self.source}:{line}: {prop}" if line else f"{self.source}: {prop}"


def _convert(kind: str, text: str) -> Any:
    """A property value as the TOML reader would have it: a number or a
    boolean when the text is one, else the text itself (the shared validation
    then says what was expected, at this property's line); ``None`` for a
    maximum capacity of 0 or less."""
    text = text.strip()
    if kind == "bool":
        low = text.lower()
        return low == "true" if low in ("true", "false") else text
    try:
        value = float(text)
    except ValueError:
        return text
    if not math.isfinite(value):
        return text
    if kind == "max_percent" and value <= 0:
        return None  # Hadoop getMaxCapacity: a value <= 0 (the template's -1) means no maximum
    return value


_POSITION_RE = re.compile(r",? line \d+, column \d+")


def _parse_file(path: Path, source: str, problems: list[str]) -> etree._Element | None:
    try:
        data = path.read_bytes()
    except OSError as exc:
        problems.append(f"{source}: cannot read the capacity scheduler file: {exc.strerror or exc}")
        return None
    parser = etree.XMLParser(remove_comments=True, remove_pis=True, no_network=True, resolve_entities=False)
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if exc.lineno else None
        reason = _POSITION_RE.sub("", exc.msg or str(exc))
        problems.append(f"{source}:{line}: not well-formed XML: {reason}" if line else f"{source}: {reason}")
        return None


def _text(elem: etree._Element | None) -> str | None:
    if elem is None:
        return None
    return "".join(elem.itertext())


def read_capacity_xml(path: str | Path, source: str | None = None) -> CapacityXml:
    """Read a Hadoop ``capacity-scheduler.xml`` (see the module docstring).

    Never raises for bad content: every problem is in ``problems``.
    """
    path = Path(path)
    out = CapacityXml(source=source or str(path))
    src = out.source
    root = _parse_file(path, src, out.problems)
    if root is None:
        return out
    if root.tag != "configuration":
        out.problems.append(f"{src}:{root.sourceline}: top-level element must be <configuration>, found <{root.tag}>")
        return out
    defaults: dict[str, Any] = {}
    seen: dict[str, int | None] = {}

    def bad(line: int | None, message: str) -> None:
        out.problems.append(f"{src}:{line}: {message}")

    for prop in root:
        if not isinstance(prop.tag, str):
            continue
        line = prop.sourceline
        if prop.tag != "property":
            bad(line, f"unexpected <{prop.tag}>; a Hadoop configuration file holds <property> elements")
            continue
        name_elem = prop.find("name")
        value_elem = prop.find("value")
        name = (_text(name_elem) or "").strip()
        value = _text(value_elem)
        if name_elem is not None:
            line = name_elem.sourceline
        if not name:
            bad(line, "<property> without a <name>")
            continue
        if name in seen:
            bad(line, f"{name}: defined twice (first at line {seen[name]})")
            continue
        seen[name] = line
        if not name.startswith(PREFIX):
            bad(line, f"{name}: not a capacity scheduler property; expected names starting {PREFIX!r}")
            continue
        if value is None:
            bad(line, f"{name}: <property> without a <value>")
            continue
        value_line = value_elem.sourceline if value_elem is not None else line
        rest = name[len(PREFIX) :]
        if name.startswith(QUEUE_PREFIX):
            queue, _, what = name[len(QUEUE_PREFIX) :].rpartition(".")
            if not queue:
                bad(line, f"{name}: expected {QUEUE_PREFIX}<queue>.<property>")
                continue
            out.queue_lines.setdefault(queue, line)
            table = out.queues.setdefault(queue, {})
            if what in IGNORED_QUEUE_PROPS:
                continue
            spec = _QUEUE_PROPS.get(what)
            if spec is None:
                known = ", ".join(sorted(_QUEUE_PROPS))
                bad(line, f"{name}: unknown queue property {what!r}; expected one of {known}")
                continue
            key, kind = spec
            if (queue, key) in out.lines:
                first = out.lines[(queue, key)][0]
                bad(line, f"{name}: queue {queue!r} already has its {key} from line {first}")
                continue
            converted = _convert(kind, value)
            if converted is not None:
                table[key] = converted
            out.lines[(queue, key)] = (value_line, name)
        elif rest in _DEFAULT_PROPS:
            key, kind = _DEFAULT_PROPS[rest]
            defaults[key] = (_convert(kind, value), value_line, name)
        elif rest not in IGNORED:
            bad(line, f"{name}: unknown capacity scheduler property")
    for queue, table in out.queues.items():
        for key, (val, line, name) in defaults.items():
            if key not in table and (queue, key) not in out.lines:
                table[key] = val
                out.lines[(queue, key)] = (line, name)
    return out
