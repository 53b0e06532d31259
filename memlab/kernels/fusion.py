"""Fusion: merge a vector leg and a keyword leg into one score per candidate.

OpenClaw's ``mergeHybridResults`` (reference, section 4 step 8): the union of both legs' cut
candidates by chunk (:func:`union`: vector hits first in vector order, then keyword-only hits
in keyword order), a missing component counts 0, and (:func:`fuse_scores`, ``"openclaw"``)

    score = vector_weight * vector_score + text_weight * text_score

with the weights clamped to [0, 1] and divided by their sum (:func:`normalize_weights`; a
zero sum means 0.7/0.3). memlab's research methods use the same union:

* ``"rrf"``: reciprocal rank fusion, ``sum_leg w_leg / (rrf_k + rank_leg)`` (a leg that did
  not return the chunk adds 0);
* ``"minmax"``: each leg's scores min-max normalised over the query's candidates that leg
  returned (missing = 0; all equal = 1), then the weighted sum;
* ``"zscore"``: each leg's scores standardised (population standard deviation; all equal =
  0) over the candidates it returned (missing = that leg's lowest z), then the weighted sum.

With only one leg the score is that leg's own: the cosine (vector only, hybrid disabled) or
the keyword leg's boosted score (keyword only, ``provider: "none"``).

Weights broadcast: pass ``(configs, 1)`` arrays to score many configurations at once (the
sweep); the result is then ``(configs, items)``.

>>> import numpy as np
>>> fuse_scores("openclaw", 0.7, 0.3, vector_score=np.array([0.9, 0.0]),
...             text_score=np.array([0.5, 0.8])).round(2).tolist()
[0.78, 0.24]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from memlab.kernels.backend import jit, resolve_backend

METHODS = ("openclaw", "rrf", "minmax", "zscore")


def normalize_weights(vector_weight: float, text_weight: float) -> tuple[float, float]:
    """OpenClaw's weight resolution: clamp each to [0, 1], divide by the sum; 0 → 0.7/0.3.

    >>> normalize_weights(2.0, 1.0)
    (0.5, 0.5)
    >>> normalize_weights(0, 0)
    (0.7, 0.3)
    """
    v = min(1.0, max(0.0, float(vector_weight)))
    t = min(1.0, max(0.0, float(text_weight)))
    total = v + t
    if total <= 0:
        return 0.7, 0.3
    return v / total, t / total


def union(vector_docno: np.ndarray, text_docno: np.ndarray, backend: str = "auto"
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The candidates of both legs by chunk: ``(docno, vector_pos, text_pos)``.

    Vector hits come first, in vector order, then the keyword hits the vector leg did not
    return, in keyword order. ``vector_pos``/``text_pos`` index each candidate's row in its
    leg's arrays (-1 where that leg did not return it). A chunk listed twice by the keyword
    leg is matched at its first listing. :func:`union_rows` on ``backend``
    (:mod:`memlab.kernels.backend`: numba compiles that same function).

    >>> union(np.array([4, 2]), np.array([2, 7]))
    (array([4, 2, 7]), array([ 0,  1, -1]), array([-1,  0,  1]))
    """
    vector_docno = np.asarray(vector_docno, dtype=np.int64)
    text_docno = np.asarray(text_docno, dtype=np.int64)
    if backend != "numpy" and resolve_backend(backend) == "numba":
        return jit(union_rows)(vector_docno, text_docno)
    return union_rows(vector_docno, text_docno)


def union_rows(vector_docno: np.ndarray, text_docno: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`union` of int64 arrays, the one body (plain Python that numba compiles):
    membership by binary search over the vector hits sorted once (a query has a few dozen
    candidates)."""
    nv = len(vector_docno)
    nt = len(text_docno)
    by_doc = np.argsort(vector_docno, kind="mergesort")
    sorted_docs = vector_docno[by_doc]
    at = np.searchsorted(sorted_docs, text_docno)
    text_pos = np.full(nv + nt, -1, dtype=np.int64)
    extra = np.empty(nt, dtype=np.int64)
    n_extra = 0
    for j in range(nt):
        k = at[j]
        if k < nv and sorted_docs[k] == text_docno[j]:
            i = by_doc[k]
            if text_pos[i] < 0:  # the first listing wins
                text_pos[i] = j
        else:
            extra[n_extra] = j
            n_extra += 1
    extra = extra[:n_extra]
    m = nv + n_extra
    docno = np.concatenate((vector_docno, text_docno[extra]))
    vector_pos = np.full(m, -1, dtype=np.int64)
    vector_pos[:nv] = np.arange(nv)
    text_pos[nv:m] = extra
    return docno, vector_pos, text_pos[:m].copy()


def weighted_sum(vector_weight: Any, vector_score: Any, text_weight: Any,
                 text_score: Any) -> Any:
    """OpenClaw's merge of one candidate's (or arrays of, broadcast) components, the one
    body: two float64 products and one sum (numba emits no fused multiply-add)."""
    return vector_weight * vector_score + text_weight * text_score


def openclaw_scores(vector_score: np.ndarray, text_score: np.ndarray, vector_pos: np.ndarray,
                    text_pos: np.ndarray, vector_weight: float, text_weight: float
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each :func:`union_rows` candidate's ``(vector_score, text_score, keyword_hit,
    score)``, :func:`weighted_sum` of its components (0 where its leg did not return it);
    one query's loop for the compiled tail (:mod:`memlab.kernels.tail_numba`)."""
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
        score[i] = weighted_sum(vector_weight, vs[i], text_weight, ts[i])
    return vs, ts, keyword, score


def rrf_terms(rank: np.ndarray, rrf_k: Any) -> np.ndarray:
    """``1 / (rrf_k + rank)`` where the leg returned the chunk (``rank`` not NaN), else 0."""
    rank = np.asarray(rank, dtype=np.float64)
    present = ~np.isnan(rank)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(present, 1.0 / (rrf_k + rank), 0.0)


def normalise(values: np.ndarray, present: np.ndarray, method: str) -> np.ndarray:
    """One leg's scores over one query's candidates, normalised by ``"minmax"`` or
    ``"zscore"`` (see the module docstring for the missing values)."""
    values = np.asarray(values, dtype=np.float64)
    present = np.asarray(present, dtype=bool)
    if not present.any():
        return np.zeros(len(values))
    vals = values[present]
    if method == "minmax":
        lo, hi = vals.min(), vals.max()
        span = hi - lo
        norm = (values - lo) / span if span > 0 else np.ones(len(values))
        return np.where(present, norm, 0.0)
    if method != "zscore":
        raise ValueError(f"normalise: method must be 'minmax' or 'zscore', got {method!r}")
    mean, sd = vals.mean(), vals.std()
    z = (values - mean) / sd if sd > 0 else np.zeros(len(values))
    return np.where(present, z, z[present].min())


def fuse_scores(method: str, vector_weight: Any, text_weight: Any, *,
                vector_score: np.ndarray | None = None, text_score: np.ndarray | None = None,
                boosted_score: np.ndarray | None = None, vector_rank: np.ndarray | None = None,
                text_rank: np.ndarray | None = None, rrf_k: Any = 60.0) -> np.ndarray:
    """The fused score of each candidate of :func:`union` (see the module docstring).

    ``vector_score``/``text_score`` are 0 where a leg did not return the candidate and
    ``vector_rank``/``text_rank`` NaN (ranks are only read by ``"rrf"``, and presence by
    ``"minmax"``/``"zscore"``). A leg that is not part of the fusion is ``None``: then the
    other leg's own score ranks (``boosted_score`` for the keyword leg when given).
    ``vector_weight``, ``text_weight`` and ``rrf_k`` are normalised weights (scalars or
    ``(configs, 1)`` arrays).
    """
    if text_score is None:
        if vector_score is None:
            raise ValueError("fuse_scores needs at least one leg's scores")
        return np.asarray(vector_score, dtype=np.float64)
    if vector_score is None:
        return np.asarray(boosted_score if boosted_score is not None else text_score,
                          dtype=np.float64)
    if method == "openclaw":
        v, t = vector_score, text_score
    elif method == "rrf":
        v, t = rrf_terms(vector_rank, rrf_k), rrf_terms(text_rank, rrf_k)
    elif method in ("minmax", "zscore"):
        v = normalise(vector_score, ~np.isnan(vector_rank), method)
        t = normalise(text_score, ~np.isnan(text_rank), method)
    else:
        raise ValueError(f"method={method!r} is not supported; use one of {METHODS}")
    return weighted_sum(vector_weight, v, text_weight, t)
