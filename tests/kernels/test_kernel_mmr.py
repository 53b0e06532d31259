import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from memlab.kernels.backend import numba_available
from memlab.kernels.mmr import jaccard_matrix, jaccard_rows, mmr_order

BACKENDS = ["numpy"] + (["numba"] if numba_available() else [])


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


def _reference_jaccard(sets: list[set[int]]) -> np.ndarray:
    n = len(sets)
    out = np.zeros((n, n))
    for i, a in enumerate(sets):
        for j, b in enumerate(sets):
            out[i, j] = 1.0 if not (a | b) else len(a & b) / len(a | b)
    return out


def test_jaccard_rows_matches_python_sets_with_repeats_and_empty_rows():
    import scipy.sparse as sp

    rng = np.random.default_rng(7)
    for _ in range(300):
        n_docs, vocab = int(rng.integers(1, 30)), int(rng.integers(1, 40))
        dense = rng.random((n_docs, vocab)) < rng.random() * 0.4
        dense[rng.random(n_docs) < 0.2] = False  # some empty token sets
        rows = rng.integers(0, n_docs, int(rng.integers(0, 25)))  # repeats on purpose
        sim = jaccard_rows(sp.csr_matrix(dense.astype(np.float32)), rows)
        want = _reference_jaccard([set(np.flatnonzero(dense[r]).tolist()) for r in rows])
        assert sim.shape == want.shape
        assert np.array_equal(sim, want)


def _reference_mmr(scores: np.ndarray, sim: np.ndarray, lam: float) -> list[int]:
    """mmr.ts's greedy loop, item by item in plain Python (min-max relevance)."""
    lo, hi = float(scores.min()), float(scores.max())
    rel = [1.0 if hi == lo else (s - lo) / (hi - lo) for s in scores.tolist()]
    picked: list[int] = []
    left = list(range(len(scores)))
    while left:
        best, best_value = None, -np.inf
        for i in left:
            penalty = max((sim[i, j] for j in picked), default=0.0)
            value = lam * rel[i] - (1 - lam) * penalty
            if best is None or value > best_value or (
                    value == best_value and scores[i] > scores[best]):
                best, best_value = i, value
        picked.append(best)
        left.remove(best)
    return picked


def test_mmr_order_matches_the_greedy_loop_item_by_item():
    for seed in range(200):
        matrix, scores = _case(seed, n=int(np.random.default_rng(seed).integers(2, 14)))
        sim = jaccard_matrix(matrix)
        for lam in (0.0, 0.3, 0.7):
            assert mmr_order(scores, sim, lam).tolist() == _reference_mmr(scores, sim, lam)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 30), tied=st.booleans(),
       cut=st.booleans(), limit=st.integers(0, 8))
def test_the_batch_loop_picks_what_one_querys_loop_picks(seed, n, tied, cut, limit):
    """The two spellings of the selection that remain: one query's loop (mmr.greedy, run as
    it is or compiled) and the batch's numpy rows (the sweep's configurations axis), with
    ties and early stops."""
    rng = np.random.default_rng(seed)
    import scipy.sparse as sp

    sim = jaccard_rows(sp.csr_matrix((rng.random((n, 15)) < 0.3).astype(np.float32)),
                       np.arange(n), "numpy")
    pool = np.round(rng.random(4), 1)
    scores = np.sort(rng.choice(pool, n) if tied else rng.random(n))[::-1].copy()
    lams = np.array([0.0, 0.3, 0.7, float(rng.random())])
    keep = rng.random(n) < 0.5 if cut else None
    batch = mmr_order(np.repeat(scores[None], len(lams), 0), sim, lams,
                      None if keep is None else np.repeat(keep[None], len(lams), 0),
                      limit if cut else None)
    for backend in BACKENDS:
        for row, lam in enumerate(lams):
            one = mmr_order(scores, sim, lam, keep, limit if cut else None, backend=backend)
            if cut:  # the batch stops once every row has its kept items: a longer prefix
                assert batch[row][:len(one)].tolist() == one.tolist()
            else:
                assert batch[row].tolist() == one.tolist()
