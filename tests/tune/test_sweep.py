"""The sweep engine equals full pipeline runs, and rejects bad grids clearly."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pandas as pd
import pytest

from memlab.config import ConfigError
from memlab.eval.experiment import evaluate
from memlab.openclaw import openclaw_pipeline
from memlab.tune.sweep import SweepError, expand_grid

GRID = {
    "query.hybrid.vectorWeight": [0.0, 0.3, 0.5, 0.8, 1.0],
    "query.hybrid.candidateMultiplier": [1, 4],
    "query.hybrid.mmr.enabled": [False, True],
    "query.hybrid.mmr.lambda": [0.2, 0.7],
    "query.hybrid.temporalDecay.enabled": [False, True],
    "query.hybrid.temporalDecay.halfLifeDays": [7, 60],
    "query.minScore": [0.0, 0.35, 0.6],
    "query.maxResults": [3, 10],
    "memlab.fusion.method": ["openclaw", "rrf", "minmax", "zscore"],
    "memlab.fusion.rrfK": [1, 60],
}
METRICS = ["ndcg@10", "recall@10", "mrr@10"]


def _pipeline_hits(engine, cfg, shared):
    """A full openclaw_pipeline run; its (Cached) legs are shared between runs with the same
    leg settings, which only saves re-running retrieval."""
    legs = engine.legs(cfg)
    pipe = openclaw_pipeline(legs.corpus, cfg, engine.embedder(cfg))
    fusion = pipe.stages[0]
    for attr in ("vector", "text"):
        leg = getattr(fusion, attr)
        leg = shared.setdefault((attr, leg._key()), leg)
        setattr(fusion, attr, leg)
    return pipe.transform(engine.queries)


@pytest.mark.parametrize("keyword", ["fts5", "bm25"])
def test_sampled_grid_points_equal_full_pipeline_runs(engine, small_dataset, keyword):
    rng = random.Random(7 if keyword == "fts5" else 8)
    overrides = []
    for _ in range(10):  # random points of the grid (10 per keyword leg, 20 in all)
        point = {key: rng.choice(values) for key, values in GRID.items()}
        point["memlab.keyword"] = keyword
        point["query.hybrid.textWeight"] = 1 - point["query.hybrid.vectorWeight"]
        overrides.append(point)
    configs = [engine.base.with_overrides(o) for o in overrides]
    assert engine.legs(configs[0]).kw["fallback"].any()  # the fallback is exercised
    shared: dict = {}
    values, qids, hits = engine.evaluate_configs(configs, METRICS, keep_hits=True)
    for j, cfg in enumerate(configs):
        i = j
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            full = _pipeline_hits(engine, cfg, shared)
        by_q = dict(tuple(full.groupby("qid", sort=False)))
        for qi, qid in enumerate(qids):
            docnos, scores = hits[qi][j]
            ref = by_q.get(qid)
            ref_docnos = ref["docno"].tolist() if ref is not None else []
            assert list(docnos) == ref_docnos, (overrides[i], qid)
            if ref is not None:
                np.testing.assert_array_equal(scores, ref["score"].to_numpy())
        per_query, means = evaluate(full, small_dataset.qrels, METRICS, engine.queries)
        ours = values[:, j, :]
        # the same ranked lists; metric sums may add in another order (evaluate() sums rank
        # by rank as trec_eval does), so allow for the last bit
        np.testing.assert_allclose(ours, per_query[METRICS].to_numpy(dtype=float), rtol=0,
                                   atol=1e-12)
        judged = per_query["judged"].to_numpy()
        np.testing.assert_allclose(ours[judged].mean(axis=0), means.to_numpy(), rtol=0,
                                   atol=1e-12)


def test_run_returns_a_tidy_table(engine):
    grid = {"query.hybrid.vectorWeight": [0.3, 0.7], "query.hybrid.mmr.enabled": [False, True]}
    table = engine.run(grid, ["ndcg@10"], by_tag=True)
    assert len(table) == 4
    assert {"query.hybrid.vectorWeight", "query.hybrid.textWeight", "query.hybrid.mmr.enabled",
            "candidates", "ndcg@10", "queries"} <= set(table.columns)
    assert any(c.startswith("ndcg@10[") for c in table.columns)
    assert table["query.hybrid.textWeight"].tolist() == pytest.approx([0.7, 0.7, 0.3, 0.3])
    assert table["ndcg@10"].between(0, 1).all()


def test_bad_grids_are_refused_clearly(engine):
    with pytest.raises(SweepError, match="unknown sweep axis 'query.hybrid.bogus'.*allowed"):
        expand_grid({"query.hybrid.bogus": [1]}, engine.base)
    with pytest.raises(SweepError, match="empty"):
        expand_grid({}, engine.base)
    with pytest.raises(SweepError, match="no values"):
        expand_grid({"query.minScore": []}, engine.base)
    with pytest.raises(ConfigError, match="vectorWeight.*1.7.*grid point"):
        expand_grid({"query.hybrid.vectorWeight": [0.5, 1.7]}, engine.base)


def test_memorysearch_prefix_is_accepted(engine):
    overrides, configs = expand_grid({"memorySearch.query.maxResults": [3, 5]}, engine.base)
    assert [o["query.maxResults"] for o in overrides] == [3, 5]
    assert [c.memory_search.query.max_results for c in configs] == [3, 5]


def test_keyword_only_base_is_a_sweep_mode(small_dataset, bow):
    from memlab.tune.sweep import SweepEngine

    eng = SweepEngine(small_dataset, {"memorySearch": {"provider": "none"}}, bow)
    table = eng.run({"query.minScore": [0.1, 0.5]})
    assert table["mode"].tolist() == ["fts-only", "fts-only"]
    assert eng._embedders == {}  # keyword only embeds nothing


@pytest.mark.parametrize(("grid", "message"), [
    ({"query.maxResults": [5, 0]}, "maxResults"),
    ({"query.hybrid.mmr.lambda": [0.5, 1.5]}, "lambda"),
    ({"memlab.fusion.method": ["openclaw", "borda"]}, "method"),
    ({"query.hybrid.enabled": [True, "sometimes"]}, "enabled"),
    ({"query.minScore": [-0.1]}, "minScore"),
])
def test_out_of_range_values_name_the_grid_point(engine, grid, message):
    with pytest.raises(ConfigError, match=f"{message}.*grid point"):
        expand_grid(grid, engine.base)


def test_unknown_axes_are_refused_before_any_work(engine):
    with pytest.raises(SweepError, match="unknown sweep axis 'query.hybrid.vectorweight'"):
        expand_grid({"query.hybrid.vectorweight": [0.5]}, engine.base)  # case matters
    with pytest.raises(SweepError, match="unknown sweep axis 'provder'"):
        expand_grid({"provder": ["local"]}, engine.base)  # (the model is an axis: tests/tune/
        # test_model_axis.py)
    with pytest.raises(SweepError, match="given twice"):
        expand_grid({"query.minScore": [0.1], "memorySearch.query.minScore": [0.2]},
                    engine.base)


def test_table_matches_dataframe_contract(engine):
    table = engine.run([{"query.hybrid.vectorWeight": 0.5, "query.hybrid.textWeight": 0.5}],
                       ["ndcg@10"])
    assert isinstance(table, pd.DataFrame) and len(table) == 1
