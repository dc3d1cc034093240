"""What a new user meets first (issue 30's fresh-clone walk-through): the README's "Using it"
commands name files that are in the checkout and run, and docs/cli.md's ``check`` example
prints what ``check`` really prints."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from cli_helpers import run
from paths import DATA, DOCS, EXAMPLES, REPO

from corescheduler.plugin_manager import find_plugins

WALK = DATA / "walkthrough"


def _using_it() -> list[list[str]]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Using it", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    return [shlex.split(line.split("#", 1)[0]) for line in block.strip().splitlines()]


def test_the_readmes_commands_name_files_of_the_checkout() -> None:
    commands = _using_it()
    assert [c[:2] for c in commands][:3] == [["corescheduler", "simulate"], ["corescheduler", "compare"],
                                             ["corescheduler", "plugins"]]
    named = [arg for c in commands for arg in c if arg.startswith("examples/")]
    assert len(named) >= 6, named
    missing = [arg for arg in named if not (REPO / arg).is_file()]
    assert missing == []


@pytest.mark.parametrize("command", ["check", "shares", "queues"])
def test_the_readmes_check_shares_and_queues_run_from_the_checkout(command, monkeypatch) -> None:
    lines = [c for c in _using_it() if c[1] == command]
    assert lines and (len(lines) == 1 or command == "queues")  # queues: the fair and the capacity scheduler's
    monkeypatch.chdir(REPO)
    for line in lines:
        result = run(*line[1:])
        assert result.exit_code == 0, result.output
        if command == "check":
            assert result.stdout.splitlines() == ["examples/allocations.xml: ok", "examples/corescheduler.toml: ok"]
        if command == "shares":  # the snapshot of docs/cli.md, and the table it shows for it
            assert "  j4             4.44             0          20              0" in result.stdout
        if line[-1] == "examples/yarn-capacity.toml":
            assert "absolute max" in result.stdout and "engineering" in result.stdout  # a capacity tree


def test_the_check_example_of_cli_md_is_what_check_prints(tmp_path: Path, monkeypatch) -> None:
    doc = (DOCS / "cli.md").read_text(encoding="utf-8")
    example = re.search(r"\$ corescheduler check (.*?)\n(.*?)\$ echo \$\?\n(\d+)\n", doc, re.S)
    assert example is not None
    files, shown, status = example.group(1).split(), example.group(2).splitlines(), int(example.group(3))
    for name in ("broken.toml", "fair-scheduler.xml"):
        shutil.copy(WALK / name, tmp_path / name)
    for name in ("corescheduler.toml", "allocations.xml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    result = run("check", *files)
    printed = result.stdout.splitlines() + result.stderr.splitlines()

    def plugins_left_out(lines: list[str]) -> list[str]:  # a third-party plugin may be installed here
        return sorted(line.split("; available: ")[0] for line in lines)

    assert plugins_left_out(printed) == plugins_left_out(shown), result.output
    assert result.exit_code == status
    listed = [line.split("; available: ")[1] for line in shown if "; available: " in line]
    builtins = sorted(name for name, info in find_plugins().items() if info.builtin)
    assert listed == [", ".join(builtins)]


def test_cli_md_names_every_built_in_plugin() -> None:
    doc = (DOCS / "cli.md").read_text(encoding="utf-8")
    para = doc.split("## `corescheduler plugins`", 1)[1].split("(the built-ins", 1)[1].split("and any", 1)[0]
    assert sorted(re.findall(r"`([a-z_]+)`", para)) == sorted(n for n, i in find_plugins().items() if i.builtin)


def test_a_workload_given_to_shares_says_so_first_in_a_readable_line() -> None:
    """The walk-through gave ``shares --state`` a workload: one 20,000-character line of 121
    "unknown field" problems.  Now the first problem says what the file looks like and the
    line stops after 20 problems."""
    result = run("shares", "--state", str(DATA / "walkthrough" / "thirty-jobs.json"))
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    first = line.split("; ")[0]
    assert first.startswith("error: ") and "thirty-jobs.json: this looks like a workload" in first, first
    assert "corescheduler simulate --workload" in line
    assert line.endswith("; and 102 more problems") and line.count("thirty-jobs.json: ") == 20, line[-200:]
    good = run("shares", "--state", str(EXAMPLES / "snapshot.json"))
    assert good.exit_code == 0 and "this looks like" not in good.output
