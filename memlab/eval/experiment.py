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

from memlab.eval.metrics import metric_arrays, parse_metric
from memlab.eval.relevance import path_to_doc_id, span_gains
from memlab.eval.stats import paired_tests
from memlab.kernels.gains import document_gains, first_occurrences

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


def _str_codes(parts: Sequence[tuple[np.ndarray, list[str]]]
               ) -> tuple[list[np.ndarray], list[str], list[np.ndarray]]:
    """Joint codes of several factorised columns by the ``str`` of their values.

    Each part is ``(codes, names)`` from a factorisation (code -1 = missing); returns each
    part's codes re-mapped into one numbering of the distinct names (-1 stays -1), those
    names, and each part's map from its own codes to the joint ones. Only the distinct
    values go through Python, never the rows."""
    flat = np.array([name for _, names in parts for name in names], dtype=object)
    joint = np.asarray(pd.factorize(flat)[0], dtype=np.int64)
    names = list(dict.fromkeys(flat.tolist()))
    out, maps, offset = [], [], 0
    for codes, part_names in parts:
        mapping = joint[offset:offset + len(part_names)]
        out.append(np.append(mapping, -1)[codes])  # code -1 picks the appended -1
        maps.append(mapping)
        offset += len(part_names)
    return out, names, maps


def _is_str(values: pd.Series) -> bool:
    return isinstance(values.dtype, pd.StringDtype)


def _factorised(values: pd.Series, name_of: Any = None
                ) -> tuple[np.ndarray, list[str], np.ndarray | None]:
    """Codes (first-appearance order; missing values -1, which groupby drops), the
    ``name_of`` (default ``str``) of each distinct value, and the start of each run of equal
    values when the runs were used (else None)."""
    n = len(values)
    if n > 1 and _is_str(values) and values.dtype.storage == "pyarrow" and not values.hasnans:
        # hits come grouped by qid: factorising only the first row of each run is cheaper
        arr = values.array
        starts = np.flatnonzero(np.r_[True, np.asarray(arr[1:] != arr[:-1], dtype=bool)])
        if len(starts) * 4 < n:
            head_codes, uniques = pd.factorize(arr.take(starts))
            codes = np.repeat(np.asarray(head_codes, dtype=np.int64), np.diff(np.r_[starts, n]))
            return codes, _names(uniques, values, name_of), starts
    codes, uniques = pd.factorize(values)
    return np.asarray(codes, dtype=np.int64), _names(uniques, values, name_of), None


def _names(uniques: Any, values: pd.Series, name_of: Any) -> list[str]:
    if _is_str(values):
        names = uniques.tolist()
        return names if name_of is None else [name_of(u) for u in names]
    return [(name_of or str)(u) for u in uniques]


def _sorted_names(values: pd.Series, codes: np.ndarray, names: list[str]) -> list[str]:
    """The distinct values among ``codes`` as ``groupby`` orders them (sorted by value), as
    strings; ``codes``/``names`` come from :func:`_factorised` of ``values``."""
    if _is_str(values):
        present = np.unique(codes[codes >= 0])
        return sorted(names[c] for c in present.tolist())
    return [str(q) for q in pd.factorize(values, sort=True)[1]]


def _flat_gains(hits: pd.DataFrame, qrels: pd.DataFrame, level: str):
    """Ranked gains and ideal grades as flat arrays, queries coded by ``str(qid)``.

    Returns ``(names, qrow, gains, ideal_qrow, ideal, ideal_qids, top, hit_qids)``: the
    distinct qids (strings), each ranked gain's query code and gain (queries grouped, rank
    order inside), each judged grade's query code and grade (as
    :func:`memlab.eval.relevance.ideal_gains` / ``doc_ideal`` would keep them), the qids of
    the ideal dictionary in its order, each query's best hit score (NaN without one, as
    ``groupby("qid")["score"].max()``) and the hits' qids in order of first appearance.

    The document level reproduces :func:`memlab.eval.relevance.doc_gains` and ``doc_ideal``
    on integer codes with the kernels of :mod:`memlab.kernels.gains` (``first_occurrences``:
    each document's first hit, each judged document's last judgment; ``document_gains``: its
    gain) and a hash look-up, instead of pandas row operations: their per-group Python work
    alone cost more than pytrec_eval's whole evaluation on 10,000 queries (tests compare the
    two)."""
    hq_local, hq_names, runs = _factorised(hits["qid"])
    qq_local, qq_names, _ = _factorised(qrels["qid"])
    top_local = np.full(len(hq_names), np.nan)
    if len(hits):
        score = hits["score"].to_numpy(dtype=np.float64)
        if runs is not None:  # fmax ignores NaN, as groupby's max
            np.fmax.at(top_local, hq_local[runs], np.fmax.reduceat(score, runs))
        else:
            ok = hq_local >= 0
            np.fmax.at(top_local, hq_local[ok], score[ok])
    if level == "span":
        frame = (span_gains(hits, qrels) if len(hits)
                 else hits.assign(gain=pd.Series(dtype=np.int64)))
        fq_local, fq_names, _ = _factorised(frame["qid"])
        (_, qq, fq), names, (hit_map, *_) = _str_codes(
            [(hq_local, hq_names), (qq_local, qq_names), (fq_local, fq_names)])
        top = np.full(len(names), np.nan)
        top[hit_map] = top_local
        gains = frame["gain"].to_numpy(dtype=np.float64)
        keep = fq >= 0
        ideal_keep = qq >= 0
        ideal = qrels["grade"].to_numpy(dtype=np.float64)[ideal_keep]
        return (names, fq[keep], gains[keep], qq[ideal_keep], ideal,
                _sorted_names(qrels["qid"], qq_local, qq_names), top, hq_names)
    missing = [c for c in ("qid", "doc_id", "grade") if c not in qrels.columns]
    if missing:
        raise ValueError(f"doc_gains needs document qrels (qid, doc_id, grade); these lack "
                         f"{missing} (line-span qrels are scored with span_gains)")
    if not len(hits):
        hd, rank = (np.zeros(0, dtype=np.int64), []), np.zeros(0, dtype=np.int64)
    else:
        rank = hits["rank"].to_numpy()
        hd = (_factorised(hits["doc_id"]) if "doc_id" in hits.columns
              else _factorised(hits["path"], lambda p: path_to_doc_id(str(p))))[:2]
    (hit_qrow, qq), names, (hit_map, _) = _str_codes([(hq_local, hq_names),
                                                      (qq_local, qq_names)])
    top = np.full(len(names), np.nan)
    top[hit_map] = top_local
    (hd_codes, qd), doc_names, _ = _str_codes([hd, _factorised(qrels["doc_id"])[:2]])
    n_docs = max(len(doc_names), 1)
    # rank each query's hits (stable: equal ranks keep their order), first chunk per doc
    qc, dc = hit_qrow, hd_codes
    if np.any(qc < 0):
        valid = qc >= 0
        qc, dc, rank = qc[valid], dc[valid], rank[valid]
    if len(qc) > 1:
        dq = np.diff(qc)
        if np.any(dq < 0) or np.any(np.diff(rank)[dq == 0] < 0):
            order = np.lexsort((rank, qc))
            qc, dc = qc[order], dc[order]
    key = qc * n_docs + dc
    # judged grades: the last judgment of each (query, doc), negatives counting 0
    grade = qrels["grade"].to_numpy(dtype=np.int64)
    ok = qq >= 0
    qkey = qq * n_docs + qd
    rows = np.flatnonzero(ok)[::-1]  # reversed: a key's first occurrence is its last judgment
    last = rows[first_occurrences(qkey[rows])]
    # the first hit of each (query, doc) in rank order (kernels.gains.first_occurrences), its
    # judged grade looked up among the judged keys (NaN: unjudged), its gain
    # (kernels.gains.document_gains)
    first = first_occurrences(key)
    first_keys = key[first]
    grades = np.full(len(first), np.nan)
    # a hash look-up (pandas): the hits' keys come unsorted, where a binary search of the
    # sorted judged keys cost ~1.7x as much on 1M hits
    where = pd.Index(qkey[last]).get_indexer(first_keys)
    found = where >= 0
    grades[found] = grade[last][where[found]]
    gains = document_gains(grades).astype(np.float64)
    qc = qc[first]
    # ideal: the positive judgments, last one per (query, doc)
    positive = ok & (qrels["grade"].to_numpy() > 0)
    pos_idx = np.flatnonzero(positive)[::-1]
    pos_last = np.sort(pos_idx[first_occurrences(qkey[pos_idx])])
    return (names, qc, gains, qq[pos_last], grade[pos_last].astype(np.float64),
            _sorted_names(qrels["qid"][positive], qq_local[positive], qq_names), top,
            hq_names)


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
    (names, qrow, gains, ideal_qrow, ideal, ideal_qids, top,
     hit_qids) = _flat_gains(hits, qrels, level)
    values = metric_arrays(metrics, len(names), qrow, gains, ideal_qrow, ideal)
    judged_of = np.bincount(ideal_qrow, weights=ideal != 0, minlength=len(names)) > 0
    if queries is not None:
        qids = [str(q) for q in queries["qid"]]
    else:
        in_ideal = set(ideal_qids)
        qids = ideal_qids + [q for q in dict.fromkeys(hit_qids) if q not in in_ideal]
    at = pd.Index(names).get_indexer(qids)
    known = at >= 0
    at0 = np.maximum(at, 0)
    columns = {"qid": qids, "judged": known & judged_of[at0] if len(names) else known,
               "top_score": np.where(known, top[at0], np.nan) if len(names)
               else np.full(len(qids), np.nan)}
    for m in metrics:
        columns[m] = (np.where(known, values[m][at0], np.nan) if len(names)
                      else np.full(len(qids), np.nan))
    table = (pd.DataFrame(columns) if qids
             else pd.DataFrame([], columns=["qid", "judged", "top_score", *metrics]))
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
