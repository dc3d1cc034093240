"""``corescheduler plugins``: the discovered plugins and what they implement."""

from __future__ import annotations

from typing import Any

import click

from corescheduler.cli.common import config_option, json_option, load_config, one_line, print_json, print_table

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


@click.command()
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
