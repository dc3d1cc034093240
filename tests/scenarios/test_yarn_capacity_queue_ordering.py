"""Queue ordering of the YARN Capacity Scheduler: Hadoop's
``TestPriorityUtilizationQueueOrderingPolicy`` (Hadoop 3.3,
``.../scheduler/capacity/policy/TestPriorityUtilizationQueueOrderingPolicy.java``) — pure
comparator cases, ported to :func:`yarn_capacity.queue_order_key` (cases on node partitions
are left out: no node labels here) — and a parent's ``ordering-policy`` through the harness.
"""

from __future__ import annotations

import pytest
from corescheduler_plugins import yarn_capacity

from corescheduler.errors import AllocationError
from corescheduler.formats.allocation_file import parse_allocations
from corescheduler.testing import ClusterHarness


def order(names: str, priorities: list[int], used: list[float], absolute: list[float],
          respect: bool = True) -> str:
    """``mockCSQueues`` + ``verifyOrder``: the queues as the comparator sorts them (a queue of
    absolute capacity 0 is compared by its absolute used capacity, 0 in Hadoop's mocks)."""
    keys = []
    for name, p, u, a in zip(names, priorities, used, absolute, strict=True):
        keys.append(yarn_capacity.queue_order_key(u if a > 0 else 0.0, a, p if respect else 0, (-a,), name))
    return "".join(k[-1] for k in sorted(keys))


def test_utilization_ordering() -> None:
    """``testUtilizationOrdering`` cases 1–4: least used first; priorities ignored."""
    assert order("a", [0], [0.1], [0.2], respect=False) == "a"
    assert order("ab", [0, 0], [0.1, 0.0], [0.2, 0.3], respect=False) == "ba"
    assert order("abc", [0, 0, 0], [0.1, 0.0, 0.2], [0.2, 0.3, 0.4], respect=False) == "bac"
    assert order("abc", [2, 1, 0], [0.1, 0.0, 0.2], [0.2, 0.3, 0.4], respect=False) == "bac"


@pytest.mark.parametrize(("priorities", "used", "absolute", "expected"), [
    ([1], [0.1], [0.2], "a"),                                    # case 1
    ([1, 1], [0.2, 0.1], [0.2, 0.3], "ba"),                      # 2: both under, same priority
    ([1, 1], [1.1, 1.2], [0.2, 0.3], "ab"),                      # 3: both over, same priority
    ([1, 1], [0.1, 1.2], [0.2, 0.3], "ab"),                      # 4: one under, one over
    ([1, 2], [1.1, 1.2], [0.2, 0.3], "ba"),                      # 5: both over, priorities differ
    ([1, 2], [0.1, 0.2], [0.2, 0.3], "ba"),                      # 6: both under, priorities differ
    ([1, 2], [0.1, 1.2], [0.2, 0.3], "ab"),                      # 7: the under one first
    ([2, 1], [0.1, 1.2], [0.2, 0.3], "ab"),                      # 8
    ([1, 2], [0.1, 1.0], [0.2, 0.3], "ab"),                      # 9: meeting the guarantee is over
    ([2, 1], [0.1, 1.0], [0.2, 0.3], "ab"),                      # 10
    ([1, 1], [0.1, 1.0], [0.2, 0.3], "ab"),                      # 11
    ([1, 2], [1.0, 1.0], [0.2, 0.3], "ba"),                      # 12: both meet
    ([1, 2, 0, 0, 3], [1.2, 1.0, 0.2, 1.1, 0.2], [0.2, 0.1, 0.1, 0.3, 0.3], "ecbad"),  # 13
    ([1, 1], [0.1, 1.2], [0.0, 0.3], "ba"),                      # 17: capacity 0 goes last
    ([1, 1], [0.1, 1.2], [0.3, 0.0], "ab"),                      # 18
    ([1, 2, 0, 0, 3], [1.2, 1.0, 0.2, 1.1, 0.2], [0.0, 0.0, 0.1, 0.3, 0.3], "ecdba"),  # 19
])
def test_priority_utilization_ordering(priorities: list[int], used: list[float], absolute: list[float],
                                       expected: str) -> None:
    """``testPriorityUtilizationOrdering`` (cases 14–16 are about node partitions)."""
    assert order("abcde"[:len(used)], priorities, used, absolute) == expected


def xml(*props: tuple[str, str]) -> str:
    return "<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in props
    ) + "</configuration>"


def two_queues(policy: str | None) -> str:
    props = [("root.queues", "a,b"), ("root.a.capacity", "50"), ("root.b.capacity", "50"),
             ("root.a.user-limit-factor", "2"), ("root.b.user-limit-factor", "2"), ("root.b.priority", "1")]
    if policy is not None:
        props.append(("root.ordering-policy", policy))
    return xml(*props)


@pytest.mark.parametrize(("policy", "winner"), [(None, "root.a"), ("utilization", "root.a"),
                                                ("priority-utilization", "root.b")])
def test_parent_ordering_policy_and_priority(policy: str | None, winner: str) -> None:
    """``ParentQueue`` sorts its children by its ``ordering-policy``: a (used 1 GB of 5 GB) and
    b (2 GB of 5 GB, priority 1), both under their guarantee: ``utilization`` (the default)
    offers the next container to the less used a, ``priority-utilization`` to b."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}},
                       allocations=two_queues(policy))
    a = h.submit(queue="a", tasks=1, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    b = h.submit(queue="b", tasks=1, resources="2048 mb, 1 vcores")
    h.heartbeat("n0000")
    assert (h.job(a).usage.memory, h.job(b).usage.memory) == (1024, 2048)
    h.submit(queue="a", tasks=1, resources="1024 mb, 1 vcores")
    h.submit(queue="b", tasks=1, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    used = {q: h.shares()["queues"][q]["usage"]["memory"] for q in ("root.a", "root.b")}
    assert used == ({"root.a": 2048, "root.b": 2048} if winner == "root.a" else {"root.a": 1024, "root.b": 3072})
    assert h.shares()["queues"]["root"]["ordering_policy"] == (policy or "utilization")


def test_parent_ordering_policy_is_inherited_and_checked() -> None:
    """A parent's ``ordering-policy`` is ``utilization`` or ``priority-utilization``, inherited by
    the parents under it; ``fifo`` on a parent is refused naming the key."""
    conf = parse_allocations(xml(("root.queues", "p"), ("root.ordering-policy", "priority-utilization"),
                                 ("root.p.capacity", "100"), ("root.p.queues", "a"),
                                 ("root.p.a.capacity", "100"))).policy_config
    assert conf.queues["root.p"].ordering_policy == "priority-utilization"
    assert conf.queues["root.p.a"].ordering_policy == "fifo"
    with pytest.raises(AllocationError, match=r"root\.ordering-policy: expected utilization or priority-utilization"):
        parse_allocations(xml(("root.queues", "a"), ("root.ordering-policy", "fifo"), ("root.a.capacity", "100")))
