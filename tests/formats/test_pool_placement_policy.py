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
