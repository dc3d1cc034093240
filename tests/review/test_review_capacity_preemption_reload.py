"""Review (session 16): a reload of the capacity file must not reset the preemption monitor.

Hadoop keeps one ``ProportionalCapacityPreemptionPolicy`` across ``refreshQueues``
(``SchedulingMonitorManager.updateSchedulingMonitors`` starts a monitor only for a policy
not already running; the policy re-reads its settings in ``updateConfigIfNeeded``), so
its marks (``preemptionCandidates``, the time each container was first selected) and its
fixed rate (``SchedulingMonitor``'s ``scheduleAtFixedRate``) go on.  ``yarn_capacity``
built a new monitor for every new file: a reload forgot every mark and started the rate
again, so each reload postponed the kills by a whole round — and a file reloaded more often
than ``monitoring_interval`` (``serve`` reloads a file when it changes) never preempted."""

from __future__ import annotations

from corescheduler_plugins._yarn_capacity_preemption import PREFIX

from corescheduler.testing import ClusterHarness


def _prop(name: str, value: str) -> str:
    return f"<property><name>{name}</name><value>{value}</value></property>"


def _xml(interval_ms: str) -> str:
    """a 50 % (maximum 100 %), b 50 %; rounds every ``interval_ms``, a wait of 1 s."""
    c = "yarn.scheduler.capacity."
    return ("<configuration>" + _prop(c + "root.queues", "a,b")
            + _prop(c + "root.a.capacity", "50") + _prop(c + "root.b.capacity", "50")
            + _prop(c + "root.a.maximum-capacity", "100") + _prop(c + "root.a.user-limit-factor", "2")
            + _prop(PREFIX + "natural_termination_factor", "1") + _prop(PREFIX + "total_preemption_per_round", "1")
            + _prop(PREFIX + "max_wait_before_kill", "1000") + _prop(PREFIX + "monitoring_interval", interval_ms)
            + "</configuration>")


def _harness(interval_ms: str) -> ClusterHarness:
    """a fills the node (8 containers); b then asks for 4: a owes b 4 containers."""
    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True,
                            "preemption_interval": 0.0}}
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=config,
                       allocations=_xml(interval_ms))
    a = h.submit(queue="a", user="u", tasks=8, resources="1024 mb, 1 vcores")
    for _ in range(8):
        h.heartbeat("n0000")
    assert h.running(a) == 8
    h.submit(queue="b", user="v", tasks=4, resources="1024 mb, 1 vcores")
    return h


def _changed() -> str:
    """The same file with one unrelated change (b's maximum capacity)."""
    return _xml("10000").replace("</configuration>",
                                 _prop("yarn.scheduler.capacity.root.b.maximum-capacity", "100") + "</configuration>")


def test_a_reload_keeps_the_marks_and_the_rate() -> None:
    """Rounds every 10 s from t = 1, a wait of 1 s: the round at 1 marks b's 4 containers'
    worth in a, the round at 11 kills them — a reload at 5 changes neither (it killed at 16:
    a round right after the reload marked them afresh, and the next came 10 s later)."""
    h = _harness("10000")
    assert h.advance(1) == []  # t = 1: the first round marks
    marked = sorted(h.shares()["preemption"]["marked"])
    assert len(marked) == 4
    h.clock_only(4)
    h.set_allocations(_changed())  # t = 5
    kills = {}
    for _ in range(6):  # t = 6 … 11
        killed = h.advance(1)
        if killed:
            kills[h.clock] = sorted(t.id for t in killed)
    assert kills == {11.0: marked}


def test_reloads_more_often_than_the_interval_still_preempt() -> None:
    """A reload every 5 s (rounds every 10 s): the marks made at 1 are killed at 11."""
    h = _harness("10000")
    h.advance(1)
    killed = []
    for step in range(2, 31):
        if step % 5 == 0:
            h.set_allocations(_changed() if step % 10 else _xml("10000"))
        killed += h.advance(1)
    assert len(killed) == 4
