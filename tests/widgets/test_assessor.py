"""Assessor callbacks driven headlessly: pooling (de-dup by span, shuffled, names hidden),
line-numbered chunks, grades, skip, undo, autosave in the memory format, exact resume."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from memlab.embed.hashing import HashingProvider
from memlab.eval.datasets import load_memory_dataset
from memlab.eval.judged import judged_spans
from memlab.widgets import Assessor
from memlab.widgets.assessor import parse_lines

pytest.importorskip("ipywidgets")

DATA = Path(__file__).resolve().parents[1] / "data"
# vector-only over hashed bag-of-words vectors (no model loaded); the provider id only
# selects the vector path, the embedder given is the one used
VECTOR = ({"memorySearch": {"provider": "openai", "query": {"hybrid": {"enabled": False}}}},
          HashingProvider())


@pytest.fixture()
def workspace(tmp_path):
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    for day in range(1, 7):
        lines = [f"# 2026-05-0{day}", "", f"- billing deploy note {day}",
                 f"- restic backup run {day} OK", f"- lunch spot number {day}"]
        (ws / "memory" / f"2026-05-0{day}.md").write_text("\n".join(lines) + "\n")
    (ws / "MEMORY.md").write_text("# Memory\n\n- billing deploys on Tuesdays\n")
    return ws


def _systems():
    return {"kw": "keyword", "vec": VECTOR}


def _make(ws, out, **kw):
    return Assessor(ws, _systems(), out, queries=["billing deploy", "restic backup"], k=3,
                    **kw)


def test_pool_dedups_shuffles_and_hides_systems(workspace, tmp_path):
    a = _make(workspace, tmp_path / "a")
    pool = a.pool("a001")
    spans = [(i["path"], i["start_line"], i["end_line"]) for i in pool]
    assert len(spans) == len(set(spans))
    # the pool is the union of each system's top 3
    union = set()
    for pipe in a.pipelines().values():
        hits = pipe.transform(pd.DataFrame({"qid": ["x"], "query": ["billing deploy"]}))
        union |= {(h.path, h.start_line, h.end_line) for h in hits.head(3).itertuples()}
    assert set(spans) == union and len(union) > 3
    same = _make(workspace, tmp_path / "b").pool("a001")
    other = _make(workspace, tmp_path / "c", seed=7).pool("a001")
    assert same == pool and sorted(map(str, other)) == sorted(map(str, pool))
    assert other != pool  # another seed, another order
    assert a.widget is not None  # built
    shown = a.header.value + a.chunk.value
    for name in ("vec", "kw", "keyword", "systems"):
        assert name not in shown


def test_chunk_lines_are_numbered(workspace, tmp_path):
    a = _make(workspace, tmp_path / "a")
    cur = a.current
    text = (workspace / cur["path"]).read_text().split("\n")
    assert cur["lines"] == [(n, text[n - 1]) for n in range(cur["start_line"],
                                                             cur["end_line"] + 1)]
    assert a.widget is not None
    assert f"{cur['start_line']:>5} " in a.chunk.value


def test_transcript_chunks_show_jsonl_line_numbers(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(DATA / "mining" / "workspace", ws)
    (ws / "sessions" / "main").mkdir(parents=True)
    shutil.copy(DATA / "mining" / "sessions" / "main" / "mine-1.jsonl", ws / "sessions/main")
    a = Assessor(ws, {"kw": "keyword"}, tmp_path / "out", queries=["x"])
    lines = a.chunk_lines("sessions/main/mine-1.jsonl", 1, 17)
    assert lines[0] == (2, "User: When do we deploy billing now?")


def test_grades_skip_undo_and_saved_format(workspace, tmp_path):
    out = tmp_path / "labels"
    a = _make(workspace, out)
    first = a.current
    a.mark(str(first["start_line"] + 2), 2)
    a.mark(f"{first['start_line'] + 3}-{first['start_line'] + 3}", 1)
    a.next()
    second = a.current
    assert second["item"] == 1
    a.skip()
    a.mark("", 0)  # the third chunk, whole, explicitly not relevant
    a.undo()
    assert a.progress()["skipped"] == 1 and a.current["grades"] == {}
    with pytest.raises(ValueError, match="outside this chunk"):
        a.mark("999", 2)
    with pytest.raises(ValueError, match="grade must be one of"):
        a.mark("", 3)
    ds = load_memory_dataset(out)
    assert ds.queries["query"].tolist() == ["billing deploy", "restic backup"]
    rows = ds.qrels.values.tolist()
    assert rows == [["a001", first["path"], first["start_line"] + 2, first["start_line"] + 2,
                     2], ["a001", first["path"], first["start_line"] + 3,
                          first["start_line"] + 3, 1]]
    judged = judged_spans(ds)  # the finished chunk is judged; the skipped one is not
    assert ((judged["path"] == first["path"]) & (judged["start_line"] == first["start_line"])
            & (judged["end_line"] == first["end_line"])).any()
    assert not ((judged["path"] == second["path"])
                & (judged["start_line"] == second["start_line"])).any()


def test_resume_is_exact(workspace, tmp_path):
    out = tmp_path / "labels"
    a = _make(workspace, out)
    a.mark(None, 2)
    a.next()
    a.skip()
    a.mark(str(a.current["start_line"]), 1)
    saved = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    b = Assessor(workspace, _systems(), out)  # no queries given: all from the saved state
    assert b.position == a.position and b.current == a.current
    assert b.pools == a.pools and b.log == a.log and b.progress() == a.progress()
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == saved
    for x in (a, b):  # the same actions from here give the same files
        x.next()
        x.mark("", 2)
        x.undo()
        x.skip_query()
    assert json.loads((out / "assessor.json").read_text())["log"] == a.log == b.log
    assert b.position == (1, 0)  # the first query's pool left, the second begins
    b.skip_query()
    assert b.done and b.current is None
    with pytest.raises(ValueError, match="every query is labelled"):
        b.next()


def test_buttons_drive_it_headlessly(workspace, tmp_path):
    a = _make(workspace, tmp_path / "labels")
    assert a.widget is not None
    start = a.current["start_line"]
    a.lines_box.value = str(start)
    a.buttons["2"].click()
    assert a.current["grades"] == {start: 2} and a.lines_box.value == ""
    a.lines_box.value = "999"
    a.buttons["1"].click()
    assert "outside this chunk" in a.message.value
    a.buttons["next"].click()
    a.buttons["skip"].click()
    assert a.position == (0, 2)
    a.buttons["undo"].click()
    assert a.position == (0, 1)
    a.new_query.value = "lunch spot"  # as when Enter is pressed (continuous_update off)
    assert a.queries[-1]["text"] == "lunch spot" and a.new_query.value == ""


def test_labels_evaluate_with_the_unjudged_share(workspace, tmp_path):
    from memlab.eval.systems import evaluate_systems

    out = tmp_path / "labels"
    a = Assessor(workspace, {"kw": "keyword"}, out, queries=["billing deploy"], k=3)
    a.mark(None, 2)
    a.next()
    result = evaluate_systems(load_memory_dataset(out), ["keyword"], ["ndcg@10"],
                              n_resamples=20)
    share = result.options["unjudged_share"]["keyword"]
    assert 0 < share < 1


def test_parse_lines():
    assert parse_lines("L3-L4; 6", 1, 9) == [(3, 4), (6, 6)]
    with pytest.raises(ValueError, match="not N or N-M"):
        parse_lines("a-b", 1, 9)


def test_label_from_qrels_replays_existing_judgments(workspace, tmp_path):
    a = Assessor(workspace, {"kw": "keyword"}, tmp_path / "labels",
                 queries=["billing deploy", "restic backup"], k=3)
    qrels = pd.DataFrame({"qid": ["a001", "a002"], "path": ["memory/2026-05-01.md"] * 2,
                          "start_line": [3, 4], "end_line": [3, 4], "grade": [2, 1]})
    judged = a.label_from_qrels(qrels)
    assert a.done and judged == a.progress()["judged"] == 6
    ds = load_memory_dataset(tmp_path / "labels")
    assert ds.qrels.values.tolist() == [["a001", "memory/2026-05-01.md", 3, 3, 2],
                                        ["a002", "memory/2026-05-01.md", 4, 4, 1]]


def test_a_2026_9_config_is_pooled_on_its_own_line(workspace, tmp_path):
    """A ``memory.search`` config among the systems ranks as OpenClaw 2026.9 does (its
    ``MemorySearch``), never as the 2026.7 defaults."""
    from memlab.openclaw import MemorySearch

    nine = {"memory": {"search": {"provider": "none"}}}
    a = Assessor(workspace, {"nine": nine}, tmp_path / "out", queries=["billing deploy"], k=3)
    run = a.runs(depth=3)["nine"]
    want = MemorySearch(workspace, nine).search("billing deploy", max_results=3, min_score=0.0)
    assert [(r.path, r.start_line, r.end_line) for r in run.itertuples()] == [
        (h["path"], h["startLine"], h["endLine"]) for h in want["results"]]
    assert {i["path"] for i in a.pool(a.queries[0]["id"])} == set(run["path"])
