"""Fusion: merge the vector leg and the keyword leg into one ranking.

``method="openclaw"`` is OpenClaw's ``mergeHybridResults`` (reference, section 4 step 8):
each leg is cut to its top ``candidates`` hits, the union is taken by chunk (vector hits first
in vector order, then keyword-only hits in keyword order), a missing component counts 0, and

    score = vector_weight * vector_score + text_weight * text_score

with the weights clamped to [0, 1] and divided by their sum (a zero sum means 0.7/0.3). The
merge uses the keyword leg's ``text_score`` (FTS5's ``r / (1 + r)``), not its boosted score.

memlab's research methods use the same candidate pools:

* ``"rrf"``: reciprocal rank fusion, ``sum_leg w_leg / (rrf_k + rank_leg)``;
* ``"minmax"``: each leg's scores min-max normalised per query (missing = 0), weighted sum;
* ``"zscore"``: each leg's scores standardised per query (missing = the leg's lowest z),
  weighted sum.

With only one leg the stage reproduces OpenClaw's single-leg modes: keyword only (provider
``none``) ranks by the keyword leg's ``boosted_score``; vector only (hybrid disabled) ranks by
cosine. Either way every hit keeps its ``vector_score`` and ``text_score`` as diagnostics.

>>> from memlab.corpus import Corpus  # doctest: +SKIP
>>> Fusion(vector=vector_leg, text=bm25_leg, vector_weight=0.6, text_weight=0.4)  # doctest: +SKIP
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from memlab.frames import rerank
from memlab.pipeline import Stage

METHODS = ("openclaw", "rrf", "minmax", "zscore")


def normalize_weights(vector_weight: float, text_weight: float) -> tuple[float, float]:
    """OpenClaw's weight resolution: clamp each to [0, 1], divide by the sum; 0 → 0.7/0.3.

    >>> normalize_weights(2.0, 1.0)
    (0.5, 0.5)
    >>> normalize_weights(0, 0)
    (0.7, 0.3)
    """
    v = min(1.0, max(0.0, float(vector_weight)))
    t = min(1.0, max(0.0, float(text_weight)))
    total = v + t
    if total <= 0:
        return 0.7, 0.3
    return v / total, t / total


class Fusion(Stage):
    """Merge a vector leg and a keyword leg (either may be ``None``) into one ranking.

    Parameters
    ----------
    vector, text:
        Stages that take queries and return hits (typically wrapped in
        :class:`~memlab.pipeline.Cached`). ``vector`` must fill ``vector_score``; ``text``
        must fill ``text_score`` (and ``boosted_score`` for keyword-only mode).
    method:
        ``"openclaw"`` (default), ``"rrf"``, ``"minmax"`` or ``"zscore"``.
    vector_weight, text_weight:
        Raw weights; normalised as OpenClaw does.
    candidates:
        How many hits of each leg enter the merge (OpenClaw:
        ``min(200, max(1, floor(maxResults * candidateMultiplier)))``).
    rrf_k:
        The RRF constant.
    """

    def __init__(self, vector: Stage | None = None, text: Stage | None = None,
                 method: str = "openclaw", vector_weight: float = 0.7,
                 text_weight: float = 0.3, candidates: int = 24, rrf_k: float = 60.0):
        self.vector = vector
        self.text = text
        self.method = method
        self.vector_weight = vector_weight
        self.text_weight = text_weight
        self.candidates = candidates
        self.rrf_k = rrf_k

    def _validate(self) -> None:
        if self.vector is None and self.text is None:
            raise ValueError("Fusion needs at least one leg: pass vector=... and/or text=...")
        if self.method not in METHODS:
            raise ValueError(f"method={self.method!r} is not supported; use one of {METHODS}")
        if int(self.candidates) < 1:
            raise ValueError(f"candidates must be >= 1, got {self.candidates!r}")
        if self.rrf_k < 0:
            raise ValueError(f"rrf_k must be >= 0, got {self.rrf_k!r}")

    def fuse_one(self, vector: tuple[np.ndarray, np.ndarray] | None,
                 text: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None
                 ) -> FusedHits | None:
        """The array form of :meth:`fuse` for one query (the fast single-query path).

        ``vector``: ``(docnos, scores)`` of the vector leg, in rank order, already cut to
        ``candidates``; ``text``: ``(docnos, text_scores, boosted_scores, ranks)`` of the
        keyword leg, cut as :func:`_top` cuts (``boosted_scores``, the ranking score of the
        keyword-only mode, is only read without a vector leg). A leg that is not part of
        this fusion is ``None``. Returns ``None`` when the arrays cannot be merged exactly
        as the frames would be (``"minmax"``/``"zscore"``, or a leg listing a chunk twice):
        use :meth:`transform` then.
        """
        self._validate()
        if vector is not None and text is None:
            d, v = vector
            n = len(d)
            out = FusedHits(d, v, v, np.zeros(n), np.zeros(n, dtype=bool))
            return _apply(out, _stable_desc(v))
        if vector is None and text is not None:
            d, t, boosted, _ = text
            out = FusedHits(d, boosted, np.zeros(len(d)), t, np.ones(len(d), dtype=bool))
            return _apply(out, _stable_desc(boosted))
        if vector is None or text is None or self.method not in ("openclaw", "rrf"):
            return None
        vd, vs = vector
        td, ts, _, tr = text
        tpos = {d: i for i, d in enumerate(td.tolist())}
        vlist = vd.tolist()
        vset = set(vlist)
        if len(tpos) != len(td) or len(vset) != len(vd):
            return None
        idx = np.array([tpos.get(d, -1) for d in vlist], dtype=np.int64)
        found = idx >= 0
        idx = np.where(found, idx, 0)
        if not len(td):  # nothing to take from
            ts, tr = np.zeros(1), np.zeros(1, dtype=np.int64)
        extra = np.array([d not in vset for d in td.tolist()], dtype=bool)
        n_extra = int(extra.sum())
        docno = np.concatenate([vd, td[extra]])
        vscore = np.concatenate([vs, np.zeros(n_extra)])
        tscore = np.concatenate([np.where(found, ts[idx], 0.0), ts[:len(td)][extra]])
        trank = np.concatenate([np.where(found, tr[idx].astype(np.float64), np.nan),
                                tr[:len(td)][extra].astype(np.float64)])
        keyword = ~np.isnan(trank)
        wv, wt = normalize_weights(self.vector_weight, self.text_weight)
        if self.method == "openclaw":
            score = wv * vscore + wt * tscore
        else:
            k = float(self.rrf_k)
            vrank = np.concatenate([np.arange(1, len(vd) + 1, dtype=np.float64),
                                    np.full(n_extra, np.nan)])
            with np.errstate(invalid="ignore", divide="ignore"):
                rv = np.where(~np.isnan(vrank), 1.0 / (k + vrank), 0.0)
                rt = np.where(keyword, 1.0 / (k + trank), 0.0)
            score = wv * rv + wt * rt
        out = FusedHits(docno, score, vscore, tscore, keyword)
        return _apply(out, _stable_desc(score))

    def transform(self, queries: pd.DataFrame) -> pd.DataFrame:
        self._validate()
        k = int(self.candidates)
        vec = _top(self.vector.transform(queries), k) if self.vector is not None else None
        txt = _top(self.text.transform(queries), k) if self.text is not None else None
        return self.fuse(vec, txt)

    def fuse(self, vec: pd.DataFrame | None, txt: pd.DataFrame | None) -> pd.DataFrame:
        """Merge already-retrieved (and already cut) leg hits; the cheap half of transform."""
        if txt is None:
            out = vec.copy()
            out["vector_score"] = out["score"]
            out["text_score"] = 0.0
            out["keyword_hit"] = False
            return rerank(out)
        if vec is None:
            out = txt.copy()
            out["text_score"] = out.get("text_score", out["score"])
            out["vector_score"] = 0.0
            out["keyword_hit"] = True
            if "boosted_score" in out:
                out["score"] = out["boosted_score"]
            return rerank(out)
        merged = _union(vec, txt)
        wv, wt = normalize_weights(self.vector_weight, self.text_weight)
        if self.method == "openclaw":
            merged["score"] = wv * merged["vector_score"] + wt * merged["text_score"]
        elif self.method == "rrf":
            k = float(self.rrf_k)
            rv = np.where(merged["vector_rank"].notna(), 1.0 / (k + merged["vector_rank"]), 0.0)
            rt = np.where(merged["text_rank"].notna(), 1.0 / (k + merged["text_rank"]), 0.0)
            merged["score"] = wv * rv + wt * rt
        else:
            nv = _normalise(merged, "vector_score", "vector_rank", self.method)
            nt = _normalise(merged, "text_score", "text_rank", self.method)
            merged["score"] = wv * nv + wt * nt
        return rerank(merged)


class FusedHits(NamedTuple):
    """One query's merged hits in rank order (:meth:`Fusion.fuse_one`)."""

    docno: np.ndarray
    score: np.ndarray
    vector_score: np.ndarray
    text_score: np.ndarray
    keyword_hit: np.ndarray


def _stable_desc(scores: np.ndarray) -> np.ndarray:
    """Positions sorted by score descending, ties in their current order (as :func:`rerank`)."""
    return np.argsort(-scores, kind="stable")


def _top(hits: pd.DataFrame, k: int) -> pd.DataFrame:
    """A leg's first ``k`` hits. Hits of OpenClaw's keyword fallback are all kept: there the
    limit applies to each keyword's search, and the merged list (up to 6k) enters whole."""
    if not len(hits):
        return hits
    keep = hits["rank"].to_numpy() <= k
    if "fallback" in hits.columns:
        keep |= hits["fallback"].to_numpy(dtype=bool)
    return hits[keep]


def _union(vec: pd.DataFrame, txt: pd.DataFrame) -> pd.DataFrame:
    """Union by chunk: vector hits in vector order, then keyword-only hits in keyword order."""
    v = vec.rename(columns={"rank": "vector_rank"})
    v["vector_score"] = v["score"]
    t = txt[["qid", "docno", "rank", "text_score"]
            + [c for c in ("boosted_score",) if c in txt.columns]]
    t = t.rename(columns={"rank": "text_rank"})
    both = v.drop(columns=["score"]).merge(t, on=["qid", "docno"], how="left")
    extra = txt.merge(v[["qid", "docno"]], on=["qid", "docno"], how="left", indicator=True)
    extra = extra[extra["_merge"] == "left_only"].drop(columns=["_merge", "score"])
    extra = extra.rename(columns={"rank": "text_rank"})
    extra["vector_score"] = 0.0
    extra["vector_rank"] = np.nan
    # Stable order: all of one query's rows together, vector hits before keyword-only hits.
    merged = pd.concat([both, extra], ignore_index=True)
    merged["_leg"] = np.r_[np.zeros(len(both)), np.ones(len(extra))]
    codes, _ = pd.factorize(pd.concat([vec["qid"], txt["qid"]], ignore_index=True))
    qorder = dict(zip(pd.concat([vec["qid"], txt["qid"]]), codes, strict=False))
    merged["_q"] = merged["qid"].map(qorder)
    merged = merged.sort_values(["_q", "_leg"], kind="stable").drop(columns=["_q", "_leg"])
    merged["text_score"] = merged["text_score"].fillna(0.0).astype(float)
    merged["keyword_hit"] = merged["text_rank"].notna()
    merged["score"] = 0.0
    return merged.reset_index(drop=True)


def _apply(hits: FusedHits, order: np.ndarray) -> FusedHits:
    """``hits`` with every array permuted by ``order``."""
    return FusedHits(*(a[order] for a in hits))


def _normalise(merged: pd.DataFrame, col: str, rank_col: str, method: str) -> np.ndarray:
    present = merged[rank_col].notna().to_numpy()
    vals = merged[col].where(present)
    grouped = vals.groupby(merged["qid"], sort=False)
    if method == "minmax":
        lo, hi = grouped.transform("min"), grouped.transform("max")
        span = (hi - lo).to_numpy()
        norm = np.where(span > 0, (vals - lo).to_numpy() / np.where(span > 0, span, 1), 1.0)
        return np.where(present, norm, 0.0)
    mean, std = grouped.transform("mean"), grouped.transform("std", ddof=0)
    sd = std.to_numpy()
    z = np.where(sd > 0, (vals - mean).to_numpy() / np.where(sd > 0, sd, 1), 0.0)
    zmin = pd.Series(np.where(present, z, np.nan)).groupby(merged["qid"].to_numpy(),
                                                           sort=False).transform("min")
    return np.where(present, z, zmin.fillna(0.0).to_numpy())
