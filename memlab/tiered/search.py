"""The 2026.9 ranking profile: ``openclaw memory search`` of OpenClaw 2026.9.6.

:class:`TieredSearch` indexes a workspace into the profile's index
(:mod:`memlab.tiered.index`) and searches it the way 2026.9.6's
``MemorySearchOrchestration.search`` does (docs/openclaw-2026.9.md, sections 0-11):

1. the keyword leg (:mod:`memlab.tiered.keyword`): body and path FTS, exact-path
   tiers, the 2026.9 fallback, 200 candidates, boosted against the full query;
2. the vector leg: the 200 nearest chunks by sqlite-vec's cosine distance (k = 1600 covers the
   whole top 200, so the widening rules do not change the result;
   :func:`memlab.index.vectors.parity_cosine`), or the exact double-precision scan when
   ``store.vector.enabled`` is false;
3. ``mergeHybridResults``: ``0.7·v + 0.3·b`` (:func:`memlab.kernels.fusion.fuse_scores` with the
   boosted score, the path score for non-exact path-only hits, 0 for exact hits), exact hits
   ranked by ``(1 + clamp(c))/2`` (:func:`memlab.kernels.tiers.exact_tie_score`), temporal decay
   (always on, 30 days: dated paths at any depth with slugs, ``USER.md`` evergreen, sessions by
   their indexed mtime), importance and project multipliers (:mod:`memlab.annotations`), exact
   tiers 3, 2, 1 first (MMR within each), then the rest sorted and MMR-reranked with the
   empty-token rule;
4. ``selectHybridSearchResults`` on the 200 universe (:func:`memlab.kernels.selection
   .select_hybrid`), then the cut to ``maxResults``.

Keyword-only (provider ``none``): ``finalizeKeywordOnlyResults`` (no MMR, relaxed floor 0).

What-if axes (memlab-only, :class:`memlab.config.options.WhatIf`; the defaults are
2026.9.6's fixed behaviour): ``memlab.whatIf.keywordScore: "raw"`` fuses the raw FTS score as
2026.7 did, ``memlab.whatIf.candidateUniverse`` replaces the 200-candidate universe,
``memlab.whatIf.halfLifeDays`` the 30-day decay, and ``memlab.fusion.method`` (``"rrf"`` with
``rrfK``, ``"minmax"``, ``"zscore"``) the weighted blend (ranks are each leg's list order).

>>> import tempfile, pathlib
>>> ws = pathlib.Path(tempfile.mkdtemp())
>>> _ = (ws / "MEMORY.md").write_text("- Billing deploy window is Tuesday <!-- importance: 9 -->")
>>> s = TieredSearch(ws, {"memory": {"search": {"provider": "none"}}}, index_path=":memory:")
>>> r = s.search("billing deploy", now="2026-10-01T00:00:00Z")["results"][0]
>>> r["path"], r["importance"], round(r["score"], 4)
('MEMORY.md', 9, 0.852)
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from memlab.annotations import importance_multiplier, project_eligible, project_multiplier
from memlab.chunking import provider_input_cap
from memlab.config.errors import ConfigError, ConfigIssue, validate_block
from memlab.config.memory_layout import ResolvedMemorySearch, read_config
from memlab.config.options import MemlabOptions
from memlab.index.errors import NotAnIndex
from memlab.kernels.decay import decay_multipliers
from memlab.kernels.fusion import fuse_scores
from memlab.kernels.mmr import jaccard_rows, mmr_order
from memlab.kernels.mmr_empty import empty_token_similarity
from memlab.kernels.selection import select_hybrid
from memlab.kernels.threshold import eligible
from memlab.kernels.tiers import exact_path_matcher, exact_tie_score
from memlab.lines import Line, detect_line
from memlab.results import RECALL_METADATA, ResultBuilder
from memlab.safeio import UnsafePath, refuse_link
from memlab.stages.decay import to_epoch_ms
from memlab.text.js import JS_WHITESPACE, truncate_utf16
from memlab.text.tokenize import openclaw_mmr_tokens
from memlab.tiered import index as store
from memlab.tiered.keyword import (
    SNIPPET_MAX_CHARS,
    compare_keyword_hits,
    search_keyword_with_fallback,
)
from memlab.tiered.locale import locale_compare
from memlab.workspace import dated_path_date, is_evergreen

__all__ = ["TieredSearch", "mmr_rerank"]
#: OpenAI-compatible providers: min(8192, 8000) UTF-8 bytes per chunk.
PROVIDER_INPUT_CAP = provider_input_cap()


def _memlab_config(raw: Mapping[str, Any], resolved: ResolvedMemorySearch):
    """A memlab config for the embedder: the 2026.9 provider settings in the 2026.7 shape."""
    from memlab.config import load_config

    ms: dict[str, Any] = {"provider": resolved.provider}
    search = (raw.get("memory") or {}).get("search") or {}
    for key in ("model", "remote", "fallback", "outputDimensionality", "inputType",
                "queryInputType", "documentInputType", "local"):
        if key in search:
            ms[key] = search[key]
    return load_config({"memorySearch": ms, "memlab": dict(raw.get("memlab") or {})})


def mmr_rerank(entries: list[dict], key: str, lambda_: float) -> list[dict]:
    """``mmrRerank`` on ``entries[key]`` with ``lambda_`` (the line's ``mmr`` step), list order
    as the tie order; snippets without tokens compare by the empty-token rule."""
    if len(entries) <= 1:
        return list(entries)
    token_sets = [openclaw_mmr_tokens(e["snippet"]) for e in entries]
    vocab: dict[str, int] = {}
    indptr, indices = [0], []
    for toks in token_sets:
        indices.extend(vocab.setdefault(t, len(vocab)) for t in sorted(toks))
        indptr.append(len(indices))
    matrix = sp.csr_matrix((np.ones(len(indices), dtype=np.float32), indices, indptr),
                           shape=(len(entries), max(len(vocab), 1)))
    sim = jaccard_rows(matrix, np.arange(len(entries)))
    sim = empty_token_similarity(sim, [len(t) for t in token_sets],
                                 [e["snippet"].lower() for e in entries])
    scores = np.array([e[key] for e in entries], dtype=np.float64)
    return [entries[i] for i in mmr_order(scores, sim, lambda_).tolist()]


class TieredSearch:
    """OpenClaw 2026.9.6's memory search over a workspace (module docstring).

    Parameters
    ----------
    workspace
        The agent workspace (``MEMORY.md``, ``USER.md``, ``memory/``, ``sessions/<agent>/``).
    config
        A whole config in the 2026.9 layout (``memory.search``, ``agents.entries``), plus an
        optional ``memlab`` key (``embeddingCache``, ``indexPath``...).
    agent_id
        The agent whose ``agents.entries.<id>.memory.search`` applies (default ``main``).
    index_path
        The index file (``":memory:"`` for none); synced file by file, rebuilt when its
        settings differ (:meth:`sync`).
    embedder
        An embedding provider to use instead of the configured one (tests).
    line
        The OpenClaw line whose recipe this search runs (a :class:`memlab.lines.Line` or its
        name; default: :func:`memlab.lines.detect_line` of ``config``, which must be a line of
        the tiered engine).
    """

    def __init__(self, workspace: str | Path, config: Mapping[str, Any],
                 agent_id: str | None = None, index_path: str | Path = ":memory:",
                 embedder: Any = None, sync: bool = True, line: str | Line | None = None) -> None:
        self.workspace = Path(workspace).expanduser()
        if not self.workspace.is_dir():
            raise FileNotFoundError(f"memory workspace not found: {workspace}")
        self.raw = dict(config)
        self.line = detect_line(self.raw, line)
        if self.line.engine != "tiered":
            raise ValueError(f"line {self.line.name!r} runs the {self.line.engine!r} engine, not "
                             "the tiered search: use memlab.openclaw.MemorySearch")
        self.agent_id = agent_id or "main"
        self.settings = read_config(self.raw).resolve(self.agent_id)
        issues: list[ConfigIssue] = []
        options = validate_block(MemlabOptions, dict(self.raw.get("memlab") or {}), "memlab",
                                 issues)
        if issues or options is None:
            raise ConfigError(issues)
        self.options: MemlabOptions = options
        what_if, line = options.what_if, self.line
        self.universe = what_if.value("candidate_universe", line.param("selection", "universe"))
        self.half_life_days = what_if.value("half_life_days",
                                            line.param("decay", "half_life_days"))
        self.keyword_score = what_if.value("keyword_score", line.param("fusion", "keyword_score"))
        self.vector_weight = float(line.param("fusion", "vector_weight"))
        self.text_weight = float(line.param("fusion", "text_weight"))
        self.mmr_lambda = line.param("mmr", "lambda")  # None: the line has no mmr step
        fusion = options.fusion
        self.fusion_method = (fusion.method if "method" in fusion.model_fields_set
                              else line.param("fusion", "method"))
        self.rrf_k = float(fusion.rrf_k if "rrf_k" in fusion.model_fields_set
                           else line.param("fusion", "rrf_k", fusion.rrf_k))
        self.keyword_only = self.settings.provider == "none"
        self._embedder = embedder
        self.index_path = str(index_path)
        if self.index_path != ":memory:":  # the 2026.7 index's file-safety checks
            path = Path(self.index_path).expanduser()
            problem = store.index_file_problem(path)
            try:
                for suffix in ("-wal", "-shm", "-journal"):
                    refuse_link(f"{path}{suffix}")
            except UnsafePath as exc:
                problem = problem or str(exc)
            if problem is not None:
                raise NotAnIndex(path, problem)
            self.index_path = str(path)
        self.con = store.connect(self.index_path)
        #: What the last :meth:`sync` did (:class:`memlab.tiered.index.SyncReport`).
        self.sync_report: store.SyncReport | None = None
        self.meta: dict[str, Any] = {}
        self._mtimes: dict[tuple[str, str], float] = {}
        if sync:
            self.sync()

    # ------------------------------------------------------------------ index
    @property
    def embedder(self) -> Any:
        """The embedding provider (``None`` for ``provider: "none"``)."""
        if self._embedder is None and not self.keyword_only:
            from memlab.embed.factory import make_embedder

            self._embedder = make_embedder(_memlab_config(self.raw, self.settings))
        return self._embedder

    def index_settings(self) -> dict[str, Any]:
        """What the index identity covers besides the files."""
        s = self.settings
        return {"profile": self.line.name, "provider": s.provider,
                "model": None if self.keyword_only else (s.model or s.provider),
                "ftsTokenizer": s.fts_tokenizer, "sources": list(s.sources),
                "chunkingVersion": self.line.chunking_version}

    def sync(self, force: bool = False) -> dict[str, Any]:
        """Bring the index up to date, incrementally (only new and changed files re-chunked
        and re-embedded, deleted ones dropped) unless the settings changed or ``force``
        (a full rebuild): :func:`memlab.tiered.index.sync_index`. A file-backed index is
        synced under the 2026.7 index's lock (:class:`memlab.index.sync.IndexLock`): a
        second indexer raises :class:`~memlab.index.errors.IndexLocked`. Returns the meta."""
        embed = None if self.keyword_only else (
            lambda texts: self.embedder.embed_documents(texts))
        if self.index_path == ":memory:":
            guard: Any = contextlib.nullcontext()
        else:
            from memlab.index.sync import IndexLock

            guard = IndexLock(self.index_path)
        with guard:
            files = store.collect_files(self.workspace, self.settings.sources,
                                        self.settings.extra_paths, self.agent_id)
            self.sync_report = store.sync_index(
                self.con, files, self.index_settings(), embed,
                None if self.keyword_only else PROVIDER_INPUT_CAP, force=force)
        self.reload()
        return self.meta

    @property
    def rebuilt(self) -> bool:
        """Whether the last :meth:`sync` rebuilt the whole index."""
        return self.sync_report is not None and self.sync_report.mode == "full"

    def reload(self) -> bool:
        """Read the index's meta and file mtimes as they are, without syncing (a search
        while another indexer holds the lock); ``False`` when it holds no index yet."""
        meta = store.stored_meta(self.con)
        if meta is None:
            return False
        self.meta = meta
        self._mtimes = dict(((src, path), mtime) for path, src, mtime in self.con.execute(
            f"SELECT path, source, mtime FROM {store.SOURCES_TABLE}"))
        return True

    def close(self) -> None:
        """Close the index file."""
        self.con.close()

    # ------------------------------------------------------------------ legs
    def _metadata(self, hits: list[dict]) -> list[dict]:
        """``attachRecallMetadata``: importance, triggers, project key, provenance, mtime."""
        out = []
        for h in hits:
            row = self.con.execute(
                f"SELECT importance, triggers, project_key FROM {store.CHUNKS_TABLE} WHERE id = ?",
                (h["id"],)).fetchone()
            if row is None:
                continue
            importance, triggers, project = row
            mtime = self._mtimes.get((h["source"], h["path"]))
            h["sourceMtime"] = mtime if h["source"] == "sessions" else None
            if isinstance(importance, int):
                h["importance"] = importance
            if isinstance(triggers, str) and triggers.strip(JS_WHITESPACE):
                h["triggers"] = triggers.strip(JS_WHITESPACE)
            if isinstance(project, str) and project.strip(JS_WHITESPACE):
                h["projectKey"] = project.strip(JS_WHITESPACE)
            h["provenance"] = {"originClass": "agent", "sessionKind": "unknown",
                               "observedAt": None if mtime is None else int(mtime)}
            out.append(h)
        return out

    def _vector_hits(self, query: str, limit: int) -> list[dict]:
        from memlab.index.vectors import js_cosine, parity_cosine

        qvec = np.asarray(self.embedder.embed_query(query), dtype=np.float64)
        if not np.any(qvec != 0):
            return []
        src = list(self.settings.search_sources)
        rows = self.con.execute(
            f"SELECT id, path, source, start_line, end_line, text, embedding FROM "
            f"{store.CHUNKS_TABLE} WHERE embedding IS NOT NULL AND source IN "
            f"({', '.join('?' for _ in src)}) ORDER BY rowid", src).fetchall()
        if not rows:
            return []
        docs = np.stack([np.frombuffer(r[6], dtype="<f4") for r in rows])
        cosine = parity_cosine if self.settings.vector_enabled else js_cosine
        scores = cosine(qvec, docs)
        if self.settings.vector_enabled:  # sqlite-vec: ORDER BY distance (NULL first)
            key = np.where(np.isnan(scores), -np.inf, -scores)
        else:
            key = np.where(np.isfinite(scores), -scores, np.inf)
        order = np.argsort(key, kind="stable")[:limit]
        return [{"id": rows[i][0], "path": rows[i][1], "source": rows[i][2],
                 "startLine": rows[i][3], "endLine": rows[i][4],
                 "score": 1.0 if np.isnan(scores[i]) else float(scores[i]),
                 "snippet": truncate_utf16(rows[i][5], SNIPPET_MAX_CHARS)} for i in order]

    # ------------------------------------------------------------------ ranking
    def _timestamps(self, entries: list[dict]) -> np.ndarray:
        """``extractTimestamp`` of each entry (ms; NaN: no decay)."""
        cache: dict[tuple[str, str], float] = {}
        out = []
        for e in entries:
            key = (e["source"], e["path"])
            if key not in cache:
                cache[key] = self._timestamp(e)
            out.append(cache[key])
        return np.array(out, dtype=np.float64)

    def _timestamp(self, e: dict) -> float:
        if e["source"] == "sessions":
            m = e.get("sourceMtime")
            return float(m) if m is not None and math.isfinite(m) else math.nan
        day = dated_path_date(e["path"], rule=self.line.date_rule)
        if day is not None:
            return float(np.datetime64(day.isoformat(), "ms").astype(np.int64))
        if e["source"] == "memory" and is_evergreen(e["path"], "memory", rule=self.line.date_rule):
            return math.nan
        try:
            return os.stat(self.workspace / e["path"]).st_mtime_ns / 1e6
        except OSError:
            return math.nan

    def _score_steps(self, entries: list[dict], now_ms: float,
                     active: set[str] | None) -> list[dict]:
        """The recipe's steps on the fused scores, in the line's order: ``decay``,
        ``importance``, ``projects`` (a line without one skips it)."""
        for stage in self.line.stages():
            if stage == "decay":
                self._decay(entries, now_ms)
            elif stage == "importance":
                self._importance(entries)
            elif stage == "projects":
                entries = self._projects(entries, active)
        return entries

    def _decay(self, entries: list[dict], now_ms: float) -> None:
        """Temporal decay (the ``decay`` step's half-life), in place on ``score``."""
        if not entries:
            return
        ts = self._timestamps(entries)
        scores = np.array([e["score"] for e in entries], dtype=np.float64)
        decayed = scores * decay_multipliers(ts, now_ms, self.half_life_days)
        for e, s in zip(entries, decayed.tolist(), strict=True):
            e["score"] = s

    @staticmethod
    def _importance(entries: list[dict]) -> None:
        """``<!-- importance: N -->``'s multiplier, in place on ``score``."""
        if not entries:
            return
        scores = np.array([e["score"] for e in entries], dtype=np.float64)
        weighted = scores * importance_multiplier([e.get("importance") for e in entries])
        for e, s in zip(entries, weighted.tolist(), strict=True):
            e["score"] = s

    def _rerank(self, entries: list[dict], key: str) -> list[dict]:
        """The ``mmr`` step on ``entries[key]`` (list order unchanged for a line without it)."""
        if self.line.step("mmr") is None:
            return list(entries)
        return mmr_rerank(entries, key, self.mmr_lambda)

    @staticmethod
    def _projects(entries: list[dict], active: set[str] | None) -> list[dict]:
        """``applyProjectRanking``: invalid entries dropped, ×1.15/×0.9 with active projects."""
        keys = [e.get("projectKey") for e in entries]
        keep = project_eligible(keys)
        mult = project_multiplier(keys, active)
        out = []
        for e, k, m in zip(entries, keep.tolist(), mult.tolist(), strict=True):
            if k:
                if active:
                    e["score"] = e["score"] * m
                out.append(e)
        return out

    def _merge_hybrid(self, vector: list[dict], keyword: list[dict], now_ms: float,
                      active: set[str] | None) -> list[dict]:
        """``mergeHybridResults`` (module docstring, step 3); vector hits carry their
        ``exactPathSpecificity`` (``projectHybridCandidates``)."""
        by_id: dict[str, dict] = {}
        for rank, r in enumerate(vector, 1):
            by_id[r["id"]] = {**r, "vectorScore": r["score"], "textScore": 0.0,
                              "vectorRank": rank, "textRank": math.nan,
                              "rankingScore": 0.0, "pathScore": 0.0,
                              "exactPathSpecificity": r["exactPathSpecificity"],
                              "hasBodyMatch": False,
                              "hasKeyword": False}
        for rank, r in enumerate(keyword, 1):
            old = by_id.get(r["id"])
            if old is not None:
                old.update(textScore=r["textScore"], textRank=rank, hasBodyMatch=r["hasBodyMatch"],
                           rankingScore=r["score"], pathScore=r["pathScore"], hasKeyword=True,
                           exactPathSpecificity=max(old["exactPathSpecificity"],
                                                    r["exactPathSpecificity"]))
                for meta in RECALL_METADATA:
                    if old.get(meta) is None and r.get(meta) is not None:
                        old[meta] = r[meta]
                if r["snippet"]:
                    old["snippet"] = r["snippet"]
            else:
                by_id[r["id"]] = {**r, "vectorScore": 0.0, "rankingScore": r["score"],
                                  "hasKeyword": True, "vectorRank": math.nan, "textRank": rank}
        entries = list(by_id.values())
        if not entries:
            return []
        v = np.array([e["vectorScore"] for e in entries], dtype=np.float64)
        t = np.array([e["textScore"] for e in entries], dtype=np.float64)
        x = np.array([e["exactPathSpecificity"] for e in entries])
        in_fusion = (t if self.keyword_score == "raw"
                     else [e["rankingScore"] for e in entries])
        keyword_score = np.where(t > 0, in_fusion,
                                 np.where(x > 0, 0.0, [e["pathScore"] for e in entries]))
        content = fuse_scores(self.fusion_method, self.vector_weight, self.text_weight,
                              vector_score=v, text_score=keyword_score, rrf_k=self.rrf_k,
                              vector_rank=np.array([e["vectorRank"] for e in entries], float),
                              text_rank=np.array([e["textRank"] for e in entries], float))
        body = np.array([e["hasBodyMatch"] for e in entries], dtype=bool)
        lexical = np.where(body & (t == 0), [e["rankingScore"] for e in entries], 0.0)
        ranking = np.where(x > 0, exact_tie_score(content),
                           np.where(content == 0, lexical, content))
        for e, c, lr, s in zip(entries, content.tolist(), lexical.tolist(), ranking.tolist(),
                               strict=True):
            e.update(contentScore=c, lexicalRank=lr, score=s)
        entries = self._score_steps(entries, now_ms, active)
        for e in entries:
            e["rankingScore"] = e["score"]
            e["score"] = (float(project_multiplier([e.get("projectKey")], active)[0])
                          if e["exactPathSpecificity"] > 0
                          else (0.0 if e["contentScore"] == 0 else e["score"]))

        def by_ranking(a: dict, b: dict) -> int:
            for k in ("rankingScore", "lexicalRank"):
                d = b[k] - a[k]
                if d:
                    return 1 if d > 0 else -1
            return (locale_compare(a["path"], b["path"]) or a["startLine"] - b["startLine"]
                    or a["endLine"] - b["endLine"])

        def by_score(a: dict, b: dict) -> int:
            d = b["score"] - a["score"]
            return (1 if d > 0 else -1) if d else by_ranking(a, b)

        out: list[dict] = []
        for level in (3, 2, 1):
            group = sorted((e for e in entries if e["exactPathSpecificity"] == level),
                           key=functools.cmp_to_key(by_ranking))
            for e in self._rerank(group, "rankingScore"):
                e["score"] = float(project_multiplier([e.get("projectKey")], active)[0])
                out.append(e)
        rest = sorted((e for e in entries if e["exactPathSpecificity"] == 0),
                      key=functools.cmp_to_key(by_score))
        return out + self._rerank(rest, "score")

    def _rank_keyword_only(self, hits: list[dict], now_ms: float,
                           active: set[str] | None) -> list[dict]:
        """``finalizeKeywordOnlyResults`` (decay on) up to its threshold (:meth:`select`)."""
        for h in hits:
            if h["exactPathSpecificity"] > 0:
                h["score"] = exact_tie_score(h["score"] if h["hasBodyMatch"] else 0.0)
        ranked = sorted(self._score_steps(hits, now_ms, active), key=functools.cmp_to_key(
            lambda a, b: compare_keyword_hits(a, b, False)))
        for h in ranked:
            if h["exactPathSpecificity"] > 0:
                h["score"] = float(project_multiplier([h.get("projectKey")], active)[0])
        return ranked

    # ------------------------------------------------------------------ search
    def rank(self, query: str, now: Any = None,
             active_projects: Iterable[str] | None = None) -> dict[str, Any]:
        """The ranked candidates of ``query`` before the selection rule: what does not depend
        on ``maxResults``/``minScore`` (``searchCandidates`` always takes 200 per leg), so a
        sweep over those two ranks once and :meth:`select` per point.

        Returns ``{"entries": [...], "keyword_only": bool, "keyword_keys": set, "any_keyword":
        bool, "active": set | None}``; keyword-only entries are sorted but not thresholded.
        """
        q = query.strip(JS_WHITESPACE)
        active = (set(active_projects or ()) or None) if self.line.step("projects") else None
        out: dict[str, Any] = {"entries": [], "keyword_only": self.keyword_only,
                               "keyword_keys": set(), "any_keyword": False, "active": active}
        if not q:
            return out
        # candidates = min(U, max(1, floor(universe * 4))) with universe >= U: always U
        candidates = self.universe
        now_ms = to_epoch_ms(now)
        sources = list(self.settings.search_sources)
        keyword = self._metadata(search_keyword_with_fallback(
            self.con, q, candidates, self.settings.fts_tokenizer, sources))
        if self.keyword_only:
            out["entries"] = self._rank_keyword_only(keyword, now_ms, active)
            return out
        vector = self._metadata(self._vector_hits(q, candidates))
        tier = exact_path_matcher(q)  # projectHybridCandidates: vector hits get tiers too
        for v in vector:
            v["exactPathSpecificity"] = tier(v["path"])
        out["entries"] = self._merge_hybrid(vector, keyword, now_ms, active)
        out["keyword_keys"] = {(h["source"], h["path"], h["startLine"], h["endLine"])
                               for h in keyword}
        out["any_keyword"] = bool(keyword)
        return out

    def select(self, ranked: Mapping[str, Any], max_results: int | None = None,
               min_score: float | None = None) -> dict[str, Any]:
        """``selectHybridSearchResults`` / the keyword-only threshold on :meth:`rank`'s
        candidates, then the cut to ``maxResults``: ``{"results": [...]}`` as :meth:`search`."""
        max_results = int(max_results or self.settings.max_results)
        min_score = self.settings.min_score if min_score is None else float(min_score)
        universe = self.universe if ranked["active"] else max(self.universe, max_results)
        entries = ranked["entries"]
        if ranked["keyword_only"]:
            keep = eligible(np.array([h["score"] for h in entries], dtype=np.float64), None,
                            min_score, "zero")
            selected = [h for h, k in zip(entries, keep.tolist(), strict=True) if k][:universe]
        else:
            kw_keys = ranked["keyword_keys"]
            picks = select_hybrid(
                np.array([e["score"] for e in entries]),
                np.array([e["vectorScore"] for e in entries]),
                np.array([(e["source"], e["path"], e["startLine"], e["endLine"]) in kw_keys
                          for e in entries], dtype=bool), min_score, universe,
                any_keyword=ranked["any_keyword"])
            selected = [entries[i] for i in picks.tolist()]
        mode = "fts-only" if ranked["keyword_only"] else "hybrid"
        return {"results": ResultBuilder.build_records(selected[:max_results], mode,
                                                       RECALL_METADATA)}

    def search(self, query: str, max_results: int | None = None,
               min_score: float | None = None, now: Any = None,
               active_projects: Iterable[str] | None = None) -> dict[str, Any]:
        """``openclaw memory search QUERY --json`` of 2026.9.6: ``{"results": [...]}``
        (:meth:`rank` then :meth:`select`).

        ``active_projects`` are the session's project keys (the ``memory_search`` tool's
        input; the CLI passes none). ``min_score`` (the CLI's ``--min-score``) bypasses the
        config's clamp to [0, 1].
        """
        return self.select(self.rank(query, now, active_projects), max_results, min_score)

    def run(self, queries: pd.DataFrame, max_results: int | None = None,
            min_score: float | None = None, now: Any = None) -> pd.DataFrame:
        """Hits for a queries frame (``qid``, ``query``, optional ``now``), one
        :meth:`search` per query: ``qid, query, chunk_id, path, start_line, end_line, source,
        score, rank, vector_score, text_score, snippet`` (the hits contract without
        ``docno``: this engine reads its own index, not a :class:`~memlab.corpus.Corpus`)."""
        nows = queries["now"] if "now" in queries.columns else [now] * len(queries)
        rows = []
        for qid, text, when in zip(queries["qid"], queries["query"], nows, strict=True):
            when = now if when is None or (not isinstance(when, str) and pd.isna(when)) else when
            hits = self.search(str(text), max_results=max_results, min_score=min_score,
                               now=when)["results"]
            rows += [(qid, text, f"{h['path']}:{h['startLine']}-{h['endLine']}", h["path"],
                      h["startLine"], h["endLine"], h["source"], float(h["score"]), rank,
                      h.get("vectorScore"), h.get("textScore"), h["snippet"])
                     for rank, h in enumerate(hits, 1)]
        return pd.DataFrame(rows, columns=["qid", "query", "chunk_id", "path", "start_line",
                                           "end_line", "source", "score", "rank",
                                           "vector_score", "text_score", "snippet"])
