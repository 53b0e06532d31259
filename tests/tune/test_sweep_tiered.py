"""The 2026.9 profile on datasets: rank/select split, grouped sweeps, Optuna, evaluate_tiered,
and the CLI's --profile/--projects (issue 14, the 2026.9.6 line)."""

from __future__ import annotations

import json

import pytest

from memlab.embed.hashing import HashingProvider
from memlab.eval.upgrade import evaluate_tiered, run_tiered, upgraded_config
from memlab.tiered.search import TieredSearch
from memlab.tune.sweep_tiered import TieredRanker, sweep_tiered, tune_tiered
from tests.upgrade_dataset import NOW, QUERIES, write_dataset


@pytest.fixture()
def dataset(tmp_path):
    return write_dataset(tmp_path, {"MEMORY.md": (
        "- Deploy window moved to Tuesday <!-- project: acme/ops -->\n"
        "- Backup bucket region is eu-west <!-- project: acme/infra -->\n")})


HYBRID = {"memory": {"search": {"provider": "openai-compatible", "model": "hash64",
                                "remote": {"baseUrl": "http://127.0.0.1:9/v1"}}}}


@pytest.mark.parametrize("config", [{"memory": {"search": {"provider": "none"}}}, HYBRID])
def test_rank_then_select_is_search(dataset, config):
    s = TieredSearch(dataset.workspace, config, embedder=HashingProvider())
    try:
        for _, text, _ in QUERIES:
            ranked = s.rank(text, NOW)
            for max_results, min_score in ((1, None), (3, 0.0), (10, 0.3), (None, -1.0)):
                assert s.select(ranked, max_results, min_score) == s.search(
                    text, max_results, min_score, NOW)
    finally:
        s.close()


def test_grouped_sweep_searches_once_per_leg_group_and_equals_direct_runs(dataset):
    base = {"memory": {"search": {"provider": "none"}}}
    grid = {"query.maxResults": [1, 6], "query.minScore": [0.0, 0.5],
            "store.fts.tokenizer": ["unicode61", "trigram"]}
    ranker = TieredRanker(dataset, base)
    rows = sweep_tiered(dataset, grid, base, metrics=["recall@10", "mrr@10"], ranker=ranker)
    assert len(rows) == 8
    assert ranker.searches == 2 * len(QUERIES)  # two tokenizer groups, one rank per query
    assert ranker.selections == 8 * len(QUERIES)
    from memlab.eval.experiment import evaluate
    from memlab.tune.sweep_tiered import point_config

    for row in rows.itertuples(index=False):
        point = dict(zip(grid, row[:3], strict=True))
        direct = run_tiered(dataset, point_config(base, point), production=True)
        want = evaluate(direct, dataset.qrels, ["recall@10"], dataset.queries).means
        assert row[3] == pytest.approx(want["recall@10"])
    # a minScore of 0.5 keeps fewer hits than 0: the selection axis acts
    hits_lo = ranker.hits({"query.minScore": 0.0, "query.maxResults": 6})
    hits_hi = ranker.hits({"query.minScore": 0.5, "query.maxResults": 6})
    assert len(hits_hi) < len(hits_lo)


def test_tune_tiered_finds_the_grid_best_with_cached_legs(dataset):
    base = {"memory": {"search": {"provider": "none"}}}
    space = {"query.maxResults": [1, 2, 6], "memlab.whatIf.halfLifeDays": [30, 3650]}
    grid = sweep_tiered(dataset, space, base, metrics=["mrr@10"])
    ranker = TieredRanker(dataset, base)
    trials = tune_tiered(dataset, space, base, n_trials=12, metric="mrr@10", ranker=ranker)
    assert len(trials) == 12 and list(trials["mrr@10"]) == sorted(trials["mrr@10"],
                                                                    reverse=True)
    assert trials["mrr@10"].iloc[0] == pytest.approx(grid["mrr@10"].max())
    assert ranker.searches <= 2 * len(QUERIES)  # at most one rank per query and half-life
    with pytest.raises(Exception, match="minScore"):
        tune_tiered(dataset, {"query.minScore": [2]}, base, n_trials=1)


def test_active_projects_scale_project_entries(dataset):
    config = {"memory": {"search": {"provider": "none"}}}
    plain = run_tiered(dataset, config)
    ops = run_tiered(dataset, config, active_projects=["acme/ops"])

    def score(hits, qid, path, line):
        h = hits[(hits["qid"] == qid) & (hits["path"] == path) & (hits["start_line"] == line)]
        return float(h["score"].iloc[0])

    assert score(ops, "q2", "MEMORY.md", 1) / score(plain, "q2", "MEMORY.md", 1) == \
        pytest.approx(1.15)
    assert score(ops, "q4", "MEMORY.md", 2) / score(plain, "q4", "MEMORY.md", 2) == \
        pytest.approx(0.9)


def test_config_2026_9_and_evaluate(dataset, tmp_path):
    path = tmp_path / "mine.json5"
    path.write_text('{memory: {search: {provider: "none", query: {maxResults: 2}}}}')
    assert upgraded_config(str(path)) == ("mine", {"memory": {"search": {
        "provider": "none", "query": {"maxResults": 2}}}})
    assert upgraded_config("keyword")[1]["memory"] == {"search": {"provider": "none"}}
    cmp = evaluate_tiered(dataset, ["keyword", str(path)], ["recall@10"], n_resamples=50,
                          production=True)
    assert list(cmp.table.index) == ["keyword", "mine"]
    direct = run_tiered(dataset, upgraded_config(str(path))[1], production=True)
    from memlab.eval.experiment import evaluate

    want = evaluate(direct, dataset.qrels, ["recall@10"], dataset.queries).means["recall@10"]
    assert cmp.table.loc["mine", "recall@10"] == pytest.approx(want)


def _run_cli(argv, capsys):
    from memlab.cli.main import main

    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_eval_profile_2026_9_and_projects_errors(dataset, capsys):
    code, out, _ = _run_cli(["eval", str(dataset.root), "--profile", "2026.9", "--config",
                             "keyword", "--metrics", "recall@10", "--resamples", "50",
                             "--projects", "acme/ops"], capsys)
    assert code == 0 and "keyword" in out
    code, _, err = _run_cli(["eval", str(dataset.root), "--projects", "acme/ops",
                             "--config", "keyword"], capsys)
    assert code == 2 and "--projects needs --profile 2026.9" in err


def test_cli_search_projects(dataset, tmp_path, capsys):
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"memory": {"search": {"provider": "none"}}}))
    args = ["search", str(dataset.workspace), "deploy window tuesday", "--config", str(cfg),
            "--json", "--now", NOW, "--index", str(tmp_path / "i.sqlite")]
    code, plain, _ = _run_cli(args, capsys)
    assert code == 0
    code, ops, _ = _run_cli([*args, "--projects", "acme/ops"], capsys)
    assert code == 0

    def memory_score(text):
        return next(r["score"] for r in json.loads(text)["results"]
                    if r["path"] == "MEMORY.md")

    assert memory_score(ops) / memory_score(plain) == pytest.approx(1.15)
    code, _, err = _run_cli([*args, "--projects", "acme/ops", "--profile", "2026.7"], capsys)
    assert code == 2 and "--projects needs the 2026.9 profile" in err


def test_cli_sweep_profile_2026_9_and_refusals(dataset, tmp_path, capsys):
    grid = tmp_path / "grid.json5"
    grid.write_text('{"query.maxResults": [1, 6], "query.minScore": [0, 0.5]}')
    base = tmp_path / "base.json5"
    base.write_text('{memory: {search: {provider: "none"}}}')
    out = tmp_path / "rows.csv"
    code, text, _ = _run_cli(["sweep", str(dataset.root), "--grid", str(grid), "--base",
                              str(base), "--profile", "2026.9", "--metric", "recall@10",
                              "--out", str(out)], capsys)
    assert code == 0 and "4 configurations on the 2026.9 profile" in text
    assert f"({len(QUERIES)} searches, {4 * len(QUERIES)} selections)" in text
    import pandas as pd

    assert len(pd.read_csv(out)) == 4
    code, _, err = _run_cli(["sweep", str(dataset.root), "--grid", str(grid), "--base",
                             str(base), "--profile", "2026.9", "--cv", "2"], capsys)
    assert code == 2 and "no --cv" in err
    code, _, err = _run_cli(["calibrate", str(dataset.root), "--target-precision", "0.5",
                             "--profile", "2026.9"], capsys)
    assert code == 2 and "calibrate --profile 2026.9 is not supported" in err
    code, _, err = _run_cli(["bench-providers", str(dataset.root), "--provider", "none",
                             "--profile", "2026.9"],
                            capsys)
    assert code == 2 and "bench-providers --profile 2026.9 is not supported" in err


def test_model_axis_stands_for_its_provider_keys(dataset):
    """``--model`` / an ``embedding`` grid axis on the 2026.9 profile sets the provider keys
    (2026.9 has no ``memory.search.embedding`` key, and refused the axis before)."""
    from memlab.tune.sweep_tiered import point_config

    base = {"memory": {"search": {"provider": "local"}}}
    spec = "openai-compatible:http://127.0.0.1:9/v1#hash64"
    assert point_config(base, {"embedding": spec}) == point_config(base, {
        "provider": "openai-compatible", "remote.baseUrl": "http://127.0.0.1:9/v1",
        "model": "hash64"})
    grid = {"query.maxResults": [1, 6]}
    by_axis = sweep_tiered(dataset, {"embedding": ["none"], **grid}, base,
                           metrics=["recall@10"])
    by_key = sweep_tiered(dataset, {"provider": ["none"], **grid}, base, metrics=["recall@10"])
    assert by_axis["recall@10"].tolist() == by_key["recall@10"].tolist()
    assert by_axis["embedding"].tolist() == ["none", "none"]
