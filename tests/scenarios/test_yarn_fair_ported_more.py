"""Still more of Hadoop 3.3's YARN fair-scheduler unit tests, ported to the harness:
``TestSchedulingPolicy``, ``TestQueuePlacementPolicy``, ``TestAllocationFileLoaderService``,
``TestQueueManager`` and ``TestFairScheduler``.  Each test names the Hadoop class and method it
ports; the numbers are Hadoop's.  The fixture is :func:`test_yarn_fair_ported.harness`
(``FairSchedulerTestBase.createConfiguration``)."""

from __future__ import annotations

import itertools

import pytest
from test_yarn_fair_ported import fair, harness, simple_groups, usage
from test_yarn_fair_ported_scheduler import am_app, am_usage

from corescheduler.core.calculator import yarn_fair_order_key
from corescheduler.core.model import RESOURCES
from corescheduler.core.queues import default_placement
from corescheduler.core.schedulable import Schedulable
from corescheduler.errors import AllocationError, ConfigError, SchedulerStateError
from corescheduler.resources import Resources as R
from corescheduler.testing import ClusterHarness, SubmissionRejected


# --------------------------------------------------------------------------- TestSchedulingPolicy
def _signum(x: float) -> int:
    return (x > 0) - (x < 0)


def java_fair_share_compare(s1: Schedulable, s2: Schedulable) -> int:
    """Hadoop 3.3's ``FairSharePolicy.FairShareComparator.compare``, step by step:
    ``compareDemand`` (memory only), ``compareMinShareUsage``, ``compareFairShareUsage``, start
    time, name."""
    d1, d2 = s1.demand.memory, s2.demand.memory
    if d1 == 0 and d2 > 0:
        return 1
    if d2 == 0 and d1 > 0:
        return -1
    u1, u2 = s1.running.memory, s2.running.memory
    m1, m2 = min(s1.min_share.memory, d1), min(s2.min_share.memory, d2)
    needy1, needy2 = u1 < m1, u2 < m2
    if needy1 and not needy2:
        return -1
    if needy2 and not needy1:
        return 1
    if needy1 and needy2:
        res = _signum(u1 / max(m1, 1) - u2 / max(m2, 1))
    else:
        w1, w2 = s1.weight, s2.weight
        if w1 > 0 and w2 > 0:
            r1, r2 = u1 / w1, u2 / w2
        elif w1 == w2:
            r1, r2 = float(u1), float(u2)
        else:
            r1, r2 = -w1, -w2
        res = _signum(r1 - r2)
    if res == 0:
        res = _signum(s1.start_time - s2.start_time)
    if res == 0:
        res = (s1.name > s2.name) - (s1.name < s2.name)
    return res


def _mock_schedulable(demand: R, name: str, start: float, used: R, weight: float) -> Schedulable:
    """``TestSchedulingPolicy.FairShareComparatorTester.MockSchedulable``: min share (0, 1)."""
    s = Schedulable(name=name, kind=RESOURCES, owner=None, weight=weight, min_share=R(0, 1), running=used,
                    start_time=start)
    s.demand = demand
    return s


def test_fair_share_comparator_agrees_with_hadoop() -> None:
    """``TestSchedulingPolicy.testFairShareComparatorTransitivity``: Hadoop's data collections
    (demand (0, 0) or (4, 1); names A, B, C; start 1, 2, 3; usage (0, 1), (2, 1), (4, 1);
    weights 0, 1, 2), plus a demand of (0 MB, 1 vcore), which ``compareDemand`` counts as no
    demand (it reads memory only).  A sort key is transitive by construction, so the port
    checks what transitivity protects: every pair is ordered as Hadoop's comparator orders it."""
    scheds = [_mock_schedulable(d, n, t, u, w)
              for d in (R(0, 0), R(4, 1), R(0, 1)) for n in "ABC" for t in (1.0, 2.0, 3.0)
              for u in (R(0, 1), R(2, 1), R(4, 1)) for w in (0.0, 1.0, 2.0)]
    keys = [yarn_fair_order_key(s) for s in scheds]
    wrong = []
    for (a, ka), (b, kb) in itertools.combinations(zip(scheds, keys, strict=True), 2):
        java = java_fair_share_compare(a, b)
        ours = (ka > kb) - (ka < kb)
        if java != ours and len(wrong) < 5:
            wrong.append((a.name, a.demand, a.running, a.weight, b.name, b.demand, b.running, b.weight, java, ours))
    assert wrong == []


# --------------------------------------------------------------------------- FSLeafQueue.canRunAppAM
@pytest.mark.parametrize(("element", "share", "runs"), [
    ("maxAMShare", "-1", True), ("maxAMShare", "-1.0f", True), ("maxAMShare", "-0.5", False),
    ("maxAMShare", "-2", False), ("queueMaxAMShareDefault", "-0.5", False), ("queueMaxAMShareDefault", "-1", True),
])
def test_only_a_max_am_share_of_minus_one_turns_the_am_limit_off(element: str, share: str, runs: bool) -> None:
    """``FSLeafQueue.canRunAppAM``: only a ``maxAMShare`` within 0.0001 of -1 turns the check off;
    any other negative share (``AllocationFileQueueParser.loadQueue`` keeps ``min(v, 1)``)
    gives ``computeMaxAMResource`` a negative limit (``multiplyAndRoundUp``) that no AM fits in,
    so no AM runs in the queue.  The file loads, with a warning naming the element."""
    queue = (f'<queue name="queue1"><maxAMShare>{share}</maxAMShare></queue>' if element == "maxAMShare"
             else f'<queue name="queue1"/><queueMaxAMShareDefault>{share}</queueMaxAMShareDefault>')
    h = harness("8192 mb, 8 vcores", f"<allocations>{queue}</allocations>")
    warned = [w for w in h.scheduler.allocations.warnings if element in w]
    assert bool(warned) is not runs, h.scheduler.allocations.warnings
    app = am_app(h, "queue1", "1024 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    assert h.running(app) == (1 if runs else 0)
    assert am_usage(h, "root.queue1") == (1024 if runs else 0)


def test_queues_command_shows_off_only_for_minus_one(tmp_path) -> None:
    """``corescheduler queues``: the maxAMShare column says ``off`` for -1 only; a queue whose
    other negative share lets no AM run shows that share."""
    import re

    from cli_helpers import run

    (tmp_path / "fair.xml").write_text('<allocations><queue name="off"><maxAMShare>-1</maxAMShare></queue>'
                                       '<queue name="none"><maxAMShare>-0.5</maxAMShare></queue></allocations>',
                                       encoding="utf-8")
    config = tmp_path / "cs.toml"
    config.write_text('[scheduler]\nmode = "resources"\nallocation_file = "fair.xml"\n'
                      '[cluster]\nracks = 1\nnodes_per_rack = 1\nnode_resources = "8192 mb, 8 vcores"\n',
                      encoding="utf-8")
    result = run("queues", "--config", str(config))
    assert result.exit_code == 0, result.output
    header = re.split(r"\s{2,}", result.stdout.splitlines()[1].strip())
    rows = {cells[0]: cells for cells in (re.split(r"\s{2,}", line.strip()) for line in result.stdout.splitlines()[2:])}
    column = next(i for i, name in enumerate(header) if "AM" in name)
    assert rows["off"][column] == "off" and rows["none"][column] == "-0.5"


# --------------------------------------------------------------------------- TestQueuePlacementPolicy (3.3)
def policy(rules: str, queues: str = "", **scheduler: object) -> ClusterHarness:
    """``TestQueuePlacementPolicy.createPolicy``: the rules in an allocation file."""
    return harness("8192 mb, 8 vcores", f"<allocations>{queues}<queuePlacementPolicy>{rules}"
                                        "</queuePlacementPolicy></allocations>", scheduler=scheduler or None)


def refused(rules: str) -> str:
    """``assertIfExceptionThrown(StringBuffer)``: the policy is refused (AllocationConfigurationException)."""
    with pytest.raises(AllocationError) as caught:
        policy(rules)
    return str(caught.value)


@pytest.mark.parametrize(("rules", "message"), [
    pytest.param("<rule name='nestedUserQueue'/>", "must have a parent rule", id="no-nested-rule"),
    pytest.param("<rule name='nestedUserQueue'><rule name='unknownRule'/></rule>", "unknownRule", id="unknown-nested"),
    pytest.param("<rule name='nestedUserQueue'><rule name='reject'/></rule>", "not allowed as a parent rule",
                 id="reject-as-parent"),
    pytest.param("<rule name='nestedUserQueue'><rule name='primaryGroup' create='false'/></rule>",
                 "last queue placement rule", id="parent-without-create-not-terminal"),
])
def test_nested_user_queue_parsing_errors(rules: str, message: str) -> None:
    """``TestQueuePlacementPolicy.testNestedUserQueueParsingErrors``: a nestedUserQueue without a
    nested rule, with an unknown one, with ``reject`` as its parent, or whose parent rule does not
    create (so the last rule is not terminal) is refused."""
    assert message in refused(rules)


def test_terminals() -> None:
    """``TestQueuePlacementPolicy.testTerminals`` (3.3): ``default`` with ``create='false'`` is no
    longer terminal, so secondaryGroupExistingQueue then default(queue=otherdefault,
    create=false) is refused when the file is loaded."""
    message = refused("<rule name='secondaryGroupExistingQueue' create='true'/>"
                      "<rule name='default' queue='otherdefault' create='false'/>")
    assert "last queue placement rule" in message


def test_multiple_parent_rules() -> None:
    """``TestQueuePlacementPolicy.testMultipleParentRules``: a nestedUserQueue with two nested
    rules loads, and the last one (default) is its parent rule."""
    h = policy("<rule name='nestedUserQueue'><rule name='primaryGroup'/><rule name='default'/></rule>")
    (rule,) = h.scheduler.allocations.queue_config().placement
    assert rule.name == "nestedUserQueue" and rule.parent is not None and rule.parent.name == "default"


def test_broken_rules() -> None:
    """``TestQueuePlacementPolicy.testBrokenRules``: a ``<rule/>`` without a name is refused, at
    the top or nested; a policy of only non-rule elements is ignored (YARN's default placement),
    and a non-rule element inside a rule is no parent rule."""
    assert "No name provided" in refused("<rule />")
    assert "No name provided" in refused("<rule name='user'><rule /></rule>")
    h = policy("<notarule />")
    assert h.queue_of(h.submit(queue="default", user="user1")) == "root.user1"  # specified, then user
    h = policy("<rule name='user'><notarule /></rule>")
    (rule,) = h.scheduler.allocations.queue_config().placement
    assert rule.name == "user" and rule.parent is None
    assert h.queue_of(h.submit(queue="somequeue", user="user1")) == "root.user1"


def test_placement_specified_user_and_no_create_33() -> None:
    """``TestQueuePlacementPolicy.testSpecifiedUserPolicy`` / ``testNoCreate`` (3.3, with
    ``createQueue`` making root.someuser): specified, user → root.specifiedq, root.someuser,
    root.otheruser; specified, user(create=false), default → root.specifiedq, root.someuser (it
    exists), root.specifiedq, root.default."""
    h = policy("<rule name='specified'/><rule name='user'/>")
    assert [h.queue_of(h.submit(queue=q, user=u)) for q, u in
            (("specifiedq", "someuser"), ("default", "someuser"), ("default", "otheruser"))] == [
        "root.specifiedq", "root.someuser", "root.otheruser"]
    h = policy("<rule name='specified'/><rule name='user' create='false'/><rule name='default'/>",
               '<queue name="someuser"/>')
    assert [h.queue_of(h.submit(queue=q, user=u)) for q, u in
            (("specifiedq", "someuser"), ("default", "someuser"), ("specifiedq", "otheruser"),
             ("default", "otheruser"))] == ["root.specifiedq", "root.someuser", "root.specifiedq", "root.default"]


def test_specified_then_reject() -> None:
    """``TestQueuePlacementPolicy.testSpecifiedThenReject``: root.specifiedq; nothing specified →
    rejected (the placement context is null), nothing stored."""
    h = policy("<rule name='specified'/><rule name='reject'/>")
    assert h.queue_of(h.submit(queue="specifiedq", user="someuser")) == "root.specifiedq"
    with pytest.raises(SubmissionRejected):
        h.submit(queue="default", user="someuser")
    assert len(h.scheduler.jobs) == 1


# --------------------------------------------------------------------------- TestAllocationFileLoaderService (3.3)
def test_reload() -> None:
    """``TestAllocationFileLoaderService.testReload``: first queueA (maxRunningApps 1) and queueB,
    placement ``default`` only; then queueB (maxRunningApps 3), placement specified then
    nestedUserQueue(primaryGroup).  Each load's rules, limits and configured leaves are in force."""
    first = ('<allocations><queue name="queueA"><maxRunningApps>1</maxRunningApps></queue><queue name="queueB"/>'
             "<queuePlacementPolicy><rule name='default'/></queuePlacementPolicy></allocations>")
    second = ('<allocations><queue name="queueB"><maxRunningApps>3</maxRunningApps></queue>'
              "<queuePlacementPolicy><rule name='specified'/><rule name='nestedUserQueue'>"
              "<rule name='primaryGroup'/></rule></queuePlacementPolicy></allocations>")
    h = harness("8192 mb, 8 vcores", first)
    qc = h.scheduler.allocations.queue_config()
    assert [r.name for r in qc.placement] == ["default"]
    assert qc.max_running_apps("root.queueA") == 1
    assert qc.leaves() == ["root.queueA", "root.queueB"]
    assert h.queue_of(h.submit(queue="queueB", user="user1", groups=simple_groups("user1"))) == "root.default"
    h.set_allocations(second)
    qc = h.scheduler.allocations.queue_config()
    assert [r.name for r in qc.placement] == ["specified", "nestedUserQueue"]
    assert qc.placement[1].parent is not None and qc.placement[1].parent.name == "primaryGroup"
    assert qc.max_running_apps("root.queueB") == 3
    assert qc.leaves() == ["root.queueB"]
    assert h.queue_of(h.submit(queue="default", user="user1", groups=simple_groups("user1"))) == "root.user1group.user1"


def test_backwards_compatible_allocation_file_parsing() -> None:
    """``TestAllocationFileLoaderService.testBackwardsCompatibleAllocationFileParsing``: ``<pool>``
    elements and the top-level ``fairSharePreemptionTimeout`` (root's fair-share timeout) are
    read as their YARN names."""
    xml = """<allocations>
      <pool name="queueA"><minResources>1024mb,0vcores</minResources></pool>
      <pool name="queueB"><minResources>2048mb,0vcores</minResources>
        <aclAdministerApps>alice,bob admins</aclAdministerApps></pool>
      <pool name="queueC"><aclSubmitApps>alice,bob admins</aclSubmitApps></pool>
      <pool name="queueD"><maxRunningApps>3</maxRunningApps></pool>
      <pool name="queueE"><minSharePreemptionTimeout>60</minSharePreemptionTimeout>
        <fairSharePreemptionThreshold>0.3</fairSharePreemptionThreshold></pool>
      <queueMaxAppsDefault>15</queueMaxAppsDefault><userMaxAppsDefault>5</userMaxAppsDefault>
      <user name="user1"><maxRunningApps>10</maxRunningApps></user>
      <defaultMinSharePreemptionTimeout>120</defaultMinSharePreemptionTimeout>
      <fairSharePreemptionTimeout>300</fairSharePreemptionTimeout>
      <defaultFairSharePreemptionThreshold>0.6</defaultFairSharePreemptionThreshold>
    </allocations>"""
    qc = harness("8192 mb, 8 vcores", xml).scheduler.allocations.queue_config()
    names = ["root.queueA", "root.queueB", "root.queueC", "root.queueD", "root.queueE"]
    assert qc.leaves() == names
    assert [qc.min_resources(q).memory for q in ["root.default", *names]] == [0, 1024, 2048, 0, 0, 0]
    assert [qc.max_running_apps(q) for q in ["root.default", *names]] == [15, 15, 15, 15, 3, 15]
    assert (qc.user_max_running_apps("user1"), qc.user_max_running_apps("user2")) == (10, 5)
    assert qc.min_share_preemption_timeout("root") == 120
    assert qc.min_share_preemption_timeout("root.queueE") == 60
    assert qc.fair_share_preemption_timeout("root") == 300
    assert abs(qc.fair_share_preemption_threshold("root") - 0.6) < 0.01
    assert abs(qc.fair_share_preemption_threshold("root.queueE") - 0.3) < 0.01
    # a queue without its own inherits root's (Hadoop's -1 = "from the parent")
    assert qc.min_share_preemption_timeout("root.queueA") == 120
    assert abs(qc.fair_share_preemption_threshold("root.queueA") - 0.6) < 0.01


def test_simple_placement_policy_from_conf() -> None:
    """``TestAllocationFileLoaderService.testSimplePlacementPolicyFromConf``: no placement policy,
    allow-undeclared-pools and user-as-default-queue false: specified (create false), then
    default.  An undeclared queue asked for goes to root.default."""
    h = harness("8192 mb, 8 vcores", "<allocations/>",
                scheduler={"allow_undeclared_pools": False, "user_as_default_queue": False})
    assert h.scheduler.allocations.queue_config().placement is None  # no file policy: the rules plugin's
    rules = default_placement(user_as_default_queue=False, allow_undeclared_pools=False)  # (fromConfiguration)
    assert [(r.name, r.create) for r in rules] == [("specified", False), ("default", True)]
    assert h.queue_of(h.submit(queue="somequeue", user="user1")) == "root.default"
    assert "root.somequeue" not in h.shares()["queues"]


@pytest.mark.parametrize("name", ["      ", "\u00a0"], ids=["whitespace", "non-breaking-space"])
def test_queue_name_containing_only_whitespace(name: str) -> None:
    """``TestAllocationFileLoaderService.testQueueNameContainingOnlyWhitespace`` /
    ``testQueueNameContainingNBWhitespace``: refused."""
    with pytest.raises(AllocationError, match="empty or consist only of whitespace"):
        harness("8192 mb, 8 vcores", f'<allocations><queue name="{name}"></queue></allocations>')


def test_parent_tag_with_child() -> None:
    """``TestAllocationFileLoaderService.testParentTagWithChild``: type="parent" with a child
    queue loads: root.parent a configured parent, root.parent.child a leaf."""
    qc = harness("8192 mb, 8 vcores", '<allocations><queue name="parent" type="parent"><queue name="child"/>'
                                      "</queue></allocations>").scheduler.allocations.queue_config()
    assert qc.is_configured_parent("root.parent")
    assert qc.leaves() == ["root.parent.child"]


def test_reservable_queue_is_a_parent_not_a_leaf() -> None:
    """``TestAllocationFileLoaderService.testReservableQueue`` (what is supported here): a queue with
    ``<reservation>`` is a configured parent, not a leaf; ``reservation-agent`` and
    ``reservation-policy`` load (YARN's reservation system is not supported: warned)."""
    h = harness("8192 mb, 8 vcores", """<allocations><queue name="reservable"><reservation></reservation></queue>
      <queue name="other"></queue><reservation-agent>DummyAgentName</reservation-agent>
      <reservation-policy>AnyAdmissionPolicy</reservation-policy></allocations>""")
    qc = h.scheduler.allocations.queue_config()
    assert qc.is_configured_parent("root.reservable") and not qc.is_configured_parent("root.other")
    assert "root.reservable" not in qc.leaves() and "root.other" in qc.leaves()
    assert any("reservation-agent" in w for w in h.scheduler.allocations.warnings)


ALLOCATION_FILE_PARSING = """<allocations>
  <queue name="queueA"><minResources>1024mb,0vcores</minResources><maxResources>2048mb,10vcores</maxResources></queue>
  <queue name="queueB"><minResources>2048mb,0vcores</minResources><maxResources>5120mb,110vcores</maxResources>
    <aclAdministerApps>alice,bob admins</aclAdministerApps><schedulingPolicy>fair</schedulingPolicy></queue>
  <queue name="queueC"><minResources>5120mb,0vcores</minResources>
    <aclSubmitApps>alice,bob admins</aclSubmitApps></queue>
  <queue name="queueD"><maxRunningApps>3</maxRunningApps><maxAMShare>0.4</maxAMShare></queue>
  <queue name="queueE"><minSharePreemptionTimeout>60</minSharePreemptionTimeout></queue>
  <queue name="queueF" type="parent"><maxChildResources>2048mb,64vcores</maxChildResources></queue>
  <queue name="queueG"><maxChildResources>2048mb,64vcores</maxChildResources>
    <fairSharePreemptionTimeout>120</fairSharePreemptionTimeout><minSharePreemptionTimeout>50</minSharePreemptionTimeout>
    <fairSharePreemptionThreshold>0.6</fairSharePreemptionThreshold>
    <maxContainerAllocation>vcores=16, memory-mb=512, a-custom-resource=10</maxContainerAllocation>
    <queue name="queueH"><fairSharePreemptionTimeout>180</fairSharePreemptionTimeout>
      <minSharePreemptionTimeout>40</minSharePreemptionTimeout>
      <fairSharePreemptionThreshold>0.7</fairSharePreemptionThreshold>
      <maxContainerAllocation>1024mb,8vcores</maxContainerAllocation></queue>
  </queue>
  <queueMaxAppsDefault>15</queueMaxAppsDefault>
  <queueMaxResourcesDefault>4096mb,100vcores</queueMaxResourcesDefault>
  <userMaxAppsDefault>5</userMaxAppsDefault>
  <queueMaxAMShareDefault>0.5</queueMaxAMShareDefault>
  <defaultMinSharePreemptionTimeout>120</defaultMinSharePreemptionTimeout>
  <defaultFairSharePreemptionTimeout>300</defaultFairSharePreemptionTimeout>
  <defaultFairSharePreemptionThreshold>0.4</defaultFairSharePreemptionThreshold>
  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
  <user name="user1"><maxRunningApps>10</maxRunningApps></user>
</allocations>"""


def test_allocation_file_parsing_33() -> None:
    """``TestAllocationFileLoaderService.testAllocationFileParsing`` (Hadoop 3.3, with the custom
    resource type ``a-custom-resource``): every value Hadoop checks, queue by queue."""
    qc = harness("8192 mb, 8 vcores", ALLOCATION_FILE_PARSING).scheduler.allocations.queue_config()
    leaves = ["root.queueA", "root.queueB", "root.queueC", "root.queueD", "root.queueE", "root.queueG.queueH"]
    assert qc.leaves() == leaves
    assert qc.is_configured_parent("root.queueF") and qc.is_configured_parent("root.queueG")
    every = ["root.default", *leaves[:5], "root.queueF", "root.queueG", "root.queueG.queueH"]
    assert qc.max_resources("root.queueA") == R(2048, 10)
    assert qc.max_resources("root.queueB") == R(5120, 110)
    for q in every[3:]:  # queueC on: queueMaxResourcesDefault
        assert qc.max_resources(q) == R(4096, 100), q
    mins = {"root.default": 0, "root.queueA": 1024, "root.queueB": 2048, "root.queueC": 5120}
    assert [qc.min_resources(q) for q in every] == [R(mins.get(q, 0), 0) for q in every]
    for q in every:
        child = qc.spec(q).max_child_resources
        if q in ("root.queueF", "root.queueG"):
            assert child is not None and child.resolve(R(8192, 8)) == R(2048, 64), q
        else:
            assert child is None, q
    assert [qc.max_running_apps(q) for q in every[:6]] == [15, 15, 15, 15, 3, 15]
    assert (qc.user_max_running_apps("user1"), qc.user_max_running_apps("user2")) == (10, 5)
    assert [qc.max_am_share(q) for q in every[:6]] == pytest.approx([0.5, 0.5, 0.5, 0.5, 0.4, 0.5], abs=0.01)
    for q in every[:7]:
        assert qc.max_container_allocation(q) is None, q  # unbounded: the scheduler's maximum
    assert qc.max_container_allocation("root.queueG") == R(512, 16, {"a-custom-resource": 10})
    assert qc.max_container_allocation("root.queueG.queueH") == R(1024, 8)
    # Hadoop keeps -1 for "not set" and inherits at run time; here the effective values
    assert qc.min_share_preemption_timeout("root") == 120
    assert [qc.min_share_preemption_timeout(q) for q in every] == [120, 120, 120, 120, 120, 60, 120, 50, 40]
    assert qc.fair_share_preemption_timeout("root") == 300
    assert [qc.fair_share_preemption_timeout(q) for q in every] == [300] * 7 + [120, 180]
    assert [qc.fair_share_preemption_threshold(q) for q in ["root", *every]] == pytest.approx(
        [0.4] * 8 + [0.6, 0.7], abs=0.01)
    assert qc.scheduling_policy("root") == "drf" and qc.scheduling_policy("root.queueA") == "drf"
    assert qc.scheduling_policy("root.queueB") == "fair" and qc.scheduling_policy("root.newqueue") == "drf"


# --------------------------------------------------------------------------- TestFairScheduler
@pytest.mark.parametrize(("cluster", "resource"), [
    ({"minimum_allocation": "2048 mb, 1 vcores", "maximum_allocation": "1024 mb, 4 vcores"}, "in memory"),
    ({"minimum_allocation": "0 mb, 2 vcores", "maximum_allocation": "10240 mb, 1 vcores"}, "in vcores"),
])
def test_conf_validation(cluster: dict, resource: str) -> None:
    """``TestFairScheduler.testConfValidation``: a minimum allocation above the maximum (2048 MB
    over 1024 MB; 2 vcores over 1) is refused when the scheduler starts ("Invalid resource
    scheduler memory / vcores"), naming the setting."""
    with pytest.raises(ConfigError, match="maximum_allocation") as caught:
        harness("8192 mb, 8 vcores", cluster=cluster)
    assert str(caught.value).endswith(resource)


def test_aggregate_capacity_tracking() -> None:
    """``TestFairScheduler.testAggregateCapacityTracking``: nodes of 1024 and 512 MB make 1536;
    without the first, 512.  (``testRemoveNodeUpdatesRootQueueMetrics``: what root has available
    follows the nodes the same way.)"""
    h = harness("1024 mb, 4 vcores")
    engine = h.scheduler.resource_engine
    assert engine.cluster_total.memory == 1024
    h.add_node("n0001", resources="512 mb, 2 vcores")
    assert engine.cluster_total.memory == 1536
    h.update()
    available = engine.cluster_total - engine.tree.root.sched.running
    assert (available.memory, available.vcores) == (1536, 6)
    h.remove_node("n0000")
    assert engine.cluster_total.memory == 512
    h.update()
    assert h.shares()["queues"]["root"]["fair"] == {"memory": 512, "vcores": 2}


def test_compute_max_am_resource() -> None:
    """``TestFairScheduler.testComputeMaxAMResource``: drf by default, a 20 GB / 20 vc node, three
    queues with maxAMShare 0.5.  queueFSZeroWithMax (weight 0, max 4096 MB / 4 vc): fair share 0,
    so its AM limit is max share × 0.5 = 2048 MB / 2 vc and its 1 GB AM runs (a second one too,
    a third not).  queueFSZeroWithAVL (weight 0, no max): the limit comes from what is available
    (19456 MB × 0.5) and its AM runs.  queueFSNonZero (weight 1): a fair share above 0, and its
    AM runs."""
    xml = """<allocations>
      <queue name="queueFSZeroWithMax"><weight>0</weight><maxAMShare>0.5</maxAMShare>
        <maxResources>4096 mb 4 vcores</maxResources></queue>
      <queue name="queueFSZeroWithAVL"><weight>0.0</weight><maxAMShare>0.5</maxAMShare></queue>
      <queue name="queueFSNonZero"><weight>1</weight><maxAMShare>0.5</maxAMShare></queue>
      <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy></allocations>"""
    h = harness("20480 mb, 20 vcores", xml)
    h.update()

    def step() -> None:
        h.update()
        h.heartbeat("n0000")

    app1 = am_app(h, "queueFSZeroWithMax", "1024 mb, 1 vcores")
    step()
    assert fair(h, "root.queueFSZeroWithMax") == 0
    assert h.running(app1) == 1 and am_usage(h, "root.queueFSZeroWithMax") == 1024
    app2 = am_app(h, "queueFSZeroWithAVL", "1024 mb, 1 vcores")
    step()
    assert fair(h, "root.queueFSZeroWithAVL") == 0
    assert h.running(app2) == 1 and am_usage(h, "root.queueFSZeroWithAVL") == 1024
    app3 = am_app(h, "queueFSNonZero", "1024 mb, 1 vcores")
    step()
    assert fair(h, "root.queueFSNonZero") != 0
    assert h.running(app3) == 1 and am_usage(h, "root.queueFSNonZero") == 1024
    more = [am_app(h, "queueFSZeroWithMax", "1024 mb, 1 vcores") for _ in range(2)]
    step()
    step()
    assert [h.running(a) for a in more] == [1, 0] and am_usage(h, "root.queueFSZeroWithMax") == 2048


def test_multiple_completed_event() -> None:
    """``TestFairScheduler.testMultipleCompletedEvent``: an app's AM container completes (lost),
    and the same container is reported again: the app and its queue use nothing.  (The harness
    refuses the second report of a container it no longer has, and changes nothing.)"""
    xml = '<allocations><queue name="queue1"><maxAMShare>0.2</maxAMShare></queue></allocations>'
    h = harness("20480 mb, 20 vcores", xml)
    h.update()
    app = am_app(h, "queue1", "1024 mb, 1 vcores")
    h.update()
    (am,) = h.heartbeat("n0000")
    h.kill(am.task)
    with pytest.raises(SchedulerStateError):
        h.kill(am.task)
    assert h.running(app) == 0
    assert usage(h, "root.queue1") == {"memory": 0, "vcores": 0}


def test_completed_container_on_removed_node() -> None:
    """``TestFairScheduler.testCompletedContainerOnRemovedNode``: a node-local container on a 2048 MB
    node; the node is removed, and its container's completion does not fail: the container is
    gone with the node, the app and queue use nothing, its ask is pending again."""
    h = harness("2048 mb, 8 vcores")
    app = h.submit_app(queue="root.queue1", user="user1", requests=[
        {"resources": "1024 mb, 1 vcores", "locations": ["n0000"], "relax_locality": True}])
    h.update()
    (container,) = h.heartbeat("n0000")
    assert container.node == "n0000" and h.running(app) == 1
    h.remove_node("n0000")
    assert h.running(app) == 0 and usage(h, "root.queue1") == {"memory": 0, "vcores": 0}
    with pytest.raises(SchedulerStateError, match="not running"):
        h.finish(container.task)
    assert h.demand(app) == {"memory": 1024, "vcores": 1}


def test_scheduling_on_removed_node() -> None:
    """``TestFairScheduler.testSchedulingOnRemovedNode``: an app asks 1024 MB / 8 vc; its only node
    is removed before it heartbeats: the heartbeat of the removed node neither fails nor assigns
    (``FairScheduler.attemptScheduling``: "Skipping scheduling as the node has been removed"),
    and the app is then removed cleanly."""
    h = harness("8192 mb, 8 vcores", cluster={"maximum_allocation": "10240 mb, 8 vcores"})
    app = h.submit(queue="root.queue1", user="user1", resources="1024 mb, 8 vcores")
    h.remove_node("n0000")
    assert h.heartbeat("n0000") == []
    assert h.running(app) == 0
    h.kill_app(app)
    h.update()
    assert not h.scheduler.jobs or app.id not in h.scheduler.jobs


# --------------------------------------------------------------------------- FSAppAttempt.isReservable
def test_an_app_starved_for_its_queue_min_share_reserves_above_its_fair_share() -> None:
    """``FSAppAttempt.isReservable``: an app reserves when it is starved (``isStarved``: below its
    fair share, *or* handed some of its leaf's min-share starvation by
    ``FSLeafQueue.updateStarvedAppsMinshare``) and its request is at least the reservation
    threshold.  An 8 GB node: queue B runs six 1 GB containers; in queue A (min share 4096 MB,
    min-share timeout 0) app X runs two and asks 2 GB more, app Y asks 1 GB.  A's fair share is
    4096 (X and Y 2048 each); A is 2048 below its min share, handed to Y (1024) then X (1024).
    On the full node Y's 1 GB is under the 2 GB threshold; X, at its fair share but min-share
    starved, reserves the node."""
    xml = """<allocations><queue name="A"><minResources>4096 mb, 4 vcores</minResources>
      <minSharePreemptionTimeout>0</minSharePreemptionTimeout></queue><queue name="B"/></allocations>"""
    h = harness("8192 mb, 8 vcores", xml, scheduler={
        "preemption": True, "preemption_utilization_threshold": 0.0, "reservation_threshold": "2048 mb, 0 vcores"})
    b = h.submit(queue="B", user="user1", tasks=6, resources="1024 mb, 1 vcores")
    h.update()
    for _ in range(6):
        h.heartbeat("n0000")
    x = h.submit_app(queue="A", user="user1", requests=[{"resources": "1024 mb, 1 vcores", "count": 2}])
    h.update()
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    assert (h.running(b), h.running(x)) == (6, 2)
    h.add_requests(x, [{"resources": "2048 mb, 1 vcores", "priority": 1}])
    y = h.submit(queue="A", user="user1", resources="1024 mb, 1 vcores")
    h.update()
    assert fair(h, "root.A") == 4096
    jobs = h.shares()["jobs"]
    assert jobs[x.id]["fair"]["memory"] == 2048 and jobs[y.id]["fair"]["memory"] == 2048
    engine = h.scheduler.resource_engine
    assert engine.starvation[x.id].memory == 1024 and engine.starvation[y.id].memory == 1024
    h.heartbeat("n0000")
    node = h.scheduler.cluster.nodes["n0000"]
    assert node.reserved is not None and node.reserved.job is x
    assert h.running(y) == 0


# --------------------------------------------------------------------------- FSLeafQueue.updateStarvedApps
def min_share_cluster(min_share: str) -> tuple[ClusterHarness, object]:
    """An 8 GB node, queue B running eight 1 GB containers, queue A (min share ``min_share``,
    min-share timeout 0) empty; preemption on from any utilization."""
    xml = f"""<allocations><queue name="A"><minResources>{min_share}</minResources>
      <minSharePreemptionTimeout>0</minSharePreemptionTimeout></queue><queue name="B"/></allocations>"""
    h = harness("8192 mb, 8 vcores", xml, scheduler={"preemption": True, "preemption_utilization_threshold": 0.0})
    b = h.submit(queue="B", user="user1", tasks=8, resources="1024 mb, 1 vcores")
    h.update()
    for _ in range(8):
        h.heartbeat("n0000")
    assert h.running(b) == 8
    return h, b


def test_min_share_starvation_is_handed_out_as_hadoop_hands_it() -> None:
    """``FSLeafQueue.updateStarvedAppsMinshare``: the leaf's min-share starvation goes to its apps
    with pending demand in policy order; an app asking for more than what is left is given its
    pending demand *minus* what is left (``subtractFromNonNegative(appMinShare, pending)``), and
    the apps after it none.  Queue A, min share 2048 MB, runs nothing: X asks 3 × 1 GB, Y 1 × 1 GB
    (after X).  A is 2048 MB short: X is given 3072 − 2048 = 1024 MB, Y nothing; so one of B's
    containers is preempted, for X."""
    h, b = min_share_cluster("2048 mb, 2 vcores")
    x = h.submit(queue="A", user="user1", tasks=3, resources="1024 mb, 1 vcores")
    h.clock_only(1)  # (Y starts after X)
    y = h.submit(queue="A", user="user1", tasks=1, resources="1024 mb, 1 vcores")
    h.update()
    engine = h.scheduler.resource_engine
    assert engine.starvation.get(x.id) == R(1024, 1) and y.id not in engine.starvation
    killed = h.preempt()
    assert len(killed) == 1 and h.running(b) == 7
    h.heartbeat("n0000")
    assert (h.running(x), h.running(y)) == (1, 0)


def test_min_share_starvation_excludes_the_fair_share_starvation() -> None:
    """``FSLeafQueue.updateStarvedApps``: the leaf's min-share starvation less the apps' fair-share
    starvation is what ``updateStarvedAppsMinshare`` hands out.  Queue A (min share 4096 MB / 4
    vc, fair-share timeout 0, threshold 0.5): X then Y ask 4 × 1 GB each.  A's fair share is
    4096, theirs 2048 each: each is 1024 MB below half of it (fair-share starvation 1024 MB).  A
    is (4096, 4) below its min share; less the 2048 MB of fair-share starvation, (2048, 4) is
    handed out: X's pending (4096, 4) less its 1024 is more than that, so X is given
    (3072, 4) − (2048, 4) = (1024, 0) and Y nothing more: X is starved for 2048 MB, Y for 1024."""
    xml = """<allocations><queue name="A"><minResources>4096 mb, 4 vcores</minResources>
      <minSharePreemptionTimeout>0</minSharePreemptionTimeout><fairSharePreemptionTimeout>0</fairSharePreemptionTimeout>
      <fairSharePreemptionThreshold>0.5</fairSharePreemptionThreshold></queue><queue name="B"/></allocations>"""
    h = harness("8192 mb, 8 vcores", xml, scheduler={"preemption": True, "preemption_utilization_threshold": 0.0})
    h.submit(queue="B", user="user1", tasks=8, resources="1024 mb, 1 vcores")
    h.update()
    for _ in range(8):
        h.heartbeat("n0000")
    x = h.submit(queue="A", user="user1", tasks=4, resources="1024 mb, 1 vcores")
    h.clock_only(1)  # (Y starts after X)
    y = h.submit(queue="A", user="user1", tasks=4, resources="1024 mb, 1 vcores")
    h.update()
    jobs = h.shares()["jobs"]
    assert jobs[x.id]["fair"]["memory"] == 2048 and jobs[y.id]["fair"]["memory"] == 2048
    starvation = h.scheduler.resource_engine.starvation
    assert (starvation[x.id], starvation[y.id]) == (R(2048, 0), R(1024, 0))


def test_get_apps_in_queue() -> None:
    """``TestFairScheduler.testGetAppsInQueue``: apps in queue1.subqueue1, queue1.subqueue2 and
    (by user-as-default-queue) root.user1: queue1 holds the first two (its subqueues'), the
    subqueue and root.user1 one each, root all three."""
    h = harness("8192 mb, 8 vcores")
    app1 = h.submit(queue="queue1.subqueue1", user="user1", resources="1024 mb, 1 vcores")
    app2 = h.submit(queue="queue1.subqueue2", user="user1", resources="1024 mb, 1 vcores")
    app3 = h.submit(queue="default", user="user1", resources="1024 mb, 1 vcores")

    def apps_in(queue: str) -> set[str]:
        full = queue if queue.startswith("root") else f"root.{queue}"
        return {j.id for j in h.scheduler.jobs.values() if j.queue == full or j.queue.startswith(full + ".")}

    assert apps_in("queue1.subqueue1") == apps_in("root.queue1.subqueue1") == {app1.id}
    assert apps_in("user1") == apps_in("root.user1") == {app3.id}
    assert apps_in("queue1") == {app1.id, app2.id}
    queues = h.shares()["queues"]
    assert [queues[q]["runnable_apps"] for q in ("root.queue1", "root.queue1.subqueue1", "root.user1", "root")] == [
        2, 1, 1, 3]


# --------------------------------------------------------------------------- FSPreemptionThread
def test_preemption_counts_a_nodes_reservation_as_taken() -> None:
    """``FSPreemptionThread.identifyContainersToPreemptOnNode``: what a node can give a starved
    request starts from its unallocated resources *less what is reserved on it*
    (``getTotalReserved``).  Two 4 GB nodes full of queue a's eight 1 GB containers; app R of
    queue b reserves n0000 for 4 GB; app S of queue c (fair-share timeout 0, threshold 1) is
    starved for 2 × 1 GB.  On n0000 a 1 GB request would need 5 GB freed, more than the node
    has, so both containers are preempted on n0001."""
    xml = """<allocations><queue name="a"/><queue name="b"/>
      <queue name="c"><fairSharePreemptionTimeout>0</fairSharePreemptionTimeout>
        <fairSharePreemptionThreshold>1.0</fairSharePreemptionThreshold></queue></allocations>"""
    h = harness("4096 mb, 4 vcores", xml, nodes=2,
                scheduler={"preemption": True, "preemption_utilization_threshold": 0.0})
    greedy = h.submit(queue="a", user="user1", tasks=8, resources="1024 mb, 1 vcores")
    h.update()
    for _ in range(4):
        h.heartbeat("n0000")
        h.heartbeat("n0001")
    assert h.running(greedy) == 8
    r = h.submit(queue="b", user="user1", resources="4096 mb, 1 vcores")
    h.update()
    h.heartbeat("n0000")
    node = h.scheduler.cluster.nodes["n0000"]
    assert node.reserved is not None and node.reserved.job is r
    s = h.submit(queue="c", user="user1", tasks=2, resources="1024 mb, 1 vcores")
    h.update()
    assert s.id in h.scheduler.resource_engine.starvation
    killed = h.preempt()
    nodes = h.scheduler.cluster.nodes
    assert len(killed) == 2
    assert (nodes["n0000"].used.memory, nodes["n0001"].used.memory) == (4096, 2048)
