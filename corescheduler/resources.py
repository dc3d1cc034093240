"""Resource vectors and YARN's resource strings: the public name of
:mod:`corescheduler.core.resources`, where they live (below the framework and the core
both, so that the core imports nothing of the framework).  ``corescheduler.resources.Resources``
and every other name of SPEC stay importable from here."""

from __future__ import annotations

# every public name of the core module, and its list of them (one list, kept there)
from corescheduler.core.resources import *  # noqa: F403
from corescheduler.core.resources import __all__ as __all__
