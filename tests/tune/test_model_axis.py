"""The embedding model as a sweep / Optuna / eval axis (issue 19 item 1)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from memlab.tune.models import (
    MODEL_AXIS,
    ModelSpecError,
    expand_overrides,
    model_label,
    model_report,
    model_systems,
    spec_overrides,
)
from memlab.tune.sweep import SweepEngine, expand_grid, normalize_axis


@pytest.mark.parametrize(("spec", "expected"), [
    ("local", {"provider": "local"}),
    ("local:MiniLM-int8", {"provider": "local", "local.modelPath": "minilm-int8-onnx"}),
    ("local:./models/my-st", {"provider": "local", "local.modelPath": "./models/my-st"}),
    ("openai:text-embedding-3-small", {"provider": "openai",
                                       "model": "text-embedding-3-small"}),
    ("openai-compatible:http://127.0.0.1:9/v1#e5", {
        "provider": "openai-compatible", "remote.baseUrl": "http://127.0.0.1:9/v1",
        "model": "e5"}),
    ("none", {"provider": "none"}),
])
def test_a_spec_stands_for_config_key_paths(spec, expected):
    assert spec_overrides(spec) == expected


@pytest.mark.parametrize("spec", ["", ":x", "openai-compatible:http://h/v1", "none:x"])
def test_a_bad_spec_is_an_error_naming_the_forms(spec):
    with pytest.raises(ModelSpecError, match="spec"):
        spec_overrides(spec)


def test_the_model_axis_expands_into_exportable_key_columns():
    assert normalize_axis(MODEL_AXIS) == MODEL_AXIS
    overrides, configs = expand_grid({MODEL_AXIS: ["none", "local:e5-small"],
                                      "query.minScore": [0.1]})
    assert [o["provider"] for o in overrides] == ["none", "local"]
    assert overrides[1]["local.modelPath"] == "e5-small-multilingual"
    assert [model_label(c) for c in configs] == ["none", "local:e5-small-multilingual"]
    # a key path given explicitly wins over the spec's
    assert expand_overrides({MODEL_AXIS: "local:e5-small", "provider": "none"}) == {
        "provider": "none", "local.modelPath": "e5-small-multilingual"}


def test_model_systems_name_each_pair():
    pairs = model_systems(["keyword", "vector"], ["local", "local:e5-small"])
    assert [n for n, _ in pairs] == [
        "keyword", "vector @ local:minilm", "vector @ local:e5-small-multilingual"]
    assert pairs[0][1].memory_search.resolved_provider() == "none"  # keyword stays keyword
    with pytest.raises(ModelSpecError):
        model_systems(["hybrid"], [])


@pytest.fixture(scope="module")
def two_models(small_dataset):
    """A sweep over two packaged models and a knob on the first 32 queries."""
    data = small_dataset
    grid = {MODEL_AXIS: ["local", "local:use-multilingual"],
            "query.hybrid.vectorWeight": [0.5, 0.9]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = SweepEngine(data)
        overrides, configs = expand_grid(grid, engine.base)
        values, _, _ = engine.evaluate_configs(configs, ["ndcg@10"])
        table = engine.table(overrides, configs, values, ["ndcg@10"])
    return data, engine, configs, table


def test_each_model_is_embedded_once_and_equals_an_explicit_config(two_models):
    data, engine, configs, table = two_models
    assert len(table) == 4 and list(table[MODEL_AXIS][:2]) == ["local"] * 2
    stats = [engine.model_stats(c) for c in configs]
    assert stats[0] is stats[1] or stats[0] == stats[1]  # one leg per model
    n_texts = len(set(engine.corpus(configs[0]).texts))
    for s in (stats[0], stats[2]):
        assert s["texts_embedded"] + s["cache_hits"] == n_texts
        assert s["queries"] == len(data.queries) and s["query_ms"] > 0
    # the USE row is the config with its key paths set explicitly
    explicit = engine.base.with_overrides({"provider": "local",
                                           "local.modelPath": "use-multilingual",
                                           "query.hybrid.vectorWeight": 0.9,
                                           "query.hybrid.textWeight": 0.1})
    vals, _, _ = engine.evaluate_configs([explicit], ["ndcg@10"])
    judged = engine.judged_mask()
    assert np.isclose(vals[judged, 0, 0].mean(), table["ndcg@10"].iloc[3])


def test_a_second_engine_embeds_nothing_already_cached(two_models):
    data, _, _, _ = two_models
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = SweepEngine(data)
        _, configs = expand_grid({MODEL_AXIS: ["local:use-multilingual"]}, again.base)
        again.evaluate_configs(configs, ["ndcg@10"])
    stats = again.model_stats(configs[0])
    assert stats["texts_embedded"] == 0 and stats["cache_hits"] > 0


def test_the_model_report_puts_models_side_by_side(two_models):
    _, engine, configs, table = two_models
    report = model_report(engine, table, configs, "ndcg@10",
                          prices={"local": 0.0})
    assert list(report["embedding"]) == sorted(
        report["embedding"], key=lambda e: -report.set_index("embedding").loc[
            e, "best ndcg@10"])
    assert set(report["embedding"]) == {"local:minilm", "local:use-multilingual"}
    assert (report["configs"] == 2).all() and (report["index_usd"] == 0).all()
    assert sorted(report["dims"]) == [384, 512] and (report["tokens"] > 0).all()
    by = report.set_index("embedding")
    assert np.isclose(by.loc["local:minilm", "best ndcg@10"],
                      table["ndcg@10"].iloc[:2].max())
    with pytest.raises(ValueError, match="no metric column"):
        model_report(engine, table, configs, "mrr@10")


def test_optuna_tunes_the_model_axis(two_models):
    from memlab.tune.optimize import tune

    data, engine, _, _ = two_models
    result = tune(None, {MODEL_AXIS: ["local", "local:use-multilingual"],
                         "query.hybrid.vectorWeight": [0.5, 0.9]},
                  engine=engine, n_trials=4, cv=2, seed=0)
    assert result.method == "optuna" and len(result.out_of_fold) == len(result.qids)
    assert result.config.memory_search.resolved_provider() == "local"


def test_tune_accept_limits_the_choice(two_models):
    from memlab.tune.optimize import tune

    _, engine, _, _ = two_models
    grid = {MODEL_AXIS: ["local", "local:use-multilingual"]}
    only_minilm = tune(None, grid, engine=engine, cv=2,
                       accept=lambda ov: ov.get("local.modelPath") is None)
    assert all("local.modelPath" not in o for o in only_minilm.folds["overrides"])
    assert only_minilm.overrides.get("local.modelPath") is None
