"""The Capacity Scheduler's heartbeat shortcuts answer as the general computations they stand
for, on a live cluster after random submissions, heartbeats, completions, kills and updates:

* ``order_key`` of a queue, whose fixed parts come from ``compute_shares`` by the queue's
  schedulable, equals :func:`queue_order_key` over the used capacity (``_ratio`` of its
  running and reserved use over max(guarantee, minimum allocation)), and every
  queue in its parent's order holds that key;
* ``_memory_limit`` (the admission's memory terms alone) equals the memory of
  ``_limit_amounts`` and ``_memory_bound``;
* ``admit_leaf``'s amount, while the leaf's use is within it, is a promise that ``admit_job``'s
  exact computation admits every app of the leaf (with ``minimum-user-limit-percent`` at 100,
  the amount is the user limit's cap: no user's use read);
* ``order_key`` of an app in a ``fair``-ordered leaf (looked up in ``_fair_leaves``) is
  ``FairOrderingPolicy``'s: its memory used, then start time and name.
"""

from __future__ import annotations

from typing import Any

from corescheduler_plugins.yarn_capacity import queue_order_key
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corescheduler.core.model import RUNNING, Job
from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness


def xml(*props: tuple[str, str]) -> str:
    return "<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in props
    ) + "</configuration>"


#: a priority-utilization root over a (priority 1), b and a zero-capacity c; a parent p under
#: b with two leaves, one of them fair-ordered
TREE = xml(
    ("root.queues", "a,b,c"), ("root.ordering-policy", "priority-utilization"),
    ("root.a.capacity", "40"), ("root.a.priority", "1"), ("root.a.user-limit-factor", "2"),
    ("root.a.minimum-user-limit-percent", "50"),
    ("root.b.capacity", "60"), ("root.b.maximum-capacity", "80"), ("root.b.queues", "x,y"),
    ("root.b.x.capacity", "30"), ("root.b.x.ordering-policy", "fair"), ("root.b.x.user-limit-factor", "3"),
    ("root.b.y.capacity", "70"), ("root.b.y.user-limit-factor", "-1"),
    ("root.c.capacity", "0"), ("root.c.maximum-capacity", "50"), ("root.c.user-limit-factor", "-1"),
    ("root.c.maximum-applications", "100"),
)


def general_queue_key(policy: Any, s: Any) -> tuple[Any, ...]:
    """``order_key``'s queue case without the fixed parts by schedulable."""
    absolute, priority, tie = policy._ordering[s.owner.name]
    cluster = s.cluster
    guaranteed = s.fair_share if absolute > 0 else cluster
    if absolute > 0 and guaranteed is not None and guaranteed.memory < policy._minimum_memory:
        # CSQueueUtils.updateUsedCapacity: the use over max(guarantee, minimum allocation)
        guaranteed = Resources(policy._minimum_memory, guaranteed.vcores)
    # the queue's use counts its reservations (LeafQueue.apply -> allocateResource)
    used = policy._ratio(s.running + s.owner.reserved, guaranteed, cluster)
    return queue_order_key(used, absolute, priority, tie, s.name)


def check(h: ClusterHarness) -> None:
    policy = h.scheduler.plugins.share_policy("yarn_capacity").policy
    tree = h.scheduler.engine.tree
    for q in tree.walk():
        s = q.sched
        if q.parent is not None and q.name in policy._ordering:  # (a queue of the file)
            assert policy.order_key(s) == general_queue_key(policy, s), q.name
            if s._ordered:
                assert s._key == general_queue_key(policy, s), q.name
        if q.is_leaf and q.name in policy.conf.queues and q.name in policy._live:
            leaf = policy.conf.queues[q.name]
            fast = policy._memory_limit(q, leaf)
            amounts = policy._limit_amounts(q, leaf)
            if fast is not None:
                assert amounts is not None
                assert fast == (amounts[0], policy._memory_bound(q, leaf)), q.name
            answer = policy.admit_leaf(q, 0.0)
            if answer is not None and q.sched.running.fits_in(answer):
                for js in q.order:  # admit_leaf's promise: admit_job would admit every app now
                    assert policy._admit_exactly(js.owner, q.name) is None, (q.name, js.name)
            for js in q.order:
                job: Job = js.owner
                if leaf.ordering_policy == "fair":
                    assert js._key == (float(job.usage.memory), js.start_time, js.name)
                else:
                    assert js._key == (-policy.app_priority(job), js.start_time, js.name)


STEP = st.one_of(
    st.tuples(st.just("submit"), st.sampled_from(["a", "x", "y", "c"]), st.sampled_from(["u0", "u1", "u2"]),
              st.integers(1, 12), st.sampled_from(["1024 mb, 1 vcores", "2048 mb, 1 vcores", "1024 mb, 3 vcores"])),
    st.tuples(st.just("heartbeat"), st.integers(0, 2)),
    st.tuples(st.just("finish"), st.integers(0, 50)),
    st.tuples(st.just("kill"), st.integers(0, 50)),
    st.tuples(st.just("update")),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(STEP, min_size=1, max_size=40))
def test_the_shortcuts_equal_the_general_computations(steps: list[Any]) -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=4, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=TREE)
    for step in [("submit", "x", "u0", 4, "1024 mb, 1 vcores"), ("heartbeat", 0), *steps]:
        kind = step[0]
        running = sorted((t for t in h.scheduler.ledger.running.values() if t.state == RUNNING and not t.is_am),
                         key=lambda t: t.id)
        if kind == "submit":
            _, queue, user, tasks, resources = step
            h.submit(queue=queue, user=user, tasks=tasks, resources=resources)
        elif kind == "heartbeat":
            for _ in range(step[1] + 1):
                for node in sorted(h.cluster.nodes):
                    h.heartbeat(node)
                    check(h)
        elif kind in ("finish", "kill") and running:
            task = running[step[1] % len(running)]
            (h.finish if kind == "finish" else h.kill)(task)
        elif kind == "update":
            h.update()
        check(h)


def test_a_reload_drops_the_fixed_key_parts() -> None:
    """A new file's priorities order the queues from the first heartbeat after the reload."""
    h = ClusterHarness(racks=1, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=TREE)
    h.submit(queue="a", user="u0", tasks=4, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    check(h)
    h.set_allocations(TREE.replace("<value>priority-utilization</value>", "<value>utilization</value>"))
    policy = h.scheduler.plugins.share_policy("yarn_capacity").policy
    assert all(fixed[2] == 0 for fixed in policy._queue_keys.values())
    h.heartbeat("n0001")
    check(h)
