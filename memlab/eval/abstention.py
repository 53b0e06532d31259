"""Abstention: calibrate ``query.minScore`` so that memory search answers only when it should.

A query is *answerable* when the dataset judges some memory relevant to it; the other queries
(no relevant judgment, e.g. the sample's ``none`` tag) are *unanswerable*: the right answer is
no result. With ``minScore`` = t, OpenClaw's threshold (reference section 4, steps 5, 7, 10;
:mod:`memlab.kernels.threshold`) returns nothing exactly when no hit reaches t **and** its
relaxed fallback has nothing either:

* vector-only: no fallback, so a query abstains when its top score is below t;
* hybrid: the keyword hits are kept when nothing reaches t, so a query with any keyword hit
  never abstains, whatever t;
* keyword-only (``provider: "none"``): every hit scoring >= 0 is kept, so ``minScore`` never
  makes it abstain.

:func:`abstention_curve` applies that rule (the kernel's :func:`eligible`, not a copy) to the
hits of a run made at ``minScore`` 0 for every threshold where the outcome can change, and
reports, per threshold: answered queries, ``coverage`` (answered / all queries), ``precision``
(correct answered / answered; "correct" = answerable, or with ``correct="success@1"`` an
answerable query whose best hit is relevant), ``answerable_answered`` and
``unanswerable_abstained`` (shares of each group). :func:`calibrate_min_score` picks the
threshold that meets a target with the most coverage: precision >= p, or abstaining on at
least a share x of the unanswerable queries. The abstention AUC is
:func:`memlab.eval.experiment.abstention`'s (ROC AUC of the top score, answerable vs not).
:func:`calibrate` does it all for a dataset and a config; the result's
:meth:`Calibration.config_fragment` is ``{"memorySearch": {"query": {"minScore": t}}}``.

>>> import pandas as pd
>>> hits = pd.DataFrame({"qid": ["a", "b", "c"], "score": [0.9, 0.5, 0.4],
...                      "keyword_hit": [False, False, False]})
>>> per_query = pd.DataFrame({"qid": ["a", "b", "c", "d"], "judged": [True, False, True, False],
...                           "top_score": [0.9, 0.5, 0.4, float("nan")]})
>>> curve = abstention_curve(hits, per_query, relaxed=None)
>>> curve[["threshold", "answered"]].to_dict("list")
{'threshold': [0.0, 0.4, 0.5, 0.9], 'answered': [3, 3, 2, 1]}
>>> curve["precision"].round(3).tolist()
[0.667, 0.667, 0.5, 1.0]
>>> cal = calibrate_min_score(curve, target_precision=0.8, per_query=per_query)
>>> cal.min_score, cal.coverage, cal.config_fragment()
(0.9, 0.25, {'memorySearch': {'query': {'minScore': 0.9}}})
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from memlab.kernels.threshold import RELAXED, eligible

__all__ = ["CURVE_COLUMNS", "Calibration", "abstention_curve", "calibrate",
           "calibrate_min_score", "threshold_mode"]

CURVE_COLUMNS = ("threshold", "answered", "correct", "coverage", "precision",
                 "answerable_answered", "unanswerable_abstained")


def _correct_mask(per_query: pd.DataFrame, correct: str | None) -> np.ndarray:
    judged = per_query["judged"].to_numpy(dtype=bool)
    if correct is None:
        return judged
    if correct not in per_query.columns:
        raise ValueError(f"correct={correct!r}: the per-query table has no such metric column "
                         f"(it has {', '.join(map(str, per_query.columns))}); evaluate with "
                         f"that metric, e.g. metrics=['{correct}']")
    values = per_query[correct].to_numpy(dtype=np.float64)
    return judged & (np.nan_to_num(values) > 0)


def abstention_curve(hits: pd.DataFrame, per_query: pd.DataFrame, *,
                     relaxed: str | None = "keyword", correct: str | None = None,
                     thresholds: Any = None) -> pd.DataFrame:
    """Coverage and precision of answered queries for each candidate ``minScore``.

    ``hits``: a run at ``minScore`` 0 (columns ``qid``, ``score``, and ``keyword_hit`` for the
    hybrid fallback); ``per_query``: :func:`memlab.eval.experiment.evaluate`'s table with
    every query of the dataset (``qid``, ``judged``, and the ``correct`` metric if given);
    ``relaxed``: the threshold's fallback mode (:func:`threshold_mode` of the config).
    ``thresholds`` defaults to 0 and every distinct best-hit score in [0, 1] (where an
    outcome can change; ``minScore`` is 0..1). One row per threshold, ascending.
    """
    if relaxed not in RELAXED:
        raise ValueError(f"relaxed={relaxed!r}; use one of {RELAXED}")
    for col in ("qid", "judged"):
        if col not in per_query.columns:
            raise ValueError(f"per_query needs a {col!r} column (memlab.eval.evaluate's table)")
    qids = per_query["qid"].astype(str).to_numpy()
    answerable = per_query["judged"].to_numpy(dtype=bool)
    correct_mask = _correct_mask(per_query, correct)
    frame = hits.assign(qid=hits["qid"].astype(str))
    groups = frame.groupby("qid", sort=False).indices
    scores = frame["score"].to_numpy(dtype=np.float64)
    keyword = (frame["keyword_hit"].to_numpy(dtype=bool) if "keyword_hit" in frame.columns
               else np.zeros(len(frame), dtype=bool))
    if thresholds is None:
        tops = np.array([scores[groups[q]].max() for q in qids if q in groups])
        tops = tops[np.isfinite(tops)]
        thresholds = np.unique(np.r_[0.0, np.clip(tops, 0.0, 1.0)])
    thresholds = np.sort(np.asarray(thresholds, dtype=np.float64).ravel())
    answered = np.zeros((len(thresholds), len(qids)), dtype=bool)
    for j, q in enumerate(qids):
        idx = groups.get(q)
        if idx is None or not len(idx):
            continue  # no hits at all: the query abstains at every threshold
        mask = eligible(scores[idx][None, :], keyword[idx][None, :], thresholds[:, None],
                        relaxed)
        answered[:, j] = np.asarray(mask).any(axis=1)
    n_answered = answered.sum(axis=1)
    n_correct = (answered & correct_mask).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(n_answered > 0, n_correct / np.maximum(n_answered, 1), np.nan)
    n_ans, n_un = int(answerable.sum()), int((~answerable).sum())
    return pd.DataFrame({
        "threshold": thresholds,
        "answered": n_answered,
        "correct": n_correct,
        "coverage": n_answered / max(len(qids), 1),
        "precision": precision,
        "answerable_answered": ((answered & answerable).sum(axis=1) / n_ans if n_ans
                                else np.full(len(thresholds), np.nan)),
        "unanswerable_abstained": ((~answered & ~answerable).sum(axis=1) / n_un if n_un
                                   else np.full(len(thresholds), np.nan)),
    }, columns=list(CURVE_COLUMNS))


@dataclass(repr=False)
class Calibration:
    """A calibrated ``minScore`` with what it achieves on the calibration queries.

    ``target`` names the goal (``{"precision": p}`` or ``{"unanswerable_abstained": x}``);
    ``auc`` is the abstention ROC AUC of the top score (NaN without both groups); ``curve``
    is the whole :func:`abstention_curve`."""

    min_score: float
    target: dict[str, float]
    precision: float
    coverage: float
    answerable_answered: float
    unanswerable_abstained: float
    auc: float
    relaxed: str | None
    n_answerable: int
    n_unanswerable: int
    curve: pd.DataFrame = field(default_factory=pd.DataFrame)

    def config_fragment(self) -> dict[str, Any]:
        """The OpenClaw config part to export: ``{"memorySearch": {"query": {"minScore": t}}}``."""
        return {"memorySearch": {"query": {"minScore": float(self.min_score)}}}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (without the curve)."""
        return {"minScore": float(self.min_score), "target": dict(self.target),
                "precision": self.precision, "coverage": self.coverage,
                "answerable_answered": self.answerable_answered,
                "unanswerable_abstained": self.unanswerable_abstained, "auc": self.auc,
                "relaxed": self.relaxed, "answerable": self.n_answerable,
                "unanswerable": self.n_unanswerable}

    def __repr__(self) -> str:
        goal = ", ".join(f"{k} >= {v:g}" for k, v in self.target.items())
        return (f"Calibration(minScore={self.min_score:.4f} for {goal}: precision "
                f"{self.precision:.3f}, coverage {self.coverage:.3f}, unanswerable abstained "
                f"{self.unanswerable_abstained:.3f}, AUC {self.auc:.3f}; "
                f"{self.n_answerable} answerable, {self.n_unanswerable} unanswerable)")


def calibrate_min_score(curve: pd.DataFrame, *, target_precision: float | None = None,
                        abstain_unanswerable: float | None = None,
                        per_query: pd.DataFrame | None = None,
                        relaxed: str | None = "keyword") -> Calibration:
    """The threshold of ``curve`` that meets the target with the most coverage (the lowest
    such threshold on ties): precision of answered queries >= ``target_precision``, or a
    share >= ``abstain_unanswerable`` (0..1) of the unanswerable queries abstained. Give
    exactly one. ``per_query`` (with ``top_score``) adds the abstention AUC.

    Raises :class:`ValueError` when no threshold meets the target, naming the best one.
    """
    if (target_precision is None) == (abstain_unanswerable is None):
        raise ValueError("give exactly one of target_precision and abstain_unanswerable")
    column, goal = (("precision", target_precision) if target_precision is not None
                    else ("unanswerable_abstained", abstain_unanswerable))
    goal = float(goal)
    if not 0.0 <= goal <= 1.0:
        raise ValueError(f"{column} target must be in [0, 1], got {goal}")
    values = curve[column].to_numpy(dtype=np.float64)
    ok = np.flatnonzero(np.nan_to_num(values, nan=-1.0) >= goal)
    if not len(ok):
        best = int(np.nanargmax(values)) if np.isfinite(values).any() else None
        best_text = ("no threshold answers any query" if best is None else
                     f"the best is {values[best]:.3f} at minScore "
                     f"{curve['threshold'].iloc[best]:.4f}")
        why = ("; in this mode OpenClaw's fallback keeps hits below minScore "
               f"(relaxed={relaxed!r}), so raising it cannot make those queries abstain"
               if relaxed is not None else "")
        raise ValueError(f"no minScore in [0, 1] reaches {column} >= {goal:g}: {best_text}"
                         f"{why}")
    coverage = curve["coverage"].to_numpy(dtype=np.float64)[ok]
    row = curve.iloc[ok[np.flatnonzero(coverage == coverage.max())[0]]]
    auc = float("nan")
    if per_query is not None and "top_score" in per_query.columns:
        from memlab.eval.experiment import abstention

        auc = float(abstention(per_query)["auc"].iloc[0])
    n_ans = n_un = 0
    if per_query is not None:
        n_ans = int(per_query["judged"].sum())
        n_un = len(per_query) - n_ans
    return Calibration(min_score=float(row["threshold"]), target={column: goal},
                       precision=float(row["precision"]), coverage=float(row["coverage"]),
                       answerable_answered=float(row["answerable_answered"]),
                       unanswerable_abstained=float(row["unanswerable_abstained"]),
                       auc=auc, relaxed=relaxed, n_answerable=n_ans, n_unanswerable=n_un,
                       curve=curve)


def threshold_mode(config: Any) -> str | None:
    """The relaxed fallback of the threshold OpenClaw's pipeline runs for ``config``
    (``"keyword"`` hybrid, ``"zero"`` keyword-only, ``None`` vector-only), read from the
    pipeline :func:`memlab.openclaw.openclaw_pipeline` builds (on a one-chunk corpus).

    >>> threshold_mode({"memorySearch": {"provider": "none"}})
    'zero'
    >>> threshold_mode({"memorySearch": {"query": {"hybrid": {"enabled": False}}}})
    """
    from memlab.config import MemlabConfig, load_config
    from memlab.corpus import Corpus
    from memlab.embed.hashing import HashingProvider
    from memlab.openclaw import openclaw_pipeline
    from memlab.stages.threshold import Threshold

    cfg = config if isinstance(config, MemlabConfig) else load_config(dict(config))
    embedder = None if cfg.memory_search.resolved_provider() == "none" else HashingProvider(8)
    pipe = openclaw_pipeline(Corpus.from_texts(["probe"]), cfg, embedder)
    found = _find(pipe, Threshold)
    if found is None:
        raise RuntimeError("openclaw_pipeline built no Threshold stage")
    return found.relaxed


def _find(stage: Any, kind: type) -> Any:
    if isinstance(stage, kind):
        return stage
    children = list(getattr(stage, "stages", None) or [])
    inner = getattr(stage, "stage", None)
    if inner is not None:
        children.append(inner)
    for child in children:
        found = _find(child, kind)
        if found is not None:
            return found
    return None


def calibrate(dataset: Any, config: Any = "hybrid", *, target_precision: float | None = None,
              abstain_unanswerable: float | None = None, correct: str | None = None,
              depth: int = 10, embedders: dict[str, Any] | None = None) -> Calibration:
    """Calibrate ``minScore`` of ``config`` (a built-in system name, a config file or object)
    on ``dataset`` (a memory or BEIR dataset, or its folder) for one target.

    The run is made at ``minScore`` 0 and ``depth`` hits per query; see the module docstring.
    ``embedders`` is :func:`memlab.eval.systems.run_system`'s store of embedders (reuse one
    across calls to embed the corpus once).

    >>> from memlab.eval.datasets import load_dataset  # doctest: +SKIP
    >>> cal = calibrate(load_dataset("datasets/sample-memory"), "vector",
    ...                 target_precision=0.95)  # doctest: +SKIP
    >>> cal.config_fragment()  # doctest: +SKIP
    {'memorySearch': {'query': {'minScore': 0.41...}}}
    """
    from memlab.eval.experiment import evaluate
    from memlab.eval.systems import resolve_system, run_system

    if isinstance(dataset, str) or hasattr(dataset, "__fspath__"):
        from memlab.eval.datasets import load_dataset

        dataset = load_dataset(dataset)
    _, cfg = resolve_system(config)
    hits = run_system(dataset, cfg, depth=depth, embedders=embedders)
    metrics = [correct] if correct is not None else ["ndcg@10"]
    per_query = evaluate(hits, dataset.qrels, metrics, queries=dataset.queries,
                         level=getattr(dataset, "level", "span")).per_query
    relaxed = threshold_mode(cfg)
    curve = abstention_curve(hits, per_query, relaxed=relaxed, correct=correct)
    return calibrate_min_score(curve, target_precision=target_precision,
                               abstain_unanswerable=abstain_unanswerable,
                               per_query=per_query, relaxed=relaxed)
