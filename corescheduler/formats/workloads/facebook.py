"""``builtin:facebook``: the job-size mix of the delay-scheduling paper's
Facebook benchmark (approximate; see ``docs/workloads.md``)."""

from __future__ import annotations

import random
from collections.abc import Mapping

from corescheduler.core.model import JobSpec, TaskSpec
from corescheduler.formats.workloads.replicas import ReplicaPlacer, _by_rack

# --------------------------------------------------------------------------- builtin:facebook

#: The delay-scheduling paper's Facebook benchmark (Zaharia et al., EuroSys
#: 2010, §5, Table 3): per bin, (maps per job, jobs, reduces per job).  Maps and
#: job counts are the paper's; the reduce counts are our assumption (see
#: docs/workloads.md).
FACEBOOK_BINS: tuple[tuple[int, int, int], ...] = (
    (1, 38, 0),
    (2, 16, 0),
    (10, 14, 1),
    (50, 8, 3),
    (100, 6, 5),
    (200, 6, 10),
    (400, 4, 20),
    (800, 4, 40),
    (4800, 4, 50),
)
#: Mean job inter-arrival time, seconds (exponential).
FACEBOOK_MEAN_INTERARRIVAL = 14.0
#: A job's mean map duration is drawn uniformly from this range (seconds) ...
FACEBOOK_MAP_SECONDS = (10.0, 20.0)
#: ... its mean reduce duration from this one ...
FACEBOOK_REDUCE_SECONDS = (30.0, 60.0)
#: ... and each task varies by this factor around its job's mean.
FACEBOOK_TASK_SPREAD = (0.8, 1.2)
#: Fraction of a reduce spent copying map output.
FACEBOOK_COPY_FRACTION = 0.5


def facebook_workload(
    rng: random.Random, node_racks: Mapping[str, str] | None = None, replication: int = 3
) -> list[JobSpec]:
    """The ``builtin:facebook`` jobs (approximate; see docs/workloads.md).

    With ``node_racks`` every map gets ``replication`` input replicas placed
    HDFS-style (:class:`ReplicaPlacer`); without, maps have no input nodes and
    the simulator places them.
    """
    sizes = [(maps, reduces) for maps, jobs, reduces in FACEBOOK_BINS for _ in range(jobs)]
    rng.shuffle(sizes)
    placer = ReplicaPlacer(_by_rack(node_racks), replication) if node_racks else None
    jobs: list[JobSpec] = []
    submit = 0.0
    width = len(str(len(sizes) - 1))
    for n, (n_maps, n_reduces) in enumerate(sizes):
        if n:
            submit += rng.expovariate(1.0 / FACEBOOK_MEAN_INTERARRIVAL)
        map_mean = rng.uniform(*FACEBOOK_MAP_SECONDS)
        reduce_mean = rng.uniform(*FACEBOOK_REDUCE_SECONDS)
        maps = []
        for _ in range(n_maps):
            duration = round(map_mean * rng.uniform(*FACEBOOK_TASK_SPREAD), 3)
            nodes = placer.place(rng) if placer else ()
            maps.append(TaskSpec(duration=duration, input_nodes=nodes))
        reduces = []
        for _ in range(n_reduces):
            duration = round(reduce_mean * rng.uniform(*FACEBOOK_TASK_SPREAD), 3)
            reduces.append(TaskSpec(duration=duration, copy_duration=round(duration * FACEBOOK_COPY_FRACTION, 3)))
        tag = f"{n:0{width}d}"
        jobs.append(
            JobSpec(
                maps=tuple(maps),
                reduces=tuple(reduces),
                user=f"user{tag}",
                pool=f"pool{tag}",
                id=f"job{tag}",
                submit=round(submit, 3),
            )
        )
    return jobs


BUILTINS: tuple[str, ...] = ("facebook",)
