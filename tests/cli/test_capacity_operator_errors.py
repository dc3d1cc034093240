"""An operator's realistic capacity-scheduler.xml, broken the ways an operator breaks one: each
mistake is ONE message naming the file, the line, the key and what was expected, from
``check`` and from ``simulate`` alike, no traceback, and no second message blaming a queue
that is right (a bad capacity used to make the sibling parent's children "expected to be 0,
as root.prod's capacity is 0" when root.prod's capacity was 60)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import assert_user_error, run
from paths import DATA

GOOD = (DATA / "yarn_capacity" / "operator-multilevel.xml").read_text()
P = "yarn.scheduler.capacity."


def broken(tmp_path: Path, old: str, new: str) -> Path:
    assert GOOD.count(old) == 1, old
    path = tmp_path / "capacity-scheduler.xml"
    path.write_text(GOOD.replace(old, new))
    (tmp_path / "cs.toml").write_text(
        '[scheduler]\nmode = "resources"\nshare_policy = "yarn_capacity"\n'
        'allocation_file = "capacity-scheduler.xml"\npreemption = true\n\n'
        '[cluster]\nracks = 1\nnodes_per_rack = 2\nnode_resources = "8192 mb, 8 vcores"\n\n'
        '[simulation]\npools = 0\n')
    return path


def test_the_good_file_is_ok() -> None:
    result = run("check", str(DATA / "yarn_capacity" / "operator-multilevel.xml"))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [f"{DATA / 'yarn_capacity' / 'operator-multilevel.xml'}: ok"]


@pytest.mark.parametrize(("old", "new", "expected"), [
    # capacities that do not sum to 100: each child's value, so the operator sees which to fix
    ("root.dev.capacity</name><value>30<", "root.dev.capacity</name><value>35<",
     f":13: {P}root.*.capacity: expected the capacities of root's children (prod 60, dev 35, default 10) to "
     "sum to 100, got 105 (Hadoop ParentQueue.setChildQueues)"),
    ("root.prod.etl.capacity</name><value>70<", "root.prod.etl.capacity</name><value>60<",
     f":16: {P}root.prod.*.capacity: expected the capacities of root.prod's children (etl 60, reports 30) to "
     "sum to 100, got 90 (Hadoop ParentQueue.setChildQueues)"),
    # a misspelt queue in a capacity key: the sum is wrong because etl has none; the stray key is named
    ("root.prod.etl.capacity<", "root.prod.elt.capacity<",
     f":19: {P}root.prod.*.capacity: expected the capacities of root.prod's children (etl unset, reports 30) to "
     f"sum to 100, got 30 (Hadoop ParentQueue.setChildQueues); {P}root.prod.elt.capacity at line 16 names no "
     "queue of root.prod.queues (did you mean 'etl'?)"),
    # a queue left out of root.queues: its capacity key is named
    ("prod,dev,default<", "prod,dev<",
     f":13: {P}root.*.capacity: expected the capacities of root's children (prod 60, dev 30) to sum to 100, got 90 "
     f"(Hadoop ParentQueue.setChildQueues); {P}root.default.capacity at line 32 names no queue of root.queues "
     "(it lists prod, dev)"),
    # a bad number, a percent sign, a negative: one message, at the key's own line
    ("root.dev.capacity</name><value>30<", "root.dev.capacity</name><value>3o<",
     f":24: {P}root.dev.capacity: expected a percent from 0 to 100, a weight such as 2w, or "
     "[memory=…,vcores=…], got '3o'"),
    ("root.dev.capacity</name><value>30<", "root.dev.capacity</name><value>30%<",
     f":24: {P}root.dev.capacity: expected a percent from 0 to 100, a weight such as 2w, or "
     "[memory=…,vcores=…], got '30%'"),
    ("root.dev.user-limit-factor</name><value>3<", "root.dev.user-limit-factor</name><value>three<",
     f":26: {P}root.dev.user-limit-factor: expected a number (-1: no limit), got 'three'"),
    # a percent where Hadoop reads a fraction
    ("maximum-am-resource-percent</name><value>0.2<", "maximum-am-resource-percent</name><value>20<",
     f":7: {P}maximum-am-resource-percent: expected a fraction from 0 to 1 (0.2 for 20 %), got '20'"),
    # absolute and percent mixed: which queue is in which mode
    ("root.dev.capacity</name><value>30<", "root.dev.capacity</name><value>[memory=40960,vcores=40]<",
     f":13: {P}root.queues: expected the capacities of root's children in one mode (percent, weight or "
     "absolute [memory=…,vcores=…]); they mix absolute (dev) and percent (prod, default) "
     "(Hadoop ParentQueue: mixed modes refused)"),
    # a mapping to a queue the tree lacks, or to a parent
    ("g:staff:dev,", "g:staff:devel,",
     f":37: {P}queue-mappings: expected mappings to existing leaf queues (mapping g:staff:devel contains invalid "
     "or non-leaf queue devel; did you mean 'dev'?), got"),
    ("u:user03:reports,", "u:user03:root.prod.report,",
     f":37: {P}queue-mappings: expected mappings to existing leaf queues (mapping u:user03:root.prod.report "
     "contains invalid or non-leaf queue root.prod.report; did you mean 'root.prod.reports'?), got"),
    ("g:staff:dev,", "g:staff:prod,",
     f":37: {P}queue-mappings: expected mappings to existing leaf queues (mapping g:staff:prod contains invalid "
     "or non-leaf queue prod; root.prod is a parent, its leaves: root.prod.etl, root.prod.reports), got"),
])
def test_each_mistake_is_one_message(tmp_path: Path, old: str, new: str, expected: str) -> None:
    path = broken(tmp_path, old, new)
    result = run("check", str(path))
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert len(result.stdout.splitlines()) == 1, result.stdout
    assert result.stdout.startswith(f"{path}{expected}"), result.stdout
    line = assert_user_error(run("simulate", "--config", str(tmp_path / "cs.toml"), "--out", str(tmp_path / "o")))
    assert line.startswith(f"error: {path}{expected}"), line


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("root.dev.user-limit-factor<", "root.dev.user-limit-facter<",
     f":26: {P}root.dev.user-limit-facter: unknown queue key 'user-limit-facter' (did you mean "
     "'user-limit-factor'?); ignored"),
    # a misspelt queue in a queue's key: the queue is what was meant, not another key
    ("root.dev.user-limit-factor<", "root.devv.user-limit-factor<",
     f":26: {P}root.devv.user-limit-factor: no such queue root.devv in the tree from root.queues "
     "(did you mean root.dev?); ignored"),
    # a level left out of the path
    ("root.prod.reports.ordering-policy<", "root.reports.ordering-policy<",
     f":21: {P}root.reports.ordering-policy: no such queue root.reports in the tree from root.queues "
     "(did you mean root.prod.reports?); ignored"),
])
def test_a_misspelt_key_warns_with_what_was_meant(tmp_path: Path, old: str, new: str, expected: str) -> None:
    path = broken(tmp_path, old, new)
    result = run("check", str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [f"warning: {path}{expected}", f"{path}: ok"]


@pytest.mark.parametrize(("old", "new", "expected"), [
    ('mode = "resources"\n', "", ":2: [scheduler] share_policy: 'yarn_capacity' runs in resource mode only"),
    ('share_policy = "yarn_capacity"', 'share_policy = "yarn_capcity"',
     ":3: [scheduler] share_policy: unknown plugin 'yarn_capcity' (did you mean 'yarn_capacity'?)"),
])
def test_a_refused_scheduler_key_is_not_repeated_as_a_warning(tmp_path: Path, old: str, new: str,
                                                              expected: str) -> None:
    """The config's own error says what to set; the capacity file's "set mode = … and
    share_policy = …" warning (or "its queues share by equal weights") is not added to it."""
    path = broken(tmp_path, "<configuration>", "<configuration>")
    toml = tmp_path / "cs.toml"
    toml.write_text(toml.read_text().replace(old, new))
    result = run("check", str(toml))
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[0].startswith(f"{toml}{expected}")
    assert result.stdout.splitlines()[1:] == [f"{path}: ok"]
    line = assert_user_error(run("simulate", "--config", str(toml), "--out", str(tmp_path / "o")))
    assert line.startswith(f"error: {toml}{expected}"), line


def test_queues_help_tells_of_the_capacity_table() -> None:
    """An operator reading ``queues --help`` learns the command shows a capacity-scheduler.xml's
    own columns, not only the fair scheduler's (min/max resources, steady fair share)."""
    result = run("queues", "--help")
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert 'Under share_policy = "yarn_capacity" the table is the capacity-scheduler.xml\'s' in text
    assert "absolute capacity and maximum (of the cluster)" in text and "user-limit-factor" in text


def test_queues_on_hadoops_shipped_file_has_no_acl_note(tmp_path: Path) -> None:
    """Hadoop's shipped capacity-scheduler.xml sets root.default's ACLs to "*" and root's not at
    all: "*" lets everybody in by itself, so root's default '*' takes nothing from it and the
    "anybody may submit to every queue; set … on root" note (two of them) was noise."""
    (tmp_path / "capacity-scheduler.xml").write_text(
        (DATA / "yarn_capacity" / "hadoop-shipped-capacity-scheduler.xml").read_text())
    (tmp_path / "cs.toml").write_text('[scheduler]\nmode = "resources"\nshare_policy = "yarn_capacity"\n'
                                      'allocation_file = "capacity-scheduler.xml"\n')
    result = run("queues", "--config", str(tmp_path / "cs.toml"))
    assert result.exit_code == 0, result.output
    assert "note:" not in result.output and "  default  100.0%" in result.stdout


def test_simulate_without_a_workload_says_why_every_job_was_refused(tmp_path: Path) -> None:
    """``simulate --config examples/yarn-capacity.toml`` (the README shows its ``queues``) with no
    ``--workload`` runs builtin:facebook, whose 100 jobs each name a pool of their own: all were
    refused as "unknown queue: pool07", with nothing saying where those names came from."""
    from paths import EXAMPLES

    result = run("simulate", "--config", str(EXAMPLES / "yarn-capacity.toml"), "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    assert "jobs that did not run to the end: 100 rejected" in result.stdout
    note = next(line for line in result.stdout.splitlines() if line.startswith("note:"))
    assert note == ("note: the queues pool00, pool01 … pool99 that jobs were refused for are the built-in Facebook "
                    "workload's, which gives every job a pool of its own (builtin:facebook, the default of "
                    "--workload); give a workload whose jobs name your queues, or none (--workload FILE: "
                    "docs/workloads.md).")
