"""Fixtures for the index tests: a counting fake provider, small workspaces, a private cache."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

# The fake provider is defined as source text so that subprocesses (crash and lock tests)
# build exactly the same provider: same id, model and settings key, hence the same identity.
FAKE_PROVIDER_SOURCE = '''
import hashlib
import time

import numpy as np

from memlab.embed.base import EmbeddingProvider


class FakeProvider(EmbeddingProvider):
    """Deterministic vectors per text; counts calls and texts; optionally slow."""

    id = "fake"

    def __init__(self, model="fake-1", dims=8, delay=0.0):
        self.model = model
        self._dims = dims
        self.delay = delay
        self.calls = 0
        self.texts = []
        self.query_calls = 0

    def key_settings(self):
        return {"dims": self._dims}

    @property
    def dims(self):
        return self._dims

    def _vec(self, text):
        seed = int.from_bytes(hashlib.sha256(f"{self.model}|{text}".encode()).digest()[:8],
                              "little")
        return np.random.default_rng(seed).standard_normal(self._dims).astype(np.float32)

    def embed_documents(self, texts):
        if self.delay:
            time.sleep(self.delay)
        self.calls += 1
        self.texts.extend(texts)
        return np.stack([self._vec(t) for t in texts])

    def embed_query(self, text):
        return self.embed_queries([text])[0]

    def embed_queries(self, texts):
        self.query_calls += 1
        return np.stack([self._vec(t) for t in texts])
'''

_module = types.ModuleType("memlab_test_fakes")
exec(compile(FAKE_PROVIDER_SOURCE, "memlab_test_fakes", "exec"), _module.__dict__)
sys.modules["memlab_test_fakes"] = _module
FakeProvider = _module.FakeProvider


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Keep default index and embedding-cache files out of the user's ~/.cache."""
    monkeypatch.setenv("MEMLAB_CACHE_DIR", str(tmp_path_factory.mktemp("memlab-cache")))


@pytest.fixture
def fake_provider():
    return FakeProvider


def write_workspace(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


NOTES = {
    "MEMORY.md": "# Facts\nThe staging database host is pg-stage-02.\nDeploy key lives in vault.\n",
    "memory/2026-05-01.md": "Deploy window moved to Tuesday 10:00.\nBilling cutover next week.\n",
    "memory/2026-05-02.md": "Lunch with Sam. Talked about the half marathon plan.\n",
    "memory/projects/billing.md": "# Billing\nInvoices are generated on the 1st.\n"
                                  "The billing service retries ECONNRESET errors.\n",
    "memory/2026-05-03.md": "部署流程在周二。环境变量放在 vault 里。\n",
}


# shared with the test modules (a second "conftest" module cannot be imported by name)
_module.FAKE_PROVIDER_SOURCE = FAKE_PROVIDER_SOURCE
_module.NOTES = NOTES
_module.write_workspace = write_workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return write_workspace(tmp_path / "ws", NOTES)
