"""``corescheduler queues``: the queue tree of a YARN allocation file, each queue's
effective settings (after YARN's defaults and inheritance) and steady fair share."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import assert_user_error, run
from paths import DATA

INT_MAX = 2**31 - 1
ROOT_ACL_NOTE = (
    "<aclSubmitApps> is set on root.prod but not on root, whose ACL is then YARN's default '*': every queue "
    "inherits it, so anybody may submit to every queue; set <aclSubmitApps> on root (a single space: nobody) "
    "to restrict"
)

ALLOCATIONS = """\
<?xml version="1.0"?>
<allocations>
  <queue name="prod">
    <weight>2.0</weight>
    <minResources>20000 mb, 10 vcores</minResources>
    <fairSharePreemptionTimeout>30</fairSharePreemptionTimeout>
    <maxContainerAllocation>4096 mb, 4 vcores</maxContainerAllocation>
    <aclSubmitApps>alice,bob ops</aclSubmitApps>
    <queue name="web">
      <maxRunningApps>10</maxRunningApps>
      <maxAMShare>0.2</maxAMShare>
    </queue>
    <queue name="batch">
      <schedulingPolicy>fifo</schedulingPolicy>
      <allowPreemptionFrom>false</allowPreemptionFrom>
    </queue>
  </queue>
  <queue name="dev">
    <maxResources>50%</maxResources>
    <reservation/>
  </queue>
  <queue name="users" type="parent">
    <maxChildResources>8192 mb, 8 vcores</maxChildResources>
  </queue>
  <user name="alice"><maxRunningApps>2</maxRunningApps></user>
  <userMaxAppsDefault>4</userMaxAppsDefault>
  <defaultMinSharePreemptionTimeout>60</defaultMinSharePreemptionTimeout>
  <queuePlacementPolicy>
    <rule name="specified"/>
    <rule name="user"><rule name="primaryGroup" create="false"/></rule>
    <rule name="default" queue="prod.web"/>
  </queuePlacementPolicy>
</allocations>
"""

# 2 racks × 5 nodes × (10000 MB, 8 vcores) = (100000 MB, 80 vcores)
CONFIG = """\
[scheduler]
mode = "resources"
allocation_file = "alloc/{name}"

[cluster]
racks = 2
nodes_per_rack = 5
node_resources = "10000 mb, 8 vcores"
"""

NO_ALLOCATIONS = """\
[scheduler]
mode = "resources"

[cluster]
racks = 1
nodes_per_rack = 2
node_resources = "4096 mb, 4 vcores"
"""


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``write(xml, name)``: conf/alloc/NAME and conf/cs.toml naming it relative to the config;
    returns the config's path.  The working directory is elsewhere, so the allocation file is
    found relative to the config, not the cwd."""
    conf = tmp_path / "conf"
    (conf / "alloc").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)

    def write(xml: str = ALLOCATIONS, name: str = "fair.xml") -> Path:
        (conf / "alloc" / name).write_text(xml, encoding="utf-8")
        config = conf / "cs.toml"
        config.write_text(CONFIG.format(name=name), encoding="utf-8")
        return config

    return write


def queues_json(config: Path) -> dict[str, Any]:
    result = run("queues", "--config", str(config), "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def by_name(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {q["name"]: q for q in data["queues"]}


def table_rows(stdout: str) -> dict[str, list[str]]:
    """The plain table's rows by queue name (indent kept), cells split on runs of 2+ spaces."""
    import re

    lines = stdout.splitlines()
    header = lines[1]
    assert header.split()[:4] == ["queue", "type", "policy", "weight"]
    rows = {}
    for line in lines[2:]:
        if line.startswith("placement:"):
            break
        cells = re.split(r"\s{2,}", line.strip())
        indent = len(line) - len(line.lstrip())
        rows[" " * indent + cells[0]] = cells
    return rows


# --------------------------------------------------------------------------- text output


def test_text_lists_the_tree_and_steady_shares(setup) -> None:
    """FSParentQueue.recomputeSteadyShares (FairScheduler.update): the tree in file order, indented by depth,
    with each queue's steady fair share of (100000 MB, 80 vc): weights 2:1:1:1 under root (prod, dev, users,
    and root.default, which YARN always has), prod's half for each child; a fair parent leaves vcores at 0."""
    config = setup()
    result = run("queues", "--config", str(config))
    assert result.exit_code == 0, result.output
    assert result.stderr == f"note: {ROOT_ACL_NOTE}\n"  # prod's ACL, root's unset (issue 30 item 3)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("queues of ") and lines[0].endswith("on 100000 MB, 80 vc")
    assert str(Path("alloc") / "fair.xml") in lines[0]
    rows = table_rows(result.stdout)
    assert list(rows) == [
        "root",
        "  prod",
        "    web",
        "    batch",
        "  dev",
        "  users",
        "  default (dynamic)",
    ]
    assert rows["root"][-1] == "100000 MB, 80 vc"
    assert rows["  prod"][-1] == "40000 MB, 0 vc"
    for name in ("    web", "    batch", "  dev", "  users", "  default (dynamic)"):
        assert rows[name][-1] == "20000 MB, 0 vc", name
    assert [rows[n][1] for n in rows] == ["parent", "parent", "leaf", "leaf", "reservation", "parent", "leaf"]
    assert result.stdout.rstrip().splitlines()[-1] == (
        "placement: specified → user<primaryGroup[no create]> → default(prod.web)"
    )


def test_text_shows_effective_settings(setup) -> None:
    """AllocationConfiguration getters and FSQueue.updatePreemptionVariables: the table shows each queue's
    effective policy, weight, limits, timeouts (inherited; "never" for Long.MAX_VALUE), preemptability and
    effective ACLs (each queue's own and its ancestors': root ``*`` unless set, others nobody unless set)."""
    rows = table_rows(run("queues", "--config", str(setup())).stdout)
    root, prod, web, batch = rows["root"], rows["  prod"], rows["    web"], rows["    batch"]
    # queue type policy weight min max apps AM min-timeout fair-timeout threshold preemptable submit admin share
    assert root[1:] == [
        "parent", "fair", "1", "0 MB, 0 vc", "unbounded", "∞", "-", "60 s", "never", "0.5", "yes",
        "* (root's default)", "* (root's default)", "100000 MB, 80 vc",
    ]
    assert prod[2:5] == ["fair", "2", "20000 MB, 10 vc"]
    assert prod[8:10] == ["60 s", "30 s"]
    # effective ACLs (issue 30 item 3): the queue's own and root's default "*", which every queue inherits
    assert prod[12:14] == ["alice,bob ops (own) + * (inherited from root's default)",
                           "* (inherited from root's default)"]
    assert web[2:12] == ["fair", "1", "0 MB, 0 vc", "unbounded", "10", "0.2", "60 s", "30 s", "0.5", "yes"]
    assert batch[2] == "fifo"
    assert batch[7] == "0.5"  # queueMaxAMShareDefault
    assert batch[11] == "no"
    assert rows["  dev"][5] == "50000 MB, 40 vc"  # 50% of the cluster


def test_text_prints_warnings_on_stderr(setup) -> None:
    """AllocationFileParser: an unknown element is logged ("Bad element in allocations file") and skipped;
    here a ``warning: FILE:LINE: ...`` line on stderr, the table still printed."""
    xml = ALLOCATIONS.replace("<userMaxAppsDefault>", "<colour>red</colour>\n  <userMaxAppsDefault>")
    line = xml.splitlines().index("  <colour>red</colour>") + 1
    config = setup(xml)
    result = run("queues", "--config", str(config))
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"warning: {config.parent / 'alloc' / 'fair.xml'}:{line}: Bad element in allocations file: colour (ignored)",
        f"note: {ROOT_ACL_NOTE}",  # issue 30 item 3: prod's aclSubmitApps restricts nothing while root's is unset
    ]
    assert list(table_rows(result.stdout))[:2] == ["root", "  prod"]


# --------------------------------------------------------------------------- JSON output


def test_json_has_every_queue(setup) -> None:
    """QueueManager: the configured queues, plus root.default (created at start-up), in tree order with
    depth, type (PARENT / LEAF configured sets; a reservable queue is a plan queue) and children."""
    data = queues_json(setup())
    assert data["dialect"] == "yarn"
    assert data["mode"] == "resources"
    assert data["source"].endswith(str(Path("conf") / "alloc" / "fair.xml"))
    assert data["cluster"] == {"memory": 100000, "vcores": 80}
    assert [(q["name"], q["depth"], q["type"], q["configured"]) for q in data["queues"]] == [
        ("root", 0, "parent", True),
        ("root.prod", 1, "parent", True),
        ("root.prod.web", 2, "leaf", True),
        ("root.prod.batch", 2, "leaf", True),
        ("root.dev", 1, "reservation", True),
        ("root.users", 1, "parent", True),
        ("root.default", 1, "leaf", False),
    ]
    queues = by_name(data)
    assert queues["root"]["children"] == ["root.prod", "root.dev", "root.users"]
    assert queues["root.prod"]["children"] == ["root.prod.web", "root.prod.batch"]
    assert data["warnings"] == []


def test_json_effective_settings(setup) -> None:
    """AllocationConfiguration getters (no inheritance of weight, policy, limits), FSQueue.updatePreemptionVariables
    and isPreemptable (inherited), getMaximumContainerAllocation (inherited), ConfiguredYarnAuthorizer defaults."""
    q = by_name(queues_json(setup()))
    root, prod, web, batch = q["root"], q["root.prod"], q["root.prod.web"], q["root.prod.batch"]
    dev, users, default = q["root.dev"], q["root.users"], q["root.default"]

    assert root["policy"] == "fair" and root["weight"] == 1.0
    assert root["max_resources"] == {"memory": None, "vcores": None}  # unbounded
    assert root["max_running_apps"] == INT_MAX
    assert root["min_share_preemption_timeout"] == 60  # defaultMinSharePreemptionTimeout
    assert root["fair_share_preemption_timeout"] is None  # Long.MAX_VALUE: never
    assert root["fair_share_preemption_threshold"] == 0.5
    assert (root["acl_submit_apps"], root["acl_administer_apps"]) == ("*", "*")

    assert prod["weight"] == 2.0
    assert prod["min_resources"] == {"memory": 20000, "vcores": 10}
    assert prod["fair_share_preemption_timeout"] == 30
    assert prod["max_container_allocation"] == {"memory": 4096, "vcores": 4}
    assert prod["max_am_share"] is None  # parents have none
    assert (prod["acl_submit_apps"], prod["acl_administer_apps"]) == ("alice,bob ops", "nobody")

    assert web["max_running_apps"] == 10
    assert web["max_am_share"] == 0.2
    assert web["weight"] == 1.0 and web["policy"] == "fair"  # not inherited
    assert web["min_resources"] == {"memory": 0, "vcores": 0}  # not inherited
    assert web["min_share_preemption_timeout"] == 60  # inherited via root
    assert web["fair_share_preemption_timeout"] == 30  # inherited from prod
    assert web["max_container_allocation"] == {"memory": 4096, "vcores": 4}  # inherited from prod
    assert web["acl_submit_apps"] == "nobody"
    assert web["preemptable"] is True

    assert batch["policy"] == "fifo"
    assert batch["preemptable"] is False
    assert batch["max_am_share"] == 0.5

    assert dev["max_resources"] == {"memory": 50000, "vcores": 40}
    assert users["max_child_resources"] == {"memory": 8192, "vcores": 8}
    assert users["max_resources"] == {"memory": None, "vcores": None}  # its own: not maxChildResources
    assert default["max_am_share"] == 0.5
    assert default["max_container_allocation"] is None


def test_json_steady_shares_users_and_placement(setup) -> None:
    """FSParentQueue.recomputeSteadyShares (fair: memory only below root), AllocationFileParser's user limits,
    QueuePlacementPolicy.fromXml's rules with their terminal flags (FSPlacementRule.getTerminal)."""
    data = queues_json(setup())
    shares = {q["name"]: q["steady_fair_share"] for q in data["queues"]}
    assert shares == {
        "root": {"memory": 100000, "vcores": 80},
        "root.prod": {"memory": 40000, "vcores": 0},
        "root.prod.web": {"memory": 20000, "vcores": 0},
        "root.prod.batch": {"memory": 20000, "vcores": 0},
        "root.dev": {"memory": 20000, "vcores": 0},
        "root.users": {"memory": 20000, "vcores": 0},
        "root.default": {"memory": 20000, "vcores": 0},
    }
    assert data["users"] == {"alice": 2}
    assert data["user_max_apps_default"] == 4
    assert data["placement"] == [
        {"name": "specified", "create": True, "terminal": False},
        {
            "name": "user",
            "create": True,
            "terminal": False,
            "parent": {"name": "primaryGroup", "create": False, "terminal": False},
        },
        {"name": "default", "create": True, "terminal": True, "queue": "prod.web"},
    ]


# --------------------------------------------------------------------------- errors and defaults


@pytest.mark.parametrize("as_json", [False, True])
def test_bad_allocation_file_is_one_error_line(setup, as_json: bool) -> None:
    """AllocationFileQueueParser.loadQueue / FairScheduler.initScheduler: a bad file fails the load; here exit 1
    with one ``error: FILE:LINE: message`` line on stderr."""
    bad = ALLOCATIONS.replace("<queue name=\"batch\">", "<queue name=\"ba.tch\">")
    config = setup(bad, "bad.xml")
    args = ["queues", "--config", str(config)] + (["--json"] if as_json else [])
    result = run(*args)
    line = assert_user_error(result, "bad.xml:13: ", "queue name (ba.tch) shouldn't contain period.")
    path = line.removeprefix("error: ").split(":13:")[0]
    assert Path(path).resolve() == (config.parent / "alloc" / "bad.xml").resolve()
    assert result.stdout == ""


def test_docs_example_loads_with_a_warning(setup) -> None:
    """Hadoop's FairScheduler.md example, verbatim (maxAMShare on sample_queue, a parent): Hadoop trunk's
    AllocationFileQueueParser.loadQueue refuses it, Hadoop 2.x-3.1 load it.  ``queues`` prints the tree
    with one warning on stderr naming the rule; the parent shows no maxAMShare."""
    docs = (DATA / "hadoop" / "fair-scheduler-docs.xml").read_text()
    config = setup(docs, "docs.xml")
    result = run("queues", "--config", str(config))
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1, result.stderr
    assert "docs.xml:" in warnings[0] and "root.sample_queue" in warnings[0]
    assert "cannot also include a maxAMShare element" in warnings[0]
    assert "Hadoop's current AllocationFileQueueParser refuses this file" in warnings[0]
    assert "sample_sub_queue" in result.stdout
    data = by_name(queues_json(config))
    assert data["root.sample_queue"]["max_am_share"] is None
    assert data["root.sample_queue.sample_sub_queue"]["max_am_share"] == 0.5


def test_missing_allocation_file_is_an_error(setup) -> None:
    """AllocationFileLoaderService.reloadAllocations: a named file that cannot be read fails the load."""
    config = setup()
    (config.parent / "alloc" / "fair.xml").unlink()
    assert_user_error(run("queues", "--config", str(config)), "fair.xml", "cannot read allocation file")


def test_no_allocation_file_gives_root_and_default(tmp_path: Path) -> None:
    """AllocationFileLoaderService.getDefaultPermissions + QueueManager.initialize: without an allocation file
    there are root (ACLs ``*``) and root.default, which gets the cluster's memory."""
    config = tmp_path / "cs.toml"
    config.write_text(NO_ALLOCATIONS, encoding="utf-8")
    data = queues_json(config)
    assert data["source"] is None and data["dialect"] is None and data["placement"] is None
    assert data["cluster"] == {"memory": 8192, "vcores": 8}
    assert [(q["name"], q["type"], q["configured"]) for q in data["queues"]] == [
        ("root", "parent", True),
        ("root.default", "leaf", False),
    ]
    root, default = data["queues"]
    assert root["acl_submit_apps"] == "*" and root["acl_administer_apps"] == "*"
    assert default["acl_submit_apps"] == "nobody"
    assert default["steady_fair_share"] == {"memory": 8192, "vcores": 0}
    assert default["max_running_apps"] == INT_MAX and default["max_am_share"] == 0.5

    result = run("queues", "--config", str(config))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "queues of no allocation file on 8192 MB, 8 vc"
    assert list(table_rows(result.stdout)) == ["root", "  default (dynamic)"]
    assert "placement:" not in result.stdout


def test_mr1_allocation_file_shows_pools_as_leaves(setup) -> None:
    """PoolManager.reloadAllocs (Hadoop 1.x) through Allocations.queue_config: an MR1 file's pools are
    leaves under root, root.default first when not declared."""
    mr1 = (
        '<?xml version="1.0"?>\n<allocations>\n  <pool name="prod">\n    <weight>3</weight>\n'
        "    <maxRunningJobs>5</maxRunningJobs>\n  </pool>\n</allocations>\n"
    )
    data = queues_json(setup(mr1, "mr1.xml"))
    assert data["dialect"] == "mr1"
    assert [(q["name"], q["type"], q["configured"]) for q in data["queues"]] == [
        ("root", "parent", True),
        ("root.default", "leaf", True),
        ("root.prod", "leaf", True),
    ]
    prod = by_name(data)["root.prod"]
    assert prod["weight"] == 3 and prod["max_running_apps"] == 5
    assert prod["steady_fair_share"]["memory"] == 3 * by_name(data)["root.default"]["steady_fair_share"]["memory"]


def test_group_only_acl_is_not_shown_as_a_user(setup) -> None:
    """hadoop-common AccessControlList(String) / getAclString: a leading space makes the names groups
    (" ops" is group ops, "ops" is user ops); the two ACLs must not be displayed the same."""
    xml = (
        '<?xml version="1.0"?>\n<allocations>\n'
        '  <queue name="g"><aclSubmitApps> ops</aclSubmitApps></queue>\n'
        '  <queue name="u"><aclSubmitApps>ops</aclSubmitApps></queue>\n</allocations>\n'
    )
    queues = by_name(queues_json(setup(xml, "acl.xml")))
    assert queues["root.g"]["acl_submit_apps"] != queues["root.u"]["acl_submit_apps"]


def test_capacity_queues_show_their_memory_guarantees(tmp_path: Path) -> None:
    """Resource mode with ``share_policy = "capacity"``: the steady shares come from the plugin's
    own maths (capacity % of the cluster's memory), the queues from its configuration."""
    config = tmp_path / "cap.toml"
    config.write_text(
        '[scheduler]\nmode = "resources"\nshare_policy = "capacity"\npool_resolver = "capacity"\n'
        "[plugins.capacity.queues.prod]\ncapacity = 70\n[plugins.capacity.queues.dev]\ncapacity = 30\n"
        '[cluster]\nracks = 1\nnodes_per_rack = 10\nnode_resources = "10240 mb, 10 vcores"\n'
    )
    queues = by_name(queues_json(config))
    assert queues["root.prod"]["steady_fair_share"]["memory"] == 71680
    assert queues["root.dev"]["steady_fair_share"]["memory"] == 30720
    assert queues["root.prod"]["policy"] == "capacity"
