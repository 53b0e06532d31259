"""Maximal marginal relevance (reference, section 6; OpenClaw's ``mmr.ts``).

Relevance is the candidate score min-max normalised over the query's candidates (1 for all
when every score is equal). Similarity is the Jaccard index of the candidates' token sets
(:func:`jaccard_rows`; the token sets themselves are built by :class:`memlab.stages.mmr.MMR`).
Greedy selection (:func:`mmr_order`) picks the item maximising

    lambda * rel - (1 - lambda) * max_sim_to_selected

an exact tie goes to the higher original score, then to the earlier item (OpenClaw replaces
its pick on a tie only for a strictly higher score). ``lambda = 1`` is a plain sort.

:func:`mmr_order` takes one query's scores ``(n,)`` or a batch of configurations' score rows
``(configs, n)`` with one ``lambda`` each (the sweep): the same loop, one row per
configuration.

>>> import numpy as np
>>> mmr_order(np.array([0.9, 0.89, 0.8]), np.array([[1, .75, 0], [.75, 1, 0], [0, 0, 1]]), 0.3)
array([0, 2, 1])
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from memlab.kernels.backend import compiled, resolve_backend
from memlab.kernels.blas import single_thread_blas


def jaccard_rows(matrix: sp.csr_matrix, rows: np.ndarray, backend: str = "auto") -> np.ndarray:
    """Pairwise Jaccard similarity of the 0/1 rows ``matrix[rows]``: ``|a ∩ b| / |a ∪ b|``,
    two empty sets 1, one empty set 0.

    Computed on a small dense 0/1 block over the tokens the rows share: cheaper than a
    sparse product for the few dozen candidates of one query, and exact (0/1 products summed
    in float32 are integers below 2**24). ``backend``: :mod:`memlab.kernels.backend`
    (``"numba"``: :func:`memlab.kernels.mmr_numba.jaccard_rows_numba`, the same bits).
    """
    rows = np.asarray(rows, dtype=np.int64)
    if backend != "numpy" and resolve_backend(backend) == "numba":
        jaccard_rows_numba = compiled("memlab.kernels.mmr_numba").jaccard_rows_numba
        return jaccard_rows_numba(matrix.indptr, matrix.indices, rows)
    indptr, indices = matrix.indptr, matrix.indices
    starts, ends = indptr[rows], indptr[rows + 1]
    lens = ends - starts
    sizes = lens.astype(np.float64)
    n = len(rows)
    total = int(lens.sum())
    # the rows' token ids one after the other (a gather, not a Python loop of slices)
    flat = indices[np.repeat(starts - (np.cumsum(lens) - lens), lens) + np.arange(total)]
    inter = np.zeros((n, n))
    if total:
        # a column per distinct token without sorting: each token's slot in a scratch array
        # over the vocabulary holds one of its occurrences (whichever write lands last), so
        # every occurrence of a token reads the same representative
        slot = _scratch(matrix.shape[1])
        occurrence = np.arange(total, dtype=np.int32)
        slot[flat] = occurrence
        rep = slot[flat]
        first = rep == occurrence
        column = (np.cumsum(first) - 1)[rep]
        # only tokens two rows share add to an intersection; the diagonal is the row size
        shared = np.bincount(column) >= 2
        if shared.any():
            keep = shared[column]
            compact = np.cumsum(shared) - 1
            row_of = np.repeat(np.arange(n), lens)
            dense = np.zeros((n, int(compact[-1]) + 1), dtype=np.float32)
            dense[row_of[keep], compact[column[keep]]] = 1.0
            with single_thread_blas():
                inter = (dense @ dense.T).astype(np.float64)
        np.fill_diagonal(inter, sizes)
    union = sizes[:, None] + sizes[None, :] - inter
    empty = sizes == 0
    if not empty.any():  # every union is positive
        return inter / union
    with np.errstate(invalid="ignore", divide="ignore"):
        sim = np.where(union > 0, inter / union, 0.0)
    sim[np.ix_(empty, empty)] = 1.0
    return sim


_SCRATCH = threading.local()


def _scratch(size: int) -> np.ndarray:
    """This thread's int32 scratch array of at least ``size`` slots (contents arbitrary)."""
    buf = getattr(_SCRATCH, "buf", None)
    if buf is None or len(buf) < size:
        buf = np.empty(max(size, 1), dtype=np.int32)
        _SCRATCH.buf = buf
    return buf


def jaccard_matrix(rows: sp.csr_matrix) -> np.ndarray:
    """Pairwise Jaccard of all rows of a 0/1 matrix (:func:`jaccard_rows` of every row)."""
    rows = sp.csr_matrix(rows)
    return jaccard_rows(rows, np.arange(rows.shape[0]))


def clamp_lambda(lambda_: Any) -> np.ndarray:
    """``mmr.ts``'s ``Math.max(0, Math.min(1, lambda))``, the one clamp of MMR's lambda
    (a scalar or one per configuration); NaN is an error.

    >>> float(clamp_lambda(1.5)), clamp_lambda([0.3, -1]).tolist()
    (1.0, [0.3, 0.0])
    """
    if type(lambda_) is float:  # one query's setting: np.clip's result without the arrays
        if lambda_ != lambda_:
            raise ValueError(f"MMR lambda must be a number in [0, 1], got {lambda_!r}")
        return np.float64(lambda_ if 0.0 <= lambda_ <= 1.0 else (0.0 if lambda_ < 0 else 1.0))
    lam = np.asarray(lambda_, dtype=np.float64)
    if np.isnan(lam).any():
        raise ValueError(f"MMR lambda must be a number in [0, 1], got {lambda_!r}")
    return np.clip(lam, 0.0, 1.0)


def mmr_order(scores: np.ndarray, sim: np.ndarray | Callable[[], np.ndarray], lambda_: Any,
              keep: np.ndarray | None = None, limit: int | None = None,
              pos: np.ndarray | None = None, backend: str = "auto") -> np.ndarray:
    """Greedy MMR selection order.

    ``lambda_`` is clamped to [0, 1] (:func:`clamp_lambda`); NaN is an error. ``sim`` may be
    a function of no arguments that returns the similarities: it is called only when the
    order needs them (not for one item or ``lambda = 1``, a plain sort), so a caller need not
    build them for nothing.

    One query: ``scores`` ``(n,)`` already sorted by score (descending), ``sim`` ``(n, n)``;
    returns positions in selection order. With ``keep`` (a mask over the items) and ``limit``,
    selection stops once ``limit`` picked items, or all of them, are in ``keep``: the
    returned prefix is that of the full order, which is all a ``maxResults`` cut of the
    ``keep`` items needs.

    A batch: ``scores`` ``(configs, n)`` in one canonical item order shared with ``sim``,
    ``lambda_`` one value per row, ``pos`` ``(configs, n)`` each item's position in its row's
    score order (what "the earlier item" means in a tie); returns ``(configs, n)`` canonical
    item indices in selection order.

    ``backend`` (:mod:`memlab.kernels.backend`): one query may run on
    :func:`memlab.kernels.mmr_numba.mmr_order_numba` (the same picks); a batch runs on numpy.
    """
    scores = np.asarray(scores, dtype=np.float64)
    single = scores.ndim == 1
    n = scores.shape[-1]
    c = 1 if single else scores.shape[0]
    lam = clamp_lambda(lambda_)
    if single:
        lam = float(lam.reshape(-1)[0])
        if n <= 1 or lam == 1.0:
            return np.argsort(-scores, kind="stable") if n > 1 else np.arange(n)
    else:
        lam = np.broadcast_to(lam.reshape(-1, 1), (c, 1))
    if callable(sim):
        sim = sim()
    if single and backend != "numpy" and resolve_backend(backend) == "numba" \
            and not np.isnan(scores).any():
        mmr_order_numba = compiled("memlab.kernels.mmr_numba").mmr_order_numba
        stop = keep is not None and limit is not None
        return mmr_order_numba(scores, sim, lam, keep if stop else None,
                               int(limit) if stop else 0)
    # one query runs on 1-d arrays with scalar picks, a batch on (configs, n) rows: the same
    # operations along the last axis
    rows = None if single else np.arange(c)
    if pos is None:
        pos = np.arange(n) if single else np.broadcast_to(np.arange(n), (c, n))
    lo = scores.min(axis=-1, keepdims=True)
    span = scores.max(axis=-1, keepdims=True) - lo
    rel = np.where(span == 0, 1.0, (scores - lo) / np.where(span == 0, 1.0, span))
    gain = lam * rel  # the same float operations as lam * rel - (1 - lam) * max_sim per step
    penalty_weight = 1 - lam
    # ``avail`` is ``gain`` with picked items at -inf: ``avail - w * max_sim`` is
    # ``gain - w * max_sim`` exactly for the others and -inf for the picked
    avail = gain + np.zeros(scores.shape)
    max_sim = np.zeros(scores.shape)
    scratch = np.empty(scores.shape)
    picks = np.empty(scores.shape, dtype=np.int64)
    stop = keep is not None and limit is not None
    value = avail - penalty_weight * max_sim
    if single:
        # one query: scalar picks and Python counters (a numpy call costs more than the
        # arithmetic on a few dozen items)
        keep_list = np.broadcast_to(np.asarray(keep, dtype=bool), (n,)).tolist() if stop else []
        want = min(int(limit), sum(keep_list)) if stop else 0
        found = 0
        for step in range(n):
            pick = int(value.argmax())
            tied = value == value[pick]
            if np.count_nonzero(tied) > 1:  # a tie: higher score, then earlier in order
                top = np.where(tied, scores, -np.inf).max()
                tied &= scores == top
                pick = int(np.where(tied, pos, np.iinfo(np.int64).max).argmin())
            picks[step] = pick
            if stop:
                found += keep_list[pick]
                if found >= want:
                    return picks[:step + 1]
            avail[pick] = -np.inf
            np.maximum(max_sim, sim[pick], out=max_sim)
            np.multiply(max_sim, penalty_weight, out=scratch)
            np.subtract(avail, scratch, out=value)
        return picks
    keep_mask = np.broadcast_to(np.asarray(keep, dtype=bool), scores.shape) if stop else None
    want = np.minimum(int(limit), keep_mask.sum(axis=-1)) if stop else None
    found = np.zeros(c, dtype=np.int64)
    for step in range(n):
        pick = value.argmax(axis=-1)
        at = (rows, pick)
        tied = value == value[at][:, None]
        if np.count_nonzero(tied) > c:  # a tie: higher score, then earlier in score order
            top = np.where(tied, scores, -np.inf).max(axis=-1, keepdims=True)
            tied &= scores == top
            pick = np.where(tied, pos, np.iinfo(np.int64).max).argmin(axis=-1)
            at = (rows, pick)
        picks[..., step] = pick
        if stop:
            found += keep_mask[at]
            if np.all(found >= want):
                return picks[..., :step + 1]
        avail[at] = -np.inf
        np.maximum(max_sim, sim[pick], out=max_sim)
        np.multiply(max_sim, penalty_weight, out=scratch)
        np.subtract(avail, scratch, out=value)
    return picks
