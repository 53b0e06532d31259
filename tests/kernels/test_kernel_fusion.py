import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlab.kernels.backend import numba_available
from memlab.kernels.fusion import fuse_scores, normalise, normalize_weights, union

BACKENDS = ["numpy"] + (["numba"] if numba_available() else [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_union_orders_vector_hits_first_then_keyword_only(backend):
    docno, vpos, tpos = union(np.array([4, 2, 9]), np.array([2, 7, 4, 8]), backend)
    assert docno.tolist() == [4, 2, 9, 7, 8]
    assert vpos.tolist() == [0, 1, 2, -1, -1]
    assert tpos.tolist() == [2, 0, -1, 1, 3]


@pytest.mark.parametrize("backend", BACKENDS)
def test_union_of_empty_legs(backend):
    docno, vpos, tpos = union(np.zeros(0, dtype=np.int64), np.array([3]), backend)
    assert docno.tolist() == [3] and vpos.tolist() == [-1] and tpos.tolist() == [0]
    docno, vpos, tpos = union(np.array([5]), np.zeros(0, dtype=np.int64), backend)
    assert docno.tolist() == [5] and vpos.tolist() == [0] and tpos.tolist() == [-1]


@settings(max_examples=60, deadline=None)
@given(vector=st.lists(st.integers(0, 12), unique=True, max_size=10),
       text=st.lists(st.integers(0, 12), max_size=10))
def test_union_is_mergehybridresults_order(vector, text):
    """Vector hits in order, then keyword-only ones in order (a repeated keyword hit is
    matched at its first listing), on every backend."""
    first = {}
    for j, d in enumerate(text):
        first.setdefault(d, j)
    extra = [j for j, d in enumerate(text) if d not in vector]
    want = [[*vector, *(text[j] for j in extra)], [*range(len(vector)), *[-1] * len(extra)],
            [first.get(d, -1) for d in vector] + extra]
    for backend in BACKENDS:
        got = union(np.array(vector, dtype=np.int64), np.array(text, dtype=np.int64), backend)
        assert [a.tolist() for a in got] == want


@pytest.mark.parametrize("method", ["openclaw", "rrf", "minmax", "zscore"])
def test_a_batch_of_weights_equals_one_call_per_configuration(method):
    rng = np.random.default_rng(0)
    vs = np.r_[rng.random(5), 0.0, 0.0]
    ts = np.r_[0.0, rng.random(3), 0.0, rng.random(2)]
    vrank = np.r_[np.arange(1.0, 6.0), np.nan, np.nan]
    trank = np.where(ts > 0, np.cumsum(ts > 0), np.nan)
    wv = np.array([[0.2], [0.5], [0.9]])
    kw = dict(vector_score=vs, text_score=ts, vector_rank=vrank, text_rank=trank)
    batch = fuse_scores(method, wv, 1 - wv, rrf_k=np.array([[1.0], [60.0], [5.0]]), **kw)
    for row, (w, k) in enumerate([(0.2, 1.0), (0.5, 60.0), (0.9, 5.0)]):
        one = fuse_scores(method, w, 1 - w, rrf_k=k, **kw)
        assert np.array_equal(batch[row], one)


def test_single_leg_scores_are_the_leg_scores():
    v = np.array([0.9, 0.1])
    assert fuse_scores("rrf", 0.7, 0.3, vector_score=v).tolist() == v.tolist()
    assert fuse_scores("openclaw", 0.7, 0.3, text_score=v,
                       boosted_score=np.array([1.0, 0.5])).tolist() == [1.0, 0.5]


def test_normalise_missing_values():
    present = np.array([True, True, False])
    assert normalise(np.array([2.0, 1.0, 0.0]), present, "minmax").tolist() == [1.0, 0.0, 0.0]
    z = normalise(np.array([2.0, 0.0, 0.0]), present, "zscore")
    assert z.tolist() == [1.0, -1.0, -1.0]  # missing = the lowest z
    assert normalise(np.array([3.0, 3.0, 0.0]), present, "minmax").tolist() == [1.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="minmax"):
        normalise(np.ones(2), np.ones(2, dtype=bool), "borda")


def test_weights():
    assert normalize_weights(1.7, 1.0) == (0.5, 0.5)
    assert normalize_weights(0, 0) == (0.7, 0.3)
