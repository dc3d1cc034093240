"""``SharePolicy.queue_headroom``'s ``held_back`` lasts one assignment from root ("until root
is offered the node again", docs/plugin-authors.md) under every heartbeat rule — also a root
policy without ``heartbeat_limits`` (one container a heartbeat, or ``assign_multiple``), where
nothing emptied it: what a blocked leaf held back piled up heartbeat after heartbeat and
starved its siblings."""

from __future__ import annotations

from typing import Any

import pytest
from corescheduler_plugins.fair import FairSharePolicy

from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness

ALLOCATIONS = """<allocations>
  <queue name="a"><maxResources>1024 mb, 1 vcores</maxResources></queue>
  <queue name="b"/>
</allocations>"""


class Headroom(FairSharePolicy):
    """fair, with a Capacity-Scheduler-like headroom: a leaf past its maximum holds back its
    headroom; any other leaf has the root's room less what is held back."""

    def queue_headroom(self, leaf: Any, job: Any, size: Resources, reserved: Resources,
                       held_back: Any) -> Resources | None:
        s = leaf.sched
        if s.running.memory + size.memory > s.max_share.memory:
            return Resources(max(0, s.max_share.memory - s.running.memory), 0)
        root = leaf.parent
        held = held_back.get(root)
        room = root.sched.fair_share.memory - root.sched.running.memory - (held.memory if held else 0)
        return None if room >= size.memory else Resources(max(0, room), 0)


@pytest.mark.parametrize("multiple", [False, True])
def test_held_back_headroom_lasts_one_assignment(multiple: bool) -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "headroom",
                                             "assign_multiple": multiple}},
                       allocations=ALLOCATIONS, plugins={"headroom": Headroom()})
    h.submit(queue="a", user="u", tasks=1, resources="2048 mb, 1 vcores")  # past a's maximum: never runs
    job = h.submit(queue="b", user="v", tasks=8, resources="1024 mb, 1 vcores")
    for _ in range(8):
        h.heartbeat("n0000")
    # a, offered first (it uses nothing), holds back its 1 GB of headroom each time: b takes 7 GB
    assert h.job(job).usage.memory == 7 * 1024
