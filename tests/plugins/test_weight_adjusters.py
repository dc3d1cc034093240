"""The built-in WeightAdjusters ``new_job_booster`` (Hadoop's
NewJobWeightBooster) and ``size_based`` (Hadoop's sizebasedweight, scenario S5
of shared/scenarios/mr1-heartbeat.md), through the harness."""

from __future__ import annotations

import json
import math

import pytest
from corescheduler_plugins.size_based import size_weight

from corescheduler.errors import ConfigError
from corescheduler.testing import ClusterHarness


def harness(adjusters, settings="", allocations=None):
    config = f"[scheduler]\nweight_adjusters = {json.dumps(adjusters)}\n{settings}"
    return ClusterHarness(racks=1, nodes_per_rack=2, map_slots=2, reduce_slots=2, config=config,
                          allocations=allocations)


def weight(h, job, kind="map"):
    return h.job(job).sched[kind].weight


def job_share(h, job, kind="map"):
    return h.shares()["jobs"][job.id][kind]


# =========================================================================== new_job_booster


def test_booster_defaults_triple_the_weight_for_300_seconds():
    h = harness(["new_job_booster"])
    job = h.submit(maps=2, reduces=1)
    assert weight(h, job) == 3.0 and weight(h, job, "reduce") == 3.0
    h.advance(299.5)
    assert weight(h, job) == 3.0
    h.advance(0.5)  # age exactly 300 s: Hadoop boosts while now - start < duration (strict)
    assert weight(h, job) == 1.0 and weight(h, job, "reduce") == 1.0


def test_booster_multiplies_the_priority_factor():
    h = harness(["new_job_booster"])
    job = h.submit(maps=1, priority="HIGH")
    assert weight(h, job) == 6.0


def test_booster_settings():
    h = harness(["new_job_booster"], "[plugins.new_job_booster]\nfactor = 2.5\nduration = 10.0\n")
    job = h.submit(maps=1)
    assert weight(h, job) == 2.5
    h.advance(10.0)
    assert weight(h, job) == 1.0


def test_booster_duration_zero_boosts_nobody():
    h = harness(["new_job_booster"], "[plugins.new_job_booster]\nduration = 0.0\n")
    job = h.submit(maps=1)
    assert weight(h, job) == 1.0


def test_new_job_gets_a_bigger_share_than_an_old_one():
    h = harness(["new_job_booster"])  # 4 map slots
    old = h.submit(maps=10, pool="etl")
    h.advance(400.0)
    new = h.submit(maps=10, pool="etl")
    assert weight(h, old) == 1.0 and weight(h, new) == 3.0
    assert job_share(h, old) == pytest.approx(1.0, abs=1e-3)  # weights 1 : 3 of 4 slots
    assert job_share(h, new) == pytest.approx(3.0, abs=1e-3)
    h.advance(300.0)
    assert job_share(h, old) == pytest.approx(2.0, abs=1e-3)
    assert job_share(h, new) == pytest.approx(2.0, abs=1e-3)


# =========================================================================== size_based


@pytest.mark.parametrize(("tasks", "expected"), [(0, 0.0), (1, 1.0), (3, 2.0), (7, 3.0), (15, 4.0), (-1, 0.0)])
def test_size_weight(tasks, expected):
    assert size_weight(tasks) == expected


def test_size_weight_is_hadoops_log1p_over_log2():
    for tasks in range(1, 200):
        assert size_weight(tasks) == math.log1p(tasks) / math.log(2)


def test_s5_size_based_weight():
    h = harness(["size_based"])
    normal = h.submit(maps=3)  # demand 3, NORMAL -> log2(4) × 1
    high = h.submit(maps=7, priority="HIGH")  # demand 7, HIGH -> log2(8) × 2
    assert weight(h, normal) == 2.0
    assert weight(h, high) == 6.0
    assert weight(h, normal, "reduce") == 0.0  # demand 0 -> 0
    assert weight(h, high, "reduce") == 0.0


def test_s5_weight_without_size_based_is_the_priority_factor():
    h = harness([])
    jobs = {p: h.submit(maps=1, priority=p) for p in ("VERY_HIGH", "HIGH", "NORMAL", "LOW", "VERY_LOW")}
    assert {p: weight(h, j) for p, j in jobs.items()} == {
        "VERY_HIGH": 4.0, "HIGH": 2.0, "NORMAL": 1.0, "LOW": 0.5, "VERY_LOW": 0.25
    }


def test_s5_non_runnable_job_has_weight_one_and_no_share():
    allocations = "<allocations><pool name='held'><maxRunningJobs>0</maxRunningJobs></pool></allocations>"
    h = harness(["size_based"], allocations=allocations)
    job = h.submit(maps=7, pool="held")
    assert not h.job(job).runnable
    assert weight(h, job) == 1.0
    assert job_share(h, job) == 0.0


def test_size_based_weight_follows_demand_as_tasks_finish():
    h = harness(["size_based"])
    job = h.submit(maps=7)
    assert weight(h, job) == 3.0
    for task in h.heartbeat("n0000") + h.heartbeat("n0000") + h.heartbeat("n0001") + h.heartbeat("n0001"):
        h.finish(task)  # four maps done: demand 3
    h.advance(1.0)
    assert weight(h, job) == 2.0


def test_bigger_job_gets_a_bigger_share():
    h = harness(["size_based"])  # 4 map slots
    small = h.submit(maps=3, pool="etl")
    big = h.submit(maps=15, pool="etl")
    assert (weight(h, small), weight(h, big)) == (2.0, 4.0)
    assert job_share(h, small) == pytest.approx(4 / 3, abs=1e-3)
    assert job_share(h, big) == pytest.approx(8 / 3, abs=1e-3)


def test_chain_order_comes_from_the_config():
    h = harness(["size_based", "new_job_booster"])
    job = h.submit(maps=3)
    assert weight(h, job) == 6.0  # log2(4) × 1 × 3
    h.advance(300.0)
    assert weight(h, job) == 2.0


# =========================================================================== settings


@pytest.mark.parametrize(
    ("adjuster", "settings", "expected"),
    [
        ("new_job_booster", "factor = 0", "[plugins.new_job_booster] factor: must be > 0, got 0"),
        ("new_job_booster", "factor = -2.0", "[plugins.new_job_booster] factor: must be > 0, got -2.0"),
        ("new_job_booster", 'factor = "3"', "[plugins.new_job_booster] factor: expected a number, got '3'"),
        ("new_job_booster", "duration = -1.0", "[plugins.new_job_booster] duration: must be ≥ 0, got -1.0"),
        ("new_job_booster", "durration = 5.0", "[plugins.new_job_booster] durration: unknown setting"),
        ("size_based", "factor = 2.0", "[plugins.size_based] factor: unknown setting"),
    ],
)
def test_bad_settings_are_one_line_config_errors(adjuster, settings, expected):
    with pytest.raises(ConfigError) as info:
        harness([adjuster], f"[plugins.{adjuster}]\n{settings}\n")
    message = str(info.value)
    assert expected in message
    assert "\n" not in message
