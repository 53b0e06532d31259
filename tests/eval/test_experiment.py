"""evaluate / compare / abstention on hand-computed memory-style examples."""

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from memlab.eval.experiment import Comparison, Evaluation, abstention, compare, evaluate
from memlab.eval.stats import holm

HIT_COLS = ["qid", "path", "start_line", "end_line", "score", "rank"]
METRICS = ["mrr@10", "recall@2"]


def _hits(rows):
    frame = pd.DataFrame(rows, columns=["qid", "path", "start_line", "end_line", "score"])
    frame["rank"] = frame.groupby("qid").cumcount() + 1
    return frame[HIT_COLS]


@pytest.fixture
def memory():
    """Three judged queries and one without an answer, tagged like the memory dataset."""
    queries = pd.DataFrame({
        "qid": ["q1", "q2", "q3", "q4"],
        "query": ["ECONNRESET", "where do we deploy", "who owns billing", "my cat's name"],
        "tags": [["exact"], ["paraphrase", "temporal"], ["paraphrase"], ["none"]],
    })
    qrels = pd.DataFrame(
        [("q1", "a.md", 1, 2, 2), ("q2", "b.md", 5, 5, 2), ("q2", "b.md", 9, 9, 1),
         ("q3", "c.md", 3, 3, 1)],
        columns=["qid", "path", "start_line", "end_line", "grade"])
    keyword = _hits([
        ("q1", "a.md", 1, 4, 0.9), ("q1", "x.md", 1, 9, 0.5),          # mrr 1, recall@2 1
        ("q2", "x.md", 1, 9, 0.8), ("q2", "b.md", 1, 6, 0.6),          # mrr 1/2, recall 1/2
        ("q2", "y.md", 1, 9, 0.2),
        ("q3", "x.md", 1, 9, 0.7), ("q3", "y.md", 1, 9, 0.6),          # mrr 1/3, recall 0
        ("q3", "c.md", 1, 5, 0.5),
        ("q4", "x.md", 1, 9, 0.3),                                     # unjudged
    ])
    vector = _hits([
        ("q1", "x.md", 1, 9, 0.7), ("q1", "a.md", 2, 2, 0.6),          # mrr 1/2, recall 1
        ("q2", "b.md", 8, 10, 0.9), ("q2", "b.md", 4, 6, 0.8),         # mrr 1, recall 1
        ("q3", "c.md", 3, 3, 0.95),                                    # mrr 1, recall 1
    ])                                                                 # q4: no hits
    return queries, qrels, {"keyword": keyword, "vector": vector}


def test_evaluate_per_query_means_and_unjudged(memory):
    queries, qrels, runs = memory
    result = evaluate(runs["keyword"], qrels, METRICS, queries)
    assert isinstance(result, Evaluation)
    per_query, means = result  # unpacks as before
    assert per_query["qid"].tolist() == ["q1", "q2", "q3", "q4"]
    assert per_query["judged"].tolist() == [True, True, True, False]
    assert per_query["top_score"].tolist() == [0.9, 0.8, 0.7, 0.3]
    assert per_query["mrr@10"].tolist()[:3] == pytest.approx([1, 1 / 2, 1 / 3])
    assert per_query["recall@2"].tolist()[:3] == pytest.approx([1, 1 / 2, 0])
    assert per_query[METRICS].iloc[3].isna().all()  # never scored 0 or 1
    assert means.to_dict() == pytest.approx({"mrr@10": (1 + 1 / 2 + 1 / 3) / 3,
                                             "recall@2": 0.5})
    assert per_query["tags"].tolist() == queries["tags"].tolist()
    assert result.unjudged["qid"].tolist() == ["q4"]
    assert result.by_tag is None
    assert "3 judged" in repr(result)


def test_evaluate_without_queries_lists_hit_only_queries_as_unjudged(memory):
    _, qrels, runs = memory
    per_query, means = evaluate(runs["keyword"], qrels, METRICS)
    assert per_query["qid"].tolist() == ["q1", "q2", "q3", "q4"]
    assert per_query["judged"].tolist() == [True, True, True, False]
    assert "tags" not in per_query
    assert means["recall@2"] == pytest.approx(0.5)


def test_evaluate_by_tag(memory):
    queries, qrels, runs = memory
    by_tag = evaluate(runs["keyword"], qrels, METRICS, queries, by_tag=True).by_tag
    assert by_tag["tag"].tolist() == ["exact", "none", "paraphrase", "temporal"]
    assert by_tag["queries"].tolist() == [1, 1, 2, 1]
    assert by_tag["judged"].tolist() == [1, 0, 2, 1]
    t = by_tag.set_index("tag")
    assert t.at["exact", "mrr@10"] == 1.0
    assert t.at["paraphrase", "mrr@10"] == pytest.approx((1 / 2 + 1 / 3) / 2)
    assert t.at["paraphrase", "recall@2"] == pytest.approx(0.25)
    assert t.at["temporal", "recall@2"] == pytest.approx(0.5)
    assert np.isnan(t.at["none", "mrr@10"])


def test_evaluate_errors(memory):
    queries, qrels, runs = memory
    with pytest.raises(ValueError, match="level"):
        evaluate(runs["keyword"], qrels, METRICS, level="chunk")
    with pytest.raises(ValueError, match="tags"):
        evaluate(runs["keyword"], qrels, METRICS, queries.drop(columns="tags"), by_tag=True)
    with pytest.raises(ValueError, match="unknown metric"):
        evaluate(runs["keyword"], qrels, ["ndcg"])


def test_evaluate_empty_hits(memory):
    queries, qrels, _ = memory
    per_query, means = evaluate(pd.DataFrame(columns=HIT_COLS), qrels, METRICS, queries)
    assert means.tolist() == [0.0, 0.0]
    assert per_query["top_score"].isna().all()


def test_doc_level_agrees_with_trec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(0)
    hits, qrels, run, trec_qrels = [], [], {}, {}
    for q in range(25):
        qid = f"q{q}"
        judged = rng.choice(40, size=rng.integers(1, 8), replace=False)
        grades = rng.integers(0, 3, size=len(judged))  # grade 0 = judged non-relevant
        if q == 0:
            grades[:] = 0  # no relevant document: reported apart
        trec_qrels[qid] = {f"d{d}": int(g) for d, g in zip(judged, grades, strict=True)}
        qrels += [(qid, f"d{d}", int(g)) for d, g in zip(judged, grades, strict=True)]
        chunks = []  # several chunks per document; the document ranks by its best one
        for d in rng.choice(40, size=rng.integers(0, 20), replace=False):
            for c in range(rng.integers(1, 4)):
                chunks.append((f"d{d}.md", 10 * c + 1, 10 * c + 9, float(rng.random())))
        chunks.sort(key=lambda c: -c[3])
        run[qid] = {}
        for rank, (path, s, e, score) in enumerate(chunks, start=1):
            hits.append((qid, path, s, e, score, rank))
            run[qid].setdefault(path[:-3], score)
    hits = pd.DataFrame(hits, columns=HIT_COLS)
    qrels = pd.DataFrame(qrels, columns=["qid", "doc_id", "grade"])
    metrics = ["ndcg@10", "recall@10", "map@100", "p@5", "mrr@100"]
    table, means = evaluate(hits, qrels, metrics, level="doc")
    ref = pytrec_eval.RelevanceEvaluator(
        trec_qrels, {"ndcg_cut_10", "recall_10", "map_cut_100", "P_5", "recip_rank"}
    ).evaluate(run)
    mine = table.set_index("qid")
    relevant = {q for q, docs in trec_qrels.items() if any(g > 0 for g in docs.values())}
    assert "q0" not in relevant and 15 < len(relevant) < 25
    assert set(mine.index[mine["judged"]]) == relevant  # the rest are reported apart
    for qid, vals in ref.items():
        if qid not in relevant:
            continue
        assert mine.at[qid, "ndcg@10"] == pytest.approx(vals["ndcg_cut_10"], abs=1e-9)
        assert mine.at[qid, "recall@10"] == pytest.approx(vals["recall_10"], abs=1e-9)
        assert mine.at[qid, "map@100"] == pytest.approx(vals["map_cut_100"], abs=1e-9)
        assert mine.at[qid, "p@5"] == pytest.approx(vals["P_5"], abs=1e-9)
        assert mine.at[qid, "mrr@100"] == pytest.approx(vals["recip_rank"], abs=1e-9)
    assert means["ndcg@10"] == pytest.approx(
        np.mean([v["ndcg_cut_10"] for q, v in ref.items() if q in relevant]), abs=1e-12)


def test_abstention_hand_made():
    per_query = pd.DataFrame({
        "qid": list("abcdef"),
        "judged": [True, True, True, False, False, False],
        "top_score": [0.9, 0.8, 0.4, 0.5, 0.3, np.nan],  # f returned nothing
    })
    view = abstention(per_query)
    assert view.index.tolist() == ["answerable", "unanswerable"]
    assert view.loc["answerable", "queries"] == 3
    assert view.loc["unanswerable", "with_hits"] == 2
    assert view.loc["answerable", "median"] == pytest.approx(0.8)
    assert view.loc["answerable", "mean"] == pytest.approx(0.7)
    assert view.loc["unanswerable", ["min", "median", "max"]].tolist() == pytest.approx(
        [0.3, 0.4, 0.5])
    # 9 (answerable, unanswerable) pairs; only 0.4 < 0.5 is ordered wrongly; f counts lowest
    assert view["auc"].tolist() == pytest.approx([8 / 9, 8 / 9])


def test_abstention_one_group_only():
    view = abstention(pd.DataFrame({"qid": ["a"], "judged": [True], "top_score": [0.5]}))
    assert np.isnan(view["auc"]).all()
    assert view.loc["unanswerable", "queries"] == 0


def test_compare_hand_computed(memory):
    queries, qrels, runs = memory
    cmp = compare(runs, qrels, METRICS, queries, n_resamples=2000)
    assert isinstance(cmp, Comparison)
    assert cmp.baseline == "keyword" and cmp.systems == ["keyword", "vector"]
    t = cmp.table
    assert t.loc["vector", "mrr@10"] == pytest.approx(2.5 / 3)
    assert t.loc["vector", "recall@2"] == pytest.approx(1.0)
    assert t.loc["vector", "queries"] == 3
    # per-query differences: mrr -1/2, +1/2, +2/3; recall 0, +1/2, +1
    assert t.loc["vector", "mrr@10 delta"] == pytest.approx((-1 / 2 + 1 / 2 + 2 / 3) / 3)
    assert t.loc["vector", ["mrr@10 wins", "mrr@10 losses", "mrr@10 ties"]].tolist() == [2, 1, 0]
    assert t.loc["vector", ["recall@2 wins", "recall@2 losses", "recall@2 ties"]].tolist() == [
        2, 0, 1]
    assert t.loc["keyword", ["mrr@10 delta", "mrr@10 p_rand"]].isna().all()
    raw_t = [scipy.stats.ttest_rel([0.5, 1, 1], [1, 0.5, 1 / 3]).pvalue,
             scipy.stats.ttest_rel([1, 1, 1], [1, 0.5, 0]).pvalue]
    assert t.loc["vector", ["mrr@10 p_t_raw", "recall@2 p_t_raw"]].tolist() == pytest.approx(raw_t)
    assert t.loc["vector", ["mrr@10 p_t", "recall@2 p_t"]].tolist() == pytest.approx(holm(raw_t))
    w = scipy.stats.wilcoxon([-0.5, 0.5, 2 / 3]).pvalue
    assert t.loc["vector", "mrr@10 p_wilcoxon_raw"] == pytest.approx(w)
    lo, hi = t.loc["vector", ["mrr@10 ci_low", "mrr@10 ci_high"]]
    assert -0.5 <= lo <= t.loc["vector", "mrr@10 delta"] <= hi <= 2 / 3
    # long per-query frame: 2 systems x 3 judged queries x 2 metrics
    pq = cmp.per_query
    assert len(pq) == 12 and list(pq.columns) == ["system", "qid", "metric", "value"]
    assert pq.query("system == 'vector' and qid == 'q1' and metric == 'mrr@10'")[
        "value"].item() == 0.5
    assert "q4" not in set(pq["qid"])
    tests = cmp.tests.set_index(["system", "metric"])
    assert tests.loc[("vector", "mrr@10"), "baseline_mean"] == pytest.approx(11 / 18)


def test_compare_baseline_and_holm_family(memory):
    queries, qrels, runs = memory
    runs = {**runs, "empty": pd.DataFrame(columns=HIT_COLS)}
    cmp = compare(runs, qrels, METRICS, queries, baseline="vector", n_resamples=1000)
    assert cmp.systems == ["vector", "keyword", "empty"]
    assert len(cmp.tests) == 4  # 2 systems x 2 metrics, one Holm family per test
    for test in ("t", "wilcoxon", "rand"):
        assert cmp.tests[f"p_{test}"].to_numpy() == pytest.approx(
            holm(cmp.tests[f"p_{test}_raw"].to_numpy()), nan_ok=True)
    assert cmp.table.loc["empty", "mrr@10 delta"] == pytest.approx(-2.5 / 3)
    assert cmp.table.loc["empty", "mrr@10 losses"] == 3
    with pytest.raises(ValueError, match="baseline"):
        compare(runs, qrels, METRICS, baseline="bm25")


def test_compare_by_tag(memory):
    queries, qrels, runs = memory
    cmp = compare(runs, qrels, METRICS, queries, by_tag=True, n_resamples=500)
    bt = cmp.by_tag.set_index(["system", "tag"])
    assert bt.loc[("vector", "exact"), "mrr@10"] == 0.5
    assert bt.loc[("vector", "paraphrase"), "mrr@10"] == 1.0
    assert bt.loc[("keyword", "paraphrase"), "recall@2"] == pytest.approx(0.25)
    assert bt.loc[("keyword", "none"), ["queries", "judged"]].tolist() == [1, 0]
    assert np.isnan(bt.loc[("vector", "none"), "recall@2"])
    assert compare(runs, qrels, METRICS, queries, n_resamples=10).by_tag is None


def test_compare_abstention_view(memory):
    queries, qrels, runs = memory
    view = compare(runs, qrels, METRICS, queries, n_resamples=10).abstention
    assert view["system"].tolist() == ["keyword", "keyword", "vector", "vector"]
    assert view["auc"].tolist() == [1.0, 1.0, 1.0, 1.0]  # q4 scores lowest / has no hits
    assert view.loc[3, "with_hits"] == 0


def test_compare_single_run_and_compat(memory):
    queries, qrels, runs = memory
    cmp = compare({"keyword": runs["keyword"]}, qrels, METRICS, queries)
    assert cmp.tests.empty
    assert cmp.table[[*METRICS, "queries"]].shape == (1, 3)
    assert "keyword" in cmp.to_string()
    with pytest.raises(ValueError, match="at least one"):
        compare({}, qrels, METRICS)


def test_compare_is_seeded(memory):
    queries, qrels, runs = memory
    a = compare(runs, qrels, METRICS, queries, n_resamples=500, seed=3).table
    b = compare(runs, qrels, METRICS, queries, n_resamples=500, seed=3).table
    pd.testing.assert_frame_equal(a, b)
