"""The persistent index: one SQLite file per workspace, OpenClaw 2026.7's tables (reference §3).

Tables (names as in OpenClaw 2026.7's agent database):

``memory_index_meta``
    key/value; key ``memory_index_meta_v1`` holds the index identity as JSON (provider, model,
    providerKey, sources, scopeHash, chunkTokens, chunkOverlap, ftsTokenizer, vectorDims).
``memory_index_sources``
    one row per indexed file: ``(path, source)`` key, sha256 ``hash``, ``mtime`` (ms), ``size``.
``memory_index_chunks``
    one row per chunk: ``id`` (OpenClaw's chunk id), path, source, start/end line, ``hash``,
    ``model``, ``text``, ``updated_at`` (ms). Row order (rowid) is the ``docno`` order of
    :meth:`IndexStore.corpus`.
``memory_index_chunks_fts``
    the FTS5 table (``text`` indexed; id, path, source, model, start_line, end_line
    unindexed), tokenizer ``unicode61`` (FTS5's default) or ``trigram case_sensitive 0``.
``memory_index_chunks_vec``
    ``(id, embedding)``: each chunk's vector as a float32 blob (OpenClaw keeps them in a
    sqlite-vec ``vec0`` table; memlab scores them in numpy with sqlite-vec's arithmetic, see
    :mod:`memlab.index.vectors`).
``memory_index_state``
    a revision counter bumped by triggers on every change of sources or chunks.

The file is opened in WAL mode, so searches read a consistent snapshot while an indexer
writes; every write goes through :meth:`IndexStore.write` (``BEGIN IMMEDIATE``). The embedding
cache (:class:`memlab.embed.EmbeddingCache`) can live in the same file (its table is
OpenClaw's ``memory_embedding_cache``): ``EmbeddingCache(store.path)``.

>>> store = IndexStore()              # in memory
>>> store.fts_tokenizer, store.has_chunks()
('unicode61', False)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from memlab.index.errors import IndexCorrupt, IndexNotWritable, IndexUnavailable, NotAnIndex
from memlab.safeio import UnsafePath, refuse_link

if TYPE_CHECKING:  # memlab.corpus imports pandas: loaded with the chunks, in _load
    from memlab.corpus import Corpus

__all__ = [
    "CHUNKS_TABLE",
    "FTS_TABLE",
    "FTS_TOKENIZERS",
    "META_KEY",
    "META_TABLE",
    "MIN_SQLITE_VERSION",
    "SOURCES_TABLE",
    "STATE_TABLE",
    "VECTOR_TABLE",
    "ChunkRow",
    "IndexStore",
    "IndexUnavailable",
    "check_sqlite",
    "default_index_path",
    "index_file_problem",
    "remove_index_files",
]

META_TABLE = "memory_index_meta"
SOURCES_TABLE = "memory_index_sources"
CHUNKS_TABLE = "memory_index_chunks"
FTS_TABLE = "memory_index_chunks_fts"
VECTOR_TABLE = "memory_index_chunks_vec"
STATE_TABLE = "memory_index_state"
#: Key of the identity JSON in ``memory_index_meta`` (OpenClaw's ``META_KEY``).
META_KEY = "memory_index_meta_v1"
#: memlab's own meta key: the workspace the index was built from (for ``corpus().root``).
WORKSPACE_KEY = "memlab_workspace"

#: memlab's schema marker: SQLite's ``application_id`` header field (bytes 68-71) of every
#: index memlab creates ("MLab"). Nothing without it (or, for indexes older than the marker,
#: without memlab's tables and nothing else) is ever written to or replaced.
APPLICATION_ID = 0x4D4C6162
SQLITE_MAGIC = b"SQLite format 3\x00"
#: Tables an index file may hold (FTS5 adds shadow tables ``<fts>_data`` etc.).
_OWN_TABLES = {"memory_index_meta", "memory_index_sources", "memory_index_chunks",
               "memory_index_chunks_vec", "memory_index_state", "memory_embedding_cache"}

FTS_TOKENIZERS = ("unicode61", "trigram")
#: FTS5 and its ``trigram`` tokenizer (with ``case_sensitive``) need SQLite 3.34.
MIN_SQLITE_VERSION = (3, 34, 0)

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {META_TABLE} (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS {SOURCES_TABLE} (
    path TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT 'memory',
    hash TEXT NOT NULL,
    mtime INTEGER NOT NULL,
    size INTEGER NOT NULL,
    PRIMARY KEY (path, source)
);
CREATE TABLE IF NOT EXISTS {CHUNKS_TABLE} (
    id TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT 'memory',
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    hash TEXT NOT NULL,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS {VECTOR_TABLE} (
    id TEXT PRIMARY KEY,
    embedding BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS {STATE_TABLE} (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    revision INTEGER NOT NULL
);
INSERT OR IGNORE INTO {STATE_TABLE} (id, revision) VALUES (1, 0);
CREATE INDEX IF NOT EXISTS idx_{SOURCES_TABLE}_source ON {SOURCES_TABLE}(source);
CREATE INDEX IF NOT EXISTS idx_{CHUNKS_TABLE}_path_source ON {CHUNKS_TABLE}(path, source);
CREATE INDEX IF NOT EXISTS idx_{CHUNKS_TABLE}_path ON {CHUNKS_TABLE}(path);
CREATE INDEX IF NOT EXISTS idx_{CHUNKS_TABLE}_source ON {CHUNKS_TABLE}(source);
""" + "".join(
    f"""
CREATE TRIGGER IF NOT EXISTS {table}_revision_after_{event.lower()}
AFTER {event} ON {table}
BEGIN
    UPDATE {STATE_TABLE} SET revision = revision + 1 WHERE id = 1;
END;
"""
    for table in (SOURCES_TABLE, CHUNKS_TABLE) for event in ("INSERT", "UPDATE", "DELETE"))


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".")[:3])


_SQLITE_CHECKED: list[bool] = []


def check_sqlite() -> None:
    """Raise :class:`IndexUnavailable` unless SQLite has FTS5 with the trigram tokenizer.

    >>> check_sqlite()   # SQLite >= 3.34 with FTS5 on this machine
    """
    if _SQLITE_CHECKED:
        return
    have = sqlite3.sqlite_version
    if _version_tuple(have) < MIN_SQLITE_VERSION:
        need = ".".join(map(str, MIN_SQLITE_VERSION))
        raise IndexUnavailable(
            f"memlab's index needs SQLite >= {need} (FTS5 with the trigram tokenizer); this "
            f"Python ({sys.executable}) links SQLite {have}. Use a Python built against a "
            "newer SQLite (python.org and most distributions since 2021 qualify)")
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='trigram case_sensitive 0')")
    except sqlite3.OperationalError as exc:
        raise IndexUnavailable(
            f"this Python's SQLite {have} was built without FTS5 or its trigram tokenizer "
            f"({exc}); memlab's index needs both. Use a Python whose sqlite3 module has FTS5"
        ) from exc
    finally:
        conn.close()
    _SQLITE_CHECKED.append(True)


def default_index_path(workspace: str | Path, line_suffix: str = "") -> Path:
    """``$MEMLAB_CACHE_DIR/index/<sha256 of the workspace realpath><line_suffix>.sqlite``
    (``~/.cache/memlab`` when ``MEMLAB_CACHE_DIR`` is unset); ``line_suffix`` is the OpenClaw
    line's :attr:`memlab.lines.Line.index_suffix`, so two lines never share an index file.

    >>> default_index_path("/tmp/ws").suffix, default_index_path("/tmp/ws", ".x").suffixes
    ('.sqlite', ['.x', '.sqlite'])
    """
    base = os.environ.get("MEMLAB_CACHE_DIR") or Path.home() / ".cache" / "memlab"
    real = os.path.realpath(os.path.expanduser(os.fspath(workspace)))
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()
    return Path(base).expanduser() / "index" / f"{digest}{line_suffix}.sqlite"


def _own_table(name: str) -> bool:
    return (name in _OWN_TABLES or name.startswith("sqlite_")
            or name == FTS_TABLE or name.startswith(f"{FTS_TABLE}_"))


def index_file_problem(path: str | Path) -> str | None:
    """Why ``path`` must not be used as an index (``None`` when it may): memlab only opens
    for writing, and only replaces, files it created as indexes.

    A missing or empty file may become an index. Otherwise the file must be a regular file
    (not a link) starting with SQLite's header, and carry memlab's schema marker
    (:data:`APPLICATION_ID`) -- or, for indexes written before the marker existed, be a
    readable SQLite database holding memlab's tables and nothing else.

    >>> import tempfile, pathlib
    >>> notes = pathlib.Path(tempfile.mkdtemp()) / "MEMORY.md"
    >>> _ = notes.write_text("# my notes\\n")
    >>> index_file_problem(notes)
    'it does not start with the SQLite header'
    """
    p = Path(path)
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot inspect it: {exc.strerror or exc}"
    import stat as stat_mod

    if stat_mod.S_ISLNK(st.st_mode):
        return "it is a symbolic link (memlab never writes through links)"
    if not stat_mod.S_ISREG(st.st_mode):
        return "it is not a regular file"
    if st.st_size == 0:
        return None
    try:
        with open(p, "rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        return f"cannot read it: {exc.strerror or exc}"
    if not header.startswith(SQLITE_MAGIC):
        return "it does not start with the SQLite header"
    if len(header) < 100:
        return "it is shorter than an SQLite header"
    app_id = int.from_bytes(header[68:72], "big")
    if app_id == APPLICATION_ID:
        return None
    if app_id != 0:
        return f"it is an SQLite database of another application (application_id {app_id:#x})"
    # no marker: an index written before the marker, or someone else's database
    try:
        conn = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
        try:
            names = [r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")]
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return f"it has no memlab marker and cannot be read to check its tables ({exc})"
    foreign = sorted(n for n in names if not _own_table(n))
    if foreign:
        shown = ", ".join(foreign[:5]) + (" ..." if len(foreign) > 5 else "")
        return f"it is an SQLite database with tables memlab does not own ({shown})"
    return None


def remove_index_files(path: str | Path) -> None:
    """Delete an index file and its ``-wal``/``-shm`` files (``memlab index --force`` on a
    damaged index), after checking that it is a memlab index (:func:`index_file_problem`);
    raises :class:`~memlab.index.errors.NotAnIndex` otherwise, touching nothing."""
    p = Path(path)
    problem = index_file_problem(p)
    if problem is not None:
        raise NotAnIndex(p, problem)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{p}{suffix}").unlink(missing_ok=True)


def _writability_error(exc: sqlite3.Error) -> bool:
    """Errors of a full disk, a read-only file system or file, or I/O: not damage."""
    low = str(exc).lower()
    return any(k in low for k in ("full", "readonly", "read-only", "disk i/o", "unable to open",
                                  "permission", "access"))


def _fts_create_sql(tokenizer: str) -> str:
    if tokenizer not in FTS_TOKENIZERS:
        raise ValueError(f"FTS tokenizer must be one of {FTS_TOKENIZERS}, got {tokenizer!r}")
    clause = ", tokenize='trigram case_sensitive 0'" if tokenizer == "trigram" else ""
    return (f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5(text, id UNINDEXED, "
            "path UNINDEXED, source UNINDEXED, model UNINDEXED, start_line UNINDEXED, "
            f"end_line UNINDEXED{clause})")


@dataclass(frozen=True)
class ChunkRow:
    """One chunk as written to the index."""

    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    hash: str
    model: str
    text: str


class _Snapshot(NamedTuple):
    """What :meth:`IndexStore.corpus` and friends read, loaded in one read transaction."""

    revision: int
    corpus: Corpus
    vectors: np.ndarray | None
    #: the chunks' rowids in docno order (ascending)
    rowids: np.ndarray


class IndexStore:
    """A memlab index file (or an in-memory index when ``path`` is ``None``/``":memory:"``).

    ``fts_tokenizer`` is used when the FTS table is created; an existing table keeps its
    tokenizer (:attr:`fts_tokenizer` reports the one in the file) until a full rebuild
    recreates it (:meth:`recreate_fts`).
    """

    def __init__(self, path: str | Path | None = None, fts_tokenizer: str = "unicode61"):
        check_sqlite()
        if fts_tokenizer not in FTS_TOKENIZERS:
            raise ValueError(f"fts_tokenizer must be one of {FTS_TOKENIZERS}, got "
                             f"{fts_tokenizer!r}")
        self.in_memory = path is None or str(path) == ":memory:"
        self.path = None if self.in_memory else Path(path).expanduser()
        self._requested_tokenizer = fts_tokenizer
        #: Opened read-only (a read-only file, directory or file system): searchable, and
        #: every write raises :class:`~memlab.index.errors.IndexNotWritable`.
        self.read_only = False
        self._lock = threading.RLock()
        if self.path is not None:
            problem = index_file_problem(self.path)
            if problem is not None:
                raise NotAnIndex(self.path, problem)
            try:
                for suffix in ("-wal", "-shm"):
                    refuse_link(f"{self.path}{suffix}")
            except UnsafePath as exc:
                raise NotAnIndex(self.path, str(exc)) from None
            with contextlib.suppress(OSError):  # a read-only parent may already exist
                self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = self._connect(read_only=False)
        try:
            self._open_schema(fts_tokenizer)
        except sqlite3.OperationalError as exc:  # locked, disk full, I/O: not damage
            self._conn.close()
            if self.path is None or not _writability_error(exc):
                raise
            if not self.path.exists():
                raise IndexNotWritable(self.path, str(exc)) from None
            self._open_read_only(exc)
        except sqlite3.DatabaseError as exc:  # "file is not a database", "malformed"
            self._conn.close()
            if _writability_error(exc) and self.path is not None and self.path.exists():
                self._open_read_only(exc)
            else:
                raise IndexCorrupt(self.path, str(exc)) from None
        self._snapshot: _Snapshot | None = None
        self._pinned: Corpus | None = None

    def _connect(self, read_only: bool, immutable: bool = False) -> sqlite3.Connection:
        if self.path is None:
            return sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        if not read_only:
            return sqlite3.connect(str(self.path), check_same_thread=False,
                                   isolation_level=None)
        from urllib.parse import quote

        uri = f"file:{quote(str(self.path))}?mode=ro" + ("&immutable=1" if immutable else "")
        return sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)

    def _open_read_only(self, why: sqlite3.Error) -> None:
        """Open an index that cannot be written (read-only file, directory or file system):
        WAL readers need a ``-shm`` file, so when none can be created the file is opened
        ``immutable`` (nothing can write it anyway)."""
        self.read_only = True
        self._why_read_only = str(why)
        for immutable in (False, True):
            self._conn = self._connect(read_only=True, immutable=immutable)
            try:
                self._conn.execute("PRAGMA busy_timeout=30000")
                have = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master")}
                break
            except sqlite3.OperationalError as exc:
                self._conn.close()
                if immutable:
                    raise IndexNotWritable(self.path, f"{why}; read-only: {exc}") from None
            except sqlite3.DatabaseError as exc:
                self._conn.close()
                raise IndexCorrupt(self.path, str(exc)) from None
        if not {META_TABLE, CHUNKS_TABLE, FTS_TABLE} <= have:
            self._conn.close()
            raise IndexNotWritable(self.path, f"{why} (and it holds no index yet)")

    def _open_schema(self, fts_tokenizer: str) -> None:
        self._conn.execute("PRAGMA busy_timeout=30000")
        if self.path is not None:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
        have = {r[0] for r in self.execute("SELECT name FROM sqlite_master")}
        if not {META_TABLE, SOURCES_TABLE, CHUNKS_TABLE, FTS_TABLE, VECTOR_TABLE,
                STATE_TABLE} <= have:
            with self.write():
                for statement in _split_sql(_SCHEMA):
                    self._conn.execute(statement)
                self._conn.execute(_fts_create_sql(fts_tokenizer))
        if self.path is not None and int(self.execute("PRAGMA application_id")[0][0]) != \
                APPLICATION_ID:  # memlab's marker (indexes older than it get it now)
            self._conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")

    def quick_check(self) -> str | None:
        """SQLite's ``PRAGMA quick_check`` (a read: it never waits for a running indexer):
        ``None`` when the file is sound, else what is wrong (the fix is
        ``memlab index --force``)."""
        try:
            rows = [r[0] for r in self.execute("PRAGMA quick_check")]
            if rows != ["ok"]:
                return "; ".join(map(str, rows[:3]))
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "full" in str(exc):
                raise
            return str(exc)
        except sqlite3.DatabaseError as exc:
            return str(exc)
        return None

    # -- transactions ----------------------------------------------------------------------
    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any exception)."""
        if self.read_only:
            raise IndexNotWritable(self.path, f"it is read-only ({self._why_read_only})")
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self._conn
                except BaseException:
                    # SQLite rolls back by itself on some errors (SQLITE_FULL, I/O): a second
                    # ROLLBACK would raise and hide the real error
                    if self._conn.in_transaction:
                        self._conn.execute("ROLLBACK")
                    raise
                self._conn.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                if self._conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self._conn.execute("ROLLBACK")
                if self.path is None or "locked" in str(exc) or not _writability_error(exc):
                    raise
                raise IndexNotWritable(self.path, str(exc)) from exc

    @contextlib.contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees the same snapshot."""
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                self._conn.execute("COMMIT")

    @property
    def connection(self) -> sqlite3.Connection:
        """The underlying connection (autocommit mode; for inspection and tests)."""
        return self._conn

    @property
    def lock(self) -> threading.RLock:
        """The store's re-entrant lock: :meth:`read`, :meth:`write`, :meth:`execute` and
        :meth:`close` hold it. Hold it to run several statements on :attr:`connection` as one
        unit that no other thread's statements interleave with."""
        return self._lock

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """Run one read-only statement and fetch all rows."""
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    # -- meta ------------------------------------------------------------------------------
    def _get_meta(self, key: str) -> str | None:
        row = self.execute(f"SELECT value FROM {META_TABLE} WHERE key = ?", (key,))
        return row[0][0] if row else None

    def read_meta(self) -> dict | None:
        """The stored index identity (``None`` when missing or unreadable)."""
        value = self._get_meta(META_KEY)
        if not value:
            return None
        try:
            meta = json.loads(value)
        except ValueError:
            return None
        return meta if isinstance(meta, dict) else None

    def write_meta(self, meta: dict, workspace: str | Path | None = None) -> None:
        """Store the identity (call inside :meth:`write`); JSON as ``JSON.stringify`` writes."""
        value = json.dumps(meta, separators=(",", ":"), ensure_ascii=False)
        self._conn.execute(
            f"INSERT INTO {META_TABLE} (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (META_KEY, value))
        if workspace is not None:
            self._conn.execute(
                f"INSERT INTO {META_TABLE} (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (WORKSPACE_KEY, os.path.realpath(os.fspath(workspace))))

    @property
    def workspace(self) -> Path | None:
        """The workspace the index was last built from."""
        value = self._get_meta(WORKSPACE_KEY)
        return Path(value) if value else None

    @property
    def fts_tokenizer(self) -> str:
        """The tokenizer of the FTS table in the file."""
        row = self.execute("SELECT sql FROM sqlite_master WHERE name = ?", (FTS_TABLE,))
        sql = (row[0][0] or "") if row else ""
        return "trigram" if "trigram" in sql else "unicode61"

    # -- state -----------------------------------------------------------------------------
    def revision(self) -> int:
        """A counter bumped by every change of sources or chunks."""
        return int(self.execute(f"SELECT revision FROM {STATE_TABLE} WHERE id = 1")[0][0])

    def has_chunks(self) -> bool:
        return bool(self.execute(f"SELECT 1 FROM {CHUNKS_TABLE} LIMIT 1"))

    def source_hashes(self, source: str = "memory") -> dict[str, str]:
        """``{path: sha256}`` of the files indexed from ``source``."""
        return dict(self.execute(f"SELECT path, hash FROM {SOURCES_TABLE} WHERE source = ?",
                                 (source,)))

    def counts(self) -> dict[str, dict[str, int]]:
        """``{source: {"files": n, "chunks": m}}`` (OpenClaw's status aggregate)."""
        out: dict[str, dict[str, int]] = {}
        with self.read() as conn:
            for source, n in conn.execute(
                    f"SELECT source, COUNT(*) FROM {SOURCES_TABLE} GROUP BY source"):
                out.setdefault(source, {"files": 0, "chunks": 0})["files"] = int(n)
            for source, n in conn.execute(
                    f"SELECT source, COUNT(*) FROM {CHUNKS_TABLE} GROUP BY source"):
                out.setdefault(source, {"files": 0, "chunks": 0})["chunks"] = int(n)
        return out

    def vector_count(self) -> int:
        return int(self.execute(f"SELECT COUNT(*) FROM {VECTOR_TABLE}")[0][0])

    def check_consistency(self) -> list[str]:
        """Problems between the tables (empty when consistent): chunks without a source row,
        source rows without chunks are fine (empty files), FTS rows without a chunk or chunks
        missing from FTS, vectors without a chunk, chunks of a model missing a vector."""
        problems = []
        with self.read() as conn:
            q = {
                "chunks whose file has no source row":
                    f"SELECT COUNT(*) FROM {CHUNKS_TABLE} c WHERE NOT EXISTS (SELECT 1 FROM "
                    f"{SOURCES_TABLE} s WHERE s.path = c.path AND s.source = c.source)",
                "FTS rows without a chunk":
                    f"SELECT COUNT(*) FROM {FTS_TABLE} f WHERE NOT EXISTS (SELECT 1 FROM "
                    f"{CHUNKS_TABLE} c WHERE c.id = f.id)",
                "chunks missing from FTS":
                    f"SELECT COUNT(*) FROM {CHUNKS_TABLE} c WHERE NOT EXISTS (SELECT 1 FROM "
                    f"{FTS_TABLE} f WHERE f.id = c.id)",
                "FTS rows whose rowid is not their chunk's":
                    f"SELECT COUNT(*) FROM {FTS_TABLE} f JOIN {CHUNKS_TABLE} c ON c.id = f.id "
                    "WHERE c.rowid != f.rowid",
                "vectors without a chunk":
                    f"SELECT COUNT(*) FROM {VECTOR_TABLE} v WHERE NOT EXISTS (SELECT 1 FROM "
                    f"{CHUNKS_TABLE} c WHERE c.id = v.id)",
                "embedded chunks without a vector":
                    f"SELECT COUNT(*) FROM {CHUNKS_TABLE} c WHERE c.model != 'fts-only' AND "
                    f"NOT EXISTS (SELECT 1 FROM {VECTOR_TABLE} v WHERE v.id = c.id)",
            }
            for what, sql in q.items():
                n = int(conn.execute(sql).fetchone()[0])
                if n:
                    problems.append(f"{n} {what}")
            n_fts = int(conn.execute(f"SELECT COUNT(*) FROM {FTS_TABLE}").fetchone()[0])
            n_chunks = int(conn.execute(f"SELECT COUNT(*) FROM {CHUNKS_TABLE}").fetchone()[0])
            if n_fts != n_chunks:
                problems.append(f"{n_fts} FTS rows for {n_chunks} chunks")
        return problems

    # -- writes (inside write()) -------------------------------------------------------------
    def delete_file(self, path: str, source: str = "memory") -> None:
        """Remove a file's chunks, FTS rows, vectors and source row (inside :meth:`write`).

        FTS rows share their chunk's rowid, so they are found through the chunks' index on
        ``(path, source)`` instead of a scan of the FTS table."""
        c = self._conn
        c.execute(f"DELETE FROM {VECTOR_TABLE} WHERE id IN (SELECT id FROM {CHUNKS_TABLE} "
                  "WHERE path = ? AND source = ?)", (path, source))
        c.execute(f"DELETE FROM {FTS_TABLE} WHERE rowid IN (SELECT rowid FROM {CHUNKS_TABLE} "
                  "WHERE path = ? AND source = ?)", (path, source))
        c.execute(f"DELETE FROM {CHUNKS_TABLE} WHERE path = ? AND source = ?", (path, source))
        c.execute(f"DELETE FROM {SOURCES_TABLE} WHERE path = ? AND source = ?", (path, source))

    def write_file(self, path: str, source: str, file_hash: str, mtime_ms: int, size: int,
                   chunks: Sequence[ChunkRow], vectors: np.ndarray | None = None, *,
                   replace: bool = True) -> None:
        """Replace a file's rows with ``chunks`` (and their ``vectors``), then upsert its
        source row last, as OpenClaw's ``writeChunks`` does. Call inside :meth:`write`.

        ``replace=False`` skips deleting the file's old rows (a rebuild into empty tables).
        """
        c = self._conn
        now = int(time.time() * 1000)
        if replace:
            self.delete_file(path, source)
        if vectors is not None and len(vectors) != len(chunks):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors for {path}")
        c.executemany(
            f"INSERT INTO {CHUNKS_TABLE} (id, path, source, start_line, end_line, hash, model, "
            "text, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
            "hash = excluded.hash, model = excluded.model, text = excluded.text, "
            "updated_at = excluded.updated_at",
            [(r.id, r.path, r.source, r.start_line, r.end_line, r.hash, r.model, r.text, now)
             for r in chunks])
        if vectors is not None and len(chunks):
            blobs = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32))
            c.executemany(
                f"INSERT OR REPLACE INTO {VECTOR_TABLE} (id, embedding) VALUES (?, ?)",
                [(r.id, blobs[i].tobytes()) for i, r in enumerate(chunks)])
        self._index_fts(path, source)
        c.execute(
            f"INSERT INTO {SOURCES_TABLE} (path, source, hash, mtime, size) VALUES "
            "(?, ?, ?, ?, ?) ON CONFLICT(path, source) DO UPDATE SET hash = excluded.hash, "
            "mtime = excluded.mtime, size = excluded.size",
            (path, source, file_hash, int(mtime_ms), int(size)))

    def _index_fts(self, path: str | None = None, source: str | None = None) -> None:
        """Copy chunks (of one file, or all) into the FTS table, each under its chunk's
        rowid, in rowid order."""
        where, params = "", ()
        if path is not None:
            where, params = " WHERE path = ? AND source = ?", (path, source)
        self._conn.execute(
            f"INSERT INTO {FTS_TABLE} (rowid, text, id, path, source, model, start_line, "
            f"end_line) SELECT rowid, text, id, path, source, model, start_line, end_line "
            f"FROM {CHUNKS_TABLE}{where} ORDER BY rowid", params)

    def clear(self) -> None:
        """Delete every source, chunk, FTS row and vector (inside :meth:`write`)."""
        for table in (VECTOR_TABLE, FTS_TABLE, CHUNKS_TABLE, SOURCES_TABLE):
            self._conn.execute(f"DELETE FROM {table}")

    def recreate_fts(self, tokenizer: str) -> None:
        """Drop and recreate the (empty) FTS table with ``tokenizer`` (inside :meth:`write`)."""
        sql = _fts_create_sql(tokenizer)
        self._conn.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
        self._conn.execute(sql)

    # -- reads -----------------------------------------------------------------------------
    def _load(self) -> _Snapshot:
        with self.read() as conn:
            revision = int(conn.execute(
                f"SELECT revision FROM {STATE_TABLE} WHERE id = 1").fetchone()[0])
            rows = conn.execute(
                f"SELECT c.id, c.path, c.source, c.start_line, c.end_line, c.text, c.hash, "
                f"v.embedding, c.rowid FROM {CHUNKS_TABLE} c LEFT JOIN {VECTOR_TABLE} v "
                "ON v.id = c.id ORDER BY c.rowid").fetchall()
            files = conn.execute(
                f"SELECT path, source, hash, mtime, size FROM {SOURCES_TABLE} "
                "ORDER BY rowid").fetchall()
            meta_row = conn.execute(f"SELECT value FROM {META_TABLE} WHERE key = ?",
                                    (META_KEY,)).fetchone()
            ws_row = conn.execute(f"SELECT value FROM {META_TABLE} WHERE key = ?",
                                  (WORKSPACE_KEY,)).fetchone()
        import pandas as pd  # here, not at import: status and a no-op index never need it

        from memlab.corpus import CHUNK_TABLE_COLUMNS, FILE_TABLE_COLUMNS, Corpus

        chunks = pd.DataFrame([r[:7] for r in rows], columns=CHUNK_TABLE_COLUMNS).astype(
            {"start_line": "int64", "end_line": "int64"})
        files_df = pd.DataFrame(files, columns=FILE_TABLE_COLUMNS)
        model = "fts-only"
        if meta_row:
            with contextlib.suppress(ValueError, AttributeError):
                model = str(json.loads(meta_row[0]).get("model") or "fts-only")
        root = Path(ws_row[0]) if ws_row else None
        corpus = Corpus(chunks=chunks, files=files_df, root=root, model=model)
        vectors = _stack_blobs([r[7] for r in rows])
        rowids = np.fromiter((r[8] for r in rows), dtype=np.int64, count=len(rows))
        return _Snapshot(revision, corpus, vectors, rowids)

    def _current(self) -> _Snapshot:
        if self._pinned is not None:
            assert self._snapshot is not None
            return self._snapshot
        revision = self.revision()
        if self._snapshot is None or self._snapshot[0] != revision:
            self._snapshot = self._load()
        return self._snapshot

    def pin(self) -> Corpus:
        """Freeze the current snapshot: :meth:`corpus`, :meth:`vectors` and
        :meth:`ids_to_docnos` keep returning it even if another process changes the index
        (FTS rows written later are then ignored). Returns the pinned corpus."""
        if self._pinned is None:
            self._snapshot = self._current()
            self._pinned = self._snapshot[1]
        return self._pinned

    @property
    def pinned(self) -> bool:
        """Whether :meth:`corpus` is frozen by :meth:`pin`."""
        return self._pinned is not None

    def unpin(self) -> None:
        """Follow the index again (:meth:`corpus` reloads when it changes)."""
        if self._pinned is not None and self.path is not None:
            self._pinned = None

    def corpus(self) -> Corpus:
        """The stored chunks as a :class:`~memlab.corpus.Corpus` (row order = rowid = docno).

        The same object is returned until the index changes, so stages built on it agree on
        docnos. ``root`` is the workspace the index was built from.
        """
        return self._current()[1]

    def vectors(self) -> np.ndarray | None:
        """float32 ``(len(corpus()), dims)`` vectors in docno order, read in the same snapshot
        as :meth:`corpus`; ``None`` when no chunk has a vector (keyword-only index). Chunks
        without a vector get a row of NaN."""
        return self._current()[2]

    def current_rowids(self) -> np.ndarray | None:
        """The chunk table's rowids of :meth:`corpus`' chunks in docno order (ascending),
        when that snapshot is the index's current state; ``None`` when the index has changed
        since a :meth:`pin`. A chunk's FTS row shares its rowid (:meth:`write_file`), so an
        FTS rowid locates its docno here without reading the row's ``id``."""
        snap = self._current()
        if self._pinned is not None and snap.revision != self.revision():
            return None
        return snap.rowids

    def ids_to_docnos(self) -> dict[str, int]:
        """``{chunk id: docno}`` for :meth:`corpus`."""
        snap = self._current()
        cached = getattr(self, "_id_map", None)
        if cached is None or cached[0] is not snap[1]:
            ids = snap[1].chunks["chunk_id"].tolist()
            cached = (snap[1], {cid: i for i, cid in enumerate(ids)})
            self._id_map = cached
        return cached[1]

    # -- construction from a corpus ------------------------------------------------------------
    @classmethod
    def from_corpus(cls, corpus: Corpus, fts_tokenizer: str = "unicode61",
                    vectors: np.ndarray | None = None,
                    path: str | Path | None = None) -> IndexStore:
        """An index holding ``corpus``'s chunks, in memory or, with ``path``, in a new file
        (which must not exist yet); :meth:`corpus` returns ``corpus`` itself (so docnos
        agree with every other stage built on it).

        >>> from memlab.corpus import Corpus
        >>> store = IndexStore.from_corpus(Corpus.from_texts(["alpha", "beta"]))
        >>> store.corpus().texts
        ['alpha', 'beta']
        """
        if path is not None and str(path) != ":memory:" and Path(path).expanduser().exists():
            raise FileExistsError(f"from_corpus writes a new index file, but {str(path)!r} "
                                  "exists: pass a new path, or open it with IndexStore(path)")
        store = cls(path, fts_tokenizer=fts_tokenizer)
        model = getattr(corpus, "model", "fts-only") or "fts-only"
        now = int(time.time() * 1000)
        # ids are the docnos: a corpus may repeat a chunk id (identical split pieces)
        with store.write() as c:
            c.executemany(
                f"INSERT INTO {CHUNKS_TABLE} (rowid, id, path, source, start_line, end_line, "
                "hash, model, text, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(i + 1, str(i), str(r.path), str(r.source), int(r.start_line),
                  int(r.end_line), str(r.hash), model, str(r.text), now)
                 for i, r in enumerate(corpus.chunks.itertuples(index=False))])
            store._index_fts()
        arr = None if vectors is None else np.ascontiguousarray(vectors, dtype=np.float32)
        store._snapshot = _Snapshot(store.revision(), corpus, arr,
                                    np.arange(1, len(corpus.chunks) + 1, dtype=np.int64))
        store._pinned = corpus
        store._id_map = (corpus, {str(i): i for i in range(len(corpus.chunks))})
        return store

    # -- housekeeping ----------------------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> IndexStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"IndexStore({str(self.path) if self.path is not None else None!r})"

    def __deepcopy__(self, memo: dict) -> IndexStore:
        return self  # a handle on shared storage: copies of a pipeline share the index

    def __getstate__(self) -> dict[str, Any]:
        if self.path is None:
            raise TypeError("an in-memory IndexStore cannot be pickled")
        return {"path": str(self.path), "fts_tokenizer": self._requested_tokenizer}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["fts_tokenizer"])  # type: ignore[misc]


def _stack_blobs(blobs: list[bytes | None]) -> np.ndarray | None:
    present = [b for b in blobs if b is not None]
    if not present:
        return None
    dims = len(present[0]) // 4
    out = np.full((len(blobs), dims), np.nan, dtype=np.float32)
    for i, blob in enumerate(blobs):
        if blob is not None:
            vec = np.frombuffer(blob, dtype=np.float32)
            if vec.shape[0] != dims:
                raise ValueError(f"the index holds vectors of {dims} and {vec.shape[0]} "
                                 "dimensions; rebuild it with `memlab index --force`")
            out[i] = vec
    return out


def _split_sql(script: str) -> list[str]:
    """Split the schema into statements (triggers contain ``;`` inside BEGIN ... END)."""
    out: list[str] = []
    buf = ""
    for part in script.split(";"):
        buf += part + ";"
        if sqlite3.complete_statement(buf):
            if buf.strip(" \n;"):
                out.append(buf.strip())
            buf = ""
    return out
