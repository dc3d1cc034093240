"""Tests of the deadline_boost plugin, with corescheduler's test harness.

``cluster`` is the fixture corescheduler ships as a pytest plugin: a ready
ClusterHarness (1 rack × 2 nodes, 2 map + 2 reduce slots each) that also
builds others when called.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
from corescheduler_deadline_boost import DeadlineBoost

from corescheduler.config import Config
from corescheduler.errors import ConfigError
from corescheduler.plugin_manager import find_plugins
from corescheduler.testing import ClusterHarness

CONFIG = """
[scheduler]
weight_adjusters = ["deadline_boost"]

[plugins.deadline_boost]
horizon = 600.0
max_boost = 4.0
"""
#: Select the plugin before it is packaged: the harness registers it by name.
PLUGINS = {"deadline_boost": DeadlineBoost}


def map_weight(h, job):
    return h.job(job).sched["map"].weight


def test_jobs_without_a_deadline_keep_their_weight(cluster):
    h = cluster(config=CONFIG, plugins=PLUGINS)
    job = h.submit(maps=4, pool="etl", priority="HIGH")
    h.advance(5000.0)
    assert map_weight(h, job) == 2.0  # HIGH priority only


def test_boost_grows_linearly_over_the_horizon(cluster):
    h = cluster(config=CONFIG, plugins=PLUGINS)
    job = h.submit(maps=4, pool="etl", properties={"deadline": 900.0})
    assert map_weight(h, job) == 1.0  # 900 s left: not within the 600 s horizon yet
    h.advance(600.0)
    assert map_weight(h, job) == pytest.approx(2.5)  # 300 s left: halfway, 1 + 3 × 0.5
    h.advance(300.0)
    assert map_weight(h, job) == pytest.approx(4.0)  # at the deadline: max_boost
    h.advance(1000.0)
    assert map_weight(h, job) == pytest.approx(4.0)  # late jobs keep the full boost


def test_boost_multiplies_the_priority_weight(cluster):
    h = cluster(config=CONFIG, plugins=PLUGINS)
    job = h.submit(maps=4, pool="etl", priority="HIGH", properties={"deadline": 0.0})
    assert map_weight(h, job) == pytest.approx(8.0)  # HIGH (×2) × max_boost (×4)


def test_urgent_job_gets_a_bigger_fair_share(cluster):
    h = cluster(config=CONFIG, plugins=PLUGINS)  # 4 map slots in all
    relaxed = h.submit(maps=10, pool="etl")
    urgent = h.submit(maps=10, pool="etl", properties={"deadline": 900.0})
    shares = h.shares()["jobs"]
    assert shares[relaxed.id]["map"] == pytest.approx(2.0, abs=1e-3)
    assert shares[urgent.id]["map"] == pytest.approx(2.0, abs=1e-3)
    h.advance(900.0)
    shares = h.shares()["jobs"]
    assert shares[relaxed.id]["map"] == pytest.approx(0.8, abs=1e-3)  # weights 1 : 4
    assert shares[urgent.id]["map"] == pytest.approx(3.2, abs=1e-3)


def test_the_deadline_property_is_configurable():
    h = ClusterHarness(
        config={
            "scheduler": {"weight_adjusters": ["deadline_boost"]},
            "plugins": {"deadline_boost": {"deadline_property": "sla.seconds"}},
        },
        plugins=PLUGINS,
    )
    job = h.submit(maps=1, properties={"sla.seconds": "0"})  # job properties may be strings
    assert map_weight(h, job) == pytest.approx(4.0)


def test_the_sample_config_file_is_valid():
    config = Config.from_file(Path(__file__).parent.parent / "corescheduler.toml")
    h = ClusterHarness(config=config, plugins=PLUGINS)
    job = h.submit(maps=1, properties={"deadline": 600.0})
    assert map_weight(h, job) == pytest.approx(1.0)
    h.advance(300.0)
    assert map_weight(h, job) == pytest.approx(2.5)


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ("horizon = 0", "[plugins.deadline_boost] horizon: must be > 0, got 0"),
        ("max_boost = 0.5", "[plugins.deadline_boost] max_boost: must be ≥ 1, got 0.5"),
        ("max_bost = 2.0", "[plugins.deadline_boost] max_bost: unknown setting"),
    ],
)
def test_bad_settings_are_reported_with_the_key(settings, expected):
    config = f'[scheduler]\nweight_adjusters = ["deadline_boost"]\n\n[plugins.deadline_boost]\n{settings}\n'
    with pytest.raises(ConfigError) as info:
        ClusterHarness(config=config, plugins=PLUGINS)
    assert expected in str(info.value)


def installed() -> bool:
    try:
        importlib.metadata.distribution("corescheduler-deadline-boost")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.mark.skipif(not installed(), reason="pip install the package first")
def test_installed_plugin_is_found_by_name():
    info = find_plugins()["deadline_boost"]
    assert info.dist == "corescheduler-deadline-boost"
    h = ClusterHarness(config=CONFIG)  # no plugins=: found through its entry point
    job = h.submit(maps=1, properties={"deadline": 0.0})
    assert map_weight(h, job) == pytest.approx(4.0)
