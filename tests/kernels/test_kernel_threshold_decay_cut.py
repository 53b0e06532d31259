import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlab.kernels.backend import numba_available
from memlab.kernels.cut import leg_cut
from memlab.kernels.decay import DAY_MS, decay_multipliers
from memlab.kernels.threshold import RELAXED, eligible, keep_first


@pytest.mark.parametrize("relaxed", ["keyword", "zero", None])
def test_threshold_batch_equals_rows(relaxed):
    scores = np.array([[0.5, 0.2, -0.1], [0.3, 0.2, 0.1], [0.1, 0.0, -1.0]])
    keyword = np.array([False, True, True])
    mins = np.array([[0.35], [0.35], [0.05]])
    batch = eligible(scores, keyword, mins, relaxed)
    for row in range(3):
        assert batch[row].tolist() == eligible(scores[row], keyword, mins[row, 0],
                                               relaxed).tolist()
    assert eligible(np.array([0.3, 0.2]), np.array([False, True]), 0.35,
                    "keyword").tolist() == [False, True]
    assert eligible(np.array([0.3, 0.2]), np.array([False, False]), 0.35,
                    None).tolist() == [False, False]


def test_keep_first_rows():
    mask = np.array([[True, True, False, True], [False, True, True, True]])
    assert keep_first(mask, np.array([[1], [2]])).tolist() == [
        [True, False, False, False], [False, True, True, False]]


def test_decay_half_life_and_missing_timestamps():
    ts = np.array([0.0, 10 * DAY_MS, np.nan, 40 * DAY_MS])
    mult = decay_multipliers(ts, 20 * DAY_MS, 20)
    assert mult[0] == pytest.approx(0.5) and mult[1] == pytest.approx(2 ** -0.5)
    assert mult[2] == 1.0 and mult[3] == 1.0  # undated; in the future
    assert decay_multipliers(ts, 20 * DAY_MS, 0).tolist() == [1.0] * 4


def test_leg_cut_keeps_fallback_hits():
    assert leg_cut(np.arange(1, 5), 2).tolist() == [True, True, False, False]
    assert leg_cut(np.arange(1, 4), 1, np.array([False, True, True])).tolist() == [True] * 3


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_decay_multipliers_is_the_rule_in_full():
    """The multipliers equal the rule written out (NaN timestamp: 1; ``nan_to_num`` of the
    age), bit for bit and sign for sign, on edge values: NaN/infinite timestamps, clocks and
    half-lives, denormals, future dates."""
    from memlab.kernels.decay import decay_multiplier

    def rule(ts, now, hl):
        age = np.maximum(0.0, now - ts) / DAY_MS
        return np.where(np.isnan(ts), 1.0, decay_multiplier(np.nan_to_num(age), hl))

    rng = np.random.default_rng(0)
    edges = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e300, -1e300, 5e-324]
    for _ in range(2000):
        ts = rng.choice(np.r_[edges, rng.normal(1.7e12, 1e11, 10)], int(rng.integers(1, 20)))
        now = rng.choice([1.75e12, np.inf, -np.inf, np.nan, 0.0, 1e300])
        hl = rng.choice([30, 1, 0.5, 1e-300, 1e300, np.inf, 0, -3])
        got, want = decay_multipliers(ts, now, hl), rule(ts, now, hl)
        assert np.array_equal(got, want, equal_nan=True), (ts, now, hl)
        assert (np.signbit(got) == np.signbit(want)).all()


@settings(max_examples=120, deadline=None)
@given(scores=st.lists(st.sampled_from([-1.0, -0.0, 0.0, 0.1, 0.3, 0.35, 0.5, np.nan]),
                       max_size=12),
       keyword_seed=st.integers(0, 2**16), mins=st.lists(st.sampled_from([0.0, 0.05, 0.35,
                                                                         0.6, np.nan]),
                                                        min_size=1, max_size=4),
       relaxed=st.sampled_from(RELAXED), n=st.integers(-1, 6))
def test_the_configurations_axis_equals_one_querys_rule(scores, keyword_seed, mins, relaxed, n):
    """The two spellings of the cut that remain: one query's (threshold.eligible_row and
    first_kept, compiled as they are for the tail) and the numpy broadcast over a leading
    configurations axis (the sweep)."""
    s = np.array(scores, dtype=np.float64)
    kw = np.random.default_rng(keyword_seed).random(len(s)) < 0.5
    batch = eligible(np.repeat(s[None], len(mins), 0), kw, np.array(mins)[:, None], relaxed)
    kept = keep_first(batch, np.full((len(mins), 1), n))
    for row, m in enumerate(mins):
        one = eligible(s, kw, m, relaxed)
        assert one.tolist() == batch[row].tolist()
        assert keep_first(one, n).tolist() == kept[row].tolist()
    if numba_available() and relaxed is not None:
        from memlab.kernels.tail_numba import eligible_row, first_kept

        one = eligible_row(s, kw, mins[0], 2 if relaxed == "keyword" else 1)
        assert one.tolist() == batch[0].tolist()
        assert first_kept(one, n).tolist() == np.flatnonzero(kept[0]).tolist()
