"""Lexical retrievers: BM25 (the five bm25s variants) and TF-IDF cosine, on sparse matrices.

Both stages tokenise the corpus once (lazily, on first use) into a scipy CSR doc-term count
matrix and precompute a term × doc weight matrix; each query is scored by adding its terms'
postings into a per-document score vector (the same additions, in the same order, as the
sparse product ``q_weights @ term_doc_weights_``, so scores are bit-identical to it) and its
top ``depth`` are selected without sorting every document. They return the hits contract of
:mod:`memlab.frames` with

``score``
    the raw ranker score (BM25: identical to bm25s for the same tokens and parameters;
    TF-IDF: cosine similarity, identical to scikit-learn's ``TfidfVectorizer``).
``text_score``
    BM25: OpenClaw's ``bm25RankToScore`` applied to the score. SQLite FTS5 reports
    ``rank = -r`` for a BM25 relevance ``r``, and OpenClaw maps ``rank < 0`` to
    ``r / (1 + r)``; memlab uses ``r / (1 + r)`` for every ``r >= 0`` (OpenClaw would map a
    rank of exactly 0 to 1, which FTS5 never produces because its IDF is floored at 1e-6; here
    ``r = 0`` only happens with the clamped Robertson / ATIRE IDFs of terms in most documents).
    TF-IDF: the cosine itself (already in [0, 1]).
``boosted_score``
    OpenClaw's keyword-only ranking score, :func:`openclaw_boosted_score` of ``text_score``.
``fallback``
    True for hits found by the keyword fallback (below), False otherwise.

Which documents are hits: a document is a hit only if it contains at least one query term
(``match="any"``) or every distinct query term (``match="all"``, OpenClaw's AND-joined FTS5
query). This matters for ``bm25l`` and ``bm25+``, which give *every* document a positive
constant for the query terms it lacks: those constants are part of ``score`` (as in bm25s),
but documents without any query term are never returned. Query terms that are not in the
corpus vocabulary add nothing to scores; under ``match="all"`` such a term makes the query
match nothing (like FTS5). Empty or punctuation-only queries return no hits.

Ranking: score descending, ties broken by lower ``docno`` (deterministic: equal scores never
depend on the selection algorithm or on which other queries are in the call); at most
``depth`` hits per query.

Keyword fallback (``fallback=True``, OpenClaw 2026.7's ``searchKeywordWithFallback``, reference
§4 step 4): when ``match="all"`` finds nothing for a query, the stage searches each of the
query's :func:`memlab.text.fallback_terms` (at most six extracted keywords) separately, with
``match="all"`` on the keyword's tokens (through ``tokenizer``) and ``depth`` hits each, and
computes each hit's ``boosted_score`` with the *keyword* as the query. The result sets are
merged as ``mergeKeywordSearchHits`` does: one hit per document, the one with the highest
``text_score`` (tie: higher ``boosted_score``; exact tie: the first seen, in keyword order then
rank order), ranked by ``boosted_score`` descending (ties: order of the document's first
appearance). ``score`` stays the kept hit's raw score, and the merged list is not cut, so it
can hold up to six times ``depth`` hits, as in OpenClaw. Queries with hits, and ``match="any"``
stages, are unaffected. (With ``store.fts.tokenizer: "trigram"`` OpenClaw matches a CJK keyword
shorter than three characters with ``LIKE`` and gives it text score 1; these research legs
score every keyword with their own ranker.)

>>> from memlab.corpus import Corpus
>>> corpus = Corpus.from_texts(["the deploy key is in vault", "rotate the key", "lunch"])
>>> hits = BM25(corpus)("deploy key")
>>> hits[["docno", "rank"]].values.tolist()
[[0, 1], [1, 2]]
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from itertools import chain, repeat
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfTransformer

from memlab.frames import as_queries, build_hits
from memlab.pipeline import Stage
from memlab.text.keywords import FTS_TOKENIZERS, fallback_terms
from memlab.text.tokenize import Tokenizer, openclaw_fts_tokens

__all__ = ["BM25", "MATCH_MODES", "TfIdf", "VARIANTS", "bm25_rank_to_score",
           "merge_keyword_hits", "openclaw_boosted_score"]

VARIANTS = ("robertson", "lucene", "atire", "bm25l", "bm25+")
MATCH_MODES = ("any", "all")

# OpenClaw's lexical boost constants (manager-search.ts, scoreFallbackKeywordResult).
_W_OVERLAP = 0.45
_W_DENSITY = 0.2
_PATH_BOOST = 0.18
_LENGTH_DIVISOR = 160
_LENGTH_CAP = 0.18



# -- OpenClaw scores -----------------------------------------------------------------------


def bm25_rank_to_score(r: np.ndarray | float) -> np.ndarray | float:
    """``r / (1 + r)`` for a non-negative BM25 relevance ``r`` (OpenClaw's ``bm25RankToScore``
    of the FTS5 rank ``-r``; see the module docstring for ``r = 0``)."""
    r = np.maximum(np.asarray(r, dtype=np.float64), 0.0)
    out = r / (1.0 + r)
    return float(out) if out.ndim == 0 else out


def _utf16_len(text: str) -> int:
    """JavaScript's ``string.length`` (UTF-16 code units)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def openclaw_boosted_score(query: str, text: str, path: str, text_score: float) -> float:
    """OpenClaw's keyword-only score of one keyword hit (reference §4 step 4).

    ``min(1, text_score + 0.45·uniqOverlap + 0.2·density + 0.18·#(query tokens in the
    lower-cased path) + min(len(text)/160, 0.18))`` where tokens are lower-cased
    ``[\\p{L}\\p{N}_]+`` runs (:func:`memlab.text.openclaw_fts_tokens`), query tokens are
    de-duplicated, uniqOverlap = matched query tokens / query tokens, density = matched query
    tokens / distinct text tokens, a path "contains" a token as a substring, and ``len(text)``
    counts UTF-16 code units as JavaScript does. A query without tokens returns
    ``text_score`` unchanged (no boost at all), as OpenClaw does.

    In OpenClaw's keyword *fallback* (one FTS query per extracted keyword) the ``query``
    given to this boost is that keyword, not the user's full query.

    >>> openclaw_boosted_score("deploy key", "Deploy key: in vault", "memory/keys.md", 0.5)
    1.0
    >>> round(openclaw_boosted_score("vault", "the deploy key is in the vault", "a.md", 0.1), 4)
    0.7633
    """
    qtokens = list(dict.fromkeys(openclaw_fts_tokens(query)))
    if not qtokens:
        return float(text_score)
    text_tokens = set(openclaw_fts_tokens(text))
    return _boost(qtokens, text_tokens, path.lower(), _utf16_len(text), float(text_score))


def _boost(qtokens: Sequence[str], text_tokens: set[str] | frozenset[str], path_lower: str,
           text_len16: int, text_score: float) -> float:
    # Same operation order as the JavaScript, so results agree to the last bit.
    overlap = sum(1 for t in qtokens if t in text_tokens)
    unique_overlap = overlap / max(len(qtokens), 1)
    density = overlap / max(len(text_tokens), 1)
    path_boost = 0.0
    for t in qtokens:
        path_boost += _PATH_BOOST if t in path_lower else 0.0
    length_boost = min(text_len16 / _LENGTH_DIVISOR, _LENGTH_CAP)
    lexical = unique_overlap * _W_OVERLAP + density * _W_DENSITY + path_boost + length_boost
    return min(1.0, text_score + lexical)


# -- shared machinery ----------------------------------------------------------------------


def _count_matrix(token_lists: Sequence[list[str]], vocabulary: dict[str, int],
                  grow: bool) -> sp.csr_matrix:
    """Rows = texts, columns = vocabulary ids, values = term counts (float64).

    With ``grow`` unseen tokens are added to ``vocabulary`` (first-seen order); otherwise
    they are dropped."""
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    flat = list(chain.from_iterable(token_lists))
    if grow:
        for token in dict.fromkeys(flat):
            if token not in vocabulary:
                vocabulary[token] = len(vocabulary)
        ids = np.fromiter(map(vocabulary.__getitem__, flat), dtype=np.int64, count=len(flat))
        rows = np.repeat(np.arange(len(token_lists)), lengths)
    else:
        ids = np.fromiter(map(vocabulary.get, flat, repeat(-1)), dtype=np.int64,
                          count=len(flat))
        rows = np.repeat(np.arange(len(token_lists)), lengths)
        known = ids >= 0
        ids, rows = ids[known], rows[known]
    matrix = sp.csr_matrix((np.ones(len(ids)), (rows, ids)),
                           shape=(len(token_lists), len(vocabulary)))
    matrix.sum_duplicates()
    return matrix


def _check_choice(name: str, value: Any, choices: Sequence[Any]) -> None:
    if not isinstance(value, str | type(None)) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))} (got {value!r})")


def _check_number(name: str, value: Any, low: float, high: float | None = None,
                  low_open: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise TypeError(f"{name} must be a finite real number (got {value!r})")
    too_low = value <= low if low_open else value < low
    if too_low or (high is not None and value > high):
        bound = f"> {low}" if low_open else f">= {low}"
        rng = f"in [{low}, {high}]" if high is not None else bound
        raise ValueError(f"{name} must be {rng} (got {value!r})")


def _check_bool(name: str, value: Any) -> None:
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False (got {value!r})")


class _LexicalStage(Stage):
    """Tokenised corpus, query matrices, hit selection. Subclasses define the weights."""

    # subclass hooks ---------------------------------------------------------------------------

    def _validate_weight_params(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _weight_key(self) -> tuple:  # pragma: no cover - abstract
        raise NotImplementedError

    def _build_weights(self, counts: sp.csr_matrix) -> None:  # pragma: no cover - abstract
        """Set ``term_doc_weights_`` (and variant-specific fitted attributes)."""
        raise NotImplementedError

    def _query_weights(self, q_counts: sp.csr_matrix) -> tuple[sp.csr_matrix, np.ndarray]:
        """Query-side weights and a per-query constant added to every document's score."""
        return q_counts, np.zeros(q_counts.shape[0])

    def _text_scores(self, scores: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    # parameters and lazily fitted state -------------------------------------------------------

    def _validate_common(self) -> None:
        corpus = self.corpus
        # the class check first: ``Corpus.texts`` is a property that builds the text list
        if not hasattr(corpus, "chunks") or not (hasattr(type(corpus), "texts")
                                                 or hasattr(corpus, "texts")):
            raise TypeError(
                f"corpus must be a memlab.corpus.Corpus (got {type(corpus).__name__}); build "
                "one with Corpus.from_texts([...]) or by indexing a workspace"
            )
        tok = self.tokenizer
        if tok is not None and not callable(tok):
            raise TypeError(
                "tokenizer must be None (memlab.text.Tokenizer()) or a callable text -> list "
                f"of str, such as memlab.text.Tokenizer(stemmer='english') (got {tok!r})"
            )
        depth = self.depth
        if depth is not None and (isinstance(depth, bool)
                                  or not isinstance(depth, numbers.Integral) or depth < 1):
            raise ValueError(f"depth must be a positive integer or None for all hits "
                             f"(got {depth!r})")
        _check_choice("match", self.match, MATCH_MODES)
        _check_bool("fallback", self.fallback)
        _check_choice("fts_tokenizer", self.fts_tokenizer, FTS_TOKENIZERS)

    def _tokenizer(self) -> Callable[[str], list[str]]:
        if self.tokenizer is not None:
            return self.tokenizer
        tok = self.__dict__.get("_default_tokenizer")
        if tok is None:
            tok = self.__dict__["_default_tokenizer"] = Tokenizer()
        return tok

    def _tokenizer_key(self) -> Any:
        tok = self._tokenizer()
        if isinstance(tok, Tokenizer) or hasattr(tok, "get_params"):
            try:
                params = tok.get_params(deep=False)
                return (type(tok), repr(sorted(params.items(), key=lambda kv: kv[0])))
            except Exception:  # fall back to identity
                pass
        return ("id", id(tok))

    def _counts_key(self) -> tuple:
        corpus = self.corpus
        return (id(corpus), id(corpus.chunks), len(corpus.chunks), self._tokenizer_key())

    def _fit(self) -> None:
        """Build (or reuse) the tokenised corpus and the weight matrix for the current params."""
        self._validate_common()
        self._validate_weight_params()
        counts_key = self._counts_key()
        if self.__dict__.get("_counts_cache_key") != counts_key:
            vocabulary: dict[str, int] = {}
            tokens = self._tokenizer_texts(self.corpus.texts)
            self.doc_term_counts_ = _count_matrix(tokens, vocabulary, grow=True)
            self.vocabulary_ = vocabulary
            self.doc_len_ = np.asarray(self.doc_term_counts_.sum(axis=1)).ravel()
            self.doc_freq_ = np.bincount(self.doc_term_counts_.indices,
                                         minlength=len(vocabulary)).astype(np.int64)
            presence = self.doc_term_counts_.T.tocsr()
            presence.data[:] = 1.0
            self.term_doc_presence_ = presence
            self.__dict__["_counts_cache_key"] = counts_key
            self.__dict__.pop("_weight_key_cache", None)
        weight_key = (counts_key, self._weight_key())
        if self.__dict__.get("_weight_key_cache") != weight_key:
            self._build_weights(self.doc_term_counts_)
            self.__dict__["_weight_key_cache"] = weight_key

    def _tokenizer_texts(self, texts: list[str]) -> list[list[str]]:
        tok = self._tokenizer()
        many = getattr(tok, "tokenize_many", None)
        return many(texts) if many is not None else [tok(t) for t in texts]

    # scoring -------------------------------------------------------------------------------

    def _query_counts(self, texts: list[str]) -> tuple[sp.csr_matrix, np.ndarray]:
        """Query term counts (known terms only) and each query's number of distinct tokens
        (unknown ones included)."""
        tokens = self._tokenizer_texts(texts)
        n_distinct = np.fromiter((len(set(t)) for t in tokens), dtype=np.int64,
                                 count=len(tokens))
        return _count_matrix(tokens, self.vocabulary_, grow=False), n_distinct

    def score_matrix(self, queries: Any) -> np.ndarray:
        """Dense ``(n_queries, n_docs)`` raw scores (bm25s's ``get_scores`` per query, or the
        TF-IDF cosine), for parity tests and parameter sweeps. Every document gets a score,
        hit or not (``bm25l``/``bm25+`` give non-matching documents their constant)."""
        self._fit()
        frame = as_queries(queries)
        q_counts, _ = self._query_counts(frame["query"].tolist())
        q_weights, const = self._query_weights(q_counts)
        dense = (q_weights @ self.term_doc_weights_).toarray()
        dense += const[:, None]
        return dense

    def transform(self, queries: pd.DataFrame) -> pd.DataFrame:
        """Queries → hits, best first, at most ``depth`` per query (more with the fallback)."""
        self._fit()
        frame = as_queries(queries)
        texts = frame["query"].tolist()
        per_query = self._rank(texts)
        fallback: dict[int, tuple[np.ndarray, ...]] = {}
        if self.fallback and self.match == "all":
            empty = [i for i, (docnos, _) in enumerate(per_query) if len(docnos) == 0]
            if empty:
                fallback = self._fallback(texts, empty)
                for row, (docnos, scores, _) in fallback.items():
                    per_query[row] = (docnos, scores)
        hits = build_hits(frame, self.corpus.chunks, per_query, score_column=None)
        sizes = np.fromiter((len(d) for d, _ in per_query), dtype=np.int64,
                            count=len(per_query))
        scores = (np.concatenate([np.asarray(s, dtype=np.float64) for _, s in per_query])
                  if len(hits) else np.zeros(0))
        docnos = (np.concatenate([np.asarray(d, dtype=np.int64) for d, _ in per_query])
                  if len(hits) else np.zeros(0, dtype=np.int64))
        qrow_of = np.repeat(np.arange(len(per_query)), sizes)
        text_scores = self._text_scores(scores)
        hits["text_score"] = text_scores
        is_fallback = np.repeat(np.isin(np.arange(len(per_query)), list(fallback)), sizes)
        if not fallback:
            hits["boosted_score"] = self._boosted(qrow_of, docnos, texts, text_scores)
        else:
            boosted = np.empty(len(hits))
            direct = ~is_fallback
            boosted[direct] = self._boosted(qrow_of[direct], docnos[direct], texts,
                                            text_scores[direct])
            # build_hits keeps query order, so the fallback rows come in sorted row order
            boosted[is_fallback] = np.concatenate([fallback[row][2] for row in sorted(fallback)])
            hits["boosted_score"] = boosted
        hits["fallback"] = is_fallback
        return hits

    def _rank(self, texts: list[str]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per query text: (docnos, raw scores) of its hits, best first, at most ``depth``.

        One query at a time (as bm25s does): the postings of each query term are added into
        a dense per-document score vector, ``scores[docs] += weights`` (a term's documents
        are distinct, so this is exact; the additions happen in the order of the sparse
        product ``q_weights @ term_doc_weights_``, so scores are bit-identical to
        :meth:`score_matrix`). The top ``depth`` come from a selection over the query's
        candidates only when its postings are few, else from ``np.partition`` over all
        documents plus a threshold; the survivors are sorted by score descending, ties by
        lower docno. Per-query numpy work is O(postings + documents), with no
        (queries × documents) block and no sort of the postings."""
        q_counts, n_distinct = self._query_counts(texts)
        q_weights, const = self._query_weights(q_counts)
        q_weights = sp.csr_matrix(q_weights)
        n_docs = len(self.corpus.chunks)
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0))
        if len(texts) == 0:
            return []
        if n_docs == 0 or q_weights.nnz == 0:
            return [empty] * len(texts)
        post = self._postings()
        shared = post.presence is None and _same_pattern(q_weights, q_counts)
        if shared:
            p_ptr, p_idx = post.indptr, post.indices
            c_ptr, c_idx = q_weights.indptr.tolist(), q_weights.indices.tolist()
        else:  # hits come from the presence matrix and the query's distinct known terms
            p_ptr, p_idx = post.presence_postings()
            qc = sp.csr_matrix(q_counts)
            qc.sum_duplicates()
            c_ptr, c_idx = qc.indptr.tolist(), qc.indices.tolist()
        w_ptr, w_idx, w_data = post.indptr, post.indices, post.data
        minw = post.min_weight
        q_ptr = q_weights.indptr.tolist()
        q_idx = q_weights.indices.tolist()
        q_dat = q_weights.data.tolist()
        const_l = const.tolist()
        need_l = n_distinct.tolist()
        match_all = self.match == "all"
        depth = self.depth
        if depth is not None and depth >= n_docs:
            depth = None
        sparse_below = n_docs // 2
        per_query: list[tuple[np.ndarray, np.ndarray]] = []
        for row in range(len(texts)):
            lo_q, hi_q = q_ptr[row], q_ptr[row + 1]
            hit_terms = c_idx[c_ptr[row]:c_ptr[row + 1]]
            if lo_q == hi_q or (match_all and len(hit_terms) < max(need_l[row], 1)):
                per_query.append(empty)
                continue
            terms, qws = q_idx[lo_q:hi_q], q_dat[lo_q:hi_q]
            scores = np.zeros(n_docs)
            n_post = 0
            positive = const_l[row] == 0.0 and not match_all
            for t, qw in zip(terms, qws, strict=True):
                lo, hi = w_ptr[t], w_ptr[t + 1]
                if lo == hi:
                    continue
                n_post += hi - lo
                docs = w_idx[lo:hi]
                if qw == 1.0:  # x * 1.0 == x exactly, so the product can be skipped
                    scores[docs] += w_data[lo:hi]
                else:
                    scores[docs] += w_data[lo:hi] * qw
                positive = positive and minw[t] * qw > 0.0
            if positive:
                # every matching document scores > 0 and every other exactly 0: the score
                # itself tells hits apart, no presence pass needed
                key, floor = scores, 0.0
            else:
                if match_all:
                    count = np.zeros(n_docs, dtype=np.int32)
                    for t in hit_terms:
                        count[p_idx[p_ptr[t]:p_ptr[t + 1]]] += 1
                    hit = count >= need_l[row]
                else:
                    hit = np.zeros(n_docs, dtype=bool)
                    for t in hit_terms:
                        hit[p_idx[p_ptr[t]:p_ptr[t + 1]]] = True
                if const_l[row] != 0.0:
                    scores += const_l[row]  # const + sum, as the sparse product path adds them
                key, floor = np.where(hit, scores, -np.inf), -np.inf
            if depth is None or n_post <= sparse_below:
                # few postings: select among the (at most n_post) hits only
                cand = np.flatnonzero(key > floor)
                vals = key[cand]
                if depth is not None and len(cand) > depth:
                    kth = np.partition(vals, len(vals) - depth)[len(vals) - depth]
                    keep = vals >= kth
                    cand, vals = cand[keep], vals[keep]
            else:
                # the depth-th largest key over all documents; when it is a hit's, every key
                # >= it is a candidate (boundary ties included, cut by docno below)
                kth = np.partition(key, n_docs - depth)[n_docs - depth]
                cand = np.flatnonzero(key >= kth) if kth > floor else np.flatnonzero(key > floor)
                vals = key[cand]
            # candidates are in docno order, so a stable sort on -score breaks ties by docno
            order = np.argsort(-vals, kind="stable")
            if depth is not None:
                order = order[:depth]
            per_query.append((cand[order], vals[order]))
        return per_query

    def _postings(self) -> _Postings:
        """``term_doc_weights_`` as :class:`_Postings` (cached per weight matrix)."""
        weights, presence = self.term_doc_weights_, self.term_doc_presence_
        post = self.__dict__.get("_postings_cache")
        if post is None or post.weights is not weights or post.presence_matrix is not presence:
            post = self.__dict__["_postings_cache"] = _Postings(weights, presence)
        return post

    def _fallback(self, texts: list[str], rows: list[int]
                  ) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """OpenClaw's keyword fallback for the queries at ``rows`` (which found nothing):
        {row: (docnos, raw scores, boosted scores)} in merged order, for rows with hits.

        All keywords of all these queries are scored in one pass of :meth:`_rank`."""
        term_row: list[int] = []
        terms: list[str] = []
        for row in rows:
            for term in fallback_terms(texts[row], self.fts_tokenizer):
                term_row.append(row)
                terms.append(term)
        if not terms:
            return {}
        ranked = self._rank(terms)
        sizes = np.fromiter((len(d) for d, _ in ranked), dtype=np.int64, count=len(ranked))
        if sizes.sum() == 0:
            return {}
        docnos = np.concatenate([np.asarray(d, dtype=np.int64) for d, _ in ranked])
        scores = np.concatenate([np.asarray(s, dtype=np.float64) for _, s in ranked])
        term_of = np.repeat(np.arange(len(terms)), sizes)
        text_scores = self._text_scores(scores)
        # each keyword search boosts its hits against the keyword, not the full query
        boosted = self._boosted(term_of, docnos, terms, text_scores)
        query_of = np.asarray(term_row, dtype=np.int64)[term_of]
        keep = merge_keyword_hits(query_of, docnos, text_scores, boosted)
        query_of, docnos, scores, boosted = (query_of[keep], docnos[keep], scores[keep],
                                             boosted[keep])
        bounds = np.flatnonzero(np.diff(query_of)) + 1
        return {int(q[0]): (d, s, b) for q, d, s, b in zip(
            np.split(query_of, bounds), np.split(docnos, bounds), np.split(scores, bounds),
            np.split(boosted, bounds), strict=True)}

    # OpenClaw boost ---------------------------------------------------------------------------

    def _openclaw_doc_table(self) -> _OpenClawDocs:
        # depends on the corpus only, so tokenizer/variant sweeps reuse it
        key = (id(self.corpus), id(self.corpus.chunks), len(self.corpus.chunks))
        table = self.__dict__.get("_openclaw_docs")
        if table is None or table.key != key:
            table = self.__dict__["_openclaw_docs"] = _OpenClawDocs(self.corpus, key)
        return table

    def _boosted(self, qrow_of: np.ndarray, docnos: np.ndarray, queries: Sequence[str],
                 text_scores: np.ndarray) -> np.ndarray:
        """:func:`openclaw_boosted_score` of every hit ``(queries[qrow_of[i]], docnos[i])``,
        vectorised (bit-identical)."""
        if len(docnos) == 0:
            return np.zeros(0)
        docs = self._openclaw_doc_table()
        qtokens = [list(dict.fromkeys(openclaw_fts_tokens(q))) for q in queries]
        docnos = np.asarray(docnos, dtype=np.int64)
        qrow_of = np.asarray(qrow_of, dtype=np.int64)
        # matched query tokens per hit
        overlap = docs.overlap(qtokens, qrow_of, docnos)
        n_q = np.fromiter(map(len, qtokens), dtype=np.float64, count=len(qtokens))[qrow_of]
        path_hits = docs.path_hits(qtokens, qrow_of, docnos)
        # JavaScript adds 0.18 once per token; n * 0.18 differs from that only for n >= 6,
        # where the score is capped at 1 either way
        path_boost = path_hits * _PATH_BOOST
        unique_overlap = overlap / np.maximum(n_q, 1.0)
        density = overlap / np.maximum(docs.n_unique[docnos], 1).astype(np.float64)
        length_boost = np.minimum(docs.len16[docnos] / _LENGTH_DIVISOR, _LENGTH_CAP)
        lexical = unique_overlap * _W_OVERLAP + density * _W_DENSITY + path_boost + length_boost
        boosted = np.minimum(1.0, text_scores + lexical)
        return np.where(n_q > 0, boosted, text_scores)


def merge_keyword_hits(group: np.ndarray, docno: np.ndarray, text_score: np.ndarray,
                       boosted_score: np.ndarray) -> np.ndarray:
    """OpenClaw's ``mergeKeywordSearchHits``, vectorised over groups (queries).

    The inputs describe one group's result sets concatenated in search order (keyword by
    keyword, each best first), groups one after the other. Within a group, one entry per
    ``docno`` is kept: the first seen among those with the highest ``text_score``, tie →
    highest ``boosted_score`` (JavaScript replaces the stored entry only when the new one is
    strictly better). The kept entries are ordered by ``boosted_score`` descending; ties keep
    the order in which their ``docno`` was *first* seen (a JavaScript ``Map`` keeps a key's
    first insertion position when its value is replaced, and ``toSorted`` is stable).

    Returns the indices of the kept entries, groups in ascending order, each in merged order.

    >>> merge_keyword_hits(np.array([0, 0, 0]), np.array([5, 7, 5]),
    ...                    np.array([0.2, 0.5, 0.6]), np.array([0.9, 0.9, 0.7]))
    array([1, 2])
    """
    group = np.asarray(group, dtype=np.int64)
    docno = np.asarray(docno, dtype=np.int64)
    text_score = np.asarray(text_score, dtype=np.float64)
    boosted_score = np.asarray(boosted_score, dtype=np.float64)
    n = len(docno)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    seen = np.arange(n)
    order = np.lexsort((seen, -boosted_score, -text_score, docno, group))
    g, d = group[order], docno[order]
    starts = np.flatnonzero(np.r_[True, (g[1:] != g[:-1]) | (d[1:] != d[:-1])])
    kept = order[starts]
    first_seen = np.minimum.reduceat(order, starts)
    return kept[np.lexsort((first_seen, -boosted_score[kept], group[kept]))]


class _OpenClawDocs:
    """Per-document inputs of OpenClaw's boost, built once per corpus: a token × doc binary
    matrix of the lower-cased ``[\\p{L}\\p{N}_]+`` tokens and its vocabulary, each doc's
    number of distinct tokens and UTF-16 text length, and path-containment tests."""

    def __init__(self, corpus: Any, key: tuple):
        self.key = key
        texts = corpus.texts
        self.vocabulary: dict[str, int] = {}
        matrix = _count_matrix([openclaw_fts_tokens(t) for t in texts], self.vocabulary,
                               grow=True)
        matrix.data[:] = 1.0
        self.n_unique = np.diff(matrix.indptr)
        self.doc_token = matrix  # docs × tokens, sorted indices
        self._keys: np.ndarray | None = None
        self.len16 = np.fromiter(map(_utf16_len, texts), dtype=np.float64, count=len(texts))
        lowered = pd.Series([str(p).lower() for p in corpus.chunks["path"]], dtype=object)
        codes, uniques = pd.factorize(lowered)
        self.path_code = np.asarray(codes, dtype=np.int64)
        self.paths = [str(p) for p in uniques]
        self.all_paths = "\x00".join(self.paths)
        self._contains: dict[str, np.ndarray | None] = {}

    def overlap(self, qtokens: list[list[str]], qrow_of: np.ndarray,
                docnos: np.ndarray) -> np.ndarray:
        """Per hit: how many of its query's (unique) tokens its document contains (float)."""
        q = _count_matrix(qtokens, self.vocabulary, grow=False)
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


def _same_pattern(a: sp.csr_matrix, b: sp.csr_matrix) -> bool:
    """Do two CSR matrices store entries at the same positions, in the same order?"""
    return (a.shape == b.shape and a.nnz == b.nnz and np.array_equal(a.indptr, b.indptr)
            and np.array_equal(a.indices, b.indices))


class _Postings:
    """A CSR term × doc matrix as plain per-term postings for the query loop of ``_rank``:
    ``indptr`` as a Python list (cheap scalar slicing), ``indices`` as ``intp`` (numpy's
    fancy indexing casts int32 indices on every use), ``data``, and each term's smallest
    weight (a query whose terms all have positive weights can tell hits by score > 0).
    ``presence`` is None when the presence matrix stores the same pattern as the weights."""

    def __init__(self, weights: sp.csr_matrix, presence: sp.csr_matrix):
        self.weights, self.presence_matrix = weights, presence
        self.indptr = weights.indptr.tolist()
        self.indices = weights.indices.astype(np.intp, copy=False)
        self.data = weights.data
        sizes = np.diff(weights.indptr)
        self.min_weight = np.full(weights.shape[0], np.inf)
        nonempty = sizes > 0
        if weights.nnz:
            self.min_weight[nonempty] = np.minimum.reduceat(weights.data,
                                                            weights.indptr[:-1][nonempty])
        self.min_weight = self.min_weight.tolist()
        self.presence = None if _same_pattern(weights, presence) else presence
        self._presence_postings: tuple[list[int], np.ndarray] | None = None

    def presence_postings(self) -> tuple[list[int], np.ndarray]:
        """(indptr list, intp indices) of the presence matrix."""
        if self.presence is None:
            return self.indptr, self.indices
        if self._presence_postings is None:
            m = self.presence
            self._presence_postings = (m.indptr.tolist(), m.indices.astype(np.intp, copy=False))
        return self._presence_postings


# -- BM25 ----------------------------------------------------------------------------------


def _idf(variant: str, df: np.ndarray, n_docs: int) -> np.ndarray:
    df = df.astype(np.float64)
    n = float(n_docs)
    with np.errstate(divide="ignore"):
        if variant == "robertson":
            return np.log(np.maximum((n - df + 0.5) / (df + 0.5), 1.0))
        if variant == "lucene":
            return np.log(1.0 + (n - df + 0.5) / (df + 0.5))
        if variant == "atire":
            return np.log(n / df)
        if variant == "bm25l":
            return np.log((n + 1.0) / (df + 0.5))
        return np.log((n + 1.0) / df)  # bm25+


def _tfc(variant: str, tf: np.ndarray | float, l_d: np.ndarray | float, l_avg: float,
         k1: float, b: float, delta: float) -> np.ndarray:
    """bm25s's term-frequency components (bm25s/scoring.py ``_score_tfc_*``)."""
    if variant in ("robertson", "lucene"):
        return tf / (k1 * ((1 - b) + b * l_d / l_avg) + tf)
    if variant == "atire":
        return (tf * (k1 + 1)) / (tf + k1 * (1 - b + b * l_d / l_avg))
    if variant == "bm25l":
        c = tf / (1 - b + b * l_d / l_avg)
        return ((k1 + 1) * (c + delta)) / (k1 + c + delta)
    num = (k1 + 1) * tf  # bm25+
    den = k1 * (1 - b + b * l_d / l_avg) + tf
    return (num / den) + delta


class BM25(_LexicalStage):
    """BM25 retrieval with the scoring variants of bm25s (Kamphuis et al., ECIR 2020).

    Parameters
    ----------
    corpus : memlab.corpus.Corpus
    tokenizer : callable, default None
        Text → list of terms, used for documents and queries alike; ``None`` means
        ``memlab.text.Tokenizer()`` (lower-case, no stop words, no stemming, CJK bigrams).
    variant : {"robertson", "lucene", "atire", "bm25l", "bm25+"}, default "lucene"
        IDF and TF formulas as bm25s's ``method``. ``bm25l``/``bm25+`` add, for each query
        term a document lacks, the term's score at tf = 0 and average length (bm25s's
        "non-occurrence" array), so every document gets a positive score.
    k1 : float >= 0, default 1.5
    b : float in [0, 1], default 0.75
    delta : float >= 0, default 0.5
        Only used by ``bm25l`` and ``bm25+``.
    depth : int or None, default 200
        Hits per query (None: all matching documents).
    match : {"any", "all"}, default "any"
        ``"all"``: only documents containing every distinct query token.
    fallback : bool, default False
        With ``match="all"``: OpenClaw 2026.7's keyword fallback for queries that find
        nothing (up to six per-keyword searches, merged; see the module docstring). Hits then
        carry ``fallback=True``. No effect with ``match="any"``.
    fts_tokenizer : {"unicode61", "trigram"}, default "unicode61"
        OpenClaw's ``store.fts.tokenizer``, which decides how the fallback extracts keywords
        from Han text (:func:`memlab.text.extract_keywords`); nothing else depends on it.

    Query terms count with their multiplicity (as in bm25s): "key key" weighs "key" twice.

    Fitted attributes (built on first use, rebuilt when a parameter, the tokenizer's
    parameters or the corpus object change): ``vocabulary_``, ``doc_term_counts_``,
    ``doc_len_``, ``doc_freq_``, ``avgdl_``, ``idf_``, ``nonoccurrence_`` (None unless
    bm25l/bm25+), ``term_doc_presence_``, ``term_doc_weights_`` (CSR, terms × docs; for
    bm25l/bm25+ already minus the non-occurrence value, as bm25s stores it).
    """

    def __init__(self, corpus, tokenizer=None, variant="lucene", k1=1.5, b=0.75, delta=0.5,
                 depth=200, match="any", fallback=False, fts_tokenizer="unicode61"):
        self.corpus = corpus
        self.tokenizer = tokenizer
        self.variant = variant
        self.k1 = k1
        self.b = b
        self.delta = delta
        self.depth = depth
        self.match = match
        self.fallback = fallback
        self.fts_tokenizer = fts_tokenizer

    def _validate_weight_params(self) -> None:
        _check_choice("variant", self.variant, VARIANTS)
        _check_number("k1", self.k1, 0.0)
        _check_number("b", self.b, 0.0, 1.0)
        _check_number("delta", self.delta, 0.0)
        if self.variant == "bm25+" and self.k1 == 0:
            raise ValueError("variant='bm25+' needs k1 > 0 (its score of an absent term is "
                             "0/0 at k1=0); use k1 > 0 or another variant")
        if self.variant == "bm25l" and self.k1 == 0 and self.delta == 0:
            raise ValueError("variant='bm25l' needs k1 > 0 or delta > 0 (its score of an "
                             "absent term is 0/0 otherwise)")

    def _weight_key(self) -> tuple:
        return (self.variant, float(self.k1), float(self.b), float(self.delta))

    def _build_weights(self, counts: sp.csr_matrix) -> None:
        variant, k1, b, delta = self.variant, float(self.k1), float(self.b), float(self.delta)
        n_docs = counts.shape[0]
        doc_len = self.doc_len_
        avgdl = float(doc_len.mean()) if n_docs else 0.0
        self.avgdl_ = avgdl
        idf = _idf(variant, self.doc_freq_, n_docs) if len(self.doc_freq_) else np.zeros(0)
        self.idf_ = idf
        weights = counts.copy()
        if weights.nnz:
            l_d = np.repeat(doc_len, np.diff(weights.indptr))
            tfc = _tfc(variant, weights.data, l_d, avgdl, k1, b, delta)
            weights.data = idf[weights.indices] * tfc
        if variant in ("bm25l", "bm25+"):
            # bm25s's non-occurrence array: a term's score at tf = 0 and l_d = avgdl
            nonocc = idf * _tfc(variant, 0.0, avgdl, avgdl, k1, b, delta) if len(idf) else idf
            if weights.nnz:
                weights.data -= nonocc[weights.indices]
            self.nonoccurrence_ = nonocc
        else:
            self.nonoccurrence_ = None
        self.term_doc_weights_ = weights.T.tocsr()

    def _query_weights(self, q_counts: sp.csr_matrix) -> tuple[sp.csr_matrix, np.ndarray]:
        if self.nonoccurrence_ is None:
            return q_counts, np.zeros(q_counts.shape[0])
        return q_counts, np.asarray(q_counts @ self.nonoccurrence_).ravel()

    def _text_scores(self, scores: np.ndarray) -> np.ndarray:
        return bm25_rank_to_score(scores)


# -- TF-IDF --------------------------------------------------------------------------------


class TfIdf(_LexicalStage):
    """TF-IDF cosine retrieval, scikit-learn's ``TfidfTransformer`` weighting.

    ``score`` equals ``TfidfVectorizer(analyzer=tokenizer)`` fitted on the corpus texts, with
    queries transformed and scored by a dot product (cosine for ``norm="l2"``);
    ``text_score`` is that score (already in [0, 1] with l2 norm). Hits, ``depth``,
    ``match``, ``fallback`` and ``fts_tokenizer`` as in :class:`BM25`; parameters ``norm``,
    ``use_idf``, ``smooth_idf`` and ``sublinear_tf`` are passed to ``TfidfTransformer``.

    Fitted attributes: as :class:`BM25` (without the BM25 ones), plus ``transformer_`` and
    ``term_doc_weights_`` (CSR, terms × docs, the normalised document vectors).
    """

    def __init__(self, corpus, tokenizer=None, norm="l2", use_idf=True, smooth_idf=True,
                 sublinear_tf=False, depth=200, match="any", fallback=False,
                 fts_tokenizer="unicode61"):
        self.corpus = corpus
        self.tokenizer = tokenizer
        self.norm = norm
        self.use_idf = use_idf
        self.smooth_idf = smooth_idf
        self.sublinear_tf = sublinear_tf
        self.depth = depth
        self.match = match
        self.fallback = fallback
        self.fts_tokenizer = fts_tokenizer

    def _validate_weight_params(self) -> None:
        _check_choice("norm", self.norm, ("l2", "l1", None))
        _check_bool("use_idf", self.use_idf)
        _check_bool("smooth_idf", self.smooth_idf)
        _check_bool("sublinear_tf", self.sublinear_tf)

    def _weight_key(self) -> tuple:
        return (self.norm, bool(self.use_idf), bool(self.smooth_idf), bool(self.sublinear_tf))

    def _build_weights(self, counts: sp.csr_matrix) -> None:
        transformer = TfidfTransformer(norm=self.norm, use_idf=self.use_idf,
                                       smooth_idf=self.smooth_idf,
                                       sublinear_tf=self.sublinear_tf)
        if counts.shape[0] and counts.shape[1]:
            docs = transformer.fit_transform(counts)
            self.transformer_ = transformer
        else:  # nothing to fit on: no term can ever match
            docs = sp.csr_matrix(counts.shape)
            self.transformer_ = None
        self.term_doc_weights_ = sp.csr_matrix(docs.T)

    def _query_weights(self, q_counts: sp.csr_matrix) -> tuple[sp.csr_matrix, np.ndarray]:
        zeros = np.zeros(q_counts.shape[0])
        if self.transformer_ is None:
            return q_counts, zeros
        return sp.csr_matrix(self.transformer_.transform(q_counts)), zeros

    def _text_scores(self, scores: np.ndarray) -> np.ndarray:
        return scores.copy()
