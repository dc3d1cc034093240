"""The engine is closed to others (SPEC §8b, issue 26 item 7): the embedded cluster speaks TLS
with a temporary certificate, so a local process without it cannot connect, let alone run
code on the workers; no dashboard unless asked; ``--dask ADDR --dask-security FILE`` reaches
an external TLS cluster."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

pytest.importorskip("distributed")
pytest.importorskip("cryptography")

from corescheduler.errors import ConfigError
from corescheduler.service.backend import load_security
from tests.cli_helpers import assert_user_error, run

#: a local process without the certificate tries to run code on the workers: exit 3 when refused
_INTRUDER = """
import sys
from distributed import Client
try:
    with Client(sys.argv[1], timeout=3) as client:
        client.run(lambda: "ran on a worker")
except Exception as exc:
    print("refused:", type(exc).__name__)
    sys.exit(3)
print("ran")
"""


@pytest.mark.slow
def test_a_local_process_without_the_certificate_cannot_reach_the_embedded_cluster(live_service) -> None:
    from distributed.core import rpc

    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1, "workers": 1}})
    backend = live.service.backend
    address = backend.cluster.scheduler_address
    assert address.startswith("tls://127.0.0.1:")
    # the intruder is another local process (a failed Client in this one can deadlock Dask's
    # loop runner when the garbage collector closes it while the next one starts)
    for attempt in (address, address.replace("tls://", "tcp://")):
        intruder = subprocess.run([sys.executable, "-c", _INTRUDER, attempt], capture_output=True, text=True,
                                  timeout=120)
        assert intruder.returncode == 3, (intruder.stdout, intruder.stderr[-2000:])
    worker = next(iter(live.service.workers))
    assert worker.startswith("tls://")

    async def talk_to_the_worker() -> None:
        async with rpc(worker.replace("tls://", "tcp://"), timeouts={"connect": 3}) as w:
            await asyncio.wait_for(w.identity(), 5)

    with pytest.raises(Exception):  # noqa: B017
        asyncio.run(talk_to_the_worker())
    import httpx

    http = backend.cluster.scheduler.http_server  # Dask always listens; off = no page at all
    for page in ("/health", "/info/main/workers.html", "/json/counts.json", "/metrics", "/status"):
        assert httpx.get(f"http://127.0.0.1:{http.port}{page}", timeout=5).status_code == 404, page
    assert backend.up  # the service's own client, with the certificate, is connected


def test_dask_security_files_are_checked(tmp_path) -> None:
    missing = tmp_path / "missing.yaml"
    with pytest.raises(ConfigError, match=r"missing\.yaml: cannot read"):
        load_security(missing)
    bad = tmp_path / "bad.yaml"
    bad.write_text("distributed: [unclosed")
    with pytest.raises(ConfigError, match=r"bad\.yaml: not valid YAML"):
        load_security(bad)
    empty = tmp_path / "empty.yaml"
    empty.write_text("distributed:\n  comm:\n    require-encryption: true\n")
    with pytest.raises(ConfigError, match="names no TLS file"):
        load_security(empty)
    gone = tmp_path / "gone.yaml"
    gone.write_text(f"distributed:\n  comm:\n    tls:\n      ca-file: {tmp_path}/nope.pem\n")
    with pytest.raises(ConfigError, match="tls-ca-file: no such file"):
        load_security(gone)
    assert_user_error(run("serve", "--dask-security", str(gone), "--port", "0"), "--dask-security goes with --dask")


def _security_files(tmp_path):
    """A CA-signed certificate and key as files, and the Dask configuration naming them."""
    from distributed.security import Security

    temporary = Security.temporary()
    cert = tmp_path / "cert.pem"
    key = tmp_path / "key.pem"
    cert.write_text(temporary.tls_ca_file)
    key.write_text(temporary.tls_scheduler_key)
    config = tmp_path / "dask-security.yaml"
    roles = "".join(f"      {role}:\n        cert: {cert}\n        key: {key}\n"
                    for role in ("scheduler", "worker", "client"))
    config.write_text(f"distributed:\n  comm:\n    require-encryption: true\n    tls:\n      ca-file: {cert}\n{roles}")
    return config


@pytest.mark.slow
def test_the_service_reaches_an_external_tls_cluster_with_its_security_file(tmp_path) -> None:
    from distributed import LocalCluster

    from corescheduler.config import Config
    from corescheduler.service.service import Service

    security = load_security(_security_files(tmp_path))
    assert security.require_encryption

    async def scenario() -> None:
        async with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tls://",
                                security=security, host="127.0.0.1", dashboard_address=None,
                                asynchronous=True) as cluster:
            service = Service(Config.from_dict({"service": {"tick": 0.1}}), dask=cluster.scheduler_address,
                              dask_security=security)
            await service.start()
            try:
                job = await service.submit({"maps": [{"call": "math:factorial", "args": [5]}]}, "alice")
                for _ in range(300):
                    if job["id"] not in service.scheduler.jobs:
                        break
                    await asyncio.sleep(0.1)
                assert service.result(job["id"]) == [120]
            finally:
                await service.stop()

    asyncio.run(scenario())
