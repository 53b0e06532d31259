"""Systems to evaluate: built-in named configurations and running a config over a dataset.

A *system* is an OpenClaw config (plus memlab options). The built-in names let a user compare
without writing configs::

    keyword            provider "none": OpenClaw's keyword-only mode (boosted BM25 score)
    vector             the local model, hybrid off
    hybrid             OpenClaw's defaults with the local model
    hybrid+decay       + temporal decay (half-life 30 days)
    hybrid+mmr         + MMR (lambda 0.7)
    hybrid+decay+mmr   + both
    hybrid+rrf         memlab's reciprocal rank fusion instead of the weighted merge

Systems are evaluated at a fixed depth with ``minScore`` 0 by default (``depth``), so metrics
measure the ranking rather than OpenClaw's production score cut; pass ``production=True`` to
keep the config's own ``maxResults``/``minScore``.

>>> sorted(NAMED_SYSTEMS)[:3]
['hybrid', 'hybrid+decay', 'hybrid+decay+mmr']
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from memlab.chunking import provider_input_cap
from memlab.config import MemlabConfig, load_config

_LOCAL: dict[str, Any] = {"provider": "local"}
NAMED_SYSTEMS: dict[str, dict[str, Any]] = {
    "keyword": {"memorySearch": {"provider": "none"}},
    "vector": {"memorySearch": {**_LOCAL, "query": {"hybrid": {"enabled": False}}}},
    "hybrid": {"memorySearch": dict(_LOCAL)},
    "hybrid+decay": {"memorySearch": {**_LOCAL, "query": {"hybrid": {
        "temporalDecay": {"enabled": True}}}}},
    "hybrid+mmr": {"memorySearch": {**_LOCAL, "query": {"hybrid": {"mmr": {"enabled": True}}}}},
    "hybrid+decay+mmr": {"memorySearch": {**_LOCAL, "query": {"hybrid": {
        "temporalDecay": {"enabled": True}, "mmr": {"enabled": True}}}}},
    "hybrid+rrf": {"memorySearch": dict(_LOCAL), "memlab": {"fusion": {"method": "rrf"}}},
}


#: OpenClaw's default chunking (tokens, overlap): BEIR corpora are loaded with it.
_DEFAULT_CHUNKING = (400, 80)


def resolve_system(spec: str | Path | Mapping[str, Any] | MemlabConfig) -> tuple[str, MemlabConfig]:
    """A ``(name, config)`` pair for a built-in name, a config file or a config object."""
    if isinstance(spec, MemlabConfig):
        return "config", spec
    if isinstance(spec, Mapping):
        return "config", load_config(dict(spec))
    text = str(spec)
    if text in NAMED_SYSTEMS:
        return text, load_config(copy.deepcopy(NAMED_SYSTEMS[text]))
    path = Path(text)
    if path.is_file():
        return path.stem, load_config(path)
    raise ValueError(f"unknown system {text!r}: give a config file or one of "
                     f"{', '.join(NAMED_SYSTEMS)}")


def dataset_corpus(dataset: Any, config: MemlabConfig, embedder: Any = None) -> Any:
    """The corpus a config searches on a dataset: a BEIR dataset's own, or the memory
    workspace chunked as OpenClaw does (with a provider, chunks over its input cap,
    :func:`memlab.chunking.provider_input_cap` = min(maxInputTokens, 8000) UTF-8 bytes, are
    split; sessions when the config enables them).

    A BEIR dataset keeps the corpus it was loaded with while the config's chunking is
    OpenClaw's default (400 tokens, overlap 80); another chunking (e.g. a sweep's
    ``chunking.tokens`` axis) re-chunks its documents (:meth:`BeirDataset.rechunk`, memoised
    on the dataset).

    >>> from memlab.config import load_config
    >>> from memlab.eval.datasets import load_dataset
    >>> ds = load_dataset("tests/data/beir-mini", unknown_ids="keep")
    >>> cfg = load_config({"memorySearch": {"provider": "none", "chunking": {"tokens": 64}}})
    >>> len(dataset_corpus(ds, cfg)) > len(ds.corpus)
    True

    ``memlab.chunking: "model-window"`` then fits every chunk to the local model's window
    (:func:`memlab.embed.window.window_corpus`).
    """
    from memlab.embed.window import window_corpus

    corpus = getattr(dataset, "corpus", None)
    if corpus is not None:
        ms = config.memory_search
        chunking = (int(ms.chunking.tokens), int(ms.resolved_overlap()))
        if chunking == _DEFAULT_CHUNKING or not hasattr(dataset, "rechunk"):
            return window_corpus(corpus, config)
        memo = dataset.__dict__.setdefault("_memlab_rechunked", {})
        if chunking not in memo:
            memo[chunking] = dataset.rechunk(tokens=chunking[0], overlap=chunking[1]).corpus
        return window_corpus(memo[chunking], config)
    from memlab.corpus import load_workspace

    ms = config.memory_search
    max_bytes = (provider_input_cap(getattr(embedder, "max_input_tokens", None))
                 if embedder is not None else None)
    return window_corpus(load_workspace(dataset.workspace, ms.effective_extra_paths(),
                                        tokens=ms.chunking.tokens,
                                        overlap=ms.resolved_overlap(),
                                        sources=ms.effective_sources(),
                                        model=embedder.model if embedder is not None
                                        else "fts-only", max_input_bytes=max_bytes), config)


def run_system(dataset: Any, config: MemlabConfig, *, depth: int = 10,
               production: bool = False, embedders: dict[str, Any] | None = None
               ) -> pd.DataFrame:
    """Hits of ``config`` for every query of ``dataset`` (a memory or BEIR dataset).

    ``embedders`` caches one embedder per provider settings across systems, so comparing
    several systems embeds the corpus once. Session transcripts are searched when the config
    enables them (``sources`` with ``"sessions"`` and ``experimental.sessionMemory``); a
    ``session`` column of the queries applies that requester's transcript visibility
    (``"tree"``) per query, and queries without one see every transcript.
    """
    from memlab.openclaw import make_embedder, openclaw_pipeline

    ms = config.memory_search
    embedder = None
    if ms.resolved_provider() != "none":
        key = repr((ms.resolved_provider(), ms.model, ms.local, config.memlab.batch_size))
        store = embedders if embedders is not None else {}
        if key not in store:
            store[key] = make_embedder(config)
        embedder = store[key]
    corpus = dataset_corpus(dataset, config, embedder)
    kwargs = {} if production else {"max_results": depth, "min_score": 0.0}
    pipe = openclaw_pipeline(corpus, config, embedder, **kwargs)
    queries = dataset.queries
    if "now" in queries.columns and queries["now"].notna().any():
        # queries without their own `now` use the dataset's latest, so runs are reproducible
        queries = queries.assign(now=queries["now"].fillna(queries["now"].max()))
    return pipe.transform(queries)


def evaluate_systems(dataset: Any, systems: Sequence[str | Path | Mapping[str, Any]],
                     metrics: Sequence[str] = ("ndcg@10", "recall@10", "mrr@10"), *,
                     depth: int = 10, production: bool = False, by_tag: bool = False,
                     runs_dir: str | Path | None = None, n_resamples: int = 10_000,
                     condensed: bool = False):
    """Run and compare several systems on a dataset; the first is the baseline.

    The comparison's ``options["unjudged_share"]`` holds each system's share of retrieved
    hits that no judgment covers; ``condensed=True`` scores condensed lists (judged hits
    only, :func:`memlab.eval.judged.condense`).

    >>> from memlab.eval.datasets import load_dataset  # doctest: +SKIP
    >>> result = evaluate_systems(load_dataset("datasets/sample-memory"),
    ...                           ["keyword", "hybrid"])  # doctest: +SKIP
    >>> print(result.to_markdown())  # doctest: +SKIP
    """
    if not systems:
        raise ValueError("give at least one system (a config file or a built-in name)")
    runs: dict[str, pd.DataFrame] = {}
    embedders: dict[str, Any] = {}
    for spec in systems:
        name, cfg = resolve_system(spec)
        base, n = name, 1
        while name in runs:
            n += 1
            name = f"{base}-{n}"
        runs[name] = run_system(dataset, cfg, depth=depth, production=production,
                                embedders=embedders)
    level = getattr(dataset, "level", "span")
    if runs_dir is not None:
        from memlab.eval.trec import write_trec_run

        Path(runs_dir).mkdir(parents=True, exist_ok=True)
        for name, hits in runs.items():
            safe = "".join(c if c.isalnum() or c in "+-_." else "_" for c in name)
            write_trec_run(hits, Path(runs_dir) / f"{safe}.run", run_name=safe,
                           level="doc" if level == "doc" else "chunk")
    from memlab.eval.judged import compare_runs

    return compare_runs(runs, dataset, metrics, condensed=condensed, by_tag=by_tag,
                        n_resamples=n_resamples)
