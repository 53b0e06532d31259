"""The compiled FTS5 bm25 top-k (memlab.kernels.fts5_bm25_numba) against a plain numpy
reference: every row holding all terms, scored term by term, stable-sorted, cut."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from memlab.kernels.fts5_bm25_numba import and_top_k  # noqa: E402
from memlab.kernels.keyword import bm25_rank_to_score  # noqa: E402


def reference(presence, tf, doc_len, avgdl, terms, idf, limit):
    rows = np.flatnonzero(presence[:, terms].all(axis=1))
    score = np.zeros(len(rows))
    for p, t in enumerate(terms):
        f = tf[rows, t].astype(np.float64)
        d = doc_len[rows]
        score = score + idf[p] * ((f * (1.2 + 1.0)) / (f + 1.2 * (1.0 - 0.75 + 0.75 * d / avgdl)))
    rank = -1.0 * score
    order = np.argsort(rank, kind="stable")[:limit]
    return rows[order], rank[order]


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_equals_stable_sort_of_every_match(data):
    n_docs = data.draw(st.integers(1, 60))
    n_terms = data.draw(st.integers(1, 5))
    # tf in {0, 1, 2} and two document lengths: many exactly tied ranks
    tf = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n_docs * n_terms,
                                     max_size=n_docs * n_terms))).reshape(n_docs, n_terms)
    doc_len = np.array(data.draw(st.lists(st.sampled_from([3.0, 5.0]), min_size=n_docs,
                                          max_size=n_docs)))
    presence = tf > 0
    indptr = np.concatenate([[0], np.cumsum(presence.sum(axis=0))])
    docs = np.concatenate([np.flatnonzero(presence[:, t]) for t in range(n_terms)])
    flat_tf = np.concatenate([tf[presence[:, t], t] for t in range(n_terms)])
    terms = np.array(data.draw(st.lists(st.integers(0, n_terms - 1), min_size=1, max_size=3)))
    idf = np.array([0.5 + 0.25 * t for t in terms])
    limit = data.draw(st.integers(1, 70))
    avgdl = float(doc_len.mean())
    pos, rank, text_score = and_top_k(indptr, docs.astype(np.int32),
                                      flat_tf.astype(np.int32), doc_len, avgdl, terms, idf,
                                      limit)
    want_pos, want_rank = reference(presence, tf, doc_len, avgdl, terms, idf, limit)
    assert pos.tolist() == want_pos.tolist()
    assert rank.tolist() == want_rank.tolist()
    assert text_score.tolist() == bm25_rank_to_score(rank).tolist()
