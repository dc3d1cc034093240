"""A YARN ``capacity-scheduler.xml`` as the engine's
:class:`~corescheduler.core.allocations.Allocations`: the validated file
(:func:`~corescheduler.formats.capacity_scheduler_xml.parse_capacity_scheduler`) turned into
the queue tree the resource engine runs (moved from
:mod:`corescheduler.formats.capacity_scheduler_xml`, which re-exports it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from corescheduler.formats.capacity_scheduler_xml import parse_capacity_scheduler
from corescheduler.formats.hadoop_configuration import HadoopProperty
from corescheduler.resources import Resources

if TYPE_CHECKING:
    from corescheduler.core.allocations import Allocations

__all__ = ["capacity_allocations"]


def capacity_allocations(props: Mapping[str, HadoopProperty], source: str, warnings: Sequence[str] = ()) -> Allocations:
    """The :class:`~corescheduler.core.allocations.Allocations` of a YARN capacity file: its
    tree as a :class:`~corescheduler.core.queues.QueueConfig` (maximum capacity as the max
    resources, ``maximum-allocation-*`` as the largest container, ACLs; no running-app
    limit but ``max-parallel-apps``: the Capacity Scheduler refuses apps past
    ``maximum-applications``, and holds those past ``max-parallel-apps`` not runnable) and
    the validated file as ``policy_config`` for the ``yarn_capacity`` share policy."""
    from corescheduler.core.allocations import Allocations
    from corescheduler.core.queues import INT_MAX, AccessControlList, QueueConfig, QueueSpec
    from corescheduler.resources import ConfigurableResources

    conf = parse_capacity_scheduler(props, source, warnings)
    specs = {}
    for path, q in conf.queues.items():
        if q.maximum_resources is not None:
            # keyed by the resource types' names (memory-mb), as ConfigurableResources.resolve
            # reads them — not as_dict()'s JSON keys ("memory"), which left memory's maximum 0
            maximum = ConfigurableResources(str(q.maximum_resources), amounts=dict(q.maximum_resources.items()))
        else:
            maximum = ConfigurableResources(f"{q.absolute_maximum_capacity * 100:g}%",
                                            percentages={}, unlisted_percentage=q.absolute_maximum_capacity)
        # AbstractCSQueue.setupMaximumAllocation: the parent's maximum allocation, each type the
        # queue sets replaced — so the leaf's own spec holds every type inherited (the engine's
        # QueueConfig.max_container_allocation takes the nearest spec that has one, whole)
        memory = vcores = None
        parts = path.split(".")
        for i in range(1, len(parts) + 1):
            up = conf.queues[".".join(parts[:i])]
            memory = up.maximum_allocation_mb if up.maximum_allocation_mb is not None else memory
            vcores = up.maximum_allocation_vcores if up.maximum_allocation_vcores is not None else vcores
        largest = None
        if memory is not None or vcores is not None:
            largest = Resources.of({"memory": memory or INT_MAX, "vcores": vcores or INT_MAX})
        parallel = conf.queue_max_parallel_apps(path)  # CSMaxRunningAppsEnforcer's queue limit
        specs[path] = QueueSpec(
            path, is_parent=not q.is_leaf, children=q.children, max_resources=maximum,
            max_container_allocation=largest, max_running_apps=INT_MAX if parallel is None else parallel,
            max_am_share=conf.am_resource_percent(path) if q.is_leaf else None,
            allow_preemption_from=None if q.disable_preemption is None else not q.disable_preemption,
            acl_submit_apps=None if q.acl_submit_applications is None
            else AccessControlList.parse(q.acl_submit_applications),
            acl_administer_apps=None if q.acl_administer_queue is None
            else AccessControlList.parse(q.acl_administer_queue),
            line=q.line,
        )
    # CSMaxRunningAppsEnforcer: the engine's running-app limits (MaxRunningAppsEnforcer's rules)
    users_default = conf.user_max_parallel_apps_default
    queues = QueueConfig(queues=specs, user_max_apps=dict(conf.user_max_parallel_apps),
                         user_max_apps_default=INT_MAX if users_default is None else users_default)
    return Allocations(pools={}, users={}, source=source, warnings=conf.warnings, queues=queues,
                       dialect="yarn_capacity", policy_config=conf)
