"""``corescheduler serve`` (the live service) and its clients ``submit``, ``status``, ``kill``."""

from __future__ import annotations

import json
import os
import pwd
import tomllib
from pathlib import Path
from typing import Any

import click

from corescheduler.cli.common import (
    config_option,
    json_option,
    load_config,
    print_json,
    print_table,
    warn_config,
    warn_plugin_settings,
)
from corescheduler.errors import ConfigError

url_option = click.option("--url", default=lambda: os.environ.get("CORESCHEDULER_URL", "http://127.0.0.1:8088"),
                          show_default="$CORESCHEDULER_URL or http://127.0.0.1:8088", help="The service.")
token_option = click.option("--token", default=lambda: os.environ.get("CORESCHEDULER_TOKEN"),
                            help="Bearer token (default $CORESCHEDULER_TOKEN).")


@click.command()
@config_option
@click.option("--dask", "dask", default=None, metavar="ADDR",
              help="An existing Dask scheduler (tcp://host:8786); default: a local cluster sized by [cluster].")
@click.option("--dask-security", "dask_security", default=None, metavar="FILE",
              help="With --dask: a Dask configuration (YAML) naming the TLS files to reach it with.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8088, show_default=True, type=click.IntRange(0, 65535))
@click.option("--state", default=None, metavar="DIR",
              help="Keep the job ledger (SQLite) here; default: in memory.")
@click.option("--tokens", default=None, metavar="FILE",
              help="Tokens file (TOML, token hashes: `corescheduler token add`); without it the API is open and "
                   "serve listens only on loopback.")
@click.option("--log-json", is_flag=True, help="Structured logs: one JSON object a line on stderr.")
def serve(
    config_path: str | None, dask: str | None, dask_security: str | None, host: str, port: int, state: str | None,
    tokens: str | None, log_json: bool,
) -> None:
    """Run the scheduler for real: a REST API and /scheduler page; Dask runs the tasks."""
    try:
        import uvicorn

        from corescheduler.service.api import create_app, load_tokens
        from corescheduler.service.service import Service
    except ImportError as exc:
        raise ConfigError(f"serve needs the service extra: pip install 'corescheduler[service]' ({exc})") from None
    if dask_security is not None and dask is None:
        raise ConfigError("--dask-security goes with --dask (the embedded cluster makes its own certificate)")
    from corescheduler.service.tokens import check_owner, check_private

    cfg = load_config(config_path)
    principals = None
    if tokens:
        principals = load_tokens(tokens)
        check_private(Path(tokens), "the tokens file")
        for warning in principals.warnings:
            click.echo(f"warning: {warning}", err=True)
        # the path in `ps` tells a task where to look; it is read already
        from corescheduler.service.hide import hide_argument

        hide_argument(tokens)
    elif not _loopback(host):
        raise ConfigError(f"--host {host}: without --tokens the API is open (everyone is an admin and X-User "
                          "is believed), so serve listens only on loopback (127.0.0.1, ::1); give --tokens FILE")
    if state is not None and Path(state).exists():
        check_private(Path(state), "the state directory")
        if (Path(state) / "state.db").exists():
            check_owner(Path(state) / "state.db", "the ledger")
    _check_port(host, port)
    _check_identity(cfg)
    security = None
    if dask_security is not None:
        from corescheduler.service.backend import load_security

        security = load_security(dask_security)
    service = Service(cfg, dask=dask, state=state, dask_security=security)
    warn_config(cfg, service.scheduler.allocations)
    # the embedded cluster's nodes are its workers (with [cluster]'s slots each); an external
    # cluster's are not known yet: [cluster]'s node count stands for them
    warn_plugin_settings(service.scheduler.plugins, service.backend.n_workers if service.embedded else None)
    app = create_app(service, principals)
    # distributed sets up its own handler when first imported: imported now, the log config
    # below replaces it (one line, one format); the embedded workers (other processes) log
    # warnings and errors only, read from the environment at their start
    import distributed  # noqa: F401

    from corescheduler.service.logs import configure

    # (a stop cancels their running attempts: the state machine's warning about it is noise)
    os.environ.setdefault("DASK_LOGGING", repr({"distributed": "warning", "distributed.worker.state_machine": "error"}))
    # proxy_headers off: uvicorn's default believes X-Forwarded-For from 127.0.0.1 and makes it the
    # client, which a local reader could set afresh on every read (a new caller for the read gate
    # each time, and its own text in the access log); the client is the connection's peer
    # http: a request's head is bounded as Hadoop's HttpServer2 bounds it (431 past 64 KB)
    from corescheduler.service.httplimit import http_protocol

    uvicorn.run(app, host=host, port=port, lifespan="on", log_config=configure(log_json), proxy_headers=False,
                http=http_protocol())


def _check_identity(cfg: Any) -> None:
    """A root service runs its tasks as ``[service] run_as``; without it, it does not start (its
    tasks would be root, and could read its tokens and ledger)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    from corescheduler.service.service import ServiceSettings

    if ServiceSettings.from_config(cfg).run_as is None:
        raise ConfigError(
            "serve runs as root, so its tasks would run as root and could read its tokens and ledger: "
            "set [service] run_as = \"ACCOUNT\" (an unprivileged OS user the tasks run as), "
            "or start serve as an unprivileged user"
        )
    run_as = ServiceSettings.from_config(cfg).run_as
    for account in sorted(set(run_as.values()) if isinstance(run_as, dict) else {run_as}):
        try:
            uid = pwd.getpwnam(account).pw_uid
        except KeyError:
            raise ConfigError(f"[service] run_as: no OS account {account!r} on this host") from None
        if uid == 0:
            raise ConfigError(f"[service] run_as: {account!r} is root; tasks must run as an unprivileged account")


def _loopback(host: str) -> bool:
    """Every address ``host`` names is a loopback one."""
    import ipaddress
    import socket

    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    try:
        return bool(infos) and all(ipaddress.ip_address(info[4][0].split("%")[0]).is_loopback for info in infos)
    except ValueError:
        return False


def _check_port(host: str, port: int) -> None:
    """A user error (exit 1) before anything starts, rather than uvicorn's failure after the
    engine has started: the address must be free to listen on."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ConfigError(f"--host {host}: {exc}") from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


def _client(url: str, token: str | None) -> Any:
    from corescheduler.client import Client

    return Client(url, token)


@click.command()
@click.argument("job_file", type=click.Path(dir_okay=False))
@url_option
@token_option
@click.option("--wait", is_flag=True, help="Wait until the job ends; exit 1 unless it finished.")
@json_option
def submit(job_file: str, url: str, token: str | None, wait: bool, as_json: bool) -> None:
    """Submit a job (JSON or TOML) to the service."""
    path = Path(job_file)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror}") from None
    try:
        doc = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid {'TOML' if path.suffix == '.toml' else 'JSON'}: {exc}") from None
    try:
        json.dumps(doc, allow_nan=False)
    except (TypeError, ValueError) as exc:  # TOML dates and times have no JSON form
        raise ConfigError(f"{path}: a value has no JSON form ({exc}); give dates and times as strings") from None
    with _client(url, token) as client:
        job = client.submit(doc)
        if wait:
            job = client.wait(job["id"])
    if as_json:
        print_json(job)
    else:
        click.echo(f"{job['id']} {job['state']} (pool {job['pool']})")
    if wait and job["state"] != "finished":
        error = "\n".join(_shown(line) for line in (job.get("error") or "").splitlines())
        raise ConfigError(f"job {job['id']} {job['state']}: {error}".rstrip(": "))


@click.command()
@click.argument("job_id", required=False)
@url_option
@token_option
@click.option("--limit", type=click.IntRange(1, 1000), default=100, show_default=True,
              help="Without JOB: the newest LIMIT jobs.")
@click.option("--after", default=None, metavar="JOB", help="Without JOB: the jobs older than JOB (the next page).")
@json_option
def status(job_id: str | None, url: str, token: str | None, limit: int, after: str | None, as_json: bool) -> None:
    """One job's state, or the newest jobs' (a page of LIMIT; --after for the next)."""
    following = None
    with _client(url, token) as client:
        if job_id:
            jobs = [client.job(job_id)]
        else:
            page = client.jobs_page(limit=limit, after=after)
            jobs, following = page["jobs"], page["next"]
    if as_json:
        print_json(jobs[0] if job_id else jobs)
        return
    rows = [[j["id"], j["user"] or "-", j["pool"] or "-", j["state"],
             f"{j['maps']['finished']}/{j['maps']['total']}", f"{j['reduces']['finished']}/{j['reduces']['total']}",
             _one_line(j.get("error") or j.get("last_task_error") or "")] for j in jobs]
    print_table(["job", "user", "pool", "state", "maps", "reduces", "error"], rows)
    if following:
        click.echo(f"more: corescheduler status --after {following}")


def _one_line(error: str, width: int = 100) -> str:
    """An error as one table cell: its last line (a traceback's exception), at most ``width``
    characters; ``--json`` and ``status JOB --json`` give it whole."""
    lines = [line.strip() for line in error.splitlines() if line.strip()]
    text = _shown(lines[-1] if lines else "")
    return text if len(text) <= width else text[: width - 1] + "…"


def _shown(text: str) -> str:
    """``text`` with each character that is not printable — a terminal control (``ESC``,
    C1), a bidirectional or other format character — as its escape (``\\x1b``): a task's
    error is its own text, and a hostile one would otherwise clear, rewrite or turn around
    the terminal of whoever reads the job list (rich passes ``ESC`` through)."""
    return text if text.isprintable() else "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


@click.command()
@click.argument("job_id")
@url_option
@token_option
def result(job_id: str, url: str, token: str | None) -> None:
    """Print a finished job's result (JSON): its reduces' results, or its maps'."""
    with _client(url, token) as client:
        value = client.result(job_id)
    print_json(value)


@click.command()
@click.argument("job_id")
@url_option
@token_option
def kill(job_id: str, url: str, token: str | None) -> None:
    """Kill a job: its running tasks are stopped on the workers."""
    with _client(url, token) as client:
        job = client.kill(job_id)
    click.echo(f"{job['id']} {job['state']}")
