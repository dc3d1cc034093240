"""A capacity queue whose guarantee floors to 0 slots is never scheduled (Hadoop 0.19/0.20's
``(int) (capacity × slots / 100)`` in ``CapacityTaskScheduler.updateQSIObjects``, kept): ``check``,
``simulate`` and ``serve`` warn, naming the queue and the smallest cluster on which it gets a slot.

The cluster of Hadoop's ``TestCapacityScheduler.testCapacityBasedAllocation``: queue ``default``
at 10 % gets 0 map slots on 2, 3 and 4 nodes of 2 map slots and its first at 5 nodes (10 slots).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from cli_helpers import run
from corescheduler_plugins.capacity import slots_for_one, slots_of, zero_guarantee_warnings

from corescheduler.config import Config
from corescheduler.plugin_manager import PluginSet
from corescheduler.testing import ClusterHarness

CONFIG = """\
[scheduler]
share_policy = "capacity"
pool_resolver = ["capacity"]
[cluster]
racks = 1
nodes_per_rack = {nodes}
map_slots = 2
reduce_slots = 1
[plugins.capacity.queues.default]
capacity = 10
[plugins.capacity.queues.q2]
capacity = 90
"""

MAP_WARNING = (
    "[plugins.capacity] queue 'default': a map capacity of 10% of {slots} map slots ({nodes} nodes) floors to 0 "
    "(Hadoop's (int) (capacity × slots / 100)), so the queue is never given a map slot and its jobs' maps never "
    "run; it gets one from 10 map slots: 5 nodes of 2 map slots"
)
REDUCE_WARNING = (
    "[plugins.capacity] queue 'default': a reduce capacity of 10% of {slots} reduce slots ({nodes} nodes) floors "
    "to 0 (Hadoop's (int) (capacity × slots / 100)), so the queue is never given a reduce slot and its jobs' "
    "reduces never run; it gets one from 10 reduce slots: 10 nodes of 1 reduce slots"
)


def test_the_smallest_cluster_with_a_slot() -> None:
    """slots_of is Hadoop's (int) (percent × slots / 100) in float arithmetic: the first slot count where it
    reaches 1, and never for 0 %."""
    for percent, least in ((10, 10), (2.6, 39), (33.3, 4), (0.5, 200), (100, 1), (90, 2)):
        assert slots_for_one(percent) == least
        assert slots_of(percent, least) == 1 and (least == 1 or slots_of(percent, least - 1) == 0)
    assert slots_for_one(0) is None


@pytest.mark.parametrize("nodes", [2, 3, 4])
def test_hadoop_capacity_based_allocation_cluster_warns(nodes: int) -> None:
    """testCapacityBasedAllocation: 10 % of 4, 6, 8 map slots is 0; the warning names 10 slots, 5 nodes."""
    config = read(nodes)
    warnings = zero_guarantee_warnings(config, nodes, {"map": 2, "reduce": 1})
    assert warnings == [MAP_WARNING.format(slots=2 * nodes, nodes=nodes),
                        REDUCE_WARNING.format(slots=nodes, nodes=nodes)]


def test_from_five_nodes_the_map_warning_goes() -> None:
    """testCapacityBasedAllocation: at 5 nodes (10 map slots) default's guarantee is 1."""
    assert zero_guarantee_warnings(read(5), 5, {"map": 2, "reduce": 1}) == [
        REDUCE_WARNING.format(slots=5, nodes=5)]
    assert zero_guarantee_warnings(read(10), 10, {"map": 2, "reduce": 1}) == []


def test_a_zero_capacity_never_gets_a_slot() -> None:
    config = Config.from_toml(CONFIG.format(nodes=4).replace("capacity = 10", "capacity = 0").replace(
        "capacity = 90", "capacity = 100"))
    warnings = plugin_of(config).settings_warnings()
    assert len(warnings) == 2 and all(w.endswith(", on any cluster") for w in warnings)


def test_the_plugin_says_it_for_its_cluster_and_the_harness_agrees() -> None:
    """The plugin's settings_warnings(): [cluster]'s nodes unless told; the guarantee the harness sees is
    the 0 the warning announces."""
    h = ClusterHarness(racks=1, nodes_per_rack=4, map_slots=2, reduce_slots=1, config=CONFIG.format(nodes=4))
    h.advance(0.1)
    capacity = h.scheduler.plugins.instances["capacity"]
    assert capacity.guarantee("default", "map") == 0
    assert capacity.settings_warnings() == [MAP_WARNING.format(slots=8, nodes=4),
                                            REDUCE_WARNING.format(slots=4, nodes=4)]
    assert capacity.settings_warnings(10) == []


def test_resource_mode_says_nothing_of_slots() -> None:
    config = Config.from_toml(CONFIG.format(nodes=4).replace("[scheduler]", '[scheduler]\nmode = "resources"'))
    assert plugin_of(config).settings_warnings() == []


def test_as_a_pool_resolver_only_it_says_nothing_of_slots() -> None:
    """The guarantees divide the cluster only when capacity is the share policy."""
    config = Config.from_toml(CONFIG.format(nodes=4).replace('share_policy = "capacity"\n', ""))
    assert plugin_of(config).settings_warnings() == []


def test_check_warns(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(CONFIG.format(nodes=4))
    result = run("check", str(path))
    assert result.exit_code == 0, result.output
    assert f"{path}: ok" in result.stdout
    assert f"warning: {MAP_WARNING.format(slots=8, nodes=4)}" in result.stdout.splitlines()
    assert f"warning: {REDUCE_WARNING.format(slots=4, nodes=4)}" in result.stdout.splitlines()


def test_simulate_warns(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(CONFIG.format(nodes=4))
    workload = tmp_path / "w.json"
    workload.write_text(json.dumps({"jobs": [
        {"id": "j1", "submit": 0.0, "user": "u", "properties": {"queue.name": "q2"}, "map_count": 2,
         "map_duration": 1.0}]}))
    result = run("simulate", "--config", str(path), "--workload", str(workload), "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert f"warning: {MAP_WARNING.format(slots=8, nodes=4)}" in result.stderr.splitlines()


def test_serve_warns_for_the_embedded_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """serve: the embedded cluster's nodes are its workers, each with [cluster]'s slots."""
    import uvicorn

    import corescheduler.cli.serve as serve_cli
    import corescheduler.service.api as api
    import corescheduler.service.logs as logs
    import corescheduler.service.service as service_module

    path = tmp_path / "c.toml"
    path.write_text(CONFIG.format(nodes=10))  # [cluster] has 10 nodes; the service starts 3 workers

    class FakeService:
        def __init__(self, cfg, **_: object) -> None:
            self.scheduler = SimpleNamespace(allocations=None, plugins=PluginSet(cfg))
            self.backend = SimpleNamespace(n_workers=3)
            self.embedded = True

    monkeypatch.setattr(service_module, "Service", FakeService)
    monkeypatch.setattr(api, "create_app", lambda *a, **k: None)
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    monkeypatch.setattr(serve_cli, "_check_identity", lambda cfg: None)  # (the tests may run as root)
    monkeypatch.setattr(logs, "configure", lambda *a, **k: None)  # no process-wide logging set-up
    monkeypatch.setenv("DASK_LOGGING", "{}")  # serve sets it if unset: restored after the test
    result = run("serve", "--config", str(path), "--port", "0")
    assert result.exit_code == 0, result.output
    assert f"warning: {MAP_WARNING.format(slots=6, nodes=3)}" in result.stderr.splitlines()


def read(nodes: int):
    return plugin_of(Config.from_toml(CONFIG.format(nodes=nodes))).config


def plugin_of(config: Config):
    return PluginSet(config).instances["capacity"]
