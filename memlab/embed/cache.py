"""Embedding cache: never embed the same text twice with the same provider settings.

Mirrors OpenClaw's ``memory_embedding_cache`` (reference §8): one SQLite table keyed by
``(provider, model, provider_key, hash)`` where ``provider_key`` is the provider's
:attr:`~memlab.embed.base.EmbeddingProvider.settings_key` (no secrets) and ``hash`` the sha256
of the text. Embeddings are stored as float32 blobs (OpenClaw stores JSON text). Lookups go in
batches of at most 400 hashes; each write is one transaction.

:class:`CachedEmbedder` wraps a provider with the cache and is itself a provider::

    embedder = CachedEmbedder(get_provider("local"), EmbeddingCache(".memlab/embeddings.sqlite"))
    embedder.embed_documents(corpus.texts)   # embeds everything once
    embedder.embed_documents(corpus.texts)   # embeds nothing: embedder.calls is unchanged
"""

from __future__ import annotations

import itertools
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memlab.embed.base import (
    EmbeddingInput,
    EmbeddingProvider,
    as_input,
    check_vectors,
    text_hash,
)

#: Hashes per ``SELECT ... IN (...)`` lookup (OpenClaw uses 400).
LOOKUP_BATCH = 400
#: Hashes looked up per step of one :class:`CachedEmbedder` call (a multiple of
#: :data:`LOOKUP_BATCH`): bounds the per-vector Python objects alive at once, whatever the
#: number of texts.
STEP = 41 * LOOKUP_BATCH
TABLE = "memory_embedding_cache"

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    provider_key TEXT NOT NULL,
    hash TEXT NOT NULL,
    embedding BLOB NOT NULL,
    dims INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (provider, model, provider_key, hash)
);
CREATE INDEX IF NOT EXISTS idx_{TABLE}_updated_at ON {TABLE}(updated_at);
"""


def _key_of(provider: EmbeddingProvider) -> tuple[str, str, str]:
    return str(provider.id), str(provider.model), str(provider.settings_key)


class EmbeddingCache:
    """SQLite store of embeddings keyed by provider, model, settings key and text hash.

    ``path=None`` or ``":memory:"`` keeps it in memory; otherwise the file (and its parent
    folders) is created and opened in WAL mode, so it can be shared between runs.
    """

    def __init__(self, path: str | Path | None = None):
        self.path = path
        in_memory = path is None or str(path) == ":memory:"
        if not in_memory:
            Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        target = ":memory:" if in_memory else str(Path(path).expanduser())
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
        if not in_memory:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA busy_timeout=30000")
        self._conn.executescript(_SCHEMA)

    # -- reads ---------------------------------------------------------------------------
    def get_many(self, provider: EmbeddingProvider, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """Cached vectors for ``hashes`` under ``provider``'s key: ``{hash: float32 vector}``.

        Missing hashes are simply absent from the result.
        """
        pid, model, pkey = _key_of(provider)
        unique = list(dict.fromkeys(hashes))
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(unique), LOOKUP_BATCH):
                batch = unique[start:start + LOOKUP_BATCH]
                marks = ",".join("?" * len(batch))
                rows = self._conn.execute(
                    f"SELECT hash, embedding, dims FROM {TABLE} WHERE provider = ? AND model = ? "
                    f"AND provider_key = ? AND hash IN ({marks})",
                    (pid, model, pkey, *batch),
                ).fetchall()
                for h, blob, dims in rows:
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape[0] != dims:  # corrupt row: treat as a miss
                        continue
                    found[h] = vec.copy()
        return found

    # -- writes --------------------------------------------------------------------------
    def put_many(self, provider: EmbeddingProvider,
                 items: Mapping[str, np.ndarray] | Iterable[tuple[str, np.ndarray]]) -> int:
        """Upsert ``{hash: vector}`` (or ``(hash, vector)`` pairs) in one transaction.

        Returns the number of rows written. Rows are streamed to SQLite (no list of all the
        blobs is built first).
        """
        pid, model, pkey = _key_of(provider)
        pairs = iter(items.items() if isinstance(items, Mapping) else items)
        now = int(time.time() * 1000)
        first = next(pairs, None)
        if first is None:
            return 0
        written = 0

        def rows() -> Iterable[tuple]:
            nonlocal written
            for h, vec in itertools.chain([first], pairs):
                arr = np.ascontiguousarray(np.asarray(vec, dtype=np.float32).reshape(-1))
                written += 1
                yield (pid, model, pkey, str(h), arr.tobytes(), int(arr.shape[0]), now)

        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                self._conn.executemany(
                    f"INSERT INTO {TABLE} (provider, model, provider_key, hash, embedding, dims, "
                    "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (provider, model, provider_key, hash) DO UPDATE SET "
                    "embedding = excluded.embedding, dims = excluded.dims, "
                    "updated_at = excluded.updated_at",
                    rows(),
                )
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        return written

    def prune(self, max_entries: int) -> int:
        """Keep the ``max_entries`` most recently written rows (OpenClaw's ``cache.maxEntries``).

        Returns the number of rows deleted.
        """
        if max_entries < 0:
            raise ValueError(f"max_entries must be >= 0, got {max_entries}")
        with self._lock:
            cur = self._conn.execute(
                f"DELETE FROM {TABLE} WHERE rowid NOT IN (SELECT rowid FROM {TABLE} "
                "ORDER BY updated_at DESC, rowid DESC LIMIT ?)",
                (int(max_entries),),
            )
            return cur.rowcount

    def clear(self) -> None:
        """Delete every cached embedding."""
        with self._lock:
            self._conn.execute(f"DELETE FROM {TABLE}")

    # -- housekeeping --------------------------------------------------------------------
    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0])

    def count(self, provider: EmbeddingProvider | None = None) -> int:
        """Number of cached embeddings (for ``provider``'s key only, if given)."""
        if provider is None:
            return len(self)
        with self._lock:
            return int(self._conn.execute(
                f"SELECT COUNT(*) FROM {TABLE} WHERE provider = ? AND model = ? "
                "AND provider_key = ?", _key_of(provider)).fetchone()[0])

    @property
    def connection(self) -> sqlite3.Connection:
        """The underlying SQLite connection (for inspection and tests)."""
        return self._conn

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> EmbeddingCache:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"EmbeddingCache({str(self.path) if self.path is not None else None!r})"

    def __deepcopy__(self, memo: dict) -> EmbeddingCache:
        return self  # a handle on shared storage: copies of a pipeline share the cache

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"])  # type: ignore[misc]


class CachedEmbedder(EmbeddingProvider):
    """A provider that only embeds what ``cache`` does not hold yet.

    Delegates ``id``, ``model``, ``dims``, ``settings_key`` and ``max_input_tokens`` to
    ``provider``. Document vectors go through ``cache`` (an in-memory one when ``None``);
    identical texts in one call are embedded once. Query vectors are cached in memory.

    Counters (see :meth:`stats`): ``calls`` / ``texts_embedded`` (document embedding calls and
    texts sent to the provider), ``cache_hits``, ``query_calls`` / ``queries_embedded``.
    """

    def __init__(self, provider: EmbeddingProvider, cache: EmbeddingCache | None = None):
        if isinstance(provider, CachedEmbedder):
            raise TypeError("provider is already a CachedEmbedder")
        self.provider = provider
        self.cache = cache if cache is not None else EmbeddingCache(None)
        # keyed by (settings key, query text): the text itself, not its sha256, which costs
        # more than the rest of a cached look-up (this cache lives in memory only)
        self._queries: dict[tuple[str, str], np.ndarray] = {}
        self.reset_stats()

    # -- delegated identity --------------------------------------------------------------
    @property
    def id(self) -> str:  # type: ignore[override]
        return self.provider.id

    @property
    def model(self) -> str:  # type: ignore[override]
        return self.provider.model

    @property
    def max_input_tokens(self) -> int:  # type: ignore[override]
        return self.provider.max_input_tokens

    @property
    def dims(self) -> int:
        return self.provider.dims

    @property
    def settings_key(self) -> str:
        return self.provider.settings_key

    def key_settings(self) -> dict[str, Any]:
        return self.provider.key_settings()

    def cache_key_data(self) -> dict[str, Any]:
        return self.provider.cache_key_data()

    # -- embedding -----------------------------------------------------------------------
    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = [str(t) for t in texts]
        return self._through_cache([text_hash(t) for t in texts], texts,
                                   self.provider.embed_documents)

    def _mixed(self, dims: set[int]) -> ValueError:
        return ValueError(f"cached embeddings for {self.id!r}/{self.model!r} have mixed "
                          f"dimensions {sorted(dims)}; clear the cache")

    def _through_cache(self, hashes: list[str], payloads: Sequence[Any],
                       embed: Callable[[list[Any]], np.ndarray]) -> np.ndarray:
        """``(n, dims)`` float32, one row per hash: from the cache, else ``embed`` of the
        payloads of the missing hashes (each distinct hash once, in one call), stored back in
        the cache. Looked up :data:`STEP` hashes at a time, straight into the output array
        (no per-vector list of all the vectors)."""
        n = len(hashes)
        if not n:
            return np.zeros((0, self.dims), dtype=np.float32)
        out: np.ndarray | None = None
        missing: dict[str, Any] = {}
        miss_pos: list[int] = []
        for lo in range(0, n, STEP):
            block = hashes[lo:lo + STEP]
            found = self.cache.get_many(self.provider, block)
            for i, h in enumerate(block, lo):
                vec = found.get(h)
                if vec is None:
                    miss_pos.append(i)
                    if h not in missing:
                        missing[h] = payloads[i]
                    continue
                self.cache_hits += 1
                if out is None:
                    out = np.empty((n, vec.shape[0]), dtype=np.float32)
                elif vec.shape[0] != out.shape[1]:
                    raise self._mixed({vec.shape[0], out.shape[1]})
                out[i] = vec
            del found
        if missing:
            fresh = check_vectors(embed(list(missing.values())), len(missing), None,
                                  f"provider {self.id!r}")
            self.calls += 1
            self.texts_embedded += len(missing)
            self.cache.put_many(self.provider, zip(missing.keys(), fresh, strict=True))
            if out is None:
                out = np.empty((n, fresh.shape[1]), dtype=np.float32)
            elif fresh.shape[1] != out.shape[1]:
                raise self._mixed({fresh.shape[1], out.shape[1]})
            row = {h: j for j, h in enumerate(missing)}
            out[miss_pos] = fresh[[row[hashes[i]] for i in miss_pos]]
        assert out is not None  # n > 0: every row came from the cache or the provider
        return out

    def supports_multimodal(self) -> bool:
        return self.provider.supports_multimodal()

    def embed_inputs(self, inputs: Sequence[str | EmbeddingInput]) -> np.ndarray:
        """Structured inputs through the cache, keyed by each input's ``hash`` (OpenClaw's
        chunk hash: for a multimodal file it covers path, label, MIME type and the bytes'
        sha256, so a changed image is re-embedded and an unchanged one is not)."""
        items = [as_input(i) for i in inputs]
        if not any(i.structured for i in items):
            return self.embed_documents([i.text for i in items])
        return self._through_cache([i.hash for i in items], items, self.provider.embed_inputs)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        texts = [str(t) for t in texts]
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        skey = self.settings_key
        if len(texts) == 1:  # one query (the search path): a look-up, no list of keys
            found = self._queries.get((skey, texts[0]))
            if found is not None:
                return found.reshape(1, -1).astype(np.float32, copy=True)
        keys = [(skey, t) for t in texts]
        missing: dict[tuple[str, str], str] = {}
        for k, t in zip(keys, texts, strict=True):
            if k not in self._queries and k not in missing:
                missing[k] = t
        if missing:
            fresh = check_vectors(self.provider.embed_queries(list(missing.values())),
                                  len(missing), None, f"provider {self.id!r}")
            self.query_calls += 1
            self.queries_embedded += len(missing)
            self._queries.update(zip(missing.keys(), fresh.copy(), strict=True))
        return np.stack([self._queries[k] for k in keys]).astype(np.float32, copy=True)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]

    # -- bookkeeping ---------------------------------------------------------------------
    def reset_stats(self) -> None:
        """Zero the counters."""
        self.calls = 0
        self.texts_embedded = 0
        self.cache_hits = 0
        self.query_calls = 0
        self.queries_embedded = 0

    def stats(self) -> dict[str, int]:
        """The counters as a dict."""
        return {"calls": self.calls, "texts_embedded": self.texts_embedded,
                "cache_hits": self.cache_hits, "query_calls": self.query_calls,
                "queries_embedded": self.queries_embedded}

    def clear_query_cache(self) -> None:
        self._queries.clear()

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.provider!r}, cache={self.cache!r})"
