"""More of Hadoop's YARN fair-scheduler unit tests, ported to the harness
(``TestFairScheduler`` and friends, Hadoop 3.3).  Each test names the Hadoop
class and method it ports; the numbers are Hadoop's.

Hadoop's fixture (``FairSchedulerTestBase.createConfiguration``) sizes asks with
minimum allocation 0 MB, increment 1024 MB and maximum 10240 MB, one container a
heartbeat (``assignmultiple`` false) and a reservation threshold of 0.09 ×
the increment; :func:`harness` sets the same."""

from __future__ import annotations

import pytest

from corescheduler.testing import ClusterHarness, SubmissionRejected

GB = 1024

#: FairSchedulerTestBase.createConfiguration, as corescheduler settings
FIXTURE = {
    "scheduler": {"mode": "resources", "reservation_threshold": "92 mb, 0 vcores"},
    "cluster": {"minimum_allocation": "0 mb, 1 vcores", "increment_allocation": "1024 mb, 1 vcores",
                "maximum_allocation": "10240 mb, 4 vcores"},
}


def harness(node: str, xml: str | None = None, nodes: int = 1, scheduler: dict | None = None,
            cluster: dict | None = None) -> ClusterHarness:
    cfg = {"scheduler": {**FIXTURE["scheduler"], **(scheduler or {})},
           "cluster": {**FIXTURE["cluster"], **(cluster or {})}}
    return ClusterHarness(racks=1, nodes_per_rack=nodes, node_resources=node, config=cfg,
                          allocations=xml or "<allocations/>")


def usage(h: ClusterHarness, queue: str) -> dict[str, int]:
    return h.shares()["queues"][queue]["usage"]


def fair(h: ClusterHarness, queue: str) -> int:
    return h.shares()["queues"][queue]["fair"]["memory"]


def test_child_max_resources() -> None:
    """``TestFairScheduler.testChildMaxResources``: queueA (parent) maxChildResources
    2048 MB/2 vc; apps in queueA.queueB and queueA.queueC ask 8 × 1 GB each on 8 GB: after 8
    heartbeats each runs 2; raised to 3072/3 and reloaded, 3 each after 4 more; lowered
    to 1024/1, still 3 each (no preemption)."""
    xml = """<allocations><queue name="queueA" type="parent">
      <maxChildResources>{}</maxChildResources></queue></allocations>"""
    h = harness("8192 mb, 8 vcores", xml.format("2048mb,2vcores"))
    a1 = h.submit(queue="queueA.queueB", user="user1", tasks=8, resources="1024 mb, 1 vcores")
    a2 = h.submit(queue="queueA.queueC", user="user1", tasks=8, resources="1024 mb, 1 vcores")
    h.update()
    for _ in range(8):
        h.heartbeat("n0000")
    assert h.running(a1) == 2 and h.running(a2) == 2
    h.set_allocations(xml.format("3072mb,3vcores"))
    h.update()
    for _ in range(4):
        h.heartbeat("n0000")
    assert h.running(a1) == 3 and h.running(a2) == 3
    h.set_allocations(xml.format("1024mb,1vcores"))
    h.update()
    h.heartbeat("n0000")
    assert h.running(a1) == 3 and h.running(a2) == 3


def test_fair_share_with_non_zero_weight_non_zero_min_res() -> None:
    """``TestFairScheduler.testFairShareWithNoneZeroWeightNoneZeroMinRes``: weights 0.5, min
    1024 MB each, asks of 4 GB each on 8 GB → 4096 each."""
    xml = """<allocations>
      <queue name="queueA"><minResources>1024 mb 1 vcores</minResources><weight>0.5</weight></queue>
      <queue name="queueB"><minResources>1024 mb 1 vcores</minResources><weight>0.5</weight></queue>
    </allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    h.submit(queue="queueA", user="user1", resources="4096 mb, 1 vcores")
    h.submit(queue="queueB", user="user1", resources="4096 mb, 1 vcores")
    h.update()
    assert fair(h, "root.queueA") == 4096 and fair(h, "root.queueB") == 4096


def reserved(h: ClusterHarness, node: str):
    """The container ``node`` holds reserved (``FSSchedulerNode.getReservedContainer``)."""
    return h.scheduler.cluster.nodes[node].reserved


def test_simple_container_reservation() -> None:
    """``TestFairScheduler.testSimpleContainerReservation``: 1024 MB node; queue1 takes it,
    queue2's 1024 MB ask reserves it; a second node's heartbeat serves queue2 there, and the
    old reservation goes at node 1's next heartbeat."""
    h = harness("1024 mb, 8 vcores")
    h.submit(queue="queue1", user="user1", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert usage(h, "root.queue1")["memory"] == 1024
    b = h.submit(queue="queue2", user="user1", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert usage(h, "root.queue2")["memory"] == 0
    assert reserved(h, "n0000") is not None and reserved(h, "n0000").job is b
    h.add_node("n0001", resources="1024 mb, 8 vcores")
    h.heartbeat("n0001")
    assert usage(h, "root.queue2")["memory"] == 1024
    assert reserved(h, "n0000") is not None and reserved(h, "n0000").job is b
    h.heartbeat("n0000")
    assert reserved(h, "n0000") is None


def test_scheduler_root_queue_metrics() -> None:
    """``TestFairScheduler.testSchedulerRootQueueMetrics``: root's reserved memory is 1024 MB
    while queue2 holds node 1 reserved, stays so after node 2 serves it, and is 0 after node
    1's next heartbeat."""
    h = harness("1024 mb, 8 vcores")
    h.submit(queue="queue1", user="user1", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    h.submit(queue="queue2", user="user1", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    root = h.scheduler.resource_engine.tree.root
    assert root.reserved.memory == 1024
    h.add_node("n0001", resources="1024 mb, 8 vcores")
    h.heartbeat("n0001")
    assert root.reserved.memory == 1024
    h.heartbeat("n0000")
    assert root.reserved.memory == 0


def reservations(h: ClusterHarness, app) -> int:
    """How many nodes ``app`` holds reserved (``FSAppAttempt.getNumReservations(null, true)``)."""
    return sum(1 for n in h.scheduler.cluster.nodes.values() if n.reserved is not None and n.reserved.job is app)


def test_off_switch_app_reservation_threshold() -> None:
    """``TestFairScheduler.testOffSwitchAppReservationThreshold``: reservable-nodes 0.5; three
    3072 MB nodes each run a 2048 MB container of queue1; a new app's 2048 MB ask reserves
    node 1, node 2, but not node 3 (ceil(3 × 0.5) = 2); a fourth node serves it (8192 MB
    used) and the next heartbeats of nodes 1-3 drop both reservations."""
    h = harness("3072 mb, 8 vcores", scheduler={"reservable_nodes": 0.5})
    h.add_node("n0001", resources="3072 mb, 8 vcores")
    h.add_node("n0002", resources="3072 mb, 8 vcores")
    for node in ("n0000", "n0001", "n0002"):
        h.submit(queue="queue1", user="user1", resources="2048 mb, 1 vcores")
        h.update()
        h.heartbeat(node)
    assert usage(h, "root.queue1")["memory"] == 6144
    app = h.submit(queue="queue1", user="user1", resources="2048 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert reservations(h, app) == 1
    h.update()
    h.heartbeat("n0001")
    assert reservations(h, app) == 2
    h.update()
    h.heartbeat("n0002")
    assert reservations(h, app) == 2
    h.add_node("n0003", resources="3072 mb, 8 vcores")
    h.update()
    h.heartbeat("n0003")
    assert usage(h, "root.queue1")["memory"] == 8192
    for node in ("n0000", "n0001", "n0002"):
        h.heartbeat(node)
    h.update()
    assert reservations(h, app) == 0


def test_rack_local_app_reservation_threshold() -> None:
    """``TestFairScheduler.testRackLocalAppReservationThreshold``: reservable-nodes 0.5; node 1
    on rack 1, nodes 2-4 on rack 2, each 3072 MB running a 2048 MB container of queue1; an
    app's ANY ask of 2048 MB reserves node 1, node 2, not node 3 (2 of 4 nodes); a fifth
    node (rack 2) serves it (10240 MB used) and the next heartbeats drop both reservations.

    Two departures, both where Hadoop's test leans on a quirk of its mocks: Hadoop's
    extra app with a rack-2 request only (no ``*`` request) is left out — with no ANY
    request ``FSAppAttempt.hasContainerForNode`` is false everywhere and its demand is 0,
    so it never takes part; and Hadoop's fifth node has node 4's host and port, so it
    replaces node 4 in the scheduler's node map and the test heartbeats "node 4" — here
    it is a node of its own and heartbeats as itself."""
    h = harness("3072 mb, 8 vcores", scheduler={"reservable_nodes": 0.5})
    for name in ("n0101", "n0102", "n0103"):
        h.add_node(name, rack="r01", resources="3072 mb, 8 vcores")
    for node in ("n0000", "n0101", "n0102", "n0103"):
        h.submit(queue="queue1", user="user1", resources="2048 mb, 1 vcores")
        h.update()
        h.heartbeat(node)
    assert usage(h, "root.queue1")["memory"] == 8192
    app = h.submit(queue="queue1", user="user1", resources="2048 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert reservations(h, app) == 1
    h.update()
    h.heartbeat("n0101")
    assert reservations(h, app) == 2
    h.update()
    h.heartbeat("n0102")
    assert reservations(h, app) == 2
    h.add_node("n0104", rack="r01", resources="3072 mb, 8 vcores")
    h.update()
    h.heartbeat("n0104")
    assert usage(h, "root.queue1")["memory"] == 10240
    for node in ("n0000", "n0101", "n0102", "n0103"):
        h.heartbeat(node)
    h.update()
    assert reservations(h, app) == 0


def test_reservation_threshold_with_assign_multiple() -> None:
    """``TestFairScheduler.testReservationThresholdWithAssignMultiple``: reservable-nodes 0,
    assignmultiple on, dynamic max assign off; an app of 10 × 1 GB on two 4 GB nodes gets
    8192 MB in one heartbeat each and holds no reservation."""
    h = harness("4096 mb, 4 vcores", scheduler={"reservable_nodes": 0.0, "assign_multiple": True,
                                                  "dynamic_max_assign": False})
    h.add_node("n0001", rack="r01", resources="4096 mb, 4 vcores")
    app = h.submit(queue="queue1", user="user1", tasks=10, resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    h.update()
    h.heartbeat("n0001")
    assert usage(h, "root.queue1")["memory"] == 8192
    assert reservations(h, app) == 0


def test_container_reservation_attempt_exceeding_queue_max() -> None:
    """``TestFairScheduler.testContainerReservationAttemptExceedingQueueMax``: queue1 max
    2048 MB/5 vc, queue2 max 2048/10, a 3072 MB/5 vc node; queue1 runs 2048, queue2 1024;
    queue1's second app asking 1024 MB would exceed queue1's max: no reservation."""
    xml = """<allocations><queue name="root">
      <queue name="queue1"><maxResources>2048mb,5vcores</maxResources></queue>
      <queue name="queue2"><maxResources>2048mb,10vcores</maxResources></queue>
    </queue></allocations>"""
    h = harness("3072 mb, 5 vcores", xml)
    h.submit(queue="queue1", user="user1", resources="2048 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert usage(h, "root.queue1")["memory"] == 2048
    h.submit(queue="queue2", user="user2", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert usage(h, "root.queue2")["memory"] == 1024
    app = h.submit(queue="queue1", user="user1", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert reservations(h, app) == 0


def test_request_am_resource_in_zero_fair_share_queue() -> None:
    """``TestFairScheduler.testRequestAMResourceInZeroFairShareQueue``: queue1 weight 0, max
    4096 MB, maxAMShare 0.5; queue2 weight 2; queue3 weight 0.000001; 8192 MB/20 vc node.
    With queue2 running 1 GB: a 3 GB AM in queue1 does not run (over 4096 × 0.5), a 2 GB AM
    does, and a 1 GB AM in queue3 (fair share 0) does."""
    xml = """<allocations>
      <queue name="queue1"><weight>0.0</weight><maxResources>4096mb,10vcores</maxResources>
        <maxAMShare>0.5</maxAMShare></queue>
      <queue name="queue2"><weight>2.0</weight></queue>
      <queue name="queue3"><weight>0.000001</weight></queue>
    </allocations>"""
    h = harness("8192 mb, 20 vcores", xml)
    h.submit(queue="root.queue2", user="user2", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    app1 = h.submit(queue="root.queue1", user="user1", tasks=1, resources="1024 mb, 1 vcores",
                    am_resources="3072 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app1) == 0
    app2 = h.submit(queue="root.queue1", user="user1", tasks=1, resources="1024 mb, 1 vcores",
                    am_resources="2048 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app2) == 1
    app3 = h.submit(queue="root.queue3", user="user1", tasks=1, resources="1024 mb, 1 vcores",
                    am_resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app3) == 1


def test_container_reservation_not_exceeding_queue_max() -> None:
    """``TestFairScheduler.testContainerReservationNotExceedingQueueMax``: queue1 max 3072 MB,
    queue2 max 2048, a 3072 MB/5 vc node; queue1 runs 2048, queue2 1024; queue1's second app
    (1024 MB) reserves the node and keeps it over another heartbeat; queue1's max lowered to
    2048 and queue2 asking again: the reservation is dropped, queue1 stays at 2048 and
    queue2 at 1024."""
    xml = """<allocations><queue name="root">
      <queue name="queue1"><maxResources>{}mb,10vcores</maxResources></queue>
      <queue name="queue2"><maxResources>2048mb,10vcores</maxResources></queue>
    </queue></allocations>"""
    h = harness("3072 mb, 5 vcores", xml.format(3072))
    h.submit(queue="queue1", user="user1", resources="2048 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert usage(h, "root.queue1")["memory"] == 2048
    h.submit(queue="queue2", user="user2", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert usage(h, "root.queue2")["memory"] == 1024
    app = h.submit(queue="queue1", user="user1", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert reservations(h, app) == 1
    h.heartbeat("n0000")
    assert reservations(h, app) == 1
    h.set_allocations(xml.format(2048))
    h.submit(queue="queue2", user="user2", resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    assert usage(h, "root.queue1")["memory"] == 2048
    assert reservations(h, app) == 0
    assert usage(h, "root.queue2")["memory"] == 1024


def test_reservation_threshold_gates_reservations() -> None:
    """``TestFairScheduler.testReservationThresholdGatesReservations``: drf queues, threshold
    multiple 2 (2048 MB / 2 vcores); queue1 fills a 4096 MB/4 vc node; queue2's 1024 MB/1 vc
    ask (below the threshold) reserves nothing; asked again at the same priority as
    1024 MB/3 vc (above it, by vcores) it reserves; a 1024 MB/4 vc node serves it (3 vcores
    used) and node 1's next heartbeat drops the reservation."""
    xml = "<allocations><defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy></allocations>"
    h = harness("4096 mb, 4 vcores", xml, scheduler={"reservation_threshold": "2048 mb, 2 vcores"})
    h.submit_app(queue="queue1", user="user1", requests=[{"resources": "4096 mb, 4 vcores", "priority": 1}])
    h.update()
    h.heartbeat("n0000")
    assert usage(h, "root.queue1")["memory"] == 4096
    app = h.submit_app(queue="queue2", user="user1", requests=[{"resources": "1024 mb, 1 vcores", "priority": 1}])
    h.update()
    h.heartbeat("n0000")
    assert usage(h, "root.queue2")["memory"] == 0
    assert reservations(h, app) == 0
    # YARN's AppSchedulingInfo.updateResourceRequests: the ask at priority 1 for "*" is replaced
    h.add_requests(app, [{"resources": "1024 mb, 3 vcores", "priority": 1}])
    assert h.demand(app) == {"memory": 1024, "vcores": 3}
    h.update()
    h.heartbeat("n0000")
    assert usage(h, "root.queue2")["memory"] == 0
    assert reserved(h, "n0000").job is app and reserved(h, "n0000").resources.vcores == 3
    h.add_node("n0001", resources="1024 mb, 4 vcores")
    h.heartbeat("n0001")
    assert usage(h, "root.queue2")["vcores"] == 3
    assert reserved(h, "n0000") is not None
    h.heartbeat("n0000")
    assert reserved(h, "n0000") is None


def leaves(h: ClusterHarness) -> set[str]:
    return {name for name, q in h.shares()["queues"].items() if q["leaf"]}


def test_user_as_default_queue() -> None:
    """``TestFairScheduler.testUserAsDefaultQueue``: user-as-default-queue true: an app for
    "default" from user1 runs in root.user1, root.default has none."""
    h = harness("8192 mb, 8 vcores", scheduler={"user_as_default_queue": True})
    app = h.submit(queue="default", user="user1")
    assert h.queue_of(app) == "root.user1"
    assert h.shares()["queues"]["root.user1"]["runnable_apps"] == 1
    assert h.shares()["queues"]["root.default"]["runnable_apps"] == 0


def test_not_user_as_default_queue() -> None:
    """``TestFairScheduler.testNotUserAsDefaultQueue``: user-as-default-queue false: user2's
    app for "default" runs in root.default and no root.user2 is made."""
    h = harness("8192 mb, 8 vcores", scheduler={"user_as_default_queue": False})
    app = h.submit(queue="default", user="user2")
    assert h.queue_of(app) == "root.default"
    assert h.shares()["queues"]["root.default"]["runnable_apps"] == 1
    assert "root.user2" not in h.shares()["queues"]


@pytest.mark.parametrize(("queue", "message"), [("", "with an empty queue name"), (".A", "illegal queue name '.A'"),
                                              ("A.", "illegal queue name 'A.'")])
def test_empty_queue_name_and_names_with_bad_periods_are_rejected(queue: str, message: str) -> None:
    """``TestFairScheduler.testEmptyQueueName`` and ``testQueueuNameWithPeriods``: an app for
    "", ".A" or "A." is rejected and no queue is made (only root.default stays)."""
    h = harness("8192 mb, 8 vcores")
    with pytest.raises(SubmissionRejected, match=message):
        h.submit(queue=queue, user="user1")
    assert leaves(h) == {"root.default"} and h.scheduler.jobs == {}


def test_queue_name_with_a_period_inside_is_accepted() -> None:
    """``TestFairScheduler.testQueueuNameWithPeriods``: "A.B" is accepted: a second leaf,
    root.A.B."""
    h = harness("8192 mb, 8 vcores")
    app = h.submit(queue="A.B", user="user1")
    assert h.queue_of(app) == "root.A.B" and leaves(h) == {"root.default", "root.A.B"}


def test_assign_to_queue() -> None:
    """``TestFairScheduler.testAssignToQueue``: user-as-default-queue: ("default", asterix)
    → root.asterix, ("notdefault", obelix) → root.notdefault."""
    h = harness("8192 mb, 8 vcores", scheduler={"user_as_default_queue": True})
    assert h.queue_of(h.submit(queue="default", user="asterix")) == "root.asterix"
    assert h.queue_of(h.submit(queue="notdefault", user="obelix")) == "root.notdefault"


def test_assign_to_non_leaf_queue_is_refused() -> None:
    """``TestFairScheduler.testAssignToNonLeafQueueReturnsNull``: with root.child1.granchild
    and root.child2 made, an app for root.child1 (a parent) is refused, one for root.child2
    is placed."""
    h = harness("8192 mb, 8 vcores", scheduler={"user_as_default_queue": True})
    h.submit(queue="root.child1.granchild", user="u")
    h.submit(queue="root.child2", user="u")
    with pytest.raises(SubmissionRejected):
        h.submit(queue="root.child1", user="tintin")
    assert h.queue_of(h.submit(queue="root.child2", user="snowy")) == "root.child2"


def simple_groups(user: str) -> list[str]:
    """Hadoop's ``SimpleGroupsMapping``: user → usergroup, usersubgroup1, usersubgroup2."""
    return [user + "group", user + "subgroup1", user + "subgroup2"]


def test_queue_placement_with_policy() -> None:
    """``TestFairScheduler.testQueuePlacementWithPolicy``: specified, user(create=false),
    primaryGroup(create=false), secondaryGroupExistingQueue(create=false), default, with
    leaves root.user1, root.user3group, root.user4subgroup1, root.user4subgroup2 and
    root.user5subgroup2 configured (``SimpleGroupsMapping``); then user(create=false),
    specified, default."""
    queues = "".join(f'<queue name="{q}"/>' for q in ("user1", "user3group", "user4subgroup1",
                                                      "user4subgroup2", "user5subgroup2"))
    first = f"""<allocations>{queues}<queuePlacementPolicy>
      <rule name="specified"/><rule name="user" create="false"/>
      <rule name="primaryGroup" create="false"/><rule name="secondaryGroupExistingQueue" create="false"/>
      <rule name="default"/></queuePlacementPolicy></allocations>"""
    h = harness("8192 mb, 8 vcores", first)

    def place(queue: str, user: str) -> str | None:
        return h.queue_of(h.submit(queue=queue, user=user, groups=simple_groups(user)))

    assert place("somequeue", "user1") == "root.somequeue"
    assert place("default", "user1") == "root.user1"
    assert place("default", "user3") == "root.user3group"
    assert place("default", "user4") == "root.user4subgroup1"
    assert place("default", "user5") == "root.user5subgroup2"
    assert place("default", "otheruser") == "root.default"
    h.set_allocations(f"""<allocations>{queues}<queuePlacementPolicy>
      <rule name="user" create="false"/><rule name="specified"/><rule name="default"/>
      </queuePlacementPolicy></allocations>""")
    assert place("somequeue", "user1") == "root.user1"
    assert place("somequeue", "otheruser") == "root.somequeue"
    assert place("default", "otheruser") == "root.default"


def steady(h: ClusterHarness, queue: str) -> int:
    return h.shares()["queues"][queue]["steady"]["memory"]


def test_fair_share_and_weights_in_nested_user_queue_rule() -> None:
    """``TestFairScheduler.testFairShareAndWeightsInNestedUserQueueRule``: parentq (parent,
    min 1024 MB); rules nestedUserQueue(specified create=false), default; 16 GB; user1 and
    user2 submit to root.parentq, user3 to root.default: root.parentq.user1 and .user2 get a
    quarter of the node each, fair and steady, with weight 1."""
    xml = """<allocations>
      <queue name="parentq" type="parent"><minResources>1024mb,0vcores</minResources></queue>
      <queuePlacementPolicy>
        <rule name="nestedUserQueue"><rule name="specified" create="false"/></rule>
        <rule name="default"/>
      </queuePlacementPolicy></allocations>"""
    capacity = 16 * GB
    h = harness(f"{capacity} mb, 16 vcores", xml)
    a1 = h.submit(queue="root.parentq", user="user1", resources="10240 mb, 1 vcores")
    a2 = h.submit(queue="root.parentq", user="user2", resources="10240 mb, 1 vcores")
    h.submit(queue="root.default", user="user3", resources="10240 mb, 1 vcores")
    h.update()
    assert h.queue_of(a1) == "root.parentq.user1" and h.queue_of(a2) == "root.parentq.user2"
    for q in ("root.parentq.user1", "root.parentq.user2"):
        assert fair(h, q) == capacity // 4 and steady(h, q) == capacity // 4
        assert h.scheduler.allocations.queue_config().weight(q) == 1.0


def test_hierarchical_queue_allocation_file_parsing() -> None:
    """``TestFairScheduler.testHierarchicalQueueAllocationFileParsing``: queueA, and queueB
    holding queueC and queueD: the leaves are root.queueA, root.queueB.queueC,
    root.queueB.queueD and root.default."""
    xml = """<allocations>
      <queue name="queueA"><minResources>2048mb,0vcores</minResources></queue>
      <queue name="queueB"><minResources>2048mb,0vcores</minResources>
        <queue name="queueC"><minResources>2048mb,0vcores</minResources></queue>
        <queue name="queueD"><minResources>2048mb,0vcores</minResources></queue>
      </queue></allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    assert leaves(h) == {"root.queueA", "root.queueB.queueC", "root.queueB.queueD", "root.default"}


def test_configure_root_queue() -> None:
    """``TestFairScheduler.testConfigureRootQueue``: root's own schedulingPolicy (drf) and
    preemption settings (100 s, 120 s, 0.5) win over the defaults (300 s, 200 s, 0.6)."""
    xml = """<allocations>
      <defaultQueueSchedulingPolicy>fair</defaultQueueSchedulingPolicy>
      <queue name="root"><schedulingPolicy>drf</schedulingPolicy>
        <queue name="child1"><minResources>1024mb,1vcores</minResources></queue>
        <queue name="child2"><minResources>1024mb,4vcores</minResources></queue>
        <fairSharePreemptionTimeout>100</fairSharePreemptionTimeout>
        <minSharePreemptionTimeout>120</minSharePreemptionTimeout>
        <fairSharePreemptionThreshold>.5</fairSharePreemptionThreshold>
      </queue>
      <defaultFairSharePreemptionTimeout>300</defaultFairSharePreemptionTimeout>
      <defaultMinSharePreemptionTimeout>200</defaultMinSharePreemptionTimeout>
      <defaultFairSharePreemptionThreshold>.6</defaultFairSharePreemptionThreshold>
    </allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    tree = h.scheduler.resource_engine.tree
    assert tree.root.policy == "drf"
    assert {"root.child1", "root.child2"} <= leaves(h)
    qc = h.scheduler.allocations.queue_config()
    assert qc.fair_share_preemption_timeout("root") == 100
    assert qc.min_share_preemption_timeout("root") == 120
    assert abs(qc.fair_share_preemption_threshold("root") - 0.5) < 0.01


def test_multiple_containers_waiting_for_reservation() -> None:
    """``TestFairScheduler.testMultipleContainersWaitingForReservation``: a full 1024 MB node;
    queue2's and queue3's 1024 MB asks: one reserves the node, the other gets nothing."""
    h = harness("1024 mb, 8 vcores")
    h.submit(queue="queue1", user="user1", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    a1 = h.submit(queue="queue2", user="user2", resources="1024 mb, 1 vcores")
    a2 = h.submit(queue="queue3", user="user3", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert reservations(h, a1) == 1 and reservations(h, a2) == 0


def test_user_max_running_apps_lets_a_running_app_ask_again() -> None:
    """``TestFairScheduler.testUserMaxRunningApps``: user1 may run 1 app; app 1 runs, app 2
    does not; app 1 asking for another container gets it (2 live)."""
    h = harness("8192 mb, 8 vcores", '<allocations><user name="user1"><maxRunningApps>1</maxRunningApps>'
                                     '</user></allocations>')
    a1 = h.submit_app(queue="queue1", user="user1", requests=[{"resources": "1024 mb, 1 vcores", "priority": 1}])
    h.update()
    h.heartbeat("n0000")
    assert h.running(a1) == 1
    a2 = h.submit_app(queue="queue1", user="user1", requests=[{"resources": "1024 mb, 1 vcores", "priority": 1}])
    h.update()
    h.heartbeat("n0000")
    assert h.running(a2) == 0
    h.add_requests(a1, [{"resources": "1024 mb, 1 vcores", "priority": 1, "count": 1}])
    h.update()
    h.heartbeat("n0000")
    assert h.running(a1) == 2


QUEUE_MAX = """<allocations><queue name="root"><queue name="queue1"><maxRunningApps>{}</maxRunningApps>
  </queue></queue></allocations>"""
USER_MAX = """<allocations><queue name="root"><queue name="queue1"><maxRunningApps>10</maxRunningApps>
  </queue></queue><user name="user1"><maxRunningApps>{}</maxRunningApps></user></allocations>"""


def _four_apps(h: ClusterHarness) -> list:
    apps = []
    for _ in range(4):
        apps.append(h.submit(queue="queue1", user="user1", resources="1024 mb, 1 vcores"))
        h.update()
        h.heartbeat("n0000")
    return apps


@pytest.mark.parametrize("xml", [QUEUE_MAX, USER_MAX], ids=["queue", "user"])
def test_increase_max_running_apps_on_the_fly(xml: str) -> None:
    """``TestFairScheduler.testIncreaseQueueMaxRunningAppsOnTheFly`` /
    ``testIncreaseUserMaxRunningAppsOnTheFly`` (``testIncreaseQueueSettingOnTheFlyInternal``):
    limit 1, four apps of one container: only app 1 runs; raised to 3 and reloaded, apps 2
    and 3 run at the next heartbeats, app 4 not; app 1 removed, app 4 runs."""
    h = harness("8192 mb, 8 vcores", xml.format(1))
    a1, a2, a3, a4 = _four_apps(h)
    assert [h.running(a) for a in (a1, a2, a3, a4)] == [1, 0, 0, 0]
    h.set_allocations(xml.format(3))
    h.update()
    h.heartbeat("n0000")
    assert h.running(a2) == 1
    h.update()
    h.heartbeat("n0000")
    assert h.running(a3) == 1
    h.update()
    h.heartbeat("n0000")
    assert h.running(a4) == 0
    h.kill_app(a1)
    h.update()
    h.heartbeat("n0000")
    assert h.running(a4) == 1


@pytest.mark.parametrize("xml", [QUEUE_MAX, USER_MAX], ids=["queue", "user"])
def test_decrease_max_running_apps_on_the_fly(xml: str) -> None:
    """``TestFairScheduler.testDecreaseQueueMaxRunningAppsOnTheFly`` /
    ``testDecreaseUserMaxRunningAppsOnTheFly`` (``testDecreaseQueueSettingOnTheFlyInternal``):
    limit 3, four apps: apps 1-3 run, app 4 waits; lowered to 1: 2 and 3 keep running, 4
    waits after apps 1 and 2 end, and runs once app 3 ends too."""
    h = harness("8192 mb, 8 vcores", xml.format(3))
    a1, a2, a3, a4 = _four_apps(h)
    assert [h.running(a) for a in (a1, a2, a3, a4)] == [1, 1, 1, 0]
    h.set_allocations(xml.format(1))
    for _ in range(3):
        h.update()
        h.heartbeat("n0000")
    assert h.running(a2) == 1 and h.running(a3) == 1 and h.running(a4) == 0
    for app in (a1, a2):
        h.kill_app(app)
        h.update()
        h.heartbeat("n0000")
        assert h.running(a4) == 0
    h.kill_app(a3)
    h.update()
    h.heartbeat("n0000")
    assert h.running(a4) == 1


def test_reservation_with_multiple_priorities() -> None:
    """``TestFairScheduler.testReservationWithMultiplePriorities``: a 2048 MB/2 vc node; app1
    runs 1024/1; app2 asks 2048/2 at priority 2 and reserves the node; it then asks 2048/2
    at priority 1; app1's container ends: the heartbeat runs app2's reserved priority-2 ask,
    not the new priority-1 one."""
    h = harness("2048 mb, 2 vcores")
    app1 = h.submit_app(queue="queue", user="user", requests=[{"resources": "1024 mb, 1 vcores", "priority": 1}])
    h.update()
    (first,) = h.heartbeat("n0000")
    assert h.running(app1) == 1
    app2 = h.submit_app(queue="queue1", user="user1", requests=[{"resources": "2048 mb, 2 vcores", "priority": 2}])
    h.update()
    h.heartbeat("n0000")
    assert reservations(h, app2) == 1
    h.add_requests(app2, [{"resources": "2048 mb, 2 vcores", "priority": 1}])
    reserved_task = reserved(h, "n0000")
    h.finish(first)
    (ran,) = h.heartbeat("n0000")
    assert h.running(app2) == 1
    assert ran.task == reserved_task.id  # the priority-2 container


def test_acl_submit_application() -> None:
    """``TestFairScheduler.testAclSubmitApplication``: root's ACLs " " (nobody), queue1's
    "norealuserhasthisname": that user's app is accepted, norealuserhasthisname2's refused."""
    xml = """<allocations><queue name="root"><aclSubmitApps> </aclSubmitApps>
      <aclAdministerApps> </aclAdministerApps>
      <queue name="queue1"><aclSubmitApps>norealuserhasthisname</aclSubmitApps>
        <aclAdministerApps>norealuserhasthisname</aclAdministerApps></queue>
    </queue></allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    app1 = h.submit(queue="queue1", user="norealuserhasthisname", resources="1024 mb, 1 vcores")
    assert h.queue_of(app1) == "root.queue1"
    with pytest.raises(SubmissionRejected):
        h.submit(queue="queue1", user="norealuserhasthisname2", resources="1024 mb, 1 vcores")
    assert list(h.scheduler.jobs) == [app1.id]


def test_multiple_nodes_single_rack_request() -> None:
    """``TestFairScheduler.testMultipleNodesSingleRackRequest``: nodes 1 and 2 (1024 MB, rack
    1), node 3 on rack 2 never joins; one app asks 2 containers at nodes 1, 2, 3 and both
    racks: node 1's heartbeat runs one, node 2's the other."""
    h = harness("1024 mb, 8 vcores", nodes=2)
    app = h.submit_app(queue="queue1", user="user1", requests=[
        {"resources": "1024 mb, 1 vcores", "count": 2, "priority": 1,
         "locations": ["n0000", "n0001", "n0100", "/r00", "/r01", "*"]}])
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 1
    h.update()
    h.heartbeat("n0001")
    assert h.running(app) == 2


def test_fifo_within_queue() -> None:
    """``TestFairScheduler.testFifoWithinQueue``: queue1 fifo, a 3072 MB/3 vc node, two apps
    of 2 × 1 GB: app 1 gets the first two containers, app 2 the third."""
    xml = '<allocations><queue name="queue1"><schedulingPolicy>fifo</schedulingPolicy></queue></allocations>'
    h = harness("3072 mb, 3 vcores", xml)
    a1 = h.submit(queue="queue1", user="user1", tasks=2, resources="1024 mb, 1 vcores")
    a2 = h.submit(queue="queue1", user="user1", tasks=2, resources="1024 mb, 1 vcores")
    h.update()
    seen = []
    for _ in range(3):
        h.heartbeat("n0000")
        seen.append((h.running(a1), h.running(a2)))
    assert seen == [(1, 0), (2, 0), (2, 1)]


def _max_assign(h: ClusterHarness, value: int) -> None:
    """Hadoop's tests set ``scheduler.maxAssign`` between heartbeats; so does this."""
    from attrs import evolve

    rs = h.scheduler.resource_engine
    rs.settings = evolve(rs.settings, max_assign=value)


@pytest.mark.parametrize("size", ["1024 mb, 1 vcores", "0 mb, 1 vcores"], ids=["1GB", "zero_memory"])
def test_fixed_max_assign(size: str) -> None:
    """``TestFairScheduler.testFixedMaxAssign`` / ``testMaxAssignWithZeroMemoryContainers``:
    assignmultiple, no dynamic max assign, a 16 GB/16 vc node, an app of 8 containers
    (1024 MB or 0 MB, 1 vc each): maxAssign 2 → 2 containers; maxAssign -1 → all 8."""
    h = harness("16384 mb, 16 vcores", scheduler={"assign_multiple": True, "dynamic_max_assign": False})
    app = h.submit(queue="root.default", user="user", tasks=8, resources=size)
    _max_assign(h, 2)
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 2
    _max_assign(h, -1)
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 8


def test_dynamic_max_assign() -> None:
    """``TestFairScheduler.testDynamicMaxAssign``: assignmultiple with dynamic max assign, an
    8 GB/8 vc node, 12 × 1 GB asked: maxAssign does not matter; 5 containers (floor(8/2)
    + 1), then 2 more (floor(3/2) + 1), then 1 (the node is full)."""
    h = harness("8192 mb, 8 vcores", scheduler={"assign_multiple": True})
    app = h.submit(queue="root.default", user="user", tasks=12, resources="1024 mb, 1 vcores")
    _max_assign(h, 2)
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 5
    _max_assign(h, 4)
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 7
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 8


def test_assign_container() -> None:
    """``TestFairScheduler.testAssignContainer``: two 8 GB nodes; "fifo" (fifo policy) holds
    apps 1 and 4, fairParent.fairChild1 app 2, fairParent.fairChild2 app 3, each of 4 × 1 GB.
    After every 4 heartbeats (nodes alternating) fifo got 2 (app 1 first, then app 4) and each
    fairChild 1."""
    xml = '<allocations><queue name="fifo"><schedulingPolicy>fifo</schedulingPolicy></queue></allocations>'
    h = harness("8192 mb, 8 vcores", xml, nodes=2)
    app1 = h.submit(queue="fifo", user="user1", tasks=4, resources="1024 mb, 1 vcores")
    app2 = h.submit(queue="fairParent.fairChild1", user="user1", tasks=4, resources="1024 mb, 1 vcores")
    app3 = h.submit(queue="fairParent.fairChild2", user="user1", tasks=4, resources="1024 mb, 1 vcores")
    app4 = h.submit(queue="fifo", user="user1", tasks=4, resources="1024 mb, 1 vcores")
    h.update()
    for i in range(8):
        h.heartbeat("n0000")
        h.heartbeat("n0001")
        if (i + 1) % 2 == 0:
            if i < 4:
                assert (h.running(app1), h.running(app4)) == (i + 1, 0), i
            else:
                assert (h.running(app1), h.running(app4)) == (4, i - 3), i
            assert h.running(app2) == (i + 1) // 2 and h.running(app3) == (i + 1) // 2, i


def test_strict_locality() -> None:
    """``TestFairScheduler.testStrictLocality``: two 1024 MB nodes on one rack; an ask for node
    1 only (rack and ANY not relaxed): ten heartbeats of node 2 give nothing and reserve
    nothing; node 1's gives the container."""
    h = harness("1024 mb, 8 vcores", nodes=2)
    app = h.submit_app(queue="queue1", user="user1", requests=[
        {"resources": "1024 mb, 1 vcores", "locations": ["n0000"], "relax_locality": False, "priority": 1}])
    h.update()
    for _ in range(10):
        h.heartbeat("n0001")
        assert h.running(app) == 0 and reservations(h, app) == 0
    h.heartbeat("n0000")
    assert h.running(app) == 1


def test_cancel_strict_locality() -> None:
    """``TestFairScheduler.testCancelStrictLocality``: the same node-1-only ask; node 2 gets
    nothing in ten heartbeats; the ask cancelled and made again relaxed, node 2's next
    heartbeat runs it."""
    h = harness("1024 mb, 8 vcores", nodes=2)
    strict = {"resources": "1024 mb, 1 vcores", "locations": ["n0000"], "relax_locality": False, "priority": 1}
    app = h.submit_app(queue="queue1", user="user1", requests=[strict])
    h.update()
    for _ in range(10):
        h.heartbeat("n0001")
        assert h.running(app) == 0
    h.add_requests(app, [{**strict, "count": 0}, {"resources": "1024 mb, 1 vcores", "priority": 1}])
    h.heartbeat("n0001")
    assert h.running(app) == 1


@pytest.mark.parametrize(("place", "runs"), [(["/r01"], True), (["n0100"], True), (["/invalid"], False),
                                             (["invalid"], False)],
                         ids=["Rack", "Node", "RackInvalid", "NodeInvalid"])
def test_am_strict_locality(place: list[str], runs: bool) -> None:
    """``TestFairScheduler.testAMStrictLocality{Rack,Node,RackInvalid,NodeInvalid}``: node 1 on
    rack 1, node 2 on rack 2 (1024 MB each); an ask not relaxed past node 2's rack (or node 2
    itself): node 2's heartbeat runs it there and node 1 has nothing; asked at a rack or node
    that does not exist, nothing runs anywhere."""
    h = harness("1024 mb, 8 vcores")
    h.add_node("n0100", rack="r01", resources="1024 mb, 8 vcores")
    app = h.submit_app(queue="queue1", user="user1", requests=[
        {"resources": "1024 mb, 1 vcores", "locations": place, "relax_locality": False, "priority": 1}])
    h.update()
    h.heartbeat("n0100")
    assert h.running(app) == (1 if runs else 0)
    on = {n: sum(1 for t in h.scheduler.ledger.running.values() if t.node == n) for n in ("n0000", "n0100")}
    assert on == {"n0000": 0, "n0100": 1 if runs else 0}


def test_reservations_strict_locality() -> None:
    """``TestFairScheduler.testReservationsStrictLocality``: two 1024 MB/1 vc nodes; an ask for
    node 2 only: node 1's heartbeats neither run it nor reserve node 1."""
    h = harness("1024 mb, 1 vcores", nodes=2)
    app = h.submit_app(queue="queue1", user="user1", requests=[
        {"resources": "1024 mb, 1 vcores", "locations": ["n0001"], "relax_locality": False, "priority": 1}])
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 0
    h.heartbeat("n0000")
    assert reservations(h, app) == 0


def test_no_more_cpu_on_node() -> None:
    """``TestFairScheduler.testNoMoreCpuOnNode``: a 2048 MB/1 vc node, 2 × 1024 MB/1 vc asked:
    one runs, the second heartbeat adds none."""
    h = harness("2048 mb, 1 vcores")
    app = h.submit(queue="default", user="user1", tasks=2, resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == 1
    h.heartbeat("n0000")
    assert h.running(app) == 1


def test_basic_drf_assignment() -> None:
    """``TestFairScheduler.testBasicDRFAssignment``: queue1 drf, an 8192 MB/5 vc node; app1
    2 × (2048 MB, 1 vc), app2 2 × (1024 MB, 2 vc): app1, app2, then app1 again (2048/8192 <
    2/5).  Hadoop sets queue1's policy on the live queue; a file must make root drf too
    (``isChildPolicyAllowed``), which changes nothing with one active queue."""
    xml = """<allocations><queue name="root"><schedulingPolicy>drf</schedulingPolicy>
      <queue name="queue1"><schedulingPolicy>drf</schedulingPolicy></queue></queue></allocations>"""
    h = harness("8192 mb, 5 vcores", xml)
    app1 = h.submit(queue="queue1", user="user1", tasks=2, resources="2048 mb, 1 vcores")
    app2 = h.submit(queue="queue1", user="user1", tasks=2, resources="1024 mb, 2 vcores")
    h.update()
    seen = []
    for _ in range(3):
        h.heartbeat("n0000")
        seen.append((h.running(app1), h.running(app2)))
    assert seen == [(1, 0), (1, 1), (2, 1)]


def test_basic_drf_with_queues() -> None:
    """``TestFairScheduler.testBasicDRFWithQueues``: root and queue1 drf, an 8192 MB/7 vc node;
    queue1: app1 2 × (3072, 1), app2 2 × (2048, 2); queue2: app3 2 × (1024, 2). Heartbeats
    give app1, app3, app3, app2."""
    xml = """<allocations><queue name="root"><schedulingPolicy>drf</schedulingPolicy>
      <queue name="queue1"><schedulingPolicy>drf</schedulingPolicy></queue><queue name="queue2"/>
    </queue></allocations>"""
    h = harness("8192 mb, 7 vcores", xml)
    app1 = h.submit(queue="queue1", user="user1", tasks=2, resources="3072 mb, 1 vcores")
    app2 = h.submit(queue="queue1", user="user1", tasks=2, resources="2048 mb, 2 vcores")
    app3 = h.submit(queue="queue2", user="user1", tasks=2, resources="1024 mb, 2 vcores")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app1) == 1
    h.heartbeat("n0000")
    assert h.running(app3) == 1
    h.heartbeat("n0000")
    assert h.running(app3) == 2
    h.heartbeat("n0000")
    assert h.running(app2) == 1


def test_drf_hierarchical_queues() -> None:
    """``TestFairScheduler.testDRFHierarchicalQueues``: root, queue1 and queue1.subqueue1 drf;
    a 12288 MB/12 vc node; app1 2 × (3074, 1) and app2 2 × (1024, 3) in queue1.subqueue1,
    app3 2 × (2048, 2) in queue1.subqueue2, app4 2 × (1024, 2) in queue2, started in that
    order: app1, app4, app4, app3, app3, app2, then nothing (the CPU is used up)."""
    xml = """<allocations><queue name="root"><schedulingPolicy>drf</schedulingPolicy>
      <queue name="queue1"><schedulingPolicy>drf</schedulingPolicy>
        <queue name="subqueue1"><schedulingPolicy>drf</schedulingPolicy></queue>
        <queue name="subqueue2"/></queue>
      <queue name="queue2"/>
    </queue></allocations>"""
    h = harness("12288 mb, 12 vcores", xml)
    apps = []
    for queue, size in (("queue1.subqueue1", "3074 mb, 1 vcores"), ("queue1.subqueue1", "1024 mb, 3 vcores"),
                        ("queue1.subqueue2", "2048 mb, 2 vcores"), ("queue2", "1024 mb, 2 vcores")):
        apps.append(h.submit(queue=queue, user="user1", tasks=2, resources=size))
        h.clock_only(0.003)  # so that start times differ (Hadoop's Thread.sleep(3))
    h.update()
    expected = [(1, 0, 0, 0), (1, 0, 0, 1), (1, 0, 0, 2), (1, 0, 1, 2), (1, 0, 2, 2), (1, 1, 2, 2),
                (1, 1, 2, 2)]
    for want in expected:
        h.heartbeat("n0000")
        assert tuple(h.running(a) for a in apps) == want


def test_user_and_queue_max_running_apps() -> None:
    """``TestFairScheduler.testUserAndQueueMaxRunningApps``: queue1 runs at most 2, user1 at
    most 1: app1 (queue1, user1) runs; app2 (queue2, user1) waits (user); app3 (queue1,
    user2) runs; app4 (queue1, user2) waits (queue); app1 removed: apps 2 and 4 run; a new
    app5 in queue1 waits."""
    xml = """<allocations><queue name="queue1"><maxRunningApps>2</maxRunningApps></queue>
      <user name="user1"><maxRunningApps>1</maxRunningApps></user></allocations>"""
    h = harness("8192 mb, 8 vcores", xml)

    def counts(queue: str) -> tuple[int, int]:
        q = h.shares()["queues"][queue]
        return q["runnable_apps"], q["waiting_apps"]

    a1 = h.submit(queue="queue1", user="user1")
    assert a1.runnable and counts("root.queue1") == (1, 0)
    a2 = h.submit(queue="queue2", user="user1")
    assert not a2.runnable and counts("root.queue2") == (0, 1)
    a3 = h.submit(queue="queue1", user="user2")
    assert a3.runnable and counts("root.queue1") == (2, 0)
    a4 = h.submit(queue="queue1", user="user2")
    assert not a4.runnable and counts("root.queue1") == (2, 1)
    h.kill_app(a1)
    assert a2.runnable and counts("root.queue2") == (1, 0)
    assert a4.runnable and counts("root.queue1") == (2, 0)
    a5 = h.submit(queue="queue1", user="user2")
    assert not a5.runnable and counts("root.queue1") == (2, 1)


#: an ask no node can serve: keeps an app whose AM is all Hadoop's test asks for alive (our
#: apps end when they have nothing left to run; YARN's run until their AM finishes)
IDLE = {"resources": "1024 mb, 1 vcores", "locations": ["nowhere"], "relax_locality": False}


def am_app(h: ClusterHarness, queue: str, am: str, user: str = "user1"):
    """An app whose only container to run now is its AM (``createApplicationWithAMResource``
    + an AM-priority request)."""
    return h.submit_app(queue=queue, user=user, am_resources=am, requests=[IDLE])


def am_usage(h: ClusterHarness, queue: str) -> int:
    """``FSLeafQueue.getAmResourceUsage().getMemorySize()``."""
    return h.scheduler.resource_engine.tree.get(queue).am_usage.memory


def test_queue_max_am_share() -> None:
    """``TestFairScheduler.testQueueMaxAMShare`` (up to app 5's AM running): queue1 maxAMShare
    0.2, a 20480 MB/20 vc node, root.default running 1 GB: queue1's fair share is 10240, its
    AM limit 2048. AMs of 1 GB for apps 1 and 2 run (AM usage 2048); app 3's waits; app 1
    still runs a non-AM container; app 1 removed, app 3's AM runs (2048); 2 GB AMs of apps
    4 and 5 wait; app 4 removed, app 5 still waits; apps 2 and 3 removed, app 5's AM runs
    (2048).  (Hadoop's remaining steps expire app 5's AM container and keep the app: here a
    lost AM fails its attempt, as the RM does, so they are not ported.)"""
    xml = '<allocations><queue name="queue1"><maxAMShare>0.2</maxAMShare></queue></allocations>'
    h = harness("20480 mb, 20 vcores", xml)
    h.update()
    assert fair(h, "root.queue1") == 0
    h.submit(queue="root.default", user="user1", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")

    def step() -> None:
        h.update()
        h.heartbeat("n0000")

    app1 = am_app(h, "queue1", "1024 mb, 1 vcores")
    step()
    assert h.running(app1) == 1 and am_usage(h, "root.queue1") == 1024
    app2 = am_app(h, "queue1", "1024 mb, 1 vcores")
    step()
    assert h.running(app2) == 1 and am_usage(h, "root.queue1") == 2048
    app3 = am_app(h, "queue1", "1024 mb, 1 vcores")
    step()
    assert h.running(app3) == 0 and am_usage(h, "root.queue1") == 2048
    h.add_requests(app1, [{"resources": "1024 mb, 1 vcores"}])
    step()
    assert h.running(app1) == 2 and am_usage(h, "root.queue1") == 2048
    h.update()
    h.kill_app(app1)
    h.heartbeat("n0000")
    assert h.running(app1) == 0 and h.running(app3) == 1 and am_usage(h, "root.queue1") == 2048
    app4 = am_app(h, "queue1", "2048 mb, 2 vcores")
    step()
    assert h.running(app4) == 0 and am_usage(h, "root.queue1") == 2048
    app5 = am_app(h, "queue1", "2048 mb, 2 vcores")
    step()
    assert h.running(app5) == 0 and am_usage(h, "root.queue1") == 2048
    h.kill_app(app4)
    step()
    assert h.running(app5) == 0 and am_usage(h, "root.queue1") == 2048
    h.kill_app(app2)
    h.kill_app(app3)
    step()
    assert h.running(app5) == 1 and am_usage(h, "root.queue1") == 2048
    h.add_requests(app5, [{"resources": "1024 mb, 1 vcores"}])
    step()
    assert h.running(app5) == 2 and am_usage(h, "root.queue1") == 2048
    h.kill_app(app5)
    h.update()
    assert am_usage(h, "root.queue1") == 0


def test_queue_max_am_share_normalizes_the_am() -> None:
    """``TestFairScheduler.testQueueMaxAMShare``'s last check, on its own: an AM of 1860 MB is
    counted as 2048 MB once normalized (increment 1024), so with 1024 MB of AM already
    running in a queue whose AM limit is 2048 MB it does not run."""
    xml = '<allocations><queue name="queue1"><maxAMShare>0.2</maxAMShare></queue></allocations>'
    h = harness("20480 mb, 20 vcores", xml)
    h.submit(queue="root.default", user="user1", resources="1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    app1 = am_app(h, "queue1", "1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app1) == 1
    app6 = am_app(h, "queue1", "1860 mb, 2 vcores")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app6) == 0 and am_usage(h, "root.queue1") == 1024


def test_queue_max_am_share_default() -> None:
    """``TestFairScheduler.testQueueMaxAMShareDefault``: maximum allocation 6 vcores; queue2
    maxAMShare 0.4, queue3 max 10240 MB/4 vc; an 8192 MB/10 vc node; queues 3, 4 and 5 run 1
    GB each. Queue1's 1 GB AM runs (fair share 2048, default share 0.5); queue2's does not
    (fair share 1639 × 0.4); in queue3 an AM of 1024 MB/6 vc (all the vcores left) and one
    of 1024/5 (over its max of 4) do not run."""
    xml = """<allocations><queue name="queue1"/><queue name="queue2"><maxAMShare>0.4</maxAMShare></queue>
      <queue name="queue3"><maxResources>10240 mb 4 vcores</maxResources></queue>
      <queue name="queue4"/><queue name="queue5"/>
      <defaultQueueSchedulingPolicy>fair</defaultQueueSchedulingPolicy></allocations>"""
    h = harness("8192 mb, 10 vcores", xml, cluster={"maximum_allocation": "10240 mb, 6 vcores"})
    h.update()
    for q in ("root.queue1", "root.queue2", "root.queue3", "root.queue4", "root.queue5"):
        assert fair(h, q) == 0
    for q in ("root.queue3", "root.queue4", "root.queue5"):
        h.submit(queue=q, user="user1", resources="1024 mb, 1 vcores")
        h.update()
        h.heartbeat("n0000")
    app1 = am_app(h, "queue1", "1024 mb, 1 vcores", user="test1")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app1) == 1 and am_usage(h, "root.queue1") == 1024
    app2 = am_app(h, "queue2", "1024 mb, 1 vcores", user="test1")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app2) == 0 and am_usage(h, "root.queue2") == 0
    h.kill_app(app2)
    h.update()
    app3 = am_app(h, "queue3", "1024 mb, 6 vcores", user="test1")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app3) == 0 and am_usage(h, "root.queue3") == 0
    app4 = am_app(h, "queue3", "1024 mb, 5 vcores", user="test1")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app4) == 0 and am_usage(h, "root.queue3") == 0


# --------------------------------------------------------------------------- TestFairSchedulerPreemption
MODES = {"MinSharePreemption": (False, False), "MinSharePreemptionWithDRF": (False, True),
         "FairSharePreemption": (True, False), "FairSharePreemptionWithDRF": (True, True)}


def preemption_file(fairshare: bool, drf: bool) -> str:
    """``TestFairSchedulerPreemption.writeAllocFile``: preemptable (child-1, child-2),
    preemptable-sibling, nonpreemptable (allowPreemptionFrom false; child-1, child-2)."""
    params = ("<fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>"
              "<fairSharePreemptionTimeout>0</fairSharePreemptionTimeout>" if fairshare
              else "<minSharePreemptionTimeout>0</minSharePreemptionTimeout>")
    res = "" if fairshare else "<minResources>4096mb,4vcores</minResources>"
    children = f'<queue name="child-1">{res}</queue><queue name="child-2">{res}</queue>'
    return (f'<allocations><queue name="preemptable">{params}{children}</queue>'
            f'<queue name="preemptable-sibling">{params}</queue>'
            f'<queue name="nonpreemptable"><allowPreemptionFrom>false</allowPreemptionFrom>{params}{children}</queue>'
            + ("<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>" if drf else "")
            + "</allocations>")


class PreemptionCluster:
    """``TestFairSchedulerPreemption.setupCluster``: two nodes of 4 GB and 12 vcores,
    preemption on, utilization threshold 0, no wait before the kill."""

    def __init__(self, mode: str) -> None:
        fairshare, drf = MODES[mode]
        self.fairshare = fairshare
        self.h = harness("4096 mb, 12 vcores", preemption_file(fairshare, drf), nodes=2,
                         scheduler={"preemption": True, "preemption_utilization_threshold": 0.0})
        self.greedy = None
        self.starving = None

    def assign_fully(self) -> None:
        for node in ("n0000", "n0001"):
            for _ in range(4):
                self.h.heartbeat(node)

    def take_all(self, queue: str) -> None:
        self.greedy = self.h.submit(queue=queue, user="default", tasks=8, resources="1024 mb, 1 vcores")
        self.h.update()
        self.assign_fully()
        assert self.h.running(self.greedy) == 8

    def preempt_half(self, queue: str) -> None:
        self.starving = self.h.submit(queue=queue, user="default", tasks=4, resources="2048 mb, 2 vcores")
        self.h.advance(1)  # clock.tickSec(1); update; the preemption thread runs

    def verify_preemption(self, n: int) -> None:
        assert self.h.running(self.greedy) == 2 * n
        self.assign_fully()
        assert self.h.running(self.starving) == n

    def verify_no_preemption(self) -> None:
        assert self.h.running(self.greedy) == 8


@pytest.mark.parametrize("mode", list(MODES))
def test_preemption_within_same_leaf_queue(mode: str) -> None:
    """``TestFairSchedulerPreemption.testPreemptionWithinSameLeafQueue``: both apps in
    preemptable.child-1: fair-share preemption frees two 2 GB containers' worth (the greedy
    app keeps 4), min-share preemption none."""
    c = PreemptionCluster(mode)
    c.take_all("root.preemptable.child-1")
    c.preempt_half("root.preemptable.child-1")
    if c.fairshare:
        c.verify_preemption(2)
    else:
        c.verify_no_preemption()


@pytest.mark.parametrize("mode", list(MODES))
def test_preemption_between_two_sibling_leaf_queues(mode: str) -> None:
    """``TestFairSchedulerPreemption.testPreemptionBetweenTwoSiblingLeafQueues``."""
    c = PreemptionCluster(mode)
    c.take_all("root.preemptable.child-1")
    c.preempt_half("root.preemptable.child-2")
    c.verify_preemption(2)


@pytest.mark.parametrize("mode", list(MODES))
def test_preemption_between_non_sibling_queues(mode: str) -> None:
    """``TestFairSchedulerPreemption.testPreemptionBetweenNonSiblingQueues``."""
    c = PreemptionCluster(mode)
    c.take_all("root.preemptable.child-1")
    c.preempt_half("root.nonpreemptable.child-1")
    c.verify_preemption(2)


@pytest.mark.parametrize("mode", list(MODES))
def test_no_preemption_from_disallowed_queue(mode: str) -> None:
    """``TestFairSchedulerPreemption.testNoPreemptionFromDisallowedQueue``."""
    c = PreemptionCluster(mode)
    c.take_all("root.nonpreemptable.child-1")
    c.preempt_half("root.preemptable.child-1")
    c.verify_no_preemption()


@pytest.mark.parametrize("mode", ["FairSharePreemption", "FairSharePreemptionWithDRF"])
def test_preemption_between_sibling_queues_with_parent_at_fair_share(mode: str) -> None:
    """``TestFairSchedulerPreemption.testPreemptionBetweenSiblingQueuesWithParentAtFairShare``
    (fair-share modes only): child-1 takes the cluster; an app in preemptable-sibling gets
    half (greedy keeps 4); then one in preemptable.child-2 gets one container from child-1
    (greedy keeps 2)."""
    c = PreemptionCluster(mode)
    c.take_all("root.preemptable.child-1")
    c.preempt_half("root.preemptable-sibling")
    c.verify_preemption(2)
    c.preempt_half("root.preemptable.child-2")
    c.verify_preemption(1)


# --------------------------------------------------------------------------- TestFairSchedulerFairShare
FAIR_SHARE_TREE = """<allocations><queue name="root">
  <queue name="parentA"><weight>8</weight>
    <queue name="childA1"/><queue name="childA2"/><queue name="childA3"/><queue name="childA4"/></queue>
  <queue name="parentB"><weight>1</weight><queue name="childB1"/><queue name="childB2"/></queue>
</queue><defaultQueueSchedulingPolicy>{}</defaultQueueSchedulingPolicy></allocations>"""


def fair_share_cluster(mem: int, vcores: int, policy: str) -> ClusterHarness:
    """``TestFairSchedulerFairShare.createClusterWithQueuesAndOneNode``."""
    return harness(f"{mem} mb, {vcores} vcores", FAIR_SHARE_TREE.format(policy))


def verify_steady_fair_share_memory(h: ClusterHarness, capacity: int) -> None:
    """``verifySteadyFairShareMemory``: each childA 20 %, each childB 5 %, active or not."""
    for name, q in h.shares()["queues"].items():
        if name.startswith("root.parentA.") or name.startswith("root.parentB."):
            want = 0.2 if name.startswith("root.parentA.") else 0.05
            assert abs(q["steady"]["memory"] / capacity - want) < 0.001, name


def test_fair_share_no_apps_running() -> None:
    """``TestFairSchedulerFairShare.testFairShareNoAppsRunning``: every child's fair share is 0;
    the steady shares follow the weights."""
    h = fair_share_cluster(16 * GB, 0, "fair")
    h.update()
    for name, q in h.shares()["queues"].items():
        if name.startswith("root.parent") and q["leaf"]:
            assert q["fair"]["memory"] == 0
    verify_steady_fair_share_memory(h, 16 * GB)


def test_fair_share_one_app_running() -> None:
    """``TestFairSchedulerFairShare.testFairShareOneAppRunning``: childA1 alone is active: 100 %;
    childA2 0."""
    h = fair_share_cluster(16 * GB, 0, "fair")
    h.submit(queue="root.parentA.childA1", user="user1", resources="2048 mb, 1 vcores")
    h.update()
    assert abs(fair(h, "root.parentA.childA1") / (16 * GB) * 100 - 100) <= 0.1
    assert fair(h, "root.parentA.childA2") == 0
    verify_steady_fair_share_memory(h, 16 * GB)


def test_fair_share_multiple_active_queues_under_same_parent() -> None:
    """``TestFairSchedulerFairShare.testFairShareMultipleActiveQueuesUnderSameParent``: childA1-3
    active: 33 % each (± 0.9)."""
    h = fair_share_cluster(16 * GB, 0, "fair")
    for i in (1, 2, 3):
        h.submit(queue=f"root.parentA.childA{i}", user=f"user{i}", resources="2048 mb, 1 vcores")
    h.update()
    for i in (1, 2, 3):
        assert abs(fair(h, f"root.parentA.childA{i}") / (16 * GB) * 100 - 33) <= 0.9
    verify_steady_fair_share_memory(h, 16 * GB)


def test_fair_share_with_drf_multiple_active_queues_under_different_parent() -> None:
    """``TestFairSchedulerFairShare.testFairShareWithDRFMultipleActiveQueuesUnderDifferentParent``:
    drf everywhere, 16 GB and 10 vcores; apps in childA1, childA2, childB1 and root.default:
    childA1 and childA2 get 40 % of memory and of vcores, childB1 10 % of each; steady: each
    childA 20 % of both, each childB 5 % of memory and 10 % of vcores (parentB's one vcore:
    the upper bracket of ``ComputeFairShares`` gives each child 1)."""
    mem, cores = 16 * GB, 10
    h = fair_share_cluster(mem, cores, "drf")
    h.submit(queue="root.parentA.childA1", user="user1", resources="2048 mb, 1 vcores")
    h.submit(queue="root.parentA.childA2", user="user2", resources="3072 mb, 1 vcores")
    h.submit(queue="root.parentB.childB1", user="user3", resources="1024 mb, 1 vcores")
    h.submit(queue="root.default", user="user4", resources="1024 mb, 1 vcores")
    h.update()
    q = h.shares()["queues"]
    for i in (1, 2):
        share = q[f"root.parentA.childA{i}"]["fair"]
        assert abs(share["memory"] / mem * 100 - 40) <= 0.9 and abs(share["vcores"] / cores * 100 - 40) <= 0.9
    share = q["root.parentB.childB1"]["fair"]
    assert abs(share["memory"] / mem * 100 - 10) <= 0.9 and abs(share["vcores"] / cores * 100 - 10) <= 0.9
    for name, s in q.items():
        if name.startswith("root.parentA."):
            assert abs(s["steady"]["memory"] / mem - 0.2) <= 0.001 and abs(s["steady"]["vcores"] / cores - 0.2) <= 0.001
        elif name.startswith("root.parentB."):
            assert abs(s["steady"]["memory"] / mem - 0.05) <= 0.001
            assert abs(s["steady"]["vcores"] / cores - 0.1) <= 0.001, name


def test_queue_max_am_share_with_container_reservation() -> None:
    """``TestFairScheduler.testQueueMaxAMShareWithContainerReservation``: reservable-nodes 1,
    queue1 maxAMShare 0.5; nodes of 10 GB, 10 GB and 5 GB (AM limit 12800 MB).  App 3's 10 GB
    AM reserves nodes 1 and 2; app 4's 5 GB AM runs on node 3, putting app 3 over the limit:
    with app 1 gone, node 1 drops app 3's reservation and runs app 5's AM; app 6's 10 GB AM
    (over the limit) reserves nothing and app 7's runs; with apps 4 and 5 gone app 6 reserves
    nodes 1 and 2, app 8 waits behind them; app 2 gone, app 6 runs on node 2, and node 1
    drops its other reservation and runs app 8's AM."""
    xml = '<allocations><queue name="queue1"><maxAMShare>0.5</maxAMShare></queue></allocations>'
    h = harness("10240 mb, 10 vcores", xml, nodes=2, scheduler={"reservable_nodes": 1.0})
    h.add_node("n0002", resources="5120 mb, 5 vcores")
    h.update()
    n1, n2, n3 = "n0000", "n0001", "n0002"

    def submit(am: str):
        app = am_app(h, "queue1", am)
        h.update()
        return app

    app1 = submit("1024 mb, 1 vcores")
    h.heartbeat(n1)
    assert h.running(app1) == 1 and am_usage(h, "root.queue1") == 1024
    app2 = submit("1024 mb, 1 vcores")
    h.heartbeat(n2)
    assert h.running(app2) == 1 and am_usage(h, "root.queue1") == 2048
    app3 = submit("10240 mb, 1 vcores")
    h.heartbeat(n1)
    h.heartbeat(n2)
    assert h.running(app3) == 0 and reservations(h, app3) == 2 and am_usage(h, "root.queue1") == 2048
    app4 = submit("5120 mb, 1 vcores")
    h.heartbeat(n1)
    assert h.running(app4) == 0 and am_usage(h, "root.queue1") == 2048
    h.update()
    h.heartbeat(n3)
    assert h.running(app4) == 1 and am_usage(h, "root.queue1") == 7168
    h.kill_app(app1)
    assert am_usage(h, "root.queue1") == 6144
    app5 = submit("1024 mb, 1 vcores")
    h.heartbeat(n1)
    assert h.running(app5) == 1 and am_usage(h, "root.queue1") == 7168
    assert reserved(h, n1) is None or reserved(h, n1).job is not app3
    h.kill_app(app3)
    assert am_usage(h, "root.queue1") == 7168
    app6 = submit("10240 mb, 1 vcores")
    h.heartbeat(n1)
    assert h.running(app6) == 0 and reservations(h, app6) == 0 and am_usage(h, "root.queue1") == 7168
    app7 = submit("1024 mb, 1 vcores")
    h.heartbeat(n1)
    assert h.running(app7) == 1 and am_usage(h, "root.queue1") == 8192
    h.kill_app(app4)
    assert am_usage(h, "root.queue1") == 3072
    h.kill_app(app5)
    assert am_usage(h, "root.queue1") == 2048
    h.update()
    h.heartbeat(n1)
    h.heartbeat(n2)
    assert reservations(h, app6) == 2
    app8 = submit("1024 mb, 1 vcores")
    h.heartbeat(n1)
    assert h.running(app8) == 0 and am_usage(h, "root.queue1") == 2048
    h.update()
    h.heartbeat(n2)
    assert h.running(app8) == 0 and am_usage(h, "root.queue1") == 2048
    h.kill_app(app2)
    assert am_usage(h, "root.queue1") == 1024
    h.update()
    h.heartbeat(n2)
    assert h.running(app6) == 1 and am_usage(h, "root.queue1") == 11264
    h.update()
    h.heartbeat(n1)
    assert h.running(app8) == 1 and am_usage(h, "root.queue1") == 12288
    assert reservations(h, app6) == 0


# --------------------------------------------------------------------------- TestFSAppStarvation
STARVATION_QUEUES = ("no-preemption", "minshare", "fairshare.child", "drf.child")
STARVATION_FILE = """<allocations>
  <queue name="default"/>
  <queue name="no-preemption"><fairSharePreemptionThreshold>0</fairSharePreemptionThreshold></queue>
  <queue name="minshare"><fairSharePreemptionThreshold>0</fairSharePreemptionThreshold>
    <minSharePreemptionTimeout>0</minSharePreemptionTimeout><minResources>2048mb,2vcores</minResources></queue>
  <queue name="fairshare"><fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>
    <fairSharePreemptionTimeout>0</fairSharePreemptionTimeout><schedulingPolicy>fair</schedulingPolicy>
    <queue name="child"><fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>
      <fairSharePreemptionTimeout>0</fairSharePreemptionTimeout><schedulingPolicy>fair</schedulingPolicy></queue>
  </queue>
  <queue name="drf"><fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>
    <fairSharePreemptionTimeout>0</fairSharePreemptionTimeout><schedulingPolicy>drf</schedulingPolicy>
    <queue name="child"><fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>
      <fairSharePreemptionTimeout>0</fairSharePreemptionTimeout><schedulingPolicy>drf</schedulingPolicy></queue>
  </queue>
  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
</allocations>"""


def starved_cluster(preemption: bool = True, threshold: float = 0.0) -> tuple[ClusterHarness, dict[str, object]]:
    """``TestFSAppStarvation.setupClusterAndSubmitJobs``: two 4 GB/4 vc nodes filled by an app
    in root.default; an app of one 1 GB container in each of the four queues; 10 ms on,
    an update.  Returns the harness and the apps by queue."""
    h = harness("4096 mb, 4 vcores", STARVATION_FILE, nodes=2,
                scheduler={"preemption": preemption, "preemption_utilization_threshold": threshold})
    greedy = h.submit(queue="root.default", user="default", tasks=8, resources="1024 mb, 1 vcores")
    h.update()
    for node in ("n0000", "n0001"):
        for _ in range(4):
            h.heartbeat(node)
    assert h.running(greedy) == 8
    apps = {q: h.submit(queue=f"root.{q}", user="user", resources="1024 mb, 1 vcores") for q in STARVATION_QUEUES}
    h.update()
    for node in ("n0000", "n0001"):
        for _ in range(4):
            h.heartbeat(node)
    h.clock_only(0.01)
    h.update()
    return h, apps


def starved(h: ClusterHarness) -> set[str]:
    """The apps the update found starved (``FSContext.getStarvedApps``)."""
    return set(h.scheduler.resource_engine.starvation)


def test_starvation_with_preemption_enabled() -> None:
    """``TestFSAppStarvation.testPreemptionEnabled``: three starved apps, one each for the
    minshare, fairshare.child and drf.child queues; none for no-preemption."""
    h, apps = starved_cluster()
    assert starved(h) == {apps[q].id for q in ("minshare", "fairshare.child", "drf.child")}


def test_starvation_with_preemption_disabled() -> None:
    """``TestFSAppStarvation.testPreemptionDisabled``: no starved apps when preemption is off."""
    h, _ = starved_cluster(preemption=False)
    assert starved(h) == set()


def test_starvation_cluster_utilization_threshold() -> None:
    """``TestFSAppStarvation.testClusterUtilizationThreshold``: a preemption utilization
    threshold of 1.1 (``yarn.scheduler.fair.preemption.cluster-utilization-threshold``, read
    as any float): the cluster is never used above it, so no app is starved."""
    h, _ = starved_cluster(threshold=1.1)
    assert starved(h) == set()


def test_reservable_nodes_above_one_is_read_as_yarn_reads_it() -> None:
    """``FairSchedulerConfiguration.getReservableNodes`` is a plain ``getFloat``: 2.0 is taken
    (ceil(3 × 2) = 6 nodes: no cap), as the same test with 0.5 caps at 2 nodes
    (``testOffSwitchAppReservationThreshold``): here the new app reserves all three."""
    h = harness("3072 mb, 8 vcores", scheduler={"reservable_nodes": 2.0})
    h.add_node("n0001", resources="3072 mb, 8 vcores")
    h.add_node("n0002", resources="3072 mb, 8 vcores")
    for node in ("n0000", "n0001", "n0002"):
        h.submit(queue="queue1", user="user1", resources="2048 mb, 1 vcores")
        h.update()
        h.heartbeat(node)
    app = h.submit(queue="queue1", user="user1", resources="2048 mb, 1 vcores")
    for node in ("n0000", "n0001", "n0002"):
        h.update()
        h.heartbeat(node)
    assert reservations(h, app) == 3


# --------------------------------------------------------------------------- TestAppRunnability
def test_app_addition_and_removal() -> None:
    """``TestAppRunnability.testAppAdditionAndRemoval``: an app for "user1" makes a second leaf,
    root.user1, with one runnable app; removed, the queue has none."""
    h = harness("8192 mb, 8 vcores")
    app = h.submit(queue="user1", user="user1")
    assert leaves(h) == {"root.default", "root.user1"}
    assert h.shares()["queues"]["root.user1"]["runnable_apps"] == 1
    h.kill_app(app)
    assert h.shares()["queues"].get("root.user1", {"runnable_apps": 0})["runnable_apps"] == 0


def test_preemption_variables_for_queue_created_at_run_time() -> None:
    """``TestAppRunnability.testPreemptionVariablesForQueueCreatedRuntime``: root's min-share
    timeout 10 s, fair-share timeout 15 s and threshold 0.6 are inherited by root.user1,
    created when user1 submits."""
    xml = """<allocations><queue name="root"><minSharePreemptionTimeout>10</minSharePreemptionTimeout>
      <fairSharePreemptionTimeout>15</fairSharePreemptionTimeout>
      <fairSharePreemptionThreshold>.6</fairSharePreemptionThreshold></queue></allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    app = h.submit(queue="user1", user="user1")
    assert h.queue_of(app) == "root.user1" and h.shares()["queues"]["root.user1"]["runnable_apps"] == 1
    qc = h.scheduler.allocations.queue_config()
    assert qc.min_share_preemption_timeout("root.user1") == 10
    assert qc.fair_share_preemption_timeout("root.user1") == 15
    assert abs(qc.fair_share_preemption_threshold("root.user1") - 0.6) < 0.001


def test_dont_allow_undeclared_pools() -> None:
    """``TestAppRunnability.testDontAllowUndeclaredPools``: allow-undeclared-pools false, queue
    jerry configured: (jerry, someuser) → jerry; (default, someuser) twice → default (not
    root.someuser, which may not be made); (jerry, jerry) → jerry."""
    h = harness("8192 mb, 8 vcores", '<allocations><queue name="jerry"/></allocations>',
                scheduler={"allow_undeclared_pools": False})

    def runnable(q: str) -> int:
        return h.shares()["queues"][q]["runnable_apps"]

    assert h.queue_of(h.submit(queue="jerry", user="someuser")) == "root.jerry"
    assert runnable("root.jerry") == 1
    h.submit(queue="default", user="someuser")
    assert (runnable("root.jerry"), runnable("root.default")) == (1, 1)
    h.submit(queue="default", user="someuser")
    assert (runnable("root.jerry"), runnable("root.default")) == (1, 2)
    h.submit(queue="jerry", user="jerry")
    assert (runnable("root.jerry"), runnable("root.default")) == (2, 2)
    assert "root.someuser" not in h.shares()["queues"]


def test_move_runnable_app_demand_and_usage() -> None:
    """``TestAppRunnability.testMoveRunnableApp``: an app of 3 × 1 GB in queue1 runs one on a
    1 GB node (usage 1024/1, demand 3072/3); moved to queue2, queue1 has no usage, no
    runnable app and (after an update) no demand; queue2 has them all; root one runnable app."""
    # Hadoop's test makes both leaves with getLeafQueue(…, true); here they are configured
    h = harness("1024 mb, 8 vcores", '<allocations><queue name="queue1"/><queue name="queue2"/></allocations>')
    app = h.submit(queue="queue1", user="user1", tasks=3, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    h.update()
    q = h.shares()["queues"]
    assert q["root.queue1"]["usage"] == {"memory": 1024, "vcores": 1}
    assert q["root.queue1"]["demand"] == {"memory": 3072, "vcores": 3}
    h.move(app, "queue2")
    q = h.shares()["queues"]
    assert h.queue_of(app) == "root.queue2"
    assert q["root.queue1"]["usage"] == {"memory": 0, "vcores": 0} and q["root.queue1"]["runnable_apps"] == 0
    assert q["root.queue2"]["usage"] == {"memory": 1024, "vcores": 1} and q["root.queue2"]["runnable_apps"] == 1
    assert q["root"]["runnable_apps"] == 1
    h.update()
    q = h.shares()["queues"]
    assert q["root.queue1"]["demand"] == {"memory": 0, "vcores": 0}
    assert q["root.queue2"]["demand"] == {"memory": 3072, "vcores": 3}


# --------------------------------------------------------------------------- TestFSLeafQueue
def test_leaf_queue_update_demand_is_capped_by_max_resources() -> None:
    """``TestFSLeafQueue.testUpdateDemand``: root.queue1 with maxResources 8192 MB; two apps
    each demanding 8192 MB: the queue's demand is its max share, 8192 MB
    (``FSLeafQueue.updateDemand``: componentwise min with getMaxShare)."""
    xml = '<allocations><queue name="queue1"><maxResources>8192 mb, 8 vcores</maxResources></queue></allocations>'
    h = harness("16384 mb, 16 vcores", xml)
    for _ in range(2):
        h.submit(queue="root.queue1", user="user1", tasks=8, resources="1024 mb, 1 vcores")
    h.update()
    assert h.demand("root.queue1") == {"memory": 8192, "vcores": 8}


@pytest.mark.parametrize(("test1", "runs"), [(3, True), (6, False)], ids=["ReturnsTrue", "ReturnsFalse"])
def test_can_run_app_am_with_a_custom_resource(test1: int, runs: bool) -> None:
    """``TestFSLeafQueue.testCanRunAppAMReturnsTrue`` / ``…ReturnsFalse``: resource type test1;
    queue1 max (8192 MB, 4 vc, 10 test1), maxAMShare 0.5; one node of (4096 MB, 10 vc, 25
    test1): the AM limit is (2048, 2, 5), so an AM of (2048, 2, 3 test1) runs and one of
    (2048, 2, 6 test1) does not."""
    xml = """<allocations><queue name="queue1"><maxResources>memory-mb=8192, vcores=4, test1=10</maxResources>
      <maxAMShare>0.5</maxAMShare></queue></allocations>"""
    h = harness("memory-mb=4096, vcores=10, test1=25", xml)
    app = h.submit_app(queue="root.queue1", user="user1", am_resources=f"memory-mb=2048, vcores=2, test1={test1}",
                       requests=[IDLE])
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == (1 if runs else 0)


def test_resource_usage_by_move_app() -> None:
    """``TestFairScheduler.testResourceUsageByMoveApp``: a 1 GB/4 vc node; an app in
    parent1.queue1 runs one 1 GB/2 vc container: parent1 and queue1 use 1 GB; moved to
    parent2.queue2, those two use it and parent1, queue1 nothing."""
    xml = """<allocations><queue name="parent1"><queue name="queue1"/></queue>
      <queue name="parent2"><queue name="queue2"/></queue></allocations>"""
    h = harness("1024 mb, 4 vcores", xml)
    app = h.submit(queue="parent1.queue1", user="user1", tasks=2, resources="1024 mb, 2 vcores")
    h.update()
    h.heartbeat("n0000")

    def mem(q: str) -> int:
        return h.shares()["queues"][q]["usage"]["memory"]

    assert (mem("root.parent2"), mem("root.parent2.queue2"), mem("root.parent1"), mem("root.parent1.queue1")) == \
        (0, 0, GB, GB)
    h.move(app, "parent2.queue2")
    assert (mem("root.parent2"), mem("root.parent2.queue2"), mem("root.parent1"), mem("root.parent1.queue1")) == \
        (GB, GB, 0, 0)


def test_double_removal_and_move_after_removal() -> None:
    """``TestFairScheduler.testDoubleRemoval`` / ``testMoveAfterRemoval``: an app removed
    leaves its queue; removing it again changes nothing; moving it afterwards is refused."""
    from corescheduler.errors import SchedulerStateError

    h = harness("8192 mb, 8 vcores")
    app = h.submit(queue="user1", user="user1")
    assert h.shares()["queues"]["root.user1"]["runnable_apps"] == 1
    h.kill_app(app)
    assert h.shares()["queues"].get("root.user1", {"runnable_apps": 0})["runnable_apps"] == 0
    assert h.job(app).is_finished and h.queue_of(app) == "root.user1"
    try:
        h.kill_app(app)
    except SchedulerStateError:
        pass  # an ended app: nothing to do, as YARN's stopped attempt
    assert h.queue_of(app) == "root.user1"
    with pytest.raises(SchedulerStateError, match="is stopped and can't be moved"):
        h.move(app, "default")
    assert h.queue_of(app) == "root.user1"


def test_queue_name_with_trailing_space() -> None:
    """``TestFairScheduler.testQueueNameWithTrailingSpace``: "A" accepted (a second leaf);
    "A " rejected; "B.C" accepted (a third); "A\\u00a0" rejected."""
    h = harness("8192 mb, 8 vcores")
    h.submit(queue="A", user="user1")
    assert leaves(h) == {"root.default", "root.A"}
    with pytest.raises(SubmissionRejected):
        h.submit(queue="A ", user="user1")
    h.submit(queue="B.C", user="user1")
    assert leaves(h) == {"root.default", "root.A", "root.B.C"}
    with pytest.raises(SubmissionRejected):
        h.submit(queue="A\u00a0", user="user1")
    assert leaves(h) == {"root.default", "root.A", "root.B.C"}


def test_user_as_default_queue_with_leading_trailing_space_user_name() -> None:
    """``TestFairScheduler.testUserAsDefaultQueueWithLeadingTrailingSpaceUserName``: user
    "  user1" submitting to default lands in root.user1 (``cleanName`` trims it)."""
    h = harness("8192 mb, 8 vcores", scheduler={"user_as_default_queue": True})
    app = h.submit(queue="default", user="  user1")
    assert h.queue_of(app) == "root.user1"
    assert h.shares()["queues"]["root.default"]["runnable_apps"] == 0


def test_container_allocation_with_container_id_leap() -> None:
    """``TestFairScheduler.testContainerAllocationWithContainerIdLeap`` (what the harness
    sees): reservable-nodes 0.5, two 3072 MB nodes; app1 runs 2 × 2048 (4096 MB used); app2's
    2048 MB ask reserves node 1, not node 2, and keeps it over ten rounds of heartbeats; app1
    killed, node 2's heartbeat runs app2 there."""
    h = harness("3072 mb, 10 vcores", nodes=2, scheduler={"reservable_nodes": 0.5})
    app1 = h.submit(queue="queue1", user="user1", tasks=2, resources="2048 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    h.heartbeat("n0001")
    app2 = h.submit(queue="queue1", user="user1", resources="2048 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    h.heartbeat("n0001")
    assert usage(h, "root.queue1")["memory"] == 4096
    assert reserved(h, "n0000") is not None and reserved(h, "n0000").job is app2
    assert reserved(h, "n0001") is None
    for _ in range(10):
        h.heartbeat("n0000")
        h.heartbeat("n0001")
    h.kill_app(app1)
    assert usage(h, "root.queue1")["memory"] == 0
    h.heartbeat("n0001")
    assert h.running(app2) == 1
    assert [t.node for t in h.scheduler.ledger.running.values() if t.job is app2] == ["n0001"]


def test_reservation_metrics() -> None:
    """``TestFairScheduler.testReservationMetrics``: a 4096 MB/4 vc node; an app in default
    runs 1024/1; asked for (4096, 4) more, it reserves the node: root's reserved is 4096 MB/4
    vc; the app removed, 0 again."""
    h = harness("4096 mb, 4 vcores")
    app = h.submit_app(queue="default", user="user1", requests=[{"resources": "1024 mb, 1 vcores", "priority": 1}])
    h.update()
    h.heartbeat("n0000")
    root = h.scheduler.resource_engine.tree.root
    assert not root.reserved.any_positive()
    h.add_requests(app, [{"resources": "4096 mb, 4 vcores", "priority": 1}])
    h.update()
    h.heartbeat("n0000")
    assert (root.reserved.memory, root.reserved.vcores) == (4096, 4)
    assert reservations(h, app) == 1
    h.kill_app(app)
    assert not root.reserved.any_positive()


def test_parent_queue_update_demand_is_capped_by_max_resources() -> None:
    """``TestFairScheduler.testUpdateDemand``: parent queue1 (max 8192 MB) with leaves a and b
    (max 8192 each), an app demanding 8192 in each: a's and b's demand is 8192, and so is
    queue1's (its max share, not their 16384)."""
    xml = """<allocations><queue name="queue1"><maxResources>8192 mb, 64 vcores</maxResources>
      <queue name="a"><maxResources>8192 mb, 64 vcores</maxResources></queue>
      <queue name="b"><maxResources>8192 mb, 64 vcores</maxResources></queue></queue></allocations>"""
    h = harness("32768 mb, 32 vcores", xml)
    h.submit(queue="queue1.a", user="user1", tasks=8, resources="1024 mb, 1 vcores")
    h.submit(queue="queue1.b", user="user1", tasks=8, resources="1024 mb, 1 vcores")
    h.update()
    assert h.demand("root.queue1.a")["memory"] == 8192 and h.demand("root.queue1.b")["memory"] == 8192
    assert h.demand("root.queue1")["memory"] == 8192


# --------------------------------------------------------------------------- TestSchedulingPolicy
POLICY_PACKAGE = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies."


@pytest.mark.parametrize(("text", "name"), [
    (POLICY_PACKAGE + "FairSharePolicy", "fair"), (POLICY_PACKAGE + "DominantResourceFairnessPolicy", "drf"),
    (POLICY_PACKAGE + "FifoPolicy", "fifo"), ("drf", "drf"), ("fair", "fair"), ("fifo", "fifo"), ("DRF", "drf")])
def test_parse_scheduling_policy(text: str, name: str) -> None:
    """``TestSchedulingPolicy.testParseSchedulingPolicy``: a policy by its class name (or
    canonical name: the same for these classes) or its short name, in any case."""
    xml = f"""<allocations><queue name="root"><schedulingPolicy>drf</schedulingPolicy>
      <queue name="q"><schedulingPolicy>{text}</schedulingPolicy></queue></queue></allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    assert h.scheduler.resource_engine.tree.get("root.q").policy == name


def test_default_policy_by_class_name() -> None:
    """``defaultQueueSchedulingPolicy`` goes through ``SchedulingPolicy.parse`` too: the drf
    class sets drf for every queue; FifoPolicy's class is refused as fifo is."""
    from corescheduler.errors import AllocationError

    xml = f"""<allocations><queue name="q"/>
      <defaultQueueSchedulingPolicy>{POLICY_PACKAGE}DominantResourceFairnessPolicy</defaultQueueSchedulingPolicy>
    </allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    tree = h.scheduler.resource_engine.tree
    assert tree.root.policy == "drf" and tree.get("root.q").policy == "drf"
    with pytest.raises(AllocationError, match="can't be FIFO"):
        harness("8192 mb, 8 vcores", f"<allocations><defaultQueueSchedulingPolicy>{POLICY_PACKAGE}FifoPolicy"
                                     "</defaultQueueSchedulingPolicy></allocations>")


# --------------------------------------------------------------------------- TestQueuePlacementPolicy
def placed(rules: str, queues: str = "") -> ClusterHarness:
    return harness("8192 mb, 8 vcores", f"<allocations>{queues}<queuePlacementPolicy>{rules}"
                                        "</queuePlacementPolicy></allocations>")


def place(h: ClusterHarness, queue: str, user: str, groups: list[str] | None = None) -> str | None:
    return h.queue_of(h.submit(queue=queue, user=user, groups=simple_groups(user) if groups is None else groups))


def test_default_rule_with_queue_attribute() -> None:
    """``TestQueuePlacementPolicy.testDefaultRuleWithQueueAttribute``: specified(create=false),
    default(queue=root.someDefaultQueue), that queue configured: → root.someDefaultQueue."""
    h = placed("<rule name='specified' create='false'/><rule name='default' queue='root.someDefaultQueue'/>",
               '<queue name="someDefaultQueue"/>')
    assert place(h, "default", "user1") == "root.someDefaultQueue"


def test_nested_user_queue_primary_group() -> None:
    """``TestQueuePlacementPolicy.testNestedUserQueuePrimaryGroup``: specified(create=false),
    nestedUserQueue(primaryGroup): user1 → root.user1group.user1; a configured
    root.specifiedq asked for → it; with root.user3group a configured leaf, user3 is
    refused."""
    rules = "<rule name='specified' create='false'/><rule name='nestedUserQueue'><rule name='primaryGroup'/></rule>"
    h = placed(rules, '<queue name="specifiedq"/><queue name="user3group"/>')
    assert place(h, "default", "user1") == "root.user1group.user1"
    assert place(h, "root.specifiedq", "user2") == "root.specifiedq"
    with pytest.raises(SubmissionRejected):
        place(h, "default", "user3")


def test_nested_user_queue_primary_group_no_create() -> None:
    """``TestQueuePlacementPolicy.testNestedUserQueuePrimaryGroupNoCreate``: nestedUserQueue
    (primaryGroup create=false), default: user1 → root.default; with root.user1group a
    configured parent → root.user1group.user1.  Both create=false: user2 → root.default; with
    root.user2group.user2 configured → it."""
    rules = "<rule name='nestedUserQueue'><rule name='primaryGroup' create='false'/></rule><rule name='default'/>"
    assert place(placed(rules), "default", "user1") == "root.default"
    h = placed(rules, '<queue name="user1group" type="parent"/>')
    assert place(h, "default", "user1") == "root.user1group.user1"
    rules = ("<rule name='nestedUserQueue' create='false'><rule name='primaryGroup' create='false'/></rule>"
             "<rule name='default'/>")
    assert place(placed(rules), "default", "user2") == "root.default"
    h = placed(rules, '<queue name="user2group"><queue name="user2"/></queue>')
    assert place(h, "default", "user2") == "root.user2group.user2"


def test_nested_user_queue_secondary_group() -> None:
    """``TestQueuePlacementPolicy.testNestedUserQueueSecondaryGroup``: nestedUserQueue
    (secondaryGroupExistingQueue), default: user1 → root.default; with root.user1subgroup1 a
    configured parent → root.user1subgroup1.user1."""
    rules = ("<rule name='nestedUserQueue'><rule name='secondaryGroupExistingQueue'/></rule>"
             "<rule name='default'/>")
    assert place(placed(rules), "default", "user1") == "root.default"
    h = placed(rules, '<queue name="user1subgroup1" type="parent"/>')
    assert place(h, "default", "user1") == "root.user1subgroup1.user1"


def test_nested_user_queue_specific_rule() -> None:
    """``TestQueuePlacementPolicy.testNestedUserQueueSpecificRule``: nestedUserQueue(specified
    create=false), default; parents root.parent1 and root.parent2 configured: (root.parent1,
    user1) → root.parent1.user1, (root.parent2, user2) → root.parent2.user2."""
    rules = "<rule name='nestedUserQueue'><rule name='specified' create='false'/></rule><rule name='default'/>"
    h = placed(rules, '<queue name="parent1" type="parent"/><queue name="parent2" type="parent"/>')
    assert place(h, "root.parent1", "user1") == "root.parent1.user1"
    assert place(h, "root.parent2", "user2") == "root.parent2.user2"


def test_nested_user_queue_default_rule() -> None:
    """``TestQueuePlacementPolicy.testNestedUserQueueDefaultRule``: specified(create=false),
    nestedUserQueue(default queue=root.parent): user1 → root.parent.user1 (also with
    root.parent a configured parent and create=false); with root.parent a configured leaf,
    refused."""
    rules = "<rule name='specified' create='false'/><rule name='nestedUserQueue'>" \
            "<rule name='default' queue='root.parent'/></rule>"
    assert place(placed(rules), "default", "user1") == "root.parent.user1"
    rules2 = "<rule name='specified' create='false'/><rule name='nestedUserQueue'>" \
             "<rule name='default' queue='root.parent' create='false'/></rule><rule name='default'/>"
    assert place(placed(rules2, '<queue name="parent" type="parent"/>'), "default", "user1") == "root.parent.user1"
    with pytest.raises(SubmissionRejected):
        place(placed(rules, '<queue name="parent"/>'), "default", "user1")


def test_user_contains_period() -> None:
    """``TestQueuePlacementPolicy.testUserContainsPeriod``: user first.last → root.first_dot_last."""
    h = placed("<rule name='user'/>")
    assert place(h, "default", "first.last") == "root.first_dot_last"


def test_group_contains_period() -> None:
    """``TestQueuePlacementPolicy.testGroupContainsPeriod``: primary group user1.group
    (``PeriodGroupsMapping``): nestedUserQueue(primaryGroup) → root.user1_dot_group.user1."""
    h = placed("<rule name='specified' create='false'/><rule name='nestedUserQueue'><rule name='primaryGroup'/>"
               "</rule>")
    assert place(h, "default", "user1", ["user1.group"]) == "root.user1_dot_group.user1"


def test_empty_groups_primary_group_rule() -> None:
    """``TestQueuePlacementPolicy.testEmptyGroupsPrimaryGroupRule``: primaryGroup(create=false),
    default; a user with no groups: placement fails (an error, not root.default)."""
    h = placed("<rule name='primaryGroup' create='false'/><rule name='default'/>")
    with pytest.raises(SubmissionRejected):
        place(h, "root.fake", "emptygroupuser", [])


@pytest.mark.parametrize("queue", ["A ", "A\u00a0"])
def test_specified_queue_with_spaces(queue: str) -> None:
    """``TestQueuePlacementPolicy.testSpecifiedQueueWithSpaces``: specified, default: "A " and
    "A\\u00a0" are refused (not passed on to the default rule)."""
    h = placed("<rule name='specified'/><rule name='default'/>")
    with pytest.raises(SubmissionRejected):
        place(h, queue, "user1")


def test_a_request_of_another_size_replaces_the_ask_at_its_priority_and_places() -> None:
    """``AppSchedulingInfo.updateResourceRequests``: YARN keys an app's requests by priority
    and resource name, so asking again at priority 1 for "*" with another size replaces the
    outstanding ask (its containers not yet run are cancelled); asks at another priority or
    for other places stay, and containers already running are not touched."""
    h = harness("8192 mb, 8 vcores")
    app = h.submit_app(queue="q", user="u", requests=[
        {"resources": "1024 mb, 1 vcores", "count": 3, "priority": 1},
        {"resources": "1024 mb, 1 vcores", "count": 1, "priority": 2},
        {"resources": "1024 mb, 1 vcores", "count": 1, "priority": 1, "locations": ["n0000"]}])
    h.update()
    h.heartbeat("n0000")  # one of the priority-1 containers runs
    assert h.running(app) == 1
    h.add_requests(app, [{"resources": "2048 mb, 1 vcores", "count": 2, "priority": 1}])
    # running 1 GB + two 2 GB asked + the priority-2 and node-bound 1 GB asks
    assert h.demand(app) == {"memory": 1024 + 2 * 2048 + 1024 + 1024, "vcores": 5}


def test_backwards_compatible_preemption_configuration() -> None:
    """``TestQueueManagerRealScheduler.testBackwardsCompatiblePreemptionConfiguration``:
    default min-share timeout 15 s, fair-share 30 s; queueB.queueB1's own min-share timeout
    5 s: every queue's fair-share timeout is 30 s, min-share 15 s but queueB1's 5 s; the
    file reloaded with a default fair-share timeout of 25 s, root's is 25 s."""
    xml = """<allocations><queue name="default"/><queue name="queueA"/>
      <queue name="queueB"><queue name="queueB1"><minSharePreemptionTimeout>5</minSharePreemptionTimeout></queue>
        <queue name="queueB2"/></queue><queue name="queueC"/>
      <defaultMinSharePreemptionTimeout>15</defaultMinSharePreemptionTimeout>
      <defaultFairSharePreemptionTimeout>{}</defaultFairSharePreemptionTimeout></allocations>"""
    h = harness("8192 mb, 8 vcores", xml.format(30))
    qc = h.scheduler.allocations.queue_config()
    names = ["root", "root.default", "root.queueA", "root.queueB", "root.queueB.queueB1", "root.queueB.queueB2",
             "root.queueC"]
    assert [qc.fair_share_preemption_timeout(n) for n in names] == [30] * 7
    assert [qc.min_share_preemption_timeout(n) for n in names] == [15, 15, 15, 15, 5, 15, 15]
    h.set_allocations(xml.format(25))
    assert h.scheduler.allocations.queue_config().fair_share_preemption_timeout("root") == 25


@pytest.mark.parametrize(("user", "allowed"), [
    ("queueA_user", {"queueA"}), ("queueB_user", {"queueB"}), ("common_user", {"queueA", "queueB"}),
    ("queueA_admin", {"queueA"}), ("queueB_admin", {"queueB"}), ("root_admin", {"queueA", "queueB"}),
    ("nobody", set())])
def test_queue_acls(user: str, allowed: set[str]) -> None:
    """``TestFairSchedulerQueueACLs`` (``QueueACLsTestBase.testQueueACLs``' file): root submit
    " " (nobody), administer "root_admin"; queueA submit "queueA_user,common_user", administer
    "queueA_admin"; queueB likewise.  A user may submit where it may submit or administer, on
    the queue or an ancestor."""
    xml = """<allocations><queue name="root"><aclSubmitApps> </aclSubmitApps>
      <aclAdministerApps>root_admin </aclAdministerApps>
      <queue name="queueA"><aclSubmitApps>queueA_user,common_user </aclSubmitApps>
        <aclAdministerApps>queueA_admin </aclAdministerApps></queue>
      <queue name="queueB"><aclSubmitApps>queueB_user,common_user </aclSubmitApps>
        <aclAdministerApps>queueB_admin </aclAdministerApps></queue>
    </queue></allocations>"""
    h = harness("8192 mb, 8 vcores", xml)
    for queue in ("queueA", "queueB"):
        if queue in allowed:
            assert h.queue_of(h.submit(queue=queue, user=user)) == f"root.{queue}"
        else:
            with pytest.raises(SubmissionRejected):
                h.submit(queue=queue, user=user)


@pytest.mark.parametrize("mode", list(MODES))
def test_app_not_preempted_below_fair_share(mode: str) -> None:
    """``TestFairSchedulerPreemption.testAppNotPreemptedBelowFairShare``: the greedy app holds
    both nodes with eight 1 GB containers; an app in preemptable.child-2 asks 4 × (3 GB, 3 vc):
    three of the greedy app's containers go for the first (it keeps 5), and no more, since
    the greedy app may not fall below its fair share (4 GB) for the second: the starved app
    runs 1."""
    c = PreemptionCluster(mode)
    c.take_all("root.preemptable.child-1")
    c.starving = c.h.submit(queue="root.preemptable.child-2", user="default", tasks=4, resources="3072 mb, 3 vcores")
    c.h.advance(0)  # no clock tick here in Hadoop's test: the timeouts are 0
    assert c.h.running(c.greedy) == 5
    c.assign_fully()
    assert c.h.running(c.starving) == 1


def test_hierarchical_queues_similar_parents() -> None:
    """``TestFairScheduler.testHierarchicalQueuesSimilarParents``: parent.child made (2 leaves
    with root.default); "parent" (a parent) and "parent.child.grandchild" (under a leaf) are
    refused and make nothing; parent.sister is made (3 leaves)."""
    h = harness("8192 mb, 8 vcores")
    assert h.queue_of(h.submit(queue="parent.child", user="u")) == "root.parent.child"
    assert leaves(h) == {"root.default", "root.parent.child"}
    for bad in ("parent", "parent.child.grandchild"):
        with pytest.raises(SubmissionRejected):
            h.submit(queue=bad, user="u")
        assert leaves(h) == {"root.default", "root.parent.child"}
    assert h.queue_of(h.submit(queue="parent.sister", user="u")) == "root.parent.sister"
    assert leaves(h) == {"root.default", "root.parent.child", "root.parent.sister"}


@pytest.mark.parametrize("user", ["  ", "\t"])
def test_a_user_name_of_blanks_is_rejected_not_a_plugin_error(user: str) -> None:
    """A user name that trims to nothing (``cleanName``: "") names no queue: ``assureRoot``
    leaves "" and ``QueueManager.getLeafQueue`` finds no valid node name in "root.", so YARN
    rejects the app — a rejection here too, not the rules plugin answering an empty pool name."""
    h = harness("8192 mb, 8 vcores", scheduler={"user_as_default_queue": True})
    with pytest.raises(SubmissionRejected):
        h.submit(queue="default", user=user)
