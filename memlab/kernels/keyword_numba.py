"""The compiled backend of :func:`memlab.kernels.keyword.boost_hits` (numba;
``pip install 'memlab[speed]'``).

Same values as the numpy backend, bit for bit: the overlap is an integer count, and the
formula is :func:`memlab.kernels.keyword.boosted_from_counts` written out in the same order
of float64 operations, ``min(1, text + (((overlap / max(n_q, 1) * 0.45 + overlap /
max(n_text, 1) * 0.2) + path_hits * 0.18) + length))`` (numba emits no fused multiply-add
and does not reassociate without ``fastmath``). What is cheaper than numpy: one pass over the
hits in one call and no search: per query, a hit's overlap is either the sum of a
per-token mask (set for the query's ids) over its document's distinct token ids, or the
number of the query ids' postings (``BoostTable.postings``) that land on its document
(marked in a per-document slot array), whichever reads fewer entries; both give the same
integer. The scratch arrays are kept between calls in the table's pool (one pair per
concurrent call) and are all zero between calls.

Compiled on first use (then cached on disk next to this file by numba).

This module imports nothing of memlab (no import cycle with :mod:`memlab.kernels.keyword`,
which calls it): the table comes as an object with its arrays, the formula's weights as
arguments.

>>> import numpy as np
>>> from memlab.kernels.keyword import BoostTable, length_boost
>>> table = BoostTable(np.array([0, 2, 3]), np.array([0, 1, 1]), 2, length_boost([30, 5]))
>>> boost_hits_numba(table, np.array([0.1, 0.2]), np.array([0, 1]), np.array([0, 1]),
...                  np.array([0]), np.array([1.0]), None, None, (0.45, 0.2, 0.18)).tolist()
[0.83, 0.23125]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

__all__ = ["boost_hits_numba"]


@njit(cache=True, nogil=True)
def _overlap(docnos, qrow_of, q_ptr, q_ids, indptr, tokens, t_ptr, t_docs, mask, slot, out):
    """``out[i]``: how many of hit ``i``'s query ids its document holds (``qrow_of`` empty:
    every hit is of query 0). Per run of hits of one query, the cheaper of two exact counts:
    over the hits' token rows (``mask`` marks the query's ids) or over the query ids'
    postings (``slot`` marks the hits' documents). ``mask`` and ``slot`` are all zero on
    entry and on return."""
    n = len(docnos)
    one_query = len(qrow_of) == 0
    buf = np.empty(512, dtype=slot.dtype)
    i0 = 0
    while i0 < n:
        r = 0 if one_query else qrow_of[i0]
        i1 = n if one_query else i0 + 1
        while i1 < n and qrow_of[i1] == r:
            i1 += 1
        lo_q = q_ptr[r]
        hi_q = q_ptr[r + 1]
        row_cost = 0
        for i in range(i0, i1):
            row_cost += indptr[docnos[i] + 1] - indptr[docnos[i]]
        post_cost = i1 - i0
        for j in range(lo_q, hi_q):
            post_cost += t_ptr[q_ids[j] + 1] - t_ptr[q_ids[j]]
        if post_cost < row_cost:
            for i in range(i0, i1):
                out[i] = 0
                if slot[docnos[i]] == 0:  # the first hit of a document counts for all
                    slot[docnos[i]] = i + 1
            for j in range(lo_q, hi_q):
                t = q_ids[j]
                p = t_ptr[t]
                end = t_ptr[t + 1]
                while p < end:  # in chunks: gather the slots branch-free, then count the hits
                    stop = min(end, p + len(buf))
                    m = 0
                    for pp in range(p, stop):
                        k = slot[t_docs[pp]]
                        buf[m] = k
                        m += k != 0
                    for pp in range(m):
                        out[buf[pp] - 1] += 1
                    p = stop
            for i in range(i0, i1):
                out[i] = out[slot[docnos[i]] - 1]
            for i in range(i0, i1):
                slot[docnos[i]] = 0
        else:
            for j in range(lo_q, hi_q):
                mask[q_ids[j]] = 1
            for i in range(i0, i1):
                c = 0
                for p in range(indptr[docnos[i]], indptr[docnos[i] + 1]):
                    c += mask[tokens[p]]
                out[i] = c
            for j in range(lo_q, hi_q):
                mask[q_ids[j]] = 0
        i0 = i1
    return out


@njit(cache=True, nogil=True)
def _boost(text_score, docnos, qrow_of, q_ptr, q_ids, n_q, indptr, tokens, t_ptr, t_docs,
           length_boosts, path_hits, mask, slot, w_overlap, w_density, path_boost):
    """The boosted score of every hit from its :func:`_overlap` (``qrow_of`` empty: every
    hit is of query 0; ``path_hits`` empty: all 0)."""
    n = len(docnos)
    overlap = _overlap(docnos, qrow_of, q_ptr, q_ids, indptr, tokens, t_ptr, t_docs, mask,
                       slot, np.empty(n, dtype=np.int64))
    out = np.empty(n)
    one_query = len(qrow_of) == 0
    with_paths = len(path_hits) > 0
    for i in range(n):
        nq = n_q[0] if one_query else n_q[qrow_of[i]]
        ts = text_score[i]
        if not nq > 0:
            out[i] = ts
            continue
        d = docnos[i]
        ov = float(overlap[i])
        n_text = float(indptr[d + 1] - indptr[d])
        ph = float(path_hits[i]) if with_paths else 0.0
        lexical = (ov / (nq if nq > 1.0 else 1.0) * w_overlap
                   + ov / (n_text if n_text > 1.0 else 1.0) * w_density
                   + ph * path_boost + length_boosts[d])
        s = ts + lexical
        out[i] = 1.0 if s > 1.0 else s  # np.minimum(1.0, s), NaN kept
    return out


def boost_hits_numba(table: Any, text_score: np.ndarray, docnos: np.ndarray,
                     q_ptr: np.ndarray, q_ids: np.ndarray, n_query_tokens: np.ndarray,
                     path_hits: np.ndarray | None, qrow_of: np.ndarray | None,
                     weights: tuple[float, float, float]) -> np.ndarray:
    """:func:`memlab.kernels.keyword.boost_hits` on numba (arguments as there, already
    int64 / float64 arrays; ``qrow_of`` and ``path_hits`` int64); the same values."""
    n = len(docnos)
    if n == 0:
        return np.zeros(0)
    try:
        mask, slot = table.pool.pop()
    except IndexError:
        mask = np.zeros(max(table.n_vocab, 1), dtype=np.uint8)
        slot = np.zeros(len(table.indptr) - 1, dtype=np.int32)
    t_ptr, t_docs = table.postings
    out = _boost(text_score, docnos, _EMPTY if qrow_of is None else qrow_of, q_ptr, q_ids,
                 n_query_tokens, table.indptr, table.tokens, t_ptr, t_docs,
                 table.length_boosts, _EMPTY if path_hits is None else path_hits, mask, slot,
                 *weights)
    table.pool.append((mask, slot))  # all zero again (a failed call's are not given back)
    return out


_EMPTY = np.zeros(0, dtype=np.int64)
_EMPTY.flags.writeable = False
