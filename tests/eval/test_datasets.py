"""Dataset loaders: BEIR folders (validation, corpus building), layout detection, and the
real collections in ../shared/datasets end to end against trec_eval."""

import io
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from memlab.corpus import load_workspace
from memlab.eval import (
    BeirDataset,
    DatasetError,
    MemoryDataset,
    doc_gains,
    doc_ideal,
    document_corpus,
    load_beir_dataset,
    load_dataset,
    load_memory_dataset,
    metric_value,
    write_trec_run,
)

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / ".." / "shared" / "datasets"
SAMPLE = REPO / "datasets" / "sample-memory"


def _beir(root: Path, corpus=None, queries=None, qrels=None, split="test") -> Path:
    """Write a small BEIR folder; list arguments are JSON lines, strings are written as is."""
    corpus = corpus if corpus is not None else [
        {"_id": "d1", "title": "Deploy keys", "text": "The deploy key lives in the vault."},
        {"_id": "d2", "title": "", "text": "Lunch is at noon."},
        {"_id": "d3", "title": "Rotation", "text": "Rotate keys monthly.\n\nAsk Maya."},
    ]
    queries = queries if queries is not None else [
        {"_id": "q1", "text": "where is the deploy key"},
        {"_id": "q2", "text": "when is lunch"},
        {"_id": "q3", "text": "who knows nothing"},
    ]
    qrels = qrels if qrels is not None else (
        "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td3\t1\nq2\td2\t1\n")
    root.mkdir(parents=True, exist_ok=True)
    for name, rows in (("corpus.jsonl", corpus), ("queries.jsonl", queries)):
        text = rows if isinstance(rows, str) else "".join(json.dumps(r) + "\n" for r in rows)
        (root / name).write_text(text, encoding="utf-8")
    (root / "qrels").mkdir(exist_ok=True)
    (root / "qrels" / f"{split}.tsv").write_text(qrels, encoding="utf-8")
    return root


# -- BEIR loader -----------------------------------------------------------------------------


def test_beir_folder_loads_as_a_chunked_corpus(tmp_path):
    ds = load_beir_dataset(_beir(tmp_path / "tiny"))
    assert isinstance(ds, BeirDataset) and ds.level == "doc" and ds.name == "tiny"
    chunks = ds.corpus.chunks
    assert chunks["path"].tolist() == ["d1.md", "d2.md", "d3.md"]
    assert chunks.loc[0, "text"] == "Deploy keys\n\nThe deploy key lives in the vault."
    assert chunks.loc[1, "text"] == "Lunch is at noon."  # no title: text alone
    assert chunks[["start_line", "end_line"]].values.tolist() == [[1, 3], [1, 1], [1, 5]]
    assert (chunks["source"] == "memory").all() and ds.corpus.root is None
    assert ds.corpus.files["path"].tolist() == ["d1.md", "d2.md", "d3.md"]
    assert ds.documents["doc_id"].tolist() == ["d1", "d2", "d3"]
    assert ds.queries.columns.tolist() == ["qid", "query", "tags"]
    assert ds.queries["tags"].tolist() == [[], [], []]
    assert ds.qrels.values.tolist() == [["q1", "d1", 2], ["q1", "d3", 1], ["q2", "d2", 1]]
    assert ds.qrels["grade"].dtype == np.int64
    assert ds.unjudged == ["q3"]  # kept in queries, flagged
    assert "3 queries (2 judged)" in repr(ds)


def test_qrels_without_header_and_with_spaces(tmp_path):
    ds = load_beir_dataset(_beir(tmp_path / "a", qrels="q1 d1 2\n\n q2  d2\t1.0 \n"))
    assert ds.qrels.values.tolist() == [["q1", "d1", 2], ["q2", "d2", 1]]


def test_graded_and_non_relevant_judgments(tmp_path):
    ds = load_beir_dataset(_beir(tmp_path / "a", qrels="q1\td1\t0\nq2\td2\t3\nq2\td2\t3\n"))
    assert ds.qrels.values.tolist() == [["q1", "d1", 0], ["q2", "d2", 3]]  # repeat once
    assert ds.unjudged == ["q1", "q3"]  # only a grade-0 judgment: nothing relevant


def test_other_split_and_numeric_ids(tmp_path):
    root = _beir(tmp_path / "a", corpus=[{"_id": 7, "text": "seven"}],
                 queries=[{"_id": 1, "text": "seven?", "tags": ["exact"]}],
                 qrels="1\t7\t1\n", split="dev")
    ds = load_beir_dataset(root, split="dev")
    assert ds.corpus.chunks["path"].tolist() == ["7.md"]
    assert ds.queries.values.tolist() == [["1", "seven?", ["exact"]]]
    with pytest.raises(DatasetError, match=r"test\.tsv: file not found \(qrels splits present: "
                                           r"\['dev'\]\)"):
        load_beir_dataset(root)


def test_rechunk_and_chunking_options(tmp_path):
    long_doc = {"_id": "d1", "title": "T", "text": "\n".join(f"line {i} " * 8 for i in range(60))}
    root = _beir(tmp_path / "a", corpus=[long_doc], queries=[{"_id": "q", "text": "x"}],
                 qrels="q\td1\t1\n")
    ds = load_beir_dataset(root)
    small = ds.rechunk(tokens=64, overlap=8)
    assert len(small.corpus) > len(ds.corpus) > 1
    assert small.qrels is ds.qrels and len(load_beir_dataset(root, tokens=64, overlap=8).corpus) \
        == len(small.corpus)


def test_document_corpus_matches_load_workspace(tmp_path):
    """A collection document is chunked exactly like a workspace file with the same text."""
    texts = {"memory/a": "# A\n\n" + "\n".join(f"fact {i}: " + "word " * 30 for i in range(40)),
             "memory/b": "短い記憶。" * 500 + "\nend", "memory/c": "   \n\n  "}
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    for doc_id, text in texts.items():
        (ws / f"{doc_id}.md").write_text(text, encoding="utf-8")
    ref = load_workspace(ws)
    mine = document_corpus(texts)
    pd.testing.assert_frame_equal(mine.chunks, ref.chunks)
    cols = ["path", "source", "hash", "size"]
    pd.testing.assert_frame_equal(mine.files[cols], ref.files[cols].sort_values("path")
                                  .reset_index(drop=True))


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize("missing", ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv"])
def test_missing_files_are_named(tmp_path, missing):
    root = _beir(tmp_path / "a")
    (root / missing).unlink()
    with pytest.raises(DatasetError, match=rf"{missing}: file not found"):
        load_beir_dataset(root)


def test_missing_folder(tmp_path):
    with pytest.raises(DatasetError, match="dataset folder not found"):
        load_beir_dataset(tmp_path / "nope")


def test_malformed_json_names_file_and_line(tmp_path):
    good = '{"_id": "d1", "text": "a"}\n'
    root = _beir(tmp_path / "a", corpus=good + "\n" + good.replace("d1", "d2") + '{"_id": "d3",\n',
                 qrels="q1\td1\t1\n")
    with pytest.raises(DatasetError, match=r"corpus\.jsonl:4: malformed JSON"):
        load_beir_dataset(root)
    root = _beir(tmp_path / "b", queries='{"_id": "q1", "text": "x"}\n["q2"]\n')
    with pytest.raises(DatasetError, match=r"queries\.jsonl:2: expected a JSON object"):
        load_beir_dataset(root)


@pytest.mark.parametrize(("corpus", "message"), [
    ([{"title": "t", "text": "a"}], r"corpus\.jsonl:1: missing '_id'"),
    ([{"_id": "d1", "title": "t"}], r"corpus\.jsonl:1: missing 'text'"),
    ([{"_id": "d1", "text": 3}], r"corpus\.jsonl:1: 'text' must be a string"),
    ([{"_id": "d 1", "text": "a"}], r"corpus\.jsonl:1: document id 'd 1' is empty or contains "
                                    r"whitespace"),
    ([{"_id": "d1", "text": "a"}, {"_id": "d2", "text": "b"}, {"_id": "d1", "text": "c"}],
     r"corpus\.jsonl:3: duplicate document id 'd1' \(first on line 1\)"),
])
def test_bad_documents(tmp_path, corpus, message):
    root = _beir(tmp_path / "a", corpus=corpus, qrels="")
    with pytest.raises(DatasetError, match=message):
        load_beir_dataset(root)


def test_duplicate_query_ids(tmp_path):
    queries = [{"_id": "q1", "text": "a"}, {"_id": "q2", "text": "b"}, {"_id": "q1", "text": "c"}]
    with pytest.raises(DatasetError, match=r"queries\.jsonl:3: duplicate query id 'q1' "
                                           r"\(first on line 1\)"):
        load_beir_dataset(_beir(tmp_path / "a", queries=queries))


@pytest.mark.parametrize(("qrels", "message"), [
    ("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td9\t1\n",
     r"test\.tsv:3: unknown document id 'd9' \(not in corpus\.jsonl\)"),
    ("q1\td1\t1\nq9\td1\t1\n", r"test\.tsv:2: unknown query id 'q9'"),
    ("q1\td1\n", r"test\.tsv:1: expected 3 columns"),
    ("qid doc score\nq1\td1\tyes\n", r"test\.tsv:2: score 'yes' is not an integer"),
    ("q1\td1\t1\nq1\td1\t2\n", r"test\.tsv:2: query 'q1', document 'd1' judged 2 here but 1 "
                               r"on line 1"),
])
def test_bad_qrels_name_the_line(tmp_path, qrels, message):
    with pytest.raises(DatasetError, match=message):
        load_beir_dataset(_beir(tmp_path / "a", qrels=qrels))


def test_unknown_document_hint_and_lenient_modes(tmp_path):
    corpus = [{"_id": "D-0007", "text": "seven"}, {"_id": "D-0008", "text": "eight"}]
    queries = [{"_id": "1", "text": "seven"}, {"_id": "2", "text": "eight"}]
    qrels = "1\tD-0007\t1\n1\tD-7\t1\n2\tD-0008\t1\n3\tD-0008\t1\n"
    root = _beir(tmp_path / "a", corpus=corpus, queries=queries, qrels=qrels)
    with pytest.raises(DatasetError, match=r"test\.tsv:2: unknown document id 'D-7' .*did you "
                                           r"mean 'D-0007'\?.*unknown_ids="):
        load_beir_dataset(root)
    with pytest.warns(UserWarning, match=r"2 judgment\(s\) name an unknown .*lines 2, 4"):
        dropped = load_beir_dataset(root, unknown_ids="drop")
    assert dropped.qrels.values.tolist() == [["1", "D-0007", 1], ["2", "D-0008", 1]]
    assert dropped.rejected_qrels[["line", "problem"]].values.tolist() == [
        [2, "unknown document"], [4, "unknown query"]]
    with pytest.warns(UserWarning, match="kept"):
        kept = load_beir_dataset(root, unknown_ids="keep")
    assert kept.qrels.values.tolist() == [["1", "D-0007", 1], ["1", "D-7", 1],
                                          ["2", "D-0008", 1]]
    with pytest.raises(ValueError, match="unknown_ids"):
        load_beir_dataset(root, unknown_ids="ignore")


# -- layout detection and the memory dataset -------------------------------------------------


def _memory(root: Path) -> Path:
    (root / "workspace" / "memory").mkdir(parents=True)
    (root / "workspace" / "MEMORY.md").write_text("# Memory\n\nMaya owns deploys.\n")
    (root / "queries.jsonl").write_text(
        '{"id": "q1", "text": "who owns deploys", "tags": ["paraphrase"]}\n'
        '{"id": "q2", "text": "what is the wifi password", "tags": ["none"]}\n')
    (root / "qrels.jsonl").write_text(
        '{"query_id": "q1", "path": "MEMORY.md", "start_line": 3, "end_line": 3, "grade": 2}\n')
    return root


def test_load_dataset_detects_the_layout(tmp_path):
    assert isinstance(load_dataset(_beir(tmp_path / "b")), BeirDataset)
    mem = load_dataset(_memory(tmp_path / "m"))
    assert isinstance(mem, MemoryDataset) and mem.level == "span"
    assert mem.unjudged == ["q2"]
    with pytest.raises(TypeError, match="BEIR folders only"):
        load_dataset(tmp_path / "m", tokens=200)
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match="not a dataset folder"):
        load_dataset(tmp_path / "empty")
    with pytest.raises(DatasetError, match="not found"):
        load_dataset(tmp_path / "missing")


def test_bundled_memory_dataset_still_loads():
    if not SAMPLE.is_dir():
        pytest.skip("no bundled memory dataset")
    ds = load_memory_dataset(SAMPLE)
    assert ds.queries.columns.tolist() == ["qid", "query", "tags", "now"]
    assert ds.qrels.columns.tolist() == ["qid", "path", "start_line", "end_line", "grade"]
    none_tagged = [q for q, t in zip(ds.queries["qid"], ds.queries["tags"], strict=True)
                   if "none" in t]
    assert none_tagged and ds.unjudged == none_tagged


# -- real collections --------------------------------------------------------------------------

# documents, queries, qrels rows, queries with a relevant judgment (from each README)
COUNTS = {"adi": (82, 35, 170, 35), "cacm": (3204, 64, 796, 52), "cisi": (1460, 112, 3114, 76),
          "cranfield": (1400, 225, 1837, 225), "med": (1033, 30, 696, 30),
          "npl": (11429, 93, 2083, 93), "scifact": (5183, 300, 339, 300)}


def _shared(name: str) -> Path:
    path = SHARED / name
    if not (path / "corpus.jsonl").is_file():
        pytest.skip(f"{path} not present")
    return path


def _load_quietly(path: Path) -> BeirDataset:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # unknown ids in other collections
        return load_beir_dataset(path, unknown_ids="keep")


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_shared_collections_load_quickly_with_published_counts(name):
    path = _shared(name)
    start = time.perf_counter()
    ds = _load_quietly(path)
    elapsed = time.perf_counter() - start
    n_docs, n_queries, n_qrels, n_judged = COUNTS[name]
    assert len(ds.documents) == n_docs and len(ds.corpus.files) == n_docs
    assert len(ds.queries) == n_queries
    assert len(ds.qrels) == n_qrels
    assert len(ds.queries) - len(ds.unjudged) == n_judged == len(doc_ideal(ds.qrels))
    assert len(ds.corpus) >= n_docs - 2  # cranfield has two empty documents (no chunk)
    assert elapsed < 15, f"loading {name} took {elapsed:.1f}s"


def test_cacm_qrels_use_the_corpus_zero_padded_ids():
    """The shared CACM qrels name documents as the corpus does ('CACM-0756'; an older copy
    had 55 unpadded ids such as 'CACM-756'): strict loading accepts every line."""
    path = _shared("cacm")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # nothing to warn about either
        ds = load_beir_dataset(path)
    assert len(ds.rejected_qrels) == 0
    assert ds.qrels["doc_id"].str.fullmatch(r"CACM-\d{4}").all()
    assert set(ds.qrels["doc_id"]) <= set(ds.documents["doc_id"])


@pytest.fixture(scope="module")
def cacm_run():
    from memlab.stages.lexical import BM25

    ds = _load_quietly(_shared("cacm"))
    judged = ds.queries[~ds.queries["qid"].isin(ds.unjudged)]
    hits = BM25(ds.corpus, depth=1500)(judged)
    return ds, hits


TREC = {"ndcg_cut_10": "ndcg@10", "recall_100": "recall@100", "P_10": "p@10",
        "map_cut_100": "map@100", "recip_rank": "mrr@100000"}


def test_cacm_bm25_document_level_metrics_equal_trec_eval(cacm_run):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ds, hits = cacm_run
    assert hits["path"].duplicated().any()  # some documents come as several chunks
    gains = doc_gains(hits, ds.qrels)
    assert not gains.duplicated(["qid", "doc_id"]).any()
    ideal = doc_ideal(ds.qrels)
    by_q = {q: g["gain"].to_numpy() for q, g in gains.groupby("qid")}
    mine = {q: {spec: metric_value(spec, by_q.get(q, np.zeros(0)), ideal[q])
                for spec in TREC.values()} for q in ideal}

    # the document ranking, with rank-based scores so trec_eval keeps memlab's tie order
    run: dict[str, dict[str, float]] = {}
    for q, doc, rank in zip(gains["qid"], gains["doc_id"], gains["rank"], strict=True):
        run.setdefault(q, {})[doc] = 1.0 / rank
    trec_qrels: dict[str, dict[str, int]] = {}
    for q, doc, grade in ds.qrels.itertuples(index=False):
        trec_qrels.setdefault(q, {})[doc] = int(grade)
    ref = pytrec_eval.RelevanceEvaluator(trec_qrels, set(TREC)).evaluate(run)
    assert set(ref) == set(mine) and len(ref) == 52
    for q, vals in ref.items():
        for trec_name, spec in TREC.items():
            assert mine[q][spec] == pytest.approx(vals[trec_name], abs=1e-9), (q, spec)

    # the same numbers from the run file memlab writes
    buf = io.StringIO()
    write_trec_run(hits, buf, "bm25", level="doc")  # tie-safe scores
    from_file = pytrec_eval.RelevanceEvaluator(trec_qrels, set(TREC)).evaluate(
        pytrec_eval.parse_run(io.StringIO(buf.getvalue())))
    assert from_file == ref

    ndcg = np.mean([m["ndcg@10"] for m in mine.values()])
    assert 0.3 < ndcg < 0.5  # README: bm25s, stop words, no stemming: 0.43


def test_one_span_reader_serves_qrels_judged_and_session_qrels(tmp_path):
    """qrels.jsonl, judged.jsonl and session_qrels.jsonl are read by one function; only the
    default grade differs (judged: 0 = looked at, session qrels: 1)."""
    from memlab.eval.collection import SESSION_QRELS_FILE, load_session_qrels
    from memlab.eval.datasets import read_span_file
    from memlab.eval.judged import JUDGED_FILE, read_judged_file

    line = {"query_id": 7, "path": "MEMORY.md", "start_line": "2", "end_line": 3.0}
    for name in (JUDGED_FILE, SESSION_QRELS_FILE):
        (tmp_path / name).write_text("\n" + json.dumps(line) + "\n", encoding="utf-8")
    judged = read_judged_file(tmp_path / JUDGED_FILE)
    session = load_session_qrels(tmp_path)
    assert judged.values.tolist() == [["7", "MEMORY.md", 2, 3, 0]]
    assert session.values.tolist() == [["7", "MEMORY.md", 2, 3, 1]]
    assert judged.dtypes.equals(session.dtypes)
    assert read_span_file(tmp_path / "absent.jsonl", default_grade=1).empty
    assert load_session_qrels(tmp_path / "nowhere") is None

    (tmp_path / JUDGED_FILE).write_text(json.dumps({**line, "end_line": 3.5}) + "\n"
                                        + json.dumps({"query_id": "q"}) + "\n")
    with pytest.raises(DatasetError, match=r"judged\.jsonl:1: 'end_line' must be an integer"):
        read_judged_file(tmp_path / JUDGED_FILE)
    (tmp_path / SESSION_QRELS_FILE).write_text(json.dumps({"query_id": "q"}) + "\n")
    with pytest.raises(DatasetError, match=r"session_qrels\.jsonl:1: missing 'path'"):
        load_session_qrels(tmp_path)
