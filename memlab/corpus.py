"""The corpus: every chunk of a workspace, one row each, ready for the stages.

A :class:`Corpus` holds ``chunks`` (a DataFrame whose row position is the ``docno`` that
hits carry) and ``files`` (one row per indexed file, with its mtime for decay), plus the
files that were skipped and why.

>>> corpus = Corpus.from_texts(["alpha beta", "gamma"])
>>> len(corpus), corpus.chunks.loc[1, "path"]
(2, 'doc-2.md')
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

CHUNK_TABLE_COLUMNS = ["chunk_id", "path", "source", "start_line", "end_line", "text", "hash"]
FILE_TABLE_COLUMNS = ["path", "source", "hash", "mtime_ms", "size"]


@dataclass
class Corpus:
    """Chunks of one workspace (or of a document collection)."""

    chunks: pd.DataFrame
    files: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=FILE_TABLE_COLUMNS))
    root: Path | None = None
    skipped: list = field(default_factory=list)
    model: str = "fts-only"

    def __post_init__(self) -> None:
        missing = [c for c in CHUNK_TABLE_COLUMNS if c not in self.chunks.columns]
        if missing:
            raise ValueError(f"corpus chunks lack column(s) {missing}")
        self.chunks = self.chunks.reset_index(drop=True)

    def __len__(self) -> int:
        return len(self.chunks)

    def __repr__(self) -> str:
        where = f"{self.root}" if self.root else "in memory"
        return f"Corpus({where}: {len(self.files)} files, {len(self.chunks)} chunks)"

    @property
    def texts(self) -> list[str]:
        """Chunk texts in docno order."""
        return self.chunks["text"].tolist()

    @classmethod
    def from_texts(cls, texts: list[str], paths: list[str] | None = None,
                   source: str = "memory") -> Corpus:
        """A corpus of one single-chunk document per text (tests, document collections)."""
        paths = paths or [f"doc-{i + 1}.md" for i in range(len(texts))]
        if len(paths) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(paths)} paths")
        rows = []
        for text, path in zip(texts, paths, strict=True):
            h = hashlib.sha256(text.encode("utf-8")).hexdigest()
            end = text.count("\n") + 1
            cid = hashlib.sha256(f"{source}:{path}:1:{end}:{h}:fts-only".encode()).hexdigest()
            rows.append((cid, path, source, 1, end, text, h))
        chunks = pd.DataFrame(rows, columns=CHUNK_TABLE_COLUMNS)
        files = pd.DataFrame({"path": paths, "source": source, "hash": chunks["hash"],
                              "mtime_ms": 0, "size": [len(t.encode()) for t in texts]})
        return cls(chunks=chunks, files=files)


def load_workspace(workspace: str | Path, extra_paths: list[str] | tuple[str, ...] = (),
                   tokens: int = 400, overlap: int = 80, model: str = "fts-only",
                   max_input_bytes: int | None = None, *,
                   sources: list[str] | tuple[str, ...] = ("memory",),
                   agent_id: str = "main") -> Corpus:
    """Discover, read and chunk a memory workspace the way OpenClaw indexes it.

    Files are found with OpenClaw's rules (:mod:`memlab.workspace`), chunked with its chunker
    (:mod:`memlab.chunking`); whitespace-only chunks are dropped, and with an embedding
    provider chunks over ``max_input_bytes`` UTF-8 bytes are split as OpenClaw does. Unreadable
    or binary files are skipped with a warning and listed in ``corpus.skipped``.

    ``sources`` are the indexed sources (pass ``config.memory_search.effective_sources()``,
    which keeps ``"sessions"`` only with ``experimental.sessionMemory``). With ``"sessions"``,
    the transcripts of ``agent_id`` in ``workspace/sessions/<agent_id>/`` (where memlab
    datasets keep them) are added after the memory files, as OpenClaw's
    :func:`memlab.sessions.scan_sessions` renders them: source ``"sessions"``, path
    ``sessions/<agent_id>/<file>``, chunk lines mapped back to JSONL line numbers.

    >>> corpus = load_workspace("datasets/sample-memory/workspace")  # doctest: +SKIP
    >>> corpus.chunks[["path", "start_line", "end_line"]].head()  # doctest: +SKIP
    """
    from memlab.chunking import chunk_id, chunk_markdown, split_for_provider
    from memlab.workspace import scan_workspace

    unknown = [s for s in sources if s not in ("memory", "sessions")]
    if unknown:
        raise ValueError(f"unknown source(s) {unknown}; use 'memory' and/or 'sessions'")
    root = Path(workspace).expanduser()
    if "memory" in sources:
        loaded, skipped = scan_workspace(root, extra_paths)
    else:
        loaded, skipped = [], []
    skipped = list(skipped)
    rows = []
    for f in loaded:
        chunks = chunk_markdown(f.text, tokens=tokens, overlap=overlap)  # blank ones dropped
        if max_input_bytes:
            chunks = split_for_provider(chunks, max_input_bytes)
        for c in chunks:
            cid = chunk_id(f.source, f.path, c.start_line, c.end_line, c.hash, model)
            rows.append((cid, f.path, f.source, c.start_line, c.end_line, c.text, c.hash))
    files = [(f.path, f.source, f.hash, f.mtime_ms, f.size) for f in loaded]
    if "sessions" in sources:
        from memlab.sessions import scan_sessions

        sessions, session_skipped = scan_sessions(root / "sessions", agent_id)
        skipped.extend(session_skipped)
        for s in sessions:
            f = s.file
            chunks = s.chunks(tokens=tokens, overlap=overlap)  # JSONL line numbers
            if max_input_bytes:
                chunks = split_for_provider(chunks, max_input_bytes)
            for c in chunks:
                cid = chunk_id("sessions", f.path, c.start_line, c.end_line, c.hash, model)
                rows.append((cid, f.path, "sessions", c.start_line, c.end_line, c.text, c.hash))
            files.append((f.path, "sessions", f.hash, f.mtime_ms, f.size))
    files_df = pd.DataFrame(files, columns=FILE_TABLE_COLUMNS)
    chunks_df = pd.DataFrame(rows, columns=CHUNK_TABLE_COLUMNS).astype(
        {"start_line": "int64", "end_line": "int64"})
    return Corpus(chunks=chunks_df, files=files_df, root=root.resolve(), skipped=skipped,
                  model=model)
