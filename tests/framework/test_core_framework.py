"""The core names the framework only through :mod:`corescheduler.core.framework`'s protocols.

The framework's objects must keep satisfying them (the type checker sees this only in the
compiled build), a scheduler built without ``plugins=`` gets the framework's
:class:`~corescheduler.plugin_manager.PluginSet`, one built with any object that has the
protocol's members uses that object, and without a provided plugin manager the error says
what to do.
"""

from __future__ import annotations

import inspect

import pytest

from corescheduler.config import Config
from corescheduler.core import framework
from corescheduler.core.framework import ClusterSettings, EngineConfig, Plugins, SchedulerSettings
from corescheduler.core.model import Cluster
from corescheduler.core.scheduler import Scheduler
from corescheduler.errors import SchedulerStateError
from corescheduler.plugin_manager import PluginSet


def members(protocol: type) -> set[str]:
    """The names a protocol declares: its properties, methods and annotated attributes."""
    names = {n for n, v in vars(protocol).items() if isinstance(v, property) or inspect.isfunction(v)}
    return {n for n in names | set(getattr(protocol, "__annotations__", {})) if not n.startswith("__")}


def missing(obj: object, protocol: type) -> list[str]:
    return sorted(n for n in members(protocol) if not hasattr(obj, n))


def test_the_protocols_declare_members() -> None:
    assert {"mode", "preemption", "task_resources"} <= members(SchedulerSettings)
    assert {"node_resources", "next_heartbeat_interval"} <= members(ClusterSettings)
    assert members(EngineConfig) == {"scheduler", "cluster"}
    assert {"who", "blame", "share_policy", "listeners", "root_policy", "select_task"} <= members(Plugins)


def test_the_framework_config_is_an_engine_config() -> None:
    config = Config.default()
    assert missing(config, EngineConfig) == []
    assert missing(config.scheduler, SchedulerSettings) == []
    assert missing(config.cluster, ClusterSettings) == []


def test_a_plugin_set_has_every_member_the_engine_calls() -> None:
    assert missing(PluginSet(Config.default()), Plugins) == []


def test_a_scheduler_without_plugins_gets_the_framework_plugin_set() -> None:
    scheduler = Scheduler(Config.default(), Cluster.build(racks=1, nodes_per_rack=1, map_slots=1, reduce_slots=1))
    assert type(scheduler.plugins) is PluginSet
    assert scheduler.plugins.config is scheduler.config


def test_a_scheduler_uses_the_plugins_it_is_given() -> None:
    config = Config.default()
    plugins = PluginSet(config)
    scheduler = Scheduler(config, Cluster.build(racks=1, nodes_per_rack=1, map_slots=1, reduce_slots=1),
                          plugins=plugins)
    assert scheduler.plugins is plugins
    assert scheduler.root_policy is plugins.root_policy


def test_without_a_plugin_manager_the_error_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framework, "_factory", [])
    with pytest.raises(SchedulerStateError, match="pass plugins="):
        Scheduler(Config.default(), Cluster.build(racks=1, nodes_per_rack=1, map_slots=1, reduce_slots=1))


def test_every_plugins_member_the_core_calls_is_declared() -> None:
    """Review: what the engines read of their plugins (``plugins.<name>`` anywhere in
    corescheduler/core) is a member of the Plugins protocol — ``select_ask`` (resource mode's
    ``cs_select_ask``) was read by the resource engine but not declared, so an object built
    to the protocol failed with an AttributeError at the first app with asks."""
    import re
    from pathlib import Path

    core = Path(framework.__file__).parent
    used = {m for f in core.glob("*.py") for m in re.findall(r"\bplugins\.([a-z_]+)\b", f.read_text())}
    assert used
    assert sorted(used - members(Plugins)) == []
