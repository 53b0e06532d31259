"""The keyword leg's OpenClaw arithmetic (``manager-search.ts`` of OpenClaw 2026.7.35).

* :func:`bm25_rank_to_score`: ``bm25RankToScore`` of an FTS5 ``bm25()`` rank (negative =
  better): ``r / (1 + r)`` for ``rank = -r < 0``, ``1 / (1 + rank)`` otherwise, 0.001 for a
  missing rank; :func:`relevance_to_score` is the same map for a BM25 relevance ``r >= 0``
  (rank ``-r``; 0 for ``r = 0``, which FTS5 never produces: its IDF is floored at 1e-6).
* :func:`boosted_score`: ``scoreFallbackKeywordResult``, the keyword-only ranking score

      min(1, text_score + 0.45 * overlap / |query tokens| + 0.2 * overlap / |text tokens|
             + 0.18 * #(query tokens in the lower-cased path) + min(len16(text) / 160, 0.18))

  (a query without tokens keeps ``text_score``). Token counting lives in
  :mod:`memlab.text.openclaw_keywords`; this is the formula on the counts.
* :func:`merge_keyword_hits`: ``mergeKeywordSearchHits``, the keyword fallback's merge.

>>> import numpy as np
>>> bm25_rank_to_score(np.array([-3.0, 0.0, np.nan])).tolist()
[0.75, 1.0, 0.001]
>>> float(relevance_to_score(3.0))
0.75
"""

from __future__ import annotations

from typing import Any

import numpy as np

# OpenClaw's lexical boost constants (manager-search.ts, scoreFallbackKeywordResult).
W_OVERLAP = 0.45
W_DENSITY = 0.2
PATH_BOOST = 0.18
LENGTH_DIVISOR = 160
LENGTH_CAP = 0.18


def bm25_rank_to_score(rank: Any) -> Any:
    """OpenClaw's ``bm25RankToScore`` of FTS5 ranks (array in, array out; scalar, float)."""
    rank = np.asarray(rank, dtype=np.float64)
    finite = np.isfinite(rank)
    safe = np.where(finite, rank, 0.0)
    relevance = -safe
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(safe < 0, relevance / (1 + relevance), 1 / (1 + safe))
    out = np.where(finite, out, 1 / 1e3)
    return float(out) if out.ndim == 0 else out


def relevance_to_score(relevance: Any) -> Any:
    """:func:`bm25_rank_to_score` of the rank ``-r`` of BM25 relevances ``r`` (0 for r <= 0)."""
    r = np.asarray(relevance, dtype=np.float64)
    out = np.where(r > 0, bm25_rank_to_score(-np.maximum(r, 0.0)), 0.0)
    return float(out) if out.ndim == 0 else out


def boosted_score(text_score: Any, overlap: Any, n_query_tokens: Any, n_text_tokens: Any,
                  path_hits: Any, text_len16: Any) -> np.ndarray:
    """The keyword-only score of keyword hits from their token counts (module docstring).

    ``overlap``: the hit's query tokens (de-duplicated) that its text contains;
    ``path_hits``: those contained in its lower-cased path; ``text_len16``: the text's
    UTF-16 length. JavaScript adds 0.18 once per path token; ``n * 0.18`` equals that sum
    for ``n < 6`` and above it the score is capped at 1 either way.
    """
    text_score = np.asarray(text_score, dtype=np.float64)
    n_q = np.asarray(n_query_tokens, dtype=np.float64)
    overlap = np.asarray(overlap, dtype=np.float64)
    unique_overlap = overlap / np.maximum(n_q, 1.0)
    density = overlap / np.maximum(np.asarray(n_text_tokens, dtype=np.float64), 1.0)
    path_boost = np.asarray(path_hits, dtype=np.float64) * PATH_BOOST
    length_boost = np.minimum(np.asarray(text_len16, dtype=np.float64) / LENGTH_DIVISOR,
                              LENGTH_CAP)
    lexical = unique_overlap * W_OVERLAP + density * W_DENSITY + path_boost + length_boost
    return np.where(n_q > 0, np.minimum(1.0, text_score + lexical), text_score)


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
