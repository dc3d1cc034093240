"""``corescheduler plugins``: the discovered plugins and what they implement."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from corescheduler.cli.common import (
    config_option,
    json_option,
    load_config,
    one_line,
    print_json,
    print_table,
    stdout_is_terminal,
)
from corescheduler.wording import plural

#: the width the plugin table keeps to without --verbose (the hooks column gives way)
WIDTH = 100
#: the narrowest the hooks column gets, however wide the other columns are
MIN_HOOKS_WIDTH = 24

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


def shorten(items: Sequence[str], width: int, noun: str = "hook") -> str:
    """``items`` comma-joined in at most ``width`` characters: as many as fit, then ``+N more``."""
    full = ", ".join(items)
    if len(full) <= width:
        return full
    for keep in range(len(items) - 1, 0, -1):
        text = f"{', '.join(items[:keep])}, +{len(items) - keep} more"
        if len(text) <= width:
            return text
    return plural(len(items), noun)


def _main_first(hooks: Sequence[str], points: Sequence[str]) -> list[str]:
    """``hooks`` with its extension points' own hooks first, in the order the points define
    them (the defining hook first: ``cs_select_task`` before ``cs_select_hint``), then the rest."""
    from corescheduler.hookspecs import EXTENSION_POINTS

    rank = {hook: i for point in points for i, hook in enumerate(EXTENSION_POINTS.get(point, ()))}
    return sorted(hooks, key=lambda h: (h not in rank, rank.get(h, 0)))


@click.command()
@config_option
@click.option("--verbose", "-v", is_flag=True,
              help="List every hook, however wide the table gets.")
@json_option
def plugins(config_path: str | None, verbose: bool, as_json: bool) -> None:
    """List discovered plugins and what they implement.

    Shows each plugin's name, extension points, hooks, distribution and version,
    in 100 columns: a long hook list is shortened (--verbose or --json lists
    every hook).

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

    columns = ["name", "extension points", "hooks", "distribution", "version"]
    # plain text: two spaces between columns; rich: a border and padding around each
    overhead = 3 * len(columns) + 1 if stdout_is_terminal() else 2 * (len(columns) - 1)
    fixed = [max([len(c), *(len(row[k]) for row in rows)]) for c, k in
             (("name", "name"), ("distribution", "dist"), ("version", "version"))]
    point_room = max(len(columns[1]), WIDTH - sum(fixed) - MIN_HOOKS_WIDTH - overhead)
    points_of: dict[str, str] = {}
    for row in rows:  # a plugin at several extension points may need its list shortened too
        text = ", ".join(row["points"]) or "-"
        if not verbose and len(text) > point_room:
            text = shorten(row["points"], point_room, "extension point")
        points_of[row["name"]] = text
    points_shortened = any(points_of[row["name"]] != (", ".join(row["points"]) or "-") for row in rows)
    others = [[row["name"], points_of[row["name"]], row["dist"], row["version"]] for row in rows]
    widths = [max([len(c), *(len(r[i]) for r in others)]) for i, c in enumerate(columns[:2] + columns[3:])]
    room = max(MIN_HOOKS_WIDTH, WIDTH - sum(widths) - overhead)
    table = []
    shortened = False
    for row in rows:
        if row["error"] == "blocked":
            points, hooks = "-", "blocked ([scheduler] blocked_plugins)"
        elif row["error"] is not None:
            points, hooks = "-", f"error: {one_line(row['error'])}"  # whole: what to fix
        else:
            points = points_of[row["name"]]
            hooks = ", ".join(row["hooks"]) or "-"
            if not verbose and len(hooks) > room:
                hooks, shortened = shorten(_main_first(row["hooks"], row["points"]), room), True
        table.append([row["name"], points, hooks, row["dist"], row["version"]])
    print_table(columns, table)
    if points_shortened:
        click.echo("(extension points shortened to fit 100 columns: --verbose or --json lists them all)")
    if shortened:
        click.echo("(hooks shortened to fit 100 columns: --verbose or --json lists them all)")
    if selected is not None:
        click.echo()
        point_rows = [
            [key, ", ".join(f"{p['name']} ({p['origin']})" for p in plugs) or "-"] for key, plugs in selected.items()
        ]
        print_table(["extension point", "plugins"], point_rows, title=f"{config.source}: ok")
