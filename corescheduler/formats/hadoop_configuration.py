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


def read_configuration(root: etree._Element, source: str) -> dict[str, HadoopProperty]:
    """The properties of a ``<configuration>`` element (Hadoop ``Configuration.loadResource``:
    the last definition of a name wins; a property without ``<name>`` is an error here)."""
    props: dict[str, HadoopProperty] = {}
    problems: list[tuple[int | None, str]] = []
    for elem in root:
        if not isinstance(elem.tag, str):
            continue
        if elem.tag != "property":
            problems.append((elem.sourceline, f"<{elem.tag}>: expected <property> elements in <configuration>"))
            continue
        name = value = None
        for child in elem:
            if child.tag == "name":
                name = (child.text or "").strip()
            elif child.tag == "value":
                value = (child.text or "").strip()
        if not name:
            problems.append((elem.sourceline, "<property> without a <name>"))
            continue
        props[name] = HadoopProperty(name, value or "", elem.sourceline)
    if problems:
        raise AllocationError("; ".join(m for _, m in problems), source, problems[0][0], problems)
    return props


def is_yarn_capacity(props: Mapping[str, HadoopProperty]) -> bool:
    """A YARN capacity file: some key under ``yarn.scheduler.capacity.`` (an MR1 file has
    ``mapred.capacity-scheduler.`` keys)."""
    return any(name.startswith(PREFIX) for name in props)
