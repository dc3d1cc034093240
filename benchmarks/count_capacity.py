"""Instruction counts of ``bench_queues.py capacity``'s heartbeat phase, for callgrind.

    valgrind --tool=callgrind --toggle-collect=sys_call_tracing \\
        python benchmarks/count_capacity.py fair|yarn_capacity [nodes]

Builds ``bench_capacity``'s setup for one policy (1,000 leaf queues, one app of 1024 MB /
1 vcore tasks in each, ``nodes`` nodes, default 10,000), runs ``update()`` twice, then one
heartbeat of every node inside ``sys.call_tracing`` — so ``--toggle-collect=sys_call_tracing``
counts the heartbeats alone.  Prints the assignments (divide the count by them).  Faster:
``CALLGRIND_INSTR=1`` with ``--instr-atstart=no`` turns instrumentation on (``callgrind_control
-i on``) only after the setup.  Run with ``PYTHONHASHSEED=0``; add ``--cache-sim=yes
--branch-sim=yes`` for cache misses and mispredicts (estimated cycles: Ir + 10 × L1 misses +
100 × LL misses + 15 × mispredicts).  A count moves by up to about 0.1 % with the heap's layout
alone (obmalloc's paths; e.g. three more slots on ``Queue``), with the same bytecode run.
"""

from __future__ import annotations

import os
import subprocess
import sys

from bench_queues import capacity_xml, leaves, scheduler, tree_xml

from corescheduler.core.model import JobSpec, TaskSpec
from corescheduler.resources import Resources


def main() -> None:
    policy = sys.argv[1]
    nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    xml = tree_xml(10, 3) if policy == "fair" else capacity_xml(10, 3)
    sched = scheduler(nodes, 40, xml, share_policy=policy)
    size = Resources(1024, 1)
    for i, queue in enumerate(leaves(10, 3)):
        sched.submit(JobSpec(tasks=[TaskSpec(duration=10.0, resources=size)] * 100, pool=queue, user=f"u{i}"),
                     0.0, update=False)
    sched.update(0.0)
    sched.update(1.0)
    names = list(sched.cluster.nodes)

    def beat() -> int:
        assigned = 0
        for name in names:
            assigned += len(sched.heartbeat(name, 8.0))
        return assigned

    if os.environ.get("CALLGRIND_INSTR"):  # run under --instr-atstart=no: instrument from here on
        subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], check=True, capture_output=True)
    assigned = sys.call_tracing(beat, ())
    print(f"{policy}: {assigned} assignments")


if __name__ == "__main__":
    main()
