"""Review (session 16): capacity-scheduler.xml numbers Hadoop refuses were read, and a user
weight Hadoop ignores was applied.

* Hadoop reads the numbers with ``Configuration.getInt``/``getFloat`` → ``Integer.parseInt`` /
  ``Float.parseFloat``: neither takes Python's digit separators (``1_000``), and
  ``Float.parseFloat`` takes no digits but ASCII ones.  Such a file stops Hadoop's
  ResourceManager (``NumberFormatException``); ``yarn_capacity`` read ``5_0`` as 50 and ran.
* ``CapacitySchedulerConfiguration.getAllUserWeightsForQueue`` finds weights by the regular
  expression ``user-settings\\.\\w+\\.weight``, and Java's ``\\w`` is ``[a-zA-Z_0-9]``: a
  weight for a user named with other letters is not read.  Python's ``\\w`` is Unicode, so
  ``yarn_capacity`` applied it."""

from __future__ import annotations

import pytest

from corescheduler.errors import AllocationError
from corescheduler.formats.allocation_file import parse_allocations


def xml(*props: tuple[str, str]) -> str:
    body = "\n".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                     for k, v in props)
    return f"<configuration>\n{body}\n</configuration>"


TWO = (("root.queues", "a,b"), ("root.b.capacity", "50"))
WEIGHTS = (("root.queues", "a,b"), ("root.b.capacity", "1w"))


@pytest.mark.parametrize(("key", "value"), [
    ("root.a.capacity", "5_0"), ("root.a.maximum-capacity", "10_0"),
    ("root.a.user-limit-factor", "1_0"), ("root.a.maximum-applications", "1_000"),
    ("root.a.max-parallel-apps", "1_0"), ("global-queue-max-application", "1_0"),
    ("root.a.capacity", "\u0665\u0660"),  # Arabic-Indic 50: Float.parseFloat refuses it
    ("root.a.user-limit-factor", "\u0661"),
])
def test_a_number_java_refuses_is_refused(key: str, value: str) -> None:
    props = [*TWO, ("root.a.capacity", "50"), (key, value)] if key != "root.a.capacity" else [*TWO, (key, value)]
    with pytest.raises(AllocationError) as err:
        parse_allocations(xml(*props), "cs.xml")
    assert str(err.value).startswith(f"cs.xml:{len(props) + 1}: yarn.scheduler.capacity.{key}: expected")
    assert "\n" not in str(err.value)


def test_a_weight_java_refuses_is_refused() -> None:
    with pytest.raises(AllocationError) as err:
        parse_allocations(xml(*WEIGHTS, ("root.a.capacity", "2_5w")), "cs.xml")
    assert str(err.value).startswith("cs.xml:4: yarn.scheduler.capacity.root.a.capacity: expected a weight")


def test_a_weight_for_a_user_java_regex_does_not_match_is_not_read() -> None:
    allocations = parse_allocations(xml(*TWO, ("root.a.capacity", "50"),
                                        ("root.a.user-settings.jos\u00e9.weight", "0.5"),
                                        ("root.a.user-settings.bob.weight", "0.5")), "cs.xml")
    assert dict(allocations.policy_config.queues["root.a"].user_weights) == {"bob": 0.5}
    assert any("jos\u00e9" in w and "ignored" in w for w in allocations.warnings)


@pytest.mark.parametrize(("key", "value", "attr", "expected"), [
    ("root.a.user-limit-factor", "2.5f", "user_limit_factor", 2.5),  # Float.parseFloat's suffix
    ("root.a.user-limit-factor", "0x1.4p1", "user_limit_factor", 2.5),  # its hexadecimal form
    ("root.a.user-limit-factor", " 2.5 ", "user_limit_factor", 2.5),  # Configuration.getTrimmed
    ("root.a.maximum-applications", "0x20", "maximum_applications", 32),  # getInt: getHexDigits
])
def test_a_number_java_reads_is_read(key: str, value: str, attr: str, expected: float) -> None:
    """What ``Configuration.getFloat``/``getInt`` read, a file may hold: ``2.5f``, ``0x1.4p1``,
    ``0x20`` (each was refused here, a refusal Hadoop does not make)."""
    allocations = parse_allocations(xml(*TWO, ("root.a.capacity", "50"), (key, value)), "cs.xml")
    q = allocations.policy_config.queues["root.a"]
    assert getattr(q, attr) == expected


@pytest.mark.parametrize("value", ["NaN", "Infinity", "inf", "1e400"])
def test_a_float_that_is_no_finite_number_is_refused(value: str) -> None:
    """``Float.parseFloat`` reads ``NaN`` and ``Infinity`` (and Hadoop would go on with them);
    a user-limit factor of NaN means nothing a user wants: one error naming the key."""
    with pytest.raises(AllocationError) as err:
        parse_allocations(xml(*TWO, ("root.a.capacity", "50"), ("root.a.user-limit-factor", value)), "cs.xml")
    assert "yarn.scheduler.capacity.root.a.user-limit-factor: expected" in str(err.value)
