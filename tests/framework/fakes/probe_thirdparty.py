"""Run by tests/framework/test_plugins.py in a subprocess whose ``PYTHONPATH`` holds the
fake third-party distribution (``cs-thirdparty-fake``, plugin
``highest_index``); prints one JSON object describing what corescheduler saw.

Usage: ``python probe_thirdparty.py select|blocked``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from corescheduler import plugin_manager
from corescheduler.errors import CoreSchedulerError
from corescheduler.testing import ClusterHarness

NAME = "highest_index"
MODULE = "cs_thirdparty_fake"


def probe(mode: str) -> dict[str, Any]:
    out: dict[str, Any] = {"mode": mode}
    found = plugin_manager.find_plugins()
    info = found.get(NAME)
    out["found"] = None if info is None else {"dist": info.dist, "version": info.version, "value": info.value}
    out["imported_after_discovery"] = MODULE in sys.modules
    blocked = [NAME] if mode == "blocked" else []
    listing = plugin_manager.describe_available(blocked=blocked)
    out["listed"] = [
        {k: row[k] for k in ("dist", "version", "hooks", "points", "error")} for row in listing if row["name"] == NAME
    ]
    out["imported_after_listing"] = MODULE in sys.modules
    scheduler: dict[str, Any] = {"blocked_plugins": blocked}
    if mode == "blocked":
        # A scheduler that does not select the blocked plugin builds fine.
        ClusterHarness(config={"scheduler": scheduler})
    try:
        h = ClusterHarness(config={"scheduler": {**scheduler, "task_selector": NAME}})
    except CoreSchedulerError as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
    else:
        h.submit(maps=3)
        out["assigned"] = [a.task for a in h.heartbeat("n0000")]
        out["in_use"] = h.scheduler.plugins.describe()
    out["imported"] = MODULE in sys.modules
    return out


if __name__ == "__main__":
    print(json.dumps(probe(sys.argv[1])))
