"""Maximal marginal relevance (reference, section 6; OpenClaw's ``mmr.ts``).

Relevance is the candidate score min-max normalised over the query's candidates (1 for all
when every score is equal). Similarity is the Jaccard index of the candidates' token sets
(:func:`jaccard_rows`; the token sets themselves are built by :class:`memlab.stages.mmr.MMR`).
Greedy selection (:func:`mmr_order`; one query's loop :func:`greedy`) picks the item
maximising

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
    # a second body of jaccard_csr (same integers, same division): its token loop would run in
    # Python here; test_mmr_numba's hypothesis test holds the two together
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

    One query's selection is :func:`greedy_order`, run as it is on ``backend="numpy"``
    (:mod:`memlab.kernels.backend`) and compiled by numba on ``"numba"``; a batch runs on
    numpy.
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
    stop = keep is not None and limit is not None
    if single:
        if not np.isnan(scores).any():
            # the one loop of one query's selection, compiled by numba as it is on "numba"
            body = (compiled("memlab.kernels.mmr_numba").greedy_order
                    if backend != "numpy" and resolve_backend(backend) == "numba"
                    else greedy_order)
            mask = (np.ascontiguousarray(np.broadcast_to(np.asarray(keep, dtype=np.bool_),
                                                         (n,))) if stop else _NO_KEEP)
            return body(np.ascontiguousarray(scores), np.ascontiguousarray(sim, dtype=np.float64),
                        lam, mask, stop, int(limit) if stop else 0)
        # NaN scores: numpy's argmax picks a NaN first, the loop above compares them False;
        # such a query takes the batch loop below as one row
        picks = mmr_order(scores[None], sim, np.array([lam]),
                          None if keep is None else np.asarray(keep, dtype=bool)[None], limit,
                          None, "numpy")
        return picks[0]
    # a batch (the sweep) on (configs, n) rows: numpy along the last axis (one query's loop
    # above per row would run in Python without numba); tests/kernels/test_kernel_mmr.py holds
    # its picks to the loop's
    rows = np.arange(c)
    if pos is None:
        pos = np.broadcast_to(np.arange(n), (c, n))
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
    value = avail - penalty_weight * max_sim
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


_NO_KEEP = np.zeros(0, dtype=np.bool_)


# -- one query's selection: plain Python bodies that numba compiles as they are
# (memlab.kernels.mmr_numba, backend.jit); a candidate's similarity row is computed from the
# chunks' tokens when first needed (:func:`jaccard_index`: each distinct token of the rows
# gets a local id through a small hash table; :func:`jaccard_row` counts, for each of a
# row's tokens, the rows holding it), so a selection that stops after a few picks never
# builds the whole matrix.


def jaccard_index(indptr, indices, rows):
    """What any row of the rows' pairwise Jaccard needs: ``(sizes, local, row_start,
    tok_start, holders)``: each row's token count (float64); the rows' tokens as local ids,
    row after row (row ``i``'s are ``local[row_start[i]:row_start[i + 1]]``); and the rows
    holding each local token (``holders[tok_start[k]:tok_start[k + 1]]``, ascending)."""
    n = len(rows)
    sizes = np.empty(n, dtype=np.float64)
    row_start = np.empty(n + 1, dtype=np.int64)
    total = 0
    for i in range(n):
        row_start[i] = total
        size = indptr[rows[i] + 1] - indptr[rows[i]]
        sizes[i] = size
        total += size
    row_start[n] = total
    # each distinct token of the rows gets a local id, through a small open-addressing
    # table (one int64 a slot, ``token << 32 | local id``, so a probe reads one cache line;
    # at least 1.5x the rows' tokens, of which about half are distinct): a vocabulary-sized
    # scratch array would be read at random, and between searches (caches cold) that cost
    # more than the rest
    cap = 16
    while cap < total + total // 2:
        cap *= 2
    slot_mask = cap - 1
    table = np.full(cap, -1, dtype=np.int64)
    local = np.empty(total, dtype=np.int32)
    n_local = 0
    q = 0
    for i in range(n):
        for p in range(indptr[rows[i]], indptr[rows[i] + 1]):
            t = np.int64(indices[p])
            h = (t * np.int64(0x9E3779B1)) & slot_mask
            while True:
                entry = table[h]
                if entry == -1:
                    table[h] = (t << 32) | n_local
                    local[q] = n_local
                    n_local += 1
                    break
                if (entry >> 32) == t:
                    local[q] = entry & 0xFFFFFFFF
                    break
                h = (h + 1) & slot_mask
            q += 1
    # the rows holding each local token (a CSR of token -> rows, rows ascending)
    tok_start = np.zeros(n_local + 1, dtype=np.int32)
    for q in range(total):
        tok_start[local[q] + 1] += 1
    for k in range(n_local):
        tok_start[k + 1] += tok_start[k]
    fill = tok_start[:-1].copy()
    holders = np.empty(total, dtype=np.int32)
    for i in range(n):
        for q in range(row_start[i], row_start[i + 1]):
            k = local[q]
            holders[fill[k]] = i
            fill[k] += 1
    return sizes, local, row_start, tok_start, holders


def jaccard_value(shared, size_i, size_j, same):
    """The Jaccard index of two token sets from their sizes and ``shared`` count (a set
    with itself: its size), 1 for two empty sets."""
    value = size_i if same else float(shared)
    union = size_i + size_j - value
    return value / union if union > 0 else 1.0  # union 0: both sets empty


def jaccard_row(sizes, local, row_start, tok_start, holders, i, counts, out):
    """Row ``i``'s Jaccard similarity to every row into ``out`` (an index of
    :func:`jaccard_index`; ``counts``: int32 zeros, one per row, left zeroed): for each of
    its tokens, the rows holding it."""
    for q in range(row_start[i], row_start[i + 1]):
        k = local[q]
        for a in range(tok_start[k], tok_start[k + 1]):
            counts[holders[a]] += 1
    for j in range(len(sizes)):
        out[j] = jaccard_value(counts[j], sizes[i], sizes[j], i == j)
        counts[j] = 0


def jaccard_csr(indptr, indices, rows):
    """Pairwise Jaccard of the CSR rows ``rows`` (each row a set of token ids): every pair
    of rows holding a token counts it once (a row lists a token once), as integers."""
    sizes, local, row_start, tok_start, holders = jaccard_index(indptr, indices, rows)
    n = len(rows)
    inter = np.zeros((n, n), dtype=np.int32)
    for k in range(len(tok_start) - 1):
        lo = tok_start[k]
        hi = tok_start[k + 1]
        for a in range(lo, hi):
            ra = holders[a]
            for b in range(a + 1, hi):
                inter[ra, holders[b]] += 1  # holders ascend: the upper triangle
    sim = np.empty((n, n), dtype=np.float64)
    for i in range(n):
        for j in range(i, n):
            sim[i, j] = jaccard_value(inter[i, j], sizes[i], sizes[j], i == j)
            sim[j, i] = sim[i, j]
    return sim


def mmr_tokens_order(scores, indptr, indices, rows, lam, keep, use_keep, limit):
    """The greedy MMR picks of one query's candidates ``rows`` of a 0/1 token CSR (see
    :func:`greedy_order`), their similarity rows computed only for the items picked: a
    selection that stops early (``keep``/``limit``) reads only those."""
    n = len(rows)
    index = jaccard_index(indptr, indices, rows)
    sim = np.empty((n, n), dtype=np.float64)
    have = np.zeros(n, dtype=np.bool_)
    return greedy(scores, sim, have, index, lam, keep, use_keep, limit)


def greedy_order(scores, sim, lam, keep, use_keep, limit):
    """The greedy MMR picks of one query given every similarity (see :func:`greedy`)."""
    n = len(scores)
    none = np.zeros(0, dtype=np.int32)
    index = (np.zeros(n, dtype=np.float64), none, np.zeros(n + 1, dtype=np.int64), none, none)
    return greedy(scores, sim, np.ones(n, dtype=np.bool_), index, lam, keep, use_keep, limit)


def greedy(scores, sim, have, index, lam, keep, use_keep, limit):
    """The greedy MMR picks of one query; ``sim[i]`` is read once ``have[i]``, else first
    computed from ``index`` (:func:`jaccard_index`). With ``use_keep``, selection stops once
    ``limit`` picked items, or every item, of ``keep`` are picked: the prefix of the full
    order a cut of the ``keep`` items to ``limit`` needs."""
    n = len(scores)
    sizes, local, row_start, tok_start, holders = index
    counts = np.zeros(n, dtype=np.int32)
    lo = scores[0]
    hi = scores[0]
    for i in range(n):
        lo = min(lo, scores[i])
        hi = max(hi, scores[i])
    span = hi - lo
    penalty_weight = 1 - lam
    avail = np.empty(n, dtype=np.float64)  # gain, and -inf once picked
    for i in range(n):
        rel = 1.0 if span == 0 else (scores[i] - lo) / span
        avail[i] = lam * rel
    want = 0
    if use_keep:
        for i in range(n):
            if keep[i]:
                want += 1
        want = min(want, limit)
    max_sim = np.zeros(n, dtype=np.float64)
    picks = np.empty(n, dtype=np.int64)
    found = 0
    for step in range(n):
        pick = 0
        best = avail[0] - penalty_weight * max_sim[0]
        ties = 1
        for i in range(1, n):
            value = avail[i] - penalty_weight * max_sim[i]
            if value > best:
                best, pick, ties = value, i, 1
            elif value == best:
                ties += 1
        if ties > 1:  # a tie: the higher score, then the earlier item
            top = -np.inf
            for i in range(n):
                if avail[i] - penalty_weight * max_sim[i] == best and scores[i] > top:
                    top, pick = scores[i], i
        picks[step] = pick
        if use_keep:
            if keep[pick]:
                found += 1
            if found >= want:
                return picks[:step + 1]
        avail[pick] = -np.inf
        if not have[pick]:
            jaccard_row(sizes, local, row_start, tok_start, holders, pick, counts, sim[pick])
            have[pick] = True
        for i in range(n):
            if sim[pick, i] > max_sim[i]:
                max_sim[i] = sim[pick, i]
    return picks
