"""``SharePolicy.admit_leaf`` (optional, resource mode): a leaf's policy admits all of the leaf's
apps up to an amount of its use; the engine keeps the answer on the live queue and asks
``admit_job`` per app only without one — and asks again once the amount is passed, a
container of the leaf ends, or an update runs.  ``yarn_capacity`` answers it from the user
limit's lower bound: the same containers go to the same apps with and without its answers."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from corescheduler_plugins.yarn_capacity import YarnCapacityScheduler
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corescheduler import SharePolicy
from corescheduler.core.model import RUNNING
from corescheduler.errors import PluginAnswerError
from corescheduler.hookspecs import hookimpl
from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness


class Counting(SharePolicy):
    """Fair keys and shares; every app admitted, up to one more container than the leaf runs."""

    asked: ClassVar[list[str]] = []
    answer: ClassVar[Any] = "one more"

    @hookimpl
    def cs_share_policy(self) -> SharePolicy:
        return self

    def order_key(self, s: Any) -> Any:
        return self.calc.fair_order_key(s)

    def compute_shares(self, schedulables: Any, total: Any, steady: bool) -> Any:
        return self.calc.fair_shares(schedulables, total, steady)

    def admit_job(self, job: Any, kind: str, now: float) -> None:
        Counting.asked.append("job")

    def admit_leaf(self, leaf: Any, now: float) -> Any:
        Counting.asked.append("leaf")
        if Counting.answer == "one more":
            return leaf.sched.running + Resources(1024, 1)
        return Counting.answer


def _harness() -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores",
                          config={"scheduler": {"mode": "resources", "share_policy": "counting"}},
                          plugins={"counting": Counting})


def test_the_engine_asks_admit_job_only_without_an_amount_in_force() -> None:
    Counting.asked.clear()
    Counting.answer = "one more"
    h = _harness()
    h.submit_app(queue="a", tasks=6, resources="1024 mb, 1 vcores")
    h.update()
    assert len(h.heartbeat("n0000")) == 1  # asked: up to 1024 MB; the first container
    assert len(h.heartbeat("n0000")) == 1  # 1024 MB: within it, nobody asked
    assert Counting.asked == ["leaf"]
    assert len(h.heartbeat("n0000")) == 1  # 2048 MB: passed, asked again (up to 3072 MB)
    assert Counting.asked == ["leaf", "leaf"]
    running = [t for t in h.scheduler.ledger.running.values() if t.state == RUNNING]
    h.finish(running[0])  # a container of the leaf ended: the amount no longer holds
    assert len(h.heartbeat("n0000")) == 1
    assert Counting.asked == ["leaf", "leaf", "leaf"]
    h.update()  # and after an update
    h.heartbeat("n0000")
    assert Counting.asked == ["leaf", "leaf", "leaf", "leaf"]


def test_without_an_amount_admit_job_is_asked_per_app_until_the_next_event() -> None:
    Counting.asked.clear()
    Counting.answer = None
    h = _harness()
    h.submit_app(queue="a", tasks=6, resources="1024 mb, 1 vcores")
    h.update()
    for _ in range(3):
        assert len(h.heartbeat("n0000")) == 1
    assert Counting.asked == ["leaf", "job", "job", "job"]  # admit_leaf once: None holds until an event


def test_an_answer_that_is_not_resources_is_refused_naming_the_method() -> None:
    Counting.answer = 4096
    h = _harness()
    h.submit_app(queue="a", tasks=2, resources="1024 mb, 1 vcores")
    h.update()
    with pytest.raises(PluginAnswerError, match=r"SharePolicy plugin 'counting'.*admit_leaf.*None or Resources"):
        h.heartbeat("n0000")


def _capacity_xml(a: int) -> str:
    props = {"root.queues": "a,b", "root.a.capacity": str(a), "root.b.capacity": str(100 - a),
             "root.a.minimum-user-limit-percent": "25", "root.a.user-limit-factor": "1",
             "root.b.user-limit-factor": "2", "root.b.maximum-capacity": "100"}
    body = "".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                   for k, v in props.items())
    return f"<configuration>{body}</configuration>"


STEP = st.one_of(
    st.tuples(st.just("submit"), st.sampled_from(["a", "b"]), st.sampled_from(["u0", "u1", "u2"]),
              st.integers(1, 8), st.sampled_from(["1024 mb, 1 vcores", "3072 mb, 1 vcores"])),
    st.tuples(st.just("heartbeat"), st.integers(0, 2)),
    st.tuples(st.just("finish"), st.integers(0, 50)),
    st.tuples(st.just("update"), st.just(0)),
    st.tuples(st.just("reload"), st.sampled_from([20, 50, 80])),
)


def _run(steps: list[Any]) -> list[tuple[str, str, str]]:
    h = ClusterHarness(racks=1, nodes_per_rack=3, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=_capacity_xml(50))
    given_out: list[tuple[str, str, str]] = []
    for step in steps:
        kind = step[0]
        if kind == "submit":
            _, queue, user, tasks, size = step
            h.submit_app(queue=queue, user=user, tasks=tasks, resources=size)
        elif kind == "heartbeat":
            for _ in range(step[1] + 1):
                for node in sorted(h.cluster.nodes):
                    given_out += [(a.job, a.task, a.node) for a in h.heartbeat(node)]
        elif kind == "finish":
            running = sorted((t for t in h.scheduler.ledger.running.values() if t.state == RUNNING),
                             key=lambda t: t.id)
            if running:
                h.finish(running[step[1] % len(running)])
        elif kind == "update":
            h.update()
        elif kind == "reload":
            h.set_allocations(_capacity_xml(step[1]))
    return given_out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(STEP, min_size=1, max_size=30))
def test_yarn_capacity_assigns_the_same_with_and_without_its_admit_leaf(steps: list[Any]) -> None:
    batched = _run(steps)
    original = YarnCapacityScheduler.admit_leaf
    YarnCapacityScheduler.admit_leaf = lambda self, leaf, now: None  # type: ignore[method-assign]
    try:
        per_app = _run(steps)
    finally:
        YarnCapacityScheduler.admit_leaf = original  # type: ignore[method-assign]
    assert batched == per_app
