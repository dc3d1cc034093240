"""What runs on a Dask worker for one task attempt, and how it is stopped.

Dask cannot stop a running thread (``Future.cancel`` leaves it running:
``../shared/design/dask-backend.md`` §2.3), so every attempt runs in a child
process of its own, in a new session: a command as its argv, a Python call in
``corescheduler/service/callproc.py`` (run as a script).  The worker thread waits for the
child; :func:`kill_attempt` (run on the worker through ``Client.run``) kills
the child's whole process group with SIGKILL, the thread returns at once and
the slot is really free — Hadoop's "kill task attempt", not a cancel that keeps
running.

A reduce receives the results of all the job's maps: a call as its first
argument, a command as JSON on its standard input.
On Linux the child also gets ``PR_SET_PDEATHSIG = SIGKILL`` (util-linux
``setpriv``): if the worker process dies, its attempts die with it rather than
run on unseen while the service runs them again elsewhere.

A command's result is ``{"returncode": 0, "stdout": ...}``; a non-zero exit, a
raised exception or a signal is a failed attempt, reported with the tail of
the child's standard error.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: attempt key -> the child process running it (on this worker)
_RUNNING: dict[str, subprocess.Popen[bytes]] = {}
#: attempts killed on purpose (their child's death is not a failure)
_KILLED: set[str] = set()
#: attempts running as a call in a worker thread (``isolation = "thread"``)
_IN_THREAD: set[str] = set()
_LOCK = threading.Lock()
#: the most of a command's standard output kept as its result
STDOUT_LIMIT = 1 << 20
#: util-linux's setpriv: runs the child with PR_SET_PDEATHSIG = SIGKILL, so that a worker that dies
#: (SIGKILL, OOM) takes its attempts with it instead of leaving them running unseen
_SETPRIV = shutil.which("setpriv") if sys.platform.startswith("linux") else None
#: run as a script, not ``-m``: the child then imports only the standard library and the task's
#: own module, not this package (70 ms less per attempt)
_CALLPROC = str(Path(__file__).with_name("callproc.py"))
_STDERR_TAIL = 4000


class AttemptKilled(Exception):
    """The attempt was killed on purpose (preemption or a job kill)."""


class AttemptFailed(Exception):
    """The task failed: it raised, exited non-zero or died of a signal."""


def run_attempt(attempt: str, payload: Mapping[str, Any], *inputs: Any) -> Any:
    """Run one attempt of a task in a child process and return its result.

    ``payload`` is :meth:`TaskRequest.payload`.  A reduce's ``inputs`` are the job's map
    results in map order: Dask hands them over (the service submits the reduce with the
    maps' futures, so each result comes from the worker that holds it, never through the
    service).  Raises :class:`AttemptKilled` if :func:`kill_attempt` stopped it,
    :class:`AttemptFailed` if it failed."""
    if inputs:
        payload = {**payload, "inputs": list(inputs)}
    with _LOCK:
        if attempt in _KILLED:
            raise AttemptKilled(attempt)
    if payload.get("isolation") == "thread" and payload.get("call") is not None:
        return _run_in_thread(attempt, payload)
    env = {**os.environ, **payload.get("env", {})}
    cwd = payload.get("cwd") or None
    with tempfile.TemporaryDirectory(prefix="corescheduler-") as tmp:
        work = Path(tmp)
        stdin_data: bytes | None = None
        reduce_input = payload.get("inputs")  # a reduce: every map's result, in map order
        if payload.get("command") is not None:
            argv = list(payload["command"])
            if reduce_input is not None:
                stdin_data = json.dumps(list(reduce_input), default=repr).encode()
        else:
            with open(work / "in.pkl", "wb") as f:
                args = [list(reduce_input)] if reduce_input is not None else []
                pickle.dump({"call": payload["call"], "args": [*args, *payload.get("args", [])],
                             "kwargs": payload.get("kwargs", {})}, f)
            argv = [sys.executable, _CALLPROC, str(work)]
        if _SETPRIV is not None:  # the child dies with its worker (Linux): no orphan keeps running
            argv = [_SETPRIV, "--pdeathsig", "KILL", "--", *argv]
        try:
            proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd, start_new_session=True,
            )
        except OSError as exc:
            raise AttemptFailed(f"cannot start {argv[0]!r}: {exc}") from None
        with _LOCK:
            _RUNNING[attempt] = proc
            early = attempt in _KILLED  # a kill that came while the process was starting
        if early:
            _kill_tree(proc.pid)
        try:
            out, err = proc.communicate(stdin_data)
        finally:
            with _LOCK:
                _RUNNING.pop(attempt, None)
                killed = attempt in _KILLED
        if killed:
            raise AttemptKilled(attempt)
        tail = err[-_STDERR_TAIL:].decode(errors="replace").strip()
        if proc.returncode != 0:
            if proc.returncode < 0:
                what = f"killed by signal {signal.Signals(-proc.returncode).name}"
            else:
                what = f"exit status {proc.returncode}"
            raise AttemptFailed(f"{what}" + (f": {tail}" if tail else ""))
        if payload.get("command") is not None:
            return {"returncode": 0, "stdout": out[:STDOUT_LIMIT].decode(errors="replace")}
        try:
            with open(work / "out.pkl", "rb") as f:
                return pickle.load(f)
        except (OSError, EOFError, pickle.UnpicklingError) as exc:
            raise AttemptFailed(f"the call left no result ({exc})" + (f": {tail}" if tail else "")) from None


def _run_in_thread(attempt: str, payload: Mapping[str, Any]) -> Any:
    """``[service] isolation = "thread"``: the call runs in this worker thread (no process to
    start: for short tasks); it can only be stopped by restarting the worker."""
    from corescheduler.service.callproc import resolve

    reduce_input = payload.get("inputs")
    args = [list(reduce_input)] if reduce_input is not None else []
    with _LOCK:
        if attempt in _KILLED:
            raise AttemptKilled(attempt)
        _IN_THREAD.add(attempt)
    try:
        fn = resolve(payload["call"])
        return fn(*args, *payload.get("args", []), **payload.get("kwargs", {}))
    except Exception as exc:
        raise AttemptFailed(f"{type(exc).__name__}: {exc}") from None
    finally:
        with _LOCK:
            _IN_THREAD.discard(attempt)


def kill_attempt(attempt: str) -> bool | str:
    """Stop ``attempt`` on this worker: SIGKILL to its child's process group (it and
    anything it started).  True if it was running here; ``"thread"`` if it runs in a worker
    thread (only a restart of the worker stops it); an attempt that has not started yet
    will not start."""
    with _LOCK:
        _KILLED.add(attempt)
        proc = _RUNNING.get(attempt)
        in_thread = attempt in _IN_THREAD
    if in_thread:
        return "thread"
    if proc is None:
        return False
    return _kill_tree(proc.pid)


def _kill_tree(pid: int) -> bool:
    """SIGKILL the attempt's child, its process group and every descendant found (one that
    left the group with ``setsid`` too), descendants first seen, then all killed at once."""
    found = False
    descendants = []
    try:
        import psutil  # a dependency of distributed

        descendants = psutil.Process(pid).children(recursive=True)
    except Exception:  # gone already, or no psutil: the process group still goes
        pass
    try:
        os.killpg(pid, signal.SIGKILL)
        found = True
    except ProcessLookupError:
        pass
    for child in descendants:
        try:
            child.kill()
        except Exception:
            pass
    return found


def running_attempts() -> dict[str, int]:
    """The attempts running on this worker and their child's pid."""
    with _LOCK:
        return {key: proc.pid for key, proc in _RUNNING.items()}


def executing_attempts() -> list[str]:
    """The attempts executing on this worker (a child process or a thread): they have their
    inputs already."""
    with _LOCK:
        return [*_RUNNING, *_IN_THREAD]


def kill_all() -> int:
    """Kill every attempt running on this worker (a restarted service's first act: the
    attempts of the service that died are no one's now, and run again under the new one)."""
    with _LOCK:
        running = list(_RUNNING.items())
        _KILLED.update(key for key, _ in running)
    return sum(1 for _, proc in running if _kill_tree(proc.pid))
