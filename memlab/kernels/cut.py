"""A leg's candidate cut: which of a leg's hits enter fusion.

Each leg is cut to its first ``k`` hits (OpenClaw: the ``LIMIT`` of ``searchVector`` and
``searchKeyword``, ``k = candidates``). Hits of OpenClaw's keyword fallback are all kept:
there the limit applies to each keyword's own search, and the merged list (up to ``6 k``
hits) enters the merge whole (``searchKeywordWithFallback``).

>>> import numpy as np
>>> leg_cut(np.array([1, 2, 3]), 2).tolist()
[True, True, False]
>>> leg_cut(np.array([1, 2, 3]), 2, fallback=np.array([True, True, True])).tolist()
[True, True, True]
"""

from __future__ import annotations

import numpy as np


def leg_cut(ranks: np.ndarray, k: int, fallback: np.ndarray | None = None) -> np.ndarray:
    """The keep mask of a leg's hits: ``rank <= k``, or found by the keyword fallback.

    ``ranks`` are the hits' 1-based ranks in their leg (for arrays in rank order,
    ``np.arange(1, n + 1)``); ``fallback`` marks hits of the keyword fallback.
    """
    keep = np.asarray(ranks) <= int(k)
    if fallback is not None:
        keep = keep | np.asarray(fallback, dtype=bool)
    return keep


def leg_cut_rows(n: int, k: int, fallback: np.ndarray | None = None) -> np.ndarray | None:
    """The rows :func:`leg_cut` keeps of a leg's ``n`` hits in rank order, or ``None`` when
    it keeps them all (the common case on the single-query path, where a leg returns at
    most ``k`` hits): ``np.flatnonzero(leg_cut(np.arange(1, n + 1), k, fallback))``.

    >>> leg_cut_rows(3, 5) is None, leg_cut_rows(3, 2).tolist()
    (True, [0, 1])
    """
    if n <= int(k):  # every rank 1..n is <= k
        return None
    rows = np.flatnonzero(leg_cut(np.arange(1, n + 1), k, fallback))
    return None if len(rows) == n else rows
