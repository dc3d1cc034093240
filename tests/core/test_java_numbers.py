"""Numbers read as Java reads them (``corescheduler.core.javamath.parse_java_*``).

Hadoop reads every number of its allocation files with ``Integer.parseInt``,
``Long.parseLong``, ``Float.parseFloat`` or ``Double.parseDouble``
(``AllocationFileQueueParser.loadQueue``, ``AllocationFileParser``, MR1's
``PoolManager.reloadAllocs``, ``CapacitySchedulerConf.getFloat``/``getInt``).
The table is what those methods return or throw (``NumberFormatException`` is
ValueError here); ``0.5f`` is the text of YARN's
``TestAllocationFileLoaderService.testAllocationFileParsing``
(``<queueMaxAMShareDefault>0.5f</queueMaxAMShareDefault>``).
"""

from __future__ import annotations

import math

import pytest

from corescheduler.core.javamath import (
    java_float,
    parse_java_double,
    parse_java_float,
    parse_java_int,
    parse_java_long,
)

DOUBLES = [
    ("0.5f", 0.5),  # a float suffix
    ("0.5F", 0.5),
    ("1d", 1.0),  # a double suffix
    ("2D", 2.0),
    ("1e3", 1000.0),
    ("1E-2", 0.01),
    ("+2", 2.0),  # a leading plus
    ("-0.5", -0.5),
    (" 3.5 ", 3.5),  # FloatingDecimal trims (String.trim: characters up to U+0020)
    ("\t\n7\r", 7.0),
    (".5", 0.5),
    ("5.", 5.0),
    ("0x1p3", 8.0),  # hexadecimal floating point, the binary exponent required
    ("0x1.8p1f", 3.0),
    ("-0X.8P1", -1.0),
    ("1e400", math.inf),  # beyond a double: Infinity, as Java
    ("-1e400", -math.inf),
    ("Infinity", math.inf),
    ("-Infinity", -math.inf),
    ("+Infinity", math.inf),
    ("1e-400", 0.0),
]

BAD_FLOATS = [
    "",
    " ",
    "e3",  # no digits
    ".",
    "1.0.0",
    "1_000",  # Python's float() takes underscores, Java does not
    "inf",  # Python's spellings of the specials
    "nan",
    "infinity",
    "NAN",
    "0x10",  # a hexadecimal float needs its p exponent
    "1e",
    "1f5",
    "half",
    "1,5",
    "\u00a01",  # a no-break space is not trimmed by String.trim
    "\u0661",  # Arabic-Indic one: Double.parseDouble takes ASCII digits only
]


@pytest.mark.parametrize(("text", "value"), DOUBLES)
def test_double_parse_double(text: str, value: float) -> None:
    """Double.parseDouble (FloatingDecimal.readJavaFormatString)."""
    assert parse_java_double(text) == value


@pytest.mark.parametrize(("text", "value"), DOUBLES)
def test_float_parse_float(text: str, value: float) -> None:
    """Float.parseFloat: the same grammar, the value a float."""
    assert parse_java_float(text) == java_float(value)


def test_nan_is_read_as_java_reads_it() -> None:
    """Double.parseDouble("NaN") and Float.parseFloat("-NaN") are NaN (the readers then refuse it)."""
    assert math.isnan(parse_java_double("NaN"))
    assert math.isnan(parse_java_float(" -NaN "))


@pytest.mark.parametrize("text", BAD_FLOATS)
def test_not_a_java_floating_point_number(text: str) -> None:
    """Double.parseDouble and Float.parseFloat throw NumberFormatException."""
    with pytest.raises(ValueError):
        parse_java_double(text)
    with pytest.raises(ValueError):
        parse_java_float(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.1", 0.10000000149011612),  # (float) 0.1
        ("3.4028235e38", 3.4028234663852886e38),  # Float.MAX_VALUE as Java prints it
        ("3.4028235677e38", 3.4028234663852886e38),  # below MAX_VALUE + half an ulp: MAX_VALUE
        ("3.4028236e38", math.inf),  # above it: Infinity
        ("3.5e38", math.inf),  # beyond: Infinity
        ("1.4e-45", 1.401298464324817e-45),  # Float.MIN_VALUE
        ("1e-46", 0.0),
        # a decimal whose double lies on a midpoint between two floats: rounded once, on its exact value
        ("1.000000059604644775390625", 1.0),  # exactly half-way: to even
        ("1.0000000596046447753906251", 1.0000001192092896),  # a hair above: up
        ("1.00000005960464477539062499", 1.0),  # a hair below: down
    ],
)
def test_float_rounds_once(text: str, value: float) -> None:
    """Float.parseFloat rounds the decimal to the nearest float directly (no double rounding)."""
    assert parse_java_float(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0),
        ("+5", 5),  # a leading plus (Java 7+)
        ("-5", -5),
        ("007", 7),
        ("2147483647", 2**31 - 1),
        ("-2147483648", -(2**31)),
        ("\u0661\u0662", 12),  # Character.digit takes any Unicode decimal digit
    ],
)
def test_integer_parse_int(text: str, value: int) -> None:
    """Integer.parseInt."""
    assert parse_java_int(text) == value


@pytest.mark.parametrize(
    "text", ["", "+", "-", " 5", "5 ", "1.5", "5.0", "1e3", "0x10", "2147483648", "-2147483649", "1_000", "5f"]
)
def test_not_a_java_int(text: str) -> None:
    """Integer.parseInt throws NumberFormatException: no spaces (Hadoop trims before it when it
    does), no decimals, no exponent, nothing past 32 bits."""
    with pytest.raises(ValueError):
        parse_java_int(text)


def test_long_parse_long() -> None:
    """Long.parseLong: 64 bits, same grammar."""
    assert parse_java_long("9223372036854775807") == 2**63 - 1
    assert parse_java_long("-9223372036854775808") == -(2**63)
    assert parse_java_long("2147483648") == 2**31
    for text in ("9223372036854775808", "7.5", " 7", "1e3"):
        with pytest.raises(ValueError):
            parse_java_long(text)
