"""Old module paths that still import: ``corescheduler.model`` and the others
that moved into subpackages in 0.2 (see CHANGELOG.md).

``import corescheduler.model`` gives the very module object
``corescheduler.core.model`` (same classes, same ``isinstance`` results), with
a :class:`DeprecationWarning` naming the new path.  The aliases are resolved
by a meta-path finder installed when :mod:`corescheduler` is imported, so an
old path costs nothing until somebody uses it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

#: old dotted name -> where the module lives now
MOVED: dict[str, str] = {
    "corescheduler.model": "corescheduler.core.model",
    "corescheduler.fairshare": "corescheduler.core.fairshare",
    "corescheduler.order": "corescheduler.core.order",
    "corescheduler.javamath": "corescheduler.core.javamath",
    "corescheduler.scheduler": "corescheduler.core.scheduler",
    "corescheduler.allocations": "corescheduler.formats.allocation_file",
    "corescheduler.shares": "corescheduler.formats.state",
    "corescheduler.workload": "corescheduler.formats.workloads",
    "corescheduler.simulator": "corescheduler.sim.simulator",
    "corescheduler.metrics": "corescheduler.sim.metrics",
    "corescheduler.report": "corescheduler.sim.report",
    "corescheduler.simulate_cli": "corescheduler.cli.simulate",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target
        self._spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} moved to {self.target}; import it from there",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(self.target)
        self._spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The module is the target itself, already executed; the import system
        # binds it under the old name in sys.modules.  Give back the target's
        # own spec, which the import system replaced with the alias's.
        module.__spec__ = self._spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(new))


def install() -> None:
    """Put the alias finder on :data:`sys.meta_path` (once)."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.append(_AliasFinder())
