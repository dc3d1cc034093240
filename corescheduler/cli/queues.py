"""``corescheduler queues``: the queue tree as the scheduler sees it."""

from __future__ import annotations

import math
from typing import Any

import click

from corescheduler.cli.common import (
    capacity_file_warnings,
    config_option,
    json_option,
    load_config,
    one_line,
    print_json,
    print_table,
)


def _resources_json(value: Any) -> dict[str, int | None] | None:
    from corescheduler.resources import UNBOUNDED

    if value is None:
        return None
    return {k: (None if v >= UNBOUNDED else v) for k, v in value.as_dict().items()}


def _resources_text(value: Any) -> str:
    from corescheduler.resources import UNBOUNDED

    if value is None:
        return "-"
    if all(v >= UNBOUNDED for _, v in value.items()):
        return "unbounded"
    parts = []
    for name, amount in value.items():
        unit = {"memory-mb": " MB", "vcores": " vc"}.get(name, f" {name}")
        parts.append(("∞" if amount >= UNBOUNDED else str(amount)) + unit)
    return ", ".join(parts)


def _number(value: float | None) -> float | None:
    return None if value is None or math.isinf(value) else value


def _am_share_text(share: float) -> str:
    """``off`` for -1 (``FSLeafQueue.canRunAppAM`` skips the check); any other share as it is
    (another negative one lets no AM run)."""
    return "off" if abs(share + 1.0) < 0.0001 else f"{share:g}"


def _seconds(value: float | None) -> str:
    return "never" if value is None or math.isinf(value) else f"{value:g} s"


def _json_resources_text(value: dict[str, int | None] | None) -> str:
    """:func:`_resources_text` of a :func:`_resources_json` value (None components unbounded)."""
    from corescheduler.resources import UNBOUNDED, Resources

    if value is None:
        return "-"
    return _resources_text(Resources.of({k: UNBOUNDED if v is None else v for k, v in value.items()}))


#: SPEC §9: the keys of a Capacity Scheduler queue in ``queues --json``
CAPACITY_KEYS = (
    "capacity", "maximum_capacity", "absolute_capacity", "absolute_maximum_capacity", "absolute_used_capacity",
    "used_capacity", "user_limit_factor", "minimum_user_limit_percent", "state", "ordering_policy",
)


#: shown in ``queues``' table beyond :data:`CAPACITY_KEYS` (not in ``--json``, whose keys SPEC §9 fixes)
CAPACITY_TABLE_KEYS = ("max_parallel_apps", "user_weights")


def capacity_rows(config: Any, extra: tuple[str, ...] = ()) -> tuple[list[dict[str, Any]], list[str]]:
    """A YARN capacity file's queues (SPEC §9), each ``path`` and :data:`CAPACITY_KEYS` (and
    ``extra`` of the share policy's queue report) as the share policy reports them on the
    configured cluster with nothing running; the warnings."""
    from corescheduler.core.model import Cluster
    from corescheduler.core.scheduler import Scheduler
    from corescheduler.formats.allocation_file import load_allocations

    path = config.allocation_path()
    allocations = load_allocations(path)
    cc = config.cluster
    scheduler = Scheduler(config, Cluster.build(cc.racks, cc.nodes_per_rack, 0, 0), allocations)
    scheduler.update(0.0)
    shares = scheduler.shares()["queues"]
    rows = []
    for _, spec in allocations.queue_config().walk():
        entry = shares.get(spec.name, {})
        row: dict[str, Any] = {"path": spec.name}
        row.update({k: entry.get(k) for k in (*CAPACITY_KEYS, *extra)})
        rows.append(row)
    return rows, list(allocations.warnings)


def capacity_user_notes(config: Any) -> list[str]:
    """The file's per-user settings beyond the tree: ``user.max-parallel-apps`` and
    ``user.<user>.max-parallel-apps`` (``CSMaxRunningAppsEnforcer``'s user limits)."""
    from corescheduler.formats.allocation_file import load_allocations

    conf = getattr(load_allocations(config.allocation_path()), "policy_config", None)
    if conf is None:
        return []
    limits = [f"{user} {n}" for user, n in sorted(conf.user_max_parallel_apps.items())]
    if conf.user_max_parallel_apps_default is not None:
        limits.insert(0, f"every user {conf.user_max_parallel_apps_default}")
    return [f"users' max-parallel-apps: {', '.join(limits)}"] if limits else []


def queue_rows(config: Any) -> dict[str, Any]:
    """The effective settings of every queue (JSON-ready), with steady fair shares."""
    from corescheduler.core.queues import ROOT, steady_fair_shares
    from corescheduler.formats.allocation_file import load_allocations

    path = config.allocation_path()
    allocations = load_allocations(path) if path is not None else None
    queues = allocations.queue_config() if allocations is not None else _empty()
    cluster = config.cluster.total_resources()
    extra = [] if f"{ROOT}.default" in queues.queues else [f"{ROOT}.default"]  # YARN always has root.default
    fallback = config.scheduler.share_policy
    if config.scheduler.mode == "resources":
        # the scheduler itself, with the configured policies' own maths (capacity, third-party)
        from corescheduler.core.model import Cluster
        from corescheduler.core.scheduler import Scheduler

        cc = config.cluster
        scheduler = Scheduler(config, Cluster.build(cc.racks, cc.nodes_per_rack, 0, 0), allocations)
        scheduler.update(0.0)
        tree = scheduler.resource_engine.tree  # type: ignore[union-attr]
        steady = {q.name: q.sched.steady_share for q in tree.walk()}
        extra = [q.name for q in tree.walk() if q.name not in queues.queues and q.name != ROOT]
    else:
        steady = steady_fair_shares(queues, cluster, extra)
    rows = []
    names = [s.name for _, s in queues.walk()] + [n for n in extra if n not in queues.queues]
    depth_of = {s.name: d for d, s in queues.walk()}
    for name in names:
        spec = queues.spec(name)
        kind = "reservation" if spec.reservation else ("parent" if spec.is_parent or spec.children else "leaf")
        rows.append(
            {
                "name": name,
                "depth": depth_of.get(name, name.count(".")),
                "type": kind,
                "configured": name in queues.queues,
                "policy": queues.scheduling_policy(name, fallback),
                "weight": queues.weight(name),
                "min_resources": _resources_json(queues.min_resources(name)),
                "max_resources": _resources_json(queues.max_resources(name, cluster)),
                "max_child_resources": _resources_json(
                    spec.max_child_resources.resolve(cluster) if spec.max_child_resources is not None else None
                ),
                "max_container_allocation": _resources_json(queues.max_container_allocation(name)),
                "max_running_apps": queues.max_running_apps(name),
                "max_am_share": None if kind != "leaf" else queues.max_am_share(name),
                "min_share_preemption_timeout": _number(queues.min_share_preemption_timeout(name)),
                "fair_share_preemption_timeout": _number(queues.fair_share_preemption_timeout(name)),
                "fair_share_preemption_threshold": queues.fair_share_preemption_threshold(name),
                "preemptable": queues.preemptable(name),
                "acl_submit_apps": str(queues.acl(name, "submit")),
                "acl_administer_apps": str(queues.acl(name, "administer")),
                "effective_acl_submit_apps": str(queues.effective_acl(name, "submit")),
                "effective_acl_submit_apps_from": _acl_sources(queues, name, "submit"),
                "effective_acl_administer_apps": str(queues.effective_acl(name, "administer")),
                "effective_acl_administer_apps_from": _acl_sources(queues, name, "administer"),
                "steady_fair_share": _resources_json(steady.get(name)),
                "children": list(spec.children),
            }
        )
    placement = None
    if queues.placement is not None:
        placement = [_rule_json(rule) for rule in queues.placement]
    return {
        "source": str(path) if path is not None else None,
        "dialect": allocations.dialect if allocations is not None else None,
        "mode": config.scheduler.mode,
        "cluster": _resources_json(cluster),
        "queues": rows,
        "users": dict(queues.user_max_apps),
        "user_max_apps_default": queues.user_max_apps_default,
        "placement": placement,
        "warnings": [*allocations.warnings, *capacity_file_warnings(config, allocations)]
        if allocations is not None else [],
        "notes": _acl_notes(queues),
    }


def _acl_sources(queues: Any, name: str, kind: str) -> list[dict[str, Any]]:
    """:meth:`QueueConfig.acl_sources` as JSON: ``{"queue", "acl", "configured"}`` each."""
    return [
        {"queue": queue, "acl": str(acl), "configured": configured}
        for queue, acl, configured in queues.acl_sources(name, kind)
    ]


#: how each kind of ACL is written: a fair-scheduler.xml's elements, a capacity-scheduler.xml's keys
FAIR_ACLS = (("submit", "<aclSubmitApps>"), ("administer", "<aclAdministerApps>"))
CAPACITY_ACLS = (("submit", "acl_submit_applications"), ("administer", "acl_administer_queue"))


def _acl_notes(queues: Any, written: tuple[tuple[str, str], ...] = FAIR_ACLS) -> list[str]:
    """A note when a queue's ACL restricts nothing: it is set below root while root's
    own ACL of the kind is YARN's default ``*``, which every queue inherits (the fair
    scheduler's ``FSQueue.hasAccess`` and the Capacity Scheduler's
    ``AbstractCSQueue.hasAccess`` both let in whom any ancestor's ACL lets in)."""
    from corescheduler.core.queues import ROOT

    notes = []
    for kind, element in written:
        acls = [(spec.name, spec.acl_submit_apps if kind == "submit" else spec.acl_administer_apps)
                for _, spec in queues.walk() if spec.name != ROOT]
        # in tree order; an ACL of "*" (Hadoop's shipped capacity-scheduler.xml gives root.default
        # one) lets everybody in by itself: root's default takes nothing from it, so no note
        restricted = [name for name, acl in acls if acl is not None and not acl.all_allowed]
        root = queues.spec(ROOT)
        if restricted and (root.acl_submit_apps if kind == "submit" else root.acl_administer_apps) is None:
            notes.append(
                f"{element} is set on {', '.join(restricted)} but not on root, whose ACL is then YARN's default "
                f"'*': every queue inherits it, so anybody may {'submit to' if kind == 'submit' else 'administer'} "
                f"every queue; set {element} on root (a single space: nobody) to restrict"
            )
    return notes


def _acl_text(acl: str, sources: list[dict[str, Any]], name: str) -> str:
    """``alice (own) + * (inherited from root's default)``: each ACL that lets somebody
    in, and whose it is; "nobody" if none does."""
    if not sources:
        return acl
    parts = []
    for source in sources:
        whose = "own" if source["queue"] == name else f"inherited from {source['queue']}"
        if not source["configured"]:
            whose = "root's default" if source["queue"] == name else f"{whose}'s default"
        parts.append(f"{source['acl']} ({whose})")
    return " + ".join(parts)


def _rule_json(rule: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": rule.name, "create": rule.create, "terminal": rule.terminal}
    if rule.queue is not None:
        out["queue"] = rule.queue
    if rule.parent is not None:
        out["parent"] = _rule_json(rule.parent)
    return out


def _empty() -> Any:
    from corescheduler.core.queues import QueueConfig

    return QueueConfig.empty()


@click.command()
@config_option
@json_option
def queues(config_path: str | None, as_json: bool) -> None:
    """Print the queue tree: every queue's effective settings and steady fair share.

    Settings are after YARN's defaults and inheritance (min/max resources,
    maxRunningApps, maxAMShare, policy, preemption timeouts and threshold,
    ACLs).  An ACL column shows everybody the queue lets in and whose ACL
    does: the queue's own and every ancestor's (YARN's rule), e.g.
    "alice (own) + * (inherited from root's default)" — root's ACL is "*"
    unless set.  The steady fair share divides the configured cluster
    ([cluster] node_resources × nodes) among all queues, active or not.
    An MR1 allocation file shows its pools as leaves under root.

    Under share_policy = "yarn_capacity" the table is the capacity-scheduler.xml's
    instead: each queue's capacity and maximum capacity (of its parent), absolute
    capacity and maximum (of the cluster), used capacity, user-limit-factor,
    minimum-user-limit-percent, state, ordering policy, max-parallel-apps and
    user weights (docs/yarn-capacity.md).
    """
    config = load_config(config_path)
    if config.scheduler.share_policy == "yarn_capacity" and config.allocation_path() is not None:
        _capacity_queues(config, as_json)
        return
    result = queue_rows(config)
    for warning in result["warnings"]:
        click.echo(f"warning: {one_line(warning)}", err=True)
    if as_json:
        print_json(result)
        return
    rows = []
    for q in result["queues"]:
        rows.append(
            [
                "  " * q["depth"] + q["name"].rpartition(".")[2] + ("" if q["configured"] else " (dynamic)"),
                q["type"],
                q["policy"],
                f"{q['weight']:g}",
                _json_resources_text(q["min_resources"]),
                _json_resources_text(q["max_resources"]),
                "∞" if q["max_running_apps"] >= 2**31 - 1 else str(q["max_running_apps"]),
                "-" if q["max_am_share"] is None else _am_share_text(q["max_am_share"]),
                _seconds(q["min_share_preemption_timeout"]),
                _seconds(q["fair_share_preemption_timeout"]),
                f"{q['fair_share_preemption_threshold']:g}",
                "yes" if q["preemptable"] else "no",
                _acl_text(q["effective_acl_submit_apps"], q["effective_acl_submit_apps_from"], q["name"]),
                _acl_text(q["effective_acl_administer_apps"], q["effective_acl_administer_apps_from"], q["name"]),
                _json_resources_text(q["steady_fair_share"]),
            ]
        )
    print_table(
        [
            "queue", "type", "policy", "weight", "min", "max", "max apps", "max AM share", "min-share timeout",
            "fair-share timeout", "threshold", "preemptable", "submit ACL", "admin ACL", "steady share",
        ],
        rows,
        title=f"queues of {result['source'] or 'no allocation file'} on {_json_resources_text(result['cluster'])}",
    )
    if result["placement"]:
        click.echo("placement: " + " → ".join(_rule_text(r) for r in result["placement"]))
    for note in result["notes"]:
        click.echo(f"note: {note}", err=True)


def _capacity_queues(config: Any, as_json: bool) -> None:
    """A capacity file's tree: guaranteed, maximum, absolute and used capacity (SPEC §9)."""
    from corescheduler.formats.allocation_file import load_allocations

    rows, warnings = capacity_rows(config, extra=() if as_json else CAPACITY_TABLE_KEYS)
    for warning in warnings:
        click.echo(f"warning: {one_line(warning)}", err=True)
    if as_json:
        print_json(rows)
        return

    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value * 100:.1f}%"

    parents = {r["path"].rpartition(".")[0] for r in rows}
    table = []
    for r in rows:
        depth = r["path"].count(".")
        leaf = r["path"] not in parents  # the user limit is a leaf's (LeafQueue): a parent shows none
        table.append([
            "  " * depth + r["path"].rpartition(".")[2], pct(r["capacity"]), pct(r["maximum_capacity"]),
            pct(r["absolute_capacity"]), pct(r["absolute_maximum_capacity"]), pct(r["used_capacity"]),
            f"{r['user_limit_factor']:g}" if leaf else "-",
            f"{r['minimum_user_limit_percent']:g}" if leaf else "-", str(r["state"]),
            str(r["ordering_policy"]),
            "∞" if r.get("max_parallel_apps") is None else str(r["max_parallel_apps"]),
            ", ".join(f"{u}={w:g}" for u, w in sorted((r.get("user_weights") or {}).items())) or "-",
        ])
    print_table(["queue", "capacity", "max capacity", "absolute", "absolute max", "used", "user-limit-factor",
                 "min user limit %", "state", "ordering", "max parallel apps", "user weights"], table,
                title=f"capacity queues of {config.allocation_path()} on "
                      f"{_resources_text(config.cluster.total_resources())}")
    for note in capacity_user_notes(config):
        click.echo(note)
    for note in _acl_notes(load_allocations(config.allocation_path()).queue_config(), CAPACITY_ACLS):
        click.echo(f"note: {note}", err=True)


def _rule_text(rule: dict[str, Any]) -> str:
    text = rule["name"]
    if rule.get("queue"):
        text += f"({rule['queue']})"
    if not rule["create"]:
        text += "[no create]"
    if rule.get("parent"):
        text += f"<{_rule_text(rule['parent'])}>"
    return text
