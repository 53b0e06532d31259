"""memlab.chunking against hand-computed boundaries and values from OpenClaw's own code.

Hand-computed cases use tokens=8, so maxChars = max(32, 8*4) = 32, and each line costs
weighted_length(line) + 1. Values marked "real OpenClaw" were produced by running
``chunkMarkdown`` / ``estimateStringChars`` / ``splitTextToUtf8ByteLimit`` from the
openclaw@2026.7.35 npm package under Node and pasted here.
"""

from __future__ import annotations

import hashlib
import time

import pytest

from memlab.chunking import (
    Chunk,
    chunk_id,
    chunk_markdown,
    is_blank,
    provider_input_cap,
    resolve_chunking,
    split_for_provider,
    split_text_to_utf8_byte_limit,
    weighted_length,
)
from memlab.text.js import utf16_length


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def spans(chunks: list[Chunk]) -> list[tuple[int, int]]:
    return [(c.start_line, c.end_line) for c in chunks]


def texts(chunks: list[Chunk]) -> list[str]:
    return [c.text for c in chunks]


# ------------------------------------------------------------------ weighted length


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("abc", 3),
        ("café", 4),  # é is one UTF-16 unit
        ("中文", 8),  # CJK counts 4 per char
        ("日本語です", 20),  # kanji + hiragana, all in U+2E80..U+9FFF
        ("한", 4),  # Hangul syllable
        ("！", 4),  # U+FF01 fullwidth
        ("ｱ", 1),  # U+FF71 halfwidth katakana: outside U+FF01..U+FF60
        ("\u2e7f", 1),  # just below the CJK radicals block
        ("\u2e80", 4),
        ("😀", 2),  # emoji: two UTF-16 units, not CJK
        ("𠀀", 4),  # U+20000 CJK Ext B: surrogate pair counted once, times 4
        ("\U0002fa1f", 4),  # last code point of the non-Latin set
        ("\U0002fa20", 2),  # outside it: plain astral char
        ("\U0002fa20中", 5),  # real OpenClaw quirk: U+2FA20's pair is collapsed once CJK present
        ("한！ｱ\u2e7f\u2e80", 14),  # real OpenClaw
    ],
)
def test_weighted_length(text: str, expected: int) -> None:
    assert weighted_length(text) == expected


def test_utf16_length() -> None:
    assert utf16_length("a😀中") == 4
    assert utf16_length("") == 0


# ------------------------------------------------------------------ packing


def test_greedy_packing_with_overlap_carry() -> None:
    # Four lines of 10 'a' cost 11 each; overlap=2 -> overlapChars=8.
    # L1 -> 11, L2 -> 22, L3: 33 > 32 -> flush [L1,L2]; carry back L2 (11 >= 8) -> [L2], 11;
    # push L3 -> 22; L4: 33 > 32 -> flush [L2,L3]; carry [L3]; push L4; final flush [L3,L4].
    line = "a" * 10
    chunks = chunk_markdown("\n".join([line] * 4), tokens=8, overlap=2)
    assert spans(chunks) == [(1, 2), (2, 3), (3, 4)]
    assert texts(chunks) == [f"{line}\n{line}"] * 3
    assert all(c.hash == sha(c.text) for c in chunks)


def test_no_overlap() -> None:
    line = "a" * 10
    chunks = chunk_markdown("\n".join([line] * 4), tokens=8, overlap=0)
    assert spans(chunks) == [(1, 2), (3, 4)]


def test_overlap_carry_is_whole_lines_and_can_keep_everything() -> None:
    # costs: 21, 2, 2, 21; overlap=3 -> overlapChars=12.
    # 21, 23, 25; L4: 46 > 32 -> flush (1-3). Carry from the back: 2, 4, 25 >= 12 -> all three
    # lines kept (25); push L4 -> 46; final flush (1-4).
    text = "\n".join(["x" * 20, "y", "z", "w" * 20])
    chunks = chunk_markdown(text, tokens=8, overlap=3)
    assert spans(chunks) == [(1, 3), (1, 4)]
    assert chunks[1].text == text


def test_overlap_carry_stops_when_reaching_exactly_overlap_chars() -> None:
    # costs 21, 4, 4, 21; overlapChars = 8. Flush (1-3) at L4 (29 + 21 > 32); carry from the
    # back: L3 -> 4, L2 -> 8 >= 8 stop -> [L2, L3]; push L4; final flush (2-4).
    text = "\n".join(["x" * 20, "aaa", "bbb", "y" * 20])
    chunks = chunk_markdown(text, tokens=8, overlap=2)
    assert spans(chunks) == [(1, 3), (2, 4)]
    assert chunks[1].text == "aaa\nbbb\n" + "y" * 20


def test_cjk_weighting_changes_packing() -> None:
    # "中文" costs 8+1, "abc" 3+1, "日本語です" 20+1: 9, 13, 34 > 32 -> flush (1-2).
    # With plain character counts (3 + 4 + 6 = 13) it would all fit in one chunk.
    chunks = chunk_markdown("中文\nabc\n日本語です", tokens=8, overlap=0)
    assert spans(chunks) == [(1, 2), (3, 3)]
    assert texts(chunks) == ["中文\nabc", "日本語です"]


def test_empty_lines_are_kept() -> None:
    # costs 2, 1, 1, 2 = 6 <= 32: a single chunk, blank lines preserved.
    chunks = chunk_markdown("a\n\n\nb", tokens=8)
    assert spans(chunks) == [(1, 4)]
    assert chunks[0].text == "a\n\n\nb"


def test_carriage_returns_stay_in_lines() -> None:
    chunks = chunk_markdown("a\r\nb\r\n", tokens=8)
    assert spans(chunks) == [(1, 3)]
    assert chunks[0].text == "a\r\nb\r\n"


def test_empty_text() -> None:
    assert chunk_markdown("") == []
    raw = chunk_markdown("", drop_blank=False)
    assert raw == [Chunk(1, 1, "", hashlib.sha256(b"").hexdigest())]


def test_blank_chunks_dropped_by_indexer_not_by_chunker() -> None:
    # costs 31 | 4, 3 | 31: the middle chunk (lines 2-3) is whitespace only.
    text = "\n".join(["x" * 30, "   ", "  ", "y" * 30])
    raw = chunk_markdown(text, tokens=8, overlap=0, drop_blank=False)
    assert spans(raw) == [(1, 1), (2, 3), (4, 4)]
    assert raw[1].text == "   \n  "
    kept = chunk_markdown(text, tokens=8, overlap=0)
    assert spans(kept) == [(1, 1), (4, 4)]


def test_blank_uses_javascript_trim() -> None:
    assert is_blank("\u3000\ufeff\u00a0\t")
    assert not is_blank("\x1c")  # Python's str.strip() would remove it, JS trim() does not
    assert not is_blank("\x85")
    assert chunk_markdown("\x1c") != []


# ------------------------------------------------------------------ overlap clamp


def test_resolve_chunking() -> None:
    assert resolve_chunking(400, 80) == (400, 80)
    assert resolve_chunking(8, 50) == (8, 7)
    assert resolve_chunking(8, -3) == (8, 0)
    assert resolve_chunking(0, 5) == (1, 0)


def test_overlap_clamped_at_config_time_only() -> None:
    # Eight lines of 5 chars cost 6 each. tokens=8, overlap=50.
    # clamp=True: overlap -> 7, overlapChars 28. Flush (1-5) at L6 and carry 6,12,18,24,30 >= 28
    # -> all five kept (30); push L6 (36); L7 flushes (1-6), carry L2..L6 (30); push L7;
    # L8 flushes (2-7), carry L3..L7; final flush (3-8).
    text = "\n".join(["aaaaa"] * 8)
    assert spans(chunk_markdown(text, tokens=8, overlap=50)) == [(1, 5), (1, 6), (2, 7), (3, 8)]
    # clamp=False is raw chunkMarkdown: overlapChars 200, every flush carries all lines.
    raw = chunk_markdown(text, tokens=8, overlap=50, clamp=False)
    assert spans(raw) == [(1, 5), (1, 6), (1, 7), (1, 8)]


# ------------------------------------------------------------------ over-long lines


def test_long_ascii_line_split_into_max_chars_segments() -> None:
    # 70 chars -> segments 32, 32, 6; each 32-char segment (cost 33) fills a chunk alone.
    line = "".join(chr(ord("a") + i % 26) for i in range(70))
    chunks = chunk_markdown(line, tokens=8, overlap=0)
    assert spans(chunks) == [(1, 1)] * 3
    assert texts(chunks) == [line[:32], line[32:64], line[64:]]


def test_cjk_line_resplit_into_token_sized_pieces() -> None:
    # 10 CJK chars: 10 UTF-16 units (<= 32) but weighted 40 > 32, so the segment is re-split
    # into pieces of tokens=8 code units: 8 chars (cost 33) and 2 chars (cost 9).
    line = "一二三四五六七八九十"
    chunks = chunk_markdown(line, tokens=8, overlap=0)
    assert texts(chunks) == ["一二三四五六七八", "九十"]
    assert spans(chunks) == [(1, 1), (1, 1)]


def test_segments_of_one_line_in_the_same_chunk_are_joined_with_newline() -> None:
    # 10 x U+20000: 20 units, weighted 40 > 32 -> pieces of 8 units = 4 chars (cost 17),
    # 4 chars (17), 2 chars (9). 17; 34 > 32 flush; 17 + 9 = 26 fits -> "4 chars\n2 chars".
    chunks = chunk_markdown("𠀀" * 10, tokens=8, overlap=0)
    assert texts(chunks) == ["𠀀" * 4, "𠀀" * 4 + "\n" + "𠀀" * 2]
    assert spans(chunks) == [(1, 1), (1, 1)]


def test_fine_split_never_cuts_a_surrogate_pair() -> None:
    # tokens=9: maxChars 36, fine step 9 units. 10 x U+20000 = 20 units, weighted 40 > 36.
    # Piece ends at unit 9 = a high surrogate -> extended to 10 units (5 chars), twice.
    chunks = chunk_markdown("𠀀" * 10, tokens=9, overlap=0)
    assert texts(chunks) == ["𠀀" * 5, "𠀀" * 5]


def test_coarse_split_counts_utf16_units_for_emoji() -> None:
    # 20 emoji = 40 units: first 32 units = 16 emoji (w 32), then 4 emoji.
    chunks = chunk_markdown("😀" * 20, tokens=8, overlap=0)
    assert texts(chunks) == ["😀" * 16, "😀" * 4]


def test_coarse_split_is_surrogate_safe() -> None:
    # "a" + 20 emoji = 41 units: unit 31 is the high half of emoji 16, so the cut backs off to
    # 31 units ("a" + 15 emoji) and the rest (5 emoji) is the next segment.
    chunks = chunk_markdown("a" + "😀" * 20, tokens=8, overlap=0)
    assert texts(chunks) == ["a" + "😀" * 15, "😀" * 5]
    for c in chunks:
        c.text.encode("utf-8")  # no lone surrogates


def test_one_megabyte_single_line_fast_and_lossless() -> None:
    line = "abcdefghij" * 100_000  # 1,000,000 chars / 1600 = 625 segments
    start = time.perf_counter()
    no_overlap = chunk_markdown(line, overlap=0)
    default = chunk_markdown(line)
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0
    assert len(no_overlap) == 625
    assert all(len(c.text) == 1600 and c.start_line == c.end_line == 1 for c in no_overlap)
    assert "".join(texts(no_overlap)) == line
    # With overlap 80 (320 chars) the previous 1601-cost segment is always carried:
    # chunk 1 = seg1, chunk k = seg(k-1) + "\n" + seg(k).
    assert len(default) == 625
    assert default[0].text == line[:1600]
    assert default[1].text == line[:1600] + "\n" + line[1600:3200]
    rebuilt = default[0].text + "".join(c.text.split("\n")[1] for c in default[1:])
    assert rebuilt == line
    # real OpenClaw: 625 chunks; sha256 over the concatenated chunk hashes:
    digest = hashlib.sha256("".join(c.hash for c in default).encode()).hexdigest()
    assert digest == "fe9e10b00cf0b58d0789300f450105b945457c2e296a2445a68bd3245b41f410"


def test_five_megabyte_file_is_fast() -> None:
    words = ["memory", "search", "记忆", "検索", "😀", "lorem", "ipsum"]
    lines = [" ".join(words[(i + j) % 7] for j in range(i % 21)) for i in range(100_000)]
    text = "\n".join(lines)
    assert len(text.encode("utf-8")) > 4_000_000
    start = time.perf_counter()
    chunks = chunk_markdown(text)
    assert time.perf_counter() - start < 4.0  # ~1 s on a loaded 2-core box
    assert chunks[0].start_line == 1 and chunks[-1].end_line == 100_000


# ------------------------------------------------------------------ real OpenClaw values

DOC = (
    "# Project notes\n\n## Decisions\n- Use SQLite FTS5 for keyword search; vectors via "
    "sqlite-vec.\n- Chunk size stays at 400 tokens with 80 overlap.\n\n## 2026-01-02\n"
    "Met with Dana about the 記憶 (memory) feature. 日本語のテキストも検索できるようにする。\n"
    "Follow-up: benchmark 😀 emoji handling and 𠀀 ext-B chars.\n\n"
    + "long line " * 30
    + "\n\n   \n"
    + "- item\n" * 12
)


def test_matches_real_openclaw_small_tokens() -> None:
    # real OpenClaw: chunkMarkdown(DOC, {tokens: 20, overlap: 4})
    chunks = chunk_markdown(DOC, tokens=20, overlap=4, drop_blank=False)
    assert spans(chunks) == [
        (1, 3), (1, 4), (4, 5), (5, 7), (5, 8), (8, 8), (8, 8), (8, 8), (8, 9), (9, 10),
        (9, 11), (11, 11), (11, 11), (11, 11), (11, 15), (13, 23), (21, 26),
    ]  # fmt: skip
    assert chunks[0].hash.startswith("369648ffa663f91a")
    assert chunks[11].hash == chunks[12].hash  # two identical 80-char "long line" pieces
    digest = hashlib.sha256("".join(c.hash for c in chunks).encode()).hexdigest()
    assert digest == "3cbb9023b3eaf17ef5ffc70858a1029a4c799d827693b2ea4c7010ec5161796d"


def test_matches_real_openclaw_defaults() -> None:
    # real OpenClaw: the whole DOC fits one default chunk (maxChars 1600).
    chunks = chunk_markdown(DOC)
    assert spans(chunks) == [(1, 26)]
    assert chunks[0].hash == "b66a4fdcba3fec5c20464c99240aaccabb3f8c77d7f2b0eb862b9088d1f67bab"
    assert chunks[0].text == DOC


def test_matches_real_openclaw_cjk_line_default_tokens() -> None:
    # 900 CJK chars: 900 units <= 1600 but weighted 3600 -> pieces of 400, 400, 100 units.
    # With overlap 320 the previous piece (cost 1601) is carried each time.
    chunks = chunk_markdown("中" * 900)
    assert texts(chunks) == [
        "中" * 400,
        "中" * 400 + "\n" + "中" * 400,
        "中" * 400 + "\n" + "中" * 100,
    ]
    assert chunks[0].hash.startswith("5715fa48168aa295")  # real OpenClaw


def test_matches_real_openclaw_mixed_astral_lines() -> None:
    # real OpenClaw: 2099 chunks spanning lines 1..301 and this hash digest.
    text = ("a中😀𠀀é" * 50 + "\n") * 300
    chunks = chunk_markdown(text, tokens=50, overlap=10, drop_blank=False)
    assert len(chunks) == 2099
    assert (chunks[0].start_line, chunks[-1].end_line) == (1, 301)
    digest = hashlib.sha256("".join(c.hash for c in chunks).encode()).hexdigest()
    assert digest == "96b1e0cb3e5609c9450abefad990fd31615f51ecd3a93dbb97c2c5165f420e5b"


# ------------------------------------------------------------------ ids and provider cap


def test_chunk_id_formula() -> None:
    h = sha("hello")
    expected = hashlib.sha256(
        f"memory:memory/2026-01-02.md:3:7:{h}:fts-only".encode()
    ).hexdigest()
    assert chunk_id("memory", "memory/2026-01-02.md", 3, 7, h, "fts-only") == expected


def test_chunk_id_pinned_values() -> None:
    # Computed with coreutils:
    #   printf '%s' '<source>:<path>:<start>:<end>:<hash>:<model>' | sha256sum
    assert (
        chunk_id("sessions", "sessions/main/abc.jsonl", 2, 9, "deadbeef", "fts-only")
        == "ec45bf2f5341125d445b4b73e683fbeee4d79c1be768b7c8ab16fef0bfa60a21"
    )
    assert (
        chunk_id("memory", "MEMORY.md", 1, 1, "abc", "text-embedding-3-small")
        == "6c15c59cc799f2c844c7cb423d6044cdca5b7de51b15b9ab57b12c74853ca002"
    )


@pytest.mark.parametrize(
    ("text", "cap", "expected"),
    [
        ("ab€cd", 4, ["ab", "€c", "d"]),  # € is 3 bytes: "ab€" = 5 > 4  (real OpenClaw)
        ("€€", 2, ["€", "€"]),  # a BMP char wider than the cap is emitted alone (real OpenClaw)
        ("😀😀", 5, ["😀", "😀"]),  # real OpenClaw
        ("a😀b", 3, ["a"]),  # astral char wider than the cap ends the split (real OpenClaw)
        ("hello", 0, ["hello"]),  # cap <= 0: no split
        ("hello", 5, ["hello"]),
    ],
)
def test_split_text_to_utf8_byte_limit(text: str, cap: int, expected: list[str]) -> None:
    assert split_text_to_utf8_byte_limit(text, cap) == expected


def test_split_for_provider_keeps_lines_and_rehashes() -> None:
    chunks = [Chunk(3, 5, "é" * 5, sha("é" * 5)), Chunk(6, 6, "ok", sha("ok"))]
    out = split_for_provider(chunks, 4)  # é is 2 bytes -> pieces of 2 chars
    assert [(c.start_line, c.end_line, c.text) for c in out] == [
        (3, 5, "éé"), (3, 5, "éé"), (3, 5, "é"), (6, 6, "ok"),
    ]  # fmt: skip
    assert all(c.hash == sha(c.text) for c in out)
    assert out[3] is chunks[1]


def test_provider_input_cap() -> None:
    assert provider_input_cap() == 8000  # default 8192, hard cap 8000
    assert provider_input_cap(provider_id="local") == 2048
    assert provider_input_cap(2048) == 2048
    assert provider_input_cap(32000) == 8000
    assert provider_input_cap(32000, hard_max=None) == 32000
