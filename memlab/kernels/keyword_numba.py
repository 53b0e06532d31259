"""The compiled backend of :func:`memlab.kernels.keyword.boost_hits`, and of its one-query
entry :func:`memlab.kernels.keyword.score_query` with the text scores (numba;
``pip install 'memlab[speed]'``).

Same values as the numpy backend, bit for bit: the overlap is an integer count, and the
formula is :func:`memlab.kernels.keyword.boosted_value` compiled, the same function the numpy
backend runs on arrays. What is cheaper than numpy: one pass over the
hits in one call and no search: per query, a hit's overlap is either the sum of a
per-token mask (set for the query's ids) over its document's distinct token ids, or, per
query id, the number of its postings (``BoostTable.postings``) that land on the hit's
document (marked in a per-document slot array) or, for a frequent id with more postings than
the query has hits, the hit's bit in the id's bitset row (``BoostTable.bitsets``), whichever
reads fewer entries; all give the same integer. The text score of a relevance is
:func:`memlab.kernels.keyword.relevance_score` compiled, the same function
(:func:`memlab.kernels.backend.jit`). The scratch arrays are kept between calls in the
table's pool (one pair per concurrent call) and are all zero between calls.

Compiled on first use (then cached on disk next to this file by numba).

:mod:`memlab.kernels.keyword` imports this module only when it calls it (no import cycle):
the table comes as an object with its arrays, the formula's weights as arguments.

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

from memlab.kernels import keyword
from memlab.kernels.backend import drop_stale_cache, jit

__all__ = ["boost_hits_numba", "rank_to_text_score", "score_query_numba", "text_scores_numba"]


@njit(cache=True, nogil=True)
def _by_bits(t, n_hits, t_ptr, bit_row):
    """Does token ``t`` count its hits by bit tests (its bitset row, when it has one and the
    hits are fewer than its postings)?"""
    return bit_row[t] >= 0 and n_hits < t_ptr[t + 1] - t_ptr[t]


@njit(cache=True, nogil=True)
def _overlap_run(docnos, i0, i1, lo_q, hi_q, q_ids, indptr, tokens, t_ptr, t_docs, bit_row,
                 bits, mask, slot, buf, out):
    """``out[i]`` for the hits ``i0 <= i < i1``, all of the query whose ids are
    ``q_ids[lo_q:hi_q]``: the cheaper of two exact counts, over the hits' token rows (``mask``
    marks the query's ids) or per query id, over its postings (``slot`` marks the hits'
    documents) or, for a frequent id with more postings than there are hits, by testing each
    hit's bit in its bitset row (``bits[bit_row[t]]``). ``mask`` and ``slot`` are all zero on
    entry and on return."""
    n_hits = i1 - i0
    row_cost = 0
    for i in range(i0, i1):
        row_cost += indptr[docnos[i] + 1] - indptr[docnos[i]]
    post_cost = 0
    scan = False
    for j in range(lo_q, hi_q):
        t = q_ids[j]
        if _by_bits(t, n_hits, t_ptr, bit_row):
            post_cost += n_hits
        else:
            post_cost += t_ptr[t + 1] - t_ptr[t]
            scan = True
    if scan:
        post_cost += n_hits
    if post_cost < row_cost:
        for i in range(i0, i1):
            out[i] = 0
        if scan:
            for i in range(i0, i1):
                if slot[docnos[i]] == 0:  # the first hit of a document counts for all
                    slot[docnos[i]] = i + 1
            for j in range(lo_q, hi_q):
                t = q_ids[j]
                if _by_bits(t, n_hits, t_ptr, bit_row):
                    continue
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
        for j in range(lo_q, hi_q):  # after the copy above: every hit tests its own bit
            t = q_ids[j]
            if _by_bits(t, n_hits, t_ptr, bit_row):
                row = bits[bit_row[t]]
                for i in range(i0, i1):
                    d = docnos[i]
                    out[i] += (row[d >> 3] >> (d & 7)) & 1
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


@njit(cache=True, nogil=True)
def _overlap(docnos, qrow_of, q_ptr, q_ids, indptr, tokens, t_ptr, t_docs, bit_row, bits, mask,
             slot, out):
    """``out[i]``: how many of hit ``i``'s query ids its document holds (``qrow_of`` empty:
    every hit is of query 0), :func:`_overlap_run` per run of hits of one query."""
    n = len(docnos)
    one_query = len(qrow_of) == 0
    buf = np.empty(512, dtype=slot.dtype)
    i0 = 0
    while i0 < n:
        r = 0 if one_query else qrow_of[i0]
        i1 = n if one_query else i0 + 1
        while i1 < n and qrow_of[i1] == r:
            i1 += 1
        _overlap_run(docnos, i0, i1, q_ptr[r], q_ptr[r + 1], q_ids, indptr, tokens, t_ptr,
                     t_docs, bit_row, bits, mask, slot, buf, out)
        i0 = i1
    return out


#: :func:`memlab.kernels.keyword.rank_to_score` and
#: :func:`~memlab.kernels.keyword.relevance_score`, compiled (the same functions)
rank_to_text_score = jit(keyword.rank_to_score)
relevance_score = jit(keyword.relevance_score)
#: :func:`memlab.kernels.keyword.boosted_value` compiled (the same function)
boosted_value = jit(keyword.boosted_value)


@njit(cache=True, nogil=True)
def _boost(text_score, docnos, qrow_of, q_ptr, q_ids, n_q, indptr, tokens, t_ptr, t_docs,
           bit_row, bits, length_boosts, path_hits, mask, slot, w_overlap, w_density,
           path_boost):
    """The boosted score of every hit from its :func:`_overlap` (``qrow_of`` empty: every
    hit is of query 0; ``path_hits`` empty: all 0)."""
    n = len(docnos)
    overlap = _overlap(docnos, qrow_of, q_ptr, q_ids, indptr, tokens, t_ptr, t_docs, bit_row,
                       bits, mask, slot, np.empty(n, dtype=np.int64))
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
        out[i] = boosted_value(ts, float(overlap[i]), nq, float(indptr[d + 1] - indptr[d]),
                              float(path_hits[i]) if with_paths else 0.0, length_boosts[d],
                              w_overlap, w_density, path_boost)
    return out


@njit(cache=True, nogil=True)
def _text_scores(scores, relevance, out):
    """Per hit its text score into ``out``: :func:`relevance_score` of ``scores``
    (``relevance``) or a copy."""
    for i in range(len(scores)):
        out[i] = relevance_score(scores[i]) if relevance else scores[i]


@njit(cache=True, nogil=True)
def _score_query(scores, docnos, relevance, q_ids, nq, indptr, tokens, t_ptr, t_docs, bit_row,
                 bits, length_boosts, path_hits, mask, slot, w_overlap, w_density, path_boost,
                 out):
    """One query's hits into ``out`` (2 x hits): row 0 their text scores
    (:func:`_text_scores`), row 1 their boosted scores (``nq``: the query's number of
    distinct tokens; ``path_hits`` empty: all 0). Returns nothing (a returned array costs a
    boxing per call)."""
    n = len(docnos)
    text = out[0]
    _text_scores(scores, relevance, text)
    boosted = out[1]
    if not nq > 0:
        boosted[:] = text
        return
    overlap = np.empty(n, dtype=np.int64)
    _overlap_run(docnos, 0, n, 0, len(q_ids), q_ids, indptr, tokens, t_ptr, t_docs, bit_row,
                 bits, mask, slot, np.empty(512, dtype=slot.dtype), overlap)
    with_paths = len(path_hits) > 0
    for i in range(n):
        d = docnos[i]
        boosted[i] = boosted_value(text[i], float(overlap[i]), nq,
                                  float(indptr[d + 1] - indptr[d]),
                                  float(path_hits[i]) if with_paths else 0.0, length_boosts[d],
                                  w_overlap, w_density, path_boost)


def _scratch(table: Any) -> tuple[np.ndarray, np.ndarray]:
    """A pair of zeroed scratch arrays from the table's pool (new ones when all are in use;
    give them back with ``table.pool.append``)."""
    try:
        return table.pool.pop()
    except IndexError:
        return (np.zeros(max(table.n_vocab, 1), dtype=np.uint8),
                np.zeros(len(table.indptr) - 1, dtype=np.int32))


def boost_hits_numba(table: Any, text_score: np.ndarray, docnos: np.ndarray,
                     q_ptr: np.ndarray, q_ids: np.ndarray, n_query_tokens: np.ndarray,
                     path_hits: np.ndarray | None, qrow_of: np.ndarray | None,
                     weights: tuple[float, float, float]) -> np.ndarray:
    """:func:`memlab.kernels.keyword.boost_hits` on numba (arguments as there, already
    int64 / float64 arrays; ``qrow_of`` and ``path_hits`` int64); the same values."""
    n = len(docnos)
    if n == 0:
        return np.zeros(0)
    mask, slot = _scratch(table)
    out = _boost(text_score, docnos, _EMPTY if qrow_of is None else qrow_of, q_ptr, q_ids,
                 n_query_tokens, *table.arrays, _EMPTY if path_hits is None else path_hits,
                 mask, slot, *weights)
    table.pool.append((mask, slot))  # all zero again (a failed call's are not given back)
    return out


def score_query_numba(table: Any, scores: np.ndarray, docnos: np.ndarray, relevance: bool,
                      q_ids: np.ndarray, n_query_tokens: float, path_hits: np.ndarray | None,
                      weights: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`memlab.kernels.keyword.score_query` on numba, one compiled call (arguments as
    there: ``scores`` float64, ``docnos``, ``q_ids`` and ``path_hits`` int64); the same
    values."""
    mask, slot = _scratch(table)
    out = np.empty((2, len(docnos)))
    _score_query(scores, docnos, relevance, q_ids, n_query_tokens, *table.arrays,
                 _EMPTY if path_hits is None else path_hits, mask, slot, *weights, out)
    table.pool.append((mask, slot))  # all zero again (a failed call's are not given back)
    return out[0], out[1]


def text_scores_numba(scores: np.ndarray, relevance: bool) -> np.ndarray:
    """:func:`memlab.kernels.keyword.text_scores` on numba (``scores`` float64)."""
    out = np.empty(len(scores))
    _text_scores(scores, relevance, out)
    return out


_EMPTY = np.zeros(0, dtype=np.int64)
_EMPTY.flags.writeable = False

# they compile keyword.py's bodies in (backend.drop_stale_cache)
for _caller in (_text_scores, _boost, _score_query):
    drop_stale_cache(_caller, (keyword,))
