"""Delay scheduling (plugin ``delay``): S33 and S34 of
shared/scenarios/mr1-heartbeat.md (Hadoop TestFairScheduler
testDelaySchedulingAtNodeLevel / AtRackLevel), and its settings."""

from __future__ import annotations

import pytest

from corescheduler.errors import ConfigError
from corescheduler.testing import ClusterHarness

CONFIG = """
[scheduler]
assign_multiple = true
task_selector = "delay"
load_manager = "slots"
[plugins.delay]
node_locality_delay = 5.0
rack_locality_delay = 10.0
"""


def tasks(assignments):
    return [a.task for a in assignments]


def delay_state(h, job):
    st = h.scheduler.plugins.instances["delay"].state(job.id)
    return (st.last_level, st.waited, st.skipped)


def harness():
    h = ClusterHarness(racks=2, nodes_per_rack=2, map_slots=2, reduce_slots=2, config=CONFIG)
    h.advance(0.1)
    return h


def test_s33_node_level():
    h = harness()
    j1 = h.submit(1, 0, pool="pool1", map_locations=[["n0003"]])
    h.advance(0.1)
    h.submit(10, 0)
    assert tasks(h.heartbeat("n0000")) == ["job_0002_m_000000", "job_0002_m_000001"]
    assert tasks(h.heartbeat("n0001")) == ["job_0002_m_000002", "job_0002_m_000003"]
    assert tasks(h.heartbeat("n0002")) == ["job_0002_m_000004", "job_0002_m_000005"]
    got = h.heartbeat("n0003")
    assert tasks(got) == ["job_0001_m_000000", "job_0002_m_000006"]
    assert got[0].locality == "node"
    assert delay_state(h, j1) == ("node", 0.0, False)


def test_s34_rack_then_back_to_node():
    h = harness()
    j1 = h.submit(4, 0, pool="pool1", map_locations=[["n0003"]] * 4)
    h.advance(0.1)
    h.submit(20, 0)
    assert tasks(h.heartbeat("n0000")) == ["job_0002_m_000000", "job_0002_m_000001"]
    assert tasks(h.heartbeat("n0001")) == ["job_0002_m_000002", "job_0002_m_000003"]
    assert tasks(h.heartbeat("n0002")) == ["job_0002_m_000004", "job_0002_m_000005"]
    h.advance(6.0)
    for t in ("job_0002_m_000000", "job_0002_m_000002", "job_0002_m_000004"):
        h.finish(t)
    h.advance(0.1)
    assert tasks(h.heartbeat("n0000")) == ["job_0002_m_000006"]
    assert tasks(h.heartbeat("n0001")) == ["job_0002_m_000007"]
    got = h.heartbeat("n0002")
    assert tasks(got) == ["job_0001_m_000000"] and got[0].locality == "rack"
    assert delay_state(h, j1) == ("rack", 0.0, False)
    assert tasks(h.heartbeat("n0003")) == ["job_0001_m_000001", "job_0001_m_000002"]
    assert delay_state(h, j1) == ("node", 0.0, False)
    for t in ("job_0002_m_000001", "job_0002_m_000003", "job_0002_m_000005"):
        h.finish(t)
    h.advance(0.1)
    assert tasks(h.heartbeat("n0000")) == ["job_0002_m_000008"]
    assert tasks(h.heartbeat("n0001")) == ["job_0002_m_000009"]
    assert tasks(h.heartbeat("n0002")) == ["job_0002_m_000010"]
    h.advance(0.1)
    h.finish("job_0001_m_000001")
    h.advance(0.1)
    assert tasks(h.heartbeat("n0003")) == ["job_0001_m_000003"]


def test_falls_to_any_after_both_delays():
    h = harness()
    j1 = h.submit(2, 0, pool="pool1", map_locations=[["n0003"], ["n0003"]])
    h.submit(2, 0, pool="pool2", map_locations=[["n0003"], ["n0003"]])
    h.heartbeat("n0003")  # the local node fills up: j1 and j2 each run one there
    assert h.heartbeat("n0000") == []  # both wait: skipped
    h.advance(15.0)
    got = h.heartbeat("n0000")  # 15 s waited >= 5 + 10: any node
    assert "job_0001_m_000001" in tasks(got) and got[0].locality == "off"
    assert delay_state(h, j1)[0] == "off"


def test_starved_pool_is_not_delayed():
    h = ClusterHarness(racks=2, nodes_per_rack=2, config=CONFIG, allocations="""<allocations>
        <pool name="pool1"><minMaps>1</minMaps><minSharePreemptionTimeout>1</minSharePreemptionTimeout></pool>
        </allocations>""")
    h.advance(0.1)
    h.submit(1, 0, pool="pool1", map_locations=[["n0003"]])
    assert h.heartbeat("n0000") == []
    h.advance(2.0)  # pool1 below its min share for > 1 s: starved
    got = h.heartbeat("n0000")
    assert tasks(got) == ["job_0001_m_000000"] and got[0].locality == "off"


def test_reduces_ignore_locality():
    h = harness()
    h.submit(1, 2, map_locations=[["n0003"]])
    got = h.heartbeat("n0000")
    assert tasks(got) == ["job_0001_r_000000", "job_0001_r_000001"]


def test_default_delay_follows_heartbeat_interval():
    h = ClusterHarness(config='[scheduler]\ntask_selector = "delay"\n[cluster]\nheartbeat_interval = 4.0\n')
    d = h.scheduler.plugins.instances["delay"]
    assert (d.node_delay, d.rack_delay) == (6.0, 6.0)
    h = ClusterHarness(config='[scheduler]\ntask_selector = "delay"\n[cluster]\nheartbeat_interval = 20.0\n')
    assert h.scheduler.plugins.instances["delay"].node_delay == 15.0


def test_negative_delay_is_a_config_error():
    with pytest.raises(ConfigError, match=r"\[plugins.delay\] node_locality_delay: must be ≥ 0, got -1"):
        ClusterHarness(config='[scheduler]\ntask_selector = "delay"\n[plugins.delay]\nnode_locality_delay = -1\n')


# ---------------------------------------------------------------- the hint, in one pass
def _two_paths(seen: dict):
    """``delay`` whose every hint is also computed the general way: from ``allowed_level``
    and ``_hint_of``, the path a subclass with its own ``allowed_level`` takes.  ``seen``
    counts the hints compared (``"asked"``) and their levels (``"levels"``)."""
    from corescheduler_plugins.delay import DelayScheduling

    from corescheduler.hookspecs import hookimpl

    class TwoPaths(DelayScheduling):
        @hookimpl
        def cs_select_hint(self, job, kind, now):
            hint = DelayScheduling.cs_select_hint(self, job, kind, now)
            if kind == "map" and job.pending_failed_map() is None:
                passed = job.id in self._skipped and not self._open
                general = self._hint_of(job, self.allowed_level(job, now, credit_at=now), now, passed)
                assert hint == general, (job.id, now, hint, general)
                seen["asked"] += 1
                seen["levels"].add(hint.level if hint.until == float("inf") else hint.level + " until")
            return hint

    return TwoPaths


@pytest.mark.parametrize("starvation", ["hadoop", "measured"])
def test_the_hint_in_one_pass_is_the_general_one(starvation, tmp_path):
    """``cs_select_hint`` computes the level and its ``until`` in one pass (it is asked after
    every heartbeat); that pass gives the hint ``allowed_level`` and ``_hint_of`` give, over a
    run with waits, rack-local and off-rack launches, starved pools and preemption."""
    from paths import DATA

    from corescheduler.config import Config
    from corescheduler.formats.workloads import load_workload
    from corescheduler.sim.simulator import Simulation, build_cluster

    text = f"""
[scheduler]
task_selector = "twopaths"
load_manager = "slots"
assign_multiple = true
preemption = true
[cluster]
racks = 2
nodes_per_rack = 4
[plugins.twopaths]
node_locality_delay = 4.0
rack_locality_delay = 6.0
starvation = "{starvation}"
"""
    config = Config.from_toml(text, "<t>")
    seen = {"asked": 0, "levels": set()}
    trace = tmp_path / "first-80.tsv"
    lines = (DATA / "workloads" / "fb2009-first-400.tsv").read_text().splitlines(keepends=True)
    trace.write_text("".join(lines[:80]))
    wl = load_workload(trace, config=config, seed=3, nodes=list(build_cluster(config).nodes))
    Simulation(config, wl, 3, extra_plugins={"twopaths": _two_paths(seen)}).run()
    assert seen["asked"] > 100
    assert {"node until", "rack until"} <= seen["levels"], seen["levels"]


def test_the_same_hint_again_until_the_answer_changes():
    """``cs_select_hint`` gives a job's last hint again while its answer is the same (it is
    asked after every heartbeat; a hint is immutable), and a new one once the level or its
    ``until`` moves: a stale hint is never given."""
    h = harness()
    j1 = h.submit(2, 0, pool="pool1", map_locations=[["n0003"]] * 2)
    h.advance(0.1)
    h.submit(20, 0)
    delay = h.scheduler.plugins.instances["delay"]
    h.heartbeat("n0000")  # j1 skipped: its wait for a node-local map runs from now
    now = h.scheduler.now
    first = delay.cs_select_hint(j1, "map", now)
    assert (first.level, first.until) == ("node", pytest.approx(now + 5.0))
    again = delay.cs_select_hint(j1, "map", now + 1.0)
    assert again is first  # same level, same until: the same hint
    later = delay.cs_select_hint(j1, "map", now + 6.0)  # past the node delay: rack-local now
    assert (later.level, later.until) == ("rack", pytest.approx(now + 15.0))
    assert later is not first
    got = h.heartbeat("n0003")  # a node-local launch: its wait starts afresh
    assert got[0].job == j1.id and got[0].locality == "node"
    fresh = delay.cs_select_hint(j1, "map", h.scheduler.now)
    assert fresh.level == "node" and fresh is not later
