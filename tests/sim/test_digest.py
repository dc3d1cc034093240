"""The simulator's results, pinned: a fixed seed's ``events.jsonl`` against a stored digest.

Speed-ups (issue 15) must not change a single event.  Update a digest only with a behaviour
change you can name (in the commit and CHANGELOG.md), never to make a speed-up pass.

The workload is the first 400 jobs of SWIM's FB-2009 day (``tests/data/workloads/
fb2009-first-400.tsv``, New BSD, see ``tests/data/workloads/README.md``), the bundled example's
scheduler (fair sharing, delay scheduling, new-job booster, preemption, cap_based) without its
allocation file, on 4 racks of 10 nodes.

:data:`MODE_DIGESTS` pin the other engines and policies the same way (issue 27's first commit, before
the engine and policy contracts were redesigned): resource mode with the bundled YARN example on a
cluster small enough to preempt and reserve (drf at the root, fair and fifo leaves, AM limits), the
same workload under ``fair`` and ``drf`` alone, FB-2009 in resource mode with three queues
(``tests/data/digests/yarn.toml``), and MR1 capacity queues (``tests/data/digests/capacity.toml``).
"""

from __future__ import annotations

import hashlib
import json
from importlib.resources import files
from pathlib import Path

import pytest
from paths import DATA, REPO

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


EXAMPLES = REPO / "examples"
_YARN_EXAMPLE = (EXAMPLES / "yarn.toml", EXAMPLES / "yarn-workload.json",
                 [("nodes_per_rack = 10", "nodes_per_rack = 2")])
_FB2009 = DATA / "workloads" / "fb2009-first-400.tsv"

#: name -> ((config file, workload, [(replace, with)]), sha256 of events.jsonl)
MODE_DIGESTS = {
    # drf root, fair/fifo leaves, 23 preemptions, 54 reservations, maxAMShare (fsports2: min-share-starved
    # apps reserve, FSAppAttempt.isReservable; starvation handed out as FSLeafQueue.updateStarvedApps does)
    "yarn-example": (_YARN_EXAMPLE, "840888a78e378861ad9ceb67bf0ad957c2c1051bc51c19d57c1500f22bd204e6"),
    "yarn-fair": ((_YARN_EXAMPLE[0], _YARN_EXAMPLE[1], [*_YARN_EXAMPLE[2],
                   ('allocation_file = "fair-scheduler.xml"', 'share_policy = "fair"')]),
                  "463725dd037b4b445817974c19ed61b7a30ddbd6ca3e40eca1de8328dd3e55a2"),
    "yarn-drf": ((_YARN_EXAMPLE[0], _YARN_EXAMPLE[1], [*_YARN_EXAMPLE[2],
                  ('allocation_file = "fair-scheduler.xml"', 'share_policy = "drf"')]),
                 "74b5fd43e639810166794532571419bcda7b863dc4e0892eaa808ab353b49426"),
    # three queues (fair, drf, fifo), 3,072-MB containers, 8,071 reservations
    "yarn-fb2009": ((DATA / "digests" / "yarn.toml", _FB2009, []),
                    "bba1e027089743db30277a2161c84a68281aa27d3052ee9000aef7cf217462f3"),
    # three capacity queues, 3 reclaims by preemption
    "mr1-capacity": ((DATA / "digests" / "capacity.toml", _FB2009, []),
                     "7520fc6ed5df67ceb22e6aded38f9ae70bb25354732dcdfa47c62cf75ffddf08"),
}


def _events_digest(config: Config, workload_path: Path) -> str:
    wl = load_workload(workload_path, config=config, seed=7, nodes=list(build_cluster(config).nodes))
    result = Simulation(config, wl, 7).run()
    blob = "".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False) + "\n" for e in result.event_list)
    return hashlib.sha256(blob.encode()).hexdigest()


def _digest(extra: str) -> str:
    text = (files("corescheduler_examples") / "corescheduler.toml").read_text(encoding="utf-8")
    text = text.replace('allocation_file = "allocations.xml"', "").replace("racks = 10", "racks = 4")
    if "cogrs" in extra or "shuffle" in extra:
        text = text.replace('task_selector = "delay"', 'task_selector = "cogrs"')
    config = Config.from_toml(text + "\n" + extra, "corescheduler.toml")
    return _events_digest(config, _FB2009)


@pytest.mark.parametrize("name", list(DIGESTS))
def test_a_fixed_seed_gives_the_stored_events(name: str) -> None:
    extra, expected = DIGESTS[name]
    assert _digest(extra) == expected


@pytest.mark.parametrize("name", list(MODE_DIGESTS))
def test_other_engines_and_policies_give_the_stored_events(name: str) -> None:
    (config_path, workload_path, edits), expected = MODE_DIGESTS[name]
    text = config_path.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, f"{config_path} no longer holds {old!r}"
        text = text.replace(old, new)
    # the path names the directory the config's relative files (allocation files) are read from
    config = Config.from_toml(text, str(config_path))
    assert _events_digest(config, workload_path) == expected
