"""The ``capacity`` plugin's configuration: ``[plugins.capacity]`` (or its ``config_file``, a
Hadoop ``capacity-scheduler.xml``) read and validated into :class:`CapacityConfig`, and the
guarantee arithmetic (:func:`slots_of`).  See :mod:`corescheduler_plugins.capacity`."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from attrs import evolve, field, frozen
from corescheduler_plugins._capacity_xml import CapacityXml, read_capacity_xml

from corescheduler.core.javamath import float_times, java_float
from corescheduler.core.model import KINDS, MAP, REDUCE
from corescheduler.settings import Settings

NAME = "capacity"
DEFAULT_QUEUE = "default"
#: Hadoop 0.19 ``CapacitySchedulerConf.DEFAULT_RECLAIM_TIME_LIMIT`` (seconds).
DEFAULT_RECLAIM_TIME = 300.0
#: Hadoop ``DEFAULT_MIN_USER_LIMIT_PERCENT``: no user limit.
DEFAULT_MIN_USER_LIMIT_PERCENT = 100.0
QUEUE_KEYS: tuple[str, ...] = (
    "capacity",
    "map_capacity",
    "reduce_capacity",
    "maximum_capacity",
    "minimum_user_limit_percent",
    "user_limit_factor",
    "supports_priority",
    "reclaim_time",
)
#: a queue's capacity of a kind while it is not configured (Hadoop's ``getCapacity`` answers -1);
#: :func:`read_config` replaces it by the queue's part of the remainder
UNSET = -1.0


# ============================================================================ config


@frozen
class QueueConfig:
    """One configured queue.  Capacities are percents of the cluster's slots."""

    name: str
    map_capacity: float
    reduce_capacity: float
    maximum_capacity: float | None = None
    minimum_user_limit_percent: float = DEFAULT_MIN_USER_LIMIT_PERCENT
    user_limit_factor: float | None = None
    supports_priority: bool = False
    reclaim_time: float = DEFAULT_RECLAIM_TIME

    def capacity(self, kind: str) -> float:
        """The guaranteed percent of ``kind`` slots (of memory for resource mode's ``resources``:
        the queue's ``capacity``)."""
        return self.reduce_capacity if kind == REDUCE else self.map_capacity


@frozen
class CapacityConfig:
    """The validated ``[plugins.capacity]`` table (or its ``config_file``)."""

    queues: Mapping[str, QueueConfig]
    reclaim_time: float = DEFAULT_RECLAIM_TIME
    #: Hadoop's ``mapred.capacity-scheduler.reclaimCapacity.interval`` (seconds), the reclaim
    #: thread's period: when set, a request's tasks are killed as 0.19's ``reclaimCapacity`` kills
    #: them (see :meth:`Reclaim.due`); None: at the request's deadline
    reclaim_interval: float | None = None
    source: str | None = field(default=None, eq=False)
    #: what the ``config_file`` reader took as Hadoop takes it, and said (``FILE:LINE: …``)
    warnings: tuple[str, ...] = field(default=(), eq=False)


def slots_of(percent: float, slots: float) -> int:
    """Hadoop's ``(int) (capacityPercent * numSlots / 100)`` with a ``float``
    percent, computed in single precision as Java does: 2.6 % of 1,500
    slots is 38 (2.6f × 1500 = 3899.9998f), not 39; 20 % of 10 is 2."""
    return int(java_float(float_times(percent, int(slots)) / 100.0))


def slots_for_one(percent: float) -> int | None:
    """The fewest cluster slots on which a queue of ``percent`` is guaranteed one
    (:func:`slots_of` ≥ 1), or None for a percent of 0 (never)."""
    if not percent > 0:
        return None
    slots = max(1, math.floor(100.0 / percent) - 2)  # float rounding can move it by a slot or two
    while slots > 1 and slots_of(percent, slots - 1) >= 1:
        slots -= 1
    while slots_of(percent, slots) < 1:
        slots += 1
    return slots


def zero_guarantee_warnings(config: CapacityConfig, nodes: int, per_node: Mapping[str, int]) -> list[str]:
    """A warning for each queue whose guarantee of a kind floors to 0 slots on a cluster of
    ``nodes`` nodes with ``per_node`` slots of each kind: Hadoop 0.19/0.20 never gives such a
    queue a task of that kind (its ``running / guarantee`` order and lending leave it out),
    so its jobs never start.  Each names the fewest slots (and nodes) on which it gets one."""
    warnings = []
    for name, queue in config.queues.items():
        for kind in KINDS:
            slots = nodes * per_node.get(kind, 0)
            percent = queue.capacity(kind)
            if slots_of(percent, slots) >= 1:
                continue
            head = (f"[plugins.capacity] queue {name!r}: a {kind} capacity of {percent:g}% of {slots} {kind} slots "
                    f"({nodes} nodes) floors to 0 (Hadoop's (int) (capacity × slots / 100)), so the queue is never "
                    f"given a {kind} slot and its jobs' {kind}s never run")
            least = slots_for_one(percent)
            if least is None:
                warnings.append(f"{head}, on any cluster")
            elif per_node.get(kind, 0) > 0:
                least_nodes = math.ceil(least / per_node[kind])
                warnings.append(f"{head}; it gets one from {least} {kind} slots: {least_nodes} nodes of "
                                f"{per_node[kind]} {kind} slots")
            else:
                warnings.append(f"{head}; it gets one from {least} {kind} slots (nodes here offer none)")
    return warnings


def _read_queue(
    name: str,
    table: Any,
    reclaim_default: float,
    report: Callable[[str, str | None, str], None],
    remainder: bool = True,
) -> QueueConfig | None:
    """One queue's table.  With ``remainder`` (slot mode, Hadoop 0.20/1.x) a queue without a
    capacity of a kind gets :data:`UNSET` for it, replaced by its part of what the other queues
    leave (:func:`_share_remainder`); without it (resource mode, YARN) the capacity is required."""
    if not isinstance(table, Mapping):
        report(name, None, f"expected a table of queue settings ({', '.join(QUEUE_KEYS)}), got {table!r}")
        return None
    qs = Settings(table, where=f"queue {name}")
    capacity = qs.number("capacity", None, minimum=0, maximum=100)
    map_capacity = qs.number("map_capacity", None, minimum=0, maximum=100)
    reduce_capacity = qs.number("reduce_capacity", None, minimum=0, maximum=100)
    maximum = qs.number("maximum_capacity", None, minimum=0, maximum=100, exclusive_minimum=True)
    user_limit = qs.number(
        "minimum_user_limit_percent", DEFAULT_MIN_USER_LIMIT_PERCENT, minimum=0, maximum=100, exclusive_minimum=True
    )
    factor = qs.number("user_limit_factor", None, minimum=0, exclusive_minimum=True)
    priority = qs.boolean("supports_priority", False)
    reclaim = qs.number("reclaim_time", reclaim_default, minimum=0)
    problems = list(qs.problems)
    for key in qs.unknown_keys():
        problems.append((key, f"unknown setting; a queue takes {', '.join(QUEUE_KEYS)}"))
    failed = {key for key, _ in problems}
    percents = {MAP: map_capacity if map_capacity is not None else capacity,
                REDUCE: reduce_capacity if reduce_capacity is not None else capacity}
    if "capacity" not in failed and any(v is None for v in percents.values()) and not remainder:
        if not failed & {"map_capacity", "reduce_capacity"}:
            problems.append(("capacity", "missing; expected the queue's guaranteed percent of the cluster's slots, "
                                         "0 to 100 (the queues' capacities add up to 100)"))
    if maximum is not None:
        for kind, pct in percents.items():
            if pct is not None and maximum < pct:
                which = "capacity" if (map_capacity is None and reduce_capacity is None) else f"{kind} capacity"
                problems.append(("maximum_capacity", f"must be ≥ the queue's {which} ({pct:g}), got {maximum:g}"))
                break
    for key, message in problems:
        report(name, key, message)
    if problems:
        return None
    return QueueConfig(
        name=name,
        map_capacity=UNSET if percents[MAP] is None else float(percents[MAP]),
        reduce_capacity=UNSET if percents[REDUCE] is None else float(percents[REDUCE]),
        maximum_capacity=None if maximum is None else float(maximum),
        minimum_user_limit_percent=float(user_limit),
        user_limit_factor=None if factor is None else float(factor),
        supports_priority=priority,
        reclaim_time=float(reclaim),
    )


def read_config(settings: Mapping[str, Any] | None, base_dir: str | Path | None = None,
                mode: str = "slots") -> CapacityConfig:
    """Validate a ``[plugins.capacity]`` table; ``config_file`` is taken
    relative to ``base_dir`` (the TOML file's folder).  Every problem is
    raised at once as a :class:`~corescheduler.errors.SettingsError`.

    In slot mode the capacities are Hadoop 0.20/1.x's (``CapacityTaskScheduler.start``):
    queues without one share what the others leave, and only a sum over 100 is refused.
    In resource mode (``mode = "resources"``) every queue needs a capacity and they add up
    to 100, as YARN's CapacityScheduler requires of a parent's children."""
    remainder = mode != "resources"
    s = Settings(settings, plugin=NAME)
    reclaim_time = float(s.number("reclaim_time", DEFAULT_RECLAIM_TIME, minimum=0))
    interval = s.number("reclaim_interval", None, minimum=0)
    config_file = s.string("config_file", None)
    raw: Mapping[str, Any] = s.table_("queues")
    xml: CapacityXml | None = None
    source = None
    if config_file is not None:
        path = Path(config_file)
        if not path.is_absolute() and base_dir is not None:
            path = Path(base_dir) / path
        source = str(path)
        if "queues" in s.table:
            s.problem("config_file", "give the queues either as [plugins.capacity.queues.<name>] tables or in "
                                     "config_file, not both")
        xml = read_capacity_xml(path)
        for problem in xml.problems:
            s.problem("config_file", problem)
        raw = xml.queues
        if not xml.queues and not xml.problems:
            s.problem("config_file", f"{source}: no queues; expected mapred.capacity-scheduler.queue.<queue>.capacity "
                                     "properties")

    def report(queue: str, key: str | None, message: str) -> None:
        if xml is not None:
            why = xml.defaulted.get((queue, key)) if key is not None else None
            if why is not None:  # Hadoop's default stands in for an unreadable value: say so
                message = f"{why}, and the default is no value: {message}"
            s.problem("config_file", f"{xml.where(queue, key)}: {message}")
        else:
            s.problem(f"queues.{queue}.{key}" if key else f"queues.{queue}", message)

    queues: dict[str, QueueConfig] = {}
    for name, table in raw.items():
        if not isinstance(name, str) or not name.strip():
            report(str(name), None, "a queue needs a non-empty name")
            continue
        # a capacity in the file that Java cannot read is not "unset": Hadoop 0.20/1.x
        # CapacitySchedulerConf.getCapacity reads -1 for it and refuses it (Illegal capacity)
        unreadable = xml is not None and (name, "capacity") in xml.defaulted
        queue = _read_queue(name, table, reclaim_time, report, remainder and not unreadable)
        if queue is not None:
            queues[name] = queue
    if not raw and xml is None and "queues" not in s.table:
        # Hadoop's out-of-the-box configuration: one queue, "default", with all of the cluster.
        queues[DEFAULT_QUEUE] = QueueConfig(DEFAULT_QUEUE, 100.0, 100.0, reclaim_time=reclaim_time)
    elif not raw and xml is None:
        s.problem("queues", "no queues; expected [plugins.capacity.queues.<name>] tables with a capacity each")
    if queues and len(queues) == len(raw):
        if remainder:
            queues = _share_remainder(s, queues, "config_file" if xml is not None else "queues", source)
        else:
            _check_sums(s, queues, "config_file" if xml is not None else "queues", source)
    s.finish()
    warnings = tuple(f"[plugins.capacity] config_file: {w}" for w in xml.warnings) if xml is not None else ()
    if interval is None and xml is not None:
        interval = xml.reclaim_interval
    return CapacityConfig(queues=queues, reclaim_time=reclaim_time, source=source, warnings=warnings,
                          reclaim_interval=None if interval is None else float(interval))


def _share_remainder(s: Settings, queues: dict[str, QueueConfig], key: str,
                     source: str | None) -> dict[str, QueueConfig]:
    """Hadoop 0.20/1.x ``CapacityTaskScheduler.start`` (and 0.19.1's, for
    ``guaranteed-capacity``): the capacities are summed in ``float``; a sum over 100 is refused
    ("Sum of queue capacities over 100%"); each queue without a capacity gets
    ``(100 - sum) / (queues without one)``, in ``float``.  A sum below 100 is taken: the slots no
    queue is guaranteed are only ever lent.  Per kind, since a queue may set ``map_capacity`` and
    ``reduce_capacity`` apart."""
    split = any(q.map_capacity != q.reduce_capacity for q in queues.values())
    shares: dict[str, float] = {}
    for kind in KINDS:
        total = 0.0
        unset = 0
        for q in queues.values():
            if q.capacity(kind) == UNSET:
                unset += 1
            else:
                total = java_float(total + q.capacity(kind))
        if total > 100.0:
            terms = " + ".join(f"{q.name} {q.capacity(kind):g}" for q in queues.values() if q.capacity(kind) != UNSET)
            what = f"{kind} capacities" if split else "queue capacities"
            where = f"{source}: " if source else ""
            s.problem(key, f"{where}{what} must add up to at most 100 (percent of the cluster's {kind} slots; "
                           f"Hadoop: \"Sum of queue capacities over 100%\"), got {total:g} = {terms}")
            if not split:
                break
        elif unset:
            shares[kind] = java_float(java_float(100.0 - total) / unset)
    if not shares:
        return queues
    filled = {}
    for name, q in queues.items():
        changes = {f"{kind}_capacity": shares[kind] for kind in shares if q.capacity(kind) == UNSET}
        filled[name] = evolve(q, **changes) if changes else q
    return filled


def _check_sums(s: Settings, queues: Mapping[str, QueueConfig], key: str, source: str | None) -> None:
    split = any(q.map_capacity != q.reduce_capacity for q in queues.values())
    for kind in KINDS:
        total = sum(q.capacity(kind) for q in queues.values())
        if abs(total - 100.0) > 1e-6:
            terms = " + ".join(f"{q.name} {q.capacity(kind):g}" for q in queues.values())
            what = f"{kind} capacities" if split else "queue capacities"
            where = f"{source}: " if source else ""
            s.problem(key, f"{where}{what} must add up to 100 (percent of the cluster's {kind} slots), "
                           f"got {total:g} = {terms}")
            if not split:
                return
