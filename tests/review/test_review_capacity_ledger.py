"""Review: ``yarn_capacity``'s own counts — each user's use and AM use per leaf, apps per leaf
and user — equal what the engine's ledger holds after random submissions, heartbeats,
completions, kills, app kills and failures, preemption rounds, nodes joining and leaving and
reloads (Hadoop keeps them in ``UsersManager``/``LeafQueue`` and updates them on every
container's allocation and completion; here they are kept by notifications, so a missed one
would stay for ever)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corescheduler.core.model import RUNNING
from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness


def capacity_xml(a: int) -> str:
    props = {"root.queues": "a,b", "root.a.capacity": str(a), "root.b.capacity": str(100 - a),
             "root.a.minimum-user-limit-percent": "50", "root.a.maximum-am-resource-percent": "0.5",
             "root.b.maximum-am-resource-percent": "0.5"}
    body = "".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                   for k, v in props.items())
    monitor = ("<property><name>yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill</name>"
               "<value>0</value></property>")
    return f"<configuration>{body}{monitor}</configuration>"


def check(h: ClusterHarness) -> None:
    policy = h.scheduler.plugins.share_policy("yarn_capacity").policy
    used: dict[str, Counter[Any]] = {}
    am: dict[str, dict[Any, Resources]] = {}
    for t in h.scheduler.ledger.running.values():
        if t.state != RUNNING or t.resources is None:
            continue
        leaf = str(t.job.queue)
        mine = used.setdefault(leaf, Counter())
        mine[t.job.user] = mine.get(t.job.user, Resources()) + t.resources
        if t.is_am:
            ams = am.setdefault(leaf, {})
            ams[t.job.user] = ams.get(t.job.user, Resources()) + t.resources
    for leaf, users in policy._user_used.items():
        for user, r in users.items():
            assert r == used.get(leaf, {}).get(user, Resources()), (leaf, user, r)
    for leaf, users in policy._user_am.items():
        for user, r in users.items():
            assert r == am.get(leaf, {}).get(user, Resources()), (leaf, user, r)
    apps = Counter(str(j.queue) for j in h.scheduler.jobs.values() if not j.is_finished)
    assert {k: v for k, v in policy._apps.items() if v} == dict(apps)


STEP = st.one_of(
    st.tuples(st.just("submit"), st.sampled_from(["a", "b"]), st.sampled_from(["u0", "u1"]), st.integers(1, 6),
              st.booleans()),
    st.tuples(st.just("heartbeat"), st.integers(0, 2)),
    st.tuples(st.sampled_from(["finish", "kill", "kill_app", "fail_app", "remove_node"]), st.integers(0, 50)),
    st.tuples(st.just("add_node"), st.integers(0, 50)),
    st.tuples(st.just("preempt"), st.integers(1, 20)),
    st.tuples(st.just("reload"), st.sampled_from([20, 50, 80])),
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(STEP, min_size=1, max_size=40))
def test_the_plugins_counts_follow_the_ledger(steps: list[Any]) -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=3, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity", "preemption": True}},
                       allocations=capacity_xml(50))
    added = 0
    for step in steps:
        kind = step[0]
        running = sorted((t for t in h.scheduler.ledger.running.values() if t.state == RUNNING and not t.is_am),
                         key=lambda t: t.id)
        live = sorted((j for j in h.scheduler.jobs.values() if not j.is_finished), key=lambda j: j.id)
        if kind == "submit":
            _, queue, user, tasks, with_am = step
            h.submit_app(queue=queue, user=user, tasks=tasks, resources="2048 mb, 1 vcores",
                         am_resources="1024 mb, 1 vcores" if with_am else None)
        elif kind == "heartbeat":
            for _ in range(step[1] + 1):
                for node in sorted(h.cluster.nodes):
                    h.heartbeat(node)
        elif kind in ("finish", "kill") and running:
            task = running[step[1] % len(running)]
            (h.finish if kind == "finish" else h.kill)(task)
        elif kind == "kill_app" and live:
            h.kill_app(live[step[1] % len(live)])
        elif kind == "fail_app" and live:
            h.scheduler.end_job(live[step[1] % len(live)].id, h.clock, state="failed", reason="review")
        elif kind == "remove_node" and len(h.cluster.nodes) > 1:
            h.remove_node(sorted(h.cluster.nodes)[step[1] % len(h.cluster.nodes)])
        elif kind == "add_node":
            added += 1
            h.add_node(f"x{added:03d}", resources="8192 mb, 8 vcores")
        elif kind == "preempt":
            h.advance(step[1])
        elif kind == "reload":
            h.set_allocations(capacity_xml(step[1]))
        check(h)
