"""Capacity queues: where a review against Hadoop's source found the
``capacity`` plugin doing something else (issue: "Fidelity").  We follow
HADOOP-3445 as shipped in Hadoop 0.19 (``CapacityTaskScheduler``), with
0.20's maximum capacity; each test names the Java method it pins."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from corescheduler_plugins.capacity import slots_of


def _plugin_tests():
    """tests/plugins/test_capacity.py's helpers, found by path: this file also runs alone
    (``pytest tests/scenarios``), where that folder is not on ``sys.path``."""
    if "test_capacity" in sys.modules:
        return sys.modules["test_capacity"]
    spec = importlib.util.spec_from_file_location(
        "test_capacity", Path(__file__).resolve().parents[1] / "plugins" / "test_capacity.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["test_capacity"] = module
    spec.loader.exec_module(module)
    return module


beat, harness, plugin = _plugin_tests().beat, _plugin_tests().harness, _plugin_tests().plugin

EXACT = {"extra": 'load_manager = "slots"\ntask_selector = "locality"'}


def test_queues_are_ordered_by_running_over_guaranteed_capacity():
    """0.19 ``CapacityTaskScheduler.QueueComparator``: a free slot goes to the
    queue with the lowest ``numRunningTasks / guaranteedCapacity``, not
    running over the capacity it is allocated (lent) now.  Here a runs 1 of
    its 2 guaranteed slots (0.5) and b 2 of its 8 (0.25): b is served, though
    b's allocation (5, its demand) makes it the busier one by allocation."""
    h = harness({"a": {"capacity": 20}, "b": {"capacity": 80}}, nodes=5, map_slots=2, reduce_slots=0,
                preemption=False, **EXACT)
    h.submit(10, 0, pool="a")
    h.submit(5, 0, pool="b")
    assert [beat(h, "n0000"), beat(h, "n0001"), beat(h, "n0002")] == [
        "job_0001_m_000000", "job_0002_m_000000", "job_0002_m_000001"]
    assert h.shares()["pools"]["a"]["map"] == 5.0 and h.shares()["pools"]["b"]["map"] == 5.0
    assert beat(h, "n0003") == "job_0002_m_000002"


def test_reduces_first_only_when_more_reduce_slots_are_free():
    """0.19/0.20 ``CapacityTaskScheduler.assignTasks``: ``if ((maxReduceTasks -
    currentReduceTasks) > (maxMapTasks - currentMapTasks))`` reduces first,
    else maps first; one task a heartbeat.  A 2-map/1-reduce node: m, m, r."""
    h = harness({"default": {"capacity": 100}}, nodes=1, map_slots=2, reduce_slots=1, preemption=False, **EXACT)
    h.submit(3, 2)
    assert [beat(h, "n0000") for _ in range(3)] == ["job_0001_m_000000", "job_0001_m_000001", "job_0001_r_000000"]
    h2 = harness({"default": {"capacity": 100}}, nodes=1, map_slots=1, reduce_slots=2, preemption=False, **EXACT)
    h2.submit(3, 2)
    assert beat(h2, "n0000") == "job_0001_r_000000"  # 2 free reduce slots > 1 free map slot


def test_running_jobs_are_served_before_waiting_ones():
    """0.19 ``MapSchedulingMgr.getTaskFromQueue``: the queue's running jobs
    (``getRunningJobQueue``) first, then the waiting ones; so a HIGH job that
    arrives behind a running NORMAL job waits until that job has nothing
    to give, priorities notwithstanding."""
    h = harness({"default": {"capacity": 100, "supports_priority": True}}, nodes=2, map_slots=2, reduce_slots=0,
                preemption=False, **EXACT)
    h.submit(2, 0, priority="NORMAL")
    assert beat(h, "n0000") == "job_0001_m_000000"
    h.submit(2, 0, priority="HIGH")
    assert beat(h, "n0000") == "job_0001_m_000001"  # the running job first
    assert beat(h, "n0001") == "job_0002_m_000000"  # it has nothing left: the waiting one
    # among waiting jobs, priority still counts
    h.submit(1, 0, priority="LOW")
    h.submit(1, 0, priority="VERY_HIGH")
    h.finish("job_0001_m_000000")
    assert beat(h, "n0000") == "job_0002_m_000001"  # running job_0002 before both waiting
    h.finish("job_0001_m_000001")
    assert beat(h, "n0000") == "job_0004_m_000000"


def test_a_queue_whose_guarantee_floors_to_zero_never_gets_a_task():
    """0.19 ``CapacityTaskScheduler``: a queue with ``guaranteedCapacity <= 0``
    is never offered a slot, even on an idle cluster (5 % of 10 slots is 0)."""
    h = harness({"a": {"capacity": 95}, "b": {"capacity": 5}}, nodes=5, map_slots=2, reduce_slots=0,
                preemption=False, **EXACT)
    h.submit(3, 0, pool="b")
    assert plugin(h).guarantee("b", "map") == 0
    assert all(beat(h, n) is None for n in ("n0000", "n0001", "n0002"))
    h.submit(1, 0, pool="a")
    assert beat(h, "n0000") == "job_0002_m_000000"


def test_guarantees_are_computed_in_single_precision():
    """0.19 ``updateQSIObjects``: ``(int)(qsi.guaranteedCapacityPercent *
    numSlots / 100)`` with a float percent: 2.6 % of 1,500 slots is 38."""
    assert slots_of(2.6, 1500) == 38
    assert slots_of(20, 10) == 2
    assert slots_of(33.3, 3) == 0
    h = harness({"a": {"capacity": 2.6}, "b": {"capacity": 97.4}}, nodes=750, map_slots=2, reduce_slots=0,
                preemption=False, **EXACT)
    assert plugin(h).guarantee("a", "map") == 38


def test_a_zero_guarantee_queue_does_not_disable_reclaim():
    """Deliberate deviation: 0.19 ``reclaimCapacity`` looks only at the
    last-sorted queue, which a queue with no guarantee always is, so one such
    queue disables reclaim for every queue (a bug).  Ours checks every queue:
    a reclaims what b borrowed although c has no guarantee."""
    h = harness({"a": {"capacity": 50}, "b": {"capacity": 45}, "c": {"capacity": 5}}, nodes=5, map_slots=2,
                reduce_slots=0, reclaim_time=10.0, **EXACT)
    h.submit(20, 0, pool="b")
    for n in range(5):
        beat(h, f"n{n:04d}")
        beat(h, f"n{n:04d}")
    assert h.running("b")["map"] == 10
    h.submit(5, 0, pool="a")
    h.advance(5.0)
    assert h.killed == []
    killed = h.advance(6.0)
    assert len(killed) == 5 and all(t.job.pool == "b" for t in killed)
