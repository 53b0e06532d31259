"""OpenClaw's result objects, built in one place for every caller: ``memlab search`` (plain
and ``--json``), :meth:`memlab.openclaw.MemorySearch.search` and the notebook widgets.

Each result is what ``openclaw memory search --json`` prints: ``path``, ``startLine``,
``endLine``, ``score``, the components the mode reports (hybrid: ``vectorScore`` and
``textScore``; keyword only: ``textScore``; vector only: none), ``snippet`` (700 UTF-16
units), ``source`` and ``citation``. The CLI prints them (``memlab.cli.output``).

The 2026.9 profile's results (``openclaw memory search --json`` of 2026.9.6) are the same
object without ``citation``, followed by the recall metadata a chunk has
(:data:`RECALL_METADATA`); :meth:`ResultBuilder.build_records` makes them from the profile's
ranked entries. Both go through :func:`result_object`.

>>> from memlab.corpus import Corpus
>>> from memlab.frames import QueryHits
>>> import numpy as np
>>> corpus = Corpus.from_texts(["the deploy window moved", "lunch"])
>>> hits = QueryHits(np.array([0]), np.array([0.5]), np.array([0.0]), np.array([0.5]))
>>> ResultBuilder(corpus).build(hits, "fts-only")[0]["citation"]
'doc-1.md#L1'
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from memlab.corpus import Corpus
from memlab.frames import QueryHits
from memlab.snippet import citation, snippet

__all__ = ["COMPONENTS", "MODES", "RECALL_METADATA", "ROW_MEMO_SIZE", "ResultBuilder",
           "column_reader", "hits_to_results", "mode_of", "result_object"]

#: The modes of :func:`memlab.openclaw.openclaw_pipeline`, as OpenClaw names them.
MODES = ("hybrid", "fts-only", "vector")
#: The score components a result reports in each mode (besides ``score``).
COMPONENTS: dict[str, tuple[str, ...]] = {"hybrid": ("vectorScore", "textScore"),
                                          "fts-only": ("textScore",), "vector": ()}
#: What 2026.9.6's ``attachRecallMetadata`` adds to a hit, in the order a result prints it
#: (each only when the chunk has it).
RECALL_METADATA = ("importance", "triggers", "projectKey", "provenance")


def mode_of(vector: bool, text: bool) -> str:
    """The mode of a pipeline from the legs it has (a vector leg, a keyword leg).

    >>> mode_of(True, True), mode_of(False, True), mode_of(True, False)
    ('hybrid', 'fts-only', 'vector')
    """
    if not (vector or text):
        raise ValueError("a pipeline needs a vector leg, a keyword leg or both")
    return "hybrid" if vector and text else ("vector" if vector else "fts-only")


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")


def result_object(path: str, start_line: int, end_line: int, score: float,
                  components: Mapping[str, float], mode: str, snippet_text: str,
                  source: str) -> dict[str, Any]:
    """One result object up to ``source``: ``path``, ``startLine``, ``endLine``, ``score``,
    the components ``mode`` reports (taken from ``components``), ``snippet``, ``source``.

    >>> result_object("a.md", 1, 2, 0.5, {"vectorScore": 0.4, "textScore": 0.6}, "fts-only",
    ...               "text", "memory")  # doctest: +NORMALIZE_WHITESPACE
    {'path': 'a.md', 'startLine': 1, 'endLine': 2, 'score': 0.5, 'textScore': 0.6,
     'snippet': 'text', 'source': 'memory'}
    """
    item: dict[str, Any] = {"path": path, "startLine": int(start_line),
                            "endLine": int(end_line), "score": float(score)}
    for name in COMPONENTS[mode]:  # a loop: update() from a generator costs ~2 us a result
        item[name] = float(components[name])
    item["snippet"] = snippet_text
    item["source"] = source
    return item


#: How many chunks' result fields :class:`ResultBuilder` keeps between calls (then it starts
#: afresh): a bound on its memory that does not grow with the corpus.
ROW_MEMO_SIZE = 50_000
#: :func:`column_reader` with ``factorize`` reads through codes when the column has at least
#: this many rows per distinct value (else its Python list of values would cost more).
FACTORIZE_ROWS = 8


def column_reader(column: pd.Series, factorize: bool = False) -> Callable[[list[int]], list]:
    """A function giving the values of ``column`` at row positions (a list of ints) as Python
    objects, equal to ``column.tolist()`` at those rows, without materialising the column.

    Categorical columns are read through their codes; with ``factorize`` (for columns of few
    distinct values, such as paths), any other column too, through codes made once (the
    smallest unsigned dtype: a few bytes a row) when it has at least :data:`FACTORIZE_ROWS`
    rows a value. Arrow-backed string columns are read from
    their offset and data buffers, numpy-backed ones from their array (a view); any other
    column by ``iloc``.

    >>> read = column_reader(pd.Series(["a", "bb", "ccc"]))
    >>> read([2, 0])
    ['ccc', 'a']
    >>> column_reader(pd.Series(["x.md", "y.md"] * 8), factorize=True)([2, 1])
    ['x.md', 'y.md']
    """
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype) or factorize:
        if isinstance(dtype, pd.CategoricalDtype):
            codes, uniques = column.cat.codes.to_numpy(), column.cat.categories
        else:
            codes, uniques = pd.factorize(column)
        # codes when there are no missing values (code -1) and few distinct ones (their list
        # is kept): 8 rows a value or more
        if (not len(codes) or codes.min() >= 0) and len(uniques) * FACTORIZE_ROWS <= max(
                len(codes), 1):
            at = memoryview(codes.astype(np.min_scalar_type(max(len(uniques) - 1, 0))))
            values = uniques.tolist()
            return lambda rows: [values[at[i]] for i in rows]
    if isinstance(dtype, np.dtype) and dtype.kind in "biufO":
        array = column.to_numpy()  # a view of the column's array
        if dtype.kind != "O" and array.flags.c_contiguous:
            view = memoryview(array)  # indexing gives Python ints, floats, bools
            return lambda rows: [view[i] for i in rows]
        return lambda rows: array[rows].tolist()
    if hasattr(column.array, "__arrow_array__"):
        reader = _arrow_string_reader(column.array.__arrow_array__())
        if reader is not None:
            return reader
    return lambda rows: column.iloc[rows].tolist()


def _arrow_string_reader(array: Any) -> Callable[[list[int]], list] | None:
    """Reads rows of a null-free Arrow (large) string ChunkedArray from its buffers (``None``
    for other arrays)."""
    import pyarrow as pa

    if not isinstance(array, pa.ChunkedArray) or array.null_count or not (
            pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        return None
    width = np.int64 if pa.types.is_large_string(array.type) else np.int32
    chunks = [c for c in array.chunks if len(c)]
    offsets, data = [], []
    for c in chunks:
        _, off, buf = c.buffers()
        at = np.frombuffer(off, dtype=width, count=c.offset + len(c) + 1)[c.offset:]
        offsets.append(memoryview(at))  # indexing gives Python ints
        data.append(memoryview(buf) if buf is not None else memoryview(b""))
    if len(chunks) == 1:
        off0, data0 = offsets[0], data[0]
        return lambda rows: [str(data0[off0[i]:off0[i + 1]], "utf-8") for i in rows]
    starts = np.cumsum([0] + [len(c) for c in chunks]).tolist()

    def read(rows: list[int]) -> list:
        out = []
        for i in rows:
            k = bisect.bisect_right(starts, i) - 1
            off, j = offsets[k], i - starts[k]
            out.append(str(data[k][off[j]:off[j + 1]], "utf-8"))
        return out
    return read


class ResultBuilder:
    """Result objects of one corpus' hits.

    Only the hit rows are read from the chunk table (:func:`column_reader`); each chunk's
    fields (path, lines, source, snippet, citation) are kept across calls, for at most
    :data:`ROW_MEMO_SIZE` chunks, so memory does not grow with the corpus.
    """

    def __init__(self, corpus: Corpus):
        self.corpus = corpus
        self._chunks: pd.DataFrame | None = None
        self._readers: dict[str, Callable[[list[int]], list]] = {}
        self._rows: dict[int, tuple[str, int, int, str, str, str]] = {}

    def _fields(self, docnos: list[int]) -> list[tuple[str, int, int, str, str, str]]:
        """``(path, start_line, end_line, source, snippet, citation)`` of each chunk."""
        chunks = self.corpus.chunks
        if self._chunks is not chunks:
            self._readers = {c: column_reader(chunks[c], factorize=c in ("path", "source"))
                             for c in ("path", "start_line", "end_line", "source", "text")}
            self._chunks = chunks
            self._rows = {}
        rows = self._rows
        missing = [d for d in docnos if d not in rows]
        if missing:
            if len(rows) + len(missing) > ROW_MEMO_SIZE:
                rows.clear()
                missing = docnos
            r = self._readers
            for d, path, start, end, source, text in zip(
                    missing, r["path"](missing), r["start_line"](missing),
                    r["end_line"](missing), r["source"](missing), r["text"](missing),
                    strict=True):
                start, end = int(start), int(end)
                rows[d] = (path, start, end, source, snippet(text), citation(path, start, end))
        return [rows[d] for d in docnos]

    def snippet(self, docno: int) -> str:
        """The snippet of chunk ``docno`` (memoised)."""
        return self._fields([int(docno)])[0][4]

    def build(self, hits: QueryHits, mode: str) -> list[dict[str, Any]]:
        """The result objects of one query's hits (in rank order) in ``mode``:
        :func:`result_object` of each, then its ``citation``."""
        _check_mode(mode)
        n = len(hits.docno)
        vs = hits.vector_score if hits.vector_score is not None else np.zeros(n)
        ts = hits.text_score if hits.text_score is not None else np.zeros(n)
        out = []
        for (path, start, end, source, snip, cite), score, v, t in zip(
                self._fields(np.asarray(hits.docno).tolist()), np.asarray(hits.score).tolist(),
                np.asarray(vs).tolist(), np.asarray(ts).tolist(), strict=True):
            item = result_object(path, start, end, score, {"vectorScore": v, "textScore": t},
                                 mode, snip, source)
            item["citation"] = cite
            out.append(item)
        return out

    @staticmethod
    def build_records(records: Iterable[Mapping[str, Any]], mode: str,
                      metadata: Sequence[str] = RECALL_METADATA) -> list[dict[str, Any]]:
        """The result objects of ranked hit records that carry their own fields (the 2026.9
        profile's entries: ``path``, ``startLine``, ``endLine``, ``score``, the components of
        ``mode``, ``snippet``, ``source``), each followed by the ``metadata`` keys the record
        has (not ``None``); no ``citation`` (2026.9.6 prints none).

        >>> ResultBuilder.build_records([{"path": "MEMORY.md", "startLine": 3, "endLine": 3,
        ...     "score": 0.8, "vectorScore": 0.6, "textScore": 0.7, "snippet": "- deploy",
        ...     "source": "memory", "importance": 9, "triggers": None, "id": "x"}],
        ...     "fts-only")  # doctest: +NORMALIZE_WHITESPACE
        [{'path': 'MEMORY.md', 'startLine': 3, 'endLine': 3, 'score': 0.8, 'textScore': 0.7,
          'snippet': '- deploy', 'source': 'memory', 'importance': 9}]
        """
        _check_mode(mode)
        out = []
        for r in records:
            item = result_object(r["path"], r["startLine"], r["endLine"], r["score"], r, mode,
                                 r["snippet"], r["source"])
            item.update((k, r[k]) for k in metadata if r.get(k) is not None)
            out.append(item)
        return out


def hits_to_results(hits: pd.DataFrame, corpus: Corpus, mode: str) -> list[dict[str, Any]]:
    """OpenClaw's result objects for one query's hits frame (:class:`ResultBuilder`)."""
    if not len(hits):
        return []
    return ResultBuilder(corpus).build(QueryHits.from_frame(hits), mode)
