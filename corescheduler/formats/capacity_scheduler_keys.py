"""Which keys of a ``capacity-scheduler.xml`` are read, and the warnings for the rest.

:func:`warn_unknown` runs after :func:`~corescheduler.formats.capacity_scheduler_xml.parse_capacity_scheduler`
has read the file: every key no reader used is warned about — a near miss of a key read here
with the key it most likely meant (``user-limit-factr``), a Hadoop key this simulator does not
model as not simulated, a queue key naming no queue of the tree as such — and ignored, as
Hadoop ignores keys it does not know.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

__all__ = ["GLOBAL_KEYS", "PREEMPTION_KEYS", "PREEMPTION_PREFIX", "PREFIX", "QUEUE_KEYS", "ROOT", "each_capacity",
           "stray_capacity", "warn_unknown"]

PREFIX = "yarn.scheduler.capacity."
ROOT = "root"

#: per-queue keys read (after ``yarn.scheduler.capacity.<queue-path>.``)
QUEUE_KEYS = frozenset({
    "queues", "capacity", "maximum-capacity", "user-limit-factor", "minimum-user-limit-percent",
    "maximum-applications", "maximum-am-resource-percent", "state", "acl_submit_applications",
    "acl_administer_queue", "ordering-policy", "ordering-policy.fair.enable-size-based-weight", "priority",
    "maximum-allocation-mb", "maximum-allocation-vcores", "maximum-allocation", "disable_preemption",
    "max-parallel-apps",
    "intra-queue-preemption.disable_preemption", "default-application-priority", "acl_application_max_priority",
})
#: global keys read (after ``yarn.scheduler.capacity.``)
GLOBAL_KEYS = frozenset({
    "maximum-applications", "maximum-am-resource-percent", "node-locality-delay",
    "rack-locality-additional-delay", "resource-calculator", "queue-mappings", "queue-mappings-override.enable",
    "per-node-heartbeat.maximum-offswitch-assignments", "user-limit-factor", "minimum-user-limit-percent",
    "rack-locality-full-reset", "per-node-heartbeat.multiple-assignments-enabled",
    "per-node-heartbeat.maximum-container-assignments", "max-parallel-apps", "user.max-parallel-apps",
    "reservations-continue-look-all-nodes", "global-queue-max-application",
})
#: Hadoop keys with no meaning here (node labels, auto-created queues, the async scheduler,
#: …): accepted with a warning naming them as not simulated
_IGNORED_QUEUE_KEY = re.compile(
    r"(accessible-node-labels.*|default-node-label-expression|"
    r"default-application-lifetime|maximum-application-lifetime|"
    r"auto-create-child-queue.*|leaf-queue-template.*|auto-queue-creation.*|"
    r"intra-queue-preemption\.(?!disable_preemption$).*|ordering-policy\..*|multi-node-placement.*|reservable|"
    r"user-limit-.*|allow-zero-capacity-sum)"
)

#: the preemption monitor's keys (``CapacitySchedulerConfiguration.PREEMPTION_*``), read by
#: the ``yarn_capacity`` plugin's ``ProportionalCapacityPreemptionPolicy``
PREEMPTION_PREFIX = "yarn.resourcemanager.monitor.capacity.preemption."
PREEMPTION_KEYS = frozenset({
    "observe_only", "monitoring_interval", "max_wait_before_kill", "total_preemption_per_round",
    "max_ignored_over_capacity", "natural_termination_factor", "conservative-drf",
    "preemption-to-balance-queue-after-satisfied.enabled",
    "preemption-to-balance-queue-after-satisfied.max-wait-before-kill",
    "intra-queue-preemption.enabled", "intra-queue-preemption.minimum-threshold",
    "intra-queue-preemption.max-allowable-limit", "intra-queue-preemption.preemption-order-policy",
    "intra-queue-preemption.conservative-drf",
})
#: Hadoop's preemption keys for the selector not simulated (reserved-container preemption):
#: warned unless switched off
_IGNORED_PREEMPTION_KEYS = frozenset({
    "select_based_on_reserved_containers", "additional_res_balance_based_on_reserved_containers",
})
#: of those, the switches: set to false they ask for what runs here, and are not warned
_PREEMPTION_SWITCHES = frozenset({
    "select_based_on_reserved_containers", "additional_res_balance_based_on_reserved_containers",
})


class KeyReader(Protocol):
    """What :func:`warn_unknown` reads of the file's reader."""

    props: Mapping[str, Any]  # name -> HadoopProperty (its line and value)
    used: set[str]
    source: str
    warnings: list[str]


def warn_unknown(r: KeyReader, paths: set[str]) -> None:
    """Warn of every key of the file no reader used: unknown (with the key meant, for a near
    miss), not simulated, or naming a queue not in the tree; all are ignored, as Hadoop ignores
    them."""
    for name, p in r.props.items():
        if name in r.used:
            continue
        where = f"{r.source}:{p.line}" if p.line is not None else r.source
        if name.startswith(PREEMPTION_PREFIX):
            _warn_preemption_key(r, where, name, p.value)
            continue
        if not name.startswith(PREFIX):
            r.warnings.append(f"{where}: {name}: not a capacity scheduler key; ignored")
            continue
        rest = name[len(PREFIX):]
        # the longest queue path the key starts with
        queue = next((q for q in sorted(paths, key=len, reverse=True) if rest.startswith(q + ".")), None)
        if queue is not None:
            key = rest[len(queue) + 1:]
            near = _near(key, QUEUE_KEYS)
            missing = "." in key and key.rpartition(".")[2] in QUEUE_KEYS and not (near and "." in near)
            if queue == ROOT and key == "capacity":  # CapacitySchedulerConfiguration: root's is fixed
                r.warnings.append(f"{where}: {name}: root's capacity is always 100; ignored")
            elif missing:  # root.devv.user-limit-factor: a queue's key, of a queue not in the tree
                r.warnings.append(f"{where}: {name}: no such queue {queue}.{key.rpartition('.')[0]} in the tree "
                                  f"from root.queues{_near_queue(queue + '.' + key.rpartition('.')[0], paths)}; "
                                  "ignored")
            elif near:
                r.warnings.append(f"{where}: {name}: unknown queue key {key!r} (did you mean {near!r}?); ignored")
            elif _IGNORED_QUEUE_KEY.fullmatch(key):
                r.warnings.append(f"{where}: {name}: not simulated; ignored")
            else:
                r.warnings.append(f"{where}: {name}: unknown queue key {key!r}; ignored")
        elif rest.startswith(ROOT + ".") or rest == ROOT:
            r.warnings.append(f"{where}: {name}: no such queue in the tree from root.queues; ignored")
        elif near := _near(rest, GLOBAL_KEYS):
            r.warnings.append(f"{where}: {name}: unknown key (did you mean {PREFIX + near!r}?); ignored")
        else:
            r.warnings.append(f"{where}: {name}: not simulated; ignored")


def _warn_preemption_key(r: KeyReader, where: str, name: str, value: str) -> None:
    """A ``yarn.resourcemanager.monitor.capacity.preemption.*`` key: those the monitor reads
    pass (their values are checked as the plugin takes the file); a selector Hadoop has but
    this monitor does not run is warned unless switched off; anything else is unknown (with
    the key meant, for a near miss), ignored as Hadoop ignores it."""
    key = name[len(PREEMPTION_PREFIX):]
    if key in PREEMPTION_KEYS:
        return
    if key in _IGNORED_PREEMPTION_KEYS:
        if not (key in _PREEMPTION_SWITCHES and value.strip().lower() == "false"):
            r.warnings.append(f"{where}: {name}: not simulated (the reserved-container selector does not run); ignored")
        return
    near = _near(key, PREEMPTION_KEYS)
    meant = f" (did you mean {PREEMPTION_PREFIX + near!r}?)" if near else ""
    r.warnings.append(f"{where}: {name}: unknown preemption key{meant}; ignored")


def _near_queue(path: str, paths: set[str]) -> str:
    """`` (did you mean root.dev?)`` for a queue path not in the tree: the queues of its name
    at another depth, else a near miss at its depth; empty when there is neither."""
    short = path.rpartition(".")[2]
    same_name = sorted(p for p in paths if p.rpartition(".")[2] == short)
    if same_name:  # root.reports for root.prod.reports: a level left out
        return f" (did you mean {' or '.join(same_name)}?)"
    depth = path.count(".")
    close = difflib.get_close_matches(path, [p for p in paths if p.count(".") == depth], 1, 0.8)
    return f" (did you mean {close[0]}?)" if close else ""


def _near(key: str, known: frozenset[str]) -> str | None:
    """The key ``key`` was most likely meant to be, when it is a near miss of one read here
    (``user-limit-factr``); None for a key read here or one far from all of them."""
    if key in known:
        return None
    close = difflib.get_close_matches(key, known, 1, 0.85)
    return close[0] if close else None


def each_capacity(modes: Mapping[str, tuple[str, object, Any]], kids: Sequence[str]) -> str:
    """``etl 60, reports 30, adhoc unset``: each child's percent as read, for a sum refused."""
    return ", ".join(f"{k.rpartition('.')[2]} {'unset' if modes[k][0] == 'unset' else f'{modes[k][1]:g}'}"
                     for k in kids)


def stray_capacity(r: KeyReader, path: str, kids: Sequence[str]) -> str:
    """For a sum refused: the ``<path>.<name>.capacity`` keys that name no child of ``path``
    (a misspelt queue, or one missing from ``<path>.queues``), each with the child meant when
    it is a near miss, as a clause to add to the error (empty when there are none)."""
    head = f"{path}."
    names = [k.rpartition(".")[2] for k in kids]
    out = []
    for name, p in r.props.items():
        rest = name[len(PREFIX):] if name.startswith(PREFIX) else ""
        if not (rest.startswith(head) and rest.endswith(".capacity")):
            continue
        queue = rest[len(head):-len(".capacity")]
        if not queue or "." in queue or queue in names:
            continue
        near = difflib.get_close_matches(queue, names, 1, 0.6)
        where = f" at line {p.line}" if p.line is not None else ""
        out.append(f"{name}{where} names no queue of {path}.queues"
                   + (f" (did you mean {near[0]!r}?)" if near else f" (it lists {', '.join(names)})"))
    return "; " + "; ".join(out) if out else ""
