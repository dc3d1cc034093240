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

The modules listed are those that type-check cleanly under mypy and hold no plugin (a
mypyc class cannot carry pluggy's ``hookimpl`` marks) and no attrs class.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup

COMPILED = [
    "corescheduler/core/model.py",
    "corescheduler/core/order.py",
    "corescheduler/core/scheduler.py",
    "corescheduler/core/shuffle.py",
    "corescheduler/core/task_ledger.py",
    "corescheduler/sim/simulator.py",
]

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
