"""``corescheduler check FILE...``: validate configs and allocation files."""

from __future__ import annotations

from pathlib import Path

import click

from corescheduler.cli.common import one_line
from corescheduler.errors import AllocationError, ConfigError, CoreSchedulerError


@click.command()
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
    from corescheduler.formats.allocation_file import load_allocations

    try:
        allocations = load_allocations(name)
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
    from corescheduler.formats.workloads import WorkloadSettings
    from corescheduler.plugin_manager import PluginSet
    from corescheduler.sim.simulator import SimulationOptions

    try:
        config = Config.from_file(name)
        plugin_set = PluginSet(config)
        SimulationOptions.from_config(config)  # [simulation]: the engine's keys and unknown ones
        WorkloadSettings.from_config(config)  # ... and the workload keys
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
    from corescheduler.formats.allocation_file import load_allocations

    try:
        allocations = load_allocations(alloc_path)
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
