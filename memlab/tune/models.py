"""The embedding model as a tuning axis: provider specs as grid values, and a per-model report.

A grid (``memlab sweep``, :func:`memlab.tune.sweep.expand_grid`, :func:`memlab.tune.tune`) may
carry the pseudo-axis :data:`MODEL_AXIS` (``"embedding"``) whose values are provider specs:

``local``
    OpenClaw's ``local`` provider with memlab's default model (all-MiniLM-L6-v2);
``local:ALIAS_OR_PATH``
    a packaged offline model (``local:minilm``, ``local:e5-small-multilingual``,
    ``local:use-multilingual``, ... :data:`memlab.embed.models.PACKAGED_MODELS`) or a model
    folder (``local.modelPath``);
``openai-compatible:BASE_URL#MODEL``
    any OpenAI-compatible server (e.g. ``memlab serve-embeddings``);
``PROVIDER[:MODEL]``
    any other provider memlab has (``openai:text-embedding-3-small``, ``gemini``, ...; API
    keys from their usual environment variables);
``none``
    keyword only.

Each spec stands for real config key paths (:func:`spec_overrides`), so a results row exports
like any other: the ``provider``, ``model``, ``local.modelPath`` and ``remote.baseUrl`` columns
are written next to the ``embedding`` label. The sweep engine computes each model's vector leg
once (legs are keyed by provider settings) and embeds through the embedding cache, so a text
already embedded with a model is never embedded again.

:func:`model_report` puts the models of a sweep side by side: quality (the best row of each
model, and its row at the grid's first knob setting), the embedding work done in this run
(texts embedded vs taken from the cache, seconds), the per-query latency of the vector leg,
and the token cost of indexing the corpus at the given prices.

>>> spec_overrides("local:e5-small")
{'provider': 'local', 'local.modelPath': 'e5-small-multilingual'}
>>> spec_overrides("openai-compatible:http://127.0.0.1:8080/v1#minilm")
{'provider': 'openai-compatible', 'remote.baseUrl': 'http://127.0.0.1:8080/v1', 'model': 'minilm'}
>>> expand_overrides({"embedding": "none", "query.minScore": 0.2})
{'query.minScore': 0.2, 'provider': 'none'}
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from memlab.config import MemlabConfig
from memlab.embed.pricing import price_per_million

__all__ = ["MODEL_AXIS", "MODEL_KEYS", "ModelSpecError", "evaluate_models", "expand_overrides",
           "model_label", "model_report", "model_systems", "spec_overrides"]

#: The pseudo-axis whose values are provider specs.
MODEL_AXIS = "embedding"
#: The config key paths a spec sets (the sweep's outer axes that select the embedder).
MODEL_KEYS = ("provider", "model", "local.modelPath", "remote.baseUrl")


class ModelSpecError(ValueError):
    """A provider spec that names no provider or lacks a part (e.g. the model of a URL)."""


def spec_overrides(spec: str) -> dict[str, Any]:
    """The config overrides (key path -> value) a provider spec stands for (module doc).

    A packaged model's alias is normalised (``e5-small`` -> ``e5-small-multilingual``), so two
    names of one model share one vector leg.

    >>> spec_overrides("gemini:gemini-embedding-001")
    {'provider': 'gemini', 'model': 'gemini-embedding-001'}
    """
    from memlab.embed.models import find_packaged

    text = str(spec).strip()
    pid, _, rest = text.partition(":")
    pid, rest = pid.strip().lower(), rest.strip()
    if not pid:
        raise ModelSpecError(f"empty provider spec {spec!r}: use local[:ALIAS_OR_PATH], "
                             "openai-compatible:URL#MODEL, PROVIDER[:MODEL] or none")
    out: dict[str, Any] = {"provider": pid}
    if pid == "local":
        if rest:
            packaged = find_packaged(rest)
            out["local.modelPath"] = packaged.alias if packaged is not None else rest
    elif pid == "openai-compatible":
        url, _, model = rest.partition("#")
        if not url.strip() or not model.strip():
            raise ModelSpecError(f"provider spec {spec!r}: use openai-compatible:BASE_URL#MODEL")
        out["remote.baseUrl"] = url.strip()
        out["model"] = model.strip()
    elif pid == "none":
        if rest:
            raise ModelSpecError(f"provider spec {spec!r}: 'none' (keyword only) takes no model")
    elif rest:
        out["model"] = rest
    return out


def expand_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``overrides`` with the :data:`MODEL_AXIS` entry replaced by its key paths (a key path
    given explicitly wins over the spec's)."""
    out = {k: v for k, v in overrides.items() if k != MODEL_AXIS}
    if MODEL_AXIS in overrides:
        for key, value in spec_overrides(overrides[MODEL_AXIS]).items():
            out.setdefault(key, value)
    return out


def model_label(cfg: MemlabConfig) -> str:
    """The spec naming ``cfg``'s embedder (``local:minilm``, ``openai:text-embedding-3-small``,
    ``none``...).

    >>> from memlab.config import load_config
    >>> model_label(load_config({"memorySearch": {"provider": "local"}}))
    'local:minilm'
    """
    from memlab.embed.models import find_packaged

    ms = cfg.memory_search
    pid = ms.resolved_provider()
    if pid == "none":
        return "none"
    if pid == "local":
        path = ms.local.model_path if ms.local is not None else None
        packaged = find_packaged(path or "minilm")
        return f"local:{packaged.alias if packaged is not None else path}"
    if pid == "openai-compatible":
        url = ms.remote.base_url if ms.remote is not None else ""
        return f"openai-compatible:{url}#{ms.resolved_model()}"
    return f"{pid}:{ms.resolved_model()}"


def _price(cfg: MemlabConfig, prices: Mapping[str, float]) -> float:
    """USD per 1M tokens of ``cfg``'s embedder (:func:`memlab.embed.pricing.price_per_million`)."""
    ms = cfg.memory_search
    url = ms.remote.base_url if ms.remote is not None else None
    return price_per_million(ms.resolved_provider(), ms.resolved_model(), url, prices)


def model_report(engine: Any, table: pd.DataFrame, configs: Sequence[MemlabConfig],
                 metric: str = "ndcg@10", *, prices: Mapping[str, float] | None = None
                 ) -> pd.DataFrame:
    """One row per embedding model of a sweep, best first: quality, latency and cost.

    ``table`` and ``configs`` are a sweep's rows and configurations (same order,
    :meth:`memlab.tune.sweep.SweepEngine.table`); ``prices`` maps ``PROVIDER[:MODEL]`` to USD
    per 1M tokens (``memlab sweep`` passes :data:`memlab.cli.bench.DEFAULT_PRICES`; a
    packaged model costs 0, an unknown price is NaN). Columns:

    ``embedding``, ``dims``, ``configs``
        the model, its vector size, the grid rows that use it;
    ``best <metric>``, ``first <metric>``
        the best row of the model, and its row at the grid's first knob setting (the first
        row using the model);
    ``texts_embedded``, ``cache_hits``, ``embed_s``
        corpus texts embedded in this run, taken from the embedding cache, and the seconds of
        corpus embedding (0 texts and ~0 s when every text was cached);
    ``query_ms``
        the vector leg per query (query embedding, batched, plus the exact search), in ms;
    ``tokens``, ``usd_per_1m``, ``index_usd``
        the corpus's tokens (UTF-8 bytes / 4, the estimate OpenClaw's batching uses), the
        price, and what indexing the corpus costs.

    Keyword-only rows (``provider: "none"``) get a row with no embedding columns.

    >>> from memlab.tune.sweep import SweepEngine, expand_grid  # doctest: +SKIP
    >>> engine = SweepEngine("datasets/sample-memory")  # doctest: +SKIP
    >>> ov, cfgs = expand_grid({"embedding": ["local:minilm", "local:e5-small"]})  # doctest: +SKIP
    >>> vals, _, _ = engine.evaluate_configs(cfgs, ["ndcg@10"])  # doctest: +SKIP
    >>> model_report(engine, engine.table(ov, cfgs, vals, ["ndcg@10"]), cfgs)  # doctest: +SKIP
    """
    if len(table) != len(configs):
        raise ValueError(f"the table has {len(table)} rows but {len(configs)} configs were given")
    if metric not in table.columns:
        raise ValueError(f"no metric column {metric!r} in the table; columns: "
                         f"{', '.join(map(str, table.columns))}")
    prices = dict(prices or {})
    labels = [model_label(c) for c in configs]
    scores = table[metric].to_numpy(dtype=float)
    rows = []
    for label in dict.fromkeys(labels):
        idx = [i for i, lab in enumerate(labels) if lab == label]
        cfg = configs[idx[0]]
        row: dict[str, Any] = {"embedding": label, "configs": len(idx),
                               f"best {metric}": float(np.nanmax(scores[idx])),
                               f"first {metric}": float(scores[idx[0]])}
        stats = engine.model_stats(cfg) if label != "none" else None
        if stats is not None:
            texts = engine.corpus(cfg).texts
            tokens = int(sum(math.ceil(len(str(t).encode("utf-8")) / 4) for t in texts))
            usd = _price(cfg, prices)
            row.update({
                "dims": stats.get("dims"), "texts_embedded": stats.get("texts_embedded"),
                "cache_hits": stats.get("cache_hits"),
                "embed_s": round(float(stats.get("embed_s", float("nan"))), 3),
                "query_ms": round(float(stats.get("query_ms", float("nan"))), 3),
                "tokens": tokens, "usd_per_1m": usd,
                "index_usd": tokens / 1e6 * usd if not math.isnan(usd) else float("nan")})
        rows.append(row)
    out = pd.DataFrame(rows)
    return out.sort_values(f"best {metric}", ascending=False, kind="stable").reset_index(
        drop=True)


def model_systems(systems: Sequence[Any], models: Sequence[str]
                  ) -> list[tuple[str, MemlabConfig]]:
    """Every system (built-in name, config file, mapping or config) with every model spec:
    ``("hybrid @ local:e5-small-multilingual", config)`` pairs, models varying fastest. A
    keyword-only system (``provider: "none"``) embeds nothing: it is kept once, as it is.

    >>> [name for name, _ in model_systems(["keyword", "hybrid"], ["local", "local:e5-small"])]
    ['keyword', 'hybrid @ local:minilm', 'hybrid @ local:e5-small-multilingual']
    """
    from memlab.eval.systems import resolve_system

    if not models:
        raise ModelSpecError("give at least one model spec")
    out = []
    for spec in systems:
        name, cfg = resolve_system(spec)
        if cfg.memory_search.resolved_provider() == "none":
            out.append((name, cfg))
            continue
        for model in models:
            over = cfg.with_overrides(spec_overrides(model))
            out.append((f"{name} @ {model_label(over)}", over))
    return out


def evaluate_models(dataset: Any, systems: Sequence[Any], models: Sequence[str],
                    metrics: Sequence[str] = ("ndcg@10", "recall@10", "mrr@10"), *,
                    depth: int = 10, production: bool = False, by_tag: bool = False,
                    n_resamples: int = 10_000, prices: Mapping[str, float] | None = None
                    ) -> tuple[Any, pd.DataFrame]:
    """``memlab eval --model``: each system run with each model (:func:`model_systems`; the
    first pair is the baseline), compared as :func:`memlab.eval.systems.evaluate_systems`
    compares systems, and a table of the models side by side: dims, corpus texts embedded in
    this run and found in the embedding cache, seconds of the model's first run (embedding
    included), the corpus tokens (UTF-8 bytes / 4) and the indexing cost at ``prices``.

    Returns ``(comparison, models_table)``.

    >>> cmp, table = evaluate_models("datasets/sample-memory", ["vector"],
    ...                              ["local:minilm", "local:e5-small"])  # doctest: +SKIP
    """
    from memlab.embed.cache import CachedEmbedder
    from memlab.eval.judged import compare_runs
    from memlab.eval.systems import dataset_corpus, run_system

    if isinstance(dataset, str) or hasattr(dataset, "__fspath__"):
        from memlab.eval.datasets import load_dataset

        dataset = load_dataset(dataset)
    runs: dict[str, pd.DataFrame] = {}
    embedders: dict[str, Any] = {}
    rows: dict[str, dict[str, Any]] = {}
    for name, cfg in model_systems(systems, models):
        label = model_label(cfg)
        before = set(embedders)
        start = time.perf_counter()
        runs[name] = run_system(dataset, cfg, depth=depth, production=production,
                                embedders=embedders)
        seconds = time.perf_counter() - start
        if label in rows or label == "none":
            continue
        new = [embedders[k] for k in set(embedders) - before]
        emb = new[0] if new else None
        texts = dataset_corpus(dataset, cfg, emb).texts
        tokens = int(sum(math.ceil(len(str(t).encode("utf-8")) / 4) for t in texts))
        usd = _price(cfg, dict(prices or {}))
        stats = emb.stats() if isinstance(emb, CachedEmbedder) else {}
        rows[label] = {"embedding": label, "dims": int(emb.dims) if emb is not None else None,
                       "texts_embedded": stats.get("texts_embedded"),
                       "cache_hits": stats.get("cache_hits"), "first_run_s": round(seconds, 3),
                       "tokens": tokens, "usd_per_1m": usd,
                       "index_usd": tokens / 1e6 * usd if not math.isnan(usd) else float("nan")}
    comparison = compare_runs(runs, dataset, list(metrics), by_tag=by_tag,
                              n_resamples=n_resamples)
    return comparison, pd.DataFrame(list(rows.values()))
