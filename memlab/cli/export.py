"""The ``memlab export`` command: a sweep results row or a config file written as an OpenClaw
config.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
import warnings
from pathlib import Path
from typing import Any

from memlab.config.errors import ExportWarning
from memlab.config.export import export_config
from memlab.config.export_2026_9 import measured_effects
from memlab.config.openclaw_2026_8 import SCHEMAS
from memlab.config.openclaw_import import import_config
from memlab.config.results import overrides_from_results, read_results


def add_export_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``memlab export`` on an ``argparse`` sub-parser collection."""
    p = subparsers.add_parser(
        "export", help="write a tuned configuration (a sweep results row or a config file) as "
        "an OpenClaw config file")
    p.add_argument("source", metavar="RESULTS_OR_CONFIG",
                   help="sweep results (.parquet/.csv/.tsv, one row per configuration) or an "
                   "OpenClaw/memlab config file")
    p.add_argument("--rank", type=int, default=1, help="which row of the results, best first "
                   "(default 1)")
    p.add_argument("--metric", help="rank by this metric column (default: the first one)")
    p.add_argument("--dataset", help="the dataset the results must be for (checked against a "
                   "`dataset` column)")
    p.add_argument("--schema", choices=(*SCHEMAS, "2026.9"), default="2026.7",
                   help="2026.7: agents.defaults.memorySearch; 2026.8: memory.search (2026.8 "
                   "and later; fixed constants are reported); 2026.9: only keys 2026.9.6 "
                   "accepts, a tuned value it cannot express is refused with its measured "
                   "effect")
    p.add_argument("--out", required=True, help="output file ('-' for standard output)")
    p.add_argument("--allow-lossy", action="store_true", help="drop memlab-only choices "
                   "(RRF fusion, BM25 keyword leg, ...) instead of refusing")
    p.add_argument("--base", metavar="OPENCLAW_CONFIG", help="an existing OpenClaw config: "
                   "the tuned values are merged into it, its other keys are kept (comments "
                   "are not)")
    p.add_argument("--full", action="store_true", help="write every memory search key with its "
                   "effective value, not only the configured ones")
    p.add_argument("--agent", help="with a config file: the agent whose settings to export")
    p.set_defaults(func=run_export)
    return p


def run_export(args: argparse.Namespace) -> int:
    src = Path(args.source).expanduser()
    header: dict[str, Any] = {}
    effects: dict[str, float] = {}
    if src.suffix.lower() in (".parquet", ".pq", ".csv", ".tsv"):
        frame = read_results(src)
        overrides, header = overrides_from_results(frame, rank=args.rank,
                                                   metric=args.metric, dataset=args.dataset)
        if args.schema == "2026.9":
            if "dataset" in frame.columns and header.get("dataset") is not None:
                frame = frame[frame["dataset"].astype(str) == header["dataset"]]
            effects = measured_effects(frame, header["metric"], header["score"])
        header = {"source": str(src), **header}
        config: Any = overrides
    else:
        if not src.is_file():
            raise FileNotFoundError(f"results or config file not found: {src}")
        config = import_config(src, agent_id=args.agent)  # replaces --base's search block
        header = {"source": str(src)}
        if args.dataset:
            header["dataset"] = args.dataset
    header["date"] = _dt.date.today().isoformat()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ExportWarning)
        text = export_config(config, args.schema, header=header, allow_lossy=args.allow_lossy,
                             full=args.full, base=args.base, effects=effects or None)
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    for d in text.dropped:
        print(f"warning: dropped (memlab-only): {d}", file=sys.stderr)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        out = Path(args.out).expanduser()
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out} (OpenClaw {args.schema} schema)")
    return 0
