"""``memlab status --profile 2026.9``: the shape of ``openclaw memory status [--json]`` of 2026.9.6.

2026.9.6's ``runMemoryStatus`` (``cli.runtime-*.mjs``, region
``extensions/memory-core/src/cli.runtime.ts``; captured in
``tests/data/openclaw-2026.9/cli/status*.stdout`` by ``parity/capture_cli_tiered.py``) prints,
per agent, ``{agentId, status, scan, audit, ...}`` as JSON or these lines::

    Memory Search (curated)
    Provider: openai-compatible (requested: openai-compatible)
    Model: memlab-parity-hash64
    Sources: memory, sessions
    Extra paths: $WORKSPACE/extra
    Indexed: 10/10 files · 25 chunks
    ...

:func:`index_status` fills the keys memlab knows from its own index (files, chunks and text
bytes (text + vectors at OpenClaw's float64 width) per source, the scan of the workspace,
provider, model, sources, extra paths, FTS, vector dims, the cache and batch settings) with
OpenClaw's names; what only OpenClaw has
(dreaming, the short-term recall store, its SQLite page statistics, the embedding cache's
entries) is left out rather than invented. :func:`format_status` prints the text form in
OpenClaw's order, skipping those lines.

>>> print(format_byte_size(14397), format_byte_size(0), format_byte_size(1060864))
14.1 KiB 0.0 B 1.0 MiB
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["CACHE_MAX_ENTRIES", "format_byte_size", "format_status", "index_status"]

#: ``DEFAULT_CACHE_MAX_ENTRIES`` (fixed in 2026.9: ``cache.maxEntries`` is retired).
CACHE_MAX_ENTRIES = 50_000
#: ``remote.batch`` constants 2026.9.6 reports (``limit``, ``concurrency``...).
BATCH = {"failures": 0, "limit": 2, "wait": True, "concurrency": 2, "pollIntervalMs": 2000,
         "timeoutMs": 3_600_000}


def format_byte_size(value: float) -> str:
    """``formatByteSize(value, {style: "iec", maxUnit: "tera", separator: " ",
    fractionDigits: 1})``: 1024-based units up to TiB, one decimal."""
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    size, unit = float(value), 0
    while size >= 1024 and unit < len(units) - 1:
        size /= 1024
        unit += 1
    return f"{size:.1f} {units[unit]}"


def _shorten_home(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home and path.startswith(home + os.sep) else path


def index_status(search: Any, agent: str, index_path: str | Path) -> dict[str, Any]:
    """One agent's ``openclaw memory status --json`` entry (``{agentId, status, scan}``) for a
    synced :class:`memlab.tiered.search.TieredSearch`."""
    from memlab.tiered import index as store

    s = search.settings
    con = search.con
    files = store.collect_files(search.workspace, s.sources, s.extra_paths, agent)
    scan_counts = {src: sum(1 for f in files if f.source == src) for src in s.sources}
    indexed = dict(con.execute(f"SELECT source, COUNT(*) FROM {store.SOURCES_TABLE} "
                               "GROUP BY source").fetchall())
    # SUM(octet_length(text) + octet_length(embedding)): 2026.9.6 stores each vector as a
    # float64 blob (8 bytes a dimension; 512 bytes at 64 dims in its index), memlab as float32,
    # so the embedding part is counted at OpenClaw's width. Chunks without a vector (provider
    # none) count their text only (not checked against 2026.9.6).
    width = 8 * int(search.meta.get("vectorDims") or 0)
    chunk_rows = {src: (n, (b or 0) + width * (v or 0)) for src, n, b, v in con.execute(
        f"SELECT source, COUNT(*), SUM(LENGTH(CAST(text AS BLOB))), COUNT(embedding) FROM "
        f"{store.CHUNKS_TABLE} GROUP BY source").fetchall()}
    issue = {"sessions": "no eligible session transcripts found"}  # as 2026.9.6 words it
    source_counts, scan_sources, all_issues = [], [], []
    for src in s.sources:
        n_chunks, n_bytes = chunk_rows.get(src, (0, 0))
        issues = [issue[src]] if scan_counts[src] == 0 and src in issue else []
        entry = {"source": src, "files": int(indexed.get(src, 0)), "chunks": int(n_chunks),
                 "chunkBytes": int(n_bytes), "eligible": scan_counts[src], "issues": issues}
        if src == "memory":
            entry["dirty"] = False
        source_counts.append(entry)
        scan_sources.append({"source": src, "totalFiles": scan_counts[src], "issues": issues})
        all_issues += issues
    keyword_only = search.keyword_only
    db = Path(index_path)
    status: dict[str, Any] = {
        "backend": "builtin",
        "files": int(sum(indexed.values())),
        "chunks": int(sum(n for n, _ in chunk_rows.values())),
        "dirty": False,
        "workspaceDir": str(search.workspace),
        "dbPath": str(db),
        "storage": {"databaseBytes": db.stat().st_size if db.is_file() else 0},
        "provider": s.provider,
        "model": None if keyword_only else s.model,
        "requestedProvider": s.provider,
        "sources": list(s.sources),
        "extraPaths": [p if isinstance(p, str) else p.get("path") for p in s.extra_paths],
        "sourceCounts": source_counts,
        "cache": {"enabled": s.cache_enabled, "maxEntries": CACHE_MAX_ENTRIES},
        "fts": {"enabled": True, "available": True},
        "batch": {"enabled": s.batch_enabled, **BATCH},
        "custom": {"searchMode": "fts-only" if keyword_only else "hybrid"},
    }
    if not keyword_only:
        status["vector"] = {"enabled": s.vector_enabled, "index": {"state": "complete"},
                            "dims": search.meta.get("vectorDims")}
    scan = {"sources": scan_sources, "totalFiles": sum(scan_counts.values()),
            "issues": all_issues}
    return {"agentId": agent, "status": status, "scan": scan}


def format_status(entry: dict[str, Any]) -> str:
    """The text ``openclaw memory status`` prints for one :func:`index_status` entry."""
    st, scan = entry["status"], entry["scan"]
    ws = st["workspaceDir"]
    lines = [f"Memory Search ({entry['agentId']})",
             f"Provider: {st['provider']} (requested: {st['requestedProvider']})",
             f"Model: {st['model'] or st['provider']}"]
    if st["sources"]:
        lines.append(f"Sources: {', '.join(st['sources'])}")
    if st["extraPaths"]:
        lines.append("Extra paths: " + ", ".join(
            _shorten_home(os.path.join(ws, p)) for p in st["extraPaths"]))
    lines += [f"Indexed: {st['files']}/{scan['totalFiles']} files · {st['chunks']} chunks",
              f"Dirty: {'yes' if st['dirty'] else 'no'}",
              f"Store: {_shorten_home(st['dbPath'])}",
              f"Workspace: {_shorten_home(ws)}",
              f"Index file: {format_byte_size(st['storage']['databaseBytes'])}",
              "By source:"]
    totals = {s["source"]: s["totalFiles"] for s in scan["sources"]}
    for sc in st["sourceCounts"]:
        lines.append(f"  {sc['source']} · {sc['files']}/{totals.get(sc['source'], '?')} files "
                     f"· {sc['chunks']} chunks · {format_byte_size(sc['chunkBytes'])} text + "
                     "embeddings")
    if "vector" in st:
        lines.append("Vector store: " + ("indexed (unprobed)" if st["vector"]["enabled"]
                                         else "disabled"))
        if st["vector"].get("dims"):
            lines.append(f"Vector dims: {st['vector']['dims']}")
    lines += ["FTS: ready",
              f"Embedding cache: {'enabled' if st['cache']['enabled'] else 'disabled'}",
              f"Cache cap: {st['cache']['maxEntries']}",
              f"Batch: {'enabled' if st['batch']['enabled'] else 'disabled'} (failures "
              f"{st['batch']['failures']}/{st['batch']['limit']})"]
    if scan["issues"]:
        lines.append("Issues:")
        lines += [f"  {i}" for i in scan["issues"]]
    return "\n".join(lines)
