"""TREC run and qrels files in and out, so runs move to and from trec_eval, ranx,
ir_measures and PyTerrier.

A run file has six whitespace-separated columns per line, ``qid Q0 docid rank score run``;
a qrels file four, ``qid 0 docid grade``. trec_eval orders a query's documents by ``score``
(descending) and ignores the rank column; it breaks score ties by ``docid`` descending. So
:func:`write_trec_run` writes *tie-safe* scores by default (:func:`tie_safe_scores`): strictly
decreasing down memlab's ranking, each equal to the hit's own score unless that is not below
the one written above it by a gap trec_eval's single-precision scores can see (about 1e-6
of the value), when it becomes that one minus the gap. trec_eval, pytrec_eval, ranx and
ir_measures then see exactly memlab's order (ties, and MMR's re-ordering that leaves scores
non-monotone, included), while the written scores stay close to the real ones for fusion or
threshold studies (rank-based scores would not); ``scores="rank"`` writes ``1/rank`` instead and
``tie_safe=False`` the raw scores (then trec_eval re-sorts ties by docid).

Run docids at chunk level are ``path#L<start>-<end>`` (the chunk's 1-based inclusive line
span); whitespace and ``%`` in a path are percent-escaped, and when two chunks of one query
share path and span (the pieces of one over-long line) the later ones get ``~2``, ``~3``...
At document level the docid is the document id (the path without ``.md``, see
:func:`memlab.eval.relevance.doc_hits`).

>>> import io, pandas as pd
>>> hits = pd.DataFrame({"qid": ["1", "1"], "path": ["a.md", "b c.md"], "start_line": [1, 4],
...                      "end_line": [3, 9], "score": [2.5, 1.0], "rank": [1, 2]})
>>> buf = io.StringIO()
>>> write_trec_run(hits, buf, "bm25")
>>> print(buf.getvalue(), end="")
1 Q0 a.md#L1-3 1 2.5 bm25
1 Q0 b%20c.md#L4-9 2 1.0 bm25
>>> read_trec_run(io.StringIO(buf.getvalue()))[["docid", "path", "start_line"]].values.tolist()
[['a.md#L1-3', 'a.md', 1], ['b%20c.md#L4-9', 'b c.md', 4]]
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import IO
from urllib.parse import unquote

import numpy as np
import pandas as pd

from memlab.eval.datasets import DatasetError
from memlab.eval.relevance import doc_hits

__all__ = ["chunk_docid", "parse_chunk_docid", "read_trec_qrels", "read_trec_run",
           "run_docids", "run_frame", "tie_safe_scores", "write_trec_qrels", "write_trec_run"]

PathOrBuffer = str | os.PathLike | IO[str]

_ESCAPE = re.compile(r"[%\s]")
_CHUNK_DOCID = re.compile(r"^(?P<path>.+)#L(?P<start>\d+)-(?P<end>\d+)(?:~\d+)?$")
_LEVELS = ("chunk", "doc")


def chunk_docid(path: str, start_line: int, end_line: int) -> str:
    """The TREC docid of a chunk: ``path#L<start>-<end>`` with whitespace and ``%`` escaped.

    >>> chunk_docid("memory/my notes.md", 3, 7)
    'memory/my%20notes.md#L3-7'
    """
    escaped = _ESCAPE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), path)
    return f"{escaped}#L{int(start_line)}-{int(end_line)}"


def parse_chunk_docid(docid: str) -> tuple[str, int, int] | None:
    """``(path, start_line, end_line)`` of a chunk docid, or None if it is not one.

    >>> parse_chunk_docid("memory/my%20notes.md#L3-7~2"), parse_chunk_docid("CACM-0001")
    (('memory/my notes.md', 3, 7), None)
    """
    m = _CHUNK_DOCID.match(docid)
    if not m:
        return None
    return unquote(m.group("path")), int(m.group("start")), int(m.group("end"))


@contextmanager
def _open(target: PathOrBuffer, mode: str) -> Iterator[tuple[IO[str], str]]:
    if isinstance(target, str | os.PathLike):
        with open(target, mode, encoding="utf-8", newline="\n" if "w" in mode else None) as fh:
            yield fh, str(target)
    else:
        yield target, str(getattr(target, "name", "<buffer>"))


def _check_token(value: str, what: str) -> str:
    if not value or any(ch.isspace() for ch in value):
        raise ValueError(f"{what} {value!r} is empty or contains whitespace; a TREC file "
                         "cannot carry it")
    return value


def _format_score(value: float, where: str) -> str:
    if not math.isfinite(value):
        raise ValueError(f"{where}: score {value!r} is not finite; a TREC run needs numbers")
    return repr(float(value))


#: Relative gap :func:`tie_safe_scores` keeps between consecutive scores of a query: 8 units in
#: the last place of a float32, because trec_eval (so pytrec_eval and ir_measures) holds scores
#: as C ``float`` and sees scores closer than that as tied (tested); ranx keeps float64.
TIE_STEP = 2.0 ** -20
#: Absolute floor of the gap, for scores at or near 0 (far above float32's smallest normal).
TIE_FLOOR = 1e-30


def tie_safe_scores(qids: Sequence[object], scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """Scores made strictly decreasing, by a float32-visible gap, within each query (rows
    taken in rank order).

    Row ``i`` keeps its score when it is at least ``gap = max(|previous| * TIE_STEP,
    TIE_FLOOR)`` below the score kept for the row above it (same query); otherwise it gets
    ``previous - gap``. Every tool that sorts by score (trec_eval: then by docid descending,
    in single precision) therefore reproduces the given order, and scores that already
    decrease by more than the gap are kept bit for bit. Each tie moves a score by about 1e-6
    of its value (k consecutive ties: about k * 1e-6).

    Hand-written: the recurrence (each value depends on the one written before it) is not an
    array operation numpy or pandas offers; it runs once per written line.

    >>> tie_safe_scores(["q", "q", "q", "r"], [1.0, 1.0, 0.5, 1.0]).tolist()
    [1.0, 0.9999990463256836, 0.5, 1.0]
    """
    values = np.asarray(scores, dtype=np.float64).copy()
    previous_qid: object = None
    previous = math.inf
    for i, qid in enumerate(qids):
        if qid != previous_qid:
            previous_qid, previous = qid, math.inf
        else:
            below = previous - max(abs(previous) * TIE_STEP, TIE_FLOOR)
            if values[i] > below:
                values[i] = below
        previous = values[i]
    return values


def run_docids(hits: pd.DataFrame, level: str = "chunk") -> tuple[pd.DataFrame, list[str]]:
    """The frame :func:`write_trec_run` writes (per query in rank order; at ``level="doc"``
    each document's best chunk) and its TREC docids: :func:`chunk_docid` with ``~2``, ``~3``
    for later chunks of one query sharing a span, or the document ids.

    >>> hits = pd.DataFrame({"qid": ["q", "q"], "path": ["a.md", "a.md"], "start_line": [1, 1],
    ...                      "end_line": [1, 1], "rank": [1, 2]})
    >>> run_docids(hits)[1]
    ['a.md#L1-1', 'a.md#L1-1~2']
    """
    if level not in _LEVELS:
        raise ValueError(f"level must be one of {_LEVELS}, got {level!r}")
    if level == "doc":
        frame = doc_hits(hits)
        return frame, [_check_token(str(d), "document id") for d in frame["doc_id"]]
    frame = hits.sort_values(["qid", "rank"], kind="stable").reset_index(drop=True)
    docids = []
    seen: dict[tuple[object, str], int] = {}
    for qid, p, s, e in zip(frame["qid"], frame["path"], frame["start_line"], frame["end_line"],
                            strict=True):
        docid = chunk_docid(p, s, e)
        n = seen.get((qid, docid), 0) + 1  # pieces of one over-long line share a span
        seen[qid, docid] = n
        docids.append(docid if n == 1 else f"{docid}~{n}")
    return frame, docids


def write_trec_run(hits: pd.DataFrame, path_or_buffer: PathOrBuffer, run_name: str = "memlab",
                   level: str = "chunk", scores: str = "score", tie_safe: bool = True) -> None:
    """Write ``hits`` as a TREC run (``qid Q0 docid rank score run_name``).

    ``level="chunk"`` writes every hit with a :func:`chunk_docid`; ``level="doc"`` keeps each
    document's best chunk (:func:`~memlab.eval.relevance.doc_hits`) and writes the document
    id (see :func:`run_docids`). Hits are written per query in rank order with ranks
    renumbered 1..n. ``scores`` names the score column, or is ``"rank"`` to write ``1/rank``.
    With ``tie_safe`` (the default) the written scores go through :func:`tie_safe_scores`,
    so trec_eval, which re-sorts by score and breaks ties by docid, sees exactly memlab's
    order and gives memlab's metrics (tested with pytrec_eval, ranx and ir_measures).
    """
    _check_token(run_name, "run name")
    if scores != "rank" and scores not in hits.columns:
        raise ValueError(f"hits have no {scores!r} column (use a score column or 'rank')")
    frame, docids = run_docids(hits, level)
    qids = [_check_token(str(q), "query id") for q in frame["qid"]]
    ranks = (frame.groupby("qid", sort=False).cumcount() + 1).to_numpy() if len(frame) else []
    if scores == "rank":
        values = 1.0 / np.asarray(ranks, dtype=np.float64)
    else:
        values = frame[scores].to_numpy(dtype=np.float64)
    for qid, rank, score in zip(qids, ranks, values, strict=True):
        _format_score(score, f"query {qid} rank {rank}")
    if tie_safe:
        values = tie_safe_scores(qids, values)
    lines = [f"{qid} Q0 {docid} {rank} {_format_score(score, '')} {run_name}\n"
             for qid, docid, rank, score in zip(qids, docids, ranks, values, strict=True)]
    with _open(path_or_buffer, "w") as (fh, _):
        fh.writelines(lines)


def _lines(fh: Iterable[str]) -> Iterator[tuple[int, list[str]]]:
    for n, line in enumerate(fh, start=1):
        fields = line.split()
        if fields:
            yield n, fields


def read_trec_run(path_or_buffer: PathOrBuffer, level: str = "auto") -> pd.DataFrame:
    """Read a TREC run into a hits-like frame: ``qid``, ``docid``, ``rank``, ``score``.

    Per query (in order of first appearance) rows are sorted by score descending, ties kept in
    the file's rank order (then line order), and ``rank`` is renumbered 1..n; note that
    trec_eval breaks score ties by docid instead. ``level="chunk"`` parses each docid with
    :func:`parse_chunk_docid` into ``path``, ``start_line``, ``end_line`` (for
    :func:`~memlab.eval.span_gains`); ``level="doc"`` adds ``doc_id`` (= docid, for
    :func:`~memlab.eval.doc_gains`); ``"auto"`` picks chunk when every docid is a chunk docid.
    A line without six fields, a non-integer rank, a non-finite score or a repeated
    (qid, docid) raises :class:`~memlab.eval.DatasetError` naming the file and line.
    """
    if level not in ("auto", *_LEVELS):
        raise ValueError(f"level must be 'auto', 'chunk' or 'doc', got {level!r}")
    rows: list[tuple[str, str, int, float]] = []
    seen: dict[tuple[str, str], int] = {}
    with _open(path_or_buffer, "r") as (fh, name):
        for n, fields in _lines(fh):
            if len(fields) != 6:
                raise DatasetError(f"{name}:{n}: expected 6 columns (qid Q0 docid rank score "
                                   f"run), got {len(fields)}")
            qid, _, docid, rank_s, score_s, _ = fields
            try:
                rank = int(rank_s)
            except ValueError:
                raise DatasetError(f"{name}:{n}: rank {rank_s!r} is not an integer") from None
            try:
                score = float(score_s)
            except ValueError:
                raise DatasetError(f"{name}:{n}: score {score_s!r} is not a number") from None
            if not math.isfinite(score):
                raise DatasetError(f"{name}:{n}: score {score_s!r} is not finite")
            if (qid, docid) in seen:
                raise DatasetError(f"{name}:{n}: document {docid!r} retrieved twice for query "
                                   f"{qid!r} (first on line {seen[qid, docid]})")
            seen[qid, docid] = n
            rows.append((qid, docid, rank, score))
    return run_frame(rows, level, name)


def run_frame(rows: Iterable[tuple[str, str, int, float]], level: str = "auto",
              name: str = "<run>") -> pd.DataFrame:
    """``(qid, docid, rank, score)`` rows as :func:`read_trec_run` returns them (sorted per
    query by score descending, ties in rank then row order, ranks renumbered; ``level`` as
    there). Also the target of :func:`memlab.eval.interop.from_ranx` and ``from_ir_measures``.

    >>> run_frame([("q", "b", 2, 0.5), ("q", "a", 1, 0.9)])[["docid", "rank"]].values.tolist()
    [['a', 1], ['b', 2]]
    """
    if level not in ("auto", *_LEVELS):
        raise ValueError(f"level must be 'auto', 'chunk' or 'doc', got {level!r}")
    frame = pd.DataFrame(list(rows), columns=["qid", "docid", "rank", "score"]).astype(
        {"qid": object, "docid": object, "rank": "int64", "score": "float64"})
    if len(frame):
        codes, _ = pd.factorize(frame["qid"])
        order = np.lexsort((np.arange(len(frame)), frame["rank"].to_numpy(),
                            -frame["score"].to_numpy(), codes))
        frame = frame.iloc[order].reset_index(drop=True)
        frame["rank"] = frame.groupby("qid", sort=False).cumcount() + 1
    parsed = [parse_chunk_docid(d) for d in frame["docid"]]
    if level == "auto":
        level = "chunk" if len(frame) and all(p is not None for p in parsed) else "doc"
    if level == "chunk":
        bad = [d for d, p in zip(frame["docid"], parsed, strict=True) if p is None]
        if bad:
            raise DatasetError(f"{name}: docid {bad[0]!r} is not a chunk docid "
                               "(path#L<start>-<end>)")
        frame["path"] = [p[0] for p in parsed]
        frame["start_line"] = np.array([p[1] for p in parsed], dtype=np.int64)
        frame["end_line"] = np.array([p[2] for p in parsed], dtype=np.int64)
    else:
        frame["doc_id"] = frame["docid"]
    return frame


def write_trec_qrels(qrels: pd.DataFrame, path_or_buffer: PathOrBuffer) -> None:
    """Write document judgments (``qid``, ``doc_id`` or ``docid``, ``grade``) as TREC qrels
    (``qid 0 docid grade``), in the frame's order."""
    doc_col = "doc_id" if "doc_id" in qrels.columns else "docid"
    missing = [c for c in ("qid", doc_col, "grade") if c not in qrels.columns]
    if missing:
        raise ValueError(f"qrels lack column(s) {missing}; TREC qrels need document-level "
                         "judgments (qid, doc_id, grade), not line spans")
    lines = []
    for qid, doc, grade in zip(qrels["qid"], qrels[doc_col], qrels["grade"], strict=True):
        lines.append(f"{_check_token(str(qid), 'query id')} 0 "
                     f"{_check_token(str(doc), 'document id')} {int(grade)}\n")
    with _open(path_or_buffer, "w") as (fh, _):
        fh.writelines(lines)


def read_trec_qrels(path_or_buffer: PathOrBuffer) -> pd.DataFrame:
    """Read TREC qrels (``qid iter docid grade``; ``iter`` ignored) into ``qid``, ``doc_id``,
    ``grade``, the layout of :attr:`memlab.eval.BeirDataset.qrels`.

    An identical repeated line counts once; a line without four fields, a non-integer grade
    or a (qid, docid) judged twice with different grades raises
    :class:`~memlab.eval.DatasetError` naming the file and line.
    """
    rows: list[tuple[str, str, int]] = []
    seen: dict[tuple[str, str], tuple[int, int]] = {}
    with _open(path_or_buffer, "r") as (fh, name):
        for n, fields in _lines(fh):
            if len(fields) != 4:
                raise DatasetError(f"{name}:{n}: expected 4 columns (qid iter docid grade), "
                                   f"got {len(fields)}")
            qid, _, doc, grade_s = fields
            try:
                value = float(grade_s)
            except ValueError:
                value = math.nan
            if not value.is_integer():
                raise DatasetError(f"{name}:{n}: grade {grade_s!r} is not an integer")
            grade = int(value)
            if (qid, doc) in seen:
                prev, line = seen[qid, doc]
                if prev != grade:
                    raise DatasetError(f"{name}:{n}: query {qid!r}, document {doc!r} judged "
                                       f"{grade} here but {prev} on line {line}")
                continue
            seen[qid, doc] = (grade, n)
            rows.append((qid, doc, grade))
    return pd.DataFrame(rows, columns=["qid", "doc_id", "grade"]).astype({"grade": "int64"})

