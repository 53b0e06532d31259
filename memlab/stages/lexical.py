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
import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from memlab.bm25.index import bm25_weights, count_texts
from memlab.bm25.score import BACKENDS, Postings, QueryTerms, query_terms, rank
from memlab.frames import Query, QueryHits, as_queries, build_hits
from memlab.kernels.backend import resolve_backend
from memlab.kernels.keyword import merge_keyword_hits
from memlab.kernels.keyword import relevance_to_score as bm25_rank_to_score
from memlab.kernels.keyword import text_scores as keyword_text_scores
from memlab.pipeline import Stage
from memlab.text.counts import count_matrix
from memlab.text.keywords import FTS_TOKENIZERS, fallback_terms
from memlab.text.openclaw_keywords import OpenClawDocs, corpus_docs, openclaw_boosted_score
from memlab.text.tokenize import Tokenizer

if TYPE_CHECKING:  # annotations only; scipy.sparse and scikit-learn load where they are used
    import pandas as pd
    import scipy.sparse as sp

__all__ = ["BM25", "MATCH_MODES", "TfIdf", "VARIANTS", "bm25_rank_to_score",
           "merge_keyword_hits", "openclaw_boosted_score"]

VARIANTS = ("robertson", "lucene", "atire", "bm25l", "bm25+")
MATCH_MODES = ("any", "all")

# -- shared machinery ----------------------------------------------------------------------


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


_PARAM_GETTERS: dict[type, operator.itemgetter] = {}


def _params_of(obj: Any) -> tuple:
    """``obj.get_params(deep=False)``'s values, read from its instance dict in one call (the
    names are asked once per class; a parameter missing from the dict raises KeyError)."""
    getter = _PARAM_GETTERS.get(type(obj))
    if getter is None:
        names = list(obj.get_params(deep=False))
        getter = _PARAM_GETTERS[type(obj)] = (
            (lambda d: ()) if not names else
            (lambda d, g=operator.itemgetter(*names): (g(d),)) if len(names) == 1 else
            operator.itemgetter(*names))
    return getter(obj.__dict__)


class _LexicalStage(Stage):
    """Tokenised corpus, query matrices, hit selection. Subclasses define the weights."""

    #: are the text scores the BM25 relevance map (True) or the raw score (False, TF-IDF's
    #: cosine)? :func:`memlab.kernels.keyword.text_scores` applies it (the single-query path
    #: in the boost's kernel call)
    _relevance_scores: bool = True

    # subclass hooks ---------------------------------------------------------------------------

    def _validate_weight_params(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _weight_key(self) -> tuple:  # pragma: no cover - abstract
        raise NotImplementedError

    def _build_weights(self) -> None:  # pragma: no cover - abstract
        """Set ``term_doc_weights_`` (and variant-specific fitted attributes)."""
        raise NotImplementedError

    def _query_weights(self, q_counts: sp.csr_matrix) -> tuple[sp.csr_matrix, np.ndarray]:
        """Query-side weights and a per-query constant added to every document's score."""
        return q_counts, np.zeros(q_counts.shape[0])

    def _text_scores(self, scores: np.ndarray) -> np.ndarray:
        """The hits' text scores of their raw scores (see :attr:`_relevance_scores`)."""
        return keyword_text_scores(scores, self._relevance_scores)

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
        _check_choice("backend", self.backend, BACKENDS)

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

    def __setattr__(self, name: str, value: Any) -> None:
        # any assignment may be a parameter's: the next _fit compares its whole state again
        self.__dict__.pop("_fit_quick_cache", None)
        super().__setattr__(name, value)

    def _fit_state(self) -> tuple[tuple, int]:
        """What :meth:`_fit` depends on, cheaply: the parameter objects, the corpus' chunk
        table and the tokenizer's parameter objects (compared by identity: assigning a
        parameter, even an equal one, makes it differ), and the number of chunks."""
        corpus, tok = self.corpus, self.tokenizer
        chunks = getattr(corpus, "chunks", None)
        try:
            own = _params_of(self)
            tok_params = () if tok is None or not hasattr(tok, "get_params") else \
                _params_of(tok)
        except KeyError:  # a parameter that is not an instance attribute: never the same
            return (object(),), -1
        return ((*own, chunks, tok, *tok_params), -1 if chunks is None else len(chunks))

    def _fit_quick_state(self) -> tuple[tuple, int]:
        """The part of :meth:`_fit_state` that can change without an assignment to this
        stage: the corpus' chunk table (identity and length) and the tokenizer's parameter
        objects."""
        tok = self.tokenizer
        chunks = getattr(self.corpus, "chunks", None)
        try:
            tok_params = () if tok is None or not hasattr(tok, "get_params") else \
                _params_of(tok)
        except KeyError:
            return (object(),), -1
        return (chunks, *tok_params), -1 if chunks is None else len(chunks)

    def _fit(self) -> None:
        """Build (or reuse) the tokenised corpus and the weight matrix for the current params.

        Returns at once (the fixed cost of one query at a time) while nothing was assigned to
        the stage since the last complete fit (:meth:`__setattr__` drops the quick check) and
        :meth:`_fit_quick_state` is that fit's; otherwise while :meth:`_fit_state` is."""
        quick = self.__dict__.get("_fit_quick_cache")
        if quick is not None:
            objects, n_chunks = self._fit_quick_state()
            if (n_chunks == quick[1] and len(objects) == len(quick[0])
                    and all(map(operator.is_, objects, quick[0]))):
                return
        self.__dict__.pop("_fit_docs", None)
        objects, n_chunks = state = self._fit_state()
        cached = self.__dict__.get("_fit_state_cache")
        if (cached is not None and cached[1] == n_chunks and len(cached[0]) == len(objects)
                and all(map(operator.is_, objects, cached[0]))):
            self._keep_quick_state(state)
            return
        self.__dict__.pop("_fit_state_cache", None)
        self._validate_common()
        self._validate_weight_params()
        counts_key = self._counts_key()
        if self.__dict__.get("_counts_cache_key") != counts_key:
            self._build_counts()
            self.__dict__["_counts_cache_key"] = counts_key
            self.__dict__.pop("_weight_key_cache", None)
        weight_key = (counts_key, self._weight_key())
        if self.__dict__.get("_weight_key_cache") != weight_key:
            self._build_weights()
            self.__dict__["_weight_key_cache"] = weight_key
        # the kernels' backend (speed only: both give the same bits), resolved once per fit
        # by their rule (MEMLAB_KERNEL_BACKEND, the process default, numba if importable)
        self.__dict__["_backend"] = resolve_backend(self.backend)
        self.__dict__["_fit_state_cache"] = state
        self._keep_quick_state(state)

    def _keep_quick_state(self, state: tuple[tuple, int]) -> None:
        """After a complete fit with ``state``: keep :meth:`_fit_quick_state` (not for a
        state that never compares equal)."""
        quick = self._fit_quick_state()
        if state[1] != -1 or len(state[0]) != 1:
            self.__dict__["_fit_quick_cache"] = quick

    def _build_counts(self) -> None:
        """Tokenise the corpus: ``vocabulary_``, ``doc_term_counts_`` (docs × terms),
        ``doc_len_``, ``doc_freq_``, ``term_doc_presence_``."""
        vocabulary: dict[str, int] = {}
        tokens = self._tokenizer_texts(self.corpus.texts)
        self.doc_term_counts_ = count_matrix(tokens, vocabulary, grow=True)
        self.vocabulary_ = vocabulary
        self.doc_len_ = np.asarray(self.doc_term_counts_.sum(axis=1)).ravel()
        self.doc_freq_ = np.bincount(self.doc_term_counts_.indices,
                                     minlength=len(vocabulary)).astype(np.int64)
        presence = self.doc_term_counts_.T.tocsr()
        presence.data[:] = 1.0
        self.term_doc_presence_ = presence

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
        return count_matrix(tokens, self.vocabulary_, grow=False), n_distinct

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

    def transform_query(self, query: Query, hits: QueryHits | None = None) -> QueryHits:
        """One query's hits as arrays, without building frames (the single-query path of
        :meth:`memlab.pipeline.Sequence.transform_query`): the same hits, scores and order as
        :meth:`transform` of ``query.text``. Without ``query.boost`` (a fusion that does not
        read it) OpenClaw's boosted score is skipped (``boosted_score`` NaN), unless the
        keyword fallback runs, whose merge orders by it.

        >>> from memlab.corpus import Corpus
        >>> stage = BM25(Corpus.from_texts(["deploy key", "rotate the key", "lunch"]))
        >>> stage.transform_query(Query("deploy key")).docno.tolist()
        [0, 1]
        """
        self._fit()
        text = query.text
        docnos, scores = self._rank([text])[0]
        if self.fallback and self.match == "all" and len(docnos) == 0:
            found = self._fallback([text], [0]).get(0)
            if found is not None:
                docnos, scores, boosted = found
                return QueryHits(docnos, scores, text_score=self._text_scores(scores),
                                 boosted_score=boosted,
                                 fallback=np.ones(len(docnos), dtype=bool))
        # text scores (as _text_scores) and the boost in one kernel call per query
        if query.boost:
            text_scores, boosted = self._openclaw_doc_table().score_query(
                text, docnos, scores, self._relevance_scores, self._backend)
        else:
            text_scores = keyword_text_scores(scores, self._relevance_scores,
                                              self._backend)
            boosted = np.full(len(docnos), np.nan)
        return QueryHits(docnos, scores, text_score=text_scores, boosted_score=boosted,
                         fallback=np.zeros(len(docnos), dtype=bool))

    def _rank(self, texts: list[str]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per query text: (docnos, raw scores) of its hits, best first, at most ``depth``,
        from :func:`memlab.bm25.score.rank` on ``backend`` as the last :meth:`_fit` resolved
        it (numpy or numba: the same bits; scores bit-identical to :meth:`score_matrix`, ties
        by lower docno)."""
        if len(texts) == 0:
            return []
        return rank(self._postings(), self._query_terms(texts), self.depth,
                    self.match == "all", self._backend)

    def _query_terms(self, texts: list[str]) -> QueryTerms:
        """The queries as kernel input (the rows of :meth:`_query_counts` and
        :meth:`_query_weights`)."""
        q_counts, n_distinct = self._query_counts(texts)
        q_weights, const = self._query_weights(q_counts)
        return QueryTerms.from_matrix(q_weights, q_counts, const, n_distinct)

    def _postings(self) -> Postings:
        """``term_doc_weights_`` as :class:`memlab.bm25.Postings` (cached per weight matrix;
        the presence matrix only where a stage keeps one)."""
        weights = self.term_doc_weights_
        presence = self.__dict__.get("term_doc_presence_")  # BM25 keeps none (same pattern)
        post = self.__dict__.get("_postings_cache")
        if post is None or post.weights is not weights or post.presence_matrix is not presence:
            post = self.__dict__["_postings_cache"] = Postings(weights, presence)
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

    def _openclaw_doc_table(self) -> OpenClawDocs:
        """The corpus' :class:`OpenClawDocs` (called after :meth:`_fit`). It depends on the
        corpus only, so tokenizer/variant sweeps reuse it; kept for the current fit (``_fit``
        drops it whenever it checks the whole state) so one query skips the key check."""
        docs = self.__dict__.get("_fit_docs")
        if docs is None:
            docs = self.__dict__["_fit_docs"] = corpus_docs(self.__dict__, self.corpus)
        return docs

    def _boosted(self, qrow_of: np.ndarray, docnos: np.ndarray, queries: Sequence[str],
                 text_scores: np.ndarray) -> np.ndarray:
        """:func:`openclaw_boosted_score` of every hit ``(queries[qrow_of[i]], docnos[i])``."""
        return self._openclaw_doc_table().boosted(qrow_of, docnos, queries, text_scores,
                                                  self._backend)


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
    backend : {"auto", "numpy", "numba"}, default "auto"
        The retrieval kernel (:func:`memlab.bm25.rank`): the same scores bit for bit; numba
        (``pip install 'memlab[speed]'``) is faster, ``"auto"`` uses it when importable.

    Query terms count with their multiplicity (as in bm25s): "key key" weighs "key" twice.

    Fitted attributes (built on first use, rebuilt when a parameter, the tokenizer's
    parameters or the corpus object change): ``counts_`` (:class:`memlab.bm25.TermCounts`,
    the lean term-major index), ``vocabulary_``, ``doc_len_``, ``doc_freq_``, ``avgdl_``,
    ``idf_``, ``nonoccurrence_`` (None unless bm25l/bm25+), ``term_doc_weights_`` (CSR,
    terms × docs, sharing the index's postings; for bm25l/bm25+ already minus the
    non-occurrence value, as bm25s stores it). ``doc_term_counts_`` and
    ``term_doc_presence_`` are built from ``counts_`` when read (not kept).
    """

    def __init__(self, corpus, tokenizer=None, variant="lucene", k1=1.5, b=0.75, delta=0.5,
                 depth=200, match="any", fallback=False, fts_tokenizer="unicode61",
                 backend="auto"):
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
        self.backend = backend

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

    def _build_counts(self) -> None:
        counts = count_texts(self.corpus.texts, self._tokenizer_texts)
        self.counts_ = counts
        self.vocabulary_ = counts.vocabulary
        self.doc_len_ = counts.doc_len
        self.doc_freq_ = counts.doc_freq

    def _build_weights(self) -> None:
        weights = bm25_weights(self.counts_, self.variant, float(self.k1), float(self.b),
                               float(self.delta))
        self.avgdl_ = weights.avgdl
        self.idf_ = weights.idf
        self.nonoccurrence_ = weights.nonoccurrence
        self.term_doc_weights_ = weights.matrix

    @property
    def doc_term_counts_(self) -> sp.csr_matrix:
        """Docs × terms counts (float64 CSR), built from ``counts_`` on each read."""
        import scipy.sparse as sp

        return sp.csr_matrix(self.counts_.matrix().T)

    @property
    def term_doc_presence_(self) -> sp.csr_matrix:
        """Terms × docs ones where a term occurs (CSR), built from ``counts_`` on each read."""
        import scipy.sparse as sp

        return sp.csr_matrix((np.ones(self.counts_.nnz), self.counts_.docs,
                              self.counts_.indptr), shape=self.term_doc_weights_.shape)

    def _query_terms(self, texts: list[str]) -> QueryTerms:
        # the rows of the base class's count matrix, without building scipy matrices (the
        # fixed cost of one query at a time); the constant as _query_weights's product
        queries = query_terms(self._tokenizer_texts(texts), self.vocabulary_)
        if self.nonoccurrence_ is not None:
            queries.const = queries.dot(self.nonoccurrence_)
        return queries

    def _query_weights(self, q_counts: sp.csr_matrix) -> tuple[sp.csr_matrix, np.ndarray]:
        if self.nonoccurrence_ is None:
            return q_counts, np.zeros(q_counts.shape[0])
        return q_counts, np.asarray(q_counts @ self.nonoccurrence_).ravel()


# -- TF-IDF --------------------------------------------------------------------------------


class TfIdf(_LexicalStage):
    """TF-IDF cosine retrieval, scikit-learn's ``TfidfTransformer`` weighting.

    ``score`` equals ``TfidfVectorizer(analyzer=tokenizer)`` fitted on the corpus texts, with
    queries transformed and scored by a dot product (cosine for ``norm="l2"``);
    ``text_score`` is that score (already in [0, 1] with l2 norm). Hits, ``depth``,
    ``match``, ``fallback``, ``fts_tokenizer`` and ``backend`` as in :class:`BM25`;
    parameters ``norm``, ``use_idf``, ``smooth_idf`` and ``sublinear_tf`` are passed to
    ``TfidfTransformer``.

    Fitted attributes: as :class:`BM25` (without the BM25 ones), plus ``transformer_`` and
    ``term_doc_weights_`` (CSR, terms × docs, the normalised document vectors).
    """

    _relevance_scores = False  # the text score is the cosine itself

    def __init__(self, corpus, tokenizer=None, norm="l2", use_idf=True, smooth_idf=True,
                 sublinear_tf=False, depth=200, match="any", fallback=False,
                 fts_tokenizer="unicode61", backend="auto"):
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
        self.backend = backend

    def _validate_weight_params(self) -> None:
        _check_choice("norm", self.norm, ("l2", "l1", None))
        _check_bool("use_idf", self.use_idf)
        _check_bool("smooth_idf", self.smooth_idf)
        _check_bool("sublinear_tf", self.sublinear_tf)

    def _weight_key(self) -> tuple:
        return (self.norm, bool(self.use_idf), bool(self.smooth_idf), bool(self.sublinear_tf))

    def _build_weights(self) -> None:
        import scipy.sparse as sp  # here, not at the top: only TF-IDF needs scikit-learn
        from sklearn.feature_extraction.text import TfidfTransformer

        counts = self.doc_term_counts_
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
        import scipy.sparse as sp

        return sp.csr_matrix(self.transformer_.transform(q_counts)), zeros
