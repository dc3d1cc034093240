"""User weights of the Capacity Scheduler (Hadoop 3.3,
``yarn.scheduler.capacity.<queue-path>.user-settings.<user>.weight``): Hadoop's
``TestLeafQueue.testUserSpecificUserLimits`` ported to the public harness (with its
``setupQueueConfiguration``, tests/data/yarn_capacity/test-leaf-queue.xml), the weights'
inheritance, the user AM limit, and bad values.

The user limit (``UsersManager.computeUserLimit``) divides the active users' use by the sum of
their weights, and a user's own limit is that × its weight, rounded down to the minimum
allocation (``getComputedResourceLimitForActiveUsers``).
"""

from __future__ import annotations

import pytest
from test_yarn_capacity_leaf_queue import FIXTURE, harness, headroom, used, with_values

from corescheduler.errors import AllocationError
from corescheduler.testing import ClusterHarness

GB = 1024
WEIGHT = "yarn.scheduler.capacity.root.newroot.{queue}user-settings.{user}.weight"


def weight(xml: str, user: str, value: str, queue: str = "a.") -> str:
    prop = f"<property><name>{WEIGHT.format(queue=queue, user=user)}</name><value>{value}</value></property>"
    return xml.replace("</configuration>", f"  {prop}\n</configuration>")


def specific_user_limits(xml: str) -> tuple[ClusterHarness, object, object]:
    """``testUserSpecificUserLimits``' setting: queue a (8.5 %, maximum 100 %,
    minimum-user-limit-percent 50, user-limit-factor 2) on two 8 GB nodes; user_0's app_0 asks
    for 3 × 4 GB, user_1's app_1 for 2 × 1 GB."""
    xml = with_values(xml, a__maximum_capacity="100", a__minimum_user_limit_percent="50", a__user_limit_factor="2")
    h = harness(xml, nodes=2)
    app_0 = h.submit(queue="a", user="user_0", tasks=3, resources="4096 mb, 1 vcores")
    app_1 = h.submit(queue="a", user="user_1", tasks=2, resources="1024 mb, 1 vcores")
    return h, app_0, app_1


def test_user_specific_user_limits() -> None:
    """``TestLeafQueue.testUserSpecificUserLimits``: user_0's weight 1.5.  a's guarantee is
    0.085 × 16 GB = 1392 MB.  Two active users, weights summing to 2.5.

    1. node_0: the limit is max(⌈1 GB ÷ 2.5⌉, ⌈1392 × 50 %⌉) = 696 MB, rounded up to 1 GB;
       user_0 has nothing: app_0 gets 4 GB.
    2. node_0: current capacity 4 + 1 GB; max(⌈5 GB ÷ 2.5⌉, 2.5 GB) = 2.5 GB, under the cap
       1392 × 2, rounded up to 3 GB; user_0's is 3 GB × 1.5 rounded down to 4 GB, and user_0's
       4 GB is not over it: app_0 gets another 4 GB.
    3. node_1: the cap 2784 MB, rounded up: 3 GB; user_0's 4 GB is exceeded by its 8 GB, so
       user_1's app_1 gets 1 GB.
    Pending: app_0 4 GB, app_1 1 GB (Hadoop's asserts); the headrooms follow the users'
    limits: user_1 3 − 1 = 2 GB, user_0 none."""
    h, app_0, app_1 = specific_user_limits(weight(FIXTURE, "user_0", "1.5"))
    assert h.shares()["queues"]["root.newroot.a"]["user_weights"] == {"user_0": 1.5}
    h.heartbeat("n0000")
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (4 * GB, 4 * GB, 0)
    h.heartbeat("n0000")
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (8 * GB, 8 * GB, 0)
    h.heartbeat("n0001")
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (9 * GB, 8 * GB, 1 * GB)
    pending = [h.demand(app)["memory"] - used(h, app.id) for app in (app_0, app_1)]  # demand: used + pending
    assert pending == [4 * GB, 1 * GB]
    assert (headroom(h, app_1), headroom(h, app_0)) == (2 * GB, 0)


def test_without_the_weight_user_1_gets_the_second_container() -> None:
    """The same steps without user_0's weight: at step 2 user_0's limit is the queue's 3 GB and
    its 4 GB is over it, so user_1's app_1 gets 1 GB instead."""
    h, app_0, app_1 = specific_user_limits(FIXTURE)
    h.heartbeat("n0000")
    h.heartbeat("n0000")
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (5 * GB, 4 * GB, 1 * GB)


@pytest.mark.parametrize(
    "weights",
    [
        (("", "1.5"),),  # the parent's weight (AbstractCSQueue.getUserWeightsFromHierarchy)
        (("", "0.5"), ("a.", "1.5")),  # the leaf's own overrides the parent's
    ],
)
def test_weights_are_inherited_and_overridden(weights: tuple[tuple[str, str], ...]) -> None:
    """A weight set on root.newroot applies to its leaves (a's own overrides it): the allocations
    of ``testUserSpecificUserLimits``.  (Every leaf under root.newroot takes the weight, so
    each needs a minimum-user-limit-percent of at most 100 ÷ 1.5: the global default 50.)"""
    xml = FIXTURE.replace("</configuration>", "<property><name>yarn.scheduler.capacity.minimum-user-limit-percent"
                                              "</name><value>50</value></property>\n</configuration>")
    for queue, value in weights:
        xml = weight(xml, "user_0", value, queue=queue)
    h, app_0, app_1 = specific_user_limits(xml)
    for node in ("n0000", "n0000", "n0001"):
        h.heartbeat(node)
    assert (used(h, app_0.id), used(h, app_1.id)) == (8 * GB, 1 * GB)
    assert h.shares()["queues"]["root.newroot.a"]["user_weights"] == {"user_0": 1.5}


def am_limit_harness(*extra: tuple[str, str]) -> ClusterHarness:
    props = (("root.queues", "a"), ("root.a.capacity", "100"), ("root.a.maximum-am-resource-percent", "0.5"),
             ("root.a.minimum-user-limit-percent", "50"), ("root.a.user-limit-factor", "0.4"), *extra)
    xml = "<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in props
    ) + "</configuration>"
    return ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores",
                          config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}},
                          allocations=xml)


@pytest.mark.parametrize(("weighted", "u_ams"), [(False, 1), (True, 2)])
def test_user_am_limit_with_weights(weighted: bool, u_ams: int) -> None:
    """``LeafQueue.getUserAMResourceLimitPerPartition``: 10 GB × 0.5 × max(50 %, 1 ÷ 2 active
    users) × user-limit-factor 0.4 = 1 GB per user; user u's weight 2 makes its share
    min(0.5 × 2, 1) = 1, a 2 GB AM limit: two of u's AMs run, one of v's."""
    h = am_limit_harness(*((("root.a.user-settings.u.weight", "2"),) if weighted else ()))
    apps = {(user, i): h.submit(queue="a", user=user, tasks=1, resources="1024 mb, 1 vcores",
                                am_resources="1024 mb, 1 vcores")
            for user in ("u", "v") for i in range(3)}
    for _ in range(8):
        h.heartbeat("n0000")
    running = {user: sum(1 for (who, _), app in apps.items() if who == user and h.job(app).am_running)
               for user in ("u", "v")}
    assert running == {"u": u_ams, "v": 1}


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("root.newroot.a.user-settings.user_0.weight", "abc", "expected a number (a user's weight"),
        ("root.newroot.a.user-settings.user_0.weight", "-1", "expected user user_0's weight from 0 to 100 / 50 (= 2,"),
        ("root.newroot.user-settings.bob.weight", "1.5", "expected user bob's weight from 0 to 100 / 100 (= 1,"),
    ],
)
def test_bad_weights_refuse_the_file(key: str, value: str, expected: str) -> None:
    """A weight that is no number, or outside [0, 100 ÷ minimum-user-limit-percent] for a leaf
    it applies to (``LeafQueue.setupQueueConfigs``), refuses the file with one error naming the
    file, line and key; a reload with it keeps the weights in force."""
    good = weight(with_values(FIXTURE, a__minimum_user_limit_percent="50"), "user_0", "1.5")
    h = harness(good)
    bad = good.replace("</configuration>", f"<property><name>yarn.scheduler.capacity.{key}</name>"
                                           f"<value>{value}</value></property>\n</configuration>")
    with pytest.raises(AllocationError) as err:
        h.set_allocations(bad)
    message = str(err.value)
    assert f"yarn.scheduler.capacity.{key}: {expected}" in message
    assert message.count("expected") == 1
    assert ":31:" in message or "line 31" in message
    assert h.shares()["queues"]["root.newroot.a"]["user_weights"] == {"user_0": 1.5}


def test_a_user_name_hadoop_does_not_match_is_warned_and_ignored() -> None:
    """``getAllUserWeightsForQueue`` matches ``user-settings\\.\\w+\\.weight``: a user named
    ``first.last`` gets no weight (Hadoop ignores the key); here the key is warned about."""
    h = harness(weight(FIXTURE, "first.last", "1.5"))
    assert h.shares()["queues"]["root.newroot.a"]["user_weights"] == {}
    warnings = h.scheduler.allocations.warnings
    assert any("user-settings.first.last.weight: not read by Hadoop 3.3" in w for w in warnings)


PREEMPTION_XML = (
    "<configuration>"
    + "".join(f"<property><name>{k}</name><value>{v}</value></property>" for k, v in (
        ("yarn.scheduler.capacity.root.queues", "a,b"), ("yarn.scheduler.capacity.root.a.capacity", "50"),
        ("yarn.scheduler.capacity.root.b.capacity", "50"), ("yarn.scheduler.capacity.root.a.maximum-capacity", "100"),
        ("yarn.scheduler.capacity.root.a.user-limit-factor", "2"),
        ("yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor", "1"),
        ("yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round", "1"),
        ("yarn.scheduler.capacity.root.b.user-settings.v.weight", "0.5")))
    + "</configuration>")


def test_preemption_asks_only_for_what_the_weighted_user_may_get() -> None:
    """``LeafQueue.getTotalPendingResourcesConsideringUserLimit`` takes each user's own limit
    (``getResourceLimitForActiveUsers``, weighted): a (50 %) holds the whole 8 GB node, b's
    user v (weight 0.5) asks for 4 × 1 GB.  v's limit is b's 4 GB guarantee × 0.5 = 2 GB, so b
    is owed 2 GB, not 4 (tests/scenarios/test_yarn_capacity_preemption_seam.py: 4 without the
    weight): the monitor marks 2 of a's containers."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True}},
                       allocations=PREEMPTION_XML)
    early = h.submit(queue="a", user="u", tasks=4, resources="1024 mb, 1 vcores")
    late = h.submit(queue="a", user="u", tasks=4, resources="1024 mb, 1 vcores")
    for _ in range(8):
        h.heartbeat("n0000")
    assert h.running(early) + h.running(late) == 8
    h.submit(queue="b", user="v", tasks=4, resources="1024 mb, 1 vcores")
    h.update()
    assert h.preempt() == []
    marked = h.shares()["preemption"]["marked"]
    assert len(marked) == 2 and {h.task(t).job.id for t in marked} == {late.id}


def test_a_weighted_user_stops_at_its_own_limit_heartbeat_after_heartbeat() -> None:
    """A lone user of weight 0.5 in a queue of the whole 16 GB: the user limit is 16 GB
    (``computeUserLimit``: max(used ÷ 0.5, capacity), at most the capacity), the user's own
    half of it, 8 GB (``getComputedResourceLimitForActiveUsers``); ``canAssignToUser`` refuses
    only once the use is over it, so 9 of its 1 GB containers run.  (Regression: the engine's
    per-leaf admission, ``admit_leaf``, once admitted the leaf's apps up to the unweighted
    bound, 16 GB.)"""
    def prop(key: str, value: str) -> str:
        return f"<property><name>yarn.scheduler.capacity.{key}</name><value>{value}</value></property>"
    xml = ("<configuration>" + prop("root.queues", "a") + prop("root.a.capacity", "100")
           + prop("root.a.user-settings.u0.weight", "0.5") + "</configuration>")
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="16384 mb, 16 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}}, allocations=xml)
    app = h.submit_app(queue="a", user="u0", tasks=16, resources="1024 mb, 1 vcores")
    for _ in range(20):
        h.heartbeat("n0000")
    assert sum(1 for t in h.scheduler._running_tasks.values() if t.job.id == app.id) == 9
