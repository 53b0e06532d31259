"""Evaluate a collection of datasets (e.g. converted LoCoMo conversations or LongMemEval
questions) and macro-average: every dataset counts once, however many queries it has.

A collection is a folder whose sub-folders are datasets (memory or BEIR); a single dataset
folder is a collection of one. Per dataset and system the run is scored like ``memlab
eval`` scores it; the collection's figure for a metric is the mean over datasets of the
per-dataset means (datasets without any judged query are left out of that mean). Queries
without judgments (abstention questions, tag ``none``) are never averaged in: they are
counted and pooled over the whole collection into one :func:`~memlab.eval.experiment.abstention`
view per system (does the top score tell answerable from unanswerable questions?).

Session-level metrics: ``session_<metric>`` (e.g. ``session_recall_any@5``) scores the same
run against the dataset's ``session_qrels.jsonl`` (:data:`SESSION_QRELS_FILE`; one span per
evidence session, written by :mod:`memlab.convert`): each session counts once, however many
of its chunks are retrieved. A dataset's ``dataset.json`` (:data:`META_FILE`) saying
``"layout": "transcripts"`` makes every system search the transcripts
(:data:`SESSION_OVERRIDES`).

>>> split_metrics(["ndcg@10", "session_recall_all@5"])
(['ndcg@10'], {'session_recall_all@5': 'recall_all@5'})
>>> evaluate_collection("tests/data/collection", ["keyword"]).macro  # doctest: +SKIP
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from memlab.eval.datasets import read_span_file
from memlab.eval.experiment import abstention, evaluate
from memlab.eval.judged import condense, judged_spans, unjudged_share
from memlab.eval.metrics import parse_metric

#: Per-dataset metadata written by the converters (source, layout, agent, ...).
META_FILE = "dataset.json"
#: Session-level judgments: one span per evidence session, same fields as ``qrels.jsonl``.
SESSION_QRELS_FILE = "session_qrels.jsonl"
#: Prefix of session-level metric names.
SESSION_PREFIX = "session_"
#: Config overrides (``MemlabConfig.with_overrides``) that make a system search transcripts.
SESSION_OVERRIDES: dict[str, Any] = {"sources": ["memory", "sessions"],
                                     "experimental.sessionMemory": True}


def split_metrics(metrics: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """Turn-level metric names, and session-level names mapped to their base metric (each
    validated with :func:`~memlab.eval.metrics.parse_metric`)."""
    turn, session = [], {}
    for m in metrics:
        m = m.strip()
        if m.lower().startswith(SESSION_PREFIX):
            base = m[len(SESSION_PREFIX):]
            parse_metric(base)
            session[m] = base
        else:
            parse_metric(m)
            turn.append(m)
    return turn, session


def is_dataset_folder(path: str | Path) -> bool:
    """A memory dataset (``workspace/``) or a BEIR folder (``corpus.jsonl``)."""
    path = Path(path)
    return (path / "workspace").is_dir() or (path / "corpus.jsonl").is_file()


def is_collection(path: str | Path) -> bool:
    """A folder that is not a dataset itself but holds dataset folders."""
    path = Path(path)
    return (path.is_dir() and not is_dataset_folder(path)
            and any(is_dataset_folder(p) for p in path.iterdir() if p.is_dir()))


def collection_folders(path: str | Path | Sequence[str | Path]) -> list[Path]:
    """The dataset folders of a collection folder (sorted), of a dataset folder (itself) or
    of a list of dataset folders."""
    if isinstance(path, str | Path):
        root = Path(path)
        if is_dataset_folder(root):
            return [root]
        if not root.is_dir():
            raise FileNotFoundError(f"{root}: collection folder not found")
        found = sorted(p for p in root.iterdir() if p.is_dir() and is_dataset_folder(p))
        if not found:
            raise ValueError(f"{root}: no dataset folders in it (each needs workspace/ + "
                             "queries.jsonl + qrels.jsonl, or a BEIR corpus.jsonl)")
        return found
    return [Path(p) for p in path]


def dataset_meta(root: str | Path) -> dict[str, Any]:
    """A dataset's ``dataset.json`` (``{}`` when absent)."""
    path = Path(root) / META_FILE
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}: malformed JSON ({exc.msg})") from None


def load_session_qrels(root: str | Path) -> pd.DataFrame | None:
    """A dataset's session-level qrels (``qid, path, start_line, end_line, grade``; grade 1
    when absent), or ``None`` without a ``session_qrels.jsonl``
    (:func:`memlab.eval.datasets.read_span_file`)."""
    path = Path(root) / SESSION_QRELS_FILE
    return read_span_file(path, default_grade=1) if path.is_file() else None


@dataclass(repr=False)
class CollectionResult:
    """What :func:`evaluate_collection` returns.

    - ``per_dataset``: ``dataset, system, queries, judged, abstention, unjudged_share`` and
      each metric's mean over the dataset's judged queries;
    - ``macro``: per system (index), each metric's mean over datasets, ``datasets`` (with a
      judged query), ``queries``, ``judged``, ``abstention`` (totals) and the mean
      ``unjudged_share``;
    - ``by_tag``: ``system, tag, datasets, queries, judged`` and each metric macro-averaged
      over the datasets that have judged queries with that tag;
    - ``per_query``: ``dataset, system, qid, judged, top_score``, the metrics, ``tags``;
    - ``abstention``: per system, :func:`~memlab.eval.experiment.abstention` pooled over
      the collection.
    """

    per_dataset: pd.DataFrame
    macro: pd.DataFrame
    by_tag: pd.DataFrame
    per_query: pd.DataFrame
    metrics: list[str]
    systems: list[str]
    condensed: bool = False
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def abstention(self) -> pd.DataFrame:
        parts = [abstention(g).reset_index().assign(system=name)
                 for name, g in self.per_query.groupby("system", sort=False)]
        frame = pd.concat(parts, ignore_index=True)
        return frame[["system", *[c for c in frame.columns if c != "system"]]]

    def to_markdown(self, digits: int = 3, by_tag: bool = False) -> str:
        """The macro table, a legend, the per-tag macro tables and the abstention view."""
        from memlab.eval.report import markdown_table

        def num(v: Any) -> str:
            return "—" if v is None or pd.isna(v) else f"{v:.{digits}f}"

        header = ["system", *self.metrics, "datasets", "judged", "abstention", "unjudged"]
        rows = [[name, *(num(row[m]) for m in self.metrics), str(int(row["datasets"])),
                 str(int(row["judged"])), str(int(row["abstention"])),
                 "—" if pd.isna(row["unjudged_share"]) else f"{row['unjudged_share']:.0%}"]
                for name, row in self.macro.iterrows()]
        n = len(self.per_dataset["dataset"].unique())
        parts = [markdown_table(header, rows, "l" + "r" * (len(header) - 1)), "",
                 f"Macro-average over {n} dataset(s): each metric is the mean of the "
                 "per-dataset means over judged queries; abstention = questions without "
                 "judgments (tag none), reported apart; unjudged = share of retrieved hits "
                 "no judgment covers" + ("; condensed lists (judged hits only)."
                                         if self.condensed else ".")]
        if by_tag and len(self.by_tag):
            for m in self.metrics:
                wide = self.by_tag.pivot(index="tag", columns="system", values=m)
                counts = self.by_tag.loc[self.by_tag["system"] == self.systems[0]]
                counts = counts.set_index("tag")
                trows = [[str(t), str(int(counts.at[t, "queries"])),
                          str(int(counts.at[t, "judged"])),
                          *(num(wide.at[t, s]) for s in self.systems)] for t in counts.index]
                parts += ["", f"{m} by tag (macro over datasets):", "",
                          markdown_table(["tag", "queries", "judged", *self.systems], trows,
                                         "lrr" + "r" * len(self.systems))]
        view = self.abstention
        if (view["group"] == "unanswerable").any() and \
                view.loc[view["group"] == "unanswerable", "queries"].sum():
            arows = [[r["system"], r["group"], str(int(r["queries"])), num(r["median"]),
                      num(r["auc"])] for _, r in view.iterrows()]
            parts += ["", "Top scores of answerable vs unanswerable questions (pooled):", "",
                      markdown_table(["system", "group", "queries", "median top score",
                                      "AUC"], arows, "llrrr")]
        return "\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: settings, macro means per system, per-dataset means."""
        def clean(v: Any) -> Any:
            if isinstance(v, float | np.floating):
                return None if np.isnan(v) else float(v)
            if isinstance(v, np.integer):
                return int(v)
            return v

        return {"metrics": self.metrics, "condensed": self.condensed,
                "macro": {name: {k: clean(v) for k, v in row.items()}
                          for name, row in self.macro.iterrows()},
                "per_dataset": [{k: clean(v) for k, v in r.items()}
                                for r in self.per_dataset.to_dict("records")]}

    def to_csv(self, what: str = "macro") -> str:
        """``macro`` (default), ``per_dataset``, ``by_tag`` or ``per_query`` as CSV text."""
        frames = {"macro": self.macro, "per_dataset": self.per_dataset,
                  "by_tag": self.by_tag, "per_query": self.per_query}
        if what not in frames:
            raise ValueError(f"what must be one of {sorted(frames)}, got {what!r}")
        return frames[what].to_csv(index=what == "macro", lineterminator="\n")

    def __repr__(self) -> str:
        return self.to_markdown(by_tag=False)


def _session_values(hits: pd.DataFrame, session_qrels: pd.DataFrame | None,
                    queries: pd.DataFrame, session: Mapping[str, str]) -> pd.DataFrame | None:
    if not session or session_qrels is None:
        return None
    ev = evaluate(hits, session_qrels, sorted(set(session.values())), queries)
    return pd.DataFrame({name: ev.per_query[base].to_numpy() for name, base in session.items()},
                        index=ev.per_query["qid"].to_numpy())


def evaluate_collection(path: str | Path | Sequence[str | Path],
                        systems: Sequence[str | Path | Mapping[str, Any]],
                        metrics: Sequence[str] = ("ndcg@10", "recall@10", "recall_any@10",
                                                  "recall_all@10"),
                        *, depth: int = 10, production: bool = False, condensed: bool = False,
                        embedders: dict[str, Any] | None = None) -> CollectionResult:
    """Run every system on every dataset of a collection and macro-average (module docs).

    ``condensed=True`` scores condensed lists (judged hits only, :func:`memlab.eval.judged
    .condense`). ``embedders`` caches one embedder per provider setting across systems and
    datasets (pass a dict to reuse it between calls).

    >>> result = evaluate_collection("out/locomo", ["keyword"])  # doctest: +SKIP
    >>> print(result.to_markdown())  # doctest: +SKIP
    """
    from memlab.eval.datasets import load_dataset
    from memlab.eval.systems import resolve_system, run_system

    if not systems:
        raise ValueError("give at least one system (a config file or a built-in name)")
    turn, session = split_metrics(metrics)
    names_cfgs = []
    for spec in systems:
        name, cfg = resolve_system(spec)
        base, n = name, 1
        while name in [x for x, _ in names_cfgs]:
            n += 1
            name = f"{base}-{n}"
        names_cfgs.append((name, cfg))
    embedders = {} if embedders is None else embedders
    all_metrics = [*turn, *session]
    per_query_parts, dataset_rows, tag_parts = [], [], []
    for folder in collection_folders(path):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the loader reports skipped files itself
            ds = load_dataset(folder)
        meta = dataset_meta(folder)
        sq = load_session_qrels(folder) if session else None
        judged = judged_spans(ds)
        level = getattr(ds, "level", "span")
        for name, cfg in names_cfgs:
            if meta.get("layout") == "transcripts":
                cfg = cfg.with_overrides(SESSION_OVERRIDES)
            hits = run_system(ds, cfg, depth=depth, production=production,
                              embedders=embedders)
            share = unjudged_share(hits, judged)
            if condensed:
                hits = condense(hits, judged)
            ev = evaluate(hits, ds.qrels, turn, ds.queries, level=level)
            table = ev.per_query
            svals = _session_values(hits, sq, ds.queries, session)
            for m in session:
                table[m] = (svals[m].reindex(table["qid"]).to_numpy() if svals is not None
                            else np.nan)
            table = table.assign(dataset=folder.name, system=name)
            per_query_parts.append(table)
            judged_rows = table.loc[table["judged"]]
            dataset_rows.append({"dataset": folder.name, "system": name,
                                 "queries": len(table), "judged": len(judged_rows),
                                 "abstention": int((~table["judged"]).sum()),
                                 "unjudged_share": share,
                                 **{m: float(judged_rows[m].mean()) if len(judged_rows)
                                    else np.nan for m in all_metrics}})
            if "tags" in table.columns:
                from memlab.eval.experiment import tag_means

                tag_parts.append(tag_means(table, all_metrics).assign(dataset=folder.name,
                                                                      system=name))
    per_dataset = pd.DataFrame(dataset_rows)
    order = [name for name, _ in names_cfgs]
    grouped = per_dataset.groupby("system", sort=False)
    macro = grouped[all_metrics].mean()
    macro["datasets"] = grouped["judged"].apply(lambda s: int((s > 0).sum()))
    for col in ("queries", "judged", "abstention"):
        macro[col] = grouped[col].sum()
    macro["unjudged_share"] = grouped["unjudged_share"].mean()
    macro = macro.reindex(order)
    macro.index.name = "system"
    by_tag = pd.DataFrame(columns=["system", "tag", "datasets", "queries", "judged",
                                   *all_metrics])
    if tag_parts:
        tags = pd.concat(tag_parts, ignore_index=True)
        g = tags.groupby(["system", "tag"], sort=False)
        by_tag = g[all_metrics].mean()
        by_tag["datasets"] = g["judged"].apply(lambda s: int((s > 0).sum()))
        by_tag["queries"] = g["queries"].sum()
        by_tag["judged"] = g["judged"].sum()
        by_tag = by_tag.reset_index()[["system", "tag", "datasets", "queries", "judged",
                                       *all_metrics]].sort_values(["system", "tag"],
                                                                  key=lambda s: s.astype(str))
        by_tag = by_tag.reset_index(drop=True)
    per_query = pd.concat(per_query_parts, ignore_index=True)
    front = ["dataset", "system", "qid", "judged", "top_score"]
    per_query = per_query[[*front, *[c for c in per_query.columns if c not in front]]]
    return CollectionResult(per_dataset=per_dataset, macro=macro, by_tag=by_tag,
                            per_query=per_query, metrics=all_metrics, systems=order,
                            condensed=condensed, options={"depth": depth})
