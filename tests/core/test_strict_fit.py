"""``Scheduler(strict_fit=True)``, the live service's: a container fits a node only where every
resource type of its ask fits, whatever the root policy's calculator compares."""

from __future__ import annotations

import pytest

CAPACITY = ("<configuration><property><name>yarn.scheduler.capacity.root.queues</name><value>queue1</value>"
            "</property><property><name>yarn.scheduler.capacity.root.queue1.capacity</name><value>100</value>"
            "</property></configuration>")


@pytest.mark.parametrize("strict", [False, True])
def test_strict_fit_enforces_every_resource_under_a_memory_only_calculator(strict: bool) -> None:
    """``yarn_capacity`` under ``DefaultResourceCalculator`` fits by memory alone
    (``SharePolicy.fits_by_memory``; YARN's ``computeAvailableContainers``): 8 containers of
    1 vcore on a node of 2 vcores and 8 GB.  ``Scheduler(strict_fit=True)`` (the live
    service) fits every resource: 2."""
    from corescheduler.config import Config
    from corescheduler.core.model import Cluster, JobSpec, TaskSpec
    from corescheduler.core.scheduler import Scheduler
    from corescheduler.formats.allocation_file import parse_allocations
    from corescheduler.resources import Resources

    config = Config.from_dict({"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"},
                               "cluster": {"node_resources": "8192 mb, 2 vcores"}})
    sched = Scheduler(config, Cluster.build(1, 1, 0, 0), parse_allocations(CAPACITY, "<test>"), strict_fit=strict)
    sched.submit(JobSpec(tasks=[TaskSpec(duration=10.0, resources=Resources(1024, 1))] * 8, pool="queue1",
                         user="u"), 0.0)
    for _ in range(8):
        sched.heartbeat("n0000", 1.0)
    assert len(sched.cluster.nodes["n0000"].tasks) == (2 if strict else 8)
