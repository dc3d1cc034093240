"""What the parts of the resource engine share: the names its state goes by and the few
values they pass each other.

:class:`~corescheduler.core.resource_scheduler.ResourceScheduler` is put together from
one class per concept, each in its own module, as YARN's fair scheduler spreads the same
work over ``FairScheduler``, ``MaxRunningAppsEnforcer``, ``FSAppAttempt`` and
``FSPreemptionThread``:

* :mod:`~corescheduler.core.resource_apps` — submission, normalization and the
  running-app limits (``FairScheduler.addApplication``, ``MaxRunningAppsEnforcer``);
* :mod:`~corescheduler.core.resource_moves` — moving a live app to another leaf
  (``FairScheduler.moveApplication``, ``CapacityScheduler.moveApplication``);
* :mod:`~corescheduler.core.resource_shares` — demands, shares and the assignment
  orders (``FairScheduler.update``);
* :mod:`~corescheduler.core.resource_reservations` — AM limits and reservations
  (``FSLeafQueue.canRunAppAM``, ``FSAppAttempt.reserve``);
* :mod:`~corescheduler.core.resource_preemption` — starvation and preemption
  (``FSLeafQueue.updateStarvedApps``, ``FSPreemptionThread``);
* :mod:`~corescheduler.core.resource_walk` — its answers to what a simulator reads of the
  slot engine's heartbeat walk (none is kept: every heartbeat runs);
* :mod:`~corescheduler.core.resource_scheduler` — the engine itself: nodes, the update
  and heartbeat cycle, completion and reports.

:class:`EngineState` declares the state they all read (set in ``ResourceScheduler.__init__``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from corescheduler.core.resources import Resources

if TYPE_CHECKING:
    from corescheduler.core.engine import EngineOwner
    from corescheduler.core.framework import SchedulerSettings
    from corescheduler.core.model import Job, Task
    from corescheduler.core.queue_tree import Queue, QueueTree
    from corescheduler.core.task_ledger import TaskLedger

__all__ = ["AM", "BLOCKED", "RESERVED", "EngineState", "app_user"]

#: The kind of an application master's container.
AM = "am"
#: the zero vector (what an unset share or usage reads as)
NONE = Resources()


def app_user(job: Job) -> str:
    """The app's user for the running-app limits (YARN always has one; here a job without
    a user counts as ``default``, SLS's default user)."""
    return job.user if job.user is not None else "default"


class _Reserved:
    """What an app assignment returns when it reserved the node (YARN ``CONTAINER_RESERVED``)."""


RESERVED = _Reserved()


class _Blocked:
    """What an app assignment returns when its leaf lacks the headroom for the container
    (YARN's ``QUEUE_LIMIT`` skip, ``SharePolicy.queue_headroom``): the leaf's turn ends."""


BLOCKED = _Blocked()


class EngineState:
    """The resource engine's state, as each of its parts reads it (declarations only)."""

    owner: EngineOwner
    ledger: TaskLedger
    settings: SchedulerSettings
    cluster_total: Resources
    tree: QueueTree
    user_runnable: dict[Any, int]
    user_waiting: dict[Any, list[Job]]
    #: app id -> node name -> rack, of the nodes the app holds reservations on
    reservations: dict[str, dict[str, str]]
    #: node name -> the leaf whose ``reserved`` counts the node's reservation
    reserved_leaf: dict[str, Queue]
    am_tasks: dict[str, Task]
    app_asks: dict[str, Any]
    empty_runnable: list[Job]
    starvation: dict[str, Resources]
    _steady_dirty: bool
    #: (the tree's version, its levels, the share plan): ShareUpdate._level_plan
    _levels_state: tuple[int, list[list[Queue]], list[tuple[dict[str, Any], dict[str, list[Queue]]]]]
    _threshold: Resources
    _key_fns: dict[str, Any]
    _admit_fns: dict[str, Any]
    _admit_leaves: set[Queue]
    _preempted_at: dict[str, float]
    _at_min_share: dict[str, float]
    _at_fair_share: dict[str, float]
    _starvation_time: float
