"""Collection runner (macro-averages, abstention apart, transcripts searched), unjudged share
and condensed lists, and the CLI end to end (memlab datasets convert / mine, memlab eval)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from memlab.convert.locomo import convert_locomo
from memlab.convert.longmemeval import convert_longmemeval
from memlab.eval.collection import (
    collection_folders,
    evaluate_collection,
    is_collection,
    split_metrics,
)
from memlab.eval.datasets import load_memory_dataset
from memlab.eval.experiment import evaluate
from memlab.eval.judged import JUDGED_FILE, condense, judged_mask, judged_spans
from memlab.eval.systems import evaluate_systems, resolve_system, run_system

DATA = Path(__file__).resolve().parents[1] / "data"
LOCOMO = DATA / "locomo" / "locomo_mini.json"
LME = DATA / "longmemeval" / "longmemeval_mini.json"
METRICS = ["ndcg@10", "recall_any@5", "recall_all@5", "session_recall_all@5"]


@pytest.fixture(scope="module")
def lme(tmp_path_factory):
    out = tmp_path_factory.mktemp("lme")
    convert_longmemeval(LME, out)
    return out


def test_folders_and_metric_names(lme):
    assert is_collection(lme) and not is_collection(lme / "q-pref-3")
    assert [p.name for p in collection_folders(lme)] == sorted(p.name for p in lme.iterdir())
    assert collection_folders(lme / "q-pref-3") == [lme / "q-pref-3"]
    with pytest.raises(ValueError, match="unknown metric 'bogus@3'"):
        split_metrics(["session_bogus@3"])


def test_macro_average_is_the_mean_of_dataset_means(lme):
    result = evaluate_collection(lme, ["keyword"], METRICS)
    per = result.per_dataset.set_index("dataset")
    # each dataset's figure equals a plain evaluate() of that dataset alone
    _, cfg = resolve_system("keyword")
    for name in ("q-single-1", "q-temporal-2"):
        ds = load_memory_dataset(lme / name)
        _, means = evaluate(run_system(ds, cfg), ds.qrels, ["ndcg@10", "recall_all@5"],
                            ds.queries)
        assert per.at[name, "ndcg@10"] == pytest.approx(means["ndcg@10"])
        assert per.at[name, "recall_all@5"] == pytest.approx(means["recall_all@5"])
    judged = per.loc[per["judged"] > 0]
    for m in METRICS:
        assert result.macro.at["keyword", m] == pytest.approx(judged[m].mean())
    assert int(result.macro.at["keyword", "datasets"]) == 3
    assert int(result.macro.at["keyword", "abstention"]) == 1
    assert np.isnan(per.at["q-single-1_abs", "ndcg@10"])  # reported apart, not averaged
    payload = json.loads(json.dumps(result.to_dict()))
    assert payload["macro"]["keyword"]["abstention"] == 1
    assert result.to_csv("per_dataset").startswith("dataset,system")


def test_transcripts_layout_searches_the_sessions(tmp_path):
    convert_locomo(LOCOMO, tmp_path, layout="transcripts")
    result = evaluate_collection(tmp_path, ["keyword"], ["recall_any@10"])
    hits = result.macro.at["keyword", "recall_any@10"]
    assert hits > 0.5  # found in sessions/main/*.jsonl, so the sessions source was on


def _hits(paths_lines):
    return pd.DataFrame({"qid": ["q"] * len(paths_lines),
                         "path": [p for p, _ in paths_lines],
                         "start_line": [a for _, (a, _) in paths_lines],
                         "end_line": [b for _, (_, b) in paths_lines],
                         "score": np.linspace(1, 0.1, len(paths_lines)),
                         "rank": np.arange(1, len(paths_lines) + 1)})


def test_condensed_lists_keep_judged_hits_only(tmp_path):
    root = Path(convert_longmemeval(LME, tmp_path, limit=1).datasets[0].root)
    ds = load_memory_dataset(root)
    (root / JUDGED_FILE).write_text(json.dumps(
        {"query_id": "q-single-1", "path": "memory/2023-05-20.md", "start_line": 3,
         "end_line": 5, "grade": 0}) + "\n")
    judged = judged_spans(ds)
    assert len(judged) == 2  # the qrel and the assessed (non-relevant) chunk
    hits = _hits([("memory/2023-05-20.md", (4, 4)), ("memory/other.md", (1, 9)),
                  ("memory/2023-05-22.md", (1, 9))]).assign(qid="q-single-1")
    assert judged_mask(hits, judged).tolist() == [True, False, True]
    short = condense(hits, judged)
    assert short["path"].tolist() == ["memory/2023-05-20.md", "memory/2023-05-22.md"]
    assert short["rank"].tolist() == [1, 2]


def test_evaluate_systems_reports_the_unjudged_share(tmp_path):
    root = Path(convert_longmemeval(LME, tmp_path, limit=1).datasets[0].root)
    ds = load_memory_dataset(root)
    plain = evaluate_systems(ds, ["keyword"], ["ndcg@10"], n_resamples=50)
    share = plain.options["unjudged_share"]["keyword"]
    assert 0 <= share <= 1
    assert "unjudged hits: keyword" in plain.to_markdown()
    short = evaluate_systems(ds, ["keyword"], ["ndcg@10"], n_resamples=50, condensed=True)
    assert "condensed lists" in short.to_markdown()
    assert short.table.at["keyword", "ndcg@10"] >= plain.table.at["keyword", "ndcg@10"]
    assert short.to_dict()["condensed"] is True


def test_cli_convert_mine_and_eval(tmp_path, capsys):
    from memlab.cli import main

    out = tmp_path / "locomo"
    assert main(["datasets", "convert", "locomo", str(LOCOMO), str(out)]) == 0
    assert "2 dataset(s), 10 queries (2 abstention)" in capsys.readouterr().out
    assert main(["eval", str(out), "--config", "keyword", "--metrics",
                 "ndcg@10,recall_any@5,recall_all@5,session_recall_any@5"]) == 0
    text = capsys.readouterr().out
    assert "| keyword |" in text and "Macro-average over 2 dataset(s)" in text
    assert main(["eval", str(out / "conv-a"), "--collection", "--config", "keyword",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["macro"]["keyword"]["datasets"] == 1
    # a session-level metric on one dataset goes to the collection runner by itself
    assert main(["eval", str(out / "conv-b"), "--config", "keyword", "--metrics",
                 "session_recall_all@5", "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("system,session_recall_all@5")
    assert main(["eval", str(out), "--config", "keyword", "--metrics", "recall_some@5"]) == 2
    assert "unknown metric 'recall_some@5'" in capsys.readouterr().err
    assert main(["datasets", "convert", "longmemeval", str(LME), str(tmp_path / "lme"),
                 "--layout", "transcripts", "--limit", "2"]) == 0
    assert "2 dataset(s)" in capsys.readouterr().out
    mined = tmp_path / "mined"
    assert main(["datasets", "mine", str(DATA / "mining" / "sessions"),
                 str(DATA / "mining" / "workspace"), str(mined)]) == 0
    assert "3 searches mined: 2 with used results" in capsys.readouterr().out
    assert main(["eval", str(mined), "--config", "keyword", "--metrics", "ndcg@10",
                 "--resamples", "50", "--condensed"]) == 0
    assert "unjudged hits: keyword" in capsys.readouterr().out
    assert main(["datasets", "convert", "locomo", str(tmp_path / "missing.json"),
                 str(out)]) == 2
