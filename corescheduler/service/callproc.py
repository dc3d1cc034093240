"""A Dask worker's warm launcher: ``python .../corescheduler/service/callproc.py FD``.

The runner (:mod:`corescheduler.service.runner`) starts one per worker process and hands it
each attempt over the Unix socket ``FD``: no data, only open files (``SCM_RIGHTS``) — the
reply pipe, the attempt's spec (JSON), its standard input, output and error, and for a
Python call its input pickle and its outputs (the result's pickle and its JSON text).  The
launcher forks; the child, in a session and process group of its own, becomes the attempt:

- it takes the spec's identity (``[service] run_as``: ``initgroups``, ``setgid``,
  ``setuid``) when the launcher runs as root, and only then reads anything the job gave;
- as root, it gets a PID namespace of its own (``unshare(CLONE_NEWPID)`` and a fork: the
  attempt is the namespace's first process), so that when it dies or is killed the kernel
  kills everything it started, a daemon that left its session (``setsid -f``) too;
- it dies with the launcher (``PR_SET_PDEATHSIG``, set after the identity change, which
  clears it), and the launcher ends when its worker process does (a ``pidfd`` of the
  worker in its loop, not ``PR_SET_PDEATHSIG``, which fires when the worker *thread* that
  started it ends): no attempt outlives its worker;
- its environment is the spec's, nothing of the worker's or the service's;
- a command is ``execvpe``'d; a call is imported and run in the child itself (the
  launcher has imported what the call needs of the standard library already, so a call
  starts in about a millisecond instead of a new interpreter's 40–300 ms).

The launcher writes ``P<pid>`` on the reply pipe once the child exists and ``X<exit code>``
(negative: killed by that signal) when it has reaped it.  It imports the standard library
and this package (so that calls into it start warm) and never unpickles anything: a job's
data is read by the child, under the job's identity, and a result goes back as bytes that
the worker and the service never unpickle (:mod:`corescheduler.service.result`).  A call's exception is printed to its
standard error (the user's frames only) and its exit status is 1.
"""

from __future__ import annotations

import gc
import importlib
import itertools
import json
import os
import pickle
import selectors
import signal
import socket
import sys
import traceback
from typing import Any, NoReturn

#: the exit status of an attempt that could not start (bad cwd, identity or program)
CANNOT_START = 127
_PR_SET_PDEATHSIG = 1
_CLONE_NEWPID = 0x20000000
#: libc, loaded once by the launcher (Linux), for ``prctl``
_LIBC: Any = None


def resolve(call: str) -> Any:
    """``package.module:function`` (the function may be ``Class.method``) → the callable."""
    module_name, _, attr = call.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"{call} is not callable")
    return obj


def _die_with_parent(parent: int) -> None:
    """SIGKILL this process when its parent dies (Linux; elsewhere a no-op).  ``parent`` is
    the pid ``getppid`` shows: 0 for the first process of a PID namespace."""
    if _LIBC is None:
        return
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it died before the setting took
        os._exit(CANNOT_START)


def _own_pid_namespace(launcher: int) -> bool:
    """Put the attempt in a PID namespace of its own (Linux, as root): True in the attempt,
    which is the namespace's first process — when it dies the kernel kills every process
    in the namespace, one that left its process group and session (``setsid -f``) too.
    The process that made the namespace stays outside, waits for the attempt and exits as
    it did; a kill of the attempt's process group kills both.  False (no namespace) when
    the kernel refuses one: then a kill reaches the group and the descendants it finds."""
    if _LIBC is None or os.geteuid() != 0:
        return False
    if _LIBC.unshare(_CLONE_NEWPID) != 0:
        return False
    _die_with_parent(launcher)
    pid = os.fork()
    if pid == 0:
        return True
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # die of the same signal, so the launcher reports it
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        code = 128 - code
    os._exit(code)


def _fail(message: str) -> NoReturn:
    os.write(2, f"{message}\n".encode(errors="replace"))
    os._exit(CANNOT_START)


def _user_frames(tb: Any) -> Any:
    """The traceback from the first frame that is not this file's (the user's first)."""
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return tb


def _child(fds: list[int], launcher: int) -> NoReturn:
    """The attempt (in the forked child): never returns."""
    try:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        os.setsid()
        _reply, spec_fd, stdin, stdout, stderr, *call_fds = fds
        for target, fd in enumerate((stdin, stdout, stderr)):
            os.dup2(fd, target)
        with os.fdopen(spec_fd, "rb") as f:
            spec = json.loads(f.read())
        keep = sorted(call_fds)
        edges = [2, *keep, 1 << 16]
        for low, high in itertools.pairwise(edges):  # every other file of the launcher (other attempts' pipes)
            os.closerange(low + 1, high)
        parent = 0 if _own_pid_namespace(launcher) else launcher
        identity = spec.get("identity")
        if identity is not None:
            name, uid, gid = identity
            try:
                if os.geteuid() == 0:
                    os.initgroups(name, gid)
                    os.setgid(gid)
                    os.setuid(uid)
                elif os.geteuid() != uid:
                    _fail(f"cannot run as {name!r}: the worker is not root")
            except OSError as exc:
                _fail(f"cannot run as {name!r}: {exc.strerror}")
        _die_with_parent(parent)
        env = spec["env"]
        if spec.get("cwd"):
            try:
                os.chdir(spec["cwd"])
            except OSError as exc:
                _fail(f"cannot use cwd {spec['cwd']!r}: {exc.strerror}")
        if spec.get("argv") is not None:
            argv = spec["argv"]
            try:
                os.execvpe(argv[0], argv, env)
            except OSError as exc:
                _fail(f"cannot start {argv[0]!r}: {exc.strerror}")
        os.environ.clear()
        os.environ.update(env)
        if env.get("PYTHONPATH"):  # what a new interpreter would have done with it
            sys.path[0:0] = [p for p in env["PYTHONPATH"].split(os.pathsep) if p]
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False)
        in_fd, out_fd, json_fd = call_fds
        code = _call(in_fd, out_fd, json_fd)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    except BaseException:  # never back into the launcher's loop
        try:
            traceback.print_exc()
            sys.stderr.flush()
        finally:
            os._exit(CANNOT_START)


def _call(in_fd: int, out_fd: int, json_fd: int) -> int:
    """Run the call (in the child, as the task's account): its result goes to ``out_fd`` as
    pickle bytes and to ``json_fd`` as the JSON text shown for it.  A reduce's inputs are
    :class:`~corescheduler.service.result.Result` wrappers, unpickled here and nowhere else."""
    from corescheduler.service.result import Result, render

    try:
        with os.fdopen(in_fd, "rb") as f:
            request = pickle.load(f)
        args = list(request["args"])
        inputs = request.get("inputs")
        if inputs is not None:
            args.insert(0, [pickle.loads(x.pickled) if isinstance(x, Result) else x for x in inputs])
        fn = resolve(request["call"])
        result = fn(*args, **request["kwargs"])
        pickled = pickle.dumps(result)
        with os.fdopen(out_fd, "wb") as f:
            f.write(pickled)
        if len(pickled) <= request.get("limit", len(pickled)):  # past it the runner fails the attempt
            with os.fdopen(json_fd, "wb") as f:
                f.write(render(result).encode())
    except BaseException as exc:
        traceback.print_exception(type(exc), exc, _user_frames(exc.__traceback__))
        return 1
    return 0


def _write(fd: int, text: str) -> None:
    try:
        os.write(fd, text.encode())
    except OSError:  # the runner's thread is gone: nobody to tell
        pass


def serve(sock: socket.socket, worker: int) -> None:
    """Fork an attempt for every message on ``sock``; report its pid and its exit on its reply
    pipe.  Ends when the runner closes the socket or the ``worker`` process ends."""
    me = os.getpid()
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    replies: dict[int, int] = {}
    sel = selectors.DefaultSelector()
    sel.register(sock, selectors.EVENT_READ)
    sel.register(wake_r, selectors.EVENT_READ)
    gone: int | None = None  # readable when the worker process has ended (Linux ≥ 5.3)
    try:
        gone = os.pidfd_open(worker)
        sel.register(gone, selectors.EVENT_READ)
    except (AttributeError, OSError):
        pass
    while True:
        if os.getppid() != worker:  # ended already (or no pidfd: checked every second)
            return
        for key, _ in sel.select(None if gone is not None else 1.0):
            if key.fileobj == gone:
                return
            if key.fileobj is sock:
                msg, fds, _, _ = socket.recv_fds(sock, 16, 8)
                if not msg:
                    return
                if len(fds) not in (5, 8):
                    for fd in fds:
                        os.close(fd)
                    continue
                pid = os.fork()
                if pid == 0:
                    sel.close()
                    _child(fds, me)
                for fd in fds[1:]:
                    os.close(fd)
                replies[pid] = fds[0]
                _write(fds[0], f"P{pid}\n")
            else:
                try:
                    while os.read(wake_r, 512):
                        pass
                except BlockingIOError:
                    pass
        while replies:  # reap: only here, so a pid is always registered before its exit is seen
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            fd = replies.pop(pid, None)
            if fd is not None:
                _write(fd, f"X{os.waitstatus_to_exitcode(status)}\n")
                os.close(fd)


def main(argv: list[str]) -> int:
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]  # a script's own directory: our modules are no task's top-level modules
    global _LIBC
    if sys.platform.startswith("linux"):
        import ctypes

        _LIBC = ctypes.CDLL(None, use_errno=True)
    worker = os.getppid()
    try:  # this package, warm: calls into it and its plugins start without importing it
        importlib.import_module("corescheduler.service.probe")
    except ImportError:
        pass
    gc.freeze()  # a child's collections never walk (and so copy) the launcher's objects
    serve(socket.socket(fileno=int(argv[0])), worker)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
