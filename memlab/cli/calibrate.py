"""``memlab calibrate``: the ``minScore`` that meets an abstention target on a labeled dataset.

    memlab calibrate datasets/sample-memory --config vector --target-precision 0.95
    memlab calibrate DATASET --config mine.json5 --abstain-unanswerable 0.5 --json
    memlab calibrate DATASET --config hybrid --target-precision 0.9 --plot abstention.png

Prints the calibrated ``minScore`` with the precision, coverage, unanswerable queries abstained
and abstention AUC it gives (:mod:`memlab.eval.abstention`), then the config fragment to merge
(``{"memorySearch": {"query": {"minScore": ...}}}``). ``--curve FILE`` writes the whole curve
as CSV, ``--plot FILE`` the figure (:func:`memlab.plots.abstention_tradeoff`). A target no
threshold reaches is an error (exit 2) that names the best one.
"""

from __future__ import annotations

import argparse
import json
import warnings
from typing import Any

__all__ = ["add_calibrate_parser"]


def _calibrate(args: argparse.Namespace) -> int:
    from memlab.cli.line import refuse_profile

    if (code := refuse_profile(args, "calibrate", "the calibration curve is built from the "
                               "2026.7 pipeline's scores; on 2026.9 sweep query.minScore "
                               "instead (memlab sweep --profile 2026.9)")) is not None:
        return code
    from memlab.eval.abstention import calibrate
    from memlab.eval.datasets import load_dataset

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dataset loader reports skipped files itself
        dataset = load_dataset(args.dataset, **({"unknown_ids": args.unknown_ids}
                                                if args.unknown_ids else {}))
    result = calibrate(dataset, args.config, target_precision=args.target_precision,
                       abstain_unanswerable=args.abstain_unanswerable,
                       correct=args.correct, depth=args.depth)
    if args.curve:
        result.curve.to_csv(args.curve, index=False)
    if args.plot:
        from memlab.plots import abstention_tradeoff

        abstention_tradeoff(result).savefig(args.plot)
    if args.json:
        print(json.dumps({**result.to_dict(), "config": result.config_fragment()}, indent=2))
        return 0
    print(f"minScore {result.min_score:.4f} ({args.config}, {result.n_answerable} answerable "
          f"and {result.n_unanswerable} unanswerable queries)")
    print(f"  precision of answered queries {result.precision:.3f}, coverage "
          f"{result.coverage:.3f}, answerable answered {result.answerable_answered:.3f}, "
          f"unanswerable abstained {result.unanswerable_abstained:.3f}")
    print(f"  abstention AUC (top score, answerable vs not) {result.auc:.3f}")
    print(json.dumps(result.config_fragment()))
    return 0


def add_calibrate_parser(sub: Any) -> None:
    """Add ``memlab calibrate`` to the CLI's subparsers."""
    p = sub.add_parser("calibrate", help="calibrate minScore for a precision or abstention "
                       "target on a labeled dataset")
    p.add_argument("dataset", help="a memory dataset folder or a BEIR folder; queries without "
                   "a relevant judgment are the unanswerable ones")
    p.add_argument("--config", default="hybrid", metavar="FILE_OR_NAME",
                   help="the system: an OpenClaw config file or a built-in name "
                   "(default: hybrid)")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--target-precision", type=float, metavar="P",
                        help="keep the precision of answered queries >= P (0-1)")
    target.add_argument("--abstain-unanswerable", type=float, metavar="X",
                        help="abstain on at least a share X (0-1) of unanswerable queries")
    p.add_argument("--correct", default=None, metavar="METRIC",
                   help="an answered query counts as correct when it is answerable (default) "
                   "or, with e.g. success@1, when this metric is > 0")
    p.add_argument("--depth", type=int, default=10, help="hits per query (default 10)")
    p.add_argument("--unknown-ids", choices=["error", "drop", "keep"],
                   help="BEIR qrels naming unknown documents: fail, drop or keep them")
    p.add_argument("--curve", metavar="CSV", help="write the whole curve here")
    p.add_argument("--plot", metavar="FILE", help="save the precision/coverage figure here")
    p.add_argument("--json", action="store_true", help="the result and fragment as JSON")
    from memlab.cli.line import add_profile_argument

    add_profile_argument(p)  # 2026.9 is refused with the alternative
    p.set_defaults(func=_calibrate)
