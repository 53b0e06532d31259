"""The quality gate's per-fold configurations (:func:`memlab.tune.gate.fold_configs`)
and its overall tests (:func:`~memlab.tune.gate.gain_tests`), which
``parity/check_gate.py`` runs in the real OpenClaw.

A small gate (two weights, two tokenizers, 3 folds) on the bundled sample with a hashing
embedder as the local model, so it runs in seconds.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from memlab.tune.gate import (
    EVAL_BUDGET,
    GATED,
    SAME_MODEL,
    exportable,
    fold_configs,
    gain_tests,
    quality_gate,
)

SAMPLE = Path(__file__).resolve().parents[2] / "datasets" / "sample-memory"
GRID = {"query.hybrid.vectorWeight": [0.5, 0.9], "store.fts.tokenizer": ["unicode61", "trigram"]}


@pytest.fixture(scope="module")
def engine():
    from memlab.embed.hashing import HashingProvider
    from memlab.tune.sweep import SweepEngine

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eng = SweepEngine(SAMPLE, {"memorySearch": {"provider": "local"}},
                          embedder=HashingProvider())
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def gate(engine):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return quality_gate(SAMPLE, GRID, models=["local"], cv=3, n_resamples=300,
                            engine=engine)


@pytest.mark.parametrize("variant", [SAME_MODEL, GATED])
def test_the_folds_hold_out_every_judged_query_once(gate, variant):
    folds = fold_configs(gate, variant)
    assert [f.fold for f in folds] == sorted(gate.folds.loc[
        gate.folds["variant"] == variant, "fold"])
    held_out = [q for f in folds for q in f.qids]
    assert sorted(held_out) == sorted(gate.per_query["qid"])
    assert len(held_out) == len(set(held_out))


@pytest.mark.parametrize("variant", [SAME_MODEL, GATED])
def test_each_fold_config_scores_the_gates_out_of_fold_values(gate, engine, variant):
    """Re-evaluating a fold's config on its held-out queries gives the gate's per-query
    values, so the config is the one the gate chose (with the evaluation budget)."""
    qids = engine.queries["qid"].astype(str).tolist()
    for f in fold_configs(gate, variant):
        assert f.config.memory_search.query.max_results == EVAL_BUDGET["query.maxResults"]
        assert f.config.memory_search.query.min_score == EVAL_BUDGET["query.minScore"]
        assert exportable(f.config)
        values, _, _ = engine.evaluate_configs([f.config], [gate.metric])
        at = [qids.index(q) for q in f.qids]
        np.testing.assert_allclose(values[at, 0, 0], f.tuned, atol=1e-12)
        pooled = gate.per_query.set_index("qid").loc[list(f.qids)]
        np.testing.assert_array_equal(pooled[variant].to_numpy(), f.tuned)
        np.testing.assert_array_equal(pooled["baseline"].to_numpy(), f.baseline)
        row = gate.folds[(gate.folds["variant"] == variant) & (gate.folds["fold"] == f.fold)]
        assert np.isclose(row["tuned"].iloc[0], f.tuned.mean())


def test_the_baseline_values_are_the_base_configs(gate, engine):
    cfg = gate.base.with_overrides(EVAL_BUDGET)
    values, qids, _ = engine.evaluate_configs([cfg], [gate.metric])
    by_qid = dict(zip(qids, values[:, 0, 0], strict=True))
    np.testing.assert_allclose([by_qid[q] for q in gate.per_query["qid"]],
                               gate.per_query["baseline"], atol=1e-12)


def test_gain_tests_recomputes_the_gates_overall_table(gate):
    again = gain_tests({v: gate.per_query[v].to_numpy() for v in (SAME_MODEL, GATED)},
                       gate.per_query["baseline"].to_numpy(), n_resamples=gate.n_resamples,
                       seed=gate.seed)
    pd.testing.assert_frame_equal(again, gate.overall)


def test_gain_tests_holm_corrects_over_the_variants_given():
    rng = np.random.default_rng(3)
    base = rng.uniform(0, 1, 40)
    a, b = base + rng.normal(0.1, 0.1, 40), base + rng.normal(0.0, 0.1, 40)
    one = gain_tests({"a": a}, base, n_resamples=500)
    two = gain_tests({"a": a, "b": b}, base, n_resamples=500).set_index("variant")
    assert one["p_rand"].iloc[0] == one["p_rand_raw"].iloc[0]
    assert two.loc["a", "p_rand_raw"] == one["p_rand_raw"].iloc[0]
    assert two.loc["a", "p_rand"] >= two.loc["a", "p_rand_raw"]
    assert np.isclose(two.loc["a", "delta"], (a - base).mean())


def test_bad_requests_are_refused(gate):
    with pytest.raises(ValueError, match="no folds of variant"):
        fold_configs(gate, "tuned everything")
    with pytest.raises(ValueError, match="baseline values"):
        gain_tests({"a": np.zeros(3)}, np.zeros(4))
    with pytest.raises(ValueError, match="at least one"):
        gain_tests({}, np.zeros(4))
