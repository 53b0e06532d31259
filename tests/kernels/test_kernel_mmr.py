import numpy as np

from memlab.kernels.mmr import jaccard_matrix, jaccard_rows, mmr_order


def _case(seed: int, n: int = 9):
    rng = np.random.default_rng(seed)
    rows = (rng.random((n, 12)) < 0.3).astype(np.float32)
    import scipy.sparse as sp

    matrix = sp.csr_matrix(rows)
    return matrix, np.sort(rng.integers(0, 4, n) / 4)[::-1].copy()  # ties on purpose


def test_batch_rows_equal_single_queries():
    matrix, scores = _case(1)
    sim = jaccard_rows(matrix, np.arange(matrix.shape[0]))
    lams = np.array([0.0, 0.3, 0.7, 0.99])
    batch = mmr_order(np.repeat(scores[None], len(lams), 0), sim, lams)
    for row, lam in enumerate(lams):
        assert batch[row].tolist() == mmr_order(scores, sim, lam).tolist()


def test_early_stop_returns_a_prefix():
    matrix, scores = _case(2)
    sim = jaccard_matrix(matrix)
    full = mmr_order(scores, sim, 0.5)
    keep = np.zeros(len(scores), dtype=bool)
    keep[::2] = True
    part = mmr_order(scores, sim, 0.5, keep, 2)
    assert part.tolist() == full[:len(part)].tolist()
    assert keep[part].sum() == 2


def test_jaccard_rows_is_the_jaccard_index():
    matrix, _ = _case(3)
    dense = matrix.toarray() > 0
    sim = jaccard_rows(matrix, np.array([0, 3, 5]))
    for i, a in enumerate([0, 3, 5]):
        for j, b in enumerate([0, 3, 5]):
            union = (dense[a] | dense[b]).sum()
            want = 1.0 if union == 0 else (dense[a] & dense[b]).sum() / union
            assert sim[i, j] == want
