"""The simulator's results, pinned: a fixed seed's ``events.jsonl`` against a stored digest.

Speed-ups (issue 15) must not change a single event.  Update a digest only with a behaviour
change you can name (in the commit and CHANGELOG.md), never to make a speed-up pass.

The workload is the first 400 jobs of SWIM's FB-2009 day (``tests/data/workloads/
fb2009-first-400.tsv``, New BSD, see ``tests/data/workloads/README.md``), the bundled example's
scheduler (fair sharing, delay scheduling, new-job booster, preemption, cap_based) without its
allocation file, on 4 racks of 10 nodes.
"""

from __future__ import annotations

import hashlib
import json
from importlib.resources import files

import pytest
from paths import DATA

from corescheduler.config import Config
from corescheduler.formats.workloads import load_workload
from corescheduler.sim.simulator import Simulation, build_cluster

#: (extra TOML, sha256 of events.jsonl): the default run, and with the shuffle over the network
#: and cogrs placing reduces
DIGESTS = {
    "default": ("", "cac86aecc4cba8af5faf8bae748b6b4a06b66839ff4ce3c8ea01f8925d487133"),
    "shuffle+cogrs": ('[simulation]\nshuffle = "network"\nshuffle_skew = 0.8\n',
                      "9142bf8e0b7098dbe499457c5fb80df13fb12b35ae26e990faef4b05a9820aec"),
}


def _digest(extra: str) -> str:
    text = (files("corescheduler_examples") / "corescheduler.toml").read_text(encoding="utf-8")
    text = text.replace('allocation_file = "allocations.xml"', "").replace("racks = 10", "racks = 4")
    if "cogrs" in extra or "shuffle" in extra:
        text = text.replace('task_selector = "delay"', 'task_selector = "cogrs"')
    config = Config.from_toml(text + "\n" + extra, "corescheduler.toml")
    wl = load_workload(DATA / "workloads" / "fb2009-first-400.tsv", config=config, seed=7,
                       nodes=list(build_cluster(config).nodes))
    result = Simulation(config, wl, 7).run()
    blob = "".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False) + "\n" for e in result.event_list)
    return hashlib.sha256(blob.encode()).hexdigest()


@pytest.mark.parametrize("name", list(DIGESTS))
def test_a_fixed_seed_gives_the_stored_events(name: str) -> None:
    extra, expected = DIGESTS[name]
    assert _digest(extra) == expected
