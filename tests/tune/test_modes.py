"""Keyword-only and vector-only configurations, BEIR collections, corpus embedding on the
backends, and never re-embedding: the sweep still equals full runs."""

from __future__ import annotations

import math
import random
import threading
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from memlab.config import load_config
from memlab.eval.experiment import evaluate
from memlab.eval.systems import dataset_corpus
from memlab.openclaw import MemorySearch, openclaw_pipeline
from memlab.tune.sweep import MODES, SweepEngine, SweepError, config_mode

BEIR_MINI = Path(__file__).resolve().parents[1] / "data" / "beir-mini"
METRICS = ["ndcg@10", "recall@10", "mrr@10"]
MODE_GRID = {
    "provider": ["local", "none"],
    "query.hybrid.enabled": [True, False],
    "query.hybrid.vectorWeight": [0.0, 0.3, 0.5, 0.8, 1.0],
    "query.hybrid.candidateMultiplier": [1, 4],
    "query.hybrid.mmr.enabled": [False, True],
    "query.hybrid.mmr.lambda": [0.2, 0.7],
    "query.hybrid.temporalDecay.enabled": [False, True],
    "query.hybrid.temporalDecay.halfLifeDays": [7, 60],
    "query.minScore": [0.0, 0.35, 0.6, 0.9],
    "query.maxResults": [3, 10],
    "memlab.fusion.method": ["openclaw", "rrf", "minmax", "zscore"],
    "memlab.fusion.rrfK": [1, 60],
}


def _sample(seed: int, extra: dict, per_mode: int = 4) -> list[dict]:
    """Random points of MODE_GRID, ``per_mode`` of each mode."""
    rng = random.Random(seed)
    picked: dict[int, list[dict]] = {0: [], 1: [], 2: []}
    while any(len(v) < per_mode for v in picked.values()):
        point = {key: rng.choice(values) for key, values in MODE_GRID.items()}
        point.update({k: rng.choice(v) for k, v in extra.items()})
        point["query.hybrid.textWeight"] = 1 - point["query.hybrid.vectorWeight"]
        mode = 2 if point["provider"] == "none" else (0 if point["query.hybrid.enabled"] else 1)
        if len(picked[mode]) < per_mode:
            picked[mode].append(point)
    return [p for mode in (0, 1, 2) for p in picked[mode]]


def _keys(frame: pd.DataFrame) -> list[tuple]:
    return list(zip(frame["path"], frame["start_line"], frame["end_line"], strict=True))


def _assert_same(engine, configs, full_runs, qrels, level):
    """Every configuration's engine hits (chunks and scores) and metrics equal its full run."""
    values, qids, hits = engine.evaluate_configs(configs, METRICS, keep_hits=True)
    for j, (cfg, full) in enumerate(zip(configs, full_runs, strict=True)):
        chunks = engine.legs(cfg).corpus.chunks
        by_q = dict(tuple(full.groupby("qid", sort=False)))
        for qi, qid in enumerate(qids):
            docnos, scores = hits[qi][j]
            ref = by_q.get(qid)
            ours = _keys(chunks.iloc[docnos]) if len(docnos) else []
            assert ours == (_keys(ref) if ref is not None else []), (MODES[config_mode(cfg)],
                                                                    qid, j)
            if ref is not None:
                np.testing.assert_array_equal(scores, ref["score"].to_numpy())
        per_query, means = evaluate(full, qrels, METRICS, engine.queries, level=level)
        np.testing.assert_allclose(values[:, j, :], per_query[METRICS].to_numpy(dtype=float),
                                   rtol=0, atol=1e-12)


@pytest.mark.parametrize("keyword", ["fts5", "bm25"])
def test_mixed_modes_equal_memorysearch_runs(engine, small_dataset, bow, keyword):
    """Hybrid, vector-only and keyword-only points of one grid equal MemorySearch runs."""
    points = _sample(11 if keyword == "fts5" else 12, {"memlab.keyword": [keyword]})
    # decayed keyword scores (evergreen files keep theirs); vector only with a high cut
    decayed = {"query.hybrid.temporalDecay.enabled": True,
               "query.hybrid.temporalDecay.halfLifeDays": 7, "query.minScore": 0.9,
               "memlab.keyword": keyword}
    points += [{**decayed, "provider": "none"}, {**decayed, "query.hybrid.enabled": False,
                                                  "query.minScore": 0.6}]
    configs = [engine.base.with_overrides(p) for p in points]
    assert [MODES[config_mode(c)] for c in configs] == ["hybrid"] * 4 + ["vector"] * 4 + \
        ["fts-only"] * 5 + ["vector"]
    kw_only = configs[-3]
    if keyword == "fts5":  # OpenClaw's keyword fallback runs in keyword-only mode too
        assert engine.legs(kw_only).kw["fallback"].any()
    assert engine.legs(kw_only).vec is None and engine.legs(configs[4]).kw is None
    assert engine.legs(kw_only).corpus is engine.legs(configs[-2]).corpus
    runs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cfg in configs:
            emb = None if cfg.memory_search.resolved_provider() == "none" else bow
            search = MemorySearch(small_dataset.workspace, cfg, emb)
            runs.append(search.run(engine.queries))
    _assert_same(engine, configs, runs, small_dataset.qrels, "span")


def test_single_leg_modes_ignore_the_fusion_axes(engine):
    table = engine.run({"provider": ["local", "none"], "query.hybrid.enabled": [True, False],
                        "query.hybrid.vectorWeight": [0.2, 0.9],
                        "query.hybrid.mmr.enabled": [False, True]}, ["ndcg@10"])
    assert sorted(set(table["mode"])) == ["fts-only", "hybrid", "vector"]
    for mode in ("vector", "fts-only"):
        sub = table[table["mode"] == mode]
        assert sub["ndcg@10"].nunique() == 1  # weights and MMR do not apply
    hybrid = table[table["mode"] == "hybrid"]
    assert hybrid["ndcg@10"].nunique() > 1
    # keyword only has no vector leg; the vector leg is shared by hybrid and vector only
    kw = engine.base.with_overrides({"provider": "none"})
    vec = engine.base.with_overrides({"query.hybrid.enabled": False})
    assert engine.legs(vec).vec is engine.legs(engine.base).vec
    assert engine.legs(kw).corpus is not engine.legs(vec).corpus  # chunked without a provider


def test_one_explicit_embedder_serves_one_provider(small_dataset, bow):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eng = SweepEngine(small_dataset, embedder=bow)
        with pytest.raises(SweepError, match="explicit embedder serves one provider"):
            eng.run({"provider": ["local", "openai"]})


# -- BEIR collections --------------------------------------------------------------------------


def test_beir_sweep_equals_full_runs(beir_mini, bow):
    """Document-level gains (a document ranks at its best chunk) on a BEIR collection, in all
    three modes, with a chunking axis that re-chunks the documents."""
    eng = SweepEngine(beir_mini, embedder=bow)
    points = _sample(5, {"memlab.keyword": ["fts5", "bm25"], "chunking.tokens": [400, 64]})
    # documents carry no date: decay by mtime (none) leaves every keyword score below any
    # minScore, so OpenClaw's keyword-only relaxation keeps every score >= 0
    points.append({"provider": "none", "query.hybrid.temporalDecay.enabled": True,
                   "query.minScore": 0.3})
    configs = [eng.base.with_overrides(p) for p in points]
    relaxed = eng.hits(configs[-1])
    assert len(relaxed) and (relaxed["score"] < 0.3).all()
    assert {c.memory_search.chunking.tokens for c in configs} == {400, 64}
    runs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cfg in configs:
            emb = None if cfg.memory_search.resolved_provider() == "none" else bow
            corpus = dataset_corpus(beir_mini, cfg, emb)
            runs.append(openclaw_pipeline(corpus, cfg, emb).transform(eng.queries))
    long_docs = eng.legs(configs[0]).corpus.chunks["path"].value_counts()
    assert (long_docs > 1).any()  # some documents span several chunks
    _assert_same(eng, configs, runs, beir_mini.qrels, "doc")
    table = eng.run({"provider": ["local", "none"], "query.maxResults": [5, 10]},
                    ["ndcg@10", "map@10"], by_tag=True)
    assert len(table) == 4 and (table["dataset"] == "beir-mini").all()
    assert table["queries"].iloc[0] == 9  # the unjudged query is left out
    assert {"ndcg@10[short]", "ndcg@10[long]"} <= set(table.columns)


def test_beir_path_needs_unknown_ids_for_unpadded_qrels(bow):
    from memlab.eval.datasets import DatasetError

    with pytest.raises(DatasetError, match="unknown document id 'D-11'.*D-0011"):
        SweepEngine(BEIR_MINI, embedder=bow)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eng = SweepEngine(BEIR_MINI, embedder=bow, unknown_ids="keep")
    assert eng.level == "doc" and eng.name == "beir-mini"


# -- embedding: never twice, and on every backend -----------------------------------------------


def test_a_sweep_never_re_embeds(small_dataset, counting, tmp_path):
    from memlab.embed.cache import CachedEmbedder, EmbeddingCache

    grid = {"provider": ["local", "none"], "query.hybrid.enabled": [True, False],
            "query.hybrid.vectorWeight": [0.2, 0.8], "memlab.keyword": ["fts5", "bm25"],
            "chunking.tokens": [400, 200]}
    path = tmp_path / "embeddings.sqlite"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eng = SweepEngine(small_dataset, embedder=CachedEmbedder(counting,
                                                                 EmbeddingCache(path)))
        eng.run(grid, ["ndcg@10"])
    texts: set[str] = set()
    for tokens in (400, 200):
        cfg = eng.base.with_overrides({"chunking.tokens": tokens})
        texts |= set(eng.corpus(cfg).texts)
    assert counting.texts == len(texts)  # every distinct chunk text embedded exactly once
    calls = counting.calls
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eng.run({**grid, "query.minScore": [0.0, 0.5], "query.hybrid.mmr.enabled": [False, True],
                 "memlab.fusion.method": ["openclaw", "rrf"]}, ["ndcg@10"])
        assert counting.texts == len(texts) and counting.calls == calls
        # a new engine over the same SQLite cache embeds nothing at all
        again = SweepEngine(small_dataset,
                            embedder=CachedEmbedder(counting, EmbeddingCache(path)))
        again.run(grid, ["ndcg@10"])
    assert counting.texts == len(texts) and counting.calls == calls


def _writer_threads(cached):
    """Record which threads write to the cache."""
    seen: set[int] = set()
    put_many = cached.cache.put_many

    def spy(provider, items):
        seen.add(threading.get_ident())
        return put_many(provider, items)

    cached.cache.put_many = spy
    return seen


def test_corpus_embedding_on_backends_is_identical(small_dataset, bow, counting, tmp_path):
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster
    from joblib import parallel_config

    from memlab.embed.cache import CachedEmbedder, EmbeddingCache
    from memlab.tune.backend import embed_corpus

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        texts = list(dataset_corpus(small_dataset, load_config({"memorySearch": {
            "provider": "local"}}), bow).texts)
    unique = len(set(texts))
    shard = 16

    def cached(name):
        return CachedEmbedder(counting, EmbeddingCache(tmp_path / f"{name}.sqlite"))

    serial = cached("serial")
    writers = {"serial": _writer_threads(serial)}
    assert embed_corpus(texts, serial, shard_size=shard) == unique
    assert serial.calls == math.ceil(unique / shard) and serial.texts_embedded == unique
    reference = serial.embed_documents(texts)
    assert serial.texts_embedded == unique  # nothing left to embed

    threads = cached("threads")
    writers["threads"] = _writer_threads(threads)
    with parallel_config(backend="threading"):
        assert embed_corpus(texts, threads, n_jobs=2, shard_size=shard) == unique
    on_dask = cached("dask")
    writers["dask"] = _writer_threads(on_dask)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            assert embed_corpus(texts, on_dask, backend=client, shard_size=shard) == unique
            # a whole sweep on dask from scratch (legs, embedding, grid) equals the local one
            grid = {"provider": ["local", "none"], "query.hybrid.enabled": [True, False],
                    "query.hybrid.mmr.enabled": [False, True]}
            remote = SweepEngine(small_dataset, embedder=bow, backend=client).run(grid)
            local = SweepEngine(small_dataset, embedder=bow).run(grid)
    pd.testing.assert_frame_equal(local, remote)
    for emb in (threads, on_dask):
        assert emb.texts_embedded == unique and len(emb.cache) == unique
        np.testing.assert_array_equal(emb.embed_documents(texts), reference)
        assert emb.texts_embedded == unique
    main = threading.get_ident()
    assert all(seen == {main} for seen in writers.values())  # the caller is the only writer
    assert counting.texts == 3 * unique
