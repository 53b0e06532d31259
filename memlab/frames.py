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

The array contract (one query, no DataFrames; the single-query search path): a
:class:`Query` in, :class:`QueryHits` out, converted to and from frames by
:meth:`QueryHits.to_frame` and :meth:`QueryHits.from_frame`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

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


# -- one query's candidates as arrays (the array contract) -----------------------------------


@dataclass(frozen=True)
class Query:
    """One query as the array contract sees it.

    ``text`` is the query (already trimmed by the caller); ``now`` the reference time of
    temporal decay (``None``: the stage's own); ``columns`` the query's other columns
    (``qid``, ``session``...) for stages that only run on frames; ``chunks`` the corpus'
    chunk table, which turns arrays back into a hits frame for such stages (row = docno).
    ``limit`` is set by a fusion stage for its legs (how many candidates it will keep) and
    ``boost`` (whether it reads the keyword leg's boosted score, the keyword-only ranking);
    ``cut`` by :meth:`memlab.pipeline.Sequence.transform_query` for a stage followed by a
    selection stage (a :class:`memlab.pipeline.Selects`), so a stage that only reorders can
    stop early.
    """

    text: str
    now: object = None
    columns: Mapping[str, object] = field(default_factory=dict)
    chunks: pd.DataFrame | None = None
    limit: int | None = None
    boost: bool = True
    cut: Any = None

    def replace(self, **changes: Any) -> Query:
        """This query with ``changes`` to its fields: ``dataclasses.replace`` for the
        single-query path, which copies the fields instead of running the frozen class'
        ``__init__`` again (several times the cost, once per search).

        >>> Query("deploy key").replace(limit=24).limit
        24
        """
        unknown = changes.keys() - self.__dict__.keys()
        if unknown:
            raise TypeError(f"Query has no field(s) {sorted(unknown)}; its fields are "
                            f"{sorted(self.__dict__)}")
        new = object.__new__(type(self))
        fields = new.__dict__
        fields.update(self.__dict__)
        fields.update(changes)
        return new

    def frame(self) -> pd.DataFrame:
        """This query as a one-row queries frame."""
        row = {"qid": "1", **dict(self.columns), "query": self.text}
        if self.now is not None and "now" not in row:
            row["now"] = self.now
        return as_queries(pd.DataFrame([row]))


class QueryHits(NamedTuple):
    """One query's candidates in rank order, as arrays (``docno`` = corpus row).

    Legs fill ``docno`` and ``score`` and their component (``vector_score`` or
    ``text_score``; a keyword leg also ``boosted_score`` and ``fallback``); fusion fills
    ``vector_score``, ``text_score`` (0 where a leg did not return the chunk) and
    ``keyword_hit``.
    """

    docno: np.ndarray
    score: np.ndarray
    vector_score: np.ndarray | None = None
    text_score: np.ndarray | None = None
    keyword_hit: np.ndarray | None = None
    boosted_score: np.ndarray | None = None
    fallback: np.ndarray | None = None

    def take(self, positions: np.ndarray) -> QueryHits:
        """These hits at ``positions`` (a reordering, a cut or a selection)."""
        return QueryHits(*(None if a is None else a[positions] for a in self))

    @classmethod
    def empty(cls) -> QueryHits:
        z = np.zeros(0)
        return cls(np.zeros(0, dtype=np.int64), z, z, z, np.zeros(0, dtype=bool))

    @classmethod
    def from_frame(cls, hits: pd.DataFrame) -> QueryHits:
        """One query's hits frame (in rank order) as arrays."""
        def col(name: str, dtype: Any) -> np.ndarray | None:
            return hits[name].to_numpy(dtype=dtype) if name in hits.columns else None

        return cls(hits["docno"].to_numpy(dtype=np.int64),
                   hits["score"].to_numpy(dtype=np.float64),
                   col("vector_score", np.float64), col("text_score", np.float64),
                   col("keyword_hit", bool), col("boosted_score", np.float64),
                   col("fallback", bool))

    def to_frame(self, query: Query) -> pd.DataFrame:
        """These hits as the hits contract (needs ``query.chunks``)."""
        if query.chunks is None:
            raise ValueError("turning array hits into a frame needs the corpus' chunk table "
                             "(Query.chunks)")
        queries = query.frame()
        out = build_hits(queries, query.chunks, [(self.docno, self.score)])
        for name in ("vector_score", "text_score", "keyword_hit", "boosted_score",
                     "fallback"):
            values = getattr(self, name)
            if values is not None:
                out[name] = values
        return out
