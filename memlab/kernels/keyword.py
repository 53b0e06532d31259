"""The keyword leg's OpenClaw arithmetic (``manager-search.ts`` of OpenClaw 2026.7.35).

* :func:`rank_to_score`: ``bm25RankToScore`` of an FTS5 ``bm25()`` rank (negative =
  better): ``r / (1 + r)`` for ``rank = -r < 0``, ``1 / (1 + rank)`` otherwise, 0.001 for a
  missing rank; :func:`relevance_score` is the same map for a BM25 relevance ``r >= 0``
  (rank ``-r``; 0 for ``r = 0``, which FTS5 never produces: its IDF is floored at 1e-6).
  One value each, the formula's one body (compiled by numba as it is); over arrays
  :func:`bm25_rank_to_score` and :func:`relevance_to_score`.
* :func:`boosted_score`: ``scoreFallbackKeywordResult``, the keyword-only ranking score

      min(1, text_score + 0.45 * overlap / |query tokens| + 0.2 * overlap / |text tokens|
             + 0.18 * #(query tokens in the lower-cased path) + min(len16(text) / 160, 0.18))

  (a query without tokens keeps ``text_score``). Token counting lives in
  :mod:`memlab.text.openclaw_keywords`; this is the formula on the counts.
  :func:`length_boost` is its last term, :func:`boosted_from_counts` the formula with that
  term given (per document, computed once per corpus).
* :func:`boost_hits`: the same formula for many hits at once, counting each hit's overlap
  from a :class:`BoostTable` (every document's distinct token ids): on ``backend="numpy"``
  (searches of ``document * vocabulary + token`` keys) or ``"numba"``
  (:mod:`memlab.kernels.keyword_numba`, optional, the same bits).
* :func:`score_query`: one query's text scores (:func:`text_scores`: the relevance map, or
  the raw score for TF-IDF) and boosted scores, one compiled call on numba.
* :func:`merge_keyword_hits`: ``mergeKeywordSearchHits``, the keyword fallback's merge.

>>> import numpy as np
>>> bm25_rank_to_score(np.array([-3.0, 0.0, np.nan])).tolist()
[0.75, 1.0, 0.001]
>>> float(relevance_to_score(3.0))
0.75
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from memlab.kernels.backend import compiled

# OpenClaw's lexical boost constants (manager-search.ts, scoreFallbackKeywordResult).
W_OVERLAP = 0.45
W_DENSITY = 0.2
PATH_BOOST = 0.18
LENGTH_DIVISOR = 160
LENGTH_CAP = 0.18
# a token's postings (int32 document ids) cost 32 bits per document holding it, a bitset one
# bit per document: BoostTable.bitsets keeps one for tokens in more than 1 / 32 of them
BITSET_RATIO = 32


def rank_to_score(rank: float) -> float:
    """OpenClaw's ``bm25RankToScore`` of one FTS5 rank, the one body of the formula (plain
    Python floats; :mod:`memlab.kernels.keyword_numba` compiles this same function)."""
    if not math.isfinite(rank):
        return 1.0 / 1e3
    if rank < 0.0:
        relevance = -rank
        return relevance / (1.0 + relevance)
    return 1.0 / (1.0 + rank)


def relevance_score(relevance: float) -> float:
    """:func:`rank_to_score` of the rank ``-r`` of one BM25 relevance ``r`` (0 for r <= 0
    and NaN)."""
    return rank_to_score(-relevance) if relevance > 0.0 else 0.0


def bm25_rank_to_score(rank: Any) -> Any:
    """OpenClaw's ``bm25RankToScore`` of FTS5 ranks (array in, array out; scalar, float):
    :func:`rank_to_score` of each."""
    return _each(rank_to_score, rank)


def relevance_to_score(relevance: Any) -> Any:
    """:func:`relevance_score` of each BM25 relevance (array in, array out; scalar, float)."""
    return _each(relevance_score, relevance)


def _each(fn: Any, values: Any) -> Any:
    """``fn`` of each float64 value (a float for a scalar): a list's loop, cheaper than the
    half-dozen masked numpy calls of the formula on one query's few dozen hits."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 0:
        return fn(float(values))
    return np.array([fn(v) for v in values.ravel().tolist()],
                    dtype=np.float64).reshape(values.shape)


def length_boost(text_len16: Any) -> np.ndarray:
    """The boost's length term ``min(len16(text) / 160, 0.18)`` of UTF-16 text lengths."""
    return np.minimum(np.asarray(text_len16, dtype=np.float64) / LENGTH_DIVISOR, LENGTH_CAP)


def boosted_score(text_score: Any, overlap: Any, n_query_tokens: Any, n_text_tokens: Any,
                  path_hits: Any, text_len16: Any) -> np.ndarray:
    """The keyword-only score of keyword hits from their token counts (module docstring).

    ``overlap``: the hit's query tokens (de-duplicated) that its text contains;
    ``path_hits``: those contained in its lower-cased path; ``text_len16``: the text's
    UTF-16 length. JavaScript adds 0.18 once per path token; ``n * 0.18`` equals that sum
    for ``n < 6`` and above it the score is capped at 1 either way.
    """
    return boosted_from_counts(text_score, overlap, n_query_tokens, n_text_tokens, path_hits,
                               length_boost(text_len16))


def boosted_from_counts(text_score: Any, overlap: Any, n_query_tokens: Any,
                        n_text_tokens: Any, path_hits: Any, length_boosts: Any) -> np.ndarray:
    """:func:`boosted_score` with its length term already computed (:func:`length_boost`)."""
    text_score = np.asarray(text_score, dtype=np.float64)
    n_q = np.asarray(n_query_tokens, dtype=np.float64)
    boosted = boosted_value(text_score, np.asarray(overlap, dtype=np.float64), n_q,
                            np.asarray(n_text_tokens, dtype=np.float64),
                            np.asarray(path_hits, dtype=np.float64),
                            np.asarray(length_boosts, dtype=np.float64), W_OVERLAP, W_DENSITY,
                            PATH_BOOST)
    if n_q.ndim == 0 and n_q > 0:  # one query with tokens: no per-hit choice
        return boosted
    return np.where(n_q > 0, boosted, text_score)


def boosted_value(text_score: Any, overlap: Any, n_query_tokens: Any, n_text_tokens: Any,
                  path_hits: Any, length_boost: Any, w_overlap: float, w_density: float,
                  path_boost: float) -> Any:
    """``scoreFallbackKeywordResult`` of a query with tokens, the one body: arrays (numpy) or
    one hit's floats (numba compiles it as it is, :mod:`memlab.kernels.keyword_numba`), the
    same float64 operations in the same order (numba emits no fused multiply-add and does
    not reassociate)."""
    lexical = (overlap / np.maximum(n_query_tokens, 1.0) * w_overlap
               + overlap / np.maximum(n_text_tokens, 1.0) * w_density
               + path_hits * path_boost + length_boost)
    return np.minimum(1.0, text_score + lexical)


class BoostTable:
    """What :func:`boost_hits` reads of each document: its distinct token ids, ascending
    (the CSR rows ``tokens[indptr[d]:indptr[d + 1]]``), their number and its
    :func:`length_boost`. Built once per corpus (:class:`memlab.text.OpenClawDocs`).

    ``n_vocab`` bounds the token ids. The searchable keys of the numpy backend, the
    token-major postings, the frequent tokens' bitsets and the scratch arrays of the numba one
    are made on first use and kept.
    """

    def __init__(self, indptr: np.ndarray, tokens: np.ndarray, n_vocab: int,
                 length_boosts: np.ndarray):
        self.indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        self.tokens = np.ascontiguousarray(tokens, dtype=np.int32)
        self.n_vocab = int(n_vocab)
        self.length_boosts = np.ascontiguousarray(length_boosts, dtype=np.float64)
        self.n_unique = np.diff(self.indptr).astype(np.float64)
        # numba: zeroed scratch arrays, one pair per concurrent call
        self.pool: list[tuple[np.ndarray, np.ndarray]] = []
        self._keys: np.ndarray | None = None
        self._postings: tuple[np.ndarray, np.ndarray] | None = None
        self._bitsets: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def postings(self) -> tuple[np.ndarray, np.ndarray]:
        """The same table token-major: ``(t_ptr, t_docs)``, token ``t``'s documents
        ``t_docs[t_ptr[t]:t_ptr[t + 1]]`` ascending (built on first read, kept)."""
        if self._postings is None:
            order = np.argsort(self.tokens, kind="stable")  # documents stay ascending
            docs = np.repeat(np.arange(len(self.indptr) - 1, dtype=np.int32),
                             np.diff(self.indptr))
            t_ptr = np.zeros(self.n_vocab + 1, dtype=np.int64)
            np.cumsum(np.bincount(self.tokens, minlength=self.n_vocab), out=t_ptr[1:])
            self._postings = (t_ptr, np.ascontiguousarray(docs[order]))
        return self._postings

    @property
    def bitsets(self) -> tuple[np.ndarray, np.ndarray]:
        """The frequent tokens as bitsets over the documents: ``(bit_row, bits)``, token
        ``t``'s documents ``d`` the set bits ``bits[bit_row[t], d >> 3] >> (d & 7) & 1``
        (uint8 rows, little bit order), ``bit_row[t] = -1`` for a token without a row. A
        token gets one when its postings take more bytes than a bitset (``BITSET_RATIO *
        document frequency > documents``), so the rows take at most the bytes of
        :attr:`postings`' documents (built on first read, kept)."""
        if self._bitsets is None:
            t_ptr, t_docs = self.postings
            n_docs = len(self.indptr) - 1
            big = np.flatnonzero(np.diff(t_ptr) * BITSET_RATIO > n_docs)
            bit_row = np.full(self.n_vocab, -1, dtype=np.int64)
            bit_row[big] = np.arange(len(big))
            bits = np.zeros((len(big), (n_docs + 7) // 8), dtype=np.uint8)
            row = np.zeros(n_docs, dtype=bool)
            for r, t in enumerate(big.tolist()):
                docs = t_docs[t_ptr[t]:t_ptr[t + 1]]
                row[docs] = True
                bits[r] = np.packbits(row, bitorder="little")
                row[docs] = False
            self._bitsets = (bit_row, bits)
        return self._bitsets

    @functools.cached_property
    def arrays(self) -> tuple[np.ndarray, ...]:
        """What the compiled backend reads, in its argument order: ``(indptr, tokens,
        *postings, *bitsets, length_boosts)`` (made once: the single-query path reads it per
        call)."""
        return (self.indptr, self.tokens, *self.postings, *self.bitsets, self.length_boosts)

    @property
    def keys(self) -> np.ndarray:
        """``document * max(n_vocab, 1) + token`` of every (document, token), ascending."""
        if self._keys is None:
            docs = np.repeat(np.arange(len(self.indptr) - 1, dtype=np.int64),
                             np.diff(self.indptr))
            self._keys = docs * max(self.n_vocab, 1) + self.tokens
        return self._keys


def hits_overlap(table: BoostTable, docnos: np.ndarray, q_ptr: np.ndarray, q_ids: np.ndarray,
                 qrow_of: np.ndarray | None = None) -> np.ndarray:
    """Per hit: how many of its query's token ids (``q_ids[q_ptr[r]:q_ptr[r + 1]]``, distinct,
    for the hit's query ``r = qrow_of[i]``; one query when ``qrow_of`` is None) its document
    ``docnos[i]`` holds (int64)."""
    keys = table.keys
    width = max(table.n_vocab, 1)
    docnos = np.asarray(docnos, dtype=np.int64)
    if len(keys) == 0 or len(q_ids) == 0 or len(docnos) == 0:
        return np.zeros(len(docnos), dtype=np.int64)
    # hits in docno order, ids ascending: the needles ascend, so each search starts at the last
    by_doc = np.argsort(docnos, kind="stable")
    if qrow_of is None:
        ids = np.sort(q_ids)
        want = np.add.outer(docnos[by_doc] * width, ids).ravel()
        at = keys.searchsorted(want)
        np.minimum(at, len(keys) - 1, out=at)
        found = (keys[at] == want).reshape(len(docnos), len(ids)).sum(axis=1)
        out = np.empty(len(docnos), dtype=np.int64)
        out[by_doc] = found
        return out
    qrow_of = np.asarray(qrow_of, dtype=np.int64)[by_doc]
    n_tok = (q_ptr[qrow_of + 1] - q_ptr[qrow_of]).astype(np.int64)
    hit_of = np.repeat(by_doc, n_tok)
    offsets = np.cumsum(n_tok) - n_tok
    pos = (np.arange(int(n_tok.sum()), dtype=np.int64)
           + np.repeat(q_ptr[qrow_of].astype(np.int64) - offsets, n_tok))
    want = docnos[hit_of] * width + q_ids[pos]
    at = keys.searchsorted(want)
    np.minimum(at, len(keys) - 1, out=at)
    return np.bincount(hit_of, weights=keys[at] == want,
                       minlength=len(docnos)).astype(np.int64)


def boost_hits(table: BoostTable, text_score: np.ndarray, docnos: np.ndarray,
               q_ptr: np.ndarray, q_ids: np.ndarray, n_query_tokens: np.ndarray,
               path_hits: np.ndarray | None = None, qrow_of: np.ndarray | None = None,
               backend: str = "numpy") -> np.ndarray:
    """:func:`boosted_score` of hits ``(query r = qrow_of[i], document docnos[i])``, the
    overlap counted from ``table`` (:func:`hits_overlap`); one query when ``qrow_of`` is None.

    Per query ``r``: its distinct known token ids ``q_ids[q_ptr[r]:q_ptr[r + 1]]`` and its
    number of distinct tokens ``n_query_tokens[r]`` (unknown ones included); per hit: its
    text score and ``path_hits`` (None: 0). ``backend``: ``"numpy"``, or ``"numba"``
    (:func:`memlab.kernels.keyword_numba.boost_hits_numba`, the same bits).
    """
    text_score = np.asarray(text_score, dtype=np.float64)
    docnos = np.asarray(docnos, dtype=np.int64)
    q_ptr = np.asarray(q_ptr, dtype=np.int64)
    q_ids = np.asarray(q_ids, dtype=np.int64)
    n_query_tokens = np.asarray(n_query_tokens, dtype=np.float64)
    if backend == "numba":
        return compiled("memlab.kernels.keyword_numba").boost_hits_numba(
            table, text_score, docnos, q_ptr, q_ids, n_query_tokens,
            None if path_hits is None else np.asarray(path_hits, dtype=np.int64),
            None if qrow_of is None else np.asarray(qrow_of, dtype=np.int64),
            (W_OVERLAP, W_DENSITY, PATH_BOOST))
    if backend != "numpy":
        raise ValueError(f"backend must be 'numpy' or 'numba' (got {backend!r})")
    if len(docnos) == 0:
        return np.zeros(0)
    overlap = hits_overlap(table, docnos, q_ptr, q_ids, qrow_of)
    n_q = n_query_tokens[0] if qrow_of is None else n_query_tokens[qrow_of]
    return boosted_from_counts(text_score, overlap, n_q, table.n_unique[docnos],
                               0.0 if path_hits is None else path_hits,
                               table.length_boosts[docnos])


def text_scores(scores: np.ndarray, relevance: bool = True,
                backend: str = "numpy") -> np.ndarray:
    """A keyword leg's text scores of its hits' raw scores (float64, 1-D):
    :func:`relevance_to_score` (``relevance``, BM25) or a copy (TF-IDF's cosine), on
    ``backend`` (``"numpy"`` or ``"numba"``: the same bits)."""
    if backend == "numba":
        return compiled("memlab.kernels.keyword_numba").text_scores_numba(
            np.asarray(scores, dtype=np.float64), bool(relevance))
    if backend != "numpy":
        raise ValueError(f"backend must be 'numpy' or 'numba' (got {backend!r})")
    scores = np.asarray(scores, dtype=np.float64)
    return np.asarray(relevance_to_score(scores), dtype=np.float64) if relevance \
        else scores.copy()


def score_query(table: BoostTable, scores: np.ndarray, docnos: np.ndarray, q_ids: np.ndarray,
                n_query_tokens: float, path_hits: np.ndarray | None = None,
                relevance: bool = True, backend: str = "numpy"
                ) -> tuple[np.ndarray, np.ndarray]:
    """One query's hits (documents ``docnos``, raw ``scores``): ``(text scores, boosted
    scores)``, :func:`text_scores` then :func:`boost_hits` of them, in one compiled call on
    ``backend="numba"`` (the same bits as ``"numpy"``).

    The single-query path, so nothing is converted on numba: ``scores`` float64, ``docnos``,
    ``q_ids`` (the query's distinct known token ids) and ``path_hits`` (None: 0) int64, 1-D;
    ``n_query_tokens`` the query's number of distinct tokens (unknown ones included; 0: the
    boosted score is the text score).

    >>> table = BoostTable(np.array([0, 2, 3]), np.array([0, 1, 1]), 2, length_boost([30, 5]))
    >>> text, boosted = score_query(table, np.array([1.0, 3.0]), np.array([0, 1]),
    ...                             np.array([0]), 1.0)
    >>> text.tolist(), boosted.tolist()
    ([0.5, 0.75], [1.0, 0.78125])
    """
    if backend == "numba":
        return compiled("memlab.kernels.keyword_numba").score_query_numba(
            table, scores, docnos, bool(relevance), q_ids, float(n_query_tokens), path_hits,
            (W_OVERLAP, W_DENSITY, PATH_BOOST))
    text = text_scores(scores, relevance, backend)
    q_ids = np.asarray(q_ids, dtype=np.int64)
    boosted = boost_hits(table, text, docnos, np.array([0, len(q_ids)]), q_ids,
                         np.array([float(n_query_tokens)]), path_hits, None, backend)
    return text, boosted


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
