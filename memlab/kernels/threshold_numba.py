"""The compiled backend of :mod:`memlab.kernels.threshold` for one query (numba;
``memlab[speed]``): :func:`eligible_mask` is :func:`~memlab.kernels.threshold.eligible` with
``relaxed`` as a code (0: ``None``, 1: ``"zero"``, 2: ``"keyword"``), the same comparisons
of the same float64 scores, and :func:`first_kept` the positions
:func:`~memlab.kernels.threshold.keep_first` keeps. Compiled on first use, then cached on
disk by numba.

>>> import numpy as np
>>> eligible_mask(np.array([0.3, 0.2]), np.array([False, True]), 0.35, 2).tolist()
[False, True]
>>> first_kept(np.array([True, False, True, True]), 2).tolist()
[0, 2]
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["eligible_mask", "first_kept"]


@njit(cache=True, nogil=True)
def eligible_mask(scores, keyword, min_score, relaxed):
    """The candidates the cut may keep: ``score >= min_score``; when none is, nothing
    (``relaxed`` 0), every ``score >= 0`` (1) or the keyword hits with ``score >= 0`` (2)."""
    n = len(scores)
    out = np.empty(n, dtype=np.bool_)
    strict = False
    for i in range(n):
        out[i] = scores[i] >= min_score
        strict = strict or out[i]
    if not strict:
        for i in range(n):
            out[i] = relaxed != 0 and scores[i] >= 0 and (relaxed == 1 or keyword[i])
    return out


@njit(cache=True, nogil=True)
def first_kept(mask, max_results):
    """Positions of the first ``max_results`` True entries of ``mask``."""
    out = np.empty(min(len(mask), max(max_results, 0)), dtype=np.int64)
    n = 0
    for k in range(len(mask)):
        if n >= len(out):
            break
        if mask[k]:
            out[n] = k
            n += 1
    return out[:n]
