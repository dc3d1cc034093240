"""Optional compiled build of the simulator's hot modules (everything else is in pyproject.toml).

By default corescheduler installs as pure Python.  With ``CORESCHEDULER_MYPYC=1`` in the
environment, ``pip install .`` (or ``-e .``) compiles :data:`COMPILED` with mypyc
(https://mypyc.readthedocs.io) into C extensions that import in place of the ``.py`` files;
results are byte-identical to the pure-Python modules (``tests/sim/test_compiled.py``) and a
simulated day runs about a quarter faster (benchmarks/README.md).  It needs a C compiler and
the Python headers; pip fetches mypy (and attrs and pluggy, whose types it reads) into the
build environment itself: setuptools'
PEP 517 backend asks this file for its ``setup_requires`` before the build, and while mypy
is missing that first pass lists it instead of compiling.

The modules, listed once in ``corescheduler/compiled.py`` (``MODULES``), are those that
type-check cleanly under mypy and hold no plugin (a mypyc class cannot carry pluggy's
``hookimpl`` marks) and no attrs class.
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

from setuptools import setup


def compiled_paths() -> list[str]:
    """The files of ``corescheduler.compiled.MODULES``, the one list of the compiled modules,
    read from that file's source: importing the package here would need its dependencies in
    the build environment.  Paths are relative to the project folder, where setuptools runs
    this file (as the paths given to mypyc are)."""
    source = Path("corescheduler", "compiled.py")
    for node in ast.parse(source.read_text(encoding="utf-8"), filename=str(source)).body:
        if isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        else:
            targets, value = (node.targets, node.value) if isinstance(node, ast.Assign) else ([], None)
        if value is not None and any(isinstance(t, ast.Name) and t.id == "MODULES" for t in targets):
            return [name.replace(".", "/") + ".py" for name in ast.literal_eval(value)]
    sys.exit(f"{source}: no MODULES = (...) of module names")


COMPILED = compiled_paths()

#: setuptools commands that build the package (a requirements or metadata pass runs egg_info/dist_info)
BUILDING = {"bdist_wheel", "editable_wheel", "build", "build_ext", "build_py", "install", "develop"}

options: dict[str, object] = {}
if os.environ.get("CORESCHEDULER_MYPYC", "").strip() not in ("", "0"):
    try:
        from mypyc.build import mypycify
    except ImportError:
        if BUILDING & set(sys.argv[1:]):  # e.g. --no-build-isolation without mypy: never a silent pure build
            sys.exit("CORESCHEDULER_MYPYC=1: the compiled build needs mypy (mypyc) in the build environment; "
                     "pip install 'mypy>=1.10,<3', or build without --no-build-isolation")
        # the requirements pass of the PEP 517 build: ask for mypy (and what mypy reads the types of)
        options["setup_requires"] = ["mypy>=1.10,<3", "attrs>=23.1", "pluggy>=1.3", "mypy_extensions>=1.0"]
    else:
        flags = ["--ignore-missing-imports", "--follow-imports=silent"]
        options["ext_modules"] = mypycify([*flags, *COMPILED], opt_level="3")

setup(**options)  # type: ignore[arg-type]
