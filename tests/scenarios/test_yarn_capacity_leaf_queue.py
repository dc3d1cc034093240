"""YARN Capacity Scheduler worked cases of Hadoop's ``TestLeafQueue`` (Hadoop 3.3,
``hadoop-yarn-server-resourcemanager/.../scheduler/capacity/TestLeafQueue.java``) through
the public harness, with its ``setupQueueConfiguration`` as a capacity-scheduler.xml
(tests/data/yarn_capacity/test-leaf-queue.xml: root.newroot.{a 8.5 %/20 %, b 80 %/99 %,
c 1.5 %/10 % (c1), d 9 %/11 %, e 1 %/1 %}).

Hadoop's tests call ``LeafQueue.assignContainers`` once per step; here a step is one
heartbeat of the node (one container per heartbeat, as ``assignContainers`` gives), and a
setter (``setUserLimitFactor``, ``setMaxCapacity``) is a reload of the file with that value.
"""

from __future__ import annotations

import re

import pytest
from paths import DATA

from corescheduler.testing import ClusterHarness, SubmissionRejected

FIXTURE = (DATA / "yarn_capacity" / "test-leaf-queue.xml").read_text()
GB = 1024
CONFIG = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "pool_resolver": "yarn_capacity"}}


def with_values(xml: str, **values: str) -> str:
    """The fixture with ``queue__key=value`` properties set (``a__user_limit_factor`` →
    ``yarn.scheduler.capacity.root.newroot.a.user-limit-factor``), added or replaced."""
    for name, value in values.items():
        queue, key = name.split("__")
        prop = f"yarn.scheduler.capacity.root.newroot.{queue}.{key.replace('_', '-')}"
        element = f"<property><name>{prop}</name><value>{value}</value></property>"
        pattern = re.compile(rf"<property><name>{re.escape(prop)}</name><value>[^<]*</value></property>")
        xml = pattern.sub(element, xml) if pattern.search(xml) else xml.replace("</configuration>",
                                                                                  f"  {element}\n</configuration>")
    return xml


def harness(xml: str, nodes: int = 1, node: str = "8192 mb, 16 vcores") -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=nodes, node_resources=node, config=CONFIG, allocations=xml)


def used(h: ClusterHarness, what: str) -> int:
    if what.startswith("root"):
        return int(h.shares()["queues"][what]["usage"]["memory"])
    return int(h.job(what).usage.memory)


def test_single_queue_with_one_user() -> None:
    """``TestLeafQueue.testSingleQueueWithOneUser``: queue a (8.5 %, maximum 100 %) on one
    8 GB node, user_0's app_0 asks 3 × 1 GB and app_1 2 × 1 GB.  1 GB, then 2 GB ("you can
    get one container more than user-limit": the limit is 0.085 × 8 GB rounded up to the
    1 GB minimum allocation), then no more; with user-limit-factor 10, 3 GB for app_0 and
    1 GB for app_1; with maximum-capacity 50 % nothing more; app_0's containers released:
    1 GB."""
    xml = with_values(FIXTURE, a__maximum_capacity="100")
    h = harness(xml)
    app_0 = h.submit(queue="a", user="user_0", tasks=3, resources="1024 mb, 1 vcores")
    app_1 = h.submit(queue="a", user="user_0", tasks=2, resources="1024 mb, 1 vcores")
    assert h.queue_of(app_0) == "root.newroot.a"
    steps = []
    for _ in range(3):
        h.heartbeat("n0000")
        h.update()
        steps.append((used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)))
    assert steps == [(1 * GB, 1 * GB, 0), (2 * GB, 2 * GB, 0), (2 * GB, 2 * GB, 0)]
    h.set_allocations(with_values(xml, a__user_limit_factor="10"))  # a.setUserLimitFactor(10)
    h.heartbeat("n0000")
    h.update()
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (3 * GB, 3 * GB, 0)
    h.heartbeat("n0000")
    h.update()
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (4 * GB, 3 * GB, 1 * GB)
    h.set_allocations(with_values(xml, a__user_limit_factor="10", a__maximum_capacity="50"))  # setMaxCapacity(0.5)
    h.heartbeat("n0000")
    h.update()
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (4 * GB, 3 * GB, 1 * GB)
    for task in [t for t in h.scheduler._running_tasks.values() if t.job is app_0]:
        h.finish(task)
    h.update()
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (1 * GB, 0, 1 * GB)


def test_acl_and_unknown_queue_refusals() -> None:
    """``setupQueueConfiguration``'s ACLs: d admits only user_d once root's administer ACL
    (default ``*``, and administer implies submit: ``CapacityScheduler.checkAccess``) is
    closed too; an unknown queue and a parent queue are refused
    (``CapacityScheduler.addApplication``)."""
    open_root = harness(FIXTURE)
    open_root.submit(queue="d", user="user_0", tasks=1, resources="1024 mb, 1 vcores")  # root administers: *
    closed = FIXTURE.replace("</configuration>", "<property><name>yarn.scheduler.capacity.root."
                             "acl_administer_queue</name><value> </value></property></configuration>")
    h = harness(closed)
    h.submit(queue="d", user="user_d", tasks=1, resources="1024 mb, 1 vcores")
    for queue, user in (("d", "user_0"), ("nosuch", "user_0"), ("c", "user_0"), ("c1", "user_0")):
        try:
            h.submit(queue=queue, user=user, tasks=1, resources="1024 mb, 1 vcores")
        except SubmissionRejected:
            continue
        raise AssertionError(f"{queue} accepted {user}")


def headroom(h: ClusterHarness, app: object) -> int:
    return int(h.shares()["jobs"][app.id]["headroom"].memory)  # type: ignore[attr-defined]


def test_user_limits() -> None:
    """``TestLeafQueue.testUserLimits``: queue a (8.5 %, maximum 100 %, minimum-user-limit-percent
    50, user-limit-factor 2) on two 8 GB nodes; user_0's app_0 asks 2 × 3 GB, user_1's app_1
    2 × 1 GB.  app_0 gets 3 GB; then app_1 gets 1 GB although app_0 came first (user_0 is over
    its limit of 2 GB); then app_0 another 3 GB (limit ⌈(4 + 1 + 1) GB ÷ 2⌉ = 3 GB, and user_0
    uses 3 GB, not more): 7 GB, app_0 6 GB."""
    h = harness(with_values(FIXTURE, a__maximum_capacity="100", a__minimum_user_limit_percent="50",
                            a__user_limit_factor="2"), nodes=2)
    app_0 = h.submit(queue="a", user="user_0", tasks=2, resources="3072 mb, 1 vcores")
    app_1 = h.submit(queue="a", user="user_1", tasks=2, resources="1024 mb, 1 vcores")
    steps = []
    for node in ("n0000", "n0000", "n0001"):
        h.heartbeat(node)
        steps.append((used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)))
    assert steps == [(3 * GB, 3 * GB, 0), (4 * GB, 3 * GB, 1 * GB), (7 * GB, 6 * GB, 1 * GB)]


def test_compute_user_limit_and_set_headroom() -> None:
    """``TestLeafQueue.testComputeUserLimitAndSetHeadroom``, its cases 1–3: queue b (80 %,
    maximum 100 %) on two 8 GB nodes.  1: user_0 alone (limit 100 %, factor 1) runs 4 GB:
    headroom = user limit 13 GB − 4 GB = 9 GB.  2: user_1 runs 4 GB too: the queue's
    16 GB − 8 GB used caps both at 8 GB.  3: minimum-user-limit-percent 50, one 2 GB app
    each: limit ⌈13107 × 50 %⌉ rounded up to 7 GB, − 2 GB = 5 GB for both."""
    xml = with_values(FIXTURE, b__maximum_capacity="100")
    h = harness(xml, nodes=2)
    app_0 = h.submit(queue="b", user="user_0", tasks=1, resources="4096 mb, 1 vcores")
    h.heartbeat("n0000")
    assert headroom(h, app_0) == 9 * GB
    app_2 = h.submit(queue="b", user="user_1", tasks=1, resources="4096 mb, 1 vcores")
    h.heartbeat("n0001")
    assert used(h, "root.newroot.b") == 8 * GB
    assert headroom(h, app_0) == 8 * GB and headroom(h, app_2) == 8 * GB
    for app in (app_0, app_2):  # finishApplication + releaseResource
        for task in [t for t in h.scheduler._running_tasks.values() if t.job is app]:
            h.finish(task)
    h.set_allocations(with_values(xml, b__minimum_user_limit_percent="50"))
    app_1 = h.submit(queue="b", user="user_0", tasks=1, resources="2048 mb, 1 vcores")
    app_3 = h.submit(queue="b", user="user_1", tasks=1, resources="2048 mb, 1 vcores")
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    assert used(h, "root.newroot.b") == 4 * GB
    assert headroom(h, app_3) == 5 * GB and headroom(h, app_1) == 5 * GB


def test_headroom_with_max_cap() -> None:
    """``TestLeafQueue.testHeadroomWithMaxCap``: queue a (maximum 100 %, minimum-user-limit-percent
    50, user-limit-factor 2) on two 8 GB nodes; user_0's app_0 asks 2 GB, app_1 2 × 1 GB.
    app_0 gets 2 GB (headroom 1 GB: limit min(3 GB, 2 × 1392 MB) rounded up to 3 GB), app_1
    1 GB (headroom 0); with maximum-capacity 10 % and user_1's app_2 asking 1 GB, nothing
    more: user_0 is over its limit and the queue over its maximum (app_2's headroom 0); with
    app_1's request unset, still nothing for app_2, whose headroom stays 0 (the queue's
    maximum)."""
    xml = with_values(FIXTURE, a__maximum_capacity="100", a__minimum_user_limit_percent="50",
                      a__user_limit_factor="2")
    h = harness(xml, nodes=2)
    app_0 = h.submit(queue="a", user="user_0", tasks=1, resources="2048 mb, 1 vcores")
    app_1 = h.submit(queue="a", user="user_0", tasks=2, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (2 * GB, 2 * GB, 0)
    assert headroom(h, app_0) == 1 * GB and headroom(h, app_1) == 1 * GB
    h.heartbeat("n0000")
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (3 * GB, 2 * GB, 1 * GB)
    assert headroom(h, app_0) == 0 and headroom(h, app_1) == 0
    h.set_allocations(with_values(xml, a__maximum_capacity="10"))  # a.setMaxCapacity(.1f)
    app_2 = h.submit(queue="a", user="user_1", tasks=1, resources="1024 mb, 1 vcores")
    h.heartbeat("n0001")
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id), used(h, app_2.id)) == \
        (3 * GB, 2 * GB, 1 * GB, 0)
    assert headroom(h, app_0) == 0 and headroom(h, app_1) == 0 and headroom(h, app_2) == 0
    h.add_requests(app_1, [{"resources": "1024 mb, 1 vcores", "count": 0}])  # app_1's request unset
    h.heartbeat("n0001")
    assert (used(h, "root.newroot.a"), used(h, app_2.id)) == (3 * GB, 0)
    assert headroom(h, app_2) == 0  # hit queue max-cap


def am_limit(h: ClusterHarness, queue: str) -> tuple[int, int]:
    r = h.shares()["queues"][f"root.newroot.{queue}"]["am_limit"]
    return int(r.memory), int(r.vcores)


def test_initialize_queue_am_limits() -> None:
    """``TestLeafQueue.testInitializeQueue``'s AM limits on a 50 GB, 50-vcore cluster (five
    10 GB nodes): a (8.5 %, maximum 20 %) 1 GB, b (80 %, maximum 99 %) 5 GB — 10 % of each
    queue's current limit, its maximum capacity while the cluster is idle, rounded up to the
    1 GB minimum allocation, 1 vcore under ``DefaultResourceCalculator``
    (``LeafQueue.calculateAndGetAMResourceLimit``)."""
    h = harness(FIXTURE, nodes=5, node="10240 mb, 10 vcores")
    h.update()
    assert am_limit(h, "a") == (1 * GB, 1)
    assert am_limit(h, "b") == (5 * GB, 1)


def test_max_am_resource_per_queue_percent_after_queue_refresh() -> None:
    """``TestLeafQueue.testMaxAMResourcePerQueuePercentAfterQueueRefresh``: the fixture on
    100 × 16 GB with maximum-am-resource-percent 0.1: queue b's AM limit is 1600 GB × 0.99 ×
    0.1 = 162816 MB (its current limit, its 99 % maximum, as the queue is idle).  Refreshed to
    0.2 on 100 × 20 GB (here 125 × 16 GB), Hadoop's test gets 320 GB = 0.2 × b's guarantee
    (1600 GB): the test's freshly parsed queue has no current limit yet, and
    ``calculateAndGetAMResourceLimitPerPartition`` never goes below the guarantee.  A running
    RM gives the refreshed queue its limit (``CapacityScheduler.reinitialize`` →
    ``root.updateClusterResource``), so b's limit is first 0.2 × 1980 GB = 396 GB; once the
    other queues use more than b's guarantee leaves them (432 GB > 400 GB) its current limit
    falls below its guarantee and the AM limit is Hadoop's 320 GB."""
    def xml(percent: str) -> str:
        return with_values(FIXTURE, a__user_limit_factor="10", d__user_limit_factor="10").replace(
            "</configuration>", "<property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name>"
            f"<value>{percent}</value></property></configuration>")

    h = ClusterHarness(racks=1, nodes_per_rack=100, node_resources="16384 mb, 32 vcores", config=CONFIG,
                       allocations=xml("0.1"))
    h.update()
    assert am_limit(h, "b") == (162816, 1)
    h.set_allocations(xml("0.2"))
    for i in range(100, 125):
        h.add_node(f"n{i:04d}", resources="16384 mb, 32 vcores")
    h.update()
    assert am_limit(h, "b") == (396 * GB, 1)
    h.submit(queue="a", user="u", tasks=50, resources="8192 mb, 1 vcores")
    h.submit(queue="d", user="u", tasks=4, resources="8192 mb, 1 vcores")
    for _ in range(2):
        for i in range(125):
            h.heartbeat(f"n{i:04d}")
    h.update()
    assert (used(h, "root.newroot.a"), used(h, "root.newroot.d")) == (400 * GB, 32 * GB)
    assert am_limit(h, "b") == (320 * GB, 1)


def test_am_limit_holds_back_apps() -> None:
    """``LeafQueue.activateApplications``' AM limit: with 10 % of a 10 GB queue (1 GB), one
    1 GB AM runs and the next app's AM waits until the first app ends."""
    xml = ("<configuration>"
           "<property><name>yarn.scheduler.capacity.root.queues</name><value>a</value></property>"
           "<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>100</value></property>"
           "<property><name>yarn.scheduler.capacity.root.a.user-limit-factor</name><value>10</value></property>"
           "</configuration>")
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores", config=CONFIG,
                       allocations=xml)
    first = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    second = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    for _ in range(4):
        h.heartbeat("n0000")
    assert h.job(first).am_running and not h.job(second).am_running
    assert h.shares()["queues"]["root.a"]["am_used"].memory == 1 * GB


def test_maximum_applications_and_stopped_queues_refuse() -> None:
    """``LeafQueue.validateSubmitApplication``: a leaf takes at most maximum-applications
    apps; a STOPPED queue (or one under a STOPPED parent) takes none."""
    xml = ("<configuration>"
           "<property><name>yarn.scheduler.capacity.root.queues</name><value>a,p</value></property>"
           "<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>"
           "<property><name>yarn.scheduler.capacity.root.a.maximum-applications</name><value>2</value></property>"
           "<property><name>yarn.scheduler.capacity.root.p.capacity</name><value>50</value></property>"
           "<property><name>yarn.scheduler.capacity.root.p.queues</name><value>q</value></property>"
           "<property><name>yarn.scheduler.capacity.root.p.q.capacity</name><value>100</value></property>"
           "<property><name>yarn.scheduler.capacity.root.p.state</name><value>STOPPED</value></property>"
           "</configuration>")
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores", config=CONFIG,
                       allocations=xml)
    h.submit(queue="a", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="a", tasks=1, resources="1024 mb, 1 vcores")
    try:
        h.submit(queue="a", tasks=1, resources="1024 mb, 1 vcores")
        raise AssertionError("a third app was accepted")
    except SubmissionRejected as exc:
        assert "maximum-applications 2" in str(exc)
    try:
        h.submit(queue="q", tasks=1, resources="1024 mb, 1 vcores")
        raise AssertionError("a stopped queue accepted an app")
    except SubmissionRejected as exc:
        assert "STOPPED" in str(exc)


def test_refresh_queues_keeps_the_last_good_file() -> None:
    """``refreshQueues``: a bad file, a queue dropped while RUNNING, or a leaf turned into a
    parent while RUNNING is refused (``CapacitySchedulerQueueManager.validateQueueHierarchy``)
    and the last good file stays in force; running apps stay through a good reload."""
    from corescheduler.errors import CoreSchedulerError

    def xml(*props: tuple[str, str]) -> str:
        return "<configuration>" + "".join(
            f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in props
        ) + "</configuration>"

    good = xml(("root.queues", "a,b"), ("root.a.capacity", "50"), ("root.b.capacity", "50"))
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=good)
    app = h.submit(queue="a", user="u", tasks=2, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    refused = [
        xml(("root.queues", "a,b"), ("root.a.capacity", "50"), ("root.b.capacity", "40")),
        xml(("root.queues", "a"), ("root.a.capacity", "100")),
        xml(("root.queues", "a,b"), ("root.a.capacity", "50"), ("root.b.capacity", "50"), ("root.b.queues", "b1"),
            ("root.b.b1.capacity", "100")),
    ]
    for bad, fragment in zip(refused, ("to sum to 100", "cannot be deleted", "Can not convert the leaf queue")):
        with pytest.raises(CoreSchedulerError, match=fragment):
            h.set_allocations(bad)
        assert h.shares()["queues"]["root.b"]["capacity"] == 0.5
    h.set_allocations(xml(("root.queues", "a,b"), ("root.a.capacity", "60"), ("root.b.capacity", "40"),
                          ("root.b.state", "STOPPED")))
    assert h.shares()["queues"]["root.a"]["capacity"] == 0.6 and used(h, app.id) == 1 * GB
    h.heartbeat("n0000")
    assert used(h, app.id) == 2 * GB
    h.set_allocations(xml(("root.queues", "a"), ("root.a.capacity", "100")))  # b was STOPPED: it may go
    with pytest.raises(SubmissionRejected):
        h.submit(queue="b", user="u", tasks=1, resources="1024 mb, 1 vcores")


# ---------------------------------------------------------------------------- locality
def with_globals(xml: str, **values: str) -> str:
    """The fixture with global ``yarn.scheduler.capacity.<key>`` properties set
    (``node_locality_delay`` → ``node-locality-delay``; ``__`` → ``.``), added or replaced."""
    for name, value in values.items():
        prop = "yarn.scheduler.capacity." + name.replace("__", ".").replace("_", "-")
        element = f"<property><name>{prop}</name><value>{value}</value></property>"
        pattern = re.compile(rf"<property><name>{re.escape(prop)}</name><value>[^<]*</value></property>")
        xml = pattern.sub(element, xml) if pattern.search(xml) else xml.replace("</configuration>",
                                                                                  f"  {element}\n</configuration>")
    return xml


#: one container per heartbeat, as one ``LeafQueue.assignContainers`` call of Hadoop's tests gives
ONE_A_CALL = {"per_node_heartbeat__multiple_assignments_enabled": "false"}
GB_ASK = "1024 mb, 1 vcores"


def node_type(assignments: list) -> str | None:
    """The ``NodeType`` of a heartbeat's one container (None: none): node, rack, or off
    (``OFF_SWITCH``: off its places, or for an ask that names none)."""
    if not assignments:
        return None
    (a,) = assignments
    return a.locality if a.locality in ("node", "rack") else "off"


def outstanding(app: object) -> int:
    """``getOutstandingAsksCount(schedulerKey)``: the app's pending containers."""
    return sum(1 for t in app.tasks["task"] if t.state == "pending")  # type: ignore[attr-defined]


def test_locality_scheduling() -> None:
    """``TestLeafQueue.testLocalityScheduling``: queue b, three 8 GB nodes host_0…host_2 on
    rack_0…rack_2 (here n0000…n0002 on r00…r02).  app_0 asks at priority 1 for 1 GB on host_0,
    1 GB on host_1 and one more anywhere (ANY 3).  On host_2 (no ask there) three heartbeats
    assign nothing (1, 2, 3 missed opportunities; the off-switch delay is min(3 nodes,
    3 containers × locality wait factor min(4 ÷ 3, 1)) = 3), the fourth assigns OFF_SWITCH
    without resetting (4); host_0 and host_1 then get NODE_LOCAL containers, each resetting
    to 0.  Asks for 1 GB on host_1, two more on rack_1 and one more anywhere, node-locality-delay
    1: on node_3 (rack_1) nothing (1), then RACK_LOCAL (reset to 0), nothing (1); with
    rack-locality-full-reset false RACK_LOCAL without a reset (2), again (3).  Opportunities
    reset, 100 containers on host_0: on host_2 three heartbeats assign nothing (the delay is
    capped by the cluster's 3 nodes), the fourth OFF_SWITCH (4).

    Deviations of the model: Hadoop mocks 3 cluster nodes while node_3 exists; here node_3
    joins for the rack-local part (4 nodes: the node delay min(4, 1) and the off-switch delay
    are the same) and leaves, its containers finished, before the last part.  The delay and
    ``setRackLocalityFullReset`` are reloads of the file; ``resetSchedulingOpportunities`` is the
    plugin's method of that name."""
    xml = with_globals(with_values(FIXTURE, b__maximum_capacity="100"), **ONE_A_CALL)
    h = ClusterHarness(racks=3, nodes_per_rack=1, node_resources="8192 mb, 16 vcores", config=CONFIG,
                       allocations=xml)
    app = h.submit_app(queue="b", user="user_0", requests=[
        {"resources": GB_ASK, "count": 1, "locations": ["n0000"], "priority": 1},
        {"resources": GB_ASK, "count": 1, "locations": ["n0001"], "priority": 1},
        {"resources": GB_ASK, "count": 1, "priority": 1},  # one extra (ANY 3)
    ])
    cs = h.scheduler.plugins.instances["yarn_capacity"]

    def step(node: str) -> tuple[str | None, int, int]:
        return node_type(h.heartbeat(node)), cs.scheduling_opportunities(app, 1), outstanding(app)

    assert [step("n0002") for _ in range(4)] == [(None, 1, 3), (None, 2, 3), (None, 3, 3), ("off", 4, 2)]
    assert step("n0000") == ("node", 0, 1)
    assert step("n0001") == ("node", 0, 0)
    # Add 1 more request to check for RACK_LOCAL: host_1 1, rack_1 3, ANY 4
    h.add_node("n0003", rack="r01")
    h.add_requests(app, [{"resources": GB_ASK, "count": 1, "locations": ["n0001"], "priority": 1},
                         {"resources": GB_ASK, "count": 2, "locations": ["/r01"], "priority": 1},
                         {"resources": GB_ASK, "count": 1, "priority": 1}])
    assert outstanding(app) == 4
    h.set_allocations(with_globals(xml, node_locality_delay="1"))  # doReturn(1).when(a).getNodeLocalityDelay()
    assert step("n0003") == (None, 1, 4)
    assert step("n0003") == ("rack", 0, 3)
    assert step("n0003") == (None, 1, 3)
    h.set_allocations(with_globals(xml, node_locality_delay="1", rack_locality_full_reset="false"))
    assert step("n0003") == ("rack", 2, 2)
    assert step("n0003") == ("rack", 3, 1)
    # Add a request larger than cluster size to verify OFF_SWITCH delay is capped by cluster size
    for task in [t for t in h.scheduler._running_tasks.values() if t.node == "n0003"]:
        h.finish(task)
    h.remove_node("n0003")
    cs.reset_scheduling_opportunities(app, 1)
    h.add_requests(app, [{"resources": GB_ASK, "count": 100, "locations": ["n0000"], "priority": 1},
                         {"resources": GB_ASK, "count": 0, "priority": 1}])
    assert [step("n0002")[:2] for _ in range(4)] == [(None, 1), (None, 2), (None, 3), ("off", 4)]


def test_rack_locality_delay_scheduling() -> None:
    """``TestLeafQueue.testRackLocalityDelayScheduling``: node-locality-delay 2,
    rack-locality-additional-delay 1, five nodes; app_1 asks at priority 1 for 1 GB on host1
    (rack1), 1 GB on host2 (rack2) and one more anywhere.  On node2 (host3, rack2): nothing
    (1), nothing (2), RACK_LOCAL (reset).  On node3 (host4, rack3): nothing three times (1, 2,
    3: off-switch waits for more than min(5, 2 + 1) = 3), then OFF_SWITCH (4).  With the
    additional delay 10 the wait is capped by the cluster: nothing (5), OFF_SWITCH (6)."""
    xml = with_globals(with_values(FIXTURE, b__maximum_capacity="100"), node_locality_delay="2",
                       rack_locality_additional_delay="1", **ONE_A_CALL)
    h = ClusterHarness(racks=0, nodes_per_rack=0, config=CONFIG, allocations=xml)
    for name, rack in (("host1", "rack1"), ("host2", "rack2"), ("host3", "rack2"), ("host4", "rack3"),
                       ("host5", "rack4")):
        h.add_node(name, rack=rack, resources="8192 mb, 16 vcores")
    app = h.submit_app(queue="b", user="user_1", requests=[
        {"resources": GB_ASK, "count": 1, "locations": ["host1"], "priority": 1},
        {"resources": GB_ASK, "count": 1, "locations": ["host2"], "priority": 1},
        {"resources": GB_ASK, "count": 1, "priority": 1},
    ])
    cs = h.scheduler.plugins.instances["yarn_capacity"]

    def step(node: str) -> tuple[str | None, int, int]:
        return node_type(h.heartbeat(node)), cs.scheduling_opportunities(app, 1), outstanding(app)

    assert outstanding(app) == 3
    assert [step("host3") for _ in range(3)] == [(None, 1, 3), (None, 2, 3), ("rack", 0, 2)]
    assert [step("host4") for _ in range(4)] == [(None, 1, 2), (None, 2, 2), (None, 3, 2), ("off", 4, 1)]
    h.set_allocations(with_globals(xml, rack_locality_additional_delay="10"))  # capped by 5 nodes
    assert [step("host4") for _ in range(2)] == [(None, 5, 1), ("off", 6, 0)]


def test_relax_locality_false_skips_the_priority() -> None:
    """``assignContainersOnNode``'s ``canDelayTo``: an ask at priority 1 for host_0 only
    (``relax_locality`` false) never runs elsewhere, and skipping it takes its opportunity
    back (``subtractSchedulingOpportunity``), so the app's priority-2 ask, anywhere, runs on
    host_1 at once; on host_0 the priority-1 ask runs node-local."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 16 vcores", config=CONFIG,
                       allocations=with_globals(with_values(FIXTURE, b__maximum_capacity="100"), **ONE_A_CALL))
    app = h.submit_app(queue="b", user="user_0", requests=[
        {"resources": GB_ASK, "count": 1, "locations": ["n0000"], "relax_locality": False, "priority": 1},
        {"resources": "2048 mb, 1 vcores", "count": 1, "priority": 2},
    ])
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    got = h.heartbeat("n0001")
    assert [(a.resources.memory, node_type(got)) for a in got] == [(2048, "off")]
    assert cs.scheduling_opportunities(app, 1) == 0 and cs.scheduling_opportunities(app, 2) == 1
    got = h.heartbeat("n0001")
    assert got == [] and cs.scheduling_opportunities(app, 1) == 0
    assert node_type(h.heartbeat("n0000")) == "node"
