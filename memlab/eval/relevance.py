"""Relevance: turn a ranking of chunks into gains, independent of the chunking.

The walk itself is :mod:`memlab.kernels.gains`; this module finds the judgments a ranking
touches. Span level (memory datasets, :func:`span_gains`): walking a query's ranking
top-down, a chunk earns the highest grade among the judged spans (same path, overlapping
line ranges) that no earlier chunk has earned; it consumes that one span. Each span
therefore counts once, and the ideal ranking is the spans sorted by grade.

Document level (BEIR collections, :func:`doc_gains`): each document is a file ``<doc_id>.md``;
a document ranks where its best (first) chunk ranks, later chunks of it are dropped, and its
gain is its judged grade (0 when unjudged or judged non-relevant). This is the ranking
trec_eval sees, so the metrics equal trec_eval's.

>>> import pandas as pd
>>> hits = pd.DataFrame({"qid": ["q1"] * 3, "path": ["a.md"] * 3,
...                      "start_line": [1, 5, 1], "end_line": [4, 9, 9], "rank": [1, 2, 3]})
>>> qrels = pd.DataFrame({"qid": ["q1", "q1"], "path": ["a.md", "a.md"],
...                       "start_line": [3, 6], "end_line": [3, 6], "grade": [1, 2]})
>>> span_gains(hits, qrels)["gain"].tolist()
[1, 2, 0]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from memlab.kernels import gains as gains_kernel

#: Suffix of the file a document of a collection becomes (``<doc_id>.md``).
DOC_SUFFIX = ".md"


def span_pairs(hits: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """The (hit, judged span) overlaps: same query, same path, overlapping line ranges.

    Returns ``row`` (the hit's row position in ``hits``), ``span`` (the judgment's index
    label in ``qrels``) and ``grade``, sorted as :func:`memlab.kernels.gains.span_gains`
    walks them: by row, then grade descending, then span. Found with one join, so the cost
    grows with the number of overlaps, not hits x spans.
    """
    spans = qrels[["qid", "path", "start_line", "end_line", "grade"]]
    spans = spans.assign(span=spans.index.to_numpy())
    pairs = hits[["qid", "path", "start_line", "end_line"]].assign(
        row=np.arange(len(hits))).merge(spans, on=["qid", "path"], suffixes=("", "_span"))
    pairs = pairs[(pairs["start_line_span"] <= pairs["end_line"])
                  & (pairs["end_line_span"] >= pairs["start_line"])]
    pairs = pairs.sort_values(["row", "grade", "span"], ascending=[True, False, True])
    return pairs[["row", "span", "grade"]].reset_index(drop=True)


def span_gains(hits: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """Add a ``gain`` column to ``hits`` (sorted by qid, rank) using span judgments
    (:func:`memlab.kernels.gains.span_gains` of :func:`span_pairs`)."""
    hits = hits.sort_values(["qid", "rank"], kind="stable").reset_index(drop=True)
    pairs = span_pairs(hits, qrels.reset_index(drop=True))
    out = hits.copy()
    out["gain"] = gains_kernel.span_gains(pairs["row"].to_numpy(), pairs["span"].to_numpy(),
                                          pairs["grade"].to_numpy(), len(hits))
    return out


def ideal_gains(qrels: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per query, the judged grades sorted descending (the ideal ranking's gains)."""
    return {qid: np.sort(g["grade"].to_numpy())[::-1] for qid, g in qrels.groupby("qid")}


# -- document level --------------------------------------------------------------------------


def doc_path(doc_id: str) -> str:
    """The corpus path of a collection document: ``<doc_id>.md``."""
    return f"{doc_id}{DOC_SUFFIX}"


def path_to_doc_id(path: str) -> str:
    """The document id of a corpus path: the path without its ``.md`` suffix.

    >>> path_to_doc_id("CACM-0001.md"), path_to_doc_id("notes.txt")
    ('CACM-0001', 'notes.txt')
    """
    return path[: -len(DOC_SUFFIX)] if path.endswith(DOC_SUFFIX) else path


def doc_hits(hits: pd.DataFrame) -> pd.DataFrame:
    """Chunk hits → document hits: per query, each document keeps only its best-ranked chunk
    (its first in rank order), with ``doc_id`` from the path and ``rank`` renumbered 1..n.

    Input is sorted by ``qid`` then ``rank`` first (stable); all columns of the kept chunk rows
    stay, so ``score`` is the document's best chunk score.
    """
    frame = hits.sort_values(["qid", "rank"], kind="stable")
    if "doc_id" not in frame.columns:  # else: already document level
        frame = frame.assign(doc_id=[path_to_doc_id(p) for p in frame["path"]])
    keys, _ = pd.factorize(pd.MultiIndex.from_arrays([frame["qid"].astype(str),
                                                      frame["doc_id"].astype(str)]))
    frame = frame.iloc[gains_kernel.first_occurrences(keys)].reset_index(drop=True)
    if len(frame):
        frame["rank"] = frame.groupby("qid", sort=False).cumcount() + 1
    return frame


def doc_gains(hits: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """Document-level gains for chunk ``hits`` against document ``qrels`` (``qid``,
    ``doc_id``, ``grade``).

    A hit's document is its ``path`` without the ``.md`` suffix (:func:`path_to_doc_id`; a
    ``doc_id`` column, if present, is used as is). Per query, a document ranks by its best
    (first) chunk and its later chunks are dropped (:func:`doc_hits`); ``rank`` is
    renumbered; ``gain`` is the document's grade, 0 when unjudged, and negative grades count
    0 (as judged non-relevant). Returns the kept rows sorted by ``qid``, ``rank`` with
    ``doc_id`` and ``gain`` added.

    >>> hits = pd.DataFrame({"qid": ["q"] * 4, "path": ["b.md", "a.md", "b.md", "c.md"],
    ...                      "score": [4.0, 3.0, 2.0, 1.0], "rank": [1, 2, 3, 4]})
    >>> qrels = pd.DataFrame({"qid": ["q", "q"], "doc_id": ["c", "b"], "grade": [1, 2]})
    >>> doc_gains(hits, qrels)[["doc_id", "rank", "gain"]].values.tolist()
    [['b', 1, 2], ['a', 2, 0], ['c', 3, 1]]
    """
    missing = [c for c in ("qid", "doc_id", "grade") if c not in qrels.columns]
    if missing:
        raise ValueError(f"doc_gains needs document qrels (qid, doc_id, grade); these lack "
                         f"{missing} (line-span qrels are scored with span_gains)")
    frame = doc_hits(hits)
    if frame.empty:
        return frame.assign(gain=pd.Series(dtype="int64"))
    judged = qrels[["qid", "doc_id", "grade"]].drop_duplicates(["qid", "doc_id"], keep="last")
    keys = pd.MultiIndex.from_frame(judged[["qid", "doc_id"]].astype(str))
    grades = pd.Series(judged["grade"].to_numpy(dtype=np.int64), index=keys)
    wanted = pd.MultiIndex.from_arrays([frame["qid"].astype(str), frame["doc_id"].astype(str)])
    frame["gain"] = gains_kernel.document_gains(grades.reindex(wanted).to_numpy())
    return frame


def doc_ideal(qrels: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per query with at least one relevant document, the positive grades sorted descending.

    Queries whose judgments are all ``grade <= 0`` have no relevant document and are left
    out (metrics are undefined for them; they are reported apart).

    >>> q = pd.DataFrame({"qid": ["a", "a", "a", "b"], "doc_id": ["x", "y", "z", "x"],
    ...                   "grade": [1, 3, 0, 0]})
    >>> {k: v.tolist() for k, v in doc_ideal(q).items()}
    {'a': [3, 1]}
    """
    rel = qrels.loc[qrels["grade"] > 0]
    rel = rel.drop_duplicates(["qid", "doc_id"], keep="last")
    return {str(qid): np.sort(g["grade"].to_numpy(dtype=np.int64))[::-1]
            for qid, g in rel.groupby("qid")}
