"""``[service]`` settings (SPEC §8, §8b): checked once, when the service starts or
``corescheduler check`` reads the config.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import define

from corescheduler.config import Config
from corescheduler.service.errors import ServiceError
from corescheduler.service.jobs import check_timeout


@define
class ServiceSettings:
    """``[service]`` settings."""

    tick: float = 0.5
    max_attempts: int = 4
    workers: int | None = None
    threads: int | None = None
    #: "process": every attempt its own process (killed exactly); "thread": a Python call runs in
    #: the worker's thread (no process start: for short tasks; stopping it restarts the worker)
    isolation: str = "process"
    #: grants a worker may hold per slot: above 1, a worker gets its next tasks before its slots
    #: free, hiding the grant round trip (design/dask-backend.md: 1.5 for 50 ms tasks); the
    #: scheduler then counts backlog × slots per node
    backlog: float = 1.0
    #: the OS account tasks run as when the service runs as root: one name, or a table from
    #: tenant users to names with a "*" entry for everyone else (SPEC §8b)
    run_as: str | dict[str, str] | None = None
    #: seconds an attempt may run when its job gives no ``timeout`` (None: no limit); past it,
    #: its process group is killed and the attempt fails (Hadoop's mapreduce.task.timeout)
    task_timeout: float | None = None
    #: the embedded Dask scheduler's dashboard ("127.0.0.1:8787"); None: no dashboard
    dashboard: str | None = None
    #: the largest result (pickled) an attempt may return; past it the attempt fails
    max_result_bytes: int = 64 << 20
    #: the most a job's final results (their JSON text) may total: the service keeps them until the
    #: job ends and stores them in the ledger; past it the job fails (one job cannot fill its memory)
    max_job_result_bytes: int = 256 << 20

    def account(self, user: str | None) -> str | None:
        """The OS account ``user``'s tasks run as (when the service runs as root)."""
        if isinstance(self.run_as, dict):
            return self.run_as.get(user or "", self.run_as["*"])
        return self.run_as
    #: what anyone may read of a job that is not theirs (SPEC §8b): "summary" or "none"
    public_read: str = "summary"

    @classmethod
    def from_config(cls, config: Config, problems: list[str] | None = None) -> ServiceSettings:
        """``[service]``'s settings.  A bad one raises :class:`ServiceError` (the first); given
        ``problems``, every bad one's message is appended there instead (``check``) and the
        default kept for it."""
        def fail(message: str) -> None:
            if problems is None:
                raise ServiceError(message)
            problems.append(message)

        raw: Mapping[str, Any] = config.service
        known = {"tick", "max_attempts", "workers", "threads", "isolation", "backlog", "run_as",
                 "task_timeout", "dashboard", "public_read", "max_result_bytes", "max_job_result_bytes"}
        for key in sorted(set(raw) - known):
            fail(f"[service] {key}: unknown setting; expected one of {', '.join(sorted(known))}")
        out = cls()
        for key in ("tick",):
            if key in raw:
                value = raw[key]
                if not isinstance(value, int | float) or isinstance(value, bool) or not (0 < value <= 60):
                    fail(f"[service] {key}: expected seconds in (0, 60], got {value!r}")
                else:
                    setattr(out, key, float(value))
        if "isolation" in raw:
            if raw["isolation"] not in ("process", "thread"):
                fail(f"[service] isolation: expected \"process\" or \"thread\", got {raw['isolation']!r}")
            else:
                out.isolation = raw["isolation"]
        if "public_read" in raw:
            if raw["public_read"] not in ("summary", "none"):
                fail("[service] public_read: expected \"summary\" or \"none\", "
                     f"got {raw['public_read']!r}")
            else:
                out.public_read = raw["public_read"]
        if "backlog" in raw:
            value = raw["backlog"]
            if not isinstance(value, int | float) or isinstance(value, bool) or not (1 <= value <= 10):
                fail(f"[service] backlog: expected a factor from 1 to 10, got {value!r}")
            else:
                out.backlog = float(value)
        if "run_as" in raw:
            try:
                out.run_as = _run_as(raw["run_as"])
            except ServiceError as exc:
                fail(str(exc))
        if "dashboard" in raw:
            value = raw["dashboard"]
            if not isinstance(value, str) or ":" not in value or not value.rpartition(":")[2].isdigit():
                fail(f"[service] dashboard: expected an address such as \"127.0.0.1:8787\", "
                     f"got {value!r}")
            else:
                out.dashboard = value
        if "task_timeout" in raw:
            timeout = check_timeout(raw["task_timeout"])
            if timeout is None:
                fail(f"[service] task_timeout: expected seconds, a number > 0, "
                     f"got {raw['task_timeout']!r}")
            else:
                out.task_timeout = timeout
        for key in ("max_attempts", "workers", "threads", "max_result_bytes", "max_job_result_bytes"):
            if key in raw:
                value = raw[key]
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    fail(f"[service] {key}: expected a whole number ≥ 1, got {value!r}")
                else:
                    setattr(out, key, value)
        return out


def _run_as(value: Any) -> str | dict[str, str]:
    """``[service] run_as``: an OS account name, or a table user → account with a "*" entry."""
    def name(v: Any) -> bool:
        return isinstance(v, str) and bool(v) and v.strip() == v and ":" not in v and "\0" not in v

    if name(value):
        return str(value)
    if isinstance(value, Mapping) and value and all(isinstance(k, str) and name(v) for k, v in value.items()):
        if "*" not in value:
            raise ServiceError("[service] run_as: a table needs a \"*\" entry: the account of users it does not name")
        return {str(k): str(v) for k, v in value.items()}
    raise ServiceError(f"[service] run_as: expected an OS account name or a table of user = account, got {value!r}")
