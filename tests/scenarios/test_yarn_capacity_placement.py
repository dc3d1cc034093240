"""Where the Capacity Scheduler places an app (Hadoop 3.3 ``CapacityScheduler.addApplication``
after ``UserGroupMappingPlacementRule``): an app naming no queue goes to ``default`` (YARN's
``DEFAULT_QUEUE_NAME``, set by ``RMAppManager``) — refused when the file has no such leaf —,
and the system-wide ``maximum-applications``."""

from __future__ import annotations

import pytest

from corescheduler.testing import ClusterHarness, SubmissionRejected

CONFIG = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}}


def xml(*props: tuple[str, str]) -> str:
    return "<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in props
    ) + "</configuration>"


def harness(allocations: str | None) -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=CONFIG,
                          allocations=allocations)


def test_an_app_naming_no_queue_goes_to_default() -> None:
    h = harness(xml(("root.queues", "default,b"), ("root.default.capacity", "50"), ("root.b.capacity", "50")))
    assert h.queue_of(h.submit(tasks=1, resources="1024 mb, 1 vcores")) == "root.default"
    assert h.queue_of(h.submit(queue="b", tasks=1, resources="1024 mb, 1 vcores")) == "root.b"


def test_a_nested_default_leaf_is_found_by_its_short_name() -> None:
    """``CapacitySchedulerQueueManager.getQueue``: ``default`` is a unique leaf's short name."""
    h = harness(xml(("root.queues", "p"), ("root.p.capacity", "100"), ("root.p.queues", "default,x"),
                    ("root.p.default.capacity", "50"), ("root.p.x.capacity", "50")))
    assert h.queue_of(h.submit(tasks=1, resources="1024 mb, 1 vcores")) == "root.p.default"


def test_a_file_without_default_refuses_an_app_naming_no_queue() -> None:
    """No mapping applies and the file has no leaf ``default``: "to unknown queue: default"."""
    h = harness(xml(("root.queues", "a,b"), ("root.a.capacity", "50"), ("root.b.capacity", "50"),
                    ("queue-mappings", "u:alice:a")))
    assert h.queue_of(h.submit(user="alice", tasks=1, resources="1024 mb, 1 vcores")) == "root.a"
    with pytest.raises(SubmissionRejected, match=r"submitted by user bob to unknown queue: default"):
        h.submit(user="bob", tasks=1, resources="1024 mb, 1 vcores")


def test_a_default_parent_refuses() -> None:
    h = harness(xml(("root.queues", "default"), ("root.default.capacity", "100"), ("root.default.queues", "x"),
                    ("root.default.x.capacity", "100")))
    with pytest.raises(SubmissionRejected, match=r"to non-leaf queue : root\.default"):
        h.submit(tasks=1, resources="1024 mb, 1 vcores")


def test_without_a_file_apps_go_to_root_default() -> None:
    h = harness(None)
    assert h.queue_of(h.submit(tasks=1, resources="1024 mb, 1 vcores")) == "root.default"


def test_system_maximum_applications() -> None:
    """``CapacityScheduler.isSystemAppsLimitReached``: the global ``maximum-applications`` counts
    the apps of every queue."""
    h = harness(xml(("root.queues", "a,b"), ("root.a.capacity", "50"), ("root.b.capacity", "50"),
                    ("maximum-applications", "2"), ("root.a.maximum-applications", "5"),
                    ("root.b.maximum-applications", "5")))
    h.submit(queue="a", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="b", tasks=1, resources="1024 mb, 1 vcores")
    with pytest.raises(SubmissionRejected, match="Maximum system application limit reached"):
        h.submit(queue="a", tasks=1, resources="1024 mb, 1 vcores")
