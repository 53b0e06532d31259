"""The persistent index: OpenClaw's SQLite storage, incremental sync, FTS5 and vector legs.

* :mod:`memlab.index.store` -- :class:`IndexStore`, one SQLite file per workspace with
  OpenClaw 2026.7's tables (sources, chunks, FTS5, vectors, identity).
* :mod:`memlab.index.sync` -- :func:`sync_index`: hash-based incremental sync, one
  transaction per file, identity checks, ``--force`` rebuilds, the indexer lock.
* :mod:`memlab.index.fts` -- :class:`FTS5`, OpenClaw's exact keyword leg on SQLite itself.
* :mod:`memlab.index.vectors` -- :class:`IndexVectorSearch` and :func:`parity_cosine`,
  vector scores computed as sqlite-vec computes them.
* :mod:`memlab.index.search` -- :func:`index_status` (``memlab status``) and
  :func:`resolve_index_path`. The search over the index,
  :class:`memlab.indexed_search.IndexedMemorySearch`, is a pipeline, a layer above.

Names are imported lazily, so ``import memlab.index`` is cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "FORCE_HINT": "errors",
    "IndexCorrupt": "errors",
    "IndexLocked": "errors",
    "IndexPaused": "errors",
    "IndexUnavailable": "errors",
    "IndexStore": "store",
    "check_sqlite": "store",
    "default_index_path": "store",
    "IndexLock": "sync",
    "SyncReport": "sync",
    "identity_problem": "sync",
    "index_identity": "sync",
    "sync_index": "sync",
    "FTS5": "fts",
    "bm25_rank_to_score": "fts",
    "build_fts_query": "fts",
    "escape_like_pattern": "fts",
    "plan_keyword_search": "fts",
    "IndexVectorSearch": "vectors",
    "js_cosine": "vectors",
    "parity_cosine": "vectors",
    "format_status": "search",
    "index_status": "search",
    "resolve_index_path": "search",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'memlab.index' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"memlab.index.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
