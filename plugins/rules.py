"""``rules``: a PoolResolver that places jobs by an ordered chain of rules.

YARN Fair Scheduler queue placement (``QueuePlacementPolicy`` and
``QueuePlacementRule``, the allocation file's ``<queuePlacementPolicy>``):
the rules are tried in order; each either names a pool, rejects the job, or
passes it to the next rule.  The rules (YARN's XML names in brackets):

* ``specified`` — the pool the job asked for (``JobSpec.pool``), unless it
  asked for none or for ``"default"`` (then it passes).
* ``user`` — a pool named after the submitting user.
* ``primary_group`` [``primaryGroup``] — a pool named after the user's first
  group.
* ``secondary_group_existing`` [``secondaryGroupExistingQueue``] — the first
  of the user's other groups that is a declared pool.
* ``default`` — the pool ``queue`` (default ``"default"``).
* ``reject`` — reject the job.

``create = false`` (default ``true``) makes a rule apply only when the pool
it names is declared in the allocation file (``allocations.pool_names()``,
which always includes ``default``); otherwise the job passes on.

A rule is *terminal* when it never passes a job on (YARN ``isTerminal``):
``default``, ``reject``, and ``user`` / ``primary_group`` with
``create = true``.  The last rule must be terminal and no other may be, or
the config is rejected.

Pool names are flat: a leading ``"root."`` is stripped from a requested pool
and from ``default``'s ``queue``, and, as YARN's ``cleanName`` does, dots in
user and group names become ``"_dot_"``.

**Resource mode** (``[scheduler] mode = "resources"``) follows YARN trunk
(``placement/*PlacementRule``, ``QueuePlacementPolicy``): the allocation
file's ``<queuePlacementPolicy>`` is used when it has one, else these rules,
else YARN's default (``specified`` then ``user`` with
``user_as_default_queue``, ``default`` otherwise or without
``allow_undeclared_pools``); names are full queue names (``a.b`` →
``root.a.b``, dots in a requested name are levels); ``nestedUserQueue``
puts the user under the queue its parent rule names (unless that is a leaf);
``secondaryGroupExistingQueue`` tries every group, the primary one first, as
trunk does; ``primaryGroup`` without groups and a requested name with
surrounding white space or dots reject the app, with YARN's message; an app
no rule places is rejected.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from attrs import frozen

from corescheduler.core.model import JobSpec, Rejection
from corescheduler.core.queues import ROOT, PlacementRuleSpec, QueueConfig, default_placement, full_queue_name
from corescheduler.hookspecs import hookimpl
from corescheduler.settings import Settings

if TYPE_CHECKING:
    from corescheduler.core.allocations import Allocations

ROOT_PREFIX = "root."
DEFAULT_POOL = "default"

SPECIFIED = "specified"
USER = "user"
PRIMARY_GROUP = "primary_group"
SECONDARY_GROUP_EXISTING = "secondary_group_existing"
DEFAULT = "default"
REJECT = "reject"
RULE_NAMES: tuple[str, ...] = (SPECIFIED, USER, PRIMARY_GROUP, SECONDARY_GROUP_EXISTING, DEFAULT, REJECT)
#: YARN's XML rule names, accepted as aliases.
YARN_ALIASES: dict[str, str] = {
    "primaryGroup": PRIMARY_GROUP,
    "secondaryGroupExistingQueue": SECONDARY_GROUP_EXISTING,
}
#: YARN's default policy (``yarn.scheduler.fair.user-as-default-queue`` and
#: ``allow-undeclared-pools`` both true): the requested queue, else the user's.
DEFAULT_RULES: tuple[dict[str, Any], ...] = ({"name": SPECIFIED}, {"name": USER})
_RULE_KEYS = ("name", "create", "queue")


def flat_name(name: str) -> str:
    """A configured or requested pool name without a leading ``"root."``."""
    return name[len(ROOT_PREFIX) :] if name.startswith(ROOT_PREFIX) else name


def clean_name(name: str) -> str:
    """A user or group name usable as a pool name (YARN ``cleanName``: ``.`` → ``_dot_``)."""
    return name.replace(".", "_dot_")


def yarn_clean_name(name: str) -> str:
    """Resource mode: ``FairQueuePlacementUtils.cleanName`` — the name trimmed first
    (``FairSchedulerUtilities.trimQueueName``: "  user1" → "user1"), then ``.`` → ``_dot_``."""
    return clean_name(name.strip())


@frozen
class Rule:
    """One rule of the chain; ``index`` is its position in ``rules``."""

    name: str
    index: int
    create: bool = True
    queue: str = DEFAULT_POOL  # the ``default`` rule's pool

    @property
    def label(self) -> str:
        return f"rules[{self.index}] {self.name!r}"

    @property
    def terminal(self) -> bool:
        """Never passes a job on (YARN ``QueuePlacementRule.isTerminal``)."""
        if self.name in (DEFAULT, REJECT):
            return True
        if self.name in (USER, PRIMARY_GROUP):
            return self.create
        return False

    def candidate(
        self, requested: str | None, user: str | None, groups: Sequence[str], existing: frozenset[str]
    ) -> str | None:
        """The pool this rule names (YARN ``getQueueForApp``), ``None`` to pass."""
        if self.name == SPECIFIED:
            if not requested or requested == DEFAULT_POOL:
                return None
            return flat_name(requested) or None
        if self.name == USER:
            return clean_name(user) if user else None
        if self.name == PRIMARY_GROUP:
            return clean_name(groups[0]) if groups else None
        if self.name == SECONDARY_GROUP_EXISTING:
            for group in groups[1:]:
                name = clean_name(group)
                if name in existing:
                    return name
            return None
        return self.queue  # default

    def apply(
        self, requested: str | None, user: str | None, groups: Sequence[str], existing: frozenset[str]
    ) -> str | Rejection | None:
        """A pool, a rejection, or ``None`` to pass (YARN ``assignAppToQueue``)."""
        if self.name == REJECT:
            return Rejection(f"[plugins.rules] {self.label}: no earlier rule placed the job")
        pool = self.candidate(requested, user, groups, existing)
        if pool is None:
            return None
        if self.create or pool in existing:
            return pool
        if self.name == DEFAULT:  # terminal, yet its pool does not exist (YARN: IllegalStateException)
            return Rejection(
                f"[plugins.rules] {self.label}: pool {pool!r} is not declared in the allocation file and create = false"
            )
        return None


def place(
    rules: Iterable[Rule], requested: str | None, user: str | None, groups: Sequence[str], existing: Iterable[str]
) -> str | Rejection:
    """Run the chain: the first pool or rejection a rule gives
    (YARN ``QueuePlacementPolicy.assignAppToQueue``)."""
    known = frozenset(existing)
    for rule in rules:
        answer = rule.apply(requested, user, groups, known)
        if answer is not None:
            return answer
    return Rejection(f"[plugins.rules]: no rule placed the job (user {user!r}, requested pool {requested!r})")


def _read_rule(s: Settings, index: int, entry: Any) -> Rule | None:
    key = f"rules[{index}]"
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, Mapping):
        s.problem(key, f'expected a rule table such as {{name = "user", create = false}}, got {entry!r}')
        return None
    bad = False
    unknown = [k for k in entry if k not in _RULE_KEYS]
    if unknown:
        s.problem(key, f"unknown key {unknown[0]!r}; a rule has name, create and (default only) queue")
        bad = True
    name = entry.get("name")
    name = YARN_ALIASES.get(name, name) if isinstance(name, str) else name
    if name not in RULE_NAMES:
        got = "no name" if name is None else repr(entry.get("name"))
        s.problem(key, f"unknown rule {got}; expected one of {', '.join(RULE_NAMES)}")
        return None
    create = entry.get("create", True)
    if not isinstance(create, bool):
        s.problem(key, f"create: expected true or false, got {create!r}")
        bad = True
    queue = DEFAULT_POOL
    if "queue" in entry:
        raw = entry["queue"]
        if name != DEFAULT:
            s.problem(key, f"queue: only the 'default' rule takes a queue (this is {name!r})")
            bad = True
        elif not isinstance(raw, str) or not flat_name(raw.strip()):
            s.problem(key, f"queue: expected a pool name, got {raw!r}")
            bad = True
        else:
            queue = flat_name(raw.strip())
    return None if bad else Rule(name=name, index=index, create=create, queue=queue)


def _check_chain(s: Settings, rules: Sequence[Rule]) -> None:
    for rule in rules[:-1]:
        if rule.terminal:
            s.problem(
                f"rules[{rule.index}]",
                f"rule {rule.name!r} always decides, so the rules after it can never be reached; "
                "only the last rule may be default, reject, or user/primary_group with create = true",
            )
    last = rules[-1]
    if not last.terminal:
        how = f"{last.name!r} with create = false" if last.name in (USER, PRIMARY_GROUP) else repr(last.name)
        s.problem(
            f"rules[{last.index}]",
            f"the last rule, {how}, may pass a job on with no rule left; end the chain with default, "
            "reject, or user/primary_group with create = true",
        )


def _read_groups(s: Settings) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for user, value in s.table_("groups").items():
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(g, str) and g for g in value):
            s.problem(f"groups.{user}", f"expected a list of group names (primary first), got {value!r}")
            continue
        out[str(user)] = tuple(value)
    return out


# --------------------------------------------------------------------------- resource mode: YARN trunk


def _as_spec(rule: Rule) -> PlacementRuleSpec:
    yarn = {PRIMARY_GROUP: "primaryGroup", SECONDARY_GROUP_EXISTING: "secondaryGroupExistingQueue"}
    return PlacementRuleSpec(yarn.get(rule.name, rule.name), create=rule.create,
                             queue=rule.queue if rule.name == DEFAULT else None)


def _valid(name: str) -> bool:
    """``FairQueuePlacementUtils.isValidQueueName``: no surrounding white space or dots."""
    return bool(name) and name == name.strip() and not name.startswith(".") and not name.endswith(".")


class _Placement:
    """One placement of an app by YARN trunk's rules (``placement/*PlacementRule``)."""

    def __init__(
        self, requested: str | None, user: str | None, groups: Sequence[str], queues: QueueConfig,
        live: Mapping[str, str] | None = None,
    ) -> None:
        self.requested = requested or "default"  # the RM fills in "default" when none was asked for
        self.user = user or "default"  # YARN always has a user; SLS's default user name
        self.groups = tuple(groups)
        self.queues = queues
        self.live = live or {}
    def _configured(self, name: str) -> bool:
        """Configured in the allocation file (``root.default`` always is: YARN creates it)."""
        return name in self.queues.queues or name == f"{ROOT}.default"

    def _is_leaf(self, name: str) -> bool:
        """An existing leaf (configured, or created at run time: YARN's ``FSLeafQueue``)."""
        if self.live.get(name) == "leaf":
            return True
        spec = self.queues.queues.get(name)
        return (spec is not None and spec.is_leaf and not spec.children) or name == f"{ROOT}.default"

    def _parent(self, rule: PlacementRuleSpec) -> str | Rejection | None:
        """The parent rule's queue; None (pass) if none or it is a leaf."""
        assert rule.parent is not None
        answer = self.apply(rule.parent)
        if answer is None or isinstance(answer, Rejection):
            return answer
        return None if self._is_leaf(answer) else answer

    def apply(self, rule: PlacementRuleSpec) -> str | Rejection | None:
        name = rule.name
        if name == "reject":
            return Rejection("rejected by the queue placement policy's reject rule")
        if name == "specified":
            q = self.requested
            if not _valid(q):
                return Rejection(f"Application submitted by user {self.user} with illegal queue name '{q}'.")
            if q == "default":
                return None
            q = full_queue_name(q)
            return q if rule.create or self._configured(q) else None
        if name == "default":
            q = rule.queue or f"{ROOT}.default"
            q = full_queue_name(q) if _valid(q) else f"{ROOT}.default"
            return q if rule.create or self._configured(q) else None
        if name in ("user", "nestedUserQueue", "primaryGroup"):
            if name == "primaryGroup":
                if not self.groups:
                    return Rejection(f"No groups returned for user {self.user}")
                leaf = yarn_clean_name(self.groups[0])
            else:
                if not self.user:
                    return None
                leaf = yarn_clean_name(self.user)
            if rule.parent is not None:
                parent = self._parent(rule)
                if parent is None or isinstance(parent, Rejection):
                    return parent
                q = f"{parent}.{leaf}"
            else:
                # a name of blanks cleans to "": assureRoot keeps it, QueueManager.getLeafQueue
                # reads "root." and finds no valid node name (the app is rejected downstream)
                q = full_queue_name(leaf) if leaf else f"{ROOT}."
            return q if rule.create or self._configured(q) else None
        if name == "secondaryGroupExistingQueue":
            parent = None
            if rule.parent is not None:
                found = self._parent(rule)
                if found is None or isinstance(found, Rejection):
                    return found
                parent = found
            for group in self.groups:  # trunk: the primary group too
                g = yarn_clean_name(group)
                q = f"{parent}.{g}" if parent else full_queue_name(g)
                if self._configured(q):
                    return q
            return None
        return None


def place_queue(
    rules: Sequence[PlacementRuleSpec], requested: str | None, user: str | None, groups: Sequence[str],
    queues: QueueConfig, live: Mapping[str, str] | None = None,
) -> str | Rejection:
    """Resource mode: the first queue (full name) or rejection a rule gives
    (``PlacementManager.placeApplication``); none → rejected, as YARN's
    ``FairScheduler.addApplication``."""
    if requested == "":
        # FairScheduler.addApplication (Hadoop 2.x-3.2; 3.3 refuses it too, the queue
        # manager finding no valid node name in "root."): an empty queue name is refused
        return Rejection(f"Reject application submitted by user {user or 'default'} with an empty queue name.")
    placement = _Placement(requested, user, groups, queues, live)
    for rule in rules:
        answer = placement.apply(rule)
        if answer is not None:
            return answer
    return Rejection("application rejected by placement rules")


class PlacementRules:
    """Place each job by the first rule of the chain that decides."""

    def __init__(self, settings: Mapping[str, Any], context: Any = None) -> None:
        config = getattr(context, "config", None)
        sched = getattr(config, "scheduler", None)
        self.resource_mode = getattr(sched, "mode", "slots") == "resources"
        s = Settings(settings, plugin="rules")
        self.configured_rules = "rules" in s.table
        default_rules: list[Any] = list(DEFAULT_RULES)
        if self.resource_mode and sched is not None:
            default_rules = [
                {"name": r.name if r.name not in ("primaryGroup",) else PRIMARY_GROUP, "create": r.create}
                | ({"queue": r.queue} if r.queue else {})
                for r in default_placement(sched.user_as_default_queue, sched.allow_undeclared_pools)
            ]
        raw = s.table.get("rules", default_rules)
        s.ignore("rules")
        rules: list[Rule] = []
        if not isinstance(raw, list) or not raw:
            s.problem("rules", f"expected a non-empty list of rules, got {raw!r}")
        else:
            read = [_read_rule(s, i, entry) for i, entry in enumerate(raw)]
            if all(r is not None for r in read):
                rules = [r for r in read if r is not None]
                _check_chain(s, rules)
        self.groups = _read_groups(s)
        s.finish()
        self.rules: tuple[Rule, ...] = tuple(rules)

    def groups_of(self, job: JobSpec) -> tuple[str, ...]:
        """The submitter's groups (primary first): the job's own, else the ``groups`` table's."""
        if job.groups:
            return tuple(job.groups)
        return self.groups.get(job.user, ()) if job.user else ()

    @hookimpl
    def cs_resolve_pool(self, job: JobSpec, allocations: Allocations, queues: Mapping[str, str]) -> str | Rejection:
        if self.resource_mode:
            config = allocations.queue_config()
            rules = config.placement  # the allocation file's <queuePlacementPolicy> comes first
            if rules is None:
                rules = tuple(_as_spec(r) for r in self.rules)
            return place_queue(rules, job.pool, job.user, self.groups_of(job), config, queues)
        return place(self.rules, job.pool, job.user, self.groups_of(job), allocations.pool_names())
