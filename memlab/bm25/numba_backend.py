"""The compiled kernel of :mod:`memlab.bm25.score` (numba; ``pip install 'memlab[speed]'``).

Same scores as :func:`memlab.bm25.score.rank_numpy`, bit for bit: each document's score is
accumulated in float64 from 0.0, one query term at a time in ascending term id, as
``score += posting_weight * query_weight`` (the product rounded, then the sum; numba emits no
fused multiply-add without ``fastmath``), and the query's constant is added last. What is
cheaper than numpy: one pass per query over its postings (scores, hit counts and the list of
touched documents together), no O(documents) allocation or zeroing per query (the
per-document scratch arrays are kept between calls and only touched entries are reset), no
scan of every document when a query's postings are few; when they are many, documents are
scored in cache-sized blocks (each block's postings added, the block scanned for the top-k
and zeroed while it is in the cache); the top ``depth`` kept in a buffer of about twice
that size that is cut back to the best ``depth`` when full (no per-hit heap sift; after a cut
a hit is buffered only if it beats the worst kept), and all queries of a batch in one call.
Ties: score descending, then docno ascending, as numpy.

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
def _before(s_a, d_a, s_b, d_b):
    """Does (score a, doc a) rank before (score b, doc b)?"""
    return s_a > s_b or (s_a == s_b and d_a < d_b)


@njit(cache=True, nogil=True)
def _kth_largest(vals, n, k):
    """The ``k``-th largest of ``vals[:n]`` (1 <= k <= n), reordering ``vals`` (Hoare's
    quickselect, median-of-three pivot; written out because numba's ``np.partition`` copies
    and checks for NaN, several times slower on these few hundred values)."""
    target = n - k  # its position in ascending order
    lo = 0
    hi = n - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        a, b, c = vals[lo], vals[mid], vals[hi]
        if a > b:
            a, b = b, a
        pivot = b if b < c else (a if a > c else c)  # the median of a <= b and c
        i, j = lo, hi
        while i <= j:
            while vals[i] < pivot:
                i += 1
            while vals[j] > pivot:
                j -= 1
            if i <= j:
                vals[i], vals[j] = vals[j], vals[i]
                i += 1
                j -= 1
        if target <= j:
            hi = j
        elif target >= i:
            lo = i
        else:
            return vals[target]
    return vals[target]


@njit(cache=True, nogil=True)
def _compact(buf_s, buf_d, n, k, tmp):
    """Keep, in place and in their order, the best ``k`` of the ``n`` buffered hits (score
    descending, then docno ascending); returns (k, worst kept score, worst kept docno).
    ``tmp`` is scratch of at least ``n`` floats."""
    tmp[:n] = buf_s[:n]
    f = _kth_largest(tmp, n, k)
    n_gt = 0
    n_eq = 0
    d_f = -1
    for i in range(n):
        s = buf_s[i]
        if s > f:
            n_gt += 1
        elif s == f:
            n_eq += 1
            if buf_d[i] > d_f:
                d_f = buf_d[i]
    need = k - n_gt  # >= 1 of the hits tied at f: those of the lowest docnos
    if need < n_eq:
        ties = np.empty(n_eq, dtype=np.int64)
        j = 0
        for i in range(n):
            if buf_s[i] == f:
                ties[j] = buf_d[i]
                j += 1
        ties.sort()
        d_f = ties[need - 1]
    j = 0
    for i in range(n):
        s = buf_s[i]
        if s > f or (s == f and buf_d[i] <= d_f):
            buf_s[j] = s
            buf_d[j] = buf_d[i]
            j += 1
    return j, f, d_f


#: Documents per sampled one when the dense path guesses its first floor.
SAMPLE_STRIDE = 16


@njit(cache=True, nogil=True)
def _guess_floor(acc, n, limit, tmp):
    """A score that about ``3 * limit`` of ``acc[:n]`` beat, from every
    :data:`SAMPLE_STRIDE`-th entry (0.0 when the sample has too few hits to tell); ``tmp``
    holds at least ``n // SAMPLE_STRIDE + 1`` floats."""
    rank = (3 * limit) // SAMPLE_STRIDE + 3
    m = 0
    for d in range(0, n, SAMPLE_STRIDE):
        s = acc[d]
        if s > 0.0:
            tmp[m] = s
            m += 1
    if m < 2 * rank:
        return 0.0
    return _kth_largest(tmp, m, rank)


@njit(cache=True, nogil=True)
def _first_at_least(a, lo, hi, x):
    """The first ``i`` in ``lo..hi`` with ``a[i] >= x`` (``hi`` if none; ``a[lo:hi]``
    ascending)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


#: Relative widening of the dense path's score bounds: a sum of n float64 products in any
#: order is within n units in the last place (~1.1e-16 each) of the exact sum, so 1e-9 covers
#: queries of up to millions of terms; a bound this much too high only costs a look-up.
SLACK = 1e-9


@njit(cache=True, nogil=True)
def _seek(a, lo, hi, x):
    """The first ``i`` in ``lo..hi`` with ``a[i] >= x`` (``hi`` if none; ``a[lo:hi]``
    ascending), galloping from ``lo``: a few steps when it is near."""
    if lo >= hi or a[lo] >= x:
        return lo
    step = 1
    while lo + step < hi and a[lo + step] < x:
        lo += step
        step <<= 1
    return _first_at_least(a, lo + 1, min(lo + step, hi), x)


#: The dense path skips a block's postings of its low-scoring terms (MaxScore) only when they
#: are at least this many times (number of query terms) x the postings it still adds: each
#: document those touch that could still beat the floor is then looked up in every term
#: (a galloping search from the previous one), which costs more than adding a posting.
PRUNE_RATIO = 4


#: Documents per block of the dense path: a query's postings are added block by block into
#: this many scratch scores (128 KiB of float64, held in the L2 cache), each block scanned
#: for the top-k and zeroed while still cached. Fewer, larger blocks cost fewer per-block
#: seeks and MaxScore decisions; on an AMD EPYC (Zen 4: 32 KiB L1d, 1 MiB L2 per core) 16,384
#: beat 4,096 (which fills that L1d), 8,192 and 24,576 at depth 24 and 100 on SciFact, NPL
#: and the 200k Zipfian corpus (by 0.03-0.1 of the time ratio to bm25s-numba; 2026-12-04).
#: Scores do not depend on it.
BLOCK_DOCS = 16384


@njit(cache=True, nogil=True)
def _sort_hits(hs, hd, n):
    """Sort hits ``(hs, hd)[:n]`` in place, best first (score descending, then docno
    ascending): quicksort on the pair, insertion sort below 16 (no allocation)."""
    stack = np.empty(128, dtype=np.int64)
    top = 0
    stack[0] = 0
    stack[1] = n - 1
    top = 2
    while top > 0:
        top -= 2
        lo = stack[top]
        hi = stack[top + 1]
        while hi - lo >= 16:
            mid = (lo + hi) >> 1
            ps, pd = hs[mid], hd[mid]
            i, j = lo, hi
            while i <= j:
                while _before(hs[i], hd[i], ps, pd):
                    i += 1
                while _before(ps, pd, hs[j], hd[j]):
                    j -= 1
                if i <= j:
                    hs[i], hs[j] = hs[j], hs[i]
                    hd[i], hd[j] = hd[j], hd[i]
                    i += 1
                    j -= 1
            # recurse into the smaller side later (stack depth <= log2 n), loop on the larger
            if j - lo < hi - i:
                if i < hi:
                    stack[top] = i
                    stack[top + 1] = hi
                    top += 2
                hi = j
            else:
                if lo < j:
                    stack[top] = lo
                    stack[top + 1] = j
                    top += 2
                lo = i
        for a in range(lo + 1, hi + 1):
            s, d = hs[a], hd[a]
            b = a - 1
            while b >= lo and _before(s, d, hs[b], hd[b]):
                hs[b + 1] = hs[b]
                hd[b + 1] = hd[b]
                b -= 1
            hs[b + 1] = s
            hd[b + 1] = d


@njit(cache=True, nogil=True)
def _emit(buf_s, buf_d, n, k, tmp, out_s, out_d, base):
    """The best ``min(n, k)`` buffered hits into ``out_*[base:]``, best first; returns how
    many."""
    if n > k:
        n = _compact(buf_s, buf_d, n, k, tmp)[0]
    _sort_hits(buf_s, buf_d, n)
    out_s[base:base + n] = buf_s[:n]
    out_d[base:base + n] = buf_d[:n]
    return n


@njit(cache=True, nogil=True)
def _rank_batch(w_ptr, w_idx, w_dat, min_w, max_w, p_ptr, p_idx, same_pattern, q_ptr, q_idx, q_dat,
                c_ptr, c_idx, const, need, match_all, depth, n_docs, block, acc, cnt, touched):
    # acc (float64), cnt (int32) and touched (int64) have n_docs entries; acc and cnt are
    # all zero on entry and are left all zero (only what a query touched is reset); block
    # >= 1 is the dense path's documents per block
    n_q = len(q_ptr) - 1
    max_terms = 0
    for row in range(n_q):
        max_terms = max(max_terms, q_ptr[row + 1] - q_ptr[row])
    # the dense path's per query term: cursor, look-up cursor, largest product, skipped?
    cur = np.empty(max_terms, dtype=np.int64)
    seek = np.empty(max_terms, dtype=np.int64)
    top = np.empty(max_terms, dtype=np.float64)
    skip = np.zeros(max_terms, dtype=np.bool_)
    pre = np.empty(max_terms + 1, dtype=np.float64)
    block = min(block, n_docs)
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
    # hits are buffered, not heaped: a buffer of about twice the kept hits, cut back to the
    # best ``limit`` (:func:`_compact`) whenever it fills; after a cut only hits that beat the
    # worst kept one are buffered. Cheaper than a heap (no sift per accepted hit).
    size = min(n_docs, 2 * cap + 64)
    buf_s = np.empty(size, dtype=np.float64)
    buf_d = np.empty(size, dtype=np.int64)
    tmp = np.empty(max(size, block // SAMPLE_STRIDE + 1), dtype=np.float64)
    for row in range(n_q):
        lo_q, hi_q = q_ptr[row], q_ptr[row + 1]
        n_hit_terms = c_ptr[row + 1] - c_ptr[row]
        if lo_q == hi_q or (match_all and n_hit_terms < max(need[row], 1)):
            continue
        limit = bound[row + 1] - bound[row]
        if limit == 0:
            continue
        n = 0
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
            # many postings: documents in blocks of ``block``; each query term's postings
            # in the block (from its cursor ``cur``: documents are ascending within a term)
            # are added into ``acc[:block]``, which is then scanned and zeroed while cached.
            # Each document still gets its terms in ascending term id, from 0.0. Documents
            # come in ascending order, so a tie with the worst kept hit never ranks before
            # it: a hit is buffered when its score beats ``floor`` (after a cut: the worst
            # kept score). In the first block ``floor`` is a guess (:func:`_guess_floor`);
            # when fewer than ``limit`` of its hits beat it, that block is scanned again
            # from 0, so the guess never loses a hit. Later blocks start from the floor the
            # earlier ones left (0 while fewer than ``limit`` hits were seen).
            n_t = hi_q - lo_q
            for j in range(lo_q, hi_q):
                cur[j - lo_q] = w_ptr[q_idx[j]]
                top[j - lo_q] = max_w[q_idx[j]] * q_dat[j]
            # MaxScore over the terms (by their largest product, ascending): once ``limit``
            # hits beat ``floor``, a block skips adding the postings of the first ``e``
            # terms when even all of them together (``pre[e]``, widened by SLACK for
            # rounding) do not beat it; a document then counts only if it holds another
            # term and could still beat the floor, and gets its exact score by looking its
            # terms up in ascending term id (the same additions as adding postings).
            by_top = np.argsort(top[:n_t])
            pre[0] = 0.0
            for i in range(n_t):
                pre[i + 1] = pre[i] + top[by_top[i]]
            floor = 0.0
            f_d = -1
            for b0 in range(0, n_docs, block):
                b1 = min(b0 + block, n_docs)
                e = 0
                if n >= limit:
                    while e < n_t and pre[e + 1] * (1.0 + SLACK) <= floor:
                        e += 1
                for i in range(n_t):
                    skip[by_top[i]] = i < e
                n_skip = 0
                n_keep = 0
                for j in range(lo_q, hi_q):
                    lo = cur[j - lo_q]
                    hi = w_ptr[q_idx[j] + 1]
                    if b1 < n_docs:
                        hi = _first_at_least(w_idx, lo, hi, b1)
                    seek[j - lo_q] = lo  # this block's postings of the term: seek..cur
                    cur[j - lo_q] = hi
                    if skip[j - lo_q]:
                        n_skip += hi - lo
                    else:
                        n_keep += hi - lo
                if e > 0 and n_skip >= PRUNE_RATIO * n_t * n_keep:
                    # the other terms' postings, with the documents they touch
                    m = 0
                    for j in range(lo_q, hi_q):
                        if skip[j - lo_q]:
                            continue
                        qw = q_dat[j]
                        for k in range(seek[j - lo_q], cur[j - lo_q]):
                            i = w_idx[k] - b0
                            a = acc[i]
                            if a == 0.0:
                                touched[m] = i
                                m += 1
                            acc[i] = a + w_dat[k] * qw
                    rest = pre[e]
                    n_c = 0
                    for ti in range(m):  # the candidates: those that could beat the floor
                        i = touched[ti]
                        s = acc[i]
                        acc[i] = 0.0
                        if (s + rest) * (1.0 + SLACK) > floor:
                            touched[n_c] = i
                            n_c += 1
                    touched[:n_c].sort()  # ascending, so each term's look-ups move forward
                    for ci in range(n_c):
                        d = b0 + touched[ci]
                        s = 0.0
                        for j in range(lo_q, hi_q):
                            k = _seek(w_idx, seek[j - lo_q], cur[j - lo_q], d)
                            seek[j - lo_q] = k
                            if k < cur[j - lo_q] and w_idx[k] == d:
                                s += w_dat[k] * q_dat[j]
                        if s > floor:
                            buf_s[n] = s
                            buf_d[n] = d
                            n += 1
                            if n == size and n > limit:
                                n, floor, f_d = _compact(buf_s, buf_d, n, limit, tmp)
                    continue
                for j in range(lo_q, hi_q):
                    qw = q_dat[j]
                    for k in range(seek[j - lo_q], cur[j - lo_q]):
                        acc[w_idx[k] - b0] += w_dat[k] * qw
                if b0 == 0:
                    floor = _guess_floor(acc, b1, limit, tmp)
                while True:
                    start = floor
                    for i in range(b1 - b0):
                        s = acc[i]
                        if s > floor:
                            buf_s[n] = s
                            buf_d[n] = b0 + i
                            n += 1
                            if n == size and n > limit:
                                n, floor, f_d = _compact(buf_s, buf_d, n, limit, tmp)
                    if b0 > 0 or n >= limit or floor != start or start == 0.0:
                        break
                    n = 0  # the guess let fewer than limit hits through: again from 0
                    floor = 0.0
                acc[:b1 - b0] = 0.0
        else:
            # few postings, or hits that need counts: the documents touched, then offered
            m = 0
            if positive:
                # a document is new while its partial sum is still 0
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
            elif same_pattern:
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
            # touched documents are in no particular order: after the first cut a hit is
            # buffered only if it ranks before the worst kept (f_s, f_d). Written out here,
            # not called per hit: a numba call with array arguments costs more than the test.
            cut = False
            f_s = 0.0
            f_d = -1
            for i in range(m):
                d = touched[i]
                if not positive and cnt[d] < wanted:
                    continue
                s = acc[d] + c if add_const else acc[d]
                if cut and not (s > f_s or (s == f_s and d < f_d)):
                    continue
                buf_s[n] = s
                buf_d[n] = d
                n += 1
                if n == size and n > limit:
                    n, f_s, f_d = _compact(buf_s, buf_d, n, limit, tmp)
                    cut = True
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
        out_n[row] = _emit(buf_s, buf_d, n, limit, tmp, out_scores, out_docs, bound[row])
    return bound, out_n, out_docs, out_scores


class _Kernel:
    """The kernel's view of one :class:`Postings`: its arrays, and a pool of per-document
    scratch buffers (one per concurrent call; taken and given back with the atomic
    ``list.pop``/``append``, so threads never share one)."""

    def __init__(self, post: Postings):
        w = post.weights
        p = w if post.presence is None else post.presence
        self.args = (w.indptr, w.indices, w.data, post.min_weight, post.max_weight, p.indptr,
                     p.indices)
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
        bool(match_all), -1 if depth is None else int(depth), n_docs, max(1, int(BLOCK_DOCS)),
        *scratch)
    kernel.pool.append(scratch)  # acc and cnt are all zero again
    if n_q == 1:
        n = int(out_n[0])
        return [(docs[:n], scores[:n])]
    starts = bound[:-1].tolist()
    ends = (bound[:-1] + out_n).tolist()
    return [(docs[a:b], scores[a:b]) for a, b in zip(starts, ends, strict=True)]
