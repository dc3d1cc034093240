"""Where things are, for every test folder: the repository, the tests' own
data, and the steering repo's ``shared/`` beside the checkout (SPEC, scenarios,
SWIM traces)."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
DATA = TESTS / "data"
SHARED = REPO.parent / "shared"
EXAMPLES = REPO / "examples"
DOCS = REPO / "docs"
