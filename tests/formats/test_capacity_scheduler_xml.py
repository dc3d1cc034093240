"""YARN's capacity-scheduler.xml (issue 29 item 1): read unchanged, validated as Hadoop 3.3's
``CapacitySchedulerConfiguration`` / ``ParentQueue.setChildQueues`` /
``CSQueueUtils.checkMaxCapacity`` do, one error naming the file, line, key and expectation."""

from __future__ import annotations

import pytest
from paths import DATA

from corescheduler.errors import AllocationError
from corescheduler.formats.allocation_file import load_allocations, parse_allocations


def xml(*props: tuple[str, str]) -> str:
    body = "\n".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                     for k, v in props)
    return f"<configuration>\n{body}\n</configuration>"


def test_hadoop_shipped_file_loads_unchanged() -> None:
    """hadoop-yarn-server-resourcemanager/conf/capacity-scheduler.xml: root.default 100 %."""
    a = load_allocations(DATA / "yarn_capacity" / "hadoop-shipped-capacity-scheduler.xml")
    conf = a.policy_config
    assert a.dialect == "yarn_capacity"
    q = conf.queues["root.default"]
    assert (q.capacity, q.maximum_capacity, q.user_limit_factor, q.state) == (1.0, 1.0, 1.0, "RUNNING")
    assert (conf.maximum_applications, conf.maximum_am_resource_percent, conf.node_locality_delay) == (10000, 0.1, 40)
    assert conf.dominant is False and conf.offswitch_per_heartbeat == 1
    assert conf.max_applications("root.default") == 10000
    # read now (not warned as not simulated): Hadoop's "*" holds no [...] group, so no priority
    # ACL (AppPriorityACLConfigurationParser.getPriorityAcl), and the cluster's cap is 0
    assert not any("acl_application_max_priority" in w for w in a.warnings)
    assert conf.priorities.acls == {} and conf.priorities.cluster_max == 0


def test_documented_sample_loads_with_a_warning() -> None:
    """CapacityScheduler.md's a,b,c / a1,a2 / b1,b2,b3 example names no capacity."""
    a = load_allocations(DATA / "yarn_capacity" / "documented-sample.xml")
    queues = a.policy_config.queues
    assert list(queues) == ["root", "root.a", "root.b", "root.c", "root.a.a1", "root.a.a2",
                            "root.b.b1", "root.b.b2", "root.b.b3"]
    assert queues["root.a.a1"].absolute_capacity == pytest.approx(1 / 6)
    assert a.queue_config().leaves() == ["root.a.a1", "root.a.a2", "root.b.b1", "root.b.b2", "root.b.b3", "root.c"]
    assert len(a.warnings) == 3


def test_capacities_fractions_weights_and_absolute() -> None:
    a = parse_allocations(xml(("root.queues", "a,b"), ("root.a.capacity", "2w"), ("root.b.capacity", "6w"),
                              ("root.a.queues", "x,y"), ("root.a.x.capacity", "40"), ("root.a.y.capacity", "60"),
                              ("root.a.x.maximum-capacity", "50")), "w.xml")
    q = a.policy_config.queues
    assert q["root.a"].capacity == 0.25 and q["root.b"].capacity == 0.75
    assert q["root.a.x"].absolute_capacity == pytest.approx(0.1)
    assert q["root.a.x"].absolute_maximum_capacity == pytest.approx(0.5)
    b = parse_allocations(xml(("root.queues", "a,b"), ("root.a.capacity", "[memory=2048,vcores=2]"),
                              ("root.b.capacity", "[memory=4096,vcores=4]"),
                              ("root.b.maximum-capacity", "[memory=8192,vcores=8]")), "abs.xml")
    assert b.policy_config.queues["root.b"].maximum_resources.as_dict() == {"memory": 8192, "vcores": 4 * 2}


@pytest.mark.parametrize(("props", "expected"), [
    ((("root.queues", "a,b"), ("root.a.capacity", "30"), ("root.b.capacity", "60")),
     "bad.xml:3: yarn.scheduler.capacity.root.*.capacity: expected the capacities of root's children (a 30, b 60) "
     "to sum to 100, got 90"),
    ((("root.queues", "a"), ("root.a.capacity", "100"), ("root.a.maximum-capacity", "50")),
     "bad.xml:4: yarn.scheduler.capacity.root.a.maximum-capacity: expected ≥ the capacity 100"),
    ((("root.queues", "a,b"), ("root.a.capacity", "50"), ("root.b.capacity", "[memory=1024,vcores=1]")),
     "bad.xml:3: yarn.scheduler.capacity.root.queues: expected the capacities of root's children in one mode"),
    # percent children of an absolute parent: refused by their sum (the parent's percent is 0 in
    # Hadoop), said as the mode the children need, not as "root.a's capacity is 0"
    ((("root.queues", "a"), ("root.a.capacity", "[memory=1024,vcores=1]"), ("root.a.queues", "x,y"),
      ("root.a.x.capacity", "60"), ("root.a.y.capacity", "40")),
     "bad.xml:5: yarn.scheduler.capacity.root.a.*.capacity: expected the capacities of root.a's children (x 60, "
     "y 40) to be absolute ([memory=…,vcores=…]) like root.a's capacity [memory=1024,vcores=1] (percent children "
     "of an absolute parent must sum to 0), got 100 (Hadoop ParentQueue.setChildQueues)"),
    ((("root.queues", "a"), ("root.a.capacity", "lots")),
     "bad.xml:3: yarn.scheduler.capacity.root.a.capacity: expected a percent from 0 to 100"),
    ((("root.queues", "a"), ("root.a.capacity", "100"), ("root.a.state", "PAUSED")),
     "bad.xml:4: yarn.scheduler.capacity.root.a.state: expected RUNNING or STOPPED, got 'PAUSED'"),
    ((("root.queues", "a"), ("root.a.capacity", "100"), ("root.a.maximum-am-resource-percent", "1.5")),
     "bad.xml:4: yarn.scheduler.capacity.root.a.maximum-am-resource-percent: expected a fraction from 0 to 1"),
    ((("root.queues", "a"), ("root.a.capacity", "100"), ("root.a.ordering-policy", "lifo")),
     "bad.xml:4: yarn.scheduler.capacity.root.a.ordering-policy: expected fifo or fair"),
    ((("root.queues", "a"), ("root.a.capacity", "100"), ("queue-mappings", "u:alice")),
     "bad.xml:4: yarn.scheduler.capacity.queue-mappings: expected comma-separated u:<user>:<queue>"),
    ((("root.queues", "a"), ("root.a.capacity", "100"),
      ("resource-calculator", "org.example.Calc")),
     "bad.xml:4: yarn.scheduler.capacity.resource-calculator: expected"),
])
def test_one_error_names_file_line_key_and_expectation(props: tuple, expected: str) -> None:
    with pytest.raises(AllocationError) as info:
        parse_allocations(xml(*props), "bad.xml")
    assert str(info.value).startswith(expected)


def test_every_problem_at_once_and_unknown_keys_warn() -> None:
    with pytest.raises(AllocationError) as info:
        parse_allocations(xml(("root.queues", "a,b"), ("root.a.capacity", "30"), ("root.b.capacity", "60"),
                              ("root.a.maximum-capacity", "20")), "two.xml")
    assert len(info.value.problems) == 2
    a = parse_allocations(xml(("root.queues", "a"), ("root.a.capacity", "100"), ("root.a.colour", "red"),
                              ("root.zz.capacity", "5"), ("no-such-global", "1")), "warn.xml")
    assert [w.split(": ", 1)[1] for w in a.warnings] == [
        "yarn.scheduler.capacity.root.a.colour: unknown queue key 'colour'; ignored",
        "yarn.scheduler.capacity.root.zz.capacity: no such queue root.zz in the tree from root.queues; ignored",
        "yarn.scheduler.capacity.no-such-global: not simulated; ignored",
    ]


def test_a_near_miss_of_a_key_read_here_names_the_key_meant() -> None:
    """A misspelt key is ignored as Hadoop ignores it, but the warning names the key it most
    likely meant; a real Hadoop key that is not simulated gets no such guess."""
    a = parse_allocations(xml(("root.queues", "a"), ("root.a.capacity", "100"), ("root.a.user-limit-factr", "2"),
                              ("root.a.maximum-capacty", "50"), ("node-locality-dealy", "3"),
                              ("root.a.default-node-label-expression", "gpu"),
                              ("root.a.maximum-parallel-apps", "4")), "typo.xml")
    assert [w.split(": ", 1)[1] for w in a.warnings] == [
        "yarn.scheduler.capacity.root.a.user-limit-factr: unknown queue key 'user-limit-factr' "
        "(did you mean 'user-limit-factor'?); ignored",
        "yarn.scheduler.capacity.root.a.maximum-capacty: unknown queue key 'maximum-capacty' "
        "(did you mean 'maximum-capacity'?); ignored",
        "yarn.scheduler.capacity.node-locality-dealy: unknown key "
        "(did you mean 'yarn.scheduler.capacity.node-locality-delay'?); ignored",
        "yarn.scheduler.capacity.root.a.default-node-label-expression: not simulated; ignored",
        # (max-parallel-apps is read since the capfeatures work: its misspelling is a near miss)
        "yarn.scheduler.capacity.root.a.maximum-parallel-apps: unknown queue key 'maximum-parallel-apps' "
        "(did you mean 'max-parallel-apps'?); ignored",
    ]


def test_told_from_mr1_capacity_file_by_keys() -> None:
    """A <configuration> with only mapred.capacity-scheduler.* keys is not a YARN capacity
    file: it stays refused as an allocation file (the MR1 ``capacity`` plugin reads it)."""
    mr1 = ("<configuration><property><name>mapred.capacity-scheduler.queue.default.capacity</name>"
           "<value>100</value></property></configuration>")
    with pytest.raises(AllocationError, match="top-level element must be <allocations>"):
        parse_allocations(mr1, "mr1.xml")
    assert parse_allocations(xml(("root.queues", "default"), ("root.default.capacity", "100"))).dialect \
        == "yarn_capacity"


def test_leaf_limits_and_defaults() -> None:
    a = parse_allocations(xml(("root.queues", "a,b"), ("root.a.capacity", "25"), ("root.b.capacity", "75"),
                              ("maximum-applications", "1000"), ("root.b.maximum-applications", "7"),
                              ("root.a.maximum-am-resource-percent", "0.5"),
                              ("root.a.acl_submit_applications", "alice"), ("root.a.maximum-allocation-mb", "2048"),
                              ("resource-calculator",
                               "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator")))
    conf = a.policy_config
    assert conf.max_applications("root.a") == 250 and conf.max_applications("root.b") == 7
    assert conf.am_resource_percent("root.a") == 0.5 and conf.am_resource_percent("root.b") == 0.1
    assert conf.dominant
    queues = a.queue_config()
    assert queues.can_submit("root.a", "alice") and queues.max_am_share("root.a") == 0.5
    assert queues.max_container_allocation("root.a").memory == 2048
