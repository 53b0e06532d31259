"""Ablation matrix: each stage of the full pipeline switched off, with paired significance tests.

The *full* pipeline is the base config with temporal decay and MMR switched on (and the keyword
fallback as configured). Each variant switches off one part:

=================  ============================================================
``full``           the base config + ``temporalDecay.enabled`` + ``mmr.enabled``
``-decay``         temporal decay off
``-mmr``           MMR off
``-keyword``       the keyword leg off: vector only (``query.hybrid.enabled: false``)
``-vector``        the vector leg off: keyword only (``provider: "none"``)
``-fallback``      OpenClaw's keyword fallback off (``memlab.keywordFallback: false``)
=================  ============================================================

Every variant runs through :func:`memlab.openclaw.openclaw_pipeline` over the same queries;
:func:`memlab.eval.compare` tests each against ``full`` (paired t, Wilcoxon, randomization,
Holm-corrected; bootstrap CIs).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from memlab.config import MemlabConfig, load_config

__all__ = ["ABLATIONS", "ablation", "ablation_configs"]

ABLATIONS: dict[str, dict[str, Any]] = {
    "-decay": {"query.hybrid.temporalDecay.enabled": False},
    "-mmr": {"query.hybrid.mmr.enabled": False},
    "-keyword": {"query.hybrid.enabled": False},
    "-vector": {"provider": "none"},
    "-fallback": {"memlab.keywordFallback": False},
}
FULL = {"query.hybrid.temporalDecay.enabled": True, "query.hybrid.mmr.enabled": True}


def ablation_configs(base: Any = None, full: Mapping[str, Any] | None = None
                     ) -> dict[str, MemlabConfig]:
    """``{"full": ..., "-decay": ..., ...}`` configs derived from ``base``."""
    if base is None:
        base = {"memorySearch": {"provider": "local"}}
    cfg = base if isinstance(base, MemlabConfig) else load_config(base)
    full_cfg = cfg.with_overrides({**FULL, **(full or {})})
    out = {"full": full_cfg}
    for name, ov in ABLATIONS.items():
        out[name] = full_cfg.with_overrides(ov)
    return out


def ablation(dataset: Any, base: Any = None, *, embedder: Any = None,
             metrics: Sequence[str] = ("ndcg@10", "recall@10", "mrr@10"),
             production: bool = True, depth: int = 10, by_tag: bool = False,
             n_resamples: int = 10_000, seed: int | None = 0, now: object = None,
             variants: Sequence[str] | None = None):
    """Run the ablation matrix on ``dataset`` and return :class:`memlab.eval.experiment.
    Comparison` (``full`` is the baseline).

    ``production=True`` keeps each config's ``maxResults``/``minScore`` (what OpenClaw returns);
    ``False`` ranks to ``depth`` with ``minScore`` 0 as ``memlab eval`` does.
    """
    from memlab.eval.experiment import compare
    from memlab.openclaw import openclaw_pipeline
    from memlab.tune.sweep import SweepEngine

    engine = SweepEngine(dataset, base, embedder, now=now)
    configs = ablation_configs(engine.base)
    if variants is not None:
        unknown = [v for v in variants if v not in ABLATIONS]
        if unknown:
            raise ValueError(f"unknown ablation {unknown}; choose from {list(ABLATIONS)}")
        configs = {k: v for k, v in configs.items() if k == "full" or k in variants}
    runs: dict[str, pd.DataFrame] = {}
    kwargs = {} if production else {"max_results": depth, "min_score": 0.0}
    for name, cfg in configs.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            corpus = engine.corpus(cfg)
        emb = None if cfg.memory_search.resolved_provider() == "none" else engine.embedder(cfg)
        pipe = openclaw_pipeline(corpus, cfg, emb, **kwargs)
        runs[name] = pipe.transform(engine.queries)
    return compare(runs, engine.qrels, metrics, queries=engine.queries, baseline="full",
                   level=engine.level, by_tag=by_tag, n_resamples=n_resamples, seed=seed)
