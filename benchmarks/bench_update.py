"""Cost of one scheduler update (runnability, demands, weights, fair shares,
order) as jobs grow, and of compute_fair_shares alone.

    python benchmarks/bench_update.py
"""

from __future__ import annotations

import random
import time
import timeit

from corescheduler import compute_fair_shares
from corescheduler.config import Config
from corescheduler.core.model import Cluster, JobSpec, TaskSpec
from corescheduler.core.scheduler import Scheduler


def bench_fair_shares() -> None:
    rng = random.Random(7)
    for n in (100, 1_000, 10_000):
        items = [
            {"weight": rng.choice([0.5, 1, 2, 4]), "min_share": rng.choice([0, 0, 5]), "demand": rng.randint(0, 500)}
            for _ in range(n)
        ]
        capacity = n * 20
        reps = max(3, 2000 // n)
        best = min(timeit.repeat(lambda i=items, c=capacity: compute_fair_shares(i, c), number=reps, repeat=5)) / reps
        print(f"compute_fair_shares  {n:>6} items  {best * 1e3:8.3f} ms")


def bench_update() -> None:
    for jobs, pools in ((200, 20), (1_000, 50), (5_000, 200)):
        cluster = Cluster.build(50, 20, 2, 2)
        sched = Scheduler(Config.from_dict({"scheduler": {"update_interval": 0.5}}), cluster)
        specs = [
            JobSpec(maps=[TaskSpec(1.0)] * 50, reduces=[TaskSpec(1.0)] * 5, pool=f"p{j % pools}", user=f"u{j % 97}")
            for j in range(jobs)
        ]
        t0 = time.perf_counter()
        for spec in specs:
            sched.submit(spec, 0.0, update=False)
        build = time.perf_counter() - t0
        best = min(timeit.repeat(lambda s=sched: s.update(1.0), number=3, repeat=5)) / 3
        print(f"update()  {jobs:>6} jobs  {pools:>4} pools  {best * 1e3:8.2f} ms   (submitting all: {build:.1f} s)")


if __name__ == "__main__":
    bench_fair_shares()
    bench_update()
