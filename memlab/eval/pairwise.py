"""Paired comparisons beyond "each system against the baseline": against the best system,
against any named one, or all pairs, with one multiple-comparison correction over the family.

The per-query values come from a :class:`~memlab.eval.experiment.Comparison` (its
``per_query``) or, for sweeps, from a ``(queries, configurations)`` array; every test is
:func:`memlab.eval.stats.paired_tests` (bootstrap CI of the difference, paired t, Wilcoxon,
randomization), corrected across all the rows of one call (each test its own family).

>>> import numpy as np
>>> values = np.array([[0.2, 0.5, 0.4], [0.1, 0.6, 0.6], [0.3, 0.9, 0.5], [0.0, 0.7, 0.2]])
>>> table = paired_against(values, ["a", "b", "c"], against="best", n_resamples=500)
>>> table[["system", "reference", "delta"]].round(3).values.tolist()
[['a', 'b', -0.525], ['c', 'b', -0.25]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from memlab.eval.stats import correct, paired_tests

__all__ = ["AGAINST", "comparison_pairwise", "format_pairwise", "paired_against", "pairs_for"]

#: What :func:`pairs_for` compares with: the first system, the best, every pair (or a name).
AGAINST = ("baseline", "best", "all")
COLUMNS = ["metric", "system", "reference", "mean", "reference_mean", "delta", "ci_low",
           "ci_high", "wins", "losses", "ties", "p_t", "p_wilcoxon", "p_rand", "p_t_raw",
           "p_wilcoxon_raw", "p_rand_raw"]


def pairs_for(names: Sequence[str], means: Sequence[float], against: str = "baseline"
              ) -> list[tuple[int, int]]:
    """``(system, reference)`` index pairs: every system against the first (``"baseline"``),
    against the one with the highest mean (``"best"``; the first on ties), against a named
    system, or every unordered pair in order (``"all"``: ``(j, i)`` for ``i < j``).

    >>> pairs_for(["a", "b", "c"], [0.1, 0.3, 0.2], "best"), pairs_for("abc", [0, 0, 0], "all")
    ([(0, 1), (2, 1)], [(1, 0), (2, 0), (2, 1)])
    """
    names = [str(n) for n in names]
    if against == "all":
        return [(j, i) for i in range(len(names)) for j in range(i + 1, len(names))]
    if against == "baseline":
        ref = 0
    elif against == "best":
        finite = np.where(np.isnan(np.asarray(means, dtype=np.float64)), -np.inf, means)
        ref = int(np.argmax(finite))
    elif against in names:
        ref = names.index(against)
    else:
        raise ValueError(f"against must be one of {', '.join(AGAINST)} or a system name "
                         f"({', '.join(names)}), got {against!r}")
    return [(i, ref) for i in range(len(names)) if i != ref]


def paired_against(values: np.ndarray, names: Sequence[str], *, against: str = "baseline",
                   metric: str = "", correction: str = "holm", n_resamples: int = 10_000,
                   seed: int | None = 0, confidence: float = 0.95) -> pd.DataFrame:
    """Paired tests of the columns of ``values`` (``queries x systems``, one metric; rows
    with a NaN anywhere are dropped) for the pairs of :func:`pairs_for`, corrected with
    ``correction`` over those pairs. Columns: :data:`COLUMNS`."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2 or values.shape[1] != len(names):
        raise ValueError(f"values must be queries x {len(names)} systems, got {values.shape}")
    values = values[~np.isnan(values).any(axis=1)]
    means = values.mean(axis=0) if len(values) else np.full(len(names), np.nan)
    pairs = pairs_for(names, means, against)
    if not pairs:
        return pd.DataFrame(columns=COLUMNS)
    sys_idx = [i for i, _ in pairs]
    ref_idx = [r for _, r in pairs]
    tests = paired_tests(values[:, sys_idx], values[:, ref_idx], n_resamples=n_resamples,
                         seed=seed, confidence=confidence, correction=correction)
    tests.insert(0, "metric", metric)
    tests.insert(1, "system", [str(names[i]) for i in sys_idx])
    tests.insert(2, "reference", [str(names[r]) for r in ref_idx])
    tests.insert(3, "mean", means[sys_idx])
    tests.insert(4, "reference_mean", means[ref_idx])
    return tests[COLUMNS].reset_index(drop=True)


def comparison_pairwise(cmp: Any, against: str = "best", *, metrics: Sequence[str] | None = None,
                        correction: str = "holm", n_resamples: int | None = None,
                        seed: int | None = None) -> pd.DataFrame:
    """:func:`paired_against` for every metric of a
    :class:`~memlab.eval.experiment.Comparison` (defaults: its metrics, resamples and seed),
    the correction taken over all the rows (every metric and pair) at once."""
    metrics = list(metrics) if metrics is not None else list(cmp.metrics)
    names = list(cmp.table.index)
    parts = []
    for m in metrics:
        wide = cmp.per_query[cmp.per_query["metric"] == m].pivot_table(
            index="qid", columns="system", values="value", aggfunc="first")
        parts.append(paired_against(
            wide.reindex(columns=names).to_numpy(dtype=np.float64), names, against=against,
            metric=m, correction="none",
            n_resamples=cmp.n_resamples if n_resamples is None else n_resamples,
            seed=cmp.seed if seed is None else seed, confidence=cmp.confidence))
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=COLUMNS)
    for test in ("t", "wilcoxon", "rand"):
        frame[f"p_{test}"] = correct(frame[f"p_{test}_raw"].to_numpy(dtype=np.float64),
                                     correction)
    return frame


def format_pairwise(frame: pd.DataFrame, *, test: str = "rand", alpha: float = 0.05,
                    digits: int = 3, correction: str = "holm") -> str:
    """A Markdown table of :func:`paired_against` / :func:`comparison_pairwise` rows: the
    difference with its CI, W/L/T and the corrected p-value (``†`` below ``alpha``), with a
    legend line."""
    from memlab.eval.report import TESTS, markdown_table

    header = ["metric", "system", "vs", "mean", "Δ [CI]", "W/L/T", f"p ({test})"]
    rows = []
    for r in frame.itertuples(index=False):
        p = getattr(r, f"p_{test}")
        mark = "†" if p == p and p < alpha else ""
        rows.append([str(r.metric), str(r.system), str(r.reference), f"{r.mean:.{digits}f}",
                     f"{r.delta:+.{digits}f} [{r.ci_low:+.{digits}f}, {r.ci_high:+.{digits}f}]",
                     f"{r.wins}/{r.losses}/{r.ties}", f"{p:.4f}{mark}"])
    table = markdown_table(header, rows, "lllrrrr")
    legend = (f"Δ: system minus reference with its bootstrap CI; † p < {alpha}, "
              f"{TESTS[test]}, {correction}-corrected over {len(frame)} comparisons.")
    return f"{table}\n\n{legend}"
