"""The worker-side runner, without Dask: a kill really stops the attempt — its process, its
process group and descendants that left the group — even when it lands while the attempt is
starting."""

from __future__ import annotations

import os
import threading
import time

import pytest

from corescheduler.service import runner
from corescheduler.service.runner import AttemptFailed, AttemptKilled, kill_attempt
from tests.service.conftest import run_attempt


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def test_a_call_and_a_command_run_and_fail_with_their_error() -> None:
    assert run_attempt("t-call", {"call": "math:factorial", "args": [5]}) == 120
    assert run_attempt("t-cmd", {"command": ["sh", "-c", "echo hi"]}) == {"returncode": 0, "stdout": "hi\n"}
    assert run_attempt("t-reduce", {"call": "builtins:sum", "inputs": [1, 2, 3]}) == 6
    with pytest.raises(AttemptFailed, match="math domain error"):
        run_attempt("t-raise", {"call": "math:sqrt", "args": [-1]})
    with pytest.raises(AttemptFailed, match="exit status 3"):
        run_attempt("t-exit", {"command": ["sh", "-c", "echo oops >&2; exit 3"]})


def test_a_kill_stops_the_process_and_descendants_that_left_its_group(tmp_path) -> None:
    pids = tmp_path / "pids"
    # each shell writes its pid as the host sees it ($$ is the attempt's PID namespace's own)
    me = "read -r p _ < /proc/self/stat; echo $p"
    script = f"setsid sh -c '{me} >> {pids}; exec sleep 77' & {me} >> {pids}; sleep 78"
    errors: list[BaseException] = []

    def run() -> None:
        try:
            run_attempt("t-tree", {"command": ["sh", "-c", script]})
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    assert _wait(lambda: pids.exists() and len(pids.read_text().split()) == 2)
    found = [int(p) for p in pids.read_text().split()]
    assert all(_alive(p) for p in found)
    assert kill_attempt("t-tree") is True
    thread.join(10)
    assert not thread.is_alive(), "the worker thread is still waiting"
    assert isinstance(errors[0], AttemptKilled)
    assert _wait(lambda: not any(_alive(p) for p in found)), "a process of the killed attempt still runs"


def test_a_kill_that_lands_while_the_attempt_starts_still_stops_it(monkeypatch, tmp_path) -> None:
    started: list[int] = []
    real = runner._launch

    def racing_launch(*args, **kwargs):  # the kill arrives between the start and the registration
        reply, pid = real(*args, **kwargs)
        started.append(pid)
        kill_attempt("t-race")
        return reply, pid

    monkeypatch.setattr(runner, "_launch", racing_launch)
    with pytest.raises(AttemptKilled):
        run_attempt("t-race", {"command": ["sleep", "30"]})
    assert started and _wait(lambda: not _alive(started[0]))


def test_an_attempt_killed_before_it_starts_never_runs(tmp_path) -> None:
    marker = tmp_path / "ran"
    kill_attempt("t-early")
    with pytest.raises(AttemptKilled):
        run_attempt("t-early", {"command": ["touch", str(marker)]})
    with pytest.raises(AttemptKilled):
        run_attempt("t-early", {"call": "os:getpid", "isolation": "thread"})
    assert not marker.exists()


def test_the_launcher_outlives_the_thread_that_started_it(monkeypatch) -> None:
    """PR_SET_PDEATHSIG fires when the *thread* that started a process ends: the launcher must
    not use it, or a worker thread's end would kill every attempt of the worker."""
    old = runner._LAUNCHER
    monkeypatch.setattr(runner, "_LAUNCHER", None)
    try:
        first = threading.Thread(target=run_attempt, args=("t-thread", {"call": "os:getpid"}))
        first.start()
        first.join(30)
        launcher = runner._LAUNCHER[0]
        time.sleep(0.2)
        assert launcher.poll() is None, "the launcher died with the thread that started it"
        assert run_attempt("t-after", {"command": ["true"]}) == {"returncode": 0, "stdout": ""}
        assert runner._LAUNCHER[0] is launcher
    finally:
        runner._LAUNCHER[1].close()
        runner._LAUNCHER[0].wait(10)
        monkeypatch.setattr(runner, "_LAUNCHER", old)
