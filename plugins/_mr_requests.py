"""What the TaskSelectors of resource mode share about an MR job's requests, as MapReduce's
AM makes them (``RMContainerAllocator``): the scheduler key of its maps, and whether a
container fits a node's capability (``hasContainerForNode``; else ``LOCALITY_SKIPPED``)."""

from __future__ import annotations

from typing import Any

from corescheduler.core.model import Task

#: ``RMContainerAllocator.PRIORITY_MAP``: the priority (scheduler key) of an MR job's map requests
MR_MAP_PRIORITY = 20


def fits_capability(task: Task, capacity: Any) -> bool:
    """The task's container fits a node of ``capacity`` (None: unknown, as fitting)."""
    size = task.resources
    return size is None or capacity is None or size.fits_in(capacity)
