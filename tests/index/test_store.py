"""The index file: schema (OpenClaw's table names), writes, snapshots, vector arithmetic."""

from __future__ import annotations

import os
import pickle
import sqlite3

import numpy as np
import pandas as pd
import pytest

from memlab.corpus import Corpus
from memlab.index import IndexStore, IndexVectorSearch, check_sqlite, default_index_path
from memlab.index.store import (
    CHUNKS_TABLE,
    FTS_TABLE,
    META_TABLE,
    MIN_SQLITE_VERSION,
    SOURCES_TABLE,
    STATE_TABLE,
    VECTOR_TABLE,
    ChunkRow,
)
from memlab.index.vectors import js_cosine, knn_l2, parity_cosine


def test_this_sqlite_has_fts5_and_trigram():
    version = tuple(int(p) for p in sqlite3.sqlite_version.split("."))
    assert version >= MIN_SQLITE_VERSION, (
        f"memlab's index needs SQLite >= 3.34 (FTS5 trigram); this Python has "
        f"{sqlite3.sqlite_version}")
    check_sqlite()


def _tables(store: IndexStore) -> dict[str, str]:
    return dict(store.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"))


@pytest.mark.parametrize("tokenizer, clause", [("unicode61", None),
                                               ("trigram", "trigram case_sensitive 0")])
def test_schema_mirrors_openclaw(tmp_path, tokenizer, clause):
    store = IndexStore(tmp_path / "i.sqlite", fts_tokenizer=tokenizer)
    tables = _tables(store)
    for name in (META_TABLE, SOURCES_TABLE, CHUNKS_TABLE, FTS_TABLE, VECTOR_TABLE, STATE_TABLE):
        assert name in tables
    assert (META_TABLE, SOURCES_TABLE, CHUNKS_TABLE, FTS_TABLE) == (
        "memory_index_meta", "memory_index_sources", "memory_index_chunks",
        "memory_index_chunks_fts")
    fts = tables[FTS_TABLE]
    assert "fts5" in fts and "id UNINDEXED" in fts and "end_line UNINDEXED" in fts
    assert (clause in fts) if clause else ("tokenize" not in fts)
    assert store.fts_tokenizer == tokenizer
    assert store.execute("PRAGMA journal_mode")[0][0] == "wal"
    cols = [r[1] for r in store.execute(f"PRAGMA table_info({SOURCES_TABLE})")]
    assert cols == ["path", "source", "hash", "mtime", "size"]
    cols = [r[1] for r in store.execute(f"PRAGMA table_info({CHUNKS_TABLE})")]
    assert cols == ["id", "path", "source", "start_line", "end_line", "hash", "model", "text",
                    "updated_at"]
    store.close()
    # reopening with another tokenizer keeps the table as built
    other = "trigram" if tokenizer == "unicode61" else "unicode61"
    assert IndexStore(tmp_path / "i.sqlite", fts_tokenizer=other).fts_tokenizer == tokenizer


def _rows(path: str, texts: list[str], model: str = "m") -> list[ChunkRow]:
    return [ChunkRow(f"{path}#{i}", path, "memory", i + 1, i + 1, f"h{i}", model, t)
            for i, t in enumerate(texts)]


def test_writes_snapshots_and_consistency(tmp_path):
    store = IndexStore(tmp_path / "i.sqlite")
    assert not store.has_chunks() and store.vectors() is None
    r0 = store.revision()
    vecs = np.arange(6, dtype=np.float32).reshape(3, 2)
    with store.write():
        store.write_file("a.md", "memory", "ha", 1000, 10, _rows("a.md", ["x y", "z"]), vecs[:2])
        store.write_file("b.md", "memory", "hb", 2000, 20, _rows("b.md", ["w"]), vecs[2:])
    assert store.revision() > r0
    corpus = store.corpus()
    assert corpus is store.corpus()  # cached until the index changes
    assert corpus.chunks["chunk_id"].tolist() == ["a.md#0", "a.md#1", "b.md#0"]
    assert corpus.files["mtime_ms"].tolist() == [1000, 2000]
    np.testing.assert_array_equal(store.vectors(), vecs)
    assert store.ids_to_docnos() == {"a.md#0": 0, "a.md#1": 1, "b.md#0": 2}
    assert store.check_consistency() == []
    assert store.counts() == {"memory": {"files": 2, "chunks": 3}}
    # rewriting a file moves its rows to the end (OpenClaw's delete + insert)
    with store.write():
        store.write_file("a.md", "memory", "ha2", 3000, 11, _rows("a.md", ["x y z"]), vecs[:1])
    new = store.corpus()
    assert new is not corpus
    assert new.chunks["chunk_id"].tolist() == ["b.md#0", "a.md#0"]
    np.testing.assert_array_equal(store.vectors(), vecs[[2, 0]])
    assert store.source_hashes() == {"a.md": "ha2", "b.md": "hb"}
    fts = store.execute(f"SELECT rowid, id FROM {FTS_TABLE} ORDER BY rowid")
    chunks = store.execute(f"SELECT rowid, id FROM {CHUNKS_TABLE} ORDER BY rowid")
    assert fts == chunks and store.check_consistency() == []
    with store.write():
        store.delete_file("b.md")
    assert store.corpus().chunks["path"].tolist() == ["a.md"]
    assert store.check_consistency() == []
    # a failed transaction changes nothing
    with pytest.raises(RuntimeError), store.write():
        store.delete_file("a.md")
        raise RuntimeError("boom")
    assert store.counts() == {"memory": {"files": 1, "chunks": 1}}


def test_pin_freezes_the_snapshot(tmp_path):
    store = IndexStore(tmp_path / "i.sqlite")
    with store.write():
        store.write_file("a.md", "memory", "h", 0, 1, _rows("a.md", ["one"]))
    pinned = store.pin()
    other = IndexStore(tmp_path / "i.sqlite")  # another writer (another process, say)
    with other.write():
        other.write_file("b.md", "memory", "h", 0, 1, _rows("b.md", ["two"]))
    assert store.corpus() is pinned and len(store.corpus()) == 1
    store.unpin()
    assert len(store.corpus()) == 2


def test_inconsistencies_are_reported(tmp_path):
    store = IndexStore(tmp_path / "i.sqlite")
    with store.write():
        store.write_file("a.md", "memory", "h", 0, 1, _rows("a.md", ["one", "two"]),
                         np.ones((2, 3), dtype=np.float32))
    with store.write() as c:
        c.execute(f"DELETE FROM {FTS_TABLE} WHERE id = 'a.md#1'")
        c.execute(f"DELETE FROM {VECTOR_TABLE} WHERE id = 'a.md#0'")
    problems = " / ".join(store.check_consistency())
    assert "chunks missing from FTS" in problems and "without a vector" in problems


def test_from_corpus_keeps_docnos_even_with_repeated_ids():
    chunks = pd.DataFrame({"chunk_id": ["same", "same", "other"], "path": ["a.md"] * 3,
                           "source": "memory", "start_line": [1, 1, 2], "end_line": [1, 1, 2],
                           "text": ["xxxx", "xxxx", "yy"], "hash": ["h", "h", "g"]})
    corpus = Corpus(chunks=chunks)
    store = IndexStore.from_corpus(corpus)
    assert store.corpus() is corpus
    assert store.ids_to_docnos() == {"0": 0, "1": 1, "2": 2}
    assert store.execute(f"SELECT COUNT(*) FROM {FTS_TABLE}")[0][0] == 3


def test_lock_is_the_one_reads_and_statements_hold():
    """``lock`` is re-entrant and held by :meth:`IndexStore.read`: another thread cannot take
    it meanwhile, so statements run under it form one unit."""
    import threading

    store = IndexStore.from_corpus(Corpus.from_texts(["alpha", "beta"]))
    taken: list[bool] = []

    def try_lock() -> None:
        taken.append(store.lock.acquire(blocking=False))

    with store.read():
        with store.lock:  # re-entrant
            assert store.execute(f"SELECT COUNT(*) FROM {FTS_TABLE}")[0][0] == 2
        worker = threading.Thread(target=try_lock)
        worker.start()
        worker.join()
    assert taken == [False]
    assert store.lock.acquire(blocking=False)
    store.lock.release()


def test_default_index_path(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLAB_CACHE_DIR", str(tmp_path / "cache"))
    ws = tmp_path / "ws"
    ws.mkdir()
    os.symlink(ws, tmp_path / "alias")
    path = default_index_path(ws)
    assert path.parent == tmp_path / "cache" / "index" and path.suffix == ".sqlite"
    assert default_index_path(tmp_path / "alias") == path  # realpath
    assert default_index_path(tmp_path) != path
    monkeypatch.delenv("MEMLAB_CACHE_DIR")
    assert str(default_index_path(ws)).startswith(os.path.expanduser("~/.cache/memlab/index/"))


def test_store_pickles_by_path(tmp_path):
    store = IndexStore(tmp_path / "i.sqlite", fts_tokenizer="trigram")
    copy = pickle.loads(pickle.dumps(store))
    assert copy.path == store.path and copy.fts_tokenizer == "trigram"
    with pytest.raises(TypeError):
        pickle.dumps(IndexStore())


# -- vector arithmetic -----------------------------------------------------------------------

# Values printed by sqlite-vec 0.1.9 (vec_distance_cosine, Node 24's node:sqlite) for these
# float32 vectors, as `1 - distance` the way OpenClaw computes vectorScore.
_Q = [0.1, -0.7, 0.3, 0.9, -0.25]
_DOCS = [[0.3, -0.2, 0.8, 0.1, 0.05], [-1.5, 2.25, 0.125, 3.0, -0.5], _Q,
         [1e-3, 2e-3, -5e-4, 7e-3, 1e-4]]
_SQLITE_VEC = [0.45570576190948486, 0.23101264238357544, 0.9999999999999999,
               0.5416384935379028]


def test_parity_cosine_is_bit_exact_with_sqlite_vec():
    assert parity_cosine(_Q, _DOCS).tolist() == _SQLITE_VEC
    # a plain double-precision cosine differs in the last digits
    assert js_cosine(_Q, _DOCS).tolist() != _SQLITE_VEC
    assert np.allclose(js_cosine(_Q, _DOCS), _SQLITE_VEC, atol=1e-6)


def _reference(q: np.ndarray, d: np.ndarray) -> float:
    """distance_cosine_float, transcribed literally with numpy float32 scalars."""
    dot = amag = bmag = np.float32(0)
    for a, b in zip(d, q, strict=True):
        dot = np.float32(dot + np.float32(a * b))
        amag = np.float32(amag + np.float32(a * a))
        bmag = np.float32(bmag + np.float32(b * b))
    dist = np.float32(1.0 - float(dot) / (np.sqrt(float(amag)) * np.sqrt(float(bmag))))
    return 1.0 - float(dist)


def test_parity_cosine_matches_the_c_loop_on_random_vectors():
    rng = np.random.default_rng(0)
    docs = rng.standard_normal((50, 37)).astype(np.float32) * rng.uniform(
        0.001, 1000, (50, 1)).astype(np.float32)
    q = rng.standard_normal(37).astype(np.float32)
    assert parity_cosine(q, docs).tolist() == [_reference(q, d) for d in docs]
    zero = parity_cosine(q, np.zeros((1, 37), dtype=np.float32))
    assert np.isnan(zero[0])  # sqlite-vec's NaN, which SQLite returns as NULL


def _vector_store(doc_vecs: np.ndarray) -> IndexStore:
    texts = [f"doc {i}" for i in range(len(doc_vecs))]
    return IndexStore.from_corpus(Corpus.from_texts(texts), vectors=doc_vecs)


def _leg(store, q, depth=24, metric="sqlite-vec"):
    from memlab.embed.base import EmbeddingProvider

    class Fixed(EmbeddingProvider):
        id = "fixed"
        model = "fixed-1"

        def embed_documents(self, texts):
            raise AssertionError("the index already holds the vectors")

        def embed_query(self, text):
            return np.asarray(q, dtype=np.float32)

        @property
        def dims(self):
            return len(q)

        def key_settings(self):
            return {}

    return IndexVectorSearch(store, Fixed(), depth=depth, metric=metric)


def test_vector_leg_scores_and_order():
    store = _vector_store(np.array(_DOCS, dtype=np.float32))
    hits = _leg(store, _Q)("anything")
    assert hits["docno"].tolist() == [2, 3, 0, 1]
    assert hits["vector_score"].tolist() == sorted(_SQLITE_VEC, reverse=True)
    assert (hits["score"] == hits["vector_score"]).all()
    assert _leg(store, _Q, depth=2)("x")["docno"].tolist() == [2, 3]
    assert _leg(store, [0, 0, 0, 0, 0])("x").empty  # all-zero query vector: skipped
    assert _leg(store, _Q)("   ").empty


def test_zero_document_vector_sorts_first_with_score_one():
    """NaN distance -> SQL NULL: first in ORDER BY dist ASC, and 1 - null = 1 in JavaScript."""
    docs = np.array([[1, 0], [0, 0], [0.5, 0.5]], dtype=np.float32)
    hits = _leg(_vector_store(docs), [1, 0])("x")
    assert hits["docno"].tolist() == [1, 0, 2]
    assert hits["vector_score"].tolist()[:2] == [1.0, 1.0]
    # OpenClaw's fallback without sqlite-vec scores a zero vector 0
    js = _leg(_vector_store(docs), [1, 0], metric="js")("x")
    assert js["docno"].tolist() == [0, 2, 1] and js["vector_score"].iloc[-1] == 0.0


def test_knn_preselection_uses_l2_like_sqlite_vec():
    """k = 8 x depth nearest by L2 are re-ranked by cosine: a perfectly aligned but distant
    vector outside the k nearest is never seen, as in OpenClaw."""
    near = np.array([[1.0, 0.8 + 0.01 * i] for i in range(8)], dtype=np.float32)
    far = np.array([[1000.0, 0.0]], dtype=np.float32)  # cosine 1 with the query
    docs = np.vstack([near, far])
    q = np.array([1.0, 0.0], dtype=np.float32)
    assert knn_l2(q, docs, 8).tolist() == list(range(8))
    hits = _leg(_vector_store(docs), q, depth=1)("x")
    assert hits["docno"].tolist() == [0]
    wide = _leg(_vector_store(docs), q, depth=2)("x")  # k = 16 >= 9 rows: all seen
    assert wide["docno"].tolist()[0] == 8 and wide["vector_score"].iloc[0] == 1.0


def test_from_corpus_to_a_file_searches_like_the_in_memory_table(tmp_path):
    from memlab.openclaw import MemorySearch

    texts = ["alpha beta gamma", "beta delta", "gamma epsilon alpha", "zeta eta", "alpha"]
    corpus = Corpus.from_texts(texts, [f"memory/2026-01-0{i + 1}.md" for i in range(5)])
    path = tmp_path / "fts.sqlite"
    store = IndexStore.from_corpus(corpus, path=path)
    assert path.is_file() and not store.in_memory and store.corpus() is corpus
    config = {"memorySearch": {"provider": "none"}, "memlab": {"keyword": "fts5"}}
    on_file = MemorySearch.from_corpus(corpus, config, store=store)
    in_memory = MemorySearch.from_corpus(corpus, config)
    assert on_file.pipeline().stages[0].text.stage.index is store
    # "alpha beta" matches with AND; "alpha zeta" finds nothing and runs the keyword fallback
    for query in ("alpha beta", "alpha zeta", "gamma", "nothing here"):
        assert on_file.search(query) == in_memory.search(query), query
    assert on_file.search("alpha zeta")["results"]
    with pytest.raises(FileExistsError, match="exists"):
        IndexStore.from_corpus(corpus, path=path)
