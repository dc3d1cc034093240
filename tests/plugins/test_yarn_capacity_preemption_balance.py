"""Hadoop 3.3's ``TestProportionalCapacityPreemptionPolicyPreemptToBalance`` (every case) and
``TestProportionalCapacityPreemptionPolicyInterQueueWithDRF.testInterQueuePreemptionWithStrictAndRelaxedDRF``,
ported to the policy's public API as ``test_yarn_capacity_preemption_hadoop_more.py`` ports the
``ProportionalCapacityPreemptionPolicyMockFramework`` cases: ``root(=[guaranteed max used pending])``,
apps ``(priority,resource,host,expression,#repeat,reserved)`` with the first container the AM,
the framework's settings (wait 10 s, the whole excess in one round), and Hadoop's count of
``MARK_CONTAINER_FOR_PREEMPTION`` events per app as the containers one round marks.

``preemption-to-balance-queue-after-satisfied.enabled`` adds a second ``FifoCandidatesSelector``
whose ideal assignment lets queues above their guarantees balance
(``TempQueuePerPartition.offer`` without ``filterByMaxDeductAssigned``); what it selects waits
``….max-wait-before-kill`` before the kill (``PreemptionCandidatesSelector.getMaximumKillWaitTimeMs``).
"""

from __future__ import annotations

import pytest
from corescheduler_plugins._yarn_capacity_preemption import (
    PREFIX,
    ContainerView,
    PreemptionConfigError,
    PreemptionSettings,
    ProportionalCapacityPreemption,
    QueueView,
)
from test_yarn_capacity_preemption_hadoop_more import SETUP

from corescheduler.resources import Resources

BALANCE = {PREFIX + "preemption-to-balance-queue-after-satisfied.enabled": "true"}


def _leaf(name: str, g: Resources, mx: Resources, used: Resources, pend: Resources,
          app: str | None = None, n: int = 0, size: Resources | None = None) -> QueueView:
    order = int(app[3:]) if app else 0
    containers = [ContainerView(f"{app}_c{k}", app, order, size or Resources(1, 1), is_am=k == 0)
                  for k in range(n)] if app else []
    return QueueView(f"root.{name}", g, mx, used, pend, containers=containers)


def _policy(props: dict[str, str], dominant: bool = False) -> ProportionalCapacityPreemption:
    return ProportionalCapacityPreemption(PreemptionSettings.from_properties({**SETUP, **props}), dominant=dominant)


def _per_app(ids: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for cid in ids:
        app = cid.split("_")[0]
        out[app] = out.get(app, 0) + 1
    return out


def _mem(v: int) -> Resources:
    return Resources(v, 0)


def _four_queues(a_pending: int) -> tuple[QueueView, Resources]:
    """``root(=[100 100 100 100]); -a(=[30 100 10 pend]); -b(=[30 100 40 30]);
    -c(=[30 100 50 30]); -d(=[10 100 0 0])``, apps 10, 40 and 50 containers of 1."""
    m = _mem
    leaves = [
        _leaf("a", m(30), m(100), m(10), m(a_pending), "app1", 10, m(1)),
        _leaf("b", m(30), m(100), m(40), m(30), "app2", 40, m(1)),
        _leaf("c", m(30), m(100), m(50), m(30), "app3", 50, m(1)),
        _leaf("d", m(10), m(100), m(0), m(0)),
    ]
    return QueueView("root", m(100), m(100), m(100), children=leaves), m(100)


def _ideal(rnd, name: str) -> int:
    return rnd.ideal[f"root.{name}"].memory


def test_preemption_to_balance_disabled():
    """testPreemptionToBalanceDisabled: ideal A 30, B 35, C 35; 5 from B, 15 from C."""
    root, cluster = _four_queues(30)
    rnd = _policy({}).select(root, cluster, 0.0)
    assert _per_app(rnd.marked) == {"app2": 5, "app3": 15}
    assert [_ideal(rnd, q) for q in "abc"] == [30, 35, 35]


def test_preemption_to_balance_enabled():
    """testPreemptionToBalanceEnabled: ideal A 33, B 33, C 33; 7 from B, 17 from C (the
    first selector's 5 and 15, then 2 and 2 more to balance)."""
    root, cluster = _four_queues(30)
    rnd = _policy(BALANCE).select(root, cluster, 0.0)
    assert _per_app(rnd.marked) == {"app2": 7, "app3": 17}
    assert [_ideal(rnd, q) for q in "abc"] == [33, 33, 33]


def test_preemption_to_balance_used_plus_pending_less_than_guaranteed():
    """testPreemptionToBalanceUsedPlusPendingLessThanGuaranteed: a asks for 6 only: ideal
    A 16, B 42, C 42; 8 from C (app3), none from B."""
    root, cluster = _four_queues(6)
    rnd = _policy(BALANCE).select(root, cluster, 0.0)
    assert _per_app(rnd.marked) == {"app3": 8}
    assert [_ideal(rnd, q) for q in "abc"] == [16, 42, 42]


def _vcore_case() -> tuple[QueueView, Resources]:
    """``root(=[100:100 100:100 100:100 120:140]); -a(=[60:60 100:100 40:40 70:40]);
    -b(=[40:40 100:100 60:60 50:100])``, 40 and 60 containers of 1:1 (DRF)."""
    R = Resources
    leaves = [_leaf("a", R(60, 60), R(100, 100), R(40, 40), R(70, 40), "app1", 40, R(1, 1)),
              _leaf("b", R(40, 40), R(100, 100), R(60, 60), R(50, 100), "app2", 60, R(1, 1))]
    return QueueView("root", R(100, 100), R(100, 100), R(100, 100), children=leaves), R(100, 100)


def test_preemption_to_balance_with_vcore_resource():
    """testPreemptionToBalanceWithVcoreResource: 21 from app2; ideal a 60:60, b 40:40."""
    root, cluster = _vcore_case()
    rnd = _policy(BALANCE, dominant=True).select(root, cluster, 0.0)
    assert _per_app(rnd.marked) == {"app2": 21}
    assert rnd.ideal["root.a"] == Resources(60, 60) and rnd.ideal["root.b"] == Resources(40, 40)


def test_preemption_to_balance_with_configured_timeout():
    """testPreemptionToBalanceWithConfiguredTimeout: the balancing selector's wait is its own
    (60 s here): the same 21 from app2; what the first selector took is killed after the
    policy's 10 s, what the balancing one took only after 60 s."""
    props = {**BALANCE, PREFIX + "preemption-to-balance-queue-after-satisfied.max-wait-before-kill": "60000"}
    assert PreemptionSettings.from_properties({**SETUP, **props}).balance_max_wait_before_kill == 60.0
    root, cluster = _vcore_case()
    policy = _policy(props, dominant=True)
    first = policy.select(root, cluster, 0.0)
    assert _per_app(first.marked) == {"app2": 21}
    assert first.ideal["root.a"] == Resources(60, 60) and first.ideal["root.b"] == Resources(40, 40)
    # the default selector alone (balancing off) takes what b owes by its guarantee
    plain = _policy({}, dominant=True).select(root, cluster, 0.0)
    fifo_part = set(plain.marked)
    assert 0 < len(fifo_part) < 21 and fifo_part <= set(first.marked)
    balance_part = set(first.marked) - fifo_part
    # the default selector's wait is 10 s, the balancing one's 60 s
    assert set(policy.select(root, cluster, 10.0).kill) == fifo_part
    again = _policy(props, dominant=True)
    again.select(root, cluster, 0.0)
    assert set(again.select(root, cluster, 60.0).kill) == set(first.marked)
    # Hadoop's cleanupStaledPreemptionCandidates forgets a mark older than twice the policy's
    # max_wait_before_kill (20 s), whichever selector made it: a round at 30 s kills the
    # default selector's and drops the balancing one's mark (selected again, it starts anew)
    third = _policy(props, dominant=True)
    third.select(root, cluster, 0.0)
    assert set(third.select(root, cluster, 30.0).kill) == fifo_part
    assert not balance_part & set(third.marked_since())


def test_balance_off_switch_and_bad_values():
    """The keys are checked when the file loads: booleans true/false, a wait in whole
    milliseconds at least 0 (0: the policy's ``max_wait_before_kill``)."""
    s = PreemptionSettings.from_properties({PREFIX + "preemption-to-balance-queue-after-satisfied.enabled": " FALSE "})
    assert s.balance_after_satisfied is False and s.balance_max_wait_before_kill == 300.0
    for key, value in [("preemption-to-balance-queue-after-satisfied.enabled", "yes"),
                       ("preemption-to-balance-queue-after-satisfied.max-wait-before-kill", "1m"),
                       ("preemption-to-balance-queue-after-satisfied.max-wait-before-kill", "-1"),
                       ("conservative-drf", "1")]:
        with pytest.raises(PreemptionConfigError, match=PREFIX + key.replace(".", r"\.")):
            PreemptionSettings.from_properties({PREFIX + key: value})


def test_balance_wait_zero_means_the_policy_wait():
    """``getMaximumKillWaitTimeMs``: a selector's own wait only when above 0."""
    props = {**BALANCE, PREFIX + "preemption-to-balance-queue-after-satisfied.max-wait-before-kill": "0"}
    root, cluster = _four_queues(30)
    policy = _policy(props)
    first = policy.select(root, cluster, 0.0)
    assert sorted(policy.select(root, cluster, 10.0).kill) == sorted(first.marked)


@pytest.mark.parametrize(("conservative", "expected"), [("true", {}), ("false", {"app1": 20})])
def test_inter_queue_preemption_with_strict_and_relaxed_drf(conservative, expected):
    """testInterQueuePreemptionWithStrictAndRelaxedDRF: a holds all the memory (61440:60) of a
    cluster of 61440:600, b asks for 20480:20.  a owes memory but no vcores: with
    ``conservative-drf`` nothing is taken (a type still owed is 0 or below); relaxed, 20 of
    a's 1024:1 containers."""
    R = Resources
    leaves = [
        _leaf("a", R(20480, 200), R(61440, 600), R(61440, 60), R(0, 0), "app1", 60, R(1024, 1)),
        _leaf("b", R(20480, 200), R(61440, 600), R(0, 0), R(20480, 20)),
        _leaf("c", R(20480, 200), R(61440, 600), R(0, 0), R(0, 0)),
    ]
    cluster = R(61440, 600)
    root = QueueView("root", cluster, cluster, R(61440, 60), children=leaves)
    rnd = _policy({PREFIX + "conservative-drf": conservative}, dominant=True).select(root, cluster, 0.0)
    assert _per_app(rnd.marked) == expected


def _live_xml(balance: bool) -> str:
    c = "yarn.scheduler.capacity."

    def prop(n: str, v: str) -> str:
        return f"<property><name>{n}</name><value>{v}</value></property>"
    body = prop(c + "root.queues", "a,b,c,d")
    for q, cap in (("a", 30), ("b", 30), ("c", 30), ("d", 10)):
        body += (prop(f"{c}root.{q}.capacity", str(cap)) + prop(f"{c}root.{q}.maximum-capacity", "100")
                 + prop(f"{c}root.{q}.user-limit-factor", "10"))
    body += prop(PREFIX + "natural_termination_factor", "1") + prop(PREFIX + "total_preemption_per_round", "1")
    if balance:
        body += prop(PREFIX + "preemption-to-balance-queue-after-satisfied.enabled", "true")
    return "<configuration>" + body + "</configuration>"


@pytest.mark.parametrize(("balance", "expected"), [(False, {"root.b": 5, "root.c": 15}),
                                                   (True, {"root.b": 6, "root.c": 16})])
def test_balance_on_the_live_tree(balance, expected):
    """The yarn_capacity plugin reads the switch from its file.  a (30 %) runs 10 containers
    and asks for 20 more; b and c (30 % each) run 40 and 50.  The default selector takes 5
    and 15 (ideal 30/35/35).  Balancing computes the same ideal here, and takes one more from
    each: its debt of 5 drops only while it exceeds the container taken
    (``TempQueuePerPartition.deductActuallyToBePreempted``), so 1 is left, as in Hadoop."""
    from collections import Counter

    from corescheduler.testing import ClusterHarness

    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True}}
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="102400 mb, 100 vcores", config=config,
                       allocations=_live_xml(balance))
    jobs = [h.submit(queue="a", user="u", tasks=10, resources="1024 mb, 1 vcores")]
    for _ in range(15):
        h.heartbeat("n0000")
    jobs.append(h.submit(queue="b", user="v", tasks=40, resources="1024 mb, 1 vcores"))
    for _ in range(45):
        h.heartbeat("n0000")
    jobs.append(h.submit(queue="c", user="w", tasks=50, resources="1024 mb, 1 vcores"))
    for _ in range(60):
        h.heartbeat("n0000")
    h.submit(queue="a", user="u", tasks=30, resources="1024 mb, 1 vcores")
    assert [h.running(j) for j in jobs] == [10, 40, 50]
    h.update()
    h.preempt()
    marked = h.shares()["preemption"]["marked"]
    assert dict(Counter(h.task(t).job.queue for t in marked)) == expected


@pytest.mark.parametrize(("ordering", "victim"), [("fifo", 0), ("fair", 1)])
def test_live_victims_follow_the_fifo_policy_priorities(ordering, victim):
    """``FifoCandidatesSelector`` walks a leaf's apps by ``getPreemptionIterator``: under
    ``fifo`` (``FifoOrderingPolicy``: ``PriorityComparator`` then ``FifoComparator``) the
    lowest-priority app first, so the earlier LOW app gives before the later NORMAL one (as
    ``testAlreadySelectedContainerFromInterQueuePreemption``'s inter-queue part); under
    ``fair`` the later app first, as before."""
    from corescheduler.testing import ClusterHarness

    def prop(n: str, v: str) -> str:
        return f"<property><name>{n}</name><value>{v}</value></property>"
    c = "yarn.scheduler.capacity."
    xml = ("<configuration>" + prop(c + "root.queues", "a,b") + prop(c + "root.a.capacity", "50")
           + prop(c + "root.b.capacity", "50") + prop(c + "root.a.maximum-capacity", "100")
           + prop(c + "root.a.user-limit-factor", "2") + prop(c + "root.a.ordering-policy", ordering)
           + prop(PREFIX + "natural_termination_factor", "1") + prop(PREFIX + "total_preemption_per_round", "1")
           + "</configuration>")
    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True}}
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=config,
                       allocations=xml)
    jobs = [h.submit(queue="a", user="u", tasks=4, resources="1024 mb, 1 vcores", priority="LOW")]
    for _ in range(4):
        h.heartbeat("n0000")
    jobs.append(h.submit(queue="a", user="u", tasks=4, resources="1024 mb, 1 vcores", priority="NORMAL"))
    for _ in range(4):
        h.heartbeat("n0000")
    assert [h.running(j) for j in jobs] == [4, 4]
    h.submit(queue="b", user="v", tasks=4, resources="1024 mb, 1 vcores")
    h.update()
    h.preempt()
    marked = h.shares()["preemption"]["marked"]
    assert len(marked) == 4 and {h.task(t).job.id for t in marked} == {jobs[victim].id}
