"""Frozen values: what is submitted (:class:`JobSpec`, :class:`TaskSpec`) and
what hooks return (:class:`PreemptionPlan`, :class:`Rejection`,
:class:`Assignment`), with the cluster totals a LoadManager reads
(:class:`ClusterLoad`) and Hadoop's job priorities.

:mod:`corescheduler.core.model` re-exports every name here: plugins import
them from either module.  They live apart from the model's mutable classes so
that those can be compiled (``corescheduler.compiled``) while these stay attrs
classes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from attrs import define, field, frozen

from corescheduler.core.resources import Resources
from corescheduler.core.shuffle import ShuffleSpec

#: Hadoop's JobPriority, highest first; each level doubles the job's weight.
PRIORITIES: tuple[str, ...] = ("VERY_HIGH", "HIGH", "NORMAL", "LOW", "VERY_LOW")
PRIORITY_RANK: dict[str, int] = {name: rank for rank, name in enumerate(PRIORITIES)}
PRIORITY_WEIGHT: dict[str, float] = {"VERY_HIGH": 4.0, "HIGH": 2.0, "NORMAL": 1.0, "LOW": 0.5, "VERY_LOW": 0.25}


def check_priority(value: str) -> str:
    """Return ``value`` upper-cased if it is a priority name, else raise ValueError."""
    name = str(value).upper()
    if name not in PRIORITY_RANK:
        raise ValueError(f"priority must be one of {', '.join(PRIORITIES)}, got {value!r}")
    return name


@frozen
class TaskSpec:
    """One task as submitted: its duration (seconds, for simulation), the
    nodes holding its input (maps only; empty = no locality preference) and,
    for reduces, how much of the duration is the copy (shuffle) phase
    (``None`` = the simulator's default split)."""

    duration: float | None = None
    input_nodes: tuple[str, ...] = field(default=(), converter=lambda v: (v,) if isinstance(v, str) else tuple(v))
    copy_duration: float | None = None
    #: resource mode: what the task's container asks for (None: the job's ``task_resources``)
    resources: Resources | None = None
    #: resource mode, a plain task (SPEC §6b): False = it runs only on the nodes and racks its
    #: ``input_nodes`` name (node names, ``/rack`` names, ``*`` for any node); True = those
    #: first, then anywhere (YARN's ``ResourceRequest.relaxLocality``)
    relax_locality: bool = True
    #: resource mode, a plain task (SPEC §6b): YARN's integer request priority; asks of a
    #: smaller number are served first (``Priority.compareTo``); None counts as 0
    priority: int | None = None


@frozen
class JobSpec:
    """A job as submitted.

    ``pool`` is the requested pool/queue (the ``queue.name`` property); the
    PoolResolver decides the pool actually used.  ``properties`` are free-form
    job properties (Hadoop's job conf) that resolvers may read.
    """

    maps: tuple[TaskSpec, ...] = field(default=(), converter=tuple)
    reduces: tuple[TaskSpec, ...] = field(default=(), converter=tuple)
    user: str | None = None
    pool: str | None = None
    priority: str = field(default="NORMAL", converter=check_priority)
    properties: Mapping[str, Any] = field(factory=dict, hash=False)
    groups: tuple[str, ...] = field(default=(), converter=tuple)
    id: str | None = None
    submit: float | None = None
    #: resource mode: containers that are neither maps nor reduces (kind ``"task"``)
    tasks: tuple[TaskSpec, ...] = field(default=(), converter=tuple)
    #: resource mode: the size of a task that does not give its own ``resources``
    task_resources: Resources | None = None
    #: resource mode: the application master's container, counted against the queue's
    #: ``maxAMShare`` (None: no AM, as in YARN's unit tests)
    am_resources: Resources | None = None
    #: its intermediate data (map output sizes and how they split across reduces), or None;
    #: with one, the simulator's reduces fetch their input over the network model
    shuffle: ShuffleSpec | None = None

    def property(self, name: str) -> Any:
        """A job property by Hadoop name: ``queue.name`` is :attr:`pool`,
        ``user.name`` is :attr:`user`; others come from :attr:`properties`."""
        if name in self.properties:
            return self.properties[name]
        if name in ("queue.name", "mapred.job.queue.name", "pool"):
            return self.pool
        if name in ("user.name", "user"):
            return self.user
        return None


@frozen
class Assignment:
    """A task launched on a heartbeat."""

    job: str
    task: str
    kind: str
    node: str
    locality: str | None
    time: float
    #: resource mode: the container's size
    resources: Resources | None = None


@frozen
class Rejection:
    """A PoolResolver's "no": the job is rejected, for ``reason``; ``access``: an ACL refuses
    the submitter (AccessDeniedError, a 403 in ``serve``)."""

    reason: str
    access: bool = False


@define
class ClusterLoad:
    """What a LoadManager sees of the whole cluster for one slot kind.

    The scheduler keeps one per kind up to date as tasks start and finish;
    read it during the hook call, do not keep or change it.
    """

    kind: str
    runnable: int  # tasks demanded (running + pending) by runnable jobs
    running: int
    total_slots: int
    nodes: int


class RunningTask(Protocol):
    """A running task as a :class:`PreemptionPlan` names it: a
    :class:`corescheduler.core.model.Task` (which imports this module, so it is not named here).
    The scheduler checks that each victim is one of its own running tasks."""

    @property
    def id(self) -> str: ...

    @property
    def kind(self) -> str: ...


@frozen
class PreemptionPlan:
    """A share policy's answer to "should tasks of this kind be preempted now?".

    ``count``: how many tasks to kill in all.  ``allowance``: for each pool
    name, how many of its running tasks may be taken (pools not listed give
    none).  ``victims``: set when the policy chose the tasks itself; otherwise
    the VictimSelector chooses ``count`` of the candidates within allowances.
    ``needs``: per pool, the tasks it is owed (for reports).
    """

    count: int
    allowance: Mapping[str, int] = field(factory=dict)
    victims: tuple[RunningTask, ...] | None = None
    needs: Mapping[str, int] = field(factory=dict)


__all__ = [
    "PRIORITIES",
    "PRIORITY_RANK",
    "PRIORITY_WEIGHT",
    "Assignment",
    "ClusterLoad",
    "JobSpec",
    "PreemptionPlan",
    "Rejection",
    "TaskSpec",
    "check_priority",
]
