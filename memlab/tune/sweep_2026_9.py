"""Sweeps and Optuna over what OpenClaw 2026.9 still lets a user change, on the 2026.9 profile.

The vectorised 2026.7 engine (:class:`memlab.tune.sweep.SweepEngine`) cannot express 2026.9's
ranking (path tiers, boosted fusion, always-on decay and MMR, the selection rule), so points
run on :class:`memlab.profiles.openclaw_2026_9.Search2026_9` itself, but each leg only once:

* the **leg axes** (``provider``, ``model``, ``store.fts.tokenizer``, ``sources``,
  ``experimental.sessionMemory``, ``outputDimensionality``, input types, ``memlab.*``) decide
  the index and the ranked candidates: the points sharing their values form a group, which
  indexes the workspace once (embeddings come from the embedding cache across groups) and
  ranks every query once (:meth:`Search2026_9.rank`);
* the **selection axes** ``query.minScore`` and ``query.maxResults`` only pick from those
  candidates (``selectHybridSearchResults`` and the cut): every point of a group is
  :meth:`Search2026_9.select` on the cached ranking, with no search.

Rankings are production ones (each point's own ``maxResults`` and ``minScore``). The results
frame has the axis columns, one column per metric and ``dataset``, so ``memlab export RESULTS
--schema 2026.9`` reads it. :func:`tune_2026_9` runs Optuna TPE over the same axes with the
same caches (a trial whose leg axes were seen costs a selection per query).

Importance annotations (the content lever) change the files, not the config: try them on a
copy of the workspace with :func:`memlab.tune.importance.importance_whatif`.

>>> from memlab.eval.datasets import load_dataset  # doctest: +SKIP
>>> sweep_2026_9(load_dataset("datasets/sample-memory"),
...              {"query.minScore": [0.2, 0.35], "store.fts.tokenizer": ["unicode61",
...               "trigram"]}, {"memory": {"search": {"provider": "none"}}})  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from memlab.config.schema_2026_9 import read_config

__all__ = ["SELECTION_AXES", "Ranker2026_9", "point_config", "sweep_2026_9", "tune_2026_9"]

#: Axes that only select from the ranked candidates (no new search).
SELECTION_AXES = ("query.minScore", "query.maxResults")


def point_config(base: Mapping[str, Any], point: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` (a whole 2026.9 config) with each ``key path -> value`` of ``point`` set under
    ``memory.search`` (or under ``memlab`` for ``memlab.`` keys), validated as 2026.9 does.

    >>> point_config({"memory": {"search": {"provider": "none"}}}, {"query.minScore": 0.2})
    {'memory': {'search': {'provider': 'none', 'query': {'minScore': 0.2}}}}
    """
    out = copy.deepcopy(dict(base))
    for key, value in point.items():
        parts = key.split(".")
        node = out.setdefault("memlab", {}) if parts[0] == "memlab" else \
            out.setdefault("memory", {}).setdefault("search", {})
        parts = parts[1:] if parts[0] == "memlab" else parts
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    read_config(out)  # a ConfigError names the key path of an invalid point
    return out


def _split(point: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    legs = {k: v for k, v in point.items() if k not in SELECTION_AXES}
    return legs, {k: v for k, v in point.items() if k in SELECTION_AXES}


class Ranker2026_9:
    """Rankings of a memory dataset on the 2026.9 profile, cached per leg-axes group.

    ``hits(point)`` returns the production hits (``qid, path, start_line, end_line, source,
    score, rank``) of one point; ``searches`` counts the :meth:`Search2026_9.rank` calls (one
    per query and group), ``selections`` the :meth:`Search2026_9.select` calls.

    >>> from memlab.eval.datasets import load_dataset  # doctest: +SKIP
    >>> r = Ranker2026_9(load_dataset("datasets/sample-memory"),
    ...                  {"memory": {"search": {"provider": "none"}}})  # doctest: +SKIP
    >>> len(r.hits({"query.maxResults": 3})) <= 3 * 124  # doctest: +SKIP
    True
    """

    def __init__(self, dataset: Any, base: Mapping[str, Any] | None = None, *,
                 embedder: Any = None, active_projects: Sequence[str] | None = None) -> None:
        self.dataset = dataset
        self.base = dict(base or {"memory": {"search": {"provider": "local"}}})
        self.embedder = embedder
        self.active_projects = active_projects
        self._groups: dict[str, tuple[Any, list[tuple[Any, dict[str, Any]]]]] = {}
        self.searches = 0
        self.selections = 0

    def _group(self, legs: Mapping[str, Any]) -> tuple[Any, list[tuple[Any, dict[str, Any]]]]:
        from memlab.profiles.openclaw_2026_9 import Search2026_9

        key = json.dumps(legs, sort_keys=True, default=str)
        if key not in self._groups:
            queries = self.dataset.queries
            nows = (queries["now"].fillna(queries["now"].max()) if "now" in queries.columns
                    else pd.Series([None] * len(queries), index=queries.index))
            search = Search2026_9(self.dataset.workspace, point_config(self.base, legs),
                                  index_path=":memory:", embedder=self.embedder)
            try:
                ranked = [(qid, search.rank(str(text), None if pd.isna(now) else now,
                                            self.active_projects))
                          for qid, text, now in zip(queries["qid"], queries["query"], nows,
                                                    strict=True)]
            finally:
                search.close()  # select() reads only the settings and the ranked entries
            self.searches += len(ranked)
            self._groups[key] = (search, ranked)
        return self._groups[key]

    def hits(self, point: Mapping[str, Any]) -> pd.DataFrame:
        """Production hits of ``point`` (key path -> value over the base config)."""
        legs, selection = _split(point)
        search, ranked = self._group(legs)
        # the resolved settings carry the clamped minScore and the default maxResults
        settings = read_config(point_config(self.base, point)).resolve(search.agent_id)
        rows = []
        for qid, r in ranked:
            self.selections += 1
            results = search.select(r, settings.max_results, settings.min_score)["results"]
            rows += [(qid, h["path"], h["startLine"], h["endLine"], h["source"],
                      float(h["score"]), rank) for rank, h in enumerate(results, 1)]
        return pd.DataFrame(rows, columns=["qid", "path", "start_line", "end_line", "source",
                                           "score", "rank"])

    def evaluate(self, point: Mapping[str, Any], metrics: Sequence[str]) -> dict[str, float]:
        """Each metric's mean over the judged queries for ``point``."""
        from memlab.eval.experiment import evaluate

        ev = evaluate(self.hits(point), self.dataset.qrels, list(metrics), self.dataset.queries,
                      level=getattr(self.dataset, "level", "span"))
        return {m: float(ev.means[m]) for m in metrics}


def sweep_2026_9(dataset: Any, grid: Mapping[str, Sequence[Any]],
                 base: Mapping[str, Any] | None = None, *,
                 metrics: Sequence[str] = ("ndcg@10", "recall@10", "mrr@10"),
                 ranker: Ranker2026_9 | None = None) -> pd.DataFrame:
    """One row per point of ``grid`` (key path -> values): the axes, each metric's mean over
    the judged queries, ``dataset``. Points are validated before anything runs."""
    ranker = ranker or Ranker2026_9(dataset, base)
    names = list(grid)
    points = [dict(zip(names, combo, strict=True))
              for combo in itertools.product(*(list(grid[n]) for n in names))]
    for point in points:
        point_config(ranker.base, point)  # fail on an invalid point before the first search
    rows = [{**point, **ranker.evaluate(point, metrics), "dataset": dataset.name}
            for point in points]
    return pd.DataFrame(rows)


def tune_2026_9(dataset: Any, space: Mapping[str, Sequence[Any]],
                base: Mapping[str, Any] | None = None, *, n_trials: int = 30,
                metric: str = "ndcg@10", seed: int = 0,
                metrics: Sequence[str] | None = None,
                ranker: Ranker2026_9 | None = None,
                callback: Callable[[dict[str, Any]], None] | None = None) -> pd.DataFrame:
    """Optuna TPE (``n_trials`` trials, ``seed``) over ``space`` (key path -> choices) on the
    2026.9 profile, maximising ``metric`` in-sample (no held-out folds: an optimistic
    figure, like the upgrade report's tuned 2026.7 row). Returns the trials, best first: the
    axes, each metric, ``trial``, ``dataset``.

    >>> tune_2026_9(load_dataset("datasets/sample-memory"),  # doctest: +SKIP
    ...             {"query.minScore": [0.0, 0.2, 0.35]}, n_trials=3)
    """
    import optuna

    ranker = ranker or Ranker2026_9(dataset, base)
    names = list(space)
    metrics = list(dict.fromkeys([metric, *(metrics or [])]))
    for name in names:  # the choices must be valid 2026.9 values before Optuna starts
        for value in space[name]:
            point_config(ranker.base, {name: value})
    rows: list[dict[str, Any]] = []

    def objective(trial: Any) -> float:
        point = {}
        for name in names:
            choices = list(space[name])
            # Optuna's categorical choices must be None/bool/int/float/str: index others
            idx = trial.suggest_categorical(name, list(range(len(choices))))
            point[name] = choices[idx]
        scores = ranker.evaluate(point, metrics)
        row = {**point, **scores, "trial": trial.number, "dataset": dataset.name}
        rows.append(row)
        if callback is not None:
            callback(row)
        return scores[metric]

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize",
                                sampler=optuna.samplers.TPESampler(seed=seed))
    study.optimize(objective, n_trials=n_trials)
    return pd.DataFrame(rows).sort_values([metric, "trial"], ascending=[False, True],
                                          kind="stable").reset_index(drop=True)
