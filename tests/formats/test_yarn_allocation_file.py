"""Tests of corescheduler.formats.yarn_allocation_file and corescheduler.core.queues:
YARN Fair Scheduler allocation files (``fair-scheduler.xml``), the queue tree,
ACLs, placement rules and steady fair shares.

Expected values come from the YARN behavioural digest
(``notes/yarn/allocation-file.md`` §1–§5) and the Hadoop tests it cites.
"""

from __future__ import annotations

import math

import attrs
import pytest
from paths import DATA

from corescheduler.core.queues import (
    INT_MAX,
    AccessControlList,
    PlacementRuleSpec,
    QueueConfig,
    default_placement,
    full_queue_name,
    steady_fair_shares,
)
from corescheduler.errors import AllocationError
from corescheduler.formats.allocation_file import parse_allocations
from corescheduler.resources import Resources

SOURCE = "fair-scheduler.xml"

# FairScheduler.md's example allocation file, verbatim (notes §5), as a file.
DOCS_FILE = DATA / "hadoop" / "fair-scheduler-docs.xml"
DOCS_EXAMPLE = DOCS_FILE.read_text()
MAX_AM_SHARE_LINE = "    <maxAMShare>0.1</maxAMShare>\n"
DOCS_LOADABLE = DOCS_EXAMPLE.replace(MAX_AM_SHARE_LINE, "")

PARENT_ERROR = (
    "The configuration settings for {name} are invalid. A queue element that contains child queue elements or "
    "that has the type='parent' attribute cannot also include a {element} element."
)


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based line of the ``occurrence``-th line of ``text`` containing ``needle``."""
    hits = [i for i, line in enumerate(text.splitlines(), start=1) if needle in line]
    return hits[occurrence - 1]


def allocations(body: str) -> str:
    """An allocation file: ``<allocations>`` on line 1, ``body`` from line 2."""
    return f"<allocations>\n{body}\n</allocations>\n"


def load(text: str) -> QueueConfig:
    result = parse_allocations(text, SOURCE)
    assert result.dialect == "yarn"
    return result.queue_config()


def error_of(text: str) -> AllocationError:
    with pytest.raises(AllocationError) as info:
        parse_allocations(text, SOURCE)
    return info.value


def assert_error(text: str, message: str, needle: str) -> AllocationError:
    """The file is rejected with ``message`` at the line of ``needle``, as ``SOURCE:LINE: ...``."""
    err = error_of(text)
    line = line_of(text, needle)
    assert message in err.message, err.message
    assert err.line == line, (err.line, str(err))
    assert str(err).startswith(f"{SOURCE}:{line}: ")
    return err


# =========================================================================== (a) the docs example


def test_docs_example_verbatim_loads_with_a_warning_for_max_am_share_on_a_parent() -> None:
    """Hadoop's documented fair-scheduler.xml (FairScheduler.md) loads, as in Hadoop 2.x-3.1, whose
    AllocationFileLoaderService / AllocationFileQueueParser.loadQueue refused only ``reservation`` on
    a parent; Hadoop trunk's loadQueue refuses ``maxAMShare`` there (isMaxAMShareSet).  One warning,
    at sample_queue's line, names the rule and the Hadoop that refuses it; the parent keeps no
    maxAMShare (no parent reads it), its leaves take queueMaxAMShareDefault."""
    result = parse_allocations(DOCS_EXAMPLE, str(DOCS_FILE))
    assert result.dialect == "yarn"
    (warning,) = result.warnings
    line = line_of(DOCS_EXAMPLE, '<queue name="sample_queue">')
    rule = PARENT_ERROR.format(name="root.sample_queue", element="maxAMShare")
    assert warning.startswith(f"{DOCS_FILE}:{line}: {rule} ")
    assert "Hadoop's current AllocationFileQueueParser refuses this file" in warning
    assert "earlier Hadoop (2.x to 3.1) loads it" in warning
    config = result.queue_config()
    assert config.spec("root.sample_queue").max_am_share is None
    assert config.max_am_share("root.sample_queue.sample_sub_queue") == 0.5
    # every queue reads as in the file without the line (lines aside)
    without = parse_allocations(DOCS_LOADABLE, SOURCE).queue_config()
    assert {n: attrs.evolve(q, line=None) for n, q in config.queues.items()} == {
        n: attrs.evolve(q, line=None) for n, q in without.queues.items()
    }


@pytest.fixture(scope="module")
def docs() -> QueueConfig:
    result = parse_allocations(DOCS_LOADABLE, SOURCE)
    assert result.dialect == "yarn"
    assert result.warnings == ()
    assert result.queues is not None
    return result.queue_config()


def test_docs_example_configured_parent_leaf_and_reservation_sets(docs: QueueConfig) -> None:
    """AllocationFileQueueParser.loadQueue: the PARENT set (sample_queue, the reservable plan queue,
    secondary_group_queue with type="parent") and the LEAF set (sample_sub_queue)."""
    assert set(docs.queues) == {
        "root",
        "root.sample_queue",
        "root.sample_queue.sample_sub_queue",
        "root.sample_queue.sample_reservable_queue",
        "root.secondary_group_queue",
    }
    parents = {n for n in docs.queues if n != "root" and docs.is_configured_parent(n)}
    assert parents == {
        "root.sample_queue",
        "root.sample_queue.sample_reservable_queue",
        "root.secondary_group_queue",
    }
    assert docs.leaves() == ["root.sample_queue.sample_sub_queue"]
    assert docs.spec("root.sample_queue.sample_reservable_queue").reservation
    assert not docs.spec("root.sample_queue.sample_reservable_queue").is_leaf
    assert docs.spec("root.secondary_group_queue").is_parent
    assert docs.children("root.secondary_group_queue") == ()
    assert docs.children("root") == ("root.sample_queue", "root.secondary_group_queue")
    assert docs.children("root.sample_queue") == (
        "root.sample_queue.sample_sub_queue",
        "root.sample_queue.sample_reservable_queue",
    )
    assert [(d, s.name) for d, s in docs.walk()] == [
        (0, "root"),
        (1, "root.sample_queue"),
        (2, "root.sample_queue.sample_sub_queue"),
        (2, "root.sample_queue.sample_reservable_queue"),
        (1, "root.secondary_group_queue"),
    ]


def test_docs_example_sample_queue(docs: QueueConfig) -> None:
    """AllocationConfiguration getters for root.sample_queue: min (10000 MB, 0 vc), max (90000 MB,
    0 vc), maxRunningApps 50, weight 2.0, policy fair, ACLs nobody (AllocationFileQueueParser defaults)."""
    q = "root.sample_queue"
    assert docs.min_resources(q) == Resources(10000, 0)
    assert docs.max_resources(q) == Resources(90000, 0)
    assert docs.max_running_apps(q) == 50
    assert docs.weight(q) == 2.0
    assert docs.scheduling_policy(q) == "fair"
    for kind in ("submit", "administer"):
        acl = docs.acl(q, kind)
        assert not acl.all_allowed and not acl.users and not acl.groups


def test_docs_example_sample_sub_queue(docs: QueueConfig) -> None:
    """AllocationConfiguration getters for root.sample_queue.sample_sub_queue: its own min, the
    file-wide defaults elsewhere (queueMaxResourcesDefault, queueMaxAMShareDefault, MAX_INT apps, weight 1);
    submit ACL user charlie, administer nobody."""
    q = "root.sample_queue.sample_sub_queue"
    assert docs.min_resources(q) == Resources(5000, 0)
    assert docs.max_resources(q) == Resources(40000, 0)
    assert docs.max_am_share(q) == 0.5
    assert docs.max_running_apps(q) == INT_MAX
    assert docs.weight(q) == 1.0
    submit = docs.acl(q, "submit")
    assert submit.users == {"charlie"} and submit.groups == frozenset() and not submit.all_allowed
    admin = docs.acl(q, "administer")
    assert not admin.users and not admin.groups and not admin.all_allowed


def test_docs_example_secondary_group_queue_and_max_child_resources(docs: QueueConfig) -> None:
    """QueueManager.setChildResourceLimits / FairScheduler.applyChildDefaults: maxChildResources is the
    maxResources of ad-hoc direct children (root.secondary_group_queue.bob), not of grandchildren."""
    cluster = Resources(100000, 100)
    q = "root.secondary_group_queue"
    assert docs.weight(q) == 3.0
    child_limit = docs.spec(q).max_child_resources
    assert child_limit is not None and child_limit.resolve(cluster) == Resources(4096, 4)
    assert docs.max_resources(q, cluster) == Resources(40000, 0)  # its own: queueMaxResourcesDefault
    assert "root.secondary_group_queue.bob" not in docs
    assert docs.max_resources("root.secondary_group_queue.bob", cluster) == Resources(4096, 4)
    assert docs.max_resources("secondary_group_queue.bob", cluster) == Resources(4096, 4)
    # not propagated further down: bob.x falls back to queueMaxResourcesDefault
    assert docs.max_resources("root.secondary_group_queue.bob.x", cluster) == Resources(40000, 0)


def test_docs_example_root_and_inherited_preemption_values(docs: QueueConfig) -> None:
    """AllocationFileLoaderService.setupRootQueueProperties + FSQueue.updatePreemptionVariables: root
    gets Long.MAX_VALUE timeouts and threshold 0.5, inherited everywhere; root ACLs are ``*``."""
    for q in ("root", "root.sample_queue", "root.sample_queue.sample_sub_queue", "root.secondary_group_queue.bob"):
        assert math.isinf(docs.min_share_preemption_timeout(q))
        assert math.isinf(docs.fair_share_preemption_timeout(q))
        assert docs.fair_share_preemption_threshold(q) == 0.5
        assert docs.preemptable(q)
    assert docs.acl("root", "submit").all_allowed
    assert docs.acl("root", "administer").all_allowed


def test_docs_example_top_level_values(docs: QueueConfig) -> None:
    """AllocationFileParser: userMaxApps {sample_user: 30}, userMaxAppsDefault 5, queueMaxAMShareDefault 0.5
    (AllocationConfiguration.getUserMaxApps / getQueueMaxAMShareDefault)."""
    assert dict(docs.user_max_apps) == {"sample_user": 30}
    assert docs.user_max_apps_default == 5
    assert docs.user_max_running_apps("sample_user") == 30
    assert docs.user_max_running_apps("someone_else") == 5
    assert docs.queue_max_am_share_default == 0.5
    assert docs.default_queue_scheduling_policy == "fair"


def test_docs_example_placement_rules(docs: QueueConfig) -> None:
    """QueuePlacementPolicy.fromXml + FSPlacementRule.getTerminal: specified (create, non-terminal),
    primaryGroup (no create, non-terminal), nestedUserQueue<secondaryGroupExistingQueue> (true AND false
    = non-terminal), default → root.sample_queue (create, terminal)."""
    rules = docs.placement
    assert rules is not None
    assert [r.name for r in rules] == ["specified", "primaryGroup", "nestedUserQueue", "default"]
    assert [r.create for r in rules] == [True, False, True, True]
    assert [r.terminal for r in rules] == [False, False, False, True]
    nested = rules[2].parent
    assert nested is not None
    assert (nested.name, nested.create, nested.terminal, nested.parent) == (
        "secondaryGroupExistingQueue",
        False,
        False,
        None,
    )
    assert all(r.parent is None for i, r in enumerate(rules) if i != 2)
    assert rules[3].queue is not None and full_queue_name(rules[3].queue) == "root.sample_queue"
    assert [r.line for r in rules] == [
        line_of(DOCS_LOADABLE, '"specified"'),
        line_of(DOCS_LOADABLE, '"primaryGroup"'),
        line_of(DOCS_LOADABLE, '"nestedUserQueue"'),
        line_of(DOCS_LOADABLE, '"default"'),
    ]


# =========================================================================== (b) validation errors


def test_period_in_queue_name() -> None:
    """AllocationFileQueueParser.loadQueue: ``queue name (<name>) shouldn't contain period``."""
    text = allocations('<queue name="a">\n  <queue name=" b.c ">\n  </queue>\n</queue>')
    assert_error(
        text, "Bad fair scheduler config file: queue name (b.c) shouldn't contain period.", '<queue name=" b.c ">'
    )


@pytest.mark.parametrize("name", ["", "   ", "\t\u3000"])
def test_empty_queue_name(name: str) -> None:
    """AllocationFileQueueParser.loadQueue: trimQueueName (Guava whitespace), then the empty-name error."""
    text = allocations(f'<queue name="ok"/>\n<queue name="{name}"/>')
    assert_error(
        text,
        "Bad fair scheduler config file: queue name shouldn't be empty or consist only of whitespace.",
        f'<queue name="{name}"/>',
    )


def test_period_is_checked_before_empty() -> None:
    """AllocationFileQueueParser.loadQueue: the period check runs before the empty check (``" . "``)."""
    text = allocations('<queue name=" . "/>')
    assert_error(text, "queue name (.) shouldn't contain period.", "<queue")


def test_root_alongside_other_queues() -> None:
    """AllocationFileQueueParser.parse: a top-level root with other top-level queues is an error."""
    text = allocations('<queue name="a"/>\n<queue name="root">\n  <queue name="b"/>\n</queue>')
    assert_error(text, "If configuring root queue, no other queues can be placed alongside it.", '"root"')


def test_root_queue_alone_holds_the_tree() -> None:
    """AllocationFileQueueParser.parse: a lone ``root`` element is loaded without a parent; its children are
    ``root.x``, its own settings are root's (``<pool>`` is the legacy alias of ``<queue>``)."""
    text = allocations(
        '<pool name="root">\n  <minSharePreemptionTimeout>9</minSharePreemptionTimeout>\n'
        '  <queue name="a"><pool name="b"/></queue>\n</pool>'
    )
    config = load(text)
    assert set(config.queues) == {"root", "root.a", "root.a.b"}
    assert config.min_share_preemption_timeout("root.a.b") == 9


@pytest.mark.parametrize("element", ["defaultQueueSchedulingPolicy", "defaultQueueSchedulingMode"])
@pytest.mark.parametrize("value", ["fifo", "FIFO", " Fifo "])
def test_fifo_default_policy(element: str, value: str) -> None:
    """AllocationFileParser.parse: the default policy can't be FIFO (any case)."""
    text = allocations(f'<queue name="a"/>\n<{element}>{value}</{element}>')
    assert_error(
        text,
        "Bad fair scheduler config file: defaultQueueSchedulingPolicy or defaultQueueSchedulingMode can't be FIFO.",
        f"<{element}>",
    )


def test_fifo_is_allowed_on_a_leaf() -> None:
    """SchedulingPolicy.parse: ``fifo`` is accepted on a queue (only the default may not be FIFO)."""
    config = load(allocations('<queue name="a"><schedulingPolicy>FIFO</schedulingPolicy></queue>'))
    assert config.scheduling_policy("root.a") == "fifo"


@pytest.mark.parametrize(
    "opening",
    ['<queue name="p" type="parent">', '<queue name="p">\n  <queue name="child"/>'],
    ids=["type-parent", "with-child"],
)
def test_reservation_on_a_parent(opening: str) -> None:
    """AllocationFileQueueParser.loadQueue: a parent (child queues or type="parent") cannot be reservable."""
    text = allocations(f"{opening}\n  <reservation></reservation>\n</queue>")
    assert_error(text, PARENT_ERROR.format(name="root.p", element="reservation"), '<queue name="p"')


@pytest.mark.parametrize(
    "opening",
    ['<queue name="p" type="parent">', '<queue name="p">\n  <queue name="child"/>'],
    ids=["type-parent", "with-child"],
)
def test_max_am_share_on_a_parent(opening: str) -> None:
    """AllocationFileQueueParser.loadQueue: Hadoop trunk refuses maxAMShare on a parent (isMaxAMShareSet);
    Hadoop 2.x-3.1 load the file.  Loaded here, the parent without it, with a warning naming the rule."""
    text = allocations(f"{opening}\n  <maxAMShare>0.3</maxAMShare>\n</queue>")
    result = parse_allocations(text, SOURCE)
    config = result.queue_config()
    assert config.spec("root.p").max_am_share is None
    (warning,) = result.warnings
    assert warning.startswith(f"{SOURCE}:2: " + PARENT_ERROR.format(name="root.p", element="maxAMShare"))
    assert "Hadoop's current AllocationFileQueueParser refuses this file" in warning


def test_reservation_is_checked_before_max_am_share() -> None:
    """AllocationFileQueueParser.loadQueue: with both, the reservation error is the one reported."""
    text = allocations('<queue name="p" type="parent">\n  <maxAMShare>0.3</maxAMShare>\n  <reservation/>\n</queue>')
    err = assert_error(text, PARENT_ERROR.format(name="root.p", element="reservation"), '<queue name="p"')
    assert "maxAMShare element" not in err.message


def test_reservation_and_max_am_share_on_a_leaf_are_fine() -> None:
    """AllocationFileQueueParser.loadQueue: a reservable leaf is a plan queue (PARENT set); maxAMShare on a
    leaf is kept as min(value, 1.0)."""
    config = load(
        allocations('<queue name="plan"><reservation/></queue>\n<queue name="leaf"><maxAMShare>3</maxAMShare></queue>')
    )
    assert config.is_configured_parent("root.plan")
    assert config.leaves() == ["root.leaf"]
    assert config.max_am_share("root.leaf") == 1.0


def test_child_errors_come_before_the_parent_error() -> None:
    """AllocationFileQueueParser.loadQueue: children are loaded first, so the child's error is reported first
    (all problems are reported together here: a documented deviation)."""
    text = allocations(
        '<queue name="p">\n  <reservation/>\n  <queue name="c">\n'
        "    <maxRunningApps>x</maxRunningApps>\n  </queue>\n</queue>"
    )
    err = error_of(text)
    assert err.line == line_of(text, "<maxRunningApps>")
    assert [line for line, _ in err.problems] == [line_of(text, "<maxRunningApps>"), line_of(text, '<queue name="p">')]
    assert "reservation element" in err.message
    parent_line = line_of(text, '<queue name="p">')
    assert f"{SOURCE}:{parent_line}: The configuration settings for root.p" in err.message


# ---------------------------------------------------------------- placement policy (§3.5)


def policy(*rules: str) -> str:
    """A file with one queue and ``<queuePlacementPolicy>`` (on line 3) holding ``rules``, one per line."""
    return allocations('<queue name="a"/>\n<queuePlacementPolicy>\n' + "\n".join(rules) + "\n</queuePlacementPolicy>")


def test_placement_empty_policy() -> None:
    """QueuePlacementPolicy.fromXml: an element without child nodes is not allowed."""
    text = allocations('<queue name="a"/>\n<queuePlacementPolicy/>')
    assert_error(text, "Empty configuration for QueuePlacementPolicy is not allowed", "<queuePlacementPolicy/>")
    text = allocations('<queue name="a"/>\n<queuePlacementPolicy><!-- nothing --></queuePlacementPolicy>')
    assert_error(text, "Empty configuration for QueuePlacementPolicy is not allowed", "<queuePlacementPolicy>")


def test_placement_without_rules_is_a_warning() -> None:
    """QueuePlacementPolicy.updateRuleSet: children but no ``<rule>`` (whitespace counts as a child) —
    YARN keeps the old rules; here a warning and no policy (documented deviation)."""
    text = allocations('<queue name="a"/>\n<queuePlacementPolicy> </queuePlacementPolicy>')
    result = parse_allocations(text, SOURCE)
    assert result.queue_config().placement is None
    assert any(w.startswith(f"{SOURCE}:3:") and "no <rule>" in w for w in result.warnings), result.warnings


@pytest.mark.parametrize("rule", ["<rule/>", '<rule name=""/>'])
def test_placement_rule_without_name(rule: str) -> None:
    """QueuePlacementPolicy.createRule: a missing or empty name."""
    text = policy(rule, '<rule name="default"/>')
    assert_error(text, "No name provided for a rule element", rule)


@pytest.mark.parametrize("name", ["bogus", "User", "defaultQueue"])
def test_placement_unknown_rule(name: str) -> None:
    """QueuePlacementPolicy.createRule: rule names are matched case-sensitively."""
    text = policy('<rule name="specified"/>', f'<rule name="{name}"/>')
    assert_error(text, f"No rule class found for {name}", f'"{name}"')


@pytest.mark.parametrize("parent", ["reject", "nestedUserQueue"])
def test_placement_forbidden_parent_rule(parent: str) -> None:
    """QueuePlacementPolicy.fromXml: reject and nestedUserQueue cannot be parent rules."""
    text = policy('<rule name="user">', f'  <rule name="{parent}"/>', "</rule>")
    assert_error(text, f"Rule '{parent}' is not allowed as a parent rule for any rule", f'  <rule name="{parent}"/>')


def test_placement_nested_user_queue_without_parent() -> None:
    """QueuePlacementPolicy.fromXml: nestedUserQueue needs a parent rule."""
    text = policy('<rule name="nestedUserQueue"/>', '<rule name="default"/>')
    assert_error(text, "Rule 'nestedUserQueue' must have a parent rule set", '"nestedUserQueue"')


@pytest.mark.parametrize(
    ("rules", "number"),
    [
        (['<rule name="user"/>', '<rule name="default"/>'], 1),
        (['<rule name="reject"/>', '<rule name="default"/>'], 1),
        (['<rule name="specified"/>', '<rule name="default" create="true"/>', '<rule name="reject"/>'], 2),
        (['<rule name="specified"/>', '<rule name="user" create="false"/>', '<rule name="primaryGroup"/>',
          '<rule name="user"/>', '<rule name="reject"/>'], 3),
    ],
)
def test_placement_terminal_rule_in_the_middle(rules: list[str], number: int) -> None:
    """QueuePlacementPolicy.updateRuleSet: the first terminal rule that is not last, numbered from 1
    (trunk; older releases used the 0-based index)."""
    text = policy(*rules)
    err = assert_error(
        text, f"Rules after rule {number} in queue placement policy can never be reached", "<queuePlacementPolicy>"
    )
    assert err.message.count("can never be reached") == 1


@pytest.mark.parametrize(
    "last",
    [
        '<rule name="specified"/>',
        '<rule name="user" create="false"/>',
        '<rule name="secondaryGroupExistingQueue" create="true"/>',
        '<rule name="default" create="FALSE"/>',
        '<rule name="nestedUserQueue"><rule name="secondaryGroupExistingQueue"/></rule>',
    ],
)
def test_placement_last_rule_not_terminal(last: str) -> None:
    """QueuePlacementPolicy.updateRuleSet + FSPlacementRule.getTerminal: the last rule must be terminal."""
    text = policy('<rule name="specified"/>', last)
    assert_error(text, "Could get past last queue placement rule without assigning", "<queuePlacementPolicy>")


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("specified", "Parent rule should not be configured for Specified rule."),
        ("default", "Parent rule must not be configured for Default rule."),
        ("reject", "Parent rule should not be configured for Reject rule."),
    ],
)
def test_placement_parent_rule_not_allowed(rule: str, message: str) -> None:
    """SpecifiedPlacementRule / DefaultPlacementRule / RejectPlacementRule.initialize: no parent rule."""
    text = policy(f'<rule name="{rule}">', '  <rule name="primaryGroup"/>', "</rule>", '<rule name="reject"/>')
    if rule == "reject":
        text = policy(f'<rule name="{rule}">', '  <rule name="primaryGroup"/>', "</rule>")
    assert_error(text, message, f'<rule name="{rule}">')


@pytest.mark.parametrize(
    ("rule", "parent"),
    [
        ("user", "user"),
        ("primaryGroup", "primaryGroup"),
        ("secondaryGroupExistingQueue", "secondaryGroupExistingQueue"),
        ("nestedUserQueue", "user"),  # the same class, UserPlacementRule
    ],
)
def test_placement_parent_rule_of_the_same_type(rule: str, parent: str) -> None:
    """FSPlacementRule.initialize: the parent rule may not be of the child rule's class."""
    text = policy(f'<rule name="{rule}">', f'  <rule name="{parent}"/>', "</rule>", '<rule name="default"/>')
    assert_error(text, f"Parent rule may not be the same type as the child rule: {rule}", f'<rule name="{rule}">')


def test_placement_create_flags_and_terminal() -> None:
    """FSPlacementRule.getCreateFlag / getTerminal: missing or empty ``create`` is true, only "true" (any case)
    is true; user with a parent rule is terminal iff both are."""
    text = policy(
        '<rule name="specified" create=""/>',
        '<rule name="user" create="TRUE"><rule name="primaryGroup" create="false"/></rule>',
        '<rule name="primaryGroup" create="false"/>',
        '<rule name="secondaryGroupExistingQueue"/>',
        '<rule name="user" create="yes"/>',
        '<rule name="user"><rule name="primaryGroup"/></rule>',
    )
    result = parse_allocations(text, SOURCE)
    rules = result.queue_config().placement
    assert rules is not None
    assert [(r.name, r.create, r.terminal) for r in rules] == [
        ("specified", True, False),
        ("user", True, False),
        ("primaryGroup", False, False),
        ("secondaryGroupExistingQueue", True, False),
        ("user", False, False),
        ("user", True, True),
    ]
    nested_line = line_of(text, 'create="false"/></')
    assert rules[1].parent == PlacementRuleSpec("primaryGroup", create=False, line=nested_line)
    assert any('create="yes"' in w for w in result.warnings)


def test_placement_rule_spec_terminal_table() -> None:
    """QueuePlacementPolicy's rule table: reject always, specified / secondaryGroupExistingQueue never,
    the others iff create."""
    assert PlacementRuleSpec("reject", create=False).terminal
    assert not PlacementRuleSpec("specified").terminal
    assert not PlacementRuleSpec("secondaryGroupExistingQueue").terminal
    for name in ("user", "primaryGroup", "default"):
        assert PlacementRuleSpec(name).terminal
        assert not PlacementRuleSpec(name, create=False).terminal
    nested = PlacementRuleSpec("nestedUserQueue", parent=PlacementRuleSpec("primaryGroup"))
    assert nested.terminal
    assert not PlacementRuleSpec("nestedUserQueue", parent=PlacementRuleSpec("secondaryGroupExistingQueue")).terminal


@pytest.mark.parametrize(
    ("uadq", "create", "expected"),
    [
        (True, True, [("specified", True), ("user", True)]),
        (True, False, [("specified", False), ("user", False), ("default", True)]),
        (False, True, [("specified", True), ("default", True)]),
        (False, False, [("specified", False), ("default", True)]),
    ],
)
def test_default_placement(uadq: bool, create: bool, expected: list[tuple[str, bool]]) -> None:
    """QueuePlacementPolicy.fromConfiguration: the policy without ``<queuePlacementPolicy>``."""
    rules = default_placement(uadq, create)
    assert [(r.name, r.create) for r in rules] == expected
    assert rules[-1].terminal
    assert not any(r.terminal for r in rules[:-1])
    if rules[-1].name == "default":
        assert rules[-1].queue == "root.default"


def test_no_placement_policy_element_means_none() -> None:
    """AllocationFileLoaderService.reloadAllocations: without ``<queuePlacementPolicy>``, fromConfiguration
    decides (``placement`` is None here)."""
    assert load(allocations('<queue name="a"/>')).placement is None


# ---------------------------------------------------------------- bad values name the element and queue


@pytest.mark.parametrize(
    ("element", "value", "fragment"),
    [
        ("maxRunningApps", "ten", "must be a whole number (a Java int), got 'ten'"),
        ("maxRunningApps", "1.5", "must be a whole number (a Java int), got '1.5'"),  # Integer.parseInt
        ("maxRunningApps", "2147483648", "must be a whole number (a Java int)"),
        ("weight", "heavy", "must be a number, got 'heavy'"),
        ("weight", "NaN", "must be a number, got 'NaN'"),
        ("maxAMShare", "half", "got 'half'"),
        ("maxAMShare", "NaN", "got 'NaN'"),
        ("minSharePreemptionTimeout", "soon", "got 'soon'"),
        ("minSharePreemptionTimeout", "7.5", "must be a whole number of seconds (a Java long), got '7.5'"),
        ("fairSharePreemptionTimeout", "1s", "got '1s'"),
        ("fairSharePreemptionThreshold", "high", "got 'high'"),
        ("schedulingPolicy", "fa ir", "got 'fa ir'"),
        ("minResources", "lots", ""),
        ("minResources", "-5 mb, 1 vcores", "Invalid value of memory: -5, value should not be negative!"),
        ("maxResources", "vcores=x, memory-mb=1", 'The resource values must all be integers. "x" is not an integer.'),
        ("maxResources", "vcores=", "Every resource must be of the form: name=value."),
        ("maxChildResources", "vcores=50%, memory-mb=10", "The resource values must all be percentages."),
        ("maxContainerAllocation", " ", "the resource string is empty"),
    ],
)
def test_bad_queue_value_names_element_and_queue(element: str, value: str, fragment: str) -> None:
    """FairSchedulerConfiguration.parseResourceConfigValue and the number parsers of
    AllocationFileQueueParser.loadQueue: the message names the element and the queue (YARN throws a bare
    NumberFormatException for numbers: documented deviation)."""
    text = allocations(
        f'<queue name="p">\n  <queue name="leaf">\n    <{element}>{value}</{element}>\n  </queue>\n</queue>'
    )
    err = assert_error(text, fragment, f"<{element}>")
    assert f'<{element}> in queue "root.p.leaf"' in err.message


@pytest.mark.parametrize("element", ["weight", "maxRunningApps", "minResources", "aclSubmitApps"])
def test_empty_queue_element_is_an_error(element: str) -> None:
    """AllocationFileQueueParser.loadQueue: getTrimmedTextData of an empty element (YARN: an NPE)."""
    text = allocations(f'<queue name="a">\n  <{element}/>\n</queue>')
    assert_error(text, f'<{element}> in queue "root.a" is empty', f"<{element}/>")


@pytest.mark.parametrize(
    ("element", "value", "fragment"),
    [
        ("userMaxAppsDefault", "many", "<userMaxAppsDefault> must be a whole number (a Java int), got 'many'"),
        ("queueMaxAppsDefault", "3.0", "<queueMaxAppsDefault> must be a whole number (a Java int)"),
        ("queueMaxAMShareDefault", "x", "<queueMaxAMShareDefault> must be"),
        ("defaultMinSharePreemptionTimeout", "x", "<defaultMinSharePreemptionTimeout> must be"),
        ("defaultFairSharePreemptionTimeout", "x", "<defaultFairSharePreemptionTimeout> must be"),
        ("defaultFairSharePreemptionThreshold", "x", "<defaultFairSharePreemptionThreshold> must be"),
        ("queueMaxResourcesDefault", "10 mb", "<queueMaxResourcesDefault>: "),
        ("defaultQueueSchedulingPolicy", "not a policy", "<defaultQueueSchedulingPolicy> must be"),
    ],
)
def test_bad_top_level_value_names_the_element(element: str, value: str, fragment: str) -> None:
    """AllocationFileParser / AllocationConfiguration: bad file-wide defaults name the element."""
    text = allocations(f'<queue name="a"/>\n<{element}>{value}</{element}>')
    assert_error(text, fragment, f"<{element}>")


def test_bad_user_limit_names_the_user() -> None:
    """AllocationFileParser.parse: ``<user><maxRunningApps>`` is Integer.parseInt'd."""
    text = allocations('<user name="bob">\n  <maxRunningApps>1.5</maxRunningApps>\n</user>')
    assert_error(text, '<maxRunningApps> in user "bob" must be a whole number (a Java int)', "<maxRunningApps>")


def test_every_problem_is_reported() -> None:
    """AllocationFileLoaderService.reloadAllocations stops at the first problem (AllocationFileParser's
    top-level elements, then the queues); here every problem is reported, YARN's first one leading
    (documented deviation)."""
    text = allocations(
        '<queue name="a.b"/>\n<queue name="c">\n  <weight>x</weight>\n</queue>\n'
        "<defaultQueueSchedulingPolicy>fifo</defaultQueueSchedulingPolicy>"
    )
    err = error_of(text)
    assert err.line == 6
    assert err.message.startswith("Bad fair scheduler config file: defaultQueueSchedulingPolicy")
    assert [line for line, _ in err.problems] == [6, 2, 4]
    assert f"{SOURCE}:2: Bad fair scheduler config file: queue name (a.b) shouldn't contain period." in err.message
    assert f'{SOURCE}:4: <weight> in queue "root.c"' in err.message


def test_policy_constraints_are_errors() -> None:
    """FifoPolicy / FairSharePolicy.isChildPolicyAllowed: a fifo parent, and drf under fair, are errors here
    (YARN logs them at run time: documented deviation)."""
    text = allocations('<queue name="p">\n  <schedulingPolicy>fifo</schedulingPolicy>\n  <queue name="c"/>\n</queue>')
    assert_error(text, "fifo policy is only for leaf queues.", '<queue name="p">')
    text = allocations('<queue name="p">\n  <queue name="c">\n    <schedulingPolicy>drf</schedulingPolicy>\n'
                       "  </queue>\n</queue>")
    assert_error(text, "Queue policy can't be drf if the parent policy is fair.", '<queue name="c">')


def test_unknown_and_mr1_elements_are_warnings() -> None:
    """AllocationFileParser: unknown top-level elements are logged and skipped ("Bad element in allocations
    file"); unknown queue children are ignored (a warning here)."""
    text = allocations('<queue name="a">\n  <colour>red</colour>\n  <minMaps>2</minMaps>\n</queue>\n<frobnicate/>')
    result = parse_allocations(text, SOURCE)
    assert result.dialect == "yarn"
    assert len(result.warnings) == 3
    by_line = {w.split(":")[1]: w for w in result.warnings}
    assert set(by_line) == {"3", "4", "6"}
    assert "<colour>" in by_line["3"] and 'queue "root.a"' in by_line["3"]
    assert "<minMaps>" in by_line["4"] and "MR1" in by_line["4"]
    assert "Bad element in allocations file: frobnicate" in by_line["6"]


# =========================================================================== (c) inheritance and defaults

INHERITANCE = allocations(
    """\
<defaultMinSharePreemptionTimeout>30</defaultMinSharePreemptionTimeout>
<defaultFairSharePreemptionTimeout>60</defaultFairSharePreemptionTimeout>
<defaultFairSharePreemptionThreshold>0.4</defaultFairSharePreemptionThreshold>
<queue name="root">
  <schedulingPolicy>drf</schedulingPolicy>
  <queue name="a">
    <minSharePreemptionTimeout>5</minSharePreemptionTimeout>
    <fairSharePreemptionTimeout>7</fairSharePreemptionTimeout>
    <fairSharePreemptionThreshold>0.8</fairSharePreemptionThreshold>
    <allowPreemptionFrom>false</allowPreemptionFrom>
    <maxContainerAllocation>2048 mb, 2 vcores</maxContainerAllocation>
    <weight>4</weight>
    <schedulingPolicy>drf</schedulingPolicy>
    <maxRunningApps>3</maxRunningApps>
    <minResources>1024 mb, 1 vcores</minResources>
    <maxResources>4096 mb, 4 vcores</maxResources>
    <queue name="a1">
      <allowPreemptionFrom>TRUE</allowPreemptionFrom>
      <minSharePreemptionTimeout>1</minSharePreemptionTimeout>
    </queue>
    <queue name="a2">
      <fairSharePreemptionThreshold>3</fairSharePreemptionThreshold>
      <maxContainerAllocation>1024 mb, 4 vcores</maxContainerAllocation>
    </queue>
  </queue>
  <queue name="b">
    <queue name="b1"/>
  </queue>
</queue>"""
)


@pytest.fixture(scope="module")
def tree() -> QueueConfig:
    return load(INHERITANCE)


@pytest.mark.parametrize(
    ("queue", "min_share", "fair_share", "threshold"),
    [
        ("root", 30, 60, 0.4),  # setupRootQueueProperties: root takes the default* values
        ("root.a", 5, 7, 0.8),
        ("root.a.a1", 1, 7, 0.8),  # own min-share timeout, the rest from root.a
        ("root.a.a2", 5, 7, 1.0),  # threshold clamped to [0, 1]
        ("root.a.dynamic", 5, 7, 0.8),  # a queue created at run time inherits too
        ("root.b", 30, 60, 0.4),
        ("root.b.b1", 30, 60, 0.4),  # via root from the default* values
    ],
)
def test_preemption_values_are_inherited(
    tree: QueueConfig, queue: str, min_share: float, fair_share: float, threshold: float
) -> None:
    """FSQueue.updatePreemptionVariables: timeouts and threshold come from the queue, else its parent's
    effective value; root's from the default* elements (AllocationFileLoaderService.setupRootQueueProperties)."""
    assert tree.min_share_preemption_timeout(queue) == min_share
    assert tree.fair_share_preemption_timeout(queue) == fair_share
    assert tree.fair_share_preemption_threshold(queue) == threshold


def test_root_own_values_beat_the_defaults() -> None:
    """AllocationFileLoaderService.setupRootQueueProperties: root's explicit values win over the default*."""
    config = load(
        allocations(
            '<queue name="root">\n  <minSharePreemptionTimeout>9</minSharePreemptionTimeout>\n'
            '  <fairSharePreemptionThreshold>0.7</fairSharePreemptionThreshold>\n  <queue name="x"/>\n</queue>\n'
            "<defaultMinSharePreemptionTimeout>30</defaultMinSharePreemptionTimeout>\n"
            "<defaultFairSharePreemptionThreshold>0.2</defaultFairSharePreemptionThreshold>"
        )
    )
    assert config.min_share_preemption_timeout("root.x") == 9
    assert config.fair_share_preemption_threshold("root.x") == 0.7
    assert math.isinf(config.fair_share_preemption_timeout("root.x"))


@pytest.mark.parametrize(
    "body",
    [
        "<fairSharePreemptionTimeout>10</fairSharePreemptionTimeout>"
        "<defaultFairSharePreemptionTimeout>20</defaultFairSharePreemptionTimeout>",
        "<defaultFairSharePreemptionTimeout>20</defaultFairSharePreemptionTimeout>"
        "<fairSharePreemptionTimeout>10</fairSharePreemptionTimeout>",
    ],
)
def test_deprecated_fair_share_timeout(body: str) -> None:
    """AllocationFileParser: top-level fairSharePreemptionTimeout is used only without
    defaultFairSharePreemptionTimeout, whatever the order (trunk)."""
    config = load(allocations(f'<queue name="a"/>\n{body}'))
    assert config.fair_share_preemption_timeout("root.a") == 20
    alone = load(allocations('<queue name="a"/>\n<fairSharePreemptionTimeout>10</fairSharePreemptionTimeout>'))
    assert alone.fair_share_preemption_timeout("root.a") == 10


def test_default_threshold_is_clamped() -> None:
    """AllocationFileParser.getDefaultFairSharePreemptionThreshold: clamped to [0, 1]."""
    text = allocations(
        '<queue name="a"/>\n<defaultFairSharePreemptionThreshold>-2</defaultFairSharePreemptionThreshold>'
    )
    config = load(text)
    assert config.fair_share_preemption_threshold("root.a") == 0.0


@pytest.mark.parametrize(
    ("queue", "preemptable"),
    [("root", True), ("root.a", False), ("root.a.a1", False), ("root.a.a2", False), ("root.a.x", False),
     ("root.b", True), ("root.b.b1", True)],
)
def test_allow_preemption_from_false_propagates_down(tree: QueueConfig, queue: str, preemptable: bool) -> None:
    """FSQueue.isPreemptable / updatePreemptionVariables: a non-preemptable parent makes every descendant
    non-preemptable; a child's ``true`` cannot re-enable it."""
    assert tree.preemptable(queue) is preemptable


@pytest.mark.parametrize(
    ("queue", "expected"),
    [
        ("root", None),
        ("root.a", Resources(2048, 2)),
        ("root.a.a1", Resources(2048, 2)),
        ("root.a.a2", Resources(1024, 4)),
        ("root.a.dynamic", Resources(2048, 2)),
        ("root.b.b1", None),
    ],
)
def test_max_container_allocation_is_inherited(tree: QueueConfig, queue: str, expected: Resources | None) -> None:
    """FSLeafQueue / FSParentQueue.getMaximumContainerAllocation: unbounded means the parent's value."""
    assert tree.max_container_allocation(queue) == expected


def test_policy_and_weight_are_not_inherited(tree: QueueConfig) -> None:
    """AllocationConfiguration.getSchedulingPolicy / getQueueWeight: unset means the global default (fair, 1),
    not the parent's (drf, 4)."""
    assert tree.scheduling_policy("root") == "drf"
    assert tree.scheduling_policy("root.a") == "drf"
    assert tree.weight("root.a") == 4
    for q in ("root.a.a1", "root.a.a2", "root.a.dynamic"):
        assert tree.scheduling_policy(q) == "fair"
        assert tree.weight(q) == 1.0


def test_limits_are_not_inherited(tree: QueueConfig) -> None:
    """AllocationConfiguration.getMinResources / getMaxResources / getQueueMaxApps / getQueueMaxAMShare:
    the file-wide defaults, not the parent's values."""
    assert tree.max_running_apps("root.a") == 3
    assert tree.min_resources("root.a") == Resources(1024, 1)
    assert tree.max_resources("root.a") == Resources(4096, 4)
    assert tree.max_running_apps("root.a.a1") == INT_MAX
    assert tree.min_resources("root.a.a1") == Resources.none()
    assert tree.max_resources("root.a.a1", Resources(10000, 10)) == Resources.unbounded(("memory-mb", "vcores"))
    assert tree.max_am_share("root.a.a1") == 0.5


def test_file_wide_defaults_apply_to_every_queue() -> None:
    """AllocationConfiguration: queueMaxAppsDefault (root included), queueMaxResourcesDefault (percentages
    of the cluster), queueMaxAMShareDefault (min(v, 1); -1 disables), defaultQueueSchedulingPolicy."""
    config = load(
        allocations(
            '<queue name="a"/>\n<queue name="b"><maxAMShare>-1</maxAMShare><schedulingPolicy>fair</schedulingPolicy>'
            "<maxRunningApps>2</maxRunningApps></queue>\n"
            "<queueMaxAppsDefault>7</queueMaxAppsDefault>\n<queueMaxAMShareDefault>1.5</queueMaxAMShareDefault>\n"
            "<queueMaxResourcesDefault>50%</queueMaxResourcesDefault>\n"
            "<defaultQueueSchedulingPolicy>DRF</defaultQueueSchedulingPolicy>"
        )
    )
    cluster = Resources(10000, 20)
    assert config.max_running_apps("root") == 7
    assert config.max_running_apps("root.a") == 7
    assert config.max_running_apps("root.b") == 2
    assert config.max_am_share("root.a") == 1.0
    assert config.max_am_share("root.b") == -1
    assert config.max_resources("root.a", cluster) == Resources(5000, 10)
    assert config.scheduling_policy("root") == "drf"
    assert config.scheduling_policy("root.a") == "drf"
    assert config.scheduling_policy("root.b") == "fair"


def test_defaults_without_settings() -> None:
    """AllocationConfiguration defaults: MAX_INT apps, unbounded max, maxAMShare 0.5, weight 1, fair,
    timeouts Long.MAX_VALUE, threshold 0.5, preemptable, no container limit."""
    config = load(allocations('<queue name="a"/>'))
    assert config.max_running_apps("root.a") == INT_MAX
    assert config.user_max_running_apps("anyone") == INT_MAX
    assert config.max_am_share("root.a") == 0.5
    assert config.weight("root.a") == 1.0
    assert config.scheduling_policy("root.a") == "fair"
    assert math.isinf(config.min_share_preemption_timeout("root.a"))
    assert math.isinf(config.fair_share_preemption_timeout("root.a"))
    assert config.fair_share_preemption_threshold("root.a") == 0.5
    assert config.preemptable("root.a")
    assert config.max_container_allocation("root.a") is None


# ---------------------------------------------------------------- ACLs (§4)


@pytest.mark.parametrize(
    ("text", "all_allowed", "users", "groups"),
    [
        ("user1,user2 group1", False, {"user1", "user2"}, {"group1"}),
        ("user1,user2 group1,group2", False, {"user1", "user2"}, {"group1", "group2"}),
        ("*", True, set(), set()),
        (" *", True, set(), set()),
        ("* ", True, set(), set()),
        ("alice *", True, set(), set()),
        (" ", False, set(), set()),
        ("", False, set(), set()),
        ("alice", False, {"alice"}, set()),
        (" group1", False, set(), {"group1"}),
        (" alice", False, set(), {"alice"}),  # a leading space makes groups
        ("\n  alice\n", False, set(), {"alice"}),  # users part "\n" is blank
        ("a,,b g1, ,g2", False, {"a", "b"}, {"g1", "g2"}),  # blank pieces dropped
        ("a, b g1", False, {"a"}, {"b g1"}),  # only the first space splits
    ],
)
def test_acl_parse(text: str, all_allowed: bool, users: set[str], groups: set[str]) -> None:
    """hadoop-common AccessControlList(String): split on the first space into users and groups; ``*`` in
    either part allows everybody."""
    acl = AccessControlList.parse(text)
    assert acl.all_allowed is all_allowed
    assert acl.users == users
    assert acl.groups == groups


def test_acl_allows() -> None:
    """AccessControlList.isUserAllowed: everybody, the user, or one of the user's groups."""
    acl = AccessControlList.parse("user1,user2 group1")
    assert acl.allows("user1")
    assert acl.allows("carol", ["other", "group1"])
    assert not acl.allows("carol", ["other"])
    assert not acl.allows("group1")
    assert AccessControlList.parse("*").allows("anyone")
    assert not AccessControlList.parse(" ").allows("anyone", ["any"])


def test_acl_element_text_is_not_trimmed() -> None:
    """AllocationFileQueueParser.loadQueue: the ACL element's raw text goes to AccessControlList, so
    ``<aclSubmitApps> alice</aclSubmitApps>`` is *group* alice."""
    config = load(
        allocations(
            '<queue name="a">\n  <aclSubmitApps> alice</aclSubmitApps>\n</queue>\n'
            '<queue name="b">\n  <aclSubmitApps>\n    alice\n  </aclSubmitApps>\n</queue>'
        )
    )
    for q in ("root.a", "root.b"):
        acl = config.acl(q, "submit")
        assert acl.users == frozenset() and acl.groups == {"alice"}


ACLS = allocations(
    """\
<queue name="root">
  <aclSubmitApps> </aclSubmitApps>
  <aclAdministerApps>admin ops</aclAdministerApps>
  <queue name="a">
    <aclSubmitApps>user1,user2 group1</aclSubmitApps>
    <queue name="a1">
      <aclSubmitApps> alice</aclSubmitApps>
      <aclAdministerApps>boss</aclAdministerApps>
    </queue>
  </queue>
  <queue name="b">
    <aclSubmitApps>*</aclSubmitApps>
  </queue>
  <queue name="c"/>
</queue>"""
)


@pytest.fixture(scope="module")
def acls() -> QueueConfig:
    return load(ACLS)


@pytest.mark.parametrize(
    ("queue", "user", "groups", "submit", "administer", "can_submit"),
    [
        ("root.a.a1", "bob", ["alice"], True, False, True),  # own ACL: group alice
        ("root.a.a1", "alice", [], False, False, False),  # alice is a group there, not a user
        ("root.a.a1", "user1", [], True, False, True),  # ancestor root.a allows user1
        ("root.a.a1", "carol", ["group1"], True, False, True),  # ancestor root.a allows group1
        ("root.a.a1", "boss", [], False, True, True),  # admin implies submit
        ("root.a.a1", "admin", [], False, True, True),  # root's administer ACL, via the ancestor walk
        ("root.a.a1", "dave", ["ops"], False, True, True),
        ("root.a", "boss", [], False, False, False),  # a1's ACL does not go up
        ("root.b", "anyone", [], True, False, True),
        ("root.c", "anyone", [], False, False, False),  # root restricted to nobody, c default nobody
        ("root.c", "admin", [], False, True, True),
        ("root.c.dynamic", "user1", [], False, False, False),
        ("root.a.dynamic", "user1", [], True, False, True),  # a queue created at run time: ancestors decide
        ("root", "user1", [], False, False, False),
    ],
)
def test_acl_ancestor_walk_and_admin_implies_submit(
    acls: QueueConfig,
    queue: str,
    user: str,
    groups: list[str],
    submit: bool,
    administer: bool,
    can_submit: bool,
) -> None:
    """ConfiguredYarnAuthorizer.checkPermission (the queue or any ancestor allows) and
    FairScheduler.addApplication (SUBMIT_APPLICATIONS or ADMINISTER_QUEUE)."""
    assert acls.has_access(queue, "submit", user, groups) is submit
    assert acls.has_access(queue, "administer", user, groups) is administer
    assert acls.can_submit(queue, user, groups) is can_submit


def test_acl_defaults_root_everybody_others_nobody() -> None:
    """AllocationFileQueueParser.loadQueue: unset ACLs are ``*`` on root and ``" "`` elsewhere, per access
    type — so everybody may do everything until root is restricted."""
    config = load(allocations('<queue name="a">\n  <aclAdministerApps>x</aclAdministerApps>\n</queue>'))
    for kind in ("submit", "administer"):
        assert config.acl("root", kind).all_allowed
    submit = config.acl("root.a", "submit")
    assert not submit.all_allowed and not submit.users and not submit.groups
    assert str(submit) == "nobody"
    assert config.acl("root.a", "administer").users == {"x"}
    assert config.can_submit("root.a", "anyone")
    assert config.has_access("root.a.deeper", "administer", "anyone")
    empty = QueueConfig.empty()
    assert empty.acl("root", "submit").all_allowed
    assert empty.can_submit("root.default", "anyone")


# =========================================================================== (d) dialect detection

MR1_FILE = allocations(
    """\
<pool name="poolA">
  <minMaps>1</minMaps>
  <maxRunningJobs>3</maxRunningJobs>
  <weight>2.0</weight>
  <schedulingMode>fifo</schedulingMode>
  <minSharePreemptionTimeout>10</minSharePreemptionTimeout>
</pool>
<pool name="poolB"/>
<user name="u"><maxRunningJobs>4</maxRunningJobs></user>
<userMaxJobsDefault>7</userMaxJobsDefault>
<defaultMinSharePreemptionTimeout>60</defaultMinSharePreemptionTimeout>
<fairSharePreemptionTimeout>120</fairSharePreemptionTimeout>"""
)


def test_mr1_file_stays_mr1() -> None:
    """PoolManager.reloadAllocs (Hadoop 1.x): a file with only MR1 elements (``pool``, ``weight``,
    ``schedulingMode``, ``minSharePreemptionTimeout`` are shared) is read as MR1."""
    result = parse_allocations(MR1_FILE, SOURCE)
    assert result.dialect == "mr1"
    assert result.queues is None
    assert set(result.pools) == {"poolA", "poolB"}
    assert parse_allocations("<allocations/>", SOURCE).dialect == "mr1"


def test_mr1_queue_config_maps_pools_to_leaves_under_root() -> None:
    """Allocations.queue_config of an MR1 file: each pool (and ``default``) a leaf of root with its weight,
    maxRunningJobs as maxRunningApps, schedulingMode as policy, min-share timeout; users and defaults
    (PoolManager.getPoolMaxJobs / getUserMaxJobs / getMinSharePreemptionTimeout)."""
    config = parse_allocations(MR1_FILE, SOURCE).queue_config()
    assert config.children("root") == ("root.default", "root.poolA", "root.poolB")
    assert config.leaves() == ["root.default", "root.poolA", "root.poolB"]
    assert config.weight("root.poolA") == 2.0
    assert config.max_running_apps("root.poolA") == 3
    assert config.max_running_apps("root.poolB") == INT_MAX
    assert config.scheduling_policy("root.poolA") == "fifo"
    assert config.scheduling_policy("root.poolB") == "fair"
    assert config.min_share_preemption_timeout("root.poolA") == 10
    assert config.min_share_preemption_timeout("root.poolB") == 60
    assert config.fair_share_preemption_timeout("root.poolB") == 120
    assert config.user_max_running_apps("u") == 4
    assert config.user_max_running_apps("v") == 7


def test_mr1_pool_max_jobs_default_does_not_limit_root() -> None:
    """PoolManager.getPoolMaxJobs (Hadoop 1.x): poolMaxJobsDefault limits each pool; nothing limits the
    cluster's total. In the mapped tree (AllocationConfiguration.getQueueMaxApps) root must stay unlimited."""
    text = allocations('<pool name="p"/>\n<poolMaxJobsDefault>9</poolMaxJobsDefault>')
    config = parse_allocations(text, SOURCE).queue_config()
    assert config.max_running_apps("root.p") == 9
    assert config.max_running_apps("root") == INT_MAX


@pytest.mark.parametrize(
    "body",
    [
        '<pool name="p"><maxRunningApps>3</maxRunningApps></pool>',
        '<pool name="p"><minResources>1024 mb, 1 vcores</minResources></pool>',
        '<pool name="p"><weight>2</weight></pool><queueMaxAppsDefault>4</queueMaxAppsDefault>',
        '<pool name="p"><pool name="q"/><schedulingPolicy>drf</schedulingPolicy></pool>'
        "<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>",
        '<queue name="p"/>',
        '<pool name="p"><minMaps>1</minMaps></pool><queuePlacementPolicy><rule name="default"/></queuePlacementPolicy>',
        '<pool name="p"><aclSubmitApps>*</aclSubmitApps></pool>',
        '<pool name="p"><allowPreemptionFrom>false</allowPreemptionFrom></pool>',
    ],
)
def test_any_yarn_only_element_makes_the_file_yarn(body: str) -> None:
    """AllocationFileParser (YARN) vs PoolManager (MR1): one YARN-only element anywhere decides the dialect;
    ``<pool>`` is then YARN's alias of ``<queue>``."""
    result = parse_allocations(allocations(body), SOURCE)
    assert result.dialect == "yarn"
    assert result.queues is not None
    assert "root.p" in result.queues.queues


def test_yarn_file_leaves_under_root_are_also_pools() -> None:
    """A YARN file's direct leaf queues are exposed as pools too (weight, maxRunningApps, policy,
    min-share timeout) for slot mode; parents are not."""
    result = parse_allocations(
        allocations(
            '<queue name="a"><weight>2</weight><maxRunningApps>4</maxRunningApps></queue>\n'
            '<queue name="p"><queue name="c"/></queue>\n<userMaxAppsDefault>3</userMaxAppsDefault>'
        ),
        SOURCE,
    )
    assert set(result.pools) == {"a"}
    assert result.pools["a"].weight == 2
    assert result.pools["a"].max_running_jobs == 4
    assert result.user_max_jobs_default == 3


# =========================================================================== (e) steady fair shares


def test_steady_shares_hierarchy() -> None:
    """FSParentQueue.recomputeSteadyShares / ComputeFairShares.computeSteadyShares on TestFairSchedulerFairShare's
    cluster: root {parentA (weight 8) {childA1..A4}, parentB (weight 1) {childB1, childB2}} + root.default on
    16384 MB: each childA 3277 MB, each childB 819 MB."""
    config = load(
        allocations(
            '<queue name="parentA">\n  <weight>8</weight>\n'
            + "".join(f'  <queue name="childA{i}"/>\n' for i in range(1, 5))
            + '</queue>\n<queue name="parentB">\n  <weight>1</weight>\n'
            '  <queue name="childB1"/>\n  <queue name="childB2"/>\n</queue>'
        )
    )
    shares = steady_fair_shares(config, Resources(16384, 0), ["root.default"])
    for i in range(1, 5):
        assert shares[f"root.parentA.childA{i}"].memory == 3277
    for name in ("childB1", "childB2"):
        assert shares[f"root.parentB.{name}"].memory == 819
    assert shares["root"] == Resources(16384, 0)
    assert shares["root.parentA"].memory == 13108
    assert shares["root.parentB"].memory == shares["root.default"].memory == 1638


def test_steady_shares_simple_hierarchy() -> None:
    """TestFairScheduler.testSimpleHierarchicalFairShareCalculation: parent.queue2, parent.queue3 and
    default on 240 MB → 60, 60, 120 (FSParentQueue.recomputeSteadyShares)."""
    config = load(allocations('<queue name="parent">\n  <queue name="queue2"/>\n  <queue name="queue3"/>\n</queue>'))
    shares = steady_fair_shares(config, Resources(240, 0), ["root.default"])
    assert shares["root.parent.queue2"].memory == 60
    assert shares["root.parent.queue3"].memory == 60
    assert shares["root.default"].memory == 120
    assert shares["root.parent"].memory == 120


def test_steady_shares_three_leaves_upper_bracket() -> None:
    """ComputeFairShares.computeSharesInternal: three equal leaves on 10240 MB get the upper bracket, 3414 each."""
    config = load(allocations('<queue name="a"/>\n<queue name="b"/>\n<queue name="c"/>'))
    shares = steady_fair_shares(config, Resources(10240, 10))
    assert [shares[f"root.{q}"].memory for q in "abc"] == [3414, 3414, 3414]


def test_steady_shares_respect_min_resources() -> None:
    """TestFairScheduler.testFairShareWithMinAlloc: queueA min 1024 MB, queueB min 2048 MB on 3072 MB get at
    least their min shares (ComputeFairShares: share = max(weight × R, min))."""
    config = load(
        allocations(
            '<queue name="queueA"><minResources>1024 mb, 0 vcores</minResources></queue>\n'
            '<queue name="queueB"><minResources>2048 mb, 0 vcores</minResources></queue>'
        )
    )
    shares = steady_fair_shares(config, Resources(3072, 0), ["root.default"])
    assert shares["root.queueA"].memory >= 1024
    assert shares["root.queueB"].memory >= 2048
    assert sum(shares[f"root.{q}"].memory for q in ("queueA", "queueB", "default")) <= 3072


def test_steady_shares_respect_max_and_max_child_resources() -> None:
    """FSQueue.getMaxShare (max of max and min) and QueueManager.setChildResourceLimits: the docs example on
    100000 MB with dynamic children under secondary_group_queue capped at 4096 MB."""
    config = parse_allocations(DOCS_LOADABLE, SOURCE).queue_config()
    extra = ["root.default", "root.secondary_group_queue.bob", "root.secondary_group_queue.carol"]
    shares = steady_fair_shares(config, Resources(100000, 80), extra)
    assert shares["root.sample_queue"].memory == 40000
    assert shares["root.secondary_group_queue"].memory == 40000  # weight 3 but capped at 40000
    assert shares["root.default"].memory == 20000
    assert shares["root.secondary_group_queue.bob"].memory == 4096
    assert shares["root.secondary_group_queue.carol"].memory == 4096
    assert shares["root.sample_queue.sample_sub_queue"].memory == 20000


def test_steady_shares_drf_parent_computes_vcores_fair_does_not() -> None:
    """DominantResourceFairnessPolicy.computeSteadyShares divides every resource type; FairSharePolicy only
    memory (a fair parent's children keep 0 vcores)."""
    config = load(
        allocations(
            '<queue name="root">\n  <schedulingPolicy>drf</schedulingPolicy>\n'
            '  <queue name="a"><weight>3</weight></queue>\n'
            '  <queue name="b">\n    <queue name="b1"/>\n    <queue name="b2"/>\n  </queue>\n</queue>'
        )
    )
    shares = steady_fair_shares(config, Resources(8192, 8))
    assert shares["root.a"] == Resources(6144, 6)
    assert shares["root.b"] == Resources(2048, 2)
    assert shares["root.b.b1"] == Resources(1024, 0)
    assert shares["root.b.b2"] == Resources(1024, 0)


def test_steady_shares_without_allocation_file() -> None:
    """QueueManager.initialize: with no allocation file there are root and root.default, which gets the
    whole cluster's memory."""
    shares = steady_fair_shares(QueueConfig.empty(), Resources(4096, 4), ["root.default"])
    assert set(shares) == {"root", "root.default"}
    assert shares["root.default"] == Resources(4096, 0)
