"""memlab's command line: thin argument parsing over the library's verbs.

    memlab search WORKSPACE QUERY [--config FILE] [--agent ID] [--max-results N]
                  [--min-score X] [--now ISO] [--json] [--index FILE | --no-index]
                  [--session SESSION] [--visibility self|tree|agent|all] [--sessions-store FILE]
    memlab index WORKSPACE [--config FILE] [--agent ID] [--force] [--index FILE]
    memlab status WORKSPACE [--config FILE] [--agent ID] [--deep] [--json] [--index FILE]
    memlab demo [DATASET]
    memlab serve-embeddings [--model PATH_OR_ALIAS] [--host 127.0.0.1] [--port N]
    memlab bench-providers DATASET --provider SPEC [--provider SPEC ...]

Exit codes: 0 ok, 2 usage/config/workspace error, 3 embedding provider unavailable,
4 search paused (the index was built under another identity: run ``memlab index --force``),
5 another ``memlab index`` holds the index.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from memlab.config import ConfigError, MemlabConfig, default_agent_id, load_config
from memlab.embed.base import ProviderUnavailable
from memlab.index.errors import IndexLocked, IndexPaused, IndexUnavailable


def _search(args: argparse.Namespace) -> int:
    try:
        return _search_or_fail(args)
    except ProviderUnavailable as exc:
        from memlab.embed.fallback import RequiredProviderUnavailable, unavailable_result

        if not isinstance(exc, RequiredProviderUnavailable):  # failed while searching
            try:
                ms = _agent_config(args)[0].memory_search
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


def _search_or_fail(args: argparse.Namespace) -> int:
    from memlab.openclaw import MemorySearch
    from memlab.workspace import MemlabWarning

    try:
        args.query.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes on the command line (surrogate escapes)
        raise ValueError("the query is not valid UTF-8 text") from None

    cfg, agent = _agent_config(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MemlabWarning)  # reported once below instead
        if args.no_index:
            ms = MemorySearch(args.workspace, cfg, agent_id=agent, **_session_args(args))
        else:
            from memlab.index.search import IndexedMemorySearch

            ms = IndexedMemorySearch(args.workspace, cfg, index_path=args.index,
                                     agent_id=agent, **_session_args(args))
    for skipped in ms.corpus.skipped:
        print(f"memlab: skipped {_printable(skipped.path)}: {skipped.reason}", file=sys.stderr)
    for w in caught:
        text = str(w.message)
        if "another memlab index" in text or "keyword-only" in text:
            print(text, file=sys.stderr)
    payload = ms.search(args.query, max_results=args.max_results, min_score=args.min_score,
                        now=args.now)
    if args.json:
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return 0
    print(format_results(payload["results"]))
    return 0


def _agent_config(args: argparse.Namespace) -> tuple[MemlabConfig, str]:
    """The config as the agent sees it (its ``agents.list[]`` override merged) and the agent
    id: ``--agent``, else the entry whose workspace is WORKSPACE, else the default agent."""
    from memlab.openclaw import DEFAULT_CONFIG

    source = args.config if args.config is not None else DEFAULT_CONFIG
    agent = args.agent or default_agent_id(source, args.workspace)
    return load_config(source, agent_id=agent), agent


def _session_args(args: argparse.Namespace) -> dict:
    """Session-transcript visibility options of ``memlab search``."""
    return {"session": getattr(args, "session", None),
            "session_tree": getattr(args, "sessions_store", None),
            "visibility": getattr(args, "visibility", None)}


def _printable(path: str) -> str:
    """``path`` with control characters escaped: a file name holding a newline or a terminal
    escape sequence cannot break (or forge) the ``path:start-end`` line."""
    return "".join(c if c.isprintable() or c == " " else
                   c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in path)


def format_results(results: list[dict]) -> str:
    """The plain output of ``openclaw memory search``: score, ``path:start-end``, snippet."""
    if not results:
        return "No matches."
    lines = []
    for r in results:
        lines.append(f"{r['score']:.3f} {_printable(r['path'])}:{r['startLine']}-{r['endLine']}")
        lines.append(r["snippet"])
        lines.append("")
    return "\n".join(lines).strip()


def _index(args: argparse.Namespace) -> int:
    from memlab.index.search import resolve_index_path
    from memlab.index.sync import sync_index
    from memlab.openclaw import keyword_only_config, make_search_embedder
    from memlab.workspace import MemlabWarning

    cfg, agent = _agent_config(args)
    ms = cfg.memory_search
    if not Path(args.workspace).expanduser().is_dir():
        raise FileNotFoundError(f"memory workspace not found: {args.workspace}")
    embedder, degraded = (None, None) if ms.resolved_provider() == "none" else \
        make_search_embedder(cfg)
    path = resolve_index_path(args.workspace, cfg, args.index)
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
        print(f"memlab: skipped {_printable(skipped.path)}: {skipped.reason}", file=sys.stderr)
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


def _open_for_indexing(path: Path, tokenizer: str, force: bool):
    """Open the index; a damaged file is an error naming ``--force``, which replaces it."""
    from memlab.index.errors import IndexCorrupt
    from memlab.index.store import IndexStore

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
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return IndexStore(path, fts_tokenizer=tokenizer)


def _status(args: argparse.Namespace) -> int:
    from memlab.index.search import format_status, index_status

    cfg, agent = _agent_config(args)
    status = index_status(args.workspace, cfg, index_path=args.index, deep=args.deep,
                          agent_id=agent)
    if args.json:
        print(json.dumps(status, ensure_ascii=False, indent=2))
    else:
        print(format_status(status))
    return 0


def _eval(args: argparse.Namespace) -> int:
    from memlab.eval.collection_cli import run_collection_eval, wants_collection
    from memlab.eval.datasets import load_dataset
    from memlab.eval.systems import evaluate_systems

    if wants_collection(args):
        return run_collection_eval(args)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dataset loader reports skipped files itself
        dataset = load_dataset(args.dataset, **({"unknown_ids": args.unknown_ids}
                                                if args.unknown_ids else {}))
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    systems = args.config or ["keyword", "vector", "hybrid"]
    result = evaluate_systems(dataset, systems, metrics, depth=args.depth,
                              production=args.production, by_tag=args.by_tag,
                              runs_dir=args.runs_dir, n_resamples=args.resamples,
                              condensed=args.condensed)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2, default=str))
    elif args.format == "latex":
        print(result.to_latex(by_tag=args.by_tag))
    elif args.format == "csv":
        print(result.to_csv())
    else:
        print(result.to_markdown(by_tag=args.by_tag))
    return 0


def _demo(args: argparse.Namespace) -> int:
    from memlab.demo import run_demo

    run_demo(args.dataset, query=args.query)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memlab", description="Research toolkit for agent memory search (OpenClaw parity).")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("search", help="search a memory workspace like `openclaw memory search`")
    p.add_argument("workspace", help="agent workspace folder (holds MEMORY.md and memory/)")
    p.add_argument("query", help="the search query")
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
    p.set_defaults(func=_search)

    i = sub.add_parser("index", help="index a workspace like `openclaw memory index` "
                       "(incremental; --force rebuilds)")
    i.add_argument("workspace", help="agent workspace folder (holds MEMORY.md and memory/)")
    i.add_argument("--config", help="OpenClaw config (JSON5)")
    i.add_argument("--agent", metavar="ID", help="the agent (see `memlab search --help`)")
    i.add_argument("--force", action="store_true", help="rebuild everything (the embedding "
                   "cache is kept: unchanged text is not re-embedded)")
    i.add_argument("--index", metavar="FILE", help="index file (see `memlab search --help`)")
    i.set_defaults(func=_index)

    s = sub.add_parser("status", help="show the index state like `openclaw memory status`")
    s.add_argument("workspace", help="agent workspace folder (holds MEMORY.md and memory/)")
    s.add_argument("--config", help="OpenClaw config (JSON5)")
    s.add_argument("--agent", metavar="ID", help="the agent (see `memlab search --help`)")
    s.add_argument("--deep", action="store_true", help="probe the provider with a live "
                   "embedding")
    s.add_argument("--json", action="store_true", help="print the status as JSON")
    s.add_argument("--index", metavar="FILE", help="index file (see `memlab search --help`)")
    s.set_defaults(func=_status)

    e = sub.add_parser("eval", help="compare systems on a labeled dataset (memory or BEIR)")
    e.add_argument("dataset", help="a memory dataset folder (workspace/, queries.jsonl, "
                   "qrels.jsonl) or a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)")
    e.add_argument("--config", action="append", metavar="FILE_OR_NAME",
                   help="a system: an OpenClaw config file or a built-in name (keyword, vector, "
                   "hybrid, hybrid+decay, hybrid+mmr, hybrid+decay+mmr, hybrid+rrf); repeat "
                   "for several; the first is the baseline (default: keyword, vector, hybrid)")
    e.add_argument("--metrics", default="ndcg@10,recall@10,mrr@10",
                   help="comma-separated NAME@K (ndcg, recall, mrr, map, p, success, "
                   "recall_any, recall_all; session_<NAME>@K on converted datasets)")
    e.add_argument("--depth", type=int, default=10,
                   help="hits per query, with minScore 0 (default 10)")
    e.add_argument("--production", action="store_true",
                   help="keep each config's own maxResults/minScore instead of --depth")
    e.add_argument("--by-tag", action="store_true", help="also break metrics down by tag")
    e.add_argument("--runs-dir", help="write each system's run as a TREC file here")
    e.add_argument("--resamples", type=int, default=10_000,
                   help="randomization/bootstrap resamples (default 10000)")
    e.add_argument("--unknown-ids", choices=["error", "drop", "keep"],
                   help="BEIR qrels naming unknown documents: fail, drop or keep them")
    e.add_argument("--format", choices=["markdown", "latex", "csv"], default="markdown")
    e.add_argument("--json", action="store_true", help="per-system and per-tag metrics as JSON")
    from memlab.eval.collection_cli import add_collection_options
    add_collection_options(e)
    e.set_defaults(func=_eval)

    d = sub.add_parser("demo", help="index the bundled sample workspace, search it and compare "
                       "keyword / vector / hybrid on its labeled queries")
    d.add_argument("dataset", nargs="?", help="a memory dataset folder "
                   "(default: the bundled datasets/sample-memory)")
    d.add_argument("--query", help="the example query to show")
    d.set_defaults(func=_demo)
    from memlab.config.export_cli import add_export_parser
    add_export_parser(sub)
    from memlab.tune.cli import add_sweep_parser
    add_sweep_parser(sub)
    from memlab.embed.server import add_serve_parser
    add_serve_parser(sub)
    from memlab.embed.bench import add_bench_parser
    add_bench_parser(sub)
    from memlab.convert.cli import add_datasets_parser
    add_datasets_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    warnings.formatwarning = lambda msg, cat, *a, **k: f"warning: {msg}\n"
    try:
        return args.func(args)
    except ConfigError as exc:
        print(f"memlab: config error: {exc}", file=sys.stderr)
        return 2
    except ProviderUnavailable as exc:
        print(f"memlab: embedding provider unavailable: {exc}", file=sys.stderr)
        return 3
    except IndexPaused as exc:
        print(f"memlab: {exc}", file=sys.stderr)
        return 4
    except IndexLocked as exc:
        print(f"memlab: error: {exc}", file=sys.stderr)
        return 5
    except IndexUnavailable as exc:
        print(f"memlab: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError, NotImplementedError) as exc:  # missing/unreadable paths too
        print(f"memlab: error: {exc}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as exc:  # disk full, I/O errors, damage found mid-query
        hint = "free some disk space and run the command again" if "full" in str(exc) else \
            "if the index file is damaged, rebuild it with `memlab index --force`"
        print(f"memlab: error: SQLite: {exc}; {hint}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
