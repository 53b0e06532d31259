"""``memlab search``, ``memlab index``, ``memlab status``: like ``openclaw memory ...``."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import Any

from memlab.cli.line import add_profile_argument, add_projects_argument, dispatch
from memlab.cli.output import format_results, printable
from memlab.config import ConfigError, MemlabConfig, default_agent_id, load_config
from memlab.embed.base import ProviderUnavailable

__all__ = ["add_search_options", "add_search_parsers", "agent_config", "run_search"]


def run_search(args: argparse.Namespace) -> int:
    """``memlab search`` of ``args.query`` with the options in ``args`` (see
    :func:`add_search_options`): prints the results (text or ``--json``) and returns the exit
    code; ``memlab shell`` runs it once per query.

    >>> import contextlib, io
    >>> from memlab.cli.main import build_parser
    >>> args = build_parser().parse_args(["search", "datasets/sample-memory/workspace",
    ...                                   "staging database host", "--no-index", "--json"])
    >>> args.config = {"memorySearch": {"provider": "none"}}
    >>> with contextlib.redirect_stdout(io.StringIO()) as out:
    ...     code = run_search(args)
    >>> code
    0
    >>> '"memory/2026-08-06.md' in out.getvalue()
    True
    """
    if (code := dispatch("search", args)) is not None:  # --profile 2026.9
        return code
    try:
        return _search_or_fail(args)
    except ProviderUnavailable as exc:
        from memlab.embed.fallback import RequiredProviderUnavailable, unavailable_result

        if not isinstance(exc, RequiredProviderUnavailable):  # failed while searching
            try:
                ms = agent_config(args)[0].memory_search
            except (ConfigError, ValueError, FileNotFoundError):
                ms = None
            if ms is not None and ms.provider_requirement() == "required":
                exc = RequiredProviderUnavailable(ms.resolved_provider(), str(exc))
        if not args.json:
            raise exc from None
        # the memory_search tool's payload: results [], disabled, unavailable, error, action
        reason = exc.reason if isinstance(exc, RequiredProviderUnavailable) else str(exc)
        print(json.dumps(unavailable_result(reason), ensure_ascii=False, indent=2))
        print(f"memlab: {exc}", file=sys.stderr)
        return 3


def _search_once(args: argparse.Namespace) -> int:
    """``memlab search``: :func:`run_search` on the numpy kernels (one query does not repay
    importing numba; ``memlab shell`` and the Python API use it when installed)."""
    from memlab.kernels.backend import default_backend

    with default_backend("numpy"):
        return run_search(args)


def _search_or_fail(args: argparse.Namespace) -> int:
    from memlab.openclaw import MemorySearch
    from memlab.workspace import MemlabWarning

    try:
        args.query.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes on the command line (surrogate escapes)
        raise ValueError("the query is not valid UTF-8 text") from None

    cfg, agent = agent_config(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MemlabWarning)  # reported once below instead
        if args.no_index:
            ms = MemorySearch(args.workspace, cfg, agent_id=agent, **_session_args(args))
        else:
            from memlab.indexed_search import IndexedMemorySearch

            ms = IndexedMemorySearch(args.workspace, cfg, index_path=args.index,
                                     agent_id=agent, **_session_args(args))
    for skipped in ms.corpus.skipped:
        print(f"memlab: skipped {printable(skipped.path)}: {skipped.reason}", file=sys.stderr)
    for w in caught:
        text = str(w.message)
        if ("another memlab index" in text or "keyword-only" in text
                or "cannot write the index" in text):
            print(text, file=sys.stderr)
    payload = ms.search(args.query, max_results=args.max_results, min_score=args.min_score,
                        now=args.now)
    if args.json:
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return 0
    print(format_results(payload["results"]))
    return 0


def agent_config(args: argparse.Namespace) -> tuple[MemlabConfig, str]:
    """The config as the agent sees it (its ``agents.list[]`` override merged) and the agent
    id: ``--agent``, else the entry whose workspace is WORKSPACE, else the default agent."""
    from memlab.config import DEFAULT_CONFIG  # not via memlab.openclaw: it loads every stage

    source = args.config if args.config is not None else DEFAULT_CONFIG
    agent = args.agent or default_agent_id(source, args.workspace)
    return load_config(source, agent_id=agent), agent


def _session_args(args: argparse.Namespace) -> dict:
    """Session-transcript visibility options of ``memlab search``."""
    return {"session": getattr(args, "session", None),
            "session_tree": getattr(args, "sessions_store", None),
            "visibility": getattr(args, "visibility", None)}


def _index(args: argparse.Namespace) -> int:
    from memlab.embed.factory import keyword_only_config
    from memlab.index.search import resolve_index_path
    from memlab.index.sync import sync_index
    from memlab.workspace import MemlabWarning

    if (code := dispatch("index", args)) is not None:  # --profile 2026.9
        return code
    cfg, agent = agent_config(args)
    ms = cfg.memory_search
    if not Path(args.workspace).expanduser().is_dir():
        raise FileNotFoundError(f"memory workspace not found: {args.workspace}")
    path = resolve_index_path(args.workspace, cfg, args.index)
    embedder, degraded = (None, None) if ms.resolved_provider() == "none" else \
        _index_embedder(cfg, path, args, agent)
    store = _open_for_indexing(path, ms.store.fts.tokenizer, args.force)
    if degraded is not None:  # optional provider unavailable: index keyword-only, unless
        meta = store.read_meta() or {}  # that would throw away the index's vectors
        if store.has_chunks() and meta.get("model", "fts-only") != "fts-only":
            store.close()
            raise ProviderUnavailable(
                f'Memory sync aborted: embedding provider "{ms.resolved_provider()}" is '
                "configured but unavailable. Refusing to run sync in fts-only fallback mode "
                f"to protect existing vector index (current model: {meta.get('model')}). "
                f"Reason: {degraded}")
        cfg = keyword_only_config(cfg)  # make_search_embedder warned
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MemlabWarning)  # reported once below instead
            report = sync_index(store, args.workspace, cfg, embedder, force=args.force,
                                on_mismatch="rebuild", progress=True, agent_id=agent)
        counts = store.counts()
    finally:
        store.close()
    for skipped in report.skipped:
        print(f"memlab: skipped {printable(skipped.path)}: {skipped.reason}", file=sys.stderr)
    files = sum(c["files"] for c in counts.values())
    chunks = sum(c["chunks"] for c in counts.values())
    print(f"Memory index updated ({report.workspace}).")
    how = "full rebuild" + (f" ({report.reason})" if report.reason else "") \
        if report.mode == "full" else "incremental"
    print(f"Indexed: {files}/{report.files} files · {chunks} chunks · {how}: "
          f"{report.indexed} files written, {report.unchanged} unchanged, {report.deleted} "
          f"removed · {report.texts_embedded} texts embedded, {report.cache_hits} from cache · "
          f"{report.seconds:.2f}s")
    print(f"Store: {path}")
    return 0


def _index_embedder(cfg: MemlabConfig, path: Path, args: argparse.Namespace, agent: str
                    ) -> tuple[Any, str | None]:
    """``(embedder, degraded_reason)`` of ``memlab index``, as
    :func:`memlab.embed.factory.make_search_embedder` gives them; but when the index at
    ``path`` exists and the sync has nothing to embed
    (:func:`memlab.index.sync.needs_embedding`), the provider as created, without loading a
    local model to check that it works (seconds of CPU for a no-op index)."""
    import sqlite3

    from memlab.embed.cache import CachedEmbedder
    from memlab.embed.factory import make_embedder, make_search_embedder
    from memlab.index.errors import IndexUnavailable
    from memlab.index.store import IndexStore
    from memlab.index.sync import needs_embedding

    lazy = None
    if not args.force and path.is_file():
        try:
            lazy = make_embedder(cfg)
        except ProviderUnavailable:
            pass  # make_search_embedder decides: a required provider fails, optional degrades
    if lazy is not None:
        try:
            store = IndexStore(path, fts_tokenizer=cfg.memory_search.store.fts.tokenizer)
        except (IndexUnavailable, sqlite3.DatabaseError):
            store = None  # _open_for_indexing reports it
        if store is not None:
            try:
                if not needs_embedding(store, args.workspace, cfg, lazy, agent_id=agent):
                    return lazy, None
            except sqlite3.DatabaseError:
                pass  # a damaged index: _open_for_indexing reports it (or --force rebuilds)
            finally:
                store.close()
    cache = lazy.cache if isinstance(lazy, CachedEmbedder) else None
    return make_search_embedder(cfg, cache)


def _open_for_indexing(path: Path, tokenizer: str, force: bool):
    """Open the index; a damaged file is an error naming ``--force``, which replaces it."""
    from memlab.index.errors import IndexCorrupt
    from memlab.index.store import IndexStore, remove_index_files

    try:
        store = IndexStore(path, fts_tokenizer=tokenizer)
        problem = store.quick_check()
    except IndexCorrupt as exc:
        store, problem = None, exc.detail
    if problem is None:
        return store
    if store is not None:
        store.close()
    if not force:
        raise IndexCorrupt(path, problem)
    print(f"memlab: the index file {path} is damaged ({problem}); rebuilding it from scratch",
          file=sys.stderr)
    remove_index_files(path)  # only after checking it is a memlab index
    return IndexStore(path, fts_tokenizer=tokenizer)


def _status(args: argparse.Namespace) -> int:
    from memlab.index.search import format_status, index_status

    if (code := dispatch("status", args)) is not None:  # --profile 2026.9
        return code
    cfg, agent = agent_config(args)
    status = index_status(args.workspace, cfg, index_path=args.index, deep=args.deep,
                          agent_id=agent)
    if args.json:
        print(json.dumps(status, ensure_ascii=False, indent=2))
    else:
        print(format_status(status))
    return 0


def add_search_parsers(sub: Any) -> None:
    """Add ``memlab search``, ``memlab index`` and ``memlab status`` to the CLI's subparsers."""
    p = sub.add_parser("search", help="search a memory workspace like `openclaw memory search`")
    p.add_argument("workspace", help="agent workspace folder (holds MEMORY.md and memory/)")
    p.add_argument("query", help="the search query")
    add_search_options(p)
    p.set_defaults(func=_search_once)

    i = _index_parser(sub, "index", "index a workspace like `openclaw memory index` "
                      "(incremental; --force rebuilds)")
    i.add_argument("--force", action="store_true", help="rebuild everything (the embedding "
                   "cache is kept: unchanged text is not re-embedded)")
    _finish_index_parser(i, _index)

    s = _index_parser(sub, "status", "show the index state like `openclaw memory status`")
    s.add_argument("--deep", action="store_true", help="probe the provider with a live "
                   "embedding")
    s.add_argument("--json", action="store_true", help="print the status as JSON")
    _finish_index_parser(s, _status)


def _index_parser(sub: Any, name: str, summary: str) -> argparse.ArgumentParser:
    """A subcommand on a workspace's index (``index``, ``status``): WORKSPACE, ``--config``
    and ``--agent`` first, its own options next, then :func:`_finish_index_parser`."""
    p = sub.add_parser(name, help=summary)
    p.add_argument("workspace", help="agent workspace folder (holds MEMORY.md and memory/)")
    p.add_argument("--config", help="OpenClaw config (JSON5)")
    p.add_argument("--agent", metavar="ID", help="the agent (see `memlab search --help`)")
    return p


def _finish_index_parser(p: argparse.ArgumentParser, func: Any) -> None:
    """``--index``, ``--profile`` and the handler of an :func:`_index_parser` subcommand."""
    p.add_argument("--index", metavar="FILE", help="index file (see `memlab search --help`)")
    add_profile_argument(p)
    p.set_defaults(func=func)


def add_search_options(p: argparse.ArgumentParser) -> None:
    """The options of ``memlab search`` after WORKSPACE and QUERY (``memlab shell`` takes the
    same ones)."""
    p.add_argument("--config", help="OpenClaw config (JSON5): a whole config, "
                   "{memorySearch: ...} or a bare memorySearch object")
    p.add_argument("--agent", metavar="ID", help="the agent (as in `openclaw memory ... "
                   "--agent`): its agents.list[] memorySearch applies and its transcripts "
                   "(WORKSPACE/sessions/ID/) are searched; default: the agents.list entry "
                   "whose workspace is WORKSPACE, else the default agent, else main")
    p.add_argument("--max-results", type=int, help="override query.maxResults")
    p.add_argument("--min-score", type=float, help="override query.minScore")
    p.add_argument("--now", help="reference time for temporal decay (ISO-8601; default: now)")
    p.add_argument("--json", action="store_true", help="print JSON like `--json` in OpenClaw")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--index", metavar="FILE", help="index file (default: memlab.indexPath, "
                       "else $MEMLAB_CACHE_DIR/index/<hash of the workspace path>.sqlite)")
    where.add_argument("--no-index", action="store_true", help="search in memory, without "
                       "the persistent index")
    p.add_argument("--session", metavar="SESSION", help="the current session (a session key "
                   "such as agent:main:main, or a session id): session-transcript hits it may "
                   "not see are dropped, as OpenClaw's memory_search tool does (default: no "
                   "requester, every transcript searchable, like `openclaw memory search`)")
    p.add_argument("--visibility", choices=["self", "tree", "agent", "all"],
                   help="tools.sessions.visibility for --session (default: tree)")
    p.add_argument("--sessions-store", metavar="FILE", help="the session tree: a sessions.json "
                   "(default: WORKSPACE/sessions/<agent>/sessions.json)")
    add_profile_argument(p)
    add_projects_argument(p)
