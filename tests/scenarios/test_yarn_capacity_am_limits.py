"""The Capacity Scheduler's AM limits (Hadoop 3.3 ``LeafQueue.activateApplications``):
the queue's AM limit from its current limit, the "at least one application" exemption, and
the user AM limit (``getUserAMResourceLimitPerPartition``)."""

from __future__ import annotations

from corescheduler.testing import ClusterHarness

GB = 1024
CONFIG = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}}


def xml(*props: tuple[str, str]) -> str:
    return "<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in props
    ) + "</configuration>"


def run(h: ClusterHarness, heartbeats: int = 6) -> None:
    for _ in range(heartbeats):
        h.heartbeat("n0000")


def test_one_application_starts_whatever_the_am_limit() -> None:
    """maximum-am-resource-percent 0: the AM limit is 0, yet the first app's AM starts ("skipping
    enforcement to allow at least one application to start"); the second waits for it."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores", config=CONFIG,
                       allocations=xml(("root.queues", "a"), ("root.a.capacity", "100"),
                                       ("root.a.maximum-am-resource-percent", "0")))
    first = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    second = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    run(h)
    assert h.shares()["queues"]["root.a"]["am_limit"].memory == 0
    assert h.job(first).am_running and not h.job(second).am_running
    for task in [t for t in h.scheduler._running_tasks.values() if t.job is h.job(first) and not t.is_am]:
        h.finish(task)
    run(h)
    assert h.job(second).am_running


def test_user_am_limit() -> None:
    """AM limit 0.5 × 10 GB = 5 GB; the user AM limit is 10 GB × 0.5 × max(100 %, 1 ÷ active
    users) × user-limit-factor 0.2 = 1 GB: user u's second AM waits although the queue's AM
    limit has room, user v's first AM starts."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores", config=CONFIG,
                       allocations=xml(("root.queues", "a"), ("root.a.capacity", "100"),
                                       ("root.a.maximum-am-resource-percent", "0.5"),
                                       ("root.a.user-limit-factor", "0.2")))
    u1 = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    u2 = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    v1 = h.submit(queue="a", user="v", tasks=1, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    run(h)
    assert h.shares()["queues"]["root.a"]["am_limit"].memory == 5 * GB
    assert h.job(u1).am_running and not h.job(u2).am_running and h.job(v1).am_running


def test_am_limit_follows_the_queue_current_limit() -> None:
    """``calculateAndGetAMResourceLimitPerPartition``: a (30 %, maximum 100 %) on 20 GB: idle,
    its current limit is the cluster, AM limit 10 % of 20 GB = 2 GB; with b using 12 GB its
    current limit is 8 GB, above its 6 GB guarantee: 1 GB (0.8 rounded up); with b using 16 GB,
    4 GB < 6 GB: the guarantee counts, 0.6 rounded up to 1 GB."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="10240 mb, 10 vcores", config=CONFIG,
                       allocations=xml(("root.queues", "a,b"), ("root.a.capacity", "30"),
                                       ("root.b.capacity", "70"), ("root.b.user-limit-factor", "10")))
    h.update()
    assert h.shares()["queues"]["root.a"]["am_limit"].memory == 2 * GB
    h.submit(queue="b", user="u", tasks=3, resources="4096 mb, 1 vcores")
    for node in ("n0000", "n0001", "n0000"):
        h.heartbeat(node)
    h.update()
    assert h.shares()["queues"]["root.b"]["used"].memory == 12 * GB
    assert h.shares()["queues"]["root.a"]["am_limit"].memory == 1 * GB
    h.submit(queue="b", user="u", tasks=1, resources="4096 mb, 1 vcores")
    h.heartbeat("n0001")
    h.update()
    assert h.shares()["queues"]["root.b"]["used"].memory == 16 * GB
    assert h.shares()["queues"]["root.a"]["am_limit"].memory == 1 * GB


def test_an_ended_apps_am_leaves_its_users_use() -> None:
    """An app's AM ends with the app (``RMAppAttemptImpl`` → ``LeafQueue.finishApplicationAttempt``
    releases its AM resource and ``User.releaseContainer`` its use): with the user AM limit at
    1 GB, user u's second AM starts once the first app ended (v's app keeps an AM running, so
    the "at least one application" exemption does not apply).  (The engine told plugins of the
    AM's start but not of its end, so u's AM use stayed and its second app never started.)"""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores", config=CONFIG,
                       allocations=xml(("root.queues", "a"), ("root.a.capacity", "100"),
                                       ("root.a.maximum-am-resource-percent", "0.5"),
                                       ("root.a.user-limit-factor", "0.2")))
    v = h.submit(queue="a", user="v", tasks=1, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    u1 = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    u2 = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    run(h)
    assert h.job(v).am_running and h.job(u1).am_running and not h.job(u2).am_running
    for task in [t for t in h.scheduler._running_tasks.values() if t.job is h.job(u1) and not t.is_am]:
        h.finish(task)
    run(h)
    assert h.job(u1).is_finished and h.job(u2).am_running
