"""Unit vectors (memlab.kernels.unit): one query's compiled row equals the numpy rows bit
for bit, its sum of squares is numpy's pairwise sum, and the zero check counts NaN."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlab.kernels.unit import unit_row, unit_rows


def _rows(dims: int, seed: int, scale: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    block = (rng.standard_normal((24, dims)) * scale).astype(np.float32)
    block[1] = 0.0
    block[2, 0] = np.nan
    block[3, -1] = np.inf
    block[4, :] = -0.0
    return block


@pytest.mark.filterwarnings("ignore:invalid value encountered")  # inf / inf in the inf row
@settings(max_examples=150, deadline=None)
@given(dims=st.integers(1, 4200), seed=st.integers(0, 2**32 - 1),
       scale=st.sampled_from([1e-30, 1e-3, 1.0, 1e5, 1e30]))
def test_one_row_equals_the_rows_of_a_block(dims: int, seed: int, scale: float) -> None:
    block = _rows(dims, seed, scale)
    whole = unit_rows(block)
    for backend in ("numpy", "numba"):
        if backend == "numba":
            pytest.importorskip("numba")
        for i in range(len(block)):
            nonzero, one = unit_row(np.ascontiguousarray(block[i]), backend)
            assert one.dtype == np.float32 and one.shape == (1, dims)
            np.testing.assert_array_equal(one[0], whole[i])
            assert nonzero == bool(np.count_nonzero(block[i]))


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 5000), seed=st.integers(0, 2**32 - 1))
def test_compiled_sum_is_numpys_pairwise_sum(n: int, seed: int) -> None:
    """The float32 result hides most differences in the norm: the sum itself is checked."""
    pytest.importorskip("numba")
    from memlab.kernels.unit_numba import pairwise_sum

    rng = np.random.default_rng(seed)
    values = rng.standard_normal(n) * rng.choice([1e-3, 1.0, 1e6], n)
    squares = values * values
    assert 0.0 + pairwise_sum(squares, 0, n) == np.add.reduce(squares)
    wide = squares.reshape(1, -1)
    assert 0.0 + pairwise_sum(squares, 0, n) == np.add.reduce(wide, axis=1)[0]


def test_zero_and_nan_vectors() -> None:
    for backend in ("numpy", "numba"):
        if backend == "numba":
            pytest.importorskip("numba")
        nonzero, row = unit_row(np.zeros(4, dtype=np.float32), backend)
        assert not nonzero and not row.any()
        nonzero, row = unit_row(np.array([np.nan, 1.0], dtype=np.float32), backend)
        assert nonzero and not row.any()  # a NaN norm: a zero row, as the block path
