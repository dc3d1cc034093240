"""The contract between the core and plugins: every hook corescheduler calls.

Hooks are pluggy hook specifications in the ``corescheduler`` project, all
named ``cs_…``.  A plugin is an object (usually an instance of a class named
by an entry point in the ``corescheduler`` group) whose methods are marked
with :data:`hookimpl`; it may implement any subset of these hooks and may
leave out trailing parameters it does not need (pluggy passes only the
arguments a hook implementation names).

Which plugin answers at each *extension point* comes from the config
(``[scheduler]`` in ``corescheduler.toml``), never from registration order.
The whole contract, one line a hook (*optional* hooks have a default):

=================================  ==================================================
extension point (config key)       hook: what it answers
=================================  ==================================================
PoolResolver (``pool_resolver``)   :func:`cs_resolve_pool`: the pool a job joins, or a rejection (chain)
                                   :func:`cs_known_pools`: pools it configures itself (optional)
WeightAdjuster                     :func:`cs_adjust_weight`: a job's weight (chain)
(``weight_adjusters``)
LoadManager (``load_manager``)     :func:`cs_can_assign`: may a node take one more task of a kind
                                   :func:`cs_can_launch`: may a job launch there now (optional)
                                   :func:`cs_fits`: resource mode: does a container fit (optional)
                                   :func:`cs_can_compute`: may a copied reduce compute (optional)
                                   :func:`cs_node_capacity`: most tasks of a kind a node runs (optional)
TaskSelector (``task_selector``)   :func:`cs_select_task`: which pending task of a job runs on a node
                                   :func:`cs_select_hint`: until when that answer holds (optional)
SharePolicy (``share_policy``,     :func:`cs_compute_shares`: the shares of pools or jobs
each pool's ``schedulingMode``)    :func:`cs_compute_shares_many`: many groups at once (optional)
                                   :func:`cs_order_key`: the assignment order
                                   :func:`cs_admit_job`: offer a job a slot now or defer it (optional)
                                   :func:`cs_next_kind`: maps or reduces first on a node (optional)
                                   :func:`cs_plan_preemption`: what to preempt now (optional)
                                   :func:`cs_preemption_hint`: until when nothing is (optional)
VictimSelector                     :func:`cs_select_victims`: which running tasks to kill
(``victim_selector``)
(every plugin in use, and          :func:`cs_job_added` … :func:`cs_task_preempted`: notifications
``listeners``)
=================================  ==================================================

The two hint hooks return a :class:`~corescheduler.core.hints.Hint` ("my answer stays
until time T, or until one of these events"): engines use them to skip heartbeats and
updates whose outcome is known.  A plugin without them is exact, just slower.  A
LoadManager may also declare, as plain data, ``empty_nodes_take_tasks = True`` (see
:func:`cs_can_assign`).  The simulator-only hooks of 0.x (``cs_wants_idle_heartbeat``,
``cs_would_select``, ``cs_map_reach``, ``cs_assign_limit``) are gone: a plugin that
implements one is refused at load time with the hook to use instead (:data:`REMOVED_HOOKS`).

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

from corescheduler.core.hints import Hint
from corescheduler.core.model import (
    Assignment,
    ClusterLoad,
    Job,
    JobSpec,
    Node,
    Pool,
    PreemptionPlan,
    Rejection,
    Schedulable,
    Task,
)

if TYPE_CHECKING:
    from corescheduler.core.allocations import Allocations

PROJECT = "corescheduler"
hookspec = pluggy.HookspecMarker(PROJECT)
#: Mark a plugin method as a hook implementation: ``@hookimpl def cs_select_task(...)``.
hookimpl = pluggy.HookimplMarker(PROJECT)

#: Extension point name -> hook names, in the order they are documented.
EXTENSION_POINTS: dict[str, tuple[str, ...]] = {
    "PoolResolver": ("cs_resolve_pool", "cs_known_pools"),
    "WeightAdjuster": ("cs_adjust_weight",),
    "LoadManager": (
        "cs_can_assign", "cs_can_launch", "cs_fits", "cs_can_compute", "cs_node_capacity",
    ),
    "TaskSelector": ("cs_select_task", "cs_select_hint"),
    "SharePolicy": (
        "cs_compute_shares", "cs_compute_shares_many", "cs_order_key", "cs_admit_job", "cs_next_kind",
        "cs_plan_preemption", "cs_preemption_hint",
    ),
    "VictimSelector": ("cs_select_victims",),
}
#: Hooks of earlier releases that are gone -> what to implement instead.  A plugin that still
#: implements one is refused when it is loaded (a PluginLoadError naming the hook and this text).
REMOVED_HOOKS: dict[str, str] = {
    "cs_would_select": "cs_select_hint (a Hint whose level says where the job takes a task)",
    "cs_map_reach": "cs_select_hint (a Hint: level and until)",
    "cs_wants_idle_heartbeat": "cs_select_hint (a Hint whose events include NOT_OFFERED for a job "
                               "whose state a heartbeat that passes it by changes)",
    "cs_assign_limit": "the LoadManager attribute empty_nodes_take_tasks = True (see cs_can_assign)",
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

    A load manager may declare, as a class attribute, ``empty_nodes_take_tasks = True``:
    it answers ``True`` for a node that runs no task of ``kind`` and has a slot of it
    whenever ``load.runnable > load.running``, with no side effects (``slots`` and
    ``cap_based`` do).  Simulators then stop beating nodes no job wants (parking).

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
def cs_select_hint(job: Job, kind: str, now: float) -> Hint | None:
    """TaskSelector, optional: until when does :func:`cs_select_task`'s answer for ``job``
    stay what it would be on a heartbeat at ``now``?  A question: change nothing.

    :return: a :class:`~corescheduler.core.hints.Hint`: on heartbeats at times in
        ``[now, until)`` that follow the last one with none of ``events`` between, the
        selector gives ``job`` a task of ``kind`` on a node exactly when
        ``job.pending_map(node, level)`` finds one (for a kind without locality, whenever
        ``job`` has a pending task: ``level="off"``).  A heartbeat at ``now`` is taken to
        follow the last one (``delay`` credits its waits up to ``now``).  ``until`` is the
        first time the answer may change with time alone (it only widens then).  ``None``:
        don't know (the heartbeat is run).

    The engine asks again after every update, launch, finish, kill, submission and
    removal, and at ``until``.  By answering, a selector also promises that a heartbeat on
    which it is asked for no task changes nothing but what ``events`` names, and that
    the LoadManager's and share policies' heartbeat hooks have no side effects to it.
    Hints are used only while the selector is the one plugin in use listening to
    heartbeats (``cs_heartbeat_start``/``cs_heartbeat_end``).  Slot mode; called by
    simulators (quiet heartbeats, parked nodes: docs/simulator.md), many times a
    simulated second: keep it cheap.

    **First non-None result wins** (only the named task selector is asked).
    """


# --------------------------------------------------------------------------- SharePolicy


@hookspec(firstresult=True)
def cs_compute_shares(
    schedulables: Sequence[Schedulable], capacity: Any, kind: str, steady: bool
) -> Sequence[Any] | None:
    """Divide ``capacity`` slots of ``kind`` among ``schedulables``.

    **Resource mode** (``[scheduler] mode = "resources"``): ``kind`` is
    ``"resources"``, ``capacity`` is a :class:`~corescheduler.resources.Resources`
    (the parent queue's share), each schedulable's ``min_share``,
    ``max_share``, ``demand``, ``running`` (usage) are Resources, and the
    answer is one Resources per schedulable (``None`` = none, as for all but
    the first app of a ``fifo`` queue).  Called top-down on each parent
    queue's policy for its child queues and on each leaf's policy for its
    runnable apps; ``steady`` is true when computing *steady* shares (every
    queue counts; YARN ``computeSteadyShares``), false for instantaneous
    shares (a queue that is not ``active`` gets none: YARN ``computeShares``).
    A policy that only knows slot mode returns ``None`` there and the
    scheduler says so.

    Called on every update: on the policy named by ``[scheduler]
    share_policy`` for the pools (capacity = the cluster's slots of
    ``kind``), and on each pool's policy (its ``schedulingMode``, default
    ``defaultPoolSchedulingMode``) for the pool's runnable jobs (capacity =
    the pool's fair share).

    :param schedulables: pools or jobs, each with ``weight``, ``min_share``,
        ``max_share``, ``demand``, ``running``, ``start_time`` and ``priority``
        already updated for this cycle.
    The result must depend only on the schedulables and ``capacity`` (not on
    the clock or hidden state): a simulator may reuse it while nothing changed
    (``[simulation] reuse_quiet_updates``).  Time-driven behaviour belongs in
    :func:`cs_plan_preemption` or a WeightAdjuster.

    :return: a list (or tuple) of one share per schedulable, in order: slot
        mode a finite real number ≥ 0, resource mode Resources with no
        negative amount, or ``None`` = not applicable, shown as n/a, as for
        jobs in a FIFO pool; ``None`` for "not my policy".

    **First non-None result wins** (only the named policy is asked).
    """


@hookspec(firstresult=True)
def cs_compute_shares_many(
    groups: Sequence[tuple[Sequence[Schedulable], Any]], kind: str, steady: bool
) -> Sequence[Sequence[Any]] | None:
    """Optional: :func:`cs_compute_shares` for many groups at once.

    **Resource mode** computes a queue tree's shares a level at a time;
    the parents of one level whose policy is this one are handed over
    together, as ``(schedulables, capacity)`` pairs (a leaf's runnable apps
    and its share, a parent's child queues and its share).  The answer is
    one list of shares per group, exactly what :func:`cs_compute_shares`
    would give for each: a policy implements this only to compute them
    faster (``fair`` and ``drf`` run YARN's search for every group in
    lockstep with numpy).  A policy without it is called once per group.

    :return: the groups' shares in order; ``None`` for "not my policy" (or
        not this mode), and the scheduler calls :func:`cs_compute_shares`.

    **First non-None result wins** (only the named policy is asked).
    """


@hookspec(firstresult=True)
def cs_order_key(schedulable: Schedulable) -> Any:
    """The sort key that orders pools (or jobs in a pool) for assignment.

    In resource mode the schedulable's amounts are Resources and
    ``schedulable.cluster`` is the cluster's total (DRF's shares are of it);
    the key orders child queues under a parent and apps in a leaf (YARN's
    policy comparators).

    Called by the core whenever a schedulable's running count, demand, weight
    or share changes, on the same policy as :func:`cs_compute_shares`.  The
    schedulable with the smallest key is offered a free slot first.  Keys of
    one policy must be mutually comparable and should end with a unique
    tie-breaker (the ``name``) so that the order is deterministic.

    :return: a comparable key (a tuple); keys of one policy must compare with
        each other.  ``None`` is refused (only the named policy is asked).

    **First non-None result wins** (only the named policy is asked).
    """


@hookspec(firstresult=True)
def cs_admit_job(job: Job, kind: str, now: float) -> bool | Rejection | None:
    """May ``job`` be offered a slot of ``kind`` now, or should it wait its turn?

    Called during a heartbeat on the policy of the job's pool (only if that
    policy implements it), for each job in the pool's order, before the
    LoadManager's :func:`cs_can_launch` and the TaskSelector.

    :return: ``False`` *defers* the job: it is offered the slot only if no
        other job of its pool takes it (the Hadoop Capacity Scheduler's second
        pass over users above their user limit).  ``True`` or ``None``: offer
        the slot now.

    **First non-None result wins** (only the pool's policy is asked).
    """


@hookspec(firstresult=True)
def cs_next_kind(node: Node) -> str | None:
    """Which slot kind a heartbeat tries first when ``node`` could take a map
    and a reduce.

    Called during a heartbeat, before each assignment while neither kind has
    been ruled out on it, on the policy named by ``[scheduler] share_policy``
    (only if it implements this optional hook).  The other kind is still
    tried when the chosen one yields no task.  The Hadoop Capacity
    Scheduler's ``assignTasks`` tries reduces first only when the node has
    more free reduce slots than free map slots.

    :return: ``"map"`` or ``"reduce"`` (anything else is refused); ``None``:
        the core's rule (Hadoop's fair scheduler: maps while the node runs no
        more maps than reduces).

    **First non-None result wins** (only the root policy is asked).
    """

@hookspec(firstresult=True)
def cs_plan_preemption(pools: Sequence[Schedulable], kind: str, now: float) -> PreemptionPlan | None:
    """Decide whether tasks of ``kind`` must be preempted now, and how many.

    Called when ``[scheduler] preemption`` is on, after an update, at most
    every ``preemption_interval``, on the policy named by ``share_policy``
    only.

    :param pools: every pool's schedulable for ``kind`` (fair shares,
        running counts, starvation times and timeouts up to date).
    :return: a :class:`~corescheduler.core.model.PreemptionPlan` (count 0 = nothing
        to do), or ``None`` when the policy never preempts.  Its own ``victims``, if
        set, are at most ``count`` running tasks of ``kind`` of this scheduler (the
        very objects), each once; else a :class:`~corescheduler.errors.PluginAnswerError`.

    **First non-None result wins.**
    """


@hookspec(firstresult=True)
def cs_preemption_hint(pools: Sequence[Schedulable], kind: str, now: float) -> Hint | None:
    """SharePolicy, optional: until when does :func:`cs_plan_preemption` find nothing to
    preempt of ``kind``, with nothing changing but the clock and the starvation times the
    updates move?  A question: change nothing.

    :return: a :class:`~corescheduler.core.hints.Hint` whose ``until`` is the first
        time a check may find something (early is safe;
        :func:`corescheduler.core.hints.until_starved` for a plan that preempts only for
        starved pools, as ``fair``'s); ``None``: don't know (every update and check runs
        while tasks wait).

    Called on the policy named by ``share_policy`` by engines that skip updates between
    events (the simulator's ``skip_idle_updates``), while tasks wait and none can launch.

    **First non-None result wins.**
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

