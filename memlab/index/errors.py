"""The index's exceptions (a light module: the command line imports it at start-up)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["FORCE_HINT", "IndexCorrupt", "IndexLocked", "IndexNotWritable", "IndexPaused",
           "IndexUnavailable", "NotAnIndex"]

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


class NotAnIndex(IndexUnavailable):
    """The path holds a file memlab did not create as an index: it is never opened for
    writing, and never replaced, not even by ``--force``."""

    def __init__(self, index_path: Path | None, detail: str):
        self.index_path = index_path
        self.detail = detail
        super().__init__(f"{index_path} is not a memlab index ({detail}); memlab will not "
                         "open or replace it, not even with --force: choose another index "
                         "path (--index FILE or memlab.indexPath), or move that file away "
                         "yourself if it really is a damaged index")


class IndexNotWritable(IndexUnavailable):
    """The index cannot be written now (read-only file or directory, disk full, I/O error).
    It stays consistent; searches answer from it as it is."""

    def __init__(self, index_path: Path | None, detail: str):
        self.index_path = index_path
        self.detail = detail
        low = detail.lower()
        if "full" in low:
            hint = "free some disk space and run the command again"
        elif "read" in low and "only" in low or "permission" in low or "denied" in low:
            hint = ("make the index file and its directory writable, or choose another index "
                    "path (--index FILE or memlab.indexPath)")
        else:
            hint = "check the disk and run the command again"
        super().__init__(f"cannot write the index {index_path}: {detail}; the index is "
                         f"unchanged and still searchable; {hint}")


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
