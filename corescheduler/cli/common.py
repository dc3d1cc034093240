"""Helpers the command modules share: config loading, one-line errors, tables
(rich on a terminal, plain aligned text otherwise) and JSON output."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import click

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


def plugin_table_warnings(config: Any, allocations: Any = None) -> list[str]:
    """A warning for each ``[plugins.NAME]`` table of ``config`` that has no effect: no
    such plugin is installed (with the closest name), or neither ``[scheduler]`` nor
    the ``allocations`` (the share policies they name as ``schedulingMode``) put it to use."""
    from corescheduler.plugin_manager import DISABLE_AUTOLOAD_ENV, autoload_disabled, find_plugins

    used = set(config.scheduler.selected_plugins())
    if allocations is not None:
        used.update(allocation_policies(allocations))
    warnings = config.plugin_table_warnings(find_plugins(), used)
    if autoload_disabled():
        note = f" ({DISABLE_AUTOLOAD_ENV} is set: built-ins only)"
        warnings = [w + note if "is installed" in w else w for w in warnings]
    return warnings


def capacity_file_warnings(config: Any, allocations: Any) -> list[str]:
    """A warning when ``allocations`` is a YARN ``capacity-scheduler.xml`` that the config
    does not run under ``share_policy = "yarn_capacity"``: in slot mode nothing of it is
    read, and under another share policy only its tree and limits are — its capacities,
    user limits, ordering policies, states and queue-mappings are silently not used."""
    from corescheduler.config import locate

    if allocations is None or getattr(allocations, "dialect", None) != "yarn_capacity":
        return []
    s = config.scheduler
    source = allocations.source or "the allocation file"
    if s.mode != "resources":
        return [f"{source}: a YARN capacity-scheduler.xml, but {config.locate('scheduler', 'mode')} runs in slot "
                "mode (MR1), which reads none of its queues: set mode = \"resources\" and share_policy = "
                "\"yarn_capacity\" in [scheduler] (docs/yarn-capacity.md)"]
    if s.share_policy == "yarn_capacity":
        return []
    from corescheduler.plugin_manager import find_plugins

    if s.share_policy not in find_plugins():  # unknown (a misspelt yarn_capacity): its own error says so
        return []
    given = locate(config.text, "scheduler", "share_policy") is not None
    where = config.locate("scheduler", "share_policy") if given else f"the default; {config.source or 'the config'}"
    return [f"{source}: a YARN capacity-scheduler.xml, but [scheduler] share_policy is {s.share_policy!r} "
            f"({where}), not \"yarn_capacity\": its queues share by "
            "equal weights, and their capacities, user limits, ordering policies, states, "
            "maximum-applications and queue-mappings are not used (only the tree, maximum capacities, "
            "ACLs, max-parallel-apps and the AM percent are); set share_policy = \"yarn_capacity\" "
            "(docs/yarn-capacity.md)"]


def allocation_policies(allocations: Any) -> dict[str, tuple[str, int | None]]:
    """Every share policy an allocation file names, with where it first does: an MR1
    file's ``schedulingMode`` and ``defaultPoolSchedulingMode``, a YARN file's
    ``schedulingPolicy`` and ``defaultQueueSchedulingPolicy`` (when written)."""
    uses: dict[str, tuple[str, int | None]] = {}
    for pool in allocations.pools.values():
        if pool.scheduling_mode is not None:
            uses.setdefault(pool.scheduling_mode, (f"pool {pool.name!r} schedulingMode", pool.line))
    if allocations.dialect == "yarn" and allocations.queues is not None:
        tree = allocations.queues
        for spec in tree.queues.values():
            if spec.scheduling_policy is not None:
                uses.setdefault(spec.scheduling_policy, (f"queue {spec.name!r} schedulingPolicy", spec.line))
        if tree.default_policy_given:
            uses.setdefault(tree.default_queue_scheduling_policy, ("defaultQueueSchedulingPolicy", None))
    else:
        uses.setdefault(allocations.default_pool_scheduling_mode, ("defaultPoolSchedulingMode", None))
    return uses


def plugin_settings_warnings(plugins: Any, nodes: int | None = None) -> list[str]:
    """What the plugins in use say about their settings: each plugin instance's optional
    ``settings_warnings(nodes)`` (docs/plugin-authors.md), ``nodes`` the cluster's node count
    (None: ``[cluster]``'s), in config order, each once."""
    warnings: list[str] = []
    for instance in plugins.instances.values():
        method = getattr(instance, "settings_warnings", None)
        if callable(method):
            warnings += [w for w in method(nodes) if w not in warnings]
    return warnings


def warn_plugin_settings(plugins: Any, nodes: int | None = None) -> None:
    """Print :func:`plugin_settings_warnings` on standard error, ``warning: …`` each."""
    for warning in plugin_settings_warnings(plugins, nodes):
        click.echo(f"warning: {one_line(warning)}", err=True)


def warn_config(config: Any, allocations: Any = None) -> None:
    """Print on standard error, ``warning: …`` each, what ``check`` warns of in a config a
    run is about to use: the allocation file's warnings (an unknown element or key, a value
    read as another), :func:`plugin_table_warnings` and :func:`capacity_file_warnings`."""
    found = [*(allocations.warnings if allocations is not None else ()),
             *plugin_table_warnings(config, allocations), *capacity_file_warnings(config, allocations)]
    for warning in found:
        click.echo(f"warning: {one_line(warning)}", err=True)


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
