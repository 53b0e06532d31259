"""The SQLite embedding cache and the caching embedder."""

from __future__ import annotations

import copy
import hashlib
import pickle
from typing import Any

import numpy as np
import pytest

from memlab.embed import CachedEmbedder, EmbeddingCache, EmbeddingProvider, text_hash
from memlab.embed.cache import LOOKUP_BATCH, TABLE


class CountingProvider(EmbeddingProvider):
    """Deterministic pseudo-random vectors per text; counts what it is asked to embed."""

    id = "counting"

    def __init__(self, model: str = "fake-1", dims: int = 8, prefix: str = "",
                 api_key: str | None = None):
        self.model = model
        self._dims = dims
        self.prefix = prefix
        self.api_key = api_key
        self.calls = 0
        self.texts: list[str] = []
        self.query_calls = 0

    def key_settings(self) -> dict[str, Any]:
        return {"prefix": self.prefix, "dims": self._dims, "api_key": self.api_key}

    @property
    def dims(self) -> int:
        return self._dims

    def _vec(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(f"{self.model}|{self.prefix}|{text}".encode())
                              .digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(self._dims).astype(np.float32)

    def embed_documents(self, texts):
        self.calls += 1
        self.texts.extend(texts)
        return np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, self._dims))

    def embed_query(self, text):
        return self.embed_queries([text])[0]

    def embed_queries(self, texts):
        self.query_calls += 1
        return np.stack([self._vec("q:" + t) for t in texts])


TEXTS = ["alpha", "beta", "gamma", "delta", "epsilon"]


def test_second_run_embeds_nothing() -> None:
    provider = CountingProvider()
    emb = CachedEmbedder(provider, EmbeddingCache(None))
    first = emb.embed_documents(TEXTS)
    assert (emb.calls, emb.texts_embedded, provider.calls) == (1, 5, 1)
    second = emb.embed_documents(TEXTS)
    assert (emb.calls, emb.texts_embedded, provider.calls) == (1, 5, 1)
    assert emb.cache_hits == 5
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, np.stack([provider._vec(t) for t in TEXTS]))
    assert first.dtype == np.float32 and first.shape == (5, 8)
    # only the new texts go to the provider
    emb.embed_documents(["beta", "zeta", "alpha", "eta"])
    assert provider.texts[-2:] == ["zeta", "eta"] and emb.texts_embedded == 7


def test_duplicate_texts_embedded_once() -> None:
    provider = CountingProvider()
    emb = CachedEmbedder(provider)
    out = emb.embed_documents(["a", "b", "a", "a", "b"])
    assert provider.texts == ["a", "b"] and emb.texts_embedded == 2
    np.testing.assert_array_equal(out[0], out[2])
    np.testing.assert_array_equal(out[1], out[4])


def test_cache_keys_separate_providers_models_and_settings() -> None:
    cache = EmbeddingCache(None)
    providers = [CountingProvider(), CountingProvider(model="fake-2"),
                 CountingProvider(prefix="passage: "), CountingProvider(dims=4)]

    class OtherId(CountingProvider):
        id = "other"

    providers.append(OtherId())
    keys = {(p.id, p.model, p.settings_key) for p in providers}
    assert len(keys) == len(providers)
    for p in providers:
        emb = CachedEmbedder(p, cache)
        out = emb.embed_documents(TEXTS)
        assert emb.texts_embedded == 5, p  # nothing shared with another key
        np.testing.assert_array_equal(out, np.stack([p._vec(t) for t in TEXTS]))
        assert cache.count(p) == 5
    assert len(cache) == 5 * len(providers)
    # same settings in a new instance hit the cache
    again = CachedEmbedder(CountingProvider(prefix="passage: "), cache)
    again.embed_documents(TEXTS)
    assert again.texts_embedded == 0


def test_persistence_across_reopen(tmp_path) -> None:
    path = tmp_path / "sub" / "embeddings.sqlite"
    with EmbeddingCache(path) as cache:
        assert cache.connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        first = CachedEmbedder(CountingProvider(), cache).embed_documents(TEXTS)
    assert path.exists()
    reopened = EmbeddingCache(path)
    emb = CachedEmbedder(CountingProvider(), reopened)
    second = emb.embed_documents(TEXTS)
    assert emb.calls == 0 and emb.texts_embedded == 0
    np.testing.assert_array_equal(first, second)
    row = reopened.connection.execute(f"SELECT dims, length(embedding), updated_at FROM {TABLE} "
                                      "LIMIT 1").fetchone()
    assert row[0] == 8 and row[1] == 8 * 4 and row[2] > 1_600_000_000_000
    reopened.close()


def test_lookups_are_batched(tmp_path) -> None:
    cache = EmbeddingCache(None)
    provider = CountingProvider()
    hashes = [text_hash(str(i)) for i in range(1000)]
    cache.put_many(provider, {h: np.full(8, i, np.float32) for i, h in enumerate(hashes)})
    statements: list[str] = []
    cache.connection.set_trace_callback(statements.append)
    found = cache.get_many(provider, hashes + ["missing"])
    cache.connection.set_trace_callback(None)
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert len(selects) == -(-1001 // LOOKUP_BATCH) == 3
    per_select = [sum(h in sql for h in hashes) + ("'missing'" in sql) for sql in selects]
    assert per_select == [400, 400, 201]
    assert len(found) == 1000 and "missing" not in found
    assert found[hashes[7]][0] == 7 and found[hashes[7]].dtype == np.float32


def test_put_many_upserts_in_one_transaction() -> None:
    cache = EmbeddingCache(None)
    provider = CountingProvider()
    statements: list[str] = []
    cache.connection.set_trace_callback(statements.append)
    assert cache.put_many(provider, [("h1", np.ones(8)), ("h2", np.zeros(8))]) == 2
    cache.connection.set_trace_callback(None)
    assert sum(s.startswith("BEGIN") for s in statements) == 1
    assert sum(s.startswith("COMMIT") for s in statements) == 1
    cache.put_many(provider, {"h1": np.full(8, 2.0)})
    assert len(cache) == 2 and cache.get_many(provider, ["h1"])["h1"][0] == 2.0


def test_secrets_never_reach_the_cache(tmp_path) -> None:
    path = tmp_path / "cache.sqlite"
    cache = EmbeddingCache(path)
    provider = CountingProvider(api_key="sk-SUPERSECRET")
    CachedEmbedder(provider, cache).embed_documents(TEXTS)
    # a different key for the same account/model/settings reuses the vectors
    other = CachedEmbedder(CountingProvider(api_key="sk-OTHER"), cache)
    other.embed_documents(TEXTS)
    assert other.texts_embedded == 0
    keys = {r[0] for r in cache.connection.execute(f"SELECT provider_key FROM {TABLE}")}
    assert keys == {provider.settings_key}
    cache.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert b"SUPERSECRET" not in raw


def test_query_embeddings_cached_in_one_batch() -> None:
    provider = CountingProvider()
    emb = CachedEmbedder(provider)
    out = emb.embed_queries(["q1", "q2", "q1"])
    assert provider.query_calls == 1 and emb.queries_embedded == 2
    np.testing.assert_array_equal(out[0], out[2])
    np.testing.assert_array_equal(emb.embed_query("q2"), out[1])
    assert provider.query_calls == 1 and emb.query_calls == 1
    out[1][:] = 0  # callers can't corrupt the cache
    assert emb.embed_query("q2").any()


def test_cached_embedder_delegates_identity() -> None:
    provider = CountingProvider(model="fake-9", dims=5)
    emb = CachedEmbedder(provider)
    assert (emb.id, emb.model, emb.dims, emb.settings_key) == (
        "counting", "fake-9", 5, provider.settings_key)
    assert emb.max_input_tokens == provider.max_input_tokens
    assert emb.embed_documents([]).shape == (0, 5)
    with pytest.raises(TypeError):
        CachedEmbedder(emb)


def test_prune_keeps_newest() -> None:
    cache = EmbeddingCache(None)
    provider = CountingProvider()
    for i in range(5):
        cache.put_many(provider, {f"h{i}": np.ones(8)})
        cache.connection.execute(f"UPDATE {TABLE} SET updated_at = ? WHERE hash = ?", (i, f"h{i}"))
    assert cache.prune(2) == 3
    assert set(cache.get_many(provider, [f"h{i}" for i in range(5)])) == {"h3", "h4"}


def test_copies_share_a_file_cache(tmp_path) -> None:
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    emb = CachedEmbedder(CountingProvider(), cache)
    emb.embed_documents(TEXTS)
    assert copy.deepcopy(emb).cache is cache
    restored = pickle.loads(pickle.dumps(emb))  # reopens the same file
    restored.reset_stats()
    restored.embed_documents(TEXTS)
    assert restored.texts_embedded == 0 and restored.cache_hits == 5


def test_settings_key_follows_every_change_of_the_settings() -> None:
    """The settings key is remembered per provider, yet any change of what it hashes moves
    it: an attribute assigned, a setting mutated in place, 1 turned into True; and a query
    cached under the old settings is embedded again under the new ones."""

    class Headed(CountingProvider):
        def __init__(self) -> None:
            super().__init__()
            self.headers = {"x-team": "a"}
            self.flag = 1

        def key_settings(self) -> dict[str, Any]:
            return {**super().key_settings(), "headers": dict(self.headers),
                    "flag": self.flag}

    p = Headed()
    first = p.settings_key
    assert p.settings_key == first  # remembered
    p.headers["x-team"] = "b"  # in place
    second = p.settings_key
    p.flag = True  # equal to 1 in Python, not in the key's JSON
    third = p.settings_key
    assert len({first, second, third}) == 3
    emb = CachedEmbedder(p)
    emb.embed_queries(["q"])
    p.headers["x-team"] = "c"
    emb.embed_queries(["q"])
    assert emb.queries_embedded == 2
