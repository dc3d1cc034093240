"""Resource vectors: what a YARN-era node offers and a task asks for.

:class:`Resources` is YARN's ``Resource`` record as a frozen value: memory in
MB, virtual cores, and any named extra resource type (``{"gpu": 2}``).  Values
are whole numbers, as in YARN (``long``); :data:`UNBOUNDED` is YARN's
``Long.MAX_VALUE``, the "no limit" of ``Resources.unbounded()``.

Arithmetic follows YARN's ``org.apache.hadoop.yarn.util.resource.Resources``:
component-wise, a resource type missing on one side counting as 0;
:meth:`Resources.multiply_and_round_down` truncates as
``Resources.multiplyAndRoundDown`` does.

:func:`parse_resources` reads the strings of a YARN allocation file
(``FairSchedulerConfiguration.parseResourceConfigValue``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from attrs import field, frozen

from corescheduler.core.javamath import java_long, java_trim
from corescheduler.errors import ResourceParseError

#: YARN's names of the two standard resource types (``ResourceInformation.MEMORY_URI``, ``VCORES_URI``).
MEMORY = "memory-mb"
VCORES = "vcores"
#: ``Long.MAX_VALUE``: a component of ``Resources.unbounded()``.
UNBOUNDED = 2**63 - 1

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-/]*$")


def _extras(value: Any) -> tuple[tuple[str, int], ...]:
    """Extra resource types as sorted ``(name, amount)`` pairs."""
    if not value:
        return ()
    items = value.items() if isinstance(value, Mapping) else value
    out: dict[str, int] = {}
    for name, amount in items:
        name = str(name)
        if name in (MEMORY, VCORES, "memory"):
            raise ValueError(f"{name!r} is not an extra resource type; use memory= or vcores=")
        if not _NAME.match(name):
            raise ValueError(f"bad resource type name {name!r}")
        out[name] = _whole(amount, name)
    return tuple(sorted(out.items()))


def _whole(value: Any, name: str) -> int:
    """``value`` as an amount: a whole number within a Java long, as YARN's ``Resource``
    holds (``-2**63 … 2**63-1``; 10**400 MB is refused here, not an OverflowError later)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise ValueError(f"{name} must be a whole number, got {value!r}")
        value = int(value)
    if not -UNBOUNDED - 1 <= value <= UNBOUNDED:
        raise ValueError(f"{name} must be at most {UNBOUNDED} (a Java long, as YARN's), got "
                         f"{value if value.bit_length() < 128 else f'a number of {len(str(abs(value)))} digits'}")
    return value


@frozen(slots=True)
class Resources:
    """An amount of each resource type (YARN ``Resource``).

    ``memory`` is in MB (YARN's ``memory-mb``), ``vcores`` virtual cores and
    ``extras`` any other types by name; amounts are integers and may be
    negative only as the result of a subtraction.
    """

    memory: int = field(default=0, converter=lambda v: _whole(v, "memory"))
    vcores: int = field(default=0, converter=lambda v: _whole(v, "vcores"))
    extras: tuple[tuple[str, int], ...] = field(default=(), converter=_extras)

    # ------------------------------------------------------------------ construction
    @classmethod
    def _make(cls, memory: int, vcores: int, extras: tuple[tuple[str, int], ...] = ()) -> Resources:
        """A value from already-checked parts (sorted extras), without the converters: the
        arithmetic below builds many of these."""
        obj = _new(cls)
        _set_memory(obj, memory)
        _set_vcores(obj, vcores)
        _set_extras(obj, extras)
        return obj

    #: the same, public: for hot paths outside the core (a plugin's use counters) that add
    #: amounts they already hold as ``Resources``
    from_parts = _make

    @classmethod
    def total(cls, items: Iterable[Resources]) -> Resources:
        """The sum of ``items`` in one pass (zero of everything for none): what a
        chain of ``+`` gives, without the values in between."""
        memory = vcores = 0
        extras: dict[str, int] | None = None
        for r in items:
            memory += r.memory
            vcores += r.vcores
            if r.extras:
                if extras is None:
                    extras = {}
                for n, v in r.extras:
                    extras[n] = extras.get(n, 0) + v
        return cls._make(memory, vcores, tuple(sorted(extras.items())) if extras else ())

    @classmethod
    def none(cls) -> Resources:
        """Zero of everything (``Resources.none()``)."""
        return _NONE

    @classmethod
    def unbounded(cls, names: Iterable[str] = ()) -> Resources:
        """:data:`UNBOUNDED` of memory, vcores and each extra type in ``names``
        (``Resources.unbounded()``)."""
        return cls(UNBOUNDED, UNBOUNDED, {n: UNBOUNDED for n in names if n not in (MEMORY, VCORES)})

    @classmethod
    def of(cls, values: Mapping[str, int]) -> Resources:
        """From amounts by YARN resource type name (``memory-mb``, ``vcores``, extras)."""
        memory = values.get(MEMORY, values.get("memory", 0))
        vcores = values.get(VCORES, 0)
        return cls(memory, vcores, {k: v for k, v in values.items() if k not in (MEMORY, VCORES, "memory")})

    # ------------------------------------------------------------------ reading
    @property
    def names(self) -> tuple[str, ...]:
        """The resource types present: ``memory-mb``, ``vcores``, then the extras by name."""
        return (MEMORY, VCORES, *(n for n, _ in self.extras))

    def get(self, name: str) -> int:
        """The amount of one resource type by name (0 for an extra type not present)."""
        if name == MEMORY or name == "memory":
            return self.memory
        if name == VCORES:
            return self.vcores
        for n, v in self.extras:
            if n == name:
                return v
        return 0

    __getitem__ = get

    def items(self) -> Iterator[tuple[str, int]]:
        """``(name, amount)`` for every resource type present."""
        yield MEMORY, self.memory
        yield VCORES, self.vcores
        yield from self.extras

    def as_dict(self) -> dict[str, int]:
        """``{"memory": m, "vcores": v, **extras}`` — the JSON shape of reports and the harness."""
        out = {"memory": self.memory, "vcores": self.vcores}
        out.update(self.extras)
        return out

    # ------------------------------------------------------------------ arithmetic
    def _combine(self, other: Resources, op: Any) -> Resources:
        if not self.extras and not other.extras:
            return Resources._make(op(self.memory, other.memory), op(self.vcores, other.vcores))
        names = sorted(dict.fromkeys(n for n, _ in (*self.extras, *other.extras)))
        return Resources._make(
            op(self.memory, other.memory),
            op(self.vcores, other.vcores),
            tuple((n, op(self.get(n), other.get(n))) for n in names),
        )

    def __add__(self, other: Resources) -> Resources:
        if type(other) is not Resources:
            return NotImplemented
        if not self.extras and not other.extras:  # _make, inline: the heartbeat's hottest arithmetic
            obj = _new(Resources)
            _set_memory(obj, self.memory + other.memory)
            _set_vcores(obj, self.vcores + other.vcores)
            _set_extras(obj, ())
            return obj
        return self._combine(other, int.__add__)

    def __sub__(self, other: Resources) -> Resources:
        if type(other) is not Resources:
            return NotImplemented
        if not self.extras and not other.extras:
            obj = _new(Resources)
            _set_memory(obj, self.memory - other.memory)
            _set_vcores(obj, self.vcores - other.vcores)
            _set_extras(obj, ())
            return obj
        return self._combine(other, int.__sub__)

    def multiply_and_round_down(self, factor: float) -> Resources:
        """Each amount times ``factor``, truncated (``Resources.multiplyAndRoundDown``)."""
        if not self.extras:
            return Resources._make(int(self.memory * factor), int(self.vcores * factor))
        return Resources(
            int(self.memory * factor), int(self.vcores * factor), {n: int(v * factor) for n, v in self.extras}
        )

    def componentwise_min(self, other: Resources) -> Resources:
        """``Resources.componentwiseMin``."""
        if not self.extras and not other.extras:
            if self.memory <= other.memory and self.vcores <= other.vcores:
                return self
            return Resources._make(min(self.memory, other.memory), min(self.vcores, other.vcores))
        return self._combine(other, min)

    def componentwise_max(self, other: Resources) -> Resources:
        """``Resources.componentwiseMax``."""
        if not self.extras and not other.extras:
            if self.memory >= other.memory and self.vcores >= other.vcores:
                return self
            return Resources._make(max(self.memory, other.memory), max(self.vcores, other.vcores))
        return self._combine(other, max)

    def fits_in(self, other: Resources) -> bool:
        """Every amount at most ``other``'s (``Resources.fitsIn``; a type ``other`` lacks counts as 0)."""
        if self.memory > other.memory or self.vcores > other.vcores:
            return False
        return not self.extras or all(v <= other.get(n) for n, v in self.extras)

    def fits_with(self, extra: Resources, limit: Resources) -> bool:
        """``(self + extra).fits_in(limit)`` without building the sum (the assignment's hot path)."""
        if self.memory + extra.memory > limit.memory or self.vcores + extra.vcores > limit.vcores:
            return False
        if not self.extras and not extra.extras:
            return True
        return (self + extra).fits_in(limit)

    def is_none(self) -> bool:
        """All amounts zero."""
        return self.memory == 0 and self.vcores == 0 and all(v == 0 for _, v in self.extras)

    def any_positive(self) -> bool:
        """Some amount above zero."""
        return self.memory > 0 or self.vcores > 0 or any(v > 0 for _, v in self.extras)

    def dominant_share(self, cluster: Resources) -> float:
        """The largest of this vector's shares of ``cluster``, type by type (DRF's dominant share);
        a type the cluster has none of counts as 0."""
        best = 0.0
        for name, amount in self.items():
            total = cluster.get(name)
            if total > 0:
                share = amount / total
                if share > best:
                    best = share
        return best

    # ------------------------------------------------------------------ text
    def __str__(self) -> str:
        """YARN's ``Resource.toString``: ``<memory:1024, vCores:1>`` (extras appended)."""
        text = f"<memory:{self.memory}, vCores:{self.vcores}"
        for name, amount in self.extras:
            text += f", {name}: {amount}"
        return text + ">"

    def to_config(self) -> str:
        """The allocation-file string that parses back to this value (``memory-mb=1024, vcores=1, gpu=2``)."""
        return ", ".join(f"{name}={amount}" for name, amount in self.items())


_NONE = Resources()
_new = object.__new__
# the slots' own setters: what object.__setattr__ calls, without the name lookup (a frozen class)
_set_memory = Resources.__dict__["memory"].__set__
_set_vcores = Resources.__dict__["vcores"].__set__
_set_extras = Resources.__dict__["extras"].__set__


# --------------------------------------------------------------------------- parsing
#: ``FairSchedulerConfiguration``'s patterns (Java regexes: ASCII ``\d`` and ``\s``)
_PERCENTAGE = r"(-?(\d+)(\.\d*)?)\s*%\s*"
_VALUE = r"(-?\d+)(\.\d*)?\s*"
_WITH_SPACES = re.compile(r"-?\d+(?:\.\d*)?\s*[a-z]+\s*", re.ASCII)
_PREFIX = "Error reading resource config--invalid resource definition: "
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_JAVA_LONG = re.compile(r"[+-]?[0-9]+", re.ASCII)


def _split(text: str, sep: str) -> list[str]:
    """Java ``String.split`` on a literal: trailing empty strings dropped."""
    parts = text.split(sep)
    if len(parts) == 1:
        return parts
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _error(message: str) -> ResourceParseError:
    return ResourceParseError(message)


@frozen
class ConfigurableResources:
    """A resource amount as an allocation file states it (YARN ``ConfigurableResource``):
    absolute amounts, or percentages of the cluster resolved when the cluster is known.

    ``amounts`` / ``percentages`` hold the types the text listed; a type it did
    not list gets ``unlisted`` (an amount) or ``unlisted_percentage`` (a fraction).
    """

    text: str
    amounts: Mapping[str, int] | None = None
    unlisted: int = 0
    percentages: Mapping[str, float] | None = None
    unlisted_percentage: float = 0.0

    @property
    def is_percentage(self) -> bool:
        return self.percentages is not None

    def resolve(self, cluster: Resources | None = None, types: Iterable[str] = ()) -> Resources:
        """The amounts for ``cluster`` (``ConfigurableResource.getResource(clusterResource)``):
        a percentage is truncated, ``(long)(cluster × fraction)``.  ``types``: extra
        resource types to fill for unlisted ones (besides the cluster's)."""
        names = dict.fromkeys((MEMORY, VCORES, *(cluster.names if cluster is not None else ()), *types))
        if self.percentages is None:
            amounts = self.amounts or {}
            names.update(dict.fromkeys(amounts))
            return Resources.of({n: amounts.get(n, self.unlisted) for n in names})
        if cluster is None:
            raise _error(f"{self.text!r}: a percentage needs the cluster's resources")
        pct = self.percentages
        return Resources.of(
            {n: java_long(cluster.get(n) * pct.get(n, self.unlisted_percentage)) for n in names}
        )


def parse_configurable(
    text: str, missing: int = UNBOUNDED, types: Iterable[str] | None = None
) -> ConfigurableResources:
    """Read a resource string as YARN's ``FairSchedulerConfiguration.parseResourceConfigValue(value, missing)``
    does, keeping percentages unresolved.

    Three forms: ``name=value`` pairs (``"memory-mb=1024, vcores=2, gpu=1"``,
    or all percentages ``"vcores=75%, memory-mb=40%"``; a type not listed is
    ``missing`` — or 100 % for percentages); percentages (``"50%"`` for every
    type, ``"50% memory, 25% cpu"``); amounts (``"1024 mb, 2 vcores"``,
    fractions dropped as ``Integer.parseInt`` of the digits does).  ``types``:
    the extra resource types that may be named (YARN's ``yarn.resource-types``);
    ``None`` accepts any well-formed name.  Errors are :class:`ResourceParseError`
    with YARN's messages, checked in YARN's order.

    Deviation: YARN gives an unlisted ``vcores`` of a ``name=value`` string
    ``(int) Long.MAX_VALUE`` = -1 (``ResourceUtils.createResourceWithSameValue``);
    here it is ``missing`` like every other type.
    """
    if not isinstance(text, str):
        raise _error(f"a resource string was expected, got {text!r}")
    if not java_trim(text):
        raise _error("Error reading resource config--the resource string is empty.")
    if "=" in text:
        return _parse_new_style(text, missing, types)
    if "%" in text:
        return _parse_old_percentage(text)
    return _parse_old_absolute(text)


def parse_resources(
    text: str, cluster: Resources | None = None, missing: int = UNBOUNDED, types: Iterable[str] | None = None
) -> Resources:
    """:func:`parse_configurable`, resolved for ``cluster`` (needed for percentages).

    >>> parse_resources("1024 mb, 2 vcores")
    Resources(memory=1024, vcores=2, extras=())
    >>> parse_resources("50%", Resources(10240, 4)).memory
    5120
    """
    if types is None and cluster is not None:
        types = [n for n, _ in cluster.extras]
    return parse_configurable(text, missing, types).resolve(cluster, types or ())


def _find(values: list[str], unit: str) -> str:
    """``findResourceFromValues``: the first element containing ``unit``, trimmed."""
    for value in values:
        if unit in value:
            return java_trim(value)
    raise _error(f"Missing resource: {unit}")


def _parse_int(digits: str) -> int:
    value = int(digits)
    if not _INT_MIN <= value <= _INT_MAX:  # Integer.parseInt's NumberFormatException, wrapped
        raise _error("Error reading resource config")
    return value


def _parse_old_absolute(text: str) -> ConfigurableResources:
    lower = text.lower()
    parts = _split(lower, ",")
    if len(parts) != 2:
        parts = _WITH_SPACES.findall(lower)
        if len(parts) != 2:
            raise _error(f"Cannot parse resource values from input: {text}")
    amounts = {}
    for unit, name, label in (("mb", MEMORY, "memory"), ("vcores", VCORES, "vcores")):
        element = _find(parts, unit)
        match = re.match(_VALUE + unit, element, re.ASCII)
        if match is None:
            raise _error(f"Invalid value of {label}: {element}")
        value = _parse_int(match.group(1))
        if value < 0:
            raise _error(f"Invalid value of {label}: {value}, value should not be negative!")
        amounts[name] = value
    return ConfigurableResources(text, amounts=amounts, unlisted=0)


def _percentage(values: list[str], resource: str) -> float:
    element = _find(values, resource)
    match = re.fullmatch(_PERCENTAGE + resource, element, re.ASCII)
    if match is None:
        what = f"of {resource}: " if resource else ": "
        raise _error(f"Invalid percentage {what}{element}".replace("percentage : ", "percentage: "))
    fraction = float(match.group(1)) / 100.0
    if fraction < 0:
        raise _error(f"Invalid percentage: {element}, percentage should not be negative!")
    return fraction


def _parse_old_percentage(text: str) -> ConfigurableResources:
    values = _split(text.lower(), ",")
    if len(values) == 1:
        every = _percentage(values, "")
        return ConfigurableResources(text, percentages={}, unlisted_percentage=every)
    memory = _percentage(values, "memory")
    cpu = _percentage(values, "cpu")
    return ConfigurableResources(text, percentages={MEMORY: memory, VCORES: cpu}, unlisted_percentage=0.0)


def _known(name: str, text: str, types: Iterable[str] | None) -> None:
    if name in (MEMORY, VCORES):
        return
    if (types is not None and name not in types) or not _NAME.match(name) or name == "memory":
        raise _error(
            f"{_PREFIX}{text}. The resource name, \"{name}\" was not recognized. Please check the value "
            "of yarn.resource-types in the Resource Manager's configuration files."
        )


def _parse_new_style(text: str, missing: int, types: Iterable[str] | None) -> ConfigurableResources:
    types = None if types is None else set(types)
    as_percent = "%" in text
    amounts: dict[str, int] = {}
    percentages: dict[str, float] = {}
    for element in _split(text, ","):
        parts = _split(element, "=")
        if len(parts) != 2:
            raise _error(f"{_PREFIX}{text}. Every resource must be of the form: name=value.")
        name, value = java_trim(parts[0]), java_trim(parts[1])
        if as_percent:
            match = re.fullmatch(_PERCENTAGE, value, re.ASCII)
            fraction = float(match.group(1)) / 100.0 if match is not None else -1.0
            if fraction < 0:
                raise _error(
                    f"{_PREFIX}{text}. The resource values must all be percentages. \"{value}\" is either not a "
                    "non-negative number or does not include the '%' symbol."
                )
            _known(name, text, types)
            percentages[name] = fraction
        else:
            if not _JAVA_LONG.fullmatch(value) or not -(2**63) <= int(value) <= UNBOUNDED:
                raise _error(
                    f"{_PREFIX}{text}. The resource values must all be integers. \"{value}\" is not an integer."
                )
            amount = int(value)
            if amount < 0:
                raise _error(f"Invalid value of {name}: {amount}, value should not be negative!")
            _known(name, text, types)
            amounts[name] = amount
    if as_percent:
        return ConfigurableResources(text, percentages=percentages, unlisted_percentage=1.0)
    return ConfigurableResources(text, amounts=amounts, unlisted=missing)


__all__ = [
    "MEMORY",
    "UNBOUNDED",
    "VCORES",
    "ConfigurableResources",
    "ResourceParseError",
    "Resources",
    "normalize",
    "parse_configurable",
    "parse_resources",
]


def normalize(ask: Resources, minimum: Resources, maximum: Resources, increment: Resources) -> Resources:
    """An ask as YARN's schedulers size it (``SchedulerUtils.normalizeRequest`` →
    ``DominantResourceCalculator.normalize``): each resource type at least its ``minimum``,
    rounded up to a multiple of its ``increment`` (none for an increment of 0), at most its
    ``maximum`` (a type the maximum does not list is not capped).  Refusing an ask above the
    maximum is the caller's (``SchedulerUtils.validateResourceRequest``)."""
    values: dict[str, int] = {}
    for name, value in ask.items():
        value = max(value, minimum.get(name))
        step = increment.get(name)
        if step > 0:
            value = -(-value // step) * step
        if name in maximum.names:
            value = min(value, maximum.get(name))
        values[name] = value
    for name in (*minimum.names, *increment.names):  # a type the ask omits still gets its minimum
        if name not in values and minimum.get(name) > 0:
            step = increment.get(name)
            value = minimum.get(name)
            values[name] = -(-value // step) * step if step > 0 else value
    return Resources.of(values)

