"""Pool placement: the ``rules`` PoolResolver (YARN QueuePlacementPolicy) —
scenario S36 of shared/scenarios/yarn.md with YARN's ``root.X`` read as pool
``X`` — and the default ``property`` resolver."""

from __future__ import annotations

import pytest
from corescheduler_plugins.rules import PlacementRules, Rule, clean_name, flat_name, place

from corescheduler.core.model import Rejection
from corescheduler.core.scheduler import JobRejectedError
from corescheduler.errors import ConfigError
from corescheduler.testing import ClusterHarness

SOMEUSER_POOL = "<allocations><pool name='someuser'/></allocations>"


def rules_config(rules: str, extra: str = "") -> str:
    return f'[scheduler]\npool_resolver = "rules"\n\n[plugins.rules]\nrules = {rules}\n{extra}'


def harness(rules: str, extra: str = "", allocations: str | None = None) -> ClusterHarness:
    return ClusterHarness(config=rules_config(rules, extra), allocations=allocations)


def placed(h: ClusterHarness, pool: str | None, user: str | None, **kw) -> str:
    return h.job(h.submit(maps=1, pool=pool, user=user, **kw)).pool


SPECIFIED_USER = '[{name = "specified"}, {name = "user"}]'
SPECIFIED_USER_NOCREATE_DEFAULT = '[{name = "specified"}, {name = "user", create = false}, {name = "default"}]'


# =========================================================================== S36


@pytest.mark.parametrize(
    ("rules", "allocations", "request_", "user", "expected"),
    [
        (SPECIFIED_USER, None, "specifiedq", "someuser", "specifiedq"),
        (SPECIFIED_USER, None, "default", "someuser", "someuser"),
        (SPECIFIED_USER, None, "default", "otheruser", "otheruser"),
        (SPECIFIED_USER_NOCREATE_DEFAULT, SOMEUSER_POOL, "default", "someuser", "someuser"),
        (SPECIFIED_USER_NOCREATE_DEFAULT, SOMEUSER_POOL, "specifiedq", "otheruser", "specifiedq"),
        (SPECIFIED_USER_NOCREATE_DEFAULT, SOMEUSER_POOL, "default", "otheruser", "default"),
    ],
)
def test_s36_rule_outcomes(rules, allocations, request_, user, expected):
    h = harness(rules, allocations=allocations)
    assert placed(h, request_, user) == expected


def test_s36_specified_then_reject_rejects():
    h = harness('[{name = "specified"}, {name = "reject"}]')
    with pytest.raises(JobRejectedError, match=r"rules\[1\] 'reject'"):
        h.submit(maps=1, pool="default", user="someuser")
    assert placed(h, "specifiedq", "someuser") == "specifiedq"
    assert len(h.scheduler.jobs) == 1  # the rejected job left no state


def test_s36_no_terminal_last_rule_is_a_config_error():
    with pytest.raises(ConfigError) as info:
        harness('[{name = "specified"}, {name = "user", create = false}]')
    message = str(info.value)
    assert "[plugins.rules] rules[1]: the last rule, 'user' with create = false, may pass a job on" in message
    assert "\n" not in message


def test_s36_terminal_rule_in_the_middle_is_a_config_error():
    with pytest.raises(ConfigError) as info:
        harness('[{name = "specified"}, {name = "default"}, {name = "user"}]')
    message = str(info.value)
    assert "[plugins.rules] rules[1]: rule 'default' always decides" in message
    assert "rules[2]" not in message  # user with create = true is a fine last rule


# =========================================================================== each rule


def test_specified_strips_root_and_ignores_default_or_no_request():
    h = harness(SPECIFIED_USER)
    assert placed(h, "root.etl", "alice") == "etl"
    assert placed(h, None, "alice") == "alice"
    assert placed(h, "", "alice") == "alice"
    assert placed(h, "root.default", "alice") == "default"  # as YARN: only "default" itself means unspecified


def test_specified_create_false_only_takes_declared_pools():
    h = harness('[{name = "specified", create = false}, {name = "default", queue = "root.adhoc"}]',
                allocations="<allocations><pool name='etl'/><pool name='adhoc'/></allocations>")
    assert placed(h, "etl", "alice") == "etl"
    assert placed(h, "root.etl", "alice") == "etl"
    assert placed(h, "other", "alice") == "adhoc"


def test_user_names_are_cleaned_as_yarn_does():
    h = harness(SPECIFIED_USER)
    assert placed(h, None, "first.last") == "first_dot_last"


def test_user_rule_passes_jobs_without_a_user():
    h = harness('[{name = "user", create = false}, {name = "primary_group", create = false}, {name = "default"}]')
    assert placed(h, None, None) == "default"


def test_primary_group_from_the_groups_table_or_the_job():
    extra = '\n[plugins.rules.groups]\nalice = ["analysts", "etl"]\nbob = "ops"\n'
    h = harness('[{name = "primary_group"}]', extra)
    assert placed(h, None, "alice") == "analysts"
    assert placed(h, None, "bob") == "ops"
    assert placed(h, None, "alice", groups=["research"]) == "research"  # the submitter's groups win
    with pytest.raises(JobRejectedError, match="no rule placed the job"):
        h.submit(maps=1, user="carol")  # no groups: the rule cannot name a pool


def test_primary_group_create_false():
    extra = '\n[plugins.rules.groups]\nalice = ["analysts"]\nbob = ["ops"]\n'
    h = harness('[{name = "primary_group", create = false}, {name = "default"}]', extra,
                allocations="<allocations><pool name='analysts'/></allocations>")
    assert placed(h, None, "alice") == "analysts"
    assert placed(h, None, "bob") == "default"
    assert placed(h, None, "carol") == "default"


def test_group_names_are_cleaned_as_yarn_does():
    h = harness('[{name = "primary_group"}]', '\n[plugins.rules.groups]\nalice = ["alice.group"]\n')
    assert placed(h, None, "alice") == "alice_dot_group"


def test_secondary_group_existing_takes_the_first_declared_secondary_group():
    extra = '\n[plugins.rules.groups]\nalice = ["analysts", "nope", "etl", "adhoc"]\nbob = ["etl"]\n'
    h = harness('[{name = "secondary_group_existing"}, {name = "default"}]', extra,
                allocations="<allocations><pool name='etl'/><pool name='adhoc'/><pool name='analysts'/></allocations>")
    assert placed(h, None, "alice") == "etl"  # not the primary group, though it is declared
    assert placed(h, None, "bob") == "default"  # no secondary group
    assert placed(h, None, "carol") == "default"


def test_default_rule_queue():
    h = harness('[{name = "specified"}, {name = "default", queue = "root.adhoc"}]')
    assert placed(h, "default", "alice") == "adhoc"
    h = harness('[{name = "specified"}, {name = "default", queue = "adhoc"}]')
    assert placed(h, None, "alice") == "adhoc"


def test_default_rule_create_false_with_an_undeclared_pool_rejects():
    h = harness('[{name = "default", queue = "adhoc", create = false}]')
    with pytest.raises(JobRejectedError, match="pool 'adhoc' is not declared in the allocation file"):
        h.submit(maps=1, user="alice")
    h = harness('[{name = "default", create = false}]')  # "default" always exists
    assert placed(h, None, "alice") == "default"


def test_yarn_rule_names_and_plain_strings_are_accepted():
    h = harness('["specified", "secondaryGroupExistingQueue", "primaryGroup"]',
                '\n[plugins.rules.groups]\nalice = ["analysts", "etl"]\n',
                allocations="<allocations><pool name='etl'/></allocations>")
    assert placed(h, None, "alice") == "etl"


def test_default_chain_is_specified_then_user():
    h = ClusterHarness(config='[scheduler]\npool_resolver = "rules"\n')
    assert placed(h, "etl", "alice") == "etl"
    assert placed(h, None, "alice") == "alice"


def test_a_resolver_after_rules_is_never_asked():
    # A rules chain always decides, so a resolver listed after it is never asked.
    h = ClusterHarness(config='[scheduler]\npool_resolver = ["rules", "property"]\n')
    assert placed(h, None, "alice") == "alice"


# =========================================================================== pure functions


def test_flat_and_clean_names():
    assert flat_name("root.a") == "a"
    assert flat_name("root.a.b") == "a.b"
    assert flat_name("rooted") == "rooted"
    assert flat_name("root") == "root"
    assert clean_name("a.b.c") == "a_dot_b_dot_c"


def test_terminal_rules():
    def terminal(name, create=True):
        return Rule(name=name, index=0, create=create).terminal

    assert terminal("default") and terminal("default", create=False)
    assert terminal("reject")
    assert terminal("user") and not terminal("user", create=False)
    assert terminal("primary_group") and not terminal("primary_group", create=False)
    assert not terminal("specified") and not terminal("secondary_group_existing")


def test_place_is_a_pure_function():
    rules = PlacementRules({"rules": [{"name": "specified"}, {"name": "user", "create": False},
                                      {"name": "reject"}]}).rules
    assert place(rules, "etl", "alice", (), {"default"}) == "etl"
    assert place(rules, None, "alice", (), {"default", "alice"}) == "alice"
    answer = place(rules, None, "alice", (), {"default"})
    assert isinstance(answer, Rejection) and "rules[2] 'reject'" in answer.reason


# =========================================================================== settings


@pytest.mark.parametrize(
    ("rules", "extra", "expected"),
    [
        ('[{name = "specified"}, {name = "nestedUserQueue"}]', "",
         "[plugins.rules] rules[1]: unknown rule 'nestedUserQueue'; expected one of specified, user, "
         "primary_group, secondary_group_existing, default, reject"),
        ('[{create = true}, {name = "default"}]', "", "[plugins.rules] rules[0]: unknown rule no name"),
        ('[{name = "user", create = "no"}]', "", "[plugins.rules] rules[0]: create: expected true or false"),
        ('[{name = "user", queue = "x"}]', "", "[plugins.rules] rules[0]: queue: only the 'default' rule"),
        ('[{name = "default", queue = ""}]', "", "[plugins.rules] rules[0]: queue: expected a pool name"),
        ('[{name = "default", pool = "x"}]', "", "[plugins.rules] rules[0]: unknown key 'pool'"),
        ("[3]", "", "[plugins.rules] rules[0]: expected a rule table"),
        ("[]", "", "[plugins.rules] rules: expected a non-empty list of rules"),
        ('"user"', "", "[plugins.rules] rules: expected a non-empty list of rules"),
        ('[{name = "specified"}]', "", "[plugins.rules] rules[0]: the last rule, 'specified', may pass a job on"),
        ('[{name = "reject"}, {name = "default"}]', "", "[plugins.rules] rules[0]: rule 'reject' always decides"),
        ('["user"]', "\n[plugins.rules.groups]\nalice = [1]\n",
         "[plugins.rules] groups.alice: expected a list of group names"),
        ('["user"]', "\nrulez = 1\n", "[plugins.rules] rulez: unknown setting"),
    ],
)
def test_bad_settings_are_one_line_config_errors(rules, extra, expected):
    with pytest.raises(ConfigError) as info:
        harness(rules, extra)
    message = str(info.value)
    assert expected in message
    assert "\n" not in message


# =========================================================================== property (the default resolver)


def test_property_default_is_queue_name_then_user():
    h = ClusterHarness(config={"plugins": {"property": {}}})  # the plugin's own default, not the harness's
    assert placed(h, "etl", "alice") == "etl"
    assert placed(h, None, "alice") == "alice"
    assert placed(h, None, None) == "default"


def test_property_reads_the_named_job_property():
    h = ClusterHarness(config='[plugins.property]\npool_name_property = "group"\n')
    assert placed(h, "etl", "alice", properties={"group": "analysts"}) == "analysts"
    assert placed(h, "etl", "alice") == "default"
