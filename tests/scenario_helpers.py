"""Helpers shared by the Hadoop scenario tests (not a test module)."""

from __future__ import annotations

from corescheduler.testing import ClusterHarness


def tasks(assignments):
    """The task ids of a heartbeat's assignments."""
    return [a.task for a in assignments]


def hb_seq(h, node, n):
    """n successive heartbeats of one node (assignMultiple off): the task of each, None for an empty one."""
    out = []
    for _ in range(n):
        got = h.heartbeat(node)
        assert len(got) <= 1
        out.append(got[0].task if got else None)
    return out


def F1(racks=1, nodes=2, assign_multiple=False, preemption=False, allocations=None, extra="",
       manual_preemption=False):
    """Hadoop's fixture ``setUpCluster(racks, nodes, assignMultiple)`` plus its
    ``advanceTime(100)``: 2 map + 2 reduce slots a node, CapBasedLoadManager.

    With ``manual_preemption`` the preemption check runs only when the test asks
    (``h.preempt()``), as Hadoop's tests call ``preemptTasksIfNecessary`` by hand."""
    interval = "preemption_interval = 86400.0" if manual_preemption else ""
    config = f"""
[scheduler]
load_manager = "cap_based"
assign_multiple = {str(assign_multiple).lower()}
preemption = {str(preemption).lower()}
{interval}
{extra}
"""
    h = ClusterHarness(racks=racks, nodes_per_rack=nodes, map_slots=2, reduce_slots=2,
                       config=config, allocations=allocations)
    h.advance(0.1)
    return h


def share(h, job):
    """A job's (map, reduce) fair shares."""
    s = h.shares()["jobs"][job.id]
    return (s["map"], s["reduce"])
