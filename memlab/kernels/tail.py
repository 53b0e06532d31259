"""One query's ranking after its two legs, in one compiled call: merge, decay, MMR, cut.

OpenClaw's hybrid search runs, after the vector and keyword legs, the merge
(:mod:`~memlab.kernels.fusion`, ``"openclaw"`` weights), temporal decay
(:mod:`~memlab.kernels.decay`), MMR (:mod:`~memlab.kernels.mmr`) and the
``minScore``/``maxResults`` cut (:mod:`~memlab.kernels.threshold`). The stages run these one
by one on numpy arrays; for one query that is some forty numpy calls on a few dozen
candidates, and between an agent's searches (caches cold) each costs several microseconds.
:func:`ranked_tail` runs the same steps in one call of their compiled backends
(:mod:`memlab.kernels.tail_numba`): the same hits, scores and order, bit for bit
(``tests/kernels/test_tail.py`` checks it against the stages). The stages declare the steps
they can hand over (``tail_step``); :class:`memlab.stages.fusion.Fusion` collects them and
calls this when numba is installed (:mod:`~memlab.kernels.backend`).

Decay multipliers are not recomputed here: the caller passes them (numpy's ``exp``,
:func:`~memlab.kernels.decay.decay_multipliers`, the one formula), so only products, sums,
comparisons and sorts run compiled.

>>> import numpy as np
>>> got = ranked_tail(np.array([3, 1]), np.array([0.9, 0.5]), np.array([1, 7]),
...                   np.array([0.8, 0.6]), (0.7, 0.3), [Cut(0.35, "keyword", 2)])
>>> got.docno.tolist(), got.score.round(2).tolist()
([3, 1], [0.63, 0.59])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from memlab.kernels.backend import compiled
from memlab.kernels.threshold import RELAXED_CODES

__all__ = ["Cut", "Decay", "MMRStep", "TailHits", "ranked_tail"]


class Decay(NamedTuple):
    """Temporal decay: ``multipliers(docnos)`` of candidate chunks at the query's time
    (``None``: decay is off, a no-op step)."""

    multipliers: Callable[[np.ndarray], np.ndarray] | None


class MMRStep(NamedTuple):
    """MMR with ``lambda_`` (already clamped; 1: a no-op step, the order is kept) over the
    chunks' 0/1 token matrix (CSR)."""

    lambda_: float
    indptr: np.ndarray
    indices: np.ndarray


class Cut(NamedTuple):
    """``minScore`` with its relaxation, then the first ``max_results``."""

    min_score: float
    relaxed: str | None
    max_results: int


_NO_TOKENS = np.zeros(0, dtype=np.int32)
_NO_FLOATS = np.zeros(0)

#: the order the steps run in; each at most once
STEP_ORDER = (Decay, MMRStep, Cut)


class TailHits(NamedTuple):
    """The ranked candidates: ``docno``, final ``score``, the merge's ``vector_score``,
    ``text_score``, ``keyword_hit``, and ``text_pos`` (row in the keyword leg, -1: none)."""

    docno: np.ndarray
    score: np.ndarray
    vector_score: np.ndarray
    text_score: np.ndarray
    keyword_hit: np.ndarray
    text_pos: np.ndarray


def ranked_tail(vector_docno: np.ndarray, vector_score: np.ndarray, text_docno: np.ndarray,
                text_score: np.ndarray, weights: tuple[float, float],
                steps: Sequence[Any]) -> TailHits | None:
    """The legs' (cut) hits merged with normalised ``weights`` ``(vector, text)``, then
    ``steps`` (:data:`STEP_ORDER`); ``None`` when a score is NaN (the stages rank it)."""
    decay = mmr = cut = None
    last = -1
    for step in steps:
        kind = STEP_ORDER.index(type(step))
        if kind <= last:
            raise ValueError(f"tail steps must be a subsequence of "
                             f"{[t.__name__ for t in STEP_ORDER]}, got "
                             f"{[type(s).__name__ for s in steps]}")
        last = kind
        if kind == 0:
            decay = step.multipliers
        elif kind == 1:
            mmr = step if step.lambda_ != 1.0 else None
        else:
            cut = step
    mult_v = mult_t = _NO_FLOATS
    if decay is not None:
        mult = decay(np.concatenate((vector_docno, text_docno)))  # one call: one mtime a file
        mult_v, mult_t = mult[:len(vector_docno)], mult[len(vector_docno):]
    lam, indptr, indices = ((mmr.lambda_, mmr.indptr, mmr.indices) if mmr is not None
                            else (1.0, _NO_TOKENS, _NO_TOKENS))
    ok, *ranked = compiled("memlab.kernels.tail_numba").ranked_tail_numba(
        _int64(vector_docno), _float64(vector_score), _int64(text_docno),
        _float64(text_score), float(weights[0]), float(weights[1]), decay is not None,
        _float64(mult_v), _float64(mult_t), mmr is not None, float(lam), indptr, indices,
        cut is not None, float(cut.min_score) if cut else 0.0,
        RELAXED_CODES[cut.relaxed] if cut else 0, int(cut.max_results) if cut else 0)
    return TailHits(*ranked) if ok else None


_INT64 = np.dtype(np.int64)
_FLOAT64 = np.dtype(np.float64)


def _int64(values: Any) -> np.ndarray:
    return _as(values, _INT64)


def _float64(values: Any) -> np.ndarray:
    return _as(values, _FLOAT64)


def _as(values: Any, dtype: np.dtype) -> np.ndarray:
    """``values`` as an array of ``dtype``: an array that already is one is passed as it is
    (numba compiles a variant for a strided one; ``np.ascontiguousarray`` on every argument
    cost more than the kernel's own merge, caches cold)."""
    if type(values) is np.ndarray and values.dtype is dtype:
        return values
    return np.ascontiguousarray(values, dtype=dtype)

