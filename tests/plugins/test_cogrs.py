"""``cogrs``: reduces at their center of gravity (CoGRS, IEEE CLOUD 2012), through the harness.

Figure 5 of the paper (WordCount; nodes 1–7 in one rack) is rebuilt from the numbers the
paper gives for it: native Hadoop puts R0, R1, R2 on nodes 13, 12 and 3 with TND 30, 32
and 34, and CoGRS does 30, 30, 30 or better.  The one layout of one map per node consistent
with those three sums (worked out in docs/plugins/cogrs.md) is two racks of seven nodes,
maps on five nodes of rack 1 (not node 3) and six of rack 2 (node 13, not node 12).
"""

from __future__ import annotations

import pytest

from corescheduler.core.model import REDUCE
from corescheduler.core.shuffle import ShuffleSpec, total_network_distance
from corescheduler.errors import ConfigError
from corescheduler.testing import ClusterHarness


def node(k: int) -> str:
    """The paper's node k (1-based) as the harness names it."""
    return f"n{k - 1:04d}"


FIG5_FEEDERS = [1, 2, 4, 5, 6, 8, 9, 10, 11, 13, 14]


def config(selector: str, **settings: float) -> dict:
    return {"scheduler": {"task_selector": selector, "reduce_slowstart": 1.0, "assign_multiple": False},
            "plugins": {selector: settings} if settings else {}}


def run_maps(h: ClusterHarness, feeders: list[int], reduces: int, shuffle: ShuffleSpec | None = None):
    job = h.submit(maps=len(feeders), reduces=reduces, map_locations=[[node(k)] for k in feeders],
                   shuffle=shuffle)
    for k in feeders:
        (a,) = h.heartbeat(node(k))
        assert a.locality == "node"
    for task in list(job.tasks["map"]):
        h.finish(task)
    h.update()  # the job's reduces join the order at the next update, as in Hadoop
    return job


def tnd(h: ClusterHarness, job, where: str) -> float:
    feeding = list(job.map_outputs.nodes.values())
    return total_network_distance(where, feeding, h.cluster.rack_of)


def fig5(selector: str, **settings: float) -> tuple[ClusterHarness, object]:
    h = ClusterHarness(racks=2, nodes_per_rack=7, map_slots=1, reduce_slots=1, config=config(selector, **settings))
    return h, run_maps(h, FIG5_FEEDERS, 3)


def test_figure_5_native_placement_has_tnd_30_32_34() -> None:
    h, job = fig5("locality")
    placed = {}
    for k in (13, 12, 3):
        (a,) = h.heartbeat(node(k))
        placed[a.task] = a.node
    assert list(placed.values()) == [node(13), node(12), node(3)]
    assert [tnd(h, job, n) for n in placed.values()] == [30, 32, 34]


def test_figure_5_cogrs_places_every_reduce_with_tnd_30() -> None:
    h, job = fig5("cogrs", wait=1000.0)
    # node 12 and node 3 hold no map output: each is farther than a feeding node of rack 2
    (a,) = h.heartbeat(node(13))
    assert h.heartbeat(node(12)) == [] and h.heartbeat(node(3)) == []
    placed = [a.node]
    for k in (9, 2, 10):  # node 2 feeds, but from the smaller rack: WTND 32/11 > 30/11
        placed += [x.node for x in h.heartbeat(node(k))]
    assert placed == [node(13), node(9), node(10)]
    assert [tnd(h, job, n) for n in placed] == [30, 30, 30]
    assert job.map_outputs.centers_of_gravity(0) == [node(k) for k in FIG5_FEEDERS if k >= 8]


def test_figure_7_a_reduce_goes_to_a_feeding_node_not_across_the_racks() -> None:
    """Two racks of three; the maps ran on TT1 and TT2: TND 2 there, 8 on TT4."""
    h = ClusterHarness(racks=2, nodes_per_rack=3, map_slots=1, reduce_slots=1, config=config("cogrs", wait=60.0))
    job = run_maps(h, [1, 2], 1)
    assert h.heartbeat(node(4)) == []
    (a,) = h.heartbeat(node(2))
    assert tnd(h, job, a.node) == 2 and tnd(h, job, node(4)) == 8


def test_skewed_partitions_pull_each_reduce_to_its_own_heavy_node() -> None:
    # map 0 on node 1 (rack 1) holds most of R0's input, map 1 on node 4 (rack 2) most of R1's
    shuffle = ShuffleSpec(matrix=((900.0, 100.0), (100.0, 900.0)))
    h = ClusterHarness(racks=2, nodes_per_rack=3, map_slots=1, reduce_slots=1, config=config("cogrs", wait=60.0))
    job = run_maps(h, [1, 4], 2, shuffle)
    (a,) = h.heartbeat(node(4))
    assert a.task == job.tasks[REDUCE][1].id  # R1 first: node 4 is its center, not R0's
    (b,) = h.heartbeat(node(1))
    assert b.task == job.tasks[REDUCE][0].id


def test_the_wait_is_bounded_then_any_node_takes_the_first_reduce() -> None:
    h = ClusterHarness(racks=2, nodes_per_rack=3, map_slots=1, reduce_slots=1, config=config("cogrs", wait=10.0))
    run_maps(h, [1, 2], 1)
    assert h.heartbeat(node(4)) == []  # first refusal at t = 0
    h.clock_only(9.0)
    assert h.heartbeat(node(5)) == []
    h.clock_only(1.0)
    (a,) = h.heartbeat(node(6))  # 10 s refused: any node
    assert a.node == node(6)


def test_tolerance_admits_nodes_near_the_center() -> None:
    # Figure 5's node 12 is 2/11 ≈ 0.18 farther than the center: inside a tolerance of 0.2
    h, job = fig5("cogrs", wait=1000.0, tolerance=0.2)
    (a,) = h.heartbeat(node(12))
    assert tnd(h, job, a.node) == 32
    assert h.heartbeat(node(3)) == []  # 4/11 ≈ 0.36 farther: still refused


def test_slowstart_holds_reduces_until_enough_maps_finished() -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=4, map_slots=1, reduce_slots=1,
                       config={"scheduler": {"task_selector": "cogrs", "reduce_slowstart": 0.0},
                               "plugins": {"cogrs": {"slowstart": 0.5, "wait": 0.0}}})
    job = h.submit(maps=4, reduces=1, map_locations=[[node(k)] for k in (1, 2, 3, 4)])
    for k in (1, 2, 3, 4):
        assert [a.kind for a in h.heartbeat(node(k))] == ["map"]
    h.finish(job.tasks["map"][0])
    h.update()
    assert h.heartbeat(node(1)) == []  # 1 of 4 maps done < 50 %: no reduce anywhere yet
    h.finish(job.tasks["map"][1])
    h.update()
    assert [a.kind for a in h.heartbeat(node(2))] == ["reduce"]


def test_maps_are_placed_by_delay_scheduling() -> None:
    h = ClusterHarness(racks=2, nodes_per_rack=2, map_slots=1, reduce_slots=1,
                       config={"scheduler": {"task_selector": "cogrs"},
                               "plugins": {"cogrs": {"node_locality_delay": 5.0, "rack_locality_delay": 5.0}}})
    h.submit(maps=1, map_locations=[[node(1)]])
    assert h.heartbeat(node(3)) == []  # off-rack: waits, as delay scheduling does
    (a,) = h.heartbeat(node(1))
    assert a.locality == "node"


@pytest.mark.parametrize("settings, key", [({"tolerance": -1}, "tolerance"), ({"wait": "x"}, "wait"),
                                           ({"slowstart": 1.5}, "slowstart"), ({"tolerence": 1}, "tolerence")])
def test_bad_settings_name_the_key(settings: dict, key: str) -> None:
    with pytest.raises(ConfigError) as err:
        ClusterHarness(config={"scheduler": {"task_selector": "cogrs"}, "plugins": {"cogrs": settings}})
    assert key in str(err.value)


def test_after_the_wait_the_job_takes_any_node_until_a_reduce_lands_at_its_center() -> None:
    h = ClusterHarness(racks=2, nodes_per_rack=3, map_slots=1, reduce_slots=1, config=config("cogrs", wait=10.0))
    job = run_maps(h, [1, 2], 4)
    assert h.heartbeat(node(4)) == []
    h.clock_only(10.0)
    assert [a.node for a in h.heartbeat(node(5))] == [node(5)]  # the wait is over ...
    assert [a.node for a in h.heartbeat(node(6))] == [node(6)]  # ... and stays over
    (a,) = h.heartbeat(node(1))  # a reduce at its center: the job waits again for the next
    assert a.task == job.tasks[REDUCE][2].id
    assert h.heartbeat(node(4)) == []


def test_resource_mode_a_fallback_launch_does_not_restart_the_wait() -> None:
    """The center (n0000) is full: after the wait the first reduce goes elsewhere, and so does
    the next at once (a center chosen but never allocated is not a launch at the center)."""
    h = ClusterHarness(racks=2, nodes_per_rack=1, node_resources="2048 mb, 2 vcores",
                       config={"scheduler": {"mode": "resources", "reduce_slowstart": 1.0, "task_selector": "cogrs",
                                             "assign_multiple": True},
                               "plugins": {"cogrs": {"wait": 5.0}}})
    job = h.submit(maps=3, reduces=2, resources="1024 mb, 1 vcores", queue="a",
                   map_locations=[["n0000"], ["n0000"], ["n0001"]])
    h.heartbeat("n0000"), h.heartbeat("n0001")
    m0, m1, m2 = job.tasks["map"]
    h.finish(m0), h.finish(m1)
    h.submit(queue="b", tasks=2, resources="1024 mb, 1 vcores")  # fills n0000 again
    h.update()
    h.heartbeat("n0000")
    h.finish(m2)
    h.update()
    assert [a.kind for a in h.heartbeat("n0000")] == []  # the center, but full
    assert h.heartbeat("n0001") == []  # not the center: wait
    h.advance(6.0)
    # both reduces: the second is not held back by a new wait after the first's fallback launch
    assert [a.task for a in h.heartbeat("n0001")] == [t.id for t in job.tasks[REDUCE]]


def test_a_huge_skew_puts_everything_on_the_first_reduce_instead_of_crashing() -> None:
    from corescheduler.core.shuffle import reduce_shares

    shares = reduce_shares(20, 400.0)
    assert shares[0] == 1.0 and sum(shares) == 1.0


def test_a_matrix_that_does_not_fit_the_job_is_refused_at_submission() -> None:
    from corescheduler.errors import SchedulerStateError

    h = ClusterHarness(config=config("cogrs"))
    with pytest.raises(SchedulerStateError, match="the matrix has 2 rows; expected one per map"):
        h.submit(maps=3, reduces=1, shuffle=ShuffleSpec(matrix=((1.0,), (2.0,))))
    with pytest.raises(SchedulerStateError, match="no reduces"):
        h.submit(maps=1, shuffle=ShuffleSpec(bytes=5.0))
    assert not h.scheduler.jobs
