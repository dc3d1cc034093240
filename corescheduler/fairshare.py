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

#: Bisection steps after the doubling search (Hadoop's COMPUTE_FAIR_SHARES_ITERATIONS).
BISECTION_STEPS = 25
#: From this many items on, the search runs vectorised with numpy.
NUMPY_THRESHOLD = 64
#: Doubling stops here whatever happens (2**1000 ~ 1e301; far past any real cluster).
_MAX_DOUBLINGS = 1000


def _field(item: Any, name: str, default: float | None = None) -> float:
    if isinstance(item, Mapping):
        value = item.get(name, default)
    else:
        value = getattr(item, name, default)
    if value is None:
        if default is None:
            raise ValueError(f"fair-share item {item!r} has no {name!r}")
        value = default
    value = float(value)
    if math.isnan(value) or value < 0:
        raise ValueError(f"fair-share item {item!r}: {name} must be a non-negative number, got {value}")
    return value


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
    weights = [_field(it, "weight", 1.0) for it in items]
    mins = [_field(it, "min_share", 0.0) for it in items]
    caps = [min(_field(it, "demand"), _field(it, "max_share", math.inf)) for it in items]
    return shares_from_columns(weights, mins, caps, capacity)


def shares_from_columns(
    weights: Sequence[float], mins: Sequence[float], caps: Sequence[float], capacity: float
) -> list[float]:
    """:func:`compute_fair_shares` on pre-validated columns (the scheduler's hot path)."""
    top = max(weights, default=0.0)
    if top > 0 and not (1e-3 <= top <= 1e6):
        # Shares do not change when all weights are scaled; keep R in range.
        weights = [w / top for w in weights]
    r = fair_share_ratio(weights, mins, caps, capacity)
    if len(weights) >= NUMPY_THRESHOLD:
        import numpy as np

        w = np.asarray(weights, dtype=float)
        return np.minimum(np.maximum(w * r, np.asarray(mins, dtype=float)), np.asarray(caps, dtype=float)).tolist()
    out = []
    for w, lo, cap in zip(weights, mins, caps):
        share = w * r
        if share < lo:
            share = lo
        if share > cap:
            share = cap
        out.append(float(share))
    return out
