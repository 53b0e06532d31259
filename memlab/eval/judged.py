"""Judged and unjudged hits: the unjudged share of a run, and condensed-list evaluation.

Pooled labels (:class:`memlab.widgets.Assessor`) judge only what the pooled systems
retrieved, so a system outside the pool retrieves *unjudged* hits, which plain metrics count
as non-relevant. Two remedies (Sakai, SIGIR 2007):

- report the **unjudged share**: the fraction of retrieved hits that touch no judged span;
- evaluate the **condensed list**: drop the unjudged hits and rank the judged ones 1..n.

A hit is *judged* when it overlaps (same query and path, overlapping lines) a span of the
qrels (relevant, any grade) or a span the assessor looked at and left non-relevant; those
are kept in the dataset's ``judged.jsonl`` (:data:`JUDGED_FILE`, same fields as
``qrels.jsonl``, ``grade`` 0 or more). At document level (BEIR) a hit is judged when its
document has a judgment (of any grade, 0 included).

>>> import pandas as pd
>>> hits = pd.DataFrame({"qid": ["q"] * 3, "path": ["a.md"] * 3, "start_line": [1, 10, 20],
...                      "end_line": [5, 15, 25], "score": [3.0, 2.0, 1.0], "rank": [1, 2, 3]})
>>> judged = pd.DataFrame({"qid": ["q"], "path": ["a.md"], "start_line": [21],
...                        "end_line": [21]})
>>> judged_mask(hits, judged).tolist(), round(unjudged_share(hits, judged), 4)
([False, False, True], 0.6667)
>>> condense(hits, judged)[["start_line", "rank"]].values.tolist()
[[20, 1]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from memlab.eval.datasets import read_span_file
from memlab.eval.relevance import path_to_doc_id

#: Spans an assessor judged (any grade, 0 = looked at, not relevant), beside ``qrels.jsonl``.
JUDGED_FILE = "judged.jsonl"
SPAN_COLUMNS = ["qid", "path", "start_line", "end_line"]


def read_judged_file(path: str | Path) -> pd.DataFrame:
    """The spans of a ``judged.jsonl`` (``qid``, ``path``, ``start_line``, ``end_line``,
    ``grade``, 0 when absent: looked at, not relevant); an empty frame when the file does not
    exist (:func:`memlab.eval.datasets.read_span_file`)."""
    return read_span_file(path, default_grade=0)


def judged_spans(dataset: Any) -> pd.DataFrame:
    """Every judged span of a dataset: its qrels plus its ``judged.jsonl`` (if any).

    Span level: ``qid, path, start_line, end_line``; document level (a dataset whose qrels
    have ``doc_id``): ``qid, doc_id``.
    """
    qrels = dataset.qrels
    if "doc_id" in qrels.columns:
        return qrels[["qid", "doc_id"]].astype(str).drop_duplicates().reset_index(drop=True)
    extra = read_judged_file(Path(dataset.root) / JUDGED_FILE) if getattr(
        dataset, "root", None) is not None else pd.DataFrame(columns=SPAN_COLUMNS)
    frame = pd.concat([qrels[SPAN_COLUMNS], extra[SPAN_COLUMNS]], ignore_index=True)
    return frame.drop_duplicates().reset_index(drop=True)


def judged_mask(hits: pd.DataFrame, judged: pd.DataFrame) -> np.ndarray:
    """Per hit (in ``hits`` order), whether it overlaps a judged span of its query (span
    level) or its document is judged (``judged`` with ``doc_id``)."""
    if not len(hits):
        return np.zeros(0, dtype=bool)
    if "doc_id" in judged.columns:
        docs = (hits["doc_id"].astype(str) if "doc_id" in hits.columns
                else hits["path"].map(lambda p: path_to_doc_id(str(p))))
        keys = pd.MultiIndex.from_arrays([hits["qid"].astype(str), docs])
        known = pd.MultiIndex.from_frame(judged[["qid", "doc_id"]].astype(str))
        return np.asarray(keys.isin(known), dtype=bool)
    left = pd.DataFrame({"qid": hits["qid"].astype(str).to_numpy(),
                         "path": hits["path"].astype(str).to_numpy(),
                         "s": hits["start_line"].to_numpy(), "e": hits["end_line"].to_numpy(),
                         "row": np.arange(len(hits))})
    right = judged[SPAN_COLUMNS].astype({"qid": str, "path": str})
    pairs = left.merge(right, on=["qid", "path"])
    pairs = pairs[(pairs["start_line"] <= pairs["e"]) & (pairs["end_line"] >= pairs["s"])]
    mask = np.zeros(len(hits), dtype=bool)
    mask[pairs["row"].to_numpy()] = True
    return mask


def unjudged_share(hits: pd.DataFrame, judged: pd.DataFrame) -> float:
    """The share of ``hits`` (all of them, every query) that no judgment covers; NaN without
    hits."""
    mask = judged_mask(hits, judged)
    return float(1.0 - mask.mean()) if len(mask) else float("nan")


def condense(hits: pd.DataFrame, judged: pd.DataFrame) -> pd.DataFrame:
    """The condensed run: only the judged hits, re-ranked ``1..n`` per query in their order."""
    kept = hits.loc[judged_mask(hits, judged)]
    kept = kept.sort_values(["qid", "rank"], kind="stable").reset_index(drop=True)
    if len(kept):
        kept["rank"] = kept.groupby("qid", sort=False).cumcount() + 1
    return kept


def compare_runs(runs: Mapping[str, pd.DataFrame], dataset: Any,
                 metrics: Sequence[str] = ("ndcg@10", "recall@10", "mrr@10"), *,
                 condensed: bool = False, **options: Any) -> Any:
    """:func:`memlab.eval.experiment.compare` of ``runs`` (name → hits) on ``dataset``, with
    each run's unjudged share in ``options["unjudged_share"]`` (shown in the legend) and,
    with ``condensed=True``, condensed lists scored instead of the full runs. ``options``
    go to ``compare`` (``baseline``, ``by_tag``, ``n_resamples``, ...).

    >>> cmp = compare_runs({"keyword": hits}, dataset, ["ndcg@10"])  # doctest: +SKIP
    >>> cmp.options["unjudged_share"]  # doctest: +SKIP
    """
    from memlab.eval.experiment import compare

    judged = judged_spans(dataset)
    shares = {str(name): unjudged_share(hits, judged) for name, hits in runs.items()}
    if condensed:
        runs = {name: condense(hits, judged) for name, hits in runs.items()}
    result = compare(runs, dataset.qrels, metrics, queries=dataset.queries,
                     level=getattr(dataset, "level", "span"), **options)
    result.options.update(unjudged_share=shares, condensed=condensed)
    return result
