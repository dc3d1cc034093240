"""Hadoop's ``ResourceCalculator`` and ``Resources`` arithmetic over vectors of the cluster's
resource types, for the Capacity Scheduler's preemption monitor (moved from
:mod:`corescheduler_plugins._yarn_capacity_preemption`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from corescheduler.core.javamath import java_float, java_long
from corescheduler.resources import Resources

Vec = tuple[int, ...]


class _Calc:
    """Hadoop's ``ResourceCalculator`` over vectors of the cluster's resource types:
    memory only (``DefaultResourceCalculator``) or all by dominant share
    (``DominantResourceCalculator``)."""

    def __init__(self, names: Sequence[str], dominant: bool) -> None:
        self.names = tuple(names)
        self.dominant = dominant
        self.zero: Vec = (0,) * len(self.names)

    def vec(self, r: Resources) -> Vec:
        return tuple(r.get(n) for n in self.names)

    def res(self, v: Sequence[int]) -> Resources:
        if not self.dominant:
            return Resources(v[0], 0)
        return Resources.of(dict(zip(self.names, v, strict=True)))

    # -- comparisons (ResourceCalculator.compare)
    def compare(self, cluster: Vec, a: Vec, b: Vec) -> int:
        if not self.dominant:
            return (a[0] > b[0]) - (a[0] < b[0])
        if a == b:
            return 0
        if any(c == 0 for c in cluster):  # DominantResourceCalculator.isInvalidDivisor → compare(lhs, rhs)
            lhs = any(x > y for x, y in zip(a, b, strict=True))
            rhs = any(x < y for x, y in zip(a, b, strict=True))
            return 0 if lhs == rhs else (1 if lhs else -1)
        sa = sorted(x / c for x, c in zip(a, cluster, strict=True))
        sb = sorted(x / c for x, c in zip(b, cluster, strict=True))
        for x, y in zip(reversed(sa), reversed(sb), strict=True):  # DominantResourceCalculator.compareShares
            if x != y:
                return 1 if x > y else -1
        return 0

    def gt(self, cluster: Vec, a: Vec, b: Vec) -> bool:
        return self.compare(cluster, a, b) > 0

    def lt(self, cluster: Vec, a: Vec, b: Vec) -> bool:
        return self.compare(cluster, a, b) < 0

    def vmin(self, cluster: Vec, a: Vec, b: Vec) -> Vec:  # Resources.min
        return a if self.compare(cluster, a, b) <= 0 else b

    def vmax(self, cluster: Vec, a: Vec, b: Vec) -> Vec:  # Resources.max
        return a if self.compare(cluster, a, b) >= 0 else b

    def divide(self, cluster: Vec, a: Vec, b: Vec) -> float:
        """``Resources.divide``: a Java float (memory ratio, or ratio of dominant shares)."""
        if self.dominant:
            num = max((x / c for x, c in zip(a, cluster, strict=True) if c), default=0.0)
            den = max((x / c for x, c in zip(b, cluster, strict=True) if c), default=0.0)
        else:
            num, den = float(a[0]), float(b[0])
        if den == 0:
            return math.nan if num == 0 else math.copysign(math.inf, num)
        return java_float(num / den)

    def fits_in(self, small: Vec, big: Vec) -> bool:
        return all(x <= y for x, y in zip(small, big, strict=True))  # memory only when not dominant

    def any_above_zero(self, v: Vec) -> bool:
        return any(x > 0 for x in v)  # isAnyMajorResourceAboveZero

    def multiply_normalize_up(self, v: Vec, by: Sequence[float]) -> Vec:
        """``multiplyAndNormalizeUp`` with step 1: memory ``(long)(m·by + 0.5)`` by
        Default, each type ``ceil(v·by)`` by DRF."""
        if not self.dominant:
            return (java_long(v[0] * by[0] + 0.5),)
        return tuple(java_long(math.ceil(x * b)) for x, b in zip(v, by, strict=True))


def _add(a: Vec, b: Vec) -> Vec:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def _sub(a: Vec, b: Vec) -> Vec:
    return tuple(x - y for x, y in zip(a, b, strict=True))


def _cwmin(a: Vec, b: Vec) -> Vec:
    return tuple(x if x < y else y for x, y in zip(a, b, strict=True))


def _cwmax0(a: Vec) -> Vec:
    return tuple(x if x > 0 else 0 for x in a)


def _multiply(a: Vec, by: float) -> Vec:  # Resources.multiply: truncation
    return tuple(java_long(x * by) for x in a)


# -- CapacitySchedulerPreemptionUtils (shared by the selectors)
def deduct_selected(calc: _Calc, root: Any, cluster: Vec, selected: list[str]) -> None:
    """``CapacitySchedulerPreemptionUtils.deductPreemptableResourcesBasedSelectedCandidates``:
    each selected container's size off its leaf's ``actuallyToBePreempted``
    (``TempQueuePerPartition.deductActuallyToBePreempted``: only while that is greater than
    the container, then never below 0)."""
    where = {c.id: (leaf, calc.vec(c.resources)) for leaf in root.walk() for c in leaf.containers}
    for cid in selected:
        leaf, size = where[cid]
        if calc.gt(cluster, leaf.actually, size):
            leaf.actually = _sub(leaf.actually, size)
        leaf.actually = calc.vmax(cluster, leaf.actually, calc.zero)


def try_preempt(calc: _Calc, cluster: Vec, box: list[Any], c: Any, allowed: list[Vec],
                 selected: list[str], conservative: bool) -> bool:
    """``CapacitySchedulerPreemptionUtils.tryPreemptContainerAndDeductResToObtain``: the
    container must reduce some positive part still to obtain; with ``conservative``
    (``conservative-drf``) no type still to obtain may be 0 or below
    (``isAnyMajorResourceZeroOrNegative``: memory only by ``DefaultResourceCalculator``)."""
    # a type with nothing to obtain counts as -1, so it never blocks isAnyMajorResourceAboveZero
    to_obtain: Vec = tuple(-1 if x == 0 else x for x in box[0])
    box[0] = to_obtain
    size = calc.vec(c.resources)
    if not (calc.any_above_zero(to_obtain) and calc.fits_in(size, allowed[0])):
        return False
    after = _sub(to_obtain, size)
    if conservative:
        if any(x <= 0 for x in to_obtain):
            return False
    elif not calc.lt(cluster, _cwmax0(after), _cwmax0(to_obtain)):
        return False
    allowed[0] = _sub(allowed[0], size)
    box[0] = None if calc.compare(cluster, after, calc.zero) <= 0 else after
    selected.append(c.id)
    return True


__all__ = ["Vec", "_Calc", "_add", "_cwmax0", "_cwmin", "_multiply", "_sub", "deduct_selected", "try_preempt"]
