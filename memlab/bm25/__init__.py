"""BM25 at compiled speed: a lean term-major index and top-k retrieval kernels.

:mod:`memlab.bm25.index` builds the postings (term counts, then BM25 weights; the BM25
formulas live there), :mod:`memlab.bm25.score` ranks queries over any term × doc weights with
the plain numpy kernel, and :mod:`memlab.bm25.numba_backend` is the same kernel compiled
(optional: ``pip install 'memlab[speed]'``); ``backend="auto"`` uses numba when importable.
Both kernels give the same scores bit for bit. :class:`memlab.stages.lexical.BM25` and
``TfIdf`` are the stages built on them.

>>> counts = count_terms([["deploy", "key"], ["rotate", "key"], ["lunch"]])
>>> post = Postings(bm25_weights(counts, "lucene", 1.5, 0.75, 0.5).matrix)
>>> q = query_terms([["deploy", "key"]], counts.vocabulary)
>>> docs, scores = rank(post, q, depth=10)[0]
>>> docs.tolist()
[0, 1]
"""

from memlab.bm25.index import (
    BM25Weights,
    TermCounts,
    bm25_weights,
    count_terms,
    count_texts,
    idf,
    tfc,
)
from memlab.bm25.score import (
    BACKENDS,
    Postings,
    QueryTerms,
    numba_available,
    query_terms,
    rank,
    rank_numpy,
    resolve_backend,
)

__all__ = ["BACKENDS", "BM25Weights", "Postings", "QueryTerms", "TermCounts", "bm25_weights",
           "count_terms", "count_texts", "idf", "numba_available", "query_terms", "rank",
           "rank_numpy", "resolve_backend", "tfc"]
