"""The engines keep at most 30 instance attributes.

CPython 3.11 shares an instance dict's keys among a class's instances up to 30 keys
(``SHARED_KEYS_MAX_SIZE``); past them the engine's dict is materialized and every ``self.x``
on the heartbeat path is a dictionary lookup instead of a specialized load: bench_queues'
heartbeat ran 1.3 % more instructions with 31.  A new piece of engine state goes into an
existing attribute (a tuple, or an object of its own) rather than a 31st."""

from __future__ import annotations

import pytest

from corescheduler.testing import ClusterHarness

CAPACITY = ("<configuration><property><name>yarn.scheduler.capacity.root.queues</name><value>a</value>"
            "</property><property><name>yarn.scheduler.capacity.root.a.capacity</name><value>100</value>"
            "</property></configuration>")


@pytest.mark.parametrize("policy", ["fair", "drf", "yarn_capacity"])
def test_the_resource_engine_keeps_within_the_shared_keys(policy: str) -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="4096 mb, 4 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": policy, "preemption": True,
                                             "preemption_interval": 0.0}},
                       allocations=CAPACITY if policy == "yarn_capacity" else None)
    job = h.submit(queue="a", user="u", tasks=12, resources="1024 mb, 1 vcores")
    for _ in range(3):
        for node in sorted(h.cluster.nodes):
            h.heartbeat(node)
        h.advance(5)
    h.kill_app(job)
    h.remove_node("n0001")
    h.update()
    engine = h.scheduler.engine
    if not hasattr(engine, "__dict__"):
        pytest.skip("the compiled build: a native class's attributes are slots")
    assert len(vars(engine)) <= 30, sorted(vars(engine))


def test_the_slot_engine_keeps_within_the_shared_keys() -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=2)
    h.submit(4, 2, pool="a")
    for _ in range(3):
        for node in sorted(h.cluster.nodes):
            h.heartbeat(node)
        h.advance(5)
    engine = h.scheduler.engine
    if not hasattr(engine, "__dict__"):
        pytest.skip("the compiled build: a native class's attributes are slots")
    assert len(vars(engine)) <= 30, sorted(vars(engine))
