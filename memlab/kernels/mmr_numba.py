"""The compiled backend of :mod:`memlab.kernels.mmr` for one query (numba; ``memlab[speed]``):
the bodies of :mod:`memlab.kernels.mmr` compiled as they are (:func:`memlab.kernels.backend.jit`).

:func:`greedy_order` is one query's selection (the same function :func:`~memlab.kernels.mmr.
mmr_order` runs on numpy); :func:`mmr_tokens_order` the same loop computing only the
similarity rows of the items it picks (the compiled tail's path); :func:`jaccard_rows_numba`
the whole matrix by :func:`~memlab.kernels.mmr.jaccard_csr`, which counts each pair's shared
tokens as integers per token and divides the same float64 values as the numpy kernel's dense
block product (a token loop that would run in Python without numba: two bodies,
held together by ``tests/kernels/test_mmr_numba.py``). Compiled on first use, then cached on
disk by numba.

Scores with a NaN are left to the numpy kernel (its ``argmax`` picks a NaN first), so the two
never disagree; :func:`memlab.kernels.mmr.mmr_order` checks that before calling here.

>>> import numpy as np, scipy.sparse as sp
>>> m = sp.csr_matrix(np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]], dtype=np.float32))
>>> sim = jaccard_rows_numba(m.indptr, m.indices, np.array([0, 1, 2]))
>>> sim.tolist()
[[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
>>> greedy_order(np.array([0.9, 0.89, 0.8]), sim, 0.3, np.zeros(0, dtype=bool), False, 0).tolist()
[0, 2, 1]
"""

from __future__ import annotations

import numpy as np

from memlab.kernels import mmr
from memlab.kernels.backend import jit

__all__ = ["greedy_order", "jaccard_csr", "jaccard_rows_numba", "mmr_tokens_order"]

# every body a compiled one calls is registered too (backend.jit)
for _body in (mmr.jaccard_index, mmr.jaccard_value, mmr.jaccard_row, mmr.greedy):
    jit(_body)
jaccard_csr = jit(mmr.jaccard_csr)
greedy_order = jit(mmr.greedy_order)
mmr_tokens_order = jit(mmr.mmr_tokens_order)


def jaccard_rows_numba(indptr: np.ndarray, indices: np.ndarray, rows: np.ndarray
                       ) -> np.ndarray:
    """:func:`memlab.kernels.mmr.jaccard_rows` of the CSR rows ``rows``: the pairwise
    Jaccard similarity, two empty sets 1, one empty set 0."""
    return jaccard_csr(indptr, indices, np.ascontiguousarray(rows, dtype=np.int64))
