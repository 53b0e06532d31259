"""Ranking metrics over gains, with trec_eval's definitions.

Each metric is ``name@k``: ``ndcg`` (linear gain = grade, ``1/log2(rank+1)`` discount, ideal =
all judged grades sorted), ``recall`` (relevant retrieved / relevant judged), ``mrr`` (1/rank
of the first relevant hit), ``map`` (sum of precision at each relevant rank / relevant
judged), ``p`` (relevant retrieved / k) and ``success`` (1 if any relevant hit in the top k).

>>> import numpy as np
>>> round(metric_value("ndcg@3", np.array([0, 2, 1]), np.array([2, 1])), 4)
0.6697
"""

from __future__ import annotations

import re

import numpy as np

METRICS = ("ndcg", "recall", "mrr", "map", "p", "success")
_SPEC = re.compile(r"^(ndcg|recall|mrr|map|p|success)@(\d+)$")


def parse_metric(spec: str) -> tuple[str, int]:
    """``"ndcg@10"`` → ``("ndcg", 10)``, with a clear error otherwise."""
    m = _SPEC.match(spec.strip().lower())
    if not m or int(m.group(2)) < 1:
        raise ValueError(f"unknown metric {spec!r}: use NAME@K with NAME in {METRICS} "
                         "and K >= 1, e.g. 'ndcg@10'")
    return m.group(1), int(m.group(2))


def metric_value(spec: str, gains: np.ndarray, ideal: np.ndarray) -> float:
    """One metric for one query: ``gains`` in rank order, ``ideal`` = judged grades."""
    name, k = parse_metric(spec)
    top = np.asarray(gains[:k], dtype=np.float64)
    n_rel = int(np.count_nonzero(ideal))
    if n_rel == 0:
        raise ValueError("metric undefined for a query without relevant judgments")
    rel = top > 0
    if name == "ndcg":
        disc = 1.0 / np.log2(np.arange(2, len(top) + 2))
        ideal_top = np.sort(np.asarray(ideal, dtype=np.float64))[::-1][:k]
        idcg = float(np.sum(ideal_top / np.log2(np.arange(2, len(ideal_top) + 2))))
        return float(np.sum(top * disc)) / idcg
    if name == "recall":
        return float(rel.sum()) / n_rel
    if name == "mrr":
        hit = np.flatnonzero(rel)
        return 1.0 / (hit[0] + 1) if len(hit) else 0.0
    if name == "map":
        hit = np.flatnonzero(rel)
        return float(np.sum(np.arange(1, len(hit) + 1) / (hit + 1))) / n_rel
    if name == "p":
        return float(rel.sum()) / k
    return float(rel.any())
