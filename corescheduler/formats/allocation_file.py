"""Hadoop 1.x Fair Scheduler allocation files.

An allocation file is the XML file named by ``mapred.fairscheduler.allocation.file``.
It declares pools (minimum and maximum map/reduce slots, weight, running-job
limit, scheduling mode, min-share preemption timeout), per-user running-job
limits, and cluster-wide defaults.  This module reads it with :mod:`lxml` into
the frozen values of :mod:`corescheduler.core.allocations` and re-reads it when
it changes.

The element set and its semantics follow Hadoop 1.x: ``PoolManager.reloadAllocs()``
and ``PoolManager.reloadAllocsIfNecessary()`` in
``src/contrib/fairscheduler/src/java/org/apache/hadoop/mapred/PoolManager.java``,
and the "Allocation File" section of the Hadoop 1.x Fair Scheduler guide
(``docs/fair_scheduler.html``).  Numbers are read as ``reloadAllocs`` reads them
(``Integer.parseInt``, ``Long.parseLong``, ``Double.parseDouble`` of the trimmed
text: :mod:`corescheduler.core.javamath`), so a file Hadoop refuses is refused
and one it takes is taken.  Differences from Hadoop: a bad value is reported as
``FILE:LINE: ...`` (Hadoop throws a bare ``NumberFormatException``) with every
other problem of the file; a weight of NaN or beyond a double is refused
(Hadoop's shares would be NaN); what Hadoop takes but likely is a slip (a
negative number, a pool declared twice, a pool without a name) is taken as
Hadoop takes it, with a warning.

Parsing is table driven: ``_TOP_LEVEL``, ``_POOL_FIELDS`` and ``_USER_FIELDS``
map an element name to its handler, so the YARN dialect (nested ``<queue>``,
``minResources``, ``schedulingPolicy``, ...) can be added as more entries.
Until then its elements are reported as unknown and ignored.
"""

from __future__ import annotations

import logging
import math
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

import attrs
from lxml import etree

from corescheduler.core.allocations import (
    DEFAULT_POOL,
    INF,
    KINDS,
    SCHEDULING_MODES,
    Allocations,
    PoolSpec,
    UserSpec,
)
from corescheduler.core.javamath import java_trim, parse_java_double, parse_java_int, parse_java_long
from corescheduler.core.queues import PlacementRuleSpec
from corescheduler.errors import AllocationError
from corescheduler.formats.yarn_allocation_file import YARN_ONLY_ELEMENTS, parse_queue_config

__all__ = [
    "DEFAULT_POOL",
    "INF",
    "KINDS",
    "SCHEDULING_MODES",
    "AllocationFileLoader",
    "Allocations",
    "PoolSpec",
    "UserSpec",
    "load_allocations",
    "parse_allocations",
    "parse_pool",
]

log = logging.getLogger(__name__)


def parse_allocations(text: str | bytes, source: str = "<allocations>") -> Allocations:
    """Parse allocation-file text; ``source`` names it in messages.

    Raises :class:`AllocationError` ``"SOURCE:LINE: ..."``: for text that is
    not well-formed XML, a root other than ``<allocations>``, or bad values
    (every bad value of the file is reported: joined by "; " in the message, one by
    one in its ``problems``).
    """
    root = _parse_xml(text, source)
    ctx = _Context(source)
    if root.tag == "configuration":
        from corescheduler.formats.capacity_scheduler_allocations import capacity_allocations
        from corescheduler.formats.hadoop_configuration import is_yarn_capacity, read_configuration

        notes: list[str] = []
        props = read_configuration(root, source, notes)
        if is_yarn_capacity(props):  # told by its keys (yarn.scheduler.capacity.), not its root
            return capacity_allocations(props, source, notes)
    if root.tag != "allocations":
        # Hadoop refuses too: PoolManager.reloadAllocs throws AllocationConfigurationException
        # ("Bad allocations file: top-level element not <allocations>")
        ctx.error(root, f"top-level element must be <allocations>, found <{root.tag}>")
        ctx.raise_errors()
    if any(isinstance(e.tag, str) and e.tag in YARN_ONLY_ELEMENTS for e in root.iter()):
        return _yarn_allocations(root, source)
    values: dict[str, Any] = {"pools": {}, "users": {}}
    _read_children(ctx, root, _TOP_LEVEL, values, None)
    ctx.raise_errors()
    values["default_mode_given"] = "default_pool_scheduling_mode" in values
    return Allocations(source=source, warnings=tuple(ctx.warnings), **values)

def _yarn_allocations(root: etree._Element, source: str) -> Allocations:
    """A YARN file: its queue tree, and for slot mode its leaves directly under
    ``root`` as MR1 pools (weight, ``maxRunningApps``, fair/fifo, timeout)."""
    queues, warnings = parse_queue_config(root, source)
    pools = {}
    for full in queues.children("root"):
        spec = queues.spec(full)
        if not spec.is_leaf or spec.children:
            continue
        policy = spec.scheduling_policy
        pools[spec.short_name] = PoolSpec(
            spec.short_name,
            max_running_jobs=spec.max_running_apps,
            weight=spec.weight if spec.weight is not None else 1.0,
            scheduling_mode=policy if policy in SCHEDULING_MODES else None,
            min_share_preemption_timeout=spec.min_share_preemption_timeout,
            line=spec.line,
        )
    users = {name: UserSpec(name, max_running_jobs=limit) for name, limit in queues.user_max_apps.items()}

    def limit(value: int) -> float:
        return INF if value >= 2**31 - 1 else float(value)

    return Allocations(
        pools=pools,
        users=users,
        user_max_jobs_default=limit(queues.user_max_apps_default),
        pool_max_jobs_default=limit(queues.queue_max_apps_default),
        default_min_share_preemption_timeout=queues.default_min_share_preemption_timeout,
        fair_share_preemption_timeout=queues.default_fair_share_preemption_timeout,
        source=source,
        warnings=tuple(warnings),
        queues=queues,
        dialect="yarn",
    )


def load_allocations(path: str | os.PathLike[str]) -> Allocations:
    """Read and parse the allocation file at ``path`` (named ``str(path)`` in messages)."""
    source = str(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise AllocationError(f"cannot read allocation file: {exc.strerror or exc}", source) from exc
    return parse_allocations(data, source)


def parse_pool(elem: etree._Element, source: str = "<allocations>", *, warnings: list[str] | None = None) -> PoolSpec:
    """Build a spec from a ``<pool name="...">`` element of file ``source``.

    Raises :class:`AllocationError` (all problems of the pool, joined by "; ")
    at the line of the first bad element.  Warnings (unknown children,
    ``maxMaps`` below ``minMaps``) are appended to ``warnings`` if given,
    else logged.
    """
    ctx = _Context(source)
    if elem.tag != "pool":
        ctx.error(elem, f"expected a <pool> element, found <{elem.tag}>")
        spec = None
    else:
        spec = _parse_pool(ctx, elem)
    if warnings is not None:
        warnings.extend(ctx.warnings)
    else:
        for warning in ctx.warnings:
            log.warning("%s", warning)
    ctx.raise_errors()
    assert spec is not None
    return spec


class AllocationFileLoader:
    """Keeps the allocations of one file, re-reading it when it changes.

    Hadoop 1.x ``PoolManager.reloadAllocsIfNecessary()``: look at the file at
    most every ``RELOAD_INTERVAL`` (``ALLOC_RELOAD_INTERVAL``) seconds; reload it
    if it was modified since the last successful load and is at least
    ``RELOAD_WAIT`` (``ALLOC_RELOAD_WAIT``) seconds old, so that a file still
    being written is not read.  A bad or missing file keeps the last good
    allocations and is reported in ``last_error``.

    ``mtime`` returns a file's modification time; ``now`` passed to
    :meth:`reload_if_necessary` must be on the same clock (default
    ``os.path.getmtime``, i.e. wall-clock seconds).  The initial load counts as
    a successful load at the file's modification time (read before the file),
    so any later change is picked up.  If ``initial`` is given, the file is not
    read now but at the first check.
    """

    RELOAD_INTERVAL = 10.0
    RELOAD_WAIT = 5.0

    current: Allocations  #: the allocations of the last successful load
    last_error: AllocationError | None  #: why the last attempt failed; None after a success
    last_attempt: float  #: ``now`` of the last check (Hadoop's lastReloadAttempt)
    last_successful_reload: float  #: Hadoop's lastSuccessfulReload, on the ``mtime`` clock

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        mtime: Callable[[str], float] | None = None,
        initial: Allocations | None = None,
    ) -> None:
        self.path = str(path)
        self._mtime = mtime if mtime is not None else os.path.getmtime
        self.last_error = None
        self.last_successful_reload = -INF
        if initial is None:
            self.current = self.force_reload()
        else:
            self.current = initial
        self.last_attempt = self.last_successful_reload

    def reload_if_necessary(self, now: float) -> bool:
        """Reload if due (see the class docstring); True if new allocations were loaded.

        Never raises: a failed reload keeps ``current``, sets ``last_error`` and
        returns False; it is retried at the next check.  As in Hadoop, only the
        first of a run of failures is logged.
        """
        if now <= self.last_attempt + self.RELOAD_INTERVAL:
            return False
        self.last_attempt = now
        try:
            modified = self._mtime(self.path)
            if not (modified > self.last_successful_reload and now > modified + self.RELOAD_WAIT):
                return False
            allocations = load_allocations(self.path)
        except Exception as exc:
            error = _as_allocation_error(exc, self.path)
            if self.last_error is None:
                log.error("failed to reload allocation file, keeping the last good allocations: %s", error)
            self.last_error = error
            return False
        self.current = allocations
        self.last_successful_reload = now
        self.last_error = None
        return True

    def force_reload(self) -> Allocations:
        """Read the file now, whatever the timers say, and make it ``current``.

        Raises :class:`AllocationError` (also kept in ``last_error``) and keeps
        ``current`` if the file is missing or bad.
        """
        try:
            modified = self._mtime(self.path)  # before reading: a change while reading is seen later
            allocations = load_allocations(self.path)
        except Exception as exc:
            error = self.last_error = _as_allocation_error(exc, self.path)
            if error is exc:
                raise
            raise error from exc
        self.current = allocations
        self.last_successful_reload = max(self.last_successful_reload, modified)
        self.last_error = None
        return allocations


def _as_allocation_error(exc: Exception, path: str) -> AllocationError:
    """``exc`` itself if an AllocationError, else one for ``path`` saying why it could not be read."""
    if isinstance(exc, AllocationError):
        return exc
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else f"{type(exc).__name__}: {exc}"
    error = AllocationError(f"cannot read allocation file: {reason}", path)
    error.__cause__ = exc
    return error


# --------------------------------------------------------------------------- parsing


class _Context:
    """Problems found while parsing one file: warnings (strings) and errors."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.warnings: list[str] = []
        self.errors: list[AllocationError] = []

    def warn(self, elem: etree._Element, message: str) -> None:
        self.warnings.append(f"{self.source}:{elem.sourceline}: {message}")

    def error(self, elem: etree._Element, message: str) -> None:
        self.errors.append(AllocationError(message, self.source, elem.sourceline))

    def raise_errors(self) -> None:
        """Raise all errors as one AllocationError at the first error's line (its message
        joins them, for one-line reports; ``problems`` keeps each, for ``check``)."""
        if self.errors:
            first, *rest = self.errors
            message = "; ".join([first.message, *map(str, rest)])
            problems = [(e.line, e.message) for e in self.errors]
            raise AllocationError(message, first.source, first.line, problems=problems)


# Who owns an element: None (top level) or (kind, name), e.g. ("pool", "poolA").
_Owner = tuple[str, str] | None
# A handler reads one element into ``target`` (keyword arguments of the value being built).
_Handler = Callable[[_Context, etree._Element, dict[str, Any], _Owner], None]

_ENCODING_DECL_RE = re.compile(r"""^(\s*<\?xml[^>]*?\bencoding\s*=\s*)(["'])[^"']*\2""")
_POSITION_RE = re.compile(r", line \d+, column \d+$")
# Elements of the YARN dialect, not supported yet: named in the "unknown element" warning.
_YARN_ELEMENTS = frozenset(
    {
        "queue",
        "minResources",
        "maxResources",
        "maxRunningApps",
        "maxAMShare",
        "schedulingPolicy",
        "aclSubmitApps",
        "aclAdministerApps",
        "queuePlacementPolicy",
        "queueMaxAppsDefault",
        "userMaxAppsDefault",
        "defaultQueueSchedulingPolicy",
        "queueMaxAMShareDefault",
        "defaultFairSharePreemptionTimeout",
        "defaultFairSharePreemptionThreshold",
    }
)


def _parse_xml(text: str | bytes, source: str) -> etree._Element:
    """Parse ``text`` (comments and processing instructions dropped) to its root element."""
    parser = etree.XMLParser(remove_comments=True, remove_pis=True, no_network=True)
    try:
        if isinstance(text, str):
            try:
                return etree.fromstring(text, parser)
            except ValueError:  # a str with an encoding declaration: it is already decoded
                text = _ENCODING_DECL_RE.sub(r'\1"UTF-8"', text, count=1).encode("utf-8")
        return etree.fromstring(text, parser)
    except etree.XMLSyntaxError as exc:  # Hadoop refuses too: DocumentBuilder.parse throws SAXException
        reason = _POSITION_RE.sub("", exc.msg or str(exc))
        column = f" (column {exc.offset})" if exc.offset else ""
        raise AllocationError(f"not well-formed XML: {reason}{column}", source, exc.lineno or None) from exc


def _in(owner: _Owner) -> str:
    return f" in {owner[0]} {owner[1]!r}" if owner else ""


def _read_children(
    ctx: _Context, elem: etree._Element, table: Mapping[str, _Handler], target: dict[str, Any], owner: _Owner
) -> None:
    """Dispatch each child element of ``elem`` to its handler in ``table``; warn about the rest."""
    for child in elem:
        if not isinstance(child.tag, str):  # an entity reference or the like
            continue
        handler = table.get(child.tag)
        if handler is not None:
            handler(ctx, child, target, owner)
            continue
        where = f' in <{owner[0]} name="{owner[1]}">' if owner else ""
        hint = " (the YARN allocation-file dialect is not supported)" if child.tag in _YARN_ELEMENTS else ""
        ctx.warn(child, f"unknown element <{child.tag}>{where} ignored{hint}")


def _text(ctx: _Context, elem: etree._Element, owner: _Owner) -> str | None:
    """The text of a value element, trimmed as Java's ``String.trim`` (``reloadAllocs``:
    ``((Text) field.getFirstChild()).getData().trim()``), or None (error recorded) if it has
    child elements."""
    for child in elem:
        if isinstance(child.tag, str):
            # Hadoop refuses too: the cast to Text throws ClassCastException (PoolManager.reloadAllocs)
            ctx.error(child, f"<{elem.tag}>{_in(owner)} must contain only text, found <{child.tag}>")
            return None
    # an empty element is Hadoop's NullPointerException (getFirstChild() is null): refused below,
    # as no parser takes ""
    return java_trim("".join(elem.itertext()))


class _Warned:
    """A value taken as Hadoop takes it, with a warning saying how."""

    def __init__(self, value: Any, message: str) -> None:
        self.value = value
        self.message = message


def _value(attr: str, parse: Callable[[str], Any], expected: str) -> _Handler:
    """A handler storing the parsed text of the element as ``target[attr]``.

    ``parse`` raises ValueError for a bad value; the error then says
    ``<tag> in pool 'p' must be EXPECTED, got 'TEXT'``.  A repeated element
    replaces the earlier one, as in Hadoop, with a warning.
    """

    def handle(ctx: _Context, elem: etree._Element, target: dict[str, Any], owner: _Owner) -> None:
        text = _text(ctx, elem, owner)
        if text is None:
            return
        try:
            value = parse(text)
        except ValueError:
            # Hadoop refuses too: Integer.parseInt / Long.parseLong / Double.parseDouble throw
            # NumberFormatException, parseSchedulingMode AllocationConfigurationException
            # (PoolManager.reloadAllocs); a weight of NaN or Infinity is refused on purpose
            ctx.error(elem, f"<{elem.tag}>{_in(owner)} must be {expected}, got {text!r}")
            return
        if isinstance(value, _Warned):
            ctx.warn(elem, f"<{elem.tag}>{_in(owner)}: {value.message}")
            value = value.value
        if attr in target:
            ctx.warn(elem, f"<{elem.tag}>{_in(owner)} given more than once; using this one")
        target[attr] = value

    return handle


def _count(text: str) -> int | _Warned:
    """``Integer.parseInt`` (minMaps, maxMaps, maxRunningJobs, ...); Hadoop takes a negative
    count, which its comparisons treat as 0 (a min share of none, a limit nothing is under)."""
    value = parse_java_int(text)
    if value < 0:
        return _Warned(0, f"a negative count ({value}) acts as 0 in Hadoop; read as 0")
    return value


def _weight(text: str) -> float | _Warned:
    """``Double.parseDouble``; NaN and ±Infinity refused (Hadoop's shares would be NaN)."""
    value = parse_java_double(text)
    if not math.isfinite(value):
        raise ValueError(text)
    if value < 0:
        # Hadoop takes it; its fair-share search raises each share to at least the min share,
        # so a negative weight gets what weight 0 gets
        return _Warned(0.0, f"a negative weight ({text}) gets what weight 0 gets in Hadoop; read as 0")
    return value


def _seconds(text: str) -> float | _Warned:
    """``Long.parseLong(text) * 1000L``: whole seconds (a decimal is NumberFormatException)."""
    value = parse_java_long(text)
    if value < 0:
        return _Warned(0.0, f"a negative timeout ({value}) acts as 0 in Hadoop; read as 0")
    return float(value)


def _scheduling_mode(text: str) -> str:
    mode = text.lower()  # Hadoop's parseSchedulingMode lower-cases too
    if mode not in SCHEDULING_MODES:
        raise ValueError(text)
    return mode


_COUNT = (_count, "a non-negative integer")
_SECONDS = (_seconds, "a non-negative whole number of seconds")
_WEIGHT = (_weight, "a non-negative number")
_MODE = (_scheduling_mode, "'fair' or 'fifo'")

_POOL_FIELDS: dict[str, _Handler] = {
    "minMaps": _value("min_maps", *_COUNT),
    "minReduces": _value("min_reduces", *_COUNT),
    "maxMaps": _value("max_maps", *_COUNT),
    "maxReduces": _value("max_reduces", *_COUNT),
    "maxRunningJobs": _value("max_running_jobs", *_COUNT),
    # PoolManager.reloadAllocs reads any double; the share search rescales huge weights
    "weight": _value("weight", *_WEIGHT),
    "schedulingMode": _value("scheduling_mode", *_MODE),
    "minSharePreemptionTimeout": _value("min_share_preemption_timeout", *_SECONDS),
}

_USER_FIELDS: dict[str, _Handler] = {
    "maxRunningJobs": _value("max_running_jobs", *_COUNT),
}


def _name(ctx: _Context, elem: etree._Element) -> str | None:
    name = (elem.get("name") or "").strip()
    if not name:
        # Hadoop keeps settings for the pool or user "" (getAttribute's empty string), which no
        # job names: ignored, and said
        ctx.warn(elem, f'<{elem.tag}> without a name attribute ignored (e.g. <{elem.tag} name="...">)')
        return None
    return name


def _parse_pool(ctx: _Context, elem: etree._Element, fields: dict[str, Any] | None = None) -> PoolSpec | None:
    """The pool's spec; ``fields`` (if given) receives the settings the element gives."""
    name = _name(ctx, elem)
    if name is None:
        return None
    fields = {} if fields is None else fields
    _read_children(ctx, elem, _POOL_FIELDS, fields, ("pool", name))
    spec = PoolSpec(name, line=elem.sourceline, **fields)
    limits = [
        ("minMaps", spec.min_maps, "maxMaps", spec.max_maps),
        ("minReduces", spec.min_reduces, "maxReduces", spec.max_reduces),
    ]
    for low, low_value, high, high_value in limits:
        if high_value is not None and high_value < low_value:  # Hadoop logs this and goes on
            ctx.warn(elem, f"pool {name!r} has {high} {high_value} less than {low} {low_value}")
    return spec


def _parse_user(ctx: _Context, elem: etree._Element, fields: dict[str, Any] | None = None) -> UserSpec | None:
    name = _name(ctx, elem)
    if name is None:
        return None
    fields = {} if fields is None else fields
    _read_children(ctx, elem, _USER_FIELDS, fields, ("user", name))
    return UserSpec(name, line=elem.sourceline, **fields)


def _section(key: str, parse: Callable[[_Context, etree._Element, dict[str, Any]], Any]) -> _Handler:
    """A handler adding a named spec (pool, user) to ``target[key]``.  A repeated name is merged
    into the first, as ``PoolManager.reloadAllocs`` does (one map per setting, keyed by name:
    what the second sets wins, the rest stays), with a warning."""

    def handle(ctx: _Context, elem: etree._Element, target: dict[str, Any], owner: _Owner) -> None:
        given: dict[str, Any] = {}
        spec = parse(ctx, elem, given)
        if spec is None:
            return
        specs = target[key]
        first = specs.get(spec.name)
        if first is None:
            specs[spec.name] = spec
            return
        ctx.warn(elem, f"<{elem.tag}> {spec.name!r} declared again (first at line {first.line}); merged into it, "
                       "settings given here winning, as Hadoop does")
        specs[spec.name] = attrs.evolve(first, **given)

    return handle


#: ``PoolPlacementPolicy.ruleClasses`` (Hadoop branch-1): an element's tag names its rule.  When a
#: rule is terminal (``isTerminal``): "never" (specified), "create" (only with create true: user,
#: primaryGroup, and -- unlike YARN's -- default), "always" (reject)
_POOL_RULES = {"user": "create", "primaryGroup": "create", "specified": "never", "default": "create",
               "reject": "always"}


def _pool_placement(ctx: _Context, elem: etree._Element, target: dict[str, Any], owner: _Owner) -> None:
    """``<poolPlacementPolicy>`` (``PoolPlacementPolicy.fromXml`` and its constructor): each child
    element is a rule named by its tag, ``create`` read by ``Boolean.parseBoolean`` (other
    attributes ignored).  Refused as Hadoop refuses (AllocationConfigurationException; an empty
    policy is its IndexOutOfBoundsException): an unknown rule, a terminal rule before the last,
    a last rule that may pass the job on."""
    rules: list[PlacementRuleSpec] = []
    for child in elem:
        if not isinstance(child.tag, str):
            continue
        if child.tag not in _POOL_RULES:
            ctx.error(child, f"<poolPlacementPolicy>: No rule class found for {child.tag} (rules: "
                             f"{', '.join(_POOL_RULES)})")
            return
        value = child.get("create")  # absent: true; else Boolean.parseBoolean ("" is false)
        create = value is None or value.lower() == "true"
        rules.append(PlacementRuleSpec(child.tag, create=create, line=child.sourceline))
    if not rules:
        ctx.error(elem, "<poolPlacementPolicy> has no rule; expected rules such as <specified/> <default/>")
        return

    def terminal(rule: PlacementRuleSpec) -> bool:
        kind = _POOL_RULES[rule.name]
        return kind == "always" or (kind == "create" and rule.create)

    for i, rule in enumerate(rules[:-1]):
        if terminal(rule):
            ctx.error(elem, f"<poolPlacementPolicy>: Rules after rule {i} in pool placement policy can never be "
                            f"reached (<{rule.name}> always places the job)")
            return
    if not terminal(rules[-1]):
        ctx.error(elem, "<poolPlacementPolicy>: Could get past last pool placement rule without assigning (end "
                        "with <default/>, <reject/>, or <user/> or <primaryGroup/> with create true)")
        return
    if "pool_placement" in target:
        ctx.warn(elem, "<poolPlacementPolicy> given more than once; using this one, as Hadoop does")
    target["pool_placement"] = tuple(rules)


_TOP_LEVEL: dict[str, _Handler] = {
    "poolPlacementPolicy": _pool_placement,
    "pool": _section("pools", _parse_pool),
    "user": _section("users", _parse_user),
    "userMaxJobsDefault": _value("user_max_jobs_default", *_COUNT),
    "poolMaxJobsDefault": _value("pool_max_jobs_default", *_COUNT),
    "defaultMinSharePreemptionTimeout": _value("default_min_share_preemption_timeout", *_SECONDS),
    "fairSharePreemptionTimeout": _value("fair_share_preemption_timeout", *_SECONDS),
    "defaultPoolSchedulingMode": _value("default_pool_scheduling_mode", *_MODE),
}
