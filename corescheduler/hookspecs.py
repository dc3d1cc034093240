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
                                   :func:`cs_select_ask`: resource mode: which of an app's asks (optional)
SharePolicy (``share_policy``,     :func:`cs_share_policy`: the policy object — order, shares, preemption
each pool's ``schedulingMode``)    plan and hint, admission (:class:`~corescheduler.core.policy.SharePolicy`)
VictimSelector                     :func:`cs_select_victims`: which running tasks to kill
(``victim_selector``)
(every plugin in use, and          :func:`cs_job_added` … :func:`cs_task_preempted`: notifications
``listeners``)
=================================  ==================================================

:func:`cs_select_hint` and :meth:`SharePolicy.preemption_hint
<corescheduler.core.policy.SharePolicy.preemption_hint>` return a
:class:`~corescheduler.core.hints.Hint` ("my answer stays
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
(:mod:`corescheduler.core.hook_answers`): an answer a hook may not give (``"no"``
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
        "cs_can_assign", "cs_can_launch", "cs_fits", "cs_can_compute", "cs_node_capacity",
    ),
    "TaskSelector": ("cs_select_task", "cs_select_hint", "cs_select_ask"),
    "SharePolicy": ("cs_share_policy",),
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
    "cs_job_moved",
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
def cs_select_task(job: Job, node: Node, kind: str, now: float, nodes: int) -> Task | None:
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
    :param nodes: the number of nodes in the cluster now (YARN's ``getNumClusterNodes``,
        which the Capacity Scheduler's locality delays are capped by; as ``cs_select_ask``'s).
        An implementation that names only the arguments before it (written before it was
        added) is called without it.
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


@hookspec(firstresult=True)
def cs_select_ask(job: Job, node: Node, asks: Sequence[Any], nodes: int, now: float) -> Task | None:
    """TaskSelector, optional, resource mode: which container of an app with asks (SPEC §6b:
    places, priorities, asks changed while it runs) runs on ``node``.

    Called during a heartbeat, instead of the engine's own choice (YARN's fair scheduler's
    ``FSAppAttempt.assignContainer``: the first ask by priority with a pending container
    that fits the node and may run there, node-local, then rack-local, then off-switch),
    each time such an app is offered the node — after its AM and its user limit, before
    the max-share and fit checks of the container chosen.  A selector without it leaves
    the choice to the engine.

    :param job: a runnable app with pending containers in asks.
    :param node: the heartbeating node.
    :param asks: the app's asks in the order YARN serves them (priority, smaller first, then
        first asked): :class:`~corescheduler.core.resource_asks.Ask` objects — ``priority``,
        ``size``, ``nodes``, ``racks`` (named), ``node_racks`` (racks of the named nodes),
        ``relax``, ``first_pending()`` (its lowest-index pending container or None),
        ``pending_count()`` (O(its containers)) and ``allows(node)`` (``"node"``,
        ``"rack"``, ``"off"`` or None: may not run there).  Read them; change nothing.
    :param nodes: the number of nodes in the cluster now (YARN's ``getNumClusterNodes``,
        which locality delays are capped by).
    :param now: the scheduler clock, seconds.
    :return: a pending container (:class:`~corescheduler.core.model.Task`) of one of the
        asks, or None: the app takes nothing on this node now (the next app is asked).

    **First non-None result wins** (only the named task selector is asked).
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
def cs_job_moved(job: Job, source: str, tasks: Sequence[Task], now: float) -> None:
    """An admin moved ``job`` from the pool or queue ``source`` to ``job.pool`` (resource mode:
    from leaf ``source`` to ``job.queue``).  ``tasks`` are its containers running now (an AM
    included): they keep running, and what they use now counts in the new queue — a plugin
    that counts use or apps per queue moves its counts here (YARN's
    ``LeafQueue.detachContainer`` / ``attachContainer``, ``finishApplication`` /
    ``submitApplication``).  Called before the update that follows the move.

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
        scheduling); in resource mode the jobs whose map the TaskSelector
        declined and that launched no map, each once.

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
    """``task`` completed on ``node`` and freed its slot — or left it with its job (the job
    was killed or failed, or an AM ended with its app): every container whose start was
    told by ``cs_task_started`` is told here or by ``cs_task_preempted`` when it stops.  A
    running container made another in place (the harness's ``mark_am``: its app's AM, or a
    plain container again) is told here as it was, then by ``cs_task_started`` as it is.

    Called on every plugin in use; **return values are ignored**.
    """


@hookspec
def cs_task_preempted(task: Task, node: Node, now: float) -> None:
    """``task`` was killed by preemption on ``node``; it is pending again.

    Called on every plugin in use; **return values are ignored**.
    """

