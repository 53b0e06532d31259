"""Fusion: merge the vector leg and the keyword leg into one ranking.

The math is :mod:`memlab.kernels.fusion` (``method="openclaw"`` is OpenClaw's
``mergeHybridResults``: each leg cut to its top ``candidates`` hits by
:func:`memlab.kernels.cut.leg_cut`, the union by chunk, ``vector_weight * vector_score +
text_weight * text_score`` with OpenClaw's weight normalisation; ``"rrf"``, ``"minmax"`` and
``"zscore"`` are memlab's research methods on the same union). The merge uses the keyword
leg's ``text_score`` (FTS5's ``r / (1 + r)``), not its boosted score.

With only one leg the stage reproduces OpenClaw's single-leg modes: keyword only (provider
``none``) ranks by the keyword leg's ``boosted_score``; vector only (hybrid disabled) ranks by
cosine. Either way every hit keeps its ``vector_score`` and ``text_score`` as diagnostics.

>>> from memlab.corpus import Corpus  # doctest: +SKIP
>>> Fusion(vector=vector_leg, text=bm25_leg, vector_weight=0.6, text_weight=0.4)  # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from memlab.frames import Query, QueryHits
from memlab.kernels.backend import resolve_backend
from memlab.kernels.cut import leg_cut_rows
from memlab.kernels.fusion import METHODS, fuse_scores, normalize_weights, union
from memlab.kernels.tail import STEP_ORDER, ranked_tail
from memlab.pipeline import Stage, run_query

__all__ = ["METHODS", "Fusion", "normalize_weights"]


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

    def validate(self) -> None:
        """Raise ``ValueError`` for unsupported parameters."""
        if self.vector is None and self.text is None:
            raise ValueError("Fusion needs at least one leg: pass vector=... and/or text=...")
        if self.method not in METHODS:
            raise ValueError(f"method={self.method!r} is not supported; use one of {METHODS}")
        if int(self.candidates) < 1:
            raise ValueError(f"candidates must be >= 1, got {self.candidates!r}")
        if self.rrf_k < 0:
            raise ValueError(f"rrf_k must be >= 0, got {self.rrf_k!r}")

    # -- arrays ------------------------------------------------------------------------------
    def transform_query(self, query: Query, hits: QueryHits | None = None) -> QueryHits:
        """One query: both legs on arrays, cut, merged (the array form of :meth:`transform`)."""
        return self.merge(*self._legs(query))

    def _legs(self, query: Query) -> tuple[QueryHits | None, QueryHits | None]:
        """Both legs' hits of one query (not yet cut), asked for ``candidates`` each."""
        self.validate()
        legs = query.replace(limit=int(self.candidates), cut=None, boost=self.vector is None)
        vec = run_query(self.vector, legs) if self.vector is not None else None
        txt = run_query(self.text, legs) if self.text is not None else None
        return vec, txt

    def _cut(self, vector: QueryHits | None, text: QueryHits | None
             ) -> tuple[QueryHits | None, QueryHits | None, np.ndarray | None,
                        np.ndarray | None]:
        """The legs cut to the hits that enter the merge (:func:`leg_cut_rows`), and the
        rows each kept (``None``: all)."""
        k = int(self.candidates)
        vrows = trows = None
        if vector is not None:
            vrows = leg_cut_rows(len(vector.docno), k)
            if vrows is not None:
                vector = vector.take(vrows)
        if text is not None:
            trows = leg_cut_rows(len(text.docno), k, text.fallback)
            if trows is not None:
                text = text.take(trows)
        return vector, text, vrows, trows

    def absorb_query(self, query: Query, hits: QueryHits | None, following: list[Stage]
                     ) -> tuple[QueryHits, int] | None:
        """One query's merge and the stages right after it that declare a step of
        :mod:`memlab.kernels.tail` (``tail_step(query)``: temporal decay, MMR, the cut, in
        that order), in one compiled call (:class:`~memlab.pipeline.Absorbs`). Only for
        OpenClaw's method with both legs, when the kernels run on numba (``"auto"``); the
        hits equal those of :meth:`transform_query` and those stages one by one."""
        if (self.method != "openclaw" or self.vector is None or self.text is None
                or hits is not None or resolve_backend("auto") != "numba"):
            return None
        steps: list = []
        for stage in following:
            declare = getattr(stage, "tail_step", None)
            step = declare(query) if declare is not None else None
            if step is None or (steps and STEP_ORDER.index(type(step))
                                <= STEP_ORDER.index(type(steps[-1]))):
                break
            steps.append(step)
        if not steps:
            return None
        vector, text, _, _ = self._cut(*self._legs(query))
        text_score = text.text_score if text.text_score is not None else text.score
        ranked = None
        if vector.score.dtype == np.float64 and text_score.dtype == np.float64:
            ranked = ranked_tail(vector.docno, vector.score, text.docno, text_score,
                                 normalize_weights(self.vector_weight, self.text_weight),
                                 steps)
        if ranked is None:  # float32 scores or a NaN: the stages rank them (a cut leg
            return self.merge(vector, text), 0  # is its own cut)
        boosted = None
        if text.boosted_score is not None:
            has = ranked.text_pos >= 0
            boosted = np.full(len(has), np.nan)
            boosted[has] = text.boosted_score[ranked.text_pos[has]]
        return QueryHits(ranked.docno, ranked.score, ranked.vector_score, ranked.text_score,
                         ranked.keyword_hit, boosted), len(steps)

    def merge(self, vector: QueryHits | None, text: QueryHits | None) -> QueryHits:
        """One query's leg hits (in rank order, not yet cut) merged and sorted by fused score
        (stably: ties keep vector hits first, in leg order)."""
        return self._merge(vector, text, sources=False)[0]

    def _merge(self, vector: QueryHits | None, text: QueryHits | None, sources: bool = True
               ) -> tuple[QueryHits, np.ndarray | None, np.ndarray | None]:
        """:meth:`merge` and, per merged hit, its row in each (uncut) leg (-1: absent);
        ``sources=False`` leaves the rows out (``None``, the single-query path)."""
        vector, text, vrows, trows = self._cut(vector, text)
        vsrc = tsrc = None
        if text is None:
            n = len(vector.docno)
            out = QueryHits(vector.docno, fuse_scores(self.method, 1.0, 0.0,
                                                      vector_score=vector.score),
                            vector.score, np.zeros(n), np.zeros(n, dtype=bool))
            if sources:
                vsrc = _rows(vrows, n)
                tsrc = np.full(n, -1, dtype=np.int64)
        elif vector is None:
            n = len(text.docno)
            ts_leg = text.text_score if text.text_score is not None else text.score
            # keyword only ranks by the boosted score (a leg without one: by its own score)
            ranking = text.boosted_score if text.boosted_score is not None else text.score
            out = QueryHits(text.docno, fuse_scores(self.method, 0.0, 1.0, text_score=ts_leg,
                                                    boosted_score=ranking),
                            np.zeros(n), ts_leg, np.ones(n, dtype=bool),
                            text.boosted_score, text.fallback)
            if sources:
                vsrc, tsrc = np.full(n, -1, dtype=np.int64), _rows(trows, n)
        else:
            out, vpos, tpos, in_t = self._hybrid(vector, text)
            if sources:
                vsrc = np.where(vpos >= 0, _rows(vrows, len(vector.docno))[vpos]
                                if len(vector.docno) else -1, -1)
                tsrc = np.where(in_t, _rows(trows, len(text.docno))[tpos]
                                if len(text.docno) else -1, -1)
        order = np.argsort(-out.score, kind="stable")
        out = out.take(order)
        if not sources:
            return out, None, None
        return out, np.asarray(vsrc)[order], np.asarray(tsrc)[order]

    def _hybrid(self, vector: QueryHits, text: QueryHits
                ) -> tuple[QueryHits, np.ndarray, np.ndarray, np.ndarray]:
        """Both (cut) legs merged, in :func:`union` order (not yet sorted), and each merged
        hit's ``vector_pos``, ``text_pos`` and keyword-hit mask."""
        ts_leg = text.text_score if text.text_score is not None else text.score
        docno, vpos, tpos = union(vector.docno, text.docno)
        nv, m = len(vector.docno), len(docno)
        in_t = tpos >= 0
        # union lists the vector hits first, in vector order: their scores are the leg's
        vs = np.zeros(m, dtype=np.result_type(vector.score, 0.0) if nv else np.float64)
        vs[:nv] = vector.score
        if len(text.docno):
            ts = np.where(in_t, ts_leg[tpos], 0.0)
        else:
            ts = np.zeros(m)
        wv, wt = normalize_weights(self.vector_weight, self.text_weight)
        if self.method == "openclaw":  # ranks are read only by the other methods
            score = fuse_scores(self.method, wv, wt, vector_score=vs, text_score=ts)
        else:
            score = fuse_scores(self.method, wv, wt, vector_score=vs, text_score=ts,
                                vector_rank=np.where(vpos >= 0, vpos + 1.0, np.nan),
                                text_rank=np.where(in_t, tpos + 1.0, np.nan),
                                rrf_k=float(self.rrf_k))
        boosted = None
        if text.boosted_score is not None:
            boosted = (np.where(in_t, text.boosted_score[tpos], np.nan) if len(text.docno)
                       else np.full(m, np.nan))
        out = QueryHits(docno, np.asarray(score, dtype=np.float64), vs, ts, in_t, boosted)
        return out, vpos, tpos, in_t

    # -- frames ------------------------------------------------------------------------------
    def transform(self, queries: pd.DataFrame) -> pd.DataFrame:
        self.validate()
        vec = self.vector.transform(queries) if self.vector is not None else None
        txt = self.text.transform(queries) if self.text is not None else None
        return self.fuse(vec, txt)

    def fuse(self, vec: pd.DataFrame | None, txt: pd.DataFrame | None) -> pd.DataFrame:
        """Merge retrieved leg hits of many queries (the cheap half of :meth:`transform`):
        per query, :meth:`merge` of the legs' arrays. Every output row keeps the columns of
        the leg row it came from (the vector leg's when both returned the chunk)."""
        self.validate()
        legs = [f.reset_index(drop=True) if f is not None else None for f in (vec, txt)]
        vec, txt = legs
        present = [f for f in legs if f is not None]
        qids = pd.unique(pd.concat([f["qid"] for f in present], ignore_index=True))
        vgroups = vec.groupby("qid", sort=False).indices if vec is not None else {}
        tgroups = txt.groupby("qid", sort=False).indices if txt is not None else {}
        varr = QueryHits.from_frame(vec) if vec is not None else None
        tarr = QueryHits.from_frame(txt) if txt is not None else None
        none = np.zeros(0, dtype=np.int64)
        outs, gv, gt = [], [], []
        for qid in qids:
            vr = vgroups.get(qid, none)
            tr = tgroups.get(qid, none)
            out, vsrc, tsrc = self._merge(varr.take(vr) if varr is not None else None,
                                          tarr.take(tr) if tarr is not None else None)
            outs.append(out)
            gv.append(np.where(vsrc >= 0, vr[np.maximum(vsrc, 0)] if len(vr) else -1, -1))
            gt.append(np.where(tsrc >= 0, tr[np.maximum(tsrc, 0)] if len(tr) else -1, -1))
        cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs  # noqa: E731
               else np.zeros(0, dtype=dt))
        gv, gt = cat(gv, np.int64), cat(gt, np.int64)
        from_v = gv >= 0
        pieces = []
        if vec is not None:
            pieces.append(vec.iloc[gv[from_v]].assign(_pos=np.flatnonzero(from_v)))
        if txt is not None:
            pieces.append(txt.iloc[gt[~from_v]].assign(_pos=np.flatnonzero(~from_v)))
        frame = pd.concat(pieces, ignore_index=True) if len(pieces) > 1 else pieces[0]
        frame = frame.sort_values("_pos", kind="stable").drop(columns="_pos")
        frame = frame.reset_index(drop=True)
        frame["score"] = cat([o.score for o in outs], np.float64)
        frame["vector_score"] = cat([o.vector_score for o in outs], np.float64)
        frame["text_score"] = cat([o.text_score for o in outs], np.float64)
        frame["keyword_hit"] = cat([o.keyword_hit for o in outs], bool)
        if vec is not None and txt is not None:
            frame["vector_rank"] = np.where(from_v, frame["rank"], np.nan)
            trank = txt["rank"].to_numpy(dtype=np.float64)
            frame["text_rank"] = np.where(gt >= 0, trank[np.maximum(gt, 0)] if len(txt)
                                          else np.nan, np.nan)
            if "boosted_score" in txt.columns:
                frame["boosted_score"] = cat([o.boosted_score for o in outs], np.float64)
        frame["rank"] = frame.groupby("qid", sort=False).cumcount() + 1
        return frame


def _rows(rows: np.ndarray | None, n: int) -> np.ndarray:
    """A leg's kept rows (``None``: all ``n``) as an array."""
    return np.arange(n, dtype=np.int64) if rows is None else rows
