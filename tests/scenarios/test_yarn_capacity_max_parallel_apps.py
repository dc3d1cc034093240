"""``max-parallel-apps`` of the Capacity Scheduler (Hadoop 3.3's ``CSMaxRunningAppsEnforcer``):
Hadoop's ``TestCapacitySchedulerMaxParallelApps`` ported to the public harness, and the
settings' bad values.

The test's cluster: three 4 GB / 8 vcore nodes, ``DominantResourceCalculator``, Hadoop's
default queue ``root.default`` (100 %); four apps of user ``testuser`` with a 512 MB AM each
(normalized to the 1 GB minimum allocation).  An app past a limit is accepted (ACCEPTED, not
runnable: ``waiting`` here) and becomes runnable when an app of its queue (or its user) ends,
the earliest submitted first.  ``launchAndRegisterAM`` is a heartbeat of h1 (each app also
asks for one 512 MB container, which keeps it alive); "unregister the AM" is the app's end.
"""

from __future__ import annotations

from typing import Any

import pytest

from corescheduler.errors import AllocationError
from corescheduler.testing import ClusterHarness, SubmissionRejected

CONFIG = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}}
DRF = "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"


def xml(*props: tuple[str, str]) -> str:
    base = (("resource-calculator", DRF), ("root.queues", "default"), ("root.default.capacity", "100"))
    return "<configuration>\n" + "".join(
        f"  <property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>\n"
        for k, v in (*base, *props)
    ) + "</configuration>\n"


class MaxParallelApps:
    """``TestCapacitySchedulerMaxParallelApps.executeCommonStepsAndChecks`` and its checks."""

    def __init__(self, *props: tuple[str, str]) -> None:
        self.h = ClusterHarness(racks=1, nodes_per_rack=3, node_resources="4096 mb, 8 vcores", config=CONFIG,
                                allocations=xml(*props))
        self.apps: list[Any] = []
        for _ in range(4):
            self.submit()
            self.h.heartbeat("n0000")

    def submit(self) -> Any:
        app = self.h.submit(queue="default", user="testuser", tasks=1, resources="512 mb, 1 vcores",
                            am_resources="512 mb, 1 vcores")
        self.apps.append(app)
        return app

    def unregister(self, app: Any) -> None:
        """``unregisterAMandWaitForFinish``: the app ends (its containers done, its AM with it)."""
        for task in [t for t in self.h.scheduler._running_tasks.values() if t.job is app and not t.is_am]:
            self.h.finish(task)
        if not app.is_finished:  # its container not started yet: the AM unregisters all the same
            self.h.kill_app(app)
        assert app.is_finished

    def launch(self, node: str = "n0000") -> None:
        """``launchAMandWaitForRunning``: two heartbeats of the node (one off-switch container
        each: the app's AM, and an app's container)."""
        self.h.heartbeat(node)
        self.h.heartbeat(node)

    def runnable(self, queue: str = "root.default") -> int:
        return int(self.h.shares()["queues"][queue]["runnable_apps"])

    def non_runnable(self) -> set[str]:
        jobs = self.h.shares()["jobs"]
        return {a.id for a in self.apps if a.id in jobs and not jobs[a.id]["runnable"]}

    def running_and_accepted(self) -> tuple[int, int]:
        """``verifyRunningAndAcceptedApps``: RUNNING (its AM launched) and ACCEPTED apps."""
        live = [a for a in self.apps if not a.is_finished]
        running = sum(1 for a in live if a.am_running)
        return running, len(live) - running

    def common_checks(self) -> None:
        app1, app2, app3, app4 = self.apps
        assert app1.am_running and app2.am_running
        assert self.runnable("root") == 2
        assert self.runnable() == 2
        assert self.non_runnable() == {app3.id, app4.id}
        assert self.running_and_accepted() == (2, 2)

    def when_settings_exceeded(self) -> None:
        """``testWhenSettingsExceeded``."""
        app1, app2, app3, app4 = self.apps
        self.unregister(app1)
        self.launch()  # launchAMandWaitForRunning(app3)
        assert app3.am_running
        assert self.runnable("root") == 2 and self.runnable() == 2
        assert self.non_runnable() == {app4.id}
        assert self.running_and_accepted() == (2, 1)
        self.unregister(app2)
        self.launch()  # launchAMandWaitForRunning(app4)
        assert app4.am_running
        assert self.runnable("root") == 2 and self.runnable() == 2
        assert self.non_runnable() == set()
        assert self.running_and_accepted() == (2, 0)


@pytest.mark.parametrize(
    "key",
    [
        "root.default.max-parallel-apps",  # testMaxParallelAppsExceedsQueueSetting
        "max-parallel-apps",  # testMaxParallelAppsExceedsDefaultQueueSetting
        "user.testuser.max-parallel-apps",  # testMaxParallelAppsExceedsUserSetting
        "user.max-parallel-apps",  # testMaxParallelAppsExceedsDefaultUserSetting
    ],
)
def test_max_parallel_apps_exceeded(key: str) -> None:
    """``TestCapacitySchedulerMaxParallelApps.testMaxParallelAppsExceeds{Queue,DefaultQueue,User,
    DefaultUser}Setting``: a limit of 2 (the queue's, every queue's, testuser's, every
    user's): apps 1 and 2 run, 3 and 4 wait; app 1 ends, 3 runs; app 2 ends, 4 runs."""
    t = MaxParallelApps((key, "2"))
    t.common_checks()
    t.when_settings_exceeded()


def test_max_parallel_apps_when_reloading_config() -> None:
    """``testMaxParallelAppsWhenReloadingConfig``: the queue's limit of 2 removed and
    maximum-am-resource-percent set to 1 by a reload (``CapacityScheduler.reinitialize`` →
    ``updateRunnabilityOnReload``): apps 3 and 4 become runnable and their AMs run; 4 running,
    none accepted."""
    t = MaxParallelApps(("root.default.max-parallel-apps", "2"))
    t.common_checks()
    t.h.set_allocations(xml(("maximum-am-resource-percent", "1.0")))
    t.launch("n0001")  # (h1 is full of apps 1 and 2's AMs and containers, which Hadoop's MockAMs do not ask)
    t.launch("n0001")
    assert t.non_runnable() == set()
    assert t.running_and_accepted() == (4, 0)


def test_max_apps_reached_with_non_runnable_apps() -> None:
    """``testMaxAppsReachedWithNonRunnableApps``: max-parallel-apps 2 and maximum-applications 4:
    the two apps that wait count towards maximum-applications, so a fifth app is refused
    (FAILED in Hadoop)."""
    t = MaxParallelApps(("root.default.max-parallel-apps", "2"), ("root.default.maximum-applications", "4"))
    t.common_checks()
    with pytest.raises(SubmissionRejected, match="already has 4 applications"):
        t.submit()


def test_parent_limit_holds_apps_of_every_leaf_under_it() -> None:
    """``CSMaxRunningAppsEnforcer.exceedQueueMaxParallelApps`` checks the leaf and every parent:
    a parent's limit of 1 holds its second leaf's app until the first leaf's ends
    (``updateRunnabilityOnAppRemoval`` gathers the apps under the highest queue freed)."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml(("root.queues", "p"), ("root.p.capacity", "100"), ("root.p.queues", "a,b"),
                                       ("root.p.a.capacity", "50"), ("root.p.b.capacity", "50"),
                                       ("root.p.max-parallel-apps", "1")).replace(
                           "<value>default</value>", "<value>p</value>").replace(
                           "<property><name>yarn.scheduler.capacity.root.default.capacity</name><value>100</value>"
                           "</property>\n", ""))
    first = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores")
    second = h.submit(queue="b", user="v", tasks=1, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    jobs = h.shares()["jobs"]
    assert jobs[first.id]["runnable"] and not jobs[second.id]["runnable"]
    assert h.shares()["queues"]["root.p"]["runnable_apps"] == 1
    for task in [t for t in h.scheduler._running_tasks.values() if t.job is first]:
        h.finish(task)
    assert h.shares()["jobs"][second.id]["runnable"]


def test_waiting_apps_run_in_submission_order_across_users() -> None:
    """``CSMaxRunningAppsEnforcer.updateAppsRunnability`` walks the freed lists by start time
    (``MultiListStartTimeIterator``): with a queue limit of 1 the apps of users u and v wait
    and run in the order they were submitted."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml(("root.default.max-parallel-apps", "1")))
    apps = [h.submit(queue="default", user=user, tasks=1, resources="1024 mb, 1 vcores")
            for user in ("u", "v", "u", "v")]
    order = []
    for _ in apps:
        h.heartbeat("n0000")
        running = [a for a in apps if h.shares()["jobs"].get(a.id, {}).get("runnable")]
        assert len(running) == 1
        order.append(running[0].id)
        for task in [t for t in h.scheduler._running_tasks.values() if t.job is running[0]]:
            h.finish(task)
    assert order == [a.id for a in apps]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("root.default.max-parallel-apps", "two"),
        ("max-parallel-apps", "1.5"),
        ("user.max-parallel-apps", "99999999999"),
        ("user.alice.max-parallel-apps", " "),
    ],
)
def test_bad_values_refuse_the_file(key: str, value: str) -> None:
    """A limit that is no whole number from −2³¹ to 2³¹ − 1 refuses the file: one error naming
    the file, line and key, and what was expected."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml())
    if not value.strip():
        value = "x"
    with pytest.raises(AllocationError) as err:
        h.set_allocations(xml((key, value)))
    message = str(err.value)
    assert f"yarn.scheduler.capacity.{key}: expected a whole number" in message
    assert ":5:" in message or "line 5" in message
    assert message.count("expected") == 1


def test_bad_reload_keeps_the_last_good_limits() -> None:
    """A refused reload leaves the limit in force: the third app still waits."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml(("root.default.max-parallel-apps", "2")))
    apps = [h.submit(queue="default", user="u", tasks=1, resources="1024 mb, 1 vcores") for _ in range(3)]
    with pytest.raises(AllocationError):
        h.set_allocations(xml(("root.default.max-parallel-apps", "lots")))
    h.heartbeat("n0000")
    assert [h.shares()["jobs"][a.id]["runnable"] for a in apps] == [True, True, False]
    assert h.shares()["queues"]["root.default"]["max_parallel_apps"] == 2


@pytest.mark.parametrize("key", ["root.default.max-parallel-apps", "max-parallel-apps", "user.u.max-parallel-apps"])
def test_a_negative_limit_is_read_as_hadoop_does_with_a_warning(key: str) -> None:
    """Hadoop reads a negative ``max-parallel-apps`` as it is (``Integer.parseInt``, no check) and
    ``CSMaxRunningAppsEnforcer`` then lets no app run: here the file loads, the key is warned
    about, and the app is accepted but never runnable."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml((key, "-1")))
    assert any(f"yarn.scheduler.capacity.{key}: -1 is below 0; read as 0" in w
               for w in h.scheduler.allocations.warnings)
    app = h.submit(queue="default", user="u", tasks=1, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    assert h.shares()["jobs"][app.id]["runnable"] is False
