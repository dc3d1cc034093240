"""Hadoop 3.3's ``TestQueueManager`` cases (moved from test_yarn_fair_ported_more.py)."""

from __future__ import annotations

import pytest
from test_yarn_fair_ported import harness

from corescheduler.resources import Resources as R
from corescheduler.testing import ClusterHarness, SubmissionRejected


# --------------------------------------------------------------------------- TestQueueManager (3.3)
def kind(h: ClusterHarness, queue: str) -> str | None:
    """``getLeafQueue(q, false)`` / ``getParentQueue(q, false)``: "leaf", "parent" or None."""
    q = h.shares()["queues"].get(queue)
    return None if q is None else ("leaf" if q["leaf"] else "parent")


def app_in(h: ClusterHarness, queue: str):
    """``addAssignedApp``: an app that keeps ``queue`` non-empty."""
    return h.submit(queue=queue, user="user1", tasks=1, resources="1024 mb, 1 vcores")


def gone(h: ClusterHarness, app) -> None:
    """``removeAssignedApp`` then the next update (``removePendingIncompatibleQueues``,
    ``removeEmptyDynamicQueues``)."""
    h.kill_app(app)
    h.update()


def leaves_file(*names: str) -> str:
    """``updateConfiguredLeafQueues``: an allocation file whose configured leaves are ``names``."""
    def nest(parts: list[str]) -> str:
        return f'<queue name="{parts[0]}">{nest(parts[1:]) if len(parts) > 1 else ""}</queue>'
    return "<allocations>" + "".join(nest(n.split(".")) for n in names) + "</allocations>"


def test_reload_turns_leaf_queue_into_parent() -> None:
    """``TestQueueManager.testReloadTurnsLeafQueueIntoParent``: queue1 → queue1.queue2 makes
    queue1 a parent, and back; with an app in queue1 it stays a leaf and queue1.queue2 is not
    made; with an app in queue1.queue2, queue1 stays a parent; a configured default.queue3 makes
    root.default a parent."""
    h = harness("8192 mb, 8 vcores", leaves_file("queue1"))
    h.set_allocations(leaves_file("queue1.queue2"))
    assert (kind(h, "root.queue1"), kind(h, "root.queue1.queue2")) == ("parent", "leaf")
    h.set_allocations(leaves_file("queue1"))
    assert (kind(h, "root.queue1"), kind(h, "root.queue1.queue2")) == ("leaf", None)
    app = app_in(h, "queue1")
    h.set_allocations(leaves_file("queue1.queue2"))
    assert (kind(h, "root.queue1"), kind(h, "root.queue1.queue2")) == ("leaf", None)
    gone(h, app)
    h.set_allocations(leaves_file("queue1.queue2"))
    app_in(h, "queue1.queue2")
    h.set_allocations(leaves_file("queue1"))
    assert (kind(h, "root.queue1"), kind(h, "root.queue1.queue2")) == ("parent", "leaf")
    h.set_allocations(leaves_file("default.queue3"))
    assert (kind(h, "root.default"), kind(h, "root.default.queue3")) == ("parent", "leaf")


def test_reload_turns_leaf_to_parent_with_no_leaf() -> None:
    """``TestQueueManager.testReloadTurnsLeafToParentWithNoLeaf``: queue1 made type="parent"
    while an app runs in it stays a leaf; once the app is gone it becomes a parent with no
    children."""
    h = harness("8192 mb, 8 vcores", '<allocations><queue name="queue1"/></allocations>')
    app = app_in(h, "queue1")
    h.set_allocations('<allocations><queue name="queue1" type="parent"/></allocations>')
    assert kind(h, "root.queue1") == "leaf"
    gone(h, app)
    h.set_allocations('<allocations><queue name="queue1" type="parent"/></allocations>')
    assert kind(h, "root.queue1") == "parent"
    assert not [q for q in h.shares()["queues"] if q.startswith("root.queue1.")]


@pytest.mark.parametrize(("name", "valid"), [
    ("", False), ("  ", False), (" a", False), ("a ", False), (" a ", False), ("\u00a0", False),
    ("a\u00a0", False), ("\u00a0a\u00a0", False), ("a b", True), ("a", True)])
def test_check_queue_node_name(name: str, valid: bool) -> None:
    """``TestQueueManager.testCheckQueueNodeName`` (``isQueueNameValid``): names with leading or
    trailing blanks (non-breaking spaces too) are refused; an inner space is not."""
    h = harness("8192 mb, 8 vcores")
    if valid:
        assert h.queue_of(app_in(h, name)) == f"root.{name}"
    else:
        with pytest.raises(SubmissionRejected):
            app_in(h, name)
        assert not h.scheduler.jobs


CHILD_DEFAULTS = """<allocations><queue name="test" type="parent">{}<queue name="childA"/>
  <queue name="childB" type="parent"/></queue></allocations>"""


def test_create_queue_with_child_defaults() -> None:
    """``TestQueueManager.testCreateQueueWithChildDefaults``: root.test's maxChildResources (8192
    MB, 256 vc) is the max share of queues created under it (a leaf, and a parent's leaf), not
    of the configured childA and childB."""
    h = harness("8192 mb, 8 vcores",
                CHILD_DEFAULTS.format("<maxChildResources>8192 mb, 256 vcores</maxChildResources>"))
    app_in(h, "root.test.childC")
    app_in(h, "root.test.childD.leaf")
    tree = h.scheduler.resource_engine.tree
    assert tree.get("root.test.childC").sched.max_share == R(8192, 256)
    assert tree.get("root.test.childD").sched.max_share == R(8192, 256)
    assert tree.get("root.test.childA").sched.max_share == R.unbounded()
    assert tree.get("root.test.childB").sched.max_share == R.unbounded()


def test_create_leaf_queue_with_defaults() -> None:
    """``TestQueueManager.testCreateLeafQueueWithDefaults``: a created leaf's min share is (0, 0)
    and its max share unbounded."""
    h = harness("8192 mb, 8 vcores")
    app_in(h, "root.queue1")
    q = h.scheduler.resource_engine.tree.get("root.queue1").sched
    assert q.min_share == R(0, 0) and q.max_share == R.unbounded()


def test_removal_of_dynamic_leaf_queue() -> None:
    """``TestQueueManager.testRemovalOfDynamicLeafQueue``: a queue created under the static
    root.test.childB stays while its app does; then it goes, and its static parent stays."""
    h = harness("8192 mb, 8 vcores", CHILD_DEFAULTS.format(""))
    app = app_in(h, "root.test.childB.dynamic1")
    h.update()
    assert kind(h, "root.test.childB.dynamic1") == "leaf"
    gone(h, app)
    assert kind(h, "root.test.childB.dynamic1") is None and kind(h, "root.test.childB") == "parent"


def test_remove_deep_and_split_hierarchy() -> None:
    """``TestQueueManager.testRemoveDeepHierarchy`` / ``testRemoveSplitHierarchy``: the empty branch
    of root.p1 (p2-2.leaf-2) goes with its created parent; the other stays while its app runs;
    then the whole created tree goes, root.p1 too."""
    h = harness("8192 mb, 8 vcores")
    deep = app_in(h, "root.p1.p2.p3.leaf")
    gone(h, deep)
    assert kind(h, "root.p1.p2.p3.leaf") is None and kind(h, "root.p1") is None
    app1 = app_in(h, "root.p1.p2-1.leaf-1")
    app2 = app_in(h, "root.p1.p2-2.leaf-2")
    gone(h, app2)
    assert kind(h, "root.p1.p2-1.leaf-1") == "leaf"
    assert kind(h, "root.p1.p2-2.leaf-2") is None and kind(h, "root.p1.p2-2") is None
    gone(h, app1)
    assert kind(h, "root.p1.p2-1.leaf-1") is None and kind(h, "root.p1") is None


def test_non_empty_dynamic_queue_becoming_static_queue() -> None:
    """``TestQueueManager.testNonEmptyDynamicQueueBecomingStaticQueue``: a created root.leaf1 with
    an app, then configured: it stays once its app is gone."""
    h = harness("8192 mb, 8 vcores")
    app = app_in(h, "root.leaf1")
    h.update()
    assert kind(h, "root.leaf1") == "leaf"
    h.set_allocations('<allocations><queue name="leaf1"/></allocations>')
    gone(h, app)
    assert kind(h, "root.leaf1") == "leaf"


def test_non_empty_static_queue_becoming_dynamic_queue() -> None:
    """``TestQueueManager.testNonEmptyStaticQueueBecomingDynamicQueue``: root.test.childA runs an
    app when every queue leaves the file: it stays while the app runs, then goes with root.test."""
    h = harness("8192 mb, 8 vcores", CHILD_DEFAULTS.format(""))
    app = app_in(h, "root.test.childA")
    h.set_allocations("<allocations/>")
    assert kind(h, "root.test.childA") == "leaf"
    gone(h, app)
    assert kind(h, "root.test.childA") is None and kind(h, "root.test") is None


def test_removal_of_incompatible_non_empty_queue() -> None:
    """``TestQueueManager.testRemovalOfIncompatibleNonEmptyQueue``: root.a (a leaf running an app)
    reconfigured as the parent of root.a.b stays a leaf while the app runs; once it is gone,
    root.a is a parent and root.a.b its leaf."""
    h = harness("8192 mb, 8 vcores", '<allocations><queue name="a"/></allocations>')
    app = app_in(h, "root.a")
    h.set_allocations('<allocations><queue name="a"><queue name="b"/></queue></allocations>')
    h.update()
    assert (kind(h, "root.a"), kind(h, "root.a.b")) == ("leaf", None)
    gone(h, app)
    h.set_allocations('<allocations><queue name="a"><queue name="b"/></queue></allocations>')
    assert (kind(h, "root.a"), kind(h, "root.a.b")) == ("parent", "leaf")
