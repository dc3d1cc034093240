"""Review: queues of absolute capacity (``[memory=…,vcores=…]``) end to end.  Hadoop derives
their capacities from the effective resources once it knows the cluster
(``ParentQueue.deriveCapacityFromAbsoluteConfigurations``): the absolute capacity is the
effective guarantee's share of the cluster, a leaf's ``maxApplications`` is
``(int) (maximum-applications × that)``, and the queue ordering policy sees a positive
absolute capacity (``PriorityUtilizationQueueOrderingPolicy``: used ÷ guaranteed, not the
zero-capacity queues' rule)."""

from __future__ import annotations

from typing import Any

import pytest

from corescheduler.core.model import RESOURCES
from corescheduler.core.scheduler import JobRejectedError
from corescheduler.testing import ClusterHarness


def xml(*extra: tuple[str, str]) -> str:
    props = [("root.queues", "a,b"), ("root.a.capacity", "[memory=2048,vcores=2]"),
             ("root.b.capacity", "[memory=6144,vcores=6]"), *extra]
    body = "".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                   for k, v in props)
    return f"<configuration>{body}</configuration>"


def harness(*extra: tuple[str, str]) -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores",
                          config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                                "pool_resolver": "yarn_capacity"}},
                          allocations=xml(*extra))


def policy(h: ClusterHarness) -> Any:
    return h.scheduler.plugins.share_policy("yarn_capacity").policy


def test_an_absolute_queue_accepts_apps_up_to_its_share_of_the_global_maximum() -> None:
    """root.a's 2 GB of 8 GB: 25 % of the global maximum-applications (10 here: 2 apps) — it
    refused every app ("maximum-applications 0") unless the queue set its own."""
    h = harness(("maximum-applications", "10"))
    h.submit_app(queue="a", user="u0", tasks=1, resources="1024 mb, 1 vcores")
    h.submit_app(queue="a", user="u0", tasks=1, resources="1024 mb, 1 vcores")
    with pytest.raises(JobRejectedError, match="maximum-applications 2"):
        h.submit_app(queue="a", user="u0", tasks=1, resources="1024 mb, 1 vcores")


def test_absolute_queues_are_ordered_by_used_capacity() -> None:
    """a uses 1 GB of its 2 GB (50 %), b 2 GB of its 6 GB (33 %): b is offered first, as both
    have a positive absolute capacity — not a first by its smaller share of the cluster."""
    h = harness(("root.a.user-limit-factor", "4"), ("root.b.user-limit-factor", "4"),
                ("root.a.maximum-applications", "10"), ("root.b.maximum-applications", "10"))
    a = h.submit_app(queue="a", user="u0", tasks=1, resources="1024 mb, 1 vcores")
    b = h.submit_app(queue="b", user="u1", tasks=2, resources="1024 mb, 1 vcores")
    for _ in range(3):  # one off-switch container a heartbeat (per-node-heartbeat.maximum-offswitch-assignments)
        h.heartbeat("n0000")
    assert int(a.usage.memory) == 1024 and int(b.usage.memory) == 2048
    p = policy(h)
    tree = h.scheduler.resource_engine.tree
    keys = {n: p.order_key(tree.queues[n].sched) for n in ("root.a", "root.b")}
    assert keys["root.b"] < keys["root.a"], keys
    assert p.admit_job(a, RESOURCES, h.clock) is None


def test_equally_used_absolute_queues_tie_to_the_larger_memory_first() -> None:
    """``PriorityUtilizationQueueOrderingPolicy``'s tie: the larger configured capacity first,
    by ``Resource.compareTo`` — memory, then vcores.  a [4 GB, 2 vcores] before b [2 GB, 4
    vcores], both unused (vcores were compared first: the resource type is ``memory-mb``)."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=xml().replace("[memory=2048,vcores=2]", "[memory=4096,vcores=2]")
                       .replace("[memory=6144,vcores=6]", "[memory=2048,vcores=4]"))
    h.update()
    p = policy(h)
    tree = h.scheduler.resource_engine.tree
    assert p.order_key(tree.queues["root.a"].sched) < p.order_key(tree.queues["root.b"].sched)


def test_absolute_guarantees_past_the_cluster_scale_down_together() -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="4096 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=xml())
    h.update()
    queues = h.scheduler.resource_engine.tree.queues
    assert queues["root.a"].sched.fair_share.memory == 1024
    assert queues["root.b"].sched.fair_share.memory == 3072
