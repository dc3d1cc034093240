"""The ``cap_based`` LoadManager (Hadoop 1.x CapBasedLoadManager): scenario S3
of shared/scenarios/mr1-heartbeat.md, verbatim, as pure functions, through the
hook, and through heartbeats on a harness."""

from __future__ import annotations

import pytest
from corescheduler_plugins.cap_based import CapBasedLoadManager, can_assign, get_cap

from corescheduler.core.model import MAP, REDUCE, ClusterLoad, Node
from corescheduler.errors import ConfigError
from corescheduler.testing import ClusterHarness

# S3, TestFairScheduler.testCapBasedLoadManager: getCap(runnable, trackerMax, clusterSlots) with maxDiff 0.
GET_CAP = [
    ((1, 1, 100), 1),
    ((1, 2, 100), 1),
    ((1, 10, 100), 1),
    ((200, 1, 100), 1),
    ((1, 5, 100), 1),
    ((50, 5, 100), 3),
    ((100, 5, 100), 5),
    ((200, 5, 100), 5),
]
# The same test's second half, with mapred.fairscheduler.load.max.diff = 0.2.
GET_CAP_DIFF_02 = [
    ((1, 1, 100), 1),
    ((1, 2, 100), 1),
    ((1, 10, 100), 3),
    ((200, 1, 100), 1),
    ((1, 5, 100), 2),
    ((50, 5, 100), 4),
    ((100, 5, 100), 5),
    ((200, 5, 100), 5),
]
# S3, TestCapBasedLoadManager.testCanAssignMap/testCanAssignReduce: trackerMax 5, clusterSlots 50.
# (maxDiff, running, runnable, expected canAssign, tasks assigned one after another)
# The last column is the later form of the same Hadoop test (canAssign with alreadyAssigned,
# counted until it says no); its 0.2 row is 2 "with floating point error" (maxDiff is a float).
CAN_ASSIGN = [
    (0.0, 0, 1, True, 1),
    (0.0, 1, 10, False, 0),
    (0.2, 1, 10, True, 2),
    (0.0, 1, 11, True, 1),
    (0.0, 2, 11, False, 0),
    (0.3, 2, 6, True, 1),
    (1.0, 5, 50, False, 0),
]


# =========================================================================== pure functions


@pytest.mark.parametrize(("args", "expected"), GET_CAP)
def test_s3_get_cap(args, expected):
    assert get_cap(*args) == expected
    assert get_cap(*args, 0.0) == expected


@pytest.mark.parametrize(("args", "expected"), GET_CAP_DIFF_02)
def test_get_cap_with_max_diff(args, expected):
    assert get_cap(*args, 0.2) == expected


@pytest.mark.parametrize(("max_diff", "running", "runnable", "expected", "count"), CAN_ASSIGN)
def test_s3_can_assign(max_diff, running, runnable, expected, count):
    assert can_assign(running, 5, runnable, 50, max_diff) is expected
    assert get_cap(runnable, 5, 50, max_diff) - running == count


def test_get_cap_without_slots_follows_javas_division():
    assert get_cap(3, 2, 0) == 2  # 3/0 = +Infinity: full cap
    assert get_cap(0, 2, 0) == 0  # 0/0 = NaN: cap 0
    assert get_cap(0, 4, 100) == 0
    assert get_cap(0, 4, 100, 0.5) == 2


# =========================================================================== the hook


@pytest.mark.parametrize("kind", [MAP, REDUCE])
@pytest.mark.parametrize(("max_diff", "running", "runnable", "expected", "count"), CAN_ASSIGN)
def test_s3_hook(kind, max_diff, running, runnable, expected, count):
    manager = CapBasedLoadManager({"max_diff": max_diff})
    node = Node(name="n0000", rack="r00", slots={MAP: 5, REDUCE: 5}, running={MAP: running, REDUCE: running})
    load = ClusterLoad(kind=kind, runnable=runnable, running=running, total_slots=50, nodes=10)
    assert manager.cs_can_assign(node, kind, load) is expected


def test_hook_with_no_slots_in_the_cluster():
    manager = CapBasedLoadManager({})
    node = Node(name="n0000", rack="r00", slots={MAP: 0, REDUCE: 0})
    assert manager.cs_can_assign(node, MAP, ClusterLoad(MAP, runnable=4, running=0, total_slots=0, nodes=1)) is False


# =========================================================================== heartbeats on a harness


def cap_harness(max_diff: float, **shape) -> ClusterHarness:
    config = f"""
[scheduler]
load_manager = "cap_based"
assign_multiple = true

[plugins.cap_based]
max_diff = {max_diff}
"""
    return ClusterHarness(config=config, **shape)


def count(assignments, kind):
    return sum(1 for a in assignments if a.kind == kind)


@pytest.mark.parametrize(("max_diff", "running", "runnable", "expected", "assigned"), CAN_ASSIGN)
def test_s3_heartbeat_assignments(max_diff, running, runnable, expected, assigned):
    # trackerMax 5, clusterSlots 50: 10 nodes of 5 map and 5 reduce slots.
    h = cap_harness(max_diff, racks=1, nodes_per_rack=10, map_slots=5, reduce_slots=5)
    h.advance(0.1)
    h.submit(maps=runnable, reduces=runnable)
    first = h.heartbeat("n0000")  # fills the node to its cap
    cap = get_cap(runnable, 5, 50, max_diff)
    assert count(first, MAP) == cap and count(first, REDUCE) == cap
    for kind in (MAP, REDUCE):  # bring the node down to `running` tasks; killed tasks stay demanded
        for a in [a for a in first if a.kind == kind][running:]:
            h.kill(a)
    assert h.scheduler.node("n0000").running == {MAP: running, REDUCE: running}
    again = h.heartbeat("n0000")
    assert count(again, MAP) == assigned and count(again, REDUCE) == assigned
    assert (assigned > 0) is expected


def test_tasks_are_spread_over_the_nodes():
    # 2 nodes × 2 slots, one job of 2 maps: the slots manager packs n0000,
    # cap_based gives each node one (cap = ceil(2 × 2/4) = 1).
    slots = ClusterHarness(config='[scheduler]\nassign_multiple = true\nload_manager = "slots"\n')
    slots.submit(maps=2)
    assert count(slots.heartbeat("n0000"), MAP) == 2

    h = cap_harness(0.0)
    h.submit(maps=2)
    assert count(h.heartbeat("n0000"), MAP) == 1
    assert count(h.heartbeat("n0000"), MAP) == 0
    assert count(h.heartbeat("n0001"), MAP) == 1


def test_cap_grows_with_load():
    h = cap_harness(0.0)  # 4 map slots
    h.submit(maps=1)
    assert count(h.heartbeat("n0000"), MAP) == 1
    h.submit(maps=3)  # 4 runnable on 4 slots: full cap
    assert count(h.heartbeat("n0000"), MAP) == 1
    assert count(h.heartbeat("n0001"), MAP) == 2


def test_max_diff_lets_a_node_run_above_the_average():
    h = cap_harness(0.5)
    h.submit(maps=2)  # load 0.5 + 0.5: full cap
    assert count(h.heartbeat("n0000"), MAP) == 2


# =========================================================================== settings


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ("max_diff = -0.1", "[plugins.cap_based] max_diff: must be ≥ 0, got -0.1"),
        ('max_diff = "0.2"', "[plugins.cap_based] max_diff: expected a number, got '0.2'"),
        ("maxdiff = 0.2", "[plugins.cap_based] maxdiff: unknown setting"),
    ],
)
def test_bad_settings_are_one_line_config_errors(settings, expected):
    config = f'[scheduler]\nload_manager = "cap_based"\n\n[plugins.cap_based]\n{settings}\n'
    with pytest.raises(ConfigError) as info:
        ClusterHarness(config=config)
    assert expected in str(info.value)
    assert "\n" not in str(info.value)
