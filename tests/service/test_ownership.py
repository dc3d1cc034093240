"""``serve`` refuses a tokens file, a state directory or a ledger owned by another account
than its own (the run_as account could replace them, whatever their mode), naming the chown."""

from __future__ import annotations

import os
import pwd

import pytest

from tests.cli_helpers import assert_user_error, run
from tests.service.conftest import TASK_USER

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another account needs root")


@pytest.mark.parametrize("target", ["tokens", "state", "ledger"])
def test_serve_refuses_files_owned_by_another_account(tmp_path, target) -> None:
    account = pwd.getpwnam(TASK_USER)
    tokens = tmp_path / "tokens.toml"
    result = run("token", "add", "alice", "--tokens", str(tokens))
    assert result.exit_code == 0, result.output
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    ledger = state / "state.db"
    ledger.write_bytes(b"")
    ledger.chmod(0o600)
    where = {"tokens": tokens, "state": state, "ledger": ledger}[target]
    os.chown(where, account.pw_uid, account.pw_gid)  # mode stays private: only the owner is wrong
    line = assert_user_error(run("serve", "--tokens", str(tokens), "--state", str(state), "--port", "0"),
                             str(where), f"owned by {TASK_USER}")
    assert f"chown root {where}" in line, line
