"""Shared by the experiment scripts: write a generated section into docs/experiments.md."""

from __future__ import annotations

import re
from pathlib import Path


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
