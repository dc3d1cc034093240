"""The ``corescheduler`` command line: the group, ``plugins`` and ``check``
(``shares`` is in test_shares_command.py)."""

from __future__ import annotations

import importlib.metadata as md
import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import assert_user_error, run
from paths import DATA

from corescheduler import __version__, cli, plugin_manager
from corescheduler.cli import main
from corescheduler.cli.plugins import CONFIG_POINTS

BUILTINS = {
    "property": ["PoolResolver"],
    "slots": ["LoadManager"],
    "locality": ["TaskSelector"],
    "fair": ["SharePolicy"],
    "fifo": ["SharePolicy"],
    "newest": ["VictimSelector"],
}

GOOD_XML = """\
<?xml version="1.0"?>
<allocations>
  <pool name="prod">
    <minMaps>10</minMaps>
    <weight>2.0</weight>
  </pool>
  <pool name="batch">
    <schedulingMode>fifo</schedulingMode>
  </pool>
  <userMaxJobsDefault>5</userMaxJobsDefault>
</allocations>
"""




@pytest.fixture
def files(tmp_path: Path):
    def write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


# --------------------------------------------------------------------------- the group


def test_version():
    result = run("--version")
    assert result.exit_code == 0
    assert __version__ in result.stdout


def test_help_lists_commands():
    result = run("--help")
    assert result.exit_code == 0
    for name in ("plugins", "check", "shares"):
        assert name in result.stdout


def test_unknown_command_is_usage_error():
    result = run("frobnicate")
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_console_script_version():
    script = Path(sys.executable).with_name("corescheduler")
    if not script.exists():
        pytest.skip("console script not installed next to this interpreter")
    proc = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert __version__ in proc.stdout


def test_python_dash_m_help():
    proc = subprocess.run([sys.executable, "-m", "corescheduler", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "plugins" in proc.stdout and "check" in proc.stdout


def test_real_process_user_error_is_one_line(tmp_path: Path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[scheduler]\ntask_selector = 'nope'\n")
    proc = subprocess.run(
        [sys.executable, "-m", "corescheduler", "plugins", "--config", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
    assert "Traceback" not in proc.stderr


def test_main_accepts_argv(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert __version__ in capsys.readouterr().out


LAZY_MODULE = """
import click
from corescheduler.errors import WorkloadError

@click.command("hello")
@click.option("--fail", is_flag=True)
def hello(fail):
    \"\"\"Say hello.\"\"\"
    if fail:
        raise WorkloadError("something the user can fix", "w.json", 3)
    click.echo("hello")
"""


def test_lazy_commands_are_loaded_from_their_module(monkeypatch, tmp_path):
    (tmp_path / "cs_lazy_hello.py").write_text(LAZY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli.LAZY_COMMANDS, "hello", "cs_lazy_hello:hello")
    assert "Say hello." in run("--help").stdout
    result = run("hello")
    assert result.exit_code == 0 and result.stdout == "hello\n"
    # a user error raised by a command from another module gets the same treatment
    assert_user_error(run("hello", "--fail"), "w.json:3: something the user can fix")


def test_one_line():
    assert cli.one_line("a\n  b\n\nc") == "a; b; c"


# --------------------------------------------------------------------------- plugins


def test_plugins_lists_builtins_with_extension_points():
    result = run("plugins")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["name", "extension", "points", "hooks", "distribution", "version"]
    rows = {line.split()[0]: line for line in lines[1:]}
    for name, points in BUILTINS.items():
        assert name in rows
        for point in points:
            assert point in rows[name]
        assert "corescheduler" in rows[name] and __version__ in rows[name]
    assert "cs_share_policy" in rows["fair"]  # a share policy is one hook (issue 27)
    assert "cs_resolve_pool, +9 more" in rows["capacity"]  # shortened to fit 100 columns (cs_job_moved: the ninth)
    verbose = {line.split()[0]: line for line in run("plugins", "--verbose").stdout.splitlines()[1:]}
    assert "cs_share_policy" in verbose["capacity"] and "cs_task_preempted" in verbose["capacity"]


def test_plugins_json_parses():
    result = run("plugins", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["config"] is None
    by_name = {row["name"]: row for row in data["plugins"]}
    for name, points in BUILTINS.items():
        row = by_name[name]
        assert row["points"] == points
        assert row["dist"] == "corescheduler" and row["builtin"] is True and row["error"] is None
        assert row["hooks"]
    assert "cs_select_task" in by_name["locality"]["hooks"]


def test_plugins_lists_a_broken_plugin_with_its_error(monkeypatch):
    real = plugin_manager.find_plugins

    def with_broken(builtins_only=None):
        found = real(builtins_only)
        ep = md.EntryPoint(name="broken", value="corescheduler_no_such_module:Plugin", group="corescheduler")
        found["broken"] = plugin_manager.PluginInfo("broken", "broken-dist", "9.9", ep.value, ep)
        return found

    monkeypatch.setattr(plugin_manager, "find_plugins", with_broken)
    result = run("plugins")
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if line.startswith("broken"))
    assert "error:" in row and "broken-dist[broken]" in row and "ModuleNotFoundError" in row
    assert "fair" in result.stdout  # the others are still listed
    data = json.loads(run("plugins", "--json").stdout)
    broken = next(r for r in data["plugins"] if r["name"] == "broken")
    assert "corescheduler_no_such_module" in broken["error"] and broken["hooks"] == []


def test_plugins_with_config_shows_each_extension_point(files):
    config = files("corescheduler.toml", '[scheduler]\nblocked_plugins = ["fifo"]\ntask_selector = "locality"\n')
    result = run("plugins", "--config", str(config))
    assert result.exit_code == 0, result.output
    out = result.stdout
    for key in CONFIG_POINTS:
        assert key in out
    assert "locality (corescheduler[locality])" in out
    fifo_row = next(line for line in out.splitlines() if line.startswith("fifo"))
    assert "blocked" in fifo_row

    data = json.loads(run("plugins", "--config", str(config), "--json").stdout)
    points = data["config"]["extension_points"]
    assert list(points) == list(CONFIG_POINTS)
    assert points["share_policy"] == [{"name": "fair", "origin": "corescheduler[fair]"}]
    assert points["weight_adjusters"] == []
    assert next(r for r in data["plugins"] if r["name"] == "fifo")["error"] == "blocked"


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("[scheduler]\nload_manager = 'nope'\n", [":2:", "unknown plugin 'nope'", "available:", "slots"]),
        ("[scheduler]\ntask_selector = 'fair'\n", [":2:", "is not a TaskSelector"]),
        ("[scheduler\n", [":1:", "invalid TOML"]),
        ("[plugins.property]\nbogus = 1\n", [":2:", "[plugins.property] bogus"]),
    ],
)
def test_plugins_with_bad_config_exits_1(files, text, fragments):
    config = files("bad.toml", text)
    assert_user_error(run("plugins", "--config", str(config)), str(config), *fragments)


def test_plugins_with_missing_config_exits_1(tmp_path):
    assert_user_error(run("plugins", "--config", str(tmp_path / "nope.toml")), "nope.toml", "cannot read")


# --------------------------------------------------------------------------- check


def test_check_good_toml_and_xml(files):
    files("allocations.xml", GOOD_XML)
    config = files("corescheduler.toml", '[scheduler]\nallocation_file = "allocations.xml"\npreemption = true\n')
    other = files("other.xml", "<allocations/>")
    result = run("check", str(config), str(other))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert f"{config}: ok" in lines
    assert f"{config.parent / 'allocations.xml'}: ok" in lines  # named by the config, checked too
    assert f"{other}: ok" in lines
    assert not result.stderr


def test_check_gives_yarns_errors_for_a_yarn_allocation_file(files):
    """``AllocationFileQueueParser.loadQueue``'s checks, with the file and line."""
    good = files("fair-scheduler.xml", '<allocations><queue name="a"><queue name="b"/></queue></allocations>')
    bad = files("bad.xml", '<allocations>\n<queue name="a.b"/>\n<queue name="p"><reservation/>'
                           '<queue name="c"/></queue>\n</allocations>')
    result = run("check", str(good), str(bad))
    assert result.exit_code == 1
    assert f"{good}: ok" in result.stdout
    assert f"{bad}:2: Bad fair scheduler config file: queue name (a.b) shouldn't contain period." in result.stdout
    assert "cannot also include a reservation element" in result.stdout


def test_check_loads_hadoops_documented_fair_scheduler_xml_with_a_warning():
    """Hadoop's FairScheduler.md example (maxAMShare on the parent sample_queue): Hadoop trunk's
    AllocationFileQueueParser.loadQueue refuses it, Hadoop 2.x-3.1 load it; ``check`` says ok, with
    one warning naming the rule and the Hadoop that refuses it."""
    docs = DATA / "hadoop" / "fair-scheduler-docs.xml"
    result = run("check", str(docs))
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stdout.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1, result.output
    assert "root.sample_queue" in warnings[0] and "cannot also include a maxAMShare element" in warnings[0]
    assert "Hadoop's current AllocationFileQueueParser refuses this file" in warnings[0]
    assert f"{docs}: ok" in result.stdout


def test_check_bad_toml_syntax_names_the_line(files):
    config = files("bad.toml", "[scheduler]\npreemption = \n")
    result = run("check", str(config))
    assert result.exit_code == 1
    assert f"{config}:2:" in result.stdout
    assert "Traceback" not in result.output


def test_check_unknown_plugin_lists_available(files):
    config = files("bad.toml", "[scheduler]\nassign_multiple = true\ntask_selector = 'dealy'\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    line = result.stdout.strip()
    assert line.startswith(f"{config}:3:")
    assert "unknown plugin 'dealy'" in line
    assert "available: " in line
    for name in BUILTINS:
        assert name in line


def test_check_bad_plugin_setting(files):
    config = files("bad.toml", "[plugins.property]\npool_name_property = 5\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    assert f"{config}:2:" in result.stdout and "pool_name_property" in result.stdout


def test_check_every_config_problem_on_its_own_line(files):
    config = files("bad.toml", "[scheduler]\npreemption = 'yes'\nupdate_interval = -1\n[nonsense]\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    assert all(line.startswith(f"{config}:") for line in lines)
    assert any(line.startswith(f"{config}:2:") for line in lines)
    assert any(line.startswith(f"{config}:3:") for line in lines)


def test_check_bad_xml_value_names_the_line(files):
    xml = files("bad.xml", '<allocations>\n  <pool name="a">\n    <minMaps>lots</minMaps>\n  </pool>\n</allocations>\n')
    result = run("check", str(xml))
    assert result.exit_code == 1
    assert result.stdout.startswith(f"{xml}:3:")
    assert "minMaps" in result.stdout and "'lots'" in result.stdout
    assert "Traceback" not in result.output


def test_check_xml_warnings_are_printed(files):
    xml = files("warn.xml", '<allocations>\n  <pool name="a"><color>red</color></pool>\n</allocations>\n')
    result = run("check", str(xml))
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        f'warning: {xml}:2: unknown element <color> in <pool name="a"> ignored',
        f"{xml}: ok",
    ]


def test_check_reports_every_file(files, tmp_path):
    good = files("good.toml", "[scheduler]\npreemption = true\n")
    bad_toml = files("bad.toml", "[scheduler]\nload_manager = 'nope'\n")
    bad_xml = files("bad.xml", "<allocations>\n<pool name='a'><weight>heavy</weight></pool>\n</allocations>")
    good_xml = files("good.xml", GOOD_XML)
    missing = tmp_path / "missing.toml"
    result = run("check", str(bad_toml), str(good), str(bad_xml), str(missing), str(good_xml))
    assert result.exit_code == 1
    out = result.stdout
    assert f"{bad_toml}:2:" in out
    assert f"{good}: ok" in out
    assert f"{bad_xml}:2:" in out
    assert f"{missing}: cannot read config" in out
    assert f"{good_xml}: ok" in out
    assert "Traceback" not in result.output


def test_check_config_with_bad_allocation_file(files):
    files("alloc.xml", "<allocations>\n\n<pool name='a'><maxMaps>x</maxMaps></pool></allocations>")
    config = files("c.toml", '[scheduler]\nallocation_file = "alloc.xml"\n')
    result = run("check", str(config))
    assert result.exit_code == 1
    assert f"{config.parent / 'alloc.xml'}:3:" in result.stdout


def test_check_config_with_missing_allocation_file(files):
    config = files("c.toml", '[scheduler]\nallocation_file = "gone.xml"\n')
    result = run("check", str(config))
    assert result.exit_code == 1
    assert "gone.xml: cannot read allocation file" in result.stdout
    assert f"named by {config}:2" in result.stdout


def test_check_scheduling_mode_of_a_blocked_policy(files):
    files("alloc.xml", GOOD_XML)
    config = files("c.toml", '[scheduler]\nallocation_file = "alloc.xml"\nblocked_plugins = ["fifo"]\n')
    result = run("check", str(config))
    assert result.exit_code == 1
    line = next(line for line in result.stdout.splitlines() if "schedulingMode" in line)
    assert line.startswith(f"{config.parent / 'alloc.xml'}:7:")
    assert "'fifo'" in line and "blocked" in line


def test_check_sniffs_other_extensions(files):
    xml = files("fair-scheduler.conf", "\n  <allocations><pool name='x'/></allocations>")
    toml = files("scheduler.conf", "[scheduler]\npreemption = true\n")
    bad = files("broken.cfg", "<allocations><pool></allocations>")
    result = run("check", str(xml), str(toml), str(bad))
    assert result.exit_code == 1
    assert f"{xml}: ok" in result.stdout
    assert f"{toml}: ok" in result.stdout
    assert f"{bad}:1:" in result.stdout


def test_check_same_file_once(files):
    xml = files("a.xml", GOOD_XML)
    result = run("check", str(xml), str(xml))
    assert result.stdout.splitlines() == [f"{xml}: ok"]


def test_check_needs_a_file():
    result = run("check")
    assert result.exit_code == 2


def test_no_traceback_with_plain_environment(files):
    """The commands never print a traceback for user errors (env without a terminal)."""
    config = files("bad.toml", "[cluster]\nracks = 0\n")
    for args in (["check", str(config)], ["plugins", "--config", str(config)]):
        result = run(*args)
        assert result.exit_code == 1
        assert "Traceback" not in result.output
        assert "racks" in result.output


def test_check_reads_simulation_and_suggests_a_close_plugin_key(tmp_path) -> None:
    (tmp_path / "s.toml").write_text('[simulation]\nshuffle = "yes"\n', encoding="utf-8")
    result = run("check", str(tmp_path / "s.toml"))
    assert result.exit_code == 1 and "s.toml:2: [simulation] shuffle: expected one of" in result.output
    (tmp_path / "p.toml").write_text('[scheduler]\ntask_selector = "cogrs"\n[plugins.cogrs]\ntolerence = 0.5\n',
                                     encoding="utf-8")
    result = run("check", str(tmp_path / "p.toml"))
    assert result.exit_code == 1 and "did you mean 'tolerance'?" in result.output
