"""The FTS5 keyword leg: query building, SQLite's bm25, fallbacks, trigram LIKE filters."""

from __future__ import annotations

import math

import numpy as np
import pytest

from memlab.config import load_config
from memlab.corpus import Corpus
from memlab.index import FTS5, IndexStore, sync_index
from memlab.index.fts import (
    bm25_rank_to_score,
    build_fts_query,
    escape_like_pattern,
    plan_keyword_search,
)
from memlab.index.store import CHUNKS_TABLE, FTS_TABLE
from memlab.openclaw import keyword_leg, openclaw_pipeline
from memlab.stages.lexical import merge_keyword_hits, openclaw_boosted_score
from memlab.text.keywords import fallback_terms

DOCS = ["deploy key in vault", "rotate the deploy key key", "lunch was good", "vault backup",
        "nothing here"]


@pytest.mark.parametrize("raw, expected", [
    ("deploy key", '"deploy" AND "key"'),
    ("  Deploy-KEY: rotate_now?! ", '"Deploy" AND "KEY" AND "rotate_now"'),
    ('say "hi"', '"say" AND "hi"'),
    ("接口 超时", '"接口" AND "超时"'),
    ("café №5", '"café" AND "5"'),
    ("?!...", None), ("", None), ("🙂", None), ("—", None),
])
def test_build_fts_query(raw, expected):
    assert build_fts_query(raw) == expected


def test_bm25_rank_to_score():
    assert bm25_rank_to_score(-3.0) == 0.75
    assert bm25_rank_to_score(-1e-6) == pytest.approx(1e-6)
    assert bm25_rank_to_score(0.0) == 1.0
    assert bm25_rank_to_score(1.0) == 0.5  # positive ranks: 1 / (1 + rank)
    for bad in (float("nan"), float("inf"), float("-inf"), None):
        assert bm25_rank_to_score(bad) == 0.001


def test_bm25_rank_to_score_arrays_match_the_scalars():
    """The all-negative fast path gives the bits of the element-wise rule."""
    rng = np.random.default_rng(7)
    for ranks in (-rng.exponential(3, 200), np.r_[-rng.exponential(3, 50), 0.0, 2.0, np.nan],
                  np.array([-1e-300, -1e300, -5e-324])):
        got = bm25_rank_to_score(ranks)
        want = [bm25_rank_to_score(float(r)) for r in ranks]
        assert got.tolist() == want


def test_escape_like_pattern():
    assert escape_like_pattern("a_b%c\\d") == "a\\_b\\%c\\\\d"


def test_plan_keyword_search_trigram():
    assert plan_keyword_search("部署 staging", "unicode61") == ('"部署" AND "staging"', [])
    assert plan_keyword_search("部署 staging 环境变量", "trigram") == (
        '"staging" AND "环境变量"', ["部署"])
    assert plan_keyword_search("配置 서버 db", "trigram") == ('"db"', ["配置", "서버"])
    assert plan_keyword_search("部", "trigram") == (None, ["部"])
    assert plan_keyword_search("?!", "trigram") == (None, [])


def _hand_bm25(query_terms: list[str], docs: list[str], k1=1.2, b=0.75) -> list[float]:
    """SQLite FTS5's bm25() (fts5_aux.c), by hand: -sum idf * tf(k1+1)/(tf + k1(1-b+b|D|/avg))
    with idf = log((N - n + 0.5) / (n + 0.5)), floored at 1e-6."""
    toks = [d.lower().split() for d in docs]
    n_docs = len(docs)
    avgdl = sum(map(len, toks)) / n_docs
    out = []
    for t in toks:
        score = 0.0
        for q in query_terms:
            n = sum(1 for d in toks if q in d)
            idf = math.log((n_docs - n + 0.5) / (n + 0.5))
            idf = idf if idf > 0 else 1e-6
            f = t.count(q)
            score += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len(t) / avgdl))
        out.append(-score)
    return out


def test_scores_are_sqlites_bm25_checked_by_hand():
    corpus = Corpus.from_texts(DOCS)
    hits = FTS5(corpus)("deploy key")
    assert hits["docno"].tolist() == [1, 0]  # AND: only documents with both terms
    expected = _hand_bm25(["deploy", "key"], DOCS)
    assert hits["fts_rank"].tolist() == pytest.approx([expected[1], expected[0]], rel=1e-12)
    r = -hits["fts_rank"].to_numpy()
    assert hits["text_score"].tolist() == (r / (1 + r)).tolist()
    assert hits["score"].tolist() == hits["text_score"].tolist()
    assert [bm25_rank_to_score(x) for x in hits["fts_rank"]] == hits["text_score"].tolist()
    # and straight from SQLite, on the same table
    store = FTS5(corpus)._store()[0]
    raw = store.execute(f"SELECT id, bm25({FTS_TABLE}) FROM {FTS_TABLE} WHERE {FTS_TABLE} "
                        "MATCH ? ORDER BY 2", ('"deploy" AND "key"',))
    assert [float(x) for _, x in raw] == hits["fts_rank"].tolist()


def test_boosted_score_is_openclaws():
    corpus = Corpus.from_texts(DOCS, paths=[f"memory/{n}.md" for n in
                                            ("vault", "keys", "lunch", "backup", "misc")])
    hits = FTS5(corpus)("vault")
    for row in hits.itertuples():
        assert row.boosted_score == openclaw_boosted_score(
            "vault", corpus.texts[row.docno], row.path, row.text_score)
    assert not hits["fallback"].any()


def test_depth_is_the_sql_limit():
    corpus = Corpus.from_texts([f"alpha {'beta ' * i}" for i in range(10)])
    assert len(FTS5(corpus, depth=3)("alpha")) == 3
    assert len(FTS5(corpus)("alpha")) == 10


def test_empty_and_punctuation_queries_find_nothing():
    leg = FTS5(Corpus.from_texts(DOCS))
    hits = leg(["", "   ", "?!...", "—", "🙂"])
    assert hits.empty and {"text_score", "boosted_score", "fts_rank"} <= set(hits.columns)


def test_fallback_searches_keywords_and_merges():
    corpus = Corpus.from_texts(DOCS)
    query = "what about the vault rotation deploy"
    leg = FTS5(corpus)
    hits = leg(query)
    assert hits["fallback"].all() and len(hits)
    terms = fallback_terms(query)
    assert terms == ["vault", "rotation", "deploy"]
    # the same by hand: one search per keyword, merged like mergeKeywordSearchHits
    sets = [leg(t) for t in terms]
    flat = [row for s in sets for row in s.itertuples()]
    keep = merge_keyword_hits(np.zeros(len(flat), dtype=np.int64),
                              np.array([r.docno for r in flat]),
                              np.array([r.text_score for r in flat]),
                              np.array([r.boosted_score for r in flat]))
    assert hits["docno"].tolist() == [flat[i].docno for i in keep]
    assert hits["boosted_score"].tolist() == [flat[i].boosted_score for i in keep]
    assert hits["boosted_score"].is_monotonic_decreasing
    assert FTS5(corpus, fallback=False)(query).empty


def test_no_fallback_when_the_full_query_matches():
    hits = FTS5(Corpus.from_texts(DOCS))("vault")
    assert len(hits) == 2 and not hits["fallback"].any()


CJK = ["部署流程在周二", "部_署 notes", "配置文件 staging 部署", "서버 배포 완료", "unrelated"]


def test_trigram_short_cjk_terms_become_like_filters():
    corpus = Corpus.from_texts(CJK)
    # unicode61: a CJK run is one token, so "部署" only matches where it stands alone
    assert FTS5(corpus, tokenizer="unicode61")("部署")["docno"].tolist() == [2]
    tri = FTS5(corpus, tokenizer="trigram")
    hits = tri("部署")
    assert hits["docno"].tolist() == [0, 2]  # LIKE only: table order, text score 1
    assert hits["text_score"].tolist() == [1.0, 1.0] and hits["fts_rank"].tolist() == [0, 0]
    mixed = tri("部署 staging")  # MATCH "staging" AND text LIKE '%部署%'
    assert mixed["docno"].tolist() == [2] and mixed["text_score"].iloc[0] < 1
    assert tri("서버")["docno"].tolist() == [3]
    assert tri("部署流程")["docno"].tolist() == [0]  # >= 3 characters: trigram MATCH


def test_like_patterns_are_escaped():
    tri = FTS5(Corpus.from_texts(CJK), tokenizer="trigram")
    assert tri("部_")["docno"].tolist() == [1]  # "_" is literal, not LIKE's wildcard
    assert FTS5(Corpus.from_texts(CJK), tokenizer="trigram", fallback=False)("部x").empty
    # with the fallback, the keyword "部" (a Han block) is searched: LIKE '%部%'
    assert tri("部x")["docno"].tolist() == [0, 1, 2]


def test_match_error_falls_back_to_like(monkeypatch):
    import memlab.index.fts as fts

    monkeypatch.setenv("MEMLAB_KERNEL_BACKEND", "numpy")  # SQLite's query, not the postings
    leg = FTS5(Corpus.from_texts(DOCS))
    monkeypatch.setattr(fts, "plan_keyword_search", lambda q, tok: ('"vault" AND', []))
    hits = leg("vault backup")
    assert hits["docno"].tolist() == [3] and hits["text_score"].tolist() == [1.0]


def test_rows_without_a_chunk_are_ignored(tmp_path, workspace):
    store = IndexStore(tmp_path / "i.sqlite")
    sync_index(store, workspace, {"provider": "none"})
    leg = FTS5(store)
    before = leg("vault")
    assert len(before) == 2
    with store.write() as c:  # a chunk deleted behind the FTS table's back
        c.execute(f"DELETE FROM {CHUNKS_TABLE} WHERE path = 'MEMORY.md'")
    store.unpin()
    assert leg("vault")["path"].tolist() == ["memory/2026-05-03.md"]


def test_store_and_corpus_give_the_same_hits(tmp_path, workspace):
    store = IndexStore(tmp_path / "i.sqlite")
    sync_index(store, workspace, {"provider": "none"})
    corpus = store.corpus()
    a = FTS5(store)(["deploy", "billing retries", "部署流程在周二"])
    b = FTS5(Corpus(chunks=corpus.chunks.copy()))(["deploy", "billing retries",
                                                    "部署流程在周二"])
    cols = ["qid", "docno", "path", "start_line", "text_score", "boosted_score", "rank"]
    assert a[cols].equals(b[cols])


def test_tokenizer_must_match_the_index(tmp_path):
    store = IndexStore(tmp_path / "i.sqlite", fts_tokenizer="unicode61")
    with pytest.raises(ValueError, match="memlab index --force"):
        FTS5(store, tokenizer="trigram")("x")


def test_sources_filter():
    corpus = Corpus.from_texts(DOCS)
    assert FTS5(corpus, sources=("sessions",))("vault").empty
    assert len(FTS5(corpus, sources=("memory",))("vault")) == 2


def test_config_selects_the_fts5_leg():
    corpus = Corpus.from_texts(DOCS)
    cfg = load_config({"memorySearch": {"provider": "none",
                                        "store": {"fts": {"tokenizer": "trigram"}}},
                       "memlab": {"keyword": "fts5"}})
    leg = keyword_leg(corpus, cfg)
    assert isinstance(leg, FTS5) and leg.tokenizer == "trigram" and leg.depth == 24
    pipe = openclaw_pipeline(corpus, cfg)
    hits = pipe("deploy key")
    assert hits["path"].tolist() == ["doc-2.md", "doc-1.md"]
    assert (hits["score"] == hits["boosted_score"]).all()  # keyword-only ranks by the boost


QUERIES = ["deploy key", "vault", "key", "deploy vault backup", "nothing lunch", "zz deploy qq",
           "vault key deploy", "missing words only"]


def _forced_ids(leg: FTS5, query: str):
    """``leg``'s hits of ``query`` with chunk ids read from the FTS rows (no rowid map)."""
    store, tokenizer = leg._store()
    with store.lock:
        state = leg._table_state(store)._replace(rowids=None)
        return leg._keyword_hits(store, tokenizer, query, leg.depth, store.ids_to_docnos(),
                                 state, True)


@pytest.mark.parametrize("index", ["corpus", "file"])
def test_rowid_mode_gives_the_hits_of_chunk_ids(tmp_path, workspace, index):
    """While every FTS row shares its chunk's rowid, a query selects FTS5's rowid (not the
    ``id`` column) and maps it to a docno: the same hits, scores and fallback merges as
    reading the chunk ids."""
    if index == "corpus":
        leg = FTS5(Corpus.from_texts(DOCS * 3), depth=4)
        queries = QUERIES
    else:
        store = IndexStore(tmp_path / "i.sqlite")
        sync_index(store, workspace, {"provider": "none"})
        leg = FTS5(store, depth=4)
        queries = QUERIES + ["deploy", "billing retries", "部署流程在周二"]
    fallback_seen = 0
    for q in queries:
        fast = leg._search_one(q)
        assert leg._fts_state.rowids is not None, q
        slow = _forced_ids(leg, q)
        fallback_seen += fast.fallback
        assert fast.fallback == slow.fallback, q
        for a, b in zip(fast[:4], slow[:4], strict=True):
            np.testing.assert_array_equal(a, b, err_msg=q)
    assert fallback_seen


def test_rowid_mode_off_when_a_pinned_snapshot_is_behind(tmp_path, workspace):
    """Another writer deletes the last chunk and writes a new one under the same rowid: a
    pinned snapshot must not map that rowid to the deleted chunk's docno."""
    import sqlite3

    store = IndexStore(tmp_path / "i.sqlite")
    sync_index(store, workspace, {"provider": "none"})
    store.pin()
    leg = FTS5(store, depth=50)
    assert leg._search_one("zebraword").docno.tolist() == []
    assert leg._fts_state.rowids is not None
    other = sqlite3.connect(tmp_path / "i.sqlite", isolation_level=None)
    last, cid = other.execute(f"SELECT rowid, id FROM {CHUNKS_TABLE} ORDER BY rowid DESC "
                              "LIMIT 1").fetchone()
    other.execute("BEGIN IMMEDIATE")
    other.execute(f"DELETE FROM {FTS_TABLE} WHERE rowid = ?", (last,))
    other.execute(f"UPDATE {CHUNKS_TABLE} SET id = 'new-chunk', text = 'zebraword' "
                  "WHERE rowid = ?", (last,))
    other.execute(f"INSERT INTO {FTS_TABLE} (rowid, text, id, path, source, model, "
                  f"start_line, end_line) SELECT rowid, text, id, path, source, model, "
                  f"start_line, end_line FROM {CHUNKS_TABLE} WHERE rowid = ?", (last,))
    other.execute("COMMIT")
    other.close()
    assert cid != "new-chunk"
    assert leg._search_one("zebraword").docno.tolist() == []  # not in the pinned snapshot
    assert leg._fts_state.rowids is None
    store.unpin()
    found = leg._search_one("zebraword").docno.tolist()
    assert leg._fts_state.rowids is not None
    assert [store.corpus().chunks["chunk_id"][d] for d in found] == ["new-chunk"]


def test_a_commit_during_the_search_runs_it_again(tmp_path, workspace, monkeypatch):
    """A commit by another connection while a query runs moves ``PRAGMA data_version``:
    the query runs again on the new state."""
    import sqlite3

    store = IndexStore(tmp_path / "i.sqlite")
    sync_index(store, workspace, {"provider": "none"})
    leg = FTS5(store)
    want = leg._search_one("vault")
    calls = []
    original = FTS5._keyword_hits

    def commit_meanwhile(self, *args):
        calls.append(args[-2].rowids is not None)  # the state this try runs with
        if len(calls) == 1:
            other = sqlite3.connect(tmp_path / "i.sqlite", isolation_level=None)
            other.execute(f"INSERT INTO {CHUNKS_TABLE} (id, path, source, start_line, "
                          "end_line, hash, model, text, updated_at) VALUES ('extra', 'x.md', "
                          "'memory', 1, 1, 'h', 'fts-only', 'unrelated', 0)")
            other.close()
        return original(self, *args)

    monkeypatch.setattr(FTS5, "_keyword_hits", commit_meanwhile)
    got = leg._search_one("vault")
    assert calls == [True, True]
    for a, b in zip(got[:4], want[:4], strict=True):
        np.testing.assert_array_equal(a, b)
