"""The worked multi-tenant example (examples/service): its config runs, and its short jobs
finish while the long one is still running."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("distributed")
pytest.importorskip("httpx")

from corescheduler.client import Client
from corescheduler.config import Config

pytestmark = pytest.mark.slow
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "service"


def test_short_jobs_finish_while_the_long_one_runs(live_service) -> None:
    config = Config.from_file(EXAMPLE / "service.toml")
    raw = {"scheduler": {"allocation_file": str(EXAMPLE / "pools.xml"), "task_selector": "locality",
                         "preemption": True, "preemption_interval": 1.0},
           "cluster": {"racks": config.cluster.racks, "nodes_per_rack": config.cluster.nodes_per_rack,
                       "map_slots": config.cluster.map_slots, "reduce_slots": config.cluster.reduce_slots},
           "service": dict(config.service)}
    live = live_service(raw)
    with Client(live.url) as client:
        long_job = client.submit(json.loads((EXAMPLE / "long-job.json").read_text()))
        short = tomllib.loads((EXAMPLE / "short-job.toml").read_text())
        shorts = [client.submit(short) for _ in range(3)]
        for job in shorts:
            done = client.wait(job["id"], timeout=60, poll=0.1)
            assert done["state"] == "finished"
            assert client.result(job["id"]) == [3628800 + 479001600]
        assert client.job(long_job["id"])["state"] == "running", "the short jobs should not wait for the long one"
        assert client.wait(long_job["id"], timeout=120, poll=0.2)["state"] == "finished"
