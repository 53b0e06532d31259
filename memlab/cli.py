"""memlab's command line: thin argument parsing over the library's verbs.

    memlab search WORKSPACE QUERY [--config FILE] [--max-results N] [--min-score X]
                  [--now ISO] [--json]
    memlab demo [DATASET]
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence

from memlab.config import ConfigError
from memlab.embed.base import ProviderUnavailable


def _search(args: argparse.Namespace) -> int:
    from memlab.openclaw import MemorySearch
    from memlab.workspace import MemlabWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemlabWarning)  # reported once below instead
        ms = MemorySearch(args.workspace, args.config)
    for skipped in ms.corpus.skipped:
        print(f"memlab: skipped {skipped.path}: {skipped.reason}", file=sys.stderr)
    payload = ms.search(args.query, max_results=args.max_results, min_score=args.min_score,
                        now=args.now)
    if args.json:
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return 0
    print(format_results(payload["results"]))
    return 0


def format_results(results: list[dict]) -> str:
    """The plain output of ``openclaw memory search``: score, ``path:start-end``, snippet."""
    if not results:
        return "No matches."
    lines = []
    for r in results:
        lines.append(f"{r['score']:.3f} {r['path']}:{r['startLine']}-{r['endLine']}")
        lines.append(r["snippet"])
        lines.append("")
    return "\n".join(lines).strip()


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
    p.add_argument("--max-results", type=int, help="override query.maxResults")
    p.add_argument("--min-score", type=float, help="override query.minScore")
    p.add_argument("--now", help="reference time for temporal decay (ISO-8601; default: now)")
    p.add_argument("--json", action="store_true", help="print JSON like `--json` in OpenClaw")
    p.set_defaults(func=_search)

    d = sub.add_parser("demo", help="index the bundled sample workspace, search it and compare "
                       "keyword / vector / hybrid on its labeled queries")
    d.add_argument("dataset", nargs="?", help="a memory dataset folder "
                   "(default: the bundled datasets/sample-memory)")
    d.add_argument("--query", help="the example query to show")
    d.set_defaults(func=_demo)
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
    except (FileNotFoundError, ValueError, NotImplementedError) as exc:
        print(f"memlab: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
