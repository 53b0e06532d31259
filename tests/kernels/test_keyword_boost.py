"""kernels.keyword.boost_hits: numpy and numba backends against boosted_score on counts made
with Python sets (random tables, batches in any order, repeated documents, path hits, queries
without tokens)."""

from __future__ import annotations

import numpy as np
import pytest

from memlab.bm25.score import numba_available
from memlab.kernels.keyword import BoostTable, boost_hits, boosted_score, length_boost

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
