"""The compiled kernel of :mod:`memlab.bm25.score` (numba; ``pip install 'memlab[speed]'``).

Same scores as :func:`memlab.bm25.score.rank_numpy`, bit for bit: each document's score is
accumulated in float64 from 0.0, one query term at a time in ascending term id, as
``score += posting_weight * query_weight`` (the product rounded, then the sum; numba emits no
fused multiply-add without ``fastmath``), and the query's constant is added last. What is
cheaper than numpy: one pass per query over its postings (scores, hit counts and the list of
touched documents together), no O(documents) allocation or zeroing per query (the
per-document scratch arrays are kept between calls and only touched entries are reset), no
scan of every document when a query's postings are few, a heap of the top ``depth`` among
the touched documents, and all queries of a batch in one call. Ties: score descending, then
docno ascending, as numpy.

Compiled on first use (about a second, then cached on disk next to this file by numba).

>>> import numpy as np, scipy.sparse as sp
>>> from memlab.bm25.postings import Postings, QueryTerms
>>> post = Postings(sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 1.0]])))
>>> q = QueryTerms.from_matrix(sp.csr_matrix(np.array([[1.0, 1.0]])))
>>> [(d.tolist(), s.tolist()) for d, s in rank_numba(post, q, depth=2)]
[([1, 2], [3.0, 3.0])]
"""

from __future__ import annotations

import weakref

import numpy as np
from numba import njit

from memlab.bm25.postings import Postings, QueryTerms

__all__ = ["rank_numba"]


@njit(cache=True, nogil=True)
def _before(s_a: float, d_a: int, s_b: float, d_b: int) -> bool:
    """Does (score a, doc a) rank before (score b, doc b)?"""
    return s_a > s_b or (s_a == s_b and d_a < d_b)


@njit(cache=True, nogil=True)
def _sift_down(hs, hd, i, n):
    # min-heap on rank order: the root is the worst of the kept hits
    while True:
        left = 2 * i + 1
        if left >= n:
            return
        worst = left
        right = left + 1
        if right < n and _before(hs[left], hd[left], hs[right], hd[right]):
            worst = right
        if _before(hs[worst], hd[worst], hs[i], hd[i]):
            return
        hs[i], hs[worst] = hs[worst], hs[i]
        hd[i], hd[worst] = hd[worst], hd[i]
        i = worst


@njit(cache=True, nogil=True)
def _push(heap_s, heap_d, n_kept, limit, s, d):
    """Offer (s, d) to the heap of the best ``limit`` hits; returns the new size."""
    if n_kept < limit:
        j = n_kept
        heap_s[j] = s
        heap_d[j] = d
        while j > 0:
            parent = (j - 1) // 2
            if _before(heap_s[parent], heap_d[parent], heap_s[j], heap_d[j]):
                heap_s[parent], heap_s[j] = heap_s[j], heap_s[parent]
                heap_d[parent], heap_d[j] = heap_d[j], heap_d[parent]
                j = parent
            else:
                break
        return n_kept + 1
    if _before(s, d, heap_s[0], heap_d[0]):
        heap_s[0] = s
        heap_d[0] = d
        _sift_down(heap_s, heap_d, 0, n_kept)
    return n_kept


@njit(cache=True, nogil=True)
def _rank_batch(w_ptr, w_idx, w_dat, min_w, p_ptr, p_idx, same_pattern, q_ptr, q_idx, q_dat,
                c_ptr, c_idx, const, need, match_all, depth, n_docs, acc, cnt, touched):
    # acc (float64), cnt (int32) and touched (int64) have n_docs entries; acc and cnt are
    # all zero on entry and are left all zero (only what a query touched is reset)
    n_q = len(q_ptr) - 1
    # output bound: per query at most min(depth, documents, postings of its hit terms)
    bound = np.zeros(n_q + 1, dtype=np.int64)
    for row in range(n_q):
        n = 0
        for j in range(c_ptr[row], c_ptr[row + 1]):
            t = c_idx[j]
            n += p_ptr[t + 1] - p_ptr[t]
        n = min(n, n_docs)
        if depth >= 0:
            n = min(n, depth)
        bound[row + 1] = bound[row] + n
    out_docs = np.empty(bound[n_q], dtype=np.int64)
    out_scores = np.empty(bound[n_q], dtype=np.float64)
    out_n = np.zeros(n_q, dtype=np.int64)
    cap = depth if depth >= 0 else n_docs
    heap_s = np.empty(min(cap, n_docs) + 1, dtype=np.float64)
    heap_d = np.empty(min(cap, n_docs) + 1, dtype=np.int64)
    for row in range(n_q):
        lo_q, hi_q = q_ptr[row], q_ptr[row + 1]
        n_hit_terms = c_ptr[row + 1] - c_ptr[row]
        if lo_q == hi_q or (match_all and n_hit_terms < max(need[row], 1)):
            continue
        limit = bound[row + 1] - bound[row]
        n_kept = 0
        c = const[row]
        # positive: every query term's weights are > 0, no constant, match="any" -- then a
        # score > 0 is the hit test (as in the numpy kernel) and no counts are needed
        positive = same_pattern and c == 0.0 and not match_all
        n_post = 0
        for j in range(lo_q, hi_q):
            t = q_idx[j]
            n_post += w_ptr[t + 1] - w_ptr[t]
            positive = positive and min_w[t] * q_dat[j] > 0.0
        if positive and 4 * n_post >= n_docs:
            # many postings: add them all, then one pass over every document
            for j in range(lo_q, hi_q):
                t = q_idx[j]
                qw = q_dat[j]
                for k in range(w_ptr[t], w_ptr[t + 1]):
                    acc[w_idx[k]] += w_dat[k] * qw
            # documents come in ascending order, so a tie with the worst kept hit never
            # displaces it: a hit enters when its score beats the worst kept (0 until full)
            floor = 0.0
            for d in range(n_docs):
                s = acc[d]
                acc[d] = 0.0
                if s > floor:
                    n_kept = _push(heap_s, heap_d, n_kept, limit, s, d)
                    if n_kept == limit:
                        floor = heap_s[0]
        elif positive:
            # few postings: a document is new while its partial sum is still 0
            m = 0
            for j in range(lo_q, hi_q):
                t = q_idx[j]
                qw = q_dat[j]
                for k in range(w_ptr[t], w_ptr[t + 1]):
                    d = w_idx[k]
                    a = acc[d]
                    if a == 0.0:
                        touched[m] = d
                        m += 1
                    acc[d] = a + w_dat[k] * qw
            for i in range(m):
                d = touched[i]
                n_kept = _push(heap_s, heap_d, n_kept, limit, acc[d], d)
                acc[d] = 0.0
        else:
            m = 0
            if same_pattern:
                for j in range(lo_q, hi_q):
                    t = q_idx[j]
                    qw = q_dat[j]
                    for k in range(w_ptr[t], w_ptr[t + 1]):
                        d = w_idx[k]
                        if cnt[d] == 0:
                            touched[m] = d
                            m += 1
                        cnt[d] += 1
                        acc[d] += w_dat[k] * qw
            else:
                for j in range(c_ptr[row], c_ptr[row + 1]):
                    t = c_idx[j]
                    for k in range(p_ptr[t], p_ptr[t + 1]):
                        d = p_idx[k]
                        if cnt[d] == 0:
                            touched[m] = d
                            m += 1
                        cnt[d] += 1
                for j in range(lo_q, hi_q):
                    t = q_idx[j]
                    qw = q_dat[j]
                    for k in range(w_ptr[t], w_ptr[t + 1]):
                        acc[w_idx[k]] += w_dat[k] * qw
            wanted = max(need[row], 1) if match_all else 1
            add_const = c != 0.0
            for i in range(m):
                d = touched[i]
                if cnt[d] >= wanted:
                    s = acc[d] + c if add_const else acc[d]
                    n_kept = _push(heap_s, heap_d, n_kept, limit, s, d)
            # reset only what this query touched
            for i in range(m):
                d = touched[i]
                acc[d] = 0.0
                cnt[d] = 0
            if not same_pattern:
                for j in range(lo_q, hi_q):
                    t = q_idx[j]
                    for k in range(w_ptr[t], w_ptr[t + 1]):
                        acc[w_idx[k]] = 0.0
        # heap sort: pop the worst to the back, best first in the end
        base = bound[row]
        n = n_kept
        while n > 0:
            out_scores[base + n - 1] = heap_s[0]
            out_docs[base + n - 1] = heap_d[0]
            n -= 1
            heap_s[0] = heap_s[n]
            heap_d[0] = heap_d[n]
            _sift_down(heap_s, heap_d, 0, n)
        out_n[row] = n_kept
    return bound, out_n, out_docs, out_scores


class _Kernel:
    """The kernel's view of one :class:`Postings`: its arrays, and a pool of per-document
    scratch buffers (one per concurrent call; taken and given back with the atomic
    ``list.pop``/``append``, so threads never share one)."""

    def __init__(self, post: Postings):
        w = post.weights
        p = w if post.presence is None else post.presence
        self.args = (w.indptr, w.indices, w.data, post.min_weight, p.indptr, p.indices)
        self.same = post.presence is None
        self.n_docs = post.n_docs
        self.pool: list[tuple[np.ndarray, ...]] = []

    def scratch(self) -> tuple[np.ndarray, ...]:
        try:
            return self.pool.pop()
        except IndexError:
            n = self.n_docs
            return np.zeros(n), np.zeros(n, dtype=np.int32), np.empty(n, dtype=np.int64)


_KERNELS: weakref.WeakKeyDictionary[Postings, _Kernel] = weakref.WeakKeyDictionary()


def rank_numba(post: Postings, queries: QueryTerms, depth: int | None,
               match_all: bool = False) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`memlab.bm25.score.rank_numpy`, compiled; the same return value."""
    n_q = len(queries.ptr) - 1
    if n_q == 0:
        return []
    n_docs = post.n_docs
    if n_docs == 0 or len(queries.terms) == 0:
        return [(np.zeros(0, dtype=np.int64), np.zeros(0))] * n_q
    kernel = _KERNELS.get(post)
    if kernel is None:
        kernel = _KERNELS[post] = _Kernel(post)
    scratch = kernel.scratch()
    bound, out_n, docs, scores = _rank_batch(
        *kernel.args, kernel.same and queries.same, queries.ptr, queries.terms,
        queries.weights, queries.hit_ptr, queries.hit_terms, queries.const, queries.need,
        bool(match_all), -1 if depth is None else int(depth), n_docs, *scratch)
    kernel.pool.append(scratch)  # acc and cnt are all zero again
    if n_q == 1:
        n = int(out_n[0])
        return [(docs[:n], scores[:n])]
    starts = bound[:-1].tolist()
    ends = (bound[:-1] + out_n).tolist()
    return [(docs[a:b], scores[a:b]) for a, b in zip(starts, ends, strict=True)]
