"""Load (issue 13): 20 concurrent clients submit 500 jobs in all over loopback; every job is
accepted or refused with a reason, none is lost, and every accepted one finishes.  The submit
latencies are measured by ``benchmarks/bench_service.py load``, not asserted here."""

from __future__ import annotations

import asyncio
import time

import pytest

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.slow

CLIENTS = 20
JOBS = 500


async def _client(url: str, n: int, k: int, accepted: list[str], refused: list[str]) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        for i in range(n):
            job = {"name": f"c{k}-{i}", "pool": f"team{k % 4}", "maps": [{"command": ["true"]}]}
            if i % 50 == 7:  # some bad ones among them
                job["maps"] = [{"call": "not a call"}]
            r = await c.post("/api/v1/jobs", json=job)
            if r.status_code == 201:
                accepted.append(r.json()["id"])
            else:
                assert 400 <= r.status_code < 500 and r.json()["error"], r.text
                refused.append(r.json()["error"])


def test_twenty_clients_five_hundred_jobs_none_lost(live_service) -> None:
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 2, "reduce_slots": 1},
                         "scheduler": {"task_selector": "locality"}, "service": {"tick": 0.1, "workers": 2}})
    accepted: list[str] = []
    refused: list[str] = []

    async def run() -> None:
        await asyncio.gather(*(_client(live.url, JOBS // CLIENTS, k, accepted, refused) for k in range(CLIENTS)))

    asyncio.run(asyncio.wait_for(run(), 300))
    assert len(accepted) + len(refused) == JOBS
    assert len(refused) == CLIENTS  # the bad ones, each with its reason
    assert len(set(accepted)) == len(accepted)
    with httpx.Client(base_url=live.url, timeout=60) as c:
        deadline = time.monotonic() + 240
        listed: dict[str, str] = {}
        for _ in range(2400):
            listed = {j["id"]: j["state"] for j in c.get("/api/v1/jobs", params={"limit": 1000}).json()["jobs"]}
            if all(listed.get(i) == "finished" for i in accepted) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert set(listed) == set(accepted), "a refused job was stored or an accepted one lost"
        assert all(listed[i] == "finished" for i in accepted), {i: s for i, s in listed.items() if s != "finished"}
