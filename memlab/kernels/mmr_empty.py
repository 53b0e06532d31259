"""MMR's empty-token rule of OpenClaw 2026.9 (``mmrRerank``, PR #121224).

Two snippets without any MMR token are similar (1) only when their lower-cased texts are
equal, else 0 (2026.7.35: always 1, :func:`memlab.kernels.mmr.jaccard_rows`). Pairs where one
side has tokens keep their Jaccard value (0 with one empty set).

>>> import numpy as np
>>> empty_token_similarity(np.ones((3, 3)), [0, 0, 0], ["--", "--", "=="]).tolist()
[[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def empty_token_similarity(sim: np.ndarray, token_counts: Sequence[int],
                           lowered_texts: Sequence[str]) -> np.ndarray:
    """A copy of ``sim`` with the empty-empty pairs set by the 2026.9 rule."""
    out = np.array(sim, dtype=np.float64, copy=True)
    empty = np.flatnonzero(np.asarray(token_counts) == 0)
    if len(empty):
        texts = np.asarray(lowered_texts, dtype=object)[empty]
        out[np.ix_(empty, empty)] = (texts[:, None] == texts[None, :]).astype(np.float64)
    return out
