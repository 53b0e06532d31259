"""Ranking metrics over gains, with trec_eval's definitions.

Each metric is ``name@k``: ``ndcg`` (linear gain = grade, ``1/log2(rank+1)`` discount, ideal =
all judged grades sorted), ``recall`` (relevant retrieved / relevant judged), ``mrr`` (1/rank
of the first relevant hit), ``map`` (sum of precision at each relevant rank / relevant
judged), ``p`` (relevant retrieved / k) and ``success`` (1 if any relevant hit in the top k).
``recall_any`` and ``recall_all`` are the agent-memory literature's names (LongMemEval,
LoCoMo): 1 if at least one / every judged unit (turn or session) is retrieved in the top k,
else 0; ``recall_any@k`` equals ``success@k``, ``recall_all@k`` is 1 exactly when ``recall@k`` is.

>>> import numpy as np
>>> round(metric_value("ndcg@3", np.array([0, 2, 1]), np.array([2, 1])), 4)
0.6697
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

METRICS = ("ndcg", "recall", "mrr", "map", "p", "success", "recall_any", "recall_all")
_SPEC = re.compile(r"^(ndcg|recall_any|recall_all|recall|mrr|map|p|success)@(\d+)$")


def parse_metric(spec: str) -> tuple[str, int]:
    """``"ndcg@10"`` → ``("ndcg", 10)``, with a clear error otherwise."""
    m = _SPEC.match(spec.strip().lower())
    if not m or int(m.group(2)) < 1:
        raise ValueError(f"unknown metric {spec!r}: use NAME@K with NAME in {METRICS} "
                         "and K >= 1, e.g. 'ndcg@10'")
    return m.group(1), int(m.group(2))


def metric_value(spec: str, gains: np.ndarray, ideal: np.ndarray) -> float:
    """One metric for one query: ``gains`` in rank order, ``ideal`` = judged grades.

    :func:`metric_arrays` of a single query (the one implementation of the metrics); raises
    ``ValueError`` for a query without a nonzero judged grade (where that gives NaN)."""
    gains = np.asarray(gains, dtype=np.float64)
    ideal = np.asarray(ideal, dtype=np.float64)
    value = metric_arrays([spec], 1, np.zeros(len(gains), dtype=np.int64), gains,
                          np.zeros(len(ideal), dtype=np.int64), ideal)[spec][0]
    if np.isnan(value):
        raise ValueError("metric undefined for a query without relevant judgments")
    return float(value)


def metric_arrays(metrics: Sequence[str], n_queries: int, qrow: np.ndarray, gains: np.ndarray,
                  ideal_qrow: np.ndarray, ideal: np.ndarray) -> dict[str, np.ndarray]:
    """The metrics of many queries at once, as array operations (the one implementation of
    the metrics: :func:`metric_value` is this for one query, :func:`memlab.eval.experiment
    .evaluate` calls it for a run, the sweep for each query's distinct ranked lists).

    ``qrow[i]`` is the query (``0 .. n_queries - 1``) of the ``i``-th ranked gain
    ``gains[i]``; each query's gains appear in rank order (not necessarily contiguously).
    ``ideal_qrow`` / ``ideal`` are every query's judged grades, in any order. Returns, per
    metric spec, an array of ``n_queries`` values: NaN for queries without a nonzero judged
    grade (where :func:`metric_value` raises), 0 for judged queries without gains.

    Sums run rank by rank, as trec_eval's do, so the results agree with trec_eval to the
    last bit or two.

    Hand-written because no array library computes trec_eval's measures over a ragged
    (query, rank) layout; pytrec_eval/ranx take nested dicts, whose construction alone costs
    more than this.

    >>> vals = metric_arrays(["ndcg@3", "mrr@10"], 2, np.array([0, 0, 0, 1]),
    ...                      np.array([0, 2, 1, 0]), np.array([0, 0, 1]), np.array([2, 1, 0]))
    >>> round(float(vals["ndcg@3"][0]), 4), float(vals["mrr@10"][0]), float(vals["mrr@10"][1])
    (0.6697, 0.5, nan)
    """
    specs = [(m, *parse_metric(m)) for m in metrics]
    n = int(n_queries)
    qrow = np.asarray(qrow, dtype=np.int64)
    gains = np.asarray(gains, dtype=np.float64)
    if len(qrow) and np.any(qrow[1:] < qrow[:-1]):
        order = np.argsort(qrow, kind="stable")  # keeps rank order inside each query
        qrow, gains = qrow[order], gains[order]
    counts = np.bincount(qrow, minlength=n)
    starts = np.cumsum(counts) - counts
    first = np.repeat(starts, counts)  # index of each entry's query's first entry
    pos = np.arange(len(qrow), dtype=np.int64) - first  # 0-based rank
    rel = gains > 0

    ideal_qrow = np.asarray(ideal_qrow, dtype=np.int64)
    ideal = np.asarray(ideal, dtype=np.float64)
    iorder = np.lexsort((-ideal, ideal_qrow))  # per query, grades descending
    ideal_qrow, ideal = ideal_qrow[iorder], ideal[iorder]
    icounts = np.bincount(ideal_qrow, minlength=n)
    ipos = np.arange(len(ideal), dtype=np.int64) - np.repeat(np.cumsum(icounts) - icounts,
                                                             icounts)
    n_rel = np.bincount(ideal_qrow, weights=ideal != 0, minlength=n)
    judged = n_rel > 0

    cache: dict[str, np.ndarray] = {}

    def memo(key: str, make: Any) -> np.ndarray:
        if key not in cache:
            cache[key] = make()
        return cache[key]

    out: dict[str, np.ndarray] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for spec, name, k in specs:
            in_k = pos < k
            hit = in_k & rel
            if name == "ndcg":
                disc = memo("disc", lambda: 1.0 / np.log2(pos + 2.0))
                dcg = np.bincount(qrow[in_k], weights=gains[in_k] * disc[in_k], minlength=n)
                ik = ipos < k
                idcg = np.bincount(ideal_qrow[ik], weights=ideal[ik] / np.log2(ipos[ik] + 2.0),
                                   minlength=n)
                value = dcg / idcg
            elif name == "mrr":
                at = np.flatnonzero(hit)
                q = qrow[at]
                lead = np.r_[True, q[1:] != q[:-1]] if len(q) else np.zeros(0, dtype=bool)
                value = np.zeros(n)
                value[q[lead]] = 1.0 / (pos[at[lead]] + 1)
            elif name == "map":
                cum = memo("cum", lambda: np.cumsum(rel) - np.concatenate(([0], np.cumsum(rel)))
                           [first])  # relevant hits up to and including each rank
                value = np.bincount(qrow[hit], weights=cum[hit] / (pos[hit] + 1),
                                    minlength=n) / n_rel
            else:
                found = np.bincount(qrow[hit], minlength=n).astype(np.float64)
                if name == "recall":
                    value = found / n_rel
                elif name == "p":
                    value = found / k
                elif name == "recall_all":
                    value = (found >= n_rel).astype(np.float64)
                else:  # success, recall_any
                    value = (found > 0).astype(np.float64)
            out[spec] = np.where(judged, value, np.nan)
    return out
