"""``corescheduler check FILE...``: validate configs and allocation files."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from corescheduler.cli.common import one_line, plugin_table_warnings
from corescheduler.errors import AllocationError, ConfigError, CoreSchedulerError, PluginLoadError
from corescheduler.plugin_manager import REQUIRED_HOOK, PluginSet, hooks_of, load_plugin, name_clash


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


class _Problems:
    """The problems found in one config, printed together in the file's order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.lines: list[str] = []

    def add(self, exc: CoreSchedulerError | str) -> None:
        if isinstance(exc, str):
            self.lines.append(one_line(exc))
            return
        for problem in exc.problems if isinstance(exc, ConfigError) else [str(exc)]:
            self.lines.append(one_line(problem))

    def report(self) -> bool:
        """Print every problem (by line where the message has one); True if none."""
        line = re.compile(re.escape(self.name) + r":(\d+):")

        def order(text: str) -> float:
            m = line.match(text)
            return int(m.group(1)) if m else math.inf

        seen: set[str] = set()
        for problem in sorted(map(one_line, self.lines), key=order):
            if problem not in seen:
                seen.add(problem)
                click.echo(problem if problem.startswith(self.name) else f"{self.name}: {problem}")
        return not self.lines


def _check_config(name: str, checked: set[Path]) -> bool:
    """Check a config: every section and every key, each problem reported (not only the
    first section's); then the allocation file it names."""
    from corescheduler.config import Config
    from corescheduler.formats.workloads import WorkloadSettings
    from corescheduler.sim.simulator import SimulationOptions

    found = _Problems(name)
    try:
        config = Config.from_file(name, problems=found.lines)
    except CoreSchedulerError as exc:  # unreadable, or not TOML: nothing more to check
        _report(name, exc)
        return False
    plugin_set = _CheckingPlugins(config)
    for error in plugin_set.errors:
        found.add(error)
    for read in (SimulationOptions.from_config, WorkloadSettings.from_config):  # [simulation]'s keys
        try:
            read(config)
        except CoreSchedulerError as exc:
            found.add(exc)
    if config.service:
        _check_service(config, found)
    ok = found.report()
    alloc_path = config.allocation_path()
    allocations = None
    if alloc_path is not None and _resolved(alloc_path) not in checked:
        checked.add(_resolved(alloc_path))
        allocations = _config_allocations(config, alloc_path, name, plugin_set, ok)
        ok = ok and allocations is not None
    else:
        if ok:
            click.echo(f"{name}: ok")
        if alloc_path is not None:  # checked on its own: read again for its schedulingModes
            allocations = _quietly(alloc_path)
    for warning in plugin_table_warnings(config, allocations):
        click.echo(f"warning: {one_line(warning)}")
    return ok


def _quietly(path: Path) -> Any:
    """The allocations at ``path``, or None if they cannot be read (reported elsewhere)."""
    from corescheduler.formats.allocation_file import load_allocations

    try:
        return load_allocations(path)
    except CoreSchedulerError:
        return None


def _check_service(config: Any, found: _Problems) -> None:
    """``[service]``'s keys, as ``corescheduler serve`` reads them (its first problem)."""
    try:
        from corescheduler.service.service import ServiceSettings
    except ImportError:  # pragma: no cover - a part of the service extra is missing: serve says so
        return
    try:
        ServiceSettings.from_config(config)
    except CoreSchedulerError as exc:
        message = str(exc)
        m = re.match(r"\[service\] (\w+):", message)
        found.add(f"{config.locate('service', m.group(1) if m else None)}: {message}")


def _scheduling_modes(allocations: Any) -> dict[str, tuple[str, int | None]]:
    """Every share policy an allocation file names (``schedulingMode``): where it does."""
    uses: dict[str, tuple[str, int | None]] = {}
    for pool in allocations.pools.values():
        if pool.scheduling_mode is not None:
            uses.setdefault(pool.scheduling_mode, (f"pool {pool.name!r} schedulingMode", pool.line))
    uses.setdefault(allocations.default_pool_scheduling_mode, ("defaultPoolSchedulingMode", None))
    return uses


def _config_allocations(config: Any, alloc_path: Path, name: str, plugin_set: Any, config_ok: bool) -> Any:
    """Check the allocation file a config names; its allocations if good, else None
    (after printing why)."""
    from corescheduler.formats.allocation_file import load_allocations

    alloc_name = str(alloc_path)
    named_by = f"{config.locate('scheduler', 'allocation_file')} [scheduler] allocation_file"
    try:
        allocations = load_allocations(alloc_path)
    except AllocationError as exc:
        if config_ok:
            click.echo(f"{name}: ok")
        if exc.line is None:
            exc = AllocationError(f"{exc.message} (named by {named_by})", exc.source)
        _report(alloc_name, exc)
        return None
    if config_ok:
        click.echo(f"{name}: ok")
    # every share policy the file names (schedulingMode) must be usable with this config
    bad = False
    for mode, (what, line) in _scheduling_modes(allocations).items():
        try:
            plugin_set.share_policy(mode)
        except CoreSchedulerError as exc:
            where = f"{alloc_name}:{line}" if line is not None else alloc_name
            click.echo(f"{where}: {what} {mode!r} cannot be used with {name}: {one_line(str(exc))}")
            bad = True
    if bad:
        return None
    for warning in allocations.warnings:
        click.echo(f"warning: {one_line(warning)}")
    click.echo(f"{alloc_name}: ok")
    return allocations


def _no_opinion(*args: Any) -> None:
    return None


class _CheckingPlugins(PluginSet):
    """A :class:`PluginSet` that goes on past a plugin that cannot be used: the
    problem is recorded in :attr:`errors` and a stand-in that answers nothing takes
    the plugin's place, so that every plugin the config selects is checked (its
    name, its loading, its ``[plugins.NAME]`` settings, its extension point's hook).
    Once built, it raises as a plain :class:`PluginSet` does (the allocation file's
    share policies are reported against that file)."""

    def __init__(self, config: Any) -> None:
        self.errors: list[CoreSchedulerError] = []
        self._checking = True
        super().__init__(config)
        self._checking = False

    def _stand_in(self, name: str) -> None:
        """Put a stand-in in the place of plugin ``name``, which could not be used: it has
        the hooks of the plugin's class when that can be imported (so that a plugin named
        at the wrong extension point is still reported), else every required hook."""
        hooks: set[str] = {*REQUIRED_HOOK.values(), "cs_order_key"}
        origin = f"<not loaded>[{name}]"
        target = self.extra.get(name)
        info = self.available.get(name)
        if target is None and info is not None and name not in self.blocked and name_clash(name) is None:
            origin = info.origin
            try:
                target = load_plugin(info)
            except PluginLoadError:
                target = None
        if target is not None:
            hooks = set(hooks_of(target)) or hooks
        self.instances[name] = None
        self.origins[name] = origin
        self._impls[name] = dict.fromkeys(hooks, _no_opinion)

    def ensure(self, name: str, point: str, key: str | None = None) -> Any:
        try:
            return super().ensure(name, point, key)
        except CoreSchedulerError as exc:
            if not self._checking:
                raise
            self.errors.append(exc)
            self._stand_in(name)
            return None

    def _caller(self, point: str, name: str, key: str) -> Callable[..., Any]:
        try:
            return super()._caller(point, name, key)
        except CoreSchedulerError as exc:  # loaded, but not a plugin of this extension point
            if not self._checking:
                raise
            self.errors.append(exc)
            return _no_opinion

    def _policy_hook(self, name: str, hook: str) -> Callable[..., Any]:
        try:
            return super()._policy_hook(name, hook)
        except CoreSchedulerError as exc:
            if not self._checking:
                raise
            self.errors.append(exc)
            return _no_opinion
