"""What runs on a Dask worker for one task attempt, and how it is stopped.

Dask cannot stop a running thread (``Future.cancel`` leaves it running:
``../shared/design/dask-backend.md`` §2.3), so every attempt runs in a child
process of its own, in a new session: a command as its argv, a Python call in
the child itself.  The children are forked by the worker's warm launcher
(``corescheduler/service/callproc.py``, one per worker process, started on the
first attempt), so an attempt starts in a few milliseconds rather than a new
interpreter's 40–300 ms.  The worker thread waits for the child;
:func:`kill_attempt` (run on the worker through ``Client.run``) kills the
child's whole process group with SIGKILL, the thread returns at once and the
slot is really free — Hadoop's "kill task attempt", not a cancel that keeps
running.

A reduce receives the results of all the job's maps: a call as its first
argument, a command as JSON on its standard input.
On Linux the child dies with the launcher and the launcher with its worker
(``PR_SET_PDEATHSIG = SIGKILL``): if the worker process dies, its attempts die
with it rather than run on unseen while the service runs them again elsewhere.

What an attempt gets (SPEC §8b): its job's ``env`` over a minimal ``PATH``,
``HOME`` and ``LANG`` — nothing of the worker's or the service's environment —
and, when the worker runs as root and the payload names ``run_as``, that OS
account (``initgroups``, ``setgid``, ``setuid`` in the child, before it reads
anything of the job).  A ``timeout`` (seconds) bounds the attempt: past it, its
process group is killed and the attempt fails with ``timed out after N s``.

A command's result is ``{"returncode": 0, "stdout": ...}``; a non-zero exit, a
raised exception or a signal is a failed attempt, reported with the tail of
the child's standard error.
"""

from __future__ import annotations

import json
import os
import pickle
import pwd
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from corescheduler.service.result import NOT_JSON, Result, render

#: attempt key -> the pid of the child running it (on this worker); its process group too
_RUNNING: dict[str, int] = {}
#: attempts killed on purpose (their child's death is not a failure)
_KILLED: set[str] = set()
#: attempts running as a call in a worker thread (``isolation = "thread"``)
_IN_THREAD: set[str] = set()
_LOCK = threading.Lock()
#: the most of a command's standard output kept as its result
STDOUT_LIMIT = 1 << 20
#: the largest result a call may return (pickled), unless ``[service] max_result_bytes`` says
MAX_RESULT_BYTES = 64 << 20
_CALLPROC = str(Path(__file__).with_name("callproc.py"))
_STDERR_TAIL = 4000
#: how long a killed attempt's launcher may take to report the child reaped
_REAP_WAIT = 10.0
#: the worker's launcher: (its process, the socket to it); one per worker process
_LAUNCHER: tuple[subprocess.Popen[bytes], socket.socket] | None = None
_LAUNCHER_LOCK = threading.Lock()


class AttemptKilled(Exception):
    """The attempt was killed on purpose (preemption or a job kill)."""


class AttemptFailed(Exception):
    """The task failed: it raised, exited non-zero, died of a signal or ran out of time."""


def base_env(home: str) -> dict[str, str]:
    """The environment every attempt starts from: the engine's Python first on ``PATH``, the
    account's ``HOME``, a UTF-8 ``LANG``; a job's ``env`` goes over it."""
    path = os.pathsep.join(dict.fromkeys([os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"]))
    return {"PATH": path, "HOME": home, "LANG": "C.UTF-8"}


def _identity(name: str | None) -> tuple[list[Any] | None, str]:
    """``run_as`` → (``[name, uid, gid]`` for the child, or None to stay as the worker; HOME)."""
    me = os.geteuid()
    if name is None:
        try:
            return None, pwd.getpwuid(me).pw_dir
        except KeyError:
            return None, "/"
    try:
        pw = pwd.getpwnam(name)
    except KeyError:
        raise AttemptFailed(f"cannot run as {name!r}: no such user on this worker") from None
    if pw.pw_uid == me:
        return None, pw.pw_dir
    if me != 0:
        raise AttemptFailed(f"cannot run as {name!r}: the worker is not root")
    return [name, pw.pw_uid, pw.pw_gid], pw.pw_dir


def _launcher() -> socket.socket:
    """The socket to this worker's launcher, started (again) if it is not running."""
    global _LAUNCHER
    with _LAUNCHER_LOCK:
        if _LAUNCHER is not None and _LAUNCHER[0].poll() is None:
            return _LAUNCHER[1]
        if _LAUNCHER is not None:
            _LAUNCHER[1].close()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            proc = subprocess.Popen(
                [sys.executable, _CALLPROC, str(theirs.fileno())], pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=base_env(_identity(None)[1]),
                start_new_session=True,
            )
        finally:
            theirs.close()
        _LAUNCHER = (proc, ours)
        return ours


class _Reply:
    """The launcher's lines about one attempt: ``P<pid>``, then ``X<exit code>``."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = b""

    def line(self, deadline: float | None) -> str | None:
        """The next line; None at the deadline; ``""`` if the launcher died."""
        while b"\n" not in self.buf:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.fd], [], [], wait)
            if not ready:
                return None
            chunk = os.read(self.fd, 256)
            if not chunk:
                return ""
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode()


def _launch(fds: list[int]) -> tuple[_Reply, int]:
    """Hand an attempt's files to the launcher; its reply pipe and the child's pid."""
    r, w = os.pipe()
    reply = _Reply(r)
    try:
        try:
            sock = _launcher()
            socket.send_fds(sock, [b"run"], [w, *fds])
        except OSError:  # the launcher died just now: once more with a new one
            sock = _launcher()
            socket.send_fds(sock, [b"run"], [w, *fds])
    except BaseException:
        os.close(r)
        raise
    finally:
        os.close(w)
    line = reply.line(None)
    if not line or not line.startswith("P"):
        os.close(r)
        raise AttemptFailed("the worker's launcher died before starting the attempt")
    return reply, int(line[1:])


def run_attempt(attempt: str, payload: Mapping[str, Any], *inputs: Any) -> Any:
    """Run one attempt of a task in a child process and return its result.

    ``payload`` is :meth:`TaskRequest.payload` (plus ``isolation``, ``run_as`` and
    ``timeout`` as the service sets them).  A reduce's ``inputs`` are the job's map results
    in map order: Dask hands them over (the service submits the reduce with the maps'
    futures, so each result comes from the worker that holds it, never through the
    service).  Raises :class:`AttemptKilled` if :func:`kill_attempt` stopped it,
    :class:`AttemptFailed` if it failed."""
    if inputs:
        payload = {**payload, "inputs": list(inputs)}
    with _LOCK:
        if attempt in _KILLED:
            raise AttemptKilled(attempt)
    timeout = payload.get("timeout")
    # a thread cannot be stopped, so a call with a time limit runs as a process
    # and a root worker never runs a task in its own process (SPEC §8b: run_as)
    if (payload.get("isolation") == "thread" and payload.get("call") is not None and timeout is None
            and (payload.get("run_as") is None or os.geteuid() != 0)):
        return _run_in_thread(attempt, payload)
    identity, home = _identity(payload.get("run_as"))
    env = {**base_env(home), **payload.get("env", {})}
    reduce_input = payload.get("inputs")  # a reduce: every map's result, in map order
    command = payload.get("command")
    spec = {"argv": list(command) if command is not None else None, "env": env,
            "cwd": payload.get("cwd") or None, "identity": identity}
    limit = int(payload.get("max_result_bytes") or MAX_RESULT_BYTES)
    files: list[int] = []
    try:
        try:
            files.append(_memfile(json.dumps(spec).encode()))
            if command is not None and reduce_input is not None:
                files.append(_memfile(_json_inputs(reduce_input)))
            else:
                files.append(os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC))
            files += [_memfile(), _memfile()]  # stdout, stderr
            if command is None:  # the maps' results go as Result wrappers: the child unpickles them
                files.append(_memfile(pickle.dumps({
                    "call": payload["call"], "args": list(payload.get("args", [])), "kwargs": payload.get("kwargs", {}),
                    "inputs": list(reduce_input) if reduce_input is not None else None, "limit": limit})))
                files += [_memfile(), _memfile()]  # the result: its pickle, its JSON text
            reply, pid = _launch(files)
        except OSError as exc:
            raise AttemptFailed(f"cannot start the attempt: {exc}") from None
        try:
            code = _wait(attempt, reply, pid, timeout)
        finally:
            os.close(reply.fd)
        stderr = files[3]
        tail = os.pread(stderr, _STDERR_TAIL, max(0, os.fstat(stderr).st_size - _STDERR_TAIL))
        tail_text = tail.decode(errors="replace").strip()
        said = f": {tail_text}" if tail_text else ""
        if code == "timeout":
            raise AttemptFailed(f"timed out after {timeout:g} s{said}")
        if code is None:
            raise AttemptFailed(f"the worker's launcher died while the attempt ran{said}")
        if code != 0:
            what = f"killed by signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
            raise AttemptFailed(f"{what}{said}")
        if command is not None:
            value = {"returncode": 0, "stdout": os.pread(files[2], STDOUT_LIMIT, 0).decode(errors="replace")}
            return Result(pickle.dumps(value), json.dumps(value))  # our own value: pickled here, never loaded here
        # what the child wrote: bytes only (SPEC §8b: the worker never unpickles a task's output)
        size = os.fstat(files[5]).st_size
        if size > limit:
            raise AttemptFailed(f"result too large ({size} bytes; [service] max_result_bytes is {limit})")
        if size == 0:
            raise AttemptFailed(f"the call left no result{said}")
        pickled = os.pread(files[5], size, 0)
        json_size = os.fstat(files[6]).st_size
        text: str | None = None
        if 0 < json_size <= limit:
            try:
                text = os.pread(files[6], json_size, 0).decode()
            except UnicodeDecodeError:
                text = None
        return Result(pickled, text)
    finally:
        for fd in files:
            os.close(fd)


def _json_inputs(inputs: Any) -> bytes:
    """A command reduce's standard input: the maps' results as one JSON array, each the JSON
    text its child made (never unpickled here)."""
    parts = []
    for value in inputs:
        text = value.json if isinstance(value, Result) else None
        if text is None:
            text = render(value) if not isinstance(value, Result) else json.dumps(NOT_JSON)
        parts.append(text)
    return ("[" + ",".join(parts) + "]").encode()


def _memfile(data: bytes = b"") -> int:
    """A file in memory (Linux ``memfd``; elsewhere an unlinked temporary file) holding
    ``data``, at offset 0: an attempt's input or output, handed over as an open file."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("corescheduler-attempt", os.MFD_CLOEXEC)
    else:
        fd, path = tempfile.mkstemp(prefix="corescheduler-")
        os.unlink(path)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _wait(attempt: str, reply: _Reply, pid: int, timeout: float | None) -> int | str | None:
    """The child's exit code; ``"timeout"`` if it ran out of time (it is killed); None if the
    launcher died.  Raises :class:`AttemptKilled` if it was killed on purpose."""
    with _LOCK:
        _RUNNING[attempt] = pid
        early = attempt in _KILLED  # a kill that came while the process was starting
    if early:
        _kill_tree(pid)
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        line = reply.line(deadline)
        timed_out = line is None
        if timed_out:
            _kill_tree(pid)
            line = reply.line(time.monotonic() + _REAP_WAIT)
    finally:
        with _LOCK:
            _RUNNING.pop(attempt, None)
            killed = attempt in _KILLED
    if killed:
        raise AttemptKilled(attempt)
    if timed_out:
        return "timeout"
    if not line or not line.startswith("X"):
        return None
    return int(line[1:])


def _run_in_thread(attempt: str, payload: Mapping[str, Any]) -> Any:
    """``[service] isolation = "thread"``: the call runs in this worker thread (no process to
    start: for short tasks); it can only be stopped by restarting the worker."""
    from corescheduler.service.callproc import resolve

    reduce_input = payload.get("inputs")
    args = [] if reduce_input is None else [[pickle.loads(x.pickled) if isinstance(x, Result) else x
                                             for x in reduce_input]]
    with _LOCK:
        if attempt in _KILLED:
            raise AttemptKilled(attempt)
        _IN_THREAD.add(attempt)
    try:
        fn = resolve(payload["call"])
        value = fn(*args, *payload.get("args", []), **payload.get("kwargs", {}))
        return Result(pickle.dumps(value), render(value))
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
        pid = _RUNNING.get(attempt)
        in_thread = attempt in _IN_THREAD
    if in_thread:
        return "thread"
    if pid is None:
        return False
    return _kill_tree(pid)


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
        return dict(_RUNNING)


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
    return sum(1 for _, pid in running if _kill_tree(pid))
