"""LongMemEval converter: one dataset per question; has_answer turns map to their lines;
_abs questions are abstention; questions without has_answer fall back to their sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlab.convert.longmemeval import (
    LongMemEvalError,
    convert_longmemeval,
    parse_longmemeval_date,
)
from memlab.eval.collection import load_session_qrels
from memlab.eval.datasets import load_memory_dataset
from memlab.sessions import parse_session

MINI = Path(__file__).resolve().parents[1] / "data" / "longmemeval" / "longmemeval_mini.json"


@pytest.mark.parametrize("layout", ["notes", "transcripts"])
def test_has_answer_turns_map_to_their_lines(tmp_path, layout):
    entries = {e["question_id"]: e for e in json.loads(MINI.read_text())}
    report = convert_longmemeval(MINI, tmp_path, layout=layout)
    assert sorted(d.root.name for d in report.datasets) == sorted(entries)
    for info in report.datasets:
        entry = entries[info.root.name]
        ds = load_memory_dataset(info.root)
        expected = [t["content"] for s in entry["haystack_sessions"] for t in s
                    if t.get("has_answer")]
        if info.root.name.endswith("_abs") or not expected:
            continue
        found = []
        for r in ds.qrels.itertuples():
            file = info.root / "workspace" / r.path
            line = file.read_text().split("\n")[r.start_line - 1]
            if layout == "transcripts":
                assert r.start_line in parse_session(file, path=r.path).line_map
                found.append(json.loads(line)["message"]["content"])
            else:
                found.append(line.split(": ", 1)[1])
        assert found == expected
        assert (ds.qrels["grade"] == 2).all()


def test_tags_now_abstention_and_fallback(tmp_path):
    report = convert_longmemeval(MINI, tmp_path)
    by = {d.root.name: load_memory_dataset(d.root) for d in report.datasets}
    abs_ds = by["q-single-1_abs"]
    assert abs_ds.queries["tags"].iloc[0] == ["single-session-user", "none"]
    assert abs_ds.unjudged == ["q-single-1_abs"] and report.abstention == 1
    assert str(by["q-single-1"].queries["now"].iloc[0]) == "2023-05-30 23:40:00+00:00"
    pref = by["q-pref-3"]  # no has_answer turn: the answer session's turns, grade 1
    assert "session-evidence" in pref.queries["tags"].iloc[0]
    assert pref.qrels[["start_line", "grade"]].values.tolist() == [[4, 1], [5, 1]]
    sq = load_session_qrels(by["q-temporal-2"].root)
    assert len(sq) == 2 and sq["path"].tolist() == ["memory/2023-06-10.md",
                                                    "memory/2023-06-15.md"]


def test_same_day_sessions_share_a_note(tmp_path):
    report = convert_longmemeval(MINI, tmp_path, limit=1)
    ws = report.datasets[0].root / "workspace" / "memory"
    text = (ws / "2023-05-22.md").read_text()
    assert text.count("## Session") == 2


def test_errors_name_the_question(tmp_path):
    assert parse_longmemeval_date("2023/05/20 (Sat) 02:21").minute == 21
    entry = json.loads(MINI.read_text())[0]
    entry["haystack_dates"] = entry["haystack_dates"][:1]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([entry]))
    with pytest.raises(LongMemEvalError, match="question q-single-1: .* differ in length"):
        convert_longmemeval(path, tmp_path / "out")
