"""The engine contract (issue 27, item 1): one task ledger for both engines, an engine
protocol both implement, and no import or private write between the scheduler and the
resource engine."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from paths import REPO

from corescheduler.core import engine as engine_module
from corescheduler.core.engine import Engine, EngineOwner
from corescheduler.core.model import COMPLETE, KILLED, MAP, PENDING, REDUCE, RUNNING, Cluster, Job, JobSpec, TaskSpec
from corescheduler.core.resource_scheduler import ResourceScheduler
from corescheduler.core.scheduler import Scheduler
from corescheduler.core.slot_engine import SlotEngine
from corescheduler.core.task_ledger import TaskLedger
from corescheduler.errors import PluginExecutionError, SchedulerStateError
from corescheduler.hookspecs import hookimpl
from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness

CORE = REPO / "corescheduler" / "core"


def _imports(path: Path) -> set[str]:
    """Every module an import statement of ``path`` names (TYPE_CHECKING and function-level too)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def test_the_engines_the_ledger_and_the_protocols_import_no_scheduler():
    resource_engine = sorted(p.name for p in CORE.glob("resource_*.py"))
    assert len(resource_engine) >= 6  # the engine and its parts, one module per concept
    slot_engine = sorted(p.name for p in CORE.glob("slot_*.py"))
    assert len(slot_engine) >= 3
    for name in (*resource_engine, *slot_engine, "task_ledger.py", "engine.py"):
        imported = _imports(CORE / name)
        assert "corescheduler.core.scheduler" not in imported, name
    assert "corescheduler.core.resource_scheduler" not in _imports(CORE / "task_ledger.py")
    assert "corescheduler.core.resource_scheduler" not in _imports(CORE / "engine.py")
    for name in slot_engine:  # the two engines know nothing of each other
        assert not any(m.startswith("corescheduler.core.resource_") for m in _imports(CORE / name)), name
    for name in resource_engine:
        assert not any(m.startswith("corescheduler.core.slot_") for m in _imports(CORE / name)), name


def _private_writes(path: Path, owners: set[str]) -> list[str]:
    """``x._name = …`` / ``x._name += …`` / ``x._name[k] = …`` where ``x`` is one of ``owners``
    (a dotted expression such as ``self.owner``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Attribute) and target.attr.startswith("_"):
                if ast.unparse(target.value) in owners:
                    found.append(f"{path.name}:{node.lineno}: {ast.unparse(target)}")
    return found


def test_no_engine_writes_the_schedulers_private_state_nor_the_scheduler_the_engines():
    for path in sorted([*CORE.glob("resource_*.py"), *CORE.glob("slot_*.py")]):
        assert _private_writes(path, {"self.owner", "owner"}) == [], path.name
    assert _private_writes(CORE / "scheduler.py", {"self._rs", "rs", "self._engine", "engine", "self.ledger",
                                                   "ledger"}) == []


def test_the_scheduler_holds_no_mode_branch():
    """The facade picks its engine once (its constructor); no other method asks which mode runs."""
    tree = ast.parse((CORE / "scheduler.py").read_text())
    mode = {"self._rs", "self.resource_mode", "RESOURCES", "ResourceScheduler", "SlotEngine"}
    picking = {"__init__", "_start_engine", "resource_engine"}  # the pick, and the read of what was picked
    found = []
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == Scheduler.__name__]
    for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name not in picking):
        for node in ast.walk(fn):
            text = ast.unparse(node) if isinstance(node, (ast.Attribute, ast.Name)) else ""
            if text in mode:
                found.append(f"{fn.name}:{node.lineno}: {text}")
    assert len(cls.body) > 60 and found == []


def _private_reads(path: Path) -> list[str]:
    """``….scheduler._name`` / ``sched._name`` / ``scheduler._name``: a private attribute of
    the scheduler read (or written) outside the core."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = ast.unparse(node.value)
            if owner.split(".")[-1] in ("scheduler", "sched"):
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_simulator_service_and_command_line_read_no_private_state_of_the_scheduler():
    root = REPO / "corescheduler"
    paths = [*sorted((root / "sim").glob("*.py")), *sorted((root / "service").glob("*.py")),
             *sorted((root / "cli").glob("*.py")), root / "testing.py"]
    assert [found for path in paths for found in _private_reads(path)] == []


def test_the_public_reads_follow_the_engine():
    h = ClusterHarness(nodes_per_rack=1, map_slots=1, reduce_slots=1)
    slots = h.scheduler
    assert isinstance(slots.engine, SlotEngine) and slots.resource_engine is None
    assert dict(slots.pending_tasks) == {MAP: 0, REDUCE: 0} and not slots.work_running()
    assert not slots.engine.has_requests()
    h.submit(maps=2)
    assert slots.pending_tasks[MAP] == 2 and slots.engine.has_requests()
    h.heartbeat(next(iter(h.cluster.nodes)))
    assert slots.work_running() and slots.pending_tasks[MAP] == 1
    assert slots.last_preempt_check == float("-inf")
    slots.preempt_checked(30.0)
    assert slots.last_preempt_check == 30.0
    resources = ClusterHarness(config={"scheduler": {"mode": "resources"}}).scheduler
    assert resources.engine is resources.resource_engine is not None
    assert not resources.work_running() and not resources.engine.has_requests()


@pytest.mark.parametrize("engine", [SlotEngine, ResourceScheduler])
def test_both_engines_implement_the_engine_protocol_with_its_signatures(engine):
    members = [n for n, v in vars(Engine).items() if inspect.isfunction(v) and not n.startswith("_")]
    assert len(members) >= 15
    for name in members:
        mine = inspect.signature(getattr(engine, name))
        theirs = inspect.signature(getattr(Engine, name))
        assert list(mine.parameters)[1:] == list(theirs.parameters)[1:] or (
            isinstance(inspect.getattr_static(engine, name), staticmethod)
            and list(mine.parameters) == list(theirs.parameters)[1:]
        ), (engine.__name__, name, mine, theirs)


def test_the_owner_protocol_names_only_what_the_scheduler_has():
    h = ClusterHarness(config={"scheduler": {"mode": "resources"}})
    sched = h.scheduler
    names = [n for n, v in vars(EngineOwner).items() if inspect.isfunction(v) or isinstance(v, property)]
    names += list(EngineOwner.__annotations__)
    assert len(names) >= 15
    for name in names:
        assert hasattr(sched, name), name
    assert engine_module.__all__ == ["Engine", "EngineOwner"]


# ---------------------------------------------------------------------- the ledger on its own
def _job_and_ledger(maps: int = 2, reduces: int = 1):
    cluster = Cluster.build(1, 2, 2, 2)
    events: list[dict] = []
    heard: list[tuple] = []

    def listeners(hook: str):
        return [lambda *args: heard.append((hook, args[0].id))]

    ledger = TaskLedger(cluster.nodes, listeners, events.append, history=True)
    job = Job(id="j", spec=JobSpec(maps=[TaskSpec(1.0)] * maps, reduces=[TaskSpec(1.0)] * reduces), pool="p",
              user=None, priority="NORMAL", submit_time=0.0, reduce_slowstart=0.0)
    job._initialize(cluster.rack_of)
    return cluster, ledger, job, events, heard


def test_ledger_launch_and_finish_write_the_task_state_events_and_notifications_in_order():
    cluster, ledger, job, events, heard = _job_and_ledger()
    node = cluster.nodes["n0000"]
    task = job.tasks[MAP][0]
    ledger.launch(task, node, 5.0, "node")
    assert (task.state, task.node, task.start_time, task.attempts, task.launch_seq) == (RUNNING, "n0000", 5.0, 1, 1)
    assert ledger.running == {task.id: task} and node.tasks == {task.id: task} and job.first_launch == 5.0
    assert events == [{"time": 5.0, "type": "task_start", "job": "j", "task": task.id, "kind": MAP,
                       "node": "n0000", "locality": "node"}]
    assert heard == []  # the engine accounts first; then started() tells the plugins
    ledger.started(task, node, "node", 5.0)
    assert heard == [("cs_task_started", task.id)]
    assert ledger.release(task) is node
    assert ledger.running == {} and node.tasks == {} and ledger.changes == 2
    ledger.complete(task, node, 100.0)
    ledger.finished(task, "n0000", node, 7.0)
    assert task.state == COMPLETE and job.complete[MAP] == 1
    assert job.map_outputs is not None  # a map of a job with reduces leaves its output
    assert events[-1] == {"time": 7.0, "type": "task_finish", "job": "j", "task": task.id, "kind": MAP,
                          "node": "n0000"}
    assert heard[-1] == ("cs_task_finished", task.id)


def test_ledger_release_of_a_task_not_running_is_a_scheduler_error():
    _, ledger, job, _, _ = _job_and_ledger()
    task = job.tasks[MAP][0]
    with pytest.raises(SchedulerStateError, match="is not running"):
        ledger.release(task)
    assert ledger.changes == 0


def test_ledger_resource_launch_carries_the_size_and_a_reduce_starts_copying():
    cluster, ledger, job, events, _ = _job_and_ledger()
    task = job.tasks[REDUCE][0]
    ledger.launch(task, cluster.nodes["n0001"], 1.0, None, Resources(memory=1024, vcores=1))
    assert task.phase == "copy"
    assert list(events[0]) == ["time", "type", "job", "task", "kind", "node", "resources"]
    assert events[0]["resources"] == Resources(memory=1024, vcores=1).as_dict()


def test_ledger_kill_requeues_keeps_history_and_a_failure_is_no_preemption():
    cluster, ledger, job, events, heard = _job_and_ledger()
    node = cluster.nodes["n0000"]
    task = job.tasks[MAP][1]
    pending = job.pending[MAP]
    ledger.launch(task, node, 0.0, "off")
    job.pending[MAP] -= 1  # (the engine's accounting)
    ledger.release(task)
    ledger.requeue(task)
    ledger.preempted(task, "n0000", 2.0, "preempted")
    assert task.state == PENDING and task.node is None and job.pending[MAP] == pending
    assert ledger.killed == [task] and heard[-1] == ("cs_task_preempted", task.id)
    assert events[-1]["type"] == "task_preempt" and events[-1]["reason"] == "preempted"
    ledger.failed(task)
    assert ledger.killed == [] and task.failures == 1


def test_ledger_end_kills_with_the_job_and_tells_no_plugin():
    cluster, ledger, job, events, heard = _job_and_ledger()
    node = cluster.nodes["n0001"]
    task = job.tasks[MAP][0]
    ledger.launch(task, node, 0.0, "off")
    ledger.release(task)
    ledger.end(task, "n0001", 3.0, "job killed")
    assert task.state == KILLED and heard == []
    assert events[-1] == {"time": 3.0, "type": "task_preempt", "job": "j", "task": task.id, "kind": MAP,
                          "node": "n0001", "reason": "job killed"}


# ---------------------------------------------------------------------- through the scheduler
def test_both_engines_count_launches_and_releases_in_the_one_ledger():
    for mode, submit in (("slots", lambda h: h.submit(maps=2)),
                         ("resources", lambda h: h.submit(queue="root.a", tasks=2, resources="1024 mb, 1 vcores"))):
        h = ClusterHarness(nodes_per_rack=1, node_resources="8192 mb, 8 vcores",
                           config={"scheduler": {"mode": mode, "assign_multiple": True}})
        submit(h)
        got = h.heartbeat("n0000")
        assert len(got) == 2, mode
        ledger = h.scheduler.ledger
        assert ledger.launch_seq == 2 and set(ledger.running) == {a.task for a in got}, mode
        assert h.scheduler._running_tasks is ledger.running and h.scheduler.killed is ledger.killed
        h.kill(got[0].task)
        h.finish(got[1].task)
        assert ledger.running == {} and ledger.changes == 4 and [t.id for t in ledger.killed] == [got[0].task]
        assert [e["type"] for e in h.events if e["type"].startswith("task_")] == [
            "task_start", "task_start", "task_preempt", "task_finish"], mode


def test_a_launch_taken_back_after_a_failing_order_key_was_started_first():
    """Slot mode writes a task's ``task_start`` before its engine accounts for it (resource
    mode always did): a heartbeat that fails on a policy's order key and takes the launch back
    leaves ``task_start`` then ``task_preempt``, not a preemption of a task never started."""
    from corescheduler_plugins.fair import FairSharePolicy

    class Flaky(FairSharePolicy):
        fail = False

        def order_key(self, schedulable):
            if Flaky.fail and not schedulable.is_pool:
                Flaky.fail = False
                raise RuntimeError("flaky key")
            return super().order_key(schedulable)

    h = ClusterHarness(config={"scheduler": {"share_policy": "flaky"}}, plugins={"flaky": Flaky})
    h.submit(maps=4)
    Flaky.fail = True
    with pytest.raises(PluginExecutionError, match="flaky key"):
        h.heartbeat("n0000")
    tasks = [(e["type"], e.get("reason")) for e in h.events if e["type"].startswith("task_")]
    assert tasks == [("task_start", None), ("task_preempt", "heartbeat failed")]
    assert h.scheduler.ledger.running == {}


def test_the_scheduler_picks_its_engine_once():
    slots = ClusterHarness().scheduler
    resources = ClusterHarness(config={"scheduler": {"mode": "resources"}}).scheduler
    assert isinstance(slots._engine, SlotEngine) and slots._rs is None
    assert slots._engine.ledger is slots.ledger
    assert resources._engine is resources._rs and isinstance(resources._rs, ResourceScheduler)
    assert resources._rs.ledger is resources.ledger


def test_a_node_with_negative_resources_is_refused_and_the_cluster_is_as_before():
    h = ClusterHarness(config={"scheduler": {"mode": "resources"}})
    before = dict(h.scheduler.cluster.nodes)
    with pytest.raises(SchedulerStateError, match="negative resources"):
        h.scheduler.add_node("bad", "r00", resources=Resources(memory=-1, vcores=1))
    assert h.scheduler.cluster.nodes == before and "bad" not in h.scheduler._rack_of


class _Heard:
    """A listener of the cycle's notifications (which engine calls them is the engine's)."""

    def __init__(self) -> None:
        self.heard: list[tuple] = []

    @hookimpl
    def cs_update(self, pools, now) -> None:
        self.heard.append(("update", [p.name for p in pools], now))

    @hookimpl
    def cs_heartbeat_start(self, node, now) -> None:
        self.heard.append(("start", node.name, now))

    @hookimpl
    def cs_heartbeat_end(self, node, assignments, skipped, now) -> None:
        self.heard.append(("end", node.name, [a.task for a in assignments], [j.id for j in skipped], now))


@pytest.mark.parametrize("mode", ["slots", "resources"])
def test_each_engine_tells_the_cycle_as_the_scheduler_did(mode):
    """``update`` and ``heartbeat`` are one call into the engine, which now calls ``cs_update``
    and ``cs_heartbeat_start``/``_end`` itself: the same calls, in the same order, with the
    same arguments in both modes (resource mode: no MR1 pool, no skipped job)."""
    listener = _Heard()
    h = ClusterHarness(nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": mode, "listeners": ["heard"]}},
                       plugins={"heard": listener})
    if mode == "slots":
        job = h.submit(maps=1)
    else:
        job = h.submit(queue="root.a", tasks=1, resources="1024 mb, 1 vcores")
    h.advance(1.0)
    (given,) = h.heartbeat("n0000")
    h.scheduler.idle_heartbeat("n0001", 2.0)
    assert not h.scheduler.skip_quiet_heartbeat("n0001", 2.0) or mode == "slots"
    updates = [e for e in listener.heard if e[0] == "update"]
    assert updates and updates[0] == ("update", ["default"] if mode == "slots" else [], 0.0)
    beats = [e for e in listener.heard if e[0] != "update"]
    assert beats == [("start", "n0000", 1.0), ("end", "n0000", [given.task], [], 1.0), ("start", "n0001", 2.0)]
    assert job.id in h.scheduler.jobs


def test_resource_mode_answers_the_walks_questions_so_that_every_heartbeat_runs():
    sched = ClusterHarness(config={"scheduler": {"mode": "resources"}}).scheduler
    assert not sched.can_park and not sched.skip_quiet_heartbeat("n0000", 0.0) and not sched.wants_idle_heartbeat()
    assert sched.walk_state() == (0, False, False) and sched.map_walk() == [] and sched.take_reach_changes() == {}
    assert dict(sched.pools) == {} and dict(sched.pending_tasks) == {MAP: 0, REDUCE: 0}
    assert sched.pending_work(MAP) == 0 and sched.preemption_hint(0.0) == float("-inf")
    assert sched.tasks_to_preempt("root.default") == {MAP: 0, REDUCE: 0}


def test_ledger_left_tells_a_container_that_ended_with_its_job_while_its_node_exists():
    """Review: a container ending with its killed or failed job is told as finished (no
    preemption: it never runs again), so that plugins counting use by cs_task_started see it
    go; not once its node has left."""
    cluster, ledger, job, _events, heard = _job_and_ledger()
    node = cluster.nodes["n0001"]
    task, other = job.tasks[MAP][0], job.tasks[MAP][1]
    for t in (task, other):
        ledger.launch(t, node, 0.0, "off")
        ledger.release(t)
        ledger.end(t, "n0001", 3.0, "job killed")
    assert heard == []
    ledger.left(task, "n0001", 3.0)
    ledger.left(other, "gone", 3.0)
    assert heard == [("cs_task_finished", task.id)]
