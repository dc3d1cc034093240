"""The module paths from before the package layout (0.2) still import: each
is the moved module itself, with a DeprecationWarning naming the new path."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from corescheduler._moved import MOVED


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_path_is_the_new_module(old, new):
    # A fresh interpreter: this session may have imported the old name already.
    code = (
        "import importlib, warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    old = importlib.import_module({old!r})\n"
        f"new = importlib.import_module({new!r})\n"
        "assert old is new, (old, new)\n"
        "assert new.__spec__.name == new.__name__, new.__spec__\n"
        f"assert any(issubclass(w.category, DeprecationWarning) and {new!r} in str(w.message) for w in caught)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_names_users_import_from_old_paths_still_work():
    with pytest.warns(DeprecationWarning):
        sys.modules.pop("corescheduler.model", None)
        from corescheduler.model import Job, JobSpec  # noqa: F401
    from corescheduler.core import model

    assert Job is model.Job


def test_every_target_exists():
    for new in MOVED.values():
        importlib.import_module(new)
