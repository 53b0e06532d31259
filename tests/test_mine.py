"""Weak labels mined from transcripts: 3 searches, 2 followed by memory_get → 3 queries and
the right spans; unused searches kept and tagged."""

from __future__ import annotations

import json
from pathlib import Path

from memlab.eval.datasets import load_memory_dataset
from memlab.mine import CITATION, mine_transcripts, write_mined

DATA = Path(__file__).resolve().parent / "data" / "mining"


def test_three_searches_two_used():
    mined = mine_transcripts(DATA / "sessions", DATA / "workspace")
    q = mined.queries
    assert q["query"].tolist() == ["billing deploy window", "NAS IP address", "pizza place"]
    assert [t for t in q["tags"]] == [["weak"], ["weak"], ["unused"]]
    assert [str(t) for t in q["now"]] == ["2026-05-02 09:00:06+00:00",
                                          "2026-05-02 09:05:01+00:00",
                                          "2026-05-02 09:10:01+00:00"]
    spans = mined.qrels.values.tolist()
    # memory_get from=4 lines=2, then cited #L4 (grade 2), merged into one span;
    # memory_get of MEMORY.md without a range: the search hit's lines 5-5
    assert spans == [["m0001", "memory/2026-05-01.md", 4, 5, 2],
                     ["m0002", "MEMORY.md", 5, 5, 1]]
    assert not mined.skipped


def test_written_dataset_loads_and_keeps_unused_apart(tmp_path):
    mined = mine_transcripts(DATA / "sessions" / "main" / "mine-1.jsonl", DATA / "workspace")
    write_mined(mined, DATA / "workspace", tmp_path / "mined")
    ds = load_memory_dataset(tmp_path / "mined")
    assert ds.unjudged == ["m0003"]
    assert len(ds.qrels) == 2
    first = json.loads((tmp_path / "mined" / "queries.jsonl").read_text().splitlines()[0])
    assert first["now"] == "2026-05-02T09:00:06Z" and first["source"] == "mine-1.jsonl:3"


def test_uses_outside_the_workspace_are_skipped(tmp_path):
    line = {"type": "message", "message": {"role": "assistant", "content": [
        {"type": "toolCall", "id": "s", "name": "memory_search", "arguments": {"query": "x"}},
        {"type": "toolCall", "id": "g", "name": "memory_get",
         "arguments": {"path": "../secret.md", "from": 1, "lines": 1}}]}}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(line) + "\n")
    mined = mine_transcripts(path, DATA / "workspace")
    assert len(mined.queries) == 1 and mined.queries["tags"].iloc[0] == ["unused"]
    assert mined.skipped and "../secret.md" in mined.skipped[0]


def test_citation_pattern():
    text = "see memory/2026-05-01.md#L4 and MEMORY.md#L1-L9, not x.md#Lfoo"
    assert [m.groups() for m in CITATION.finditer(text)] == [
        ("memory/2026-05-01.md", "4", None), ("MEMORY.md", "1", "9")]
