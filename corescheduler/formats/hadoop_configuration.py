"""Hadoop ``Configuration`` resources: a ``<configuration>`` of ``<property>`` elements,
each with a ``<name>`` and a ``<value>`` (YARN's ``capacity-scheduler.xml``; moved from
:mod:`corescheduler.formats.capacity_scheduler_xml`, which re-exports these names)."""

from __future__ import annotations

from collections.abc import Mapping

from attrs import frozen
from lxml import etree

from corescheduler.errors import AllocationError
from corescheduler.formats.capacity_scheduler_keys import PREFIX

__all__ = ["HadoopProperty", "is_yarn_capacity", "read_configuration"]


@frozen
class HadoopProperty:
    """One ``<property>``: its value (stripped, as ``Configuration.getTrimmed``) and line."""

    name: str
    value: str
    line: int | None = None


def read_configuration(root: etree._Element, source: str, warnings: list[str] | None = None
                       ) -> dict[str, HadoopProperty]:
    """The properties of a ``<configuration>`` element, as Hadoop's ``Configuration.loadResource``
    / ``loadProperty`` take them: a later definition of a name replaces an earlier one, unless
    that one was ``<final>true</final>`` (then the later is ignored: "an attempt to override
    final parameter").  Each replaced or ignored definition is a warning appended to
    ``warnings`` (Hadoop is silent on a replaced one: an operator wants to know which of two
    lines is in force).  A property without ``<name>`` is an error here."""
    props: dict[str, HadoopProperty] = {}
    final: set[str] = set()
    problems: list[tuple[int | None, str]] = []
    notes = warnings if warnings is not None else []
    for elem in root:
        if not isinstance(elem.tag, str):
            continue
        if elem.tag != "property":
            problems.append((elem.sourceline, f"<{elem.tag}>: expected <property> elements in <configuration>"))
            continue
        name = value = None
        is_final = False
        for child in elem:
            if child.tag == "name":
                name = (child.text or "").strip()
            elif child.tag == "value":
                value = (child.text or "").strip()
            elif child.tag == "final":
                is_final = (child.text or "").strip() == "true"
        if not name:
            problems.append((elem.sourceline, "<property> without a <name>"))
            continue
        before = props.get(name)
        if before is not None:
            where = f"{source}:{elem.sourceline}" if elem.sourceline is not None else source
            if name in final:  # Configuration.checkForOverride
                if before.value != (value or ""):
                    notes.append(f"{where}: {name}: line {before.line} made it final (<final>true</final>); "
                                 f"this definition is ignored, {before.value!r} stays")
                continue
            notes.append(f"{where}: {name} is defined again (line {before.line}): this definition, "
                         f"{value or ''!r}, replaces {before.value!r}")
        props[name] = HadoopProperty(name, value or "", elem.sourceline)
        if is_final:
            final.add(name)
    if problems:
        raise AllocationError("; ".join(m for _, m in problems), source, problems[0][0], problems)
    return props


def is_yarn_capacity(props: Mapping[str, HadoopProperty]) -> bool:
    """A YARN capacity file: some key under ``yarn.scheduler.capacity.`` (an MR1 file has
    ``mapred.capacity-scheduler.`` keys)."""
    return any(name.startswith(PREFIX) for name in props)
