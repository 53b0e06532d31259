"""Shared test fixtures: small corpora and a leg that returns fixed candidates."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pandas as pd
import pytest

from memlab import secrets
from memlab.corpus import Corpus
from memlab.frames import build_hits
from memlab.pipeline import Stage

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Indexes and embedding caches made by tests go to a scratch folder, never to ~/.cache.
os.environ["MEMLAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="memlab-tests-")


@pytest.fixture(autouse=True)
def _secrets_registered_by_one_test_stay_in_it():
    """The scrub registry is process-wide: a secret one test configures must not mask words in
    the messages a later test checks."""
    with secrets.scoped():
        yield


class StaticLeg(Stage):
    """A retriever returning fixed ``(docno, score)`` lists per query text."""

    def __init__(self, corpus: Corpus, results: dict, score_column: str = "text_score",
                 boosted: dict | None = None):
        self.corpus = corpus
        self.results = results
        self.score_column = score_column
        self.boosted = boosted

    def transform(self, queries: pd.DataFrame) -> pd.DataFrame:
        per_query = []
        for text in queries["query"]:
            pairs = self.results.get(text, [])
            per_query.append((np.array([d for d, _ in pairs], dtype=np.int64),
                              np.array([s for _, s in pairs], dtype=np.float64)))
        hits = build_hits(queries, self.corpus.chunks, per_query, self.score_column)
        if self.boosted is not None:
            hits["boosted_score"] = [self.boosted[d] for d in hits["docno"]]
        self.calls = getattr(self, "calls", 0) + 1
        return hits


@pytest.fixture
def static_leg():
    return StaticLeg


@pytest.fixture
def tiny_corpus() -> Corpus:
    texts = [f"chunk number {i} about topic {i % 3}" for i in range(8)]
    paths = ["MEMORY.md", "memory/2026-01-01.md", "memory/2026-01-31.md", "memory/notes.md",
             "memory/2026-03-02.md", "memory/2026-01-01-retro.md", "other/x.md", "memory/y.md"]
    return Corpus.from_texts(texts, paths)


# conftest.py files hold fixtures, not doctests; with --doctest-modules pytest would import
# each one again as a module named "conftest" and stop on the clash ("import file mismatch")
# when two folders are collected in one run (e.g. `pytest tests/index tests/embed`).
collect_ignore_glob = ["*/conftest.py"]
