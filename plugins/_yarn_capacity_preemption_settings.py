"""The settings of YARN's Capacity Scheduler preemption monitor
(``ProportionalCapacityPreemptionPolicy.updateConfigIfNeeded``): Hadoop's
``yarn.resourcemanager.monitor.capacity.preemption.*`` keys parsed as Java parses them and
checked when the file loads (moved from :mod:`corescheduler_plugins._yarn_capacity_preemption`,
which re-exports them)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from attrs import field, frozen

from corescheduler.core.javamath import java_float, java_trim, parse_java_double
from corescheduler.errors import ConfigError

#: the prefix of the policy's keys (``CapacitySchedulerConfiguration.PREEMPTION_CONFIG_PREFIX``)
PREFIX = "yarn.resourcemanager.monitor.capacity.preemption."



class PreemptionConfigError(ConfigError):
    """A ``yarn.resourcemanager.monitor.capacity.preemption.*`` value is bad; ``key`` names it."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        self.message = message
        super().__init__(f"{key}: {message}")


# ---------------------------------------------------------------------------- settings
# ``Double.parseDouble`` is the core's (``corescheduler.core.javamath.parse_java_double``);
# ``Configuration.getLong`` adds ``0x`` hex digits to ``Long.parseLong``, ASCII digits only here
_LONG = re.compile(r"[+-]?[0-9]+")
_HEX_LONG = re.compile(r"(-?)0[xX]([0-9a-fA-F]+)")
java_parse_double = parse_java_double


def java_parse_long(text: str) -> int:
    """``Configuration.getLong``: a decimal ``long`` or ``0x``-hex (``Long.parseLong``)."""
    text = java_trim(text)
    hexed = _HEX_LONG.fullmatch(text)
    value = int(hexed.group(2), 16) * (-1 if hexed.group(1) else 1) if hexed else None
    if value is None:
        if not _LONG.fullmatch(text):
            raise ValueError(text)
        value = int(text)
    if not -(2**63) <= value < 2**63:
        raise ValueError(text)
    return value


def _fraction(key: str, raw: str, single: bool) -> float:
    try:
        value = java_parse_double(raw)
    except ValueError:
        raise PreemptionConfigError(
            key, f"expected a number (a Java {'float' if single else 'double'}), got {raw!r}"
        ) from None
    if single:  # Configuration.getFloat: the value is held as a float
        value = java_float(value)
    if not math.isfinite(value) or value < 0:
        raise PreemptionConfigError(key, f"expected a finite number at least 0, got {raw!r}")
    return value


def _millis(key: str, raw: str, least: int = 0) -> float:
    try:
        value = java_parse_long(raw)
    except ValueError:
        raise PreemptionConfigError(key, f"expected a whole number of milliseconds, got {raw!r}") from None
    if value < least:
        raise PreemptionConfigError(key, f"expected milliseconds at least {least}, got {raw!r}")
    return value / 1000.0


def _boolean(key: str, raw: str) -> bool:
    text = java_trim(raw).lower()
    if text not in ("true", "false"):
        # Hadoop's Configuration.getBoolean falls back to the default here; a typo that
        # silently leaves preemption killing is worse, so it is refused
        raise PreemptionConfigError(key, f"expected true or false, got {raw!r}")
    return text == "true"


def _positive_seconds(instance: Any, attribute: Any, value: float) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
        raise ValueError(f"{attribute.name} must be a finite number of seconds at least 0, got {value!r}")


def _interval(instance: Any, attribute: Any, value: float) -> None:
    # SchedulingMonitor runs the policy at a fixed rate; a period of 0 is refused there too
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise ValueError(f"{attribute.name} must be a finite number of seconds above 0, got {value!r}")


def _non_negative(instance: Any, attribute: Any, value: float) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
        raise ValueError(f"{attribute.name} must be a finite number at least 0, got {value!r}")


def _order(instance: Any, attribute: Any, value: str) -> None:
    if value not in ORDER_POLICIES:
        raise ValueError(f"{attribute.name} must be one of {', '.join(ORDER_POLICIES)}, got {value!r}")


#: ``IntraQueuePreemptionOrderPolicy`` (read as ``valueOf(value.toUpperCase())``)
ORDER_POLICIES = ("priority_first", "userlimit_first")


def _order_policy(key: str, raw: str) -> str:
    text = java_trim(raw).lower()
    if text not in ORDER_POLICIES:
        raise PreemptionConfigError(key, f"expected {' or '.join(ORDER_POLICIES)}, got {raw!r}")
    return text


@frozen
class PreemptionSettings:
    """The policy's settings with Hadoop's defaults (``CapacitySchedulerConfiguration``
    ``DEFAULT_PREEMPTION_*``, ``DEFAULT_TOTAL_PREEMPTION_PER_ROUND``); times in seconds."""

    #: share of the cluster a round may take back (a Java float, as Hadoop reads it)
    total_preemption_per_round: float = field(default=0.1, validator=_non_negative)
    #: share of a queue's excess asked back per round, the rest left to finish naturally
    natural_termination_factor: float = field(default=0.2, validator=_non_negative)
    #: a leaf up to this fraction over its guarantee is not preempted from (a dead zone)
    max_ignored_over_capacity: float = field(default=0.1, validator=_non_negative)
    #: seconds from a container's mark to its kill
    max_wait_before_kill: float = field(default=15.0, validator=_positive_seconds)
    #: seconds between rounds (the caller's timer)
    monitoring_interval: float = field(default=3.0, validator=_interval)
    #: compute and report, mark and kill nothing
    observe_only: bool = False
    #: ``conservative-drf`` (``CROSS_QUEUE_PREEMPTION_CONSERVATIVE_DRF``): under DRF a container
    #: is taken only while what is still owed stays at least 0 after it
    conservative_drf: bool = False
    #: ``preemption-to-balance-queue-after-satisfied.enabled``: a second FifoCandidatesSelector
    #: balances queues above their guarantees too (``PREEMPTION_TO_BALANCE_QUEUES_BEYOND_GUARANTEED``)
    balance_after_satisfied: bool = False
    #: ``preemption-to-balance-queue-after-satisfied.max-wait-before-kill`` (seconds): the
    #: wait of what that selector takes (``MAX_WAIT_BEFORE_KILL_FOR_QUEUE_BALANCE_PREEMPTION``,
    #: 300 s; 0 means ``max_wait_before_kill``, as ``getMaximumKillWaitTimeMs``)
    balance_max_wait_before_kill: float = field(default=300.0, validator=_positive_seconds)
    #: ``intra-queue-preemption.enabled``: the IntraQueueCandidatesSelector (priority and
    #: user-limit preemption within a leaf) runs after the others
    intra_queue_enabled: bool = False
    #: ``intra-queue-preemption.minimum-threshold``: a leaf used below this share of its
    #: guarantee is left alone (a Java float)
    intra_queue_minimum_threshold: float = field(default=0.5, validator=_non_negative)
    #: ``intra-queue-preemption.max-allowable-limit``: at most this share of a leaf's guarantee,
    #: less what it gives other queues, is taken within it in a round (a Java float)
    intra_queue_max_allowable_limit: float = field(default=0.2, validator=_non_negative)
    #: ``intra-queue-preemption.preemption-order-policy``: ``userlimit_first`` (default: a
    #: user at or below its limit keeps its containers) or ``priority_first``
    intra_queue_order: str = field(default="userlimit_first", validator=_order)
    #: ``intra-queue-preemption.conservative-drf`` (``IN_QUEUE_PREEMPTION_CONSERVATIVE_DRF``)
    intra_queue_conservative_drf: bool = True

    @classmethod
    def from_properties(cls, props: Mapping[str, str]) -> PreemptionSettings:
        """Settings from Hadoop properties (``capacity-scheduler.xml``/``yarn-site.xml``
        names; other keys ignored): ``…preemption.total_preemption_per_round`` (float),
        ``natural_termination_factor`` and ``max_ignored_over_capacity`` (doubles),
        ``max_wait_before_kill`` and ``monitoring_interval`` (milliseconds),
        ``observe_only`` (boolean), ``conservative-drf``,
        ``preemption-to-balance-queue-after-satisfied.enabled`` (booleans) and
        ``….max-wait-before-kill`` (milliseconds), ``intra-queue-preemption.enabled`` and
        ``.conservative-drf`` (booleans), ``.minimum-threshold`` and ``.max-allowable-limit``
        (floats), ``.preemption-order-policy`` (``priority_first``/``userlimit_first``,
        any case).  Values parse as Java does (``Float.parseFloat``:
        ``"0.5f"``, ``"+1"``, ``"1e3"``); a bad one raises :class:`PreemptionConfigError`
        naming the key."""
        values: dict[str, Any] = {}
        readers: dict[str, Callable[[str, str], Any]] = {
            "total_preemption_per_round": lambda k, v: _fraction(k, v, single=True),
            "natural_termination_factor": lambda k, v: _fraction(k, v, single=False),
            "max_ignored_over_capacity": lambda k, v: _fraction(k, v, single=False),
            "max_wait_before_kill": _millis,
            "monitoring_interval": lambda k, v: _millis(k, v, least=1),
            "observe_only": _boolean,
            "conservative-drf": _boolean,
            "preemption-to-balance-queue-after-satisfied.enabled": _boolean,
            "preemption-to-balance-queue-after-satisfied.max-wait-before-kill": _millis,
            "intra-queue-preemption.enabled": _boolean,
            "intra-queue-preemption.minimum-threshold": lambda k, v: _fraction(k, v, single=True),
            "intra-queue-preemption.max-allowable-limit": lambda k, v: _fraction(k, v, single=True),
            "intra-queue-preemption.preemption-order-policy": _order_policy,
            "intra-queue-preemption.conservative-drf": _boolean,
        }
        fields = {"conservative-drf": "conservative_drf",
                  "preemption-to-balance-queue-after-satisfied.enabled": "balance_after_satisfied",
                  "preemption-to-balance-queue-after-satisfied.max-wait-before-kill":
                      "balance_max_wait_before_kill",
                  "intra-queue-preemption.enabled": "intra_queue_enabled",
                  "intra-queue-preemption.minimum-threshold": "intra_queue_minimum_threshold",
                  "intra-queue-preemption.max-allowable-limit": "intra_queue_max_allowable_limit",
                  "intra-queue-preemption.preemption-order-policy": "intra_queue_order",
                  "intra-queue-preemption.conservative-drf": "intra_queue_conservative_drf"}
        for name, read in readers.items():
            key = PREFIX + name
            raw = props.get(key)
            if raw is not None:
                values[fields.get(name, name)] = read(key, str(raw))
        return cls(**values)


def queue_intra_preemption_disabled(props: Mapping[str, str], path: str, parent_disabled: bool | None) -> bool:
    """A queue's ``intra-queue-preemption.disable_preemption`` as
    ``AbstractCSQueue.isIntraQueueHierarchyPreemptionDisabled`` resolves it (set on the queue,
    else the parent's; the root's default is false); the caller adds the queue's
    ``disable_preemption`` (``getIntraQueuePreemptionDisabled``).  A value other than
    true/false raises :class:`PreemptionConfigError` naming the key."""
    key = f"yarn.scheduler.capacity.{path}.intra-queue-preemption.disable_preemption"
    raw = props.get(key)
    if raw is None:
        return bool(parent_disabled)
    return _boolean(key, str(raw))


def queue_preemption_disabled(props: Mapping[str, str], path: str, parent_disabled: bool | None) -> bool:
    """A queue's effective ``disable_preemption`` (``AbstractCSQueue.isQueueHierarchyPreemptionDisabled``):
    ``yarn.scheduler.capacity.<path>.disable_preemption`` when set, else the parent's
    (``parent_disabled``; ``None`` for the root, whose default is false).  A value other
    than true/false raises :class:`PreemptionConfigError` naming the key."""
    key = f"yarn.scheduler.capacity.{path}.disable_preemption"
    raw = props.get(key)
    if raw is None:
        return bool(parent_disabled)
    return _boolean(key, str(raw))


__all__ = [
    "PREFIX",
    "PreemptionConfigError",
    "PreemptionSettings",
    "java_parse_double",
    "java_parse_long",
    "queue_intra_preemption_disabled",
    "queue_preemption_disabled",
]
