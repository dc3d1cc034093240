"""Review: a reload that a share policy refuses (``SharePolicy.configure`` raising, as the
contract invites) keeps the last good file in force — the allocations, the queue tree and the
placement — as ``refreshQueues`` does when ``CapacitySchedulerQueueManager.reinitializeQueues``
throws (the old queues stay)."""

from __future__ import annotations

import pytest

from corescheduler.errors import AllocationError
from corescheduler.testing import ClusterHarness

XML = ("<configuration>"
       "<property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>"
       "<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>"
       "<property><name>yarn.scheduler.capacity.root.b.capacity</name><value>50</value></property>"
       "</configuration>")
FAIR = "<allocations><queue name='x'><weight>1</weight></queue></allocations>"


def test_a_fair_file_reloaded_under_yarn_capacity_keeps_the_capacity_file() -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=XML)
    h.submit(queue="a", user="u0", tasks=2, resources="1024 mb, 1 vcores")
    before = sorted(h.scheduler.resource_engine.tree.queues)
    with pytest.raises(AllocationError, match=r"needs a YARN capacity-scheduler\.xml"):
        h.set_allocations(FAIR)
    assert h.scheduler.allocations.dialect == "yarn_capacity"
    second = h.submit(queue="a", user="u0", tasks=1, resources="1024 mb, 1 vcores")
    assert second.queue == "root.a"  # (was root.default: the refused file's tree was in force)
    h.update()
    assert sorted(h.scheduler.resource_engine.tree.queues) == before
