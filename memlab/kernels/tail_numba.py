"""The compiled backend of :mod:`memlab.kernels.tail`: one query's merge, decay, MMR and cut
in one call (numba; ``memlab[speed]``).

Each step is its own kernel's body compiled by numba (:func:`memlab.kernels.backend.jit`: the
same Python function the kernel runs), called in the order the stages run:
:func:`~memlab.kernels.fusion.union_rows` and
:func:`~memlab.kernels.fusion.openclaw_scores` (then a stable sort by score), the decay
multipliers applied (then a stable sort), :func:`~memlab.kernels.mmr.mmr_tokens_order`
(the similarity rows of the picked items only), and
:func:`~memlab.kernels.threshold.eligible_row` and
:func:`~memlab.kernels.threshold.first_kept`. Sorts
are numba's merge sort, stable as numpy's ``kind="stable"``; scores with a NaN are refused
(``ok`` False) because the two sorts place NaN differently.

numba's disk cache checks only the source file of the function it caches, while the code it
keeps holds the kernels called here, compiled in: a newer file of one of those kernels (an
edit, a ``git pull`` into an editable install) would leave it running the old callee. At
import, :func:`~memlab.kernels.backend.drop_stale_cache` therefore empties this module's
cache when a callee's file is newer than it (the next call compiles again, ~3 s, and caches
that).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from memlab.kernels import fusion, mmr, threshold
from memlab.kernels.backend import drop_stale_cache, jit
from memlab.kernels.mmr_numba import mmr_tokens_order

__all__ = ["ranked_tail_numba"]

union_rows = jit(fusion.union_rows)
openclaw_scores = jit(fusion.openclaw_scores)
jit(fusion.weighted_sum)  # openclaw_scores calls it
eligible_row = jit(threshold.eligible_row)
first_kept = jit(threshold.first_kept)


@njit(cache=True, nogil=True)
def _has_nan(values):
    for v in values:
        if np.isnan(v):
            return True
    return False


@njit(cache=True, nogil=True)
def ranked_tail_numba(vector_docno, vector_score, text_docno, text_score, vector_weight,
                      text_weight, use_decay, mult_vector, mult_text, use_mmr, lam, indptr,
                      indices, use_cut, min_score, relaxed, max_results):
    """``(ok, docno, score, vector_score, text_score, keyword_hit, text_pos)`` of the ranked
    candidates (``text_pos``: row in the keyword leg, -1 for none); ``ok`` False, and empty
    arrays, when a score is NaN."""
    docno, vector_pos, text_pos = union_rows(vector_docno, text_docno)
    vs, ts, keyword, fused = openclaw_scores(vector_score, text_score, vector_pos, text_pos,
                                             vector_weight, text_weight)
    m = len(docno)
    if _has_nan(fused) or (use_decay and (_has_nan(mult_vector) or _has_nan(mult_text))):
        return _refused()
    rows = np.argsort(-fused, kind="mergesort")
    score = fused[rows]
    if use_decay:
        for k in range(m):
            i = rows[k]
            mult = mult_vector[vector_pos[i]] if vector_pos[i] >= 0 else mult_text[text_pos[i]]
            score[k] = score[k] * mult
        if _has_nan(score):
            return _refused()
        again = np.argsort(-score, kind="mergesort")
        rows = rows[again]
        score = score[again]
    keep = np.ones(m, dtype=np.bool_)
    if use_cut:
        keep = eligible_row(score, keyword[rows], min_score, relaxed)
    if use_mmr and m > 1 and lam != 1.0:
        picks = mmr_tokens_order(score, indptr, indices, docno[rows], lam, keep, use_cut,
                                 max_results)
        rows = rows[picks]
        score = score[picks]
        keep = keep[picks]
    if use_cut:
        kept = first_kept(keep, max_results)
        rows = rows[kept]
        score = score[kept]
    return True, docno[rows], score, vs[rows], ts[rows], keyword[rows], text_pos[rows]


@njit(cache=True, nogil=True)
def _refused():
    none = np.zeros(0, dtype=np.int64)
    return (False, none, np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.bool_),
            none)


drop_stale_cache(ranked_tail_numba, (fusion, mmr, threshold))
