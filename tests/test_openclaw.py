"""OpenClaw's pipeline for a config: the stages wired with the reference's numbers."""

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from memlab.config import load_config
from memlab.corpus import Corpus
from memlab.embed.base import EmbeddingProvider
from memlab.frames import as_queries
from memlab.openclaw import keyword_leg, openclaw_pipeline

# cosine of each document with the query vector [1, 0]
COSINES = {"alpha report": 0.9, "alpha beta": 0.5, "gamma": 0.8, "beta alpha gamma": 0.2}
PATHS = ["memory/2026-01-01.md", "MEMORY.md", "memory/notes.md", "memory/2026-01-31.md"]


class AngleProvider(EmbeddingProvider):
    """2-d vectors whose cosine with the query is set by hand."""

    id = "angle"
    model = "angle-v1"

    def key_settings(self) -> dict[str, Any]:
        return {}

    @property
    def dims(self) -> int:
        return 2

    def embed_documents(self, texts):
        return np.array([[COSINES[t], math.sqrt(1 - COSINES[t] ** 2)] for t in texts],
                        dtype=np.float32)

    def embed_query(self, text):
        return np.array([1.0, 0.0], dtype=np.float32)


@pytest.fixture
def corpus():
    return Corpus.from_texts(list(COSINES), PATHS)


def text_scores(corpus, query="alpha"):
    hits = keyword_leg(corpus, load_config({"provider": "angle"}))(query)
    return dict(zip(hits["docno"], hits["text_score"], strict=True))


def run(corpus, config, query="alpha", **kw):
    pipe = openclaw_pipeline(corpus, config, AngleProvider(), **kw)
    return pipe.transform(as_queries([query]).assign(now=pd.Timestamp("2026-01-31", tz="UTC")))


def test_hybrid_defaults(corpus):
    ts = text_scores(corpus)
    hits = run(corpus, {"provider": "angle"})
    expected = {d: 0.7 * c + 0.3 * ts.get(d, 0.0) for d, c in enumerate(COSINES.values())}
    kept = {d: s for d, s in expected.items() if s >= 0.35}
    assert hits["docno"].tolist() == sorted(kept, key=lambda d: -kept[d])
    np.testing.assert_allclose(hits["score"], sorted(kept.values(), reverse=True), atol=1e-6)
    np.testing.assert_allclose(hits["vector_score"],
                               [list(COSINES.values())[d] for d in hits["docno"]], atol=1e-6)


def test_candidate_pool_and_max_results(corpus):
    # maxResults 1 x multiplier 1 = 1 candidate per leg: the best cosine (doc 0) and the best
    # keyword hit are merged, nothing else
    hits = run(corpus, {"provider": "angle", "query": {"hybrid": {"candidateMultiplier": 1}}},
               max_results=1, min_score=0)
    assert hits["docno"].tolist() == [0]
    pool = run(corpus, {"provider": "angle"}, max_results=1, min_score=0)
    assert len(pool) == 1


def test_relaxed_keyword_fallback(corpus):
    hits = run(corpus, {"provider": "angle", "query": {"minScore": 0.99}})
    # nothing reaches 0.99; keyword hits exist, so the keyword-backed entries come back
    assert set(hits["docno"]) == set(text_scores(corpus))
    assert hits["keyword_hit"].all()


def test_keyword_only_mode(corpus):
    pipe = openclaw_pipeline(corpus, {"provider": "none"}, max_results=10, min_score=0)
    hits = pipe("alpha")
    assert set(hits["docno"]) == set(text_scores(corpus))
    np.testing.assert_allclose(hits["score"], hits["boosted_score"])
    assert (hits["score"].diff().dropna() <= 0).all()


def test_vector_only_mode(corpus):
    hits = run(corpus, {"provider": "angle", "query": {"hybrid": {"enabled": False}}})
    # plain cosine cut at minScore 0.35: 0.9, 0.8, 0.5
    assert hits["docno"].tolist() == [0, 2, 1]
    np.testing.assert_allclose(hits["score"], [0.9, 0.8, 0.5], atol=1e-6)


def test_decay_and_mmr_are_wired(corpus):
    cfg = {"provider": "angle", "query": {"minScore": 0, "hybrid": {
        "temporalDecay": {"enabled": True, "halfLifeDays": 30}, "mmr": {"enabled": True}}}}
    hits = run(corpus, cfg)
    scores = dict(zip(hits["docno"], hits["score"], strict=True))
    ts = text_scores(corpus)
    # doc 0 is dated 2026-01-01: 30 days before `now`, so its merged score halves
    assert scores[0] == pytest.approx(0.5 * (0.7 * 0.9 + 0.3 * ts[0]), abs=1e-6)
    # doc 3 is dated on `now` itself; docs 1 and 2 are evergreen
    assert scores[2] == pytest.approx(0.7 * 0.8, abs=1e-6)
    pipe = openclaw_pipeline(corpus, cfg, AngleProvider())
    names = [type(s).__name__ for s in pipe.stages]
    assert names == ["Fusion", "TemporalDecay", "MMR", "Threshold"]
    assert pipe.get_params()["mmr__lambda_"] == 0.7
