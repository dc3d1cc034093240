"""Hadoop's ``TestCSMaxRunningAppsEnforcer`` (Hadoop 3.3, ``CSMaxRunningAppsEnforcer``) ported to
the public harness: the queue tree of its ``setupQueues`` — root.queue1 (50 %) with
subqueue1.leaf1 and subqueue2.leaf2, root.queue2 (50 %) — and the ``max-parallel-apps`` its
cases set, as a capacity-scheduler.xml.  ``addApp`` is a submission (one container of 1 GB),
``removeApp`` the app's end; the counts are the leaves' runnable and non-runnable apps
(``runnable_apps`` and ``waiting_apps`` of ``h.shares()["queues"]``)."""

from __future__ import annotations

from typing import Any

from corescheduler.testing import ClusterHarness

CONFIG = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}}
LEAF1 = "root.queue1.subqueue1.leaf1"
LEAF2 = "root.queue1.subqueue2.leaf2"
TREE = (
    ("root.queues", "queue1,queue2"), ("root.queue1.queues", "subqueue1,subqueue2"),
    ("root.queue1.subqueue1.queues", "leaf1"), ("root.queue1.subqueue2.queues", "leaf2"),
    ("root.queue1.capacity", "50"), ("root.queue2.capacity", "50"), ("root.queue1.subqueue1.capacity", "50"),
    ("root.queue1.subqueue2.capacity", "50"), (f"{LEAF1}.capacity", "100"), (f"{LEAF2}.capacity", "100"),
)


def harness(*limits: tuple[str, str]) -> ClusterHarness:
    xml = "<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in (*TREE, *limits)
    ) + "</configuration>"
    return ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 4 vcores", config=CONFIG,
                          allocations=xml)


def add_app(h: ClusterHarness, leaf: str, user: str) -> Any:
    return h.submit(queue=leaf, user=user, tasks=1, resources="1024 mb, 1 vcores")


def remove_app(h: ClusterHarness, app: Any) -> None:
    h.kill_app(app)
    assert h.job(app).is_finished


def counts(h: ClusterHarness, leaf: str) -> tuple[int, int]:
    """(runnable, non-runnable) apps of the leaf."""
    q = h.shares()["queues"][leaf]
    return int(q["runnable_apps"]), int(q["waiting_apps"])


def test_remove_does_not_enable_any_app() -> None:
    """``testRemoveDoesNotEnableAnyApp``: root 2, leaf1 1, leaf2 1; leaf1's app ends, but leaf2
    is still at its own limit: its waiting app stays."""
    h = harness(("root.max-parallel-apps", "2"), (f"{LEAF1}.max-parallel-apps", "1"),
                (f"{LEAF2}.max-parallel-apps", "1"))
    app1 = add_app(h, LEAF1, "user")
    add_app(h, LEAF2, "user")
    add_app(h, LEAF2, "user")
    assert (counts(h, LEAF1), counts(h, LEAF2)) == ((1, 0), (1, 1))
    remove_app(h, app1)
    assert (counts(h, LEAF1), counts(h, LEAF2)) == ((0, 0), (1, 1))


def test_remove_enables_app_on_cousin_queue() -> None:
    """``testRemoveEnablesAppOnCousinQueue``: queue1 2; leaf1's app ends and leaf2's waiting app,
    under the same parent, runs."""
    h = harness(("root.queue1.max-parallel-apps", "2"))
    app1 = add_app(h, LEAF1, "user")
    add_app(h, LEAF2, "user")
    add_app(h, LEAF2, "user")
    assert (counts(h, LEAF1), counts(h, LEAF2)) == ((1, 0), (1, 1))
    remove_app(h, app1)
    assert (counts(h, LEAF1), counts(h, LEAF2)) == ((0, 0), (2, 0))


def test_remove_enables_one_by_queue_one_by_user() -> None:
    """``testRemoveEnablesOneByQueueOneByUser``: leaf1 2, user1 1; user1's app in leaf1 ends: a
    waiting app of leaf1 (user3's) and one of user1 (in leaf2) both run."""
    h = harness((f"{LEAF1}.max-parallel-apps", "2"), ("user.user1.max-parallel-apps", "1"))
    app1 = add_app(h, LEAF1, "user1")
    add_app(h, LEAF1, "user2")
    add_app(h, LEAF1, "user3")
    add_app(h, LEAF2, "user1")
    assert (counts(h, LEAF1), counts(h, LEAF2)) == ((2, 1), (0, 1))
    remove_app(h, app1)
    assert (counts(h, LEAF1), counts(h, LEAF2)) == ((2, 0), (1, 0))


def test_remove_enabling_ordered_by_start_time() -> None:
    """``testRemoveEnablingOrderedByStartTime``: queue1 2; leaf2's second app was submitted 20 s
    before leaf1's second: when leaf1's first ends, leaf2's (the earlier) runs."""
    h = harness(("root.queue1.max-parallel-apps", "2"))
    app1 = add_app(h, LEAF1, "user")
    add_app(h, LEAF2, "user")
    add_app(h, LEAF2, "user")
    h.clock_only(20)
    add_app(h, LEAF1, "user")
    assert (counts(h, LEAF1), counts(h, LEAF2)) == ((1, 1), (1, 1))
    remove_app(h, app1)
    assert (counts(h, LEAF1)[0], counts(h, LEAF2)) == (0, (2, 0))


def test_multiple_apps_waiting_on_cousin_queue() -> None:
    """``testMultipleAppsWaitingOnCousinQueue``: queue1 2; one slot frees, one of leaf2's two
    waiting apps runs."""
    h = harness(("root.queue1.max-parallel-apps", "2"))
    app1 = add_app(h, LEAF1, "user")
    for _ in range(3):
        add_app(h, LEAF2, "user")
    assert (counts(h, LEAF1), counts(h, LEAF2)) == ((1, 0), (1, 2))
    remove_app(h, app1)
    assert (counts(h, LEAF1), counts(h, LEAF2)) == ((0, 0), (2, 1))
