"""How a Capacity Scheduler leaf orders its apps: Hadoop's ``TestLeafQueue`` cases
(Hadoop 3.3, ``.../scheduler/capacity/TestLeafQueue.java``: ``testFifoAssignment``,
``testFairAssignment``, ``testLocalityDelaySkipsApplication``) through the public harness,
with its ``setupQueueConfiguration`` as a capacity-scheduler.xml
(tests/data/yarn_capacity/test-leaf-queue.xml).

As in tests/scenarios/test_yarn_capacity_leaf_queue.py, one ``assignContainers`` call is one
heartbeat of the node giving one container; ``setOrderingPolicy`` is the leaf's
``ordering-policy`` key; a new ``updateResourceRequests`` is ``add_requests``.
"""

from __future__ import annotations

from test_yarn_capacity_leaf_queue import CONFIG, FIXTURE, ONE_A_CALL, node_type, outstanding, with_globals, with_values

from corescheduler.testing import ClusterHarness

GB = 1024


def capped(xml: str) -> str:
    """The fixture with ``yarn.cluster.max-application-priority`` 10: ``TestLeafQueue`` sets its
    apps' priorities on the attempts (``setPriority``), past the cluster's cap of 0 by default
    (``CapacityScheduler.checkAndGetApplicationPriority``); a cap above them is the same."""
    return xml.replace("</configuration>", "<property><name>yarn.cluster.max-application-priority</name>"
                                           "<value>10</value></property></configuration>")


def usage(h: ClusterHarness, app: object) -> int:
    return int(h.job(app).usage.memory)  # type: ignore[arg-type]


def four_nodes(xml: str) -> ClusterHarness:
    """Four 16 GB nodes (the tests' cluster); the tests' node_0_0 is n0000."""
    return ClusterHarness(racks=1, nodes_per_rack=4, node_resources="16384 mb, 16 vcores", config=CONFIG,
                          allocations=xml)


def test_fifo_assignment() -> None:
    """``TestLeafQueue.testFifoAssignment``: queue a under ``FifoOrderingPolicy``; app_0 of
    priority 3 asks for 2 GB, app_1 of priority 5 (higher: here HIGH against NORMAL) for
    1 GB.  app_1 is served first although submitted later: 1 GB, then app_0 2 GB; asked for
    1 GB more each, app_1 first again (2 GB), "and only then" app_0 (3 GB)."""
    h = four_nodes(capped(with_values(FIXTURE, a__ordering_policy="fifo")))
    app_0 = h.submit(queue="a", user="user_0", tasks=1, resources="2048 mb, 1 vcores", priority="NORMAL")
    app_1 = h.submit(queue="a", user="user_0", tasks=1, resources="1024 mb, 1 vcores", priority="HIGH")
    h.heartbeat("n0000")
    assert usage(h, app_1) == 1 * GB  # "app_1 will get containers as it has high priority"
    h.heartbeat("n0000")
    assert usage(h, app_0) == 2 * GB
    h.add_requests(app_0, [{"resources": "1024 mb, 1 vcores", "count": 1}])
    h.add_requests(app_1, [{"resources": "1024 mb, 1 vcores", "count": 1}])
    h.heartbeat("n0000")
    assert (usage(h, app_1), usage(h, app_0)) == (2 * GB, 2 * GB)  # "app_1 will still get assigned first"
    h.heartbeat("n0000")
    assert usage(h, app_0) == 3 * GB


def test_fair_assignment() -> None:
    """``TestLeafQueue.testFairAssignment``: queue a under ``FairOrderingPolicy``; app_0 asks
    for 2 GB, app_1 for 1 GB.  app_0 first ("submitted first"), then app_1; asked for 1 GB
    more each, app_1 first ("since it already has more resources, app_0 will not get
    assigned first"), and only then app_0."""
    h = four_nodes(with_values(FIXTURE, a__ordering_policy="fair"))
    app_0 = h.submit(queue="a", user="user_0", tasks=1, resources="2048 mb, 1 vcores")
    app_1 = h.submit(queue="a", user="user_0", tasks=1, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    assert usage(h, app_0) == 2 * GB
    h.heartbeat("n0000")
    assert usage(h, app_1) == 1 * GB
    h.add_requests(app_0, [{"resources": "1024 mb, 1 vcores", "count": 1}])
    h.add_requests(app_1, [{"resources": "1024 mb, 1 vcores", "count": 1}])
    h.heartbeat("n0000")
    assert (usage(h, app_0), usage(h, app_1)) == (2 * GB, 2 * GB)
    h.heartbeat("n0000")
    assert usage(h, app_0) == 3 * GB


def test_fair_assignment_with_size_based_weight() -> None:
    """``FairOrderingPolicy`` with ``fair.enable-size-based-weight`` (``TestLeafQueue.testFairConfiguration``'s
    setting): an app's usage is divided by log2(1 + its demand), so of two apps using 2 GB
    each, the one asking for more (demand 2 + 8 GB against 2 + 1 GB) is served first."""
    xml = with_values(FIXTURE, a__ordering_policy="fair", a__maximum_capacity="100", a__user_limit_factor="10")
    h = four_nodes(xml.replace("</configuration>", "<property><name>yarn.scheduler.capacity.root.newroot.a."
                               "ordering-policy.fair.enable-size-based-weight</name><value>true</value>"
                               "</property></configuration>"))
    small = h.submit(queue="a", user="user_0", tasks=2, resources="2048 mb, 1 vcores")
    big = h.submit(queue="a", user="user_1", tasks=1, resources="2048 mb, 1 vcores")
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    assert (usage(h, small), usage(h, big)) == (2 * GB, 2 * GB)
    h.add_requests(big, [{"resources": "1024 mb, 1 vcores", "count": 8}])
    h.heartbeat("n0000")
    assert (usage(h, small), usage(h, big)) == (2 * GB, 3 * GB)


def test_locality_delay_skips_application() -> None:
    """``TestLeafQueue.testLocalityDelaySkipsApplication``: three 8 GB nodes on three racks; app_0,
    submitted first, asks at priority 1 for 1 GB on host_0, 1 GB on host_1 and one more anywhere
    (ANY 3); app_1 for 1 GB on host_2 (ANY 1).  On node_2 app_0 waits for its node-locality
    delay (1 missed opportunity, 3 outstanding, no container) and app_1 gets a NODE_LOCAL one."""
    h = ClusterHarness(racks=3, nodes_per_rack=1, node_resources="8192 mb, 16 vcores", config=CONFIG,
                       allocations=with_globals(FIXTURE, **ONE_A_CALL))
    ask = "1024 mb, 1 vcores"
    app_0 = h.submit_app(queue="a", user="user_0", requests=[
        {"resources": ask, "count": 1, "locations": ["n0000"], "priority": 1},
        {"resources": ask, "count": 1, "locations": ["n0001"], "priority": 1},
        {"resources": ask, "count": 1, "priority": 1},
    ])
    app_1 = h.submit_app(queue="a", user="user_0", requests=[
        {"resources": ask, "count": 1, "locations": ["n0002"], "priority": 1},
    ])
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    got = h.heartbeat("n0002")
    assert node_type(got) == "node" and got[0].task.startswith(app_1.id)
    assert cs.scheduling_opportunities(app_0, 1) == 1
    assert outstanding(app_0) == 3
    assert (usage(h, app_0), usage(h, app_1)) == (0, 1 * GB)


def test_application_priority_scheduling() -> None:
    """``TestLeafQueue.testApplicationPriorityScheduling``: three 8 GB nodes on three racks; app_0
    asks at priority 1 for 1 GB on host_0 and 1 GB on host_1 (ANY 2), at priority 2 for 2 GB
    on host_2 (ANY 1).  On node_2: nothing twice (P1 waits for its delay, "thus, no P2
    either"), then P1 OFF_SWITCH at 3 missed opportunities (2 outstanding × locality wait
    factor min(4 ÷ 3, 1)); on node_0 P1 NODE_LOCAL (reset to 0); on node_1 P2 OFF_SWITCH at
    once (1 outstanding × 2 ÷ 3 < 1 opportunity)."""
    h = ClusterHarness(racks=3, nodes_per_rack=1, node_resources="8192 mb, 16 vcores", config=CONFIG,
                       allocations=with_globals(FIXTURE, **ONE_A_CALL))
    ask = "1024 mb, 1 vcores"
    # host_0 1, host_1 1, ANY 2: two containers, each for host_0 or host_1 (an OFF_SWITCH
    # container takes from ANY alone, leaving both hosts' asks)
    app_0 = h.submit_app(queue="a", user="user_0", requests=[
        {"resources": ask, "count": 2, "locations": ["n0000", "n0001"], "priority": 1},
        {"resources": "2048 mb, 1 vcores", "count": 1, "locations": ["n0002"], "priority": 2},
    ])
    cs = h.scheduler.plugins.instances["yarn_capacity"]

    def pending(priority: int) -> int:  # getOutstandingAsksCount: P1's asks are 1 GB, P2's 2 GB
        return sum(1 for t in app_0.tasks["task"] if t.state == "pending" and t.resources.memory == priority * GB)

    def step(node: str) -> tuple[object, ...]:
        kind = node_type(h.heartbeat(node))
        return (kind, cs.scheduling_opportunities(app_0, 1), pending(1), cs.scheduling_opportunities(app_0, 2),
                pending(2))

    assert step("n0002") == (None, 1, 2, 0, 1)
    assert step("n0002") == (None, 2, 2, 0, 1)
    assert step("n0002") == ("off", 3, 1, 0, 1)
    assert step("n0000") == ("node", 0, 0, 0, 1)
    assert step("n0001") == ("off", 0, 0, 1, 0)


def test_activate_application_after_queue_refresh() -> None:
    """``TestLeafQueue.testActivateApplicationAfterQueueRefresh``: queue e (1 %, maximum 1 %) of
    100 × 16 GB: its AM limit is 10 % × 16 GB rounded up to 2 GB, so of user_e's three apps
    with 1 GB AMs two start and one waits; with maximum-am-resource-percent doubled by a
    refresh (4 GB) the third starts."""
    xml = capped(with_values(FIXTURE, e__acl_submit_applications="*"))
    h = ClusterHarness(racks=1, nodes_per_rack=100, node_resources="16384 mb, 32 vcores", config=CONFIG,
                       allocations=xml)
    apps = []
    for priority in ("LOW", "NORMAL", "HIGH"):  # a later app's AM is offered the heartbeat first
        apps.append(h.submit(queue="e", user="user_e", tasks=4, resources="1024 mb, 1 vcores",
                             am_resources="1024 mb, 1 vcores", priority=priority))
        h.heartbeat("n0000")
    assert [h.job(a).am_running for a in apps] == [True, True, False]  # "before reinitialization"
    assert h.shares()["queues"]["root.newroot.e"]["am_limit"].memory == 2 * GB
    h.set_allocations(xml.replace("</configuration>", "<property><name>yarn.scheduler.capacity."
                                  "maximum-am-resource-percent</name><value>0.2</value></property>"
                                  "</configuration>"))
    h.heartbeat("n0001")
    assert [h.job(a).am_running for a in apps] == [True, True, True]  # "after reinitialization"


def test_activate_application_by_updating_cluster_resource() -> None:
    """``TestLeafQueue.testActivateApplicationByUpdatingClusterResource``: as above, two of
    user_e's three apps start on 100 × 16 GB; with the cluster grown to 200 nodes e's AM
    limit is 10 % × 32 GB rounded up to 4 GB and the third starts (``updateClusterResource``
    → ``activateApplications``)."""
    xml = capped(with_values(FIXTURE, e__acl_submit_applications="*"))
    h = ClusterHarness(racks=1, nodes_per_rack=100, node_resources="16384 mb, 32 vcores", config=CONFIG,
                       allocations=xml)
    apps = []
    for priority in ("LOW", "NORMAL", "HIGH"):
        apps.append(h.submit(queue="e", user="user_e", tasks=4, resources="1024 mb, 1 vcores",
                             am_resources="1024 mb, 1 vcores", priority=priority))
        h.heartbeat("n0000")
    assert [h.job(a).am_running for a in apps] == [True, True, False]  # "before updating cluster resource"
    for i in range(100, 200):
        h.add_node(f"n{i:04d}", resources="16384 mb, 32 vcores")
    h.heartbeat("n0001")
    assert [h.job(a).am_running for a in apps] == [True, True, True]  # "after updating cluster resource"
    assert h.shares()["queues"]["root.newroot.e"]["am_limit"].memory == 4 * GB
