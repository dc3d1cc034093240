"""YARN Capacity Scheduler worked cases of Hadoop's ``TestApplicationLimits`` (Hadoop 3.3,
``hadoop-yarn-server-resourcemanager/.../scheduler/capacity/TestApplicationLimits.java``)
through the public harness, with its ``setupQueueConfiguration`` as a capacity-scheduler.xml:
root.a 10 % (minimum-user-limit-percent 50, user-limit-factor 5), root.b 90 %.

Hadoop's tests build a ``LeafQueue`` on a mocked cluster and read its limits; here the
cluster is nodes of the harness, the limits are read from ``h.shares()`` (``am_limit``) and
the plugin's ``user_am_limit`` (``LeafQueue.getUserAMResourceLimit``), and "re-create
queues to get new configs" is a reload of the file.
"""

from __future__ import annotations

import pytest

from corescheduler.testing import ClusterHarness, SubmissionRejected

GB = 1024
CONFIG = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}}


def xml(*extra: tuple[str, str]) -> str:
    """``TestApplicationLimits.setupQueueConfiguration`` plus ``extra`` properties."""
    props = [("root.queues", "a,b"), ("root.a.capacity", "10"), ("root.b.capacity", "90"),
             ("root.a.minimum-user-limit-percent", "50"), ("root.a.user-limit-factor", "5"), *extra]
    return "<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in props
    ) + "</configuration>"


def limits(h: ClusterHarness, queue: str = "root.a") -> tuple[tuple[int, int], tuple[int, int]]:
    """The leaf's (AM limit, user AM limit) as (MB, vcores)."""
    h.update()
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    am = h.shares()["queues"][queue]["am_limit"]
    user = cs.user_am_limit(h.scheduler.resource_engine.tree.get(queue))
    return (int(am.memory), int(am.vcores)), (int(user.memory), int(user.vcores))


def test_limits_computation() -> None:
    """``TestApplicationLimits.testLimitsComputation``: 100 nodes of 16 GB: a's AM limit is
    10 % of its current limit (the cluster) = 160 GB, 1 vcore, its user AM limit 160 GB ×
    0.1 × max(50 %, 1 ÷ 1 user) × 5 = 80 GB; with 120 nodes 192 GB and 96 GB.  Its
    maximum-applications are 10000 × 10 % = 1000 and per user min(1000, (int) (1000 × 0.5 ×
    5)) = 1000; with maximum-am-resource-percent 0.5 on 100 nodes, 800 GB and 400 GB; with
    maximum-applications 9999, 9999 and min(9999, 24997) per user."""
    h = ClusterHarness(racks=1, nodes_per_rack=100, node_resources="16384 mb, 16 vcores", config=CONFIG,
                       allocations=xml())
    assert limits(h) == ((160 * GB, 1), (80 * GB, 1))
    conf = h.scheduler.plugins.instances["yarn_capacity"].conf
    assert conf.max_applications("root.a") == 1000
    assert conf.max_applications_per_user("root.a") == min(1000, int(1000 * 0.5 * 5))
    for i in range(100, 120):  # "Add some nodes to the cluster & test new limits"
        h.add_node(f"n{i:04d}", resources="16384 mb, 16 vcores")
    assert limits(h) == ((192 * GB, 1), (96 * GB, 1))
    for i in range(100, 120):
        h.remove_node(f"n{i:04d}")
    h.set_allocations(xml(("root.a.maximum-am-resource-percent", "0.5")))
    assert limits(h) == ((800 * GB, 1), (400 * GB, 1))
    h.set_allocations(xml(("root.a.maximum-am-resource-percent", "0.5"), ("root.a.maximum-applications", "9999")))
    conf = h.scheduler.plugins.instances["yarn_capacity"].conf
    assert conf.max_applications("root.a") == 9999
    assert conf.max_applications_per_user("root.a") == min(9999, int(9999 * 0.5 * 5))


@pytest.mark.parametrize(("mulp", "ulf", "apps", "expected"), [
    ("50", "5", "1000", 1000),     # testLimitsComputation: min(1000, 2500)
    ("25", "1", "8", 2),           # (int) (8 × 0.25 × 1)
    ("30", "1", "10", 3),          # (int) (10 × 0.3f × 1): 3 in Java floats
    ("10", "0.5", "10", 0),        # (int) 0.5: no app per user at all
    ("50", "-1", "7", 7),          # user-limit-factor -1: the queue's own maximum
])
def test_maximum_applications_per_user_formula(mulp: str, ulf: str, apps: str, expected: int) -> None:
    """``LeafQueue.setupQueueConfigs``: maxApplicationsPerUser = min(maxApplications,
    (int) (maxApplications × minimum-user-limit-percent ÷ 100 × user-limit-factor))."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="16384 mb, 16 vcores", config=CONFIG,
                       allocations=xml(("root.a.minimum-user-limit-percent", mulp),
                                       ("root.a.user-limit-factor", ulf), ("root.a.maximum-applications", apps)))
    assert h.scheduler.plugins.instances["yarn_capacity"].conf.max_applications_per_user("root.a") == expected


def test_maximum_applications_per_user_refuses() -> None:
    """``LeafQueue.validateSubmitApplication``'s "submission limits for the user on this queue":
    maximum-applications 8, minimum-user-limit-percent 25, user-limit-factor 1: 2 apps per
    user.  user_0's third app is refused ("already has 2 applications from user user_0"),
    user_1's first is taken; once one of user_0's apps ended (finishApplication), user_0 may
    submit again."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="16384 mb, 16 vcores", config=CONFIG,
                       allocations=xml(("root.a.minimum-user-limit-percent", "25"), ("root.a.user-limit-factor", "1"),
                                       ("root.a.maximum-applications", "8")))
    first = h.submit(queue="a", user="user_0", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="a", user="user_0", tasks=1, resources="1024 mb, 1 vcores")
    with pytest.raises(SubmissionRejected, match="already has 2 applications from user user_0"):
        h.submit(queue="a", user="user_0", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="a", user="user_1", tasks=1, resources="1024 mb, 1 vcores")
    h.kill_app(first)
    h.submit(queue="a", user="user_0", tasks=1, resources="1024 mb, 1 vcores")
