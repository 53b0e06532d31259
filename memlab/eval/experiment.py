"""``evaluate`` and ``compare``: from hits and judgments to per-query and mean metrics.

>>> from memlab.eval import evaluate  # doctest: +SKIP
>>> per_query, means = evaluate(hits, dataset.qrels, ["ndcg@10", "recall@10"])  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from memlab.eval.metrics import metric_value, parse_metric
from memlab.eval.relevance import ideal_gains, span_gains

DEFAULT_METRICS = ("ndcg@10", "recall@10", "mrr@10")


def evaluate(hits: pd.DataFrame, qrels: pd.DataFrame, metrics: Sequence[str] = DEFAULT_METRICS,
             queries: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.Series]:
    """Score ``hits`` against span ``qrels``.

    Returns the per-query table (one row per judged query, a column per metric; queries with
    no hits score 0) and the means over judged queries. Queries in ``queries`` without any
    judgment are not averaged in; they appear in the per-query table with ``judged=False`` and
    their top score, for an abstention view.
    """
    for m in metrics:
        parse_metric(m)
    gains = span_gains(hits, qrels) if len(hits) else hits.assign(gain=pd.Series(dtype=int))
    ideal = ideal_gains(qrels)
    by_q = {q: g["gain"].to_numpy() for q, g in gains.groupby("qid", sort=False)}
    top = hits.groupby("qid", sort=False)["score"].max() if len(hits) else pd.Series(dtype=float)
    qids = list(queries["qid"]) if queries is not None else list(ideal)
    rows = []
    for qid in qids:
        row: dict[str, object] = {"qid": qid, "judged": qid in ideal,
                                  "top_score": float(top.get(qid, np.nan))}
        if qid in ideal:
            g = by_q.get(qid, np.zeros(0, dtype=np.int64))
            for m in metrics:
                row[m] = metric_value(m, g, ideal[qid])
        rows.append(row)
    table = pd.DataFrame(rows, columns=["qid", "judged", "top_score", *metrics])
    means = table.loc[table["judged"], list(metrics)].mean()
    return table, means


def compare(runs: Mapping[str, pd.DataFrame], qrels: pd.DataFrame,
            metrics: Sequence[str] = DEFAULT_METRICS,
            queries: pd.DataFrame | None = None) -> pd.DataFrame:
    """Mean metrics of several systems' hits, one row per system."""
    rows = {}
    for name, hits in runs.items():
        table, means = evaluate(hits, qrels, metrics, queries)
        rows[name] = {**means.to_dict(), "queries": int(table["judged"].sum())}
    return pd.DataFrame.from_dict(rows, orient="index")[[*metrics, "queries"]]
