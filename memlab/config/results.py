"""Sweep results (Parquet/CSV, one row per configuration) turned into config overrides.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from memlab.config.keypaths import canonical_key_path

_METRIC = re.compile(r"^(ndcg|recall_any|recall_all|recall|mrr|map|p|precision|success|hit|hits)"
                     r"(@\d+)?$", re.I)
_META = {"dataset", "rank", "config_id", "config", "trial", "fold", "seconds", "time",
         "duration", "n_queries", "queries", "params", "system"}
_OOS_PATTERNS = ("{m}_oos", "oos_{m}", "{m} (oos)", "{m}_cv", "cv_{m}", "{m}_test", "test_{m}",
                 "{m}_out_of_sample", "out_of_sample_{m}")


def _native(value: Any) -> Any:
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        try:
            value = value.item()
        except (ValueError, AttributeError):
            pass
    return value


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def read_results(path: str | Path) -> Any:
    """A sweep results file (Parquet, CSV or TSV) as a DataFrame."""
    import pandas as pd

    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"results file not found: {path}")
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return pd.read_parquet(path)
    if suffix in (".csv", ".tsv"):
        return pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",")
    raise ValueError(f"{path}: not a results file (.parquet, .csv or .tsv)")


def overrides_from_results(frame: Any, *, rank: int = 1, metric: str | None = None,
                           dataset: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(overrides, header)`` for the ``rank``-th best row of a sweep results DataFrame.

    Axis columns are those named by config key paths (:func:`canonical_key_path`); rows are
    ordered by ``metric`` (default: the first metric column such as ``ndcg@10``), best first.
    Missing values (an axis that does not apply to a row, e.g. ``rrfK`` with weighted fusion)
    are left unset. A ``dataset`` column is checked against ``dataset`` when given.
    """
    columns = [str(c) for c in frame.columns]
    if not len(frame):
        raise ValueError("the results file has no rows")
    if dataset is not None and ("/" in dataset or "\\" in dataset):
        dataset = Path(dataset.rstrip("/\\")).name  # a dataset folder: its name, as sweeps write
    if "dataset" in columns:
        names = sorted({str(v) for v in frame["dataset"].dropna().unique()})
        if dataset is not None and dataset not in names:
            raise ValueError(f"the results are for dataset {', '.join(names) or '?'}, not "
                             f"{dataset!r}: export a results file of {dataset!r}, or drop "
                             "--dataset")
        if dataset is not None:
            frame = frame[frame["dataset"].astype(str) == dataset]
        elif len(names) > 1:
            raise ValueError(f"the results hold several datasets ({', '.join(names)}); pick "
                             "one with --dataset")
    axes = {c: canonical_key_path(c) for c in columns}
    axes = {c: p for c, p in axes.items() if p is not None}
    if not axes:
        raise ValueError("the results have no axis columns named by config key paths (e.g. "
                         f"query.hybrid.vectorWeight); columns: {', '.join(columns)}")
    numeric = [c for c in columns if c not in axes and c.lower() not in _META
               and str(frame[c].dtype).startswith(("float", "int"))]
    metrics = [c for c in numeric if _METRIC.match(c.split("[")[0])] or numeric
    if metric is None:
        if not metrics:
            raise ValueError("the results have no metric column (e.g. ndcg@10); columns: "
                             f"{', '.join(columns)}")
        metric = metrics[0]
    elif metric not in columns:
        raise ValueError(f"no metric column {metric!r}; metric columns: "
                         f"{', '.join(metrics) or 'none'}")
    n = len(frame)
    if not 1 <= rank <= n:
        raise ValueError(f"rank {rank} is out of range: the results have {n} row(s)")
    ordered = frame.sort_values(metric, ascending=False, kind="mergesort", na_position="last")
    row = ordered.iloc[rank - 1]
    overrides = {}
    for column, path in axes.items():
        value = _native(row[column])
        if _is_missing(value):
            continue
        overrides[path] = _coerce(path, value)
    header: dict[str, Any] = {}
    if "dataset" in columns and not _is_missing(row["dataset"]):
        header["dataset"] = str(row["dataset"])
    elif dataset is not None:
        header["dataset"] = dataset
    header["metric"] = metric
    header["score"] = _native(row[metric])
    for pattern in _OOS_PATTERNS:
        col = pattern.format(m=metric)
        if col in columns and col != metric and not _is_missing(_native(row[col])):
            header["out_of_sample"] = _native(row[col])
            break
    header["rank"] = f"{rank} of {n}"
    return overrides, header


def _coerce(path: str, value: Any) -> Any:
    """CSV cells: "true"/"false" for booleans, integral floats for integer keys."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value
