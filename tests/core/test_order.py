"""KeyedOrder: the heartbeat order of pools and jobs."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corescheduler.core.order import KeyedOrder


class Item:
    def __init__(self, key: object, name: str) -> None:
        self._key = key
        self.name = name

    def __repr__(self) -> str:
        return f"Item({self._key!r}, {self.name!r})"


def names(order: KeyedOrder) -> list[str]:
    return [i.name for i in order]


def test_items_iterate_by_key_and_equal_keys_keep_insertion_order():
    order = KeyedOrder()
    a, b, c, d = Item(2, "a"), Item(1, "b"), Item(2, "c"), Item(0, "d")
    for item in (a, b, c, d):
        order.add(item)
    assert names(order) == ["d", "b", "a", "c"]
    assert len(order) == 4 and order


def test_remove_takes_that_very_object_among_equal_keys():
    order = KeyedOrder()
    first, second, third = Item(1, "x"), Item(1, "y"), Item(1, "z")
    order.update([first, second, third])
    order.remove(second)
    assert names(order) == ["x", "z"]


def test_removing_an_absent_item_or_one_whose_key_changed_is_an_error():
    order = KeyedOrder()
    inside, outside = Item(1, "in"), Item(1, "out")
    order.add(inside)
    with pytest.raises(ValueError, match="not in the order"):
        order.remove(outside)
    order.add(Item(2, "next"))
    inside._key = 3  # changed while inside: a caller bug, reported, not silently ignored
    with pytest.raises(ValueError, match="its key changed"):
        order.remove(inside)


def test_clear_and_update_sort_stably():
    order = KeyedOrder()
    order.add(Item(9, "old"))
    order.clear()
    assert not order and len(order) == 0
    order.update([Item(3, "p"), Item(1, "q"), Item(3, "r")])
    assert names(order) == ["q", "p", "r"]


@given(st.lists(st.tuples(st.integers(0, 5), st.booleans()), max_size=60), st.integers(0, 10**6))
def test_matches_a_sorted_list_under_random_adds_and_removes(ops, seed):
    rng = random.Random(seed)
    order = KeyedOrder()
    model: list[Item] = []
    for n, (key, remove) in enumerate(ops):
        if remove and model:
            victim = model.pop(rng.randrange(len(model)))
            order.remove(victim)
        else:
            item = Item((key, n), str(n))
            order.add(item)
            model.append(item)
        assert [i.name for i in order] == [i.name for i in sorted(model, key=lambda i: i._key)]


def test_add_refuses_a_key_that_does_not_order_against_its_neighbours() -> None:
    """A NaN compares false with everything: the bisected order would be silently wrong, so
    the insertion refuses it (two comparisons, not a scan of every key)."""
    import math

    from corescheduler.core.order import UnorderedKey

    class Item:
        def __init__(self, key: object) -> None:
            self._key = key

    order = KeyedOrder()
    order.add(Item((0.5, "a")))
    order.add(Item((1.5, "c")))
    with pytest.raises(UnorderedKey) as caught:
        order.add(Item((math.nan, "b")))
    assert math.isnan(caught.value.key[0]) and len(order) == 2
    lone = KeyedOrder()
    lone.add(Item(1.0))
    with pytest.raises(UnorderedKey):
        lone.add(Item(math.nan))


def test_add_takes_keys_that_define_only_less_than() -> None:
    class OnlyLess:
        def __init__(self, v: int) -> None:
            self.v = v

        def __lt__(self, other: OnlyLess) -> bool:
            return self.v < other.v

    class Item:
        def __init__(self, key: object) -> None:
            self._key = key

    order = KeyedOrder()
    for v in (3, 1, 2, 2):
        order.add(Item(OnlyLess(v)))
    assert [item._key.v for item in order] == [1, 2, 2, 3]
