"""The inputs of the top-k kernels: term × doc postings and a batch of weighted query terms.

Both backends (:mod:`memlab.bm25.score`'s numpy kernel and :mod:`memlab.bm25.numba_backend`)
read these; they live apart from the backend switch so that neither backend imports the
other's module (no import cycle).

>>> import numpy as np, scipy.sparse as sp
>>> q = QueryTerms.from_matrix(sp.csr_matrix(np.array([[1.0, 0.0, 2.0]])))
>>> len(q.weights)
2
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

__all__ = ["Postings", "QueryTerms", "query_terms"]


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
    numpy kernel (:attr:`numpy_views`: ``indptr`` as a Python list, ``indices`` as ``intp``:
    numpy's fancy indexing casts int32 indices on every use) are built on its first use only.

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
    def max_weight(self) -> np.ndarray:
        """Each term's largest weight (0.0 for a term without postings: it adds nothing)."""
        w = self.weights
        out = np.zeros(w.shape[0])
        nonempty = np.diff(w.indptr) > 0
        if w.nnz:
            out[nonempty] = np.maximum.reduceat(w.data, w.indptr[:-1][nonempty])
        return out

    @cached_property
    def numpy_views(self) -> tuple[list[int], np.ndarray, list[int], np.ndarray]:
        """The numpy kernel's ``(indptr, indices)`` of the weights, then of the presence
        pattern (the weights' when :attr:`presence` is None)."""
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
