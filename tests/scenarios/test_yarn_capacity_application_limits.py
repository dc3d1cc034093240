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


class Apps:
    """Apps of queue a submitted one at a time, each offered one heartbeat to start its AM
    (``submitApplicationAttempt`` → ``activateApplications``).  Each app asks for ten more
    1 GB containers, so its user stays active; a later app has the higher priority, so the
    heartbeat goes to its AM first (a heartbeat assigns one container off-switch)."""

    PRIORITIES = ("VERY_LOW", "LOW", "NORMAL", "HIGH", "VERY_HIGH")

    def __init__(self, h: ClusterHarness) -> None:
        self.h = h
        self.apps: dict[str, object] = {}

    def submit(self, name: str, user: str, am_mb: int) -> None:
        self.apps[name] = self.h.submit(queue="a", user=user, tasks=10, resources="1024 mb, 1 vcores",
                                        am_resources=f"{am_mb} mb, 1 vcores",
                                        priority=self.PRIORITIES[min(len(self.apps), 4)])
        self.h.heartbeat("n0000")

    def finish(self, name: str) -> None:
        """``finishApplicationAttempt``: the app ends; the next heartbeat may start a waiting AM."""
        self.h.kill_app(self.apps[name])  # type: ignore[arg-type]
        self.h.heartbeat("n0001")

    def active(self) -> list[str]:
        """The apps whose AM runs (``getNumActiveApplications``), in submission order."""
        return [n for n, a in self.apps.items() if self.h.job(a).am_running]  # type: ignore[arg-type]


def test_am_resource_limit() -> None:
    """``TestApplicationLimits.testAMResourceLimit``: an 80 GB cluster (ten 8 GB nodes); a's
    AM limit 10 % × 80 GB = 8 GB, its user AM limit 8 GB × 0.1 × max(50 %, 1 ÷ 1) × 5 = 4 GB.
    user_0's two 2 GB AMs start; user_1's first starts; with two active users the user AM
    limit drops to 8 GB × 0.1 × 50 % × 5 = 2 GB and user_1's second app waits; once
    user_1's first app finished, it starts."""
    h = ClusterHarness(racks=1, nodes_per_rack=10, node_resources="8192 mb, 4 vcores", config=CONFIG,
                       allocations=xml())
    assert limits(h) == ((8 * GB, 1), (4 * GB, 1))
    apps = Apps(h)
    apps.submit("app_0", "user_0", 2 * GB)
    apps.submit("app_1", "user_0", 2 * GB)
    assert apps.active() == ["app_0", "app_1"]
    assert limits(h) == ((8 * GB, 1), (4 * GB, 1))  # "AMLimits unchanged"
    apps.submit("app_2", "user_1", 2 * GB)
    assert apps.active() == ["app_0", "app_1", "app_2"]
    assert limits(h) == ((8 * GB, 1), (2 * GB, 1))  # "drops to the queue configured 50%"
    apps.submit("app_3", "user_1", 2 * GB)  # "Second user_1 app cannot start"
    assert apps.active() == ["app_0", "app_1", "app_2"]
    apps.finish("app_2")  # "Now finish app so another should be activated"
    assert apps.active() == ["app_0", "app_1", "app_3"]


def test_active_application_limits() -> None:
    """``TestApplicationLimits.testActiveApplicationLimits``, its user part: ten 16 GB nodes; a's
    AM limit 16 GB, user AM limit 16 GB × 0.1 × 5 = 8 GB.  user_0's two 4 GB AMs start, the
    third waits for the user AM limit; when the first app finishes it starts, and a fourth
    waits.

    Not ported: the test's user_1 and user_2 apps (8 GB AMs) start because its mocked apps
    ask for nothing, so no user is active and the user AM limit stays 8 GB.  Apps that ask
    for containers make their users active (``AppSchedulingInfo`` →
    ``UsersManager.activateApplication``, for an app waiting for its AM too), and with
    user_0 and user_1 active the limit is 4 GB: user_1's 8 GB AM waits."""
    h = ClusterHarness(racks=1, nodes_per_rack=10, node_resources="16384 mb, 32 vcores", config=CONFIG,
                       allocations=xml())
    assert limits(h) == ((16 * GB, 1), (8 * GB, 1))
    apps = Apps(h)
    apps.submit("app_0", "user_0", 4 * GB)
    apps.submit("app_1", "user_0", 4 * GB)
    assert apps.active() == ["app_0", "app_1"]
    apps.submit("app_2", "user_0", 4 * GB)  # "should remain pending due to user amlimit"
    assert apps.active() == ["app_0", "app_1"]
    apps.finish("app_0")  # "Finish one application, app_2 should be activated"
    assert apps.active() == ["app_1", "app_2"]
    apps.submit("app_3", "user_0", 4 * GB)
    assert apps.active() == ["app_1", "app_2"]


def test_active_limits_with_killed_apps() -> None:
    """``TestApplicationLimits.testActiveLimitsWithKilledApps``: user_0's apps of 4 GB AMs: two
    start, two wait; killing the first waiting one starts nothing; when the first running
    app finishes, the other waiting one starts; then all end."""
    h = ClusterHarness(racks=1, nodes_per_rack=10, node_resources="16384 mb, 32 vcores", config=CONFIG,
                       allocations=xml())
    apps = Apps(h)
    for name in ("app_0", "app_1", "app_2", "app_3"):
        apps.submit(name, "user_0", 4 * GB)
    assert apps.active() == ["app_0", "app_1"]
    apps.finish("app_2")  # "Kill 3rd pending application"
    assert apps.active() == ["app_0", "app_1"] and h.job(apps.apps["app_2"]).is_finished  # type: ignore[arg-type]
    apps.finish("app_0")  # "Finish 1st application, app_3 should become active"
    assert apps.active() == ["app_1", "app_3"]
    apps.finish("app_1")
    apps.finish("app_3")
    assert apps.active() == []
    assert h.shares()["queues"]["root.a"]["am_used"].memory == 0


def test_headroom() -> None:
    """``TestApplicationLimits.testHeadroom``: 100 nodes of 16 GB, a's guarantee 160 GB, its
    minimum-user-limit-percent 50 (``setupQueueConfiguration`` sets it after the test's 25):
    user_0's first app asking for 2 × 1 GB has the headroom 160 GB × 50 % = 80 GB
    (5 × 16 GB), and so has its second; with user_1's app too, 10 × 16 GB ÷ 2 = 80 GB for
    all three; with the cluster down to 90 nodes, 9 × 16 GB ÷ 2 = 72 GB.  (The test's node
    assigns nothing: the headroom is read before any container runs.)"""
    h = ClusterHarness(racks=1, nodes_per_rack=100, node_resources="16384 mb, 16 vcores", config=CONFIG,
                       allocations=xml())

    def headroom(app: object) -> int:
        h.update()
        return int(h.shares()["jobs"][app.id]["headroom"].memory)  # type: ignore[attr-defined]

    app_0_0 = h.submit(queue="a", user="user_0", tasks=2, resources="1024 mb, 1 vcores")
    assert headroom(app_0_0) == 5 * 16 * GB
    app_0_1 = h.submit(queue="a", user="user_0", tasks=2, resources="1024 mb, 1 vcores")
    assert headroom(app_0_0) == headroom(app_0_1) == 5 * 16 * GB
    app_1_0 = h.submit(queue="a", user="user_1", tasks=2, resources="1024 mb, 1 vcores")
    assert headroom(app_0_0) == headroom(app_0_1) == headroom(app_1_0) == 10 * 16 * GB // 2
    for i in range(90, 100):  # "Now reduce cluster size and check for the smaller headroom"
        h.remove_node(f"n{i:04d}")
    assert headroom(app_0_0) == headroom(app_0_1) == headroom(app_1_0) == 9 * 16 * GB // 2
