"""Chunking version 5 (OpenClaw 2026.9.6): golden values from the real package
(tests/data/openclaw-2026.9/golden.json, written by parity/golden_tiered.mjs) and hand-computed
cases. The 2026.7.35 chunker stays the default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlab.annotations import chunk_metadata
from memlab.chunking import (
    Chunk,
    chunk_markdown,
    chunk_memory_file,
    curated_entry_kind,
    sha256_hex,
    weighted_length,
    weighted_length_v5,
)

GOLDEN = json.loads((Path(__file__).parent / "data" / "openclaw-2026.9" / "golden.json")
                    .read_text(encoding="utf-8"))


def _as_js(chunk: Chunk) -> dict:
    out = {"startLine": chunk.start_line, "endLine": chunk.end_line, "text": chunk.text,
           "hash": chunk.hash}
    if chunk.entry_start_line is not None:
        out |= {"entryStartLine": chunk.entry_start_line, "entryEndLine": chunk.entry_end_line}
    return out


def test_golden_is_from_2026_9_6():
    assert GOLDEN["openclaw"] == "2026.9.6"


@pytest.mark.parametrize("case", GOLDEN["estimateStringChars"], ids=lambda c: repr(c["text"]))
def test_weighted_length_v5_equals_estimate_string_chars(case):
    assert weighted_length_v5(case["text"]) == case["expected"]


@pytest.mark.parametrize("case", GOLDEN["chunkMarkdown"],
                         ids=lambda c: f"{c['name']}-{'entry' if c['perEntry'] else 'plain'}")
def test_chunk_markdown_v5_equals_openclaw(case):
    chunks = chunk_markdown(case["content"], case["tokens"], case["overlap"], version=5,
                            per_entry=case["perEntry"], clamp=False, drop_blank=False)
    assert [_as_js(c) for c in chunks] == case["expected"]


@pytest.mark.parametrize("case", GOLDEN["prepareMemoryIndexChunks"], ids=lambda c: c["path"])
def test_indexed_chunks_and_metadata_equal_prepare_memory_index_chunks(case):
    chunks = chunk_memory_file(case["path"], case["content"], version=5)
    meta = chunk_metadata(case["path"], case["content"], chunks)
    got = [_as_js(c) | {"importance": m.importance, "triggers": m.triggers,
                        "projectKey": m.project_key} for c, m in zip(chunks, meta, strict=True)]
    assert got == case["expected"]


def test_entry_boundaries_by_hand():
    chunks = chunk_markdown("# M\n- a\n  b\n* c\n## S\ntext\n- d", version=5, per_entry=True)
    assert [(c.start_line, c.end_line, c.entry_start_line, c.entry_end_line) for c in chunks] == [
        (1, 1, None, None), (2, 4, 2, 4), (5, 6, None, None), (7, 7, 7, 7)]
    assert [curated_entry_kind(x) for x in ("- a", "-a", " - a", "# h", "#h", "####### h")] == [
        "entry", None, None, "section", None, None]


def test_overlap_carries_the_tail_of_a_line():
    # tokens 8: maxChars 32, overlap 2: 8 chars. Line 2 (21 with its newline) does not fit after
    # line 1 (21): flush, window = min(8, 32 - 21) = 8 > 21 is false, so the tail of line 1 of
    # at most 8 - 1 = 7 weighted chars is carried (7 + 1 = 8), then line 2 is added (29 <= 32).
    a, b = "a" * 20, "b" * 20
    chunks = chunk_markdown(f"{a}\n{b}", tokens=8, overlap=2, version=5)
    assert [(c.start_line, c.end_line, c.text) for c in chunks] == [
        (1, 1, a), (1, 2, "a" * 7 + "\n" + b)]
    # 2026.7.35 carried the whole line (21 >= 8) and added line 2 on top (42 > 32).
    old = chunk_markdown(f"{a}\n{b}", tokens=8, overlap=2)
    assert [(c.start_line, c.end_line, c.text) for c in old] == [(1, 1, a), (1, 2, f"{a}\n{b}")]


def test_cjk_weights_and_resplit_differ_from_2026_7():
    assert (weighted_length("𠀀"), weighted_length_v5("𠀀")) == (4, 16)
    assert (weighted_length("ᄀ"), weighted_length_v5("ᄀ")) == (1, 12)
    # "记" x 7 + "ababab" weighs 7 * 4 + 6 = 34 > maxChars 32 (tokens 8). 2026.9 re-cuts it
    # greedily by weight: 28 + 4 = 32 fits, the 5th ASCII char would not; 2026.7 cut it into
    # pieces of `tokens` = 8 code units.
    text = "记" * 7 + "ababab"
    assert [c.text for c in chunk_markdown(text, tokens=8, overlap=0, version=5)] == [
        "记" * 7 + "abab", "ab"]
    assert [c.text for c in chunk_markdown(text, tokens=8, overlap=0)] == ["记" * 7 + "a", "babab"]


def test_chunk_memory_file_strips_annotations_only_in_version_5():
    text = "- a <!-- importance: 9 -->\n- b"
    assert [c.text for c in chunk_memory_file("MEMORY.md", text)] == [text]
    assert [c.text for c in chunk_memory_file("MEMORY.md", text, version=5)] == ["- a", "- b"]
    # other memory files: stripped, not per entry; transcripts: untouched
    assert [c.text for c in chunk_memory_file("memory/x.md", text, version=5)] == ["- a\n- b"]
    assert [c.text for c in chunk_memory_file("sessions/a.jsonl", text, source="sessions",
                                              version=5)] == [text]
    assert chunk_memory_file("MEMORY.md", text, version=5)[0].hash == sha256_hex("- a")


def test_default_is_the_2026_7_chunker_and_bad_arguments_are_refused():
    text = "line\n" * 500
    assert chunk_markdown(text) == chunk_markdown(text, version=0)
    with pytest.raises(ValueError, match="chunking version 3"):
        chunk_markdown(text, version=3)
    with pytest.raises(ValueError, match="per_entry"):
        chunk_markdown(text, per_entry=True)
