"""``RegularContainerAllocator.assignContainer`` skips a node whose total resource does not fit
the ask (``LOCALITY_SKIPPED``), compared by the scheduler's calculator:
``Resources.lessThanOrEqual(rc, cluster, capability, node.getTotalResource())``.  Under
``DefaultResourceCalculator`` (the default) memory alone decides, as the engine's own node
fit does (``SharePolicy.fits_by_memory``): an ask of more vcores than the node has still runs
there.  Under ``DominantResourceCalculator`` every type counts."""

from __future__ import annotations

from typing import Any

import pytest
from test_yarn_capacity_leaf_queue import CONFIG
from test_yarn_capacity_ports_more import DRF, ask, launch, live, xml_of

from corescheduler.testing import ClusterHarness

QUEUE = {"root.queues": "default", "root.default.capacity": "100"}


@pytest.mark.parametrize(("calculator", "expected"), [({}, 2), ({"resource-calculator": DRF}, 1)])
def test_an_ask_of_more_vcores_than_the_node_fits_by_memory_under_the_default_calculator(
        calculator: dict[str, str], expected: int) -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 2 vcores", config=CONFIG,
                       allocations=xml_of({**QUEUE, **calculator}))
    app = launch(h, "default", "user", "1024 mb, 1 vcores")
    ask(h, app, "1024 mb, 3 vcores", 1, priority=1)
    h.heartbeat("n0000")
    assert live(app) == expected


@pytest.mark.parametrize(("calculator", "expected"), [({}, 1), ({"resource-calculator": DRF}, 0)])
def test_a_map_of_more_vcores_than_the_node_fits_by_memory_under_the_default_calculator(
        calculator: dict[str, str], expected: int) -> None:
    """An MR job's map (``cs_select_task``'s map locality) the same way."""
    scheduler: dict[str, Any] = {"mode": "resources", "share_policy": "yarn_capacity",
                                 "pool_resolver": "yarn_capacity"}
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 2 vcores",
                       config={"scheduler": scheduler}, allocations=xml_of({**QUEUE, **calculator}))
    job = h.submit(maps=1, queue="default", user="u", map_locations=[["n0000"]], resources="1024 mb, 3 vcores")
    h.heartbeat("n0000")
    assert h.job(job).usage.memory == expected * 1024
