"""Time limits (SPEC §8b): a job's ``timeout`` and ``[service] task_timeout``; past it the
attempt's whole process group is killed and the attempt fails with ``timed out after N s``."""

from __future__ import annotations

import math
import threading

import pytest

from corescheduler.service.jobs import JobFormatError, parse_job
from corescheduler.service.runner import AttemptFailed
from tests.service.conftest import run_attempt
from tests.service.test_runner import _alive, _wait


@pytest.mark.parametrize("bad", [0, -1, "5", True, math.nan, math.inf, 1e12, [1]])
def test_a_timeout_is_seconds_above_zero(bad) -> None:
    with pytest.raises(JobFormatError) as err:
        parse_job({"maps": [{"command": ["true"]}], "timeout": bad})
    assert err.value.field == "timeout"
    assert parse_job({"maps": [{"command": ["true"]}], "timeout": 1.5}).timeout == 1.5
    assert parse_job({"maps": [{"command": ["true"]}]}).timeout is None


def test_task_timeout_setting_is_checked() -> None:
    from corescheduler.config import Config
    from corescheduler.service.service import ServiceError, ServiceSettings

    assert ServiceSettings.from_config(Config.from_dict({"service": {"task_timeout": 30}})).task_timeout == 30.0
    assert ServiceSettings.from_config(Config.from_dict({})).task_timeout is None
    with pytest.raises(ServiceError, match="task_timeout"):
        ServiceSettings.from_config(Config.from_dict({"service": {"task_timeout": 0}}))


def test_an_attempt_past_its_timeout_is_killed_with_its_process_group(tmp_path) -> None:
    pids = tmp_path / "pids"
    # pids as the host sees them ($! and $$ are the attempt's PID namespace's own)
    script = (f"sh -c 'read -r p _ < /proc/self/stat; echo $p >> {pids}; exec sleep 61' & "
              f"read -r p _ < /proc/self/stat; echo $p >> {pids}; sleep 62")
    with pytest.raises(AttemptFailed, match=r"^timed out after 0\.5 s"):
        run_attempt("to-cmd", {"command": ["sh", "-c", script], "timeout": 0.5})
    found = [int(p) for p in pids.read_text().split()]
    assert len(found) == 2
    assert _wait(lambda: not any(_alive(p) for p in found)), "a process of the timed-out attempt still runs"


def test_a_call_with_a_timeout_runs_as_a_process_even_under_thread_isolation() -> None:
    before = threading.active_count()
    with pytest.raises(AttemptFailed, match=r"^timed out after 0\.3 s"):
        run_attempt("to-call", {"call": "time:sleep", "args": [60], "isolation": "thread", "timeout": 0.3})
    assert threading.active_count() == before  # no thread left sleeping
    assert run_attempt("to-ok", {"call": "math:factorial", "args": [4], "timeout": 30}) == 24


@pytest.mark.slow
def test_a_job_whose_attempts_time_out_fails_with_the_reason(live_service) -> None:
    import httpx

    from tests.service.conftest import wait_for

    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 2, "reduce_slots": 1},
                         "service": {"tick": 0.1, "workers": 1, "max_attempts": 2, "task_timeout": 0.5}})
    with httpx.Client(base_url=live.url, timeout=30) as c:
        hung = c.post("/api/v1/jobs", json={"maps": [{"command": ["sleep", "600"]}]}).json()
        own = c.post("/api/v1/jobs", json={"timeout": 30, "maps": [{"command": ["sleep", "1"]}]}).json()
        bad = c.post("/api/v1/jobs", json={"timeout": -3, "maps": [{"command": ["true"]}]})
        assert bad.status_code == 400 and bad.json()["field"] == "timeout", bad.text
        ended = ("finished", "failed", "killed")
        assert wait_for(lambda: all(c.get(f"/api/v1/jobs/{j['id']}").json()["state"] in ended
                                    for j in (hung, own)), 60)
        failed = c.get(f"/api/v1/jobs/{hung['id']}").json()
        assert failed["state"] == "failed", failed
        assert "failed 2 times" in failed["error"] and "timed out after 0.5 s" in failed["error"], failed
        # its own timeout (30 s) is the job's limit, not the service's 0.5 s
        assert c.get(f"/api/v1/jobs/{own['id']}").json()["state"] == "finished"


def _sleepers(*durations: str) -> list[int]:
    import psutil

    out = []
    for p in psutil.process_iter(["cmdline"]):
        cmd = p.info["cmdline"] or []
        if len(cmd) == 2 and cmd[0].endswith("sleep") and cmd[1] in durations:
            out.append(p.pid)
    return out


@pytest.mark.skipif(__import__("os").geteuid() != 0, reason="a PID namespace per attempt needs a root launcher")
@pytest.mark.parametrize("how", ["timeout", "kill"])
def test_a_daemonized_child_dies_with_its_attempt(how) -> None:
    """The review's escape: ``setsid -f`` leaves the process group and the session, and ``(… &)``
    is reparented away from the attempt; each attempt's own PID namespace takes them all."""
    from corescheduler.service import runner
    from tests.service.conftest import TASK_USER

    tag = "301.4159" if how == "timeout" else "311.4159"
    d = [f"{tag}{i}" for i in range(4)]
    script = f"setsid sleep {d[1]} & setsid -f sleep {d[2]}; (sleep {d[3]} &); sleep {d[0]}"
    payload = {"command": ["sh", "-c", script], "run_as": TASK_USER}
    if how == "timeout":
        with pytest.raises(AttemptFailed, match=r"^timed out after 1 s"):
            run_attempt("esc-timeout", {**payload, "timeout": 1})
    else:
        done: list[BaseException] = []

        def attempt() -> None:
            try:
                run_attempt("esc-kill", payload)
            except BaseException as exc:
                done.append(exc)

        thread = threading.Thread(target=attempt)
        thread.start()
        assert _wait(lambda: len(_sleepers(*d)) == 4), _sleepers(*d)
        assert runner.kill_attempt("esc-kill")
        thread.join(30)
        assert done and isinstance(done[0], runner.AttemptKilled), done
    assert _wait(lambda: not _sleepers(*d)), f"left running: {_sleepers(*d)}"
