"""Document-level relevance: a document ranks by its best chunk, gain = its grade."""

import numpy as np
import pandas as pd
import pytest

from memlab.eval import doc_gains, doc_hits, doc_ideal, metric_value, path_to_doc_id
from memlab.eval.relevance import doc_path

pytrec_eval = pytest.importorskip("pytrec_eval")


def _hits(rows):
    """rows: (qid, path, score, rank) → a chunk hits frame with line spans."""
    frame = pd.DataFrame(rows, columns=["qid", "path", "score", "rank"])
    frame["start_line"] = 1
    frame["end_line"] = 1
    return frame


def test_path_and_doc_id_round_trip():
    assert path_to_doc_id(doc_path("CACM-0001")) == "CACM-0001"
    assert path_to_doc_id("a/b.md") == "a/b"
    assert path_to_doc_id("x.txt") == "x.txt"  # only ".md" is stripped
    assert path_to_doc_id("x.md.md") == "x.md"  # only once


def test_best_chunk_wins_later_chunks_dropped_ranks_renumbered():
    hits = _hits([("q", "b.md", 9.0, 1), ("q", "a.md", 8.0, 2), ("q", "b.md", 7.0, 3),
                  ("q", "a.md", 6.0, 4), ("q", "c.md", 5.0, 5)])
    qrels = pd.DataFrame({"qid": ["q", "q"], "doc_id": ["a", "c"], "grade": [2, 1]})
    out = doc_gains(hits, qrels)
    assert out["doc_id"].tolist() == ["b", "a", "c"]
    assert out["rank"].tolist() == [1, 2, 3]
    assert out["score"].tolist() == [9.0, 8.0, 5.0]  # each document's best chunk score
    assert out["gain"].tolist() == [0, 2, 1]  # b unjudged → 0
    assert out["gain"].dtype == np.int64


def test_input_order_and_query_separation():
    # unsorted input; the same document in two queries is kept in both
    hits = _hits([("q2", "a.md", 1.0, 2), ("q1", "a.md", 3.0, 1), ("q2", "b.md", 2.0, 1),
                  ("q1", "a.md", 2.0, 2)])
    qrels = pd.DataFrame({"qid": ["q1", "q2"], "doc_id": ["a", "a"], "grade": [1, 3]})
    out = doc_gains(hits, qrels)
    assert out[["qid", "doc_id", "rank", "gain"]].values.tolist() == [
        ["q1", "a", 1, 1], ["q2", "b", 1, 0], ["q2", "a", 2, 3]]


def test_non_positive_grades_earn_nothing():
    hits = _hits([("q", "a.md", 2.0, 1), ("q", "b.md", 1.0, 2)])
    qrels = pd.DataFrame({"qid": ["q", "q"], "doc_id": ["a", "b"], "grade": [0, -1]})
    assert doc_gains(hits, qrels)["gain"].tolist() == [0, 0]


def test_doc_id_column_is_used_as_is():
    hits = _hits([("q", "x.md", 2.0, 1), ("q", "y.md", 1.0, 2)])
    hits["doc_id"] = ["d1", "d1"]  # e.g. a run read back from a document-level TREC file
    qrels = pd.DataFrame({"qid": ["q"], "doc_id": ["d1"], "grade": [1]})
    out = doc_gains(hits, qrels)
    assert out["doc_id"].tolist() == ["d1"] and out["gain"].tolist() == [1]


def test_empty_hits():
    hits = _hits([])
    out = doc_gains(hits, pd.DataFrame({"qid": ["q"], "doc_id": ["a"], "grade": [1]}))
    assert out.empty and "gain" in out.columns and "doc_id" in out.columns
    assert doc_hits(hits).empty


def test_span_qrels_are_refused():
    spans = pd.DataFrame({"qid": ["q"], "path": ["a.md"], "start_line": [1], "end_line": [1],
                          "grade": [1]})
    with pytest.raises(ValueError, match="span_gains"):
        doc_gains(_hits([("q", "a.md", 1.0, 1)]), spans)


def test_doc_ideal_keeps_positive_grades_and_judged_queries_only():
    qrels = pd.DataFrame({"qid": ["a", "a", "a", "b", "c"],
                          "doc_id": ["x", "y", "z", "x", "x"], "grade": [1, 3, 0, 0, -1]})
    ideal = doc_ideal(qrels)
    assert list(ideal) == ["a"]
    assert ideal["a"].tolist() == [3, 1]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_chunk_runs_scored_at_doc_level_agree_with_trec_eval(seed):
    """Several chunks per document, graded and non-relevant judgments: memlab's doc-level
    metrics equal trec_eval's on the document ranking trec_eval would see."""
    rng = np.random.default_rng(seed)
    hits, qrels_rows, run, trec_qrels = [], [], {}, {}
    for q in range(25):
        qid = f"q{q}"
        judged = rng.choice(40, size=rng.integers(1, 10), replace=False)
        grades = rng.integers(-1, 4, size=len(judged))
        grades[0] = max(grades[0], 1)  # at least one relevant document
        trec_qrels[qid] = {f"d{d}": int(g) for d, g in zip(judged, grades, strict=True)}
        qrels_rows += [(qid, f"d{d}", int(g)) for d, g in zip(judged, grades, strict=True)]
        docs = rng.integers(0, 40, size=rng.integers(0, 60))  # repeats = later chunks
        scores = np.sort(rng.random(len(docs)))[::-1]
        run[qid] = {}
        for rank, (d, s) in enumerate(zip(docs, scores, strict=True), start=1):
            hits.append((qid, f"d{d}.md", float(s), rank))
            run[qid].setdefault(f"d{d}", float(s))  # best chunk's score
    qrels = pd.DataFrame(qrels_rows, columns=["qid", "doc_id", "grade"])
    gains = doc_gains(_hits(hits), qrels)
    ideal = doc_ideal(qrels)
    by_q = {q: g["gain"].to_numpy() for q, g in gains.groupby("qid")}
    measures = {"ndcg_cut_10", "recall_20", "P_5", "map_cut_20", "recip_rank", "ndcg"}
    ref = pytrec_eval.RelevanceEvaluator(trec_qrels, measures).evaluate(run)
    for qid, vals in ref.items():
        g = by_q.get(qid, np.zeros(0, dtype=np.int64))
        assert metric_value("ndcg@10", g, ideal[qid]) == pytest.approx(vals["ndcg_cut_10"],
                                                                       abs=1e-9)
        assert metric_value("ndcg@1000", g, ideal[qid]) == pytest.approx(vals["ndcg"], abs=1e-9)
        assert metric_value("recall@20", g, ideal[qid]) == pytest.approx(vals["recall_20"],
                                                                         abs=1e-9)
        assert metric_value("p@5", g, ideal[qid]) == pytest.approx(vals["P_5"], abs=1e-9)
        assert metric_value("map@20", g, ideal[qid]) == pytest.approx(vals["map_cut_20"],
                                                                      abs=1e-9)
        assert metric_value("mrr@1000", g, ideal[qid]) == pytest.approx(vals["recip_rank"],
                                                                        abs=1e-9)
