"""A task's result never runs code in the service or its workers (SPEC §8b): results come
back as bytes (corescheduler.service.result) that only a reduce's child, as the task's own
account, unpickles; a result too large fails its attempt; thread isolation is refused as root."""

from __future__ import annotations

import json
import os
import pwd
import time
from pathlib import Path

import pytest

from corescheduler.service import runner
from corescheduler.service.result import NOT_JSON, Result, render
from corescheduler.service.runner import AttemptFailed
from corescheduler.service.service import jsonable
from tests.cli_helpers import assert_user_error, run
from tests.service.conftest import TASK_USER, as_task_user, free_port, wait_for

root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root")


def _evil(marker: Path) -> str:
    """The review's payload: an object whose unpickling runs a shell command."""
    return ("type('X', (), {'__reduce__': lambda s: (__import__('os').system, "
            f"('id -u > {marker}',))}})()")


def test_a_malicious_result_is_never_unpickled_by_the_runner(shared_dir) -> None:
    marker = shared_dir / "pwned"
    payload = {"call": "builtins:eval", "args": [_evil(marker)]}
    if os.geteuid() == 0:
        payload["run_as"] = TASK_USER
    out = runner.run_attempt("evil-map", payload)
    assert isinstance(out, Result)
    time.sleep(0.2)
    assert not marker.exists(), "the runner unpickled the task's result"
    shown_value = jsonable(out)  # what the API shows: the child's JSON text, read as JSON
    assert shown_value["type"] == "X" and "X object" in shown_value["repr"], shown_value
    assert not marker.exists()
    # a reduce's child (the task's own account) receives it: the code runs there, not here
    reduce = {"call": "builtins:len", "run_as": payload.get("run_as")}
    counted = runner.run_attempt("evil-reduce", {k: v for k, v in reduce.items() if v is not None}, out, 7)
    assert counted.json == "2"
    assert wait_for(marker.exists, 5)
    if os.geteuid() == 0:
        assert marker.read_text().strip() == str(pwd.getpwnam(TASK_USER).pw_uid)
    # a command reduce gets the JSON texts
    cmd = runner.run_attempt("evil-cmd", {"command": ["cat"]}, out, Result(b"", None), 3)
    inputs = json.loads(json.loads(cmd.json)["stdout"])
    assert inputs[0]["type"] == "X" and inputs[1:] == [NOT_JSON, 3], inputs


def test_a_result_past_the_limit_fails_its_attempt() -> None:
    with pytest.raises(AttemptFailed, match=r"result too large \(\d+ bytes; \[service\] max_result_bytes is 1000\)"):
        runner.run_attempt("big", {"call": "builtins:str", "args": ["x" * 5000], "max_result_bytes": 1000})
    assert runner.run_attempt("small", {"call": "builtins:str", "args": ["x" * 500], "max_result_bytes": 1000}).json


def test_results_that_are_not_json_are_shown_and_never_raise() -> None:
    huge = 10 ** 5000
    text = render(huge)  # json.dumps and repr both raise on a 5001-digit int: still shown
    assert json.loads(text) == {"repr": "<a int that cannot be shown>", "type": "int"}
    assert jsonable(Result(b"", text))["type"] == "int"
    for bad in ["[1", "1" * 5000, "[" * 100_000 + "]" * 100_000, "NaN", "1e999", None]:
        assert jsonable(Result(b"", bad)) == NOT_JSON, bad
    assert jsonable(float("nan")) == NOT_JSON and jsonable({"a": [1]}) == {"a": [1]}
    assert runner.run_attempt("huge", {"call": "builtins:pow", "args": [10, 5000]}).json == text


def test_max_result_bytes_is_a_setting() -> None:
    from corescheduler.config import Config
    from corescheduler.service.service import ServiceError, ServiceSettings

    assert ServiceSettings.from_config(Config.from_dict({})).max_result_bytes == 64 << 20
    assert ServiceSettings.from_config(Config.from_dict({"service": {"max_result_bytes": 10}})).max_result_bytes == 10
    with pytest.raises(ServiceError, match="max_result_bytes"):
        ServiceSettings.from_config(Config.from_dict({"service": {"max_result_bytes": 0}}))


@root
def test_a_root_service_refuses_thread_isolation(tmp_path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'[service]\nrun_as = "{TASK_USER}"\nisolation = "thread"\n')
    assert_user_error(run("serve", "--config", str(config), "--port", str(free_port())),
                      'isolation = "thread" is refused when the service runs as root', 'use isolation = "process"')


@pytest.mark.slow
def test_a_process_isolated_task_gets_no_dask_and_its_malicious_result_runs_nothing(live_service, shared_dir) -> None:
    import httpx

    marker = shared_dir / "pwned-live"
    live = live_service(as_task_user({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 2, "reduce_slots": 1},
                                      "service": {"tick": 0.1, "workers": 1}}))
    with httpx.Client(base_url=live.url, timeout=30) as c:
        r = c.post("/api/v1/jobs", json={"maps": [{"call": "tests.data.service.dask_probe:probe",
                                                    "env": {"PYTHONPATH": str(Path(__file__).parents[2])}},
                                                   {"call": "builtins:eval", "args": [_evil(marker)]},
                                                   {"call": "builtins:pow", "args": [10, 5000]}]})
        assert r.status_code == 201, r.text
        job_id = r.json()["id"]
        assert wait_for(lambda: c.get(f"/api/v1/jobs/{job_id}").json()["state"] in ("finished", "failed"), 60)
        job = c.get(f"/api/v1/jobs/{job_id}").json()
        assert job["state"] == "finished", job
        probe, evil, huge = c.get(f"/api/v1/jobs/{job_id}/result").json()["result"]
        assert c.get("/healthz").status_code == 200
    assert "worker" not in probe and "client" not in probe and "scheduler_uid" not in probe, probe
    assert probe["worker_error"] == "ValueError: No worker found", probe  # not an ImportError: it tried
    assert probe["client_error"].startswith("ValueError: No global client found"), probe
    assert evil["type"] == "X" and huge == {"repr": "<a int that cannot be shown>", "type": "int"}
    assert not marker.exists(), "the service or its worker unpickled a task's result"
    if os.geteuid() == 0:
        assert probe["uid"] == pwd.getpwnam(TASK_USER).pw_uid


@pytest.mark.slow
def test_a_failure_recording_an_attempts_end_fails_that_attempt_never_leaves_it_running(live_service) -> None:
    import httpx

    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1}})
    store = live.service.store
    real = store.task_ended
    broken = []

    def task_ended(*args, **kwargs):
        if args[3] == "complete" and not broken:
            broken.append(args)
            raise ValueError("Exceeds the limit (4300 digits) for integer string conversion")
        return real(*args, **kwargs)

    store.task_ended = task_ended
    with httpx.Client(base_url=live.url, timeout=30) as c:
        job_id = c.post("/api/v1/jobs", json={"maps": [{"call": "math:factorial", "args": [5]}]}).json()["id"]
        assert wait_for(lambda: c.get(f"/api/v1/jobs/{job_id}").json()["state"] in ("finished", "failed"), 60)
        job = c.get(f"/api/v1/jobs/{job_id}").json()
        assert broken and job["state"] == "finished" and job["failed_attempts"] == 1, job
        assert c.get(f"/api/v1/jobs/{job_id}/result").json()["result"] == [120]
        tasks = store.tasks(job_id)
        assert "could not record the result: ValueError" in (tasks[0]["error"] or ""), tasks
