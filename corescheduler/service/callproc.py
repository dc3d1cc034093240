"""``python .../corescheduler/service/callproc.py DIR``: run one Python call of a task.

It runs as a script and imports only the standard library (and the task's module), so a
call's process starts as fast as Python does.

Reads ``DIR/in.pkl`` (``{"call": "pkg.mod:func", "args": [...], "kwargs": {...}}``),
imports the function, calls it and writes its result to ``DIR/out.pkl``.  An
exception is printed to standard error (its traceback) and the exit status is 1,
which the runner reports as a failed attempt.  The process is the attempt: killing
it stops the call (``corescheduler.service.runner.kill_attempt``).
"""

from __future__ import annotations

import importlib
import pickle
import sys
import traceback
from pathlib import Path
from typing import Any


def resolve(call: str) -> Any:
    """``package.module:function`` (the function may be ``Class.method``) → the callable."""
    module_name, _, attr = call.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"{call} is not callable")
    return obj


def main(argv: list[str]) -> int:
    work = Path(argv[0])
    with open(work / "in.pkl", "rb") as f:
        request = pickle.load(f)
    try:
        fn = resolve(request["call"])
        result = fn(*request["args"], **request["kwargs"])
        with open(work / "out.tmp", "wb") as f:
            pickle.dump(result, f)
        (work / "out.tmp").replace(work / "out.pkl")
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
