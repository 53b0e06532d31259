"""OpenClaw's ``memory_search`` assembled from memlab stages (reference, sections 4 to 6).

:func:`openclaw_pipeline` turns a corpus and a config into the stage pipeline production runs:

* hybrid (a provider and ``query.hybrid.enabled``)::

      Fusion(vector, keyword) >> TemporalDecay >> MMR >> Threshold(relaxed="keyword")

* keyword only (``provider: "none"``)::

      Fusion(text=keyword) >> TemporalDecay >> Threshold(relaxed="zero")   # boosted score

* vector only (``query.hybrid.enabled: false``)::

      Fusion(vector=vector) >> Threshold(relaxed=None)

Both legs sit behind :class:`~memlab.pipeline.Cached`, so re-running the pipeline with other
fusion, decay, MMR or threshold parameters reuses their candidates.

:class:`MemorySearch` is the one-call entry point: a workspace and a config in, OpenClaw-shaped
results out::

    >>> ms = MemorySearch("datasets/sample-memory/workspace")  # doctest: +SKIP
    >>> ms.search("when do we deploy billing?")["results"][0]["citation"]  # doctest: +SKIP
    'memory/2026-09-02.md#L4-L9'
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from memlab.config import MemlabConfig, load_config
from memlab.corpus import Corpus, load_workspace
from memlab.embed import get_provider
from memlab.embed.base import EmbeddingProvider
from memlab.embed.cache import CachedEmbedder, EmbeddingCache
from memlab.frames import as_queries
from memlab.pipeline import Cached, Sequence, Stage
from memlab.sessions import (
    VISIBILITY_MODES,
    SessionNode,
    SessionVisibility,
    load_session_tree,
    visible_session_paths,
)
from memlab.snippet import citation, snippet
from memlab.stages.decay import TemporalDecay, to_epoch_ms
from memlab.stages.fusion import FusedHits, Fusion
from memlab.stages.lexical import BM25, TfIdf
from memlab.stages.mmr import MMR
from memlab.stages.threshold import Threshold
from memlab.stages.vector import VectorSearch
from memlab.text import Tokenizer

#: memlab's configuration when none is given: OpenClaw's defaults, but the embedded local
#: model instead of OpenAI, so everything runs offline with no API key.
DEFAULT_CONFIG: dict[str, Any] = {"memorySearch": {"provider": "local"}}


def default_cache_path() -> Path:
    """Where embeddings are cached unless the config says otherwise."""
    base = os.environ.get("MEMLAB_CACHE_DIR") or Path.home() / ".cache" / "memlab"
    return Path(base) / "embeddings.sqlite"


def make_embedder(config: MemlabConfig, cache: EmbeddingCache | None = None
                  ) -> EmbeddingProvider | None:
    """The configured provider behind the embedding cache; ``None`` for ``provider: "none"``.

    An explicitly configured provider that memlab cannot create raises
    :class:`memlab.embed.ProviderUnavailable`: it never silently degrades to keyword-only.
    With ``memorySearch.fallback`` the provider is a
    :class:`memlab.embed.fallback.FallbackEmbedder` (OpenClaw's fallback semantics).
    """
    from memlab.embed.fallback import create_with_fallback

    ms = config.memory_search
    provider_id = ms.resolved_provider()
    if provider_id == "none":
        return None
    fallback_id = ms.resolved_fallback()
    # OpenClaw: at start-up the fallback gets the primary's request (the configured model, or
    # the primary's default); activated later, its own default model (else the configured one)
    init_model = ms.model if ms.model is not None else (ms.resolved_model() or None)
    late_model = _default_model(fallback_id) or ms.model
    provider = create_with_fallback(
        provider_id, lambda: _create_provider(config, provider_id, ms.model), fallback_id,
        lambda at_init: _create_provider(config, str(fallback_id),
                                         init_model if at_init else late_model))
    if not ms.cache.enabled:
        return provider
    if cache is None:
        path = config.memlab.embedding_cache or default_cache_path()
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        cache = EmbeddingCache(path)
    return CachedEmbedder(provider, cache)


def _default_model(provider_id: str | None) -> str | None:
    from memlab.config import DEFAULT_MODELS

    return DEFAULT_MODELS.get((provider_id or "").lower()) or None


def _create_provider(config: MemlabConfig, provider_id: str, model: str | None
                     ) -> EmbeddingProvider:
    """Create provider ``provider_id`` from ``memorySearch`` with ``model`` (no cache)."""
    ms = config.memory_search
    settings: dict[str, Any] = {}
    if provider_id == "local":
        if ms.local and ms.local.model_path:
            settings["model_path"] = ms.local.model_path
        settings["batch_size"] = config.memlab.batch_size
    if model and provider_id != "local":
        settings["model"] = model
    if provider_id.lower() in _REMOTE_PROVIDERS:
        settings.update(_remote_settings(provider_id.lower(), ms))
    return get_provider(provider_id, **settings)


def keyword_only_config(config: MemlabConfig) -> MemlabConfig:
    """A copy of ``config`` searching keyword-only (``provider: "none"``), for an optional
    provider that is unavailable."""
    cfg = config.model_copy(deep=True)
    cfg.memory_search.provider = "none"
    cfg.memory_search.fallback = "none"
    return cfg


def make_search_embedder(config: MemlabConfig, cache: EmbeddingCache | None = None
                         ) -> tuple[EmbeddingProvider | None, str | None]:
    """``(embedder, degraded_reason)`` with OpenClaw's provider requirement (§7.3).

    ``provider: "none"`` -> ``(None, None)`` (keyword-only on purpose). A provider that
    cannot be created: *required* (any explicitly configured provider but ``local``) raises
    :class:`memlab.embed.fallback.RequiredProviderUnavailable` (search reports
    "unavailable" with the reason and the fix); *optional* (provider unset, ``"auto"`` or
    ``"local"``) warns with a :class:`memlab.workspace.MemlabWarning` and returns
    ``(None, reason)``: keyword-only search.
    """
    import warnings

    from memlab.embed import ProviderUnavailable
    from memlab.embed.fallback import RequiredProviderUnavailable
    from memlab.workspace import MemlabWarning

    ms = config.memory_search
    try:
        embedder = make_embedder(config, cache)
        if embedder is not None and embedder.id == "local" and \
                ms.provider_requirement() == "optional":
            _ = embedder.dims  # loads the model: a missing one degrades now, not mid-search
        return embedder, None
    except ProviderUnavailable as exc:
        if ms.provider_requirement() == "required":
            raise RequiredProviderUnavailable(ms.resolved_provider(), str(exc)) from None
        reason = str(exc)
        warnings.warn(f"memory search: embeddings unavailable (provider "
                      f"{ms.resolved_provider()!r}): {reason}; using keyword-only results. "
                      "Fix the provider or set provider \"none\" to silence this warning.",
                      MemlabWarning, stacklevel=2)
        return None, reason


#: Remote providers make_embedder maps config to: id -> environment variables of the API key.
_REMOTE_PROVIDERS: dict[str, tuple[str, ...]] = {
    "openai-compatible": (),
    "openai": ("OPENAI_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "voyage": ("VOYAGE_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "deepinfra": ("DEEPINFRA_API_KEY",),
    "ollama": ("OLLAMA_API_KEY",),
    "lmstudio": ("LM_API_TOKEN",),
    "github-copilot": ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"),
    "bedrock": (),
}


def _configured_api_key(key: Any) -> str | None:
    """``remote.apiKey`` as a string: a literal, or an ``env`` secret reference."""
    from pydantic import SecretStr

    from memlab.embed import ProviderUnavailable

    if key is None:
        return None
    if isinstance(key, SecretStr):
        return key.get_secret_value().strip() or None
    if key.source != "env":  # a secret reference {source, provider, id}
        raise ProviderUnavailable(
            f"memorySearch.remote.apiKey: memlab resolves only env secret references; "
            f"got source {key.source!r} (id {key.id!r})")
    if not os.environ.get(key.id):
        raise ProviderUnavailable(
            f"memorySearch.remote.apiKey: environment variable {key.id} is not set")
    return os.environ[key.id]


def _remote_settings(provider_id: str, ms: Any) -> dict[str, Any]:
    """Constructor settings of a remote provider from ``memorySearch`` (and the environment).

    API keys come from ``remote.apiKey`` or the provider's environment variables (OpenClaw's
    names); they are handed to the provider only, which keeps them out of keys and messages.
    """
    remote = ms.remote
    out: dict[str, Any] = {}
    key = _configured_api_key(remote.api_key)
    if provider_id == "gemini" and key in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        key = (os.environ.get(key) or "").strip() or None
    envs = _REMOTE_PROVIDERS[provider_id]
    base_url = (remote.base_url or "").strip() or None
    if key is None and envs and provider_id != "ollama":
        key = next((os.environ[e].strip() for e in envs if (os.environ.get(e) or "").strip()),
                   None)
    if key is None and provider_id == "ollama" and "ollama.com" in (base_url or ""):
        key = (os.environ.get("OLLAMA_API_KEY") or "").strip() or None
    if provider_id == "github-copilot":
        if key is not None:
            out["github_token"] = key
    elif provider_id != "bedrock":
        if key is not None or provider_id in ("openai", "gemini", "voyage", "mistral",
                                              "deepinfra"):
            out["api_key"] = key
    if provider_id == "openai-compatible" or base_url:
        out["base_url"] = base_url
    if remote.headers and provider_id != "bedrock":
        out["headers"] = dict(remote.headers)
    if provider_id in ("openai", "openai-compatible"):
        out["input_type"] = ms.input_type
        out["query_input_type"] = ms.query_input_type
        out["document_input_type"] = ms.document_input_type
    if provider_id in ("openai", "openai-compatible", "gemini", "ollama", "bedrock"):
        out["output_dimensionality"] = ms.output_dimensionality
    if ms.sync.embedding_batch_timeout_seconds is not None:
        out["batch_timeout"] = float(ms.sync.embedding_batch_timeout_seconds)
    if provider_id in ("openai", "gemini", "voyage") and ms.remote.batch.enabled:
        out["batch"] = ms.remote.batch  # the async batch-job API (memlab.embed.batch)
    return out


def keyword_leg(corpus: Corpus, config: MemlabConfig, *, store: Any = None,
                depth: int | None = None) -> Stage:
    """The keyword leg the config asks for (``memlab.keyword``).

    ``"fts5"`` is OpenClaw's own leg on SQLite FTS5 (:class:`memlab.index.FTS5`): over
    ``store`` (a :class:`memlab.index.IndexStore` whose ``corpus()`` is ``corpus``) or, without
    one, over an in-memory FTS5 table of ``corpus``; ``depth`` is its ``LIMIT`` (OpenClaw's
    ``candidates``; default ``memorySearch``'s). ``"bm25"``/``"tfidf"`` are the research legs.
    """
    opts = config.memlab
    if opts.keyword == "fts5":
        from memlab.index.fts import FTS5

        return FTS5(store if store is not None else corpus,
                    tokenizer=config.memory_search.store.fts.tokenizer,
                    depth=int(depth or config.memory_search.candidates()),
                    fallback=opts.keyword_fallback)
    tok = opts.tokenizer
    tokenizer = Tokenizer(lowercase=tok.lowercase, stopwords=tok.stopwords, stemmer=tok.stemmer,
                          cjk=tok.cjk, thai=tok.thai)
    # the fallback's keyword extraction depends on OpenClaw's FTS tokenizer setting
    fallback = {"fallback": opts.keyword_fallback,
                "fts_tokenizer": config.memory_search.store.fts.tokenizer}
    if opts.keyword == "bm25":
        return BM25(corpus, tokenizer=tokenizer, variant=opts.bm25.variant, k1=opts.bm25.k1,
                    b=opts.bm25.b, delta=opts.bm25.delta, match=opts.match, **fallback)
    if opts.keyword == "tfidf":
        return TfIdf(corpus, tokenizer=tokenizer, match=opts.match, **fallback)
    raise ValueError(f"memlab.keyword={opts.keyword!r} is not a keyword leg; use 'fts5', "
                     "'bm25' or 'tfidf'")


def openclaw_pipeline(corpus: Corpus, config: MemlabConfig | dict | str | Path | None = None,
                      embedder: EmbeddingProvider | None = None, *,
                      max_results: int | None = None, min_score: float | None = None,
                      now: object = None, store: Any = None, session: str | None = None,
                      session_tree: Any = None, visibility: str | None = None,
                      agent_id: str | None = None) -> Sequence:
    """Build OpenClaw's search pipeline over ``corpus`` (see the module docstring).

    ``store``: a :class:`memlab.index.IndexStore` whose ``corpus()`` is ``corpus`` (the
    persistent index). Then the vector leg scores the stored vectors as sqlite-vec does
    (:class:`memlab.index.IndexVectorSearch`; with ``memlab.vectorIndex`` other than
    ``"Flat"``, FAISS as without a store) and an ``"fts5"`` keyword leg queries the index's
    FTS5 table.

    ``embedder`` is required unless the config's provider is ``"none"``. ``max_results`` and
    ``min_score`` override ``query.maxResults``/``query.minScore`` like the CLI flags do;
    ``now`` fixes the reference time of temporal decay.

    Session transcripts (a corpus loaded with ``sources`` including ``"sessions"``): when the
    corpus has session chunks, a :class:`SessionVisibility` stage follows ``Threshold``
    (OpenClaw's placement: the ``memory_search`` tool filters the manager's cut results, so a
    hidden hit costs a slot). The requester is ``session`` (a session key such as
    ``agent:main:main``, or a session id of the tree), or per query the ``session`` column of
    the queries; ``visibility`` is ``tools.sessions.visibility`` (``self``/``tree``/``agent``/
    ``all``, default ``"tree"``); ``session_tree`` is the session store (a ``sessions.json``
    path, a folder holding one, a dict or :func:`memlab.sessions.load_session_tree`'s result;
    default: ``<corpus root>/sessions/<agent_id>/sessions.json``). A query with no current
    session is not filtered: that is ``openclaw memory search`` (the CLI searches the manager
    directly, without a requester), while OpenClaw's ``memory_search`` tool, which always runs
    inside a session, would drop every session hit.

    >>> from memlab.corpus import Corpus
    >>> corpus = Corpus.from_texts(["the deploy window moved to Tuesday", "lunch was good"])
    >>> pipe = openclaw_pipeline(corpus, {"provider": "none"})
    >>> pipe("deploy window")[["path", "score"]].round(3).to_dict("records")
    [{'path': 'doc-1.md', 'score': 0.697}]
    """
    cfg = config if isinstance(config, MemlabConfig) else load_config(
        DEFAULT_CONFIG if config is None else config)
    ms = cfg.memory_search
    q = ms.query
    max_results = int(max_results if max_results is not None else q.max_results)
    min_score = float(min_score if min_score is not None else q.min_score)
    candidates = ms.candidates(max_results)
    vw, tw = ms.normalized_weights()
    hybrid = q.hybrid
    decay = TemporalDecay(corpus, half_life_days=ms.half_life_days(),
                          enabled=hybrid.temporal_decay.enabled, now=now,
                          rule=cfg.memlab.decay_rule)
    provider_id = ms.resolved_provider()
    if provider_id == "none":
        fusion = Fusion(text=Cached(keyword_leg(corpus, cfg, store=store, depth=candidates)),
                        candidates=candidates)
        return _with_visibility(
            fusion >> decay >> Threshold(min_score, max_results, relaxed="zero"),
            corpus, session, session_tree, visibility, agent_id)
    if embedder is None:
        raise ValueError(
            f"provider {provider_id!r} needs an embedder: pass embedder=make_embedder(config), "
            "or set provider to 'none' for keyword-only search"
        )
    if store is not None and cfg.memlab.vector_index == "Flat":
        from memlab.index.vectors import IndexVectorSearch

        vector = Cached(IndexVectorSearch(store, embedder, depth=candidates))
    else:
        vector = Cached(VectorSearch(corpus, embedder, index=cfg.memlab.vector_index))
    if not hybrid.enabled:
        return _with_visibility(Fusion(vector=vector, candidates=candidates) >> Threshold(
            min_score, max_results, relaxed=None), corpus, session, session_tree, visibility,
            agent_id)
    fusion = Fusion(vector=vector,
                    text=Cached(keyword_leg(corpus, cfg, store=store, depth=candidates)),
                    method=cfg.memlab.fusion.method, vector_weight=vw, text_weight=tw,
                    candidates=candidates, rrf_k=cfg.memlab.fusion.rrf_k)
    mmr = MMR(corpus, lambda_=ms.mmr_lambda(), enabled=hybrid.mmr.enabled)
    return _with_visibility(
        fusion >> decay >> mmr >> Threshold(min_score, max_results, relaxed="keyword"),
        corpus, session, session_tree, visibility, agent_id)


class QuerySessionVisibility(SessionVisibility):
    """:class:`~memlab.sessions.SessionVisibility` with a per-query requester.

    A query's current session is its ``session`` value (a queries/hits column) when set, else
    the stage's ``current_session``; queries with neither are not filtered (see
    :func:`openclaw_pipeline`). Session ids of the tree are accepted for session keys.
    """

    def transform(self, hits: pd.DataFrame) -> pd.DataFrame:
        if hits.empty or not (hits["source"].to_numpy() == "sessions").any():
            return hits
        tree = _session_tree(self.session_tree)
        default = self.current_session
        if "session" in hits.columns:
            requester = [str(v).strip() if isinstance(v, str) and v.strip() else default
                         for v in hits["session"]]
        else:
            requester = [default] * len(hits)
        keep = np.ones(len(hits), dtype=bool)
        cache: dict[tuple[str, str], bool] = {}
        for i, (source, path, who) in enumerate(zip(hits["source"], hits["path"], requester,
                                                    strict=True)):
            if source != "sessions" or who is None:
                continue
            key = (who, path)
            if key not in cache:
                current = resolve_session_key(tree, who, self.agent_id)
                cache[key] = path in visible_session_paths(
                    tree, current, self.mode, self.agent_id, paths=[path],
                    transitive=self.transitive, agent_to_agent=self.agent_to_agent)
            keep[i] = cache[key]
        if keep.all():
            return hits
        out = hits[keep].copy()
        out["rank"] = out.groupby("qid", sort=False).cumcount() + 1
        return out.reset_index(drop=True)


def _session_tree(session_tree: Any) -> dict:
    if session_tree is None:
        return {}
    if isinstance(session_tree, (str, os.PathLike)) and not Path(session_tree).exists():
        return {}
    return load_session_tree(session_tree) if not (
        isinstance(session_tree, dict) and all(isinstance(v, SessionNode)
                                               for v in session_tree.values())) else session_tree


def resolve_session_key(session_tree: Any, session: str, agent_id: str | None = None) -> str:
    """The session key of ``session`` in the tree: a key as given (``agent:main:main``), a
    bare key (``main`` -> ``agent:<agent_id>:main``) or a session id / transcript stem.
    Unknown names are returned as given (lower-cased keys, as OpenClaw compares them)."""
    tree = _session_tree(session_tree)
    text = session.strip()
    lowered = text.lower()
    if lowered in tree:
        return lowered
    canonical = f"agent:{(agent_id or 'main').strip().lower()}:{lowered}"
    if not lowered.startswith("agent:") and canonical in tree:
        return canonical
    for key, node in tree.items():
        stem = None
        if node.session_file:
            base = os.path.basename(node.session_file.replace("\\", "/"))
            stem = base.removesuffix(".jsonl")
        if text in (node.session_id, stem):
            return key
    return lowered if lowered.startswith("agent:") else canonical


def _with_visibility(pipe: Sequence, corpus: Corpus, session: str | None, session_tree: Any,
                     visibility: str | None, agent_id: str | None) -> Sequence:
    """``pipe`` followed by session visibility when ``corpus`` has session chunks."""
    mode = (visibility or "tree").strip().lower()
    if mode not in VISIBILITY_MODES:
        raise ValueError(f"unknown session visibility {visibility!r}; use one of "
                         f"{', '.join(VISIBILITY_MODES)}")
    if not len(corpus) or not (corpus.chunks["source"] == "sessions").any():
        return pipe
    agent = (agent_id or "main").strip().lower() or "main"
    if session_tree is None and corpus.root is not None:
        session_tree = Path(corpus.root) / "sessions" / agent / "sessions.json"
    tree = _session_tree(session_tree)
    current = resolve_session_key(tree, session, agent) if session else None
    return pipe >> QuerySessionVisibility(tree, current, mode=mode, agent_id=agent)


def hits_to_results(hits: pd.DataFrame, corpus: Corpus, mode: str) -> list[dict[str, Any]]:
    """OpenClaw's result objects (``openclaw memory search --json``) for one query's hits."""
    results = []
    texts = corpus.chunks["text"]
    for row in hits.itertuples(index=False):
        item: dict[str, Any] = {
            "path": row.path,
            "startLine": int(row.start_line),
            "endLine": int(row.end_line),
            "score": float(row.score),
        }
        if mode == "hybrid":
            item["vectorScore"] = float(row.vector_score)
            item["textScore"] = float(row.text_score)
        elif mode == "fts-only":
            item["textScore"] = float(row.text_score)
        item["snippet"] = snippet(texts.iloc[row.docno])
        item["source"] = row.source
        item["citation"] = citation(row.path, int(row.start_line), int(row.end_line))
        results.append(item)
    return results


class MemorySearch:
    """Search one workspace as OpenClaw would: discovery, chunking, both legs, the merge.

    Parameters
    ----------
    workspace:
        The agent workspace (holding ``MEMORY.md`` and ``memory/``).
    config:
        An OpenClaw config (path, JSON5 text, dict or :class:`MemlabConfig`); ``None`` uses
        :data:`DEFAULT_CONFIG` (OpenClaw's defaults with the offline local model).
    embedder:
        Overrides the provider named in the config (e.g. a shared cached embedder).
    session, session_tree, visibility:
        With ``sources: ["memory", "sessions"]`` and ``experimental.sessionMemory: true``, the
        agent's transcripts (``workspace/sessions/<agent_id>/*.jsonl``) are searched too; a
        current ``session`` (key or id) hides the transcripts it may not see under
        ``visibility`` (see :func:`openclaw_pipeline`). A queries frame given to :meth:`run`
        may carry a per-query ``session`` column instead.
    agent_id:
        The agent whose transcripts are indexed (default ``"main"``).

    >>> ms = MemorySearch("datasets/sample-memory/workspace", {"provider": "none"})
    >>> ms.search("staging database host")["results"][0]["path"]
    'memory/2026-08-06.md'
    """

    def __init__(self, workspace: str | Path,
                 config: MemlabConfig | dict | str | Path | None = None,
                 embedder: EmbeddingProvider | None = None, *, session: str | None = None,
                 session_tree: Any = None, visibility: str | None = None,
                 agent_id: str = "main"):
        self.config = config if isinstance(config, MemlabConfig) else load_config(
            DEFAULT_CONFIG if config is None else config)
        ms = self.config.memory_search
        self.session, self.session_tree = session, session_tree
        self.visibility, self.agent_id = visibility, agent_id
        self.degraded: str | None = None
        if embedder is not None:
            self.embedder = embedder
        else:
            self.embedder, self.degraded = make_search_embedder(self.config)
            if self.degraded is not None:  # optional provider unavailable: keyword-only
                self.config = keyword_only_config(self.config)
                ms = self.config.memory_search
        model = self.embedder.model if self.embedder is not None else "fts-only"
        max_bytes = None
        if self.embedder is not None:
            max_bytes = min(getattr(self.embedder, "max_input_tokens", 8192), 8000)
        self.corpus = load_workspace(workspace, ms.effective_extra_paths(),
                                     tokens=ms.chunking.tokens, overlap=ms.resolved_overlap(),
                                     model=model, max_input_bytes=max_bytes,
                                     sources=ms.effective_sources(), agent_id=agent_id)
        self._pipes: dict[tuple, Sequence] = {}

    #: Why an optional provider (unset/``local``) is unavailable and search is keyword-only.
    degraded: str | None = None

    @classmethod
    def from_corpus(cls, corpus: Corpus, config: MemlabConfig | dict | str | Path | None = None,
                    embedder: EmbeddingProvider | None = None) -> MemorySearch:
        """Search an already loaded :class:`~memlab.corpus.Corpus` (benchmarks, synthetic
        collections) instead of a workspace; ``embedder`` as for the constructor."""
        self = cls.__new__(cls)
        self.config = config if isinstance(config, MemlabConfig) else load_config(
            DEFAULT_CONFIG if config is None else config)
        if self.config.memory_search.resolved_provider() == "none":
            self.embedder = None
        else:
            self.embedder = embedder if embedder is not None else make_embedder(self.config)
        self.corpus = corpus
        self._pipes = {}
        return self

    #: Session visibility settings (see :func:`openclaw_pipeline`); class defaults so
    #: subclasses that skip ``__init__`` have them.
    session: str | None = None
    session_tree: Any = None
    visibility: str | None = None
    agent_id: str = "main"

    def _pipeline_options(self) -> dict[str, Any]:
        """Extra keyword arguments for :func:`openclaw_pipeline` (subclasses add a store)."""
        return self._session_options()

    def _session_options(self) -> dict[str, Any]:
        return {"session": self.session, "session_tree": self.session_tree,
                "visibility": self.visibility, "agent_id": self.agent_id}

    @property
    def mode(self) -> str:
        """``"hybrid"``, ``"fts-only"`` or ``"vector"``."""
        if self.embedder is None:
            return "fts-only"
        return "hybrid" if self.config.memory_search.query.hybrid.enabled else "vector"

    def pipeline(self, max_results: int | None = None, min_score: float | None = None,
                 now: object = None) -> Sequence:
        """The stage pipeline (legs cached across calls)."""
        key = (max_results, min_score)
        pipe = self._pipes.get(key)
        if pipe is None:
            pipe = openclaw_pipeline(self.corpus, self.config, self.embedder,
                                     max_results=max_results, min_score=min_score,
                                     **self._pipeline_options())
            self._pipes[key] = pipe
        for stage in pipe.stages:
            if isinstance(stage, TemporalDecay):
                stage.now = now  # what set_params(now=now) does, without its validation cost
        return pipe

    def run(self, queries: Any, max_results: int | None = None, min_score: float | None = None,
            now: object = None) -> pd.DataFrame:
        """Hits for many queries (the tabular contract)."""
        frame = as_queries(queries)
        frame = frame.assign(query=frame["query"].str.strip())
        return self.pipeline(max_results, min_score, now).transform(frame)

    def search(self, query: str, max_results: int | None = None,
               min_score: float | None = None, now: object = None) -> dict[str, Any]:
        """One query, answered like ``openclaw memory search --json``.

        Runs the fast single-query path (:meth:`search_hits`): the same stages on numpy
        arrays, no frames; the results equal :meth:`run`'s.
        """
        results: list[dict[str, Any]] = []
        if query.strip():
            found = self.search_hits(query, max_results, min_score, now)
            if found is not None:
                results = self._results(found)
            else:
                hits = self.run(query, max_results, min_score, now)
                results = hits_to_results(hits, self.corpus, self.mode) if len(hits) else []
        provider = self.embedder.id if self.embedder is not None else "none"
        model = self.embedder.model if self.embedder is not None else None
        return {"results": results, "provider": provider, "model": model}

    def search_hits(self, query: str, max_results: int | None = None,
                    min_score: float | None = None, now: object = None) -> FusedHits | None:
        """One query's final hits as arrays (docno, score, vector/text score, keyword hit),
        computed without DataFrames: the legs return arrays (FTS5 through reused prepared
        statements), then fusion, decay, MMR and the threshold run on them.

        The same hits as :meth:`run` (``tests/test_fast_search.py``, ``parity/run.py``);
        ``None`` when the pipeline holds a stage the fast path does not know (session
        visibility, ``minmax``/``zscore`` fusion, custom stages): use :meth:`run` then.
        """
        pipe = self.pipeline(max_results, min_score, now)
        plan = _fast_plan(pipe)
        if plan is None:
            return None
        fusion, decay, mmr, threshold = plan
        text = query.strip()
        k = int(fusion.candidates)
        vec = _vector_arrays(fusion.vector, text, k) if fusion.vector is not None else None
        txt = (_keyword_arrays(fusion.text, text, k, boost=fusion.vector is None)
               if fusion.text is not None else None)
        if (fusion.vector is not None and vec is None) or (fusion.text is not None
                                                           and txt is None):
            return None
        hits = fusion.fuse_one(vec, txt)
        if hits is None:
            return None
        if decay is not None and decay.enabled and len(hits.docno):
            if decay.corpus is self.corpus:
                mult = decay.docno_multipliers(hits.docno, to_epoch_ms(decay.now))
            else:
                cols = self._columns()
                docnos = hits.docno.tolist()
                mult = decay.multipliers([cols["path"][d] for d in docnos],
                                         [cols["source"][d] for d in docnos],
                                         to_epoch_ms(decay.now))
            hits = hits._replace(score=hits.score * mult)
            hits = _permute(hits, np.argsort(-hits.score, kind="stable"))
        threshold.validate()
        if not len(hits.docno):
            return hits
        # which hits the cut may keep does not depend on their order, so MMR can stop once
        # it has picked maxResults of them
        eligible = threshold.eligible(hits.score, hits.keyword_hit)
        if mmr is not None and mmr.enabled:
            order = mmr.order(hits.docno, hits.score, eligible, int(threshold.max_results))
            hits, eligible = _permute(hits, order), eligible[order]
        keep = np.flatnonzero(eligible)[:int(threshold.max_results)]
        return _permute(hits, keep)

    def _columns(self) -> dict[str, list]:
        """The chunk table's columns as lists (built once per corpus)."""
        chunks = self.corpus.chunks
        cached = self.__dict__.get("_chunk_cols")
        if cached is None or cached[0] is not chunks:
            cols = {c: chunks[c].tolist() for c in ("path", "start_line", "end_line", "source",
                                                    "text")}
            cached = (chunks, cols)
            self.__dict__["_chunk_cols"] = cached
        return cached[1]

    def _snippet(self, docno: int, cols: dict[str, list]) -> str:
        memo = self.__dict__.setdefault("_snippets", {})
        if memo.get("_chunks") is not self.corpus.chunks or len(memo) > 50_000:
            memo.clear()
            memo["_chunks"] = self.corpus.chunks
        text = memo.get(docno)
        if text is None:
            text = memo[docno] = snippet(cols["text"][docno])
        return text

    def _results(self, hits: FusedHits) -> list[dict[str, Any]]:
        """:func:`hits_to_results` of array hits."""
        cols = self._columns()
        mode = self.mode
        out = []
        for d, score, vs, ts in zip(hits.docno.tolist(), hits.score.tolist(),
                                    hits.vector_score.tolist(), hits.text_score.tolist(),
                                    strict=True):
            path, start, end = cols["path"][d], int(cols["start_line"][d]), int(
                cols["end_line"][d])
            item: dict[str, Any] = {"path": path, "startLine": start, "endLine": end,
                                    "score": float(score)}
            if mode == "hybrid":
                item["vectorScore"] = float(vs)
                item["textScore"] = float(ts)
            elif mode == "fts-only":
                item["textScore"] = float(ts)
            item["snippet"] = self._snippet(d, cols)
            item["source"] = cols["source"][d]
            item["citation"] = citation(path, start, end)
            out.append(item)
        return out


def _permute(hits: FusedHits, order: np.ndarray) -> FusedHits:
    return FusedHits(*(a[order] for a in hits))


def _fast_plan(pipe: Sequence) -> tuple[Fusion, TemporalDecay | None, MMR | None,
                                        Threshold] | None:
    """``(fusion, decay, mmr, threshold)`` when ``pipe`` is one of
    :func:`openclaw_pipeline`'s shapes made of stages the fast path knows, else ``None``."""
    stages = list(pipe.stages)
    if len(stages) < 2 or type(stages[0]) is not Fusion or type(stages[-1]) is not Threshold:
        return None
    decay = mmr = None
    for stage in stages[1:-1]:
        if type(stage) is TemporalDecay and decay is None and mmr is None:
            decay = stage
        elif type(stage) is MMR and mmr is None:
            mmr = stage
        else:
            return None
    fusion = stages[0]
    for leg in (fusion.vector, fusion.text):
        if leg is not None and type(leg) is not Cached:
            return None
    return fusion, decay, mmr, stages[-1]


def _vector_arrays(leg: Cached, text: str, k: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The vector leg's first ``k`` hits of one query as ``(docnos, scores)``."""
    from memlab.index.vectors import IndexVectorSearch

    inner = leg.stage
    if type(inner) is VectorSearch:
        return inner.search_arrays(text, min(int(inner.depth), k))
    if type(inner) is IndexVectorSearch:
        d, s = inner.search_arrays(text)
        return d[:k], s[:k]
    return None


def _keyword_arrays(leg: Cached, text: str, k: int, boost: bool
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The keyword leg's hits of one query, cut as fusion cuts them: ``(docnos,
    text_scores, boosted_scores, ranks)``; ``boost`` asks for the boosted scores."""
    from memlab.index.fts import FTS5

    inner = leg.stage
    if type(inner) is FTS5:
        found = inner.search_arrays(text, boost=boost)
        n = len(found.docno) if found.fallback else min(k, len(found.docno))
        ranks = np.arange(1, n + 1, dtype=np.int64)
        return found.docno[:n], found.text_score[:n], found.boosted_score[:n], ranks
    if not isinstance(inner, Stage):
        return None
    hits = inner.transform(as_queries(text))  # the research legs (BM25, TF-IDF)
    if not len(hits):
        empty = np.zeros(0)
        return np.zeros(0, dtype=np.int64), empty, empty, np.zeros(0, dtype=np.int64)
    ranks = hits["rank"].to_numpy(dtype=np.int64)
    keep = ranks <= k
    if "fallback" in hits.columns:
        keep |= hits["fallback"].to_numpy(dtype=bool)
    ts = hits["text_score"] if "text_score" in hits.columns else hits["score"]
    # keyword-only mode ranks by the boosted score, else by the leg's own score
    boosted = hits["boosted_score" if "boosted_score" in hits else "score"].to_numpy(
        dtype=np.float64)
    return (hits["docno"].to_numpy(dtype=np.int64)[keep], ts.to_numpy(dtype=np.float64)[keep],
            boosted[keep], ranks[keep])
