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

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from memlab.corpus import Corpus
from memlab.frames import QueryHits
from memlab.snippet import citation, snippet

__all__ = ["COMPONENTS", "MODES", "RECALL_METADATA", "ResultBuilder", "hits_to_results",
           "mode_of", "result_object"]

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
    item.update((name, float(components[name])) for name in COMPONENTS[mode])
    item["snippet"] = snippet_text
    item["source"] = source
    return item


class ResultBuilder:
    """Result objects of one corpus' hits (chunk columns and snippets kept across calls)."""

    def __init__(self, corpus: Corpus):
        self.corpus = corpus
        self._chunks: pd.DataFrame | None = None
        self._cols: dict[str, list] = {}
        self._snippets: dict[int, str] = {}

    def _columns(self) -> dict[str, list]:
        chunks = self.corpus.chunks
        if self._chunks is not chunks:
            self._cols = {c: chunks[c].tolist() for c in ("path", "start_line", "end_line",
                                                           "source", "text")}
            self._chunks = chunks
            self._snippets = {}
        return self._cols

    def snippet(self, docno: int) -> str:
        """The snippet of chunk ``docno`` (memoised)."""
        cols = self._columns()
        text = self._snippets.get(docno)
        if text is None:
            if len(self._snippets) > 50_000:
                self._snippets.clear()
            text = self._snippets[docno] = snippet(cols["text"][docno])
        return text

    def build(self, hits: QueryHits, mode: str) -> list[dict[str, Any]]:
        """The result objects of one query's hits (in rank order) in ``mode``."""
        _check_mode(mode)
        cols = self._columns()
        n = len(hits.docno)
        vs = hits.vector_score if hits.vector_score is not None else np.zeros(n)
        ts = hits.text_score if hits.text_score is not None else np.zeros(n)
        out = []
        for d, score, v, t in zip(np.asarray(hits.docno).tolist(),
                                  np.asarray(hits.score).tolist(), np.asarray(vs).tolist(),
                                  np.asarray(ts).tolist(), strict=True):
            path, start, end = cols["path"][d], int(cols["start_line"][d]), int(
                cols["end_line"][d])
            item = result_object(path, start, end, score, {"vectorScore": v, "textScore": t},
                                 mode, self.snippet(d), cols["source"][d])
            item["citation"] = citation(path, start, end)
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
