"""Thresholds: OpenClaw's ``minScore`` / ``maxResults`` cut (reference, section 4 steps 5, 7, 10).

The rule is :mod:`memlab.kernels.threshold`. ``relaxed`` picks what happens when no hit
reaches ``min_score``:

* ``"keyword"`` (hybrid mode): fall back to the hits that were keyword hits with score >= 0;
* ``"zero"`` (keyword-only mode): keep every hit with score >= 0;
* ``None`` (vector-only mode): nothing, the result is empty.

Then the first ``max_results`` hits are kept, in their current order.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from memlab.frames import Query, QueryHits
from memlab.kernels.tail import Cut
from memlab.kernels.threshold import RELAXED, eligible, keep_first
from memlab.pipeline import Stage

__all__ = ["RELAXED", "Threshold"]


class Threshold(Stage):
    """Keep hits scoring at least ``min_score`` (with OpenClaw's fallbacks), at most
    ``max_results`` per query.

    >>> Threshold(min_score=0.35, max_results=6)
    Threshold()
    """

    def __init__(self, min_score: float = 0.35, max_results: int = 6,
                 relaxed: str | None = "keyword"):
        self.min_score = min_score
        self.max_results = max_results
        self.relaxed = relaxed

    def validate(self) -> None:
        """Raise ``ValueError`` for unsupported parameters."""
        if self.relaxed not in RELAXED:
            raise ValueError(f"relaxed={self.relaxed!r} is not supported; use one of {RELAXED}")
        if int(self.max_results) < 1:
            raise ValueError(f"max_results must be >= 1, got {self.max_results!r}")

    def eligible_query(self, hits: QueryHits) -> tuple[np.ndarray, int]:
        """``(mask, max_results)``: the hits the cut may keep, whatever their order (it
        keeps the first ``max_results`` of them in rank order)."""
        self.validate()
        return (eligible(hits.score, hits.keyword_hit, float(self.min_score), self.relaxed),
                int(self.max_results))

    def tail_step(self, query: Query) -> Cut:
        """This stage as the last step of :mod:`memlab.kernels.tail`."""
        self.validate()
        return Cut(float(self.min_score), self.relaxed, int(self.max_results))

    def transform_query(self, query: Query, hits: QueryHits | None = None) -> QueryHits:
        """One query's cut, on arrays (:meth:`transform`)."""
        mask, n = self.eligible_query(hits)
        return hits.take(np.flatnonzero(keep_first(mask, n)))

    def transform(self, hits: pd.DataFrame) -> pd.DataFrame:
        self.validate()
        if hits.empty:
            return hits
        keep = np.zeros(len(hits), dtype=bool)
        scores = hits["score"].to_numpy(dtype=np.float64)
        keyword = (hits["keyword_hit"].to_numpy(dtype=bool) if "keyword_hit" in hits
                   else np.zeros(len(hits), dtype=bool))
        for _, idx in hits.groupby("qid", sort=False).indices.items():
            mask = eligible(scores[idx], keyword[idx], float(self.min_score), self.relaxed)
            keep[idx] = keep_first(mask, int(self.max_results))
        out = hits[keep].copy()
        out["rank"] = out.groupby("qid", sort=False).cumcount() + 1
        return out.reset_index(drop=True)
