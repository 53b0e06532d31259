"""The compiled FTS5 ranking (memlab.index.fts_postings) against SQLite's own, bit for bit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("numba")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from memlab.corpus import Corpus  # noqa: E402
from memlab.index import fts_postings  # noqa: E402
from memlab.index.fts import FTS5  # noqa: E402
from memlab.index.fts_postings import FTSPostings  # noqa: E402
from memlab.index.store import FTS_TABLE, IndexStore  # noqa: E402
from memlab.kernels.keyword import bm25_rank_to_score  # noqa: E402

WORDS = ["alpha", "Beta", "gamma", "delta", "x", "k8s", "2026", "deploy", "key", "vault"]
SEPARATORS = [" ", "  ", ", ", "-", "_", ". ", "\n", " \u2014 ", "\u201c", "\u201d ", "!", "/"]


def sqlite_top(conn, terms: list[str], limit: int) -> tuple[list[int], list[float]]:
    match = " AND ".join(f'"{t}"' for t in terms)
    rows = conn.execute(f"SELECT rowid, bm25({FTS_TABLE}) AS rank FROM {FTS_TABLE} "
                        f"WHERE {FTS_TABLE} MATCH ? ORDER BY rank ASC LIMIT ?",
                        [match, limit]).fetchall()
    return [r for r, _ in rows], [s for _, s in rows]


doc_text = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)),
                    max_size=12).map(lambda parts: "".join(w + s for w, s in parts))


@settings(max_examples=60, deadline=None)
@given(docs=st.lists(doc_text, min_size=1, max_size=40),
       queries=st.lists(st.lists(st.sampled_from([*WORDS, "KEY", "absent"]), min_size=1,
                                 max_size=4), min_size=1, max_size=6),
       limit=st.integers(1, 50))
def test_same_rows_ranks_and_order_as_sqlite(docs, queries, limit):
    store = IndexStore.from_corpus(Corpus.from_texts(docs))
    postings = FTSPostings.build(store.connection)
    assert postings is not None
    for terms in queries:
        rowids, rank, text_score = postings.search(terms, limit)
        want_ids, want_rank = sqlite_top(store.connection, terms, limit)
        assert rowids.tolist() == want_ids
        assert rank.tolist() == want_rank  # exact floats, not approximately
        assert text_score.tolist() == bm25_rank_to_score(rank).tolist()


def test_zipf_corpus_with_many_ties_matches_sqlite():
    rng = np.random.default_rng(7)
    vocab = [f"w{i}" for i in range(300)]
    p = 1.0 / np.arange(1, 301) ** 1.1
    p /= p.sum()
    docs = [" ".join(rng.choice(vocab, int(rng.integers(1, 40)), p=p)) for _ in range(2000)]
    store = IndexStore.from_corpus(Corpus.from_texts(docs))
    postings = FTSPostings.build(store.connection)
    for _ in range(200):
        terms = list(rng.choice(vocab[:60], int(rng.integers(1, 4)), p=p[:60] / p[:60].sum()))
        limit = int(rng.integers(1, 300))
        rowids, rank, text_score = postings.search(terms, limit)
        want_ids, want_rank = sqlite_top(store.connection, terms, limit)
        assert rowids.tolist() == want_ids and rank.tolist() == want_rank
        assert text_score.tolist() == bm25_rank_to_score(rank).tolist()


def test_declines_what_unicode61_would_fold():
    store = IndexStore.from_corpus(Corpus.from_texts(["le café", "cafe au lait"]))
    assert FTSPostings.build(store.connection) is None  # é: a letter FTS5 folds
    store = IndexStore.from_corpus(Corpus.from_texts(["deploy \u2014 key \U0001f511", "x"]))
    postings = FTSPostings.build(store.connection)
    assert postings is not None  # dash and emoji are separators
    assert postings.search(["café"], 5) is None
    assert postings.search(["deploy_key"], 5) is None  # a phrase of two tokens in FTS5
    assert postings.search(["DEPLOY"], 5)[0].tolist() == [1]


def test_declines_when_fts5_vocabulary_disagrees(monkeypatch):
    store = IndexStore.from_corpus(Corpus.from_texts(["deploy key", "rotate key"]))
    assert FTSPostings.build(store.connection) is not None
    # texts read back wrongly (the last word dropped): the counts differ from FTS5's
    monkeypatch.setattr(fts_postings, "_ascii", lambda text: text.rsplit(" ", 1)[0])
    assert FTSPostings.build(store.connection) is None


def leg_hits(leg: FTS5, queries: list[str]) -> pd.DataFrame:
    frame = leg.transform(pd.DataFrame({"qid": [str(i) for i in range(len(queries))],
                                        "query": queries}))
    return frame[["qid", "docno", "text_score", "boosted_score", "fts_rank", "fallback"]]


def test_leg_equals_sqlite_leg_with_fallback(monkeypatch):
    rng = np.random.default_rng(3)
    vocab = [f"t{i}" for i in range(80)]
    docs = [" ".join(rng.choice(vocab, int(rng.integers(2, 25)))) for _ in range(400)]
    queries = [" ".join(rng.choice(vocab, 3)) + " nothing" if i % 3 == 0
               else " ".join(rng.choice(vocab, int(rng.integers(1, 4)))) for i in range(60)]
    corpus = Corpus.from_texts(docs)
    leg = FTS5(corpus, depth=24)
    assert leg.build_postings()
    fast = leg_hits(leg, queries)
    assert leg.__dict__["_fts_postings"][1] is not None  # the compiled ranking ran
    monkeypatch.setenv("MEMLAB_KERNEL_BACKEND", "numpy")
    slow = leg_hits(FTS5(corpus, depth=24), queries)
    assert fast["fallback"].any()
    assert fast.equals(slow)


def test_index_file_keeps_sqlite(tmp_path):
    store = IndexStore.from_corpus(Corpus.from_texts(["deploy key", "rotate key"]),
                                   path=tmp_path / "index.sqlite")
    leg = FTS5(store)
    assert leg("key")["docno"].tolist() == [0, 1]
    assert "_fts_postings" not in leg.__dict__
    assert not leg.build_postings()


def test_built_once_sqlite_has_cost_as_much(monkeypatch):
    """A table searched a few times keeps SQLite's query; the postings are built once its
    queries have taken the estimated build cost, and rebuilt only for a changed table."""
    from memlab.index import fts

    corpus = Corpus.from_texts([f"deploy key {i}" for i in range(50)])
    leg = FTS5(corpus, depth=5)
    first = leg("deploy key")
    assert "_fts_postings" not in leg.__dict__  # the estimated build cost is not yet spent
    assert leg.__dict__["_fts_sql_spent"][1] > 0
    monkeypatch.setattr(fts, "POSTINGS_COST_FIXED", 0.0)
    monkeypatch.setattr(fts, "POSTINGS_COST_PER_ROW", 0.0)
    again = leg("deploy key")
    state, postings = leg.__dict__["_fts_postings"]
    assert postings is not None
    assert again.drop(columns="fts_rank").equals(first.drop(columns="fts_rank"))
    assert again["fts_rank"].tolist() == first["fts_rank"].tolist()
    leg("rotate")
    assert leg.__dict__["_fts_postings"][0] is state  # the same table: not rebuilt
