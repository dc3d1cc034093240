"""The plugin framework: discovery, selection, validation, ordering, error
wrapping and notifications, with the fake plugins in ``tests/framework/fakes/``.

In-process fakes are handed to ``ClusterHarness(plugins={...})``; the
third-party tests build and install a real distribution
(``tests/framework/fakes/thirdparty``) into a temporary folder and run corescheduler
in a subprocess that sees it, as a user's ``pip install`` would.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from paths import DOCS

from corescheduler.errors import ConfigError, PluginExecutionError, PluginLoadError, SchedulerStateError
from corescheduler.hookspecs import hookimpl
from corescheduler.plugin_manager import DISABLE_AUTOLOAD_ENV, find_plugins
from corescheduler.testing import ClusterHarness

HERE = Path(__file__).parent
FAKES_DIR = HERE / "fakes"
EXAMPLE = DOCS / "examples" / "corescheduler-deadline-boost"


def _load_fakes() -> Any:
    # Loaded by path: the name ``plugins`` is also the built-ins' source folder.
    spec = importlib.util.spec_from_file_location("corescheduler_test_fakes", FAKES_DIR / "fakes.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


fakes = _load_fakes()


def harness(scheduler: dict[str, Any], plugins: dict[str, Any] | None = None) -> ClusterHarness:
    """A 1 rack × 2 nodes harness with ``[scheduler]`` set to ``scheduler``."""
    return ClusterHarness(config={"scheduler": scheduler}, plugins=plugins)


# =========================================================================== selection and validation


def test_unknown_plugin_name_is_a_config_error_listing_the_available_ones():
    with pytest.raises(ConfigError) as info:
        harness({"task_selector": "delayy"}, plugins={"lowest": fakes.LowestIndex})
    msg = str(info.value)
    assert "[scheduler] task_selector" in msg
    assert "unknown plugin 'delayy'" in msg
    available = msg.split("available:", 1)[1]
    for name in [*find_plugins(), "lowest"]:
        assert name in available


def test_unknown_plugin_in_a_list_key_names_that_key():
    with pytest.raises(ConfigError, match=r"\[scheduler\] weight_adjusters: unknown plugin 'nope'"):
        harness({"weight_adjusters": ["nope"]})


def test_selecting_a_blocked_plugin_is_a_config_error():
    with pytest.raises(ConfigError, match=r"plugin 'locality' is blocked by \[scheduler\] blocked_plugins"):
        harness({"blocked_plugins": ["locality"], "task_selector": "locality"})


def test_plugin_without_the_extension_points_hook_is_rejected_by_name():
    with pytest.raises(ConfigError) as info:
        harness({"task_selector": "only_load"}, plugins={"only_load": fakes.OnlyLoadManager})
    msg = str(info.value)
    assert "[scheduler] task_selector" in msg
    assert "'only_load'" in msg
    assert "is not a TaskSelector" in msg
    assert "cs_select_task" in msg
    assert "cs_can_assign" in msg  # what it does have


def test_builtin_at_the_wrong_extension_point_is_rejected_with_its_origin():
    with pytest.raises(ConfigError, match=r"'slots' \(corescheduler\[slots\]\) is not a TaskSelector"):
        harness({"task_selector": "slots"})


def test_misspelled_hook_fails_loudly_at_load():
    with pytest.raises(PluginLoadError) as info:
        harness({"task_selector": "typo"}, plugins={"typo": fakes.Misspelled})
    msg = str(info.value)
    assert "[typo]" in msg
    assert "cs_selekt_task" in msg


def test_misspelled_hook_on_a_listener_fails_too():
    with pytest.raises(PluginLoadError, match="cs_selekt_task"):
        harness({"listeners": ["typo"]}, plugins={"typo": fakes.Misspelled})


def test_hook_asking_for_an_argument_the_spec_lacks_fails_at_load():
    with pytest.raises(PluginLoadError) as info:
        harness({"task_selector": "wrong"}, plugins={"wrong": fakes.WrongArgument})
    assert "[wrong]" in str(info.value)
    assert "slot" in str(info.value)


# =========================================================================== settings

STRICT_TOML = """\
[scheduler]
task_selector = "strict"

[plugins.strict]
delay = {value}
"""


def test_bad_plugin_setting_names_table_key_range_and_line():
    with pytest.raises(ConfigError) as info:
        ClusterHarness(config=STRICT_TOML.format(value="-1"), plugins={"strict": fakes.Strict})
    msg = str(info.value)
    assert "[plugins.strict] delay" in msg
    assert "must be ≥ 0" in msg
    assert "-1" in msg
    assert msg.startswith("<harness config>:5:")  # the line of `delay = -1`


def test_wrongly_typed_plugin_setting_says_what_was_expected():
    with pytest.raises(ConfigError, match=r"\[plugins.strict\] delay: expected a number, got 'soon'"):
        ClusterHarness(config=STRICT_TOML.format(value='"soon"'), plugins={"strict": fakes.Strict})


def test_unknown_plugin_setting_is_reported():
    config = STRICT_TOML.format(value="1") + "dealy = 2\n"
    with pytest.raises(ConfigError, match=r"\[plugins.strict\] dealy: unknown setting"):
        ClusterHarness(config=config, plugins={"strict": fakes.Strict})


def test_good_plugin_settings_reach_the_plugin():
    h = ClusterHarness(config=STRICT_TOML.format(value="2.5"), plugins={"strict": fakes.Strict})
    assert h.scheduler.plugins.instances["strict"].delay == 2.5


@pytest.mark.parametrize("target", [fakes.NoSettings, fakes.NoSettings()], ids=["class", "object"])
def test_plugin_that_takes_no_settings_rejects_them(target):
    config = {"scheduler": {"task_selector": "plain"}, "plugins": {"plain": {"delay": 1}}}
    with pytest.raises(ConfigError, match=r"\[plugins.plain\] this plugin takes no settings"):
        ClusterHarness(config=config, plugins={"plain": target})


def test_plugin_that_takes_no_settings_loads_without_them():
    h = harness({"task_selector": "plain"}, plugins={"plain": fakes.NoSettings})
    h.submit(maps=1)
    assert [a.task for a in h.heartbeat("n0000")] == ["job_0001_m_000000"]


# =========================================================================== running hooks


def test_plugin_hook_error_is_one_plugin_execution_error():
    h = harness({"task_selector": "boom"}, plugins={"boom": fakes.Exploding})
    h.submit(maps=1)
    with pytest.raises(PluginExecutionError) as info:
        h.heartbeat("n0001")
    err = info.value
    assert str(err) == "running TaskSelector plugin 'boom' (<in-process>[boom]): RuntimeError: kaboom on n0001"
    assert (err.point, err.plugin, err.origin) == ("TaskSelector", "boom", "<in-process>[boom]")
    assert type(err.__cause__) is RuntimeError  # the original, not wrapped twice
    assert str(err.__cause__) == "kaboom on n0001"


class _Checker:
    """A TaskSelector whose failure happens in a helper it calls."""

    def __init__(self, settings):
        self.fail_on = settings.get("fail_on")

    def _pick(self, job, node):
        if node.name == self.fail_on:
            raise KeyError(f"no {node.name}")
        return job.pending_task("map")

    @hookimpl
    def cs_select_task(self, job, node):
        return self._pick(job, node)


def test_error_in_a_helper_the_plugin_calls_is_blamed_on_the_plugin():
    h = harness({"task_selector": "checker"}, plugins={"checker": _Checker})
    h.scheduler.plugins.instances["checker"].fail_on = "n0001"
    h.submit(maps=2)
    assert len(h.heartbeat("n0000")) == 1
    with pytest.raises(PluginExecutionError, match=r"^running TaskSelector plugin 'checker' .*KeyError"):
        h.heartbeat("n0001")


def test_one_class_under_two_plugin_names_blames_the_one_that_failed():
    # The same class serves a listener and the task selector: the instance on the
    # traceback (``self``) tells which plugin name failed.
    class Twice(_Checker):
        @hookimpl
        def cs_job_added(self, job):
            if self.fail_on == "submit":
                raise RuntimeError("listener failed")

    config = {"scheduler": {"task_selector": "first", "listeners": ["second"]},
              "plugins": {"first": {"fail_on": "n0001"}, "second": {"fail_on": "submit"}}}
    h = ClusterHarness(config=config, plugins={"first": Twice, "second": Twice})
    with pytest.raises(PluginExecutionError) as info:
        h.submit(maps=1)
    assert (info.value.point, info.value.plugin) == ("Listener", "second")
    h.scheduler.plugins.instances["second"].fail_on = None
    h.submit(maps=1)
    with pytest.raises(PluginExecutionError) as info:
        h.heartbeat("n0001")
    assert (info.value.point, info.value.plugin) == ("TaskSelector", "first")


def _logged(fn):
    """An ordinary decorator: its wrapper's code is shared by every hook it wraps."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


def test_hooks_sharing_a_decorator_are_blamed_on_the_right_plugin_and_point():
    class Adjuster:
        @hookimpl
        @_logged
        def cs_adjust_weight(self, job, weight):
            return weight

    class Selector:
        @hookimpl
        @_logged
        def cs_select_task(self, job, kind):
            raise ValueError("selector bug")

    class Both(Adjuster, Selector):
        pass

    for plugins, scheduler in (
        ({"adj": Adjuster, "sel": Selector}, {"weight_adjusters": ["adj"], "task_selector": "sel"}),
        ({"both": Both}, {"weight_adjusters": ["both"], "task_selector": "both"}),
    ):
        h = ClusterHarness(config={"scheduler": scheduler}, plugins=plugins)
        h.submit(maps=1)
        with pytest.raises(PluginExecutionError) as info:
            h.heartbeat("n0000")
        assert (info.value.point, info.value.plugin) == ("TaskSelector", scheduler["task_selector"])


def test_core_errors_raised_after_a_plugin_returned_are_not_blamed_on_it():
    class WrongTask:
        @hookimpl
        def cs_select_task(self, job):
            return job.tasks["reduce"][0]  # not a pending map: the core refuses it

    h = harness({"task_selector": "wrong"}, plugins={"wrong": WrongTask})
    h.submit(maps=1, reduces=1)
    with pytest.raises(SchedulerStateError,
                       match=r"TaskSelector plugin 'wrong' .*cs_select_task returned .*expected a pending map") as info:
        h.heartbeat("n0000")
    assert not isinstance(info.value, PluginExecutionError)


def test_weight_adjuster_error_names_its_extension_point():
    with pytest.raises(PluginExecutionError) as info:
        h = harness({"weight_adjusters": ["bad_weight"]}, plugins={"bad_weight": fakes.ExplodingAdjuster})
        h.submit(maps=1)
    assert str(info.value).startswith("running WeightAdjuster plugin 'bad_weight' (<in-process>[bad_weight]): ")
    assert "ZeroDivisionError: weight of job_0001" in str(info.value)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


@pytest.mark.parametrize(
    ("order", "expected"),
    [(["z_mul", "a_add"], 1.0 * 3 + 1), (["a_add", "z_mul"], (1.0 + 1) * 3)],
)
def test_weight_adjusters_run_in_config_order(order, expected):
    # Registration order (the dict) and discovery order (names) both differ
    # from one of the config orders: only the config's counts.
    plugins = {"z_mul": fakes.Multiply, "a_add": fakes.Add}
    h = harness({"weight_adjusters": order}, plugins=plugins)
    job = h.submit(maps=1)
    assert h.job(job).sched["map"].weight == expected
    assert h.job(job).sched["reduce"].weight == expected


def test_weight_adjuster_chain_starts_from_the_priority_weight():
    h = harness({"weight_adjusters": ["z_mul"]}, plugins={"z_mul": fakes.Multiply})
    job = h.submit(maps=1, priority="VERY_HIGH")
    assert h.job(job).sched["map"].weight == 4.0 * 3


def test_weight_adjuster_returning_none_keeps_the_weight():
    plugins = {"none": fakes.NoOpinion, "add": fakes.Add}
    h = harness({"weight_adjusters": ["add", "none"]}, plugins=plugins)
    job = h.submit(maps=1, priority="HIGH")
    assert h.job(job).sched["map"].weight == 3.0


def test_hookimpl_may_declare_some_parameters_in_any_order():
    # LowestIndex.cs_select_task(self, kind, job): two of four, reversed.
    h = harness({"task_selector": "lowest"}, plugins={"lowest": fakes.LowestIndex})
    h.submit(maps=2, reduces=1)
    assert [(a.task, a.kind) for a in h.heartbeat("n0000")] == [("job_0001_m_000000", "map")]
    assert [(a.task, a.kind) for a in h.heartbeat("n0000")] == [("job_0001_r_000000", "reduce")]


# =========================================================================== notifications


def test_notification_hooks_reach_a_listener():
    rec = fakes.Recorder()
    h = harness(
        {"task_selector": "node_local", "listeners": ["rec"]}, plugins={"node_local": fakes.NodeLocalOnly, "rec": rec}
    )
    h.advance(1.0)
    job = h.submit(maps=1, pool="poolA", map_locations=[["n0001"]])
    assert rec.details("cs_job_added") == [(job.id, "poolA", 1.0)]
    assert "cs_update" in rec.hooks()[rec.hooks().index("cs_job_added") :]  # the update after submission

    h.advance(1.0)
    assert h.heartbeat("n0000") == []  # only node-local maps: the job is skipped
    assert rec.details("cs_heartbeat_start")[-1] == ("n0000", 2.0)
    assert rec.details("cs_heartbeat_end")[-1] == ("n0000", [], [job.id], 2.0)

    (assignment,) = h.heartbeat("n0001")
    assert rec.details("cs_task_started") == [(assignment.task, "n0001", "node", 2.0)]
    assert rec.details("cs_heartbeat_end")[-1] == ("n0001", [assignment.task], [], 2.0)

    h.kill(assignment)
    assert rec.details("cs_task_preempted") == [(assignment.task, "n0001", 2.0)]
    (again,) = h.heartbeat("n0001")

    h.advance(3.0)
    h.finish(again)
    assert rec.details("cs_task_finished") == [(again.task, "n0001", 5.0)]
    assert rec.details("cs_job_removed") == [(job.id, 5.0)]
    hooks = rec.hooks()
    assert hooks.index("cs_task_finished") < hooks.index("cs_job_removed")
    assert set(hooks) == {
        "cs_job_added", "cs_update", "cs_heartbeat_start", "cs_heartbeat_end",
        "cs_task_started", "cs_task_preempted", "cs_task_finished", "cs_job_removed",
    }  # fmt: skip


def test_listeners_are_notified_in_config_order():
    log: list[tuple[str, str]] = []
    first, second = fakes.Recorder("b", log), fakes.Recorder("a", log)
    h = harness({"listeners": ["b", "a"]}, plugins={"a": second, "b": first})
    h.submit(maps=1)
    added = [label for label, hook in log if hook == "cs_job_added"]
    assert added == ["b", "a"]


def test_a_plugin_not_in_use_is_not_notified():
    rec = fakes.Recorder()
    h = harness({}, plugins={"rec": rec})  # available, not selected
    h.submit(maps=1)
    assert rec.calls == []


# =========================================================================== a third-party distribution

THIRD_PARTY = "highest_index"
THIRD_PARTY_DIST = "cs-thirdparty-fake"


def _pip_install_target(source: Path, work: Path, name: str) -> Path:
    """Build and install ``source`` (a project folder) into ``work/name-site``
    with pip, offline; returns the folder to put on ``PYTHONPATH``."""
    copy = work / f"{name}-src"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    site = work / f"{name}-site"
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
           "--disable-pip-version-check", "--quiet", "--target", str(site), str(copy)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"pip install failed:\n{done.stdout}\n{done.stderr}"
    return site


@pytest.fixture(scope="module")
def third_party_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _pip_install_target(FAKES_DIR / "thirdparty", tmp_path_factory.mktemp("thirdparty"), "thirdparty")


def _env(site: Path, marker: Path | None = None, autoload: bool = True) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), *filter(None, [env.get("PYTHONPATH")])])
    env.pop(DISABLE_AUTOLOAD_ENV, None)
    if not autoload:
        env[DISABLE_AUTOLOAD_ENV] = "1"
    if marker is not None:
        env["CS_FAKE_MARKER"] = str(marker)
    return env


def _probe(mode: str, site: Path, marker: Path, tmp_path: Path, autoload: bool = True) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(FAKES_DIR / "probe_thirdparty.py"), mode],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=_env(site, marker, autoload),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow
def test_third_party_plugin_is_discovered_selected_and_run(third_party_site, tmp_path):
    marker = tmp_path / "imported.txt"
    out = _probe("select", third_party_site, marker, tmp_path)
    assert out["found"] == {
        "dist": THIRD_PARTY_DIST,
        "version": "1.2.3",
        "value": "cs_thirdparty_fake:HighestIndexFirst",
    }
    assert out["imported_after_discovery"] is False  # discovery reads metadata only
    assert out["listed"] == [
        {"dist": THIRD_PARTY_DIST, "version": "1.2.3", "hooks": ["cs_select_task"], "points": ["TaskSelector"],
         "error": None},
    ]  # fmt: skip
    assert out["assigned"] == ["job_0001_m_000002"]  # its hook chose the task (locality would take m_000000)
    origins = {p["name"]: p["origin"] for p in out["in_use"]}
    assert origins[THIRD_PARTY] == f"{THIRD_PARTY_DIST}[{THIRD_PARTY}]"
    assert marker.read_text() == "imported\n"  # imported once


@pytest.mark.slow
def test_blocked_third_party_plugin_is_never_imported(third_party_site, tmp_path):
    marker = tmp_path / "imported.txt"
    out = _probe("blocked", third_party_site, marker, tmp_path)
    assert out["found"]["dist"] == THIRD_PARTY_DIST  # still discovered (metadata)
    assert out["listed"][0]["error"] == "blocked"
    assert "blocked by [scheduler] blocked_plugins" in out["error"]
    assert out["imported"] is False
    assert not marker.exists()


@pytest.mark.slow
def test_autoload_disabled_hides_third_party_plugins(third_party_site, tmp_path):
    marker = tmp_path / "imported.txt"
    out = _probe("select", third_party_site, marker, tmp_path, autoload=False)
    assert out["found"] is None
    assert out["listed"] == []
    assert out["error"].startswith("ConfigError: ")
    assert f"unknown plugin '{THIRD_PARTY}'" in out["error"]
    available = out["error"].split("available:", 1)[1]
    for name in find_plugins(builtins_only=True):
        assert name in available  # the built-ins stay available
    assert THIRD_PARTY not in available
    assert not marker.exists()


def _cli(site: Path, tmp_path: Path, *args: str, autoload: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "corescheduler", *args],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env=_env(site, tmp_path / "imported.txt", autoload),
    )  # fmt: skip


needs_cli = pytest.mark.skipif(importlib.util.find_spec("corescheduler.cli") is None, reason="no corescheduler.cli yet")


@pytest.mark.slow
@needs_cli
def test_cli_lists_the_third_party_plugin(third_party_site, tmp_path):
    done = _cli(third_party_site, tmp_path, "plugins", "--json")
    assert done.returncode == 0, done.stderr
    for text in (THIRD_PARTY, THIRD_PARTY_DIST, "1.2.3", "cs_select_task", "TaskSelector"):
        assert text in done.stdout


@pytest.mark.slow
@needs_cli
def test_cli_check_selects_the_third_party_plugin_by_name(third_party_site, tmp_path):
    (tmp_path / "corescheduler.toml").write_text(f'[scheduler]\ntask_selector = "{THIRD_PARTY}"\n')
    done = _cli(third_party_site, tmp_path, "check", "corescheduler.toml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "corescheduler.toml: ok" in done.stdout

    done = _cli(third_party_site, tmp_path, "check", "corescheduler.toml", autoload=False)
    assert done.returncode == 1
    assert f"unknown plugin '{THIRD_PARTY}'" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.slow
@needs_cli
def test_cli_listing_does_not_import_a_blocked_plugin(third_party_site, tmp_path):
    (tmp_path / "corescheduler.toml").write_text(f'[scheduler]\nblocked_plugins = ["{THIRD_PARTY}"]\n')
    done = _cli(third_party_site, tmp_path, "plugins", "--config", "corescheduler.toml")
    assert done.returncode == 0, done.stderr
    assert THIRD_PARTY in done.stdout and "blocked" in done.stdout
    assert not (tmp_path / "imported.txt").exists()


@pytest.mark.slow
def test_docs_example_package_installs_and_its_tests_pass(tmp_path):
    """The tutorial's package (docs/examples) builds, installs, is found by
    its entry point, and its own tests pass against the installed copy."""
    site = _pip_install_target(EXAMPLE, tmp_path, "example")
    tests = tmp_path / "example-src"  # the copy pip built from
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests"],
        capture_output=True, text=True, timeout=300, cwd=tests, env=_env(site),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "skipped" not in done.stdout  # the installed-plugin test ran too
