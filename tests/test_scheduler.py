"""Scheduler core behaviour beyond the Hadoop scenarios: bad requests, reloads
that fail, rejection, task lifecycle, events."""

from __future__ import annotations

import pytest

from corescheduler.errors import AllocationError, SchedulerStateError
from corescheduler.hookspecs import hookimpl
from corescheduler.model import Rejection
from corescheduler.scheduler import JobRejectedError
from corescheduler.testing import ClusterHarness

GOOD = '<allocations><pool name="a"><minMaps>2</minMaps><weight>2</weight></pool></allocations>'


def test_bad_allocation_reload_keeps_previous_allocations():
    h = ClusterHarness(allocations=GOOD)
    h.submit(10, 0, pool="a")
    h.submit(10, 0, pool="b")
    before = h.shares()
    with pytest.raises(AllocationError, match=r"^<harness allocations>:1: .*minMaps"):
        h.set_allocations('<allocations><pool name="a"><minMaps>-3</minMaps></pool></allocations>')
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
