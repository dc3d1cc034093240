"""The MR1 allocation file's ``<poolPlacementPolicy>`` (Hadoop branch-1 fair scheduler,
``PoolPlacementPolicy`` / ``PoolPlacementRule``, read by ``PoolManager.reloadAllocs`` and
applied by ``PoolManager.getPoolName``).  Ports ``TestPoolPlacementPolicy``: its configured
pools are ``{"someuser"}``, which here is a ``<pool name="someuser"/>`` of the same file; a job's
requested pool is its pool property (``queue.name`` here, ``mapred.fairscheduler.pool`` /
``poolnameproperty`` there), ``"default"`` when it has none."""

from __future__ import annotations

import pytest

from corescheduler.core.scheduler import JobRejectedError
from corescheduler.errors import AllocationError
from corescheduler.formats.allocation_file import parse_allocations
from corescheduler.testing import ClusterHarness


def allocations(policy: str) -> str:
    return (f"<allocations>\n<pool name='someuser'/>\n<poolPlacementPolicy>{policy}</poolPlacementPolicy>\n"
            "</allocations>")


def harness(policy: str) -> ClusterHarness:
    return ClusterHarness(allocations=allocations(policy))


def placed(h: ClusterHarness, requested: str | None, user: str) -> str:
    return h.job(h.submit(maps=1, pool=requested, user=user)).pool


def test_specified_user_policy():
    """TestPoolPlacementPolicy.testSpecifiedUserPolicy."""
    h = harness("<specified/><user/>")
    assert placed(h, "specifiedq", "someuser") == "specifiedq"
    assert placed(h, "default", "someuser") == "someuser"
    assert placed(h, "default", "otheruser") == "otheruser"


def test_no_create():
    """TestPoolPlacementPolicy.testNoCreate: ``<user create="false"/>`` places only in a pool the
    file declares."""
    h = harness('<specified/><user create="false"/><default/>')
    assert placed(h, "specifiedq", "someuser") == "specifiedq"
    assert placed(h, "default", "someuser") == "someuser"
    assert placed(h, "specifiedq", "otheruser") == "specifiedq"
    assert placed(h, "default", "otheruser") == "default"


def test_specified_then_reject():
    """TestPoolPlacementPolicy.testSpecifiedThenReject: ``assignJobToPool`` answers null: the
    job is refused, and leaves nothing behind."""
    h = harness("<specified/><reject/>")
    assert placed(h, "specifiedq", "someuser") == "specifiedq"
    with pytest.raises(JobRejectedError, match="poolPlacementPolicy"):
        h.submit(maps=1, pool="default", user="someuser")
    assert len(h.scheduler.jobs) == 1


def test_a_job_naming_no_pool_requests_default():
    """``PoolManager.getPoolName``: the requested pool is the pool property, else ``default``."""
    h = harness("<specified/><user/>")
    assert h.job(h.submit(maps=1, user="someuser", properties={"user.name": "someuser"})).pool == "someuser"


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        # TestPoolPlacementPolicy.testOmittedTerminalRule
        ('<specified/><user create="false"/>', "Could get past last pool placement rule without assigning"),
        # TestPoolPlacementPolicy.testTerminalRuleInMiddle (rule numbers are Hadoop's, from 0)
        ("<specified/><default/><user/>", "Rules after rule 1 in pool placement policy can never be reached"),
        ("<specified/><secondaryGroupExistingQueue/><default/>", "No rule class found for secondaryGroupExistingQueue"),
        ("", "no rule"),
    ],
)
def test_bad_policies_are_refused(policy, message):
    with pytest.raises(AllocationError) as info:
        parse_allocations(allocations(policy), "pools.xml")
    assert message in str(info.value)
    assert str(info.value).startswith("pools.xml:3:")


def test_create_is_read_as_java_reads_it():
    """``PoolPlacementRule.initializeFromXml``: ``Boolean.parseBoolean`` — only "true" (any case)
    is true; other attributes are ignored."""
    parsed = parse_allocations(allocations('<specified/><user create="TRUE"/>'))
    assert [(r.name, r.create) for r in parsed.pool_placement] == [("specified", True), ("user", True)]
    parsed = parse_allocations(allocations('<specified/><user create="no" foo="1"/><default/>'))
    assert [(r.name, r.create) for r in parsed.pool_placement] == [("specified", True), ("user", False),
                                                                   ("default", True)]


def test_a_reload_replaces_the_policy():
    h = harness("<specified/><user/>")
    assert placed(h, "default", "otheruser") == "otheruser"
    h.set_allocations(allocations("<specified/><default/>"))
    assert placed(h, "default", "otheruser") == "default"
    h.set_allocations("<allocations/>")  # no policy: the pool property decides, as before
    assert placed(h, "default", "otheruser") == "default"
    assert placed(h, "specifiedq", "otheruser") == "specifiedq"


# ============================================================================ allow.undeclared.pools

POOL_A = "<allocations><pool name='poolA'><minMaps>1</minMaps><minReduces>1</minReduces></pool></allocations>"
UNDECLARED = '[scheduler]\nallow_undeclared_pools = false\n[plugins.property]\npool_name_property = "pool"\n'


@pytest.mark.parametrize(
    ("pool", "error"),
    [
        (None, "Pool name: 'default' is invalid. Add pool name to the fair scheduler allocation file. "
               "Valid pools are: poolA"),  # testDefaultPoolName
        ("poolA", None),  # testValidPoolName
        ("poolB", "Add pool name to the fair scheduler allocation file"),  # testInvalidPoolName
    ],
)
def test_fair_scheduler_pool_names(pool, error):
    """TestFairSchedulerPoolNames (``mapred.fairscheduler.allow.undeclared.pools`` false): the
    placement is ``specified`` (create false) then ``default``
    (``PoolManager.getSimplePlacementRules``), and ``FairScheduler.checkJobSubmission`` refuses a
    job whose pool the file does not declare."""
    h = ClusterHarness(config=UNDECLARED, allocations=POOL_A)
    if error is None:
        assert h.job(h.submit(maps=1, reduces=0, pool=pool, user="u")).pool == pool
    else:
        with pytest.raises(JobRejectedError, match=error):
            h.submit(maps=1, reduces=0, pool=pool, user="u")
        assert h.scheduler.jobs == {} or len(h.scheduler.jobs) == 0


def test_undeclared_pools_with_a_placement_policy():
    """With a ``<poolPlacementPolicy>`` the policy places the job, then ``checkJobSubmission``
    refuses a pool the file does not declare."""
    policy = ("<allocations><pool name='someuser'/><poolPlacementPolicy><specified/><user/></poolPlacementPolicy>"
              "</allocations>")
    h = ClusterHarness(config=UNDECLARED, allocations=policy)
    assert h.job(h.submit(maps=1, pool="default", user="someuser")).pool == "someuser"
    with pytest.raises(JobRejectedError, match="Pool name: 'otheruser' is invalid"):
        h.submit(maps=1, pool="default", user="otheruser")


def test_undeclared_pools_allowed_by_default():
    h = ClusterHarness(allocations=POOL_A)
    assert h.job(h.submit(maps=1, pool="poolB", user="u")).pool == "poolB"


@pytest.mark.parametrize(("value", "refused"), [("", True), ("yes", True), ("TRUE", False), (None, False)])
def test_create_attribute_read_as_java_parse_boolean(value: str | None, refused: bool) -> None:
    """``PoolPlacementRule.initializeFromXml``: ``create`` is true when the attribute is absent,
    else ``Boolean.parseBoolean(value)`` — true only for "true" in any case, so an empty value is
    false: a last ``<default create=""/>`` may pass the job on and the policy is refused."""
    attribute = "" if value is None else f' create="{value}"'
    text = allocations(f"<specified/><default{attribute}/>")
    if refused:
        with pytest.raises(AllocationError, match="Could get past last pool placement rule"):
            parse_allocations(text, "pools.xml")
    else:
        parse_allocations(text, "pools.xml")
