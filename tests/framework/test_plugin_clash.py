"""One plugin name, one plugin (docs/hooks.md, "Name clashes"): two distributions
registering the same entry-point name make it unusable, a built-in's name included,
and the harness's in-process plugins follow the same rule.

The clashing distributions are fakes already "installed" in
``tests/framework/fakes/clashing``: their ``.dist-info`` folders are found by
:mod:`importlib.metadata` once the folder is on ``sys.path``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import run
from corescheduler_plugins.delay import DelayScheduling
from corescheduler_plugins.locality import GreedyLocality

from corescheduler import plugin_manager
from corescheduler.errors import PluginLoadError
from corescheduler.plugin_manager import DISABLE_AUTOLOAD_ENV, describe_available, find_plugins
from corescheduler.testing import ClusterHarness

CLASHING = Path(__file__).parent / "fakes" / "clashing"


@pytest.fixture
def clashing(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The fake distributions cs-clash-one and cs-clash-two are installed."""
    monkeypatch.delenv(DISABLE_AUTOLOAD_ENV, raising=False)
    monkeypatch.syspath_prepend(str(CLASHING))
    plugin_manager.refresh()
    yield
    monkeypatch.undo()
    plugin_manager.refresh()
    sys.modules.pop("cs_clash_fake", None)


def test_a_third_party_delay_makes_the_builtin_name_unusable(clashing):
    assert find_plugins()["delay"].dist == "corescheduler"  # listed under the built-in's metadata
    with pytest.raises(PluginLoadError) as info:
        ClusterHarness(config={"scheduler": {"task_selector": "delay"}})
    msg = str(info.value)
    assert "plugin name 'delay' is registered by several distributions" in msg
    assert "corescheduler[delay]" in msg and "cs-clash-one[delay]" in msg
    assert "cs_clash_fake" not in sys.modules  # refused before importing either


def test_two_third_party_distributions_clash(clashing):
    with pytest.raises(PluginLoadError) as info:
        ClusterHarness(config={"scheduler": {"task_selector": "shared_choice"}})
    assert "cs-clash-one[shared_choice], cs-clash-two[shared_choice]" in str(info.value)


def test_names_without_a_clash_stay_usable(clashing):
    h = ClusterHarness(config={"scheduler": {"task_selector": "locality"}})
    h.submit(maps=1)
    assert len(h.heartbeat("n0000")) == 1


def test_the_clash_is_listed_and_check_reports_it(clashing, tmp_path):
    rows = {row["name"]: row for row in describe_available()}
    assert "registered by several distributions" in rows["delay"]["error"]
    assert rows["locality"]["error"] is None
    config = tmp_path / "corescheduler.toml"
    config.write_text('[scheduler]\ntask_selector = "delay"\n')
    result = run("check", str(config))
    assert result.exit_code == 1
    assert "plugin name 'delay' is registered by several distributions" in result.output
    assert "Traceback" not in result.output


def test_autoload_disabled_sees_only_the_builtin(clashing, monkeypatch):
    monkeypatch.setenv(DISABLE_AUTOLOAD_ENV, "1")
    h = ClusterHarness(config={"scheduler": {"task_selector": "delay"}})
    assert h.scheduler.plugins.origins["delay"] == "corescheduler[delay]"


# --------------------------------------------------------------------------- the harness, same rule


def test_an_in_process_plugin_may_not_take_an_installed_name():
    with pytest.raises(PluginLoadError) as info:
        ClusterHarness(config={"scheduler": {"task_selector": "delay"}}, plugins={"delay": GreedyLocality})
    msg = str(info.value)
    assert "plugin name 'delay' is registered twice" in msg
    assert "corescheduler[delay]" in msg and "<in-process>[delay]" in msg


def test_handing_in_the_installed_plugin_itself_is_no_clash():
    """A package testing itself after ``pip install -e`` hands the harness its own class."""
    h = ClusterHarness(config={"scheduler": {"task_selector": "delay"}}, plugins={"delay": DelayScheduling})
    assert isinstance(h.scheduler.plugins.instances["delay"], DelayScheduling)
