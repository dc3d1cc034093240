"""Task selectors of the fake clashing distributions (tests/framework/fakes/clashing)."""

from __future__ import annotations

from typing import Any

from corescheduler.hookspecs import hookimpl


class FirstIndex:
    @hookimpl
    def cs_select_task(self, job: Any, kind: str) -> Any:
        return job.pending_task(kind)


class LastIndex:
    @hookimpl
    def cs_select_task(self, job: Any, kind: str) -> Any:
        return job.pending_task(kind)
