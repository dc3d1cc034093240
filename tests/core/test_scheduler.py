"""Scheduler core behaviour beyond the Hadoop scenarios: bad requests, reloads
that fail, rejection, task lifecycle, events."""

from __future__ import annotations

import pytest

from corescheduler.core.model import Rejection
from corescheduler.core.policy import SharePolicy
from corescheduler.core.scheduler import JobRejectedError
from corescheduler.errors import AllocationError, SchedulerStateError
from corescheduler.hookspecs import hookimpl
from corescheduler.testing import ClusterHarness

GOOD = '<allocations><pool name="a"><minMaps>2</minMaps><weight>2</weight></pool></allocations>'


def test_bad_allocation_reload_keeps_previous_allocations():
    h = ClusterHarness(allocations=GOOD)
    h.submit(10, 0, pool="a")
    h.submit(10, 0, pool="b")
    before = h.shares()
    with pytest.raises(AllocationError, match=r"^<harness allocations>:1: .*minMaps"):
        h.set_allocations('<allocations><pool name="a"><minMaps>3.5</minMaps></pool></allocations>')
    assert h.scheduler.allocations.pool("a").min_maps == 2
    h.update()
    assert h.shares() == before


def test_unknown_scheduling_mode_policy_keeps_previous_allocations():
    h = ClusterHarness(allocations=GOOD, config='[scheduler]\nblocked_plugins = ["fifo"]\n')
    with pytest.raises(AllocationError, match=r"pool 'a' schedulingMode 'fifo'.*blocked"):
        h.set_allocations('<allocations><pool name="a"><schedulingMode>fifo</schedulingMode></pool></allocations>')
    assert h.scheduler.allocations.scheduling_mode("a") == "fair"
    assert h.scheduler.pools["a"].policy == "fair"


def test_reload_applies_new_pool_settings():
    h = ClusterHarness(allocations=GOOD)
    h.submit(10, 0, pool="a")
    h.submit(10, 0, pool="b")
    assert h.shares()["pools"]["a"]["map"] == pytest.approx(4 * 2 / 3, abs=1e-3)
    h.set_allocations('<allocations><pool name="a"><weight>3</weight></pool></allocations>')
    assert h.shares()["pools"]["a"]["map"] == pytest.approx(3.0, abs=1e-3)


def test_unknown_node_task_and_job_are_clear_errors():
    h = ClusterHarness()
    with pytest.raises(SchedulerStateError, match="unknown node 'n9999'"):
        h.heartbeat("n9999")
    with pytest.raises(SchedulerStateError, match="unknown task"):
        h.finish("job_0042_m_000000")
    with pytest.raises(SchedulerStateError, match="unknown job"):
        h.move("job_0042", "x")
    with pytest.raises(SchedulerStateError, match="unknown node 'n0100' in input_nodes"):
        h.submit(1, 0, map_locations=[["n0100"]])


def test_finishing_a_task_that_is_not_running():
    h = ClusterHarness()
    h.submit(2, 0)
    with pytest.raises(SchedulerStateError, match="not running"):
        h.finish("job_0001_m_000000")
    (a,) = h.heartbeat("n0000")
    h.finish(a)
    with pytest.raises(SchedulerStateError, match="not running"):
        h.finish(a)


def test_clock_cannot_go_backwards():
    h = ClusterHarness()
    h.advance(5)
    with pytest.raises(SchedulerStateError, match="backwards"):
        h.scheduler.update(1.0)


def test_bad_priority_is_rejected():
    h = ClusterHarness()
    with pytest.raises(ValueError, match="priority must be one of"):
        h.submit(1, 0, priority="URGENT")


class RejectAll:
    @hookimpl
    def cs_resolve_pool(self, job):
        return Rejection(f"user {job.user} may not submit")


def test_resolver_rejection():
    h = ClusterHarness(config='[scheduler]\npool_resolver = "nope"\n', plugins={"nope": RejectAll})
    with pytest.raises(JobRejectedError, match="user bob may not submit"):
        h.submit(1, 0, user="bob")
    assert h.scheduler.jobs == {}


def test_job_lifecycle_and_events():
    h = ClusterHarness()
    job = h.submit(1, 1)
    got = h.heartbeat("n0000")
    assert [a.kind for a in got] == ["map"]
    h.finish(got[0])
    (r,) = h.heartbeat("n0000")
    h.finish(r)
    assert job.is_finished and job.finish_time == h.clock
    types = [e["type"] for e in h.events]
    assert types == ["job_submit", "job_start", "task_start", "task_finish", "task_start", "task_finish", "job_finish"]
    assert h.events[2]["locality"] == "off" and "locality" not in h.events[4]


def test_job_without_tasks_finishes_at_once():
    h = ClusterHarness()
    job = h.submit(0, 0)
    assert job.is_finished


def test_reduce_slowstart_holds_reduces():
    h = ClusterHarness(config="[scheduler]\nreduce_slowstart = 0.5\n")
    job = h.submit(4, 2)
    assert h.demand(job) == {"map": 4, "reduce": 0}
    a = h.heartbeat("n0000")
    b = h.heartbeat("n0000")
    assert [x.kind for x in a + b] == ["map", "map"]
    h.finish(a[0])
    h.update()
    assert h.demand(job) == {"map": 3, "reduce": 0}
    h.finish(b[0])
    h.update()
    assert h.demand(job) == {"map": 2, "reduce": 2}


def test_kill_returns_task_to_pending():
    h = ClusterHarness()
    job = h.submit(1, 0)
    (a,) = h.heartbeat("n0000")
    h.kill(a)
    assert h.task(a).state == "pending" and job.pending["map"] == 1
    (b,) = h.heartbeat("n0001")
    assert b.task == a.task and h.task(b).attempts == 2


def test_preemption_only_log_kills_nothing():
    """Hadoop testNoPreemptionIfOnlyLogging: preemption.only.log plans but never kills."""
    h = ClusterHarness(config="[scheduler]\npreemption = true\npreemption_only_log = true\n",
                       allocations="""<allocations><pool name="a"><minMaps>2</minMaps>
                       <minSharePreemptionTimeout>1</minSharePreemptionTimeout></pool></allocations>""")
    h.submit(10, 0)
    for node in ("n0000", "n0000", "n0001", "n0001"):
        h.heartbeat(node)
    h.submit(5, 0, pool="a")
    assert h.advance(5.0) == [] and h.killed == []
    assert len(h.scheduler.would_preempt) == 2
    assert h.running("default") == {"map": 4, "reduce": 0}


# --------------------------------------------------------------------------- robustness (review findings)
from corescheduler.errors import PluginExecutionError  # noqa: E402


def test_a_job_that_never_ran_can_leave_its_order():
    h = ClusterHarness()
    h.submit(maps=1)
    assert h.submit(maps=0, reduces=0).is_finished  # finished at once; the other job is untouched
    limited = '<allocations><pool name="b"><maxRunningJobs>1</maxRunningJobs></pool></allocations>'
    h = ClusterHarness(allocations=limited)
    h.submit(maps=1, pool="b")
    waiting = h.submit(maps=1, pool="b")
    h.move(waiting, "a")  # a queued job moves without touching any order
    assert h.job(waiting).pool == "a" and h.job(waiting).runnable


def test_a_job_that_stopped_being_runnable_finishes_after_a_policy_change():
    one = "<allocations><pool name='a'><maxRunningJobs>1</maxRunningJobs>{}</pool></allocations>"
    h = ClusterHarness(allocations=one.format(""))
    j1 = h.submit(maps=1, pool="a")
    (t,) = h.heartbeat("n0000")
    h.advance(1.0)
    j2 = h.submit(maps=1, pool="a", priority="HIGH")  # j1 keeps its task but is no longer runnable
    h.set_allocations(one.format("<schedulingMode>fifo</schedulingMode>"))
    h.finish(t)
    assert h.job(j1).is_finished and h.job(j2).runnable


class FlakyOrder(SharePolicy):
    """A fair policy whose order key fails while ``fail`` is set."""

    fail = False

    @hookimpl
    def cs_share_policy(self):
        return self

    def compute_shares(self, schedulables, total, steady):
        return self.calc.fair_shares(schedulables, total, steady)

    def order_key(self, s):
        if FlakyOrder.fail and s.name == "a":
            raise RuntimeError("transient")
        return self.calc.fair_order_key(s)


def test_a_failed_update_leaves_the_orders_usable():
    h = ClusterHarness(config={"scheduler": {"share_policy": "flaky"}}, plugins={"flaky": FlakyOrder()})
    job = h.submit(maps=4, pool="a")
    (t,) = h.heartbeat("n0000")
    FlakyOrder.fail = True
    with pytest.raises(PluginExecutionError, match=r"SharePolicy plugin .flaky..*transient"):
        h.advance(1)
    FlakyOrder.fail = False
    h.finish(t)
    h.advance(1)
    assert h.task(t).state == "complete" and len(h.heartbeat("n0000")) == 1 and job.running["map"] == 1


class FailsOnSecondCall:
    def __init__(self):
        self.calls = 0

    @hookimpl
    def cs_select_task(self, job, node, kind):
        self.calls += 1
        if self.calls == 2:
            raise RuntimeError("transient")
        return job.pending_task(kind)


def test_a_failed_heartbeat_takes_back_its_launches():
    h = ClusterHarness(config={"scheduler": {"task_selector": "flaky", "assign_multiple": True}},
                       plugins={"flaky": FailsOnSecondCall()})
    job = h.submit(maps=4)
    with pytest.raises(PluginExecutionError, match="TaskSelector plugin 'flaky'"):
        h.heartbeat("n0000")
    assert job.running == {"map": 0, "reduce": 0} and job.pending["map"] == 4
    assert h.scheduler.node("n0000").running == {"map": 0, "reduce": 0}


@pytest.mark.parametrize("step", [-1.0, float("nan"), float("inf")])
def test_a_bad_clock_step_is_refused_and_the_clock_stays(step):
    h = ClusterHarness()
    h.advance(10)
    with pytest.raises(SchedulerStateError, match="finite number of seconds"):
        h.advance(step)
    assert h.clock == 10.0
    h.submit(maps=1)
    assert h.heartbeat("n0000")[0].time == 10.0


def test_bad_priority_change_is_a_scheduler_error_and_rejections_use_no_job_number():
    h = ClusterHarness()
    job = h.submit(maps=1)
    with pytest.raises(SchedulerStateError, match="priority must be one of"):
        h.set_priority(job, "bogus")
    with pytest.raises(SchedulerStateError):
        h.submit(maps=1, map_locations=[["n9999"]])
    assert h.submit(maps=1).id == "job_0002"


def test_order_key_failing_mid_heartbeat_leaves_a_consistent_scheduler():
    from corescheduler_plugins.fair import FairSharePolicy

    class Flaky(FairSharePolicy):
        fail = False

        def order_key(self, s):
            if Flaky.fail and not s.is_pool:
                Flaky.fail = False
                raise RuntimeError("flaky key")
            return super().order_key(s)

    h = ClusterHarness(config={"scheduler": {"share_policy": "flaky"}}, plugins={"flaky": Flaky})
    h.submit(maps=4)
    Flaky.fail = True
    with pytest.raises(PluginExecutionError, match="flaky key"):
        h.heartbeat("n0000")
    assert h.scheduler._running_tasks == {}  # the half-launched task was taken back
    assert h.running("job_0001") == {"map": 0, "reduce": 0}
    (a,) = h.heartbeat("n0001")  # the job is offered again
    h.finish(a.task)
    h.update()
    assert len(h.heartbeat("n0000")) == 1


# --------------------------------------------------------------------------- failed attempts, killed and failed jobs
def test_a_failed_attempt_frees_the_slot_and_runs_again():
    h = ClusterHarness(nodes_per_rack=1, map_slots=1, reduce_slots=0)
    job = h.submit(1, 0)
    (a,) = h.heartbeat("n0000")
    task = h.scheduler.fail(a.task, h.clock)
    assert (task.state, task.failures, task.attempts) == ("pending", 1, 1)
    assert h.killed == []  # a failure is not a preemption
    h.update()
    (b,) = h.heartbeat("n0000")
    assert b.task == a.task and h.task(a.task).attempts == 2
    h.finish(b)
    assert h.job(job).state == "finished"


@pytest.mark.parametrize("state", ["killed", "failed"])
def test_ending_a_job_stops_its_tasks_and_frees_its_slots_for_others(state):
    h = ClusterHarness(nodes_per_rack=1, map_slots=2, reduce_slots=0)
    first = h.submit(4, 0, pool="a")
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    assert h.running(first)["map"] == 2
    other = h.submit(2, 0, pool="b")
    stopped = h.scheduler.end_job(first.id, h.clock, state=state, reason="asked")
    assert sorted(t.state for t in stopped) == ["killed", "killed"]
    assert first.state == state and first.is_finished and first.id not in h.scheduler.jobs
    assert h.scheduler.node("n0000").running["map"] == 0
    h.update()
    assert [a.job for a in h.heartbeat("n0000") + h.heartbeat("n0000")] == [other.id, other.id]
    with pytest.raises(SchedulerStateError, match="has already ended"):
        h.scheduler.end_job(first.id, h.clock)
    with pytest.raises(SchedulerStateError, match="must be 'killed' or 'failed'"):
        h.scheduler.end_job(other.id, h.clock, state="done")


def test_ending_a_job_in_resource_mode_releases_its_containers_and_its_am():
    h = ClusterHarness(nodes_per_rack=1, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "assign_multiple": True}})
    app = h.submit(queue="root.a", tasks=6, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    for _ in range(8):
        h.heartbeat("n0000")
    node = h.scheduler.node("n0000")
    assert node.used.memory == 7 * 1024
    waiting = h.submit(queue="root.b", tasks=2, resources="2048 mb, 1 vcores")
    h.scheduler.end_job(app.id, h.clock, state="killed")
    assert node.used.memory == 0 and app.state == "killed"
    h.update()
    got = h.heartbeat("n0000") + h.heartbeat("n0000")
    assert [a.job for a in got] == [waiting.id, waiting.id]


def test_a_lost_map_output_runs_the_map_again_and_holds_the_reduces_back() -> None:
    """Hadoop's lost TaskTracker: its completed maps of running jobs run again."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, map_slots=1, reduce_slots=1,
                       config={"scheduler": {"reduce_slowstart": 1.0, "task_selector": "locality"}})
    job = h.submit(maps=2, reduces=1)
    m0, m1 = job.tasks["map"]
    h.heartbeat("n0000"), h.heartbeat("n0001")
    h.finish(m0), h.finish(m1)
    assert set(job.map_outputs.nodes.values()) == {"n0000", "n0001"}
    h.lose_output(m0)
    assert h.scheduler.pending_work("map") == 1  # offered at once, not only after the next update
    h.update()
    assert m0.state == "pending" and job.complete["map"] == 1 and job.pending["map"] == 1
    assert 0 not in job.map_outputs.nodes
    assert h.events[-1]["type"] == "task_lost"
    (a,) = h.heartbeat("n0001")  # the map again, not the reduce: slow start is not reached
    assert a.task == m0.id
    assert h.heartbeat("n0000") == []
    h.finish(m0)
    h.update()
    (b,) = h.heartbeat("n0000")
    assert b.kind == "reduce"
    with pytest.raises(SchedulerStateError):
        h.lose_output(b.task)  # a running reduce is not a finished map


def test_a_map_only_jobs_output_is_not_lost_work() -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=1, config={"scheduler": {"task_selector": "locality"}})
    job = h.submit(maps=2)
    h.heartbeat("n0000")
    h.finish(job.tasks["map"][0])
    with pytest.raises(SchedulerStateError, match="no reduce"):
        h.lose_output(job.tasks["map"][0])


def test_task_durations_are_kept_as_given_in_either_build() -> None:
    """The model keeps a task's duration as submitted (an int, a float, a numpy number):
    the compiled build checks attribute types, so its annotation must take them all."""
    np = pytest.importorskip("numpy")
    h = ClusterHarness()
    job = h.submit(maps=3, map_durations=[*np.array([3, 4]), 2.5])
    durations = [t.duration for t in job.tasks["map"]]
    assert durations == [3, 4, 2.5]
    assert [type(d) for d in durations] == [np.int64, np.int64, float]
