"""The path index of OpenClaw 2026.9: ``memory_index_paths_fts``, one FTS5 row per indexed file.

2026.9.6 (``ensureMemoryPathFtsSchema``, memory-schema-*.mjs) keeps
``CREATE VIRTUAL TABLE memory_index_paths_fts USING fts5(path, source UNINDEXED <tokenize>)``
with ``rowid`` = the file's ``memory_index_sources.id``; its keyword leg ranks files by
``bm25()`` over the path column and finds exact-path candidates with ``LIKE`` on it. memlab
keeps the same table so the path scores are SQLite's own (``bm25`` needs a real FTS5 table: the
document frequencies and average lengths are those of every indexed path).

>>> import sqlite3
>>> con = sqlite3.connect(":memory:")
>>> create_paths_fts(con, "unicode61")
>>> add_path(con, 1, "memory/team/billing.md", "memory")
>>> con.execute(f"SELECT path FROM {PATHS_FTS_TABLE} WHERE {PATHS_FTS_TABLE} MATCH 'billing'"
...             ).fetchall()
[('memory/team/billing.md',)]
"""

from __future__ import annotations

import sqlite3

PATHS_FTS_TABLE = "memory_index_paths_fts"
TOKENIZE_CLAUSES = {"unicode61": "", "trigram": ", tokenize='trigram case_sensitive 0'"}


def create_paths_fts(con: sqlite3.Connection, tokenizer: str) -> None:
    """Create the path FTS table with 2026.9.6's definition (``tokenizer``: ``unicode61`` or
    ``trigram``)."""
    if tokenizer not in TOKENIZE_CLAUSES:
        raise ValueError(f"store.fts.tokenizer must be one of {sorted(TOKENIZE_CLAUSES)}, "
                         f"got {tokenizer!r}")
    con.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {PATHS_FTS_TABLE} USING "
                f"fts5(path, source UNINDEXED{TOKENIZE_CLAUSES[tokenizer]})")


def add_path(con: sqlite3.Connection, source_id: int, path: str, source: str) -> None:
    """One file's row (``rowid`` = its source id), as 2026.9's insert trigger writes it."""
    con.execute(f"INSERT INTO {PATHS_FTS_TABLE}(rowid, path, source) VALUES (?, ?, ?)",
                (source_id, path, source))
