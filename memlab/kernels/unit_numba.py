"""The compiled backend of :mod:`memlab.kernels.unit` for one row (numba; ``memlab[speed]``).

:func:`unit_row_numba` gives :func:`memlab.kernels.unit.unit_rows`'s bits: the squares in
float64, summed by numpy's own pairwise summation (:func:`pairwise_sum`: eight running sums
over blocks of at most 128 values, halves split at a multiple of eight above that, added to
numpy's starting 0), the square root, each value divided in float64 and rounded to float32.
numba emits no fused multiply-add and does not reassociate without ``fastmath``.
``tests/kernels/test_unit.py`` checks the sum against ``np.add.reduce`` and the rows against
:func:`~memlab.kernels.unit.unit_rows`. What is cheaper: one compiled call instead of the
half-dozen numpy calls of a one-row normalisation and its zero check (~35 us between
searches, caches cold, against ~15).

>>> import numpy as np
>>> nonzero, row = unit_row_numba(np.array([3.0, 4.0], dtype=np.float32))
>>> bool(nonzero), row.tolist()
(True, [[0.6000000238418579, 0.800000011920929]])
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["pairwise_sum", "unit_row_numba"]

#: numpy's PW_BLOCKSIZE: sums of at most this many values run unrolled by eight
_BLOCK = 128


@njit(cache=True, nogil=True)
def _block_sum(values, lo, n):
    """``values[lo:lo + n]`` (``n <= 128``) summed as numpy sums a block: one running sum
    below eight values, else eight (unrolled), combined pairwise, then the rest."""
    if n < 8:
        total = 0.0
        for i in range(lo, lo + n):
            total += values[i]
        return total
    r0, r1, r2, r3 = values[lo], values[lo + 1], values[lo + 2], values[lo + 3]
    r4, r5, r6, r7 = values[lo + 4], values[lo + 5], values[lo + 6], values[lo + 7]
    i = 8
    whole = n - n % 8
    while i < whole:
        r0 += values[lo + i]
        r1 += values[lo + i + 1]
        r2 += values[lo + i + 2]
        r3 += values[lo + i + 3]
        r4 += values[lo + i + 4]
        r5 += values[lo + i + 5]
        r6 += values[lo + i + 6]
        r7 += values[lo + i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        total += values[lo + i]
        i += 1
    return total


@njit(cache=True, nogil=True)
def pairwise_sum(values, lo, n):
    """``values[lo:lo + n]`` summed in numpy's pairwise order (``DOUBLE_pairwise_sum``):
    blocks of at most 128 values (:func:`_block_sum`), a longer run split in two halves at
    a multiple of eight and the halves' sums added. Walked with an explicit stack (a
    recursive function compiled into another and cached on disk crashed numba); the two
    halves' sums are added in the other order, which gives the same float (addition
    commutes exactly)."""
    if n <= _BLOCK:
        return _block_sum(values, lo, n)
    depth = 2
    while (n >> depth) > 0:
        depth += 1
    frame_lo = np.empty(2 * depth, dtype=np.int64)
    frame_n = np.empty(2 * depth, dtype=np.int64)
    split = np.zeros(2 * depth, dtype=np.bool_)
    sums = np.empty(2 * depth, dtype=np.float64)
    top = 0
    frame_lo[0], frame_n[0], split[0] = lo, n, False
    n_sums = 0
    while top >= 0:
        f_lo, f_n = frame_lo[top], frame_n[top]
        if f_n <= _BLOCK:
            sums[n_sums] = _block_sum(values, f_lo, f_n)
            n_sums += 1
            top -= 1
        elif not split[top]:
            split[top] = True
            half = f_n // 2
            half -= half % 8
            frame_lo[top + 1], frame_n[top + 1], split[top + 1] = f_lo, half, False
            frame_lo[top + 2], frame_n[top + 2], split[top + 2] = f_lo + half, f_n - half, False
            top += 2
        else:  # both halves summed: the right half's sum first, then the left's
            sums[n_sums - 2] = sums[n_sums - 2] + sums[n_sums - 1]
            n_sums -= 1
            top -= 1
    return sums[0]


# a second body of unit_rows: numpy's pairwise sum fixes the norm's bits (test_unit holds them)
@njit(cache=True, nogil=True)
def unit_row_numba(vector):
    """``(nonzero, row)`` of :func:`memlab.kernels.unit.unit_row` for a float32 vector."""
    n = len(vector)
    squares = np.empty(n, dtype=np.float64)
    nonzero = False
    for i in range(n):
        x = np.float64(vector[i])
        squares[i] = x * x
        if vector[i] != 0:  # NaN too
            nonzero = True
    norm = np.sqrt(0.0 + pairwise_sum(squares, 0, n))
    out = np.zeros((1, n), dtype=np.float32)
    if norm > 0:  # False for NaN, as ``where=norms > 0``
        for i in range(n):
            out[0, i] = np.float32(np.float64(vector[i]) / norm)
    return nonzero, out
