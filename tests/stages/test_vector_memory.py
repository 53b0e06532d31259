"""The vector leg holds its document vectors once (in FAISS), whatever the index."""

from __future__ import annotations

import gc
import pickle

import numpy as np
import pandas as pd
import pytest

from memlab.corpus import Corpus
from memlab.embed import CachedEmbedder, EmbeddingCache, EmbeddingProvider
from memlab.kernels.unit import unit_rows
from memlab.stages import vector as vector_module
from memlab.stages.vector import VectorSearch

faiss = pytest.importorskip("faiss")

N, DIMS = 600, 8


class RowProvider(EmbeddingProvider):
    """Text ``d<i>`` gets row ``i`` of a seeded (not unit) matrix; queries a seeded vector."""

    id = "rows"
    model = "rows-v1"

    def __init__(self) -> None:
        rng = np.random.default_rng(7)
        self.rows = rng.standard_normal((N, DIMS)).astype(np.float32) * 3
        self.rows[4] = 0  # an all-zero vector stays zero

    @property
    def dims(self) -> int:
        return DIMS

    def key_settings(self):
        return {"dims": DIMS}

    def embed_documents(self, texts):
        return self.rows[[int(t[1:]) for t in texts]]

    def embed_query(self, text):
        return self.embed_queries([text])[0]

    def embed_queries(self, texts):
        return np.stack([np.random.default_rng(len(t)).standard_normal(DIMS)
                         .astype(np.float32) for t in texts])


def _leg(index: str, **kw) -> VectorSearch:
    corpus = Corpus.from_texts([f"d{i}" for i in range(N)])
    # a file-less cache that is not the stage's own: what the stage itself holds is measured
    emb = CachedEmbedder(RowProvider(), EmbeddingCache(None))
    return VectorSearch(corpus, emb, index=index, depth=10, **kw).fit()


def _arrays_in(leg: VectorSearch) -> list[np.ndarray]:
    return [v for v in vars(leg).values() if isinstance(v, np.ndarray)]


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def test_flat_vectors_are_the_faiss_storage() -> None:
    leg = _leg("Flat")
    view = leg.doc_vectors_
    assert view.dtype == np.float32 and view.shape == (N, DIMS) and not view.flags.writeable
    storage = faiss.rev_swig_ptr(leg.index_.get_xb(), N * DIMS)
    assert _address(view) == _address(storage)  # a view of FAISS' memory, not a copy
    assert not _arrays_in(leg)  # no numpy copy of the vectors on the stage
    expected = unit_rows(RowProvider().rows)
    np.testing.assert_array_equal(view, expected)
    assert not view[4].any()


@pytest.mark.parametrize("index", ["HNSW8", "IVF4,Flat"])
def test_approximate_index_holds_the_only_copy(index: str) -> None:
    exact = _leg("Flat").doc_vectors_.copy()
    leg = _leg(index)
    assert leg.__dict__.get("_flat") is None and not _arrays_in(leg)  # exact copy dropped
    np.testing.assert_array_equal(leg.doc_vectors_, exact)  # given back bit for bit
    if index.startswith("HNSW"):
        storage = faiss.downcast_index(faiss.downcast_index(leg.index_).storage)
        assert _address(leg.doc_vectors_) == _address(
            faiss.rev_swig_ptr(storage.get_xb(), N * DIMS))


def test_lossy_index_keeps_the_exact_vectors() -> None:
    leg = _leg("IVF4,SQ8")
    assert leg.__dict__.get("_flat") is not None
    np.testing.assert_array_equal(leg.doc_vectors_, _leg("Flat").doc_vectors_)


def test_view_outlives_index_changes_and_pickles() -> None:
    leg = _leg("HNSW8")
    view = leg.doc_vectors_
    before = view.copy()
    hits = _leg("Flat")(["q", "query two"])
    for params in ({"index": "Flat"}, {"normalize": False}, {"index": "IVF4,Flat"}):
        leg.set_params(**params).fit()
    gc.collect()
    _ = [np.ones(100_000) for _ in range(20)]  # reuse freed memory, if it were freed
    np.testing.assert_array_equal(view, before)  # the view keeps its index alive
    restored = pickle.loads(pickle.dumps(leg))
    pd.testing.assert_frame_equal(restored(["q"]), leg(["q"]))
    np.testing.assert_array_equal(restored.doc_vectors_, leg.doc_vectors_)
    leg.set_params(index="Flat", normalize=True)  # rebuilt from the IVF lists: same hits
    pd.testing.assert_frame_equal(leg(["q", "query two"]), hits)


def test_blocked_normalisation_equals_one_pass(monkeypatch) -> None:
    one_pass = _leg("Flat").doc_vectors_.copy()
    monkeypatch.setattr(vector_module, "_BLOCK", 7)  # many blocks, a ragged last one
    np.testing.assert_array_equal(_leg("Flat").doc_vectors_, one_pass)
