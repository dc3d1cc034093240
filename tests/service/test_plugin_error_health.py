"""A plugin's error in the live service's scheduler loop is visible (issue 25 item 4 review):
/healthz answers 503 with the plugin's one-line message, logged once (not on every tick),
and says ok again when the plugin answers well.  The service is real (its scheduler loop, API
and ledger); its engine a stand-in with two workers whose attempts never end (nothing runs on
this machine); the faulty plugin the file tests/framework/fakes/faulty/cs_faulty_plugins.py,
installed as an entry point of a distribution as in tests/framework/test_hook_answers.py."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

from corescheduler import plugin_manager  # noqa: E402
from corescheduler.service.backend import WorkerInfo  # noqa: E402

FAULTY = Path(__file__).parent.parent / "framework" / "fakes" / "faulty"


class _Attempt:
    def __init__(self, key: str) -> None:
        self.key = key
        self._f: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def done(self) -> bool:
        return self._f.done()

    async def cancel(self, reason: str | None = None) -> None:
        self._f.cancel()


class StandIn:
    """Two workers; attempts start and run until they are killed."""

    up = False
    gone = False

    async def start(self, timeout: float = 60.0) -> None:
        self.up = True

    async def close(self) -> None:
        self.up = False

    async def workers(self) -> dict[str, WorkerInfo]:
        return {f"tcp://127.0.0.1:{9000 + i}": WorkerInfo(f"tcp://127.0.0.1:{9000 + i}", "127.0.0.1", f"w{i}", 2,
                                                           4 << 30, {}) for i in range(2)}

    def submit(self, attempt: str, payload: Any, worker: str, priority: int = 0, inputs: Any = ()) -> _Attempt:
        return _Attempt(attempt)

    async def kill(self, attempt: str, worker: str | None, future: Any = None) -> bool:
        if future is not None and not future.done():
            await future.cancel()
        return True

    async def kill_orphans(self) -> int:
        return 0


@pytest.fixture
def faulty_entry_points(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    sys.path.insert(0, str(FAULTY))
    import cs_faulty_plugins as faulty

    site = tmp_path / "site"
    info = site / "cs_faulty-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: cs-faulty\nVersion: 1.0\n", encoding="utf-8")
    lines = [f"{name} = cs_faulty_plugins:{cls.__name__}" for name, cls in faulty.ENTRY_POINTS.items()]
    (info / "entry_points.txt").write_text("[corescheduler]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delenv(plugin_manager.DISABLE_AUTOLOAD_ENV, raising=False)
    plugin_manager.refresh()
    yield faulty
    monkeypatch.undo()
    plugin_manager.refresh()


def test_a_plugin_error_in_the_loop_is_in_healthz_and_logged_once(faulty_entry_points, tmp_path, caplog) -> None:
    from corescheduler.config import Config
    from corescheduler.service.api import create_app
    from corescheduler.service.service import Service

    config = Config.from_dict({
        "cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 2, "reduce_slots": 1},
        "scheduler": {"load_manager": "faulty_assign"}, "plugins": {"faulty_assign": {"answer": "no"}},
        "service": {"tick": 0.02},
    })

    async def scenario() -> None:
        service = Service(config, state=str(tmp_path / "state"), backend=StandIn())  # type: ignore[arg-type]
        app = create_app(service, None)
        await service.start()
        try:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
                assert (await client.get("/healthz")).status_code == 200
                await service.submit({"maps": [{"call": "math:sqrt", "args": [4]}]}, "alice")
                health = None
                for _ in range(200):  # bounded: about 4 s of ticks at most
                    await asyncio.sleep(0.02)
                    health = await client.get("/healthz")
                    if health.status_code == 503:
                        break
                assert health is not None and health.status_code == 503, health and health.text
                status = health.json()["status"]
                assert "plugin 'faulty_assign'" in status and "cs_can_assign returned 'no'" in status
                assert "\n" not in status
                for _ in range(10):  # more turns fail the same way: no more log lines
                    service.kick()
                    await asyncio.sleep(0.03)
                failed = [r for r in caplog.records if "scheduler loop turn failed" in r.getMessage()]
                assert len(failed) == 1 and failed[0].exc_info is None
                assert "cs_can_assign returned 'no'" in failed[0].getMessage()
                # the plugin answers well again: ok again
                service.scheduler.plugins.instances["faulty_assign"].answer = None
                for _ in range(200):
                    service.kick()
                    await asyncio.sleep(0.02)
                    health = await client.get("/healthz")
                    if health.status_code == 200:
                        break
                assert health.status_code == 200 and health.json()["status"] == "ok"
        finally:
            await service.stop()

    with caplog.at_level(logging.INFO, logger="corescheduler"):
        asyncio.run(asyncio.wait_for(scenario(), 60))
