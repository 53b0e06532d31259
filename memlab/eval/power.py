"""How many labeled queries a difference needs: bootstrap power of the paired test.

From the per-query values of two systems on the queries labeled so far (a pilot), the
per-query differences are recentred to a hypothetical true difference ``delta`` and
resampled ``n`` at a time (with replacement); the share of resamples in which the paired
t-test at level ``alpha`` finds the difference (two-sided) is the power at ``n`` queries.
:func:`queries_needed` returns the smallest ``n`` with at least the wanted power, so one
knows when to stop labeling. The per-query spread the pilot shows is what sets the answer:
with standard deviation ``sd`` of the differences it comes close to the textbook
``((z_{1-alpha/2} + z_{power}) * sd / delta) ** 2`` (Sakai's topic-set-size design), without
assuming the differences are normal.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> a, b = rng.uniform(0, 1, 40), rng.uniform(0, 1, 40)
>>> n = queries_needed(a, b, delta=0.1, n_resamples=2000, seed=0)
>>> 50 < n < 100  # the textbook formula gives 74
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import scipy.stats

MAX_QUERIES = 100_000


def bootstrap_power(diffs: np.ndarray, delta: float, n: int, *, alpha: float = 0.05,
                    n_resamples: int = 2000, seed: int | None = 0) -> float:
    """Power of the two-sided paired t-test at ``n`` queries when the true mean difference
    is ``delta``, by resampling the recentred pilot differences ``diffs``."""
    d = np.asarray(diffs, dtype=np.float64)
    d = d[~np.isnan(d)]
    if len(d) < 2:
        raise ValueError("need per-query values of at least 2 judged queries")
    if n < 2:
        return 0.0
    shifted = d - d.mean() + float(delta)
    rng = np.random.default_rng(seed)
    crit = scipy.stats.t.ppf(1 - alpha / 2, n - 1)
    hits, left = 0, n_resamples
    block = max(1, (1 << 22) // n)  # bounded memory: at most ~4M values per block
    while left:
        size = min(block, left)
        sample = shifted[rng.integers(0, len(shifted), size=(size, n))]
        mean, sd = sample.mean(axis=1), sample.std(axis=1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(sd > 0, mean / (sd / np.sqrt(n)), np.sign(mean) * np.inf)
        hits += int(np.count_nonzero(np.abs(t) > crit))
        left -= size
    return hits / n_resamples


def queries_needed(a: Sequence[float], b: Sequence[float], delta: float, *,
                   power: float = 0.8, alpha: float = 0.05, n_resamples: int = 2000,
                   seed: int | None = 0) -> int:
    """The smallest number of judged queries at which a true difference ``delta`` between
    systems ``a`` and ``b`` (per-query pilot values, same queries, same order) is found
    with probability ``power`` (two-sided paired t-test at ``alpha``); see the module
    docstring. ``MAX_QUERIES`` + 1 when not even that many would do."""
    if delta == 0:
        raise ValueError("delta must be nonzero")
    if not 0 < power < 1:
        raise ValueError(f"power must be in (0, 1), got {power}")
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)

    def ok(n: int) -> bool:
        return bootstrap_power(d, delta, n, alpha=alpha, n_resamples=n_resamples,
                               seed=seed) >= power

    lo, hi = 1, 2
    while not ok(hi):
        lo, hi = hi, hi * 2
        if hi > MAX_QUERIES:
            return MAX_QUERIES + 1
    while hi - lo > 1:  # power grows with n: bisect between the last failure and success
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def queries_needed_table(a: Sequence[float], b: Sequence[float],
                         deltas: Sequence[float] = (0.02, 0.05, 0.1, 0.2), *,
                         power: float = 0.8, alpha: float = 0.05, n_resamples: int = 2000,
                         seed: int | None = 0) -> pd.DataFrame:
    """:func:`queries_needed` for several differences: ``delta``, ``queries``, and the pilot's
    ``sd`` of the per-query differences and size ``pilot``."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    d = d[~np.isnan(d)]
    rows = [{"delta": float(x),
             "queries": queries_needed(a, b, x, power=power, alpha=alpha,
                                       n_resamples=n_resamples, seed=seed),
             "sd": float(d.std(ddof=1)) if len(d) > 1 else np.nan, "pilot": len(d)}
            for x in deltas]
    return pd.DataFrame(rows, columns=["delta", "queries", "sd", "pilot"])
