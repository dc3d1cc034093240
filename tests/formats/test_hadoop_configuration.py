"""A Hadoop ``Configuration`` resource's own rules (``Configuration.loadResource`` /
``loadProperty``), as a YARN capacity file is read: a name defined twice, and ``<final>``."""

from __future__ import annotations

from corescheduler.formats.allocation_file import parse_allocations


def _file(*props: str) -> str:
    return "<configuration>\n" + "\n".join(props) + "\n</configuration>\n"


def _prop(name: str, value: str, final: bool = False) -> str:
    tail = "<final>true</final>" if final else ""
    return f"<property><name>yarn.scheduler.capacity.{name}</name><value>{value}</value>{tail}</property>"


QUEUES = _prop("root.queues", "a,b")


def test_a_name_defined_twice_takes_the_last_definition_with_a_warning() -> None:
    """``loadProperty``: the later definition replaces the earlier (Hadoop says nothing; we
    warn, naming both lines and both values)."""
    alloc = parse_allocations(_file(QUEUES, _prop("root.a.capacity", "30"), _prop("root.b.capacity", "70"),
                                    _prop("root.a.capacity", "40"), _prop("root.b.capacity", "60")), "cs.xml")
    conf = alloc.policy_config
    assert conf.queues["root.a"].capacity == 0.4 and conf.queues["root.b"].capacity == 0.6
    assert [w for w in alloc.warnings if "defined again" in w] == [
        "cs.xml:5: yarn.scheduler.capacity.root.a.capacity is defined again (line 3): this definition, '40', "
        "replaces '30'",
        "cs.xml:6: yarn.scheduler.capacity.root.b.capacity is defined again (line 4): this definition, '60', "
        "replaces '70'",
    ]


def test_a_final_property_keeps_its_value() -> None:
    """``<final>true</final>``: a later definition is ignored (``checkForOverride``: "an attempt
    to override final parameter"), with a warning when it differs, none when it is the same."""
    alloc = parse_allocations(_file(QUEUES, _prop("root.a.capacity", "30", final=True), _prop("root.b.capacity", "70"),
                                    _prop("root.a.capacity", "30"), _prop("root.a.capacity", "50")), "cs.xml")
    assert alloc.policy_config.queues["root.a"].capacity == 0.3
    assert [w for w in alloc.warnings if "final" in w] == [
        "cs.xml:6: yarn.scheduler.capacity.root.a.capacity: line 3 made it final (<final>true</final>); "
        "this definition is ignored, '30' stays"]
    assert not [w for w in alloc.warnings if "defined again" in w]


def test_final_must_say_true() -> None:
    """``"true".equals(...)``: any other text is not final, so the later definition wins."""
    alloc = parse_allocations(_file(QUEUES, _prop("root.a.capacity", "50").replace(
        "</property>", "<final>yes</final></property>"), _prop("root.b.capacity", "70"),
        _prop("root.a.capacity", "30")), "cs.xml")
    assert alloc.policy_config.queues["root.a"].capacity == 0.3
