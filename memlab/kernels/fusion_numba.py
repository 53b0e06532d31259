"""The compiled backend of :mod:`memlab.kernels.fusion` for one query (numba; ``memlab[speed]``).

:func:`union_rows` is :func:`~memlab.kernels.fusion.union` (vector hits first, in vector
order, then the keyword hits the vector leg did not return, in keyword order; a keyword hit
listed twice is matched at its first listing) and :func:`openclaw_scores` the ``"openclaw"``
method of :func:`~memlab.kernels.fusion.fuse_scores`: ``vector_weight * vector_score +
text_weight * text_score`` per candidate, the same two float64 products and one sum (numba
emits no fused multiply-add without ``fastmath``), so the same bits. Membership is found by
binary search over the vector hits sorted once, not by a hash table: a query has a few dozen
candidates. Compiled on first use, then cached on disk by numba.

>>> import numpy as np
>>> union_rows(np.array([4, 2]), np.array([2, 7]))
(array([4, 2, 7]), array([ 0,  1, -1]), array([-1,  0,  1]))
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["openclaw_scores", "union_rows"]


@njit(cache=True, nogil=True)
def union_rows(vector_docno, text_docno):
    """``(docno, vector_pos, text_pos)`` of :func:`memlab.kernels.fusion.union`."""
    nv, nt = len(vector_docno), len(text_docno)
    by_doc = np.argsort(vector_docno, kind="mergesort")
    sorted_docs = vector_docno[by_doc]
    text_pos = np.full(nv + nt, -1, dtype=np.int64)
    extra = np.empty(nt, dtype=np.int64)
    n_extra = 0
    for j in range(nt):
        d = text_docno[j]
        at = np.searchsorted(sorted_docs, d)
        if at < nv and sorted_docs[at] == d:
            i = by_doc[at]
            if text_pos[i] < 0:  # the first listing wins
                text_pos[i] = j
        else:
            extra[n_extra] = j
            n_extra += 1
    m = nv + n_extra
    docno = np.empty(m, dtype=np.int64)
    vector_pos = np.full(m, -1, dtype=np.int64)
    for i in range(nv):
        docno[i] = vector_docno[i]
        vector_pos[i] = i
    for k in range(n_extra):
        docno[nv + k] = text_docno[extra[k]]
        text_pos[nv + k] = extra[k]
    return docno, vector_pos, text_pos[:m].copy()


@njit(cache=True, nogil=True)
def openclaw_scores(vector_score, text_score, vector_pos, text_pos, vector_weight,
                    text_weight):
    """Each candidate's ``(vector_score, text_score, keyword_hit, score)``: a component is 0
    where its leg did not return the candidate."""
    m = len(vector_pos)
    vs = np.zeros(m, dtype=np.float64)
    ts = np.zeros(m, dtype=np.float64)
    keyword = np.zeros(m, dtype=np.bool_)
    score = np.empty(m, dtype=np.float64)
    for i in range(m):
        if vector_pos[i] >= 0:
            vs[i] = vector_score[vector_pos[i]]
        if text_pos[i] >= 0:
            ts[i] = text_score[text_pos[i]]
            keyword[i] = True
        score[i] = vector_weight * vs[i] + text_weight * ts[i]
    return vs, ts, keyword, score
