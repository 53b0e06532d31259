"""The index's exceptions (a light module: the command line imports it at start-up)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["FORCE_HINT", "IndexCorrupt", "IndexLocked", "IndexPaused", "IndexUnavailable"]

#: The command that rebuilds an index whose identity changed.
FORCE_HINT = "memlab index --force"


class IndexUnavailable(RuntimeError):
    """This Python's SQLite cannot hold a memlab index (too old, or no FTS5/trigram)."""


class IndexCorrupt(IndexUnavailable):
    """The index file is damaged (not a database, truncated, malformed pages)."""

    def __init__(self, index_path: Path | None, detail: str):
        self.index_path = index_path
        self.detail = detail
        super().__init__(f"the index file {index_path} is damaged ({detail}); rebuild it with "
                         f"`{FORCE_HINT}` (the damaged file is replaced; notes are untouched)")


class IndexLocked(RuntimeError):
    """Another indexer holds the index's lock."""


class IndexPaused(RuntimeError):
    """The index was built under another identity; vector search is paused until rebuilt."""

    def __init__(self, reason: str, index_path: Path | None = None):
        self.reason = reason
        self.index_path = index_path
        where = f" ({index_path})" if index_path else ""
        super().__init__(f"memory search paused: {reason}{where}; the index must be rebuilt "
                         f"before searching: run `{FORCE_HINT}`")
