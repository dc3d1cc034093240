"""The Capacity Scheduler's user limit on the heartbeat's fast paths equals a fresh
recomputation (``UsersManager.computeUserLimit`` in ``Resources`` arithmetic, written out
below as the plugin computed it before the fast paths) after random sequences of
submissions, heartbeats, completions, kills, app kills, updates and reloads: the limit of
every app's user (``user_limit``), its admission (``admit_job``, whose lower bound is kept
per leaf between calls) and the headroom, under both resource calculators."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from corescheduler.core.model import RESOURCES, RUNNING, Rejection
from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness

DOMINANT = ("<property><name>yarn.scheduler.capacity.resource-calculator</name>"
            "<value>org.apache.hadoop.yarn.util.resource.DominantResourceCalculator</value></property>")


def capacity_xml(dominant: bool, a: tuple[float, float, float], b: tuple[float, float, float]) -> str:
    """root.a (30 %) and root.b (70 %), each with (minimum-user-limit-percent,
    user-limit-factor, maximum-capacity)."""
    props = {"root.queues": "a,b", "root.a.capacity": "30", "root.b.capacity": "70"}
    for name, (mulp, ulf, maximum) in (("a", a), ("b", b)):
        props[f"root.{name}.minimum-user-limit-percent"] = f"{mulp:g}"
        props[f"root.{name}.user-limit-factor"] = f"{ulf:g}"
        props[f"root.{name}.maximum-capacity"] = f"{max(maximum, 30 if name == 'a' else 70):g}"
    body = "".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                   for k, v in props.items())
    return f"<configuration>{DOMINANT if dominant else ''}{body}</configuration>"


def reference_limit(policy: Any, job: Any) -> Resources | None:
    """``UsersManager.computeUserLimit`` for ``job``'s user, every value a ``Resources``, the
    active users read from the leaf's order now."""
    path = str(job.queue or job.pool)
    leaf = policy.conf.queues.get(path) if policy.conf is not None else None
    queue = policy._live.get(path)
    if leaf is None or queue is None:
        return None
    step = policy._minimum

    def round_up(r: Resources) -> Resources:
        if step is None:
            return r
        return Resources.of({n: (math.ceil(v / step.get(n)) * step.get(n) if step.get(n) > 0 else v)
                             for n, v in r.items()})

    def less(x: Resources, y: Resources) -> bool:
        """``Resources.lessThan``: under ``DominantResourceCalculator.compare`` the dominant
        shares, then on a tie the other (``compareShares``)."""
        cluster = policy._cluster
        if policy._dominant and cluster.any_positive():
            def shares(r: Resources) -> list[float]:
                return sorted((r.get(n) / t for n, t in cluster.items() if t > 0), reverse=True)
            return shares(x) < shares(y)
        return x.memory < y.memory

    required = step if step is not None else Resources()
    guaranteed = queue.sched.fair_share if queue.sched.fair_share is not None else Resources()
    if not policy._dominant:
        queue_capacity = guaranteed.componentwise_max(required)
    else:
        queue_capacity = guaranteed if policy._ratio(guaranteed, required, policy._cluster) >= 1.0 else required
    cluster = policy._cluster
    # a user's use counts its reserved containers (User.getUsed: LeafQueue.allocateResource runs for a reservation)
    by_user = dict(policy._user_used.get(path, {}))
    for user, held in queue.reserved_by_user.items():
        by_user[user] = by_user.get(user, Resources()) + held
    if policy._dominant and cluster.any_positive():
        # the sum of the users' dominant shares × the cluster, each type normalized up
        # (UsersManager.getUsageRatio; TestLeafQueue.testDRFUserLimits)
        ratio = sum(u.dominant_share(cluster) for u in by_user.values())
        consumed = round_up(Resources.of({n: math.ceil(v * ratio) for n, v in cluster.items()}))
    else:
        consumed = round_up(queue.sched.running + queue.reserved)
    current = queue_capacity if less(consumed, queue_capacity) else consumed + required
    users = {js.owner.user for js in queue.order}
    used = Resources.total(by_user[u] for u in users if u in by_user) + required
    by_users = Resources.of({n: (math.ceil(v / len(users)) if users else 0) for n, v in used.items()})
    by_min = current.multiply_and_round_down(leaf.minimum_user_limit_percent)
    by_min = Resources.of({n: math.ceil(v / 100) for n, v in by_min.items()})
    limit = by_users if not less(by_users, by_min) else by_min
    cap = (queue_capacity.multiply_and_round_down(leaf.user_limit_factor) if leaf.user_limit_factor >= 0
           else queue.sched.max_share)
    if less(cap, limit):
        limit = cap
    return round_up(limit)


def reference_over(policy: Any, job: Any) -> bool | None:
    """``LeafQueue.canAssignToUser``'s refusal: the user's use over the limit."""
    limit = reference_limit(policy, job)
    if limit is None:
        return None
    used = policy._user_used.get(str(job.queue or job.pool), {}).get(job.user, Resources())
    if policy._dominant:
        cluster = job.sched[RESOURCES].cluster
        if cluster is not None:
            return used.dominant_share(cluster) > limit.dominant_share(cluster)
    return used.memory > limit.memory


def check(h: ClusterHarness) -> int:
    """Every live app: the plugin's limit, admission and headroom against the reference; the
    number of apps whose user is over the limit."""
    policy = h.scheduler.plugins.share_policy("yarn_capacity").policy
    over = 0
    for job in list(h.scheduler.jobs.values()):
        if job.is_finished or job.queue is None:
            continue
        expected = reference_limit(policy, job)
        assert policy.user_limit(job) == expected, job.id
        verdict = policy.admit_job(job, RESOURCES, h.clock)
        refused = reference_over(policy, job)
        assert (isinstance(verdict, Rejection) if refused else verdict is None), (job.id, verdict, expected)
        over += bool(refused)
        queue = policy._live.get(job.queue)
        if expected is not None and queue is not None:
            assert policy._limit_resources(queue, policy.conf.queues[job.queue]) == expected
            policy.headroom(job)  # computes without error on the same limit
    for leaf in {job.queue for job in h.scheduler.jobs.values() if not job.is_finished and job.queue}:
        queue = policy._live.get(leaf)
        answer = policy.admit_leaf(queue, h.clock) if queue is not None else None
        if answer is not None and queue.sched.running.fits_in(answer):  # admit_leaf's promise
            for js in queue.order:
                assert not reference_over(policy, js.owner), (leaf, js.name, answer)
    return over


LEAF = st.tuples(st.sampled_from([10, 25, 33.3, 50, 100]), st.sampled_from([-1, 0.2, 0.5, 1, 1.5, 4]),
                 st.sampled_from([30, 50, 80, 100]))
SUBMIT = st.tuples(st.just("submit"), st.sampled_from(["a", "b"]), st.sampled_from(["u0", "u1", "u2"]),
                   st.integers(1, 16), st.sampled_from(["1024 mb, 1 vcores", "2048 mb, 1 vcores", "1024 mb, 3 vcores",
                                                        "1536 mb, 2 vcores", "3072 mb, 1 vcores",
                                                        "5120 mb, 2 vcores"]))
STEP = st.one_of(
    SUBMIT,
    st.tuples(st.just("heartbeat"), st.integers(0, 3)),
    st.tuples(st.just("finish"), st.integers(0, 50)),
    st.tuples(st.just("kill"), st.integers(0, 50)),
    st.tuples(st.just("kill_app"), st.integers(0, 50)),
    st.tuples(st.just("update")),
    st.tuples(st.just("reload"), LEAF, LEAF),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dominant=st.booleans(), a=LEAF, b=LEAF, apps=st.lists(SUBMIT, min_size=1, max_size=4),
       steps=st.lists(STEP, min_size=1, max_size=40))
def test_the_user_limit_equals_a_fresh_recomputation(dominant: bool, a: Any, b: Any, apps: list[Any],
                                                     steps: list[Any]) -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=4, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=capacity_xml(dominant, a, b))
    refused = 0
    reserved = False
    for step in [*apps, ("heartbeat", 1), *steps]:
        kind = step[0]
        running = sorted((t for t in h.scheduler.ledger.running.values() if t.state == RUNNING and not t.is_am),
                         key=lambda t: t.id)
        live = sorted((j for j in h.scheduler.jobs.values() if not j.is_finished), key=lambda j: j.id)
        if kind == "submit":
            _, queue, user, tasks, resources = step
            h.submit(queue=queue, user=user, tasks=tasks, resources=resources)
        elif kind == "heartbeat":
            for _ in range(step[1] + 1):
                for node in sorted(h.cluster.nodes):
                    h.heartbeat(node)
                    refused += check(h)
        elif kind in ("finish", "kill") and running:
            task = running[step[1] % len(running)]
            (h.finish if kind == "finish" else h.kill)(task)
        elif kind == "kill_app" and live:
            h.kill_app(live[step[1] % len(live)])
        elif kind == "update":
            h.update()
        elif kind == "reload":
            h.set_allocations(capacity_xml(dominant, step[1], step[2]))
        refused += check(h)
        reserved = reserved or any(n.reserved is not None for n in h.cluster.nodes.values())
    event(f"users over their limit: {'some' if refused else 'none'}")
    event(f"reservations: {'some' if reserved else 'none'}")  # counted in the users' use


def test_a_user_over_the_bound_is_refused_exactly() -> None:
    """One queue of 30 % on one 8 GB node (guarantee 2457 MB, minimum-user-limit-percent 50,
    user-limit-factor 1): u0 alone takes containers while its use is within the limit —
    the limit's bound min(2457 × 50 %, 2457) rounded up is 2048 — and one past it ("one
    container more than the user limit", as ``LeafQueue.canAssignToUser`` compares with
    ``greaterThan``); then it is refused, by the exact limit: max(used + 1 GB, the bound)
    capped at 2457 MB → 3072 MB rounded up."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity",
                                             "pool_resolver": "yarn_capacity"}},
                       allocations=capacity_xml(False, (50, 1, 100), (100, 1, 100)))
    job = h.submit(queue="a", user="u0", tasks=8, resources="1024 mb, 1 vcores")
    got = []
    for _ in range(8):
        got += h.heartbeat("n0000")
        assert check(h) <= 1
    policy = h.scheduler.plugins.share_policy("yarn_capacity").policy
    assert policy.user_limit(job) == Resources(3072, 2)  # the cap: 30 % of 8 vcores truncated is 2
    assert int(job.usage.memory) == 4096  # the AM (1 GB) and 3 containers: past 3072, then refused
    assert isinstance(policy.admit_job(job, RESOURCES, h.clock), Rejection)


@pytest.mark.parametrize("mulp", [100, 99])
def test_admit_leaf_admits_up_to_the_cap_only(mulp: int) -> None:
    """``admit_leaf``'s amount is a promise about ``admit_job``: with
    ``minimum-user-limit-percent`` at 100 the amount is the user limit's cap (capacity ×
    ``user-limit-factor``), and a leaf already past it gets none; below 100 the bound
    comes from the users' use.  A user held at its limit, then the factor halved by a reload:
    the user is over the new limit and no amount admits it."""
    h = ClusterHarness(racks=1, nodes_per_rack=4, node_resources="8192 mb, 8 vcores",
                       config={"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}},
                       allocations=capacity_xml(False, (mulp, 2, 100), (100, 1, 100)))
    job = h.submit(queue="a", user="u0", tasks=40, resources="1024 mb, 1 vcores")
    for _ in range(12):
        for node in sorted(h.cluster.nodes):
            h.heartbeat(node)
    policy = h.scheduler.plugins.share_policy("yarn_capacity").policy
    queue = policy._live["root.a"]
    used = queue.sched.running.memory
    limit = reference_limit(policy, h.job(job))
    assert limit is not None and used == limit.memory + 1024  # (held once over: canAssignToUser's >)
    answer = policy.admit_leaf(queue, h.clock)
    assert answer is None or not queue.sched.running.fits_in(answer)
    h.set_allocations(capacity_xml(False, (mulp, 1, 100), (100, 1, 100)))
    h.update()
    assert reference_over(policy, h.job(job))
    answer = policy.admit_leaf(queue, h.clock)
    assert answer is None or not queue.sched.running.fits_in(answer)
    assert isinstance(policy.admit_job(h.job(job), RESOURCES, h.clock), Rejection)
