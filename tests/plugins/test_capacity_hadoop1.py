"""More of Hadoop's ``TestCapacityScheduler`` (``src/contrib/capacity-scheduler``), and the
capacity rules of ``CapacityTaskScheduler.start`` (0.19.1, 0.20, 1.x).

Hadoop's fixture, as in ``tests/plugins/test_capacity.py``: trackers tt1, tt2 (nodes ``n0000``,
``n0001``) with 2 map slots and 1 reduce slot each, one task a heartbeat; Hadoop numbers a job's
attempts from 1 (``attempt_test_0001_m_000001_0``), the harness from 0 (``job_0001_m_000000``).
``FakeQueueInfo(name, capacity, reclaimTime, supportsPrio, ulMin)`` becomes a queue table.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corescheduler_plugins.capacity import read_config
from test_capacity import XML, beat, capacity_config, harness, plugin

from corescheduler.errors import ConfigError
from corescheduler.testing import ClusterHarness


def queue(capacity: float | None, ul_min: float = 25, prio: bool = True) -> dict:
    table: dict = {"minimum_user_limit_percent": ul_min, "supports_priority": prio}
    if capacity is not None:
        table["capacity"] = capacity
    return table


# ============================================================================ TestCapacityScheduler


def test_hadoop_user_limits_2():
    """testUserLimits2: u1 alone takes both of q2's map slots; u2's job, submitted later, gets
    the next two slots (lent by ``default``), since u1 is at its limit of
    max(ceil(3/2), ceil(25 % of 3)) = 2."""
    h = harness({"default": queue(50), "q2": queue(50)})
    h.submit(maps=10, reduces=10, pool="q2", user="u1")
    assert beat(h, "n0000") == "job_0001_m_000000"
    assert beat(h, "n0000") == "job_0001_m_000001"  # the only job: another map
    h.submit(maps=10, reduces=10, pool="q2", user="u2")
    assert beat(h, "n0001") == "job_0002_m_000000"
    assert beat(h, "n0001") == "job_0002_m_000001"


def test_hadoop_submit_to_queues():
    """testSubmitToQueues: a job naming no queue goes to ``default``; a job submitted later to
    the idle q2 gets the next slot."""
    h = harness({"default": queue(50), "q2": queue(50)}, extra='pool_resolver = ["capacity"]')
    j1 = h.submit(maps=10, reduces=10, user="u1")
    assert h.job(j1).pool == "default"
    assert beat(h, "n0000") == "job_0001_m_000000"
    j2 = h.submit(maps=10, reduces=10, pool="q2", user="u1")
    assert h.job(j2).pool == "q2"
    assert beat(h, "n0001") == "job_0002_m_000000"


def test_hadoop_job_finished():
    """testJobFinished: one queue, ``default``, configured with 50 % (the rest of the cluster
    guaranteed to no queue, which Hadoop takes); two jobs of one user are served in turn as
    tasks finish, and once the first job is done the second still gets slots."""
    h = harness({"default": queue(50, ul_min=25)}, reclaim_time=10.0)
    j1 = h.submit(maps=3, pool="default", user="u1")
    h.submit(maps=3, pool="default", user="u1")
    assert plugin(h).guarantee("default", "map") == 2
    # I. multiple assignments with running tasks within a job
    assert beat(h, "n0000") == "job_0001_m_000000"
    assert beat(h, "n0000") == "job_0001_m_000001"
    h.finish("job_0001_m_000000")
    h.finish("job_0001_m_000001")
    # II. across jobs
    assert beat(h, "n0000") == "job_0001_m_000002"
    assert beat(h, "n0000") == "job_0002_m_000000"
    h.finish("job_0002_m_000000")
    h.finish("job_0001_m_000002")
    # III. with completed tasks across jobs
    assert beat(h, "n0000") == "job_0002_m_000001"
    h.finish("job_0002_m_000001")
    # IV. the first job is complete (Hadoop: scheduler.jobCompleted(j1)); the second goes on
    assert h.job(j1).finish_time is not None
    assert beat(h, "n0000") == "job_0002_m_000002"


def test_hadoop_start_without_default_queue_configured():
    """testStartWithoutDefaultQueueConfigured (0.20): one queue, q1, at 100 %; its job runs its
    map, then (no map left) its reduce on tt1."""
    h = harness({"q1": queue(100, ul_min=100)}, extra='pool_resolver = ["capacity"]')
    h.submit(maps=1, reduces=1, pool="q1", user="u1")
    assert beat(h, "n0000") == "job_0001_m_000000"
    assert beat(h, "n0000") == "job_0001_r_000000"


def test_hadoop_job_run_state_change_priority_reorders_the_waiting_queue():
    """testJobRunStateChange / testJobOrderChange, its waiting-queue part: in a queue that supports
    priorities, raising job 2's priority puts it before job 1 (JobQueuesManager re-sorts on
    PRIORITY_CHANGED).  The running-queue part needs jobs initialised without a task launched,
    which the harness has not (0.19.0 initialises a waiting job when it is first offered a slot)."""
    h = harness({"default": queue(100, ul_min=1)}, nodes=1)
    h.submit(maps=1, pool="default", user="user")
    j2 = h.submit(maps=1, pool="default", user="user")
    h.set_priority(j2, "HIGH")
    h.advance(0.1)
    assert beat(h, "n0000") == "job_0002_m_000000"
    assert beat(h, "n0000") == "job_0001_m_000000"


# ============================================================================ CapacityTaskScheduler.start


def test_hadoop_capacity_allocation_to_queues():
    """testCapacityAllocationToQueues (0.20): default at 25 and four queues with no capacity
    (FakeQueueInfo capacity -1): each of those gets 75 / 4 = 18.75."""
    queues = {"default": queue(25), **{f"q{i}": queue(None) for i in range(1, 5)}}
    config = read_config({"queues": queues})
    assert [config.queues[f"q{i}"].map_capacity for i in range(1, 5)] == [18.75] * 4
    assert [config.queues[f"q{i}"].reduce_capacity for i in range(1, 5)] == [18.75] * 4



def test_capacities_below_100_are_taken_as_hadoop_takes_them():
    """``start`` refuses only a sum over 100; with 50 + 30 the 20 % left is guaranteed to no
    queue and is lent like any idle capacity."""
    h = harness({"default": {"capacity": 50}, "q2": {"capacity": 30}}, nodes=5)
    assert (plugin(h).guarantee("default", "map"), plugin(h).guarantee("q2", "map")) == (5, 3)
    j = h.submit(maps=20, pool="q2", user="u1")
    assert sum(len(h.heartbeat(n)) for n in list(h.cluster.nodes) * 2) == 10
    assert h.running(j)["map"] == 10


def test_queues_without_a_capacity_share_the_remainder():
    """``start``: ``remainingQuantityToAllocate / queuesWithoutConfiguredCapacity.size()``, in
    float: 100 - 40 = 60 between two queues is 30 each; per kind where the kinds differ."""
    config = read_config({"queues": {"default": {"capacity": 40}, "a": {"supports_priority": True},
                                     "b": {"maximum_capacity": 50}}})
    assert [(q.map_capacity, q.reduce_capacity) for q in config.queues.values()] == [(40, 40), (30, 30), (30, 30)]
    config = read_config({"queues": {"default": {"map_capacity": 70, "reduce_capacity": 20},
                                     "a": {"map_capacity": 10}, "b": {}, "c": {}}})
    caps = {name: (q.map_capacity, q.reduce_capacity) for name, q in config.queues.items()}
    assert caps == {"default": (70, 20), "a": (10, pytest.approx(26.666666, abs=1e-5)),
                    "b": (10, pytest.approx(26.666666, abs=1e-5)), "c": (10, pytest.approx(26.666666, abs=1e-5))}
    assert caps["a"][1] == 26.666666030883789  # 80f / 3 in single precision


def test_a_queue_without_capacity_runs_on_its_share_of_the_remainder():
    h = harness({"default": {"capacity": 50}, "q2": {}}, nodes=5)
    assert plugin(h).guarantee("q2", "map") == 5
    h.submit(maps=10, pool="default", user="u1")
    h.submit(maps=10, pool="q2", user="u1")
    assert [beat(h, "n0000"), beat(h, "n0000")] == ["job_0001_m_000000", "job_0002_m_000000"]


def test_xml_queue_without_capacity_shares_the_remainder(tmp_path: Path):
    xml = XML.replace("queue.adhoc.capacity<", "queue.adhoc.supports-priority<").replace(
        "<value>20</value>", "<value>false</value>", 1)
    (tmp_path / "cs.xml").write_text(xml)
    config = read_config({"config_file": str(tmp_path / "cs.xml")})
    assert config.queues["adhoc"].map_capacity == 100.0 - sum(
        q.map_capacity for name, q in config.queues.items() if name != "adhoc")


@pytest.mark.parametrize(
    ("queues", "expected"),
    [
        ({"a": {"capacity": 60}, "b": {"capacity": 50}},
         "[plugins.capacity] queues: queue capacities must add up to at most 100 (percent of the cluster's map "
         "slots; Hadoop: \"Sum of queue capacities over 100%\"), got 110 = a 60 + b 50"),
        ({"a": {"capacity": 60}, "b": {"capacity": 50}, "c": {}},
         "got 110 = a 60 + b 50"),
        ({"a": {"capacity": 50, "reduce_capacity": 60}, "b": {"capacity": 50}},
         "[plugins.capacity] queues: reduce capacities must add up to at most 100 (percent of the cluster's "
         "reduce slots; Hadoop: \"Sum of queue capacities over 100%\"), got 110 = a 60 + b 50"),
    ],
)
def test_a_sum_over_100_is_refused(queues, expected):
    with pytest.raises(ConfigError) as info:
        ClusterHarness(config=capacity_config(queues))
    assert expected in str(info.value) and "\n" not in str(info.value)


def test_resource_mode_keeps_yarns_rule():
    """YARN's CapacityScheduler wants a parent's children to add up to 100 and each to have a
    capacity; the ``capacity`` plugin in resource mode keeps that."""
    with pytest.raises(ConfigError, match="must add up to 100"):
        read_config({"queues": {"a": {"capacity": 50}, "b": {"capacity": 40}}}, mode="resources")
    with pytest.raises(ConfigError, match=r"queues\.b\.capacity: missing"):
        read_config({"queues": {"a": {"capacity": 50}, "b": {}}}, mode="resources")


# ============================================================================ reclaim, Hadoop's timing
# The Java tests set mapred.capacity-scheduler.reclaimCapacity.interval to 500 (s) and call
# reclaimCapacity() by hand; a request's tasks are killed once its whenToKill (reclaim time less
# HEARTBEATS_LEFT_BEFORE_KILLING = 3 heartbeats) comes before the next run of the reclaim thread.
# Here: [plugins.capacity] reclaim_interval = 500 and h.preempt().

def reclaim_harness(queues, nodes=2):
    text = capacity_config(queues, reclaim_time=1000.0, extra="preemption_interval = 100000.0")
    text = text.replace("[plugins.capacity]\n", "[plugins.capacity]\nreclaim_interval = 500.0\n")
    h = ClusterHarness(racks=1, nodes_per_rack=nodes, map_slots=2, reduce_slots=1, config=text)
    h.advance(0.1)
    return h


def test_hadoop_reclaim_capacity_with_hadoops_timing():
    """testReclaimCapacity, Hadoop's numbers: nothing killed at 400 s, one task of j1 at 600 s
    (whenToKill 1000 - 9 = 991 s comes before 600 + 500)."""
    h = reclaim_harness({"default": {"capacity": 50}, "q2": {"capacity": 25}, "q3": {"capacity": 25}})
    j1 = h.submit(maps=10, reduces=10, user="u1")
    j2 = h.submit(maps=10, reduces=10, pool="q3", user="u1")
    assert [beat(h, n) for n in ("n0000", "n0000", "n0001", "n0001")] == [
        "job_0001_m_000000", "job_0002_m_000000", "job_0001_m_000001", "job_0001_m_000002"]
    h.submit(maps=10, reduces=10, pool="q2", user="u1")
    h.update()
    assert h.preempt() == []
    h.advance(400.0)
    assert h.preempt() == []
    assert (h.running(j1)["map"], h.running(j2)["map"]) == (3, 1)
    h.advance(200.0)
    (killed,) = h.preempt()
    assert killed.id == "job_0001_m_000002"
    assert (h.running(j1)["map"], h.running(j2)["map"]) == (2, 1)


def test_hadoop_reclaim_capacity_2_with_hadoops_timing():
    """testReclaimCapacity2, Hadoop's numbers: 3 slots owed; at 600 s q3 gives round(3×3/5) = 2
    and q4 round(2×3/5) = 1."""
    h = reclaim_harness({"default": {"capacity": 50}, "q2": {"capacity": 20}, "q3": {"capacity": 20},
                         "q4": {"capacity": 10}}, nodes=5)
    h.submit(maps=2, reduces=2, user="u1")
    assert beat(h, "n0000") == "job_0001_m_000000"
    j2 = h.submit(maps=10, reduces=10, pool="q3", user="u1")
    assert beat(h, "n0000") == "job_0002_m_000000"
    j3 = h.submit(maps=10, reduces=10, pool="q4", user="u1")
    got = [beat(h, n) for n in ("n0001", "n0001", "n0002", "n0002", "n0003", "n0003", "n0004", "n0004")]
    assert got == ["job_0003_m_000000", "job_0001_m_000001", "job_0002_m_000001", "job_0002_m_000002",
                   "job_0003_m_000001", "job_0002_m_000003", "job_0002_m_000004", "job_0003_m_000002"]
    h.submit(maps=10, reduces=10, user="u1")
    h.update()
    h.preempt()
    h.advance(400.0)
    assert h.preempt() == []
    assert (h.running(j2)["map"], h.running(j3)["map"]) == (5, 3)
    h.advance(200.0)
    assert len(h.preempt()) == 3
    assert (h.running(j2)["map"], h.running(j3)["map"]) == (3, 2)


def test_hadoop_reclaim_capacity_in_steps_with_hadoops_timing():
    """testReclaimCapacityInSteps, Hadoop's numbers: one task at 600 s, none more at 900 s, the
    second at 1300 s."""
    h = reclaim_harness({"default": {"capacity": 50}, "q2": {"capacity": 50}})
    j1 = h.submit(maps=10, reduces=10, user="u1")
    assert [beat(h, n) for n in ("n0000", "n0000", "n0001", "n0001")] == [f"job_0001_m_00000{i}" for i in range(4)]
    h.submit(maps=1, reduces=1, pool="q2", user="u1")
    h.update()
    h.preempt()
    h.advance(400.0)
    h.submit(maps=10, reduces=10, pool="q2", user="u2")
    h.update()
    h.advance(200.0)
    h.preempt()
    assert h.running(j1)["map"] == 3
    h.advance(300.0)
    h.preempt()
    assert h.running(j1)["map"] == 3  # the second request's timer has not fired
    h.advance(400.0)
    h.preempt()
    assert h.running(j1)["map"] == 2


def test_reclaim_interval_is_checked():
    with pytest.raises(ConfigError, match=r"reclaim_interval: must be ≥ 0, got -1"):
        read_config({"reclaim_interval": -1})


def test_xml_reclaim_interval_is_read(tmp_path: Path):
    """``mapred.capacity-scheduler.reclaimCapacity.interval`` (``conf.getLong``, seconds)."""
    xml = XML.replace("</configuration>", "<property><name>mapred.capacity-scheduler.reclaimCapacity.interval"
                                          "</name><value>500</value></property></configuration>")
    (tmp_path / "cs.xml").write_text(xml)
    assert read_config({"config_file": str(tmp_path / "cs.xml")}).reclaim_interval == 500.0
    (tmp_path / "cs.xml").write_text(XML)
    assert read_config({"config_file": str(tmp_path / "cs.xml")}).reclaim_interval is None
