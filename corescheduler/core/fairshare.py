"""Weighted max-min fair shares: the one implementation of the share maths.

This is Hadoop's ``SchedulingAlgorithms.computeFairShares`` (Hadoop 1.x
fair scheduler, ``src/contrib/fairscheduler``; the same search is in YARN's
``ComputeFairShares``).  Every item gets, for a weight-to-share ratio R::

    share(R) = min(max(weight * R, min_share), cap),   cap = min(demand, max_share)

and R is the smallest ratio whose shares fill ``min(capacity, sum of caps)``.
Like Hadoop, R is found by doubling an upper bound from 1, then 25 bisection
steps, and the *upper* bracket is used, so the shares Hadoop's tests assert
exactly come out exactly here too.

Two guards Hadoop lacks: items with weight 0 can never grow past their
minimum share, so the target is the share that is reachable at all (no
endless doubling, no NaN; with every weight zero each item gets
``min(min_share, cap)``); and a non-finite target stops the doubling.

The scheduler, the simulator, the ``shares`` command and the share-policy
plugins all call :func:`compute_fair_shares`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from corescheduler.core.javamath import LONG_MAX, java_float, java_long

#: Bisection steps after the doubling search (Hadoop's COMPUTE_FAIR_SHARES_ITERATIONS).
BISECTION_STEPS = 25
#: From this many items on, the search runs vectorised with numpy.
NUMPY_THRESHOLD = 64
#: Doubling stops here whatever happens (2**1000 ~ 1e301; far past any real cluster).
_MAX_DOUBLINGS = 1000


def _column(items: Sequence[Any], name: str, default: float | None) -> list[float]:
    """One field of every item as floats, checked to be non-negative numbers."""
    values = []
    for item in items:
        value = item.get(name, default) if type(item) is dict or isinstance(item, Mapping) else getattr(
            item, name, default
        )
        if value is None:
            value = default
        if value is None:
            raise ValueError(f"fair-share item {item!r} has no {name!r}")
        values.append(value)
    if len(values) >= NUMPY_THRESHOLD:
        import numpy as np

        try:
            arr = np.asarray(values, dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"fair-share items: {name} must be numbers ({exc})") from exc
        if bool((arr >= 0).all()):
            return arr  # type: ignore[return-value]
    try:
        out = [float(v) for v in values]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"fair-share items: {name} must be numbers ({exc})") from exc
    for item, value in zip(items, out):
        if not value >= 0:  # negative or NaN
            raise ValueError(f"fair-share item {item!r}: {name} must be a non-negative number, got {value}")
    return out


def _slots_used(r: float, weights: Sequence[float], mins: Sequence[float], caps: Sequence[float]) -> float:
    total = 0.0
    for w, lo, cap in zip(weights, mins, caps):
        share = w * r
        if share < lo:
            share = lo
        if share > cap:
            share = cap
        total += share
    return total


def fair_share_ratio(
    weights: Sequence[float], mins: Sequence[float], caps: Sequence[float], capacity: float
) -> float:
    """Return the weight-to-share ratio R (upper bracket) for the given columns.

    Exposed for share policies that need R itself (for example to report it).
    """
    if len(weights) >= NUMPY_THRESHOLD:
        import numpy as np

        w = np.asarray(weights, dtype=float)
        lo = np.asarray(mins, dtype=float)
        cap = np.asarray(caps, dtype=float)
        target = min(capacity, float(np.where(w > 0, cap, np.minimum(lo, cap)).sum()))

        def used(r: float) -> float:
            return float(np.minimum(np.maximum(w * r, lo), cap).sum())
    else:
        reachable = 0.0
        for wi, li, ci in zip(weights, mins, caps):
            reachable += ci if wi > 0 else min(li, ci)
        target = min(capacity, reachable)

        def used(r: float) -> float:
            return _slots_used(r, weights, mins, caps)

    r_max = 1.0
    doublings = 0
    while used(r_max) < target and doublings < _MAX_DOUBLINGS:
        r_max *= 2.0
        doublings += 1
    left, right = 0.0, r_max
    for _ in range(BISECTION_STEPS):
        mid = (left + right) / 2.0
        if used(mid) < target:
            left = mid
        else:
            right = mid
    return right


def compute_fair_shares(items: Iterable[Any], capacity: float) -> list[float]:
    """Return the fair share of each item, in order.

    ``items``: mappings or objects with ``weight``, ``min_share``, ``demand``
    and optional ``max_share`` (absent or ``None`` = unlimited).
    ``capacity``: the slots (or resource units) to divide.

    >>> compute_fair_shares([{"weight": 1, "min_share": 0, "demand": 100}] * 2, 40)
    [20.0, 20.0]
    """
    items = list(items)
    if not items:
        return []
    capacity = float(capacity)
    if math.isnan(capacity) or capacity < 0:
        raise ValueError(f"capacity must be a non-negative number, got {capacity}")
    weights = _column(items, "weight", 1.0)
    mins = _column(items, "min_share", 0.0)
    demands = _column(items, "demand", None)
    max_shares = _column(items, "max_share", math.inf)
    if len(items) >= NUMPY_THRESHOLD:
        import numpy as np

        caps = np.minimum(demands, max_shares)
    else:
        caps = [min(d, m) for d, m in zip(demands, max_shares)]
    return shares_from_columns(weights, mins, caps, capacity)


def shares_from_columns(
    weights: Sequence[float], mins: Sequence[float], caps: Sequence[float], capacity: float
) -> list[float]:
    """:func:`compute_fair_shares` on pre-validated columns (the scheduler's hot path)."""
    if len(weights) >= NUMPY_THRESHOLD:
        return _shares_numpy(weights, mins, caps, capacity)
    reachable = 0.0
    for w, lo, cap in zip(weights, mins, caps):
        reachable += cap if w > 0 else (lo if lo < cap else cap)
    if reachable <= capacity:
        # Every demand fits: the search would end with each item at its cap
        # (zero weights at their min share), exactly; skip it.
        return [float(cap) if w > 0 else float(lo if lo < cap else cap) for w, lo, cap in zip(weights, mins, caps)]
    top = max(weights, default=0.0)
    if top > 0 and not (1e-3 <= top <= 1e6):
        # Shares do not change when all weights are scaled; keep R in range.
        weights = [w / top for w in weights]
    r = fair_share_ratio(weights, mins, caps, capacity)
    out = []
    for w, lo, cap in zip(weights, mins, caps):
        share = w * r
        if share < lo:
            share = lo
        if share > cap:
            share = cap
        out.append(float(share))
    return out


def _shares_numpy(weights: Any, mins: Any, caps: Any, capacity: float) -> list[float]:
    """The same search, vectorised (many items)."""
    import numpy as np

    w = np.asarray(weights, dtype=float)
    lo = np.asarray(mins, dtype=float)
    cap = np.asarray(caps, dtype=float)
    fixed = np.minimum(lo, cap)
    if float(np.where(w > 0, cap, fixed).sum()) <= capacity:
        return np.where(w > 0, cap, fixed).tolist()
    top = float(w.max())
    if top > 0 and not (1e-3 <= top <= 1e6):
        w = w / top
    r = fair_share_ratio(w, lo, cap, capacity)
    return np.minimum(np.maximum(w * r, lo), cap).tolist()


# --------------------------------------------------------------------------- YARN: whole units, one resource type
def _safe_add(a: int, b: int) -> int:
    total = a + b
    return LONG_MAX if total > LONG_MAX else total


def yarn_fair_shares(
    weights: Sequence[float],
    mins: Sequence[int],
    maxes: Sequence[int],
    total: int,
    active: Sequence[bool] | None = None,
) -> list[int]:
    """Fair shares of one resource type in whole units, as YARN's
    ``ComputeFairShares.computeSharesInternal`` computes them.

    ``weights``, ``mins`` and ``maxes`` are the schedulables' weights and
    minimum / maximum shares of the type; ``total`` is the amount to divide;
    ``active`` (instantaneous shares) marks the queues that have apps — an
    inactive queue's share is 0; ``None`` computes *steady* shares, every
    schedulable counting.

    Rules (``ComputeFairShares.handleFixedFairShares`` / ``getFairShareIfFixed``):
    a schedulable whose max share is 0, that is inactive, or whose weight is
    ≤ 0 has a fixed share (0; the min share for weight ≤ 0) taken off the
    total first.  The others share ``min(total - fixed, Σ max)`` by
    ``share(R) = (long) min(max(weight × R, min), max)``: R doubles from 1
    until the truncated shares reach the target, then 25 bisection steps
    (stopping early on an exact hit) and the upper bracket — which is why
    three equal queues on 10240 MB get 3414 each.  Weights are rounded to
    Java ``float`` as YARN holds them.  Sums saturate at
    ``Long.MAX_VALUE`` (``safeAdd``), so huge min shares cannot overflow.
    """
    key = (tuple(weights), tuple(mins), tuple(maxes), total, None if active is None else tuple(active))
    cached = _YARN_CACHE.get(key)
    if cached is not None:
        return list(cached)
    out = _yarn_fair_shares(weights, mins, maxes, total, active)
    if len(_YARN_CACHE) >= _YARN_CACHE_SIZE:
        _YARN_CACHE.clear()
    _YARN_CACHE[key] = tuple(out)
    return out


#: yarn_fair_shares' results by their inputs: a tree's parents often divide equal shares
#: among equal children, and an update repeats the last one's inputs when nothing changed
_YARN_CACHE: dict[tuple[Any, ...], tuple[int, ...]] = {}
_YARN_CACHE_SIZE = 4096


def _yarn_fair_shares(
    weights: Sequence[float], mins: Sequence[int], maxes: Sequence[int], total: int, active: Sequence[bool] | None
) -> list[int]:
    n = len(weights)
    out = [0] * n
    free: list[int] = []
    taken = 0
    for i in range(n):
        if maxes[i] <= 0 or (active is not None and not active[i]):
            fixed = 0
        elif weights[i] <= 0:
            fixed = mins[i] if mins[i] > 0 else 0
        else:
            free.append(i)
            continue
        out[i] = fixed
        taken = _safe_add(taken, fixed)
    if not free:
        return out
    raw = [float(weights[i]) for i in free]
    top = max(raw)
    if _HUGE_WEIGHT < top < math.inf:
        # Not in Hadoop: its search resolves R only to about rMax × 2**-25, and a huge weight
        # times that passes the cluster (1e20 gives 2.98e12 MB of 819,200; from about 1e26
        # Long.MAX_VALUE).  Shares depend only on the weights' ratios, so dividing every weight
        # by one factor keeps them and brings R into range; ordinary weights are untouched.
        scale = top / _HUGE_WEIGHT
        raw = [wi / scale for wi in raw]
    w = [java_float(wi) for wi in raw]  # FSQueue.getWeight / getAppWeight: a float
    lo = [float(mins[i]) for i in free]  # Java compares the double share with the long converted to double
    hi = [float(maxes[i]) for i in free]
    total_max = 0
    for i in free:
        total_max = _safe_add(total_max, maxes[i])
        if total_max == LONG_MAX:
            break
    target = min(total_max, max(total - taken, 0))

    def used(r: float) -> int:
        taken_now = 0
        for wi, li, hi_ in zip(w, lo, hi):
            share = wi * r
            if share < li:
                share = li
            if share > hi_:
                share = hi_
            taken_now = _safe_add(taken_now, java_long(share))
            if taken_now == LONG_MAX:
                break
        return taken_now

    r_max = 1.0
    while used(r_max) < target and r_max != math.inf:
        r_max *= 2.0
    left, right = 0.0, r_max
    for _ in range(BISECTION_STEPS):
        mid = (left + right) / 2.0
        planned = used(mid)
        if planned == target:
            right = mid
            break
        if planned < target:
            left = mid
        else:
            right = mid
    for k, i in enumerate(free):
        share = w[k] * right
        if share < lo[k]:
            share = lo[k]
        if share > hi[k]:
            share = hi[k]
        out[i] = java_long(share)
    return out


#: above this largest weight, YARN-mode searches divide every weight of the group by one factor
#: (largest / this) first: the ratios hold and the 25-step search stays within the total
_HUGE_WEIGHT = 1e6
#: the vectorised search keeps to amounts below this, where doubles hold every whole number and
#: no sum can reach ``Long.MAX_VALUE``; a group beyond it is computed by :func:`yarn_fair_shares`
_EXACT = float(2**50)
#: below this many schedulables in all, a batch is computed group by group (numpy's per-call cost)
_MANY_MIN_ITEMS = 64


def yarn_fair_shares_many(
    weights: Sequence[float],
    mins: Sequence[int],
    maxes: Sequence[int],
    active: Sequence[bool] | None,
    sizes: Sequence[int],
    totals: Sequence[int],
) -> list[int]:
    """:func:`yarn_fair_shares` for many groups at once, with the same answers.

    The groups lie end to end in the flat columns: group ``g`` is the next
    ``sizes[g]`` schedulables and divides ``totals[g]``.  Every group runs
    YARN's search (doubling, then 25 bisection steps stopping on an exact
    hit, then the upper bracket) in lockstep with numpy, so a tree level of
    thousands of queues costs a few dozen array passes instead of a Python
    loop per queue and step.  A group whose amounts could leave the range
    where doubles are exact (2**50) is computed by :func:`yarn_fair_shares`.
    """
    n = len(weights)
    if n < _MANY_MIN_ITEMS:
        out: list[int] = []
        start = 0
        for size, total in zip(sizes, totals):
            end = start + size
            out += yarn_fair_shares(
                weights[start:end], mins[start:end], maxes[start:end], total,
                None if active is None else active[start:end],
            )
            start = end
        return out
    import numpy as np

    sizes_a = np.asarray(sizes, dtype=np.int64)
    groups = len(sizes_a)
    seg = np.repeat(np.arange(groups), sizes_a)
    raw_w = np.asarray(weights, dtype=np.float64)
    with np.errstate(over="ignore"):  # beyond the float range a weight is infinite, as in Java
        w = raw_w.astype(np.float32).astype(np.float64)  # FSQueue.getWeight: a float
    lo = np.asarray(mins, dtype=np.float64)
    hi = np.asarray(maxes, dtype=np.float64)
    total = np.asarray(totals, dtype=np.float64)
    # handleFixedFairShares: inactive or zero-max → 0; weight ≤ 0 → its min share (if positive)
    zero = hi <= 0
    if active is not None:
        zero |= ~np.asarray(active, dtype=bool)
    fixed_mask = zero | (raw_w <= 0)
    fixed_value = np.where(zero, 0.0, np.maximum(lo, 0.0))
    taken = np.bincount(seg, weights=np.where(fixed_mask, fixed_value, 0.0), minlength=groups)
    free = ~fixed_mask
    total_max = np.bincount(seg, weights=np.where(free, hi, 0.0), minlength=groups)
    target = np.minimum(total_max, np.maximum(total - taken, 0.0))
    # exactness: while a group's sum is below its target (< 2**50) every partial sum is a whole
    # number a double holds exactly, and a sum beyond it compares as beyond it
    lo_free_max = np.zeros(groups)
    np.maximum.at(lo_free_max, seg[free], lo[free])
    # a group whose largest weight is huge is rescaled by the scalar search (see _HUGE_WEIGHT)
    w_free_max = np.zeros(groups)
    np.maximum.at(w_free_max, seg[free], raw_w[free])
    huge = (w_free_max > _HUGE_WEIGHT) & (w_free_max < np.inf)
    exact = (total < _EXACT) & (taken < _EXACT) & (lo_free_max < _EXACT) & ~huge
    has_free = np.bincount(seg[free], minlength=groups) > 0
    result = np.where(fixed_mask, fixed_value, 0.0)

    run = exact & has_free
    idx = np.flatnonzero(free & run[seg])
    if len(idx):
        with np.errstate(over="ignore", invalid="ignore"):  # r may reach infinity, as in Java
            right = _lockstep_search(w[idx], lo[idx], hi[idx], seg[idx], target, run)
            result[idx] = _long_shares(w[idx], lo[idx], hi[idx], right[seg[idx]], True, True)
    result[~exact[seg]] = 0.0  # replaced below
    # Java's (long) saturates: a share of 2**63 or more (a huge weight under an unbounded
    # max share) is Long.MAX_VALUE, where numpy's conversion would wrap
    saturated = np.flatnonzero(result >= 2.0**63)
    result[saturated] = 0.0
    out = result.astype(np.int64).tolist()
    for i in saturated.tolist():
        out[i] = LONG_MAX
    # groups outside the exact range: the scalar search (saturating Java arithmetic)
    slow = np.flatnonzero(~exact)
    if len(slow):
        starts = np.concatenate(([0], np.cumsum(sizes_a)[:-1]))
        for g in slow.tolist():
            a, b = int(starts[g]), int(starts[g] + sizes_a[g])
            out[a:b] = yarn_fair_shares(
                weights[a:b], mins[a:b], maxes[a:b], totals[g], None if active is None else active[a:b]
            )
    return out


def _long_shares(w: Any, lo: Any, hi: Any, r: Any, clip_lo: bool, clip_hi: bool) -> Any:
    """``ComputeFairShares.computeShare`` per item: ``(long) min(max(w × r, min), max)`` as
    doubles (a weight that is 0 as a float times an infinite r is NaN: Java's (long) is 0).
    ``clip_lo`` / ``clip_hi`` false skip a bound the caller knows cannot matter."""
    import numpy as np

    share = w * r
    if clip_lo:
        share = np.maximum(share, lo)
    if clip_hi:
        share = np.minimum(share, hi)
    share = np.trunc(share)
    share[share != share] = 0.0
    return share


def _lockstep_search(w: Any, lo: Any, hi: Any, seg: Any, target: Any, run: Any) -> Any:
    """YARN's ratio search for every group in ``run`` at once (items ``w``, ``lo``, ``hi`` of
    group ``seg``): the final ``right`` of ``computeSharesInternal`` per group.

    The doubling ``rMax = 1, 2, 4, …`` stops at the first power of two whose shares reach the
    target (or at infinity); the shares grow with r, so that power is found by bisecting the
    exponent — the same ``rMax`` in a dozen passes instead of one per doubling.  Then the 25
    bisection steps, a group leaving the lockstep on an exact hit; the items of groups still
    searching are narrowed as groups leave."""
    import numpy as np

    groups = len(run)
    clip_lo = bool((lo > 0).any())
    # every share the search compares is below max(2 × target + 2, min) < 2**51 or beyond the
    # target anyway, so a max share from 2**52 on never changes a comparison
    clip_hi = bool((hi < 2.0**52).any())

    def used(r_items: Any, ws: Any, ls: Any, hs: Any, gs: Any) -> Any:
        return np.bincount(gs, weights=_long_shares(ws, ls, hs, r_items, clip_lo, clip_hi), minlength=groups)

    # rMax: the least k in [0, 1024] with used(2**k) >= target (2**1024 is infinity: Java's
    # loop would never end there; the scalar search stops)
    k_lo = np.zeros(groups, dtype=np.int64)
    k_hi = np.full(groups, 1024, dtype=np.int64)
    k_lo[~run] = k_hi[~run] = 0
    while True:
        open_ = k_lo < k_hi
        if not open_.any():
            break
        k_mid = (k_lo + k_hi) // 2
        reached = used(np.ldexp(1.0, k_mid)[seg], w, lo, hi, seg) >= target
        k_hi = np.where(open_ & reached, k_mid, k_hi)
        k_lo = np.where(open_ & ~reached, k_mid + 1, k_lo)
    right = np.ldexp(1.0, k_lo)  # 2.0 ** 1024 overflows to inf, as Java's doubling does
    left = np.zeros(groups)
    searching = run.copy()
    items = np.arange(len(w))
    ws, ls, hs, gs = w, lo, hi, seg
    for _ in range(BISECTION_STEPS):
        mid = (left + right) / 2.0
        planned = used(mid[gs], ws, ls, hs, gs)
        hit = searching & (planned == target)
        below = searching & (planned < target)
        right = np.where(searching & ~below, mid, right)
        left = np.where(below, mid, left)
        searching &= ~hit
        if not searching.any():
            break
        if hit.any():
            keep = searching[gs]
            if keep.mean() < 0.75:  # narrow to the groups still searching
                items = items[keep]
                ws, ls, hs, gs = w[items], lo[items], hi[items], seg[items]
    return right
