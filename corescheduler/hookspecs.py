"""The contract between the core and plugins: every hook corescheduler calls.

Hooks are pluggy hook specifications in the ``corescheduler`` project, all
named ``cs_…``.  A plugin is an object (usually an instance of a class named
by an entry point in the ``corescheduler`` group) whose methods are marked
with :data:`hookimpl`; it may implement any subset of these hooks and may
leave out trailing parameters it does not need (pluggy passes only the
arguments a hook implementation names).

Which plugin answers at each *extension point* comes from the config
(``[scheduler]`` in ``corescheduler.toml``), never from registration order:

================  ===================  =====================================
extension point   config key           hook(s)
================  ===================  =====================================
PoolResolver      ``pool_resolver``    :func:`cs_resolve_pool` (chain), :func:`cs_known_pools`
WeightAdjuster    ``weight_adjusters`` :func:`cs_adjust_weight` (chain)
LoadManager       ``load_manager``     :func:`cs_can_assign`, :func:`cs_can_launch`,
                                       :func:`cs_can_compute`, :func:`cs_node_capacity`,
                                       :func:`cs_assign_limit`
TaskSelector      ``task_selector``    :func:`cs_select_task`, :func:`cs_wants_idle_heartbeat`,
                                       :func:`cs_would_select`, :func:`cs_map_reach`
SharePolicy       ``share_policy`` and each pool's ``schedulingMode``
                                       :func:`cs_share_policy` (a
                                       :class:`~corescheduler.core.policy.SharePolicy` object)
VictimSelector    ``victim_selector``  :func:`cs_select_victims`
================  ===================  =====================================

The notification hooks at the end are called on every plugin in use (those
selected above plus ``[scheduler] listeners``), in config order; their
return values are ignored.

Hooks are listed in the order they run: job placement, the periodic update,
a heartbeat's assignment, preemption, then notifications.  The objects
handed to hooks are the scheduler's own (:mod:`corescheduler.core.model`): read
them, do not change them (``node.running`` and ``job.pool`` refuse a write).

Every answer is checked where it enters the scheduler, in both modes
(:mod:`corescheduler.hook_answers`): an answer a hook may not give (``"no"``
for a flag, a NaN or negative share, a weight that is a string or a bool,
``"banana"`` for a slot kind) is a
:class:`~corescheduler.errors.PluginAnswerError` naming the plugin, the hook,
the value and what was expected; ``sys.exit()`` in a hook is a
:class:`~corescheduler.errors.PluginExecutionError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pluggy

from corescheduler.core.model import (
    Assignment,
    ClusterLoad,
    Job,
    JobSpec,
    Node,
    Pool,
    Rejection,
    Task,
)

if TYPE_CHECKING:
    from corescheduler.core.allocations import Allocations
    from corescheduler.core.policy import SharePolicy

PROJECT = "corescheduler"
hookspec = pluggy.HookspecMarker(PROJECT)
#: Mark a plugin method as a hook implementation: ``@hookimpl def cs_select_task(...)``.
hookimpl = pluggy.HookimplMarker(PROJECT)

#: Extension point name -> hook names, in the order they are documented.
EXTENSION_POINTS: dict[str, tuple[str, ...]] = {
    "PoolResolver": ("cs_resolve_pool", "cs_known_pools"),
    "WeightAdjuster": ("cs_adjust_weight",),
    "LoadManager": (
        "cs_can_assign", "cs_assign_limit", "cs_can_launch", "cs_fits", "cs_can_compute", "cs_node_capacity",
    ),
    "TaskSelector": ("cs_select_task", "cs_wants_idle_heartbeat", "cs_would_select", "cs_map_reach"),
    "SharePolicy": ("cs_share_policy",),
    "VictimSelector": ("cs_select_victims",),
}
#: Hooks called on every plugin in use.
NOTIFICATION_HOOKS: tuple[str, ...] = (
    "cs_job_added",
    "cs_job_removed",
    "cs_update",
    "cs_heartbeat_start",
    "cs_task_started",
    "cs_heartbeat_end",
    "cs_task_phase",
    "cs_task_finished",
    "cs_task_preempted",
)


# --------------------------------------------------------------------------- PoolResolver


@hookspec(firstresult=True)
def cs_resolve_pool(job: JobSpec, allocations: Allocations, queues: Mapping[str, str]) -> str | Rejection | None:
    """Decide which pool (queue) a submitted job goes to.

    Called once when a job is submitted, on the plugins named by
    ``[scheduler] pool_resolver`` (a name or a list), in that order.

    :param job: the job as submitted (user, requested ``pool``, groups,
        ``properties``).
    :param allocations: the allocations in force
        (:class:`corescheduler.formats.allocation_file.Allocations`), to check which pools
        are configured.
    :param queues: resource mode: every queue that exists now, configured or
        created at run time, by full name (``root.a.b``) → ``"leaf"`` or
        ``"parent"`` (YARN's placement rules look at the live queues); empty in
        slot mode.
    :return: a pool name; a :class:`~corescheduler.core.model.Rejection` to refuse
        the job (the submission fails with its reason); or ``None`` for "no
        opinion", which passes the question to the next resolver.

    **First non-None result wins.**  If every resolver returns ``None`` the
    job goes to the pool named ``default``.
    """


@hookspec
def cs_known_pools(allocations: Allocations) -> Sequence[str] | None:
    """Name the pools (queues) a resolver configures itself, so that they exist
    before any job is placed in them (e.g. the ``capacity`` plugin's queues).

    Called whenever allocations are put in force (at start-up and on every
    reload), on the plugins named by ``[scheduler] pool_resolver`` that
    implement it, in that order.  Optional: a resolver without it creates its
    pools as jobs arrive.

    :param allocations: the allocations in force (their pools exist anyway).
    :return: pool names, or ``None`` for none.

    **Chained:** every resolver's pools are created, in config order (names
    already there are kept as they are).
    """


# --------------------------------------------------------------------------- WeightAdjuster


@hookspec
def cs_adjust_weight(job: Job, kind: str, weight: float, now: float) -> float | None:
    """Adjust a runnable job's weight for one slot kind.

    Called on every update (job added or removed, and every
    ``update_interval``) for each runnable job and each kind, on the plugins
    named by ``[scheduler] weight_adjusters`` in that order.

    :param job: the job (its demand for ``kind`` is already up to date in
        ``job.sched[kind].demand``).
    :param kind: ``"map"`` or ``"reduce"``.
    :param weight: the weight so far: the priority factor (NORMAL 1, each
        level ×2) for the first adjuster, the previous adjuster's result after.
    :param now: the scheduler clock, seconds.
    :return: the new weight, a finite real number ≥ 0 (an int or a float; not
        a bool or a string).  ``None`` keeps ``weight``.

    **Chained:** each adjuster receives the previous one's result; the last
    result is the job's weight (Hadoop's WeightAdjuster).
    """


# --------------------------------------------------------------------------- LoadManager


@hookspec(firstresult=True)
def cs_can_assign(node: Node, kind: str, load: ClusterLoad) -> bool | None:
    """May ``node`` take one more task of ``kind`` on this heartbeat?

    Called during a heartbeat before each assignment of that kind, on the
    plugin named by ``[scheduler] load_manager`` (Hadoop's
    ``LoadManager.canAssignMap/canAssignReduce``).

    :param node: the heartbeating node; ``node.running[kind]`` already counts
        the tasks assigned earlier in this heartbeat.
    :param kind: ``"map"`` or ``"reduce"``.
    :param load: cluster totals for ``kind``: demanded tasks of runnable jobs,
        running tasks and slots.
    :return: ``True`` to allow, ``False`` to stop assigning tasks of this kind
        on this heartbeat (exactly a bool: ``"no"`` or ``0`` is refused).
        ``None`` (or no load manager) means the node's slot count decides.

    **First non-None result wins.**
    """


@hookspec(firstresult=True)
def cs_assign_limit(node: Node, kind: str, load: ClusterLoad) -> int | None:
    """LoadManager, optional: the most tasks of ``kind`` ``node`` may run under ``load`` —
    a promise that :func:`cs_can_assign` is exactly ``node.running[kind] < limit`` and that
    the limit depends on nothing but ``node.slots`` and ``load``.

    The simulator uses it to leave nodes that run no map and that no job wants out of the
    heartbeat schedule (``Scheduler.skip_quiet_heartbeat``): it knows from the limit when
    such a node could no longer take a map.  ``slots`` and ``cap_based`` implement it.
    ``None``: no such promise.

    Called by the simulator on the plugin named by ``[scheduler] load_manager`` after each
    update, once per distinct slot count of the cluster's nodes.

    **First non-None result wins.**
    """


@hookspec(firstresult=True)
def cs_can_launch(node: Node, job: Job, kind: str) -> bool | None:
    """May ``job`` launch a task of ``kind`` on ``node`` now?

    Called on the load manager for each job considered during a heartbeat,
    before the TaskSelector (Hadoop's ``LoadManager.canLaunchTask``).

    :return: ``False`` to skip the job on this heartbeat for this kind;
        ``True`` or ``None`` to go on.

    **First non-None result wins.**
    """


@hookspec(firstresult=True)
def cs_fits(node: Node, task: Task, resources: Any) -> bool | None:
    """Resource mode: may ``task``'s container of ``resources`` start on ``node`` now?

    Called during a heartbeat for the request the TaskSelector chose, on the
    configured LoadManager.  Default (``None``): it fits in what the node has
    unallocated (``Resources.fitsIn(request, node.getUnallocatedResource())``,
    YARN ``FSAppAttempt.assignContainer``).  ``False``: it does not fit, and the
    app may reserve the node (YARN reservations).
    **First non-None result wins.**
    """


@hookspec(firstresult=True)
def cs_can_compute(task: Task, node: Node) -> bool | None:
    """May a reduce whose copy (shuffle) phase is over start computing now?

    Called on the load manager when the engine reports that ``task`` (a
    reduce running on ``node``) has copied all its input — the job's maps are
    done — and again, for reduces still waiting, whenever a reduce on that
    node finishes or is killed.  ``node.computing`` counts the node's reduces
    already in their compute phase.

    :return: ``False`` to make the reduce wait (it keeps its place and is
        asked again); ``True`` or ``None`` to start computing now (the default:
        a reduce holds its slot from launch to finish).

    **First non-None result wins.**
    """


@hookspec(firstresult=True)
def cs_node_capacity(node: Node, kind: str) -> int | None:
    """The most tasks of ``kind`` ``node`` can run at once, in any phase.

    Called by engines (the simulator) to know which nodes could take a task,
    so that they spend no heartbeats on full nodes; and by reports.

    :return: a whole number ≥ 0 (``2`` or ``2.0``; not ``2.5``, ``"2"`` or
        ``True``); ``None`` means ``node.slots[kind]``.

    **First non-None result wins.**
    """


# --------------------------------------------------------------------------- TaskSelector


@hookspec(firstresult=True)
def cs_select_task(job: Job, node: Node, kind: str, now: float) -> Task | None:
    """Choose which pending task of ``job`` runs on ``node``.

    Called during a heartbeat on the plugin named by ``[scheduler]
    task_selector``, for each job in scheduling order until one returns a
    task.  The core has already checked the node's load and the pool's limits.

    :param job: a runnable job.  ``job.pending_map(node, level)``,
        ``job.pending_map_on_node``, ``job.pending_map_on_rack`` and
        ``job.pending_task(kind)`` find candidates cheaply.
    :param node: the heartbeating node.
    :param kind: ``"map"`` or ``"reduce"``.
    :param now: the scheduler clock, seconds.
    :return: a pending :class:`~corescheduler.core.model.Task` of ``job`` and
        ``kind`` to launch, or ``None`` when the job has nothing it wants to
        run on this node (the job is then *skipped*, and the next job is
        asked).

    **First non-None result wins.**
    """


@hookspec(firstresult=True)
def cs_wants_idle_heartbeat() -> bool | None:
    """TaskSelector, optional: would a heartbeat that can assign nothing change
    the selector's state now?

    A real TaskTracker heartbeats whenever it has a free slot, and every
    heartbeat runs ``cs_heartbeat_start`` (Hadoop's ``assignTasks`` begins
    with ``updateLocalityWaitTimes``) even when nothing can be launched.  The
    simulator skips such heartbeats for speed.  Before it skips one it asks
    this hook; while the answer is ``True`` it delivers the next such
    heartbeat as :meth:`Scheduler.idle_heartbeat
    <corescheduler.core.scheduler.Scheduler.idle_heartbeat>` (``cs_heartbeat_start``
    only, which is all the heartbeat would have done), so decisions are the
    same as if every node with a free slot had beaten.  ``delay`` answers
    ``True`` while jobs it skipped wait for their waiting-time credit.

    Called on the configured TaskSelector only, after heartbeats, many times
    a simulated second: keep it cheap.  First non-None result wins; ``None``
    or ``False``: such heartbeats may be skipped.
    """


@hookspec(firstresult=True)
def cs_would_select(job: Job, node: Node, kind: str, now: float) -> bool | None:
    """TaskSelector, optional: would :func:`cs_select_task` give ``job`` a task on ``node``
    on a heartbeat at ``now`` that follows one on which every job walked was skipped?

    Answer without changing anything (it is a question, not a heartbeat).  ``True`` or
    ``None`` (don't know): the heartbeat is run.  ``False`` for every job a heartbeat would
    walk lets :meth:`Scheduler.skip_quiet_heartbeat
    <corescheduler.core.scheduler.Scheduler.skip_quiet_heartbeat>` count the heartbeat as
    done without running it — the simulator does so for nodes whose every job waits for
    locality elsewhere, which is most heartbeats of a day-long trace.

    By implementing it a TaskSelector also promises that a heartbeat on which it is asked
    for no task, or on which it refuses every job and the jobs skipped are the same as on
    the heartbeat before, changes none of its state (``delay`` sums a run of skips as
    ``now - first skip``, so a repeated skip adds nothing).  It is used only while the
    TaskSelector is the only plugin that implements ``cs_heartbeat_start`` or
    ``cs_heartbeat_end``, and assumes the LoadManager's ``cs_can_assign`` and
    ``cs_can_launch`` and the share policies' ``admit_job`` have no side effects.

    Called on the configured TaskSelector only.  First non-None result wins.
    """


@hookspec(firstresult=True)
def cs_map_reach(job: Job, now: float) -> tuple[str, float] | None:
    """TaskSelector, optional (with :func:`cs_would_select`): where ``job`` would take a map
    from ``now`` on, on heartbeats that follow one on which every job walked was skipped.

    :return: ``(level, until)``: for every heartbeat at a time in ``[now, until)`` with
        nothing else changed, :func:`cs_would_select` for ``job`` on a node is ``True``
        exactly when ``job.pending_map(node, level)`` finds a map (``level``:
        ``"node"``, ``"rack"`` or ``"off"``); ``until`` (``math.inf`` if never) is the
        first time that may widen with time alone (delay scheduling's waits, a pool's
        starvation timeout).  ``None``: don't know.

    With it, and a LoadManager that implements :func:`cs_assign_limit`, the simulator
    stops beating nodes that run no map and that no job wants, and beats them again
    when a job's reach comes to include them — by the jobs' pending maps' locations
    instead of a heartbeat of every free node.  Answer without changing anything.

    Called on the configured TaskSelector only.  First non-None result wins.
    """


# --------------------------------------------------------------------------- SharePolicy


@hookspec(firstresult=True)
def cs_share_policy() -> SharePolicy | None:
    """The plugin's share policy: one :class:`~corescheduler.core.policy.SharePolicy`
    object (a plugin class may subclass it and return ``self``).

    Called once per scheduler, when the policy is first named: by ``[scheduler]
    share_policy`` (the pools; resource mode: queues without a ``schedulingPolicy``), a
    pool's ``schedulingMode`` or a queue's ``schedulingPolicy``.  The engine then calls
    the object's methods (one line each; docs/hooks.md):

    * ``order_key(s)`` — the sort key among siblings; the smallest is served first;
    * ``compute_shares(schedulables, total, steady)`` — one share of ``total`` each;
    * ``compute_shares_many(groups, steady)`` — optional, the same for many groups;
    * ``plan_preemption(pools, kind, now)`` — optional, a
      :class:`~corescheduler.core.model.PreemptionPlan` (slot mode, root policy);
    * ``admit_job(job, kind, now)`` — optional, False defers the job, a Rejection skips it;
    * ``next_kind(node)`` — optional, the slot kind a heartbeat tries first (root policy);
    * ``allows_child(child_policy)`` — may a child queue have that policy;
    * ``measure`` / ``calc`` — the measure it shares by and the engine's calculator of it.

    :return: a :class:`~corescheduler.core.policy.SharePolicy` (anything else is a
        :class:`~corescheduler.errors.PluginAnswerError`).

    Plugins written against the hooks before it (``cs_compute_shares``, ``cs_order_key``,
    ``cs_compute_shares_many``, ``cs_admit_job``, ``cs_next_kind``,
    ``cs_plan_preemption``) still load for one release, with a ``DeprecationWarning``
    (:mod:`corescheduler.share_policy_shim`).

    **First non-None result wins** (only the named policy is asked).
    """


# --------------------------------------------------------------------------- VictimSelector


@hookspec(firstresult=True)
def cs_select_victims(
    candidates: Sequence[Task], count: int, allowance: Mapping[str, int], kind: str, now: float
) -> Sequence[Task] | None:
    """Choose which running tasks to kill for a preemption plan.

    Called on the plugin named by ``[scheduler] victim_selector`` when a
    :class:`~corescheduler.core.model.PreemptionPlan` asks for ``count`` tasks and
    did not choose them itself.

    :param candidates: every running task of ``kind``, pools in order, then
        jobs, then task index.
    :param count: how many to kill.
    :param allowance: per pool name, how many of its tasks may be taken at
        most; pools not listed may give none.
    :return: at most ``count`` candidates (the very objects), respecting the
        allowances (the core enforces them); more than ``count``, or a task that
        is not a candidate, is a :class:`~corescheduler.errors.PluginAnswerError`;
        ``None`` for "no opinion".

    **First non-None result wins.**
    """


# --------------------------------------------------------------------------- notifications


@hookspec
def cs_job_added(job: Job, now: float) -> None:
    """A job was submitted and placed in ``job.pool``.  Called before the
    update that follows the submission.

    Called on every plugin in use; **return values are ignored**.
    """


@hookspec
def cs_job_removed(job: Job, now: float) -> None:
    """A job finished (all its tasks complete) or was removed.  Plugins drop
    any per-job state here.  The job's tasks are still readable now; a
    scheduler without history (``Scheduler(history=False)``, the simulator)
    empties ``job.tasks`` right after this hook, so keep what you need.

    Called on every plugin in use; **return values are ignored**.
    """


@hookspec
def cs_update(pools: Sequence[Pool], now: float) -> None:
    """An update finished: runnability, weights, demands, fair shares and
    starvation times of every pool and job are current.

    Called on every plugin in use; **return values are ignored**.
    """


@hookspec
def cs_heartbeat_start(node: Node, now: float) -> None:
    """A heartbeat from ``node`` begins, before any assignment (delay
    scheduling credits waiting time here).

    Called on every plugin in use; **return values are ignored**.
    """


@hookspec
def cs_task_started(task: Task, node: Node, locality: str | None, now: float) -> None:
    """``task`` was launched on ``node`` (``locality`` is ``node``, ``rack``
    or ``off`` for maps, ``None`` for reduces).

    Called on every plugin in use; **return values are ignored**.
    """


@hookspec
def cs_heartbeat_end(node: Node, assignments: Sequence[Assignment], skipped: Sequence[Job], now: float) -> None:
    """A heartbeat from ``node`` ended.

    :param assignments: the tasks launched on it, in order.
    :param skipped: jobs that were offered a map slot on this heartbeat but
        launched no map (Hadoop's "skipped at last heartbeat", used by delay
        scheduling).

    Called on every plugin in use; **return values are ignored**.
    """


@hookspec
def cs_task_phase(task: Task, node: Node, phase: str, now: float) -> None:
    """A reduce moved to another phase on ``node``: ``"compute"`` when its
    copy (shuffle) phase ended and it started computing.

    Called on every plugin in use; **return values are ignored**.
    """


@hookspec
def cs_task_finished(task: Task, node: Node, now: float) -> None:
    """``task`` completed on ``node`` and freed its slot.

    Called on every plugin in use; **return values are ignored**.
    """


@hookspec
def cs_task_preempted(task: Task, node: Node, now: float) -> None:
    """``task`` was killed by preemption on ``node``; it is pending again.

    Called on every plugin in use; **return values are ignored**.
    """

