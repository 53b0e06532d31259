"""Ablation matrix, cross-validated tuning (grid and Optuna), backends and the CLI."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from memlab.tune.ablation import ablation, ablation_configs
from memlab.tune.optimize import kfold, search_space, tune

GRID = {"query.hybrid.vectorWeight": [0.0, 0.5, 1.0], "query.minScore": [0.0, 0.3],
        "query.hybrid.mmr.enabled": [False, True]}


def test_ablation_configs_switch_off_one_stage_each():
    cfgs = ablation_configs({"memorySearch": {"provider": "local"}})
    assert list(cfgs) == ["full", "-decay", "-mmr", "-keyword", "-vector", "-fallback"]
    full = cfgs["full"].memory_search.query.hybrid
    assert full.temporal_decay.enabled and full.mmr.enabled
    assert not cfgs["-decay"].memory_search.query.hybrid.temporal_decay.enabled
    assert not cfgs["-mmr"].memory_search.query.hybrid.mmr.enabled
    assert not cfgs["-keyword"].memory_search.query.hybrid.enabled
    assert cfgs["-vector"].memory_search.resolved_provider() == "none"
    assert not cfgs["-fallback"].memlab.keyword_fallback


def test_ablation_runs_paired_tests(tiny_dataset, bow):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = ablation(tiny_dataset, embedder=bow, metrics=["ndcg@10"], n_resamples=200)
    assert result.baseline == "full"
    assert list(result.table.index) == ["full", "-decay", "-mmr", "-keyword", "-vector",
                                        "-fallback"]
    tests = result.tests
    assert set(tests["system"]) == {"-decay", "-mmr", "-keyword", "-vector", "-fallback"}
    assert tests["p_t"].between(0, 1).all() or tests["p_t"].isna().any()


def test_kfold_is_seeded_and_partitions():
    a, b = kfold(23, 5, seed=3), kfold(23, 5, seed=3)
    tests = np.concatenate([t for _, t in a])
    assert sorted(tests.tolist()) == list(range(23))
    assert all((x[1] == y[1]).all() for x, y in zip(a, b, strict=True))
    with pytest.raises(ValueError, match="at least 2 folds"):
        kfold(10, 1)


def test_search_space_ranges_and_choices():
    space = search_space({"query.hybrid.vectorWeight": [0, 0.5, 1.0], "query.maxResults": [3, 9],
                          "memlab.fusion.method": ["openclaw", "rrf"],
                          "query.hybrid.mmr.enabled": [False, True]})
    assert space["query.hybrid.vectorWeight"] == ("float", (0.0, 1.0))
    assert space["query.maxResults"] == ("int", (3, 9))
    assert space["memlab.fusion.method"][0] == "cat"
    assert space["query.hybrid.mmr.enabled"] == ("cat", [False, True])


def test_grid_cv_reports_out_of_sample_and_gap(engine):
    result = tune(None, GRID, engine=engine, cv=4, seed=1)
    assert result.method == "grid" and len(result.folds) == 4
    assert 0 <= result.out_of_sample <= 1
    assert result.gap == pytest.approx(result.in_sample - result.out_of_sample)
    assert result.in_sample >= result.out_of_sample - 0.2
    assert set(result.overrides) >= set(GRID)
    assert result.config.memory_search.query.min_score == result.overrides["query.minScore"]
    again = tune(None, GRID, engine=engine, cv=4, seed=1)
    assert again.out_of_sample == result.out_of_sample


def test_optuna_tpe_with_cv(engine):
    result = tune(None, GRID, engine=engine, cv=3, n_trials=6, seed=0)
    assert result.method == "optuna" and len(result.folds) == 3
    assert len(result.trials) == 6
    assert 0 <= result.out_of_sample <= 1 and np.isfinite(result.gap)
    w = result.overrides["query.hybrid.vectorWeight"]
    assert 0 <= w <= 1
    assert result.overrides["query.hybrid.textWeight"] == pytest.approx(1 - w)


def test_joblib_and_dask_backends_match_local(small_dataset, bow, engine):
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    from memlab.tune.sweep import SweepEngine

    grid = {"query.hybrid.vectorWeight": [0.2, 0.8], "query.hybrid.mmr.enabled": [False, True]}
    local = engine.run(grid, ["ndcg@10", "mrr@10"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            dask_engine = SweepEngine(small_dataset, embedder=bow, backend=client)
            dask_engine._legs = engine._legs  # same cached legs: only the grid runs on dask
            on_dask = dask_engine.run(grid, ["ndcg@10", "mrr@10"])
    pd.testing.assert_frame_equal(local, on_dask)
    from joblib import parallel_config

    threads = SweepEngine(small_dataset, embedder=bow, n_jobs=2)
    threads._legs = engine._legs
    with parallel_config(backend="threading"):  # no worker start-up in tests
        pd.testing.assert_frame_equal(local, threads.run(grid, ["ndcg@10", "mrr@10"]))


def test_backend_spec_is_checked():
    from memlab.tune.backend import parse_backend

    assert parse_backend(None) == ("local", None)
    assert parse_backend("dask") == ("dask", None)
    assert parse_backend("dask:tcp://h:8786") == ("dask", "tcp://h:8786")
    with pytest.raises(ValueError, match="unknown backend"):
        parse_backend("spark")


# -- the CLI ----------------------------------------------------------------------------------


@pytest.fixture
def fake_model(monkeypatch, bow):
    import memlab.openclaw

    monkeypatch.setattr(memlab.openclaw, "make_embedder", lambda cfg, cache=None: bow)


@pytest.fixture
def small_folder(tmp_path, small_dataset):
    """The 32-query subset written as a dataset folder (the workspace is linked)."""
    import json

    root = tmp_path / "ds"
    root.mkdir()
    (root / "workspace").symlink_to(small_dataset.workspace.resolve())
    with open(root / "queries.jsonl", "w") as f:
        for row in small_dataset.queries.to_dict("records"):
            item = {"id": row["qid"], "text": row["query"], "tags": list(row["tags"])}
            if isinstance(row.get("now"), str):
                item["now"] = row["now"]
            f.write(json.dumps(item) + "\n")
    src = small_dataset.root / "qrels.jsonl"
    keep = set(small_dataset.queries["qid"])
    lines = [ln for ln in src.read_text().splitlines()
             if ln.strip() and json.loads(ln).get("qid", json.loads(ln).get("query_id")) in keep]
    (root / "qrels.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_cli_sweep_writes_results(tmp_path, capsys, fake_model, small_folder):
    from memlab.cli import main

    grid = tmp_path / "grid.json5"
    grid.write_text('{"query.hybrid.vectorWeight": [0, 0.5, 1], '
                    '"query.hybrid.mmr.enabled": [false, true]}  // six points\n')
    out = tmp_path / "results.parquet"
    code = main(["sweep", str(small_folder), "--grid", str(grid), "--out", str(out),
                 "--cv", "3", "--no-progress", "--top", "3"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "6 configurations" in captured.out and "out-of-sample" in captured.out
    table = pd.read_parquet(out)
    assert len(table) == 6 and "ndcg@10" in table.columns
    assert table["ndcg@10"].is_monotonic_decreasing


@pytest.mark.parametrize(("text", "message"), [
    ('{"query.hybrid.bogus": [1]}', "unknown sweep axis.*allowed axes"),
    ('{"query.hybrid.vectorWeight": [0.5, 1.7]}', "config error.*vectorWeight.*1.7"),
    ("{}", "grid is empty"),
])
def test_cli_sweep_bad_grids(tmp_path, capsys, fake_model, small_folder, text, message):
    from memlab.cli import main

    grid = tmp_path / "grid.json5"
    grid.write_text(text)
    code = main(["sweep", str(small_folder), "--grid", str(grid), "--no-progress"])
    assert code == 2
    import re

    assert re.search(message, capsys.readouterr().err, re.S)


BEIR_MINI = __import__("pathlib").Path(__file__).resolve().parents[1] / "data" / "beir-mini"


def test_cli_sweep_on_a_beir_collection(tmp_path, capsys, fake_model):
    """A BEIR folder sweeps like a memory dataset; unpadded qrels ids need --unknown-ids."""
    from memlab.cli import main

    grid = tmp_path / "grid.json5"
    grid.write_text('{provider: ["local", "none"], "query.hybrid.enabled": [true, false], '
                    '"query.maxResults": [5, 10]}')
    code = main(["sweep", str(BEIR_MINI), "--grid", str(grid), "--no-progress"])
    assert code == 2
    assert re_search("unknown document id 'D-11'.*did you mean 'D-0011'",
                     capsys.readouterr().err)
    out = tmp_path / "beir.csv"
    code = main(["sweep", str(BEIR_MINI), "--grid", str(grid), "--no-progress",
                 "--unknown-ids", "keep", "--metrics", "ndcg@10,map@10", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "8 configurations on 9 judged queries of beir-mini" in captured.out
    table = pd.read_csv(out)
    assert set(table["mode"]) == {"hybrid", "vector", "fts-only"}
    assert (table["dataset"] == "beir-mini").all() and table["map@10"].between(0, 1).all()


def test_results_of_another_dataset_are_refused_by_export(tmp_path, capsys, fake_model,
                                                          small_folder):
    from memlab.cli import main

    grid = tmp_path / "grid.json5"
    grid.write_text('{"query.hybrid.vectorWeight": [0.3, 0.7], provider: ["local", "none"]}')
    results = tmp_path / "results.parquet"
    assert main(["sweep", str(small_folder), "--grid", str(grid), "--no-progress",
                 "--out", str(results)]) == 0
    assert set(pd.read_parquet(results)["dataset"]) == {"ds"}
    capsys.readouterr()
    out = tmp_path / "openclaw.json5"
    code = main(["export", str(results), "--dataset", "cacm", "--out", str(out)])
    assert code == 2 and not out.exists()
    assert re_search("results are for dataset ds, not 'cacm'", capsys.readouterr().err)
    # the dataset folder itself names the right dataset
    assert main(["export", str(results), "--dataset", str(small_folder), "--out", str(out),
                 "--allow-lossy"]) == 0
    assert "// dataset: ds" in out.read_text()


def re_search(pattern: str, text: str) -> bool:
    import re

    return re.search(pattern, text, re.S) is not None
