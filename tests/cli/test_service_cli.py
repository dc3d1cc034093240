"""The live service's commands: user errors exit 1 with one line naming the problem."""

from __future__ import annotations

import socket

import pytest

from tests.cli_helpers import assert_user_error, run

pytest.importorskip("httpx")


def test_serve_on_a_port_in_use_is_a_user_error() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert_user_error(run("serve", "--port", str(port)), f"cannot listen on 127.0.0.1:{port}")


def test_serve_with_a_bad_tokens_file(tmp_path) -> None:
    tokens = tmp_path / "tokens.toml"
    tokens.write_text('[tokens."short"]\nuser = "a"\n')
    assert_user_error(run("serve", "--tokens", str(tokens), "--port", "0"), str(tokens), "at least 8 characters")


def test_submit_errors(tmp_path) -> None:
    assert_user_error(run("submit", str(tmp_path / "missing.json")), "missing.json")
    bad = tmp_path / "job.json"
    bad.write_text("{nope")
    assert_user_error(run("submit", str(bad)), "job.json", "not valid JSON")
    dated = tmp_path / "job.toml"
    dated.write_text("[[maps]]\ncall = \"m:f\"\nargs = [1979-05-27T07:32:00Z]\n")
    assert_user_error(run("submit", str(dated)), "job.toml", "no JSON form")
    good = tmp_path / "good.json"
    good.write_text('{"maps": [{"command": ["true"]}]}')
    assert_user_error(run("submit", str(good), "--url", "http://127.0.0.1:9"), "cannot reach the service")
    assert_user_error(run("status", "--url", "http://127.0.0.1:9"), "cannot reach the service")
    assert_user_error(run("kill", "job_0001", "--url", "http://127.0.0.1:9"), "cannot reach the service")
