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

This module only assembles pipelines: the embedder comes from :mod:`memlab.embed.factory`
(re-exported here), the ranking math from :mod:`memlab.kernels` through the stages, the
result objects from :mod:`memlab.results`, and the persistent index injects its legs
(:mod:`memlab.indexed_search`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from memlab.chunking import provider_input_cap
from memlab.config import DEFAULT_CONFIG, MemlabConfig, load_config
from memlab.config.json5io import ConfigTree, read_source
from memlab.config.overrides import apply_active_overrides
from memlab.corpus import Corpus, load_workspace
from memlab.embed.base import EmbeddingProvider
from memlab.embed.factory import (
    default_cache_path,
    keyword_only_config,
    make_embedder,
    make_search_embedder,
)
from memlab.frames import Query, as_queries
from memlab.index.fts import FTS5
from memlab.lines import Line, detect_line
from memlab.pipeline import Cached, Sequence, Stage
from memlab.results import ResultBuilder, hits_to_results
from memlab.sessions import (
    VISIBILITY_MODES,
    SessionNode,
    SessionVisibility,
    load_session_tree,
    visible_session_paths,
)
from memlab.stages.decay import TemporalDecay
from memlab.stages.fusion import Fusion
from memlab.stages.lexical import BM25, TfIdf
from memlab.stages.mmr import MMR
from memlab.stages.threshold import Threshold
from memlab.stages.vector import VectorSearch
from memlab.text import Tokenizer

__all__ = ["DEFAULT_CONFIG", "MemorySearch", "QuerySessionVisibility", "config_line",
           "config_tree", "default_cache_path", "hits_to_results", "keyword_leg",
           "keyword_only_config", "make_embedder", "make_search_embedder", "openclaw_pipeline",
           "resolve_session_key"]



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
                      now: object = None, store: Any = None,
                      vector_leg: Callable[[EmbeddingProvider, int], Stage] | None = None,
                      session: str | None = None, session_tree: Any = None,
                      visibility: str | None = None, agent_id: str | None = None,
                      line: str | Line | None = None) -> Sequence:
    """Build OpenClaw's search pipeline over ``corpus`` from the line's recipe (see the module
    docstring): one stage per step of :attr:`memlab.lines.Line.recipe` that applies to the
    config's mode. ``line`` defaults to the config's ``memlab.profile``, else the
    ``agents.defaults.memorySearch`` line; it must run the stage engine.

    The legs are injected by the caller that owns the index (:mod:`memlab.indexed_search`):
    ``store`` is an FTS5 source (a :class:`memlab.index.IndexStore` whose ``corpus()`` is
    ``corpus``) that an ``"fts5"`` keyword leg queries instead of an in-memory FTS5 table of
    ``corpus``; ``vector_leg(embedder, depth)`` builds the vector leg instead of FAISS over
    ``corpus`` (e.g. :class:`memlab.index.IndexVectorSearch`, scoring the stored vectors as
    sqlite-vec does).

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
    line = detect_line({"memlab": {"profile": cfg.memlab.profile}}
                       if cfg.memlab.profile else None, line)
    if line.engine != "stages":
        raise ValueError(f"line {line.name} runs the {line.engine} engine, not a stage "
                         "pipeline: use MemorySearch(workspace, config)")
    ms = cfg.memory_search
    max_results = int(max_results if max_results is not None else ms.query.max_results)
    min_score = float(min_score if min_score is not None else ms.query.min_score)
    provider_id = ms.resolved_provider()
    if provider_id != "none" and embedder is None:
        raise ValueError(
            f"provider {provider_id!r} needs an embedder: pass embedder=make_embedder(config), "
            "or set provider to 'none' for keyword-only search"
        )
    session_options = {"session": session, "session_tree": session_tree,
                       "visibility": visibility, "agent_id": agent_id}
    build = _Build(corpus, cfg, embedder, ms.pipeline_mode(), max_results, min_score, now,
                   store, vector_leg, session_options)
    stages: list[Stage] = []
    for step in line.recipe:
        stage = getattr(build, step.stage.replace("-", "_"))(step)
        if stage is not None:
            stages.append(stage)
    return Sequence(stages)


class _Build:
    """The stage of each recipe step (:mod:`memlab.lines`) for one config and mode; a step
    that does not apply to the mode builds nothing (``None``)."""

    def __init__(self, corpus: Corpus, cfg: MemlabConfig, embedder: Any, mode: str,
                 max_results: int, min_score: float, now: object, store: Any,
                 vector_leg: Any, session: dict[str, Any]) -> None:
        self.corpus, self.cfg, self.embedder, self.mode = corpus, cfg, embedder, mode
        self.max_results, self.min_score, self.now = max_results, min_score, now
        self.store, self.vector_leg, self.session = store, vector_leg, session
        self.candidates = cfg.memory_search.candidates(max_results)
        self.vector: Stage | None = None
        self.keyword: Stage | None = None

    def legs(self, step: Any) -> None:
        """The vector leg (unless keyword-only) and the keyword leg (unless vector-only),
        each behind :class:`~memlab.pipeline.Cached`."""
        if self.mode != "fts-only":
            if self.vector_leg is not None:
                self.vector = Cached(self.vector_leg(self.embedder, self.candidates))
            else:
                opts = self.cfg.memlab
                self.vector = Cached(VectorSearch(self.corpus, self.embedder,
                                                  index=opts.vector_index,
                                                  index_params=opts.vector_index_params))
        if self.mode != "vector":
            self.keyword = Cached(keyword_leg(self.corpus, self.cfg, store=self.store,
                                              depth=self.candidates))

    def fusion(self, step: Any) -> Stage:
        """The merge (hybrid) or one leg's own scores (keyword-only, vector-only)."""
        if self.mode == "fts-only":
            return Fusion(text=self.keyword, candidates=self.candidates)
        if self.mode == "vector":
            return Fusion(vector=self.vector, candidates=self.candidates)
        hybrid, fusion = self.cfg.memory_search.query.hybrid, self.cfg.memlab.fusion
        return Fusion(vector=self.vector, text=self.keyword, method=fusion.method,
                      vector_weight=hybrid.vector_weight, text_weight=hybrid.text_weight,
                      candidates=self.candidates, rrf_k=fusion.rrf_k)

    def decay(self, step: Any) -> Stage | None:
        if self.mode not in step.get("modes", ()):
            return None
        ms = self.cfg.memory_search
        return TemporalDecay(self.corpus, half_life_days=ms.half_life_days(),
                             enabled=ms.query.hybrid.temporal_decay.enabled,
                             now=self.now, rule=self.cfg.memlab.decay_rule)

    def mmr(self, step: Any) -> Stage | None:
        if self.mode not in step.get("modes", ()):
            return None
        ms = self.cfg.memory_search
        return MMR(self.corpus, lambda_=ms.mmr_lambda(), enabled=ms.query.hybrid.mmr.enabled)

    def threshold(self, step: Any) -> Stage:
        return Threshold(self.min_score, self.max_results, relaxed=step.get("relaxed")[self.mode])

    def visibility(self, step: Any) -> Stage | None:
        """Session visibility, when the corpus has session chunks (:func:`_visibility`)."""
        return _visibility(self.corpus, **self.session)


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


def _visibility(corpus: Corpus, session: str | None, session_tree: Any,
                visibility: str | None, agent_id: str | None) -> Stage | None:
    """Session visibility when ``corpus`` has session chunks (else ``None``)."""
    mode = (visibility or "tree").strip().lower()
    if mode not in VISIBILITY_MODES:
        raise ValueError(f"unknown session visibility {visibility!r}; use one of "
                         f"{', '.join(VISIBILITY_MODES)}")
    if not len(corpus) or not (corpus.chunks["source"] == "sessions").any():
        return None
    agent = (agent_id or "main").strip().lower() or "main"
    if session_tree is None and corpus.root is not None:
        session_tree = Path(corpus.root) / "sessions" / agent / "sessions.json"
    tree = _session_tree(session_tree)
    current = resolve_session_key(tree, session, agent) if session else None
    return QuerySessionVisibility(tree, current, mode=mode, agent_id=agent)


def config_tree(config: MemlabConfig | dict | str | Path | None) -> ConfigTree | None:
    """A config given as a path, JSON5 text or dict, read once: a
    :class:`~memlab.config.json5io.ConfigTree` that ``load_config`` takes without reading it
    again and that still names its file in errors (``None`` for ``None``, a
    :class:`MemlabConfig` or a value that is not an object, which ``load_config`` reports)."""
    if config is None or isinstance(config, MemlabConfig):
        return None
    raw, name = read_source(config)
    return ConfigTree(raw, name) if isinstance(raw, dict) else None


def config_line(config: MemlabConfig | dict | str | Path | None,
                profile: str | Line | None = None) -> tuple[Line, ConfigTree | None]:
    """The OpenClaw line of ``config`` (``profile`` wins; the active ``--set`` overrides
    count) and the config read once (:func:`config_tree`): the one way every search entry
    point picks its line.

    >>> config_line({"memory": {"search": {"provider": "none"}}})[0].name
    '2026.9'
    >>> config_line(None)[0].name, config_line(None, "2026.9")[0].name
    ('2026.7', '2026.9')
    """
    if isinstance(config, MemlabConfig):
        named = config.memlab.profile
        line = detect_line({"memlab": {"profile": named}} if named else None, profile)
        if line.engine != "stages":
            raise ValueError(f"line {line.name} reads a raw config in its {line.config_key} "
                             "layout (a dict, JSON5 text or path), not a MemlabConfig")
        return line, None
    tree = config_tree(config)
    return detect_line(_overridden(tree), profile), tree


def _overridden(tree: ConfigTree | None) -> dict[str, Any] | None:
    """``tree`` with the active ``--set`` overrides applied (what the line and the tiered
    search read; ``load_config`` applies them itself)."""
    return None if tree is None else apply_active_overrides(tree, tree.source)[0]


class MemorySearch:
    """Search one workspace as OpenClaw would: discovery, chunking, both legs, the merge.

    The OpenClaw line (:mod:`memlab.lines`) comes from ``profile``, else the config's
    ``memlab.profile``, else its layout (``memory.search`` is 2026.9): a line of the stage
    pipeline runs :func:`openclaw_pipeline`, a line of the tiered engine (2026.9) runs
    :class:`memlab.tiered.search.TieredSearch`, so a notebook gets the same ranking as
    ``memlab search`` on the same config.

    Parameters
    ----------
    workspace:
        The agent workspace (holding ``MEMORY.md`` and ``memory/``).
    config:
        An OpenClaw config (path, JSON5 text, dict or :class:`MemlabConfig`); ``None`` uses
        :data:`DEFAULT_CONFIG` (OpenClaw's defaults with the offline local model; on the
        tiered line, ``memory.search`` with the local model).
    embedder:
        Overrides the provider named in the config (e.g. a shared cached embedder).
    profile:
        The OpenClaw line to reproduce (a registered name such as ``"2026.9"``, or a
        :class:`memlab.lines.Line`); default: detected from ``config``.
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
    >>> ms9 = MemorySearch("datasets/sample-memory/workspace",
    ...                    {"memory": {"search": {"provider": "none"}}})
    >>> ms9.line.name, ms9.search("staging database host")["results"][0]["path"]
    ('2026.9', 'memory/2026-08-06.md')
    """

    def __init__(self, workspace: str | Path,
                 config: MemlabConfig | dict | str | Path | None = None,
                 embedder: EmbeddingProvider | None = None, *, session: str | None = None,
                 session_tree: Any = None, visibility: str | None = None,
                 agent_id: str = "main", profile: str | Line | None = None):
        self.line, tree = config_line(config, profile)
        if self.line.engine == "tiered":
            self._open_tiered(workspace, tree, embedder, agent_id, ":memory:")
            return
        self._setup(config if tree is None else tree, embedder, session=session,
                    session_tree=session_tree, visibility=visibility, agent_id=agent_id)
        ms = self.config.memory_search
        model = self.embedder.model if self.embedder is not None else "fts-only"
        max_bytes = None
        if self.embedder is not None:
            max_bytes = provider_input_cap(getattr(self.embedder, "max_input_tokens", None))
        self._use_corpus(load_workspace(workspace, ms.effective_extra_paths(),
                                        tokens=ms.chunking.tokens,
                                        overlap=ms.resolved_overlap(), model=model,
                                        max_input_bytes=max_bytes,
                                        sources=ms.effective_sources(), agent_id=agent_id))

    #: The OpenClaw line this search reproduces (:mod:`memlab.lines`).
    line: Line = detect_line(None)
    #: The tiered engine's search when :attr:`line` runs it (``None``: the stage pipeline).
    tiered: Any = None

    def _open_tiered(self, workspace: str | Path, tree: ConfigTree | None, embedder: Any,
                     agent_id: str, index_path: str | Path, sync: bool = True) -> None:
        """Open the tiered search of :attr:`line` over ``index_path`` (the stage pipeline is
        not built); ``tree`` is the config read once (``None``: the line's defaults with the
        offline local model)."""
        from memlab.tiered.search import TieredSearch

        raw = _overridden(tree)
        if raw is None:
            raw = {"memory": {"search": {"provider": DEFAULT_CONFIG["memorySearch"]["provider"]}}}
        self.agent_id = agent_id
        self.tiered = TieredSearch(workspace, raw, agent_id=agent_id, index_path=index_path,
                                   embedder=embedder, sync=sync, line=self.line)
        self.embedder = self.tiered.embedder
        self.config = None

    def _setup(self, config: MemlabConfig | dict | str | Path | None,
               embedder: EmbeddingProvider | None, *, session: str | None = None,
               session_tree: Any = None, visibility: str | None = None,
               agent_id: str = "main") -> None:
        """The config, the embedder (OpenClaw's provider requirement: an optional provider
        that is unavailable degrades to keyword-only) and the session settings; shared by
        every way of building a search (workspace, corpus, persistent index)."""
        self.config = config if isinstance(config, MemlabConfig) else load_config(
            DEFAULT_CONFIG if config is None else config)
        self.session, self.session_tree = session, session_tree
        self.visibility, self.agent_id = visibility, agent_id
        self.degraded = None
        if self.config.memory_search.resolved_provider() == "none":
            self.embedder = None
        elif embedder is not None:
            self.embedder = embedder
        else:
            self.embedder, self.degraded = make_search_embedder(self.config)
            if self.degraded is not None:  # optional provider unavailable: keyword-only
                self.config = keyword_only_config(self.config)

    def _use_corpus(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.result_builder = ResultBuilder(corpus)
        self._pipes: dict[tuple, Sequence] = {}

    #: Why an optional provider (unset/``local``) is unavailable and search is keyword-only.
    degraded: str | None = None

    @classmethod
    def from_corpus(cls, corpus: Corpus, config: MemlabConfig | dict | str | Path | None = None,
                    embedder: EmbeddingProvider | None = None, *,
                    store: Any = None) -> MemorySearch:
        """Search an already loaded :class:`~memlab.corpus.Corpus` (benchmarks, synthetic
        collections) instead of a workspace; ``embedder`` as for the constructor.

        ``store``: an :class:`~memlab.index.IndexStore` of ``corpus`` (for example
        ``IndexStore.from_corpus(corpus, path="fts.sqlite")``, a file like the one ``memlab
        index`` writes) that the ``"fts5"`` keyword leg queries instead of building an
        in-memory FTS5 table; the hits are the same.
        """
        self = cls.__new__(cls)
        self.store = store
        self.line, tree = config_line(config)
        if self.line.engine != "stages":
            raise ValueError(f"from_corpus runs the stage pipeline; line {self.line.name} "
                             "indexes a workspace itself: use MemorySearch(workspace, config)")
        cfg = config if isinstance(config, MemlabConfig) else load_config(
            tree if tree is not None else DEFAULT_CONFIG if config is None else config)
        if embedder is None and cfg.memory_search.resolved_provider() != "none":
            embedder = make_embedder(cfg)  # explicit: a missing provider is an error here
        self._setup(cfg, embedder)
        self._use_corpus(corpus)
        return self

    #: Session visibility settings (see :func:`openclaw_pipeline`); class defaults so
    #: subclasses that skip ``__init__`` have them.
    session: str | None = None
    session_tree: Any = None
    visibility: str | None = None
    agent_id: str = "main"

    #: The :class:`~memlab.index.IndexStore` the ``"fts5"`` keyword leg queries (``None``: an
    #: in-memory FTS5 table of the corpus); set by :meth:`from_corpus` and by the persistent
    #: index's search.
    store: Any = None

    def _pipeline_options(self) -> dict[str, Any]:
        """Extra keyword arguments for :func:`openclaw_pipeline` (subclasses add legs)."""
        options = self.session_options()
        if self.store is not None:
            options["store"] = self.store
        return options

    def session_options(self) -> dict[str, Any]:
        """The session settings as :func:`openclaw_pipeline` keyword arguments."""
        return {"session": self.session, "session_tree": self.session_tree,
                "visibility": self.visibility, "agent_id": self.agent_id}

    @property
    def mode(self) -> str:
        """``"hybrid"``, ``"fts-only"`` or ``"vector"``."""
        if self.tiered is not None:
            return "fts-only" if self.tiered.keyword_only else "hybrid"
        return self.config.memory_search.pipeline_mode()

    def pipeline(self, max_results: int | None = None, min_score: float | None = None,
                 now: object = None) -> Sequence:
        """The stage pipeline (legs cached across calls)."""
        if self.tiered is not None:
            raise NotImplementedError(
                f"line {self.line.name} runs the tiered engine, which is not a stage pipeline "
                "yet: use search() or run()")
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
        if self.tiered is not None:
            return self.tiered.run(frame, max_results, min_score, now)
        return self.pipeline(max_results, min_score, now).transform(frame)

    def search(self, query: str, max_results: int | None = None,
               min_score: float | None = None, now: object = None) -> dict[str, Any]:
        """One query, answered like ``openclaw memory search --json``.

        Runs the single-query path (:meth:`memlab.pipeline.Sequence.transform_query`: the
        same stages on numpy arrays, no frames); the results equal :meth:`run`'s. On a line of
        the tiered engine, ``openclaw memory search --json`` of that line (``{"results"}``).
        """
        if self.tiered is not None:
            return self.tiered.search(query, max_results=max_results, min_score=min_score,
                                      now=now)
        results: list[dict[str, Any]] = []
        text = query.strip()
        if text:
            pipe = self.pipeline(max_results, min_score, now)
            hits = pipe.transform_query(Query(text, chunks=self.corpus.chunks))
            results = self.result_builder.build(hits, self.mode)
        provider = self.embedder.id if self.embedder is not None else "none"
        model = self.embedder.model if self.embedder is not None else None
        return {"results": results, "provider": provider, "model": model}
