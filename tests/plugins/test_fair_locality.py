"""YARN's fair-scheduler delay scheduling by scheduling opportunities (Hadoop 3.3
``FSAppAttempt.getAllowedLocalityLevel`` / ``assignContainer`` / ``allocate``), which the
``locality`` TaskSelector applies with ``[scheduler] locality_threshold_node`` and
``locality_threshold_rack`` ≥ 0 (``yarn.scheduler.fair.locality.threshold.node/rack``).
The numbers of the ``TestFSAppAttempt`` / ``TestFairScheduler`` ports are Hadoop's."""

from __future__ import annotations

import pytest
from corescheduler_plugins._fair_locality import MR_MAP_KEY, FairLocality
from corescheduler_plugins.locality import GreedyLocality

from corescheduler.config import Config
from corescheduler.core.javamath import java_float
from corescheduler.errors import ConfigError
from corescheduler.testing import ClusterHarness

GB_ASK = "1024 mb, 1 vcores"


def harness(node: float | None = 0.5, rack: float | None = 0.5, racks: int = 2, nodes_per_rack: int = 2,
            **scheduler: object) -> ClusterHarness:
    """``racks × nodes_per_rack`` nodes of 8 GB (n0000, n0001 on r00; n0002, n0003 on r01 by default)."""
    thresholds = {k: v for k, v in (("locality_threshold_node", node), ("locality_threshold_rack", rack))
                  if v is not None}
    return ClusterHarness(racks=racks, nodes_per_rack=nodes_per_rack, node_resources="8192 mb, 8 vcores",
                          config={"scheduler": {"mode": "resources", **thresholds, **scheduler}})


def selector(h: ClusterHarness) -> FairLocality:
    sel = h.scheduler.plugins.instances["locality"]
    assert isinstance(sel, FairLocality)
    return sel


# ---------------------------------------------------------------------- TestFSAppAttempt


def test_delay_scheduling() -> None:
    """``TestFSAppAttempt.testDelayScheduling``: thresholds .5 (node) and .6 (rack), 10 nodes:
    node-local by default; five opportunities stay node-local, the sixth allows rack-local;
    set back to node-local (level and count), five more stay, the sixth is rack-local; six
    more stay rack-local, the seventh allows off-switch."""
    app = FairLocality(node_threshold=.5, rack_threshold=.6)
    prio = 1

    def level() -> str:
        return app.allowed_locality_level("app", prio, 10, .5, .6)

    assert level() == "node"
    for _ in range(5):
        app.add_scheduling_opportunity("app", prio)
        assert level() == "node"
    app.add_scheduling_opportunity("app", prio)
    assert level() == "rack"
    app.reset_allowed_locality_level("app", prio, "node")
    app.reset_scheduling_opportunities("app", prio)
    assert level() == "node"
    for _ in range(5):
        app.add_scheduling_opportunity("app", prio)
        assert level() == "node"
    app.add_scheduling_opportunity("app", prio)
    assert level() == "rack"
    for _ in range(6):
        app.add_scheduling_opportunity("app", prio)
        assert level() == "rack"
    app.add_scheduling_opportunity("app", prio)
    assert level() == "off"


def test_locality_level_without_delays() -> None:
    """``TestFSAppAttempt.testLocalityLevelWithoutDelays``: negative thresholds (delay scheduling
    not in use) give the least restrictive level; so does either one alone being negative."""
    app = FairLocality(node_threshold=.5, rack_threshold=.6)
    assert app.allowed_locality_level("app", 1, 10, -1.0, -1.0) == "off"
    assert app.allowed_locality_level("app", 1, 10, 0.5, -1.0) == "off"
    assert app.allowed_locality_level("app", 1, 10, -0.1, 0.5) == "off"
    assert app.scheduling_opportunities("app", 1) == 0


def test_thresholds_above_one_are_one() -> None:
    """``getAllowedLocalityLevel``: "upper limit on threshold" — 5.0 is 1.0: past 4 of 4 nodes."""
    app = FairLocality(node_threshold=5.0, rack_threshold=5.0)
    assert app.allowed_locality_level("app", 1, 4) == "node"
    for _ in range(4):
        app.add_scheduling_opportunity("app", 1)
        assert app.allowed_locality_level("app", 1, 4) == "node"
    app.add_scheduling_opportunity("app", 1)
    assert app.allowed_locality_level("app", 1, 4) == "rack"
    assert app.scheduling_opportunities("app", 1) == 0  # resetSchedulingOpportunities on the move


def test_zero_thresholds_relax_at_the_first_opportunity() -> None:
    """0 is a delay of no opportunity: the first counted one moves past node-local (1 > 0)."""
    app = FairLocality(node_threshold=0.0, rack_threshold=0.0)
    assert app.allowed_locality_level("app", 1, 10) == "node"  # the key's first look: the default
    app.add_scheduling_opportunity("app", 1)
    assert app.allowed_locality_level("app", 1, 10) == "rack"
    app.add_scheduling_opportunity("app", 1)
    assert app.allowed_locality_level("app", 1, 10) == "off"


# ---------------------------------------------------------------------- configuration


def test_load_configuration_on_initialize_thresholds() -> None:
    """``TestFairScheduler.testLoadConfigurationOnInitialize`` (its threshold part): .5 and .7
    are read (``getNodeLocalityThreshold`` .5, ``getRackLocalityThreshold`` .7, as Java floats)."""
    h = harness(0.5, 0.7)
    sel = selector(h)
    assert sel.node_threshold == pytest.approx(.5, abs=.01) and sel.rack_threshold == pytest.approx(.7, abs=.01)
    assert (sel.node_threshold, sel.rack_threshold) == (0.5, java_float(0.7))
    assert h.config.scheduler.locality_threshold_node == 0.5


def test_defaults_are_off_and_the_greedy_selector_unchanged() -> None:
    """Hadoop's defaults (-1): the ``locality`` plugin is the greedy one, with no ``cs_select_ask``
    (the engine's own choice, no work more a heartbeat); one threshold negative is off too."""
    cfg = Config.from_toml('[scheduler]\nmode = "resources"\n')
    assert (cfg.scheduler.locality_threshold_node, cfg.scheduler.locality_threshold_rack) == (-1.0, -1.0)
    for node, rack in ((None, None), (0.5, None), (None, 0.5), (0.5, -1)):
        h = harness(node, rack)
        assert type(h.scheduler.plugins.instances["locality"]) is GreedyLocality
        assert h.scheduler.plugins.select_ask is None
    h = harness(0.5, 0.5)
    assert h.scheduler.plugins.select_ask is not None


@pytest.mark.parametrize(("key", "value", "shown"), [
    ("locality_threshold_node", '"half"', "'half'"),
    ("locality_threshold_rack", "true", "true"),
    ("locality_threshold_node", "nan", "nan"),
    ("locality_threshold_rack", "inf", "inf"),
])
def test_a_bad_threshold_is_one_error_naming_the_key(key: str, value: str, shown: str) -> None:
    with pytest.raises(ConfigError) as err:
        Config.from_toml(f'[scheduler]\nmode = "resources"\n{key} = {value}\n', source="cs.toml")
    message = str(err.value)
    assert message.startswith(f"cs.toml:3: [scheduler] {key}: expected a") and f"number, got {shown}" in message
    assert len(err.value.problems) == 1


def test_the_locality_plugin_still_takes_no_settings() -> None:
    with pytest.raises(ConfigError, match=r"\[plugins.locality\].*takes no settings"):
        ClusterHarness(config={"scheduler": {"mode": "resources", "locality_threshold_node": 0.5,
                                             "locality_threshold_rack": 0.5},
                               "plugins": {"locality": {"wait": 1}}})


# ---------------------------------------------------------------------- FSAppAttempt.assignContainer


def test_an_ask_for_another_rack_waits_then_runs_rack_local_then_off_switch() -> None:
    """4 nodes, thresholds .5 (2 opportunities each): an ask for n0003 (rack r01) offered n0000
    (rack r00) counts opportunities; past 2 it may run rack-local (r01, not here; the count
    starts again), past 2 more off-switch: the sixth heartbeat runs it off-switch."""
    h = harness()
    sel = selector(h)
    app = h.submit_app(queue="q", user="u", requests=[{"resources": GB_ASK, "count": 3, "locations": ["n0003"]}])
    seen = []
    for _ in range(5):
        assert h.heartbeat("n0000") == []
        seen.append((sel.scheduling_opportunities(app), sel.allowed_locality_level(app, 0, 4)))
    assert seen == [(1, "node"), (2, "node"), (0, "rack"), (1, "rack"), (2, "rack")]
    (got,) = h.heartbeat("n0000")
    assert (got.node, got.locality) == ("n0000", "off")
    assert sel.scheduling_opportunities(app) == 0  # moved to off-switch: the count started again


def test_rack_local_once_allowed_and_node_local_always() -> None:
    """Node-local runs at once, on the key's first opportunity; rack-local once the key is
    allowed rack-local; a node-local container then brings the level back to node-local
    (``FSAppAttempt.allocate`` → ``resetAllowedLocalityLevel``)."""
    h = harness()
    sel = selector(h)
    app = h.submit_app(queue="q", user="u", requests=[{"resources": GB_ASK, "count": 4, "locations": ["n0003"]}])
    (got,) = h.heartbeat("n0003")
    assert (got.node, got.locality) == ("n0003", "node") and sel.scheduling_opportunities(app) == 1
    assert h.heartbeat("n0002") == []  # 2 is not past 2: node-local only
    (got,) = h.heartbeat("n0002")  # 3 > 2: rack-local allowed (the count starts again)
    assert (got.node, got.locality) == ("n0002", "rack") and sel.scheduling_opportunities(app) == 0
    assert sel.allowed_locality_level(app, 0, 4) == "rack"
    (got,) = h.heartbeat("n0003")
    assert got.locality == "node"
    assert sel.locality_level(app, 0) == "node"  # raised back by the node-local container


def test_the_count_is_kept_when_the_level_is_raised_back() -> None:
    """Hadoop resets a key's opportunities only when its level moves out; a node-local container
    raises the level back but keeps the count, so the next miss moves it out again at once."""
    h = harness(0.5, 1.0)
    sel = selector(h)
    app = h.submit_app(queue="q", user="u", requests=[{"resources": GB_ASK, "count": 4, "locations": ["n0003"]}])
    for _ in range(3):
        assert h.heartbeat("n0000") == []  # 1, 2, 3 > 2: rack-local allowed, count 0
    for _ in range(2):
        assert h.heartbeat("n0000") == []  # 1, 2 (the rack threshold is 4)
    assert (sel.allowed_locality_level(app, 0, 4), sel.scheduling_opportunities(app)) == ("rack", 2)
    (got,) = h.heartbeat("n0003")  # 3: still rack-local allowed; the container is node-local
    assert got.locality == "node"
    assert (sel.locality_level(app, 0), sel.scheduling_opportunities(app)) == ("node", 3)
    assert h.heartbeat("n0000") == []  # 4 > 2: rack-local allowed at the first miss
    assert (sel.allowed_locality_level(app, 0, 4), sel.scheduling_opportunities(app)) == ("rack", 0)


def test_an_off_switch_container_does_not_raise_the_level() -> None:
    """Thresholds 0: the key's first look is node-local (the default), then each opportunity
    moves it one level out; an off-switch container leaves it off-switch."""
    h = harness(0.0, 0.0)
    sel = selector(h)
    app = h.submit_app(queue="q", user="u", requests=[{"resources": GB_ASK, "count": 3, "locations": ["n0003"]}])
    assert h.heartbeat("n0000") == []  # node-local (the default)
    assert h.heartbeat("n0000") == []  # 2 > 0: rack-local; no rack-local container here
    (got,) = h.heartbeat("n0000")  # 1 > 0: off-switch
    assert got.locality == "off" and sel.allowed_locality_level(app, 0, 4) == "off"


def test_a_priority_waiting_lets_the_next_priority_run() -> None:
    """``assignContainer`` tries the app's keys in priority order: a key that may not run here
    yet (its opportunity counted) leaves the node to the next key; an ask naming no place
    runs at once (``hasNodeOrRackLocalRequests`` false)."""
    h = harness()
    sel = selector(h)
    app = h.submit_app(queue="q", user="u", requests=[
        {"resources": GB_ASK, "locations": ["n0003"], "priority": 1},
        {"resources": GB_ASK, "priority": 2}])
    (got,) = h.heartbeat("n0000")
    assert got.task == app.tasks["task"][1].id  # priority 2's container
    assert sel.scheduling_opportunities(app, 1) == 1 and sel.scheduling_opportunities(app, 2) == 1
    assert h.heartbeat("n0000") == []  # priority 2 done; priority 1 still waits (2 is not past 2)
    assert sel.scheduling_opportunities(app, 1) == 2


def test_a_node_it_may_not_run_on_or_too_small_is_not_an_opportunity() -> None:
    """``hasContainerForNode``: an ask not relaxed past n0003, or larger than the node, is not
    counted on a node where it can never run."""
    h = harness()
    sel = selector(h)
    strict = h.submit_app(queue="q", user="u", requests=[
        {"resources": GB_ASK, "locations": ["n0003"], "relax_locality": False}])
    for _ in range(5):
        assert h.heartbeat("n0000") == []
    assert sel.scheduling_opportunities(strict) == 0
    h.add_node("n0100", rack="r00", resources="512 mb, 8 vcores")
    big = h.submit_app(queue="q", user="u", requests=[{"resources": GB_ASK, "locations": ["n0003"]}])
    assert h.heartbeat("n0100") == []
    assert sel.scheduling_opportunities(big) == 0


def test_counts_go_when_the_app_ends() -> None:
    h = harness()
    sel = selector(h)
    app = h.submit_app(queue="q", user="u", requests=[{"resources": GB_ASK, "locations": ["n0003"]}])
    h.heartbeat("n0000")
    assert sel.scheduling_opportunities(app) == 1
    (got,) = h.heartbeat("n0003")
    h.finish(got)
    h.update()
    assert app.id not in sel._missed and app.id not in sel._allowed


# ---------------------------------------------------------------------- MR jobs' maps


def test_mr_maps_wait_as_one_key_and_reduces_wait_behind_them() -> None:
    """An MR job's maps (the AM asks each map's hosts, racks and ANY at ``PRIORITY_MAP``): one
    key under the same rule; while a map is declined no reduce is asked (the engine's AM model)."""
    h = harness()
    sel = selector(h)
    job = h.submit(maps=2, reduces=1, queue="q", user="u", resources=GB_ASK,
                   map_locations=[["n0003"], ["n0003"]])
    assert h.heartbeat("n0000") == []
    assert sel.scheduling_opportunities(job, MR_MAP_KEY) == 1
    assert job.pending["reduce"] == 1 and not h.heartbeat("n0001")  # 2: still waiting, no reduce either
    (got,) = h.heartbeat("n0003")  # 3 > 2: rack-local allowed (count 0); node-local: back to node
    assert (got.kind, got.locality) == ("map", "node")
    assert (sel.locality_level(job, MR_MAP_KEY), sel.scheduling_opportunities(job, MR_MAP_KEY)) == ("node", 0)
    assert h.heartbeat("n0002") == [] and h.heartbeat("n0002") == []  # 1, 2
    (got,) = h.heartbeat("n0002")  # 3 > 2: rack-local allowed
    assert (got.kind, got.locality) == ("map", "rack")
    (got,) = h.heartbeat("n0000")  # the maps are all running: the reduce is asked, at once
    assert got.kind == "reduce"


def test_mr_maps_without_input_locations_run_at_once() -> None:
    h = harness()
    job = h.submit(maps=1, queue="q", user="u", resources=GB_ASK)
    (got,) = h.heartbeat("n0000")
    assert got.job == job.id and got.kind == "map"
    assert selector(h).scheduling_opportunities(job, MR_MAP_KEY) == 0


def test_slot_mode_maps_follow_the_same_rule() -> None:
    """The selector does not look at the engine's mode: with ``task_selector = "locality"`` and
    the thresholds set, MR1 maps (slot mode) wait by the same count."""
    h = ClusterHarness(racks=2, nodes_per_rack=2, config={"scheduler": {
        "task_selector": "locality", "load_manager": "slots",
        "locality_threshold_node": 0.5, "locality_threshold_rack": 0.5}})
    sel = selector(h)
    job = h.submit(maps=1, map_locations=[["n0003"]])
    assert h.heartbeat("n0000") == [] and h.heartbeat("n0000") == []
    assert h.heartbeat("n0000") == []  # 3 > 2: rack-local allowed; r00 has none
    assert sel.scheduling_opportunities(job, MR_MAP_KEY) == 0
    (got,) = h.heartbeat("n0002")
    assert got.locality == "rack"
