"""The vector leg of OpenClaw's hybrid search (reference §4 step 6), on FAISS.

OpenClaw embeds the trimmed query, skips an all-zero query vector, runs a sqlite-vec KNN and
scores each chunk with ``vectorScore = 1 - cosine_distance`` (raw cosine similarity, which can
be negative). :class:`VectorSearch` does the same with a FAISS inner-product index over
L2-normalised float32 vectors (inner product of unit vectors = cosine). The default ``"Flat"``
index is exact; any FAISS index-factory string (``"HNSW32"``, ``"IVF16,Flat"``...) can be used
for speed experiments.

>>> leg = VectorSearch(corpus, get_provider("local"))  # doctest: +SKIP
>>> leg("where is the deploy key?").head()             # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from memlab.corpus import Corpus
from memlab.embed.base import EmbeddingProvider
from memlab.embed.cache import CachedEmbedder
from memlab.frames import Query, QueryHits, as_queries, build_hits
from memlab.kernels.unit import unit_row, unit_rows
from memlab.pipeline import Stage

__all__ = ["VectorSearch"]

_EMPTY = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
#: Rows normalised (and added to FAISS) per step: bounds the float64 temporaries.
_BLOCK = 65_536


def _hits(found: tuple[np.ndarray, np.ndarray]) -> QueryHits:
    docno, scores = found
    return QueryHits(docno, scores, vector_score=scores)


class _Owned:
    """Holds FAISS indexes while a numpy view of their memory lives (the view's ``base``)."""

    def __init__(self, owners: tuple, view: np.ndarray):
        self.owners = owners
        self.__array_interface__ = view.__array_interface__


def _flat_view(flat: Any, owner: Any = None) -> np.ndarray:
    """Read-only ``(ntotal, d)`` float32 view of a FAISS ``IndexFlat``'s own storage (no
    copy); the view keeps ``flat`` and ``owner`` (the index that owns ``flat``) alive."""
    import faiss

    n, d = int(flat.ntotal), int(flat.d)
    if n == 0:
        return np.zeros((0, d), dtype=np.float32)
    raw = faiss.rev_swig_ptr(flat.get_xb(), n * d).reshape(n, d)
    view = np.asarray(_Owned((flat, owner), raw))
    view.flags.writeable = False
    return view


def _exact_flat(index: Any) -> Any:
    """The ``IndexFlat`` inside ``index`` that holds every vector exactly in docno order (the
    index itself, or an HNSW index's flat storage), else ``None``."""
    import faiss

    index = faiss.downcast_index(index)
    if isinstance(index, faiss.IndexFlat):
        return index
    if isinstance(index, faiss.IndexHNSWFlat):
        return faiss.downcast_index(index.storage)
    return None


def _exact_ivf(index: Any) -> bool:
    """An ``IndexIVFFlat`` (exact vectors in its lists): the vectors can be reconstructed
    bit for bit by docno once it has a direct map."""
    import faiss

    return isinstance(faiss.downcast_index(index), faiss.IndexIVFFlat)


def _same_key(old: tuple | None, new: tuple) -> bool:
    """Objects compared by identity (strings and numbers by value)."""
    if old is None or len(old) != len(new):
        return False
    for a, b in zip(old, new, strict=True):
        if a is b:  # the usual case, checked first (the search path asks on every query)
            continue
        if type(a) is not type(b) or not isinstance(a, str | int | float | bool) or a != b:
            return False
    return True


class VectorSearch(Stage):
    """Cosine-similarity retrieval of corpus chunks for each query.

    Parameters
    ----------
    corpus
        The :class:`~memlab.corpus.Corpus` to search; its ``texts`` are embedded on first use.
    embedder
        An :class:`~memlab.embed.base.EmbeddingProvider` (wrapped in an in-memory
        :class:`~memlab.embed.cache.CachedEmbedder` unless it already is one), or a provider
        id for :func:`memlab.embed.get_provider`.
    index
        FAISS index-factory string, built with ``METRIC_INNER_PRODUCT``: ``"Flat"`` (exact,
        default), ``"HNSW32"``, ``"IVF16,Flat"`` (trained on the corpus vectors)...
    depth
        Hits per query (capped at the corpus size). OpenClaw keeps ``candidates`` (24 by
        default, at most 200) of a ``min(8 x candidates, 4096)`` KNN.
    normalize
        L2-normalise document and query vectors so scores are cosine similarities.
        ``False`` scores raw inner products.
    index_params
        Optional FAISS search parameters, e.g. ``"nprobe=8"`` (IVF) or ``"efSearch=128"``
        (HNSW), applied with ``faiss.ParameterSpace``.

    Output: the hits contract with ``score`` = ``vector_score`` = cosine, ranked by score
    then lower ``docno`` on ties. Empty/whitespace queries and queries whose vector is all
    zero get no hits.

    Fitted attributes (built lazily, on the first :meth:`transform`, or by :meth:`fit`):
    ``embedder_`` (the caching embedder used), ``index_`` (the FAISS index),
    ``vectors_shape_`` (``(n, dims)``) and ``doc_vectors_`` (float32 ``(n, dims)``, the
    vectors as indexed).

    Memory: the vectors are held once, by FAISS. ``doc_vectors_`` is a read-only view of the
    FAISS storage (``Flat``, ``HNSW...``), not a copy; an exact ``Flat`` copy is kept next to
    an approximate index only when that index cannot give the vectors back exactly
    (``IVF...,Flat`` can: there ``doc_vectors_`` is reconstructed from its lists, a copy made
    on each access).
    """

    def __init__(self, corpus: Corpus, embedder: EmbeddingProvider | str, index: str = "Flat",
                 depth: int = 200, normalize: bool = True, index_params: str | None = None):
        self.corpus = corpus
        self.embedder = embedder
        self.index = index
        self.depth = depth
        self.normalize = normalize
        self.index_params = index_params

    # -- building ------------------------------------------------------------------------
    def fit(self, X: Any = None, y: Any = None) -> VectorSearch:  # noqa: N803 - sklearn names
        """Embed the corpus and build the index now (otherwise done on first search)."""
        self._ensure_built()
        return self

    def _resolve_embedder(self) -> CachedEmbedder:
        emb = self.embedder
        if isinstance(emb, str):
            from memlab.embed import get_provider

            emb = get_provider(emb)
        if isinstance(emb, CachedEmbedder):
            return emb
        if not isinstance(emb, EmbeddingProvider):
            raise TypeError(f"embedder must be an EmbeddingProvider or a provider id, got "
                            f"{type(emb).__name__}")
        return CachedEmbedder(emb)

    def _ensure_built(self) -> None:
        state = self.__dict__
        corpus = self.corpus
        chunks = getattr(corpus, "chunks", None)
        vec_key = (corpus, chunks, self.embedder, len(corpus), bool(self.normalize))
        index_key = (self.index, self.index_params)
        built = (*vec_key, *index_key)
        if _same_key(state.get("_built_for"), built):
            return  # the search path: one comparison, not the three below
        if not _same_key(state.get("_embedder_key"), (self.embedder,)):
            self.embedder_ = self._resolve_embedder()
            state["_embedder_key"] = (self.embedder,)
            state.pop("_vec_key", None)
        if not _same_key(state.get("_vec_key"), vec_key):
            texts = list(self.corpus.texts)
            if texts:
                vectors = self.embedder_.embed_documents(texts)
            else:
                vectors = np.zeros((0, 0), dtype=np.float32)
            del texts
            self._set_vectors(vectors)
            state["_vec_key"] = vec_key
            state.pop("_index_key", None)
        if state.get("_index_key") != index_key:
            self._set_index()
            state["_index_key"] = index_key
        state["_built_for"] = built

    def _set_vectors(self, vectors: np.ndarray) -> None:
        """Store ``vectors`` (normalised if asked) in an exact FAISS ``IndexFlatIP``, the one
        copy: added block by block, so no full-size float64 or float32 temporary is made."""
        import faiss

        vectors = np.asarray(vectors)
        state = self.__dict__
        state.pop("index_", None)  # the old vectors go before the new ones are stored
        state.pop("_flat", None)
        self.vectors_shape_ = (int(vectors.shape[0]), int(vectors.shape[1]))
        n, dims = self.vectors_shape_
        if n == 0:
            state["_flat"] = None
            return
        flat = faiss.IndexFlatIP(dims)
        for lo in range(0, n, _BLOCK):
            block = np.ascontiguousarray(vectors[lo:lo + _BLOCK], dtype=np.float32)
            flat.add(unit_rows(block) if self.normalize else block)
        state["_flat"] = flat

    def _stored_vectors(self) -> np.ndarray:
        """The vectors as indexed (a view of FAISS memory where possible, see the class)."""
        state = self.__dict__
        flat = state.get("_flat")
        if flat is not None:
            return _flat_view(flat)
        index = state.get("index_")
        if index is None:
            return np.zeros(self.vectors_shape_, dtype=np.float32)
        exact = _exact_flat(index)
        if exact is not None:
            return _flat_view(exact, index)
        return index.reconstruct_n(0, int(index.ntotal))  # IVF...,Flat: see _set_index

    @property
    def doc_vectors_(self) -> np.ndarray:
        """Float32 ``(n, dims)``: the document vectors as indexed (read-only)."""
        if "vectors_shape_" not in self.__dict__:
            raise AttributeError("doc_vectors_: the stage is not built yet (call fit)")
        return self._stored_vectors()

    def _set_index(self) -> None:
        """Build ``index_`` from the stored vectors; keep the exact ``Flat`` copy only when
        the new index cannot give the vectors back bit for bit."""
        state = self.__dict__
        vectors = self._stored_vectors()
        if str(self.index) == "Flat" and state.get("_flat") is not None and (
                not self.index_params):
            self.index_ = state["_flat"]  # the exact store is the index: no second copy
            return
        state.pop("index_", None)
        index = self._build_index(vectors)
        del vectors
        if index is not None and (_exact_flat(index) is not None or _exact_ivf(index)):
            if _exact_ivf(index):
                import faiss

                faiss.extract_index_ivf(index).make_direct_map()  # docno -> list entry
            state["_flat"] = None  # the index holds the vectors exactly: drop the copy
        self.index_ = index

    def _build_index(self, vectors: np.ndarray) -> Any:
        import faiss

        n, dims = vectors.shape
        if n == 0:
            return None
        try:
            index = faiss.index_factory(int(dims), str(self.index), faiss.METRIC_INNER_PRODUCT)
        except RuntimeError as exc:
            raise ValueError(f"invalid FAISS index factory string {self.index!r} for {dims} "
                             f"dims: {exc}") from exc
        if not index.is_trained:
            try:
                index.train(vectors)
            except RuntimeError as exc:
                raise ValueError(f"FAISS index {self.index!r} could not be trained on the "
                                 f"corpus' {n} vectors (too few for its clusters/codebooks?); "
                                 f"use a smaller setting or index='Flat': {exc}") from exc
        index.add(vectors)
        if self.index_params:
            try:
                faiss.ParameterSpace().set_index_parameters(index, str(self.index_params))
            except RuntimeError as exc:
                raise ValueError(f"invalid FAISS index_params {self.index_params!r} for index "
                                 f"{self.index!r}: {exc}") from exc
        return index

    def __getstate__(self) -> dict[str, Any]:
        state = dict(super().__getstate__())
        # FAISS indexes don't pickle: the vectors go as an array, the index is rebuilt lazily
        if "vectors_shape_" in state:
            state["_pickled_vectors"] = np.array(self._stored_vectors())
        state.pop("index_", None)
        state.pop("_flat", None)
        state.pop("_index_key", None)
        state.pop("_built_for", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        vectors = state.pop("_pickled_vectors", None)
        super().__setstate__(state)
        if vectors is not None:  # stored as they were indexed (already normalised)
            import faiss

            flat = None
            if len(vectors):
                flat = faiss.IndexFlatIP(int(vectors.shape[1]))
                flat.add(np.ascontiguousarray(vectors, dtype=np.float32))
            self.__dict__["_flat"] = flat

    # -- queries -------------------------------------------------------------------------
    def _query_vectors(self, queries: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """``(vectors, searchable)``: one row per query (zeros when not searchable)."""
        texts = [str(q).strip() for q in queries["query"]]
        n, dims = self.vectors_shape_
        out = np.zeros((len(texts), dims), dtype=np.float32)
        nonempty = np.array([bool(t) for t in texts], dtype=bool)
        if not nonempty.any() or n == 0:
            return out, np.zeros(len(texts), dtype=bool)
        unique = list(dict.fromkeys(t for t in texts if t))
        vecs = self.embedder_.embed_queries(unique)  # one batch for all queries
        if vecs.ndim != 2 or vecs.shape[1] != dims:
            raise ValueError(f"query vectors have shape {vecs.shape} but the corpus vectors "
                             f"have {dims} dims")
        row = {t: i for i, t in enumerate(unique)}
        for i, t in enumerate(texts):
            if t:
                out[i] = vecs[row[t]]
        searchable = nonempty & np.any(out != 0, axis=1)  # OpenClaw skips all-zero vectors
        if self.normalize:
            out = unit_rows(out)
        return out, searchable

    def _search(self, vectors: np.ndarray, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Top-``k`` per row, ties broken by lower docno (also at the cut-off)."""
        n = self.vectors_shape_[0]
        results: list[tuple[np.ndarray, np.ndarray]] = []
        kk = min(n, k + 1)
        scores, labels = self.index_.search(vectors, kk)
        for row in range(len(vectors)):
            s, ids, width = scores[row], labels[row], kk
            # the checks on plain lists: a few dozen values, where each numpy reduction
            # would cost more than the comparisons
            sl, filled = s.tolist(), min(ids.tolist()) >= 0
            # widen while the score just past the cut-off ties the last kept one
            while width < n and filled and sl[min(k, width) - 1] == sl[width - 1]:
                width = min(n, width * 2)
                s2, i2 = self.index_.search(vectors[row:row + 1], width)
                s, ids = s2[0], i2[0]
                sl, filled = s.tolist(), min(ids.tolist()) >= 0
            if filled and all(a > b for a, b in zip(sl, sl[1:], strict=False)):
                # every slot filled, scores strictly falling: the lexsort below is the
                # identity (the usual case)
                results.append((ids[:k].astype(np.int64), s[:k].astype(np.float64)))
                continue
            ok = ids >= 0
            s, ids = s[ok], ids[ok].astype(np.int64)
            order = np.lexsort((ids, -s))[:k]
            results.append((ids[order], s[order].astype(np.float64)))
        return results

    def transform_query(self, query: Query, hits: QueryHits | None = None) -> QueryHits:
        """One query's hits as arrays, without building frames (the single-query path): the
        first ``query.limit`` (default: ``depth``) of :meth:`transform`'s hits; the first
        ``d`` hits at any depth ``d`` are those of a deeper search (ties are cut by lower
        docno)."""
        depth = int(self.depth if query.limit is None else min(int(self.depth), query.limit))
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth!r}")
        self._ensure_built()
        n, dims = self.vectors_shape_
        text = str(query.text).strip()
        if not n or not text:
            return _hits(_EMPTY)
        vec = self.embedder_.embed_queries([text])
        if vec.ndim != 2 or vec.shape[1] != dims:
            raise ValueError(f"query vectors have shape {vec.shape} but the corpus vectors "
                             f"have {dims} dims")
        if self.normalize:  # the zero check and the unit row in one call
            nonzero, vec = unit_row(vec[0])
        else:
            nonzero = bool(np.count_nonzero(vec))
        if not nonzero:  # OpenClaw skips all-zero vectors (NaN counts as non-zero)
            return _hits(_EMPTY)
        return _hits(self._search(np.ascontiguousarray(vec, dtype=np.float32),
                                  min(depth, n))[0])

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        queries = as_queries(frame)
        depth = int(self.depth)
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {self.depth!r}")
        self._ensure_built()
        per_query = [_EMPTY] * len(queries)
        n = self.vectors_shape_[0]
        if n and len(queries):
            vectors, searchable = self._query_vectors(queries)
            rows = np.flatnonzero(searchable)
            if len(rows):
                found = self._search(np.ascontiguousarray(vectors[rows]), min(depth, n))
                for r, hit in zip(rows, found, strict=True):
                    per_query[r] = hit
        return build_hits(queries, self.corpus.chunks, per_query, score_column="vector_score")

    def scores_matrix(self, queries: Any) -> np.ndarray:
        """Dense float32 scores ``(n_queries, n_docs)``: cosine of every query with every chunk
        (raw inner product when ``normalize=False``).

        Computed with numpy from :attr:`doc_vectors_` (exact, whatever the index). Rows of
        empty or all-zero queries are zero.
        """
        queries = as_queries(queries)
        self._ensure_built()
        n = self.vectors_shape_[0]
        if n == 0 or len(queries) == 0:
            return np.zeros((len(queries), n), dtype=np.float32)
        vectors, searchable = self._query_vectors(queries)
        vectors[~searchable] = 0
        return vectors @ self.doc_vectors_.T
