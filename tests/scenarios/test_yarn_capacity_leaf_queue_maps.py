"""Hadoop's ``TestLeafQueue.testLocalityScheduling`` (Hadoop 3.3) in the shape of MR jobs' maps.

The MR AM (``RMContainerAllocator``) asks for every map at ``PRIORITY_MAP`` (20): the map's
hosts, their racks and ANY, one scheduler key.  So a job whose maps' input lies on host_0
and host_1 asks what Hadoop's test asks by hand (host_0, rack_0, host_1, rack_1, ANY), and
the Capacity Scheduler's delay (``RegularContainerAllocator.canAssign``) counts that key's
missed opportunities the same way.  Hadoop's test adds requests to one app; here each part
is a job of its own (an MR job's maps are fixed at submission), with the numbers of the
test's parts.

Queue b of the ``TestLeafQueue`` fixture (tests/data/yarn_capacity/test-leaf-queue.xml,
maximum capacity 100 %), one container a heartbeat (``LeafQueue.assignContainers`` once).
"""

from __future__ import annotations

from typing import Any

from test_yarn_capacity_leaf_queue import CONFIG, FIXTURE, ONE_A_CALL, with_globals, with_values

from corescheduler.testing import ClusterHarness

GB = "1024 mb, 1 vcores"
MAP_KEY = 20  # RMContainerAllocator.PRIORITY_MAP


def kind_of(assignments: list[Any]) -> str | None:
    """The ``NodeType`` of a heartbeat's one container (None: none)."""
    if not assignments:
        return None
    (a,) = assignments
    return a.locality if a.locality in ("node", "rack") else "off"


def test_locality_scheduling_of_maps() -> None:
    """``TestLeafQueue.testLocalityScheduling`` for maps: three 8 GB nodes host_0…host_2 on
    rack_0…rack_2 (n0000…n0002 on r00…r02).

    1. A job of three maps whose input is on host_0, host_1 and host_0: its key asks
       host_0, rack_0, host_1, rack_1 and ANY 3 (five places: the wait factor is
       min(4 ÷ 3, 1) = 1).  On host_2 three heartbeats assign nothing (1, 2, 3 missed
       opportunities; off-switch waits for more than min(3 nodes, 3 × 1) = 3), the fourth
       assigns OFF_SWITCH without resetting (4) — to the first map (``assignMapsWithLocality``
       gives an off-switch container to the first map left); host_0 and host_1 then get
       NODE_LOCAL maps, each resetting to 0.
    2. node_3 joins on rack_1, node-locality-delay 1; a job of four maps on host_1: on node_3
       nothing (1), RACK_LOCAL (reset to 0), nothing (1); with rack-locality-full-reset
       false RACK_LOCAL without a reset (2), again (3); its last map runs NODE_LOCAL on host_1.
    3. node_3 leaves; a job of 100 maps on host_0: on host_2 three heartbeats assign nothing
       (the off-switch delay min(3 nodes, 100 × 2 ÷ 3) is capped by the cluster's size), the
       fourth OFF_SWITCH (4)."""
    xml = with_globals(with_values(FIXTURE, b__maximum_capacity="100"), **ONE_A_CALL)
    h = ClusterHarness(racks=3, nodes_per_rack=1, node_resources="8192 mb, 16 vcores", config=CONFIG,
                       allocations=xml)
    cs = h.scheduler.plugins.instances["yarn_capacity"]

    def step(job: Any, node: str) -> tuple[str | None, int, int]:
        return kind_of(h.heartbeat(node)), cs.scheduling_opportunities(job, MAP_KEY), job.pending["map"]

    app_0 = h.submit(maps=3, queue="b", user="user_0", resources=GB,
                     map_locations=[["n0000"], ["n0001"], ["n0000"]])
    assert [step(app_0, "n0002") for _ in range(4)] == [(None, 1, 3), (None, 2, 3), (None, 3, 3), ("off", 4, 2)]
    assert [t.node for t in app_0.tasks["map"]][:1] == ["n0002"]  # the first map, off-switch
    assert step(app_0, "n0000") == ("node", 0, 1)
    assert step(app_0, "n0001") == ("node", 0, 0)

    h.add_node("n0003", rack="r01")
    h.set_allocations(with_globals(xml, node_locality_delay="1"))  # doReturn(1).when(a).getNodeLocalityDelay()
    app_1 = h.submit(maps=4, queue="b", user="user_0", resources=GB, map_locations=[["n0001"]] * 4)
    assert step(app_1, "n0003") == (None, 1, 4)
    assert step(app_1, "n0003") == ("rack", 0, 3)
    assert step(app_1, "n0003") == (None, 1, 3)
    h.set_allocations(with_globals(xml, node_locality_delay="1", rack_locality_full_reset="false"))
    assert step(app_1, "n0003") == ("rack", 2, 2)
    assert step(app_1, "n0003") == ("rack", 3, 1)
    assert step(app_1, "n0001") == ("node", 0, 0)  # its last map, where its input is

    for task in [t for t in h.scheduler._running_tasks.values() if t.node == "n0003"]:
        h.finish(task)
    h.remove_node("n0003")
    h.set_allocations(xml)
    app_2 = h.submit(maps=100, queue="b", user="user_0", resources=GB, map_locations=[["n0000"]] * 100)
    assert [step(app_2, "n0002")[:2] for _ in range(4)] == [(None, 1), (None, 2), (None, 3), ("off", 4)]
