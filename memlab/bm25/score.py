"""Top-k retrieval over term × doc postings: the plain numpy kernel and the backend switch.

A query's score of a document is the sum, over the query's terms in ascending term id, of
``query weight × posting weight``, added one term at a time into a float64 zero
(``scores[docs] += weights * qw``; the order of the sparse product ``q @ term_doc``, so scores
are bit-identical to it), plus a per-query constant (bm25l/bm25+'s non-occurrence sum; 0
otherwise) added last. Hits are the documents holding at least one of the query's known terms
(``match="any"``) or all its distinct tokens (``match="all"``), ranked by score descending,
then docno ascending, at most ``depth`` per query. The kernel does not know the ranking
function: BM25 and TF-IDF differ only in the weights (:mod:`memlab.bm25.index`).

Backends (``backend=``): ``"numpy"`` (:func:`rank_numpy`, always available), ``"numba"``
(:mod:`memlab.bm25.numba_backend`, the same additions in the same order and dtype compiled,
hence the same bits; needs the ``speed`` extra), ``"auto"``: resolved as every kernel's
backend is, by :func:`memlab.kernels.backend.resolve_backend` (the ``MEMLAB_KERNEL_BACKEND``
environment variable, else the process default, else numba when importable).

>>> import scipy.sparse as sp
>>> post = Postings(sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 1.0]])))
>>> q = QueryTerms.from_matrix(sp.csr_matrix(np.array([[1.0, 1.0]])))
>>> [(d.tolist(), s.tolist()) for d, s in rank(post, q, depth=2, backend="numpy")]
[([1, 2], [3.0, 3.0])]
"""

from __future__ import annotations

import numpy as np

from memlab.bm25.postings import Postings, QueryTerms, query_terms
from memlab.kernels.backend import BACKENDS, compiled, numba_available, resolve_backend

__all__ = ["BACKENDS", "Postings", "QueryTerms", "numba_available", "query_terms", "rank",
           "rank_numpy", "resolve_backend"]


def rank(post: Postings, queries: QueryTerms, depth: int | None, match_all: bool = False,
         backend: str = "auto") -> list[tuple[np.ndarray, np.ndarray]]:
    """Per query: (docnos int64, scores float64) of its hits, best first, at most ``depth``
    (None: all), on the backend :func:`resolve_backend` picks. Both backends return the same
    arrays."""
    if resolve_backend(backend) == "numba":
        return compiled("memlab.bm25.numba_backend").rank_numba(post, queries, depth,
                                                               match_all)
    return rank_numpy(post, queries, depth, match_all)


def rank_numpy(post: Postings, queries: QueryTerms, depth: int | None,
               match_all: bool = False) -> list[tuple[np.ndarray, np.ndarray]]:
    """The numpy kernel, one query at a time (as bm25s does).

    The postings of each query term are added into a dense per-document score vector (a
    term's documents are distinct, so ``scores[docs] += weights`` is exact); when every
    query term has strictly positive weights (and no constant, ``match="any"``) a score > 0
    *is* the hit test, otherwise hits come from a presence pass. The top ``depth`` come from
    a selection over the query's candidates when its postings are few (<= docs / 2), else
    from ``np.partition`` over all documents plus a threshold; the survivors are sorted by
    score descending, ties by lower docno. O(postings + documents) per query."""
    n_docs = post.n_docs
    n_q = len(queries)
    empty = (np.zeros(0, dtype=np.int64), np.zeros(0))
    if n_q == 0:
        return []
    if n_docs == 0 or len(queries.terms) == 0:
        return [empty] * n_q
    w_ptr, w_idx, p_ptr, p_idx = post.numpy_views
    w_data = post.weights.data
    minw = post.min_weight.tolist()
    q_ptr, q_idx, q_dat = queries.ptr.tolist(), queries.terms.tolist(), queries.weights.tolist()
    c_ptr, c_idx = queries.hit_ptr.tolist(), queries.hit_terms.tolist()
    const_l, need_l = queries.const.tolist(), queries.need.tolist()
    if depth is not None and depth >= n_docs:
        depth = None
    sparse_below = n_docs // 2
    per_query: list[tuple[np.ndarray, np.ndarray]] = []
    for row in range(n_q):
        lo_q, hi_q = q_ptr[row], q_ptr[row + 1]
        hit_terms = c_idx[c_ptr[row]:c_ptr[row + 1]]
        if lo_q == hi_q or (match_all and len(hit_terms) < max(need_l[row], 1)):
            per_query.append(empty)
            continue
        scores = np.zeros(n_docs)
        n_post = 0
        positive = const_l[row] == 0.0 and not match_all
        for t, qw in zip(q_idx[lo_q:hi_q], q_dat[lo_q:hi_q], strict=True):
            lo, hi = w_ptr[t], w_ptr[t + 1]
            if lo == hi:
                continue
            n_post += hi - lo
            docs = w_idx[lo:hi]
            if qw == 1.0:  # x * 1.0 == x exactly, so the product can be skipped
                scores[docs] += w_data[lo:hi]
            else:
                scores[docs] += w_data[lo:hi] * qw
            positive = positive and minw[t] * qw > 0.0
        if positive:
            # every matching document scores > 0 and every other exactly 0: the score
            # itself tells hits apart, no presence pass needed
            key, floor = scores, 0.0
        else:
            if match_all:
                count = np.zeros(n_docs, dtype=np.int32)
                for t in hit_terms:
                    count[p_idx[p_ptr[t]:p_ptr[t + 1]]] += 1
                hit = count >= need_l[row]
            else:
                hit = np.zeros(n_docs, dtype=bool)
                for t in hit_terms:
                    hit[p_idx[p_ptr[t]:p_ptr[t + 1]]] = True
            if const_l[row] != 0.0:
                scores += const_l[row]  # const + sum, as the sparse product path adds them
            key, floor = np.where(hit, scores, -np.inf), -np.inf
        if depth is None or n_post <= sparse_below:
            # few postings: select among the (at most n_post) hits only
            cand = np.flatnonzero(key > floor)
            vals = key[cand]
            if depth is not None and len(cand) > depth:
                kth = np.partition(vals, len(vals) - depth)[len(vals) - depth]
                keep = vals >= kth
                cand, vals = cand[keep], vals[keep]
        else:
            # the depth-th largest key over all documents; when it is a hit's, every key
            # >= it is a candidate (boundary ties included, cut by docno below)
            kth = np.partition(key, n_docs - depth)[n_docs - depth]
            cand = np.flatnonzero(key >= kth) if kth > floor else np.flatnonzero(key > floor)
            vals = key[cand]
        # candidates are in docno order, so a stable sort on -score breaks ties by docno
        order = np.argsort(-vals, kind="stable")
        if depth is not None:
            order = order[:depth]
        per_query.append((cand[order], vals[order]))
    return per_query
