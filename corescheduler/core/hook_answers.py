"""What every hook may answer, checked where the answer enters the scheduler.

One layer for both modes (slots and ``[scheduler] mode = "resources"``): each
function here takes the plugin that answered (``who``: extension point, plugin
name and origin, :meth:`PluginSet.who <corescheduler.plugin_manager.PluginSet.who>`),
the answer, and what the caller knows of the question; it returns the answer
as the scheduler uses it or raises one
:class:`~corescheduler.errors.PluginAnswerError` that names the plugin, the
hook, the value and what was expected.

The rules, per hook (docs/hooks.md repeats them for plugin authors):

* a *flag* (``cs_can_assign``, ``cs_can_launch``, ``cs_fits``, ``cs_can_compute``) is ``True``, ``False`` or
  ``None`` (a numpy bool counts); ``"no"``, ``0`` or ``1`` are not;
* the share policy's methods (:class:`~corescheduler.core.policy.SharePolicy`), named
  by method in messages: ``cs_share_policy`` a SharePolicy;
* ``admit_job``: a flag or a :class:`~corescheduler.core.model.Rejection`;
* ``cs_adjust_weight``: ``None`` or a real number (a ``numbers.Real`` or a ``Decimal``;
  not a bool, not a string), finite and ≥ 0;
* ``compute_shares`` / ``compute_shares_many``: a list, tuple or other sequence
  with a length (a numpy array) with one
  share per schedulable (per group): slot mode ``None`` or a finite real ≥ 0,
  resource mode ``None`` or :class:`~corescheduler.resources.Resources` with no
  negative amount;
* ``order_key``: anything but ``None``, not NaN nor a tuple holding a NaN (keys of
  one policy must compare; keys that do not are refused when they are first compared);
* ``next_kind``: ``"map"``, ``"reduce"`` or ``None``;
* ``cs_node_capacity``: ``None`` or a whole number ≥ 0;
* ``cs_select_hint``, ``SharePolicy.preemption_hint``: ``None`` or a
  :class:`~corescheduler.core.hints.Hint` (which checked its own fields);
* ``cs_select_task``: ``None`` or a pending task of the job and kind asked;
* ``cs_resolve_pool``: ``None``, a :class:`Rejection` or a non-empty string without
  control characters or lone surrogates;
* ``cs_known_pools``: ``None`` or a list or tuple of non-empty strings;
* ``plan_preemption``: ``None`` or a :class:`~corescheduler.core.model.PreemptionPlan`
  whose count is a whole number ≥ 0, allowances and needs map pool names to
  numbers, victims None or at most ``count`` running tasks of the kind asked, of this
  scheduler (the very objects), each once;
* ``cs_select_victims``: ``None`` or a list or tuple of at most ``count`` of the
  candidates, each once (the core then keeps to the allowances).

The hot hooks (a heartbeat's and an update's) are tested inline by the core with
``is``/``type() is`` fast paths before anything here is called, so a good answer
costs no extra call; the others come here directly.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, cast

from corescheduler.core.hints import Hint
from corescheduler.core.model import KINDS, PENDING, PreemptionPlan, Rejection, Task
from corescheduler.core.resources import UNBOUNDED, Resources
from corescheduler.errors import PluginAnswerError

#: (extension point, plugin name, origin ``dist[entry]``): the plugin that answered
Who = tuple[str, str, str]

#: the largest finite float: ``0.0 <= x <= MAX_FLOAT`` is "finite and ≥ 0" in one test
MAX_FLOAT = 1.7976931348623157e308

FLAG = "True, False or None"
WEIGHT = "a finite number ≥ 0, or None to keep the weight"
SLOT_SHARES = "a list with one share per schedulable, each a finite number ≥ 0 or None"
RESOURCE_SHARES = ("a list with one share per schedulable, each Resources with amounts from 0 to 2**63-1 "
                   "(a Java long), or None")

_SHOW = 200


def show(value: Any) -> str:
    """``repr(value)``, cut to a readable length (a list of 10⁴ shares, 10**400)."""
    try:
        text = repr(value)
    except Exception as exc:  # a plugin's object whose __repr__ fails
        text = f"<{type(value).__name__} object (repr failed: {type(exc).__name__})>"
    if len(text) > _SHOW:
        text = text[: _SHOW - 1] + "…"
    return text


def refuse(who: Who, hook: str, value: Any, expected: str) -> PluginAnswerError:
    """The error for ``value``, a bad answer of ``hook`` from plugin ``who``."""
    point, name, origin = who
    return PluginAnswerError(point, name, origin, hook, show(value), expected)


def _numpy_bool(value: Any) -> bool:
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__ in ("bool_", "bool")


def _real(value: Any) -> float | None:
    """``value`` as a float if it is a real number (a ``numbers.Real`` or a ``Decimal``;
    not a bool, not a string);
    ±inf for an int too large for a float; None if it is no real number."""
    kind = type(value)
    if kind is float:
        return value  # type: ignore[no-any-return]
    if kind is bool or _numpy_bool(value):
        return None
    if not isinstance(value, numbers.Real):
        if isinstance(value, Decimal):  # not a numbers.Real, but a real number (it worked before)
            return float(value)  # (Decimal("1e400") is inf, Decimal("NaN") nan: refused by the range tests)
        return None
    number: Any = value
    try:
        return float(number)
    except OverflowError:  # an int (or a Fraction) beyond a float's range
        return math.inf if number > 0 else -math.inf


# ------------------------------------------------------------------ flags


def flag(who: Who, hook: str, value: Any) -> bool | None:
    """A yes/no/no-opinion answer: ``True``, ``False`` or ``None``."""
    if value is None or value is True or value is False:
        return value  # type: ignore[no-any-return]
    if _numpy_bool(value):
        return bool(value)
    raise refuse(who, hook, value, FLAG)


def admit(who: Who, value: Any) -> bool | Rejection | None:
    """``admit_job``: a flag or a Rejection."""
    if isinstance(value, Rejection):
        return value
    if value is None or value is True or value is False or _numpy_bool(value):
        return value if value is None else bool(value)
    raise refuse(who, "admit_job", value, "True, False, None or a Rejection")


def next_kind(who: Who, value: Any) -> str:
    """``next_kind`` (not None): ``"map"`` or ``"reduce"``."""
    if type(value) is str and value in KINDS:
        return value
    if isinstance(value, str) and str(value) in KINDS:
        return str(value)
    raise refuse(who, "next_kind", value, "'map', 'reduce' or None")


# ------------------------------------------------------------------ numbers


def weight(who: Who, value: Any) -> float:
    """``cs_adjust_weight`` (not None): a finite real ≥ 0, as a float."""
    number = _real(value)
    if number is None or not 0.0 <= number <= MAX_FLOAT:
        raise refuse(who, "cs_adjust_weight", value, WEIGHT)
    return number


def node_capacity(who: Who, value: Any) -> int:
    """``cs_node_capacity`` (not None): a whole number ≥ 0."""
    number = _real(value)
    if number is None or not 0.0 <= number <= MAX_FLOAT or number != int(number):
        raise refuse(who, "cs_node_capacity", value, "a whole number of tasks ≥ 0, or None for the node's slots")
    return int(value) if isinstance(value, numbers.Integral) else int(number)


def hint(who: Who, hook: str, value: Any) -> Hint:
    """``cs_select_hint`` / ``SharePolicy.preemption_hint`` (not None): a :class:`Hint`."""
    if isinstance(value, Hint):
        return value
    raise refuse(who, hook, value, "None or a corescheduler.core.hints.Hint")


# ------------------------------------------------------------------ shares


def _sequence(value: Any) -> bool:
    """A list or tuple, or another sequence with a length (a numpy array): not a string,
    bytes or a mapping."""
    if isinstance(value, (list, tuple)):
        return True
    if isinstance(value, (str, bytes, bytearray, Mapping)):
        return False
    try:
        len(value)
    except Exception:  # no len (an int, a generator), or a 0-d array's TypeError
        return False
    return hasattr(value, "__getitem__") and hasattr(value, "__iter__")


def slot_shares(who: Who, hook: str, shares: Any, count: int) -> list[Any]:
    """Slot mode ``compute_shares``: ``count`` shares, each None or a finite real ≥ 0
    (ints stay ints, other reals become floats)."""
    if not _sequence(shares) or len(shares) != count:
        raise refuse(who, hook, shares, f"{SLOT_SHARES} ({count})")
    out = list(shares)
    for i, share in enumerate(out):
        kind = type(share)
        if kind is float:
            if 0.0 <= share <= MAX_FLOAT:
                continue
        elif share is None:
            continue
        elif kind is int:
            if 0 <= share <= MAX_FLOAT:
                continue
        else:
            number = _real(share)
            if number is not None and 0.0 <= number <= MAX_FLOAT:
                out[i] = number
                continue
        raise refuse(who, hook, shares if count <= 8 else share,
                     f"{SLOT_SHARES} ({count}; schedulable {i} got {show(share)})")
    return out


def resource_shares(who: Who, hook: str, shares: Any, count: int) -> list[Any]:
    """Resource mode ``compute_shares``: ``count`` shares, each None or Resources
    with amounts from 0 to a Java long."""
    if not _sequence(shares) or len(shares) != count:
        raise refuse(who, hook, shares, f"{RESOURCE_SHARES} ({count}; does it support "
                                        "[scheduler] mode = \"resources\"?)")
    for i, share in enumerate(shares):
        if share is None:
            continue
        if type(share) is not Resources and not isinstance(share, Resources):
            raise refuse(who, hook, shares if count <= 8 else share,
                         f"{RESOURCE_SHARES} ({count}; schedulable {i} got {show(share)})")
        if (not 0 <= share.memory <= UNBOUNDED or not 0 <= share.vcores <= UNBOUNDED
                or any(not 0 <= v <= UNBOUNDED for _, v in share.extras)):
            raise refuse(who, hook, shares if count <= 8 else share,
                         f"{RESOURCE_SHARES} ({count}; schedulable {i} got {show(share)})")
    return list(shares)


def shares_many(who: Who, value: Any, groups: int) -> list[Any]:
    """``compute_shares_many`` (not None): one list of shares per group (each list
    is then checked as :func:`resource_shares`)."""
    if not _sequence(value) or len(value) != groups:
        raise refuse(who, "compute_shares_many", value,
                     f"None or one list of shares per group ({groups} groups)")
    return list(value)


def no_key(who: Who) -> PluginAnswerError:
    """``order_key`` answered None (any other key is taken; keys of one policy must compare)."""
    return refuse(who, "order_key", None, "a sort key (a tuple) for every schedulable")


#: what comparing two keys of a policy may raise when they do not compare (``2+1j``,
#: ``{}``, ``object()``: TypeError; ``Decimal("NaN")``: decimal.InvalidOperation)
INCOMPARABLE = (TypeError, ArithmeticError)

KEYS = "keys of one policy that compare with each other (tuples of numbers and names)"


def incomparable(who: Who, exc: BaseException) -> PluginAnswerError:
    """Keys of one policy that do not compare (``'<' not supported …``)."""
    point, name, origin = who
    text = str(exc) or type(exc).__name__
    return PluginAnswerError(point, name, origin, "order_key", f"keys that do not compare ({text})", KEYS)


def nan_key(who: Who, key: Any) -> PluginAnswerError:
    """A key that is or holds a NaN (it compares false with everything: the order breaks)."""
    return refuse(who, "order_key", key, KEYS + ", without NaN")


# ------------------------------------------------------------------ tasks and pools


def selected_task(who: Who, value: Any, job: Any, kind: str, hook: str = "cs_select_task") -> Task:
    """``cs_select_task`` (or ``hook``, e.g. ``cs_select_ask``; not None): a pending task of
    ``kind`` of ``job``."""
    if isinstance(value, Task) and value.job is job and value.kind == kind and value.state == PENDING:
        return value
    got = f"{value.id} ({value.state} {value.kind} of {value.job.id})" if isinstance(value, Task) else show(value)
    point, name, origin = who
    raise PluginAnswerError(point, name, origin, hook, got, f"a pending {kind} of {job.id} or None")


#: what a pool name may not hold: control characters (C0, DEL, C1) and lone surrogates
#: (which no file, log or JSON output can encode: the run failed when writing its results)
_BAD_NAME_CHAR = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")

POOL_NAME = "a pool name (a non-empty string without control characters or lone surrogates)"


def _name(value: Any) -> bool:
    return isinstance(value, str) and bool(value) and _BAD_NAME_CHAR.search(value) is None


def pool_name(who: Who, value: Any) -> str | Rejection:
    """``cs_resolve_pool`` (not None): a non-empty pool name or a Rejection."""
    if isinstance(value, Rejection):
        return value
    if _name(value):
        return str(value)
    raise refuse(who, "cs_resolve_pool", value, f"{POOL_NAME}, a Rejection or None")


def pool_names(who: Who, value: Any) -> list[str]:
    """``cs_known_pools`` (not None): a list or tuple of non-empty names."""
    if _sequence(value) and all(_name(n) for n in value):
        return [str(n) for n in value]
    raise refuse(who, "cs_known_pools", value, f"a list of pool names ({POOL_NAME}) or None")


def _counts(value: Any, whole: bool) -> bool:
    if not isinstance(value, Mapping):
        return False
    for key, amount in value.items():
        number = _real(amount)
        if not isinstance(key, str) or number is None or not 0.0 <= number <= MAX_FLOAT:
            return False
        if whole and number != int(number):
            return False
    return True


def preemption_plan(who: Who, value: Any) -> PreemptionPlan:
    """``plan_preemption`` (not None): a PreemptionPlan with a whole count ≥ 0,
    allowances (whole, ≥ 0) and needs (≥ 0) by pool name, victims None or tasks."""
    if isinstance(value, PreemptionPlan):
        count = _real(value.count)
        victims = value.victims
        if (
            count is not None and 0.0 <= count <= MAX_FLOAT and count == int(count)
            and _counts(value.allowance, True) and _counts(value.needs, False)
            and (victims is None or (_sequence(victims) and all(isinstance(t, Task) for t in victims)))
        ):
            return value
    raise refuse(who, "plan_preemption", value,
                 "None or a PreemptionPlan: count a whole number ≥ 0, allowance {pool: whole number ≥ 0}, "
                 "victims None or a tuple of tasks, needs {pool: number ≥ 0}")


def victims(who: Who, value: Any) -> list[Task]:
    """``cs_select_victims`` (not None): a list or tuple of tasks."""
    if _sequence(value) and all(isinstance(t, Task) for t in value):
        return list(value)
    raise refuse(who, "cs_select_victims", value, "None or a list of running tasks from the candidates")


def _task_name(task: Task) -> str:
    return f"{task.id} ({task.state} {task.kind} of {task.job.id})"


def plan_victims(who: Who, plan: PreemptionPlan, running: Mapping[str, Task], kind: str) -> list[Task]:
    """A plan's own ``victims`` (checked by :func:`preemption_plan` as tasks): at most
    ``count``, each a running task of ``kind`` of this scheduler (``running``: its running
    tasks by id; the very object, not a task of another scheduler with the same id), once."""
    chosen = cast("list[Task]", list(plan.victims or ()))  # preemption_plan() checked each is a Task
    expected = f"at most count ({plan.count}) running {kind} tasks of this scheduler, each once"
    if len(chosen) > plan.count:
        raise refuse(who, "plan_preemption", f"{len(chosen)} victims for count={plan.count}", expected)
    seen: set[int] = set()
    for task in chosen:
        if running.get(task.id) is not task or task.kind != kind or id(task) in seen:
            raise refuse(who, "plan_preemption", f"victim {_task_name(task)}", expected)
        seen.add(id(task))
    return chosen


def chosen_victims(who: Who, chosen: list[Task], candidates: list[Task], count: int) -> list[Task]:
    """``cs_select_victims``'s tasks (checked by :func:`victims`): at most ``count``, each
    one of the candidates (the very object), once; the allowances the core enforces."""
    expected = f"at most {count} of the candidates (running tasks of this scheduler), each once"
    if len(chosen) > count:
        raise refuse(who, "cs_select_victims", f"{len(chosen)} victims for count={count}", expected)
    allowed = {id(t) for t in candidates}
    seen: set[int] = set()
    for task in chosen:
        if id(task) not in allowed or id(task) in seen:
            raise refuse(who, "cs_select_victims", f"victim {_task_name(task)}", expected)
        seen.add(id(task))
    return chosen
