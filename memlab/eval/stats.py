"""Paired significance tests over per-query values of two systems.

Every function takes the per-query values of a system ``a`` and of a baseline ``b`` over the
same queries, in the same order; the difference is ``a - b``. The resampling functions also
take ``(n_queries, k)`` arrays and test the ``k`` columns (comparisons) at once with the same
resamples, which is what :func:`paired_tests` and :func:`memlab.eval.experiment.compare` do.

- :func:`paired_t`: Student's paired t-test (``scipy.stats.ttest_rel``);
- :func:`wilcoxon`: Wilcoxon signed-rank test (``scipy.stats.wilcoxon``; zero differences are
  dropped, as R's ``wilcox.test`` does);
- :func:`randomization`: two-sided paired randomization (sign-flip permutation) test of the
  mean difference (Fisher; Smucker, Allan & Carterette, CIKM 2007);
- :func:`bootstrap_ci`: percentile bootstrap confidence interval of the mean difference
  (``scipy.stats.bootstrap``, ``method="percentile"``);
- :func:`holm`, :func:`correct`: Holm–Bonferroni step-down correction of a family of
  p-values, or any of ``statsmodels.stats.multitest.multipletests``' methods.

Seeds: ``seed=s`` means ``numpy.random.default_rng(s)`` drives the resamples. The bootstrap
hands that generator to scipy, which draws the same ``(resample, query)`` indices memlab's
former hand-written bootstrap drew, so intervals are unchanged (to 1e-16) for the same seed;
the randomization test draws its coin flips as before (8 per random byte).

Why the randomization test is not ``scipy.stats.permutation_test(...,
permutation_type="samples")``: that computes the same test (its p-values agree within
Monte Carlo error, tested), but its two-sided p-value is twice the smaller one-sided one
rather than the share of ``|mean| >= |observed|``, and it took 25x as long on 9 comparisons
of 111 queries (6.6 s against 0.27 s), which sweeps repeat for every reported row.

Identical systems (all differences zero) get ``p = 1`` from every test instead of a NaN or an
exception.

>>> import numpy as np
>>> a, b = np.array([0.5, 0.7, 0.9, 0.4]), np.array([0.4, 0.7, 0.6, 0.2])
>>> randomization(a, b, n_resamples=20_000, seed=1) > 0.1  # 4 queries: p is about 4/16
True
>>> holm([0.01, 0.04, 0.03, 0.005]).round(3).tolist()
[0.03, 0.06, 0.06, 0.02]
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
import scipy.stats
from statsmodels.stats.multitest import multipletests

# Resamples are drawn in blocks of at most this many (resample x query) cells, so the memory
# stays bounded (~32 MB of float64) however many queries there are; each block is one BLAS
# product, never a Python loop per resample.
_BLOCK_CELLS = 1 << 22


def _diffs(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, bool]:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired values need the same shape, got {a.shape} and {b.shape}")
    if a.ndim not in (1, 2):
        raise ValueError(f"expected 1-D (queries) or 2-D (queries x comparisons), got {a.ndim}-D")
    d = a - b
    return (d[:, None], True) if d.ndim == 1 else (d, False)


def _one(a, b) -> np.ndarray:
    d, flat = _diffs(a, b)
    if not flat:
        raise ValueError("paired_t and wilcoxon take 1-D per-query values")
    return d[:, 0]


def _blocks(n_resamples: int, n: int) -> list[int]:
    size = max(1, _BLOCK_CELLS // max(n, 1))
    return [min(size, n_resamples - s) for s in range(0, n_resamples, size)]


def paired_t(a, b) -> tuple[float, float]:
    """Paired t statistic and two-sided p-value of ``a - b`` (``p = 1`` when identical)."""
    d = _one(a, b)
    if len(d) < 2:
        return float("nan"), float("nan")
    if not d.any():
        return 0.0, 1.0
    with warnings.catch_warnings():  # near-constant differences: scipy warns, result is fine
        warnings.simplefilter("ignore", RuntimeWarning)
        res = scipy.stats.ttest_rel(np.asarray(a, dtype=np.float64), np.asarray(b, np.float64))
    return float(res.statistic), float(res.pvalue)


def wilcoxon(a, b) -> tuple[float, float]:
    """Wilcoxon signed-rank statistic and two-sided p-value (``p = 1`` when identical)."""
    d = _one(a, b)
    if len(d) == 0:
        return float("nan"), float("nan")
    if not d.any():  # scipy would warn and divide 0 by 0
        return 0.0, 1.0
    res = scipy.stats.wilcoxon(d, zero_method="wilcox")
    return float(res.statistic), float(res.pvalue)


def randomization(a, b, *, n_resamples: int = 10_000, seed: int | None = 0):
    """Two-sided paired randomization test of the mean of ``a - b``.

    Under the null hypothesis each query's two values are exchangeable, so the sign of each
    difference is a coin flip. The p-value is ``(1 + #{|mean of flipped| >= |observed|}) /
    (1 + n_resamples)`` (Phipson & Smyth 2010: never 0, and valid for a finite number of
    resamples). Returns a float for 1-D input, an array of ``k`` p-values for ``(n, k)``.
    """
    d, flat = _diffs(a, b)
    n, k = d.shape
    if n == 0:
        return float("nan") if flat else np.full(k, np.nan)
    observed = np.abs(d.sum(axis=0))
    # A flip that reproduces the observed |sum| may differ from it by rounding; count it.
    tol = 1e-9 * np.maximum(np.abs(d).sum(axis=0), 1e-300)
    rng = np.random.default_rng(seed)
    extreme = np.zeros(k, dtype=np.int64)
    for size in _blocks(n_resamples, n):
        # 8 coin flips per random byte
        bits = np.unpackbits(rng.integers(0, 256, size=(size, -(-n // 8)), dtype=np.uint8),
                             axis=1, count=n)
        signs = bits.astype(np.float64) * 2 - 1
        extreme += (np.abs(signs @ d) >= observed - tol).sum(axis=0)
    p = (1 + extreme) / (1 + n_resamples)
    return float(p[0]) if flat else p


def bootstrap_ci(a, b, *, confidence: float = 0.95, n_resamples: int = 10_000,
                 seed: int | None = 0):
    """Percentile bootstrap confidence interval of the mean of ``a - b`` (queries resampled
    with replacement; ``scipy.stats.bootstrap``). Returns ``(low, high)``, or two arrays of
    ``k`` bounds for ``(n, k)``, the columns resampled with the same query draws.

    >>> bootstrap_ci(np.array([0.5, 0.7, 0.9, 0.4]), np.array([0.4, 0.7, 0.6, 0.2]),
    ...              n_resamples=2000)[0] >= 0
    True
    """
    d, flat = _diffs(a, b)
    n, k = d.shape
    if n == 0:
        nan = np.full(k, np.nan)
        return (float("nan"), float("nan")) if flat else (nan, nan.copy())
    if not d.any():  # identical systems: every resample's mean is 0
        zero = np.zeros(k)
        return (0.0, 0.0) if flat else (zero, zero.copy())
    with warnings.catch_warnings():  # a constant column: scipy warns, the interval is exact
        warnings.simplefilter("ignore", scipy.stats.DegenerateDataWarning)
        res = scipy.stats.bootstrap((d,), np.mean, axis=0, vectorized=True,
                                    confidence_level=confidence, n_resamples=n_resamples,
                                    method="percentile", rng=np.random.default_rng(seed),
                                    batch=max(1, _BLOCK_CELLS // max(n * k, 1)))
    low = np.asarray(res.confidence_interval.low, dtype=np.float64).reshape(k)
    high = np.asarray(res.confidence_interval.high, dtype=np.float64).reshape(k)
    return (float(low[0]), float(high[0])) if flat else (low, high)


#: Multiple-comparison corrections (``statsmodels.stats.multitest.multipletests`` methods).
CORRECTIONS = ("holm", "bonferroni", "holm-sidak", "sidak", "fdr_bh", "fdr_by", "none")


def correct(pvalues: Sequence[float] | np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjusted p-values of a family (NaNs are left out of the family and stay NaN):
    ``statsmodels.stats.multitest.multipletests(p, method=method)``; ``"none"`` returns them
    unchanged.

    >>> correct([0.01, 0.04, 0.03, 0.005], "bonferroni").round(3).tolist()
    [0.04, 0.16, 0.12, 0.02]
    """
    if method not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, got {method!r}")
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if method == "none" or not ok.any():
        out[ok] = p[ok]
        return out
    out[ok] = multipletests(p[ok], method=method)[1]
    return out


def holm(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values (:func:`correct` with ``"holm"``): rejecting where
    the adjusted value is below alpha controls the family-wise error rate at alpha."""
    return correct(pvalues, "holm")


def paired_tests(a, b, *, n_resamples: int = 10_000, seed: int | None = 0,
                 confidence: float = 0.95, labels: Sequence[object] | None = None,
                 tie_tolerance: float = 1e-12, correction: str = "holm") -> pd.DataFrame:
    """All tests for ``k`` comparisons given as ``(n_queries, k)`` arrays (or 1-D for one).

    One row per comparison: ``n``, ``delta`` (mean of ``a - b``), ``wins``/``losses``/``ties``
    (queries where ``a`` beats, loses to or ties ``b``, within ``tie_tolerance``), the raw
    p-values ``p_t_raw``, ``p_wilcoxon_raw``, ``p_rand_raw``, the same corrected across the
    ``k`` comparisons (``p_t``, ``p_wilcoxon``, ``p_rand``; each test is its own family;
    ``correction``: one of :data:`CORRECTIONS`, default Holm), and the bootstrap interval
    ``ci_low``, ``ci_high``.
    """
    d, _ = _diffs(a, b)
    a2 = np.asarray(a, dtype=np.float64).reshape(d.shape)
    b2 = np.asarray(b, dtype=np.float64).reshape(d.shape)
    n, k = d.shape
    t = [paired_t(a2[:, j], b2[:, j]) for j in range(k)]
    w = [wilcoxon(a2[:, j], b2[:, j]) for j in range(k)]
    p_rand = np.atleast_1d(randomization(a2, b2, n_resamples=n_resamples, seed=seed))
    low, high = bootstrap_ci(a2, b2, confidence=confidence, n_resamples=n_resamples, seed=seed)
    frame = pd.DataFrame({
        "n": np.full(k, n),
        "delta": d.mean(axis=0) if n else np.full(k, np.nan),
        "wins": (d > tie_tolerance).sum(axis=0),
        "losses": (d < -tie_tolerance).sum(axis=0),
        "ties": (np.abs(d) <= tie_tolerance).sum(axis=0),
        "ci_low": np.atleast_1d(low),
        "ci_high": np.atleast_1d(high),
        "t": [s for s, _ in t],
        "p_t_raw": [p for _, p in t],
        "p_wilcoxon_raw": [p for _, p in w],
        "p_rand_raw": p_rand,
    }, index=pd.Index(list(labels) if labels is not None else range(k)))
    for test in ("t", "wilcoxon", "rand"):
        frame[f"p_{test}"] = correct(frame[f"p_{test}_raw"].to_numpy(), correction)
    return frame
