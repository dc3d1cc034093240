"""``corescheduler simulate`` and ``corescheduler compare`` (SPEC §4).

``simulate`` runs one configuration on one workload and writes
``DIR/metrics.json``, ``DIR/events.jsonl`` and ``DIR/report.html``;
``compare`` runs several configurations on the same workload and seed, each
into ``DIR/<label>/``, and writes one ``DIR/report.html`` with the runs
overlaid and ``DIR/compare.json``.  Without ``--config``, ``simulate`` uses
the bundled example (``corescheduler_examples``: ``corescheduler.toml`` and
its ``allocations.xml``).

Both print a summary table (rich on a terminal, plain text otherwise) and
show a progress bar on a terminal; ``--json`` prints the summary as JSON
instead and shows no progress.  Bad configs and workloads raise
:class:`~corescheduler.errors.CoreSchedulerError`, which the command group
turns into one ``error: FILE:LINE: …`` line and exit status 1.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import click

from corescheduler.cli.common import json_option, load_config, print_json, print_table, stdout_is_terminal

DEFAULT_WORKLOAD = "builtin:facebook"
EXAMPLES_PACKAGE = "corescheduler_examples"
EXAMPLE_CONFIG = "corescheduler.toml"


@contextlib.contextmanager
def bundled_example() -> Iterator[Path | None]:
    """The folder of the bundled example config (a real path for as long as
    the context lasts), or ``None`` if the examples package is missing."""
    from importlib.resources import as_file, files

    try:
        root = files(EXAMPLES_PACKAGE)
    except ModuleNotFoundError:
        yield None
        return
    with as_file(root) as folder:
        yield Path(folder)


def load_run_config(path: str | None) -> tuple[Any, Any, str]:
    """``(config, allocations, label)`` for ``--config path``, or for the
    bundled example when ``path`` is None (the defaults if it is missing)."""
    from corescheduler.config import Config
    from corescheduler.sim.simulator import load_allocations

    if path is not None:
        config = load_config(path)
        return config, load_allocations(config), Path(path).stem
    with bundled_example() as folder:
        if folder is None or not (folder / EXAMPLE_CONFIG).is_file():
            return Config.default(), None, "defaults"
        config = Config.from_file(folder / EXAMPLE_CONFIG)
        return config, load_allocations(config), "example"


def run_simulation(
    config: Any,
    allocations: Any,
    workload_spec: str,
    seed: int,
    out_dir: Path,
    progress: Callable[[float], None] | None = None,
) -> tuple[Any, Any]:
    """Load the workload for ``config``'s cluster and run it into ``out_dir``:
    ``(SimulationResult, Workload)``."""
    from corescheduler.formats.workloads import load_workload
    from corescheduler.sim.simulator import Simulation, build_cluster

    cluster = build_cluster(config)
    nodes = {name: node.rack for name, node in cluster.nodes.items()}
    workload = load_workload(workload_spec, config=config, seed=seed, nodes=nodes)
    sim = Simulation(config, workload, seed, allocations=allocations, out_dir=out_dir)
    return sim.run(progress=progress), workload


@contextlib.contextmanager
def progress_bars(enabled: bool) -> Iterator[Callable[[str], Callable[[float], None]] | None]:
    """A factory of progress callbacks (one bar per run) on a terminal, else None."""
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}% of jobs"),
        TimeElapsedColumn(), transient=True,
    ) as bars:

        def make(label: str) -> Callable[[float], None]:
            task = bars.add_task(label, total=1.0)
            return lambda fraction: bars.update(task, completed=fraction)

        yield make


def _labels(paths: Sequence[str]) -> list[str]:
    """Run labels from config file stems; duplicates get their folder, then a number."""
    stems = [Path(p).stem or "config" for p in paths]
    labels = []
    for p, stem in zip(paths, stems):
        if stems.count(stem) > 1:
            parent = Path(p).resolve().parent.name
            stem = f"{parent}-{stem}" if parent else stem
        labels.append(re.sub(r"[^\w.-]+", "_", stem))
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        if labels.count(label) > 1:
            seen[label] = seen.get(label, 0) + 1
            label = f"{label}-{seen[label]}"
        out.append(label)
    return out


def _note(workload: Any, seed: int, result: Any) -> str:
    s = result.metrics["summary"]
    cluster = s.get("cluster_resources")
    if cluster:  # resource mode
        shape = ", ".join(f"{v:,} {'MB' if k == 'memory' else k}" for k, v in cluster.items())
    else:
        shape = f"{s.get('map_slots')} map + {s.get('reduce_slots')} reduce slots"
    return (
        f"workload {workload.source} ({len(workload.jobs)} jobs), seed {seed}, "
        f"{s.get('nodes')} nodes ({shape}); "
        f"{result.events:,} events, {result.wall_time:.1f} s wall"
    )


# --------------------------------------------------------------------------- simulate


workload_option = click.option(
    "--workload",
    "workload_spec",
    metavar="W",
    default=DEFAULT_WORKLOAD,
    show_default=True,
    help="Workload JSON, SWIM .tsv or SLS JSON file, or builtin:facebook.",
)


def out_option(default: str, help_text: str) -> Any:
    """The ``--out DIR`` option of a command."""
    return click.option(
        "--out",
        "out_dir",
        metavar="DIR",
        default=default,
        show_default=True,
        type=click.Path(file_okay=False),
        help=help_text,
    )


@click.command()
@click.option(
    "--config",
    "config_path",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="corescheduler.toml to use (default: the bundled example).",
)
@workload_option
@click.option("--seed", type=int, default=0, show_default=True, help="Seeds heartbeats, replicas and the workload.")
@out_option("sim-out", "Folder for metrics.json, events.jsonl and report.html.")
@json_option
def simulate(config_path: str | None, workload_spec: str, seed: int, out_dir: str, as_json: bool) -> None:
    """Simulate a workload under a scheduler configuration.

    Writes DIR/metrics.json, DIR/events.jsonl and DIR/report.html and prints
    a summary.  With no arguments: the bundled example config and the
    built-in Facebook workload.
    """
    from corescheduler.sim.report import summary_rows, write_report

    config, allocations, label = load_run_config(config_path)
    out = Path(out_dir)
    with progress_bars(stdout_is_terminal() and not as_json) as bars:
        result, workload = run_simulation(
            config, allocations, workload_spec, seed, out, bars(label) if bars else None
        )
    report = write_report(
        out / "report.html",
        [(label, result.metrics)],
        title=f"corescheduler simulation: {label} on {workload.name}",
        notes=[f"config {config.source or 'built-in defaults'}", _note(workload, seed, result)],
    )
    if as_json:
        print_json(result.metrics["summary"])
        return
    rows = summary_rows([(label, result.metrics)])
    print_table(["measure", label], rows, right=(1,), title=_note(workload, seed, result))
    click.echo(f"wrote {result.metrics_path}, {result.events_path}, {report}")


# --------------------------------------------------------------------------- compare


@click.command()
@click.option(
    "--config",
    "config_paths",
    metavar="FILE",
    multiple=True,
    required=True,
    type=click.Path(dir_okay=False),
    help="A corescheduler.toml to compare (give two or more).",
)
@workload_option
@click.option("--seed", type=int, default=0, show_default=True, help="The same seed for every run.")
@out_option("compare-out", "Folder for report.html, compare.json and one sub-folder per run.")
@json_option
def compare(config_paths: tuple[str, ...], workload_spec: str, seed: int, out_dir: str, as_json: bool) -> None:
    """Run the same workload and seed under several configurations.

    Prints a side-by-side table (response times per job-size bin, locality,
    utilisation, preemptions, makespan) and writes one report with the runs
    overlaid to DIR/report.html; each run's metrics.json and events.jsonl go
    to DIR/<label>/, labels being the config file names.
    """
    from corescheduler.sim.report import summary_rows, write_report

    if len(config_paths) < 2:
        raise click.UsageError("compare needs at least two --config files")
    labels = _labels(config_paths)
    loaded = [load_run_config(path) for path in config_paths]  # every config checked before any run
    out = Path(out_dir)
    runs = []
    notes = []
    started = time.perf_counter()
    with progress_bars(stdout_is_terminal() and not as_json) as bars:
        for label, path, (config, allocations, _) in zip(labels, config_paths, loaded):
            result, workload = run_simulation(
                config, allocations, workload_spec, seed, out / label, bars(label) if bars else None
            )
            runs.append((label, result.metrics))
            notes.append(f"{label}: {path}; {_note(workload, seed, result)}")
    workload_name = workload.name
    report = write_report(out / "report.html", runs, title=f"corescheduler compare on {workload_name}", notes=notes)
    rows = summary_rows(runs)
    table = {"columns": ["measure", *labels], "rows": rows}
    summary = {
        "workload": workload_spec,
        "seed": seed,
        "runs": {label: {"config": path, "summary": m["summary"], "bins": m["bins"]}
                 for (label, m), path in zip(runs, config_paths)},
        "table": table,
    }
    (out / "compare.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    if as_json:
        print_json(summary)
        return
    print_table(["measure", *labels], rows, right=tuple(range(1, len(labels) + 1)),
                title=f"{workload_spec}, seed {seed}: {len(runs)} runs in {time.perf_counter() - started:.1f} s")
    click.echo(f"wrote {report}, {out / 'compare.json'} and {', '.join(str(out / label) for label in labels)}")
