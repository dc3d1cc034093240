"""What ``ps`` and ``/proc/<pid>`` show of this process: the kernel shows the argument and
environment strings the process started with, from its own memory (``/proc/<pid>/stat``
fields 48–51 give where), so overwriting them there hides them (what ``setproctitle``
does).  Linux only; elsewhere these do nothing."""

from __future__ import annotations

import ctypes
import sys


def _region(first: int) -> tuple[int, int] | None:
    """(start, end) address of the arguments (``first`` = 48) or environment (50)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # fields[0] is field 3 (state)
    start, end = int(fields[first - 3]), int(fields[first - 2])
    return (start, end) if 0 < start < end else None


def hide_argument(value: str) -> bool:
    """Overwrite every whole argument equal to ``value`` (or ``--opt=value``'s value) in this
    process's command line with ``*``.  True if one was found."""
    region = _region(48)
    if region is None or not value:
        return False
    start, end = region
    raw = ctypes.string_at(start, end - start)
    needle = value.encode()
    found = False
    offset = 0
    for arg in raw.split(b"\0"):
        if arg == needle:
            at = 0
        elif arg.startswith(b"-") and arg.endswith(b"=" + needle):
            at = len(arg) - len(needle)
        else:
            at = -1
        if at >= 0:
            ctypes.memset(start + offset + at, ord("*"), len(needle))
            found = True
        offset += len(arg) + 1
    return found


def wipe_initial_environ() -> bool:
    """Zero the environment this process started with (call after ``os.environ.clear()``,
    which unsets every variable, so nothing points into it any more)."""
    region = _region(50)
    if region is None:
        return False
    start, end = region
    ctypes.memset(start, 0, end - start)
    return True
