"""The yarn_capacity policy hands its live tree to the preemption computation
(``corescheduler_plugins._yarn_capacity_preemption``, issue 29 item 3) through
``SharePolicy.choose_victims`` and kills what it names; here a recording stand-in of
that module's interface checks the wiring (views, settings from the file, kills, marks)."""

from __future__ import annotations

import sys
import types
from typing import Any

import attrs
import pytest

from corescheduler.testing import ClusterHarness

CONFIG = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True}}
XML = ("<configuration>"
       "<property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>"
       "<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>"
       "<property><name>yarn.scheduler.capacity.root.b.capacity</name><value>50</value></property>"
       "<property><name>yarn.scheduler.capacity.root.a.user-limit-factor</name><value>2</value></property>"
       "<property><name>yarn.scheduler.capacity.root.b.disable_preemption</name><value>true</value></property>"
       "<property><name>yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round</name>"
       "<value>0.5</value></property></configuration>")


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    module = types.ModuleType("corescheduler_plugins._yarn_capacity_preemption")

    @attrs.frozen
    class PreemptionSettings:
        props: Any

        @classmethod
        def from_properties(cls, props: Any) -> PreemptionSettings:
            return cls(dict(props))

    @attrs.define
    class QueueView:
        path: str
        guaranteed: Any
        maximum: Any
        used: Any
        pending: Any
        preemption_disabled: bool
        children: list
        containers: list
        max_am_capacity: Any = None
        priority: int = 0
        apps: list = attrs.field(factory=list)
        user_limits: dict = attrs.field(factory=dict)
        intra_queue_disabled: bool = False
        minimum_allocation: Any = None
        ordering_policy: str = "fifo"

    @attrs.frozen
    class AppView:
        id: str
        user: str
        order: int
        pending: Any
        priority: int = 0

    @attrs.frozen
    class ContainerView:
        id: str
        app_id: str
        app_order: int
        resources: Any
        is_am: bool

    @attrs.define
    class PreemptionRound:
        kill: list
        marked: list
        ideal: dict

    class ProportionalCapacityPreemption:
        def __init__(self, settings: Any, dominant: bool) -> None:
            seen["settings"] = settings
            seen["dominant"] = dominant

        def select(self, root: Any, cluster: Any, now: float) -> PreemptionRound:
            seen["root"] = root
            seen["cluster"] = cluster
            a = next(c for c in root.children if c.path == "root.a")
            victims = sorted(a.containers, key=lambda c: -c.app_order)
            return PreemptionRound(kill=[victims[0].id], marked=[victims[1].id], ideal={})

    for cls in (PreemptionSettings, QueueView, AppView, ContainerView, PreemptionRound, ProportionalCapacityPreemption):
        setattr(module, cls.__name__, cls)
    monkeypatch.setitem(sys.modules, "corescheduler_plugins._yarn_capacity_preemption", module)
    return seen


def test_preempt_runs_the_monitor_on_the_live_tree(stand_in: dict[str, Any]) -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=XML)
    first = h.submit(queue="a", user="u", tasks=2, resources="1024 mb, 1 vcores")
    second = h.submit(queue="a", user="u", tasks=2, resources="1024 mb, 1 vcores")
    for _ in range(4):
        h.heartbeat("n0000")
    killed = h.preempt()
    assert stand_in["settings"].props[
        "yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round"] == "0.5"
    root = stand_in["root"]
    a, b = root.children[:2]
    assert (a.path, b.path, b.preemption_disabled, a.preemption_disabled) == ("root.a", "root.b", True, False)
    assert a.guaranteed.memory == 4096 and stand_in["cluster"].memory == 8192
    assert sorted(c.app_id for c in a.containers) == sorted([first.id] * 2 + [second.id] * 2)
    # the intra-queue selector's view: the leaf's apps in submission order, one user
    assert [(v.id, v.user) for v in a.apps] == [(first.id, "u"), (second.id, "u")]
    assert a.apps[0].order < a.apps[1].order and not a.intra_queue_disabled and b.intra_queue_disabled
    assert (a.ordering_policy, b.ordering_policy) == ("fifo", "fifo")  # the leaves' ordering-policy
    assert [t.job.id for t in killed] == [second.id]  # the stand-in names the latest app's container
    assert len(h.shares()["preemption"]["marked"]) == 1


# The real monitor (``ProportionalCapacityPreemptionPolicy``) on the live tree: root.a (50 %)
# holds the whole 8-container node; root.b (50 %) then asks for 4 containers.  The ideal
# assignment gives each queue its 4096 MB guarantee, so 4 containers of a are over; with
# total_preemption_per_round = 0.5 (4096 MB a round) and natural_termination_factor 0.2
# (``AbstractPreemptableResourceCalculator``: a round takes at most 20 % of what is over), the
# first round only marks; the containers are killed once max_wait_before_kill (15 s) has passed,
# the latest app's first (``FifoCandidatesSelector``), and b then runs on what was freed.
REAL_XML = ("<configuration>"
            "<property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>"
            "<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>"
            "<property><name>yarn.scheduler.capacity.root.b.capacity</name><value>50</value></property>"
            "<property><name>yarn.scheduler.capacity.root.a.maximum-capacity</name><value>100</value></property>"
            "<property><name>yarn.scheduler.capacity.root.a.user-limit-factor</name><value>2</value></property>"
            "<property><name>yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor</name>"
            "<value>1</value></property>"
            "<property><name>yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round</name>"
            "<value>1</value></property></configuration>")


def test_the_real_monitor_marks_then_kills_from_the_queue_over_its_guarantee() -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=CONFIG,
                       allocations=REAL_XML)
    early = h.submit(queue="a", user="u", tasks=4, resources="1024 mb, 1 vcores")
    late = h.submit(queue="a", user="u", tasks=4, resources="1024 mb, 1 vcores")
    for _ in range(8):
        h.heartbeat("n0000")
    assert h.running(early) + h.running(late) == 8
    waiting = h.submit(queue="b", user="v", tasks=4, resources="1024 mb, 1 vcores")
    h.update()
    assert h.preempt() == []  # first round: marked, not killed
    marked = h.shares()["preemption"]["marked"]
    assert len(marked) == 4 and {h.task(t).job.id for t in marked} == {late.id}
    assert h.advance(10) == []  # still within max_wait_before_kill
    killed = h.advance(6)  # past it: the marked containers are killed
    assert sorted(t.id for t in killed) == sorted(marked)
    for _ in range(4):
        h.heartbeat("n0000")
    assert h.running(waiting) == 4 and h.running(early) == 4
