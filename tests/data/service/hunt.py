"""A hostile task: it looks for the service's credentials wherever a task could reach them and
reports what it found (tests/service/test_task_isolation.py).

    python hunt.py SERVICE_PID SENTINEL PATH...    # a command: the report as JSON on stdout
    hunt(SERVICE_PID, SENTINEL, PATH...)          # a call: the report
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return "read:" + f.read(1 << 20).decode(errors="replace")
    except OSError as exc:
        return f"error:{type(exc).__name__}"


def hunt(service_pid: int, sentinel: str, *paths: str) -> dict[str, Any]:
    """What this task can see: its own environment and identity, the service's /proc entries,
    the files in ``paths``, and every process whose environment or command line it can read
    that holds ``sentinel``."""
    holders = []
    me = os.readlink("/proc/self")  # its pid in /proc's namespace (getpid() is its PID namespace's)
    for pid in os.listdir("/proc"):
        if pid.isdigit() and pid != me:  # its own argv names the sentinel
            for part in ("environ", "cmdline"):
                if sentinel in _read(f"/proc/{pid}/{part}"):
                    holders.append(f"{pid}/{part}")
    return {
        "uid": os.geteuid(),
        "env": dict(os.environ),
        "service_environ": _read(f"/proc/{service_pid}/environ"),
        "service_cmdline": _read(f"/proc/{service_pid}/cmdline").replace("\0", " "),
        "files": {p: _read(p) for p in paths},
        "sentinel_in": holders,
    }


if __name__ == "__main__":
    print(json.dumps(hunt(int(sys.argv[1]), sys.argv[2], *sys.argv[3:])))
