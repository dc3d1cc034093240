"""docs/plugin-authors.md's "a misspelled name (``cs_adjust_wieght``) is not silently ignored:
loading the plugin fails with a PluginLoadError" — and the error says which hook was meant,
without the plugin object's repr (it read "unknown hook 'cs_adjust_wieght' in plugin
<__main__.Bad object at 0x7f…>")."""

from __future__ import annotations

import pytest
from paths import DOCS

from corescheduler.errors import PluginLoadError
from corescheduler.hookspecs import hookimpl
from corescheduler.testing import ClusterHarness


class Misspelt:
    @hookimpl
    def cs_adjust_wieght(self, job: object, weight: float) -> float:
        return weight


class Invented:
    @hookimpl
    def cs_make_coffee(self) -> None:
        return None


def test_the_documented_misspelling_names_the_hook_it_meant() -> None:
    assert "(`cs_adjust_wieght`)" in (DOCS / "plugin-authors.md").read_text(encoding="utf-8")
    with pytest.raises(PluginLoadError) as info:
        ClusterHarness(config='[scheduler]\nweight_adjusters = ["deadline_boost"]\n',
                       plugins={"deadline_boost": Misspelt})
    message = str(info.value)
    assert message == ("plugin <in-process>[deadline_boost]: unknown hook 'cs_adjust_wieght' (did you mean "
                       "'cs_adjust_weight'?): no such hook is declared in corescheduler.hookspecs (docs/hooks.md)")
    assert " object at 0x" not in message


def test_a_hook_far_from_any_gets_no_guess() -> None:
    with pytest.raises(PluginLoadError) as info:
        ClusterHarness(config='[scheduler]\nlisteners = ["coffee"]\n', plugins={"coffee": Invented})
    assert str(info.value) == ("plugin <in-process>[coffee]: unknown hook 'cs_make_coffee': no such hook is "
                               "declared in corescheduler.hookspecs (docs/hooks.md)")
