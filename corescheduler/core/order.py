"""The heartbeat order: schedulables kept sorted by their policy's order key.

The scheduler keeps pools, and the jobs inside each pool, in the order a
heartbeat offers them slots (Hadoop sorts them with its comparators on every
heartbeat; here only the one that launched or released a task moves).  Each
item carries its current key in ``_key`` (set by the scheduler from the share
policy's ``order_key``).

A plain list with :mod:`bisect` rather than ``sortedcontainers.SortedKeyList``:
these orders hold tens of pools and at most a few thousand jobs a pool, where a
list's insert and delete (a memmove) cost less than the sorted containers'
bookkeeping, and iteration — the heartbeat's inner loop — is the list's own.
Measured on the FB-2010 day (``benchmarks/bench_simulator.py``): see
``benchmarks/README.md``.  Order among equal keys is insertion order (as
``SortedKeyList``); the built-in policies' keys end with the name, so they do
not tie.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from operator import attrgetter
from typing import Any

from corescheduler.errors import UnorderedKey

_key = attrgetter("_key")


class KeyedOrder:
    """A list of items sorted by ``item._key``; an item's key must not change
    while it is in the order (remove it, change the key, add it back)."""

    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: list[Any] = []

    def add(self, item: Any) -> None:
        """Insert ``item`` after any items with an equal key.

        :class:`UnorderedKey` if the key does not order against its new neighbours (a NaN
        compares false with everything, so the bisected order would be wrong, silently): two
        comparisons at C speed, not a scan of every key on the heartbeat path."""
        items = self._items
        key = item._key
        i = bisect_right(items, key, key=_key)
        try:
            unordered = (i and not items[i - 1]._key <= key) or (i < len(items) and not key <= items[i]._key)
        except TypeError:  # keys of a class that defines only <, all bisection needs
            unordered = False
        if unordered:
            raise UnorderedKey(key)
        items.insert(i, item)

    def remove(self, item: Any) -> None:
        """Remove ``item`` (the very object); ``ValueError`` if absent.

        A policy's keys that do not compare (``2+1j``, ``{}``, ``Decimal("NaN")``) do not
        fail here: when the bisection cannot compare them, a scan finds the very object,
        so an item always leaves (the caller names the policy when it adds one back).
        The scheduler refuses NaN in keys where they enter (:func:`has_nan`)."""
        items = self._items
        try:
            i = bisect_left(items, item._key, key=_key)
        except Exception:  # keys that do not compare (TypeError, decimal.InvalidOperation, a plugin's __lt__)
            i = 0
        n = len(items)
        while i < n:
            if items[i] is item:
                del items[i]
                return
            i += 1
        raise ValueError(f"{item!r} is not in the order (or its key changed while in it)")

    def clear(self) -> None:
        self._items.clear()

    def update(self, items: Iterable[Any]) -> None:
        """Add many items at once (a stable sort: equal keys keep their order)."""
        self._items.extend(items)
        self._items.sort(key=_key)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __repr__(self) -> str:
        return f"KeyedOrder({self._items!r})"


def has_nan(key: Any) -> bool:
    """Whether ``key`` is a NaN float or a tuple with one: a NaN compares false with
    everything, so the bisected order would be wrong, silently.  Cheap (only a float or
    a tuple's own items are looked at; keys are computed per reposition)."""
    kind = type(key)
    if kind is tuple:
        for part in key:
            if type(part) is float and part != part:
                return True
        return False
    return kind is float and key != key


__all__ = ["KeyedOrder", "UnorderedKey", "has_nan"]
