"""The engine: Dask distributed runs what the scheduler grants (``design/dask-backend.md``).

Client-side gating: the service keeps every job's tasks in its own queues and
submits one Dask task per granted slot, pinned to that worker
(``workers=[addr]``, ``allow_other_workers=False``, a unique key per attempt,
``pure=False``, no Dask retries).  Dask only executes.  Workers are found by
polling the scheduler's identity (``scheduler.identity(n_workers=-1)``: on an
asynchronous client ``scheduler_info()`` has no per-worker entries).  A
running attempt is stopped by killing its process on the worker
(:func:`~corescheduler.service.runner.kill_attempt`), not by
``Future.cancel``, which leaves the thread running.

The embedded cluster speaks TLS with a temporary certificate
(``Security.temporary()``, in memory only): no other local process can connect to
its scheduler or workers, so none can run code on them (``client.run``).  Its
dashboard is off unless ``[service] dashboard`` names an address: Dask always
listens for HTTP, so "off" is no routes at all (no status pages, no task names, no
metrics) on an ephemeral loopback port.  An external
cluster gets the ``Security`` of ``--dask-security FILE``
(:func:`load_security`).
"""

from __future__ import annotations

import asyncio
import copy
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

from corescheduler.errors import ConfigError
from corescheduler.service.runner import executing_attempts, kill_all, kill_attempt, run_attempt

log = logging.getLogger("corescheduler.service")


async def wait_futures(futures: Sequence[Any]) -> None:
    """Until every future is done (finished, failed, cancelled or lost), without fetching
    their results (``distributed.wait`` on an asynchronous client)."""
    from distributed import wait

    await wait(list(futures))


def load_security(path: str | Path) -> Any:
    """``--dask-security FILE``: a Dask configuration (YAML) whose ``distributed.comm``
    section gives the TLS files (``tls.ca-file``, ``tls.client.cert``, ``tls.client.key``,
    ``require-encryption``), as ``dask`` reads it → a ``distributed.security.Security``.
    A missing or unreadable file, bad YAML or a named TLS file that does not exist is a
    :class:`ConfigError` naming it."""
    import dask.config
    import yaml
    from distributed.security import Security

    path = Path(path)
    try:
        doc = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the Dask security file: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(doc, Mapping):
        raise ConfigError(f"{path}: expected a Dask configuration (distributed: comm: tls: ...)")
    # merged into the defaults, as dask merges its YAML files (``config.set`` would replace
    # the whole ``distributed`` section)
    merged = dask.config.update(copy.deepcopy(dask.config.config), dask.config.expand_environment_variables(doc))
    with dask.config.set(merged):
        try:
            security = Security()
        except Exception as exc:
            raise ConfigError(f"{path}: {exc}") from None
    named = {k: getattr(security, k) for k in ("tls_ca_file", "tls_client_cert", "tls_client_key")}
    if not any(named.values()):
        raise ConfigError(f"{path}: names no TLS file (distributed.comm.tls.ca-file, tls.client.cert, tls.client.key)")
    for key, value in named.items():
        if value and not os.path.isfile(value):
            raise ConfigError(f"{path}: {key.replace('_', '-')}: no such file: {value}")
    return security


@frozen
class WorkerInfo:
    """One Dask worker as the scheduler sees it."""

    address: str
    host: str
    name: str
    nthreads: int
    memory_limit: int
    resources: Mapping[str, float]


class DaskBackend:
    """One asynchronous ``distributed.Client``; an embedded ``LocalCluster`` when no address
    is given (``workers`` processes of ``threads`` threads each, on 127.0.0.1).  The
    embedded workers start with a minimal environment
    (:mod:`~corescheduler.service.workerinit`), and as ``worker_user`` when given (a root
    service with thread isolation)."""

    def __init__(self, address: str | None = None, workers: int = 2, threads: int = 2,
                 memory_limit: str | int = "auto", worker_user: str | None = None, security: Any = None,
                 dashboard: str | None = None) -> None:
        self.address = address
        #: TLS between the client, the scheduler and the workers (None: an external cluster's
        #: plain TCP; the embedded cluster makes a temporary one)
        self.security = security
        #: the embedded scheduler's dashboard address (None: no dashboard)
        self.dashboard = dashboard
        self.n_workers = workers
        self.threads = threads
        self.memory_limit = memory_limit
        self.worker_user = worker_user
        self.cluster: Any = None
        self.client: Any = None

    async def start(self, timeout: float = 60.0) -> None:
        import dask.config
        from distributed import Client, LocalCluster
        from distributed.security import Security

        if self.address is None:
            if self.security is None:
                self.security = Security.temporary()
            quiet = {} if self.dashboard else {"distributed.scheduler.http.routes": [],
                                               "distributed.worker.http.routes": []}
            with dask.config.set(quiet):  # the nannies hand this configuration to their workers
                self.cluster = await LocalCluster(
                    n_workers=self.n_workers, threads_per_worker=self.threads, processes=True, protocol="tls://",
                    security=self.security, host="127.0.0.1", asynchronous=True, memory_limit=self.memory_limit,
                    dashboard_address=self.dashboard or "127.0.0.1:0",
                    scheduler_kwargs={"dashboard": bool(self.dashboard)},
                    silence_logs=False,  # its default silences the handlers it shares with ours
                    preload=["corescheduler.service.workerinit"],
                    preload_argv=["--run-as", self.worker_user] if self.worker_user else [],
                )
            address = self.cluster.scheduler_address
        else:
            address = self.address
        self.client = await asyncio.wait_for(
            Client(address, asynchronous=True, timeout=min(timeout, 10), security=self.security), timeout)

    async def reconnect(self, timeout: float = 5.0) -> bool:
        """A new client for the same scheduler, after the old one gave up (its scheduler went
        away for longer than its own reconnection window).  True when connected."""
        from distributed import Client

        address = self.cluster.scheduler_address if self.cluster is not None else self.address
        if self.client is not None:
            try:
                await self.client.close(timeout=1)
            except Exception:  # it is already broken; a new one replaces it
                pass
            self.client = None
        try:
            self.client = await asyncio.wait_for(
                Client(address, asynchronous=True, timeout=timeout, security=self.security), timeout + 1)
        except Exception as exc:
            log.info("engine at %s still unreachable: %s", address, exc)
            self.client = None
            return False
        return True

    async def close(self) -> None:
        if self.client is not None:
            await self.client.close()
            self.client = None
        if self.cluster is not None:
            await self.cluster.close()
            self.cluster = None

    @property
    def up(self) -> bool:
        """The client is connected to the scheduler."""
        return self.client is not None and self.client.status == "running"

    @property
    def gone(self) -> bool:
        """The client has given up (closed): only a new one can reach the engine again."""
        return self.client is None or self.client.status in ("closed", "closing", "failed")

    async def workers(self) -> dict[str, WorkerInfo]:
        """The live workers by address."""
        info = await self.client.scheduler.identity(n_workers=-1)
        out = {}
        for address, w in info.get("workers", {}).items():
            if w.get("status", "running") not in ("running", "paused"):
                continue
            out[address] = WorkerInfo(
                address=address, host=str(w.get("host", "")), name=str(w.get("name", address)),
                nthreads=int(w.get("nthreads", 1)), memory_limit=int(w.get("memory_limit") or 0),
                resources=dict(w.get("resources") or {}),
            )
        return out

    def submit(self, attempt: str, payload: Mapping[str, Any], worker: str, priority: int = 0,
               inputs: Sequence[Any] = ()) -> Any:
        """Start an attempt on ``worker``; the returned future ends with its result or error.
        ``inputs``: futures of results it reads (a reduce's maps'), which Dask moves to
        ``worker`` from where they are."""
        return self.client.submit(
            run_attempt, attempt, dict(payload), *inputs, key=attempt, workers=[worker],
            allow_other_workers=False, pure=False, retries=0, priority=priority,
        )

    async def sizes(self, futures: Sequence[Any]) -> dict[str, int]:
        """Bytes of each finished future's result, by key, as the workers holding them measure."""
        if not futures:
            return {}
        return dict(await self.client.nbytes([f.key for f in futures], summary=False))

    async def holders(self, futures: Sequence[Any]) -> dict[str, list[str]]:
        """The workers holding each future's result, by key (an empty list: lost)."""
        if not futures:
            return {}
        answer = await self.client.who_has(list(futures))
        return {key: list(workers) for key, workers in dict(answer).items()}

    async def executing(self) -> set[str]:
        """The attempts executing now on any worker (not those waiting for their inputs)."""
        answers = await self.client.run(executing_attempts, on_error="return")
        return {key for v in answers.values() if isinstance(v, list) for key in v}

    async def kill_orphans(self) -> int:
        """Kill every attempt running on any worker (left by a service that died)."""
        answers = await self.client.run(kill_all, on_error="return")
        return sum(v for v in answers.values() if isinstance(v, int))

    async def kill(self, attempt: str, worker: str | None, future: Any = None) -> bool:
        """Stop ``attempt``: its process on ``worker`` is killed (if it started) and the future
        cancelled (if it had not).  True if a running process was killed."""
        killed = False
        if worker is not None:
            try:
                answers = await self.client.run(kill_attempt, attempt, workers=[worker], on_error="return")
                killed = any(v is True for v in answers.values())
                if any(v == "thread" for v in answers.values()):
                    # a call running in a worker thread: Dask cannot stop a thread, so the worker
                    # restarts (its other attempts are lost and run again, as on a lost tracker)
                    log.info("restarting worker %s to stop %s", worker, attempt)
                    await self.client.restart_workers([worker], timeout=30, raise_for_error=False)
                    killed = True
            except Exception as exc:  # the worker may be gone: nothing left to stop there
                log.info("kill %s on %s: %s", attempt, worker, exc)
        if future is not None and not future.done():
            await future.cancel(reason="corescheduler: attempt stopped")
        return killed
