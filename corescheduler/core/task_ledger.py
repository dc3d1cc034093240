"""The task ledger: every task attempt's launch and end, and what is told of them.

Both engines — the slot engine (:class:`~corescheduler.core.scheduler.Scheduler`, MR1
pools) and the resource engine (:class:`~corescheduler.core.resource_scheduler
.ResourceScheduler`, YARN queues) — account for capacity their own way: slots of a kind on
a node, or resource vectors on a node, an app and every queue up to root; and they keep
their own assignment orders.  What a task attempt goes through is the same in both, and it
lives here, once:

* its state (pending → running → complete, pending again when killed, killed with its job),
  its node, start time, attempt count and launch sequence number;
* the running attempts by task id (:attr:`TaskLedger.running`), the node's own
  (``node.tasks``), and a count of launches and releases (:attr:`TaskLedger.changes`:
  ``reuse_quiet_updates`` reads it);
* the preempted attempts (:attr:`TaskLedger.killed`, with ``history``);
* the events ``task_start``, ``task_finish``, ``task_preempt`` (SPEC §5) and the
  notifications ``cs_task_started``, ``cs_task_finished``, ``cs_task_preempted``.

An engine calls these public methods around its own accounting, in this order:
:meth:`~TaskLedger.launch` → its accounting → :meth:`~TaskLedger.started`;
:meth:`~TaskLedger.release` → its accounting → :meth:`~TaskLedger.complete` →
:meth:`~TaskLedger.finished` (or :meth:`~TaskLedger.requeue` → :meth:`~TaskLedger.preempted`,
or :meth:`~TaskLedger.end`).  The ledger calls no engine: like Dask's ``SchedulerState`` it
is state and transitions only, and the events it writes are the same whichever engine runs.
Hadoop keeps the same split: ``TaskInProgress``/``JobInProgress`` hold an attempt's state
while the TaskTracker's slots are the scheduler's; YARN's ``RMContainerImpl`` state
machine (ALLOCATED → RUNNING → COMPLETED / KILLED) apart from
``SchedulerNode.allocateContainer``/``releaseContainer`` and the queues' usage.

(Named for tasks: the live service's *job* ledger, ``corescheduler.service.store``, is the
durable record of submitted jobs, another thing.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from corescheduler.core.model import COMPLETE, KILLED, MAP, PENDING, REDUCE, RUNNING, Job, Node, Task
from corescheduler.core.resources import Resources
from corescheduler.core.shuffle import DISTANCES, MapOutputs
from corescheduler.errors import SchedulerStateError

__all__ = ["TaskLedger"]


class TaskLedger:
    """The task attempts of one scheduler: which run where, and what was said about them.

    :param nodes: the cluster's nodes by name (the live dict: nodes join and leave).
    :param listeners: the plugins' notification callers by hook name
        (:meth:`~corescheduler.plugin_manager.PluginSet.listeners`).
    :param on_event: called with each event dict (SPEC §5), or None.
    :param history: keep preempted attempts in :attr:`killed`.
    :param network_distances: the cluster's ``[cluster] network_distances`` (what a finished
        map's output costs to fetch: :class:`~corescheduler.core.shuffle.MapOutputs`).
    """

    def __init__(
        self,
        nodes: dict[str, Node],
        listeners: Callable[[str], list[Callable[..., Any]]],
        on_event: Callable[[dict[str, Any]], None] | None = None,
        history: bool = True,
        network_distances: tuple[float, float, float] = DISTANCES,
    ) -> None:
        self.nodes = nodes
        self.network_distances = network_distances
        self.listeners = listeners
        self.on_event = on_event
        self.history = history
        #: the running attempts by task id, in launch order
        self.running: dict[str, Task] = {}
        #: attempts launched so far (each launch's ``task.launch_seq``)
        self.launch_seq = 0
        #: launches and releases so far
        self.changes = 0
        #: preempted attempts, oldest first (with ``history``)
        self.killed: list[Task] = []

    def emit(self, event: dict[str, Any]) -> None:
        """Write one event (SPEC §5) to ``on_event``."""
        if self.on_event is not None:
            self.on_event(event)

    # ------------------------------------------------------------------ launch
    def launch(self, task: Task, node: Node, now: float, locality: str | None,
               size: Resources | None = None) -> None:
        """``task`` (pending) runs on ``node`` from ``now``: its state, its node's, the running
        set, and its ``task_start`` event (with ``size`` in resource mode).  The engine accounts
        for it next, then calls :meth:`started`."""
        job = task.job
        kind = task.kind
        task._state = RUNNING
        task._node = node.name
        task.start_time = now
        task.attempts += 1
        self.launch_seq += 1
        task.launch_seq = self.launch_seq
        node.tasks[task.id] = task
        if kind == REDUCE:
            task.phase = "copy"
        if job.first_launch is None:
            job.first_launch = now
        self.running[task.id] = task
        self.changes += 1
        if self.on_event is not None:
            event = {"time": now, "type": "task_start", "job": job.id, "task": task.id, "kind": kind,
                     "node": node.name}
            if size is not None:
                event["resources"] = size.as_dict()
            if kind == MAP:
                event["locality"] = locality
            self.on_event(event)

    def started(self, task: Task, node: Node, locality: str | None, now: float) -> None:
        """Tell the plugins (``cs_task_started``), once the engine has accounted for the launch."""
        for fn in self.listeners("cs_task_started"):
            fn(task, node, locality, now)

    def recast(self, task: Task, change: Callable[[], None], now: float) -> None:
        """The running ``task`` becomes another container in place (the harness's ``mark_am``,
        YARN's tests' ``RMContainer.setAMContainer``: the app's AM, or a plain container
        again): the plugins are told it finished as it was (``cs_task_finished``), ``change``
        makes it what it now is, and they are told it started so (``cs_task_started``) — a
        plugin counting use by ``task.is_am`` follows.  No event: it keeps running."""
        node = self.nodes.get(task._node or "")
        if node is None or task._state != RUNNING:
            raise SchedulerStateError(f"task {task.id} is not running")
        for fn in self.listeners("cs_task_finished"):
            fn(task, node, now)
        change()
        locality = task.locality(node) if task.kind == MAP or task.locations or task.racks else None
        for fn in self.listeners("cs_task_started"):
            fn(task, node, locality, now)

    # ------------------------------------------------------------------ end
    def release(self, task: Task) -> Node | None:
        """``task`` stops running (it finished, or is killed): out of the running set and off
        its node, whose reduce in its compute phase it no longer is; its node (None if the
        node has left).  The engine gives back its capacity next."""
        task_id = task.id
        if self.running.pop(task_id, None) is None or task._state != RUNNING:
            raise SchedulerStateError(f"task {task_id} is not running")
        self.changes += 1
        node = self.nodes.get(task._node or "")
        if node is not None:
            node.tasks.pop(task_id, None)
            if task.phase == "compute":
                node.computing -= 1
        task.phase = None
        return node

    def complete(self, task: Task, node: Node | None, output_bytes: float | None = None) -> None:
        """A released ``task`` completed on ``node``: it counts for its job (an AM, which ends
        with its app, does not), and a map of a job with reduces leaves its output there
        (``job.map_outputs``; ``output_bytes`` its size if measured) while the node exists."""
        task._state = COMPLETE
        if task.is_am:
            return
        job = task.job
        kind = task.kind
        job.complete[kind] += 1
        if kind == MAP and node is not None and job.spec.reduces:
            outputs = job.map_outputs
            if outputs is None:
                outputs = job.map_outputs = MapOutputs(job.num_maps, job.num_reduces, job.spec.shuffle,
                                                       self.network_distances)
            outputs.record(task.index, node.name, node.rack, output_bytes)

    def finished(self, task: Task, node_name: str | None, node: Node | None, now: float) -> None:
        """``task_finish`` and ``cs_task_finished`` (the latter only while its node exists)."""
        job = task.job
        if self.on_event is not None:
            self.on_event({"time": now, "type": "task_finish", "job": job.id, "task": task.id, "kind": task.kind,
                           "node": node_name})
        if node is not None:
            for fn in self.listeners("cs_task_finished"):
                fn(task, node, now)

    def requeue(self, task: Task) -> None:
        """A released ``task`` is pending again (its work lost): its job counts it pending and
        its TaskSelector index holds it again.  An AM is pending again for its app alone."""
        task._state = PENDING
        task._node = None
        if task.is_am:
            return
        job = task.job
        job.pending[task.kind] += 1
        if task.kind == MAP and not task.locations:
            job.unlocated_pending += 1
        job._index_pending(task, push_all=True)

    def preempted(self, task: Task, node_name: str | None, now: float, reason: str) -> None:
        """A requeued ``task`` was killed (``reason``): kept in :attr:`killed` (with ``history``),
        ``task_preempt`` and ``cs_task_preempted`` (the latter only while its node exists)."""
        if self.history:
            self.killed.append(task)
        if self.on_event is not None:
            self.on_event({"time": now, "type": "task_preempt", "job": task.job.id, "task": task.id,
                           "kind": task.kind, "node": node_name, "reason": reason})
        node = self.nodes.get(node_name or "")
        if node is not None:
            for fn in self.listeners("cs_task_preempted"):
                fn(task, node, now)

    def failed(self, task: Task) -> None:
        """A preempted ``task``'s attempt had failed (it raised, its process died): one failure
        more, and not a preemption (out of :attr:`killed`)."""
        task.failures += 1
        killed = self.killed
        if self.history and killed and killed[-1] is task:
            killed.pop()

    def lost(self, task: Task) -> None:
        """A complete map's output is gone: it no longer counts for its job and is pending
        again (:meth:`requeue`)."""
        task.job.complete[task.kind] -= 1
        self.requeue(task)

    def end(self, task: Task, node_name: str | None, now: float, reason: str) -> None:
        """A released ``task`` ends with its job (killed or failed: ``reason``); ``task_preempt``.
        The engine tells the plugins once every task of the job has ended (:meth:`left`)."""
        task._state = KILLED
        if self.on_event is not None:
            self.on_event({"time": now, "type": "task_preempt", "job": task.job.id, "task": task.id,
                           "kind": task.kind, "node": node_name, "reason": reason})

    def left(self, task: Task, node_name: str | None, now: float) -> None:
        """``cs_task_finished`` for a task that ended with its job (:meth:`end`), while its node
        exists: its container left, as an AM ending with its app is told (a plugin counting use
        by ``cs_task_started`` sees it go; it never runs again: no ``cs_task_preempted``)."""
        node = self.nodes.get(node_name or "")
        if node is not None:
            for fn in self.listeners("cs_task_finished"):
                fn(task, node, now)

    def withdraw(self, task: Task) -> None:
        """A pending ``task`` that never runs: its app cancelled the ask it belonged to (YARN's
        ``allocate`` with fewer containers, ``AppSchedulingInfo.updateResourceRequests``).  It
        ends as killed, no longer pending for its job; no event (it never started)."""
        if task._state != PENDING:
            raise SchedulerStateError(f"task {task.id} is not pending")
        task._state = KILLED
        task.job.pending[task.kind] -= 1

    def running_of(self, job: Job) -> list[Task]:
        """``job``'s running attempts, in launch order."""
        return [t for t in self.running.values() if t.job is job]

