"""``property``: the default PoolResolver — the pool is a job property.

Hadoop 1.x fair scheduler: ``mapred.fairscheduler.poolnameproperty`` names
the job-conf property holding the pool (default ``user.name``); a job without
it goes to the ``default`` pool (``PoolManager.getPoolName``).  Here the
property (or properties, tried in order) is ``pool_name_property``, default
``["queue.name", "user.name"]``: the requested pool, else the user's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corescheduler.core.model import JobSpec
from corescheduler.hookspecs import hookimpl
from corescheduler.settings import Settings


class PropertyResolver:
    """Put a job in the pool named by its first set ``pool_name_property``."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        s = Settings(settings, plugin="property")
        self.properties = s.names("pool_name_property", ("queue.name", "user.name"))
        s.finish()

    @hookimpl
    def cs_resolve_pool(self, job: JobSpec) -> str | None:
        for name in self.properties:
            value = job.property(name)
            if value not in (None, ""):
                return str(value)
        return None
