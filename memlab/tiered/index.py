"""The persistent index of the 2026.9 profile, laid out as OpenClaw 2026.9.6's.

One SQLite file with the tables the 2026.9 search reads (docs/openclaw-2026.9.md section 2.4):
``memory_index_sources`` (one row per file, with its mtime), ``memory_index_chunks`` (chunk
text, lines, hash, recall metadata, embedding as float32), the body FTS
``memory_index_chunks_fts`` (text only, no path prefix) and the path FTS
``memory_index_paths_fts`` (:mod:`memlab.index.paths`), and ``memory_index_meta`` whose
identity includes ``chunkingVersion: 5``: an index built by another profile, provider, model,
tokenizer, sources or chunking version is rebuilt whole (:func:`build_index`, one transaction);
otherwise :func:`sync_index` updates it file by file as 2026.9.6's ``syncMemoryFiles`` /
``syncArchiveFiles`` do (see :func:`sync_index` for what that means for row order).

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
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memlab.annotations import chunk_metadata
from memlab.chunking import chunk_memory_file, split_for_provider
from memlab.index.paths import PATHS_FTS_TABLE, TOKENIZE_CLAUSES, add_path, create_paths_fts
from memlab.index.store import APPLICATION_ID, default_index_path
from memlab.index.store import index_file_problem as store_file_problem
from memlab.lines import detected_line
from memlab.sessions.live_store import (
    chunk_at_reset_boundary,
    live_store_path,
    read_live_sessions,
)
from memlab.sessions.render import remap_chunk_lines
from memlab.sessions.scan import scan_sessions
from memlab.text.js import js_trim
from memlab.workspace import ExtraPath, MemoryFile, list_memory_files

#: The chunker of the ``memory.search`` line (:attr:`memlab.lines.Line.chunking_version`).
CHUNKING_VERSION = detected_line("memory.search").chunking_version
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


def content_hash(file: SourceFile) -> str:
    """The hash stored per file in ``memory_index_sources.hash``: sha256 of its indexed text
    (a memory file's content, a transcript's rendered text)."""
    return hashlib.sha256(file.content.encode("utf-8", "surrogatepass")).hexdigest()


def index_file(workspace: str | Path, config: Mapping[str, Any] | None, line_suffix: str,
               index_path: str | Path | None = None) -> str | Path:
    """The index of a tiered-engine line: ``index_path``, else the config's
    ``memlab.indexPath``, else the line's default file beside the 2026.7 one
    (:func:`memlab.index.store.default_index_path` with ``line_suffix``); ``":memory:"`` for
    none. The file's folder is created.

    >>> str(index_file("/tmp/ws", {"memlab": {"indexPath": ":memory:"}}, ".x"))
    ':memory:'
    """
    chosen = index_path or ((config or {}).get("memlab") or {}).get("indexPath")
    if str(chosen) == ":memory:":
        return ":memory:"
    path = Path(chosen).expanduser() if chosen else default_index_path(workspace, line_suffix)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def identity(settings: dict[str, Any]) -> str:
    """The index identity: a hash of the settings it was built with (profile, chunking
    version, provider, model, tokenizer, sources). Files are compared one by one
    (:func:`sync_index`); a different identity means a full rebuild."""
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode("utf-8")).hexdigest()


# ------------------------------------------------------------------------------- the file

#: Tables of this index (FTS5 adds shadow tables ``<fts>_data`` etc.).
_OWN_TABLES = (META_TABLE, SOURCES_TABLE, CHUNKS_TABLE, FTS_TABLE, PATHS_FTS_TABLE)


def _own_table(name: str) -> bool:
    return name.startswith("sqlite_") or any(name == t or name.startswith(f"{t}_")
                                             for t in _OWN_TABLES)


def index_file_problem(path: str | Path) -> str | None:
    """Why ``path`` must not be used as this index (``None`` when it may): the checks of the
    2026.7 index (:func:`memlab.index.store.index_file_problem`: a missing or empty file, or a
    regular SQLite file carrying memlab's marker), plus, for a file without the marker (an
    index of this profile written before it had one), SQLite holding only this index's tables.

    >>> import tempfile, pathlib
    >>> notes = pathlib.Path(tempfile.mkdtemp()) / "MEMORY.md"
    >>> _ = notes.write_text("# my notes\\n")
    >>> index_file_problem(notes)
    'it does not start with the SQLite header'
    """
    problem = store_file_problem(path)
    if problem is None:
        return None
    try:
        with open(path, "rb") as fh:
            header = fh.read(100)
        if not header.startswith(b"SQLite format 3\x00") or len(header) < 100 or \
                int.from_bytes(header[68:72], "big") != 0:
            return problem
        con = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True)
        try:
            names = [r[0] for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")]
        finally:
            con.close()
    except (OSError, sqlite3.Error):
        return problem
    return None if all(_own_table(n) for n in names) else problem


def connect(index_path: str | Path) -> sqlite3.Connection:
    """Open the index (``":memory:"`` for none). A file is opened in WAL mode, so a search
    reads a consistent snapshot while an indexer writes; transactions are explicit
    (:func:`sync_index`)."""
    con = sqlite3.connect(str(index_path))
    if str(index_path) != ":memory:":
        con.execute("PRAGMA busy_timeout=30000")
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.OperationalError:  # a read-only file: searched as it is
            pass
    return con


@contextmanager
def _transaction(con: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, ``ROLLBACK`` on any exception."""
    if con.in_transaction:
        con.commit()
    con.execute("BEGIN IMMEDIATE")
    try:
        yield con
    except BaseException:
        if con.in_transaction:
            con.rollback()
        raise
    con.commit()


def _create(con: sqlite3.Connection, tokenizer: str) -> None:
    clause = TOKENIZE_CLAUSES[tokenizer]
    for statement in (
        f"CREATE TABLE {META_TABLE}(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        f"CREATE TABLE {SOURCES_TABLE}(id INTEGER PRIMARY KEY, path TEXT NOT NULL, "
        "source TEXT NOT NULL, hash TEXT NOT NULL, mtime REAL NOT NULL, size INTEGER NOT NULL, "
        "UNIQUE (path, source))",
        f"CREATE TABLE {CHUNKS_TABLE}(rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, "
        "path TEXT NOT NULL, source TEXT NOT NULL, start_line INTEGER NOT NULL, "
        "end_line INTEGER NOT NULL, text TEXT NOT NULL, hash TEXT NOT NULL, model TEXT, "
        "importance INTEGER, triggers TEXT, project_key TEXT, embedding BLOB)",
        f"CREATE INDEX idx_{CHUNKS_TABLE}_path_source ON {CHUNKS_TABLE}(path, source)",
        f"CREATE INDEX idx_{CHUNKS_TABLE}_hash ON {CHUNKS_TABLE}(hash)",
        f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(text, id UNINDEXED, path UNINDEXED, "
        "source UNINDEXED, model UNINDEXED, start_line UNINDEXED, end_line UNINDEXED"
        f"{clause})",
    ):
        con.execute(statement)
    create_paths_fts(con, tokenizer)
    con.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # memlab's marker


def _drop_all(con: sqlite3.Connection) -> None:
    rows = con.execute("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') "
                       "AND name NOT LIKE 'sqlite_%'").fetchall()
    for kind, name in rows:
        try:
            con.execute(f'DROP {"VIEW" if kind == "view" else "TABLE"} IF EXISTS "{name}"')
        except sqlite3.OperationalError:  # shadow tables of an FTS table already dropped
            pass


def stored_meta(con: sqlite3.Connection) -> dict[str, Any] | None:
    """The index meta of an open index file (``None`` when it is not a 2026.9-profile index)."""
    try:
        row = con.execute(f"SELECT value FROM {META_TABLE} WHERE key = ?", (META_KEY,)).fetchone()
    except sqlite3.OperationalError:
        return None
    return json.loads(row[0]) if row else None


# ------------------------------------------------------------------------------- writing

Embed = Callable[[list[str]], np.ndarray]


def _blob(vector: Any) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def _insert_chunks(con: sqlite3.Connection, chunks: Sequence[IndexChunk],
                   blobs: Sequence[bytes | None], model: str) -> None:
    """Append ``chunks`` (rowid = the next free one, as ``chunk_rowid INTEGER PRIMARY KEY``
    gets it) and their body FTS rows (``rowid = chunk_rowid``, as 2026.9.6's trigger)."""
    for c, blob in zip(chunks, blobs, strict=True):
        cur = con.execute(
            f"INSERT INTO {CHUNKS_TABLE}(id, path, source, start_line, end_line, text, hash, "
            "model, importance, triggers, project_key, embedding) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (c.id, c.path, c.source, c.start_line, c.end_line, c.text, c.hash, model,
             c.importance, c.triggers, c.project_key, blob))
        con.execute(f"INSERT INTO {FTS_TABLE}(rowid, text, id, path, source, model, start_line, "
                    "end_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (cur.lastrowid, c.text, c.id, c.path, c.source, model, c.start_line,
                     c.end_line))


def _clear_file(con: sqlite3.Connection, path: str, source: str) -> None:
    """``MemorySourceIndexKernel.clear``: the file's chunks and their FTS rows."""
    con.execute(f"DELETE FROM {FTS_TABLE} WHERE rowid IN (SELECT rowid FROM {CHUNKS_TABLE} "
                "WHERE path = ? AND source = ?)", (path, source))
    con.execute(f"DELETE FROM {CHUNKS_TABLE} WHERE path = ? AND source = ?", (path, source))


def _write_meta(con: sqlite3.Connection, settings: dict[str, Any], dims: int | None
                ) -> dict[str, Any]:
    files = con.execute(f"SELECT COUNT(*) FROM {SOURCES_TABLE}").fetchone()[0]
    chunks = con.execute(f"SELECT COUNT(*) FROM {CHUNKS_TABLE}").fetchone()[0]
    meta = {**settings, "chunkingVersion": CHUNKING_VERSION, "identity": identity(settings),
            "files": files, "chunks": chunks, "vectorDims": dims}
    con.execute(f"INSERT OR REPLACE INTO {META_TABLE}(key, value) VALUES (?, ?)",
                (META_KEY, json.dumps(meta, sort_keys=True)))
    return meta


@dataclass
class SyncReport:
    """What :func:`sync_index` did: ``mode`` ``"full"`` (with its ``reason``) or
    ``"incremental"``; files written, unchanged, whose stored mtime/size were refreshed,
    and removed; chunk texts sent to the embedder."""

    mode: str
    reason: str | None = None
    files: int = 0
    indexed: int = 0
    unchanged: int = 0
    refreshed: int = 0
    deleted: int = 0
    chunks: int = 0
    texts_embedded: int = 0
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return self.mode == "full" or bool(self.indexed or self.deleted or self.refreshed)


def build_index(con: sqlite3.Connection, files: Sequence[SourceFile], settings: dict[str, Any],
                embed: Embed | None, max_input_bytes: int | None) -> dict[str, Any]:
    """(Re)build the whole index from ``files`` in one transaction (the old index stays
    until the new one is complete); ``embed`` maps texts to vectors (``None``: keyword
    only). Returns the stored meta."""
    per_file = [file_chunks(f, max_input_bytes) for f in files]
    texts = [c.text for chunks in per_file for c in chunks]
    vectors = embed(texts) if embed is not None and texts else None
    blobs = [None] * len(texts) if vectors is None else [_blob(v) for v in vectors]
    model = settings.get("model") or "fts-only"
    with _transaction(con):
        _drop_all(con)
        _create(con, settings["ftsTokenizer"])
        at = 0
        for sid, (f, chunks) in enumerate(zip(files, per_file, strict=True), start=1):
            con.execute(f"INSERT INTO {SOURCES_TABLE}(id, path, source, hash, mtime, size) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (sid, f.path, f.source, content_hash(f), f.mtime_ms, f.size))
            add_path(con, sid, f.path, f.source)
            _insert_chunks(con, chunks, blobs[at:at + len(chunks)], model)
            at += len(chunks)
        dims = int(vectors.shape[1]) if vectors is not None and len(vectors) else None
        return _write_meta(con, settings, dims)


def _reused_vectors(con: sqlite3.Connection, chunks: Sequence[IndexChunk]
                    ) -> dict[str, bytes]:
    """Stored vectors of chunk texts the index already holds (same settings, so the same
    model): ``{text: blob}``."""
    hashes = sorted({c.hash for c in chunks})
    out: dict[str, bytes] = {}
    for i in range(0, len(hashes), 500):
        part = hashes[i:i + 500]
        for text, blob in con.execute(
                f"SELECT text, embedding FROM {CHUNKS_TABLE} WHERE embedding IS NOT NULL AND "
                f"hash IN ({', '.join('?' for _ in part)})", part):
            out.setdefault(text, blob)
    return out


def _write_file(con: sqlite3.Connection, f: SourceFile, chunks: Sequence[IndexChunk],
                blobs: Sequence[bytes | None], model: str) -> None:
    """``MemorySourceIndexKernel.replaceRows`` in one transaction: the file's old chunks
    deleted, its new ones appended, its source row upserted (an existing file keeps its id,
    a new one takes the next)."""
    with _transaction(con):
        _clear_file(con, f.path, f.source)
        _insert_chunks(con, chunks, blobs, model)
        row = con.execute(f"SELECT id FROM {SOURCES_TABLE} WHERE path = ? AND source = ?",
                          (f.path, f.source)).fetchone()
        if row is None:
            cur = con.execute(f"INSERT INTO {SOURCES_TABLE}(path, source, hash, mtime, size) "
                              "VALUES (?, ?, ?, ?, ?)",
                              (f.path, f.source, content_hash(f), f.mtime_ms, f.size))
            add_path(con, int(cur.lastrowid), f.path, f.source)
        else:
            con.execute(f"UPDATE {SOURCES_TABLE} SET hash = ?, mtime = ?, size = ? WHERE id = ?",
                        (content_hash(f), f.mtime_ms, f.size, row[0]))


def _delete_file(con: sqlite3.Connection, sid: int, path: str, source: str) -> None:
    """``deleteIfCurrent``: a file that is gone, its chunks, FTS rows and path row."""
    with _transaction(con):
        _clear_file(con, path, source)
        con.execute(f"DELETE FROM {SOURCES_TABLE} WHERE id = ?", (sid,))
        con.execute(f"DELETE FROM {PATHS_FTS_TABLE} WHERE rowid = ?", (sid,))


def sync_index(con: sqlite3.Connection, files: Sequence[SourceFile], settings: dict[str, Any],
               embed: Embed | None, max_input_bytes: int | None, force: bool = False
               ) -> SyncReport:
    """Bring the index up to date with ``files`` (:func:`collect_files`).

    A missing index, ``force`` or other settings (:func:`identity`) rebuild it whole
    (:func:`build_index`). Otherwise, as 2026.9.6's incremental sync: each file whose
    content hash differs from its ``memory_index_sources.hash`` (or that is new) is
    re-chunked and its rows replaced in one transaction, in listing order; a transcript
    whose text is unchanged but whose mtime or size changed only gets them updated
    (``updateUnchangedSessionSourceMetadata``; a memory file with unchanged content keeps
    its stored row, mtime included, as in 2026.9.6); then files that are gone are deleted;
    the meta is written last. A sync killed between two files leaves every file either
    fully old or fully new, and the next one finishes the job. Chunk texts the index
    already holds keep their stored vectors: only new texts are embedded.

    Row order: as in 2026.9.6, a rewritten file's chunks take the next rowids (after every
    other chunk) and a new file the next source id, whereas a rebuild numbers them in
    listing order. Rankings do not depend on rowids except where candidates tie exactly at
    a candidate cut (the 200 of each leg, or a smaller ``memlab.whatIf.candidateUniverse``):
    FTS5's ``ORDER BY rank`` keeps such ties in row order (and memlab models sqlite-vec's
    KNN the same way), so there 2026.9.6 itself answers by insertion order after an
    incremental sync; memlab does the same (docs/openclaw-2026.9.md section 2.5).
    ``sync(force=True)`` restores the listing order.
    """
    started = time.perf_counter()
    meta = stored_meta(con)
    model = settings.get("model") or "fts-only"
    report = SyncReport(mode="incremental", files=len(files))
    if force or meta is None or meta.get("identity") != identity(settings):
        report.mode = "full"
        report.reason = ("forced" if force else "initial index" if meta is None
                         else "settings changed")
        counter = _Counting(embed)
        build_index(con, files, settings, counter if embed is not None else None,
                    max_input_bytes)
        report.indexed, report.texts_embedded = len(files), counter.texts
        report.chunks = con.execute(f"SELECT COUNT(*) FROM {CHUNKS_TABLE}").fetchone()[0]
        report.seconds = time.perf_counter() - started
        return report
    existing = {(source, path): (sid, h, mtime, size) for sid, path, source, h, mtime, size
                in con.execute(f"SELECT id, path, source, hash, mtime, size FROM "
                               f"{SOURCES_TABLE} ORDER BY id")}
    dims = meta.get("vectorDims")
    for f in files:
        old = existing.get((f.source, f.path))
        if old is not None and old[1] == content_hash(f):
            if f.source == "sessions" and (old[2], old[3]) != (f.mtime_ms, f.size):
                with _transaction(con):
                    con.execute(f"UPDATE {SOURCES_TABLE} SET mtime = ?, size = ? WHERE id = ?",
                                (f.mtime_ms, f.size, old[0]))
                report.refreshed += 1
            else:
                report.unchanged += 1
            continue
        chunks = file_chunks(f, max_input_bytes)
        blobs: list[bytes | None] = [None] * len(chunks)
        if embed is not None and chunks:
            known = _reused_vectors(con, chunks)
            missing = list(dict.fromkeys(c.text for c in chunks if c.text not in known))
            if missing:
                vectors = np.asarray(embed(missing))
                if dims is not None and vectors.shape[1] != dims:
                    raise ValueError(
                        f"the embedder returned {vectors.shape[1]}-dim vectors but the index "
                        f"holds {dims}-dim vectors; nothing of {f.path} was written: rebuild "
                        "the index with `memlab index --force`")
                dims = int(vectors.shape[1])
                known.update(zip(missing, (_blob(v) for v in vectors), strict=True))
                report.texts_embedded += len(missing)
            blobs = [known[c.text] for c in chunks]
        _write_file(con, f, chunks, blobs, model)
        report.indexed += 1
    active = {(f.source, f.path) for f in files}
    for (source, path), (sid, *_rest) in existing.items():
        if (source, path) not in active:
            _delete_file(con, sid, path, source)
            report.deleted += 1
    if report.changed or meta.get("files") != len(files) or meta.get("vectorDims") != dims:
        with _transaction(con):
            _write_meta(con, settings, dims)
    report.chunks = con.execute(f"SELECT COUNT(*) FROM {CHUNKS_TABLE}").fetchone()[0]
    report.seconds = time.perf_counter() - started
    return report


class _Counting:
    """An ``embed`` callable counting the texts it embeds."""

    def __init__(self, embed: Embed | None):
        self.embed, self.texts = embed, 0

    def __call__(self, texts: list[str]) -> np.ndarray:
        assert self.embed is not None
        self.texts += len(texts)
        return self.embed(texts)
