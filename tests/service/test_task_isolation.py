"""What a task can reach (SPEC §8b, issue 26): its environment is its job's over a minimal
PATH/HOME/LANG, never the service's; a root service runs it as ``[service] run_as``, so the
tokens file, the ledger and the service's /proc entries are out of its reach; the tokens
path is not in the service's command line; a root ``serve`` without ``run_as`` refuses."""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys
from pathlib import Path

import pytest

from corescheduler.service.runner import AttemptFailed
from tests.cli_helpers import assert_user_error, run
from tests.service.conftest import TASK_USER, free_port, run_attempt, wait_for

HUNT = str(Path(__file__).parents[1] / "data" / "service" / "hunt.py")
SENTINEL = "sentinel-7c1e0b5d"
root = pytest.mark.skipif(os.geteuid() != 0, reason="switching to [service] run_as needs root")


def test_an_attempt_gets_its_jobs_env_over_a_minimal_one_never_the_workers(monkeypatch) -> None:
    monkeypatch.setenv("CORESCHEDULER_TEST_SENTINEL", SENTINEL)
    script = "import json, os; print(json.dumps(dict(os.environ)))"
    out = run_attempt("iso-env", {"command": [sys.executable, "-c", script], "env": {"API_KEY": "mine"}})
    env = json.loads(out["stdout"])
    assert set(env) == {"PATH", "HOME", "LANG", "API_KEY"}, env
    assert env["API_KEY"] == "mine" and env["LANG"] == "C.UTF-8"
    assert run_attempt("iso-env-call", {"call": "os:getenv", "args": ["CORESCHEDULER_TEST_SENTINEL"]}) is None
    assert run_attempt("iso-env-path", {"call": "os:getenv", "args": ["PATH"], "env": {"PATH": "/x"}}) == "/x"


@root
def test_a_root_worker_runs_an_attempt_as_its_run_as_account(tmp_path) -> None:
    account = pwd.getpwnam(TASK_USER)
    assert run_attempt("iso-uid", {"call": "os:getuid", "run_as": TASK_USER}) == account.pw_uid
    out = run_attempt("iso-id", {"command": ["id", "-u"], "run_as": TASK_USER})
    assert out["stdout"].strip() == str(account.pw_uid)
    secret = tmp_path / "secret"
    secret.write_text("root only")
    secret.chmod(0o600)
    with pytest.raises(AttemptFailed, match="Permission denied"):
        run_attempt("iso-read", {"command": ["cat", str(secret)], "run_as": TASK_USER})
    with pytest.raises(AttemptFailed, match="no such user"):
        run_attempt("iso-nouser", {"call": "os:getuid", "run_as": "no-such-account-x"})


def test_a_missing_cwd_is_named(tmp_path) -> None:
    with pytest.raises(AttemptFailed, match=f"cannot use cwd '{tmp_path}/nope'"):
        run_attempt("iso-cwd", {"command": ["true"], "cwd": str(tmp_path / "nope")})
    with pytest.raises(AttemptFailed, match="cannot start 'no-such-program-x'"):
        run_attempt("iso-prog", {"command": ["no-such-program-x"]})


@root
def test_serve_as_root_without_run_as_refuses() -> None:
    assert_user_error(run("serve", "--port", str(free_port())), "runs as root", "[service] run_as")


@root
@pytest.mark.parametrize(("run_as", "said"), [('"no-such-account-x"', "no OS account 'no-such-account-x'"),
                                              ('{"*" = "root"}', "'root' is root")])
def test_serve_as_root_refuses_a_run_as_that_is_missing_or_root(tmp_path, run_as, said) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f"[service]\nrun_as = {run_as}\n")
    assert_user_error(run("serve", "--config", str(config), "--port", str(free_port())), "[service] run_as", said)


def test_run_as_is_an_account_or_a_table_with_a_default() -> None:
    from corescheduler.config import Config
    from corescheduler.service.service import ServiceError, ServiceSettings

    def settings(value):
        return ServiceSettings.from_config(Config.from_dict({"service": {"run_as": value}}))

    assert settings("svc").account("alice") == "svc"
    table = settings({"alice": "svc-alice", "*": "svc"})
    assert (table.account("alice"), table.account("bob"), table.account(None)) == ("svc-alice", "svc", "svc")
    for bad, said in [({"alice": "svc-alice"}, '"*" entry'), ("", "OS account"), (3, "OS account"),
                      ({"*": ""}, "OS account")]:
        with pytest.raises(ServiceError, match=said):
            settings(bad)


@pytest.mark.slow
def test_a_task_hunting_for_credentials_finds_none(tmp_path) -> None:
    """``serve`` as an operator runs it: tokens file and state 0600/0700, a sentinel variable
    in the service's environment.  A task looks everywhere it can."""
    import httpx

    secret = tmp_path / "secret"
    secret.mkdir(mode=0o700)
    token = "hunted-token-3f9a2c71"
    tokens = secret / "tokens.toml"
    tokens.write_text(f'[tokens."{token}"]\nuser = "mallory"\n')
    tokens.chmod(0o600)
    state = secret / "state"
    state.mkdir(mode=0o700)
    config = secret / "c.toml"
    run_as = f'run_as = "{TASK_USER}"\n' if os.geteuid() == 0 else ""
    config.write_text(f'[scheduler]\ntask_selector = "locality"\n[service]\ntick = 0.1\n{run_as}')
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    with open(log, "ab") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "corescheduler", "serve", "--config", str(config), "--tokens", str(tokens),
             "--state", str(state), "--port", str(port)],
            env={**os.environ, "CORESCHEDULER_TEST_SENTINEL": SENTINEL}, stdout=subprocess.DEVNULL, stderr=err)
    try:
        def up() -> bool:
            try:
                return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        assert wait_for(up, 90) and proc.poll() is None, log.read_text()[-3000:]
        auth = {"Authorization": f"Bearer {token}"}
        hunt = [sys.executable, HUNT, str(proc.pid), SENTINEL, str(tokens), str(state / "state.db"), str(config)]
        with httpx.Client(base_url=url, timeout=30, headers=auth) as c:
            r = c.post("/api/v1/jobs", json={"maps": [{"command": hunt}]})
            assert r.status_code == 201, r.text
            job_id = r.json()["id"]
            assert wait_for(lambda: c.get(f"/api/v1/jobs/{job_id}").json()["state"] in ("finished", "failed"), 60)
            job = c.get(f"/api/v1/jobs/{job_id}").json()
            assert job["state"] == "finished", job
            report = json.loads(c.get(f"/api/v1/jobs/{job_id}/result").json()["result"][0]["stdout"])
    finally:
        proc.terminate()
        proc.wait(30)
    assert set(report["env"]) == {"PATH", "HOME", "LANG"}, report["env"]
    assert "--tokens" in report["service_cmdline"] and str(tokens) not in report["service_cmdline"]
    if os.geteuid() == 0:  # without root a task is the service's own user (docs/service.md says so)
        assert report["uid"] == pwd.getpwnam(TASK_USER).pw_uid
        assert report["service_environ"].startswith("error:"), report["service_environ"][:200]
        assert all(v.startswith("error:") for v in report["files"].values()), report["files"]
        assert report["sentinel_in"] == [], report["sentinel_in"]
        assert token not in json.dumps(report)


@pytest.mark.slow
def test_a_thread_isolated_call_sees_no_service_variable(live_service, monkeypatch) -> None:
    """The embedded workers were spawned with the service's environment: they drop it (and
    its copy the kernel shows in /proc) before any task arrives.  As root, thread isolation is
    refused (test_a_root_service_refuses_thread_isolation)."""
    import httpx

    if os.geteuid() == 0:
        pytest.skip("a root service refuses isolation = \"thread\"")
    monkeypatch.setenv("CORESCHEDULER_TEST_SENTINEL", SENTINEL)
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1, "isolation": "thread", "workers": 1}})
    with httpx.Client(base_url=live.url, timeout=30) as c:
        r = c.post("/api/v1/jobs", json={"maps": [{"call": "tests.data.service.hunt:hunt",
                                                    "args": [os.getpid(), SENTINEL]}]})
        assert r.status_code == 201, r.text
        job_id = r.json()["id"]
        assert wait_for(lambda: c.get(f"/api/v1/jobs/{job_id}").json()["state"] in ("finished", "failed"), 60)
        job = c.get(f"/api/v1/jobs/{job_id}").json()
        assert job["state"] == "finished", job
        report = c.get(f"/api/v1/jobs/{job_id}/result").json()["result"][0]
    assert set(report["env"]) == {"PATH", "HOME", "LANG"}, report["env"]
    assert report["sentinel_in"] == [], report["sentinel_in"]
    if os.geteuid() == 0:
        assert report["uid"] == pwd.getpwnam(TASK_USER).pw_uid
