"""Maximal marginal relevance (reference, section 6), exactly as OpenClaw re-ranks.

The selection is :func:`memlab.kernels.mmr.mmr_order` on :func:`memlab.kernels.mmr.jaccard_rows`
similarities; this stage supplies the token sets: of each chunk's snippet (700 UTF-16 units),
lower-cased ASCII ``[a-z0-9_]+`` runs, every CJK-family character, and bigrams of CJK
characters adjacent in the text (:func:`memlab.text.openclaw_mmr_tokens`). The token sets of
all chunks become one sparse 0/1 matrix (:meth:`MMR.token_matrix`), built once per corpus.
Scores are unchanged; only the order (and ``rank``) changes.

>>> import numpy as np
>>> mmr_order(np.array([0.9, 0.89, 0.8]), np.array([[1, .75, 0], [.75, 1, 0], [0, 0, 1]]), 0.3)
array([0, 2, 1])
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from memlab.corpus import Corpus
from memlab.frames import Query, QueryHits
from memlab.kernels.backend import resolve_backend
from memlab.kernels.mmr import clamp_lambda, jaccard_matrix, jaccard_rows, mmr_order
from memlab.kernels.tail import MMRStep
from memlab.pipeline import Stage
from memlab.snippet import snippet
from memlab.text import openclaw_mmr_tokens

__all__ = ["MMR", "jaccard_matrix", "jaccard_rows", "mmr_order"]


class MMR(Stage):
    """Re-rank each query's hits with OpenClaw's MMR.

    Parameters
    ----------
    corpus:
        Where the hit texts come from (the snippet, 700 UTF-16 units, is what is compared).
    lambda_:
        Relevance/diversity trade-off in [0, 1] (the kernel clamps it there); OpenClaw's
        default is 0.7.
    enabled:
        ``False`` makes the stage a no-op.
    backend:
        ``"auto"``, ``"numpy"`` or ``"numba"`` (:mod:`memlab.kernels.backend`): where one
        query's similarities and selection run; the same order either way.
    """

    def __init__(self, corpus: Corpus, lambda_: float = 0.7, enabled: bool = True,
                 backend: str = "auto"):
        self.corpus = corpus
        self.lambda_ = lambda_
        self.enabled = enabled
        self.backend = backend

    def token_matrix(self) -> sp.csr_matrix:
        """The 0/1 chunk x token matrix of the corpus' snippets (built once per corpus)."""
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
        """MMR order (positions) of one query's hits, given in score order (the caller checks
        ``enabled``). ``keep``/``limit``: stop early, see :func:`mmr_order`."""
        docnos = np.asarray(docnos)
        # the similarities are built only when the kernel needs them (not for a plain sort)
        backend = resolve_backend(self.backend)
        return mmr_order(scores, lambda: jaccard_rows(self.token_matrix(), docnos, backend),
                         self.lambda_, keep, limit, backend=backend)

    def tail_step(self, query: Query) -> MMRStep | None:
        """This stage as a step of :mod:`memlab.kernels.tail` (off, or ``lambda`` 1: a
        no-op step); ``None`` when its backend is not numba (``backend="numpy"``)."""
        if resolve_backend(self.backend) != "numba":
            return None
        lam = float(clamp_lambda(self.lambda_))
        if not self.enabled or lam == 1.0:
            none = np.zeros(0, dtype=np.int32)
            return MMRStep(1.0, none, none)
        matrix = self.token_matrix()
        return MMRStep(lam, matrix.indptr, matrix.indices)

    def transform_query(self, query: Query, hits: QueryHits | None = None) -> QueryHits:
        """One query's hits in MMR order, on arrays (:meth:`transform`). When a selection
        follows (``query.cut``), selection stops once it is full: MMR changes no score, so
        what the selection may keep is known before the order."""
        if not self.enabled or hits is None or len(hits.docno) <= 1:
            return hits
        keep = limit = None
        if query.cut is not None:
            keep, limit = query.cut.eligible_query(hits)
        return hits.take(self.order(hits.docno, hits.score, keep, limit))

    def transform(self, hits: pd.DataFrame) -> pd.DataFrame:
        if not self.enabled or hits.empty:
            return hits
        parts = []
        for _, group in hits.groupby("qid", sort=False):
            order = self.order(group["docno"].to_numpy(), group["score"].to_numpy())
            part = group.iloc[order].copy()
            part["rank"] = np.arange(1, len(part) + 1)
            parts.append(part)
        return pd.concat(parts, ignore_index=True)
