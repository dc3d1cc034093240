"""More of Hadoop 3.3's Capacity Scheduler unit tests through the public harness: how the
capacity file is read and reloaded — ``TestQueueParsing``, ``TestQueueState``,
``TestCapacitySchedulerConfiguration``'s ACLs and ``TestCapacityScheduler``'s refreshes
(maximum allocations, deleted and converted queues) — and the user-limit settings'
values (the conventions of test_yarn_capacity_ports_more.py).
"""

from __future__ import annotations

import re

import pytest
from test_yarn_capacity_leaf_queue import CONFIG, FIXTURE, used, with_values
from test_yarn_capacity_ports_more import GB, harness, rm_harness, xml_of
from test_yarn_capacity_scheduler_rm import setup_queue_configuration

from corescheduler.errors import CoreSchedulerError
from corescheduler.testing import ClusterHarness, SubmissionRejected

#: ``TestQueueParsing.setupQueueConfiguration``
QUEUE_PARSING = {
    "root.queues": "a,b,c", "root.a.capacity": "10", "root.a.maximum-capacity": "15", "root.b.capacity": "20",
    "root.c.capacity": "70", "root.c.maximum-capacity": "70",
    "root.a.queues": "a1,a2", "root.a.a1.capacity": "30", "root.a.a1.maximum-capacity": "45",
    "root.a.a2.capacity": "70", "root.a.a2.maximum-capacity": "85",
    "root.b.queues": "b1,b2,b3", "root.b.b1.capacity": "50", "root.b.b1.maximum-capacity": "85",
    "root.b.b2.capacity": "30", "root.b.b2.maximum-capacity": "35", "root.b.b3.capacity": "20",
    "root.b.b3.maximum-capacity": "35",
    "root.c.queues": "c1,c2,c3,c4", "root.c.c1.capacity": "50", "root.c.c1.maximum-capacity": "55",
    "root.c.c2.capacity": "10", "root.c.c2.maximum-capacity": "25", "root.c.c3.capacity": "35",
    "root.c.c3.maximum-capacity": "38", "root.c.c4.capacity": "5", "root.c.c4.maximum-capacity": "5",
    "root.c.c1.queues": "c11,c12,c13", "root.c.c1.c11.capacity": "15", "root.c.c1.c11.maximum-capacity": "30",
    "root.c.c1.c12.capacity": "45", "root.c.c1.c12.maximum-capacity": "70", "root.c.c1.c13.capacity": "40",
    "root.c.c1.c13.maximum-capacity": "40",
}


def absolute(props: dict[str, str], *queues: str) -> list[tuple[float, float]]:
    """The queues' (absolute capacity, absolute maximum capacity) once the file is loaded."""
    h = rm_harness(xml_of(props), nodes=1, node="8192 mb, 8 vcores")
    h.update()
    q = h.shares()["queues"]
    return [(q[name]["absolute_capacity"], q[name]["absolute_maximum_capacity"]) for name in queues]


def test_queue_parsing() -> None:
    """``TestQueueParsing.testQueueParsing``: a 10 % (maximum 15 %); b1 50 % of b (20 %), its
    maximum 85 % of b's (none: 100 %); c12 45 % of c1 (50 %) of c (70 %), its maximum
    70 % × 55 % × 70 %."""
    got = absolute(QUEUE_PARSING, "root.a", "root.b.b1", "root.c.c1.c12")
    expected = [(0.10, 0.15), (0.2 * 0.5, 0.85), (0.7 * 0.5 * 0.45, 0.7 * 0.55 * 0.7)]
    for (cap, cap_max), (want, want_max) in zip(got, expected, strict=True):
        assert abs(cap - want) < 1e-6 and abs(cap_max - want_max) < 1e-6


def test_queue_parsing_should_trim_spaces() -> None:
    """``TestQueueParsing.testQueueParsingShouldTrimSpaces`` and
    ``testNestedQueueParsingShouldTrimSpaces``: ``root.queues`` " a ,b, c" and ``root.a.queues``
    "a1, a2 ": a (10 %, maximum 15 %), c (70 %, 70 %), a1 and a2 (60 % and 40 % of a, its
    maximum)."""
    props = {"root.queues": " a ,b, c", "root.a.capacity": "10", "root.a.maximum-capacity": "15",
             "root.b.capacity": "20", "root.c.capacity": "70", "root.c.maximum-capacity": "70",
             "root.a.queues": "a1, a2 ", "root.a.a1.capacity": "60", "root.a.a2.capacity": "40"}
    got = absolute(props, "root.a", "root.c", "root.a.a1", "root.a.a2")
    expected = [(0.10, 0.15), (0.70, 0.70), (0.10 * 0.6, 0.15), (0.10 * 0.4, 0.15)]
    for (cap, cap_max), (want, want_max) in zip(got, expected, strict=True):
        assert abs(cap - want) < 1e-6 and abs(cap_max - want_max) < 1e-6


def test_queue_parsing_fail_when_sum_of_children_capacity_not_100_percent() -> None:
    """``TestQueueParsing.testQueueParsingFailWhenSumOfChildrenNonLabeledCapacityNot100Percent``:
    c2 at 5 % makes c's children 95 %: the file is refused, naming the key."""
    with pytest.raises(CoreSchedulerError, match=r"root\.c\."):
        rm_harness(xml_of({**QUEUE_PARSING, "root.c.c2.capacity": "5"}), nodes=1, node="8192 mb, 8 vcores")


def test_queue_parsing_with_move_queue() -> None:
    """``TestQueueParsing.testQueueParsingWithMoveQueue``: root.a (x, y) reloaded as root (a,
    x) with a (y): x would move from root.a.x to root.x, which ``refreshQueues`` refuses
    (``CapacitySchedulerQueueManager.validateQueueHierarchy``); the tree in force stays."""
    h = rm_harness(xml_of({"root.queues": "a", "root.a.queues": "x,y", "root.a.capacity": "100",
                           "root.a.x.capacity": "50", "root.a.y.capacity": "50"}), nodes=1, node="8192 mb, 8 vcores")
    with pytest.raises(CoreSchedulerError, match=r"root\.a\.x"):
        h.set_allocations(xml_of({"root.queues": "a,x", "root.a.queues": "y", "root.x.capacity": "50",
                                  "root.a.capacity": "50", "root.a.y.capacity": "100"}))
    h.update()
    assert "root.a.x" in h.shares()["queues"] and "root.x" not in h.shares()["queues"]


def test_minimum_user_limit_percent_above_100_and_0_load() -> None:
    """``CapacitySchedulerConfiguration.getUserLimit`` takes any number; ``TestLeafQueue``'s
    ``testGetTotalPendingResourcesConsideringUserLimitOneUser`` sets 1000 ("take
    user-limit-percent out of the equation") and ``testUserLimitCacheActiveUsersChanged`` 0.
    Both load (the reader refused them: "a percent in (0, 100]"); a negative one is still
    refused.  With 1000 on queue e (1 % of 100 GB, maximum 100 %) user_0 gets 1 GB, then one
    container more than its limit (2 GB), then nothing, as the port with 100 does."""
    xml = with_values(FIXTURE, e__maximum_capacity="100", e__acl_submit_applications="*",
                      e__minimum_user_limit_percent="1000")
    h = harness(xml, nodes=1, node="102400 mb, 128 vcores")
    app_0 = h.submit(queue="e", user="user_0", tasks=3, resources="1024 mb, 1 vcores")
    steps = []
    for _ in range(3):
        h.heartbeat("n0000")
        steps.append(used(h, app_0.id))
    assert steps == [1 * GB, 2 * GB, 2 * GB]
    # 0: any weight ≥ 0 is valid (100.0f / 0 is Infinity in LeafQueue.setupQueueConfigs' check)
    weight = ("<property><name>yarn.scheduler.capacity.root.newroot.e.user-settings.user_0.weight</name>"
              "<value>50</value></property></configuration>")
    h = harness(with_values(FIXTURE, e__minimum_user_limit_percent="0").replace("</configuration>", weight), nodes=1)
    h.update()
    assert h.shares()["queues"]["root.newroot.e"]["user_weights"] == {"user_0": 50.0}
    with pytest.raises(CoreSchedulerError, match=r"root\.newroot\.e\.minimum-user-limit-percent"):
        harness(with_values(FIXTURE, e__minimum_user_limit_percent="-1"), nodes=1)


def test_user_am_limit_share_is_at_most_one() -> None:
    """``LeafQueue.getUserAMResourceLimitPerPartition``: the user's share,
    max(minimum-user-limit-percent ÷ 100, 1 ÷ active users), is at most 1
    (``Math.min(effectiveUserLimit * userWeight, 1.0f)``).  Queue a (50 % of 10 GB, maximum
    100 %, maximum-am-resource-percent 0.5, minimum-user-limit-percent 200): the queue's AM
    limit is 0.5 × its current limit 10 GB = 5 GB; the user's 5 GB × 0.5 × 1, normalized up to
    3 GB (× 2 it would be 5 GB)."""
    allocations = xml_of({"root.queues": "a,b", "root.a.capacity": "50", "root.a.maximum-capacity": "100",
                          "root.b.capacity": "50", "root.a.maximum-am-resource-percent": "0.5",
                          "root.a.minimum-user-limit-percent": "200"})
    h = rm_harness(allocations, nodes=1, node="10240 mb, 10 vcores")
    h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores")
    h.update()
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    queue = cs._live["root.a"]
    assert int(cs.am_limit(queue).memory) == 5 * GB
    assert int(cs.user_am_limit(queue, "u").memory) == 3 * GB


def scheduler_rm(allocations: str, maximum: str | None = None) -> ClusterHarness:
    """``TestCapacityScheduler``'s scheduler: two 8 GB nodes; ``maximum`` the cluster's
    ``yarn.scheduler.maximum-allocation-*`` (``[cluster] maximum_allocation``; YARN's default
    8192 MB, 4 vcores when None)."""
    config = dict(CONFIG)
    if maximum is not None:
        config["cluster"] = {"maximum_allocation": maximum}
    return ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores", config=config,
                          allocations=allocations)


def with_props(allocations: str, **props: str) -> str:
    """``allocations`` with ``queue__key`` properties added (``a__a1__maximum_allocation_mb``)."""
    extra = "".join(
        f"<property><name>yarn.scheduler.capacity.root.{k.rsplit('__', 1)[0].replace('__', '.')}."
        f"{k.rsplit('__', 1)[1].replace('_', '-')}</name><value>{v}</value></property>" for k, v in props.items())
    return allocations.replace("</configuration>", extra + "</configuration>")


def test_refresh_queues_max_allocation_refresh() -> None:
    """``TestCapacityScheduler.testRefreshQueuesMaxAllocationRefresh``: a1 has the cluster's
    maximum allocation (8192 MB, 4 vcores); a refresh to 4096 MB is refused ("the maximum
    allocation size can not be decreased", ``LeafQueue.reinitialize``), 8192 is taken, 3 vcores
    refused again; the tree in force keeps 8192 MB, 4 vcores."""
    base = setup_queue_configuration()
    h = scheduler_rm(base)
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    assert cs.maximum_allocation(cs.conf, "root.a.a1") == (8192, 4)
    with pytest.raises(CoreSchedulerError, match="not be decreased"):
        h.set_allocations(with_props(base, a__a1__maximum_allocation_mb="4096"))
    h.set_allocations(with_props(base, a__a1__maximum_allocation_mb="8192"))
    with pytest.raises(CoreSchedulerError, match="not be decreased"):
        h.set_allocations(with_props(base, a__a1__maximum_allocation_mb="8192", a__a1__maximum_allocation_vcores="3"))
    assert cs.maximum_allocation(cs.conf, "root.a.a1") == (8192, 4)


def test_refresh_queues_max_allocation_per_queue_large() -> None:
    """``TestCapacityScheduler.testRefreshQueuesMaxAllocationPerQueueLarge``: b3's maximum
    allocation above the cluster's (8192 + 2048 MB, then 4 + 1 vcores) is refused ("Queue
    maximum allocation cannot be larger than the cluster setting",
    ``AbstractCSQueue.setupMaximumAllocation``); 8192 MB is taken.  A first file so is refused
    too."""
    base = setup_queue_configuration()
    h = scheduler_rm(base)
    with pytest.raises(CoreSchedulerError, match="maximum allocation"):
        h.set_allocations(with_props(base, b__b3__maximum_allocation_mb=str(8192 + 2048)))
    h.set_allocations(with_props(base, b__b3__maximum_allocation_mb="8192"))
    with pytest.raises(CoreSchedulerError, match="maximum allocation"):
        h.set_allocations(with_props(base, b__b3__maximum_allocation_mb="8192", b__b3__maximum_allocation_vcores="5"))
    with pytest.raises(CoreSchedulerError, match=r"cluster setting for queue root\.b\.b3"):
        scheduler_rm(with_props(base, b__b3__maximum_allocation_mb="10240"))


def test_refresh_queues_max_allocation_refresh_larger() -> None:
    """``TestCapacityScheduler.testRefreshQueuesMaxAllocationRefreshLarger``: a1 at 4096 MB and
    2 vcores under the cluster's 8192 MB, 4 vcores; a refresh to 6144 MB and 3 vcores is taken
    (only a decrease is refused), and a 6144 MB container may then be asked there."""
    base = setup_queue_configuration()
    h = scheduler_rm(with_props(base, a__a1__maximum_allocation_mb="4096", a__a1__maximum_allocation_vcores="2"),
                     maximum="8192 mb, 4 vcores")
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    assert cs.maximum_allocation(cs.conf, "root.a.a1") == (4096, 2)
    h.set_allocations(with_props(base, a__a1__maximum_allocation_mb="6144", a__a1__maximum_allocation_vcores="3"))
    assert cs.maximum_allocation(cs.conf, "root.a.a1") == (6144, 3)
    app = h.submit(queue="a1", user="u", tasks=1, resources="6144 mb, 3 vcores")
    h.heartbeat("n0000")
    assert used(h, app.id) == 6144


def test_refresh_queues_max_allocation_cs_larger() -> None:
    """``TestCapacityScheduler.testRefreshQueuesMaxAllocationCSLarger``, its first part: the
    cluster's maximum allocation 10240 MB, 10 vcores, a1's 4096 MB, 4 vcores: a1 has its own,
    a2 and b2 the cluster's.  (Its second part raises the cluster's setting with
    ``reinitialize``; here that setting is ``[cluster] maximum_allocation``, not the capacity
    file, and a reload does not change it.)"""
    h = scheduler_rm(with_props(setup_queue_configuration(), a__a1__maximum_allocation_mb="4096",
                                a__a1__maximum_allocation_vcores="4"), maximum="10240 mb, 10 vcores")
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    assert [cs.maximum_allocation(cs.conf, q) for q in ("root.a.a1", "root.a.a2", "root.b.b2")] == [
        (4096, 4), (10240, 10), (10240, 10)]


def states(h: ClusterHarness, *queues: str) -> list[str]:
    h.update()
    q = h.shares()["queues"]
    return [q[name]["state"] for name in queues]


#: ``TestQueueState``'s tree: root.q1 (100 %) with q2 (and q3, 50 % each)
Q1_Q2 = {"root.queues": "q1", "root.q1.queues": "q2", "root.q1.capacity": "100", "root.q1.q2.capacity": "100"}


def test_queue_state() -> None:
    """``TestQueueState.testQueueState``: q1 with child q2, both RUNNING; q1 STOPPED: q2 (no
    state of its own) is STOPPED too; q1 RUNNING and q2 STOPPED is taken; q1 STOPPED with q2
    RUNNING is refused ("The parent queue:q1 state is STOPPED, child queue:q2 state cannot be
    RUNNING.", ``AbstractCSQueue.initializeQueueState``) and the states in force stay."""
    h = rm_harness(xml_of(Q1_Q2), nodes=1, node="8192 mb, 8 vcores")
    assert states(h, "root.q1", "root.q1.q2") == ["RUNNING", "RUNNING"]
    h.set_allocations(xml_of({**Q1_Q2, "root.q1.state": "STOPPED"}))
    assert states(h, "root.q1", "root.q1.q2") == ["STOPPED", "STOPPED"]
    h.set_allocations(xml_of({**Q1_Q2, "root.q1.state": "RUNNING", "root.q1.q2.state": "STOPPED"}))
    assert states(h, "root.q1", "root.q1.q2") == ["RUNNING", "STOPPED"]
    with pytest.raises(CoreSchedulerError, match=r"The parent queue:q1 state is STOPPED, child queue:q2 state "
                                                 r"cannot be RUNNING"):
        h.set_allocations(xml_of({**Q1_Q2, "root.q1.state": "STOPPED", "root.q1.q2.state": "RUNNING"}))
    assert states(h, "root.q1", "root.q1.q2") == ["RUNNING", "STOPPED"]


def test_queue_state_transit() -> None:
    """``TestQueueState.testQueueStateTransit``: q1 with q2 and q3 (50 % each); an app in q2.
    q2 STOPPED: q2 DRAINING (its app runs on), q1 and q3 RUNNING.  q1 STOPPED too: q1 and q2
    DRAINING, q3 STOPPED; q3 RUNNING under it is refused.  Once the app ends, all three are
    STOPPED."""
    tree = {"root.queues": "q1", "root.q1.queues": "q2,q3", "root.q1.capacity": "100",
            "root.q1.q2.capacity": "50", "root.q1.q3.capacity": "50"}
    h = rm_harness(xml_of(tree), nodes=1, node="8192 mb, 8 vcores")
    names = ("root.q1", "root.q1.q2", "root.q1.q3")
    assert states(h, *names) == ["RUNNING"] * 3
    app = h.submit(queue="q2", user="testUser", tasks=1, resources="1024 mb, 1 vcores")
    h.set_allocations(xml_of({**tree, "root.q1.q2.state": "STOPPED"}))
    assert states(h, *names) == ["RUNNING", "DRAINING", "RUNNING"]
    stopped = {**tree, "root.q1.q2.state": "STOPPED", "root.q1.state": "STOPPED"}
    h.set_allocations(xml_of(stopped))
    assert states(h, *names) == ["DRAINING", "DRAINING", "STOPPED"]
    with pytest.raises(CoreSchedulerError, match="cannot be RUNNING"):
        h.set_allocations(xml_of({**stopped, "root.q1.q3.state": "RUNNING"}))
    h.kill_app(app)
    assert states(h, *names) == ["STOPPED"] * 3


def test_refresh_queues_with_queue_delete_parent() -> None:
    """``TestCapacityScheduler.testRefreshQueuesWithQueueDelete``, its parent part: b (b1, b2,
    b3) STOPPED — its children, without a state of their own, are STOPPED with it — may then be
    dropped from the file with its children (``validateQueueHierarchy``: each old queue's state
    is STOPPED).  A RUNNING b may not, nor b1 alone while an app of it runs (DRAINING)."""
    base = setup_queue_configuration()
    h = scheduler_rm(base)
    without_b = xml_of({"root.queues": "a", "root.a.capacity": "100", "root.a.queues": "a1,a2",
                        "root.a.a1.capacity": "30", "root.a.a2.capacity": "70", "root.a.a1.user-limit-factor": "100",
                        "root.a.a2.user-limit-factor": "100"})
    with pytest.raises(CoreSchedulerError, match=r"root\.b cannot be deleted"):
        h.set_allocations(without_b)
    app = h.submit(queue="b1", user="u", tasks=1, resources="1024 mb, 1 vcores")
    h.set_allocations(with_props(base, b__state="STOPPED"))
    assert states(h, "root.b", "root.b.b1", "root.b.b2") == ["DRAINING", "DRAINING", "STOPPED"]
    with pytest.raises(CoreSchedulerError, match=r"root\.b\.b1 still has 1 applications"):
        h.set_allocations(without_b)
    h.kill_app(app)
    h.set_allocations(without_b)
    h.update()
    assert not [q for q in h.shares()["queues"] if q.startswith("root.b")]


def test_setup_queue_configs_with_specified_configuration() -> None:
    """``TestLeafQueue.testSetupQueueConfigsWithSpecifiedConfiguration`` (Hadoop 3.3's part): a
    leaf of 10 % (maximum 100 %, user-limit-factor 0.1) with ``global-queue-max-application``
    20 and node-locality-delay 30: it takes 20 applications (``maxApplications``), 2 of one
    user (⌊20 × 100 % × 0.1⌋, ``maxApplicationsPerUser``): a user's third is refused."""
    h = rm_harness(xml_of({"root.queues": "leaf,other", "root.leaf.capacity": "10", "root.other.capacity": "90",
                           "root.leaf.maximum-capacity": "100", "root.leaf.user-limit-factor": "0.1",
                           "global-queue-max-application": "20", "node-locality-delay": "30"}),
                   nodes=1, node="8192 mb, 8 vcores")
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    assert cs.conf.node_locality_delay == 30
    assert (cs.conf.max_applications("root.leaf"), cs.conf.max_applications_per_user("root.leaf")) == (20, 2)
    for _ in range(2):
        h.submit(queue="leaf", user="u", tasks=1, resources="1024 mb, 1 vcores")
    with pytest.raises(SubmissionRejected, match="already has 2 applications from user u"):
        h.submit(queue="leaf", user="u", tasks=1, resources="1024 mb, 1 vcores")


@pytest.mark.parametrize(("root_acl", "allowed"), [
    ("", set()),  # testSpecifiedEmptySubmitACLForRoot(IsNotInherited)
    (" ", set()),  # testSpecifiedSpaceSubmitACLForRoot(IsNotInherited)
    ("user1 group1", {"user1", "member"}),  # testSpecifiedSubmitACLForRoot
    ("user1,user2 group1, group2", {"user1", "user2", "member", "other_member"}),  # …TwoUsersTwoGroupsForRoot
])
def test_submit_acls_for_root(root_acl: str, allowed: set[str]) -> None:
    """``TestCapacitySchedulerConfiguration``'s submit ACLs of root (its administer ACL closed,
    since ``*`` by default lets everyone in): an empty or blank ACL lets nobody submit to root or
    the leaf under it (whose own default is nobody, ``testDefaultSubmitACLForRootChildNoneAllowed``);
    ``user1 group1`` lets user1 and group1's members submit to the leaf (an ancestor's ACL lets in);
    ``user1,user2 group1, group2`` both users and both groups."""
    h = rm_harness(xml_of({"root.queues": "test", "root.test.capacity": "100",
                           "root.acl_submit_applications": root_acl, "root.acl_administer_queue": " "}),
                   nodes=1, node="8192 mb, 8 vcores")
    users = {"user1": (), "user2": (), "member": ("group1",), "other_member": ("group2",), "stranger": ("group3",)}
    got = set()
    for user, groups in users.items():
        try:
            h.submit(queue="test", user=user, groups=groups, tasks=1, resources="1024 mb, 1 vcores")
        except SubmissionRejected:
            continue
        got.add(user)
    assert got == allowed


def test_refresh_queues_with_all_child_queues_deleted() -> None:
    """``TestCapacityScheduler.testRefreshQueuesWithAllChildQueuesDeleted``: a file without b's
    children (b1, b2, b3) makes b a leaf; refused while b1 is RUNNING, taken once b1, b2 and b3
    are STOPPED: b stays, as a leaf, and its children are gone."""
    base = setup_queue_configuration()
    h = scheduler_rm(base)
    without_children = base.replace("<value>b1,b2,b3</value>", "<value></value>")
    for leaf in ("b1", "b2", "b3"):
        without_children = re.sub(rf"<property><name>yarn\.scheduler\.capacity\.root\.b\.{leaf}\.[^<]*</name>"
                                  r"<value>[^<]*</value></property>", "", without_children)
    h.set_allocations(with_props(base, b__b2__state="STOPPED", b__b3__state="STOPPED"))
    with pytest.raises(CoreSchedulerError, match=r"root\.b\.b1 cannot be deleted"):
        h.set_allocations(without_children)
    h.set_allocations(with_props(base, b__b1__state="STOPPED", b__b2__state="STOPPED", b__b3__state="STOPPED"))
    h.set_allocations(without_children)
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    assert cs.conf.queues["root.b"].is_leaf
    assert not [q for q in cs.conf.queues if q.startswith("root.b.")]


def test_convert_leaf_queue_to_parent_queue() -> None:
    """``TestCapacityScheduler.testConvertLeafQueueToParentQueue``: b1 RUNNING may not become a
    parent (a file giving it a child b11 is refused); once STOPPED it may, and is then a RUNNING
    parent (its state is no longer set: it has b's)."""
    base = setup_queue_configuration()
    h = scheduler_rm(base)
    b1_parent = with_props(base, b__b1__queues="b11", b__b1__b11__capacity="100")
    assert states(h, "root.b.b1") == ["RUNNING"]
    with pytest.raises(CoreSchedulerError, match=r"Can not convert the leaf queue: root\.b\.b1"):
        h.set_allocations(b1_parent)
    h.set_allocations(with_props(base, b__b1__state="STOPPED"))
    assert states(h, "root.b.b1") == ["STOPPED"]
    h.set_allocations(b1_parent)
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    assert not cs.conf.queues["root.b.b1"].is_leaf
    assert states(h, "root.b.b1", "root.b.b1.b11") == ["RUNNING", "RUNNING"]


def root_maximum_allocation(value: str, allocations: str) -> str:
    """``allocations`` with root's ``maximum-allocation``."""
    return allocations.replace("</configuration>", "<property><name>yarn.scheduler.capacity.root.maximum-allocation"
                               f"</name><value>{value}</value></property></configuration>")


def test_queues_max_allocation_inheritance() -> None:
    """``TestCapacityScheduler.testQueuesMaxAllocationInheritance``: ``maximum-allocation``
    (``memory-mb=…,vcores=…``) set on a queue or inherited from its parent, the cluster's
    (8192 MB, 4 vcores) at the top.  root 4096/2, a1 6144/2, b 5120/2, b2 1024/2: a1 6144, a2
    4096, b and b1 5120, b2 1024.  Then a1, b, b1 unset, root 6144/2, a 8192/2: a1 8192/2, b1
    6144/2.  Then root, a, a1 unset: a1 and a2 the cluster's 8192/4."""
    base = setup_queue_configuration()
    h = scheduler_rm(root_maximum_allocation("memory-mb=4096,vcores=2", with_props(
        base, a__a1__maximum_allocation="memory-mb=6144,vcores=2", b__maximum_allocation="memory-mb=5120, vcores=2",
        b__b2__maximum_allocation="memory-mb=1024, vcores=2")))
    cs = h.scheduler.plugins.instances["yarn_capacity"]

    def allocations(*queues: str) -> list[tuple[float, float]]:
        return [cs.maximum_allocation(cs.conf, "root" + ("." + q if q else "")) for q in queues]

    assert allocations("a.a1", "a.a2", "b", "b.b1", "b.b2") == [(6144, 2), (4096, 2), (5120, 2), (5120, 2),
                                                                (1024, 2)]
    second = with_props(base, a__maximum_allocation="memory-mb=8192,vcores=2",
                        b__b2__maximum_allocation="memory-mb=1024, vcores=2")
    h.set_allocations(root_maximum_allocation("memory-mb=6144,vcores=2", second))
    assert allocations("a.a1", "b.b1") == [(8192, 2), (6144, 2)]
    h.set_allocations(with_props(base, b__b2__maximum_allocation="memory-mb=1024, vcores=2"))
    assert allocations("a.a1", "a.a2") == [(8192, 4), (8192, 4)]


def test_verify_queues_max_allocation_conf() -> None:
    """``TestCapacityScheduler.testVerifyQueuesMaxAllocationConf``: a queue's
    ``maximum-allocation`` above the cluster's (8192 MB, 4 vcores) is refused, root's
    (9216 MB) or a1's (9216 MB, or 14 vcores) under root 4096/2 and a 6144/2."""
    base = setup_queue_configuration()
    h = scheduler_rm(base)
    with pytest.raises(CoreSchedulerError, match="maximum allocation"):
        h.set_allocations(root_maximum_allocation("memory-mb=9216,vcores=2", base))
    for a1 in ("memory-mb=9216,vcores=2", "memory-mb=8192,vcores=14"):
        with pytest.raises(CoreSchedulerError, match="maximum allocation"):
            h.set_allocations(root_maximum_allocation("memory-mb=4096,vcores=2", with_props(
                base, a__maximum_allocation="memory-mb=6144,vcores=2", a__a1__maximum_allocation=a1)))


@pytest.mark.parametrize("value", ["memory-mb=abc", "gpu=1", "memory-mb=1024,memory=2048", "vcores", "vcores=0"])
def test_a_bad_maximum_allocation_refuses_the_file(value: str) -> None:
    """A ``maximum-allocation`` ``ResourceUtils.createResourceFromString`` cannot read (or that
    names a type other than memory and vcores, or one twice, or 0) refuses the file, naming
    the key."""
    with pytest.raises(CoreSchedulerError, match=r"root\.a\.maximum-allocation: expected memory-mb="):
        scheduler_rm(with_props(setup_queue_configuration(), a__maximum_allocation=value))


def test_queue_mapping_with_current_user_queue_mapping_for_a_group() -> None:
    """``TestCapacityScheduler.testQueueMappingWithCurrentUserQueueMappingForaGroup``:
    ``setupQueueConfiguration`` with ``queue-mappings`` ``g:agroup:%user``; user a1 of group
    agroup submitting to ``default`` is placed in the leaf named a1 (root.a.a1)."""
    h = scheduler_rm(setup_queue_configuration().replace(
        "</configuration>", "<property><name>yarn.scheduler.capacity.queue-mappings</name>"
                            "<value>g:agroup:%user</value></property></configuration>"))
    app = h.submit(queue="default", user="a1", groups=("agroup",), tasks=1, resources="1024 mb, 1 vcores")
    assert h.queue_of(app) == "root.a.a1"


@pytest.mark.parametrize(("value", "expected"), [
    ("memory-mb=4g,vcores=2", (4096, 2)), ("memory-mb=4G,vcores=2", (4096, 2)),
    ("memory-mb=4096m,vcores=2", (4096, 2)), ("memory-mb=4096 M, vcores=2", (4096, 2)),
    ("memory=2G,vcores=1", (2048, 1)),
])
def test_maximum_allocation_units_as_resource_utils_reads_them(value: str, expected: tuple[int, int]) -> None:
    """``ResourceUtils.parseResourcesString`` (``createResourceFromString``): a unit is M or G,
    in either case, or none ("M"/"m" → Mi, "G"/"g" → Gi; memory converted to MB)."""
    h = scheduler_rm(with_props(setup_queue_configuration(), a__maximum_allocation=value))
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    assert cs.maximum_allocation(cs.conf, "root.a") == expected


@pytest.mark.parametrize("value", ["memory-mb=4Gi", "memory-mb=4096Mi", "memory-mb=1T"])
def test_maximum_allocation_other_units_refuse_the_file(value: str) -> None:
    """Any unit but M/G (or none) is refused: "Acceptable units are M/G or empty"
    (``ResourceUtils.parseResourcesString``)."""
    with pytest.raises(CoreSchedulerError, match=r"root\.a\.maximum-allocation: expected memory-mb="):
        scheduler_rm(with_props(setup_queue_configuration(), a__maximum_allocation=value))


@pytest.mark.parametrize("parent", ["maximum-allocation-vcores", "maximum-allocation"])
def test_a_leaf_is_held_to_its_inherited_maximum_allocation(parent: str) -> None:
    """``AbstractCSQueue.setupMaximumAllocation``: a queue starts from its parent's maximum
    allocation and replaces the types it sets — root.a 2 vcores, root.a.a1 4096 MB: a1's is
    4096 MB, 2 vcores, and a request above it is refused at submission
    (``CapacityScheduler.getMaximumResourceCapability(queue)``: the leaf's
    ``getMaximumAllocation``; ``SchedulerUtils.normalizeAndValidateRequest``)."""
    value = "2" if parent == "maximum-allocation-vcores" else "vcores=2"
    h = scheduler_rm(with_props(setup_queue_configuration(), **{f"a__{parent.replace('-', '_')}": value},
                                a__a1__maximum_allocation_mb="4096"))
    cs = h.scheduler.plugins.instances["yarn_capacity"]
    assert cs.maximum_allocation(cs.conf, "root.a.a1") == (4096, 2)
    with pytest.raises(SubmissionRejected, match="maxContainerAllocation"):
        h.submit(queue="a1", user="u", tasks=1, resources="1024 mb, 3 vcores")
    with pytest.raises(SubmissionRejected, match="maxContainerAllocation"):
        h.submit(queue="a1", user="u", tasks=1, resources="6144 mb, 1 vcores")
    h.submit(queue="a1", user="u", tasks=1, resources="4096 mb, 2 vcores")
