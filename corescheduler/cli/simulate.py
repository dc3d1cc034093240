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

from corescheduler.cli.common import (
    json_option,
    load_config,
    print_json,
    print_table,
    stdout_is_terminal,
    warn_config,
    warn_plugin_settings,
)
from corescheduler.wording import plural

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
        return config, _named_allocations(config, load_allocations), printable_path(Path(path).stem)
    with bundled_example() as folder:
        if folder is None or not (folder / EXAMPLE_CONFIG).is_file():
            return Config.default(), None, "defaults"
        config = Config.from_file(folder / EXAMPLE_CONFIG)
        return config, load_allocations(config), "example"


def _named_allocations(config: Any, load: Callable[[Any], Any]) -> Any:
    """``load(config)``'s allocations; an allocation file that cannot be read at all (no line
    to point at) is said to be named by the config's ``allocation_file``, as ``check`` says
    it: the path is taken from the config's folder, so the message says whose it is."""
    from corescheduler.errors import AllocationError

    try:
        return load(config)
    except AllocationError as exc:
        if exc.line is not None or len(exc.problems) != 1:
            raise
        named = f"{config.locate('scheduler', 'allocation_file')} [scheduler] allocation_file"
        raise AllocationError(f"{exc.message} (named by {named})", exc.source) from None


def run_simulation(
    config: Any,
    allocations: Any,
    workload_spec: str,
    seed: int,
    out_dir: Path,
    progress: Callable[[float], None] | None = None,
    warn: bool = False,
) -> tuple[Any, Any]:
    """Load the workload for ``config``'s cluster and run it into ``out_dir``:
    ``(SimulationResult, Workload)``; with ``warn``, first print what the plugins say about
    their settings for that cluster (:func:`warn_plugin_settings`)."""
    from corescheduler.formats.workloads import load_workload
    from corescheduler.sim.simulator import Simulation, build_cluster

    cluster = build_cluster(config)
    nodes = {name: node.rack for name, node in cluster.nodes.items()}
    workload = load_workload(workload_spec, config=config, seed=seed, nodes=nodes)
    sim = Simulation(config, workload, seed, allocations=allocations, out_dir=out_dir)
    if warn:
        warn_plugin_settings(sim.scheduler.plugins, len(cluster.nodes))
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


def printable_path(text: str) -> str:
    """A file name safe to write into a report (see :func:`corescheduler.formats.workloads.printable_path`)."""
    from corescheduler.formats.workloads import printable_path as printable

    return printable(text)


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
        shape = f"{plural(s.get('map_slots') or 0, 'map slot')} + {plural(s.get('reduce_slots') or 0, 'reduce slot')}"
    return (
        f"workload {workload.source} ({plural(len(workload.jobs), 'job')}), seed {seed}, "
        f"{plural(s['nodes'], 'node') if isinstance(s.get('nodes'), int) else s.get('nodes')} ({shape}); "
        f"{result.events:,} events, {result.wall_time:.1f} s wall"
    )


#: rejected or unfinished jobs printed one by one per run; report.html and metrics.json have them all
MAX_NOT_RUN_LINES = 20


def _stall_timeout(config: Any) -> float:
    from corescheduler.sim.simulator import SimulationOptions

    return SimulationOptions.from_config(config).stall_timeout


def _echo_not_run(label: str, metrics: Any, stall_timeout: float, *, several: bool = False) -> None:
    """The run's rejected and unfinished jobs, one a line with its reason (nothing if every job finished)."""
    from corescheduler.sim.report import STALLED, not_run, not_run_counts

    rows = not_run(metrics)
    if not rows:
        return
    rejected, unfinished = not_run_counts(metrics)
    parts = [f"{n:,} {what}" for n, what in ((rejected, "rejected"), (unfinished, "did not finish")) if n]
    click.echo()
    click.echo(f"{label + ': ' if several else ''}jobs that did not run to the end: {', '.join(parts)}")
    stalled = STALLED.replace("[simulation] stall_timeout", f"[simulation] stall_timeout ({stall_timeout:g} s)")
    for row in rows[:MAX_NOT_RUN_LINES]:
        pool = f" (pool {row['pool']})" if row["pool"] else ""
        reason = row["reason"].replace(STALLED, stalled)
        click.echo(f"  {row['job']}{pool} {row['outcome']}: {reason}")
    if len(rows) > MAX_NOT_RUN_LINES:
        click.echo(f"  ... and {len(rows) - MAX_NOT_RUN_LINES:,} more (report.html, metrics.json)")


#: a placement refusal naming the queue that does not exist (YARN's "… to unknown queue: NAME")
_UNKNOWN_QUEUE = re.compile(r"unknown queue: (\S+)")


def swim_pools_note(config: Any, metrics: Any, workload_spec: str) -> str | None:
    """A note when jobs of the SWIM trace ``workload_spec`` were refused for naming a queue the
    allocation file lacks and those queues are the ``pool0…`` its jobs are given
    (``[simulation] pools``, 10 by default): the operator's file names its own queues, and
    the cure is in the config.  Likewise for the built-in workload (``--workload`` left out),
    whose jobs each name a pool ``pool00…`` of their own."""
    from corescheduler.formats.workloads import WorkloadSettings, is_swim_trace

    if not metrics.get("rejected"):
        return None
    names = {m.group(1) for reason in (metrics.get("rejected") or {}).values()
             if (m := _UNKNOWN_QUEUE.search(str(reason)))}
    if workload_spec == DEFAULT_WORKLOAD:  # simulate --config yours.toml, with no --workload
        own = sorted(n for n in names if re.fullmatch(r"pool\d+", n))
        if not own:
            return None
        shown = ", ".join(own) if len(own) <= 3 else f"{own[0]}, {own[1]} … {own[-1]}"
        return (f"note: the queues {shown} that jobs were refused for are the built-in Facebook workload's, "
                f"which gives every job a pool of its own ({DEFAULT_WORKLOAD}, the default of --workload); "
                "give a workload whose jobs name your queues, or none (--workload FILE: docs/workloads.md).")
    if not is_swim_trace(workload_spec):
        return None
    pools = WorkloadSettings.from_config(config).pools
    generated = sorted((n for n in names if re.fullmatch(r"pool\d+", n) and int(n[4:]) < pools),
                       key=lambda n: int(n[4:]))
    if not pools or not generated:
        return None
    return (f"note: the queues {', '.join(generated)} that jobs were refused for are those a SWIM trace's jobs "
            f"are given ([simulation] pools = {pools}: pool0 … pool{pools - 1}, docs/workloads.md); name your "
            "queues so, or set [simulation] pools = 0 so that jobs name no queue and the placement rules "
            "(queue-mappings, default) place them.")


def weight_note(config: Any, metrics: Any) -> str | None:
    """A note when the selected weight adjusters could not change any decision: a job's weight
    only divides its pool's share among the pool's jobs (Hadoop 1.x: ``PoolSchedulable.getWeight``
    is the allocation file's pool weight, job weights never reach it), so if no pool ever held
    two started, unfinished jobs at once (``metrics.json`` ``max_jobs_in_a_pool``, counted from
    the job events) the weights mattered to nothing.  None when they could have mattered."""
    adjusters = tuple(config.scheduler.weight_adjusters)
    summary = metrics.get("summary", {})
    peak = summary.get("max_jobs_in_a_pool")
    if not adjusters or peak is None or peak > 1 or not summary.get("jobs"):
        return None
    names = ", ".join(adjusters)
    return (f"note: weight adjusters ({names}) could not change any decision: no pool ever held two "
            "running jobs at once, and a job's weight only divides its pool's share among the pool's jobs. "
            "Pool weights come from the allocation file's <weight>; to divide the cluster among pools "
            "differently, write a SharePolicy (docs/plugin-authors.md).")


def _strict_exit(runs: Sequence[tuple[str, Any]]) -> None:
    """``--strict``: exit 1 (one line on stderr) when a run rejected or did not finish a job."""
    from corescheduler.sim.report import not_run_counts

    bad = []
    for label, metrics in runs:
        rejected, unfinished = not_run_counts(metrics)
        if rejected or unfinished:
            bad.append(f"{label}: {rejected:,} rejected, {unfinished:,} did not finish")
    if bad:
        click.echo(f"strict: not every job ran to the end ({'; '.join(bad)})", err=True)
        raise SystemExit(1)


strict_option = click.option(
    "--strict", is_flag=True,
    help="Exit 1 when any job was rejected or did not finish (the results are still written and printed).",
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
@strict_option
@json_option
def simulate(config_path: str | None, workload_spec: str, seed: int, out_dir: str, strict: bool,
             as_json: bool) -> None:
    """Simulate a workload under a scheduler configuration.

    Writes DIR/metrics.json, DIR/events.jsonl and DIR/report.html and prints
    a summary.  With no arguments: the bundled example config and the
    built-in Facebook workload.

    Jobs rejected at submission or still unfinished when the run stopped are
    listed with their reasons; the exit status is 0 all the same (they are
    results) unless --strict is given.
    """
    from corescheduler.sim.report import summary_rows, write_report

    config, allocations, label = load_run_config(config_path)
    warn_config(config, allocations)
    out = Path(out_dir)
    with progress_bars(stdout_is_terminal() and not as_json) as bars:
        result, workload = run_simulation(
            config, allocations, workload_spec, seed, out, bars(label) if bars else None, warn=True
        )
    note = weight_note(config, result.metrics)
    pools_note = swim_pools_note(config, result.metrics, workload_spec)
    report = write_report(
        out / "report.html",
        [(label, result.metrics)],
        title=f"corescheduler simulation: {label} on {workload.name}",
        notes=[f"config {printable_path(str(config.source or 'built-in defaults'))}", _note(workload, seed, result),
               *([note] if note else [])],
    )
    if as_json:
        print_json(result.metrics["summary"])
    else:
        rows = summary_rows([(label, result.metrics)])
        print_table(["measure", label], rows, right=(1,), title=_note(workload, seed, result))
        _echo_not_run(label, result.metrics, _stall_timeout(config))
        for text in (pools_note, note):
            if text:
                click.echo()
                click.echo(text)
        click.echo(f"wrote {result.metrics_path}, {result.events_path}, {report}")
    if strict:
        _strict_exit([(label, result.metrics)])


# --------------------------------------------------------------------------- compare


def _seed_list(seeds: Sequence[int]) -> str:
    """``0..9`` for a run of consecutive seeds, else the seeds comma-separated."""
    if len(seeds) > 2 and list(seeds) == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}..{seeds[-1]}"
    return ", ".join(map(str, seeds))


#: set in each worker process of a parallel compare: where its runs report their progress
_PROGRESS_QUEUE: Any = None


def _worker_init(queue: Any) -> None:
    global _PROGRESS_QUEUE
    _PROGRESS_QUEUE = queue


def _one_run(path: str, workload_spec: str, seed: int, out_dir: Path,
             progress: Callable[[float], None] | None) -> tuple[Any, ...]:
    """One run of a compare: ``("ok", metrics, note, workload name)``."""
    config, allocations, _ = load_run_config(path)
    result, workload = run_simulation(config, allocations, workload_spec, seed, out_dir, progress)
    return ("ok", result.metrics, _note(workload, seed, result), workload.name)


def _compare_run(index: int, path: str, workload_spec: str, seed: int, out_dir: str) -> tuple[Any, ...]:
    """:func:`_one_run` in a worker process, or ``("error", message)`` for a user error
    (reported by the parent as its own)."""
    from corescheduler.errors import CoreSchedulerError

    queue = _PROGRESS_QUEUE
    progress = (lambda fraction: queue.put((index, fraction))) if queue is not None else None
    try:
        return _one_run(path, workload_spec, seed, Path(out_dir), progress)
    except CoreSchedulerError as exc:
        return ("error", str(exc))


def _run_parallel(runs: list[tuple[str, str, int]], workload_spec: str, out: Path, jobs: int,
                  bar: Callable[[float], None] | None) -> list[tuple[Any, ...]]:
    """The runs in ``jobs`` processes (spawned: a clean interpreter each), their progress
    averaged into one bar; results in the order of ``runs``."""
    import multiprocessing
    import queue as queue_module
    from concurrent.futures import ProcessPoolExecutor

    from corescheduler.errors import CoreSchedulerError

    ctx = multiprocessing.get_context("spawn")
    progress_queue = ctx.Queue()
    done = [0.0] * len(runs)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init,
                             initargs=(progress_queue,)) as pool:
        futures = [pool.submit(_compare_run, i, path, workload_spec, seed, str(out / label))
                   for i, (label, path, seed) in enumerate(runs)]
        while not all(f.done() for f in futures):
            try:
                index, fraction = progress_queue.get(timeout=0.2)
                done[index] = fraction
                if bar is not None:
                    bar(sum(done) / len(done))
            except queue_module.Empty:
                pass
        answers = [f.result() for f in futures]
    for answer in answers:
        if answer[0] == "error":
            raise CoreSchedulerError(answer[1])
    return answers


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
@click.option("--seed", "seeds", type=int, multiple=True,
              help="The seed of every run (default 0); give several to run each config with each seed.")
@click.option("--seeds", "seed_count", type=click.IntRange(min=1), default=None, metavar="N",
              help="Shorthand for seeds 0 .. N-1.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Runs at once, each in a process of its own (default: one per core).")
@out_option("compare-out", "Folder for report.html, compare.json and one sub-folder per run.")
@strict_option
@json_option
def compare(config_paths: tuple[str, ...], workload_spec: str, seeds: tuple[int, ...], seed_count: int | None,
            jobs: int | None, out_dir: str, strict: bool, as_json: bool) -> None:
    """Run the same workload under several configurations (and seeds).

    With one seed, prints a side-by-side table (response times per job-size bin, locality,
    utilisation, preemptions, makespan) and writes one report with the runs
    overlaid to DIR/report.html; each run's metrics.json and events.jsonl go
    to DIR/<label>/, labels being the config file names (with -seedN when
    several seeds are given).  The runs go in parallel processes, one per
    core (--jobs), with one progress bar; each gives what it gives alone.

    With several seeds (--seed given more than once, or --seeds N for seeds
    0..N-1) the table gives, per config, each measure's mean across seeds with
    its 95 % confidence interval (Student t), and the paired difference of
    each config from the first with its interval, marked "(noise)" when the
    interval contains 0; the report plots the intervals.
    """
    import os

    from corescheduler.sim.report import summary_rows, write_report
    from corescheduler.sim.stats import compare_statistics, statistics_rows

    if len(config_paths) < 2:
        raise click.UsageError("compare needs at least two --config files")
    if seed_count is not None and seeds:
        raise click.UsageError("give --seed or --seeds, not both")
    seeds = tuple(range(seed_count)) if seed_count is not None else tuple(dict.fromkeys(seeds)) or (0,)
    labels = _labels(config_paths)
    loaded = {path: load_run_config(path)[:2] for path in config_paths}  # every config checked before any run
    for config, allocations in loaded.values():
        warn_config(config, allocations)
    stall_timeouts = {path: _stall_timeout(config) for path, (config, _) in loaded.items()}
    runs = [(label if len(seeds) == 1 else f"{label}-seed{seed}", path, seed)
            for seed in seeds for label, path in zip(labels, config_paths)]
    workers = min(jobs or os.cpu_count() or 1, len(runs))
    out = Path(out_dir)
    started = time.perf_counter()
    with progress_bars(stdout_is_terminal() and not as_json) as bars:
        bar = bars("compare") if bars else None
        if workers > 1:
            answers = _run_parallel(runs, workload_spec, out, workers, bar)
        else:
            answers = []
            for i, (label, path, seed) in enumerate(runs):
                def step(fraction: float, i: int = i) -> None:
                    if bar is not None:
                        bar((i + fraction) / len(runs))

                answers.append(_one_run(path, workload_spec, seed, out / label, step))
    run_labels = [label for label, _, _ in runs]
    metrics_of = [answer[1] for answer in answers]
    runs_out = list(zip(run_labels, metrics_of))
    notes = [f"{label}: {printable_path(str(path))}; {answer[2]}" for (label, path, _), answer in zip(runs, answers)]
    workload_name = answers[-1][3]
    statistics = None
    if len(seeds) > 1:
        by_run = {(label, seed): m for label, (_, _, seed), m in
                  zip([label for seed in seeds for label in labels], runs, metrics_of)}
        statistics = compare_statistics(labels, seeds, by_run)
    report = write_report(out / "report.html", runs_out, title=f"corescheduler compare on {workload_name}",
                          notes=notes, statistics=statistics)
    rows = summary_rows(runs_out)
    table = {"columns": ["measure", *run_labels], "rows": rows}
    summary = {
        "workload": workload_spec,
        "seed": seeds[0],
        "seeds": list(seeds),
        "runs": {label: {"config": path, "seed": seed, "summary": m["summary"], "bins": m["bins"]}
                 for (label, path, seed), m in zip(runs, metrics_of)},
        "table": table,
    }
    if statistics is not None:
        summary["statistics"] = statistics
    (out / "compare.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    if as_json:
        print_json(summary)
        if strict:
            _strict_exit(runs_out)
        return
    seed_text = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {_seed_list(seeds)}"
    title = (f"{workload_spec}, {seed_text}: {plural(len(runs), 'run')} in {time.perf_counter() - started:.1f} s "
             f"({workers} at once)")
    if statistics is None:
        print_table(["measure", *run_labels], rows, right=tuple(range(1, len(run_labels) + 1)), title=title)
    else:
        columns, stat_rows = statistics_rows(statistics)
        print_table(columns, stat_rows, right=tuple(range(1, len(columns))),
                    title=f"{title}; mean ± 95% CI half-width over {len(seeds)} seeds")
        click.echo(f"{labels[0]} is the baseline: a difference is paired seed by seed, and marked (noise) when "
                   "its interval contains 0. Each run's own figures: compare.json, report.html.")
    pools_notes: dict[str, str] = {}
    for (label, path, _), metrics in zip(runs, metrics_of):
        _echo_not_run(label, metrics, stall_timeouts[path], several=True)
        pools_note = swim_pools_note(loaded[path][0], metrics, workload_spec)
        if pools_note:
            pools_notes.setdefault(path, pools_note.replace("note: ", f"note: {label}: ", 1))
    for text in pools_notes.values():
        click.echo()
        click.echo(text)
    unweighted = [label for (label, path, _), metrics in zip(runs, metrics_of) if weight_note(loaded[path][0], metrics)]
    if unweighted:
        click.echo()
        click.echo(f"note: in {'run' if len(unweighted) == 1 else 'runs'} {', '.join(unweighted)}, the weight "
                   "adjusters could not change any decision: no pool "
                   "ever held two running jobs at once, and a job's weight only divides its pool's share among the "
                   "pool's jobs (docs/plugin-authors.md).")
    folders = (", ".join(str(out / label) for label in run_labels) if len(run_labels) <= 4
               else f"{len(run_labels)} run folders {out / run_labels[0]} .. {out / run_labels[-1]}")
    click.echo(f"wrote {report}, {out / 'compare.json'} and {folders}")
    if strict:
        _strict_exit(runs_out)

