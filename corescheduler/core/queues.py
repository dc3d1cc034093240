"""Queues as a tree: what a YARN allocation file says about them.

YARN's Fair Scheduler ``AllocationConfiguration`` as frozen values: every
configured queue (:class:`QueueSpec`, full names under ``root``), per-user
running-app limits, the file-wide defaults, the ACLs
(:class:`AccessControlList`) and the queue placement policy
(:class:`PlacementRuleSpec`), with the lookups the scheduler makes — each
property's *effective* value after YARN's defaults and inheritance
(``AllocationConfiguration`` getters, ``FSQueue.updatePreemptionVariables``,
``FSQueue.isPreemptable``, ``FSLeafQueue.getMaximumContainerAllocation``,
``ConfiguredYarnAuthorizer.checkPermission``).  Reading the XML is the
format layer's job (:mod:`corescheduler.formats.allocation_file`).

What inherits (YARN trunk): the preemption timeouts and threshold (a queue
without its own takes its parent's; root takes the file's ``default…``
values), ``allowPreemptionFrom = false`` (a child cannot re-enable it),
``maxContainerAllocation``, and ACLs (a user allowed on any ancestor is
allowed).  What does not: weight, min/max resources, ``maxRunningApps``,
``maxAMShare`` and the scheduling policy fall back to the file-wide
defaults, not to the parent.  ``maxChildResources`` is the max resources of
the queues created at run time directly under that parent.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence

import attrs

from corescheduler.core.javamath import java_trim
from corescheduler.core.resources import ConfigurableResources, Resources

__all__ = [
    "INT_MAX",
    "PLACEMENT_RULES",
    "ROOT",
    "AccessControlList",
    "PlacementRuleSpec",
    "QueueConfig",
    "QueueSpec",
    "full_queue_name",
    "trim_queue_name",
]

ROOT = "root"
#: ``Integer.MAX_VALUE``: YARN's "no limit" on running apps.
INT_MAX = 2**31 - 1
INF = math.inf
#: YARN's placement rule names (``QueuePlacementPolicy``'s rule table), and
#: when each is terminal: always, never, or when it may create its queue.
PLACEMENT_RULES: dict[str, str] = {
    "specified": "never",
    "user": "create",
    "primaryGroup": "create",
    "secondaryGroupExistingQueue": "never",
    "nestedUserQueue": "create",
    "default": "create",
    "reject": "always",
}


def full_queue_name(name: str) -> str:
    """``root.``-prefixed (``FairQueuePlacementUtils.assureRoot``): ``a.b`` → ``root.a.b``."""
    if not name or name == ROOT or name.startswith(ROOT + "."):
        return name
    return f"{ROOT}.{name}"


def parent_name(name: str) -> str | None:
    """``root.a.b`` → ``root.a``; ``root`` → None."""
    head, dot, _ = name.rpartition(".")
    return head if dot else None


# --------------------------------------------------------------------------- ACLs


#: ``FairSchedulerUtilities.trimQueueName``'s white space (Guava's ``CharMatcher.whitespace``)
QUEUE_NAME_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def trim_queue_name(name: str) -> str:
    """``FairSchedulerUtilities.trimQueueName``."""
    return name.strip(QUEUE_NAME_WHITESPACE)


@attrs.frozen
class AccessControlList:
    """A Hadoop ``AccessControlList``: ``"user1,user2 group1,group2"``.

    The text splits at its first space into users and groups, each a comma
    list; ``*`` (as either part) allows everybody and ``" "`` nobody.  As in
    Hadoop the allocation file's text is not trimmed first, so a leading space
    makes the names that follow *groups*.
    """

    text: str
    all_allowed: bool = False
    users: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, text: str) -> AccessControlList:
        """Hadoop ``AccessControlList(String)``."""
        parts = text.split(" ", 1)
        if any(java_trim(p) == "*" for p in parts):
            return cls(text, all_allowed=True)

        def names(part: str) -> frozenset[str]:
            return frozenset(java_trim(n) for n in part.split(",") if java_trim(n))

        return cls(text, users=names(parts[0]), groups=names(parts[1]) if len(parts) > 1 else frozenset())

    def allows(self, user: str | None, groups: Iterable[str] = ()) -> bool:
        """``isUserAllowed``: everybody, or the user, or one of their groups is listed."""
        if self.all_allowed:
            return True
        if user is not None and user in self.users:
            return True
        return any(g in self.groups for g in groups)

    def __str__(self) -> str:
        if self.all_allowed:
            return "*"
        if not self.users and not self.groups:
            return "nobody"
        users = ",".join(sorted(self.users))
        return f"{users} {','.join(sorted(self.groups))}" if self.groups else users  # Hadoop's getAclString


EVERYBODY = AccessControlList("*", all_allowed=True)
NOBODY = AccessControlList(" ")


# --------------------------------------------------------------------------- placement


@attrs.frozen
class PlacementRuleSpec:
    """One ``<rule>`` of ``<queuePlacementPolicy>``: its YARN name, ``create``
    (default true), ``queue`` (the ``default`` rule's queue), and the nested
    rule that chooses the parent queue (``nestedUserQueue``, or ``user`` /
    ``primaryGroup`` / ``secondaryGroupExistingQueue`` with a parent rule)."""

    name: str
    create: bool = True
    queue: str | None = None
    parent: PlacementRuleSpec | None = None
    line: int | None = None

    @property
    def terminal(self) -> bool:
        """YARN ``getTerminal``: never passes an app on; with a parent rule, both must be terminal."""
        kind = PLACEMENT_RULES.get(self.name, "never")
        own = kind == "always" or (kind == "create" and self.create)
        return own and (self.parent is None or self.parent.terminal)


def default_placement(user_as_default_queue: bool = True, allow_undeclared_pools: bool = True) -> tuple[
    PlacementRuleSpec, ...
]:
    """The policy without ``<queuePlacementPolicy>`` (``QueuePlacementPolicy.fromConfiguration``):
    ``specified``, then ``user`` if ``user-as-default-queue``, then ``default`` (which
    creates ``root.default``) unless both settings are true."""
    create = allow_undeclared_pools
    rules = [PlacementRuleSpec("specified", create=create)]
    if user_as_default_queue:
        rules.append(PlacementRuleSpec("user", create=create))
    if not user_as_default_queue or not create:
        rules.append(PlacementRuleSpec("default", create=True, queue=f"{ROOT}.default"))
    return tuple(rules)


# --------------------------------------------------------------------------- queues


@attrs.frozen
class QueueSpec:
    """One configured ``<queue>`` (or ``<pool>``), by full name (``root.a.b``).

    ``None`` means "not given": the file-wide default, or (timeouts,
    threshold, ``allow_preemption_from``, ``max_container_allocation``,
    ACLs) the parent's effective value — see :class:`QueueConfig`.  Times
    are seconds.
    """

    name: str
    is_parent: bool = False
    children: tuple[str, ...] = ()
    min_resources: Resources | None = None
    max_resources: ConfigurableResources | None = None
    max_child_resources: ConfigurableResources | None = None
    max_container_allocation: Resources | None = None
    max_running_apps: int | None = None
    max_am_share: float | None = None
    weight: float | None = None
    scheduling_policy: str | None = None
    allow_preemption_from: bool | None = None
    min_share_preemption_timeout: float | None = None
    fair_share_preemption_timeout: float | None = None
    fair_share_preemption_threshold: float | None = None
    acl_submit_apps: AccessControlList | None = None
    acl_administer_apps: AccessControlList | None = None
    reservation: bool = False
    line: int | None = None

    @property
    def short_name(self) -> str:
        return self.name.rpartition(".")[2]

    @property
    def is_leaf(self) -> bool:
        """A configured leaf: no child queues, no ``type="parent"``, not a reservation (plan) queue."""
        return not self.is_parent and not self.reservation


@attrs.frozen
class QueueConfig:
    """The queue tree of one allocation file (YARN ``AllocationConfiguration``).

    ``queues`` holds every configured queue by full name, ``root`` included
    (it is always there, configured or not).  Defaults are YARN's:
    ``Integer.MAX_VALUE`` apps, unbounded max resources, ``maxAMShare`` 0.5,
    preemption timeouts never (``math.inf``), threshold 0.5, policy ``fair``.
    ``placement`` is ``None`` when the file has no ``<queuePlacementPolicy>``
    (then the PoolResolver's own configuration, or YARN's default, decides).
    """

    queues: Mapping[str, QueueSpec] = attrs.field(converter=dict)
    user_max_apps: Mapping[str, int] = attrs.field(factory=dict, converter=dict)
    user_max_apps_default: int = INT_MAX
    queue_max_apps_default: int = INT_MAX
    queue_max_resources_default: ConfigurableResources | None = None
    queue_max_am_share_default: float = 0.5
    default_min_share_preemption_timeout: float = INF
    default_fair_share_preemption_timeout: float = INF
    default_fair_share_preemption_threshold: float = 0.5
    default_queue_scheduling_policy: str = "fair"
    placement: tuple[PlacementRuleSpec, ...] | None = None
    #: whether the file set ``defaultQueueSchedulingPolicy`` (else a queue without its own
    #: policy follows the scheduler's ``share_policy``, see :meth:`scheduling_policy`)
    default_policy_given: bool = False

    def __attrs_post_init__(self) -> None:
        if ROOT not in self.queues:
            children = tuple(n for n in self.queues if parent_name(n) == ROOT)
            self.queues[ROOT] = QueueSpec(ROOT, is_parent=True, children=children)  # type: ignore[index]

    # ------------------------------------------------------------------ the tree
    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and full_queue_name(name) in self.queues

    def spec(self, name: str) -> QueueSpec:
        """The configured spec of ``name`` (full or short), or an all-defaults one for
        a queue the file does not declare (created at run time)."""
        full = full_queue_name(name)
        spec = self.queues.get(full)
        return spec if spec is not None else QueueSpec(full)

    def children(self, name: str) -> tuple[str, ...]:
        return self.spec(name).children

    def walk(self, name: str = ROOT) -> Iterator[tuple[int, QueueSpec]]:
        """``(depth, spec)`` of ``name`` and every configured queue below it, depth first in file order."""
        stack = [(0, full_queue_name(name))]
        while stack:
            depth, current = stack.pop()
            spec = self.spec(current)
            yield depth, spec
            stack.extend((depth + 1, c) for c in reversed(spec.children))

    def leaves(self) -> list[str]:
        """The configured leaf queues, in tree order."""
        return [s.name for _, s in self.walk() if s.name != ROOT and s.is_leaf and not s.children]

    def is_configured_parent(self, name: str) -> bool:
        spec = self.queues.get(full_queue_name(name))
        return spec is not None and (spec.is_parent or spec.reservation or bool(spec.children))

    def ancestors(self, name: str) -> list[str]:
        """``root.a.b`` → ``["root.a", "root"]``."""
        out = []
        current = parent_name(full_queue_name(name))
        while current is not None:
            out.append(current)
            current = parent_name(current)
        return out

    # ------------------------------------------------------------------ effective values
    def weight(self, name: str) -> float:
        weight = self.spec(name).weight
        return 1.0 if weight is None else weight

    def min_resources(self, name: str) -> Resources:
        value = self.spec(name).min_resources
        return Resources.none() if value is None else value

    def max_resources(self, name: str, cluster: Resources | None = None) -> Resources:
        """``maxResources``, else the parent's ``maxChildResources`` for a queue the file does
        not declare, else ``queueMaxResourcesDefault``, else unbounded; percentages of ``cluster``."""
        full = full_queue_name(name)
        value = self.spec(full).max_resources
        if value is None and full not in self.queues:
            parent = parent_name(full)
            if parent is not None:
                value = self.spec(parent).max_child_resources
        if value is None:
            value = self.queue_max_resources_default
        if value is None:
            return Resources.unbounded(cluster.names if cluster is not None else ())
        return value.resolve(cluster)

    def max_running_apps(self, name: str) -> int:
        value = self.spec(name).max_running_apps
        return self.queue_max_apps_default if value is None else value

    def user_max_running_apps(self, user: str) -> int:
        return self.user_max_apps.get(user, self.user_max_apps_default)

    def max_am_share(self, name: str) -> float:
        """``maxAMShare`` (−1: no limit), else ``queueMaxAMShareDefault``."""
        value = self.spec(name).max_am_share
        return self.queue_max_am_share_default if value is None else value

    def scheduling_policy(self, name: str, fallback: str | None = None) -> str:
        """The queue's ``schedulingPolicy``, else ``defaultQueueSchedulingPolicy`` (not the
        parent's); when the file sets neither, ``fallback`` if given (the scheduler's
        ``share_policy``: ``capacity`` runs capacity queues), else ``fair``."""
        value = self.spec(name).scheduling_policy
        if value is not None:
            return value
        if fallback is not None and not self.default_policy_given:
            return fallback
        return self.default_queue_scheduling_policy

    def _inherited(self, name: str, attr: str, root_default: float) -> float:
        for current in (full_queue_name(name), *self.ancestors(name)):
            value = getattr(self.spec(current), attr)
            if value is not None:
                return value
        return root_default

    def min_share_preemption_timeout(self, name: str) -> float:
        """Seconds below min share before preempting; inherited (``FSQueue.updatePreemptionVariables``)."""
        return self._inherited(name, "min_share_preemption_timeout", self.default_min_share_preemption_timeout)

    def fair_share_preemption_timeout(self, name: str) -> float:
        return self._inherited(name, "fair_share_preemption_timeout", self.default_fair_share_preemption_timeout)

    def fair_share_preemption_threshold(self, name: str) -> float:
        return self._inherited(
            name, "fair_share_preemption_threshold", self.default_fair_share_preemption_threshold
        )

    def preemptable(self, name: str) -> bool:
        """``allowPreemptionFrom``: false on the queue or any ancestor makes it non-preemptable."""
        return all(
            self.spec(q).allow_preemption_from is not False for q in (full_queue_name(name), *self.ancestors(name))
        )

    def max_container_allocation(self, name: str) -> Resources | None:
        """The largest container the queue grants; inherited; None = the scheduler's maximum."""
        for current in (full_queue_name(name), *self.ancestors(name)):
            value = self.spec(current).max_container_allocation
            if value is not None:
                return value
        return None

    def acl(self, name: str, kind: str) -> AccessControlList:
        """The queue's own ACL of ``kind`` (``"submit"`` or ``"administer"``): as configured,
        else everybody for ``root`` and nobody for any other queue (YARN's defaults)."""
        spec = self.spec(name)
        value = spec.acl_submit_apps if kind == "submit" else spec.acl_administer_apps
        if value is not None:
            return value
        return EVERYBODY if spec.name == ROOT else NOBODY

    def has_access(self, name: str, kind: str, user: str | None, groups: Sequence[str] = ()) -> bool:
        """``ConfiguredYarnAuthorizer.checkPermission``: the queue or any ancestor allows the user."""
        return any(self.acl(q, kind).allows(user, groups) for q in (full_queue_name(name), *self.ancestors(name)))

    def can_submit(self, name: str, user: str | None, groups: Sequence[str] = ()) -> bool:
        """``FairScheduler.addApplication``: submit *or* administer access (admin implies submit)."""
        return self.has_access(name, "submit", user, groups) or self.has_access(name, "administer", user, groups)

    def acl_sources(self, name: str, kind: str) -> list[tuple[str, AccessControlList, bool]]:
        """Where the queue's effective ACL of ``kind`` comes from: ``(queue, acl, configured)``
        for the queue and each ancestor, nearest first, whose ACL lets somebody in
        (``configured`` is False for root's default ``*``).

        YARN's ancestor rule, as :meth:`has_access` applies it: Hadoop 2.x
        ``FSQueue.hasAccess`` → ``AllocationConfiguration.hasAccess`` tries the queue's
        name and each shorter prefix (``root.a.b``, ``root.a``, ``root``) and allows the
        user if any one's ``getQueueAcl`` does; ``getQueueAcl`` of a queue without the
        ACL is ``EVERYBODY_ACL`` (``*``) for root and ``NOBODY_ACL`` (``" "``) for the
        others — so unless root's ACL is set, everybody may use every queue.  (Hadoop 3's
        ``ConfiguredYarnAuthorizer.checkPermission`` walks the parents the same way.)"""
        out = []
        for queue in (full_queue_name(name), *self.ancestors(name)):
            acl = self.acl(queue, kind)
            if acl.all_allowed or acl.users or acl.groups:
                spec = self.spec(queue)
                own = spec.acl_submit_apps if kind == "submit" else spec.acl_administer_apps
                out.append((queue, acl, own is not None))
        return out

    def effective_acl(self, name: str, kind: str) -> AccessControlList:
        """Everybody :meth:`has_access` lets in: the union of :meth:`acl_sources`' ACLs
        (``*`` if one of them is ``*``, nobody if there are none)."""
        sources = [acl for _, acl, _ in self.acl_sources(name, kind)]
        if any(acl.all_allowed for acl in sources):
            return EVERYBODY
        if not sources:
            return NOBODY
        users = frozenset().union(*(acl.users for acl in sources))
        groups = frozenset().union(*(acl.groups for acl in sources))
        union = AccessControlList(" ", users=users, groups=groups)
        return attrs.evolve(union, text=str(union))  # Hadoop's getAclString: "users groups"

    @classmethod
    def empty(cls) -> QueueConfig:
        """Only ``root``; YARN's defaults everywhere (no allocation file)."""
        return cls(queues={})


# --------------------------------------------------------------------------- steady fair shares


def share_types(policy: str, cluster: Resources) -> tuple[str, ...]:
    """The resource types a policy computes shares of: ``fair`` memory only
    (``FairSharePolicy.computeShares``), ``drf`` every type
    (``DominantResourceFairnessPolicy``); ``fifo`` none by fair sharing."""
    if policy == "drf":
        return cluster.names
    if policy == "fifo":
        return ()
    return (cluster.names[0],)


def steady_fair_shares(
    config: QueueConfig, cluster: Resources, extra_queues: Iterable[str] = ()
) -> dict[str, Resources]:
    """Every queue's *steady* fair share: the cluster divided top-down among all
    queues, active or not (``FSParentQueue.recomputeSteadyShares``, the parent's
    policy dividing its own steady share among its children with
    :func:`~corescheduler.core.fairshare.yarn_fair_shares`).

    ``extra_queues``: queues that exist besides the configured ones (created at
    run time; YARN always has ``root.default``).  A child's max share is its
    max resources, raised to its min resources (``FSQueue.getMaxShare``).  A
    type the parent's policy does not compute stays 0 (fair computes memory only).
    """
    from corescheduler.core.fairshare import yarn_fair_shares

    children: dict[str, list[str]] = {name: list(spec.children) for name, spec in config.queues.items()}
    for name in extra_queues:
        full = full_queue_name(name)
        path = [full, *config.ancestors(full)]
        for child, parent in itertools.pairwise(path):
            kids = children.setdefault(parent, [])
            if child not in kids:
                kids.append(child)
    shares = {ROOT: cluster}
    stack = [ROOT]
    while stack:
        parent = stack.pop()
        kids = children.get(parent, [])
        if not kids:
            continue
        total = shares[parent]
        computed = {k: {} for k in kids}  # type: dict[str, dict[str, int]]
        for rtype in share_types(config.scheduling_policy(parent), cluster):
            weights = [config.weight(k) for k in kids]
            mins = [config.min_resources(k).get(rtype) for k in kids]
            maxes = [max(config.max_resources(k, cluster).get(rtype), m) for k, m in zip(kids, mins)]
            for k, share in zip(kids, yarn_fair_shares(weights, mins, maxes, total.get(rtype))):
                computed[k][rtype] = share
        for k in kids:
            values = computed[k]
            shares[k] = Resources.of({n: values.get(n, 0) for n in cluster.names})
            stack.append(k)
    return shares
