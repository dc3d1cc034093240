"""The ``corescheduler plugins`` tables quoted in docs/cli.md and docs/plugin-authors.md are
the command's output: each row shown is a row of it (they said ``+8 more`` and ``+9 more``
where the command says ``+9 more`` and ``+7 more``, and ``cs_can_assign, +1 more`` for a
plugin with one hook)."""

from __future__ import annotations

import re

import pytest
from cli_helpers import run
from paths import DOCS

from corescheduler.plugin_manager import DISABLE_AUTOLOAD_ENV


def _quoted_rows(doc: str) -> list[list[str]]:
    """The table rows of each ``$ corescheduler plugins`` block of ``doc`` (``...`` and
    the notes in parentheses left out), each split into its cells."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    rows = []
    for block in re.findall(r"\$ corescheduler plugins\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if line.strip() and line.strip() != "..." and not line.startswith("("):
                rows.append(re.split(r"\s{2,}", line.strip()))
    assert rows, f"no `$ corescheduler plugins` block in {doc}"
    return rows


def _output_rows(stdout: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in stdout.splitlines() if line.strip()]


def test_cli_md_plugins_rows_are_the_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DISABLE_AUTOLOAD_ENV, "1")  # the built-ins alone, as the doc shows them
    result = run("plugins")
    assert result.exit_code == 0, result.output
    actual = _output_rows(result.stdout)
    for row in _quoted_rows("cli.md"):
        assert row in actual, f"docs/cli.md shows {row}; `corescheduler plugins` prints {actual}"


def test_plugin_authors_md_rows_are_the_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the tutorial's plugin installed (a distribution name as long as
    ``corescheduler-deadline-boost``), the rows are as the tutorial shows them."""
    from corescheduler import plugin_manager

    monkeypatch.setenv(DISABLE_AUTOLOAD_ENV, "1")
    builtins = plugin_manager.describe_available()
    booster = next(row for row in builtins if row["name"] == "new_job_booster")
    tutorial = {**booster, "name": "deadline_boost", "dist": "corescheduler-deadline-boost", "builtin": False,
                "value": "corescheduler_deadline_boost:DeadlineBoost"}
    rows = sorted([*builtins, tutorial], key=lambda row: row["name"])
    monkeypatch.setattr(plugin_manager, "describe_available", lambda blocked=(): rows)
    result = run("plugins")
    assert result.exit_code == 0, result.output
    actual = _output_rows(result.stdout)
    for row in _quoted_rows("plugin-authors.md"):
        assert row in actual, f"docs/plugin-authors.md shows {row}; `corescheduler plugins` prints {actual}"
