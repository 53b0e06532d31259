"""``memlab eval``: compare systems on a labeled dataset (memory or BEIR)."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from typing import Any

from memlab.lines import upgrade_lines

__all__ = ["add_eval_parser"]


def _profiles() -> tuple[str, str]:
    """``(old, new)``: what ``--profile`` takes, the lines of the upgrade
    (:func:`memlab.lines.upgrade_lines`)."""
    old, new = upgrade_lines()
    return old.name, new.name


def _eval(args: argparse.Namespace) -> int:
    from memlab.cli.line import config_file_line
    from memlab.eval.collection_cli import run_collection_eval, wants_collection
    from memlab.eval.datasets import load_dataset
    from memlab.eval.systems import evaluate_systems

    old, new = _profiles()
    if not args.profile and args.config and all(
            getattr(config_file_line(c), "engine", None) == "tiered" for c in args.config):
        args.profile = [new]  # the configs' own line (memory.search), as memlab search does
    if getattr(args, "projects", None) and set(args.profile or ()) != {new}:
        print("memlab: error: --projects needs --profile 2026.9 alone (2026.7 has no project "
              "ranking; the upgrade report runs the dataset without a session)",
              file=sys.stderr)
        return 2
    if args.profile == [new] and wants_collection(args):
        print("memlab: error: --profile 2026.9 ranks a memory dataset (a workspace); this is "
              "a BEIR collection: drop --profile", file=sys.stderr)
        return 2
    if wants_collection(args):
        return run_collection_eval(args)
    if args.profile and set(args.profile) == {new}:
        return _profile_tiered(args)
    if args.profile and set(args.profile) != {old}:
        return _upgrade(args)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dataset loader reports skipped files itself
        dataset = load_dataset(args.dataset, **({"unknown_ids": args.unknown_ids}
                                                if args.unknown_ids else {}))
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    _warn_deeper_than_depth(metrics, args.depth, args.production)
    systems = args.config or ["keyword", "vector", "hybrid"]
    if getattr(args, "model", None):
        return _eval_models(args, dataset, metrics, args.config or ["hybrid"])
    result = evaluate_systems(dataset, systems, metrics, depth=args.depth,
                              production=args.production, by_tag=args.by_tag,
                              runs_dir=args.runs_dir, n_resamples=args.resamples,
                              condensed=args.condensed)
    if args.json:
        text = json.dumps(result.to_dict(), ensure_ascii=False, indent=2, default=str)
    elif args.format == "latex":
        text = result.to_latex(by_tag=args.by_tag)
    elif args.format == "csv":
        text = result.to_csv()
    else:
        text = result.to_markdown(by_tag=args.by_tag)
    if args.against != "baseline" and not args.json and args.format == "markdown":
        from memlab.eval.pairwise import comparison_pairwise, format_pairwise

        pairs = comparison_pairwise(result, args.against, correction=args.correction)
        label = {"best": "against the best system", "all": "all pairs"}.get(
            args.against, f"against {args.against}")
        text += f"\n\nPaired tests, {label}:\n\n" + format_pairwise(
            pairs, correction=args.correction)
    print(text)
    _report_truncation(dataset, systems)
    if args.out:
        from pathlib import Path

        Path(args.out).write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


def _eval_models(args: argparse.Namespace, dataset: Any, metrics: list[str],
                 systems: list[str]) -> int:
    """``--model SPEC ...``: every system with every model, and the models side by side
    (:func:`memlab.tune.models.evaluate_models`)."""
    from memlab.cli.bench import DEFAULT_PRICES, format_table
    from memlab.tune.models import evaluate_models

    result, models = evaluate_models(dataset, systems, args.model, metrics, depth=args.depth,
                                     production=args.production, by_tag=args.by_tag,
                                     n_resamples=args.resamples, prices=DEFAULT_PRICES)
    text = (json.dumps({**result.to_dict(), "models": models.to_dict(orient="records")},
                       ensure_ascii=False, indent=2, default=str) if args.json
            else result.to_markdown(by_tag=args.by_tag) + "\n\nModels (texts embedded in "
            "this run / found in the embedding cache; first_run_s: the model's first system, "
            "embedding included; index_usd: embedding the corpus):\n\n" + format_table(models))
    print(text)
    if args.out:
        from pathlib import Path

        Path(args.out).write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


def _report_truncation(dataset: Any, systems: list[str]) -> None:
    """For each packaged local model the systems use, how many of the dataset's chunks are
    longer than its input window (and so truncated when embedded), on stderr
    (:func:`memlab.embed.window.window_report`)."""
    from memlab.embed.window import window_report
    from memlab.eval.systems import dataset_corpus, resolve_system

    seen: set[str] = set()
    for spec in systems:
        _, cfg = resolve_system(spec)
        ms = cfg.memory_search
        if ms.resolved_provider() != "local":
            continue
        model = (ms.local.model_path if ms.local is not None else None) or "minilm"
        if model in seen:
            continue
        seen.add(model)
        try:
            report = window_report(dataset_corpus(dataset, cfg).chunks["text"].tolist(), model)
        except (KeyError, ImportError):  # not a packaged model: its window is unknown
            continue
        if report.window is not None:
            print(f"memlab: {report.model} reads {report.window} tokens: {report.over} of "
                  f"{report.chunks} chunks are longer and embedded truncated (longest "
                  f"{report.max_tokens} tokens)", file=sys.stderr)


def _profile_tiered(args: argparse.Namespace) -> int:
    """``--profile 2026.9``: the systems on the 2026.9 profile (memlab.eval.upgrade)."""
    from memlab.eval.datasets import load_dataset
    from memlab.eval.upgrade import evaluate_tiered

    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    projects = [p.strip() for p in (args.projects or "").split(",") if p.strip()] or None
    result = evaluate_tiered(load_dataset(args.dataset), args.config or ["keyword", "hybrid"],
                             metrics, depth=args.depth, production=args.production,
                             by_tag=args.by_tag, n_resamples=args.resamples,
                             active_projects=projects)
    text = (json.dumps(result.to_dict(), ensure_ascii=False, indent=2, default=str)
            if args.json else result.to_markdown(by_tag=args.by_tag))
    print(text)
    if args.out:
        from pathlib import Path

        Path(args.out).write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


def _upgrade(args: argparse.Namespace) -> int:
    """``--profile 2026.7 --profile 2026.9``: the upgrade report (memlab.eval.upgrade)."""
    from memlab.eval.datasets import load_dataset
    from memlab.eval.upgrade import upgrade_report
    from memlab.tune.sweep import sweep  # the upgrade report's tuning of the retired knobs

    if sorted(set(args.profile)) != sorted(_profiles()) or len(args.config or []) > 1:
        print("memlab: error: --profile gives the upgrade report: pass --profile 2026.7 "
              "--profile 2026.9 and at most one --config (the 2026.7 configuration; default "
              "hybrid)", file=sys.stderr)
        return 2
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    report = upgrade_report(load_dataset(args.dataset), (args.config or ["hybrid"])[0],
                            metrics=metrics, depth=args.depth,
                            tune=None if args.no_tune else sweep,
                            n_resamples=args.resamples, production=args.production)
    text = report.to_markdown()
    print(text)
    if args.out:
        from pathlib import Path

        Path(args.out).write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


def _warn_deeper_than_depth(metrics: list[str], depth: int, production: bool) -> None:
    """A metric cut deeper than the ranking (MAP@100 at depth 10) scores the top ``depth``
    only; say so on stderr instead of passing silently."""
    from memlab.eval.metrics import parse_metric

    if production:
        return
    deep = [m for m in metrics if parse_metric(m)[1] > depth]
    if deep:
        print(f"memlab: warning: {', '.join(deep)} look deeper than --depth {depth}: only "
              f"the top {depth} hits are ranked, so they are computed on {depth} (raise "
              "--depth)", file=sys.stderr)


def add_eval_parser(sub: Any) -> None:
    """Add ``memlab eval`` to the CLI's subparsers."""
    e = sub.add_parser("eval", help="compare systems on a labeled dataset (memory or BEIR)")
    e.add_argument("dataset", help="a memory dataset folder (workspace/, queries.jsonl, "
                   "qrels.jsonl) or a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)")
    e.add_argument("--config", action="append", metavar="FILE_OR_NAME",
                   help="a system: an OpenClaw config file or a built-in name (keyword, vector, "
                   "hybrid, hybrid+decay, hybrid+mmr, hybrid+decay+mmr, hybrid+rrf); repeat "
                   "for several; the first is the baseline (default: keyword, vector, hybrid)")
    e.add_argument("--model", action="append", metavar="SPEC",
                   help="run every --config (default hybrid) with this embedding model: "
                   "local[:ALIAS_OR_PATH], openai-compatible:URL#MODEL or PROVIDER[:MODEL]; "
                   "repeat for several (adds a table of the models: work, time, cost)")
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
    e.add_argument("--out", metavar="FILE", help="also write what is printed to FILE")
    e.add_argument("--against", default="baseline", metavar="baseline|best|all|NAME",
                   help="paired tests against the first system (default), the best one per "
                   "metric, a named system, or all pairs (printed after the table)")
    e.add_argument("--correction", default="holm",
                   choices=["holm", "bonferroni", "holm-sidak", "sidak", "fdr_bh", "fdr_by",
                            "none"],
                   help="multiple-comparison correction of --against tests (default holm)")
    e.add_argument("--json", action="store_true", help="per-system and per-tag metrics as JSON")
    e.add_argument("--profile", action="append", choices=_profiles(),
                   help="--profile 2026.9: rank with OpenClaw 2026.9.6 (2026.7 configs as "
                   "they become on upgrade); --profile 2026.7 --profile 2026.9: the upgrade "
                   "report (per-tag deltas with tests, queries whose top-1 changes, what the "
                   "retired knobs cost) of the --config (default hybrid) on the dataset's "
                   "labels")
    e.add_argument("--projects", metavar="KEY,KEY", help="with --profile 2026.9: the "
                   "session's active project keys (x1.15 on their entries, x0.9 on others)")
    e.add_argument("--no-tune", action="store_true", help="with --profile: skip the sweep "
                   "of the retired 2026.7 knobs")
    from memlab.eval.collection_cli import add_collection_options
    add_collection_options(e)
    e.set_defaults(func=_eval)
