"""Small helpers for the words of messages, pages and reports."""

from __future__ import annotations


def plural(count: int, noun: str, nouns: str | None = None, *, grouped: bool = True) -> str:
    """``"1 job"``, ``"2 jobs"``, ``"1,234 jobs"``: the count with the noun in its right number.

    ``nouns`` is the plural when it is not ``noun + "s"`` (``plural(n, "reduce", "reduces")``
    needs none; ``plural(n, "task running", "tasks running")`` does); ``grouped=False`` leaves
    out the thousands separator."""
    shown = f"{count:,}" if grouped else str(count)
    return f"{shown} {noun if count == 1 else (nouns or noun + 's')}"
