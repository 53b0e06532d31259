"""Layouts: daily notes one turn a line; transcripts that memlab.sessions renders."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from memlab.convert.layout import Session, Turn, write_layout
from memlab.sessions import parse_session


def _sessions():
    return [Session("b", dt.datetime(2023, 5, 9, 8, 0), "Second",
                    [Turn("t3", "user", None, "multi\nline   text")]),
            Session("a", dt.datetime(2023, 5, 8, 9, 0), "First",
                    [Turn("t1", "user", "Ann", "hello"), Turn("t2", "assistant", "Bo", "hi")])]


def test_notes_layout(tmp_path):
    placed = write_layout(_sessions(), tmp_path, "notes")
    assert placed.files == ["memory/2023-05-08.md", "memory/2023-05-09.md"]
    lines = (tmp_path / "memory/2023-05-09.md").read_text().split("\n")
    assert lines[placed.turns["t3"][1] - 1] == "User: multi line text"
    assert placed.sessions["a"] == ("memory/2023-05-08.md", 3, 5)


def test_transcripts_layout_renders_every_turn(tmp_path):
    placed = write_layout(_sessions(), tmp_path, "transcripts", agent="main")
    path = placed.turns["t2"][0]
    assert path == "sessions/main/a.jsonl"
    records = [json.loads(x) for x in (tmp_path / path).read_text().splitlines()]
    assert records[0]["type"] == "session"
    t = parse_session(tmp_path / path, path=path)
    assert t.line_map == [placed.turns["t1"][1], placed.turns["t2"][1]]
    assert t.lines == ["User: Ann: hello", "Assistant: Bo: hi"]


def test_duplicate_ids_and_bad_layout(tmp_path):
    s = _sessions()
    s[0].turns.append(Turn("t1", "user", None, "x"))
    with pytest.raises(ValueError, match="duplicate turn id 't1'"):
        write_layout(s, tmp_path, "notes")
    with pytest.raises(ValueError, match="layout must be one of"):
        write_layout(_sessions(), tmp_path, "wiki")
