"""``memlab status`` over the persistent index, and where the index file is.

:func:`index_status` collects what ``openclaw memory status`` shows, :func:`format_status`
prints it the same way, :func:`resolve_index_path` picks the index file. The search over the
index, :class:`memlab.indexed_search.IndexedMemorySearch`, is a whole pipeline and sits a layer
above, with :mod:`memlab.openclaw`.
"""

from __future__ import annotations

import os
import sqlite3
import warnings
from pathlib import Path
from typing import Any

from memlab.config import DEFAULT_CONFIG, MemlabConfig, load_config
from memlab.embed.base import EmbeddingProvider, ProviderUnavailable
from memlab.embed.cache import CachedEmbedder
from memlab.embed.factory import default_cache_path, make_embedder
from memlab.index.store import IndexStore, default_index_path
from memlab.index.sync import (
    FORCE_HINT,
    identity_problem,
    index_identity,
    pending_changes,
    scan_sources,
)
from memlab.workspace import MemlabWarning

__all__ = ["format_status", "index_status", "resolve_index_path"]


def resolve_index_path(workspace: str | Path, config: MemlabConfig,
                       index_path: str | Path | None = None) -> Path:
    """``index_path``, else ``memlab.indexPath``, else :func:`default_index_path`."""
    chosen = index_path or config.memlab.index_path
    return Path(chosen).expanduser() if chosen else default_index_path(workspace)


def _load(config: MemlabConfig | dict | str | Path | None) -> MemlabConfig:
    return config if isinstance(config, MemlabConfig) else load_config(
        DEFAULT_CONFIG if config is None else config)


# ---------------------------------------------------------------------------------- status


def _cache_entries(path: Path) -> int | None:
    if not path.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        return int(conn.execute("SELECT COUNT(*) FROM memory_embedding_cache").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def index_status(workspace: str | Path, config: MemlabConfig | dict | str | Path | None = None,
                 *, index_path: str | Path | None = None, deep: bool = False,
                 embedder: EmbeddingProvider | None = None,
                 agent_id: str = "main") -> dict[str, Any]:
    """What ``openclaw memory status`` reports, for memlab's index of ``workspace``.

    Never writes: a missing index file is reported as empty. ``deep`` probes the provider
    with a live embedding (``embeddingProbe``).
    """
    cfg = _load(config)
    ms = cfg.memory_search
    ws = Path(os.path.abspath(os.path.expanduser(os.fspath(workspace))))
    requested = ms.provider.strip() or "openai"
    provider_id = ms.resolved_provider()
    provider_error = None
    if provider_id == "none":
        embedder = None
    elif embedder is None:
        try:
            embedder = make_embedder(cfg)
        except ProviderUnavailable as exc:
            provider_error = str(exc)
    path = resolve_index_path(ws, cfg, index_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemlabWarning)
        loaded, skipped = scan_sources(ws, cfg, agent_id)
    out: dict[str, Any] = {
        "provider": embedder.id if embedder is not None else provider_id,
        "requestedProvider": requested,
        "model": embedder.model if embedder is not None else (
            None if provider_id == "none" else ms.resolved_model() or None),
        "sources": ms.effective_sources(),
        "extraPaths": ms.effective_extra_paths(),
        "workspaceDir": str(ws),
        "dbPath": str(path),
        "totalFiles": len(loaded),
        "skipped": [{"path": s.path, "reason": s.reason} for s in skipped],
    }
    life = getattr(getattr(embedder, "provider", embedder), "lifecycle", None) or {}
    if life.get("fallbackFrom"):  # OpenClaw's status.fallback {from, reason}
        out["fallback"] = {"from": life["fallbackFrom"], "reason": life.get("reason")}
    meta = None
    counts: dict[str, dict[str, int]] = {}
    changed, removed = list(loaded), []
    vectors = 0
    fts_tokenizer = None
    if path.exists():
        store = IndexStore(path, fts_tokenizer=ms.store.fts.tokenizer)
        try:
            meta = store.read_meta()
            counts = store.counts()
            changed, removed = pending_changes(store, loaded)
            vectors = store.vector_count()
            fts_tokenizer = store.fts_tokenizer
            has_chunks = store.has_chunks()
        finally:
            store.close()
    else:
        has_chunks = False
    out["files"] = sum(c["files"] for c in counts.values())
    out["chunks"] = sum(c["chunks"] for c in counts.values())
    out["sourceCounts"] = [{"source": s, **counts.get(s, {"files": 0, "chunks": 0}),
                            "totalFiles": sum(f.source == s for f in loaded)}
                           for s in ms.effective_sources()]
    if provider_error is None:
        expected = index_identity(cfg, embedder, ws)
    else:  # the provider key is unknown: compare what is known
        expected = {k: v for k, v in index_identity(cfg, None, ws).items()
                    if k not in ("model", "provider", "providerKey")}
        expected.update(model=ms.resolved_model() or "fts-only", provider=provider_id)
    problem = identity_problem(meta, expected, has_chunks=has_chunks)
    if meta is None and not has_chunks:
        problem = "index metadata is missing" if path.exists() else "not indexed yet"
    out["indexIdentity"] = ({"status": "valid"} if problem is None else
                            {"status": "missing" if meta is None else "mismatched",
                             "reason": problem, "fix": f"Run: {FORCE_HINT}"})
    out["dirty"] = problem is not None or bool(changed or removed)
    out["changedFiles"] = sorted(f.path for f in changed)
    out["removedFiles"] = sorted(key[0] for key in removed)
    dims = (meta or {}).get("vectorDims")
    out["vector"] = {"enabled": embedder is not None or provider_error is not None,
                     "available": bool(vectors) if embedder is not None else False,
                     "dims": dims, "count": vectors,
                     "store": "float32 blobs; cosine computed as sqlite-vec does"}
    out["fts"] = {"enabled": True, "available": fts_tokenizer is not None,
                  "tokenizer": fts_tokenizer or ms.store.fts.tokenizer}
    if ms.cache.enabled:
        cache_path = None
        if isinstance(embedder, CachedEmbedder) and embedder.cache.path is not None:
            cache_path = Path(embedder.cache.path).expanduser()
        elif provider_id != "none":
            cache_path = Path(cfg.memlab.embedding_cache or default_cache_path()).expanduser()
        out["cache"] = {"enabled": True, "path": str(cache_path) if cache_path else None,
                        "entries": _cache_entries(cache_path) if cache_path else 0,
                        "maxEntries": ms.cache.resolved_max_entries()}
    else:
        out["cache"] = {"enabled": False}
    if provider_error is not None:
        out["embeddingProbe"] = {"ok": False, "checked": False, "error": provider_error}
    elif deep and embedder is not None:
        try:
            vec = embedder.embed_query("memlab status probe")
            out["embeddingProbe"] = {"ok": True, "checked": True, "dims": int(len(vec))}
        except Exception as exc:  # noqa: BLE001 - any provider failure is reported
            out["embeddingProbe"] = {"ok": False, "checked": True,
                                     "error": f"{type(exc).__name__}: {exc}"}
    elif deep:
        out["embeddingProbe"] = {"ok": True, "checked": False}
    return out


def format_status(status: dict[str, Any]) -> str:
    """The text of ``openclaw memory status`` for a :func:`index_status` dict."""
    lines = ["Memory Search (memlab)",
             f"Provider: {status['provider']} (requested: {status['requestedProvider']})",
             f"Model: {status['model'] or status['provider']}"]
    if status.get("fallback"):
        lines.append(f"Fallback: {status['fallback']['from']}")
    if status["sources"]:
        lines.append(f"Sources: {', '.join(status['sources'])}")
    if status["extraPaths"]:
        lines.append(f"Extra paths: {', '.join(status['extraPaths'])}")
    lines += [f"Indexed: {status['files']}/{status['totalFiles']} files · "
              f"{status['chunks']} chunks",
              f"Dirty: {'yes' if status['dirty'] else 'no'}",
              f"Store: {status['dbPath']}",
              f"Workspace: {status['workspaceDir']}"]
    probe = status.get("embeddingProbe")
    if probe:
        state = ("skipped" if probe["ok"] and not probe.get("checked") else
                 "ready" if probe["ok"] else "unavailable")
        lines.append(f"Embeddings: {state}")
        if probe.get("error"):
            lines.append(f"Embeddings error: {probe['error']}")
    ident = status["indexIdentity"]
    if ident["status"] != "valid":
        lines.append(f"Index identity: {ident['reason']}")
        lines.append("Vector search: paused until memory is rebuilt")
        lines.append(f"Fix: {ident['fix']}")
    if status["sourceCounts"]:
        lines.append("By source:")
        for entry in status["sourceCounts"]:
            total = entry.get("totalFiles", "?")
            lines.append(f"  {entry['source']} · {entry['files']}/{total} files · "
                         f"{entry['chunks']} chunks")
    vec = status["vector"]
    vstate = ("disabled" if not vec["enabled"] else "ready" if vec["available"] else
              "unavailable")
    lines.append(f"Vector store: {vstate}")
    if vec.get("dims"):
        lines.append(f"Vector dims: {vec['dims']}")
    fts = status["fts"]
    lines.append(f"FTS: {'ready' if fts['available'] else 'unavailable'} ({fts['tokenizer']})")
    cache = status["cache"]
    if cache["enabled"]:
        suffix = f" ({cache['entries']} entries)" if cache.get("entries") is not None else ""
        lines.append(f"Embedding cache: enabled{suffix}")
        if cache.get("maxEntries"):
            lines.append(f"Cache cap: {cache['maxEntries']}")
    else:
        lines.append("Embedding cache: disabled")
    issues = [f"  new or changed since the last index: {p}"
              for p in status.get("changedFiles", [])]
    issues += [f"  removed since the last index: {p}" for p in status.get("removedFiles", [])]
    issues += [f"  skipped {s['path']}: {s['reason']}" for s in status.get("skipped", [])]
    if issues:
        lines.append("Issues:")
        lines += issues
    return "\n".join(lines)

