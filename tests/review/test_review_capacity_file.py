"""Review of the capacity-scheduler.xml reader and the plugin on extreme but parsable values:
each is one error naming the file, line, key and what was expected, or runs — never a
traceback or a crash in the middle of a run."""

from __future__ import annotations

import pytest

from corescheduler.errors import AllocationError
from corescheduler.formats.allocation_file import parse_allocations
from corescheduler.testing import ClusterHarness


def xml(*props: tuple[str, str]) -> str:
    body = "\n".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                     for k, v in props)
    return f"<configuration>\n{body}\n</configuration>"


TWO = (("root.queues", "a,b"), ("root.a.capacity", "50"), ("root.b.capacity", "50"))


@pytest.mark.parametrize(("props", "expected"), [
    ((*TWO, ("root.a.user-limit-factor", "1e400")),
     "bad.xml:5: yarn.scheduler.capacity.root.a.user-limit-factor: expected a number (-1: no limit), got '1e400'"),
    ((*TWO, ("maximum-am-resource-percent", "inf")),
     "bad.xml:5: yarn.scheduler.capacity.maximum-am-resource-percent: expected a fraction from 0 to 1, got 'inf'"),
    ((("root.queues", "a,b"), ("root.a.capacity", "infw"), ("root.b.capacity", "1w")),
     "bad.xml:3: yarn.scheduler.capacity.root.a.capacity: expected a weight ≥ 0 such as 2w, got 'infw'"),
    ((("root.queues", "a,b"), ("root.a.capacity", "[memory=99999999999999999999999,vcores=1]"),
      ("root.b.capacity", "[memory=1024,vcores=1]")),
     "bad.xml:3: yarn.scheduler.capacity.root.a.capacity: expected [memory=<MB>,vcores=<n>], "
     "got '[memory=99999999999999999999999,vcores=1]'"),
])
def test_out_of_range_numbers_are_one_error(props: tuple, expected: str) -> None:
    with pytest.raises(AllocationError) as err:
        parse_allocations(xml(*props), "bad.xml")
    assert str(err.value) == expected


def test_weights_near_the_float_maximum_share_equally() -> None:
    """1.7e308w twice: the sum overflows a float, but the weights are equal: 50 % each (it
    was NaN, and the first submission crashed in the PoolResolver)."""
    a = parse_allocations(xml(("root.queues", "a,b"), ("root.a.capacity", "1.7e308w"),
                              ("root.b.capacity", "1.7e308w")), "w.xml")
    q = a.policy_config.queues
    assert q["root.a"].capacity == pytest.approx(0.5) and q["root.b"].absolute_capacity == pytest.approx(0.5)


def test_a_huge_user_limit_factor_runs() -> None:
    """user-limit-factor 1e30 (Hadoop reads any float): the user AM limit is the queue's AM
    limit, as Java's saturating (long) casts make it — not a ValueError at the first AM."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=xml(*TWO, ("root.a.user-limit-factor", "1e30")))
    for user in ("u0", "u1"):
        h.submit_app(queue="a", user=user, tasks=2, resources="1024 mb, 1 vcores", am_resources="1024 mb, 1 vcores")
    got = []
    for _ in range(3):
        for node in sorted(h.cluster.nodes):
            got += h.heartbeat(node)
    assert len(got) == 6
