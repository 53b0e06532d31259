"""Vectorised parameter sweeps over cached legs.

The expensive half of OpenClaw's search (embedding, FAISS, the keyword leg) depends only on the
corpus, the provider and the keyword settings. :class:`SweepEngine` runs each leg once per
such *leg key* at depth 200 through the real stages, then evaluates every configuration of a
grid from those cached candidates with numpy:

Every step is the kernel the pipeline's stages call (:mod:`memlab.kernels`), here over a
leading axis of configurations:

* the per-leg candidate cut (:func:`~memlab.kernels.cut.leg_cut`) and the union
  (:func:`~memlab.kernels.fusion.union`) are built once per query and ``candidates`` value
  (fallback hits of the keyword leg are kept whole; with the FTS5 leg, whose fallback
  depends on the ``LIMIT``, the fallback queries are re-run at each ``candidates`` value);
* the fused scores of all configurations of a query form one ``configs x items`` matrix
  (:func:`~memlab.kernels.fusion.fuse_scores` broadcast over the weight vectors);
* temporal-decay multipliers are computed per ``(decayRule, halfLifeDays)``
  (:meth:`~memlab.stages.decay.TemporalDecay.docno_multipliers`);
* the two stable sorts of fusion and decay are one ``lexsort``;
* MMR's greedy selection (:func:`~memlab.kernels.mmr.mmr_order`) runs for all
  configurations of a query at once, on the Jaccard matrix computed once per query and
  ``candidates``;
* the ``minScore``/``maxResults`` cut (:mod:`memlab.kernels.threshold`) is a mask.

The three modes of :func:`memlab.openclaw.openclaw_pipeline` are grid values like any other
(axes ``query.hybrid.enabled`` and ``provider``) and can be mixed in one grid:

=============  ===========================  ===============================================
mode           when                         what the engine evaluates from the cached legs
=============  ===========================  ===============================================
``hybrid``     a provider, hybrid enabled   both legs fused, decay, MMR, ``minScore`` cut
                                            relaxed to keyword hits
``vector``     ``query.hybrid.enabled:      the vector leg's top ``candidates`` by cosine,
               false`` (and a provider)     no decay, no MMR, strict ``minScore`` cut
``fts-only``   ``provider: "none"``         the keyword leg's top ``candidates`` ranked by
                                            its boosted score, decay, ``minScore`` cut
                                            relaxed to every score >= 0
=============  ===========================  ===============================================

Keyword-only configurations search the corpus chunked without a provider (as
``openclaw_pipeline`` does); the vector leg is computed once per provider and shared by the
hybrid and vector-only configurations.

Metrics are computed with :func:`memlab.eval.metrics.metric_arrays` on gains from
:mod:`memlab.kernels.gains`, as :func:`memlab.eval.relevance.span_gains` (memory datasets) and
:func:`memlab.eval.relevance.doc_gains` (BEIR collections) compute them, once per distinct
ranked list of a query (many configurations return the same list for a query). A result row
equals a full :func:`memlab.openclaw.openclaw_pipeline` run of that configuration
(``tests/tune``).

The corpus is embedded once, through the embedding cache, in shards run on the chosen
backend (:func:`memlab.tune.backend.embed_corpus`); the grid never re-embeds. Each chunking
(``chunking.tokens``, ``chunking.overlap``, ``memlab.chunking``) is one corpus with its own
legs; the texts chunkings share are embedded once (:mod:`memlab.tune.chunkings`, which also
counts the chunks longer than the model's window: :meth:`SweepEngine.truncation`).

>>> from memlab.tune import sweep  # doctest: +SKIP
>>> grid = {"query.hybrid.vectorWeight": [0.3, 0.7], "query.hybrid.mmr.enabled": [False, True],
...         "provider": ["local", "none"]}
>>> table = sweep("datasets/sample-memory", grid)  # doctest: +SKIP
>>> table[["mode", "query.hybrid.vectorWeight", "ndcg@10"]]  # doctest: +SKIP
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from memlab.config import ConfigError, ConfigIssue, MemlabConfig, load_config
from memlab.eval.metrics import metric_arrays, parse_metric
from memlab.frames import QueryHits
from memlab.kernels import gains as gains_kernel
from memlab.kernels.cut import leg_cut
from memlab.kernels.fusion import METHODS, fuse_scores, union
from memlab.kernels.mmr import jaccard_rows, mmr_order
from memlab.kernels.threshold import eligible, keep_first
from memlab.lines import detected_line
from memlab.stages.decay import TemporalDecay, to_epoch_ms
from memlab.stages.mmr import MMR
from memlab.tune.chunkings import Truncation, resolve_chunking, truncation
from memlab.tune.errors import SweepError
from memlab.tune.models import MODEL_AXIS, expand_overrides, spec_overrides

__all__ = ["ALLOWED_AXES", "INNER_AXES", "MODES", "OUTER_AXES", "SweepEngine", "SweepError",
           "config_mode", "expand_grid", "normalize_axis", "sweep"]

#: Axes evaluated from cached legs (no retrieval re-run).
INNER_AXES = (
    "query.hybrid.vectorWeight", "query.hybrid.textWeight", "query.hybrid.candidateMultiplier",
    "query.hybrid.mmr.enabled", "query.hybrid.mmr.lambda",
    "query.hybrid.temporalDecay.enabled", "query.hybrid.temporalDecay.halfLifeDays",
    "query.minScore", "query.maxResults", "memlab.fusion.method", "memlab.fusion.rrfK",
    "memlab.decayRule", "query.hybrid.enabled",
)
#: Axes that change the legs (looped over; each distinct value set runs the legs once).
OUTER_AXES = (
    "chunking.tokens", "chunking.overlap", "memlab.chunking", "store.fts.tokenizer",
    "memlab.keyword", "memlab.match", "memlab.keywordFallback", "memlab.bm25.variant",
    "memlab.bm25.k1", "memlab.bm25.b", "memlab.bm25.delta", "memlab.tokenizer.lowercase",
    "memlab.tokenizer.stopwords", "memlab.tokenizer.stemmer", "memlab.tokenizer.cjk",
    "memlab.tokenizer.thai", "provider", "model", "local.modelPath", "remote.baseUrl",
)
#: Axes of a grid: the config key paths above and the model pseudo-axis ``embedding``
#: (provider specs, :mod:`memlab.tune.models`).
ALLOWED_AXES = INNER_AXES + OUTER_AXES + (MODEL_AXIS,)
METHOD_CODES = {name: code for code, name in enumerate(METHODS)}
#: The pipeline modes of :func:`memlab.openclaw.openclaw_pipeline`, by code.
MODES = ("hybrid", "vector", "fts-only")
HYBRID, VECTOR, KEYWORD = 0, 1, 2
#: The line whose recipe the vectorised engine evaluates: the stage pipeline's. Its steps after
#: the legs run here in the recipe's order (:func:`_query_lists`: fusion; :func:`_cut`: decay
#: with fusion's and decay's stable sorts, MMR, the threshold); a recipe in another order
#: needs full pipeline runs.
LINE = detected_line("memorySearch")
if LINE.stages()[:5] != ("legs", "fusion", "decay", "mmr", "threshold"):  # pragma: no cover
    raise ImportError(f"the vectorised sweep evaluates legs, fusion, decay, mmr, threshold in "
                      f"that order; line {LINE.name}'s recipe is {LINE.stages()}")
LEG_DEPTH = 200


def normalize_axis(key: str) -> str:
    """A grid key as memlab names it (``memorySearch.`` prefix dropped); unknown -> error."""
    name = str(key).strip()
    if name.startswith("memorySearch."):
        name = name[len("memorySearch."):]
    if name.startswith("agents.defaults.memorySearch."):
        name = name[len("agents.defaults.memorySearch."):]
    if name not in ALLOWED_AXES:
        raise SweepError(f"unknown sweep axis {key!r}; allowed axes: {', '.join(ALLOWED_AXES)}")
    return name


def expand_grid(grid: Mapping[str, Any], base: MemlabConfig | None = None
                ) -> tuple[list[dict[str, Any]], list[MemlabConfig]]:
    """Every combination of ``grid`` (key path -> list of values) as overrides and configs.

    A ``vectorWeight`` axis without a ``textWeight`` axis sets ``textWeight = 1 - w``. Each
    combination is validated with :meth:`MemlabConfig.with_overrides`; an invalid one raises
    :class:`~memlab.config.ConfigError` naming the grid point. Axes without effect are not
    multiplied: with decay off only the first ``halfLifeDays`` value is kept, with MMR off
    only the first ``mmr.lambda`` (see :func:`_inert`). An ``embedding`` axis (provider
    specs, :mod:`memlab.tune.models`) adds the key paths each spec stands for to the overrides.
    A ``chunking.tokens`` value ``"model-window"`` becomes the input window of the model the
    point embeds with (:func:`memlab.tune.chunkings.resolve_chunking`), so the row carries the
    number OpenClaw is given.

    >>> ov, _ = expand_grid({"query.hybrid.temporalDecay.enabled": [False, True],
    ...                      "query.hybrid.temporalDecay.halfLifeDays": [7, 30, 90]})
    >>> len(ov)  # 1 with decay off + 3 with it on, not 2 x 3
    4
    """
    base = base if base is not None else load_config({"memorySearch": {"provider": "local"}})
    if not isinstance(grid, Mapping) or not grid:
        raise SweepError("the grid is empty: map at least one config key path to a list of "
                         f"values, e.g. {{\"query.hybrid.vectorWeight\": [0.3, 0.7]}}; "
                         f"allowed axes: {', '.join(ALLOWED_AXES)}")
    axes: dict[str, list[Any]] = {}
    for key, values in grid.items():
        name = normalize_axis(key)
        if name in axes:
            raise SweepError(f"axis {name!r} is given twice")
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            values = [values]
        values = list(values)
        if not values:
            raise SweepError(f"axis {name!r} has no values: give a non-empty list")
        axes[name] = values
    names = list(axes)
    overrides_list: list[dict[str, Any]] = []
    configs: list[MemlabConfig] = []
    cache: dict[str, MemlabConfig] = {}
    for combo in itertools.product(*axes.values()):
        ov = dict(zip(names, combo, strict=True))
        full = dict(ov)
        if MODEL_AXIS in ov:
            full.update({k: v for k, v in spec_overrides(ov[MODEL_AXIS]).items()
                         if k not in ov})
        if "query.hybrid.vectorWeight" in ov and "query.hybrid.textWeight" not in ov:
            w = ov["query.hybrid.vectorWeight"]
            if isinstance(w, (int, float)) and not isinstance(w, bool):
                full["query.hybrid.textWeight"] = 1 - w
        try:
            full = resolve_chunking(full, base)
        except ConfigError as exc:
            raise ConfigError(
                [ConfigIssue(i.path, f"{i.message} (grid point {ov})") for i in exc.issues]
            ) from None
        key = repr(sorted(full.items(), key=lambda kv: kv[0]))
        cfg = cache.get(key)
        if cfg is None:
            try:
                cfg = base.with_overrides(expand_overrides(full))
            except ConfigError as exc:
                raise ConfigError(
                    [ConfigIssue(i.path, f"{i.message} (grid point {ov})") for i in exc.issues]
                ) from None
            cache[key] = cfg
        if _inert(ov, axes, cfg):
            continue
        overrides_list.append(full)
        configs.append(cfg)
    return overrides_list, configs


#: Axes that have no effect unless a switch is on: (axis, what reads the switch).
_INERT_UNLESS = {
    "query.hybrid.temporalDecay.halfLifeDays":
        lambda cfg: cfg.memory_search.query.hybrid.temporal_decay.enabled,
    "query.hybrid.mmr.lambda": lambda cfg: cfg.memory_search.query.hybrid.mmr.enabled,
}


def _inert(ov: Mapping[str, Any], axes: Mapping[str, list[Any]], cfg: MemlabConfig) -> bool:
    """Whether this grid point only repeats another: an axis whose switch is off (e.g.
    ``halfLifeDays`` with decay disabled) at any value but its first one. The grid keeps
    one row per configuration that can rank differently."""
    return any(axis in ov and ov[axis] != axes[axis][0] and not switch(cfg)
               for axis, switch in _INERT_UNLESS.items())


# ---------------------------------------------------------------------------------------------
# Resolution of a config into the parameters the cheap stages use
# ---------------------------------------------------------------------------------------------


def config_mode(cfg: MemlabConfig) -> int:
    """The pipeline mode code of ``cfg`` (:data:`MODES`), decided as
    :func:`memlab.openclaw.openclaw_pipeline` decides it.

    >>> from memlab.config import load_config
    >>> [MODES[config_mode(load_config({"memorySearch": ms}))] for ms in (
    ...     {"provider": "local"}, {"provider": "local", "query": {"hybrid": {"enabled": False}}},
    ...     {"provider": "none"})]
    ['hybrid', 'vector', 'fts-only']
    """
    return MODES.index(cfg.memory_search.pipeline_mode())


def _provider_key(cfg: MemlabConfig) -> str:
    """What selects the embedder (``"none"`` for keyword only)."""
    ms = cfg.memory_search
    if ms.resolved_provider() == "none":
        return "none"
    return repr((ms.resolved_provider(), ms.model, ms.local, ms.remote, ms.input_type,
                 ms.query_input_type, ms.document_input_type, ms.output_dimensionality,
                 cfg.memlab.batch_size))


def _corpus_key(cfg: MemlabConfig) -> str:
    ms = cfg.memory_search
    return repr((ms.chunking, cfg.memlab.chunking, ms.effective_extra_paths(),
                 ms.effective_sources(), _provider_key(cfg)))


def _keyword_key(cfg: MemlabConfig) -> str:
    ms, ml = cfg.memory_search, cfg.memlab
    return repr((_corpus_key(cfg), ms.store.fts.tokenizer, ml.keyword, ml.bm25, ml.tokenizer,
                 ml.match, ml.keyword_fallback))


def _vector_key(cfg: MemlabConfig) -> str:
    return repr((_corpus_key(cfg), cfg.memlab.vector_index, cfg.memlab.vector_index_params))


def _leg_key(cfg: MemlabConfig) -> str:
    """The group a config is evaluated in: its mode and the legs that mode reads."""
    mode = config_mode(cfg)
    parts: list[Any] = [mode, _corpus_key(cfg)]
    if mode != KEYWORD:
        parts.append(_vector_key(cfg))
    if mode != VECTOR:
        parts.append(_keyword_key(cfg))
    return repr(tuple(parts))


def _resolve(cfg: MemlabConfig) -> dict[str, Any]:
    """What :func:`memlab.openclaw.openclaw_pipeline` hands the cheap stages (settings a mode
    does not read are neutralised, so they never change its results)."""
    ms = cfg.memory_search
    q = ms.query
    mode = config_mode(cfg)
    max_results = int(q.max_results)
    vw, tw = ms.normalized_weights()
    hybrid = mode == HYBRID
    return {
        "mode": mode, "k": ms.candidates(max_results),
        "method": METHOD_CODES[cfg.memlab.fusion.method] if hybrid else 0,
        "wv": vw, "wt": tw, "rrf_k": float(cfg.memlab.fusion.rrf_k),
        "decay": _step_on("decay", mode, q.hybrid.temporal_decay.enabled),
        "rule": cfg.memlab.decay_rule, "hl": float(ms.half_life_days()),
        "mmr": _step_on("mmr", mode, q.hybrid.mmr.enabled),
        "lam": float(ms.mmr_lambda()), "min_score": float(q.min_score),
        "max_results": max_results,
    }


def _step_on(stage: str, mode: int, enabled: bool) -> bool:
    """Whether the recipe's ``stage`` step runs for ``mode`` (the modes it applies to) with
    the config's switch ``enabled``, as ``openclaw_pipeline`` builds it."""
    step = LINE.step(stage)
    return step is not None and MODES[mode] in step.get("modes", ()) and bool(enabled)


def _plan(configs: Sequence[MemlabConfig]) -> dict[str, np.ndarray]:
    rows = [_resolve(c) for c in configs]
    plan = {key: np.array([r[key] for r in rows]) for key in rows[0]}
    plan["dkey"] = np.array([f"{r['rule']}|{r['hl']!r}" if r["decay"] else "" for r in rows],
                            dtype=object)
    return plan


# ---------------------------------------------------------------------------------------------
# Per-query cached data
# ---------------------------------------------------------------------------------------------


@dataclass
class _Pool:
    """One query's merged candidates for one ``candidates`` value (canonical union order)."""

    docno: np.ndarray
    vs: np.ndarray
    ts: np.ndarray
    vrank: np.ndarray
    trank: np.ndarray
    keyword: np.ndarray
    base: np.ndarray | None = None
    mult: dict[str, np.ndarray] = field(default_factory=dict)
    sim: np.ndarray | None = None


@dataclass
class _Query:
    """One query's cached candidates and what its gains need.

    Span level: ``spans`` (docno -> judged spans it overlaps). Document level: ``doc_of``
    (docno -> document code, shared by all queries) and ``grades`` (document code -> grade).
    """

    qid: str
    judged: bool
    ideal: np.ndarray | None
    spans: dict[int, list[tuple[int, int]]]
    pools: dict[int, _Pool]
    doc_of: np.ndarray | None = None
    grades: dict[int, int] | None = None

    def gains(self, docnos: np.ndarray) -> np.ndarray:
        if self.doc_of is None:
            return _gains(docnos, self.spans)
        return _doc_gains(docnos, self.doc_of, self.grades or {})


def _pool(vector: QueryHits | None, text: QueryHits | None, k: int, mode: int
          ) -> _Pool | None:
    """One query's candidates for ``candidates = k`` in union order (``None``: none)."""
    if vector is not None and mode != KEYWORD:
        vector = vector.take(leg_cut(np.arange(1, len(vector.docno) + 1), k))
    else:
        vector = None
    if text is not None and mode != VECTOR:
        text = text.take(leg_cut(np.arange(1, len(text.docno) + 1), k, text.fallback))
    else:
        text = None
    if vector is None and text is None:
        return None
    vdoc = vector.docno if vector is not None else np.zeros(0, dtype=np.int64)
    tdoc = text.docno if text is not None else np.zeros(0, dtype=np.int64)
    docno, vpos, tpos = union(vdoc, tdoc)
    if not len(docno):
        return None
    in_v, in_t = vpos >= 0, tpos >= 0
    n = len(docno)
    vs = np.where(in_v, vector.score[vpos], 0.0) if vector is not None and len(vdoc) else \
        np.zeros(n)
    ts = np.zeros(n)
    base = vs
    if text is not None and len(tdoc):
        leg_ts = text.text_score if text.text_score is not None else text.score
        ts = np.where(in_t, leg_ts[tpos], 0.0)
        if mode == KEYWORD:  # keyword only ranks by the boosted score
            ranking = text.boosted_score if text.boosted_score is not None else text.score
            base = ranking[tpos]
    return _Pool(docno=docno, vs=vs, ts=ts, vrank=np.where(in_v, vpos + 1.0, np.nan),
                 trank=np.where(in_t, tpos + 1.0, np.nan), keyword=in_t, base=base)


def _span_lists(qrels: pd.DataFrame, chunks: pd.DataFrame, qid: str,
                docnos: np.ndarray) -> dict[int, list[tuple[int, int]]]:
    """Per docno: the (span id, grade) pairs it overlaps, best grade first, then earliest span
    (:func:`memlab.eval.relevance.span_pairs`, the order the gains kernel walks)."""
    from memlab.eval.relevance import span_pairs

    spans = qrels.loc[qrels["qid"].astype(str) == qid]
    out: dict[int, list[tuple[int, int]]] = {}
    if spans.empty:
        return out
    docs = np.unique(np.asarray(docnos, dtype=np.int64))
    hits = chunks.iloc[docs][["path", "start_line", "end_line"]].assign(qid=qid)
    pairs = span_pairs(hits, spans.assign(qid=qid))
    for row, span, grade in zip(pairs["row"].tolist(), pairs["span"].tolist(),
                                pairs["grade"].tolist(), strict=True):
        out.setdefault(int(docs[row]), []).append((int(span), int(grade)))
    return out


def _gains(docnos: Sequence[int], spans: dict[int, list[tuple[int, int]]]) -> np.ndarray:
    """:func:`memlab.kernels.gains.span_gains` of one ranked list from its span lists."""
    rows, sids, grades = [], [], []
    for i, d in enumerate(np.asarray(docnos).tolist()):
        for sid, grade in spans.get(int(d), ()):
            rows.append(i)
            sids.append(sid)
            grades.append(grade)
    return gains_kernel.span_gains(np.array(rows, dtype=np.int64), np.array(sids),
                                   np.array(grades), len(docnos))


def _doc_gains(docnos: np.ndarray, doc_of: np.ndarray, grades: Mapping[int, int]) -> np.ndarray:
    """:func:`memlab.eval.relevance.doc_gains` for one ranked list: each document ranks at its
    first chunk, later chunks are dropped, the gain is its grade (negative counts 0)."""
    codes = doc_of[np.asarray(docnos, dtype=np.int64)]
    kept = codes[gains_kernel.first_occurrences(codes)]
    return gains_kernel.document_gains(
        np.array([grades.get(int(c), np.nan) for c in kept], dtype=np.float64))


# ---------------------------------------------------------------------------------------------
# The vectorised evaluation of one query
# ---------------------------------------------------------------------------------------------


#: The threshold relaxation of each mode: the recipe's threshold step (the one
#: :func:`memlab.openclaw.openclaw_pipeline` reads).
RELAXED = {code: LINE.param("threshold", "relaxed")[name] for code, name in enumerate(MODES)}


def _query_lists(pool: _Pool, plan: Mapping[str, np.ndarray], idx: np.ndarray
                 ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Final (thresholded) hit positions per configuration ``idx`` for one query's pool.

    Returns (per config: canonical item indices in rank order), the decayed score matrix and
    the final order matrix."""
    n = len(pool.docno)
    c = len(idx)
    if n == 0:
        return [np.zeros(0, dtype=np.int64)] * c, np.zeros((c, 0)), np.zeros((c, 0), np.int64)
    mode = int(plan["mode"][idx[0]])
    if mode != HYBRID:  # one leg: its own score ranks (cosine, or the boosted keyword score)
        fused = np.repeat(pool.base[None, :], c, axis=0)
        return _cut(pool, plan, idx, fused, mode)
    wv = plan["wv"][idx][:, None]
    wt = plan["wt"][idx][:, None]
    rrf_k = plan["rrf_k"][idx][:, None]
    method = plan["method"][idx]
    fused = np.empty((c, n))
    for code, name in enumerate(METHODS):
        m = method == code
        if m.any():
            fused[m] = fuse_scores(name, wv[m], wt[m], vector_score=pool.vs,
                                   text_score=pool.ts, vector_rank=pool.vrank,
                                   text_rank=pool.trank, rrf_k=rrf_k[m])
    return _cut(pool, plan, idx, fused, mode)


def _cut(pool: _Pool, plan: Mapping[str, np.ndarray], idx: np.ndarray, fused: np.ndarray,
         mode: int) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Decay, MMR and the ``minScore``/``maxResults`` cut of fused scores (configs x items)."""
    c, n = fused.shape
    decayed = fused.copy()
    dkeys = plan["dkey"][idx]
    for dk in set(dkeys.tolist()) - {""}:
        m = dkeys == dk
        decayed[m] = fused[m] * pool.mult[dk][None, :]
    canon = np.broadcast_to(np.arange(n), (c, n))
    # fusion's stable sort by score, then decay's stable sort by decayed score
    order = np.lexsort((canon, -fused, -decayed), axis=-1)
    mmr = plan["mmr"][idx] & (plan["lam"][idx] < 1.0)
    if mmr.any() and n > 1:
        pos = np.empty((int(mmr.sum()), n), dtype=np.int64)
        np.put_along_axis(pos, order[mmr], np.arange(n)[None, :].repeat(len(pos), 0), axis=1)
        order = order.copy()
        order[mmr] = mmr_order(decayed[mmr], pool.sim, plan["lam"][idx][mmr], pos=pos)
    scores = np.take_along_axis(decayed, order, axis=1)
    chosen = eligible(scores, pool.keyword[order], plan["min_score"][idx][:, None],
                      RELAXED[mode])
    keep = keep_first(chosen, plan["max_results"][idx][:, None])
    lists = [order[i][keep[i]] for i in range(c)]
    return lists, decayed, order


def _evaluate_queries(queries: list[_Query], plan: Mapping[str, np.ndarray],
                      metrics: Sequence[str], keep_hits: bool = False
                      ) -> tuple[np.ndarray, list[list[tuple[np.ndarray, np.ndarray]]] | None]:
    """Metrics (Q x C x M; NaN for unjudged queries) of every configuration of ``plan``.

    Each judged query's distinct ranked lists get their gains once; the metrics of all of
    them come from one :func:`memlab.eval.metrics.metric_arrays` call (a list is a query
    there, with its query's judged grades)."""
    n_cfg = len(plan["k"])
    out = np.full((len(queries), n_cfg, len(metrics)), np.nan)
    hits: list[list[tuple[np.ndarray, np.ndarray]]] | None = [] if keep_hits else None
    ks = plan["k"]
    list_of = np.full((len(queries), n_cfg), -1, dtype=np.int64)  # each result's list
    list_gains: list[np.ndarray] = []
    list_ideal: list[np.ndarray] = []
    for qi, q in enumerate(queries):
        memo: dict[bytes, int] = {}
        per_cfg: list[tuple[np.ndarray, np.ndarray]] = [None] * n_cfg  # type: ignore[list-item]
        for k in np.unique(ks):
            idx = np.flatnonzero(ks == k)
            pool = q.pools[int(k)]
            lists, decayed, _ = _query_lists(pool, plan, idx)
            for j, items in zip(idx, lists, strict=True):
                docnos = pool.docno[items]
                if keep_hits:
                    row = np.flatnonzero(idx == j)[0]
                    per_cfg[j] = (docnos, decayed[row][items])
                if not q.judged:
                    continue
                key = docnos.tobytes()
                at = memo.get(key)
                if at is None:
                    at = memo[key] = len(list_gains)
                    list_gains.append(q.gains(docnos))
                    list_ideal.append(q.ideal)
                list_of[qi, j] = at
        if hits is not None:
            hits.append(per_cfg)
    if list_gains:
        lists = np.arange(len(list_gains))
        values = metric_arrays(
            metrics, len(list_gains), np.repeat(lists, [len(g) for g in list_gains]),
            np.concatenate(list_gains), np.repeat(lists, [len(i) for i in list_ideal]),
            np.concatenate(list_ideal))
        done = list_of >= 0
        out[done] = np.column_stack([values[m] for m in metrics])[list_of[done]]
    return out, hits


# ---------------------------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------------------------


@dataclass
class _LegData:
    """The cached legs of one group (one mode over one corpus): ``vec`` is ``None`` in
    keyword-only mode, ``kw`` in vector-only mode."""

    corpus: Any
    vec: pd.DataFrame | None
    kw: pd.DataFrame | None
    kw_leg: Any
    fts: bool
    queries: pd.DataFrame
    seconds: float
    mode: int = HYBRID
    pools: dict[int, dict[str, _Pool]] = field(default_factory=dict)


class SweepEngine:
    """Evaluate many configurations of one dataset from cached legs.

    Parameters
    ----------
    dataset:
        A memory dataset (path or loaded; line-span judgments) or a BEIR collection (document
        judgments; a path is loaded with ``unknown_ids``).
    base:
        The base config (path, dict or :class:`MemlabConfig`); grid overrides apply on top.
        Default: OpenClaw's defaults with the local model.
    embedder:
        Overrides the provider of the config (tests use a fake one); default
        :func:`memlab.openclaw.make_embedder` of each configuration's provider settings
        (one embedder per distinct provider; ``provider: "none"`` needs none). A provider
        that is not a :class:`~memlab.embed.cache.CachedEmbedder` is wrapped in one with an
        in-memory cache, so no text is embedded twice.
    now:
        Reference time for queries without one (default: the dataset's latest ``now``, else
        the clock at construction), so every run decays identically.
    backend, n_jobs:
        Where the corpus embedding shards and the grid evaluation run; see
        :mod:`memlab.tune.backend`. Call :meth:`close` (or use the engine as a context
        manager) to stop a dask cluster the engine started.
    unknown_ids:
        For a BEIR path: what qrels naming unknown documents do (``"error"``, ``"drop"``,
        ``"keep"``; see :func:`memlab.eval.datasets.load_beir_dataset`).

    >>> engine = SweepEngine("datasets/sample-memory")  # doctest: +SKIP
    >>> engine.run({"provider": ["local", "none"], "query.minScore": [0.2, 0.35]})  # doctest: +SKIP
    """

    def __init__(self, dataset: Any, base: Any = None, embedder: Any = None, *,
                 now: object = None, backend: Any = None, n_jobs: int = 1,
                 progress: bool = False, unknown_ids: str | None = None):
        from memlab.eval.datasets import load_dataset
        from memlab.tune.backend import Executor

        if isinstance(dataset, (str, Path)):
            path = Path(dataset)
            kwargs = {"unknown_ids": unknown_ids} if unknown_ids and not (
                path / "workspace").is_dir() else {}
            dataset = load_dataset(path, **kwargs)
        self.dataset = dataset
        self.name = str(getattr(dataset, "name", "") or "")
        if base is None:
            base = {"memorySearch": {"provider": "local"}}
        self.base = base if isinstance(base, MemlabConfig) else load_config(base)
        self._embedder = embedder
        self._embedders: dict[str, Any] = {}
        self.backend = backend
        self.n_jobs = n_jobs
        self.executor = backend if isinstance(backend, Executor) else Executor(backend, n_jobs)
        self.progress = progress
        queries = dataset.queries.copy()
        queries["qid"] = queries["qid"].astype(str)
        if "now" in queries.columns and queries["now"].notna().any():
            queries["now"] = queries["now"].fillna(queries["now"].max())
        else:
            queries["now"] = pd.Timestamp(to_epoch_ms(now), unit="ms", tz="UTC").isoformat() \
                if now is None else now
        self.queries = queries
        self.qrels = dataset.qrels.reset_index(drop=True)
        self.level = getattr(dataset, "level", "span")
        if self.level not in ("span", "doc"):
            raise SweepError(f"unknown judgment level {self.level!r}")
        if self.level == "doc":
            from memlab.eval.relevance import doc_ideal

            ideal = doc_ideal(self.qrels)
            docs = self.qrels["doc_id"].astype(str)
            self._doc_codes: dict[str, int] = {d: i for i, d in enumerate(dict.fromkeys(docs))}
            self._doc_grades: dict[str, dict[int, int]] = {}
            for qid, g in self.qrels.groupby(self.qrels["qid"].astype(str)):
                self._doc_grades[str(qid)] = {
                    self._doc_codes[str(d)]: int(gr)
                    for d, gr in zip(g["doc_id"].astype(str), g["grade"], strict=True)}
        else:
            ideal = {}
            for qid, g in self.qrels.groupby(self.qrels["qid"].astype(str)):
                ideal[str(qid)] = np.sort(g["grade"].to_numpy())[::-1]
        self._ideal = ideal
        self._legs: dict[str, _LegData] = {}
        self._corpora: dict[str, Any] = {}
        self._vec_legs: dict[str, pd.DataFrame] = {}
        self._model_stats: dict[str, dict[str, Any]] = {}
        self._kw_legs: dict[str, tuple[pd.DataFrame, Any]] = {}
        self._truncation: dict[str, Truncation] = {}
        self.timings: dict[str, float] = {}

    def close(self) -> None:
        """Stop what the engine's backend started (a dask LocalCluster)."""
        if self.executor is not self.backend:
            self.executor.close()

    def __enter__(self) -> SweepEngine:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- legs ----------------------------------------------------------------------------------
    def embedder(self, cfg: MemlabConfig):
        """The (caching) embedder of ``cfg``'s provider; ``None`` for ``provider: "none"``."""
        from memlab.embed.cache import CachedEmbedder

        key = _provider_key(cfg)
        if key == "none":
            return None
        emb = self._embedders.get(key)
        if emb is not None:
            return emb
        if self._embedder is not None:
            if self._embedders:
                raise SweepError(
                    "an explicit embedder serves one provider setting, but the grid asks for "
                    "several; leave the embedder out so each provider is made from its config")
            emb = self._embedder
        else:
            from memlab.openclaw import make_embedder

            emb = make_embedder(cfg)
        if not isinstance(emb, CachedEmbedder):
            emb = CachedEmbedder(emb)
        self._embedders[key] = emb
        return emb

    def corpus(self, cfg: MemlabConfig):
        """The corpus ``cfg`` searches (chunked as :func:`memlab.eval.systems.dataset_corpus`
        chunks it), memoised per chunking and provider."""
        from memlab.eval.systems import dataset_corpus

        key = _corpus_key(cfg)
        corpus = self._corpora.get(key)
        if corpus is None:
            embedder = self.embedder(cfg)
            corpus = dataset_corpus(self.dataset, cfg, embedder)
            self._corpora[key] = corpus
        return corpus

    def truncation(self, cfg: MemlabConfig) -> Truncation:
        """The chunks of ``cfg``'s corpus longer than its embedder's input window
        (:func:`memlab.tune.chunkings.truncation`, counted by the model's tokenizer), memoised
        per corpus; unknown (NaN) for keyword only and for providers without a known window."""
        key = _corpus_key(cfg)
        got = self._truncation.get(key)
        if got is None:
            got = truncation(self.corpus(cfg).texts, self.embedder(cfg))
            self._truncation[key] = got
        return got

    def _vector_leg(self, cfg: MemlabConfig, corpus: Any) -> pd.DataFrame:
        from memlab.stages.vector import VectorSearch
        from memlab.tune.backend import embed_corpus

        key = _vector_key(cfg)
        vec = self._vec_legs.get(key)
        if vec is None:
            embedder = self.embedder(cfg)
            start = time.perf_counter()
            embedded = embed_corpus(corpus.texts, embedder, self.executor,
                                    progress=self.progress)
            embed_s = time.perf_counter() - start
            self.timings["embed"] = self.timings.get("embed", 0.0) + embed_s
            vector = VectorSearch(corpus, embedder, index=cfg.memlab.vector_index,
                                  index_params=cfg.memlab.vector_index_params,
                                  depth=LEG_DEPTH)
            start = time.perf_counter()
            vec = vector.transform(self.queries)
            query_s = time.perf_counter() - start
            self._vec_legs[key] = vec
            stats = self._model_stats.setdefault(_provider_key(cfg), {
                "texts_embedded": 0, "cache_hits": 0, "embed_s": 0.0, "query_s": 0.0,
                "queries": 0})
            stats["texts_embedded"] += embedded
            stats["cache_hits"] += len(set(corpus.texts)) - embedded
            stats["embed_s"] += embed_s
            stats["query_s"] += query_s
            stats["queries"] += len(self.queries)
            stats["dims"] = int(embedder.dims)
        return vec

    def model_stats(self, cfg: MemlabConfig) -> dict[str, Any] | None:
        """The embedding work of ``cfg``'s model in this engine (``None`` before its vector
        leg ran): corpus texts embedded and found in the cache, seconds of corpus embedding,
        ``query_ms`` (the vector leg per query: batched query embedding and exact search) and
        ``dims``. Summed over the vector legs of the model (e.g. several chunkings)."""
        stats = self._model_stats.get(_provider_key(cfg))
        if stats is None:
            return None
        return {**stats, "query_ms": 1000.0 * stats["query_s"] / max(stats["queries"], 1)}

    def _keyword_leg(self, cfg: MemlabConfig, corpus: Any) -> tuple[pd.DataFrame, Any]:
        from memlab.openclaw import keyword_leg

        key = _keyword_key(cfg)
        got = self._kw_legs.get(key)
        if got is None:
            kw_leg = keyword_leg(corpus, cfg, depth=LEG_DEPTH)
            got = (kw_leg.transform(self.queries), kw_leg)
            self._kw_legs[key] = got
        return got

    def legs(self, cfg: MemlabConfig) -> _LegData:
        """The legs ``cfg``'s mode reads, at depth 200 (each computed once per leg key)."""
        key = _leg_key(cfg)
        data = self._legs.get(key)
        if data is not None:
            return data
        start = time.perf_counter()
        mode = config_mode(cfg)
        corpus = self.corpus(cfg)
        vec = self._vector_leg(cfg, corpus) if mode != KEYWORD else None
        kw, kw_leg = self._keyword_leg(cfg, corpus) if mode != VECTOR else (None, None)
        data = _LegData(corpus=corpus, vec=vec, kw=kw, kw_leg=kw_leg,
                        fts=cfg.memlab.keyword == "fts5", queries=self.queries,
                        seconds=time.perf_counter() - start, mode=mode)
        self._legs[key] = data
        self.timings["legs"] = self.timings.get("legs", 0.0) + data.seconds
        return data

    def _keyword_at(self, legs: _LegData, k: int) -> pd.DataFrame:
        """The keyword leg as the pipeline runs it with ``candidates = k``."""
        assert legs.kw is not None
        if not legs.fts or "fallback" not in legs.kw.columns or not legs.kw["fallback"].any():
            return legs.kw
        fb_qids = legs.kw.loc[legs.kw["fallback"].to_numpy(dtype=bool), "qid"].unique()
        legs.kw_leg.set_params(depth=int(k))
        try:
            fresh = legs.kw_leg.transform(legs.queries[legs.queries["qid"].isin(fb_qids)])
        finally:
            legs.kw_leg.set_params(depth=LEG_DEPTH)
        kept = legs.kw[~legs.kw["qid"].isin(fb_qids)]
        qorder = {q: i for i, q in enumerate(legs.queries["qid"])}
        both = pd.concat([kept, fresh], ignore_index=True)
        both["_q"] = both["qid"].map(qorder)
        return both.sort_values("_q", kind="stable").drop(columns="_q").reset_index(drop=True)

    def _pools(self, legs: _LegData, k: int, plan: Mapping[str, np.ndarray]) -> dict[str, _Pool]:
        """Every query's candidates for ``candidates = k`` (the legs cut and merged as the
        pipeline's Fusion stage merges them, before sorting), with the decay multipliers
        ``plan`` asks for."""
        pools = legs.pools.get(k)
        if pools is None:
            vec = legs.vec
            txt = self._keyword_at(legs, k) if legs.kw is not None else None
            varr = QueryHits.from_frame(vec) if vec is not None else None
            tarr = QueryHits.from_frame(txt) if txt is not None else None
            vgroups = vec.groupby("qid", sort=False).indices if vec is not None else {}
            tgroups = txt.groupby("qid", sort=False).indices if txt is not None else {}
            matrix = MMR(legs.corpus).token_matrix() if legs.mode == HYBRID else None
            pools = {}
            for qid in dict.fromkeys([*vgroups, *tgroups]):
                vhits = varr.take(vgroups[qid]) if qid in vgroups else None
                thits = tarr.take(tgroups[qid]) if qid in tgroups else None
                pool = _pool(vhits, thits, k, legs.mode)
                if pool is None:
                    continue
                if matrix is not None:
                    pool.sim = jaccard_rows(matrix, pool.docno)
                pools[str(qid)] = pool
            legs.pools[k] = pools
        sel = plan["k"] == k
        dkeys = set(plan["dkey"][sel].tolist()) - {""}
        first = next(iter(pools.values()), None)
        if first is not None and dkeys - set(first.mult):
            now = {str(q): to_epoch_ms(None if pd.isna(v) else v)
                   for q, v in zip(legs.queries["qid"], legs.queries["now"], strict=True)}
            for dk in dkeys - set(first.mult):
                rule, hl = dk.split("|")
                stage = TemporalDecay(legs.corpus, half_life_days=float(hl), rule=rule)
                for qid, pool in pools.items():
                    pool.mult[dk] = stage.docno_multipliers(pool.docno, now[qid])
        return pools

    def _query_data(self, legs: _LegData, plan: Mapping[str, np.ndarray]) -> list[_Query]:
        per_k = {int(k): self._pools(legs, int(k), plan) for k in np.unique(plan["k"])}
        chunks = legs.corpus.chunks
        out = []
        empty = _Pool(*(np.zeros(0, dtype=t) for t in (np.int64, float, float, float, float,
                                                        bool)), base=np.zeros(0))
        doc_of = None
        if self.level == "doc":
            from memlab.eval.relevance import path_to_doc_id

            cached = legs.__dict__.get("_doc_of")
            if cached is None:
                codes = self._doc_codes
                cached = np.array([codes.get(path_to_doc_id(p), -1) for p in chunks["path"]],
                                  dtype=np.int64)
                # documents nobody judged get distinct codes so they dedupe per document
                unjudged = cached < 0
                if unjudged.any():
                    _, inv = np.unique(chunks["path"].to_numpy()[unjudged], return_inverse=True)
                    cached[unjudged] = len(codes) + inv
                legs.__dict__["_doc_of"] = cached
            doc_of = cached
        cache = legs.__dict__.setdefault("_spans", {})
        for qid in legs.queries["qid"]:
            ideal = self._ideal.get(qid)
            judged = ideal is not None and bool(np.count_nonzero(ideal))
            pools = {k: p.get(qid, empty) for k, p in per_k.items()}
            span_lists: dict[int, list[tuple[int, int]]] = {}
            if doc_of is not None:
                out.append(_Query(qid=qid, judged=judged, ideal=ideal, spans=span_lists,
                                  pools=pools, doc_of=doc_of,
                                  grades=self._doc_grades.get(qid, {})))
                continue
            if judged:
                docs = np.concatenate([p.docno for p in pools.values()])
                spans = cache.get(qid)
                if spans is None or not set(np.unique(docs).tolist()) <= spans[0]:
                    lists = _span_lists(self.qrels, chunks, qid, docs)
                    spans = (set(np.unique(docs).tolist()), lists)
                    cache[qid] = spans
                span_lists = spans[1]
            out.append(_Query(qid=qid, judged=judged, ideal=ideal, spans=span_lists,
                              pools=pools))
        return out

    # -- evaluation ----------------------------------------------------------------------------
    def evaluate_configs(self, configs: Sequence[MemlabConfig],
                         metrics: Sequence[str] = ("ndcg@10",), *, keep_hits: bool = False,
                         ) -> tuple[np.ndarray, list[str], Any]:
        """Per-query metrics (queries x configs x metrics; NaN where unjudged) and the qids.

        With ``keep_hits`` also per query per config ``(docnos, scores)``."""
        from memlab.tune.backend import map_blocks

        metrics = [m.strip().lower() for m in metrics]
        for m in metrics:
            parse_metric(m)
        groups: dict[str, list[int]] = {}
        for i, cfg in enumerate(configs):
            groups.setdefault(_leg_key(cfg), []).append(i)
        qids = self.queries["qid"].tolist()
        result = np.full((len(qids), len(configs), len(metrics)), np.nan)
        all_hits: list[list[Any]] | None = (
            [[None] * len(configs) for _ in qids] if keep_hits else None)
        for members in groups.values():
            cfgs = [configs[i] for i in members]
            legs = self.legs(cfgs[0])
            start = time.perf_counter()
            plan = _plan(cfgs)
            qdata = self._query_data(legs, plan)
            self.timings["prepare"] = self.timings.get("prepare", 0.0) + (
                time.perf_counter() - start)
            start = time.perf_counter()
            values, hits = map_blocks(_evaluate_queries, qdata, plan, metrics, keep_hits,
                                      backend=self.executor, progress=self.progress)
            self.timings["evaluate"] = self.timings.get("evaluate", 0.0) + (
                time.perf_counter() - start)
            result[:, members, :] = values
            if all_hits is not None and hits is not None:
                for qi in range(len(qids)):
                    for j, i in enumerate(members):
                        all_hits[qi][i] = hits[qi][j]
        return result, qids, all_hits

    def hits(self, config: MemlabConfig | Mapping[str, Any]) -> pd.DataFrame:
        """The hits of one configuration as the engine computes them (``qid, docno, score,
        rank``), for checking against :func:`memlab.openclaw.openclaw_pipeline`."""
        cfg = config if isinstance(config, MemlabConfig) else self.base.with_overrides(
            expand_overrides(resolve_chunking(config, self.base)))
        _, qids, hits = self.evaluate_configs([cfg], keep_hits=True)
        rows = []
        for qi, qid in enumerate(qids):
            docnos, scores = hits[qi][0]
            for r, (d, s) in enumerate(zip(docnos, scores, strict=True), 1):
                rows.append((qid, int(d), float(s), r))
        return pd.DataFrame(rows, columns=["qid", "docno", "score", "rank"])

    def tags(self) -> dict[str, np.ndarray]:
        """Per tag, a mask over the queries carrying it."""
        if "tags" not in self.queries.columns:
            return {}
        lists = [[] if t is None or (isinstance(t, float) and math.isnan(t))
                 else ([t] if isinstance(t, str) else list(t)) for t in self.queries["tags"]]
        names = sorted({str(t) for ts in lists for t in ts})
        return {n: np.array([n in map(str, ts) for ts in lists]) for n in names}

    def run(self, grid: Mapping[str, Any] | Sequence[Mapping[str, Any]],
            metrics: Sequence[str] = ("ndcg@10", "recall@10", "mrr@10"), *,
            by_tag: bool = False) -> pd.DataFrame:
        """Evaluate a grid (key path -> values) or a list of override dicts; one row per
        configuration: the axis columns, ``mode``, ``candidates``, the metric means over
        judged queries, ``queries``, ``dataset`` and, with ``by_tag``, ``"<metric>[<tag>]"``
        columns."""
        start = time.perf_counter()
        if isinstance(grid, Mapping):
            overrides, configs = expand_grid(grid, self.base)
        else:
            overrides = [dict(o) for o in grid]
            if not overrides:
                raise SweepError("no configurations to evaluate")
            overrides = [resolve_chunking(o, self.base) for o in overrides]
            configs = [self.base.with_overrides(expand_overrides(o)) for o in overrides]
        self.timings["expand"] = time.perf_counter() - start
        values, _, _ = self.evaluate_configs(configs, metrics)
        metrics = [m.strip().lower() for m in metrics]
        return self.table(overrides, configs, values, metrics, by_tag=by_tag)

    def table(self, overrides: Sequence[Mapping[str, Any]], configs: Sequence[MemlabConfig],
              values: np.ndarray, metrics: Sequence[str], *, by_tag: bool = False
              ) -> pd.DataFrame:
        """The results DataFrame of :meth:`run` from :meth:`evaluate_configs`' values."""
        judged = self.judged_mask()
        frame = pd.DataFrame(list(overrides))
        frame["mode"] = [MODES[config_mode(c)] for c in configs]
        frame["candidates"] = [c.memory_search.candidates() for c in configs]
        for mi, m in enumerate(metrics):
            frame[m] = values[judged, :, mi].mean(axis=0) if judged.any() else np.nan
        if by_tag:
            for tag, mask in self.tags().items():
                sel = mask & judged
                for mi, m in enumerate(metrics):
                    frame[f"{m}[{tag}]"] = (values[sel, :, mi].mean(axis=0) if sel.any()
                                            else np.nan)
        frame["queries"] = int(judged.sum())
        frame["dataset"] = self.name
        return frame

    def judged_mask(self) -> np.ndarray:
        """Which queries (in :attr:`queries` order) have a relevant judgment."""
        return np.array([bool(q in self._ideal and np.count_nonzero(self._ideal[q]))
                         for q in self.queries["qid"]])


def sweep(dataset: Any, grid: Mapping[str, Any], base: Any = None, *,
          metrics: Sequence[str] = ("ndcg@10", "recall@10", "mrr@10"), by_tag: bool = False,
          embedder: Any = None, backend: Any = None, n_jobs: int = 1,
          progress: bool = False, unknown_ids: str | None = None) -> pd.DataFrame:
    """Evaluate every configuration of ``grid`` on ``dataset`` (see :class:`SweepEngine`).

    ``grid`` maps config key paths (:data:`ALLOWED_AXES`) to value lists; every combination
    is one configuration and one row of the returned DataFrame.

    Keyword only (no model needed):

    >>> table = sweep("datasets/sample-memory", {"query.minScore": [0.2, 0.35],
    ...               "query.hybrid.temporalDecay.enabled": [False, True]},
    ...               {"memorySearch": {"provider": "none"}}, metrics=["ndcg@10"])
    >>> cols = ["query.minScore", "query.hybrid.temporalDecay.enabled", "mode", "ndcg@10"]
    >>> print(table[cols].round(3).to_string(index=False))
     query.minScore  query.hybrid.temporalDecay.enabled     mode  ndcg@10
               0.20                               False fts-only    0.265
               0.20                                True fts-only    0.242
               0.35                               False fts-only    0.265
               0.35                                True fts-only    0.239

    All three modes in one grid (embeds the corpus once with the local model):

    >>> table = sweep("datasets/sample-memory", {"query.hybrid.enabled": [True, False],
    ...                                          "provider": ["local", "none"]})  # doctest: +SKIP
    >>> sorted(set(table["mode"]))  # doctest: +SKIP
    ['fts-only', 'hybrid', 'vector']
    """
    with SweepEngine(dataset, base, embedder, backend=backend, n_jobs=n_jobs,
                     progress=progress, unknown_ids=unknown_ids) as engine:
        return engine.run(grid, metrics, by_tag=by_tag)
