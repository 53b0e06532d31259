"""The quality gate: memlab's best *exportable* 2026.7 configuration against OpenClaw's defaults,
out of fold.

The judged queries are split into ``cv`` folds (scikit-learn's ``KFold``, shuffled with
``seed``, :func:`memlab.tune.optimize.kfold`). On each fold's training queries the grid search
of :func:`memlab.tune.optimize.tune` picks the configuration with the best mean ``metric``
among those :func:`memlab.config.export_config` writes for OpenClaw 2026.7 without
``allow_lossy`` (no RRF, no BM25 leg, no approximate index...); that choice is scored on the
fold's held-out queries. Every judged query is held out once, so the pooled out-of-fold
values are what the tuning procedure delivers on queries it did not see.

Two variants are tuned and compared with the baseline (per query, paired):

``same model, tuned knobs``
    the grid over the 2026.7 knobs with the baseline's embedding model;
``tuned model + knobs``
    the same grid with the embedding model as an axis (:data:`GATE_MODELS`, packaged offline
    models; a packaged model exports through ``memlab serve-embeddings``).

The baseline is OpenClaw 2026.7.35's default knobs (weights 0.7/0.3, candidate multiplier 4,
MMR and temporal decay off, FTS5 ``unicode61``, chunks of 400/80 tokens) with memlab's default
local model, all-MiniLM-L6-v2: OpenClaw's own default provider is ``openai``
(text-embedding-3-small), which needs an API key and the network, so an offline gate cannot
run it; MiniLM is the model every other figure of memlab's README uses. Both sides rank 10
results with ``minScore`` 0 (:data:`EVAL_BUDGET`, ``memlab eval``'s convention), so the gate
measures ranking, not how many results are returned.

The gate passes when the gated variant (``tuned model + knobs``) has a positive mean delta with
paired randomization p < ``alpha`` (two-sided; Holm-corrected over the two variants, with the
paired t and Wilcoxon p-values reported too, :func:`memlab.eval.stats.paired_tests`) and no tag
loses more than ``max_tag_loss`` (mean over the tag's judged queries).

>>> gate = quality_gate("datasets/sample-memory")  # doctest: +SKIP
>>> gate.passed, gate.failures  # doctest: +SKIP
(True, [])
>>> print(gate.to_markdown())  # doctest: +SKIP
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from memlab.config import DEFAULT_SCHEMA, MemlabConfig, load_config

__all__ = ["DEFAULT_BASELINE", "EVAL_BUDGET", "GATE_GRID", "GATE_MODELS", "GATED", "SAME_MODEL",
           "FoldConfig", "QualityGate", "exportable", "fold_configs", "gain_tests",
           "quality_gate"]

#: OpenClaw 2026.7.35's default knobs with memlab's default local model (all-MiniLM-L6-v2).
DEFAULT_BASELINE: dict[str, Any] = {"memorySearch": {"provider": "local"}}
#: The result budget both sides are ranked with (memlab eval's depth 10, minScore 0).
EVAL_BUDGET: dict[str, Any] = {"query.maxResults": 10, "query.minScore": 0.0}
#: The 2026.7 knobs tuned (every value exports to OpenClaw 2026.7 as is).
GATE_GRID: dict[str, list[Any]] = {
    "query.hybrid.vectorWeight": [0.5, 0.6, 0.7, 0.8, 0.9],
    "query.hybrid.candidateMultiplier": [2, 4, 8],
    "query.hybrid.mmr.enabled": [False, True],
    "query.hybrid.mmr.lambda": [0.9],
    "query.hybrid.temporalDecay.enabled": [False, True],
    "query.hybrid.temporalDecay.halfLifeDays": [180, 365],
    "store.fts.tokenizer": ["unicode61", "trigram"],
}
#: The embedding models of the ``tuned model + knobs`` variant (packaged, offline); ``local``
#: is the baseline's local model (all-MiniLM-L6-v2), sharing the baseline's legs.
GATE_MODELS: tuple[str, ...] = ("local", "local:e5-small-multilingual", "local:use-multilingual")
SAME_MODEL = "same model, tuned knobs"
GATED = "tuned model + knobs"


def exportable(cfg: MemlabConfig, schema: str = DEFAULT_SCHEMA) -> bool:
    """Whether :func:`memlab.config.export_config` writes ``cfg`` for ``schema`` without
    ``allow_lossy`` (warnings about inexpressible values count as not exportable too).

    >>> from memlab.config import load_config
    >>> exportable(load_config({"memorySearch": {"provider": "local"}}))
    True
    >>> exportable(load_config({"memorySearch": {"provider": "local"},
    ...                         "memlab": {"fusion": {"method": "rrf"}}}))
    False
    """
    from memlab.config import ExportError, export_config

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            text = export_config(cfg, schema)
        except ExportError:
            return False
    return not text.warnings and not text.dropped


@dataclass
class QualityGate:
    """What :func:`quality_gate` measured; ``passed`` / ``failures`` say whether it holds."""

    metric: str
    alpha: float
    max_tag_loss: float
    baseline_label: str
    #: one row per variant: baseline, tuned (out-of-fold means), delta, CI, W/L/T, p-values
    overall: pd.DataFrame
    #: one row per variant and fold: queries, the fold's choice, in-sample, baseline, tuned,
    #: delta, ``overrides`` (the grid point chosen) and ``test_index`` (held-out positions in
    #: ``per_query``); :func:`fold_configs` reads them
    folds: pd.DataFrame
    #: one row per tag: judged queries, baseline, then per variant the tuned mean and delta
    tags: pd.DataFrame
    #: one row per judged query: qid, tags, baseline, one column per variant
    per_query: pd.DataFrame
    #: per variant: the configuration chosen on all judged queries (its overrides)
    chosen: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the configuration every grid point overrides (the baseline without :data:`EVAL_BUDGET`)
    base: MemlabConfig | None = None
    #: the resampling settings of :func:`gain_tests` (randomization test and bootstrap CI)
    n_resamples: int = 10_000
    seed: int = 0

    @property
    def failures(self) -> list[str]:
        """Why the gate does not hold (empty when it does)."""
        row = self.overall.set_index("variant").loc[GATED]
        out = []
        if not (row["delta"] > 0 and row["p_rand"] < self.alpha):
            out.append(f"{GATED}: delta {row['delta']:+.4f} {self.metric}, randomization "
                       f"p = {row['p_rand']:.4g} (needs a positive delta with p < {self.alpha})")
        for tag, delta in zip(self.tags["tag"], self.tags[f"delta {GATED}"], strict=True):
            if delta < -self.max_tag_loss:
                out.append(f"tag {tag!r} loses {-delta:.4f} {self.metric} (at most "
                           f"{self.max_tag_loss} allowed)")
        return out

    @property
    def passed(self) -> bool:
        return not self.failures

    def to_markdown(self) -> str:
        """The overall table, the per-fold table and the per-tag deltas (Markdown)."""
        m = self.metric
        overall = pd.DataFrame({
            "system": [f"OpenClaw defaults ({self.baseline_label})", *self.overall["variant"]],
            m: [self.overall["baseline"].iloc[0], *self.overall["tuned"]],
            f"Δ {m}": ["—", *(f"{d:+.3f} [{lo:+.3f}, {hi:+.3f}]" for d, lo, hi in zip(
                self.overall["delta"], self.overall["ci_low"], self.overall["ci_high"],
                strict=True))],
            "W/L/T": ["—", *(f"{w}/{lo}/{t}" for w, lo, t in zip(
                self.overall["wins"], self.overall["losses"], self.overall["ties"],
                strict=True))],
            "p (rand.)": ["—", *(f"{p:.2g}" for p in self.overall["p_rand"])],
            "p (t)": ["—", *(f"{p:.2g}" for p in self.overall["p_t"])],
            "p (Wilcoxon)": ["—", *(f"{p:.2g}" for p in self.overall["p_wilcoxon"])],
        })
        folds = self.folds.assign(**{
            "in-sample": self.folds["in_sample"].round(3),
            "baseline": self.folds["baseline"].round(3),
            "tuned": self.folds["tuned"].round(3),
            "Δ": self.folds["delta"].map(lambda v: f"{v:+.3f}")})[
            ["variant", "fold", "queries", "choice", "in-sample", "baseline", "tuned", "Δ"]]
        tags = self.tags.copy()
        for col in tags.columns:
            if col.startswith("delta "):
                tags[col] = tags[col].map(lambda v: f"{v:+.3f}")
            elif col not in ("tag", "queries"):
                tags[col] = tags[col].round(3)
        verdict = "passes" if self.passed else "fails: " + "; ".join(self.failures)
        return "\n\n".join([
            overall.to_markdown(index=False, floatfmt=".3f"),
            folds.to_markdown(index=False),
            tags.to_markdown(index=False),
            f"Gate ({GATED} vs OpenClaw defaults, {m}, randomization p < {self.alpha}, "
            f"Holm-corrected over the two variants; no tag below -{self.max_tag_loss}): "
            f"{verdict}."])


@dataclass(frozen=True)
class FoldConfig:
    """One fold of one variant of a :class:`QualityGate`: the configuration chosen on the
    other folds and memlab's per-query ``metric`` on the fold's held-out queries."""

    variant: str
    fold: int
    #: the grid point chosen on the training folds (sweep overrides, the model as a spec)
    overrides: dict[str, Any]
    #: that point applied to the gate's base, :data:`EVAL_BUDGET` included (what is exported)
    config: MemlabConfig
    #: the held-out judged queries, in the gate's ``per_query`` order
    qids: tuple[str, ...]
    #: memlab's values of the chosen config on ``qids`` (the gate's out-of-fold values)
    tuned: np.ndarray
    #: memlab's values of the baseline (OpenClaw's defaults) on ``qids``
    baseline: np.ndarray


def fold_configs(gate: QualityGate, variant: str = GATED) -> list[FoldConfig]:
    """Per fold of ``variant``: the exportable configuration the gate chose on the other folds,
    its held-out queries and memlab's per-query values there (tuned and baseline), so that the
    same configurations can be run elsewhere (e.g. in the real OpenClaw, ``parity/check_gate.py``)
    and scored against the gate's own numbers.

    >>> gate = quality_gate("datasets/sample-memory", {"query.hybrid.vectorWeight": [0.7]},
    ...                     models=["local"], cv=3, n_resamples=200)  # doctest: +SKIP
    >>> [len(f.qids) for f in fold_configs(gate)]  # doctest: +SKIP
    [34, 34, 33]
    """
    from memlab.tune.models import expand_overrides

    if gate.base is None:
        raise ValueError("this QualityGate has no base config (made by an older quality_gate)")
    rows = gate.folds[gate.folds["variant"] == variant]
    if rows.empty:
        raise ValueError(f"no folds of variant {variant!r}; the gate has "
                         f"{sorted(set(gate.folds['variant']))}")
    qids = gate.per_query["qid"].astype(str).to_numpy()
    out = []
    for row in rows.itertuples(index=False):
        test = np.asarray(row.test_index, dtype=np.int64)
        overrides = dict(row.overrides)
        out.append(FoldConfig(
            variant=variant, fold=int(row.fold), overrides=overrides,
            config=gate.base.with_overrides(expand_overrides({**overrides, **EVAL_BUDGET})),
            qids=tuple(qids[test].tolist()),
            tuned=gate.per_query[variant].to_numpy(dtype=np.float64)[test],
            baseline=gate.per_query["baseline"].to_numpy(dtype=np.float64)[test]))
    return out


def gain_tests(tuned: Mapping[str, np.ndarray], baseline: np.ndarray, *,
               n_resamples: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """The gate's overall table: per variant (``tuned``: name -> per-query out-of-fold values,
    aligned with ``baseline``'s), the baseline and tuned means and the paired tests of
    :func:`memlab.eval.stats.paired_tests` (delta, bootstrap CI, W/L/T, raw and Holm-corrected
    p-values over the variants given).

    >>> import numpy as np
    >>> t = gain_tests({"x": np.array([0.5, 0.6, 0.7])}, np.array([0.4, 0.6, 0.5]),
    ...                n_resamples=100)
    >>> t[["variant", "baseline", "tuned", "wins", "ties"]].values.tolist()
    [['x', 0.5, 0.6, 2, 1]]
    """
    from memlab.eval.stats import paired_tests

    names = list(tuned)
    if not names:
        raise ValueError("give at least one variant's values")
    base = np.asarray(baseline, dtype=np.float64)
    values = np.column_stack([np.asarray(tuned[n], dtype=np.float64) for n in names])
    if values.shape[0] != base.shape[0]:
        raise ValueError(f"{values.shape[0]} tuned values per variant vs {base.shape[0]} "
                         "baseline values")
    tests = paired_tests(values, np.column_stack([base] * len(names)),
                         n_resamples=n_resamples, seed=seed, labels=names)
    overall = tests.assign(variant=names, baseline=float(base.mean()),
                           tuned=values.mean(axis=0))
    return overall[["variant", "baseline", "tuned", *tests.columns]].reset_index(drop=True)


def _choice(overrides: Mapping[str, Any], base: MemlabConfig) -> str:
    """The overrides of a fold's choice that differ from OpenClaw's defaults, shortly named."""
    from memlab.tune.models import MODEL_AXIS, MODEL_KEYS, expand_overrides, model_label

    cfg = base.with_overrides(expand_overrides(overrides))
    parts = [model_label(cfg).removeprefix("local:")]
    default = base
    for key, value in overrides.items():
        if key in (MODEL_AXIS, *MODEL_KEYS) or key in EVAL_BUDGET or key == \
                "query.hybrid.textWeight":
            continue
        if default.with_overrides({key: value}).memory_search == default.memory_search:
            continue
        short = key.removeprefix("query.hybrid.").removeprefix("store.fts.")
        parts.append(f"{short}={value}")
    return ", ".join(parts)


def quality_gate(dataset: Any, grid: Mapping[str, Sequence[Any]] | None = None, *,
                 models: Sequence[str] = GATE_MODELS, baseline: Any = None,
                 metric: str = "ndcg@10", cv: int = 5, seed: int = 0, alpha: float = 0.05,
                 max_tag_loss: float = 0.02, n_resamples: int = 10_000,
                 engine: Any = None) -> QualityGate:
    """Run the gate on ``dataset`` (a memory dataset path or loaded dataset; see the module doc).

    ``grid``: the knobs to tune (default :data:`GATE_GRID`; :data:`EVAL_BUDGET` is added);
    ``models``: the provider specs of the ``tuned model + knobs`` variant;
    ``baseline``: the config compared with (default :data:`DEFAULT_BASELINE`), also the base
    every grid point overrides; ``engine``: a :class:`memlab.tune.sweep.SweepEngine` over the
    dataset built on ``baseline`` (its legs are reused).

    >>> gate = quality_gate("datasets/sample-memory", {"query.hybrid.vectorWeight": [0.7, 0.9]},
    ...                     models=["local:minilm"], cv=3, n_resamples=500)  # doctest: +SKIP
    >>> sorted(gate.overall["variant"])  # doctest: +SKIP
    ['same model, tuned knobs', 'tuned model + knobs']
    """
    from memlab.tune.models import MODEL_AXIS, model_label
    from memlab.tune.optimize import tune
    from memlab.tune.sweep import SweepEngine

    metric = metric.strip().lower()
    base_cfg = baseline if isinstance(baseline, MemlabConfig) else load_config(
        baseline if baseline is not None else DEFAULT_BASELINE)
    knobs = {**dict(grid if grid is not None else GATE_GRID),
             **{k: [v] for k, v in EVAL_BUDGET.items()}}
    if MODEL_AXIS in knobs:
        raise ValueError(f"give the models with models=, not as a {MODEL_AXIS!r} grid axis")
    if not models:
        raise ValueError("give at least one model spec (e.g. 'local:minilm')")
    own = engine is None
    if own:
        engine = SweepEngine(dataset, base_cfg)
    try:
        judged = engine.judged_mask()
        base_eval = base_cfg.with_overrides(EVAL_BUDGET)
        vals, qids, _ = engine.evaluate_configs([base_eval], [metric])
        base_q = vals[judged, 0, 0]

        def accept(overrides: Mapping[str, Any]) -> bool:
            from memlab.tune.models import expand_overrides

            return exportable(engine.base.with_overrides(expand_overrides(overrides)))

        variants = {SAME_MODEL: knobs, GATED: {MODEL_AXIS: list(models), **knobs}}
        results = {name: tune(None, g, metric=metric, cv=cv, seed=seed, engine=engine,
                              accept=accept) for name, g in variants.items()}
    finally:
        if own:
            engine.close()
    judged_qids = [q for q, j in zip(qids, judged, strict=True) if j]
    tuned = np.column_stack([results[v].out_of_fold for v in variants])
    overall = gain_tests({v: tuned[:, j] for j, v in enumerate(variants)}, base_q,
                         n_resamples=n_resamples, seed=seed)
    fold_rows = []
    for name, res in results.items():
        for _, row in res.folds.iterrows():
            test = np.asarray(row["test_index"], dtype=np.int64)
            fold_rows.append({"variant": name, "fold": int(row["fold"]),
                              "queries": int(row["test_queries"]),
                              "choice": _choice(row["overrides"], engine.base),
                              "in_sample": float(row["in_sample"]),
                              "baseline": float(base_q[test].mean()),
                              "tuned": float(row["out_of_sample"]),
                              "delta": float(row["out_of_sample"] - base_q[test].mean()),
                              "overrides": dict(row["overrides"]),
                              "test_index": test.tolist()})
    tag_masks = {t: m[judged] for t, m in engine.tags().items() if (m & judged).any()}
    tag_rows = []
    for tag, mask in tag_masks.items():
        row = {"tag": tag, "queries": int(mask.sum()), "baseline": float(base_q[mask].mean())}
        for j, name in enumerate(variants):
            row[name] = float(tuned[mask, j].mean())
            row[f"delta {name}"] = float((tuned[mask, j] - base_q[mask]).mean())
        tag_rows.append(row)
    tags_col = engine.queries["tags"] if "tags" in engine.queries.columns else None
    per_query = pd.DataFrame({"qid": judged_qids, "baseline": base_q,
                              **{name: tuned[:, j] for j, name in enumerate(variants)}})
    if tags_col is not None:
        per_query.insert(1, "tags", [t for t, j in zip(tags_col, judged, strict=True) if j])
    return QualityGate(metric=metric, alpha=alpha, max_tag_loss=max_tag_loss,
                       baseline_label=model_label(base_cfg).removeprefix("local:"),
                       overall=overall, folds=pd.DataFrame(fold_rows),
                       tags=pd.DataFrame(tag_rows), per_query=per_query,
                       chosen={name: dict(r.overrides) for name, r in results.items()},
                       base=engine.base, n_resamples=n_resamples, seed=seed)

