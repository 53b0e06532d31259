"""The compiled backend of :mod:`memlab.kernels.mmr` for one query (numba; ``memlab[speed]``).

Same results as the numpy kernels, bit for bit: :func:`jaccard_rows_numba` counts each pair's
shared tokens as integers and divides the same float64 values (``inter / union``, with the
same empty-set rules), and :func:`mmr_order_numba` runs the same greedy loop with the same
float operations in the same order (``rel = (s - lo) / span``, ``gain = lam * rel``,
``value = gain - (1 - lam) * max_sim``; numba emits no fused multiply-add without
``fastmath``) and the same tie rule (the higher score, then the earlier item). What is cheaper:
one compiled pass instead of a dozen numpy calls per selection step, and for the
similarities no sort or dense block: each distinct token of the rows gets a local id (a small
hash table, :func:`jaccard_index`); the whole matrix counts, for each token, every pair of
rows holding it (:func:`jaccard_csr`), one row counts, for each of its tokens, the rows
holding it (:func:`jaccard_row`), the same integers. The one-query path from tokens
(:func:`mmr_tokens_order`) computes only the rows of the items it picks: a selection that
stops after a few picks (a ``maxResults`` cut) never builds the whole matrix. Compiled on
first use, then cached on disk by numba.

Scores with a NaN are left to the numpy kernel (its ``argmax`` picks a NaN first), so the two
never disagree; :func:`memlab.kernels.mmr.mmr_order` checks that before calling here.

>>> import numpy as np, scipy.sparse as sp
>>> m = sp.csr_matrix(np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]], dtype=np.float32))
>>> sim = jaccard_rows_numba(m.indptr, m.indices, np.array([0, 1, 2]))
>>> sim.tolist()
[[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
>>> mmr_order_numba(np.array([0.9, 0.89, 0.8]), sim, 0.3, None, 0).tolist()
[0, 2, 1]
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["greedy_order", "jaccard_csr", "jaccard_index", "jaccard_row", "jaccard_rows_numba",
           "mmr_order_numba", "mmr_tokens_order"]


@njit(cache=True, nogil=True)
def jaccard_index(indptr, indices, rows):
    """What any row of the rows' pairwise Jaccard needs: ``(sizes, local, row_start,
    tok_start, holders)``: each row's token count (float64); the rows' tokens as local ids,
    row after row (row ``i``'s are ``local[row_start[i]:row_start[i + 1]]``); and the rows
    holding each local token (``holders[tok_start[k]:tok_start[k + 1]]``, ascending)."""
    n = len(rows)
    sizes = np.empty(n, dtype=np.float64)
    row_start = np.empty(n + 1, dtype=np.int64)
    total = 0
    for i in range(n):
        row_start[i] = total
        size = indptr[rows[i] + 1] - indptr[rows[i]]
        sizes[i] = size
        total += size
    row_start[n] = total
    # each distinct token of the rows gets a local id, through a small open-addressing
    # table (one int64 a slot, ``token << 32 | local id``, so a probe reads one cache line;
    # at least 1.5x the rows' tokens, of which about half are distinct): a vocabulary-sized
    # scratch array would be read at random, and between searches (caches cold) that cost
    # more than the rest
    cap = 16
    while cap < total + total // 2:
        cap *= 2
    slot_mask = cap - 1
    table = np.full(cap, -1, dtype=np.int64)
    local = np.empty(total, dtype=np.int32)
    n_local = 0
    q = 0
    for i in range(n):
        for p in range(indptr[rows[i]], indptr[rows[i] + 1]):
            t = np.int64(indices[p])
            h = (t * np.int64(0x9E3779B1)) & slot_mask
            while True:
                entry = table[h]
                if entry == -1:
                    table[h] = (t << 32) | n_local
                    local[q] = n_local
                    n_local += 1
                    break
                if (entry >> 32) == t:
                    local[q] = entry & 0xFFFFFFFF
                    break
                h = (h + 1) & slot_mask
            q += 1
    # the rows holding each local token (a CSR of token -> rows, rows ascending)
    tok_start = np.zeros(n_local + 1, dtype=np.int32)
    for q in range(total):
        tok_start[local[q] + 1] += 1
    for k in range(n_local):
        tok_start[k + 1] += tok_start[k]
    fill = tok_start[:-1].copy()
    holders = np.empty(total, dtype=np.int32)
    for i in range(n):
        for q in range(row_start[i], row_start[i + 1]):
            k = local[q]
            holders[fill[k]] = i
            fill[k] += 1
    return sizes, local, row_start, tok_start, holders


@njit(cache=True, nogil=True)
def _jaccard(shared, size_i, size_j, same):
    """The Jaccard index of two token sets from their sizes and ``shared`` count (a set
    with itself: its size), 1 for two empty sets."""
    value = size_i if same else float(shared)
    union = size_i + size_j - value
    return value / union if union > 0 else 1.0  # union 0: both sets empty


@njit(cache=True, nogil=True)
def jaccard_row(sizes, local, row_start, tok_start, holders, i, counts, out):
    """Row ``i``'s Jaccard similarity to every row into ``out`` (an index of
    :func:`jaccard_index`; ``counts``: int32 zeros, one per row, left zeroed): for each of
    its tokens, the rows holding it."""
    for q in range(row_start[i], row_start[i + 1]):
        k = local[q]
        for a in range(tok_start[k], tok_start[k + 1]):
            counts[holders[a]] += 1
    for j in range(len(sizes)):
        out[j] = _jaccard(counts[j], sizes[i], sizes[j], i == j)
        counts[j] = 0


@njit(cache=True, nogil=True)
def jaccard_csr(indptr, indices, rows):
    """Pairwise Jaccard of the CSR rows ``rows`` (each row a set of token ids): every pair
    of rows holding a token counts it once (a row lists a token once), as integers."""
    sizes, local, row_start, tok_start, holders = jaccard_index(indptr, indices, rows)
    n = len(rows)
    inter = np.zeros((n, n), dtype=np.int32)
    for k in range(len(tok_start) - 1):
        lo = tok_start[k]
        hi = tok_start[k + 1]
        for a in range(lo, hi):
            ra = holders[a]
            for b in range(a + 1, hi):
                inter[ra, holders[b]] += 1  # holders ascend: the upper triangle
    sim = np.empty((n, n), dtype=np.float64)
    for i in range(n):
        for j in range(i, n):
            sim[i, j] = _jaccard(inter[i, j], sizes[i], sizes[j], i == j)
            sim[j, i] = sim[i, j]
    return sim


@njit(cache=True, nogil=True)
def mmr_tokens_order(scores, indptr, indices, rows, lam, keep, use_keep, limit):
    """The greedy MMR picks of one query's candidates ``rows`` of a 0/1 token CSR (see
    :func:`greedy_order`), their similarity rows computed only for the items picked: a
    selection that stops early (``keep``/``limit``) reads only those."""
    n = len(rows)
    index = jaccard_index(indptr, indices, rows)
    sim = np.empty((n, n), dtype=np.float64)
    have = np.zeros(n, dtype=np.bool_)
    return _greedy(scores, sim, have, index, lam, keep, use_keep, limit)


def jaccard_rows_numba(indptr: np.ndarray, indices: np.ndarray, rows: np.ndarray
                       ) -> np.ndarray:
    """:func:`memlab.kernels.mmr.jaccard_rows` of the CSR rows ``rows``: the pairwise
    Jaccard similarity, two empty sets 1, one empty set 0."""
    return jaccard_csr(indptr, indices, np.ascontiguousarray(rows, dtype=np.int64))


@njit(cache=True, nogil=True)
def greedy_order(scores, sim, lam, keep, use_keep, limit):
    """The greedy MMR picks of one query given every similarity (see :func:`_greedy`)."""
    n = len(scores)
    none = np.zeros(0, dtype=np.int32)
    index = (np.zeros(n, dtype=np.float64), none, np.zeros(n + 1, dtype=np.int64), none, none)
    return _greedy(scores, sim, np.ones(n, dtype=np.bool_), index, lam, keep, use_keep, limit)


@njit(cache=True, nogil=True)
def _greedy(scores, sim, have, index, lam, keep, use_keep, limit):
    """The greedy MMR picks of one query; ``sim[i]`` is read once ``have[i]``, else first
    computed from ``index`` (:func:`jaccard_index`). With ``use_keep``, selection stops once
    ``limit`` picked items, or every item, of ``keep`` are picked: the prefix of the full
    order a cut of the ``keep`` items to ``limit`` needs."""
    n = len(scores)
    sizes, local, row_start, tok_start, holders = index
    counts = np.zeros(n, dtype=np.int32)
    lo = scores[0]
    hi = scores[0]
    for i in range(n):
        lo = min(lo, scores[i])
        hi = max(hi, scores[i])
    span = hi - lo
    penalty_weight = 1 - lam
    avail = np.empty(n, dtype=np.float64)  # gain, and -inf once picked
    for i in range(n):
        rel = 1.0 if span == 0 else (scores[i] - lo) / span
        avail[i] = lam * rel
    want = 0
    if use_keep:
        for i in range(n):
            if keep[i]:
                want += 1
        want = min(want, limit)
    max_sim = np.zeros(n, dtype=np.float64)
    picks = np.empty(n, dtype=np.int64)
    found = 0
    for step in range(n):
        pick = 0
        best = avail[0] - penalty_weight * max_sim[0]
        ties = 1
        for i in range(1, n):
            value = avail[i] - penalty_weight * max_sim[i]
            if value > best:
                best, pick, ties = value, i, 1
            elif value == best:
                ties += 1
        if ties > 1:  # a tie: the higher score, then the earlier item
            top = -np.inf
            for i in range(n):
                if avail[i] - penalty_weight * max_sim[i] == best and scores[i] > top:
                    top, pick = scores[i], i
        picks[step] = pick
        if use_keep:
            if keep[pick]:
                found += 1
            if found >= want:
                return picks[:step + 1]
        avail[pick] = -np.inf
        if not have[pick]:
            jaccard_row(sizes, local, row_start, tok_start, holders, pick, counts, sim[pick])
            have[pick] = True
        for i in range(n):
            if sim[pick, i] > max_sim[i]:
                max_sim[i] = sim[pick, i]
    return picks


def mmr_order_numba(scores: np.ndarray, sim: np.ndarray, lam: float,
                    keep: np.ndarray | None, limit: int) -> np.ndarray:
    """:func:`memlab.kernels.mmr.mmr_order` of one query (``scores`` ``(n,)`` sorted
    descending, no NaN, ``n >= 2``, ``lam`` already clamped to [0, 1]); with ``keep``,
    selection stops once ``limit`` kept items, or all of them, are picked."""
    use_keep = keep is not None
    mask = (np.ascontiguousarray(np.broadcast_to(np.asarray(keep, dtype=np.bool_),
                                                 (len(scores),))) if use_keep
            else np.zeros(0, dtype=np.bool_))
    return greedy_order(np.ascontiguousarray(scores, dtype=np.float64),
                  np.ascontiguousarray(sim, dtype=np.float64), float(lam), mask, use_keep,
                  int(limit))
