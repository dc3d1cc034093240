"""The ``corescheduler`` command line (SPEC §4), built with click.

Commands here: ``plugins``, ``check`` and ``shares``.  Commands with a module
of their own (``simulate``, ``compare``, ``serve``, ``submit``, ``status``) are
registered in :data:`LAZY_COMMANDS` and imported only when used.

Exit status: 0 on success, 1 on a user error, 2 on bad usage (click's own).
A user error is any :class:`~corescheduler.errors.CoreSchedulerError`: the
group prints ``error: <message>`` on one line to stderr and exits 1, so a
command just raises; any other exception is a bug and keeps its traceback.

Tables are drawn with rich when stdout is a terminal and as plain aligned
text otherwise (pipes, files, tests); ``--json`` gives machine-readable output.
The helpers a command needs (:func:`load_config`, :func:`print_table`,
:func:`print_json`, :data:`config_option`, :data:`json_option`) are public
so that command modules share them.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from corescheduler import __version__
from corescheduler.errors import AllocationError, ConfigError, CoreSchedulerError

# --------------------------------------------------------------------------- commands in other modules
#
# Later commands live in their own modules and register here as
# "name": "module:attribute", where the attribute is a click.Command; the
# module is imported only when that command is run or listed in --help.
# Planned: simulate, compare, serve, submit, status (SPEC §4), e.g.
#     "simulate": "corescheduler.simulate_cli:simulate",
# Each gets the group's error handling (CoreSchedulerError -> "error: …", exit 1)
# and can use the helpers below.
LAZY_COMMANDS: dict[str, str] = {
    "simulate": "corescheduler.simulate_cli:simulate",
    "compare": "corescheduler.simulate_cli:compare",
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


# --------------------------------------------------------------------------- helpers for commands

config_option = click.option(
    "--config",
    "config_path",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="corescheduler.toml to use (default: the built-in defaults).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")


def one_line(message: str) -> str:
    """``message`` with its lines joined by "; " (error output is one line)."""
    return "; ".join(part.strip() for part in message.splitlines() if part.strip())


def load_config(path: str | None) -> Any:
    """The :class:`~corescheduler.config.Config` at ``path``, or the defaults if None."""
    from corescheduler.config import Config

    return Config.from_file(path) if path is not None else Config.default()


def stdout_is_terminal() -> bool:
    """True when standard output is a terminal (rich tables), False for pipes and files."""
    stream = sys.stdout
    return stream is not None and hasattr(stream, "isatty") and stream.isatty()


def print_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2))


def print_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    right: Sequence[int] = (),
    title: str | None = None,
) -> None:
    """Print ``rows`` under ``columns``: a rich table on a terminal, else plain
    aligned text (two spaces between columns).  ``right``: indexes of
    right-aligned (numeric) columns."""
    right_set = set(right)
    if stdout_is_terminal():
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        table = Table(title=Text(title) if title else None, title_justify="left")
        for i, name in enumerate(columns):
            table.add_column(Text(name), justify="right" if i in right_set else "left", overflow="fold")
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        Console(file=sys.stdout).print(table)
        return
    widths = [max([len(name), *(len(row[i]) for row in rows)]) for i, name in enumerate(columns)]

    def line(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if i in right_set else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(parts).rstrip()

    if title:
        click.echo(title)
    click.echo(line(columns))
    for row in rows:
        click.echo(line(row))


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


# --------------------------------------------------------------------------- plugins

#: Extension points as the config names them, in the order they run.
CONFIG_POINTS = (
    "pool_resolver",
    "weight_adjusters",
    "load_manager",
    "task_selector",
    "share_policy",
    "victim_selector",
    "listeners",
)


@cli.command()
@config_option
@json_option
def plugins(config_path: str | None, as_json: bool) -> None:
    """List discovered plugins and what they implement.

    Shows each plugin's name, extension points, hooks, distribution and version.

    A plugin that cannot be imported is listed with its error.  With --config,
    also validate that config (every selected plugin is loaded with its
    settings) and show which plugins serve each extension point.
    """
    from corescheduler import plugin_manager

    config = load_config(config_path) if config_path is not None else None
    blocked = config.scheduler.blocked_plugins if config is not None else ()
    selected = None
    if config is not None:
        plugin_set = plugin_manager.PluginSet(config)
        sc = config.scheduler
        selected = {}
        for key in CONFIG_POINTS:
            value = getattr(sc, key)
            names = (value,) if isinstance(value, str) else tuple(value)
            selected[key] = [{"name": n, "origin": plugin_set.origins[n]} for n in names]
    rows = plugin_manager.describe_available(blocked=blocked)

    if as_json:
        out: dict[str, Any] = {"plugins": rows, "config": None}
        if config is not None:
            out["config"] = {"source": config.source, "extension_points": selected}
        print_json(out)
        return

    table = []
    for row in rows:
        if row["error"] == "blocked":
            points, hooks = "-", "blocked ([scheduler] blocked_plugins)"
        elif row["error"] is not None:
            points, hooks = "-", f"error: {one_line(row['error'])}"
        else:
            points, hooks = ", ".join(row["points"]) or "-", ", ".join(row["hooks"]) or "-"
        table.append([row["name"], points, hooks, row["dist"], row["version"]])
    print_table(["name", "extension points", "hooks", "distribution", "version"], table)
    if selected is not None:
        click.echo()
        point_rows = [
            [key, ", ".join(f"{p['name']} ({p['origin']})" for p in plugs) or "-"] for key, plugs in selected.items()
        ]
        print_table(["extension point", "plugins"], point_rows, title=f"{config.source}: ok")


# --------------------------------------------------------------------------- check


@cli.command()
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
def check(files: tuple[str, ...]) -> None:
    """Validate TOML configs and allocation files.

    A .toml file is read as corescheduler.toml: its plugins are loaded with
    their settings, and the allocation file it names is checked too.  A .xml
    file is read as an allocation file.  Other files are sniffed (XML if they
    start with "<").  Prints "FILE: ok" or each error; exits 1 if any failed.
    """
    checked: set[Path] = set()
    failed = False
    for name in files:
        failed |= not _check_file(name, checked)
    if failed:
        click.get_current_context().exit(1)


def _resolved(path: str | Path) -> Path:
    try:
        return Path(path).resolve()
    except OSError:  # pragma: no cover - unresolvable path; keep it as given
        return Path(path)


def _report(name: str, exc: CoreSchedulerError) -> None:
    problems = exc.problems if isinstance(exc, ConfigError) else [str(exc)]
    for problem in problems:
        problem = one_line(problem)
        click.echo(problem if problem.startswith(name) else f"{name}: {problem}")


def _kind(name: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix in (".toml", ".xml"):
        return suffix[1:]
    try:
        with open(name, "rb") as f:
            head = f.read(512)
    except OSError:
        return "toml"  # reading it again reports why it cannot be read
    return "xml" if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<") else "toml"


def _check_file(name: str, checked: set[Path]) -> bool:
    """Check one file (once); True if it is good."""
    path = _resolved(name)
    if path in checked:
        return True
    checked.add(path)
    if _kind(name) == "xml":
        return _check_allocations(name)
    return _check_config(name, checked)


def _check_allocations(name: str, named_by: str | None = None) -> bool:
    from corescheduler.allocations import Allocations

    try:
        allocations = Allocations.from_file(name)
    except AllocationError as exc:
        if exc.line is None and named_by is not None:
            exc = AllocationError(f"{exc.message} (named by {named_by})", exc.source)
        _report(name, exc)
        return False
    for warning in allocations.warnings:
        click.echo(f"warning: {one_line(warning)}")
    click.echo(f"{name}: ok")
    return True


def _check_config(name: str, checked: set[Path]) -> bool:
    from corescheduler.config import Config
    from corescheduler.plugin_manager import PluginSet

    try:
        config = Config.from_file(name)
        plugin_set = PluginSet(config)
    except CoreSchedulerError as exc:
        _report(name, exc)
        return False
    alloc_path = config.allocation_path()
    if alloc_path is None:
        click.echo(f"{name}: ok")
        return True
    alloc_name = str(alloc_path)
    resolved = _resolved(alloc_path)
    if resolved in checked:  # also given on the command line: checked there
        click.echo(f"{name}: ok")
        return True
    checked.add(resolved)
    named_by = f"{config.locate('scheduler', 'allocation_file')} [scheduler] allocation_file"
    from corescheduler.allocations import Allocations

    try:
        allocations = Allocations.from_file(alloc_path)
    except AllocationError as exc:
        click.echo(f"{name}: ok")
        if exc.line is None:
            exc = AllocationError(f"{exc.message} (named by {named_by})", exc.source)
        _report(alloc_name, exc)
        return False
    click.echo(f"{name}: ok")
    # every share policy the file names (schedulingMode) must be usable with this config
    uses: dict[str, tuple[str, int | None]] = {}
    for pool in allocations.pools.values():
        if pool.scheduling_mode is not None:
            uses.setdefault(pool.scheduling_mode, (f"pool {pool.name!r} schedulingMode", pool.line))
    uses.setdefault(allocations.default_pool_scheduling_mode, ("defaultPoolSchedulingMode", None))
    bad = False
    for mode, (what, line) in uses.items():
        try:
            plugin_set.share_policy(mode)
        except CoreSchedulerError as exc:
            where = f"{alloc_name}:{line}" if line is not None else alloc_name
            click.echo(f"{where}: {what} {mode!r} cannot be used with {name}: {one_line(str(exc))}")
            bad = True
    if bad:
        return False
    for warning in allocations.warnings:
        click.echo(f"warning: {one_line(warning)}")
    click.echo(f"{alloc_name}: ok")
    return True


# --------------------------------------------------------------------------- shares


@cli.command()
@config_option
@click.option(
    "--state",
    "state_path",
    metavar="FILE",
    required=True,
    type=click.Path(dir_okay=False),
    help="Snapshot JSON: cluster capacity, pool settings and jobs with their demand.",
)
@json_option
def shares(config_path: str | None, state_path: str, as_json: bool) -> None:
    """Print the fair share of every pool and job for a snapshot.

    Shares come from the scheduler itself (the config's plugins, its
    allocation file with the snapshot's pool settings on top).  The snapshot
    format is described in docs/cli.md.
    """
    from corescheduler.model import KINDS
    from corescheduler.shares import evaluate_snapshot, load_state

    config = load_config(config_path)
    state = load_state(state_path)
    scheduler = evaluate_snapshot(config, state, source=state_path)
    for warning in scheduler.allocations.warnings:
        click.echo(f"warning: {one_line(warning)}", err=True)
    result = scheduler.shares()
    if as_json:
        print_json(result)
        return

    snap = scheduler.snapshot()
    rows = []
    for name, pool in scheduler.pools.items():
        p = snap["pools"][name]
        rows.append(
            [
                name,
                *(_share(result["pools"][name][k]) for k in KINDS),
                *(str(p[k]["demand"]) for k in KINDS),
            ]
        )
        for job_id in pool.jobs:
            j = snap["jobs"][job_id]
            label = f"  {job_id}" + ("" if j["runnable"] else " (waiting)")
            rows.append(
                [
                    label,
                    *(_share(result["jobs"][job_id][k]) for k in KINDS),
                    *(str(j[k]["demand"]) for k in KINDS),
                ]
            )
    print_table(["pool / job", "map share", "reduce share", "map demand", "reduce demand"], rows, right=(1, 2, 3, 4))


def _share(value: float | None) -> str:
    """A share for a table: ``n/a`` for None, at most two decimals."""
    if value is None:
        return "n/a"
    text = f"{value:.2f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
