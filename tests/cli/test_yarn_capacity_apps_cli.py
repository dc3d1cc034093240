"""``queues`` shows a capacity file's max-parallel-apps and user weights (the capfeatures
work): in the table, not in ``--json`` (whose keys SPEC §9 fixes); ``check`` refuses a bad
limit with one error naming the file, line and key."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import run

P = "yarn.scheduler.capacity."


def write(tmp_path: Path, *props: tuple[str, str]) -> Path:
    xml = tmp_path / "cs.xml"
    xml.write_text("<configuration>\n" + "".join(
        f"<property><name>{P}{k}</name><value>{v}</value></property>\n" for k, v in props) + "</configuration>\n")
    (tmp_path / "cs.toml").write_text(
        '[scheduler]\nmode = "resources"\nshare_policy = "yarn_capacity"\nallocation_file = "cs.xml"\n'
        '[cluster]\nracks = 1\nnodes_per_rack = 2\nnode_resources = "8192 mb, 8 vcores"\n')
    return xml


def test_queues_table_shows_limits_and_weights(tmp_path: Path) -> None:
    write(tmp_path, ("root.queues", "a,b"), ("root.a.capacity", "50"), ("root.b.capacity", "50"),
          ("root.a.max-parallel-apps", "3"), ("max-parallel-apps", "7"), ("root.b.minimum-user-limit-percent", "25"),
          ("root.b.user-settings.alice.weight", "2.5"), ("user.max-parallel-apps", "4"),
          ("user.bob.max-parallel-apps", "1"))
    table = run("queues", "--config", str(tmp_path / "cs.toml"))
    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    header = next(line for line in lines if "max parallel apps" in line)
    assert "user weights" in header
    a = next(line for line in lines if line.split() and line.split()[0] == "a")
    b = next(line for line in lines if line.split() and line.split()[0] == "b")
    root = next(line for line in lines if line.split() and line.split()[0] == "root")
    assert " 3 " in f"{a} " and a.rstrip().endswith("-")
    assert " 7 " in f"{b} " and b.rstrip().endswith("alice=2.5")
    assert " 7 " in f"{root} "  # the global default is every queue's, root's too
    assert "users' max-parallel-apps: every user 4, bob 1" in table.stdout
    rows = json.loads(run("queues", "--config", str(tmp_path / "cs.toml"), "--json").stdout)
    assert all("max_parallel_apps" not in r and "user_weights" not in r for r in rows)


def test_check_refuses_a_bad_limit(tmp_path: Path) -> None:
    xml = write(tmp_path, ("root.queues", "a"), ("root.a.capacity", "100"), ("root.a.max-parallel-apps", "two"))
    result = run("check", str(xml))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{xml}:4: {P}root.a.max-parallel-apps: expected a whole number (the most apps that run at once), "
        "got 'two'"]
    assert "Traceback" not in result.output
