"""Maximal marginal relevance (reference, section 6), exactly as OpenClaw re-ranks.

Relevance is the hit score min-max normalised over the candidate list (1 for all when every
score is equal). Similarity is the Jaccard index of the snippets' token sets: lower-cased ASCII
``[a-z0-9_]+`` runs, every CJK-family character, and bigrams of CJK characters adjacent in the
text. Greedy selection picks the item maximising ``lambda*rel - (1-lambda)*max_sim_to_selected``;
an exact tie goes to the higher original score, then to the earlier item. ``lambda_ = 1`` is a
plain sort. Scores are unchanged; only the order (and ``rank``) changes.

The token sets of all chunks become one sparse 0/1 matrix, so a query's pairwise
intersections are a single sparse product instead of Python set loops.

>>> import numpy as np
>>> mmr_order(np.array([0.9, 0.89, 0.8]), np.array([[1, .75, 0], [.75, 1, 0], [0, 0, 1]]), 0.3)
array([0, 2, 1])
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from memlab.corpus import Corpus
from memlab.pipeline import Stage
from memlab.snippet import snippet
from memlab.text import openclaw_mmr_tokens


def jaccard_matrix(rows: sp.csr_matrix) -> np.ndarray:
    """Pairwise Jaccard of 0/1 rows; two empty sets have similarity 1, one empty set 0."""
    inter = (rows @ rows.T).toarray().astype(np.float64)
    sizes = np.asarray(rows.sum(axis=1)).ravel().astype(np.float64)
    union = sizes[:, None] + sizes[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        sim = np.where(union > 0, inter / union, 0.0)
    empty = sizes == 0
    sim[np.ix_(empty, empty)] = 1.0
    return sim


def jaccard_rows(matrix: sp.csr_matrix, rows: np.ndarray) -> np.ndarray:
    """:func:`jaccard_matrix` of ``matrix[rows]`` (same values, bit for bit), computed on a
    small dense 0/1 block over the tokens those rows use: cheaper than sparse products for
    the few dozen hits of one query."""
    rows = np.asarray(rows, dtype=np.int64)
    indptr, indices = matrix.indptr, matrix.indices
    starts, ends = indptr[rows], indptr[rows + 1]
    sizes = (ends - starts).astype(np.float64)
    parts = [indices[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
    n = len(rows)
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    inter = np.zeros((n, n))
    if len(flat):
        # only tokens two rows share add to an intersection; the diagonal is the row size
        _, inv, counts = np.unique(flat, return_inverse=True, return_counts=True)
        shared = counts >= 2
        if shared.any():
            keep = shared[inv]
            compact = np.cumsum(shared) - 1
            row_of = np.repeat(np.arange(n), (ends - starts))
            dense = np.zeros((n, int(shared.sum())), dtype=np.float32)
            dense[row_of[keep], compact[inv[keep]]] = 1.0
            # 0/1 products summed in float32 are exact integers (< 2**24), as in the sparse
            # product
            inter = (dense @ dense.T).astype(np.float64)
        np.fill_diagonal(inter, sizes)
    union = sizes[:, None] + sizes[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        sim = np.where(union > 0, inter / union, 0.0)
    empty = sizes == 0
    sim[np.ix_(empty, empty)] = 1.0
    return sim


def mmr_order(scores: np.ndarray, sim: np.ndarray, lambda_: float,
              keep: np.ndarray | None = None, limit: int | None = None) -> np.ndarray:
    """Greedy MMR order of items with ``scores`` (already sorted by score) and similarity.

    With ``keep`` (a mask over the items) and ``limit``, selection stops as soon as ``limit``
    picked items are in ``keep``: the returned prefix is that of the full order, which is
    all a ``maxResults`` cut of the ``keep`` items needs.
    """
    n = len(scores)
    if n <= 1:
        return np.arange(n)
    lam = max(0.0, min(1.0, float(lambda_)))
    if lam == 1.0:
        return np.argsort(-scores, kind="stable")
    lo, hi = scores.min(), scores.max()
    span = hi - lo
    rel = np.ones(n) if span == 0 else (scores - lo) / span
    gain = lam * rel  # the same float operations as lam * rel - (1 - lam) * max_sim per step
    penalty_weight = 1 - lam
    blocked = np.zeros(n)  # 0, or -inf once picked (x + 0 == x exactly)
    max_sim = np.zeros(n)
    order = np.empty(n, dtype=np.int64)
    wanted = n + 1 if keep is None or limit is None else int(limit)
    found = 0
    for step in range(n):
        value = gain - penalty_weight * max_sim
        value += blocked
        best = value.max()
        tied = np.flatnonzero(value == best)
        # OpenClaw replaces its pick on an exact tie only for a strictly higher score.
        pick = int(tied[np.argmax(scores[tied])]) if len(tied) > 1 else int(tied[0])
        order[step] = pick
        if keep is not None and keep[pick]:
            found += 1
            if found >= wanted:
                return order[:step + 1]
        blocked[pick] = -np.inf
        if step:
            np.maximum(max_sim, sim[pick], out=max_sim)
        else:
            max_sim = sim[pick].copy()
    return order


class MMR(Stage):
    """Re-rank each query's hits with OpenClaw's MMR.

    Parameters
    ----------
    corpus:
        Where the hit texts come from (the snippet, 700 UTF-16 units, is what is compared).
    lambda_:
        Relevance/diversity trade-off in [0, 1]; OpenClaw's default is 0.7.
    enabled:
        ``False`` makes the stage a no-op.
    """

    def __init__(self, corpus: Corpus, lambda_: float = 0.7, enabled: bool = True):
        self.corpus = corpus
        self.lambda_ = lambda_
        self.enabled = enabled

    def _token_matrix(self) -> sp.csr_matrix:
        cached = self.__dict__.get("_tokens_")
        if cached is not None and cached[0] is self.corpus:
            return cached[1]
        vocab: dict[str, int] = {}
        indptr, indices = [0], []
        for text in self.corpus.texts:
            for tok in openclaw_mmr_tokens(snippet(text)):
                indices.append(vocab.setdefault(tok, len(vocab)))
            indptr.append(len(indices))
        data = np.ones(len(indices), dtype=np.float32)
        matrix = sp.csr_matrix((data, indices, indptr), shape=(len(self.corpus), len(vocab)))
        self.__dict__["_tokens_"] = (self.corpus, matrix)
        return matrix

    def order(self, docnos: np.ndarray, scores: np.ndarray, keep: np.ndarray | None = None,
              limit: int | None = None) -> np.ndarray:
        """MMR order (positions) of one query's hits, given in score order: the array form of
        :meth:`transform` (the caller checks ``enabled``). ``keep``/``limit``: stop early, see
        :func:`mmr_order`."""
        if len(docnos) <= 1:
            return np.arange(len(docnos))
        lam = max(0.0, min(1.0, float(self.lambda_)))
        if lam == 1.0:  # a plain sort: no similarities needed
            return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
        sim = jaccard_rows(self._token_matrix(), np.asarray(docnos))
        return mmr_order(np.asarray(scores, dtype=np.float64), sim, self.lambda_, keep, limit)

    def transform(self, hits: pd.DataFrame) -> pd.DataFrame:
        if not self.enabled or hits.empty:
            return hits
        matrix = self._token_matrix()
        parts = []
        for _, group in hits.groupby("qid", sort=False):
            docnos = group["docno"].to_numpy()
            sim = jaccard_rows(matrix, docnos)
            order = mmr_order(group["score"].to_numpy(dtype=np.float64), sim, self.lambda_)
            part = group.iloc[order].copy()
            part["rank"] = np.arange(1, len(part) + 1)
            parts.append(part)
        return pd.concat(parts, ignore_index=True)
