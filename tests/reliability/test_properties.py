"""Property-based tests (hypothesis): chunker, FTS query builder, tokenizers, config round trips.

Example counts are kept small so the suite stays fast; the strategies lean on the characters
that break things (quotes, FTS5 operators, CJK, astral emoji, lone surrogates, NUL).
"""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memlab.chunking import (
    chunk_markdown,
    sha256_hex,
    split_text_to_utf8_byte_limit,
    weighted_length,
)
from memlab.index.fts import build_fts_query, escape_like_pattern, plan_keyword_search

FAST = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
                database=None)

# text with the characters that matter: FTS5 syntax, quotes, CJK, emoji, newlines, controls
NASTY = st.sampled_from(list('"\'*^:()+-{}[]NEAROTAD \n\t\r\x00\\%_.,;!?—') +
                        ["NEAR", "OR", "AND", "NOT", "部署", "环境", "🙂", "𠀀", "ไทย", "é",
                         "\u200b", "\ufeff", "\ud800", "ﬁ", "İ", "ß", "x" * 50])
TEXT = st.one_of(st.text(max_size=200),
                 st.lists(st.one_of(NASTY, st.text(max_size=8)), max_size=40).map("".join))


# -- the chunker -------------------------------------------------------------------------------


@FAST
@given(text=TEXT, tokens=st.integers(1, 64), overlap=st.integers(0, 64))
def test_chunker_covers_every_line_in_bounds(text, tokens, overlap):
    chunks = chunk_markdown(text, tokens=tokens, overlap=overlap, drop_blank=False)
    lines = text.split("\n")
    assert chunks, "chunkMarkdown always returns at least one chunk"
    covered = set()
    for c in chunks:
        assert 1 <= c.start_line <= c.end_line <= len(lines)
        assert c.hash == sha256_hex(c.text)
        covered.update(range(c.start_line, c.end_line + 1))
    assert covered == set(range(1, len(lines) + 1))  # every line is in some chunk
    starts = [c.start_line for c in chunks]
    ends = [c.end_line for c in chunks]
    assert starts == sorted(starts) and ends == sorted(ends)  # in file order


@FAST
@given(text=TEXT, tokens=st.integers(1, 64), overlap=st.integers(0, 64))
def test_chunker_size_and_overlap(text, tokens, overlap):
    tokens_c = max(1, tokens)
    overlap_c = min(max(0, overlap), tokens_c - 1)
    max_chars = max(32, tokens_c * 4)
    chunks = chunk_markdown(text, tokens=tokens, overlap=overlap, drop_blank=False)
    for c in chunks:
        # a chunk is at most maxChars plus what overlap carried over from the previous one
        assert weighted_length(c.text) <= 2 * max_chars + overlap_c * 4
    for prev, nxt in zip(chunks, chunks[1:], strict=False):
        if overlap_c > 0:
            assert nxt.start_line <= prev.end_line  # consecutive chunks share lines
        else:
            assert nxt.start_line >= prev.end_line  # never going back without overlap


@FAST
@given(lines=st.lists(st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=20),
                      min_size=1, max_size=30),
       tokens=st.integers(8, 64))
def test_chunker_without_overlap_partitions_short_lines(lines, tokens):
    text = "\n".join(lines)
    chunks = chunk_markdown(text, tokens=tokens, overlap=0, drop_blank=False)
    assert "\n".join(c.text for c in chunks) == text  # nothing lost, nothing repeated


@FAST
@given(text=TEXT.filter(lambda t: "\ud800" not in t), limit=st.integers(4, 64))
def test_utf8_byte_split_is_lossless_and_bounded(text, limit):
    parts = split_text_to_utf8_byte_limit(text, limit)
    assert "".join(parts) == text
    assert all(len(p.encode("utf-8")) <= limit for p in parts)


# -- the FTS query builder against a real FTS5 table -------------------------------------------


@pytest.fixture(scope="module")
def fts_tables():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE uni USING fts5(text, id UNINDEXED)")
    conn.execute("CREATE VIRTUAL TABLE tri USING fts5(text, id UNINDEXED, "
                 "tokenize='trigram case_sensitive 0')")
    rows = ["deploy window NEAR the vault", "部署流程在周二 环境变量", "emoji 🙂 AND \"quotes\"",
            "OR NOT AND * ^ : ( )", "naïve café İstanbul"]
    for table in ("uni", "tri"):
        conn.executemany(f"INSERT INTO {table} (text, id) VALUES (?, ?)",
                         [(r, str(i)) for i, r in enumerate(rows)])
    yield conn
    conn.close()


@FAST
@given(query=TEXT)
def test_fts_query_never_a_syntax_error(fts_tables, query):
    match = build_fts_query(query)
    if match is not None:
        assert "\x00" not in match
        fts_tables.execute("SELECT id FROM uni WHERE uni MATCH ?", (match,)).fetchall()
    match, substring = plan_keyword_search(query, "trigram")
    like = "".join(" AND text LIKE ? ESCAPE '\\'" for _ in substring)
    params = [f"%{escape_like_pattern(t)}%" for t in substring]
    if match is not None:
        fts_tables.execute(f"SELECT id FROM tri WHERE tri MATCH ?{like}",
                           (match, *params)).fetchall()
    elif substring:
        fts_tables.execute(f"SELECT id FROM tri WHERE 1=1{like}", params).fetchall()


@FAST
@given(term=TEXT)
def test_escaped_like_matches_literally(fts_tables, term):
    term = term.replace("\ud800", "")
    row = fts_tables.execute("SELECT ? LIKE ? ESCAPE '\\'",
                             (f"a{term}b", f"a{escape_like_pattern(term)}b")).fetchone()
    assert row[0] == 1


@FAST
@given(query=TEXT.map(lambda t: t.replace("\ud800", "")))
def test_fts5_stage_on_an_index(query):
    """The keyword leg end to end over an index: any query (valid Unicode), never an
    exception. (A lone surrogate cannot come from the command line: it is refused there.)"""
    import pandas as pd

    from memlab.corpus import Corpus
    from memlab.index.fts import FTS5

    corpus = _corpus()
    frame = pd.DataFrame({"qid": ["q"], "query": [query]})
    for tokenizer in ("unicode61", "trigram"):
        hits = FTS5(corpus, tokenizer=tokenizer).transform(frame)
        assert set(hits["docno"]) <= set(range(len(corpus.chunks)))
    assert isinstance(corpus, Corpus)


_CORPUS = []


def _corpus():
    from memlab.corpus import Corpus

    if not _CORPUS:
        _CORPUS.append(Corpus.from_texts(
            ["deploy window NEAR vault", "部署流程在周二", "emoji 🙂 \"quoted\" OR", "naïve café"],
            ["MEMORY.md", "memory/a.md", "memory/b.md", "memory/c.md"]))
    return _CORPUS[0]


# -- tokenizers --------------------------------------------------------------------------------


@FAST
@given(text=TEXT)
def test_tokenizers_total_and_clean(text):
    from memlab.text.keywords import extract_keywords, fallback_terms
    from memlab.text.tokenize import Tokenizer, openclaw_fts_tokens, openclaw_mmr_tokens

    for tok in (Tokenizer(), Tokenizer(stopwords="en", stemmer="english"),
                Tokenizer(lowercase=False, cjk="none", thai="none")):
        tokens = tok(text)
        assert all(isinstance(t, str) and t and not t.isspace() for t in tokens)
        assert tok.tokenize_many([text, text]) == [tokens, tokens]  # deterministic
    fts = openclaw_fts_tokens(text)
    assert all(t and '"' not in t and " " not in t for t in fts)
    assert isinstance(openclaw_mmr_tokens(text), set)
    for tokenizer in ("unicode61", "trigram"):
        keywords = extract_keywords(text, tokenizer)
        assert len(keywords) == len(set(keywords))
        assert set(fallback_terms(text, tokenizer)) <= set(keywords)


# -- config round trips ------------------------------------------------------------------------

_unit = st.floats(0, 1, allow_nan=False)
_path = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12)

MEMORY_SEARCH = st.fixed_dictionaries({}, optional={
    "enabled": st.booleans(),
    "provider": st.sampled_from(["none", "local", "openai", "gemini", "openai-compatible",
                                 "ollama"]),
    "model": st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1,
                     max_size=20).filter(lambda s: s.strip() == s),
    "extraPaths": st.lists(_path, max_size=3),
    "chunking": st.fixed_dictionaries({}, optional={"tokens": st.integers(1, 4000),
                                                    "overlap": st.integers(0, 400)}),
    "query": st.fixed_dictionaries({}, optional={
        "maxResults": st.integers(1, 100),
        "minScore": _unit,
        "hybrid": st.fixed_dictionaries({}, optional={
            "enabled": st.booleans(), "vectorWeight": _unit, "textWeight": _unit,
            "candidateMultiplier": st.integers(1, 20),
            "mmr": st.fixed_dictionaries({}, optional={"enabled": st.booleans(),
                                                       "lambda": _unit}),
            "temporalDecay": st.fixed_dictionaries({}, optional={
                "enabled": st.booleans(), "halfLifeDays": st.integers(1, 3650)}),
        }),
    }),
    "cache": st.fixed_dictionaries({}, optional={"enabled": st.booleans(),
                                                 "maxEntries": st.integers(1, 10**6)}),
    "store": st.fixed_dictionaries({}, optional={"fts": st.fixed_dictionaries(
        {}, optional={"tokenizer": st.sampled_from(["unicode61", "trigram"])})}),
})
MEMLAB = st.fixed_dictionaries({}, optional={"keyword": st.sampled_from(["bm25", "tfidf",
                                                                         "fts5"])})


@settings(max_examples=40, deadline=None, database=None)
@given(ms=MEMORY_SEARCH, ml=MEMLAB, style=st.sampled_from(["json5", "json"]),
       full=st.booleans())
def test_config_round_trip(ms, ml, style, full):
    from memlab.config import dump_config, load_config

    raw = {"memorySearch": ms, **({"memlab": ml} if ml else {})}
    cfg = load_config(raw)
    text = dump_config(cfg, style=style, full=full)
    again = load_config(text)
    assert again == cfg
    assert dump_config(again, style=style, full=full) == text  # a fixed point


@settings(max_examples=40, deadline=None, database=None)
@given(junk=st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
                         lambda kids: st.lists(kids, max_size=3)
                         | st.dictionaries(st.sampled_from(
                             ["provider", "query", "hybrid", "chunking", "tokens", "memorySearch",
                              "agents", "defaults", "list", "extraPaths", "x"]), kids,
                             max_size=3), max_leaves=8))
def test_arbitrary_config_is_loaded_or_a_config_error(junk):
    from memlab.config import ConfigError, load_config

    try:
        load_config(junk if isinstance(junk, dict) else {"memorySearch": junk})
    except ConfigError as exc:
        assert str(exc)
