"""Tests of corescheduler.formats.allocation_file: Hadoop 1.x Fair Scheduler allocation files."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from corescheduler.errors import AllocationError
from corescheduler.formats.allocation_file import (
    INF,
    KINDS,
    AllocationFileLoader,
    Allocations,
    PoolSpec,
    UserSpec,
    load_allocations,
    parse_allocations,
    parse_pool,
)

# Hadoop's TestFairScheduler.testAllocationFileParsing, in its 1.x form (the worked case S6).
S6 = """\
<?xml version="1.0"?>
<allocations>
  <!-- Give pool A a minimum of (1 map, 2 reduce) -->
  <pool name="poolA">
    <minMaps>1</minMaps>
    <minReduces>2</minReduces>
  </pool>
  <!-- Give pool B a minimum of (2 maps, 1 reduce) -->
  <pool name="poolB">
    <minMaps>2</minMaps>
    <minReduces>1</minReduces>
  </pool>
  <!-- Give pool C min maps but no min reduces -->
  <pool name="poolC">
    <minMaps>2</minMaps>
  </pool>
  <!-- Give pool D a limit of 3 running jobs -->
  <pool name="poolD">
    <maxRunningJobs>3</maxRunningJobs>
  </pool>
  <!-- Give pool E a preemption timeout of one minute -->
  <pool name="poolE">
    <minSharePreemptionTimeout>60</minSharePreemptionTimeout>
  </pool>
  <!-- Set default limit of jobs per pool to 15 -->
  <poolMaxJobsDefault>15</poolMaxJobsDefault>
  <!-- Set default limit of jobs per user to 5 -->
  <userMaxJobsDefault>5</userMaxJobsDefault>
  <!-- Give user1 a limit of 10 jobs -->
  <user name="user1">
    <maxRunningJobs>10</maxRunningJobs>
  </user>
  <!-- Set default min share preemption timeout to 2 minutes -->
  <defaultMinSharePreemptionTimeout>120</defaultMinSharePreemptionTimeout>
  <!-- Set fair share preemption timeout to 5 minutes -->
  <fairSharePreemptionTimeout>300</fairSharePreemptionTimeout>
</allocations>
"""


def parse(body: str, source: str = "allocations.xml") -> Allocations:
    """Parse ``body`` wrapped in <allocations>, so that its first line is line 2."""
    return parse_allocations(f"<allocations>\n{body}\n</allocations>\n", source)


def pool_xml(name: str, **children: object) -> str:
    inner = "".join(f"<{tag}>{value}</{tag}>" for tag, value in children.items())
    return f'<pool name="{name}">{inner}</pool>'


# --------------------------------------------------------------------------- the worked case S6


@pytest.fixture(scope="module")
def s6() -> Allocations:
    return parse_allocations(S6, "s6.xml")


def test_s6_pools(s6: Allocations) -> None:
    assert len(s6.pool_names()) == 6
    assert s6.pool_names() == ["default", "poolA", "poolB", "poolC", "poolD", "poolE"]
    assert list(s6.pools) == ["poolA", "poolB", "poolC", "poolD", "poolE"]
    assert s6.warnings == ()
    assert s6.source == "s6.xml"


@pytest.mark.parametrize(
    ("pool", "min_maps", "min_reduces"),
    [("default", 0, 0), ("poolA", 1, 2), ("poolB", 2, 1), ("poolC", 2, 0), ("poolD", 0, 0), ("poolE", 0, 0)],
)
def test_s6_min_shares(s6: Allocations, pool: str, min_maps: int, min_reduces: int) -> None:
    assert s6.pool(pool).min_share("map") == min_maps
    assert s6.pool(pool).min_share("reduce") == min_reduces


@pytest.mark.parametrize(
    ("pool", "max_jobs", "timeout"),
    [
        ("default", 15, 120.0),
        ("poolA", 15, 120.0),
        ("poolB", 15, 120.0),
        ("poolC", 15, 120.0),
        ("poolD", 3, 120.0),
        ("poolE", 15, 60.0),
    ],
)
def test_s6_limits_and_timeouts(s6: Allocations, pool: str, max_jobs: int, timeout: float) -> None:
    assert s6.pool_max_jobs(pool) == max_jobs
    assert s6.min_share_preemption_timeout(pool) == timeout


def test_s6_users_and_fair_share_timeout(s6: Allocations) -> None:
    assert s6.user_max_jobs("user1") == 10
    assert s6.user_max_jobs("user2") == 5
    assert s6.users == {"user1": UserSpec("user1", max_running_jobs=10, line=30)}
    assert s6.fair_share_preemption_timeout == 300.0
    assert s6.pool("poolA").line == 4


# --------------------------------------------------------------------------- defaults and values


@pytest.mark.parametrize("allocations", [Allocations.empty(), parse_allocations("<allocations/>")])
def test_defaults_are_unlimited(allocations: Allocations) -> None:
    assert allocations.pool_names() == ["default"]
    assert allocations.pool("anything") == PoolSpec("anything")
    assert allocations.pool_max_jobs("anything") == INF
    assert allocations.user_max_jobs("anyone") == math.inf
    assert allocations.min_share_preemption_timeout("anything") == INF
    assert allocations.fair_share_preemption_timeout == INF
    assert allocations.scheduling_mode("anything") == "fair"
    assert allocations.warnings == ()


def test_pool_spec_defaults() -> None:
    spec = parse('<pool name="p"/>').pool("p")
    assert spec == PoolSpec("p", line=2)
    assert [spec.min_share(k) for k in KINDS] == [0, 0]
    assert [spec.max_share(k) for k in KINDS] == [INF, INF]
    assert spec.weight == 1.0
    assert (spec.max_running_jobs, spec.scheduling_mode, spec.min_share_preemption_timeout) == (
        None,
        None,
        None,
    )


def test_all_pool_elements() -> None:
    xml = pool_xml(
        "p",
        minMaps=1,
        minReduces=2,
        maxMaps=10,
        maxReduces=20,
        maxRunningJobs=4,
        weight=2.5,
        schedulingMode="fifo",
        minSharePreemptionTimeout=30,
    )
    spec = parse(xml).pool("p")
    assert spec == PoolSpec("p", 1, 2, 10, 20, 4, 2.5, "fifo", 30.0, line=2)
    assert spec.max_share("map") == 10
    assert spec.max_share("reduce") == 20


def test_kind_must_be_map_or_reduce() -> None:
    with pytest.raises(ValueError, match="kind"):
        PoolSpec("p").min_share("maps")


@pytest.mark.parametrize(
    ("text", "weight"), [("2.5", 2.5), ("0", 0.0), (".5", 0.5), ("3", 3.0), ("1e1", 10.0), (" 0.25 ", 0.25)]
)
def test_weight_decimals(text: str, weight: float) -> None:
    assert parse(pool_xml("p", weight=text)).pool("p").weight == weight


@pytest.mark.parametrize(
    ("pool_mode", "default_mode", "expected"),
    [
        (None, None, "fair"),
        ("fifo", None, "fifo"),
        ("FIFO", None, "fifo"),
        (" Fair ", "fifo", "fair"),
        (None, "fifo", "fifo"),
        (None, "FiFo", "fifo"),
    ],
)
def test_scheduling_modes(pool_mode: str | None, default_mode: str | None, expected: str) -> None:
    body = pool_xml("p", **({"schedulingMode": pool_mode} if pool_mode else {}))
    if default_mode:
        body += f"<defaultPoolSchedulingMode>{default_mode}</defaultPoolSchedulingMode>"
    allocations = parse(body)
    assert allocations.scheduling_mode("p") == expected
    assert allocations.default_pool_scheduling_mode == (default_mode or "fair").lower()
    assert allocations.scheduling_mode("undeclared") == allocations.default_pool_scheduling_mode


def test_seconds_and_top_level_values() -> None:
    """PoolManager.reloadAllocs: Long.parseLong / Integer.parseInt of the trimmed text (a leading +)."""
    allocations = parse(
        "<defaultMinSharePreemptionTimeout>+15</defaultMinSharePreemptionTimeout>\n"
        "<fairSharePreemptionTimeout> 600 </fairSharePreemptionTimeout>\n"
        "<poolMaxJobsDefault>+7</poolMaxJobsDefault>\n"
        "<userMaxJobsDefault>0</userMaxJobsDefault>"
    )
    assert allocations.default_min_share_preemption_timeout == 15
    assert allocations.fair_share_preemption_timeout == 600.0
    assert allocations.pool_max_jobs("p") == 7
    assert allocations.user_max_jobs("u") == 0


def test_comments_and_whitespace_are_ignored() -> None:
    allocations = parse(
        '<!-- c --><pool name="p">\n  <!-- c -->\n  <minMaps>\n    4\n  </minMaps>\n</pool>\n<?pi ignored?>'
    )
    assert allocations.pool("p").min_maps == 4
    assert allocations.warnings == ()


def test_declared_default_pool_keeps_file_order() -> None:
    allocations = parse(pool_xml("b") + pool_xml("default", weight=2) + pool_xml("a"))
    assert allocations.pool_names() == ["b", "default", "a"]
    assert allocations.pool("default").weight == 2.0


def test_values_are_frozen() -> None:
    allocations = parse(pool_xml("p"))
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        allocations.pool_max_jobs_default = 3  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        allocations.pool("p").min_maps = 3  # type: ignore[misc]


def test_encodings() -> None:
    text = '<?xml version="1.0" encoding="ISO-8859-1"?>\n<allocations><pool name="caf\u00e9"/></allocations>'
    assert parse_allocations(text).pool_names() == ["default", "caf\u00e9"]  # str with a declaration
    assert parse_allocations(text.encode("iso-8859-1")).pool_names() == ["default", "caf\u00e9"]


# --------------------------------------------------------------------------- malformed files

# (owner element or None for top level, element, bad text, what the message says is expected)
BAD_VALUES = [
    ("pool", "minMaps", "ten", "a non-negative integer"),
    ("pool", "minReduces", "", "a non-negative integer"),
    ("pool", "maxMaps", "1.5", "a non-negative integer"),
    ("pool", "maxReduces", "1e2", "a non-negative integer"),
    ("pool", "maxRunningJobs", "1_000", "a non-negative integer"),
    ("pool", "maxRunningJobs", "2147483648", "a non-negative integer"),
    ("pool", "weight", "heavy", "a non-negative number"),
    ("pool", "weight", "inf", "a non-negative number"),
    ("pool", "weight", "NaN", "a non-negative number"),
    ("pool", "weight", "1e999", "a non-negative number"),
    ("pool", "schedulingMode", "drf", "'fair' or 'fifo'"),
    ("pool", "minSharePreemptionTimeout", "soon", "a non-negative whole number of seconds"),
    ("pool", "minSharePreemptionTimeout", "1.5", "a non-negative whole number of seconds"),  # Long.parseLong
    ("user", "maxRunningJobs", "x", "a non-negative integer"),
    (None, "userMaxJobsDefault", "many", "a non-negative integer"),
    (None, "poolMaxJobsDefault", "3.0", "a non-negative integer"),
    (None, "defaultMinSharePreemptionTimeout", "2m", "a non-negative whole number of seconds"),
    (None, "fairSharePreemptionTimeout", "60.0", "a non-negative whole number of seconds"),
    (None, "defaultPoolSchedulingMode", "lottery", "'fair' or 'fifo'"),
]


@pytest.mark.parametrize(("owner", "tag", "text", "expected"), BAD_VALUES)
def test_bad_value(owner: str | None, tag: str, text: str, expected: str) -> None:
    open_tag, close_tag, where = (
        (f"<{owner} name='x'>", f"</{owner}>", f" in {owner} 'x'") if owner else ("", "", "")
    )
    doc = f"<allocations>\n{open_tag}\n\n<{tag}>{text}</{tag}>\n{close_tag}\n</allocations>\n"
    with pytest.raises(AllocationError) as info:
        parse_allocations(doc, "allocations.xml")
    assert str(info.value) == f"allocations.xml:4: <{tag}>{where} must be {expected}, got {text!r}"
    assert (info.value.source, info.value.line) == ("allocations.xml", 4)


# (file text, line of the error, fragment of the message)
MALFORMED = [
    pytest.param("<allocations>\n  <pool name='a'>\n    <minMaps>1</minMap>\n  </pool>\n</allocations>", 3,
                 "not well-formed XML: Opening and ending tag mismatch: minMaps", id="bad-xml"),
    pytest.param("<allocations>\n  <pool name='a'>\n</allocations>", 3, "not well-formed XML", id="unclosed"),
    pytest.param("", 1, "not well-formed XML", id="empty-file"),
    pytest.param("<?xml version='1.0'?>\n<configuration/>", 2,
                 "top-level element must be <allocations>, found <configuration>", id="wrong-root"),
    pytest.param("<allocations>\n<pool name='p'><minMaps>\n<x/></minMaps></pool></allocations>", 3,
                 "<minMaps> in pool 'p' must contain only text, found <x>", id="nested-value"),
    pytest.param("<allocations>\n<pool name='p'><weight/></pool></allocations>", 2,
                 "<weight> in pool 'p' must be a non-negative number, got ''", id="empty-value"),
]  # fmt: skip


# (file text, line of the warning, fragment of it): what PoolManager.reloadAllocs takes, said
TAKEN_WITH_A_WARNING = [
    pytest.param("<allocations>\n\n<pool>\n<minMaps>1</minMaps></pool></allocations>", 3,
                 "<pool> without a name attribute ignored", id="pool-without-name"),
    pytest.param("<allocations>\n<pool name='  '/></allocations>", 2,
                 "<pool> without a name attribute ignored", id="pool-empty-name"),
    pytest.param("<allocations>\n<user/></allocations>", 2,
                 "<user> without a name attribute ignored", id="user-without-name"),
    pytest.param("<allocations>\n<pool name='a'/>\n<pool name='b'/>\n<pool name='a'/></allocations>", 4,
                 "<pool> 'a' declared again (first at line 2); merged into it", id="duplicate-pool"),
    pytest.param("<allocations>\n<user name='u'/>\n<user name='u'/></allocations>", 3,
                 "<user> 'u' declared again (first at line 2); merged into it", id="duplicate-user"),
    pytest.param("<allocations>\n<pool name='p'><maxReduces>-1</maxReduces></pool></allocations>", 2,
                 "<maxReduces> in pool 'p': a negative count (-1) acts as 0 in Hadoop; read as 0", id="negative-count"),
    pytest.param("<allocations>\n<pool name='p'><weight>-0.5</weight></pool></allocations>", 2,
                 "<weight> in pool 'p': a negative weight (-0.5) gets what weight 0 gets", id="negative-weight"),
    pytest.param("<allocations>\n<fairSharePreemptionTimeout>-5</fairSharePreemptionTimeout></allocations>", 2,
                 "<fairSharePreemptionTimeout>: a negative timeout (-5) acts as 0", id="negative-timeout"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "line", "fragment"), TAKEN_WITH_A_WARNING)
def test_taken_with_a_warning(text: str, line: int, fragment: str) -> None:
    """PoolManager.reloadAllocs (Hadoop 1.x) takes these: getAttribute("name") is "" for a pool or user
    without a name, each setting is a map keyed by name (a second <pool> merges into the first),
    Integer.parseInt / Long.parseLong / Double.parseDouble take a sign.  Loaded, with one warning."""
    allocations = parse_allocations(text, "allocations.xml")
    (warning,) = allocations.warnings
    assert warning.startswith(f"allocations.xml:{line}: ") and fragment in warning, warning


def test_a_pool_declared_twice_is_merged() -> None:
    """PoolManager.reloadAllocs: mapAllocs, poolWeights, ... keyed by pool name: the second <pool> sets what it
    gives, the first's other settings stay."""
    text = (
        "<allocations>\n<pool name='a'><minMaps>3</minMaps><weight>2</weight></pool>\n"
        "<pool name='a'><weight>5</weight><maxMaps>9</maxMaps></pool>\n</allocations>"
    )
    pool = parse_allocations(text, "allocations.xml").pool("a")
    assert (pool.min_maps, pool.weight, pool.max_maps, pool.line) == (3, 5.0, 9, 2)


@pytest.mark.parametrize(("text", "line", "fragment"), MALFORMED)
def test_malformed(text: str, line: int, fragment: str) -> None:
    with pytest.raises(AllocationError) as info:
        parse_allocations(text, "allocations.xml")
    error = info.value
    assert str(error).startswith(f"allocations.xml:{line}: ")
    assert (error.source, error.line) == ("allocations.xml", line)
    assert fragment in str(error)


def test_brief_example_message_exactly() -> None:
    text = "<allocations>\n" + "\n" * 4 + "<pool name='poolA'>\n<minMaps>ten</minMaps>\n</pool></allocations>"
    with pytest.raises(AllocationError) as info:
        parse_allocations(text, "allocations.xml")
    assert (
        str(info.value)
        == "allocations.xml:7: <minMaps> in pool 'poolA' must be a non-negative integer, got 'ten'"
    )


def test_all_errors_are_reported_together() -> None:
    body = (
        "<pool name='a'>\n<minMaps>x</minMaps>\n<maxMaps>2.0</maxMaps>\n</pool>\n"
        "<pool name='b'><weight>w</weight>\n</pool>\n"
        "<poolMaxJobsDefault>lots</poolMaxJobsDefault>"
    )
    with pytest.raises(AllocationError) as info:
        parse(body)
    message = str(info.value)
    assert info.value.line == 3
    assert message.startswith("allocations.xml:3: <minMaps> in pool 'a'")
    parts = message.split("; ")
    assert [part.split(": ")[0] for part in parts] == [
        "allocations.xml:3",
        "allocations.xml:4",
        "allocations.xml:6",
        "allocations.xml:8",
    ]


def test_unknown_elements_are_warnings() -> None:
    allocations = parse(
        '<pool name="p">\n<minMaps>1</minMaps>\n<minShare>1024</minShare>\n</pool>\n'
        '<frobnicate>1</frobnicate>\n<user name="u"><maxApps>2</maxApps></user>\n'
    )
    assert allocations.pool("p").min_maps == 1
    assert allocations.dialect == "mr1"
    assert allocations.warnings == (
        'allocations.xml:4: unknown element <minShare> in <pool name="p"> ignored',
        "allocations.xml:6: unknown element <frobnicate> ignored",
        'allocations.xml:7: unknown element <maxApps> in <user name="u"> ignored',
    )


def test_a_yarn_element_makes_the_file_yarn_and_mr1_elements_are_ignored_with_warnings() -> None:
    """Since the YARN dialect is read (issue 12), a file with one of its elements is a YARN
    file: ``<pool>`` is YARN's alias of ``<queue>`` and MR1-only elements are warned about."""
    allocations = parse(
        '<pool name="p">\n<minMaps>1</minMaps>\n<minResources>1024 mb, 1 vcores</minResources>\n</pool>\n'
        '<queue name="q"><queue name="r"/></queue>'
    )
    assert allocations.dialect == "yarn"
    assert allocations.pool_names() == ["default", "p"]  # leaves directly under root serve slot mode
    assert allocations.queues.min_resources("root.p").memory == 1024
    assert allocations.queues.children("root.q") == ("root.q.r",)
    assert allocations.warnings == (
        'allocations.xml:3: <minMaps> in queue "root.p" is an MR1 (Hadoop 1) element, ignored in a YARN allocation'
        " file",
    )


def test_min_above_max_is_a_warning() -> None:
    allocations = parse(pool_xml("p", minMaps=5, maxMaps=2, minReduces=1, maxReduces=1))
    assert allocations.pool("p").max_share("map") == 2
    assert allocations.warnings == ("allocations.xml:2: pool 'p' has maxMaps 2 less than minMaps 5",)


def test_repeated_element_last_one_wins_with_warning() -> None:
    allocations = parse('<pool name="p">\n<minMaps>1</minMaps>\n<minMaps>2</minMaps>\n</pool>')
    assert allocations.pool("p").min_maps == 2
    assert allocations.warnings == (
        "allocations.xml:4: <minMaps> in pool 'p' given more than once; using this one",
    )


# --------------------------------------------------------------------------- files and parse_pool


def test_from_file_and_alias(tmp_path: Path) -> None:
    path = tmp_path / "fair-scheduler.xml"
    path.write_text(S6)
    allocations = load_allocations(path)
    assert allocations.source == str(path)
    assert allocations == load_allocations(str(path))
    assert allocations.pool_max_jobs("poolD") == 3


def test_unreadable_file_has_no_line(tmp_path: Path) -> None:
    path = tmp_path / "missing.xml"
    with pytest.raises(AllocationError) as info:
        load_allocations(path)
    assert info.value.line is None
    assert str(info.value).startswith(f"{path}: cannot read allocation file")


def test_errors_in_a_file_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "alloc.xml"
    path.write_text("<allocations>\n<pool name='p'><weight>x</weight></pool>\n</allocations>")
    with pytest.raises(AllocationError, match=r"^.*alloc\.xml:2: <weight> in pool 'p'"):
        load_allocations(path)


def test_pool_spec_from_xml() -> None:
    elem = etree.fromstring('<pool name="p">\n<minMaps>3</minMaps>\n<bogus/></pool>')
    warnings: list[str] = []
    spec = parse_pool(elem, "x.xml", warnings=warnings)
    assert spec == PoolSpec("p", min_maps=3, line=1)
    assert warnings == ['x.xml:3: unknown element <bogus> in <pool name="p"> ignored']
    with pytest.raises(AllocationError, match=r"^x\.xml:1: expected a <pool> element, found <user>"):
        parse_pool(etree.fromstring('<user name="u"/>'), "x.xml")
    with pytest.raises(AllocationError, match=r"^x\.xml:2: <minMaps> in pool 'p'"):
        parse_pool(etree.fromstring('<pool name="p">\n<minMaps>?</minMaps></pool>'), "x.xml")


def test_pool_spec_validates_programmatic_values() -> None:
    with pytest.raises(ValueError, match="min_maps"):
        PoolSpec("p", min_maps=-1)
    with pytest.raises(ValueError, match="weight"):
        PoolSpec("p", weight=-1)


counts = st.none() | st.integers(min_value=0, max_value=10**6)
seconds = st.none() | st.integers(min_value=0, max_value=10**6).map(float)  # Long.parseLong: whole seconds


@given(
    min_maps=st.integers(0, 1000),
    min_reduces=st.integers(0, 1000),
    max_maps=counts,
    max_running_jobs=counts,
    weight=st.integers(0, 10**4).map(lambda w: w / 100),
    mode=st.sampled_from([None, "fair", "fifo"]),
    timeout=seconds,
)
def test_round_trip(
    min_maps: int,
    min_reduces: int,
    max_maps: int | None,
    max_running_jobs: int | None,
    weight: float,
    mode: str | None,
    timeout: float | None,
) -> None:
    spec = PoolSpec(
        "p", min_maps, min_reduces, max_maps, None, max_running_jobs, weight, mode, timeout, line=2
    )
    given_fields = {
        "minMaps": min_maps,
        "minReduces": min_reduces,
        "maxMaps": max_maps,
        "maxRunningJobs": max_running_jobs,
        "weight": repr(weight),
        "schedulingMode": mode,
        "minSharePreemptionTimeout": None if timeout is None else str(int(timeout)),
    }
    xml = pool_xml("p", **{tag: value for tag, value in given_fields.items() if value is not None})
    assert parse(xml).pool("p") == spec


# --------------------------------------------------------------------------- reloading


class FakeMtime:
    """An mtime function over a dict; counts calls to tell a check from no check."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self.calls = 0

    def __call__(self, path: str) -> float:
        self.calls += 1
        if path not in self.times:
            raise FileNotFoundError(2, "No such file or directory", path)
        return self.times[path]


def good(min_maps: int) -> str:
    return f'<allocations>\n<pool name="p"><minMaps>{min_maps}</minMaps></pool>\n</allocations>\n'


BAD = '<allocations>\n<pool name="p">\n<minMaps>oops</minMaps>\n</pool>\n</allocations>\n'


@pytest.fixture
def alloc_file(tmp_path: Path) -> tuple[Path, FakeMtime]:
    path = tmp_path / "alloc.xml"
    fake = FakeMtime()

    def write(text: str, mtime: float) -> None:
        path.write_text(text)
        fake.times[str(path)] = mtime

    fake.write = write  # type: ignore[attr-defined]
    write(good(1), 100.0)
    return path, fake


def test_loader_follows_hadoop_timers(alloc_file: tuple[Path, FakeMtime]) -> None:
    path, fake = alloc_file
    loader = AllocationFileLoader(path, mtime=fake)
    assert loader.current.pool("p").min_maps == 1
    assert loader.current.source == str(path)
    assert loader.last_error is None
    first_calls = fake.calls

    fake.write(good(2), 108.0)  # type: ignore[attr-defined]
    # No check within RELOAD_INTERVAL (10 s) of the last attempt (the initial load at mtime 100).
    assert loader.reload_if_necessary(105.0) is False
    assert loader.reload_if_necessary(110.0) is False
    assert fake.calls == first_calls
    # Checked, but modified only 2.5 s ago (< RELOAD_WAIT): not reloaded yet.
    assert loader.reload_if_necessary(110.5) is False
    assert fake.calls == first_calls + 1
    assert loader.current.pool("p").min_maps == 1
    # The next check is 10 s later; by then the file is old enough.
    assert loader.reload_if_necessary(120.0) is False
    assert fake.calls == first_calls + 1
    assert loader.reload_if_necessary(121.0) is True
    assert loader.current.pool("p").min_maps == 2
    assert loader.last_successful_reload == 121.0
    # Unchanged file: checked, nothing reloaded.
    assert loader.reload_if_necessary(131.5) is False
    assert loader.current.pool("p").min_maps == 2

    # A malformed file keeps the last good allocations and reports file:line.
    fake.write(BAD, 135.0)  # type: ignore[attr-defined]
    assert loader.reload_if_necessary(142.0) is False
    assert loader.current.pool("p").min_maps == 2
    assert loader.last_error is not None
    assert str(loader.last_error).startswith(f"{path}:3: <minMaps> in pool 'p'")
    assert loader.reload_if_necessary(153.0) is False  # retried, still bad
    assert loader.last_error is not None

    # A later good file is picked up and clears the error.
    fake.write(good(3), 155.0)  # type: ignore[attr-defined]
    assert loader.reload_if_necessary(160.0) is False  # not yet 10 s since 153
    assert loader.reload_if_necessary(163.5) is True
    assert loader.current.pool("p").min_maps == 3
    assert loader.last_error is None


def test_loader_missing_file_is_a_failed_attempt(alloc_file: tuple[Path, FakeMtime]) -> None:
    path, fake = alloc_file
    loader = AllocationFileLoader(path, mtime=fake)
    del fake.times[str(path)]
    path.unlink()
    assert loader.reload_if_necessary(200.0) is False
    assert loader.last_error is not None
    assert loader.last_error.line is None
    assert str(loader.last_error).startswith(f"{path}: cannot read allocation file")
    assert loader.current.pool("p").min_maps == 1


def test_loader_initial_load_must_succeed(alloc_file: tuple[Path, FakeMtime]) -> None:
    path, fake = alloc_file
    fake.write(BAD, 100.0)  # type: ignore[attr-defined]
    with pytest.raises(AllocationError, match=r":3: <minMaps>"):
        AllocationFileLoader(path, mtime=fake)
    with pytest.raises(AllocationError, match="cannot read allocation file"):
        AllocationFileLoader(path.with_name("nothing.xml"), mtime=fake)


def test_loader_with_initial_allocations(alloc_file: tuple[Path, FakeMtime]) -> None:
    path, fake = alloc_file
    loader = AllocationFileLoader(path, mtime=fake, initial=Allocations.empty())
    assert fake.calls == 0
    assert loader.current == Allocations.empty()
    assert loader.reload_if_necessary(106.0) is True  # first check loads the file
    assert loader.current.pool("p").min_maps == 1


def test_force_reload(alloc_file: tuple[Path, FakeMtime]) -> None:
    path, fake = alloc_file
    loader = AllocationFileLoader(path, mtime=fake)
    fake.write(good(7), 101.0)  # type: ignore[attr-defined]
    assert loader.force_reload().pool("p").min_maps == 7
    assert loader.current.pool("p").min_maps == 7
    assert loader.reload_if_necessary(1000.0) is False  # already has this version
    fake.write(BAD, 1001.0)  # type: ignore[attr-defined]
    with pytest.raises(AllocationError, match=r":3: "):
        loader.force_reload()
    assert loader.current.pool("p").min_maps == 7
    assert loader.last_error is not None


def test_loader_with_the_real_clock(tmp_path: Path) -> None:
    path = tmp_path / "alloc.xml"
    path.write_text(good(1))
    start = time.time() - 100
    os.utime(path, (start, start))
    loader = AllocationFileLoader(path)
    path.write_text(good(2))
    os.utime(path, (start + 50, start + 50))  # modified after the initial load
    assert loader.reload_if_necessary(start + 53) is False  # too fresh
    assert loader.reload_if_necessary(start + 64) is True
    assert loader.current.pool("p").min_maps == 2
