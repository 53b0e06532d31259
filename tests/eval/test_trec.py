"""TREC run and qrels files: round trips, robustness, errors, and agreement of a written run
with trec_eval (pytrec_eval) and ir_measures."""

import io

import numpy as np
import pandas as pd
import pytest

from memlab.eval import (
    DatasetError,
    doc_gains,
    doc_ideal,
    metric_value,
    read_trec_qrels,
    read_trec_run,
    span_gains,
    write_trec_qrels,
    write_trec_run,
)
from memlab.eval.trec import chunk_docid, parse_chunk_docid


def _chunk_hits():
    return pd.DataFrame({
        "qid": ["1", "1", "1", "2", "2"],
        "path": ["a.md", "memory/my notes.md", "a.md", "b.md", "a.md"],
        "start_line": [1, 3, 10, 5, 1],
        "end_line": [9, 4, 20, 5, 9],
        "score": [3.5, 2.25, 2.25, 0.1, 1e-12],
        "rank": [1, 2, 3, 1, 2],
    })


def _write(hits, **kw):
    buf = io.StringIO()
    write_trec_run(hits, buf, **kw)
    return buf.getvalue()


def test_chunk_run_format_and_round_trip(tmp_path):
    hits = _chunk_hits()
    text = _write(hits, run_name="bm25")
    lines = text.splitlines()
    assert lines[0] == "1 Q0 a.md#L1-9 1 3.5 bm25"
    assert lines[1] == "1 Q0 memory/my%20notes.md#L3-4 2 2.25 bm25"
    assert all(len(line.split()) == 6 for line in lines)
    path = tmp_path / "run.txt"
    write_trec_run(hits, path, "bm25", tie_safe=False)
    back = read_trec_run(path)
    assert back[["qid", "path", "start_line", "end_line", "rank"]].values.tolist() == \
        hits[["qid", "path", "start_line", "end_line", "rank"]].values.tolist()
    assert back["score"].tolist() == hits["score"].tolist()  # repr keeps every bit
    # by default the tie (2.25, 2.25) is broken below the first one, in memlab's order
    safe = read_trec_run(io.StringIO(_write(hits)))
    assert safe["docid"].tolist() == back["docid"].tolist()
    assert safe["score"].iloc[2] < safe["score"].iloc[1] == 2.25
    assert safe["score"].iloc[2] == pytest.approx(2.25, rel=1e-5)
    assert back["docid"].iloc[1] == "memory/my%20notes.md#L3-4"


def test_read_chunk_run_scores_with_span_gains():
    hits = _chunk_hits()
    qrels = pd.DataFrame({"qid": ["1", "2"], "path": ["memory/my notes.md", "a.md"],
                          "start_line": [4, 2], "end_line": [4, 2], "grade": [2, 1]})
    back = read_trec_run(io.StringIO(_write(hits)))
    assert span_gains(back, qrels)["gain"].tolist() == span_gains(hits, qrels)["gain"].tolist()


def test_doc_level_run_keeps_best_chunk():
    hits = _chunk_hits().assign(path=lambda f: f["path"].str.replace(" ", "_"))
    text = _write(hits, run_name="r", level="doc")
    assert text.splitlines() == ["1 Q0 a 1 3.5 r", "1 Q0 memory/my_notes 2 2.25 r",
                                 "2 Q0 b 1 0.1 r", "2 Q0 a 2 1e-12 r"]
    back = read_trec_run(io.StringIO(text))
    assert "path" not in back.columns and back["doc_id"].tolist() == ["a", "memory/my_notes",
                                                                      "b", "a"]
    qrels = pd.DataFrame({"qid": ["1", "2"], "doc_id": ["memory/my_notes", "a"], "grade": [1, 2]})
    assert doc_gains(back, qrels)["gain"].tolist() == doc_gains(hits, qrels)["gain"].tolist()


def test_doc_level_refuses_whitespace_ids():
    with pytest.raises(ValueError, match="whitespace"):
        _write(_chunk_hits(), level="doc")
    with pytest.raises(ValueError, match="run name"):
        _write(_chunk_hits(), run_name="my run")


def test_rank_scores_and_non_finite_scores():
    hits = _chunk_hits()
    text = _write(hits, scores="rank")
    assert [float(line.split()[4]) for line in text.splitlines()] == [1.0, 0.5, 1 / 3, 1.0, 0.5]
    with pytest.raises(ValueError, match="not finite"):
        _write(hits.assign(score=[1.0, np.nan, 0.5, 1.0, 0.2]))
    with pytest.raises(ValueError, match="no 'vector_score' column"):
        _write(hits, scores="vector_score")


def test_chunks_sharing_a_span_get_distinct_docids():
    # the pieces of one over-long line all carry its line number
    hits = pd.DataFrame({"qid": ["q"] * 3, "path": ["a.md"] * 3, "start_line": [1, 1, 2],
                         "end_line": [1, 1, 2], "score": [3.0, 2.0, 1.0], "rank": [1, 2, 3]})
    docids = [line.split()[2] for line in _write(hits).splitlines()]
    assert docids == ["a.md#L1-1", "a.md#L1-1~2", "a.md#L2-2"]
    assert parse_chunk_docid("a.md#L1-1~2") == ("a.md", 1, 1)
    back = read_trec_run(io.StringIO(_write(hits)))
    assert back["start_line"].tolist() == [1, 1, 2]


def test_chunk_docid_escaping():
    path = "memory/100% sure\tnow.md"
    docid = chunk_docid(path, 2, 3)
    assert not any(ch.isspace() for ch in docid)
    assert parse_chunk_docid(docid) == (path, 2, 3)
    assert parse_chunk_docid("CACM-0001") is None
    assert parse_chunk_docid("x#L1") is None


def test_read_run_is_robust_to_whitespace_and_sorts_by_score():
    text = ("\n"
            "q1\tQ0\td2\t7\t0.5\tr\n"
            "  q1 Q0   d1 3 0.9  r  \n"
            "\n"
            "q2 Q0 d3 1 1 r\r\n"
            "q1 Q0 d3 2 0.5 r\n")  # ties on 0.5: file rank 2 before 7
    run = read_trec_run(io.StringIO(text))
    assert run[["qid", "docid", "rank", "score"]].values.tolist() == [
        ["q1", "d1", 1, 0.9], ["q1", "d3", 2, 0.5], ["q1", "d2", 3, 0.5], ["q2", "d3", 1, 1.0]]
    assert run["doc_id"].tolist() == run["docid"].tolist()  # level "auto" → doc


@pytest.mark.parametrize(("text", "message"), [
    ("q Q0 d 1 1.0 r\nq Q0 e 2 0.5\n", r"run.txt:2: expected 6 columns"),
    ("q Q0 d 1 1.0 r\n\nq Q0 e x 0.5 r\n", r"run.txt:3: rank 'x' is not an integer"),
    ("q Q0 d 1 high r\n", r"run.txt:1: score 'high' is not a number"),
    ("q Q0 d 1 nan r\n", r"run.txt:1: score 'nan' is not finite"),
    ("q Q0 d 1 1 r\nq Q0 e 2 1 r\nq Q0 d 3 1 r\n", r"run.txt:3: document 'd' retrieved twice "
                                                   r"for query 'q' \(first on line 1\)"),
])
def test_read_run_errors_name_file_and_line(tmp_path, text, message):
    path = tmp_path / "run.txt"
    path.write_text(text)
    with pytest.raises(DatasetError, match=message):
        read_trec_run(path)


def test_read_run_level_chunk_refuses_document_ids(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q Q0 a.md#L1-2 1 1 r\nq Q0 CACM-1 2 0.5 r\n")
    assert read_trec_run(path)["doc_id"].tolist() == ["a.md#L1-2", "CACM-1"]  # auto → doc
    with pytest.raises(DatasetError, match="'CACM-1' is not a chunk docid"):
        read_trec_run(path, level="chunk")
    with pytest.raises(ValueError, match="level"):
        read_trec_run(path, level="span")


def test_empty_run(tmp_path):
    path = tmp_path / "run.txt"
    write_trec_run(_chunk_hits().iloc[:0], path)
    assert path.read_text() == ""
    assert read_trec_run(path).empty


def test_qrels_round_trip_and_robustness(tmp_path):
    qrels = pd.DataFrame({"qid": ["1", "1", "2"], "doc_id": ["CACM-0001", "x", "y"],
                          "grade": [1, 0, 3]})
    path = tmp_path / "qrels.txt"
    write_trec_qrels(qrels, path)
    assert path.read_text().splitlines() == ["1 0 CACM-0001 1", "1 0 x 0", "2 0 y 3"]
    pd.testing.assert_frame_equal(read_trec_qrels(path), qrels)
    messy = "1\t0\tCACM-0001\t1\n\n  1  Q0 x 0.0 \n2 0 y 3\n2 0 y 3\n"  # repeat counts once
    pd.testing.assert_frame_equal(read_trec_qrels(io.StringIO(messy)), qrels)


@pytest.mark.parametrize(("text", "message"), [
    ("1 0 d 1\n1 0 e\n", r"qrels.txt:2: expected 4 columns"),
    ("1 0 d 1.5\n", r"qrels.txt:1: grade '1.5' is not an integer"),
    ("1 0 d yes\n", r"qrels.txt:1: grade 'yes' is not an integer"),
    ("1 0 d 1\n\n1 0 d 2\n", r"qrels.txt:3: query '1', document 'd' judged 2 here but 1 on "
                             r"line 1"),
])
def test_read_qrels_errors_name_file_and_line(tmp_path, text, message):
    path = tmp_path / "qrels.txt"
    path.write_text(text)
    with pytest.raises(DatasetError, match=message):
        read_trec_qrels(path)


def test_write_qrels_needs_document_judgments():
    spans = pd.DataFrame({"qid": ["1"], "path": ["a.md"], "start_line": [1], "end_line": [2],
                          "grade": [1]})
    with pytest.raises(ValueError, match="document-level"):
        write_trec_qrels(spans, io.StringIO())


# -- agreement with trec_eval / ir_measures on written files ------------------------------


def _random_chunk_run(seed):
    """Chunk hits over documents with several chunks each, with score ties, plus graded qrels."""
    rng = np.random.default_rng(seed)
    hits, qrels = [], []
    for q in range(20):
        qid = str(q + 1)
        judged = rng.choice(30, size=rng.integers(1, 8), replace=False)
        grades = rng.integers(0, 3, size=len(judged))
        grades[0] = max(grades[0], 1)
        qrels += [(qid, f"D{d}", int(g)) for d, g in zip(judged, grades, strict=True)]
        docs = rng.integers(0, 30, size=rng.integers(1, 50))
        scores = np.sort(np.round(rng.random(len(docs)), 1))[::-1]  # many ties
        for rank, (d, s) in enumerate(zip(docs, scores, strict=True), start=1):
            hits.append((qid, f"D{d}.md", int(rank), int(rank), float(s), rank))
    hits = pd.DataFrame(hits, columns=["qid", "path", "start_line", "end_line", "score", "rank"])
    return hits, pd.DataFrame(qrels, columns=["qid", "doc_id", "grade"])


def _memlab_metrics(hits, qrels, specs):
    gains = doc_gains(hits, qrels)
    ideal = doc_ideal(qrels)
    by_q = {q: g["gain"].to_numpy() for q, g in gains.groupby("qid")}
    return {q: {m: metric_value(m, by_q.get(q, np.zeros(0)), ideal[q]) for m in specs}
            for q in ideal}


SPECS = {"ndcg_cut_10": "ndcg@10", "recall_20": "recall@20", "P_10": "p@10",
         "map_cut_20": "map@20", "recip_rank": "mrr@100000"}


@pytest.mark.parametrize("seed", [0, 1])
def test_written_run_loads_in_pytrec_eval_with_the_same_numbers(tmp_path, seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    hits, qrels = _random_chunk_run(seed)
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    write_trec_run(hits, run_path, "memlab", level="doc")  # tie-safe scores by default
    write_trec_qrels(qrels, qrels_path)
    with run_path.open() as fr, qrels_path.open() as fq:
        run, trec_qrels = pytrec_eval.parse_run(fr), pytrec_eval.parse_qrel(fq)
    ref = pytrec_eval.RelevanceEvaluator(trec_qrels, set(SPECS)).evaluate(run)
    mine = _memlab_metrics(hits, qrels, SPECS.values())
    assert set(ref) == set(mine)
    for qid, vals in ref.items():
        for trec_name, spec in SPECS.items():
            assert mine[qid][spec] == pytest.approx(vals[trec_name], abs=1e-9), (qid, spec)


def test_tied_scores_are_reordered_by_trec_eval_unless_tie_safe():
    """Why write_trec_run writes tie-safe scores by default: with raw tied scores trec_eval
    sees another order (ties by docid descending), and the numbers can differ."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    hits = pd.DataFrame({"qid": ["1", "1"], "path": ["A.md", "B.md"], "start_line": [1, 1],
                         "end_line": [1, 1], "score": [1.0, 1.0], "rank": [1, 2]})
    qrels = pd.DataFrame({"qid": ["1"], "doc_id": ["A"], "grade": [1]})
    ev = pytrec_eval.RelevanceEvaluator({"1": {"A": 1}}, {"recip_rank"})
    raw = pytrec_eval.parse_run(io.StringIO(_write(hits, level="doc", tie_safe=False)))
    by_rank = pytrec_eval.parse_run(io.StringIO(_write(hits, level="doc", scores="rank")))
    default = pytrec_eval.parse_run(io.StringIO(_write(hits, level="doc")))
    assert ev.evaluate(raw)["1"]["recip_rank"] == 0.5  # B before A
    assert ev.evaluate(by_rank)["1"]["recip_rank"] == 1.0
    assert ev.evaluate(default)["1"]["recip_rank"] == 1.0
    assert _memlab_metrics(hits, qrels, ["mrr@10"])["1"]["mrr@10"] == 1.0


def test_written_files_load_in_ir_measures_with_the_same_numbers(tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    hits, qrels = _random_chunk_run(7)
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    write_trec_run(hits, run_path, "memlab", level="doc")
    write_trec_qrels(qrels, qrels_path)
    measures = {ir_measures.parse_measure("nDCG@10"): "ndcg@10",
                ir_measures.parse_measure("R@20"): "recall@20",
                ir_measures.parse_measure("P@10"): "p@10",
                ir_measures.parse_measure("AP@20"): "map@20",
                ir_measures.parse_measure("RR"): "mrr@100000"}
    got = list(ir_measures.iter_calc(list(measures),
                                     ir_measures.read_trec_qrels(str(qrels_path)),
                                     ir_measures.read_trec_run(str(run_path))))
    mine = _memlab_metrics(hits, qrels, measures.values())
    assert got and {m.query_id for m in got} == set(mine)
    for m in got:
        assert mine[m.query_id][measures[m.measure]] == pytest.approx(m.value, abs=1e-9)


def test_tie_safe_scores_keep_the_order_of_non_monotone_and_zero_scores():
    from memlab.eval.trec import tie_safe_scores

    # MMR can leave scores rising down the ranking; 0 ties near the floor; another query
    qids = ["q"] * 6 + ["r"] * 2
    raw = [0.9, 0.95, 0.3, 0.3, 0.0, 0.0, -1.0, -1.0]
    out = tie_safe_scores(qids, raw)
    assert np.all(np.diff(out[:6]) < 0) and out[6] > out[7]
    assert out[0] == 0.9 and out[2] == 0.3 and out[6] == -1.0  # already below: kept
    assert out[1] == pytest.approx(0.9, rel=1e-5)  # pushed below the hit above it
    keep = [0, 2, 3, 4, 5, 6, 7]
    assert np.allclose(out[keep], np.array(raw)[keep], rtol=1e-5, atol=1e-20)
    assert np.all(np.diff(out[:6].astype(np.float32)) < 0)  # trec_eval's C float
    # written with repr, every tool parses the values back to the same strict order
    back = [float(repr(v)) for v in out.tolist()]
    assert back == out.tolist()
