"""Which hot modules run compiled.

``CORESCHEDULER_MYPYC=1 pip install .`` compiles :data:`MODULES` with mypyc (``setup.py``);
a plain install runs them as Python.  Both give byte-identical results
(``tests/sim/test_compiled.py``).  A compiled module imports in place of its ``.py``
file, so after an editable compiled install (``-e .``) an edited ``.py`` would not run
until the next install: :func:`stale_modules` finds those, and importing corescheduler
warns about them once.
"""

from __future__ import annotations

import importlib.machinery
import os
import warnings

#: the modules ``setup.py`` compiles: the one list of them (``setup.py`` reads it from this
#: file's source, so it stays a literal tuple of module names)
MODULES = (
    "corescheduler.core.blame",
    "corescheduler.core.model",
    "corescheduler.core.order",
    "corescheduler.core.schedulable",
    "corescheduler.core.scheduler",
    "corescheduler.core.shuffle",
    "corescheduler.core.slot_engine",
    "corescheduler.core.slot_pools",
    "corescheduler.core.slot_walk",
    "corescheduler.core.task_ledger",
    "corescheduler.sim.heartbeats",
    "corescheduler.sim.simulator",
    "corescheduler.sim.updates",
)

_EXTENSIONS = tuple(importlib.machinery.EXTENSION_SUFFIXES)
_ROOT = os.path.dirname(os.path.abspath(__file__))


def _origin(name: str) -> str:
    """The file ``name`` imports from, found without importing anything: Python's path
    finder takes an extension module before the ``.py`` beside it."""
    base = os.path.join(_ROOT, *name.split(".")[1:])
    for suffix in _EXTENSIONS:
        if os.path.exists(base + suffix):
            return base + suffix
    return base + ".py"


def compiled_modules() -> dict[str, bool]:
    """Each of :data:`MODULES` → whether it imports as a compiled extension."""
    return {name: _origin(name).endswith(_EXTENSIONS) for name in MODULES}


def stale_modules() -> list[str]:
    """Compiled modules whose ``.py`` beside them is newer than the extension, in a source
    checkout (an edit that a compiled editable install does not run until it is
    reinstalled)."""
    if not os.path.exists(os.path.join(os.path.dirname(_ROOT), "pyproject.toml")):
        return []  # an installed wheel (its .py files may well be newer): not a source checkout
    out = []
    for name in MODULES:
        origin = _origin(name)
        if not origin.endswith(_EXTENSIONS):
            continue
        source = os.path.join(_ROOT, *name.split(".")[1:]) + ".py"
        try:
            if os.path.getmtime(source) > os.path.getmtime(origin):
                out.append(name)
        except OSError:  # no source beside it (an installed wheel): nothing to go stale
            continue
    return out


def warn_if_stale() -> None:
    """Warn once, naming the compiled modules older than their source."""
    stale = stale_modules()
    if stale:
        warnings.warn(
            f"compiled {', '.join(stale)} older than the .py beside it: the edit does not run; "
            "reinstall (CORESCHEDULER_MYPYC=1 pip install -e .) or delete the .so files",
            RuntimeWarning,
            stacklevel=2,
        )
