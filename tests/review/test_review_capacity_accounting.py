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


def test_a_container_marked_as_the_am_counts_as_its_users_am_use() -> None:
    """``ClusterHarness.mark_am`` (YARN's tests' ``RMContainer.setAMContainer``) tells the
    plugins through ``cs_task_finished``/``cs_task_started``: the user's AM use counts the
    container (its use stays the same), and falls back to nothing — not below — when the
    app ends."""
    h = harness()
    job = h.submit_app(queue="a", user="u0", tasks=3, resources="1024 mb, 1 vcores")
    fill(h)
    running = [t for t in h.scheduler.ledger.running.values() if t.job is job]
    h.mark_am(running[0])
    assert policy(h)._user_am.get("root.a", {}).get("u0") == Resources(1024, 1)
    assert policy(h).user_used(job) == Resources(3072, 3)
    h.scheduler.end_job(job.id, h.clock, state="failed", reason="test")
    assert policy(h)._user_am["root.a"]["u0"] == Resources(0, 0)
    assert policy(h).user_used(job) == Resources(0, 0)


def test_the_user_am_limit_holds_a_marked_am() -> None:
    """root.a (8 GB of 16 GB), maximum-am-resource-percent 0.25 (an AM limit of 2 GB) and
    minimum-user-limit-percent 50: with u0 and u1 active, u0's AM limit is 8 GB × 0.25 × 0.5
    = 1 GB (``LeafQueue.getUserAMResourceLimitPerPartition``; u1's app of 20 containers keeps
    u1 active).  u0's container marked as its app's AM fills it, so u0's second app does not
    start its AM (``activateApplications``), though the leaf's AM limit has room."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=XML.replace("</configuration>", (
                           "<property><name>yarn.scheduler.capacity.root.a.maximum-am-resource-percent</name>"
                           "<value>0.25</value></property>"
                           "<property><name>yarn.scheduler.capacity.root.a.minimum-user-limit-percent</name>"
                           "<value>50</value></property></configuration>")))
    first = h.submit_app(queue="a", user="u0", tasks=2, resources="1024 mb, 1 vcores")
    h.submit_app(queue="a", user="u1", tasks=20, resources="1024 mb, 1 vcores")  # active throughout
    fill(h)
    h.mark_am(next(t for t in h.scheduler.ledger.running.values() if t.job is first))
    assert policy(h)._user_am["root.a"]["u0"] == Resources(1024, 1)
    assert h.scheduler.resource_engine.tree.queues["root.a"].am_usage == Resources(1024, 1)
    second = h.submit_app(queue="a", user="u0", tasks=1, resources="1024 mb, 1 vcores",
                          am_resources="1024 mb, 1 vcores")
    fill(h)
    assert not second.am_running
    leaf = h.scheduler.resource_engine.tree.queues["root.a"]
    assert policy(h).user_am_limit(leaf) == Resources(1024, 1)
    assert (leaf.am_usage + Resources(1024, 1)).memory <= policy(h).am_limit(leaf).memory  # the leaf has room


def test_a_second_marked_am_killed_leaves_the_users_am_use() -> None:
    """A container marked as an AM besides the app's own, killed, asks again as a plain
    container (``YarnAsks._unmark_am``): the user's AM use drops it, and its use the
    container, each once."""
    h = harness()
    job = h.submit_app(queue="a", user="u0", tasks=3, resources="1024 mb, 1 vcores")
    fill(h)
    running = [t for t in h.scheduler.ledger.running.values() if t.job is job]
    h.mark_am(running[0])
    h.mark_am(running[1])
    p = policy(h)
    assert p._user_am["root.a"]["u0"] == Resources(2048, 2)
    h.scheduler.kill(running[1].id, h.clock, reason="test")
    assert p._user_am["root.a"]["u0"] == Resources(1024, 1)
    assert p.user_used(job) == Resources(2048, 2)
