"""Normalization as Hadoop 3.3's Capacity Scheduler does it
(``CapacityScheduler.getNormalizedResource`` → ``SchedulerUtils.getNormalizedResource`` with
the scheduler's calculator and the minimum allocation as the increment), through the
``SharePolicy.normalize`` contract."""

from __future__ import annotations

import pytest

from corescheduler.testing import ClusterHarness, SubmissionRejected

CLUSTER = {"minimum_allocation": "1024 mb, 2 vcores", "increment_allocation": "512 mb, 1 vcores",
           "maximum_allocation": "8192 mb, 8 vcores"}


def xml(dominant: bool) -> str:
    calc = ("org.apache.hadoop.yarn.util.resource.DominantResourceCalculator" if dominant
            else "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator")
    return ("<configuration>"
            "<property><name>yarn.scheduler.capacity.root.queues</name><value>a</value></property>"
            "<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>100</value></property>"
            "<property><name>yarn.scheduler.capacity.resource-calculator</name>"
            f"<value>{calc}</value></property></configuration>")


def sized(policy: str, allocations: str | None, ask: str) -> tuple[int, int]:
    config = {"scheduler": {"mode": "resources", "share_policy": policy}, "cluster": CLUSTER}
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="16384 mb, 16 vcores", config=config,
                       allocations=allocations)
    job = h.submit(queue="a" if allocations else None, tasks=1, resources=ask)
    h.heartbeat("n0000")
    task = next(t for t in h.scheduler._running_tasks.values() if t.job is h.job(job))
    return int(task.resources.memory), int(task.resources.vcores)


@pytest.mark.parametrize(("dominant", "ask", "expected"), [
    (False, "1500 mb, 3 vcores", (2048, 3)),   # memory rounded up to the minimum, not the 512 MB increment
    (False, "100 mb, 1 vcores", (1024, 2)),    # at least the minimum
    (False, "1500 mb, 5 vcores", (2048, 5)),   # vcores as asked: not rounded under DefaultResourceCalculator
    (True, "1500 mb, 3 vcores", (2048, 4)),    # every type rounded up to the minimum
    (True, "9000 mb, 9 vcores", None),          # above the maximum: refused (validateResourceRequest)
])
def test_capacity_scheduler_normalization(dominant: bool, ask: str, expected: tuple[int, int] | None) -> None:
    if expected is None:
        with pytest.raises(SubmissionRejected, match="greater than maximum allowed allocation"):
            sized("yarn_capacity", xml(dominant), ask)
        return
    assert sized("yarn_capacity", xml(dominant), ask) == expected


def test_fair_scheduler_normalization_is_unchanged() -> None:
    """The fair scheduler keeps its increment (``FairScheduler.getNormalizedResource``)."""
    assert sized("fair", None, "1500 mb, 3 vcores") == (1536, 3)


def test_no_file_normalizes_as_the_capacity_scheduler() -> None:
    """Without a capacity file (one queue, ``root.default``): ``DefaultResourceCalculator``."""
    assert sized("yarn_capacity", None, "1500 mb, 3 vcores") == (2048, 3)
