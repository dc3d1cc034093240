"""``corescheduler.client.Client``: the live service's REST API from Python (SPEC §8).

    from corescheduler.client import Client
    c = Client("http://127.0.0.1:8088", token="s3cret-a")
    job = c.submit({"pool": "etl", "maps": [{"command": ["sleep", "1"]}]})
    c.wait(job["id"]); c.result(job["id"])

A refused request raises :class:`ServiceRequestError` with the service's message,
the field it names and the HTTP status.  Needs the ``[service]`` extra (httpx).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from corescheduler.errors import CoreSchedulerError

DEFAULT_URL = "http://127.0.0.1:8088"
ENDED = ("finished", "killed", "failed")


class ServiceRequestError(CoreSchedulerError):
    """The service refused a request (4xx/5xx) or could not be reached (status 0)."""

    def __init__(self, message: str, status: int = 0, field: str | None = None) -> None:
        where = f" (field {field})" if field else ""
        super().__init__(f"{message}{where}" + (f" [HTTP {status}]" if status else ""))
        self.status = status
        self.field = field
        self.message = message


def _q(job_id: str) -> str:
    """A job id as one path segment (an id with "/" or ".." cannot reach another path)."""
    from urllib.parse import quote

    return quote(str(job_id), safe="")


class Client:
    """A blocking client of one service."""

    def __init__(self, url: str = DEFAULT_URL, token: str | None = None, timeout: float = 30.0) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.url = url.rstrip("/")
        self._http = httpx.Client(base_url=self.url + "/api/v1", headers=headers, timeout=timeout)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        import httpx

        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise ServiceRequestError(f"cannot reach the service at {self.url}: {exc}") from None
        try:
            body = response.json()
        except ValueError:
            body = {"error": response.text[:500]}
        if response.status_code >= 400:
            if not isinstance(body, dict):
                body = {"error": str(body)}
            raise ServiceRequestError(str(body.get("error", body)), response.status_code, body.get("field"))
        return body

    def submit(self, job: dict[str, Any]) -> dict[str, Any]:
        """Submit a job document; the accepted job (with its ``id``)."""
        return self._call("POST", "/jobs", json=job)

    def job(self, job_id: str) -> dict[str, Any]:
        return self._call("GET", f"/jobs/{_q(job_id)}")

    def jobs_page(self, state: str | None = None, limit: int = 100, after: str | None = None) -> dict[str, Any]:
        """One page of jobs, newest first: ``{"jobs": [...], "next": id | None}`` (``next``:
        the ``after`` of the following page; None on the last)."""
        params: dict[str, Any] = {"limit": limit}
        if state:
            params["state"] = state
        if after:
            params["after"] = after
        return self._call("GET", "/jobs", params=params)

    def jobs(self, state: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """The newest ``limit`` jobs (one page; :meth:`iter_jobs` for all)."""
        return self.jobs_page(state, limit)["jobs"]

    def iter_jobs(self, state: str | None = None, page: int = 100) -> Iterator[dict[str, Any]]:
        """Every job, newest first, a page at a time."""
        return _pages(lambda after: self.jobs_page(state, page, after), "jobs")

    def tasks_page(self, job_id: str, limit: int = 100, after: str | None = None) -> dict[str, Any]:
        """One page of a job's tasks, maps then reduces: ``{"tasks": [...], "next": task id | None}``."""
        params: dict[str, Any] = {"limit": limit}
        if after:
            params["after"] = after
        return self._call("GET", f"/jobs/{_q(job_id)}/tasks", params=params)

    def iter_tasks(self, job_id: str, page: int = 100) -> Iterator[dict[str, Any]]:
        """Every task of a job, a page at a time."""
        return _pages(lambda after: self.tasks_page(job_id, page, after), "tasks")

    def result(self, job_id: str) -> Any:
        return self._call("GET", f"/jobs/{_q(job_id)}/result")["result"]

    def kill(self, job_id: str) -> dict[str, Any]:
        return self._call("DELETE", f"/jobs/{_q(job_id)}")

    def move(self, job_id: str, pool: str) -> dict[str, Any]:
        return self._call("PUT", f"/jobs/{_q(job_id)}/pool", json={"pool": pool})

    def set_priority(self, job_id: str, priority: str) -> dict[str, Any]:
        return self._call("PUT", f"/jobs/{_q(job_id)}/priority", json={"priority": priority})

    def pools(self) -> list[dict[str, Any]]:
        return self._call("GET", "/pools")["pools"]

    def nodes(self) -> list[dict[str, Any]]:
        return self._call("GET", "/nodes")["nodes"]

    def wait(self, job_id: str, timeout: float = 3600.0, poll: float = 0.5) -> dict[str, Any]:
        """Poll until the job ends (or ``timeout`` seconds pass: TimeoutError)."""
        deadline = time.monotonic() + timeout
        while True:
            job = self.job(job_id)
            if job["state"] in ENDED:
                return job
            if time.monotonic() > deadline:
                raise TimeoutError(f"job {job_id} still {job['state']} after {timeout} s")
            time.sleep(poll)


def _pages(fetch: Callable[[str | None], dict[str, Any]], key: str) -> Iterator[dict[str, Any]]:
    """The items under ``key`` of every page ``fetch(after)`` returns, following ``next``."""
    after = None
    while True:
        got = fetch(after)
        yield from got[key]
        after = got["next"]
        if after is None:
            return
