"""``corescheduler plugins`` fits 100 columns; ``--verbose`` and ``--json`` list every hook (issue 30 item 5)."""

from __future__ import annotations

import json

from cli_helpers import run

from corescheduler.cli.plugins import shorten


def test_default_table_fits_100_columns_and_says_it_shortened() -> None:
    result = run("plugins")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100, max(lines, key=len)
    assert lines[-1] == "(hooks shortened to fit 100 columns: --verbose or --json lists them all)"
    rows = {line.split()[0]: line for line in lines[1:-1]}
    assert "cs_select_task, +" in rows["delay"]  # the extension point's own hook first
    assert "cs_resolve_pool, +" in rows["capacity"] and "cs_share_policy" not in rows["capacity"]
    assert "cs_adjust_weight" in rows["new_job_booster"]  # short lists stay whole


def test_verbose_and_json_list_every_hook() -> None:
    everything = {row["name"]: row["hooks"] for row in json.loads(run("plugins", "--json").stdout)["plugins"]}
    verbose = run("plugins", "--verbose")
    assert verbose.exit_code == 0
    lines = verbose.stdout.splitlines()
    assert not any("shortened" in line for line in lines)
    assert max(len(line) for line in lines) > 100
    rows = {line.split()[0]: line for line in lines[1:]}
    for name, hooks in everything.items():
        assert ", ".join(hooks) in rows[name]


def test_shorten() -> None:
    hooks = ["cs_a", "cs_bb", "cs_cccccc"]
    assert shorten(hooks, 100) == "cs_a, cs_bb, cs_cccccc"
    assert shorten(hooks, 22) == "cs_a, cs_bb, cs_cccccc"
    assert shorten(hooks, 21) == "cs_a, cs_bb, +1 more"
    assert shorten(hooks, 19) == "cs_a, +2 more"
    assert shorten(hooks, 5) == "3 hooks"
