"""Helpers shared by the command-line tests (not a test module)."""

from __future__ import annotations

from click.testing import CliRunner, Result

from corescheduler import cli


def run(*args: str) -> Result:
    """Invoke ``corescheduler ARGS…`` in-process."""
    return CliRunner().invoke(cli.cli, list(args), prog_name="corescheduler")


def assert_user_error(result: Result, *fragments: str) -> str:
    """Exit 1, one ``error: ...`` line on stderr naming every fragment, no traceback."""
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert "Traceback" not in result.output
    return lines[0]
