"""A heartbeat of a node that has left the cluster assigns nothing, as in Hadoop; a name the
scheduler never knew stays an error (``tests/core/test_scheduler.py``).

``TestFairScheduler.testSchedulingOnRemovedNode``: an app asks 1024 MB / 8 vcores, a node of
8 GB / 8 vcores joins and leaves, and ``attemptScheduling`` on it must neither fail nor
allocate ("Skipping scheduling as the node ... has been removed",
``FairScheduler.attemptScheduling``); the Capacity Scheduler's ``allocateContainersToNode``
returns on a node it no longer has, and MR1's JobTracker gives a lost tracker no task."""

from __future__ import annotations

import pytest

from corescheduler.core.scheduler import SchedulerStateError
from corescheduler.testing import ClusterHarness

CAPACITY = ("<configuration><property><name>yarn.scheduler.capacity.root.queues</name><value>queue1</value>"
            "</property><property><name>yarn.scheduler.capacity.root.queue1.capacity</name><value>100</value>"
            "</property></configuration>")


@pytest.mark.parametrize("policy", ["fair", "yarn_capacity"])
def test_scheduling_on_a_removed_node_assigns_nothing(policy: str) -> None:
    config = {"scheduler": {"mode": "resources", "share_policy": policy},
              "cluster": {"maximum_allocation": "8192 mb, 8 vcores"}}  # (the test's FairSchedulerTestBase: 8 vcores)
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=config,
                       allocations=CAPACITY if policy == "yarn_capacity" else None)
    app = h.submit(queue="queue1", user="user1", tasks=1, resources="1024 mb, 8 vcores")
    h.remove_node("n0000")  # (the test's cluster starts with no node)
    h.add_node("127.0.0.1", resources="8192 mb, 8 vcores")
    h.remove_node("127.0.0.1")
    assert h.heartbeat("127.0.0.1") == []
    assert h.running(app) == 0
    with pytest.raises(SchedulerStateError, match="unknown node 'n9999'"):
        h.heartbeat("n9999")
    h.add_node("127.0.0.1", resources="8192 mb, 8 vcores")  # back: scheduled on again
    assert len(h.heartbeat("127.0.0.1")) == 1 and h.running(app) == 1


def test_a_removed_tasktrackers_heartbeat_gets_no_task() -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=2)
    job = h.submit(4, 0, pool="a")
    h.remove_node("n0001")
    assert h.heartbeat("n0001") == []
    assert h.running(job) == {"map": 0, "reduce": 0}
    assert h.heartbeat("n0000")



def test_a_refused_readd_leaves_the_removed_node_removed() -> None:
    """A removed node's name added again with resources the engine refuses: the cluster is as
    before (``Scheduler.add_node``), so a heartbeat of that name still assigns nothing."""
    from corescheduler.resources import Resources

    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "fair"}})
    h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores")
    h.remove_node("n0001")
    with pytest.raises(SchedulerStateError, match="negative resources"):
        h.scheduler.add_node("n0001", "r00", resources=Resources(-1, 1))
    assert "n0001" not in h.scheduler.cluster.nodes
    assert h.heartbeat("n0001") == []
    h.scheduler.idle_heartbeat("n0001", h.clock)
