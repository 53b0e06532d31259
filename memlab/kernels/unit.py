"""Unit vectors: OpenClaw scores a chunk by cosine similarity, which memlab computes as the
inner product of L2-normalised float32 vectors (:class:`memlab.stages.vector.VectorSearch`
normalises the documents once and each query).

:func:`unit_rows` is the formula: norms and quotients in float64, row by row (numpy's
pairwise sum of the squares), so a row's result does not depend on the rows around it;
all-zero rows (and rows whose norm is NaN) stay zero. :func:`unit_row` is one query's row
through the compiled backend (:mod:`memlab.kernels.unit_numba`, the same bits) when numba
runs, with the zero-vector check in the same call.

>>> unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32)).tolist()
[[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
>>> nonzero, row = unit_row(np.array([3.0, 4.0], dtype=np.float32))
>>> bool(nonzero), row.tolist()
(True, [[0.6000000238418579, 0.800000011920929]])
"""

from __future__ import annotations

import numpy as np

from memlab.kernels.backend import compiled, resolve_backend

__all__ = ["unit_row", "unit_rows"]


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row of ``vectors`` divided by its L2 norm, as contiguous float32 (zero where the
    norm is 0 or NaN)."""
    wide = vectors.astype(np.float64)
    # np.linalg.norm(wide, axis=1, keepdims=True) spelled out: its own code for a vector norm
    # along one axis (the same bits, without its argument handling)
    norms = np.sqrt(np.add.reduce(wide * wide, axis=1, keepdims=True))
    out = np.divide(vectors, norms, out=np.zeros_like(vectors, dtype=np.float64),
                    where=norms > 0)
    return np.ascontiguousarray(out, dtype=np.float32)


def unit_row(vector: np.ndarray, backend: str = "auto") -> tuple[bool, np.ndarray]:
    """``(nonzero, row)``: whether ``vector`` (1-D) has a non-zero entry (NaN counts), and
    :func:`unit_rows` of it as a ``(1, dims)`` float32 array."""
    if resolve_backend(backend) == "numba" and vector.dtype == np.float32 \
            and vector.flags.c_contiguous:
        return compiled("memlab.kernels.unit_numba").unit_row_numba(vector)
    return bool(np.count_nonzero(vector)), unit_rows(vector.reshape(1, -1))
