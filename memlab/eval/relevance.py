"""Span-level relevance: turn a ranking of chunks into gains, independent of the chunking.

Walking a query's ranking top-down, a chunk earns the highest grade among the judged spans
(same path, overlapping line ranges) that no earlier chunk has earned; it consumes that one
span. Each span therefore counts once, and the ideal ranking is the spans sorted by grade.

>>> import pandas as pd
>>> hits = pd.DataFrame({"qid": ["q1"] * 3, "path": ["a.md"] * 3,
...                      "start_line": [1, 5, 1], "end_line": [4, 9, 9], "rank": [1, 2, 3]})
>>> qrels = pd.DataFrame({"qid": ["q1", "q1"], "path": ["a.md", "a.md"],
...                       "start_line": [3, 6], "end_line": [3, 6], "grade": [1, 2]})
>>> span_gains(hits, qrels)["gain"].tolist()
[1, 2, 0]
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def span_gains(hits: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """Add a ``gain`` column to ``hits`` (sorted by qid, rank) using span judgments."""
    hits = hits.sort_values(["qid", "rank"], kind="stable").reset_index(drop=True)
    gains = np.zeros(len(hits), dtype=np.int64)
    spans_by_q = {qid: g for qid, g in qrels.groupby("qid", sort=False)}
    for qid, idx in hits.groupby("qid", sort=False).indices.items():
        spans = spans_by_q.get(qid)
        if spans is None or spans.empty:
            continue
        s_path = spans["path"].to_numpy()
        s_start = spans["start_line"].to_numpy()
        s_end = spans["end_line"].to_numpy()
        s_grade = spans["grade"].to_numpy()
        free = np.ones(len(spans), dtype=bool)
        for i in idx:
            overlap = (free & (s_path == hits.at[i, "path"])
                       & (s_start <= hits.at[i, "end_line"]) & (s_end >= hits.at[i, "start_line"]))
            if overlap.any():
                cand = np.flatnonzero(overlap)
                best = cand[np.argmax(s_grade[cand])]
                gains[i] = s_grade[best]
                free[best] = False
    out = hits.copy()
    out["gain"] = gains
    return out


def ideal_gains(qrels: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per query, the judged grades sorted descending (the ideal ranking's gains)."""
    return {qid: np.sort(g["grade"].to_numpy())[::-1] for qid, g in qrels.groupby("qid")}
