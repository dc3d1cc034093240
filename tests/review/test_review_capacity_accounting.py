"""Review of the Capacity Scheduler's use accounting (``yarn_capacity``): every container whose
start a plugin was told of is told to it when it stops, whatever stops it — so a user's use
(``UsersManager.updateUserResourceUsage``: Hadoop's ``LeafQueue.completedContainer`` runs for
every container of a killed app, ``FiCaSchedulerApp`` → ``containerCompleted``) falls back to
nothing once all its apps have gone."""

from __future__ import annotations

from typing import Any

from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness

XML = ("<configuration>"
       "<property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>"
       "<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>"
       "<property><name>yarn.scheduler.capacity.root.b.capacity</name><value>50</value></property>"
       "</configuration>")


def harness() -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                          config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                                "pool_resolver": "yarn_capacity"}},
                          allocations=XML)


def policy(h: ClusterHarness) -> Any:
    return h.scheduler.plugins.share_policy("yarn_capacity").policy


def fill(h: ClusterHarness, rounds: int = 3) -> None:
    for _ in range(rounds):
        for node in sorted(h.cluster.nodes):
            h.heartbeat(node)


def test_a_killed_apps_containers_leave_its_users_use() -> None:
    """u0's app runs 4 containers in root.a and is killed: u0's use is nothing again, and its
    next app's headroom is the whole user limit (8 GB: half of 16 GB, one user), not 4 GB."""
    h = harness()
    first = h.submit(queue="a", user="u0", tasks=4, resources="1024 mb, 1 vcores")
    fill(h)
    assert policy(h).user_used(first) == Resources(4096, 4)
    h.kill_app(first)
    second = h.submit(queue="a", user="u0", tasks=1, resources="1024 mb, 1 vcores")
    assert policy(h).user_used(second) == Resources(0, 0)
    assert policy(h).headroom(second) == Resources(8192, 8)


def test_a_failed_apps_containers_and_am_leave_its_users_use() -> None:
    """An app with an AM fails (``end_job(state="failed")``) while its containers run: neither
    the user's use nor its AM use keeps any of them."""
    h = harness()
    job = h.submit_app(queue="a", user="u0", tasks=3, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    fill(h)
    p = policy(h)
    assert p.user_used(job) == Resources(4096, 4)
    assert p._user_am["root.a"]["u0"] == Resources(1024, 1)
    h.scheduler.end_job(job.id, h.clock, state="failed", reason="test")
    assert p.user_used(job) == Resources(0, 0)
    assert p._user_am["root.a"]["u0"] == Resources(0, 0)
