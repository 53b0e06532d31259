"""The two tabular contracts every stage speaks: queries in, ranked hits out.

Queries: a DataFrame with ``qid`` (str), ``query`` (str) and optionally ``now`` (the reference
time for temporal decay, a tz-aware ``Timestamp``) and ``tags``.

Hits: a DataFrame with one row per (query, chunk), sorted by ``qid`` then ``rank``::

    qid, docno, chunk_id, path, start_line, end_line, source, score, rank

plus optional component columns (``vector_score``, ``text_score``, ``boosted_score``,
``keyword_hit``, ``snippet``). ``docno`` is the chunk's row position in its
:class:`~memlab.corpus.Corpus`, so a stage can look up text or metadata without a join.
``rank`` is 1-based. The query columns (``query``, ``now``) ride along so later stages
(decay, MMR) can read them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

QUERY_COLUMNS = ["qid", "query"]
HIT_COLUMNS = [
    "qid", "docno", "chunk_id", "path", "start_line", "end_line", "source", "score", "rank",
]
CHUNK_COLUMNS = ["chunk_id", "path", "start_line", "end_line", "source"]


def as_queries(queries: str | Iterable[str] | pd.DataFrame) -> pd.DataFrame:
    """Normalise a query, a list of queries or a DataFrame into the queries contract.

    >>> as_queries("deploy key").to_dict("records")
    [{'qid': '1', 'query': 'deploy key'}]
    """
    if isinstance(queries, pd.DataFrame):
        missing = [c for c in QUERY_COLUMNS if c not in queries.columns]
        if missing:
            raise ValueError(
                f"queries DataFrame lacks column(s) {missing}; it needs 'qid' and 'query' "
                f"(got columns {list(queries.columns)})"
            )
        frame = queries.copy()
        frame["qid"] = frame["qid"].astype(str)
        frame["query"] = frame["query"].fillna("").astype(str)
        if frame["qid"].duplicated().any():
            dupes = sorted(frame.loc[frame["qid"].duplicated(), "qid"].unique())[:5]
            raise ValueError(f"duplicate qid(s) in queries: {dupes}")
        if "now" in frame.columns:
            frame["now"] = pd.to_datetime(frame["now"], utc=True)
        return frame.reset_index(drop=True)
    if isinstance(queries, str):
        queries = [queries]
    texts = [str(q) for q in queries]
    return pd.DataFrame({"qid": [str(i + 1) for i in range(len(texts))], "query": texts})


def empty_hits(extra: Sequence[str] = ()) -> pd.DataFrame:
    """An empty hits frame with the contract's columns (and ``extra`` ones)."""
    cols = HIT_COLUMNS + [c for c in extra if c not in HIT_COLUMNS]
    frame = pd.DataFrame({c: pd.Series(dtype=_dtype(c)) for c in cols})
    return frame


def _dtype(column: str) -> str:
    if column in ("docno", "start_line", "end_line", "rank"):
        return "int64"
    if column in ("score", "vector_score", "text_score", "boosted_score"):
        return "float64"
    if column == "keyword_hit":
        return "bool"
    return "object"


def build_hits(
    queries: pd.DataFrame,
    chunks: pd.DataFrame,
    per_query: Sequence[tuple[np.ndarray, np.ndarray]],
    score_column: str | None = None,
) -> pd.DataFrame:
    """Assemble a hits frame from per-query ``(docnos, scores)`` arrays.

    Each pair must already be in rank order. ``chunks`` is the corpus' chunk table (row
    position = docno). ``score_column`` also copies the score into a component column such as
    ``vector_score``. Query columns other than ``qid`` (``query``, ``now``) are carried along.
    """
    sizes = np.fromiter((len(d) for d, _ in per_query), dtype=np.int64, count=len(per_query))
    extra = [score_column] if score_column else []
    if sizes.sum() == 0:
        out = empty_hits(extra)
        for c in queries.columns:
            if c not in out.columns:
                out[c] = pd.Series(dtype=queries[c].dtype)
        return out
    docnos = np.concatenate([np.asarray(d, dtype=np.int64) for d, _ in per_query])
    scores = np.concatenate([np.asarray(s, dtype=np.float64) for _, s in per_query])
    qrows = np.repeat(np.arange(len(queries)), sizes)
    ranks = np.concatenate([np.arange(1, n + 1) for n in sizes])
    data: dict[str, object] = {"qid": _take(queries["qid"], qrows), "docno": docnos}
    for c in CHUNK_COLUMNS:  # only the columns needed (not the chunk texts)
        data[c] = _take(chunks[c], docnos)
    data["score"] = scores
    data["rank"] = ranks
    if score_column:
        data[score_column] = scores
    for c in queries.columns:
        if c not in data:
            data[c] = _take(queries[c], qrows)
    return pd.DataFrame(data)


def _take(column: pd.Series, positions: np.ndarray) -> object:
    """``column.to_numpy()[positions]`` as the DataFrame constructor would store it: string
    columns are taken as they are (no round trip through Python objects)."""
    if isinstance(column.dtype, pd.StringDtype) and column.dtype == pd.Series(["x"]).dtype:
        return column.array.take(positions)
    return column.iloc[positions].to_numpy()


def rerank(hits: pd.DataFrame, by: str = "score") -> pd.DataFrame:
    """Sort hits by query then ``by`` descending and renumber ``rank``.

    The sort is stable, so ties keep their current order (as JavaScript's ``toSorted`` does).
    """
    if hits.empty:
        return hits
    codes, _ = pd.factorize(hits["qid"])  # keep queries in order of first appearance
    order = np.lexsort((-hits[by].to_numpy(dtype=np.float64), codes))  # lexsort is stable
    out = hits.iloc[order].reset_index(drop=True)
    out["rank"] = out.groupby("qid", sort=False).cumcount() + 1
    return out


def check_hits(hits: pd.DataFrame) -> None:
    """Raise ``ValueError`` when ``hits`` does not meet the contract."""
    missing = [c for c in HIT_COLUMNS if c not in hits.columns]
    if missing:
        raise ValueError(f"hits frame lacks column(s) {missing}")
