"""docs/yarn-capacity.md's "Trying a changed file on a trace" walkthrough: its four files,
written out as the page shows them, check without a warning, show their tree, and run a SWIM
trace with every job placed under both schedulers."""

from __future__ import annotations

import re
from pathlib import Path

from cli_helpers import run
from paths import DOCS


def _files(tmp_path: Path) -> dict[str, Path]:
    text = (DOCS / "yarn-capacity.md").read_text(encoding="utf-8")
    section = text.split("## Trying a changed file on a trace before deploying it", 1)[1].split("\n## ", 1)[0]
    out = {}
    for title, body in re.findall(r'```\w+ title="([^"]+)"\n(.*?)```', section, re.S):
        (tmp_path / title).write_text(body, encoding="utf-8")
        out[title] = tmp_path / title
    assert set(out) == {"cs.toml", "capacity-scheduler.xml", "fs.toml", "fair-scheduler.xml"}, set(out)
    commands = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert commands and "corescheduler check cs.toml fs.toml" in commands[0]
    return out


def test_the_walkthrough_files_check_and_run(tmp_path: Path) -> None:
    files = _files(tmp_path)
    checked = run("check", str(files["cs.toml"]), str(files["fs.toml"]))
    assert checked.exit_code == 0, checked.output
    assert "warning" not in checked.stdout, checked.stdout
    queues = run("queues", "--config", str(files["cs.toml"]))
    assert queues.exit_code == 0 and "  pool2" in queues.stdout and not queues.stderr, queues.output
    trace = tmp_path / "trace.tsv"  # a SWIM trace's shape, a few small jobs
    trace.write_text("".join(f"job{i}\t{i * 20}\t20\t{(i + 1) * 200_000_000}\t{i * 50_000_000}\t1000\n"
                             for i in range(12)))
    for config in ("cs.toml", "fs.toml"):
        result = run("simulate", "--config", str(files[config]), "--workload", str(trace), "--out",
                     str(tmp_path / f"out-{config}"), "--strict")
        assert result.exit_code == 0, result.output
        assert "note:" not in result.stdout


def test_the_changed_file_is_compared_with_the_one_in_force(tmp_path: Path) -> None:
    """The page's second block: the changed copy in new/ beside the one in force, checked, and
    compared on one trace; the labels are the ones the page gives."""
    text = (DOCS / "yarn-capacity.md").read_text(encoding="utf-8")
    section = text.split("## Trying a changed file on a trace before deploying it", 1)[1].split("\n## ", 1)[0]
    block = re.findall(r"```sh\n(.*?)```", section, re.S)[1]
    assert "corescheduler compare --config cs.toml --config new/cs.toml" in block
    op = tmp_path / "op"
    op.mkdir()
    files = _files(op)
    new = op / "new"
    new.mkdir()
    for name in ("cs.toml", "capacity-scheduler.xml"):
        (new / name).write_text(files[name].read_text())
    changed = new / "capacity-scheduler.xml"
    changed.write_text(changed.read_text().replace("pool0.maximum-capacity</name><value>80", "pool0.maximum-capacity"
                                                   "</name><value>100"))
    assert run("check", str(new / "cs.toml")).exit_code == 0
    trace = tmp_path / "trace.tsv"
    trace.write_text("".join(f"job{i}\t{i * 20}\t20\t{(i + 1) * 200_000_000}\t{i * 50_000_000}\t1000\n"
                             for i in range(6)))
    result = run("compare", "--config", str(files["cs.toml"]), "--config", str(new / "cs.toml"), "--workload",
                 str(trace), "--out", str(tmp_path / "cmp"), "-j", "1")
    assert result.exit_code == 0, result.output
    assert "`op-cs` and `new-cs`" in section
    assert result.stdout.splitlines()[1].split() == ["measure", "op-cs", "new-cs"], result.stdout
