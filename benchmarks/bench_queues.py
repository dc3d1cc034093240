"""Resource mode (YARN queues): fair shares over a deep tree and heartbeat assignment.

    python benchmarks/bench_queues.py shares      # 4-level tree, 10,000 leaf queues with an app each
    python benchmarks/bench_queues.py heartbeat   # 10,000 nodes, 200 apps in 20 queues
    python benchmarks/bench_queues.py capacity    # yarn_capacity against fair: 10,000 nodes, 1,000 leaf queues
    python benchmarks/bench_queues.py             # shares and heartbeat

``shares``: a tree of 10 × 10 × 10 × 10 queues under root (fair at every
level), one runnable app in every leaf, once with equal weights and once with
every queue's weight different; times ``Scheduler.update()`` and its parts:
demands (bottom-up), instantaneous fair shares (top-down through the
SharePolicy hooks), the assignment orders, and the steady shares (every
queue); median of 7.

``heartbeat``: 10,000 nodes of 8192 MB / 8 vcores in racks of 40, 200 apps
of 1024 MB / 1 vcore tasks in 20 queues, ``assign_multiple`` with YARN's
dynamic cap (half of a node's free resources a heartbeat); every node
heartbeats once per round; assignments/s over the rounds (median of 3).

``capacity``: YARN's Capacity Scheduler (``share_policy = "yarn_capacity"``)
against the fair scheduler on the same tree, 10 × 10 × 10 = 1,000 leaf queues
(every capacity-scheduler.xml child 10 % of its parent, every fair queue weight
1, so the guarantees equal the fair shares), 10,000 nodes, one app of 1024 MB /
1 vcore tasks in every leaf: ``update()`` (median of 7) and one heartbeat of
every node (assignments/s, median of 3 rounds); both schedulers in one
process, timed in turns (see ``bench_capacity``).  Then each cluster is filled
(every node's 8 containers running, the apps still asking) and the heartbeat of
a full node is timed on 500 nodes a round, in turns: YARN's fair scheduler
offers such a node to every queue and app (``FSParentQueue.assignContainer``),
the Capacity Scheduler to none (``allocateContainerOnSingleNode``).
"""

from __future__ import annotations

import gc
import statistics
import sys
import time

from corescheduler.config import Config
from corescheduler.core.model import Cluster, JobSpec, TaskSpec
from corescheduler.core.scheduler import Scheduler
from corescheduler.formats.allocation_file import parse_allocations
from corescheduler.resources import Resources


def tree_xml(fanout: int, depth: int, weighted: bool = False) -> str:
    """``weighted``: every queue a different weight (1 to 5), so no two parents divide alike."""
    count = [0]

    def level(name: str, d: int) -> str:
        count[0] += 1
        weight = f"<weight>{1 + (count[0] * 7919 % 1000) / 250}</weight>" if weighted else ""
        if d == depth:
            return f'<queue name="{name}">{weight}</queue>'
        inner = "".join(level(f"{name}x{i}", d + 1) for i in range(fanout))
        return f'<queue name="{name}">{weight}{inner}</queue>'

    return "<allocations>" + "".join(level(f"q{i}", 1) for i in range(fanout)) + "</allocations>"


def leaves(fanout: int, depth: int) -> list[str]:
    names = [f"q{i}" for i in range(fanout)]
    path = {n: f"root.{n}" for n in names}
    for _ in range(depth - 1):
        nxt = {}
        for n in names:
            for i in range(fanout):
                child = f"{n}x{i}"
                nxt[child] = f"{path[n]}.{child}"
        names = list(nxt)
        path = nxt
    return list(path.values())


def scheduler(nodes: int, per_rack: int, xml: str | None, assign_multiple: bool = False,
              share_policy: str | None = None) -> Scheduler:
    cluster = Cluster.build(max(1, nodes // per_rack), min(per_rack, nodes), 0, 0)
    settings: dict[str, object] = {"mode": "resources", "assign_multiple": assign_multiple}
    if share_policy is not None:
        settings["share_policy"] = share_policy
    config = Config.from_dict({"scheduler": settings, "cluster": {"node_resources": "8192 mb, 8 vcores"}})
    allocations = parse_allocations(xml, "<bench>") if xml else None
    return Scheduler(config, cluster, allocations, history=False)


def bench_shares(weighted: bool = False) -> None:
    names = leaves(10, 4)
    sched = scheduler(1000, 40, tree_xml(10, 4, weighted))
    size = Resources(1024, 1)
    started = time.perf_counter()
    for i, queue in enumerate(names):
        sched.submit(JobSpec(tasks=[TaskSpec(duration=10.0, resources=size)] * 4, pool=queue, user=f"u{i}"),
                     0.0, update=False)
    setup = time.perf_counter() - started
    sched.update(0.0)  # the first one also computes the steady shares
    rs = sched._rs
    parts: dict[str, list[float]] = {"update": [], "demands": [], "shares": [], "orders": [], "steady": []}
    for k in range(7):
        now = float(k + 1)
        for name, run in (("update", lambda: sched.update(now)), ("demands", lambda: rs._demand(now)),  # noqa: B023
                          ("shares", rs._shares), ("orders", rs._rebuild_orders), ("steady", rs._steady)):
            t = time.perf_counter()
            run()
            parts[name].append(time.perf_counter() - t)
    kind = "weighted" if weighted else "equal weights"
    print(f"shares: {len(names)} leaf queues, 4 levels ({kind}), {len(sched.jobs)} apps (submitted in {setup:.1f} s)")
    print("  median of 7: " + ", ".join(f"{name} {statistics.median(v) * 1000:.1f} ms" for name, v in parts.items()))


def bench_heartbeat(nodes: int = 10_000, apps: int = 200, queues: int = 20, rounds: int = 3) -> None:
    xml = "<allocations>" + "".join(f'<queue name="q{i}"/>' for i in range(queues)) + "</allocations>"
    rates = []
    for _ in range(3):
        sched = scheduler(nodes, 40, xml, assign_multiple=True)
        size = Resources(1024, 1)
        for i in range(apps):
            sched.submit(JobSpec(tasks=[TaskSpec(duration=1.0, resources=size)] * 2000,
                                 pool=f"q{i % queues}", user=f"u{i}"), 0.0, update=False)
        sched.update(0.0)
        names = list(sched.cluster.nodes)
        assigned = 0
        t = time.perf_counter()
        for r in range(rounds):
            for name in names:
                assigned += len(sched.heartbeat(name, float(r)))
        elapsed = time.perf_counter() - t
        rates.append(assigned / elapsed)
    print(f"heartbeat: {nodes} nodes, {apps} apps in {queues} queues: {statistics.median(rates):,.0f} assignments/s"
          f" (median of 3; {assigned} assignments a run)")


def capacity_xml(fanout: int, depth: int) -> str:
    """A capacity-scheduler.xml of ``fanout``-ary queues ``depth`` levels deep, each child an
    equal percentage of its parent (the last child takes the rounding's rest)."""
    props = []

    def level(path: str, d: int) -> None:
        if d > depth:
            return
        children = [f"{path}.{path.rpartition('.')[2] if d > 1 else 'q'}x{i}" if d > 1 else f"root.q{i}"
                    for i in range(fanout)]
        props.append((f"{path}.queues", ",".join(c.rpartition(".")[2] for c in children)))
        each = round(100 / fanout, 3)
        for i, child in enumerate(children):
            share = each if i < fanout - 1 else round(100 - each * (fanout - 1), 3)
            props.append((f"{child}.capacity", f"{share:g}"))
            props.append((f"{child}.user-limit-factor", "100"))
            level(child, d + 1)

    level("root", 1)
    body = "".join(f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                   for k, v in props)
    return f"<configuration>{body}</configuration>"


def _capacity_scheduler(policy: str, names: list[str], nodes: int, fanout: int, depth: int) -> Scheduler:
    xml = tree_xml(fanout, depth) if policy == "fair" else capacity_xml(fanout, depth)
    sched = scheduler(nodes, 40, xml, share_policy=policy)
    size = Resources(1024, 1)
    for i, queue in enumerate(names):
        sched.submit(JobSpec(tasks=[TaskSpec(duration=10.0, resources=size)] * 100, pool=queue, user=f"u{i}"),
                     0.0, update=False)
    sched.update(0.0)
    return sched


def bench_capacity(nodes: int = 10_000, fanout: int = 10, depth: int = 3, rounds: int = 3,
                   chunk: int = 250, full: int = 500) -> None:
    """``capacity``: both policies' schedulers live in this process and are timed in turns —
    the updates alternately, the heartbeats ``chunk`` nodes of one, then of the other, the
    first policy alternating — so a drift of the machine's speed (this host's runs land in
    two modes that far apart) weighs on both alike.  The collector runs before each timed
    part and stays on.  Medians over the rounds."""
    names = leaves(fanout, depth)
    policies = ("fair", "yarn_capacity")
    updates: dict[str, list[float]] = {p: [] for p in policies}
    rates: dict[str, list[float]] = {p: [] for p in policies}
    assigned = dict.fromkeys(policies, 0)
    idle = dict.fromkeys(policies, 0.0)
    for r in range(rounds):
        gc.collect()
        scheds = {p: _capacity_scheduler(p, names, nodes, fanout, depth) for p in policies}
        gc.collect()
        for k in range(7):
            for p in policies if (r + k) % 2 == 0 else policies[::-1]:
                t = time.perf_counter()
                scheds[p].update(float(k + 1))
                updates[p].append(time.perf_counter() - t)
        gc.collect()
        spent = dict.fromkeys(policies, 0.0)
        assigned = dict.fromkeys(policies, 0)
        order = list(scheds["fair"].cluster.nodes)
        for c in range(0, len(order), chunk):
            part = order[c:c + chunk]
            for p in policies if (r + c // chunk) % 2 == 0 else policies[::-1]:
                sched = scheds[p]
                t = time.perf_counter()
                for name in part:
                    assigned[p] += len(sched.heartbeat(name, 8.0))
                spent[p] += time.perf_counter() - t
        for p in policies:
            rates[p].append(assigned[p] / spent[p])
        # the cluster full (every node's 8 containers running, apps still asking): a
        # heartbeat that finds no room, timed on ``full`` nodes in turns
        size = Resources(1024, 1)
        for p in policies:
            sched = scheds[p]
            for name in order:
                node = sched.cluster.nodes[name]
                while node.used.fits_with(size, node.capacity) and sched.heartbeat(name, 8.5):
                    pass
        sample = order[:full]
        for c in range(0, len(sample), 50):
            for p in policies if (r + c // 50) % 2 == 0 else policies[::-1]:
                sched = scheds[p]
                t = time.perf_counter()
                for name in sample[c:c + 50]:
                    if sched.heartbeat(name, 9.0):
                        raise AssertionError(f"{p}: a full node took a container")
                idle[p] += time.perf_counter() - t
        del scheds
    for p in policies:
        print(f"capacity: {p:>13}: {len(names)} leaf queues, {nodes} nodes: update "
              f"{statistics.median(updates[p]) * 1000:.1f} ms, heartbeat {statistics.median(rates[p]):,.0f} "
              f"assignments/s ({assigned[p]} a round; rounds: " + ", ".join(f"{x:,.0f}" for x in rates[p]) + ")")
    update = statistics.median(updates["yarn_capacity"]) / statistics.median(updates["fair"])
    rate = statistics.median(c / f for f, c in zip(rates["fair"], rates["yarn_capacity"]))
    print(f"capacity: yarn_capacity / fair: update {update:.2f}x, heartbeat rate {rate:.2f}x "
          "(the rounds' median)")
    print("capacity: a full node's heartbeat (nothing to assign, apps still asking; "
          f"{full} nodes a round): " + ", ".join(f"{p} {idle[p] / (full * rounds) * 1e6:,.1f} µs" for p in policies))


if __name__ == "__main__":
    which = sys.argv[1:] or ["shares", "heartbeat"]
    if "shares" in which:
        bench_shares()
        bench_shares(weighted=True)
    if "heartbeat" in which:
        bench_heartbeat()
    if "capacity" in which:
        bench_capacity()

