"""The BM25 index: term-major postings of term counts, and BM25 weights over them.

:func:`count_terms` tokenises a corpus in batches and keeps only integers: one posting per
(term, document) with the term's count in the smallest unsigned integer type that holds it,
documents ascending within a term, plus each document's length. Token strings live one
batch at a time, and no doc-major copy, presence matrix or ``intp`` copy is kept, so the
index costs 4 (document) + 1-2 (count) bytes per posting, plus 8 for the BM25 weights of
:func:`bm25_weights` (float64, so scores equal bm25s's float64 scores and memlab's earlier
releases bit for bit).

Term ids are given in order of first appearance in the corpus, as before this module
existed, so queries add their terms' postings in the same order and scores stay identical.

:func:`idf` and :func:`tfc` are the only place of the BM25 formulas (bm25s's variants,
Kamphuis et al., ECIR 2020).

>>> counts = count_terms([["the", "key", "key"], ["lunch"]])
>>> counts.vocabulary, counts.docs.tolist(), counts.tf.tolist(), counts.doc_len.tolist()
({'the': 0, 'key': 1, 'lunch': 2}, [0, 0, 1], [1, 2, 1], [3.0, 1.0])
>>> w = bm25_weights(counts, "lucene", k1=1.5, b=0.75, delta=0.5)
>>> w.matrix.shape, round(float(w.matrix[1, 0]), 6)
((3, 2), 0.341242)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import scipy.sparse as sp

__all__ = ["BM25Weights", "TermCounts", "bm25_weights", "count_terms", "count_texts", "idf",
           "tfc"]

#: Documents tokenised per batch by :func:`count_texts` (bounds the token strings alive).
BATCH_DOCS = 8192
#: Postings per block when weights are computed (bounds the float64 temporaries).
BLOCK_POSTINGS = 1 << 20


def idf(variant: str, df: np.ndarray, n_docs: int) -> np.ndarray:
    """bm25s's IDF of each variant, from document frequencies ``df``.

    >>> idf("lucene", np.array([1, 2]), 4).round(4).tolist()
    [1.204, 0.6931]
    """
    df = df.astype(np.float64)
    n = float(n_docs)
    with np.errstate(divide="ignore"):
        if variant == "robertson":
            return np.log(np.maximum((n - df + 0.5) / (df + 0.5), 1.0))
        if variant == "lucene":
            return np.log(1.0 + (n - df + 0.5) / (df + 0.5))
        if variant == "atire":
            return np.log(n / df)
        if variant == "bm25l":
            return np.log((n + 1.0) / (df + 0.5))
        if variant == "bm25+":
            return np.log((n + 1.0) / df)
    raise ValueError(f"variant must be one of 'robertson', 'lucene', 'atire', 'bm25l', "
                     f"'bm25+' (got {variant!r})")


def tfc(variant: str, tf: np.ndarray | float, l_d: np.ndarray | float, l_avg: float,
        k1: float, b: float, delta: float) -> np.ndarray:
    """bm25s's term-frequency components (bm25s/scoring.py ``_score_tfc_*``).

    >>> float(tfc("lucene", 1.0, 10.0, 10.0, 1.5, 0.75, 0.5))
    0.4
    """
    if variant in ("robertson", "lucene"):
        return tf / (k1 * ((1 - b) + b * l_d / l_avg) + tf)
    if variant == "atire":
        return (tf * (k1 + 1)) / (tf + k1 * (1 - b + b * l_d / l_avg))
    if variant == "bm25l":
        c = tf / (1 - b + b * l_d / l_avg)
        return ((k1 + 1) * (c + delta)) / (k1 + c + delta)
    num = (k1 + 1) * tf  # bm25+
    den = k1 * (1 - b + b * l_d / l_avg) + tf
    return (num / den) + delta


@dataclass(eq=False)
class TermCounts:
    """Term-major postings of term counts.

    ``indptr[t]:indptr[t + 1]`` are term ``t``'s postings: ``docs`` (ascending) and ``tf``
    (its count in each); ``doc_len`` is each document's number of tokens (float64);
    ``vocabulary`` maps a term to its id (ids in order of first appearance)."""

    vocabulary: dict[str, int]
    indptr: np.ndarray
    docs: np.ndarray
    tf: np.ndarray
    doc_len: np.ndarray

    @property
    def n_docs(self) -> int:
        return len(self.doc_len)

    @property
    def n_terms(self) -> int:
        return len(self.indptr) - 1

    @property
    def nnz(self) -> int:
        return len(self.docs)

    @property
    def doc_freq(self) -> np.ndarray:
        """Number of documents that contain each term (int64)."""
        return np.diff(self.indptr).astype(np.int64)

    @property
    def nbytes(self) -> int:
        return self.indptr.nbytes + self.docs.nbytes + self.tf.nbytes + self.doc_len.nbytes

    def matrix(self, dtype: type = np.float64) -> sp.csr_matrix:
        """The counts as a term × doc CSR matrix (a new data array of ``dtype``)."""
        return sp.csr_matrix((self.tf.astype(dtype), self.docs, self.indptr),
                             shape=(self.n_terms, self.n_docs))


def _batch_postings(tokens: Sequence[list[str]], vocabulary: dict[str, int]
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One batch, doc-major: (terms, counts, postings per doc, tokens per doc)."""
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    flat = list(chain.from_iterable(tokens))
    for token in dict.fromkeys(flat):
        vocabulary.setdefault(token, len(vocabulary))
    ids = np.fromiter(map(vocabulary.__getitem__, flat), dtype=np.int64, count=len(flat))
    del flat
    width = max(len(vocabulary), 1)
    keys = np.repeat(np.arange(len(tokens), dtype=np.int64), lengths) * width + ids
    del ids
    keys, counts = np.unique(keys, return_counts=True)
    rows = keys // width
    per_doc = np.bincount(rows, minlength=len(tokens))
    terms = (keys - rows * width).astype(np.int32 if width < 2**31 else np.int64)
    tf = counts.astype(np.min_scalar_type(int(counts.max()))) if len(counts) else \
        counts.astype(np.uint8)
    return terms, tf, per_doc, lengths


def count_terms(token_lists: Iterable[Sequence[str]], batch: int = BATCH_DOCS) -> TermCounts:
    """Count the terms of pre-tokenised documents into term-major postings.

    ``token_lists`` is consumed ``batch`` documents at a time (a generator keeps only one
    batch of token strings alive).

    >>> c = count_terms([["a", "b", "a"], [], ["b"]])
    >>> c.indptr.tolist(), c.docs.tolist(), c.tf.tolist(), c.doc_freq.tolist()
    ([0, 1, 3], [0, 0, 2], [2, 1, 1], [1, 2])
    """
    it = iter(token_lists)

    def batches() -> Iterable[list[Sequence[str]]]:
        while True:
            chunk = [t for _, t in zip(range(batch), it, strict=False)]
            if not chunk:
                return
            yield chunk

    return _count_batches(batches())


def count_texts(texts: Sequence[str], tokenize_many: Callable[[list[str]], list[list[str]]],
                batch: int = BATCH_DOCS) -> TermCounts:
    """:func:`count_terms` of ``tokenize_many`` applied to ``texts``, ``batch`` at a time.

    >>> count_texts(["a b", "b"], lambda ts: [t.split() for t in ts]).doc_freq.tolist()
    [1, 2]
    """
    texts = list(texts) if not isinstance(texts, Sequence) else texts
    return _count_batches(tokenize_many(list(texts[i:i + batch]))
                          for i in range(0, len(texts), batch))


def _count_batches(batches: Iterable[Sequence[Sequence[str]]]) -> TermCounts:
    vocabulary: dict[str, int] = {}
    terms, tfs, per_doc, lengths = [], [], [], []
    for tokens in batches:
        t, f, p, n = _batch_postings(tokens, vocabulary)
        terms.append(t)
        tfs.append(f)
        per_doc.append(p)
        lengths.append(n)
    n_docs = int(sum(len(n) for n in lengths))
    n_terms = len(vocabulary)
    doc_len = (np.concatenate(lengths).astype(np.float64) if lengths
               else np.zeros(0, dtype=np.float64))
    nnz = int(sum(len(t) for t in terms))
    index_dtype = np.int32 if max(nnz, n_terms, n_docs) < 2**31 else np.int64
    doc_ptr = np.zeros(n_docs + 1, dtype=index_dtype)
    if n_docs:
        np.cumsum(np.concatenate(per_doc), out=doc_ptr[1:])
    del per_doc
    flat_terms = (np.concatenate(terms).astype(index_dtype, copy=False) if terms
                  else np.zeros(0, dtype=index_dtype))
    del terms
    flat_tf = np.concatenate(tfs) if tfs else np.zeros(0, dtype=np.uint8)
    del tfs
    # the transpose (doc-major -> term-major) is scipy's counting sort (csr_tocsc), which
    # needs no O(nnz) permutation array, and keeps documents ascending within each term
    by_doc = sp.csr_matrix((flat_tf, flat_terms, doc_ptr), shape=(n_docs, n_terms), copy=False)
    del flat_terms, flat_tf, doc_ptr
    by_term = by_doc.tocsc()
    del by_doc
    indptr = by_term.indptr.astype(index_dtype, copy=False)
    docs = by_term.indices.astype(index_dtype, copy=False)
    return TermCounts(vocabulary, indptr, docs, by_term.data, doc_len)


@dataclass(eq=False)
class BM25Weights:
    """BM25 weights of every posting of a :class:`TermCounts` (``matrix``: term × doc CSR
    float64 sharing the counts' ``indptr`` and ``docs``; for bm25l/bm25+ already minus the
    non-occurrence value, as bm25s stores it), with ``idf``, ``avgdl`` and
    ``nonoccurrence`` (None unless bm25l/bm25+: each term's score at tf = 0 and average
    length, which every document gets for each query term it lacks)."""

    matrix: sp.csr_matrix
    idf: np.ndarray
    avgdl: float
    nonoccurrence: np.ndarray | None


def bm25_weights(counts: TermCounts, variant: str, k1: float, b: float,
                 delta: float) -> BM25Weights:
    """The BM25 weight of every posting of ``counts``, computed block by block (at most
    :data:`BLOCK_POSTINGS` postings of float64 temporaries at a time; elementwise, so the
    values do not depend on the blocks)."""
    n_docs, n_terms = counts.n_docs, counts.n_terms
    doc_len = counts.doc_len
    avgdl = float(doc_len.mean()) if n_docs else 0.0
    idf_ = idf(variant, counts.doc_freq, n_docs) if n_terms else np.zeros(0)
    nonocc = None
    if variant in ("bm25l", "bm25+"):
        nonocc = idf_ * tfc(variant, 0.0, avgdl, avgdl, k1, b, delta) if n_terms else idf_
    weights = np.empty(counts.nnz, dtype=np.float64)
    indptr = counts.indptr
    t0 = 0
    while t0 < n_terms:
        # the terms [t0, t1) whose postings fill about one block (at least one term)
        t1 = int(np.searchsorted(indptr, indptr[t0] + BLOCK_POSTINGS, side="right")) - 1
        t1 = min(max(t1, t0 + 1), n_terms)
        lo, hi = int(indptr[t0]), int(indptr[t1])
        if hi > lo:
            terms = np.repeat(np.arange(t0, t1), np.diff(indptr[t0:t1 + 1]))
            tf = counts.tf[lo:hi].astype(np.float64)
            l_d = doc_len[counts.docs[lo:hi]]
            block = idf_[terms] * tfc(variant, tf, l_d, avgdl, k1, b, delta)
            if nonocc is not None:
                block -= nonocc[terms]
            weights[lo:hi] = block
        t0 = t1
    matrix = sp.csr_matrix((weights, counts.docs, indptr), shape=(n_terms, n_docs), copy=False)
    return BM25Weights(matrix, idf_, avgdl, nonocc)
