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
import re
import struct
from fractions import Fraction

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



# ---------------------------------------------------------------- reading numbers as Java does

#: ``FloatingDecimal.readJavaFormatString``'s grammar (after ``trim``): a sign, then NaN,
#: Infinity, a decimal (digits with an optional point and exponent) or a hexadecimal float
#: (``0x1.8p1``, the binary exponent required), then an optional ``f``/``F``/``d``/``D``.
_JAVA_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?")
_JAVA_HEX = re.compile(r"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?")
_JAVA_SPECIAL = re.compile(r"([+-]?)(NaN|Infinity)")
#: ``Integer.parseInt`` / ``Long.parseLong``: a sign, then decimal digits (``Character.digit``: any
#: Unicode decimal digit), nothing else, no spaces.
_JAVA_INTEGER = re.compile(r"[+-]?\d+")
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN = -(2**63)


def _java_exact(text: str) -> tuple[float, Fraction | None]:
    """The double nearest to Java floating-point ``text`` (untrimmed), and the exact value
    when finite and not already a double; ValueError when Java throws NumberFormatException."""
    special = _JAVA_SPECIAL.fullmatch(text)
    if special is not None:
        sign = -1.0 if special.group(1) == "-" else 1.0
        return (math.nan if special.group(2) == "NaN" else sign * math.inf), None
    if _JAVA_DECIMAL.fullmatch(text):
        body = text.rstrip("fFdD")
        value = float(body)
        return value, (Fraction(body) if math.isfinite(value) else None)
    hexa = _JAVA_HEX.fullmatch(text)
    if hexa is not None:
        value = float.fromhex(hexa.group(1) + "0x" + hexa.group(2))  # rounds to nearest, as Java
        return value, None
    raise ValueError(f"not a Java floating-point number: {text!r}")


def parse_java_double(text: str) -> float:
    """``Double.parseDouble``: surrounding characters up to U+0020 trimmed, a leading ``+`` or
    ``-``, decimals with an exponent (``1e3``), a ``d``/``f`` suffix (``0.5f``, ``1d``), hex
    floats (``0x1p3``), ``NaN`` and ``Infinity``; out of range it is ±Infinity or ±0, as
    Java's.  Raises ValueError where Java throws ``NumberFormatException``."""
    return _java_exact(java_trim(text))[0]


def parse_java_float(text: str) -> float:
    """``Float.parseFloat``: the grammar of :func:`parse_java_double`, the value rounded once,
    to the nearest float, as Java does (a decimal is not rounded to a double first: the
    two floats around it are compared with its exact value)."""
    value, exact = _java_exact(java_trim(text))
    single = java_float(value)
    if exact is None or single == value or not math.isfinite(single):
        return single
    other = _float_neighbour(single, up=value > single)
    if not math.isfinite(other):
        return single
    gap = abs(exact - Fraction(single)) - abs(exact - Fraction(other))
    if gap > 0 or (gap == 0 and struct.unpack("<I", _FLOAT.pack(single))[0] & 1):
        return other
    return single


def _float_neighbour(x: float, *, up: bool) -> float:
    """The float next to the float ``x``, above it (``up``) or below."""
    if x == 0.0:
        return math.ldexp(1.0 if up else -1.0, -149)
    bits = struct.unpack("<I", _FLOAT.pack(x))[0]
    bits += 1 if up == (x > 0) else -1
    return float(struct.unpack("<f", struct.pack("<I", bits))[0])


def _java_integer(text: str, low: int, high: int, what: str) -> int:
    if not _JAVA_INTEGER.fullmatch(text):
        raise ValueError(f"not a Java {what}: {text!r}")
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f"out of the range of a Java {what}: {text!r}")
    return value


def parse_java_int(text: str) -> int:
    """``Integer.parseInt``: an optional ``+``/``-`` and decimal digits, within 32 bits; no
    spaces, decimals or exponents (callers that Hadoop trims first trim first).
    Raises ValueError where Java throws ``NumberFormatException``."""
    return _java_integer(text, INT_MIN, INT_MAX, "int")


def parse_java_long(text: str) -> int:
    """``Long.parseLong``: as :func:`parse_java_int`, within 64 bits."""
    return _java_integer(text, LONG_MIN, LONG_MAX, "long")


__all__ = [
    "INT_MAX",
    "INT_MIN",
    "LONG_MAX",
    "LONG_MIN",
    "ceil_float_times",
    "float_times",
    "java_float",
    "java_long",
    "java_round",
    "java_trim",
    "parse_java_double",
    "parse_java_float",
    "parse_java_int",
    "parse_java_long",
]
