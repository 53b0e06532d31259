"""Fixtures of the tuning tests: the sample memory dataset and a fast fake embedder."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path
from typing import Any

import pytest

from memlab.embed.hashing import HashingProvider

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "datasets" / "sample-memory"
BEIR_MINI = ROOT / "tests" / "data" / "beir-mini"




class CountingProvider(HashingProvider):
    """:class:`HashingProvider` whose document counters (``texts``, ``calls``) are
    thread-safe and survive pickling (dask workers)."""

    def __init__(self) -> None:
        import threading

        super().__init__()
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        import threading

        self.__dict__.update(state)
        self._lock = threading.Lock()

    def embed_documents(self, texts):
        with self._lock:
            return super().embed_documents(texts)


@pytest.fixture(scope="session")
def sample_dataset():
    from memlab.eval.datasets import load_dataset

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_dataset(SAMPLE)


@pytest.fixture(scope="session")
def bow() -> HashingProvider:
    return HashingProvider()


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
