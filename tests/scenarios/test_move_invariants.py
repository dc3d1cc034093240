"""Moves among submissions, heartbeats, finishes and kills keep every count whole, under
YARN's fair scheduler and under the Capacity Scheduler: a queue's use is its running
containers' (its children's), a leaf's AM use its AMs', the runnable counts their apps', and
the ``yarn_capacity`` policy's per-leaf app counts and users' use the live apps' and
containers' (a seeded random walk; no timing)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from corescheduler.errors import SchedulerStateError
from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness, SubmissionRejected

FAIR = ('<allocations><queue name="p"><maxRunningApps>3</maxRunningApps><queue name="a"/><queue name="b">'
        '<maxResources>6144 mb, 6 vcores</maxResources></queue></queue><queue name="c">'
        '<maxRunningApps>2</maxRunningApps></queue></allocations>')
CAPACITY = ("<configuration>" + "".join(
    f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in (
        ("root.queues", "p,c"), ("root.p.capacity", "60"), ("root.c.capacity", "40"),
        ("root.p.queues", "a,b"), ("root.p.a.capacity", "50"), ("root.p.b.capacity", "50"),
        ("root.p.b.maximum-applications", "3"), ("root.c.max-parallel-apps", "2"),
        ("root.p.a.user-limit-factor", "2"))) + "</configuration>")
LEAVES = ["root.p.a", "root.p.b", "root.c"]


def check(h: ClusterHarness, capacity: bool) -> None:
    engine = h.scheduler.resource_engine
    running = list(h.scheduler.ledger.running.values())
    for q in engine.tree.walk():
        if q.is_leaf:
            mine = [t for t in running if t.job.queue == q.name]
            assert q.sched.running == Resources.total(t.resources for t in mine), q.name
            assert q.am_usage == Resources.total(t.resources for t in mine if t.is_am), q.name
            assert q.num_runnable == len(q.runnable_apps), q.name
            assert all(j.queue == q.name and j.runnable for j in q.runnable_apps)
            assert all(j.queue == q.name and not j.runnable for j in q.waiting_apps)
        else:
            kids = list(q.children.values())
            assert q.sched.running == Resources.total(c.sched.running for c in kids), q.name
            assert q.num_runnable == sum(c.num_runnable for c in kids), q.name
    live = [j for j in h.scheduler.jobs.values() if not j.is_finished]
    assert engine.user_runnable == {u: n for u, n in Counter(j.user for j in live if j.runnable).items()}
    if capacity:
        p = h.scheduler.plugins.share_policy("yarn_capacity").policy
        assert {k: v for k, v in p._apps.items() if v} == dict(Counter(str(j.queue) for j in live))
        used = p._user_used
        for leaf in LEAVES:
            by_user: dict[Any, Resources] = {}
            for t in running:
                if t.job.queue == leaf:
                    by_user[t.job.user] = by_user.get(t.job.user, Resources()) + t.resources
            for user, r in used.get(leaf, {}).items():
                assert r == by_user.get(user, Resources()), (leaf, user)


@pytest.mark.parametrize("capacity", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_random_moves_keep_every_count(capacity: bool, seed: int) -> None:
    config: dict[str, Any] = {"scheduler": {"mode": "resources"}}
    if capacity:
        config["scheduler"].update(share_policy="yarn_capacity", pool_resolver="yarn_capacity")
    h = ClusterHarness(racks=1, nodes_per_rack=3, node_resources="8192 mb, 8 vcores", config=config,
                       allocations=CAPACITY if capacity else FAIR)
    rng = random.Random(seed)
    names = ["p.a", "p.b", "c", "root.p.a", "a", "b", "p", "nowhere"]
    for _ in range(160):
        op = rng.random()
        live = [j for j in h.scheduler.jobs.values() if not j.is_finished]
        if op < 0.2 or not live:
            try:
                h.submit(queue=rng.choice(["p.a", "p.b", "c"]), user=rng.choice(["u", "v", "w"]),
                         tasks=rng.randint(1, 4), resources=f"{rng.choice([512, 1024, 2048])} mb, 1 vcores",
                         am_resources="512 mb, 1 vcores" if rng.random() < 0.5 else None)
            except SubmissionRejected:
                pass
        elif op < 0.45:
            h.heartbeat(rng.choice(sorted(h.scheduler.cluster.nodes)))
        elif op < 0.65:
            tasks = [t for t in h.scheduler.ledger.running.values() if not t.is_am]
            if tasks:
                h.finish(rng.choice(tasks))
        elif op < 0.7:
            tasks = list(h.scheduler.ledger.running.values())
            if tasks:
                h.kill(rng.choice(tasks))
        elif op < 0.75:
            h.kill_app(rng.choice(live))
        else:
            try:
                h.move(rng.choice(live), rng.choice(names))
            except SchedulerStateError:
                pass
        check(h, capacity)
