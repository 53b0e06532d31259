"""Thresholds: OpenClaw's ``minScore`` / ``maxResults`` cut (reference, section 4 steps 5, 7, 10).

``relaxed`` picks what happens when no hit reaches ``min_score``:

* ``"keyword"`` (hybrid mode): if the keyword leg found anything, fall back to the merged hits
  that were keyword hits, keeping those >= ``min_score`` or else all of them with score >= 0;
* ``"zero"`` (keyword-only mode): keep every hit with score >= 0;
* ``None`` (vector-only mode): nothing, the result is empty.

Then the first ``max_results`` hits are kept, in their current order.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from memlab.pipeline import Stage

RELAXED = ("keyword", "zero", None)


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

    def select(self, scores: np.ndarray, keyword: np.ndarray) -> np.ndarray:
        """The keep mask of one query's hits (in rank order): the array form of
        :meth:`transform`."""
        return self._select(np.asarray(scores, dtype=np.float64), np.asarray(keyword, dtype=bool))

    def eligible(self, scores: np.ndarray, keyword: np.ndarray) -> np.ndarray:
        """The hits the cut may keep, whatever their order: :meth:`select` keeps the first
        ``max_results`` of them in rank order."""
        scores = np.asarray(scores, dtype=np.float64)
        keyword = np.asarray(keyword, dtype=bool)
        strict = scores >= self.min_score
        if strict.any() or self.relaxed is None:
            return strict
        if self.relaxed == "zero":
            return scores >= 0
        if not keyword.any():
            return strict
        pool_strict = keyword & strict
        return pool_strict if pool_strict.any() else keyword & (scores >= 0)

    def transform(self, hits: pd.DataFrame) -> pd.DataFrame:
        self.validate()
        if hits.empty:
            return hits
        keep = np.zeros(len(hits), dtype=bool)
        scores = hits["score"].to_numpy(dtype=np.float64)
        keyword = (hits["keyword_hit"].to_numpy(dtype=bool) if "keyword_hit" in hits
                   else np.zeros(len(hits), dtype=bool))
        for _, idx in hits.groupby("qid", sort=False).indices.items():
            keep[idx] = self._select(scores[idx], keyword[idx])
        out = hits[keep].copy()
        out["rank"] = out.groupby("qid", sort=False).cumcount() + 1
        return out.reset_index(drop=True)

    def _select(self, scores: np.ndarray, keyword: np.ndarray) -> np.ndarray:
        # nothing passed and there were no keyword hits: empty (all False)
        return _first(self.eligible(scores, keyword), self.max_results)


def _first(mask: np.ndarray, n: int) -> np.ndarray:
    """Keep only the first ``n`` True entries of ``mask``."""
    out = mask.copy()
    out[np.flatnonzero(mask)[int(n):]] = False
    return out
