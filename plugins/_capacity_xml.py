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

The file is read as Hadoop 0.20/1.x read it (``Configuration.loadResource``,
``CapacitySchedulerConf``): what Hadoop takes is taken, and where Hadoop says
nothing a warning says it here (``warnings``): a root other than
``<configuration>`` (Hadoop logs it and reads on), an element other than
``<property>`` (read as one, as Hadoop does), a property without a name or a
value (ignored), a property given twice (the last wins), a name that is not a
capacity-scheduler property or not one this plugin reads (ignored), a number
Java does not parse (``CapacitySchedulerConf.getFloat``/``getInt`` catch the
NumberFormatException: the default), a ``supports-priority`` other than
true/false (``Boolean.parseBoolean``: false).  Numbers are read as Java reads
them (:mod:`corescheduler.core.javamath`): ``Float.parseFloat`` trims and takes
``50f``, ``5e1``; ``Integer.parseInt`` takes no spaces and no decimals.  What is
refused is refused by Hadoop too: XML that does not parse (``loadResource``
throws) and values ``CapacitySchedulerConf`` throws IllegalArgumentException
for (checked by the plugin: a capacity above 100, a maximum below the capacity,
a user limit outside 1..100).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from attrs import define, field
from lxml import etree

from corescheduler.core.javamath import parse_java_double, parse_java_int, parse_java_long

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
    property.  ``problems``: ``"FILE:LINE: message"`` for what Hadoop refuses
    too (the file cannot be read or parsed); ``warnings``: likewise, for what
    Hadoop takes (see the module docstring).
    """

    source: str
    queues: dict[str, dict[str, Any]] = field(factory=dict)
    lines: dict[tuple[str, str], tuple[int | None, str]] = field(factory=dict)
    queue_lines: dict[str, int | None] = field(factory=dict)
    problems: list[str] = field(factory=list)
    warnings: list[str] = field(factory=list)
    #: ``(queue, key)`` -> why Hadoop would use the default for the value the file gives
    defaulted: dict[tuple[str, str], str] = field(factory=dict)
    #: ``mapred.capacity-scheduler.reclaimCapacity.interval`` in seconds (0.19 ``conf.getLong``,
    #: default 5 there), if the file sets it
    reclaim_interval: float | None = None

    def where(self, queue: str, key: str | None = None) -> str:
        """``FILE:LINE: property`` of a queue's value (or ``FILE:LINE`` of the queue)."""
        if key is not None and (queue, key) in self.lines:
            line, prop = self.lines[(queue, key)]
        else:  # a missing value: the queue's first property
            line = self.queue_lines.get(queue)
            prop = f"{QUEUE_PREFIX}{queue}.{_PROPERTY_OF.get(key, key)}" if key else f"queue {queue!r}"
        return f"{self.source}:{line}: {prop}" if line else f"{self.source}: {prop}"


class _Default(Exception):
    """The value is not one Hadoop reads: Hadoop uses the default (the message says why)."""


def _convert(kind: str, text: str) -> Any:
    """A property value as ``CapacitySchedulerConf`` reads it, typed as the TOML reader
    would have it; ``None`` for a maximum capacity of 0 or less.  Raises :class:`_Default`
    where Hadoop falls back to the default."""
    if kind == "bool":
        # CapacitySchedulerConf.isPrioritySupported: Boolean.parseBoolean(raw)
        low = text.strip().lower()
        if low not in ("true", "false"):
            raise _Default(f"{text!r} read as false (Hadoop's Boolean.parseBoolean: only 'true' is true)")
        return low == "true"
    if kind == "int":
        try:  # CapacitySchedulerConf.getInt: Integer.parseInt(raw), NumberFormatException -> default
            return parse_java_int(text)
        except ValueError:
            raise _Default(f"{text!r} is not a Java int (Integer.parseInt: no spaces, no decimals); Hadoop's "
                           "CapacitySchedulerConf.getInt uses the default") from None
    try:  # CapacitySchedulerConf.getFloat: Float.parseFloat(raw), NumberFormatException -> default
        value = parse_java_double(text)
    except ValueError:
        raise _Default(f"{text!r} is not a number Java reads (Float.parseFloat); Hadoop's "
                       "CapacitySchedulerConf.getFloat uses the default") from None
    if value != value:  # NaN: no comparison of Hadoop's holds; refused by the validation (a number, got 'NaN')
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
        # Hadoop refuses too: Configuration.loadResource throws a RuntimeException
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
    def warn(line: int | None, message: str) -> None:
        out.warnings.append(f"{src}:{line}: {message}")

    if root.tag != "configuration":
        # Hadoop's Configuration.loadResource logs "bad conf file: top-level element not <configuration>"
        # and reads the properties all the same
        warn(root.sourceline, f"top-level element should be <configuration>, found <{root.tag}>; read all the same, "
                              "as Hadoop does")
    defaults: dict[str, Any] = {}
    seen: dict[str, int | None] = {}
    # the last definition of each property wins (Configuration.loadResource's properties.setProperty)
    props: dict[str, tuple[int | None, int | None, str]] = {}

    for prop in root:
        if not isinstance(prop.tag, str):
            continue
        line = prop.sourceline
        if prop.tag != "property":
            # loadResource logs "bad conf file: element not <property>" and reads its name and value
            warn(line, f"<{prop.tag}> where a <property> was expected; read as one, as Hadoop does")
        name_elem = prop.find("name")
        value_elem = prop.find("value")
        name = (_text(name_elem) or "").strip()
        value = _text(value_elem)
        if name_elem is not None:
            line = name_elem.sourceline
        if not name:  # loadResource: a property without both a name and a value is skipped
            warn(line, "<property> without a <name> ignored")
            continue
        if value is None:
            warn(line, f"{name}: <property> without a <value> ignored")
            continue
        if name in seen:
            warn(line, f"{name}: defined again (first at line {seen[name]}); this one is used, as in Hadoop")
            del props[name]
        seen[name] = line
        props[name] = (line, value_elem.sourceline if value_elem is not None else line, value)
    for name, (line, value_line, value) in props.items():
        if not name.startswith(PREFIX):
            warn(line, f"{name}: not a capacity scheduler property (names start {PREFIX!r}); ignored")
            continue
        rest = name[len(PREFIX) :]
        if name.startswith(QUEUE_PREFIX):
            queue, _, what = name[len(QUEUE_PREFIX) :].rpartition(".")
            if not queue:
                warn(line, f"{name}: not {QUEUE_PREFIX}<queue>.<property>; ignored")
                continue
            out.queue_lines.setdefault(queue, line)
            table = out.queues.setdefault(queue, {})
            if what in IGNORED_QUEUE_PROPS:
                continue
            spec = _QUEUE_PROPS.get(what)
            if spec is None:  # CapacitySchedulerConf reads only the properties it knows
                known = ", ".join(sorted(_QUEUE_PROPS))
                warn(line, f"{name}: unknown queue property {what!r} ignored; known: {known}")
                continue
            key, kind = spec
            if (queue, key) in out.lines:  # capacity (Hadoop 0.20+) and guaranteed-capacity (0.19) both
                first_line, first = out.lines[(queue, key)]
                keep_first = first.endswith(".capacity")
                kept, dropped = (first, name) if keep_first else (name, first)
                warn(line, f"{name}: queue {queue!r} already has its {key} from line {first_line}; using {kept} "
                           f"(Hadoop 0.20 reads capacity, 0.19 guaranteed-capacity), ignoring {dropped}")
                if keep_first:
                    continue
                table.pop(key, None)
            try:
                converted = _convert(kind, value)
            except _Default as why:
                warn(value_line, f"{name}: {why}")
                out.lines[(queue, key)] = (value_line, name)
                out.defaulted[(queue, key)] = str(why)
                continue
            if converted is not None:
                table[key] = converted
            out.lines[(queue, key)] = (value_line, name)
        elif rest in _DEFAULT_PROPS:
            key, kind = _DEFAULT_PROPS[rest]
            try:
                defaults[key] = (_convert(kind, value), value_line, name)
            except _Default as why:
                warn(value_line, f"{name}: {why}")
        elif rest == "reclaimCapacity.interval":
            try:  # CapacityTaskScheduler.start: conf.getLong(..., 5) seconds
                out.reclaim_interval = float(parse_java_long(value))
            except ValueError:
                out.reclaim_interval = 5.0
                warn(value_line, f"{name}: {value!r} is not a Java long (Long.parseLong); Hadoop's getLong uses "
                                 "the default, 5")
        elif rest not in IGNORED:
            warn(line, f"{name}: not a capacity scheduler property this plugin reads; ignored")
    for queue, table in out.queues.items():
        for key, (val, line, name) in defaults.items():
            if key not in table and ((queue, key) not in out.lines or (queue, key) in out.defaulted):
                # (a value Hadoop cannot read falls back to this default too: CapacitySchedulerConf.getInt)
                table[key] = val
                out.lines[(queue, key)] = (line, name)
                out.defaulted.pop((queue, key), None)
    return out
