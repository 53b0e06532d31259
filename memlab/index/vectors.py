"""Vector scores as OpenClaw computes them, over the vectors stored in an index (§4 step 6).

OpenClaw 2026.7 keeps chunk vectors in a sqlite-vec ``vec0`` table and runs::

    SELECT ..., vec_distance_cosine(v.embedding, :q) AS dist
      FROM memory_index_chunks_vec v JOIN memory_index_chunks c ON c.id = v.id
     WHERE v.embedding MATCH :q AND k = min(8 * limit, 4096) AND c.model = :model
     ORDER BY dist ASC LIMIT :limit

and reports ``vectorScore = 1 - dist``. So the candidates are the ``k`` nearest chunks by the
table's default metric (L2), re-ranked by cosine distance. sqlite-vec computes that distance
in single precision (``distance_cosine_float``): the dot product and both squared norms are
summed element by element in float32, then ``1 - dot / (sqrt(|a|²) * sqrt(|b|²))`` is taken in
double and rounded to float32, which SQLite hands back as a double. :func:`parity_cosine`
repeats that arithmetic in numpy (same operations, same order, same roundings), so scores
agree with OpenClaw's to the last bit on x86-64 (where the C loop compiles without fused
multiply-adds). A zero-norm vector gives NaN, which SQLite turns into NULL: it sorts first
and JavaScript's ``1 - null`` makes its score 1, as in OpenClaw.

Without sqlite-vec OpenClaw falls back to an exact double-precision cosine over the JSON
embeddings (``metric="js"``).

>>> import numpy as np
>>> q = np.array([1, 0, 0], dtype=np.float32)
>>> docs = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0]], dtype=np.float32)
>>> parity_cosine(q, docs).round(6).tolist()
[1.0, 0.0, 0.707107]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from memlab.embed.base import EmbeddingProvider
from memlab.embed.cache import CachedEmbedder
from memlab.frames import Query, QueryHits, as_queries, build_hits
from memlab.kernels.blas import single_thread_blas
from memlab.pipeline import Stage

__all__ = ["METRICS", "IndexVectorSearch", "js_cosine", "knn_l2", "parity_cosine"]

METRICS = ("sqlite-vec", "js")
#: OpenClaw's ``VECTOR_KNN_OVERSAMPLE_FACTOR`` and ``MAX_VECTOR_KNN_K``.
KNN_OVERSAMPLE = 8
MAX_KNN_K = 4096
_BLOCK = 8192  # rows per block in parity_cosine (bounds the float32 temporaries)


def _f32_sums(query: np.ndarray, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.float32]:
    """Sequential float32 sums over dimensions: (doc·query, |doc|², |query|²) per doc row."""
    n, dims = docs.shape
    cols = np.asfortranarray(docs)  # column slices contiguous
    dot = np.zeros(n, dtype=np.float32)
    amag = np.zeros(n, dtype=np.float32)
    bmag = np.float32(0.0)
    tmp = np.empty(n, dtype=np.float32)
    for i in range(dims):
        col = cols[:, i]
        qi = query[i]
        np.multiply(col, qi, out=tmp)   # float32 product, rounded
        dot += tmp                      # float32 sum, in dimension order
        np.multiply(col, col, out=tmp)
        amag += tmp
        bmag = np.float32(bmag + np.float32(qi * qi))
    return dot, amag, bmag


def parity_cosine(query_vec: Any, doc_vecs: Any) -> np.ndarray:
    """``1 - vec_distance_cosine(doc, query)`` for every doc row, as OpenClaw gets it (float64).

    NaN distances (a zero vector) come back as ``nan``; :class:`IndexVectorSearch` treats
    them as SQL NULL (score 1, ranked first) like OpenClaw.
    """
    q = np.ascontiguousarray(np.asarray(query_vec, dtype=np.float32).reshape(-1))
    docs = np.asarray(doc_vecs, dtype=np.float32)
    if docs.ndim != 2 or docs.shape[1] != q.shape[0]:
        raise ValueError(f"doc vectors of shape {docs.shape} do not match a query of "
                         f"{q.shape[0]} dims")
    out = np.empty(len(docs), dtype=np.float64)
    for start in range(0, len(docs), _BLOCK):
        block = docs[start:start + _BLOCK]
        dot, amag, bmag = _f32_sums(q, block)
        with np.errstate(divide="ignore", invalid="ignore"):
            denom = np.sqrt(amag.astype(np.float64)) * np.sqrt(np.float64(bmag))
            dist = (1.0 - dot.astype(np.float64) / denom).astype(np.float32)
        out[start:start + len(block)] = 1.0 - dist.astype(np.float64)
    return out


def js_cosine(query_vec: Any, doc_vecs: Any) -> np.ndarray:
    """OpenClaw's in-process ``cosineSimilarity`` (no sqlite-vec): double precision, 0 for a
    zero vector."""
    q = np.asarray(query_vec, dtype=np.float64).reshape(-1)
    docs = np.asarray(doc_vecs, dtype=np.float64)
    dot = docs @ q
    na = np.einsum("ij,ij->i", docs, docs)
    nb = float(q @ q)
    with np.errstate(divide="ignore", invalid="ignore"):
        sims = dot / (np.sqrt(na) * np.sqrt(nb))
    return np.where((na == 0) | (nb == 0), 0.0, sims)


def knn_l2(query_vec: Any, doc_vecs: Any, k: int) -> np.ndarray:
    """Row indices of the ``k`` nearest docs by Euclidean distance (sqlite-vec's default
    ``vec0`` metric), nearest first; ties by lower row."""
    q = np.asarray(query_vec, dtype=np.float64).reshape(-1)
    docs = np.asarray(doc_vecs, dtype=np.float64)
    d2 = np.einsum("ij,ij->i", docs - q, docs - q)
    d2 = np.where(np.isnan(d2), np.inf, d2)
    k = min(int(k), len(docs))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < len(docs):
        part = np.argpartition(d2, k - 1)[:k]
        kth = d2[part].max()
        part = np.flatnonzero(d2 <= kth)  # keep boundary ties, cut below by row order
    else:
        part = np.arange(len(docs))
    order = np.lexsort((part, d2[part]))
    return part[order][:k].astype(np.int64)


class IndexVectorSearch(Stage):
    """The vector leg over an index's stored vectors, scored like OpenClaw.

    Parameters
    ----------
    store
        An :class:`~memlab.index.store.IndexStore`; hits carry the docnos of
        ``store.corpus()``.
    embedder
        The provider that embedded the index (a provider id works too); queries are embedded
        with it (wrapped in an in-memory :class:`~memlab.embed.cache.CachedEmbedder`).
    depth
        OpenClaw's ``limit`` (= ``candidates``, 24 by default): the KNN takes
        ``min(8 * depth, 4096)`` nearest chunks by L2, re-ranks them by cosine distance and
        keeps ``depth``.
    metric
        ``"sqlite-vec"`` (:func:`parity_cosine`, OpenClaw with sqlite-vec) or ``"js"``
        (:func:`js_cosine` over every chunk, OpenClaw's fallback without sqlite-vec).

    Output: the hits contract with ``score`` = ``vector_score`` = ``1 - distance``. Empty
    queries and all-zero query vectors get no hits; so do keyword-only indexes.
    """

    def __init__(self, store: Any, embedder: EmbeddingProvider | str, depth: int = 24,
                 metric: str = "sqlite-vec"):
        self.store = store
        self.embedder = embedder
        self.depth = depth
        self.metric = metric

    def _embedder(self) -> CachedEmbedder:
        state = self.__dict__
        if state.get("_emb_src") is not self.embedder:
            emb = self.embedder
            if isinstance(emb, str):
                from memlab.embed import get_provider

                emb = get_provider(emb)
            if not isinstance(emb, CachedEmbedder):
                if not isinstance(emb, EmbeddingProvider):
                    raise TypeError(f"embedder must be an EmbeddingProvider or a provider id, "
                                    f"got {type(emb).__name__}")
                emb = CachedEmbedder(emb)
            state["_emb"] = emb
            state["_emb_src"] = self.embedder
        return state["_emb"]

    def _rank(self, qvec: np.ndarray, docs: np.ndarray, depth: int
              ) -> tuple[np.ndarray, np.ndarray]:
        if self.metric == "js":
            scores = js_cosine(qvec, docs)
            ok = np.isfinite(scores)
            rows = np.flatnonzero(ok)
            order = np.lexsort((rows, -scores[rows]))[:depth]
            return rows[order], scores[rows][order]
        k = min(depth * KNN_OVERSAMPLE, MAX_KNN_K)
        cand = knn_l2(qvec, docs, k)
        scores = parity_cosine(qvec, docs[cand])
        null = np.isnan(scores)  # SQL NULL: first in ORDER BY dist ASC; 1 - null = 1 in JS
        dist = np.where(null, -np.inf, 1.0 - scores)
        order = np.lexsort((np.arange(len(cand)), dist))[:depth]
        return cand[order], np.where(null, 1.0, scores)[order]

    def _docs(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(rows with a vector, their vectors)`` of the current snapshot (cached)."""
        vectors = self.store.vectors()
        if vectors is None or not len(vectors):
            return None
        cached = self.__dict__.get("_docs_cache")
        if cached is None or cached[0] is not vectors:
            have = np.flatnonzero(~np.isnan(vectors).any(axis=1))
            cached = (vectors, have, vectors[have])
            self.__dict__["_docs_cache"] = cached
        return cached[1], cached[2]

    def transform_query(self, query: Query, hits: QueryHits | None = None) -> QueryHits:
        """One query's hits as arrays, without building frames (the single-query path): the
        first ``query.limit`` (default: all) of :meth:`transform`'s hits."""
        docno, scores = self._search_one(query.text)
        if query.limit is not None:
            docno, scores = docno[:query.limit], scores[:query.limit]
        return QueryHits(docno, scores, vector_score=scores)

    def _search_one(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """One query's ``(docnos, scores)`` in rank order."""
        if self.metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}, got {self.metric!r}")
        depth = int(self.depth)
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {self.depth!r}")
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
        text = str(query).strip()
        found = self._docs()
        if found is None or not text or not len(found[1]):
            return empty
        have, docs = found
        qvecs = self._embedder().embed_queries([text])
        if qvecs.ndim != 2 or qvecs.shape[1] != docs.shape[1]:
            raise ValueError(
                f"query vectors have {qvecs.shape[-1]} dims but the index holds "
                f"{docs.shape[1]}-dim vectors; rebuild it with `memlab index --force`")
        if not np.any(qvecs[0] != 0):  # OpenClaw skips an all-zero query vector
            return empty
        with single_thread_blas():  # one query vector against every chunk
            rows, scores = self._rank(qvecs[0], docs, depth)
        return have[rows], scores

    def __getstate__(self) -> dict[str, Any]:
        state = dict(super().__getstate__())
        state.pop("_docs_cache", None)
        return state

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        if self.metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}, got {self.metric!r}")
        depth = int(self.depth)
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {self.depth!r}")
        queries = as_queries(frame)
        corpus = self.store.corpus()
        vectors = self.store.vectors()
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
        per_query = [empty] * len(queries)
        found_docs = self._docs()
        if vectors is not None and len(vectors) and len(queries) and found_docs is not None:
            have, docs = found_docs
            texts = [str(q).strip() for q in queries["query"]]
            unique = list(dict.fromkeys(t for t in texts if t))
            if unique and len(docs):
                qvecs = self._embedder().embed_queries(unique)
                if qvecs.ndim != 2 or qvecs.shape[1] != docs.shape[1]:
                    raise ValueError(
                        f"query vectors have {qvecs.shape[-1]} dims but the index holds "
                        f"{docs.shape[1]}-dim vectors; rebuild it with `memlab index --force`")
                found: dict[str, tuple[np.ndarray, np.ndarray]] = {}
                for t, qv in zip(unique, qvecs, strict=True):
                    if not np.any(qv != 0):  # OpenClaw skips an all-zero query vector
                        found[t] = empty
                        continue
                    rows, scores = self._rank(qv, docs, depth)
                    found[t] = (have[rows], scores)
                per_query = [found[t] if t else empty for t in texts]
        return build_hits(queries, corpus.chunks, per_query, score_column="vector_score")
