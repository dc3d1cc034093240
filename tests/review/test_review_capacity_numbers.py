"""Review (session 15) of capacity-scheduler.xml values that crashed instead of giving one
error naming the file, line and key: integer keys past a Java ``int`` (Hadoop reads them with
``Configuration.getInt`` → ``Integer.parseInt``, which refuses them), a sibling level that
mixes capacity modes (or has a bad capacity) above a level of grandchildren, and a
``user-limit-factor`` whose per-user app limit overflows a Java float (Java's ``(int)`` cast
of +∞ is ``Integer.MAX_VALUE``)."""

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
BIG = "99999999999999999999"


@pytest.mark.parametrize("key", ["root.a.maximum-allocation-mb", "root.a.maximum-allocation-vcores",
                                 "root.a.maximum-applications", "maximum-applications", "root.a.priority",
                                 "node-locality-delay", "per-node-heartbeat.maximum-container-assignments"])
def test_an_integer_past_a_java_int_is_one_error(key: str) -> None:
    with pytest.raises(AllocationError) as err:
        parse_allocations(xml(*TWO, (key, BIG)), "big.xml")
    message = str(err.value)
    assert message.startswith(f"big.xml:5: yarn.scheduler.capacity.{key}: expected a whole number")
    assert "2147483647" in message and BIG in message


@pytest.mark.parametrize("kids", [("50", "50"), ("1w", "1w"), ("[memory=1024,vcores=1]", "[memory=1024,vcores=1]")])
@pytest.mark.parametrize("siblings", [("50", "1w"), ("abc", "50")])
def test_a_bad_level_above_grandchildren_is_one_error(kids: tuple[str, str], siblings: tuple[str, str]) -> None:
    """root's children mix percent and weight (or root.a's capacity is no number): that is the
    error — root.a's own children are no KeyError."""
    with pytest.raises(AllocationError) as err:
        parse_allocations(xml(("root.queues", "a,b"), ("root.a.capacity", siblings[0]),
                              ("root.b.capacity", siblings[1]), ("root.a.queues", "a1,a2"),
                              ("root.a.a1.capacity", kids[0]), ("root.a.a2.capacity", kids[1])), "mixed.xml")
    assert str(err.value).startswith("mixed.xml:3: yarn.scheduler.capacity.root.")


def test_a_user_limit_factor_past_a_float_admits_apps() -> None:
    """user-limit-factor 1e38: maxApplicationsPerUser is (int) of +∞ in Java floats, the int
    maximum, so min(maxApplications, …) is maxApplications — the apps run (it was an
    OverflowError in the PoolResolver at the first submission)."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=xml(*TWO, ("root.a.user-limit-factor", "1e38")))
    policy = h.scheduler.plugins.share_policy("yarn_capacity").policy
    assert policy.conf.max_applications_per_user("root.a") == 5000
    for user in ("u0", "u1"):
        h.submit_app(queue="a", user=user, tasks=2, resources="1024 mb, 1 vcores")
    got = []
    for _ in range(3):
        for node in sorted(h.cluster.nodes):
            got += h.heartbeat(node)
    assert len(got) == 4
