"""YARN's ``capacity-scheduler.xml``: the queues of Hadoop 3's Capacity Scheduler.

The file is a Hadoop ``Configuration`` resource
(:mod:`corescheduler.formats.hadoop_configuration`: ``<configuration>``, ``<property>``
elements each with a ``<name>``, a ``<value>`` and maybe ``<final>``).  It is told from
HADOOP-3445's MR1 capacity file by its keys (``yarn.scheduler.capacity.`` against
``mapred.capacity-scheduler.``), not by its root element: :func:`is_yarn_capacity`.

:func:`parse_capacity_scheduler` reads the queue tree from ``root.queues`` down and
validates it as Hadoop 3.3 does when the scheduler (re)initializes its queues:

* ``CapacitySchedulerConfiguration.getQueues`` / ``getNonLabeledQueueCapacity`` /
  ``getNonLabeledQueueMaximumCapacity``: a capacity is a percent (0–100), a weight
  ``2w`` or an absolute ``[memory=…,vcores=…]``; ``maximum-capacity`` a percent
  (−1 or absent: 100) or an absolute vector; ``root``'s capacity is 100.
* ``ParentQueue.setChildQueues``: the percent capacities of a parent's children sum
  to 100 (a parent of capacity 0 may have children of 0); percent, weight and
  absolute are not mixed among siblings (``ParentQueue.getCapacityConfigurationTypeForQueues``:
  "Parent queue … have children queue used mixed of weight mode, percentage and
  absolute mode"); an absolute child may not exceed its parent's absolute capacity.
* ``CSQueueUtils.checkMaxCapacity`` / ``AbstractCSQueue.setupQueueConfigs``:
  ``maximum-capacity`` ≥ ``capacity`` (absolute: each resource).
* ``LeafQueue.setupQueueConfigs``: ``minimum-user-limit-percent`` ≥ 0 (Hadoop takes any
  number: 0 leaves the limit to the active users' shares, above 100 lifts it past the
  current capacity; a negative one is refused here), ``maximum-am-resource-percent`` in
  [0, 1], ``state`` RUNNING or STOPPED,
  ``ordering-policy`` fifo or fair (the class names too); a parent's ``ordering-policy``
  ``utilization`` (the default) or ``priority-utilization``, inherited by the parents under
  it (``CapacitySchedulerConfiguration.getQueueOrderingPolicy``).

The running-app limits (``max-parallel-apps``) and user weights
(``user-settings.<user>.weight``) are read by :mod:`corescheduler.formats.capacity_scheduler_apps`.

Every problem is reported at once as ``FILE:LINE: <key>: expected …`` in one
:class:`~corescheduler.errors.AllocationError`; keys under ``yarn.scheduler.capacity.``
that Hadoop defines but this reader does not use, and unknown ones, are warnings.
Differences from Hadoop on purpose: an unparsable number is an error (Hadoop's
``Configuration.getFloat`` throws a bare ``NumberFormatException``), and a parent
whose children state no capacity at all (the documented example of
``CapacityScheduler.md``, "Setting up queues") is read with its children's
capacities equal, with a warning (Hadoop 3.3 refuses the sum of 0).
"""

from __future__ import annotations

import difflib
import math
import re
import struct
from collections.abc import Mapping, Sequence

from attrs import field, frozen

from corescheduler.core.javamath import parse_java_double
from corescheduler.errors import AllocationError
from corescheduler.formats.capacity_scheduler_apps import read_app_limits
from corescheduler.formats.capacity_scheduler_keys import PREFIX, ROOT, each_capacity, stray_capacity, warn_unknown
from corescheduler.formats.capacity_scheduler_priorities import AppPriorities, read_app_priorities
from corescheduler.formats.hadoop_configuration import HadoopProperty, is_yarn_capacity, read_configuration
from corescheduler.resources import Resources

__all__ = [
    "MR1_PREFIX",
    "PREFIX",
    "CSQueueSpec",
    "CapacitySchedulerConf",
    "HadoopProperty",
    "is_yarn_capacity",
    "parse_capacity_scheduler",
    "read_configuration",
]

MR1_PREFIX = "mapred.capacity-scheduler."
#: ``CapacitySchedulerConfiguration`` defaults (Hadoop 3.3)
DEFAULT_MAXIMUM_APPLICATIONS = 10000
DEFAULT_MAXIMUM_AM_RESOURCE_PERCENT = 0.1
DEFAULT_NODE_LOCALITY_DELAY = 40
DEFAULT_RACK_LOCALITY_ADDITIONAL_DELAY = -1
DEFAULT_OFFSWITCH_PER_HEARTBEAT = 1
DEFAULT_MAX_ASSIGN_PER_HEARTBEAT = 100  # Hadoop 3.3 (YARN-8513); -1: no limit
DEFAULT_USER_LIMIT_FACTOR = 1.0
DEFAULT_MINIMUM_USER_LIMIT_PERCENT = 100.0
#: what ``minimum-user-limit-percent`` takes
MULP_EXPECTED = "a percent ≥ 0 (above 100 lifts the user limit past the queue's current capacity)"
ORDERING_POLICIES = {
    "fifo": "fifo",
    "fair": "fair",
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FifoOrderingPolicy": "fifo",
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FairOrderingPolicy": "fair",
}
#: a parent's ``ordering-policy`` (``CapacitySchedulerConfiguration.QUEUE_UTILIZATION_ORDERING_POLICY`` —
#: the default — and ``QUEUE_PRIORITY_UTILIZATION_ORDERING_POLICY``, which respects queue priorities)
QUEUE_ORDERING_POLICIES = ("utilization", "priority-utilization")
DEFAULT_QUEUE_ORDERING_POLICY = "utilization"
CALCULATORS = {
    "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator": False,
    "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator": True,
}
_PRECISION = 0.0005  # ParentQueue's PRECISION (Hadoop compares capacity sums in floats)

@frozen
class CSQueueSpec:
    """One queue of the file, by path (``root.a.b``).  Capacities are fractions of the
    parent (``capacity``, ``maximum_capacity``) and of the cluster (``absolute_*``), as
    Hadoop's ``QueueCapacities``; an absolute queue keeps its vectors (``*_resources``)."""

    path: str
    children: tuple[str, ...] = ()
    capacity: float = 0.0
    maximum_capacity: float = 1.0
    absolute_capacity: float = 0.0
    absolute_maximum_capacity: float = 1.0
    capacity_resources: Resources | None = None
    maximum_resources: Resources | None = None
    weight: float | None = None
    user_limit_factor: float = DEFAULT_USER_LIMIT_FACTOR
    minimum_user_limit_percent: float = DEFAULT_MINIMUM_USER_LIMIT_PERCENT
    maximum_applications: int | None = None
    maximum_am_resource_percent: float | None = None
    state: str = "RUNNING"
    #: its state as Hadoop's freshly parsed queue has it (``AbstractCSQueue.initializeQueueState``):
    #: its own ``state`` when set, else its parent's (root: RUNNING)
    effective_state: str = "RUNNING"
    acl_submit_applications: str | None = None
    acl_administer_queue: str | None = None
    ordering_policy: str = "fifo"
    fair_size_based_weight: bool = False
    priority: int = 0
    maximum_allocation_mb: int | None = None
    maximum_allocation_vcores: int | None = None
    disable_preemption: bool | None = None
    #: its own ``max-parallel-apps`` (None: the global one, else no limit)
    max_parallel_apps: int | None = None
    #: ``user-settings.<user>.weight``, its parent's overridden by its own (empty: every user 1)
    user_weights: Mapping[str, float] = field(factory=dict)
    #: ``intra-queue-preemption.disable_preemption`` as set on the queue (None: inherited)
    intra_queue_disable_preemption: bool | None = None
    line: int | None = None

    @property
    def is_leaf(self) -> bool:
        return not self.children

    @property
    def name(self) -> str:
        return self.path.rpartition(".")[2]


@frozen
class CapacitySchedulerConf:
    """A validated ``capacity-scheduler.xml`` (Hadoop ``CapacitySchedulerConfiguration``)."""

    queues: Mapping[str, CSQueueSpec]
    maximum_applications: int = DEFAULT_MAXIMUM_APPLICATIONS
    #: ``global-queue-max-application``: a leaf's maxApplications when it sets none (≤ 0: unset,
    #: the global maximum-applications × its absolute capacity)
    global_queue_max_applications: int = -1
    maximum_am_resource_percent: float = DEFAULT_MAXIMUM_AM_RESOURCE_PERCENT
    node_locality_delay: int = DEFAULT_NODE_LOCALITY_DELAY
    rack_locality_additional_delay: int = DEFAULT_RACK_LOCALITY_ADDITIONAL_DELAY
    offswitch_per_heartbeat: int = DEFAULT_OFFSWITCH_PER_HEARTBEAT
    rack_locality_full_reset: bool = True
    #: ``reservations-continue-look-all-nodes``: an app holding reservations may take a container on
    #: another node, unreserving one (``RegularContainerAllocator.assignContainer``)
    continue_looking: bool = True
    multiple_assignments: bool = True
    max_assign_per_heartbeat: int = DEFAULT_MAX_ASSIGN_PER_HEARTBEAT
    dominant: bool = False
    queue_mappings: tuple[tuple[str, str, str], ...] = ()
    mappings_override: bool = False
    #: ``max-parallel-apps`` (every queue's without its own), ``user.max-parallel-apps`` and
    #: ``user.<user>.max-parallel-apps``: None / absent, no limit
    max_parallel_apps: int | None = None
    user_max_parallel_apps_default: int | None = None
    user_max_parallel_apps: Mapping[str, int] = field(factory=dict)
    #: ``yarn.cluster.max-application-priority``, leaves' default application priorities and
    #: ``acl_application_max_priority`` (:mod:`~corescheduler.formats.capacity_scheduler_priorities`)
    priorities: AppPriorities = field(factory=AppPriorities)
    properties: Mapping[str, str] = field(factory=dict)
    warnings: tuple[str, ...] = ()
    source: str | None = None
    #: the line of each property in the file, for the messages of what reads
    #: :attr:`properties` later (the preemption monitor's settings)
    lines: Mapping[str, int] = field(factory=dict)

    def leaves(self) -> list[str]:
        return [p for p, q in self.queues.items() if q.is_leaf and p != ROOT]

    def max_applications(self, path: str) -> int:
        """``LeafQueue``'s ``maxApplications`` (``LeafQueue.setupQueueConfigs``): its own, else
        ``global-queue-max-application`` when set (> 0), else the global × absolute capacity
        (``(int) (maxSystemApps * absoluteCapacity)``)."""
        q = self.queues[path]
        if q.maximum_applications is not None:
            return q.maximum_applications
        if self.global_queue_max_applications > 0:
            return self.global_queue_max_applications
        return int(self.maximum_applications * q.absolute_capacity)

    def max_applications_per_user(self, path: str, apps: int | None = None) -> int:
        """``LeafQueue``'s ``maxApplicationsPerUser`` (``LeafQueue.setupQueueConfigs``):
        min(maxApplications, ``(int) (maxApplications * (userLimit / 100.0f) * userLimitFactor)``)
        in Java floats; with ``user-limit-factor`` −1, maxApplications (as later Hadoop versions
        set it, ``AbstractLeafQueue.setupQueueConfigs``).  ``apps``: the leaf's maxApplications
        when known better than from the file alone (a queue of absolute capacity's, derived
        from its effective guarantee)."""
        q = self.queues[path]
        if apps is None:
            apps = self.max_applications(path)
        if q.user_limit_factor == -1:
            return apps
        product = _f32(_f32(float(apps)) * _f32(_f32(q.minimum_user_limit_percent) / _f32(100.0)))
        product = _f32(product * _f32(q.user_limit_factor))
        return min(apps, _java_int(product))

    def queue_max_parallel_apps(self, path: str) -> int | None:
        """``CapacitySchedulerConfiguration.getMaxParallelAppsForQueue``: the queue's own
        ``max-parallel-apps``, else the global one; None: no limit."""
        q = self.queues.get(path)
        own = q.max_parallel_apps if q is not None else None
        return own if own is not None else self.max_parallel_apps

    def user_max_parallel_apps_for(self, user: str) -> int | None:
        """``getMaxParallelAppsForUser``: ``user.<user>.max-parallel-apps``, else
        ``user.max-parallel-apps``; None: no limit."""
        own = self.user_max_parallel_apps.get(user)
        return own if own is not None else self.user_max_parallel_apps_default

    def am_resource_percent(self, path: str) -> float:
        """A queue's ``maximum-am-resource-percent``: its own, else the global one (also for a
        queue the file does not name, as the engine's ``root.default``)."""
        q = self.queues.get(path)
        if q is None:
            return self.maximum_am_resource_percent
        return self.maximum_am_resource_percent if q.maximum_am_resource_percent is None \
            else q.maximum_am_resource_percent

    def is_ambiguous(self, name: str) -> bool:
        """``CapacitySchedulerQueueManager.isAmbiguous``: ``name`` is no queue's path and the
        short name of more than one queue."""
        if name in self.queues or f"{ROOT}.{name}" in self.queues:
            return False
        return sum(1 for p in self.queues if p.rpartition(".")[2] == name) > 1

    def resolve(self, name: str) -> str | None:
        """A leaf's path from its path or its short name (unique among leaves), else None
        (Hadoop ``CapacitySchedulerQueueManager.getQueue``)."""
        if name in self.queues:
            return name
        if f"{ROOT}.{name}" in self.queues:
            return f"{ROOT}.{name}"
        found = [p for p in self.queues if p.rpartition(".")[2] == name]
        return found[0] if len(found) == 1 else None


def _f32(x: float) -> float:
    """``x`` rounded to a Java ``float`` (beyond its range: infinite)."""
    if not -3.4028234663852886e38 <= x <= 3.4028234663852886e38:
        return math.copysign(math.inf, x) if not math.isnan(x) else x
    return float(struct.unpack("f", struct.pack("f", x))[0])


def _java_int(x: float) -> int:
    """Java's ``(int)`` cast of a float: toward zero, saturating at the int range."""
    if math.isnan(x):
        return 0
    if math.isinf(x):  # JLS 5.1.3: ±∞ narrows to Integer.MAX_VALUE / MIN_VALUE
        return 2**31 - 1 if x > 0 else -(2**31)
    return max(-(2**31), min(2**31 - 1, int(x)))


# ============================================================================ reading


_ABSOLUTE = re.compile(r"^\[(.*)\]$")
_LONG_MAX = 2**63 - 1  # a resource amount is a Java long
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1  # the integer keys are Java ints (Configuration.getInt)


class _Reader:
    def __init__(self, props: Mapping[str, HadoopProperty], source: str) -> None:
        self.props = props
        self.source = source
        self.problems: list[tuple[int | None, str]] = []
        self.warnings: list[str] = []
        self.used: set[str] = set()

    def get(self, key: str) -> HadoopProperty | None:
        p = self.props.get(PREFIX + key)
        if p is not None:
            self.used.add(p.name)
        return p

    def problem(self, p: HadoopProperty | None, key: str, expected: str) -> None:
        line = p.line if p is not None else None
        got = f", got {p.value!r}" if p is not None else ""
        self.problems.append((line, f"{PREFIX}{key}: expected {expected}{got}"))

    def number(self, key: str, default: float | None, lo: float = -math.inf, hi: float = math.inf,
               integer: bool = False, what: str = "a number") -> float | None:
        p = self.get(key)
        if p is None or p.value == "":
            return default
        try:
            value = _java_number(p.value, integer)
        except ValueError:
            self.problem(p, key, what)
            return default
        if integer and not _INT_MIN <= value <= _INT_MAX:  # Configuration.getInt: Integer.parseInt refuses it
            self.problem(p, key, f"{what}, at most {_INT_MAX} in size (a Java int)")
            return default
        if not lo <= value <= hi or (not integer and not math.isfinite(value)):  # (1e400, inf: no number)
            if hi == 1 and 2 <= value <= 100:  # maximum-am-resource-percent 10: a percent for a fraction
                what = f"{what} ({value / 100:g} for {value:g} %)"
            self.problem(p, key, what)
            return default
        return value

    def boolean(self, key: str, default: bool) -> bool:
        p = self.get(key)
        if p is None or p.value == "":
            return default
        if p.value.lower() not in ("true", "false"):
            self.problem(p, key, "true or false")
            return default
        return p.value.lower() == "true"

    def resources(self, p: HadoopProperty, key: str) -> Resources | None:
        """``[memory=10240,vcores=12]`` (``CapacitySchedulerConfiguration.internalGetLabeledQueueResource``)."""
        m = _ABSOLUTE.match(p.value)
        values: dict[str, int] = {}
        ok = m is not None
        if m is not None:
            for part in filter(None, (s.strip() for s in m.group(1).split(","))):
                name, eq, amount = part.partition("=")
                name = name.strip()
                name = {"memory-mb": "memory", "vcores": "vcores", "memory": "memory"}.get(name, name)
                try:
                    number = int(amount.strip().rstrip("mMgG")) * (1024 if amount.strip()[-1:] in "gG" else 1)
                except (ValueError, IndexError):
                    ok = False
                    break
                if not eq or not 0 <= number <= _LONG_MAX:  # Long.parseLong's range
                    ok = False
                    break
                values[name] = number
        if not ok:
            self.problem(p, key, "[memory=<MB>,vcores=<n>]")
            return None
        values.setdefault("memory", 0)
        values.setdefault("vcores", 0)
        return Resources.of(values)


_JAVA_INT = re.compile(r"[+-]?\d+")


def _java_number(text: str, integer: bool) -> int | float:
    """``text`` as Hadoop's ``Configuration`` reads a number; ``ValueError`` for what it
    refuses.  Trimmed first (``getTrimmed``).  An int as ``getInt``: ``0x``/``-0x`` hex digits
    (``getHexDigits``, ``Integer.parseInt(…, 16)``), else ``Integer.parseInt`` (any Unicode
    digit, as ``int`` takes; no ``1_000``; its range is the caller's check).  A float as
    ``Float.parseFloat`` reads it (:func:`~corescheduler.core.javamath.parse_java_double`'s
    grammar: ``0.5f``, ``0x1p-1``, ``NaN`` and ``Infinity`` — refused later where a finite value
    is expected, as an error, where Hadoop would go on with them — not Python's ``inf`` or
    ``1_000``, nor digits other than ASCII ones)."""
    text = text.strip()
    if not integer:
        return parse_java_double(text)
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    if digits[:2] in ("0x", "0X"):
        digits = digits[2:]
        if not digits or not all(c in "0123456789abcdefABCDEF" for c in digits):
            raise ValueError(text)
        return -int(digits, 16) if negative else int(digits, 16)
    if not _JAVA_INT.fullmatch(text):
        raise ValueError(text)
    return int(text)


def _capacity(r: _Reader, path: str) -> tuple[str, float | Resources | None, HadoopProperty | None]:
    """``(mode, value, property)``: mode ``percent``, ``weight``, ``absolute`` or ``unset``."""
    key = f"{path}.capacity"
    p = r.get(key)
    if p is None or p.value == "":
        return "unset", None, p
    if p.value.startswith("["):
        return "absolute", r.resources(p, key), p
    text = p.value
    if text.endswith("w"):  # weight mode, Hadoop 3.3 (YARN-10169)
        try:
            weight = _java_number(text[:-1], False)
        except ValueError:
            weight = -1.0
        if not (weight >= 0 and math.isfinite(weight)):
            r.problem(p, key, "a weight ≥ 0 such as 2w")
            return "weight", None, p
        return "weight", weight, p
    try:
        pct = _java_number(text, False)
    except ValueError:
        pct = math.nan
    if not 0 <= pct <= 100:
        r.problem(p, key, "a percent from 0 to 100, a weight such as 2w, or [memory=…,vcores=…]")
        return "percent", None, p
    return "percent", pct, p


def parse_capacity_scheduler(props: Mapping[str, HadoopProperty], source: str,
                             warnings: Sequence[str] = ()) -> CapacitySchedulerConf:
    """Validate a YARN capacity file's properties (Hadoop 3.3; see the module docstring);
    ``warnings``: the reading's own (:func:`read_configuration`), reported first."""
    r = _Reader(props, source)
    r.warnings.extend(warnings)
    glob: dict[str, object] = {
        "maximum_applications": int(r.number("maximum-applications", DEFAULT_MAXIMUM_APPLICATIONS, 0,
                                             integer=True, what="a whole number ≥ 0") or 0),
        "global_queue_max_applications": int(r.number("global-queue-max-application", -1, -1, integer=True,
                                                      what="a whole number (-1: unset)") or 0),
        "maximum_am_resource_percent": r.number("maximum-am-resource-percent", DEFAULT_MAXIMUM_AM_RESOURCE_PERCENT,
                                                0, 1, what="a fraction from 0 to 1"),
        "node_locality_delay": int(r.number("node-locality-delay", DEFAULT_NODE_LOCALITY_DELAY, -1, integer=True,
                                            what="a whole number ≥ -1") or 0),
        "rack_locality_additional_delay": int(r.number("rack-locality-additional-delay",
                                                       DEFAULT_RACK_LOCALITY_ADDITIONAL_DELAY, -1, integer=True,
                                                       what="a whole number ≥ -1") or 0),
        "offswitch_per_heartbeat": int(r.number("per-node-heartbeat.maximum-offswitch-assignments",
                                                DEFAULT_OFFSWITCH_PER_HEARTBEAT, 1, integer=True,
                                                what="a whole number ≥ 1") or 1),
        "mappings_override": r.boolean("queue-mappings-override.enable", False),
        "rack_locality_full_reset": r.boolean("rack-locality-full-reset", True),
        "continue_looking": r.boolean("reservations-continue-look-all-nodes", True),
        "multiple_assignments": r.boolean("per-node-heartbeat.multiple-assignments-enabled", True),
        "max_assign_per_heartbeat": int(r.number("per-node-heartbeat.maximum-container-assignments",
                                                 DEFAULT_MAX_ASSIGN_PER_HEARTBEAT, -1, integer=True,
                                                 what="a whole number ≥ -1 (-1: no limit)") or 0),
    }
    default_ulf = r.number("user-limit-factor", DEFAULT_USER_LIMIT_FACTOR, what="a number (-1: no limit)")
    default_mulp = r.number("minimum-user-limit-percent", DEFAULT_MINIMUM_USER_LIMIT_PERCENT, 0,
                            what=MULP_EXPECTED)
    calc = r.get("resource-calculator")
    if calc is not None and calc.value:
        if calc.value not in CALCULATORS:
            r.problem(calc, "resource-calculator", "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator "
                                                   "or …DominantResourceCalculator")
        glob["dominant"] = CALCULATORS.get(calc.value, False)
    glob["queue_mappings"] = _mappings(r)

    queues: dict[str, CSQueueSpec] = {}
    # ------------------------------------------------------------- the tree (getQueues)
    order = [ROOT]
    children: dict[str, tuple[str, ...]] = {}
    seen = {ROOT}
    i = 0
    while i < len(order):
        path = order[i]
        i += 1
        p = r.get(f"{path}.queues")
        names = tuple(n.strip() for n in p.value.split(",") if n.strip()) if p is not None else ()
        kids = []
        for n in names:
            child = f"{path}.{n}"
            if "." in n or n in kids:
                r.problem(p, f"{path}.queues", f"distinct queue names without dots ({n!r} is not)")
                continue
            if child in seen:
                continue
            seen.add(child)
            kids.append(n)
            order.append(child)
        children[path] = tuple(f"{path}.{n}" for n in kids)
    if not children[ROOT]:
        r.problems.append((None, f"{PREFIX}root.queues: expected the comma-separated queues under root, "
                                 "found none"))
    # ------------------------------------------------------------- each queue's settings
    modes: dict[str, tuple[str, object, HadoopProperty | None]] = {}
    settings: dict[str, dict[str, object]] = {}
    for path in order:
        modes[path] = _capacity(r, path) if path != ROOT else ("percent", 100.0, None)
        s: dict[str, object] = {}
        mp = r.get(f"{path}.maximum-capacity")
        s["max_prop"] = mp
        if mp is not None and mp.value.startswith("["):
            s["maximum_resources"] = r.resources(mp, f"{path}.maximum-capacity")
        else:
            mx = r.number(f"{path}.maximum-capacity", 100.0, -1, 100, what="a percent from 0 to 100 (-1: 100)")
            s["maximum_pct"] = 100.0 if mx is None or mx < 0 else mx
        s["user_limit_factor"] = r.number(f"{path}.user-limit-factor", default_ulf, what="a number (-1: no limit)")
        # CapacitySchedulerConfiguration.getUserLimit: any number (TestLeafQueue sets 0 and 1000)
        s["minimum_user_limit_percent"] = r.number(f"{path}.minimum-user-limit-percent", default_mulp, 0,
                                                   what=MULP_EXPECTED)
        ma = r.number(f"{path}.maximum-applications", None, -1, integer=True, what="a whole number (-1: the global)")
        s["maximum_applications"] = None if ma is None or ma < 0 else int(ma)
        s["maximum_am_resource_percent"] = r.number(f"{path}.maximum-am-resource-percent", None, 0, 1,
                                                    what="a fraction from 0 to 1")
        st = r.get(f"{path}.state")
        state = (st.value.upper() if st is not None and st.value else "RUNNING")
        if state not in ("RUNNING", "STOPPED"):
            r.problem(st, f"{path}.state", "RUNNING or STOPPED")
            state = "RUNNING"
        s["state"] = state
        # AbstractCSQueue.initializeQueueState (a freshly parsed queue): a queue without a state
        # has its parent's; one set RUNNING under a parent that is not is refused
        head = path.rpartition(".")[0]
        inherited = str(settings[head]["effective_state"]) if head in settings else "RUNNING"
        if st is None or not st.value:
            s["effective_state"] = inherited
        else:
            if state == "RUNNING" and inherited != "RUNNING":
                r.problem(st, f"{path}.state", f"STOPPED or no state under a STOPPED parent (Hadoop: \"The parent "
                          f"queue:{head.rpartition('.')[2]} state is STOPPED, child queue:{path.rpartition('.')[2]} "
                          "state cannot be RUNNING.\")")
            s["effective_state"] = state
        for acl in ("acl_submit_applications", "acl_administer_queue"):
            ap = r.get(f"{path}.{acl}")
            s[acl] = None if ap is None else (ap.value if ap.value else " ")
        op = r.get(f"{path}.ordering-policy")
        if children[path]:
            # a parent's is its queue ordering policy, its own or its parent's (ParentQueue.setupQueueConfigs →
            # CapacitySchedulerConfiguration.getQueueOrderingPolicy(queue, parentPolicy): default "utilization")
            head = path.rpartition(".")[0]
            policy = str(settings[head]["ordering_policy"]) if head in settings else DEFAULT_QUEUE_ORDERING_POLICY
            if op is not None and op.value:
                if op.value.strip() not in QUEUE_ORDERING_POLICIES:
                    r.problem(op, f"{path}.ordering-policy", "utilization or priority-utilization (a parent queue)")
                else:
                    policy = op.value.strip()
        else:
            policy = "fifo"
            if op is not None and op.value:
                if op.value not in ORDERING_POLICIES:
                    r.problem(op, f"{path}.ordering-policy", "fifo or fair")
                policy = ORDERING_POLICIES.get(op.value, "fifo")
        s["ordering_policy"] = policy
        s["fair_size_based_weight"] = r.boolean(f"{path}.ordering-policy.fair.enable-size-based-weight", False)
        s["priority"] = int(r.number(f"{path}.priority", 0, integer=True, what="a whole number") or 0)
        for res in ("maximum-allocation-mb", "maximum-allocation-vcores"):
            v = r.number(f"{path}.{res}", None, 1, integer=True, what="a whole number ≥ 1")
            s[res.replace("-", "_")] = None if v is None else int(v)
        ma = r.get(f"{path}.maximum-allocation")
        if ma is not None and ma.value:
            # CapacitySchedulerConfiguration.getQueueMaximumAllocation: when set, the -mb and -vcores
            # keys are not read (AbstractCSQueue.setupMaximumAllocation)
            parsed = _maximum_allocation(ma.value)
            if parsed is None:
                r.problem(ma, f"{path}.maximum-allocation", "memory-mb=<MB>,vcores=<n> (ResourceUtils"
                          ".createResourceFromString: memory-mb in MB or with a unit M or G, vcores a whole number)")
            else:
                s["maximum_allocation_mb"], s["maximum_allocation_vcores"] = parsed
        dp = r.get(f"{path}.disable_preemption")
        s["disable_preemption"] = None if dp is None else r.boolean(f"{path}.disable_preemption", False)
        ip = f"{path}.intra-queue-preemption.disable_preemption"
        s["intra_queue_disable_preemption"] = None if r.get(ip) is None else r.boolean(ip, False)
        settings[path] = s
    # ------------------------------------------------------------- capacities (ParentQueue.setChildQueues)
    fraction: dict[str, tuple[float, float]] = {ROOT: (1.0, 1.0)}
    absolute: dict[str, tuple[float, float]] = {ROOT: (1.0, 1.0)}
    vectors: dict[str, Resources | None] = {}
    weights: dict[str, float | None] = {}
    for path in order:
        kids = children[path]
        if not kids:
            continue
        # a parent whose own level was refused (mixed modes, a bad capacity): its children are
        # still checked, against a placeholder guarantee (the file is refused anyway); their sum
        # against the parent's own capacity, as ParentQueue.setChildQueues reads it
        # (queueCapacities.getCapacity()), not the placeholder's 0, which would blame them too
        refused = path not in absolute
        absolute.setdefault(path, (0.0, 1.0))
        kmodes = {modes[k][0] for k in kids} - {"unset"}
        if len(kmodes) > 1:
            first = next(k for k in kids if modes[k][0] != "unset")
            by_mode = {m: ", ".join(k.rpartition(".")[2] for k in kids if modes[k][0] == m) for m in sorted(kmodes)}
            r.problems.append((modes[first][2].line if modes[first][2] else None,
                               f"{PREFIX}{path}.queues: expected the capacities of {path}'s children in one mode "
                               "(percent, weight or absolute [memory=…,vcores=…]); they mix "
                               + " and ".join(f"{m} ({names})" for m, names in by_mode.items())
                               + " (Hadoop ParentQueue: mixed modes refused)"))
            continue
        mode = kmodes.pop() if kmodes else "unset"
        if mode == "unset":
            r.warnings.append(f"{source}: {PREFIX}{path}.queues: no child of {path} states a capacity; read as "
                              "equal shares (Hadoop 3.3 refuses a capacity sum of 0)")
            share = {k: 100.0 / len(kids) for k in kids}
        elif mode == "percent":
            share = {k: float(modes[k][1] or 0.0) for k in kids}  # type: ignore[arg-type]
            total = sum(share.values())
            parent_cap = absolute[path][0]
            if refused:
                own = modes[path]
                if own[0] != "percent" or own[1] is None:
                    continue  # the parent's own capacity is what was refused: already reported
                parent_cap = float(own[1])  # type: ignore[arg-type]
            if any(modes[k][1] is None and modes[k][0] != "unset" for k in kids):
                continue  # already reported
            if (parent_cap > 0 and abs(total - 100.0) > _PRECISION * 100) or (parent_cap == 0 and total > 0):
                line = next((modes[k][2].line for k in kids if modes[k][2] is not None), None)
                wanted = "to sum to 100" if parent_cap > 0 else f"to be 0, as {path}'s capacity is 0"
                own = modes[path]
                if own[0] == "absolute" and own[2] is not None:
                    # an absolute parent's capacity is 0 as a percent (QueueCapacities, until the
                    # cluster is known), so Hadoop refuses percent children by their sum
                    wanted = (f"to be absolute ([memory=…,vcores=…]) like {path}'s capacity {own[2].value.strip()} "
                              "(percent children of an absolute parent must sum to 0)")
                r.problems.append((line, f"{PREFIX}{path}.*.capacity: expected the capacities of {path}'s children "
                                         f"({each_capacity(modes, kids)}) {wanted}, got {total:g} (Hadoop "
                                         f"ParentQueue.setChildQueues){stray_capacity(r, path, kids)}"))
        elif mode == "weight":
            ws = {k: float(modes[k][1] or 0.0) for k in kids}  # type: ignore[arg-type]
            scaled = ws
            total = sum(ws.values())
            if not math.isfinite(total):  # weights near the float maximum: scaled, else inf / inf
                top = max(ws.values())
                scaled = {k: w / top for k, w in ws.items()}
                total = sum(scaled.values())
            share = {k: (100.0 * w / total if total > 0 else 0.0) for k, w in scaled.items()}
            weights.update(ws)
        else:  # absolute: a fraction of the parent is known only against a cluster; kept as vectors
            share = {}
            for k in kids:
                vectors[k] = modes[k][1]  # type: ignore[assignment]
            parent_vec = vectors.get(path)
            if parent_vec is not None and all(vectors.get(k) is not None for k in kids):
                total_vec = Resources.total(v for v in (vectors[k] for k in kids) if v is not None)
                if not total_vec.fits_in(parent_vec):
                    r.problems.append((modes[kids[0]][2].line if modes[kids[0]][2] else None,
                                       f"{PREFIX}{path}.*.capacity: expected the absolute capacities of {path}'s "
                                       f"children to fit in {path}'s {parent_vec}, got {total_vec} in all"))
        for k in kids:
            pct = share.get(k, 0.0)
            ks = settings[k]
            if mode == "absolute":
                mv = ks.get("maximum_resources")
                cv = vectors.get(k)
                mp = ks["max_prop"]
                if mp is not None and "maximum_resources" not in ks:
                    r.problem(mp, f"{k}.maximum-capacity", "an absolute [memory=…,vcores=…] like the capacity "
                                                           "(percent and absolute are not mixed)")
                elif isinstance(mv, Resources) and cv is not None and not cv.fits_in(mv):
                    r.problem(mp, f"{k}.maximum-capacity", f"≥ the capacity {cv} in every resource")
                fraction[k] = (0.0, 1.0)
                absolute[k] = (0.0, absolute[path][1])
                continue
            if "maximum_resources" in ks:
                r.problem(ks["max_prop"], f"{k}.maximum-capacity",  # type: ignore[arg-type]
                          "a percent from 0 to 100 like the capacity (percent and absolute are not mixed)")
                continue
            mx = float(ks["maximum_pct"])  # type: ignore[arg-type]
            if mx < pct - 1e-9 and mode == "percent":
                r.problem(ks["max_prop"], f"{k}.maximum-capacity",  # type: ignore[arg-type]
                          f"≥ the capacity {pct:g} (Hadoop CSQueueUtils.checkMaxCapacity)")
            fraction[k] = (pct / 100.0, mx / 100.0)
            absolute[k] = (absolute[path][0] * pct / 100.0, absolute[path][1] * mx / 100.0)
    apps = read_app_limits(r, order, children, {
        p: float(settings[p]["minimum_user_limit_percent"] if settings[p]["minimum_user_limit_percent"] is not None  # type: ignore[arg-type]
                 else DEFAULT_MINIMUM_USER_LIMIT_PERCENT)
        for p in order})
    glob["max_parallel_apps"] = apps.max_parallel_apps
    glob["user_max_parallel_apps_default"] = apps.user_max_parallel_apps_default
    glob["user_max_parallel_apps"] = apps.user_max_parallel_apps
    glob["priorities"] = read_app_priorities(r, order, children)
    if r.problems:
        _raise(r)
    for path in order:
        s = settings[path]
        cap, mx = fraction.get(path, (0.0, 1.0))
        acap, amx = absolute.get(path, (0.0, 1.0))
        _mode, _value, prop = modes[path]
        queues[path] = CSQueueSpec(
            path=path, children=children[path], capacity=cap, maximum_capacity=mx,
            absolute_capacity=acap, absolute_maximum_capacity=amx,
            capacity_resources=vectors.get(path), maximum_resources=s.get("maximum_resources"),  # type: ignore[arg-type]
            weight=weights.get(path),
            user_limit_factor=float(s["user_limit_factor"]),  # type: ignore[arg-type]
            minimum_user_limit_percent=float(s["minimum_user_limit_percent"]),  # type: ignore[arg-type]
            maximum_applications=s["maximum_applications"],  # type: ignore[arg-type]
            maximum_am_resource_percent=s["maximum_am_resource_percent"],  # type: ignore[arg-type]
            state=str(s["state"]), effective_state=str(s["effective_state"]),
            acl_submit_applications=s["acl_submit_applications"],  # type: ignore[arg-type]
            acl_administer_queue=s["acl_administer_queue"],  # type: ignore[arg-type]
            ordering_policy=str(s["ordering_policy"]), fair_size_based_weight=bool(s["fair_size_based_weight"]),
            priority=int(s["priority"]),  # type: ignore[call-overload]
            maximum_allocation_mb=s["maximum_allocation_mb"],  # type: ignore[arg-type]
            maximum_allocation_vcores=s["maximum_allocation_vcores"],  # type: ignore[arg-type]
            disable_preemption=s["disable_preemption"],  # type: ignore[arg-type]
            max_parallel_apps=apps.queue_max_parallel_apps.get(path),
            user_weights=apps.user_weights.get(path, {}),
            intra_queue_disable_preemption=s["intra_queue_disable_preemption"],  # type: ignore[arg-type]
            line=prop.line if prop is not None else None,
        )
    warn_unknown(r, set(order))
    conf = CapacitySchedulerConf(
        queues=queues, properties={n: p.value for n, p in props.items()}, warnings=tuple(r.warnings),
        source=source, lines={n: p.line for n, p in props.items() if p.line is not None},
        **glob,  # type: ignore[arg-type]
    )
    _check_static_mappings(r, conf)
    if r.problems:
        _raise(r)
    return conf


#: the placeholders of a dynamic queue mapping (``UserGroupMappingPlacementRule.isStaticQueueMapping``)
MAPPING_PLACEHOLDERS = ("%user", "%primary_group", "%secondary_group")


def _check_static_mappings(r: _Reader, conf: CapacitySchedulerConf) -> None:
    """``UserGroupMappingPlacementRule.initialize`` (Hadoop 3.3): a static mapping (no
    placeholder in its queue) names an existing leaf, by path or unique short name
    ("mapping contains invalid or non-leaf queue"; no auto-created queues here); a dynamic one
    is resolved at submission."""
    p = r.get("queue-mappings")
    leaves = [q for q in conf.queues.values() if q.is_leaf]
    for kind, source, queue in conf.queue_mappings:
        if any(ph in queue for ph in MAPPING_PLACEHOLDERS):
            continue
        if conf.is_ambiguous(queue):
            r.problem(p, "queue-mappings", f"mappings to existing leaf queues (mapping contains ambiguous leaf "
                                           f"queue reference {queue})")
            continue
        path = conf.resolve(queue)
        if path is None or not conf.queues[path].is_leaf:
            if path is not None:
                hint = f"; {path} is a parent, its leaves: {', '.join(conf.queues[path].children)}"
            else:
                names = [q.name for q in leaves] if "." not in queue else [q.path for q in leaves]
                near = difflib.get_close_matches(queue, names, 1, 0.6)
                hint = f"; did you mean {near[0]!r}?" if near else f"; the leaves: {', '.join(q.path for q in leaves)}"
            r.problem(p, "queue-mappings", f"mappings to existing leaf queues (mapping {kind}:{source}:{queue} "
                                           f"contains invalid or non-leaf queue {queue}{hint})")


def _mappings(r: _Reader) -> tuple[tuple[str, str, str], ...]:
    """``queue-mappings``: ``u:<user>:<queue>`` / ``g:<group>:<queue>``, ``%user`` and
    ``%primary_group`` (``CapacitySchedulerConfiguration.getQueueMappings``)."""
    p = r.get("queue-mappings")
    if p is None or not p.value:
        return ()
    out = []
    for item in (s.strip() for s in p.value.split(",")):
        if not item:
            continue
        parts = [part.strip() for part in item.split(":")]  # getQueueMappings trims each part
        if len(parts) != 3 or parts[0] not in ("u", "g") or not parts[1] or not parts[2]:
            r.problem(p, "queue-mappings", "comma-separated u:<user>:<queue> or g:<group>:<queue> mappings "
                                           f"({item!r} is not one)")
            continue
        out.append((parts[0], parts[1], parts[2]))
    return tuple(out)


def _raise(r: _Reader) -> None:
    problems = sorted(r.problems, key=lambda lp: (lp[0] is None, lp[0] or 0))
    raise AllocationError("; ".join(m for _, m in problems), r.source, problems[0][0], problems)


#: ``ResourceUtils.parseResourcesString``'s units ("M"/"m" → Mi, "G"/"g" → Gi, else "Acceptable
#: units are M/G or empty"): memory's factor to MB
_MEMORY_UNITS = {"": 1, "M": 1, "m": 1, "G": 1024, "g": 1024}


def _maximum_allocation(value: str) -> tuple[int | None, int | None] | None:
    """``<queue>.maximum-allocation`` as ``ResourceUtils.createResourceFromString`` reads it —
    ``memory-mb=4096,vcores=2`` (``memory`` for ``memory-mb``; a unit M or G in either case,
    or none: memory converted to MB, vcores' number kept, as ``parseResourcesString``):
    (memory in MB, vcores), None for a type it does not name; None when unreadable (a value,
    a unit, a type other than memory and vcores, or a type named twice)."""
    memory: int | None = None
    vcores: int | None = None
    for part in value.split(","):
        key, sep, amount = (x.strip() for x in part.partition("="))
        m = re.fullmatch(r"([0-9]+) ?([a-zA-Z]*)", amount)
        if not sep or m is None or int(m.group(1)) < 1:
            return None
        number, unit = int(m.group(1)), m.group(2)
        if key in ("memory-mb", "memory") and memory is None and unit in _MEMORY_UNITS:
            memory = number * _MEMORY_UNITS[unit]
        elif key == "vcores" and vcores is None and unit in _MEMORY_UNITS:
            vcores = number
        else:
            return None
    return memory, vcores
