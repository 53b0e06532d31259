"""``memlab eval`` on a collection of datasets (a folder of dataset folders, or
``--collection``): options and the handler, registered by the main ``eval`` parser."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_collection_options(parser: argparse.ArgumentParser) -> None:
    """``--collection`` and ``--condensed`` on the ``eval`` parser."""
    parser.add_argument("--collection", action="store_true",
                        help="DATASET is a folder of datasets (e.g. converted LoCoMo or "
                        "LongMemEval): evaluate each and macro-average (automatic when "
                        "DATASET holds dataset folders); allows session_<metric> names")
    parser.add_argument("--condensed", action="store_true",
                        help="condensed lists: score only judged hits (for pooled labels)")


def wants_collection(args: argparse.Namespace) -> bool:
    """Whether ``memlab eval`` should run the collection runner for these arguments."""
    from memlab.eval.collection import is_collection

    return bool(getattr(args, "collection", False)) or is_collection(Path(args.dataset)) or \
        "session_" in str(getattr(args, "metrics", ""))


def run_collection_eval(args: argparse.Namespace) -> int:
    """Evaluate the collection and print it (Markdown, CSV or JSON)."""
    import sys

    from memlab.eval.collection import evaluate_collection

    ignored = [flag for flag, on in (("--runs-dir", getattr(args, "runs_dir", None)),
                                     ("--unknown-ids", getattr(args, "unknown_ids", None)),
                                     ("--format latex", getattr(args, "format", "") == "latex"))
               if on]
    if ignored:
        print(f"memlab: {', '.join(ignored)} not used when evaluating a collection",
              file=sys.stderr)
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    systems = args.config or ["keyword", "vector", "hybrid"]
    result = evaluate_collection(args.dataset, systems, metrics, depth=args.depth,
                                 production=args.production, condensed=args.condensed)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2, default=str))
    elif args.format == "csv":
        print(result.to_csv())
    else:
        print(result.to_markdown(by_tag=args.by_tag))
    return 0
