"""Issue 26 item 9: operators see clean output.  SIGTERM stops quietly (one "stopping" and one
"stopped" line, no ERROR, no traceback) and no line comes twice; the API docs page needs
no network; the page lists recent ended jobs with their error for those who may read them;
``corescheduler result JOB`` prints a result."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

import pytest

from tests.service.conftest import TASK_USER, free_port, wait_for

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.slow


def test_sigterm_stops_quietly_and_each_line_comes_once(tmp_path) -> None:
    config = tmp_path / "corescheduler.toml"
    run_as = f'run_as = "{TASK_USER}"\n' if os.geteuid() == 0 else ""
    config.write_text("[cluster]\nracks = 1\nnodes_per_rack = 2\nmap_slots = 2\nreduce_slots = 1\n"
                      f"[service]\nworkers = 2\ntick = 0.1\n{run_as}")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    err = tmp_path / "stderr.log"
    with open(err, "w") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "corescheduler", "serve", "--config", str(config),
                                 "--port", str(port)], stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        def up() -> bool:
            assert proc.poll() is None, err.read_text()
            try:
                return httpx.get(f"{url}/healthz", timeout=5).status_code == 200
            except httpx.TransportError:
                return False

        assert wait_for(up, 90, 0.2)
        with httpx.Client(base_url=url, timeout=30) as c:
            job = c.post("/api/v1/jobs", json={"maps": [{"command": ["sleep", "30"]}] * 3}).json()
            c.post("/api/v1/jobs", json={"maps": [{"call": "time:sleep", "args": [30]}]})
            assert wait_for(lambda: c.get(f"/api/v1/jobs/{job['id']}").json()["maps"]["running"] >= 2, 60)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    text = err.read_text()
    lines = text.splitlines()
    assert "Traceback" not in text and " ERROR " not in text and "- ERROR -" not in text, text
    assert len([line for line in lines if re.search(r"corescheduler\.service: stopping", line)]) == 1, text
    assert len([line for line in lines if line.endswith("corescheduler.service: stopped")]) == 1, text
    assert not any("Shutting down" in line or "Application shutdown" in line for line in lines), text
    # one line, one format: a Dask line came twice, once in Dask's own format ("… - distributed.x - INFO - …")
    assert lines and all(re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (INFO|WARNING) [\w.]+: ", line)
                         for line in lines), text


def test_api_docs_page_works_offline_and_the_page_lists_ended_jobs(live_service) -> None:
    from click.testing import CliRunner

    from corescheduler.cli import cli
    from corescheduler.service.api import Principal

    tokens = {"alice-token-1": Principal("alice"), "bob-token-1": Principal("bob")}
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 2, "reduce_slots": 1},
                         "service": {"tick": 0.05, "workers": 1, "isolation": "process", "max_attempts": 1}},
                        tokens=tokens)
    alice = {"Authorization": "Bearer alice-token-1"}
    with httpx.Client(base_url=live.url, timeout=30) as c:
        docs = c.get("/api/v1/docs")
        assert docs.status_code == 200
        assert "<script" not in docs.text and not re.search(r"(src|href)=['\"]?(https?:)?//", docs.text), docs.text
        assert "/api/v1/openapi.json" in docs.text and "<code>/api/v1/jobs/{job_id}/tasks</code>" in docs.text
        ok = c.post("/api/v1/jobs", headers=alice, json={"name": "good", "maps": [{"call": "math:factorial",
                                                                                    "args": [5]}]}).json()
        bad = c.post("/api/v1/jobs", headers=alice, json={"name": "bad", "maps": [{"call": "math:factorial",
                                                                                   "args": [-1]}]}).json()
        assert wait_for(lambda: c.get(f"/api/v1/jobs/{ok['id']}").json()["state"] == "finished", 60)
        assert wait_for(lambda: c.get(f"/api/v1/jobs/{bad['id']}").json()["state"] == "failed", 60)

        def ended_rows(cookies: dict | None) -> dict[str, str]:
            page = c.get("/scheduler", cookies=cookies).text
            assert "Recently Ended Jobs" in page
            table = page.split("<table id='ended'>")[1].split("</table>")[0]
            row = r"<tr data-job='([^']+)'.*?<td class='l err'>(.*?)</td>"
            return {m.group(1): m.group(2) for m in re.finditer(row, table)}

        anonymous = ended_rows(None)
        assert set(anonymous) == {ok["id"], bad["id"]} and anonymous[bad["id"]] == ""  # not theirs to read
        csrf = re.search(r"name='csrf' value='([^']+)'", c.get("/scheduler").text).group(1)
        c.post("/scheduler/login", data={"token": "alice-token-1", "csrf": csrf})
        owner = ended_rows(None)  # the session cookie is in the client now
        assert "factorial" in owner[bad["id"]] or "ValueError" in owner[bad["id"]], owner
        assert owner[ok["id"]] == ""

    out = CliRunner().invoke(cli, ["result", ok["id"], "--url", live.url, "--token", "alice-token-1"])
    assert out.exit_code == 0 and json.loads(out.output) == [120], out.output
    out = CliRunner().invoke(cli, ["result", ok["id"], "--url", live.url, "--token", "bob-token-1"])
    assert out.exit_code == 1 and "owner" in out.output and "Traceback" not in out.output, out.output
    out = CliRunner().invoke(cli, ["result", bad["id"], "--url", live.url, "--token", "alice-token-1"])
    assert out.exit_code == 1 and "failed" in out.output, out.output


def test_a_worker_does_not_log_the_attempts_the_service_reports() -> None:
    import logging

    from corescheduler.service.workerinit import _OurFailures

    def record(exception_text: str) -> logging.LogRecord:  # as distributed.worker logs it
        return logging.LogRecord("distributed.worker", logging.ERROR, __file__, 1,
                                 "Compute Failed\nKey:       %s\nState:     %s\nTask:  %s\nException: %r\n"
                                 "Traceback: %r\n", ("job_0001/map1/a1-6", "executing", "<Task ...>",
                                                     exception_text, "  File ..."), None)

    quiet = _OurFailures()
    assert not quiet.filter(record("AttemptKilled('job_0001/map1/a1-6')"))
    assert not quiet.filter(record("AttemptFailed('exit 1')"))
    assert quiet.filter(record("MemoryError()"))  # anything else is still an error of the worker's
