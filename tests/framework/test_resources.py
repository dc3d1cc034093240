"""Resource vectors and YARN's resource strings (SPEC §7; ../shared/scenarios/yarn.md S35,
from ``TestFairSchedulerConfiguration#testParseResourceConfigValue`` and siblings)."""

from __future__ import annotations

import pytest

from corescheduler.errors import ResourceParseError
from corescheduler.resources import UNBOUNDED, Resources, parse_configurable, parse_resources

CLUSTER = Resources(10240, 4)
CLUSTER_T1 = Resources(10240, 4, {"test1": 8})


@pytest.mark.parametrize(
    "text",
    [
        "2 vcores, 5120 mb", "5120 mb, 2 vcores", "2vcores,5120mb", "5120mb,2vcores", "5120mb   mb, 2    vcores",
        "5120 Mb, 2 vCores", "  5120 mb, 2 vcores  ", "  5120.3 mb, 2.35 vcores  ", "  5120. mb, 2. vcores  ",
        "5120 mb 2 vcores",
        "50% memory, 50% cpu", "50% Memory, 50% CpU", "50 % memory, 50 % cpu", "50%memory,50%cpu",
        "  50  %  memory,  50  %  cpu  ", "50.% memory, 50.% cpu", "50%",
        "vcores=2, memory-mb=5120", " vcores = 2 , memory-mb = 5120 ",
    ],
)
def test_s35_strings_giving_5120_mb_2_vcores(text: str) -> None:
    """``FairSchedulerConfiguration.parseResourceConfigValue``: old-style amounts (fractions
    dropped as ``Integer.parseInt`` of the digits), percentages of (10240 MB, 4 vcores), new style."""
    assert parse_resources(text, CLUSTER) == Resources(5120, 2)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("50% memory, 100% cpu", Resources(5120, 4)),
        (" 100% cpu, 50% memory", Resources(5120, 4)),
        ("50% memory, 0% cpu", Resources(5120, 0)),
        ("10.9% memory, 50.6% cpu", Resources(1116, 2)),  # (long)(10240 × 0.109), (int)(4 × 0.506)
    ],
)
def test_s35_percentages_truncate(text: str, expected: Resources) -> None:
    assert parse_resources(text, CLUSTER) == expected


def test_s35_extra_resource_types() -> None:
    """``testParseNewStyleResource*`` with ``yarn.resource-types = test1``: an unlisted type is
    ``missing`` (``Long.MAX_VALUE`` by default) for amounts and 100 % for percentages."""
    assert parse_resources("vcores=2, memory-mb=5120", CLUSTER_T1) == Resources(5120, 2, {"test1": UNBOUNDED})
    assert parse_resources("vcores=2, memory-mb=5120", CLUSTER_T1, missing=0) == Resources(5120, 2, {"test1": 0})
    assert parse_resources("vcores=2, memory-mb=5120, test1=4", CLUSTER_T1) == Resources(5120, 2, {"test1": 4})
    assert parse_resources("test1 = 4 ,memory-mb=5120,vcores=2", CLUSTER_T1) == Resources(5120, 2, {"test1": 4})
    assert parse_resources("50%", CLUSTER_T1) == Resources(5120, 2, {"test1": 4})
    assert parse_resources("vcores=75%, memory-mb=40%", CLUSTER_T1) == Resources(4096, 3, {"test1": 8})
    assert parse_resources(" vcores = 75 % , memory-mb = 40 % ", CLUSTER_T1) == Resources(4096, 3, {"test1": 8})
    assert parse_resources("vcores=75%, memory-mb=40%, test1=50%", CLUSTER_T1) == Resources(4096, 3, {"test1": 4})
    # the old two-percentage form leaves extra types at 0 %
    assert parse_resources("50% memory, 50% cpu", CLUSTER_T1) == Resources(5120, 2, {"test1": 0})


def test_percentages_stay_unresolved_until_the_cluster_is_known() -> None:
    value = parse_configurable("50% memory, 25% cpu")
    assert value.is_percentage
    assert value.resolve(Resources(2048, 8)) == Resources(1024, 2)
    with pytest.raises(ResourceParseError, match="needs the cluster"):
        value.resolve(None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1024", "Cannot parse resource values from input: 1024"),
        ("1024mb", "Cannot parse resource values from input: 1024mb"),
        ("1024vcores", "Cannot parse resource values from input: 1024vcores"),
        ("1o24vc0res", "Cannot parse resource values from input: 1o24vc0res"),
        ("2 vcores 5120 mb 555 mb", "Cannot parse resource values from input: "),
        ("2 vcores 5120 MB 555 GB", "Cannot parse resource values from input: "),
        ("95%, 50% memory", "Missing resource: cpu"),
        ("50% memory, 2 vcores", "Missing resource: cpu"),
        ("50% memory, -2 vcores", "Missing resource: cpu"),
        ("50% cpu, 1024 mb", "Missing resource: memory"),
        ("-50% cpu, 1024 mb", "Missing resource: memory"),
        ("95A% cpu, 50% memory", "Invalid percentage of cpu: "),
        ("50% memory, 50% 100%cpu", "Invalid percentage of cpu: "),
        ("50% 80% memory, 100%cpu", "Invalid percentage of memory: "),
        ("1024 mb, 2 4 vcores", "Invalid value of vcores: "),
        ("2048 1024 mb, 2 vcores", "Invalid value of memory: "),
        ("vcores = 75%, memory-mb = 40% 80%", '"40% 80%" is either not a non-negative number'),
        ("vcores = 75% 65%, memory-mb = 40%", '"75% 65%" is either not a non-negative number'),
        ("-10% memory, 50% cpu", "percentage should not be negative"),
        ("10% memory, -10% cpu", "percentage should not be negative"),
        ("-50% memory, 2 vcores", "percentage should not be negative"),
        ("-2 vcores,5120 mb", "Invalid value of vcores"),
        ("  5120.3 mb, -2.35 vcores  ", "Invalid value of vcores"),
        (" vcores = -2 ,  memory-mb = 5120 ", "Invalid value of vcores"),
        ("vcores=-2,memory-mb=-5120,test1=4", "Invalid value of vcores"),
        ("2 vcores,-5120 mb", "Invalid value of memory"),
        ("  -5120.3 mb, 2.35 vcores  ", "Invalid value of memory"),
        ("vcores=2,memory-mb=-5120,test1=4", "Invalid value of memory"),
        ("vcores=2,memory-mb=5120,test1=-4", "Invalid value of test1"),
        ("vcores=-75%,memory-mb=40%", "is either not a non-negative number"),
        ("vcores=75%, memory-mb=-40%", "is either not a non-negative number"),
        ("memory-mb=5120, vcores=2, bogus=1", 'The resource name, "bogus" was not recognized'),
        ("memory-mb=5.5, vcores=2", '"5.5" is not an integer'),
        ("memory-mb, vcores=2", "Every resource must be of the form: name=value."),
        ("   ", "the resource string is empty"),
        ("99999999999 mb, 1 vcores", "Error reading resource config"),
    ],
)
def test_s35_errors_carry_yarns_messages(text: str, message: str) -> None:
    with pytest.raises(ResourceParseError) as info:
        parse_resources(text, CLUSTER_T1)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_resources_arithmetic_and_text() -> None:
    a, b = Resources(1024, 1, {"gpu": 1}), Resources(512, 3)
    assert a + b == Resources(1536, 4, {"gpu": 1})
    assert a - b == Resources(512, -2, {"gpu": 1})
    assert a.componentwise_min(b) == Resources(512, 1, {"gpu": 0})
    assert b.fits_in(Resources(512, 3)) and not a.fits_in(Resources(4096, 4))
    assert a.multiply_and_round_down(0.5) == Resources(512, 0, {"gpu": 0})
    assert a.dominant_share(Resources(4096, 4, {"gpu": 2})) == 0.5
    assert str(a) == "<memory:1024, vCores:1, gpu: 1>"
    assert parse_resources(a.to_config()) == a
    assert a["memory-mb"] == 1024 and a["gpu"] == 1 and a["fpga"] == 0
    assert a.as_dict() == {"memory": 1024, "vcores": 1, "gpu": 1}
    with pytest.raises(ValueError):
        Resources(1.5, 1)
    assert hash(Resources(1, 2, {"x": 1})) == hash(Resources(1, 2, {"x": 1}))
