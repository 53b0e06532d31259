"""Fixtures of the tuning tests: the sample memory dataset and a fast fake embedder."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memlab.embed.base import EmbeddingProvider

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "datasets" / "sample-memory"
BEIR_MINI = ROOT / "tests" / "data" / "beir-mini"


class BowProvider(EmbeddingProvider):
    """Deterministic hashed bag-of-words vectors: similar texts get similar vectors, so the
    vector leg ranks sensibly without loading a model."""

    id = "bow"
    model = "bow-v1"

    def key_settings(self) -> dict[str, Any]:
        return {"dims": 64}

    @property
    def dims(self) -> int:
        return 64

    def _vector(self, text: str) -> np.ndarray:
        v = np.zeros(64, dtype=np.float32)
        for tok in re.findall(r"[a-z0-9]+", text.lower()):
            h = int.from_bytes(hashlib.md5(tok.encode()).digest()[:4], "little")
            v[h % 64] += 1.0
        v[0] += 0.01
        return v

    def embed_documents(self, texts):
        return np.stack([self._vector(t) for t in texts])

    def embed_query(self, text):
        return self._vector(text)


class CountingProvider(BowProvider):
    """:class:`BowProvider` that counts the document texts it embeds (thread-safe)."""

    def __init__(self) -> None:
        import threading

        self._lock = threading.Lock()
        self.texts = 0
        self.calls = 0

    def __getstate__(self) -> dict[str, Any]:
        return {"texts": self.texts, "calls": self.calls}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()
        self.texts, self.calls = state["texts"], state["calls"]

    def embed_documents(self, texts):
        with self._lock:
            self.texts += len(texts)
            self.calls += 1
        return super().embed_documents(texts)


@pytest.fixture(scope="session")
def sample_dataset():
    from memlab.eval.datasets import load_dataset

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_dataset(SAMPLE)


@pytest.fixture(scope="session")
def bow() -> BowProvider:
    return BowProvider()


def subset(dataset, n: int):
    """The first ``n`` queries of a memory dataset (and their judgments)."""
    queries = dataset.queries.iloc[:n].reset_index(drop=True)
    qrels = dataset.qrels[dataset.qrels["qid"].isin(queries["qid"])].reset_index(drop=True)
    return dataclasses.replace(dataset, queries=queries, qrels=qrels)


@pytest.fixture(scope="session")
def small_dataset(sample_dataset):
    return subset(sample_dataset, 32)


@pytest.fixture(scope="session")
def tiny_dataset(sample_dataset):
    return subset(sample_dataset, 16)


@pytest.fixture(scope="session")
def beir_mini():
    """The tests/data/beir-mini collection (its one unpadded qrels id kept, as for CACM)."""
    from memlab.eval.datasets import load_dataset

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_dataset(BEIR_MINI, unknown_ids="keep")


@pytest.fixture(scope="session")
def engine(small_dataset, bow):
    from memlab.tune.sweep import SweepEngine

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SweepEngine(small_dataset, embedder=bow)


@pytest.fixture
def counting() -> CountingProvider:
    """A fresh counting embedder."""
    return CountingProvider()
