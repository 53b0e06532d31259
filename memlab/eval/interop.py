"""memlab runs and judgments for trec_eval, ranx and ir_measures, and back.

Memory datasets are judged by line spans, which no TREC tool reads. For a given chunking
(a corpus' chunk table) the judgments become TREC qrels at two levels:

- ``"chunk"`` (:func:`chunk_qrels`): every chunk overlapping a judged span of a query is
  relevant with the highest grade among the spans it overlaps; docids are the run docids of
  :func:`memlab.eval.trec.write_trec_run` (``path#L<start>-<end>``, ``~2``... for pieces
  of one over-long line).
- ``"line"`` (:func:`line_qrels`): every judged line is a document ``path#L<n>-<n>`` with
  its span's grade; :func:`line_hits` turns a ranking of chunks into a ranking of lines (each
  chunk's lines in order at the chunk's rank, a line counted at its first chunk). This is
  meaningful where a line is the unit of an answer (session transcripts are judged by JSONL
  line; facts in notes are one line each) and for comparing with line-granular systems.

:func:`trec_hits` gives the hits at either level in the form memlab's document-level
evaluation reads, so ``evaluate(trec_hits(hits, level), trec_qrels(qrels, chunks, level),
level="doc")`` equals trec_eval on the files :func:`write_trec_files` writes (tested with
pytrec_eval, ranx and ir_measures). These are *chunk- and line-level* metrics: memlab's
span level (:func:`~memlab.eval.relevance.span_gains`) credits each judged span once
however many chunks overlap it, which no static qrels can express, so its figures differ
where several retrieved chunks overlap one span.

Adapters (optional dependencies, the ``interop`` extra: ``pip install memlab[interop]``):
:func:`to_ranx` / :func:`qrels_to_ranx` / :func:`from_ranx`, :func:`to_ir_measures` /
:func:`qrels_to_ir_measures` / :func:`from_ir_measures`, and the metric names
:func:`ranx_metric` / :func:`ir_measures_metric`.

>>> import pandas as pd
>>> spans = pd.DataFrame({"qid": ["q"], "path": ["a.md"], "start_line": [3], "end_line": [4],
...                       "grade": [2]})
>>> chunks = pd.DataFrame({"path": ["a.md", "a.md"], "start_line": [1, 4],
...                        "end_line": [3, 9]})
>>> chunk_qrels(spans, chunks).values.tolist()
[['q', 'a.md#L1-3', 2], ['q', 'a.md#L4-9', 2]]
>>> line_qrels(spans)["doc_id"].tolist()
['a.md#L3-3', 'a.md#L4-4']
>>> ranx_metric("success@5"), ir_measures_metric("map@100")
('hit_rate@5', 'AP@100')
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from memlab.eval.metrics import parse_metric
from memlab.eval.trec import (
    chunk_docid,
    run_docids,
    run_frame,
    tie_safe_scores,
    write_trec_qrels,
    write_trec_run,
)

__all__ = ["LEVELS", "chunk_qrels", "from_ir_measures", "from_ranx", "ir_measures_metric",
           "line_hits", "line_qrels", "qrels_to_ir_measures", "qrels_to_ranx", "ranx_metric",
           "to_ir_measures", "to_ranx", "trec_hits", "trec_qrels", "write_trec_files"]

#: Levels at which span judgments become TREC qrels.
LEVELS = ("chunk", "line")
QRELS_COLUMNS = ["qid", "doc_id", "grade"]

_RANX = {"ndcg": "ndcg", "recall": "recall", "mrr": "mrr", "map": "map", "p": "precision",
         "success": "hit_rate"}
_IR_MEASURES = {"ndcg": "nDCG", "recall": "R", "mrr": "RR", "map": "AP", "p": "P",
                "success": "Success"}


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")


def _need(frame: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} lack column(s) {missing}")


def chunk_qrels(qrels: pd.DataFrame, chunks: pd.DataFrame) -> pd.DataFrame:
    """Span judgments as chunk-level qrels (``qid``, ``doc_id``, ``grade``) for a chunking.

    ``qrels``: span judgments (``qid, path, start_line, end_line, grade``, a memory dataset's);
    ``chunks``: the chunk table (``path, start_line, end_line``; e.g. ``corpus.chunks`` of the
    corpus the run searched). A chunk overlapping judged spans of a query gets the highest of
    their grades. Chunks sharing path and span (pieces of one over-long line) are listed as
    ``docid``, ``docid~2``..., as many as the corpus has, all with that grade: the names a run
    gives them (:func:`~memlab.eval.trec.run_docids`) whichever of them it retrieves.
    Rows: per query in order of first judgment, chunks in path then line order. A query whose
    spans lie in files the chunking does not index (session transcripts of a memory-only
    system) gets no row: TREC tools, like memlab on these qrels, leave it out.
    """
    _need(qrels, ("qid", "path", "start_line", "end_line", "grade"), "span qrels")
    _need(chunks, ("path", "start_line", "end_line"), "the chunk table")
    table = chunks[["path", "start_line", "end_line"]].astype(
        {"start_line": "int64", "end_line": "int64"})
    spans = table.groupby(["path", "start_line", "end_line"], sort=True).size().rename(
        "copies").reset_index()
    pairs = qrels[["qid", "path", "start_line", "end_line", "grade"]].reset_index(drop=True)
    pairs = pairs.assign(order=np.arange(len(pairs))).merge(
        spans, on="path", suffixes=("_span", ""))
    pairs = pairs[(pairs["start_line_span"] <= pairs["end_line"])
                  & (pairs["end_line_span"] >= pairs["start_line"])]
    if pairs.empty:
        return pd.DataFrame(columns=QRELS_COLUMNS).astype({"grade": "int64"})
    best = pairs.groupby(["qid", "path", "start_line", "end_line"], sort=False).agg(
        grade=("grade", "max"), copies=("copies", "first"), order=("order", "min"))
    best = best.reset_index()
    best["first"] = best.groupby("qid")["order"].transform("min")
    best = best.sort_values(["first", "path", "start_line", "end_line"], kind="stable")
    rows = []
    for qid, path, start, end, grade, copies in zip(
            best["qid"], best["path"], best["start_line"], best["end_line"], best["grade"],
            best["copies"], strict=True):
        docid = chunk_docid(path, start, end)
        rows += [(str(qid), docid if n == 1 else f"{docid}~{n}", int(grade))
                 for n in range(1, int(copies) + 1)]
    return pd.DataFrame(rows, columns=QRELS_COLUMNS).astype({"grade": "int64"})


def line_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    """Span judgments as line-level qrels: each judged line ``path#L<n>-<n>`` with the highest
    grade of the query's spans covering it (rows per query in order of first judgment, lines
    ascending)."""
    _need(qrels, ("qid", "path", "start_line", "end_line", "grade"), "span qrels")
    if qrels.empty:
        return pd.DataFrame(columns=QRELS_COLUMNS).astype({"grade": "int64"})
    lines = qrels.assign(
        line=[np.arange(s, e + 1) for s, e in zip(qrels["start_line"], qrels["end_line"],
                                                  strict=True)],
        order=np.arange(len(qrels))).explode("line")
    best = lines.groupby(["qid", "path", "line"], sort=False).agg(
        grade=("grade", "max"), order=("order", "min")).reset_index()
    best["first"] = best.groupby("qid")["order"].transform("min")
    best = best.sort_values(["first", "path", "line"], kind="stable")
    return pd.DataFrame({
        "qid": best["qid"].astype(str).to_numpy(),
        "doc_id": [chunk_docid(p, n, n) for p, n in zip(best["path"], best["line"],
                                                        strict=True)],
        "grade": best["grade"].to_numpy(dtype=np.int64)})


def line_hits(hits: pd.DataFrame) -> pd.DataFrame:
    """A ranking of chunks as a ranking of lines: each hit's lines in order at the hit's rank
    and score, a line kept at its first (best-ranked) chunk; ``doc_id`` is ``path#L<n>-<n>``,
    ``rank`` renumbered per query, so ``evaluate(..., level="doc")`` and trec_eval read it."""
    _need(hits, ("qid", "path", "start_line", "end_line", "score", "rank"), "hits")
    frame = hits.sort_values(["qid", "rank"], kind="stable").reset_index(drop=True)
    frame = frame[["qid", "path", "start_line", "end_line", "score"]].assign(
        line=[np.arange(s, e + 1) for s, e in zip(frame["start_line"], frame["end_line"],
                                                  strict=True)]).explode("line")
    frame = frame.assign(doc_id=[chunk_docid(p, n, n) for p, n in zip(frame["path"],
                                                                      frame["line"],
                                                                      strict=True)])
    frame = frame.drop_duplicates(["qid", "doc_id"], keep="first").reset_index(drop=True)
    frame["rank"] = frame.groupby("qid", sort=False).cumcount() + 1
    return frame[["qid", "doc_id", "path", "line", "score", "rank"]]


def trec_qrels(qrels: pd.DataFrame, chunks: pd.DataFrame | None = None,
               level: str = "chunk") -> pd.DataFrame:
    """:func:`chunk_qrels` (needs ``chunks``) or :func:`line_qrels` by ``level``."""
    _check_level(level)
    if level == "line":
        return line_qrels(qrels)
    if chunks is None:
        raise ValueError("chunk-level qrels need the chunk table of the chunking "
                         "(chunks=corpus.chunks)")
    return chunk_qrels(qrels, chunks)


def trec_hits(hits: pd.DataFrame, level: str = "chunk") -> pd.DataFrame:
    """Hits with the ``doc_id`` a TREC run gives them at ``level`` (``"chunk"``: the run
    docids of :func:`~memlab.eval.trec.run_docids`; ``"line"``: :func:`line_hits`), ranks
    renumbered per query: the input of ``evaluate(..., level="doc")`` against
    :func:`trec_qrels`."""
    _check_level(level)
    if level == "line":
        return line_hits(hits)
    frame, docids = run_docids(hits, "chunk")
    frame = frame.assign(doc_id=docids)
    if len(frame):
        frame["rank"] = frame.groupby("qid", sort=False).cumcount() + 1
    return frame


def write_trec_files(hits: pd.DataFrame, qrels: pd.DataFrame, run_path: str | os.PathLike,
                     qrels_path: str | os.PathLike, *, chunks: pd.DataFrame | None = None,
                     level: str = "chunk", run_name: str = "memlab") -> None:
    """Write a memory-dataset run and its span judgments as TREC files at ``level`` (tie-safe
    scores), for trec_eval, ranx or ir_measures."""
    lines = trec_hits(hits, level)
    write_trec_run(lines.drop(columns=["path"], errors="ignore"), run_path, run_name,
                   level="doc")
    write_trec_qrels(trec_qrels(qrels, chunks, level), qrels_path)


# -- ranx ------------------------------------------------------------------------------------

def _import(name: str) -> Any:
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(f"{name} is not installed: pip install 'memlab[interop]' (or "
                          f"pip install {name.replace('_', '-')})") from exc


def _run_dict(hits: pd.DataFrame, level: str) -> dict[str, dict[str, float]]:
    """``{qid: {docid: tie-safe score}}`` of hits at TREC ``level`` (``chunk``/``doc``, or
    ``line``; hits that already carry ``doc_id`` are taken as document-level)."""
    if "doc_id" in hits.columns or level == "doc":
        frame, docids = run_docids(hits, "doc")
    elif level == "line":
        frame = line_hits(hits)
        docids = frame["doc_id"].tolist()
    else:
        frame, docids = run_docids(hits, "chunk")
    qids = [str(q) for q in frame["qid"]]
    scores = tie_safe_scores(qids, frame["score"].to_numpy(dtype=np.float64))
    out: dict[str, dict[str, float]] = {}
    for qid, docid, score in zip(qids, docids, scores.tolist(), strict=True):
        out.setdefault(qid, {})[docid] = score
    return out


def _qrels_dict(qrels: pd.DataFrame) -> dict[str, dict[str, int]]:
    doc_col = "doc_id" if "doc_id" in qrels.columns else "docid"
    _need(qrels, ("qid", doc_col, "grade"), "document qrels (use trec_qrels for spans)")
    out: dict[str, dict[str, int]] = {}
    for qid, doc, grade in zip(qrels["qid"], qrels[doc_col], qrels["grade"], strict=True):
        out.setdefault(str(qid), {})[str(doc)] = int(grade)
    return out


def to_ranx(hits: pd.DataFrame, level: str = "chunk", name: str = "memlab") -> Any:
    """A ``ranx.Run`` of ``hits`` (docids and tie-safe scores as in a written TREC run;
    ``level``: ``"chunk"``, ``"doc"`` or ``"line"``)."""
    ranx = _import("ranx")
    return ranx.Run(_run_dict(hits, level), name=name)


def qrels_to_ranx(qrels: pd.DataFrame) -> Any:
    """A ``ranx.Qrels`` of document qrels (``qid, doc_id, grade``; spans: :func:`trec_qrels`
    first). ranx, like trec_eval, counts grades <= 0 as not relevant."""
    ranx = _import("ranx")
    return ranx.Qrels(_qrels_dict(qrels))


def from_ranx(run: Any, level: str = "auto") -> pd.DataFrame:
    """A ``ranx.Run`` as a hits-like frame (as :func:`~memlab.eval.trec.read_trec_run`
    returns: ``qid, docid, rank, score`` plus ``path, start_line, end_line`` for chunk docids
    or ``doc_id``)."""
    rows = [(str(q), str(d), 0, float(s)) for q, docs in run.to_dict().items()
            for d, s in docs.items()]
    return run_frame(rows, level, getattr(run, "name", None) or "<ranx run>")


# -- ir_measures -----------------------------------------------------------------------------

def to_ir_measures(hits: pd.DataFrame, level: str = "chunk") -> list[Any]:
    """``ir_measures.ScoredDoc`` rows of ``hits`` (docids and tie-safe scores as written)."""
    irm = _import("ir_measures")
    return [irm.ScoredDoc(q, d, s) for q, docs in _run_dict(hits, level).items()
            for d, s in docs.items()]


def qrels_to_ir_measures(qrels: pd.DataFrame) -> list[Any]:
    """``ir_measures.Qrel`` rows of document qrels (spans: :func:`trec_qrels` first)."""
    irm = _import("ir_measures")
    return [irm.Qrel(q, d, g) for q, docs in _qrels_dict(qrels).items()
            for d, g in docs.items()]


def from_ir_measures(scored_docs: Iterable[Any], level: str = "auto") -> pd.DataFrame:
    """``ir_measures.ScoredDoc`` rows (or ``(query_id, doc_id, score)`` tuples) as a
    hits-like frame (see :func:`from_ranx`)."""
    rows = [(str(r[0]), str(r[1]), 0, float(r[2])) for r in scored_docs]
    return run_frame(rows, level, "<ir_measures run>")


# -- metric names ----------------------------------------------------------------------------

def ranx_metric(spec: str) -> str:
    """ranx's name for a memlab metric (``"p@10"`` → ``"precision@10"``)."""
    name, k = parse_metric(spec)
    return f"{_RANX[name]}@{k}"


def ir_measures_metric(spec: str) -> str:
    """ir_measures' name for a memlab metric (``"ndcg@10"`` → ``"nDCG@10"``; pass it to
    ``ir_measures.parse_measure``)."""
    name, k = parse_metric(spec)
    return f"{_IR_MEASURES[name]}@{k}"

