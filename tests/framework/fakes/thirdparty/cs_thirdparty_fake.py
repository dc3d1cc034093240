"""A fake third-party TaskSelector, ``highest_index``: launches the
highest-index pending task of a job first (the built-in ``locality`` takes the
lowest), so a test can see that this plugin's hook ran.

Importing this module appends ``imported`` to the file named by the
``CS_FAKE_MARKER`` environment variable: a test checks that a blocked
plugin is never imported.
"""

from __future__ import annotations

import os

from corescheduler.core.model import PENDING, Job, Task
from corescheduler.hookspecs import hookimpl

_marker = os.environ.get("CS_FAKE_MARKER")
if _marker:
    with open(_marker, "a", encoding="utf-8") as fh:
        fh.write("imported\n")


class HighestIndexFirst:
    """Highest-index pending task first."""

    @hookimpl
    def cs_select_task(self, job: Job, kind: str) -> Task | None:
        for task in reversed(job.tasks[kind]):
            if task.state == PENDING:
                return task
        return None
