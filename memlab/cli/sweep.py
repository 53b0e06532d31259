"""``memlab sweep``: evaluate a grid of configurations, optionally tuned with cross-validation.

    memlab sweep DATASET --grid GRID_FILE|KEY=V1,V2 [--grid ...] [--base CONFIG]
                 [--model SPEC ...] [--cv K]
                 [--optuna N_TRIALS] [--price SPEC=USD]
                 [--backend local|dask[:ADDRESS]] [--n-jobs N] [--metric ndcg@10]
                 [--metrics LIST] [--by-tag] [--top N] [--seed S] [--out results.parquet|.csv]
                 [--unknown-ids error|drop|keep]

DATASET is a memory dataset folder or a BEIR folder (e.g. ``../shared/datasets/cacm``; its
qrels name some documents by unpadded ids, so it needs ``--unknown-ids keep`` or ``drop``).
The backend runs both the corpus embedding (shards of the texts missing from the embedding
cache) and the grid evaluation. The results table carries a ``dataset`` column, which
``memlab export --dataset`` checks.

The grid file is JSON5 (or YAML, when PyYAML is installed and the file ends in ``.yaml`` /
``.yml``) mapping config key paths to value lists; an optional ``"base"`` entry names a base
config file (relative to the grid file; ``--base`` wins)::

    {"query.hybrid.vectorWeight": [0, 0.1, 0.2], "query.hybrid.mmr.enabled": [false, true]}

``--grid`` is repeatable, and an item may be one axis inline instead of a file:
``--grid chunking.tokens=200,400 --grid chunking.overlap=0,80`` (values read as JSON5, else as
plain strings), alone or next to a grid file.

The embedding model is an axis like any other: ``"embedding": ["local:minilm",
"local:e5-small-multilingual", "openai:text-embedding-3-small"]`` in the grid, or ``--model
SPEC`` (repeatable; provider specs as in :mod:`memlab.tune.models`). Each model's vector leg is
computed once, through the embedding cache; with more than one model the output adds a table
of the models side by side (best and first-row quality, texts embedded vs cached, seconds,
per-query latency of the vector leg, tokens and indexing cost at ``--price`` /
:data:`memlab.cli.bench.DEFAULT_PRICES`).

The chunking is an axis too (OpenClaw 2026.7's ``chunking.tokens`` / ``chunking.overlap``;
:mod:`memlab.tune.chunkings`): ``{"chunking.tokens": [200, 400, "model-window"],
"chunking.overlap": [0, 80]}``. Each distinct chunking re-chunks and embeds the corpus once
(texts already in the embedding cache are not embedded again); ``"model-window"`` is the
model's input window as a number (256 for MiniLM), which exports as is. With a chunking axis
the output adds a table per chunking: quality, chunks, and the share of chunks longer than
the model's window (truncated when embedded).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where used: building the CLI parser must not load pandas
    import pandas as pd

__all__ = ["add_sweep_parser", "inline_axis", "load_grid", "load_grids", "sweep_command"]


def load_grid(path: str | Path) -> tuple[dict[str, Any], str | None]:
    """The grid mapping and its optional base config path (resolved against the file)."""
    from memlab.tune.sweep import SweepError

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"grid file not found: {p}")
    text = p.read_text(encoding="utf-8")
    if p.suffix.lower() in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError as exc:
            raise SweepError(f"{p}: YAML grid files need PyYAML (pip install pyyaml); or "
                             "write the grid as JSON5") from exc
        data = yaml.safe_load(text)
    else:
        import json5

        try:
            data = json5.loads(text)
        except ValueError as exc:
            raise SweepError(f"{p}: not valid JSON5: {exc}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SweepError(f"{p}: a grid file maps config key paths to lists of values, got "
                         f"{type(data).__name__}")
    base = data.pop("base", None)
    if base is not None:
        base = str((p.parent / str(base)) if not Path(str(base)).is_absolute() else base)
    return data, base


def inline_axis(text: str) -> tuple[str, list[Any]]:
    """``KEY=V1,V2,...`` (or ``KEY=[V1, V2]``, JSON5) as an axis and its values; each value is
    read as JSON5 (``0.5``, ``true``, ``"x"``), else kept as a plain string (``model-window``).

    >>> inline_axis("chunking.tokens=200,400,model-window")
    ('chunking.tokens', [200, 400, 'model-window'])
    >>> inline_axis("query.hybrid.mmr.enabled=[false, true]")
    ('query.hybrid.mmr.enabled', [False, True])
    """
    import json5

    from memlab.tune.sweep import SweepError

    key, sep, raw = str(text).partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key or not raw:
        raise SweepError(f"--grid {text!r}: give a grid file or KEY=V1,V2,... (e.g. "
                         "--grid chunking.tokens=200,400)")
    if raw.startswith("["):
        try:
            values = json5.loads(raw)
        except ValueError as exc:
            raise SweepError(f"--grid {key}: {raw!r} is not a valid JSON5 list ({exc})") from None
        return key, list(values)

    def one(item: str) -> Any:
        try:
            return json5.loads(item)
        except ValueError:
            return item

    return key, [one(v.strip()) for v in raw.split(",") if v.strip()]


def load_grids(items: list[str], profile: str | None = None
               ) -> tuple[dict[str, Any], str | None]:
    """The grid of ``--grid`` items: grid files (:func:`load_grid`) and inline
    ``KEY=V1,V2,...`` axes (:func:`inline_axis`), merged; an axis given twice is an error, and
    at most one file may name a base config. Keys are checked against the 2026.7 sweep's axes,
    or with ``profile="2026.9"`` named as the 2026.9 sweep names them
    (:func:`memlab.tune.sweep_tiered.normalize_tiered_axis`: config key paths, checked when the
    sweep validates its points, and ``importance.FILE:LINE`` axes)."""
    from memlab.lines import detect_line
    from memlab.tune.sweep import SweepError, normalize_axis
    from memlab.tune.sweep_tiered import normalize_tiered_axis

    tiered = profile is not None and detect_line(None, profile).engine == "tiered"
    normalize = normalize_tiered_axis if tiered else normalize_axis
    grid: dict[str, Any] = {}
    names: dict[str, str] = {}
    base: str | None = None
    for item in items:
        if "=" in item and not Path(item).is_file():
            parts = dict([inline_axis(item)])
            file_base = None
        else:
            parts, file_base = load_grid(item)
        if file_base is not None:
            if base is not None:
                raise SweepError(f"two grid files name a base config ({base}, {file_base}); "
                                 "keep one, or pass --base")
            base = file_base
        for key, values in parts.items():
            name = normalize(key)
            if name in names:
                raise SweepError(f"axis {name!r} is given twice (--grid {names[name]!r} and "
                                 f"--grid {item!r})")
            names[name] = item
            grid[key] = values
    return grid, base


def add_sweep_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``memlab sweep`` to an ``argparse`` sub-parser set."""
    p = subparsers.add_parser(
        "sweep", help="evaluate a grid of configurations from cached legs (optionally "
        "cross-validated, or tuned with Optuna)")
    p.add_argument("dataset", help="a memory dataset folder (workspace/, queries.jsonl, "
                   "qrels.jsonl) or a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)")
    p.add_argument("--grid", required=True, action="append", metavar="GRID_FILE|KEY=V1,V2",
                   help="JSON5 (or YAML) file mapping config key paths to lists of values, or "
                   "one axis inline (e.g. chunking.tokens=200,400); repeat to combine")
    p.add_argument("--base", metavar="CONFIG", help="base OpenClaw config (JSON5) the grid "
                   "overrides (default: the grid file's 'base', else OpenClaw's defaults with "
                   "the local model)")
    p.add_argument("--model", action="append", metavar="SPEC", help="an embedding model axis "
                   "value: local[:ALIAS_OR_PATH], openai-compatible:URL#MODEL, "
                   "PROVIDER[:MODEL] or none; repeat for several (same as an 'embedding' "
                   "grid axis)")
    p.add_argument("--price", action="append", default=[], metavar="KEY=USD",
                   help="USD per 1M tokens for PROVIDER or PROVIDER:MODEL in the model table")
    p.add_argument("--cv", type=int, metavar="K", help="K-fold cross-validation over queries: "
                   "report the chosen config's out-of-sample score and the gap")
    p.add_argument("--optuna", type=int, metavar="N_TRIALS", help="tune with Optuna TPE "
                   "(N_TRIALS per fold) over the grid's ranges instead of the full grid")
    p.add_argument("--backend", default="local", help="where corpus embedding and the grid "
                   "run: 'local' (joblib), 'dask' (a local cluster) or 'dask:ADDRESS'")
    p.add_argument("--n-jobs", type=int, default=1, help="joblib workers for 'local'")
    p.add_argument("--metric", default="ndcg@10", help="metric to rank and tune by")
    p.add_argument("--metrics", default="ndcg@10,recall@10,mrr@10",
                   help="comma-separated metrics to report (the --metric is always included)")
    p.add_argument("--by-tag", action="store_true", help="add per-tag metric columns")
    p.add_argument("--top", type=int, default=10, help="configurations to print (default 10)")
    p.add_argument("--seed", type=int, default=0, help="seed of the folds and of TPE")
    p.add_argument("--out", metavar="FILE", help="write the results table (.parquet or .csv)")
    p.add_argument("--unknown-ids", choices=["error", "drop", "keep"],
                   help="BEIR qrels naming unknown documents: fail (default), drop or keep them")
    from memlab.cli.line import add_profile_argument

    add_profile_argument(p)  # 2026.9: memlab.tune.sweep_tiered (grid or --optuna)
    p.set_defaults(func=sweep_command)
    return p


def _write(table: pd.DataFrame, out: str, dataset: str = "") -> None:
    path = Path(out)
    frame = table.copy()
    if "dataset" not in frame.columns:
        frame["dataset"] = dataset
    for col in frame.columns:  # mixed-type axis columns (e.g. null/str) -> strings
        if frame[col].dtype == object:
            frame[col] = frame[col].map(lambda v: v if isinstance(v, str) or v is None
                                        else repr(v))
    if path.suffix.lower() == ".parquet":
        frame.to_parquet(path, index=False)
    elif path.suffix.lower() == ".csv":
        frame.to_csv(path, index=False)
    else:
        raise ValueError(f"--out {out}: use a .parquet or .csv file name")
    print(f"wrote {len(frame)} rows to {path}", file=sys.stderr)


def _significance(per_query: Any, top: list[int], metric: str, *, seed: int = 0) -> str:
    """CIs and paired tests of the shown rows (``top``: their positions in the grid) against
    the best one and against the grid's first configuration (the baseline), Holm-corrected
    within each table (:func:`memlab.eval.pairwise.paired_against`)."""
    from memlab.eval.pairwise import format_pairwise, paired_against

    rows = list(dict.fromkeys([*top, 0]))
    names = [f"#{i}" for i in rows]
    values = per_query[:, rows]
    parts = [f"\n{metric} of the rows shown (#N = grid position; #0 = the grid's first "
             "configuration, the baseline), paired over the judged queries:"]
    for against, label in (("best", "against the best row"), ("#0", "against the baseline")):
        if len(rows) > 1:
            table = paired_against(values, names, against=against, metric=metric, seed=seed)
            parts += [f"\n{label}:\n", format_pairwise(table)]
    return "\n".join(parts)


def _missing(value: Any) -> bool:
    """A trials-table cell for an axis the trial did not set (NaN/None)."""
    return value is None or (isinstance(value, float) and value != value)


def _prices(items: list[str]) -> dict[str, float]:
    """``--price KEY=USD`` items over :data:`memlab.cli.bench.DEFAULT_PRICES`."""
    from memlab.cli.bench import DEFAULT_PRICES

    prices = dict(DEFAULT_PRICES)
    for item in items:
        key, sep, value = item.rpartition("=")
        try:
            prices[key.strip()] = float(value)
        except ValueError:
            key = ""
        if not sep or not key.strip():
            raise ValueError(f"--price {item!r}: use PROVIDER[:MODEL]=USD_PER_1M_TOKENS")
    return prices


def _print_models(args: argparse.Namespace, engine: Any, table: pd.DataFrame,
                  configs: list[Any], metric: str) -> None:
    """The models of the grid side by side, when there are several."""
    from memlab.tune.models import model_label, model_report

    if len({model_label(c) for c in configs}) < 2:
        return
    report = model_report(engine, table, configs, metric,
                          prices=_prices(getattr(args, "price", []) or []))
    print("\nembedding models side by side (quality of each model's best row and of its "
          "first row; embedding work of this run; query_ms: the vector leg per query; "
          "index_usd: embedding the corpus at usd_per_1m):")
    print(report.to_string(index=False))


def _print_chunkings(engine: Any, grid: dict[str, Any], table: pd.DataFrame,
                     configs: list[Any], metric: str) -> None:
    """Per chunking: quality and the share of chunks the model truncates, when the grid has
    a chunking axis or its configurations chunk in more than one way."""
    from memlab.tune.chunkings import CHUNKING_AXES, chunking_label, chunking_report
    from memlab.tune.sweep import normalize_axis

    axes = {normalize_axis(k) for k in grid}
    if not axes & set(CHUNKING_AXES) and len({chunking_label(c) for c in configs}) < 2:
        return
    report = chunking_report(engine, table, configs, metric)
    print("\nper chunking (tokens / overlap as OpenClaw clamps them; truncated: chunks longer "
          "than the model's window, counted by its tokenizer; NaN: window unknown):")
    print(report.to_string(index=False))


def sweep_command(args: argparse.Namespace) -> int:
    """Run ``memlab sweep`` (see the module doc)."""
    import warnings

    from memlab.cli.line import config_file_line
    from memlab.eval.metrics import parse_metric
    from memlab.lines import detect_line
    from memlab.tune.sweep import SweepEngine

    if args.out and Path(args.out).suffix.lower() not in (".parquet", ".csv"):
        raise ValueError(f"--out {args.out}: use a .parquet or .csv file name")
    metric = args.metric.strip().lower()
    parse_metric(metric)
    metrics = [m.strip().lower() for m in args.metrics.split(",") if m.strip()]
    if metric not in metrics:
        metrics.insert(0, metric)
    base_line = None if getattr(args, "profile", None) else config_file_line(args.base)
    if base_line is not None and base_line.engine == "tiered":
        args.profile = base_line.name  # the base config's own line
    grid, grid_base = load_grids(args.grid if isinstance(args.grid, list) else [args.grid],
                                 getattr(args, "profile", None))
    if getattr(args, "model", None):
        from memlab.tune.models import MODEL_AXIS

        if MODEL_AXIS in grid:
            raise ValueError(f"--model and the grid's {MODEL_AXIS!r} axis both name models: "
                             "use one of them")
        grid = {MODEL_AXIS: list(args.model), **grid}
    base = args.base or grid_base
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from memlab.eval.datasets import load_dataset

        kwargs = {"unknown_ids": args.unknown_ids} if args.unknown_ids and not (
            Path(args.dataset) / "workspace").is_dir() else {}
        dataset = load_dataset(args.dataset, **kwargs)
    if getattr(args, "profile", None) and detect_line(None, args.profile).engine == "tiered":
        from memlab.cli.line import sweep_line_command

        return sweep_line_command(args, dataset, grid, base, metric, metrics)
    with SweepEngine(dataset, base, backend=args.backend, n_jobs=args.n_jobs,
                     progress=not getattr(args, "no_progress", False)) as engine:
        return _sweep(args, engine, dataset, grid, metric, metrics)


def _sweep(args: argparse.Namespace, engine: Any, dataset: Any, grid: dict[str, Any],
           metric: str, metrics: list[str]) -> int:
    import time

    import pandas as pd

    pd.set_option("display.width", 200)
    start = time.perf_counter()
    if args.optuna is not None:
        from memlab.tune.optimize import tune

        result = tune(dataset, grid, metric=metric, n_trials=args.optuna, cv=args.cv or 5,
                      seed=args.seed, engine=engine)
        table = result.trials.sort_values("score", ascending=False, kind="stable")
        print(f"Optuna TPE: {args.optuna} trials per fold, {result.cv}-fold CV "
              f"({time.perf_counter() - start:.1f}s)")
        print(table.head(args.top).to_string(index=False))
        print(result.summary())
        done = table[table["score"].notna()].reset_index(drop=True)
        if len(done):
            from memlab.tune.models import expand_overrides

            keys = [c for c in done.columns if c not in ("trial", "score")]
            points = [{k: row[k] for k in keys if not _missing(row[k])}
                      for row in done.to_dict("records")]
            _print_chunkings(engine, grid, done.rename(columns={"score": metric}),
                             [engine.base.with_overrides(expand_overrides(p)) for p in points],
                             metric)
        if args.out:
            _write(table, args.out, engine.name)
        return 0
    from memlab.tune.sweep import expand_grid

    overrides, configs = expand_grid(grid, engine.base)
    values, _, _ = engine.evaluate_configs(configs, metrics)
    table = engine.table(overrides, configs, values, metrics, by_tag=args.by_tag)
    elapsed = time.perf_counter() - start
    ranked = table.sort_values(metric, ascending=False, kind="stable")
    legs = engine.timings.get("legs", 0.0)
    print(f"{len(table)} configurations on {engine.judged_mask().sum()} judged queries of "
          f"{engine.name or 'the dataset'} in {elapsed:.1f}s (legs {legs:.1f}s, grid "
          f"{elapsed - legs:.1f}s); top {args.top} by {metric}:")
    shown = [c for c in ranked.columns if "[" not in c and c != "dataset"]
    print(ranked[shown].head(args.top).to_string(index=False))
    print(_significance(values[engine.judged_mask(), :, metrics.index(metric)],
                        list(ranked.index[:args.top]), metric, seed=args.seed))
    _print_models(args, engine, table, configs, metric)
    _print_chunkings(engine, grid, table, configs, metric)
    if args.cv:
        from memlab.tune.optimize import tune

        result = tune(dataset, grid, metric=metric, cv=args.cv, seed=args.seed, engine=engine)
        print(result.summary())
    if args.out:
        _write(ranked, args.out, engine.name)
    return 0
