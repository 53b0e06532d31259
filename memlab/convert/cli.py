"""``memlab datasets``: convert benchmarks to memory datasets, mine weak labels.

    memlab datasets convert locomo FILE OUT [--layout notes|transcripts]
    memlab datasets convert longmemeval FILE OUT [--layout notes|transcripts] [--limit N]
    memlab datasets mine SESSIONS WORKSPACE OUT

Registered by the main parser with :func:`add_datasets_parser`.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from memlab.convert.layout import LAYOUTS


def _convert(args: argparse.Namespace) -> int:
    from memlab.convert.locomo import convert_locomo
    from memlab.convert.longmemeval import convert_longmemeval

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        if args.benchmark == "locomo":
            report = convert_locomo(args.file, args.out, layout=args.layout)
        else:
            report = convert_longmemeval(args.file, args.out, layout=args.layout,
                                         limit=args.limit)
    for w in caught:
        print(f"memlab: warning: {w.message}", file=sys.stderr)
    print(f"Wrote {report.summary()} to {args.out} (layout {args.layout}).")
    print(f"Evaluate: memlab eval {args.out} --config keyword "
          "--metrics ndcg@10,recall_any@10,recall_all@10,session_recall_any@10")
    return 0


def _mine(args: argparse.Namespace) -> int:
    from memlab.mine import mine_transcripts, write_mined

    mined = mine_transcripts(args.sessions, args.workspace)
    write_mined(mined, args.workspace, args.out)
    for problem in mined.skipped:
        print(f"memlab: skipped {problem}", file=sys.stderr)
    print(f"Wrote {mined.summary()} to {args.out}.")
    return 0


def add_datasets_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``memlab datasets convert|mine`` to the main parser's sub-commands."""
    p = subparsers.add_parser("datasets", help="convert LoCoMo / LongMemEval to memory "
                              "datasets; mine weak labels from transcripts")
    sub = p.add_subparsers(dest="datasets_command", required=True)
    conv = sub.add_parser("convert", help="convert a benchmark file into memory datasets "
                          "(one per LoCoMo conversation / LongMemEval question)")
    conv.add_argument("benchmark", choices=["locomo", "longmemeval"],
                      help="locomo: data/locomo10.json of github.com/snap-research/locomo; "
                      "longmemeval: longmemeval_s/_m/_oracle.json of "
                      "github.com/xiaowu0162/LongMemEval (HF dataset xiaowu0162/longmemeval)")
    conv.add_argument("file", help="the benchmark's JSON file")
    conv.add_argument("out", help="output folder: one dataset folder per conversation/question")
    conv.add_argument("--layout", choices=LAYOUTS, default="notes",
                      help="notes: dated daily notes memory/YYYY-MM-DD.md (default); "
                      "transcripts: OpenClaw session JSONL under sessions/main/")
    conv.add_argument("--limit", type=int, help="convert only the first N entries "
                      "(LongMemEval)")
    conv.set_defaults(func=_convert)
    mine = sub.add_parser("mine", help="weak labels from OpenClaw transcripts: memory_search "
                          "calls become queries, the results the agent used become qrels")
    mine.add_argument("sessions", help="a transcript (.jsonl) or a folder of them (e.g. "
                      "~/.openclaw/agents/main/sessions)")
    mine.add_argument("workspace", help="the agent workspace the searches ran on")
    mine.add_argument("out", help="the dataset folder to write (workspace copied in)")
    mine.set_defaults(func=_mine)
    return p
