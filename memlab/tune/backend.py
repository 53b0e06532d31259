"""Where sweep work runs: in process, on joblib workers, or on a dask.distributed cluster.

``backend`` is ``None``/``"local"`` (joblib with ``n_jobs`` workers; 1 = in process),
``"joblib"`` (same), ``"dask"`` (a :class:`distributed.LocalCluster`, started on first use and
kept until :meth:`Executor.close`) or ``"dask:ADDRESS"`` (an existing scheduler, e.g.
``dask:tcp://10.0.0.5:8786``). A :class:`distributed.Client` or an :class:`Executor` can also
be passed directly.

Two kinds of work run there, both put back in input order, so every backend returns
identical numbers:

* :func:`map_blocks`: blocks of queries, each evaluated for every configuration of a grid;
* :func:`embed_corpus`: the corpus texts missing from the embedding cache, embedded in
  fixed-size shards by the raw provider on the workers. The shard plan depends only on the
  texts (never on the backend or the worker count), so a serial run embeds exactly the same
  batches. Workers never touch the cache: the calling process is its single writer and stores
  each shard's vectors (one SQLite transaction per shard) as the shard completes.

>>> ex = Executor("local")
>>> ex.map(len, [["a", "b"], ["c"]])
[2, 1]
>>> ex.close()
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["DEFAULT_SHARD_SIZE", "Executor", "embed_corpus", "map_blocks", "parse_backend"]

#: Texts per embedding shard (a multiple of the usual provider batch sizes).
DEFAULT_SHARD_SIZE = 256


def parse_backend(backend: Any) -> tuple[str, Any]:
    """``(kind, address_or_client)`` with kind ``"local"`` or ``"dask"``.

    >>> parse_backend("dask:tcp://10.0.0.5:8786")
    ('dask', 'tcp://10.0.0.5:8786')
    """
    if isinstance(backend, Executor):
        return backend.kind, backend.target
    if backend is None or backend in ("local", "joblib"):
        return "local", None
    if isinstance(backend, str):
        if backend == "dask":
            return "dask", None
        if backend.startswith("dask:"):
            return "dask", backend[len("dask:"):] or None
        raise ValueError(f"unknown backend {backend!r}: use 'local', 'joblib', 'dask' or "
                         "'dask:ADDRESS'")
    if type(backend).__name__ == "Client":
        return "dask", backend
    raise ValueError(f"unknown backend {backend!r}")


class Executor:
    """Runs ``func(item, *args)`` over items on the chosen backend, results in item order.

    A ``"dask"`` executor starts its :class:`distributed.LocalCluster` on first use and keeps
    it (and its client) until :meth:`close`, so a sweep that embeds a corpus and then
    evaluates several leg groups pays the cluster start-up once. A client or address given by
    the caller is connected to but never shut down.
    """

    def __init__(self, backend: Any = None, n_jobs: int = 1):
        if isinstance(backend, Executor):
            raise TypeError("backend is already an Executor")
        self.kind, self.target = parse_backend(backend)
        self.n_jobs = int(n_jobs)
        self._client: Any = None
        self._own: list[Any] = []

    def client(self) -> Any:
        """The dask client (created on first use)."""
        if self.kind != "dask":
            raise ValueError("not a dask executor")
        if self._client is not None:
            return self._client
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("the dask backend needs dask.distributed: pip install "
                              "'memlab[dask]'") from exc
        if isinstance(self.target, Client):
            self._client = self.target
        elif self.target:
            self._client = Client(self.target)
            self._own.append(self._client)
        else:
            cluster = LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                   dashboard_address=None)
            self._client = Client(cluster)
            self._own.extend([self._client, cluster])
        return self._client

    def map(self, func: Callable[..., Any], items: Sequence[Any], *args: Any,
            progress: bool = False, desc: str = "sweep",
            on_result: Callable[[int, Any], None] | None = None) -> list[Any]:
        """``[func(item, *args) for item in items]`` on the backend; ``on_result(i, value)``
        is called in the calling process as each result arrives (in completion order)."""
        from memlab.progress import bar as progress_bar

        items = list(items)
        results: list[Any] = [None] * len(items)
        if not items:
            return results
        bar = progress_bar(total=len(items), desc=desc, unit="task", progress=progress)
        try:
            if self.kind == "local" and (self.n_jobs == 1 or len(items) == 1):
                for i, item in enumerate(items):
                    results[i] = func(item, *args)
                    if on_result is not None:
                        on_result(i, results[i])
                    bar.update()
            elif self.kind == "local":
                from joblib import Parallel, delayed

                parallel = Parallel(n_jobs=self.n_jobs, return_as="generator")
                gen = parallel(delayed(func)(item, *args) for item in items)
                for i, value in enumerate(gen):
                    results[i] = value
                    if on_result is not None:
                        on_result(i, value)
                    bar.update()
            else:
                from distributed import as_completed

                client = self.client()
                shared = client.scatter(list(args), broadcast=True) if args else []
                futures = [client.submit(func, item, *shared, pure=False) for item in items]
                index = {f.key: i for i, f in enumerate(futures)}
                for fut in as_completed(futures):
                    i = index[fut.key]
                    results[i] = fut.result()
                    if on_result is not None:
                        on_result(i, results[i])
                    bar.update()
        finally:
            bar.close()
        return results

    def close(self) -> None:
        """Shut down what this executor started (its own client and LocalCluster)."""
        for obj in reversed(self._own):
            obj.close()
        self._own.clear()
        self._client = None

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        where = self.target if self.kind == "dask" else f"n_jobs={self.n_jobs}"
        return f"Executor({self.kind}, {where})"


def _blocks(items: Sequence[Any], n: int) -> list[list[Any]]:
    n = max(1, min(n, len(items)))
    edges = np.linspace(0, len(items), n + 1).astype(int)
    return [list(items[a:b]) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]


def _combine(parts: list[tuple[np.ndarray, list | None]]) -> tuple[np.ndarray, list | None]:
    values = np.concatenate([p[0] for p in parts], axis=0)
    hits = None
    if parts and parts[0][1] is not None:
        hits = [h for p in parts for h in p[1]]
    return values, hits


def map_blocks(func: Callable[..., tuple[np.ndarray, list | None]], items: Sequence[Any],
               *args: Any, backend: Any = None, n_jobs: int = 1, progress: bool = False,
               block_size: int = 8) -> tuple[np.ndarray, list | None]:
    """``func(block, *args)`` over blocks of ``items``, results concatenated in order.

    ``backend`` is a spec (see the module doc) or an :class:`Executor` (reused as is)."""
    if not items:
        return func([], *args)
    blocks = _blocks(items, max(1, -(-len(items) // block_size)))
    if isinstance(backend, Executor):
        return _combine(backend.map(func, blocks, *args, progress=progress))
    with Executor(backend, n_jobs) as executor:
        return _combine(executor.map(func, blocks, *args, progress=progress))


# ---------------------------------------------------------------------------------------------
# Corpus embedding
# ---------------------------------------------------------------------------------------------


def _embed_shard(texts: list[str], provider: Any) -> np.ndarray:
    """One shard's vectors from the raw provider (runs on a worker)."""
    from memlab.embed.base import check_vectors

    vectors = provider.embed_documents(list(texts))
    return np.asarray(check_vectors(vectors, len(texts), None, f"provider {provider.id!r}"),
                      dtype=np.float32)


def embed_corpus(texts: Sequence[str], embedder: Any, backend: Any = None, n_jobs: int = 1, *,
                 shard_size: int = DEFAULT_SHARD_SIZE, progress: bool = False) -> int:
    """Fill ``embedder``'s cache with the vectors of ``texts``, embedding missing ones in
    parallel shards; returns how many texts were embedded (0 when all were cached).

    ``embedder`` is a :class:`memlab.embed.cache.CachedEmbedder`. The unique texts missing
    from its cache, in first-seen order, are cut into shards of ``shard_size``; each shard
    is embedded by the raw provider on ``backend`` (see the module doc) and written to the
    cache by this process alone as it completes. A later
    ``embedder.embed_documents(texts)`` then embeds nothing. The embedder's counters
    (``calls``, ``texts_embedded``, ``cache_hits``) count the work as if it had run there.

    >>> from memlab.embed.cache import CachedEmbedder
    >>> from memlab.embed.base import EmbeddingProvider
    >>> class Two(EmbeddingProvider):
    ...     id, model = "two", "two-v1"
    ...     dims = 2
    ...     def embed_documents(self, texts):
    ...         return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)
    ...     def embed_queries(self, texts):
    ...         return self.embed_documents(texts)
    ...     def embed_query(self, text):
    ...         return self.embed_documents([text])[0]
    ...     def key_settings(self):
    ...         return {}
    >>> emb = CachedEmbedder(Two())
    >>> embed_corpus(["a", "bb", "a", "ccc"], emb, shard_size=2), embed_corpus(["bb"], emb)
    (3, 0)
    >>> emb.embed_documents(["ccc"]).tolist(), emb.texts_embedded
    ([[3.0, 1.0]], 3)
    """
    from memlab.embed.base import text_hash
    from memlab.embed.cache import CachedEmbedder

    if not isinstance(embedder, CachedEmbedder):
        raise TypeError(f"embed_corpus needs a CachedEmbedder, got {type(embedder).__name__}")
    if int(shard_size) < 1:
        raise ValueError(f"shard_size must be >= 1, got {shard_size!r}")
    texts = [str(t) for t in texts]
    if not texts:
        return 0
    hashes = [text_hash(t) for t in texts]
    cached = embedder.cache.get_many(embedder.provider, hashes)
    missing: dict[str, str] = {}
    for h, t in zip(hashes, texts, strict=True):
        if h not in cached and h not in missing:
            missing[h] = t
    embedder.cache_hits += sum(1 for h in hashes if h in cached)
    if not missing:
        return 0
    keys = list(missing)
    size = int(shard_size)
    shards = [keys[i:i + size] for i in range(0, len(keys), size)]

    def store(i: int, vectors: np.ndarray) -> None:  # the single writer: this process
        embedder.cache.put_many(embedder.provider, dict(zip(shards[i], vectors, strict=True)))
        embedder.calls += 1
        embedder.texts_embedded += len(shards[i])

    work = [[missing[h] for h in shard] for shard in shards]
    provider = embedder.provider
    if getattr(provider, "show_progress", False):  # one bar per shard would be noise
        provider = copy.copy(provider)
        provider.show_progress = False
    if isinstance(backend, Executor):
        backend.map(_embed_shard, work, provider, progress=progress, desc="embed",
                    on_result=store)
    else:
        with Executor(backend, n_jobs) as executor:
            executor.map(_embed_shard, work, provider, progress=progress, desc="embed",
                         on_result=store)
    return len(keys)
