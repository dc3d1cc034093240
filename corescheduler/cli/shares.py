"""``corescheduler shares``: the fair shares of a cluster state file."""

from __future__ import annotations

import click

from corescheduler.cli.common import config_option, json_option, load_config, one_line, print_json, print_table


@click.command()
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
    from corescheduler.core.model import KINDS
    from corescheduler.formats.state import evaluate_snapshot, load_state

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
