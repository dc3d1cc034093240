"""Hadoop's ``TestReservations`` (Hadoop 3.3, ``hadoop-yarn-server-resourcemanager/.../scheduler/
capacity/TestReservations.java``) through the public harness: reservations count in their
queue's use, and with ``reservations-continue-look-all-nodes`` (the default) an app holding a
reservation takes a container on another node by unreserving one
(``RegularContainerAllocator.assignContainer``).

The fixture is ``setupQueueConfiguration`` as a capacity-scheduler.xml
(tests/data/yarn_capacity/test-reservations.xml: root.newroot.a, 100 %).  Hadoop's tests call
``LeafQueue.assignContainers`` once per step; here a step is one heartbeat of the node giving
at most one container (``multiple-assignments-enabled`` false).  Their asks are ANY requests
at priorities 1 (the "AM", an ordinary container here as there), 5 (maps) and 10 (reduces).
"""

from __future__ import annotations

from paths import DATA
from test_yarn_capacity_leaf_queue import CONFIG, ONE_A_CALL, with_globals, with_values

from corescheduler.testing import ClusterHarness

FIXTURE = with_globals((DATA / "yarn_capacity" / "test-reservations.xml").read_text(), **ONE_A_CALL)
GB = 1024
NODES = ("n0000", "n0001", "n0002")


def ask(gb: int, count: int, priority: int) -> dict[str, object]:
    return {"resources": f"{gb * GB} mb, 1 vcores", "count": count, "priority": priority}


def harness(xml: str = FIXTURE, nodes: int = 3) -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=nodes, node_resources="8192 mb, 16 vcores", config=CONFIG,
                          allocations=xml)


def mapreduce_app(h: ClusterHarness, user: str = "user_0", reduce_first: bool = True) -> object:
    """app_0 of the tests: 2 GB at priority 1, 2 × 3 GB maps at 5, 2 × 5 GB reduces at 10."""
    asks = [ask(2, 1, 1), ask(5, 2, 10), ask(3, 2, 5)] if reduce_first else [ask(2, 1, 1), ask(3, 2, 5), ask(5, 2, 10)]
    return h.submit_app(queue="a", user=user, requests=asks)


def state(h: ClusterHarness, app: object, nodes: tuple[str, ...] = NODES) -> tuple[int, ...]:
    """(a's used with reservations, app_0's use, a's reserved, app_0's headroom, each node's
    allocated memory), in GB."""
    h.update()
    s = h.shares()
    q = s["queues"]["root.newroot.a"]
    return (int(q["used"].memory) // GB, int(h.job(app).usage.memory) // GB,  # type: ignore[arg-type]
            int(q["reserved"].memory) // GB, int(s["jobs"][app.id]["headroom"].memory) // GB,  # type: ignore[attr-defined]
            *(int(h.scheduler.cluster.nodes[n].used.memory) // GB for n in nodes))


def reserved_on(h: ClusterHarness, node: str) -> int:
    task = h.scheduler.cluster.nodes[node].reserved
    return int(task.resources.memory) // GB if task is not None else 0


def outstanding(app: object, gb: int) -> int:
    """``getOutstandingAsksCount`` of the priority whose containers are ``gb`` GB."""
    return sum(1 for t in app.tasks["task"] if t.state == "pending" and t.resources.memory == gb * GB)  # type: ignore[attr-defined]


def first_steps(h: ClusterHarness, app: object) -> None:
    """The tests' common start: node_0 2 GB, node_0 a 3 GB map, node_1 the other map, then
    the 5 GB reduce reserves node_0 (3 GB free): a uses 13 GB of which 5 GB reserved."""
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    h.heartbeat("n0001")
    h.heartbeat("n0000")


def test_reservation() -> None:
    """``TestReservations.testReservation``: three 8 GB nodes (24 GB).  2 GB, 3 GB, 3 GB;
    the 5 GB reduce reserves node_0 (a 13 GB, 5 GB reserved, headroom 24 − 13 = 11 GB: the
    reservation counts); the other reduce runs on node_2 (18 GB, headroom 6 GB, one reduce
    outstanding); node_1 then has room for the last: app_0 unreserves node_0 and runs it
    there (18 GB, nothing reserved, none outstanding)."""
    h = harness()
    app_0 = mapreduce_app(h)
    h.submit_app(queue="a", user="user_0", requests=[])  # app_1: asks for nothing
    h.heartbeat("n0000")  # "Only AM"
    assert state(h, app_0) == (2, 2, 0, 22, 2, 0, 0)
    h.heartbeat("n0000")  # "Only 1 map - simulating reduce"
    assert state(h, app_0) == (5, 5, 0, 19, 5, 0, 0)
    h.heartbeat("n0001")  # "Only 1 map to other node - simulating reduce"
    assert state(h, app_0) == (8, 8, 0, 16, 5, 3, 0)
    assert outstanding(app_0, 5) == 2 and reserved_on(h, "n0000") == 0
    h.heartbeat("n0000")  # "try to assign reducer (5G on node 0 and should reserve)"
    assert state(h, app_0) == (13, 8, 5, 11, 5, 3, 0)
    assert reserved_on(h, "n0000") == 5 and outstanding(app_0, 5) == 2
    h.heartbeat("n0002")  # "assign reducer to node 2"
    assert state(h, app_0) == (18, 13, 5, 6, 5, 3, 5)
    assert reserved_on(h, "n0000") == 5 and outstanding(app_0, 5) == 1
    h.heartbeat("n0001")  # "node_1 heartbeat and unreserves from node_0 in order to allocate on node_1"
    assert state(h, app_0) == (18, 18, 0, 6, 5, 8, 5)
    assert reserved_on(h, "n0000") == 0 and outstanding(app_0, 5) == 0


def test_reservation_no_continue_look() -> None:
    """``TestReservations.testReservationNoContinueLook``: the same with
    ``reservations-continue-look-all-nodes`` false: on node_1 app_0 does not unreserve node_0
    ("potentially stuck if AM doesn't handle"): a stays at 18 GB, 5 GB of it reserved, one
    reduce outstanding (``preCheckForNodeCandidateSet``: it should not allocate more)."""
    h = harness(with_globals(FIXTURE, reservations_continue_look_all_nodes="false"))
    app_0 = mapreduce_app(h)
    first_steps(h, app_0)
    assert state(h, app_0) == (13, 8, 5, 11, 5, 3, 0)
    h.heartbeat("n0002")
    assert state(h, app_0) == (18, 13, 5, 6, 5, 3, 5)
    assert h.heartbeat("n0001") == []
    assert state(h, app_0) == (18, 13, 5, 6, 5, 3, 5)
    assert reserved_on(h, "n0000") == 5 and outstanding(app_0, 5) == 1


def test_assign_containers_need_to_unreserve() -> None:
    """``TestReservations.testAssignContainersNeedToUnreserve``: two 8 GB nodes (16 GB).  After
    the reduce reserves node_0 (13 GB, headroom 3 GB), node_1 could take the 5 GB reduce, but
    8 + 5 reserved + 5 passes a's 16 GB by 2 GB: "could allocate but told need to unreserve
    first" — node_0 is unreserved and the reduce runs on node_1 (13 GB, nothing reserved, one
    reduce outstanding)."""
    h = harness(nodes=2)
    app_0 = mapreduce_app(h)
    h.submit_app(queue="a", user="user_0", requests=[])
    first_steps(h, app_0)
    assert state(h, app_0, NODES[:2]) == (13, 8, 5, 3, 5, 3)
    assert reserved_on(h, "n0000") == 5 and outstanding(app_0, 5) == 2
    h.heartbeat("n0001")
    assert state(h, app_0, NODES[:2]) == (13, 13, 0, 3, 5, 8)
    assert reserved_on(h, "n0000") == 0 and outstanding(app_0, 5) == 1


def test_assign_to_queue_and_user_heartbeats() -> None:
    """``TestReservations.testAssignToQueue`` / ``testAssignToUser``, their heartbeats (the
    calls of ``canAssignToThisQueue`` / ``canAssignToUser`` that follow are internals): two
    8 GB nodes, the maps asked before the reduces; after 2, 3 and 3 GB the reduce reserves
    node_0 although a would then hold 13 GB of 16 (8 used, 5 reserved; headroom 3 GB)."""
    for reduce_first in (True, False):
        h = harness(nodes=2)
        app_0 = mapreduce_app(h, reduce_first=reduce_first)
        h.heartbeat("n0000")
        assert state(h, app_0, NODES[:2]) == (2, 2, 0, 14, 2, 0)
        h.heartbeat("n0000")
        assert state(h, app_0, NODES[:2]) == (5, 5, 0, 11, 5, 0)
        h.heartbeat("n0001")
        assert state(h, app_0, NODES[:2]) == (8, 8, 0, 8, 5, 3)
        h.heartbeat("n0000")
        assert state(h, app_0, NODES[:2]) == (13, 8, 5, 3, 5, 3)
        assert reserved_on(h, "n0000") == 5


def test_reservations_none_available() -> None:
    """``TestReservations.testReservationsNoneAvailable``, from its "let it assign 5G to
    node_2" (its two steps with a 10 GB limit passed to ``assignContainers`` have no
    counterpart): app_0 asks 2 GB, 2 × 3 GB, one 5 GB reduce (priority 10) and 2 × 8 GB
    (priority 12).  After 2, 3, 3 GB, node_2 takes the reduce (13 GB, headroom 11 GB); node_0
    is reserved for an 8 GB container (21 GB, 8 GB reserved, headroom 3 GB); on node_2 the
    other 8 GB container does not fit and is not reserved either: 13 + 8 + 8 passes a's
    24 GB ("hits queue limits so can't reserve anymore")."""
    h = harness()
    app_0 = h.submit_app(queue="a", user="user_0", requests=[ask(2, 1, 1), ask(3, 2, 5), ask(5, 1, 10),
                                                               ask(8, 2, 12)])
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    h.heartbeat("n0001")
    assert state(h, app_0) == (8, 8, 0, 16, 5, 3, 0)
    h.heartbeat("n0002")  # "let it assign 5G to node_2"
    assert state(h, app_0) == (13, 13, 0, 11, 5, 3, 5)
    h.heartbeat("n0000")  # "reserve 8G node_0"
    assert state(h, app_0) == (21, 13, 8, 3, 5, 3, 5)
    assert h.heartbeat("n0002") == []  # "hits queue limits so can't reserve anymore"
    assert state(h, app_0) == (21, 13, 8, 3, 5, 3, 5)
    assert reserved_on(h, "n0002") == 0


def test_reservation_limit_other_users() -> None:
    """``TestReservations.testReservationLimitOtherUsers``: a with minimum-user-limit-percent
    25 and user-limit-factor 0.25 (a user limit of 6 GB), three 8 GB nodes.  user_0's app_0
    and user_1's app_1 each get 2 GB; app_0 then asks 2 × 8 GB and app_1 2 × 2 GB.  On node_0
    app_0 reserves 8 GB (a 12 GB, 8 GB reserved); on node_1 user_0 is beyond its limit with
    its reservation, and app_1 gets 2 GB (14 GB: app_1 4 GB)."""
    xml = with_values(FIXTURE.replace("root.newroot.a.capacity", "root.newroot.a.capacity"),
                      a__minimum_user_limit_percent="25", a__user_limit_factor="0.25")
    h = harness(xml)
    app_0 = h.submit_app(queue="a", user="user_0", requests=[ask(2, 1, 1)])
    app_1 = h.submit_app(queue="a", user="user_1", requests=[ask(2, 1, 1)])
    h.heartbeat("n0000")
    h.heartbeat("n0001")
    assert state(h, app_0)[:2] == (4, 2) and h.job(app_1).usage.memory == 2 * GB
    h.add_requests(app_0, [ask(8, 2, 5)])
    h.add_requests(app_1, [ask(2, 2, 5)])
    h.heartbeat("n0000")  # "add a reservation for app_0"
    assert state(h, app_0)[:3] == (12, 2, 8) and h.job(app_1).usage.memory == 2 * GB
    h.heartbeat("n0001")  # "next assignment is beyond user limit for user_0 but it should assign to app_1"
    assert state(h, app_0)[:3] == (14, 2, 8) and h.job(app_1).usage.memory == 4 * GB
    assert [int(h.scheduler.cluster.nodes[n].used.memory) // GB for n in NODES] == [2, 4, 0]


def test_get_app_to_unreserve() -> None:
    """``TestReservations.testGetAppToUnreserve`` / ``testFindNodeToUnreserve`` on the policy's
    ``unreserve_for`` (``FiCaSchedulerApp.getNodeIdToUnreserve``): app_0, with one container
    outstanding at priority 5 and as many reserved (so it must give one back), asks for 2 GB
    on node_2: with its only reservation 1 GB (node_0) none is large enough — nothing here;
    with 2 GB reserved on node_1 too, node_1 is unreserved; a reservation at another
    priority does not count; with more outstanding than reserved, nothing is unreserved."""
    h = harness()
    app_0 = h.submit_app(queue="a", user="user_0", requests=[ask(2, 1, 5)])
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    leaf = h.scheduler.resource_engine.tree.queues["root.newroot.a"]
    node_2 = h.scheduler.cluster.nodes["n0002"]
    size = app_0.tasks["task"][0].resources
    one, two = (size.__class__(memory=gb * GB, vcores=1) for gb in (1, 2))
    assert cs.unreserve_for(leaf, app_0, size, node_2, 5, 1, {}) is None  # "no reserved containers"
    assert cs.unreserve_for(leaf, app_0, size, node_2, 5, 1, {"n0000": (5, one)}) is False
    assert cs.unreserve_for(leaf, app_0, size, node_2, 5, 1, {"n0000": (5, one), "n0001": (5, two)}) == "n0001"
    assert cs.unreserve_for(leaf, app_0, size, node_2, 5, 1, {"n0001": (10, two)}) is None
    assert cs.unreserve_for(leaf, app_0, size, node_2, 5, 2, {"n0001": (5, two)}) is None
