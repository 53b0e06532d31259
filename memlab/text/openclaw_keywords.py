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
from typing import Any

import numpy as np
import pandas as pd

from memlab.kernels.keyword import boosted_score
from memlab.text.counts import count_matrix
from memlab.text.js import utf16_length
from memlab.text.tokenize import openclaw_fts_tokens

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
    """Per-document inputs of OpenClaw's boost, built once per corpus: a token × doc binary
    matrix of the lower-cased ``[\\p{L}\\p{N}_]+`` tokens and its vocabulary, each doc's
    number of distinct tokens and UTF-16 text length, and path-containment tests."""

    def __init__(self, corpus: Any, key: tuple):
        self.key = key
        texts = corpus.texts
        self.vocabulary: dict[str, int] = {}
        matrix = count_matrix([openclaw_fts_tokens(t) for t in texts], self.vocabulary,
                               grow=True)
        matrix.data[:] = 1.0
        self.n_unique = np.diff(matrix.indptr)
        self.doc_token = matrix  # docs × tokens, sorted indices
        self._keys: np.ndarray | None = None
        self.len16 = np.fromiter(map(utf16_length, texts), dtype=np.float64, count=len(texts))
        lowered = pd.Series([str(p).lower() for p in corpus.chunks["path"]], dtype=object)
        codes, uniques = pd.factorize(lowered)
        self.path_code = np.asarray(codes, dtype=np.int64)
        self.paths = [str(p) for p in uniques]
        self.all_paths = "\x00".join(self.paths)
        self._contains: dict[str, np.ndarray | None] = {}

    def overlap(self, qtokens: list[list[str]], qrow_of: np.ndarray,
                docnos: np.ndarray) -> np.ndarray:
        """Per hit: how many of its query's (unique) tokens its document contains (float)."""
        q = count_matrix(qtokens, self.vocabulary, grow=False)
        n_tok = np.diff(q.indptr)[qrow_of].astype(np.int64)
        if q.nnz == 0 or n_tok.sum() == 0:
            return np.zeros(len(docnos))
        if self._keys is None:
            m = self.doc_token
            self._keys = (np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr))
                          * max(len(self.vocabulary), 1) + m.indices)
        keys = self._keys
        if len(keys) == 0:
            return np.zeros(len(docnos))
        # visit the hits in docno order so the searches walk ``keys`` forwards (cache-friendly)
        by_doc = np.argsort(docnos, kind="stable")
        n_tok = n_tok[by_doc]
        hit_of = np.repeat(by_doc, n_tok)
        starts = q.indptr[qrow_of[by_doc]].astype(np.int64)
        offsets = np.cumsum(n_tok) - n_tok
        pos = np.arange(int(n_tok.sum()), dtype=np.int64) + np.repeat(starts - offsets, n_tok)
        want = docnos[hit_of] * max(len(self.vocabulary), 1) + q.indices[pos]
        at = np.minimum(np.searchsorted(keys, want), len(keys) - 1)
        found = keys[at] == want
        return np.bincount(hit_of, weights=found, minlength=len(docnos)).astype(np.float64)

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


# -- BM25 ----------------------------------------------------------------------------------

    def boosted(self, qrow_of: np.ndarray, docnos: np.ndarray, queries: Sequence[str],
                text_scores: np.ndarray) -> np.ndarray:
        """:func:`openclaw_boosted_score` of every hit ``(queries[qrow_of[i]], docnos[i])``,
        vectorised (bit-identical)."""
        if len(docnos) == 0:
            return np.zeros(0)
        qtokens = [list(dict.fromkeys(openclaw_fts_tokens(q))) for q in queries]
        docnos = np.asarray(docnos, dtype=np.int64)
        qrow_of = np.asarray(qrow_of, dtype=np.int64)
        n_q = np.fromiter(map(len, qtokens), dtype=np.float64, count=len(qtokens))[qrow_of]
        return boosted_score(text_scores, self.overlap(qtokens, qrow_of, docnos), n_q,
                             self.n_unique[docnos], self.path_hits(qtokens, qrow_of, docnos),
                             self.len16[docnos])
