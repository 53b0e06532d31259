"""The compiled backend of :mod:`memlab.kernels.mmr` for one query (numba; ``memlab[speed]``).

Same results as the numpy kernels, bit for bit: :func:`jaccard_rows_numba` counts each pair's
shared tokens as integers and divides the same float64 values (``inter / union``, with the
same empty-set rules), and :func:`mmr_order_numba` runs the same greedy loop with the same
float operations in the same order (``rel = (s - lo) / span``, ``gain = lam * rel``,
``value = gain - (1 - lam) * max_sim``; numba emits no fused multiply-add without
``fastmath``) and the same tie rule (the higher score, then the earlier item). What is cheaper:
one compiled pass instead of a dozen numpy calls per selection step, and for the
similarities no sort or dense block: each distinct token of the rows gets a local id (a small
hash table), and each pair of rows holding a token counts it once. Compiled on first use, then
cached on disk by numba.

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

__all__ = ["greedy_order", "jaccard_csr", "jaccard_rows_numba", "mmr_order_numba"]


@njit(cache=True, nogil=True)
def jaccard_csr(indptr, indices, rows):
    """Pairwise Jaccard of the CSR rows ``rows`` (each row a set of token ids)."""
    n = len(rows)
    sizes = np.empty(n, dtype=np.float64)
    total = 0
    for i in range(n):
        size = indptr[rows[i] + 1] - indptr[rows[i]]
        sizes[i] = size
        total += size
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
    start = np.zeros(n_local + 1, dtype=np.int32)
    for q in range(total):
        start[local[q] + 1] += 1
    for k in range(n_local):
        start[k + 1] += start[k]
    fill = start[:-1].copy()
    holders = np.empty(total, dtype=np.int32)
    q = 0
    for i in range(n):
        for _ in range(indptr[rows[i]], indptr[rows[i] + 1]):
            k = local[q]
            holders[fill[k]] = i
            fill[k] += 1
            q += 1
    # every pair of rows holding a token shares it once (a row lists a token once); counted
    # as integers, so the shares are exact whatever their number
    inter = np.zeros((n, n), dtype=np.int32)
    for k in range(n_local):
        lo = start[k]
        hi = start[k + 1]
        for a in range(lo, hi):
            ra = holders[a]
            for b in range(a + 1, hi):
                inter[ra, holders[b]] += 1
    sim = np.empty((n, n), dtype=np.float64)
    for i in range(n):
        for j in range(i, n):
            value = sizes[i] if i == j else float(inter[i, j] + inter[j, i])
            union = sizes[i] + sizes[j] - value
            sim[i, j] = value / union if union > 0 else 1.0  # union 0: both sets empty
            sim[j, i] = sim[i, j]
    return sim


def jaccard_rows_numba(indptr: np.ndarray, indices: np.ndarray, rows: np.ndarray
                       ) -> np.ndarray:
    """:func:`memlab.kernels.mmr.jaccard_rows` of the CSR rows ``rows``: the pairwise
    Jaccard similarity, two empty sets 1, one empty set 0."""
    return jaccard_csr(indptr, indices, np.ascontiguousarray(rows, dtype=np.int64))


@njit(cache=True, nogil=True)
def greedy_order(scores, sim, lam, keep, use_keep, limit):
    """The greedy MMR picks of one query (see :func:`mmr_order_numba`)."""
    n = len(scores)
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
            if found >= limit:
                return picks[:step + 1]
        avail[pick] = -np.inf
        for i in range(n):
            if sim[pick, i] > max_sim[i]:
                max_sim[i] = sim[pick, i]
    return picks


def mmr_order_numba(scores: np.ndarray, sim: np.ndarray, lam: float,
                    keep: np.ndarray | None, limit: int) -> np.ndarray:
    """:func:`memlab.kernels.mmr.mmr_order` of one query (``scores`` ``(n,)`` sorted
    descending, no NaN, ``n >= 2``, ``lam`` already clamped to [0, 1]); with ``keep``,
    selection stops once ``limit`` kept items are picked."""
    use_keep = keep is not None
    mask = (np.ascontiguousarray(np.broadcast_to(np.asarray(keep, dtype=np.bool_),
                                                 (len(scores),))) if use_keep
            else np.zeros(0, dtype=np.bool_))
    return greedy_order(np.ascontiguousarray(scores, dtype=np.float64),
                  np.ascontiguousarray(sim, dtype=np.float64), float(lam), mask, use_keep,
                  int(limit))
