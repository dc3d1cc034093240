"""Review: the slot engine's counts follow its one task ledger after random submissions,
heartbeats, completions, kills, failures, job kills, lost map outputs and nodes leaving and
joining — each node's running tasks and its running count per kind, and each job's running and
pending counts, are what the ledger's running set says."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corescheduler.core.model import COMPLETE, MAP, REDUCE, RUNNING
from corescheduler.testing import ClusterHarness


def check(h: ClusterHarness) -> None:
    s = h.scheduler
    running = [t for t in s.ledger.running.values()]
    assert all(t.state == RUNNING for t in running)
    by_node: dict[str, Counter[str]] = {}
    for t in running:
        by_node.setdefault(t.node, Counter())[t.kind] += 1
    for name, node in s.cluster.nodes.items():
        assert set(node.tasks) == {t.id for t in running if t.node == name}, name
        for kind in (MAP, REDUCE):
            assert node.running.get(kind, 0) == by_node.get(name, Counter())[kind], (name, kind)
    for job in s.jobs.values():
        mine = [t for t in running if t.job is job]
        for kind in (MAP, REDUCE):
            tasks = job.tasks.get(kind, [])
            assert job.running[kind] == sum(1 for t in mine if t.kind == kind), (job.id, kind)
            assert job.pending[kind] == sum(1 for t in tasks if t.state not in (RUNNING, COMPLETE)
                                            and t.state != "killed"), (job.id, kind)


STEP = st.one_of(
    st.tuples(st.just("submit"), st.sampled_from(["p", "q"]), st.integers(1, 5), st.integers(0, 2)),
    st.tuples(st.just("heartbeat"), st.integers(0, 2)),
    st.tuples(st.sampled_from(["finish", "kill", "fail", "end_job", "remove_node", "lose"]), st.integers(0, 50)),
    st.tuples(st.just("add_node"), st.integers(0, 1)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(STEP, min_size=1, max_size=40))
def test_the_slot_engines_counts_follow_the_ledger(steps: list[Any]) -> None:
    h = ClusterHarness(racks=2, nodes_per_rack=2, map_slots=2, reduce_slots=1)
    added = 0
    for step in steps:
        kind = step[0]
        s = h.scheduler
        running = sorted(s.ledger.running.values(), key=lambda t: t.id)
        live = sorted(s.jobs.values(), key=lambda j: j.id)
        if kind == "submit":
            h.submit(maps=step[2], reduces=step[3], pool=step[1])
        elif kind == "heartbeat":
            for _ in range(step[1] + 1):
                for node in sorted(h.cluster.nodes):
                    h.heartbeat(node)
        elif kind in ("finish", "kill", "fail") and running:
            task = running[step[1] % len(running)]
            if kind == "finish":
                h.finish(task)
            elif kind == "kill":
                h.kill(task)
            else:
                s.fail(task.id, h.clock)
        elif kind == "end_job" and live:
            s.end_job(live[step[1] % len(live)].id, h.clock)
        elif kind == "remove_node" and len(h.cluster.nodes) > 1:
            h.remove_node(sorted(h.cluster.nodes)[step[1] % len(h.cluster.nodes)])
        elif kind == "add_node":
            added += 1
            h.add_node(f"x{added:03d}", rack=f"r0{step[1]}", map_slots=2, reduce_slots=1)
        elif kind == "lose":
            done = [t for j in live if j.spec.reduces and j.pending[REDUCE] + j.running[REDUCE] > 0
                    for t in j.tasks[MAP] if t.state == COMPLETE]
            if done:
                h.lose_output(done[step[1] % len(done)])
        check(h)
