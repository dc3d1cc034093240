"""Hadoop's ``Schedulable``: the view of a job or a pool (resource mode: a queue) for one
kind, which share policies order and share (:class:`Schedulable`).

Part of the scheduling model (:mod:`corescheduler.core.model`, which re-exports it: plugins
import it from either module).  On the hot path (an update's shares and order keys, a
heartbeat's walk): compiled with the model in the compiled build (``corescheduler.compiled``).
"""

from __future__ import annotations

import math
from typing import Any, Generic, TypeVar

from corescheduler.core.values import PRIORITY_RANK

__all__ = ["Number", "Schedulable"]


def _fields_repr(obj: Any, name: str, fields: tuple[str, ...]) -> str:
    """``Name(field=value!r, …)``, the repr attrs gave these classes."""
    return f"{name}({', '.join(f'{field}={getattr(obj, field)!r}' for field in fields)})"


#: the fields Schedulable's repr shows
_SCHEDULABLE_REPR = (
    "name", "kind", "weight", "min_share", "max_share", "demand", "running", "fair_share", "start_time",
    "priority", "last_time_at_min_share", "last_time_at_half_fair_share", "min_share_timeout",
    "fair_share_timeout", "steady_share", "active",
)


#: a scalar of a schedulable (a weight, a time, a timeout): an int or a float, kept as given
Number = int | float
#: a schedulable's quantity: slot mode a count of slots (an int or a float, kept as given),
#: resource mode :class:`~corescheduler.resources.Resources`.  A type variable so that each
#: mode has its typed view (``Schedulable[float, …]``, ``Schedulable[Resources, …]``:
#: :class:`corescheduler.core.policy.SlotSchedulable`, ``ResourceSchedulable``) while the
#: compiled build keeps the values as they are (a type variable is not checked at run time)
Q = TypeVar("Q")
#: what a schedulable stands for: a :class:`Job` or a :class:`Pool` (slot mode), a job or a
#: queue (``corescheduler.core.queue_tree.Queue``, resource mode)
O = TypeVar("O")  # noqa: E741


class Schedulable(Generic[Q, O]):
    """A job's or a pool's view for one slot kind, as in Hadoop's Schedulable.

    The share policy reads ``weight``, ``min_share``, ``max_share``,
    ``demand``, ``running``, ``start_time``, ``priority`` and ``name``, and
    its fair shares are stored in ``fair_share`` (``None`` = not applicable,
    as for jobs in a FIFO pool).  ``owner`` is the :class:`~corescheduler.core.model.Job` or
    :class:`~corescheduler.core.model.Pool`.

    Starvation bookkeeping (pools): ``last_time_at_min_share`` and
    ``last_time_at_half_fair_share`` are the last update at which the schedulable was not
    starved for its min share / for half its fair share.

    Resource mode (``kind == "resources"``): ``weight`` is a float and ``min_share``,
    ``max_share``, ``demand``, ``running`` (what it uses), ``fair_share`` and
    ``steady_share`` are :class:`~corescheduler.resources.Resources`; ``cluster`` is the
    whole cluster's resources (DRF's shares are of it); ``active``: a queue with runnable
    apps (YARN ``FSQueue.isActive``: only active queues get an instantaneous share).

    The quantities are of type ``Q`` (slot counts or Resources), the owner of type ``O``;
    the scalars are ints or floats as given.  ``_key`` is whatever the policy's
    ``order_key`` answered (checked where it enters: :mod:`corescheduler.core.hook_answers`).
    """

    name: str
    kind: str
    owner: O
    weight: Number
    min_share: Q
    max_share: Q
    demand: Q
    running: Q
    fair_share: Q | None
    start_time: Number
    priority: int
    last_time_at_min_share: Number
    last_time_at_half_fair_share: Number
    min_share_timeout: Number
    fair_share_timeout: Number
    _key: Any
    _ordered: bool
    steady_share: Q | None
    active: bool
    cluster: Q | None

    __slots__ = (
        "_key",
        "_ordered",
        "active",
        "cluster",
        "demand",
        "fair_share",
        "fair_share_timeout",
        "kind",
        "last_time_at_half_fair_share",
        "last_time_at_min_share",
        "max_share",
        "min_share",
        "min_share_timeout",
        "name",
        "owner",
        "priority",
        "running",
        "start_time",
        "steady_share",
        "weight",
    )

    def __init__(
        self,
        name: str,
        kind: str,
        owner: O,
        weight: Number = 1.0,
        min_share: Any = 0.0,  # a Q; the defaults are slot mode's
        max_share: Any = math.inf,
        demand: Any = 0,
        running: Any = 0,
        fair_share: Any = 0.0,
        start_time: Number = 0.0,
        priority: int = PRIORITY_RANK["NORMAL"],
        last_time_at_min_share: Number = 0.0,
        last_time_at_half_fair_share: Number = 0.0,
        min_share_timeout: Number = math.inf,
        fair_share_timeout: Number = math.inf,
        key: Any = None,
        ordered: bool = False,
        steady_share: Any = None,
        active: bool = True,
        cluster: Any = None,
    ) -> None:
        self.name = name
        self.kind = kind
        self.owner = owner
        self.weight = weight
        self.min_share = min_share
        self.max_share = max_share
        self.demand = demand
        self.running = running
        self.fair_share = fair_share
        self.start_time = start_time
        self.priority = priority
        self.last_time_at_min_share = last_time_at_min_share
        self.last_time_at_half_fair_share = last_time_at_half_fair_share
        self.min_share_timeout = min_share_timeout
        self.fair_share_timeout = fair_share_timeout
        #: its sort key in the scheduler's orders
        self._key = key
        #: whether the scheduler holds it in a sorted order now (its key is current there)
        self._ordered = ordered
        self.steady_share = steady_share
        self.active = active
        self.cluster = cluster

    def __repr__(self) -> str:
        return _fields_repr(self, "Schedulable", _SCHEDULABLE_REPR)

    @property
    def is_pool(self) -> bool:
        """Whether its owner is a :class:`~corescheduler.core.model.Pool` (an MR1 pool; not a
        job, not a resource-mode queue): the owner's class says so
        (:attr:`~corescheduler.core.model.Pool.IS_POOL`)."""
        return getattr(type(self.owner), "IS_POOL", False) is True

    def starved_for(self, now: float) -> bool:
        """True when past its min-share or fair-share preemption timeout
        (Hadoop: the pool is *starved*; delay scheduling is bypassed)."""
        return (
            now - self.last_time_at_min_share > self.min_share_timeout
            or now - self.last_time_at_half_fair_share > self.fair_share_timeout
        )
