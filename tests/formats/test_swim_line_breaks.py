"""The streamed SWIM reader splits lines as ``str.splitlines`` does, as the
whole-file reader did (issue 25 review: ``\\x0c`` between two jobs became an error)."""

from __future__ import annotations

import io

import pytest

from corescheduler.formats.workloads import swim

ROW = "job{}\t0\t0\t100\t0\t0"


@pytest.mark.parametrize("sep", ["\x0c", "\r", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\r\n"])
def test_every_splitlines_break_separates_jobs(sep):
    text = ROW.format(0) + sep + ROW.format(1) + "\n" + "\n" + ROW.format(2)
    lines = [(n, line.rstrip("\r")) for n, line in swim._text_lines(io.StringIO(text))]  # \r of \r\n: a blank
    expected = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    assert lines == expected


def test_breaks_across_chunks_match_splitlines(monkeypatch):
    monkeypatch.setattr(swim, "_CHUNK", 7)
    text = "\n".join(ROW.format(k) for k in range(5)).replace("\t0\n", "\t0\x0c", 2) + "\n\n\x0c" + ROW.format(9)
    lines = list(swim._text_lines(io.StringIO(text)))
    assert lines == [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
