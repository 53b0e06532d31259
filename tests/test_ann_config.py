"""memlab.vectorIndex + memlab.vectorIndexParams: an ANN FAISS index chosen in config reaches
the vector leg with its search parameter (IVF nprobe / HNSW efSearch)."""

from __future__ import annotations

import pytest

from memlab.config import ConfigError, load_config
from memlab.corpus import Corpus
from memlab.embed.hashing import HashingProvider
from memlab.openclaw import openclaw_pipeline
from memlab.stages.vector import VectorSearch

faiss = pytest.importorskip("faiss")


def vector_stages(stage):
    found = []

    def walk(obj, depth=0):
        if depth > 6:
            return
        if isinstance(obj, VectorSearch):
            found.append(obj)
            return
        for value in getattr(obj, "__dict__", {}).values():
            for item in value if isinstance(value, list | tuple) else [value]:
                if hasattr(item, "__dict__") and not isinstance(item, type):
                    walk(item, depth + 1)

    walk(stage)
    return found


def test_vector_index_params_reach_the_vector_leg():
    cfg = load_config({"memlab": {"vectorIndex": "IVF4,Flat", "vectorIndexParams": "nprobe=4"}})
    assert cfg.memlab.vector_index_params == "nprobe=4"
    texts = [f"note {i} about deploy key {i % 7} and lunch {i % 3}" for i in range(200)]
    corpus = Corpus.from_texts(texts)
    pipe = openclaw_pipeline(corpus, cfg, embedder=HashingProvider(dims=64))
    legs = vector_stages(pipe)
    assert legs and all(v.index == "IVF4,Flat" and v.index_params == "nprobe=4" for v in legs)
    # nprobe = nlist searches every list: the same hits as the exact index
    ann = VectorSearch(corpus, HashingProvider(dims=64), index="IVF4,Flat",
                       index_params="nprobe=4", depth=10)
    exact = VectorSearch(corpus, HashingProvider(dims=64), depth=10)
    q = "deploy key 3 lunch"
    assert ann(q)["docno"].tolist() == exact(q)["docno"].tolist()


def test_vector_index_params_default_and_validation():
    assert load_config({}).memlab.vector_index_params is None
    with pytest.raises(ConfigError):
        load_config({"memlab": {"vectorIndexParams": ""}})
