"""Paired significance tests: against scipy, exact enumeration and hand-computed values."""

import itertools
import time
import warnings

import numpy as np
import pytest
import scipy.stats

from memlab.eval.stats import (
    CORRECTIONS,
    bootstrap_ci,
    correct,
    holm,
    paired_t,
    paired_tests,
    randomization,
    wilcoxon,
)


def _pair(seed: int, n: int = 40, shift: float = 0.05):
    rng = np.random.default_rng(seed)
    b = rng.random(n)
    a = np.clip(b + shift + rng.normal(0, 0.2, n), 0, 1)
    a[:5] = b[:5]  # some ties, as per-query metrics have
    return a, b


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_t_and_wilcoxon_match_scipy(seed):
    a, b = _pair(seed)
    ref_t = scipy.stats.ttest_rel(a, b)
    assert paired_t(a, b) == pytest.approx((ref_t.statistic, ref_t.pvalue), rel=1e-12)
    ref_w = scipy.stats.wilcoxon(a - b)
    assert wilcoxon(a, b) == pytest.approx((ref_w.statistic, ref_w.pvalue), rel=1e-12)


def test_identical_systems_give_p_one_without_warnings():
    a = np.array([0.2, 0.5, 0.5, 1.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert paired_t(a, a) == (0.0, 1.0)
        assert wilcoxon(a, a) == (0.0, 1.0)
        assert randomization(a, a, n_resamples=1000) == 1.0
        assert bootstrap_ci(a, a, n_resamples=1000) == (0.0, 0.0)
        row = paired_tests(a, a, n_resamples=1000).iloc[0]
    assert (row["p_t"], row["p_wilcoxon"], row["p_rand"]) == (1.0, 1.0, 1.0)
    assert (row["wins"], row["losses"], row["ties"]) == (0, 0, 5)


def _exact_randomization(d: np.ndarray) -> float:
    observed = abs(d.sum())
    flips = np.array(list(itertools.product([-1.0, 1.0], repeat=len(d))))
    return float(np.mean(np.abs(flips @ d) >= observed - 1e-12))


@pytest.mark.parametrize("d", [
    [0.1, -0.05, 0.2, 0.0, 0.15, -0.1, 0.3, 0.05, 0.12, -0.02],  # p about 0.07
    [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],           # p = 2/1024
    [0.5, -0.5, 0.5, -0.5, 0.25, -0.25, 0.1, 0.0, 0.0, 0.1],      # p large, many ties
])
def test_randomization_close_to_exact_enumeration(d):
    d = np.array(d)
    exact = _exact_randomization(d)
    mc = randomization(d, np.zeros_like(d), n_resamples=100_000, seed=3)
    assert mc == pytest.approx(exact, abs=0.005)
    assert mc > 0  # (1 + k) / (1 + B) is never 0


def test_randomization_seeded_and_vectorised_per_column():
    a, b = _pair(0, n=30)
    a2, b2 = _pair(1, n=30)
    one = randomization(a, b, n_resamples=5000, seed=7)
    assert one == randomization(a, b, n_resamples=5000, seed=7)
    both = randomization(np.column_stack([a, a2]), np.column_stack([b, b2]),
                         n_resamples=5000, seed=7)
    # columns share the same sign flips, so each equals its own 1-D test with that seed
    assert both[0] == one
    assert both[1] == randomization(a2, b2, n_resamples=5000, seed=7)


def test_randomization_blocks_do_not_change_the_answer(monkeypatch):
    from memlab.eval import stats

    a, b = _pair(4, n=50)
    whole = randomization(a, b, n_resamples=3000, seed=1)
    monkeypatch.setattr(stats, "_BLOCK_CELLS", 50 * 7)  # blocks of 7 resamples
    blocked = randomization(a, b, n_resamples=3000, seed=1)
    assert blocked == pytest.approx(whole, abs=0.03)  # same distribution, other draws


def test_bootstrap_matches_scipy_percentile():
    a, b = _pair(5, n=60)
    low, high = bootstrap_ci(a, b, n_resamples=20_000, seed=0)
    ref = scipy.stats.bootstrap((a - b,), np.mean, method="percentile", n_resamples=20_000,
                                rng=np.random.default_rng(1)).confidence_interval
    assert low == pytest.approx(ref.low, abs=0.006)
    assert high == pytest.approx(ref.high, abs=0.006)
    assert low < np.mean(a - b) < high
    # 2-D input: one interval per column, the first the 1-D call's (up to BLAS rounding)
    lows, highs = bootstrap_ci(np.column_stack([a, b]), np.column_stack([b, a]),
                               n_resamples=20_000, seed=0)
    assert (lows[0], highs[0]) == pytest.approx((low, high), rel=1e-12)
    assert lows[1] == pytest.approx(-high, abs=0.006)


def test_holm_hand_computed():
    # sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> running max 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.4]) == pytest.approx([0.8, 0.8])  # 0.4*2=0.8, max(0.5, 0.8)
    assert holm([0.9, 0.6, 0.7]) == pytest.approx([1.0, 1.0, 1.0])  # capped at 1
    assert holm([0.02]) == pytest.approx([0.02])
    out = holm([0.01, np.nan, 0.04])  # NaN is not part of the family
    assert out[0] == pytest.approx(0.02) and np.isnan(out[1]) and out[2] == pytest.approx(0.04)
    assert holm([]).shape == (0,)


def test_paired_tests_hand_computed_and_holm_family():
    a = np.array([[1.0, 0.5], [0.5, 0.5], [0.0, 1.0], [1.0, 0.0]])
    b = np.array([[0.5, 0.5], [0.5, 0.0], [0.5, 1.0], [0.0, 0.0]])
    frame = paired_tests(a, b, n_resamples=2000, labels=["x", "y"])
    assert frame.loc["x", ["wins", "losses", "ties"]].tolist() == [2, 1, 1]
    assert frame.loc["y", ["wins", "losses", "ties"]].tolist() == [1, 0, 3]
    assert frame.loc["x", "delta"] == pytest.approx((0.5 + 0 - 0.5 + 1) / 4)
    assert frame.loc["y", "delta"] == pytest.approx(0.5 / 4)
    assert frame.loc["x", "p_t_raw"] == pytest.approx(
        scipy.stats.ttest_rel(a[:, 0], b[:, 0]).pvalue)
    for test in ("t", "wilcoxon", "rand"):
        assert frame[f"p_{test}"].to_numpy() == pytest.approx(
            holm(frame[f"p_{test}_raw"].to_numpy()))
    assert (frame["n"] == 4).all()


def test_paired_tests_is_fast():
    rng = np.random.default_rng(0)
    a, b = rng.random((300, 6)), rng.random((300, 6))
    t0 = time.perf_counter()
    paired_tests(a, b, n_resamples=10_000)
    # ~0.7 s on an idle core (scipy's bootstrap is most of it); a Python loop per resample
    # takes minutes; the bound leaves room for a shared, loaded machine
    assert time.perf_counter() - t0 < 15.0


def test_shape_errors():
    with pytest.raises(ValueError, match="same shape"):
        paired_t([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="1-D"):
        wilcoxon(np.zeros((3, 2)), np.zeros((3, 2)))


def test_bootstrap_is_scipy_with_the_seed_as_generator():
    """The interval is scipy.stats.bootstrap's (percentile) with default_rng(seed): the seed
    semantics of the former hand-written bootstrap, whose intervals it reproduces."""
    a, b = _pair(6, n=80)
    low, high = bootstrap_ci(a, b, n_resamples=5000, seed=11)
    ref = scipy.stats.bootstrap((a - b,), np.mean, method="percentile", n_resamples=5000,
                                rng=np.random.default_rng(11)).confidence_interval
    assert (low, high) == pytest.approx((ref.low, ref.high), abs=1e-15)
    # the former implementation: counts of each query per resample, one product for the means
    rng = np.random.default_rng(11)
    idx = rng.integers(0, 80, size=(5000, 80))
    means = (a - b)[idx].mean(axis=1)
    assert (low, high) == pytest.approx(tuple(np.percentile(means, [2.5, 97.5])), abs=1e-15)


def test_randomization_agrees_with_scipy_permutation_test():
    a, b = _pair(8, n=50, shift=0.04)
    ours = randomization(a, b, n_resamples=40_000, seed=2)
    ref = scipy.stats.permutation_test(
        (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
        vectorized=True, n_resamples=40_000, rng=np.random.default_rng(2)).pvalue
    assert 0.01 < ours < 0.9
    assert ours == pytest.approx(ref, abs=0.01)  # the same test, other draws


def test_corrections_are_statsmodels():
    from statsmodels.stats.multitest import multipletests

    p = np.random.default_rng(0).random(30) ** 3
    for method in CORRECTIONS:
        if method == "none":
            assert correct(p, method).tolist() == p.tolist()
            continue
        assert correct(p, method) == pytest.approx(multipletests(p, method=method)[1])
    with pytest.raises(ValueError, match="correction must be one of"):
        correct(p, "tukey")
