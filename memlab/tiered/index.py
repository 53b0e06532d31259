"""The persistent index of the 2026.9 profile, laid out as OpenClaw 2026.9.6's.

One SQLite file with the tables the 2026.9 search reads (docs/openclaw-2026.9.md section 2.4):
``memory_index_sources`` (one row per file, with its mtime), ``memory_index_chunks`` (chunk
text, lines, hash, recall metadata, embedding as float32), the body FTS
``memory_index_chunks_fts`` (text only, no path prefix) and the path FTS
``memory_index_paths_fts`` (:mod:`memlab.index.paths`), and ``memory_index_meta`` whose
identity includes ``chunkingVersion: 5``: an index built by another profile, provider, model,
tokenizer or from other file contents is rebuilt (:func:`open_index`).

What is indexed (:func:`collect_files`): ``MEMORY.md``, ``USER.md``, ``memory/**``,
``extraPaths`` (strings or ``{path, pattern}``: a directory's files filtered by the glob,
:class:`memlab.workspace.ExtraPath`; chunking version 5 with annotation metadata,
:mod:`memlab.annotations`), and
when ``sessions`` is among the resolved sources (``rememberAcrossConversations`` defaults on)
the agent's live sessions from its SQLite session store, a copy of OpenClaw's agent database
at ``sessions/<agent>/openclaw-agent.sqlite`` (:mod:`memlab.sessions.live_store`), then its
archived transcripts (``sessions/<agent>/*.jsonl.reset.<ts>``; 2026.9.6 indexes no other file
of that folder). Sessions keep their mtime (their hits decay by it).

>>> import tempfile, pathlib
>>> ws = pathlib.Path(tempfile.mkdtemp())
>>> _ = (ws / "USER.md").write_text("- Name: Dana <!-- importance: 8 -->")
>>> [(f.path, f.source) for f in collect_files(ws, ["memory"], [], "main")]
[('USER.md', 'memory')]
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memlab.annotations import chunk_metadata
from memlab.chunking import chunk_memory_file, split_for_provider
from memlab.index.paths import TOKENIZE_CLAUSES, add_path, create_paths_fts
from memlab.sessions.live_store import (
    chunk_at_reset_boundary,
    live_store_path,
    read_live_sessions,
)
from memlab.sessions.render import remap_chunk_lines
from memlab.sessions.scan import scan_sessions
from memlab.text.js import js_trim
from memlab.workspace import ExtraPath, MemoryFile, list_memory_files

CHUNKING_VERSION = 5
CHUNKS_TABLE = "memory_index_chunks"
FTS_TABLE = "memory_index_chunks_fts"
SOURCES_TABLE = "memory_index_sources"
META_TABLE = "memory_index_meta"
META_KEY = "memory_index_meta_v1"


@dataclass(frozen=True)
class SourceFile:
    """One indexed file: relative path, source, content, mtime (ms) and, for transcripts,
    the rendered-line → JSONL-line map."""

    path: str
    source: str
    content: str
    mtime_ms: float
    size: int
    line_map: tuple[int, ...] = ()
    cutoff_line: int | None = None


@dataclass(frozen=True)
class IndexChunk:
    """One indexed chunk with its recall metadata."""

    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    text: str
    hash: str
    importance: int | None
    triggers: str | None
    project_key: str | None


def _stat_ms(path: Path) -> tuple[float, int]:
    st = path.stat()
    return st.st_mtime_ns / 1e6, st.st_size


def collect_files(workspace: str | Path, sources: Sequence[str], extra_paths: Sequence[Any],
                  agent_id: str) -> list[SourceFile]:
    """The files 2026.9.6 indexes for ``workspace`` (module docstring), in its order."""
    ws = Path(workspace).expanduser()
    extras: list[ExtraPath] = []
    for entry in extra_paths:  # 2026.9 normalisation: unique by configured (path, pattern)
        if isinstance(entry, str):
            extras.append(ExtraPath(entry))
        elif isinstance(entry, dict):
            extras.append(ExtraPath(str(entry["path"]), entry.get("pattern")))
        else:
            extras.append(ExtraPath(entry.path, getattr(entry, "pattern", None)))
    files = list_memory_files(ws, extras)
    user = ws / "USER.md"
    if user.is_file() and not user.is_symlink():  # 2026.9 indexes USER.md after MEMORY.md
        if os.path.realpath(user) not in {os.path.realpath(f.abs_path) for f in files}:
            at = 1 if files and files[0].path == "MEMORY.md" else 0
            files.insert(at, MemoryFile("USER.md", user))
    out = []
    for f in files:
        path = Path(f.abs_path)
        mtime, size = _stat_ms(path)
        out.append(SourceFile(f.path, "memory", path.read_bytes().decode("utf-8", "replace"),
                              mtime, size))
    store = live_store_path(ws / "sessions", agent_id)
    if "sessions" in sources and store.is_file():  # live sessions first, as 2026.9 lists them
        out.extend(SourceFile(s.path, "sessions", s.transcript.text, s.mtime_ms, s.size,
                              tuple(s.transcript.line_map), s.cutoff_line)
                   for s in read_live_sessions(store, agent_id))
    if "sessions" in sources and (ws / "sessions").is_dir():
        loaded, _skipped = scan_sessions(ws / "sessions", agent_id)
        for s in loaded:
            if ".jsonl.reset." not in Path(s.file.path).name:
                continue
            out.append(SourceFile(s.file.path, "sessions", s.transcript.text,
                                  float(s.file.mtime_ms), s.file.size,
                                  tuple(s.transcript.line_map)))
    return out


def file_chunks(file: SourceFile, max_input_bytes: int | None) -> list[IndexChunk]:
    """Chunking version 5 of one file, its recall metadata, the provider's byte cap."""
    if file.cutoff_line is not None:
        chunks = chunk_at_reset_boundary(file.path, file.content, file.line_map,
                                         file.cutoff_line, CHUNKING_VERSION)
    else:
        chunks = chunk_memory_file(file.path, file.content, source=file.source,
                                   version=CHUNKING_VERSION)
    meta = chunk_metadata(file.path, file.content, chunks, source=file.source)
    if file.line_map:
        chunks = remap_chunk_lines(chunks, list(file.line_map))
    pairs = [(c, m) for c, m in zip(chunks, meta, strict=True) if js_trim(c.text)]
    if max_input_bytes:
        pairs = [(piece, m) for c, m in pairs for piece in split_for_provider([c], max_input_bytes)]
    out = []
    for c, m in pairs:
        key = f"{file.source}:{file.path}:{c.start_line}:{c.end_line}:{c.hash}"
        cid = hashlib.sha256(key.encode("utf-8")).hexdigest()
        out.append(IndexChunk(cid, file.path, file.source, c.start_line, c.end_line, c.text,
                              c.hash, m.importance, m.triggers, m.project_key))
    return out


def identity(files: Sequence[SourceFile], settings: dict[str, Any]) -> str:
    """The index identity: the settings (profile, chunking version, provider, model,
    tokenizer, sources) and every file's path, source, mtime and content hash."""
    h = hashlib.sha256(json.dumps(settings, sort_keys=True).encode("utf-8"))
    for f in files:
        h.update(f"\0{f.source}\0{f.path}\0{f.mtime_ms!r}\0".encode())
        h.update(hashlib.sha256(f.content.encode("utf-8", "surrogatepass")).digest())
    return h.hexdigest()


def _create(con: sqlite3.Connection, tokenizer: str) -> None:
    clause = TOKENIZE_CLAUSES[tokenizer]
    con.executescript(f"""
        CREATE TABLE {META_TABLE}(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE {SOURCES_TABLE}(id INTEGER PRIMARY KEY, path TEXT NOT NULL,
            source TEXT NOT NULL, mtime REAL NOT NULL, size INTEGER NOT NULL);
        CREATE TABLE {CHUNKS_TABLE}(rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
            path TEXT NOT NULL, source TEXT NOT NULL, start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL, text TEXT NOT NULL, hash TEXT NOT NULL, model TEXT,
            importance INTEGER, triggers TEXT, project_key TEXT, embedding BLOB);
        CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(text, id UNINDEXED, path UNINDEXED,
            source UNINDEXED, model UNINDEXED, start_line UNINDEXED, end_line UNINDEXED{clause});
    """)
    create_paths_fts(con, tokenizer)


def _drop_all(con: sqlite3.Connection) -> None:
    rows = con.execute("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') "
                       "AND name NOT LIKE 'sqlite_%'").fetchall()
    for kind, name in rows:
        try:
            con.execute(f'DROP {"VIEW" if kind == "view" else "TABLE"} IF EXISTS "{name}"')
        except sqlite3.OperationalError:  # shadow tables of an FTS table already dropped
            pass
    con.commit()


def stored_meta(con: sqlite3.Connection) -> dict[str, Any] | None:
    """The index meta of an open index file (``None`` when it is not a 2026.9-profile index)."""
    try:
        row = con.execute(f"SELECT value FROM {META_TABLE} WHERE key = ?", (META_KEY,)).fetchone()
    except sqlite3.OperationalError:
        return None
    return json.loads(row[0]) if row else None


def build_index(con: sqlite3.Connection, files: Sequence[SourceFile], settings: dict[str, Any],
                embed: Callable[[list[str]], np.ndarray] | None,
                max_input_bytes: int | None) -> dict[str, Any]:
    """(Re)build the whole index from ``files``; ``embed`` maps texts to vectors (``None``:
    keyword only). Returns the stored meta."""
    _drop_all(con)
    _create(con, settings["ftsTokenizer"])
    chunks: list[IndexChunk] = []
    for sid, f in enumerate(files, start=1):
        con.execute(f"INSERT INTO {SOURCES_TABLE}(id, path, source, mtime, size) "
                    "VALUES (?, ?, ?, ?, ?)", (sid, f.path, f.source, f.mtime_ms, f.size))
        add_path(con, sid, f.path, f.source)
        chunks.extend(file_chunks(f, max_input_bytes))
    vectors = embed([c.text for c in chunks]) if embed is not None and chunks else None
    model = settings.get("model") or "fts-only"
    for i, c in enumerate(chunks):
        blob = None if vectors is None else np.asarray(vectors[i], dtype="<f4").tobytes()
        con.execute(f"INSERT INTO {CHUNKS_TABLE}(id, path, source, start_line, end_line, text, "
                    "hash, model, importance, triggers, project_key, embedding) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (c.id, c.path, c.source, c.start_line, c.end_line, c.text, c.hash, model,
                     c.importance, c.triggers, c.project_key, blob))
        con.execute(f"INSERT INTO {FTS_TABLE}(text, id, path, source, model, start_line, "
                    "end_line) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (c.text, c.id, c.path, c.source, model, c.start_line, c.end_line))
    meta = {**settings, "chunkingVersion": CHUNKING_VERSION, "files": len(files),
            "chunks": len(chunks),
            "vectorDims": int(vectors.shape[1]) if vectors is not None and len(vectors) else None}
    con.execute(f"INSERT INTO {META_TABLE}(key, value) VALUES (?, ?)",
                (META_KEY, json.dumps(meta, sort_keys=True)))
    con.commit()
    return meta
