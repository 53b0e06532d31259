"""ResultBuilder reads only the hit rows of the chunk table (no whole-column lists) and gives
the same result objects as the plain reference (``result_object`` over ``tolist()`` columns)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import memlab.results as results
from memlab.corpus import Corpus
from memlab.frames import QueryHits
from memlab.results import COMPONENTS, ResultBuilder, column_reader, result_object
from memlab.snippet import citation, snippet


def reference(chunks: pd.DataFrame, hits: QueryHits, mode: str) -> list[dict]:
    """The result objects from whole-column Python lists (what ResultBuilder did before)."""
    cols = {c: chunks[c].tolist() for c in ("path", "start_line", "end_line", "source", "text")}
    n = len(hits.docno)
    vs = hits.vector_score if hits.vector_score is not None else np.zeros(n)
    ts = hits.text_score if hits.text_score is not None else np.zeros(n)
    out = []
    for d, score, v, t in zip(np.asarray(hits.docno).tolist(), np.asarray(hits.score).tolist(),
                              np.asarray(vs).tolist(), np.asarray(ts).tolist(), strict=True):
        path, start, end = cols["path"][d], int(cols["start_line"][d]), int(cols["end_line"][d])
        item = result_object(path, start, end, score, {"vectorScore": v, "textScore": t}, mode,
                             snippet(cols["text"][d]), cols["source"][d])
        item["citation"] = citation(path, start, end)
        out.append(item)
    return out


def texts(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    alphabet = ["a", "é", "日本", "😀", "\n", " ", "word", "x" * 50]
    return ["".join(rng.choice(alphabet, rng.integers(1, 400))) for _ in range(n)]


def corpus_of(n: int, seed: int = 0) -> Corpus:
    paths = [f"memory/{i // 7:04d}.md" for i in range(n)]
    corpus = Corpus.from_texts(texts(n, seed), paths)
    corpus.chunks["source"] = np.where(np.arange(n) % 3, "memory", "sessions")
    corpus.chunks["start_line"] = np.arange(n) % 11 + 1
    corpus.chunks["end_line"] = corpus.chunks["start_line"] + np.arange(n) % 2
    return corpus


def random_hits(rng: np.random.Generator, n: int, k: int, components: bool = True) -> QueryHits:
    docno = rng.choice(n, min(k, n), replace=False)
    parts = [rng.random(len(docno)) for _ in range(3)]
    if not components:
        return QueryHits(docno, parts[0])
    return QueryHits(docno, *parts)


@pytest.mark.parametrize("mode", list(COMPONENTS))
def test_build_equals_reference(mode):
    corpus = corpus_of(300)
    builder = ResultBuilder(corpus)
    rng = np.random.default_rng(1)
    for k in (0, 1, 6, 40):
        for components in (True, False):
            for _ in range(30):
                hits = random_hits(rng, len(corpus), k, components)
                got = builder.build(hits, mode)
                assert got == reference(corpus.chunks, hits, mode)
                # same types too (JSON output): str / int / float
                for item in got:
                    assert [type(v) for v in item.values()] == [
                        type(v) for v in reference(corpus.chunks, hits, mode)[0].values()]


def test_build_fields_in_result_object_order():
    corpus = corpus_of(20)
    hits = QueryHits(np.array([3, 5]), np.array([0.9, 0.1]), np.array([0.4, 0.2]),
                     np.array([0.5, 0.3]))
    for mode in COMPONENTS:
        got = ResultBuilder(corpus).build(hits, mode)
        ref = reference(corpus.chunks, hits, mode)
        assert [list(g) for g in got] == [list(r) for r in ref]


def test_memo_is_bounded_and_refreshed(monkeypatch):
    monkeypatch.setattr(results, "ROW_MEMO_SIZE", 10)
    corpus = corpus_of(100)
    builder = ResultBuilder(corpus)
    rng = np.random.default_rng(2)
    for _ in range(200):
        hits = random_hits(rng, len(corpus), 7)
        assert builder.build(hits, "hybrid") == reference(corpus.chunks, hits, "hybrid")
        assert len(builder._rows) <= 10
    # a new chunk table (same object replaced) is read afresh
    corpus.chunks = corpus.chunks.assign(path="other.md")
    hits = random_hits(rng, len(corpus), 5)
    assert builder.build(hits, "hybrid") == reference(corpus.chunks, hits, "hybrid")


def test_snippet_method():
    corpus = corpus_of(50)
    builder = ResultBuilder(corpus)
    for d in range(50):
        assert builder.snippet(d) == snippet(corpus.chunks["text"].iloc[d])


def test_no_whole_column_lists():
    """Reading the hit rows keeps no per-chunk Python objects: the builder's memory after a
    query is a small fraction of the texts' (the previous builder held every text)."""
    import tracemalloc

    n = 20_000
    corpus = Corpus.from_texts([f"chunk {i} " + "word " * 80 for i in range(n)])
    builder = ResultBuilder(corpus)
    hits = QueryHits(np.arange(10), np.ones(10), np.ones(10), np.ones(10))
    tracemalloc.start()
    builder.build(hits, "hybrid")
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert current < 0.02 * n * 400, current  # 400+ bytes of text a chunk


SERIES = {
    "str": lambda v: pd.Series(v),
    "object": lambda v: pd.Series(v, dtype=object),
    "python string": lambda v: pd.Series(v, dtype="string[python]"),
    "arrow string": lambda v: pd.Series(v, dtype=pd.ArrowDtype(pa.string())),
    "arrow large string": lambda v: pd.Series(v, dtype=pd.ArrowDtype(pa.large_string())),
    "category": lambda v: pd.Series(v, dtype="category"),
    "chunked arrow": lambda v: pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array(
        [pa.array(v[:3], pa.large_string()), pa.array([], pa.large_string()),
         pa.array(v[3:], pa.large_string())]))),
    "sliced": lambda v: pd.Series(["pad", *v, "pad"]).iloc[1:-1].reset_index(drop=True),
    "with missing": lambda v: pd.Series([*v[:-1], None]),
}


@pytest.mark.parametrize("kind", list(SERIES))
@pytest.mark.parametrize("factorize", [False, True])
def test_column_reader_strings(kind, factorize):
    values = ["a", "é日本😀", "", "bb", "a", "x" * 1000, "z"]
    column = SERIES[kind](values)
    read = column_reader(column, factorize=factorize)
    full = column.tolist()
    rng = np.random.default_rng(3)
    for _ in range(50):
        rows = rng.integers(0, len(column), rng.integers(0, 10)).tolist()
        got = read(rows)
        want = [full[i] for i in rows]
        assert [type(g) for g in got] == [type(w) for w in want]
        assert got == want or all(
            g == w or (g != g and w != w) for g, w in zip(got, want, strict=True))


@pytest.mark.parametrize("dtype", ["int64", "int32", "float64", "bool", "Int64", "object"])
def test_column_reader_numbers(dtype):
    column = pd.Series(np.arange(30) % 7, dtype=dtype)
    strided = pd.DataFrame({"a": column, "b": column}).T.iloc[0].astype(column.dtype)
    for col in (column, strided, column.iloc[::2].reset_index(drop=True)):
        full = col.tolist()
        read = column_reader(col)
        rows = [0, len(col) - 1, 3, 3]
        got = read(rows)
        assert got == [full[i] for i in rows]
        assert [type(g) for g in got] == [type(full[i]) for i in rows]
