"""Shared by the experiment scripts: run cases in parallel, write a generated section into docs/experiments.md."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any


def replace_section(doc: Path, heading: str, begin: str, end: str, text: str) -> None:
    """Put ``text`` between the ``begin``/``end`` markers of ``doc`` (appending
    the section under ``heading`` if the markers are absent); the rest of the
    file is left as it is, so reruns replace only their own tables."""
    content = doc.read_text() if doc.exists() else "# Experiments\n"
    block = f"{begin}\n{text}\n{end}"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if pattern.search(content):
        content = pattern.sub(lambda _: block, content, count=1)
    else:
        content = content.rstrip() + f"\n\n{heading}\n\n{block}\n"
    doc.write_text(content.rstrip() + "\n")


def run_all(fn: Callable[[Any], Any], cases: Iterable[Any]) -> dict[Any, Any]:
    """``{case: fn(case)}``, the cases run in parallel threads (each runs the
    simulator in a subprocess), one per core."""
    cases = list(cases)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(zip(cases, pool.map(fn, cases)))
