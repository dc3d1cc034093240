"""The ``capacity`` plugin (Hadoop Capacity Scheduler semantics) through the harness.

C1–C3 are the worked cases of shared/scenarios/capacity.md; the ``hadoop_*``
tests port Hadoop's ``TestCapacityScheduler`` (0.19 ``src/contrib/capacity-scheduler``:
testCapacityBasedAllocation, testCapacityTransfer, testUserLimits*,
testReclaimCapacity*) with times in seconds and maps only where Hadoop's
tracker alternated maps and reduces differently.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corescheduler_plugins.capacity import CapacityScheduler, allocate, read_config, slots_of
from paths import EXAMPLES

from corescheduler import compute_fair_shares
from corescheduler.config import Config
from corescheduler.core.scheduler import JobRejectedError
from corescheduler.errors import ConfigError
from corescheduler.testing import ClusterHarness


def capacity_config(queues: dict[str, dict], *, preemption: bool = True, reclaim_time: float = 1000.0,
                    extra: str = "", multiple: bool = False) -> str:
    lines = [
        "[scheduler]",
        'share_policy = "capacity"',
        f"preemption = {str(preemption).lower()}",
        f"assign_multiple = {str(multiple).lower()}",
        extra,
        "[plugins.capacity]",
        f"reclaim_time = {reclaim_time}",
    ]
    for name, table in queues.items():
        lines.append(f"[plugins.capacity.queues.{name}]")
        for key, value in table.items():
            if isinstance(value, bool):
                value = str(value).lower()
            elif isinstance(value, str):
                value = f'"{value}"'
            lines.append(f"{key} = {value}")
    return "\n".join(lines) + "\n"


def harness(queues, nodes=2, map_slots=2, reduce_slots=1, allocations=None, **kw) -> ClusterHarness:
    h = ClusterHarness(racks=1, nodes_per_rack=nodes, map_slots=map_slots, reduce_slots=reduce_slots,
                       config=capacity_config(queues, **kw), allocations=allocations)
    h.advance(0.1)
    return h


def plugin(h: ClusterHarness) -> CapacityScheduler:
    return h.scheduler.plugins.instances["capacity"]


def nodes(h: ClusterHarness) -> list[str]:
    return list(h.cluster.nodes)


def fill(h: ClusterHarness) -> int:
    """Heartbeat every node until no task is assigned; returns how many were."""
    total = 0
    while True:
        got = sum(len(h.heartbeat(n)) for n in nodes(h))
        if not got:
            return total
        total += got


def beat(h: ClusterHarness, node: str) -> str | None:
    """One heartbeat (one task at most without assign_multiple): the task id or None."""
    got = h.heartbeat(node)
    assert len(got) <= 1
    return got[0].task if got else None


def running_maps(h: ClusterHarness, job) -> list:
    return [t for t in h.job(job).tasks["map"] if t.state == "running"]


def finish_one(h: ClusterHarness, job) -> str:
    """Finish the oldest running map of ``job``; returns the node it freed."""
    task = min(running_maps(h, job), key=lambda t: t.launch_seq)
    node = task.node
    h.finish(task)
    return node


# ============================================================================ C1–C3


def test_c1_excess_capacity_lent_in_ratio_of_guarantees():
    queues = {"q1": {"capacity": 50}, "q2": {"capacity": 30}, "q3": {"capacity": 20}}
    q3_pool = '<allocations><pool name="q3"/></allocations>'  # so that q3 shows in shares() with no job
    h = harness(queues, nodes=50, map_slots=2, multiple=True, allocations=q3_pool)
    h.submit(maps=1000, pool="q1", user="a")
    h.submit(maps=1000, pool="q2", user="b")
    pools = h.shares()["pools"]
    assert pools["q1"]["map"] == 62.5 and pools["q2"]["map"] == 37.5 and pools["q3"]["map"] == 0.0
    assert fill(h) == 100
    assert h.running("q1")["map"] in (62, 63) and h.running("q2")["map"] in (37, 38)
    assert h.killed == []


def c2_harness(**kw):
    queues = {"default": {"capacity": 50}, "q2": {"capacity": 20}, "q3": {"capacity": 20}, "q4": {"capacity": 10}}
    h = harness(queues, nodes=5, map_slots=2, **kw)
    j1 = h.submit(maps=2, pool="default", user="u1")
    j2 = h.submit(maps=10, pool="q3", user="u1")
    j3 = h.submit(maps=10, pool="q4", user="u1")
    fill(h)
    assert [h.running(j)["map"] for j in (j1, j2, j3)] == [2, 5, 3]
    assert [plugin(h).guarantee(q, "map") for q in queues] == [5, 2, 2, 1]
    return h, j1, j2, j3


def test_c2_reclaim_takes_back_exactly_the_guarantee_after_the_timer():
    h, j1, j2, j3 = c2_harness()
    newest_j2 = sorted(running_maps(h, j2), key=lambda t: -t.launch_seq)[:2]
    newest_j3 = sorted(running_maps(h, j3), key=lambda t: -t.launch_seq)[:1]
    j4 = h.submit(maps=3, pool="default", user="u1")
    (request,) = plugin(h).reclaims("map")
    assert (request.queue, request.amount, request.deadline) == ("default", 3, pytest.approx(h.clock + 1000.0))
    assert h.advance(500.0) == [] and h.advance(499.0) == []
    assert h.running(j2)["map"] == 5 and h.running(j3)["map"] == 3
    killed = h.advance(1.0)  # the timer expires
    assert {t.id for t in killed} == {t.id for t in newest_j2 + newest_j3}
    assert [t.job.id for t in killed] == [j3.id, j2.id, j2.id]  # q4 is the most over its guarantee (3/1 > 5/2)
    assert h.running(j2)["map"] == 3 and h.running(j3)["map"] == 2
    assert h.advance(1.0) == []  # the freed slots are waiting for j4: nothing more is killed
    assert fill(h) == 3
    assert h.running(j4)["map"] == 3 and h.running(j1)["map"] == 2
    assert plugin(h).reclaims("map") == []
    assert h.advance(5000.0) == []


def test_c3_user_limits_inside_a_queue():
    h = harness({"default": {"capacity": 100, "minimum_user_limit_percent": 25}}, nodes=5, map_slots=2)
    j1 = h.submit(maps=20, user="u1")
    assert fill(h) == 10 and h.running(j1)["map"] == 10  # one user: limit 100 %
    j2 = h.submit(maps=10, user="u2")
    assert h.advance(100.0) == [] and fill(h) == 0  # no task is killed for a user limit
    assert plugin(h).user_limit("default", "map") == 6  # full queue: capacity counts the slot on offer (10 + 1)
    for n in range(5):  # each freed slot goes to u2 until it runs 5
        assert beat(h, finish_one(h, j1)).startswith(j2.id)
        assert h.running(j2)["map"] == n + 1
    assert plugin(h).user_limit("default", "map") == 6
    # 5 and 5: whoever is under the limit (5 of a 10-slot queue) gets the freed slot
    assert beat(h, finish_one(h, j1)).startswith(j1.id)
    assert beat(h, finish_one(h, j2)).startswith(j2.id)
    assert beat(h, finish_one(h, j1)).startswith(j1.id)
    j3, j4, j5 = (h.submit(maps=10, user=u) for u in ("u3", "u4", "u5"))
    # five users: limit max(100/5, 25) % of 10 = 2.5 slots; a user at 3 or more is skipped
    owner = {j.id: j.user for j in (j1, j2, j3, j4, j5)}
    got = []
    for job in (j1, j1, j2, j2, j1, j2):
        task = beat(h, finish_one(h, job))
        users = {j.user: h.running(j)["map"] for j in (j1, j2, j3, j4, j5)}
        got.append(owner[task.rsplit("_m_", 1)[0]])
        assert users[got[-1]] <= 3
    assert got == ["u3", "u3", "u3", "u4", "u1", "u2"]  # under-limit users in queue order
    assert h.killed == []


# ============================================================================ Hadoop TestCapacityScheduler


def test_hadoop_capacity_based_allocation_floors_guarantees():
    """testCapacityBasedAllocation: 10 % of fewer than 10 slots is 0 slots."""
    h = harness({"default": {"capacity": 10}, "q2": {"capacity": 90}}, nodes=2, map_slots=2)
    h.submit(maps=10, pool="default", user="u1")
    h.submit(maps=10, pool="q2", user="u1")
    assert beat(h, "n0000") == "job_0002_m_000000"
    assert (plugin(h).guarantee("default", "map"), plugin(h).guarantee("q2", "map")) == (0, 3)
    for new, node, task in (("n0002", "n0001", "job_0002_m_000001"), ("n0003", "n0002", "job_0002_m_000002")):
        h.scheduler.add_node(new, "r00", 2, 1)
        h.advance(0.1)
        assert beat(h, node) == task
    assert (plugin(h).guarantee("default", "map"), plugin(h).guarantee("q2", "map")) == (0, 7)
    h.scheduler.add_node("n0004", "r00", 2, 1)
    h.advance(0.1)
    assert (plugin(h).guarantee("default", "map"), plugin(h).guarantee("q2", "map")) == (1, 9)
    assert beat(h, "n0003") == "job_0001_m_000000"  # now default is furthest below its capacity


def test_hadoop_capacity_transfer():
    """testCapacityTransfer: an idle queue's capacity is lent to the busy one."""
    h = harness({"default": {"capacity": 50}, "q2": {"capacity": 50}})
    j = h.submit(maps=10, pool="q2", user="u1")
    assert h.shares()["pools"]["q2"]["map"] == 4.0
    assert [beat(h, n) for n in ("n0000", "n0000", "n0001", "n0001")] == [
        f"{j.id}_m_00000{i}" for i in range(4)
    ]


def test_hadoop_user_limits():
    """testUserLimits: below the guarantee a second user gets the next slot;
    above it the limit grows with what the queue runs."""
    h = harness({"default": {"capacity": 50, "minimum_user_limit_percent": 25},
                 "q2": {"capacity": 50, "minimum_user_limit_percent": 25}})
    h.submit(maps=10, pool="q2", user="u1")
    assert beat(h, "n0000") == "job_0001_m_000000"
    h.submit(maps=10, pool="q2", user="u2")
    assert beat(h, "n0000") == "job_0002_m_000000"
    assert beat(h, "n0001") == "job_0001_m_000001"
    assert beat(h, "n0001") == "job_0002_m_000001"


def test_hadoop_user_limits_second_job_after_the_first_runs():
    """testUserLimits3: u2 gets the slots u1 frees until both run the same."""
    h = harness({"default": {"capacity": 50, "minimum_user_limit_percent": 25},
                 "q2": {"capacity": 50, "minimum_user_limit_percent": 25}})
    j1 = h.submit(maps=10, pool="q2", user="u1")
    assert [beat(h, n) for n in ("n0000", "n0000", "n0001", "n0001")] == [f"job_0001_m_00000{i}" for i in range(4)]
    j2 = h.submit(maps=10, pool="q2", user="u2")
    h.finish("job_0001_m_000000")
    assert beat(h, "n0000") == "job_0002_m_000000"
    h.finish("job_0001_m_000001")
    assert beat(h, "n0000") == "job_0002_m_000001"
    # two each: whichever job's task finishes gets the slot back
    h.finish("job_0001_m_000002")
    assert beat(h, "n0001") == "job_0001_m_000004"
    h.finish("job_0002_m_000000")
    assert beat(h, "n0000") == "job_0002_m_000002"
    assert h.running(j1)["map"] == 2 and h.running(j2)["map"] == 2


def test_hadoop_user_limits_many_users():
    """testUserLimits4.  Hadoop's fake tracker counted the two later finishes
    on job 1 whatever task finished, so here job 1's tasks finish."""
    h = harness({"default": {"capacity": 100, "minimum_user_limit_percent": 25}}, nodes=5)
    h.submit(maps=10, user="u1")
    assert [beat(h, n) for n in ("n0000", "n0000", "n0001", "n0001", "n0002")] == [
        f"job_0001_m_00000{i}" for i in range(5)
    ]
    h.submit(maps=4, user="u2")
    assert [beat(h, n) for n in ("n0002", "n0003", "n0003", "n0004")] == [f"job_0002_m_00000{i}" for i in range(4)]
    assert beat(h, "n0004") == "job_0001_m_000005"  # u2 has nothing left: the last slot goes to u1
    h.finish("job_0001_m_000005")
    for user in ("u1", "u1", "u1", "u2"):
        h.submit(maps=10, user=user)
    h.submit(maps=2, user="u3")  # job_0007
    # three users: limit max(ceil(10/3), ceil(2.5)) = 4; u1 (5) and u2 (4) are at it
    assert beat(h, "n0004") == "job_0007_m_000000"
    h.finish("job_0001_m_000004")
    assert beat(h, "n0002") == "job_0007_m_000001"  # u1 at 4 is still at the limit
    h.finish("job_0001_m_000003")
    assert beat(h, "n0001") == "job_0001_m_000006"  # u3 has nothing to run; u1's job is first in the queue


def test_hadoop_reclaim_capacity():
    """testReclaimCapacity: q2 reclaims its 1 slot; only default is over."""
    h = harness({"default": {"capacity": 50}, "q2": {"capacity": 25}, "q3": {"capacity": 25}})
    j1 = h.submit(maps=10, user="u1")
    j2 = h.submit(maps=10, pool="q3", user="u1")
    assert [beat(h, n) for n in ("n0000", "n0000", "n0001", "n0001")] == [
        "job_0001_m_000000", "job_0002_m_000000", "job_0001_m_000001", "job_0001_m_000002"]
    h.submit(maps=10, pool="q2", user="u1")
    assert h.advance(400.0) == [] and h.advance(599.0) == []
    assert (h.running(j1)["map"], h.running(j2)["map"]) == (3, 1)
    (killed,) = h.advance(1.0)
    assert killed.id == "job_0001_m_000002"
    assert (h.running(j1)["map"], h.running(j2)["map"]) == (2, 1)


def test_hadoop_reclaim_in_steps_each_request_has_its_own_timer():
    """testReclaimCapacityInSteps: a second job in q2 files a second request
    with its own timer."""
    h = harness({"default": {"capacity": 50}, "q2": {"capacity": 50}})
    j1 = h.submit(maps=10, user="u1")
    assert fill(h) == 4
    h.submit(maps=1, pool="q2", user="u1")  # t = 0.1: q2 asks for 1
    h.advance(400.0)
    h.submit(maps=10, pool="q2", user="u2")  # t = 400.1: q2 asks for 1 more
    assert [(r.amount, r.created) for r in plugin(h).reclaims("map")] == [(1, 0.1), (1, 400.1)]
    assert h.advance(599.9) == []
    assert len(h.advance(0.1)) == 1 and h.running(j1)["map"] == 3  # t = 1000.1: the first timer
    assert h.advance(399.9) == [] and h.running(j1)["map"] == 3
    assert len(h.advance(0.1)) == 1 and h.running(j1)["map"] == 2  # t = 1400.1: the second timer
    assert fill(h) == 2 and h.running("q2")["map"] == 2
    assert h.advance(2000.0) == []


def test_reclaim_satisfied_by_tasks_finishing_before_the_timer_kills_nothing():
    h, _, j2, j3 = c2_harness()
    j4 = h.submit(maps=3, pool="default", user="u2")
    h.advance(100.0)
    for job in (j2, j2, j3):  # over-capacity tasks finish; their slots go to default
        node = finish_one(h, job)
        assert beat(h, node).startswith(j4.id)
    assert plugin(h).reclaims("map") == []
    assert h.advance(2000.0) == [] and h.killed == []


def test_reclaim_counts_free_slots_as_returned():
    h, _, j2, j3 = c2_harness()
    h.submit(maps=3, pool="default", user="u2")
    for job in (j2, j2, j3):
        finish_one(h, job)  # no heartbeat yet: the slots stand free for default
    assert h.advance(1000.0) == [] and h.killed == []
    assert fill(h) == 3 and h.running("default")["map"] == 5


def test_no_reclaim_without_preemption():
    h, *_ = c2_harness(preemption=False)
    h.submit(maps=3, pool="default", user="u1")
    assert h.advance(5000.0) == [] and h.killed == []
    assert plugin(h).reclaims("map") == []


def test_reclaim_partly_paid_back_kills_only_the_rest():
    h, *_ = c2_harness()
    j4 = h.submit(maps=10, pool="default", user="u1")
    h.finish("job_0001_m_000000")
    h.finish("job_0001_m_000001")  # j1 is done: default runs nothing and asks for 2 more
    assert h.advance(0.0) == []
    first, second = plugin(h).reclaims("map")
    assert (first.amount, second.amount) == (3, 2)
    assert fill(h) == 2 and (first.left, second.left) == (1, 2)  # the two free slots pay the oldest back
    killed = h.advance(1000.0)
    assert len(killed) == 3  # over by 3 (q3) and 2 (q4): round(3×3/5) = 2 and round(2×3/5) = 1
    assert h.running("q3")["map"] == 3 and h.running("q4")["map"] == 2
    assert fill(h) == 3 and h.running(j4)["map"] == 5
    assert h.advance(5000.0) == []


# ============================================================================ capacities


def test_maximum_capacity_caps_lending():
    queues = {"q1": {"capacity": 50, "maximum_capacity": 60}, "q2": {"capacity": 30}, "q3": {"capacity": 20}}
    h = harness(queues, nodes=50, map_slots=2, multiple=True)
    h.submit(maps=1000, pool="q1", user="a")
    h.submit(maps=1000, pool="q2", user="b")
    assert h.shares()["pools"]["q1"]["map"] == 60.0 and h.shares()["pools"]["q2"]["map"] == 40.0  # exactly
    assert plugin(h).maximum("q1", "map") == 60
    assert fill(h) == 100
    assert h.running("q1")["map"] == 60 and h.running("q2")["map"] == 40


def test_reduces_have_their_own_capacities():
    queues = {"a": {"capacity": 50, "reduce_capacity": 25}, "b": {"capacity": 50, "reduce_capacity": 75}}
    h = harness(queues, nodes=4, map_slots=1, reduce_slots=1, extra="reduce_slowstart = 0.0")
    assert [plugin(h).guarantee(q, "reduce") for q in "ab"] == [1, 3]
    assert [plugin(h).guarantee(q, "map") for q in "ab"] == [2, 2]
    h.submit(maps=10, reduces=10, pool="a", user="u")
    h.submit(maps=10, reduces=10, pool="b", user="v")
    shares = h.shares()["pools"]
    assert (shares["a"]["map"], shares["a"]["reduce"]) == (2.0, 1.0)
    assert (shares["b"]["map"], shares["b"]["reduce"]) == (2.0, 3.0)
    fill(h)
    assert h.running("a") == {"map": 2, "reduce": 1} and h.running("b") == {"map": 2, "reduce": 3}


def test_reduce_reclaim_like_maps():
    queues = {"a": {"capacity": 50}, "b": {"capacity": 50}}
    h = harness(queues, nodes=4, map_slots=1, reduce_slots=1, extra="reduce_slowstart = 0.0")
    jb = h.submit(maps=0, reduces=10, pool="b", user="u")
    fill(h)
    assert h.running(jb)["reduce"] == 4
    ja = h.submit(maps=0, reduces=10, pool="a", user="v")
    assert h.advance(999.0) == []
    killed = h.advance(1.0)
    assert [t.kind for t in killed] == ["reduce", "reduce"]
    fill(h)
    assert h.running(ja)["reduce"] == 2 and h.running(jb)["reduce"] == 2


def test_priorities_only_in_queues_that_support_them():
    queues = {"p": {"capacity": 50, "supports_priority": True}, "f": {"capacity": 50}}
    h = harness(queues, nodes=1, map_slots=2)
    for pool in ("p", "f"):
        h.submit(maps=5, pool=pool, user="u", priority="NORMAL")
        h.advance(1.0)
        h.submit(maps=5, pool=pool, user="u", priority="VERY_HIGH")
    first = {t.split("_m_")[0] for t in (beat(h, "n0000"), beat(h, "n0000"))}
    assert first == {"job_0002", "job_0003"}  # p: the VERY_HIGH job; f: the first submitted


@pytest.mark.parametrize(
    ("guarantees", "caps", "capacity"),
    [
        ([50, 30, 20], [1000, 1000, 0], 100),
        ([50, 30, 20], [60, 1000, 0], 100),
        ([50, 30, 20], [10, 5, 3], 100),
        ([5, 2, 2, 1], [12, 0, 10, 10], 10),
        ([0, 3], [10, 10], 4),
        ([2, 1, 1], [7, 3, 1], 4),
    ],
)
def test_allocate_is_compute_fair_shares_solved_exactly(guarantees, caps, capacity):
    items = [{"weight": g, "min_share": g, "demand": c} for g, c in zip(guarantees, caps)]
    assert allocate(guarantees, caps, capacity) == pytest.approx(compute_fair_shares(items, capacity), abs=1e-5)


def test_slots_of_floors_like_hadoop():
    assert [slots_of(p, 10) for p in (50, 20, 10, 33.3, 100)] == [5, 2, 1, 3, 10]
    assert slots_of(10, 4) == 0 and slots_of(90, 4) == 3 and slots_of(25, 4) == 1


def test_unconfigured_pool_gets_nothing_lent_and_is_reclaimed_from():
    h = harness({"default": {"capacity": 100}}, nodes=2)
    other = h.submit(maps=10, pool="adhoc", user="u")  # the property resolver puts it in its own pool
    assert h.shares()["pools"]["adhoc"]["map"] == 0.0
    assert fill(h) == 4  # nobody else wants the slots
    mine = h.submit(maps=10, pool="default", user="v")
    assert len(h.advance(1000.0)) == 4
    fill(h)
    assert h.running(mine)["map"] == 4 and h.running(other)["map"] == 0


def test_user_limit_factor_defers_a_user_past_its_multiple_of_the_guarantee():
    # minimum_user_limit_percent 100: no user limit; the factor alone caps u1 at 1 × 4 slots
    h = harness({"q": {"capacity": 50, "user_limit_factor": 1.0}, "r": {"capacity": 50}}, nodes=4)
    a = h.submit(maps=10, pool="q", user="u1")
    b = h.submit(maps=10, pool="q", user="u2")
    assert fill(h) == 8  # q borrows r's 4 idle slots
    assert h.running(a)["map"] == 4 and h.running(b)["map"] == 4


def test_user_limit_factor_without_it_the_first_job_takes_all():
    h = harness({"q": {"capacity": 50}, "r": {"capacity": 50}}, nodes=4)
    a = h.submit(maps=10, pool="q", user="u1")
    h.submit(maps=10, pool="q", user="u2")
    assert fill(h) == 8 and h.running(a)["map"] == 8


def test_user_limit_factor_is_a_hard_cap():
    # YARN's meaning: one user never runs more than factor × the queue's guarantee,
    # even when nobody else in the queue wants the slots (cs_admit_job answers a Rejection)
    h = harness({"q": {"capacity": 50, "user_limit_factor": 1.0}, "r": {"capacity": 50}}, nodes=4)
    a = h.submit(maps=10, pool="q", user="u1")
    b = h.submit(maps=2, pool="q", user="u2")
    assert fill(h) == 6 and h.running(a)["map"] == 4 and h.running(b)["map"] == 2


def test_maximum_capacity_is_a_hard_cap():
    h = harness({"q": {"capacity": 50, "maximum_capacity": 75}, "r": {"capacity": 50}}, nodes=4)
    a = h.submit(maps=20, pool="q", user="u1")
    assert fill(h) == 6 and h.running(a)["map"] == 6


# ============================================================================ placement


def test_resolver_rejects_unknown_queues_and_defaults_to_default():
    cfg = capacity_config({"default": {"capacity": 70}, "q2": {"capacity": 30}}, extra='pool_resolver = ["capacity"]')
    h = ClusterHarness(config=cfg)
    assert h.submit(maps=1).pool == "default"
    assert h.submit(maps=1, pool="q2").pool == "q2"
    with pytest.raises(JobRejectedError, match=r"queue 'nope' does not exist; configured queues: default, q2"):
        h.submit(maps=1, pool="nope")


def test_resolver_without_default_queue_rejects_jobs_naming_none():
    cfg = capacity_config({"a": {"capacity": 100}}, extra='pool_resolver = ["capacity"]')
    h = ClusterHarness(config=cfg)
    with pytest.raises(JobRejectedError, match="names no queue and there is no 'default' queue"):
        h.submit(maps=1)


# ============================================================================ config


def config_error(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        ClusterHarness(config=text)
    message = str(info.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("queues", "expected"),
    [
        ({"a": {"capacity": 50}, "b": {"capacity": 60}},
         "[plugins.capacity] queues: queue capacities must add up to at most 100 (percent of the cluster's map "
         "slots; Hadoop: \"Sum of queue capacities over 100%\"), got 110 = a 50 + b 60"),
        ({"a": {"capacity": -10}, "b": {"capacity": 110}},
         "[plugins.capacity] queues.a.capacity: must be ≥ 0, got -10"),
        ({"a": {"capacity": 100, "capacty": 3}},
         "[plugins.capacity] queues.a.capacty: unknown setting; a queue takes capacity, map_capacity"),
        ({"a": {"capacity": 60, "maximum_capacity": 50}, "b": {"capacity": 40}},
         "[plugins.capacity] queues.a.maximum_capacity: must be ≥ the queue's capacity (60), got 50"),
        ({"a": {"maximum_capacity": 50}, "b": {"capacity": 110}},  # a would get the remainder
         "[plugins.capacity] queues.b.capacity: must be ≤ 100, got 110"),
        ({"a": {"capacity": 100, "minimum_user_limit_percent": 0}},
         "[plugins.capacity] queues.a.minimum_user_limit_percent: must be > 0, got 0"),
        ({"a": {"capacity": 50, "reduce_capacity": 60}, "b": {"capacity": 50}},
         "[plugins.capacity] queues: reduce capacities must add up to at most 100 (percent of the cluster's reduce "
         "slots; Hadoop: \"Sum of queue capacities over 100%\"), got 110 = a 60 + b 50"),
    ],
)
def test_invalid_capacities_are_one_clear_error(queues, expected):
    message = config_error(capacity_config(queues))
    assert expected in message
    assert message.startswith("<harness config>:")


def test_every_problem_is_reported_at_once():
    message = config_error(capacity_config({"a": {"capacity": -1, "bogus": 1}, "b": {"capacity": "x"}}))
    assert "queues.a.capacity: must be ≥ 0, got -1" in message
    assert "queues.a.bogus: unknown setting" in message
    assert "queues.b.capacity: expected a number, got 'x'" in message


def test_unknown_plugin_key_and_bad_reclaim_time():
    text = capacity_config({"a": {"capacity": 100}}, reclaim_time=-5)
    message = config_error(text.replace("[plugins.capacity]\n", "[plugins.capacity]\nrecliam = 3\n"))
    assert "[plugins.capacity] reclaim_time: must be ≥ 0, got -5" in message
    assert "[plugins.capacity] recliam: unknown setting" in message


def test_no_queues_means_hadoops_single_default_queue():
    assert read_config({}).queues["default"].map_capacity == 100.0
    with pytest.raises(ConfigError, match="queues: no queues"):
        read_config({"queues": {}})


# ============================================================================ capacity-scheduler.xml

XML = """\
<?xml version="1.0"?>
<configuration>
  <property>
    <name>mapred.capacity-scheduler.queue.default.capacity</name>
    <value>50</value>
  </property>
  <property>
    <name>mapred.capacity-scheduler.queue.default.supports-priority</name>
    <value>true</value>
  </property>
  <property>
    <name>mapred.capacity-scheduler.queue.research.guaranteed-capacity</name>
    <value>30</value>
  </property>
  <property>
    <name>mapred.capacity-scheduler.queue.research.maximum-capacity</name>
    <value>60</value>
  </property>
  <property>
    <name>mapred.capacity-scheduler.queue.research.reclaim-time-limit</name>
    <value>120</value>
  </property>
  <property>
    <name>mapred.capacity-scheduler.queue.adhoc.capacity</name>
    <value>20</value>
  </property>
  <property>
    <name>mapred.capacity-scheduler.queue.adhoc.maximum-capacity</name>
    <value>-1</value>
  </property>
  <property>
    <name>mapred.capacity-scheduler.queue.adhoc.minimum-user-limit-percent</name>
    <value>25</value>
  </property>
  <property>
    <name>mapred.capacity-scheduler.queue.adhoc.maximum-initialized-jobs-per-user</name>
    <value>2</value>
  </property>
  <property>
    <name>mapred.capacity-scheduler.default-minimum-user-limit-percent</name>
    <value>50</value>
  </property>
  <property>
    <name>mapred.capacity-scheduler.init-poll-interval</name>
    <value>5000</value>
  </property>
</configuration>
"""

EQUIVALENT_TOML = """
[plugins.capacity]
reclaim_time = 300.0

[plugins.capacity.queues.default]
capacity = 50
supports_priority = true
minimum_user_limit_percent = 50

[plugins.capacity.queues.research]
capacity = 30
maximum_capacity = 60
minimum_user_limit_percent = 50
reclaim_time = 120.0

[plugins.capacity.queues.adhoc]
capacity = 20
minimum_user_limit_percent = 25
"""


def test_xml_parses_to_the_same_config_as_the_toml(tmp_path: Path):
    (tmp_path / "capacity-scheduler.xml").write_text(XML)
    toml_path = tmp_path / "corescheduler.toml"
    toml_path.write_text('[scheduler]\nshare_policy = "capacity"\n[plugins.capacity]\n'
                         'config_file = "capacity-scheduler.xml"\n')
    config = Config.from_file(toml_path)  # config_file is relative to the TOML file
    from_xml = CapacityScheduler(config.plugin_settings("capacity"), _Context(config)).config
    from_toml = read_config(Config.from_toml(EQUIVALENT_TOML).plugin_settings("capacity"))
    assert from_xml == from_toml
    assert from_xml.queues["research"].reclaim_time == 120.0 and from_xml.queues["adhoc"].maximum_capacity is None


class _Context:
    def __init__(self, config):
        self.name = "capacity"
        self.config = config


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("<value>30</value>", "<value>thirty</value>"),
         "capacity-scheduler.xml:13: mapred.capacity-scheduler.queue.research.guaranteed-capacity: "
         "'thirty' is not a number Java reads (Float.parseFloat); Hadoop's CapacitySchedulerConf.getFloat uses "
         "the default, and the default is no value: missing"),
        (("<value>60</value>", "<value>20</value>"),
         "capacity-scheduler.xml:17: mapred.capacity-scheduler.queue.research.maximum-capacity: "
         "must be ≥ the queue's capacity (30), got 20"),
        (("<value>20</value>", "<value>25</value>"),
         "capacity-scheduler.xml: queue capacities must add up to at most 100 (percent of the cluster's map slots; "
         "Hadoop: \"Sum of queue capacities over 100%\"), got 105 = default 50 + research 30 + adhoc 25"),
        (("<value>20</value>", "<value>NaN</value>"),  # Java reads NaN; no comparison holds: refused
         "capacity-scheduler.xml:25: mapred.capacity-scheduler.queue.adhoc.capacity: expected a number, got 'NaN'"),
        (("</configuration>", "<property>"),
         "capacity-scheduler.xml:48: not well-formed XML"),
    ],
)
def test_xml_errors_name_file_and_line(tmp_path: Path, change, expected):
    old, new = change
    (tmp_path / "capacity-scheduler.xml").write_text(XML.replace(old, new, 1))
    toml_path = tmp_path / "corescheduler.toml"
    toml_path.write_text('[scheduler]\nshare_policy = "capacity"\n\n[plugins.capacity]\n'
                         'config_file = "capacity-scheduler.xml"\n')
    with pytest.raises(ConfigError) as info:
        ClusterHarness(config=Config.from_file(toml_path))
    message = str(info.value)
    assert f"corescheduler.toml:5: [plugins.capacity] config_file: {tmp_path}/" in message
    assert expected in message


@pytest.mark.parametrize(
    ("change", "warning", "check"),
    [
        (("queue.adhoc.minimum-user-limit-percent", "queue.adhoc.minimum-user-limit-percentt"),
         "capacity-scheduler.xml:32: mapred.capacity-scheduler.queue.adhoc.minimum-user-limit-percentt: unknown "
         "queue property 'minimum-user-limit-percentt' ignored",
         lambda c: c.queues["adhoc"].minimum_user_limit_percent == 50),  # the file's default-… instead
        (("</configuration>", "<property><name>other.thing</name><value>1</value></property></configuration>"),
         "capacity-scheduler.xml:47: other.thing: not a capacity scheduler property (names start "
         "'mapred.capacity-scheduler.'); ignored",
         lambda c: set(c.queues) == {"default", "research", "adhoc"}),
        (("<value>true</value>", "<value>yes</value>"),
         "capacity-scheduler.xml:9: mapred.capacity-scheduler.queue.default.supports-priority: 'yes' read as "
         "false (Hadoop's Boolean.parseBoolean: only 'true' is true)",
         lambda c: c.queues["default"].supports_priority is False),
        (("<value>60</value>", "<value>sixty</value>"),
         "capacity-scheduler.xml:17: mapred.capacity-scheduler.queue.research.maximum-capacity: 'sixty' is not a "
         "number Java reads (Float.parseFloat); Hadoop's CapacitySchedulerConf.getFloat uses the default",
         lambda c: c.queues["research"].maximum_capacity is None),
        (("<value>25</value>", "<value>25.0</value>"),  # Integer.parseInt: no decimals
         "capacity-scheduler.xml:33: mapred.capacity-scheduler.queue.adhoc.minimum-user-limit-percent: '25.0' is "
         "not a Java int (Integer.parseInt: no spaces, no decimals); Hadoop's CapacitySchedulerConf.getInt uses "
         "the default",
         lambda c: c.queues["adhoc"].minimum_user_limit_percent == 50),
        (("</configuration>", "<property><name>mapred.capacity-scheduler.queue.adhoc.capacity</name>"
                              "<value>20</value></property></configuration>"),
         "capacity-scheduler.xml:47: mapred.capacity-scheduler.queue.adhoc.capacity: defined again (first at "
         "line 24); this one is used, as in Hadoop",
         lambda c: c.queues["adhoc"].map_capacity == 20),
        (("queue.adhoc.capacity", "queue.adhoc.capacityy"),  # ignored: adhoc has no capacity, gets what is left
         "capacity-scheduler.xml:24: mapred.capacity-scheduler.queue.adhoc.capacityy: unknown queue property "
         "'capacityy' ignored",
         lambda c: c.queues["adhoc"].map_capacity == 20),
        (("<value>50</value>", "<value> 5e1f </value>"),  # Float.parseFloat: trimmed, an exponent, a suffix
         None,
         lambda c: c.queues["default"].map_capacity == 50),
    ],
)
def test_xml_what_hadoop_takes_is_taken_with_a_warning(tmp_path: Path, change, warning, check):
    """Configuration.loadResource (Hadoop 0.20/1.x) logs and reads on, and CapacitySchedulerConf.getFloat /
    getInt / isPrioritySupported fall back to the default: loaded, each with one warning at its line."""
    old, new = change
    (tmp_path / "capacity-scheduler.xml").write_text(XML.replace(old, new, 1))
    config = read_config({"config_file": str(tmp_path / "capacity-scheduler.xml")})
    assert check(config)
    warnings = [w.split(f"{tmp_path}/", 1)[1] for w in config.warnings]
    if warning is None:
        assert warnings == []
    else:
        assert len(warnings) == 1 and warnings[0].startswith(warning), warnings


def test_xml_queue_without_capacity_is_an_error_in_resource_mode(tmp_path: Path):
    """(In slot mode it gets what the others leave: tests/plugins/test_capacity_hadoop1.py.)"""
    xml = XML.replace("queue.adhoc.capacity<", "queue.adhoc.supports-priority<").replace(
        "<value>20</value>", "<value>false</value>", 1)
    (tmp_path / "cs.xml").write_text(xml)
    with pytest.raises(ConfigError, match=r"cs.xml:24: mapred.capacity-scheduler.queue.adhoc.capacity: missing"):
        read_config({"config_file": str(tmp_path / "cs.xml")}, mode="resources")


def test_xml_and_queues_together_is_an_error(tmp_path: Path):
    (tmp_path / "cs.xml").write_text(XML)
    with pytest.raises(ConfigError, match=r"either as .* or in config_file, not both"):
        read_config({"config_file": str(tmp_path / "cs.xml"), "queues": {"a": {"capacity": 100}}})


def test_bundled_examples_load():
    examples = EXAMPLES
    config = Config.from_file(examples / "capacity.toml")
    h = ClusterHarness(racks=1, nodes_per_rack=10, config=config)
    queues = plugin(h).config.queues
    assert {n: (q.map_capacity, q.reduce_capacity) for n, q in queues.items()} == {
        "default": (50, 50), "research": (30, 20), "adhoc": (20, 30)}
    xml = read_config({"config_file": str(examples / "capacity-scheduler.xml")}).queues
    assert {n: q.map_capacity for n, q in xml.items()} == {"default": 50, "research": 30, "adhoc": 20}
    assert xml["adhoc"].reclaim_time == queues["adhoc"].reclaim_time == 120.0
    assert xml["default"].minimum_user_limit_percent == queues["default"].minimum_user_limit_percent == 25


def test_configured_queues_exist_before_any_job():
    queues = {"default": {"capacity": 50}, "research": {"capacity": 30}, "adhoc": {"capacity": 20}}
    assert "research" not in harness(queues).shares()["pools"]  # capacity only divides: queues appear with jobs
    h = harness(queues, extra='pool_resolver = ["capacity"]')  # capacity also places jobs: its queues exist
    shares = h.shares()["pools"]
    assert {"default", "research", "adhoc"} <= set(shares)
    assert shares["research"]["map"] is not None


def test_a_resolver_naming_bad_pools_keeps_the_previous_allocations():
    from corescheduler.errors import SchedulerStateError
    from corescheduler.formats.allocation_file import Allocations
    from corescheduler.hookspecs import hookimpl

    class Bad:
        answer = None

        @hookimpl
        def cs_resolve_pool(self, job):
            return None

        @hookimpl
        def cs_known_pools(self):
            return Bad.answer

    h = ClusterHarness(config={"scheduler": {"pool_resolver": ["bad", "property"]}}, plugins={"bad": Bad})
    before = h.scheduler.allocations
    Bad.answer = "not-a-list"
    with pytest.raises(SchedulerStateError, match="cs_known_pools returned 'not-a-list'"):
        h.scheduler.set_allocations(Allocations.empty())
    assert h.scheduler.allocations is before
    Bad.answer = ["extra"]
    h.scheduler.set_allocations(Allocations.empty())
    assert "extra" in h.shares()["pools"]
