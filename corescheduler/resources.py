"""Resource vectors and YARN's resource strings: the public name of
:mod:`corescheduler.core.resources`, where they live (below the framework and the core
both, so that the core imports nothing of the framework).  ``corescheduler.resources.Resources``
and every other name of SPEC stay importable from here."""

from __future__ import annotations

from corescheduler.core.resources import (
    MEMORY,
    UNBOUNDED,
    VCORES,
    ConfigurableResources,
    ResourceParseError,
    Resources,
    normalize,
    parse_configurable,
    parse_resources,
)

__all__ = [
    "MEMORY",
    "UNBOUNDED",
    "VCORES",
    "ConfigurableResources",
    "ResourceParseError",
    "Resources",
    "normalize",
    "parse_configurable",
    "parse_resources",
]
