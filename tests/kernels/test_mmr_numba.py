"""The compiled MMR backend (memlab.kernels.mmr_numba): its Jaccard (per token counts) equals
the numpy kernel's (a dense block product) bit for bit, its token path picks what the loop over
the whole matrix picks; the backend switch (memlab.kernels.backend) resolves as documented."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from memlab.kernels.backend import default_backend, resolve_backend, set_default_backend
from memlab.kernels.mmr import jaccard_rows, mmr_order

pytest.importorskip("numba")


def _token_matrix(rng, docs: tuple[int, int], vocab: int, density: float,
                  empty: float) -> sp.csr_matrix:
    """A random 0/1 chunk x token matrix, some rows empty."""
    n_docs = int(rng.integers(*docs))
    dense = rng.random((n_docs, int(rng.integers(1, vocab)))) < rng.random() * density
    dense[rng.random(n_docs) < empty] = False
    return sp.csr_matrix(dense.astype(np.float32))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_jaccard_backends_agree_bit_for_bit_with_repeats_and_empty_rows(seed):
    rng = np.random.default_rng(seed)
    matrix = _token_matrix(rng, (1, 60), 90, 0.5, 0.15)
    rows = rng.integers(0, matrix.shape[0], int(rng.integers(0, 50)))
    a = jaccard_rows(matrix, rows, backend="numpy")
    b = jaccard_rows(matrix, rows, backend="numba")
    assert a.shape == b.shape and np.array_equal(a, b)


def test_picks_from_tokens_equal_picks_from_the_whole_matrix():
    """mmr_tokens_order (similarity rows of the picked items only, the tail's path) picks
    what the greedy loop over the whole Jaccard matrix picks, with and without a cut; a cut
    stops once the kept items are all picked, and the full order's prefix is returned."""
    from memlab.kernels.mmr_numba import jaccard_csr, mmr_tokens_order

    rng = np.random.default_rng(13)
    for trial in range(400):
        matrix = _token_matrix(rng, (2, 70), 60, 0.6, 0.1)
        n_docs = matrix.shape[0]
        rows = rng.permutation(n_docs)[:int(rng.integers(2, n_docs + 1))].astype(np.int64)
        n = len(rows)
        pool = np.round(rng.random(4), 1)
        scores = np.sort(rng.choice(pool, n) if trial % 2 else rng.random(n))[::-1].copy()
        lam = float(rng.choice([0.0, 0.3, 0.7, rng.random()]))
        use_keep = trial % 3 != 0
        keep = rng.random(n) < rng.choice([0.05, 0.3, 0.9]) if use_keep else \
            np.zeros(0, dtype=bool)
        limit = int(rng.integers(0, 8)) if use_keep else 0
        sim = jaccard_csr(matrix.indptr, matrix.indices, rows)
        want = mmr_order(scores, sim, lam, keep if use_keep else None,
                         limit if use_keep else None, backend="numpy")
        got = mmr_tokens_order(scores, matrix.indptr, matrix.indices, rows, lam, keep,
                               use_keep, limit)
        assert got.tolist() == want.tolist()
        full = mmr_order(scores, sim, lam, backend="numpy")
        assert full[:len(got)].tolist() == got.tolist()
        if use_keep:  # the cut's items are all in the prefix
            kept_full = [i for i in full.tolist() if keep[i]][:limit]
            assert [i for i in got.tolist() if keep[i]][:limit] == kept_full


def test_nan_scores_stay_on_numpy():
    scores = np.array([np.nan, 0.5, 0.2])
    sim = np.eye(3)
    assert mmr_order(scores, sim, 0.5, backend="numba").tolist() == \
        mmr_order(scores, sim, 0.5, backend="numpy").tolist()


def test_backend_resolution(monkeypatch):
    monkeypatch.delenv("MEMLAB_KERNEL_BACKEND", raising=False)
    assert resolve_backend("auto") == "numba"  # importable here
    with default_backend("numpy"):
        assert resolve_backend("auto") == "numpy"
        assert resolve_backend("numba") == "numba"  # an explicit backend wins
        monkeypatch.setenv("MEMLAB_KERNEL_BACKEND", "numba")
        assert resolve_backend("auto") == "numba"  # the environment wins over the default
    assert resolve_backend("auto") == "numba"
    monkeypatch.setenv("MEMLAB_KERNEL_BACKEND", "fast")
    with pytest.raises(ValueError, match="MEMLAB_KERNEL_BACKEND must be one of"):
        resolve_backend("auto")
    with pytest.raises(ValueError, match="backend must be one of"):
        set_default_backend("gpu")
