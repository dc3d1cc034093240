"""Run AccaSim 1.1.3 (a job-level HPC simulator from PyPI) on an SWF file: the peer of
``bench_simulator.py --peer``.  Run in AccaSim's own venv (it is not a dependency of ours):

    python peer_accasim.py WORKLOAD.swf SYSTEM.json OUT_DIR

prints ``{"wall_s": ...}``: the simulation's wall time (FIFO with first-fit allocation, no
output files).  AccaSim 1.1.3 imports ``collections.Mapping``, which Python 3.10 removed; the
aliases below let it run on the Python we have, unchanged.
"""

import collections
import collections.abc
import json
import sys
import time

for _name in ("Mapping", "MutableMapping", "Sequence", "Iterable", "Callable"):
    setattr(collections, _name, getattr(collections.abc, _name))

from accasim.base.allocator_class import FirstFit  # noqa: E402
from accasim.base.scheduler_class import FirstInFirstOut  # noqa: E402
from accasim.base.simulator_class import Simulator  # noqa: E402


def main() -> None:
    swf, system, out = sys.argv[1:4]
    started = time.perf_counter()
    sim = Simulator(swf, system, FirstInFirstOut(FirstFit()), RESULTS_FOLDER_PATH=out, scheduling_output=False,
                    statistics_output=False, show_statistics=False, pprint_output=False, benchmark_output=False)
    sim.start_simulation()
    print(json.dumps({"wall_s": time.perf_counter() - started}))


if __name__ == "__main__":
    main()
