"""The FAISS vector leg, checked against plain numpy cosine with small fake providers."""

from __future__ import annotations

import hashlib
import pickle
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from memlab.corpus import Corpus
from memlab.embed import CachedEmbedder, EmbeddingProvider, ProviderUnavailable
from memlab.frames import HIT_COLUMNS, Query, check_hits
from memlab.pipeline import Cached
from memlab.stages.vector import VectorSearch


class HashProvider(EmbeddingProvider):
    """Deterministic Gaussian vectors per text (queries and documents alike)."""

    id = "hash"
    model = "hash-v1"

    def __init__(self, dims: int = 16):
        self._dims = dims
        self.doc_calls = 0
        self.docs_embedded = 0
        self.query_batches: list[list[str]] = []

    def key_settings(self) -> dict[str, Any]:
        return {"dims": self._dims}

    @property
    def dims(self) -> int:
        return self._dims

    def vector(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(self._dims).astype(np.float32)

    def embed_documents(self, texts):
        self.doc_calls += 1
        self.docs_embedded += len(texts)
        return np.stack([self.vector(t) for t in texts])

    def embed_query(self, text):
        return self.embed_queries([text])[0]

    def embed_queries(self, texts):
        self.query_batches.append(list(texts))
        return np.stack([self.vector(t) for t in texts])


class TableProvider(HashProvider):
    """Explicit vectors for listed texts, hash vectors otherwise."""

    def __init__(self, table: dict[str, list[float]], dims: int = 3):
        super().__init__(dims)
        self.table = table

    def vector(self, text: str) -> np.ndarray:
        if text in self.table:
            return np.asarray(self.table[text], dtype=np.float32)
        return super().vector(text)


def numpy_cosine(provider: HashProvider, queries: list[str], texts: list[str]) -> np.ndarray:
    q = np.stack([provider.vector(t) for t in queries]).astype(np.float64)
    d = np.stack([provider.vector(t) for t in texts]).astype(np.float64)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    return q @ d.T


def ranked(hits: pd.DataFrame, qid: str) -> list[int]:
    part = hits[hits["qid"] == qid].sort_values("rank")
    assert part["rank"].tolist() == list(range(1, len(part) + 1))
    return part["docno"].tolist()


TEXTS = [f"chunk number {i}" for i in range(80)]
QUERIES = ["first query", "second query", "third", "fourth query", "fifth", "sixth"]


def test_faiss_cosine_equals_numpy_cosine() -> None:
    provider = HashProvider(dims=24)
    leg = VectorSearch(Corpus.from_texts(TEXTS), provider, depth=len(TEXTS))
    hits = leg(QUERIES)
    check_hits(hits)
    expected = numpy_cosine(provider, QUERIES, TEXTS)
    assert len(hits) == len(QUERIES) * len(TEXTS)
    for i, qid in enumerate(hits["qid"].unique()):
        part = hits[hits["qid"] == qid]
        np.testing.assert_allclose(part["vector_score"], expected[i, part["docno"]], atol=1e-6)
    np.testing.assert_array_equal(hits["score"], hits["vector_score"])
    np.testing.assert_allclose(leg.scores_matrix(QUERIES), expected, atol=1e-6)
    assert leg.doc_vectors_.dtype == np.float32 and leg.doc_vectors_.shape == (80, 24)
    np.testing.assert_allclose(np.linalg.norm(leg.doc_vectors_, axis=1), 1.0, atol=1e-6)


@pytest.mark.parametrize("depth", [5, 12, 37, 200])
def test_ranking_matches_numpy_with_ties_by_docno(depth: int) -> None:
    # 37 chunks over 6 distinct texts: every score is tied with several others
    texts = [f"text {i * 5 % 6}" for i in range(37)]
    provider = HashProvider(dims=8)
    leg = VectorSearch(Corpus.from_texts(texts), provider, depth=depth)
    hits = leg(QUERIES)
    uniq = sorted(set(texts))
    by_text = numpy_cosine(provider, QUERIES, uniq)  # one exact score per distinct text
    docnos = np.arange(len(texts))
    for i, qid in enumerate(as_qids(len(QUERIES))):
        scores = np.array([by_text[i, uniq.index(t)] for t in texts])
        expected = np.lexsort((docnos, -scores))[:min(depth, len(texts))]
        assert ranked(hits, qid) == expected.tolist()


def as_qids(n: int) -> list[str]:
    return [str(i + 1) for i in range(n)]


def test_ties_at_the_cutoff_keep_lower_docnos() -> None:
    # docs 2, 5, 7, 9 tie (cos 0.707); doc 8 is best; others are orthogonal or opposite
    table = {"q": [1, 0, 0], "best": [1, 0, 0], "tie": [1, 1, 0], "far": [0, 1, 0],
             "neg": [-1, 0, 0]}
    texts = ["far", "neg", "tie", "far", "neg", "tie", "far", "tie", "best", "tie"]
    corpus = Corpus.from_texts(texts, paths=[f"p{i}.md" for i in range(len(texts))])
    for depth, expected in [(1, [8]), (2, [8, 2]), (3, [8, 2, 5]), (4, [8, 2, 5, 7])]:
        hits = VectorSearch(corpus, TableProvider(table), depth=depth)("q")
        assert hits["docno"].tolist() == expected
    hits = VectorSearch(corpus, TableProvider(table), depth=10)("q")
    assert hits["docno"].tolist() == [8, 2, 5, 7, 9, 0, 3, 6, 1, 4]
    np.testing.assert_allclose(hits["score"], [1] + [2 ** -0.5] * 4 + [0] * 3 + [-1] * 2,
                               atol=1e-6)


def test_hnsw_returns_mostly_the_exact_top_k() -> None:
    texts = [f"doc {i}" for i in range(600)]
    queries = [f"question {i}" for i in range(25)]
    provider = HashProvider(dims=32)
    corpus = Corpus.from_texts(texts)
    exact = VectorSearch(corpus, CachedEmbedder(provider), depth=10)(queries)
    approx_leg = VectorSearch(corpus, CachedEmbedder(provider), index="HNSW32", depth=10)
    approx = approx_leg(queries)
    assert type(approx_leg.index_).__name__.startswith("IndexHNSW")
    recall = [len(set(ranked(exact, q)) & set(ranked(approx, q))) / 10
              for q in as_qids(len(queries))]
    assert np.mean(recall) >= 0.9
    # whatever it returns carries the exact cosine
    cosine = numpy_cosine(provider, queries, texts)
    rows = approx["qid"].astype(int).to_numpy() - 1
    np.testing.assert_allclose(approx["score"], cosine[rows, approx["docno"]], atol=1e-5)


def test_ivf_is_trained_and_exact_when_probing_all_lists() -> None:
    texts = [f"doc {i}" for i in range(300)]
    corpus = Corpus.from_texts(texts)
    provider = HashProvider(dims=16)
    exact = VectorSearch(corpus, provider, depth=20)(QUERIES)
    ivf_leg = VectorSearch(corpus, provider, index="IVF4,Flat", depth=20, index_params="nprobe=4")
    ivf = ivf_leg(QUERIES)
    assert ivf_leg.index_.is_trained and ivf_leg.index_.ntotal == 300
    pd.testing.assert_frame_equal(exact, ivf)
    # probing one list may find fewer than `depth`: still a valid, consecutively ranked frame
    one = VectorSearch(corpus, provider, index="IVF4,Flat", depth=250)(QUERIES)
    check_hits(one)
    assert one["docno"].between(0, 299).all() and not one.duplicated(["qid", "docno"]).any()
    assert one["score"].between(-1, 1).all()
    for qid in as_qids(len(QUERIES)):
        assert 0 < len(ranked(one, qid)) <= 250


def test_untrainable_index_is_a_clear_error() -> None:
    leg = VectorSearch(Corpus.from_texts(TEXTS[:10]), HashProvider(), index="IVF64,Flat")
    with pytest.raises(ValueError, match="could not be trained on the corpus' 10 vectors"):
        leg("query")
    with pytest.raises(ValueError, match="invalid FAISS index factory string"):
        VectorSearch(Corpus.from_texts(TEXTS[:10]), HashProvider(), index="Bogus99")("query")


def test_zero_vector_and_empty_queries_get_no_hits() -> None:
    provider = TableProvider({"zero": [0, 0, 0]})
    leg = VectorSearch(Corpus.from_texts(TEXTS[:5]), provider)
    queries = pd.DataFrame({"qid": ["z", "e", "w", "r", "r2"],
                            "query": ["zero", "", "  \n ", "  real  ", "real"]})
    hits = leg(queries)
    assert sorted(hits["qid"].unique()) == ["r", "r2"]
    assert ranked(hits, "r") == ranked(hits, "r2")  # the query is trimmed
    assert hits.loc[hits["qid"] == "r", "query"].iloc[0] == "  real  "  # carried unchanged
    assert provider.query_batches == [["zero", "real"]]  # one batch; blanks never embedded
    matrix = leg.scores_matrix(queries)
    assert matrix.shape == (5, 5) and not matrix[:3].any() and matrix[3:].any()
    assert leg(pd.DataFrame({"qid": ["a"], "query": [""]})).empty


def test_depth_larger_than_corpus_and_invalid_depth() -> None:
    corpus = Corpus.from_texts(TEXTS[:5])
    hits = VectorSearch(corpus, HashProvider(), depth=1000)(["a", "b"])
    assert hits.groupby("qid").size().tolist() == [5, 5]
    assert len(VectorSearch(corpus, HashProvider(), depth=1)(["a", "b"])) == 2
    with pytest.raises(ValueError, match="depth"):
        VectorSearch(corpus, HashProvider(), depth=0)("a")


def test_lazy_build_and_no_re_embedding() -> None:
    provider = HashProvider()
    leg = VectorSearch(Corpus.from_texts(TEXTS), provider, depth=5)
    assert provider.doc_calls == 0 and not hasattr(leg, "doc_vectors_")
    first = leg(QUERIES)
    assert (provider.doc_calls, provider.docs_embedded) == (1, 80)
    assert len(provider.query_batches) == 1 and len(provider.query_batches[0]) == len(QUERIES)
    pd.testing.assert_frame_equal(leg(QUERIES), first)
    assert provider.doc_calls == 1 and len(provider.query_batches) == 1  # queries cached too
    leg.set_params(index="HNSW32", depth=3)
    assert len(leg(QUERIES)) == 3 * len(QUERIES)
    assert type(leg.index_).__name__.startswith("IndexHNSW") and provider.doc_calls == 1
    leg.set_params(normalize=False)
    leg(QUERIES)
    assert provider.doc_calls == 1  # vectors rebuilt from the embedder's cache
    assert not np.allclose(np.linalg.norm(leg.doc_vectors_, axis=1), 1.0)


def test_normalize_false_scores_inner_products() -> None:
    provider = HashProvider(dims=6)
    leg = VectorSearch(Corpus.from_texts(TEXTS[:20]), provider, normalize=False, depth=20)
    hits = leg("q")
    d = np.stack([provider.vector(t) for t in TEXTS[:20]])
    expected = d.astype(np.float64) @ provider.vector("q").astype(np.float64)
    np.testing.assert_allclose(hits["score"], expected[hits["docno"]], atol=1e-5)
    assert (np.diff(hits["score"]) <= 0).all()


def test_contract_empty_corpus_and_params() -> None:
    corpus = Corpus.from_texts(TEXTS[:8])
    leg = VectorSearch(corpus, HashProvider(), depth=3)
    hits = leg("hello")
    assert list(hits.columns[:len(HIT_COLUMNS)]) == HIT_COLUMNS
    assert {"vector_score", "query"} <= set(hits.columns)
    assert hits["path"].tolist() == corpus.chunks["path"].iloc[hits["docno"]].tolist()
    empty = VectorSearch(Corpus.from_texts([]), HashProvider())(["a", "b"])
    assert empty.empty and "vector_score" in empty.columns
    assert set(leg.get_params()) == {"corpus", "embedder", "index", "depth", "normalize",
                                     "index_params"}
    copy = clone(leg)
    assert copy.depth == 3 and not hasattr(copy, "doc_vectors_")
    pd.testing.assert_frame_equal(copy("hello"), hits)
    restored = pickle.loads(pickle.dumps(leg))  # FAISS index dropped, rebuilt lazily
    pd.testing.assert_frame_equal(restored("hello"), hits)
    assert "VectorSearch(" in repr(leg)


def test_cached_wrapper_and_fail_closed_provider() -> None:
    provider = HashProvider()
    leg = Cached(VectorSearch(Corpus.from_texts(TEXTS), provider, depth=4))
    a = leg(["x", "y"])
    b = leg(pd.DataFrame({"qid": ["9"], "query": ["y"]}))
    assert b["docno"].tolist() == a.loc[a["qid"] == "2", "docno"].tolist()
    with pytest.raises(ProviderUnavailable):
        VectorSearch(Corpus.from_texts(TEXTS), "none")("x")


def test_single_query_path_follows_changed_params_and_corpus() -> None:
    """The array path's built-state check sees a new index, normalisation or corpus."""
    provider = HashProvider()
    leg = VectorSearch(Corpus.from_texts(TEXTS), provider, depth=5)
    first = leg.transform_query(Query(QUERIES[0]))
    leg.set_params(index="HNSW32")
    leg.transform_query(Query(QUERIES[0]))
    assert type(leg.index_).__name__.startswith("IndexHNSW")
    leg.set_params(index="Flat", normalize=False)
    raw = leg.transform_query(Query(QUERIES[0]))
    assert not np.array_equal(raw.score, first.score)
    leg.set_params(normalize=True, corpus=Corpus.from_texts(TEXTS[:3]))
    small = leg.transform_query(Query(QUERIES[0]))
    assert len(small.docno) == 3 and leg.vectors_shape_[0] == 3
    revived = pickle.loads(pickle.dumps(leg))
    np.testing.assert_array_equal(revived.transform_query(Query(QUERIES[0])).docno,
                                  small.docno)
