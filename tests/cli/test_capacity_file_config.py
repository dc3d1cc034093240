"""A capacity-scheduler.xml under a config that does not run it (a new user's slips):
``share_policy = "yarn_capacity"`` without resource mode is refused at its line; a
capacity file under another share policy, or in slot mode, is warned about by ``check``,
``queues`` and ``simulate``; an unknown or misplaced share policy is reported once by
``check``, not again on the allocation file."""

from __future__ import annotations

import shutil
from pathlib import Path

from cli_helpers import assert_user_error, run
from paths import EXAMPLES

WORKLOAD = EXAMPLES / "yarn-workload.json"


def _config(tmp_path: Path, scheduler: str) -> Path:
    shutil.copy(EXAMPLES / "yarn-capacity-scheduler.xml", tmp_path / "cs.xml")
    config = tmp_path / "cs.toml"
    config.write_text(f'[scheduler]\n{scheduler}allocation_file = "cs.xml"\n\n'
                      '[cluster]\nracks = 2\nnodes_per_rack = 10\nnode_resources = "16384 mb, 16 vcores"\n')
    return config


def test_yarn_capacity_in_slot_mode_is_refused_at_its_line(tmp_path: Path) -> None:
    config = _config(tmp_path, 'share_policy = "yarn_capacity"\n')
    result = run("check", str(config))
    assert result.exit_code == 1
    assert f'{config}:2: [scheduler] share_policy: \'yarn_capacity\' runs in resource mode only' in result.stdout
    assert 'add mode = "resources" to [scheduler]' in result.stdout
    assert "Traceback" not in result.output
    # simulate said "AttributeError: 'Pool' object has no attribute 'reserved'" at the first update
    sim = run("simulate", "--config", str(config), "--workload", str(WORKLOAD), "--out", str(tmp_path / "out"))
    line = assert_user_error(sim, f"{config}:2:", "resource mode only")
    assert "AttributeError" not in line
    assert not (tmp_path / "out").exists()


def test_capacity_file_under_the_fair_policy_is_warned_about(tmp_path: Path) -> None:
    config = _config(tmp_path, 'mode = "resources"\nshare_policy = "fair"\n')
    result = run("check", str(config))
    assert result.exit_code == 0, result.output  # a warning, not an error
    warning = [line for line in result.stdout.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1, result.stdout
    assert warning[0].startswith(f"warning: {tmp_path / 'cs.xml'}: a YARN capacity-scheduler.xml, but "
                                 f"[scheduler] share_policy is 'fair' ({config}:3)")
    assert "capacities" in warning[0] and 'set share_policy = "yarn_capacity"' in warning[0]
    queues = run("queues", "--config", str(config))
    assert queues.exit_code == 0 and "share_policy is 'fair'" in queues.stderr
    sim = run("simulate", "--config", str(config), "--workload", str(WORKLOAD), "--out", str(tmp_path / "out"))
    assert sim.exit_code == 0 and "share_policy is 'fair'" in sim.stderr


def test_capacity_file_under_the_default_policy_says_it_is_the_default(tmp_path: Path) -> None:
    config = _config(tmp_path, 'mode = "resources"\n')
    result = run("check", str(config))
    assert result.exit_code == 0
    assert f"share_policy is 'fair' (the default; {config})" in result.stdout


def test_capacity_file_in_slot_mode_is_warned_about(tmp_path: Path) -> None:
    config = _config(tmp_path, "")
    result = run("check", str(config))
    assert result.exit_code == 0
    assert "runs in slot mode (MR1), which reads none of its queues" in result.stdout
    assert 'set mode = "resources" and share_policy = "yarn_capacity"' in result.stdout


def test_capacity_file_under_yarn_capacity_has_no_warning(tmp_path: Path) -> None:
    result = run("check", str(EXAMPLES / "yarn-capacity.toml"))
    assert result.exit_code == 0
    assert "warning" not in result.stdout


def test_unknown_share_policy_is_reported_once(tmp_path: Path) -> None:
    config = _config(tmp_path, 'mode = "resources"\nshare_policy = "yarn_capcity"\n')
    result = run("check", str(config))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    # it added "cs.toml: SharePolicy plugin 'yarn_capcity' …: cs_share_policy returned None" and the
    # same on cs.xml, which is not at fault
    assert lines == [
        f"{config}:3: [scheduler] share_policy: unknown plugin 'yarn_capcity' (did you mean 'yarn_capacity'?); "
        "available: " + lines[0].partition("available: ")[2],
        f"{tmp_path / 'cs.xml'}: ok",
    ]
    assert "returned None" not in result.output


def test_misplaced_share_policy_is_reported_once(tmp_path: Path) -> None:
    config = _config(tmp_path, 'mode = "resources"\nshare_policy = "delay"\n')
    result = run("check", str(config))
    assert result.exit_code == 1
    errors = [line for line in result.stdout.splitlines() if "is not a SharePolicy" in line]
    assert len(errors) == 1 and errors[0].startswith(f"{config}:3: [scheduler] share_policy: plugin 'delay'")


def test_mr1_capacity_file_on_its_own_says_how_it_is_checked() -> None:
    result = run("check", str(EXAMPLES / "capacity-scheduler.xml"))
    assert result.exit_code == 1
    (line,) = result.stdout.splitlines()
    assert line.startswith(f"{EXAMPLES / 'capacity-scheduler.xml'}:")
    # it said "a capacity-scheduler.xml is checked through the config", but a YARN one is checked alone
    assert "an MR1 capacity-scheduler.xml (mapred.capacity-scheduler.*) is checked through the config" in line
    assert "a YARN one (yarn.scheduler.capacity.*) is checked on its own" in line
    yarn = run("check", str(EXAMPLES / "yarn-capacity-scheduler.xml"))
    assert yarn.exit_code == 0 and yarn.stdout.endswith(": ok\n")


def test_resource_mode_summary_counts_containers(tmp_path: Path) -> None:
    """A YARN run's table says containers and container-seconds, not MR1's tasks and slot-seconds."""
    result = run("simulate", "--config", str(EXAMPLES / "yarn-capacity.toml"), "--workload", str(WORKLOAD),
                 "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    labels = [line.split("  ")[0] for line in result.stdout.splitlines()]
    assert "preempted containers" in labels and "wasted container-s" in labels
    assert "wasted slot-s" not in labels and "preempted tasks" not in labels
    # the report's queue plot: the share is the guarantee under yarn_capacity, not a "fair share"
    report = (tmp_path / "out" / "report.html").read_text()
    assert '<h2 id="running-share">Memory used per queue against its share</h2>' in report
    assert "under YARN&#x27;s Capacity Scheduler (yarn_capacity) its guaranteed capacity" in report
    assert "Running tasks per pool against fair share" not in report


def test_resource_mode_across_seeds_counts_containers() -> None:
    from corescheduler.sim.stats import compare_statistics

    def metrics(resources: bool) -> dict[str, object]:
        summary: dict[str, object] = {"preempted_tasks": 3, "wasted_seconds": 10.0}
        if resources:
            summary["cluster_resources"] = {"memory": 8192, "vcores": 8}
        return {"summary": summary}

    yarn = compare_statistics(["a", "b"], [0, 1], {(c, s): metrics(True) for c in "ab" for s in (0, 1)})
    assert yarn["measures"]["wasted_seconds"]["label"] == "wasted container-s"
    assert yarn["measures"]["preempted_tasks"]["label"] == "preempted containers"
    mr1 = compare_statistics(["a", "b"], [0, 1], {(c, s): metrics(False) for c in "ab" for s in (0, 1)})
    assert mr1["measures"]["wasted_seconds"]["label"] == "wasted slot-s"


def test_standalone_check_refuses_what_the_policy_refuses(tmp_path: Path) -> None:
    """``check capacity-scheduler.xml`` said ok for a bad preemption value that ``simulate``
    then refused; both now name its line."""
    text = (EXAMPLES / "yarn-capacity-scheduler.xml").read_text()
    bad = tmp_path / "cs.xml"
    bad.write_text(text.replace("</configuration>", "  <property><name>yarn.resourcemanager.monitor.capacity."
                                "preemption.max_wait_before_kill</name><value>15s</value></property>\n"
                                "</configuration>"))
    line = next(n for n, t in enumerate(bad.read_text().splitlines(), start=1) if "max_wait_before_kill" in t)
    expected = (f"{bad}:{line}: yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill: "
                "expected a whole number of milliseconds, got '15s'")
    result = run("check", str(bad))
    assert result.exit_code == 1 and result.stdout.splitlines() == [expected]
    config = tmp_path / "cs.toml"
    config.write_text('[scheduler]\nmode = "resources"\nshare_policy = "yarn_capacity"\nallocation_file = "cs.xml"\n')
    named = run("check", str(config))
    assert named.exit_code == 1 and named.stdout.splitlines() == [expected]
    sim = run("simulate", "--config", str(config), "--workload", str(WORKLOAD), "--out", str(tmp_path / "out"))
    assert_user_error(sim, expected)


def test_simulate_and_compare_print_the_allocation_files_warnings(tmp_path: Path) -> None:
    """A misspelt key is a warning (Hadoop ignores it); ``check`` and ``queues`` printed it, a
    run did not, so a typo'd user-limit-factor was simulated as absent without a word."""
    text = (EXAMPLES / "yarn-capacity-scheduler.xml").read_text()
    (tmp_path / "cs.xml").write_text(text.replace("builds.user-limit-factor", "builds.user-limt-factor"))
    config = tmp_path / "cs.toml"
    config.write_text((EXAMPLES / "yarn-capacity.toml").read_text().replace("yarn-capacity-scheduler.xml", "cs.xml"))
    warning = "unknown queue key 'user-limt-factor' (did you mean 'user-limit-factor'?)"
    sim = run("simulate", "--config", str(config), "--workload", str(WORKLOAD), "--out", str(tmp_path / "out"))
    assert sim.exit_code == 0 and sim.stderr.count(warning) == 1, sim.stderr
    assert sim.stderr.startswith(f"warning: {tmp_path / 'cs.xml'}:")
    cmp = run("compare", "--config", str(config), "--config", str(EXAMPLES / "yarn-capacity.toml"),
              "--workload", str(WORKLOAD), "--out", str(tmp_path / "cmp"), "-j", "1")
    assert cmp.exit_code == 0 and cmp.stderr.count(warning) == 1, cmp.stderr


def test_refusals_name_the_application_only_when_it_has_an_id(tmp_path: Path) -> None:
    """A STOPPED queue's refusal ended "… Cannot accept submission of application" with no
    application, and an unnumbered submission's read "Application None submitted …"."""
    import pytest

    from corescheduler.errors import CoreSchedulerError
    from corescheduler.testing import ClusterHarness

    text = (EXAMPLES / "yarn-capacity-scheduler.xml").read_text().replace(
        "</configuration>",
        "<property><name>yarn.scheduler.capacity.root.default.state</name><value>STOPPED</value></property>\n"
        "</configuration>")
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores", allocations=text,
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}})
    with pytest.raises(CoreSchedulerError) as unknown:
        h.submit_app(queue="nosuch", user="u", tasks=1)
    assert "Application submitted by user u to unknown queue: nosuch" in str(unknown.value)
    with pytest.raises(CoreSchedulerError) as stopped:
        h.submit_app(queue="default", user="u", tasks=1)
    assert str(stopped.value).endswith("Queue root.default is STOPPED. Cannot accept submission of application")
    assert "None" not in str(unknown.value) + str(stopped.value)
    # in a run every job has its id, and Hadoop's message ends with it
    (tmp_path / "cs.xml").write_text(text)
    config = tmp_path / "cs.toml"
    config.write_text((EXAMPLES / "yarn-capacity.toml").read_text().replace("yarn-capacity-scheduler.xml", "cs.xml"))
    workload = tmp_path / "w.json"
    workload.write_text('{"jobs": [{"id": "j1", "user": "u", "submit": 0, "tasks": [{"duration": 1}]}]}')
    sim = run("simulate", "--config", str(config), "--workload", str(workload), "--out", str(tmp_path / "out"))
    assert sim.exit_code == 0, sim.output
    assert "j1 rejected: job rejected by pool placement: Queue root.default is STOPPED. Cannot accept " \
           "submission of application: j1" in sim.stdout


def test_queues_notes_a_capacity_acl_that_restricts_nothing(tmp_path: Path) -> None:
    """A leaf's acl_submit_applications under a root without one lets everybody in (root's
    default is '*', and an ancestor's ACL lets in too): ``queues`` says so, as it does for a
    fair-scheduler.xml's <aclSubmitApps>; with root's ACL set, nothing is noted."""
    text = (EXAMPLES / "yarn-capacity-scheduler.xml").read_text()
    leaf = "<property><name>yarn.scheduler.capacity.root.analytics.etl.acl_submit_applications</name>" \
           "<value>alice</value></property>\n"
    (tmp_path / "cs.xml").write_text(text.replace("</configuration>", leaf + "</configuration>"))
    config = tmp_path / "cs.toml"
    config.write_text((EXAMPLES / "yarn-capacity.toml").read_text().replace("yarn-capacity-scheduler.xml", "cs.xml"))
    result = run("queues", "--config", str(config))
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "note: acl_submit_applications is set on root.analytics.etl but not on root, whose ACL is then YARN's "
        "default '*': every queue inherits it, so anybody may submit to every queue; set "
        "acl_submit_applications on root (a single space: nobody) to restrict"]
    root = "<property><name>yarn.scheduler.capacity.root.acl_submit_applications</name><value> </value></property>\n"
    (tmp_path / "cs.xml").write_text(text.replace("</configuration>", leaf + root + "</configuration>"))
    closed = run("queues", "--config", str(config))
    assert closed.exit_code == 0 and "note:" not in closed.stderr


def _swim(tmp_path: Path) -> Path:
    trace = tmp_path / "trace.tsv"
    trace.write_text("".join(f"job{i}\t{i * 10}\t10\t1000000\t0\t1000\n" for i in range(6)))
    return trace


def test_simulate_says_where_swim_pools_come_from(tmp_path: Path) -> None:
    """Hadoop's shipped file has one queue, default; a SWIM trace's jobs name pool0…pool9 and
    were all refused as "unknown queue: pool3" with nothing saying where those names came from."""
    from paths import DATA

    shutil.copy(DATA / "yarn_capacity" / "hadoop-shipped-capacity-scheduler.xml", tmp_path / "cs.xml")
    config = tmp_path / "cs.toml"
    config.write_text('[scheduler]\nmode = "resources"\nshare_policy = "yarn_capacity"\nallocation_file = "cs.xml"\n'
                      "\n[simulation]\npools = 3\n")
    result = run("simulate", "--config", str(config), "--workload", str(_swim(tmp_path)), "--out",
                 str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert "unknown queue: pool" in result.stdout
    note = next(line for line in result.stdout.splitlines() if line.startswith("note:"))
    assert note.startswith("note: the queues pool0, pool1, pool2 that jobs were refused for are those a SWIM "
                           "trace's jobs are given ([simulation] pools = 3: pool0 … pool2")
    assert "set [simulation] pools = 0" in note
    # with pools = 0 the jobs name no queue and go to default: nothing refused, no note
    config.write_text(config.read_text().replace("pools = 3", "pools = 0"))
    placed = run("simulate", "--config", str(config), "--workload", str(_swim(tmp_path)), "--out",
                 str(tmp_path / "out2"), "--strict")
    assert placed.exit_code == 0 and "note:" not in placed.stdout, placed.output
    # compare says it once per config
    config.write_text(config.read_text().replace("pools = 0", "pools = 3"))
    both = run("compare", "--config", str(config), "--config", str(EXAMPLES / "yarn-capacity.toml"),
               "--workload", str(_swim(tmp_path)), "--out", str(tmp_path / "cmp2"), "-j", "1")
    assert both.exit_code == 0
    notes = [line for line in both.stdout.splitlines() if line.startswith("note:")]
    # once per config: cs's pools = 3, and the example's (no [simulation] pools: 10) refuses them too
    assert [n.split(": the queues ")[0] for n in notes] == ["note: cs", "note: yarn-capacity"]
    assert "[simulation] pools = 3" in notes[0] and "[simulation] pools = 10" in notes[1]


def test_no_swim_note_for_a_json_workload(tmp_path: Path) -> None:
    from paths import DATA

    shutil.copy(DATA / "yarn_capacity" / "hadoop-shipped-capacity-scheduler.xml", tmp_path / "cs.xml")
    config = tmp_path / "cs.toml"
    config.write_text('[scheduler]\nmode = "resources"\nshare_policy = "yarn_capacity"\nallocation_file = "cs.xml"\n')
    workload = tmp_path / "w.json"
    workload.write_text('{"jobs": [{"id": "j1", "user": "u", "pool": "pool1", "submit": 0, '
                        '"tasks": [{"duration": 1}]}]}')
    result = run("simulate", "--config", str(config), "--workload", str(workload), "--out", str(tmp_path / "out"))
    assert result.exit_code == 0 and "unknown queue: pool1" in result.stdout
    assert "note:" not in result.stdout


def test_queues_table_shows_no_user_limit_on_parents() -> None:
    """The user limit is a leaf's (LeafQueue); root and engineering showed '1' and '100'."""
    result = run("queues", "--config", str(EXAMPLES / "yarn-capacity.toml"))
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[2:]}
    assert rows["root"][6:8] == ["-", "-"] and rows["engineering"][6:8] == ["-", "-"]
    assert rows["adhoc"][6:8] == ["3", "50"] and rows["default"][6:8] == ["1", "100"]


def test_simulate_says_which_config_named_a_missing_allocation_file(tmp_path: Path) -> None:
    """The path is taken from the config's folder; the error said only 'cs.xml: cannot read …'."""
    config = tmp_path / "cs.toml"
    config.write_text('[scheduler]\nmode = "resources"\nshare_policy = "yarn_capacity"\n'
                      'allocation_file = "capacity-scheduler.xml"\n')
    result = run("simulate", "--config", str(config), "--workload", str(WORKLOAD), "--out", str(tmp_path / "out"))
    assert_user_error(result, f"{tmp_path / 'capacity-scheduler.xml'}: cannot read allocation file",
                      f"(named by {config}:4 [scheduler] allocation_file)")
    both = run("compare", "--config", str(config), "--config", str(EXAMPLES / "yarn-capacity.toml"),
               "--workload", str(WORKLOAD), "--out", str(tmp_path / "cmp"))
    assert_user_error(both, f"(named by {config}:4 [scheduler] allocation_file)")
