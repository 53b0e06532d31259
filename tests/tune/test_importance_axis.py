"""Importance annotations as sweep and Optuna axes of the 2026.9 profile (issue 14, item 3):
``importance.FILE:LINE`` changes exactly that entry's scores by 0.75 + 0.05*N, a sweep point
equals a full run of the annotated copy, a second importance group embeds nothing, bad keys are
refused naming the key, and ``memlab export --schema 2026.9`` refuses the axis with the line to
write and its measured effect."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from memlab.eval.datasets import load_dataset
from memlab.eval.experiment import evaluate
from memlab.eval.upgrade import run_tiered
from memlab.tune.errors import SweepError
from memlab.tune.importance import annotate_importance, importance_whatif
from memlab.tune.sweep_tiered import TieredRanker, point_config, sweep_tiered, tune_tiered
from tests.tune.conftest import CountingProvider

NOW = "2026-10-01T00:00:00Z"
MEMORY = ("# Notes\n"
          "- Billing deploy window is Tuesday morning\n"
          "- Backup bucket region is eu-west\n")
NOTES = {"MEMORY.md": MEMORY,
         "memory/deploys.md": "Billing deploy window checklist: the billing deploy window "
                              "opens after review.\n",
         "memory/backup.md": "Backup bucket region is eu-central since the move.\n"}
#: q1's answer is the MEMORY.md entry on line 2, which the deploys note outranks as written
QUERIES = [("q1", "billing deploy window", "MEMORY.md", 2),
           ("q2", "backup bucket region", "memory/backup.md", 1)]
KEYWORD = {"memory": {"search": {"provider": "none"}}}
HYBRID = {"memory": {"search": {"provider": "openai-compatible", "model": "hash64",
                                "remote": {"baseUrl": "http://127.0.0.1:9/v1"}}}}
AXIS = "importance.MEMORY.md:2"


def write(root: Path, notes: dict[str, str] = NOTES):
    for rel, text in notes.items():
        (root / "workspace" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "workspace" / rel).write_text(text)
    with open(root / "queries.jsonl", "w") as f:
        for qid, text, _, _ in QUERIES:
            f.write(json.dumps({"id": qid, "text": text, "now": NOW}) + "\n")
    with open(root / "qrels.jsonl", "w") as f:
        for qid, _, path, line in QUERIES:
            f.write(json.dumps({"query_id": qid, "path": path, "start_line": line,
                                "end_line": line, "grade": 1}) + "\n")
    return load_dataset(root)


@pytest.fixture()
def dataset(tmp_path):
    return write(tmp_path / "ds")


def scores(hits: pd.DataFrame) -> dict[tuple, float]:
    return {(q, p, s): sc for q, p, s, sc in
            hits[["qid", "path", "start_line", "score"]].itertuples(index=False)}


@pytest.mark.parametrize("config", [KEYWORD, HYBRID], ids=["keyword", "hybrid"])
def test_an_importance_axis_scales_exactly_that_entrys_hits(dataset, config):
    ranker = TieredRanker(dataset, config, embedder=CountingProvider())
    keep_all = {"query.minScore": 0.0, "query.maxResults": 20}
    plain = scores(ranker.hits({**keep_all, AXIS: None}))
    assert scores(ranker.hits({**keep_all, AXIS: "none"})) == plain  # both: as written
    entry = [k for k in plain if k[1:] == ("MEMORY.md", 2)]
    assert entry  # the entry is a hit of q1 (and maybe q2)
    for value, multiplier in ((1, 0.80), (5, 1.00), (10, 1.25)):
        got = scores(ranker.hits({**keep_all, AXIS: value}))
        assert set(got) == set(plain)
        for key, score in plain.items():
            want = score * multiplier if key in entry else score
            assert got[key] == pytest.approx(want, rel=1e-12), (value, key)


def test_a_sweep_point_equals_a_full_run_of_the_annotated_copy(dataset, tmp_path):
    grid = {AXIS: [None, 1, 10], "importance.MEMORY.md:3": [None, 9],
            "query.maxResults": [1, 10], "query.minScore": [0.0]}
    ranker = TieredRanker(dataset, KEYWORD)
    rows = sweep_tiered(dataset, grid, KEYWORD, metrics=["mrr@10", "ndcg@10"], ranker=ranker)
    assert len(rows) == 12 and str(rows[AXIS].dtype) == "Int64"
    assert ranker.groups == 6  # one per importance pair; the selection axes share them
    for i, row in rows.iterrows():
        entries = {("MEMORY.md", 2): row[AXIS], ("MEMORY.md", 3): row["importance.MEMORY.md:3"]}
        entries = {k: int(v) for k, v in entries.items() if not pd.isna(v)}
        copy = tmp_path / f"copy{i}"
        annotate_importance(dataset.workspace, entries, copy / "workspace")
        for name in ("queries.jsonl", "qrels.jsonl"):
            (copy / name).write_text((dataset.root / name).read_text())
        config = point_config(KEYWORD, {"query.maxResults": int(row["query.maxResults"]),
                                        "query.minScore": 0.0})
        direct = run_tiered(load_dataset(copy), config, production=True)
        point = {k: (None if pd.isna(row[k]) else row[k]) for k in grid}
        pd.testing.assert_frame_equal(ranker.hits(point), direct)
        want = evaluate(direct, dataset.qrels, ["mrr@10"], dataset.queries).means["mrr@10"]
        assert row["mrr@10"] == pytest.approx(want)
    # importance_whatif ranks 10 per query with minScore 0: the maxResults 10 points
    cmp = importance_whatif(dataset, {("MEMORY.md", 2): 10}, KEYWORD, metrics=["mrr@10"],
                            n_resamples=50)
    at = rows[(rows["query.maxResults"] == 10) & rows["importance.MEMORY.md:3"].isna()]
    assert cmp.table.loc["annotated", "mrr@10"] == pytest.approx(
        at[at[AXIS] == 10]["mrr@10"].iloc[0])
    assert cmp.table.loc["as is", "mrr@10"] == pytest.approx(
        at[at[AXIS].isna()]["mrr@10"].iloc[0])
    # importance 10 lifts q1's answer above the deploys note: mrr 0.5 -> 0.75 (q2 unchanged)
    assert at[at[AXIS].isna()]["mrr@10"].iloc[0] == pytest.approx(0.5)
    assert at[at[AXIS] == 10]["mrr@10"].iloc[0] == pytest.approx(0.75)


def test_a_second_importance_group_embeds_nothing(dataset):
    counting = CountingProvider()
    ranker = TieredRanker(dataset, HYBRID, embedder=counting)
    ranker.hits({})
    texts, queries = counting.texts, counting.query_calls
    assert texts > 0 and ranker.groups == 1
    ranker.hits({AXIS: 9})
    ranker.hits({AXIS: 2, "importance.MEMORY.md:3": 7})
    assert ranker.groups == 3
    assert (counting.texts, counting.query_calls) == (texts, queries)  # all from the cache
    stats = ranker.embedding_stats()
    assert stats["texts_embedded"] == texts and stats["cache_hits"] == 2 * texts


def test_bad_importance_axes_are_refused_naming_the_key(dataset):
    ranker = TieredRanker(dataset, KEYWORD)
    cases = {
        "importance.memory/deploys.md:1": "MEMORY.md or USER.md",
        "importance.MEMORY.md:1": "line 1 of MEMORY.md is not an entry ('# Notes')",
        "importance.MEMORY.md:99": "MEMORY.md has 3 lines",
        "importance.USER.md:1": "has no USER.md",
        "importance.MEMORY.md": "importance.FILE:LINE",
        "importance.MEMORY.md:0": "numbered from 1",
    }
    for key, message in cases.items():
        with pytest.raises(SweepError, match="importance axis") as err:
            sweep_tiered(dataset, {key: [5]}, KEYWORD, ranker=ranker)
        assert repr(key) in str(err.value) and message in str(err.value), str(err.value)
    with pytest.raises(SweepError, match="entries on lines 2, 3"):
        sweep_tiered(dataset, {"importance.MEMORY.md:1": [5]}, KEYWORD, ranker=ranker)
    for value in (11, 0, 2.5, "high", True):
        with pytest.raises(SweepError, match=r"integer 1\.\.10, or null"):
            sweep_tiered(dataset, {AXIS: [None, value]}, KEYWORD, ranker=ranker)
    with pytest.raises(SweepError, match="not an entry"):
        tune_tiered(dataset, {"importance.MEMORY.md:1": [1, 10]}, KEYWORD, n_trials=1,
                    ranker=ranker)
    assert ranker.searches == 0  # refused before the first search


def test_optuna_tunes_importance_as_categorical_ints(dataset):
    space = {AXIS: [None, 1, 10], "query.maxResults": [1, 6]}
    grid = sweep_tiered(dataset, space, KEYWORD, metrics=["mrr@10"])
    ranker = TieredRanker(dataset, KEYWORD)
    trials = tune_tiered(dataset, space, KEYWORD, n_trials=12, metric="mrr@10", ranker=ranker)
    assert trials["mrr@10"].iloc[0] == pytest.approx(grid["mrr@10"].max())
    assert set(trials[AXIS].dropna().astype(int)) <= {1, 10}
    assert ranker.groups <= 3 and ranker.searches <= 3 * len(QUERIES)
    seen = []
    tune_tiered(dataset, {AXIS: ["none", 10]}, KEYWORD, n_trials=4, metric="mrr@10",
                ranker=ranker, callback=lambda row: seen.append(row[AXIS]))
    assert len(seen) == 4 and set(seen) <= {None, 10}  # Optuna's choices: None and the int


def run_cli(argv, capsys):
    from memlab.cli.main import main

    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_sweep_and_export_refuse_the_axis_with_the_line_and_its_effect(dataset, tmp_path,
                                                                            capsys):
    base = tmp_path / "base.json5"
    base.write_text('{memory: {search: {provider: "none"}}}')
    rows = tmp_path / "rows.csv"
    code, out, _ = run_cli(["sweep", str(dataset.root), "--profile", "2026.9", "--grid",
                            f"{AXIS}=none,1,10", "--grid", "query.maxResults=3,6", "--base",
                            str(base), "--metric", "mrr@10", "--out", str(rows)], capsys)
    assert code == 0 and "6 configurations on the 2026.9 profile" in out
    assert "<NA>: the file as written" in out
    frame = pd.read_csv(rows)
    best = frame.sort_values("mrr@10", ascending=False, kind="mergesort").iloc[0]
    assert best[AXIS] == 10
    as_written = frame[frame[AXIS].isna() & (frame["query.maxResults"] ==
                                             best["query.maxResults"])]["mrr@10"].iloc[0]
    effect = f"{best['mrr@10'] - as_written:+.4f} mrr@10"
    out_file = tmp_path / "openclaw.json5"
    args = ["export", str(rows), "--schema", "2026.9", "--metric", "mrr@10", "--out",
            str(out_file)]
    code, _, err = run_cli([*args, "--dataset", str(dataset.root)], capsys)
    assert code == 2 and not out_file.exists()
    assert f"{AXIS}: importance 10 on MEMORY.md line 2" in err and effect in err
    assert "    - Billing deploy window is Tuesday morning <!-- importance: 10 -->" in err
    code, _, err = run_cli(args, capsys)  # no workspace at hand: the comment to append
    assert code == 2 and "end line 2 of MEMORY.md with <!-- importance: 10 -->" in err
    code, _, err = run_cli([*args, "--allow-lossy"], capsys)
    assert code == 0 and "not written: importance 10 on MEMORY.md line 2" in err
    text = out_file.read_text()
    assert "importance" not in text.split("{", 1)[1]  # no invented key
    assert "// not written, add to MEMORY.md line 2:" in text and effect in text
    code, _, _ = run_cli([*args, "--best-expressible", "--out", "-"], capsys)
    assert code == 0  # the best row with the file as written


def test_export_effect_is_vs_the_same_point_as_written_or_not_measured(tmp_path, capsys):
    rows = pd.DataFrame({
        AXIS: pd.array([9, None, 9, 9], dtype="Int64"),
        "importance.USER.md:1": pd.array([3, 3, None, 5], dtype="Int64"),
        "store.fts.tokenizer": ["trigram", "trigram", "trigram", "unicode61"],
        "ndcg@10": [0.70, 0.66, 0.61, 0.69], "dataset": "d"})
    from memlab.config.memory_export import importance_choices

    choices, joint = importance_choices(rows, 0, "ndcg@10")
    assert [(c.path, c.line, c.value) for c in choices] == [("MEMORY.md", 2, 9),
                                                            ("USER.md", 1, 3)]
    assert choices[0].effect == pytest.approx(0.70 - 0.66)  # row 1: same but MEMORY.md as is
    assert choices[1].effect == pytest.approx(0.70 - 0.61)  # row 2: same but USER.md as is
    assert joint is None  # no trigram row with both as written
    path = tmp_path / "rows.parquet"
    rows.iloc[[0, 3]].to_parquet(path, index=False)
    code, _, err = run_cli(["export", str(path), "--schema", "2026.9", "--out", "-"], capsys)
    assert code == 2
    assert "importance 9 on MEMORY.md line 2" in err and "importance 3 on USER.md line 1" in err
    assert err.count("effect not measured") == 2 and "together: not measured" in err
