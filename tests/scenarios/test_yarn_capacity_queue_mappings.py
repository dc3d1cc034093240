"""``queue-mappings`` as Hadoop 3.3's ``UserGroupMappingPlacementRule`` applies them: the
cases of ``TestUserGroupMappingPlacementRule`` and ``TestQueueMappings``
(``hadoop-yarn-server-resourcemanager/.../placement/TestUserGroupMappingPlacementRule.java``,
``.../scheduler/capacity/TestQueueMappings.java``) through the public harness.

``TestUserGroupMappingPlacementRule.verifyQueueMapping``'s hierarchy is the file below
(root.agroup.a, root.asubgroup2, root.bsubgroup2.b, root.users.primarygrouponly,
root.admins.primarygrouponly, and a leaf ``default`` for the apps no mapping places); its
``SimpleGroupsMapping`` is the groups an app is submitted with (:func:`groups`).  The
test's input queue is ``default`` unless it says otherwise; "expectedQueue default" means no
mapping applied, and the app is in root.default.  The cases of managed parents
(auto-created queues) are not ported: auto-created queues are left out.
"""

from __future__ import annotations

import pytest

from corescheduler.errors import CoreSchedulerError
from corescheduler.testing import ClusterHarness, SubmissionRejected

CONFIG = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}}
QUEUES = (
    ("root.queues", "agroup,asubgroup2,bsubgroup2,users,admins,default"),
    ("root.agroup.capacity", "20"), ("root.agroup.queues", "a"), ("root.agroup.a.capacity", "100"),
    ("root.asubgroup2.capacity", "10"),
    ("root.bsubgroup2.capacity", "20"), ("root.bsubgroup2.queues", "b"), ("root.bsubgroup2.b.capacity", "100"),
    ("root.users.capacity", "10"), ("root.users.queues", "primarygrouponly"),
    ("root.users.primarygrouponly.capacity", "100"),
    ("root.admins.capacity", "10"), ("root.admins.queues", "primarygrouponly"),
    ("root.admins.primarygrouponly.capacity", "100"),
    ("root.default.capacity", "30"),
)


def xml(*props: tuple[str, str]) -> str:
    return "<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in props
    ) + "</configuration>"


def groups(user: str) -> tuple[str, ...]:
    """Hadoop's test ``SimpleGroupsMapping.getGroups``."""
    if user == "admins":
        return ("root",)
    if user == "nosecondarygroupuser":
        return ("primarygrouponly",)
    return (f"{user}group", f"{user}subgroup1", f"{user}subgroup2")


def place(mapping: str, user: str, queue: str | None = None, override: bool = False,
          primary_only: bool = False) -> str:
    """``verifyQueueMapping``: the leaf the app lands in (``SubmissionRejected`` when refused)."""
    props = [*QUEUES, ("queue-mappings", mapping)]
    if override:
        props.append(("queue-mappings-override.enable", "true"))
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml(*props))
    app = h.submit(queue=queue, user=user, groups=groups(user)[:1] if primary_only else groups(user),
                   tasks=1, resources="1024 mb, 1 vcores")
    return str(h.queue_of(app))


@pytest.mark.parametrize(("case", "mapping", "user", "queue", "override", "expected"), [
    ("testSimpleUserMappingToSpecificQueue", "u:a:a", "a", None, False, "root.agroup.a"),
    ("testSimpleGroupMappingToSpecificQueue", "g:agroup:a", "a", None, False, "root.agroup.a"),
    ("testUserMappingToSpecificQueueForEachUser", "u:%user:b", "a", None, False, "root.bsubgroup2.b"),
    ("testUserMappingToQueueNamedAsUsername", "u:%user:%user", "a", None, False, "root.agroup.a"),
    ("testUserMappingToQueueNamedAsUsernameWithPrimaryGroupAsParentQueue", "u:%user:%primary_group.%user", "a",
     None, False, "root.agroup.a"),
    ("testUserMappingToPrimaryGroupInvalidNestedPlaceholder", "u:%user:%primary_group.%random", "a", None, False,
     "root.default"),
    ("testUserMappingToSecondaryGroupInvalidNestedPlaceholder", "u:%user:%secondary_group.%random", "a", None, False,
     "root.default"),
    ("testSpecificUserMappingToSecondaryGroup", "u:a:%secondary_group", "a", None, False, "root.asubgroup2"),
    ("testSpecificUserMappingWithNoSecondaryGroup", "u:nosecondarygroupuser:%secondary_group",
     "nosecondarygroupuser", None, False, "root.default"),
    ("testGenericUserMappingWithNoSecondaryGroup", "u:%user:%secondary_group.%user", "nosecondarygroupuser", None,
     False, "root.default"),
    ("testUserMappingToQueueNamedAsUsernameWithSecondaryGroupAsParentQueue", "u:%user:%secondary_group.%user", "b",
     None, False, "root.bsubgroup2.b"),
    ("testGroupMappingToStaticQueue", "g:asubgroup1:a", "a", None, False, "root.agroup.a"),
    ("testUserMappingToPrimaryGroupQueueDoesNotExistUnmanagedParent", "u:%user:bsubgroup2.%primary_group", "abc",
     None, False, "root.default"),
    ("testUserMappingToSecondaryGroupQueueDoesNotExist", "u:%user:bsubgroup2.%secondary_group", "abc", None, False,
     "root.default"),
    ("testUserMappingToSecondaryGroupQueueUnderParent", "u:%user:root.%secondary_group", "a", None, False,
     "root.asubgroup2"),
    ("testUserMappingToSpecifiedQueueOverwritesInputQueueFromMapping", "u:user:a", "user", "b", True,
     "root.agroup.a"),
    ("testUserMappingToExplicitlySpecifiedQueue", "u:user:a", "user", "b", False, "root.bsubgroup2.b"),
    ("testGroupMappingToExplicitlySpecifiedQueue", "g:usergroup:usergroup.%user", "user", "a", False,
     "root.agroup.a"),
    ("testGroupMappingToSpecifiedQueueOverwritesInputQueueFromMapping", "g:usergroup:root.bsubgroup2.b", "user", "a",
     True, "root.bsubgroup2.b"),
    ("testGroupMappingToSpecifiedQueueUnderAGivenParentQueue", "g:agroup:root.agroup.%user", "a", None, False,
     "root.agroup.a"),
    ("testGroupMappingToSpecifiedQueueWithoutParentQueue", "g:agroup:%user", "a", None, False, "root.agroup.a"),
    ("testSecondaryGroupMapping", "u:%user:%secondary_group", "a", None, False, "root.asubgroup2"),
    # a mapping is used for an app that names "default" as for one that names no queue
    ("getPlacementForApp, queue default", "u:a:b", "a", "default", False, "root.bsubgroup2.b"),
    # the first mapping whose source matches decides, even when its queue does not exist
    ("getPlacementForUser, first match", "u:%user:%user,u:a:b", "abc", None, False, "root.default"),
])
def test_user_group_mapping_placement_rule(case: str, mapping: str, user: str, queue: str | None, override: bool,
                                           expected: str) -> None:
    assert place(mapping, user, queue, override) == expected, case


def test_secondary_group_mapping_with_the_primary_group_only() -> None:
    """``testSecondaryGroupMapping``'s second half: with ``PrimaryGroupMapping`` (the user's
    primary group only) ``u:%user:%secondary_group`` places nothing: default."""
    assert place("u:%user:%secondary_group", "a", primary_only=True) == "root.default"


@pytest.mark.parametrize(("case", "mapping", "user", "message"), [
    # a group's queue is a parent: the mapping gives it, and addApplication refuses a parent
    ("testUserMappingToQueueNamedGroupOfTheUser", "u:%user:%primary_group", "a", "non-leaf queue : root.agroup"),
    ("testSpecificUserMappingToPrimaryGroup", "u:a:%primary_group", "a", "non-leaf queue : root.agroup"),
    ("testUserMappingToQueueNamedAsGroupNameWithRootAsParentQueue", "u:%user:root.%primary_group", "a",
     "non-leaf queue : root.agroup"),
    # the YarnExceptions of the rule fail the submission
    ("testResolvedQueueIsNotManaged", "u:%user:%primary_group.%user", "admins",
     "non-leaf queue  and no managed parent is found: root.admins"),
    ("testUserMappingToPrimaryGroupWithAmbiguousQueues", "u:%user:%primary_group", "nosecondarygroupuser",
     "ambiguous leaf queue reference primarygrouponly"),
])
def test_mappings_that_refuse(case: str, mapping: str, user: str, message: str) -> None:
    with pytest.raises(SubmissionRejected, match=message):
        place(mapping, user)


def test_ambiguous_group_queue_as_parent_places_nothing() -> None:
    """``testUserMappingToNestedUserPrimaryGroupWithAmbiguousQueues``: u:%user:%primary_group.%user
    for a user whose group's queue name is ambiguous.  Hadoop's mock resolves the ambiguous
    short name to one of the queues and fails in ``validateQueueMapping``; a real
    ``CapacitySchedulerQueueManager.getQueue`` gives no queue for it, and
    ``getContextForGroupParent`` then returns no placement: the app stays in default."""
    assert place("u:%user:%primary_group.%user", "nosecondarygroupuser") == "root.default"


@pytest.mark.parametrize(("mapping", "reason"), [
    ("u:user:non_existent_queue", "testQueueMappingSpecifyingNotExistedQueue"),
    ("u:a:%random", "testUserMappingDiffersFromSubmitterQueueDoesNotExist: a static mapping to no queue"),
    ("u:a:agroup", "a static mapping to a parent queue"),
    ("u:a:primarygrouponly", "a static mapping to an ambiguous short name"),
    ("x:a:b", "invalid specifier"),
    ("u:a", "no queue specified"),
    ("g:a", "no queue specified"),
    ("u:a:b,g:a", "multiple mappings with invalid mapping"),
    ("u:a:b,g:a:d:e", "too many path segments"),
    ("u::", "empty source and queue"),
    ("u:", "missing source missing queue"),
    ("u:a:", "empty source missing q"),
])
def test_invalid_mappings_refuse_the_file(mapping: str, reason: str) -> None:
    """``TestQueueMappings.testQueueMappingParsingInvalidCases`` and
    ``testQueueMappingSpecifyingNotExistedQueue`` (``UserGroupMappingPlacementRule.initialize``):
    ``reinitialize`` fails, so the file is refused and names the key."""
    with pytest.raises(CoreSchedulerError, match="queue-mappings"):
        ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml(*QUEUES, ("queue-mappings", mapping)))


def test_queue_mapping_trim_spaces() -> None:
    """``TestQueueMappings.testQueueMappingTrimSpaces``: "    u : a : q1" is u:a:q1."""
    props = [("root.queues", "q1,q2"), ("root.q1.capacity", "10"), ("root.q2.capacity", "90"),
             ("queue-mappings", "    u : a : q1")]
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=xml(*props))
    assert h.scheduler.plugins.instances["yarn_capacity"].conf.queue_mappings == (("u", "a", "q1"),)
    assert h.queue_of(h.submit(user="a", tasks=1, resources="1024 mb, 1 vcores")) == "root.q1"
