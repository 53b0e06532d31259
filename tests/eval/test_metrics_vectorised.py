"""The vectorised ``evaluate`` / ``metric_arrays`` equal the per-query reference (the
implementation they replaced, kept here: the pandas gains of :mod:`memlab.eval.relevance` and
:func:`_per_query_metric`, the metrics spelled one query at a time) on random runs with every
awkward case: chunk hits of the same document, unsorted hits, equal ranks, duplicate and
negative judgments, queries judged only non-relevant, integer qids, queries without hits or
judgments, empty inputs."""

import numpy as np
import pandas as pd
import pytest

from memlab.eval import evaluate, metric_value
from memlab.eval.metrics import metric_arrays, parse_metric
from memlab.eval.relevance import doc_gains, doc_ideal, ideal_gains, span_gains

METRICS = ["ndcg@1", "ndcg@5", "ndcg@100", "recall@3", "recall@50", "mrr@2", "mrr@100",
           "map@4", "map@100", "p@1", "p@10", "success@3"]


def _per_query_metric(spec, gains, ideal):
    """One metric of one query spelled directly from its definition (trec_eval's), the
    reference ``metric_arrays`` is checked against (memlab's ``metric_value`` is derived from
    ``metric_arrays``)."""
    name, k = parse_metric(spec)
    top = np.asarray(gains[:k], dtype=np.float64)
    n_rel = int(np.count_nonzero(ideal))
    rel = top > 0
    if name == "ndcg":
        disc = 1.0 / np.log2(np.arange(2, len(top) + 2))
        ideal_top = np.sort(np.asarray(ideal, dtype=np.float64))[::-1][:k]
        idcg = float(np.sum(ideal_top / np.log2(np.arange(2, len(ideal_top) + 2))))
        return float(np.sum(top * disc)) / idcg
    if name == "recall":
        return float(rel.sum()) / n_rel
    if name == "mrr":
        hit = np.flatnonzero(rel)
        return 1.0 / (hit[0] + 1) if len(hit) else 0.0
    if name == "map":
        hit = np.flatnonzero(rel)
        return float(np.sum(np.arange(1, len(hit) + 1) / (hit + 1))) / n_rel
    if name == "p":
        return float(rel.sum()) / k
    if name == "recall_all":
        return float(rel.sum() >= n_rel)
    return float(rel.any())  # success, recall_any


def _reference(hits, qrels, metrics, queries=None, level="span"):
    """``evaluate``'s per-query table as computed before it was vectorised."""
    if level == "span":
        gains = (span_gains(hits, qrels) if len(hits)
                 else hits.assign(gain=pd.Series(dtype=np.int64)))
        ideal = ideal_gains(qrels)
    else:
        gains = doc_gains(hits, qrels) if len(hits) else pd.DataFrame(
            {"qid": pd.Series(dtype=object), "rank": pd.Series(dtype=np.int64),
             "gain": pd.Series(dtype=np.int64)})
        gains = gains.sort_values(["qid", "rank"], kind="stable")
        ideal = doc_ideal(qrels)
    ideal = {str(q): g for q, g in ideal.items()}
    by_q = {str(q): g["gain"].to_numpy() for q, g in gains.groupby("qid", sort=False)}
    top = (hits.groupby("qid", sort=False)["score"].max() if len(hits)
           else pd.Series(dtype=float))
    top.index = top.index.astype(str)
    if queries is not None:
        qids = [str(q) for q in queries["qid"]]
    else:
        qids = list(ideal) + [q for q in top.index if q not in ideal]
    rows = []
    for qid in qids:
        grades = ideal.get(qid)
        judged = grades is not None and bool(np.count_nonzero(grades))
        row = {"qid": qid, "judged": judged, "top_score": float(top.get(qid, np.nan))}
        for m in metrics:
            row[m] = (_per_query_metric(m, by_q.get(qid, np.zeros(0, dtype=np.int64)),
                                        grades) if judged else np.nan)
        rows.append(row)
    table = pd.DataFrame(rows, columns=["qid", "judged", "top_score", *metrics])
    table["judged"] = table["judged"].astype(bool)
    return table


def _doc_run(seed, int_qids=False, shuffle=False, n_queries=40, n_docs=30):
    rng = np.random.default_rng(seed)
    hits, qrels = [], []
    for q in range(n_queries):
        qid = q if int_qids else f"q{q}"
        n = int(rng.integers(0, 40))
        docs = rng.integers(0, n_docs, n)  # repeats = several chunks of one document
        ranks = np.sort(rng.integers(1, max(n, 1) + 1, n))  # equal ranks happen
        for d, r in zip(docs, ranks, strict=True):
            hits.append((qid, f"d{d}.md", float(rng.random()), int(r)))
        if q % 7 == 3:
            continue  # no judgments
        for d in rng.integers(0, n_docs, int(rng.integers(1, 12))):
            grade = int(rng.integers(-1, 4)) if q % 5 else 0  # some queries: no relevant doc
            qrels.append((qid, f"d{d}", grade))  # duplicates: the last one counts
    hits = pd.DataFrame(hits, columns=["qid", "path", "score", "rank"])
    if shuffle:
        hits = hits.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    qrels = pd.DataFrame(qrels, columns=["qid", "doc_id", "grade"])
    return hits, qrels


def _assert_same(mine, ref):
    pd.testing.assert_frame_equal(mine.per_query if hasattr(mine, "per_query") else mine, ref,
                                  check_exact=False, rtol=1e-12, atol=1e-15,
                                  check_dtype=False)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("int_qids", [False, True])
@pytest.mark.parametrize("shuffle", [False, True])
def test_doc_level_equals_reference(seed, int_qids, shuffle):
    hits, qrels = _doc_run(seed, int_qids, shuffle)
    ev = evaluate(hits, qrels, METRICS, level="doc")
    ref = _reference(hits, qrels, METRICS, level="doc")
    _assert_same(ev, ref)
    pd.testing.assert_series_equal(ev.means, ref.loc[ref["judged"], METRICS].mean(),
                                   check_exact=False, rtol=1e-12)


def test_doc_level_with_doc_id_column_and_queries_frame():
    hits, qrels = _doc_run(11)
    hits = hits.assign(doc_id=hits["path"].str.removesuffix(".md"))
    queries = pd.DataFrame({"qid": ["q5", "nope", "q0", "q3", "q5"], "query": ["x"] * 5})
    _assert_same(evaluate(hits, qrels, METRICS, queries, level="doc"),
                 _reference(hits, qrels, METRICS, queries, level="doc"))


def test_doc_level_object_dtype_and_nan_scores():
    hits, qrels = _doc_run(12)
    hits = hits.astype({"qid": object, "path": object})
    hits.loc[hits.index[::5], "score"] = np.nan
    _assert_same(evaluate(hits, qrels, METRICS, level="doc"),
                 _reference(hits, qrels, METRICS, level="doc"))


def test_empty_inputs():
    _, qrels = _doc_run(13)
    empty = pd.DataFrame({"qid": pd.Series(dtype=str), "path": pd.Series(dtype=str),
                          "score": pd.Series(dtype=float), "rank": pd.Series(dtype=np.int64)})
    _assert_same(evaluate(empty, qrels, METRICS, level="doc"),
                 _reference(empty, qrels, METRICS, level="doc"))
    no_qrels = qrels.iloc[:0]
    hits, _ = _doc_run(13)
    _assert_same(evaluate(hits, no_qrels, METRICS, level="doc"),
                 _reference(hits, no_qrels, METRICS, level="doc"))


@pytest.mark.parametrize("seed", range(4))
def test_span_level_equals_reference(seed):
    rng = np.random.default_rng(seed)
    hits, qrels = [], []
    for q in range(25):
        for rank in range(1, int(rng.integers(0, 20)) + 1):
            start = int(rng.integers(1, 40))
            hits.append((f"q{q}", f"f{rng.integers(0, 3)}.md", start,
                         start + int(rng.integers(0, 8)), float(rng.random()), rank))
        if q % 6 == 1:
            continue
        for _ in range(int(rng.integers(1, 6))):
            start = int(rng.integers(1, 40))
            qrels.append((f"q{q}", f"f{rng.integers(0, 3)}.md", start,
                          start + int(rng.integers(0, 3)), int(rng.integers(0, 3))))
    hits = pd.DataFrame(hits, columns=["qid", "path", "start_line", "end_line", "score",
                                       "rank"])
    qrels = pd.DataFrame(qrels, columns=["qid", "path", "start_line", "end_line", "grade"])
    _assert_same(evaluate(hits, qrels, METRICS), _reference(hits, qrels, METRICS))


def test_metric_arrays_and_metric_value_equal_the_per_query_definition():
    rng = np.random.default_rng(5)
    qrow, gains, iq, ideal = [], [], [], []
    for q in range(60):
        g = rng.integers(-1, 4, int(rng.integers(0, 30)))
        qrow += [q] * len(g)
        gains += g.tolist()
        grades = rng.integers(0, 4, int(rng.integers(0, 8)))
        iq += [q] * len(grades)
        ideal += grades.tolist()
    order = rng.permutation(len(iq))  # ideal grades in any order
    vals = metric_arrays(METRICS, 60, np.array(qrow), np.array(gains),
                         np.array(iq)[order], np.array(ideal)[order])
    qrow, gains, iq, ideal = map(np.array, (qrow, gains, iq, ideal))
    for q in range(60):
        grades = ideal[iq == q]
        for m in METRICS:
            if not np.count_nonzero(grades):
                assert np.isnan(vals[m][q])
                with pytest.raises(ValueError, match="without relevant judgments"):
                    metric_value(m, gains[qrow == q], grades)
            else:
                assert vals[m][q] == pytest.approx(
                    _per_query_metric(m, gains[qrow == q], grades), rel=1e-12, abs=1e-15)
                assert metric_value(m, gains[qrow == q], grades) == vals[m][q]
