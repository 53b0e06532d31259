"""Bootstrap queries-needed: monotone in the difference, near the textbook formula."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from memlab.eval.power import bootstrap_power, queries_needed, queries_needed_table


def _pilot():
    rng = np.random.default_rng(3)
    return rng.uniform(0, 1, 60), rng.uniform(0, 1, 60)


def test_close_to_the_normal_formula():
    a, b = _pilot()
    sd = float(np.std(a - b, ddof=1))
    z = scipy.stats.norm.ppf(0.975) + scipy.stats.norm.ppf(0.8)
    expected = (z * sd / 0.1) ** 2
    n = queries_needed(a, b, 0.1, n_resamples=4000, seed=1)
    assert expected * 0.85 < n < expected * 1.2


def test_power_grows_and_table_is_monotone():
    a, b = _pilot()
    d = a - b
    assert bootstrap_power(d, 0.1, 20) < bootstrap_power(d, 0.1, 200)
    table = queries_needed_table(a, b, deltas=(0.05, 0.1, 0.2), n_resamples=1000)
    assert table["queries"].is_monotonic_decreasing
    assert table["pilot"].tolist() == [60, 60, 60]


def test_errors():
    with pytest.raises(ValueError, match="delta must be nonzero"):
        queries_needed([0.1, 0.2], [0.2, 0.1], 0)
    with pytest.raises(ValueError, match="at least 2"):
        bootstrap_power(np.array([0.1]), 0.1, 10)
