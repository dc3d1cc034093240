"""Helpers shared by the Hadoop scenario tests (not a test module)."""

from __future__ import annotations


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
