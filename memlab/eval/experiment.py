"""``evaluate`` and ``compare``: from hits and judgments to per-query metrics, means and
significance-tested comparison tables.

>>> from memlab.eval import evaluate, compare  # doctest: +SKIP
>>> per_query, means = evaluate(hits, dataset.qrels, ["ndcg@10", "recall@10"])  # doctest: +SKIP
>>> cmp = compare({"keyword": kw_hits, "hybrid": hy_hits}, dataset.qrels,
...               queries=dataset.queries, by_tag=True)  # doctest: +SKIP
>>> print(cmp.to_markdown())  # doctest: +SKIP

Queries without any relevant judgment are never averaged as 0 or 1: they keep a row in the
per-query table (``judged=False``, their top score) and feed :func:`abstention`, which asks
whether a system's top score tells answerable queries from unanswerable ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from memlab.eval.metrics import metric_value, parse_metric
from memlab.eval.relevance import ideal_gains, span_gains
from memlab.eval.stats import paired_tests

DEFAULT_METRICS = ("ndcg@10", "recall@10", "mrr@10")
LEVELS = ("span", "doc")
TEST_COLUMNS = ("delta", "wins", "losses", "ties", "ci_low", "ci_high",
                "p_t", "p_wilcoxon", "p_rand", "p_t_raw", "p_wilcoxon_raw", "p_rand_raw")


class Evaluation(tuple):
    """What :func:`evaluate` returns: unpacks as ``(per_query, means)``, and also carries
    ``.per_query``, ``.means``, ``.by_tag`` (``None`` unless asked for), ``.unjudged`` and
    ``.level``."""

    per_query: pd.DataFrame
    means: pd.Series
    by_tag: pd.DataFrame | None
    level: str

    def __new__(cls, per_query: pd.DataFrame, means: pd.Series,
                by_tag: pd.DataFrame | None = None, level: str = "span") -> Evaluation:
        self = super().__new__(cls, (per_query, means))
        self.per_query, self.means, self.by_tag, self.level = per_query, means, by_tag, level
        return self

    @property
    def unjudged(self) -> pd.DataFrame:
        """The queries without any relevant judgment (not in the means)."""
        return self.per_query.loc[~self.per_query["judged"]]

    def abstention(self) -> pd.DataFrame:
        """:func:`abstention` of this evaluation's per-query table."""
        return abstention(self.per_query)

    def __repr__(self) -> str:
        judged = int(self.per_query["judged"].sum())
        means = ", ".join(f"{m}={v:.4f}" for m, v in self.means.items())
        return (f"Evaluation(level={self.level!r}, {judged} judged queries, "
                f"{len(self.per_query) - judged} unjudged; {means})")


def _normalise_tags(value: Any) -> list[str]:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return []
    if isinstance(value, str):
        return [value]
    return [str(t) for t in value]


def _gains_and_ideal(hits: pd.DataFrame, qrels: pd.DataFrame, level: str):
    if level == "span":
        gains = (span_gains(hits, qrels) if len(hits)
                 else hits.assign(gain=pd.Series(dtype=np.int64)))
        return gains, ideal_gains(qrels)
    # document level: a document ranks by its best chunk (relevance.doc_gains); imported here
    # so this module does not depend on it being present at import time
    from memlab.eval.relevance import doc_gains, doc_ideal

    gains = doc_gains(hits, qrels) if len(hits) else pd.DataFrame(
        {"qid": pd.Series(dtype=object), "rank": pd.Series(dtype=np.int64),
         "gain": pd.Series(dtype=np.int64)})
    return gains.sort_values(["qid", "rank"], kind="stable"), doc_ideal(qrels)


def evaluate(hits: pd.DataFrame, qrels: pd.DataFrame, metrics: Sequence[str] = DEFAULT_METRICS,
             queries: pd.DataFrame | None = None, *, level: str = "span",
             by_tag: bool = False) -> Evaluation:
    """Score ``hits`` against ``qrels``.

    ``level="span"`` takes line-span qrels (``qid, path, start_line, end_line, grade``) and
    span-level gains; ``level="doc"`` takes document qrels (``qid, doc_id, grade``) and ranks
    each document by its best chunk.

    Returns an :class:`Evaluation`, which unpacks as ``(per_query, means)``:

    - ``per_query``: one row per query (those of ``queries`` if given, else the judged ones
      then any other query with hits) with ``qid``, ``judged``, ``top_score`` (the best hit's
      score, NaN without hits), one column per metric (NaN for unjudged queries; 0 for judged
      queries without hits) and ``tags`` when ``queries`` has them;
    - ``means``: the mean of each metric over the judged queries only.

    ``by_tag=True`` also fills ``.by_tag`` (see :func:`tag_means`); it needs ``queries`` with
    a ``tags`` column (a list of tags per query).
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    metrics = list(metrics)
    for m in metrics:
        parse_metric(m)
    has_tags = queries is not None and "tags" in queries.columns
    if by_tag and not has_tags:
        raise ValueError("by_tag=True needs a queries frame with a 'tags' column")
    gains, ideal = _gains_and_ideal(hits, qrels, level)
    ideal = {str(q): g for q, g in ideal.items()}
    by_q = {str(q): g["gain"].to_numpy() for q, g in gains.groupby("qid", sort=False)}
    top = (hits.groupby("qid", sort=False)["score"].max() if len(hits)
           else pd.Series(dtype=float))
    top.index = top.index.astype(str)
    if queries is not None:
        qids = [str(q) for q in queries["qid"]]
    else:
        qids = list(ideal) + [q for q in top.index if q not in ideal]
    rows = []
    for qid in qids:
        grades = ideal.get(qid)
        judged = grades is not None and bool(np.count_nonzero(grades))
        row: dict[str, object] = {"qid": qid, "judged": judged,
                                  "top_score": float(top.get(qid, np.nan))}
        for m in metrics:
            row[m] = (metric_value(m, by_q.get(qid, np.zeros(0, dtype=np.int64)), grades)
                      if judged else np.nan)
        rows.append(row)
    table = pd.DataFrame(rows, columns=["qid", "judged", "top_score", *metrics])
    table["judged"] = table["judged"].astype(bool)
    if has_tags:
        table["tags"] = [_normalise_tags(t) for t in queries["tags"]]
    means = table.loc[table["judged"], metrics].astype(np.float64).mean()
    return Evaluation(table, means, tag_means(table, metrics) if by_tag else None, level)


def tag_means(per_query: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """Per tag (sorted): ``queries`` carrying it, how many are ``judged``, and each metric's
    mean over those judged (NaN when none is, e.g. the ``none`` tag)."""
    exploded = per_query[["qid", "judged", *metrics, "tags"]].explode("tags")
    exploded = exploded.dropna(subset=["tags"]).rename(columns={"tags": "tag"})
    rows = []
    for tag, group in sorted(exploded.groupby("tag"), key=lambda kv: str(kv[0])):
        judged = group.loc[group["judged"]]
        rows.append({"tag": str(tag), "queries": len(group), "judged": len(judged),
                     **{m: float(judged[m].mean()) if len(judged) else np.nan
                        for m in metrics}})
    return pd.DataFrame(rows, columns=["tag", "queries", "judged", *metrics])


def abstention(per_query: pd.DataFrame) -> pd.DataFrame:
    """How a system's top score differs between answerable (judged) and unanswerable queries.

    One row per group (``answerable``, ``unanswerable``): ``queries``, ``with_hits`` (queries
    that returned anything), then ``mean``, ``min``, ``q25``, ``median``, ``q75``, ``max`` of
    the top score over the queries with hits, and ``auc``: the ROC AUC of the top score as a
    detector of answerable queries (1 = every answerable query scores above every
    unanswerable one, 0.5 = no better than chance; the same value on both rows, NaN when a
    group is empty). A query without hits counts as the lowest score (the system abstained).
    """
    from sklearn.metrics import roc_auc_score

    judged = per_query["judged"].to_numpy(dtype=bool)
    score = per_query["top_score"].to_numpy(dtype=np.float64)
    rows = {}
    for name, mask in (("answerable", judged), ("unanswerable", ~judged)):
        s = score[mask]
        s = s[~np.isnan(s)]
        stats = (dict(zip(("mean", "min", "q25", "median", "q75", "max"),
                          [float(s.mean()), *np.quantile(s, [0, 0.25, 0.5, 0.75, 1]).tolist()],
                          strict=True))
                 if len(s) else dict.fromkeys(("mean", "min", "q25", "median", "q75", "max"),
                                              np.nan))
        rows[name] = {"queries": int(mask.sum()), "with_hits": len(s), **stats}
    auc = np.nan
    if judged.any() and (~judged).any():
        finite = score[~np.isnan(score)]
        floor = (finite.min() if len(finite) else 0.0) - 1.0
        auc = float(roc_auc_score(judged.astype(int), np.where(np.isnan(score), floor, score)))
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "group"
    frame["auc"] = auc
    return frame


@dataclass(repr=False)
class Comparison:
    """What :func:`compare` returns.

    - ``table``: one row per system (index ``system``, baseline first): each metric's mean,
      ``queries`` (judged), then per metric ``"{metric} delta"``, ``wins``, ``losses``,
      ``ties``, ``ci_low``, ``ci_high`` (bootstrap CI of the delta), ``p_t``, ``p_wilcoxon``,
      ``p_rand`` (Holm-corrected over all comparisons of the call) and ``p_t_raw``,
      ``p_wilcoxon_raw``, ``p_rand_raw`` (NaN on the baseline's row);
    - ``tests``: the same statistics long, one row per (system, metric) comparison;
    - ``per_query``: long ``system, qid, metric, value`` over the judged queries;
    - ``by_tag``: ``system, tag, queries, judged`` and each metric's mean (when asked for);
    - ``evaluations``: each system's :class:`Evaluation`.

    Exports: :meth:`to_markdown`, :meth:`to_latex`, :meth:`to_csv`, :meth:`to_dict`.
    """

    table: pd.DataFrame
    tests: pd.DataFrame
    per_query: pd.DataFrame
    by_tag: pd.DataFrame | None
    evaluations: dict[str, Evaluation]
    baseline: str
    metrics: list[str]
    level: str = "span"
    n_resamples: int = 10_000
    seed: int | None = 0
    confidence: float = 0.95
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def systems(self) -> list[str]:
        return list(self.table.index)

    @property
    def n_judged(self) -> int:
        return int(self.evaluations[self.baseline].per_query["judged"].sum())

    @property
    def n_unjudged(self) -> int:
        return len(self.evaluations[self.baseline].unjudged)

    @property
    def abstention(self) -> pd.DataFrame:
        """:func:`abstention` for every system (columns ``system``, ``group``, ...)."""
        parts = [abstention(ev.per_query).reset_index().assign(system=name)
                 for name, ev in self.evaluations.items()]
        frame = pd.concat(parts, ignore_index=True)
        return frame[["system", *[c for c in frame.columns if c != "system"]]]

    def to_markdown(self, **options: Any) -> str:
        """A Markdown table (mean, delta with CI, W/L/T per metric) with significance markers
        and a legend; per-tag tables follow when ``by_tag`` was computed. Options: see
        :func:`memlab.eval.report.format_comparison`."""
        from memlab.eval.report import format_comparison

        return format_comparison(self, "markdown", **options)

    def to_latex(self, **options: Any) -> str:
        """A LaTeX ``tabular`` (booktabs rules) with the same content as :meth:`to_markdown`."""
        from memlab.eval.report import format_comparison

        return format_comparison(self, "latex", **options)

    def to_csv(self, path: str | Path | None = None, *, what: str = "table") -> str | None:
        """Write ``table`` (or ``tests``, ``per_query``, ``by_tag``) as CSV to ``path``; with
        no path, return the CSV text."""
        from memlab.eval.report import comparison_csv

        return comparison_csv(self, path, what=what)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready nested dict (per system and per tag), e.g. for ``memlab eval --json``."""
        from memlab.eval.report import comparison_dict

        return comparison_dict(self)

    def to_string(self, **kwargs: Any) -> str:
        """``table.to_string(**kwargs)`` (pandas-compatible; the old ``compare`` returned
        the table itself)."""
        return self.table.to_string(**kwargs)

    def __repr__(self) -> str:
        from memlab.eval.report import format_comparison

        return format_comparison(self, "text")

    def _repr_html_(self) -> str:
        from memlab.eval.report import format_comparison

        return format_comparison(self, "html")


def compare(runs: Mapping[str, pd.DataFrame], qrels: pd.DataFrame,
            metrics: Sequence[str] = DEFAULT_METRICS, queries: pd.DataFrame | None = None, *,
            baseline: str | None = None, level: str = "span", by_tag: bool = False,
            n_resamples: int = 10_000, seed: int | None = 0,
            confidence: float = 0.95) -> Comparison:
    """Evaluate several systems' hits on the same judgments and test each against a baseline.

    ``runs`` maps a system name to its hits; ``baseline`` (default: the first run) is the
    system every other one is compared with, query by query over the judged queries: mean
    difference, wins/losses/ties, paired t-test, Wilcoxon signed-rank and randomization test
    p-values (Holm-corrected across all the (system, metric) comparisons of this call, each
    test separately; raw values kept) and a percentile bootstrap CI of the difference
    (``n_resamples`` resamples, seeded with ``seed``). See :class:`Comparison`.
    """
    if not runs:
        raise ValueError("compare needs at least one run")
    names = [str(n) for n in runs]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate system names: {names}")
    baseline = names[0] if baseline is None else str(baseline)
    if baseline not in names:
        raise ValueError(f"baseline {baseline!r} is not one of the runs {names}")
    metrics = list(metrics)
    order = [baseline, *[n for n in names if n != baseline]]
    evaluations = {str(name): evaluate(hits, qrels, metrics, queries, level=level,
                                       by_tag=by_tag)
                   for name, hits in runs.items()}
    evaluations = {name: evaluations[name] for name in order}

    judged = {name: ev.per_query.loc[ev.per_query["judged"]].set_index("qid")[metrics]
              for name, ev in evaluations.items()}
    qids = judged[baseline].index
    base = judged[baseline].to_numpy(dtype=np.float64)
    others = order[1:]
    labels = [(name, m) for name in others for m in metrics]
    if others:
        a = np.column_stack([judged[n].reindex(qids).to_numpy(dtype=np.float64)
                             for n in others])
        b = np.tile(base, (1, len(others)))
        tests = paired_tests(a, b, n_resamples=n_resamples, seed=seed, confidence=confidence,
                             labels=labels)
        tests.index = pd.MultiIndex.from_tuples(labels, names=["system", "metric"])
    else:
        tests = pd.DataFrame(columns=["n", "t", *TEST_COLUMNS],
                             index=pd.MultiIndex.from_tuples([], names=["system", "metric"]))
    means = {name: ev.means for name, ev in evaluations.items()}
    tests.insert(1, "mean", [float(means[s][m]) for s, m in labels])
    tests.insert(2, "baseline_mean", [float(means[baseline][m]) for _, m in labels])
    tests = tests.reset_index()

    rows = []
    for name in order:
        row: dict[str, object] = {m: float(means[name][m]) for m in metrics}
        row["queries"] = len(judged[name])
        for m in metrics:
            hit = tests.loc[(tests["system"] == name) & (tests["metric"] == m)]
            for col in TEST_COLUMNS:
                row[f"{m} {col}"] = hit[col].iloc[0] if len(hit) else np.nan
        rows.append(row)
    table = pd.DataFrame(rows, index=pd.Index(order, name="system"))
    for m in metrics:
        for col in ("wins", "losses", "ties"):
            table[f"{m} {col}"] = table[f"{m} {col}"].astype("Int64")

    per_query = pd.concat(
        [frame.reset_index().melt(id_vars="qid", var_name="metric", value_name="value")
         .assign(system=name) for name, frame in judged.items()], ignore_index=True)
    per_query = per_query[["system", "qid", "metric", "value"]]
    tag_table = None
    if by_tag:
        tag_table = pd.concat([ev.by_tag.assign(system=name) for name, ev in evaluations.items()],
                              ignore_index=True)
        tag_table = tag_table[["system", *[c for c in tag_table.columns if c != "system"]]]
    return Comparison(table=table, tests=tests, per_query=per_query, by_tag=tag_table,
                      evaluations=evaluations, baseline=baseline, metrics=metrics, level=level,
                      n_resamples=n_resamples, seed=seed, confidence=confidence)
