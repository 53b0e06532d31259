"""``memlab search`` over the persistent index: :class:`IndexedMemorySearch`.

:class:`IndexedMemorySearch` is :class:`memlab.openclaw.MemorySearch` backed by the index
file of the workspace: it syncs the index first (only changed files are re-chunked and
re-embedded; an identity change pauses the search with a message naming
``memlab index --force``), then searches the stored chunks -- with the FTS5 keyword leg when
``memlab.keyword`` is ``"fts5"`` and vector scores computed as sqlite-vec computes them.

It sits with :mod:`memlab.openclaw` (a whole pipeline over the index's legs); the index
itself (:mod:`memlab.index`) stays below the pipelines, and ``memlab status`` lives in
:mod:`memlab.index.search`.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

from memlab.config import MemlabConfig
from memlab.embed.base import EmbeddingProvider
from memlab.embed.fallback import ProviderSwitched
from memlab.index.errors import IndexNotWritable
from memlab.index.search import resolve_index_path
from memlab.index.store import IndexStore
from memlab.index.sync import (
    FORCE_HINT,
    IndexLocked,
    IndexPaused,
    SyncReport,
    identity_problem,
    index_identity,
    sync_index,
)
from memlab.index.vectors import IndexVectorSearch
from memlab.lines import Line
from memlab.openclaw import MemorySearch, config_line
from memlab.workspace import MemlabWarning

__all__ = ["IndexedMemorySearch"]


class IndexedMemorySearch(MemorySearch):
    """:class:`~memlab.openclaw.MemorySearch` over the workspace's persistent index.

    Parameters
    ----------
    workspace, config, embedder
        As for :class:`~memlab.openclaw.MemorySearch`.
    index_path
        The index file (default: :func:`resolve_index_path`).
    sync
        Sync the index before searching (OpenClaw's sync on search). When another indexer
        holds the lock, the index is searched as it is, with a warning.
    session, session_tree, visibility, agent_id
        Session transcripts and their visibility, as for
        :class:`~memlab.openclaw.MemorySearch`.

    Attributes: ``store`` (the :class:`~memlab.index.IndexStore`), ``sync_report`` (the
    :class:`~memlab.index.SyncReport`, ``None`` when not synced) and ``paused`` (the identity
    problem, ``None`` when the index can be searched). Searching a paused index raises
    :class:`~memlab.index.IndexPaused`.

    >>> ms = IndexedMemorySearch("datasets/sample-memory/workspace", {"provider": "none"},
    ...                          index_path=":memory:")
    >>> ms.search("staging database host")["results"][0]["path"]
    'memory/2026-08-06.md'
    """

    def __init__(self, workspace: str | Path,
                 config: MemlabConfig | dict | str | Path | None = None,
                 embedder: EmbeddingProvider | None = None, *,
                 index_path: str | Path | None = None, sync: bool = True,
                 session: str | None = None, session_tree: Any = None,
                 visibility: str | None = None, agent_id: str = "main",
                 profile: str | Line | None = None):
        self.workspace = Path(os.path.abspath(os.path.expanduser(os.fspath(workspace))))
        if not self.workspace.is_dir():
            raise FileNotFoundError(f"memory workspace not found: {self.workspace}")
        self.line, tree = config_line(config, profile)
        if self.line.engine == "tiered":
            from memlab.tiered.index import index_file

            where = index_file(self.workspace, tree, self.line.index_suffix, index_path)
            self._open_tiered(self.workspace, tree, embedder, agent_id, where, sync=sync)
            self.sync_report, self.paused = None, None
            return
        self._setup(config if tree is None else tree, embedder, session=session,
                    session_tree=session_tree, visibility=visibility, agent_id=agent_id)
        ms = self.config.memory_search
        path = (None if str(index_path) == ":memory:" else
                resolve_index_path(self.workspace, self.config, index_path))
        self.store = IndexStore(path, fts_tokenizer=ms.store.fts.tokenizer)
        self.sync_report: SyncReport | None = None
        self.paused: str | None = None
        skipped: list = []
        if self.degraded is not None and _has_vectors(self.store):
            # OpenClaw refuses to rebuild a vector index in fts-only mode: search its FTS
            # table as it is (keyword-only), without syncing
            warnings.warn("memlab: not syncing the index in keyword-only mode, to protect its "
                          f"vectors ({self.store.read_meta().get('model')}); fix the provider "
                          f"and run `{FORCE_HINT}`", MemlabWarning, stacklevel=2)
            sync = False
        if sync:
            try:
                self.sync_report = sync_index(self.store, self.workspace, self.config,
                                              self.embedder, on_mismatch="pause",
                                              agent_id=agent_id)
                skipped = self.sync_report.skipped
                if self.sync_report.mode == "paused":
                    self.paused = self.sync_report.reason
            except (IndexLocked, IndexNotWritable) as exc:  # the index stays consistent
                warnings.warn(f"memlab: {exc}; searching the index as it is", MemlabWarning,
                              stacklevel=2)
        if self.sync_report is None and self.degraded is None:
            expected = index_identity(self.config, self.embedder, self.workspace)
            self.paused = identity_problem(self.store.read_meta(), expected,
                                           has_chunks=self.store.has_chunks())
        self.store.pin()  # every stage sees the same snapshot (docnos)
        corpus = self.store.corpus()
        corpus.root = self.workspace
        corpus.skipped = list(skipped)
        self._use_corpus(corpus)

    def _pipeline_options(self) -> dict[str, Any]:
        # the same pipeline as MemorySearch, with the index's legs injected: its FTS5 table
        # and (for a "Flat" vector index) its stored vectors scored as sqlite-vec does
        options = super()._pipeline_options()  # with "store": self.store
        if self.config.memlab.vector_index == "Flat":
            store = self.store
            options["vector_leg"] = lambda embedder, depth: IndexVectorSearch(
                store, embedder, depth=depth)
        return options

    def _check(self) -> None:
        if self.paused:
            raise IndexPaused(self.paused, self.store.path)

    def run(self, queries: Any, max_results: int | None = None, min_score: float | None = None,
            now: object = None):
        self._check()
        try:
            return super().run(queries, max_results, min_score, now)
        except ProviderSwitched:
            self._after_switch()
            return super().run(queries, max_results, min_score, now)

    def search(self, query: str, max_results: int | None = None,
               min_score: float | None = None, now: object = None) -> dict[str, Any]:
        self._check()
        try:
            return super().search(query, max_results, min_score, now)
        except ProviderSwitched:
            self._after_switch()  # OpenClaw: re-embed the query only if the identity holds
            return super().search(query, max_results, min_score, now)

    def _after_switch(self) -> None:
        """The fallback provider took over: pause unless the index was built for it."""
        self._pipes = {}
        expected = index_identity(self.config, self.embedder, self.workspace)
        problem = identity_problem(self.store.read_meta(), expected,
                                   has_chunks=self.store.has_chunks())
        if problem is not None:
            self.paused = problem
            raise IndexPaused(problem, self.store.path) from None


def _has_vectors(store: IndexStore) -> bool:
    """Whether the index holds embeddings (its identity names a model, not fts-only)."""
    meta = store.read_meta() or {}
    return store.has_chunks() and meta.get("model", "fts-only") != "fts-only"
