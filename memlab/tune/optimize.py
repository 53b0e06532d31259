"""Tuning with honest scores: grid search or Optuna (TPE) inside k-fold cross-validation over
queries.

The judged queries are split into ``cv`` folds (shuffled with ``seed``). For each fold the
search (every grid point, or ``n_trials`` TPE trials) picks the configuration with the best
mean ``metric`` over the other folds' queries (*in-sample*); that configuration is scored on
the held-out fold (*out-of-sample*). Every query is held out exactly once, so the pooled
out-of-sample mean is a fair estimate of what the tuning procedure delivers; the gap between
in-sample and out-of-sample shows how much the search overfits a small query set.

The returned configuration is the search's choice on all queries; its reported score is the
cross-validated out-of-sample estimate (:attr:`TuneResult.out_of_fold` keeps each judged
query's held-out value). ``accept`` restricts the choice (e.g. to configurations
:func:`memlab.config.export_config` can write, as :mod:`memlab.tune.gate` does): the
grid search takes the best accepted point per fold, Optuna prunes the rejected trials.

The grid may carry the model pseudo-axis ``embedding`` (provider specs,
:mod:`memlab.tune.models`); each model's legs are computed once by the engine.

>>> result = tune("datasets/sample-memory", {"query.hybrid.vectorWeight": [0, 1]},
...               n_trials=30, cv=5)  # doctest: +SKIP
>>> result.overrides, result.out_of_sample, result.gap  # doctest: +SKIP
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from memlab.config import MemlabConfig
from memlab.eval.metrics import parse_metric
from memlab.tune.chunkings import CHUNKING_AXES, resolve_chunking
from memlab.tune.models import expand_overrides
from memlab.tune.sweep import SweepEngine, SweepError, expand_grid, normalize_axis

__all__ = ["TuneResult", "kfold", "search_space", "tune"]


@dataclass
class TuneResult:
    """What :func:`tune` returns."""

    overrides: dict[str, Any]
    config: MemlabConfig
    metric: str
    out_of_sample: float
    in_sample: float
    #: one row per fold: sizes, in-/out-of-sample means, the choice (``overrides``) and the
    #: held-out positions among the judged queries (``test_index``)
    folds: pd.DataFrame
    method: str
    cv: int
    trials: pd.DataFrame | None = field(default=None, repr=False)
    #: Each judged query's out-of-fold value (its fold's choice scored on it), in the order
    #: of :attr:`qids`.
    out_of_fold: np.ndarray | None = field(default=None, repr=False)
    qids: list[str] | None = field(default=None, repr=False)

    @property
    def gap(self) -> float:
        """In-sample minus out-of-sample mean (how optimistic the in-sample score is)."""
        return self.in_sample - self.out_of_sample

    def summary(self) -> str:
        return (f"best ({self.method}, {self.cv}-fold CV) {self.metric}: out-of-sample "
                f"{self.out_of_sample:.4f}, in-sample {self.in_sample:.4f}, gap "
                f"{self.gap:+.4f}\n  {self.overrides}")


def kfold(n: int, k: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """``k`` (train, test) index splits of ``range(n)``: scikit-learn's ``KFold`` shuffled
    with ``seed`` (deterministic; every index is held out exactly once).

    >>> [len(test) for _, test in kfold(11, 5)]
    [3, 2, 2, 2, 2]
    """
    from sklearn.model_selection import KFold

    if k < 2:
        raise ValueError(f"cross-validation needs at least 2 folds, got {k}")
    if k > n:
        raise ValueError(f"{k} folds need at least {k} judged queries, the dataset has {n}")
    splitter = KFold(n_splits=k, shuffle=True, random_state=seed)
    return [(np.asarray(train), np.asarray(test)) for train, test in splitter.split(np.zeros(n))]


def search_space(grid: Mapping[str, Sequence[Any]], continuous: bool = True
                 ) -> dict[str, tuple[str, Any]]:
    """Per axis: ``("int", (lo, hi))``, ``("float", (lo, hi))`` or ``("cat", values)``.

    Numeric axes with at least two values become ranges (``continuous``), the rest choices.
    The chunking axes (:data:`memlab.tune.chunkings.CHUNKING_AXES`) are always choices: each
    distinct chunking re-chunks and embeds the corpus, so TPE tries only the listed ones.

    >>> search_space({"query.minScore": [0.1, 0.5], "chunking.tokens": [200, 400]})
    {'query.minScore': ('float', (0.1, 0.5)), 'chunking.tokens': ('cat', [200, 400])}
    """
    space: dict[str, tuple[str, Any]] = {}
    if not grid:
        raise SweepError("the search space is empty: give at least one axis")
    for key, values in grid.items():
        name = normalize_axis(key)
        values = list(values) if not isinstance(values, (str, bytes)) else [values]
        if not values:
            raise SweepError(f"axis {name!r} has no values: give a non-empty list")
        numeric = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values)
        if continuous and numeric and len(set(values)) > 1 and name not in CHUNKING_AXES:
            if all(isinstance(v, numbers.Integral) for v in values):
                space[name] = ("int", (int(min(values)), int(max(values))))
            else:
                space[name] = ("float", (float(min(values)), float(max(values))))
        else:
            space[name] = ("cat", values)
    return space


def _suggest(trial: Any, space: Mapping[str, tuple[str, Any]]) -> dict[str, Any]:
    point: dict[str, Any] = {}
    for name, (kind, spec) in space.items():
        if kind == "int":
            point[name] = trial.suggest_int(name, *spec)
        elif kind == "float":
            point[name] = trial.suggest_float(name, *spec)
        else:
            point[name] = spec[trial.suggest_categorical(name, list(range(len(spec))))]
    if "query.hybrid.vectorWeight" in point and "query.hybrid.textWeight" not in point:
        point["query.hybrid.textWeight"] = 1 - point["query.hybrid.vectorWeight"]
    return point


class _Scorer:
    """Per-query metric values of configurations, memoised by override set."""

    def __init__(self, engine: SweepEngine, metric: str):
        self.engine = engine
        self.metric = metric
        self.judged = engine.judged_mask()
        self.memo: dict[str, np.ndarray] = {}

    def values(self, overrides: Mapping[str, Any]) -> np.ndarray:
        key = repr(sorted(overrides.items()))
        got = self.memo.get(key)
        if got is None:
            cfg = self.engine.base.with_overrides(expand_overrides(overrides))
            vals, _, _ = self.engine.evaluate_configs([cfg], [self.metric])
            got = vals[self.judged, 0, 0]
            self.memo[key] = got
        return got


def _optuna_search(scorer: _Scorer, space, train: np.ndarray | None, n_trials: int,
                   seed: int, accept: Callable[[Mapping[str, Any]], bool] | None = None
                   ) -> tuple[dict[str, Any], float, pd.DataFrame]:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=seed)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    points: dict[int, dict[str, Any]] = {}

    def objective(trial: Any) -> float:
        # "model-window" becomes the window, so trials and the choice carry OpenClaw's number
        point = resolve_chunking(_suggest(trial, space), scorer.engine.base)
        points[trial.number] = point
        if accept is not None and not accept(point):
            raise optuna.TrialPruned(f"not accepted: {point}")
        vals = scorer.values(point)
        return float(vals.mean() if train is None else vals[train].mean())

    study.optimize(objective, n_trials=n_trials)
    if not any(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials):
        raise SweepError(f"none of the {n_trials} trials was accepted; widen the search space "
                         "or raise the number of trials")
    best = study.best_trial
    trials = pd.DataFrame([{**points[t.number], "trial": t.number, "score": t.value}
                           for t in study.trials])
    return points[best.number], float(best.value), trials


def tune(dataset: Any, grid: Mapping[str, Sequence[Any]], base: Any = None, *,
         metric: str = "ndcg@10", n_trials: int | None = None, cv: int = 5, seed: int = 0,
         embedder: Any = None, engine: SweepEngine | None = None, continuous: bool = True,
         backend: Any = None, n_jobs: int = 1, progress: bool = False,
         accept: Callable[[Mapping[str, Any]], bool] | None = None) -> TuneResult:
    """Choose a configuration by grid search (``n_trials=None``) or Optuna TPE (``n_trials``
    trials) with ``cv``-fold cross-validation over the judged queries; see the module doc.

    ``accept(overrides) -> bool`` limits the choice to the points it accepts (asked once per
    point, best first, until one is accepted).

    >>> r = tune("datasets/sample-memory", {"query.hybrid.temporalDecay.enabled": [False, True]},
    ...          {"memorySearch": {"provider": "none"}}, cv=3)
    >>> r.method, len(r.folds), len(r.out_of_fold) == len(r.qids)
    ('grid', 3, True)
    """
    metric = metric.strip().lower()
    parse_metric(metric)
    if engine is None:
        with SweepEngine(dataset, base, embedder, backend=backend, n_jobs=n_jobs,
                         progress=progress) as own:
            return tune(dataset, grid, metric=metric, n_trials=n_trials, cv=cv, seed=seed,
                        engine=own, continuous=continuous, accept=accept)
    accepted = _Acceptance(accept)
    scorer = _Scorer(engine, metric)
    n_judged = int(scorer.judged.sum())
    splits = kfold(n_judged, cv, seed)
    rows = []
    oos = np.full(n_judged, np.nan)
    if n_trials is None:  # grid search: score every point once, select per fold
        overrides, configs = expand_grid(grid, engine.base)
        vals, _, _ = engine.evaluate_configs(configs, [metric])
        per_q = vals[scorer.judged, :, 0]  # judged queries x configs
        for fold, (train, test) in enumerate(splits):
            train_means = per_q[train].mean(axis=0)
            best = accepted.best(train_means, overrides)
            oos[test] = per_q[test, best]
            rows.append({"fold": fold, "train_queries": len(train), "test_queries": len(test),
                         "in_sample": float(train_means[best]),
                         "out_of_sample": float(per_q[test, best].mean()),
                         "overrides": overrides[best], "test_index": test.tolist()})
        best = accepted.best(per_q.mean(axis=0), overrides)
        chosen = overrides[best]
        trials = engine.table(overrides, configs, vals, [metric])
        method = "grid"
    else:
        if n_trials < 1:
            raise ValueError(f"n_trials must be >= 1, got {n_trials}")
        space = search_space(grid, continuous)
        for fold, (train, test) in enumerate(splits):
            point, score, _ = _optuna_search(scorer, space, train, n_trials, seed + fold,
                                             accept)
            test_vals = scorer.values(point)[test]
            oos[test] = test_vals
            rows.append({"fold": fold, "train_queries": len(train), "test_queries": len(test),
                         "in_sample": score, "out_of_sample": float(test_vals.mean()),
                         "overrides": point, "test_index": test.tolist()})
        chosen, _, trials = _optuna_search(scorer, space, None, n_trials, seed, accept)
        method = "optuna"
    folds = pd.DataFrame(rows)
    qids = [q for q, j in zip(engine.queries["qid"], scorer.judged, strict=True) if j]
    return TuneResult(overrides=dict(chosen),
                      config=engine.base.with_overrides(expand_overrides(chosen)),
                      metric=metric, out_of_sample=float(np.mean(oos)),
                      in_sample=float(folds["in_sample"].mean()), folds=folds, method=method,
                      cv=cv, trials=trials, out_of_fold=oos, qids=[str(q) for q in qids])


class _Acceptance:
    """``accept`` memoised per point, and the best accepted point of a score vector."""

    def __init__(self, accept: Callable[[Mapping[str, Any]], bool] | None):
        self.accept = accept
        self.memo: dict[int, bool] = {}

    def best(self, scores: np.ndarray, overrides: Sequence[Mapping[str, Any]]) -> int:
        """The position of the highest score whose point is accepted (ties: first)."""
        order = np.argsort(-scores, kind="stable")
        if self.accept is None:
            return int(order[0])
        for i in order.tolist():
            ok = self.memo.get(i)
            if ok is None:
                ok = self.memo[i] = bool(self.accept(overrides[i]))
            if ok:
                return int(i)
        raise SweepError(f"none of the {len(overrides)} grid points is accepted")
