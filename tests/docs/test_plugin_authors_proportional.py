"""docs/plugin-authors.md, "A share policy": the proportional policy the page shows (a share
that is a fraction of ``total``, which ``Resources`` cannot be multiplied into) runs as
written, in slot mode and in resource mode, through the harness."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from paths import REPO

from corescheduler.testing import ClusterHarness

PAGE = (REPO / "docs" / "plugin-authors.md").read_text(encoding="utf-8")


def documented_policy() -> Any:
    """docs/examples/proportional.py, which the page shows whole (tests/framework/test_hooks_documented.py
    checks the block is the file's code)."""
    assert '```python title="proportional.py"' in PAGE
    path = REPO / "docs" / "examples" / "proportional.py"
    spec = importlib.util.spec_from_file_location("proportional_example", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Proportional


def test_the_page_warns_that_resources_do_not_multiply() -> None:
    from corescheduler.resources import Resources

    assert "`total * 0.5` raises `TypeError`" in PAGE
    with pytest.raises(TypeError):
        Resources(memory=1024, vcores=1) * 0.5  # type: ignore[operator]
    assert "calc.of_measure(x)" in PAGE and "calc.measure(q, s.cluster)" in PAGE


def test_slot_mode_shares_by_weight() -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=2, map_slots=2, reduce_slots=0,
                       config={"scheduler": {"share_policy": "proportional"}},
                       allocations='<allocations><pool name="a"><weight>3</weight></pool>'
                                   '<pool name="b"><weight>1</weight></pool></allocations>',
                       plugins={"proportional": documented_policy()})
    h.submit(maps=20, pool="a")
    h.submit(maps=20, pool="b")
    h.advance(1)
    pools = h.shares()["pools"]
    # 4 map slots by weights 3 : 1 : 1 (the default pool, always there, weighs 1)
    assert pools["a"]["map"] == pytest.approx(2.4) and pools["b"]["map"] == pytest.approx(0.8)


def test_resource_mode_shares_by_weight() -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="4096 mb, 4 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "proportional"}},
                       allocations='<allocations><queue name="a"><weight>3</weight></queue>'
                                   '<queue name="b"><weight>1</weight></queue>'
                                   '<queue name="default"><weight>0</weight></queue></allocations>',
                       plugins={"proportional": documented_policy()})
    h.submit_app(queue="a", user="u1", tasks=20, resources="1024 mb, 1 vcores")
    h.submit_app(queue="b", user="u2", tasks=20, resources="1024 mb, 1 vcores")
    h.advance(1)
    queues = h.shares()["queues"]
    assert queues["root.a"]["fair"]["memory"] == 6144 and queues["root.b"]["fair"]["memory"] == 2048
    for _ in range(4):
        h.heartbeat("n0000")
        h.heartbeat("n0001")
    queues = h.shares()["queues"]
    assert queues["root.a"]["usage"]["memory"] == 6144 and queues["root.b"]["usage"]["memory"] == 2048
