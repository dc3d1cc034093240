"""What Hadoop's parsers refuse, refused here; what they take, taken here (with a warning where
the file likely says something else than the user meant).

The refusal audit of issue 28 (docs/yarn.md, "Which Hadoop each rule follows"):
YARN files follow ``AllocationFileQueueParser`` / ``AllocationFileParser``;
MR1 files ``PoolManager.reloadAllocs`` (Hadoop 1.x); ``capacity-scheduler.xml``
``Configuration.loadResource`` with ``CapacitySchedulerConf`` (Hadoop 0.20/1.x).
"""

from __future__ import annotations

import pytest

from corescheduler.errors import AllocationError
from corescheduler.formats.allocation_file import parse_allocations

SOURCE = "fair-scheduler.xml"


def allocations(body: str) -> str:
    return f"<allocations>\n{body}\n</allocations>\n"


def loaded(text: str):
    result = parse_allocations(text, SOURCE)
    return result, list(result.warnings)


def refused(text: str) -> AllocationError:
    with pytest.raises(AllocationError) as info:
        parse_allocations(text, SOURCE)
    return info.value


# ============================================================================ YARN: numbers as Java reads them


def test_queue_max_am_share_default_with_a_float_suffix() -> None:
    """TestAllocationFileLoaderService.testAllocationFileParsing writes
    ``<queueMaxAMShareDefault>0.5f</queueMaxAMShareDefault>``: Float.parseFloat takes it
    (AllocationFileParser.getQueueMaxAMShareDefault)."""
    text = allocations('<queue name="a"/>\n<queueMaxAMShareDefault>0.5f</queueMaxAMShareDefault>')
    result, warnings = loaded(text)
    assert warnings == []
    assert result.queue_config().max_am_share("root.a") == 0.5


@pytest.mark.parametrize(
    ("element", "text", "value"),
    [
        ("weight", "2d", 2.0),  # Double.parseDouble
        ("weight", "+1e1", 10.0),
        ("weight", " 3 ", 3.0),  # getTrimmedTextData
        ("maxAMShare", "0.25F", 0.25),  # Float.parseFloat
        ("maxAMShare", "Infinity", 1.0),  # Math.min(Infinity, 1.0f)
        ("maxAMShare", "-1f", -1.0),
        ("fairSharePreemptionThreshold", "5e-1", 0.5),
        ("fairSharePreemptionThreshold", "-Infinity", 0.0),  # clamped to [0, 1]
        ("maxRunningApps", "+7", 7),  # Integer.parseInt
        ("minSharePreemptionTimeout", "+30", 30.0),  # Long.parseLong
    ],
)
def test_queue_numbers_java_takes(element: str, text: str, value: float) -> None:
    """AllocationFileQueueParser.loadQueue's parsers take these; so does the reader here."""
    result, warnings = loaded(allocations(f'<queue name="a"><{element}>{text}</{element}></queue>'))
    assert warnings == []
    spec = result.queue_config().spec("root.a")
    attr = {
        "weight": "weight",
        "maxAMShare": "max_am_share",
        "fairSharePreemptionThreshold": "fair_share_preemption_threshold",
        "maxRunningApps": "max_running_apps",
        "minSharePreemptionTimeout": "min_share_preemption_timeout",
    }[element]
    assert getattr(spec, attr) == value


@pytest.mark.parametrize(
    ("element", "text"),
    [
        ("maxRunningApps", "1.0"),  # Integer.parseInt: no decimals
        ("maxRunningApps", "1e3"),
        ("minSharePreemptionTimeout", "7.5"),  # Long.parseLong: whole seconds only
        ("fairSharePreemptionTimeout", "60s"),
        ("weight", "1_0"),
        ("weight", "inf"),  # Java spells it Infinity
    ],
)
def test_queue_numbers_java_refuses(element: str, text: str) -> None:
    """NumberFormatException in AllocationFileQueueParser.loadQueue: refused, at the element's line."""
    err = refused(allocations(f'<queue name="a">\n  <{element}>{text}</{element}>\n</queue>'))
    assert err.line == 3
    assert f'<{element}> in queue "root.a" must be' in err.message and repr(text) in err.message


# ============================================================================ YARN: taken as YARN takes them, said


@pytest.mark.parametrize(
    ("element", "text", "attr", "value", "fragment"),
    [
        ("maxRunningApps", "-1", "max_running_apps", 0, "lets no app run, as in YARN; read as 0"),
        ("weight", "-2", "weight", 0.0, "gets what weight 0 gets in YARN; read as 0"),
        ("minSharePreemptionTimeout", "-5", "min_share_preemption_timeout", 0.0, "acts as 0 in YARN"),
        ("allowPreemptionFrom", "no", "allow_preemption_from", False, "read as false"),
    ],
)
def test_values_yarn_takes_are_warnings(element: str, text: str, attr: str, value: object, fragment: str) -> None:
    """YARN takes a negative count, weight or timeout (Integer.parseInt, Double.parseDouble, Long.parseLong
    accept the sign) and reads any allowPreemptionFrom but 'true' as false (Boolean.parseBoolean)."""
    result, warnings = loaded(allocations(f'<queue name="a">\n  <{element}>{text}</{element}>\n</queue>'))
    assert getattr(result.queue_config().spec("root.a"), attr) == value
    (warning,) = warnings
    assert warning.startswith(f"{SOURCE}:3: <{element}> in queue \"root.a\": ") and fragment in warning


def test_negative_user_limit_is_a_warning() -> None:
    """AllocationFileParser.extractUserData: Integer.parseInt takes -1."""
    result, warnings = loaded(allocations('<user name="bob">\n  <maxRunningApps>-1</maxRunningApps>\n</user>'))
    assert result.queue_config().user_max_apps == {"bob": 0}
    assert len(warnings) == 1 and "lets no app run" in warnings[0]


def test_percentage_min_resources_is_read_as_none() -> None:
    """AllocationFileQueueParser.loadQueue: ``minQueueResources(queue, val.getResource())`` of a percentage
    is null: no min share.  A warning here."""
    result, warnings = loaded(allocations('<queue name="a">\n  <minResources>50%</minResources>\n</queue>'))
    assert result.queue_config().spec("root.a").min_resources is None
    assert len(warnings) == 1 and "not a percentage" in warnings[0] and warnings[0].startswith(f"{SOURCE}:3:")


def test_a_queue_declared_twice_is_merged() -> None:
    """AllocationFileQueueParser.loadQueue keeps each setting in a map keyed by the queue's name: a second
    declaration overrides what it sets and adds its children.  A warning here."""
    text = allocations(
        '<queue name="a">\n  <weight>2</weight>\n  <maxRunningApps>3</maxRunningApps>\n'
        '  <queue name="x"/>\n</queue>\n'
        '<queue name="a">\n  <weight>5</weight>\n  <queue name="y"/>\n</queue>'
    )
    result, warnings = loaded(text)
    config = result.queue_config()
    assert config.spec("root.a").weight == 5.0
    assert config.spec("root.a").max_running_apps == 3
    assert config.children("root.a") == ("root.a.x", "root.a.y")
    assert config.children("root") == ("root.a",)
    (warning,) = warnings
    assert warning.startswith(f"{SOURCE}:7: queue 'root.a' declared again (first at line 2)")


def test_root_in_capitals_is_read_as_root() -> None:
    """AllocationFileQueueParser.parse matches root with equalsIgnoreCase; read as root, with a warning."""
    result, warnings = loaded(allocations('<queue name="ROOT">\n  <queue name="a"/>\n</queue>'))
    assert result.queue_config().children("root") == ("root.a",)
    assert len(warnings) == 1 and "read as 'root'" in warnings[0]


def test_a_user_without_a_name_is_a_warning() -> None:
    """AllocationFileParser.extractUserData keeps a limit for the user "" (getAttribute's empty string)."""
    result, warnings = loaded(allocations('<queue name="a"/>\n<user>\n  <maxRunningApps>3</maxRunningApps>\n</user>'))
    assert result.queue_config().user_max_apps == {}
    assert len(warnings) == 1 and "without a name" in warnings[0]


# ============================================================================ YARN: refused, as YARN refuses


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('<queue name="p" type="parent"><reservation/></queue>', "cannot also include a reservation element"),
        ('<queue name="a.b"/>', "shouldn't contain period"),
        ('<queue name=" "/>', "shouldn't be empty"),
        ('<queue name="root"/>\n<queue name="b"/>', "no other queues can be placed alongside it"),
        ("<defaultQueueSchedulingPolicy>fifo</defaultQueueSchedulingPolicy>", "can't be FIFO"),
        ('<queue name="a"><weight/></queue>', "is empty"),  # getFirstChild() is null: an NPE in YARN
        ('<queue name="a"><weight><b/></weight></queue>', "must contain only text"),  # ClassCastException
        ('<queue name="a"><maxResources>lots</maxResources></queue>', "maxResources"),
        ('<queue name="a"><schedulingPolicy>no such</schedulingPolicy></queue>', "schedulingPolicy"),
    ],
)
def test_yarn_refusals_stay(body: str, message: str) -> None:
    """AllocationFileQueueParser / AllocationFileParser / parseResourceConfigValue / SchedulingPolicy.parse
    throw for these: refused here too."""
    assert message in refused(allocations(body)).message
