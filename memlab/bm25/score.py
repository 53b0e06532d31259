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
hence the same bits; needs the ``speed`` extra), ``"auto"`` (numba when importable, else
numpy). The ``MEMLAB_BM25_BACKEND`` environment variable replaces ``"auto"``.

>>> import scipy.sparse as sp
>>> post = Postings(sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 1.0]])))
>>> q = QueryTerms.from_matrix(sp.csr_matrix(np.array([[1.0, 1.0]])))
>>> [(d.tolist(), s.tolist()) for d, s in rank(post, q, depth=2, backend="numpy")]
[([1, 2], [3.0, 3.0])]
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

__all__ = ["BACKENDS", "Postings", "QueryTerms", "numba_available", "rank", "rank_numpy",
           "resolve_backend"]

BACKENDS = ("auto", "numpy", "numba")
ENV_BACKEND = "MEMLAB_BM25_BACKEND"


def _same_pattern(a: sp.csr_matrix, b: sp.csr_matrix) -> bool:
    """Do two CSR matrices store entries at the same positions, in the same order?"""
    return (a.shape == b.shape and a.nnz == b.nnz and np.array_equal(a.indptr, b.indptr)
            and np.array_equal(a.indices, b.indices))


def _is_csr(m: object) -> bool:
    return sp.issparse(m) and m.format == "csr"


class Postings:
    """A CSR term × doc weight matrix as per-term postings for the kernels.

    ``presence`` (term × doc, same shape) decides which documents contain a term when its
    stored pattern differs from the weights' (None: the weights' pattern does). Views for the
    numpy kernel (``indptr`` as a Python list, ``indices`` as ``intp``: numpy's fancy
    indexing casts int32 indices on every use) are built on its first use only.

    >>> p = Postings(sp.csr_matrix(np.array([[1.0, 0.0], [0.0, -2.0]])))
    >>> p.n_docs, p.min_weight.tolist()
    (2, [1.0, -2.0])
    """

    def __init__(self, weights: sp.csr_matrix, presence: sp.csr_matrix | None = None):
        self.weights = weights if _is_csr(weights) else sp.csr_matrix(weights)
        self.presence_matrix = presence
        self.presence = (None if presence is None or _same_pattern(self.weights, presence)
                         else presence if _is_csr(presence) else sp.csr_matrix(presence))
        self.n_docs = self.weights.shape[1]

    @cached_property
    def min_weight(self) -> np.ndarray:
        """Each term's smallest weight (+inf for a term without postings)."""
        w = self.weights
        out = np.full(w.shape[0], np.inf)
        nonempty = np.diff(w.indptr) > 0
        if w.nnz:
            out[nonempty] = np.minimum.reduceat(w.data, w.indptr[:-1][nonempty])
        return out

    @cached_property
    def _numpy_views(self) -> tuple[list[int], np.ndarray, list[int], np.ndarray]:
        w = self.weights
        ptr, idx = w.indptr.tolist(), w.indices.astype(np.intp, copy=False)
        if self.presence is None:
            return ptr, idx, ptr, idx
        p = self.presence
        return ptr, idx, p.indptr.tolist(), p.indices.astype(np.intp, copy=False)


@dataclass(eq=False)
class QueryTerms:
    """A batch of queries for the kernels, as CSR rows over term ids.

    ``ptr``/``terms``/``weights``: each query's score terms (ascending term id) and query
    weights; ``hit_ptr``/``hit_terms``: its distinct known terms (which decide hits);
    ``const``: added to every document's score; ``need``: under ``match="all"`` a hit holds
    at least ``max(need, 1)`` of the hit terms (the query's distinct tokens, unknown ones
    included, so a query with an unknown token matches nothing). ``same`` is True when the
    score terms are the hit terms."""

    ptr: np.ndarray
    terms: np.ndarray
    weights: np.ndarray
    hit_ptr: np.ndarray
    hit_terms: np.ndarray
    const: np.ndarray
    need: np.ndarray
    same: bool

    @classmethod
    def from_matrix(cls, q_weights: sp.csr_matrix, q_counts: sp.csr_matrix | None = None,
                    const: np.ndarray | None = None,
                    n_distinct: np.ndarray | None = None) -> QueryTerms:
        """From query × term matrices: ``q_weights`` (score terms) and ``q_counts`` (the known
        terms counted; default: ``q_weights``'s pattern)."""
        q_weights = sp.csr_matrix(q_weights)
        n = q_weights.shape[0]
        same = q_counts is None or _same_pattern(q_weights, sp.csr_matrix(q_counts))
        if same:
            hit_ptr, hit_terms = q_weights.indptr, q_weights.indices
        else:
            qc = sp.csr_matrix(q_counts, copy=True)
            qc.sum_duplicates()
            hit_ptr, hit_terms = qc.indptr, qc.indices
        if n_distinct is None:
            n_distinct = np.diff(hit_ptr)
        return cls(q_weights.indptr.astype(np.int64), q_weights.indices.astype(np.int64),
                   q_weights.data.astype(np.float64, copy=False),
                   np.asarray(hit_ptr, dtype=np.int64), np.asarray(hit_terms, dtype=np.int64),
                   np.zeros(n) if const is None else np.asarray(const, dtype=np.float64),
                   np.asarray(n_distinct, dtype=np.int64), same)

    def __len__(self) -> int:
        return len(self.ptr) - 1

    def dot(self, vector: np.ndarray) -> np.ndarray:
        """Per query, the sum of ``weight × vector[term]`` over its score terms, added in
        term order from 0.0 (the additions of scipy's CSR matrix-vector product, so the same
        bits as ``q_weights @ vector``).

        >>> q = QueryTerms.from_matrix(sp.csr_matrix(np.array([[1.0, 2.0], [0.0, 0.0]])))
        >>> q.dot(np.array([0.5, 0.25])).tolist()
        [1.0, 0.0]
        """
        products = (self.weights * np.asarray(vector, dtype=np.float64)[self.terms]).tolist()
        out = []
        for lo, hi in zip(self.ptr[:-1].tolist(), self.ptr[1:].tolist(), strict=True):
            total = 0.0
            for x in products[lo:hi]:  # sequential, not math.fsum or np.sum (pairwise)
                total += x
            out.append(total)
        return np.asarray(out, dtype=np.float64)


def query_terms(token_lists: list[list[str]], vocabulary: dict[str, int]) -> QueryTerms:
    """:class:`QueryTerms` of tokenised queries with their term counts as weights (BM25's
    query side; unknown tokens are dropped but count in ``need``), without building scipy
    matrices (the same rows as ``QueryTerms.from_matrix`` of the count matrix).

    >>> q = query_terms([["b", "a", "b", "zz"]], {"a": 0, "b": 1})
    >>> q.terms.tolist(), q.weights.tolist(), q.need.tolist()
    ([0, 1], [1.0, 2.0], [3])
    """
    ptr, terms, weights, need = [0], [], [], []
    get = vocabulary.get
    for tokens in token_lists:
        ids = sorted(i for i in map(get, tokens) if i is not None)
        need.append(len(set(tokens)))
        prev, n = -1, 0
        for i in ids:
            if i == prev:
                weights[-1] += 1.0
            else:
                terms.append(i)
                weights.append(1.0)
                prev = i
                n += 1
        ptr.append(ptr[-1] + n)
    p = np.asarray(ptr, dtype=np.int64)
    t = np.asarray(terms, dtype=np.int64)
    return QueryTerms(p, t, np.asarray(weights, dtype=np.float64), p, t,
                      np.zeros(len(token_lists)), np.asarray(need, dtype=np.int64), True)


def numba_available() -> bool:
    """Can the numba kernel be used (is numba importable)?"""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def resolve_backend(backend: str = "auto") -> str:
    """``"numpy"`` or ``"numba"``: the backend ``backend`` runs on.

    ``"auto"`` is the ``MEMLAB_BM25_BACKEND`` environment variable when set, else numba when
    importable, else numpy; ``"numba"`` without numba installed is an error.

    >>> resolve_backend("numpy")
    'numpy'
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))} "
                         f"(got {backend!r})")
    if backend == "auto":
        env = os.environ.get(ENV_BACKEND, "").strip()
        if env:
            if env not in BACKENDS:
                raise ValueError(f"{ENV_BACKEND} must be one of {', '.join(BACKENDS)} "
                                 f"(got {env!r})")
            backend = env
    if backend == "auto":
        return "numba" if numba_available() else "numpy"
    if backend == "numba" and not numba_available():
        raise ImportError("backend='numba' needs numba: pip install 'memlab[speed]' (or use "
                          "backend='auto' or 'numpy')")
    return backend


def rank(post: Postings, queries: QueryTerms, depth: int | None, match_all: bool = False,
         backend: str = "auto") -> list[tuple[np.ndarray, np.ndarray]]:
    """Per query: (docnos int64, scores float64) of its hits, best first, at most ``depth``
    (None: all), on the backend :func:`resolve_backend` picks. Both backends return the same
    arrays."""
    if resolve_backend(backend) == "numba":
        from memlab.bm25.numba_backend import rank_numba

        return rank_numba(post, queries, depth, match_all)
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
    w_ptr, w_idx, p_ptr, p_idx = post._numpy_views
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
