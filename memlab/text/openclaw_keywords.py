"""OpenClaw's keyword rules on text: the token counts behind the keyword-only boost.

The boost formula is :func:`memlab.kernels.keyword.boosted_score`; this module counts what it
reads, with OpenClaw's tokens (lower-cased ``[\\p{L}\\p{N}_]+`` runs,
:func:`memlab.text.openclaw_fts_tokens`) and JavaScript's string lengths:
:func:`openclaw_boosted_score` for one hit (the FTS5 leg), :class:`OpenClawDocs` for many hits
of one corpus at once (the BM25 and TF-IDF legs).

>>> openclaw_boosted_score("deploy key", "Deploy key: in vault", "memory/keys.md", 0.5)
1.0
>>> round(openclaw_boosted_score("vault", "the deploy key is in the vault", "a.md", 0.1), 4)
0.7633
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from memlab.kernels.backend import resolve_backend
from memlab.kernels.keyword import (
    BoostTable,
    boost_hits,
    boosted_score,
    hits_overlap,
    length_boost,
    score_query,
)
from memlab.text.counts import count_matrix
from memlab.text.js import utf16_length
from memlab.text.tokenize import openclaw_fts_tokens

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["OpenClawDocs", "boost_counts", "corpus_docs", "openclaw_boosted_score",
           "openclaw_boosted_scores"]


def boost_counts(qtokens: Sequence[str], text: str, path: str
                 ) -> tuple[int, int, int, int]:
    """What the boost reads of one hit: ``(overlap, distinct text tokens, path hits, UTF-16
    length)`` for the de-duplicated query tokens ``qtokens``."""
    text_tokens = set(openclaw_fts_tokens(text))
    path_lower = path.lower()
    overlap = sum(1 for t in qtokens if t in text_tokens)
    path_hits = sum(1 for t in qtokens if t in path_lower)
    return overlap, len(text_tokens), path_hits, utf16_length(text)


def openclaw_boosted_scores(query: str, texts: Sequence[str], paths: Sequence[str],
                            text_scores: Sequence[float]) -> np.ndarray:
    """:func:`openclaw_boosted_score` of many hits of one query (one kernel call)."""
    qtokens = list(dict.fromkeys(openclaw_fts_tokens(query)))
    scores = np.asarray(text_scores, dtype=np.float64)
    if not qtokens or not len(scores):
        return scores.copy()
    counts = np.array([boost_counts(qtokens, t, p) for t, p in zip(texts, paths, strict=True)],
                      dtype=np.float64).reshape(-1, 4)
    return boosted_score(scores, counts[:, 0], len(qtokens), counts[:, 1], counts[:, 2],
                         counts[:, 3])


def openclaw_boosted_score(query: str, text: str, path: str, text_score: float) -> float:
    """OpenClaw's keyword-only score of one keyword hit (reference §4 step 4;
    :func:`memlab.kernels.keyword.boosted_score`).

    Query tokens are de-duplicated, a path "contains" a token as a substring of the
    lower-cased path, and the text length counts UTF-16 code units. A query without tokens
    returns ``text_score`` unchanged. In OpenClaw's keyword *fallback* the ``query`` given to
    this boost is that keyword, not the user's full query.
    """
    return float(openclaw_boosted_scores(query, [text], [path], [text_score])[0])


def corpus_docs(cache: dict[str, Any], corpus: Any) -> OpenClawDocs:
    """The :class:`OpenClawDocs` of ``corpus``, built once and kept in ``cache`` (a stage's
    ``__dict__``) until the corpus or its chunk table is replaced."""
    key = (id(corpus), id(corpus.chunks), len(corpus.chunks))
    table = cache.get("_openclaw_docs")
    if table is None or table.key != key:
        table = cache["_openclaw_docs"] = OpenClawDocs(corpus, key)
    return table


class OpenClawDocs:
    """Per-document inputs of OpenClaw's boost, built once per corpus: every document's
    distinct lower-cased ``[\\p{L}\\p{N}_]+`` tokens as ids of ``vocabulary`` (ascending, in
    ``table``, a :class:`memlab.kernels.keyword.BoostTable` with each document's length term),
    each doc's number of distinct tokens and UTF-16 text length, and path-containment tests.

    :meth:`boosted_query` boosts one query's hits, :meth:`boosted` many queries' hits (both
    run :func:`memlab.kernels.keyword.boost_hits`), :meth:`score_query` one query's text and
    boosted scores from its raw scores (:func:`memlab.kernels.keyword.score_query`), on
    ``backend`` (``"auto"``: :func:`memlab.kernels.backend.resolve_backend`, the
    ``MEMLAB_KERNEL_BACKEND`` variable, else the process default, else numba when
    importable; the same bits either way)."""

    def __init__(self, corpus: Any, key: tuple):
        self.key = key
        texts = corpus.texts
        self.vocabulary: dict[str, int] = {}
        matrix = count_matrix([openclaw_fts_tokens(t) for t in texts], self.vocabulary,
                               grow=True)  # rows with sorted, distinct token ids
        self.n_unique = np.diff(matrix.indptr)
        self.len16 = np.fromiter(map(utf16_length, texts), dtype=np.float64, count=len(texts))
        self.table = BoostTable(matrix.indptr, matrix.indices, len(self.vocabulary),
                                length_boost(self.len16))
        del matrix
        lowered = pd.Series([str(p).lower() for p in corpus.chunks["path"]], dtype=object)
        codes, uniques = pd.factorize(lowered)
        self.path_code = np.asarray(codes, dtype=np.int64)
        self.paths = [str(p) for p in uniques]
        self.all_paths = "\x00".join(self.paths)
        self._contains: dict[str, np.ndarray | None] = {}
        self._token_id: dict[str, int] = {}
        self._path_token: dict[str, np.ndarray] = {}

    @property
    def doc_token(self) -> sp.csr_matrix:
        """Docs × tokens, 1.0 where a document has a token (CSR, sorted indices), built from
        ``table`` on each read."""
        import scipy.sparse as sp

        t = self.table
        return sp.csr_matrix((np.ones(len(t.tokens)), t.tokens, t.indptr),
                             shape=(len(t.indptr) - 1, len(self.vocabulary)))

    def query_ids(self, qtokens: Sequence[Sequence[str]]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Queries' distinct tokens as kernel input: ``(q_ptr, q_ids, n_tokens)``, query
        ``r``'s known token ids ``q_ids[q_ptr[r]:q_ptr[r + 1]]`` (ascending) and its number
        of tokens (unknown ones included, float)."""
        get = self.vocabulary.get
        ids = [sorted(i for i in map(get, toks) if i is not None) for toks in qtokens]
        lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        q_ptr = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum(lengths, out=q_ptr[1:])
        q_ids = np.fromiter(chain.from_iterable(ids), dtype=np.int64, count=int(q_ptr[-1]))
        n_tokens = np.fromiter(map(len, qtokens), dtype=np.float64, count=len(qtokens))
        return q_ptr, q_ids, n_tokens

    def overlap(self, qtokens: list[list[str]], qrow_of: np.ndarray,
                docnos: np.ndarray) -> np.ndarray:
        """Per hit: how many of its query's (unique) tokens its document contains (float)."""
        q_ptr, q_ids, _ = self.query_ids(qtokens)
        return hits_overlap(self.table, np.asarray(docnos, dtype=np.int64), q_ptr, q_ids,
                            np.asarray(qrow_of, dtype=np.int64)).astype(np.float64)

    def contains(self, token: str) -> np.ndarray | None:
        """Per docno: does the lower-cased path contain ``token``? None when no path does."""
        if token not in self._contains:
            if len(self._contains) > 10_000:
                self._contains.clear()
            if token in self.all_paths:
                per_path = np.fromiter((token in p for p in self.paths), dtype=bool,
                                       count=len(self.paths))
                self._contains[token] = per_path[self.path_code] if per_path.any() else None
            else:
                self._contains[token] = None
        return self._contains[token]

    def path_hits(self, qtokens: list[list[str]], qrow_of: np.ndarray,
                  docnos: np.ndarray) -> np.ndarray:
        """Number of each hit's (unique) query tokens contained in its lower-cased path."""
        out = np.zeros(len(docnos), dtype=np.int64)
        by_token: dict[str, list[int]] = {}
        for row, tokens in enumerate(qtokens):
            for t in tokens:
                by_token.setdefault(t, []).append(row)
        n_rows = len(qtokens)
        for token, rows in by_token.items():
            in_path = self.contains(token)
            if in_path is None:
                continue
            has_token = np.zeros(n_rows, dtype=bool)
            has_token[rows] = True
            out += has_token[qrow_of] & in_path[docnos]
        return out

    def boosted_query(self, query: str, docnos: np.ndarray, text_scores: np.ndarray,
                      backend: str = "auto") -> np.ndarray:
        """:func:`openclaw_boosted_score` of one query's hits (documents ``docnos``)."""
        docnos = np.asarray(docnos, dtype=np.int64)
        if len(docnos) == 0:
            return np.zeros(0)
        ids, n_tokens, path_hits = self.query_tokens(query, docnos)
        if not n_tokens:
            return np.array(text_scores, dtype=np.float64)
        return boost_hits(self.table, text_scores, docnos, np.array([0, len(ids)]), ids,
                          np.array([float(n_tokens)]), path_hits, None,
                          resolve_backend(backend))

    def token_info(self, token: str) -> tuple[int, np.ndarray | None]:
        """What one query token gives the boost: its id in ``vocabulary`` (-1: in no text)
        and :meth:`contains` (both kept per token: the id in ``_token_id``, the paths of a
        token some path contains in ``_path_token``)."""
        token_id = self._token_id.get(token)
        if token_id is None:
            if len(self._token_id) > 10_000:
                self._token_id.clear()
                self._path_token.clear()
            in_path = self.contains(token)
            if in_path is not None:
                self._path_token[token] = in_path
            token_id = self._token_id[token] = self.vocabulary.get(token, -1)
        return token_id, self._path_token.get(token)

    def query_tokens(self, query: str, docnos: np.ndarray
                     ) -> tuple[np.ndarray, int, np.ndarray | None]:
        """What one query gives the boost of its hits ``docnos`` (int64): the ids of its
        distinct tokens that some text holds (int64), its number of distinct tokens, and per
        hit how many of them its path contains (``None``: none does)."""
        tokens = set(openclaw_fts_tokens(query))  # distinct: the counts ignore the order
        try:  # every token seen before: one look-up each
            ids = list(map(self._token_id.__getitem__, tokens))
        except KeyError:
            ids = [self.token_info(t)[0] for t in tokens]
        ids = np.array([i for i in ids if i >= 0], dtype=np.int64)
        path_hits = None
        for token in tokens & self._path_token.keys():  # usually none: a set operation
            in_path = self._path_token[token]
            if path_hits is None:
                path_hits = in_path[docnos].astype(np.int64)
            else:
                path_hits += in_path[docnos]
        return ids, len(tokens), path_hits

    def score_query(self, query: str, docnos: np.ndarray, scores: np.ndarray,
                    relevance: bool = True, backend: str = "auto"
                    ) -> tuple[np.ndarray, np.ndarray]:
        """One query's hits (documents ``docnos``, int64; raw ``scores``, float64): their
        text scores and :func:`openclaw_boosted_score` of those, as
        :func:`memlab.kernels.keyword.score_query` (one compiled call on numba). The text
        score is the BM25 relevance map (``relevance``) or the raw score (TF-IDF)."""
        ids, n_tokens, path_hits = self.query_tokens(query, docnos)
        return score_query(self.table, scores, docnos, ids, float(n_tokens), path_hits,
                           relevance, resolve_backend(backend))

    def boosted(self, qrow_of: np.ndarray, docnos: np.ndarray, queries: Sequence[str],
                text_scores: np.ndarray, backend: str = "auto") -> np.ndarray:
        """:func:`openclaw_boosted_score` of every hit ``(queries[qrow_of[i]], docnos[i])``,
        vectorised (bit-identical)."""
        if len(docnos) == 0:
            return np.zeros(0)
        if len(queries) == 1:  # every hit is of query 0
            return self.boosted_query(queries[0], docnos, text_scores, backend)
        qtokens = [list(dict.fromkeys(openclaw_fts_tokens(q))) for q in queries]
        docnos = np.asarray(docnos, dtype=np.int64)
        qrow_of = np.asarray(qrow_of, dtype=np.int64)
        q_ptr, q_ids, n_tokens = self.query_ids(qtokens)
        return boost_hits(self.table, text_scores, docnos, q_ptr, q_ids, n_tokens,
                          self.path_hits(qtokens, qrow_of, docnos), qrow_of,
                          resolve_backend(backend))

