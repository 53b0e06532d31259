"""Incremental sync of a workspace into an index (reference §3.4), and the index identity.

:func:`sync_index` brings an :class:`~memlab.index.store.IndexStore` up to date with a
workspace:

* files are discovered and read with OpenClaw's rules (:func:`memlab.workspace.scan_workspace`)
  and compared by sha256 with ``memory_index_sources``; unchanged files are skipped, files
  that disappeared are dropped, and each new or changed file is chunked, embedded (through
  the embedding cache) and rewritten -- chunks, FTS rows, vectors, then its source row -- in
  one ``BEGIN IMMEDIATE`` transaction. Killing the process at any point leaves every file
  either fully old or fully new, and the next sync finishes the job.
* a *full* rebuild (the first index, ``force=True``, or an identity change when rebuilding is
  allowed) embeds everything first and then replaces the whole index in a single
  transaction, so searches see the old index until the new one is complete. The embedding
  cache is kept: unchanged texts cost no provider call.
* the index *identity* (provider, model, provider settings key, sources, extra-paths scope,
  chunking, FTS tokenizer, vector dims; OpenClaw's ``memory_index_meta_v1``) is checked
  first. When it differs from the configuration, ``on_mismatch="pause"`` (what searches use)
  changes nothing and reports the problem -- vector search is paused until
  ``memlab index --force`` -- instead of mixing vectors of two models.
* session transcripts (``sources`` with ``"sessions"`` and ``experimental.sessionMemory``):
  the agent's ``workspace/sessions/<agentId>/*.jsonl`` are rendered as OpenClaw renders them
  (:func:`memlab.sessions.scan_sessions`) and indexed as files of source ``"sessions"``
  (keyed by ``(path, "sessions")``, chunk lines mapped back to JSONL lines), re-indexed when
  the transcript hash changes and dropped when the file disappears.
* one indexer at a time: an exclusive ``flock`` on ``<index>.lock``; a second one fails at
  once with :class:`IndexLocked`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import json
import os
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from memlab.chunking import chunk_id, chunk_markdown, provider_input_cap, split_for_provider
from memlab.config import MemlabConfig, load_config
from memlab.embed.base import EmbeddingProvider, check_vectors
from memlab.embed.cache import CachedEmbedder, EmbeddingCache
from memlab.embed.fallback import ProviderSwitched
from memlab.index.errors import FORCE_HINT, IndexLocked, IndexNotWritable, IndexPaused
from memlab.index.store import ChunkRow, IndexStore
from memlab.safeio import open_for_writing
from memlab.workspace import (
    LoadedFile,
    MemlabWarning,
    MultimodalFile,
    SkippedFile,
    load_multimodal_input,
    multimodal_settings,
    normalize_extra_paths,
    scan_workspace,
)

__all__ = [
    "FORCE_HINT",
    "IndexLock",
    "IndexLocked",
    "IndexPaused",
    "SyncReport",
    "identity_problem",
    "index_identity",
    "needs_embedding",
    "pending_changes",
    "scan_sources",
    "sync_index",
]

FTS_ONLY_MODEL = "fts-only"
#: Chunks per embedding call while indexing.
EMBED_BATCH = 256

_THREAD_LOCKS: dict[str, threading.Lock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()


# ------------------------------------------------------------------------------- identity


def _js_json(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _provider_key(embedder: EmbeddingProvider | None) -> str:
    if embedder is None:  # OpenClaw's identity of "no provider"
        return _sha256(_js_json({"provider": "none", "model": FTS_ONLY_MODEL}))
    return str(embedder.settings_key)


def _scope_hash(workspace: str | Path, config: MemlabConfig) -> str:
    ms = config.memory_search
    extra = sorted(p.replace("\\", "/") for p in normalize_extra_paths(
        os.path.abspath(os.path.expanduser(os.fspath(workspace))), ms.effective_extra_paths()))
    mm = ms.multimodal
    return _sha256(_js_json({"extraPaths": extra, "multimodal": {
        "enabled": mm.enabled, "modalities": sorted(mm.resolved_modalities()),
        "maxFileBytes": mm.max_file_bytes}}))


def index_identity(config: MemlabConfig, embedder: EmbeddingProvider | None,
                   workspace: str | Path) -> dict[str, Any]:
    """The identity an index built now would record (OpenClaw's ``memory_index_meta_v1``,
    without ``vectorDims``, which is only known after embedding)."""
    ms = config.memory_search
    sources = sorted({s for s in ms.effective_sources() if s in ("memory", "sessions")})
    return {
        "model": ((embedder.model or "").strip() or FTS_ONLY_MODEL) if embedder is not None
        else FTS_ONLY_MODEL,
        "provider": embedder.id if embedder is not None else "none",
        "providerKey": _provider_key(embedder),
        "sources": sources or ["memory"],
        "scopeHash": _scope_hash(workspace, config),
        "chunkTokens": ms.chunking.tokens,
        "chunkOverlap": ms.resolved_overlap(),
        "ftsTokenizer": ms.store.fts.tokenizer,
    }


def identity_problem(meta: dict | None, expected: dict[str, Any], *,
                     has_chunks: bool = True) -> str | None:
    """Why an index with ``meta`` cannot serve a search configured as ``expected`` (``None``
    when it can). Checks in OpenClaw's order (``resolveMemoryIndexIdentityState``).

    >>> identity_problem({"model": "a", "provider": "p"}, {"model": "b", "provider": "p"})
    'index was built for model a, expected b'
    """
    if not meta:
        return "index metadata is missing"
    if meta.get("model") != expected["model"]:
        return f"index was built for model {meta.get('model')}, expected {expected['model']}"
    if meta.get("provider") != expected["provider"]:
        return (f"index was built for provider {meta.get('provider')}, expected "
                f"{expected['provider']}")
    if "providerKey" in expected and meta.get("providerKey") != expected["providerKey"]:
        return "index provider settings changed"
    stored_sources = meta.get("sources")
    if not isinstance(stored_sources, list):
        stored_sources = ["memory"]
    stored = sorted({s for s in stored_sources if s in ("memory", "sessions")}) or ["memory"]
    if "sources" in expected and stored != expected["sources"]:
        return "index sources changed"
    if "scopeHash" in expected and meta.get("scopeHash") != expected["scopeHash"]:
        return "index scope changed"
    if "chunkTokens" in expected and (meta.get("chunkTokens") != expected["chunkTokens"]
                                      or meta.get("chunkOverlap") != expected["chunkOverlap"]):
        return "index chunking changed"
    if (expected["model"] != FTS_ONLY_MODEL and has_chunks and not meta.get("vectorDims")):
        return "index vector dimensions are missing"
    if "ftsTokenizer" in expected and (meta.get("ftsTokenizer") or "unicode61") != \
            expected["ftsTokenizer"]:
        return "index FTS tokenizer changed"
    return None


# ----------------------------------------------------------------------------------- lock


class IndexLock:
    """An exclusive, non-blocking lock on ``<index>.lock`` (``fcntl.flock``), plus a
    per-process lock so two threads of one process exclude each other too.

    The lock file is left in place (removing it would race with a waiting locker); the OS
    releases the lock when the holder exits, even after ``kill -9``. It is opened with
    :func:`memlab.safeio.open_for_writing`: a symbolic or hard link planted at its place is
    refused, never truncated. A lock file that cannot be created (read-only directory)
    raises :class:`~memlab.index.errors.IndexNotWritable`.
    """

    def __init__(self, index_path: str | Path | None):
        self.index_path = Path(index_path) if index_path is not None else None
        self._fd: int | None = None
        self._thread_lock: threading.Lock | None = None

    @property
    def lock_path(self) -> Path | None:
        return None if self.index_path is None else Path(f"{self.index_path}.lock")

    def _message(self) -> str:
        return (f"another memlab index is running on {self.index_path}; wait for it to finish "
                "(the index stays consistent) and try again")

    def acquire(self) -> IndexLock:
        key = (os.path.abspath(self.index_path) if self.index_path is not None
               else f"mem:{id(self)}")
        with _THREAD_LOCKS_GUARD:
            tl = _THREAD_LOCKS.setdefault(key, threading.Lock())
        if not tl.acquire(blocking=False):
            raise IndexLocked(self._message())
        self._thread_lock = tl
        if self.lock_path is None:
            return self
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: the thread lock only
            return self
        try:  # never through a planted symlink or hard link (it would be truncated)
            fd = open_for_writing(self.lock_path)
        except OSError as exc:
            tl.release()
            self._thread_lock = None
            if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC):
                raise IndexNotWritable(self.index_path, f"cannot create its lock file "
                                       f"{self.lock_path}: {exc.strerror}") from None
            raise
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            tl.release()
            self._thread_lock = None
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise IndexLocked(self._message()) from None
            raise
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            import fcntl

            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
        if self._thread_lock is not None:
            self._thread_lock.release()
            self._thread_lock = None

    def __enter__(self) -> IndexLock:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()


# ----------------------------------------------------------------------------------- sync


@dataclass
class SyncReport:
    """What a sync did."""

    workspace: Path
    index_path: Path | None
    mode: Literal["full", "incremental", "paused"]
    #: Why a full rebuild or a pause happened ("initial index", "forced", an identity problem).
    reason: str | None = None
    files: int = 0
    indexed: int = 0
    unchanged: int = 0
    deleted: int = 0
    chunks: int = 0
    chunks_written: int = 0
    #: Texts sent to the embedding provider (cache misses).
    texts_embedded: int = 0
    cache_hits: int = 0
    skipped: list[SkippedFile] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return self.mode == "full" or bool(self.indexed or self.deleted)

    def summary(self) -> str:
        if self.mode == "paused":
            return f"paused: {self.reason}"
        what = "rebuilt" if self.mode == "full" else "synced"
        why = f" ({self.reason})" if self.reason else ""
        return (f"{what}{why}: {self.files} files ({self.indexed} indexed, {self.unchanged} "
                f"unchanged, {self.deleted} removed) · {self.chunks} chunks · "
                f"{self.texts_embedded} texts embedded, {self.cache_hits} from cache · "
                f"{self.seconds:.2f}s")


class _Embed:
    """Embeds chunk texts through the cache and counts provider work."""

    def __init__(self, embedder: EmbeddingProvider | None, store: IndexStore,
                 cache_enabled: bool):
        self.raw = embedder
        self.texts = 0
        self.hits = 0
        #: the vector size every batch must have (the index's, else the first batch's)
        self.dims: int | None = None
        if embedder is None or isinstance(embedder, CachedEmbedder) or not cache_enabled:
            self.embedder = embedder
        else:  # keep the cache next to the index, in the same file (OpenClaw does)
            cache = EmbeddingCache(None if store.path is None else store.path)
            self.embedder = CachedEmbedder(embedder, cache)

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return self._embed(list(texts), "embed_documents")

    def inputs(self, items: Sequence[Any]) -> np.ndarray:
        """Embed structured inputs (multimodal files among texts) through the cache."""
        return self._embed(list(items), "embed_inputs")

    def _embed(self, items: list[Any], method: str) -> np.ndarray:
        """``embedder.<method>(items)``, counting texts embedded and cache hits."""
        emb = self.embedder
        assert emb is not None
        if isinstance(emb, CachedEmbedder):
            before_t, before_h = emb.texts_embedded, emb.cache_hits
            out = getattr(emb, method)(items)
            self.texts += emb.texts_embedded - before_t
            self.hits += emb.cache_hits - before_h
            return self._same_dims(np.asarray(out, dtype=np.float32))
        out = check_vectors(getattr(emb, method)(items), len(items), None,
                            f"provider {emb.id!r}")
        self.texts += len(items)
        return self._same_dims(out)

    def _same_dims(self, out: np.ndarray) -> np.ndarray:
        """Refuse vectors whose size differs from the index's: never mix two sizes."""
        if out.ndim == 2 and out.shape[0]:
            if self.dims is None:
                self.dims = int(out.shape[1])
            elif int(out.shape[1]) != self.dims:
                from memlab.embed.base import ProviderUnavailable

                raise ProviderUnavailable(
                    f"provider {self.embedder.id!r} returned {out.shape[1]}-dim vectors but "
                    f"the index holds {self.dims}-dim vectors (did the model behind it change?);"
                    f" nothing was written. Rebuild with `{FORCE_HINT}`; if the embedding cache "
                    "still holds the old model's vectors, give memorySearch.model a new name or "
                    "disable memorySearch.cache for that run")
        return out


@dataclass(frozen=True)
class _SessionEntry(LoadedFile):
    """A transcript's file entry plus the JSONL line of each rendered line."""

    line_map: tuple[int, ...] = ()


def scan_sources(ws: Path, config: MemlabConfig, agent_id: str = "main"
                 ) -> tuple[list[LoadedFile], list[SkippedFile]]:
    """The files of the configured sources: memory files, then the agent's transcripts
    (``workspace/sessions/<agent_id>/``) when ``effective_sources()`` has ``"sessions"``."""
    ms = config.memory_search
    sources = ms.effective_sources()
    loaded: list[LoadedFile] = []
    skipped: list[SkippedFile] = []
    if "memory" in sources:
        memory, skipped_memory = scan_workspace(ws, ms.effective_extra_paths(),
                                                multimodal=multimodal_settings(ms.multimodal))
        loaded.extend(memory)
        skipped.extend(skipped_memory)
    if "sessions" in sources:
        from memlab.sessions import scan_sessions

        sessions, skipped_sessions = scan_sessions(ws / "sessions", agent_id)
        loaded.extend(_SessionEntry(**{f.name: getattr(s.file, f.name)
                                       for f in dataclasses.fields(LoadedFile)},
                                    line_map=tuple(s.transcript.line_map)) for s in sessions)
        skipped.extend(skipped_sessions)
    return loaded, skipped


@dataclass
class _Prepared:
    file: LoadedFile
    rows: list[ChunkRow]
    vectors: np.ndarray | None = None
    #: Structured embedding inputs (a multimodal file's label + inline data), if any.
    inputs: list[Any] | None = None


def _prepare(f: LoadedFile, tokens: int, overlap: int, model: str,
             max_bytes: int | None) -> _Prepared:
    if isinstance(f, MultimodalFile):  # one chunk: the label, lines 1-1, the file's hash
        return _Prepared(f, [ChunkRow(chunk_id(f.source, f.path, 1, 1, f.hash, model), f.path,
                                      f.source, 1, 1, f.hash, model, f.text)])
    chunks = chunk_markdown(f.text, tokens=tokens, overlap=overlap)
    if isinstance(f, _SessionEntry):
        from memlab.sessions import remap_chunk_lines

        chunks = remap_chunk_lines(chunks, f.line_map)
    if max_bytes:
        chunks = split_for_provider(chunks, max_bytes)
    rows = [ChunkRow(chunk_id(f.source, f.path, c.start_line, c.end_line, c.hash, model),
                     f.path, f.source, c.start_line, c.end_line, c.hash, model, c.text)
            for c in chunks]
    return _Prepared(f, rows)


def _groups(items: list[_Prepared], max_chunks: int) -> Iterator[list[_Prepared]]:
    group: list[_Prepared] = []
    n = 0
    for item in items:
        if group and n + len(item.rows) > max_chunks:
            yield group
            group, n = [], 0
        group.append(item)
        n += len(item.rows)
    if group:
        yield group


def _progress(total: int, enabled: bool, desc: str) -> Any:
    from memlab.progress import bar

    return bar(total=total, unit="file", desc=desc, progress=enabled)


def pending_changes(store: IndexStore, loaded: Sequence[LoadedFile]
                    ) -> tuple[list[LoadedFile], list[tuple[str, str]]]:
    """What an incremental sync of ``loaded`` (the files :func:`scan_sources` found) would do
    to ``store``: the files that are new or whose sha256 differs from the index's, and the
    ``(path, source)`` keys the index holds that are no longer there."""
    existing = {(path, source): h for source in ("memory", "sessions")
                for path, h in store.source_hashes(source).items()}
    changed = [f for f in loaded if existing.get((f.path, f.source)) != f.hash]
    active = {(f.path, f.source) for f in loaded}
    return changed, [key for key in existing if key not in active]


def needs_embedding(store: IndexStore, workspace: str | Path, config: MemlabConfig,
                    embedder: EmbeddingProvider | None, *, agent_id: str = "main") -> bool:
    """Whether :func:`sync_index` (without ``force``) of ``workspace`` into ``store`` would
    embed anything with ``embedder``: ``False`` only when the index's identity matches the
    configuration and no file is new or changed (files that disappeared are only deleted).

    Reads the workspace and the index, never writes, and uses only the embedder's identity
    (``id``, ``model``, ``settings_key``), which a local provider knows without loading its
    model: ``memlab index`` with nothing to do decides from this not to load it.
    """
    ms = config.memory_search
    if ms.resolved_provider() == "none" or embedder is None:
        return False
    ws = Path(os.path.abspath(os.path.expanduser(os.fspath(workspace))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemlabWarning)  # the sync itself reports them
        loaded, _ = scan_sources(ws, config, agent_id)
    meta = store.read_meta()
    if meta is None or not store.has_chunks():
        return True
    if identity_problem(meta, index_identity(config, embedder, ws), has_chunks=True):
        return True
    return bool(pending_changes(store, loaded)[0])


def sync_index(store: IndexStore, workspace: str | Path,
               config: MemlabConfig | dict | str | Path | None = None,
               embedder: EmbeddingProvider | None = None, *, force: bool = False,
               on_mismatch: Literal["rebuild", "pause"] = "rebuild", progress: bool = False,
               embed_batch: int = EMBED_BATCH, lock: bool = True,
               agent_id: str = "main") -> SyncReport:
    """Bring ``store`` up to date with ``workspace`` (see the module docstring).

    ``embedder`` is the provider the config names (``None`` for ``provider: "none"``); a
    provider that is not a :class:`~memlab.embed.CachedEmbedder` is wrapped in one whose
    cache lives in the index file, unless ``cache.enabled`` is false. ``on_mismatch``
    decides what an identity change does: ``"rebuild"`` (``memlab index``, like
    ``openclaw memory index``) or ``"pause"`` (searches: nothing is written and the report's
    ``mode`` is ``"paused"``). ``progress`` shows a progress bar over files on stderr.
    ``agent_id`` names the agent whose transcripts are indexed when sessions are a source.

    Raises :class:`IndexLocked` when another indexer is running, ``FileNotFoundError`` for a
    missing workspace, ``ValueError`` when the config names a provider but ``embedder`` is
    ``None``.
    """
    started = time.perf_counter()
    cfg = config if isinstance(config, MemlabConfig) else load_config(
        {"memorySearch": {"provider": "none"}} if config is None else config)
    ms = cfg.memory_search
    provider_id = ms.resolved_provider()
    if provider_id != "none" and embedder is None:
        raise ValueError(f"provider {provider_id!r} needs an embedder to index with: pass "
                         "embedder=memlab.openclaw.make_embedder(config), or set provider to "
                         "'none' for a keyword-only index")
    if provider_id == "none":
        embedder = None
    ws = Path(os.path.abspath(os.path.expanduser(os.fspath(workspace))))
    guard = IndexLock(store.path) if lock else contextlib.nullcontext()
    with guard:
        loaded, skipped = scan_sources(ws, cfg, agent_id)
        if embedder is None:  # OpenClaw indexes image/audio files only through a provider
            loaded = [f for f in loaded if not isinstance(f, MultimodalFile)]
        expected = index_identity(cfg, embedder, ws)
        meta = store.read_meta()
        has_chunks = store.has_chunks()
        problem = identity_problem(meta, expected, has_chunks=has_chunks)
        report = SyncReport(workspace=ws, index_path=store.path, mode="incremental",
                            files=len(loaded), skipped=list(skipped))
        if force:
            report.mode, report.reason = "full", "forced"
        elif meta is None or not has_chunks:
            report.mode, report.reason = "full", "initial index"
        elif problem is not None:
            if on_mismatch == "pause":
                report.mode, report.reason = "paused", problem
                report.chunks = sum(c["chunks"] for c in store.counts().values())
                report.seconds = time.perf_counter() - started
                return report
            report.mode, report.reason = "full", problem
        model = expected["model"]
        max_bytes = None
        if embedder is not None:
            input_tokens = getattr(embedder, "max_input_tokens", None)
            max_bytes = provider_input_cap(int(input_tokens) if input_tokens else None)
        embed = _Embed(embedder, store, ms.cache.enabled)
        if report.mode != "full" and meta and meta.get("vectorDims"):
            embed.dims = int(meta["vectorDims"])  # new vectors must fit the index's
        tokens, overlap = ms.chunking.tokens, ms.resolved_overlap()
        try:
            if report.mode == "full":
                _full(store, loaded, report, embed, expected, ws, tokens, overlap, max_bytes,
                      progress, embed_batch)
            else:
                _incremental(store, loaded, report, embed, tokens, overlap, max_bytes, model,
                             progress, embed_batch)
        except ProviderSwitched as switched:
            # OpenClaw's runSync: the fallback took over (new provider key, new identity). A
            # full reindex is redone with it; an incremental sync stops, leaving the index
            # dirty: searches pause until it is rebuilt.
            if report.mode == "full":
                again = sync_index(store, ws, cfg, embedder, force=True, on_mismatch=on_mismatch,
                                   progress=progress, embed_batch=embed_batch, lock=False,
                                   agent_id=agent_id)
                again.reason = f"fallback: {switched.current} after {switched.previous} failed"
                again.texts_embedded += embed.texts
                again.seconds = time.perf_counter() - started
                return again
            now_expected = index_identity(cfg, embedder, ws)
            report.mode = "paused"
            report.reason = (identity_problem(store.read_meta(), now_expected,
                                              has_chunks=store.has_chunks())
                             or f"switched to fallback provider {switched.current}")
            report.texts_embedded, report.cache_hits = embed.texts, embed.hits
            report.chunks = sum(c["chunks"] for c in store.counts().values())
            report.seconds = time.perf_counter() - started
            return report
        report.texts_embedded = embed.texts
        report.cache_hits = embed.hits
        cap = ms.cache.resolved_max_entries()
        if cap is not None and isinstance(embed.embedder, CachedEmbedder):
            embed.embedder.cache.prune(cap)  # OpenClaw prunes the oldest rows after a sync
        report.chunks = sum(c["chunks"] for c in store.counts().values())
    report.seconds = time.perf_counter() - started
    return report


def _embed_group(group: list[_Prepared], embed: _Embed) -> None:
    if embed.embedder is None:
        return
    structured = False
    for item in group:
        if isinstance(item.file, MultimodalFile):
            loaded = load_multimodal_input(item.file)
            if loaded is None:  # changed since the scan: index nothing for it this time
                item.rows = []
            else:
                item.inputs = [loaded]
                structured = True
    if structured:
        from memlab.embed.base import EmbeddingInput

        items = [inp for item in group for inp in (
            item.inputs or [EmbeddingInput(r.text, hash=r.hash) for r in item.rows])]
        vectors = embed.inputs(items)
        offset = 0
        for item in group:
            item.vectors = vectors[offset:offset + len(item.rows)]
            offset += len(item.rows)
        return
    texts = [r.text for item in group for r in item.rows]
    if not texts:
        for item in group:
            item.vectors = np.zeros((0, 0), dtype=np.float32)
        return
    vectors = embed(texts)
    offset = 0
    for item in group:
        item.vectors = vectors[offset:offset + len(item.rows)]
        offset += len(item.rows)


def _write(store: IndexStore, item: _Prepared, replace: bool = True) -> None:
    f = item.file
    vectors = item.vectors if item.rows and item.vectors is not None else None
    store.write_file(f.path, f.source, f.hash, f.mtime_ms, f.size, item.rows, vectors,
                     replace=replace)


def _full(store: IndexStore, loaded: list[LoadedFile], report: SyncReport, embed: _Embed,
          expected: dict[str, Any], ws: Path, tokens: int, overlap: int,
          max_bytes: int | None, progress: bool, embed_batch: int) -> None:
    prepared = [_prepare(f, tokens, overlap, expected["model"], max_bytes) for f in loaded]
    bar = _progress(len(prepared), progress, "Indexing memory files")
    try:
        for group in _groups(prepared, max(1, embed_batch)):
            _embed_group(group, embed)
            bar.update(len(group))
    finally:
        bar.close()
    dims = 0
    for item in prepared:
        if item.vectors is not None and item.vectors.ndim == 2 and item.vectors.shape[0]:
            dims = int(item.vectors.shape[1])
            break
    meta = dict(expected)
    if dims:
        meta["vectorDims"] = dims
    with store.write():
        store.clear()
        store.recreate_fts(expected["ftsTokenizer"])  # fresh table, rowids in file order
        for item in prepared:
            _write(store, item, replace=False)
        store.write_meta(meta, workspace=ws)
    report.indexed = len(prepared)
    report.chunks_written = sum(len(p.rows) for p in prepared)


def _incremental(store: IndexStore, loaded: list[LoadedFile], report: SyncReport,
                 embed: _Embed, tokens: int, overlap: int, max_bytes: int | None, model: str,
                 progress: bool, embed_batch: int) -> None:
    changed, stale = pending_changes(store, loaded)
    report.unchanged = len(loaded) - len(changed)
    bar = _progress(len(loaded), progress and bool(changed or stale), "Indexing memory files")
    try:
        bar.update(report.unchanged)
        prepared = [_prepare(f, tokens, overlap, model, max_bytes) for f in changed]
        for group in _groups(prepared, max(1, embed_batch)):
            _embed_group(group, embed)
            for item in group:  # one transaction per file
                with store.write():
                    _write(store, item)
                report.indexed += 1
                report.chunks_written += len(item.rows)
                bar.update(1)
    finally:
        bar.close()
    for path, source in stale:
        with store.write():
            store.delete_file(path, source)
        report.deleted += 1
