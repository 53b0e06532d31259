"""kernels.keyword.boost_hits and its one-query entry score_query (with the text scores):
numpy and numba backends against boosted_score on counts made with Python sets (random tables,
batches in any order, repeated documents, path hits, queries without tokens, frequent tokens'
bitset rows)."""

from __future__ import annotations

import numpy as np
import pytest

from memlab.bm25.score import numba_available
from memlab.kernels.keyword import (
    BITSET_RATIO,
    BoostTable,
    bm25_rank_to_score,
    boost_hits,
    boosted_score,
    length_boost,
    rank_to_score,
    relevance_to_score,
    score_query,
    text_scores,
)

BACKENDS = ["numpy"] + (["numba"] if numba_available() else [])


def random_case(rng, n_docs=60, n_vocab=40, n_queries=7, n_hits=150):
    rows = [np.sort(rng.choice(n_vocab, size=int(rng.integers(0, 25)), replace=False))
            for _ in range(n_docs)]
    indptr = np.r_[0, np.cumsum([len(r) for r in rows])]
    tokens = np.concatenate(rows).astype(np.int64) if indptr[-1] else np.zeros(0, np.int64)
    len16 = rng.integers(0, 60, size=n_docs).astype(np.float64)
    table = BoostTable(indptr, tokens, n_vocab, length_boost(len16))
    qsets = [np.sort(rng.choice(n_vocab, size=int(rng.integers(0, 8)), replace=False))
             for _ in range(n_queries)]
    q_ptr = np.r_[0, np.cumsum([len(q) for q in qsets])]
    q_ids = np.concatenate(qsets).astype(np.int64)
    # unknown tokens count in n_q; a query may have no tokens at all
    n_q = np.array([len(q) + int(rng.integers(0, 3)) for q in qsets], dtype=np.float64)
    n_q[0] = 0.0
    qrow_of = rng.integers(0, n_queries, size=n_hits)
    docnos = rng.integers(0, n_docs, size=n_hits)
    text_score = rng.random(n_hits)
    path_hits = rng.integers(0, 3, size=n_hits)
    overlap = np.array([len(set(rows[d]) & set(qsets[r]))
                        for d, r in zip(docnos, qrow_of, strict=True)])
    want = boosted_score(text_score, overlap, n_q[qrow_of], [len(rows[d]) for d in docnos],
                         path_hits, len16[docnos])
    return table, text_score, docnos, q_ptr, q_ids, n_q, path_hits, qrow_of, want


@pytest.mark.parametrize("backend", BACKENDS)
def test_boost_hits_equals_boosted_score_on_set_counts(backend):
    rng = np.random.default_rng(3)
    for _ in range(200):
        table, ts, docnos, q_ptr, q_ids, n_q, path, qrow_of, want = random_case(rng)
        got = boost_hits(table, ts, docnos, q_ptr, q_ids, n_q, path, qrow_of, backend)
        assert np.array_equal(got, want)
        grouped = np.argsort(qrow_of, kind="stable")  # the stages' order: query by query
        got = boost_hits(table, ts[grouped], docnos[grouped], q_ptr, q_ids, n_q,
                         path[grouped], qrow_of[grouped], backend)
        assert np.array_equal(got, want[grouped])
        # one query (qrow_of None): the hits of query 3 alone, without path hits
        mine = qrow_of == 3
        one = boost_hits(table, ts[mine], docnos[mine], q_ptr[3:5] - q_ptr[3],
                         q_ids[q_ptr[3]:q_ptr[4]], n_q[3:4], None, None, backend)
        ref = boosted_score(ts[mine], 0, n_q[3], 0, 0, 0)  # shape and no-token case only
        assert one.shape == ref.shape
        zero_path = boost_hits(table, ts[mine], docnos[mine], q_ptr, q_ids, n_q,
                               np.zeros(mine.sum(), dtype=np.int64), qrow_of[mine], backend)
        assert np.array_equal(one, zero_path)


def test_numba_equals_numpy_and_leaves_scratch_clean():
    if not numba_available():
        pytest.skip("numba not installed")
    rng = np.random.default_rng(11)
    for _ in range(100):
        table, ts, docnos, q_ptr, q_ids, n_q, path, qrow_of, _ = random_case(rng)
        a = boost_hits(table, ts, docnos, q_ptr, q_ids, n_q, path, qrow_of, "numba")
        b = boost_hits(table, ts, docnos, q_ptr, q_ids, n_q, path, qrow_of, "numpy")
        assert np.array_equal(a, b)
        for mask, slot in table.pool:
            assert not mask.any() and not slot.any()


def test_empty_and_bad_backend():
    table = BoostTable(np.array([0, 1]), np.array([0]), 1, length_boost([10.0]))
    for backend in BACKENDS:
        assert boost_hits(table, [], [], [0, 1], [0], [1.0], backend=backend).shape == (0,)
    with pytest.raises(ValueError, match="backend"):
        boost_hits(table, [0.5], [0], [0, 1], [0], [1.0], backend="gpu")


def one_query_case(rng, n_docs=300, n_vocab=50, n_hits=None):
    """A table with frequent tokens (bitset rows) and rare ones, one query's hits (distinct
    documents, or repeated ones), and the Python-set reference of the boost."""
    p = 1.0 / np.arange(1, n_vocab + 1)
    p /= p.sum()
    rows = [np.unique(rng.choice(n_vocab, size=int(rng.integers(0, 30)), p=p))
            for _ in range(n_docs)]
    indptr = np.r_[0, np.cumsum([len(r) for r in rows])]
    tokens = np.concatenate(rows).astype(np.int64)
    len16 = rng.integers(0, 60, size=n_docs).astype(np.float64)
    table = BoostTable(indptr, tokens, n_vocab, length_boost(len16))
    q = np.unique(rng.choice(n_vocab, size=int(rng.integers(0, 9))))
    n_q = float(len(q) + int(rng.integers(0, 3)))
    n = int(rng.integers(0, 200)) if n_hits is None else n_hits
    docnos = (rng.choice(n_docs, size=n, replace=False) if rng.random() < 0.7
              else rng.integers(0, n_docs, size=n)).astype(np.int64)
    scores = rng.random(n) * 20
    scores[rng.random(n) < 0.1] = 0.0
    path_hits = rng.integers(0, 3, size=n).astype(np.int64) if rng.random() < 0.5 else None
    text = np.array([s / (1 + s) if s > 0 else 0.0 for s in scores.tolist()])
    overlap = [len(set(rows[d].tolist()) & set(q.tolist())) for d in docnos.tolist()]
    want = boosted_score(text, overlap, n_q, [len(rows[d]) for d in docnos],
                         0 if path_hits is None else path_hits, len16[docnos])
    return table, scores, docnos, q.astype(np.int64), n_q, path_hits, text, want


def test_bitsets_are_the_postings():
    rng = np.random.default_rng(5)
    table = one_query_case(rng, n_docs=3000, n_vocab=2000)[0]  # frequent and rare tokens
    t_ptr, t_docs = table.postings
    bit_row, bits = table.bitsets
    n_docs = len(table.indptr) - 1
    df = np.diff(t_ptr)
    assert np.array_equal(bit_row >= 0, df * BITSET_RATIO > n_docs)
    assert 0 < (bit_row >= 0).sum() < len(df)
    assert bits.nbytes <= t_docs.nbytes
    for t in np.flatnonzero(bit_row >= 0).tolist():
        members = np.unpackbits(bits[bit_row[t]], bitorder="little")[:n_docs]
        assert np.array_equal(np.flatnonzero(members), t_docs[t_ptr[t]:t_ptr[t + 1]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_score_query_equals_set_reference(backend):
    """One query: text scores and boosts against Python sets, on hit counts that take each
    of the kernel's counts (token rows, postings, bitset rows, mixed), repeated documents."""
    rng = np.random.default_rng(17)
    for i in range(300):
        n_hits = [0, 1, 3, 20, 150, None][i % 6]
        table, scores, docnos, q, n_q, path, text, want = one_query_case(rng, n_hits=n_hits)
        got_text, got = score_query(table, scores, docnos, q, n_q, path, True, backend)
        assert np.array_equal(got_text, text)
        assert np.array_equal(got, want)
        # the TF-IDF leg: the raw score is the text score
        raw_text, raw_boost = score_query(table, text, docnos, q, n_q, path, False, backend)
        assert np.array_equal(raw_text, text) and np.array_equal(raw_boost, want)
        # the many-query kernel agrees
        assert np.array_equal(got, boost_hits(table, text, docnos, [0, len(q)], q, [n_q],
                                              path, None, backend))
        for mask, slot in table.pool:
            assert not mask.any() and not slot.any()


@pytest.mark.parametrize("backend", BACKENDS)
def test_text_scores_edge_values(backend):
    r = np.array([0.0, -1.0, np.nan, np.inf, -np.inf, 5e-324, 1e-300, 0.5, 3.0, 1e300])
    want = relevance_to_score(r)
    assert np.array_equal(text_scores(r, True, backend), want, equal_nan=True)
    assert want[3] == 1 / 1e3 and want[2] == 0.0  # FTS5's missing rank; NaN is no hit
    copy = text_scores(r, False, backend)
    assert np.array_equal(copy, r, equal_nan=True) and copy is not r
    with pytest.raises(ValueError, match="backend"):
        text_scores(r, True, "gpu")


def test_rank_to_score_edge_values():
    """bm25RankToScore's one body: r / (1 + r) for a rank -r < 0, 1 / (1 + rank) for
    another finite one, 0.001 for a rank that is not finite; the array form maps each."""
    ranks = [-1e300, -12.5, -1.0, -1e-6, -5e-324, -0.0, 0.0, 3e-7, 0.5, 2.0, 1e300,
             float("inf"), float("-inf"), float("nan")]
    got = bm25_rank_to_score(np.array(ranks))
    assert got.tolist() == [rank_to_score(r) for r in ranks]
    assert rank_to_score(-3.0) == 0.75 and rank_to_score(1.0) == 0.5
    assert [rank_to_score(r) for r in ranks[-3:]] == [0.001] * 3
    assert bm25_rank_to_score(-3.0) == 0.75 and bm25_rank_to_score(np.zeros((2, 0))).shape == (2, 0)
