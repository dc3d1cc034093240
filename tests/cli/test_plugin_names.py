"""A misspelt plugin name gets a "did you mean" like misspelt keys do (issue 30 item 4)."""

from __future__ import annotations

import pytest
from cli_helpers import assert_user_error, run

from corescheduler.errors import ConfigError
from corescheduler.hookspecs import hookimpl
from corescheduler.testing import ClusterHarness


class PoolBoost:
    """A user's own weight adjuster, registered in-process under the name ``pool_boost``."""

    @hookimpl
    def cs_job_weight(self, job, weight, now):
        return weight


def test_typo_of_an_installed_plugin_suggests_it(tmp_path) -> None:
    (tmp_path / "typo.toml").write_text('[scheduler]\nweight_adjusters = ["new_job_boster"]\n')
    line = assert_user_error(run("simulate", "--config", str(tmp_path / "typo.toml"), "--out", str(tmp_path / "o")),
                             "typo.toml:2", "unknown plugin 'new_job_boster' (did you mean 'new_job_booster'?)",
                             "available: ")
    assert line.index("did you mean") < line.index("available:")


def test_typo_of_a_users_own_plugin_suggests_it() -> None:
    with pytest.raises(ConfigError) as info:
        ClusterHarness(config={"scheduler": {"weight_adjusters": ["pool_bost"]}}, plugins={"pool_boost": PoolBoost})
    assert "unknown plugin 'pool_bost' (did you mean 'pool_boost'?)" in str(info.value)


def test_no_suggestion_when_nothing_is_close() -> None:
    with pytest.raises(ConfigError) as info:
        ClusterHarness(config={"scheduler": {"load_manager": "nope"}})
    assert "unknown plugin 'nope'; available: " in str(info.value) and "did you mean" not in str(info.value)


def test_docs_give_the_load_manager_default_of_each_mode() -> None:
    from paths import DOCS

    from corescheduler.config import Config

    assert Config.default().scheduler.load_manager == "cap_based"
    assert Config.from_dict({"scheduler": {"mode": "resources"}}).scheduler.load_manager == "slots"
    hooks = " ".join((DOCS / "hooks.md").read_text().split())
    assert "Default: `cap_based` (Hadoop's `CapBasedLoadManager`) in slot mode, `slots` in resource mode" in hooks
    configuration = (DOCS / "configuration.md").read_text()
    assert '| `load_manager` | name | `"cap_based"` (resource mode: `"slots"`) |' in configuration
    assert '| `load_manager` | `"slots"`' in (DOCS / "yarn.md").read_text()
