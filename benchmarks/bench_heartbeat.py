"""Heartbeat throughput of the scheduler core.

A cluster of N nodes (racks of 20, 2 map + 2 reduce slots), J runnable jobs
spread over P pools, each job with far more tasks than the cluster has slots
(with input locations, so the greedy locality search does real work).  Each
round heartbeats every node with ``assign_multiple = true``, then finishes
every task it launched (not timed), so every heartbeat has free slots.

    python benchmarks/bench_heartbeat.py                  # the issue's case: 1,000 nodes, 200 jobs, 20 pools
    python benchmarks/bench_heartbeat.py --scaling        # cost per assignment as pools and jobs grow

Prints assignments per second (heartbeat time only) and µs per assignment.
"""

from __future__ import annotations

import argparse
import random
import time

from corescheduler.config import Config
from corescheduler.core.model import Cluster, JobSpec, TaskSpec
from corescheduler.core.scheduler import Scheduler


def build(nodes: int, jobs: int, pools: int, maps_per_job: int, seed: int = 1) -> tuple[Scheduler, list[str]]:
    rng = random.Random(seed)
    racks = max(1, nodes // 20)
    cluster = Cluster.build(racks, nodes // racks, 2, 2)
    names = list(cluster.nodes)
    # the core's own cost: the slot-filling load manager and greedy locality (the
    # plugins measured since session 1; the defaults are now cap_based and delay)
    config = Config.from_dict({"scheduler": {"assign_multiple": True, "reduce_slowstart": 0.0,
                                             "load_manager": "slots", "task_selector": "locality"}})
    sched = Scheduler(config, cluster)
    for j in range(jobs):
        maps = [TaskSpec(1.0, tuple(rng.sample(names, 3))) for _ in range(maps_per_job)]
        reduces = [TaskSpec(1.0)] * (maps_per_job // 4)
        sched.submit(JobSpec(maps=maps, reduces=reduces, pool=f"pool{j % pools:02d}", user=f"u{j % 50}"), 0.0)
    return sched, names


def run(nodes: int, jobs: int, pools: int, rounds: int, maps_per_job: int) -> dict[str, float]:
    sched, names = build(nodes, jobs, pools, maps_per_job)
    now = 0.0
    assigned = 0
    beat_time = 0.0
    heartbeats = 0
    for _ in range(rounds):
        now += 1.0
        sched.update(now)
        launched = []
        t0 = time.perf_counter()
        for name in names:
            got = sched.heartbeat(name, now)
            launched.extend(got)
        beat_time += time.perf_counter() - t0
        heartbeats += len(names)
        assigned += len(launched)
        for a in launched:
            sched.finish(a.task, now)
    return {
        "nodes": nodes,
        "jobs": jobs,
        "pools": pools,
        "assignments": assigned,
        "assignments_per_s": assigned / beat_time,
        "us_per_assignment": 1e6 * beat_time / assigned,
        "heartbeats_per_s": heartbeats / beat_time,
    }


def show(r: dict[str, float]) -> None:
    print(
        f"nodes={r['nodes']:>6} jobs={r['jobs']:>5} pools={r['pools']:>4}  "
        f"{r['assignments_per_s']:>9,.0f} assignments/s  {r['us_per_assignment']:6.1f} µs/assignment  "
        f"{r['heartbeats_per_s']:>8,.0f} heartbeats/s  ({r['assignments']} assignments)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=200)
    ap.add_argument("--pools", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--maps-per-job", type=int, default=400)
    ap.add_argument("--scaling", action="store_true", help="vary pools and jobs at a fixed cluster size")
    args = ap.parse_args()
    if args.scaling:
        for pools, jobs in ((5, 50), (20, 200), (80, 800), (320, 3200)):
            show(run(args.nodes, jobs, pools, args.rounds, max(40, 80_000 // jobs)))
        show(run(10_000, 200, 20, 2, 2000))
    else:
        show(run(args.nodes, args.jobs, args.pools, args.rounds, args.maps_per_job))


if __name__ == "__main__":
    main()
