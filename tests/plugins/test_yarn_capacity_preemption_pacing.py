"""The Capacity Scheduler's preemption rounds run every ``monitoring_interval`` of the file
(Hadoop's ``SchedulingMonitor.serviceStart``: ``scheduleAtFixedRate(PolicyInvoker, 0,
monitorInterval)``), not every ``[scheduler] preemption_interval``: the policy's
``preemption_hint`` names the next round and the engine's check is due then
(``Engine.preemption_due``) — the same path for the harness, the simulator and ``serve``."""

from __future__ import annotations

import itertools
import math

import pytest
from corescheduler_plugins._yarn_capacity_preemption import (
    PREFIX,
    ContainerView,
    PreemptionSettings,
    ProportionalCapacityPreemption,
    QueueView,
)

from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness


def _prop(name: str, value: str) -> str:
    return f"<property><name>{name}</name><value>{value}</value></property>"


def _xml(interval_ms: str | None, wait_ms: str = "1000") -> str:
    c = "yarn.scheduler.capacity."
    monitor = _prop(PREFIX + "monitoring_interval", interval_ms) if interval_ms is not None else ""
    return ("<configuration>" + _prop(c + "root.queues", "a,b")
            + _prop(c + "root.a.capacity", "50") + _prop(c + "root.b.capacity", "50")
            + _prop(c + "root.a.maximum-capacity", "100") + _prop(c + "root.a.user-limit-factor", "2")
            + _prop(PREFIX + "natural_termination_factor", "1") + _prop(PREFIX + "total_preemption_per_round", "1")
            + _prop(PREFIX + "max_wait_before_kill", wait_ms) + monitor + "</configuration>")


def _harness(preemption_interval: float, interval_ms: str | None) -> ClusterHarness:
    """a fills the node (8 containers); b then asks for 4: a owes b 4 containers."""
    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True,
                            "preemption_interval": preemption_interval}}
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=config,
                       allocations=_xml(interval_ms))
    a = h.submit(queue="a", user="u", tasks=8, resources="1024 mb, 1 vcores")
    for _ in range(8):
        h.heartbeat("n0000")
    assert h.running(a) == 8
    h.submit(queue="b", user="v", tasks=4, resources="1024 mb, 1 vcores")
    return h


@pytest.mark.parametrize("preemption_interval", [0.0, 1.0, 15.0])
def test_rounds_follow_the_files_monitoring_interval(preemption_interval: float) -> None:
    """Rounds at 1, 4, 7 … s (every 3 s, the default ``monitoring_interval``) whatever the
    engine's ``preemption_interval``: the first round marks, the wait (1 s) is over at 2 s,
    but no round runs at 2 or 3 s; the round at 4 s kills.  (Before: a round at every
    ``preemption_interval``, so a kill at 2 s, or none before 16 s.)"""
    h = _harness(preemption_interval, None)
    assert h.advance(1) == []  # t = 1: the first round marks
    marked = h.shares()["preemption"]["marked"]
    assert len(marked) == 4
    assert h.advance(1) == []  # t = 2: no round
    assert h.advance(1) == []  # t = 3: no round
    killed = h.advance(1)  # t = 4: the second round kills what it marked at 1
    assert sorted(t.id for t in killed) == sorted(marked)


def test_a_longer_interval_holds_the_rounds_back() -> None:
    """``monitoring_interval`` 10 s with checks every step: the round at 1 s marks, the next
    runs at 11 s and kills; none between."""
    h = _harness(0.0, "10000")
    assert h.advance(1) == []
    marked = h.shares()["preemption"]["marked"]
    assert len(marked) == 4
    for _ in range(9):
        assert h.advance(1) == []  # t = 2 … 10
    assert sorted(t.id for t in h.advance(1)) == sorted(marked)  # t = 11


def test_a_forced_check_runs_a_round_off_the_rate() -> None:
    """``ClusterHarness.preempt`` forces a round (as a test's direct ``editSchedule``); the
    rate stays anchored at the first round."""
    h = _harness(0.0, None)
    assert h.advance(1) == []  # t = 1: marks
    marked = h.shares()["preemption"]["marked"]
    h.clock_only(1)
    killed = h.preempt()  # t = 2, forced: selected again 1 s after the mark
    assert sorted(t.id for t in killed) == sorted(marked)


def test_next_round_is_a_fixed_rate_from_the_first() -> None:
    """``scheduleAtFixedRate``: rounds at first + k × interval; a round run late does not
    move the rate, one that skipped ticks resumes at the next tick after it."""
    settings = PreemptionSettings.from_properties({PREFIX + "monitoring_interval": "3000"})
    policy = ProportionalCapacityPreemption(settings)
    assert policy.next_round() == -math.inf
    root = QueueView(path="root", guaranteed=Resources(100, 0), maximum=Resources(100, 0),
                     used=Resources(0, 0), children=[
                         QueueView(path="root.a", guaranteed=Resources(100, 0), maximum=Resources(100, 0),
                                   used=Resources(0, 0))])
    cluster = Resources(100, 0)
    policy.select(root, cluster, 5.0)
    assert policy.next_round() == 8.0
    policy.select(root, cluster, 8.5)
    assert policy.next_round() == 11.0
    policy.select(root, cluster, 20.0)  # ticks at 11, 14, 17 passed without a check
    assert policy.next_round() == 23.0
    policy.select(root, cluster, 23.0)
    assert policy.next_round() == 26.0


def _simulate(tmp_path, interval_ms: str) -> list[float]:
    import json

    from corescheduler.config import Config
    from corescheduler.formats.workloads import load_workload
    from corescheduler.sim.simulator import Simulation

    (tmp_path / "capacity-scheduler.xml").write_text(_xml(interval_ms))
    jobs = [
        {"id": "big", "submit": 0, "user": "u", "pool": "a", "task_resources": "1024 mb, 1 vcores",
         "task_count": 8, "task_duration": 600},
        {"id": "late", "submit": 30.25, "user": "v", "pool": "b", "task_resources": "1024 mb, 1 vcores",
         "task_count": 4, "task_duration": 10},
    ]
    (tmp_path / "w.json").write_text(json.dumps({"jobs": jobs}))
    config = Config.from_dict(
        {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True,
                       "preemption_interval": 15.0,
                       "allocation_file": str(tmp_path / "capacity-scheduler.xml")},
         "cluster": {"racks": 1, "nodes_per_rack": 1, "node_resources": "8192 mb, 8 vcores"}},
        source=str(tmp_path / "c.toml"),
    )
    workload = load_workload(tmp_path / "w.json", config=config, seed=0)
    result = Simulation(config, workload, 0).run()
    return sorted(e["time"] for e in result.event_list if e["type"] == "task_preempt")


@pytest.mark.parametrize("interval_ms", ["2000", "7000"])
def test_simulated_kills_fall_on_monitor_rounds(tmp_path, interval_ms: str) -> None:
    """In the simulator (``preemption_interval`` 15 s), the Capacity Scheduler's rounds run
    every ``monitoring_interval`` from the first: b's 4 containers are marked at the first
    round after it asks and killed at the next (the wait is 1 s), both on the monitor's
    rate, not 15 s apart."""
    period = int(interval_ms) / 1000
    kills = _simulate(tmp_path, interval_ms)
    assert len(kills) == 4 and len(set(kills)) == 1
    killed_at = kills[0]
    # rounds fall at first + k × period; the first round is at the first update (t = 0 or
    # the update interval after), so killed_at - first round is a whole number of periods
    assert any(abs((killed_at - start) / period - round((killed_at - start) / period)) < 1e-9
               for start in (0.0, 0.5, 1.0))
    assert 30.25 + 1.0 <= killed_at <= 30.25 + 2 * period + 1.0


# -- the pace of the rounds sets the pace of the kills (why the SWIM experiment's Capacity
# Scheduler preemptions rose when the rounds moved from [scheduler] preemption_interval, 15 s,
# to Hadoop's monitoring_interval, 3 s: docs/yarn-capacity.md, "How often rounds run")

def _owing_rounds(interval_ms: str, window: float) -> list[tuple[float, str]]:
    """Hadoop's defaults but ``monitoring_interval``: a (guaranteed 40 of 80 containers) holds all
    80, b asks for its 40; every container killed from a goes to b before the next round.  The
    kills (time, container) of the rounds in ``[0, window)``."""
    settings = PreemptionSettings.from_properties({PREFIX + "monitoring_interval": interval_ms})
    policy = ProportionalCapacityPreemption(settings)
    def containers(n: int) -> Resources:
        return Resources(n * 1024, n)

    one = containers(1)
    cluster = containers(80)
    half = containers(40)
    a = [ContainerView(id=f"a{i:02}", app_id="A", app_order=0, resources=one) for i in range(80)]
    b = 0
    kills: list[tuple[float, str]] = []
    now = 0.0
    while now < window:
        root = QueueView(path="root", guaranteed=cluster, maximum=cluster, used=containers(len(a) + b), children=[
            QueueView(path="root.a", guaranteed=half, maximum=cluster, used=containers(len(a)), containers=list(a)),
            QueueView(path="root.b", guaranteed=half, maximum=cluster, used=containers(b), pending=containers(40 - b))])
        chosen = policy.select(root, cluster, now)
        kills.extend((now, cid) for cid in chosen.kill)
        a = [c for c in a if c.id not in chosen.kill]
        b += len(chosen.kill)
        now = policy.next_round()
    return kills


@pytest.mark.parametrize(("interval_ms", "kill_times"), [
    ("3000", [15.0, 33.0, 51.0, 69.0, 87.0, 105.0]),
    ("15000", [15.0, 45.0, 75.0, 105.0]),
])
def test_a_queue_that_stays_owed_loses_containers_at_the_pace_of_the_rounds(interval_ms: str,
                                                                             kill_times: list[float]) -> None:
    """Each round asks a for ``natural_termination_factor`` of its excess scaled to
    ``total_preemption_per_round`` (0.2 × 8 GB, rounded: 2 containers;
    ``calculateResToObtainByPartitionForLeafQueues``), the same two latest containers while
    nothing changes.  They are killed by the first round ``max_wait_before_kill`` (15 s) after
    their mark (``preemptOrkillSelectedContainerAfterWait``); that round's selection is those
    two, so the next two are marked one round later.  A kill every 15 s + one interval: 18 s
    with Hadoop's 3 s rounds, 30 s with 15 s rounds — in 120 s, 12 containers against 8."""
    kills = _owing_rounds(interval_ms, 120.0)
    assert [t for t, _ in kills] == [t for t in kill_times for _ in range(2)]
    assert [c for _, c in kills] == [f"a{i:02}" for i in range(79, 79 - len(kills), -1)]  # latest first


@pytest.mark.parametrize(("interval_ms", "gap"), [(None, 18.0), ("15000", 30.0)])
def test_simulated_kills_of_a_persistent_debt_come_every_wait_plus_one_round(tmp_path, interval_ms: str | None,
                                                                               gap: float) -> None:
    """The same in the simulator, with no preemption key but the interval in the file (the
    experiment's configuration: Hadoop's defaults, ``preemption_interval`` 15 s): a fills ten
    nodes, b asks for its half at 30.25 s; two containers are killed every 18 s (every 30 s with
    15 s rounds) until a is within ``max_ignored_over_capacity`` of its guarantee (44 of 80
    containers: 36 kills either way)."""
    import json

    from corescheduler.config import Config
    from corescheduler.formats.workloads import load_workload
    from corescheduler.sim.simulator import Simulation

    c = "yarn.scheduler.capacity."
    monitor = _prop(PREFIX + "monitoring_interval", interval_ms) if interval_ms is not None else ""
    (tmp_path / "capacity-scheduler.xml").write_text(
        "<configuration>" + _prop(c + "root.queues", "a,b") + _prop(c + "root.a.capacity", "50")
        + _prop(c + "root.b.capacity", "50") + _prop(c + "root.a.maximum-capacity", "100")
        + _prop(c + "root.a.user-limit-factor", "2") + monitor + "</configuration>")
    jobs = [
        {"id": "big", "submit": 0, "user": "u", "pool": "a", "task_resources": "1024 mb, 1 vcores",
         "task_count": 80, "task_duration": 700},
        {"id": "late", "submit": 30.25, "user": "v", "pool": "b", "task_resources": "1024 mb, 1 vcores",
         "task_count": 40, "task_duration": 700},
    ]
    (tmp_path / "w.json").write_text(json.dumps({"jobs": jobs}))
    config = Config.from_dict(
        {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True,
                       "allocation_file": str(tmp_path / "capacity-scheduler.xml")},
         "cluster": {"racks": 1, "nodes_per_rack": 10, "node_resources": "8192 mb, 8 vcores"}},
        source=str(tmp_path / "c.toml"),
    )
    result = Simulation(config, load_workload(tmp_path / "w.json", config=config, seed=0), 0).run()
    kills = sorted(e["time"] for e in result.event_list if e["type"] == "task_preempt")
    assert len(kills) == 36
    pairs = kills[::2]
    assert kills[1::2] == pairs  # two at a time
    assert all(abs(later - earlier - gap) < 1e-9 for earlier, later in itertools.pairwise(pairs))
    # the first: marked by the first round after b asks, killed 15 s later
    assert 30.25 + 15.0 <= pairs[0] <= 30.25 + 15.0 + (3.0 if interval_ms is None else 15.0)
