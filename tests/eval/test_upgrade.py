"""The upgrade report (memlab.eval.upgrade, ``memlab eval --profile 2026.7 --profile 2026.9``)
on a small keyword-only dataset built so the two lines disagree in known ways."""

from __future__ import annotations

import pytest

from memlab.config import load_config
from memlab.eval.upgrade import config_after_upgrade, run_tiered, upgrade_report
from memlab.tune.sweep import sweep
from tests.upgrade_dataset import write_dataset


@pytest.fixture()
def dataset(tmp_path):
    return write_dataset(tmp_path)


def test_config_after_upgrade_keeps_what_2026_9_accepts_and_names_the_provider():
    cfg = load_config({"memorySearch": {"provider": "local", "query": {
        "maxResults": 4, "hybrid": {"vectorWeight": 0.4, "mmr": {"enabled": True}}},
        "chunking": {"tokens": 200}}})
    assert config_after_upgrade(cfg)["memory"] == {
        "search": {"provider": "local", "query": {"maxResults": 4}}}


def test_profile_run_reads_user_md(dataset):
    hits = run_tiered(dataset, {"memory": {"search": {"provider": "none"}}})
    q1 = hits[hits["qid"] == "q1"].sort_values("rank")
    assert q1.iloc[0]["path"] == "USER.md"
    assert list(hits.columns[:4]) == ["qid", "path", "start_line", "end_line"]


def test_report_per_tag_top1_and_retired_knob_cost(dataset):
    report = upgrade_report(dataset, "keyword", metrics=["ndcg@10", "mrr@10"], n_resamples=200,
                            tune=sweep,
                            grid={"query.hybrid.temporalDecay.enabled": [False, True]})
    table = report.comparison.table
    assert list(table.index) == ["2026.7", "2026.9"]
    # q1: 2026.7 cannot find USER.md (mrr 0), 2026.9 ranks it first (mrr 1)
    per_q = report.comparison.per_query
    mrr = per_q[(per_q["metric"] == "mrr@10") & (per_q["qid"] == "q1")].set_index("system")
    assert mrr.loc["2026.7", "value"] == 0 and mrr.loc["2026.9", "value"] == 1
    changed = report.top1.set_index("qid")
    assert changed.loc["q1", "top1_2026_9"] == "USER.md:1-2"
    assert changed.loc["q1", "delta"] == pytest.approx(1.0)  # ndcg@10 of a single judgment
    tags = report.tags[report.tags["metric"] == "mrr@10"].set_index("tag")
    assert set(tags.index) == {"exact", "temporal"}
    assert tags.loc["exact", "delta"] == pytest.approx(
        tags.loc["exact", "mean_2026_9"] - tags.loc["exact", "mean_2026_7"])
    assert (tags["p_rand"] >= tags["p_rand_raw"]).all()  # Holm never lowers a p-value
    retired = report.retired.set_index("metric")
    assert retired.loc["ndcg@10", "cost"] == pytest.approx(
        retired.loc["ndcg@10", "tuned_2026_7"] - retired.loc["ndcg@10", "fixed_2026_9"])
    assert "query.hybrid.temporalDecay.enabled" in report.tuned
    text = report.to_markdown()
    assert "## Queries whose top-1 changes" in text and "USER.md:1-2" in text


def test_cli_upgrade_report_and_its_usage_error(dataset, capsys):
    from memlab.cli.main import main

    root = str(dataset.root)
    assert main(["eval", root, "--config", "keyword", "--profile", "2026.7", "--profile",
                 "2026.9", "--no-tune", "--resamples", "100", "--metrics", "mrr@10"]) == 0
    out = capsys.readouterr().out
    assert "## 2026.7 vs 2026.9" in out and "mrr@10 by tag" in out
    assert "retired knobs cost" not in out
    # two 2026.7 configurations cannot be upgraded at once (--profile 2026.9 alone ranks)
    assert main(["eval", root, "--profile", "2026.7", "--profile", "2026.9", "--config",
                 "keyword", "--config", "hybrid"]) == 2


def test_importance_whatif_scales_the_annotated_entry(dataset, tmp_path):
    from dataclasses import replace

    from memlab.tune.importance import annotate_importance, importance_whatif

    config = {"memory": {"search": {"provider": "none"}}}

    def user_md_score(ds):
        hits = run_tiered(ds, config)
        return hits[(hits["qid"] == "q1") & (hits["path"] == "USER.md")]["score"].iloc[0]

    annotate_importance(dataset.workspace, {("USER.md", 1): 10}, tmp_path / "w" / "workspace")
    assert user_md_score(replace(dataset, root=tmp_path / "w")) / user_md_score(dataset) == \
        pytest.approx(0.75 + 0.05 * 10)
    with pytest.raises(ValueError, match="memory/health.md:1"):
        annotate_importance(dataset.workspace, {("memory/health.md", 1): 5}, tmp_path / "x")
    cmp = importance_whatif(dataset, {("USER.md", 1): 1}, config, n_resamples=100)
    assert list(cmp.table.index) == ["as is", "annotated"]


def test_sweep_tiered_runs_each_point_on_the_profile_and_exports(dataset, tmp_path):
    import json5

    from memlab.config import ConfigError, export_config
    from memlab.config.results import overrides_from_results
    from memlab.tune.sweep_tiered import sweep_tiered

    base = {"memory": {"search": {"provider": "none"}}}
    grid = {"query.maxResults": [1, 6], "memlab.whatIf.halfLifeDays": [30, 3650]}
    rows = sweep_tiered(dataset, grid, base, metrics=["recall@10"])
    assert len(rows) == 4 and set(rows["dataset"]) == {dataset.name}
    # each point equals a direct run of the profile with that config
    direct = run_tiered(dataset, {**base, "memory": {"search": {
        "provider": "none", "query": {"maxResults": 1}}}}, production=True)
    assert direct.groupby("qid").size().max() == 1
    from memlab.eval.experiment import evaluate

    expect = evaluate(direct, dataset.qrels, ["recall@10"], dataset.queries).means["recall@10"]
    got = rows[(rows["query.maxResults"] == 1) & (rows["memlab.whatIf.halfLifeDays"] == 30)]
    assert got["recall@10"].iloc[0] == pytest.approx(expect)
    with pytest.raises(ConfigError, match="minScore"):
        sweep_tiered(dataset, {"query.minScore": [2]}, base)
    overrides, _ = overrides_from_results(rows[rows["memlab.whatIf.halfLifeDays"] == 30],
                                          metric="recall@10")
    text = export_config({"provider": "none", **overrides}, "2026.9")
    assert json5.loads(text)["memory"]["search"]["query"]["maxResults"] in (1, 6)
