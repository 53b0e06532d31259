"""Metrics agree with trec_eval (through pytrec_eval) on document-level judgments."""

import numpy as np
import pandas as pd
import pytest

from memlab.eval import evaluate, metric_value, parse_metric, span_gains

pytrec_eval = pytest.importorskip("pytrec_eval")


def _random_run(seed: int, n_queries: int = 30, n_docs: int = 60):
    rng = np.random.default_rng(seed)
    hits, qrels, run, trec_qrels = [], [], {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        judged = rng.choice(n_docs, size=rng.integers(1, 8), replace=False)
        grades = rng.integers(1, 3, size=len(judged))
        trec_qrels[qid] = {f"d{d}": int(g) for d, g in zip(judged, grades, strict=True)}
        for d, g in zip(judged, grades, strict=True):
            qrels.append((qid, f"d{d}.md", 1, 1, int(g)))
        retrieved = rng.choice(n_docs, size=rng.integers(0, 25), replace=False)
        scores = np.sort(rng.random(len(retrieved)))[::-1]  # distinct, descending
        run[qid] = {f"d{d}": float(s) for d, s in zip(retrieved, scores, strict=True)}
        for rank, (d, s) in enumerate(zip(retrieved, scores, strict=True), start=1):
            hits.append((qid, f"d{d}.md", 1, 1, s, rank))
    hits = pd.DataFrame(hits, columns=["qid", "path", "start_line", "end_line", "score", "rank"])
    qrels = pd.DataFrame(qrels, columns=["qid", "path", "start_line", "end_line", "grade"])
    return hits, qrels, run, trec_qrels


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_trec_eval(seed):
    hits, qrels, run, trec_qrels = _random_run(seed)
    measures = {"ndcg_cut_10", "recall_10", "P_10", "map_cut_10", "recip_rank"}
    ref = pytrec_eval.RelevanceEvaluator(trec_qrels, measures).evaluate(run)
    table, _ = evaluate(hits, qrels, ["ndcg@10", "recall@10", "p@10", "map@10", "mrr@1000"])
    mine = table.set_index("qid")
    for qid, vals in ref.items():
        assert mine.at[qid, "ndcg@10"] == pytest.approx(vals["ndcg_cut_10"], abs=1e-9)
        assert mine.at[qid, "recall@10"] == pytest.approx(vals["recall_10"], abs=1e-9)
        assert mine.at[qid, "p@10"] == pytest.approx(vals["P_10"], abs=1e-9)
        assert mine.at[qid, "map@10"] == pytest.approx(vals["map_cut_10"], abs=1e-9)
        assert mine.at[qid, "mrr@1000"] == pytest.approx(vals["recip_rank"], abs=1e-9)


def test_span_level_hand_computed():
    # spans: a.md 3-3 (grade 2), a.md 10-12 (grade 1), b.md 1-2 (grade 2)
    qrels = pd.DataFrame({"qid": ["q"] * 3, "path": ["a.md", "a.md", "b.md"],
                          "start_line": [3, 10, 1], "end_line": [3, 12, 2], "grade": [2, 1, 2]})
    # ranking: chunk a 1-11 overlaps both a-spans → earns the grade-2 one;
    # chunk a 9-20 earns the grade-1 span; chunk c.md nothing; chunk b 2-5 earns grade 2
    hits = pd.DataFrame({"qid": ["q"] * 4, "path": ["a.md", "a.md", "c.md", "b.md"],
                         "start_line": [1, 9, 1, 2], "end_line": [11, 20, 5, 5],
                         "score": [4.0, 3.0, 2.0, 1.0], "rank": [1, 2, 3, 4]})
    assert span_gains(hits, qrels)["gain"].tolist() == [2, 1, 0, 2]
    table, means = evaluate(hits, qrels, ["ndcg@3", "recall@2", "mrr@10"])
    dcg = 2 + 1 / np.log2(3)
    idcg = 2 + 2 / np.log2(3) + 1 / 2
    assert table.loc[0, "ndcg@3"] == pytest.approx(dcg / idcg)
    assert table.loc[0, "recall@2"] == pytest.approx(2 / 3)
    assert means["mrr@10"] == 1.0


def test_unjudged_queries_are_reported_apart():
    qrels = pd.DataFrame({"qid": ["q1"], "path": ["a.md"], "start_line": [1], "end_line": [1],
                          "grade": [1]})
    hits = pd.DataFrame({"qid": ["q2"], "path": ["a.md"], "start_line": [1], "end_line": [1],
                         "score": [0.7], "rank": [1]})
    queries = pd.DataFrame({"qid": ["q1", "q2"], "query": ["x", "y"]})
    table, means = evaluate(hits, qrels, ["ndcg@10"], queries)
    assert table.set_index("qid").loc["q2", "judged"] == False  # noqa: E712
    assert table.set_index("qid").loc["q2", "top_score"] == 0.7
    assert means["ndcg@10"] == 0.0  # q1 judged but nothing retrieved; q2 not averaged


def test_metric_spec_errors():
    assert parse_metric("NDCG@5") == ("ndcg", 5)
    with pytest.raises(ValueError, match="unknown metric"):
        parse_metric("ndcg")
    with pytest.raises(ValueError, match="without relevant"):
        metric_value("ndcg@3", np.array([1]), np.array([]))
