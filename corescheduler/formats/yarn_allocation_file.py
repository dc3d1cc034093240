"""YARN Fair Scheduler allocation files (``fair-scheduler.xml``).

Nested ``<queue>`` elements (``<pool>`` is an alias), resources as YARN's
strings, ``maxRunningApps``, ``maxAMShare``, ``schedulingPolicy``,
preemption settings, ACLs, ``reservation``, per-user limits, file-wide
defaults and ``<queuePlacementPolicy>``.  Read with :mod:`lxml` into
:class:`~corescheduler.core.queues.QueueConfig`; which dialect a file is in
is decided by :func:`corescheduler.formats.allocation_file.parse_allocations`.

Element set, defaults and messages: YARN trunk's
``allocation/AllocationFileParser``, ``allocation/AllocationFileQueueParser``,
``QueuePlacementPolicy.fromXml`` and ``FairSchedulerConfiguration
.parseResourceConfigValue``; numbers as Java parses them
(:mod:`corescheduler.core.javamath`).  Every error carries the file and line,
and each refusal in the code cites the Hadoop method that refuses too
(docs/yarn.md, "Which Hadoop each rule follows").  Differences from YARN:

* all problems of a file are reported together (YARN stops at the first), and
  a bad number names the element and queue (YARN throws a bare exception);
* ``maxAMShare`` on a parent queue loads with a warning, as in Hadoop 2.x-3.1
  (trunk refuses it), and is dropped: no parent queue reads it;
* refused on purpose although Java reads them: ``NaN`` anywhere, and a
  ``<weight>`` beyond a Java float (YARN's Infinity); any finite weight is taken
  (the fair-share search rescales huge weights so shares stay within the
  cluster, where YARN's would pass it);
* a ``fifo`` parent queue and a ``drf`` queue under a ``fair`` parent are errors
  at load (YARN refuses to apply those policies when it loads the file, logs
  it and keeps the earlier ones);
* taken as YARN takes them, with a warning: negative counts, weights and
  timeouts (as 0), a negative ``maxAMShare`` other than -1 (no AM runs),
  ``allowPreemptionFrom`` other than true/false (false), a
  percentage in ``minResources`` or ``maxContainerAllocation`` (none), a queue
  declared twice (merged), ``ROOT`` for the root queue (read as ``root``;
  YARN keeps the spelling and builds ``ROOT.x`` beside the real root), a
  ``<user>`` without a name (ignored), unknown elements (ignored);
* a ``<queuePlacementPolicy>`` with no ``<rule>`` is a warning and no policy
  (YARN silently keeps the previous rules);
* a ``<queue>`` without a ``name`` says so (YARN reports an empty name).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import attrs
from lxml import etree

from corescheduler.core.javamath import java_float, java_trim, parse_java_double, parse_java_int, parse_java_long
from corescheduler.core.queues import (
    PLACEMENT_RULES,
    ROOT,
    AccessControlList,
    PlacementRuleSpec,
    QueueConfig,
    QueueSpec,
    trim_queue_name,
)
from corescheduler.errors import AllocationError, ResourceParseError
from corescheduler.resources import ConfigurableResources, Resources, parse_configurable

__all__ = ["YARN_ONLY_ELEMENTS", "parse_queue_config"]

#: Elements only the YARN dialect has: one of them anywhere makes a file YARN's.
YARN_ONLY_ELEMENTS = frozenset(
    {
        "queue",
        "minResources",
        "maxResources",
        "maxChildResources",
        "maxContainerAllocation",
        "maxRunningApps",
        "maxAMShare",
        "schedulingPolicy",
        "allowPreemptionFrom",
        "fairSharePreemptionThreshold",
        "aclSubmitApps",
        "aclAdministerApps",
        "reservation",
        "queuePlacementPolicy",
        "queueMaxAppsDefault",
        "userMaxAppsDefault",
        "queueMaxResourcesDefault",
        "queueMaxAMShareDefault",
        "defaultQueueSchedulingPolicy",
        "defaultQueueSchedulingMode",
        "defaultFairSharePreemptionTimeout",
        "defaultFairSharePreemptionThreshold",
    }
)
#: MR1 elements: ignored (with a warning) in a YARN file.
_MR1_ONLY = frozenset(
    {"minMaps", "minReduces", "maxMaps", "maxReduces", "maxRunningJobs", "userMaxJobsDefault", "poolMaxJobsDefault",
     "defaultPoolSchedulingMode"}
)
_RESERVATION_SYSTEM = frozenset({"reservation-agent", "reservation-policy", "reservation-planner"})
_BUILTIN_POLICIES = ("fair", "fifo", "drf")
_POLICY_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")

class _Problems:
    def __init__(self, source: str) -> None:
        self.source = source
        self.errors: list[tuple[int | None, str]] = []
        self.warnings: list[str] = []

    def error(self, elem: Any, message: str) -> None:
        self.errors.append((getattr(elem, "sourceline", None), message))

    def warn(self, elem: Any, message: str) -> None:
        self.warnings.append(f"{self.source}:{getattr(elem, 'sourceline', '?')}: {message}")

    def raise_errors(self) -> None:
        if self.errors:
            line, first = self.errors[0]
            rest = [f"{self.source}:{ln}: {m}" if ln is not None else m for ln, m in self.errors[1:]]
            raise AllocationError("; ".join([first, *rest]), self.source, line, problems=self.errors)


def _text(p: _Problems, elem: etree._Element, where: str, *, raw: bool = False) -> str | None:
    """The element's text (Java-trimmed, as YARN's ``getTrimmedTextData``, unless ``raw``);
    an error for child elements or no text."""
    for child in elem:
        if isinstance(child.tag, str):
            # YARN refuses too: getTrimmedTextData's ``(Text) element.getFirstChild()`` throws
            # ClassCastException (AllocationFileQueueParser / AllocationFileParser)
            p.error(child, f"<{elem.tag}>{where} must contain only text, found <{child.tag}>")
            return None
    text = "".join(elem.itertext())
    if not text:
        # YARN refuses too: ``element.getFirstChild()`` is null, a NullPointerException
        p.error(elem, f"<{elem.tag}>{where} is empty")
        return None
    return text if raw else java_trim(text)


@attrs.frozen
class _Warned:
    """A value read with a warning: what the file says is taken as YARN takes it, and said."""

    value: Any
    message: str


def _count(text: str) -> int | _Warned:
    """``Integer.parseInt`` (AllocationFileQueueParser.loadQueue ``maxRunningApps``;
    AllocationFileParser ``userMaxAppsDefault``, ``queueMaxAppsDefault``, a user's
    ``maxRunningApps``): a bad or out-of-range number is YARN's NumberFormatException."""
    value = parse_java_int(text)
    if value < 0:
        # YARN takes it; MaxRunningAppsEnforcer compares ``running >= limit``, so no app runs: as 0
        return _Warned(0, f"a negative limit ({value}) lets no app run, as in YARN; read as 0")
    return value


def _nan_refused(value: float, text: str) -> float:
    if math.isnan(value):
        # deliberate: Java reads NaN, and YARN's share arithmetic then yields NaN everywhere
        raise ValueError(text)
    return value


def _weight(text: str) -> float | _Warned:
    """``weight``: ``(float) Double.parseDouble`` (AllocationFileQueueParser.loadQueue)."""
    value = _nan_refused(parse_java_double(text), text)
    if value < 0:
        # YARN takes it; ComputeFairShares.computeShare raises a share to at least the min
        # share, so a negative weight gets what weight 0 gets
        return _Warned(0.0, f"a negative weight ({text}) gets what weight 0 gets in YARN; read as 0")
    return value


def _seconds(text: str) -> float | _Warned:
    """Preemption timeouts: ``Long.parseLong(text) * 1000L`` (AllocationFileQueueParser.loadQueue,
    AllocationFileParser): whole seconds; a decimal is YARN's NumberFormatException."""
    value = parse_java_long(text)
    if value < 0:
        # YARN takes it: the queue counts as starved at once, as with 0
        return _Warned(0.0, f"a negative timeout ({value}) acts as 0 in YARN; read as 0")
    return float(value)


def _fraction(text: str) -> float:
    """``Math.max(Math.min(Float.parseFloat(text), 1.0f), 0.0f)``: clamped to [0, 1]
    (``defaultFairSharePreemptionThreshold``, ``fairSharePreemptionThreshold``)."""
    return min(max(_nan_refused(parse_java_double(text), text), 0.0), 1.0)


def _am_share(text: str) -> float | _Warned:
    """``maxAMShare``: ``Math.min(Float.parseFloat(text), 1.0f)``.  -1 turns the AM limit off
    (``FSLeafQueue.canRunAppAM``: within 0.0001 of -1); any other negative share is taken, as
    YARN takes it, with a warning: its limit (``computeMaxAMResource``, ``multiplyAndRoundUp``)
    is negative, so no AM runs in the queue."""
    value = min(_nan_refused(parse_java_double(text), text), 1.0)
    if value < 0 and abs(value - (-1.0)) >= 0.0001:
        return _Warned(value, f"a negative share ({text}) other than -1 lets no AM run in the queue, as in YARN "
                              "(FSLeafQueue.canRunAppAM); -1 turns the AM limit off")
    return value


def _boolean(text: str) -> bool | _Warned:
    """``allowPreemptionFrom``: ``Boolean.parseBoolean`` — ``true`` in any case, anything else false."""
    lowered = text.lower()
    if lowered not in ("true", "false"):
        return _Warned(False, f"{text!r} read as false (YARN's Boolean.parseBoolean: only 'true' is true)")
    return lowered == "true"


#: ``SchedulingPolicy.parse`` takes YARN's own policy classes by name too (``Class.forName``;
#: ``TestSchedulingPolicy.testParseSchedulingPolicy``): the built-in policy each one is
_POLICY_CLASSES = {
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.FairSharePolicy": "fair",
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.DominantResourceFairnessPolicy": "drf",
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.FifoPolicy": "fifo",
}


def _policy(text: str) -> str:
    """``SchedulingPolicy.parse``: fair, fifo, drf in any case, or YARN's class of one of them
    (``…fair.policies.FairSharePolicy``, case as written); any other name is a SharePolicy
    plugin's (checked when the scheduler starts)."""
    lowered = text.lower()
    if lowered in _BUILTIN_POLICIES:
        return lowered
    if text in _POLICY_CLASSES:
        return _POLICY_CLASSES[text]
    if not _POLICY_NAME_RE.fullmatch(text):
        # YARN refuses too: SchedulingPolicy.parse finds no such class (AllocationConfigurationException)
        raise ValueError(text)
    return text


_Parse = Callable[[str], Any]
_EXPECTED: dict[Any, str] = {
    _count: "a whole number (a Java int)",
    _weight: "a number",
    _seconds: "a whole number of seconds (a Java long)",
    _fraction: "a number (clamped to 0..1)",
    _am_share: "a number (at most 1; -1 disables the check)",
    _boolean: "true or false",
    _policy: "fair, fifo, drf or a SharePolicy plugin's name",
}


def _scalar(p: _Problems, elem: etree._Element, where: str, parse: _Parse) -> Any:
    text = _text(p, elem, where)
    if text is None:
        return None
    try:
        value = parse(text)
    except ValueError:
        # YARN refuses too: Integer.parseInt / Long.parseLong / Float.parseFloat /
        # Double.parseDouble throw NumberFormatException (AllocationFileQueueParser.loadQueue,
        # AllocationFileParser); NaN is refused here on purpose (see _nan_refused)
        p.error(elem, f"<{elem.tag}>{where} must be {_EXPECTED[parse]}, got {text!r}")
        return None
    if isinstance(value, _Warned):
        p.warn(elem, f"<{elem.tag}>{where}: {value.message}")
        return value.value
    return value


def _resources(
    p: _Problems, elem: etree._Element, where: str, missing: int | None = None
) -> ConfigurableResources | None:
    text = _text(p, elem, where)
    if text is None:
        return None
    try:
        return parse_configurable(text) if missing is None else parse_configurable(text, missing)
    except ResourceParseError as exc:
        # YARN refuses too: FairSchedulerConfiguration.parseResourceConfigValue throws
        # AllocationConfigurationException
        p.error(elem, f"<{elem.tag}>{where}: {exc}")
        return None


def _absolute(p: _Problems, elem: etree._Element, value: ConfigurableResources | None) -> Resources | None:
    """``minResources`` / ``maxContainerAllocation`` hold amounts (YARN's ``getResource()``);
    a percentage there is read as none, as YARN does (``getResource()`` of a percentage is
    null), with a warning."""
    if value is None:
        return None
    if value.is_percentage:
        p.warn(elem, f"<{elem.tag}> takes an amount (\"1024 mb, 1 vcores\"), not a percentage: {value.text!r} "
                     "ignored (YARN reads it as none)")
        return None
    return value.resolve(None)


_QUEUE_SCALARS: dict[str, tuple[str, _Parse]] = {
    "maxRunningApps": ("max_running_apps", _count),
    "maxAMShare": ("max_am_share", _am_share),
    "weight": ("weight", _weight),
    "schedulingPolicy": ("scheduling_policy", _policy),
    "schedulingMode": ("scheduling_policy", _policy),
    "allowPreemptionFrom": ("allow_preemption_from", _boolean),
    "minSharePreemptionTimeout": ("min_share_preemption_timeout", _seconds),
    "fairSharePreemptionTimeout": ("fair_share_preemption_timeout", _seconds),
    "fairSharePreemptionThreshold": ("fair_share_preemption_threshold", _fraction),
}

_TOP_SCALARS: dict[str, tuple[str, _Parse]] = {
    "userMaxAppsDefault": ("user_max_apps_default", _count),
    "queueMaxAppsDefault": ("queue_max_apps_default", _count),
    "queueMaxAMShareDefault": ("queue_max_am_share_default", _am_share),
    "defaultMinSharePreemptionTimeout": ("default_min_share_preemption_timeout", _seconds),
    "defaultFairSharePreemptionTimeout": ("default_fair_share_preemption_timeout", _seconds),
    "defaultFairSharePreemptionThreshold": ("default_fair_share_preemption_threshold", _fraction),
}


def _parent_error(name: str, element: str) -> str:
    return (
        f"The configuration settings for {name} are invalid. A queue element that contains child queue elements "
        f"or that has the type='parent' attribute cannot also include a {element} element."
    )


def _load_queue(
    p: _Problems, elem: etree._Element, parent: str | None, queues: dict[str, QueueSpec], default_policy: str
) -> str | None:
    """``AllocationFileQueueParser.loadQueue``: the queue and (first) its children; its full name."""
    raw = elem.get("name")
    if raw is None:
        # YARN refuses too: getAttribute("name") is "", "queue name shouldn't be empty" (loadQueue)
        p.error(elem, f'<{elem.tag}> needs a name attribute, e.g. <queue name="...">')
        return None
    name = trim_queue_name(raw)
    if "." in name:
        # YARN refuses: AllocationFileQueueParser.loadQueue (all versions)
        p.error(elem, f"Bad fair scheduler config file: queue name ({name}) shouldn't contain period.")
        return None
    if not name:
        # YARN refuses: AllocationFileQueueParser.loadQueue (all versions)
        p.error(elem, "Bad fair scheduler config file: queue name shouldn't be empty or consist only of whitespace.")
        return None
    if parent is None and name != ROOT:
        # YARN's parse() matches root with equalsIgnoreCase and keeps the spelling, so its children
        # are ROOT.x beside the real root: read as root, and said
        p.warn(elem, f"the root queue is named {ROOT!r}: <{elem.tag} name=\"{raw}\"> read as {ROOT!r}")
        name = ROOT
    full = name if parent is None else f"{parent}.{name}"
    earlier = queues.get(full)
    if earlier is not None:
        # YARN merges the two (its QueueProperties.Builder keeps one map per setting, keyed by
        # queue name: later settings win, children add up): merged here too, with a warning
        p.warn(elem, f"queue {full!r} declared again (first at line {earlier.line}); merged into it, "
                     "settings given here winning, as YARN does")
    where = f' in queue "{full}"'
    fields: dict[str, Any] = {}
    children: list[str] = []
    has_child_elements = False
    seen: dict[str, int | None] = {}
    for child in elem:
        tag = child.tag
        if not isinstance(tag, str):
            continue
        if tag in ("queue", "pool"):
            has_child_elements = True
            child_name = _load_queue(p, child, full, queues, default_policy)
            if child_name is not None and child_name not in children:
                children.append(child_name)
            continue
        if tag in seen and tag != "reservation":
            p.warn(child, f"<{tag}>{where} given more than once; using this one (as YARN does)")
        seen[tag] = child.sourceline
        if tag in _QUEUE_SCALARS:
            attr, parse = _QUEUE_SCALARS[tag]
            value = _scalar(p, child, where, parse)
            if attr == "weight" and value is not None and java_float(value) == math.inf:
                # deliberate (docs/yarn.md): loadQueue's (float) cast holds Infinity
                # (float) of the double rounds to nearest: 3.4028235e38, Float.MAX_VALUE as Java
                # prints it, is MAX_VALUE; from 2**128 - 2**103 on it is Infinity
                # YARN would hold Infinity (a double cast to float): refused, as "Infinity" itself is
                text = "".join(child.itertext()).strip()
                p.error(child, f"<weight>{where} must be a number a Java float holds (at most 3.4e38; YARN reads "
                        f"a larger weight as Infinity), got {text!r}")
                value = None
            if value is not None:
                fields[attr] = value
        elif tag == "minResources":
            fields["min_resources"] = _absolute(p, child, _resources(p, child, where, missing=0))
        elif tag == "maxResources":
            fields["max_resources"] = _resources(p, child, where)
        elif tag == "maxChildResources":
            fields["max_child_resources"] = _resources(p, child, where)
        elif tag == "maxContainerAllocation":
            fields["max_container_allocation"] = _absolute(p, child, _resources(p, child, where))
        elif tag in ("aclSubmitApps", "aclAdministerApps"):
            text = _text(p, child, where, raw=True)
            if text is not None:
                fields["acl_submit_apps" if tag == "aclSubmitApps" else "acl_administer_apps"] = (
                    AccessControlList.parse(text)
                )
        elif tag in ("aclAdministerReservations", "aclListReservations", "aclSubmitReservations"):
            p.warn(child, f"<{tag}>{where} ignored: the reservation system is not supported")
        elif tag == "reservation":
            fields["reservation"] = True
        elif tag in _MR1_ONLY:
            p.warn(child, f"<{tag}>{where} is an MR1 (Hadoop 1) element, ignored in a YARN allocation file")
        else:
            p.warn(child, f"unknown element <{tag}>{where} ignored")
    is_parent = has_child_elements or elem.get("type") == "parent"
    if earlier is not None:
        is_parent = is_parent or earlier.is_parent
        children = [*earlier.children, *(c for c in children if c not in earlier.children)]
    if is_parent:
        if fields.get("reservation") or (earlier is not None and earlier.reservation):
            # YARN refuses: AllocationFileQueueParser.loadQueue (and AllocationFileLoaderService.loadQueue
            # before YARN-8191), every version since the reservation system (YARN-4339, Hadoop 2.8)
            p.error(elem, _parent_error(full, "reservation"))
        elif "max_am_share" in fields:
            # Hadoop trunk refuses (AllocationFileQueueParser.loadQueue, isMaxAMShareSet); Hadoop 2.x to
            # 3.1 load the file and no parent queue reads its maxAMShare; so does FairScheduler.md's own
            # example. Loaded, without it, and said (SPEC §7).
            p.warn(elem, f"{_parent_error(full, 'maxAMShare')} Hadoop's current AllocationFileQueueParser refuses "
                         "this file; earlier Hadoop (2.x to 3.1) loads it, and maxAMShare has no effect on a parent "
                         "queue: ignored")
            del fields["max_am_share"]
    if earlier is not None:
        spec = attrs.evolve(earlier, is_parent=is_parent, children=tuple(children), **fields)
    else:
        spec = QueueSpec(full, is_parent=is_parent, children=tuple(children), line=elem.sourceline, **fields)
    minimum, maximum = spec.min_resources, spec.max_resources
    if minimum is not None and maximum is not None and not maximum.is_percentage:
        if not minimum.fits_in(maximum.resolve(None)):
            p.warn(elem, f"Queue {full} has max resources {maximum.resolve(None)} less than min resources {minimum}")
    queues[full] = spec
    return full


_RULE_CLASS = {"nestedUserQueue": "user"}  # YARN: the same class (UserPlacementRule)


def _load_rule(p: _Problems, elem: etree._Element, *, nested: bool = False) -> PlacementRuleSpec | None:
    """One ``<rule>``.  Each error here is YARN's own refusal, with its message:
    ``QueuePlacementPolicy.fromXml`` / ``createAndInitializeRule`` and the rules'
    ``initialize`` (Hadoop 2.x-3.2; trunk's ``QueuePlacementConverter`` /
    ``PlacementFactory`` keep the messages)."""
    name = elem.get("name")
    if not name:
        p.error(elem, "No name provided for a rule element")
        return None
    if name not in PLACEMENT_RULES:
        p.error(elem, f"No rule class found for {name}")
        return None
    if nested and name in ("reject", "nestedUserQueue"):
        p.error(elem, f"Rule '{name}' is not allowed as a parent rule for any rule")
        return None
    create_text = elem.get("create")
    create = True if not create_text else create_text.lower() == "true"
    if create_text and create_text.lower() not in ("true", "false"):
        p.warn(elem, f'rule "{name}": create="{create_text}" read as false (only "true" is true)')
    parents = [c for c in elem if isinstance(c.tag, str) and c.tag.lower() == "rule"]
    parent = None
    if parents and nested:  # YARN reads one level of parent rules
        p.warn(parents[0], f"a rule inside the parent rule '{name}' is ignored (one level of parent rules)")
        parents = []
    if parents:
        if len(parents) > 1:
            p.warn(elem, f"Rule '{name}' has multiple parent rules defined, only the last parent rule will be used")
        parent = _load_rule(p, parents[-1], nested=True)
    if name == "nestedUserQueue" and not parents:
        p.error(elem, "Rule 'nestedUserQueue' must have a parent rule set")
        return None
    if parent is not None:
        if name == "specified":
            p.error(elem, "Parent rule should not be configured for Specified rule.")
        elif name == "default":
            p.error(elem, "Parent rule must not be configured for Default rule.")
        elif name == "reject":
            p.error(elem, "Parent rule should not be configured for Reject rule.")
        elif _RULE_CLASS.get(parent.name, parent.name) == _RULE_CLASS.get(name, name):
            p.error(elem, f"Parent rule may not be the same type as the child rule: {name}")
    queue = elem.get("queue") if name == "default" else None
    return PlacementRuleSpec(name, create=create, queue=queue or None, parent=parent, line=elem.sourceline)


def _load_placement(p: _Problems, elem: etree._Element) -> tuple[PlacementRuleSpec, ...] | None:
    """``QueuePlacementPolicy.fromXml``; its errors are YARN's refusals (the empty policy,
    unreachable rules, a last rule that can pass: ``QueuePlacementPolicy`` constructor)."""
    if len(elem) == 0 and elem.text is None:  # no child node at all (whitespace text counts as one)
        p.error(elem, "Empty configuration for QueuePlacementPolicy is not allowed")
        return None
    rules = []
    for child in elem:
        if isinstance(child.tag, str) and child.tag.lower() == "rule":
            rule = _load_rule(p, child)
            if rule is not None:
                rules.append(rule)
        elif isinstance(child.tag, str):
            p.warn(child, f"unknown element <{child.tag}> in <queuePlacementPolicy> ignored")
    if not rules:
        if not any(isinstance(c.tag, str) and c.tag.lower() == "rule" for c in elem):
            p.warn(elem, "<queuePlacementPolicy> has no <rule>: ignored")
        return None
    for i, rule in enumerate(rules[:-1]):
        if rule.terminal:
            p.error(elem, f"Rules after rule {i + 1} in queue placement policy can never be reached")
            break
    if not rules[-1].terminal:
        p.error(elem, "Could get past last queue placement rule without assigning")
    return tuple(rules)


def _check_policies(p: _Problems, queues: dict[str, QueueSpec], default_policy: str) -> None:
    """YARN's ``isChildPolicyAllowed`` rules, as errors.  YARN refuses these policies too, when it
    applies the file: ``FSQueue.verifyAndSetPolicyFromConf`` (YARN-4212, Hadoop 2.9/3.0) returns
    false and ``FairScheduler``'s reload listener logs "Setting scheduling policies for existing
    queues failed!", leaving the queues on their earlier policies; here the file is refused at
    load, so the last good allocations stay whole."""
    for spec in queues.values():
        policy = spec.scheduling_policy or default_policy
        if policy == "fifo" and (spec.is_parent or spec.children):
            p.error(
                _Line(spec.line),
                f'queue "{spec.name}": fifo policy is only for leaf queues. Please choose drf or fair for parent '
                "queues.",
            )
        for child in spec.children:
            child_policy = queues[child].scheduling_policy or default_policy
            if policy == "fair" and child_policy == "drf":
                p.error(
                    _Line(queues[child].line),
                    f'queue "{child}": Queue policy can\'t be drf if the parent policy is fair. Choose fair or fifo '
                    "for child queues instead. Please note that fifo is only for leaf queues.",
                )


class _Line:
    def __init__(self, line: int | None) -> None:
        self.sourceline = line


def parse_queue_config(root: etree._Element, source: str) -> tuple[QueueConfig, list[str]]:
    """The queue tree of a YARN allocation file whose ``<allocations>`` element is ``root``;
    returns it with the warnings.  Raises :class:`AllocationError` listing every problem."""
    p = _Problems(source)
    top: dict[str, Any] = {}
    user_max_apps: dict[str, int] = {}
    user_lines: dict[str, int | None] = {}
    queue_elems: list[etree._Element] = []
    placement_elem = None
    default_policy = "fair"
    deprecated_fair_timeout = None
    for child in root:
        tag = child.tag
        if not isinstance(tag, str):
            continue
        if tag in ("queue", "pool"):
            queue_elems.append(child)
        elif tag == "user":
            name = child.get("name")
            if not name:
                # YARN keeps a limit for the user "" (AllocationFileParser.extractUserData), whom no
                # app has: ignored, and said
                p.warn(child, '<user> without a name attribute ignored (e.g. <user name="...">)')
                continue
            if name in user_lines:
                p.warn(child, f"duplicate <user> {name!r}, first at line {user_lines[name]}; using this one")
            user_lines[name] = child.sourceline
            for sub in child:
                if not isinstance(sub.tag, str):
                    continue
                if sub.tag == "maxRunningApps":
                    value = _scalar(p, sub, f' in user "{name}"', _count)
                    if value is not None:
                        user_max_apps[name] = value
                elif sub.tag == "maxRunningJobs":
                    p.warn(sub, f'<maxRunningJobs> in user "{name}" is MR1\'s; YARN files use <maxRunningApps>')
                else:
                    p.warn(sub, f'unknown element <{sub.tag}> in user "{name}" ignored')
        elif tag in _TOP_SCALARS:
            attr, parse = _TOP_SCALARS[tag]
            value = _scalar(p, child, "", parse)
            if value is not None:
                top[attr] = value
        elif tag == "fairSharePreemptionTimeout":  # deprecated: defaultFairSharePreemptionTimeout wins
            deprecated_fair_timeout = _scalar(p, child, "", _seconds)
        elif tag == "queueMaxResourcesDefault":
            value = _resources(p, child, "")
            if value is not None:
                top["queue_max_resources_default"] = value
        elif tag in ("defaultQueueSchedulingPolicy", "defaultQueueSchedulingMode"):
            text = _text(p, child, "")
            if text is None:
                continue
            if text.lower() == "fifo" or _POLICY_CLASSES.get(text) == "fifo":
                # YARN refuses: AllocationFileParser.extractSchedulingPolicy (all versions; its
                # FifoPolicy class is refused as the root's policy in any case)
                p.error(
                    child,
                    "Bad fair scheduler config file: defaultQueueSchedulingPolicy or defaultQueueSchedulingMode "
                    "can't be FIFO.",
                )
                continue
            value = _scalar(p, child, "", _policy)
            if value is not None:
                default_policy = top["default_queue_scheduling_policy"] = value
                top["default_policy_given"] = True
        elif tag == "queuePlacementPolicy":
            placement_elem = child
        elif tag in _RESERVATION_SYSTEM:
            p.warn(child, f"<{tag}> ignored: the reservation system is not supported")
        elif tag in _MR1_ONLY:
            p.warn(child, f"<{tag}> is an MR1 (Hadoop 1) element, ignored in a YARN allocation file")
        else:
            p.warn(child, f"Bad element in allocations file: {tag} (ignored)")
    if deprecated_fair_timeout is not None and "default_fair_share_preemption_timeout" not in top:
        top["default_fair_share_preemption_timeout"] = deprecated_fair_timeout

    queues: dict[str, QueueSpec] = {}
    root_elem = next((q for q in queue_elems if (q.get("name") or "").strip().lower() == ROOT), None)
    if root_elem is not None and len(queue_elems) > 1:
        # YARN refuses: AllocationFileQueueParser.parse (all versions)
        p.error(root_elem, "If configuring root queue, no other queues can be placed alongside it.")
    elif root_elem is not None:
        _load_queue(p, root_elem, None, queues, default_policy)
    else:
        top_children = []
        for elem in queue_elems:
            name = _load_queue(p, elem, ROOT, queues, default_policy)
            if name is not None and name not in top_children:
                top_children.append(name)
        queues[ROOT] = QueueSpec(ROOT, is_parent=True, children=tuple(top_children))
    if ROOT in queues and not queues[ROOT].is_parent:  # root is a parent, whatever the file says
        queues[ROOT] = attrs.evolve(queues[ROOT], is_parent=True)
    _check_policies(p, queues, default_policy)
    placement = _load_placement(p, placement_elem) if placement_elem is not None else None
    p.raise_errors()
    config = QueueConfig(queues=queues, user_max_apps=user_max_apps, placement=placement, **top)
    return config, p.warnings
