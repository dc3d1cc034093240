"""``Client.iter_jobs`` / ``iter_tasks`` follow ``next`` page by page (no server: the page calls
are replaced)."""

from __future__ import annotations

from typing import Any

from corescheduler.client import Client


def _pager(key: str, items: list[str], seen: list[Any]) -> Any:
    def page(*args: Any) -> dict[str, Any]:
        limit, after = args[-2], args[-1]
        seen.append(after)
        start = 0 if after is None else items.index(after) + 1
        chunk = items[start:start + limit]
        more = start + limit < len(items)
        return {key: chunk, "next": chunk[-1] if more else None}
    return page


def test_iter_jobs_and_tasks_walk_every_page() -> None:
    client = Client("http://127.0.0.1:9")
    try:
        seen: list[Any] = []
        client.jobs_page = _pager("jobs", [f"j{i}" for i in range(7)], seen)  # type: ignore[method-assign]
        assert list(client.iter_jobs(page=3)) == [f"j{i}" for i in range(7)]
        assert seen == [None, "j2", "j5"]
        seen.clear()
        client.tasks_page = _pager("tasks", ["t0", "t1"], seen)  # type: ignore[method-assign]
        assert list(client.iter_tasks("job", page=2)) == ["t0", "t1"]
        assert seen == [None]
    finally:
        close = getattr(client, "close", None)
        if close is not None:
            close()
