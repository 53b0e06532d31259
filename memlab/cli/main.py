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
import sqlite3
import sys
import warnings
from collections.abc import Sequence

from memlab.cli.demo import add_demo_parser
from memlab.cli.eval import add_eval_parser
from memlab.cli.search import add_search_parsers
from memlab.config import ConfigError
from memlab.embed.base import ProviderUnavailable
from memlab.index.errors import IndexLocked, IndexPaused, IndexUnavailable
from memlab.secrets import scrub

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The ``memlab`` argument parser with every verb."""
    parser = argparse.ArgumentParser(
        prog="memlab", description="Research toolkit for agent memory search (OpenClaw parity).")
    sub = parser.add_subparsers(dest="command", required=True)
    add_search_parsers(sub)
    add_eval_parser(sub)
    add_demo_parser(sub)
    from memlab.cli.export import add_export_parser
    add_export_parser(sub)
    from memlab.cli.sweep import add_sweep_parser
    add_sweep_parser(sub)
    from memlab.cli.serve_embeddings import add_serve_parser
    add_serve_parser(sub)
    from memlab.cli.bench import add_bench_parser
    add_bench_parser(sub)
    from memlab.convert.cli import add_datasets_parser
    add_datasets_parser(sub)
    from memlab.cli.calibrate import add_calibrate_parser
    add_calibrate_parser(sub)
    return parser


def _say(text: str) -> None:
    """An error line on stderr, scrubbed of every registered secret (memlab.secrets)."""
    print(scrub(text), file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    warnings.formatwarning = lambda msg, cat, *a, **k: f"warning: {msg}\n"
    try:
        return args.func(args)
    except ConfigError as exc:
        _say(f"memlab: config error: {exc}")
        return 2
    except ProviderUnavailable as exc:
        _say(f"memlab: embedding provider unavailable: {exc}")
        return 3
    except IndexPaused as exc:
        _say(f"memlab: {exc}")
        return 4
    except IndexLocked as exc:
        _say(f"memlab: error: {exc}")
        return 5
    except IndexUnavailable as exc:
        _say(f"memlab: error: {exc}")
        return 2
    except (OSError, ValueError, NotImplementedError) as exc:  # missing/unreadable paths too
        _say(f"memlab: error: {exc}")
        return 2
    except sqlite3.DatabaseError as exc:  # disk full, I/O errors, damage found mid-query
        hint = "free some disk space and run the command again" if "full" in str(exc) else \
            "if the index file is damaged, rebuild it with `memlab index --force`"
        _say(f"memlab: error: SQLite: {exc}; {hint}")
        return 2
