"""OpenClaw's keyword leg on SQLite FTS5 itself (reference §4 step 4, §3.3).

For each query (trimmed as JavaScript's ``trim()`` does) the :class:`FTS5` stage runs what
OpenClaw 2026.7.35's ``searchKeyword`` runs, on the same kind of table:

1. **Plan** (:func:`plan_keyword_search`): the query's maximal ``[\\p{L}\\p{N}_]+`` runs, each
   wrapped in double quotes, joined with `` AND `` (:func:`build_fts_query`). With the
   ``trigram`` tokenizer, runs that contain a CJK, kana or Hangul character and are shorter
   than 3 characters cannot be matched by trigrams: they become ``text LIKE '%run%'``
   filters instead (:func:`escape_like_pattern`), ANDed with the ``MATCH``.
2. **Query**: ``bm25(fts)`` as ``rank``, ``MATCH``, the LIKE filters, only rows whose chunk
   still exists, ``ORDER BY rank ASC LIMIT depth``. ``text_score`` is
   :func:`bm25_rank_to_score` of the rank. A query with only LIKE terms, or a ``MATCH`` that
   SQLite rejects (then every run becomes a LIKE filter), returns rows in table order with
   ``text_score`` 1.
3. **Boost**: every row also gets :func:`~memlab.text.openclaw_keywords.openclaw_boosted_score` (the
   keyword-only ranking score) against the query that found it.
4. **Fallback** (``fallback=True``, ``searchKeywordWithFallback``): when the full query finds
   nothing, each of its :func:`~memlab.text.fallback_terms` (≤ 6 extracted keywords, which
   depend on the tokenizer) is searched the same way and the result sets are merged as
   ``mergeKeywordSearchHits`` does (:func:`~memlab.kernels.keyword.merge_keyword_hits`): one hit
   per chunk, the best ``text_score`` (tie: best boosted score), ordered by boosted score.

Output: the hits contract with ``score`` = ``text_score``, plus ``boosted_score``,
``fallback`` (hit found by the keyword fallback) and ``fts_rank`` (SQLite's raw ``bm25()``,
0 for LIKE rows). ``docno`` indexes ``store.corpus()``, so the FTS5 leg combines with any
other stage built on that corpus.

>>> from memlab.corpus import Corpus
>>> corpus = Corpus.from_texts(["the deploy key is in vault", "rotate the key", "lunch"])
>>> FTS5(corpus)("deploy key")[["docno", "rank"]].values.tolist()
[[0, 1]]
>>> build_fts_query("deploy-key: ROTATE?"), bm25_rank_to_score(-3.0)
('"deploy" AND "key" AND "ROTATE"', 0.75)
"""

from __future__ import annotations

import math
import re
import sqlite3
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from memlab.corpus import Corpus
from memlab.frames import Query, QueryHits, as_queries, build_hits
from memlab.index.store import CHUNKS_TABLE, FTS_TABLE, FTS_TOKENIZERS, IndexStore
from memlab.kernels.keyword import bm25_rank_to_score, merge_keyword_hits
from memlab.pipeline import Stage
from memlab.text.js import JS_WHITESPACE
from memlab.text.keywords import bound_query_terms, fallback_terms
from memlab.text.openclaw_keywords import OpenClawDocs, corpus_docs, openclaw_boosted_scores
from memlab.text.tokenize import openclaw_fts_tokens

__all__ = ["FTS5", "KeywordHits", "bm25_rank_to_score", "build_fts_query", "escape_like_pattern",
           "plan_keyword_search"]

_NO_INTS = np.zeros(0, dtype=np.int64)
_NO_FLOATS = np.zeros(0, dtype=np.float64)


#: OpenClaw's filter: only FTS rows whose chunk still exists.
_LIVE = f" AND EXISTS (SELECT 1 FROM {CHUNKS_TABLE} c WHERE c.id = {FTS_TABLE}.id)"


class KeywordHits(NamedTuple):
    """One query's keyword hits in rank order, with FTS5's raw rank."""

    docno: np.ndarray
    text_score: np.ndarray
    boosted_score: np.ndarray
    fts_rank: np.ndarray
    #: found by the keyword fallback (one search per extracted keyword)
    fallback: bool


# manager-search.ts SHORT_CJK_TRIGRAM_RE: kana, CJK ext A + unified ideographs, Hangul.
_SHORT_CJK_RE = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u3131-\u3163]")


def _tokens(text: str) -> list[str]:
    """``normalizeStringEntries(raw.match(/[\\p{L}\\p{N}_]+/gu))``: case kept; bounded
    (:func:`memlab.text.keywords.bound_query_terms`) so no query costs unbounded work."""
    return bound_query_terms([t for t in (s.strip(JS_WHITESPACE)
                                          for s in openclaw_fts_tokens(text, lower=False)) if t])


def _quote_and(terms: list[str]) -> str | None:
    if not terms:
        return None
    return " AND ".join('"' + t.replace('"', "") + '"' for t in terms)


def build_fts_query(raw: str) -> str | None:
    """OpenClaw's ``buildFtsQuery``: quoted ``[\\p{L}\\p{N}_]+`` runs joined with ``AND``;
    ``None`` when the text has none.

    >>> build_fts_query("接口 超时?"), build_fts_query("?!")
    ('"接口" AND "超时"', None)
    """
    return _quote_and(_tokens(raw or ""))


def escape_like_pattern(term: str) -> str:
    """``escapeLikePattern``: backslash-escape ``\\``, ``%`` and ``_`` (used with
    ``ESCAPE '\\'``).

    >>> escape_like_pattern("50%_off\\\\")
    '50\\\\%\\\\_off\\\\\\\\'
    """
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def plan_keyword_search(query: str, tokenizer: str = "unicode61"
                        ) -> tuple[str | None, list[str]]:
    """``planKeywordSearch``: ``(MATCH query or None, substring terms for LIKE filters)``.

    >>> plan_keyword_search("部署 staging 环境变量", "trigram")
    ('"staging" AND "环境变量"', ['部署'])
    >>> plan_keyword_search("部署 staging", "unicode61")
    ('"部署" AND "staging"', [])
    """
    if tokenizer != "trigram":
        return build_fts_query(query), []
    match_terms: list[str] = []
    substring: list[str] = []
    for token in _tokens(query or ""):
        if _SHORT_CJK_RE.search(token) and len(token) < 3:
            substring.append(token)
        else:
            match_terms.append(token)
    return _quote_and(match_terms), substring


class FTS5(Stage):
    """OpenClaw's FTS5 keyword leg (see the module docstring).

    Parameters
    ----------
    index
        An :class:`~memlab.index.store.IndexStore` (the persistent index), or a
        :class:`~memlab.corpus.Corpus`, indexed into an in-memory FTS5 table on first use
        (docnos are then the corpus' row positions).
    tokenizer
        ``"unicode61"`` or ``"trigram"`` (``store.fts.tokenizer``). ``None``: the index's
        own (``"unicode61"`` for a corpus). It must match the tokenizer of the index's FTS
        table, which is fixed when the table is built.
    depth
        ``LIMIT`` of each FTS query (OpenClaw's ``candidates``, 24 by default; a fallback
        merges up to six such result sets).
    fallback
        Search the extracted keywords one by one when the full query finds nothing.
    sources
        Restrict hits to these sources (``None``: all).
    """

    def __init__(self, index: IndexStore | Corpus, tokenizer: str | None = None,
                 depth: int = 200, fallback: bool = True, sources: tuple[str, ...] | None = None):
        self.index = index
        self.tokenizer = tokenizer
        self.depth = depth
        self.fallback = fallback
        self.sources = sources

    # -- the store -----------------------------------------------------------------------
    def _store(self) -> tuple[IndexStore, str]:
        index = self.index
        if isinstance(index, IndexStore):
            actual = index.fts_tokenizer
            want = self.tokenizer or actual
            if want not in FTS_TOKENIZERS:
                raise ValueError(f"tokenizer must be one of {FTS_TOKENIZERS}, got {want!r}")
            if want != actual:
                raise ValueError(
                    f"the index's FTS table uses the {actual!r} tokenizer but tokenizer="
                    f"{want!r} was asked for; rebuild the index (`memlab index --force` with "
                    f"store.fts.tokenizer: {want!r})")
            return index, want
        if not isinstance(index, Corpus):
            raise TypeError(f"index must be an IndexStore or a Corpus, got {type(index).__name__}")
        want = self.tokenizer or "unicode61"
        if want not in FTS_TOKENIZERS:
            raise ValueError(f"tokenizer must be one of {FTS_TOKENIZERS}, got {want!r}")
        key = (id(index), id(index.chunks), len(index.chunks), want)
        cached = self.__dict__.get("_mem_store")
        if cached is None or cached[0] != key:
            cached = (key, IndexStore.from_corpus(index, fts_tokenizer=want))
            self.__dict__["_mem_store"] = cached
        return cached[1], want

    def __getstate__(self) -> dict[str, Any]:
        state = dict(super().__getstate__())
        state.pop("_mem_store", None)  # rebuilt on first use
        state.pop("_live_check", None)
        state.pop("_openclaw_docs", None)
        return state

    def _all_live(self, store: IndexStore) -> bool:
        """Whether every FTS row has its chunk row, so OpenClaw's ``EXISTS`` filter keeps
        every row and can be left out of the query (same rows, less work). Checked again
        whenever the database may have changed: a write through this connection moves its
        ``total_changes``, a commit by any other connection (another process or store on the
        same file) its ``PRAGMA data_version``; either key costs far less than the two
        look-ups (revision, last FTS rowid) it replaces on every query."""
        with store._lock:
            conn = store.connection
            version = conn.execute("PRAGMA data_version").fetchone()
            key = (conn.total_changes, version)
            cached = self.__dict__.get("_live_check")
            if cached is None or cached[0] is not store or cached[1] is not conn or (
                    cached[2] != key):
                dangling = conn.execute(
                    f"SELECT 1 FROM {FTS_TABLE} WHERE NOT EXISTS (SELECT 1 FROM "
                    f"{CHUNKS_TABLE} c WHERE c.id = {FTS_TABLE}.id) LIMIT 1").fetchone()
                cached = (store, conn, key, dangling is None)
                self.__dict__["_live_check"] = cached
        return cached[3]

    def _doc_table(self) -> OpenClawDocs | None:
        """The boost's per-chunk token table of the corpus this leg searches (``None`` over
        a persistent index, whose texts are read from the FTS rows instead)."""
        return corpus_docs(self.__dict__, self.index) if isinstance(self.index, Corpus) else None

    # -- one FTS query ---------------------------------------------------------------------
    def _search(self, store: IndexStore, tokenizer: str, query: str, limit: int,
                with_text: bool = True, live: bool | None = None
                ) -> list[tuple[str, Any, Any, float, float]]:
        """``searchKeyword``: rows ``(id, path, text, raw rank, text_score)`` in SQL order.

        ``with_text=False`` leaves ``path`` and ``text`` out of the query (``None``): the
        boost is the only reader of either, and the hybrid merge does not use the boost.
        ``live``: :meth:`_all_live` when the caller checked it already (one query's
        keyword searches share one check).
        """
        match, substring = plan_keyword_search(query, tokenizer)
        if match is None and not substring:
            return []
        live = "" if (self._all_live(store) if live is None else live) else _LIVE
        source_sql, source_params = "", []
        if self.sources is not None:
            srcs = list(dict.fromkeys(self.sources))
            source_sql = f" AND source IN ({', '.join('?' * len(srcs))})" if srcs else " AND 0"
            source_params = srcs
        like = "".join(" AND text LIKE ? ESCAPE '\\'" for _ in substring)
        like_params = [f"%{escape_like_pattern(t)}%" for t in substring]
        cols = "id, path, text" if with_text else "id, NULL, NULL"
        conn = store.connection
        used_match = False
        # the SQL text depends only on the shape of the query, so sqlite3's statement cache
        # reuses the prepared statements from one query to the next
        with store._lock:
            if match is not None:
                try:
                    rows = conn.execute(
                        f"SELECT {cols}, bm25({FTS_TABLE}) AS rank FROM {FTS_TABLE} "
                        f"WHERE {FTS_TABLE} MATCH ?{like}{live}{source_sql} "
                        "ORDER BY rank ASC LIMIT ?",
                        [match, *like_params, *source_params, limit]).fetchall()
                    used_match = True
                except sqlite3.OperationalError:
                    terms = list(dict.fromkeys([*_tokens(query), *substring]))
                    clause = "".join(" AND text LIKE ? ESCAPE '\\'" for _ in terms)
                    rows = conn.execute(
                        f"SELECT {cols}, 0 AS rank FROM {FTS_TABLE} "
                        f"WHERE 1=1{clause}{live}{source_sql} LIMIT ?",
                        [*(f"%{escape_like_pattern(t)}%" for t in terms), *source_params,
                         limit]).fetchall()
            else:
                rows = conn.execute(
                    f"SELECT {cols}, 0 AS rank FROM {FTS_TABLE} "
                    f"WHERE 1=1{like}{live}{source_sql} LIMIT ?",
                    [*like_params, *source_params, limit]).fetchall()
        if not used_match:
            return [(cid, path, text, float(rank), 1.0) for cid, path, text, rank in rows]
        if not rows:
            return []
        scores = bm25_rank_to_score(np.array([float(r[3]) for r in rows])).tolist()
        return [(cid, path, text, float(rank), score)
                for (cid, path, text, rank), score in zip(rows, scores, strict=True)]

    def _scored(self, store: IndexStore, tokenizer: str, query: str, limit: int,
                ids: dict[str, int], boost: bool = True, live: bool | None = None
                ) -> list[tuple[int, float, float, float]]:
        """Rows of one search as ``(docno, text_score, boosted, raw rank)`` (boosted NaN
        when ``boost`` is false). Over a corpus the boost reads the corpus' token table
        (:class:`~memlab.text.openclaw_keywords.OpenClawDocs`, built once, the same counts
        as tokenising each hit's text), so the texts are not fetched."""
        docs = self._doc_table() if boost else None
        with_text = boost and docs is None
        rows = [(ids.get(cid), path, text, rank, text_score) for cid, path, text, rank,
                text_score in self._search(store, tokenizer, query, limit, with_text, live)]
        rows = [r for r in rows if r[0] is not None]  # None: written after this snapshot
        if docs is not None:
            boosted = docs.boosted(np.zeros(len(rows), dtype=np.int64),
                                   np.array([r[0] for r in rows], dtype=np.int64), [query],
                                   np.array([r[4] for r in rows], dtype=np.float64)).tolist()
        elif boost:
            boosted = openclaw_boosted_scores(query, [r[2] for r in rows], [r[1] for r in rows],
                                              [r[4] for r in rows]).tolist()
        else:
            boosted = [math.nan] * len(rows)
        return [(docno, text_score, b, rank)
                for (docno, _, _, rank, text_score), b in zip(rows, boosted, strict=True)]

    def transform_query(self, query: Query, hits: QueryHits | None = None) -> QueryHits:
        """One query's hits as arrays (the single-query path): :meth:`transform`'s hits of
        ``query.text``. Without ``query.boost`` OpenClaw's boosted score is skipped
        (``boosted_score`` NaN) unless the keyword fallback runs, whose merge orders by it."""
        found = self._search_one(query.text, boost=query.boost)
        return QueryHits(found.docno, found.text_score, text_score=found.text_score,
                         boosted_score=found.boosted_score,
                         fallback=np.full(len(found.docno), found.fallback))

    def _search_one(self, query: str, boost: bool = True) -> KeywordHits:
        """One query's hits, in rank order, with the raw FTS5 rank (:meth:`transform` runs
        it per query)."""
        depth = self.depth
        if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or depth < 1:
            raise ValueError(f"depth must be a positive integer, got {depth!r}")
        store, tokenizer = self._store()
        ids = store.ids_to_docnos()
        cleaned = str(query).strip(JS_WHITESPACE)
        if not cleaned:
            return KeywordHits(_NO_INTS, _NO_FLOATS, _NO_FLOATS, _NO_FLOATS, False)
        live = self._all_live(store)
        rows = self._scored(store, tokenizer, cleaned, int(depth), ids, boost, live)
        is_fallback = False
        if not rows and self.fallback:
            sets = [self._scored(store, tokenizer, term, int(depth), ids, live=live)
                    for term in fallback_terms(cleaned, tokenizer)]
            flat = [r for s in sets for r in s]
            if flat:
                keep = merge_keyword_hits(np.zeros(len(flat), dtype=np.int64),
                                          np.array([r[0] for r in flat]),
                                          np.array([r[1] for r in flat]),
                                          np.array([r[2] for r in flat]))
                rows = [flat[i] for i in keep]
                is_fallback = True
        if not rows:
            return KeywordHits(_NO_INTS, _NO_FLOATS, _NO_FLOATS, _NO_FLOATS, False)
        cols = list(zip(*rows, strict=True))
        return KeywordHits(np.array(cols[0], dtype=np.int64), np.array(cols[1], dtype=np.float64),
                           np.array(cols[2], dtype=np.float64),
                           np.array(cols[3], dtype=np.float64), is_fallback)

    # -- the stage -------------------------------------------------------------------------
    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        depth = self.depth
        if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or depth < 1:
            raise ValueError(f"depth must be a positive integer, got {depth!r}")
        queries = as_queries(frame)
        store, _ = self._store()
        corpus = store.corpus()
        found = [self._search_one(text) for text in queries["query"]]
        per_query = [(f.docno, f.text_score) for f in found]
        hits = build_hits(queries, corpus.chunks, per_query, score_column="text_score")
        cat = (lambda xs, dt: np.concatenate(xs).astype(dt, copy=False) if xs  # noqa: E731
               else np.zeros(0, dtype=dt))
        hits["boosted_score"] = cat([f.boosted_score for f in found], np.float64)
        hits["fallback"] = cat([np.full(len(f.docno), f.fallback) for f in found], bool)
        hits["fts_rank"] = cat([f.fts_rank for f in found], np.float64)
        return hits
