"""The engine contract: what the scheduler needs from an engine, and an engine from it.

:class:`~corescheduler.core.scheduler.Scheduler` is the one object callers use (submit,
heartbeat, finish, kill, update, preempt).  Under it runs one engine, picked once when it is
built: the slot engine (:class:`~corescheduler.core.slot_engine.SlotEngine`, MR1 pools,
maps and reduces in slots) or the resource engine
(:class:`~corescheduler.core.resource_scheduler.ResourceScheduler`, YARN queues and
resource vectors).  Both launch and end task attempts through one
:class:`~corescheduler.core.task_ledger.TaskLedger`, which owns the attempts' state, the
running set and their events; an engine accounts for capacity and keeps its orders.

This module names the two sides as protocols, so that neither engine needs anything from
``scheduler`` (no import either way at type-checking time but the scheduler's of the
engines it builds).  Dask distributed splits the same way: ``SchedulerState`` (state and
transitions) apart from the ``Scheduler`` server that feeds it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from corescheduler.core.allocations import Allocations
    from corescheduler.core.framework import EngineConfig, Plugins, SchedulerSettings
    from corescheduler.core.hints import Hint
    from corescheduler.core.model import Assignment, Cluster, Job, JobSpec, Node, Pool, PreemptionPlan, Task
    from corescheduler.core.resources import Resources
    from corescheduler.core.task_ledger import TaskLedger

__all__ = ["Engine", "EngineOwner"]


class Engine(Protocol):
    """What the scheduler asks of its engine.

    The scheduler calls these after its own checks (the clock ticked, the task or node
    exists); it names plugin errors.  A heartbeat and an update are one call each: the hot
    loops are the engine's.
    """

    # ------------------------------------------------------------------ allocations
    @staticmethod
    def check_allocations(plugins: Plugins, settings: SchedulerSettings, allocations: Allocations) -> None:
        """Raise AllocationError if ``allocations`` cannot be put in force (a policy they name
        does not load), before anything changes."""

    def reconfigure(self, known: list[str]) -> None:
        """The owner's new allocations are in force (``known``: the pools or leaves the
        PoolResolvers configure themselves, ``cs_known_pools``)."""

    # ------------------------------------------------------------------ the cycle
    def update(self, now: float) -> None:
        """Recompute runnability, demands, shares and orders; then ``cs_update``."""

    def heartbeat(self, node: Node, now: float) -> list[Assignment]:
        """Assign tasks to ``node``, between ``cs_heartbeat_start`` and ``cs_heartbeat_end``;
        the assignments in launch order."""
        ...

    def idle_heartbeat(self, node: Node, now: float) -> None:
        """A heartbeat the caller knows assigns nothing: ``cs_heartbeat_start`` and no more."""

    # ------------------------------------------------------------------ nodes
    def node_added(self, node: Node, resources: Resources | None) -> None:
        """``node`` joined (``resources``: what it offers in resource mode); raise
        SchedulerStateError to refuse it (the scheduler takes it back)."""

    def node_leaving(self, node: Node, now: float) -> list[Task]:
        """``node`` is leaving: its running tasks are killed (they run again); them."""
        ...

    def nodes_changed(self) -> None:
        """A node has left the cluster."""

    # ------------------------------------------------------------------ jobs
    def spec_problem(self, spec: JobSpec) -> str | None:
        """What this engine cannot run in ``spec`` (the submission's error), or None."""
        ...

    def live_queues(self) -> Mapping[str, str]:
        """Every queue now, full name → ``"leaf"`` or ``"parent"`` (for the PoolResolvers)."""
        ...

    def place_job(self, job: Job, now: float) -> None:
        """Place ``job`` in its pool or queue (``job.pool``, the PoolResolver's answer; the
        engine may rename it); raise the scheduler's ``rejected()`` error to refuse it."""

    def admit_job(self, job: Job, now: float) -> None:
        """After ``job_submit``: make the placed job runnable now if the engine admits jobs
        at submission (it may write ``job_start``)."""

    def next_empty(self) -> Job | None:
        """A runnable job with no task at all (the scheduler ends it), or None."""
        ...

    def output_lost(self, task: Task, was_schedulable: bool) -> None:
        """A finished map is pending again (the ledger counted it: ``lost``);
        ``was_schedulable``: its job's reduces were past slow start before."""

    def job_changed(self, job: Job) -> None:
        """An admin action changed ``job`` (its priority); the scheduler updates next."""

    def priority_allowed(self, job: Job, priority: str, caller: tuple[str, Sequence[str]] | None = None) -> None:
        """Admin action, first step of a priority change to ``priority`` (a checked name): the
        policy's rules (resource mode: :meth:`SharePolicy.set_priority
        <corescheduler.core.policy.SharePolicy.set_priority>`) refuse it with AccessDeniedError
        naming the rule, or take it; ``caller`` is who asks (None: the system)."""
        ...

    def move_target(self, job: Job, pool_name: str, caller: tuple[str, Sequence[str]] | None = None) -> str | None:
        """Admin action, first step: the pool or leaf queue ``job`` would move to when asked to
        move to ``pool_name``, every rule of the engine and its policy checked (a refusal raises
        SchedulerStateError naming the job, the target and the rule; ``caller``, the user and
        groups asking, must be allowed to submit there where submission checks ACLs:
        AccessDeniedError); None when there is nothing to move (it is there; in slot mode, or
        it has ended — resource mode refuses an ended app, as ``FairScheduler.moveApplication``).
        Changes nothing."""
        ...

    def move_job(self, job: Job, target: str, now: float) -> None:
        """Admin action, second step: ``job`` and its running tasks' accounting leave its pool
        or queue for ``target``, :meth:`move_target`'s answer (the scheduler then tells the
        plugins, ``cs_job_moved``, and updates)."""

    def job_removed(self, job: Job, now: float) -> None:
        """``job`` ended (finished, killed or failed): it leaves its pool or queue and the
        orders."""

    def drop_empty(self) -> list[str]:
        """Forget the pools or dynamic queues placement created that are empty; their names."""
        ...

    # ------------------------------------------------------------------ task attempts
    def give_back(self, task: Task, node: Node | None) -> None:
        """``task``, just released by the ledger, gives back its capacity on ``node`` (None:
        the node has left) and in its job's and pool's or queues' usage."""

    def finish_task(self, task: Task, now: float, output_bytes: float | None) -> bool:
        """The running ``task`` completed (ledger: release, complete, finished); True when its
        job has no task left (the scheduler then ends the job)."""
        ...

    def kill_task(self, task: Task, now: float, reason: str) -> None:
        """Kill the running ``task``: it is pending again (ledger: release, requeue,
        preempted)."""

    def preempt_tasks(self, now: float) -> list[Task]:
        """Preemption is due now: kill what the engine's preemption chooses; the killed."""
        ...

    def preemption_due(self, now: float, last: float) -> bool:
        """Is a preemption check due at ``now``, the last having run at ``last``?  Every
        ``[scheduler] preemption_interval``; resource mode, a root policy that runs its own
        monitor (``choose_victims``) and answers ``preemption_hint``: when that hint's ``until``
        has come (the monitor's own interval, e.g. ``monitoring_interval``)."""
        ...

    def running_work(self) -> bool:
        """Does a task run that shows progress (resource mode: not an application master)?"""
        ...

    def has_requests(self) -> bool:
        """Has some job a task or request to offer?"""
        ...

    # ------------------------------------------------------------------ what a simulator reads
    # (the slot engine's walk, :mod:`~corescheduler.core.slot_walk`; the resource engine
    # keeps none and answers so that every heartbeat runs, :mod:`~corescheduler.core.resource_walk`)
    track_reach: bool

    @property
    def pools(self) -> Mapping[str, Pool]:
        """MR1's pools by name (resource mode: none)."""
        ...

    @property
    def pending_tasks(self) -> Mapping[str, int]:
        """The tasks of each kind waiting in runnable jobs (resource mode: 0)."""
        ...

    def pending_work(self, kind: str) -> int:
        """An upper bound on the tasks of ``kind`` a heartbeat could launch now."""
        ...

    def skip_quiet_heartbeat(self, node_name: str, now: float) -> bool:
        """Count a heartbeat whose outcome is known as done (True), else change nothing."""
        ...

    @property
    def can_park(self) -> bool:
        """Can a simulator stop beating nodes that no job wants?"""
        ...

    @property
    def walk_version(self) -> int:
        """Changes whenever the jobs a heartbeat walks for maps may have changed."""
        ...

    @property
    def walk_settled(self) -> bool:
        """Did the last heartbeat walk every job for maps and launch nothing, unchanged since?"""
        ...

    @property
    def has_reach_changes(self) -> bool:
        """Are there reach changes to take?"""
        ...

    def walk_state(self) -> tuple[int, bool, bool]:
        """``(walk_version, walk_settled, has_reach_changes)``."""
        ...

    def take_reach_changes(self) -> dict[str, str]:
        """The jobs whose map reach may have widened since the last call; forget them."""
        ...

    def map_walk(self) -> list[Job]:
        """The jobs a heartbeat that finds no map walks, in order."""
        ...

    def wants_idle_heartbeat(self) -> bool:
        """Would a heartbeat that offers no job a slot change the TaskSelector's answers now?"""
        ...

    def preemption_plan(self, kind: str, now: float) -> PreemptionPlan:
        """What the root share policy would preempt for ``kind`` now (no kill)."""
        ...

    def preemption_hint(self, now: float) -> float:
        """Until when no preemption check can find anything (``-inf``: unknown)."""
        ...

    # ------------------------------------------------------------------ reports
    def shares_report(self) -> dict[str, Any]:
        """The scheduler's ``shares()``."""
        ...

    def snapshot_report(self) -> dict[str, Any]:
        """The scheduler's ``snapshot()`` without its ``time``."""
        ...


class EngineOwner(Protocol):
    """What an engine reads from the scheduler that runs it.

    The engine writes none of it: task attempts change through :attr:`ledger`'s methods,
    a running task is killed through :meth:`kill` (the scheduler's public call), a job ends
    through :meth:`_finish_job` and the clock moves through :meth:`_tick`.  The other
    underscored helpers are the scheduler's checks of plugin answers, shared with its engine.
    """

    config: EngineConfig
    settings: SchedulerSettings
    cluster: Cluster
    allocations: Allocations
    plugins: Plugins
    ledger: TaskLedger
    now: float
    reuse_quiet_updates: bool
    strict_fit: bool
    would_preempt: list[Task]
    _rack_of: dict[str, str]

    @property
    def jobs(self) -> Mapping[str, Job]:
        """Submitted jobs that have not ended, in submission order."""
        ...

    def rejected(self, reason: str, access: bool = False) -> Exception:
        """The error for a refused submission."""
        ...

    def kill(self, task_id: str, now: float | None = None, reason: str = "preempted") -> Task:
        """Kill a running task (it runs again)."""
        ...

    def _tick(self, now: float | None) -> float:
        """Move the clock to ``now`` (a skipped heartbeat counts as done)."""
        ...

    def _finish_job(self, job: Job, now: float, update: bool = True, state: str = "finished",
                    reason: str = "") -> None:
        """``job`` ends (its events, ``cs_job_removed``; the engine's ``job_removed``)."""

    def _finish_empty(self, now: float) -> None:
        """End the runnable jobs with no task (the engine's ``next_empty``)."""

    def _select_hint(self, job: Job, kind: str, now: float) -> Hint | None:
        """The TaskSelector's ``cs_select_hint``, checked."""
        ...

    def _known_pools(self, allocations: Allocations) -> list[str]:
        """The pools the PoolResolvers configure themselves (``cs_known_pools``)."""
        ...

    def _weight(self, adjust: Any, result: Any) -> float:
        """A WeightAdjuster's answer, checked."""
        ...

    def _who(self, point: str) -> Any:
        """The plugin configured at an extension point (for error messages)."""
        ...

    def _check_selected(self, task: Any, job: Job, kind: str) -> Task:
        """A TaskSelector's answer, checked."""
        ...
