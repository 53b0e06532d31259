"""Result selection of OpenClaw 2026.9 (``selectHybridSearchResults``, ``hybrid.ts``).

Over the merged candidates in rank order:

1. the *strict* hits, ``score >= min_score``, the first ``max_results`` of them;
2. if that fills ``max_results``, or the keyword leg found nothing: done;
3. if no hit is strict: the keyword-backed hits (same ``source:path:start:end``) with
   ``score >= 0``, first ``max_results``;
4. otherwise the strict hits are followed, in rank order, by the keyword-only hits below the
   threshold (``vector_score == 0``, keyword-backed, each range once) until ``max_results``.

2026.9 runs this on the 200-candidate universe and cuts to the caller's ``maxResults`` after
(:func:`memlab.kernels.cut`-style slicing in the caller), so the fill is only visible when
fewer hits pass the threshold.

>>> import numpy as np
>>> select_hybrid(np.array([0.9, 0.2, 0.1]), np.array([0.5, 0.0, 0.3]),
...               np.array([False, True, True]), 0.35, 10).tolist()
[0, 1]
>>> select_hybrid(np.array([0.2, 0.1]), np.array([0.1, 0.0]), np.array([False, True]),
...               0.35, 10).tolist()
[1]
"""

from __future__ import annotations

import numpy as np


def select_hybrid(scores: np.ndarray, vector_scores: np.ndarray, keyword_backed: np.ndarray,
                  min_score: float, max_results: int, any_keyword: bool | None = None
                  ) -> np.ndarray:
    """Positions (into the merged order) of the selected hits, in output order.

    ``keyword_backed[i]``: candidate ``i``'s range was among the keyword leg's hits;
    ``any_keyword``: the keyword leg returned anything (default: ``keyword_backed.any()``;
    pass it when keyword hits may have been dropped before the merge).
    Ranges are assumed unique in the merged list (one entry per chunk).
    """
    scores = np.asarray(scores, dtype=np.float64)
    vector_scores = np.asarray(vector_scores, dtype=np.float64)
    kw = np.asarray(keyword_backed, dtype=bool)
    any_kw = bool(kw.any()) if any_keyword is None else bool(any_keyword)
    strict = np.flatnonzero(scores >= min_score)
    selected = strict[:max_results]
    if not any_kw or len(selected) == max_results:
        return selected
    if len(strict) == 0:
        return np.flatnonzero((scores >= 0) & kw)[:max_results]
    fill = np.flatnonzero((scores < min_score) & (vector_scores == 0) & kw)
    return np.concatenate([selected, fill[:max_results - len(selected)]]).astype(np.int64)
