"""Token lists to a sparse count matrix (rows = texts, columns = vocabulary ids): shared by
the lexical legs (:mod:`memlab.stages.lexical`) and OpenClaw's keyword boost
(:mod:`memlab.text.openclaw_keywords`).

>>> vocab = {}
>>> count_matrix([["a", "b", "a"], ["b"]], vocab, grow=True).toarray().tolist()
[[2.0, 1.0], [0.0, 1.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, repeat

import numpy as np
import scipy.sparse as sp

__all__ = ["count_matrix"]


def count_matrix(token_lists: Sequence[list[str]], vocabulary: dict[str, int],
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
