"""Java's arithmetic, where Hadoop's results depend on it.

Hadoop reads most fractions with ``Configuration.getFloat`` and computes with
them in single precision, so a result that lands on a whole number in exact
arithmetic can land a hair above it in Java and round up: Hadoop's reduce
slow start needs ``(int) Math.ceil(0.3f * 50)`` = 16 completed maps, not 15.
These helpers reproduce that, so the numbers Hadoop's tests assert come out
here too.
"""

from __future__ import annotations

import math
import struct

_FLOAT = struct.Struct("f")


def java_float(value: float) -> float:
    """``value`` rounded to single precision, as a Java ``float`` holds it
    (``Configuration.getFloat``, or the result of float arithmetic); beyond
    the float range it is infinite, as in Java."""
    try:
        return _FLOAT.unpack(_FLOAT.pack(value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def float_times(fraction: float, n: int) -> float:
    """Java's ``fraction * n`` for a ``float`` fraction and an ``int`` n:
    ``n`` is widened to float and the product rounded to single precision."""
    return java_float(java_float(fraction) * java_float(float(n)))


def ceil_float_times(fraction: float, n: int) -> int:
    """Java's ``(int) Math.ceil(fraction * n)`` with ``fraction`` a float,
    e.g. ``JobInProgress``'s ``completedMapsForReduceSlowstart``."""
    return math.ceil(float_times(fraction, n))


def java_round(x: float) -> int:
    """Java's ``Math.round``: halves round up (towards +∞)."""
    return math.floor(x + 0.5)


#: ``Long.MAX_VALUE``: YARN's "unbounded" amount; sums saturate here (``ComputeFairShares.safeAdd``).
LONG_MAX = 2**63 - 1
_LONG_MAX_F = float(LONG_MAX)  # 2**63 as a double, as Java converts it


def java_long(value: float) -> int:
    """Java's ``(long)`` cast of a double: truncation toward zero, NaN → 0,
    saturating at ``Long.MIN_VALUE`` / ``Long.MAX_VALUE``."""
    if value != value:
        return 0
    if value >= _LONG_MAX_F:
        return LONG_MAX
    if value <= -_LONG_MAX_F:
        return -LONG_MAX - 1
    return int(value)



_TRIMMED = "".join(map(chr, range(33)))


def java_trim(text: str) -> str:
    """Java ``String.trim``: strip the characters up to U+0020 (not other Unicode space)."""
    return text.strip(_TRIMMED)


__all__ = ["LONG_MAX", "ceil_float_times", "float_times", "java_float", "java_long", "java_round", "java_trim"]
