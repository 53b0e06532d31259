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
   ``text_score`` 1. On an in-memory table with numba, once SQLite's queries of the table
   have cost about what reading it back costs (or at once: :meth:`FTS5.build_postings`),
   an ASCII query's ``MATCH`` is ranked by a compiled copy of FTS5's own ``bm25()`` over
   postings read from the table (:mod:`memlab.index.fts_postings`,
   :mod:`memlab.kernels.fts5_bm25_numba`): the same ranks bit for bit, the same order,
   in about half of SQLite's time at 5k chunks and under a tenth at 200k
   (``benchmarks/bench_search.py``); anything else runs SQLite's query.
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

import re
import sqlite3
import time
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from memlab.corpus import Corpus
from memlab.frames import Query, QueryHits, as_queries, build_hits
from memlab.index.fts_postings import FTSPostings
from memlab.index.store import CHUNKS_TABLE, FTS_TABLE, FTS_TOKENIZERS, IndexStore
from memlab.kernels.backend import resolve_backend
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


#: estimated CPU seconds to build the postings of the compiled ranking
#: (:class:`~memlab.index.fts_postings.FTSPostings`): a fixed part (the kernels loaded from
#: numba's cache, the vocabulary check) plus a part per table row (13-14 us a row measured
#: for ~60-token chunks at 50k rows, half of building the FTS5 table itself)
POSTINGS_COST_FIXED = 0.05
POSTINGS_COST_PER_ROW = 15e-6
_NO_HITS = KeywordHits(_NO_INTS, _NO_FLOATS, _NO_FLOATS, _NO_FLOATS, False)


class _Rows(NamedTuple):
    """One FTS search's rows in SQL order: ``keys`` are FTS rowids or chunk ids (see
    :meth:`FTS5._table_state`), or, from the compiled ranking, the rows' docnos already
    (``docnos`` True, every one found); ``paths``/``texts`` ``None`` entries unless asked
    for."""

    keys: tuple | np.ndarray
    paths: tuple
    texts: tuple
    rank: np.ndarray
    text_score: np.ndarray
    docnos: bool = False


_NO_ROWS = _Rows((), (), (), _NO_FLOATS, _NO_FLOATS)


def _like_rows(rows: list[tuple]) -> _Rows:
    """Rows of a ``LIKE``-only search: rank 0, ``text_score`` 1."""
    if not rows:
        return _NO_ROWS
    keys, paths, texts, ranks = zip(*rows, strict=True)
    return _Rows(keys, paths, texts, np.array(ranks, dtype=np.float64), np.ones(len(rows)))


class _TableState(NamedTuple):
    """:meth:`FTS5._table_state`: what it was checked for, and what it found."""

    store: IndexStore
    conn: sqlite3.Connection
    total_changes: int
    version: int
    pinned: bool
    live: bool
    rowids: np.ndarray | None


# manager-search.ts SHORT_CJK_TRIGRAM_RE: kana, CJK ext A + unified ideographs, Hangul.
_SHORT_CJK_RE = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u3131-\u3163]")


def _tokens(text: str) -> list[str]:
    """``normalizeStringEntries(raw.match(/[\\p{L}\\p{N}_]+/gu))``: case kept; bounded
    (:func:`memlab.text.keywords.bound_query_terms`) so no query costs unbounded work."""
    return bound_query_terms([t for t in (s.strip(JS_WHITESPACE)
                                          for s in openclaw_fts_tokens(text, lower=False)) if t])


def _docnos_of(rowids: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The docno of each FTS rowid in ``keys``: its position in ``rowids`` (the chunks'
    rowids in docno order, ascending), -1 where it is not there."""
    if not len(rowids):
        return np.full(len(keys), -1, dtype=np.int64)
    pos = np.minimum(np.searchsorted(rowids, keys), len(rowids) - 1)
    return np.where(rowids[pos] == keys, pos, -1)


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
        state.pop("_fts_state", None)
        state.pop("_openclaw_docs", None)
        state.pop("_fts_postings", None)
        state.pop("_fts_sql_spent", None)
        return state

    def _table_state(self, store: IndexStore) -> _TableState:
        """How the FTS table relates to the chunk table (call with ``store.lock`` held).

        * ``live``: every FTS row has its chunk row, so OpenClaw's ``EXISTS`` filter keeps
          every row and can be left out of the query (same rows, less work);
        * ``rowids``: when every FTS row shares its chunk's rowid and id (as memlab writes
          them) and :meth:`IndexStore.corpus` is the index's current state, the chunks'
          rowids in docno order: a query then selects FTS5's ``rowid`` instead of its ``id``
          column, which SQLite would read from the content table for every matching row
          before sorting (~8% of a query's SQL at 5k chunks, 5% at 200k), and maps it to a
          docno here.

        Checked again whenever the database may have changed (a write through this
        connection moves its ``total_changes``, a commit by any other connection, another
        process or store on the same file, its ``PRAGMA data_version``) or the store was
        pinned or unpinned. The full-table check runs only then; every query over an index
        file pays the one ``PRAGMA`` (an in-memory index, none).
        """
        conn = store.connection
        # an in-memory database has no other connection: only this one's writes change it
        version = (0 if store.path is None
                   else conn.execute("PRAGMA data_version").fetchone()[0])
        cached = self.__dict__.get("_fts_state")
        if cached is not None and cached.store is store and cached.conn is conn and (
                cached.total_changes == conn.total_changes and cached.version == version
                and cached.pinned == store.pinned):
            return cached
        misplaced = conn.execute(
            f"SELECT 1 FROM {FTS_TABLE} f WHERE NOT EXISTS (SELECT 1 FROM {CHUNKS_TABLE} c "
            "WHERE c.rowid = f.rowid AND c.id = f.id) LIMIT 1").fetchone()
        live = misplaced is None or conn.execute(
            f"SELECT 1 FROM {FTS_TABLE} WHERE NOT EXISTS (SELECT 1 FROM "
            f"{CHUNKS_TABLE} c WHERE c.id = {FTS_TABLE}.id) LIMIT 1").fetchone() is None
        rowids = store.current_rowids() if misplaced is None else None
        state = _TableState(store, conn, conn.total_changes, version, store.pinned, live,
                            rowids)
        self.__dict__["_fts_state"] = state
        return state

    def _doc_table(self) -> OpenClawDocs | None:
        """The boost's per-chunk token table of the corpus this leg searches (``None`` over
        a persistent index, whose texts are read from the FTS rows instead)."""
        return corpus_docs(self.__dict__, self.index) if isinstance(self.index, Corpus) else None

    # -- one FTS query ---------------------------------------------------------------------
    def _search(self, store: IndexStore, tokenizer: str, query: str, limit: int,
                state: _TableState, with_text: bool = True) -> _Rows:
        """``searchKeyword``'s rows in SQL order (see :class:`_Rows`).

        ``with_text=False`` leaves ``path`` and ``text`` out of the query (``None``): the
        boost is the only reader of either, and the hybrid merge does not use the boost.
        ``state``: :meth:`_table_state`, which one query's keyword searches share.
        """
        compiled = None if with_text else self._postings(store, tokenizer, state, False)
        if compiled is not None:
            postings, docnos = compiled
            found = postings.search(_tokens(query), limit, docnos)
            if found is not None:
                keys, rank, text_score = found
                if not len(keys):
                    return _NO_ROWS
                nones = (None,) * len(keys)
                return _Rows(keys, nones, nones, rank, text_score, docnos is not None)
        match, substring = plan_keyword_search(query, tokenizer)
        if match is None and not substring:
            return _NO_ROWS
        live = "" if state.live else _LIVE
        source_sql, source_params = "", []
        if self.sources is not None:
            srcs = list(dict.fromkeys(self.sources))
            source_sql = f" AND source IN ({', '.join('?' * len(srcs))})" if srcs else " AND 0"
            source_params = srcs
        like = "".join(" AND text LIKE ? ESCAPE '\\'" for _ in substring)
        like_params = [f"%{escape_like_pattern(t)}%" for t in substring]
        key = "rowid" if state.rowids is not None else "id"
        cols = f"{key}, path, text" if with_text else f"{key}, NULL, NULL"
        conn = store.connection
        # the SQL text depends only on the shape of the query, so sqlite3's statement cache
        # reuses the prepared statements from one query to the next
        if match is not None:
            try:
                started = time.perf_counter()
                rows = conn.execute(
                    f"SELECT {cols}, bm25({FTS_TABLE}) AS rank FROM {FTS_TABLE} "
                    f"WHERE {FTS_TABLE} MATCH ?{like}{live}{source_sql} "
                    "ORDER BY rank ASC LIMIT ?",
                    [match, *like_params, *source_params, limit]).fetchall()
                spent = self.__dict__.get("_fts_sql_spent")
                if spent is None or spent[0] is not state:
                    spent = self.__dict__["_fts_sql_spent"] = [state, 0.0]
                spent[1] += time.perf_counter() - started
            except sqlite3.OperationalError:
                terms = list(dict.fromkeys([*_tokens(query), *substring]))
                clause = "".join(" AND text LIKE ? ESCAPE '\\'" for _ in terms)
                rows = conn.execute(
                    f"SELECT {cols}, 0 AS rank FROM {FTS_TABLE} "
                    f"WHERE 1=1{clause}{live}{source_sql} LIMIT ?",
                    [*(f"%{escape_like_pattern(t)}%" for t in terms), *source_params,
                     limit]).fetchall()
                return _like_rows(rows)
        else:
            rows = conn.execute(
                f"SELECT {cols}, 0 AS rank FROM {FTS_TABLE} "
                f"WHERE 1=1{like}{live}{source_sql} LIMIT ?",
                [*like_params, *source_params, limit]).fetchall()
            return _like_rows(rows)
        if not rows:
            return _NO_ROWS
        keys, paths, texts, ranks = zip(*rows, strict=True)
        rank = np.array(ranks, dtype=np.float64)
        return _Rows(keys, paths, texts, rank, bm25_rank_to_score(rank))

    def build_postings(self) -> bool:
        """Build the compiled ranking's postings of the current table now, rather than once
        SQLite's queries have cost as much (see :meth:`_postings`); whether searches use them
        (``False``: they do not apply to this table or query path, SQLite's query runs).
        For a long-lived search service, before its first query.

        >>> from memlab.corpus import Corpus
        >>> FTS5(Corpus.from_texts(["deploy key", "rotate key"])).build_postings()
        True
        """
        store, tokenizer = self._store()
        with store.lock:
            return self._postings(store, tokenizer, self._table_state(store), True) is not None

    def _postings(self, store: IndexStore, tokenizer: str, state: _TableState, now: bool
                  ) -> tuple[FTSPostings, np.ndarray | None] | None:
        """The in-memory table's postings for the compiled ranking
        (:class:`~memlab.index.fts_postings.FTSPostings`) and the docno of each of their
        rows (``None`` unless every row has one), when it applies: an in-memory
        store, the ``unicode61`` tokenizer, no source filter, every row live and mapped by
        rowid, and the kernels on numba (``"auto"``). ``None``: SQLite's query runs.

        Building them costs about half of what building the FTS5 table cost (some dozens to
        hundreds of SQLite queries), so a table searched a few times should not pay for it:
        they are built (``now`` aside) once SQLite's queries of this table state have taken
        the estimated cost of the build (:data:`POSTINGS_COST_FIXED` plus
        :data:`POSTINGS_COST_PER_ROW` per row); whatever the number of searches, the keyword
        leg then spends at most about twice what the better of the two strategies would
        have."""
        if (store.path is not None or tokenizer != "unicode61" or self.sources is not None
                or not state.live or state.rowids is None
                or resolve_backend("auto") != "numba"):
            return None
        cached = self.__dict__.get("_fts_postings")
        if cached is not None and cached[0] is state:
            return cached[1]
        if not now:
            spent = self.__dict__.get("_fts_sql_spent")
            spent_s = spent[1] if spent is not None and spent[0] is state else 0.0
            if spent_s < POSTINGS_COST_FIXED + POSTINGS_COST_PER_ROW * len(state.rowids):
                return None
        postings = FTSPostings.build(state.conn)
        found = None
        if postings is not None:
            docnos = _docnos_of(state.rowids, postings.rowids)
            found = (postings, docnos if len(docnos) and docnos.min() >= 0 else None)
        self.__dict__["_fts_postings"] = (state, found)
        return found

    def _scored(self, store: IndexStore, tokenizer: str, queries: list[str], limit: int,
                ids: dict[str, int], state: _TableState, boost: bool = True) -> KeywordHits:
        """The hits of one search per query of ``queries``, one query's after the other's,
        each in rank order (``fallback`` False; ``boosted_score`` NaN when ``boost`` is
        false). Over a corpus the boost reads the corpus' token table
        (:class:`~memlab.text.openclaw_keywords.OpenClawDocs`, built once, the same counts
        as tokenising each hit's text), in one call for every query's hits, so the texts
        are not fetched."""
        docs = self._doc_table() if boost else None
        with_text = boost and docs is None
        parts = []
        for q, query in enumerate(queries):
            rows = self._search(store, tokenizer, query, limit, state, with_text)
            if len(rows.keys):
                parts.append((q, self._mapped(rows, ids, state)))
        if not parts:
            return _NO_HITS
        cols = [part for _, part in parts]
        if len(cols) == 1:  # one search's hits (the usual case): no copies
            docno, text_score, rank = cols[0][:3]
        else:
            docno, text_score, rank = (np.concatenate([c[i] for c in cols]) for i in range(3))
        if docs is not None:
            if len(parts) == 1:
                boosted = docs.boosted_query(queries[parts[0][0]], docno, text_score)
            else:
                qrow = np.repeat([q for q, _ in parts], [len(c[0]) for c in cols])
                boosted = docs.boosted(qrow, docno, queries, text_score)
        elif boost:
            boosted = np.concatenate([
                np.asarray(openclaw_boosted_scores(queries[q], list(part[4]), list(part[3]),
                                                   part[1].tolist()), dtype=np.float64)
                for q, part in parts])
        else:
            boosted = np.full(len(docno), np.nan)
        return KeywordHits(docno, text_score, boosted, rank, False)

    @staticmethod
    def _mapped(rows: _Rows, ids: dict[str, int], state: _TableState
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list | tuple, list | tuple]:
        """One search's rows as ``(docno, text_score, rank, paths, texts)``, without the rows
        whose chunk is not in the corpus snapshot."""
        if rows.docnos:  # the compiled ranking's rows: docnos already, every one found
            return rows.keys, rows.text_score, rows.rank, rows.paths, rows.texts
        if state.rowids is not None:  # FTS rowids -> docnos (-1: written after the snapshot)
            docno = _docnos_of(state.rowids, np.asarray(rows.keys, dtype=np.int64))
        else:
            docno = np.array([ids.get(k, -1) for k in rows.keys], dtype=np.int64)
        keep = docno >= 0
        if keep.all():
            return docno, rows.text_score, rows.rank, rows.paths, rows.texts
        return (docno[keep], rows.text_score[keep], rows.rank[keep],
                [p for p, k in zip(rows.paths, keep, strict=True) if k],
                [t for t, k in zip(rows.texts, keep, strict=True) if k])

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
        it per query).

        The searches run with the store's lock held, so no write through this process'
        store lands between :meth:`_table_state` and them. Another process may commit to an
        index file meanwhile: when ``PRAGMA data_version`` has moved by the end, the query
        runs again (after two tries, reading chunk ids, which needs no current snapshot).
        """
        depth = self.depth
        if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or depth < 1:
            raise ValueError(f"depth must be a positive integer, got {depth!r}")
        store, tokenizer = self._store()
        cleaned = str(query).strip(JS_WHITESPACE)
        if not cleaned:
            return _NO_HITS
        for attempt in range(3):
            with store.lock:
                state = self._table_state(store)
                if attempt == 2:  # the index keeps changing: ids are safe without a snapshot
                    state = state._replace(rowids=None)
                ids = store.ids_to_docnos() if state.rowids is None else {}
                found = self._keyword_hits(store, tokenizer, cleaned, int(depth), ids, state,
                                           boost)
                if store.path is None or state.rowids is None or (
                        store.connection.execute("PRAGMA data_version").fetchone()[0]
                        == state.version):
                    return found
        raise AssertionError("unreachable")  # pragma: no cover

    def _keyword_hits(self, store: IndexStore, tokenizer: str, query: str, depth: int,
                      ids: dict[str, int], state: _TableState, boost: bool) -> KeywordHits:
        """``searchKeywordWithFallback``: the full query, else the merged searches of its
        extracted keywords (their hits scored in one pass, see :meth:`_scored`)."""
        found = self._scored(store, tokenizer, [query], depth, ids, state, boost)
        if len(found.docno) or not self.fallback:
            return found
        found = self._scored(store, tokenizer, fallback_terms(query, tokenizer), depth, ids,
                             state)
        if not len(found.docno):
            return _NO_HITS
        keep = merge_keyword_hits(np.zeros(len(found.docno), dtype=np.int64), found.docno,
                                  found.text_score, found.boosted_score)
        return KeywordHits(found.docno[keep], found.text_score[keep],
                           found.boosted_score[keep], found.fts_rank[keep], True)

    # -- the stage -------------------------------------------------------------------------
    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        depth = self.depth
        if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or depth < 1:
            raise ValueError(f"depth must be a positive integer, got {depth!r}")
        queries = as_queries(frame)
        store, _ = self._store()
        found = [self._search_one(text) for text in queries["query"]]
        corpus = store.corpus()
        per_query = [(f.docno, f.text_score) for f in found]
        hits = build_hits(queries, corpus.chunks, per_query, score_column="text_score")
        cat = (lambda xs, dt: np.concatenate(xs).astype(dt, copy=False) if xs  # noqa: E731
               else np.zeros(0, dtype=dt))
        hits["boosted_score"] = cat([f.boosted_score for f in found], np.float64)
        hits["fallback"] = cat([np.full(len(f.docno), f.fallback) for f in found], bool)
        hits["fts_rank"] = cat([f.fts_rank for f in found], np.float64)
        return hits
