"""``corescheduler check`` on bad configs (issue 25): every problem of every section
at once (item 10), ``[plugins.NAME]`` tables that do nothing (item 9), numbers that
must be finite and nesting too deep to walk (item 7).  The configs are in
``tests/data/configs``."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import assert_user_error, run
from paths import DATA

from corescheduler.config import MAX_DEPTH, Config
from corescheduler.errors import ConfigError
from corescheduler.testing import ClusterHarness

CONFIGS = DATA / "configs"
WORKLOAD = str(DATA / "workloads" / "spec-example.json")


@pytest.fixture
def files(tmp_path: Path):
    def write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


# --------------------------------------------------------------------------- item 10: all problems


def test_check_reports_every_problem_of_every_section_in_the_files_order():
    config = CONFIGS / "errors-everywhere.toml"
    result = run("check", str(config))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    expected = {
        4: "[scheduler] mode: expected one of 'slots', 'resources', got 'banana'",
        5: "[scheduler] task_selector: unknown plugin 'dealy'",
        6: "[scheduler] update_interval: must be ≥ 0.001, got -1",
        7: "[scheduler] victim_selector: plugin 'fair' (corescheduler[fair]) is not a VictimSelector",
        11: "[cluster] racks: must be ≥ 1, got 0",
        12: "[cluster] heartbeat_interval: expected a finite number, got inf",
        15: "[plugins.new_job_booster] factor: must be > 0, got -2",
        17: "[plugins.fair] this plugin takes no settings",
        21: "[simulation] stall_timeout: must be > 0, got -3",
        22: "[simulation] copy_fraction: must be ≤ 1, got 7",
        23: "[simulation] block_size: must be ≥ 1, got 0",
    }
    assert len(lines) == len(expected), result.stdout
    for line, (number, text) in zip(lines, sorted(expected.items())):
        assert line.startswith(f"{config}:{number}: {text}"), line
    assert "Traceback" not in result.output


def test_check_reports_the_plugins_problems_beside_the_scheduler_tables(files):
    """The plugins are checked even when ``[scheduler]`` or ``[cluster]`` has a bad value."""
    config = files("c.toml", '[scheduler]\npreemption = "yes"\ntask_selector = "cogrs"\n'
                             '[cluster]\nmap_slots = -1\n[plugins.cogrs]\ntolerence = 0.5\n')
    result = run("check", str(config))
    assert result.exit_code == 1
    assert [line.split(":")[1] for line in result.stdout.splitlines()] == ["2", "5", "7"]
    assert "did you mean 'tolerance'?" in result.stdout.splitlines()[2]


def test_check_reports_every_bad_plugin_not_only_the_first(files):
    config = files("c.toml", '[scheduler]\npool_resolver = ["propery"]\nweight_adjusters = ["new_job_booster"]\n'
                             'load_manager = "fifo"\nlisteners = ["nobody"]\n'
                             '[plugins.new_job_booster]\nduration = -1\n')
    result = run("check", str(config))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 4, result.stdout
    assert "unknown plugin 'propery'" in lines[0]
    assert "plugin 'fifo' (corescheduler[fifo]) is not a LoadManager" in lines[1]
    assert "unknown plugin 'nobody'" in lines[2]
    assert "[plugins.new_job_booster] duration: must be ≥ 0, got -1" in lines[3]


def test_check_still_checks_the_allocation_file_of_a_bad_config(files):
    files("a.xml", "<allocations>\n<pool name='p'><minMaps>lots</minMaps></pool>\n</allocations>\n")
    config = files("c.toml", '[scheduler]\nallocation_file = "a.xml"\nreduce_slowstart = 2\n')
    result = run("check", str(config))
    assert result.exit_code == 1
    assert f"{config}:3: [scheduler] reduce_slowstart" in result.stdout
    assert f"{config.parent / 'a.xml'}:2:" in result.stdout
    assert f"{config}: ok" not in result.stdout


def test_config_loading_outside_check_still_raises_every_table_problem_at_once():
    with pytest.raises(ConfigError) as info:
        Config.from_toml("[scheduler]\nmode = 1\n[cluster]\nracks = 0\n", source="c.toml")
    assert [p.split(":")[1] for p in info.value.problems] == ["2", "4"]


# --------------------------------------------------------------------------- item 9: tables with no effect


def test_check_warns_about_plugin_tables_that_do_nothing():
    config = CONFIGS / "unused-plugin-tables.toml"
    result = run("check", str(config))
    assert result.exit_code == 0, result.output  # warnings, not errors
    warnings = [line for line in result.stdout.splitlines() if line.startswith("warning: ")]
    assert warnings == [
        f"warning: {config}:7: [plugins.dealy]: no plugin named 'dealy' is installed, so this table has no "
        "effect; did you mean [plugins.delay]?",
        f"warning: {config}:10: [plugins.size_based]: plugin 'size_based' is not selected by [scheduler] or "
        "the allocation file, so this table has no effect",
    ]  # [plugins.fifo] is used: the allocation file names fifo as a schedulingMode
    assert f"{config}: ok" in result.stdout


def test_an_unknown_plugin_table_far_from_any_name_gets_no_suggestion(files):
    config = files("c.toml", "[plugins.zzzzqqq]\nx = 1\n")
    result = run("check", str(config))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == (
        f"warning: {config}:1: [plugins.zzzzqqq]: no plugin named 'zzzzqqq' is installed, so this table has no effect"
    )


def test_a_selected_plugin_table_gets_no_warning(files):
    config = files("c.toml", '[scheduler]\ntask_selector = "delay"\n[plugins.delay]\nnode_locality_delay = 2\n')
    result = run("check", str(config))
    assert result.exit_code == 0 and "warning" not in result.output


def test_simulate_warns_about_plugin_tables_that_do_nothing(tmp_path):
    config = CONFIGS / "unused-plugin-tables.toml"
    result = run("simulate", "--config", str(config), "--workload", WORKLOAD, "--out", str(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    assert f"warning: {config}:7: [plugins.dealy]: no plugin named 'dealy'" in result.stderr
    assert "[plugins.size_based]" in result.stderr and "[plugins.fifo]" not in result.stderr


# --------------------------------------------------------------------------- item 7: finite numbers


INFINITE = [
    ("cluster", "heartbeat_interval"),
    ("cluster", "heartbeats_per_second"),
    ("cluster", "core_bandwidth"),
    ("scheduler", "update_interval"),
    ("scheduler", "preemption_interval"),
    ("simulation", "update_interval"),
    ("simulation", "stall_timeout"),
    ("simulation", "sample_interval"),
    ("simulation", "rack_local_map_slowdown"),
    ("simulation", "map_rate"),
    ("simulation", "task_overhead"),
]


@pytest.mark.parametrize("value", ["inf", "-inf", "+inf"])
@pytest.mark.parametrize(("table", "key"), INFINITE)
def test_check_refuses_an_infinite_interval_or_number(files, table, key, value):
    config = files("c.toml", f"[{table}]\n{key} = {value}\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    shown = "-inf" if value == "-inf" else "inf"
    assert result.stdout == f"{config}:2: [{table}] {key}: expected a finite number, got {shown}\n"


def test_simulate_refuses_an_infinite_heartbeat_interval_before_running(files, tmp_path):
    """It passed ``check`` and then failed in the run with "cannot convert float NaN to integer"."""
    config = files("c.toml", "[cluster]\nheartbeat_interval = inf\n")
    result = run("simulate", "--config", str(config), "--workload", WORKLOAD, "--out", str(tmp_path / "o"))
    assert_user_error(result, f"{config}:2: [cluster] heartbeat_interval: expected a finite number, got inf")
    assert not (tmp_path / "o").exists()


def test_the_harness_refuses_an_infinite_update_interval():
    with pytest.raises(ConfigError, match=r"\[scheduler\] update_interval: expected a finite number, got inf"):
        ClusterHarness(config="[scheduler]\nupdate_interval = inf\n")


def test_a_plugin_setting_where_infinity_means_forever_still_takes_it(files):
    config = files("c.toml", '[scheduler]\nweight_adjusters = ["new_job_booster"]\n'
                             "[plugins.delay]\nnode_locality_delay = inf\nrack_locality_delay = inf\n"
                             "[plugins.new_job_booster]\nduration = inf\n")
    result = run("check", str(config))
    assert result.exit_code == 0, result.output
    h = ClusterHarness(config=config.read_text())
    assert h.scheduler.plugins.instances["delay"].node_delay == float("inf")


def test_a_plugin_setting_is_finite_unless_the_plugin_says_otherwise(files):
    config = files("c.toml", '[scheduler]\nload_manager = "cap_based"\n[plugins.cap_based]\nmax_diff = inf\n')
    result = run("check", str(config))
    assert result.exit_code == 1
    assert f"{config}:4: [plugins.cap_based] max_diff: expected a finite number, got inf" in result.stdout


# --------------------------------------------------------------------------- item 7: nesting


@pytest.mark.parametrize(
    "value",
    ["[" * 5000 + "1" + "]" * 5000, "{a = " * 5000 + "1" + "}" * 5000, "[" * 990 + "]" * 990],
    ids=["arrays", "inline-tables", "arrays-990"],
)
def test_check_refuses_deep_nesting_with_one_line_naming_the_file(files, value):
    config = files("deep.toml", f"[simulation]\nx = {value}\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{config}: invalid TOML: arrays or inline tables nested too deeply (a config needs at most {MAX_DEPTH} "
        "levels)"
    ]
    assert "Traceback" not in result.output and "RecursionError" not in result.output


def test_simulate_refuses_deep_nesting_as_a_user_error(files, tmp_path):
    config = files("deep.toml", "[scheduler]\nmode = " + "[" * 5000 + "]" * 5000 + "\n")
    result = run("simulate", "--config", str(config), "--workload", WORKLOAD, "--out", str(tmp_path / "o"))
    assert_user_error(result, str(config), "nested too deeply")


@pytest.mark.parametrize(("table", "header"), [("simulation", "[simulation]"), ("plugins.cogrs", "[plugins.cogrs]")])
def test_nesting_past_the_limit_names_the_table_and_key(files, table, header):
    depth = MAX_DEPTH + 5
    config = files("deep.toml", f"{header}\nx = {'[' * depth}1{']' * depth}\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    assert f"{config}:2: [{table}] x: nested more than {MAX_DEPTH} levels deep" in result.stdout


def test_a_long_bad_value_is_cut_in_the_message(files):
    config = files("c.toml", "[scheduler]\nmode = " + "[" * 50 + "]" * 50 + "\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    message = result.stdout.strip()
    assert message.endswith("got " + "[" * 50 + "]" * 9 + "…"), message  # 60 characters shown
    assert len(message) < len(str(config)) + 120


def test_config_nested_within_the_limit_is_read(tmp_path: Path):
    depth = MAX_DEPTH - 2
    Config.from_toml(f"[service]\nx = {'[' * depth}1{']' * depth}\n", source="ok.toml")


def test_check_reads_the_service_table_too(files):
    config = files("c.toml", "[scheduler]\nmode = 3\n[service]\ntick = inf\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{config}:2: [scheduler] mode: expected a non-empty string, got 3",
        f"{config}:4: [service] tick: expected seconds in (0, 60], got inf",
    ]


def test_an_integer_of_thousands_of_digits_is_one_error_naming_the_file(files):
    config = files("big.toml", "[cluster]\nracks = " + "9" * 5000 + "\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    assert result.stdout == f"{config}: invalid TOML: an integer of more than 4300 digits; TOML's integers are 64-bit\n"


@pytest.mark.parametrize(("key", "value", "shown"), [
    ("map_slots", str(2**63), str(2**63)),
    ("racks", "9" * 4000, "an integer of about 4001 digits"),
    ("heartbeat_interval", "1" + "0" * 400, "an integer of about 401 digits"),  # float() of it overflowed
])
def test_an_integer_beyond_64_bits_is_refused(files, key, value, shown):
    config = files("big.toml", f"[cluster]\n{key} = {value}\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    assert result.stdout.startswith(f"{config}:2: [cluster] {key}: expected a ")
    assert result.stdout.endswith(f" that fits in 64 bits (as TOML's integers), got {shown}\n")


def test_the_warning_says_when_only_the_builtins_are_seen(files, monkeypatch):
    monkeypatch.setenv("CORESCHEDULER_DISABLE_PLUGIN_AUTOLOAD", "1")
    config = files("c.toml", "[plugins.my_thirdparty]\nx = 1\n")
    result = run("check", str(config))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1].endswith(
        "so this table has no effect (CORESCHEDULER_DISABLE_PLUGIN_AUTOLOAD is set: built-ins only)"
    )


def test_an_allocation_file_also_given_on_the_command_line_still_counts_as_using_its_policies():
    config = CONFIGS / "unused-plugin-tables.toml"
    result = run("check", str(CONFIGS / "unused-plugin-tables.xml"), str(config))
    assert result.exit_code == 0, result.output
    assert "[plugins.fifo]" not in result.stdout and "[plugins.size_based]" in result.stdout


def test_check_warns_of_slot_mode_only_plugins_in_resource_mode(files):
    config = CONFIGS / "resources-slot-only-plugins.toml"
    result = run("check", str(config))
    assert result.exit_code == 0, result.output  # a warning, not an error
    warnings = [line for line in result.stdout.splitlines() if line.startswith("warning: ")]
    assert warnings == [
        f"warning: {config}:4: [scheduler] load_manager = 'cap_based' has no effect in resource mode "
        '(mode = "resources"): its hooks (cs_can_assign) are slot mode only (docs/hooks.md)',
    ]  # delay and fair have hooks resource mode asks; the resource-mode defaults are not warned of
    slots = files("s.toml", '[scheduler]\nload_manager = "cap_based"\n')
    assert "warning" not in run("check", str(slots)).output
    plain = files("r.toml", '[scheduler]\nmode = "resources"\n')
    assert "warning" not in run("check", str(plain)).output


def test_yarn_scheduling_policies_put_their_plugin_tables_to_use(files):
    """A YARN file's schedulingPolicy / defaultQueueSchedulingPolicy selects a policy: its
    [plugins.NAME] table is in use (no 'no effect' warning), and check validates its
    settings as simulate does (was: a warning, 'ok', then simulate failing)."""
    alloc = files("a.xml", '<allocations>\n  <queue name="root"><schedulingPolicy>drf</schedulingPolicy>\n'
                           '    <queue name="a"/>\n  </queue>\n</allocations>\n')
    good = files("good.toml", f'[scheduler]\nmode = "resources"\nallocation_file = "{alloc.name}"\n\n[plugins.drf]\n')
    result = run("check", str(good))
    assert result.exit_code == 0, result.output
    assert "no effect" not in result.output
    bad = files("bad.toml", f'[scheduler]\nmode = "resources"\nallocation_file = "{alloc.name}"\n\n'
                            "[plugins.drf]\nx = 1\n")
    result = run("check", str(bad))
    assert result.exit_code == 1, result.output
    assert f"{alloc}:2: queue 'root' schedulingPolicy 'drf' cannot be used with {bad}" in result.output
    assert f"{bad}:5: [plugins.drf] this plugin takes no settings" in result.output
    assert "no effect" not in result.output
    default = files("d.xml", "<allocations>\n  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>\n"
                             "</allocations>\n")
    config = files("d.toml", f'[scheduler]\nmode = "resources"\nallocation_file = "{default.name}"\n\n[plugins.drf]\n')
    result = run("check", str(config))
    assert result.exit_code == 0 and "no effect" not in result.output, result.output


def test_simulation_users_and_pools_are_bounded(files):
    """users = 10**9 passed check and then ran out of memory building user names."""
    config = files("u.toml", "[simulation]\nusers = 1000000000\npools = 2e6\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    assert f"{config}:2: [simulation] users: must be ≤ 1e+06, got 1000000000" in result.output
    assert f"{config}:3: [simulation] pools: must be ≤ 1e+06, got 2000000.0" in result.output
    assert run("check", str(files("ok.toml", "[simulation]\nusers = 1000000\npools = 1000000\n"))).exit_code == 0


def test_intervals_are_at_least_a_millisecond(files):
    """update_interval = 1e-7 passed check and then spun through empty updates."""
    config = files("iv.toml", "[scheduler]\nupdate_interval = 1e-7\n[cluster]\nheartbeat_interval = 1e-300\n"
                              "[simulation]\nupdate_interval = 0.0001\nsample_interval = 1e-9\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    for line, key in ((2, "[scheduler] update_interval"), (4, "[cluster] heartbeat_interval"),
                      (6, "[simulation] update_interval"), (7, "[simulation] sample_interval")):
        assert f"{config}:{line}: {key}: must be ≥ 0.001" in result.output, result.output
    ok = files("ok.toml", "[scheduler]\nupdate_interval = 0.001\n[cluster]\nheartbeat_interval = 0.001\n")
    assert run("check", str(ok)).exit_code == 0


def test_each_scheduler_key_naming_a_bad_plugin_is_reported_with_its_line(files):
    """The stand-in for the first failed 'nope' used to swallow the later keys' problems."""
    config = files("s.toml", '[scheduler]\nshare_policy = "nope"\nvictim_selector = "nope"\ntask_selector = "nope"\n')
    result = run("check", str(config))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert [line.split(" unknown plugin")[0] for line in lines] == [
        f"{config}:2: [scheduler] share_policy:", f"{config}:3: [scheduler] victim_selector:",
        f"{config}:4: [scheduler] task_selector:"], lines


def test_a_plugin_at_the_wrong_extension_point_is_one_problem(files):
    config = files("d.toml", '[scheduler]\nshare_policy = "delay"\n')
    result = run("check", str(config))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{config}:2: [scheduler] share_policy: plugin 'delay'"), lines


def test_every_service_problem_is_reported(files):
    config = files("sv.toml", "[service]\nthreads = -1\nworkers = -1\ntick = inf\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{config}:2: [service] threads: expected a whole number ≥ 1, got -1",
        f"{config}:3: [service] workers: expected a whole number ≥ 1, got -1",
        f"{config}:4: [service] tick: expected seconds in (0, 60], got inf",
    ]


def test_cluster_size_names_the_key_too_big_with_its_line(files):
    config = files("c.toml", "[cluster]\nracks = 2000000\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [f"{config}:2: [cluster] racks: racks × nodes_per_rack = 20,000,000 "
                                          "nodes; at most 1,000,000 (MAX_CLUSTER_NODES)"]


def test_whole_number_floats_are_held_to_64_bits(files):
    config = files("c.toml", "[cluster]\nracks = 1e300\nreduce_slots = 1e30\n")
    result = run("check", str(config))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert [line.split(" expected")[0] for line in lines] == [f"{config}:2: [cluster] racks:",
                                                              f"{config}:3: [cluster] reduce_slots:"], lines
    assert all("fits in 64 bits" in line and len(line) < 200 for line in lines)
