"""Thresholds: OpenClaw's ``minScore``/``maxResults`` cut (reference, section 4 steps 5, 7, 10).

:func:`eligible` decides which candidates may be kept, whatever their order: those scoring at
least ``min_score``; when none does, ``relaxed`` says what happens:

* ``"keyword"`` (hybrid mode): the candidates that were keyword hits with score >= 0;
* ``"zero"`` (keyword-only mode): every candidate with score >= 0;
* ``None`` (vector-only mode): nothing, the result is empty.

:func:`keep_first` then keeps the first ``max_results`` eligible candidates in rank order.
Both broadcast over a leading configurations axis (``min_score`` and ``max_results`` as
``(configs, 1)`` arrays).

>>> import numpy as np
>>> eligible(np.array([0.3, 0.2]), np.array([False, True]), 0.35, "keyword").tolist()
[False, True]
>>> keep_first(np.array([True, False, True, True]), 2).tolist()
[True, False, True, False]
"""

from __future__ import annotations

from typing import Any

import numpy as np

RELAXED = ("keyword", "zero", None)
#: ``relaxed`` -> its code in :func:`eligible_row`
RELAXED_CODES = {None: 0, "zero": 1, "keyword": 2}


def eligible(scores: np.ndarray, keyword: np.ndarray | None, min_score: Any,
             relaxed: str | None) -> np.ndarray:
    """The candidates the cut may keep (see the module docstring): :func:`eligible_row` for
    one query, the same rule broadcast over a leading configurations axis for the sweep."""
    if relaxed not in RELAXED_CODES:
        raise ValueError(f"relaxed={relaxed!r} is not supported; use one of {RELAXED}")
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 1 and np.ndim(min_score) == 0:
        kw = (np.zeros(len(scores), dtype=bool) if keyword is None
              else np.asarray(keyword, dtype=bool))
        return eligible_row(scores, kw, float(min_score), RELAXED_CODES[relaxed])
    # numba compiles no any(axis=...): the configurations axis keeps this numpy spelling of
    # eligible_row (tests/kernels/test_kernel_threshold_decay_cut.py holds the two together)
    strict = scores >= min_score
    if relaxed is None:
        return strict
    if relaxed == "zero":
        fallback = scores >= 0
    else:
        kw = (np.zeros(scores.shape, dtype=bool) if keyword is None
              else np.asarray(keyword, dtype=bool))
        fallback = kw & (scores >= 0)
    return np.where(strict.any(axis=-1, keepdims=True), strict, fallback)


def eligible_row(scores: np.ndarray, keyword: np.ndarray, min_score: float,
                 relaxed: int) -> np.ndarray:
    """One query's eligible candidates, the one body (numba compiles it as it is for the
    tail): ``score >= min_score``; when none is, nothing (``relaxed`` 0), every ``score >=
    0`` (1) or the keyword hits with ``score >= 0`` (2)."""
    strict = scores >= min_score
    if relaxed == 0 or strict.any():
        return strict
    fallback = scores >= 0.0
    if relaxed == 2:
        return fallback & keyword
    return fallback


def keep_first(mask: np.ndarray, n: Any) -> np.ndarray:
    """Only the first ``n`` True entries of ``mask`` (along its last axis): those at
    :func:`first_kept` for one query."""
    mask = np.asarray(mask, dtype=bool)
    if mask.ndim == 1 and isinstance(n, int | np.integer):
        out = np.zeros(len(mask), dtype=bool)
        out[first_kept(mask, int(n))] = True
        return out
    return mask & (np.cumsum(mask, axis=-1) <= n)


def first_kept(mask: np.ndarray, max_results: int) -> np.ndarray:
    """Positions of the first ``max_results`` True entries of ``mask`` (one query; numba
    compiles this same function for the tail)."""
    return np.flatnonzero(mask)[:max(max_results, 0)]
