"""Known divergence (reviewer18): ``RegularContainerAllocator.preCheckForNodeCandidateSet``
runs ``checkHeadroom`` before ``addSchedulingOpportunity``, so an app whose leaf is
``QUEUE_SKIPPED`` because a sibling offered before it held headroom back
(``ParentQueue``'s ``blockedHeadroom``) counts no missed opportunity.  ``yarn_capacity``'s
``cs_select_ask`` checks the queues' maximums alone (``_queue_skips``), not what the engine
holds back (``SharePolicy.queue_headroom``'s ``held_back``, asked only after the selector chose
the container), so it counts one.  Kept as a strict xfail until the selector can see the
headroom held back in the assignment under way."""

from __future__ import annotations

import pytest
from test_yarn_capacity_leaf_queue import CONFIG
from test_yarn_capacity_ports_more import ask, launch, xml_of

from corescheduler.testing import ClusterHarness


@pytest.mark.xfail(strict=True, reason="cs_select_ask counts an opportunity the held-back headroom skips")
def test_a_leaf_skipped_for_held_back_headroom_counts_no_opportunity() -> None:
    """Two 8 GB nodes; a (50 %, maximum 50 %) and b (50 %), each app's 1 GB AM running.  a's
    app asks 8 GB: past a's maximum, a is skipped and holds back its 7 GB of headroom; root's
    net limit is then 9 GB, b's limit 8 GB and its headroom 7 GB, short of b's 8 GB ask on
    n0001: b is QUEUE_SKIPPED on n0000's heartbeat and its app counts no opportunity."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml_of({"root.queues": "a,b", "root.a.capacity": "50",
                                           "root.a.maximum-capacity": "50", "root.b.capacity": "50"}))
    app_a = launch(h, "a", "ua", "1024 mb, 1 vcores")
    app_b = launch(h, "b", "ub", "1024 mb, 1 vcores")
    ask(h, app_a, "8192 mb, 1 vcores", 1, priority=1)
    ask(h, app_b, "8192 mb, 1 vcores", 1, priority=1, locations=["n0001"])
    policy = h.scheduler.plugins.share_policy("yarn_capacity").policy
    h.heartbeat("n0000")
    assert policy.scheduling_opportunities(h.job(app_a), 1) == 0  # (QUEUE_SKIPPED for its maximum: held)
    assert policy.scheduling_opportunities(h.job(app_b), 1) == 0
