"""Sweeps and Optuna over what OpenClaw 2026.9 still lets a user change, on the 2026.9 profile.

The vectorised 2026.7 engine (:class:`memlab.tune.sweep.SweepEngine`) cannot express 2026.9's
ranking (path tiers, boosted fusion, always-on decay and MMR, the selection rule), so points
run on :class:`memlab.tiered.search.TieredSearch` itself, but each leg only once:

* the **leg axes** (``provider``, ``model``, ``store.fts.tokenizer``, ``sources``,
  ``experimental.sessionMemory``, ``outputDimensionality``, input types, ``memlab.*``) decide
  the index and the ranked candidates: the points sharing their values form a group, which
  indexes the workspace once (embeddings come from the embedding cache across groups) and
  ranks every query once (:meth:`TieredSearch.rank`);
* the **selection axes** ``query.minScore`` and ``query.maxResults`` only pick from those
  candidates (``selectHybridSearchResults`` and the cut): every point of a group is
  :meth:`TieredSearch.select` on the cached ranking, with no search.

Rankings are production ones (each point's own ``maxResults`` and ``minScore``). The results
frame has the axis columns, one column per metric and ``dataset``, so ``memlab export RESULTS
--schema 2026.9`` reads it. :func:`tune_tiered` runs Optuna TPE over the same axes with the
same caches (a trial whose leg axes were seen costs a selection per query).

The **importance axes** (the content lever): ``importance.FILE:LINE`` names one curated entry
(``FILE`` ``MEMORY.md`` or ``USER.md`` relative to the workspace, ``LINE`` the 1-based first
line of its ``- `` entry, as :func:`memlab.tune.importance.annotate_importance` numbers it);
its values are integers 1..10 (``<!-- importance: N -->`` on that line, an existing one
replaced) or ``None``/``"none"``, **the file as written** (no change: the entry keeps the
annotation it has, or none). Points that differ in importance axes are different leg groups:
the group's workspace is a copy annotated with :func:`~memlab.tune.importance
.annotate_importance`, indexed and ranked. 2026.9 strips the annotation comments from the
chunk text, so the texts to embed are the same: every group embeds through one
:class:`~memlab.embed.cache.CachedEmbedder` per embedding configuration (an in-memory cache
around the provider when the config's own cache is off), and a second importance group embeds
nothing (unless the file as written has no annotation and keeps trailing blanks, which 2026.9
also strips once it strips a comment). In the results the column holds the integer, or
``<NA>`` for the file as written. ``memlab export --schema 2026.9`` refuses these axes (they
are file content, not config), printing each entry's line to write and its measured effect
(:func:`memlab.config.memory_export.importance_choices`).

>>> from memlab.eval.datasets import load_dataset  # doctest: +SKIP
>>> sweep_tiered(load_dataset("datasets/sample-memory"),
...              {"query.minScore": [0.2, 0.35], "store.fts.tokenizer": ["unicode61",
...               "trigram"]}, {"memory": {"search": {"provider": "none"}}})  # doctest: +SKIP
>>> sweep_tiered(load_dataset("datasets/sample-memory"),
...              {"importance.MEMORY.md:20": [None, 3, 10]},
...              {"memory": {"search": {"provider": "none"}}})  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import itertools
import json
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from memlab.config.memory_export import importance_value, is_importance_axis
from memlab.config.memory_layout import read_config
from memlab.lines import Line, detect_line
from memlab.tune.errors import SweepError
from memlab.tune.models import expand_overrides

__all__ = ["SELECTION_AXES", "TieredRanker", "normalize_tiered_axis", "point_config",
           "split_point", "sweep_tiered", "tune_tiered"]

#: Axes that only select from the ranked candidates (no new search).
SELECTION_AXES = ("query.minScore", "query.maxResults")


def point_config(base: Mapping[str, Any], point: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` (a whole 2026.9 config) with each ``key path -> value`` of ``point`` set under
    ``memory.search`` (or under ``memlab`` for ``memlab.`` keys), validated as 2026.9 does.

    The embedding-model axis (:data:`memlab.tune.models.MODEL_AXIS`, ``--model``) stands for
    its provider keys, which 2026.9 names as 2026.7 does (``provider``, ``model``,
    ``local.modelPath``, ``remote.baseUrl``).

    >>> point_config({"memory": {"search": {"provider": "none"}}}, {"query.minScore": 0.2})
    {'memory': {'search': {'provider': 'none', 'query': {'minScore': 0.2}}}}
    >>> point_config({}, {"embedding": "none"})
    {'memory': {'search': {'provider': 'none'}}}
    """
    out = copy.deepcopy(dict(base))
    for key, value in expand_overrides(point).items():
        parts = key.split(".")
        node = out.setdefault("memlab", {}) if parts[0] == "memlab" else \
            out.setdefault("memory", {}).setdefault("search", {})
        parts = parts[1:] if parts[0] == "memlab" else parts
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    read_config(out)  # a ConfigError names the key path of an invalid point
    return out


def normalize_tiered_axis(key: str) -> str:
    """A 2026.9 grid key as the sweep names it: an importance axis checked for its form
    (``importance.FILE:LINE``), a config key path without a ``memory.search.`` prefix (its
    values are checked by :func:`point_config`).

    >>> normalize_tiered_axis("memory.search.query.minScore")
    'query.minScore'
    >>> normalize_tiered_axis("importance.USER.md")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    memlab.tune.errors.SweepError: importance axis 'importance.USER.md': name one entry as ...
    """
    from memlab.config.memory_export import parse_importance_axis

    name = str(key).strip()
    if is_importance_axis(name):
        try:
            path, line = parse_importance_axis(name)
        except ValueError as exc:
            raise SweepError(str(exc)) from None
        return f"importance.{path}:{line}"
    return name.removeprefix("memory.search.")


def split_point(point: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, int]]:
    """``(config axes, importance axes)`` of a point; importance values as integers, the
    axes at the file as written (``None``/``"none"``) left out.

    >>> split_point({"query.minScore": 0.2, "importance.MEMORY.md:3": 9,
    ...              "importance.USER.md:1": "none"})
    ({'query.minScore': 0.2}, {'importance.MEMORY.md:3': 9})
    """
    config, importance = {}, {}
    for key, value in point.items():
        if not is_importance_axis(key):
            config[key] = value
            continue
        try:
            number = importance_value(value, key)
        except ValueError as exc:
            raise SweepError(str(exc)) from None
        if number is not None:
            importance[key] = number
    return config, importance


def _split(point: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, int], dict[str, Any]]:
    config, importance = split_point(point)
    legs = {k: v for k, v in config.items() if k not in SELECTION_AXES}
    return legs, importance, {k: v for k, v in config.items() if k in SELECTION_AXES}


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The results rows, each importance column as nullable integers (``<NA>``: as written)."""
    frame = pd.DataFrame(rows)
    for column in frame.columns:
        if is_importance_axis(column):
            frame[column] = pd.array([importance_value(v, column) for v in frame[column]],
                                     dtype="Int64")
    return frame


class TieredRanker:
    """Rankings of a memory dataset on the 2026.9 profile, cached per leg-axes group.

    ``hits(point)`` returns the production hits (``qid, path, start_line, end_line, source,
    score, rank``) of one point; ``searches`` counts the :meth:`TieredSearch.rank` calls (one
    per query and group), ``selections`` the :meth:`TieredSearch.select` calls, ``groups``
    the indexed workspaces (one per distinct leg and importance axes). Documents are embedded
    through one :class:`~memlab.embed.cache.CachedEmbedder` per embedding configuration, so
    the groups that only differ in importance embed nothing new.

    >>> from memlab.eval.datasets import load_dataset  # doctest: +SKIP
    >>> r = TieredRanker(load_dataset("datasets/sample-memory"),
    ...                  {"memory": {"search": {"provider": "none"}}})  # doctest: +SKIP
    >>> len(r.hits({"query.maxResults": 3})) <= 3 * 124  # doctest: +SKIP
    True
    """

    def __init__(self, dataset: Any, base: Mapping[str, Any] | None = None, *,
                 embedder: Any = None, active_projects: Sequence[str] | None = None,
                 line: str | Line | None = None) -> None:
        self.dataset = dataset
        self.base = dict(base or {"memory": {"search": {"provider": "local"}}})
        #: The OpenClaw line ranked (``line``, else the base config's; a tiered-engine line).
        self.line = detect_line(self.base, line)
        self.embedder = embedder
        self.active_projects = active_projects
        self._groups: dict[str, tuple[Any, list[tuple[Any, dict[str, Any]]]]] = {}
        self._embedders: dict[str, Any] = {}
        self._entries: dict[str, tuple[str, int]] = {}
        self.searches = 0
        self.selections = 0
        self.groups = 0

    def check(self, point: Mapping[str, Any]) -> None:
        """Raise before any search when ``point`` is invalid: its config axes as 2026.9
        validates them (:func:`point_config`), its importance axes against the workspace
        (:func:`memlab.tune.importance.check_entry`: ``MEMORY.md``/``USER.md``, an entry
        line; values 1..10 or the file as written)."""
        from memlab.tune.importance import check_entry

        config, _ = split_point(point)  # checks the importance values
        point_config(self.base, config)
        for key in point:
            if is_importance_axis(key) and key not in self._entries:
                try:
                    path, line, _ = check_entry(self.dataset.workspace, key)
                except ValueError as exc:
                    raise SweepError(str(exc)) from None
                self._entries[key] = (path, line)

    def embedding_stats(self) -> dict[str, int]:
        """Document texts embedded and found in the embedding cache, over all groups so far
        (:meth:`memlab.embed.cache.CachedEmbedder.stats`; zeros for keyword-only configs)."""
        embedders = [e for e in self._embedders.values() if e is not None]
        return {"texts_embedded": sum(e.texts_embedded for e in embedders),
                "cache_hits": sum(e.cache_hits for e in embedders)}

    def _embedder(self, legs: Mapping[str, Any], config: Mapping[str, Any]) -> Any:
        """The (cached) embedder of the groups with config axes ``legs``."""
        from memlab.embed.cache import CachedEmbedder
        from memlab.tiered.search import TieredSearch

        key = "" if self.embedder is not None else json.dumps(legs, sort_keys=True, default=str)
        if key not in self._embedders:
            emb = self.embedder
            if emb is None:  # the provider the config asks for (its own cache, when on)
                probe = TieredSearch(self.dataset.workspace, config, index_path=":memory:",
                                     sync=False, line=self.line)
                try:
                    emb = probe.embedder
                finally:
                    probe.close()
            if emb is not None and not isinstance(emb, CachedEmbedder):
                emb = CachedEmbedder(emb)  # in memory: the groups share the vectors
            self._embedders[key] = emb
        return self._embedders[key]

    def _group(self, legs: Mapping[str, Any], importance: Mapping[str, int]
               ) -> tuple[Any, list[tuple[Any, dict[str, Any]]]]:
        from memlab.tiered.search import TieredSearch
        from memlab.tune.importance import annotate_importance

        key = json.dumps([legs, importance], sort_keys=True, default=str)
        if key not in self._groups:
            self.check({**legs, **importance})
            config = point_config(self.base, legs)
            queries = self.dataset.queries
            nows = (queries["now"].fillna(queries["now"].max()) if "now" in queries.columns
                    else pd.Series([None] * len(queries), index=queries.index))
            with tempfile.TemporaryDirectory(prefix="memlab-importance-") as tmp:
                workspace = self.dataset.workspace
                if importance:  # a copy of the workspace with the annotations
                    workspace = annotate_importance(
                        workspace, {self._entries[k]: v for k, v in importance.items()},
                        Path(tmp) / "workspace")
                search = TieredSearch(workspace, config, index_path=":memory:",
                                      embedder=self._embedder(legs, config), line=self.line)
                try:
                    ranked = [(qid, search.rank(str(text), None if pd.isna(now) else now,
                                                self.active_projects))
                              for qid, text, now in zip(queries["qid"], queries["query"], nows,
                                                        strict=True)]
                finally:
                    search.close()  # select() reads only the settings and the ranked entries
            self.searches += len(ranked)
            self.groups += 1
            self._groups[key] = (search, ranked)
        return self._groups[key]

    def hits(self, point: Mapping[str, Any]) -> pd.DataFrame:
        """Production hits of ``point`` (key path -> value over the base config; importance
        axes as in the module docstring)."""
        legs, importance, selection = _split(point)
        search, ranked = self._group(legs, importance)
        # the resolved settings carry the clamped minScore and the default maxResults
        settings = read_config(point_config(self.base, {**legs, **selection})).resolve(
            search.agent_id)
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


def sweep_tiered(dataset: Any, grid: Mapping[str, Sequence[Any]],
                 base: Mapping[str, Any] | None = None, *,
                 metrics: Sequence[str] = ("ndcg@10", "recall@10", "mrr@10"),
                 ranker: TieredRanker | None = None) -> pd.DataFrame:
    """One row per point of ``grid`` (key path -> values; importance axes as in the module
    docstring): the axes, each metric's mean over the judged queries, ``dataset``. Points are
    validated before anything runs."""
    ranker = ranker or TieredRanker(dataset, base)
    grid = {normalize_tiered_axis(k): v for k, v in grid.items()}
    names = list(grid)
    points = [dict(zip(names, combo, strict=True))
              for combo in itertools.product(*(list(grid[n]) for n in names))]
    for point in points:
        ranker.check(point)  # fail on an invalid point before the first search
    rows = [{**point, **ranker.evaluate(point, metrics), "dataset": dataset.name}
            for point in points]
    return _frame(rows)


def tune_tiered(dataset: Any, space: Mapping[str, Sequence[Any]],
                base: Mapping[str, Any] | None = None, *, n_trials: int = 30,
                metric: str = "ndcg@10", seed: int = 0,
                metrics: Sequence[str] | None = None,
                ranker: TieredRanker | None = None,
                callback: Callable[[dict[str, Any]], None] | None = None) -> pd.DataFrame:
    """Optuna TPE (``n_trials`` trials, ``seed``) over ``space`` (key path -> choices;
    importance axes are categorical over their integers and ``None``) on the 2026.9 profile,
    maximising ``metric`` in-sample (no held-out folds: an optimistic
    figure, like the upgrade report's tuned 2026.7 row). Returns the trials, best first: the
    axes, each metric, ``trial``, ``dataset``.

    >>> tune_tiered(load_dataset("datasets/sample-memory"),  # doctest: +SKIP
    ...             {"query.minScore": [0.0, 0.2, 0.35]}, n_trials=3)
    """
    import optuna

    ranker = ranker or TieredRanker(dataset, base)
    space = {normalize_tiered_axis(k): v for k, v in space.items()}
    names = list(space)
    metrics = list(dict.fromkeys([metric, *(metrics or [])]))
    for name in names:  # the choices must be valid 2026.9 values before Optuna starts
        for value in space[name]:
            ranker.check({name: value})
    rows: list[dict[str, Any]] = []

    def objective(trial: Any) -> float:
        point = {}
        for name in names:
            choices = list(space[name])
            if is_importance_axis(name):  # categorical ints (None: the file as written)
                point[name] = trial.suggest_categorical(
                    name, list(dict.fromkeys(importance_value(v, name) for v in choices)))
                continue
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
    return _frame(rows).sort_values([metric, "trial"], ascending=[False, True],
                                    kind="stable").reset_index(drop=True)
