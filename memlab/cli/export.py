"""The ``memlab export`` command: a sweep/eval results row or a config file written as an
OpenClaw config.

    memlab export RESULTS_OR_CONFIG --out FILE [--schema 2026.7|2026.8|2026.9] [--rank N]
                  [--best-expressible] [--allow-lossy] [--metric M] [--dataset NAME]
                  [--serve-host H] [--serve-port P] [--base OPENCLAW_CONFIG] [--full]

What it writes (:func:`memlab.config.export_config`): always the provider and model; a config
measured with memlab's ``local`` provider as an ``openai-compatible`` provider pointing at
``memlab serve-embeddings --model X`` (the command is in the file's header and printed).

Results files: a sweep's (axis columns named by config key paths) or ``memlab eval --format
csv``'s (a ``system`` column naming built-in systems or config files). Evaluation-only
cut-offs are never written: a ``query.maxResults`` / ``query.minScore`` column that holds one
value over the whole results was a setting of the evaluation, not tuned, and is left out
(:func:`tuned_overrides`); an eval's ``--depth`` / ``minScore`` 0 are not part of a system's
config at all. ``--best-expressible`` exports the best row the target schema can express
(:func:`best_expressible`); ``--allow-lossy`` drops what it cannot and lists each dropped knob
with its measured effect from the results file (or "not measured").

Importance axes of a 2026.9 sweep (``importance.FILE:LINE`` columns,
:mod:`memlab.tune.sweep_tiered`) are file content, not config: when the exported row sets
one, the export is refused with each entry, its importance, its measured effect (the row vs
the same point with the file as written, :func:`memlab.config.memory_export
.importance_choices`) and the line to write into the file (the exact line when ``--dataset``
is the dataset folder, else the comment to append); ``--allow-lossy`` writes the config
without them and lists them in the header. ``--best-expressible`` skips such rows.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
import warnings
from pathlib import Path
from typing import Any

from memlab.config.errors import ConfigError, ConfigIssue, ExportError, ExportWarning
from memlab.config.export import (
    PIPELINE_FIXED,
    SERVE_HOST,
    SERVE_PORT,
    ExportedConfig,
    export_config,
)
from memlab.config.keypaths import canonical_key_path
from memlab.config.memory_export import (
    MEMORY_SEARCH_FIXED,
    ImportanceChoice,
    importance_choices,
    is_importance_axis,
    measured_effects,
)
from memlab.config.memory_keys import DEFAULT_SCHEMA, STRICT_SCHEMA
from memlab.config.openclaw_import import import_config
from memlab.config.results import overrides_from_results, read_results
from memlab.lines import export_schemas

__all__ = ["add_export_parser", "best_expressible", "run_export", "tuned_overrides"]

#: Cut-offs an evaluation sets for scoring (depth, ``minScore`` 0), written only when tuned.
CUTOFFS = ("query.maxResults", "query.minScore")
#: Results columns naming the embeddings (a row without them ran on the sweep's default base).
_PROVIDER_COLUMNS = ("provider", "model", "local.modelPath")


def add_export_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``memlab export`` on an ``argparse`` sub-parser collection."""
    p = subparsers.add_parser(
        "export", help="write a tuned configuration (a sweep/eval results row or a config "
        "file) as an OpenClaw config file")
    p.add_argument("source", metavar="RESULTS_OR_CONFIG",
                   help="sweep or eval results (.parquet/.csv/.tsv, one row per "
                   "configuration) or an OpenClaw/memlab config file")
    p.add_argument("--rank", type=int, default=1, help="which row of the results, best first "
                   "(default 1)")
    p.add_argument("--best-expressible", action="store_true",
                   help="export the best row of the results that the --schema can express "
                   "(nothing dropped); the header names the best row overall and the gap")
    p.add_argument("--metric", help="rank by this metric column (default: the first one)")
    p.add_argument("--dataset", help="the dataset the results must be for (checked against a "
                   "`dataset` column); a memory dataset folder also lets a refused importance "
                   "axis print the exact line to write")
    p.add_argument("--schema", choices=export_schemas(), default=DEFAULT_SCHEMA,
                   help="2026.7: agents.defaults.memorySearch; 2026.8: memory.search (2026.8 "
                   "and later; fixed constants are reported); 2026.9: only keys 2026.9.6 "
                   "accepts, a tuned value it cannot express is refused with its measured "
                   "effect")
    p.add_argument("--out", required=True, help="output file ('-' for standard output)")
    p.add_argument("--allow-lossy", action="store_true", help="drop what the schema cannot "
                   "express (RRF fusion, BM25 keyword leg, retired 2026.9 knobs, ...) instead "
                   "of refusing; each dropped knob is listed with its measured effect")
    p.add_argument("--serve-host", default=SERVE_HOST, help="for a local model: the host "
                   f"`memlab serve-embeddings` listens on (default {SERVE_HOST})")
    p.add_argument("--serve-port", type=int, default=SERVE_PORT, help="for a local model: its "
                   f"port (default {SERVE_PORT})")
    p.add_argument("--base", metavar="OPENCLAW_CONFIG", help="an existing OpenClaw config: "
                   "the tuned values are merged into it, its other keys are kept (comments "
                   "are not); for results, also the configuration the sweep started from")
    p.add_argument("--full", action="store_true", help="write every memory search key with its "
                   "effective value, not only the configured ones")
    p.add_argument("--agent", help="with a config file: the agent whose settings to export")
    p.set_defaults(func=run_export)
    return p


def tuned_overrides(frame: Any, overrides: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``(overrides, left out)``: a results row's overrides without the evaluation-only
    cut-offs, i.e. a ``query.maxResults`` / ``query.minScore`` column holding a single value
    over all rows (the evaluation's setting, not a tuned axis).

    >>> import pandas as pd
    >>> rows = pd.DataFrame({"query.minScore": [0.0, 0.0], "query.maxResults": [6, 10]})
    >>> tuned_overrides(rows, {"query.minScore": 0.0, "query.maxResults": 6})
    ({'query.maxResults': 6}, ['query.minScore = 0.0'])
    """
    columns = {canonical_key_path(str(c)): c for c in frame.columns}
    kept, left = dict(overrides), []
    for key in CUTOFFS:
        column = columns.get(key)
        if key in kept and column is not None and frame[column].nunique(dropna=False) <= 1:
            left.append(f"{key} = {kept.pop(key)}")
    return kept, left


def _eval_rows(frame: Any, src: Path, metric: str | None, rank: int) -> tuple[Any, dict]:
    """A ``memlab eval`` results row (``system`` column): its config and header."""
    from memlab.eval.systems import NAMED_SYSTEMS, resolve_system

    metrics = [c for c in frame.columns if "@" in str(c) and not str(c).endswith(
        ("delta", "_raw")) and str(frame[c].dtype).startswith("float")]
    metric = metric or (metrics[0] if metrics else None)
    if metric is None or metric not in frame.columns:
        raise ValueError(f"no metric column {metric!r} in {src}; columns: "
                         f"{', '.join(map(str, frame.columns))}")
    ordered = frame.sort_values(metric, ascending=False, kind="mergesort")
    if not 1 <= rank <= len(ordered):
        raise ValueError(f"rank {rank} is out of range: the results have {len(ordered)} row(s)")
    row = ordered.iloc[rank - 1]
    name = str(row["system"])
    candidates = [name, *(str(src.parent / f"{name}{ext}") for ext in (".json5", ".json", ""))]
    for spec in candidates:
        if spec in NAMED_SYSTEMS or Path(spec).is_file():
            _, cfg = resolve_system(spec)
            return cfg, {"system": spec, "metric": metric, "score": float(row[metric]),
                         "rank": f"{rank} of {len(ordered)}"}
    raise ValueError(f"system {name!r} of {src} is neither a built-in system "
                     f"({', '.join(NAMED_SYSTEMS)}) nor a config file next to the results")


def _row(frame: Any, args: argparse.Namespace, rank: int) -> tuple[Any, dict[str, Any], list]:
    """``(config or overrides, header, cut-offs left out)`` of the results row ``rank``."""
    ranked = frame
    if not any(canonical_key_path(str(c)) for c in frame.columns) and any(
            is_importance_axis(c) for c in frame.columns):
        # only importance axes (no config key varied): an all-unset config axis lets the
        # results reader rank the rows and build the header; the overrides stay empty
        ranked = frame.assign(**{"query.minScore": float("nan")})
    overrides, header = overrides_from_results(ranked, rank=rank, metric=args.metric,
                                               dataset=args.dataset)
    overrides, left = tuned_overrides(frame, overrides)
    return overrides, header, left


def _workspace(args: argparse.Namespace) -> Path | None:
    """The workspace ``--dataset`` names, when it is a folder (a dataset or a workspace)."""
    if not args.dataset or not Path(args.dataset).is_dir():
        return None
    root = Path(args.dataset)
    return root / "workspace" if (root / "workspace").is_dir() else root


def _importance_at(frame: Any, args: argparse.Namespace, header: dict[str, Any], rank: int
                   ) -> tuple[list[ImportanceChoice], float | None]:
    """The importance axes the results row ``rank`` sets (as :func:`_row` ranks the rows),
    with their measured effects, and the effect of all of them together."""
    if not any(is_importance_axis(c) for c in frame.columns):
        return [], None
    scope = frame
    if "dataset" in frame.columns and header.get("dataset") is not None:
        scope = frame[frame["dataset"].astype(str) == str(header["dataset"])]
    ordered = scope.sort_values(header["metric"], ascending=False, kind="mergesort",
                                na_position="last")
    return importance_choices(scope, ordered.index[rank - 1], header["metric"])


def _importance_lines(choices: list[ImportanceChoice], args: argparse.Namespace
                      ) -> list[tuple[ImportanceChoice, str | None, str | None]]:
    """Each choice with the exact annotated line (when the workspace is at hand) or why not."""
    from memlab.tune.importance import annotated_line, check_entry

    workspace = _workspace(args)
    out = []
    for choice in choices:
        if workspace is None:
            out.append((choice, None, None))
            continue
        try:
            _, _, text = check_entry(workspace, choice.key)
        except ValueError as exc:
            out.append((choice, None, f"{exc} (has the file changed since the sweep?)"))
            continue
        out.append((choice, annotated_line(text, choice.value), None))
    return out


def _importance_issues(choices: list[ImportanceChoice], joint: float | None,
                       args: argparse.Namespace, metric: str) -> list[ConfigIssue]:
    """The refusal of ``choices`` (one issue each, the joint effect, what to do)."""
    issues = []
    if args.schema != STRICT_SCHEMA:
        issues.append(ConfigIssue("", f"OpenClaw {args.schema} has no importance annotations "
                                      "(2026.9 reads them): export with --schema 2026.9"))
    for choice, line, problem in _importance_lines(choices, args):
        issues.append(ConfigIssue(choice.key, choice.describe(metric, line)
                                  + (f" [{problem}]" if problem else "")))
    if len(choices) > 1:
        together = ("not measured (no row of the same point with the files as written)"
                    if joint is None else f"measured effect {joint:+.4f} {metric} (this row vs "
                    "the same point with the files as written)")
        issues.append(ConfigIssue("", f"the {len(choices)} annotations together: {together}"))
    issues.append(ConfigIssue("", "a config cannot carry an importance: write the annotations "
                                  "into the workspace files; pass --allow-lossy to write the "
                                  "config without them"))
    return issues


def best_expressible(frame: Any, args: argparse.Namespace, schema: str, **kw: Any
                     ) -> tuple[ExportedConfig, dict[str, Any], int]:
    """``(text, header, rank)`` of the best results row that ``schema`` expresses without
    dropping or warning about anything; ``ValueError`` naming the best row's losses when no
    row can be expressed."""
    first_error: str | None = None
    best_score = None
    for rank in range(1, len(frame) + 1):
        config, header, _ = _row(frame, args, rank)
        best_score = header["score"] if best_score is None else best_score
        choices, joint = _importance_at(frame, args, header, rank)
        if choices:  # file content, not config: never expressible
            first_error = first_error or str(ExportError(_importance_issues(
                choices, joint, args, header["metric"])))
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", ExportWarning)
                text = export_config(config, schema, **kw)
        except (ExportError, ExportWarning) as exc:
            first_error = first_error or str(exc)
            continue
        return text, header, rank
    raise ValueError(f"no row of the results can be expressed in OpenClaw {schema}; the best "
                     f"row's problems:\n{first_error}")


def run_export(args: argparse.Namespace) -> int:
    src = Path(args.source).expanduser()
    header: dict[str, Any] = {}
    effects: dict[str, float] = {}
    notes: list[str] = []
    kw: dict[str, Any] = {"allow_lossy": args.allow_lossy, "full": args.full, "base": args.base,
                          "serve_host": args.serve_host, "serve_port": args.serve_port}
    config: Any
    importance: tuple[list[ImportanceChoice], float | None] = ([], None)
    if src.suffix.lower() in (".parquet", ".pq", ".csv", ".tsv"):
        frame = read_results(src)
        if "system" in frame.columns and not any(
                canonical_key_path(str(c)) for c in frame.columns):
            config, header = _eval_rows(frame, src, args.metric, args.rank)
            header = {"source": str(src), **header}
        else:
            if args.dataset and "dataset" in frame.columns:  # the dataset's rows only
                name = Path(args.dataset.rstrip("/\\")).name
                if name in set(frame["dataset"].astype(str)):
                    frame = frame[frame["dataset"].astype(str) == name]
            if not any(canonical_key_path(str(c)) in _PROVIDER_COLUMNS for c in frame.columns):
                notes.append("the results name no provider/model: "
                             + ("taken from --base" if args.base else
                                "the sweep's default (memlab's local provider, minilm); pass "
                                "--base CONFIG if the sweep ran on another base"))
            if args.best_expressible:
                head_row = _row(frame, args, 1)[1]
                with warnings.catch_warnings(record=True):
                    text, header, rank = best_expressible(frame, args, args.schema,
                                                          **{**kw, "allow_lossy": False})
                config, header, left = _row(frame, args, rank)
                header["best_row_overall"] = (f"rank 1, {head_row['metric']} "
                                              f"{head_row['score']:.4f}")
                header["cost_of_expressing"] = (f"{header['score'] - head_row['score']:+.4f} "
                                                f"{header['metric']}")
            else:
                config, header, left = _row(frame, args, args.rank)
                importance = _importance_at(frame, args, header, args.rank)
            if left:
                header["not_written"] = ("evaluation-only cut-offs (one value over all rows, "
                                         "not tuned): " + ", ".join(left))
            fixed = MEMORY_SEARCH_FIXED if args.schema == STRICT_SCHEMA else PIPELINE_FIXED
            scope = frame
            if "dataset" in frame.columns and header.get("dataset") is not None:
                scope = frame[frame["dataset"].astype(str) == header["dataset"]]
            effects = measured_effects(scope, header["metric"], header["score"], fixed)
            header = {"source": str(src), **header}
    else:
        if not src.is_file():
            raise FileNotFoundError(f"results or config file not found: {src}")
        if args.best_expressible:
            raise ConfigError("--best-expressible picks a row of a results file; "
                              f"{src} is a config file")
        config = import_config(src, agent_id=args.agent)  # replaces --base's search block
        header = {"source": str(src)}
        if args.dataset:
            header["dataset"] = args.dataset
    header["date"] = _dt.date.today().isoformat()
    choices, joint = importance
    refused = (_importance_issues(choices, joint, args, header["metric"]) if choices
               else [])
    if choices and args.allow_lossy:  # listed in the header, not written as keys
        for choice, line, problem in _importance_lines(choices, args):
            header[f"not written, add to {choice.path} line {choice.line}"] = (
                line or f"<!-- importance: {choice.value} --> at the end of the line") + (
                f" (importance {choice.value}; {choice.effect_text(header['metric'])})")
            print(f"warning: not written: {choice.describe(header['metric'], line)}"
                  + (f" [{problem}]" if problem else ""), file=sys.stderr)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ExportWarning)
        try:
            text = export_config(config, args.schema, header=header, effects=effects or None,
                                 **kw)
        except ExportError as exc:
            if refused:  # one refusal: the importance axes and the config's losses
                raise ExportError(refused[:-1] + exc.issues) from None
            raise
    if refused and not args.allow_lossy:
        raise ExportError(refused)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    for d in text.dropped:
        print(f"warning: dropped: {d}", file=sys.stderr)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        out = Path(args.out).expanduser()
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out} (OpenClaw {args.schema} schema)")
    if text.serve_command:
        print(f"serve its embeddings with: {text.serve_command}", file=sys.stderr)
    return 0
