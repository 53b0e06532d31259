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


def eligible(scores: np.ndarray, keyword: np.ndarray | None, min_score: Any,
             relaxed: str | None) -> np.ndarray:
    """The candidates the cut may keep (see the module docstring)."""
    scores = np.asarray(scores, dtype=np.float64)
    strict = scores >= min_score
    if relaxed is None:
        return strict
    if relaxed == "zero":
        fallback = scores >= 0
    elif relaxed == "keyword":
        kw = (np.zeros(scores.shape, dtype=bool) if keyword is None
              else np.asarray(keyword, dtype=bool))
        fallback = kw & (scores >= 0)
    else:
        raise ValueError(f"relaxed={relaxed!r} is not supported; use one of {RELAXED}")
    return np.where(strict.any(axis=-1, keepdims=True), strict, fallback)


def keep_first(mask: np.ndarray, n: Any) -> np.ndarray:
    """Only the first ``n`` True entries of ``mask`` (along its last axis)."""
    mask = np.asarray(mask, dtype=bool)
    return mask & (np.cumsum(mask, axis=-1) <= n)
