"""SQLite FTS5's ``bm25()`` ranking of an ``AND`` of terms, compiled (numba; ``memlab[speed]``).

The reference is SQLite itself (``fts5_aux.c``, ``fts5Bm25Function``): for each row matching
every phrase, with ``f`` the phrase's occurrences in the row, ``D`` the row's token count and
``avgdl`` the table's mean,

    score = sum over phrases, in query order, of idf * ((f * (k1 + 1.0)) /
                                                        (f + k1 * (1 - b + b * D / avgdl)))

with ``k1 = 1.2``, ``b = 0.75``, and the rank is ``-1.0 * score``; ``ORDER BY rank LIMIT n``
keeps ties in rowid order (the scan's order). :func:`and_top_k` runs the same float64
operations in the same order (numba emits no fused multiply-add and does not reassociate
without ``fastmath``) over postings held in memory
(:class:`memlab.index.fts_postings.FTSPostings`, which builds them and checks them against
FTS5's own vocabulary); ``tests/index/test_fts_postings.py`` compares ranks and order with
SQLite's, bit for bit. The idf of each phrase is computed by the caller with C's ``log``
(Python's ``math.log``, as SQLite calls it), not here.

What is cheaper than the SQL query: FTS5 reads each phrase's whole doclist twice (once to
count the rows for its idf, once to match) and the content table's token counts row by row;
here the doc frequencies and lengths are arrays, and the rows matching every term are found by
walking the shortest posting list and galloping through the others.

>>> import numpy as np
>>> indptr, docs, tf = np.array([0, 2, 3]), np.array([0, 1, 1]), np.array([1, 2, 1])
>>> pos, rank, score = and_top_k(indptr, docs, tf, np.array([3.0, 4.0]), 3.5, np.array([0]),
...                              np.array([0.5]), 10)
>>> pos.tolist(), rank.round(4).tolist(), score.round(4).tolist()
([1, 0], [-0.6609, -0.531], [0.3979, 0.3468])
"""

from __future__ import annotations

import numpy as np
from numba import njit

from memlab.kernels import keyword
from memlab.kernels.backend import drop_stale_cache, jit

__all__ = ["and_top_k"]

rank_to_score = jit(keyword.rank_to_score)


@njit(cache=True, nogil=True)
def _gallop(docs, lo, hi, target):
    """The first index in ``docs[lo:hi]`` (ascending) holding a value >= ``target``, else
    ``hi``."""
    step = 1
    probe = lo
    while probe < hi and docs[probe] < target:
        lo = probe + 1
        probe = lo + step
        step *= 2
    if probe > hi:
        probe = hi
    while lo < probe:
        mid = (lo + probe) // 2
        if docs[mid] < target:
            lo = mid + 1
        else:
            probe = mid
    return lo


@njit(cache=True, nogil=True)
def and_top_k(indptr, docs, tf, doc_len, avgdl, terms, idf, limit):
    """``(positions, rank, text_score)``: the first ``limit`` rows holding every term of
    ``terms`` (one per phrase, query order, repeats allowed) by FTS5's rank, ascending, ties
    in row order, and OpenClaw's text score of each rank
    (:func:`~memlab.kernels.keyword.rank_to_score`, compiled).

    ``indptr``/``docs``/``tf``: each term's rows (ascending) and occurrences (integers);
    ``doc_len``: each row's token count (float64); ``idf``: each phrase's idf."""
    k1 = 1.2
    b = 0.75
    n_ph = len(terms)
    if n_ph == 0 or limit <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
    lead = terms[0]
    for p in range(1, n_ph):
        t = terms[p]
        if indptr[t + 1] - indptr[t] < indptr[lead + 1] - indptr[lead]:
            lead = t
    start, stop = indptr[lead], indptr[lead + 1]
    n = stop - start
    cand = np.empty(n, dtype=np.int64)
    freq = np.empty((n, n_ph), dtype=np.float64)
    alive = n
    for i in range(n):
        cand[i] = docs[start + i]
    for p in range(n_ph):
        t = terms[p]
        lo, hi = indptr[t], indptr[t + 1]
        kept = 0
        for i in range(alive):
            lo = _gallop(docs, lo, hi, cand[i])
            if lo < hi and docs[lo] == cand[i]:
                cand[kept] = cand[i]
                for q in range(p):
                    freq[kept, q] = freq[i, q]
                freq[kept, p] = float(tf[lo])
                kept += 1
        alive = kept
        if alive == 0:
            break
    rank = np.empty(alive, dtype=np.float64)
    for i in range(alive):
        d = doc_len[cand[i]]
        score = 0.0
        for p in range(n_ph):
            f = freq[i, p]
            score += idf[p] * ((f * (k1 + 1.0)) / (f + k1 * (1.0 - b + b * d / avgdl)))
        rank[i] = -1.0 * score
    order = _first_by_rank(rank, limit)
    top = rank[order]
    text_score = np.empty(len(top), dtype=np.float64)
    for i in range(len(top)):
        text_score[i] = rank_to_score(top[i])
    return cand[order], top, text_score


@njit(cache=True, nogil=True)
def _first_by_rank(rank, limit):
    """``np.argsort(rank, kind="stable")[:limit]`` (ties in row order) without sorting every
    row: the ``limit``-th smallest rank splits the rows (a selection, linear time), then only
    those before it are sorted. ``rank`` holds no NaN."""
    n = len(rank)
    if n <= limit:
        return np.argsort(rank, kind="mergesort")
    kth = np.partition(rank, limit - 1)[limit - 1]
    below = 0
    for i in range(n):
        if rank[i] < kth:
            below += 1
    chosen = np.empty(limit, dtype=np.int64)
    ties = limit - below  # the first rows (in row order) ranked exactly kth
    k = 0
    for i in range(n):
        if rank[i] < kth:
            chosen[k] = i
            k += 1
        elif rank[i] == kth and ties > 0:
            chosen[k] = i
            k += 1
            ties -= 1
    return chosen[np.argsort(rank[chosen], kind="mergesort")]


drop_stale_cache(and_top_k, (keyword,))  # it compiles keyword.rank_to_score in
