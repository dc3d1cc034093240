"""``corescheduler queues`` shows each queue's *effective* ACLs and where they come from
(issue 30, item 3).  YARN's rule: Hadoop 2.x ``FSQueue.hasAccess`` →
``AllocationConfiguration.hasAccess`` lets a user in if the queue's ACL or any
ancestor's does, and ``getQueueAcl`` gives a queue without the ACL ``*`` for root and
nobody for the others — so root's default ``*`` lets anybody use every queue."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run
from paths import DOCS, REPO

from corescheduler.core.queues import EVERYBODY, NOBODY
from corescheduler.formats.allocation_file import parse_allocations

CONFIG = """\
[scheduler]
mode = "resources"
allocation_file = "fair.xml"

[cluster]
racks = 1
nodes_per_rack = 2
node_resources = "8192 mb, 8 vcores"
"""


def tree(root_acl: str | None) -> str:
    """root (``root_acl`` if given) → eng (group ``ops``) → web (user alice), batch (no ACL);
    dev (users bob, carol; administered by dave)."""
    root = f"<aclSubmitApps>{root_acl}</aclSubmitApps>" if root_acl is not None else ""
    return (
        '<?xml version="1.0"?>\n<allocations>\n'
        f'<queue name="root">{root}\n'
        '  <queue name="eng"><aclSubmitApps> ops</aclSubmitApps>\n'
        '    <queue name="web"><aclSubmitApps>alice</aclSubmitApps></queue>\n'
        '    <queue name="batch"/>\n'
        '  </queue>\n'
        '  <queue name="dev"><aclSubmitApps>bob,carol</aclSubmitApps>'
        '<aclAdministerApps>dave</aclAdministerApps></queue>\n'
        '</queue>\n</allocations>\n'
    )


@pytest.fixture
def config(tmp_path: Path):
    def write(xml: str) -> Path:
        (tmp_path / "fair.xml").write_text(xml, encoding="utf-8")
        path = tmp_path / "cs.toml"
        path.write_text(CONFIG, encoding="utf-8")
        return path

    return write


def queues_json(config: Path) -> dict[str, dict[str, Any]]:
    result = run("queues", "--config", str(config), "--json")
    assert result.exit_code == 0, result.output
    return {q["name"]: q for q in json.loads(result.stdout)["queues"]}


def source(queue: str, acl: str, configured: bool = True) -> dict[str, Any]:
    return {"queue": queue, "acl": acl, "configured": configured}


def test_roots_default_star_is_every_queues_effective_acl(config):
    """The issue's case: web's own ACL is alice, yet anybody may submit there."""
    q = queues_json(config(tree(None)))
    web = q["root.eng.web"]
    assert web["acl_submit_apps"] == "alice"  # kept: the queue's own
    assert web["effective_acl_submit_apps"] == "*"
    assert web["effective_acl_submit_apps_from"] == [
        source("root.eng.web", "alice"), source("root.eng", " ops"), source("root", "*", configured=False),
    ]
    batch = q["root.eng.batch"]
    assert batch["acl_submit_apps"] == "nobody"
    assert batch["effective_acl_submit_apps"] == "*"
    assert batch["effective_acl_submit_apps_from"] == [source("root.eng", " ops"), source("root", "*", False)]
    assert q["root"]["effective_acl_submit_apps_from"] == [source("root", "*", False)]
    assert q["root.dev"]["effective_acl_administer_apps"] == "*"
    assert q["root.dev"]["effective_acl_administer_apps_from"] == [
        source("root.dev", "dave"), source("root", "*", configured=False),
    ]


def test_with_roots_acl_set_the_effective_acl_is_the_union_up_the_tree(config):
    q = queues_json(config(tree(" ")))  # a single space: nobody
    web, batch, dev = q["root.eng.web"], q["root.eng.batch"], q["root.dev"]
    assert web["effective_acl_submit_apps"] == "alice ops"  # user alice, group ops (Hadoop's getAclString)
    assert web["effective_acl_submit_apps_from"] == [source("root.eng.web", "alice"), source("root.eng", " ops")]
    assert batch["effective_acl_submit_apps"] == " ops"  # group ops only: the leading space says groups
    assert q["root.default"]["effective_acl_submit_apps"] == "nobody"
    assert q["root.default"]["effective_acl_submit_apps_from"] == []
    assert dev["effective_acl_submit_apps"] == "bob,carol"
    assert dev["effective_acl_administer_apps"] == "*"  # root's administer ACL is still the default
    assert q["root"]["effective_acl_submit_apps"] == "nobody"


def test_the_effective_acl_lets_in_exactly_whom_the_scheduler_lets_in():
    """``effective_acl(name, kind).allows`` agrees with ``has_access`` (the rule the
    resource scheduler applies at submission) for every queue, user and group."""
    people = [("alice", ()), ("bob", ()), ("dave", ()), ("eve", ()), ("eve", ("ops",)), (None, ())]
    for root_acl in (None, " ", "eve", " ops", "*"):
        queues = parse_allocations(tree(root_acl).encode(), "fair.xml").queue_config()
        for name, kind, (user, groups) in itertools.product(
            [*queues.queues, "root.default", "root.eng.new"], ("submit", "administer"), people
        ):
            expected = queues.has_access(name, kind, user, groups)
            assert queues.effective_acl(name, kind).allows(user, groups) == expected, (root_acl, name, kind, user)


def test_effective_acl_of_nothing_and_of_everybody():
    queues = parse_allocations(tree(" ").encode(), "fair.xml").queue_config()
    assert queues.effective_acl("root.default", "submit") == NOBODY
    queues = parse_allocations(tree(None).encode(), "fair.xml").queue_config()
    assert queues.effective_acl("root.eng.web", "submit") == EVERYBODY


def test_the_table_says_where_each_acl_comes_from(config):
    result = run("queues", "--config", str(config(tree(None))))
    assert result.exit_code == 0, result.output
    rows = {line[: len(line) - len(line.lstrip())] + line.split()[0]: line for line in result.stdout.splitlines()[2:]}
    assert "alice (own) +  ops (inherited from root.eng) + * (inherited from root's default)" in rows["    web"]
    assert "* (root's default)" in rows["root"]
    assert "dave (own) + * (inherited from root's default)" in rows["  dev"]
    notes = result.stderr.splitlines()
    assert len(notes) == 2, notes
    assert notes[0].startswith("note: <aclSubmitApps> is set on root.eng, root.eng.web, root.dev but not on root")
    assert notes[1].startswith("note: <aclAdministerApps> is set on root.dev but not on root")
    assert "anybody may administer every queue" in notes[1]


def test_no_note_when_root_sets_its_acls(config):
    xml = tree(" ").replace("<queue name=\"root\">", "<queue name=\"root\"><aclAdministerApps>root</aclAdministerApps>")
    result = run("queues", "--config", str(config(xml)))
    assert result.exit_code == 0 and result.stderr == ""
    web = next(line for line in result.stdout.splitlines() if line.startswith("    web"))
    assert "alice (own) +  ops (inherited from root.eng)" in web
    assert "nobody" in next(line for line in result.stdout.splitlines() if line.startswith("  default"))
    assert "root (inherited from root)" in web  # the admin ACL root sets


def test_queues_is_documented_in_the_cli_reference_and_the_readme():
    cli = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert "## `corescheduler queues`" in cli and "(#corescheduler-queues)" in cli
    assert "effective_acl_submit_apps_from" in cli
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    using = readme.split("## Using it", 1)[1].split("\n## ", 1)[0]
    assert "corescheduler queues --config" in using


def test_help_says_the_acls_are_effective():
    result = run("queues", "--help")
    assert result.exit_code == 0
    assert "inherited from root's default" in result.stdout
