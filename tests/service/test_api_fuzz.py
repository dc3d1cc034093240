"""The API fuzzed from its own OpenAPI document (issue 26): Schemathesis generates requests —
valid jobs from the declared job schema, and invalid ones — for every operation, with a
token; none may be a 5xx, and ``/pools``, ``/metrics`` and ``/scheduler`` must answer 200
after each.  Bounded in time; the accepted submissions are counted and must not be zero
(a fuzz that is never accepted tests nothing).

The service is real (its API, scheduler and ledger); its engine is a stand-in with two
workers whose attempts never end, so nothing the fuzz submits is ever run on this machine.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from typing import Any

import pytest

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")
schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from corescheduler.service.backend import WorkerInfo  # noqa: E402
from tests.service.conftest import free_port  # noqa: E402

pytestmark = pytest.mark.slow

#: the fuzz's time budget (seconds), and the most cases it runs
BUDGET = 40.0
MAX_EXAMPLES = 400
ALWAYS_UP = ("/api/v1/pools", "/metrics", "/scheduler")


class _Attempt:
    """A Dask future that never finishes unless cancelled."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.status = "pending"
        self._f: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def done(self) -> bool:
        return self._f.done()

    async def cancel(self, reason: str | None = None) -> None:
        self.status = "cancelled"
        self._f.cancel()

    async def exception(self) -> BaseException | None:
        return self._f.exception()

    def __await__(self) -> Any:
        return self._f.__await__()


class StandInEngine:
    """Two workers; attempts start and run until they are killed."""

    def __init__(self) -> None:
        self.up = False
        self.submitted = 0

    @property
    def gone(self) -> bool:
        return not self.up

    async def start(self, timeout: float = 60.0) -> None:
        self.up = True

    async def close(self) -> None:
        self.up = False

    async def reconnect(self, timeout: float = 5.0) -> bool:
        self.up = True
        return True

    async def workers(self) -> dict[str, WorkerInfo]:
        return {f"tcp://127.0.0.1:{9000 + i}": WorkerInfo(f"tcp://127.0.0.1:{9000 + i}", "127.0.0.1", f"w{i}", 2,
                                                           4 << 30, {}) for i in range(2)}

    def submit(self, attempt: str, payload: Any, worker: str, priority: int = 0, inputs: Any = ()) -> _Attempt:
        self.submitted += 1
        return _Attempt(attempt)

    async def kill(self, attempt: str, worker: str | None, future: Any = None) -> bool:
        if future is not None and not future.done():
            await future.cancel()
        return True

    async def kill_orphans(self) -> int:
        return 0

    async def sizes(self, futures: Any) -> dict[str, int]:
        return {}

    async def holders(self, futures: Any) -> dict[str, list[str]]:
        return {f.key: [] for f in futures}

    async def executing(self) -> set[str]:
        return set()


async def _wait_attempts(futures: Any) -> None:
    await asyncio.wait([f._f for f in futures])


def test_the_api_survives_a_fuzz_of_its_own_schema(monkeypatch, tmp_path) -> None:
    import uvicorn

    from corescheduler.config import Config
    from corescheduler.service import attempts as attempts_module
    from corescheduler.service.api import create_app
    from corescheduler.service.service import Service
    from corescheduler.service.tokens import Principal, TokenTable

    monkeypatch.setattr(attempts_module, "wait_futures", _wait_attempts)
    engine = StandInEngine()
    service = Service(Config.from_dict({"cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 2,
                                                    "reduce_slots": 1},
                                        "scheduler": {"task_selector": "locality"}, "service": {"tick": 0.2}}),
                      state=str(tmp_path / "state"), backend=engine)  # type: ignore[arg-type]
    tokens = {"fuzz-admin-token-1": Principal("ops", admin=True), "fuzz-user-token-1": Principal("alice")}
    app = create_app(service, TokenTable.from_plain(tokens))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, name="fuzz-service", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while not server.started and time.monotonic() < deadline and thread.is_alive():
            time.sleep(0.05)
        assert server.started
        auth = {"Authorization": "Bearer fuzz-admin-token-1"}
        with httpx.Client(base_url=url, timeout=30, headers=auth) as c:
            schema_doc = c.get("/api/v1/openapi.json").json()
            # a few real jobs, so that the fuzz's moves, kills and reads reach live ones too
            ids = [c.post("/api/v1/jobs", json={"pool": f"p{i}", "maps": [{"command": ["true"]}] * 3}).json()["id"]
                   for i in range(4)]
            schema = schemathesis.openapi.from_dict(schema_doc)
            strategies = []
            positive, negative = schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE
            for result in schema.get_all_operations():
                operation = result.ok()
                strategies.append(operation.as_strategy(generation_mode=positive))
                if len(operation.body) or len(operation.query):  # something to get wrong (a path id alone: no)
                    strategies.append(operation.as_strategy(generation_mode=negative))
                if "{job_id}" in operation.path:  # on the live jobs too
                    strategies.append(st.sampled_from(ids).flatmap(
                        lambda i, op=operation: op.as_strategy(generation_mode=positive,
                                                               path_parameters={"job_id": i})))
                if operation.method.upper() == "POST" and operation.path == "/api/v1/jobs":
                    strategies += [operation.as_strategy(generation_mode=positive)] * 4  # jobs, mostly valid
            assert len(strategies) >= 15
            counts: Counter[str] = Counter()
            stop_at = time.monotonic() + BUDGET

            @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, derandomize=True,
                      phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
            @given(case=st.one_of(strategies))
            def fuzz(case: Any) -> None:
                if time.monotonic() > stop_at:
                    counts["skipped (time)"] += 1
                    return
                response = case.call(base_url=url, headers=dict(auth), timeout=30)
                counts[f"{case.method} {case.path} {response.status_code}"] += 1
                counts[str(response.status_code)] += 1
                assert response.status_code < 500, (case.method, case.formatted_path, case.body,
                                                    response.status_code, response.text[:500])
                for path in ALWAYS_UP:
                    r = c.get(path)
                    assert r.status_code == 200, (case.method, case.formatted_path, case.body, path, r.text[:500])

            fuzz()
        accepted = counts["201"]
        print(f"API fuzz: {sum(v for k, v in counts.items() if k.isdigit())} requests, {accepted} submissions "
              f"accepted (201), {engine.submitted} attempts started; by status: "
              + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()) if k.isdigit()))
        assert accepted > 0, counts
        assert engine.submitted > 0
        assert sum(v for k, v in counts.items() if k.isdigit() and k.startswith("4")) > 0, counts
    finally:
        server.should_exit = True
        thread.join(timeout=60)
