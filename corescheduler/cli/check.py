"""``corescheduler check FILE...``: validate configs and allocation files."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from corescheduler.cli.common import (
    capacity_file_warnings,
    one_line,
    plugin_settings_warnings,
    plugin_table_warnings,
)
from corescheduler.core.framework import SharePolicyCallers
from corescheduler.errors import ConfigError, CoreSchedulerError, LocatedError, PluginLoadError
from corescheduler.plugin_manager import (
    REQUIRED_HOOK,
    PluginSet,
    hooks_of,
    load_plugin,
    name_clash,
)


@click.command()
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
def check(files: tuple[str, ...]) -> None:
    """Validate TOML configs and allocation files.

    A .toml file is read as corescheduler.toml: its plugins are loaded with
    their settings, and the allocation file it names is checked too.  A .xml
    file is read as an allocation file.  Other files are sniffed (XML if they
    start with "<").  Prints each error on a line of its own (FILE:LINE: message),
    and "FILE: ok" for a file only when it and every file it names are good;
    exits 1 if any failed.
    """
    checked: dict[Path, bool] = {}
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


def _lines(name: str, exc: CoreSchedulerError, named_by: str | None = None) -> list[str]:
    """Each problem of ``exc`` (found in file ``name``) as a line of its own:
    ``FILE:LINE: message``, or ``FILE: message`` where it has no line (then followed by
    ``(named by …)`` when ``named_by`` says which setting named the file)."""
    if isinstance(exc, LocatedError):
        lines = []
        for line, message in exc.problems:
            if line is not None:
                lines.append(f"{exc.source}:{line}: {one_line(message)}")
            else:
                lines.append(f"{exc.source}: {one_line(message)}" + (f" (named by {named_by})" if named_by else ""))
        return lines
    problems = exc.problems if isinstance(exc, ConfigError) else [str(exc)]
    return [p if p.startswith(f"{name}:") else f"{name}: {p}" for p in map(one_line, problems)]


def _report(name: str, exc: CoreSchedulerError, named_by: str | None = None) -> None:
    for line in _lines(name, exc, named_by):
        click.echo(line)


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


def _check_file(name: str, checked: dict[Path, bool]) -> bool:
    """Check one file (once; ``checked`` holds each file's result); True if it is good."""
    path = _resolved(name)
    if path in checked:
        return checked[path]
    if _kind(name) == "xml":
        ok = _check_allocations(name)
    else:  # (a config naming itself as its allocation file is read as one there, and fails)
        ok = _check_config(name, checked)
    checked[path] = ok
    return ok


#: the root element of Hadoop's capacity-scheduler.xml (and of every *-site.xml)
_NOT_ALLOCATIONS = "top-level element must be <allocations>, found <configuration>"


def _check_allocations(name: str) -> bool:
    from corescheduler.formats.allocation_file import load_allocations

    try:
        allocations = load_allocations(name)
    except CoreSchedulerError as exc:
        lines = _lines(name, exc)
        if len(lines) == 1 and lines[0].endswith(_NOT_ALLOCATIONS):  # a Hadoop *-site.xml or capacity file
            lines[0] += ("; a Hadoop <configuration> file is not an allocation file: an MR1 capacity-scheduler.xml "
                         "(mapred.capacity-scheduler.*) is checked through the config that names it "
                         "([plugins.capacity] config_file); a YARN one (yarn.scheduler.capacity.*) is checked on "
                         "its own")
        for line in lines:
            click.echo(line)
        return False
    refused = _capacity_policy_refusal(allocations)
    if refused is not None:
        _report(name, refused)
        return False
    for warning in allocations.warnings:
        click.echo(f"warning: {one_line(warning)}")
    click.echo(f"{name}: ok")
    return True


def _capacity_policy_refusal(allocations: Any) -> CoreSchedulerError | None:
    """What the ``yarn_capacity`` policy refuses in a YARN capacity file that its reader
    takes (the preemption monitor's settings, read as the policy takes the file), so that
    ``check capacity-scheduler.xml`` on its own says what ``simulate`` would; None if
    nothing, or for another file."""
    if getattr(allocations, "dialect", None) != "yarn_capacity":
        return None
    from corescheduler.config import Config
    from corescheduler.plugin_manager import PluginSet

    config = Config.from_dict({"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}})
    try:
        PluginSet(config).share_policy("yarn_capacity").policy.configure(allocations)
    except CoreSchedulerError as exc:
        return exc
    return None


class _Problems:
    """The problems found in one config, printed together in the file's order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.lines: list[str] = []

    def add(self, exc: CoreSchedulerError | str) -> None:
        if isinstance(exc, str):
            self.lines.append(one_line(exc))
            return
        self.lines.extend(_lines(self.name, exc))

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
                problem = problem if problem.startswith(f"{self.name}:") else f"{self.name}: {problem}"
                click.echo(_in_named_file(self.name, problem))
        return not self.lines


#: ``CONFIG:LINE: [plugins.NAME] KEY: …`` where KEY names a file (``config_file``, ``…_file``)
_FILE_SETTING = re.compile(r"(?P<where>.+?:\d+): (?P<key>\[plugins\.[^\]]+\] [\w.-]*file): (?P<rest>.+)")
#: ``FILE:LINE: message`` or ``FILE: message`` (a path without ": " in it)
_IN_FILE = re.compile(r"(?P<file>[^\s:][^:]*?)(?::(?P<line>\d+))?: (?P<message>.+)")


def _in_named_file(name: str, problem: str) -> str:
    """A problem a plugin found in a file one of its settings names (the capacity plugin's
    ``config_file``) reads ``CONFIG:5: [plugins.capacity] config_file: cap.xml:3: message``:
    put it where it is, ``cap.xml:3: message`` (``cap.xml: message (named by CONFIG:5
    [plugins.capacity] config_file)`` without a line), as an allocation file's problems
    are, so that every line starts with the file and line of the problem."""
    setting = _FILE_SETTING.fullmatch(problem)
    if setting is None or not setting["where"].startswith(f"{name}:"):
        return problem
    inner = _IN_FILE.fullmatch(setting["rest"])
    if inner is None or not (os.path.isfile(inner["file"]) or inner["message"].startswith("cannot read")):
        return problem
    if inner["line"]:  # as an allocation file's problems: the line says where
        return f"{inner['file']}:{inner['line']}: {inner['message']}"
    return f"{inner['file']}: {inner['message']} (named by {setting['where']} {setting['key']})"


def _check_config(name: str, checked: dict[Path, bool]) -> bool:
    """Check a config: every section and every key, each problem reported (not only the
    first section's); then the allocation file it names.  "NAME: ok" comes last, and
    only when the allocation file is good too."""
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
    if alloc_path is not None:
        allocations = _config_allocations(config, alloc_path, name, plugin_set, checked)
        ok = ok and allocations is not None
    if ok:
        click.echo(f"{name}: ok")
    if allocations is None and alloc_path is not None:
        allocations = _quietly(alloc_path)  # read, but a policy it names failed: still a use
    settings = plugin_settings_warnings(plugin_set)
    warnings = plugin_table_warnings(config, allocations)
    # a share policy that failed, or a refused [scheduler] mode or share_policy: its error says what to set
    refused = any("[scheduler] share_policy:" in line or "[scheduler] mode:" in line for line in found.lines)
    if not plugin_set.failed(config.scheduler.share_policy) and not refused:
        warnings += capacity_file_warnings(config, allocations)
    for warning in warnings + _slot_only_warnings(config, plugin_set) + settings:
        click.echo(f"warning: {one_line(warning)}")
    return ok


#: hooks resource mode does not ask (cs_node_capacity: asked, its answer unused): docs/hooks.md
SLOT_ONLY_HOOKS = frozenset({
    "cs_can_assign", "cs_can_launch", "cs_select_hint",
    "cs_select_victims", "cs_node_capacity",
})

#: [scheduler] keys that name one plugin, and their resource-mode defaults (a default is not warned of)
_PLUGIN_KEYS = {"load_manager": "slots", "task_selector": "locality", "victim_selector": "newest",
                "share_policy": None}


def _slot_only_warnings(config: Any, plugin_set: Any) -> list[str]:
    """In resource mode, a warning for each plugin ``[scheduler]`` selects whose hooks are all
    slot-mode only (``load_manager = "cap_based"``): it has no effect there."""
    s = config.scheduler
    if s.mode != "resources":
        return []
    chosen = [(key, getattr(s, key)) for key, default in _PLUGIN_KEYS.items() if getattr(s, key) != default]
    chosen += [(key, name) for key in ("weight_adjusters", "pool_resolver", "listeners") for name in getattr(s, key)]
    out = []
    for key, name in chosen:
        obj = plugin_set.instances.get(name)
        hooks = set(hooks_of(obj)) if obj is not None else set()
        if hooks and hooks <= SLOT_ONLY_HOOKS:
            out.append(f"{config.locate('scheduler', key)}: [scheduler] {key} = {name!r} has no effect in resource "
                       f"mode (mode = \"resources\"): its hooks ({', '.join(sorted(hooks))}) are slot mode only "
                       "(docs/hooks.md)")
    return out


def _quietly(path: Path) -> Any:
    """The allocations at ``path``, or None if they cannot be read (reported elsewhere)."""
    from corescheduler.formats.allocation_file import load_allocations

    try:
        return load_allocations(path)
    except CoreSchedulerError:
        return None


def _check_service(config: Any, found: _Problems) -> None:
    """``[service]``'s keys, as ``corescheduler serve`` reads them (every problem)."""
    try:
        from corescheduler.service.service import ServiceSettings
    except ImportError:  # pragma: no cover - a part of the service extra is missing: serve says so
        return
    problems: list[str] = []
    try:
        ServiceSettings.from_config(config, problems)
    except CoreSchedulerError as exc:
        problems.append(str(exc))
    for message in problems:
        m = re.match(r"\[service\] (\w+):", message)
        found.add(f"{config.locate('service', m.group(1) if m else None)}: {message}")


def _scheduling_modes(allocations: Any) -> dict[str, tuple[str, int | None]]:
    """Every share policy an allocation file names (MR1 ``schedulingMode``, YARN
    ``schedulingPolicy``): where it does."""
    from corescheduler.cli.common import allocation_policies

    return allocation_policies(allocations)


def _config_allocations(config: Any, alloc_path: Path, name: str, plugin_set: Any, checked: dict[Path, bool]) -> Any:
    """Check the allocation file a config names (its own problems once, however many
    files name it; its share policies against this config); its allocations if good,
    else None (after printing why)."""
    from corescheduler.formats.allocation_file import load_allocations

    alloc_name = str(alloc_path)
    located = config.locate("scheduler", "allocation_file")
    named_by = f"{located} [scheduler] allocation_file"
    path = _resolved(alloc_path)
    if path in checked:  # given on the command line too (or named by another config): reported there
        allocations = _quietly(alloc_path) if checked[path] else None
        if allocations is None:
            click.echo(f"{located}: [scheduler] allocation_file: {alloc_name} has errors (reported above)")
            return None
        first = False
    else:
        checked[path] = False
        try:
            allocations = load_allocations(alloc_path)
        except CoreSchedulerError as exc:
            _report(alloc_name, exc, named_by)
            return None
        first = True
    # every share policy the file names (schedulingMode) must be usable with this config
    bad = False
    for mode, (what, line) in _scheduling_modes(allocations).items():
        try:
            plugin_set.share_policy(mode)
        except CoreSchedulerError as exc:
            where = f"{alloc_name}:{line}" if line is not None else alloc_name
            reason = one_line(str(exc)).removeprefix(f"{name}: ")
            click.echo(f"{where}: {what} {mode!r} cannot be used with {name}: {reason}")
            bad = True
    if not bad and config.scheduler.mode == "resources":
        # each policy takes the file as a run's start does (SharePolicy.configure): what only a
        # policy reads (yarn_capacity's preemption settings, its need of a capacity file) is
        # refused here, not when the run starts
        for mode in dict.fromkeys([config.scheduler.share_policy, *_scheduling_modes(allocations)]):
            if plugin_set.failed(mode):  # its problem is the config's, reported on its line
                continue
            try:
                plugin_set.share_policy(mode).policy.configure(allocations)
            except CoreSchedulerError as exc:
                _report(alloc_name, exc, named_by)
                bad = True
    if bad:
        return None
    if first:
        checked[path] = True
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
        #: plugins that could not be used (a stand-in holds their place) / that are used at
        #: an extension point they do not implement (already reported there)
        self._failed: set[str] = set()
        self._misplaced: set[str] = set()
        self._checking = True
        super().__init__(config)
        self._checking = False

    def _stand_in(self, name: str) -> None:
        """Put a stand-in in the place of plugin ``name``, which could not be used: it has
        the hooks of the plugin's class when that can be imported (so that a plugin named
        at the wrong extension point is still reported), else every required hook."""
        hooks: set[str] = set(REQUIRED_HOOK.values())
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
        if self._checking and name in self._failed:
            if key is None:  # a use with no key of its own: the problem was reported where it is named
                return None
            # named again (another key): its own problem, with its own line, not the stand-in
            stand_in = (self.instances.pop(name), self.origins.pop(name), self._impls.pop(name))
            try:
                super().ensure(name, point, key)
            except CoreSchedulerError as exc:
                self.errors.append(exc)
            self.instances[name], self.origins[name], self._impls[name] = stand_in
            return None
        try:
            return super().ensure(name, point, key)
        except CoreSchedulerError as exc:
            if not self._checking:
                raise
            self.errors.append(exc)
            self._failed.add(name)
            self._stand_in(name)
            return None

    def _caller(self, point: str, name: str, key: str) -> Callable[..., Any]:
        try:
            return super()._caller(point, name, key)
        except CoreSchedulerError as exc:  # loaded, but not a plugin of this extension point
            if not self._checking:
                raise
            self.errors.append(exc)
            self._misplaced.add(name)
            return _no_opinion

    def failed(self, name: str) -> bool:
        """Whether plugin ``name`` could not be used (its problem is in :attr:`errors`)."""
        return name in self._failed or name in self._misplaced

    def share_policy(self, name: str, key: str | None = None) -> SharePolicyCallers:
        if self._checking and name not in self.instances:
            self.ensure(name, "SharePolicy", key)
            if name in self._failed:  # reported; its stand-in answers nothing (no "returned None" after it)
                return _stand_in_policy(name)
        if self._checking and self.instances.get(name, True) is None:  # a stand-in
            if key is not None:
                self.ensure(name, "SharePolicy", key)  # named again: its own problem, with its own line
            return _stand_in_policy(name)
        try:
            return super().share_policy(name, key)
        except CoreSchedulerError as exc:
            if not self._checking:
                raise
            if name not in self._misplaced:  # else "is not a SharePolicy" already said it, with its line
                self.errors.append(exc)
            self._misplaced.add(name)
            return _stand_in_policy(name)


def _stand_in_policy(name: str) -> SharePolicyCallers:
    """The callers of a share policy that could not be used (it answers nothing)."""
    return SharePolicyCallers(name, _no_opinion, _no_opinion, None)
