"""MR jobs' maps (``map_locations``) under ``yarn_capacity``'s locality delay, as the Capacity
Scheduler serves the MR AM's map requests (``RMContainerAllocator``: each map asks its hosts,
their racks and ANY at ``PRIORITY_MAP`` 20, one scheduler key), and ``cs_select_task``'s
``nodes`` argument that caps the delay (YARN's ``getNumClusterNodes``).

Four nodes on two racks: n0000 and n0001 on r00, n0002 and n0003 on r01."""

from __future__ import annotations

from typing import Any

import pytest

from corescheduler.hookspecs import hookimpl
from corescheduler.testing import ClusterHarness

GB = "1024 mb, 1 vcores"
MAP_KEY = 20  # RMContainerAllocator.PRIORITY_MAP


def xml(*props: tuple[str, str]) -> str:
    body = "".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                   for k, v in (("root.queues", "a"), ("root.a.capacity", "100"), *props))
    return f"<configuration>{body}</configuration>"


def harness(*props: tuple[str, str], selector: str | None = None) -> ClusterHarness:
    scheduler: dict[str, Any] = {"mode": "resources", "share_policy": "yarn_capacity", "pool_resolver": "yarn_capacity"}
    if selector is not None:
        scheduler["task_selector"] = selector
    return ClusterHarness(racks=2, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                          config={"scheduler": scheduler}, allocations=xml(*props))


def opportunities(h: ClusterHarness, job: Any) -> int:
    return h.scheduler.plugins.instances["yarn_capacity"].scheduling_opportunities(job, MAP_KEY)


def localities(h: ClusterHarness, node: str) -> list[str | None]:
    return [a.locality for a in h.heartbeat(node)]


def test_node_local_maps_run_at_once_and_reset_the_opportunities() -> None:
    """``canAssign(NODE_LOCAL)`` is always true: n0001 takes its four maps on its first
    heartbeat (multiple assignments), and the key's missed opportunities are reset
    (``doAllocation``), after one missed on n0002."""
    h = harness()
    job = h.submit(maps=4, queue="a", user="u", map_locations=[["n0001"]] * 4, resources=GB)
    assert localities(h, "n0002") == []
    assert opportunities(h, job) == 1
    assert localities(h, "n0001") == ["node"] * 4
    assert opportunities(h, job) == 0


def test_off_switch_waits_for_the_locality_wait_factor() -> None:
    """Four maps on n0001: the key asks three places (n0001, r00, ANY), so the wait factor is
    (3 − 1) ÷ 4 nodes = 0.5 and off-switch waits until the missed opportunities exceed
    min(4 nodes, 4 outstanding × 0.5) = 2 (``RegularContainerAllocator.canAssign``,
    ``getLocalityWaitFactor``): n0002's third heartbeat takes one map, off-switch (one a
    heartbeat: ``maximum-offswitch-assignments``), and does not reset the count."""
    h = harness()
    job = h.submit(maps=4, queue="a", user="u", map_locations=[["n0001"]] * 4, resources=GB)
    assert localities(h, "n0002") == []
    assert localities(h, "n0002") == []
    assert localities(h, "n0002") == ["off"]
    assert opportunities(h, job) == 3


def test_rack_local_waits_for_the_node_locality_delay() -> None:
    """``node-locality-delay`` 1: a rack-local map once the missed opportunities exceed
    min(4 nodes, 1) (``getActualNodeLocalityDelay``) — n0000's second heartbeat; the count is
    reset (``rack-locality-full-reset``), and the same heartbeat's next offer misses again."""
    h = harness(("node-locality-delay", "1"))
    job = h.submit(maps=8, queue="a", user="u", map_locations=[["n0001"]] * 8, resources=GB)
    assert localities(h, "n0000") == []
    assert localities(h, "n0000") == ["rack"]
    # reset by the map; the heartbeat goes on (multiple assignments) and misses one more
    assert opportunities(h, job) == 1


def test_without_full_reset_a_rack_local_map_keeps_the_count() -> None:
    h = harness(("node-locality-delay", "1"), ("rack-locality-full-reset", "false"),
                ("per-node-heartbeat.multiple-assignments-enabled", "false"))
    job = h.submit(maps=8, queue="a", user="u", map_locations=[["n0001"]] * 8, resources=GB)
    assert localities(h, "n0000") == []
    assert localities(h, "n0000") == ["rack"]
    assert opportunities(h, job) == 2


def test_rack_locality_additional_delay_sets_the_off_switch_wait() -> None:
    """``rack-locality-additional-delay`` 2 with ``node-locality-delay`` 1: off-switch once the
    missed opportunities exceed min(4 nodes, 1 + 2) (``getActualRackLocalityDelay``), not by
    the wait factor (which would allow it after 2)."""
    h = harness(("node-locality-delay", "1"), ("rack-locality-additional-delay", "2"))
    h.submit(maps=4, queue="a", user="u", map_locations=[["n0001"]] * 4, resources=GB)
    for _ in range(3):
        assert localities(h, "n0002") == []
    assert localities(h, "n0002") == ["off"]


def test_the_delay_is_capped_by_the_cluster_size() -> None:
    """The default ``node-locality-delay`` 40 on a 4-node cluster: rack-local waits for 4
    missed opportunities, not 40 (min(getNumClusterNodes, delay))."""
    h = harness(("per-node-heartbeat.multiple-assignments-enabled", "false"))
    h.submit(maps=40, queue="a", user="u", map_locations=[["n0001"]] * 40, resources=GB)
    got = [localities(h, "n0000") for _ in range(5)]
    assert got == [[], [], [], [], ["rack"]]


def test_maps_without_locations_run_at_once() -> None:
    """A job whose maps name no place asks ANY alone (``uniqLocationAsks == 1``): no delay."""
    h = harness()
    h.submit(maps=2, queue="a", user="u", resources=GB)
    assert localities(h, "n0002") == ["off"]


def test_maps_left_without_locations_are_not_delayed() -> None:
    """Once the located maps have run, the job's pending maps name no place: off-switch at once."""
    h = harness()
    h.submit(maps=3, queue="a", user="u", map_locations=[["n0001"], [], []], resources=GB)
    assert localities(h, "n0001")[:1] == ["node"]
    assert localities(h, "n0002") == ["off"]


def test_a_killed_map_runs_again_at_once() -> None:
    """A map killed while running is asked again with ANY alone at ``PRIORITY_FAST_FAIL_MAP``
    (``ContainerRequestEvent.createContainerRequestEventForFailedContainer``): it runs on the
    next node offered, whatever its input's place."""
    h = harness(("per-node-heartbeat.multiple-assignments-enabled", "false"))
    job = h.submit(maps=4, queue="a", user="u", map_locations=[["n0001"]] * 4, resources=GB)
    (first,) = h.heartbeat("n0001")
    h.scheduler.kill(first.task, h.clock, reason="test")
    got = h.heartbeat("n0002")
    assert [(a.task, a.locality) for a in got] == [(first.task, "off")]
    assert job.pending["map"] == 3


def test_the_greedy_selector_still_places_maps_at_once() -> None:
    """``task_selector = "locality"`` under ``yarn_capacity``: node-local, rack-local, any, at once."""
    h = harness(selector="locality")
    h.submit(maps=4, queue="a", user="u", map_locations=[["n0001"]] * 4, resources=GB)
    assert localities(h, "n0002") == ["off"]


class CountingSelector:
    """A TaskSelector that records ``cs_select_task``'s ``nodes``."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    @hookimpl
    def cs_select_task(self, job, node, kind, nodes):  # type: ignore[no-untyped-def]
        self.seen.append(nodes)
        return job.pending_task(kind)


class OldSelector:
    """A TaskSelector written before ``nodes`` was added: every argument it had then."""

    @hookimpl
    def cs_select_task(self, job, node, kind, now):  # type: ignore[no-untyped-def]
        return job.pending_task(kind)


@pytest.mark.parametrize("mode", ["slots", "resources"])
def test_cs_select_task_is_told_the_cluster_size(mode: str) -> None:
    selector = CountingSelector()
    h = ClusterHarness(racks=1, nodes_per_rack=3, config={"scheduler": {"mode": mode, "task_selector": "picker"}},
                       plugins={"picker": selector}, **({"node_resources": "8192 mb, 8 vcores"}
                                                        if mode == "resources" else {}))
    h.submit(maps=1)
    assert len(h.heartbeat("n0000")) == 1
    assert selector.seen and set(selector.seen) == {3}


@pytest.mark.parametrize("mode", ["slots", "resources"])
def test_a_selector_without_nodes_still_works(mode: str) -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=2, config={"scheduler": {"mode": mode, "task_selector": "old"}},
                       plugins={"old": OldSelector()}, **({"node_resources": "8192 mb, 8 vcores"}
                                                          if mode == "resources" else {}))
    h.submit(maps=1)
    assert len(h.heartbeat("n0000")) == 1


# ---------------------------------------------------------------------- regressions (the cs-cap blow-up)
def two_queues(**scheduler: Any) -> ClusterHarness:
    """Queues a (capacity 50 %, maximum 50 %: 16 GB of the 32) and b (50 %) on four 8 GB nodes."""
    body = "".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                   for k, v in (("root.queues", "a,b"), ("root.a.capacity", "50"),
                                ("root.a.maximum-capacity", "50"), ("root.b.capacity", "50")))
    config = {"mode": "resources", "share_policy": "yarn_capacity", "pool_resolver": "yarn_capacity", **scheduler}
    return ClusterHarness(racks=2, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                          config={"scheduler": config}, allocations=f"<configuration>{body}</configuration>")


def test_maps_waiting_for_the_delay_hold_back_the_jobs_reduces() -> None:
    """Regression (session 15's revert of 6e8eda6): a map skipped for its delay let the job's
    reduce take the container (the engine tries a job's maps, then its reduces), so reduces
    ran while their maps waited, holding containers for nothing — on the SWIM day's cs-cap
    case mean response went from 27.6 s to 275 s, 2 to 71 preemptions.  The engine's model
    of the MR AM asks reduces once every map is scheduled (``RMContainerAllocator
    .scheduleReduces``: ``scheduledMaps == 0`` → ``scheduleAllReduces``), as greedy maps
    always gave: maps waiting for their delay keep the reduces back."""
    h = harness()
    job = h.submit(maps=4, reduces=2, queue="a", user="u", map_locations=[["n0001"]] * 4, resources=GB)
    job.slowstart_maps = 0  # reduces schedulable from the start (reduce_slowstart 0)
    assert job.reduces_schedulable
    assert h.heartbeat("n0002") == []  # the maps wait (1 missed opportunity): nothing, no reduce
    assert job.running["reduce"] == 0 and opportunities(h, job) == 1
    # every map scheduled: the reduces are asked, and run (one off-switch container a heartbeat)
    assert [a.kind for a in h.heartbeat("n0001")] == ["map"] * 4 + ["reduce"]
    assert [a.kind for a in h.heartbeat("n0002")] == ["reduce"]


def test_a_queue_at_its_maximum_counts_no_missed_opportunity() -> None:
    """Regression: ``RegularContainerAllocator.preCheckForNodeCandidateSet`` skips the queue
    (``checkHeadroom`` → ``QUEUE_SKIPPED``) before ``tryAllocateOnNode`` counts an
    opportunity; the selector counted one on every heartbeat of a queue at its maximum
    capacity (and reset the count on a node holding a map's input, allocating nothing), so
    the delay ran out while the queue could take nothing."""
    h = two_queues()
    job = h.submit(maps=20, queue="a", user="u", resources=GB,
                   map_locations=[["n0000"]] * 8 + [["n0001"]] * 8 + [["n0000"]] * 4)
    assert localities(h, "n0000") == ["node"] * 8
    assert localities(h, "n0001") == ["node"] * 8  # a holds its maximum, 16 GB
    for node in ("n0002", "n0003", "n0002", "n0003"):
        assert h.heartbeat(node) == []
    assert opportunities(h, job) == 0
    h.finish(next(t for t in job.tasks["map"] if t.node == "n0001"))
    assert h.heartbeat("n0002") == []  # room again: the missed opportunity counts
    assert opportunities(h, job) == 1


def test_a_queue_at_its_maximum_counts_no_missed_opportunity_for_asks() -> None:
    """The same for an app's asks (``cs_select_ask``): no opportunity counted at priority 1
    while its queue holds its maximum."""
    h = two_queues()
    filler = h.submit(maps=16, queue="a", user="v", resources=GB, map_locations=[["n0000"]] * 8 + [["n0001"]] * 8)
    h.heartbeat("n0000")
    h.heartbeat("n0001")
    assert int(filler.usage.memory) == 16 * 1024
    app = h.submit_app(queue="a", user="u", requests=[
        {"resources": GB, "count": 1, "locations": ["n0000"], "priority": 1}])
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    for node in ("n0002", "n0003"):
        assert h.heartbeat(node) == []
    assert cs.scheduling_opportunities(app, 1) == 0


def test_an_ended_apps_opportunities_are_forgotten() -> None:
    """An app's counts live on its attempt (``SchedulerApplicationAttempt``): gone when it ends."""
    h = harness()
    job = h.submit(maps=4, queue="a", user="u", map_locations=[["n0001"]] * 4, resources=GB)
    assert h.heartbeat("n0002") == []
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    assert cs._cs_missed == {job.id: {MAP_KEY: 1}}
    for a in h.heartbeat("n0001"):
        h.finish(h.scheduler.task(a.task))
    assert job.is_finished and cs._cs_missed == {}


def test_a_full_node_is_not_offered_and_counts_no_opportunity() -> None:
    """``CapacityScheduler.allocateContainerOnSingleNode``: a node whose unallocated resources
    hold no minimum allocation (``computeAvailableContainers(..., minimumAllocation) <= 0``;
    ``ParentQueue.canAssign`` likewise) is not scheduled on — no queue or app is offered it,
    so no scheduling opportunity is counted.  n0002 is filled by a first job (8 of 8 GB);
    the second job's maps ask n0001: heartbeats of the full n0002 miss nothing, while one
    of n0003 (free) counts one."""
    h = harness()
    h.submit(tasks=8, queue="a", user="filler", resources=GB)
    assert sum(len(h.heartbeat("n0002")) for _ in range(8)) == 8  # one off-switch container a heartbeat
    job = h.submit(maps=4, queue="a", user="u", map_locations=[["n0001"]] * 4, resources=GB)
    for _ in range(5):
        assert localities(h, "n0002") == []
    assert opportunities(h, job) == 0
    assert localities(h, "n0003") == []
    assert opportunities(h, job) == 1


def test_a_node_with_a_minimum_allocation_free_still_counts_an_opportunity() -> None:
    """The check is the minimum allocation (1024 MB by default), not the ask: a node with
    1 GB free misses a 2 GB map and counts its opportunity (``addSchedulingOpportunity``
    before the fit, ``RegularContainerAllocator.preCheckForNodeCandidateSet``)."""
    h = harness()
    h.submit(tasks=7, queue="a", user="filler", resources=GB)
    while len(h.heartbeat("n0002")):
        pass
    job = h.submit(maps=4, queue="a", user="u", map_locations=[["n0001"]] * 4, resources="2048 mb, 1 vcores")
    assert localities(h, "n0002") == []
    assert opportunities(h, job) == 1
