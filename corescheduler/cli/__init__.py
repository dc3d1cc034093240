"""The ``corescheduler`` command line (SPEC §4), built with click.

This module is the group; each command lives in a module of its own in this
package (``plugins``, ``check``, ``queues``, ``shares``, ``simulate`` with ``compare``),
is registered in :data:`LAZY_COMMANDS` and is imported only when used.

Exit status: 0 on success, 1 on a user error, 2 on bad usage (click's own).
A user error is any :class:`~corescheduler.errors.CoreSchedulerError`: the
group prints ``error: <message>`` on one line to stderr and exits 1, so a
command just raises; any other exception is a bug and keeps its traceback.

Tables are drawn with rich when stdout is a terminal and as plain aligned
text otherwise (pipes, files, tests); ``--json`` gives machine-readable output.
The helpers a command needs (:func:`load_config`, :func:`print_table`,
:func:`print_json`, :data:`config_option`, :data:`json_option`) are in
:mod:`corescheduler.cli.common`, re-exported here.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import click

from corescheduler import __version__
from corescheduler.cli.common import (
    config_option,
    json_option,
    load_config,
    one_line,
    print_json,
    print_table,
    stdout_is_terminal,
)
from corescheduler.errors import CoreSchedulerError

__all__ = [
    "LAZY_COMMANDS",
    "cli",
    "config_option",
    "json_option",
    "load_config",
    "main",
    "one_line",
    "print_json",
    "print_table",
    "stdout_is_terminal",
]

# --------------------------------------------------------------------------- commands in other modules
#
# Every command lives in its own module and registers here as
# "name": "module:attribute", where the attribute is a click.Command; the
# module is imported only when that command is run or listed in --help.
# Each gets the group's error handling (CoreSchedulerError -> "error: …", exit 1)
# and can use the helpers of corescheduler.cli.common.
LAZY_COMMANDS: dict[str, str] = {
    "check": "corescheduler.cli.check:check",
    "compare": "corescheduler.cli.simulate:compare",
    "plugins": "corescheduler.cli.plugins:plugins",
    "kill": "corescheduler.cli.serve:kill",
    "queues": "corescheduler.cli.queues:queues",
    "result": "corescheduler.cli.serve:result",
    "serve": "corescheduler.cli.serve:serve",
    "shares": "corescheduler.cli.shares:shares",
    "simulate": "corescheduler.cli.simulate:simulate",
    "status": "corescheduler.cli.serve:status",
    "submit": "corescheduler.cli.serve:submit",
    "token": "corescheduler.cli.token:token",
}


class CoreSchedulerGroup(click.Group):
    """The ``corescheduler`` group: lazy commands and the user-error rule."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = LAZY_COMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module_name, _, attr = target.partition(":")
        command = getattr(importlib.import_module(module_name), attr)
        if not isinstance(command, click.Command):
            raise TypeError(f"LAZY_COMMANDS[{cmd_name!r}] = {target!r} is not a click command")
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CoreSchedulerError as exc:
            click.echo(f"error: {one_line(str(exc))}", err=True)
            ctx.exit(1)


# --------------------------------------------------------------------------- the group


@click.group(cls=CoreSchedulerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="corescheduler")
def cli() -> None:
    """A multi-tenant cluster job scheduler core in the lineage of the Hadoop
    Fair Scheduler, with every policy behind a plugin hook.

    Exit status: 0 success, 1 user error, 2 bad usage.
    """


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``corescheduler``)."""
    cli.main(args=list(argv) if argv is not None else None, prog_name="corescheduler")
