"""Resource mode: asks are normalized as YARN's schedulers do (SPEC §6b,
``SchedulerUtils.normalizeRequest`` → ``DominantResourceCalculator.normalize``), and an ask
above ``[cluster] maximum_allocation`` is refused (``validateResourceRequest``).  Slot mode:
the pools placement created are forgotten once empty (``remove_empty_pools``)."""

from __future__ import annotations

import pytest

from corescheduler.config import Config
from corescheduler.errors import ConfigError
from corescheduler.resources import Resources, normalize
from corescheduler.testing import ClusterHarness, SubmissionRejected

MIN, INC, MAX = Resources(1024, 1), Resources(1024, 1), Resources(8192, 4)


@pytest.mark.parametrize(("ask", "expected"), [
    (Resources(0, 0), Resources(1024, 1)),            # a zero ask becomes the minimum
    (Resources(1, 1), Resources(1024, 1)),
    (Resources(1025, 1), Resources(2048, 1)),         # rounded up to the increment
    (Resources(2048, 3), Resources(2048, 3)),
    (Resources(8000, 4), Resources(8192, 4)),
    (Resources(9000, 9), Resources(8192, 4)),         # at most the maximum (validation refuses first)
])
def test_normalize_is_yarns(ask: Resources, expected: Resources) -> None:
    assert normalize(ask, MIN, MAX, INC) == expected


def test_normalize_other_increments_and_extra_types() -> None:
    # TestSchedulerUtils.testNormalizeRequest's shape: minimum 1024, increment 512 rounds 1536 as is
    assert normalize(Resources(1500, 1), Resources(1024, 1), Resources(10240, 4), Resources(512, 1)) == \
        Resources(1536, 1)
    # an extra type with no minimum or increment keeps its amount; one under a maximum is capped
    assert normalize(Resources(1024, 1, {"gpu": 3}), MIN, Resources(8192, 4, {"gpu": 2}), INC) == \
        Resources(1024, 1, {"gpu": 2})
    assert normalize(Resources(1024, 1, {"gpu": 3}), MIN, MAX, INC) == Resources(1024, 1, {"gpu": 3})


def _harness(**cluster: str) -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=1, node_resources="4096 mb, 2 vcores",
                          config={"scheduler": {"mode": "resources"}, "cluster": cluster}, allocations="<allocations/>")


def test_a_zero_ask_never_overcommits_a_node() -> None:
    h = _harness()
    app = h.submit(queue="root.a", user="alice", tasks=10, resources="0 mb, 0 vcores")
    tasks = [t for ts in h.job(app).tasks.values() for t in ts]
    assert len(tasks) == 10 and all(t.resources == Resources(1024, 1) for t in tasks)
    for _ in range(3):
        h.heartbeat("n0000")
    assert h.running(app) == 2  # the node's 2 vcores, not 10 tasks of nothing


def test_an_ask_above_the_maximum_allocation_is_refused() -> None:
    h = _harness(maximum_allocation="4096 mb, 2 vcores")
    with pytest.raises(SubmissionRejected, match=r"greater than maximum allowed allocation.*vcores"):
        h.submit(queue="root.a", user="alice", tasks=1, resources="1024 mb, 3 vcores")
    app = h.submit(queue="root.a", user="alice", tasks=1, resources="1500 mb, 2 vcores")
    assert [t.resources for ts in h.job(app).tasks.values() for t in ts] == [Resources(2048, 2)]


def test_allocation_settings_are_checked() -> None:
    cfg = Config.from_dict({"cluster": {"minimum_allocation": "512 mb, 1 vcores", "increment_allocation":
                                        "256 mb, 1 vcores", "maximum_allocation": "2048 mb, 2 vcores"}})
    assert cfg.cluster.minimum_allocation == Resources(512, 1)
    assert cfg.cluster.increment_allocation == Resources(256, 1)
    with pytest.raises(ConfigError, match="maximum_allocation"):
        Config.from_dict({"cluster": {"minimum_allocation": "4096 mb, 1 vcores",
                                      "maximum_allocation": "2048 mb, 2 vcores"}})


def test_slot_mode_forgets_empty_pools_placement_created() -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=1, allocations="<allocations><pool name='kept'/></allocations>")
    jobs = [h.submit(pool=f"oneoff{i}", maps=1) for i in range(100)]
    kept = h.submit(pool="kept", maps=1)
    sched = h.scheduler
    assert len(sched.pools) == 102  # default, kept, 100 one-off pools
    assert sched.remove_empty_pools() == []  # every pool has its job
    for job in [*jobs, kept]:
        sched.end_job(job.id)
    removed = sched.remove_empty_pools()
    assert sorted(removed) == sorted(f"oneoff{i}" for i in range(100))
    assert set(sched.pools) == {"default", "kept"}
    again = h.submit(pool="oneoff7", maps=1)  # a forgotten pool comes back when named again
    h.heartbeat("n0000")
    assert h.running("oneoff7")["map"] == 1 and again.id in sched.jobs


# --------------------------------------------------------------------------- Hadoop's own cases
#: FairSchedulerTestBase.createConfiguration: minimum 0 MB, increment 1024 MB, maximum 10240 MB
#: (vcores: YARN's defaults, minimum 1, increment 1, maximum 4)
TEST_BASE = {"minimum_allocation": "0 mb, 1 vcores", "increment_allocation": "1024 mb, 1 vcores",
             "maximum_allocation": "10240 mb, 4 vcores"}


def test_simple_container_allocation_rounds_a_small_ask_up_to_the_increment() -> None:
    """``TestFairScheduler.testSimpleContainerAllocation``: nodes of 1024 MB/4 vcores and
    512 MB/2 vcores; an app asks two containers of 512 MB, 2 vcores.  The first node runs one
    of 1024 MB (less than the increment is rounded up: ``FairScheduler.getNormalizedResource``
    with the increment allocation); the second node, with 512 MB, runs none."""
    h = ClusterHarness(racks=1, nodes_per_rack=0, config={"scheduler": {"mode": "resources"}, "cluster": TEST_BASE},
                       allocations="<allocations/>")
    h.add_node("node1", resources="1024 mb, 4 vcores")
    h.add_node("node2", resources="512 mb, 2 vcores")
    h.submit_app(queue="queue1", user="user1", tasks=2, resources="512 mb, 2 vcores")
    h.update()
    h.heartbeat("node1")
    usage = h.shares()["queues"]["root.queue1"]["usage"]
    assert usage["memory"] == 1024  # DEFAULT_RM_SCHEDULER_INCREMENT_ALLOCATION_MB
    h.heartbeat("node2")
    assert h.shares()["queues"]["root.queue1"]["usage"] == {"memory": 1024, "vcores": 2}
    root = h.shares()["queues"]["root"]
    assert root["usage"] == {"memory": 1024, "vcores": 2}
    cluster = h.scheduler._rs.cluster_total
    assert (cluster.memory - root["usage"]["memory"], cluster.vcores - root["usage"]["vcores"]) == (512, 4)


@pytest.mark.parametrize(("ask", "expected"), [
    (Resources(-1024, -1), Resources(1024, 1)),   # negative memory/vcores: the minimum
    (Resources(0, 0), Resources(1024, 1)),        # zero: the minimum
    (Resources(1536, 0), Resources(2048, 1)),     # non-zero memory & zero cores
    (Resources(1536, 3), Resources(2048, 3)),
    (Resources(10140, 11), Resources(10240, 10)),  # over the maximum: capped (validation refuses first)
])
def test_normalize_with_the_dominant_resource_calculator(ask: Resources, expected: Resources) -> None:
    """``TestSchedulerUtils.testNormalizeRequestWithDominantResourceCalculator``: minimum
    1024 MB/1 vcore (also the step), maximum 10240 MB/10 vcores."""
    assert normalize(ask, Resources(1024, 1), Resources(10240, 10), Resources(1024, 1)) == expected


def test_normalize_when_the_maximum_is_not_a_multiple_of_the_step() -> None:
    """``TestSchedulerUtils.testNormalizeRequest``: "max is not a multiple of min" — a
    rounded-up ask above the maximum is brought down to it; with the test base's minimum of
    0 MB, an ask of 0 MB stays 0 (``DominantResourceCalculator.normalize``: max(0, 0) rounded up)."""
    assert normalize(Resources(10240 - 100, 1), Resources(1024, 1), Resources(10240 - 10, 4),
                     Resources(1024, 1)).memory == 10230
    assert normalize(Resources(0, 1), Resources(0, 1), Resources(10240, 4), Resources(1024, 1)) == Resources(0, 1)
    assert normalize(Resources(512, 2), Resources(0, 1), Resources(10240, 4), Resources(1024, 1)) == \
        Resources(1024, 2)
