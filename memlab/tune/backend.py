"""Where sweep work runs: in process, on joblib workers, or on a dask.distributed cluster.

``backend`` is ``None``/``"local"`` (joblib with ``n_jobs`` workers; 1 = in process),
``"joblib"`` (same), ``"dask"`` (a :class:`distributed.LocalCluster` started for the call) or
``"dask:ADDRESS"`` (an existing scheduler, e.g. ``dask:tcp://10.0.0.5:8786``). A
:class:`distributed.Client` can also be passed directly.

The unit of work is a block of queries evaluated for every configuration; results are put
back in query order, so every backend returns identical numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["map_blocks", "parse_backend"]


def parse_backend(backend: Any) -> tuple[str, Any]:
    """``(kind, address_or_client)`` with kind ``"local"`` or ``"dask"``."""
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
    """``func(block, *args)`` over blocks of ``items``, results concatenated in order."""
    from tqdm.auto import tqdm

    kind, target = parse_backend(backend)
    if not items:
        return func([], *args)
    blocks = _blocks(items, max(1, -(-len(items) // block_size)))
    if kind == "local":
        if n_jobs == 1:
            parts = [func(b, *args) for b in tqdm(blocks, desc="sweep", unit="block",
                                                  disable=not progress, leave=False)]
            return _combine(parts)
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=n_jobs, return_as="generator")
        gen = parallel(delayed(func)(b, *args) for b in blocks)
        parts = list(tqdm(gen, total=len(blocks), desc="sweep", unit="block",
                          disable=not progress, leave=False))
        return _combine(parts)
    return _combine(_dask_map(func, blocks, args, target, progress))


def _dask_map(func: Callable, blocks: list, args: tuple, target: Any, progress: bool) -> list:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the dask backend needs dask.distributed: pip install "
                          "'memlab[dask]'") from exc
    from tqdm.auto import tqdm

    own: list[Any] = []
    if isinstance(target, Client):
        client = target
    elif target:
        client = Client(target)
        own.append(client)
    else:
        cluster = LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                               dashboard_address=None)
        client = Client(cluster)
        own.extend([client, cluster])
    try:
        shared = client.scatter(list(args), broadcast=True) if args else []
        futures = [client.submit(func, b, *shared, pure=False) for b in blocks]
        index = {f.key: i for i, f in enumerate(futures)}
        parts: list[Any] = [None] * len(futures)
        with tqdm(total=len(futures), desc="sweep", unit="block", disable=not progress,
                  leave=False) as bar:
            for fut in as_completed(futures):
                parts[index[fut.key]] = fut.result()
                bar.update()
        return parts
    finally:
        for obj in own:
            obj.close()
