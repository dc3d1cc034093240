"""A live service on 127.0.0.1 for the service tests: uvicorn in a thread of its own, a real
local Dask cluster, stopped and cleaned up after the test (bounded waits everywhere)."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def run_attempt(attempt: str, payload: Any, *inputs: Any) -> Any:
    """:func:`corescheduler.service.runner.run_attempt`, its result unpickled (as a reduce's child
    would; the service itself never does: corescheduler.service.result)."""
    import pickle

    from corescheduler.service import runner
    from corescheduler.service.result import Result

    out = runner.run_attempt(attempt, payload, *inputs)
    assert isinstance(out, Result), out
    return pickle.loads(out.pickled)


def wait_for(predicate: Any, timeout: float, step: float = 0.1) -> Any:
    """Poll ``predicate`` until it is truthy or ``timeout`` seconds pass (bounded in count and
    time); its last value."""
    deadline = time.monotonic() + timeout
    for _ in range(int(timeout / step) + 1):
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(step)
    return predicate()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveService:
    """``url``, ``service``; ``stop()`` ends the server, the service and the Dask cluster."""

    def __init__(self, config: dict[str, Any], tokens: dict[str, Any] | None = None, state: str | None = None,
                 dask: str | None = None):
        import uvicorn

        from corescheduler.config import Config
        from corescheduler.service.api import create_app
        from corescheduler.service.service import Service

        self.service = Service(Config.from_dict(as_task_user(config)), state=state, dask=dask)
        self.app = create_app(self.service, tokens)
        # the listening socket is bound here and handed to uvicorn: a port only picked here and
        # bound later, after the service's startup, could meanwhile go to one of the Dask
        # cluster's own listeners (a test's parallel neighbour's too), and uvicorn would exit
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                                    lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, name="live-service",
                                       daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 90
        while not self.server.started:
            if not self.thread.is_alive():
                self.stop()
                raise RuntimeError("the live service exited during its startup (its log above says why)")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the live service did not start within 90 s")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=60)
        self.sock.close()


@pytest.fixture
def live_service() -> Iterator[Any]:
    started: list[LiveService] = []

    def start(config: dict[str, Any], tokens: dict[str, Any] | None = None, state: str | None = None,
              dask: str | None = None) -> LiveService:
        svc = LiveService(config, tokens, state, dask)
        started.append(svc)
        return svc

    yield start
    for svc in started:
        svc.stop()


#: the account the service tests' tasks run as when the tests run as root (.ci/run creates it):
#: a root service refuses to run tasks as root ([service] run_as, SPEC §8b)
TASK_USER = os.environ.get("CORESCHEDULER_TEST_RUN_AS", "corescheduler-task")


def as_task_user(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` with ``[service] run_as`` set to :data:`TASK_USER` when the tests run as root."""
    if os.geteuid() != 0:
        return config
    try:
        pwd.getpwnam(TASK_USER)
    except KeyError:
        pytest.fail(f"the service tests run as root need the OS account {TASK_USER!r} for their tasks "
                    "(.ci/run creates it: useradd --system corescheduler-task)")
    return {**config, "service": {"run_as": TASK_USER, **config.get("service", {})}}


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory the tests' tasks may write to, whichever account they run as."""
    path = Path(tempfile.mkdtemp(prefix="corescheduler-test-"))
    path.chmod(0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def capacity_file(**props: str) -> str:
    """A capacity-scheduler.xml: each ``key=value`` a ``yarn.scheduler.capacity.<key>`` property."""
    body = "".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                   for k, v in props.items())
    return f"<configuration>{body}</configuration>"


def yarn_capacity_tenants(allocation_file: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, str],
                                                           dict[str, str]]:
    """A one-node resource-mode service under ``yarn_capacity`` on ``allocation_file``: its
    config, its tokens (alice; root, an admin) and their request headers."""
    from corescheduler.service.api import Principal

    tokens = {"alice-token-1": Principal("alice"), "admin-token-1": Principal("root", admin=True)}
    config = {"cluster": {"racks": 1, "nodes_per_rack": 1},
              "scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                            "allocation_file": str(allocation_file)},
              "service": {"tick": 0.1, "workers": 1}}
    return config, tokens, {"Authorization": "Bearer alice-token-1"}, {"Authorization": "Bearer admin-token-1"}
